/*
 * linkinputs: the input files of a compiler-driver link command, resolved
 * and hashed, for relink provenance.
 *
 * From an argv such as CMake's link.txt holds (`/usr/bin/c++ ... -o OUT
 * a.o ../lib/libx.a -L../lib -lm -Wl,--version-script=v.map @objs.rsp`),
 * ab_linkinputs_collect() finds every file the link reads that the command
 * names: objects, archives, shared libraries, linker scripts (-T,
 * --version-script, --dynamic-list, also through -Wl, and -Xlinker),
 * response files (hashed, and expanded to find the inputs they name),
 * -l libraries resolved as the linker does (-L directories in order, then
 * the compiler's default search path from `CC -print-search-dirs`;
 * lib<name>.so before lib<name>.a unless -static / -Wl,-Bstatic is in
 * effect; -l:<file> exactly), and the files named by GNU ld scripts found
 * that way (libc.so's GROUP). Inputs the driver adds on its own (crt*.o,
 * libgcc) are not listed (docs/relink.md).
 *
 * Calling protocol:
 *   struct ab_link_inputs in = {0};
 *   ab_linkinputs_default_dirs(&dirs, argv[0], cwd, envp);   optional
 *   if (ab_linkinputs_collect(&in, argv, cwd, dirs.v) < 0) ...  reported
 *   if (ab_linkinputs_hash(&in) < 0) ...                        reported
 *   in.v[i].sha256 ...
 *   ab_linkinputs_release(&in);
 */
#ifndef AB_LINKINPUTS_H
#define AB_LINKINPUTS_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../../lib/hash.h"
#include "../../lib/sandbox.h"
#include "../../lib/util.h"

struct ab_link_input {
	char *arg;         /* what named it: "../../lib/libx.a", "-lm", "-Wl,--version-script=v.map", "@o.rsp" */
	char *path;        /* absolute, normalised (symlinks kept); NULL for a -l library not found */
	char *via;         /* how it was found: "argv", "-L ../lib", "default search path",
	                      "response file o.rsp", "linker script /usr/lib/x/libc.so" */
	const char *kind;  /* object, archive, shared-library, linker-script, response-file, file */
	int argi;          /* index of the argv element that named it (for nested inputs: of the outer one) */
	char sha256[AB_HEX_LEN + 1]; /* empty until hashed, or when not found */
	uint64_t size;
};

struct ab_link_inputs {
	struct ab_link_input *v;
	size_t n;
	struct ab_strv search_dirs; /* the -L directories met, absolute, in order */
};

/*
 * The compiler's default library search path (`CC -print-search-dirs`,
 * "libraries: =a:b:..."), absolute and normalised, existing directories
 * only, duplicates removed. Runs compiler in cwd with envp (NULL:
 * inherit), in sandbox when it is not NULL (compiler and cwd as it sees
 * them; the system directories it reports are the host's). Reports errors.
 */
int ab_linkinputs_default_dirs(struct ab_strv *out, const char *compiler, const char *cwd, char *const *envp,
    const struct ab_sandbox *sandbox);

/*
 * Collect the inputs of argv (argv[0] is the driver) run in cwd;
 * default_dirs (NULL-terminated, may be NULL) are searched after -L.
 * A named input that does not exist is an error (reported); a -l library
 * that is not found is kept with path NULL (the linker decides). confine
 * (may be NULL): a tree (a build directory a sandboxed step wrote) whose
 * response files and linker scripts are read only through no symlink
 * that leaves it (lib/dirwalk.h's ab_dirwalk_read_below).
 */
int ab_linkinputs_collect(struct ab_link_inputs *out, char *const *argv, const char *cwd, char *const *default_dirs,
    const char *confine);

/* hash every found input, each distinct file once; jobs <= 0: ab_hash_default_jobs(); reports errors */
int ab_linkinputs_hash(struct ab_link_inputs *in, int jobs);
/* the same for two input lists at once (the two sides of a relink): a file on both sides is read once */
int ab_linkinputs_hash_pair(struct ab_link_inputs *a, struct ab_link_inputs *b, int jobs);

/* one input as JSON: {"arg", "path", "via", "kind", "size", "sha256"} */
cJSON *ab_linkinputs_json(const struct ab_link_input *in);

void ab_linkinputs_release(struct ab_link_inputs *in);

#endif
