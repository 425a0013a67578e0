/*
 * check: `allocbuild build --check` (docs/build.md, "Checking
 * reproducibility"). The plan is built as `build` builds it; then every
 * selected variant once more, from nothing, into OUTDIR/reproducibility/check
 * (another, longer path), with another -j (twice the first), with
 * --force, and with nothing from a compile cache: a first build through
 * ccache is built again through ccache (whose relative paths are in the
 * bytes) with an empty cache of its own and no remote storage
 * (ab_plan_opts_fresh_ccache). Every artifact of the first build is compared with the
 * second's (provenance/record/repro.h) and the result printed on stdout.
 *
 * The second build does not replace the first: it stays in its own OUTDIR
 * for inspection, and the comparison is recorded in
 * OUTDIR/provenance/reproducibility.intoto.json, listed in SHA256SUMS
 * (provenance/record/manifest.h, ab_manifest_add_record). OUTDIR's lock is held
 * throughout.
 *
 *   rc = ab_check_run(recipe, &plan_opts, labels, nlabels, &build_opts);
 *   0 every artifact identical; AB_ECHECK a build failed or a reproducible
 *   artifact differs; AB_EFAIL bad input, a lock, I/O (reported)
 */
#ifndef AB_CHECK_H
#define AB_CHECK_H

#include <stddef.h>

#include "build.h"
#include "plan.h"
#include "recipe.h"

/* the second build's OUTDIR, relative to the first */
#define AB_CHECK_DIR "reproducibility/check"

int ab_check_run(const struct ab_recipe *r, const struct ab_plan_opts *po, char *const *labels, size_t nlabels,
    const struct ab_build_opts *o);

#endif
