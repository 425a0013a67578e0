/* unit tests for provenance/review/policy (the file into typed rules) and provenance/attest/statement */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../../provenance/review/policy.h"
#include "../../provenance/attest/statement.h"
#include "unit.h"

#define KEY "0e0d9d275077e7a5a6e0f4b1e7e5c0d2a4f1b6c3d9e8f7a6b5c4d3e2f1a0b9c8"

/* parse text; the errors printed into *errs (caller frees) */
static struct ab_policy *
parse(const char *text, char **errs)
{
	struct ab_policy *p = NULL;
	size_t n = 0;
	FILE *f = open_memstream(errs, &n);

	ab_policy_parse(&p, "p.json", text, strlen(text), f);
	fclose(f);
	return p;
}

int
main(void)
{
	char *errs = NULL;
	struct ab_policy *p;

	/* every kind, typed */
	p = parse("{\"policy\": 1, \"name\": \"n\", \"rules\": [\n"
	    " {\"variants\": \"a*\", \"source\": {\"commit\": \"54eaed1d8b56b1aa528be3bdd1877e59c56fa90c\"}},\n"
	    " {\"variants\": [\"b\", \"c\"], \"allocator\": {\"kind\": \"jemalloc\", \"version\": {\"min\": \"5.3\"}}},\n"
	    " {\"variants\": [\"b\"], \"baked\": {\"exact\": \"\", \"contains\": [\"x:1\"], \"absent\": \"y\"}},\n"
	    " {\"variants\": [\"b\"], \"upstream\": \"identical\"},\n"
	    " {\"variants\": [\"b\"], \"reproducible\": {\"record\": \"rebuild\"}},\n"
	    " {\"variants\": [\"b\"], \"targets\": [{\"name\": \"t\", \"page_size\": 65536, \"vaddr_bits\": 52}]},\n"
	    " {\"signers\": {\"keys\": [\"" KEY "\"]}},\n"
	    " {\"variants\": [\"b\"], \"runs\": {\"name\": \"r\", \"values\": {\"cpu.governor\": \"performance\"}}},\n"
	    " {\"variants\": [\"b\"], \"only_differs\": {\"from\": \"a\", \"in\": [\"lib/jemalloc-5.3.0/**\"]}}\n"
	    "]}", &errs);
	CHECK_STR(errs, "");
	CHECK(p && p->nrules == 9);
	if (p && p->nrules == 9) {
		CHECK(p->rules[0].kind == AB_POL_SOURCE && p->rules[0].variants.n == 1);
		CHECK_STR(p->rules[0].variants.v[0], "a*");
		CHECK_STR(p->rules[0].commit, "54eaed1d8b56b1aa528be3bdd1877e59c56fa90c");
		CHECK(p->rules[0].line == 2 && p->rules[0].col == 2);
		CHECK(p->rules[1].version == NULL);
		CHECK_STR(p->rules[1].version_min, "5.3");
		CHECK(p->rules[1].version_max == NULL);
		CHECK_STR(p->rules[2].exact, "");
		CHECK(p->rules[2].contains.n == 1 && p->rules[2].absent.n == 1);
		CHECK(p->rules[3].kind == AB_POL_UPSTREAM && p->rules[3].identical);
		CHECK(p->rules[4].record == AB_POL_RECORD_REBUILD);
		CHECK(p->rules[5].ntargets == 1 && p->rules[5].targets[0].page == 65536 &&
		    p->rules[5].targets[0].hugepage == 0 && p->rules[5].targets[0].vaddr_bits == 52);
		CHECK(p->rules[6].kind == AB_POL_SIGNERS && p->rules[6].min == 1 && p->rules[6].variants.n == 0);
		CHECK(p->rules[7].min_repetitions == 1 && p->rules[7].value_keys.n == 1);
		CHECK_STR(p->rules[7].value_vals.v[0], "performance");
		CHECK_STR(ab_policy_kind_name(p->rules[7].kind), "runs");
		CHECK(p->rules[8].kind == AB_POL_ONLY_DIFFERS && p->rules[8].in.n == 1);
		CHECK_STR(p->rules[8].from, "a");
		CHECK_STR(p->rules[8].in.v[0], "lib/jemalloc-5.3.0/**");
	}
	ab_policy_free(p);
	free(errs);

	/* errors: sorted by position, every one, no policy */
	p = parse("{\"policy\": 1, \"rules\": [{\"variants\": [], \"baked\": {\"contains\": [\"x\"]}},\n"
	    "{\"variants\": [\"a\"], \"allocator\": {\"kind\": \"hoard\", \"version\": \"5.x\"}}], \"extra\": 1}", &errs);
	CHECK(p == NULL);
	CHECK_STR(errs, "p.json:1:1: name: required key is missing\n"
	    "p.json:1:38: rules[0].variants: must not be empty\n"
	    "p.json:1:65: rules[0].baked.contains[0]: 'x' is not a setting 'name:value'\n"
	    "p.json:2:43: rules[1].allocator.kind: unknown allocator 'hoard' (jemalloc, mimalloc, tcmalloc or glibc)\n"
	    "p.json:2:63: rules[1].allocator.version: '5.x' is not a version such as '5.3.0'\n"
	    "p.json:2:73: extra: unknown key\n");
	ab_policy_free(p);
	free(errs);
	ab_policy_free(NULL);

	/* a key listed twice would let one key meet "min": 2; a range above its max holds no version */
	p = parse("{\"policy\": 1, \"name\": \"n\", \"rules\": [\n"
	    " {\"signers\": {\"keys\": [\"" KEY "\", \"" KEY "\"], \"min\": 2}},\n"
	    " {\"variants\": \"a\", \"allocator\": {\"kind\": \"jemalloc\", \"version\": {\"min\": \"5.3.1\", \"max\": \"5.3.0\"}}},\n"
	    " {\"variants\": \"a\", \"allocator\": {\"kind\": \"jemalloc\", \"version\": {\"min\": \"5.10\", \"max\": \"5.9\"}}}\n"
	    "]}", &errs);
	CHECK(p == NULL);
	CHECK_STR(errs, "p.json:2:92: rules[0].signers.keys[1]: '" KEY "' is listed twice (first at 2:24): "
	    "a key counts once\n"
	    "p.json:3:73: rules[1].allocator.version.min: '5.3.1' is above max '5.3.0': no version is in the range\n"
	    "p.json:4:73: rules[2].allocator.version.min: '5.10' is above max '5.9': no version is in the range\n");
	ab_policy_free(p);
	free(errs);
	/* ranges that hold a version load: equal ends, a max that takes every 5.3.x, a min shorter than its max */
	p = parse("{\"policy\": 1, \"name\": \"n\", \"rules\": [\n"
	    " {\"variants\": \"a\", \"allocator\": {\"kind\": \"jemalloc\", \"version\": {\"min\": \"5.3.0\", \"max\": \"5.3.0\"}}},\n"
	    " {\"variants\": \"a\", \"allocator\": {\"kind\": \"jemalloc\", \"version\": {\"min\": \"5.3.1\", \"max\": \"5.3\"}}},\n"
	    " {\"variants\": \"a\", \"allocator\": {\"kind\": \"jemalloc\", \"version\": {\"min\": \"5.3\", \"max\": \"5.3.0\"}}}\n"
	    "]}", &errs);
	CHECK_STR(errs, "");
	CHECK(p && p->nrules == 3);
	ab_policy_free(p);
	free(errs);
	CHECK(ab_policy_version_cmp("5.3.2-0-g1234", "5.3") == 0);
	CHECK(ab_policy_version_cmp("5.10.0", "5.9") > 0);
	CHECK(ab_policy_version_cmp("5.3", "5.3.0") < 0);

	/* the one Statement builder */
	{
		cJSON *subj, *st = ab_statement_new("https://example.invalid/p/v1", &subj);
		char *s;

		ab_statement_descriptor(subj, "a/b", "00");
		cJSON_AddObjectToObject(st, "predicate");
		s = cJSON_PrintUnformatted(st);
		CHECK_STR(s, "{\"_type\":\"https://in-toto.io/Statement/v1\",\"subject\":[{\"name\":\"a/b\",\"digest\":"
		    "{\"sha256\":\"00\"}}],\"predicateType\":\"https://example.invalid/p/v1\",\"predicate\":{}}");
		CHECK(ab_statement_is(st, 0));
		free(s);
		cJSON_Delete(st);
	}
	return unit_done();
}
