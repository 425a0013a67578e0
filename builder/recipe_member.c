/*
 * recipe_member: one member of a recipe object read into the model, typed
 * and checked, an error reported at its place (ab_recipe_err): the readers
 * every part of the loader shares (builder/recipe_impl.h).
 */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lib/proc.h"
#include "../lib/util.h"
#include "recipe_impl.h"

void
ab_recipe_err(struct ctx *c, int line, int col, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ab_jdiag_vadd(&c->dg, line, col, path, fmt, ap);
	va_end(ap);
}

/* is n of the cJSON type t (cJSON_String, ...)? reports when not */
int
ab_recipe_want(struct ctx *c, const struct ab_jnode *n, const char *path, int t)
{
	return ab_jdiag_want(&c->dg, n, path, t);
}

/*
 * Report duplicate keys and, when keys is not NULL, unknown keys of an
 * object (keys is NULL-terminated).
 */
void
ab_recipe_check_keys(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *const *keys)
{
	ab_jdiag_check_keys(&c->dg, obj, path, keys);
}

void
ab_recipe_missing(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key)
{
	ab_jdiag_missing(&c->dg, obj, path, key);
}

/* a string member; NULL (reported when required) when missing or not a string */
const char *
ab_recipe_str_member(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, int required,
    const struct ab_jnode **node)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	const char *s = NULL;
	char *p;

	if (node)
		*node = m;
	if (!m) {
		if (required)
			ab_recipe_missing(c, obj, path, key);
		return NULL;
	}
	p = ab_jpath_key(path, key);
	if (ab_recipe_want(c, m, p, cJSON_String) == 0)
		s = m->j->valuestring;
	free(p);
	return s;
}

int
ab_recipe_check_ident(struct ctx *c, int line, int col, const char *path, const char *what, const char *s)
{
	char *v;

	if (ab_is_ident(s))
		return 0;
	v = ab_jshown(s);
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		ab_recipe_err(c, line, col, path, "invalid %s '%s': '.' and '..' are reserved", what, v);
	else
		ab_recipe_err(c, line, col, path, "invalid %s '%s': use only letters, digits, '.', '_' and '-'", what, v);
	free(v);
	return -1;
}

/* a path that must stay inside a tree; where names the tree */
int
ab_recipe_check_rel_path(struct ctx *c, const struct ab_jnode *n, const char *path, const char *s, const char *where)
{
	char *v;

	if (ab_path_is_safe_relative(s))
		return 0;
	v = ab_jshown(s);
	if (!*s)
		ab_recipe_err(c, n->line, n->col, path, "empty path");
	else if (s[0] == '/')
		ab_recipe_err(c, n->line, n->col, path, "'%s' is absolute: it must be relative to the %s", v, where);
	else
		ab_recipe_err(c, n->line, n->col, path, "'%s' leaves the %s: '..' is not allowed", v, where);
	free(v);
	return -1;
}

static int
check_nonempty(struct ctx *c, const struct ab_jnode *n, const char *path, const char *s)
{
	if (*s)
		return 0;
	ab_recipe_err(c, n->line, n->col, path, "must not be empty");
	return -1;
}

/*
 * An integer member from min to max; returns -1 (reported) when it is not
 * an integer, or one out of the range the caller checks with the value
 * (below it, the callers' own words), or one that no int holds
 */
int
ab_recipe_int_value(struct ctx *c, const struct ab_jnode *n, const char *path, int min, int max, int *out)
{
	double d;

	if (n->type != 'n') {
		ab_recipe_err(c, n->line, n->col, path, "expected an integer, got %s", ab_json_type_name(n->j));
		return -1;
	}
	d = n->j->valuedouble;
	/* a double of 2^53 or more is an integer; below, it converts (no libm needed) */
	if (d != d || d - d != 0 || (d > -9007199254740992.0 && d < 9007199254740992.0 && d != (double)(long long)d)) {
		ab_recipe_err(c, n->line, n->col, path, "expected an integer, got %g", d);
		return -1;
	}
	/* range first: converting an out-of-range double is undefined */
	if (!(d >= (double)INT_MIN && d <= (double)INT_MAX) || (d > max && min >= 0) || (d < min && min < 0)) {
		if (d > -1e15 && d < 1e15)
			ab_recipe_err(c, n->line, n->col, path, "out of range: expected an integer from %d to %d, got %.0f", min, max, d);
		else
			ab_recipe_err(c, n->line, n->col, path, "out of range: expected an integer from %d to %d, got %g", min, max, d);
		return -1;
	}
	*out = (int)d;
	return 0;
}

static const char *const tree_name[] = {NULL, "build directory", "source tree"};

/*
 * An array of strings into out (always NULL-terminated). Elements must be
 * non-empty when nonempty is set; paths checked when kind is not PATH_ANY.
 */
