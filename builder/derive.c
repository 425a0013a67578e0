/* derive: a variant started from an earlier variant's finished trees (builder/derive.h) */
#include "derive.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/atomic.h"
#include "../lib/copytree.h"
#include "../lib/proc.h"
#include "../lib/stale.h"
#include "../lib/strmap.h"
#include "../lib/util.h"
#include "recipe.h"

/* ---- which variant a variant may start from ---- */

/* what a source's tree is made of, overlays included, in the terms a reason names */
struct tree_desc {
	const struct ab_recipe *r;
	struct ab_strv origin;   /* the bytes of the source itself */
	struct ab_strv overlays; /* where each overlaid tree goes, and its bytes */
	struct ab_strv patches;  /* each patch file, resolved */
	struct ab_strv prepare;  /* each prepare command */
};

static char *
identity(const struct ab_source *s)
{
	if (s->kind == AB_SOURCE_GIT)
		return ab_sprintf("git %s %s", s->url, s->commit);
	if (s->kind == AB_SOURCE_DIR)
		return ab_sprintf("dir %s %s", s->dir, s->dirhash);
	return ab_sprintf("archive %s strip %d", s->sha256, s->strip);
}

static int
describe(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth)
{
	struct tree_desc *d = arg;
	char *id = identity(s);

	if (via)
		ab_strv_pushf(&d->overlays, "%d %s <- %s", depth, via->path, id);
	else
		ab_strv_push(&d->origin, id);
	free(id);
	for (size_t i = 0; i < s->patches.n; i++)
		ab_strv_push_owned(&d->patches, ab_recipe_path(d->r, s->patches.v[i]));
	for (size_t i = 0; i < s->nprepare; i++)
		ab_strv_push_owned(&d->prepare, ab_argv_quote(s->prepare[i].v));
	return 0;
}

static void
desc_make(struct tree_desc *d, const struct ab_recipe *r, const struct ab_variant *v)
{
	memset(d, 0, sizeof(*d));
	d->r = r;
	ab_recipe_overlay_walk(r, ab_recipe_source(r, v->source), describe, NULL, d);
}

static void
desc_release(struct tree_desc *d)
{
	ab_strv_free(&d->origin);
	ab_strv_free(&d->overlays);
	ab_strv_free(&d->patches);
	ab_strv_free(&d->prepare);
}

/* the same strings in the same order (an ab_strv's or an ab_list's) */
static int
strings_eq(char *const *a, size_t an, char *const *b, size_t bn)
{
	if (an != bn)
		return 0;
	for (size_t i = 0; i < an; i++)
		if (strcmp(a[i], b[i]))
			return 0;
	return 1;
}

static int
strv_eq(const struct ab_strv *a, const struct ab_strv *b)
{
	return strings_eq(a->v, a->n, b->v, b->n);
}

static int
list_eq(const struct ab_list *a, const struct ab_list *b)
{
	return strings_eq(a->v, a->n, b->v, b->n);
}

static int
kv_eq(const struct ab_kvlist *a, const struct ab_kvlist *b)
{
	if (a->n != b->n)
		return 0;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i].key, b->v[i].key) || strcmp(a->v[i].value, b->v[i].value))
			return 0;
	return 1;
}

static const char *
kv_get(const struct ab_kvlist *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return l->v[i].value;
	return NULL;
}

/* what the facets compare: a variant, its tree, and the plan it is in */
struct side {
	const struct ab_plan *p;
	const struct ab_plan_var *pv;
	const struct tree_desc *d;
};

/*
 * One input other than the settings: NULL when a and b have the same, else
 * why b is built clean rather than from lead a's trees (caller frees)
 */
typedef char *facet_fn(const struct side *a, const struct side *b);

static char *
f_patches(const struct side *a, const struct side *b)
{
	return strv_eq(&a->d->patches, &b->d->patches) ? NULL : ab_sprintf("its patches differ from %s's", a->pv->v->label);
}

