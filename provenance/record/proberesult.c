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
#include <string.h>

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
	free(r->conf_var);
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
	const cJSON *ok = ab_json_get(rec, "ok");
	const cJSON *secure = ab_json_get(rec, "secure");

	verdict_release(r);
	*r = (struct ab_probe_result){.report = rec};
	r->allocator = ab_json_strdup(rec, "allocator");
	r->version = ab_json_strdup(rec, "version");
	r->conf_var = ab_json_strdup(rec, "conf_var");
	r->bogus_version = cJSON_IsTrue(ab_json_get(rec, "bogus_version"));
	r->secure = cJSON_IsNumber(secure) ? secure->valueint : -1;
	r->ok = cJSON_IsTrue(ok);
	r->failed = ok && !cJSON_IsTrue(ok);
	read_problems(r, ab_json_get(rec, "problems"));
	read_overrides(r, ab_json_get(rec, "overrides"));
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

int
ab_probe_results_parse(struct ab_probe_results *out, const cJSON *doc, const char *file)
{
	const cJSON *vars = ab_json_get(doc, "variants"), *it;
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsArray(vars)) {
		ab_error("'%s': variants: not a list", file);
		return AB_EFAIL;
	}
	out->v = ab_calloc((size_t)cJSON_GetArraySize(vars) + 1, sizeof(*out->v));
	cJSON_ArrayForEach(it, vars) {
		const char *label = ab_json_str(it, "label");
		const cJSON *probe = ab_json_get(it, "probe");
		struct ab_probe_entry *e;

		if (!label || !*label) {
			ab_error("'%s': variants[%zu].label: a probe without its variant's label", file, i);
			goto fail;
		}
		if (!cJSON_IsObject(probe)) {
			ab_error("'%s': variants[%zu].probe: expected the probe's record, an object", file, i);
			goto fail;
		}
		if (ab_probe_results_get(out, label)) {
			ab_error("'%s': variants[%zu].label: '%s' twice", file, i, label);
			goto fail;
		}
		e = &out->v[out->n++];
		e->label = ab_strdup(label);
		e->base = ab_json_strdup(it, "base");
		e->result = ab_probe_result_new(cJSON_Duplicate(probe, 1));
		i++;
	}
	return 0;
fail:
	ab_probe_results_release(out);
	return AB_EFAIL;
}

const struct ab_probe_result *
ab_probe_results_get(const struct ab_probe_results *r, const char *label)
{
	for (size_t i = 0; label && i < r->n; i++)
		if (!strcmp(r->v[i].label, label))
			return r->v[i].result;
	return NULL;
}

void
ab_probe_results_release(struct ab_probe_results *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].label);
		free(r->v[i].base);
		ab_probe_result_free(r->v[i].result);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}
