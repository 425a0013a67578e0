/*
 * build_record: the variants' records (a fresh one, its definition, the
 * earlier run's state.json), what is up to date, the fetches a run needs,
 * the probes and upstream diffs after the builds, and state.json written.
 */

#include "build_ctx.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/jsonio.h"
#include "../lib/progress.h"
#include "../provenance/record/manifest.h"
#include "../provenance/record/toolchain.h"
#include "ccwrap.h"
#include "isolation.h"

/* ---- the fetches a run needs ---- */

static int
is_source(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth)
{
	(void)via;
	(void)depth;
	return s == arg;
}

/* does source s (with its overlays) contain source t? */
static int
source_uses(const struct ab_recipe *r, const struct ab_source *s, const struct ab_source *t)
{
	return ab_recipe_overlay_walk(r, s, is_source, NULL, (void *)t) == 1;
}

static int
var_uses(const struct ab_plan *p, const struct ab_plan_var *pv, const struct ab_source *t)
{
	const struct ab_variant *v = pv->v;

	if (v->kind == AB_VARIANT_BUILD && source_uses(p->r, ab_recipe_source(p->r, v->source), t))
		return 1;
	return pv->updiff_step != AB_PLAN_NONE && source_uses(p->r, ab_recipe_source(p->r, v->allocator.upstream), t);
}

static int
fetch_step(struct ctx *c, const struct ab_step *s)
{
	struct ab_fetch_record *rec;
	size_t n = (size_t)(s - c->p->steps) + 1, si = (size_t)(s->source - c->p->r->sources);
	int e;

	ab_progress_start(n, NULL, s->name);
	e = ab_source_fetch(&rec, c->o->src, c->p->r, s->source);
	ab_progress_end(n, e == 0);
	if (e < 0)
		return e;
	ab_fetch_record_free(c->fetched[si]);
	c->fetched[si] = rec;
	return 0;
}

/* ---- the records ---- */

/* the runtime environment of the recipe (refreshed every run: it does not change the build) */
static void
record_runtime(struct ab_variant_record *vr, const struct ab_variant *v)
{
	ab_kvlist_free(&vr->runtime_env);
	ab_list_free(&vr->runtime_unset);
	for (size_t i = 0; i < v->runtime.env.n; i++)
		ab_kvlist_add(&vr->runtime_env, v->runtime.env.v[i].key, v->runtime.env.v[i].value);
	for (size_t i = 0; i < v->runtime.unset.n; i++)
		ab_list_add(&vr->runtime_unset, v->runtime.unset.v[i]);
}

/*
 * What was done so that the variant's bytes do not depend on where and
 * when it was built (docs/build.md, "Reproducibility"): exactly what the
 * compiler wrapper adds, and the environment every child has
 */
