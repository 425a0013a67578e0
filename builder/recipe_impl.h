/*
 * recipe_impl: what the parts of the recipe loader share (recipe_load.c,
 * recipe_member.c, recipe_source.c, recipe_ref.c, recipe_variant.c;
 * recipe_order.c takes map_get), not for other modules: the loader's
 * context, the edges of its graphs, and the functions each part offers the
 * others. Callers use builder/recipe.h.
 */
#ifndef AB_RECIPE_IMPL_H
#define AB_RECIPE_IMPL_H

#include "../lib/jsonpos.h"
#include "../lib/strmap.h"
#include "recipe.h"

/* a string's index in lib/strmap, -1 when absent */
static inline long
map_get(const struct ab_strmap *m, const char *key)
{
	size_t v;

	return ab_strmap_get(m, key, &v) ? (long)v : -1;
}

/* an edge of a graph, where it was written: a variant to one it depends on, a source to one it overlays */
struct edge {
	size_t from, to;
	int line, col;
	char *path;
};

/* the loader's state while one recipe is read: the model it fills, its diagnostics, the indexes and edges */
struct ctx {
	struct ab_recipe *r;
	unsigned flags;
	struct ab_jdiags dg;
	/* labels in recipe order, NULL where missing or invalid */
	const char **labels;
	const struct ab_jnode **lnodes; /* where each label is */
	struct ab_strmap lmap;       /* label -> variant index */
	struct ab_strmap smap;       /* source id -> source index */
	struct edge *e; /* dependencies between variants */
	size_t ne, cape;
	int no_sources; /* "sources" is missing or not an object: do not resolve source ids */
	struct edge *oe; /* overlays between sources */
	size_t noe, capoe;
	struct usecheck *uc; /* {variant:...} references, checked once every variant is parsed */
	size_t nuc, capuc;
};

/* where a variant reference was written, for the check of its label's kind and artifacts */
struct usecheck {
	size_t v, u;   /* variants[v].uses[u] */
	int line, col;
	char *path;
};

/* what a path member may name: anything, or a place in the build directory or the source tree */
enum { PATH_ANY, PATH_BUILD, PATH_SOURCE };

/* recipe_member.c: members read and checked; ab_recipe_err adds a diagnostic at line:col of path */
void ab_recipe_err(struct ctx *c, int line, int col, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
int ab_recipe_want(struct ctx *c, const struct ab_jnode *n, const char *path, int t);
void ab_recipe_check_keys(struct ctx *c, const struct ab_jnode *obj, const char *path,
    const char *const *keys);
void ab_recipe_missing(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key);
const char *ab_recipe_str_member(struct ctx *c, const struct ab_jnode *obj, const char *path,
    const char *key, int required, const struct ab_jnode **node);
int ab_recipe_check_ident(struct ctx *c, int line, int col, const char *path, const char *what,
    const char *s);
int ab_recipe_check_rel_path(struct ctx *c, const struct ab_jnode *n, const char *path, const char *s,
    const char *where);
int ab_recipe_int_value(struct ctx *c, const struct ab_jnode *n, const char *path, int min, int max,
    int *out);
void ab_recipe_str_list(struct ctx *c, const struct ab_jnode *n, const char *path, struct ab_list *out,
    int nonempty, int kind);
const struct ab_jnode *ab_recipe_list_member(struct ctx *c, const struct ab_jnode *obj, const char *path,
    const char *key, struct ab_list *out, int nonempty, int kind);
char *ab_recipe_dup_member(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key,
    int required, int kind);
void ab_recipe_count_member(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key,
    int zero_ok, int max, int *out);
int ab_recipe_valid_cmake_name(const char *s);
int ab_recipe_valid_env_name(const char *s);
void ab_recipe_kv_member(struct ctx *c, const struct ab_jnode *obj, const char *opath, const char *okey,
    struct ab_kvlist *out, const char *what, int (*valid)(const char *));
int ab_recipe_check_regular(struct ctx *c, const struct ab_jnode *n, const char *p, const char *file,
    const char *shown_as);

/* recipe_source.c: the sources */
long ab_recipe_source_index(const struct ctx *c, const char *id);
long ab_recipe_source_ref(struct ctx *c, const struct ab_jnode *n, const char *path, const char *id);
void ab_recipe_parse_source(struct ctx *c, size_t idx, const struct ab_jnode *n, const char *path);

/* recipe_ref.c: the references and their graphs */
void ab_recipe_add_edge(struct edge **v, size_t *n, size_t *cap, size_t from, size_t to,
    const struct ab_jnode *at, const char *path);
long ab_recipe_label_index(struct ctx *c, const char *label);
long ab_recipe_variant_ref(struct ctx *c, size_t idx, const struct ab_jnode *n, const char *path,
    const char *label);
void ab_recipe_string_refs(struct ctx *c, size_t idx, struct ab_variant *v, const struct ab_jnode *n,
    const char *path);
void ab_recipe_build_refs(struct ctx *c, size_t idx, struct ab_variant *v, const struct ab_jnode *b,
    const char *path);
void ab_recipe_check_uses(struct ctx *c);
void ab_recipe_find_cycles(struct ctx *c, size_t n, const struct edge *e, size_t ne, const char *what,
    int variants);

/* recipe_variant.c: the variants */
void ab_recipe_variant_kind(struct ctx *c, struct ab_variant *v, const struct ab_jnode *n, const char *path);
void ab_recipe_parse_variant(struct ctx *c, size_t idx, const struct ab_jnode *n, const char *path);

#endif
