/*
 * Unit tests of provenance/record/ccstats: ccache's statistics log (as ccache
 * 4.7.5 writes it: the calls of the first build with a cold remote, a
 * remote hit, a local hit, a link, a call with the remote down), the
 * remote storage URLs refused or accepted, and their redaction.
 */
#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "../../provenance/record/ccstats.h"
#include "unit.h"

static const char statslog[] =
    "# a.c\n"
    "cache_miss\ndirect_cache_miss\nlocal_storage_miss\nlocal_storage_read_miss\nlocal_storage_read_miss\n"
    "local_storage_write\nlocal_storage_write\npreprocessed_cache_miss\nremote_storage_miss\n"
    "remote_storage_read_miss\nremote_storage_read_miss\nremote_storage_write\nremote_storage_write\n"
    "# b.c\n"
    "direct_cache_hit\nlocal_storage_miss\nlocal_storage_read_miss\nlocal_storage_read_miss\n"
    "local_storage_write\nlocal_storage_write\nremote_storage_hit\nremote_storage_read_hit\n"
    "remote_storage_read_hit\n"
    "# c.c\n"
    "direct_cache_hit\nlocal_storage_hit\nlocal_storage_read_hit\nlocal_storage_read_hit\n"
    "# c.o\n"
    "called_for_link\n"
    "# d.c\n"
    "cache_miss\ndirect_cache_miss\nlocal_storage_miss\nlocal_storage_read_miss\nlocal_storage_write\n"
    "preprocessed_cache_miss\nremote_storage_error\n"
    "# /src/conftest.c\n"
    "autoconf_test\n"
    "# e.c\n"
    "preprocessed_cache_hit\nlocal_storage_miss\nremote_storage_hit\nremote_storage_read_hit";

static int
num(const cJSON *rec, const char *key)
{
	const cJSON *v = ab_json_get(rec, key);

	return cJSON_IsNumber(v) ? v->valueint : -1;
}

static void
test_read(void)
{
	char *dir = unit_tmpdir("ccstats"), *path = ab_path_join(dir, "ccache-stats.log"), *line;
	cJSON *rec = (cJSON *)1;
	struct unit_catch uc;
	char *caught;
	FILE *f;

	/* no log: nothing compiled through ccache, no record */
	CHECK(ab_ccstats_read(&rec, path, "variants/v/logs/ccache-stats.log") == 0);
	CHECK(rec == NULL);
	f = fopen(path, "w");
	CHECK(f != NULL);
	fputs(statslog, f);
	fclose(f);
	CHECK(ab_ccstats_read(&rec, path, "variants/v/logs/ccache-stats.log") == 0);
	CHECK(rec != NULL);
	CHECK_STR(ab_json_str(rec, "log"), "variants/v/logs/ccache-stats.log");
	CHECK(num(rec, "cacheable") == 5);
	CHECK(num(rec, "local_hits") == 1);
	CHECK(num(rec, "remote_hits") == 2);
	CHECK(num(rec, "misses") == 2);
	CHECK(num(rec, "uncacheable") == 2);
	CHECK(num(rec, "remote_errors") == 1);
	CHECK(num(rec, "remote_timeouts") == 0);
	CHECK(ab_ccstats_remote_failures(rec) == 1);
	line = ab_ccstats_summary(rec);
	CHECK_STR(line, "5 compiles: 1 local hit, 2 remote hits, 2 misses (60% hits); the remote storage failed for 1 call");
	free(line);
	cJSON_AddNumberToObject(rec, "from_earlier_variants", 1);
	line = ab_ccstats_summary(rec);
	CHECK_STR(line, "5 compiles: 1 local hit (1 from earlier variants of this build), 2 remote hits, 2 misses (60% hits); "
	    "the remote storage failed for 1 call");
	free(line);
	cJSON_Delete(rec);

	/* an empty log: a record of nothing */
	f = fopen(path, "w");
	fclose(f);
	CHECK(ab_ccstats_read(&rec, path, "l") == 0);
	CHECK(num(rec, "cacheable") == 0 && num(rec, "uncacheable") == 0);
	line = ab_ccstats_summary(rec);
	CHECK_STR(line, "0 compiles: 0 local hits, 0 remote hits, 0 misses");
	free(line);
	cJSON_Delete(rec);

	/* a log that cannot be read is reported */
	CHECK(ab_rm_rf(path) == 0);
	CHECK(ab_mkdir_p(path, 0755) == 0);
	unit_catch_begin(&uc);
	CHECK(ab_ccstats_read(&rec, path, "l") == AB_EFAIL);
	caught = unit_catch_end(&uc);
	CHECK(strstr(caught, "ccache-stats.log") != NULL);
	free(caught);
	CHECK(ab_rm_rf(dir) == 0);
	free(path);
	free(dir);
}

