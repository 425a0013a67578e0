/* allocbuild plan: print every step a build would run; executes nothing */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "plan.h"
#include "recipe.h"
#include "util.h"

enum { OPT_CCACHE = 0x2000 };

int
cmd_plan(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"outdir", required_argument, NULL, 'o'},
		{"jobs", required_argument, NULL, 'j'},
		{"ccache", no_argument, NULL, OPT_CCACHE},
		{NULL, 0, NULL, 0},
	};
	struct ab_plan_opts o = {0};
	struct ab_recipe *r = NULL;
	struct ab_plan *p = NULL;
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.outdir = optarg;
			break;
		case 'j':
			if (ab_cmd_parse_jobs(&o.jobs, "plan", optarg) < 0)
				return AB_EXIT_USAGE;
			break;
		case OPT_CCACHE:
			o.ccache = 1;
			break;
		default:
			return ab_cmd_option_error("plan", c, argv);
		}
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
