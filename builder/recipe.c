/*
 * recipe: the recipe loader (docs/recipe.md).
 *
 * The recipe is read with the position of every value (lib/jsonpos: a
 * strict scanner, then cJSON), the rules of the format are checked on that
 * tree, every error is collected, and the errors are printed sorted by
 * position (lib/jsonpos, the same mechanism as policies').
 */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lib/hash.h"
#include "../lib/jsonpos.h"
#include "../lib/member.h"
#include "../lib/pool.h"
#include "../lib/proc.h"
#include "recipe.h"
#include "../lib/strmap.h"
#include "../lib/util.h"

/* a string's index in lib/strmap, -1 when absent */
static long
map_get(const struct ab_strmap *m, const char *key)
{
	size_t v;

	return ab_strmap_get(m, key, &v) ? (long)v : -1;
}

/*
 * 3. The rules.
 */
struct edge {
	size_t from, to;
	int line, col;
	char *path;
};

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

static void err(struct ctx *c, int line, int col, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void
err(struct ctx *c, int line, int col, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ab_jdiag_vadd(&c->dg, line, col, path, fmt, ap);
	va_end(ap);
}

static void
add_edge(struct edge **v, size_t *n, size_t *cap, size_t from, size_t to, const struct ab_jnode *at,
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


/* is n of the cJSON type t (cJSON_String, ...)? reports when not */
static int
want(struct ctx *c, const struct ab_jnode *n, const char *path, int t)
{
	return ab_jdiag_want(&c->dg, n, path, t);
}



/*
 * Report duplicate keys and, when keys is not NULL, unknown keys of an
 * object (keys is NULL-terminated).
 */
static void
check_keys(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *const *keys)
{
	ab_jdiag_check_keys(&c->dg, obj, path, keys);
}

static void
missing(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key)
{
	ab_jdiag_missing(&c->dg, obj, path, key);
}

/* a string member; NULL (reported when required) when missing or not a string */
static const char *
str_member(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, int required,
    const struct ab_jnode **node)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	const char *s = NULL;
	char *p;

	if (node)
		*node = m;
	if (!m) {
		if (required)
			missing(c, obj, path, key);
		return NULL;
	}
	p = ab_jpath_key(path, key);
	if (want(c, m, p, cJSON_String) == 0)
		s = m->j->valuestring;
	free(p);
	return s;
}

static char *
dup_or_null(const char *s)
{
	return s ? ab_strdup(s) : NULL;
}

static int
is_ident(const char *s)
{
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '.' || *p == '_' || *p == '-'))
			return 0;
	return *s != '\0';
}

static int
check_ident(struct ctx *c, int line, int col, const char *path, const char *what, const char *s)
{
	char *v;

	if (is_ident(s))
		return 0;
	v = ab_jshown(s);
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		err(c, line, col, path, "invalid %s '%s': '.' and '..' are reserved", what, v);
	else
		err(c, line, col, path, "invalid %s '%s': use only letters, digits, '.', '_' and '-'", what, v);
	free(v);
	return -1;
}

/* a path that must stay inside a tree; where names the tree */
static int
check_rel_path(struct ctx *c, const struct ab_jnode *n, const char *path, const char *s, const char *where)
{
	char *v;

	if (ab_path_is_safe_relative(s))
		return 0;
	v = ab_jshown(s);
	if (!*s)
		err(c, n->line, n->col, path, "empty path");
	else if (s[0] == '/')
		err(c, n->line, n->col, path, "'%s' is absolute: it must be relative to the %s", v, where);
	else
		err(c, n->line, n->col, path, "'%s' leaves the %s: '..' is not allowed", v, where);
	free(v);
	return -1;
}

static int
check_nonempty(struct ctx *c, const struct ab_jnode *n, const char *path, const char *s)
{
	if (*s)
		return 0;
	err(c, n->line, n->col, path, "must not be empty");
	return -1;
}

/*
 * An integer member from min to max; returns -1 (reported) when it is not
 * an integer, or one out of the range the caller checks with the value
 * (below it, the callers' own words), or one that no int holds
 */
static int
int_value(struct ctx *c, const struct ab_jnode *n, const char *path, int min, int max, int *out)
{
	double d;

	if (n->type != 'n') {
		err(c, n->line, n->col, path, "expected an integer, got %s", ab_json_type_name(n->j));
		return -1;
	}
	d = n->j->valuedouble;
	/* a double of 2^53 or more is an integer; below, it converts (no libm needed) */
	if (d != d || d - d != 0 || (d > -9007199254740992.0 && d < 9007199254740992.0 && d != (double)(long long)d)) {
		err(c, n->line, n->col, path, "expected an integer, got %g", d);
		return -1;
	}
	/* range first: converting an out-of-range double is undefined */
	if (!(d >= (double)INT_MIN && d <= (double)INT_MAX) || (d > max && min >= 0) || (d < min && min < 0)) {
		if (d > -1e15 && d < 1e15)
			err(c, n->line, n->col, path, "out of range: expected an integer from %d to %d, got %.0f", min, max, d);
		else
			err(c, n->line, n->col, path, "out of range: expected an integer from %d to %d, got %g", min, max, d);
		return -1;
	}
	*out = (int)d;
	return 0;
}

enum { PATH_ANY, PATH_BUILD, PATH_SOURCE };

static const char *const tree_name[] = {NULL, "build directory", "source tree"};

/*
 * An array of strings into out (always NULL-terminated). Elements must be
 * non-empty when nonempty is set; paths checked when kind is not PATH_ANY.
 */
