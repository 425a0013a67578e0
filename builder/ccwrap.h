/*
 * ccwrap: the compiler wrapper that makes builds path-independent
 * (docs/build.md, "Reproducibility").
 *
 * A build puts OUTDIR/ccwrap first in the PATH of every step of a
 * reproducible variant. That directory holds one symbolic link per tool
 * name (cc, gcc, c++, g++, their x86_64-linux-gnu- names, ar, ranlib,
 * install),
 * each pointing at the allocbuild binary itself. Started under one of
 * those names (cli/main.c looks at argv[0] first), allocbuild runs
 * ab_ccwrap_main(): it looks the same name up in PATH, skipping every
 * directory whose entry of that name is allocbuild itself (so ccache's
 * /usr/lib/ccache masquerade still works behind it), and execs that tool
 * with an argv vector, never a shell:
 *
 *   compilers   the flags of AB_CCWRAP_FLAGS_ENV (shell-quoted words,
 *               the -ffile-prefix-map options of the variant) first, then
 *               the caller's arguments, so that a map the build system
 *               passes itself still wins (GCC tries the last map first);
 *               the same maps applied to the caller's -D definitions
 *               (a macro whose value names the source directory);
 *   ar          the operation's modifiers without U (and u, which GNU ar
 *               refuses in deterministic mode), with D;
 *   ranlib      -U replaced by -D, and -D first;
 *   install     -C first (an unchanged destination keeps its time, so a
 *               re-run of an ExternalProject's `make install` does not
 *               make every object that includes its headers out of
 *               date: builder/derive.h), unless it makes directories
 *               (-d) or strips (-s), which GNU install refuses with -C.
 *
 * The real tool gets the PATH without the skipped directories, so a
 * ccache behind the wrapper does not find the wrapper again.
 *
 * Every compiler a build runs is found through PATH: autotools' configure,
 * CMake's compiler search (its ar comes from the compiler's directory),
 * and a configure run from inside a CMake build (ExternalProject), whose
 * own CFLAGS the environment could not reach.
 *
 *   ab_ccwrap_install("/abs/OUTDIR/ccwrap");    at the start of a build
 *   ab_ccwrap_prefix_maps(&flags, outdir, src, build);
 */
#ifndef AB_CCWRAP_H
#define AB_CCWRAP_H

#include <stddef.h>

#include "../lib/util.h"

/* OUTDIR/<this>: the directory of the links */
#define AB_CCWRAP_DIR "ccwrap"
/* the flags the wrapper gives every compiler, shell-quoted words */
#define AB_CCWRAP_FLAGS_ENV "ALLOCBUILD_CCWRAP_FLAGS"
/*
 * The compile log: where the wrapper appends a line per successful
 * compile (-c): the object's SHA-256, the directory, the object, the
 * source and the command, with the variant's directories under their
 * fixed names (docs/build.md, "Checking reproducibility"), and what
 * ccache did for it (provenance/record/ccstats.h: a compile through ccache gets
 * a statistics log of its own, CCACHE_STATSLOG beside the variant's,
 * whose lines then go to the variant's). build --check and rebuild name
 * the first compile whose object differs.
 */
#define AB_CCWRAP_LOG_ENV "ALLOCBUILD_COMPILE_LOG"
#define AB_CCWRAP_LOG "compiles.tsv"
/* what a variant's source and build directories are called in its artifacts */
#define AB_CCWRAP_MAP_OUTDIR "/allocbuild"
#define AB_CCWRAP_MAP_SRC "/allocbuild/src"
#define AB_CCWRAP_MAP_BUILD "/allocbuild/build"

/* the tool names of the links, NULL-terminated */
extern const char *const ab_ccwrap_tools[];

/* is the base name of argv0 one of the tools? */
int ab_ccwrap_is_tool(const char *argv0);
/*
 * Run as the tool argv[0] names: exec the real one (see above). Returns
 * only when that fails, with the exit status to use (127 not found, 126
 * not executable, 2 a malformed AB_CCWRAP_FLAGS_ENV), after a message.
 */
int ab_ccwrap_main(int argc, char **argv);
/*
 * Create dir (absolute) with a link per tool to the running allocbuild
 * binary, replacing links that point elsewhere; 0 or AB_EFAIL (reported)
 */
int ab_ccwrap_install(const char *dir);
/*
 * The -ffile-prefix-map options of a variant onto out: OUTDIR first, then
 * its source and build directories, so that the more specific maps are
 * tried first; each maps to a name without the label (AB_CCWRAP_MAP_*)
 */
void ab_ccwrap_prefix_maps(struct ab_strv *out, const char *outdir, const char *src, const char *build);

#endif
