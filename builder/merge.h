/*
 * merge: `allocbuild merge SHARD... -o OUTDIR` (docs/scale.md). Combines
 * the OUTDIRs of `build --shard K/N` runs into one OUTDIR whose manifests
 * are those one build of the whole recipe writes (builder/build.h:
 * ab_build_write_merged), so that verify, pr, rebuild and sign take it as
 * they take any build.
 *
 *   1. every shard must pass verify; all must have been built from the
 *      same recipe (sha256) with the same source pins (git commits,
 *      archive sha256, dirHash); every variant of the recipe must be in
 *      some shard, its state.json what that shard's manifests say;
 *   2. a variant in several shards must have the same artifact digests in
 *      each: a free reproducibility cross-check, reported as one;
 *   3. toolchain differences between shards are reported (per variant);
 *      with require_same_toolchain they refuse the merge;
 *   4. the variants' directories are copied (or moved) into a temporary
 *      directory beside OUTDIR, the manifests written there, the result
 *      verified, and the directory renamed to OUTDIR: an interrupted merge
 *      leaves no OUTDIR, only the temporary (.NAME.merge-XXXXXX), which
 *      the next merge into OUTDIR removes.
 *
 *   struct ab_merge_opts o = {.shards = dirs, .nshards = n, .outdir = "out"};
 *   rc = ab_merge_run(&o);   0 merged; AB_ECHECK a check refused it;
 *                            AB_EFAIL bad input or I/O (nothing written)
 */
#ifndef AB_MERGE_H
#define AB_MERGE_H

#include <stddef.h>

struct ab_strv;

struct ab_merge_opts {
	char *const *shards;
	size_t nshards;
	const char *outdir;         /* must not exist */
	int move;                   /* move the variants' directories out of the shards instead of copying */
	int require_same_toolchain;
	struct ab_strv *merged;     /* non-NULL: the labels merged, in the plan's order, appended on success */
};

int ab_merge_run(const struct ab_merge_opts *o);

#endif
