#include "build.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/hash.h"
#include "../lib/jobserver.h"
#include "../lib/jsonio.h"
#include "../lib/proc.h"
#include "../lib/progress.h"
#include "../lib/version.h"
#include "../provenance/allocver.h"
#include "../provenance/cmakeprov.h"
#include "../provenance/manifest.h"
#include "../provenance/probe.h"
#include "../provenance/updiff.h"
#include "relink.h"

#define KEY_FORMAT "allocbuild-variant-key 1"
#define TAIL_LINES 30

enum var_status { V_PENDING, V_RUNNING, V_BUILT, V_UPTODATE, V_FAILED, V_SKIPPED };

struct var_state {
	enum var_status status;
	char key[AB_HEX_LEN + 1];       /* build inputs */
	char probe_key[AB_HEX_LEN + 1]; /* build key plus the runtime environment */
	cJSON *state;                   /* variants/<label>/state.json: what the manifests need */
	cJSON *old;                     /* the state found on disk, if any */
	int need_build, need_probe;
	int rebuilt;                    /* its binary is built again in this run (runtime_of: its base's) */
	pthread_t thread;
	int joined;
};

struct ctx {
	const struct ab_plan *p;
	const struct ab_build_opts *o;
	struct var_state *vs;
	cJSON *fetched;      /* source id -> fetch record */
	cJSON *toolchain;    /* internalParameters */
	char toolchain_key[AB_HEX_LEN + 1];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_mutex_t source_lock; /* the source module is driven by one thread at a time */
	struct ab_jobserver *js;     /* shared by the make-based build steps, or NULL */
	int running, failed;
	double child_seconds;
};

/* ---- small helpers ---- */

static void
key_add(struct ab_sha256 *h, const char *tag, const char *value)
{
	char len[32];

	/* length-prefixed so that no two input lists hash alike */
	snprintf(len, sizeof(len), "%zu:", value ? strlen(value) : (size_t)0);
	ab_sha256_update(h, tag, strlen(tag));
	ab_sha256_update(h, "=", 1);
	ab_sha256_update(h, len, strlen(len));
	if (value)
		ab_sha256_update(h, value, strlen(value));
	ab_sha256_update(h, "\n", 1);
}

static char *
rel_to_outdir(const struct ab_plan *p, const char *abs)
{
	size_t n = strlen(p->outdir);

	if (!strncmp(abs, p->outdir, n) && abs[n] == '/')
		return ab_strdup(abs + n + 1);
	return ab_strdup(abs);
}

static void
iso_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void
fill_env(struct ab_env *env, const struct ab_plan_var *pv)
{
	ab_env_scrubbed(env);
	for (size_t i = 0; pv && i < pv->env.n; i++) {
		const char *eq = strchr(pv->env.v[i], '=');
		char *k = ab_strndup(pv->env.v[i], (size_t)(eq - pv->env.v[i]));

		ab_env_set(env, k, eq + 1);
		free(k);
	}
}

static cJSON *
env_object(const struct ab_strv *set)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < set->n; i++) {
		const char *eq = strchr(set->v[i], '=');
		char *k = ab_strndup(set->v[i], eq ? (size_t)(eq - set->v[i]) : strlen(set->v[i]));

		cJSON_AddStringToObject(o, k, eq ? eq + 1 : "");
		free(k);
	}
	return o;
}

/* ---- OUTDIR lock ---- */

