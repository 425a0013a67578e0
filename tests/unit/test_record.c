/*
 * Unit tests of provenance/record/record: a state.json read back and written
 * again is the same document, field order included; a fresh record has
 * the order a build writes; a state that is not a record is none. The
 * typed parts a build keeps: a probe's result (its verdict read from its
 * report, the report written as it was) and the tools' identities
 * (internalParameters.toolchain) read back and written again; a
 * variant's toolchain record the same, its builderDependencies each tool
 * once, its differences as "NAME: A -> B", one that is not a record
 * none (the variant built again); fetch
 * records of each kind the same, and one without what identifies its bytes
 * is none. A derived variant's lead (derived_from) read back in its place.
 */
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"
#include "../../lib/jsonio.h"
#include "../../provenance/record/record.h"
#include "unit.h"

/* what a run that re-probed an up-to-date variant writes (runtime, probe after what it kept) */
static const char reprobed[] =
    "{\"label\":\"a\",\"kind\":\"autotools\",\"base\":\"a\",\"key\":\"k1\",\"dir\":\"variants/a\","
    "\"artifact_dir\":\"variants/a/build\",\"source\":\"s\",\"allocator\":{\"kind\":\"jemalloc\","
    "\"archive\":\"lib/x.a\"},\"fetched\":{\"s\":{\"kind\":\"archive\",\"urls\":[\"https://h/x.tar\"],"
    "\"sha256\":\"ab\",\"strip\":1,\"size\":12,\"origin\":\"https://h/x.tar\",\"origin_kind\":\"url\","
    "\"cached_from\":\"https://h/x.tar\"}},\"steps\":[{\"step\":\"source\"}],"
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

