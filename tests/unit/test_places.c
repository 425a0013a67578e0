/*
 * lib/places: the one rule for the places of the author's machine in what
 * is published: OUTDIR (as given and resolved) "OUTDIR", the current
 * directory ".", HOME "~", the longest first, only where a path's
 * component ends; several sets in one pass (a merge's shards); the record
 * of a set read back as it was written.
 */
#include <stdlib.h>
#include <string.h>

#include "../../lib/places.h"
#include "../../lib/util.h"
#include "unit.h"

static void
test_hide(void)
{
	const struct ab_places p = {"/home/u/w/out", "/data/w/out", "/home/u/w", "/home/u"};
	static const char *const cases[][2] = {
	    {"/home/u/w/out/variants/a/build", "OUTDIR/variants/a/build"},
	    {"/data/w/out/variants/a", "OUTDIR/variants/a"},
	    {"/home/u/w/out", "OUTDIR"},
	    {"/home/u/w/out2/x", "./out2/x"},          /* another directory: not OUTDIR */
	    {"/home/u/w/mirror/sha256/ab", "./mirror/sha256/ab"},
	    {"/home/u/.cache/ccache", "~/.cache/ccache"},
	    {"/home/user/x", "/home/user/x"},          /* "/home/u" ends no component there */
	    {"-I/home/u/w/out/inc -L/home/u/lib", "-IOUTDIR/inc -L~/lib"},
	    {"/usr/bin/cc", "/usr/bin/cc"},
	    {"", ""},
	};

	for (size_t i = 0; i < AB_NELEM(cases); i++) {
		char *s = ab_places_hide(&p, 1, cases[i][0]);

		CHECK_STR(s, cases[i][1]);
		free(s);
	}
	/* a place of "/" is none */
	{
		const struct ab_places root = {NULL, NULL, "/", NULL};
		char *s = ab_places_hide(&root, 1, "/usr/bin/cc");

		CHECK_STR(s, "/usr/bin/cc");
		free(s);
	}
}

/* a merge: each shard's OUTDIR, inside the merge's current directory, is OUTDIR (the longest wins) */
static void
test_sets(void)
{
	const struct ab_places ps[] = {
	    {"/w/merged", NULL, "/w", "/root"},
	    {"/w/s1", NULL, "/w", "/root"},
	    {"/scratch/node2/s2", NULL, "/scratch/node2", "/home/n2"},
	};
	cJSON *doc = cJSON_Parse("{\"a\": [\"/w/s1/variants/a/build\", \"/scratch/node2/s2/variants/b\"],"
	    " \"m\": \"/w/merged/variants\", \"c\": \"/scratch/node2/cache\", \"h\": \"/home/n2/.ccache\","
	    " \"/w/s1/key\": 1, \"n\": \"no/place\"}");
	char *s;

	ab_places_hide_json(ps, AB_NELEM(ps), doc);
	s = cJSON_PrintUnformatted(doc);
	CHECK_STR(s, "{\"a\":[\"OUTDIR/variants/a/build\",\"OUTDIR/variants/b\"],\"m\":\"OUTDIR/variants\","
	    "\"c\":\"./cache\",\"h\":\"~/.ccache\",\"/w/s1/key\":1,\"n\":\"no/place\"}");
	free(s);
	cJSON_Delete(doc);
}

static void
test_json(void)
{
	const struct ab_places p = {"/w/out", NULL, "/w", "/root"};
	struct ab_places q = {0};
	cJSON *j = ab_places_json(&p), *bad;
	char *s = cJSON_PrintUnformatted(j);

	CHECK_STR(s, "{\"outdir\":\"/w/out\",\"cwd\":\"/w\",\"home\":\"/root\"}");
	ab_places_parse(&q, j);
	CHECK_STR(q.outdir_abs, "/w/out");
	CHECK(q.outdir_real == NULL);
	CHECK_STR(q.cwd, "/w");
	CHECK_STR(q.home, "/root");
	CHECK(ab_places_any(&q));
	ab_places_release(&q);
	CHECK(!ab_places_any(&q));
	/* what is not an absolute path is no place */
	bad = cJSON_Parse("{\"outdir\": \"rel\", \"cwd\": 3, \"home\": \"/h\"}");
	ab_places_parse(&q, bad);
	CHECK(q.outdir_abs == NULL && q.cwd == NULL);
	CHECK_STR(q.home, "/h");
	ab_places_release(&q);
	ab_places_parse(&q, NULL);
	CHECK(!ab_places_any(&q));
	cJSON_Delete(bad);
	cJSON_Delete(j);
	free(s);
}

/* this process: OUTDIR as given (through a symbolic link, relative), made absolute and resolved */
static void
test_init(void)
{
	char *dir = unit_tmpdir("places"), *link = ab_sprintf("%s.link", dir), *sub = ab_path_join(link, "x"),
	     *realsub = ab_path_join(dir, "x");
	struct ab_places p;
	char *s;

	CHECK(symlink(dir, link) == 0);
	ab_places_init(&p, link);
	CHECK(p.outdir_abs && p.outdir_real && p.cwd);
	s = ab_places_hide(&p, 1, sub);
	CHECK_STR(s, "OUTDIR/x");
	free(s);
	s = ab_places_hide(&p, 1, realsub);
	CHECK_STR(s, "OUTDIR/x");
	free(s);
	ab_places_release(&p);
	CHECK(chdir(dir) == 0);
	ab_places_init(&p, ".");
	s = ab_places_hide(&p, 1, realsub);
	CHECK_STR(s, "OUTDIR/x");
	free(s);
	ab_places_release(&p);
	CHECK(chdir("/") == 0);
	unlink(link);
	ab_rm_rf(dir);
	free(realsub);
	free(sub);
	free(link);
	free(dir);
}

int
main(void)
{
	test_hide();
	test_sets();
	test_json();
	test_init();
	return unit_done();
}