int
ab_build_lock(int *fd, const char *outdir)
{
	char *path = ab_path_join(outdir, ".lock");
	char pid[32];
	int f;

	*fd = -1;
	f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (f < 0) {
		ab_error_errno("cannot open lock '%s'", path);
		free(path);
		return -1;
	}
	if (flock(f, LOCK_EX | LOCK_NB) < 0) {
		struct ab_buf holder = {0};

		if (errno == EWOULDBLOCK) {
			if (ab_read_file(&holder, path) == 0 && holder.len && holder.s[holder.len - 1] == '\n')
				holder.s[--holder.len] = '\0';
			ab_error("output directory '%s' is locked by another build%s%s%s", outdir,
			    holder.len ? " (pid " : "", holder.len ? holder.s : "", holder.len ? ")" : "");
		} else {
			ab_error_errno("cannot lock '%s'", path);
		}
		ab_buf_free(&holder);
		close(f);
		free(path);
		return -1;
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	/* the pid is only informative: a failure to record it is ignored */
	if (ftruncate(f, 0) == 0 && pwrite(f, pid, strlen(pid), 0) < 0)
		pid[0] = '\0';
	free(path);
	*fd = f;
	return 0;
}

/* ---- toolchain identity ---- */

static void
tool_identity(struct ctx *c, struct ab_sha256 *h, const char *name)
{
	char *argv[] = {(char *)name, "--version", NULL};
	struct ab_proc pr = {.argv = argv};
	struct ab_proc_result res;
	struct ab_buf out = {0}, err = {0};
	struct ab_env env;
	cJSON *t = cJSON_CreateObject();
	char hex[AB_HEX_LEN + 1] = "missing";

	fill_env(&env, c->p->nvars ? &c->p->vars[0] : NULL);
	pr.envp = ab_env_envp(&env);
	pr.out = &out;
	pr.err = &err;
	/* a missing tool is not an error here: its absence is part of the identity */
	ab_quiet++;
	if (ab_proc_run(&res, &pr) == 0 && res.exit_code == 0 && out.s) {
		char *first = ab_strndup(out.s, strcspn(out.s, "\n"));

		ab_hash_buf(hex, out.s, out.len);
		cJSON_AddStringToObject(t, "version", first);
		cJSON_AddStringToObject(t, "version_output_sha256", hex);
		free(first);
	} else {
		cJSON_AddNullToObject(t, "version");
	}
	ab_quiet--;
	cJSON_AddItemToObject(c->toolchain, name, t);
	key_add(h, name, hex);
	ab_buf_free(&out);
	ab_buf_free(&err);
	ab_env_release(&env);
}

static void
toolchain(struct ctx *c)
{
	struct ab_sha256 *h = ab_sha256_new();
	int cmake = 0;

	c->toolchain = cJSON_CreateObject();
	for (size_t i = 0; i < c->p->nvars; i++)
		cmake |= c->p->vars[i].v->kind == AB_VARIANT_BUILD && c->p->vars[i].v->build.system == AB_BUILD_CMAKE;
	tool_identity(c, h, "cc");
	tool_identity(c, h, "make");
	if (cmake) {
		tool_identity(c, h, "c++");
		tool_identity(c, h, "cmake");
	}
	if (c->p->ccache)
		tool_identity(c, h, "ccache");
	ab_sha256_final(c->toolchain_key, h);
}

/* ---- content keys ---- */

/* what a source's tree is made from, overlays included */
struct key_walk {
	struct ctx *c;
	struct ab_sha256 *h;
};

static int
key_source(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth)
{
	struct key_walk *kw = arg;
	struct ab_sha256 *h = kw->h;
	const struct ab_recipe *r = kw->c->p->r;

	(void)depth;
	if (via)
		key_add(h, "overlay", via->path);
	key_add(h, "source", s->id);
	if (s->kind == AB_SOURCE_GIT) {
		const cJSON *rec = ab_json_get(kw->c->fetched, s->id);
		const char *commit = rec ? ab_json_str(rec, "commit") : NULL;

		key_add(h, "git", s->url);
		key_add(h, "commit", commit ? commit : s->commit);
	} else {
		char strip[32];

		snprintf(strip, sizeof(strip), "%d", s->strip);
		key_add(h, "archive", s->sha256);
		key_add(h, "strip", strip);
	}
	for (size_t i = 0; i < s->patches.n; i++) {
		char *path = ab_recipe_path(r, s->patches.v[i]);
		char hex[AB_HEX_LEN + 1];
		int e = ab_hash_file(hex, NULL, path);

		free(path);
		if (e < 0)
			return e;
		key_add(h, "patch", s->patches.v[i]);
		key_add(h, "patch-sha256", hex);
	}
	for (size_t i = 0; i < s->nprepare; i++) {
		char *q = ab_argv_quote(s->prepare[i].v);

		key_add(h, "prepare", q);
		free(q);
	}
	return 0;
}

static int
compute_key(struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];
	const struct ab_variant *v = pv->v;
	struct ab_sha256 *h = ab_sha256_new();
	char ccache[4];

	key_add(h, "format", KEY_FORMAT);
	key_add(h, "dir", pv->dir);
	key_add(h, "kind", ab_plan_kind_name(v));
	key_add(h, "toolchain", c->toolchain_key);
	snprintf(ccache, sizeof(ccache), "%d", p->ccache);
	key_add(h, "ccache", ccache);
	for (size_t i = 0; i < pv->env.n; i++)
		key_add(h, "env", pv->env.v[i]);
	for (size_t i = 0; i < pv->artifacts.n; i++)
		key_add(h, "artifact", pv->artifacts.v[i]);
	switch (v->kind) {
	case AB_VARIANT_BUILD:
		key_add(h, "generator", v->build.generator ? v->build.generator : "");
		for (size_t i = 0; i < v->build.configure.n; i++)
			key_add(h, "configure", v->build.configure.v[i]);
		for (size_t i = 0; i < v->build.defines.n; i++) {
			key_add(h, "define", v->build.defines.v[i].key);
			key_add(h, "value", v->build.defines.v[i].value);
		}
		for (size_t i = 0; i < v->build.targets.n; i++)
			key_add(h, "target", v->build.targets.v[i]);
		if (ab_recipe_overlay_walk(p->r, ab_recipe_source(p->r, v->source), key_source, NULL,
		    &(struct key_walk){c, h}) < 0) {
			char junk[AB_HEX_LEN + 1];

			ab_sha256_final(junk, h);
			return -1;
		}
		break;
	case AB_VARIANT_RELINK:
		key_add(h, "from", c->vs[ab_plan_var_index(p, v->relink.from)].key);
		key_add(h, "link_txt", v->relink.link_txt);
		key_add(h, "output", v->relink.output);
		for (size_t i = 0; i < v->relink.nreplace; i++) {
			key_add(h, "replace", v->relink.replace[i].path);
			key_add(h, "with", c->vs[ab_plan_var_index(p, v->relink.replace[i].with_variant)].key);
			key_add(h, "artifact", v->relink.replace[i].with_artifact);
		}
		break;
	case AB_VARIANT_RUNTIME:
		key_add(h, "base", c->vs[ab_plan_var_index(p, pv->base->label)].key);
		break;
	}
	ab_sha256_final(c->vs[vi].key, h);

	h = ab_sha256_new();
	key_add(h, "build", c->vs[vi].key);
	key_add(h, "allocator", pv->base->allocator.kind);
	for (size_t i = 0; i < v->runtime.env.n; i++) {
		key_add(h, "runtime-env", v->runtime.env.v[i].key);
		key_add(h, "value", v->runtime.env.v[i].value);
	}
	for (size_t i = 0; i < v->runtime.unset.n; i++)
		key_add(h, "runtime-unset", v->runtime.unset.v[i]);
	{
		const struct ab_variant *ps = pv->probe_from;
		char t[32];

		for (size_t i = 0; i < ps->probe.args.n; i++)
			key_add(h, "probe-arg", ps->probe.args.v[i]);
		snprintf(t, sizeof(t), "%d", ps->probe.timeout);
		key_add(h, "probe-timeout", t);
	}
	ab_sha256_final(c->vs[vi].probe_key, h);
	return 0;
}

/* ---- artifacts ---- */

/*
 * Every artifact of a variant with its size, sha256 and the allocator
 * version string embedded in its bytes. Returns -1 (reported) when one is
 * missing.
 */
static int
hash_artifacts(cJSON **out, struct ctx *c, const struct ab_plan_var *pv)
{
	cJSON *a = cJSON_CreateArray();

	*out = NULL;
	for (size_t i = 0; i < pv->artifacts.n; i++) {
		char *abs = ab_path_join(pv->artdir, pv->artifacts.v[i]);
		char *rel = rel_to_outdir(c->p, abs);
		char hex[AB_HEX_LEN + 1];
		uint64_t size;
		cJSON *it;
		char *version = NULL;

		if (!ab_path_exists(abs)) {
			ab_error("%s: artifact '%s' was not built", pv->v->label, abs);
			free(abs);
			free(rel);
			cJSON_Delete(a);
			return -1;
		}
		if (ab_hash_file(hex, &size, abs) < 0) {
			free(abs);
			free(rel);
			cJSON_Delete(a);
			return -1;
		}
		it = cJSON_CreateObject();
		cJSON_AddStringToObject(it, "path", rel);
		cJSON_AddStringToObject(it, "artifact", pv->artifacts.v[i]);
		cJSON_AddNumberToObject(it, "size", (double)size);
		cJSON_AddStringToObject(it, "sha256", hex);
		if (pv->base->allocator.present && pv->base->allocator.archive &&
		    !strcmp(pv->base->allocator.archive, pv->artifacts.v[i]))
			cJSON_AddTrueToObject(it, "allocator_archive");
		if (ab_allocver_scan(&version, abs) == 0 && version) {
			cJSON_AddStringToObject(it, "allocator_version", version);
			cJSON_AddBoolToObject(it, "bogus_version", ab_jemalloc_version_is_bogus(version));
		} else {
			cJSON_AddNullToObject(it, "allocator_version");
			cJSON_AddFalseToObject(it, "bogus_version");
		}
		free(version);
		cJSON_AddItemToArray(a, it);
		free(abs);
		free(rel);
	}
	*out = a;
	return 0;
}

