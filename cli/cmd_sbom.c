/*
 * allocbuild sbom [-o FILE] [--format cyclonedx] OUTDIR
 *
 * The software bill of materials of a build (provenance/review/sbom.h,
 * docs/sbom.md): CycloneDX 1.6 JSON on standard output, or written
 * atomically to FILE.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "../lib/jsonio.h"
#include "../lib/util.h"
#include "../provenance/review/sbom.h"

static const char usage[] =
    "allocbuild sbom [-o FILE] [--format cyclonedx] OUTDIR\n"
    "\n"
    "Print the software bill of materials of a build as CycloneDX 1.6 JSON,\n"
    "made from the manifests SHA256SUMS lists (OUTDIR is verified first, as\n"
    "`allocbuild verify` does): a component per artifact (its sha256, the\n"
    "variant labels as properties), per source (its purl:\n"
    "pkg:github/OWNER/REPO@COMMIT, a release tag, or pkg:generic), per\n"
    "vendored allocator tree (the upstream release's purl and version, its\n"
    "pedigree: the release it was checked against with the archive's sha256\n"
    "or the git commit, one unofficial patch per differing file with its\n"
    "unified diff, the files left out noted), and the dependency graph\n"
    "(program -> allocator archive -> vendored tree or source).\n"
    "  -o, --output FILE   write it to FILE (atomically) instead\n"
    "      --format F      cyclonedx (the default and the only one)\n"
    "Exit 0 written, 1 OUTDIR does not verify, 2 bad input. See docs/sbom.md.\n";

enum { OPT_FORMAT = 0x2400 };

static int
cmd_sbom(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"format", required_argument, NULL, OPT_FORMAT},
		{NULL, 0, NULL, 0},
	};
	const char *output = NULL, *format = NULL;
	cJSON *doc = NULL;
	int c, e;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case OPT_FORMAT:
			format = optarg;
			break;
		default:
			return ab_cmd_option_error("sbom", c, argv);
		}
	}
	if (format) {
		size_t i;

		for (i = 0; ab_sbom_formats[i] && strcmp(ab_sbom_formats[i], format); i++)
			;
		if (!ab_sbom_formats[i])
			return ab_cmd_usage_error("sbom", "unknown format '%s': cyclonedx", format);
	}
	if (argc - optind != 1)
		return ab_cmd_usage_error("sbom", argc == optind ? "missing OUTDIR" : "one OUTDIR only");
	e = ab_sbom_make(&doc, argv[optind], format);
	if (e == 0)
		e = output ? ab_json_write(output, doc) : ab_json_print(stdout, doc);
	cJSON_Delete(doc);
	return ab_cmd_exit(e);
}

const struct ab_cmd ab_cmd_sbom = {"sbom", "the software bill of materials of a build (CycloneDX 1.6)", usage, cmd_sbom};
