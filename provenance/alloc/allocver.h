/*
 * allocver: allocator version strings. The version jemalloc's configure
 * invents when it finds neither a VERSION file nor a git tag, the one test
 * for it (used by the artifact records of a build, the jemalloc probe and
 * upstream-diff, so that they never disagree), and the scan that finds a
 * jemalloc-style version string in a binary's bytes.
 */
#ifndef AB_ALLOCVER_H
#define AB_ALLOCVER_H

#include <stddef.h>

/* the version jemalloc's configure makes up when it finds no VERSION and no git tag */
#define AB_JEMALLOC_BOGUS_VERSION "0.0.0-0-g000000missing_version_try_git_fetch_tags"

/*
 * Is this jemalloc version string the bogus one configure invents
 * (AB_JEMALLOC_BOGUS_VERSION, or any "0.0.0-0-g..." version)? Leading and
 * trailing white space is ignored; NULL is not bogus (it is absent).
 */
int ab_jemalloc_version_is_bogus(const char *version);

/*
 * The first jemalloc-style version string (X.Y.Z-N-gHASH, including the
 * bogus one) embedded in a file's bytes; *version NULL when none. Caller
 * frees. 0, or AB_EFAIL after reporting an unreadable file.
 */
int ab_allocver_scan(char **version, const char *path);
/* the same over len bytes in memory (a section, an archive); 0 */
int ab_allocver_scan_mem(char **version, const void *data, size_t len);

/*
 * mimalloc's MI_MALLOC_VERSION number as "X.Y.Z": 209 -> 2.0.9, 217 -> 2.1.7,
 * 3208 -> 3.2.8, 20401 -> 2.4.1 (releases encode it inconsistently); NULL
 * for a number that is not one; caller frees
 */
char *ab_mimalloc_version_string(long mi_version);

#endif