/* do the recorded artifacts still have their recorded hashes? */
static int
artifacts_intact(struct ctx *c, const cJSON *state)
{
	const cJSON *arts = ab_json_get(state, "artifacts"), *it;

	if (!cJSON_IsArray(arts))
		return 0;
	cJSON_ArrayForEach(it, arts) {
		const char *rel = ab_json_str(it, "path"), *want = ab_json_str(it, "sha256");
		char hex[AB_HEX_LEN + 1];
		char *abs;
		int ok;

		if (!rel || !want)
			return 0;
		abs = ab_path_join(c->p->outdir, rel);
		ab_quiet++;
		ok = ab_path_exists(abs) && ab_hash_file(hex, NULL, abs) == 0 && !strcmp(hex, want);
		ab_quiet--;
		free(abs);
		if (!ok)
			return 0;
	}
	return 1;
}

/* ---- running steps ---- */

static void
print_tail(const char *log)
{
	struct ab_buf b = {0};
	const char *start;
	int lines = 0;

	if (ab_read_file(&b, log) < 0)
		return;
	start = b.s + b.len;
	/* the start of the last TAIL_LINES lines, ignoring a final newline */
	if (start > b.s && start[-1] == '\n')
		start--;
	while (start > b.s) {
		if (start[-1] == '\n' && ++lines == TAIL_LINES)
			break;
		start--;
	}
	{
		struct ab_buf o = {0};
		const char *s = start;

		while (s < b.s + b.len) {
			size_t n = strcspn(s, "\n");

			ab_buf_printf(&o, "| %.*s\n", (int)n, s);
			s += n;
			if (*s == '\n')
				s++;
		}
		ab_progress_print("%s", o.s ? o.s : "");
		ab_buf_free(&o);
	}
	ab_buf_free(&b);
}

