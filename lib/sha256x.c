/*
 * sha256x: several SHA-256 messages at once with SHA-NI (see sha256x.h).
 * The round steps are those of Intel's SHA extensions white paper (and
 * of OpenSSL's sha256_block_data_order_shaext): four rounds a step,
 * the message schedule computed four words ahead with sha256msg1/msg2.
 * STEP() is one step of one lane; the lanes' steps alternate so their
 * dependency chains overlap in the core. There is no portable fallback
 * here: without SHA-NI, ab_sha256x_lanes() is 0 and callers use OpenSSL.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "sha256x.h"

#if defined(__x86_64__) || defined(__i386__)
#define AB_HAVE_SHANI 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t K[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static const uint32_t IV[8] = {
	0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
};

void
ab_sha256x_init(uint32_t h[8])
{
	memcpy(h, IV, sizeof(IV));
}

#ifdef AB_HAVE_SHANI
#define SHANI __attribute__((target("sha,ssse3,sse4.1")))

/* one message's registers: the state as ABEF and CDGH, four schedule words */
struct lane {
	__m128i s0, s1, w[4];
};

SHANI static inline void
lane_load(struct lane *l, const uint32_t h[8])
{
	__m128i t = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1); /* CDAB */
	__m128i s = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B); /* EFGH */

	l->s0 = _mm_alignr_epi8(t, s, 8);    /* ABEF */
	l->s1 = _mm_blend_epi16(s, t, 0xF0); /* CDGH */
}

SHANI static inline void
lane_store(uint32_t h[8], const struct lane *l)
{
	__m128i t = _mm_shuffle_epi32(l->s0, 0x1B); /* FEBA */
	__m128i s = _mm_shuffle_epi32(l->s1, 0xB1); /* DCHG */

	_mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(t, s, 0xF0)); /* DCBA */
	_mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(s, t, 8));    /* HGFE */
}

/*
 * Rounds 4i .. 4i+3 of lane l over the block at p: words 0..15 loaded
 * (byte-swapped) in steps 0..3, later ones finished by msg2 one step
 * ahead (steps 3..14) after msg1 three steps ahead (steps 1..12).
 */
#define STEP(l, p, i)                                                                              \
	do {                                                                                       \
		__m128i m_;                                                                        \
		if ((i) < 4)                                                                       \
			(l).w[(i) & 3] = _mm_shuffle_epi8(                                          \
			    _mm_loadu_si128((const __m128i *)((p) + 16 * (i))), bswap);             \
		m_ = _mm_add_epi32((l).w[(i) & 3], _mm_loadu_si128((const __m128i *)&K[4 * (i)])); \
		(l).s1 = _mm_sha256rnds2_epu32((l).s1, (l).s0, m_);                                \
		if ((i) >= 3 && (i) <= 14) {                                                       \
			__m128i t_ = _mm_alignr_epi8((l).w[(i) & 3], (l).w[((i) + 3) & 3], 4);       \
			(l).w[((i) + 1) & 3] = _mm_sha256msg2_epu32(                                \
			    _mm_add_epi32((l).w[((i) + 1) & 3], t_), (l).w[(i) & 3]);              \
		}                                                                                  \
		m_ = _mm_shuffle_epi32(m_, 0x0E);                                                  \
		(l).s0 = _mm_sha256rnds2_epu32((l).s0, (l).s1, m_);                                \
		if ((i) >= 1 && (i) <= 12)                                                         \
			(l).w[((i) + 3) & 3] =                                                     \
			    _mm_sha256msg1_epu32((l).w[((i) + 3) & 3], (l).w[(i) & 3]);             \
	} while (0)

#define BSWAP_MASK _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL)

SHANI static void
blocks_x1(uint32_t h[8], const unsigned char *p, size_t nblocks)
{
	const __m128i bswap = BSWAP_MASK;
	struct lane a;

	lane_load(&a, h);
	for (; nblocks; nblocks--, p += 64) {
		__m128i a0 = a.s0, a1 = a.s1;

#pragma GCC unroll 16
		for (int i = 0; i < 16; i++)
			STEP(a, p, i);
		a.s0 = _mm_add_epi32(a.s0, a0);
		a.s1 = _mm_add_epi32(a.s1, a1);
	}
	lane_store(h, &a);
}

SHANI static void
blocks_x2(uint32_t *const h[], const unsigned char *const pp[], size_t nblocks)
{
	const __m128i bswap = BSWAP_MASK;
	const unsigned char *p0 = pp[0], *p1 = pp[1];
	struct lane a, b;

	lane_load(&a, h[0]);
	lane_load(&b, h[1]);
	for (; nblocks; nblocks--, p0 += 64, p1 += 64) {
		__m128i a0 = a.s0, a1 = a.s1, b0 = b.s0, b1 = b.s1;

#pragma GCC unroll 16
		for (int i = 0; i < 16; i++) {
			STEP(a, p0, i);
			STEP(b, p1, i);
		}
		a.s0 = _mm_add_epi32(a.s0, a0);
		a.s1 = _mm_add_epi32(a.s1, a1);
		b.s0 = _mm_add_epi32(b.s0, b0);
		b.s1 = _mm_add_epi32(b.s1, b1);
	}
	lane_store(h[0], &a);
	lane_store(h[1], &b);
}

