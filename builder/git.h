/*
 * git: pinned commits through libgit2. The cache holds one bare
 * repository per canonical URL (CACHE/git/<sha256 of url>.git); it is
 * fetched only when the pinned commit is missing (always for an unpinned
 * ref). Mirrors map URL prefixes like git's url.<TO>.insteadOf=<FROM>.
 * Trees are written by iterating the pinned tree and writing blobs
 * directly, with several threads, into a directory the caller provides.
 */
#ifndef AB_GIT_H
#define AB_GIT_H

#include <stddef.h>

#include "cache.h"

struct ab_git_pin {
	char commit[41];
	char tree[41];
	char *ref;          /* the ref an unpinned source resolved, else NULL */
	char *ref_kind;     /* "branch", "tag" or "annotated tag", else NULL */
	char *fetched_from; /* the URL fetched in this run, else NULL */
	char *origin;       /* where the cached objects came from (last fetch URL) */
};

void ab_git_pin_release(struct ab_git_pin *p);
/* url rewritten by the longest matching "FROM=TO" prefix, or a copy of url; caller frees */
char *ab_git_mirror_url(char *const *mirrors, size_t n, const char *url);
/*
 * Make `want` (40 hex digits, or a branch or tag name when unpinned) of
 * the repository at canonical `url` present in the cache, fetching from
 * fetch_url when needed; fills pin. Caller holds the exclusive cache lock.
 */
int ab_git_fetch(struct ab_git_pin *pin, struct ab_cache *c, const char *url, const char *fetch_url,
    const char *want, int unpinned);
/* is the commit (with its tree) in the cached repository of url? fills pin->tree */
int ab_git_have(struct ab_git_pin *pin, struct ab_cache *c, const char *url, const char *commit);
struct ab_wt_index;
/*
 * write the tree (40 hex) of the cached repository of url into the existing
 * empty dir dest with `jobs` threads (<= 0: one per core; 1 is best on
 * most machines, as for git's checkout.workers: threads creating files
 * in parallel contend in the kernel); hint (may be NULL) receives the path, size and sha256 of
 * every file and symlink written (for ab_wt_index_build_hinted)
 */
int ab_git_write_tree(struct ab_cache *c, const char *url, const char *tree, const char *dest, int jobs,
    struct ab_wt_index *hint);

#endif
