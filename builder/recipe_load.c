/*
 * recipe_load: the recipe loader (docs/recipe.md).
 *
 * The recipe is read with the position of every value (lib/jsonpos: a
 * strict scanner, then cJSON), the rules of the format are checked on that
 * tree, every error is collected, and the errors are printed sorted by
 * position (lib/jsonpos, the same mechanism as policies'). The top level is
 * read here; the sources in recipe_source.c, the variants in
 * recipe_variant.c, the references between them in recipe_ref.c, each
 * member through recipe_member.c.
 */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>

#include "../lib/hash.h"
#include "../lib/strmap.h"
#include "../lib/util.h"
#include "recipe_impl.h"

static void
check_recipe(struct ctx *c, const struct ab_jnode *root)
{
	static const char *const keys[] = {"recipe", "name", "description", "sources", "variants", NULL};
	struct ab_recipe *r = c->r;
	const struct ab_jnode *m, *vs;
	const char *s;

	if (ab_recipe_want(c, root, "$", cJSON_Object) < 0)
		return;
	ab_recipe_check_keys(c, root, "$", keys);

	m = ab_jnode_member(root, "recipe");
	if (!m) {
		ab_recipe_missing(c, root, "$", "recipe");
	} else if (ab_recipe_int_value(c, m, "recipe", INT_MIN, INT_MAX, &r->format) == 0 && r->format != 1) {
		ab_recipe_err(c, m->line, m->col, "recipe", "unsupported recipe format %d (this allocbuild reads format 1)",
		    r->format);
	}
	s = ab_recipe_str_member(c, root, "$", "name", 1, &m);
	if (s) {
		ab_recipe_check_ident(c, m->line, m->col, "name", "name", s);
		r->name = ab_strdup(s);
	}
	r->description = ab_strdup_or_null(ab_recipe_str_member(c, root, "$", "description", 0, NULL));

	/* sources first: variants refer to them wherever they are in the file */
	m = ab_jnode_member(root, "sources");
	c->no_sources = !m || m->type != '{';
	if (!m) {
		ab_recipe_missing(c, root, "$", "sources");
	} else if (ab_recipe_want(c, m, "sources", cJSON_Object) == 0) {
		ab_recipe_check_keys(c, m, "sources", NULL);
		r->sources = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*r->sources));
		/* ids first, so that overlays may name a later source */
		for (size_t i = 0; i < m->nkids; i++) {
			const struct ab_jnode *e = &m->kids[i];
			char *p = ab_jpath_key("sources", e->j->string);

			if (ab_recipe_check_ident(c, e->kline, e->kcol, p, "source id", e->j->string) == 0 &&
			    ab_recipe_source_index(c, e->j->string) < 0) {
				r->sources[i].id = ab_strdup(e->j->string);
				ab_strmap_put(&c->smap, r->sources[i].id, i);
			}
			r->nsources++;
			free(p);
		}
		for (size_t i = 0; i < m->nkids; i++) {
			char *p = ab_jpath_key("sources", m->kids[i].j->string);

			ab_recipe_parse_source(c, i, &m->kids[i], p);
			free(p);
		}
		ab_recipe_find_cycles(c, r->nsources, c->oe, c->noe, "overlay", 0);
	}

	vs = ab_jnode_member(root, "variants");
	if (!vs) {
		ab_recipe_missing(c, root, "$", "variants");
		return;
	}
	if (ab_recipe_want(c, vs, "variants", cJSON_Array) < 0)
		return;
	if (!vs->nkids) {
		ab_recipe_err(c, vs->line, vs->col, "variants", "at least one variant is required");
		return;
	}
	r->variants = ab_calloc(vs->nkids, sizeof(*r->variants));
	r->nvariants = vs->nkids;
	c->labels = ab_calloc(vs->nkids, sizeof(*c->labels));
	c->lnodes = ab_calloc(vs->nkids, sizeof(*c->lnodes));
	/* labels and kinds first: references may point forward */
	for (size_t i = 0; i < vs->nkids; i++) {
		const struct ab_jnode *e = &vs->kids[i], *l;
		char *p = ab_jpath_index("variants", i);

		if (ab_recipe_want(c, e, p, cJSON_Object) == 0) {
			ab_recipe_variant_kind(c, &r->variants[i], e, NULL);
			l = ab_jnode_member(e, "label");
			if (l && l->type == '"') {
				char *lp = ab_jpath_key(p, "label");
				const char *ls = l->j->valuestring;
				long prev = ab_recipe_label_index(c, ls);

				if (ab_recipe_check_ident(c, l->line, l->col, lp, "label", ls) == 0) {
					if (prev >= 0) {
						char *sv = ab_jshown(ls);

						ab_recipe_err(c, l->line, l->col, lp, "duplicate label '%s' (first at %d:%d)", sv,
						    c->lnodes[prev]->line, c->lnodes[prev]->col);
						free(sv);
					} else {
						c->labels[i] = ls;
						c->lnodes[i] = l;
						ab_strmap_put(&c->lmap, ls, i);
					}
				}
				free(lp);
			}
			r->variants[i].line = e->line;
			r->variants[i].col = e->col;
		}
		free(p);
	}
	for (size_t i = 0; i < vs->nkids; i++) {
		char *p = ab_jpath_index("variants", i);

		ab_recipe_parse_variant(c, i, &vs->kids[i], p);
		free(p);
	}
	ab_recipe_check_uses(c);
	ab_recipe_find_cycles(c, r->nvariants, c->e, c->ne, "dependency", 1);
}