static char *
f_overlays(const struct side *a, const struct side *b)
{
	return strv_eq(&a->d->overlays, &b->d->overlays) ? NULL :
	    ab_sprintf("its overlays differ from %s's", a->pv->v->label);
}

static char *
f_prepare(const struct side *a, const struct side *b)
{
	return strv_eq(&a->d->prepare, &b->d->prepare) ? NULL :
	    ab_sprintf("its prepare commands differ from %s's", a->pv->v->label);
}

static char *
f_sandbox(const struct side *a, const struct side *b)
{
	const struct side *out = !b->pv->sandboxed ? b : !a->pv->sandboxed ? a : NULL;

	if (!out)
		return NULL;
	return out == b ? ab_strdup("it is built outside the build sandbox, where its trees have paths of their own") :
	    ab_sprintf("%s is built outside the build sandbox, where its trees have paths of their own", a->pv->v->label);
}

static char *
f_system(const struct side *a, const struct side *b)
{
	const struct ab_variant *va = a->pv->v, *vb = b->pv->v;
	const char *ga = va->build.generator ? va->build.generator : "", *gb = vb->build.generator ? vb->build.generator : "";

	if (vb->build.system == AB_BUILD_CARGO)
		return ab_strdup("a cargo build has no configure step to run again in place");
	if (va->build.system != vb->build.system || strcmp(ga, gb))
		return ab_sprintf("its build system differs from %s's", va->label);
	return NULL;
}

static char *
f_targets(const struct side *a, const struct side *b)
{
	return list_eq(&a->pv->v->build.targets, &b->pv->v->build.targets) ? NULL :
	    ab_sprintf("its targets differ from %s's", a->pv->v->label);
}

static char *
f_wrapper(const struct side *a, const struct side *b)
{
	return a->pv->ccwrap == b->pv->ccwrap && a->pv->reproducible == b->pv->reproducible ? NULL :
	    ab_sprintf("its compiler wrapper differs from %s's (\"reproducible\")", a->pv->v->label);
}

static char *
f_toolchain(const struct side *a, const struct side *b)
{
	const char *pa = kv_get(&a->pv->v->build.env, "PATH"), *pb = kv_get(&b->pv->v->build.env, "PATH");

	if ((!pa && !pb) || (pa && pb && !strcmp(pa, pb)))
		return NULL;
	return ab_sprintf("its PATH differs from %s's (another toolchain)", a->pv->v->label);
}

/* CMake reads CC, CFLAGS and the like from the environment only when it makes its cache */
static char *
f_cmake_env(const struct side *a, const struct side *b)
{
	if (b->pv->v->build.system != AB_BUILD_CMAKE || kv_eq(&a->pv->v->build.env, &b->pv->v->build.env))
		return NULL;
	return ab_sprintf("its build.env differs from %s's, and CMake reads its environment only when it makes its "
	    "cache", a->pv->v->label);
}

/* a define the lead sets stays in the CMake cache a derived variant starts from */
static char *
f_cmake_defines(const struct side *a, const struct side *b)
{
	const struct ab_kvlist *da = &a->pv->v->build.defines, *db = &b->pv->v->build.defines;

	if (b->pv->v->build.system != AB_BUILD_CMAKE)
		return NULL;
	for (size_t i = 0; i < da->n; i++)
		if (!kv_get(db, da->v[i].key))
			return ab_sprintf("it does not set %s, which %s sets, and CMake would keep %s's value in its cache",
			    da->v[i].key, a->pv->v->label, a->pv->v->label);
	return NULL;
}

/* does pv need, directly or through what it uses, a relink that writes into lead's build tree? */
static const struct ab_plan_var *
relink_of(const struct ab_plan *p, size_t vi, size_t lead, unsigned char *seen)
{
	const struct ab_plan_var *pv = &p->vars[vi];

	if (seen[vi])
		return NULL;
	seen[vi] = 1;
	if (pv->v->kind == AB_VARIANT_RELINK && pv->from_vi == lead)
		return pv;
	for (size_t k = 0; k < pv->ndeps; k++) {
		const struct ab_plan_var *r = relink_of(p, pv->deps[k], lead, seen);

		if (r)
			return r;
	}
	return NULL;
}

