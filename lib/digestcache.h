/*
 * digestcache: the SHA-256 of a file, remembered by what the kernel says of
 * the file, as git's index and Bazel's digest cache remember theirs. An
 * entry holds the digest with the file's device, inode, size, mtime and
 * ctime, sampled before and after the hash; a later lookup whose stat
 * matches all five returns the digest without reading the file. ctime
 * cannot be set from user space: a write, a chmod or a rename onto the
 * path moves it (a rename onto the path also changes the inode), touch -r
 * included. An entry is stored only when the file's last change is older
 * than the hash's start by AB_DIGESTCACHE_SETTLE_MS, so a change in the
 * same timestamp tick as the sampling cannot hide behind an equal ctime.
 *
 * The entries live in one text file, DIR/digests, a line per absolute
 * path ("sha256 dev ino size mtime_ns ctime_ns hashed_at_ms path"), at
 * most AB_DIGESTCACHE_MAX of them (the oldest go first), rewritten
 * atomically; a missing, unreadable or unwritable file only means hashing.
 * verify never uses this: it re-reads every byte.
 */
#ifndef AB_DIGESTCACHE_H
#define AB_DIGESTCACHE_H

#include <stdint.h>

#include "hash.h"

#define AB_DIGESTCACHE_FILE "digests"
#define AB_DIGESTCACHE_MAX 4096
#define AB_DIGESTCACHE_SETTLE_MS 1000

/*
 * the SHA-256 of path into hex: from the cache in dir when an entry's stat
 * matches and rehash is 0, else by reading the file (then stored in the
 * cache when it settled); *cached says which, *hashed_at_ms when the bytes
 * were last read (UTC, milliseconds). dir NULL: no cache. 0, or AB_EFAIL
 * after reporting that path cannot be read.
 */
int ab_digestcache_hash(char hex[AB_HEX_LEN + 1], int *cached, int64_t *hashed_at_ms, const char *path,
    const char *dir, int rehash);

#endif
