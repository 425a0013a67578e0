/*
 * build_steps: a variant built on a worker thread, step by step (configure,
 * build, relink, cargo) in its sandbox, its log's tail on failure, and its
 * artifacts hashed into its record.
 */

#include "build_ctx.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../lib/redact.h"
#include "../lib/atomic.h"
#include "../lib/dirwalk.h"
#include "../lib/jobserver.h"
#include "../lib/jsonio.h"
#include "../lib/logtail.h"
#include "../lib/progress.h"
#include "../lib/version.h"
#include "../provenance/alloc/allocver.h"
#include "../provenance/tree/artdiff.h"
#include "../provenance/record/cargoprov.h"
#include "../provenance/record/ccstats.h"
#include "../provenance/record/cmakeprov.h"
#include "../provenance/alloc/hostprobe.h"
#include "cargo.h"
#include "ccwrap.h"
#include "derive.h"
#include "isolation.h"
#include "relink.h"


static cJSON *
env_object(const struct ab_strv *set)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < set->n; i++) {
		/* a remote cache's password never enters a record */
		char *kv = ab_ccstats_env_shown(set->v[i]);
		const char *eq = strchr(kv, '=');
		char *k = ab_strndup(kv, eq ? (size_t)(eq - kv) : strlen(kv));

		cJSON_AddStringToObject(o, k, eq ? eq + 1 : "");
		free(k);
		free(kv);
	}
	return o;
}

/* ---- artifacts ---- */

static void
free_artifacts(struct ab_artifact_record *a, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ab_artifact_record_release(&a[i]);
	free(a);
}

/*
 * Every artifact of a variant with its size, sha256 and the allocator
 * version string embedded in its bytes, into vr. AB_ECHECK (reported) when
 * one is missing or cannot be read.
 */
