/*
 * fuzz_cmakeprov: libFuzzer target for the cmake provenance parsers
 * (CMakeCache.txt, flags.make, CMake<LANG>Compiler.cmake, cfgcmd), the
 * build-type detection and the record diff. Any input must parse or be
 * rejected with a message, never crash, leak or read out of bounds.
 * `make check` replays tests/fuzz/corpus/cmakeprov.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../provenance/record/cmakeprov.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	const char *text = (const char *)data;
	cJSON *cache = NULL, *x = NULL, *d = NULL, *rec;

	/* the parsers report rejections on stderr: keep the replay log short */
	if (!quiet && getenv("FUZZ_VERBOSE") == NULL) {
		quiet = 1;
		if (!freopen("/dev/null", "w", stderr))
			return 0;
	}
	if (ab_cmakeprov_parse_cache(&cache, text, size, "fuzz") == 0) {
		char *flags = strndup(text, size);

		FUZZ_OUTCOME("cache: %d entries", cJSON_GetArraySize(cache));
		(void)ab_cmakeprov_detect_build_type(cache, "C", flags);
		free(flags);
	} else {
		FUZZ_OUTCOME("cache: refused");
	}
	if (ab_cmakeprov_parse_flags(&x, text, size, "fuzz") == 0) {
		FUZZ_OUTCOME("flags: %d entries", cJSON_GetArraySize(x));
		cJSON_Delete(x);
	} else {
		FUZZ_OUTCOME("flags: refused");
	}
	if (ab_cmakeprov_parse_compiler(&x, text, size, "fuzz") == 0) {
		FUZZ_OUTCOME("compiler: read");
		cJSON_Delete(x);
	} else {
		FUZZ_OUTCOME("compiler: refused");
	}
	if (ab_cmakeprov_parse_cfgcmd(&x, text, size, "fuzz") == 0) {
		FUZZ_OUTCOME("cfgcmd: read");
		cJSON_Delete(x);
	} else {
		FUZZ_OUTCOME("cfgcmd: refused");
	}
	/* a record of any shape must diff without crashing */
	rec = cJSON_ParseWithLength(text, size);
	if (rec) {
		cJSON *doc = ab_cmakeprov_doc_new();

		if (ab_cmakeprov_diff(&d, rec, rec) == 0)
			cJSON_Delete(d);
		(void)ab_cmakeprov_doc_add(doc, "a", cJSON_Duplicate(rec, 1));
		(void)ab_cmakeprov_doc_add(doc, "b", rec);
		cJSON_Delete(doc);
	}
	cJSON_Delete(cache);
	return 0;
}
