#include "plan.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cargo.h"
#include "ccwrap.h"
#include "derive.h"
#include "isolation.h"
#include "../lib/redact.h"
#include "../lib/pool.h"
#include "../lib/proc.h"
#include "../lib/jsonio.h"
#include "../provenance/record/ccstats.h"
#include "../provenance/record/manifest.h"

/* the directory through which ccache masquerades as the compilers (Debian) */
#define CCACHE_DIR_BIN "/usr/lib/ccache"

const char *
ab_plan_kind_name(const struct ab_variant *v)
{
	switch (v->kind) {
	case AB_VARIANT_BUILD:
		return v->build.system == AB_BUILD_CMAKE ? "cmake" : v->build.system == AB_BUILD_CARGO ? "cargo" :
		    "autotools";
	case AB_VARIANT_RELINK:
		return "relink";
	case AB_VARIANT_RUNTIME:
		return "runtime_of";
	}
	return "?";
}

const struct ab_plan_var *
ab_plan_step_var(const struct ab_plan *p, const struct ab_step *s)
{
	return s->var == AB_PLAN_NONE ? NULL : &p->vars[s->var];
}

static struct ab_step *
add_step(struct ab_plan *p, enum ab_step_kind kind, size_t var)
{
	struct ab_step *s;

	p->steps = ab_realloc(p->steps, (p->nsteps + 1) * sizeof(*p->steps));
	s = &p->steps[p->nsteps++];
	memset(s, 0, sizeof(*s));
	s->kind = kind;
	s->var = var;
	return s;
}

/* a set of sources in the order first seen */
struct source_set {
	const struct ab_source **v;
	size_t n;
};

static void
source_set_add(struct source_set *set, const struct ab_source *s)
{
	for (size_t i = 0; s && i < set->n; i++)
		if (set->v[i] == s)
			return;
	if (!s)
		return;
	set->v = ab_realloc(set->v, (set->n + 1) * sizeof(*set->v));
	set->v[set->n++] = s;
}

static int
collect_one(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth)
{
	(void)via;
	(void)depth;
	source_set_add(arg, s);
	return 0;
}

/* a source and, recursively, the sources overlaid onto it, each once */
static void
collect_source(struct source_set *set, const struct ab_recipe *r, const struct ab_source *s)
{
	ab_recipe_overlay_walk(r, s, collect_one, NULL, set);
}

size_t
ab_plan_var_index(const struct ab_plan *p, const char *label)
{
	for (size_t i = 0; i < p->nvars; i++)
		if (!strcmp(p->vars[i].v->label, label))
			return i;
	return AB_PLAN_NONE;
}

static void
add_dep(struct ab_plan_var *pv, size_t d)
{
	if (d == AB_PLAN_NONE)
		return;
	for (size_t i = 0; i < pv->ndeps; i++)
		if (pv->deps[i] == d)
			return;
	pv->deps = ab_realloc(pv->deps, (pv->ndeps + 1) * sizeof(*pv->deps));
	pv->deps[pv->ndeps++] = d;
}

static char *
join_targets(const char *prefix, const struct ab_list *t)
{
	struct ab_buf b = {0};

	ab_buf_puts(&b, prefix);
	for (size_t i = 0; i < t->n; i++)
		ab_buf_printf(&b, " %s", t->v[i]);
	return ab_buf_detach(&b);
}

/* does the recipe's build.env set key? */
static int
build_env_has(const struct ab_variant *v, const char *key)
{
	for (size_t i = 0; i < v->build.env.n; i++)
		if (!strcmp(v->build.env.v[i].key, key))
			return 1;
	return 0;
}

/*
 * Does the variant's build step join the jobserver? Only a budget of more
 * than one job is worth sharing; an explicit build.jobs keeps its -jK; the
 * Ninja generator has no jobserver client.
 */
static int
uses_jobserver(const struct ab_plan *p, const struct ab_variant *v)
{
	if (p->jobs < 2 || v->kind != AB_VARIANT_BUILD || v->build.jobs > 0)
		return 0;
	/* the recipe's own make flags are used as given, never replaced */
	if (build_env_has(v, "MAKEFLAGS") || build_env_has(v, "CMAKE_BUILD_PARALLEL_LEVEL"))
		return 0;
	/* cargo is a jobserver client (it reads MAKEFLAGS) and hands it to the build scripts' makes */
	return v->build.system != AB_BUILD_CMAKE || !v->build.generator ||
	    !strcmp(v->build.generator, "Unix Makefiles");
}

/* a {variant:LABEL:PATH} reference: the absolute path of LABEL's artifact (LABEL is in the plan: ab_recipe_order) */
static char *
resolve_ref(void *arg, const char *label, const char *path)
{
	const struct ab_plan *p = arg;
	size_t i = ab_plan_var_index(p, label);

	return i == AB_PLAN_NONE ? NULL : ab_path_join(p->vars[i].artdir, path);
}

char *
ab_plan_expand(const struct ab_plan *p, const char *s)
{
	char *e = ab_varref_expand(s, resolve_ref, (void *)p);

	return e ? e : ab_strdup(s); /* the loader refused malformed references */
}

/* the same as a sandboxed step sees the artifact: below /allocbuild/variants */
static char *
resolve_ref_inside(void *arg, const char *label, const char *path)
{
	const struct ab_plan *p = arg;
	size_t i = ab_plan_var_index(p, label);
	const struct ab_plan_var *pv;
	const char *base;

	if (i == AB_PLAN_NONE)
		return NULL;
	pv = &p->vars[i];
	base = pv->base->kind == AB_VARIANT_RELINK ? pv->base->relink.from : pv->base->label;
	return ab_isolation_artifact(base, path);
}

char *
ab_plan_expand_for(const struct ab_plan *p, const struct ab_plan_var *pv, const char *s)
{
	char *e;

	if (!pv->sandboxed)
		return ab_plan_expand(p, s);
	e = ab_varref_expand(s, resolve_ref_inside, (void *)p);
	return e ? e : ab_strdup(s);
}

/* cargo has no configure step: one cargo build in the source tree (builder/cargo.h) */
static void
plan_cargo_step(struct ab_plan *p, size_t vi)
{
	struct ab_plan_var *pv = &p->vars[vi];
	struct ab_step *s = add_step(p, AB_STEP_BUILD, vi);

	s->log = ab_sprintf("%s/03-build.log", pv->logs);
	s->name = ab_strdup("cargo build");
	if (uses_jobserver(p, pv->v)) {
		s->jobserver = 1;
		ab_strv_pushf(&s->env, "MAKEFLAGS=-j%d --jobserver-auth=%s", p->jobserver, AB_JOBSERVER_FDS);
	}
	ab_cargo_argv(&s->argv, pv->v, s->jobserver ? 0 : pv->jobs);
	ab_cargo_env(&s->env, &s->unset, pv->v, pv->sandboxed ? AB_FIXED_ROOT : p->outdir, pv->in_src, pv->in_build);
	s->cwd = ab_strdup(pv->in_src);
}

/* does a later variant derive from vi's trees? */
static int
is_lead(const struct ab_plan *p, size_t vi)
{
	for (size_t i = vi + 1; p->derive && i < p->nvars; i++)
		if (p->vars[i].derive_from == vi)
			return 1;
	return 0;
}

