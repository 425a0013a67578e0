/*
 * relink: diagnostic relinks. Take the link command of a normal CMake
 * build (its link.txt), replace the allocator archive (or any other input
 * named by path) with another file, link to another output, and prove with
 * hashes that only the replaced inputs differ (relink-provenance.json).
 *
 * A relinked binary is a "diagnostic relink", never a normal distributable
 * build: measured CPU costs of relinks have been seen to differ from those
 * of a normal build of the same allocator, so every manifest says which is
 * which ("kind": "diagnostic relink").
 *
 * Calling protocol (the build command and `allocbuild relink` both use it):
 *   struct ab_relink_replacement rep[] = {
 *           {"../lib/libjemalloc_pic.a", "/abs/other/build/lib/libjemalloc_pic.a"},
 *   };
 *   struct ab_env env = {0};
 *   ab_env_scrubbed(&env);
 *   struct ab_relink_spec spec = {
 *           .link_txt = "build/src/CMakeFiles/fluent-bit-bin.dir/link.txt",
 *           .build_dir = NULL,          derived from link_txt: build/src
 *           .replace = rep, .nreplace = 1,
 *           .output = "/abs/out/fluent-bit-relink",
 *           .env = &env, .log_path = "logs/05-relink.log",
 *   };
 *   cJSON *prov = NULL;
 *   int r = ab_relink_run(&prov, &spec);
 *   r == 0:          output written (atomically, lib/atomic.h: linked to a
 *                    temporary "<output>.tmp.<pid>.<n>", fsync'ed, then
 *                    renamed); prov is the relink-provenance document, the
 *                    caller writes it (ab_relink_save, or ab_json_write) and
 *                    frees it (cJSON_Delete)
 *   r == AB_EFAIL:   bad input (unparseable link.txt, missing replacement,
 *                    replacement matching nothing, missing link input) or
 *                    the environment failed: reported, exit 2
 *   r == AB_ECHECK:  the linker ran and failed: its stderr has been shown,
 *                    no output is left, exit 1
 *   ab_env_release(&env);
 *
 * Neither the output nor the provenance path may name an input of the link
 * (an object, archive, library, linker script or response file of either
 * command, a replacement, link.txt itself) or each other: writing one
 * would destroy what the provenance describes (AB_EFAIL, nothing written).
 *
 * A layout relink (spec.layout, builder/layout.h) links the same inputs
 * with the objects and each build-tree archive's members in a seeded
 * order: the permuted archives are written to OUTPUT.archives/ and get
 * their index from ranlib, run as the link is; the document's "layout"
 * gives the seed and every order, and its inputs are compared with the
 * normal link's by where each came from.
 *
 * Matching: a replacement's `path` matches an argv element (never argv[0],
 * an option, or the -o argument) that is literally equal to it, or that
 * names the same file (same device and inode) when both are resolved
 * against the build directory. Each replacement must match at least once.
 */
#ifndef AB_RELINK_H
#define AB_RELINK_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../lib/proc.h"

struct ab_relink_replacement {
	const char *path; /* as link.txt names it, or any path to the same file (relative: to build_dir) */
	const char *with; /* the replacement; made absolute against the current directory */
};

struct ab_relink_spec {
	const char *link_txt;   /* the normal build's link.txt; never modified */
	const char *build_dir;  /* where the link runs; NULL: ab_linktxt_build_dir(link_txt) */
	const struct ab_relink_replacement *replace;
	size_t nreplace;
	const char *output;     /* the relinked binary; made absolute against the current directory */
	const char *provenance; /* where the caller writes the document (ab_relink_save), or NULL; like
	                           output, it must not be an input of the link */
	struct ab_env *env;     /* the link's environment; NULL: ab_env_scrubbed() */
	const char *log_path;   /* linker stdout and stderr appended here; NULL: none */
	int dry_run;            /* resolve and print nothing, run nothing: *prov gets argv and cwd only */
	int check_normal;       /* also link the unchanged command to a temporary file and record
	                           whether it reproduces the normal output ("normal_check") */
	const char *tool;       /* "allocbuild 0.1.0" for the manifest; NULL: omitted */
	const struct ab_sandbox *sandbox; /* non-NULL: the links run in it (lib/sandbox.h), every path of
	                           their argv and cwd as it sees them; the document keeps the real ones */
	const char *confine;    /* NULL, or the tree (a build directory sandboxed steps wrote) whose
	                           link.txt, response files and linker scripts are read through no symlink
	                           that leaves it (lib/dirwalk.h's ab_dirwalk_read_below) */
	int layout;             /* a layout control (builder/layout.h): the objects and archive members in
	                           the seeded order of layout_seed; replacements may then be none */
	uint64_t layout_seed;
};

/*
 * Relink as described above: 0, AB_EFAIL or AB_ECHECK. On success *prov is
 * the relink-provenance document (with dry_run: {"cwd", "argv",
 * "replacements"}); caller frees.
 */
int ab_relink_run(cJSON **prov, const struct ab_relink_spec *spec);
/* where a standalone relink's document goes by default: relink-provenance.json next to output; caller frees */
char *ab_relink_provenance_path(const char *output);
/*
 * Write the document to path atomically; when that fails, remove output:
 * a binary without its provenance would pass for something it is not.
 * Reports errors.
 */
int ab_relink_save(const cJSON *prov, const char *path, const char *output);

#endif