static cJSON *
reproducible_record(const struct ab_plan *p, const struct ab_plan_var *pv)
{
	cJSON *r = cJSON_CreateObject(), *env;
	char umask_s[8];

	cJSON_AddBoolToObject(r, "enabled", pv->reproducible);
	if (!pv->reproducible)
		cJSON_AddStringToObject(r, "reason", pv->v->kind == AB_VARIANT_BUILD ?
		    "the recipe sets \"reproducible\": false" : "it uses a variant that is not reproducible");
	if (pv->ccwrap) {
		/* in the sandbox the wrapper is at its fixed path and needs no prefix maps: the paths are fixed already */
		char *wrap = pv->sandboxed ? ab_strdup(AB_FIXED_CCWRAP) : ab_build_rel_to_outdir(p, p->ccwrap);
		cJSON *tools = cJSON_AddArrayToObject(r, "wrapped_tools");

		cJSON_AddStringToObject(r, "wrapper", wrap);
		free(wrap);
		for (size_t i = 0; ab_ccwrap_tools[i]; i++)
			cJSON_AddItemToArray(tools, cJSON_CreateString(ab_ccwrap_tools[i]));
		cJSON_AddItemToObject(r, "compiler_flags", ab_json_strv(pv->ccflags.v, pv->ccflags.n));
		if (pv->ccflags.n)
			cJSON_AddStringToObject(r, "macro_definitions",
			    "the directories of the maps replaced in the build's own -D values, as the maps would");
		else
			cJSON_AddStringToObject(r, "paths", "fixed by the build sandbox: " AB_FIXED_SRC " and " AB_FIXED_BUILD);
		cJSON_AddStringToObject(r, "ar", "D added to every operation that writes an archive; U and u removed");
		cJSON_AddStringToObject(r, "ranlib", "-D");
		cJSON_AddStringToObject(r, "install", "-C unless it makes directories or strips: an unchanged file keeps its time");
	}
	snprintf(umask_s, sizeof(umask_s), "%03o", AB_CHILD_UMASK);
	cJSON_AddStringToObject(r, "umask", umask_s);
	env = cJSON_AddObjectToObject(r, "env");
	{
		const char *sde = AB_SOURCE_DATE_EPOCH;

		/* the recipe's build.env may set its own: the last one counts */
		for (size_t i = 0; i < pv->env.n; i++)
			if (!strncmp(pv->env.v[i], "SOURCE_DATE_EPOCH=", 18))
				sde = pv->env.v[i] + 18;
		cJSON_AddStringToObject(env, "SOURCE_DATE_EPOCH", sde);
	}
	cJSON_AddStringToObject(env, "LC_ALL", "C");
	cJSON_AddStringToObject(env, "TZ", "UTC");
	return r;
}

/*
 * Where the variant's steps ran (docs/build.md, "Sandbox"): the sandbox's
 * tool and namespaces, its network, each fixed path with the real
 * directory behind it; or why there was none
 */
static cJSON *
sandbox_record(const struct ctx *c, const struct ab_plan_var *pv)
{
	const struct ab_plan *p = c->p;
	cJSON *r = cJSON_CreateObject(), *paths;

	cJSON_AddBoolToObject(r, "enabled", pv->sandboxed);
	if (!pv->sandboxed) {
		cJSON_AddStringToObject(r, "reason", !pv->v->sandbox ? "the recipe sets \"sandbox\": false" :
		    "built with --no-sandbox");
		return r;
	}
	cJSON_AddStringToObject(r, "tool", ab_sandbox_tool() ? ab_sandbox_tool() : "bubblewrap");
	{
		size_t nns = 0;

		while (ab_sandbox_namespaces[nns])
			nns++;
		cJSON_AddItemToObject(r, "namespaces", ab_json_strv((char *const *)ab_sandbox_namespaces, nns));
	}
	cJSON_AddStringToObject(r, "capabilities", "none (all dropped, no user namespace of its own)");
	cJSON_AddStringToObject(r, "terminal", "none (a session of its own)");
	cJSON_AddStringToObject(r, "network", p->ccache_remote && *p->ccache_remote ?
	    "none but loopback, where ccache reaches the remote compile cache through allocbuild" : "none but loopback");
	cJSON_AddStringToObject(r, "environment", "PATH, HOME, LC_ALL, TZ and what the recipe and allocbuild set; "
	    "nothing inherited");
	paths = cJSON_AddArrayToObject(r, "paths");
	for (size_t i = 0; i < pv->sb.nops; i++) {
		const struct ab_sandbox_op *op = &pv->sb.ops[i];
		cJSON *o;

		if (op->kind != AB_SB_BIND && op->kind != AB_SB_RO_BIND)
			continue;
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "inside", op->inside);
		cJSON_AddStringToObject(o, "real", op->real);
		cJSON_AddBoolToObject(o, "writable", op->kind == AB_SB_BIND);
		cJSON_AddItemToArray(paths, o);
	}
	return r;
}

