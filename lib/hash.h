/*
 * hash: SHA-256 of memory, files and directory trees (OpenSSL EVP, streaming).
 *
 * Hex digests are 64 lowercase characters plus NUL (AB_HEX_LEN + 1).
 * The tree hash is in-toto's dirHash:
 *   find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum
 * i.e. the SHA-256 of the lines "<hex>  <path>\n" for every regular file,
 * sorted bytewise by path. Symlinks and special files are not regular files
 * for find -type f, so they are left out (see docs/hashing.md).
 */
#ifndef AB_HASH_H
#define AB_HASH_H

#include <stddef.h>
#include <stdint.h>

#define AB_HEX_LEN 64

struct ab_buf;
struct ab_sha256; /* opaque streaming context */

struct ab_sha256 *ab_sha256_new(void);
void ab_sha256_update(struct ab_sha256 *h, const void *p, size_t n);
/* write the hex digest and free the context */
void ab_sha256_final(char hex[AB_HEX_LEN + 1], struct ab_sha256 *h);

void ab_hash_buf(char hex[AB_HEX_LEN + 1], const void *p, size_t n);
/* hash a file's bytes, streamed in constant memory; reports errors; *size may be NULL */
int ab_hash_file(char hex[AB_HEX_LEN + 1], uint64_t *size, const char *path);
/* the same for an open descriptor; name is used in error messages only */
int ab_hash_fd(char hex[AB_HEX_LEN + 1], uint64_t *size, int fd, const char *name);
/* in-toto dirHash of a directory; jobs <= 0 means one per online core; reports errors */
int ab_hash_tree(char hex[AB_HEX_LEN + 1], const char *dir, int jobs);
/* the same, also counting the regular files and their bytes; files, bytes may be NULL */
int ab_hash_tree_count(char hex[AB_HEX_LEN + 1], uint64_t *files, uint64_t *bytes,
    const char *dir, int jobs);
/*
 * Append the line GNU sha256sum (coreutils 9.1) prints for a file name:
 * "<hex>  <name>\n", or, when the name holds a backslash, newline or
 * carriage return, "\<hex>  <escaped name>\n" with those written as
 * \\, \n and \r.
 */
void ab_hash_line(struct ab_buf *b, const char *hex, const char *name);
/* online cores this process may run on (affinity mask), at least 1 */
int ab_hash_default_jobs(void);

#endif
