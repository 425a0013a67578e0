/*
 * Probe parsers and checks on captured real output (tests/unit/probe/):
 *   jemalloc-5.3.0-runtime.txt  jemalloc 5.3.0 tarball, --with-lg-quantum=3
 *       --with-malloc-conf=lg_extent_max_active_fit:30, run with MALLOC_CONF=
 *       lg_extent_max_active_fit:12,bogus_key:1,narenas:0,stats_print:true,
 *       stats_print_opts:mdablxeh
 *   jemalloc-bogus-baked.txt    the same tree without VERSION, configured outside
 *       git with --with-malloc-conf=disable_large_size_classes:false,
 *       lg_extent_max_active_fit:30, run with MALLOC_CONF=stats_print:true,
 *       stats_print_opts:mdablxeh,dirty_decay_ms:abc,lg_extent_max_active_fit:7,
 *   mimalloc-2.0.9.txt          Debian's 2.0.9 source, MI_SECURE=OFF, run with
 *       MIMALLOC_VERBOSE=1 MIMALLOC_PURGE_DELAY=5 MIMALLOC_DECOMMIT_DELAY=7
 *       MIMALLOC_EAGER_COMMIT=abc MIMALLOC_ABANDONED_PAGE_RESET=1
 *   mimalloc-2.1.7.txt, mimalloc-3.2.8.txt  the upstream tags, run with
 *       MIMALLOC_VERBOSE=1 MIMALLOC_PURGE_DELAY=5 MIMALLOC_ARENA_RESERVE=64M
 *       MIMALLOC_RESET_DELAY=3 MIMALLOC_PAGE_FULL_RETAIN=1
 *   glibc-2.36-tunables.txt     Debian 12's /lib64/ld-linux-x86-64.so.2 --list-tunables
 *       with MALLOC_ARENA_MAX=3 GLIBC_TUNABLES=glibc.malloc.tcache_count=5
 *   tcmalloc-2.10-report.txt    the tcmalloc probe's report helper preloaded after
 *       libtcmalloc_minimal.so (Debian's google-perftools 2.10 source, t5250's
 *       build) into alive, with TCMALLOC_MAX_TOTAL_THREAD_CACHE_BYTES=4194304
 *       TCMALLOC_AGGRESSIVE_DECOMMIT=t
 * Tests run from the repository root.
 */
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"
#include "../../lib/jsonio.h"
#include "../../provenance/probe/probe.h"
#include "../../provenance/probe/probe_impl.h"
#include "../../provenance/alloc/allocver.h"
#include "unit.h"

static char *
fixture(const char *name)
{
	struct ab_buf b = {0};
	char *path = ab_sprintf("tests/unit/probe/%s", name);

	if (ab_read_file(&b, path) < 0) {
		free(path);
		return ab_strdup("");
	}
	free(path);
	return ab_buf_detach(&b);
}

static const char *
eff(const cJSON *rec, const char *key)
{
	return ab_json_str(cJSON_GetObjectItemCaseSensitive(rec, "effective"), key);
}

static double
num(const cJSON *rec, const char *key)
{
	const cJSON *it = cJSON_GetObjectItemCaseSensitive(rec, key);

	return cJSON_IsNumber(it) ? it->valuedouble : -12345;
}

/* the i-th problem's field */
static const char *
problem(const cJSON *rec, int i, const char *field)
{
	return ab_json_str(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(rec, "problems"), i), field);
}

static int
nproblems(const cJSON *rec)
{
	return cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "problems"));
}

/* status of the override entry for setting */
static const char *
override(const cJSON *rec, const char *setting, const char *origin)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "overrides"))
		if (!strcmp(ab_json_str(it, "setting"), setting) && !strcmp(ab_json_str(it, "origin"), origin))
			return ab_json_str(it, "status");
	return NULL;
}