/* the parts of a variant's record that come from the recipe and the plan */
void
ab_build_record_init(struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];
	const struct ab_variant *v = pv->v;
	struct ab_variant_record *vr = ab_build_record_of(c, vi);

	vr->label = ab_strdup(v->label);
	vr->kind = ab_strdup(ab_plan_kind_name(v));
	vr->base = ab_strdup(pv->base->label);
	memcpy(vr->key, c->vs[vi].key, sizeof(vr->key));
	vr->dir = ab_build_rel_to_outdir(p, pv->dir);
	vr->artifact_dir = ab_build_rel_to_outdir(p, pv->artdir);
	if (v->kind == AB_VARIANT_BUILD)
		vr->source = ab_strdup(v->source);
	if (v->kind == AB_VARIANT_RELINK)
		vr->from = ab_strdup(v->relink.from);
	if (pv->alloc_from->allocator.present) {
		vr->allocator.kind = ab_strdup(pv->alloc_from->allocator.kind);
		/* a relink's archive is the replacement (ab_variant_record_archive_sha256), never its from's */
		vr->allocator.archive = pv->alloc_from == pv->base ? ab_strdup_or_null(pv->base->allocator.archive) : NULL;
		vr->allocator.vendored = ab_strdup_or_null(v->allocator.vendored);
		vr->allocator.upstream = ab_strdup_or_null(v->allocator.upstream);
	}
	record_runtime(vr, v);
	vr->reproducible = reproducible_record(p, pv);
	vr->sandbox = sandbox_record(c, pv);
	ab_places_init(&vr->places, p->outdir);
	/* the tools a build or relink ran; a runtime_of runs none */
	if (v->kind == AB_VARIANT_BUILD) {
		ab_toolchain_select(&vr->toolchain, &c->tools, ab_plan_kind_name(v));
		/* the cargo and rustc a recipe names, instead of PATH's */
		if (v->build.cargo)
			ab_toolchain_replace(&vr->toolchain, "cargo", v->build.cargo, pv->sandboxed);
		if (v->build.rustc)
			ab_toolchain_replace(&vr->toolchain, "rustc", v->build.rustc, pv->sandboxed);
	} else if (v->kind == AB_VARIANT_RELINK) {
		ab_toolchain_select(&vr->toolchain, &c->tools, NULL);
	}
}

static cJSON *
kv_object(const struct ab_kvlist *l)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < l->n; i++)
		cJSON_AddStringToObject(o, l->v[i].key, l->v[i].value);
	return o;
}

/*
 * The variant as the recipe defines it, in the recipe's own terms
 * (docs/recipe.md), as far as the manifests' readers need it: what it is
 * built from and how, its allocator and its runtime environment.
 * build-commands.json carries it, so that `pr` reads no recipe.
 */
