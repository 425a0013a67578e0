/*
 * build_probe: after the builds, on the main thread, a variant's probe
 * (provenance/probe) and its upstream diff (provenance/tree/updiff).
 */

#include "build_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/progress.h"
#include "../provenance/record/cargoprov.h"
#include "../provenance/probe/probe.h"
#include "../lib/jsonio.h"
#include "../provenance/record/updiffrec.h"
#include "../provenance/tree/updiff.h"
#include "isolation.h"

/* ---- probes and upstream diffs (main thread, after the builds) ---- */

static int
is_archive(const char *path)
{
	size_t n = strlen(path);

	return n > 2 && !strcmp(path + n - 2, ".a");
}

/* a shared object (libx.so, libx.so.4.5.10): a library, not a program to run */
static int
is_shared_object(const char *path)
{
	const char *base = strrchr(path, '/'), *so;

	base = base ? base + 1 : path;
	so = strstr(base, ".so");
	return so && (so[3] == '\0' || so[3] == '.');
}

/* the probe of one variant: its binary run, or a program linked against its archive */
/* the version in the bytes of the allocator archive that a relink put into the link, or NULL */
static const char *
relink_replacement_version(struct ctx *c, const struct ab_plan_var *rl)
{
	for (size_t i = 0; i < rl->v->relink.nreplace; i++) {
		const struct ab_replace *rp = &rl->v->relink.replace[i];
		const struct ab_variant_record *w = rl->with_vi[i] == AB_PLAN_NONE ? NULL : ab_build_record_of(c, rl->with_vi[i]);

		for (size_t k = 0; w && k < w->nartifacts; k++)
			if (!strcmp(w->artifacts[k].artifact, rp->with_artifact) && w->artifacts[k].allocator_version &&
			    !w->artifacts[k].bogus_version)
				return w->artifacts[k].allocator_version;
	}
	return NULL;
}

/*
 * A cargo build's jemalloc is identified from the crate that bundles it
 * (provenance/record/cargoprov.h): the binary's own version string is bogus
 */
static void
bundled_jemalloc(struct ctx *c, const struct ab_plan_var *pv, struct ab_probe_result *res)
{
	size_t bi = pv->base_vi;
	const struct ab_cargo_record *cargo = bi == AB_PLAN_NONE ? NULL : ab_build_record_of(c, bi)->cargo;
	char *from;

	/* ab_probe_result_bundled changes only a jemalloc's record */
	if (!cargo || !cargo->jemalloc.crate || !res->allocator)
		return;
	from = ab_sprintf("crate %s %s, %s", cargo->jemalloc.crate, cargo->jemalloc.crate_version,
	    cargo->jemalloc.file);
	ab_probe_result_bundled(res, cargo->jemalloc.version, from);
	free(from);
}

int
ab_build_probe_variant(struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];
	const struct ab_step *s = &p->steps[pv->probe_step];
	struct var_state *vs = &c->vs[vi];
	struct ab_variant_record *vr = ab_build_record_of(c, vi);
	size_t n = pv->probe_step + 1;
	cJSON *rec = NULL;
	struct ab_probe_result *res;
	int e = -1;

	struct ab_probe_req req = {0};
	const char *target = NULL;
	char *abs = NULL;

	req.allocator = pv->alloc_from->allocator.kind;
	req.env = pv->v->runtime.env;
	req.unset = pv->v->runtime.unset;
	req.cwd = pv->probe;
	req.timeout = pv->probe_from->probe.timeout;
	if (pv->sandboxed) {
		req.sandbox = &pv->sb;
		req.sandbox_home = AB_FIXED_HOME;
	}
	/* a program artifact is run; else the allocator archive is linked into a probe program */
	for (size_t i = 0; i < pv->artifacts.n && !target; i++)
		if (!is_archive(pv->artifacts.v[i]) && !is_shared_object(pv->artifacts.v[i]))
			target = pv->artifacts.v[i];
	if (!target && pv->base->allocator.archive)
		target = pv->base->allocator.archive;
	if (!target && pv->artifacts.n)
		target = pv->artifacts.v[0];
	abs = ab_path_join(pv->artdir, target);
	ab_progress_start(n, pv->v->label, s->name);
	if (ab_mkdir_p(pv->probe, 0755) == 0 && ab_build_sandbox_dirs(c->p, pv) == 0) {
		if (is_archive(target)) {
			e = ab_probe_archive(&rec, &req, abs, pv->probe);
		} else {
			struct ab_strv argv = {0};

			ab_strv_push(&argv, abs);
			for (size_t i = 0; i < pv->probe_from->probe.args.n; i++)
				ab_strv_push(&argv, pv->probe_from->probe.args.v[i]);
			e = ab_probe_program(&rec, &req, ab_strv_argv(&argv));
			ab_strv_free(&argv);
		}
	}
	/*
	 * what the recipe says the probe must find (a mismatch fails the
	 * variant); a relinked program must report the version of the archive
	 * that replaced its allocator's
	 */
	if (e < 0)
		cJSON_Delete(rec);
	res = e == 0 ? ab_probe_result_new(rec) : NULL;
	if (res)
		bundled_jemalloc(c, pv, res);
	if (res) {
		struct ab_probe_expect x = {pv->v->expect.version, pv->v->expect.secure, &pv->v->expect.options};

		if (!x.version && pv->base->kind == AB_VARIANT_RELINK)
			x.version = relink_replacement_version(c, &c->p->vars[pv->base_vi]);
		if (pv->v->expect.present || x.version)
			ab_probe_result_check_expect(res, &x);
	}
	ab_progress_end(n, res && res->ok);
	free(abs);
	if (e < 0)
		return AB_ECHECK;
	ab_variant_record_set_probe(vr, res);
	memcpy(vr->probe_key, vs->probe_key, sizeof(vr->probe_key));
	return 0;
}

