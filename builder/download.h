/*
 * download: bring a candidate file to a local temporary path while
 * hashing it: URLs through libcurl (https, http, file), local files by
 * copying. The caller decides from the hash whether to keep it.
 */
#ifndef AB_DOWNLOAD_H
#define AB_DOWNLOAD_H

#include <stdint.h>

/*
 * Every download stops at max bytes (a source's limit: builder/recipe.h,
 * archive.max_size_mib): past it, the function returns
 * AB_DOWNLOAD_TOO_LARGE without reporting (the caller names the source
 * and removes what was written); 0 when done, AB_EFAIL when it failed
 * (reported: a network error, a local file that is not a regular one,
 * which is never opened for reading so that a fifo cannot hang it).
 */
#define AB_DOWNLOAD_TOO_LARGE 1

/*
 * download url to fd (name in messages), sha256 hex of the bytes into
 * sha256; fd is neither synced nor closed: for a file of lib/atomic,
 * committed when the digest is the one expected
 */
int ab_download_url_fd(char sha256[65], const char *url, int fd, const char *name, uint64_t max);
/* the same for the local file src, copied */
int ab_download_copy_fd(char sha256[65], const char *src, int fd, const char *name, uint64_t max);
/* download url to dest (created, O_EXCL), fsync, close */
int ab_download_url(char sha256[65], const char *url, const char *dest, uint64_t max);
/* copy the local file src to dest (created, O_EXCL), hashing it, fsync, close */
int ab_download_copy(char sha256[65], const char *src, const char *dest, uint64_t max);
/* at the end, after the last download (libcurl is loaded and initialised by the first) */
void ab_download_cleanup(void);

#endif
