/*
 * Unit tests of the typed readers of an OUTDIR's manifests
 * (provenance/record/binprov.h, provenance/record/updiffrec.h,
 * provenance/record/cmakeprov.h's document, provenance/record/proberesult.h's
 * allocator-probes.json, a Statement's names: provenance/record/stmtrec.h,
 * provenance/record/signersrec.h, a variant's tools in
 * provenance/record/cmdsrec.h): the fields read, both shapes
 * of a per-variant manifest's "variants" (version 2's array of {label},
 * version 1's object keyed by label), and a record without its identity
 * refused, naming what and where.
 */
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../lib/util.h"
#include "../../provenance/record/binprov.h"
#include "../../lib/atomic.h"
#include "../../lib/jsonio.h"
#include "../../provenance/record/cmakeprov.h"
#include "../../provenance/record/cmdsrec.h"
#include "../../provenance/record/manifest.h"
#include "../../provenance/record/proberesult.h"
#include "../../provenance/record/signersrec.h"
#include "../../provenance/record/stmtrec.h"
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
    "   \"reproducible\": true, \"sandboxed\": false,"
    "   \"host_probes\": {\"header\": \"h\", \"LG_PAGE\": 12, \"LG_HUGEPAGE\": 21, \"LG_VADDR\": \"x\", \"pinned\": [\"--with-lg-page=12\"]},"
    "   \"uses\": [{\"variant\": \"je\", \"artifact\": \"lib/libjemalloc.a\", \"path\": null, \"sha256\": null}],"
    "   \"artifacts\": [{\"path\": \"variants/fb/build/bin/fluent-bit\", \"artifact\": \"bin/fluent-bit\", \"size\": 10,"
    "                  \"sha256\": \"" SHA_A "\", \"allocator_archive\": false, \"allocator_version\": null,"
    "                  \"parts\": {\"format\": \"elf\", \"sections\": []}},"
    "                 {\"path\": \"variants/fb/build/lib/libjemalloc_pic.a\", \"artifact\": \"lib/libjemalloc_pic.a\","
    "                  \"sha256\": \"" SHA_B "\", \"allocator_archive\": true, \"allocator_version\": \"5.3.0-0-gabc\"}]},"
    "  {\"label\": \"fb-rt\", \"kind\": \"runtime_of\", \"base\": \"fb\", \"allocator\": {}, \"source\": {}, \"artifacts\": [],"
    "   \"runtime\": {\"env\": {\"MALLOC_CONF\": \"narenas:1\", \"N\": 3}, \"unset\": [\"LD_PRELOAD\", 4]}}"
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
	if (v) {
		CHECK(v->reproducible && !v->sandboxed);
		CHECK(v->host_probes && v->host_probes->lg_page == 12 && v->host_probes->lg_hugepage == 21);
		CHECK(v->host_probes && v->host_probes->lg_vaddr == -1 && v->host_probes->pinned.n == 1);
		CHECK(v->nuses == 1 && !v->uses[0].path);
		CHECK_STR(v->nuses ? v->uses[0].variant : NULL, "je");
	}
	v = ab_binprov_variant(&b, "fb-rt");
	CHECK(v && !v->source.pin && !v->nartifacts);
	/* its runtime environment: a value that is no string is "", an unset name that is none left out */
	CHECK(v && v->nenv == 2 && v->unset.n == 1);
	if (v && v->nenv == 2) {
		CHECK_STR(v->env[0].name, "MALLOC_CONF");
		CHECK_STR(v->env[0].value, "narenas:1");
		CHECK_STR(v->env[1].value, "");
		CHECK(ab_binprov_sets(v, "N") && !ab_binprov_sets(v, "LD_PRELOAD"));
		CHECK_STR(v->unset.v[0], "LD_PRELOAD");
	}
	/* absent: reproducible and sandboxed, no host probes, no uses */
	CHECK(v && v->reproducible && v->sandboxed && !v->host_probes && !v->nuses);
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