static void
report_failure(const struct ab_plan_var *pv, const struct ab_step *s, const char *what)
{
	char *q = ab_argv_quote(ab_strv_argv((struct ab_strv *)&s->argv));

	ab_progress_print("allocbuild: %s: %s failed: %s\n"
	    "  command: %s\n"
	    "  cwd: %s\n"
	    "  log: %s (last %d lines below)\n",
	    pv->v->label, s->name, what, q, s->cwd, s->log, TAIL_LINES);
	print_tail(s->log);
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
	char *rel = rel_to_outdir(c->p, s->log);
	char started[32], what[128];
	int error = -1, fds[2] = {-1, -1};

	ab_buf_printf(&hdr, "# allocbuild: %s\n# cwd: %s\n", s->name, s->cwd);
	fill_env(&env, pv);
	if (s->jobserver && !c->js) {
		ab_error("%s: %s: no jobserver", pv->v->label, s->name);
		cJSON_Delete(rec);
		goto done;
	}
	for (size_t i = 0; i < s->env.n; i++) {
		const char *eq = strchr(s->env.v[i], '=');
		char *k = ab_strndup(s->env.v[i], (size_t)(eq - s->env.v[i]));

		ab_env_set(&env, k, eq + 1);
		free(k);
	}
	for (size_t i = 0; i < s->unset.n; i++)
		ab_env_unset(&env, s->unset.v[i]);
	/* recorded as planned: the fd numbers are an artefact of this run */
	env_set = env_object(&env.set);
	if (s->jobserver) {
		const char *mf = ab_env_get(&env, "MAKEFLAGS"), *at = mf ? strstr(mf, AB_JOBSERVER_FDS) : NULL;

		ab_jobserver_fds(c->js, fds);
		if (at) {
			char *real = ab_sprintf("%.*s%d,%d%s", (int)(at - mf), mf, fds[0], fds[1],
			    at + strlen(AB_JOBSERVER_FDS));

			ab_env_set(&env, "MAKEFLAGS", real);
			ab_buf_printf(&hdr, "# env: MAKEFLAGS=%s (the jobserver of this run: %d tokens)\n", real,
			    ab_jobserver_size(c->js));
			free(real);
		}
		pr.keep_fds = fds;
		pr.nkeep_fds = 2;
	}
	ab_buf_printf(&hdr, "$ %s\n", q);
	if (ab_mkdir_p(s->cwd, 0755) < 0 || ab_write_file_atomic(s->log, hdr.s, hdr.len) < 0) {
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
	iso_time(started, sizeof(started), time(NULL));
	pr.argv = ab_strv_argv((struct ab_strv *)&s->argv);
	pr.cwd = s->cwd;
	pr.envp = ab_env_envp(&env);
	pr.log_path = s->log;
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

static int
source_step(struct ctx *c, const struct ab_plan_var *pv, const struct ab_step *s, cJSON *state, cJSON *steps)
{
	cJSON *rec = cJSON_CreateObject(), *srec = step_record(c->p, s, "source");
	size_t n = (size_t)(s - c->p->steps) + 1;
	char *rel = rel_to_outdir(c->p, s->dir);
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
	cJSON_AddItemToArray(steps, srec);
	cJSON_AddItemToObject(state, "source", rec);
	free(rel);
	if (e < 0)
		ab_progress_print("allocbuild: %s: %s failed\n", pv->v->label, s->name);
	return e;
}


static cJSON *
cmake_record(const struct ab_plan_var *pv)
{
	cJSON *rec = NULL;

	if (ab_cmakeprov_read(&rec, pv->build, pv->v->build.targets.v, pv->v->build.targets.n) < 0)
		return NULL;
	return rec;
}

static int
relink_step(struct ctx *c, const struct ab_plan_var *pv, const struct ab_step *s, cJSON *state, cJSON *steps)
{
	const struct ab_variant *v = pv->v;
	const struct ab_plan_var *from = &c->p->vars[ab_plan_var_index(c->p, v->relink.from)];
	struct ab_relink_replacement *rep = ab_calloc(v->relink.nreplace + 1, sizeof(*rep));
	struct ab_strv withs = {0};
	struct ab_relink_spec spec = {0};
	struct ab_env env;
	cJSON *prov = NULL, *rec = step_record(c->p, s, "relink");
	char *link_txt = ab_path_join(from->build, v->relink.link_txt);
	char *output = ab_path_join(from->build, v->relink.output);
	size_t n = (size_t)(s - c->p->steps) + 1;
	double t0 = ab_now();
	int e;

	for (size_t i = 0; i < v->relink.nreplace; i++) {
		const struct ab_plan_var *w = &c->p->vars[ab_plan_var_index(c->p, v->relink.replace[i].with_variant)];

		ab_strv_push_owned(&withs, ab_path_join(w->artdir, v->relink.replace[i].with_artifact));
	}
	for (size_t i = 0; i < v->relink.nreplace; i++) {
		rep[i].path = v->relink.replace[i].path;
		rep[i].with = withs.v[i];
	}
	fill_env(&env, pv);
	spec.link_txt = link_txt;
	spec.replace = rep;
	spec.nreplace = v->relink.nreplace;
	spec.output = output;
	spec.env = &env;
	spec.log_path = s->log;
	spec.tool = AB_TOOL;
	/* the proof that the relink changes only the replaced inputs: the unchanged
	   command, linked again, must reproduce the normal binary */
	spec.check_normal = 1;
	ab_progress_start(n, v->label, s->name);
	e = ab_relink_run(&prov, &spec);
	ab_progress_end(n, e == 0);
	cJSON_AddStringToObject(rec, "link_txt", link_txt);
	cJSON_AddStringToObject(rec, "output", output);
	cJSON_AddItemToObject(rec, "env_set", env_object(&env.set));
	cJSON_AddItemToObject(rec, "env_removed", ab_json_strv(env.removed.v, env.removed.n));
	cJSON_AddNumberToObject(rec, "duration_s", (double)(long)((ab_now() - t0) * 1000) / 1000.0);
	cJSON_AddBoolToObject(rec, "ok", e == 0);
	cJSON_AddItemToArray(steps, rec);
	if (prov)
		cJSON_AddItemToObject(state, "relink", prov);
	if (e < 0)
		ab_progress_print("allocbuild: %s: relink of '%s' failed (log: %s)\n", v->label, link_txt, s->log);
	ab_env_release(&env);
	ab_strv_free(&withs);
	free(rep);
	free(link_txt);
	free(output);
	return e < 0 ? -1 : 0;
}

/* a fresh build of one source or relink variant; fills vs->state */
static int
build_variant(struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];
	struct var_state *vs = &c->vs[vi];
	cJSON *steps = cJSON_AddArrayToObject(vs->state, "steps"), *arts = NULL;

	if (ab_rm_rf(pv->src) < 0 || ab_rm_rf(pv->build) < 0 || ab_rm_rf(pv->logs) < 0 ||
	    ab_rm_rf(pv->probe) < 0 || ab_mkdir_p(pv->logs, 0755) < 0)
		return -1;
	for (size_t i = pv->first_step; i < pv->first_step + pv->nsteps; i++) {
		const struct ab_step *s = &p->steps[i];
		int e = 0;

		switch (s->kind) {
		case AB_STEP_SOURCE:
			e = source_step(c, pv, s, vs->state, steps);
			break;
		case AB_STEP_CONFIGURE:
		case AB_STEP_BUILD:
			e = run_step(c, pv, s, steps);
			break;
		case AB_STEP_RELINK:
			e = relink_step(c, pv, s, vs->state, steps);
			break;
		default:
			break;
		}
		if (e < 0)
			return -1;
	}
	if (hash_artifacts(&arts, c, pv) < 0)
		return -1;
	cJSON_AddItemToObject(vs->state, "artifacts", arts);
	if (pv->v->kind == AB_VARIANT_BUILD && pv->v->build.system == AB_BUILD_CMAKE) {
		cJSON *cm = cmake_record(pv);

		if (!cm)
			return -1;
		cJSON_AddItemToObject(vs->state, "cmake", cm);
	}
	return 0;
}

static void *
worker(void *arg)
{
	struct ctx *c = ((void **)arg)[0];
	size_t vi = (size_t)(uintptr_t)((void **)arg)[1];
	int e;

	free(arg);
	e = build_variant(c, vi);
	pthread_mutex_lock(&c->lock);
	c->vs[vi].status = e == 0 ? V_BUILT : V_FAILED;
	if (e < 0)
		c->failed = 1;
	c->running--;
	pthread_cond_broadcast(&c->cond);
	pthread_mutex_unlock(&c->lock);
	return NULL;
}

/* ---- probes and upstream diffs (main thread, after the builds) ---- */

static int
is_archive(const char *path)
{
	size_t n = strlen(path);

	return n > 2 && !strcmp(path + n - 2, ".a");
}

/* the probe of one variant: its binary run, or a program linked against its archive */
static int
probe_variant(struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];
	const struct ab_step *s = &p->steps[pv->probe_step];
	struct var_state *vs = &c->vs[vi];
	size_t n = pv->probe_step + 1;
	cJSON *rec = NULL;
	int e = -1;

	struct ab_probe_req req = {0};
	const char *target = NULL;
	char *abs = NULL;

	req.allocator = pv->base->allocator.kind;
	req.env = pv->v->runtime.env;
	req.unset = pv->v->runtime.unset;
	req.cwd = pv->probe;
	req.timeout = pv->probe_from->probe.timeout;
	/* a binary artifact is run; else the allocator archive is linked into a probe program */
	for (size_t i = 0; i < pv->artifacts.n && !target; i++)
		if (!is_archive(pv->artifacts.v[i]))
			target = pv->artifacts.v[i];
	if (!target && pv->base->allocator.archive)
		target = pv->base->allocator.archive;
	if (!target && pv->artifacts.n)
		target = pv->artifacts.v[0];
	abs = ab_path_join(pv->artdir, target);
	ab_progress_start(n, pv->v->label, s->name);
	if (ab_mkdir_p(pv->probe, 0755) == 0) {
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
	ab_progress_end(n, e == 0 && rec && ab_probe_ok(rec));
	free(abs);
	if (e < 0) {
		cJSON_Delete(rec);
		return -1;
	}
	cJSON_DeleteItemFromObject(vs->state, "probe");
	cJSON_AddItemToObject(vs->state, "probe", rec);
	cJSON_DeleteItemFromObject(vs->state, "probe_key");
	cJSON_AddStringToObject(vs->state, "probe_key", vs->probe_key);
	return 0;
}

static int
upstream_tree(struct ctx *c, const struct ab_step *s)
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

static int
updiff_variant(struct ctx *c, size_t vi)
{
	const struct ab_plan_var *pv = &c->p->vars[vi];
	const struct ab_step *s = &c->p->steps[pv->updiff_step];
	struct var_state *vs = &c->vs[vi];
	cJSON *rec = NULL;
	size_t n = pv->updiff_step + 1;

	{
		struct ab_updiff_opts uo;
		char *vendored = ab_path_join(pv->src, pv->v->allocator.vendored);
		int e;

		ab_updiff_opts_init(&uo);
		ab_progress_start(n, pv->v->label, s->name);
		e = ab_updiff_compare(&rec, vendored, s->dir, &uo);
		ab_progress_end(n, e == 0);
		free(vendored);
		if (e < 0)
			return -1;
	}
	cJSON_DeleteItemFromObject(vs->state, "upstream_diff");
	cJSON_AddItemToObject(vs->state, "upstream_diff", rec);
	return 0;
}

/* ---- scheduling ---- */

static void
schedule(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		int progress = 0;

		for (size_t vi = 0; vi < p->nvars; vi++) {
			const struct ab_plan_var *pv = &p->vars[vi];
			struct var_state *vs = &c->vs[vi];
			int ready = 1, dead = 0;
			void **arg;

			if (vs->status != V_PENDING)
				continue;
			for (size_t k = 0; k < pv->ndeps; k++) {
				enum var_status st = c->vs[pv->deps[k]].status;

				if (st == V_FAILED || st == V_SKIPPED)
					dead = 1;
				else if (st == V_PENDING || st == V_RUNNING)
					ready = 0;
			}
			if (dead) {
				vs->status = V_SKIPPED;
				ab_progress_print("allocbuild: %s: skipped: a variant it depends on failed\n", pv->v->label);
				progress = 1;
				continue;
			}
			if (!ready || (c->failed && !c->o->keep_going))
				continue;
			if (pv->v->kind == AB_VARIANT_RUNTIME || !vs->need_build) {
				vs->status = vs->need_build ? V_BUILT : V_UPTODATE;
				progress = 1;
				continue;
			}
			if (c->running >= p->parallel)
				continue;
			arg = ab_malloc(2 * sizeof(*arg));
			arg[0] = c;
			arg[1] = (void *)(uintptr_t)vi;
			vs->status = V_RUNNING;
			if (pthread_create(&vs->thread, NULL, worker, arg) != 0) {
				free(arg);
				ab_error("cannot start a thread for '%s'", pv->v->label);
				vs->status = V_FAILED;
				c->failed = 1;
				progress = 1;
				continue;
			}
			vs->joined = 0;
			c->running++;
			progress = 1;
		}
		if (progress)
			continue;
		if (c->running == 0)
			break;
		pthread_cond_wait(&c->cond, &c->lock);
	}
	for (size_t vi = 0; vi < p->nvars; vi++)
		if (c->vs[vi].status == V_PENDING) {
			c->vs[vi].status = V_SKIPPED;
			ab_progress_print("allocbuild: %s: not built: stopped after a failure (use --keep-going)\n",
			    p->vars[vi].v->label);
		}
	pthread_mutex_unlock(&c->lock);
	for (size_t vi = 0; vi < p->nvars; vi++)
		if (c->vs[vi].thread && !c->vs[vi].joined) {
			pthread_join(c->vs[vi].thread, NULL);
			c->vs[vi].joined = 1;
		}
}