static void
plan_build_steps(struct ab_plan *p, size_t vi)
{
	struct ab_plan_var *pv = &p->vars[vi];
	const struct ab_variant *v = pv->v;
	struct ab_step *s;
	char jobs[32];

	snprintf(jobs, sizeof(jobs), "%d", pv->jobs);
	pv->first_step = p->nsteps;

	s = add_step(p, AB_STEP_SOURCE, vi);
	s->source = ab_recipe_source(p->r, v->source);
	s->name = ab_sprintf("source %s", v->source);
	s->cwd = ab_strdup(pv->dir);
	s->dir = ab_strdup(pv->src);
	if (v->build.system == AB_BUILD_CARGO) {
		plan_cargo_step(p, vi);
		pv->nsteps = p->nsteps - pv->first_step;
		return;
	}

	s = add_step(p, AB_STEP_CONFIGURE, vi);
	s->log = ab_sprintf("%s/02-configure.log", pv->logs);
	if (v->build.system == AB_BUILD_AUTOTOOLS) {
		s->name = ab_strdup("configure");
		ab_strv_pushf(&s->argv, "%s/configure", pv->in_src);
		for (size_t i = 0; i < v->build.configure.n; i++)
			ab_strv_push_owned(&s->argv, ab_plan_expand_for(p, pv, v->build.configure.v[i]));
		s->cwd = ab_strdup(pv->in_build);
	} else {
		s->name = ab_strdup("cmake configure");
		ab_strv_push(&s->argv, "cmake");
		ab_strv_push(&s->argv, "-S");
		ab_strv_push(&s->argv, pv->in_src);
		ab_strv_push(&s->argv, "-B");
		ab_strv_push(&s->argv, pv->in_build);
		ab_strv_push(&s->argv, "-G");
		ab_strv_push(&s->argv, v->build.generator ? v->build.generator : "Unix Makefiles");
		for (size_t i = 0; i < v->build.defines.n; i++) {
			char *value = ab_plan_expand_for(p, pv, v->build.defines.v[i].value);

			ab_strv_pushf(&s->argv, "-D%s=%s", v->build.defines.v[i].key, value);
			free(value);
		}
		s->cwd = ab_strdup(pv->sandboxed ? AB_FIXED_ROOT : pv->dir);
		if (is_lead(p, vi)) {
			/*
			 * the lead of derived variants configures twice: a CMake project
			 * whose configure is not idempotent (Fluent Bit's second run
			 * orders its include directories otherwise, so every flags.make
			 * changes) then has its tree at the fixed point the derived
			 * variants' own re-configure reaches (builder/derive.h)
			 */
			struct ab_step *again = add_step(p, AB_STEP_CONFIGURE, vi), *first = again - 1;

			again->log = ab_sprintf("%s/02-configure-again.log", pv->logs);
			again->name = ab_strdup("cmake configure again");
			for (size_t i = 0; i < first->argv.n; i++)
				ab_strv_push(&again->argv, first->argv.v[i]);
			again->cwd = ab_strdup(first->cwd);
		}
	}

	s = add_step(p, AB_STEP_BUILD, vi);
	s->log = ab_sprintf("%s/03-build.log", pv->logs);
	if (uses_jobserver(p, v)) {
		/* no -j in argv: an explicit -jK makes make leave the jobserver */
		s->jobserver = 1;
		ab_strv_pushf(&s->env, "MAKEFLAGS=-j%d --jobserver-auth=%s", p->jobserver, AB_JOBSERVER_FDS);
		/* cmake --build would turn it into -jK */
		if (v->build.system == AB_BUILD_CMAKE)
			ab_strv_push(&s->unset, "CMAKE_BUILD_PARALLEL_LEVEL");
	}
	if (v->build.system == AB_BUILD_AUTOTOOLS) {
		s->name = join_targets("make", &v->build.targets);
		ab_strv_push(&s->argv, "make");
		if (!s->jobserver)
			ab_strv_pushf(&s->argv, "-j%s", jobs);
		for (size_t i = 0; i < v->build.targets.n; i++)
			ab_strv_push(&s->argv, v->build.targets.v[i]);
		s->cwd = ab_strdup(pv->in_build);
	} else {
		s->name = join_targets("cmake --build", &v->build.targets);
		ab_strv_push(&s->argv, "cmake");
		ab_strv_push(&s->argv, "--build");
		ab_strv_push(&s->argv, pv->in_build);
		if (v->build.targets.n) {
			ab_strv_push(&s->argv, "--target");
			for (size_t i = 0; i < v->build.targets.n; i++)
				ab_strv_push(&s->argv, v->build.targets.v[i]);
		}
		/* cmake --build -j would override the recipe's CMAKE_BUILD_PARALLEL_LEVEL */
		if (!s->jobserver && !(v->build.jobs <= 0 && build_env_has(v, "CMAKE_BUILD_PARALLEL_LEVEL"))) {
			ab_strv_push(&s->argv, "-j");
			ab_strv_push(&s->argv, jobs);
		}
		s->cwd = ab_strdup(pv->sandboxed ? AB_FIXED_ROOT : pv->dir);
	}
	pv->nsteps = p->nsteps - pv->first_step;
}

static void
plan_relink_steps(struct ab_plan *p, size_t vi)
{
	struct ab_plan_var *pv = &p->vars[vi];
	struct ab_step *s;

	pv->first_step = p->nsteps;
	s = add_step(p, AB_STEP_RELINK, vi);
	s->name = ab_sprintf("relink %s", pv->v->relink.output);
	s->log = ab_sprintf("%s/01-relink.log", pv->logs);
	s->cwd = ab_strdup(pv->in_build);
	pv->nsteps = 1;
}

/*
 * Is the variant compiled path-independently? A build variant unless its
 * recipe says "reproducible": false; a relink or runtime_of when every
 * variant it uses is (those come earlier in the plan).
 */
static int
plan_reproducible(const struct ab_plan *p, const struct ab_plan_var *pv)
{
	const char **labels;
	size_t n;
	int r = 1;

	if (pv->v->kind == AB_VARIANT_BUILD)
		return pv->v->reproducible;
	labels = ab_calloc(ab_recipe_variant_ndeps_max(pv->v), sizeof(*labels));
	n = ab_recipe_variant_deps(labels, pv->v);
	for (size_t k = 0; k < n; k++) {
		size_t d = ab_plan_var_index(p, labels[k]);

		if (d != AB_PLAN_NONE && !p->vars[d].reproducible)
			r = 0;
	}
	free(labels);
	return r;
}

/*
 * What the compiler wrapper adds for pv: the prefix maps of the variant
 * whose objects it compiles or links (a relink links its from variant's
 * objects again, as that variant's link did)
 */
static void
plan_ccflags(struct ab_plan *p, struct ab_plan_var *pv)
{
	const struct ab_plan_var *own = pv;

	if (pv->v->kind == AB_VARIANT_RUNTIME || !pv->reproducible)
		return;
	if (pv->v->kind == AB_VARIANT_RELINK) {
		size_t f = ab_plan_var_index(p, pv->v->relink.from);

		if (f == AB_PLAN_NONE)
			return;
		own = &p->vars[f];
	}
	pv->ccwrap = 1;
	/* in the sandbox the directories have their final names already: the wrapper's ar and ranlib are left */
	if (pv->sandboxed)
		return;
	ab_ccwrap_prefix_maps(&pv->ccflags, p->outdir, own->src, own->build);
	if (!p->ccwrap)
		p->ccwrap = ab_path_join(p->outdir, AB_CCWRAP_DIR);
}