/* version 2: the reports in an array of {label, ...}, in plan order; a label missing or twice refused */
static void
test_updiffrec_array(void)
{
	static const char rep[] = "\"candidate\": {\"kind\": \"directory\", \"digest\": {\"dirHash\": \"d\"}},"
	    " \"upstream\": {\"kind\": \"archive\", \"digest\": {\"dirHash\": \"e\"}}, \"matches\": true, \"files\": []";
	char *text = ab_sprintf("{\"version\": 2, \"variants\": [{\"label\": \"b\", %s}, {\"label\": \"a\", %s}]}", rep, rep);
	cJSON *doc = cJSON_Parse(text);
	struct ab_updiffrecs r;
	struct unit_catch c;
	char *msg;

	CHECK(ab_updiffrecs_parse(&r, doc, "ud.json") == 0);
	CHECK(r.n == 2);
	if (r.n == 2) {
		CHECK_STR(r.v[0].label, "b");
		CHECK_STR(r.v[1].label, "a");
		CHECK(r.v[1].matches && !r.v[1].identical);
	}
	CHECK(ab_updiffrecs_get(&r, "a") == &r.v[1]);
	ab_updiffrecs_release(&r);
	cJSON_Delete(doc);
	free(text);

	text = ab_sprintf("{\"version\": 2, \"variants\": [{\"label\": \"a\", %s}, {%s}]}", rep, rep);
	doc = cJSON_Parse(text);
	unit_catch_begin(&c);
	CHECK(ab_updiffrecs_parse(&r, doc, "ud.json") == AB_EFAIL);
	msg = unit_catch_end(&c);
	CHECK(strstr(msg, "'ud.json': variants[1].label: a report without its variant's label") != NULL);
	free(msg);
	cJSON_Delete(doc);
	free(text);
	text = ab_sprintf("{\"version\": 2, \"variants\": [{\"label\": \"a\", %s}, {\"label\": \"a\", %s}]}", rep, rep);
	doc = cJSON_Parse(text);
	unit_catch_begin(&c);
	CHECK(ab_updiffrecs_parse(&r, doc, "ud.json") == AB_EFAIL);
	msg = unit_catch_end(&c);
	CHECK(strstr(msg, "'ud.json': variants[1].label: 'a' twice") != NULL);
	free(msg);
	cJSON_Delete(doc);
	free(text);
}

/* cmake-cache-provenance.json: what ab_cmakeprov_doc_add writes (version 2), read back */
static void
test_cmakedoc(void)
{
	cJSON *doc = ab_cmakeprov_doc_new(), *r1 = cJSON_Parse("{\"keys\": {\"K\": {\"type\": \"BOOL\", \"value\": \"On\"}}}");
	cJSON *r2 = cJSON_Parse("{\"keys\": {\"K\": {\"type\": \"BOOL\", \"value\": \"Off\"}}}");
	struct ab_cmakeprov_doc d;

	CHECK(ab_cmakeprov_doc_add(doc, "stock", r1) == 0);
	CHECK(ab_cmakeprov_doc_add(doc, "special", r2) == 0);
	CHECK(cJSON_GetObjectItemCaseSensitive(doc, "version")->valueint == 2);
	CHECK(cJSON_IsArray(cJSON_GetObjectItemCaseSensitive(doc, "variants")));
	CHECK(ab_cmakeprov_doc_parse(&d, doc, "cm.json") == 0);
	CHECK(d.version == 2);
	CHECK_STR(d.baseline, "stock");
	CHECK(d.nvariants == 2 && d.ndiffs == 1);
	if (d.nvariants == 2 && d.ndiffs == 1 && d.diffs[0].n == 1) {
		CHECK_STR(d.variants[0].label, "stock");
		CHECK_STR(d.variants[1].label, "special");
		/* the record as it was added: its label is the entry's */
		CHECK(!cJSON_GetObjectItemCaseSensitive(d.variants[1].record, "label"));
		CHECK(cJSON_GetObjectItemCaseSensitive(d.variants[1].record, "keys") != NULL);
		CHECK_STR(d.diffs[0].a, "stock");
		CHECK_STR(d.diffs[0].b, "special");
		CHECK_STR(d.diffs[0].d[0].section, "keys");
		CHECK_STR(d.diffs[0].d[0].key, "K");
		CHECK_STR(d.diffs[0].d[0].a, "BOOL=On");
		CHECK_STR(d.diffs[0].d[0].b, "BOOL=Off");
	}
	ab_cmakeprov_doc_release(&d);
	cJSON_Delete(doc);
}

