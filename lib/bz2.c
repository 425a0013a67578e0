#include "bz2.h"

#include <bzlib.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pool.h"
#include "util.h"

#define BLOCK_MAGIC 0x314159265359ULL
#define EOS_MAGIC 0x177245385090ULL
#define MAGIC_MASK 0xffffffffffffULL

enum {
	LOOKAHEAD = 4, /* decoded blocks held ahead of the reader, per worker */
	MAX_THREADS = 8,
};

struct block {
	uint64_t start, end;  /* bit offsets: the block magic, the next magic */
	unsigned char *out;   /* decoded bytes once done */
	size_t len;
	int state;            /* 0 waiting, 1 decoding, 2 done, -1 failed */
};

struct ab_bz2 {
	const unsigned char *data;
	size_t len;
	struct block *b;
	size_t n, cur;        /* blocks; next to read */
	int stop, failed, jobs;
	pthread_mutex_t lock;
	pthread_cond_t cv;
	struct ab_pool *pool; /* the decoders (lib/pool.h), blocks handed out in order */
};

/* the 64 bits starting at byte i, big-endian, zero-padded past the end */
static uint64_t
window(const unsigned char *p, size_t len, size_t i)
{
	uint64_t w = 0;

	for (size_t k = 0; k < 8; k++)
		w = (w << 8) | (i + k < len ? p[i + k] : 0);
	return w;
}

/*
 * Bit offsets of block and end-of-stream magics. A byte table of the
 * second byte each of the 8 bit shifts of each magic would put at i + 1
 * keeps the full 48-bit compare rare.
 */
static void
find_magics(struct ab_bz2 *z, uint64_t **eos, size_t *neos)
{
	static const uint64_t magic[2] = {BLOCK_MAGIC, EOS_MAGIC};
	uint16_t table[256] = {0};
	size_t cap = 0, ecap = 0;

	for (int m = 0; m < 2; m++)
		for (int s = 0; s < 8; s++) {
			/* the magic at bit s of byte i: byte i + 1 holds its bits 8 - s .. 15 - s */
			unsigned byte = (unsigned)((magic[m] >> (48 - 16 + s)) & 0xff);

			table[byte] |= (uint16_t)(1u << (m * 8 + s));
		}
	*eos = NULL;
	*neos = 0;
	for (size_t i = 0; i + 7 <= z->len; i++) {
		uint16_t hit = table[z->data[i + 1]];
		uint64_t w;

		if (!hit)
			continue;
		w = window(z->data, z->len, i);
		for (int m = 0; m < 2; m++)
			for (int s = 0; s < 8; s++) {
				if (!(hit & (1u << (m * 8 + s))))
					continue;
				if (((w >> (16 - s)) & MAGIC_MASK) != magic[m])
					continue;
				if (m == 0) {
					if (z->n == cap) {
						cap = cap ? cap * 2 : 64;
						z->b = ab_realloc(z->b, cap * sizeof(*z->b));
					}
					memset(&z->b[z->n], 0, sizeof(*z->b));
					z->b[z->n++].start = (uint64_t)i * 8 + (uint64_t)s;
				} else {
					if (*neos == ecap) {
						ecap = ecap ? ecap * 2 : 8;
						*eos = ab_realloc(*eos, ecap * sizeof(**eos));
					}
					(*eos)[(*neos)++] = (uint64_t)i * 8 + (uint64_t)s;
				}
			}
	}
}

static unsigned
get_bits(const unsigned char *p, uint64_t pos, int n)
{
	unsigned v = 0;

	for (int k = 0; k < n; k++, pos++)
		v = (v << 1) | ((p[pos >> 3] >> (7 - (pos & 7))) & 1);
	return v;
}

struct bitw {
	unsigned char *p;
	uint64_t pos;
};

static void
put_bits(struct bitw *w, uint64_t v, int n)
{
	while (n--) {
		if (!(w->pos & 7))
			w->p[w->pos >> 3] = 0;
		if ((v >> n) & 1)
			w->p[w->pos >> 3] |= (unsigned char)(0x80 >> (w->pos & 7));
		w->pos++;
	}
}

/* the block as a stream of its own, decoded into b->out */
static int
decode_block(const struct ab_bz2 *z, struct block *b)
{
	uint64_t nbits = b->end - b->start;
	size_t nbytes = (size_t)((nbits + 7) / 8);
	unsigned char *s = ab_malloc(4 + nbytes + 16);
	unsigned shift = (unsigned)(b->start & 7);
	const unsigned char *src = z->data + (b->start >> 3);
	size_t avail = z->len - (size_t)(b->start >> 3);
	unsigned crc = get_bits(z->data, b->start + 48, 32);
	struct bitw w;
	bz_stream st;
	size_t cap = 1 << 20;
	int rc, error = -1;

	memcpy(s, "BZh9", 4);
	for (size_t j = 0; j < nbytes; j++) {
		unsigned hi = j < avail ? src[j] : 0, lo = j + 1 < avail ? src[j + 1] : 0;

		s[4 + j] = (unsigned char)(shift ? (hi << shift) | (lo >> (8 - shift)) : hi);
	}
	w.p = s;
	w.pos = 32 + nbits;
	/* clear the bits after the block in its last byte, then the end marker and the CRC */
	if (w.pos & 7)
		s[w.pos >> 3] &= (unsigned char)(0xff << (8 - (w.pos & 7)));
	put_bits(&w, EOS_MAGIC >> 16, 32);
	put_bits(&w, EOS_MAGIC & 0xffff, 16);
	put_bits(&w, crc, 32);
	memset(&st, 0, sizeof(st));
	if (BZ2_bzDecompressInit(&st, 0, 0) != BZ_OK) {
		free(s);
		return -1;
	}
	b->out = ab_malloc(cap);
	st.next_in = (char *)s;
	st.avail_in = (unsigned)((w.pos + 7) / 8);
	for (;;) {
		st.next_out = (char *)b->out + b->len;
		st.avail_out = (unsigned)(cap - b->len);
		rc = BZ2_bzDecompress(&st);
		b->len = cap - st.avail_out;
		if (rc == BZ_STREAM_END) {
			error = 0;
			break;
		}
		if (rc != BZ_OK || (st.avail_in == 0 && st.avail_out != 0))
			break;
		if (st.avail_out == 0) {
			cap *= 2;
			b->out = ab_realloc(b->out, cap);
		}
	}
	BZ2_bzDecompressEnd(&st);
	free(s);
	return error;
}

