/* allocbuild env: the runtime environment of a label, or the binaries of all */
#include <stdio.h>
#include <string.h>

#include "cmd.h"
#include "../lib/util.h"
#include "../provenance/manifest.h"

static const char usage[] =
    "allocbuild env OUTDIR LABEL\n"
    "allocbuild env OUTDIR --systems\n";

static int
cmd_env(int argc, char **argv)
{
	if (argc != 3)
		return ab_cmd_usage_error("env", argc < 3 ? "missing OUTDIR or LABEL" : "too many arguments");
	if (!strcmp(argv[2], "--systems"))
		return ab_manifest_systems(stdout, argv[1]) < 0 ? AB_EXIT_USAGE : AB_EXIT_OK;
	if (argv[1][0] == '-' || argv[2][0] == '-')
		return ab_cmd_usage_error("env", "unknown option '%s'", argv[1][0] == '-' ? argv[1] : argv[2]);
	return ab_manifest_env(stdout, argv[1], argv[2]) < 0 ? AB_EXIT_USAGE : AB_EXIT_OK;
}

const struct ab_cmd ab_cmd_env = {"env", "print a variant's runtime environment for a benchmark", usage, cmd_env};
