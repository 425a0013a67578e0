/*
 * test_shard: the partition of plan --matrix: K/N parsing, closures, the
 * cost estimate, placement and determinism, on recipes parsed from memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../builder/recipe.h"
#include "../../builder/shard.h"
#include "unit.h"

#define SHA "2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa"
#define SRC "\"sources\": {\"s\": {\"archive\": {\"urls\": [\"https://example.invalid/s.tar.gz\"], \"sha256\": \"" SHA "\"}}},"
#define BUILD(l) "{\"label\": \"" l "\", \"source\": \"s\", \"build\": {\"system\": \"autotools\"}, \"artifacts\": [\"lib/x.a\"]}"

static struct ab_recipe *
parse(const char *variants)
{
	struct ab_recipe *r = NULL;
	char *text = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&text, &n);

	fprintf(f, "{\"recipe\": 1, \"name\": \"t\", " SRC " \"variants\": [%s]}", variants);
	fclose(f);
	if (ab_recipe_parse(&r, "t.json", text, strlen(text), stderr) < 0)
		r = NULL;
	free(text);
	return r;
}

/* shard k's labels joined by spaces (static buffer) */
static const char *
labels(const struct ab_shards *s, size_t k)
{
	static char buf[512];

	buf[0] = 0;
	for (size_t i = 0; i < s->shard[k].labels.n; i++) {
		if (i)
			strcat(buf, " ");
		strcat(buf, s->shard[k].labels.v[i]);
	}
	return buf;
}

static void
test_parse(void)
{
	size_t k = 0, n = 0;

	CHECK(ab_shard_parse(&k, &n, "2/3") == 0 && k == 2 && n == 3);
	CHECK(ab_shard_parse(&k, &n, "1/1") == 0 && k == 1 && n == 1);
	CHECK(ab_shard_parse(&k, &n, "1024/1024") == 0);
	CHECK(ab_shard_parse(&k, &n, "1/1025") < 0);
	CHECK(ab_shard_parse(&k, &n, "0/2") < 0);
	CHECK(ab_shard_parse(&k, &n, "3/2") < 0);
	CHECK(ab_shard_parse(&k, &n, "2") < 0);
	CHECK(ab_shard_parse(&k, &n, "1/") < 0);
	CHECK(ab_shard_parse(&k, &n, "/2") < 0);
	CHECK(ab_shard_parse(&k, &n, "1/2 ") < 0);
	CHECK(ab_shard_parse(&k, &n, "-1/2") < 0);
	CHECK(ab_shard_parse(&k, &n, "1/+2") < 0);
	CHECK(ab_shard_parse(&k, &n, NULL) < 0);
}

static void
test_partition(void)
{
	struct ab_recipe *r = parse(BUILD("a") "," BUILD("b") "," BUILD("c") ","
	    "{\"label\": \"a-env\", \"runtime_of\": \"a\"},"
	    "{\"label\": \"rl\", \"relink\": {\"from\": \"b\", \"link_txt\": \"l.txt\", \"output\": \"o\","
	    " \"replace\": [{\"path\": \"x.a\", \"with\": {\"variant\": \"c\", \"artifact\": \"lib/x.a\"}}]}}");
	struct ab_shards *s = NULL, *t = NULL;

	CHECK(r != NULL);
	if (!r)
		return;
	/* builds spread first; the runtime_of with its base; the relink where its inputs cost least */
	CHECK(ab_shard_make(&s, r, 3) == 0);
	CHECK_STR(labels(s, 0), "a a-env");
	CHECK_STR(labels(s, 1), "b c rl");
	CHECK_STR(labels(s, 2), "c");
	CHECK(s->shard[0].cost == AB_SHARD_COST_BUILD + AB_SHARD_COST_RUNTIME);
	CHECK(s->shard[1].cost == 2 * AB_SHARD_COST_BUILD + AB_SHARD_COST_RELINK);
	/* the same recipe, the same partition */
	CHECK(ab_shard_make(&t, r, 3) == 0);
	for (size_t k = 0; k < 3; k++)
		CHECK_STR(labels(t, k), labels(s, k));
	ab_shards_free(s);
	ab_shards_free(t);
	/* one shard: everything, in dependency order */
	CHECK(ab_shard_make(&s, r, 1) == 0);
	CHECK_STR(labels(s, 0), "a b c a-env rl");
	ab_shards_free(s);
	/* more shards than variants: empty ones */
	CHECK(ab_shard_make(&s, r, 8) == 0);
	CHECK(s->shard[7].labels.n == 0 && s->shard[7].cost == 0);
	ab_shards_free(s);
	ab_shards_free(NULL);
	ab_recipe_free(r);
}

int
main(void)
{
	test_parse();
	test_partition();
	return unit_done();
}
