/*
 * recipe_source: a recipe's "sources" entries read into struct ab_source
 * (git, archive, dir; patches, prepare, overlay), and the pin check of a
 * git commit that validate and build share.
 */
#include <cjson/cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/member.h"
#include "../lib/util.h"
#include "recipe_impl.h"

/* is s a plausible git ref name (git check-ref-format, loosely)? */
static int
is_ref_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || s[0] == '-' || s[0] == '/' || s[n - 1] == '/' || s[n - 1] == '.' || strstr(s, "..") ||
	    strstr(s, "//") || strstr(s, "@{") || (n >= 5 && !strcmp(s + n - 5, ".lock")))
		return 0;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f || strchr("~^:?*[\\", *p))
			return 0;
	return 1;
}

/* an unpinned commit, said alike by validate and by ab_recipe_check_pins */
#define PIN_ERROR "'%s' is not a 40-digit commit id (use --allow-unpinned to resolve it)"

static void
pin_error(struct ctx *c, int line, int col, const char *path, const char *commit)
{
	char *v = ab_jshown(commit);

	ab_recipe_err(c, line, col, path, PIN_ERROR, v);
	free(v);
}

static void
parse_git(struct ctx *c, struct ab_source *s, const struct ab_jnode *g, const char *path)
{
	static const char *const keys[] = {"url", "commit", NULL};
	const struct ab_jnode *m;
	const char *v;
	char *p;

	if (ab_recipe_want(c, g, path, cJSON_Object) < 0)
		return;
	ab_recipe_check_keys(c, g, path, keys);
	s->url = ab_recipe_dup_member(c, g, path, "url", 1, PATH_ANY);
	v = ab_recipe_str_member(c, g, path, "commit", 1, &m);
	if (v) {
		p = ab_jpath_key(path, "commit");
		s->commit = ab_strdup(v);
		s->commit_line = m->line;
		s->commit_col = m->col;
		if (!ab_is_hex(v, 40)) {
			if (!is_ref_name(v)) {
				char *sv = ab_jshown(v);

				ab_recipe_err(c, m->line, m->col, p, "'%s' is neither a 40-digit commit id nor a ref name", sv);
				free(sv);
			} else {
				s->unpinned = 1;
				if (c->flags & AB_RECIPE_REQUIRE_PINS)
					pin_error(c, m->line, m->col, p, v);
			}
		}
		free(p);
	}
}

/* each patch: a file beside the recipe (relative to its directory, never absolute), a regular one */
static void
check_patches(struct ctx *c, const struct ab_jnode *m, const char *path)
{
	char *p = ab_jpath_key(path, "patches");

	for (size_t i = 0; i < m->nkids; i++) {
		const struct ab_jnode *e = &m->kids[i];
		char *q, *full, *sv;

		if (e->type != '"' || !*e->j->valuestring)
			continue;
		q = ab_jpath_index(p, i);
		if (e->j->valuestring[0] == '/') {
			sv = ab_jshown(e->j->valuestring);
			ab_recipe_err(c, e->line, e->col, q, "'%s' is an absolute path: a patch is a file beside the recipe, relative "
			    "to its directory", sv);
			free(sv);
		} else {
			full = ab_recipe_path(c->r, e->j->valuestring);
			ab_recipe_check_regular(c, e, q, full, e->j->valuestring);
			free(full);
		}
		free(q);
	}
	free(p);
}

