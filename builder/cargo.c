#include "cargo.h"

#include <stdlib.h>
#include <string.h>

#include "ccwrap.h"
#include "../lib/atomic.h"

/* where rustc's --remap-path-prefix puts Debian's registry (or any crates dir outside the source tree) */
#define MAP_CRATES "/allocbuild/crates"

char *
ab_cargo_crates_dir(const struct ab_variant *v, const char *src)
{
	return v->build.vendor ? ab_path_join(src, v->build.vendor) : ab_strdup(AB_CARGO_DEBIAN_REGISTRY);
}

const char *
ab_cargo_profile_dir(const struct ab_variant *v)
{
	const char *p = v->build.profile;

	if (!p || !strcmp(p, "release") || !strcmp(p, "bench"))
		return "release";
	if (!strcmp(p, "dev") || !strcmp(p, "test"))
		return "debug";
	return p;
}

void
ab_cargo_argv(struct ab_strv *argv, const struct ab_variant *v, int jobs)
{
	ab_strv_push(argv, v->build.cargo ? v->build.cargo : "cargo");
	ab_strv_push(argv, "build");
	ab_strv_push(argv, "--offline");
	ab_strv_push(argv, "--locked");
	if (v->build.profile && strcmp(v->build.profile, "release"))
		ab_strv_pushf(argv, "--profile=%s", v->build.profile);
	else
		ab_strv_push(argv, "--release");
	if (v->build.features.n) {
		struct ab_buf b = {0};

		for (size_t i = 0; i < v->build.features.n; i++)
			ab_buf_printf(&b, "%s%s", i ? "," : "", v->build.features.v[i]);
		ab_strv_pushf(argv, "--features=%s", b.s);
		ab_buf_free(&b);
	}
	for (size_t i = 0; i < v->build.bins.n; i++)
		ab_strv_pushf(argv, "--bin=%s", v->build.bins.v[i]);
	if (jobs > 0)
		ab_strv_pushf(argv, "-j%d", jobs);
}

static int
recipe_sets(const struct ab_variant *v, const char *key)
{
	for (size_t i = 0; i < v->build.env.n; i++)
		if (!strcmp(v->build.env.v[i].key, key))
			return 1;
	return 0;
}

/* one --remap-path-prefix, unless the path is its own name already (the build sandbox's fixed paths) */
static void
remap(struct ab_buf *b, const char *from, const char *to)
{
	if (strcmp(from, to))
		ab_buf_printf(b, "%s--remap-path-prefix=%s=%s", b->len ? " " : "", from, to);
}

void
ab_cargo_env(struct ab_strv *env, struct ab_strv *unset, const struct ab_variant *v, const char *outdir,
    const char *src, const char *build)
{
	/* what would change the build behind the recipe's back; CARGO_MAKEFLAGS would win over the jobserver's MAKEFLAGS */
	static const char *const inherited[] = {"CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS", "RUSTC_WRAPPER",
		"RUSTC_WORKSPACE_WRAPPER", "CARGO_BUILD_TARGET", "CARGO_BUILD_TARGET_DIR", "CARGO_MAKEFLAGS",
		"CARGO_PROFILE_RELEASE_DEBUG", "RUSTDOCFLAGS", "CARGO_BUILD_JOBS", "RUSTC", "CARGO_BUILD_RUSTC"};
	char *crates = ab_cargo_crates_dir(v, src);

	ab_strv_pushf(env, "CARGO_HOME=%s/%s", build, AB_CARGO_HOME);
	ab_strv_pushf(env, "CARGO_TARGET_DIR=%s/%s", build, AB_CARGO_TARGET);
	ab_strv_push(env, "CARGO_INCREMENTAL=0");
	/* the recipe's rustc; else the one PATH finds, as recorded, never an inherited RUSTC */
	if (v->build.rustc && !recipe_sets(v, "RUSTC"))
		ab_strv_pushf(env, "RUSTC=%s", v->build.rustc);
	/* rustc takes the last matching map: the most specific last (a vendor dir is inside src) */
	if (!recipe_sets(v, "RUSTFLAGS")) {
		struct ab_buf b = {0};

		remap(&b, outdir, AB_CCWRAP_MAP_OUTDIR);
		if (!v->build.vendor)
			remap(&b, crates, MAP_CRATES);
		remap(&b, build, AB_CCWRAP_MAP_BUILD);
		remap(&b, src, AB_CCWRAP_MAP_SRC);
		if (b.len)
			ab_strv_pushf(env, "RUSTFLAGS=%s", b.s);
		ab_buf_free(&b);
	}
	for (size_t i = 0; i < AB_NELEM(inherited); i++)
		if (!recipe_sets(v, inherited[i]) && !(v->build.rustc && !strcmp(inherited[i], "RUSTC")))
			ab_strv_push(unset, inherited[i]);
	free(crates);
}

/* a TOML basic string: quotes and backslashes escaped (paths have no control characters: checked) */
static void
toml_string(struct ab_buf *b, const char *s)
{
	ab_buf_puts(b, "\"");
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			ab_buf_puts(b, "\\");
		ab_buf_printf(b, "%c", *s);
	}
	ab_buf_puts(b, "\"");
}

int
ab_cargo_home_write(const char *build, const char *crates)
{
	char *home = ab_sprintf("%s/%s", build, AB_CARGO_HOME), *path = ab_path_join(home, "config.toml");
	struct ab_buf b = {0};
	int e = AB_EFAIL;

	for (const char *p = crates; *p; p++)
		if ((unsigned char)*p < 0x20) {
			ab_error("'%s': a crates directory with a control character in its name", home);
			goto done;
		}
	ab_buf_puts(&b, "# written by allocbuild: crates come from this directory only, never the network\n"
	    "[source.crates-io]\nreplace-with = \"allocbuild\"\n\n[source.allocbuild]\ndirectory = ");
	toml_string(&b, crates);
	ab_buf_puts(&b, "\n\n[net]\noffline = true\n");
	if (ab_mkdir_p(home, 0755) < 0 || ab_write_file_atomic(path, b.s, b.len) < 0)
		goto done;
	e = 0;
done:
	ab_buf_free(&b);
	free(path);
	free(home);
	return e;
}
