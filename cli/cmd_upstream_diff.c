/*
 * allocbuild upstream-diff [--json] [--diff] [--strict] [--strip N] CANDIDATE UPSTREAM
 *
 * Compare a candidate tree with an upstream tree (docs/upstream-diff.md).
 * Exit 0 when the verdict passes, 1 when it fails, 2 on bad input.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "../lib/util.h"
#include "../lib/jsonio.h"
#include "../provenance/tree/updiff.h"

static const char usage[] =
    "allocbuild upstream-diff [--json] [--diff] [--strict] [--strip N] [-j N] CANDIDATE UPSTREAM\n"
    "\n"
    "Compare two trees file by file. Each side is a directory, an archive\n"
    "file (a single top-level directory is stripped, or --strip N), or\n"
    "git:REPO@REV[:PATH] read from the object database. Prints every file\n"
    "that is not identical with its class, counts per class, the dirHash of\n"
    "each side and a summary; --diff adds unified diffs, --json the full\n"
    "per-file table. Exit 0 when no source, header, template or build file\n"
    "differs or is extra (--strict: any difference), 1 otherwise, 2 on bad\n"
    "input. See docs/upstream-diff.md.\n";

/* read both sides, compare, print; the exit code */
static int
upstream_diff(char **specs, const struct ab_updiff_opts *o, int json, int diff)
{
	struct ab_tree *trees[2];
	struct ab_updiff *u;
	int rc;

	if (ab_updiff_read_trees(trees, (const char *const *)specs, 2, o->strip, o->jobs) < 0)
		return AB_EXIT_USAGE;
	u = ab_updiff_new(trees[0], trees[1], o->strict);
	rc = u->matches ? AB_EXIT_OK : AB_EXIT_CHECK;
	if (json) {
		cJSON *doc = ab_updiff_json(u, diff);

		if (!doc || ab_json_print(stdout, doc) < 0)
			rc = AB_EXIT_USAGE;
		cJSON_Delete(doc);
	} else {
		if (ab_updiff_print(stdout, u, diff) < 0)
			rc = AB_EXIT_USAGE;
	}
	ab_updiff_free(u);
	ab_tree_free(trees[0]);
	ab_tree_free(trees[1]);
	return rc;
}

static int
cmd_upstream_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'J'},
		{"diff", no_argument, NULL, 'd'},
		{"strict", no_argument, NULL, 's'},
		{"strip", required_argument, NULL, 'p'},
		{"jobs", required_argument, NULL, 'j'},
		{NULL, 0, NULL, 0},
	};
	struct ab_updiff_opts o;
	int json = 0, diff = 0, c;

	ab_updiff_opts_init(&o);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = 1;
			break;
		case 'd':
			diff = 1;
			break;
		case 's':
			o.strict = 1;
			break;
		case 'p':
			if (ab_cmd_parse_strip(&o.strip, "upstream-diff", optarg) < 0)
				return AB_EXIT_USAGE;
			break;
		case 'j':
			if (ab_cmd_parse_jobs(&o.jobs, "upstream-diff", optarg) < 0)
				return AB_EXIT_USAGE;
			break;
		default:
			return ab_cmd_option_error("upstream-diff", c, argv);
		}
	}
	if (argc - optind != 2)
		return ab_cmd_usage_error("upstream-diff", "expected CANDIDATE and UPSTREAM");
	return upstream_diff(argv + optind, &o, json, diff);
}

const struct ab_cmd ab_cmd_upstream_diff = {"upstream-diff", "compare a vendored tree or archive with upstream", usage, cmd_upstream_diff};
