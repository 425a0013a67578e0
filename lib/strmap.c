/* strmap: strings to indices (lib/strmap.h) */
#include "strmap.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static uint64_t
fnv1a(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* the slot of key, or the free slot where it would go */
static struct ab_strmap_slot *
find(const struct ab_strmap *m, const char *key)
{
	size_t mask = m->cap - 1, i = (size_t)fnv1a(key) & mask;

	while (m->slot[i].key && strcmp(m->slot[i].key, key))
		i = (i + 1) & mask;
	return &m->slot[i];
}

static void
grow(struct ab_strmap *m)
{
	struct ab_strmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 16;
	m->slot = ab_calloc(m->cap, sizeof(*m->slot));
	for (size_t i = 0; i < old.cap; i++)
		if (old.slot[i].key)
			*find(m, old.slot[i].key) = old.slot[i];
	free(old.slot);
}

int
ab_strmap_put(struct ab_strmap *m, const char *key, size_t val)
{
	struct ab_strmap_slot *s;

	if ((m->n + 1) * 2 > m->cap)
		grow(m);
	s = find(m, key);
	if (s->key)
		return 0;
	s->key = key;
	s->val = val;
	m->n++;
	return 1;
}

int
ab_strmap_get(const struct ab_strmap *m, const char *key, size_t *val)
{
	const struct ab_strmap_slot *s;

	if (!m->cap)
		return 0;
	s = find(m, key);
	if (!s->key)
		return 0;
	if (val)
		*val = s->val;
	return 1;
}

void
ab_strmap_of_strv(struct ab_strmap *m, const struct ab_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		ab_strmap_put(m, sv->v[i], i);
}

void
ab_strmap_free(struct ab_strmap *m)
{
	free(m->slot);
	*m = (struct ab_strmap){0};
}
