/*
 * cargo: the cargo build system (docs/recipe.md, "Cargo builds").
 *
 * A cargo variant builds offline from crates on this machine: Debian's
 * packaged registry (AB_CARGO_DEBIAN_REGISTRY, from the librust-*-dev
 * packages) or a cargo vendor directory inside its source tree (build.vendor,
 * usually a vendored source overlaid there). It never reads the user's
 * ~/.cargo: CARGO_HOME is a directory of the variant's build dir holding
 * only the generated config.toml that replaces crates.io with that
 * directory. The plan calls ab_cargo_argv and ab_cargo_env; the build
 * calls ab_cargo_home_write before the build step.
 *
 *   CARGO build --offline --locked --release|--profile=P [--features=A,B] [--bin=B]... [-jN]
 *
 * (CARGO: build.cargo, else "cargo" from PATH; build.rustc becomes RUSTC)
 *
 * run in the source tree, with target/ in the build dir and rustc's
 * --remap-path-prefix for the source, build and crates directories and
 * the OUTDIR (RUSTFLAGS), so that the binaries do not depend on OUTDIR.
 */
#ifndef AB_CARGO_H
#define AB_CARGO_H

#include "recipe.h"
#include "../lib/util.h"

/* where Debian's librust-*-dev packages put their crates */
#define AB_CARGO_DEBIAN_REGISTRY "/usr/share/cargo/registry"
/* CARGO_HOME and target/ inside the build dir */
#define AB_CARGO_HOME "cargo-home"
#define AB_CARGO_TARGET "target"

/* the directory crates come from: the vendor dir inside src, or Debian's registry; caller frees */
char *ab_cargo_crates_dir(const struct ab_variant *v, const char *src);
/* target/ subdirectory of the profile's outputs: release, debug (dev, test) or the profile's name */
const char *ab_cargo_profile_dir(const struct ab_variant *v);
/* the build command onto argv; jobs 0: no -j (the jobserver decides) */
void ab_cargo_argv(struct ab_strv *argv, const struct ab_variant *v, int jobs);
/*
 * The variant's cargo environment onto env ("K=V"): CARGO_HOME,
 * CARGO_TARGET_DIR, RUSTFLAGS (the path remaps, unless the recipe sets
 * RUSTFLAGS itself), CARGO_INCREMENTAL=0 and RUSTC when the recipe names
 * build.rustc; onto unset the inherited
 * variables that would change the build behind the recipe's back.
 */
void ab_cargo_env(struct ab_strv *env, struct ab_strv *unset, const struct ab_variant *v, const char *outdir,
    const char *src, const char *build);
/* write BUILD/cargo-home/config.toml for crates dir crates; AB_EFAIL reported */
int ab_cargo_home_write(const char *build, const char *crates);

#endif
