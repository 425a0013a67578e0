/*
 * Unit tests of lib/strmap: against a plain list searched from the start,
 * for 20,000 keys (the map grows from 16 slots to 65,536 and probes past
 * collisions and the end of the table): every key put once is found with
 * its own index, a key put again keeps its first index and reports it,
 * keys never put (a prefix, a key one byte longer, the empty string) are
 * not found; an empty map finds nothing; ab_strmap_of_strv maps each
 * string to its first index.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/strmap.h"
#include "../../lib/util.h"
#include "unit.h"

enum { NKEYS = 20000 };

static void
test_empty(void)
{
	struct ab_strmap m = {0};
	size_t v = 7;

	CHECK(!ab_strmap_get(&m, "", &v));
	CHECK(!ab_strmap_get(&m, "runs/a/1.json", NULL));
	CHECK(v == 7);
	ab_strmap_free(&m);
	CHECK(m.cap == 0 && m.n == 0 && !m.slot);
}

static void
test_many(void)
{
	struct ab_strmap m = {0};
	struct ab_strv keys = {0};
	size_t v, bad_get = 0, bad_dup = 0, bad_missing = 0;

	/* paths shaped like an OUTDIR's: long shared prefixes */
	for (size_t i = 0; i < NKEYS; i++)
		ab_strv_pushf(&keys, "runs/bench-%zu/%zu-big.%s", i % 7, i, i % 3 ? "log" : "intoto.json");
	for (size_t i = 0; i < keys.n; i++)
		CHECK(ab_strmap_put(&m, keys.v[i], i) == 1);
	CHECK(m.n == NKEYS);
	CHECK(m.cap >= 2 * m.n && (m.cap & (m.cap - 1)) == 0);
	for (size_t i = 0; i < keys.n; i++) {
		char *copy = ab_strdup(keys.v[i]); /* found by content, not by pointer */

		v = SIZE_MAX;
		bad_get += !ab_strmap_get(&m, copy, &v) || v != i;
		/* put again: refused, the first index kept */
		bad_dup += ab_strmap_put(&m, copy, i + 1) != 0 || !ab_strmap_get(&m, keys.v[i], &v) || v != i;
		free(copy);
	}
	CHECK(bad_get == 0);
	CHECK(bad_dup == 0);
	CHECK(m.n == NKEYS);
	for (size_t i = 0; i < keys.n; i += 97) {
		char *longer = ab_sprintf("%sx", keys.v[i]);
		char *shorter = ab_strndup(keys.v[i], strlen(keys.v[i]) - 1);

		bad_missing += ab_strmap_get(&m, longer, NULL) + ab_strmap_get(&m, shorter, NULL);
		free(longer);
		free(shorter);
	}
	CHECK(bad_missing == 0);
	CHECK(!ab_strmap_get(&m, "", NULL));
	CHECK(!ab_strmap_get(&m, "runs/", NULL));
	/* the empty string is a key like any other */
	CHECK(ab_strmap_put(&m, "", 5) == 1);
	CHECK(ab_strmap_get(&m, "", &v) && v == 5);
	ab_strmap_free(&m);
	ab_strv_free(&keys);
}

static void
test_of_strv(void)
{
	struct ab_strmap m = {0};
	struct ab_strv sv = {0};
	size_t v;

	ab_strv_push(&sv, "b");
	ab_strv_push(&sv, "a");
	ab_strv_push(&sv, "b");
	ab_strv_push(&sv, "c");
	ab_strmap_of_strv(&m, &sv);
	CHECK(m.n == 3);
	CHECK(ab_strmap_get(&m, "b", &v) && v == 0);
	CHECK(ab_strmap_get(&m, "a", &v) && v == 1);
	CHECK(ab_strmap_get(&m, "c", &v) && v == 3);
	CHECK(!ab_strmap_get(&m, "d", NULL));
	ab_strmap_free(&m);
	ab_strv_free(&sv);
}

int
main(void)
{
	test_empty();
	test_many();
	test_of_strv();
	return unit_done();
}
