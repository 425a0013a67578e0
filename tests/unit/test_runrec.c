/* unit tests for provenance/runs/runrec: JUnit summaries, run names, record paths and numbers, the Statement */
#include <stdlib.h>
#include <string.h>

#include "../../lib/atomic.h"
#include "../../lib/jsonio.h"
#include "../../provenance/runs/runrec.h"
#include "unit.h"

static char *
summary(const char *xml)
{
	cJSON *s = ab_runrec_junit_summary(xml, strlen(xml));
	char *t = s ? cJSON_PrintUnformatted(s) : NULL;

	cJSON_Delete(s);
	return t;
}

static void
check_summary(const char *xml, const char *want)
{
	char *got = summary(xml);

	if (want)
		CHECK_STR(got, want);
	else
		CHECK(got == NULL);
	free(got);
}

int
main(void)
{
	/* the <testsuites> totals; else the sum of the <testsuite> elements; skip as skipped */
	check_summary("<testsuites tests=\"5\" failures=\"1\" errors=\"2\" skipped=\"0\" time=\"1.5\">"
	    "<testsuite tests=\"9\"/></testsuites>",
	    "{\"tests\":5,\"failures\":1,\"errors\":2,\"skipped\":0,\"time\":1.5}");
	check_summary("<?xml version='1.0'?><testsuites><testsuite name='a' tests='3' failures='1' skip='1' time='0.25'>"
	    "</testsuite><testsuite\ttests='2' errors='1'/></testsuites>",
	    "{\"tests\":5,\"failures\":1,\"errors\":1,\"skipped\":1,\"time\":0.25}");
	check_summary("<testsuite tests=\"0\"/>", "{\"tests\":0,\"failures\":0,\"errors\":0,\"skipped\":0,\"time\":0}");
	/* not a report: no element with counts; a prefix of a name is not the name */
	check_summary("", NULL);
	check_summary("<testsuites></testsuites>", NULL);
	check_summary("<testsuitex tests=\"3\"/>", NULL);
	check_summary("<html><body>tests=\"4\"</body></html>", NULL);
	check_summary("<testsuite mytests=\"4\"", NULL);

	CHECK(ab_runrec_name_valid("bench"));
	CHECK(ab_runrec_name_valid("valgrind-strict_2.x"));
	CHECK(!ab_runrec_name_valid(""));
	CHECK(!ab_runrec_name_valid(".hidden"));
	CHECK(!ab_runrec_name_valid("-x"));
	CHECK(!ab_runrec_name_valid("a/b"));
	CHECK(!ab_runrec_name_valid(".."));
	CHECK(!ab_runrec_name_valid("{bin}"));
	CHECK(!ab_runrec_name_valid("0123456789012345678901234567890123456789012345678901234567890123456789"));

	CHECK(ab_runrec_is_statement("runs/bench/0001-stock53.intoto.json"));
	CHECK(!ab_runrec_is_statement("runs/bench/0001-stock53.log"));
	CHECK(!ab_runrec_is_statement("runs/bench/001-stock53.intoto.json"));
	CHECK(ab_runrec_is_statement("runs/bench/10000-stock53.intoto.json"));
	CHECK(ab_runrec_is_statement("runs/bench/999999999-stock53.intoto.json"));
	CHECK(!ab_runrec_is_statement("runs/bench/1000000000-stock53.intoto.json"));
	CHECK(!ab_runrec_is_statement("runs/bench/01000-stock53.intoto.json"));
	CHECK(!ab_runrec_is_statement("runs/bench/10000-.intoto.json"));
	CHECK(ab_runrec_record_number("0042-a.intoto.json") == 42);
	CHECK(ab_runrec_record_number("123456-a.intoto.json") == 123456);
	CHECK(ab_runrec_record_number("0042-a.log") == -1);
	CHECK(!ab_runrec_is_statement("runs/bench/x/0001-stock53.intoto.json"));
	CHECK(!ab_runrec_is_statement("runs/.x/0001-stock53.intoto.json"));
	CHECK(!ab_runrec_is_statement("provenance/0001-a.intoto.json"));
	CHECK(ab_runrec_is_run_file("runs/a/0001-a.log"));
	CHECK(!ab_runrec_is_run_file("runsx/a"));

	{
		char *dir = unit_tmpdir("runrec"), *p;

		CHECK(ab_runrec_next_number(dir) == 1);
		p = ab_path_join(dir, "0007-a.intoto.json");
		CHECK(ab_write_file_atomic(p, "{}", 2) == 0);
		free(p);
		/* a log of a killed run does not take a number, a stray name neither */
		p = ab_path_join(dir, "0009-a.log");
		CHECK(ab_write_file_atomic(p, "", 0) == 0);
		free(p);
		/* not as %04d writes a number: a leading zero beyond four digits, fewer than four */
		p = ab_path_join(dir, "01234-a.intoto.json");
		CHECK(ab_write_file_atomic(p, "", 0) == 0);
		free(p);
		p = ab_path_join(dir, "123-a.intoto.json");
		CHECK(ab_write_file_atomic(p, "", 0) == 0);
		free(p);
		CHECK(ab_runrec_next_number(dir) == 8);
		/* after 9999 the numbers go on with five digits: 10000 is taken, the next is 10001 */
		p = ab_path_join(dir, "9999-a.intoto.json");
		CHECK(ab_write_file_atomic(p, "{}", 2) == 0);
		free(p);
		CHECK(ab_runrec_next_number(dir) == 10000);
		p = ab_path_join(dir, "10000-a.intoto.json");
		CHECK(ab_write_file_atomic(p, "{}", 2) == 0);
		free(p);
		CHECK(ab_runrec_next_number(dir) == 10001);
		ab_rm_rf(dir);
		free(dir);
	}

	/* the Statement: the subject, the predicate type, the byproducts */
	{
		char *argv[] = {"./drive", "stock53", NULL}, *order[] = {"stock53"};
		struct ab_runrec r = {.name = "bench", .number = 1, .label = "stock53", .repetition = 1, .repetitions = 1,
		    .order = order, .norder = 1, .subject = "variants/stock53/build/lib/libjemalloc_pic.a",
		    .subject_kind = "allocator archive", .argv = argv, .cwd = "/w", .exit_code = 3};
		struct ab_strv names = {0}, hexes = {0};
		cJSON *s;

		memset(r.subject_sha256, 'a', AB_HEX_LEN);
		r.log.path = ab_strdup("runs/bench/0001-stock53.log");
		memset(r.log.sha256, 'b', AB_HEX_LEN);
		ab_strv_push(&r.overrides, "MALLOC_CONF=x:1");
		ab_strv_push(&r.removed, "LD_PRELOAD");
		s = ab_runrec_statement(&r);
		CHECK_STR(ab_json_str(s, "predicateType"), AB_RUN_PREDICATE);
		CHECK_STR(ab_json_str(ab_json_get(ab_json_get(s, "predicate"), "env_overrides"), "MALLOC_CONF"), "x:1");
		CHECK(cJSON_IsNull(ab_json_get(ab_json_get(s, "predicate"), "junit")));
		{
			/* read back: no --junit, nothing asked */
			struct ab_runrec back;

			CHECK(ab_runrec_parse(&back, cJSON_Duplicate(s, 1), "x") == 0);
			CHECK(!back.junit_read.asked && !back.junit_read.summed);
			ab_runrec_release(&back);
		}
		ab_runrec_named(&names, &hexes, s);
		CHECK(names.n == 2);
		CHECK_STR(names.n == 2 ? names.v[0] : NULL, "variants/stock53/build/lib/libjemalloc_pic.a");
		CHECK_STR(names.n == 2 ? names.v[1] : NULL, "runs/bench/0001-stock53.log");
		ab_strv_free(&names);
		ab_strv_free(&hexes);
		cJSON_Delete(s);
		ab_runrec_release(&r);
	}
	/* the JUnit report's summary, read back typed; a report run did not read is asked, not summed */
	{
		char *argv[] = {"./t", NULL}, *order[] = {"a"};
		struct ab_runrec r = {.name = "t", .number = 2, .label = "a", .repetition = 1, .repetitions = 1,
		    .order = order, .norder = 1, .subject = "variants/a/build/bin/t", .subject_kind = "program",
		    .argv = argv, .junit_path = "report.xml"};
		struct ab_runrec back;
		const char *xml = "<testsuites tests=\"7\" failures=\"2\" errors=\"1\" skipped=\"3\" time=\"0.5\"/>";

		memset(r.subject_sha256, 'a', AB_HEX_LEN);
		r.log.path = ab_strdup("runs/t/0002-a.log");
		memset(r.log.sha256, 'b', AB_HEX_LEN);
		CHECK(ab_runrec_parse(&back, ab_runrec_statement(&r), "missing") == 0);
		CHECK(back.junit_read.asked && !back.junit_read.summed && back.junit_read.tests == 0);
		ab_runrec_release(&back);
		r.junit.path = ab_strdup("runs/t/0002-a.junit.xml");
		memset(r.junit.sha256, 'c', AB_HEX_LEN);
		r.junit_summary = ab_runrec_junit_summary(xml, strlen(xml));
		CHECK(ab_runrec_parse(&back, ab_runrec_statement(&r), "read") == 0);
		CHECK(back.junit_read.asked && back.junit_read.summed);
		CHECK(back.junit_read.tests == 7 && back.junit_read.failures == 2 && back.junit_read.errors == 1);
		CHECK(back.junit_read.skipped == 3 && back.junit_read.time == 0.5);
		ab_runrec_release(&back);
		ab_runrec_release(&r);
	}
	return unit_done();
}
