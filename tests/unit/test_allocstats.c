/*
 * unit tests for provenance/alloc/allocstats: the statistics jemalloc 5.3.0
 * and mimalloc 2.0.9 print at exit, as captured from real runs (the
 * figures t7235 checks against what the program itself read), cut where
 * the parser reads nothing; output around them; broken ones refused
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "../../provenance/alloc/allocreg.h"
#include "../../provenance/alloc/allocstats.h"
#include "unit.h"

/* jemalloc 5.3.0, stats_print_opts:Jadblxeh, without the opt and bin tables */
static const char je[] =
    "{\"jemalloc\":{\"version\":\"5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c\",\"arenas\":{\"narenas\":9,"
    "\"quantum\":8,\"page\":4096},\"stats\":{\"allocated\":11016576,\"active\":13615104,\"metadata\":2852672,"
    "\"metadata_thp\":0,\"resident\":26406912,\"mapped\":29937664,\"retained\":3616768,\"zero_reallocs\":0},"
    "\"stats.arenas\":{\"merged\":{\"nthreads\":1,\"pactive\":3324,\"pdirty\":2449,\"pmuzzy\":3}}}}";

static const char mi[] =
    "heap stats:    peak      total      freed    current       unit      count   \n"
    "  reserved:   32.0 MiB   32.0 MiB      0       32.0 MiB                        \n"
    " committed:   32.5 MiB   32.0 MiB      0       32.0 MiB                        \n"
    "     reset:      0        512 B        0          0                            ok\n"
    "   touched:   64.2 KiB   64.2 KiB   11.9 KiB   52.3 KiB                        not all freed!\n"
    "  segments:      1          1          0          1                            not all freed!\n"
    "   threads:      0          0          0          0                            ok\n"
    "  searches:     0.0 avg\n"
    "numa nodes:       1\n"
    "   elapsed:       0.001 s\n"
    "   process: user: 0.000 s, system: 0.002 s, faults: 0, rss: 5.4 MiB, commit: 32.0 MiB\n";

static int
parse(const struct ab_allocstats_ops *ops, const char *text, double *v, double *res, const char **why)
{
	*why = NULL;
	return ops->parse(v, res, text, strlen(text), why);
}

int
main(void)
{
	double v[AB_ALLOCSTATS_MAX], res[AB_ALLOCSTATS_MAX];
	const char *why;
	char buf[4096];

	/* the registry: jemalloc and mimalloc report, tcmalloc and glibc not */
	CHECK(ab_allockind_find("jemalloc")->stats == &ab_allocstats_jemalloc);
	CHECK(ab_allockind_find("mimalloc")->stats == &ab_allocstats_mimalloc);
	CHECK(ab_allockind_find("tcmalloc")->stats == NULL && ab_allockind_find("glibc")->stats == NULL);
	CHECK(ab_allocstats_nfigures(&ab_allocstats_jemalloc) == 8 && ab_allocstats_nfigures(&ab_allocstats_mimalloc) == 6);

	/* jemalloc: the figures in bytes, dirty and muzzy pages times the page */
	CHECK(parse(&ab_allocstats_jemalloc, je, v, res, &why) == 0);
	CHECK(v[0] == 11016576 && v[1] == 13615104 && v[2] == 2852672 && v[3] == 26406912);
	CHECK(v[4] == 29937664 && v[5] == 3616768 && v[6] == 2449.0 * 4096 && v[7] == 3.0 * 4096);
	CHECK(res[0] == 0 && res[7] == 0);
	/* without the general part (option g, as run asks): the page is active over pactive */
	{
		const char *cut = strstr(je, "\"stats\":{");

		snprintf(buf, sizeof(buf), "{\"jemalloc\":{%s", cut);
		CHECK(parse(&ab_allocstats_jemalloc, buf, v, res, &why) == 0 && v[6] == 2449.0 * 4096);
	}
	/* the program's own output around it; the last report counts */
	snprintf(buf, sizeof(buf), "hello\n{\"jemalloc\":{\"stats\":{}}}\nmore\n%s\ntrailing output\n", je);
	CHECK(parse(&ab_allocstats_jemalloc, buf, v, res, &why) == 0 && v[0] == 11016576);
	CHECK(parse(&ab_allocstats_jemalloc, "no statistics here", v, res, &why) == -1);
	CHECK_STR(why, "no jemalloc statistics in the output (no '{\"jemalloc\":{')");
	/* cut short (a killed run), or interleaved with other output */
	snprintf(buf, sizeof(buf), "%.*s", (int)(sizeof(je) / 2), je);
	CHECK(parse(&ab_allocstats_jemalloc, buf, v, res, &why) == -1);
	CHECK_STR(why, "jemalloc's statistics do not parse as JSON (cut short, or other output inside them)");
	CHECK(parse(&ab_allocstats_jemalloc, "{\"jemalloc\":{\"arenas\":{\"page\":4096},\"stats\":{},"
	    "\"stats.arenas\":{\"merged\":{}}}}", v, res, &why) == -1);
	CHECK_STR(why, "jemalloc's statistics lack a figure of stats (built without --enable-stats?)");
	CHECK(parse(&ab_allocstats_jemalloc, "{\"jemalloc\":{\"arenas\":{\"page\":4096},\"stats\":{}}}", v, res, &why) == -1);
	CHECK_STR(why, "jemalloc's statistics have no merged arena figures (stats.arenas.merged)");

	/* mimalloc: reserved and committed current, committed's peak, reset's total, the process's peaks */
	CHECK(parse(&ab_allocstats_mimalloc, mi, v, res, &why) == 0);
	CHECK(v[0] == 33554432 && res[0] == 1024 * 1024 / 10.0);
	CHECK(v[1] == 33554432 && v[2] == floor(32.5 * 1048576 + 0.5));
	CHECK(v[3] == 512 && res[3] == 0);
	CHECK(v[4] == floor(5.4 * 1048576 + 0.5) && v[5] == 33554432);
	/* after the program's own lines, and a verbose line before */
	snprintf(buf, sizeof(buf), "mimalloc: option 'show_stats': 1\nout\n%s", mi);
	CHECK(parse(&ab_allocstats_mimalloc, buf, v, res, &why) == 0 && v[1] == 33554432);
	CHECK(parse(&ab_allocstats_mimalloc, "heap stats:\n  reserved:   garbage\n", v, res, &why) == -1);
	CHECK_STR(why, "mimalloc's statistics table lacks a row or an amount it reads (reserved, committed, reset)");
	CHECK(parse(&ab_allocstats_mimalloc, "", v, res, &why) == -1);
	CHECK_STR(why, "no mimalloc statistics in the output (no 'heap stats:' table)");
	/* no process line (cut short) */
	snprintf(buf, sizeof(buf), "%.*s", (int)(strstr(mi, "   process") - mi), mi);
	CHECK(parse(&ab_allocstats_mimalloc, buf, v, res, &why) == -1);
	CHECK_STR(why, "mimalloc's statistics have no process line with its peak RSS");
	return unit_done();
}
