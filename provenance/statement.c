/*
 * statement: the one builder of in-toto Statements (provenance/statement.h).
 */
#include <string.h>

#include "../lib/jsonio.h"
#include "statement.h"

cJSON *
ab_statement_new(cJSON **subjects, const char *predicate_type)
{
	cJSON *st = cJSON_CreateObject();

	cJSON_AddStringToObject(st, "_type", AB_STATEMENT_TYPE);
	*subjects = cJSON_AddArrayToObject(st, "subject");
	cJSON_AddStringToObject(st, "predicateType", predicate_type);
	return st;
}

void
ab_statement_add_subject(cJSON *subjects, const char *name, const char *sha256)
{
	cJSON *s = cJSON_CreateObject();

	cJSON_AddStringToObject(s, "name", name);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(s, "digest"), "sha256", sha256);
	cJSON_AddItemToArray(subjects, s);
}

int
ab_statement_is(const cJSON *doc)
{
	const char *t = ab_json_str(doc, "_type");

	return t && (!strcmp(t, AB_STATEMENT_TYPE) || !strcmp(t, AB_STATEMENT_TYPE_V01));
}
