/*
 * build_runrec: the run record (provenance/record/record.h) drawn from the
 * variants' records, and the manifests written from it, or kept when
 * nothing changed.
 */

#include "build_ctx.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../lib/redact.h"
#include "../lib/jsonio.h"
#include "../lib/progress.h"
#include "../provenance/record/cargoprov.h"
#include "../provenance/record/cmakeprov.h"
#include "../provenance/record/manifest.h"
#include "../provenance/runs/runrec.h"
#include "inputs.h"

/* ---- the run record ---- */

static void
random_uuid(char out[37])
{
	unsigned char b[16] = {0};
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		if (read(fd, b, sizeof(b)) < 0)
			memset(b, 0, sizeof(b));
		close(fd);
	}
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
	    b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14], b[15]);
}

/*
 * the builds of this OUTDIR before this one, when it keeps run records:
 * the last statement's invocation and those it named (provenance/runs/runrec.h)
 */
static void
earlier_builds(struct ab_strv *out, const char *outdir)
{
	char *runs = ab_path_join(outdir, AB_RUN_DIR), *path = ab_path_join(outdir, AB_MANIFEST_STATEMENT);
	cJSON *doc = NULL;

	ab_report_mute();
	if (ab_is_dir(runs) && ab_json_read(&doc, path) == 0)
		ab_runrec_builds(out, doc);
	ab_report_unmute();
	cJSON_Delete(doc);
	free(runs);
	free(path);
}

void
ab_build_run_init(struct ctx *c)
{
	const struct ab_plan *p = c->p;
	struct ab_run_record *run = &c->run;

	run->recipe.name = ab_strdup(p->r->name);
	run->recipe.path = ab_strdup(p->r->path);
	run->recipe.sha256 = ab_strdup(p->r->sha256);
	run->outdir = ab_strdup(p->outdir);
	random_uuid(run->invocation_id);
	earlier_builds(&run->earlier_invocations, p->outdir);
	ab_utc_time(run->started_on, sizeof(run->started_on), time(NULL));
	run->options.jobs = p->jobs;
	run->options.parallel_variants = p->parallel;
	run->options.jobserver = p->jobserver;
	run->options.ccache = p->ccache;
	run->options.sandbox = !p->no_sandbox;
	run->options.keep_going = c->o->keep_going;
	run->options.force = c->o->force;
	run->options.source_date_epoch = AB_SOURCE_DATE_EPOCH;
	/* recipe.json is the bytes built, not what the recipe's path holds by the end (or on a rebuilder's machine) */
	run->recipe_text = p->r->text;
	run->recipe_len = p->r->len;
	run->variants = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*run->variants));
	run->nvariants = p->nvars;
}

/* every source record: this run's fetches, else what the variants recorded */
static void
run_sources(struct ctx *c)
{
	c->run.sources.present = 1;
	for (size_t vi = 0; vi < c->run.nvariants; vi++) {
		const struct ab_fetch_set *f = &ab_build_record_of(c, vi)->fetched;

		for (size_t i = 0; i < f->n; i++)
			if (!ab_fetch_set_get(&c->run.sources, f->v[i].id))
				ab_fetch_set_put(&c->run.sources, f->v[i].id, ab_fetch_record_copy(f->v[i].rec));
	}
}

_Static_assert(AB_PLAN_NONE == AB_RECORD_NONE, "a plan index that is none is a record index that is none");

void
ab_build_link_records(struct ctx *c)
{
	for (size_t vi = 0; vi < c->run.nvariants; vi++) {
		c->run.variants[vi].base_ix = c->p->vars[vi].base_vi;
		c->run.variants[vi].from_ix = c->p->vars[vi].from_vi;
	}
}