/* the relinks of the lead wait for the copies of its trees: one its copy waits for would never run */
static char *
f_relink_dep(const struct side *a, const struct side *b)
{
	const struct ab_plan *p = b->p;
	unsigned char *seen = ab_calloc(p->nvars + 1, 1);
	const struct ab_plan_var *r = relink_of(p, (size_t)(b->pv - p->vars), (size_t)(a->pv - p->vars), seen);

	free(seen);
	return r ? ab_sprintf("it uses %s, which relinks in %s's build tree", r->v->label, a->pv->v->label) : NULL;
}

/* the inputs other than the settings, in the order a reason names the first that differs */
static facet_fn *const facets[] = {
	f_sandbox, f_patches, f_overlays, f_prepare, f_system, f_targets, f_wrapper, f_toolchain,
	f_cmake_env, f_cmake_defines, f_relink_dep,
};

static char *
differs(const struct side *a, const struct side *b)
{
	for (size_t i = 0; i < AB_NELEM(facets); i++) {
		char *why = facets[i](a, b);

		if (why)
			return why;
	}
	return NULL;
}

void
ab_derive_plan(struct ab_plan *p)
{
	struct tree_desc *d = ab_calloc(p->nvars + 1, sizeof(*d));

	for (size_t i = 0; i < p->nvars; i++)
		if (p->vars[i].v->kind == AB_VARIANT_BUILD)
			desc_make(&d[i], p->r, p->vars[i].v);
	for (size_t i = 0; i < p->nvars; i++) {
		struct ab_plan_var *pv = &p->vars[i];
		struct side b = {p, pv, &d[i]};

		pv->derive_from = AB_PLAN_NONE;
		if (pv->v->kind != AB_VARIANT_BUILD)
			continue;
		/* a lead is a variant that derives from nothing: the others fan out from it once it ends */
		for (size_t k = 0; k < i && pv->derive_from == AB_PLAN_NONE; k++) {
			const struct ab_plan_var *lv = &p->vars[k];
			struct side a = {p, lv, &d[k]};
			char *why;

			if (lv->v->kind != AB_VARIANT_BUILD || lv->derive_from != AB_PLAN_NONE ||
			    !strv_eq(&d[k].origin, &d[i].origin))
				continue;
			why = differs(&a, &b);
			if (!why) {
				pv->derive_from = k;
				free(pv->derive_why);
				pv->derive_why = NULL;
			} else if (!pv->derive_why) {
				pv->derive_why = why;
			} else {
				free(why);
			}
		}
	}
	for (size_t i = 0; i < p->nvars; i++)
		desc_release(&d[i]);
	free(d);
}

/* ---- the copy ---- */

int
ab_derive_clean(const struct ab_plan_var *pv, int report)
{
	char *tmp = ab_path_join(pv->dir, AB_DERIVE_TMP), why[200];
	struct stat st;
	int e = 0;

	/* acted on only when it is what a copy makes: this user's private directory, not a link (lib/stale.h) */
	if (lstat(tmp, &st) == 0) {
		if (ab_stale_own(tmp, AB_STALE_DIR, 1, why, sizeof(why)) == 0) {
			e = ab_rm_rf(tmp);
		} else if (report) {
			ab_error("%s: '%s' is not a copy of another variant's trees that allocbuild made (%s): left alone; "
			    "remove it", pv->v->label, tmp, why);
			e = AB_EFAIL;
		} else {
			e = AB_EFAIL;
		}
	}
	free(tmp);
	return e;
}