/*
 * One block, on a thread of the pool. Blocks are handed out in order; a
 * decoder waits while its block is more than LOOKAHEAD blocks per thread
 * ahead of the reader, so memory stays bounded. A block that fails to
 * decode is marked so and does not stop the pool: the reader must still
 * get every block before it, then the failure; only the reader stops the
 * decoders (z->stop), and then what is left is not needed.
 */
static int
decode_item(void *arg, size_t i, int worker)
{
	struct ab_bz2 *z = arg;
	int rc;

	(void)worker;
	pthread_mutex_lock(&z->lock);
	while (!z->stop && i >= z->cur + (size_t)(LOOKAHEAD * z->jobs))
		pthread_cond_wait(&z->cv, &z->lock);
	if (z->stop) {
		pthread_mutex_unlock(&z->lock);
		return -1;
	}
	z->b[i].state = 1;
	pthread_mutex_unlock(&z->lock);
	rc = decode_block(z, &z->b[i]);
	pthread_mutex_lock(&z->lock);
	z->b[i].state = rc == 0 ? 2 : -1;
	pthread_cond_broadcast(&z->cv);
	pthread_mutex_unlock(&z->lock);
	return 0;
}

int
ab_bz2_open(struct ab_bz2 **out, const unsigned char *data, size_t len, int jobs)
{
	struct ab_bz2 *z;
	uint64_t *eos;
	size_t neos, e = 0;

	*out = NULL;
	if (len < 14 || memcmp(data, "BZh", 3) || data[3] < '1' || data[3] > '9')
		return 1;
	z = ab_calloc(1, sizeof(*z));
	z->data = data;
	z->len = len;
	find_magics(z, &eos, &neos);
	/* a block ends where the next block or the end of its stream starts */
	for (size_t i = 0; i < z->n; i++) {
		uint64_t end = i + 1 < z->n ? z->b[i + 1].start : UINT64_MAX;

		while (e < neos && eos[e] <= z->b[i].start)
			e++;
		if (e < neos && eos[e] < end)
			end = eos[e];
		if (end == UINT64_MAX || end - z->b[i].start < 48 + 32) {
			z->n = 0; /* no end in sight: not for us */
			break;
		}
		z->b[i].end = end;
	}
	free(eos);
	if (z->n < 2 || jobs < 2) {
		free(z->b);
		free(z);
		return 1;
	}
	z->jobs = jobs > MAX_THREADS ? MAX_THREADS : jobs;
	pthread_mutex_init(&z->lock, NULL);
	pthread_cond_init(&z->cv, NULL);
	/* the calling thread reads: every decoder is a thread of the pool */
	if (ab_pool_start(&z->pool, z->jobs, decode_item, NULL, z) == 0) {
		ab_bz2_free(z);
		return 1;
	}
	ab_pool_publish(z->pool, z->n);
	*out = z;
	return 0;
}

ssize_t
ab_bz2_read(struct ab_bz2 *z, const void **buf)
{
	struct block *b;

	pthread_mutex_lock(&z->lock);
	/* the block handed out last time is no longer needed */
	if (z->cur > 0 && z->b[z->cur - 1].out) {
		free(z->b[z->cur - 1].out);
		z->b[z->cur - 1].out = NULL;
	}
	for (;;) {
		if (z->failed || z->cur >= z->n) {
			pthread_mutex_unlock(&z->lock);
			return z->failed ? -1 : 0;
		}
		b = &z->b[z->cur];
		if (b->state == 2 || b->state == -1)
			break;
		pthread_cond_wait(&z->cv, &z->lock);
	}
	if (b->state == -1) {
		z->failed = 1;
		z->stop = 1;
		pthread_cond_broadcast(&z->cv);
		pthread_mutex_unlock(&z->lock);
		return -1;
	}
	z->cur++;
	pthread_cond_broadcast(&z->cv);
	pthread_mutex_unlock(&z->lock);
	*buf = b->out;
	return (ssize_t)b->len;
}

void
ab_bz2_free(struct ab_bz2 *z)
{
	if (!z)
		return;
	if (z->pool) {
		pthread_mutex_lock(&z->lock);
		z->stop = 1;
		pthread_cond_broadcast(&z->cv);
		pthread_mutex_unlock(&z->lock);
		ab_pool_stop(z->pool);
	}
	if (z->jobs) {
		pthread_mutex_destroy(&z->lock);
		pthread_cond_destroy(&z->cv);
	}
	for (size_t i = 0; i < z->n; i++)
		free(z->b[i].out);
	free(z->b);
	free(z);
}