static void
test_jemalloc_runtime(void)
{
	char *text = fixture("jemalloc-5.3.0-runtime.txt");
	cJSON *rec = cJSON_CreateObject();

	CHECK(ab_probe_jemalloc_parse(rec, text) == 1);
	CHECK_STR(ab_json_str(rec, "version"), "5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c");
	CHECK(cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(rec, "bogus_version")));
	CHECK_STR(ab_json_str(rec, "build_time"), "lg_extent_max_active_fit:30");
	CHECK_STR(ab_json_str(cJSON_GetObjectItemCaseSensitive(rec, "config"), "malloc_conf"),
	    "lg_extent_max_active_fit:30");
	CHECK_STR(ab_json_str(cJSON_GetObjectItemCaseSensitive(rec, "config"), "debug"), "false");
	CHECK_STR(eff(rec, "lg_extent_max_active_fit"), "12");
	CHECK_STR(eff(rec, "dirty_decay_ms"), "10000");      /* "10000 (arenas.dirty_decay_ms: 10000)" */
	CHECK_STR(eff(rec, "background_thread"), "false");  /* "false (background_thread: false)" */
	CHECK_STR(eff(rec, "dss"), "secondary");            /* quoted */
	CHECK_STR(eff(rec, "stats_interval_opts"), "");     /* "" */
	CHECK_STR(eff(rec, "hpa_dirty_mult"), "0.25");
	CHECK(num(rec, "quantum") == 8);
	CHECK(num(rec, "page") == 4096);

	ab_probe_jemalloc_check(rec, "lg_extent_max_active_fit:12,bogus_key:1,narenas:0");
	CHECK(nproblems(rec) == 2);
	CHECK_STR(problem(rec, 0, "kind"), "invalid");
	CHECK_STR(problem(rec, 0, "setting"), "bogus_key:1");
	CHECK_STR(problem(rec, 0, "origin"), "runtime");
	CHECK_STR(problem(rec, 0, "message"), "invalid setting 'bogus_key:1' in the runtime MALLOC_CONF: Invalid conf pair");
	CHECK_STR(problem(rec, 1, "kind"), "out_of_range");
	CHECK_STR(problem(rec, 1, "setting"), "narenas:0");
	CHECK_STR(override(rec, "lg_extent_max_active_fit", "runtime"), "ok");
	CHECK(override(rec, "lg_extent_max_active_fit", "build") == NULL); /* overridden at runtime */
	CHECK_STR(override(rec, "bogus_key", "runtime"), "invalid");
	ab_probe_finish(rec);
	CHECK(!ab_probe_ok(rec));
	cJSON_Delete(rec);

	/* the same output, but the request asked for another value: mismatch */
	rec = cJSON_CreateObject();
	ab_probe_jemalloc_parse(rec, text);
	ab_probe_jemalloc_check(rec, "lg_extent_max_active_fit:0x0d,dirty_decay_ms:10000,lg_tcache_max:10");
	CHECK(nproblems(rec) == 3); /* two from other sources, one mismatch */
	CHECK_STR(problem(rec, 2, "kind"), "override_mismatch");
	CHECK_STR(problem(rec, 2, "setting"), "lg_extent_max_active_fit:0x0d");
	CHECK_STR(problem(rec, 2, "message"),
	    "runtime setting 'lg_extent_max_active_fit:0x0d' did not take effect: opt.lg_extent_max_active_fit is 12");
	CHECK_STR(override(rec, "dirty_decay_ms", "runtime"), "ok");
	CHECK_STR(override(rec, "lg_tcache_max", "runtime"), "not_readable");
	cJSON_Delete(rec);
	free(text);
}

