/*
 * cmakeprov: what a CMake build directory says about how it was built.
 *
 * Calling protocol (the build writes cmake-cache-provenance.json so):
 *
 *	cJSON *doc = ab_cmakeprov_doc_new();
 *	for each cmake variant, after its build step:
 *		cJSON *rec;
 *		if (ab_cmakeprov_read(&rec, build_dir, targets, ntargets) < 0)
 *			fail (the error has been reported);
 *		if (ab_cmakeprov_doc_add(doc, label, rec) < 0)   (takes rec)
 *			fail;
 *	ab_json_write(".../cmake-cache-provenance.json", doc);
 *	cJSON_Delete(doc);
 *
 * ab_cmakeprov_read() records, from BUILD_DIR (docs/cmake-provenance.md has
 * the exact format):
 *  - the allocator-relevant keys of CMakeCache.txt with their types
 *    (FLB_*, MI_*, SANITIZE_*, CMAKE_BUILD_TYPE, compilers, CMAKE_C_FLAGS*,
 *    CMAKE_CXX_FLAGS*, CMAKE_EXE_LINKER_FLAGS*, CMAKE_AR, CMAKE_GENERATOR,
 *    WITH_SYSTEM_MALLOC; named keys that are absent are recorded as null,
 *    and FLB_JEMALLOC_OPTIONS, absent when Fluent Bit's default applies,
 *    as "defaulted"), and the sha256 of the whole file;
 *  - for each target, the variables of its flags.make (C_FLAGS, C_DEFINES,
 *    C_INCLUDES, CXX_...) and the lines of its link.txt (Unix Makefiles
 *    generator);
 *  - the effective build type, detected from the targets' compile flags,
 *    which may differ from the cache (Fluent Bit's FLB_DEBUG shadows
 *    CMAKE_BUILD_TYPE with a normal variable);
 *  - compiler path, id and version from CMakeFiles/<version>/
 *    CMakeCCompiler.cmake and CMakeCXXCompiler.cmake;
 *  - the configure argv of an ExternalProject named jemalloc, from
 *    jemalloc-prefix/tmp/jemalloc-cfgcmd.txt, when present.
 *
 * ab_cmakeprov_diff() compares two records after replacing each record's
 * own source and build directories by "<source>" and "<build>", so two
 * variants built in different directories differ only where their
 * configuration does.
 */
#ifndef AB_CMAKEPROV_H
#define AB_CMAKEPROV_H

#include <stddef.h>

#include <cjson/cJSON.h>

/*
 * Read the provenance record of a CMake build directory into *out (freed
 * with cJSON_Delete). targets names the targets whose flags.make and
 * link.txt are recorded; ntargets 0 means every target of the build that
 * has a flags.make. A named target that the build does not have is
 * recorded as {"found": false}. Reports errors (no or malformed
 * CMakeCache.txt, unreadable files) and returns -1; *out is then NULL.
 */
int ab_cmakeprov_read(cJSON **out, const char *build_dir, char *const *targets, size_t ntargets);

/*
 * A build through a compiler wrapper (builder/ccwrap.h): CMake found and
 * recorded the wrapper's links in wrapper_dir. Each compiler of rec whose
 * path is there is recorded as the real compiler the wrapper runs, the
 * first of its name in search_path (a PATH) that is not in wrapper_dir,
 * with the wrapper's path as "wrapper". The cache keys stay as CMake wrote
 * them.
 */
void ab_cmakeprov_unwrap(cJSON *rec, const char *wrapper_dir, const char *search_path);

/*
 * The differences between two records: *out is a new array (freed with
 * cJSON_Delete), empty when they agree, of
 *   {"section": "keys"|"build_type"|"compilers"|"targets"|"jemalloc"|"cmake",
 *    "key": "...", "a": VALUE, "b": VALUE}
 * where VALUE is a string, or "absent". Cache keys are shown as they are
 * written in CMakeCache.txt after "KEY:", i.e. "TYPE=value".
 * Returns -1 (reported) when a record is malformed.
 */
int ab_cmakeprov_diff(cJSON **out, const cJSON *a, const cJSON *b);

