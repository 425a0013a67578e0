/* allocbuild env: the runtime environment of a label, or the programs of all */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../lib/jsonio.h"
#include "../lib/util.h"
#include "../provenance/record/manifest.h"

static const char usage[] =
    "allocbuild env OUTDIR LABEL\n"
    "allocbuild env OUTDIR --systems\n"
    "allocbuild env --json OUTDIR [LABEL]\n"
    "\n"
    "Print LABEL's runtime environment as shell lines (unset, then export;\n"
    "a '# warning:' line for a setting its allocator version does not read),\n"
    "or with --systems LABEL=PROGRAM for every variant with a program (an\n"
    "archive-only variant gets a comment naming its ALLOCBUILD_ARCHIVE), or\n"
    "with --json each label's whole environment: set, unset, program,\n"
    "archive, warnings (docs/runs.md).\n";

static int
cmd_env(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'J'},
		{"systems", no_argument, NULL, 's'},
		{NULL, 0, NULL, 0},
	};
	int c, json = 0, systems = 0, n;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = 1;
			break;
		case 's':
			systems = 1;
			break;
		default:
			return ab_cmd_option_error("env", c, argv);
		}
	}
	n = argc - optind;
	if (json && systems)
		return ab_cmd_usage_error("env", "--json and --systems exclude each other");
	if (n < 1 || (!json && !systems && n < 2))
		return ab_cmd_usage_error("env", "missing OUTDIR or LABEL");
	if (n > 2 || (systems && n > 1))
		return ab_cmd_usage_error("env", "too many arguments");
	if (systems)
		return ab_manifest_systems(stdout, argv[optind]) < 0 ? AB_EXIT_USAGE : AB_EXIT_OK;
	if (json) {
		cJSON *doc;

		if (ab_manifest_env_json(&doc, argv[optind], n == 2 ? argv[optind + 1] : NULL) < 0)
			return AB_EXIT_USAGE;
		ab_json_print(stdout, doc);
		cJSON_Delete(doc);
		return AB_EXIT_OK;
	}
	return ab_manifest_env(stdout, argv[optind], argv[optind + 1]) < 0 ? AB_EXIT_USAGE : AB_EXIT_OK;
}

const struct ab_cmd ab_cmd_env = {"env", "print a variant's runtime environment for a benchmark", usage, cmd_env};
