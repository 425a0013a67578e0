/*
 * toolchain: the tools that decide the bytes of a build, each with its
 * version and the Debian package (name, version, architecture) it comes
 * from, as Debian's .buildinfo records build dependencies
 * (docs/manifests.md, "The toolchain").
 *
 *   struct ab_toolchain rec, mine;
 *   struct ab_toolchain_opts o = {.path = getenv("PATH"), .cache = "OUTDIR/.toolchain.json"};
 *   if (ab_toolchain_record(&rec, &o) < 0) ...     reported
 *   ab_toolchain_select(&mine, &rec, "cmake");       a variant's tools
 *   cJSON *doc = ab_toolchain_json(&mine);           where a file is written
 *   ab_toolchain_release(&mine); ab_toolchain_release(&rec);
 *
 * The record is a list of tools in a fixed order, written as an array of
 *   {"name": "cc", "path": "/usr/bin/cc", "file": "/usr/bin/gcc-12",
 *    "version": "gcc (Debian 12.2.0-14+deb12u1) 12.2.0",
 *    "package": "gcc-12", "package_version": "12.2.0-14+deb12u1",
 *    "architecture": "amd64", "uri": "pkg:deb/debian/gcc-12@12.2.0-14%2Bdeb12u1?arch=amd64"}
 * "path" is null for a tool that is not there; the package members are
 * null for a file no package owns. The tools: cc and its cc1, c++ and its
 * cc1plus, as and ld as cc runs them, ar, make, cmake, autoconf, libc
 * (the libc.so.6 cc links against, run for its banner), libc-dev (its
 * crt1.o), cargo and rustc. Programs run with argv vectors: `--version`, `cc
 * -print-prog-name=`, `cc -print-file-name=`, `cc -v` for cc1's banner,
 * one `dpkg-query -S` for every file and one `dpkg-query -W` for every
 * package found.
 *
 * dpkg-query -S reads every package's file list (a quarter of a second),
 * so with o->cache the record is kept in that file with the identity
 * (device, inode, size, mtime) of each tool found and of dpkg's status
 * file, and reused while they are unchanged.
 *
 * A tool's identity is what `TOOL --version` prints: its first line (the
 * record's "version") and, for the build's content key and its
 * statement's internalParameters.toolchain, the SHA-256 of all it
 * printed (ab_toolchain_identify, the one run of a tool's --version).
 */
#ifndef AB_TOOLCHAIN_H
#define AB_TOOLCHAIN_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../../lib/hash.h"
#include "../../lib/sandbox.h"

struct ab_strv;

struct ab_toolchain_opts {
	const char *path;  /* the PATH the tools are looked up in (without the compiler wrapper); NULL: $PATH */
	const char *cache; /* a file to keep the record in between runs, or NULL */
};

/* one tool of the record; every member but name NULL when unknown (JSON null) */
struct ab_tool {
	char *name;
	char *path;            /* as found (in PATH, or as cc names it); NULL: not there */
	char *file;            /* path with its links resolved */
	char *version;         /* the first line of its version */
	char *package;         /* the Debian package that owns file, and that package's */
	char *package_version;
	char *architecture;
	char *uri;             /* pkg:deb/... or file://FILE */
};
/* the tools, in the record's order; present: recorded (a record with no tools is not none) */
struct ab_toolchain {
	struct ab_tool *v;
	size_t n;
	int present;
};

/* the record (see above) into *out; AB_EFAIL (reported) only when the cache cannot be written */
int ab_toolchain_record(struct ab_toolchain *out, const struct ab_toolchain_opts *o);
/*
 * the tools of record that a build of that system uses ("autotools",
 * "cmake": with cmake, "cargo": with cargo and rustc; NULL: the common
 * tools only), into *out
 */
void ab_toolchain_select(struct ab_toolchain *out, const struct ab_toolchain *record, const char *system);
/*
 * The entry `name` ("cargo", "rustc") of a variant's tools (from
 * ab_toolchain_select) replaced by the tool at path, as a recipe names it
 * (its path NULL when it is not an executable). sandboxed: its version
 * is asked in a sandbox (lib/sandbox.h) that shows that file alone at its
 * path beside the system, never by running a recipe's program outside.
 */
void ab_toolchain_replace(struct ab_toolchain *tools, const char *name, const char *path, int sandboxed);
/* is tool name used by that build system alone ("cargo": cargo and rustc)? */
int ab_toolchain_only(const char *name, const char *system);
/* do two tools have the same name, path, file, version, package, package version, architecture and uri? */
int ab_tool_equal(const struct ab_tool *a, const struct ab_tool *b);
/*
 * in-toto ResourceDescriptors for builderDependencies: each tool found of
 * the n records once ({name, uri, annotations {path, file, version,
 * package, package_version, architecture}}), in first-seen order, a new array
 */
cJSON *ab_toolchain_descriptors(const struct ab_toolchain *const *records, size_t n);
/* the tools whose version or package version differs between a and b (present in either), "NAME: A -> B" onto out */
void ab_toolchain_diff(struct ab_strv *out, const struct ab_toolchain *a, const struct ab_toolchain *b);
/* the record as files hold it (the array above), a new array */
cJSON *ab_toolchain_json(const struct ab_toolchain *t);
/*
 * the same read back into *out (present); doc NULL: empty, not present;
 * AB_EFAIL (not reported), *out empty, when doc is not an array of objects
 * with a "name"
 */
int ab_toolchain_parse(struct ab_toolchain *out, const cJSON *doc);
void ab_toolchain_release(struct ab_toolchain *t);

/* one tool's identity: what `name --version` printed */
struct ab_tool_id {
	char *name;
	char *version;               /* its first line; NULL: the tool is missing or failed */
	char sha256[AB_HEX_LEN + 1]; /* of all it printed on stdout; "" with version NULL */
};
/* the tools a build identified, in the order they were (internalParameters.toolchain) */
struct ab_tool_ids {
	struct ab_tool_id *v;
	size_t n;
};
/*
 * Run `tool --version` (an argv vector; tool looked up in envp's PATH
 * unless it has a slash) with envp into *out (ab_tool_id_release), in
 * sandbox when one is given (a recipe's own tool); a missing tool is no
 * error: its version is NULL
 */
void ab_toolchain_identify(struct ab_tool_id *out, const char *tool, char *const *envp,
    const struct ab_sandbox *sandbox);
/* the identity of tool name appended to ids (ab_toolchain_identify) */
void ab_tool_ids_add(struct ab_tool_ids *ids, const char *name, char *const *envp);
/* {name: {"version", "version_output_sha256"} or {"version": null}}, a new object */
cJSON *ab_tool_ids_json(const struct ab_tool_ids *ids);
/* the same read back (a shard's statement) into *out; AB_EFAIL (reported) when it is not such an object */
int ab_tool_ids_parse(struct ab_tool_ids *out, const cJSON *doc);
void ab_tool_id_release(struct ab_tool_id *t);
void ab_tool_ids_release(struct ab_tool_ids *ids);

#endif