static void
str_list(struct ctx *c, const struct ab_jnode *n, const char *path, struct ab_list *out, int nonempty, int kind)
{
	size_t k = 0;

	out->v = ab_calloc(1, sizeof(char *));
	out->n = 0;
	if (!n || want(c, n, path, cJSON_Array) < 0)
		return;
	out->v = ab_realloc(out->v, (n->nkids + 1) * sizeof(char *));
	for (size_t i = 0; i < n->nkids; i++) {
		const struct ab_jnode *e = &n->kids[i];
		char *p = ab_jpath_index(path, i);

		if (want(c, e, p, cJSON_String) == 0) {
			const char *s = e->j->valuestring;

			if (kind != PATH_ANY)
				check_rel_path(c, e, p, s, tree_name[kind]);
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
static const struct ab_jnode *
list_member(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, struct ab_list *out,
    int nonempty, int kind)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	char *p;

	if (!m)
		return NULL;
	free(out->v);
	p = ab_jpath_key(path, key);
	str_list(c, m, p, out, nonempty, kind);
	free(p);
	return m;
}

/*
 * A string member that must not be empty or, when kind is not PATH_ANY,
 * must be a path inside that tree: a copy, NULL when missing (reported
 * when required) or not a string.
 */
static char *
dup_member(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, int required, int kind)
{
	const struct ab_jnode *m;
	const char *s = str_member(c, obj, path, key, required, &m);
	char *p;

	if (!s)
		return NULL;
	p = ab_jpath_key(path, key);
	if (kind != PATH_ANY)
		check_rel_path(c, m, p, s, tree_name[kind]);
	else
		check_nonempty(c, m, p, s);
	free(p);
	return ab_strdup(s);
}

/* an integer member from 1 (0 when zero_ok) to max; 0 when it is not */
static void
count_member(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, int zero_ok, int max,
    int *out)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	char *p;

	if (!m)
		return;
	p = ab_jpath_key(path, key);
	if (int_value(c, m, p, zero_ok ? 0 : 1, max, out) < 0)
		*out = 0;
	else if (*out < (zero_ok ? 0 : 1)) {
		if (zero_ok)
			err(c, m->line, m->col, p, "must not be negative, got %d", *out);
		else
			err(c, m->line, m->col, p, "must be a positive integer, got %d", *out);
		*out = 0;
	}
	free(p);
}

/* a CMake variable: anything but '=' (CMake's -DNAME=value splits at the first one) */
static int
valid_cmake_name(const char *s)
{
	return *s && !strchr(s, '=');
}

/* an environment variable: [A-Za-z_][A-Za-z0-9_]*, the one rule of lib/proc (env and probe --env use it too) */
static int
valid_env_name(const char *s)
{
	return ab_env_name_valid(s, strlen(s));
}

/* an object-of-strings member (env, defines) into out, in recipe order; names checked by valid */
static void
kv_member(struct ctx *c, const struct ab_jnode *obj, const char *opath, const char *okey, struct ab_kvlist *out,
    const char *what, int (*valid)(const char *))
{
	const struct ab_jnode *n = ab_jnode_member(obj, okey);
	char *path;
	size_t k = 0;

	if (!n)
		return;
	path = ab_jpath_key(opath, okey);
	if (want(c, n, path, cJSON_Object) < 0) {
		free(path);
		return;
	}
	check_keys(c, n, path, NULL);
	out->v = ab_calloc(n->nkids ? n->nkids : 1, sizeof(*out->v));
	for (size_t i = 0; i < n->nkids; i++) {
		const struct ab_jnode *e = &n->kids[i];
		const char *key = e->j->string;
		char *p = ab_jpath_key(path, key);

		if (!valid(key)) {
			char *v = ab_jshown(key);

			if (valid == valid_env_name)
				err(c, e->kline, e->kcol, p, "invalid %s name '%s': expected [A-Za-z_][A-Za-z0-9_]*", what, v);
			else
				err(c, e->kline, e->kcol, p, "invalid %s name '%s'", what, v);
			free(v);
		}
		if (want(c, e, p, cJSON_String) == 0) {
			out->v[k].key = ab_strdup(key);
			out->v[k].value = ab_strdup(e->j->valuestring);
			k++;
		}
		free(p);
	}
	out->n = k;
	free(path);
}

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

	err(c, line, col, path, PIN_ERROR, v);
	free(v);
}

