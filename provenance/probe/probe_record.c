/*
 * probe_record: the parts of a probe record that the allocator-specific
 * probes (probe_jemalloc.c, probe_mimalloc.c) and probe.c share, and the
 * recipe's expect checked on a build's typed result
 * (provenance/record/proberesult.h).
 */
#include "probe.h"
#include "probe_impl.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"

void
ab_probe_add_override(cJSON *overrides, const char *setting, const char *option, const char *origin,
    const char *requested, const char *effective, const char *status)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "setting", setting);
	if (option)
		cJSON_AddStringToObject(o, "option", option);
	cJSON_AddStringToObject(o, "origin", origin);
	cJSON_AddStringToObject(o, "requested", requested);
	ab_json_add_str_or_null(o, "effective", effective);
	cJSON_AddStringToObject(o, "status", status);
	cJSON_AddItemToArray(overrides, o);
}

void
ab_probe_add_problem(cJSON *rec, const char *kind, const char *setting, const char *origin,
    const char *fmt, ...)
{
	cJSON *problems = cJSON_GetObjectItemCaseSensitive(rec, "problems");
	cJSON *p = cJSON_CreateObject();
	struct ab_buf b = {0};
	va_list ap;

	if (!problems)
		problems = cJSON_AddArrayToObject(rec, "problems");
	va_start(ap, fmt);
	ab_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	cJSON_AddStringToObject(p, "kind", kind);
	ab_json_add_str_or_null(p, "setting", setting);
	ab_json_add_str_or_null(p, "origin", origin);
	cJSON_AddStringToObject(p, "message", b.s ? b.s : "");
	cJSON_AddItemToArray(problems, p);
	ab_buf_free(&b);
}

void
ab_probe_finish(cJSON *rec)
{
	/* one order for every record, whatever order the parts were found in */
	static const char *const order[] = {
		"allocator", "asked_for", "detected", "version", "version_from", "mi_version", "bogus_version",
		"prefix", "conf_var", "build_time", "quantum", "page", "secure", "debug", "requested", "effective",
		"config", "overrides", "problems", "messages", "allocators", "notes", "archive", "compile", "run",
	};
	const cJSON *problems;
	cJSON *rest = cJSON_CreateObject(), *it;

	if (!cJSON_GetObjectItemCaseSensitive(rec, "problems"))
		cJSON_AddArrayToObject(rec, "problems");
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "ok");
	for (size_t i = 0; i < AB_NELEM(order); i++)
		if ((it = cJSON_DetachItemFromObjectCaseSensitive(rec, order[i])))
			cJSON_AddItemToObject(rest, order[i], it);
	while (rec->child) {
		it = cJSON_DetachItemViaPointer(rec, rec->child);
		cJSON_AddItemToObject(rest, it->string, it);
	}
	while (rest->child) {
		it = cJSON_DetachItemViaPointer(rest, rest->child);
		cJSON_AddItemToObject(rec, it->string, it);
	}
	cJSON_Delete(rest);
	problems = cJSON_GetObjectItemCaseSensitive(rec, "problems");
	cJSON_AddBoolToObject(rec, "ok", cJSON_GetArraySize(problems) == 0);
}

/* is the reported version the expected one ("5.3.0" matches "5.3.0-0-g54eaed1d...", "v2.1.7" "2.1.7")? */
static int
version_matches(const char *want, const char *got)
{
	size_t n;

	if (*want == 'v')
		want++;
	if (*got == 'v')
		got++;
	n = strlen(want);
	return !strncmp(want, got, n) && (got[n] == '\0' || got[n] == '-');
}

/* option values: equal strings, or equal integers ("10" and "10 ms", mimalloc's verbose form) */
static int
value_matches(const char *want, const char *got)
{
	char *ew, *eg;
	long long w, g;

	if (!strcmp(want, got))
		return 1;
	errno = 0;
	w = strtoll(want, &ew, 10);
	g = strtoll(got, &eg, 10);
	return !errno && ew != want && eg != got && !*ew && (!*eg || *eg == ' ') && w == g;
}

int
ab_probe_check_expect(cJSON *rec, const struct ab_probe_expect *x)
{
	const cJSON *eff = cJSON_GetObjectItemCaseSensitive(rec, "effective");
	const char *got = ab_json_str(rec, "version");
	cJSON *want = cJSON_CreateObject();
	int bad = 0;

	if (x->version) {
		cJSON_AddStringToObject(want, "version", x->version);
		if (!got || !version_matches(x->version, got)) {
			ab_probe_add_problem(rec, "expect_mismatch", "version", "expect",
			    "expected version %s, the probe found %s", x->version, got ? got : "none");
			bad++;
		}
	}
	if (x->secure >= 0) {
		const cJSON *s = cJSON_GetObjectItemCaseSensitive(rec, "secure");

		cJSON_AddNumberToObject(want, "secure", x->secure);
		if (!cJSON_IsNumber(s) || s->valueint != x->secure) {
			char actual[32];

			snprintf(actual, sizeof(actual), cJSON_IsNumber(s) ? "%d" : "none", cJSON_IsNumber(s) ? s->valueint : 0);
			ab_probe_add_problem(rec, "expect_mismatch", "secure", "expect",
			    "expected secure level %d, the probe found %s", x->secure, actual);
			bad++;
		}
	}
	if (x->options && x->options->n) {
		cJSON *o = cJSON_AddObjectToObject(want, "options");

		for (size_t i = 0; i < x->options->n; i++) {
			const char *name = x->options->v[i].key, *value = x->options->v[i].value;
			const char *have = ab_json_str(eff, name);

			cJSON_AddStringToObject(o, name, value);
			if (!have || !value_matches(value, have)) {
				ab_probe_add_problem(rec, "expect_mismatch", name, "expect",
				    "expected %s %s, the probe found %s", name, value, have ? have : "no value");
				bad++;
			}
		}
	}
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "expected");
	cJSON_AddItemToObject(rec, "expected", want);
	if (bad) {
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "ok");
		cJSON_AddFalseToObject(rec, "ok");
	}
	return bad;
}

int
ab_probe_ok(const cJSON *rec)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "ok"));
}

int
ab_probe_result_check_expect(struct ab_probe_result *r, const struct ab_probe_expect *x)
{
	int n = ab_probe_check_expect(r->report, x);

	ab_probe_result_read(r);
	return n;
}
