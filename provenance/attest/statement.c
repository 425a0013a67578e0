/* statement: the in-toto Statement, built and recognised in one place */
#include <string.h>

#include "statement.h"

#include "../../lib/jsonio.h"

cJSON *
ab_statement_new(const char *predicate_type, cJSON **subject)
{
	cJSON *st = cJSON_CreateObject(), *arr;

	cJSON_AddStringToObject(st, "_type", AB_STATEMENT_V1);
	arr = cJSON_AddArrayToObject(st, "subject");
	cJSON_AddStringToObject(st, "predicateType", predicate_type);
	if (subject)
		*subject = arr;
	return st;
}

cJSON *
ab_statement_descriptor(cJSON *arr, const char *name, const char *sha256)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", name);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "digest"), "sha256", sha256);
	cJSON_AddItemToArray(arr, o);
	return o;
}

int
ab_statement_is(const cJSON *doc, int v01)
{
	const cJSON *t = ab_json_get(doc, "_type");

	if (!cJSON_IsString(t))
		return 0;
	return !strcmp(t->valuestring, AB_STATEMENT_V1) || (v01 && !strcmp(t->valuestring, AB_STATEMENT_V01));
}