/* the child environment beyond the scrubbed base; see docs/build.md */
static void
plan_env(struct ab_plan *p, struct ab_plan_var *pv)
{
	const struct ab_variant *v = pv->v;
	const char *path = getenv("PATH");
	struct ab_buf dirs = {0};

	ab_strv_pushf(&pv->env, "SOURCE_DATE_EPOCH=%s", AB_SOURCE_DATE_EPOCH);
	/* jemalloc's configure runs git describe in the build dir: never let it see an enclosing repository */
	if (pv->sandboxed)
		ab_strv_push(&pv->env, "GIT_CEILING_DIRECTORIES=" AB_FIXED_ROOT);
	else
		ab_strv_pushf(&pv->env, "GIT_CEILING_DIRECTORIES=%s/variants", p->outdir);
	/* the wrapper first: every compiler a build finds through PATH is the wrapper (builder/ccwrap.h) */
	if (pv->ccwrap)
		ab_buf_printf(&dirs, "%s:", pv->sandboxed ? AB_FIXED_CCWRAP : p->ccwrap);
	/*
	 * Debian's masquerade directory: every compiler found through PATH is
	 * ccache, including the ones an ExternalProject's configure finds
	 */
	if (p->ccache)
		ab_buf_printf(&dirs, "%s:", CCACHE_DIR_BIN);
	/* a sandboxed step's PATH is always the same; a plain one's is the caller's behind those */
	if (pv->sandboxed)
		ab_strv_pushf(&pv->env, "PATH=%s%s", dirs.s ? dirs.s : "", AB_SANDBOX_PATH);
	else if (dirs.len)
		ab_strv_pushf(&pv->env, "PATH=%s%s", dirs.s, path ? path : AB_SANDBOX_PATH);
	ab_buf_free(&dirs);
	if (pv->sandboxed)
		ab_strv_push(&pv->env, "HOME=" AB_FIXED_HOME);
	/* every compile of a build variant logged with its object's digest (builder/ccwrap.h) */
	if (pv->ccwrap && v->kind == AB_VARIANT_BUILD)
		ab_strv_pushf(&pv->env, "%s=%s/%s", AB_CCWRAP_LOG_ENV, pv->in_logs, AB_CCWRAP_LOG);
	if (pv->ccflags.n) {
		char *q = ab_argv_quote(ab_strv_argv(&pv->ccflags));

		ab_strv_pushf(&pv->env, "%s=%s", AB_CCWRAP_FLAGS_ENV, q);
		free(q);
	}
	if (p->ccache && pv->sandboxed) {
		/*
		 * At the fixed paths ccache needs no rewriting of paths: what it
		 * hands the compiler is what a build without it would, and the same
		 * compile in two variants (or OUTDIRs, or machines) is the same input
		 */
		ab_strv_push(&pv->env, "CCACHE_DIR=" AB_FIXED_CCACHE);
		if (p->ccache_remote)
			ab_strv_pushf(&pv->env, "CCACHE_REMOTE_STORAGE=%s",
			    p->ccache_remote_inside ? p->ccache_remote_inside : p->ccache_remote);
		if (v->kind == AB_VARIANT_BUILD)
			ab_strv_pushf(&pv->env, "CCACHE_STATSLOG=%s/%s", AB_FIXED_LOGS, AB_CCSTATS_LOG);
	} else if (p->ccache) {
		/* same compile commands in different variant dirs hit the same objects */
		ab_strv_pushf(&pv->env, "CCACHE_BASEDIR=%s", p->outdir);
		ab_strv_push(&pv->env, "CCACHE_NOHASHDIR=1");
		if (p->ccache_dir)
			ab_strv_pushf(&pv->env, "CCACHE_DIR=%s", p->ccache_dir);
		if (p->ccache_remote)
			ab_strv_pushf(&pv->env, "CCACHE_REMOTE_STORAGE=%s", p->ccache_remote);
		/* its own hits and misses (provenance/record/ccstats.h) */
		if (v->kind == AB_VARIANT_BUILD)
			ab_strv_pushf(&pv->env, "CCACHE_STATSLOG=%s/%s", pv->logs, AB_CCSTATS_LOG);
	}
	if (v->kind == AB_VARIANT_BUILD)
		for (size_t i = 0; i < v->build.env.n; i++) {
			char *value = ab_plan_expand_for(p, pv, v->build.env.v[i].value);

			ab_strv_pushf(&pv->env, "%s=%s", v->build.env.v[i].key, value);
			free(value);
		}
}

/*
 * ccache's local cache when no --ccache-dir names one, as ccache 4 finds
 * it: CCACHE_DIR, else ~/.ccache when it exists, else
 * $XDG_CACHE_HOME/ccache, else ~/.cache/ccache (a cache_dir set in a
 * ccache.conf is not read: name it with --ccache-dir)
 */
static char *
ccache_default_dir(void)
{
	const char *d = getenv("CCACHE_DIR"), *home = getenv("HOME"), *xdg = getenv("XDG_CACHE_HOME");
	char *legacy;

	if (d && *d)
		return ab_path_absolute(d);
	if (!home || !*home)
		home = "/";
	legacy = ab_path_join(home, ".ccache");
	if (ab_is_dir(legacy))
		return legacy;
	free(legacy);
	if (xdg && *xdg)
		return ab_sprintf("%s/ccache", xdg);
	return ab_sprintf("%s/.cache/ccache", home);
}

/*
 * ccache in the sandbox: its local cache bound in, and the remote storage
 * (--ccache-remote, else CCACHE_REMOTE_STORAGE of the caller's, which
 * the sandbox does not inherit) reached through allocbuild's forwarder
 */
static void
plan_remote(struct ab_plan *p)
{
	const char *env = getenv("CCACHE_REMOTE_STORAGE"), *tmp = getenv("TMPDIR");
	static int seq;

	p->ccache_real = p->ccache_dir ? ab_strdup(p->ccache_dir) : ccache_default_dir();
	if (!p->ccache_remote && env && *env)
		p->ccache_remote = ab_strdup(env);
	if (!p->ccache_remote || !*p->ccache_remote)
		return;
	p->ccache_remote_inside = ab_isolation_remote(p->ccache_remote, &p->net, &p->nnet, &p->remote_paths);
	if (!p->nnet)
		return;
	/* a unix socket's path has at most 107 bytes: a long TMPDIR is not used for it */
	if (!tmp || !*tmp || strlen(tmp) > 60)
		tmp = "/tmp";
	p->net_dir = ab_sprintf("%s/allocbuild-net.%d.%d", tmp, (int)getpid(), seq++);
}

/*
 * a recipe's tool named by an absolute path outside /usr: that file alone,
 * shown read-only at its path in the sandbox (never what lies beside it)
 */
static void
tool_file(struct ab_strv *files, const char *tool)
{
	if (!tool || tool[0] != '/' || !strncmp(tool, "/usr/", 5))
		return;
	if (!ab_strv_has(files, tool))
		ab_strv_push(files, tool);
}

