/*
 * recipe_variant: a recipe's "variants" entries read into struct
 * ab_variant: the kind (build, relink, runtime_of), the build by build
 * system, relink, allocator, runtime, probe, expect, reproducible, sandbox.
 */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/pool.h"
#include "../lib/util.h"
#include "../provenance/alloc/allocreg.h"
#include "recipe_impl.h"

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
		ab_recipe_err(c, m->kline, m->kcol, p, "'%s' is for %s builds, not %s", own[i].key, own[i].systems,
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
		ab_recipe_err(c, m->kids[i].line, m->kids[i].col, p, "invalid %s '%s'", what, sv);
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
	char *s = ab_recipe_dup_member(c, b, path, key, 0, PATH_ANY), *p;

	if (s && *s && *s != '/') {
		char *sv = ab_jshown(s);

		m = ab_jnode_member(b, key);
		p = ab_jpath_key(path, key);
		ab_recipe_err(c, m->line, m->col, p, "'%s' is not an absolute path (without one, %s is what PATH finds)", sv, key);
		free(sv);
		free(p);
	} else if (s && *s) {
		m = ab_jnode_member(b, key);
		p = ab_jpath_key(path, key);
		ab_recipe_check_regular(c, m, p, s, s);
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

	v->build.profile = ab_recipe_dup_member(c, b, path, "profile", 0, PATH_ANY);
	if (v->build.profile && !valid_cargo_name(v->build.profile)) {
		char *sv = ab_jshown(v->build.profile);

		m = ab_jnode_member(b, "profile");
		p = ab_jpath_key(path, "profile");
		ab_recipe_err(c, m->line, m->col, p, "invalid cargo profile name '%s': expected [A-Za-z0-9_-]+", sv);
		free(sv);
		free(p);
	}
	m = ab_recipe_list_member(c, b, path, "features", &v->build.features, 1, PATH_ANY);
	p = ab_jpath_key(path, "features");
	check_names(c, m, p, &v->build.features, valid_cargo_feature, "cargo feature");
	free(p);
	m = ab_recipe_list_member(c, b, path, "bins", &v->build.bins, 1, PATH_ANY);
	p = ab_jpath_key(path, "bins");
	check_names(c, m, p, &v->build.bins, valid_cargo_name, "cargo binary name");
	free(p);
	v->build.vendor = ab_recipe_dup_member(c, b, path, "vendor", 0, PATH_SOURCE);
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
	if (ab_recipe_want(c, b, path, cJSON_Object) < 0)
		return;
	ab_recipe_check_keys(c, b, path, keys);
	s = ab_recipe_str_member(c, b, path, "system", 1, &m);
	cf = ab_jnode_member(b, "configure");
	df = ab_jnode_member(b, "defines");
	gen = ab_jnode_member(b, "generator");
	if (s) {
		if (!strcmp(s, "autotools")) {
			v->build.system = AB_BUILD_AUTOTOOLS;
			if (df) {
				p = ab_jpath_key(path, "defines");
				ab_recipe_err(c, df->kline, df->kcol, p,
				    "'defines' is for cmake builds; an autotools build takes 'configure'");
				free(p);
			}
			if (gen) {
				p = ab_jpath_key(path, "generator");
				ab_recipe_err(c, gen->kline, gen->kcol, p, "'generator' is for cmake builds");
				free(p);
			}
		} else if (!strcmp(s, "cmake")) {
			v->build.system = AB_BUILD_CMAKE;
			if (cf) {
				p = ab_jpath_key(path, "configure");
				ab_recipe_err(c, cf->kline, cf->kcol, p,
				    "'configure' is for autotools builds; a cmake build takes 'defines'");
				free(p);
			}
		} else if (!strcmp(s, "cargo")) {
			v->build.system = AB_BUILD_CARGO;
		} else {
			char *sv = ab_jshown(s);

			p = ab_jpath_key(path, "system");
			ab_recipe_err(c, m->line, m->col, p, "unknown build system '%s' (expected 'autotools', 'cmake' or 'cargo')",
			    sv);
			free(sv);
			free(p);
		}
	}
	if (s)
		system_keys(c, v->build.system, b, path);
	ab_recipe_list_member(c, b, path, "configure", &v->build.configure, 0, PATH_ANY);
	ab_recipe_kv_member(c, b, path, "defines", &v->build.defines, "cmake variable", ab_recipe_valid_cmake_name);
	v->build.generator = ab_recipe_dup_member(c, b, path, "generator", 0, PATH_ANY);
	if (!v->build.generator)
		v->build.generator = ab_strdup("Unix Makefiles");
	ab_recipe_list_member(c, b, path, "targets", &v->build.targets, 1, PATH_ANY);
	ab_recipe_count_member(c, b, path, "jobs", 0, AB_POOL_MAX, &v->build.jobs);
	ab_recipe_kv_member(c, b, path, "env", &v->build.env, "environment variable", ab_recipe_valid_env_name);
	cargo_members(c, v, b, path);
	ab_recipe_build_refs(c, idx, v, b, path);
}

/* a relink's "layout": {"seed": N}, a layout control (docs/relink.md, "Layout controls") */
static void
parse_layout(struct ctx *c, struct ab_variant *v, const struct ab_jnode *rl, const char *path)
{
	static const char *const keys[] = {"seed", NULL};
	const struct ab_jnode *l = ab_jnode_member(rl, "layout"), *sd;
	char *p, *sp;

	if (!l)
		return;
	p = ab_jpath_key(path, "layout");
	if (ab_recipe_want(c, l, p, cJSON_Object) == 0) {
		ab_recipe_check_keys(c, l, p, keys);
		v->relink.layout = 1;
		sd = ab_jnode_member(l, "seed");
		sp = ab_jpath_key(p, "seed");
		if (!sd)
			ab_recipe_missing(c, l, p, "seed");
		else
			ab_recipe_int_value(c, sd, sp, 0, 1 << 30, &v->relink.layout_seed);
		free(sp);
	}
	free(p);
}

static void
parse_relink(struct ctx *c, size_t idx, struct ab_variant *v, const struct ab_jnode *rl, const char *path)
{
	static const char *const keys[] = {"from", "link_txt", "replace", "output", "layout", NULL};
	static const char *const rkeys[] = {"path", "with", NULL};
	static const char *const wkeys[] = {"variant", "artifact", NULL};
	const struct ab_jnode *m;
	const char *s;
	char *p;

	if (ab_recipe_want(c, rl, path, cJSON_Object) < 0)
		return;
	ab_recipe_check_keys(c, rl, path, keys);
	s = ab_recipe_str_member(c, rl, path, "from", 1, &m);
	if (s) {
		long t;

		p = ab_jpath_key(path, "from");
		v->relink.from = ab_strdup(s);
		t = ab_recipe_variant_ref(c, idx, m, p, s);
		if (t >= 0 && c->r->variants[t].kind != AB_VARIANT_BUILD && c->labels[t]) {
			char *sv = ab_jshown(s);

			ab_recipe_err(c, m->line, m->col, p, "variant '%s' is not a build variant", sv);
			free(sv);
		}
		free(p);
	}
	v->relink.link_txt = ab_recipe_dup_member(c, rl, path, "link_txt", 1, PATH_BUILD);
	v->relink.output = ab_recipe_dup_member(c, rl, path, "output", 1, PATH_BUILD);
	parse_layout(c, v, rl, path);
	m = ab_jnode_member(rl, "replace");
	p = ab_jpath_key(path, "replace");
	if (!m) {
		if (!v->relink.layout)
			ab_recipe_missing(c, rl, path, "replace");
	} else if (ab_recipe_want(c, m, p, cJSON_Array) == 0) {
		if (!m->nkids && !v->relink.layout)
			ab_recipe_err(c, m->line, m->col, p, "at least one replacement is required (or a \"layout\")");
		v->relink.replace = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*v->relink.replace));
		for (size_t i = 0; i < m->nkids; i++) {
			const struct ab_jnode *e = &m->kids[i], *w, *x;
			struct ab_replace *rp = &v->relink.replace[v->relink.nreplace];
			char *q = ab_jpath_index(p, i), *wp;

			if (ab_recipe_want(c, e, q, cJSON_Object) < 0) {
				free(q);
				continue;
			}
			v->relink.nreplace++;
			ab_recipe_check_keys(c, e, q, rkeys);
			rp->path = ab_recipe_dup_member(c, e, q, "path", 1, PATH_ANY);
			if (rp->path) {
				char *pp = ab_jpath_key(q, "path");

				ab_recipe_string_refs(c, idx, v, ab_jnode_member(e, "path"), pp);
				free(pp);
			}
			w = ab_jnode_member(e, "with");
			wp = ab_jpath_key(q, "with");
			if (!w) {
				ab_recipe_missing(c, e, q, "with");
			} else if (ab_recipe_want(c, w, wp, cJSON_Object) == 0) {
				ab_recipe_check_keys(c, w, wp, wkeys);
				s = ab_recipe_str_member(c, w, wp, "variant", 1, &x);
				if (s) {
					char *vp = ab_jpath_key(wp, "variant");

					rp->with_variant = ab_strdup(s);
					ab_recipe_variant_ref(c, idx, x, vp, s);
					free(vp);
				}
				rp->with_artifact = ab_recipe_dup_member(c, w, wp, "artifact", 1, PATH_BUILD);
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

	if (ab_recipe_want(c, n, path, cJSON_Object) < 0)
		return;
	v->allocator.present = 1;
	ab_recipe_check_keys(c, n, path, keys);
	s = ab_recipe_str_member(c, n, path, "kind", 1, &m);
	if (s) {
		if (!ab_allockind_find(s)) {
			char *sv = ab_jshown(s);

			p = ab_jpath_key(path, "kind");
			ab_recipe_err(c, m->line, m->col, p, "unknown allocator kind '%s' (expected %s)", sv,
			    ab_allockind_names(NULL, " or "));
			free(sv);
			free(p);
		}
		v->allocator.kind = ab_strdup(s);
	}
	v->allocator.archive = ab_recipe_dup_member(c, n, path, "archive", 0, PATH_BUILD);
	v->allocator.vendored = ab_recipe_dup_member(c, n, path, "vendored", 0, PATH_SOURCE);
	s = ab_recipe_str_member(c, n, path, "upstream", 0, &m);
	if (s) {
		if (!c->no_sources) {
			p = ab_jpath_key(path, "upstream");
			ab_recipe_source_ref(c, m, p, s);
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

	if (ab_recipe_want(c, n, path, cJSON_Object) < 0)
		return;
	ab_recipe_check_keys(c, n, path, keys);
	ab_recipe_kv_member(c, n, path, "env", &v->runtime.env, "environment variable", ab_recipe_valid_env_name);
	m = ab_recipe_list_member(c, n, path, "unset", &v->runtime.unset, 0, PATH_ANY);
	if (!m || m->type != '[')
		return;
	p = ab_jpath_key(path, "unset");
	for (size_t i = 0; i < m->nkids; i++) {
		const struct ab_jnode *e = &m->kids[i];

		if (e->type == '"' && !ab_recipe_valid_env_name(e->j->valuestring)) {
			char *q = ab_jpath_index(p, i), *sv = ab_jshown(e->j->valuestring);

			ab_recipe_err(c, e->line, e->col, q, "invalid environment variable name '%s': expected [A-Za-z_][A-Za-z0-9_]*", sv);
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

	if (ab_recipe_want(c, n, path, cJSON_Object) < 0)
		return;
	ab_recipe_check_keys(c, n, path, keys);
	ab_recipe_list_member(c, n, path, "args", &v->probe.args, 0, PATH_ANY);
	ab_recipe_count_member(c, n, path, "timeout", 0, INT_MAX, &v->probe.timeout);
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
	if (ab_recipe_want(c, n, path, cJSON_Object) < 0)
		return;
	ab_recipe_check_keys(c, n, path, keys);
	v->expect.version = ab_recipe_dup_member(c, n, path, "version", 0, PATH_ANY);
	if ((m = ab_jnode_member(n, "secure"))) {
		char *p = ab_jpath_key(path, "secure");

		if (ab_recipe_int_value(c, m, p, 0, 4, &v->expect.secure) < 0)
			v->expect.secure = -1;
		free(p);
	}
	ab_recipe_kv_member(c, n, path, "options", &v->expect.options, "allocator option", valid_option_name);
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
		ab_recipe_err(c, m->line, m->col, p, "expected a boolean, got %s", ab_json_type_name(m->j));
	else if (v->kind != AB_VARIANT_BUILD)
		ab_recipe_err(c, m->kline, m->kcol, p,
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
		ab_recipe_err(c, m->line, m->col, p, "expected a boolean, got %s", ab_json_type_name(m->j));
	else
		v->sandbox = cJSON_IsTrue(m->j);
	free(p);
}

/* the kind of a variant, from its first kind key; set before references are resolved */
void
ab_recipe_variant_kind(struct ctx *c, struct ab_variant *v, const struct ab_jnode *n, const char *path)
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

				ab_recipe_err(c, m->kline, m->kcol, p,
				    "a variant has exactly one of 'source', 'relink' or 'runtime_of' (already has '%s')",
				    kinds[fk]);
				free(p);
			}
		}
	}
	if (!first) {
		if (path)
			ab_recipe_err(c, n->line, n->col, path, "a variant needs one of 'source', 'relink' or 'runtime_of'");
		return;
	}
	v->kind = fk == 0 ? AB_VARIANT_BUILD : fk == 1 ? AB_VARIANT_RELINK : AB_VARIANT_RUNTIME;
}

void
ab_recipe_parse_variant(struct ctx *c, size_t idx, const struct ab_jnode *n, const char *path)
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
	ab_recipe_check_keys(c, n, path, keys);
	ab_recipe_variant_kind(c, v, n, path);
	s = ab_recipe_str_member(c, n, path, "label", 1, NULL);
	if (s)
		v->label = ab_strdup(s);

	b = ab_jnode_member(n, "build");
	s = ab_recipe_str_member(c, n, path, "source", 0, &m);
	if (v->kind == AB_VARIANT_BUILD && ab_jnode_member(n, "source")) {
		if (!b)
			ab_recipe_missing(c, n, path, "build");
		if (s) {
			v->source = ab_strdup(s);
			if (!c->no_sources) {
				p = ab_jpath_key(path, "source");
				ab_recipe_source_ref(c, m, p, s);
				free(p);
			}
		}
	}
	if (b) {
		p = ab_jpath_key(path, "build");
		if (v->kind != AB_VARIANT_BUILD || !ab_jnode_member(n, "source"))
			ab_recipe_err(c, b->kline, b->kcol, p, "'build' needs 'source' (only build variants have it)");
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
	s = ab_recipe_str_member(c, n, path, "runtime_of", 0, &m);
	if (s && v->kind == AB_VARIANT_RUNTIME) {
		p = ab_jpath_key(path, "runtime_of");
		v->runtime_of = ab_strdup(s);
		ab_recipe_variant_ref(c, idx, m, p, s);
		free(p);
	}

	ab_recipe_list_member(c, n, path, "artifacts", &v->artifacts, 1, PATH_BUILD);
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
			ab_recipe_err(c, m->kline, m->kcol, p, "a runtime_of variant is probed like its base: set 'probe' there");
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
		ab_recipe_err(c, m->kline, m->kcol, p, "nothing to probe: give the variant 'artifacts' or 'allocator.archive'");
		free(p);
	}
}
