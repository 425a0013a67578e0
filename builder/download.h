/*
 * download: bring a candidate file to a local temporary path while
 * hashing it: URLs through libcurl (https, http, file), local files by
 * copying. The caller decides from the hash whether to keep it.
 */
#ifndef AB_DOWNLOAD_H
#define AB_DOWNLOAD_H

/*
 * download url to fd (name in messages), sha256 hex of the bytes into
 * sha256; fd is neither synced nor closed: for a file of lib/atomic,
 * committed when the digest is the one expected; reports errors
 */
int ab_download_url_fd(char sha256[65], const char *url, int fd, const char *name);
/* the same for the local file src, copied */
int ab_download_copy_fd(char sha256[65], const char *src, int fd, const char *name);
/* download url to dest (created, O_EXCL), fsync, close; reports errors */
int ab_download_url(char sha256[65], const char *url, const char *dest);
/* copy the local file src to dest (created, O_EXCL), hashing it, fsync, close; reports errors */
int ab_download_copy(char sha256[65], const char *src, const char *dest);
/* at the end, after the last download (libcurl is loaded and initialised by the first) */
void ab_download_cleanup(void);

#endif
