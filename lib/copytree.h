/*
 * copytree: copy a directory tree: directories, regular files (bytes and
 * permission bits) and symbolic links (as links, never followed); anything
 * else (a fifo, a device, a socket) is refused. What `merge` copies of a
 * shard's OUTDIR, and (AB_COPY_SAME) what a derived variant copies of its
 * lead's trees (builder/derive.h).
 */
#ifndef AB_COPYTREE_H
#define AB_COPYTREE_H

/* copy src to dst, which must not exist; 0 or AB_EFAIL (reported) */
int ab_copy_tree(const char *src, const char *dst);

/*
 * The copy a build can go on from: every file, link and directory keeps
 * its modification time (make and CMake compare them), and a regular
 * file is cloned (FICLONE: shared blocks, copied on write, never a hard
 * link that a later build step rewriting a file in place would change in
 * both trees) where the file system can, else copied
 */
#define AB_COPY_SAME 0x1
/* ab_copy_tree with flags; *cloned (may be NULL) counts the files cloned rather than copied */
int ab_copy_tree_flags(const char *src, const char *dst, unsigned flags, size_t *cloned);
/* copy one regular file (bytes and mode) to dst, replacing it; 0 or AB_EFAIL (reported) */
int ab_copy_file(const char *src, const char *dst);

#endif
