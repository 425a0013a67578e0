/*
 * Unit tests of the typed readers of an OUTDIR's manifests
 * (provenance/record/binprov.h, provenance/record/updiffrec.h): the fields
 * read, and a record without its identity refused, naming what and where.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../lib/util.h"
#include "../../provenance/record/binprov.h"
#include "../../provenance/record/updiffrec.h"
#include "unit.h"

#define SHA_A "2db82d1e7119df3e71b7640219b6dfe84789bc0537983c3b7ac4f7189aecfeaa"
#define SHA_B "0ac95f7765d9a7b6e3c7b1d4bd5c8f1a1a8a4c3e2c9ab3a0d51d4e7b0e2c4f11"

static const char binprov_doc[] =
    "{\"recipe\": {\"name\": \"r\", \"path\": \"r.json\", \"sha256\": \"" SHA_A "\"}, \"invocation_id\": \"u-1\","
    " \"variants\": ["
    "  {\"label\": \"fb\", \"kind\": \"cmake\", \"base\": \"fb\", \"binary\": null,"
    "   \"allocator\": {\"kind\": \"jemalloc\", \"archive\": \"lib/libjemalloc_pic.a\", \"vendored\": \"lib/jemalloc-5.3.0\","
    "                 \"upstream\": \"je\", \"archive_sha256\": \"" SHA_B "\"},"
    "   \"source\": {\"id\": \"flb\", \"pin\": {\"kind\": \"git\", \"url\": \"https://github.com/fluent/fluent-bit.git\","
    "              \"commit\": \"c0ffee\", \"tree\": \"t1\"}, \"tree\": null},"
    "   \"artifacts\": [{\"path\": \"variants/fb/build/bin/fluent-bit\", \"artifact\": \"bin/fluent-bit\", \"size\": 10,"
    "                  \"sha256\": \"" SHA_A "\", \"allocator_archive\": false, \"allocator_version\": null,"
    "                  \"parts\": {\"format\": \"elf\", \"sections\": []}},"
    "                 {\"path\": \"variants/fb/build/lib/libjemalloc_pic.a\", \"artifact\": \"lib/libjemalloc_pic.a\","
    "                  \"sha256\": \"" SHA_B "\", \"allocator_archive\": true, \"allocator_version\": \"5.3.0-0-gabc\"}]},"
    "  {\"label\": \"fb-rt\", \"kind\": \"runtime_of\", \"base\": \"fb\", \"allocator\": {}, \"source\": {}, \"artifacts\": []}"
    " ]}";

static void
test_binprov(void)
{
	cJSON *doc = cJSON_Parse(binprov_doc);
	struct ab_binprov b;
	const struct ab_binprov_variant *v;

	CHECK(ab_binprov_parse(&b, doc, "bp.json") == 0);
	CHECK_STR(b.recipe_name, "r");
	CHECK_STR(b.invocation_id, "u-1");
	CHECK(b.nvariants == 2);
	v = ab_binprov_variant(&b, "fb");
	CHECK(v && v->nartifacts == 2);
	if (v && v->nartifacts == 2) {
		CHECK_STR(v->allocator.vendored, "lib/jemalloc-5.3.0");
		CHECK_STR(v->allocator.archive_sha256, SHA_B);
		CHECK(v->source.pin && v->source.pin->kind == AB_FETCH_GIT);
		CHECK_STR(v->source.pin ? v->source.pin->commit : NULL, "c0ffee");
		CHECK_STR(v->artifacts[0].format, "elf");
		CHECK(!v->artifacts[0].allocator_archive && !v->artifacts[0].allocator_version);
		CHECK(v->artifacts[1].allocator_archive);
		CHECK_STR(v->artifacts[1].allocator_version, "5.3.0-0-gabc");
		CHECK_STR(v->artifacts[1].sha256, SHA_B);
	}
	v = ab_binprov_variant(&b, "fb-rt");
	CHECK(v && !v->source.pin && !v->nartifacts);
	CHECK(!ab_binprov_variant(&b, "nosuch"));
	ab_binprov_release(&b);
	cJSON_Delete(doc);
}

/* parse text, which must be refused with a message holding want */
static void
refused(const char *text, const char *want)
{
	cJSON *doc = cJSON_Parse(text);
	struct ab_binprov b;
	struct unit_catch c;
	char *msg;
	int rc;

	unit_catch_begin(&c);
	rc = ab_binprov_parse(&b, doc, "bp.json");
	msg = unit_catch_end(&c);
	CHECK(rc == AB_EFAIL);
	if (!strstr(msg, want))
		fprintf(stderr, "message '%s' lacks '%s'\n", msg, want);
	CHECK(strstr(msg, want) != NULL);
	free(msg);
	cJSON_Delete(doc);
}

