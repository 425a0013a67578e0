/*
 * hash: SHA-256 of memory, files and directory trees (OpenSSL EVP, streaming).
 *
 * Hex digests are 64 lowercase characters plus NUL (AB_HEX_LEN + 1).
 * The tree hash is in-toto's dirHash:
 *   find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum | sha256sum
 * i.e. the SHA-256 of the lines "<hex>  <path>\n" for every regular file,
 * sorted bytewise by path. Symlinks and special files are not regular files
 * for find -type f, so they are left out (see docs/hashing.md).
 *
 * Every file is hashed by one read loop, ab_hash_fd_buf(), with a buffer
 * the caller owns (ab_hash_fd reads a big single file ahead on a second
 * thread): a loop over many files (lib/hash's tree, builder/worktree,
 * provenance/tree/tree) keeps one ab_hash_readbuf_new() per worker of its
 * thread pool (lib/pool.h), indexed by the worker number.
 */
#ifndef AB_HASH_H
#define AB_HASH_H

#include <stddef.h>
#include <stdint.h>

#include "dirwalk.h"

#define AB_HEX_LEN 64
/*
 * Bytes of a read buffer: large enough that syscalls are rare, small
 * enough to stay in the L2 cache between read() and the digest.
 */
#define AB_HASH_READBUF (256 * 1024)

struct ab_buf;
struct ab_sha256; /* opaque streaming context */

struct ab_sha256 *ab_sha256_new(void);
void ab_sha256_update(struct ab_sha256 *h, const void *p, size_t n);
/* write the hex digest and free the context */
void ab_sha256_final(char hex[AB_HEX_LEN + 1], struct ab_sha256 *h);

void ab_hash_buf(char hex[AB_HEX_LEN + 1], const void *p, size_t n);
/* a read buffer of AB_HASH_READBUF bytes, page-aligned; caller frees (free) */
void *ab_hash_readbuf_new(void);
/*
 * The one file-hash loop: the SHA-256 of what fd reads to its end, through
 * the caller's buf (ab_hash_readbuf_new), with posix_fadvise SEQUENTIAL
 * when more than one read is to come. expect is the size the caller's
 * fstat just gave for a regular file, or -1 (then fstat here): a short read
 * that reaches it ends the loop without the read() that returns 0. Reports
 * "cannot read '<name>'" and returns AB_EFAIL; with name NULL nothing is
 * reported and errno says why. *size may be NULL.
 */
int ab_hash_fd_buf(char hex[AB_HEX_LEN + 1], uint64_t *size, int fd, int64_t expect, const char *name,
    void *buf, size_t buflen);
/*
 * hash a regular file's bytes, streamed in constant memory (opened without
 * blocking; anything else, a fifo or a device, is refused: "'PATH' is not
 * a regular file"); reports errors; *size may be NULL
 */
int ab_hash_file(char hex[AB_HEX_LEN + 1], uint64_t *size, const char *path);
/*
 * The same with the caller's buffer of AB_HASH_READBUF bytes (NULL: as
 * ab_hash_file), the file opened with oflags added (O_NOFOLLOW, ...): for
 * loops over many files, one buffer per worker
 */
int ab_hash_file_buf(char hex[AB_HEX_LEN + 1], uint64_t *size, const char *path, int oflags, void *buf);
/*
 * The same for an open descriptor (a buffer of its own; a regular file of
 * 16 MiB or more read ahead by a second thread into a 4 MiB ring while
 * this one digests); name is used in error messages only
 */
int ab_hash_fd(char hex[AB_HEX_LEN + 1], uint64_t *size, int fd, const char *name);
/*
 * Hash the regular file rel below the directory rootfd, opened through
 * the one resolver (lib/dirwalk.h: ab_dirwalk_open_beneath with flags;
 * a symlink is followed only inside the directory) without blocking on a
 * fifo: 0, or -1 with errno set and the reason in why (AB_BENEATH_WHY
 * bytes): ENOENT for a missing file, EINVAL "not a regular file", EXDEV
 * or ELOOP for a path through a refused symlink. Reports nothing.
 */
int ab_hash_file_beneath(char hex[AB_HEX_LEN + 1], uint64_t *size, int rootfd, const char *rel, int flags,
    char *why);