static void
test_jemalloc_baked(void)
{
	char *text = fixture("jemalloc-bogus-baked.txt");
	cJSON *rec = cJSON_CreateObject();

	CHECK(ab_probe_jemalloc_parse(rec, text) == 1);
	CHECK_STR(ab_json_str(rec, "version"), "0.0.0-0-g000000missing_version_try_git_fetch_tags");
	CHECK(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "bogus_version")));
	CHECK_STR(ab_json_str(rec, "build_time"), "disable_large_size_classes:false,lg_extent_max_active_fit:30");
	ab_probe_jemalloc_check(rec, "stats_print:true,stats_print_opts:mdablxeh,dirty_decay_ms:abc,lg_extent_max_active_fit:7,");
	CHECK(nproblems(rec) == 3);
	CHECK_STR(problem(rec, 0, "kind"), "malformed");
	CHECK_STR(problem(rec, 0, "origin"), "runtime");
	CHECK_STR(problem(rec, 0, "message"),
	    "malformed runtime MALLOC_CONF 'stats_print:true,stats_print_opts:mdablxeh,dirty_decay_ms:abc,"
	    "lg_extent_max_active_fit:7,': conf string ends with comma");
	CHECK_STR(problem(rec, 1, "kind"), "invalid");
	CHECK_STR(problem(rec, 1, "origin"), "build");
	CHECK_STR(problem(rec, 1, "message"),
	    "invalid setting 'disable_large_size_classes:false' baked in at build time (config.malloc_conf): "
	    "Invalid conf pair");
	CHECK_STR(problem(rec, 2, "setting"), "dirty_decay_ms:abc");
	CHECK_STR(problem(rec, 2, "origin"), "runtime");
	CHECK_STR(override(rec, "lg_extent_max_active_fit", "runtime"), "ok");
	CHECK_STR(override(rec, "stats_print", "runtime"), "set_by_probe");
	CHECK_STR(override(rec, "disable_large_size_classes", "build"), "invalid");
	cJSON_Delete(rec);
	free(text);
}

static void
test_jemalloc_small(void)
{
	cJSON *rec = cJSON_CreateObject();
	char *s;

	/* no statistics: not jemalloc, but the messages are still kept */
	CHECK(ab_probe_jemalloc_parse(rec, "<jemalloc>: Invalid conf pair: x:1\nhello\n") == 0);
	CHECK(cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(rec, "messages")) == 1);
	cJSON_Delete(rec);

	/* an error from a source that is neither build time nor the request */
	rec = cJSON_CreateObject();
	ab_probe_jemalloc_parse(rec, "<jemalloc>: Invalid conf value: abort:maybe\n"
	    "___ Begin jemalloc statistics ___\nVersion: \"5.3.0-0-gabc\"\n  config.malloc_conf: \"\"\n"
	    "--- End jemalloc statistics ---\n");
	CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(rec, "build_time")));
	ab_probe_jemalloc_check(rec, NULL);
	CHECK_STR(problem(rec, 0, "origin"), "other");
	cJSON_Delete(rec);

	/* the conf for the probe: appended, or first when the request is malformed */
	s = ab_probe_jemalloc_conf(NULL);
	CHECK_STR(s, "stats_print:true,stats_print_opts:mdablxeh");
	free(s);
	s = ab_probe_jemalloc_conf("narenas:4");
	CHECK_STR(s, "narenas:4,stats_print:true,stats_print_opts:mdablxeh");
	free(s);
	s = ab_probe_jemalloc_conf("narenas:4,");
	CHECK_STR(s, "stats_print:true,stats_print_opts:mdablxeh,narenas:4,");
	free(s);
	s = ab_probe_jemalloc_conf("narenas");
	CHECK_STR(s, "stats_print:true,stats_print_opts:mdablxeh,narenas");
	free(s);
	CHECK(ab_jemalloc_version_is_bogus("0.0.0-0-g000000missing_version_try_git_fetch_tags"));
	CHECK(!ab_jemalloc_version_is_bogus("5.3.0-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"));
	CHECK(!ab_jemalloc_version_is_bogus(NULL));
}

static struct ab_kv kv209[] = {
	{"MIMALLOC_PURGE_DELAY", "5"},
	{"MIMALLOC_DECOMMIT_DELAY", "7"},
	{"MIMALLOC_EAGER_COMMIT", "abc"},
	{"MIMALLOC_ABANDONED_PAGE_RESET", "1"},
	{"MIMALLOC_VERBOSE", "0"},
	{"MALLOC_CONF", "narenas:1"},
};

