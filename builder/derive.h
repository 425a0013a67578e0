/*
 * derive: a build variant that starts from a copy of an earlier variant's
 * finished trees (build --derive; docs/build.md, "Derived build trees").
 *
 * In the build sandbox every variant's trees are /allocbuild/src and
 * /allocbuild/build, so the finished trees of one variant are valid trees
 * of another variant of the same source: absolute paths, CMake's cache and
 * try-compile results included. A variant whose inputs differ from an
 * earlier one's only in its settings (configure arguments, CMake defines,
 * build.env but PATH) may start from a copy of that variant's trees, run
 * its own configure and build there, and let the build system rebuild what
 * its settings change.
 *
 * Calling protocol:
 *   ab_derive_plan(p);                   at plan time, after each variant's deps:
 *                                        pv->derive_from, pv->derive_why
 *   ...the lead built in this run and ended (the scheduler waits for it)...
 *   ab_derive_copy(&cloned, lead, pv);   its src and build copied into pv's place
 *   ...pv's configure and build steps...
 *   ab_derive_compile_log(lead, pv);     pv's compile log: the lead's compiles of the
 *                                        objects pv did not compile again, then its own
 */
#ifndef AB_DERIVE_H
#define AB_DERIVE_H

#include <stddef.h>

#include "plan.h"

/* the directory beside a variant's trees where a copy is made before it is renamed into place */
#define AB_DERIVE_TMP ".derive"

/*
 * For each build variant of p: the first earlier variant that derives from
 * nothing and has the same inputs but for its settings (pv->derive_from),
 * or, when an earlier variant has the same source but differs in another
 * input, why it is built clean (pv->derive_why, owned by the plan). Only
 * sandboxed autotools and CMake variants are derived.
 */
void ab_derive_plan(struct ab_plan *p);

/*
 * Copy lead's finished src and build trees (mtimes kept; files cloned where
 * the file system can, else copied: never hard links) into
 * pv->dir/AB_DERIVE_TMP, then rename each into place: a copy cut short
 * leaves no tree where a build looks for one. pv's trees must not exist.
 * *cloned counts the files cloned. 0 or AB_EFAIL (reported).
 */
int ab_derive_copy(size_t *cloned, const struct ab_plan_var *lead, const struct ab_plan_var *pv);

/*
 * remove what a copy cut short left in pv's directory, when it is this
 * user's private directory and no link (lib/stale.h); anything else there
 * is left alone, and named when report is set: AB_EFAIL. 0 or AB_EFAIL
 */
int ab_derive_clean(const struct ab_plan_var *pv, int report);

/*
 * pv's compile log (builder/ccwrap.h) rewritten as if its tree had been
 * built by it alone: the lead's compiles of every object pv did not write
 * again (the sixth field AB_DERIVE_INHERITED), then pv's own, so that a
 * check matches each object of the tree with the compile that made it.
 * 0 or AB_EFAIL (reported).
 */
#define AB_DERIVE_INHERITED "inherited"
int ab_derive_compile_log(const struct ab_plan_var *lead, const struct ab_plan_var *pv);

#endif
