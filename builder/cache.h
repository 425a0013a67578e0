/*
 * cache: the shared cache directory and its lock.
 *
 *   CACHE/lock                     flock: shared for readers, exclusive for writers
 *   CACHE/tmp/                     temporary names; emptied under the exclusive lock
 *   CACHE/git/<sha256 of url>.git  one bare repository per canonical URL
 *   CACHE/archives/sha256/<hex>    archives, content-addressed
 *   CACHE/archives/origin/<hex>    where the cached bytes came from (one line)
 *
 * Every write goes to a temporary name under CACHE/tmp (or libgit2's own
 * temporary and lock files) and is renamed into place when complete, so an
 * interrupted process (SIGINT, kill -9) leaves only stale temporaries, which
 * the next exclusive locker removes.
 *
 * The lock is per process and counted: nested ab_cache_lock() calls are
 * cheap, and the outermost ab_cache_unlock() releases it. A process that
 * has to wait says so on stderr, naming the holder's pid.
 *
 * A cache this process may not write (a pre-filled cache on a read-only
 * file system or without write permission) is used read-only: an
 * exclusive lock becomes a shared one (none when its lock file cannot be
 * read either), and only what the cache holds can be used; a source it
 * lacks fails when it is stored.
 */
#ifndef AB_CACHE_H
#define AB_CACHE_H

struct ab_cache {
	char *dir;     /* absolute */
	int lock_fd;
	int exclusive; /* the lock held is exclusive */
	int depth;     /* nesting of ab_cache_lock() */
	int readonly;  /* this process may not write the cache: only what it holds is used */
};

/* dir from --cache (may be NULL): else ALLOCBUILD_CACHE, XDG_CACHE_HOME/allocbuild, ~/.cache/allocbuild; caller frees */
char *ab_cache_default_dir(const char *option);
void ab_cache_init(struct ab_cache *c, const char *dir);
void ab_cache_release(struct ab_cache *c);
/*
 * Take the cache lock (creating the cache directory), shared or exclusive;
 * waits for another holder and says so. An exclusive locker also removes
 * stale temporaries left by interrupted processes. Reports errors.
 */
int ab_cache_lock(struct ab_cache *c, int exclusive);
void ab_cache_unlock(struct ab_cache *c);
/* a fresh temporary path under CACHE/tmp (not created); caller frees */
char *ab_cache_tmp_path(const struct ab_cache *c, const char *hint);
/* CACHE/archives/sha256/<hex>; caller frees */
char *ab_cache_archive_path(const struct ab_cache *c, const char *sha256);
/* read or write the origin line of a cached archive (NULL when unknown; caller frees) */
char *ab_cache_archive_origin(const struct ab_cache *c, const char *sha256);
int ab_cache_set_archive_origin(const struct ab_cache *c, const char *sha256, const char *origin);
/* CACHE/git/<sha256 of url>.git; caller frees */
char *ab_cache_git_path(const struct ab_cache *c, const char *url);

#endif
