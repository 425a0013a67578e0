#include "jsonio.h"

#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "util.h"

int
ab_json_write(const char *path, const cJSON *doc)
{
	char *text = cJSON_Print(doc);
	struct ab_buf b = {0};
	int error;

	if (!text) {
		ab_error("cannot serialise '%s'", path);
		return -1;
	}
	ab_buf_puts(&b, text);
	ab_buf_putc(&b, '\n');
	cJSON_free(text);
	error = ab_atomic_write(path, b.s, b.len, 0);
	ab_buf_free(&b);
	return error;
}

int
ab_json_print(FILE *f, const cJSON *doc)
{
	char *text = cJSON_Print(doc);

	if (!text) {
		ab_error("cannot serialise the result");
		return -1;
	}
	fprintf(f, "%s\n", text);
	cJSON_free(text);
	return 0;
}

int
ab_json_read(cJSON **out, const char *path)
{
	struct ab_buf b = {0};
	const char *end = NULL;

	*out = NULL;
	if (ab_read_file(&b, path) < 0)
		return -1;
	*out = cJSON_ParseWithLengthOpts(b.s, b.len, &end, 0);
	if (!*out) {
		size_t off = end ? (size_t)(end - b.s) : 0;
		int line = 1, col = 1;

		for (size_t i = 0; i < off && i < b.len; i++) {
			if (b.s[i] == '\n')
				line++, col = 1;
			else
				col++;
		}
		ab_error("%s:%d:%d: invalid JSON", path, line, col);
		ab_buf_free(&b);
		return -1;
	}
	ab_buf_free(&b);
	return 0;
}

cJSON *
ab_json_strv(char *const *v, size_t n)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

const char *
ab_json_str(const cJSON *obj, const char *key)
{
	const cJSON *it = ab_json_get(obj, key);

	return cJSON_IsString(it) ? it->valuestring : NULL;
}

char *
ab_json_strdup(const cJSON *obj, const char *key)
{
	return ab_strdup_or_null(ab_json_str(obj, key));
}

cJSON *
ab_json_get(const cJSON *obj, const char *key)
{
	return cJSON_GetObjectItemCaseSensitive(obj, key);
}

cJSON *
ab_json_labelled(const char *label, const cJSON *payload)
{
	cJSON *entry = cJSON_CreateObject(), *m;

	cJSON_AddStringToObject(entry, "label", label);
	cJSON_ArrayForEach(m, payload)
		if (m->string && strcmp(m->string, "label"))
			cJSON_AddItemToObject(entry, m->string, cJSON_Duplicate(m, 1));
	return entry;
}

cJSON *
ab_json_labelled_find(const cJSON *doc, const char *label)
{
	const cJSON *vs = ab_json_get(doc, "variants");
	cJSON *it;

	if (!label)
		return NULL;
	if (cJSON_IsObject(vs))
		return ab_json_get(vs, label);
	cJSON_ArrayForEach(it, vs) {
		const char *l = ab_json_str(it, "label");

		if (l && !strcmp(l, label))
			return it;
	}
	return NULL;
}

void
ab_json_add_str_or_null(cJSON *obj, const char *key, const char *v)
{
	if (v)
		cJSON_AddStringToObject(obj, key, v);
	else
		cJSON_AddNullToObject(obj, key);
}
