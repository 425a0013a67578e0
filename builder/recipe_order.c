/*
 * recipe_order: the queries of a loaded recipe's graphs: a variant's
 * dependencies (the one encoding of them), the variants to build in a
 * stable dependency order, the overlay closure of a source, the base of a
 * runtime_of variant.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/strmap.h"
#include "../lib/util.h"
#include "recipe_impl.h"

static void
add_dep_label(const char **deps, size_t *n, const char *label)
{
	size_t k = 0;

	if (!label)
		return;
	while (k < *n && strcmp(deps[k], label))
		k++;
	if (k == *n)
		deps[(*n)++] = label;
}

size_t
ab_recipe_variant_deps(const char **deps, const struct ab_variant *v)
{
	size_t n = 0;

	if (v->kind == AB_VARIANT_RUNTIME) {
		add_dep_label(deps, &n, v->runtime_of);
	} else if (v->kind == AB_VARIANT_RELINK) {
		add_dep_label(deps, &n, v->relink.from);
		for (size_t i = 0; i < v->relink.nreplace; i++)
			add_dep_label(deps, &n, v->relink.replace[i].with_variant);
	}
	for (size_t i = 0; i < v->nuses; i++)
		add_dep_label(deps, &n, v->uses[i].label);
	return n;
}

size_t
ab_recipe_variant_ndeps_max(const struct ab_variant *v)
{
	return 1 + v->relink.nreplace + v->nuses;
}

static size_t
max_deps(const struct ab_recipe *r)
{
	size_t m = 1;

	for (size_t i = 0; i < r->nvariants; i++)
		if (ab_recipe_variant_ndeps_max(&r->variants[i]) > m)
			m = ab_recipe_variant_ndeps_max(&r->variants[i]);
	return m;
}

/* the indexes of the variants variant i depends on (labels map does not know are skipped) */
static size_t
deps_of(size_t *deps, const char **labels, const struct ab_recipe *r, const struct ab_strmap *map, size_t i)
{
	size_t nl = ab_recipe_variant_deps(labels, &r->variants[i]), n = 0;

	for (size_t j = 0; j < nl; j++) {
		long d = map_get(map, labels[j]);

		if (d >= 0)
			deps[n++] = (size_t)d;
	}
	return n;
}

/* a binary min-heap of variant indexes */
static void
heap_push(size_t *h, size_t *n, size_t x)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2] > x) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static size_t
heap_pop(size_t *h, size_t *n)
{
	size_t top = h[0], x = h[--*n], i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= x)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = x;
	return top;
}

/* want[i] for the labelled variants (all when nlabels is 0) and everything they depend on */
static int
select_variants(unsigned char *want, const struct ab_recipe *r, const struct ab_strmap *map, char *const *labels,
    size_t nlabels)
{
	size_t nv = r->nvariants, qn = 0, maxd = max_deps(r);
	size_t *queue = ab_calloc(nv ? nv : 1, sizeof(size_t)), *deps = ab_calloc(maxd, sizeof(size_t));
	const char **dl = ab_calloc(maxd, sizeof(*dl));
	int error = 0;

	for (size_t i = 0; i < nlabels; i++) {
		long k = map_get(map, labels[i]);

		if (k < 0) {
			char **all = ab_calloc(nv + 1, sizeof(*all));
			const char *near;

			for (size_t j = 0; j < nv; j++)
				all[j] = r->variants[j].label;
			near = ab_closest(labels[i], all, nv);
			if (near)
				ab_error("unknown variant '%s' (did you mean '%s'?)", labels[i], near);
			else
				ab_error("unknown variant '%s'", labels[i]);
			free(all);
			error = AB_EFAIL;
		} else {
			want[k] = 1;
		}
	}
	if (!nlabels)
		memset(want, 1, nv);
	for (size_t i = 0; !error && i < nv; i++)
		if (want[i])
			queue[qn++] = i;
	for (size_t q = 0; !error && q < qn; q++) {
		size_t nd = deps_of(deps, dl, r, map, queue[q]);

		for (size_t j = 0; j < nd; j++)
			if (!want[deps[j]]) {
				want[deps[j]] = 1;
				queue[qn++] = deps[j];
			}
	}
	free(queue);
	free(deps);
	free(dl);
	return error;
}