cJSON *
ab_build_definition_json(const struct ab_variant *v)
{
	cJSON *d = cJSON_CreateObject(), *o, *rt;

	switch (v->kind) {
	case AB_VARIANT_BUILD:
		cJSON_AddStringToObject(d, "source", v->source);
		o = cJSON_AddObjectToObject(d, "build");
		if (v->build.system == AB_BUILD_AUTOTOOLS) {
			cJSON_AddStringToObject(o, "system", "autotools");
			cJSON_AddItemToObject(o, "configure", ab_json_strv(v->build.configure.v, v->build.configure.n));
		} else if (v->build.system == AB_BUILD_CARGO) {
			cJSON_AddStringToObject(o, "system", "cargo");
			cJSON_AddStringToObject(o, "profile", v->build.profile ? v->build.profile : "release");
			cJSON_AddItemToObject(o, "features", ab_json_strv(v->build.features.v, v->build.features.n));
			cJSON_AddItemToObject(o, "bins", ab_json_strv(v->build.bins.v, v->build.bins.n));
			if (v->build.vendor)
				cJSON_AddStringToObject(o, "vendor", v->build.vendor);
			cJSON_AddItemToObject(o, "env", kv_object(&v->build.env));
		} else {
			cJSON_AddStringToObject(o, "system", "cmake");
			cJSON_AddItemToObject(o, "defines", kv_object(&v->build.defines));
		}
		break;
	case AB_VARIANT_RELINK: {
		cJSON *rp;

		o = cJSON_AddObjectToObject(d, "relink");
		cJSON_AddStringToObject(o, "from", v->relink.from);
		rp = cJSON_AddArrayToObject(o, "replace");
		for (size_t i = 0; i < v->relink.nreplace; i++) {
			cJSON *e = cJSON_CreateObject(), *w;

			cJSON_AddStringToObject(e, "path", v->relink.replace[i].path);
			w = cJSON_AddObjectToObject(e, "with");
			cJSON_AddStringToObject(w, "variant", v->relink.replace[i].with_variant);
			cJSON_AddStringToObject(w, "artifact", v->relink.replace[i].with_artifact);
			cJSON_AddItemToArray(rp, e);
		}
		break;
	}
	case AB_VARIANT_RUNTIME:
		cJSON_AddStringToObject(d, "runtime_of", v->runtime_of);
		break;
	}
	if (v->allocator.present) {
		o = cJSON_AddObjectToObject(d, "allocator");
		cJSON_AddStringToObject(o, "kind", v->allocator.kind);
		if (v->allocator.archive)
			cJSON_AddStringToObject(o, "archive", v->allocator.archive);
		if (v->allocator.vendored)
			cJSON_AddStringToObject(o, "vendored", v->allocator.vendored);
		if (v->allocator.upstream)
			cJSON_AddStringToObject(o, "upstream", v->allocator.upstream);
	}
	rt = cJSON_AddObjectToObject(d, "runtime");
	cJSON_AddItemToObject(rt, "env", kv_object(&v->runtime.env));
	cJSON_AddItemToObject(rt, "unset", ab_json_strv(v->runtime.unset.v, v->runtime.unset.n));
	/* what its probe must find; `probe --pid --expect` checks a running process against it too */
	if (v->expect.present) {
		o = cJSON_AddObjectToObject(d, "expect");
		if (v->expect.version)
			cJSON_AddStringToObject(o, "version", v->expect.version);
		if (v->expect.secure >= 0)
			cJSON_AddNumberToObject(o, "secure", v->expect.secure);
		if (v->expect.options.n)
			cJSON_AddItemToObject(o, "options", kv_object(&v->expect.options));
	}
	return d;
}

static char *
state_path(const struct ab_plan_var *pv)
{
	return ab_path_join(pv->dir, "state.json");
}

/*
 * Is the variant up to date, and is its probe? An up-to-date build or
 * relink keeps the record of the earlier run (old, taken); everything else
 * starts a fresh one.
 */
static void
decide(struct ctx *c, size_t vi, struct ab_variant_record *old)
{
	const struct ab_plan_var *pv = &c->p->vars[vi];
	struct var_state *vs = &c->vs[vi];
	struct ab_variant_record *vr = ab_build_record_of(c, vi);
	int dep_rebuilt = 0, force = c->o->force;
	/* state.json is authenticated by nothing: it counts when the last run's manifests say the same */
	int recorded = old && ab_manifest_last_has(c->last, old);

	for (size_t k = 0; k < pv->ndeps; k++)
		dep_rebuilt |= c->vs[pv->deps[k]].rebuilt;
	if (pv->v->kind == AB_VARIANT_RUNTIME)
		vs->need_build = 0;
	else
		vs->need_build = force || dep_rebuilt || !old || !old->ok || !recorded || strcmp(old->key, vs->key) ||
		    !ab_variant_record_artifacts_intact(old, c->p->outdir);
	vs->need_probe = pv->probe_step != AB_PLAN_NONE &&
	    (vs->need_build || dep_rebuilt || force || !old || !old->ok || !recorded ||
		strcmp(old->probe_key, vs->probe_key) || !old->probe);
	vs->rebuilt = vs->need_build || dep_rebuilt;
	if (!vs->need_build && old && pv->v->kind != AB_VARIANT_RUNTIME) {
		*vr = *old;
		memset(old, 0, sizeof(*old));
		/* the recipe's runtime environment may have changed without changing the build */
		record_runtime(vr, pv->v);
	} else {
		ab_build_record_init(c, vi);
	}
	vr->definition = ab_build_definition_json(pv->v);
	if (pv->v->kind == AB_VARIANT_RUNTIME && old && !vs->need_probe) {
		ab_variant_record_set_probe(vr, old->probe);
		old->probe = NULL;
		memcpy(vr->probe_key, vs->probe_key, sizeof(vr->probe_key));
	}
}

