#include "sourcesrec.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"

int
ab_sourcesrec_parse(struct ab_sourcesrec *out, const cJSON *doc, const char *file)
{
	const cJSON *srcs = ab_json_get(doc, "sources"), *it, *x;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(doc) || (srcs && !cJSON_IsObject(srcs))) {
		ab_error("'%s': sources: expected an object of fetch records by source id", file);
		return AB_EFAIL;
	}
	out->description = ab_json_strdup(ab_json_get(doc, "recipe"), "description");
	out->v = ab_calloc((size_t)cJSON_GetArraySize(srcs) + 1, sizeof(*out->v));
	cJSON_ArrayForEach(it, srcs) {
		struct ab_sourcesrec_source *s = &out->v[out->n++];

		s->id = ab_strdup(it->string);
		if (!(s->rec = ab_fetch_record_parse(it))) {
			ab_error("'%s': sources.%s: not a fetch record with its commit, sha256 or dirHash", file, s->id);
			ab_sourcesrec_release(out);
			return AB_EFAIL;
		}
		cJSON_ArrayForEach(x, ab_json_get(it, "patches"))
			ab_strv_push(&s->patches, cJSON_IsString(x) ? x->valuestring : "?");
		cJSON_ArrayForEach(x, ab_json_get(it, "overlay")) {
			ab_strv_push(&s->overlay_paths, x->string ? x->string : "");
			ab_strv_push(&s->overlay_sources, cJSON_IsString(x) ? x->valuestring : "?");
		}
	}
	return 0;
}

void
ab_sourcesrec_release(struct ab_sourcesrec *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].id);
		ab_fetch_record_free(s->v[i].rec);
		ab_strv_free(&s->v[i].patches);
		ab_strv_free(&s->v[i].overlay_paths);
		ab_strv_free(&s->v[i].overlay_sources);
	}
	free(s->v);
	free(s->description);
	memset(s, 0, sizeof(*s));
}