/* the sandbox of pv's steps (builder/isolation.h) */
static void
plan_sandbox(struct ab_plan *p, struct ab_plan_var *pv)
{
	struct ab_isolation_dirs d = {0};
	struct ab_strv tools = {0};
	char *variants;

	if (!pv->sandboxed)
		return;
	variants = ab_path_join(p->outdir, "variants");
	d.variants = variants;
	if (pv->v->kind == AB_VARIANT_BUILD) {
		d.src = pv->src;
		d.build = pv->build;
		if (pv->v->build.system == AB_BUILD_CARGO) {
			tool_file(&tools, pv->v->build.cargo);
			tool_file(&tools, pv->v->build.rustc);
		}
	} else if (pv->v->kind == AB_VARIANT_RELINK) {
		d.build = pv->artdir;
	}
	d.logs = pv->logs;
	if (pv->v->kind == AB_VARIANT_BUILD && pv->ccwrap)
		ab_strv_push(&pv->log_files, AB_CCWRAP_LOG);
	if (pv->v->kind == AB_VARIANT_BUILD && p->ccache)
		ab_strv_push(&pv->log_files, AB_CCSTATS_LOG);
	d.log_files = (const char *const *)ab_strv_argv(&pv->log_files);
	d.probe = pv->probe;
	d.self = p->self;
	d.ccache = p->ccache ? p->ccache_real : NULL;
	for (size_t i = 0; i < p->remote_paths.n; i++)
		ab_strv_push(&tools, p->remote_paths.v[i]);
	d.tools = (const char *const *)ab_strv_argv(&tools);
	ab_isolation_variant(&pv->sb, &d);
	if (p->nnet)
		ab_isolation_net(&pv->sb, p->net_dir, p->nnet);
	ab_strv_free(&tools);
	free(variants);
}

/* the selected variants (indexes into r->variants, in dependency order) with their directories */
static int
has_probe_settings(const struct ab_variant *v)
{
	return v->probe.args.n || v->probe.timeout;
}

static void
plan_vars(struct ab_plan *p, const size_t *order, size_t norder)
{
	const struct ab_recipe *r = p->r;

	p->nvars = norder;
	p->vars = ab_calloc(norder ? norder : 1, sizeof(*p->vars));
	for (size_t i = 0; i < norder; i++) {
		struct ab_plan_var *pv = &p->vars[i];

		pv->index = order[i];
		pv->v = &r->variants[order[i]];
		pv->base = ab_recipe_base_variant(r, pv->v);
		if (!pv->base)
			pv->base = pv->v;
		/* a relink is the from variant's program with another archive: its allocator kind and probe arguments */
		pv->alloc_from = pv->base;
		if (pv->base->kind == AB_VARIANT_RELINK && !pv->base->allocator.present)
			pv->alloc_from = ab_recipe_variant(r, pv->base->relink.from);
		pv->probe_from = has_probe_settings(pv->v) ? pv->v : pv->base;
		if (!has_probe_settings(pv->probe_from) && pv->base->kind == AB_VARIANT_RELINK)
			pv->probe_from = ab_recipe_variant(r, pv->base->relink.from);
		pv->dir = ab_sprintf("%s/variants/%s", p->outdir, pv->v->label);
		pv->src = ab_sprintf("%s/src", pv->dir);
		pv->build = ab_sprintf("%s/build", pv->dir);
		pv->logs = ab_sprintf("%s/logs", pv->dir);
		pv->probe = ab_sprintf("%s/probe", pv->dir);
		pv->artdir = ab_sprintf("%s/variants/%s/build", p->outdir, pv->base->kind == AB_VARIANT_RELINK ?
		    pv->base->relink.from : pv->base->label);
		pv->first_step = pv->probe_step = pv->updiff_step = AB_PLAN_NONE;
		pv->sandboxed = p->sandbox && pv->v->sandbox;
		if (pv->sandboxed) {
			pv->in_src = AB_FIXED_SRC;
			pv->in_build = AB_FIXED_BUILD;
			pv->in_logs = AB_FIXED_LOGS;
			pv->in_probe = AB_FIXED_PROBE;
		} else {
			pv->in_src = pv->src;
			/* a relink runs in its from variant's build directory */
			pv->in_build = pv->v->kind == AB_VARIANT_RELINK ? pv->artdir : pv->build;
			pv->in_logs = pv->logs;
			pv->in_probe = pv->probe;
		}
	}
}

/* the job budget: up to `jobs` variants at once, sharing the budget; the jobserver */
static void
plan_budget(struct ab_plan *p)
{
	size_t nbuild = 0;

	for (size_t i = 0; i < p->nvars; i++)
		nbuild += p->vars[i].v->kind == AB_VARIANT_BUILD;
	p->parallel = nbuild < (size_t)p->jobs ? (int)nbuild : p->jobs;
	if (p->parallel < 1)
		p->parallel = 1;
	for (size_t i = 0; i < p->nvars; i++) {
		struct ab_plan_var *pv = &p->vars[i];
		const struct ab_variant *v = pv->v;

		pv->jobs = v->kind == AB_VARIANT_BUILD && v->build.jobs > 0 ? v->build.jobs : p->jobs / p->parallel;
		if (uses_jobserver(p, v)) {
			/* the whole budget when it builds alone: docs/build.md */
			pv->jobs = p->jobs;
			p->jobserver = p->jobs;
		}
		if (pv->jobs < 1)
			pv->jobs = 1;
	}
}

/*
 * With ccache, the build variants of one source compile mostly the same
 * objects: the first one's build step runs before the others' (their
 * sources and configures go on meanwhile), so that each shared object is
 * compiled once and the others take it from the cache (docs/build.md,
 * "Variants of one program")
 */
static void
plan_leads(struct ab_plan *p)
{
	for (size_t i = 0; i < p->nvars; i++) {
		struct ab_plan_var *pv = &p->vars[i];

		pv->lead = AB_PLAN_NONE;
		if (!p->ccache || pv->v->kind != AB_VARIANT_BUILD)
			continue;
		for (size_t k = 0; k < i && pv->lead == AB_PLAN_NONE; k++)
			if (p->vars[k].v->kind == AB_VARIANT_BUILD && p->vars[k].lead == AB_PLAN_NONE &&
			    !strcmp(p->vars[k].v->source, pv->v->source))
				pv->lead = k;
	}
}

/* the label or AB_PLAN_NONE for NULL */
static size_t
index_or_none(const struct ab_plan *p, const char *label)
{
	return label ? ab_plan_var_index(p, label) : AB_PLAN_NONE;
}

/* every label pv's variant names, resolved once into indexes of p->vars (the build looks none up again) */
static void
plan_refs(struct ab_plan *p, struct ab_plan_var *pv)
{
	const struct ab_variant *v = pv->v;

	pv->base_vi = ab_plan_var_index(p, pv->base->label);
	pv->from_vi = v->kind == AB_VARIANT_RELINK ? index_or_none(p, v->relink.from) : AB_PLAN_NONE;
	if (v->kind == AB_VARIANT_RELINK && v->relink.nreplace) {
		pv->with_vi = ab_calloc(v->relink.nreplace, sizeof(*pv->with_vi));
		for (size_t i = 0; i < v->relink.nreplace; i++)
			pv->with_vi[i] = index_or_none(p, v->relink.replace[i].with_variant);
	}
	if (v->nuses) {
		pv->uses_vi = ab_calloc(v->nuses, sizeof(*pv->uses_vi));
		for (size_t i = 0; i < v->nuses; i++)
			pv->uses_vi[i] = index_or_none(p, v->uses[i].label);
	}
}