static void
test_mimalloc_209(void)
{
	char *text = fixture("mimalloc-2.0.9.txt");
	struct ab_kvlist env = {kv209, AB_NELEM(kv209)};
	cJSON *rec = cJSON_CreateObject();

	CHECK(ab_probe_mimalloc_parse(rec, text, "allocbuild-probe: ok\n") == 1);
	/* 2.0.9 prints no version in verbose mode */
	CHECK(cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(rec, "version")));
	CHECK(num(rec, "secure") == 0);
	CHECK_STR(eff(rec, "decommit_delay"), "7");
	CHECK_STR(eff(rec, "reserve_huge_os_pages_at"), "-1");
	CHECK_STR(eff(rec, "destroy_on_exit"), "0");
	CHECK(eff(rec, "purge_delay") == NULL);
	ab_probe_mimalloc_check(rec, &env);
	CHECK(nproblems(rec) == 2);
	CHECK_STR(problem(rec, 0, "kind"), "unknown_option");
	CHECK_STR(problem(rec, 0, "setting"), "MIMALLOC_PURGE_DELAY");
	CHECK_STR(problem(rec, 0, "message"), "unknown option MIMALLOC_PURGE_DELAY: this mimalloc (version unknown) "
	    "has no option 'purge_delay' (it silently ignores it)");
	CHECK_STR(problem(rec, 1, "kind"), "invalid");
	CHECK_STR(problem(rec, 1, "message"), "invalid value 'abc' for MIMALLOC_EAGER_COMMIT: mimalloc ignores it and keeps 1");
	CHECK_STR(override(rec, "MIMALLOC_DECOMMIT_DELAY", "runtime"), "ok");
	/* the old name, recognised from mimalloc's deprecation warning */
	CHECK_STR(override(rec, "MIMALLOC_ABANDONED_PAGE_RESET", "runtime"), "ok");
	cJSON_Delete(rec);

	/* with the probe program's mi_version line the version is known */
	rec = cJSON_CreateObject();
	ab_probe_mimalloc_parse(rec, text, "allocbuild-probe: mi_version=209\n");
	CHECK_STR(ab_json_str(rec, "version"), "2.0.9");
	CHECK_STR(ab_json_str(rec, "version_from"), "mi_version()");
	ab_probe_mimalloc_check(rec, &env);
	CHECK_STR(problem(rec, 0, "message"), "unknown option MIMALLOC_PURGE_DELAY: mimalloc 2.0.9 has no option "
	    "'purge_delay' (it silently ignores it)");
	cJSON_Delete(rec);
	free(text);
}

static struct ab_kv kv_new[] = {
	{"MIMALLOC_PURGE_DELAY", "5"},
	{"MIMALLOC_ARENA_RESERVE", "64M"},
	{"MIMALLOC_RESET_DELAY", "3"},
	{"MIMALLOC_PAGE_FULL_RETAIN", "1"},
};

static void
test_mimalloc_217(void)
{
	char *text = fixture("mimalloc-2.1.7.txt");
	struct ab_kvlist env = {kv_new, AB_NELEM(kv_new)};
	cJSON *rec = cJSON_CreateObject();

	CHECK(ab_probe_mimalloc_parse(rec, text, "allocbuild-probe: mi_version=217\n") == 1);
	CHECK_STR(ab_json_str(rec, "version"), "2.1.7");
	CHECK(num(rec, "secure") == 0);
	CHECK_STR(eff(rec, "purge_delay"), "5");            /* "5 " */
	CHECK_STR(eff(rec, "arena_reserve"), "65536 KiB");
	ab_probe_mimalloc_check(rec, &env);
	CHECK_STR(override(rec, "MIMALLOC_PURGE_DELAY", "runtime"), "ok");
	CHECK_STR(override(rec, "MIMALLOC_ARENA_RESERVE", "runtime"), "ok");
	CHECK_STR(override(rec, "MIMALLOC_RESET_DELAY", "runtime"), "ignored");
	CHECK_STR(override(rec, "MIMALLOC_PAGE_FULL_RETAIN", "runtime"), "unknown");
	CHECK(nproblems(rec) == 2);
	CHECK_STR(problem(rec, 0, "kind"), "ignored_option");
	CHECK_STR(problem(rec, 0, "message"), "MIMALLOC_RESET_DELAY is ignored: it is the old name of option "
	    "'purge_delay', which MIMALLOC_PURGE_DELAY sets");
	CHECK_STR(problem(rec, 1, "message"), "unknown option MIMALLOC_PAGE_FULL_RETAIN: mimalloc 2.1.7 has no "
	    "option 'page_full_retain' (it silently ignores it)");
	cJSON_Delete(rec);
	free(text);
}

