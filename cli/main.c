/*
 * allocbuild: reproducible allocator builds and their provenance.
 * Entry point and command table.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <git2.h>

#include "cmd.h"
#include "../lib/util.h"
#include "../lib/version.h"

struct command {
	const char *name;
	int (*fn)(int, char **);
	const char *summary;
	const char *usage;
};

static const struct command commands[] = {
	{"validate", cmd_validate, "check a recipe and print a summary",
	    "allocbuild validate [--allow-unpinned] RECIPE...\n"
	    "\n"
	    "Check every rule of the recipe format (docs/recipe.md). Errors are\n"
	    "printed as FILE:LINE:COL: json.path: message, all at once (exit 2);\n"
	    "a valid recipe prints a one-line summary. A git source given by a\n"
	    "branch or tag name instead of a commit id is an error unless\n"
	    "--allow-unpinned is given.\n"},
	{"plan", cmd_plan, "print every step a build would run, without running it",
	    "allocbuild plan [-o OUTDIR] [-j N] [--ccache] RECIPE [LABEL...]\n"
	    "\n"
	    "Print, in dependency order, the source acquisition, patches, overlays,\n"
	    "prepare commands, the argv and directory of every configure, build and\n"
	    "link command, the probes and the manifests. Nothing is executed.\n"},
	{"hash", cmd_hash, "SHA-256 of files and in-toto dirHash of directories",
	    "allocbuild hash [--json] [-j N] PATH...\n"
	    "\n"
	    "Print sha256sum-compatible lines: for a file its SHA-256 (the line\n"
	    "sha256sum prints, byte for byte; '-' is standard input), for a\n"
	    "directory its in-toto dirHash, the SHA-256 of\n"
	    "  find . -type f | cut -c3- | LC_ALL=C sort | xargs -r sha256sum\n"
	    "run in it: regular files only, symlinks and special files left out.\n"
	    "  -j, --jobs N   worker threads for trees (default: online cores)\n"
	    "      --json     a JSON array of {path, type, sha256, size | files}\n"
	    "A path that cannot be hashed is reported and the others are still\n"
	    "printed; the exit status is then 2. See docs/hashing.md.\n"},
	{"fetch", cmd_fetch, "check out pinned sources into the cache and variant trees",
	    "allocbuild fetch [--cache DIR] [--mirror FROM=TO]... [--mirror-dir DIR]...\n"
	    "                 [--allow-unpinned] [--check-patches] [-o OUTDIR] [-j N] [-q]\n"
	    "                 RECIPE [SOURCE...]\n"
	    "\n"
	    "Bring the pinned sources (all, or the given ones) into the cache, write\n"
	    "each build variant's own tree at OUTDIR/variants/<label>/src and\n"
	    "OUTDIR/provenance/sources.json (OUTDIR: ./allocbuild-out/<recipe name>).\n"
	    "--check-patches only checks that every patch applies. Mirrors:\n"
	    "--mirror FROM=TO rewrites URL prefixes (also ALLOCBUILD_MIRRORS); archives\n"
	    "are looked up in each --mirror-dir as sha256/<hex> or by file name.\n"
	    "Cache: --cache, ALLOCBUILD_CACHE, $XDG_CACHE_HOME/allocbuild. See docs/sources.md.\n"},
	{"build", cmd_build, "build every variant of a recipe and write provenance",
	    "allocbuild build [-o OUTDIR] [-j N] [-k|--keep-going] [--force] [--ccache]\n"
	    "                 [--cache DIR] [--mirror FROM=TO] [--mirror-dir DIR] [--allow-unpinned]\n"
	    "                 RECIPE [LABEL...]\n"
	    "\n"
	    "Build the variants (all, or the labels and what they depend on) into\n"
	    "OUTDIR (default ./allocbuild-out/<recipe name>), probe their allocators\n"
	    "and write the manifests (docs/build.md, docs/manifests.md). Up-to-date\n"
	    "variants are only re-verified; --force rebuilds. Exit 1 when a variant\n"
	    "fails or a probe finds a problem.\n"},
	{"probe", cmd_probe, "report the allocator settings in effect in a program",
	    "allocbuild probe [--allocator jemalloc|mimalloc] [--env K=V]... [--unset K]... [--timeout SECONDS] [--json] -- PROGRAM [ARGS...]\n"
	    "allocbuild probe [--allocator jemalloc|mimalloc] [--env K=V]... [--json] --archive LIB.a [--workdir DIR]\n"
	    "\n"
	    "Run PROGRAM (or a tiny program linked statically against LIB.a) with the\n"
	    "allocator's own reporting on (jemalloc stats_print, MIMALLOC_VERBOSE=1) and\n"
	    "report the settings in effect: version, build-time malloc_conf, every opt.*\n"
	    "or mimalloc option, quantum, page size, secure level. Checks each --env\n"
	    "setting against what the allocator reports. Exit 1 on invalid, unknown or\n"
	    "ineffective settings. A run is killed after --timeout seconds (60).\n"
	    "See docs/probes.md.\n"},
	{"upstream-diff", cmd_upstream_diff, "compare a vendored tree or archive with upstream",
	    "allocbuild upstream-diff [--json] [--diff] [--strict] [--strip N] [-j N] CANDIDATE UPSTREAM\n"
	    "\n"
	    "Compare two trees file by file. Each side is a directory, an archive\n"
	    "file (a single top-level directory is stripped, or --strip N), or\n"
	    "git:REPO@REV[:PATH] read from the object database. Prints every file\n"
	    "that is not identical with its class, counts per class, the dirHash of\n"
	    "each side and a summary; --diff adds unified diffs, --json the full\n"
	    "per-file table. Exit 0 when no source, header, template or build file\n"
	    "differs or is extra (--strict: any difference), 1 otherwise, 2 on bad\n"
	    "input. See docs/upstream-diff.md.\n"},
	{"identify", cmd_identify, "rank upstream releases by how well they match a tree",
	    "allocbuild identify [--json] [--strip N] [-j N] CANDIDATE UPSTREAM...\n"
	    "\n"
	    "Rank the upstreams by the number of candidate files (then bytes) they\n"
	    "hold identically, print the best with its evidence, and say plainly\n"
	    "when none matches. Exit 0 when the best matches, 1 when none does.\n"},
	{"relink", cmd_relink, "relink a CMake link.txt with another allocator archive",
	    "allocbuild relink --link-txt PATH --replace OLD=NEW [--replace OLD=NEW]... --output PATH\n"
	    "                  [--build-dir DIR] [--provenance PATH] [--check-normal] [--dry-run] [--json]\n"
	    "\n"
	    "Run the link command of a CMake link.txt (parsed without a shell) from its\n"
	    "build directory with every argument naming OLD replaced by NEW and -o set\n"
	    "to the output: a diagnostic relink, never a distributable build. Writes\n"
	    "relink-provenance.json next to the output: both argv, every input's\n"
	    "SHA-256 on both sides and the verdict. --check-normal also links the\n"
	    "unchanged command and records whether it reproduces the normal binary.\n"
	    "Exit 1 when the link fails, 2 on bad input. See docs/relink.md.\n"},
	{"verify", cmd_verify, "re-hash an output directory or evidence bundle",
	    "allocbuild verify OUTDIR|BUNDLE\n"},
	{"env", cmd_env, "print a variant's runtime environment for a benchmark",
	    "allocbuild env OUTDIR LABEL\n"
	    "allocbuild env OUTDIR --systems\n"},
	{"pr", cmd_pr, "write a pull-request body and evidence bundle",
	    "allocbuild pr [-o DIR] [--notes REPO[@COMMIT]] OUTDIR\n"},
};

static const struct command *
lookup(const char *name)
{
	for (size_t i = 0; i < AB_NELEM(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

void
ab_cmd_usage(FILE *f, const char *name)
{
	const struct command *c = lookup(name);

	if (c)
		fprintf(f, "usage: %s", c->usage);
}

static void
usage(FILE *f)
{
	fputs("usage: allocbuild <command> [options] [args]\n"
	      "       allocbuild help [command]\n"
	      "       allocbuild --version\n\n"
	      "Commands:\n", f);
	for (size_t i = 0; i < AB_NELEM(commands); i++)
		fprintf(f, "  %-14s %s\n", commands[i].name, commands[i].summary);
	fputs("\nSee allocbuild(1) and docs/ for the recipe and manifest formats.\n", f);
}

static int
help(int argc, char **argv)
{
	const struct command *c;

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	c = lookup(argv[1]);
	if (!c) {
		ab_error("help: unknown command '%s'", argv[1]);
		return AB_EXIT_USAGE;
	}
	printf("usage: %s", c->usage);
	return 0;
}

static int
wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	}
	return 0;
}

static int
finish(int rc)
{
	/* data went to stdout: a write error there must not look like success */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ab_error_errno("cannot write to standard output");
		return rc ? rc : AB_EXIT_USAGE;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	const struct command *c;
	int rc;

	if (argc < 2) {
		usage(stderr);
		return AB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("allocbuild %s\n", AB_VERSION);
		return finish(0);
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return finish(help(argc - 1, argv + 1));
	c = lookup(argv[1]);
	if (!c) {
		ab_error("unknown command '%s'", argv[1]);
		fputs("Try 'allocbuild help'.\n", stderr);
		return AB_EXIT_USAGE;
	}
	if (wants_help(argc - 1, argv + 1)) {
		printf("usage: %s", c->usage);
		return finish(0);
	}
	git_libgit2_init();
	rc = c->fn(argc - 1, argv + 1);
	git_libgit2_shutdown();
	return finish(rc);
}