/* a derived variant (build --derive) keeps the label of its lead, read back and written in place */
static void
test_derived_from(void)
{
	const char *at = strstr(reprobed, "\"upstream_diff\"");
	char *doc = ab_sprintf("%.*s\"derived_from\":\"lead\",%s", (int)(at - reprobed), reprobed, at);
	cJSON *in = cJSON_Parse(doc), *out;
	struct ab_variant_record *v = ab_variant_record_parse(in);
	char *text;

	CHECK(v != NULL);
	if (v) {
		CHECK_STR(v->derived_from, "lead");
		out = ab_variant_record_json(v);
		text = unformatted(out);
		CHECK_STR(text, doc);
		cJSON_free(text);
		cJSON_Delete(out);
		ab_variant_record_free(v);
	}
	cJSON_Delete(in);
	free(doc);
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

static const char probe_report[] =
    "{\"allocator\":\"mimalloc\",\"version\":\"2.1.7\",\"secure\":3,\"overrides\":[{\"setting\":"
    "\"MIMALLOC_ARENA_EAGER_COMMIT\",\"origin\":\"runtime\",\"requested\":\"2\",\"effective\":null,"
    "\"status\":\"ignored\"}],\"problems\":[{\"kind\":\"ignored\",\"setting\":null,\"origin\":\"runtime\","
    "\"message\":\"m\"}],\"run\":{\"exit_status\":0},\"ok\":false}";

static void
test_probe_result(void)
{
	struct ab_probe_result *r = ab_probe_result_new(cJSON_Parse(probe_report));
	cJSON *out;
	char *text;

	CHECK(r != NULL);
	if (!r)
		return;
	CHECK_STR(r->allocator, "mimalloc");
	CHECK_STR(r->version, "2.1.7");
	CHECK(r->secure == 3 && !r->ok && r->failed);
	CHECK(r->nproblems == 1 && !r->problems[0].setting);
	CHECK_STR(r->problems[0].message, "m");
	CHECK(r->noverrides == 1 && !r->overrides[0].effective && !r->overrides[0].option);
	CHECK_STR(r->overrides[0].status, "ignored");
	out = ab_probe_result_json(r);
	text = unformatted(out);
	CHECK_STR(text, probe_report);
	cJSON_free(text);
	cJSON_Delete(out);
	ab_probe_result_free(r);
	ab_probe_result_free(NULL);
	/* a report without a verdict: neither ok nor failed, no secure level */
	r = ab_probe_result_new(cJSON_Parse("{\"allocator\":null}"));
	CHECK(r && !r->allocator && !r->ok && !r->failed && r->secure == -1 && !r->nproblems);
	ab_probe_result_free(r);
	CHECK(ab_probe_result_new(NULL) == NULL);
}

static const char tool_ids[] =
    "{\"cc\":{\"version\":\"gcc (Debian 12.2.0-14) 12.2.0\",\"version_output_sha256\":\"ab01\"},"
    "\"ccache\":{\"version\":null}}";

static void
test_tool_ids(void)
{
	struct ab_tool_ids ids;
	cJSON *in = cJSON_Parse(tool_ids), *out;
	char *text, *envp[] = {"PATH=/nonexistent", NULL};

	CHECK(ab_tool_ids_parse(&ids, in) == 0);
	CHECK(ids.n == 2 && !ids.v[1].version);
	CHECK_STR(ids.v[0].sha256, "ab01");
	/* a missing tool is recorded as missing, with no error */
	ab_tool_ids_add(&ids, "no-such-tool-here", envp);
	CHECK(ids.n == 3 && !ids.v[2].version && !ids.v[2].sha256[0]);
	ab_tool_id_release(&ids.v[--ids.n]);
	{
		/* the compiler that built this test: its first line and the digest of all it printed */
		char *path[] = {"PATH=/usr/local/bin:/usr/bin:/bin", NULL};
		struct ab_tool_id t;

		ab_toolchain_identify(&t, "cc", path, NULL);
		CHECK(t.version && !strchr(t.version, '\n') && strlen(t.sha256) == AB_HEX_LEN);
		ab_tool_id_release(&t);
	}
	out = ab_tool_ids_json(&ids);
	text = unformatted(out);
	CHECK_STR(text, tool_ids);
	cJSON_free(text);
	cJSON_Delete(out);
	ab_tool_ids_release(&ids);
	ab_report_mute();
	CHECK(ab_tool_ids_parse(&ids, in->child->child) < 0 && ids.n == 0);
	ab_report_unmute();
	cJSON_Delete(in);
}

/* cc found and owned by a package, cmake not there */
static const char toolchain[] =
    "[{\"name\":\"cc\",\"path\":\"/usr/bin/cc\",\"file\":\"/usr/bin/gcc-12\","
    "\"version\":\"gcc (Debian 12.2.0-14) 12.2.0\",\"package\":\"gcc-12\",\"package_version\":\"12.2.0-14\","
    "\"architecture\":\"amd64\",\"uri\":\"pkg:deb/debian/gcc-12@12.2.0-14?arch=amd64\"},"
    "{\"name\":\"cmake\",\"path\":null,\"file\":null,\"version\":null,\"package\":null,"
    "\"package_version\":null,\"architecture\":null,\"uri\":null}]";

static void
test_toolchain(void)
{
	cJSON *in = cJSON_Parse(toolchain), *out, *st;
	struct ab_toolchain a, b, sel;
	const struct ab_toolchain *both[2] = {&a, &b};
	struct ab_strv diff = {0};
	struct ab_variant_record *v;
	char *text;

	CHECK(ab_toolchain_parse(&a, in) == 0 && a.present && a.n == 2);
	CHECK_STR(a.v[0].package_version, "12.2.0-14");
	CHECK(!a.v[1].path && !a.v[1].uri);
	out = ab_toolchain_json(&a);
	text = unformatted(out);
	CHECK_STR(text, toolchain);
	cJSON_free(text);
	cJSON_Delete(out);
	/* cmake is a cmake build's alone */
	ab_toolchain_select(&sel, &a, "autotools");
	CHECK(sel.present && sel.n == 1);
	CHECK_STR(sel.v[0].name, "cc");
	CHECK(ab_tool_equal(&sel.v[0], &a.v[0]));
	ab_toolchain_release(&sel);
	ab_toolchain_select(&sel, &a, "cmake");
	CHECK(sel.n == 2);
	ab_toolchain_release(&sel);
	/* another gcc package and cmake installed since */
	CHECK(ab_toolchain_parse(&b, in) == 0);
	free(b.v[0].package_version);
	b.v[0].package_version = ab_strdup("12.2.0-15");
	b.v[1].path = ab_strdup("/usr/bin/cmake");
	b.v[1].file = ab_strdup("/usr/bin/cmake");
	b.v[1].version = ab_strdup("cmake version 3.25.1");
	CHECK(!ab_tool_equal(&a.v[0], &b.v[0]));
	ab_toolchain_diff(&diff, &a, &b);
	CHECK(diff.n == 2);
	if (diff.n == 2) {
		CHECK_STR(diff.v[0], "cc: gcc (Debian 12.2.0-14) 12.2.0 (gcc-12 12.2.0-14) -> "
		    "gcc (Debian 12.2.0-14) 12.2.0 (gcc-12 12.2.0-15)");
		CHECK_STR(diff.v[1], "cmake: missing -> cmake version 3.25.1 (/usr/bin/cmake)");
	}
	ab_strv_free(&diff);
	/* each tool found once, in first-seen order: a's cc, b's cc (another package version), b's cmake */
	out = ab_toolchain_descriptors(both, 2);
	CHECK(cJSON_GetArraySize(out) == 3);
	CHECK_STR(ab_json_str(cJSON_GetArrayItem(out, 0), "uri"), "pkg:deb/debian/gcc-12@12.2.0-14?arch=amd64");
	CHECK(!ab_json_get(cJSON_GetArrayItem(out, 2), "uri"));
	CHECK_STR(ab_json_str(ab_json_get(cJSON_GetArrayItem(out, 2), "annotations"), "file"), "/usr/bin/cmake");
	cJSON_Delete(out);
	out = ab_toolchain_descriptors(both, 1);
	CHECK(cJSON_GetArraySize(out) == 1);
	cJSON_Delete(out);
	ab_toolchain_release(&b);
	/* in state.json: written back as read; one that is not a record is none, and the variant is built again */
	st = cJSON_Parse(reprobed);
	cJSON_AddItemToObject(st, "toolchain", cJSON_Duplicate(in, 1));
	v = ab_variant_record_parse(st);
	CHECK(v && v->ok && v->toolchain.present && v->toolchain.n == 2);
	if (v) {
		out = ab_variant_record_json(v);
		CHECK(cJSON_Compare(ab_json_get(out, "toolchain"), in, 1));
		cJSON_Delete(out);
		ab_variant_record_free(v);
	}
	cJSON_ReplaceItemInObject(st, "toolchain", cJSON_CreateObject());
	v = ab_variant_record_parse(st);
	CHECK(v && !v->ok && !v->toolchain.present);
	ab_variant_record_free(v);
	cJSON_ReplaceItemInObject(st, "toolchain", cJSON_Parse("[{\"path\":\"/usr/bin/cc\"}]"));
	CHECK(ab_toolchain_parse(&b, ab_json_get(st, "toolchain")) < 0 && !b.present && b.n == 0);
	CHECK(ab_toolchain_parse(&b, NULL) == 0 && !b.present);
	cJSON_Delete(st);
	ab_toolchain_release(&a);
	cJSON_Delete(in);
}

static const char *const fetch_docs[] = {
	"{\"kind\":\"git\",\"url\":\"https://h/r.git\",\"fetch_url\":\"file:///m/r.git\",\"commit\":\"c1\","
	"\"tree\":\"t1\",\"origin\":\"file:///m/r.git\",\"origin_kind\":\"fetch\",\"cached_from\":null}",
	"{\"kind\":\"git\",\"url\":\"https://h/r.git\",\"fetch_url\":\"https://h/r.git\",\"ref\":\"main\","
	"\"ref_kind\":\"branch\",\"commit\":\"c1\",\"tree\":\"t1\",\"origin\":\"/c/git/r\",\"origin_kind\":\"cache\","
	"\"cached_from\":\"https://h/r.git\"}",
	"{\"kind\":\"dir\",\"dir\":\"src\",\"dirHash\":\"d1\",\"files\":3,\"bytes\":5000000000}",
};

static void
test_fetch_records(void)
{
	struct ab_fetch_set set;
	cJSON *in, *out;
	char *text;

	for (size_t i = 0; i < sizeof(fetch_docs) / sizeof(fetch_docs[0]); i++) {
		struct ab_fetch_record *r, *c;

		in = cJSON_Parse(fetch_docs[i]);
		r = ab_fetch_record_parse(in);
		CHECK(r != NULL);
		if (!r) {
			cJSON_Delete(in);
			continue;
		}
		c = ab_fetch_record_copy(r);
		out = ab_fetch_record_json(c);
		text = unformatted(out);
		CHECK_STR(text, fetch_docs[i]);
		cJSON_free(text);
		cJSON_Delete(out);
		ab_fetch_record_free(c);
		ab_fetch_record_free(r);
		cJSON_Delete(in);
	}
	ab_fetch_record_free(NULL);
	/* no commit, no sha256, an unknown kind: not a fetch record; a set with one is none */
	in = cJSON_Parse("{\"a\":{\"kind\":\"git\",\"tree\":\"t\"},\"b\":{\"kind\":\"archive\"},\"c\":{\"kind\":\"svn\"}}");
	for (const cJSON *it = in->child; it; it = it->next)
		CHECK(ab_fetch_record_parse(it) == NULL);
	CHECK(ab_fetch_set_parse(&set, in) < 0 && set.n == 0);
	cJSON_Delete(in);
	/* a set: put replaces, the order is the order of first puts */
	CHECK(ab_fetch_set_parse(&set, NULL) == 0 && !set.present);
	in = cJSON_Parse(fetch_docs[2]);
	ab_fetch_set_put(&set, "y", ab_fetch_record_parse(in));
	ab_fetch_set_put(&set, "x", ab_fetch_record_parse(in));
	ab_fetch_set_put(&set, "y", ab_fetch_record_parse(in));
	CHECK(set.present && set.n == 2 && ab_fetch_set_get(&set, "x") && !ab_fetch_set_get(&set, "z"));
	CHECK(!strcmp(set.v[0].id, "y"));
	ab_fetch_set_release(&set);
	cJSON_Delete(in);
}

int
main(void)
{
	test_fetch_records();
	test_probe_result();
	test_tool_ids();
	test_toolchain();
	test_round_trip();
	test_derived_from();
	test_fresh_order();
	test_not_a_record();
	return unit_done();
}
