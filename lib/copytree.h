/*
 * copytree: copy a directory tree: directories, regular files (bytes and
 * permission bits) and symbolic links (as links, never followed); anything
 * else (a fifo, a device, a socket) is refused. What `merge` copies of a
 * shard's OUTDIR.
 */
#ifndef AB_COPYTREE_H
#define AB_COPYTREE_H

/* copy src to dst, which must not exist; 0 or AB_EFAIL (reported) */
int ab_copy_tree(const char *src, const char *dst);
/* copy one regular file (bytes and mode) to dst, replacing it; 0 or AB_EFAIL (reported) */
int ab_copy_file(const char *src, const char *dst);

#endif