static void
parse_git(struct ctx *c, struct ab_source *s, const struct ab_jnode *g, const char *path)
{
	static const char *const keys[] = {"url", "commit", NULL};
	const struct ab_jnode *m;
	const char *v;
	char *p;

	if (want(c, g, path, cJSON_Object) < 0)
		return;
	check_keys(c, g, path, keys);
	s->url = dup_member(c, g, path, "url", 1, PATH_ANY);
	v = str_member(c, g, path, "commit", 1, &m);
	if (v) {
		p = ab_jpath_key(path, "commit");
		s->commit = ab_strdup(v);
		s->commit_line = m->line;
		s->commit_col = m->col;
		if (!ab_is_hex(v, 40)) {
			if (!is_ref_name(v)) {
				char *sv = ab_jshown(v);

				err(c, m->line, m->col, p, "'%s' is neither a 40-digit commit id nor a ref name", sv);
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

/*
 * A file the build reads whole or runs (a patch, build.cargo, build.rustc)
 * that exists must be a regular file: /dev/zero or a fifo would hang
 * fetch or build, holding the cache's lock. 0, or -1 with the error at n.
 */
static int
check_regular(struct ctx *c, const struct ab_jnode *n, const char *p, const char *file, const char *shown_as)
{
	struct stat st;
	char *sv;

	if (stat(file, &st) < 0 || S_ISREG(st.st_mode))
		return 0;
	sv = ab_jshown(shown_as);
	err(c, n->line, n->col, p, "'%s' is not a regular file", sv);
	free(sv);
	return -1;
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
			err(c, e->line, e->col, q, "'%s' is an absolute path: a patch is a file beside the recipe, relative "
			    "to its directory", sv);
			free(sv);
		} else {
			full = ab_recipe_path(c->r, e->j->valuestring);
			check_regular(c, e, q, full, e->j->valuestring);
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

	if (want(c, a, path, cJSON_Object) < 0)
		return;
	check_keys(c, a, path, keys);
	m = ab_jnode_member(a, "urls");
	p = ab_jpath_key(path, "urls");
	if (!m) {
		missing(c, a, path, "urls");
	} else {
		str_list(c, m, p, &s->urls, 1, PATH_ANY);
		if (m->type == '[' && !m->nkids)
			err(c, m->line, m->col, p, "at least one url is required");
	}
	free(p);
	v = str_member(c, a, path, "sha256", 1, &m);
	if (v) {
		p = ab_jpath_key(path, "sha256");
		if (!ab_is_hex(v, 64)) {
			char *sv = ab_jshown(v);

			err(c, m->line, m->col, p, "'%s' is not a sha256 (64 lowercase hex digits)", sv);
			free(sv);
		}
		s->sha256 = ab_strdup(v);
		free(p);
	}
	count_member(c, a, path, "strip", 1, AB_MEMBER_STRIP_MAX, &s->strip);
	count_member(c, a, path, "max_size_mib", 0, AB_ARCHIVE_MAX_MIB_MAX, &s->max_size_mib);
}

/* a directory beside the recipe, pinned by its dirHash (docs/recipe.md, "dir") */
static void
parse_dir(struct ctx *c, struct ab_source *s, const struct ab_jnode *d, const char *path)
{
	static const char *const keys[] = {"path", "dirHash", NULL};
	const struct ab_jnode *m;
	const char *v;

	if (want(c, d, path, cJSON_Object) < 0)
		return;
	check_keys(c, d, path, keys);
	v = str_member(c, d, path, "path", 1, &m);
	if (v) {
		char *p = ab_jpath_key(path, "path");

		if (check_rel_path(c, m, p, v, "recipe's directory") == 0)
			s->dir = ab_strdup(v);
		free(p);
	}
	v = str_member(c, d, path, "dirHash", 1, &m);
	if (v) {
		char *p = ab_jpath_key(path, "dirHash");

		if (!ab_is_hex(v, 64)) {
			char *sv = ab_jshown(v);

			err(c, m->line, m->col, p, "'%s' is not a dirHash (64 lowercase hex digits)", sv);
			free(sv);
		}
		s->dirhash = ab_strdup(v);
		free(p);
	}
}

static long
source_index(const struct ctx *c, const char *id)
{
	return map_get(&c->smap, id);
}

/* the index of the source named id at n; -1, reported, when there is none */
static long
source_ref(struct ctx *c, const struct ab_jnode *n, const char *path, const char *id)
{
	long t = source_index(c, id);

	if (t < 0) {
		char *v = ab_jshown(id);

		err(c, n->line, n->col, path, "unknown source '%s'", v);
		free(v);
	}
	return t;
}

static void
parse_source(struct ctx *c, size_t idx, const struct ab_jnode *n, const char *path)
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
	if (want(c, n, path, cJSON_Object) < 0) {
		s->urls.v = ab_calloc(1, sizeof(char *));
		return;
	}
	check_keys(c, n, path, keys);
	/* one kind: the first written counts, each later one is reported */
	for (size_t i = 0; i < 3; i++)
		if ((k[i] = ab_jnode_member(n, kinds[i])) && (!first || k[i] < first))
			first = k[i], fk = i;
	for (size_t i = 0; i < 3; i++)
		nk += k[i] != NULL;
	if (!nk)
		err(c, n->line, n->col, path, "a source needs one of 'git', 'archive' or 'dir'");
	for (size_t i = 0; i < 3 && nk > 1; i++)
		if (k[i] && k[i] != first) {
			p = ab_jpath_key(path, kinds[i]);
			err(c, k[i]->kline, k[i]->kcol, p, "a source has one of 'git', 'archive' or 'dir', not several");
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

	m = list_member(c, n, path, "patches", &s->patches, 1, PATH_ANY);
	if (m && m->type == '[')
		check_patches(c, m, path);

	m = ab_jnode_member(n, "prepare");
	p = ab_jpath_key(path, "prepare");
	if (m && want(c, m, p, cJSON_Array) == 0) {
		s->prepare = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*s->prepare));
		for (size_t i = 0; i < m->nkids; i++) {
			const struct ab_jnode *e = &m->kids[i];
			char *q = ab_jpath_index(p, i);
			struct ab_list *l = &s->prepare[s->nprepare];

			str_list(c, e, q, l, 0, PATH_ANY);
			s->nprepare++;
			if (e->type == '[') {
				if (!e->nkids)
					err(c, e->line, e->col, q, "empty command");
				else if (l->n && !l->v[0][0])
					err(c, e->kids[0].line, e->kids[0].col, q, "empty program name");
			}
			free(q);
		}
	}
	free(p);

	m = ab_jnode_member(n, "overlay");
	p = ab_jpath_key(path, "overlay");
	if (m && want(c, m, p, cJSON_Object) == 0) {
		check_keys(c, m, p, NULL);
		s->overlays = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*s->overlays));
		for (size_t i = 0; i < m->nkids; i++) {
			const struct ab_jnode *e = &m->kids[i];
			char *q = ab_jpath_key(p, e->j->string);
			struct ab_jnode keynode = *e;
			long t;

			keynode.line = e->kline;
			keynode.col = e->kcol;
			check_rel_path(c, &keynode, q, e->j->string, "source tree");
			if (want(c, e, q, cJSON_String) == 0) {
				const char *v = e->j->valuestring;
				struct ab_overlay *o = &s->overlays[s->noverlays++];

				o->path = ab_strdup(e->j->string);
				o->source = ab_strdup(v);
				t = source_ref(c, e, q, v);
				if (t >= 0 && (size_t)t == idx)
					err(c, e->line, e->col, q, "a source cannot overlay itself");
				else if (t >= 0)
					add_edge(&c->oe, &c->noe, &c->capoe, idx, (size_t)t, e, q);
			}
			free(q);
		}
	}
	free(p);
}

static long
label_index(struct ctx *c, const char *label)
{
	return map_get(&c->lmap, label);
}

/* a reference to another variant; records the dependency */
static long
variant_ref(struct ctx *c, size_t idx, const struct ab_jnode *n, const char *path, const char *label)
{
	long t = label_index(c, label);

	if (t < 0) {
		char *v = ab_jshown(label);

		err(c, n->line, n->col, path, "unknown variant '%s'", v);
		free(v);
		return -1;
	}
	add_edge(&c->e, &c->ne, &c->cape, idx, (size_t)t, n, path);
	return t;
}

