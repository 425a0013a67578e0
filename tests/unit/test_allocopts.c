/*
 * Unit tests of provenance/alloc/allocopts: the option tables generated from the
 * jemalloc, mimalloc, glibc and gperftools release sources, against the facts the campaigns
 * depend on (docs/probes.md).
 */
#include "../../lib/util.h"
#include "../../provenance/alloc/allocopts.h"
#include "unit.h"

static size_t
count(const struct ab_alloc_release *r)
{
	size_t n = 0;

	while (r->options[n].name)
		n++;
	return n;
}

static void
test_jemalloc(void)
{
	const char *basis, *feature;

	CHECK(count(ab_allocopts_release(ab_jemalloc_releases, "5.3.0")) == 74);
	CHECK(ab_allocopts_jemalloc("5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c", "lg_extent_max_active_fit",
	    &basis, NULL) == AB_OPT_READ);
	CHECK_STR(basis, "5.3.0");
	CHECK(ab_allocopts_jemalloc("5.3.0", "disable_large_size_classes", NULL, NULL) == AB_OPT_NOT_READ);
	CHECK(ab_allocopts_jemalloc("5.3.1-0-g81034ce1f1373e37dc865038e1bc8eeecf559ce8", "disable_large_size_classes",
	    NULL, NULL) == AB_OPT_READ);
	CHECK(ab_allocopts_jemalloc("5.1.0-0-g61efbda7098de6fe64c362d309824864308c36d4", "oversize_threshold", &basis,
	    NULL) == AB_OPT_NOT_READ);
	CHECK_STR(basis, "5.1.0");
	CHECK(ab_allocopts_jemalloc("5.1.0", "tcache_nslots_small_max", NULL, NULL) == AB_OPT_NOT_READ);
	CHECK(ab_allocopts_jemalloc("5.2.1", "oversize_threshold", NULL, NULL) == AB_OPT_READ);
	CHECK(ab_allocopts_jemalloc("5.3.0", "narenas", NULL, NULL) == AB_OPT_READ);
	CHECK(ab_allocopts_jemalloc("5.3.0", "prof", NULL, &feature) == AB_OPT_NEEDS_FEATURE);
	CHECK_STR(feature, "prof");
	CHECK(ab_allocopts_jemalloc("5.3.0", "junk", NULL, &feature) == AB_OPT_NEEDS_FEATURE);
	CHECK_STR(feature, "fill");
	/* a commit after the last tag: checked against that tag, which the answer names */
	CHECK(ab_allocopts_jemalloc("5.3.1-47-g295e4894", "narenas", &basis, NULL) == AB_OPT_READ);
	CHECK_STR(basis, "5.3.1");
	CHECK(ab_allocopts_jemalloc("4.5.0", "narenas", &basis, NULL) == AB_OPT_UNKNOWN_VERSION && !basis);
	CHECK(ab_allocopts_jemalloc("0.0.0-0-g000000missing_version_try_git_fetch_tags", "narenas", NULL, NULL) ==
	    AB_OPT_UNKNOWN_VERSION);
	CHECK(ab_allocopts_jemalloc(NULL, "narenas", NULL, NULL) == AB_OPT_UNKNOWN_VERSION);
}

static void
test_mimalloc(void)
{
	const struct ab_alloc_option *o;
	const char *basis;

	CHECK(ab_allocopts_mimalloc("2.0.9", "MIMALLOC_PURGE_DELAY", NULL, NULL) == AB_OPT_NOT_READ);
	CHECK(ab_allocopts_mimalloc("2.0.9", "MIMALLOC_DECOMMIT_DELAY", NULL, &o) == AB_OPT_READ);
	CHECK(o && !strcmp(o->value, "25"));
	CHECK(ab_allocopts_mimalloc("2.0.9", "MIMALLOC_RESET_DELAY", NULL, &o) == AB_OPT_READ); /* legacy name */
	CHECK(o && !strcmp(o->name, "decommit_delay"));
	CHECK(ab_allocopts_mimalloc("v2.1.7", "MIMALLOC_PAGE_FULL_RETAIN", &basis, NULL) == AB_OPT_NOT_READ);
	CHECK_STR(basis, "2.1.7");
	CHECK(ab_allocopts_mimalloc("2.1.7", "MIMALLOC_PURGE_DELAY", NULL, &o) == AB_OPT_READ);
	CHECK(o && !strcmp(o->value, "10"));
	CHECK(ab_allocopts_mimalloc("2.1.7", "MIMALLOC_PURGE_DECOMMITS", NULL, NULL) == AB_OPT_READ);
	CHECK(ab_allocopts_mimalloc("2.1.7", "MIMALLOC_ARENA_PURGE_MULT", NULL, NULL) == AB_OPT_READ);
	CHECK(ab_allocopts_mimalloc("2.1.7", "MIMALLOC_ARENA_EAGER_COMMIT", NULL, NULL) == AB_OPT_READ);
	CHECK(ab_allocopts_mimalloc("2.1.7", "MIMALLOC_DECOMMIT_DELAY", NULL, NULL) == AB_OPT_NOT_READ);
	CHECK(ab_allocopts_mimalloc("3.2.8", "MIMALLOC_PAGE_FULL_RETAIN", NULL, NULL) == AB_OPT_READ);
	CHECK(ab_allocopts_mimalloc("3.2.8", "MIMALLOC_PURGE_DELAY", NULL, &o) == AB_OPT_READ);
	CHECK(o && !strcmp(o->value, "1000"));
	CHECK(ab_allocopts_mimalloc("3.2.8", "MIMALLOC_purge_delay", NULL, NULL) == AB_OPT_NOT_READ);
	CHECK(ab_allocopts_mimalloc("3.2.8", "MIMALLOC_", NULL, NULL) == AB_OPT_NOT_READ);
	CHECK(ab_allocopts_mimalloc("1.7.0", "MIMALLOC_VERBOSE", NULL, NULL) == AB_OPT_UNKNOWN_VERSION);
}

