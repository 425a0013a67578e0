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

#include "../lib/atomic.h"
#include "../lib/dirwalk.h"
#include "../lib/hash.h"
#include "../lib/jobserver.h"
#include "../lib/jsonio.h"
#include "../lib/proc.h"
#include "../lib/progress.h"
#include "../lib/version.h"
#include "../provenance/alloc/allocver.h"
#include "../provenance/tree/artdiff.h"
#include "../provenance/record/cargoprov.h"
#include "../provenance/record/ccstats.h"
#include "../provenance/record/cmakeprov.h"
#include "../provenance/alloc/hostprobe.h"
#include "../provenance/record/manifest.h"
#include "../provenance/probe/probe.h"
#include "../provenance/record/record.h"
#include "../provenance/runs/runrec.h"
#include "../provenance/record/toolchain.h"
#include "../provenance/tree/updiff.h"
#include "cargo.h"
#include "ccwrap.h"
#include "inputs.h"
#include "isolation.h"
#include "relink.h"

#define KEY_FORMAT "allocbuild-variant-key 1"
#define TAIL_LINES 30

enum var_status { V_PENDING, V_RUNNING, V_BUILT, V_UPTODATE, V_FAILED, V_SKIPPED };

/* the scheduling state of a variant; what it records is its ab_variant_record */
struct var_state {
	enum var_status status;
	char key[AB_HEX_LEN + 1];       /* build inputs */
	char probe_key[AB_HEX_LEN + 1]; /* build key plus the runtime environment */
	int need_build, need_probe;
	int updiffed;                   /* its upstream diff was made again in this run */
	int rebuilt;                    /* its binary is built again in this run (runtime_of: its base's) */
	pthread_t thread;
	int joined;
};

struct ctx {
	const struct ab_plan *p;
	const struct ab_build_opts *o;
	struct ab_run_record run;    /* run.variants[vi] is the record of p->vars[vi] */
	struct var_state *vs;
	struct ab_fetch_record **fetched; /* by the recipe's source index: the fetch record of this run, or NULL */
	cJSON *tools;                /* the toolchain record of this run (provenance/record/toolchain.h) */
	char toolchain_key[AB_HEX_LEN + 1];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_mutex_t source_lock; /* the source module is driven by one thread at a time */
	struct ab_jobserver *js;     /* shared by the make-based build steps, or NULL */
	struct ab_manifest_last *last; /* the last run's manifests, while deciding what is up to date */
	struct ab_netfwd *net;       /* the remote compile cache's forwarder, for sandboxed builds */
	int running, failed;
	int kept;                    /* nothing changed: the OUTDIR's manifests (and signatures) were kept */
	int unsigned_;               /* the signatures of the OUTDIR were removed with its old statement */
	double child_seconds;
};

static struct ab_variant_record *
record_of(struct ctx *c, size_t vi)
{
	return &c->run.variants[vi];
}