/* what each build variant used of other variants ({variant:...} references), as those were built */
static void
run_uses(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	for (size_t vi = 0; vi < p->nvars; vi++) {
		const struct ab_variant *v = p->vars[vi].v;
		struct ab_variant_record *vr = &c->run.variants[vi];

		if (!v->nuses || vr->uses)
			continue;
		vr->uses = ab_calloc(v->nuses, sizeof(*vr->uses));
		for (size_t u = 0; u < v->nuses; u++) {
			const struct ab_variant_record *dep = p->vars[vi].uses_vi[u] == AB_PLAN_NONE ? NULL :
			    &c->run.variants[p->vars[vi].uses_vi[u]];
			struct ab_use_record *ur = &vr->uses[vr->nuses++];

			ur->variant = ab_strdup(v->uses[u].label);
			ur->artifact = ab_strdup(v->uses[u].path);
			for (size_t k = 0; dep && dep->ok && k < dep->nartifacts; k++)
				if (!strcmp(dep->artifacts[k].artifact, v->uses[u].path)) {
					ur->path = ab_strdup(dep->artifacts[k].path);
					memcpy(ur->sha256, dep->artifacts[k].sha256, sizeof(ur->sha256));
				}
		}
	}
}

/*
 * resolvedDependencies of the statement: every source fetched for the
 * plan, then every artifact of a variant that another variant used, then
 * what cargo variants resolved
 */
static void
run_dependencies(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	for (size_t i = 0; i < p->nsteps; i++) {
		const struct ab_source *s = p->steps[i].source;
		struct ab_dependency *d;

		if (p->steps[i].kind != AB_STEP_FETCH)
			continue;
		d = ab_run_record_dependency(&c->run);
		d->name = ab_strdup(s->id);
		if (s->kind == AB_SOURCE_GIT) {
			const char *commit = NULL;

			for (size_t vi = 0; vi < p->nvars && !commit; vi++) {
				const struct ab_fetch_record *f = ab_fetch_set_get(&ab_build_record_of(c, vi)->fetched, s->id);

				commit = f ? f->commit : NULL;
			}
			if (!commit && ab_build_fetched_of(c, s))
				commit = ab_build_fetched_of(c, s)->commit;
			if (!commit)
				commit = s->commit;
			char *url = ab_url_redact(s->url);

			d->uri = ab_sprintf("git+%s", url);
			free(url);
			d->digest_kind = "gitCommit";
			d->digest = ab_strdup(commit);
		} else if (s->kind == AB_SOURCE_DIR) {
			/* in-toto's directory hash (a DigestSet algorithm of its own); no uri: it is beside the recipe */
			d->digest_kind = "dirHash";
			d->digest = ab_strdup(s->dirhash);
		} else {
			d->uri = ab_url_redact(s->urls.n ? s->urls.v[0] : "");
			d->digest_kind = "sha256";
			d->digest = ab_strdup(s->sha256);
		}
	}
	ab_run_record_use_deps(&c->run);
	for (size_t vi = 0; vi < c->run.nvariants; vi++)
		ab_run_record_cargo_deps(&c->run, c->run.variants[vi].cargo, c->run.variants[vi].label);
}

/*
 * The manifests that other modules shape: sources.json, and
 * cmake-cache-provenance.json of the cmake variants built. sources.json
 * of a build has always had no trees under "variants" (`fetch` writes
 * them): kept so.
 */
static int
run_documents(struct ctx *c)
{
	const struct ab_plan *p = c->p;
	cJSON *m = ab_sources_manifest_new(p->r), *cm = NULL;
	c->run.documents = cJSON_CreateObject();
	for (size_t i = 0; i < c->run.sources.n; i++) {
		const struct ab_source *s = ab_recipe_source(p->r, c->run.sources.v[i].id);

		/* always found: a variant's key names every source its tree is made of */
		if (s)
			ab_sources_manifest_add_source(m, s, ab_fetch_record_json(c->run.sources.v[i].rec));
	}
	cJSON_AddItemToObject(c->run.documents, "provenance/sources.json", m);
	for (size_t vi = 0; vi < p->nvars; vi++) {
		const struct ab_variant_record *vr = ab_build_record_of(c, vi);

		if (!vr->ok || !vr->cmake)
			continue;
		if (!cm)
			cm = ab_cmakeprov_doc_new();
		if (ab_cmakeprov_doc_add(cm, vr->label, cJSON_Duplicate(vr->cmake, 1)) < 0) {
			cJSON_Delete(cm);
			return AB_EFAIL;
		}
	}
	if (cm)
		cJSON_AddItemToObject(c->run.documents, "provenance/cmake-cache-provenance.json", cm);
	return 0;
}

