/*
 * allocscan: which allocators a binary holds, read from the file alone
 * (never run): an executable, a shared object or a static archive.
 *
 *   jemalloc  found by its public malloc_stats_print (and mallctl) under
 *             any symbol prefix: "" (it replaces malloc), "je_", or the
 *             "_rjem_" of Rust's jemalloc crates; the prefix decides the
 *             variable it reads (PREFIX upper-cased + MALLOC_CONF). The
 *             version is the X.Y.Z-N-gHASH string of its read-only data;
 *             the baked config.malloc_conf is the string that
 *             config_malloc_conf_ctl loads (needs the symbol table).
 *   mimalloc  found by mi_malloc; the version is what mi_version()
 *             returns (its code is `mov $N, %eax; ret`), the secure level
 *             the constant printed with "secure level: %d" (x86-64 code),
 *             or a -secure in the file name.
 *   tcmalloc  found by tc_malloc (gperftools); the version is its
 *             TC_VERSION_STRING ("gperftools 2.10") in the read-only data.
 *   glibc     the allocator of a program that holds none of these; the
 *             version is the C library's banner.
 * The allocators looked for are the rows of provenance/alloc/allocreg.h.
 * What cannot be read from the file is NULL (or -1), never guessed; each
 * answer says where it came from.
 */
#ifndef AB_ALLOCSCAN_H
#define AB_ALLOCSCAN_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct ab_allocator {
	char *kind;          /* a registry name (provenance/alloc/allocreg.h) */
	char *file;          /* the file it was found in */
	int shared;          /* in a shared object (mapped, preloaded), else linked into the file */
	char *version;       /* NULL when the file does not say */
	const char *version_from; /* "version string", "mi_version()", "GNU C Library banner" ... or NULL */
	char *prefix;        /* jemalloc: the public symbol prefix, "" for none; NULL for the others */
	char *conf_var;      /* jemalloc: the variable it reads (MALLOC_CONF, _RJEM_MALLOC_CONF) */
	char *baked_conf;    /* jemalloc: config.malloc_conf, NULL when unknown */
	int secure;          /* mimalloc: the secure level, -1 when unknown */
	const char *secure_from;
	int replaces_malloc; /* defines malloc itself (an unprefixed jemalloc, mimalloc's override) */
};

struct ab_allocators {
	struct ab_allocator *v;
	size_t n;
};

/*
 * Add the allocators found in the file at path (an ELF file or an ar
 * archive of ELF objects; anything else holds none) to out. shared marks
 * a mapped shared object. Reports and returns AB_EFAIL when the file
 * cannot be read or is malformed.
 */
int ab_allocscan_file(struct ab_allocators *out, const char *path, int shared);
/* glibc's malloc, with the version of the libc at path (NULL: unknown) */
void ab_allocscan_add_glibc(struct ab_allocators *out, const char *libc_path);
void ab_allocators_release(struct ab_allocators *a);
/* the registry's scanners (struct ab_allockind's scan): add the allocator when the ELF file e holds it */
struct ab_allockind;
struct ab_elf;
void ab_allocscan_jemalloc(const struct ab_allockind *k, struct ab_allocators *out, const struct ab_elf *e,
    const char *file, int shared);
void ab_allocscan_mimalloc(const struct ab_allockind *k, struct ab_allocators *out, const struct ab_elf *e,
    const char *file, int shared);
void ab_allocscan_tcmalloc(const struct ab_allockind *k, struct ab_allocators *out, const struct ab_elf *e,
    const char *file, int shared);
/* {kind, file, linked, version, version_from, prefix, conf_var, baked_conf, secure, ...} */
cJSON *ab_allocator_json(const struct ab_allocator *a);
/* the variable a jemalloc with this public symbol prefix reads ("" -> MALLOC_CONF); caller frees */
char *ab_allocscan_conf_var(const char *prefix);

#endif
