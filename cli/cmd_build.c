/* allocbuild build: build every variant of a recipe and write its provenance */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../builder/build.h"
#include "../builder/check.h"
#include "cmd.h"
#include "../builder/plan.h"
#include "../builder/recipe.h"
#include "../builder/source.h"
#include "../lib/util.h"

enum { OPT_KEEP_GOING = 0x2000, OPT_FORCE, OPT_CHECK };

static const char usage[] =
    "allocbuild build [-o OUTDIR] [-j N] [-k|--keep-going] [--force] [--ccache] [--check]\n"
    "                 [--cache DIR] [--mirror FROM=TO] [--mirror-dir DIR] [--allow-unpinned]\n"
    "                 RECIPE [LABEL...]\n"
    "\n"
    "Build the variants (all, or the labels and what they depend on) into\n"
    "OUTDIR (default ./allocbuild-out/<recipe name>), probe their allocators\n"
    "and write the manifests (docs/build.md, docs/manifests.md). Up-to-date\n"
    "variants are only re-verified; --force rebuilds. Exit 1 when a variant\n"
    "fails or a probe finds a problem.\n"
    "\n"
    "--check builds every variant a second time, from nothing, in\n"
    "OUTDIR/reproducibility/check with another -j, and reports each artifact\n"
    "as identical or differs (and what differs); the record goes to\n"
    "OUTDIR/provenance/reproducibility.intoto.json. Exit 1 when any differs.\n";

static int
cmd_build(int argc, char **argv)
{
	static const struct option longopts[] = {
		AB_PLAN_LONGOPTS,
		{"keep-going", no_argument, NULL, OPT_KEEP_GOING},
		{"force", no_argument, NULL, OPT_FORCE},
		{"check", no_argument, NULL, OPT_CHECK},
		AB_SOURCE_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct ab_source_opts so;
	struct ab_plan_opts po = {0};
	struct ab_build_opts bo = {0};
	struct ab_recipe *r = NULL;
	struct ab_plan *p = NULL;
	int c, check = 0, rc = AB_EXIT_USAGE;

	ab_source_opts_init(&so);
	bo.src = &so;
	bo.table = 1;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:j:k", longopts, NULL)) != -1) {
		int h;

		switch (c) {
		case 'k':
		case OPT_KEEP_GOING:
			bo.keep_going = 1;
			continue;
		case OPT_FORCE:
			bo.force = 1;
			continue;
		case OPT_CHECK:
			check = 1;
			continue;
		default:
			break;
		}
		h = ab_plan_opts_option(&po, "build", c, optarg);
		if (h == 0)
			h = ab_source_opts_option(&so, c, optarg);
		if (h < 0)
			goto done;
		if (h == 0) {
			rc = ab_cmd_option_error("build", c, argv);
			goto done;
		}
	}
	if (optind >= argc) {
		rc = ab_cmd_usage_error("build", "missing recipe");
		goto done;
	}
	if (ab_recipe_load(&r, argv[optind]) < 0)
		goto done;
	if (check) {
		rc = ab_cmd_exit(ab_check_run(r, &po, argv + optind + 1, (size_t)(argc - optind - 1), &bo));
		goto done;
	}
	if (ab_plan_make(&p, r, &po, argv + optind + 1, (size_t)(argc - optind - 1)) < 0)
		goto done;
	rc = ab_cmd_exit(ab_build_run(p, &bo));
done:
	ab_plan_free(p);
	ab_recipe_free(r);
	ab_source_opts_release(&so);
	return rc;
}

const struct ab_cmd ab_cmd_build = {"build", "build every variant of a recipe and write provenance", usage, cmd_build, 0};