int
ab_build_upstream_tree(struct ctx *c, const struct ab_step *s)
{
	cJSON *rec = cJSON_CreateObject();
	size_t n = (size_t)(s - c->p->steps) + 1;
	int e;

	ab_progress_start(n, NULL, s->name);
	/* an earlier materialization is reused when its stamp still matches (builder/source.h) */
	e = ab_mkdir_p(c->p->outdir, 0755);
	if (e == 0) {
		char *parent = ab_path_dirname(s->dir);

		e = ab_mkdir_p(parent, 0755);
		free(parent);
	}
	if (e == 0)
		e = ab_source_materialize(rec, c->o->src, c->p->r, s->source, s->dir);
	ab_progress_end(n, e == 0);
	cJSON_Delete(rec);
	return e;
}

/*
 * The diffs a report keeps, for the SBOM's pedigree.patches (provenance/
 * review/sbom.h), which reads only the OUTDIR: in path order while their
 * text adds up to at most AB_UPDIFF_RECORD_MAX bytes; a diff past that is
 * left out and the file says so (each file is diffed from at most 8 MiB a
 * side already: docs/upstream-diff.md).
 */
static void
bound_diffs(cJSON *rec)
{
	size_t total = 0;
	cJSON *it;

	cJSON_ArrayForEach(it, ab_json_get(rec, "files")) {
		const char *d = ab_json_str(it, "diff");

		if (!d)
			continue;
		if (total + strlen(d) <= AB_UPDIFF_RECORD_MAX) {
			total += strlen(d);
			continue;
		}
		cJSON_DeleteItemFromObjectCaseSensitive(it, "diff");
		cJSON_AddStringToObject(it, "diff_omitted",
		    "the diffs of this report passed the 1 MiB a build records: allocbuild upstream-diff --diff shows it");
	}
}

int
ab_build_updiff_variant(struct ctx *c, size_t vi)
{
	const struct ab_plan_var *pv = &c->p->vars[vi];
	const struct ab_step *s = &c->p->steps[pv->updiff_step];
	struct ab_variant_record *vr = ab_build_record_of(c, vi);
	cJSON *rec = NULL;
	size_t n = pv->updiff_step + 1;

	{
		struct ab_updiff_opts uo;
		char *vendored = ab_path_join(pv->src, pv->v->allocator.vendored);
		int e;

		ab_updiff_opts_init(&uo);
		uo.diffs = 1;
		ab_progress_start(n, pv->v->label, s->name);
		e = ab_updiff_compare(&rec, vendored, s->dir, &uo);
		ab_progress_end(n, e == 0);
		free(vendored);
		if (e < 0)
			return AB_ECHECK;
	}
	bound_diffs(rec);
	cJSON_Delete(vr->upstream_diff);
	vr->upstream_diff = rec;
	vr->updiff_new = 1;
	return 0;
}
