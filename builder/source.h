/*
 * source: pinned sources. The cache, git pins (libgit2), archives
 * (libarchive, secure extraction), mirrors, patches, prepare steps and
 * overlays, and the sources.json manifest.
 *
 * Calling protocol (fetch and build):
 *   struct ab_source_opts o;
 *   ab_source_opts_init(&o);                  defaults and environment
 *   ... its fields set from the command line (cli/cmdopts.h)
 *   ab_source_fetch(rec, &o, recipe, src)      into the cache, locked
 *   ab_source_materialize(rec, &o, recipe, src, dest)
 *                                              a fresh tree for one variant
 *   ab_source_opts_release(&o);
 *
 * Records are cJSON objects that the functions fill in and that
 * sources.json embeds (docs/sources.md). A fetch record describes a
 * source's pinned bytes; a materialize record describes one variant's
 * tree (its base, overlays, patches, prepare steps and final dirHash).
 * Both functions may be called with the same or different records.
 *
 * The whole job of `fetch` (and the source stage of `build`):
 *   cJSON *m = ab_sources_manifest_new(recipe);
 *   ab_source_variants(m, &o, recipe, outdir, order, norder);
 *   ab_sources_manifest_write(m, outdir);     OUTDIR/provenance/sources.json
 *   cJSON_Delete(m);
 *
 * Mirrors (--mirror FROM=TO, repeatable, and ALLOCBUILD_MIRRORS, a list of
 * FROM=TO separated by whitespace) rewrite a URL that starts with FROM to
 * TO followed by the rest of the URL, as git's url.TO.insteadOf=FROM does;
 * the longest FROM wins, and a --mirror wins over ALLOCBUILD_MIRRORS for
 * the same FROM. They apply to git URLs and to archive URLs.
 */
#ifndef AB_SOURCE_H
#define AB_SOURCE_H

#include <cjson/cJSON.h>

#include "recipe.h"
#include "../lib/util.h"
#include "../provenance/record/fetchrec.h"

struct ab_hash_tfile;
struct ab_source_state; /* private: the cache, its lock, records of this run */

struct ab_source_opts {
	char *cache_dir;            /* --cache, ALLOCBUILD_CACHE, $XDG_CACHE_HOME/allocbuild, ~/.cache/allocbuild */
	struct ab_strv mirrors;     /* "FROM=TO" (git insteadOf): --mirror, ALLOCBUILD_MIRRORS */
	struct ab_strv mirror_dirs; /* --mirror-dir */
	int allow_unpinned;
	int jobs;                   /* threads for hashing trees and writing them; 0: the defaults */
	char *log_dir;              /* prepare logs; NULL: <dirname of dest>/logs */
	int no_sandbox;             /* prepare commands run without the build sandbox (--no-sandbox) */
	struct ab_source_state *state;
};

void ab_source_opts_init(struct ab_source_opts *o);
void ab_source_opts_release(struct ab_source_opts *o);

/*
 * make the source's pinned bytes present in the cache (once per process);
 * *out is its fetch record (provenance/record/fetchrec.h: commit and tree, or
 * sha256, or dirHash; origin), the caller's to free with
 * ab_fetch_record_free. 0; AB_ECHECK when no channel has the pinned bytes
 * (a failed fetch, no candidate with the sha256); AB_EFAIL for bad input
 * (an unpinned ref without allow_unpinned) or a failed environment;
 * reported
 */
int ab_source_fetch(struct ab_fetch_record **out, const struct ab_source_opts *o, const struct ab_recipe *r,
    const struct ab_source *s);
/*
 * Write a fresh tree of the source at dest (which must not exist), apply its
 * patches, overlays and prepare steps; fills rec (patch hashes, dirHash
 * before and after, prepare commands, overlays, final dirHash). On failure
 * nothing is left at dest.
 *
 * dest may also be an earlier materialization, recognised by its stamp
 * <dest>.stamp: when the stamp's inputs (commit and tree, or sha256 and
 * strip; overlays; patch hashes; prepare argvs) are the same and the tree
 * still matches the stamp's index (docs/sources.md), dest is kept and rec
 * is the stamp's record with "reused": true; otherwise dest is replaced.
 * The tree is built in a temporary directory next to dest and renamed.
 * Fetches the source first when this process has not.
 */
int ab_source_materialize(cJSON *rec, const struct ab_source_opts *o, const struct ab_recipe *r,
    const struct ab_source *s, const char *dest);

/*
 * `fetch --check-patches`: fetch s, build its tree (with overlays) in a
 * temporary directory, apply its patches there in order and remove it.
 * 0 when every patch applies (or s has none); reports the first failure.
 */
int ab_source_check_patches(const struct ab_source_opts *o, const struct ab_recipe *r,
    const struct ab_source *s);

/*
 * The source stage of fetch and build: fetch the sources of the build
 * variants r->variants[variants[i]] (other kinds are skipped) and of
 * their overlays, materialize each at OUTDIR/variants/<label>/src, and
 * add the records to the manifest m. Stops at the first failure.
 */
int ab_source_variants(cJSON *m, const struct ab_source_opts *o, const struct ab_recipe *r,
    const char *outdir, const size_t *variants, size_t nvariants);

/*
 * The regular files of the source tree dir with their digests, in path
 * order, from the index its stamp holds (the tree as fetch wrote it),
 * when stat data shows the tree unchanged (a racily clean or changed
 * entry re-hashed, as git checks its index, and the stamp's stat data
 * refreshed when it can be): 0 and *files, *n set (free with
 * ab_hash_tfiles_free); 1 when dir has no readable stamp or no longer
 * matches it; AB_EFAIL reported. For sign's in-toto links
 * (provenance/attest/intoto.h: ab_intoto_tree_fn).
 */
int ab_source_tree_files(struct ab_hash_tfile **files, size_t *n, const char *dir);

/* sources.json: a new manifest for r (caller frees with cJSON_Delete) */
cJSON *ab_sources_manifest_new(const struct ab_recipe *r);
/*
 * Add the fetch record of s under "sources"/<id>, with the source's
 * "patches" and "overlay" as the recipe writes them (when it has any), and
 * a materialize record under "variants"/label; both take rec.
 */
void ab_sources_manifest_add_source(cJSON *m, const struct ab_source *s, cJSON *rec);
void ab_sources_manifest_add_variant(cJSON *m, const char *label, cJSON *rec);
/* write m to OUTDIR/provenance/sources.json atomically; reports errors */
int ab_sources_manifest_write(const cJSON *m, const char *outdir);

#endif
