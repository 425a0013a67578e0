/*
 * allocreg: the allocator registry, one row per allocator that allocbuild
 * knows (as a protocol is one Curl_handler entry in curl and a backend one
 * registered struct in libgit2). Everything that validates, dispatches on or
 * names an allocator goes through it: a recipe's allocator.kind, a policy's
 * allocator rule, `probe --allocator`, the binary scan, the option checks of
 * `env` and `run`, the probes and `probe --pid`; a message listing the
 * allocators is made from it (ab_allockind_names).
 *
 * Adding an allocator (docs/design.md, "Adding an allocator"): its row in
 * allocreg.c, its option table section (scripts/gen-allocopts.py), its
 * probe file provenance/probe/probe_<name>.c with its struct ab_probe_ops,
 * and its tests.
 *
 * The probe operations are the probe room's (provenance/probe/probe_impl.h
 * defines struct ab_probe_ops); this room holds a pointer to them and
 * includes nothing above it.
 */
#ifndef AB_ALLOCREG_H
#define AB_ALLOCREG_H

#include <stddef.h>

struct ab_allocators;
struct ab_allocstats_ops;
struct ab_alloc_release;
struct ab_elf;
struct ab_probe_ops;
struct ab_strv;

struct ab_allockind {
	const char *name;          /* "jemalloc": recipes, policies, records, --allocator */
	/* the variables it reads: a name, "PREFIX*" or "*SUFFIX"; NULL-terminated */
	const char *const *vars;
	int has_secure;            /* has a secure level (mimalloc's MI_SECURE) */
	int detect;                /* its report can be asked of any program (tried in registry order) */
	int fallback;              /* the C library's own: the allocator of a program that holds no other */
	const struct ab_alloc_release *releases; /* its option table (allocopts_tables.c) */
	/* the version string in raw bytes (an archive member apart from its API), NULL: none */
	int (*scan_version)(char **version, const void *data, size_t len);
	/* how a binary shows it holds it: adds it to out when e does (NULL: never in a binary) */
	void (*scan)(const struct ab_allockind *k, struct ab_allocators *out, const struct ab_elf *e, const char *file,
	    int shared);
	/* one runtime setting var=value checked against its version's options (allocopts.h) */
	void (*check_env)(struct ab_strv *warnings, const char *version, const char *conf_var, const char *var,
	    const char *value);
	const struct ab_probe_ops *probe; /* provenance/probe/probe_<name>.c */
	/* its statistics at exit (run --allocator-stats, allocstats.h); NULL: allocbuild reads none */
	const struct ab_allocstats_ops *stats;
};

/* the rows, in the order a probe tries them; ends with a row whose name is NULL */
extern const struct ab_allockind ab_allockinds[];

/* the row named name, or NULL */
const struct ab_allockind *ab_allockind_find(const char *name);
/* the row of the C library's malloc (fallback set) */
const struct ab_allockind *ab_allockind_fallback(void);
/* the row's index in ab_allockinds (for per-allocator arrays of AB_ALLOCKIND_MAX) */
size_t ab_allockind_index(const struct ab_allockind *k);
#define AB_ALLOCKIND_MAX 8
/*
 * The names of the rows that pass `which` (NULL: every row), "jemalloc,
 * mimalloc, tcmalloc or glibc" (the last joined by conj); a static string
 * (one for every message that lists allocators)
 */
const char *ab_allockind_names(int (*which)(const struct ab_allockind *k), const char *conj);
/* does the row read the variable var (its name only, no '=')? */
int ab_allockind_reads(const struct ab_allockind *k, const char *var);
/* does any row read var? (the environment an allocator sees: lib/proc scrubs the same) */
int ab_allockind_any_reads(const char *var);

#endif