static void
test_binprov_refused(void)
{
	char *s;

	refused("{\"variants\": []}", "'bp.json': not binary-provenance.json: no recipe name and sha256");
	refused("{\"recipe\": {\"name\": \"r\", \"sha256\": \"" SHA_A "\"}, \"variants\": [{\"kind\": \"cmake\"}]}",
	    "'bp.json': variants[0]: no label or no kind");
	refused("{\"recipe\": {\"name\": \"r\", \"sha256\": \"" SHA_A "\"}, \"variants\": [{\"label\": \"a\", \"kind\": \"cmake\","
	    " \"artifacts\": [{\"path\": \"x\", \"sha256\": \"abc\"}]}]}",
	    "'bp.json': variant 'a': artifacts[0]: no path or no sha256 of 64 hex digits");
	refused("{\"recipe\": {\"name\": \"r\", \"sha256\": \"" SHA_A "\"}, \"variants\": [{\"label\": \"a\", \"kind\": \"cmake\","
	    " \"source\": {\"id\": \"s\", \"pin\": {\"kind\": \"archive\", \"urls\": []}}}]}",
	    "'bp.json': variant 'a': source.pin: not a fetch record");
	s = ab_sprintf("{\"recipe\": {\"name\": \"r\", \"sha256\": \"%s\"}, \"variants\": [{\"label\": \"a\", \"kind\": \"cmake\"},"
	    " {\"label\": \"a\", \"kind\": \"cmake\"}]}", SHA_A);
	refused(s, "'bp.json': variant 'a' is listed twice");
	free(s);
}

static void
test_updiffrec(void)
{
	cJSON *doc = cJSON_Parse(
	    "{\"variants\": {\"fb\": {"
	    " \"candidate\": {\"spec\": \"/o/fb\", \"kind\": \"directory\", \"path\": \"/o/fb\", \"files\": 466, \"digest\": {\"dirHash\": \"d1\"}, \"version\": null},"
	    " \"upstream\": {\"spec\": \"/o/up\", \"kind\": \"archive\", \"archive_sha256\": \"" SHA_A "\", \"digest\": {\"dirHash\": \"d2\"},"
	    "              \"version\": \"5.3.0-0-g54eaed1d\"},"
	    " \"matches\": false, \"identical\": false, \"summary\": \"s\", \"notes\": [\"note: n\"],"
	    " \"files\": [{\"path\": \"src/a.c\", \"status\": \"differs\", \"class\": \"source\", \"significant\": true, \"diff\": \"--- upstream/src/a.c\\n\"},"
	    "           {\"path\": \"VERSION\", \"status\": \"only-in-upstream\", \"class\": \"generated\", \"significant\": false},"
	    "           {\"path\": \"big.c\", \"status\": \"differs\", \"class\": \"source\", \"diff_omitted\": \"past 1 MiB\"}]}}}");
	struct ab_updiffrecs r;
	const struct ab_updiffrec *u;
	struct unit_catch c;
	char *msg;
	cJSON *bad;

	CHECK(ab_updiffrecs_parse(&r, doc, "ud.json") == 0);
	u = ab_updiffrecs_get(&r, "fb");
	CHECK(u != NULL);
	if (u) {
		CHECK(!u->matches && !u->identical);
		CHECK_STR(u->upstream.archive_sha256, SHA_A);
		CHECK_STR(u->upstream.version, "5.3.0-0-g54eaed1d");
		CHECK_STR(u->candidate.dirhash, "d1");
		CHECK(u->candidate.files == 466);
		CHECK(u->notes.n == 1);
		CHECK(u->nfiles == 3);
		if (u->nfiles == 3) {
			CHECK(u->files[0].status == AB_UPDIFF_DIFFERS && u->files[0].significant);
			CHECK_STR(u->files[0].diff, "--- upstream/src/a.c\n");
			CHECK(u->files[1].status == AB_UPDIFF_ONLY_UPSTREAM && !u->files[1].diff);
			CHECK_STR(u->files[1].cls, "generated");
			CHECK(!u->files[2].diff);
			CHECK_STR(u->files[2].diff_omitted, "past 1 MiB");
		}
	}
	ab_updiffrecs_release(&r);
	cJSON_Delete(doc);

	/* a file of no known status, a report without its sides: refused */
	bad = cJSON_Parse("{\"variants\": {\"fb\": {\"candidate\": {\"kind\": \"directory\", \"digest\": {\"dirHash\": \"d\"}},"
	    " \"upstream\": {\"kind\": \"archive\", \"digest\": {\"dirHash\": \"e\"}}, \"files\": [{\"path\": \"a\", \"status\": \"gone\"}]}}}");
	unit_catch_begin(&c);
	CHECK(ab_updiffrecs_parse(&r, bad, "ud.json") == AB_EFAIL);
	msg = unit_catch_end(&c);
	CHECK(strstr(msg, "'ud.json': variants.fb.files[0]: no path or no known status") != NULL);
	free(msg);
	cJSON_Delete(bad);
	bad = cJSON_Parse("{\"variants\": {\"fb\": {\"candidate\": {\"kind\": \"directory\"}, \"files\": []}}}");
	unit_catch_begin(&c);
	CHECK(ab_updiffrecs_parse(&r, bad, "ud.json") == AB_EFAIL);
	msg = unit_catch_end(&c);
	CHECK(strstr(msg, "'ud.json': variants.fb: not an upstream-diff report") != NULL);
	free(msg);
	cJSON_Delete(bad);
}

int
main(void)
{
	test_binprov();
	test_binprov_refused();
	test_updiffrec();
	return unit_done();
}