static void
test_remote(void)
{
	static const char *const good[] = {"redis://127.0.0.1:6379", "redis://:pw@cache:6379/2",
	    "redis+unix:/run/redis.sock", "http://cache.example:8080/ccache", "file:/mnt/ccache",
	    "redis://cache|connect-timeout=50|read-only", NULL};
	char why[160];

	for (size_t i = 0; good[i]; i++)
		CHECK(ab_ccstats_remote_check(good[i], why, sizeof(why)) == 0);
	CHECK(ab_ccstats_remote_check("https://cache.example/c", why, sizeof(why)) == AB_EFAIL);
	CHECK_STR(why, "https is not supported: Debian 12's ccache 4.7 speaks plain http only");
	CHECK(ab_ccstats_remote_check("redis://", why, sizeof(why)) == AB_EFAIL);
	CHECK_STR(why, "nothing after 'redis://'");
	CHECK(ab_ccstats_remote_check("redis://|read-only", why, sizeof(why)) == AB_EFAIL);
	CHECK(ab_ccstats_remote_check("memcached://h", why, sizeof(why)) == AB_EFAIL);
	CHECK(ab_ccstats_remote_check("/tmp/cache", why, sizeof(why)) == AB_EFAIL);
	/* what ccache 4.7 cannot parse, and would print password and all: refused, the reason quoting nothing */
	static const char *const bad[][2] = {
	    {"redis://:s3cret@host:abc", "a port that is not a number from 0 to 65535"},
	    {"redis://:s3cret@host:65536", "a port that is not a number from 0 to 65535"},
	    {"redis://:s3cret@host:", "a port that is not a number from 0 to 65535"},
	    {"redis://:s3cret@[::1", "a host in brackets that is not an IP literal"},
	    {"redis://:s3%zzcret@host", "its user information holds a character a URL does not allow there "
	     "(percent-encode it: '@' is %40, a space %20)"},
	    {"redis://user:p@ss@host", "its user information holds a character a URL does not allow there "
	     "(percent-encode it: '@' is %40, a space %20)"},
	    {"redis://:p{w@host", "its user information holds a character a URL does not allow there "
	     "(percent-encode it: '@' is %40, a space %20)"},
	    {"redis://:s3cret@", "no host"},
	    {"redis+unix://:s3cret@/tmp/s", "no host"},
	    {"http://u:s3cret@host/x\"y", "a path or query with a character a URL does not allow there"},
	    {"redis://h1 redis://:s3cret@h2:x", "a port that is not a number from 0 to 65535 (its URL number 2)"},
	    {"redis://h|=s3cret", "an attribute that is not |NAME=VALUE or |NAME"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK(ab_ccstats_remote_check(bad[i][0], why, sizeof(why)) == AB_EFAIL);
		CHECK_STR(why, bad[i][1]);
		CHECK(!strstr(why, "s3cret"));
	}
	static const char *const fine[] = {"redis://:pw@host:0", "http://u:p%40w@[::1]:80/x?y=1#f",
	    "redis+unix:/run/r.sock", "file:///mnt/cc", "redis://h1:1 http://h2/c|bearer-token=t|read-only=true",
	    NULL};
	for (size_t i = 0; fine[i]; i++)
		CHECK(ab_ccstats_remote_check(fine[i], why, sizeof(why)) == 0);
}

/* the ccache wrappers of lib/redact.h's rule (tests/unit/test_redact.c has the rule itself) */
static void
test_redact(void)
{
	static const char *const cases[][2] = {
	    {"redis://127.0.0.1:6379", "redis://127.0.0.1:6379"},
	    {"redis://secret@cache:6379", "redis://***@cache:6379"},
	    {"redis://user:secret@cache:6379/1|read-only", "redis://***@cache:6379/1|read-only"},
	    {"http://user:pw@cache/ccache", "http://***@cache/ccache"},
	    {"http://cache/ccache@2", "http://cache/ccache@2"},
	    {"file:/mnt/ccache", "file:/mnt/ccache"},
	    {"http://cache/c|bearer-token=TOK|layout=subdirs", "http://cache/c|bearer-token=***|layout=subdirs"},
	    {"redis://a:P1@h1 http://b:P2@h2/c?token=T3|connect-timeout=5",
	     "redis://***@h1 http://***@h2/c?token=***|connect-timeout=5"},
	};
	char *s;

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		s = ab_ccstats_redact(cases[i][0]);
		CHECK_STR(s, cases[i][1]);
		free(s);
	}
	s = ab_ccstats_env_shown("CCACHE_REMOTE_STORAGE=redis://u:pw@h:1");
	CHECK_STR(s, "CCACHE_REMOTE_STORAGE=redis://***@h:1");
	free(s);
	s = ab_ccstats_env_shown("CCACHE_DIR=/a:pw@b");
	CHECK_STR(s, "CCACHE_DIR=/a:pw@b");
	free(s);
}