/* the variants pv waits for: what the recipe says it depends on */
static void
plan_deps(struct ab_plan *p, struct ab_plan_var *pv)
{
	const char **labels = ab_calloc(ab_recipe_variant_ndeps_max(pv->v), sizeof(*labels));
	size_t n = ab_recipe_variant_deps(labels, pv->v);

	for (size_t k = 0; k < n; k++)
		add_dep(pv, ab_plan_var_index(p, labels[k]));
	free(labels);
}

/* what is hashed, probed and recorded: the base's artifacts and its allocator archive */
static void
plan_artifacts(struct ab_plan_var *pv)
{
	const struct ab_variant *artv = pv->base;

	for (size_t k = 0; k < artv->artifacts.n; k++)
		ab_strv_push(&pv->artifacts, artv->artifacts.v[k]);
	if (artv->kind == AB_VARIANT_RELINK && !artv->artifacts.n)
		ab_strv_push(&pv->artifacts, artv->relink.output);
	if (artv->allocator.present && artv->allocator.archive) {
		int dup = 0;

		for (size_t k = 0; k < pv->artifacts.n; k++)
			dup |= !strcmp(pv->artifacts.v[k], artv->allocator.archive);
		if (!dup)
			ab_strv_push(&pv->artifacts, artv->allocator.archive);
	}
}

/* the sources to fetch (each variant's with its overlays, and upstream sources) and the upstream trees */
static void
plan_sources(struct source_set *fetch, struct source_set *upstream, const struct ab_plan *p)
{
	const struct ab_recipe *r = p->r;

	for (size_t i = 0; i < p->nvars; i++) {
		const struct ab_variant *v = p->vars[i].v;

		if (v->kind == AB_VARIANT_BUILD)
			collect_source(fetch, r, ab_recipe_source(r, v->source));
		if (v->allocator.present && v->allocator.vendored && v->allocator.upstream) {
			const struct ab_source *up = ab_recipe_source(r, v->allocator.upstream);

			collect_source(fetch, r, up);
			source_set_add(upstream, up);
		}
	}
}

static void
plan_source_steps(struct ab_plan *p, const struct source_set *fetch, const struct source_set *upstream)
{
	for (size_t i = 0; i < fetch->n; i++) {
		struct ab_step *s = add_step(p, AB_STEP_FETCH, AB_PLAN_NONE);

		s->source = fetch->v[i];
		s->name = ab_sprintf("fetch %s", fetch->v[i]->id);
	}
	for (size_t i = 0; i < upstream->n; i++) {
		struct ab_step *s = add_step(p, AB_STEP_UPSTREAM, AB_PLAN_NONE);

		s->source = upstream->v[i];
		s->name = ab_sprintf("upstream %s", upstream->v[i]->id);
		s->dir = ab_sprintf("%s/upstream/%s", p->outdir, upstream->v[i]->id);
	}
}

/* after every build: the probes and upstream diffs */
static void
plan_check_steps(struct ab_plan *p)
{
	for (size_t i = 0; i < p->nvars; i++) {
		struct ab_plan_var *pv = &p->vars[i];

		if (pv->alloc_from->allocator.present && pv->artifacts.n) {
			struct ab_step *s = add_step(p, AB_STEP_PROBE, i);

			pv->probe_step = p->nsteps - 1;
			s->name = ab_strdup("probe");
			s->cwd = ab_strdup(pv->probe);
			s->log = ab_sprintf("%s/probe.log", pv->logs);
		}
		if (pv->v->allocator.present && pv->v->allocator.vendored && pv->v->allocator.upstream) {
			struct ab_step *s = add_step(p, AB_STEP_UPDIFF, i);

			pv->updiff_step = p->nsteps - 1;
			s->name = ab_sprintf("upstream-diff %s %s", pv->v->allocator.vendored, pv->v->allocator.upstream);
			s->dir = ab_sprintf("%s/upstream/%s", p->outdir, pv->v->allocator.upstream);
		}
	}
}

static int
has_kind(const struct ab_plan *p, enum ab_variant_kind kind, int cmake)
{
	for (size_t i = 0; i < p->nvars; i++)
		if (p->vars[i].v->kind == kind && (!cmake || p->vars[i].v->build.system == AB_BUILD_CMAKE))
			return 1;
	return 0;
}

/* the files the manifests step writes (provenance/record/manifest.h) */
static void
plan_manifests(struct ab_plan *p, int updiff)
{
	add_step(p, AB_STEP_MANIFESTS, AB_PLAN_NONE)->name = ab_strdup("manifests");
	for (size_t i = 0; i < ab_manifest_nfiles; i++) {
		const struct ab_manifest_file *m = &ab_manifest_files[i];

		if (m->when == AB_MANIFEST_ALWAYS || (m->when == AB_MANIFEST_CMAKE && has_kind(p, AB_VARIANT_BUILD, 1)) ||
		    (m->when == AB_MANIFEST_UPDIFF && updiff) ||
		    (m->when == AB_MANIFEST_RELINK && has_kind(p, AB_VARIANT_RELINK, 0)))
			ab_strv_push(&p->manifests, m->path);
	}
}

int
ab_plan_opts_fresh_ccache(struct ab_plan_opts *po, char **dir, int used)
{
	const char *tmp = getenv("TMPDIR");

	*dir = NULL;
	po->ccache = used;
	po->ccache_dir = po->ccache_remote = NULL;
	if (!used)
		return 0;
	*dir = ab_sprintf("%s/allocbuild-ccache.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(*dir)) {
		ab_error_errno("cannot create a directory '%s' for an empty compile cache", *dir);
		free(*dir);
		*dir = NULL;
		return AB_EFAIL;
	}
	po->ccache_dir = *dir;
	po->ccache_remote = "";
	return 0;
}

/*
 * The compiles inherit CCACHE_REMOTE_STORAGE when no --ccache-remote says
 * otherwise: a URL ccache cannot parse would be printed, password
 * included, into the configure logs, so it is checked as --ccache-remote is
 */
static int
check_inherited_remote(const struct ab_plan_opts *o)
{
	const char *env = getenv("CCACHE_REMOTE_STORAGE");
	char why[200];

	if (!o->ccache || o->ccache_remote || !env || !*env || ab_ccstats_remote_check(env, why, sizeof(why)) == 0)
		return 0;
	{
		char *shown = ab_url_redact(env);

		ab_error("CCACHE_REMOTE_STORAGE '%s' (from the environment): %s: ccache would print it, password "
		    "included, into the build's logs; correct it, unset it or give --ccache-remote", shown, why);
		free(shown);
	}
	return AB_EFAIL;
}