SHANI static void
blocks_x4(uint32_t *const h[], const unsigned char *const pp[], size_t nblocks)
{
	const __m128i bswap = BSWAP_MASK;
	const unsigned char *p0 = pp[0], *p1 = pp[1], *p2 = pp[2], *p3 = pp[3];
	struct lane a, b, c, d;

	lane_load(&a, h[0]);
	lane_load(&b, h[1]);
	lane_load(&c, h[2]);
	lane_load(&d, h[3]);
	for (; nblocks; nblocks--, p0 += 64, p1 += 64, p2 += 64, p3 += 64) {
		__m128i a0 = a.s0, a1 = a.s1, b0 = b.s0, b1 = b.s1;
		__m128i c0 = c.s0, c1 = c.s1, d0 = d.s0, d1 = d.s1;

#pragma GCC unroll 16
		for (int i = 0; i < 16; i++) {
			STEP(a, p0, i);
			STEP(b, p1, i);
			STEP(c, p2, i);
			STEP(d, p3, i);
		}
		a.s0 = _mm_add_epi32(a.s0, a0);
		a.s1 = _mm_add_epi32(a.s1, a1);
		b.s0 = _mm_add_epi32(b.s0, b0);
		b.s1 = _mm_add_epi32(b.s1, b1);
		c.s0 = _mm_add_epi32(c.s0, c0);
		c.s1 = _mm_add_epi32(c.s1, c1);
		d.s0 = _mm_add_epi32(d.s0, d0);
		d.s1 = _mm_add_epi32(d.s1, d1);
	}
	lane_store(h[0], &a);
	lane_store(h[1], &b);
	lane_store(h[2], &c);
	lane_store(h[3], &d);
}

static int
cpu_has_shani(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_SSSE3) || !(c & bit_SSE4_1))
		return 0;
	if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
		return 0;
	return (b & bit_SHA) != 0;
}
#else
static int
cpu_has_shani(void)
{
	return 0;
}
#endif

/* -1 until first asked; then 0 (none) or 1 */
static atomic_int have_shani = -1;

static int
shani(void)
{
	int v = atomic_load_explicit(&have_shani, memory_order_relaxed);

	if (v < 0) {
		v = cpu_has_shani();
		atomic_store_explicit(&have_shani, v, memory_order_relaxed);
	}
	return v;
}

int
ab_sha256x_lanes(void)
{
	const char *e = getenv("ALLOCBUILD_SHA256_LANES");

	if (!shani() || (e && strcmp(e, "1") == 0))
		return 0;
	return AB_SHA256X_LANES;
}

void
ab_sha256x_blocks(int n, uint32_t *const h[], const unsigned char *const p[], size_t nblocks)
{
#ifdef AB_HAVE_SHANI
	if (shani()) {
		uint32_t spare[8];
		uint32_t *hh[4];
		const unsigned char *pp[4];

		if (n == 1) {
			blocks_x1(h[0], p[0], nblocks);
			return;
		}
		if (n == 2) {
			blocks_x2(h, p, nblocks);
			return;
		}
		/* three: four lanes, the fourth a copy of the first into a spare state */
		for (int i = 0; i < 4; i++) {
			hh[i] = i < n ? h[i] : spare;
			pp[i] = i < n ? p[i] : p[0];
		}
		if (n < 4)
			memcpy(spare, h[0], sizeof(spare));
		blocks_x4(hh, pp, nblocks);
		return;
	}
#else
	(void)n, (void)h, (void)p, (void)nblocks;
#endif
	abort(); /* only called when ab_sha256x_lanes() said yes */
}

void
ab_sha256x_final(unsigned char md[32], uint32_t h[8], const unsigned char *rest, size_t nrest,
    uint64_t total)
{
	unsigned char tail[128] = {0};
	size_t len = nrest < 56 ? 64 : 128;
	uint64_t bits = total * 8;
	uint32_t *hh[1] = {h};
	const unsigned char *pp[1] = {tail};

	if (nrest)
		memcpy(tail, rest, nrest);
	tail[nrest] = 0x80;
	for (int i = 0; i < 8; i++)
		tail[len - 1 - i] = (unsigned char)(bits >> (8 * i));
	ab_sha256x_blocks(1, hh, pp, len / 64);
	for (int i = 0; i < 8; i++) {
		md[4 * i] = (unsigned char)(h[i] >> 24);
		md[4 * i + 1] = (unsigned char)(h[i] >> 16);
		md[4 * i + 2] = (unsigned char)(h[i] >> 8);
		md[4 * i + 3] = (unsigned char)h[i];
	}
}