/* the {variant:LABEL:PATH} references of the string n (at path), added to v->uses once each */
static void
string_refs(struct ctx *c, size_t idx, struct ab_variant *v, const struct ab_jnode *n, const char *path)
{
	const char *s = n->j->valuestring;
	size_t pos = 0, start, end;
	struct ab_varref ref;
	int r;

	while ((r = ab_varref_next(s, &pos, &start, &end, &ref)) != 0) {
		size_t u;

		if (r < 0) {
			char *sv = ab_jshown(s + start);

			err(c, n->line, n->col, path, "malformed variant reference at '%s': expected {variant:LABEL:PATH}",
			    sv);
			free(sv);
			continue;
		}
		if (v->label && !strcmp(ref.label, v->label)) {
			err(c, n->line, n->col, path, "a variant cannot use its own artifact");
			ab_varref_release(&ref);
			continue;
		}
		if (check_rel_path(c, n, path, ref.path, "build directory of the variant used") < 0 ||
		    variant_ref(c, idx, n, path, ref.label) < 0) {
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
static void
build_refs(struct ctx *c, size_t idx, struct ab_variant *v, const struct ab_jnode *b, const char *path)
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
				string_refs(c, idx, v, &m->kids[i], ep);
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
static void
check_uses(struct ctx *c)
{
	for (size_t i = 0; i < c->nuc; i++) {
		const struct usecheck *k = &c->uc[i];
		const struct ab_varref *ref = &c->r->variants[k->v].uses[k->u];
		long t = label_index(c, ref->label);
		const struct ab_variant *tv = t >= 0 ? &c->r->variants[t] : NULL;
		char *lv = ab_jshown(ref->label), *pv = ab_jshown(ref->path);

		if (tv && tv->kind == AB_VARIANT_RUNTIME)
			err(c, k->line, k->col, k->path,
			    "variant '%s' is a runtime_of variant and builds nothing: use its base '%s'", lv,
			    tv->runtime_of ? tv->runtime_of : "?");
		else if (tv && !has_artifact(tv, ref->path))
			err(c, k->line, k->col, k->path,
			    "'%s' is not an artifact of variant '%s': list it in that variant's 'artifacts'", pv, lv);
		free(lv);
		free(pv);
		free(c->uc[i].path);
	}
	free(c->uc);
	c->uc = NULL;
	c->nuc = c->capuc = 0;
}

/* the keys only one build system takes: each refused, at its key, for the others */
static void
system_keys(struct ctx *c, enum ab_build_system sys, const struct ab_jnode *b, const char *path)
{
	static const struct {
		const char *key;
		enum ab_build_system only;
		const char *systems;
	} own[] = {{"profile", AB_BUILD_CARGO, "cargo"}, {"features", AB_BUILD_CARGO, "cargo"},
		{"bins", AB_BUILD_CARGO, "cargo"}, {"vendor", AB_BUILD_CARGO, "cargo"},
		{"cargo", AB_BUILD_CARGO, "cargo"}, {"rustc", AB_BUILD_CARGO, "cargo"},
		{"configure", AB_BUILD_AUTOTOOLS, "autotools"}, {"defines", AB_BUILD_CMAKE, "cmake"},
		{"generator", AB_BUILD_CMAKE, "cmake"}, {"targets", AB_BUILD_AUTOTOOLS, "autotools and cmake"}};
	static const char *const names[] = {"autotools", "cmake", "cargo"};

	for (size_t i = 0; i < AB_NELEM(own); i++) {
		const struct ab_jnode *m = ab_jnode_member(b, own[i].key);
		char *p;

		/* autotools and cmake report each other's keys already; targets serve both */
		if (!m || own[i].only == sys || (sys != AB_BUILD_CARGO && own[i].only != AB_BUILD_CARGO))
			continue;
		p = ab_jpath_key(path, own[i].key);
		err(c, m->kline, m->kcol, p, "'%s' is for %s builds, not %s", own[i].key, own[i].systems,
		    names[sys]);
		free(p);
	}
}

/* a cargo profile or binary name: what cargo accepts, never a path */
static int
valid_cargo_name(const char *s)
{
	if (!*s || *s == '-')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* a cargo feature: NAME or CRATE/NAME (cargo's own syntax), no spaces or commas */
static int
valid_cargo_feature(const char *s)
{
	const char *slash = strchr(s, '/');

	if (!*s || strpbrk(s, " ,\t") || *s == '-')
		return 0;
	return !slash || (slash != s && slash[1] && !strchr(slash + 1, '/'));
}

static void
check_names(struct ctx *c, const struct ab_jnode *m, const char *path, const struct ab_list *l,
    int (*valid)(const char *), const char *what)
{
	if (!m || m->type != '[')
		return;
	for (size_t i = 0, k = 0; i < m->nkids && k < l->n; i++) {
		char *p, *sv;

		if (m->kids[i].type != '"')
			continue;
		if (valid(l->v[k])) {
			k++;
			continue;
		}
		p = ab_jpath_index(path, i);
		sv = ab_jshown(l->v[k]);
		err(c, m->kids[i].line, m->kids[i].col, p, "invalid %s '%s'", what, sv);
		free(sv);
		free(p);
		k++;
	}
}

/* an absolute path of a tool (cargo, rustc), or NULL */
static char *
tool_member(struct ctx *c, const struct ab_jnode *b, const char *path, const char *key)
{
	const struct ab_jnode *m;
	char *s = dup_member(c, b, path, key, 0, PATH_ANY), *p;

	if (s && *s && *s != '/') {
		char *sv = ab_jshown(s);

		m = ab_jnode_member(b, key);
		p = ab_jpath_key(path, key);
		err(c, m->line, m->col, p, "'%s' is not an absolute path (without one, %s is what PATH finds)", sv, key);
		free(sv);
		free(p);
	} else if (s && *s) {
		m = ab_jnode_member(b, key);
		p = ab_jpath_key(path, key);
		check_regular(c, m, p, s, s);
		free(p);
	}
	return s;
}

/* profile, features, bins, vendor, cargo and rustc of a cargo build (docs/recipe.md, "Cargo builds") */
static void
cargo_members(struct ctx *c, struct ab_variant *v, const struct ab_jnode *b, const char *path)
{
	const struct ab_jnode *m;
	char *p;

	v->build.profile = dup_member(c, b, path, "profile", 0, PATH_ANY);
	if (v->build.profile && !valid_cargo_name(v->build.profile)) {
		char *sv = ab_jshown(v->build.profile);

		m = ab_jnode_member(b, "profile");
		p = ab_jpath_key(path, "profile");
		err(c, m->line, m->col, p, "invalid cargo profile name '%s': expected [A-Za-z0-9_-]+", sv);
		free(sv);
		free(p);
	}
	m = list_member(c, b, path, "features", &v->build.features, 1, PATH_ANY);
	p = ab_jpath_key(path, "features");
	check_names(c, m, p, &v->build.features, valid_cargo_feature, "cargo feature");
	free(p);
	m = list_member(c, b, path, "bins", &v->build.bins, 1, PATH_ANY);
	p = ab_jpath_key(path, "bins");
	check_names(c, m, p, &v->build.bins, valid_cargo_name, "cargo binary name");
	free(p);
	v->build.vendor = dup_member(c, b, path, "vendor", 0, PATH_SOURCE);
	v->build.cargo = tool_member(c, b, path, "cargo");
	v->build.rustc = tool_member(c, b, path, "rustc");
}

static void
parse_build(struct ctx *c, size_t idx, struct ab_variant *v, const struct ab_jnode *b, const char *path)
{
	static const char *const keys[] = {"system", "configure", "defines", "generator", "targets", "jobs",
		"env", "profile", "features", "bins", "vendor", "cargo", "rustc", NULL};
	const struct ab_jnode *m, *cf, *df, *gen;
	const char *s;
	char *p;

	v->build.configure.v = ab_calloc(1, sizeof(char *));
	v->build.targets.v = ab_calloc(1, sizeof(char *));
	v->build.features.v = ab_calloc(1, sizeof(char *));
	v->build.bins.v = ab_calloc(1, sizeof(char *));
	if (want(c, b, path, cJSON_Object) < 0)
		return;
	check_keys(c, b, path, keys);
	s = str_member(c, b, path, "system", 1, &m);
	cf = ab_jnode_member(b, "configure");
	df = ab_jnode_member(b, "defines");
	gen = ab_jnode_member(b, "generator");
	if (s) {
		if (!strcmp(s, "autotools")) {
			v->build.system = AB_BUILD_AUTOTOOLS;
			if (df) {
				p = ab_jpath_key(path, "defines");
				err(c, df->kline, df->kcol, p,
				    "'defines' is for cmake builds; an autotools build takes 'configure'");
				free(p);
			}
			if (gen) {
				p = ab_jpath_key(path, "generator");
				err(c, gen->kline, gen->kcol, p, "'generator' is for cmake builds");
				free(p);
			}
		} else if (!strcmp(s, "cmake")) {
			v->build.system = AB_BUILD_CMAKE;
			if (cf) {
				p = ab_jpath_key(path, "configure");
				err(c, cf->kline, cf->kcol, p,
				    "'configure' is for autotools builds; a cmake build takes 'defines'");
				free(p);
			}
		} else if (!strcmp(s, "cargo")) {
			v->build.system = AB_BUILD_CARGO;
		} else {
			char *sv = ab_jshown(s);

			p = ab_jpath_key(path, "system");
			err(c, m->line, m->col, p, "unknown build system '%s' (expected 'autotools', 'cmake' or 'cargo')",
			    sv);
			free(sv);
			free(p);
		}
	}
	if (s)
		system_keys(c, v->build.system, b, path);
	list_member(c, b, path, "configure", &v->build.configure, 0, PATH_ANY);
	kv_member(c, b, path, "defines", &v->build.defines, "cmake variable", valid_cmake_name);
	v->build.generator = dup_member(c, b, path, "generator", 0, PATH_ANY);
	if (!v->build.generator)
		v->build.generator = ab_strdup("Unix Makefiles");
	list_member(c, b, path, "targets", &v->build.targets, 1, PATH_ANY);
	count_member(c, b, path, "jobs", 0, AB_POOL_MAX, &v->build.jobs);
	kv_member(c, b, path, "env", &v->build.env, "environment variable", valid_env_name);
	cargo_members(c, v, b, path);
	build_refs(c, idx, v, b, path);
}

static void
parse_relink(struct ctx *c, size_t idx, struct ab_variant *v, const struct ab_jnode *rl, const char *path)
{
	static const char *const keys[] = {"from", "link_txt", "replace", "output", NULL};
	static const char *const rkeys[] = {"path", "with", NULL};
	static const char *const wkeys[] = {"variant", "artifact", NULL};
	const struct ab_jnode *m;
	const char *s;
	char *p;

	if (want(c, rl, path, cJSON_Object) < 0)
		return;
	check_keys(c, rl, path, keys);
	s = str_member(c, rl, path, "from", 1, &m);
	if (s) {
		long t;

		p = ab_jpath_key(path, "from");
		v->relink.from = ab_strdup(s);
		t = variant_ref(c, idx, m, p, s);
		if (t >= 0 && c->r->variants[t].kind != AB_VARIANT_BUILD && c->labels[t]) {
			char *sv = ab_jshown(s);

			err(c, m->line, m->col, p, "variant '%s' is not a build variant", sv);
			free(sv);
		}
		free(p);
	}
	v->relink.link_txt = dup_member(c, rl, path, "link_txt", 1, PATH_BUILD);
	v->relink.output = dup_member(c, rl, path, "output", 1, PATH_BUILD);
	m = ab_jnode_member(rl, "replace");
	p = ab_jpath_key(path, "replace");
	if (!m) {
		missing(c, rl, path, "replace");
	} else if (want(c, m, p, cJSON_Array) == 0) {
		if (!m->nkids)
			err(c, m->line, m->col, p, "at least one replacement is required");
		v->relink.replace = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*v->relink.replace));
		for (size_t i = 0; i < m->nkids; i++) {
			const struct ab_jnode *e = &m->kids[i], *w, *x;
			struct ab_replace *rp = &v->relink.replace[v->relink.nreplace];
			char *q = ab_jpath_index(p, i), *wp;

			if (want(c, e, q, cJSON_Object) < 0) {
				free(q);
				continue;
			}
			v->relink.nreplace++;
			check_keys(c, e, q, rkeys);
			rp->path = dup_member(c, e, q, "path", 1, PATH_ANY);
			if (rp->path) {
				char *pp = ab_jpath_key(q, "path");

				string_refs(c, idx, v, ab_jnode_member(e, "path"), pp);
				free(pp);
			}
			w = ab_jnode_member(e, "with");
			wp = ab_jpath_key(q, "with");
			if (!w) {
				missing(c, e, q, "with");
			} else if (want(c, w, wp, cJSON_Object) == 0) {
				check_keys(c, w, wp, wkeys);
				s = str_member(c, w, wp, "variant", 1, &x);
				if (s) {
					char *vp = ab_jpath_key(wp, "variant");

					rp->with_variant = ab_strdup(s);
					variant_ref(c, idx, x, vp, s);
					free(vp);
				}
				rp->with_artifact = dup_member(c, w, wp, "artifact", 1, PATH_BUILD);
			}
			free(wp);
			free(q);
		}
	}
	free(p);
}

static void
parse_allocator(struct ctx *c, struct ab_variant *v, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"kind", "archive", "vendored", "upstream", NULL};
	const struct ab_jnode *m;
	const char *s;
	char *p;

	if (want(c, n, path, cJSON_Object) < 0)
		return;
	v->allocator.present = 1;
	check_keys(c, n, path, keys);
	s = str_member(c, n, path, "kind", 1, &m);
	if (s) {
		if (strcmp(s, "jemalloc") && strcmp(s, "mimalloc")) {
			char *sv = ab_jshown(s);

			p = ab_jpath_key(path, "kind");
			err(c, m->line, m->col, p, "unknown allocator kind '%s' (expected 'jemalloc' or 'mimalloc')",
			    sv);
			free(sv);
			free(p);
		}
		v->allocator.kind = ab_strdup(s);
	}
	v->allocator.archive = dup_member(c, n, path, "archive", 0, PATH_BUILD);
	v->allocator.vendored = dup_member(c, n, path, "vendored", 0, PATH_SOURCE);
	s = str_member(c, n, path, "upstream", 0, &m);
	if (s) {
		if (!c->no_sources) {
			p = ab_jpath_key(path, "upstream");
			source_ref(c, m, p, s);
			free(p);
		}
		v->allocator.upstream = ab_strdup(s);
	}
}

static void
parse_runtime(struct ctx *c, struct ab_variant *v, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"env", "unset", NULL};
	const struct ab_jnode *m;
	char *p;

	if (want(c, n, path, cJSON_Object) < 0)
		return;
	check_keys(c, n, path, keys);
	kv_member(c, n, path, "env", &v->runtime.env, "environment variable", valid_env_name);
	m = list_member(c, n, path, "unset", &v->runtime.unset, 0, PATH_ANY);
	if (!m || m->type != '[')
		return;
	p = ab_jpath_key(path, "unset");
	for (size_t i = 0; i < m->nkids; i++) {
		const struct ab_jnode *e = &m->kids[i];

		if (e->type == '"' && !valid_env_name(e->j->valuestring)) {
			char *q = ab_jpath_index(p, i), *sv = ab_jshown(e->j->valuestring);

			err(c, e->line, e->col, q, "invalid environment variable name '%s': expected [A-Za-z_][A-Za-z0-9_]*", sv);
			free(sv);
			free(q);
		}
	}
	free(p);
}

static void
parse_probe(struct ctx *c, struct ab_variant *v, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"args", "timeout", NULL};

	if (want(c, n, path, cJSON_Object) < 0)
		return;
	check_keys(c, n, path, keys);
	list_member(c, n, path, "args", &v->probe.args, 0, PATH_ANY);
	count_member(c, n, path, "timeout", 0, INT_MAX, &v->probe.timeout);
}

