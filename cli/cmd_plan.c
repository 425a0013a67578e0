/* allocbuild plan: print every step a build would run; executes nothing */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../builder/plan.h"
#include "../builder/recipe.h"
#include "../lib/util.h"

int
ab_plan_opts_option(struct ab_plan_opts *o, const char *cmd, int opt, const char *arg)
{
	switch (opt) {
	case 'o':
		o->outdir = arg;
		return 1;
	case 'j':
		return ab_cmd_parse_jobs(&o->jobs, cmd, arg) < 0 ? -1 : 1;
	case AB_OPT_CCACHE:
		o->ccache = 1;
		return 1;
	default:
		return 0;
	}
}

static const char usage[] =
    "allocbuild plan [-o OUTDIR] [-j N] [--ccache] RECIPE [LABEL...]\n"
    "\n"
    "Print, in dependency order, the source acquisition, patches, overlays,\n"
    "prepare commands, the argv and directory of every configure, build and\n"
    "link command, the probes and the manifests. Nothing is executed.\n";

static int
cmd_plan(int argc, char **argv)
{
	static const struct option longopts[] = {
		AB_PLAN_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct ab_plan_opts o = {0};
	struct ab_recipe *r = NULL;
	struct ab_plan *p = NULL;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:j:", longopts, NULL)) != -1) {
		int h = ab_plan_opts_option(&o, "plan", c, optarg);

		if (h < 0)
			return AB_EXIT_USAGE;
		if (h == 0)
			return ab_cmd_option_error("plan", c, argv);
	}
	if (optind >= argc)
		return ab_cmd_usage_error("plan", "missing recipe");
	if (ab_recipe_load(&r, argv[optind]) < 0)
		return AB_EXIT_USAGE;
	if (ab_plan_make(&p, r, &o, argv + optind + 1, (size_t)(argc - optind - 1)) < 0) {
		ab_recipe_free(r);
		return AB_EXIT_USAGE;
	}
	ab_plan_print(stdout, p);
	ab_plan_free(p);
	ab_recipe_free(r);
	return AB_EXIT_OK;
}

const struct ab_cmd ab_cmd_plan = {"plan", "print every step a build would run, without running it", usage, cmd_plan, 0};