static void
test_mimalloc_328(void)
{
	char *text = fixture("mimalloc-3.2.8.txt");
	struct ab_kvlist env = {kv_new, AB_NELEM(kv_new)};
	cJSON *rec = cJSON_CreateObject();

	CHECK(ab_probe_mimalloc_parse(rec, text, NULL) == 1);
	CHECK_STR(ab_json_str(rec, "version"), "3.2.8");
	CHECK_STR(ab_json_str(rec, "version_from"), "verbose output");
	CHECK(num(rec, "secure") == 0);
	CHECK(num(rec, "debug") == 0);
	CHECK_STR(eff(rec, "page_full_retain"), "1");
	CHECK_STR(eff(rec, "arena_max_object_size"), "2097152 KiB");
	ab_probe_mimalloc_check(rec, &env);
	CHECK_STR(override(rec, "MIMALLOC_PAGE_FULL_RETAIN", "runtime"), "ok");
	CHECK_STR(override(rec, "MIMALLOC_ARENA_RESERVE", "runtime"), "ok");
	CHECK(nproblems(rec) == 1);
	cJSON_Delete(rec);
	free(text);

	/* the synthetic lines of upstream-facts.md */
	rec = cJSON_CreateObject();
	CHECK(ab_probe_mimalloc_parse(rec, "v3.2.8, release (built on Jan  1 2026, 00:00:00)\n"
	    "option 'purge_delay': 1000 \noption 'arena_reserve': 1048576 KiB\nsecure level: 2\n", NULL) == 1);
	CHECK_STR(ab_json_str(rec, "version"), "3.2.8");
	CHECK_STR(eff(rec, "purge_delay"), "1000");
	CHECK(num(rec, "secure") == 2);
	cJSON_Delete(rec);
}

static void
test_mimalloc_small(void)
{
	static struct ab_kv kv[] = {
		{"MIMALLOC_ARENA_RESERVE", "1GiB"},
		{"MIMALLOC_RESERVE_OS_MEMORY", "4096"},
		{"MIMALLOC_SHOW_ERRORS", "yes"},
		{"MIMALLOC_MAX_ERRORS", "17"},
	};
	struct ab_kvlist env = {kv, AB_NELEM(kv)};
	cJSON *rec = cJSON_CreateObject();
	char *s;

	CHECK(ab_probe_mimalloc_parse(rec, "mimalloc: option 'arena_reserve': 1048576 KiB\n"
	    "mimalloc: option 'reserve_os_memory': 4\nmimalloc: option 'show_errors': 1\n"
	    "mimalloc: option 'max_errors': 16\n", NULL) == 1);
	ab_probe_mimalloc_check(rec, &env);
	CHECK_STR(override(rec, "MIMALLOC_ARENA_RESERVE", "runtime"), "ok");
	CHECK_STR(override(rec, "MIMALLOC_RESERVE_OS_MEMORY", "runtime"), "ok"); /* bytes, counted in KiB */
	CHECK_STR(override(rec, "MIMALLOC_SHOW_ERRORS", "runtime"), "ok");
	CHECK_STR(override(rec, "MIMALLOC_MAX_ERRORS", "runtime"), "mismatch");
	CHECK(nproblems(rec) == 1);
	CHECK_STR(problem(rec, 0, "kind"), "override_mismatch");
	cJSON_Delete(rec);

	rec = cJSON_CreateObject();
	CHECK(ab_probe_mimalloc_parse(rec, "hello\n", NULL) == 0);
	cJSON_Delete(rec);

	s = ab_mimalloc_version_string(209);
	CHECK_STR(s, "2.0.9");
	free(s);
	s = ab_mimalloc_version_string(3208);
	CHECK_STR(s, "3.2.8");
	free(s);
	s = ab_mimalloc_version_string(20401);
	CHECK_STR(s, "2.4.1");
	free(s);
	s = ab_mimalloc_version_string(316);
	CHECK_STR(s, "3.1.6");
	free(s);
}

