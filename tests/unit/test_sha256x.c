/*
 * Unit tests of lib/sha256x: every lane count against OpenSSL's digest
 * (ab_hash_buf) for every message length up to five blocks, and for
 * random lengths in every lane at once; and the switch to OpenSSL.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/hash.h"
#include "../../lib/sha256x.h"
#include "../../lib/util.h"
#include "unit.h"

static void
to_hex(char hex[AB_HEX_LEN + 1], const unsigned char md[32])
{
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/*
 * n messages of the given lengths, as lib/hash feeds them: the blocks all
 * lanes have in one call of n lanes, the rest lane by lane, then the end
 */
static int
lanes_agree(int n, const unsigned char *const msg[], const size_t len[])
{
	uint32_t st[AB_SHA256X_LANES][8];
	uint32_t *h[AB_SHA256X_LANES] = {0};
	size_t common = SIZE_MAX;
	int ok = 1;

	for (int i = 0; i < n; i++) {
		ab_sha256x_init(st[i]);
		h[i] = st[i];
		if (len[i] / 64 < common)
			common = len[i] / 64;
	}
	ab_sha256x_blocks(n, h, msg, common);
	for (int i = 0; i < n; i++) {
		const unsigned char *p = msg[i] + common * 64;
		size_t left = len[i] / 64 - common;
		unsigned char md[32];
		char got[AB_HEX_LEN + 1], want[AB_HEX_LEN + 1];

		ab_sha256x_blocks(1, &h[i], &p, left);
		ab_sha256x_final(md, st[i], msg[i] + len[i] / 64 * 64, len[i] % 64, len[i]);
		to_hex(got, md);
		ab_hash_buf(want, msg[i], len[i]);
		if (strcmp(got, want)) {
			fprintf(stderr, "lane %d of %d, length %zu: got %s, want %s\n", i, n, len[i], got, want);
			ok = 0;
		}
	}
	return ok;
}

int
main(void)
{
	enum { MAX = 64 * 1024 };
	unsigned char *buf = ab_malloc(AB_SHA256X_LANES * (size_t)MAX);
	const unsigned char *msg[AB_SHA256X_LANES];
	size_t len[AB_SHA256X_LANES];
	unsigned seed = 12345;
	int bad = 0;

	if (ab_sha256x_lanes() == 0) {
		char hex[AB_HEX_LEN + 1];

		/* no SHA-NI: lib/hash takes OpenSSL's digest instead; that one must be right (FIPS 180-2, "abc") */
		printf("no SHA-NI on this CPU: lib/hash uses OpenSSL; checking that\n");
		ab_hash_buf(hex, "abc", 3);
		CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
		free(buf);
		return unit_done();
	}
	for (size_t i = 0; i < AB_SHA256X_LANES * (size_t)MAX; i++)
		buf[i] = (unsigned char)((seed = seed * 1103515245 + 12345) >> 16);
	for (int i = 0; i < AB_SHA256X_LANES; i++)
		msg[i] = buf + (size_t)i * MAX;

	/* every length up to five blocks, in every lane of every lane count */
	for (int n = 1; n <= AB_SHA256X_LANES; n++)
		for (size_t l = 0; l <= 5 * 64; l++) {
			for (int i = 0; i < n; i++)
				len[i] = l;
			bad += !lanes_agree(n, msg, len);
		}
	/* lanes of different lengths: the shortest sets the common blocks */
	for (int round = 0; round < 3000; round++) {
		int n = 1 + round % AB_SHA256X_LANES;

		for (int i = 0; i < n; i++) {
			seed = seed * 1103515245 + 12345;
			len[i] = (seed >> 8) % (round % 7 == 0 ? MAX : 2000);
		}
		bad += !lanes_agree(n, msg, len);
	}
	CHECK(bad == 0);

	/* the environment's switch back to OpenSSL */
	setenv("ALLOCBUILD_SHA256_LANES", "1", 1);
	CHECK(ab_sha256x_lanes() == 0);
	setenv("ALLOCBUILD_SHA256_LANES", "4", 1);
	CHECK(ab_sha256x_lanes() == AB_SHA256X_LANES);
	unsetenv("ALLOCBUILD_SHA256_LANES");
	free(buf);
	return unit_done();
}