/*
 * The wanted variants in a stable topological order: always the first
 * variant in recipe order whose dependencies are done. Returns how many.
 */
static size_t
topo_order(size_t *out, const struct ab_recipe *r, const struct ab_strmap *map, const unsigned char *want)
{
	size_t nv = r->nvariants, one = nv ? nv : 1, maxd = max_deps(r), nedges = 0, nheap = 0, n = 0;
	size_t *indeg = ab_calloc(one, sizeof(size_t)), *fill = ab_calloc(one, sizeof(size_t));
	size_t *first = ab_calloc(nv + 1, sizeof(size_t)); /* dependents of i: rdep[first[i]..first[i+1]) */
	size_t *heap = ab_calloc(one, sizeof(size_t)), *deps = ab_calloc(maxd, sizeof(size_t)), *rdep;
	const char **dl = ab_calloc(maxd, sizeof(*dl));

	for (size_t i = 0; i < nv; i++) {
		size_t nd = want[i] ? deps_of(deps, dl, r, map, i) : 0;

		indeg[i] = nd;
		nedges += nd;
		for (size_t j = 0; j < nd; j++)
			first[deps[j] + 1]++;
	}
	for (size_t i = 0; i < nv; i++)
		first[i + 1] += first[i];
	rdep = ab_calloc(nedges ? nedges : 1, sizeof(size_t));
	for (size_t i = 0; i < nv; i++) {
		size_t nd = want[i] ? deps_of(deps, dl, r, map, i) : 0;

		for (size_t j = 0; j < nd; j++)
			rdep[first[deps[j]] + fill[deps[j]]++] = i;
	}
	for (size_t i = 0; i < nv; i++)
		if (want[i] && !indeg[i])
			heap_push(heap, &nheap, i);
	while (nheap) {
		size_t u = heap_pop(heap, &nheap);

		out[n++] = u;
		for (size_t k = first[u]; k < first[u + 1]; k++)
			if (--indeg[rdep[k]] == 0)
				heap_push(heap, &nheap, rdep[k]);
	}
	free(indeg);
	free(fill);
	free(first);
	free(heap);
	free(deps);
	free(dl);
	free(rdep);
	return n;
}

int
ab_recipe_order(size_t **order, size_t *norder, const struct ab_recipe *r, char *const *labels,
    size_t nlabels)
{
	size_t nv = r->nvariants, one = nv ? nv : 1;
	unsigned char *want = ab_calloc(one, 1);
	struct ab_strmap map = {0};
	int error;

	*order = NULL;
	*norder = 0;
	for (size_t i = 0; i < nv; i++)
		ab_strmap_put(&map, r->variants[i].label, i);
	error = select_variants(want, r, &map, labels, nlabels);
	if (!error) {
		*order = ab_calloc(one, sizeof(size_t));
		*norder = topo_order(*order, r, &map, want);
	}
	free(want);
	ab_strmap_free(&map);
	return error;
}

static int
walk_overlays(const struct ab_recipe *r, const struct ab_source *s, const struct ab_overlay *via, int depth,
    ab_overlay_fn *enter, ab_overlay_fn *leave, void *arg)
{
	int e = enter ? enter(arg, s, via, depth) : 0;

	for (size_t i = 0; !e && i < s->noverlays; i++) {
		const struct ab_source *o = ab_recipe_source(r, s->overlays[i].source);

		/* a loaded recipe has no unknown overlay source */
		if (o)
			e = walk_overlays(r, o, &s->overlays[i], depth + 1, enter, leave, arg);
	}
	if (!e && leave)
		e = leave(arg, s, via, depth);
	return e;
}

int
ab_recipe_overlay_walk(const struct ab_recipe *r, const struct ab_source *s, ab_overlay_fn *enter,
    ab_overlay_fn *leave, void *arg)
{
	return s ? walk_overlays(r, s, NULL, 0, enter, leave, arg) : 0;
}

const struct ab_variant *
ab_recipe_base_variant(const struct ab_recipe *r, const struct ab_variant *v)
{
	for (size_t guard = 0; v && v->kind == AB_VARIANT_RUNTIME && guard <= r->nvariants; guard++)
		v = ab_recipe_variant(r, v->runtime_of);
	return v;
}
