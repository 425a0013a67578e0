/* unit tests for provenance/runs/series (figures, the CSV file), provenance/runs/metrics (the driver's lines) and runenv's CPU lists */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../provenance/runs/metrics.h"
#include "../../provenance/runs/runenv.h"
#include "../../provenance/runs/series.h"
#include "unit.h"

static void
add(struct ab_series *s, uint64_t ms, uint64_t rss, uint64_t cpu)
{
	struct ab_sample x = {.ms = ms, .rss_kb = rss, .cpu_ms = cpu, .minflt = ms, .threads = 1, .processes = 1,
	    .comm_rss_kb = rss / 2};

	ab_series_add(s, &x);
}

static void
check_figures(void)
{
	struct ab_series s = {0};
	struct ab_series_figures f;
	struct ab_series_window w = {0.1, 0.4, 0.6};

	/* 0 ms: 100; 100..400 ms: 1000, 1000, 3000, 1000; then 500 at 500 and 600 ms; 700 ms: 400 */
	add(&s, 0, 100, 0);
	add(&s, 100, 1000, 10);
	add(&s, 200, 1000, 20);
	add(&s, 300, 3000, 40);
	add(&s, 400, 1000, 50);
	add(&s, 500, 500, 60);
	add(&s, 600, 500, 60);
	add(&s, 700, 400, 70);
	ab_series_figures(&f, &s, &w);
	CHECK(f.window_samples == 4);
	CHECK(f.steady_rss_kb == 1000);
	CHECK(f.peak_rss_kb == 3000);
	CHECK(f.cooldown_rss_kb == 500);
	/* trapezoids: 0.1 s x (550 + 1000 + 2000 + 2000 + 750 + 500 + 450) kB */
	CHECK(fabs(f.rss_gib_s - 0.1 * 7250 / 1048576.0) < 1e-12);
	CHECK(fabs(f.window_cpu_s - 0.040) < 1e-12);
	CHECK(fabs(f.cpu_s - 0.070) < 1e-12);
	CHECK(f.minor_faults == 700);
	CHECK(isnan(f.tree_peak_rss_kb));
	CHECK(isnan(f.steady_pss_kb));
	/* a cooldown past the series' end has no figure; none asked, none given */
	w.cooldown_at_s = 0.75;
	ab_series_figures(&f, &s, &w);
	CHECK(isnan(f.cooldown_rss_kb));
	w.cooldown_at_s = -1;
	ab_series_figures(&f, &s, &w);
	CHECK(isnan(f.cooldown_rss_kb));
	/* the sample taken at the cooldown's end, stored rounded down to its millisecond: reached */
	w.cooldown_at_s = 0.7004;
	ab_series_figures(&f, &s, &w);
	CHECK(ab_series_reaches(&s, 0.7004) && f.cooldown_rss_kb == 400);
	CHECK(!ab_series_reaches(&s, 0.7011));
	/* with comm: the figures use comm's column, the tree's peak kept apart */
	s.comm = 1;
	w.cooldown_at_s = 0.6;
	ab_series_figures(&f, &s, &w);
	CHECK(f.steady_rss_kb == 500);
	CHECK(f.peak_rss_kb == 1500);
	CHECK(f.tree_peak_rss_kb == 3000);
	CHECK(f.cooldown_rss_kb == 250);
	ab_series_release(&s);
	/* no samples: no figures */
	ab_series_figures(&f, &s, &w);
	CHECK(isnan(f.steady_rss_kb) && isnan(f.peak_rss_kb) && isnan(f.cooldown_rss_kb) && f.rss_gib_s == 0);
}

static int
parse(const char *text, const char *name)
{
	struct ab_series back;
	int e = ab_series_parse(&back, text, strlen(text), name);

	ab_series_release(&back);
	return e;
}