/* was p->vars[vi] compiled in this run (not up to date, not failed)? */
static int
compiled_now(const struct ctx *c, size_t vi)
{
	return c->vs[vi].status == V_BUILT && c->vs[vi].need_build;
}

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
fill_env(struct ab_env *env, const struct ab_plan_var *pv)
{
	/* a sandboxed step has an environment of its own: nothing of the caller's */
	if (pv && pv->sandboxed)
		ab_env_sandboxed(env);
	else
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
		return AB_EFAIL;
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
		return AB_EFAIL;
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

/*
 * Run argv quietly in the children's environment (that of the first
 * variant: they differ only in per-variant paths); its stdout into out.
 * 1 when it ran and exited 0 with output, else 0 (a missing tool is no
 * error: its absence is recorded).
 */
static void
tool_env(struct ctx *c, struct ab_env *env)
{
	fill_env(env, c->p->nvars ? &c->p->vars[0] : NULL);
	/* run here, not in the sandbox: ccache's cache as the sandbox's binds show it */
	if (c->p->ccache_real && ab_env_get(env, "CCACHE_DIR"))
		ab_env_set(env, "CCACHE_DIR", c->p->ccache_real);
}

static int
run_tool(struct ctx *c, char **argv, struct ab_buf *out)
{
	struct ab_proc pr = {.argv = argv};
	struct ab_proc_result res;
	struct ab_buf err = {0};
	struct ab_env env;
	int ok;

	tool_env(c, &env);
	pr.envp = ab_env_envp(&env);
	pr.out = out;
	pr.err = &err;
	ab_report_mute();
	ok = ab_proc_run(&res, &pr) == 0 && res.exit_code == 0 && out->s;
	ab_report_unmute();
	ab_buf_free(&err);
	ab_env_release(&env);
	return ok;
}

/* the tool's identity (provenance/record/toolchain.h) into the run record and the key */
static void
tool_identity(struct ctx *c, struct ab_sha256 *h, const char *name)
{
	struct ab_env env;
	const struct ab_tool_id *t;

	tool_env(c, &env);
	ab_tool_ids_add(&c->run.toolchain, name, ab_env_envp(&env));
	ab_env_release(&env);
	t = &c->run.toolchain.v[c->run.toolchain.n - 1];
	key_add(h, name, t->version ? t->sha256 : "missing");
}

/* ccache's setting key in the children's environment (its ccache.conf too): the value, or NULL when empty */
static char *
ccache_get(struct ctx *c, const char *key)
{
	char *argv[] = {"ccache", "--get-config", (char *)key, NULL};
	struct ab_buf out = {0};
	char *v = NULL;

	if (run_tool(c, argv, &out) && out.s[0] != '\n' && out.s[0])
		v = ab_strndup(out.s, strcspn(out.s, "\n"));
	ab_buf_free(&out);
	return v;
}

/* the local cache and the remote storage the compiles use, as ccache resolves them, for the records */
static void
ccache_config(struct ctx *c)
{
	char *remote = ccache_get(c, "remote_storage");

	c->run.options.ccache_dir = ccache_get(c, "cache_dir");
	/* a sandboxed ccache is told the forwarder's loopback address: the record says the remote's */
	if (c->p->ccache_remote_inside) {
		free(remote);
		remote = ab_strdup(c->p->ccache_remote);
	}
	c->run.options.ccache_remote = remote ? ab_ccstats_redact(remote) : NULL;
	free(remote);
}

/*
 * The tools, versions and packages of the record enter the key too: a new
 * binutils or libc6-dev rebuilds, as a new compiler does
 */
static int
toolchain_record(struct ctx *c, struct ab_sha256 *h, int cargo)
{
	/* the tools the steps find: in the sandbox through its own PATH, whatever the caller's */
	struct ab_toolchain_opts o = {.path = AB_SANDBOX_PATH};
	char *cache = ab_path_join(c->p->outdir, ".toolchain.json");
	const cJSON *it;
	int e;

	for (size_t i = 0; i < c->p->nvars; i++)
		if (!c->p->vars[i].sandboxed)
			o.path = getenv("PATH");

	o.cache = cache;
	e = ab_toolchain_record(&c->tools, &o);
	free(cache);
	if (e < 0)
		return e;
	cJSON_ArrayForEach(it, c->tools) {
		/* cargo's tools key only plans with a cargo variant: a rustup install rebuilds no C variant */
		if (!cargo && ab_toolchain_only(ab_json_str(it, "name"), "cargo"))
			continue;
		key_add(h, "tool", ab_json_str(it, "name"));
		key_add(h, "file", ab_json_str(it, "file"));
		key_add(h, "version", ab_json_str(it, "version"));
		key_add(h, "package_version", ab_json_str(it, "package_version"));
	}
	return 0;
}

static int
toolchain(struct ctx *c)
{
	struct ab_sha256 *h = ab_sha256_new();
	int cmake = 0, cargo = 0, e;

	for (size_t i = 0; i < c->p->nvars; i++) {
		const struct ab_variant *v = c->p->vars[i].v;

		cmake |= v->kind == AB_VARIANT_BUILD && v->build.system == AB_BUILD_CMAKE;
		cargo |= v->kind == AB_VARIANT_BUILD && v->build.system == AB_BUILD_CARGO;
	}
	tool_identity(c, h, "cc");
	tool_identity(c, h, "make");
	if (cmake) {
		tool_identity(c, h, "c++");
		tool_identity(c, h, "cmake");
	}
	if (cargo) {
		tool_identity(c, h, "cargo");
		tool_identity(c, h, "rustc");
	}
	if (c->p->ccache) {
		tool_identity(c, h, "ccache");
		ccache_config(c);
	}
	e = toolchain_record(c, h, cargo);
	ab_sha256_final(c->toolchain_key, h);
	return e;
}

/* ---- content keys ---- */

/* what a source's tree is made from, overlays included */
struct key_walk {
	struct ctx *c;
	struct ab_sha256 *h;
};

/* this run's fetch record of source s, or NULL */
static const struct ab_fetch_record *
fetched_of(const struct ctx *c, const struct ab_source *s)
{
	return c->fetched[s - c->p->r->sources];
}

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
		const struct ab_fetch_record *rec = fetched_of(kw->c, s);
		const char *commit = rec ? rec->commit : NULL;

		key_add(h, "git", s->url);
		key_add(h, "commit", commit ? commit : s->commit);
	} else if (s->kind == AB_SOURCE_DIR) {
		key_add(h, "dir", s->dir);
		key_add(h, "dirHash", s->dirhash);
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

/*
 * An environment entry of the key. PATH is the inherited one behind the
 * directories the plan puts first: only those enter the key (which tools
 * PATH finds is in the toolchain's identity), so another shell's PATH
 * rebuilds nothing. Nor do the compile cache's location and statistics log.
 */
static void
key_add_env(struct ab_sha256 *h, const char *kv)
{
	const char *path = getenv("PATH");
	size_t n = strlen(kv), pn = path ? strlen(path) : 0;

	/* where the compile cache lives decides no byte of the output: another cache rebuilds nothing */
	if (!strncmp(kv, "CCACHE_DIR=", 11) || !strncmp(kv, "CCACHE_REMOTE_STORAGE=", 22) ||
	    !strncmp(kv, "CCACHE_STATSLOG=", 16))
		return;
	if (!strncmp(kv, "PATH=", 5) && pn && n >= 5 + pn && !strcmp(kv + n - pn, path)) {
		char *prefix = ab_strndup(kv, n - pn);

		key_add(h, "env", prefix);
		free(prefix);
		return;
	}
	key_add(h, "env", kv);
}

/* a tool the recipe names by path: its bytes (PATH's tools are in the toolchain key) */
static void
key_tool(struct ab_sha256 *h, const char *name, const char *path)
{
	char hex[AB_HEX_LEN + 1] = "missing";

	if (!path)
		return;
	ab_report_mute();
	if (ab_hash_file(hex, NULL, path) < 0)
		snprintf(hex, sizeof(hex), "missing");
	ab_report_unmute();
	key_add(h, name, path);
	key_add(h, "sha256", hex);
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
	/*
	 * In the sandbox a variant's directories always have the same names,
	 * and ccache hands the compiler what it would get without it: neither
	 * where OUTDIR is nor --ccache changes the bytes, so neither is an input
	 */
	key_add(h, "dir", pv->sandboxed ? AB_FIXED_ROOT : pv->dir);
	key_add(h, "kind", ab_plan_kind_name(v));
	key_add(h, "toolchain", c->toolchain_key);
	snprintf(ccache, sizeof(ccache), "%d", pv->sandboxed ? 0 : p->ccache);
	key_add(h, "ccache", ccache);
	for (size_t i = 0; i < pv->env.n; i++)
		key_add_env(h, pv->env.v[i]);
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
		if (v->build.system == AB_BUILD_CARGO) {
			key_add(h, "profile", v->build.profile ? v->build.profile : "");
			for (size_t i = 0; i < v->build.features.n; i++)
				key_add(h, "feature", v->build.features.v[i]);
			for (size_t i = 0; i < v->build.bins.n; i++)
				key_add(h, "bin", v->build.bins.v[i]);
			key_add(h, "vendor", v->build.vendor ? v->build.vendor : "");
			key_tool(h, "cargo", v->build.cargo);
			key_tool(h, "rustc", v->build.rustc);
		}
		/* what it uses of other variants: their keys (built before it: the plan's order) */
		for (size_t i = 0; i < v->nuses; i++) {
			key_add(h, "uses", v->uses[i].label);
			key_add(h, "uses-key", c->vs[pv->uses_vi[i]].key);
			key_add(h, "uses-artifact", v->uses[i].path);
		}
		if (ab_recipe_overlay_walk(p->r, ab_recipe_source(p->r, v->source), key_source, NULL,
		    &(struct key_walk){c, h}) < 0) {
			char junk[AB_HEX_LEN + 1];

			ab_sha256_final(junk, h);
			return AB_EFAIL;
		}
		break;
	case AB_VARIANT_RELINK:
		key_add(h, "from", c->vs[pv->from_vi].key);
		key_add(h, "link_txt", v->relink.link_txt);
		key_add(h, "output", v->relink.output);
		for (size_t i = 0; i < v->relink.nreplace; i++) {
			key_add(h, "replace", v->relink.replace[i].path);
			key_add(h, "with", c->vs[pv->with_vi[i]].key);
			key_add(h, "artifact", v->relink.replace[i].with_artifact);
		}
		break;
	case AB_VARIANT_RUNTIME:
		key_add(h, "base", c->vs[pv->base_vi].key);
		break;
	}
	ab_sha256_final(c->vs[vi].key, h);

	h = ab_sha256_new();
	key_add(h, "build", c->vs[vi].key);
	key_add(h, "allocator", pv->alloc_from->allocator.kind);
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
	/* a new expectation is checked by a new probe; none leaves the key as it always was */
	if (v->expect.present) {
		char t[32];

		key_add(h, "expect-version", v->expect.version ? v->expect.version : "");
		snprintf(t, sizeof(t), "%d", v->expect.secure);
		key_add(h, "expect-secure", t);
		for (size_t i = 0; i < v->expect.options.n; i++) {
			key_add(h, "expect-option", v->expect.options.v[i].key);
			key_add(h, "value", v->expect.options.v[i].value);
		}
	}
	ab_sha256_final(c->vs[vi].probe_key, h);
	return 0;
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
		ar->path = rel_to_outdir(c->p, abs);
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

/* a log's text split into lines (pointers into the text, which stays owned by the caller) */
struct log_lines {
	const char **v;
	size_t *len;
	size_t n;
};

static void
split_lines(struct log_lines *l, const char *text, size_t size)
{
	size_t cap = 64;

	l->v = ab_malloc(cap * sizeof(*l->v));
	l->len = ab_malloc(cap * sizeof(*l->len));
	l->n = 0;
	for (const char *s = text; s < text + size;) {
		size_t n = strcspn(s, "\n");

		if (l->n == cap) {
			cap *= 2;
			l->v = ab_realloc(l->v, cap * sizeof(*l->v));
			l->len = ab_realloc(l->len, cap * sizeof(*l->len));
		}
		l->v[l->n] = s;
		l->len[l->n++] = n;
		s += n + (s[n] == '\n');
	}
}

/* does the line say what went wrong (rather than that something did)? */
static int
error_line(const char *s, size_t n, int *make_seen)
{
	static const char *const words[] = {"error:", "Error:", "not found", "No such file", "undefined reference",
	    "cannot find"};
	char *line = ab_strndup(s, n);
	int hit = 0;

	for (size_t i = 0; i < AB_NELEM(words) && !hit; i++)
		hit = strstr(line, words[i]) != NULL;
	/* make's "***" lines cascade up every parent: only the first one tells */
	if (!hit && strstr(line, "***") && !*make_seen)
		hit = *make_seen = 1;
	free(line);
	return hit;
}

/*
 * The first lines of a failed step's log that say what went wrong, with
 * the lines just before each, when they lie before the tail that follows
 * them: the tail of a parallel make is the cascade of "Error 2" lines, not
 * the cause (a configure "not found" on line 12 of 224)
 */
#define FIRST_ERRORS 5
#define ERROR_CONTEXT 2
static void
first_errors(struct ab_buf *o, const struct log_lines *l, size_t tail_start)
{
	size_t shown_to = 0, found = 0;
	int make_seen = 0;

	for (size_t i = 0; i < tail_start && found < FIRST_ERRORS; i++) {
		if (!error_line(l->v[i], l->len[i], &make_seen))
			continue;
		if (!found++)
			ab_buf_puts(o, "  first errors in the log:\n");
		for (size_t k = i > ERROR_CONTEXT ? i - ERROR_CONTEXT : 0; k <= i; k++)
			if (k >= shown_to) {
				ab_buf_printf(o, "| %zu: ", k + 1);
				ab_buf_add_text(o, l->v[k], l->len[k]);
				ab_buf_putc(o, '\n');
				shown_to = k + 1;
			}
	}
	if (found)
		ab_buf_printf(o, "  last %d lines of the log:\n", TAIL_LINES);
}

static void
print_tail(const char *log)
{
	struct ab_buf b = {0}, o = {0};
	struct log_lines l;
	size_t start;

	if (ab_read_file(&b, log) < 0)
		return;
	split_lines(&l, b.s, b.len);
	start = l.n > TAIL_LINES ? l.n - TAIL_LINES : 0;
	first_errors(&o, &l, start);
	for (size_t i = start; i < l.n; i++) {
		ab_buf_puts(&o, "| ");
		ab_buf_add_text(&o, l.v[i], l.len[i]);
		ab_buf_putc(&o, '\n');
	}
	ab_progress_print("%s", o.s ? o.s : "");
	ab_buf_free(&o);
	free(l.v);
	free(l.len);
	ab_buf_free(&b);
}

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
	    "directories and the variant's own trees; docs/build.md, \"Sandbox\")" : "", s->log, TAIL_LINES);
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

