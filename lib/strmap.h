/*
 * strmap: strings to indices, found in constant time. The one index of
 * allocbuild's string lists where a list can grow with the user's work
 * (the files of an OUTDIR grow with every run recorded in it: verify
 * looks each one up in several lists).
 *
 * Keys are not copied: each must outlive the map, as the strings of an
 * ab_strv or the paths of a list of records do. Open addressing, FNV-1a,
 * kept at most half full.
 *
 *   struct ab_strmap m = {0};
 *   for (size_t i = 0; i < sv->n; i++)
 *           if (!ab_strmap_put(&m, sv->v[i], i))
 *                   ... sv->v[i] is named twice ...
 *   if (ab_strmap_get(&m, name, &i)) ... sv->v[i] ...
 *   ab_strmap_free(&m);
 */
#ifndef AB_STRMAP_H
#define AB_STRMAP_H

#include <stddef.h>

struct ab_strv;

struct ab_strmap {
	struct ab_strmap_slot {
		const char *key; /* NULL: free */
		size_t val;
	} *slot;
	size_t cap; /* 0 or a power of two */
	size_t n;
};

/* add key with val: 1, or 0 when key is there already (its value kept) */
int ab_strmap_put(struct ab_strmap *m, const char *key, size_t val);
/* 1 and *val (when val is not NULL) when key is there, else 0 */
int ab_strmap_get(const struct ab_strmap *m, const char *key, size_t *val);
/* every string of sv, to its first index */
void ab_strmap_of_strv(struct ab_strmap *m, const struct ab_strv *sv);
void ab_strmap_free(struct ab_strmap *m);

#endif