static void
test_glibc(void)
{
	char *out = fixture("glibc-2.36-tunables.txt");
	cJSON *rec = cJSON_CreateObject();
	const cJSON *eff;

	CHECK(ab_probe_glibc_parse(rec, out) == 1);
	eff = cJSON_GetObjectItemCaseSensitive(rec, "effective");
	CHECK(cJSON_GetArraySize(eff) == 13); /* glibc.malloc only */
	CHECK_STR(ab_json_str(eff, "glibc.malloc.arena_max"), "3");       /* 0x3 */
	CHECK_STR(ab_json_str(eff, "glibc.malloc.tcache_count"), "5");
	CHECK_STR(ab_json_str(eff, "glibc.malloc.perturb"), "0");         /* decimal as printed */
	CHECK(ab_json_str(eff, "glibc.rtld.nns") == NULL);
	cJSON_Delete(rec);
	rec = cJSON_CreateObject();
	CHECK(ab_probe_glibc_parse(rec, "glibc.malloc.check 0\nnot a tunable: 1\n") == 0);
	cJSON_Delete(rec);
	free(out);
}

static void
test_tcmalloc(void)
{
	char *err = fixture("tcmalloc-2.10-report.txt");
	cJSON *rec = cJSON_CreateObject();
	const cJSON *eff;

	CHECK(ab_probe_tcmalloc_parse(rec, err) == 1);
	CHECK_STR(ab_json_str(rec, "version"), "2.10");
	CHECK_STR(ab_json_str(rec, "version_from"), "tc_version()");
	eff = cJSON_GetObjectItemCaseSensitive(rec, "effective");
	CHECK_STR(ab_json_str(eff, "tcmalloc.max_total_thread_cache_bytes"), "4194304");
	CHECK_STR(ab_json_str(eff, "tcmalloc.aggressive_memory_decommit"), "1");
	CHECK(cJSON_GetArraySize(eff) == 5);
	cJSON_Delete(rec);
	rec = cJSON_CreateObject();
	CHECK(ab_probe_tcmalloc_parse(rec, "allocbuild-probe: tcmalloc \nallocbuild-probe: mi_version=209\n") == 0);
	cJSON_Delete(rec);
	free(err);
}

static void
test_finish(void)
{
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "zzz", "last");
	cJSON_AddStringToObject(rec, "allocator", "jemalloc");
	ab_probe_finish(rec);
	CHECK(ab_probe_ok(rec));
	CHECK_STR(rec->child->string, "allocator");
	ab_probe_add_problem(rec, "invalid", "x:1", "runtime", "bad %s", "x");
	ab_probe_finish(rec);
	CHECK(!ab_probe_ok(rec));
	CHECK_STR(problem(rec, 0, "message"), "bad x");
	cJSON_Delete(rec);
}

int
main(void)
{
	test_jemalloc_runtime();
	test_jemalloc_baked();
	test_jemalloc_small();
	test_mimalloc_209();
	test_mimalloc_217();
	test_mimalloc_328();
	test_mimalloc_small();
	test_glibc();
	test_tcmalloc();
	test_finish();
	return unit_done();
}
