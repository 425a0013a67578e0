/*
 * source: pinned sources. The cache, git pins (libgit2), archives
 * (libarchive, secure extraction), mirrors, patches, prepare steps and
 * overlays, and the sources.json manifest.
 *
 * Calling protocol (fetch and build):
 *   struct ab_source_opts o;
 *   ab_source_opts_init(&o);                  defaults and environment
 *   ... getopt_long with AB_SOURCE_LONGOPTS; for each option
 *       ab_source_opts_option(&o, opt, optarg) (1 when it was one of ours)
 *   ab_source_fetch(rec, &o, recipe, src)      into the cache, locked
 *   ab_source_materialize(rec, &o, recipe, src, dest)
 *                                              a fresh tree for one variant
 *   ab_source_opts_release(&o);
 *
 * Records are cJSON objects that the functions fill in and that
 * sources.json embeds (docs/manifests.md).
 */
#ifndef AB_SOURCE_H
#define AB_SOURCE_H

#include <cjson/cJSON.h>
#include <getopt.h>

#include "recipe.h"
#include "util.h"

enum {
	AB_OPT_CACHE = 0x1000,
	AB_OPT_MIRROR,
	AB_OPT_MIRROR_DIR,
	AB_OPT_ALLOW_UNPINNED,
};

#define AB_SOURCE_LONGOPTS                                                   \
	{"cache", required_argument, NULL, AB_OPT_CACHE},                    \
	{"mirror", required_argument, NULL, AB_OPT_MIRROR},                  \
	{"mirror-dir", required_argument, NULL, AB_OPT_MIRROR_DIR},          \
	{"allow-unpinned", no_argument, NULL, AB_OPT_ALLOW_UNPINNED}

struct ab_source_opts {
	char *cache_dir;            /* --cache, ALLOCBUILD_CACHE, $XDG_CACHE_HOME/allocbuild, ~/.cache/allocbuild */
	struct ab_strv mirrors;     /* "FROM=TO" (git insteadOf): --mirror, ALLOCBUILD_MIRRORS */
	struct ab_strv mirror_dirs; /* --mirror-dir */
	int allow_unpinned;
};

void ab_source_opts_init(struct ab_source_opts *o);
/* handle one getopt_long result; 1 handled, 0 not ours, -1 bad value (reported) */
int ab_source_opts_option(struct ab_source_opts *o, int opt, const char *arg);
void ab_source_opts_release(struct ab_source_opts *o);

/* make the source's pinned bytes present in the cache; fills rec (commit, tree or sha256, origin) */
int ab_source_fetch(cJSON *rec, const struct ab_source_opts *o, const struct ab_recipe *r,
    const struct ab_source *s);
/*
 * Write a fresh tree of the source at dest (which must not exist), apply its
 * patches, overlays and prepare steps; fills rec (patch hashes, dirHash
 * before and after, prepare commands, overlays, final dirHash). On failure
 * nothing is left at dest.
 */
int ab_source_materialize(cJSON *rec, const struct ab_source_opts *o, const struct ab_recipe *r,
    const struct ab_source *s, const char *dest);

#endif
