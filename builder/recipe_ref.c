/*
 * recipe_ref: the references between variants and between sources
 * ({variant:LABEL:PATH} uses, relink from and with_variant, runtime_of,
 * overlays): checked against the labels and source ids while the recipe is
 * read, each kept as an edge; the uses checked once every variant is read;
 * every cycle reported once.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "recipe_impl.h"

void
ab_recipe_add_edge(struct edge **v, size_t *n, size_t *cap, size_t from, size_t to, const struct ab_jnode *at,
    const char *path)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		*v = ab_realloc(*v, *cap * sizeof(**v));
	}
	(*v)[*n].from = from;
	(*v)[*n].to = to;
	(*v)[*n].line = at->line;
	(*v)[*n].col = at->col;
	(*v)[*n].path = ab_strdup(path);
	(*n)++;
}

long
ab_recipe_label_index(struct ctx *c, const char *label)
{
	return map_get(&c->lmap, label);
}

/* a reference to another variant; records the dependency */
long
ab_recipe_variant_ref(struct ctx *c, size_t idx, const struct ab_jnode *n, const char *path, const char *label)
{
	long t = ab_recipe_label_index(c, label);

	if (t < 0) {
		char *v = ab_jshown(label);

		ab_recipe_err(c, n->line, n->col, path, "unknown variant '%s'", v);
		free(v);
		return -1;
	}
	ab_recipe_add_edge(&c->e, &c->ne, &c->cape, idx, (size_t)t, n, path);
	return t;
}

/* the {variant:LABEL:PATH} references of the string n (at path), added to v->uses once each */
void
ab_recipe_string_refs(struct ctx *c, size_t idx, struct ab_variant *v, const struct ab_jnode *n, const char *path)
{
	const char *s = n->j->valuestring;
	size_t pos = 0, start, end;
	struct ab_varref ref;
	int r;

	while ((r = ab_varref_next(s, &pos, &start, &end, &ref)) != 0) {
		size_t u;

		if (r < 0) {
			char *sv = ab_jshown(s + start);

			ab_recipe_err(c, n->line, n->col, path, "malformed variant reference at '%s': expected {variant:LABEL:PATH}",
			    sv);
			free(sv);
			continue;
		}
		if (v->label && !strcmp(ref.label, v->label)) {
			ab_recipe_err(c, n->line, n->col, path, "a variant cannot use its own artifact");
			ab_varref_release(&ref);
			continue;
		}
		if (ab_recipe_check_rel_path(c, n, path, ref.path, "build directory of the variant used") < 0 ||
		    ab_recipe_variant_ref(c, idx, n, path, ref.label) < 0) {
			ab_varref_release(&ref);
			continue;
		}
		for (u = 0; u < v->nuses; u++)
			if (!strcmp(v->uses[u].label, ref.label) && !strcmp(v->uses[u].path, ref.path))
				break;
		if (u < v->nuses) {
			ab_varref_release(&ref);
			continue;
		}
		v->uses = ab_realloc(v->uses, (v->nuses + 1) * sizeof(*v->uses));
		v->uses[v->nuses++] = ref;
		if (c->nuc == c->capuc) {
			c->capuc = c->capuc ? 2 * c->capuc : 8;
			c->uc = ab_realloc(c->uc, c->capuc * sizeof(*c->uc));
		}
		c->uc[c->nuc++] = (struct usecheck){idx, u, n->line, n->col, ab_strdup(path)};
	}
}

/* the references of configure, defines and env (the values, not the names) */
void
ab_recipe_build_refs(struct ctx *c, size_t idx, struct ab_variant *v, const struct ab_jnode *b, const char *path)
{
	static const char *const lists[] = {"configure", "defines", "env"};

	for (size_t k = 0; k < AB_NELEM(lists); k++) {
		const struct ab_jnode *m = ab_jnode_member(b, lists[k]);
		char *mp;

		if (!m || (m->type != '[' && m->type != '{'))
			continue;
		mp = ab_jpath_key(path, lists[k]);
		for (size_t i = 0; i < m->nkids; i++) {
			char *ep = m->type == '[' ? ab_jpath_index(mp, i) : ab_jpath_key(mp, m->kids[i].j->string);

			if (m->kids[i].type == '"')
				ab_recipe_string_refs(c, idx, v, &m->kids[i], ep);
			free(ep);
		}
		free(mp);
	}
}

