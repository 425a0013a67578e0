/* allocbuild verify: re-hash every subject and manifest of an OUTDIR */
#include <stdio.h>

#include "../builder/cmd.h"
#include "../builder/util.h"
#include "manifest.h"

int
cmd_verify(int argc, char **argv)
{
	int e;

	if (argc != 2 || argv[1][0] == '-')
		return ab_cmd_usage_error("verify", argc < 2 ? "missing OUTDIR" : "expected exactly one OUTDIR");
	e = ab_manifest_verify(stdout, argv[1]);
	return e < 0 ? AB_EXIT_USAGE : e ? AB_EXIT_CHECK : AB_EXIT_OK;
}