/* one file of ab_hash_files_beneath: its digest, or why it has none */
struct ab_hash_result {
	char hex[AB_HEX_LEN + 1]; /* "" when the file was not hashed */
	uint64_t size;
	int err;                  /* 0, or the errno ab_hash_file_beneath would set */
	char *why;                /* with err, the reason it would give (caller frees); else NULL */
};
/*
 * ab_hash_file_beneath for rels[0 .. n-1], on up to jobs workers
 * (lib/pool; jobs <= 0: ab_hash_default_jobs(), so that the reads of a
 * cold directory overlap): every file tried, its outcome in res[i].
 * Reports nothing.
 */
void ab_hash_files_beneath(struct ab_hash_result *res, int rootfd, const char *const *rels, size_t n, int flags,
    int jobs);
/* a regular file of a tree, hashed (ab_hash_tree_files) */
struct ab_hash_tfile {
	char *path;                  /* relative to the root, '/'-separated */
	uint64_t size;
	unsigned mode;               /* st_mode of the file as it was read */
	char hex[AB_HEX_LEN + 1];
};
/*
 * The regular files of the directory tree dir, hashed: this thread walks
 * the tree (lib/dirwalk) while jobs - 1 threads of the pool (jobs <= 0:
 * ab_hash_default_jobs()) hash the files found so far, each opened relative to
 * the root with O_NOFOLLOW, checked to be still a regular file and read
 * by the one file-hash loop; then this thread hashes too. Every entry
 * that is not a regular file goes to other (during the walk, on this
 * thread), whose answer the walk takes (AB_DIRWALK_DESCEND to list a
 * directory, -1 to stop after reporting); other NULL descends into every
 * directory. *files holds *n entries sorted bytewise by path (LC_ALL=C
 * sort), freed with ab_hash_tfiles_free. A file that cannot be hashed does
 * not stop the others; the first in path order is reported:
 * "cannot open '<dir>/<path>'", "cannot read ...", "cannot hash '...': no
 * longer a regular file".
 */
int ab_hash_tree_files(struct ab_hash_tfile **files, size_t *n, const char *dir, int jobs,
    ab_dirwalk_fn *other, void *arg);
/* free what ab_hash_tree_files gave (NULL: nothing) */
void ab_hash_tfiles_free(struct ab_hash_tfile *files, size_t n);
/*
 * Many files at once: paths[0 .. n-1], opened as given (relative to the
 * working directory) with oflags added (O_NOFOLLOW, ...), hashed on up to
 * jobs workers (lib/pool; jobs <= 0: ab_hash_default_jobs()) the way the tree hash
 * does, up to AB_SHA256X_LANES files together per worker with SHA-NI.
 * hex[i] and size[i] (size may be NULL) are set for each. Every file is
 * tried; each that cannot be hashed is reported ("cannot open 'P'",
 * "cannot read 'P'", "cannot hash 'P': not a regular file"), in the order
 * of paths, and then -1 is returned with hex undefined. Else 0.
 */
int ab_hash_files(char (*hex)[AB_HEX_LEN + 1], uint64_t *size, const char *const *paths, size_t n,
    int oflags, int jobs);
/* in-toto dirHash of a directory; jobs <= 0: ab_hash_default_jobs(); reports errors */
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
/*
 * Read such a line back (n bytes, without its newline; line[n], its
 * newline or NUL, is written) in place: *hex gets its digest
 * (NUL-terminated), *name its name, unescaped. 0, or -1 when it is no
 * line of a SHA256SUMS file (short, no two spaces, not lowercase hex, an
 * escape sha256sum does not write, an empty name). OUTDIR's SHA256SUMS
 * and a bundle's BUNDLE-SHA256SUMS are written with ab_hash_line and read
 * with this.
 */
int ab_hash_line_parse(char *line, size_t n, char **hex, char **name);

/*
 * The dirHash fold, the one copy (a tree on disk, an archive's or git
 * tree's entries, a worktree index): the SHA-256 of the sha256sum lines
 * (ab_hash_line) of the regular files, added in path order (strcmp).
 *
 *   struct ab_dirhash *d = ab_dirhash_new();
 *   for each regular file in path order: ab_dirhash_add(d, its_hex, path);
 *   ab_dirhash_final(hex, d);   frees d
 */
struct ab_dirhash;
struct ab_dirhash *ab_dirhash_new(void);
void ab_dirhash_add(struct ab_dirhash *d, const char *hex, const char *path);
void ab_dirhash_final(char hex[AB_HEX_LEN + 1], struct ab_dirhash *d);
/*
 * The workers that hash a tree or a list of files when the caller gives
 * no job count (jobs <= 0): four per core this process may run on, at most
 * 32 beyond the cores, so that files read from the disk overlap
 */
int ab_hash_default_jobs(void);

#endif
