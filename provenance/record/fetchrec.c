#include "fetchrec.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"

static const char *const kinds[] = {"git", "archive", "dir"};

static void
add_str(cJSON *o, const char *key, const char *value)
{
	ab_json_add_str_or_null(o, key, value);
}

static void
git_json(cJSON *o, const struct ab_fetch_record *r)
{
	add_str(o, "url", r->url);
	add_str(o, "fetch_url", r->fetch_url);
	if (r->unpinned) {
		add_str(o, "ref", r->ref);
		add_str(o, "ref_kind", r->ref_kind);
	}
	add_str(o, "commit", r->commit);
	add_str(o, "tree", r->tree);
}

const char *
ab_fetch_kind_name(enum ab_fetch_kind kind)
{
	return kinds[kind];
}

cJSON *
ab_fetch_record_json(const struct ab_fetch_record *r)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "kind", kinds[r->kind]);
	if (r->kind == AB_FETCH_DIR) {
		add_str(o, "dir", r->dir);
		add_str(o, "dirHash", r->dirhash);
		cJSON_AddNumberToObject(o, "files", (double)r->files);
		cJSON_AddNumberToObject(o, "bytes", (double)r->bytes);
		return o;
	}
	if (r->kind == AB_FETCH_GIT) {
		git_json(o, r);
	} else {
		cJSON_AddItemToObject(o, "urls", ab_json_strv(r->urls.v, r->urls.n));
		add_str(o, "sha256", r->sha256);
		cJSON_AddNumberToObject(o, "strip", r->strip);
		cJSON_AddNumberToObject(o, "size", (double)r->size);
	}
	add_str(o, "origin", r->origin);
	add_str(o, "origin_kind", r->origin_kind);
	add_str(o, "cached_from", r->cached_from);
	return o;
}

static uint64_t
number(const cJSON *o, const char *key)
{
	const cJSON *n = ab_json_get(o, key);

	return cJSON_IsNumber(n) && n->valuedouble > 0 ? (uint64_t)n->valuedouble : 0;
}

struct ab_fetch_record *
ab_fetch_record_parse(const cJSON *doc)
{
	const char *kind = ab_json_str(doc, "kind");
	const cJSON *urls = ab_json_get(doc, "urls"), *it;
	struct ab_fetch_record *r;
	size_t k = 0;

	while (kind && k < AB_NELEM(kinds) && strcmp(kinds[k], kind))
		k++;
	if (!kind || k == AB_NELEM(kinds))
		return NULL;
	r = ab_calloc(1, sizeof(*r));
	r->kind = (enum ab_fetch_kind)k;
	r->url = ab_json_strdup(doc, "url");
	r->fetch_url = ab_json_strdup(doc, "fetch_url");
	r->unpinned = cJSON_HasObjectItem(doc, "ref");
	r->ref = ab_json_strdup(doc, "ref");
	r->ref_kind = ab_json_strdup(doc, "ref_kind");
	r->commit = ab_json_strdup(doc, "commit");
	r->tree = ab_json_strdup(doc, "tree");
	cJSON_ArrayForEach(it, urls)
		if (cJSON_IsString(it))
			ab_strv_push(&r->urls, it->valuestring);
	r->sha256 = ab_json_strdup(doc, "sha256");
	r->strip = (int)number(doc, "strip");
	r->size = number(doc, "size");
	r->origin = ab_json_strdup(doc, "origin");
	r->origin_kind = ab_json_strdup(doc, "origin_kind");
	r->cached_from = ab_json_strdup(doc, "cached_from");
	r->dir = ab_json_strdup(doc, "dir");
	r->dirhash = ab_json_strdup(doc, "dirHash");
	r->files = number(doc, "files");
	r->bytes = number(doc, "bytes");
	/* what identifies the bytes: a record without it is none */
	if (r->kind == AB_FETCH_GIT ? !r->commit || !r->tree : r->kind == AB_FETCH_ARCHIVE ? !r->sha256 : !r->dirhash) {
		ab_fetch_record_free(r);
		return NULL;
	}
	return r;
}

struct ab_fetch_record *
ab_fetch_record_copy(const struct ab_fetch_record *r)
{
	struct ab_fetch_record *c = ab_calloc(1, sizeof(*c));

	*c = *r;
	memset(&c->urls, 0, sizeof(c->urls));
	for (size_t i = 0; i < r->urls.n; i++)
		ab_strv_push(&c->urls, r->urls.v[i]);
	c->url = ab_strdup_or_null(r->url);
	c->fetch_url = ab_strdup_or_null(r->fetch_url);
	c->ref = ab_strdup_or_null(r->ref);
	c->ref_kind = ab_strdup_or_null(r->ref_kind);
	c->commit = ab_strdup_or_null(r->commit);
	c->tree = ab_strdup_or_null(r->tree);
	c->sha256 = ab_strdup_or_null(r->sha256);
	c->origin = ab_strdup_or_null(r->origin);
	c->origin_kind = ab_strdup_or_null(r->origin_kind);
	c->cached_from = ab_strdup_or_null(r->cached_from);
	c->dir = ab_strdup_or_null(r->dir);
	c->dirhash = ab_strdup_or_null(r->dirhash);
	return c;
}

void
ab_fetch_record_free(struct ab_fetch_record *r)
{
	if (!r)
		return;
	free(r->url);
	free(r->fetch_url);
	free(r->ref);
	free(r->ref_kind);
	free(r->commit);
	free(r->tree);
	ab_strv_free(&r->urls);
	free(r->sha256);
	free(r->origin);
	free(r->origin_kind);
	free(r->cached_from);
	free(r->dir);
	free(r->dirhash);
	free(r);
}

/* ---- sets ---- */

const struct ab_fetch_record *
ab_fetch_set_get(const struct ab_fetch_set *set, const char *id)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].id, id))
			return set->v[i].rec;
	return NULL;
}

void
ab_fetch_set_put(struct ab_fetch_set *set, const char *id, struct ab_fetch_record *rec)
{
	set->present = 1;
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i].id, id)) {
			ab_fetch_record_free(set->v[i].rec);
			set->v[i].rec = rec;
			return;
		}
	set->v = ab_realloc(set->v, (set->n + 1) * sizeof(*set->v));
	set->v[set->n].id = ab_strdup(id);
	set->v[set->n++].rec = rec;
}

cJSON *
ab_fetch_set_json(const struct ab_fetch_set *set)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < set->n; i++)
		cJSON_AddItemToObject(o, set->v[i].id, ab_fetch_record_json(set->v[i].rec));
	return o;
}

int
ab_fetch_set_parse(struct ab_fetch_set *out, const cJSON *doc)
{
	const cJSON *it;

	memset(out, 0, sizeof(*out));
	if (!doc)
		return 0;
	if (!cJSON_IsObject(doc))
		return AB_EFAIL;
	out->present = 1;
	cJSON_ArrayForEach(it, doc) {
		struct ab_fetch_record *r = ab_fetch_record_parse(it);

		if (!r) {
			ab_fetch_set_release(out);
			return AB_EFAIL;
		}
		ab_fetch_set_put(out, it->string, r);
	}
	return 0;
}

void
ab_fetch_set_release(struct ab_fetch_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->v[i].id);
		ab_fetch_record_free(set->v[i].rec);
	}
	free(set->v);
	memset(set, 0, sizeof(*set));
}