/* the keys of every variant, what is up to date; a variant to build loses its state.json */
int
ab_build_decide_all(struct ctx *c)
{
	const struct ab_plan *p = c->p;
	int error = 0;

	c->last = ab_manifest_last_load(p->outdir);
	for (size_t vi = 0; vi < p->nvars && !error; vi++) {
		struct ab_variant_record *old = NULL;
		char *sp;
		int e = 0;

		if (ab_build_compute_key(c, vi) < 0) {
			error = AB_EFAIL;
			break;
		}
		sp = state_path(&p->vars[vi]);
		/* an unreadable state (reported) is no state: the variant is built again */
		ab_variant_record_load(&old, sp);
		decide(c, vi, old);
		ab_variant_record_free(old);
		/* from here on the variant is not up to date until it has been built again */
		if (c->vs[vi].need_build && unlink(sp) < 0 && errno != ENOENT) {
			ab_error_errno("cannot remove '%s'", sp);
			e = AB_EFAIL;
		}
		free(sp);
		error = e;
	}
	ab_manifest_last_free(c->last);
	c->last = NULL;
	return error;
}

/*
 * Unpinned sources first: the commit they resolve to enters the keys.
 * And dir sources: a directory that no longer has its pinned dirHash
 * makes the recipe wrong whether or not anything is built (hashing it is
 * cheap).
 */
int
ab_build_fetch_unpinned(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	int e;

	for (size_t i = 0; i < p->nsteps; i++) {
		const struct ab_source *s = p->steps[i].source;

		if (p->steps[i].kind == AB_STEP_FETCH &&
		    ((s->kind == AB_SOURCE_GIT && s->unpinned) || s->kind == AB_SOURCE_DIR) &&
		    (e = fetch_step(c, &p->steps[i])) < 0)
			return e;
	}
	return 0;
}

/* the fetch and upstream steps a variant to build needs; the others are up to date */
int
ab_build_fetch_needed(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	for (size_t i = 0; i < p->nsteps; i++) {
		const struct ab_step *s = &p->steps[i];
		const struct ab_plan_var *pv = ab_plan_step_var(p, s);
		int needed = 0;

		if (s->kind == AB_STEP_FETCH || s->kind == AB_STEP_UPSTREAM) {
			for (size_t vi = 0; vi < p->nvars && !needed; vi++)
				needed = c->vs[vi].need_build && var_uses(p, &p->vars[vi], s->source);
			if (!needed) {
				ab_progress_skip(i + 1, NULL, s->name, "up to date");
			} else if (s->kind == AB_STEP_FETCH && !ab_build_fetched_of(c, s->source)) {
				int e = fetch_step(c, s);

				if (e < 0)
					return e;
			} else if (s->kind == AB_STEP_UPSTREAM && ab_build_upstream_tree(c, s) < 0) {
				return AB_ECHECK;
			}
		} else if (pv && (s->kind != AB_STEP_PROBE && s->kind != AB_STEP_UPDIFF) &&
		    !c->vs[s->var].need_build) {
			ab_progress_skip(i + 1, pv->v->label, s->name, "up to date");
		}
	}
	return 0;
}