/* an allocator option name as probes report it: lg_extent_max_active_fit, purge_delay */
static int
valid_option_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= '0' && *s <= '9') && *s != '_' && *s != '.')
			return 0;
	return 1;
}

static void
parse_expect(struct ctx *c, struct ab_variant *v, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"version", "secure", "options", NULL};
	const struct ab_jnode *m;

	v->expect.present = 1;
	if (want(c, n, path, cJSON_Object) < 0)
		return;
	check_keys(c, n, path, keys);
	v->expect.version = dup_member(c, n, path, "version", 0, PATH_ANY);
	if ((m = ab_jnode_member(n, "secure"))) {
		char *p = ab_jpath_key(path, "secure");

		if (int_value(c, m, p, 0, 4, &v->expect.secure) < 0)
			v->expect.secure = -1;
		free(p);
	}
	kv_member(c, n, path, "options", &v->expect.options, "allocator option", valid_option_name);
}

/* "reproducible": a boolean, on build variants only (a relink or runtime_of is what its variants are) */
static void
parse_reproducible(struct ctx *c, struct ab_variant *v, const struct ab_jnode *m, const char *path)
{
	char *p;

	if (!m)
		return;
	p = ab_jpath_key(path, "reproducible");
	if (!cJSON_IsBool(m->j))
		err(c, m->line, m->col, p, "expected a boolean, got %s", ab_json_type_name(m->j));
	else if (v->kind != AB_VARIANT_BUILD)
		err(c, m->kline, m->kcol, p,
		    "'reproducible' is for build variants (a relink or runtime_of is as reproducible as the variants it uses)");
	else
		v->reproducible = cJSON_IsTrue(m->j);
	free(p);
}

