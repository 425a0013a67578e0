/*
 * probe_record: the parts of a probe record that the allocator-specific
 * probes (probe_jemalloc.c, probe_mimalloc.c) and probe.c share.
 */
#include "probe.h"
#include "probe_impl.h"

#include <stdarg.h>
#include <stdlib.h>

#include "../lib/util.h"

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
	if (effective)
		cJSON_AddStringToObject(o, "effective", effective);
	else
		cJSON_AddNullToObject(o, "effective");
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
	if (setting)
		cJSON_AddStringToObject(p, "setting", setting);
	else
		cJSON_AddNullToObject(p, "setting");
	if (origin)
		cJSON_AddStringToObject(p, "origin", origin);
	else
		cJSON_AddNullToObject(p, "origin");
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

int
ab_probe_ok(const cJSON *rec)
{
	return cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "ok"));
}