/* the run record's parts drawn from the variants' records, then every manifest */
int
ab_build_manifests(struct ctx *c)
{
	ab_utc_time(c->run.finished_on, sizeof(c->run.finished_on), time(NULL));
	ab_build_link_records(c);
	run_sources(c);
	run_uses(c);
	run_dependencies(c);
	if (run_documents(c) < 0)
		return AB_EFAIL;
	return ab_manifest_write(&c->run);
}

/* is every file SHA256SUMS lists there? (a run's records removed on purpose: a build drops their lines) */
static int
all_listed_present(const char *outdir)
{
	struct ab_manifest_recorded rec = {0};
	int all = ab_manifest_recorded_read(&rec, outdir, 1) == 0;

	for (size_t i = 0; all && i < rec.paths.n; i++) {
		char *abs = ab_path_join(outdir, rec.paths.v[i]);

		all = ab_path_exists(abs);
		free(abs);
	}
	ab_manifest_recorded_release(&rec);
	return all;
}

/*
 * Did this run change nothing? Every variant up to date with its probe
 * and upstream diff, the recipe the one the OUTDIR holds, and the last
 * run's statement and SHA256SUMS there with every file they list: they
 * still say what the OUTDIR is, and rewriting them (a new invocation) would only make the
 * signatures over them stale.
 */
static int
nothing_changed(const struct ctx *c)
{
	const struct ab_plan *p = c->p;
	static const char *const kept[] = {AB_MANIFEST_STATEMENT, "SHA256SUMS", "recipe.json"};
	char hex[AB_HEX_LEN + 1], *recipe;
	int same;

	if (c->failed)
		return 0;
	for (size_t vi = 0; vi < p->nvars; vi++)
		if (c->vs[vi].status != V_UPTODATE || c->vs[vi].need_probe || c->vs[vi].updiffed)
			return 0;
	for (size_t i = 0; i < AB_NELEM(kept); i++) {
		char *path = ab_path_join(p->outdir, kept[i]);
		int there = ab_path_exists(path);

		free(path);
		if (!there)
			return 0;
	}
	recipe = ab_path_join(p->outdir, "recipe.json");
	same = ab_hash_file(hex, NULL, recipe) == 0 && !strcmp(hex, p->r->sha256);
	free(recipe);
	return same && all_listed_present(p->outdir);
}

int
ab_build_write_manifests(struct ctx *c)
{
	const struct ab_plan *p = c->p;
	char *env;
	int e, was_signed;

	if (nothing_changed(c)) {
		c->kept = 1;
		/* the manifests stay; the records the final table reads still say which archive each program used */
		ab_build_link_records(c);
		run_uses(c);
		ab_progress_skip(p->nsteps, NULL, "manifests", "up to date");
		return 0;
	}
	env = ab_path_join(p->outdir, AB_MANIFEST_ENVELOPES);
	was_signed = ab_path_exists(env);
	free(env);
	ab_progress_start(p->nsteps, NULL, "manifests");
	e = ab_inputs_save(&c->run.inputs, p->r, &c->run, p->outdir);
	if (e == 0)
		e = ab_build_manifests(c);
	ab_progress_end(p->nsteps, e == 0);
	if (e == 0 && was_signed) {
		c->unsigned_ = 1;
		ab_warn("the OUTDIR's statement changed: its signatures (%s) signed the old one and are removed; "
		    "sign it again (allocbuild sign --signing-key KEY.pem OUTDIR)", AB_MANIFEST_ENVELOPES);
	}
	return e;
}
