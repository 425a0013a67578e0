/* cmd.c: the number parsers and option errors every subcommand shares */
#include <getopt.h>
#include <stdarg.h>

#include "../../cli/cmd.h"
#include "unit.h"

/* run getopt_long over argv as a command would; the message of the first refused option */
static char *
refused(int argc, char **argv, const char *optstring)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'J'},
		{"jobs", required_argument, NULL, 'j'},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	struct unit_catch uc;
	int c, rc = 0;

	optind = 0; /* glibc: a full restart, forgetting a group left half read */
	opterr = 0;
	unit_catch_begin(&uc);
	while ((c = getopt_long(argc, argv, optstring, longopts, NULL)) != -1) {
		if (c == 'J' || c == 'j' || c == 'o' || c == 'q')
			continue;
		rc = ab_cmd_option_error("test", c, argv);
		break;
	}
	CHECK(rc == 2);
	return unit_catch_end(&uc);
}

static void
check_refused(const char *optstring, const char *want, int argc, ...)
{
	char *argv[8] = {"test"};
	va_list ap;
	char *got;

	va_start(ap, argc);
	for (int i = 1; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	got = refused(argc, argv, optstring);
	CHECK_STR(got, want);
	free(got);
}

int
main(void)
{
	struct unit_catch uc;
	char *msg;
	int n = -1;

	CHECK(ab_cmd_parse_int(&n, "0", 0, 64) == 0 && n == 0);
	CHECK(ab_cmd_parse_int(&n, "64", 0, 64) == 0 && n == 64);
	n = 7;
	CHECK(ab_cmd_parse_int(&n, "65", 0, 64) == -1 && n == 7);
	CHECK(ab_cmd_parse_int(&n, "-1", 0, 64) == -1);
	CHECK(ab_cmd_parse_int(&n, "", 0, 64) == -1);
	CHECK(ab_cmd_parse_int(&n, "3x", 0, 64) == -1);
	/* no wrap-around: 2^32 is not 0 */
	CHECK(ab_cmd_parse_int(&n, "4294967296", 0, 64) == -1);
	CHECK(ab_cmd_parse_int(&n, "99999999999999999999999", 0, 64) == -1 && n == 7);

	CHECK(ab_cmd_parse_jobs(&n, "hash", "1024") == 0 && n == 1024);
	for (size_t i = 0; i < 4; i++) {
		static const char *const bad[] = {"0", "1025", "x", ""};
		char want[128];

		unit_catch_begin(&uc);
		CHECK(ab_cmd_parse_jobs(&n, "hash", bad[i]) == -1);
		msg = unit_catch_end(&uc);
		snprintf(want, sizeof(want), "allocbuild: hash: invalid job count '%s'\nTry 'allocbuild help hash'.",
		    bad[i]);
		CHECK_STR(msg, want);
		free(msg);
	}

	check_refused(":j:q", "allocbuild: test: unknown option '--frob'\nTry 'allocbuild help test'.", 2, "--frob");
	check_refused(":j:q", "allocbuild: test: unknown option '-x'\nTry 'allocbuild help test'.", 2, "-x");
	check_refused(":j:q", "allocbuild: test: unknown option '-x'\nTry 'allocbuild help test'.", 3, "-qx", "a");
	check_refused(":j:q", "allocbuild: test: option '-j' needs a value\nTry 'allocbuild help test'.", 2, "-j");
	/* inside a group, before its last letter, after a long option with a value */
	check_refused(":j:q", "allocbuild: test: unknown option '-x'\nTry 'allocbuild help test'.", 3, "-xq", "a");
	check_refused(":j:q", "allocbuild: test: unknown option '-x'\nTry 'allocbuild help test'.", 4,
	    "--output=o", "-xq", "a");
	check_refused(":j:q", "allocbuild: test: unknown option '-x'\nTry 'allocbuild help test'.", 4,
	    "--json", "-qxq", "a");
	check_refused(":j:q", "allocbuild: test: option '-j' needs a value\nTry 'allocbuild help test'.", 2, "-qj");
	check_refused("+:", "allocbuild: test: option '--jobs' needs a value\nTry 'allocbuild help test'.", 2,
	    "--jobs");
	check_refused("+:", "allocbuild: test: option '--json' takes no value\nTry 'allocbuild help test'.", 2,
	    "--json=1");
	check_refused("+:", "allocbuild: test: unknown option '--frob=1'\nTry 'allocbuild help test'.", 3, "--json",
	    "--frob=1");
	return unit_done();
}