/* the fetch records of the sources each variant to build uses */
void
ab_build_record_fetched(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	for (size_t vi = 0; vi < p->nvars; vi++) {
		struct ab_variant_record *vr = ab_build_record_of(c, vi);

		if (!c->vs[vi].need_build || p->vars[vi].v->kind != AB_VARIANT_BUILD)
			continue;
		ab_fetch_set_release(&vr->fetched);
		vr->fetched.present = 1;
		for (size_t i = 0; i < p->nsteps; i++) {
			const struct ab_step *s = &p->steps[i];
			const struct ab_fetch_record *rec;

			if (s->kind != AB_STEP_FETCH || !var_uses(p, &p->vars[vi], s->source))
				continue;
			rec = ab_build_fetched_of(c, s->source);
			if (rec)
				ab_fetch_set_put(&vr->fetched, s->source->id, ab_fetch_record_copy(rec));
		}
	}
}

static void
report_probe_problems(const struct ab_plan_var *pv, const struct ab_variant_record *vr, int *bad)
{
	const struct ab_probe_result *res = vr->probe;

	if (!res || !res->failed)
		return;
	*bad = 1;
	for (size_t i = 0; i < res->nproblems; i++) {
		const char *msg = res->problems[i].message;

		ab_error("%s: probe: %s", pv->v->label, msg ? msg : "problem");
	}
	if (!res->nproblems)
		ab_error("%s: probe: the allocator's report was not found", pv->v->label);
}

/* after the builds: the probes and upstream diffs of the variants built or up to date */
void
ab_build_check_variants(struct ctx *c, int *probe_bad)
{
	const struct ab_plan *p = c->p;

	for (size_t vi = 0; vi < p->nvars; vi++) {
		const struct ab_plan_var *pv = &p->vars[vi];
		struct var_state *vs = &c->vs[vi];
		struct ab_variant_record *vr = ab_build_record_of(c, vi);

		if (vs->status != V_BUILT && vs->status != V_UPTODATE)
			continue;
		if (pv->v->kind == AB_VARIANT_RUNTIME) {
			size_t b = pv->base_vi;

			ab_variant_record_copy_artifacts(vr, b == AB_PLAN_NONE ? NULL : ab_build_record_of(c, b));
		}
		if (vs->need_probe) {
			if (ab_build_probe_variant(c, vi) < 0) {
				vs->status = V_FAILED;
				c->failed = 1;
				continue;
			}
		} else if (pv->probe_step != AB_PLAN_NONE) {
			ab_progress_skip(pv->probe_step + 1, pv->v->label, "probe", "up to date");
		}
		if (pv->updiff_step != AB_PLAN_NONE && (vs->need_build || !vr->upstream_diff) &&
		    (vs->updiffed = 1, ab_build_updiff_variant(c, vi) < 0)) {
			vs->status = V_FAILED;
			c->failed = 1;
			continue;
		}
		report_probe_problems(pv, vr, probe_bad);
	}
}

/* ok, and state.json of what was built or probed: a later run trusts only what is recorded complete */
int
ab_build_write_states(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	for (size_t vi = 0; vi < p->nvars; vi++) {
		struct var_state *vs = &c->vs[vi];
		struct ab_variant_record *vr = ab_build_record_of(c, vi);
		cJSON *st;
		char *sp;
		int e;

		vr->ok = vs->status == V_BUILT || vs->status == V_UPTODATE;
		if (vr->ok && !vr->probe_key[0] && p->vars[vi].probe_step == AB_PLAN_NONE)
			memcpy(vr->probe_key, vs->probe_key, sizeof(vr->probe_key));
		if (!vr->ok || (vs->status != V_BUILT && !vs->need_probe))
			continue;
		st = ab_variant_record_json(vr);
		sp = state_path(&p->vars[vi]);
		e = ab_json_write(sp, st);
		free(sp);
		cJSON_Delete(st);
		if (e < 0)
			return e;
	}
	return 0;
}
