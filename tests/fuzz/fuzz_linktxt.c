/*
 * fuzz_linktxt: libFuzzer target for the link.txt and response-file
 * splitters (lib/linktxt.h). Any input must parse or be refused with a
 * message, never crash, leak or read out of bounds. `make check` replays
 * tests/fuzz/corpus/linktxt.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "../../lib/linktxt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *devnull;
	struct ab_linktxt lt;
	struct ab_strv words = {0};

	if (!devnull)
		devnull = fopen("/dev/null", "w");
	if (ab_linktxt_parse(&lt, "fuzz.txt", (const char *)data, size, devnull) == 0) {
		for (size_t i = 0; i < lt.ncmds; i++) {
			int joined;

			(void)ab_linktxt_output_index(lt.cmds[i].argv.v, &joined);
		}
		ab_linktxt_release(&lt);
	}
	(void)ab_linktxt_parse_rsp(&words, "fuzz.rsp", (const char *)data, size, devnull);
	ab_strv_free(&words);
	return 0;
}
