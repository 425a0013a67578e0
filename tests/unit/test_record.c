/*
 * Unit tests of provenance/record: a state.json read back and written
 * again is the same document, field order included; a fresh record has
 * the order a build writes; a state that is not a record is none.
 */
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"
#include "../../lib/jsonio.h"
#include "../../provenance/record.h"
#include "unit.h"

/* what a run that re-probed an up-to-date variant writes (runtime, probe after what it kept) */
static const char reprobed[] =
    "{\"label\":\"a\",\"kind\":\"autotools\",\"base\":\"a\",\"key\":\"k1\",\"dir\":\"variants/a\","
    "\"artifact_dir\":\"variants/a/build\",\"source\":\"s\",\"allocator\":{\"kind\":\"jemalloc\","
    "\"archive\":\"lib/x.a\"},\"fetched\":{\"s\":{\"kind\":\"archive\"}},\"steps\":[{\"step\":\"source\"}],"
    "\"source\":{\"source\":\"s\",\"dirHash\":\"d\"},\"artifacts\":[{\"path\":\"variants/a/build/lib/x.a\","
    "\"artifact\":\"lib/x.a\",\"size\":12,\"sha256\":\"ab\",\"allocator_archive\":true,"
    "\"allocator_version\":\"5.3.0-0-gabcdef0\",\"bogus_version\":false}],\"upstream_diff\":{\"matches\":true},"
    "\"runtime\":{\"env\":{\"MALLOC_CONF\":\"narenas:2\"},\"unset\":[\"LD_PRELOAD\"]},"
    "\"probe\":{\"ok\":false,\"problems\":[]},\"probe_key\":\"p1\",\"ok\":true}";

static char *
unformatted(const cJSON *j)
{
	return cJSON_PrintUnformatted(j);
}

static void
test_round_trip(void)
{
	cJSON *in = cJSON_Parse(reprobed), *out;
	struct ab_variant_record *v = ab_variant_record_parse(in);
	char *text;

	CHECK(v != NULL);
	if (!v)
		return;
	CHECK(v->loaded && v->ok && v->probe && v->probe->failed && !v->probe->ok && v->probe->nproblems == 0);
	CHECK_STR(v->source, "s");
	CHECK_STR(ab_json_str(v->tree, "dirHash"), "d");
	CHECK(v->nartifacts == 1 && v->artifacts[0].size == 12 && v->artifacts[0].allocator_archive);
	CHECK(v->runtime_env.n == 1 && v->runtime_unset.n == 1);
	out = ab_variant_record_json(v);
	text = unformatted(out);
	CHECK_STR(text, reprobed);
	cJSON_free(text);
	cJSON_Delete(out);
	cJSON_Delete(in);
	ab_variant_record_free(v);
}

static void
test_fresh_order(void)
{
	struct ab_variant_record v = {0};
	cJSON *out;
	char *text;

	v.label = ab_strdup("r");
	v.kind = ab_strdup("relink");
	v.base = ab_strdup("r");
	v.dir = ab_strdup("variants/r");
	v.artifact_dir = ab_strdup("variants/a/build");
	v.from = ab_strdup("a");
	strcpy(v.key, "k");
	strcpy(v.probe_key, "p");
	v.steps = cJSON_CreateArray();
	v.relink = cJSON_CreateObject();
	v.have_artifacts = 1;
	v.ok = 1;
	out = ab_variant_record_json(&v);
	text = unformatted(out);
	/* no probe step: the probe key follows ok */
	CHECK_STR(text, "{\"label\":\"r\",\"kind\":\"relink\",\"base\":\"r\",\"key\":\"k\",\"dir\":\"variants/r\","
	    "\"artifact_dir\":\"variants/a/build\",\"from\":\"a\",\"allocator\":{},\"runtime\":{\"env\":{},"
	    "\"unset\":[]},\"steps\":[],\"relink\":{},\"artifacts\":[],\"ok\":true,\"probe_key\":\"p\"}");
	cJSON_free(text);
	cJSON_Delete(out);
	ab_variant_record_release(&v);
}

static void
test_not_a_record(void)
{
	cJSON *j = cJSON_Parse("{\"label\":\"a\"}");

	CHECK(ab_variant_record_parse(j) == NULL);
	CHECK(ab_variant_record_parse(NULL) == NULL);
	cJSON_Delete(j);
	/* a broken artifact list is not trusted: built again */
	j = cJSON_Parse("{\"label\":\"a\",\"kind\":\"k\",\"base\":\"a\",\"dir\":\"d\",\"artifact_dir\":\"d\","
	    "\"ok\":true,\"artifacts\":[{\"path\":\"x\"}]}");
	{
		struct ab_variant_record *v = ab_variant_record_parse(j);

		CHECK(v && !v->ok && !v->have_artifacts);
		ab_variant_record_free(v);
	}
	cJSON_Delete(j);
}

int
main(void)
{
	test_round_trip();
	test_fresh_order();
	test_not_a_record();
	return unit_done();
}
