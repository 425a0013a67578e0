#include "fetch.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/atomic.h"
#include "../lib/jsonio.h"
#include "../lib/util.h"
#include "build.h"

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

int
ab_fetch_check_ids(const struct ab_recipe *r, char *const *ids, size_t nids)
{
	for (size_t i = 0; i < nids; i++)
		if (!ab_recipe_source(r, ids[i])) {
			ab_error("fetch: recipe '%s' has no source '%s'", r->path, ids[i]);
			return AB_EFAIL;
		}
	return 0;
}

/* the overlays of a selected source are needed too, but only the variants of selected sources are written */
int
ab_fetch_check_patches(const struct ab_source_opts *o, const struct ab_recipe *r, char *const *ids, size_t nids)
{
	int failed = 0;

	for (size_t i = 0; i < r->nsources; i++) {
		const struct ab_source *s = &r->sources[i];

		if (!selected(ids, nids, s->id))
			continue;
		if (ab_source_check_patches(o, r, s) < 0) {
			failed = 1;
			continue;
		}
		printf("%s: %zu %s\n", s->id, s->patches.n, s->patches.n == 1 ? "patch applies" : "patches apply");
	}
	return failed ? AB_ECHECK : 0;
}

/* a failed fetch removes the lock and the (empty) directories it created, up to made */
static void
undo_outdir(const char *outdir, const char *made)
{
	char *lock = ab_path_join(outdir, ".lock");

	unlink(lock);
	ab_rmdir_up_to(outdir, made);
	free(lock);
}

/* what a killed fetch left under the lock: the temporaries of sources.json and of the stamps */
static void
clean_stale_temporaries(const char *outdir, const struct ab_recipe *r, const struct ab_fetch_result *res)
{
	char *prov = ab_path_join(outdir, "provenance");

	ab_atomic_clean_stale(prov);
	free(prov);
	for (size_t i = 0; i < res->nvariants; i++) {
		char *dir = ab_sprintf("%s/variants/%s", outdir, r->variants[res->variants[i]].label);

		ab_atomic_clean_stale(dir);
		free(dir);
	}
}

/* every selected source into the cache, even one no variant builds (an upstream for comparison) */
static int
fetch_selected(cJSON *m, const struct ab_source_opts *o, const struct ab_recipe *r, char *const *ids, size_t nids)
{
	for (size_t i = 0; i < r->nsources; i++) {
		struct ab_fetch_record *rec;
		int e;

		if (!selected(ids, nids, r->sources[i].id))
			continue;
		if ((e = ab_source_fetch(&rec, o, r, &r->sources[i])) < 0)
			return e;
		ab_sources_manifest_add_source(m, &r->sources[i], ab_fetch_record_json(rec));
		ab_fetch_record_free(rec);
	}
	return 0;
}

int
ab_fetch_run(struct ab_fetch_result *res, const struct ab_source_opts *o, const struct ab_recipe *r,
    const char *outdir, char *const *ids, size_t nids)
{
	char *made = NULL;
	int lockfd = -1, rc = AB_EFAIL;

	memset(res, 0, sizeof(*res));
	if (ab_is_dir(outdir) && ab_build_lock(&lockfd, outdir) < 0)
		goto done;
	res->manifest = ab_sources_manifest_new(r);
	rc = fetch_selected(res->manifest, o, r, ids, nids);
	if (rc < 0)
		goto done;
	rc = AB_ECHECK;
	if (lockfd < 0) {
		made = ab_path_first_missing(outdir);
		if (ab_mkdir_p(outdir, 0755) < 0)
			goto done;
		if (ab_build_lock(&lockfd, outdir) < 0) {
			rc = AB_EFAIL;
			goto done;
		}
	}
	res->variants = ab_calloc(r->nvariants ? r->nvariants : 1, sizeof(*res->variants));
	for (size_t i = 0; i < r->nvariants; i++) {
		const struct ab_variant *v = &r->variants[i];

		if (v->kind == AB_VARIANT_BUILD && selected(ids, nids, v->source))
			res->variants[res->nvariants++] = i;
	}
	clean_stale_temporaries(outdir, r, res);
	if (ab_source_variants(res->manifest, o, r, outdir, res->variants, res->nvariants) < 0)
		goto done;
	if (ab_sources_manifest_write(res->manifest, outdir) < 0)
		goto done;
	rc = 0;
done:
	if (lockfd >= 0) {
		if (rc != 0 && made)
			undo_outdir(outdir, made);
		close(lockfd);
	}
	free(made);
	return rc;
}

void
ab_fetch_result_release(struct ab_fetch_result *res)
{
	cJSON_Delete(res->manifest);
	free(res->variants);
	memset(res, 0, sizeof(*res));
}
