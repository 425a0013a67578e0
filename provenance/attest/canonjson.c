#include "canonjson.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"

/* the largest integer below which a double holds every integer */
#define EXACT_MAX 9007199254740992.0

static void
put_string(struct ab_buf *out, const char *s)
{
	ab_buf_putc(out, '"');
	for (; *s; s++) {
		if (*s == '\\' || *s == '"')
			ab_buf_putc(out, '\\');
		ab_buf_putc(out, *s);
	}
	ab_buf_putc(out, '"');
}

static int
put_number(struct ab_buf *out, const cJSON *v)
{
	double d = v->valuedouble;

	if (!isfinite(d) || d != floor(d) || fabs(d) > EXACT_MAX) {
		ab_error("cannot encode %s%s%s as canonical JSON: %.17g is not an integer it holds", v->string ? "'" : "",
		    v->string ? v->string : "a number", v->string ? "'" : "", d);
		return AB_EFAIL;
	}
	ab_buf_printf(out, "%lld", (long long)d);
	return 0;
}

static int
cmp_member(const void *a, const void *b)
{
	return strcmp((*(const cJSON *const *)a)->string, (*(const cJSON *const *)b)->string);
}

static int encode(struct ab_buf *out, const cJSON *v);

/* the members of an object, sorted; two of one name refused */
static int
put_object(struct ab_buf *out, const cJSON *v)
{
	size_t n = (size_t)cJSON_GetArraySize(v), i = 0;
	const cJSON **m = ab_calloc(n ? n : 1, sizeof(*m)), *it;
	int e = 0;

	cJSON_ArrayForEach(it, v) m[i++] = it;
	qsort(m, n, sizeof(*m), cmp_member);
	ab_buf_putc(out, '{');
	for (i = 0; i < n && e == 0; i++) {
		if (i && !strcmp(m[i - 1]->string, m[i]->string)) {
			ab_error("cannot encode an object as canonical JSON: two members named '%s'", m[i]->string);
			e = AB_EFAIL;
			break;
		}
		if (i)
			ab_buf_putc(out, ',');
		put_string(out, m[i]->string);
		ab_buf_putc(out, ':');
		e = encode(out, m[i]);
	}
	ab_buf_putc(out, '}');
	free(m);
	return e;
}

static int
encode(struct ab_buf *out, const cJSON *v)
{
	const cJSON *it;
	int e = 0;

	if (cJSON_IsString(v))
		put_string(out, v->valuestring);
	else if (cJSON_IsTrue(v))
		ab_buf_puts(out, "true");
	else if (cJSON_IsFalse(v))
		ab_buf_puts(out, "false");
	else if (cJSON_IsNull(v))
		ab_buf_puts(out, "null");
	else if (cJSON_IsNumber(v))
		e = put_number(out, v);
	else if (cJSON_IsObject(v))
		e = put_object(out, v);
	else if (cJSON_IsArray(v)) {
		ab_buf_putc(out, '[');
		cJSON_ArrayForEach(it, v) {
			if (it != v->child)
				ab_buf_putc(out, ',');
			if ((e = encode(out, it)) < 0)
				break;
		}
		ab_buf_putc(out, ']');
	} else {
		ab_error("cannot encode as canonical JSON: not a JSON value");
		e = AB_EFAIL;
	}
	return e;
}

int
ab_canonjson(struct ab_buf *out, const cJSON *v)
{
	return encode(out, v);
}