/* version 1's shape, {label: record}, still read, in its order */
static void
test_cmakedoc_v1(void)
{
	cJSON *doc = cJSON_Parse("{\"version\": 1, \"baseline\": \"b\", \"variants\": {\"b\": {\"keys\": {}}, \"a\": {\"keys\": {}}},"
	    " \"diffs\": [{\"a\": \"b\", \"b\": \"a\", \"differences\": [{\"section\": \"keys\", \"key\": \"K\", \"a\": \"absent\", \"b\": \"STRING=x\"}]}]}");
	struct ab_cmakeprov_doc d;

	CHECK(ab_cmakeprov_doc_parse(&d, doc, "cm.json") == 0);
	CHECK(d.version == 1 && d.nvariants == 2 && d.ndiffs == 1);
	if (d.nvariants == 2 && d.ndiffs == 1 && d.diffs[0].n == 1) {
		CHECK_STR(d.variants[0].label, "b");
		CHECK_STR(d.variants[1].label, "a");
		CHECK_STR(d.diffs[0].d[0].b, "STRING=x");
	}
	ab_cmakeprov_doc_release(&d);
	cJSON_Delete(doc);
}

/* text, which ab_cmakeprov_doc_parse must refuse with a message holding want */
static void
cmakedoc_refused(const char *text, const char *want)
{
	cJSON *doc = cJSON_Parse(text);
	struct ab_cmakeprov_doc d;
	struct unit_catch c;
	char *msg;
	int rc;

	unit_catch_begin(&c);
	rc = ab_cmakeprov_doc_parse(&d, doc, "cm.json");
	msg = unit_catch_end(&c);
	CHECK(rc == AB_EFAIL);
	if (!strstr(msg, want))
		fprintf(stderr, "message '%s' lacks '%s'\n", msg, want);
	CHECK(strstr(msg, want) != NULL);
	free(msg);
	cJSON_Delete(doc);
}

static void
test_cmakedoc_refused(void)
{
	cmakedoc_refused("[]", "'cm.json': expected a JSON object");
	cmakedoc_refused("{\"version\": 3, \"variants\": [], \"diffs\": []}", "'cm.json': version: expected 1 to 2");
	cmakedoc_refused("{\"version\": 2, \"variants\": \"x\", \"diffs\": []}", "'cm.json': variants: expected an array");
	cmakedoc_refused("{\"version\": 2, \"variants\": [{\"keys\": {}}], \"diffs\": []}",
	    "'cm.json': variants[0].label: a variant's record without its label");
	cmakedoc_refused("{\"version\": 2, \"variants\": [{\"label\": \"a\"}, {\"label\": \"a\"}], \"diffs\": []}",
	    "'cm.json': variants[1].label: 'a' twice");
	cmakedoc_refused("{\"version\": 2, \"variants\": [], \"diffs\": [{\"a\": \"x\"}]}",
	    "'cm.json': diffs[0]: expected {a, b, differences: [...]} naming two variants");
	cmakedoc_refused("{\"version\": 2, \"variants\": [], \"diffs\": [{\"a\": \"x\", \"b\": \"y\", \"differences\": [{\"key\": 1}]}]}",
	    "'cm.json': diffs[0].differences[0]: expected {section, key, a, b} of strings");
}

