#include <getopt.h>
#include <limits.h>
#include <stdlib.h>

#include "cmd.h"
#include "../lib/util.h"
#include "../provenance/pr.h"

static const char usage[] =
    "allocbuild pr [-o DIR] [--notes REPO[@COMMIT]] [--limit N] [--sign KEY.pem]... OUTDIR\n"
    "\n"
    "Write pr.md, a pull-request body, and provenance-<name>.tar.gz, the evidence\n"
    "bundle, into DIR (default OUTDIR). --sign first signs the statements of\n"
    "OUTDIR as `allocbuild sign --key KEY.pem` does; the envelopes go into the\n"
    "bundle and pr.md says who signed and how to verify. --notes attaches the\n"
    "in-toto statement to a commit as a git note. Exit 0 written, 2 bad input\n"
    "(nothing is written then). See docs/pr.md.\n";

static int
cmd_pr(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"notes", required_argument, NULL, 'n'},
		{"limit", required_argument, NULL, 'l'},
		{"sign", required_argument, NULL, 's'},
		{NULL, 0, NULL, 0},
	};
	struct ab_pr_opts o = {0};
	struct ab_strv keypaths = {0};
	struct ab_key **keys = NULL;
	size_t nkeys = 0;
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.dir = optarg;
			break;
		case 'n':
			o.notes = optarg;
			break;
		case 's':
			ab_strv_push(&keypaths, optarg);
			break;
		case 'l': {
			int v;

			if (ab_cmd_parse_int(&v, optarg, 1024, INT_MAX) < 0) {
				ab_strv_free(&keypaths);
				return ab_cmd_usage_error("pr", "--limit: '%s' is not a whole number from 1024 to %d",
				    optarg, INT_MAX);
			}
			o.limit = (size_t)v;
			break;
		}
		default:
			ab_strv_free(&keypaths);
			return ab_cmd_option_error("pr", c, argv);
		}
	}
	if (argc - optind != 1) {
		ab_strv_free(&keypaths);
		return ab_cmd_usage_error("pr", "expected one OUTDIR");
	}
	o.outdir = argv[optind];
	if (!ab_is_dir(o.outdir)) {
		ab_strv_free(&keypaths);
		ab_error("pr: '%s' is not a directory", o.outdir);
		return AB_EXIT_USAGE;
	}
	/* an unusable key must fail before anything is written */
	rc = ab_cmd_load_keys(&keys, &nkeys, keypaths.v, keypaths.n, 1);
	o.sign_keys = keys;
	o.nsign_keys = nkeys;
	if (rc == 0)
		rc = ab_pr_write(&o);
	ab_cmd_free_keys(keys, nkeys);
	ab_strv_free(&keypaths);
	return ab_cmd_exit(rc);
}

const struct ab_cmd ab_cmd_pr = {"pr", "write a pull-request body and evidence bundle", usage, cmd_pr};
