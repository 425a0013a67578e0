/*
 * fuzz_probe: libFuzzer target for the probe parsers and checks
 * (provenance/probe/probe.h). The input's first line is the requested setting
 * (a MALLOC_CONF string, also used as the value of a few MIMALLOC_*
 * variables), the rest is the program's stderr. Any input must give a
 * record, never crash, leak or read out of bounds.
 * `make check` replays tests/fuzz/corpus/probe.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../provenance/probe/probe.h"
#include "../../provenance/alloc/allocver.h"
#include "../../provenance/probe/probe_impl.h"
#include "../../lib/jsonio.h"
#include "fuzz.h"

/* "jemalloc: version V, ok" or "..., N problems" */
static void
say(const char *what, const cJSON *rec)
{
	const char *v = ab_json_str(rec, "version");
	int problems = cJSON_GetArraySize(ab_json_get(rec, "problems"));

	if (ab_probe_ok(rec))
		FUZZ_OUTCOME("%s: version %s, ok", what, v ? v : "unknown");
	else
		FUZZ_OUTCOME("%s: version %s, %d problem%s", what, v ? v : "unknown", problems, problems == 1 ? "" : "s");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 1), *nl, *conf, *err;
	struct ab_kv kv[3];
	struct ab_kvlist env = {kv, 3};
	cJSON *rec;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	nl = strchr(text, '\n');
	conf = text;
	err = nl ? nl + 1 : text + size;
	if (nl)
		*nl = '\0';

	rec = cJSON_CreateObject();
	(void)ab_probe_jemalloc_parse(rec, err);
	ab_probe_jemalloc_check(rec, conf);
	ab_probe_finish(rec);
	say("jemalloc", rec);
	cJSON_Delete(rec);
	free(ab_probe_jemalloc_conf(conf));

	kv[0] = (struct ab_kv){"MIMALLOC_PURGE_DELAY", conf};
	kv[1] = (struct ab_kv){"MIMALLOC_RESET_DELAY", conf};
	kv[2] = (struct ab_kv){"MIMALLOC_ARENA_RESERVE", conf};
	rec = cJSON_CreateObject();
	(void)ab_probe_mimalloc_parse(rec, err, conf);
	ab_probe_mimalloc_check(rec, &env);
	ab_probe_finish(rec);
	say("mimalloc", rec);
	cJSON_Delete(rec);
	free(ab_mimalloc_version_string(strtol(conf, NULL, 10)));
	free(text);
	return 0;
}