/* allocator-probes.json: each probe's verdict typed, its report kept */
static void
test_probe_results(void)
{
	cJSON *doc = cJSON_Parse("{\"variants\": [{\"label\": \"je\", \"base\": \"je\", \"requested\": {},"
	    " \"probe\": {\"allocator\": \"jemalloc\", \"version\": \"0.0.0-0-g000000missing\", \"bogus_version\": true, \"ok\": false,"
	    " \"problems\": [{\"kind\": \"invalid_option\", \"setting\": \"MALLOC_CONF\", \"message\": \"m\"}],"
	    " \"overrides\": [{\"setting\": \"narenas\", \"requested\": \"2\", \"effective\": \"2\", \"status\": \"ok\"}],"
	    " \"effective\": {\"narenas\": 2}}},"
	    " {\"label\": \"mi\", \"base\": \"mi\", \"probe\": {\"allocator\": \"mimalloc\", \"secure\": 4, \"ok\": true}}]}");
	struct ab_probe_results r;
	const struct ab_probe_result *p;

	CHECK(ab_probe_results_parse(&r, doc, "ap.json") == 0);
	CHECK(r.n == 2);
	p = ab_probe_results_get(&r, "je");
	CHECK(p && !p->ok && p->failed && p->bogus_version && p->secure == -1);
	CHECK(p && p->nproblems == 1 && p->noverrides == 1);
	CHECK_STR(p && p->noverrides ? p->overrides[0].effective : NULL, "2");
	CHECK_STR(p && p->nproblems ? p->problems[0].kind : NULL, "invalid_option");
	CHECK(p && cJSON_GetObjectItemCaseSensitive(p->report, "effective") != NULL);
	p = ab_probe_results_get(&r, "mi");
	CHECK(p && p->ok && p->secure == 4 && !p->bogus_version);
	CHECK_STR(p ? p->allocator : NULL, "mimalloc");
	CHECK(!ab_probe_results_get(&r, "nosuch"));
	ab_probe_results_release(&r);
	cJSON_Delete(doc);
}

/* text, which ab_probe_results_parse must refuse with a message holding want */
static void
probes_refused(const char *text, const char *want)
{
	cJSON *doc = cJSON_Parse(text);
	struct ab_probe_results r;
	struct unit_catch c;
	char *msg;
	int rc;

	unit_catch_begin(&c);
	rc = ab_probe_results_parse(&r, doc, "ap.json");
	msg = unit_catch_end(&c);
	CHECK(rc == AB_EFAIL);
	if (!strstr(msg, want))
		fprintf(stderr, "message '%s' lacks '%s'\n", msg, want);
	CHECK(strstr(msg, want) != NULL);
	free(msg);
	cJSON_Delete(doc);
}

static void
test_probe_results_refused(void)
{
	probes_refused("{\"variants\": {}}", "'ap.json': variants: not a list");
	probes_refused("{\"variants\": [{\"probe\": {}}]}", "'ap.json': variants[0].label: a probe without its variant's label");
	probes_refused("{\"variants\": [{\"label\": \"a\", \"probe\": null}]}",
	    "'ap.json': variants[0].probe: expected the probe's record, an object");
	probes_refused("{\"variants\": [{\"label\": \"a\", \"probe\": {}}, {\"label\": \"a\", \"probe\": {}}]}",
	    "'ap.json': variants[1].label: 'a' twice");
}

/* a Statement's subject and byproducts (a build's, a run record's), each descriptor in its place */
static void
test_stmtrec(void)
{
	cJSON *doc = cJSON_Parse("{\"_type\": \"t\", \"predicateType\": \"p\", \"subject\": [{\"name\": \"a\","
	    " \"digest\": {\"sha256\": \"" SHA_A "\"}, \"annotations\": {\"mode\": \"0755\"}}, 7, {\"name\": 1}],"
	    " \"predicate\": {\"runDetails\": {\"byproducts\": {}}, \"byproducts\": [{\"name\": \"x\"}]}}");
	struct ab_stmtrec st;

	ab_stmtrec_read(&st, doc);
	CHECK_STR(st.type, "t");
	CHECK_STR(st.predicate_type, "p");
	CHECK(st.lists[AB_STMTREC_SUBJECT].array && st.lists[AB_STMTREC_SUBJECT].n == 3);
	CHECK_STR(st.lists[AB_STMTREC_SUBJECT].v[0].name, "a");
	CHECK_STR(st.lists[AB_STMTREC_SUBJECT].v[0].sha256, SHA_A);
	CHECK_STR(st.lists[AB_STMTREC_SUBJECT].v[0].mode, "0755");
	CHECK(!st.lists[AB_STMTREC_SUBJECT].v[1].name && !st.lists[AB_STMTREC_SUBJECT].v[2].name);
	/* a build's byproducts that are no list: present, not an array (a run record's are read only without them) */
	CHECK(st.lists[AB_STMTREC_BYPRODUCTS].present && !st.lists[AB_STMTREC_BYPRODUCTS].array);
	CHECK(st.lists[AB_STMTREC_BYPRODUCTS].n == 0);
	ab_stmtrec_release(&st);
	cJSON_DeleteItemFromObject(cJSON_GetObjectItem(doc, "predicate"), "runDetails");
	ab_stmtrec_read(&st, doc);
	CHECK(st.lists[AB_STMTREC_BYPRODUCTS].n == 1);
	CHECK_STR(st.lists[AB_STMTREC_BYPRODUCTS].v[0].name, "x");
	CHECK(!st.lists[AB_STMTREC_BYPRODUCTS].v[0].sha256 && !st.lists[AB_STMTREC_BYPRODUCTS].v[0].mode);
	ab_stmtrec_release(&st);
	ab_stmtrec_read(&st, NULL);
	CHECK(!st.type && !st.lists[AB_STMTREC_SUBJECT].present && !st.lists[AB_STMTREC_BYPRODUCTS].present);
	ab_stmtrec_release(&st);
	cJSON_Delete(doc);
}