/* does variant t have the artifact path (its artifacts, allocator archive, a relink's output)? */
static int
has_artifact(const struct ab_variant *t, const char *path)
{
	for (size_t i = 0; i < t->artifacts.n; i++)
		if (!strcmp(t->artifacts.v[i], path))
			return 1;
	return (t->allocator.archive && !strcmp(t->allocator.archive, path)) ||
	    (t->kind == AB_VARIANT_RELINK && t->relink.output && !strcmp(t->relink.output, path));
}

/* every reference names a build or relink variant and one of its artifacts */
void
ab_recipe_check_uses(struct ctx *c)
{
	for (size_t i = 0; i < c->nuc; i++) {
		const struct usecheck *k = &c->uc[i];
		const struct ab_varref *ref = &c->r->variants[k->v].uses[k->u];
		long t = ab_recipe_label_index(c, ref->label);
		const struct ab_variant *tv = t >= 0 ? &c->r->variants[t] : NULL;
		char *lv = ab_jshown(ref->label), *pv = ab_jshown(ref->path);

		if (tv && tv->kind == AB_VARIANT_RUNTIME)
			ab_recipe_err(c, k->line, k->col, k->path,
			    "variant '%s' is a runtime_of variant and builds nothing: use its base '%s'", lv,
			    tv->runtime_of ? tv->runtime_of : "?");
		else if (tv && !has_artifact(tv, ref->path))
			ab_recipe_err(c, k->line, k->col, k->path,
			    "'%s' is not an artifact of variant '%s': list it in that variant's 'artifacts'", pv, lv);
		free(lv);
		free(pv);
		free(c->uc[i].path);
	}
	free(c->uc);
	c->uc = NULL;
	c->nuc = c->capuc = 0;
}

/* report every cycle of the graph (edges from -> to over n nodes) once, where it closes */
void
ab_recipe_find_cycles(struct ctx *c, size_t n, const struct edge *e, size_t ne, const char *what, int variants)
{
	/* 0 white, 1 on the stack, 2 done; iterative DFS so deep chains cannot overflow the stack */
	unsigned char *color = ab_calloc(n ? n : 1, 1);
	size_t *stack = ab_calloc(n ? n : 1, sizeof(size_t));
	size_t *next = ab_calloc(n ? n : 1, sizeof(size_t)); /* next edge to look at per node */
	size_t *first = ab_calloc(n + 1, sizeof(size_t));   /* node u's edges: adj[first[u]..first[u+1]) */
	size_t *adj = ab_calloc(ne ? ne : 1, sizeof(size_t));

	for (size_t k = 0; k < ne; k++)
		first[e[k].from + 1]++;
	for (size_t u = 0; u < n; u++)
		first[u + 1] += first[u];
	for (size_t k = 0; k < ne; k++)
		adj[next[e[k].from]++ + first[e[k].from]] = k; /* edges keep their recipe order */

	for (size_t root = 0; root < n; root++) {
		size_t sp = 0;

		if (color[root])
			continue;
		stack[sp++] = root;
		color[root] = 1;
		next[root] = first[root];
		while (sp) {
			size_t u = stack[sp - 1], k;

			if (next[u] == first[u + 1]) {
				color[u] = 2;
				sp--;
				continue;
			}
			k = adj[next[u]++];
			if (color[e[k].to] == 0) {
				color[e[k].to] = 1;
				next[e[k].to] = first[e[k].to];
				stack[sp++] = e[k].to;
			} else if (color[e[k].to] == 1) {
				struct ab_buf b = {0};
				size_t at = 0;

				while (stack[at] != e[k].to)
					at++;
				for (size_t i = at; i < sp; i++) {
					const char *name = variants ? c->r->variants[stack[i]].label
					                            : c->r->sources[stack[i]].id;

					ab_buf_printf(&b, "%s -> ", name ? name : "?");
				}
				ab_buf_puts(&b, variants ? c->r->variants[e[k].to].label : c->r->sources[e[k].to].id);
				ab_recipe_err(c, e[k].line, e[k].col, e[k].path, "%s cycle: %s", what, b.s);
				ab_buf_free(&b);
			}
		}
	}
	free(color);
	free(stack);
	free(next);
	free(first);
	free(adj);
}