int
ab_plan_ccache_changes_bytes(const struct ab_plan *p)
{
	for (size_t i = 0; i < p->nvars; i++)
		if (!p->vars[i].sandboxed && p->vars[i].v->kind != AB_VARIANT_RUNTIME)
			return 1;
	return 0;
}

int
ab_plan_make(struct ab_plan **out, const struct ab_recipe *r, const struct ab_plan_opts *o,
    char *const *labels, size_t nlabels)
{
	struct ab_plan *p;
	struct source_set fetch = {0}, upstream = {0};
	size_t *order = NULL, norder = 0;
	char *outdir;

	*out = NULL;
	if (ab_recipe_order(&order, &norder, r, labels, nlabels) < 0 || check_inherited_remote(o) < 0) {
		free(order);
		return AB_EFAIL;
	}
	p = ab_calloc(1, sizeof(*p));
	p->r = r;
	outdir = o->outdir ? ab_strdup(o->outdir) : ab_sprintf("allocbuild-out/%s", r->name);
	p->outdir = ab_path_absolute(outdir);
	free(outdir);
	p->jobs = o->jobs > 0 ? o->jobs : ab_pool_default_jobs();
	p->ccache = o->ccache;
	p->ccache_remote = ab_strdup_or_null(o->ccache_remote);
	p->ccache_dir = o->ccache_dir ? ab_path_absolute(o->ccache_dir) : NULL;
	p->no_sandbox = o->no_sandbox;
	p->derive = o->derive;
	p->sandbox = !o->no_sandbox;
	{
		char self[4096];
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

		p->self = ab_strndup(self, n > 0 ? (size_t)n : 0);
	}

	plan_vars(p, order, norder);
	p->sandbox = 0;
	for (size_t i = 0; i < p->nvars; i++)
		p->sandbox |= p->vars[i].sandboxed;
	if (p->sandbox && p->ccache)
		plan_remote(p);
	plan_budget(p);
	plan_leads(p);
	for (size_t i = 0; i < p->nvars; i++) {
		plan_refs(p, &p->vars[i]);
		plan_deps(p, &p->vars[i]);
		plan_artifacts(&p->vars[i]);
		p->vars[i].reproducible = plan_reproducible(p, &p->vars[i]);
		plan_ccflags(p, &p->vars[i]);
		plan_env(p, &p->vars[i]);
		plan_sandbox(p, &p->vars[i]);
	}
	for (size_t i = 0; i < p->nvars; i++)
		p->vars[i].derive_from = AB_PLAN_NONE;
	if (p->derive)
		ab_derive_plan(p);
	plan_sources(&fetch, &upstream, p);
	plan_source_steps(p, &fetch, &upstream);
	for (size_t i = 0; i < p->nvars; i++) {
		if (p->vars[i].v->kind == AB_VARIANT_BUILD)
			plan_build_steps(p, i);
		else if (p->vars[i].v->kind == AB_VARIANT_RELINK)
			plan_relink_steps(p, i);
	}
	plan_check_steps(p);
	plan_manifests(p, upstream.n > 0);

	free(fetch.v);
	free(upstream.v);
	free(order);
	*out = p;
	return 0;
}

static void
print_source_identity(FILE *f, const struct ab_source *s)
{
	if (s->kind == AB_SOURCE_GIT) {
		char *url = ab_url_redact(s->url);

		fprintf(f, "git %s %s%s\n", url, s->commit, s->unpinned ? " (unpinned)" : "");
		free(url);
	} else if (s->kind == AB_SOURCE_DIR) {
		fprintf(f, "dir %s dirHash %s\n", s->dir, s->dirhash);
	} else {
		fprintf(f, "archive sha256 %s", s->sha256);
		if (s->strip)
			fprintf(f, " strip %d", s->strip);
		fputc('\n', f);
		for (size_t i = 0; i < s->urls.n; i++) {
			char *url = ab_url_redact(s->urls.v[i]);

			fprintf(f, "      url: %s\n", url);
			free(url);
		}
	}
}

static void
print_argv(FILE *f, const char *what, char *const *argv)
{
	char *q = ab_argv_shown(argv);

	fprintf(f, "      %s: %s\n", what, q);
	free(q);
}

/* printing a source tree: each level's directory while its overlays are printed */
struct print_tree {
	FILE *f;
	const struct ab_plan *p;
	struct ab_strv dirs;
};

static int
print_tree_enter(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth)
{
	struct print_tree *t = arg;

	if (via) {
		char *sub = ab_path_join(t->dirs.v[t->dirs.n - 1], via->path);

		fprintf(t->f, "      %*soverlay: %s <- source %s\n", (depth - 1) * 2, "", sub, via->source);
		ab_strv_push_owned(&t->dirs, sub);
	}
	for (size_t i = 0; i < s->patches.n; i++) {
		char *path = ab_recipe_path(t->p->r, s->patches.v[i]);

		fprintf(t->f, "      %*spatch: %s\n", depth * 2, "", path);
		free(path);
	}
	return 0;
}

static int
print_tree_leave(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth)
{
	struct print_tree *t = arg;
	const char *tree = t->dirs.v[t->dirs.n - 1];

	for (size_t i = 0; i < s->nprepare; i++) {
		char *q = ab_argv_shown(s->prepare[i].v);

		fprintf(t->f, "      %*sprepare: %s\n", depth * 2, "", q);
		fprintf(t->f, "      %*s  cwd: %s\n", depth * 2, "", tree);
		free(q);
	}
	if (via) {
		free(t->dirs.v[--t->dirs.n]);
		t->dirs.v[t->dirs.n] = NULL;
	}
	return 0;
}

/* the patches, overlays and prepare steps that make the tree of s at dest */
static void
print_materialize(FILE *f, const struct ab_plan *p, const struct ab_source *s, const char *dest)
{
	struct print_tree t = {.f = f, .p = p};

	ab_strv_push(&t.dirs, dest);
	ab_recipe_overlay_walk(p->r, s, print_tree_enter, print_tree_leave, &t);
	ab_strv_free(&t.dirs);
}

/* where a sandboxed variant's fixed paths really are: once, at its first step that runs */
static void
print_sandbox(FILE *f, const struct ab_plan *p, const struct ab_plan_var *pv, unsigned char *shown)
{
	if (!pv->sandboxed || shown[pv - p->vars])
		return;
	shown[pv - p->vars] = 1;
	for (size_t i = 0; i < pv->sb.nops; i++) {
		const struct ab_sandbox_op *op = &pv->sb.ops[i];

		if (op->kind == AB_SB_BIND || op->kind == AB_SB_RO_BIND)
			fprintf(f, "      sandbox: %s = %s%s\n", op->inside, op->real, op->kind == AB_SB_RO_BIND ? " (read-only)" : "");
	}
}

/* the compiler wrapper's line: at the sandbox's fixed path, or at OUTDIR's with the prefix maps it adds */
static void
print_ccwrap(FILE *f, const struct ab_plan *p)
{
	int fixed = 0;

	for (size_t i = 0; i < p->nvars; i++)
		fixed |= p->vars[i].ccwrap && p->vars[i].sandboxed;
	for (int pass = 0; pass < 2; pass++) {
		const char *dir = pass ? p->ccwrap : fixed ? AB_FIXED_CCWRAP : NULL;

		if (!dir)
			continue;
		fprintf(f, "compilers: through %s (", dir);
		for (size_t i = 0; ab_ccwrap_tools[i]; i++)
			fprintf(f, "%s%s", i ? " " : "", ab_ccwrap_tools[i]);
		if (pass)
			fprintf(f, " -> allocbuild): %s added, ar in deterministic mode\n", AB_CCWRAP_FLAGS_ENV);
		else
			fprintf(f, " -> allocbuild): ar in deterministic mode, every compile logged with its object's digest\n");
	}
}

