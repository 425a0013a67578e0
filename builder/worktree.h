/*
 * worktree: an index of a materialized source tree, like git's index:
 * for every file, symlink and directory its path, mode, size, mtime,
 * ctime, inode and the SHA-256 of its content (of its target for a
 * symlink). It gives the tree's in-toto dirHash (lib/hash.h) and
 * lets a later run verify the tree cheaply: an entry whose stat data is
 * unchanged (and not racily close to the time the index was recorded) is
 * trusted; any other entry is re-hashed; missing or extra entries or a
 * different mode or content mean the tree changed.
 */
#ifndef AB_WORKTREE_H
#define AB_WORKTREE_H

#include <stdint.h>
#include <sys/types.h>

#include "../lib/util.h"

struct ab_wt_entry {
	char *path;       /* relative, '/'-separated */
	unsigned mode;    /* st_mode */
	uint64_t size, ino;
	int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
	char hash[65];    /* sha256 hex of the content or link target, "" for directories */
};

struct ab_wt_index {
	struct ab_wt_entry *v;
	size_t n, cap;
	char dirhash[65]; /* in-toto dirHash of the regular files */
};

/* index every entry below dir, hashing regular files with jobs threads (<= 0: ab_hash_default_jobs) */
int ab_wt_index_build(struct ab_wt_index *idx, const char *dir, int jobs);
/*
 * the same, taking the content hash of a file or symlink from hint (sorted
 * by path) when it is there with the same type and size: for a tree this
 * process has just written and hashed while writing
 */
int ab_wt_index_build_hinted(struct ab_wt_index *idx, const char *dir, int jobs, const struct ab_wt_index *hint);
/* build a hint: add entries (hash may be NULL), then sort */
void ab_wt_index_add(struct ab_wt_index *idx, const char *path, unsigned mode, uint64_t size, const char *hash);
void ab_wt_index_sort(struct ab_wt_index *idx);
void ab_wt_index_free(struct ab_wt_index *idx);
/* serialise to / parse from text (one line per entry) */
void ab_wt_index_write(struct ab_buf *out, const struct ab_wt_index *idx);
int ab_wt_index_parse(struct ab_wt_index *idx, const char *text, size_t len);
/*
 * Does dir still match idx? 0: yes (*refreshed set when stat data was
 * updated after a re-hash found the same content); 1: no (*why says which
 * path and how; caller frees); -1: error (reported). `since` is the time
 * the index was recorded (seconds, nanoseconds): entries modified at or
 * after it are re-hashed, as git does for racily clean entries.
 */
int ab_wt_index_verify(struct ab_wt_index *idx, const char *dir, int64_t since_s, int64_t since_ns,
    int jobs, int *refreshed, char **why);
/* the dirHash of regular files only (the same as ab_hash_tree) */
void ab_wt_index_dirhash(char hex[65], const struct ab_wt_index *idx);

#endif