/*
 * The variant's directories that a sandboxed step's binds show exist
 * before it starts (bwrap needs them); the others (the ccache, the
 * forwarder's sockets) are made once by the build
 */
static int
sandbox_dirs(const struct ab_plan *p, const struct ab_plan_var *pv)
{
	size_t n = strlen(p->outdir);

	if (!pv->sandboxed)
		return 0;
	for (size_t i = 0; i < pv->sb.nops; i++) {
		const struct ab_sandbox_op *op = &pv->sb.ops[i];

		if (op->kind == AB_SB_BIND && !strncmp(op->real, p->outdir, n) && op->real[n] == '/' &&
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
	env_set = step_env(&env, &hdr, fds, c, s);
	if (s->jobserver) {
		pr.keep_fds = fds;
		pr.nkeep_fds = 2;
	}
	ab_buf_printf(&hdr, "$ %s\n", q);
	if (sandbox_dirs(c->p, pv) < 0 || (!pv->sandboxed && ab_mkdir_p(s->cwd, 0755) < 0) ||
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
	cJSON_AddItemToArray(vr->steps, srec);
	cJSON_Delete(vr->tree);
	vr->tree = rec;
	free(rel);
	return e < 0 ? AB_ECHECK : 0;
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
	fill_env(&env, pv);
	spec.link_txt = link_txt;
	spec.replace = rep;
	spec.nreplace = v->relink.nreplace;
	spec.output = output;
	spec.env = &env;
	spec.log_path = s->log;
	spec.tool = AB_TOOL;
	spec.sandbox = pv->sandboxed ? &pv->sb : NULL;
	/* the proof that the relink changes only the replaced inputs: the unchanged
	   command, linked again, must reproduce the normal binary */
	spec.check_normal = 1;
	ab_progress_start(n, v->label, s->name);
	e = sandbox_dirs(c->p, pv);
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
	char *log = ab_path_join(pv->logs, AB_CCSTATS_LOG), *rel = rel_to_outdir(p, log);
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

	free(vr->compile_log);
	vr->compile_log = ab_path_exists(log) ? rel_to_outdir(p, log) : NULL;
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
	struct ab_variant_record *vr = record_of(c, vi);

	cJSON_Delete(vr->steps);
	vr->steps = cJSON_CreateArray();
	cJSON_Delete(vr->ccache);
	vr->ccache = NULL;
	if (ab_rm_rf(pv->src) < 0 || ab_rm_rf(pv->build) < 0 || ab_rm_rf(pv->logs) < 0 ||
	    ab_rm_rf(pv->probe) < 0 || ab_mkdir_p(pv->logs, 0755) < 0)
		return AB_EFAIL;
	for (size_t i = pv->first_step; i < pv->first_step + pv->nsteps; i++) {
		const struct ab_step *s = &p->steps[i];
		int e = 0;

		switch (s->kind) {
		case AB_STEP_SOURCE:
			e = source_step(c, pv, s, vr);
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
/* the version in the bytes of the allocator archive that a relink put into the link, or NULL */
static const char *
relink_replacement_version(struct ctx *c, const struct ab_plan_var *rl)
{
	for (size_t i = 0; i < rl->v->relink.nreplace; i++) {
		const struct ab_replace *rp = &rl->v->relink.replace[i];
		const struct ab_variant_record *w = rl->with_vi[i] == AB_PLAN_NONE ? NULL : record_of(c, rl->with_vi[i]);

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
	const struct ab_cargo_record *cargo = bi == AB_PLAN_NONE ? NULL : record_of(c, bi)->cargo;
	char *from;

	if (!cargo || !cargo->jemalloc.crate || !res->allocator || strcmp(res->allocator, "jemalloc"))
		return;
	from = ab_sprintf("crate %s %s, %s", cargo->jemalloc.crate, cargo->jemalloc.crate_version,
	    cargo->jemalloc.file);
	ab_probe_result_bundled(res, cargo->jemalloc.version, from);
	free(from);
}

static int
probe_variant(struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];
	const struct ab_step *s = &p->steps[pv->probe_step];
	struct var_state *vs = &c->vs[vi];
	struct ab_variant_record *vr = record_of(c, vi);
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
	if (ab_mkdir_p(pv->probe, 0755) == 0 && sandbox_dirs(c->p, pv) == 0) {
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
	struct ab_variant_record *vr = record_of(c, vi);
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
			return AB_ECHECK;
	}
	cJSON_Delete(vr->upstream_diff);
	vr->upstream_diff = rec;
	vr->updiff_new = 1;
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
				ab_error("%s: skipped: a variant it depends on failed", pv->v->label);
				progress = 1;
				continue;
			}
			/* its lead first: a variant waiting for it must not hold the only slot */
			if (pv->lead != AB_PLAN_NONE && c->vs[pv->lead].status == V_PENDING)
				ready = 0;
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
			ab_error("%s: not built: stopped after a failure (use --keep-going)", p->vars[vi].v->label);
		}
	pthread_mutex_unlock(&c->lock);
	for (size_t vi = 0; vi < p->nvars; vi++)
		if (c->vs[vi].thread && !c->vs[vi].joined) {
			pthread_join(c->vs[vi].thread, NULL);
			c->vs[vi].joined = 1;
		}
}

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
		char *wrap = pv->sandboxed ? ab_strdup(AB_FIXED_CCWRAP) : rel_to_outdir(p, p->ccwrap);
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
static void
record_init(struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];
	const struct ab_variant *v = pv->v;
	struct ab_variant_record *vr = record_of(c, vi);

	vr->label = ab_strdup(v->label);
	vr->kind = ab_strdup(ab_plan_kind_name(v));
	vr->base = ab_strdup(pv->base->label);
	memcpy(vr->key, c->vs[vi].key, sizeof(vr->key));
	vr->dir = rel_to_outdir(p, pv->dir);
	vr->artifact_dir = rel_to_outdir(p, pv->artdir);
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
	/* the tools a build or relink ran; a runtime_of runs none */
	if (v->kind == AB_VARIANT_BUILD)
		vr->toolchain = ab_toolchain_select(c->tools, ab_plan_kind_name(v));
	/* the cargo and rustc a recipe names, instead of PATH's */
	if (v->kind == AB_VARIANT_BUILD && v->build.cargo)
		ab_toolchain_replace(vr->toolchain, "cargo", v->build.cargo);
	if (v->kind == AB_VARIANT_BUILD && v->build.rustc)
		ab_toolchain_replace(vr->toolchain, "rustc", v->build.rustc);
	else if (v->kind == AB_VARIANT_RELINK)
		vr->toolchain = ab_toolchain_select(c->tools, NULL);
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
static cJSON *
definition_json(const struct ab_variant *v)
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
	struct ab_variant_record *vr = record_of(c, vi);
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
		record_init(c, vi);
	}
	vr->definition = definition_json(pv->v);
	if (pv->v->kind == AB_VARIANT_RUNTIME && old && !vs->need_probe) {
		ab_variant_record_set_probe(vr, old->probe);
		old->probe = NULL;
		memcpy(vr->probe_key, vs->probe_key, sizeof(vr->probe_key));
	}
}

/* the keys of every variant, what is up to date; a variant to build loses its state.json */
static int
decide_all(struct ctx *c)
{
	const struct ab_plan *p = c->p;
	int error = 0;

	c->last = ab_manifest_last_load(p->outdir);
	for (size_t vi = 0; vi < p->nvars && !error; vi++) {
		struct ab_variant_record *old = NULL;
		char *sp;
		int e = 0;

		if (compute_key(c, vi) < 0) {
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
static int
fetch_unpinned(struct ctx *c)
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
static int
fetch_needed(struct ctx *c)
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
			} else if (s->kind == AB_STEP_FETCH && !fetched_of(c, s->source)) {
				int e = fetch_step(c, s);

				if (e < 0)
					return e;
			} else if (s->kind == AB_STEP_UPSTREAM && upstream_tree(c, s) < 0) {
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
static void
record_fetched(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	for (size_t vi = 0; vi < p->nvars; vi++) {
		struct ab_variant_record *vr = record_of(c, vi);

		if (!c->vs[vi].need_build || p->vars[vi].v->kind != AB_VARIANT_BUILD)
			continue;
		ab_fetch_set_release(&vr->fetched);
		vr->fetched.present = 1;
		for (size_t i = 0; i < p->nsteps; i++) {
			const struct ab_step *s = &p->steps[i];
			const struct ab_fetch_record *rec;

			if (s->kind != AB_STEP_FETCH || !var_uses(p, &p->vars[vi], s->source))
				continue;
			rec = fetched_of(c, s->source);
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
static void
check_variants(struct ctx *c, int *probe_bad)
{
	const struct ab_plan *p = c->p;

	for (size_t vi = 0; vi < p->nvars; vi++) {
		const struct ab_plan_var *pv = &p->vars[vi];
		struct var_state *vs = &c->vs[vi];
		struct ab_variant_record *vr = record_of(c, vi);

		if (vs->status != V_BUILT && vs->status != V_UPTODATE)
			continue;
		if (pv->v->kind == AB_VARIANT_RUNTIME) {
			size_t b = pv->base_vi;

			ab_variant_record_copy_artifacts(vr, b == AB_PLAN_NONE ? NULL : record_of(c, b));
		}
		if (vs->need_probe) {
			if (probe_variant(c, vi) < 0) {
				vs->status = V_FAILED;
				c->failed = 1;
				continue;
			}
		} else if (pv->probe_step != AB_PLAN_NONE) {
			ab_progress_skip(pv->probe_step + 1, pv->v->label, "probe", "up to date");
		}
		if (pv->updiff_step != AB_PLAN_NONE && (vs->need_build || !vr->upstream_diff) &&
		    (vs->updiffed = 1, updiff_variant(c, vi) < 0)) {
			vs->status = V_FAILED;
			c->failed = 1;
			continue;
		}
		report_probe_problems(pv, vr, probe_bad);
	}
}

/* ok, and state.json of what was built or probed: a later run trusts only what is recorded complete */
static int
write_states(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	for (size_t vi = 0; vi < p->nvars; vi++) {
		struct var_state *vs = &c->vs[vi];
		struct ab_variant_record *vr = record_of(c, vi);
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

static void
run_init(struct ctx *c)
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
		const struct ab_fetch_set *f = &record_of(c, vi)->fetched;

		for (size_t i = 0; i < f->n; i++)
			if (!ab_fetch_set_get(&c->run.sources, f->v[i].id))
				ab_fetch_set_put(&c->run.sources, f->v[i].id, ab_fetch_record_copy(f->v[i].rec));
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

static int
have_dependency(const struct ab_run_record *run, const char *name, const char *digest)
{
	for (size_t i = 0; i < run->ndeps; i++)
		if (!strcmp(run->deps[i].name, name) && !strcmp(run->deps[i].digest, digest))
			return 1;
	return 0;
}

/*
 * A cargo variant's Cargo.lock and every crate it locked, each once: by
 * its checksum when it has one, else by the dirHash of the crate's
 * directory (Debian's crates have no checksum)
 */
static void
cargo_dependencies(struct ab_run_record *run, const struct ab_cargo_record *cargo, const char *label)
{
	if (!cargo)
		return;
	if (!have_dependency(run, "Cargo.lock", cargo->lock_sha256)) {
		struct ab_dependency *d = &run->deps[run->ndeps++];

		d->name = ab_strdup("Cargo.lock");
		d->digest_kind = "sha256";
		d->digest = ab_strdup(cargo->lock_sha256);
		d->used_by = ab_strdup(label);
	}
	for (size_t i = 0; i < cargo->ncrates; i++) {
		const struct ab_cargo_crate *cr = &cargo->crates[i];
		const char *name = cr->name, *version = cr->version;
		int valid = cr->checksum_valid;
		const char *digest = valid ? cr->checksum : cr->dirhash;
		char *dn;

		if (!digest)
			continue;
		dn = ab_sprintf("crate %s %s", name, version);
		if (!have_dependency(run, dn, digest)) {
			struct ab_dependency *d = &run->deps[run->ndeps++];

			d->name = dn;
			d->uri = ab_sprintf("pkg:cargo/%s@%s", name, version);
			d->digest_kind = valid ? "sha256" : "dirHash";
			d->digest = ab_strdup(digest);
			dn = NULL;
		}
		free(dn);
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
	size_t room = p->nsteps + 1;

	for (size_t vi = 0; vi < c->run.nvariants; vi++)
		room += c->run.variants[vi].nuses + 1 +
		    (c->run.variants[vi].cargo ? c->run.variants[vi].cargo->ncrates : 0);
	c->run.deps = ab_calloc(room, sizeof(*c->run.deps));
	for (size_t i = 0; i < p->nsteps; i++) {
		const struct ab_source *s = p->steps[i].source;
		struct ab_dependency *d;

		if (p->steps[i].kind != AB_STEP_FETCH)
			continue;
		d = &c->run.deps[c->run.ndeps++];
		d->name = ab_strdup(s->id);
		if (s->kind == AB_SOURCE_GIT) {
			const char *commit = NULL;

			for (size_t vi = 0; vi < p->nvars && !commit; vi++) {
				const struct ab_fetch_record *f = ab_fetch_set_get(&record_of(c, vi)->fetched, s->id);

				commit = f ? f->commit : NULL;
			}
			if (!commit && fetched_of(c, s))
				commit = fetched_of(c, s)->commit;
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
	for (size_t vi = 0; vi < c->run.nvariants; vi++) {
		const struct ab_variant_record *vr = &c->run.variants[vi];

		for (size_t u = 0; u < vr->nuses; u++) {
			struct ab_dependency *d;

			if (!vr->uses[u].path)
				continue;
			d = &c->run.deps[c->run.ndeps++];
			d->name = ab_strdup(vr->uses[u].path);
			d->digest_kind = "sha256";
			d->digest = ab_strdup(vr->uses[u].sha256);
			d->used_by = ab_strdup(vr->label);
		}
	}
	for (size_t vi = 0; vi < c->run.nvariants; vi++)
		cargo_dependencies(&c->run, c->run.variants[vi].cargo, c->run.variants[vi].label);
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
		const struct ab_variant_record *vr = record_of(c, vi);

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
static int
manifests(struct ctx *c)
{
	ab_utc_time(c->run.finished_on, sizeof(c->run.finished_on), time(NULL));
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

static int
write_manifests(struct ctx *c)
{
	const struct ab_plan *p = c->p;
	char *env;
	int e, was_signed;

	if (nothing_changed(c)) {
		c->kept = 1;
		ab_progress_skip(p->nsteps, NULL, "manifests", "up to date");
		return 0;
	}
	env = ab_path_join(p->outdir, AB_MANIFEST_ENVELOPES);
	was_signed = ab_path_exists(env);
	free(env);
	ab_progress_start(p->nsteps, NULL, "manifests");
	e = ab_inputs_save(&c->run.inputs, p->r, &c->run, p->outdir);
	if (e == 0)
		e = manifests(c);
	ab_progress_end(p->nsteps, e == 0);
	if (e == 0 && was_signed) {
		c->unsigned_ = 1;
		ab_warn("the OUTDIR's statement changed: its signatures (%s) signed the old one and are removed; "
		    "sign it again (allocbuild sign --signing-key KEY.pem OUTDIR)", AB_MANIFEST_ENVELOPES);
	}
	return e;
}

/* ---- the run ---- */

static void
print_stats(double t0)
{
	struct rusage self, kids;
	double wall = ab_now() - t0, own, ch;

	if (!getenv("ALLOCBUILD_STATS") || getrusage(RUSAGE_SELF, &self) < 0 || getrusage(RUSAGE_CHILDREN, &kids) < 0)
		return;
	own = (double)self.ru_utime.tv_sec + (double)self.ru_utime.tv_usec / 1e6 +
	    (double)self.ru_stime.tv_sec + (double)self.ru_stime.tv_usec / 1e6;
	ch = (double)kids.ru_utime.tv_sec + (double)kids.ru_utime.tv_usec / 1e6 +
	    (double)kids.ru_stime.tv_sec + (double)kids.ru_stime.tv_usec / 1e6;
	ab_note("stats: wall %.3fs, own cpu %.3fs (%.2f%% of wall), children cpu %.3fs", wall, own,
	    wall > 0 ? 100.0 * own / wall : 0.0, ch);
}

static void
ctx_init(struct ctx *c, const struct ab_plan *p, const struct ab_build_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->p = p;
	c->o = o;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	pthread_mutex_init(&c->source_lock, NULL);
	c->vs = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*c->vs));
	c->fetched = ab_calloc(p->r->nsources + 1, sizeof(*c->fetched));
	run_init(c);
}

static void
ctx_release(struct ctx *c)
{
	ab_run_record_release(&c->run);
	free(c->vs);
	for (size_t i = 0; c->fetched && i < c->p->r->nsources; i++)
		ab_fetch_record_free(c->fetched[i]);
	free(c->fetched);
	cJSON_Delete(c->tools);
	ab_jobserver_free(c->js);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->source_lock);
}

/*
 * The temporaries of lib/atomic that a killed run left where a build
 * writes: OUTDIR, its provenance/, each variant's directory and logs, a
 * relink's output directory. The lock is held, so no live writer is there.
 */
static void
clean_stale_temporaries(const struct ab_plan *p)
{
	char *prov = ab_path_join(p->outdir, "provenance");

	ab_atomic_clean_stale(p->outdir);
	ab_atomic_clean_stale(prov);
	free(prov);
	for (size_t vi = 0; vi < p->nvars; vi++) {
		const struct ab_plan_var *pv = &p->vars[vi];

		ab_atomic_clean_stale(pv->dir);
		ab_atomic_clean_stale(pv->logs);
		if (pv->v->kind == AB_VARIANT_RELINK) {
			const struct ab_plan_var *from = &p->vars[pv->from_vi];
			char *out = ab_path_join(from->build, pv->v->relink.output), *dir = ab_path_dirname(out);

			ab_atomic_clean_stale(dir);
			free(dir);
			free(out);
		}
	}
}

/*
 * Which local hits of the variants compiled in this run took an entry that
 * an earlier variant of the run stored, from their compile logs
 * (provenance/record/ccstats.h): into each one's ccache record
 */
static void
attribute_ccache(struct ctx *c)
{
	const struct ab_plan *p = c->p;
	cJSON **recs = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*recs));
	struct ab_buf *texts = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*texts));
	const char **logs = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*logs));

	for (size_t vi = 0; p->ccache && vi < p->nvars; vi++) {
		struct ab_variant_record *vr = record_of(c, vi);
		char *log;

		if (!vr->ccache || !compiled_now(c, vi))
			continue;
		recs[vi] = vr->ccache;
		log = ab_path_join(p->vars[vi].logs, AB_CCWRAP_LOG);
		if (ab_path_exists(log) && ab_read_file(&texts[vi], log) == 0)
			logs[vi] = texts[vi].s;
		free(log);
	}
	if (p->ccache)
		ab_ccstats_attribute(recs, logs, p->nvars);
	for (size_t vi = 0; vi < p->nvars; vi++)
		ab_buf_free(&texts[vi]);
	free(texts);
	free(logs);
	free(recs);
}

/* a remote compile cache that failed a variant compiled in this run is said */
static void
warn_ccache(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	for (size_t vi = 0; p->ccache && vi < p->nvars; vi++) {
		const struct ab_variant_record *vr = record_of(c, vi);
		int failed;

		if (!vr->ccache || !compiled_now(c, vi) || !(failed = ab_ccstats_remote_failures(vr->ccache)))
			continue;
		ab_warn("%s: the remote cache %s was unreachable (%d ccache call%s could not use it): "
		    "built with the local cache only", vr->label,
		    c->run.options.ccache_remote ? c->run.options.ccache_remote : "(ccache.conf's)", failed,
		    failed == 1 ? "" : "s");
	}
}

/* what the command shows of a build that ran to its end (cli/buildtable.c) */
static void
finish(struct ctx *c, const struct ab_build_opts *o)
{
	const struct ab_plan *p = c->p;
	int *compiled = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*compiled));
	char *env = ab_path_join(p->outdir, AB_MANIFEST_ENVELOPES);
	struct ab_build_outcome out = {.plan = p, .run = &c->run, .compiled = compiled,
	    .signatures_removed = c->unsigned_, .signatures_kept = !c->unsigned_ && c->kept && ab_path_exists(env)};

	for (size_t vi = 0; vi < p->nvars; vi++)
		compiled[vi] = compiled_now(c, vi);
	o->finished(&out);
	free(compiled);
	free(env);
}

/* the phases of a build, in order; each reports its own failure */
static int
run_phases(struct ctx *c, int *probe_bad)
{
	const struct ab_plan *p = c->p;
	int e;

	clean_stale_temporaries(p);
	ab_progress_begin(p->nsteps);
	/* before anything runs a compiler through PATH, the toolchain's identity included */
	if (p->ccwrap && ab_ccwrap_install(p->ccwrap) < 0)
		return AB_EFAIL;
	if (toolchain(c) < 0)
		return AB_EFAIL;
	if ((e = fetch_unpinned(c)) < 0 || (e = decide_all(c)) < 0 || (e = fetch_needed(c)) < 0)
		return e;
	record_fetched(c);
	if (p->jobserver && ab_jobserver_open(&c->js, p->jobserver) < 0)
		return AB_EFAIL;
	if (p->nnet && ab_netfwd_start(&c->net, p->net_dir, p->net, p->nnet) < 0)
		return AB_EFAIL;
	schedule(c);
	attribute_ccache(c);
	warn_ccache(c);
	check_variants(c, probe_bad);
	ab_netfwd_stop(c->net);
	c->net = NULL;
	if ((e = write_states(c)) < 0 || (e = write_manifests(c)) < 0)
		return e;
	return 0;
}

int
ab_build_run(const struct ab_plan *p, const struct ab_build_opts *o)
{
	struct ctx c;
	int lockfd = -1, probe_bad = 0, rc;
	mode_t old_umask;
	double t0 = ab_now();

	/* no sandbox, no build: never silently without it, and nothing written before saying so */
	if (p->sandbox && ab_sandbox_check() < 0)
		return AB_EFAIL;
	ctx_init(&c, p, o);
	/* every child's umask, whatever the caller's: generated files and their modes do not vary */
	old_umask = umask(AB_CHILD_UMASK);
	rc = ab_mkdir_p(p->outdir, 0755) < 0 || (!o->have_lock && ab_build_lock(&lockfd, p->outdir) < 0) ||
	    (p->ccache_real && ab_mkdir_p(p->ccache_real, 0755) < 0) ? AB_EFAIL : 0;
	if (rc == 0)
		rc = run_phases(&c, &probe_bad);
	ab_progress_finish();
	if (rc == 0) {
		if (o->finished)
			finish(&c, o);
		rc = c.failed || probe_bad ? AB_ECHECK : 0;
		print_stats(t0);
	}
	ctx_release(&c);
	if (lockfd >= 0)
		close(lockfd);
	umask(old_umask);
	return rc;
}

/* ---- a merge of shards ---- */

static int
json_int(const cJSON *o, const char *key)
{
	const cJSON *n = ab_json_get(o, key);

	return cJSON_IsNumber(n) ? n->valueint : cJSON_IsTrue(n) ? 1 : 0;
}

int
ab_build_write_merged(const struct ab_plan *p, const struct ab_build_merged *m)
{
	struct ab_build_opts o = {0};
	struct ctx c;
	int e;

	ctx_init(&c, p, &o);
	c.run.write_dir = ab_strdup(m->dir);
	free(c.run.recipe.path);
	c.run.recipe.path = ab_strdup(m->recipe_path);
	c.run.recipe_text = NULL; /* the shards' copy, as they built it */
	c.run.recipe_file = ab_strdup(m->recipe_file);
	for (size_t i = 0; m->inputs && i < m->inputs->n; i++)
		ab_strv_push(&c.run.inputs, m->inputs->v[i]);
	snprintf(c.run.started_on, sizeof(c.run.started_on), "%s", m->started_on);
	c.run.options.jobs = json_int(m->options, "jobs");
	c.run.options.parallel_variants = json_int(m->options, "parallel_variants");
	c.run.options.jobserver = json_int(m->options, "jobserver");
	c.run.options.ccache = json_int(m->options, "ccache");
	if (ab_json_str(m->options, "ccache_dir"))
		c.run.options.ccache_dir = ab_strdup(ab_json_str(m->options, "ccache_dir"));
	if (ab_json_str(m->options, "ccache_remote"))
		c.run.options.ccache_remote = ab_strdup(ab_json_str(m->options, "ccache_remote"));
	c.run.options.keep_going = json_int(m->options, "keep_going");
	c.run.options.force = json_int(m->options, "force");
	if (m->toolchain && ab_tool_ids_parse(&c.run.toolchain, m->toolchain) < 0) {
		ctx_release(&c);
		return AB_EFAIL;
	}
	c.run.merge = cJSON_Duplicate(m->merge, 1);
	for (size_t vi = 0; vi < p->nvars; vi++) {
		struct ab_variant_record *vr = record_of(&c, vi);

		*vr = *m->records[vi];
		memset(m->records[vi], 0, sizeof(*m->records[vi]));
		if (!vr->kind && p->vars[vi].v->kind == AB_VARIANT_RUNTIME) {
			/* a runtime_of never probed has no state.json: made as every run makes it, its key as recorded */
			size_t b = p->vars[vi].base_vi;

			memcpy(c.vs[vi].key, vr->key, sizeof(c.vs[vi].key));
			ab_variant_record_release(vr);
			record_init(&c, vi);
			ab_variant_record_copy_artifacts(vr, b == AB_PLAN_NONE ? NULL : record_of(&c, b));
			vr->ok = 1;
		}
		/* not in state.json: from the recipe, as every run makes it */
		cJSON_Delete(vr->definition);
		vr->definition = definition_json(p->vars[vi].v);
	}
	e = manifests(&c);
	ctx_release(&c);
	return e;
}