/* ---- the run ---- */

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
	cJSON *rec = cJSON_CreateObject();
	size_t n = (size_t)(s - c->p->steps) + 1;
	int e;

	ab_progress_start(n, NULL, s->name);
	e = ab_source_fetch(rec, c->o->src, c->p->r, s->source);
	ab_progress_end(n, e == 0);
	if (e < 0) {
		cJSON_Delete(rec);
		return -1;
	}
	cJSON_DeleteItemFromObject(c->fetched, s->source->id);
	cJSON_AddItemToObject(c->fetched, s->source->id, rec);
	return 0;
}

static cJSON *
kvlist_object(const struct ab_kvlist *l)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < l->n; i++)
		cJSON_AddStringToObject(o, l->v[i].key, l->v[i].value);
	return o;
}

/* the parts of a variant's state that come from the recipe and the plan */
static cJSON *
new_state(struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];
	const struct ab_variant *v = pv->v;
	cJSON *st = cJSON_CreateObject(), *al, *rt;
	char *rel;

	cJSON_AddStringToObject(st, "label", v->label);
	cJSON_AddStringToObject(st, "kind", ab_plan_kind_name(v));
	cJSON_AddStringToObject(st, "base", pv->base->label);
	cJSON_AddStringToObject(st, "key", c->vs[vi].key);
	rel = rel_to_outdir(p, pv->dir);
	cJSON_AddStringToObject(st, "dir", rel);
	free(rel);
	rel = rel_to_outdir(p, pv->artdir);
	cJSON_AddStringToObject(st, "artifact_dir", rel);
	free(rel);
	if (v->kind == AB_VARIANT_BUILD)
		cJSON_AddStringToObject(st, "source", v->source);
	if (v->kind == AB_VARIANT_RELINK)
		cJSON_AddStringToObject(st, "from", v->relink.from);
	al = cJSON_AddObjectToObject(st, "allocator");
	if (pv->base->allocator.present) {
		cJSON_AddStringToObject(al, "kind", pv->base->allocator.kind);
		if (pv->base->allocator.archive)
			cJSON_AddStringToObject(al, "archive", pv->base->allocator.archive);
		if (v->allocator.vendored)
			cJSON_AddStringToObject(al, "vendored", v->allocator.vendored);
		if (v->allocator.upstream)
			cJSON_AddStringToObject(al, "upstream", v->allocator.upstream);
	}
	rt = cJSON_AddObjectToObject(st, "runtime");
	cJSON_AddItemToObject(rt, "env", kvlist_object(&v->runtime.env));
	cJSON_AddItemToObject(rt, "unset", ab_json_strv(v->runtime.unset.v, v->runtime.unset.n));
	return st;
}

static char *
state_path(const struct ab_plan_var *pv)
{
	return ab_path_join(pv->dir, "state.json");
}

static cJSON *
load_old_state(const struct ab_plan_var *pv)
{
	char *path = state_path(pv);
	struct ab_buf b = {0};
	cJSON *st = NULL;

	if (ab_path_exists(path) && ab_read_file(&b, path) == 0)
		st = cJSON_ParseWithLength(b.s, b.len);
	ab_buf_free(&b);
	free(path);
	return st;
}

static void
set_string(cJSON *o, const char *k, const char *v)
{
	cJSON_DeleteItemFromObject(o, k);
	cJSON_AddStringToObject(o, k, v);
}

