#include <getopt.h>
#include <limits.h>
#include <stdlib.h>

#include "cmd.h"
#include "../lib/util.h"
#include "../provenance/pr.h"

static const char usage[] =
    "allocbuild pr [-o DIR] [--notes REPO[@COMMIT]] [--limit N] OUTDIR\n";

static int
cmd_pr(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"notes", required_argument, NULL, 'n'},
		{"limit", required_argument, NULL, 'l'},
		{NULL, 0, NULL, 0},
	};
	struct ab_pr_opts o = {0};
	int c;

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
		case 'l': {
			int v;

			if (ab_cmd_parse_int(&v, optarg, 1024, INT_MAX) < 0)
				return ab_cmd_usage_error("pr", "--limit: '%s' is not a whole number from 1024 to %d",
				    optarg, INT_MAX);
			o.limit = (size_t)v;
			break;
		}
		default:
			return ab_cmd_option_error("pr", c, argv);
		}
	}
	if (argc - optind != 1)
		return ab_cmd_usage_error("pr", "expected one OUTDIR");
	o.outdir = argv[optind];
	if (!ab_is_dir(o.outdir)) {
		ab_error("pr: '%s' is not a directory", o.outdir);
		return AB_EXIT_USAGE;
	}
	return ab_cmd_exit(ab_pr_write(&o));
}

const struct ab_cmd ab_cmd_pr = {"pr", "write a pull-request body and evidence bundle", usage, cmd_pr};