int
ab_derive_copy(size_t *cloned, const struct ab_plan_var *lead, const struct ab_plan_var *pv)
{
	char *tmp = ab_path_join(pv->dir, AB_DERIVE_TMP);
	char *src = ab_path_join(tmp, "src"), *build = ab_path_join(tmp, "build");
	int e = AB_EFAIL;

	*cloned = 0;
	if (ab_derive_clean(pv, 1) < 0 || ab_mkdir_p(pv->dir, 0755) < 0)
		goto done;
	if (mkdir(tmp, 0700) < 0) {
		ab_error_errno("%s: cannot create '%s'", pv->v->label, tmp);
		goto done;
	}
	if (ab_copy_tree_flags(lead->src, src, AB_COPY_SAME, cloned) < 0)
		goto done;
	/* a test hook: t4610 kills the build here, in the middle of the copy */
	ab_test_pause("ALLOCBUILD_TEST_DERIVE_PAUSE");
	if (ab_copy_tree_flags(lead->build, build, AB_COPY_SAME, cloned) < 0)
		goto done;
	/* both complete: only now where a build looks for them */
	if (rename(src, pv->src) < 0 || rename(build, pv->build) < 0) {
		ab_error_errno("%s: cannot move the copy of %s's trees into '%s'", pv->v->label, lead->v->label, pv->dir);
		goto done;
	}
	e = ab_rm_rf(tmp);
done:
	free(src);
	free(build);
	free(tmp);
	return e;
}

/* ---- the compile log ---- */

/* the directory and output of a compile log line (its second and third fields), or NULL */
static char *
line_object(const char *line, size_t n)
{
	const char *t1 = memchr(line, '\t', n), *t2, *t3;

	if (!t1 || !(t2 = memchr(t1 + 1, '\t', n - (size_t)(t1 + 1 - line))) ||
	    !(t3 = memchr(t2 + 1, '\t', n - (size_t)(t2 + 1 - line))))
		return NULL;
	return ab_strndup(t1 + 1, (size_t)(t3 - t1 - 1));
}

int
ab_derive_compile_log(const struct ab_plan_var *lead, const struct ab_plan_var *pv)
{
	char *from = ab_path_join(lead->logs, "compiles.tsv"), *own = ab_path_join(pv->logs, "compiles.tsv");
	struct ab_buf a = {0}, b = {0}, out = {0};
	struct ab_strmap written = {0};
	struct ab_strv objs = {0};
	int e = AB_EFAIL;

	if (!ab_path_exists(from)) {
		e = 0;
		goto done;
	}
	if (ab_read_file(&a, from) < 0 || (ab_path_exists(own) && ab_read_file(&b, own) < 0))
		goto done;
	for (const char *t = b.s; t && *t;) {
		size_t n = strcspn(t, "\n");
		char *o = line_object(t, n);

		if (o) {
			ab_strv_push_owned(&objs, o);
			ab_strmap_put(&written, objs.v[objs.n - 1], objs.n - 1);
		}
		t += n + (t[n] == '\n');
	}
	for (const char *t = a.s; t && *t;) {
		size_t n = strcspn(t, "\n"), k;
		char *o = line_object(t, n);

		if (o && !ab_strmap_get(&written, o, &k)) {
			/* its first five fields; the sixth says it was compiled for the lead, not here */
			const char *f = t;

			for (int tabs = 0; f < t + n && tabs < 5; f++)
				tabs += *f == '\t';
			if (f < t + n || t[n - 1] == '\t')
				ab_buf_printf(&out, "%.*s%s\n", (int)(f - t), t, AB_DERIVE_INHERITED);
			else
				ab_buf_printf(&out, "%.*s\t%s\n", (int)n, t, AB_DERIVE_INHERITED);
		}
		free(o);
		t += n + (t[n] == '\n');
	}
	if (b.len)
		ab_buf_printf(&out, "%s", b.s);
	e = ab_write_file_atomic(own, out.s ? out.s : "", out.len);
done:
	ab_strmap_free(&written);
	ab_strv_free(&objs);
	ab_buf_free(&a);
	ab_buf_free(&b);
	ab_buf_free(&out);
	free(from);
	free(own);
	return e;
}
