/*
 * allocbuild validate [--allow-unpinned] RECIPE...
 *
 * Check every rule of the recipe format and print a one-line summary per
 * recipe; errors are printed by the loader, all at once.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "../builder/recipe.h"
#include "../lib/util.h"

static const char *
plural(size_t n, const char *one, const char *many)
{
	return n == 1 ? one : many;
}

static void
summary(const struct ab_recipe *r)
{
	static const struct {
		enum ab_variant_kind kind;
		const char *one, *many;
	} kinds[] = {
		{AB_VARIANT_BUILD, "build", "builds"},
		{AB_VARIANT_RELINK, "relink", "relinks"},
		{AB_VARIANT_RUNTIME, "runtime", "runtimes"},
	};
	size_t unpinned = 0;
	const char *sep = "";

	for (size_t i = 0; i < r->nsources; i++)
		unpinned += r->sources[i].kind == AB_SOURCE_GIT && r->sources[i].unpinned;
	printf("%s: recipe '%s': %zu %s", r->path, r->name, r->nsources, plural(r->nsources, "source", "sources"));
	if (unpinned)
		printf(" (%zu unpinned)", unpinned);
	printf(", %zu %s (", r->nvariants, plural(r->nvariants, "variant", "variants"));
	for (size_t k = 0; k < AB_NELEM(kinds); k++) {
		size_t n = ab_recipe_count(r, kinds[k].kind);

		if (!n)
			continue;
		printf("%s%zu %s", sep, n, plural(n, kinds[k].one, kinds[k].many));
		sep = ", ";
	}
	printf(")\n");
}

static const char usage[] =
    "allocbuild validate [--allow-unpinned] RECIPE...\n"
    "\n"
    "Check every rule of the recipe format (docs/recipe.md). Errors are\n"
    "printed as FILE:LINE:COL: json.path: message, all at once (exit 2);\n"
    "a valid recipe prints a one-line summary. A git source given by a\n"
    "branch or tag name instead of a commit id is an error unless\n"
    "--allow-unpinned is given.\n";

static int
cmd_validate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allow-unpinned", no_argument, NULL, 'u'},
		{NULL, 0, NULL, 0},
	};
	int allow_unpinned = 0, rc = AB_EXIT_OK, opt;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'u':
			allow_unpinned = 1;
			break;
		default:
			return ab_cmd_option_error("validate", opt, argv);
		}
	}
	if (optind >= argc)
		return ab_cmd_usage_error("validate", "no recipe given");
	for (int i = optind; i < argc; i++) {
		struct ab_recipe *r;

		if (ab_recipe_load_ext(&r, argv[i], allow_unpinned ? 0 : AB_RECIPE_REQUIRE_PINS) < 0) {
			rc = AB_EXIT_USAGE;
			continue;
		}
		summary(r);
		ab_recipe_free(r);
	}
	return rc;
}

const struct ab_cmd ab_cmd_validate = {"validate", "check a recipe and print a summary", usage, cmd_validate};