void
ab_recipe_str_list(struct ctx *c, const struct ab_jnode *n, const char *path, struct ab_list *out, int nonempty,
    int kind)
{
	size_t k = 0;

	out->v = ab_calloc(1, sizeof(char *));
	out->n = 0;
	if (!n || ab_recipe_want(c, n, path, cJSON_Array) < 0)
		return;
	out->v = ab_realloc(out->v, (n->nkids + 1) * sizeof(char *));
	for (size_t i = 0; i < n->nkids; i++) {
		const struct ab_jnode *e = &n->kids[i];
		char *p = ab_jpath_index(path, i);

		if (ab_recipe_want(c, e, p, cJSON_String) == 0) {
			const char *s = e->j->valuestring;

			if (kind != PATH_ANY)
				ab_recipe_check_rel_path(c, e, p, s, tree_name[kind]);
			else if (nonempty)
				check_nonempty(c, e, p, s);
			out->v[k++] = ab_strdup(s);
		}
		free(p);
	}
	out->v[k] = NULL;
	out->n = k;
}

/* an array-of-strings member into out (which keeps its default when key is missing); the member or NULL */
const struct ab_jnode *
ab_recipe_list_member(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, struct ab_list *out,
    int nonempty, int kind)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	char *p;

	if (!m)
		return NULL;
	free(out->v);
	p = ab_jpath_key(path, key);
	ab_recipe_str_list(c, m, p, out, nonempty, kind);
	free(p);
	return m;
}

/*
 * A string member that must not be empty or, when kind is not PATH_ANY,
 * must be a path inside that tree: a copy, NULL when missing (reported
 * when required) or not a string.
 */
char *
ab_recipe_dup_member(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, int required,
    int kind)
{
	const struct ab_jnode *m;
	const char *s = ab_recipe_str_member(c, obj, path, key, required, &m);
	char *p;

	if (!s)
		return NULL;
	p = ab_jpath_key(path, key);
	if (kind != PATH_ANY)
		ab_recipe_check_rel_path(c, m, p, s, tree_name[kind]);
	else
		check_nonempty(c, m, p, s);
	free(p);
	return ab_strdup(s);
}

/* an integer member from 1 (0 when zero_ok) to max; 0 when it is not */
void
ab_recipe_count_member(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, int zero_ok,
    int max, int *out)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	char *p;

	if (!m)
		return;
	p = ab_jpath_key(path, key);
	if (ab_recipe_int_value(c, m, p, zero_ok ? 0 : 1, max, out) < 0)
		*out = 0;
	else if (*out < (zero_ok ? 0 : 1)) {
		if (zero_ok)
			ab_recipe_err(c, m->line, m->col, p, "must not be negative, got %d", *out);
		else
			ab_recipe_err(c, m->line, m->col, p, "must be a positive integer, got %d", *out);
		*out = 0;
	}
	free(p);
}

/* a CMake variable: anything but '=' (CMake's -DNAME=value splits at the first one) */
int
ab_recipe_valid_cmake_name(const char *s)
{
	return *s && !strchr(s, '=');
}

/* an environment variable: [A-Za-z_][A-Za-z0-9_]*, the one rule of lib/proc (env and probe --env use it too) */
int
ab_recipe_valid_env_name(const char *s)
{
	return ab_env_name_valid(s, strlen(s));
}

/* an object-of-strings member (env, defines) into out, in recipe order; names checked by valid */
void
ab_recipe_kv_member(struct ctx *c, const struct ab_jnode *obj, const char *opath, const char *okey,
    struct ab_kvlist *out, const char *what, int (*valid)(const char *))
{
	const struct ab_jnode *n = ab_jnode_member(obj, okey);
	char *path;
	size_t k = 0;

	if (!n)
		return;
	path = ab_jpath_key(opath, okey);
	if (ab_recipe_want(c, n, path, cJSON_Object) < 0) {
		free(path);
		return;
	}
	ab_recipe_check_keys(c, n, path, NULL);
	out->v = ab_calloc(n->nkids ? n->nkids : 1, sizeof(*out->v));
	for (size_t i = 0; i < n->nkids; i++) {
		const struct ab_jnode *e = &n->kids[i];
		const char *key = e->j->string;
		char *p = ab_jpath_key(path, key);

		if (!valid(key)) {
			char *v = ab_jshown(key);

			if (valid == ab_recipe_valid_env_name)
				ab_recipe_err(c, e->kline, e->kcol, p, "invalid %s name '%s': expected [A-Za-z_][A-Za-z0-9_]*", what, v);
			else
				ab_recipe_err(c, e->kline, e->kcol, p, "invalid %s name '%s'", what, v);
			free(v);
		}
		if (ab_recipe_want(c, e, p, cJSON_String) == 0) {
			out->v[k].key = ab_strdup(key);
			out->v[k].value = ab_strdup(e->j->valuestring);
			k++;
		}
		free(p);
	}
	out->n = k;
	free(path);
}

/*
 * A file the build reads whole or runs (a patch, build.cargo, build.rustc)
 * that exists must be a regular file: /dev/zero or a fifo would hang
 * fetch or build, holding the cache's lock. 0, or -1 with the error at n.
 */
int
ab_recipe_check_regular(struct ctx *c, const struct ab_jnode *n, const char *p, const char *file, const char *shown_as)
{
	struct stat st;
	char *sv;

	if (stat(file, &st) < 0 || S_ISREG(st.st_mode))
		return 0;
	sv = ab_jshown(shown_as);
	ab_recipe_err(c, n->line, n->col, p, "'%s' is not a regular file", sv);
	free(sv);
	return -1;
}
