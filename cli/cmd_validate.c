/*
 * allocbuild validate [--allow-unpinned] RECIPE...
 *
 * Check every rule of the recipe format and print a one-line summary per
 * recipe; errors are printed by the loader, all at once.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../builder/recipe.h"
#include "../lib/jsonio.h"
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

	/* -q: a valid recipe says nothing */
	if (ab_quiet)
		return;
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

/*
 * validate --json: the recipe's errors, read back from the lines the
 * loader writes ("FILE:LINE:COL: json.path: message"), as objects
 */
static cJSON *
errors_json(const char *file, const char *text)
{
	cJSON *arr = cJSON_CreateArray();
	size_t n = strlen(file);

	for (const char *s = text; s && *s;) {
		size_t len = strcspn(s, "\n");
		char *line = ab_strndup(s, len), *end;
		const char *p = line + n + 1;
		long l = 0, c = 0;

		if (!strncmp(line, file, n) && line[n] == ':' && (l = strtol(p, &end, 10)) > 0 && *end == ':' &&
		    (c = strtol(end + 1, &end, 10)) > 0 && !strncmp(end, ": ", 2)) {
			cJSON *e = cJSON_CreateObject();
			const char *msg = end + 2, *sep = strstr(msg, ": ");

			cJSON_AddStringToObject(e, "file", file);
			cJSON_AddNumberToObject(e, "line", (double)l);
			cJSON_AddNumberToObject(e, "col", (double)c);
			if (sep) {
				char *path = ab_strndup(msg, (size_t)(sep - msg));

				cJSON_AddStringToObject(e, "path", path);
				cJSON_AddStringToObject(e, "message", sep + 2);
				free(path);
			} else {
				cJSON_AddStringToObject(e, "message", msg);
			}
			cJSON_AddItemToArray(arr, e);
		}
		free(line);
		s += len + (s[len] == '\n');
	}
	return arr;
}

/* one recipe as validate --json gives it */
static cJSON *
recipe_json(const char *file, const struct ab_recipe *r, const char *errors)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "file", file);
	cJSON_AddBoolToObject(o, "valid", r != NULL);
	if (r) {
		cJSON *kinds = cJSON_AddObjectToObject(o, "variants");

		cJSON_AddStringToObject(o, "name", r->name);
		cJSON_AddStringToObject(o, "sha256", r->sha256);
		cJSON_AddNumberToObject(o, "sources", (double)r->nsources);
		cJSON_AddNumberToObject(kinds, "build", (double)ab_recipe_count(r, AB_VARIANT_BUILD));
		cJSON_AddNumberToObject(kinds, "relink", (double)ab_recipe_count(r, AB_VARIANT_RELINK));
		cJSON_AddNumberToObject(kinds, "runtime", (double)ab_recipe_count(r, AB_VARIANT_RUNTIME));
	}
	cJSON_AddItemToObject(o, "errors", errors_json(file, errors));
	return o;
}

static const char usage[] =
    "allocbuild validate [--allow-unpinned] [--json] RECIPE...\n"
    "\n"
    "Check every rule of the recipe format (docs/recipe.md). Errors are\n"
    "printed as FILE:LINE:COL: json.path: message, all at once (exit 2);\n"
    "a valid recipe prints a one-line summary. With --json, an array of\n"
    "{file, valid, name, sha256, sources, variants {build, relink, runtime},\n"
    "errors [{file, line, col, path, message}]} on stdout instead, errors and\n"
    "all (the exit status is the same). A git source given by a\n"
    "branch or tag name instead of a commit id is an error unless\n"
    "--allow-unpinned is given.\n";

static int
cmd_validate(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allow-unpinned", no_argument, NULL, 'u'},
		{"json", no_argument, NULL, 'J'},
		{NULL, 0, NULL, 0},
	};
	int allow_unpinned = 0, json = 0, rc = AB_EXIT_OK, opt;
	cJSON *all = NULL;

	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "+:", longopts, NULL)) != -1) {
		switch (opt) {
		case 'u':
			allow_unpinned = 1;
			break;
		case 'J':
			json = 1;
			break;
		default:
			return ab_cmd_option_error("validate", opt, argv);
		}
	}
	if (optind >= argc)
		return ab_cmd_usage_error("validate", "no recipe given");
	if (json)
		all = cJSON_CreateArray();
	for (int i = optind; i < argc; i++) {
		unsigned flags = allow_unpinned ? 0 : AB_RECIPE_REQUIRE_PINS;
		struct ab_recipe *r = NULL;
		char *errs = NULL;
		size_t len = 0;
		FILE *f = json ? open_memstream(&errs, &len) : stderr;
		int e = f ? ab_recipe_load_to(&r, argv[i], flags, f) : -1;

		if (json && f)
			fclose(f);
		if (e < 0)
			rc = AB_EXIT_USAGE;
		if (json)
			cJSON_AddItemToArray(all, recipe_json(argv[i], e < 0 ? NULL : r, errs));
		else if (e == 0)
			summary(r);
		free(errs);
		ab_recipe_free(r);
	}
	if (json) {
		ab_json_print(stdout, all);
		cJSON_Delete(all);
	}
	return rc;
}

const struct ab_cmd ab_cmd_validate = {"validate", "check a recipe and print a summary", usage, cmd_validate};
