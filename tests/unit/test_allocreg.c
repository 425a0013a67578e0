/*
 * Unit tests of provenance/alloc/allocreg: the allocator registry, its
 * lookups and the one list of names messages use; every variable a row
 * reads is one that lib/proc scrubs from the children's environment.
 */
#include <string.h>

#include "../../lib/proc.h"
#include "../../lib/util.h"
#include "../../provenance/alloc/allocopts.h"
#include "../../provenance/alloc/allocreg.h"
#include "unit.h"

static int
has_secure(const struct ab_allockind *k)
{
	return k->has_secure;
}

static void
test_rows(void)
{
	size_t n = 0;

	CHECK_STR(ab_allockind_names(NULL, " or "), "jemalloc, mimalloc, tcmalloc or glibc");
	CHECK_STR(ab_allockind_names(has_secure, " or "), "mimalloc");
	CHECK(ab_allockind_find("tcmalloc") == &ab_allockinds[2]);
	CHECK(ab_allockind_find("jemaloc") == NULL);
	CHECK(ab_allockind_find(NULL) == NULL);
	CHECK_STR(ab_allockind_fallback()->name, "glibc");
	for (const struct ab_allockind *k = ab_allockinds; k->name; k++) {
		CHECK(ab_allockind_index(k) == n);
		CHECK(k->probe != NULL);
		CHECK(k->releases != NULL && k->releases[0].version != NULL);
		CHECK(k->check_env != NULL);
		n++;
	}
	CHECK(n <= AB_ALLOCKIND_MAX);
}

static void
test_vars(void)
{
	static const char *const read[][2] = {{"jemalloc", "MALLOC_CONF"}, {"jemalloc", "_RJEM_MALLOC_CONF"},
	    {"mimalloc", "MIMALLOC_PURGE_DELAY"}, {"tcmalloc", "TCMALLOC_RELEASE_RATE"}, {"glibc", "GLIBC_TUNABLES"},
	    {"glibc", "MALLOC_ARENA_MAX"}, {"glibc", "MALLOC_TOP_PAD_"}};

	for (size_t i = 0; i < AB_NELEM(read); i++) {
		CHECK(ab_allockind_reads(ab_allockind_find(read[i][0]), read[i][1]));
		CHECK(ab_env_is_allocator_var(read[i][1]));
	}
	CHECK(!ab_allockind_reads(ab_allockind_find("jemalloc"), "_MALLOC_CONFX"));
	CHECK(!ab_allockind_reads(ab_allockind_find("glibc"), "MALLOC_CONF"));
	CHECK(!ab_allockind_any_reads("PATH"));
	/* every name a row spells plainly is scrubbed (the patterns: by the tests above) */
	for (const struct ab_allockind *k = ab_allockinds; k->name; k++)
		for (const char *const *v = k->vars; *v; v++)
			if (!strchr(*v, '*'))
				CHECK(ab_env_is_allocator_var(*v));
}

int
main(void)
{
	test_rows();
	test_vars();
	return unit_done();
}
