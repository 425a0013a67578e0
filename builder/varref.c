#include "varref.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"

int
ab_varref_next(const char *s, size_t *pos, size_t *start, size_t *end, struct ab_varref *ref)
{
	const char *open = strstr(s + *pos, AB_VARREF_OPEN), *label, *colon, *close;

	if (!open) {
		*pos = strlen(s);
		return 0;
	}
	*start = (size_t)(open - s);
	label = open + strlen(AB_VARREF_OPEN);
	colon = label + strcspn(label, ":}");
	close = *colon == ':' ? strchr(colon + 1, '}') : NULL;
	if (!close || colon == label || close == colon + 1) {
		*pos = (size_t)(label - s);
		return -1;
	}
	ref->label = ab_strndup(label, (size_t)(colon - label));
	ref->path = ab_strndup(colon + 1, (size_t)(close - colon - 1));
	*end = (size_t)(close + 1 - s);
	*pos = *end;
	return 1;
}

char *
ab_varref_expand(const char *s, ab_varref_resolve_fn *resolve, void *arg)
{
	struct ab_buf b = {0};
	size_t pos = 0, last = 0, start, end;
	struct ab_varref ref;
	int r;

	while ((r = ab_varref_next(s, &pos, &start, &end, &ref)) == 1) {
		char *with = resolve(arg, ref.label, ref.path);

		ab_varref_release(&ref);
		if (!with) {
			ab_buf_free(&b);
			return NULL;
		}
		ab_buf_add(&b, s + last, start - last);
		ab_buf_puts(&b, with);
		free(with);
		last = end;
	}
	if (r < 0) {
		ab_buf_free(&b);
		return NULL;
	}
	ab_buf_puts(&b, s + last);
	return ab_buf_detach(&b);
}

void
ab_varref_release(struct ab_varref *ref)
{
	free(ref->label);
	free(ref->path);
	ref->label = ref->path = NULL;
}