int
ab_recipe_parse_ext(struct ab_recipe **out, const char *name, const char *text, size_t len, FILE *errs,
    unsigned flags)
{
	struct ab_jdoc doc;
	struct ctx c = {0};
	char *dir;
	int error = -1;

	*out = NULL;
	if (!errs)
		errs = stderr;
	if (ab_jdoc_parse(&doc, name, text, len, errs) < 0)
		return -1;
	c.flags = flags;
	c.r = ab_calloc(1, sizeof(*c.r));
	c.r->patch_lock = ab_malloc(sizeof(*c.r->patch_lock));
	pthread_mutex_init(c.r->patch_lock, NULL);
	c.r->path = ab_strdup(name);
	/* relative paths (patches) are the recipe's own: next to the file itself, after symlinks */
	{
		char *real = realpath(name, NULL);

		dir = ab_path_dirname(real ? real : name);
		c.r->dir = ab_path_absolute(dir);
		free(dir);
		free(real);
	}
	ab_hash_buf(c.r->sha256, text, len);
	/* the bytes that were hashed, so that a copy can never differ from the digest */
	c.r->text = ab_strndup(text, len);
	c.r->len = len;
	check_recipe(&c, &doc.root);
	if (ab_jdiags_print(&c.dg, name, errs)) {
		ab_recipe_free(c.r);
		goto done;
	}
	/* the patches are read when first asked for (ab_recipe_patch), into these */
	for (size_t i = 0; i < c.r->nsources; i++)
		c.r->sources[i].patch_bytes = ab_calloc(c.r->sources[i].patches.n + 1, sizeof(*c.r->sources[i].patch_bytes));
	*out = c.r;
	error = 0;
done:
	ab_jdiags_release(&c.dg);
	for (size_t i = 0; i < c.ne; i++)
		free(c.e[i].path);
	free(c.e);
	for (size_t i = 0; i < c.noe; i++)
		free(c.oe[i].path);
	free(c.oe);
	free(c.labels);
	free(c.lnodes);
	ab_strmap_free(&c.lmap);
	ab_strmap_free(&c.smap);
	ab_jdoc_release(&doc);
	return error;
}

int
ab_recipe_parse(struct ab_recipe **out, const char *name, const char *text, size_t len, FILE *errs)
{
	return ab_recipe_parse_ext(out, name, text, len, errs, 0);
}

int
ab_recipe_load_ext(struct ab_recipe **out, const char *path, unsigned flags)
{
	return ab_recipe_load_to(out, path, flags, stderr);
}

int
ab_recipe_load_to(struct ab_recipe **out, const char *path, unsigned flags, FILE *errs)
{
	struct ab_buf b = {0};
	int error;

	*out = NULL;
	if (ab_is_dir(path)) {
		ab_error("cannot read recipe '%s': is a directory", path);
		return -1;
	}
	if (ab_read_file_max(&b, path, AB_RECIPE_MAX) < 0)
		return -1;
	error = ab_recipe_parse_ext(out, path, b.s, b.len, errs, flags);
	if (*out) {
		/* relative paths (patches) are the recipe's own: next to the file itself, after symlinks */
		char *real = realpath(path, NULL);

		if (real) {
			free((*out)->dir);
			(*out)->dir = ab_path_dirname(real);
			free(real);
		}
	}
	ab_buf_free(&b);
	return error;
}

int
ab_recipe_load(struct ab_recipe **out, const char *path)
{
	return ab_recipe_load_ext(out, path, 0);
}