static void
check_csv(void)
{
	struct ab_series s = {.comm = 1}, back;
	struct ab_buf b = {0};
	struct unit_catch c;
	char *msg;

	add(&s, 2, 1084, 0);
	add(&s, 53, 11216, 10);
	ab_series_csv(&b, &s);
	CHECK_STR(b.s, "ms,rss_kb,cpu_ms,minflt,majflt,threads,processes,comm_rss_kb\n"
	    "2,1084,0,2,0,1,1,542\n53,11216,10,53,0,1,1,5608\n");
	CHECK(ab_series_parse(&back, b.s, b.len, "x.csv") == 0);
	CHECK(back.n == 2 && back.comm && !back.pss && back.v[1].rss_kb == 11216 && back.v[1].comm_rss_kb == 5608);
	ab_series_release(&back);
	ab_buf_free(&b);
	s.comm = 0;
	s.pss = 1;
	ab_series_csv(&b, &s);
	CHECK(!strncmp(b.s, "ms,rss_kb,cpu_ms,minflt,majflt,threads,processes,pss_kb,anon_kb\n", 64));
	ab_buf_free(&b);
	ab_series_release(&s);

	unit_catch_begin(&c);
	CHECK(parse("ms,rss\n1,2\n", "a.csv") == AB_EFAIL);
	CHECK(parse("ms,rss_kb,cpu_ms,minflt,majflt,threads,processes\n1,2,3,4,5,6\n", "b.csv") == AB_EFAIL);
	CHECK(parse("ms,rss_kb,cpu_ms,minflt,majflt,threads,processes\n9,2,3,4,5,6,7\n1,2,3,4,5,6,7\n", "c.csv") ==
	    AB_EFAIL);
	CHECK(parse("ms,rss_kb,cpu_ms,minflt,majflt,threads,processes\n1,2,3,4,5,6,7", "d.csv") == AB_EFAIL);
	CHECK(parse("ms,rss_kb,cpu_ms,minflt,majflt,threads,processes\n1,2,3,4,5,-6,7\n", "e.csv") == AB_EFAIL);
	CHECK(parse("ms,rss_kb,cpu_ms,minflt,majflt,threads,processes\n", "f.csv") == 0);
	msg = unit_catch_end(&c);
	CHECK_STR(msg, "allocbuild: 'a.csv':1: not a series file's header: 'ms,rss'\n"
	    "allocbuild: 'b.csv':2: not a line of the series' columns\n"
	    "allocbuild: 'c.csv':3: time goes back\n"
	    "allocbuild: 'd.csv':2: the last line has no newline\n"
	    "allocbuild: 'e.csv':2: not a line of the series' columns");
	free(msg);
}

static int
line(struct ab_metrics *m, const char *l, const char **why)
{
	return ab_metrics_line(m, l, strlen(l), why);
}

