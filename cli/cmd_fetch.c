/*
 * allocbuild fetch: bring the pinned sources of a recipe into the cache,
 * write each build variant's own source tree and OUTDIR/provenance/sources.json.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../builder/build.h"
#include "cmd.h"
#include "../builder/recipe.h"
#include "../builder/source.h"
#include "../lib/util.h"

enum { OPT_CHECK_PATCHES = 0x2000 };

static int
selected(char *const *ids, size_t n, const char *id)
{
	if (n == 0)
		return 1;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ids[i], id))
			return 1;
	return 0;
}

/* the overlays of a selected source are needed too, but only the variants of selected sources are written */
static int
check_patches(const struct ab_source_opts *o, const struct ab_recipe *r, char *const *ids, size_t n)
{
	int failed = 0;

	for (size_t i = 0; i < r->nsources; i++) {
		const struct ab_source *s = &r->sources[i];

		if (!selected(ids, n, s->id))
			continue;
		if (ab_source_check_patches(o, r, s) < 0) {
			failed = 1;
			continue;
		}
		printf("%s: %zu patch%s apply\n", s->id, s->patches.n, s->patches.n == 1 ? "" : "es");
	}
	return failed ? AB_EXIT_CHECK : AB_EXIT_OK;
}

/* the topmost missing directory among path and its parents (malloc'd), or NULL when path exists */
static char *
first_missing(const char *path)
{
	char *p = ab_strdup(path), *made = NULL, *slash;

	while (!ab_path_exists(p)) {
		free(made);
		made = ab_strdup(p);
		slash = strrchr(p, '/');
		if (!slash || slash == p)
			break;
		*slash = '\0';
	}
	free(p);
	return made;
}

/* a failed fetch removes the lock and the (empty) directories it created, up to made */
static void
undo_outdir(const char *outdir, const char *made)
{
	char *lock = ab_path_join(outdir, ".lock"), *p = ab_strdup(outdir), *slash;

	unlink(lock);
	while (rmdir(p) == 0 && strlen(p) > strlen(made) && (slash = strrchr(p, '/')) != NULL)
		*slash = '\0';
	free(lock);
	free(p);
}

int
cmd_fetch(int argc, char **argv)
{
	static const struct option longopts[] = {
		AB_SOURCE_LONGOPTS,
		{"check-patches", no_argument, NULL, OPT_CHECK_PATCHES},
		{"output", required_argument, NULL, 'o'},
		{"jobs", required_argument, NULL, 'j'},
		{"quiet", no_argument, NULL, 'q'},
		{NULL, 0, NULL, 0},
	};
	struct ab_source_opts o;
	struct ab_recipe *r = NULL;
	char *outdir = NULL, *made = NULL, **ids;
	size_t nids, *order = NULL, norder = 0;
	int opt, check = 0, rc = AB_EXIT_USAGE, lockfd = -1;
	cJSON *m = NULL;

	ab_source_opts_init(&o);
	opterr = 0;
	optind = 1;
	while ((opt = getopt_long(argc, argv, ":o:j:q", longopts, NULL)) != -1) {
		int h = ab_source_opts_option(&o, opt, optarg);

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
	for (size_t i = 0; i < nids; i++) {
		if (!ab_recipe_source(r, ids[i])) {
			rc = ab_cmd_usage_error("fetch", "recipe '%s' has no source '%s'", r->path, ids[i]);
			goto done;
		}
	}
	if (check) {
		rc = check_patches(&o, r, ids, nids);
		goto done;
	}
	if (!outdir)
		outdir = ab_sprintf("allocbuild-out/%s", r->name);
	/*
	 * OUTDIR's build lock, so that no tree is swapped under a running
	 * build: taken at once when OUTDIR exists (refused before any
	 * download), else created only once the sources are in the cache
	 */
	if (ab_is_dir(outdir) && ab_build_lock(&lockfd, outdir) < 0)
		goto done;
	rc = AB_EXIT_CHECK;
	m = ab_sources_manifest_new(r);
	/* every selected source, even one no variant builds (an upstream for comparison) */
	for (size_t i = 0; i < r->nsources; i++) {
		cJSON *rec;

		if (!selected(ids, nids, r->sources[i].id))
			continue;
		rec = cJSON_CreateObject();
		if (ab_source_fetch(rec, &o, r, &r->sources[i]) < 0) {
			cJSON_Delete(rec);
			goto done;
		}
		ab_sources_manifest_add_source(m, r->sources[i].id, rec);
	}
	if (lockfd < 0) {
		made = first_missing(outdir);
		if (ab_mkdir_p(outdir, 0755) < 0)
			goto done;
		if (ab_build_lock(&lockfd, outdir) < 0) {
			rc = AB_EXIT_USAGE;
			goto done;
		}
	}
	order = ab_calloc(r->nvariants, sizeof(*order));
	for (size_t i = 0; i < r->nvariants; i++) {
		const struct ab_variant *v = &r->variants[i];

		if (v->kind == AB_VARIANT_BUILD && selected(ids, nids, v->source))
			order[norder++] = i;
	}
	if (ab_source_variants(m, &o, r, outdir, order, norder) < 0)
		goto done;
	if (ab_sources_manifest_write(m, outdir) < 0)
		goto done;
	for (size_t i = 0; i < norder; i++) {
		const struct ab_variant *v = &r->variants[order[i]];
		const cJSON *rec = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItem(m, "variants"), v->label);

		printf("%s  %s/variants/%s/src\n", cJSON_GetStringValue(cJSON_GetObjectItem(rec, "dirHash")), outdir,
		    v->label);
	}
	rc = AB_EXIT_OK;
done:
	if (lockfd >= 0) {
		if (rc != AB_EXIT_OK && made)
			undo_outdir(outdir, made);
		close(lockfd);
	}
	free(made);
	cJSON_Delete(m);
	free(order);
	free(outdir);
	ab_recipe_free(r);
	ab_source_opts_release(&o);
	return rc;
}
