/*
 * proberesult: a probe's result as a build keeps it (provenance/record/record.h):
 * its verdict typed, what the build decides on and its table prints,
 * beside the report (the probe's record, provenance/probe/probe.h, as it
 * is written: allocator-probes.json, state.json). The verdict is read
 * from the report in one place, ab_probe_result_read; the probe's own
 * steps that change a report later (a cargo build's bundled jemalloc,
 * the recipe's expect: ab_probe_result_bundled, ab_probe_result_check_expect
 * in provenance/probe/probe.h) read it again through it.
 */
#include "proberesult.h"

#include <stdlib.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"

static void
verdict_release(struct ab_probe_result *r)
{
	for (size_t i = 0; i < r->nproblems; i++) {
		struct ab_probe_problem *p = &r->problems[i];

		free(p->kind);
		free(p->setting);
		free(p->origin);
		free(p->message);
	}
	for (size_t i = 0; i < r->noverrides; i++) {
		struct ab_probe_override *o = &r->overrides[i];

		free(o->setting);
		free(o->option);
		free(o->origin);
		free(o->requested);
		free(o->effective);
		free(o->status);
	}
	free(r->problems);
	free(r->overrides);
	free(r->allocator);
	free(r->version);
}

static void
read_problems(struct ab_probe_result *r, const cJSON *problems)
{
	const cJSON *it;

	r->problems = ab_calloc((size_t)cJSON_GetArraySize(problems) + 1, sizeof(*r->problems));
	cJSON_ArrayForEach(it, problems) {
		struct ab_probe_problem *p = &r->problems[r->nproblems++];

		p->kind = ab_json_strdup(it, "kind");
		p->setting = ab_json_strdup(it, "setting");
		p->origin = ab_json_strdup(it, "origin");
		p->message = ab_json_strdup(it, "message");
	}
}

static void
read_overrides(struct ab_probe_result *r, const cJSON *overrides)
{
	const cJSON *it;

	r->overrides = ab_calloc((size_t)cJSON_GetArraySize(overrides) + 1, sizeof(*r->overrides));
	cJSON_ArrayForEach(it, overrides) {
		struct ab_probe_override *o = &r->overrides[r->noverrides++];

		o->setting = ab_json_strdup(it, "setting");
		o->option = ab_json_strdup(it, "option");
		o->origin = ab_json_strdup(it, "origin");
		o->requested = ab_json_strdup(it, "requested");
		o->effective = ab_json_strdup(it, "effective");
		o->status = ab_json_strdup(it, "status");
	}
}

void
ab_probe_result_read(struct ab_probe_result *r)
{
	cJSON *rec = r->report;
	const cJSON *ok = cJSON_GetObjectItemCaseSensitive(rec, "ok");
	const cJSON *secure = cJSON_GetObjectItemCaseSensitive(rec, "secure");

	verdict_release(r);
	*r = (struct ab_probe_result){.report = rec};
	r->allocator = ab_json_strdup(rec, "allocator");
	r->version = ab_json_strdup(rec, "version");
	r->secure = cJSON_IsNumber(secure) ? secure->valueint : -1;
	r->ok = cJSON_IsTrue(ok);
	r->failed = ok && !cJSON_IsTrue(ok);
	read_problems(r, cJSON_GetObjectItemCaseSensitive(rec, "problems"));
	read_overrides(r, cJSON_GetObjectItemCaseSensitive(rec, "overrides"));
}

struct ab_probe_result *
ab_probe_result_new(cJSON *report)
{
	struct ab_probe_result *r;

	if (!report)
		return NULL;
	r = ab_calloc(1, sizeof(*r));
	r->report = report;
	ab_probe_result_read(r);
	return r;
}

cJSON *
ab_probe_result_json(const struct ab_probe_result *r)
{
	return r ? cJSON_Duplicate(r->report, 1) : NULL;
}

void
ab_probe_result_free(struct ab_probe_result *r)
{
	if (!r)
		return;
	verdict_release(r);
	cJSON_Delete(r->report);
	free(r);
}