static void
check_metrics(void)
{
	struct ab_metrics m = {0};
	const char *why;

	CHECK(line(&m, "records_per_s=5", &why) == 0);
	CHECK(line(&m, "ALLOCBUILD_METRICS x=1", &why) == 0);
	CHECK(line(&m, "ALLOCBUILD_METRIC records_per_s=152301 records/s", &why) == 1);
	CHECK(line(&m, "ALLOCBUILD_METRIC p99_ms=4.2 ms cell=json", &why) == 1);
	CHECK(line(&m, "ALLOCBUILD_METRIC records=1e6 records better=higher", &why) == 1);
	CHECK(line(&m, "ALLOCBUILD_METRIC  p99_ms=4.5\tms   cell=json", &why) == 1);
	CHECK(line(&m, "ALLOCBUILD_METRIC lat=3 better=lower", &why) == 1);
	CHECK(m.n == 4);
	CHECK_STR(m.v[0].name, "records_per_s");
	CHECK(m.v[0].value == 152301 && m.v[0].higher && !m.v[0].cell);
	CHECK_STR(m.v[0].unit, "records/s");
	/* the same name in the same cell: replaced, counted */
	CHECK(m.v[1].value == 4.5 && m.v[1].reported == 2 && !m.v[1].higher);
	CHECK_STR(m.v[1].cell, "json");
	CHECK(m.v[2].value == 1e6 && m.v[2].higher);
	CHECK(!m.v[3].unit && !m.v[3].higher);
	CHECK(line(&m, "ALLOCBUILD_METRIC x", &why) == -1 && strstr(why, "NAME=VALUE"));
	CHECK(line(&m, "ALLOCBUILD_METRIC a/b=1", &why) == -1);
	CHECK(line(&m, "ALLOCBUILD_METRIC x=fast", &why) == -1 && strstr(why, "finite"));
	CHECK(line(&m, "ALLOCBUILD_METRIC x=nan", &why) == -1);
	CHECK(line(&m, "ALLOCBUILD_METRIC x=inf", &why) == -1);
	CHECK(line(&m, "ALLOCBUILD_METRIC x=0x10", &why) == -1);
	CHECK(line(&m, "ALLOCBUILD_METRIC x=1e999", &why) == -1);
	CHECK(line(&m, "ALLOCBUILD_METRIC x=", &why) == -1);
	CHECK(line(&m, "ALLOCBUILD_METRIC wall_s=1 s", &why) == -1 && strstr(why, "allocbuild's own"));
	CHECK(line(&m, "ALLOCBUILD_METRIC x=1 cell=a unit", &why) == -1 && strstr(why, "in that order"));
	CHECK(line(&m, "ALLOCBUILD_METRIC x=1 s better=sideways", &why) == -1);
	CHECK(line(&m, "ALLOCBUILD_METRIC x=1 a b", &why) == -1);
	CHECK(m.n == 4);
	ab_metrics_release(&m);
	CHECK(ab_metric_builtin("steady_rss_mib") == AB_M_STEADY_RSS);
	CHECK(ab_metric_builtin("records_per_s") == -1);
	CHECK(ab_metric_cell_valid("json/large", 10) && !ab_metric_cell_valid("a b", 3) && !ab_metric_cell_valid("", 0));
	/* the most figures a run keeps: the first AB_METRICS_MAX, later reports of them still counted; the rest dropped */
	for (int i = 0; i < AB_METRICS_MAX + 44; i++) {
		char l[64];

		snprintf(l, sizeof(l), "ALLOCBUILD_METRIC m%03d=%d u", i, i);
		CHECK(line(&m, l, &why) == 1);
	}
	CHECK(line(&m, "ALLOCBUILD_METRIC m000=7 u", &why) == 1);
	CHECK(line(&m, "ALLOCBUILD_METRIC m000=8 u cell=c", &why) == 1);
	CHECK(m.n == AB_METRICS_MAX && m.dropped == 45);
	CHECK(ab_metrics_get(&m, "m000", NULL) == &m.v[0] && m.v[0].value == 7 && m.v[0].reported == 2);
	CHECK(ab_metrics_get(&m, "m255", NULL) == &m.v[255] && !ab_metrics_get(&m, "m256", NULL));
	CHECK(!ab_metrics_get(&m, "m000", "c"));
	ab_metrics_release(&m);
	/* a name and a cell are one key, told apart from another pair that would spell the same */
	CHECK(ab_metrics_set(&m, "a", 1, NULL, "b", 0, 1) == 1 && ab_metrics_set(&m, "a=b", 2, NULL, NULL, 0, 1) == 1);
	CHECK(m.n == 2 && ab_metrics_get(&m, "a", "b")->value == 1 && ab_metrics_get(&m, "a=b", NULL)->value == 2);
	ab_metrics_release(&m);
	CHECK(ab_metric_value_valid(1e300) && !ab_metric_value_valid(1e301) && !ab_metric_value_valid(-1e308));
}

static void
check_cpulist(void)
{
	cpu_set_t set;

	CHECK(ab_runenv_cpulist_parse(&set, "0-3,8,12-13") == 0);
	CHECK(CPU_COUNT(&set) == 7 && CPU_ISSET(0, &set) && CPU_ISSET(3, &set) && CPU_ISSET(8, &set) &&
	    CPU_ISSET(13, &set) && !CPU_ISSET(4, &set));
	CHECK(ab_runenv_cpulist_parse(&set, "1") == 0 && CPU_COUNT(&set) == 1);
	CHECK(ab_runenv_cpulist_parse(&set, "") < 0);
	CHECK(ab_runenv_cpulist_parse(&set, "3-1") < 0);
	CHECK(ab_runenv_cpulist_parse(&set, "1,") < 0);
	CHECK(ab_runenv_cpulist_parse(&set, "1-") < 0);
	CHECK(ab_runenv_cpulist_parse(&set, "-1") < 0);
	CHECK(ab_runenv_cpulist_parse(&set, "a") < 0);
	CHECK(ab_runenv_cpulist_parse(&set, "99999") < 0);
}

int
main(void)
{
	check_figures();
	check_csv();
	check_metrics();
	check_cpulist();
	return unit_done();
}