static void
parse_archive(struct ctx *c, struct ab_source *s, const struct ab_jnode *a, const char *path)
{
	static const char *const keys[] = {"urls", "sha256", "strip", "max_size_mib", NULL};
	const struct ab_jnode *m;
	const char *v;
	char *p;

	if (ab_recipe_want(c, a, path, cJSON_Object) < 0)
		return;
	ab_recipe_check_keys(c, a, path, keys);
	m = ab_jnode_member(a, "urls");
	p = ab_jpath_key(path, "urls");
	if (!m) {
		ab_recipe_missing(c, a, path, "urls");
	} else {
		ab_recipe_str_list(c, m, p, &s->urls, 1, PATH_ANY);
		if (m->type == '[' && !m->nkids)
			ab_recipe_err(c, m->line, m->col, p, "at least one url is required");
	}
	free(p);
	v = ab_recipe_str_member(c, a, path, "sha256", 1, &m);
	if (v) {
		p = ab_jpath_key(path, "sha256");
		if (!ab_is_hex(v, 64)) {
			char *sv = ab_jshown(v);

			ab_recipe_err(c, m->line, m->col, p, "'%s' is not a sha256 (64 lowercase hex digits)", sv);
			free(sv);
		}
		s->sha256 = ab_strdup(v);
		free(p);
	}
	ab_recipe_count_member(c, a, path, "strip", 1, AB_MEMBER_STRIP_MAX, &s->strip);
	ab_recipe_count_member(c, a, path, "max_size_mib", 0, AB_ARCHIVE_MAX_MIB_MAX, &s->max_size_mib);
}

/* a directory beside the recipe, pinned by its dirHash (docs/recipe.md, "dir") */
static void
parse_dir(struct ctx *c, struct ab_source *s, const struct ab_jnode *d, const char *path)
{
	static const char *const keys[] = {"path", "dirHash", NULL};
	const struct ab_jnode *m;
	const char *v;

	if (ab_recipe_want(c, d, path, cJSON_Object) < 0)
		return;
	ab_recipe_check_keys(c, d, path, keys);
	v = ab_recipe_str_member(c, d, path, "path", 1, &m);
	if (v) {
		char *p = ab_jpath_key(path, "path");

		if (ab_recipe_check_rel_path(c, m, p, v, "recipe's directory") == 0)
			s->dir = ab_strdup(v);
		free(p);
	}
	v = ab_recipe_str_member(c, d, path, "dirHash", 1, &m);
	if (v) {
		char *p = ab_jpath_key(path, "dirHash");

		if (!ab_is_hex(v, 64)) {
			char *sv = ab_jshown(v);

			ab_recipe_err(c, m->line, m->col, p, "'%s' is not a dirHash (64 lowercase hex digits)", sv);
			free(sv);
		}
		s->dirhash = ab_strdup(v);
		free(p);
	}
}

long
ab_recipe_source_index(const struct ctx *c, const char *id)
{
	return map_get(&c->smap, id);
}

/* the index of the source named id at n; -1, reported, when there is none */
long
ab_recipe_source_ref(struct ctx *c, const struct ab_jnode *n, const char *path, const char *id)
{
	long t = ab_recipe_source_index(c, id);

	if (t < 0) {
		char *v = ab_jshown(id);

		ab_recipe_err(c, n->line, n->col, path, "unknown source '%s'", v);
		free(v);
	}
	return t;
}