static int
hash_artifacts(struct ab_variant_record *vr, struct ctx *c, const struct ab_plan_var *pv)
{
	struct ab_artifact_record *a = ab_calloc(pv->artifacts.n + 1, sizeof(*a));
	const struct ab_variant *base = pv->base;
	int root = open(pv->artdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	for (size_t i = 0; i < pv->artifacts.n; i++) {
		struct ab_artifact_record *ar = &a[i];
		char *abs = ab_path_join(pv->artdir, pv->artifacts.v[i]);
		char *version = NULL, why[AB_BENEATH_WHY];

		/* inside the build directory only: a symlink a build step made cannot lend it a file from outside */
		if (root < 0 || ab_hash_file_beneath(ar->sha256, &ar->size, root, pv->artifacts.v[i], 0, why) < 0) {
			if (root < 0 || errno == ENOENT)
				ab_error("%s: artifact '%s' was not built", pv->v->label, abs);
			else
				ab_error("%s: artifact '%s' %s", pv->v->label, abs, why);
			if (root >= 0)
				close(root);
			free(abs);
			free_artifacts(a, i);
			return AB_ECHECK;
		}
		ar->path = ab_build_rel_to_outdir(c->p, abs);
		ar->artifact = ab_strdup(pv->artifacts.v[i]);
		ar->allocator_archive = base->allocator.present && base->allocator.archive &&
		    !strcmp(base->allocator.archive, pv->artifacts.v[i]);
		/* what a later comparison names when the digest differs (provenance/tree/artdiff.h) */
		if (ab_artdiff_fingerprint(&ar->parts, abs) < 0) {
			free(abs);
			free_artifacts(a, i + 1);
			return AB_ECHECK;
		}
		if (ab_allocver_scan(&version, abs) == 0 && version) {
			ar->allocator_version = version;
			ar->bogus_version = ab_jemalloc_version_is_bogus(version);
		}
		free(abs);
	}
	close(root);
	free_artifacts(vr->artifacts, vr->nartifacts);
	vr->artifacts = a;
	vr->nartifacts = pv->artifacts.n;
	vr->have_artifacts = 1;
	return 0;
}

/* ---- running steps ---- */

static void
report_failure(const struct ab_plan_var *pv, const struct ab_step *s, const char *what)
{
	char *q = ab_argv_quote(ab_strv_argv((struct ab_strv *)&s->argv));

	ab_error("%s: %s failed: %s\n"
	    "  command: %s\n"
	    "  cwd: %s%s\n"
	    "  log: %s (last %d lines below)",
	    pv->v->label, s->name, what, q, s->cwd,
	    pv->sandboxed ? " (in the build sandbox: no network, nothing of the host but the system "
	    "directories and the variant's own trees; docs/build.md, \"Sandbox\")" : "", s->log, AB_LOGTAIL_LINES);
	ab_logtail_print(s->log);
	free(q);
}

static cJSON *
step_record(const struct ab_plan *p, const struct ab_step *s, const char *kind)
{
	cJSON *rec = cJSON_CreateObject();

	cJSON_AddStringToObject(rec, "step", kind);
	cJSON_AddStringToObject(rec, "name", s->name);
	cJSON_AddNumberToObject(rec, "number", (double)(s - p->steps) + 1);
	return rec;
}

/*
 * The variant's directories that a sandboxed step's binds show exist
 * before it starts (bwrap needs them); the others (the ccache, the
 * forwarder's sockets) are made once by the build, the files of its logs
 * directory its steps write by build_variant (ab_isolation_log_files)
 */
int
ab_build_sandbox_dirs(const struct ab_plan *p, const struct ab_plan_var *pv)
{
	size_t n = strlen(p->outdir);

	if (!pv->sandboxed)
		return 0;
	for (size_t i = 0; i < pv->sb.nops; i++) {
		const struct ab_sandbox_op *op = &pv->sb.ops[i];

		if ((op->kind == AB_SB_BIND || op->kind == AB_SB_RO_BIND) && !strncmp(op->real, p->outdir, n) &&
		    op->real[n] == '/' && strncmp(op->inside, AB_FIXED_LOGS "/", strlen(AB_FIXED_LOGS "/")) &&
		    ab_mkdir_p(op->real, 0755) < 0)
			return AB_EFAIL;
	}
	return 0;
}

/*
 * The environment of a configure or build step: the variant's (already in
 * env), the step's own settings and removals, and in MAKEFLAGS the fds of
 * this run's jobserver (said in the log's header hdr). Returns env_set as
 * planned and recorded: the fd numbers are an artefact of this run.
 */
static cJSON *
step_env(struct ab_env *env, struct ab_buf *hdr, int fds[2], struct ctx *c, const struct ab_step *s)
{
	cJSON *env_set;

	for (size_t i = 0; i < s->env.n; i++) {
		const char *eq = strchr(s->env.v[i], '=');
		char *k = ab_strndup(s->env.v[i], (size_t)(eq - s->env.v[i]));

		ab_env_set(env, k, eq + 1);
		free(k);
	}
	for (size_t i = 0; i < s->unset.n; i++)
		ab_env_unset(env, s->unset.v[i]);
	env_set = env_object(&env->set);
	if (s->jobserver) {
		const char *mf = ab_env_get(env, "MAKEFLAGS"), *at = mf ? strstr(mf, AB_JOBSERVER_FDS) : NULL;

		ab_jobserver_fds(c->js, fds);
		if (at) {
			char *real = ab_sprintf("%.*s%d,%d%s", (int)(at - mf), mf, fds[0], fds[1],
			    at + strlen(AB_JOBSERVER_FDS));

			ab_env_set(env, "MAKEFLAGS", real);
			ab_buf_printf(hdr, "# env: MAKEFLAGS=%s (the jobserver of this run: %d tokens)\n", real,
			    ab_jobserver_size(c->js));
			free(real);
		}
	}
	return env_set;
}

/* configure or build: an argv in a cwd, output to the step's log */
static int
run_step(struct ctx *c, const struct ab_plan_var *pv, const struct ab_step *s, cJSON *steps)
{
	struct ab_env env;
	struct ab_proc pr = {0};
	struct ab_proc_result res;
	char *q = ab_argv_quote(ab_strv_argv((struct ab_strv *)&s->argv));
	struct ab_buf hdr = {0};
	cJSON *rec = step_record(c->p, s, s->kind == AB_STEP_CONFIGURE ? "configure" : "build"), *env_set;
	char *rel = ab_build_rel_to_outdir(c->p, s->log);
	char started[32], what[128];
	int error = -1, fds[2] = {-1, -1};

	ab_buf_printf(&hdr, "# allocbuild: %s\n# cwd: %s\n", s->name, s->cwd);
	ab_build_fill_env(&env, pv);
	if (s->jobserver && !c->js) {
		ab_error("%s: %s: no jobserver", pv->v->label, s->name);
		cJSON_Delete(rec);
		goto done;
	}
	env_set = step_env(&env, &hdr, fds, c, s);
	if (s->jobserver) {
		pr.keep_fds = fds;
		pr.nkeep_fds = 2;
	}
	ab_buf_printf(&hdr, "$ %s\n", q);
	if (ab_build_sandbox_dirs(c->p, pv) < 0 || (!pv->sandboxed && ab_mkdir_p(s->cwd, 0755) < 0) ||
	    ab_write_file_atomic(s->log, hdr.s, hdr.len) < 0) {
		cJSON_Delete(rec);
		cJSON_Delete(env_set);
		goto done;
	}
	/* the step's implicit job slot, taken last: waits while the budget is in use */
	if (s->jobserver && ab_jobserver_acquire(c->js) < 0) {
		cJSON_Delete(rec);
		cJSON_Delete(env_set);
		goto done;
	}
	ab_utc_time(started, sizeof(started), time(NULL));
	pr.argv = ab_strv_argv((struct ab_strv *)&s->argv);
	pr.cwd = s->cwd;
	pr.envp = ab_env_envp(&env);
	pr.log_path = s->log;
	pr.sandbox = pv->sandboxed ? &pv->sb : NULL;
	ab_progress_start((size_t)(s - c->p->steps) + 1, pv->v->label, s->name);
	if (ab_proc_run(&res, &pr) < 0) {
		ab_progress_end((size_t)(s - c->p->steps) + 1, 0);
		snprintf(what, sizeof(what), "cannot start");
		res.exit_code = -1;
	} else {
		ab_progress_end((size_t)(s - c->p->steps) + 1, res.exit_code == 0);
		ab_proc_describe(what, sizeof(what), &res);
	}
	if (s->jobserver) {
		/* a make killed by a signal may leave sub-makes that still hold tokens */
		if (res.signal && res.pid > 0)
			kill(-(pid_t)res.pid, SIGKILL);
		ab_jobserver_release(c->js);
	}
	/*
	 * outside the sandbox the step had the remote cache's URL with its
	 * credentials: whatever of them it printed never stays in the log
	 */
	if (!pv->sandboxed && ab_env_get(&env, "CCACHE_REMOTE_STORAGE") && ab_redact_file(s->log) < 0)
		res.exit_code = res.exit_code ? res.exit_code : -1;
	pthread_mutex_lock(&c->lock);
	c->child_seconds += res.seconds;
	pthread_mutex_unlock(&c->lock);
	cJSON_AddItemToObject(rec, "argv", ab_json_strv(s->argv.v, s->argv.n));
	cJSON_AddStringToObject(rec, "cwd", s->cwd);
	cJSON_AddItemToObject(rec, "env_set", env_set);
	cJSON_AddItemToObject(rec, "env_removed", ab_json_strv(env.removed.v, env.removed.n));
	if (s->jobserver)
		cJSON_AddNumberToObject(cJSON_AddObjectToObject(rec, "jobserver"), "jobs", ab_jobserver_size(c->js));
	cJSON_AddStringToObject(rec, "log", rel);
	cJSON_AddStringToObject(rec, "started_on", started);
	if (res.signal)
		cJSON_AddNullToObject(rec, "exit_status");
	else
		cJSON_AddNumberToObject(rec, "exit_status", res.exit_code);
	if (res.signal)
		cJSON_AddNumberToObject(rec, "signal", res.signal);
	cJSON_AddNumberToObject(rec, "duration_s", (double)(long)(res.seconds * 1000) / 1000.0);
	cJSON_AddItemToArray(steps, rec);
	if (res.exit_code != 0) {
		report_failure(pv, s, what);
		goto done;
	}
	error = 0;
done:
	free(q);
	ab_buf_free(&hdr);
	free(rel);
	ab_env_release(&env);
	return error;
}

/* a fresh source tree; ab_source_materialize reports a failure */
static int
source_step(struct ctx *c, const struct ab_plan_var *pv, const struct ab_step *s, struct ab_variant_record *vr)
{
	cJSON *rec = cJSON_CreateObject(), *srec = step_record(c->p, s, "source");
	size_t n = (size_t)(s - c->p->steps) + 1;
	char *rel = ab_build_rel_to_outdir(c->p, s->dir);
	double t0 = ab_now();
	int e;

	ab_progress_start(n, pv->v->label, s->name);
	pthread_mutex_lock(&c->source_lock);
	e = ab_source_materialize(rec, c->o->src, c->p->r, s->source, s->dir);
	pthread_mutex_unlock(&c->source_lock);
	ab_progress_end(n, e == 0);
	cJSON_AddStringToObject(srec, "source", s->source->id);
	cJSON_AddStringToObject(srec, "dir", rel);
	cJSON_AddNumberToObject(srec, "duration_s", (double)(long)((ab_now() - t0) * 1000) / 1000.0);
	cJSON_AddBoolToObject(srec, "ok", e == 0);
	cJSON_AddItemToArray(vr->steps, srec);
	cJSON_Delete(vr->tree);
	vr->tree = rec;
	free(rel);
	return e < 0 ? AB_ECHECK : 0;
}

/* --derive: done with the lead's trees; a relink of the lead may write into them now */
static void
set_copied(struct ctx *c, size_t vi)
{
	pthread_mutex_lock(&c->lock);
	c->vs[vi].copied = 1;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
}

/*
 * The lead whose trees variant vi starts from: its derive_from when that
 * one was built in this run (the scheduler started vi after it ended),
 * else AB_PLAN_NONE, and vi is built clean, saying why
 */
static size_t
derive_lead(struct ctx *c, size_t vi)
{
	const struct ab_plan_var *pv = &c->p->vars[vi];
	size_t lead = pv->derive_from;
	int built;

	if (pv->derive_why)
		ab_note("%s: built clean: %s", pv->v->label, pv->derive_why);
	if (lead == AB_PLAN_NONE)
		return lead;
	pthread_mutex_lock(&c->lock);
	built = c->vs[lead].status == V_BUILT && c->vs[lead].need_build;
	pthread_mutex_unlock(&c->lock);
	if (built)
		return lead;
	/* an up-to-date tree may hold what later steps wrote there (a relink's output): only a fresh one is copied */
	ab_note("%s: built clean: %s was not built in this run, and only trees built in the run are copied",
	    pv->v->label, c->p->vars[lead].v->label);
	return AB_PLAN_NONE;
}

/* the source step of a derived variant: its lead's finished trees copied into its place */
static int
derive_step(struct ctx *c, const struct ab_plan_var *pv, const struct ab_step *s, struct ab_variant_record *vr,
    size_t lead)
{
	const struct ab_plan_var *lv = &c->p->vars[lead];
	const struct ab_variant_record *lr = ab_build_record_of(c, lead);
	cJSON *srec = step_record(c->p, s, "derive");
	size_t n = (size_t)(s - c->p->steps) + 1, cloned = 0;
	char *name = ab_sprintf("derive from %s", lv->v->label);
	double t0 = ab_now();
	int e;

	ab_progress_start(n, pv->v->label, name);
	e = ab_derive_copy(&cloned, lv, pv);
	ab_progress_end(n, e == 0);
	cJSON_ReplaceItemInObject(srec, "name", cJSON_CreateString(name));
	cJSON_AddStringToObject(srec, "from", lv->v->label);
	cJSON_AddStringToObject(srec, "from_key", c->vs[lead].key);
	cJSON_AddStringToObject(srec, "copy", cloned ? "reflink" : "copy");
	cJSON_AddNumberToObject(srec, "duration_s", (double)(long)((ab_now() - t0) * 1000) / 1000.0);
	cJSON_AddBoolToObject(srec, "ok", e == 0);
	cJSON_AddItemToArray(vr->steps, srec);
	/* the same source, patches, overlays and prepare commands: the lead's tree record is this tree's */
	cJSON_Delete(vr->tree);
	vr->tree = lr->tree ? cJSON_Duplicate(lr->tree, 1) : NULL;
	free(vr->derived_from);
	vr->derived_from = e == 0 ? ab_strdup(lv->v->label) : NULL;
	free(name);
	return e;
}

static cJSON *
cmake_record(const struct ab_plan *p, const struct ab_plan_var *pv)
{
	cJSON *rec = NULL;

	if (ab_cmakeprov_read(&rec, pv->build, pv->v->build.targets.v, pv->v->build.targets.n) < 0)
		return NULL;
	/* CMake found the wrapper's links: the record names the compilers they run, in the step's PATH */
	if (pv->ccwrap) {
		const char *path = getenv("PATH");

		for (size_t i = 0; i < pv->env.n; i++)
			if (!strncmp(pv->env.v[i], "PATH=", 5))
				path = pv->env.v[i] + 5;
		ab_cmakeprov_unwrap(rec, pv->sandboxed ? AB_FIXED_CCWRAP : p->ccwrap, path);
	}
	return rec;
}

/*
 * The directory of a recipe relink's output, made inside the build
 * directory without following a symlink out of it (validate checks the
 * path only as written)
 */
static int
output_dir_inside(const struct ab_plan_var *pv, const char *build, const char *output)
{
	char *dir = ab_path_dirname(output), why[AB_BENEATH_WHY];
	int fd = ab_dirwalk_open_below(build, dir, O_RDONLY | O_DIRECTORY, AB_BENEATH_MKDIR, why);

	if (fd < 0)
		ab_error("%s: relink output '%s' in '%s' %s", pv->v->label, output, build, why);
	else
		close(fd);
	free(dir);
	return fd < 0 ? AB_ECHECK : 0;
}

static int
relink_step(struct ctx *c, const struct ab_plan_var *pv, const struct ab_step *s, struct ab_variant_record *vr)
{
	const struct ab_variant *v = pv->v;
	const struct ab_plan_var *from = &c->p->vars[pv->from_vi];
	struct ab_relink_replacement *rep = ab_calloc(v->relink.nreplace + 1, sizeof(*rep));
	struct ab_strv withs = {0}, paths = {0};
	struct ab_relink_spec spec = {0};
	struct ab_env env;
	cJSON *prov = NULL, *rec = step_record(c->p, s, "relink");
	char *link_txt = ab_path_join(from->build, v->relink.link_txt);
	char *output = ab_path_join(from->build, v->relink.output);
	size_t n = (size_t)(s - c->p->steps) + 1;
	double t0 = ab_now();
	int e;

	for (size_t i = 0; i < v->relink.nreplace; i++) {
		const struct ab_plan_var *w = &c->p->vars[pv->with_vi[i]];

		ab_strv_push_owned(&withs, ab_path_join(w->artdir, v->relink.replace[i].with_artifact));
	}
	/* a replaced path may name another variant's artifact: {variant:LABEL:PATH} */
	for (size_t i = 0; i < v->relink.nreplace; i++)
		ab_strv_push_owned(&paths, ab_plan_expand(c->p, v->relink.replace[i].path));
	for (size_t i = 0; i < v->relink.nreplace; i++) {
		rep[i].path = paths.v[i];
		rep[i].with = withs.v[i];
	}
	ab_build_fill_env(&env, pv);
	spec.link_txt = link_txt;
	spec.replace = rep;
	spec.nreplace = v->relink.nreplace;
	spec.output = output;
	spec.env = &env;
	spec.log_path = s->log;
	spec.tool = AB_TOOL;
	spec.sandbox = pv->sandboxed ? &pv->sb : NULL;
	/* what sandboxed steps wrote is read without following a link out of it */
	spec.confine = pv->sandboxed ? from->build : NULL;
	/* the proof that the relink changes only the replaced inputs: the unchanged
	   command, linked again, must reproduce the normal binary */
	spec.check_normal = 1;
	spec.layout = v->relink.layout;
	spec.layout_seed = (uint64_t)v->relink.layout_seed;
	ab_progress_start(n, v->label, s->name);
	e = ab_build_sandbox_dirs(c->p, pv);
	if (e == 0)
		e = output_dir_inside(pv, from->build, v->relink.output);
	if (e == 0)
		e = ab_relink_run(&prov, &spec);
	ab_progress_end(n, e == 0);
	cJSON_AddStringToObject(rec, "link_txt", link_txt);
	cJSON_AddStringToObject(rec, "output", output);
	cJSON_AddItemToObject(rec, "env_set", env_object(&env.set));
	cJSON_AddItemToObject(rec, "env_removed", ab_json_strv(env.removed.v, env.removed.n));
	cJSON_AddNumberToObject(rec, "duration_s", (double)(long)((ab_now() - t0) * 1000) / 1000.0);
	cJSON_AddBoolToObject(rec, "ok", e == 0);
	cJSON_AddItemToArray(vr->steps, rec);
	if (prov) {
		cJSON_Delete(vr->relink);
		vr->relink = prov;
	}
	ab_env_release(&env);
	ab_strv_free(&withs);
	ab_strv_free(&paths);
	free(rep);
	free(link_txt);
	free(output);
	return e < 0 ? AB_ECHECK : 0;
}

/* the generated CARGO_HOME of a cargo variant (builder/cargo.h) */
static int
cargo_home(const struct ab_plan_var *pv)
{
	char *crates = ab_cargo_crates_dir(pv->v, pv->in_src);
	int e = ab_cargo_home_write(pv->build, crates);

	free(crates);
	return e;
}

/* what ccache did for the variant's compiles, from its statistics log */
static int
ccache_stats(struct ab_variant_record *vr, const struct ab_plan *p, const struct ab_plan_var *pv)
{
	char *log = ab_path_join(pv->logs, AB_CCSTATS_LOG), *rel = ab_build_rel_to_outdir(p, log);
	int e = ab_ccstats_read(&vr->ccache, log, rel);

	free(rel);
	free(log);
	return e;
}

/* the compile log the wrapper kept, when it kept one (builder/ccwrap.h) */
static void
compile_log(struct ab_variant_record *vr, const struct ab_plan *p, const struct ab_plan_var *pv)
{
	char *log = ab_path_join(pv->logs, AB_CCWRAP_LOG);
	struct stat st;

	free(vr->compile_log);
	/* empty as the build sandbox makes it before the first step: no compile was logged */
	vr->compile_log = lstat(log, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ?
	    ab_build_rel_to_outdir(p, log) : NULL;
	free(log);
}

/*
 * A variant with a lead (builder/plan.h) compiles after the lead's build
 * has ended (built or failed), when the lead is built in this run: the
 * scheduler starts no variant before its lead
 */
static void
wait_for_lead(struct ctx *c, const struct ab_plan_var *pv)
{
	if (pv->lead == AB_PLAN_NONE)
		return;
	pthread_mutex_lock(&c->lock);
	while (c->vs[pv->lead].status == V_RUNNING)
		pthread_cond_wait(&c->cond, &c->lock);
	pthread_mutex_unlock(&c->lock);
}

/* a fresh build of one source or relink variant; fills its record */
static int
build_variant(struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];
	struct ab_variant_record *vr = ab_build_record_of(c, vi);
	size_t lead = derive_lead(c, vi);

	cJSON_Delete(vr->steps);
	vr->steps = cJSON_CreateArray();
	cJSON_Delete(vr->ccache);
	vr->ccache = NULL;
	free(vr->derived_from);
	vr->derived_from = NULL;
	if (lead == AB_PLAN_NONE)
		set_copied(c, vi);
	if (ab_rm_rf(pv->src) < 0 || ab_rm_rf(pv->build) < 0 || ab_rm_rf(pv->logs) < 0 ||
	    ab_rm_rf(pv->probe) < 0 || ab_derive_clean(pv, 1) < 0 || ab_mkdir_p(pv->logs, 0755) < 0 ||
	    ab_isolation_log_files(pv->logs, (const char *const *)pv->log_files.v) < 0)
		return AB_EFAIL;
	for (size_t i = pv->first_step; i < pv->first_step + pv->nsteps; i++) {
		const struct ab_step *s = &p->steps[i];
		int e = 0;

		switch (s->kind) {
		case AB_STEP_SOURCE:
			if (lead != AB_PLAN_NONE) {
				e = derive_step(c, pv, s, vr, lead);
				set_copied(c, vi);
			} else {
				e = source_step(c, pv, s, vr);
			}
			break;
		case AB_STEP_CONFIGURE:
		case AB_STEP_BUILD:
			if (s->kind == AB_STEP_BUILD)
				wait_for_lead(c, pv);
			if (pv->v->build.system == AB_BUILD_CARGO)
				e = cargo_home(pv);
			if (e == 0)
				e = run_step(c, pv, s, vr->steps);
			break;
		case AB_STEP_RELINK:
			e = relink_step(c, pv, s, vr);
			break;
		default:
			break;
		}
		if (e < 0)
			return e;
	}
	if (p->ccache && pv->v->kind == AB_VARIANT_BUILD && ccache_stats(vr, p, pv) < 0)
		return AB_ECHECK;
	if (lead != AB_PLAN_NONE && ab_derive_compile_log(&p->vars[lead], pv) < 0)
		return AB_EFAIL;
	compile_log(vr, p, pv);
	if (hash_artifacts(vr, c, pv) < 0)
		return AB_ECHECK;
	if (pv->v->kind == AB_VARIANT_BUILD) {
		cJSON_Delete(vr->host_probes);
		if (ab_hostprobe_jemalloc(&vr->host_probes, pv->build) < 0)
			return AB_ECHECK;
	}
	if (pv->v->kind == AB_VARIANT_BUILD && pv->v->build.system == AB_BUILD_CARGO) {
		char *crates = ab_cargo_crates_dir(pv->v, pv->src);
		int e;

		ab_cargo_record_free(vr->cargo);
		e = ab_cargoprov_read(&vr->cargo, pv->src, crates);

		free(crates);
		if (e < 0)
			return AB_ECHECK;
	}
	if (pv->v->kind == AB_VARIANT_BUILD && pv->v->build.system == AB_BUILD_CMAKE) {
		cJSON *cm = cmake_record(c->p, pv);

		if (!cm)
			return AB_ECHECK;
		vr->cmake = cm;
	}
	return 0;
}

void *
ab_build_worker(void *arg)
{
	struct ctx *c = ((void **)arg)[0];
	size_t vi = (size_t)(uintptr_t)((void **)arg)[1];
	int e;

	free(arg);
	e = build_variant(c, vi);
	pthread_mutex_lock(&c->lock);
	c->vs[vi].copied = 1;
	c->vs[vi].status = e == 0 ? V_BUILT : V_FAILED;
	if (e < 0)
		c->failed = 1;
	c->running--;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}
