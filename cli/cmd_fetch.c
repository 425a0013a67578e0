/*
 * allocbuild fetch: bring the pinned sources of a recipe into the cache,
 * write each build variant's own source tree and OUTDIR/provenance/sources.json.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../builder/fetch.h"
#include "cmd.h"
#include "cmdopts.h"
#include "../builder/recipe.h"
#include "../builder/source.h"
#include "../lib/jsonio.h"
#include "../lib/util.h"

enum { OPT_CHECK_PATCHES = 0x2000, OPT_JSON };

static const char usage[] =
    "allocbuild fetch [--cache DIR] [--mirror FROM=TO]... [--mirror-dir DIR]...\n"
    "                 [--allow-unpinned] [--check-patches] [-o OUTDIR] [-j N] [-q] [--json]\n"
    "                 RECIPE [SOURCE...]\n"
    "\n"
    "Bring the pinned sources (all, or the given ones) into the cache, write\n"
    "each build variant's own tree at OUTDIR/variants/<label>/src and\n"
    "OUTDIR/provenance/sources.json (OUTDIR: ./allocbuild-out/<recipe name>),\n"
    "and print each tree's dirHash and path, or with --json one document\n"
    "{\"outdir\", \"manifest\", \"trees\": [{\"label\", \"path\", \"dirHash\"}]}.\n"
    "--check-patches only checks that every patch applies. Mirrors:\n"
    "--mirror FROM=TO rewrites URL prefixes (also ALLOCBUILD_MIRRORS); archives\n"
    "are looked up in each --mirror-dir as sha256/<hex> or by file name.\n"
    "Cache: --cache, ALLOCBUILD_CACHE, $XDG_CACHE_HOME/allocbuild. See docs/sources.md.\n";

static int
cmd_fetch(int argc, char **argv)
{
	static const struct option longopts[] = {
		AB_SOURCE_LONGOPTS,
		{"check-patches", no_argument, NULL, OPT_CHECK_PATCHES},
		{"output", required_argument, NULL, 'o'},
		{"jobs", required_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{"json", no_argument, NULL, OPT_JSON},
		{NULL, 0, NULL, 0},
	};
	cJSON *doc = NULL, *trees = NULL;
	int json = 0;
	struct ab_source_opts o;
	struct ab_recipe *r = NULL;
	struct ab_fetch_result res = {0};
	char *outdir = NULL, **ids;
	size_t nids;
	int opt, check = 0, rc = AB_EXIT_USAGE;

	ab_source_opts_init(&o);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:j:q", longopts, NULL)) != -1) {
		int h = ab_cmd_source_option(&o, opt, optarg);

		if (h < 0)
			goto done;
		if (h > 0)
			continue;
		switch (opt) {
		case OPT_CHECK_PATCHES:
			check = 1;
			break;
		case 'o':
			free(outdir);
			outdir = ab_strdup(optarg);
			break;
		case 'j':
			if (ab_cmd_parse_jobs(&o.jobs, "fetch", optarg) < 0)
				goto done;
			break;
		case 'q':
			ab_quiet = 1;
			break;
		case OPT_JSON:
			json = 1;
			break;
		default:
			rc = ab_cmd_option_error("fetch", opt, argv);
			goto done;
		}
	}
	if (optind >= argc) {
		rc = ab_cmd_usage_error("fetch", "missing RECIPE");
		goto done;
	}
	if (ab_recipe_load(&r, argv[optind]) < 0)
		goto done;
	ids = argv + optind + 1;
	nids = (size_t)(argc - optind - 1);
	if (ab_fetch_check_ids(r, ids, nids) < 0) {
		fprintf(stderr, "Try 'allocbuild help fetch'.\n");
		goto done;
	}
	if (check) {
		rc = ab_cmd_exit(ab_fetch_check_patches(&o, r, ids, nids));
		goto done;
	}
	if (!outdir)
		outdir = ab_sprintf("allocbuild-out/%s", r->name);
	rc = ab_cmd_exit(ab_fetch_run(&res, &o, r, outdir, ids, nids));
	if (rc != AB_EXIT_OK)
		goto done;
	/* --json: {"outdir", "manifest", "trees": [{"label", "path", "dirHash"}]} */
	if (json) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "outdir", outdir);
		cJSON_AddItemToObject(doc, "manifest", cJSON_CreateStringReference("provenance/sources.json"));
		trees = cJSON_AddArrayToObject(doc, "trees");
	}
	for (size_t i = 0; i < res.nvariants; i++) {
		const struct ab_variant *v = &r->variants[res.variants[i]];
		const cJSON *rec = ab_json_get(ab_json_get(res.manifest,
		    "variants"), v->label);
		const char *dh = cJSON_GetStringValue(ab_json_get(rec, "dirHash"));
		char *path = ab_sprintf("%s/variants/%s/src", outdir, v->label);

		if (trees) {
			cJSON *t = cJSON_CreateObject();

			cJSON_AddStringToObject(t, "label", v->label);
			cJSON_AddStringToObject(t, "path", path);
			ab_json_add_str_or_null(t, "dirHash", dh);
			cJSON_AddItemToArray(trees, t);
		} else {
			printf("%s  %s\n", dh, path);
		}
		free(path);
	}
	if (doc)
		rc = ab_cmd_exit(ab_json_print(stdout, doc));
done:
	cJSON_Delete(doc);
	ab_fetch_result_release(&res);
	free(outdir);
	ab_recipe_free(r);
	ab_source_opts_release(&o);
	return rc;
}

const struct ab_cmd ab_cmd_fetch = {"fetch", "check out pinned sources into the cache and variant trees", usage, cmd_fetch};
