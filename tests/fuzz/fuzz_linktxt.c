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
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ab_linktxt lt;
	struct ab_strv words = {0};

	if (ab_linktxt_parse(&lt, "fuzz.txt", (const char *)data, size, FUZZ_MESSAGES()) == 0) {
		size_t nargs = 0;

		for (size_t i = 0; i < lt.ncmds; i++) {
			int joined;

			(void)ab_linktxt_output_index(lt.cmds[i].argv.v, &joined);
			nargs += lt.cmds[i].argv.n;
		}
		FUZZ_OUTCOME("link.txt: %zu command%s, %zu arguments", lt.ncmds, lt.ncmds == 1 ? "" : "s", nargs);
		ab_linktxt_release(&lt);
	} else {
		FUZZ_OUTCOME("link.txt: refused");
	}
	if (ab_linktxt_parse_rsp(&words, "fuzz.rsp", (const char *)data, size, FUZZ_MESSAGES()) == 0)
		FUZZ_OUTCOME("response file: %zu words", words.n);
	else
		FUZZ_OUTCOME("response file: refused");
	ab_strv_free(&words);
	return 0;
}