static void
decide(struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];
	struct var_state *vs = &c->vs[vi];
	cJSON *old = vs->old;
	int dep_rebuilt = 0;

	for (size_t k = 0; k < pv->ndeps; k++)
		dep_rebuilt |= c->vs[pv->deps[k]].rebuilt;
	if (pv->v->kind == AB_VARIANT_RUNTIME) {
		vs->need_build = 0;
	} else {
		vs->need_build = c->o->force || dep_rebuilt || !old || !cJSON_IsTrue(ab_json_get(old, "ok")) ||
		    !ab_json_str(old, "key") || strcmp(ab_json_str(old, "key"), vs->key) || !artifacts_intact(c, old);
	}
	vs->need_probe = pv->probe_step != AB_PLAN_NONE &&
	    (vs->need_build || dep_rebuilt || c->o->force || !old || !cJSON_IsTrue(ab_json_get(old, "ok")) ||
		!ab_json_str(old, "probe_key") || strcmp(ab_json_str(old, "probe_key"), vs->probe_key) ||
		!ab_json_get(old, "probe"));
	if (pv->v->kind == AB_VARIANT_RUNTIME && old && !vs->need_probe)
		vs->need_build = 0;
	vs->rebuilt = vs->need_build || dep_rebuilt;
	if (!vs->need_build && old && pv->v->kind != AB_VARIANT_RUNTIME) {
		vs->state = cJSON_Duplicate(old, 1);
		/* the recipe-derived parts may have changed without changing the build (runtime env) */
		cJSON *fresh = new_state(c, vi);

		cJSON_DeleteItemFromObject(vs->state, "runtime");
		cJSON_AddItemToObject(vs->state, "runtime", cJSON_DetachItemFromObject(fresh, "runtime"));
		cJSON_Delete(fresh);
		return;
	}
	vs->state = new_state(c, vi);
	if (pv->v->kind == AB_VARIANT_RUNTIME && old && !vs->need_probe) {
		cJSON_AddItemToObject(vs->state, "probe", cJSON_Duplicate(ab_json_get(old, "probe"), 1));
		cJSON_AddStringToObject(vs->state, "probe_key", vs->probe_key);
	}
}

static void
print_table(struct ctx *c);

/* the manifests that other modules shape: sources.json, cmake-cache-provenance.json */
static int
add_documents(struct ctx *c, cJSON *docs, const cJSON *srcs)
{
	const struct ab_plan *p = c->p;
	cJSON *m = ab_sources_manifest_new(p->r), *cm = NULL;
	const cJSON *it;

	cJSON_ArrayForEach(it, srcs)
		ab_sources_manifest_add_source(m, it->string, cJSON_Duplicate(it, 1));
	for (size_t vi = 0; vi < p->nvars; vi++) {
		const cJSON *st = c->vs[vi].state, *tree = ab_json_get(st, "source"), *rec;

		if (!cJSON_IsTrue(ab_json_get(st, "ok")))
			continue;
		if (cJSON_IsObject(tree))
			ab_sources_manifest_add_variant(m, p->vars[vi].v->label, cJSON_Duplicate(tree, 1));
		rec = ab_json_get(st, "cmake");
		if (rec) {
			if (!cm)
				cm = ab_cmakeprov_doc_new();
			if (ab_cmakeprov_doc_add(cm, p->vars[vi].v->label, cJSON_Duplicate(rec, 1)) < 0) {
				cJSON_Delete(m);
				cJSON_Delete(cm);
				return -1;
			}
		}
	}
	cJSON_AddItemToObject(docs, "provenance/sources.json", m);
	if (cm)
		cJSON_AddItemToObject(docs, "provenance/cmake-cache-provenance.json", cm);
	return 0;
}

/* resolvedDependencies of the statement: every source fetched for the plan */
static void
add_dependencies(struct ctx *c, cJSON *deps)
{
	const struct ab_plan *p = c->p;

	for (size_t i = 0; i < p->nsteps; i++) {
		const struct ab_source *s = p->steps[i].source;
		cJSON *d, *dg;

		if (p->steps[i].kind != AB_STEP_FETCH)
			continue;
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "name", s->id);
		dg = cJSON_CreateObject();
		if (s->kind == AB_SOURCE_GIT) {
			const char *commit = NULL;

			for (size_t vi = 0; vi < p->nvars && !commit; vi++)
				commit = ab_json_str(ab_json_get(ab_json_get(c->vs[vi].state, "fetched"), s->id),
				    "commit");
			if (!commit)
				commit = ab_json_str(ab_json_get(c->fetched, s->id), "commit");
			if (!commit)
				commit = s->commit;
			char *uri = ab_sprintf("git+%s", s->url);

			cJSON_AddStringToObject(d, "uri", uri);
			free(uri);
			cJSON_AddStringToObject(dg, "gitCommit", commit);
		} else {
			cJSON_AddStringToObject(d, "uri", s->urls.n ? s->urls.v[0] : "");
			cJSON_AddStringToObject(dg, "sha256", s->sha256);
		}
		cJSON_AddItemToObject(d, "digest", dg);
		cJSON_AddItemToArray(deps, d);
	}
}

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

static void
report_probe_problems(const struct ab_plan_var *pv, const cJSON *probe, int *bad)
{
	const cJSON *problems = ab_json_get(probe, "problems"), *it;

	if (!probe || cJSON_IsTrue(ab_json_get(probe, "ok")) || !ab_json_get(probe, "ok"))
		return;
	*bad = 1;
	cJSON_ArrayForEach(it, problems) {
		const char *msg = ab_json_str(it, "message");

		ab_progress_print("allocbuild: %s: probe: %s\n", pv->v->label, msg ? msg : "problem");
	}
	if (!cJSON_GetArraySize(problems))
		ab_progress_print("allocbuild: %s: probe: the allocator's report was not found\n", pv->v->label);
}