/*
 * The document, cmake-cache-provenance.json (docs/cmake-provenance.md),
 * format version 2:
 *
 *   {_type, version: 2, baseline: LABEL,
 *    variants: [{label, ...the variant's record}],   in the order added (plan order)
 *    diffs: [{a: LABEL, b: LABEL, differences: [{section, key, a, b}]}]}
 *
 * Version 1 kept variants in an object keyed by label ({LABEL: record});
 * the reader still reads it.
 */
#define AB_CMAKEPROV_DOC_VERSION 2

/*
 * a new, empty cmake-cache-provenance document (freed with cJSON_Delete):
 * _type, version, baseline, variants, diffs; the caller may add the other
 * members of the manifest header (recipe, invocation_id)
 */
cJSON *ab_cmakeprov_doc_new(void);
/*
 * Add a variant's record to doc under label, taking ownership of rec
 * (also on error), and its diff against the first variant added. Refuses
 * a label added twice. Reports errors.
 */
int ab_cmakeprov_doc_add(cJSON *doc, const char *label, cJSON *rec);

/* the document read back, typed: its one reader (pr) */
struct ab_cmakeprov_difference {
	char *section, *key;    /* section "keys", "build_type", "compilers", "targets", "jemalloc" or "cmake" */
	char *a, *b;            /* the values as strings; NULL when not a string */
};
struct ab_cmakeprov_pair {
	char *a, *b;            /* the labels: the baseline, the variant against it */
	struct ab_cmakeprov_difference *d;
	size_t n;
};
struct ab_cmakeprov_entry {
	char *label;
	cJSON *record;          /* the variant's record as written (without its label), owned */
};
struct ab_cmakeprov_doc {
	int version;            /* 1 or 2 */
	char *baseline;         /* NULL when no variant was added */
	struct ab_cmakeprov_entry *variants;   /* in the order added */
	size_t nvariants;
	struct ab_cmakeprov_pair *diffs;
	size_t ndiffs;
};
/*
 * doc read into *out (either version); AB_EFAIL (reported, naming file
 * and the key) when it is not one: a variant without its label or twice,
 * a diff without its two labels, a member of the wrong type
 */
int ab_cmakeprov_doc_parse(struct ab_cmakeprov_doc *out, const cJSON *doc, const char *file);
void ab_cmakeprov_doc_release(struct ab_cmakeprov_doc *d);

/*
 * The parsers, exposed for the unit tests and for other modules. Each
 * parses len bytes of text (name is used in error messages) into a new
 * cJSON object in *out, freed with cJSON_Delete; they report errors with
 * name:line and return -1.
 *
 * CMakeCache.txt: every entry KEY:TYPE=VALUE (or "KEY":TYPE=VALUE) as
 * KEY -> {"type": TYPE, "value": VALUE}; a value enclosed in single quotes
 * loses them, as CMake reads it; property entries KEY-ADVANCED,
 * KEY-MODIFIED, KEY-STRINGS (type INTERNAL) of an existing key become
 * "advanced": true, "modified": true, "strings": VALUE on KEY.
 */
int ab_cmakeprov_parse_cache(cJSON **out, const char *text, size_t len, const char *name);
/* flags.make: every "NAME = value" line as NAME -> value (trimmed) */
int ab_cmakeprov_parse_flags(cJSON **out, const char *text, size_t len, const char *name);
/* CMake<LANG>Compiler.cmake: every set(NAME "value") or set(NAME value) as NAME -> value */
int ab_cmakeprov_parse_compiler(cJSON **out, const char *text, size_t len, const char *name);
/*
 * <name>-cfgcmd.txt of an ExternalProject, cmd='a;b;c': *out is an array
 * of the list's elements (CMake list rules: \; is a literal semicolon,
 * semicolons inside square brackets do not split)
 */
int ab_cmakeprov_parse_cfgcmd(cJSON **out, const char *text, size_t len, const char *name);

/*
 * The build type whose CMAKE_<LANG>_FLAGS_<CONFIG> (from cache, as parsed
 * by ab_cmakeprov_parse_cache) appear, as a run of whole words, in flags
 * (a flags.make C_FLAGS or CXX_FLAGS value); the longest match wins.
 * Returns "Debug", "Release", "RelWithDebInfo", "MinSizeRel", or "" when
 * none matches (a static string).
 */
const char *ab_cmakeprov_detect_build_type(const cJSON *cache, const char *lang, const char *flags);

#endif
