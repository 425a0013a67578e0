/*
 * stmtrec: an in-toto Statement read back for what it names
 * (stmtrec.h).
 */
#include "stmtrec.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "manifest.h"

static void
read_list(struct ab_stmtrec_list *l, const cJSON *list)
{
	const cJSON *it;

	memset(l, 0, sizeof(*l));
	l->present = list != NULL;
	l->array = cJSON_IsArray(list);
	if (!l->array)
		return;
	l->v = ab_calloc((size_t)cJSON_GetArraySize(list) + 1, sizeof(*l->v));
	cJSON_ArrayForEach(it, list) {
		struct ab_stmtrec_descriptor *d = &l->v[l->n++];

		d->name = ab_json_str(it, "name");
		d->sha256 = ab_json_str(ab_json_get(it, "digest"), "sha256");
		d->mode = ab_json_str(ab_json_get(it, "annotations"), AB_MANIFEST_MODE);
	}
}

void
ab_stmtrec_read(struct ab_stmtrec *s, const cJSON *doc)
{
	const cJSON *pred = ab_json_get(doc, "predicate"), *byp;

	memset(s, 0, sizeof(*s));
	s->type = ab_json_str(doc, "_type");
	s->predicate_type = ab_json_str(doc, "predicateType");
	read_list(&s->lists[AB_STMTREC_SUBJECT], ab_json_get(doc, "subject"));
	byp = ab_json_get(ab_json_get(pred, "runDetails"), "byproducts");
	/* a run record's predicate (provenance/runs/runrec.h) lists its byproducts itself */
	if (!byp)
		byp = ab_json_get(pred, "byproducts");
	read_list(&s->lists[AB_STMTREC_BYPRODUCTS], byp);
}

void
ab_stmtrec_release(struct ab_stmtrec *s)
{
	for (int k = 0; k < 2; k++)
		free(s->lists[k].v);
	memset(s, 0, sizeof(*s));
}