int
ab_build_run(const struct ab_plan *p, const struct ab_build_opts *o)
{
	struct ctx c = {0};
	struct rusage self, kids;
	int lockfd = -1, rc = AB_EXIT_USAGE, probe_bad = 0, fetch_failed = 0, e;
	char started[32], finished[32], uuid[37];
	cJSON *run = NULL, *vars;
	double t0 = ab_now();

	c.p = p;
	c.o = o;
	pthread_mutex_init(&c.lock, NULL);
	pthread_cond_init(&c.cond, NULL);
	pthread_mutex_init(&c.source_lock, NULL);
	c.vs = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*c.vs));
	c.fetched = cJSON_CreateObject();
	iso_time(started, sizeof(started), time(NULL));
	random_uuid(uuid);

	if (ab_mkdir_p(p->outdir, 0755) < 0 || ab_build_lock(&lockfd, p->outdir) < 0)
		goto done;
	ab_progress_begin(p->nsteps);
	toolchain(&c);

	/* unpinned sources first: the commit they resolve to enters the keys */
	for (size_t i = 0; i < p->nsteps; i++)
		if (p->steps[i].kind == AB_STEP_FETCH && p->steps[i].source->kind == AB_SOURCE_GIT &&
		    p->steps[i].source->unpinned && fetch_step(&c, &p->steps[i]) < 0) {
			rc = AB_EXIT_CHECK;
			goto done;
		}
	for (size_t vi = 0; vi < p->nvars; vi++) {
		if (compute_key(&c, vi) < 0)
			goto done;
		c.vs[vi].old = load_old_state(&p->vars[vi]);
		decide(&c, vi);
		if (c.vs[vi].need_build) {
			char *sp = state_path(&p->vars[vi]);

			/* from here on the variant is not up to date until it has been built again */
			if (unlink(sp) < 0 && errno != ENOENT) {
				ab_error_errno("cannot remove '%s'", sp);
				free(sp);
				goto done;
			}
			free(sp);
		}
	}
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct ab_step *s = &p->steps[i];
		const struct ab_plan_var *pv = ab_plan_step_var(p, s);
		int needed = 0;

		if (s->kind == AB_STEP_FETCH || s->kind == AB_STEP_UPSTREAM) {
			for (size_t vi = 0; vi < p->nvars && !needed; vi++)
				needed = c.vs[vi].need_build && var_uses(p, &p->vars[vi], s->source);
			if (!needed) {
				ab_progress_skip(i + 1, NULL, s->name, "up to date");
			} else if (s->kind == AB_STEP_FETCH && !ab_json_get(c.fetched, s->source->id)) {
				if (fetch_step(&c, s) < 0) {
					fetch_failed = 1;
					break;
				}
			} else if (s->kind == AB_STEP_UPSTREAM && upstream_tree(&c, s) < 0) {
				fetch_failed = 1;
				break;
			}
		} else if (pv && (s->kind != AB_STEP_PROBE && s->kind != AB_STEP_UPDIFF) &&
		    !c.vs[s->var].need_build) {
			ab_progress_skip(i + 1, pv->v->label, s->name, "up to date");
		}
	}
	if (fetch_failed) {
		rc = AB_EXIT_CHECK;
		goto done;
	}
	/* the fetch records of the sources each variant used */
	for (size_t vi = 0; vi < p->nvars; vi++) {
		cJSON *f;

		if (!c.vs[vi].need_build || p->vars[vi].v->kind != AB_VARIANT_BUILD)
			continue;
		f = cJSON_AddObjectToObject(c.vs[vi].state, "fetched");
		for (size_t i = 0; i < p->nsteps; i++) {
			const struct ab_step *s = &p->steps[i];
			cJSON *rec;

			if (s->kind != AB_STEP_FETCH || !var_uses(p, &p->vars[vi], s->source))
				continue;
			rec = ab_json_get(c.fetched, s->source->id);
			if (rec)
				cJSON_AddItemToObject(f, s->source->id, cJSON_Duplicate(rec, 1));
		}
	}

	if (p->jobserver && ab_jobserver_open(&c.js, p->jobserver) < 0)
		goto done;
	schedule(&c);

	for (size_t vi = 0; vi < p->nvars; vi++) {
		const struct ab_plan_var *pv = &p->vars[vi];
		struct var_state *vs = &c.vs[vi];

		if (vs->status != V_BUILT && vs->status != V_UPTODATE)
			continue;
		if (pv->v->kind == AB_VARIANT_RUNTIME) {
			size_t b = ab_plan_var_index(p, pv->base->label);
			const cJSON *arts = b == AB_PLAN_NONE ? NULL : ab_json_get(c.vs[b].state, "artifacts");

			cJSON_DeleteItemFromObject(vs->state, "artifacts");
			cJSON_AddItemToObject(vs->state, "artifacts", arts ? cJSON_Duplicate(arts, 1) : cJSON_CreateArray());
		}
		if (vs->need_probe) {
			if (probe_variant(&c, vi) < 0) {
				vs->status = V_FAILED;
				c.failed = 1;
				continue;
			}
		} else if (pv->probe_step != AB_PLAN_NONE) {
			ab_progress_skip(pv->probe_step + 1, pv->v->label, "probe", "up to date");
		}
		if (pv->updiff_step != AB_PLAN_NONE && (vs->need_build || !ab_json_get(vs->state, "upstream_diff")) &&
		    updiff_variant(&c, vi) < 0) {
			vs->status = V_FAILED;
			c.failed = 1;
			continue;
		}
		report_probe_problems(pv, ab_json_get(vs->state, "probe"), &probe_bad);
	}

	/* states first: a later run trusts only what is recorded complete */
	vars = cJSON_CreateArray();
	for (size_t vi = 0; vi < p->nvars; vi++) {
		struct var_state *vs = &c.vs[vi];
		int ok = vs->status == V_BUILT || vs->status == V_UPTODATE;

		if (!vs->state)
			vs->state = new_state(&c, vi);
		cJSON_DeleteItemFromObject(vs->state, "ok");
		cJSON_AddBoolToObject(vs->state, "ok", ok);
		if (ok && !ab_json_get(vs->state, "probe_key") && p->vars[vi].probe_step == AB_PLAN_NONE)
			set_string(vs->state, "probe_key", vs->probe_key);
		if (ok && (vs->status == V_BUILT || vs->need_probe)) {
			char *sp = state_path(&p->vars[vi]);

			e = ab_json_write(sp, vs->state);
			free(sp);
			if (e < 0)
				goto done;
		}
		cJSON_AddItemToArray(vars, cJSON_Duplicate(vs->state, 1));
	}
	iso_time(finished, sizeof(finished), time(NULL));
	run = cJSON_CreateObject();
	{
		cJSON *rec = cJSON_AddObjectToObject(run, "recipe"), *opts, *srcs;

		cJSON_AddStringToObject(rec, "name", p->r->name);
		cJSON_AddStringToObject(rec, "path", p->r->path);
		cJSON_AddStringToObject(rec, "sha256", p->r->sha256);
		cJSON_AddStringToObject(run, "outdir", p->outdir);
		cJSON_AddStringToObject(run, "allocbuild_version", AB_VERSION);
		cJSON_AddStringToObject(run, "invocation_id", uuid);
		cJSON_AddStringToObject(run, "started_on", started);
		cJSON_AddStringToObject(run, "finished_on", finished);
		opts = cJSON_AddObjectToObject(run, "options");
		cJSON_AddNumberToObject(opts, "jobs", p->jobs);
		cJSON_AddNumberToObject(opts, "parallel_variants", p->parallel);
		cJSON_AddNumberToObject(opts, "jobserver", p->jobserver);
		cJSON_AddBoolToObject(opts, "ccache", p->ccache);
		cJSON_AddBoolToObject(opts, "keep_going", o->keep_going);
		cJSON_AddBoolToObject(opts, "force", o->force);
		cJSON_AddStringToObject(opts, "source_date_epoch", AB_SOURCE_DATE_EPOCH);
		cJSON_AddItemToObject(run, "toolchain", cJSON_Duplicate(c.toolchain, 1));
		/* every source record: this run's fetches, else what the variants recorded */
		srcs = cJSON_AddObjectToObject(run, "sources");
		for (size_t vi = 0; vi < p->nvars; vi++) {
			const cJSON *f = ab_json_get(c.vs[vi].state, "fetched"), *it;

			cJSON_ArrayForEach(it, f)
				if (!ab_json_get(srcs, it->string))
					cJSON_AddItemToObject(srcs, it->string, cJSON_Duplicate(it, 1));
		}
		cJSON_AddItemToObject(run, "variants", vars);
		add_dependencies(&c, cJSON_AddArrayToObject(run, "dependencies"));
		if (add_documents(&c, cJSON_AddObjectToObject(run, "documents"), srcs) < 0)
			goto done;
	}
	ab_progress_start(p->nsteps, NULL, "manifests");
	e = ab_manifest_write(p->outdir, run);
	ab_progress_end(p->nsteps, e == 0);
	if (e < 0)
		goto done;
	ab_progress_finish();
	if (o->table)
		print_table(&c);
	rc = c.failed ? AB_EXIT_CHECK : probe_bad ? AB_EXIT_CHECK : AB_EXIT_OK;
	if (getenv("ALLOCBUILD_STATS") && getrusage(RUSAGE_SELF, &self) == 0 &&
	    getrusage(RUSAGE_CHILDREN, &kids) == 0) {
		double wall = ab_now() - t0;
		double own = (double)self.ru_utime.tv_sec + (double)self.ru_utime.tv_usec / 1e6 +
		    (double)self.ru_stime.tv_sec + (double)self.ru_stime.tv_usec / 1e6;
		double ch = (double)kids.ru_utime.tv_sec + (double)kids.ru_utime.tv_usec / 1e6 +
		    (double)kids.ru_stime.tv_sec + (double)kids.ru_stime.tv_usec / 1e6;

		fprintf(stderr, "allocbuild: stats: wall %.3fs, own cpu %.3fs (%.2f%% of wall), children cpu %.3fs\n",
		    wall, own, wall > 0 ? 100.0 * own / wall : 0.0, ch);
	}
