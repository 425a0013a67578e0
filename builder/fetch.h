/*
 * fetch: the job of `allocbuild fetch`. Bring the pinned sources of a
 * recipe (all, or the selected ones) into the cache, write each build
 * variant's own tree at OUTDIR/variants/<label>/src and
 * OUTDIR/provenance/sources.json, under OUTDIR's build lock.
 *
 * The lock is taken at once when OUTDIR exists, so that no tree is swapped
 * under a running build (refused before any download); otherwise OUTDIR is
 * created, and locked, only once the sources are in the cache. A failed
 * fetch that created OUTDIR removes it again (with the lock file and the
 * empty parents it made).
 */
#ifndef AB_FETCH_H
#define AB_FETCH_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "recipe.h"
#include "source.h"

struct ab_fetch_result {
	cJSON *manifest;  /* sources.json as written */
	size_t *variants; /* indexes into r->variants of the trees written */
	size_t nvariants;
};

/* the selected sources: ids[0..nids) must name sources of r (reported otherwise, AB_EFAIL) */
int ab_fetch_check_ids(const struct ab_recipe *r, char *const *ids, size_t nids);
/*
 * Fetch the selected sources (nids 0: all) and write the trees of the
 * build variants of those sources into outdir; fills res (release with
 * ab_fetch_result_release). 0, AB_EFAIL (bad input, OUTDIR locked) or
 * AB_ECHECK (a source could not be fetched or materialized); reported.
 */
int ab_fetch_run(struct ab_fetch_result *res, const struct ab_source_opts *o, const struct ab_recipe *r,
    const char *outdir, char *const *ids, size_t nids);
/* `fetch --check-patches`: every patch of the selected sources applies; prints one line per source */
int ab_fetch_check_patches(const struct ab_source_opts *o, const struct ab_recipe *r, char *const *ids,
    size_t nids);
void ab_fetch_result_release(struct ab_fetch_result *res);

#endif
