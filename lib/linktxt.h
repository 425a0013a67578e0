/*
 * linktxt: CMake link.txt files (Unix Makefiles generator) parsed into
 * argv vectors without a shell, and argv replacement for relinks.
 *
 * A link.txt holds one command per line. CMake itself runs each line with
 * its own word splitter (kwsys), not with /bin/sh, and writes arguments
 * with POSIX shell quoting. ab_linktxt_parse() accepts exactly the subset
 * on which a POSIX shell and CMake agree, and refuses everything else with
 *   allocbuild: FILE:LINE:COL: message
 * (see docs/relink.md for the list): unbalanced quotes, shell operators
 * (; & && | ||), redirections (< > >> 2> ...), command substitution ($( and
 * backquotes), variables ($X, ${X}), unquoted glob characters (* ? [),
 * brace expansion, a leading ~ or #, a backslash at the end of a line,
 * backslashes whose meaning differs between the two splitters, NUL and CR.
 *
 * Calling protocol:
 *   struct ab_linktxt lt;
 *   if (ab_linktxt_load(&lt, "build/src/CMakeFiles/x.dir/link.txt") < 0)
 *           ...                        reported, exit 2
 *   lt.cmds[i].argv.v                  NULL-terminated argv of line lt.cmds[i].line
 *   ab_linktxt_release(&lt);
 */
#ifndef AB_LINKTXT_H
#define AB_LINKTXT_H

#include <stddef.h>
#include <stdio.h>

#include "util.h"

/* the largest link.txt or response file read; a larger one, or one that is not a regular file, is refused */
#define AB_LINKTXT_MAX ((size_t)16 << 20)

struct ab_linkcmd {
	struct ab_strv argv;
	int line;            /* 1-based line in the file */
};

struct ab_linktxt {
	char *path;          /* as given */
	struct ab_linkcmd *cmds;
	size_t ncmds;        /* blank lines are skipped, as CMake does */
};

/*
 * Parse text (a link.txt's bytes) into commands; `name` is used in
 * messages. The first error is printed to errs (stderr when NULL) as
 * "allocbuild: NAME:LINE:COL: message"; returns -1 then, and *out is empty.
 */
int ab_linktxt_parse(struct ab_linktxt *out, const char *name, const char *text, size_t len, FILE *errs);
/* read (at most AB_LINKTXT_MAX bytes of a regular file) and parse a link.txt; reports errors */
int ab_linktxt_load(struct ab_linktxt *out, const char *path);
void ab_linktxt_release(struct ab_linktxt *lt);

/*
 * Split a GCC response file's contents (whitespace, including newlines,
 * separates arguments; quotes and backslashes as in link.txt, where the
 * same refusals apply) and append the arguments to out. Reports errors
 * as NAME:LINE:COL.
 */
int ab_linktxt_parse_rsp(struct ab_strv *out, const char *name, const char *text, size_t len, FILE *errs);

/*
 * The directory CMake runs a link.txt in: for .../CMakeFiles/<target>.dir/link.txt
 * it is the directory holding CMakeFiles (build/src for Fluent Bit's
 * build/src/CMakeFiles/fluent-bit-bin.dir/link.txt). Absolute; caller frees.
 * Reports an error and returns NULL when the path does not have that shape.
 */
char *ab_linktxt_build_dir(const char *link_txt);

/*
 * Index of the output argument of a link command (the element after "-o",
 * or the "-oFILE" element itself, with *joined set), or -1 when there is
 * none. Reports nothing; more than one -o gives -2.
 */
int ab_linktxt_output_index(char *const *argv, int *joined);

#endif
