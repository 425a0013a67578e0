/*
 * bz2: parallel decoding of a bzip2 file held in memory.
 *
 * A bzip2 stream is a sequence of independently compressed blocks, each
 * starting with the 48-bit magic 0x314159265359 at any bit offset. Each
 * block is cut out, wrapped as a stream of its own (header, block, end
 * marker, the block's CRC as the stream CRC) and decoded by libbz2 on a
 * thread of the pool (lib/pool.h); the reader gets the decoded blocks
 * in order. libbz2 checks every block's CRC, so a false magic or a corrupt
 * block is an error, never wrong data: the caller then falls back to the
 * sequential decoder (libarchive), which reports the problem properly.
 *
 *   struct ab_bz2 *z;
 *   if (ab_bz2_open(&z, data, len, 2) == 0) {     0: parallel decoding started
 *           while ((n = ab_bz2_read(z, &p)) > 0)  ... n bytes at p ...
 *           (n < 0: decoding failed)
 *           ab_bz2_free(z);
 *   }                                             1: not worth it, or not bzip2
 *
 * data must stay valid until ab_bz2_free. Nothing is reported on stderr.
 */
#ifndef AB_BZ2_H
#define AB_BZ2_H

#include <stddef.h>
#include <sys/types.h>

struct ab_bz2;

/* 0 started, 1 not a multi-block bzip2 stream (use the sequential decoder) */
int ab_bz2_open(struct ab_bz2 **out, const unsigned char *data, size_t len, int jobs);
/* the next decoded bytes, valid until the next call; 0 at the end, -1 on a decoding error */
ssize_t ab_bz2_read(struct ab_bz2 *z, const void **buf);
void ab_bz2_free(struct ab_bz2 *z);

#endif