/* one call's own statistics log, and which hits took an entry another variant of the run stored */
static void
test_attribute(void)
{
	static const char miss[] = "# /allocbuild/src/a.c\ncache_miss\n";
	static const char hit[] = "# /allocbuild/src/a.c\ndirect_cache_hit\nlocal_storage_hit\n";
	static const char remote[] = "# /allocbuild/src/a.c\ndirect_cache_hit\nremote_storage_hit\n";
	/* two variants: v0 compiled a.o and b.o, v1 took a.o, took c.o from an older build, took b.o from the remote */
	const char *logs[3] = {
	    "A\t/allocbuild/build\ta.o\ta.c\tcc -c a.c\tmiss\n"
	    "B\t/allocbuild/build\tb.o\tb.c\tcc -c b.c\tmiss\n"
	    "D\t/allocbuild/build\td.o\td.c\tcc -c d.c\tremote-hit\n"
	    "E\t/allocbuild/build\te.o\te.c\tcc -c e.c\n",
	    "A\t/allocbuild/build\ta.o\ta.c\tcc -c a.c\thit\n"
	    "C\t/allocbuild/build\tc.o\tc.c\tcc -c c.c\thit\n"
	    "B\t/allocbuild/build\tb.o\tb.c\tcc -c b.c\tremote-hit\n"
	    "D\t/allocbuild/build\td.o\td.c\tcc -c d.c\thit\n"
	    "X\t/allocbuild/build\tb.o\tb.c\tcc -c b.c\thit\n"
	    "E\t/allocbuild/build\te.o\te.c\tcc -c e.c\t-\n",
	    NULL,
	};
	cJSON *recs[3] = {cJSON_CreateObject(), cJSON_CreateObject(), NULL};

	CHECK_STR(ab_ccstats_call_result(miss, strlen(miss)), AB_CCSTATS_MISS);
	CHECK_STR(ab_ccstats_call_result(hit, strlen(hit)), AB_CCSTATS_HIT);
	CHECK_STR(ab_ccstats_call_result(remote, strlen(remote)), AB_CCSTATS_REMOTE_HIT);
	CHECK_STR(ab_ccstats_call_result("# x.c\ncalled_for_link\n", 22), AB_CCSTATS_NONE);
	CHECK_STR(ab_ccstats_call_result("", 0), AB_CCSTATS_NONE);
	ab_ccstats_attribute(recs, logs, 3);
	/* v1: a.o (v0's miss) and d.o (v0's remote hit); not c.o (nobody here stored it), not X (other bytes) */
	CHECK(num(recs[0], "from_earlier_variants") == 0);
	CHECK(num(recs[1], "from_earlier_variants") == 2);
	cJSON_Delete(recs[0]);
	cJSON_Delete(recs[1]);
}

int
main(void)
{
	test_attribute();
	test_read();
	test_remote();
	test_redact();
	return unit_done();
}