/* "sandbox": a boolean, on any variant: its steps (build, relink, probe) run in the build sandbox */
static void
parse_sandbox(struct ctx *c, struct ab_variant *v, const struct ab_jnode *m, const char *path)
{
	char *p;

	if (!m)
		return;
	p = ab_jpath_key(path, "sandbox");
	if (!cJSON_IsBool(m->j))
		err(c, m->line, m->col, p, "expected a boolean, got %s", ab_json_type_name(m->j));
	else
		v->sandbox = cJSON_IsTrue(m->j);
	free(p);
}

/* the kind of a variant, from its first kind key; set before references are resolved */
static void
variant_kind(struct ctx *c, struct ab_variant *v, const struct ab_jnode *n, const char *path)
{
	static const char *const kinds[] = {"source", "relink", "runtime_of"};
	const struct ab_jnode *first = NULL;
	size_t fk = 0;

	v->kind = AB_VARIANT_BUILD;
	if (!n || n->type != '{')
		return;
	for (size_t i = 0; i < n->nkids; i++) {
		const struct ab_jnode *m = &n->kids[i];

		for (size_t k = 0; k < AB_NELEM(kinds); k++) {
			if (strcmp(m->j->string, kinds[k]))
				continue;
			if (!first) {
				first = m;
				fk = k;
			} else if (strcmp(first->j->string, m->j->string) && path) {
				char *p = ab_jpath_key(path, m->j->string);

				err(c, m->kline, m->kcol, p,
				    "a variant has exactly one of 'source', 'relink' or 'runtime_of' (already has '%s')",
				    kinds[fk]);
				free(p);
			}
		}
	}
	if (!first) {
		if (path)
			err(c, n->line, n->col, path, "a variant needs one of 'source', 'relink' or 'runtime_of'");
		return;
	}
	v->kind = fk == 0 ? AB_VARIANT_BUILD : fk == 1 ? AB_VARIANT_RELINK : AB_VARIANT_RUNTIME;
}