/* signers.json written and read back; one without signers has none */
static void
test_signersrec(void)
{
	char *dir = unit_tmpdir("signersrec"), *prov = ab_path_join(dir, "provenance"),
	    *p = ab_path_join(dir, AB_MANIFEST_SIGNERS);
	struct ab_strv stmts = {0};
	struct ab_signersrec_key keys[] = {{"k1", "ed25519"}, {"k2", "ecdsa-p256"}};
	struct ab_signersrec w = {.envelopes = "provenance/provenance.intoto.jsonl", .payload_type = "x",
	    .statements = &stmts, .v = keys, .n = 2}, r;
	cJSON *doc;

	ab_strv_push(&stmts, "provenance/provenance.intoto.json");
	doc = ab_signersrec_json(&w);
	CHECK(ab_mkdir_p(prov, 0755) == 0);
	CHECK(ab_json_write(p, doc) == 0);
	ab_signersrec_read(&r, dir);
	CHECK(r.n == 2);
	CHECK_STR(r.n == 2 ? r.v[1].keyid : NULL, "k2");
	CHECK_STR(r.n == 2 ? r.v[1].algorithm : NULL, "ecdsa-p256");
	ab_signersrec_release(&r);
	{
		const char *odd = "{\"signers\": [{\"keyid\": 3}]}";

		CHECK(ab_write_file_atomic(p, odd, strlen(odd)) == 0);
	}
	ab_signersrec_read(&r, dir);
	CHECK(r.n == 1 && !r.v[0].keyid && !r.v[0].algorithm);
	ab_signersrec_release(&r);
	cJSON_Delete(doc);
	ab_strv_free(&stmts);
	ab_rm_rf(dir);
	free(dir);
	free(prov);
	free(p);
}

/* a variant's tools in build-commands.json: a record read, anything else kept as none */
static void
test_cmdsrec_tools(void)
{
	cJSON *doc = cJSON_Parse("{\"version\": 2, \"variants\": [{\"label\": \"a\", \"kind\": \"autotools\","
	    " \"toolchain\": [{\"name\": \"cc\", \"version\": \"12\"}]},"
	    " {\"label\": \"b\", \"kind\": \"autotools\", \"toolchain\": {\"cc\": 1}}, {\"label\": \"c\", \"kind\": \"x\"}]}");
	struct ab_cmdsrec c;

	CHECK(ab_cmdsrec_parse(&c, doc, "bc.json") == 0);
	CHECK(c.nvariants == 3);
	if (c.nvariants == 3) {
		CHECK(c.variants[0].tools_ok && c.variants[0].tools.n == 1);
		CHECK_STR(c.variants[0].tools.n ? c.variants[0].tools.v[0].version : NULL, "12");
		CHECK(!c.variants[1].tools_ok && !c.variants[2].tools_ok);
	}
	ab_cmdsrec_release(&c);
	cJSON_Delete(doc);
}

int
main(void)
{
	test_stmtrec();
	test_signersrec();
	test_cmdsrec_tools();
	test_probe_results();
	test_probe_results_refused();
	test_binprov();
	test_binprov_refused();
	test_updiffrec();
	test_updiffrec_array();
	test_cmakedoc();
	test_cmakedoc_v1();
	test_cmakedoc_refused();
	return unit_done();
}
