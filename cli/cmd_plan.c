/* allocbuild plan: print every step a build would run; executes nothing */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmdopts.h"
#include "../builder/plan.h"
#include "../builder/recipe.h"
#include "../builder/shard.h"
#include "../lib/jsonio.h"
#include "../lib/util.h"

static const char usage[] =
    "allocbuild plan [-o OUTDIR] [-j N] [--ccache] [--ccache-remote URL] [--ccache-dir DIR]\n"
    "                [--no-sandbox] [--derive] [--json] RECIPE [LABEL...]\n"
    "allocbuild plan --matrix [-n N] RECIPE\n"
    "\n"
    "Print, in dependency order, the source acquisition, patches, overlays,\n"
    "prepare commands, the argv and directory of every configure, build and\n"
    "link command, the probes and the manifests. Nothing is executed.\n"
    "--json prints the same as one document (docs/build.md, \"Steps\").\n"
    "--derive shows which variants start from an earlier variant's trees\n"
    "and why the others are built clean (docs/build.md, \"Derived build trees\").\n"
    "\n"
    "--matrix prints, as JSON, the recipe's variants split into N shards\n"
    "(default 2), each a dependency closure balanced by a cost estimate,\n"
    "for a CI matrix or an array job: `build --shard K/N` builds shard K,\n"
    "`merge` combines the shards' OUTDIRs (docs/scale.md).\n";

enum { OPT_MATRIX = 0x1200, OPT_JSON };

static int
print_matrix(const struct ab_recipe *r, int n)
{
	struct ab_shards *s;
	cJSON *doc;
	int e;

	if (ab_shard_make(&s, r, (size_t)n) < 0)
		return AB_EFAIL;
	doc = ab_shard_json(s);
	e = ab_json_print(stdout, doc);
	cJSON_Delete(doc);
	ab_shards_free(s);
	return e;
}

static int
cmd_plan(int argc, char **argv)
{
	static const struct option longopts[] = {
		AB_PLAN_LONGOPTS,
		{"matrix", no_argument, NULL, OPT_MATRIX},
		{"json", no_argument, NULL, OPT_JSON},
		{NULL, 0, NULL, 0},
	};
	struct ab_plan_opts o = {0};
	struct ab_recipe *r = NULL;
	struct ab_plan *p = NULL;
	int c, matrix = 0, nshards = 0, json = 0;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:j:n:", longopts, NULL)) != -1) {
		int h;

		if (c == OPT_MATRIX) {
			matrix = 1;
			continue;
		}
		if (c == OPT_JSON) {
			json = 1;
			continue;
		}
		if (c == 'n') {
			if (ab_cmd_parse_int(&nshards, optarg, 1, AB_SHARD_MAX) < 0)
				return ab_cmd_usage_error("plan", "invalid number of shards '%s' (1 to %d)", optarg,
				    AB_SHARD_MAX);
			continue;
		}
		h = ab_cmd_plan_option(&o, "plan", c, optarg);

		if (h < 0)
			return AB_EXIT_USAGE;
		if (h == 0)
			return ab_cmd_option_error("plan", c, argv);
	}
	if (optind >= argc)
		return ab_cmd_usage_error("plan", "missing recipe");
	if (nshards && !matrix)
		return ab_cmd_usage_error("plan", "-n is an option of --matrix");
	if (matrix && optind + 1 < argc)
		return ab_cmd_usage_error("plan", "--matrix takes no labels");
	if (ab_recipe_load(&r, argv[optind]) < 0)
		return AB_EXIT_USAGE;
	if (matrix) {
		int rc = ab_cmd_exit(print_matrix(r, nshards ? nshards : 2));

		ab_recipe_free(r);
		return rc;
	}
	if (ab_plan_make(&p, r, &o, argv + optind + 1, (size_t)(argc - optind - 1)) < 0) {
		ab_recipe_free(r);
		return AB_EXIT_USAGE;
	}
	if (json) {
		cJSON *doc = ab_plan_json(p);

		ab_json_print(stdout, doc);
		cJSON_Delete(doc);
	} else {
		ab_plan_print(stdout, p);
	}
	ab_plan_free(p);
	ab_recipe_free(r);
	return AB_EXIT_OK;
}

const struct ab_cmd ab_cmd_plan = {"plan", "print every step a build would run, without running it", usage, cmd_plan};
