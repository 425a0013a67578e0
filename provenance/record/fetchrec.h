/*
 * fetchrec: a source's fetch record (docs/sources.md), what
 * builder/source.c made present in the cache and the build keys, records
 * and names as a resolvedDependency, typed. One serializer,
 * ab_fetch_record_json (sources.json, state.json's "fetched"), and one
 * parser, ab_fetch_record_parse (an earlier build's state.json):
 *   git      {kind, url, fetch_url, [ref, ref_kind,] commit, tree, origin, origin_kind, cached_from}
 *   archive  {kind, urls, sha256, strip, size, origin, origin_kind, cached_from}
 *   dir      {kind, dir, dirHash, files, bytes}
 * A URL is recorded without its credentials (lib/redact.h); a field left
 * NULL is written as null.
 *
 * A set maps source ids to records, in the order they were put: a
 * variant's "fetched", a run's sources.
 */
#ifndef AB_FETCHREC_H
#define AB_FETCHREC_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../../lib/util.h"

enum ab_fetch_kind { AB_FETCH_GIT, AB_FETCH_ARCHIVE, AB_FETCH_DIR };

struct ab_fetch_record {
	enum ab_fetch_kind kind;
	char *url, *fetch_url;       /* git */
	int unpinned;                /* git: fetched by a ref, ref and ref_kind recorded */
	char *ref, *ref_kind;
	char *commit, *tree;         /* git */
	struct ab_strv urls;         /* archive */
	char *sha256;                /* archive */
	int strip;                   /* archive */
	uint64_t size;               /* archive */
	char *origin, *origin_kind;  /* git and archive: where the bytes came from ("fetch", "cache", "url", ...) */
	char *cached_from;           /* git and archive */
	char *dir, *dirhash;         /* dir */
	uint64_t files, bytes;       /* dir */
};

/* the kind as a record names it: "git", "archive", "dir" */
const char *ab_fetch_kind_name(enum ab_fetch_kind kind);
/* the record as it is written; a new object */
cJSON *ab_fetch_record_json(const struct ab_fetch_record *r);
/* the same read back; NULL when doc is not a fetch record */
struct ab_fetch_record *ab_fetch_record_parse(const cJSON *doc);
struct ab_fetch_record *ab_fetch_record_copy(const struct ab_fetch_record *r);
void ab_fetch_record_free(struct ab_fetch_record *r);

struct ab_fetch_set {
	struct ab_fetch_entry {
		char *id;
		struct ab_fetch_record *rec;
	} *v;
	size_t n;
	int present;                 /* recorded, even with no source (a build variant's "fetched": {}) */
};
/* the record of source id in set, or NULL */
const struct ab_fetch_record *ab_fetch_set_get(const struct ab_fetch_set *set, const char *id);
/* rec (taken) as the record of id: replaces one there, else is appended */
void ab_fetch_set_put(struct ab_fetch_set *set, const char *id, struct ab_fetch_record *rec);
/* {id: record, ...}; a new object */
cJSON *ab_fetch_set_json(const struct ab_fetch_set *set);
/* the same read back into *out (empty, not present, when doc is NULL); AB_EFAIL when it is not one */
int ab_fetch_set_parse(struct ab_fetch_set *out, const cJSON *doc);
void ab_fetch_set_release(struct ab_fetch_set *set);

#endif