done:
	ab_progress_finish();
	for (size_t vi = 0; vi < p->nvars; vi++) {
		cJSON_Delete(c.vs[vi].state);
		cJSON_Delete(c.vs[vi].old);
	}
	free(c.vs);
	cJSON_Delete(run);
	cJSON_Delete(c.fetched);
	cJSON_Delete(c.toolchain);
	ab_jobserver_free(c.js);
	if (lockfd >= 0)
		close(lockfd);
	return rc;
}

/* ---- the final table ---- */

static const char *
nested_str(const cJSON *o, const char *a, const char *b, char *buf, size_t len)
{
	const cJSON *it = ab_json_get(o, a);

	if (b)
		it = ab_json_get(it, b);
	if (cJSON_IsString(it))
		return it->valuestring[0] ? it->valuestring : "\"\"";
	if (cJSON_IsNumber(it)) {
		snprintf(buf, len, "%g", it->valuedouble);
		return buf;
	}
	return "-";
}

static void
print_table(struct ctx *c)
{
	static const char *head[] = {"LABEL", "KIND", "ALLOCATOR VERSION", "CONFIG.MALLOC_CONF",
	    "LG_EXTENT_MAX_ACTIVE_FIT", "QUANTUM", "ARCHIVE SHA256"};
	enum { NCOL = 7 };
	const struct ab_plan *p = c->p;
	char ***cells = ab_calloc(p->nvars + 1, sizeof(*cells));
	size_t w[NCOL] = {0};

	for (size_t r = 0; r <= p->nvars; r++) {
		cells[r] = ab_calloc(NCOL, sizeof(**cells));
		if (r == 0) {
			for (int k = 0; k < NCOL; k++)
				cells[r][k] = ab_strdup(head[k]);
		} else {
			const struct ab_variant *v = p->vars[r - 1].v;
			const cJSON *st = c->vs[r - 1].state, *probe = ab_json_get(st, "probe"), *it;
			const cJSON *from = v->kind == AB_VARIANT_RELINK ? c->vs[ab_plan_var_index(p, v->relink.from)].state : NULL;
			const char *version = ab_json_str(probe, "version"), *archive = "-";
			const char *sha = ab_manifest_archive_sha256(st, from);
			char buf[64], buf2[64], shortsha[16];

			cJSON_ArrayForEach(it, ab_json_get(st, "artifacts"))
				if (!version)
					version = ab_json_str(it, "allocator_version");
			if (sha) {
				snprintf(shortsha, sizeof(shortsha), "%.12s", sha);
				archive = shortsha;
			}
			if (!cJSON_IsTrue(ab_json_get(st, "ok")))
				version = "(not built)";
			cells[r][0] = ab_strdup(v->label);
			/* the table says what a relink is, as the manifests and the PR do */
			cells[r][1] = ab_strdup(v->kind == AB_VARIANT_RELINK ? "diagnostic relink" : ab_plan_kind_name(v));
			cells[r][2] = ab_strdup(version ? version : "-");
			cells[r][3] = ab_strdup(nested_str(probe, "config", "malloc_conf", buf, sizeof(buf)));
			cells[r][4] = ab_strdup(nested_str(probe, "effective", "lg_extent_max_active_fit", buf, sizeof(buf)));
			cells[r][5] = ab_strdup(nested_str(probe, "quantum", NULL, buf2, sizeof(buf2)));
			cells[r][6] = ab_strdup(archive);
		}
		for (int k = 0; k < NCOL; k++)
			if (strlen(cells[r][k]) > w[k])
				w[k] = strlen(cells[r][k]);
	}
	for (size_t r = 0; r <= p->nvars; r++) {
		for (int k = 0; k < NCOL; k++) {
			if (k < NCOL - 1)
				printf("%-*s  ", (int)w[k], cells[r][k]);
			else
				printf("%s\n", cells[r][k]);
			free(cells[r][k]);
		}
		free(cells[r]);
	}
	free(cells);
}