static void
test_check_env(void)
{
	char *je[] = {"MALLOC_CONF=disable_large_size_classes:false,lg_extent_max_active_fit:30", "OTHER=1", NULL};
	char *pre[] = {"MALLOC_CONF=narenas:2", "_RJEM_MALLOC_CONF=oversize_threshold:0", NULL};
	char *mi[] = {"MIMALLOC_PURGE_DELAY=0", "MIMALLOC_PAGE_FULL_RETAIN=1", NULL};
	struct ab_strv w = {0};

	ab_allocopts_check_env(&w, "jemalloc", "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c", "MALLOC_CONF", je);
	CHECK(w.n == 1);
	CHECK_STR(w.n ? w.v[0] : NULL, "MALLOC_CONF: jemalloc 5.3.0 has no option 'disable_large_size_classes' (it "
	    "reports \"Invalid conf pair\" and ignores it)");
	ab_strv_free(&w);
	ab_allocopts_check_env(&w, "jemalloc", "5.1.0", "_RJEM_MALLOC_CONF", pre);
	CHECK(w.n == 2);
	CHECK_STR(w.n ? w.v[0] : NULL, "MALLOC_CONF has no effect on this binary: it reads _RJEM_MALLOC_CONF");
	CHECK_STR(w.n > 1 ? w.v[1] : NULL, "_RJEM_MALLOC_CONF: jemalloc 5.1.0 has no option 'oversize_threshold' (it "
	    "reports \"Invalid conf pair\" and ignores it)");
	ab_strv_free(&w);
	ab_allocopts_check_env(&w, "mimalloc", "2.1.7", NULL, mi);
	CHECK(w.n == 1);
	CHECK_STR(w.n ? w.v[0] : NULL, "mimalloc 2.1.7 has no option MIMALLOC_PAGE_FULL_RETAIN: it ignores it silently");
	ab_strv_free(&w);
	/* an unknown version checks nothing */
	ab_allocopts_check_env(&w, "mimalloc", NULL, NULL, mi);
	CHECK(w.n == 0);
}

/* glibc 2.36's malloc tunables (elf/dl-tunables.list) and their variables */
static void
test_glibc(void)
{
	char *env[] = {"MALLOC_ARENA_MAX=2", "MALLOC_ARENA_MAXX=2",
	    "GLIBC_TUNABLES=glibc.malloc.tcache_count=5:glibc.malloc.bogus=1:glibc.cpu.hwcaps=-AVX2", NULL};
	const struct ab_alloc_option *o;
	struct ab_strv w = {0};

	CHECK(ab_allocopts_lookup(ab_glibc_releases, "2.36", "MALLOC_ARENA_MAX", NULL, &o) == AB_OPT_READ);
	CHECK_STR(o ? o->name : NULL, "glibc.malloc.arena_max");
	CHECK(ab_allocopts_lookup(ab_glibc_releases, "2.36", "glibc.malloc.hugetlb", NULL, NULL) == AB_OPT_READ);
	CHECK(ab_allocopts_lookup(ab_glibc_releases, "2.35", "glibc.malloc.hugetlb", NULL, NULL) == AB_OPT_UNKNOWN_VERSION);
	CHECK(ab_allocopts_lookup(ab_glibc_releases, "2.40", "glibc.malloc.arena_max", NULL, NULL) == AB_OPT_READ);
	ab_allocopts_check_env(&w, "glibc", "2.36", NULL, env);
	CHECK(w.n == 2);
	CHECK_STR(w.n ? w.v[0] : NULL, "glibc 2.36 has no variable MALLOC_ARENA_MAXX: it ignores it silently");
	CHECK_STR(w.n > 1 ? w.v[1] : NULL, "GLIBC_TUNABLES: glibc 2.36 has no tunable glibc.malloc.bogus: it ignores it "
	    "silently");
	ab_strv_free(&w);
}

/* gperftools 2.10's TCMALLOC_* variables */
static void
test_tcmalloc(void)
{
	char *env[] = {"TCMALLOC_RELEASE_RATE=5", "TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES=1048576",
	    "TCMALLOC_RELEASE_RATES=5", NULL};
	struct ab_strv w = {0};

	CHECK(ab_allocopts_lookup(ab_tcmalloc_releases, "2.10", "TCMALLOC_AGGRESSIVE_DECOMMIT", NULL, NULL) == AB_OPT_READ);
	CHECK(ab_allocopts_lookup(ab_tcmalloc_releases, "2.10", "TCMALLOC_SAMPLE_PARAMETER", NULL, NULL) == AB_OPT_READ);
	CHECK(ab_allocopts_lookup(ab_tcmalloc_releases, "2.9", "TCMALLOC_SAMPLE_PARAMETER", NULL, NULL) ==
	    AB_OPT_UNKNOWN_VERSION);
	ab_allocopts_check_env(&w, "tcmalloc", "2.10", NULL, env);
	CHECK(w.n == 1);
	CHECK_STR(w.n ? w.v[0] : NULL, "tcmalloc 2.10 has no variable TCMALLOC_RELEASE_RATES: it ignores it silently");
	ab_strv_free(&w);
}

int
main(void)
{
	test_jemalloc();
	test_mimalloc();
	test_check_env();
	test_glibc();
	test_tcmalloc();
	return unit_done();
}