static void
parse_variant(struct ctx *c, size_t idx, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"label", "source", "build", "relink", "runtime_of", "artifacts",
		"allocator", "runtime", "probe", "expect", "reproducible", "sandbox", NULL};
	struct ab_variant *v = &c->r->variants[idx];
	const struct ab_jnode *m, *b;
	const char *s;
	char *p;

	v->line = n->line;
	v->col = n->col;
	v->reproducible = 1;
	v->sandbox = 1;
	v->artifacts.v = ab_calloc(1, sizeof(char *));
	v->runtime.unset.v = ab_calloc(1, sizeof(char *));
	v->probe.args.v = ab_calloc(1, sizeof(char *));
	if (n->type != '{')
		return; /* reported by the label pass */
	check_keys(c, n, path, keys);
	variant_kind(c, v, n, path);
	s = str_member(c, n, path, "label", 1, NULL);
	if (s)
		v->label = ab_strdup(s);

	b = ab_jnode_member(n, "build");
	s = str_member(c, n, path, "source", 0, &m);
	if (v->kind == AB_VARIANT_BUILD && ab_jnode_member(n, "source")) {
		if (!b)
			missing(c, n, path, "build");
		if (s) {
			v->source = ab_strdup(s);
			if (!c->no_sources) {
				p = ab_jpath_key(path, "source");
				source_ref(c, m, p, s);
				free(p);
			}
		}
	}
	if (b) {
		p = ab_jpath_key(path, "build");
		if (v->kind != AB_VARIANT_BUILD || !ab_jnode_member(n, "source"))
			err(c, b->kline, b->kcol, p, "'build' needs 'source' (only build variants have it)");
		else
			parse_build(c, idx, v, b, p);
		free(p);
	}
	if (!v->build.configure.v) {
		v->build.configure.v = ab_calloc(1, sizeof(char *));
		v->build.targets.v = ab_calloc(1, sizeof(char *));
	}

	m = ab_jnode_member(n, "relink");
	if (m && v->kind == AB_VARIANT_RELINK) {
		p = ab_jpath_key(path, "relink");
		parse_relink(c, idx, v, m, p);
		free(p);
	}
	s = str_member(c, n, path, "runtime_of", 0, &m);
	if (s && v->kind == AB_VARIANT_RUNTIME) {
		p = ab_jpath_key(path, "runtime_of");
		v->runtime_of = ab_strdup(s);
		variant_ref(c, idx, m, p, s);
		free(p);
	}

	list_member(c, n, path, "artifacts", &v->artifacts, 1, PATH_BUILD);
	m = ab_jnode_member(n, "allocator");
	if (m) {
		p = ab_jpath_key(path, "allocator");
		parse_allocator(c, v, m, p);
		free(p);
	}
	m = ab_jnode_member(n, "runtime");
	if (m) {
		p = ab_jpath_key(path, "runtime");
		parse_runtime(c, v, m, p);
		free(p);
	}
	v->expect.secure = -1;
	m = ab_jnode_member(n, "expect");
	if (m) {
		p = ab_jpath_key(path, "expect");
		parse_expect(c, v, m, p);
		free(p);
	}
	m = ab_jnode_member(n, "probe");
	if (m) {
		p = ab_jpath_key(path, "probe");
		if (v->kind == AB_VARIANT_RUNTIME)
			err(c, m->kline, m->kcol, p, "a runtime_of variant is probed like its base: set 'probe' there");
		else
			parse_probe(c, v, m, p);
		free(p);
	}
	parse_reproducible(c, v, ab_jnode_member(n, "reproducible"), path);
	parse_sandbox(c, v, ab_jnode_member(n, "sandbox"), path);
	/* an allocator variant must have something to probe */
	m = ab_jnode_member(n, "allocator");
	if (m && m->type == '{' && v->kind != AB_VARIANT_RUNTIME && !ab_jnode_member(n, "artifacts") &&
	    !ab_jnode_member(m, "archive")) {
		p = ab_jpath_key(path, "allocator");
		err(c, m->kline, m->kcol, p, "nothing to probe: give the variant 'artifacts' or 'allocator.archive'");
		free(p);
	}
}

/* report every cycle of the graph (edges from -> to over n nodes) once, where it closes */
static void
find_cycles(struct ctx *c, size_t n, const struct edge *e, size_t ne, const char *what, int variants)
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
				err(c, e[k].line, e[k].col, e[k].path, "%s cycle: %s", what, b.s);
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