static const char *const step_kinds[] = {
	[AB_STEP_FETCH] = "fetch", [AB_STEP_UPSTREAM] = "upstream", [AB_STEP_SOURCE] = "source",
	[AB_STEP_CONFIGURE] = "configure", [AB_STEP_BUILD] = "build", [AB_STEP_RELINK] = "relink",
	[AB_STEP_PROBE] = "probe", [AB_STEP_UPDIFF] = "upstream-diff", [AB_STEP_MANIFESTS] = "manifests",
};

static cJSON *
step_json(const struct ab_plan *p, size_t i)
{
	const struct ab_step *s = &p->steps[i];
	const struct ab_plan_var *pv = ab_plan_step_var(p, s);
	cJSON *o = cJSON_CreateObject(), *env;

	cJSON_AddNumberToObject(o, "n", (double)(i + 1));
	cJSON_AddStringToObject(o, "kind", step_kinds[s->kind]);
	ab_json_add_str_or_null(o, "label", pv ? pv->v->label : NULL);
	ab_json_add_str_or_null(o, "name", s->name);
	ab_json_add_str_or_null(o, "source", s->source ? s->source->id : NULL);
	ab_json_add_str_or_null(o, "dir", s->dir);
	cJSON_AddItemToObject(o, "argv", ab_json_strv(s->argv.v, s->argv.n));
	ab_json_add_str_or_null(o, "cwd", s->cwd);
	env = cJSON_AddArrayToObject(o, "env");
	/* the variant's environment as plan prints it (secrets of a remote cache redacted), then the step's own */
	for (size_t k = 0; pv && s->argv.n && k < pv->env.n; k++) {
		char *shown = ab_ccstats_env_shown(pv->env.v[k]);

		cJSON_AddItemToArray(env, cJSON_CreateString(shown));
		free(shown);
	}
	for (size_t k = 0; k < s->env.n; k++)
		cJSON_AddItemToArray(env, cJSON_CreateString(s->env.v[k]));
	cJSON_AddItemToObject(o, "unset", ab_json_strv(s->unset.v, s->unset.n));
	cJSON_AddBoolToObject(o, "sandboxed", pv && pv->sandboxed);
	/* --derive: which variant's trees a source step copies instead, or why it makes a fresh one */
	if (p->derive && s->kind == AB_STEP_SOURCE) {
		ab_json_add_str_or_null(o, "derive_from",
		    pv->derive_from != AB_PLAN_NONE ? p->vars[pv->derive_from].v->label : NULL);
		ab_json_add_str_or_null(o, "built_clean", pv->derive_why);
	}
	return o;
}

cJSON *
ab_plan_json(const struct ab_plan *p)
{
	cJSON *doc = cJSON_CreateObject(), *r = cJSON_AddObjectToObject(doc, "recipe"), *steps;

	cJSON_AddStringToObject(r, "name", p->r->name);
	cJSON_AddStringToObject(r, "path", p->r->path);
	cJSON_AddStringToObject(r, "sha256", p->r->sha256);
	cJSON_AddStringToObject(doc, "outdir", p->outdir);
	cJSON_AddNumberToObject(doc, "jobs", p->jobs);
	cJSON_AddNumberToObject(doc, "parallel", p->parallel);
	cJSON_AddNumberToObject(doc, "jobserver", p->jobserver);
	cJSON_AddBoolToObject(doc, "ccache", p->ccache);
	cJSON_AddBoolToObject(doc, "sandbox", p->sandbox);
	steps = cJSON_AddArrayToObject(doc, "steps");
	for (size_t i = 0; i < p->nsteps; i++)
		cJSON_AddItemToArray(steps, step_json(p, i));
	return doc;
}

/* what the plan runs in and how: recipe, OUTDIR, jobs, ccache, sandbox or environment */
static void
print_header(FILE *f, const struct ab_plan *p)
{
	size_t plain = 0;

	fprintf(f, "recipe %s (%s, sha256 %s)\n", p->r->name, p->r->path, p->r->sha256);
	fprintf(f, "outdir %s\n", p->outdir);
	fprintf(f, "jobs %d: up to %d variant%s at once", p->jobs, p->parallel, p->parallel == 1 ? "" : "s");
	if (p->jobserver)
		fprintf(f, ", make-based builds share a jobserver of %d tokens", p->jobserver);
	fprintf(f, "%s\n", p->ccache ? ", compiling through ccache" : "");
	if (p->ccache_dir || p->ccache_remote) {
		char *remote = p->ccache_remote ? ab_ccstats_redact(p->ccache_remote) : NULL;

		fprintf(f, "ccache: local cache %s%s%s\n", p->ccache_dir ? p->ccache_dir : "(ccache's own)",
		    !remote ? "" : *remote ? ", remote storage " : ", no remote storage", remote ? remote : "");
		free(remote);
	}
	if (p->sandbox)
		fprintf(f, "sandbox: its own user, mount, network (loopback only), PID, IPC and UTS namespaces (bubblewrap); "
		    "no capabilities, no terminal; the system read-only, a private /tmp, HOME %s, the variant's trees at %s and %s; the environment "
		    "PATH, HOME, LC_ALL=C, TZ=UTC and what the recipe sets, nothing inherited\n", AB_FIXED_HOME,
		    AB_FIXED_SRC, AB_FIXED_BUILD);
	for (size_t i = 0; p->sandbox && i < p->nvars; i++)
		if (!p->vars[i].sandboxed) {
			fprintf(f, "sandbox: not for %s (\"sandbox\": false)\n", p->vars[i].v->label);
			plain++;
		}
	if (!p->sandbox || plain)
		fprintf(f, "environment%s: inherited minus MALLOC_CONF, LD_PRELOAD, MIMALLOC_*, *_MALLOC_CONF and the "
		    "toolchain variables (CC, CFLAGS, LDFLAGS, CMAKE_*, ...); LC_ALL=C TZ=UTC; umask %03o\n",
		    p->sandbox ? " without the sandbox" : "", AB_CHILD_UMASK);
	else
		fprintf(f, "umask %03o\n", AB_CHILD_UMASK);
	print_ccwrap(f, p);
}

/* a variant's source tree: fresh, or with --derive a copy of its lead's trees */
static void
print_source_step(FILE *f, const struct ab_plan *p, const struct ab_step *s, const struct ab_plan_var *pv)
{
	if (pv->derive_from != AB_PLAN_NONE) {
		const struct ab_plan_var *lead = &p->vars[pv->derive_from];

		fprintf(f, "derive from %s: a copy of its finished trees, once it has ended (it differs only in its "
		    "settings)\n", lead->v->label);
		fprintf(f, "      copy: %s <- %s\n", pv->src, lead->src);
		fprintf(f, "      copy: %s <- %s\n", pv->build, lead->build);
		fprintf(f, "      else (%s not built in this run): a fresh tree of %s\n", lead->v->label, s->source->id);
		return;
	}
	fprintf(f, "fresh tree of %s\n", s->source->id);
	fprintf(f, "      dir: %s\n", s->dir);
	if (pv->derive_why)
		fprintf(f, "      built clean: %s\n", pv->derive_why);
	print_materialize(f, p, s->source, s->dir);
}

