/* shard: a recipe's variants split into dependency closures (builder/shard.h) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shard.h"
#include "../lib/jsonio.h"

unsigned long
ab_shard_variant_cost(const struct ab_variant *v)
{
	switch (v->kind) {
	case AB_VARIANT_BUILD:
		return AB_SHARD_COST_BUILD;
	case AB_VARIANT_RELINK:
		return AB_SHARD_COST_RELINK;
	case AB_VARIANT_RUNTIME:
		return AB_SHARD_COST_RUNTIME;
	}
	return AB_SHARD_COST_BUILD;
}

int
ab_shard_parse(size_t *k, size_t *n, const char *s)
{
	char *end;
	unsigned long a, b;

	if (!s || *s < '0' || *s > '9')
		return -1;
	a = strtoul(s, &end, 10);
	if (*end != '/' || end[1] < '0' || end[1] > '9')
		return -1;
	b = strtoul(end + 1, &end, 10);
	if (*end || a < 1 || b < 1 || a > b || b > AB_SHARD_MAX)
		return -1;
	*k = a;
	*n = b;
	return 0;
}

/* the closure of variant i (itself and everything it depends on) as marks in in[] */
static void
closure(unsigned char *in, const struct ab_recipe *r, size_t i, const char **deps)
{
	size_t nd;

	if (in[i])
		return;
	in[i] = 1;
	nd = ab_recipe_variant_deps(deps, &r->variants[i]);
	/* deps is reused by the recursion: take the indexes first */
	size_t *idx = ab_calloc(nd ? nd : 1, sizeof(*idx));

	for (size_t d = 0; d < nd; d++) {
		const struct ab_variant *v = ab_recipe_variant(r, deps[d]);

		idx[d] = v ? (size_t)(v - r->variants) : (size_t)-1;
	}
	for (size_t d = 0; d < nd; d++)
		if (idx[d] != (size_t)-1)
			closure(in, r, idx[d], deps);
	free(idx);
}

struct unit {
	size_t index;
	unsigned long own, total; /* its cost; its closure's */
};

static int
unit_cmp(const void *a, const void *b)
{
	const struct unit *x = a, *y = b;

	if (x->own != y->own)
		return x->own > y->own ? -1 : 1;
	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

int
ab_shard_make(struct ab_shards **out, const struct ab_recipe *r, size_t n)
{
	size_t nv = r->nvariants, maxd = 1;
	struct ab_shards *s;
	unsigned char *clos, *in;
	unsigned long *cost;
	struct unit *u;
	const char **deps;

	*out = NULL;
	if (n < 1 || n > AB_SHARD_MAX) {
		ab_error("invalid number of shards %zu (1 to %d)", n, AB_SHARD_MAX);
		return AB_EFAIL;
	}
	for (size_t i = 0; i < nv; i++)
		if (ab_recipe_variant_ndeps_max(&r->variants[i]) > maxd)
			maxd = ab_recipe_variant_ndeps_max(&r->variants[i]);
	deps = ab_calloc(maxd, sizeof(*deps));
	clos = ab_calloc(nv ? nv * nv : 1, 1);   /* clos[i * nv + j]: j is in i's closure */
	in = ab_calloc(n * (nv ? nv : 1), 1);    /* in[k * nv + j]: shard k has j */
	cost = ab_calloc(n, sizeof(*cost));
	u = ab_calloc(nv ? nv : 1, sizeof(*u));
	for (size_t i = 0; i < nv; i++) {
		closure(clos + i * nv, r, i, deps);
		u[i].index = i;
		u[i].own = ab_shard_variant_cost(&r->variants[i]);
		for (size_t j = 0; j < nv; j++)
			if (clos[i * nv + j])
				u[i].total += ab_shard_variant_cost(&r->variants[j]);
	}
	qsort(u, nv, sizeof(*u), unit_cmp);
	for (size_t x = 0; x < nv; x++) {
		size_t i = u[x].index, best = 0;
		unsigned long best_cost = 0;
		int have = 0;

		for (size_t k = 0; k < n && !have; k++)
			have = in[k * nv + i];
		if (have)
			continue;
		for (size_t k = 0; k < n; k++) {
			unsigned long c = cost[k];

			for (size_t j = 0; j < nv; j++)
				if (clos[i * nv + j] && !in[k * nv + j])
					c += ab_shard_variant_cost(&r->variants[j]);
			if (k == 0 || c < best_cost) {
				best = k;
				best_cost = c;
			}
		}
		for (size_t j = 0; j < nv; j++)
			if (clos[i * nv + j])
				in[best * nv + j] = 1;
		cost[best] = best_cost;
	}

	s = ab_calloc(1, sizeof(*s));
	s->r = r;
	s->n = n;
	s->shard = ab_calloc(n, sizeof(*s->shard));
	{
		size_t *order = NULL, norder = 0;

		/* every variant in dependency order: each shard lists its own in that order */
		if (ab_recipe_order(&order, &norder, r, NULL, 0) < 0) {
			free(s->shard);
			free(s);
			s = NULL;
		} else {
			for (size_t k = 0; k < n; k++) {
				for (size_t o = 0; o < norder; o++)
					if (in[k * nv + order[o]])
						ab_strv_push(&s->shard[k].labels, r->variants[order[o]].label);
				s->shard[k].cost = cost[k];
			}
		}
		free(order);
	}
	free(deps);
	free(clos);
	free(in);
	free(cost);
	free(u);
	if (!s)
		return AB_EFAIL;
	*out = s;
	return 0;
}

cJSON *
ab_shard_json(const struct ab_shards *s)
{
	cJSON *doc = cJSON_CreateObject(), *rec, *c, *m;

	cJSON_AddStringToObject(doc, "_type", "https://allocbuild.dev/matrix/v1");
	rec = cJSON_AddObjectToObject(doc, "recipe");
	cJSON_AddStringToObject(rec, "name", s->r->name);
	cJSON_AddStringToObject(rec, "sha256", s->r->sha256);
	cJSON_AddNumberToObject(doc, "shards", (double)s->n);
	c = cJSON_AddObjectToObject(doc, "cost");
	cJSON_AddNumberToObject(c, "build", AB_SHARD_COST_BUILD);
	cJSON_AddNumberToObject(c, "relink", AB_SHARD_COST_RELINK);
	cJSON_AddNumberToObject(c, "runtime_of", AB_SHARD_COST_RUNTIME);
	m = cJSON_AddArrayToObject(doc, "matrix");
	for (size_t k = 0; k < s->n; k++) {
		cJSON *e = cJSON_CreateObject();
		char id[48];

		snprintf(id, sizeof(id), "%zu/%zu", k + 1, s->n);
		cJSON_AddStringToObject(e, "shard", id);
		cJSON_AddNumberToObject(e, "index", (double)(k + 1));
		cJSON_AddNumberToObject(e, "cost", (double)s->shard[k].cost);
		cJSON_AddItemToObject(e, "variants", ab_json_strv(s->shard[k].labels.v, s->shard[k].labels.n));
		cJSON_AddItemToArray(m, e);
	}
	return doc;
}

void
ab_shards_free(struct ab_shards *s)
{
	if (!s)
		return;
	for (size_t k = 0; k < s->n; k++)
		ab_strv_free(&s->shard[k].labels);
	free(s->shard);
	free(s);
}