static void
check_recipe(struct ctx *c, const struct ab_jnode *root)
{
	static const char *const keys[] = {"recipe", "name", "description", "sources", "variants", NULL};
	struct ab_recipe *r = c->r;
	const struct ab_jnode *m, *vs;
	const char *s;

	if (want(c, root, "$", cJSON_Object) < 0)
		return;
	check_keys(c, root, "$", keys);

	m = ab_jnode_member(root, "recipe");
	if (!m) {
		missing(c, root, "$", "recipe");
	} else if (int_value(c, m, "recipe", INT_MIN, INT_MAX, &r->format) == 0 && r->format != 1) {
		err(c, m->line, m->col, "recipe", "unsupported recipe format %d (this allocbuild reads format 1)",
		    r->format);
	}
	s = str_member(c, root, "$", "name", 1, &m);
	if (s) {
		check_ident(c, m->line, m->col, "name", "name", s);
		r->name = ab_strdup(s);
	}
	r->description = dup_or_null(str_member(c, root, "$", "description", 0, NULL));

	/* sources first: variants refer to them wherever they are in the file */
	m = ab_jnode_member(root, "sources");
	c->no_sources = !m || m->type != '{';
	if (!m) {
		missing(c, root, "$", "sources");
	} else if (want(c, m, "sources", cJSON_Object) == 0) {
		check_keys(c, m, "sources", NULL);
		r->sources = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*r->sources));
		/* ids first, so that overlays may name a later source */
		for (size_t i = 0; i < m->nkids; i++) {
			const struct ab_jnode *e = &m->kids[i];
			char *p = ab_jpath_key("sources", e->j->string);

			if (check_ident(c, e->kline, e->kcol, p, "source id", e->j->string) == 0 &&
			    source_index(c, e->j->string) < 0) {
				r->sources[i].id = ab_strdup(e->j->string);
				ab_strmap_put(&c->smap, r->sources[i].id, i);
			}
			r->nsources++;
			free(p);
		}
		for (size_t i = 0; i < m->nkids; i++) {
			char *p = ab_jpath_key("sources", m->kids[i].j->string);

			parse_source(c, i, &m->kids[i], p);
			free(p);
		}
		find_cycles(c, r->nsources, c->oe, c->noe, "overlay", 0);
	}

	vs = ab_jnode_member(root, "variants");
	if (!vs) {
		missing(c, root, "$", "variants");
		return;
	}
	if (want(c, vs, "variants", cJSON_Array) < 0)
		return;
	if (!vs->nkids) {
		err(c, vs->line, vs->col, "variants", "at least one variant is required");
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

		if (want(c, e, p, cJSON_Object) == 0) {
			variant_kind(c, &r->variants[i], e, NULL);
			l = ab_jnode_member(e, "label");
			if (l && l->type == '"') {
				char *lp = ab_jpath_key(p, "label");
				const char *ls = l->j->valuestring;
				long prev = label_index(c, ls);

				if (check_ident(c, l->line, l->col, lp, "label", ls) == 0) {
					if (prev >= 0) {
						char *sv = ab_jshown(ls);

						err(c, l->line, l->col, lp, "duplicate label '%s' (first at %d:%d)", sv,
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

		parse_variant(c, i, &vs->kids[i], p);
		free(p);
	}
	check_uses(c);
	find_cycles(c, r->nvariants, c->e, c->ne, "dependency", 1);
}

void
ab_recipe_free(struct ab_recipe *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nsources; i++) {
		struct ab_source *s = &r->sources[i];

		free(s->id);
		free(s->url);
		free(s->commit);
		ab_list_free(&s->urls);
		free(s->sha256);
		free(s->dir);
		free(s->dirhash);
		ab_list_free(&s->patches);
		for (size_t j = 0; j < s->nprepare; j++)
			ab_list_free(&s->prepare[j]);
		free(s->prepare);
		for (size_t j = 0; j < s->noverlays; j++) {
			free(s->overlays[j].path);
			free(s->overlays[j].source);
		}
		free(s->overlays);
	}
	free(r->sources);
	for (size_t i = 0; i < r->nvariants; i++) {
		struct ab_variant *v = &r->variants[i];

		free(v->label);
		free(v->source);
		ab_list_free(&v->build.configure);
		ab_kvlist_free(&v->build.defines);
		for (size_t k = 0; k < v->nuses; k++)
			ab_varref_release(&v->uses[k]);
		free(v->expect.version);
		ab_kvlist_free(&v->expect.options);
		free(v->uses);
		free(v->build.generator);
		ab_list_free(&v->build.targets);
		ab_kvlist_free(&v->build.env);
		free(v->build.profile);
		ab_list_free(&v->build.features);
		ab_list_free(&v->build.bins);
		free(v->build.vendor);
		free(v->build.cargo);
		free(v->build.rustc);
		free(v->relink.from);
		free(v->relink.link_txt);
		for (size_t j = 0; j < v->relink.nreplace; j++) {
			free(v->relink.replace[j].path);
			free(v->relink.replace[j].with_variant);
			free(v->relink.replace[j].with_artifact);
		}
		free(v->relink.replace);
		free(v->relink.output);
		free(v->runtime_of);
		ab_list_free(&v->artifacts);
		ab_list_free(&v->probe.args);
		free(v->allocator.kind);
		free(v->allocator.archive);
		free(v->allocator.vendored);
		free(v->allocator.upstream);
		ab_kvlist_free(&v->runtime.env);
		ab_list_free(&v->runtime.unset);
	}
	free(r->variants);
	free(r->path);
	free(r->text);
	free(r->dir);
	free(r->name);
	free(r->description);
	free(r);
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

const struct ab_source *
ab_recipe_source(const struct ab_recipe *r, const char *id)
{
	for (size_t i = 0; i < r->nsources; i++)
		if (!strcmp(r->sources[i].id, id))
			return &r->sources[i];
	return NULL;
}

const struct ab_variant *
ab_recipe_variant(const struct ab_recipe *r, const char *label)
{
	for (size_t i = 0; i < r->nvariants; i++)
		if (!strcmp(r->variants[i].label, label))
			return &r->variants[i];
	return NULL;
}

char *
ab_recipe_path(const struct ab_recipe *r, const char *p)
{
	char *joined, *abs;

	if (p[0] == '/')
		return ab_strdup(p);
	joined = ab_path_join(r->dir, p);
	abs = ab_path_absolute(joined);
	free(joined);
	return abs;
}

size_t
ab_recipe_count(const struct ab_recipe *r, enum ab_variant_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nvariants; i++)
		n += r->variants[i].kind == kind;
	return n;
}

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
			ab_error("unknown variant '%s'", labels[i]);
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