/* a configure or build step */
static void
print_run_step(FILE *f, const struct ab_plan *p, const struct ab_step *s, const struct ab_plan_var *pv,
    unsigned char *mapped)
{
	fprintf(f, "%s\n", s->kind == AB_STEP_CONFIGURE ? "configure" : "build");
	print_argv(f, "run", ab_strv_argv((struct ab_strv *)&s->argv));
	fprintf(f, "      cwd: %s\n", s->cwd);
	print_sandbox(f, p, pv, mapped);
	for (size_t k = 0; k < pv->env.n; k++) {
		char *shown = ab_ccstats_env_shown(pv->env.v[k]);

		fprintf(f, "      env: %s\n", shown);
		free(shown);
	}
	for (size_t k = 0; k < s->env.n; k++)
		fprintf(f, "      env: %s\n", s->env.v[k]);
	for (size_t k = 0; k < s->unset.n; k++)
		fprintf(f, "      unset: %s\n", s->unset.v[k]);
	if (s->jobserver)
		fprintf(f, "      jobserver: 1 of %d tokens while it runs (%s: the read,write fds of its pipe)\n",
		    p->jobserver, AB_JOBSERVER_FDS);
	if (s->kind == AB_STEP_BUILD && pv->lead != AB_PLAN_NONE)
		fprintf(f, "      after: %s's build (the objects they share compiled once, then taken from ccache)\n",
		    p->vars[pv->lead].v->label);
	fprintf(f, "      log: %s\n", s->log);
}

static void
print_relink_step(FILE *f, const struct ab_plan *p, const struct ab_step *s, const struct ab_plan_var *pv,
    unsigned char *mapped)
{
	const struct ab_variant *v = pv->v;

	fprintf(f, "relink\n      link.txt: %s/%s\n", pv->artdir, v->relink.link_txt);
	for (size_t k = 0; k < v->relink.nreplace; k++)
		fprintf(f, "      replace: %s <- %s:%s\n", v->relink.replace[k].path,
		    v->relink.replace[k].with_variant, v->relink.replace[k].with_artifact);
	if (v->relink.layout)
		fprintf(f, "      layout: seed %d: the objects and each build-tree archive's members in its order\n",
		    v->relink.layout_seed);
	fprintf(f, "      output: %s/%s\n", pv->artdir, v->relink.output);
	print_sandbox(f, p, pv, mapped);
	fprintf(f, "      log: %s\n", s->log);
}

static void
print_probe_step(FILE *f, const struct ab_plan_var *pv)
{
	const struct ab_variant *base = pv->base, *ps = pv->probe_from;

	fprintf(f, "probe %s", pv->alloc_from->allocator.kind);
	if (pv->v != base)
		fprintf(f, " (artifacts of %s)", base->label);
	fputc('\n', f);
	for (size_t k = 0; k < pv->artifacts.n; k++)
		fprintf(f, "      artifact: %s/%s\n", pv->artdir, pv->artifacts.v[k]);
	if (ps->probe.args.n) {
		char *q = ab_argv_shown(ps->probe.args.v);

		fprintf(f, "      program args: %s\n", q);
		free(q);
	}
	if (ps->probe.timeout)
		fprintf(f, "      timeout: %ds\n", ps->probe.timeout);
	for (size_t k = 0; k < pv->v->runtime.env.n; k++)
		fprintf(f, "      runtime env: %s=%s\n", pv->v->runtime.env.v[k].key,
		    pv->v->runtime.env.v[k].value);
	for (size_t k = 0; k < pv->v->runtime.unset.n; k++)
		fprintf(f, "      runtime unset: %s\n", pv->v->runtime.unset.v[k]);
}

void
ab_plan_print(FILE *f, const struct ab_plan *p)
{
	unsigned char *mapped = ab_calloc(p->nvars + 1, 1);

	print_header(f, p);
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct ab_step *s = &p->steps[i];
		const struct ab_plan_var *pv = ab_plan_step_var(p, s);

		fprintf(f, "[%zu/%zu] ", i + 1, p->nsteps);
		if (pv)
			fprintf(f, "%s: ", pv->v->label);
		switch (s->kind) {
		case AB_STEP_FETCH:
			fprintf(f, "fetch %s: ", s->source->id);
			print_source_identity(f, s->source);
			break;
		case AB_STEP_UPSTREAM:
			fprintf(f, "upstream tree of %s\n", s->source->id);
			fprintf(f, "      dir: %s\n", s->dir);
			print_materialize(f, p, s->source, s->dir);
			break;
		case AB_STEP_SOURCE:
			print_source_step(f, p, s, pv);
			break;
		case AB_STEP_CONFIGURE:
		case AB_STEP_BUILD:
			print_run_step(f, p, s, pv, mapped);
			break;
		case AB_STEP_RELINK:
			print_relink_step(f, p, s, pv, mapped);
			break;
		case AB_STEP_PROBE:
			print_probe_step(f, pv);
			break;
		case AB_STEP_UPDIFF:
			fprintf(f, "upstream-diff %s/%s against %s\n", pv->src, pv->v->allocator.vendored, s->dir);
			break;
		case AB_STEP_MANIFESTS:
			fprintf(f, "write manifests\n");
			for (size_t k = 0; k < p->manifests.n; k++)
				fprintf(f, "      %s/%s\n", p->outdir, p->manifests.v[k]);
			break;
		}
	}
	free(mapped);
}

void
ab_plan_free(struct ab_plan *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nsteps; i++) {
		ab_strv_free(&p->steps[i].argv);
		ab_strv_free(&p->steps[i].env);
		ab_strv_free(&p->steps[i].unset);
		free(p->steps[i].name);
		free(p->steps[i].cwd);
		free(p->steps[i].log);
		free(p->steps[i].dir);
	}
	free(p->steps);
	for (size_t i = 0; i < p->nvars; i++) {
		struct ab_plan_var *pv = &p->vars[i];

		free(pv->dir);
		free(pv->src);
		free(pv->build);
		free(pv->logs);
		ab_strv_free(&pv->log_files);
		free(pv->probe);
		free(pv->artdir);
		ab_strv_free(&pv->env);
		ab_strv_free(&pv->ccflags);
		ab_strv_free(&pv->artifacts);
		ab_sandbox_release(&pv->sb);
		free(pv->deps);
		free(pv->derive_why);
		free(pv->with_vi);
		free(pv->uses_vi);
	}
	free(p->vars);
	ab_strv_free(&p->manifests);
	free(p->ccwrap);
	free(p->self);
	free(p->ccache_real);
	free(p->ccache_remote_inside);
	ab_isolation_targets_free(p->net, p->nnet);
	free(p->net_dir);
	ab_strv_free(&p->remote_paths);
	free(p->ccache_remote);
	free(p->ccache_dir);
	free(p->outdir);
	free(p);
}
