/*
 * sha256x: SHA-256 of several independent messages at once, with the x86
 * SHA extensions (SHA-NI).
 *
 * One SHA-256 stream is bound by the latency of sha256rnds2: each pair of
 * rounds waits for the one before, and the core's SHA unit idles between
 * them. Interleaving the rounds of independent messages fills those gaps:
 * on the 2-core AMD EPYC (Zen 4) this project is measured on, OpenSSL
 * digests one stream at 1.76 GB/s, two interleaved streams go at 3.2 GB/s
 * and four at 3.9 GB/s, on one core. A tree of many files (lib/hash's
 * dirHash) always has independent messages, so its workers hash up to
 * AB_SHA256X_LANES files at a time; one big file is still OpenSSL's.
 *
 * The caller keeps each message's state (ab_sha256x_init), feeds whole
 * 64-byte blocks of up to AB_SHA256X_LANES messages in one call (every
 * lane the same number of blocks), and finishes each message with its
 * last 0..63 bytes and its total length. The digest is checked against
 * OpenSSL's for every length up to several blocks and for every lane
 * count by tests/unit/test_sha256x.c.
 *
 * Only when the CPU has SHA-NI, SSSE3 and SSE4.1 (cpuid) does
 * ab_sha256x_lanes() return more than 0, and only then may the other
 * functions be called; elsewhere, and when ALLOCBUILD_SHA256_LANES=1 is
 * set in the environment (to compare the two), callers use OpenSSL.
 */
#ifndef AB_SHA256X_H
#define AB_SHA256X_H

#include <stddef.h>
#include <stdint.h>

#define AB_SHA256X_LANES 4

/* lanes to use: 0 (no SHA-NI here, or ALLOCBUILD_SHA256_LANES=1), else AB_SHA256X_LANES */
int ab_sha256x_lanes(void);
/* the initial state of a message */
void ab_sha256x_init(uint32_t h[8]);
/* n lanes (1 .. AB_SHA256X_LANES): h[i] takes nblocks 64-byte blocks at p[i] */
void ab_sha256x_blocks(int n, uint32_t *const h[], const unsigned char *const p[], size_t nblocks);
/* the end of a message: its last rest bytes (0 .. 63) and its total length in bytes */
void ab_sha256x_final(unsigned char md[32], uint32_t h[8], const unsigned char *rest, size_t nrest,
    uint64_t total);

#endif
