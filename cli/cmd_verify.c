/*
 * allocbuild verify: re-hash every subject and manifest of an OUTDIR, or
 * every member of an evidence bundle (without unpacking it).
 */
#include <stdio.h>

#include "cmd.h"
#include "../lib/util.h"
#include "../provenance/bundle.h"
#include "../provenance/manifest.h"

static const char usage[] =
    "allocbuild verify OUTDIR|BUNDLE\n";

static int
cmd_verify(int argc, char **argv)
{
	int e;

	if (argc != 2 || argv[1][0] == '-')
		return ab_cmd_usage_error("verify", argc < 2 ? "missing OUTDIR or BUNDLE" :
		    "expected exactly one OUTDIR or BUNDLE");
	if (!ab_is_dir(argv[1]) && ab_path_exists(argv[1])) {
		e = ab_bundle_verify(argv[1]);
		if (e == 0)
			printf("%s: every member matches BUNDLE-SHA256SUMS\n", argv[1]);
		return ab_cmd_exit(e);
	}
	return ab_cmd_exit(ab_manifest_verify(stdout, argv[1]));
}

const struct ab_cmd ab_cmd_verify = {"verify", "re-hash an output directory or evidence bundle", usage, cmd_verify};
