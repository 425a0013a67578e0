/*
 * build_key: the toolchain's identity (provenance/record/toolchain.h, once
 * per run) and each variant's content key: the inputs of its build, and
 * those plus the runtime environment for its probe (docs/build.md,
 * "Content keys").
 */

#include "build_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/jsonio.h"
#include "../provenance/record/ccstats.h"
#include "../provenance/record/toolchain.h"
#include "isolation.h"

#define KEY_FORMAT "allocbuild-variant-key 1"

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

/* ---- toolchain identity ---- */

/* the children's environment (that of the first variant: they differ only in per-variant paths) */
static void
tool_env(struct ctx *c, struct ab_env *env)
{
	ab_build_fill_env(env, c->p->nvars ? &c->p->vars[0] : NULL);
	/* run here, not in the sandbox: ccache's cache as the sandbox's binds show it */
	if (c->p->ccache_real && ab_env_get(env, "CCACHE_DIR"))
		ab_env_set(env, "CCACHE_DIR", c->p->ccache_real);
}

/*
 * Run argv quietly in the children's environment; its stdout into out.
 * 1 when it ran and exited 0 with output, else 0 (a missing tool is no
 * error: its absence is recorded).
 */
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
	int e;

	for (size_t i = 0; i < c->p->nvars; i++)
		if (!c->p->vars[i].sandboxed)
			o.path = getenv("PATH");

	o.cache = cache;
	e = ab_toolchain_record(&c->tools, &o);
	free(cache);
	if (e < 0)
		return e;
	for (size_t i = 0; i < c->tools.n; i++) {
		const struct ab_tool *t = &c->tools.v[i];

		/* cargo's tools key only plans with a cargo variant: a rustup install rebuilds no C variant */
		if (!cargo && ab_toolchain_only(t->name, "cargo"))
			continue;
		key_add(h, "tool", t->name);
		key_add(h, "file", t->file);
		key_add(h, "version", t->version);
		key_add(h, "package_version", t->package_version);
	}
	return 0;
}

int
ab_build_toolchain(struct ctx *c)
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
const struct ab_fetch_record *
ab_build_fetched_of(const struct ctx *c, const struct ab_source *s)
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
		const struct ab_fetch_record *rec = ab_build_fetched_of(kw->c, s);
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
		const struct ab_patch_bytes *pb;
		int e = ab_recipe_patch(&pb, r, s, i);

		if (e < 0)
			return e;
		key_add(h, "patch", s->patches.v[i]);
		key_add(h, "patch-sha256", pb->sha256);
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

int
ab_build_compute_key(struct ctx *c, size_t vi)
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
		if (v->relink.layout) {
			char seed[32];

			snprintf(seed, sizeof(seed), "%d", v->relink.layout_seed);
			key_add(h, "layout-seed", seed);
		}
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