void
ab_recipe_parse_source(struct ctx *c, size_t idx, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"git", "archive", "dir", "patches", "prepare", "overlay", NULL};
	static const char *const kinds[] = {"git", "archive", "dir"};
	struct ab_source *s = &c->r->sources[idx];
	const struct ab_jnode *k[3], *first = NULL, *m;
	size_t nk = 0, fk = 0;
	char *p;

	s->line = n->line;
	s->col = n->col;
	s->patches.v = ab_calloc(1, sizeof(char *));
	if (ab_recipe_want(c, n, path, cJSON_Object) < 0) {
		s->urls.v = ab_calloc(1, sizeof(char *));
		return;
	}
	ab_recipe_check_keys(c, n, path, keys);
	/* one kind: the first written counts, each later one is reported */
	for (size_t i = 0; i < 3; i++)
		if ((k[i] = ab_jnode_member(n, kinds[i])) && (!first || k[i] < first))
			first = k[i], fk = i;
	for (size_t i = 0; i < 3; i++)
		nk += k[i] != NULL;
	if (!nk)
		ab_recipe_err(c, n->line, n->col, path, "a source needs one of 'git', 'archive' or 'dir'");
	for (size_t i = 0; i < 3 && nk > 1; i++)
		if (k[i] && k[i] != first) {
			p = ab_jpath_key(path, kinds[i]);
			ab_recipe_err(c, k[i]->kline, k[i]->kcol, p, "a source has one of 'git', 'archive' or 'dir', not several");
			free(p);
		}
	if (first) {
		p = ab_jpath_key(path, kinds[fk]);
		if (fk == 0) {
			s->kind = AB_SOURCE_GIT;
			parse_git(c, s, first, p);
		} else if (fk == 1) {
			s->kind = AB_SOURCE_ARCHIVE;
			parse_archive(c, s, first, p);
		} else {
			s->kind = AB_SOURCE_DIR;
			parse_dir(c, s, first, p);
		}
		free(p);
	}
	if (!s->urls.v)
		s->urls.v = ab_calloc(1, sizeof(char *));

	m = ab_recipe_list_member(c, n, path, "patches", &s->patches, 1, PATH_ANY);
	if (m && m->type == '[')
		check_patches(c, m, path);

	m = ab_jnode_member(n, "prepare");
	p = ab_jpath_key(path, "prepare");
	if (m && ab_recipe_want(c, m, p, cJSON_Array) == 0) {
		s->prepare = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*s->prepare));
		for (size_t i = 0; i < m->nkids; i++) {
			const struct ab_jnode *e = &m->kids[i];
			char *q = ab_jpath_index(p, i);
			struct ab_list *l = &s->prepare[s->nprepare];

			ab_recipe_str_list(c, e, q, l, 0, PATH_ANY);
			s->nprepare++;
			if (e->type == '[') {
				if (!e->nkids)
					ab_recipe_err(c, e->line, e->col, q, "empty command");
				else if (l->n && !l->v[0][0])
					ab_recipe_err(c, e->kids[0].line, e->kids[0].col, q, "empty program name");
			}
			free(q);
		}
	}
	free(p);

	m = ab_jnode_member(n, "overlay");
	p = ab_jpath_key(path, "overlay");
	if (m && ab_recipe_want(c, m, p, cJSON_Object) == 0) {
		ab_recipe_check_keys(c, m, p, NULL);
		s->overlays = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*s->overlays));
		for (size_t i = 0; i < m->nkids; i++) {
			const struct ab_jnode *e = &m->kids[i];
			char *q = ab_jpath_key(p, e->j->string);
			struct ab_jnode keynode = *e;
			long t;

			keynode.line = e->kline;
			keynode.col = e->kcol;
			ab_recipe_check_rel_path(c, &keynode, q, e->j->string, "source tree");
			if (ab_recipe_want(c, e, q, cJSON_String) == 0) {
				const char *v = e->j->valuestring;
				struct ab_overlay *o = &s->overlays[s->noverlays++];

				o->path = ab_strdup(e->j->string);
				o->source = ab_strdup(v);
				t = ab_recipe_source_ref(c, e, q, v);
				if (t >= 0 && (size_t)t == idx)
					ab_recipe_err(c, e->line, e->col, q, "a source cannot overlay itself");
				else if (t >= 0)
					ab_recipe_add_edge(&c->oe, &c->noe, &c->capoe, idx, (size_t)t, e, q);
			}
			free(q);
		}
	}
	free(p);
}

int
ab_recipe_check_pin(const struct ab_recipe *r, const struct ab_source *s, int allow_unpinned)
{
	char *p, *v;

	if (s->kind != AB_SOURCE_GIT || !s->unpinned || allow_unpinned)
		return 0;
	{
		char *src = ab_jpath_key("sources", s->id);

		p = ab_sprintf("%s.git.commit", src);
		free(src);
	}
	v = ab_jshown(s->commit);
	ab_error("%s:%d:%d: %s: " PIN_ERROR, r->path, s->commit_line, s->commit_col, p, v);
	free(v);
	free(p);
	return -1;
}

int
ab_recipe_check_pins(const struct ab_recipe *r, int allow_unpinned)
{
	int error = 0;

	for (size_t i = 0; i < r->nsources; i++)
		if (ab_recipe_check_pin(r, &r->sources[i], allow_unpinned) < 0)
			error = -1;
	return error;
}
