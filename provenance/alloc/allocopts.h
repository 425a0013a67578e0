/*
 * allocopts: which runtime options each release of an allocator reads, so that a setting can be checked against the allocator version
 * that will (or does) read it. jemalloc reports an unknown MALLOC_CONF
 * name ("Invalid conf pair") but keeps running; mimalloc silently ignores
 * an unknown MIMALLOC_* variable; glibc ignores an unknown tunable and
 * tcmalloc an unknown TCMALLOC_* variable. The tables (allocopts_tables.c) are
 * generated from the releases' own sources by scripts/gen-allocopts.py.
 *
 * A version between two releases of the table (a git commit after a tag)
 * is checked against the latest release at or before it and the answer
 * says so (*basis names that release).
 */
#ifndef AB_ALLOCOPTS_H
#define AB_ALLOCOPTS_H

#include <stddef.h>

/*
 * One shape for every allocator's table: a release and the options it
 * reads. name is what the allocator calls the option (jemalloc's conf name
 * "narenas", mimalloc's "purge_delay" read as MIMALLOC_PURGE_DELAY,
 * glibc's tunable "glibc.malloc.arena_max", tcmalloc's variable
 * "TCMALLOC_RELEASE_RATE").
 */
struct ab_alloc_option {
	const char *name;
	const char *alias;   /* "" or another name also read (mimalloc's legacy name, glibc's MALLOC_ARENA_MAX) */
	const char *feature; /* "" always read, or the configure feature it needs (jemalloc's "prof", "fill" ...) */
	const char *value;   /* the default as a decimal number, "" when not a constant */
};

struct ab_alloc_release {
	const char *version; /* "5.3.0" */
	const char *commit;  /* the release's commit, "" when its sources are not a git tree */
	const struct ab_alloc_option *options; /* NULL-terminated */
};

/* oldest first, NULL-terminated (allocopts_tables.c) */
extern const struct ab_alloc_release ab_jemalloc_releases[];
extern const struct ab_alloc_release ab_mimalloc_releases[];
extern const struct ab_alloc_release ab_glibc_releases[];
extern const struct ab_alloc_release ab_tcmalloc_releases[];

/* what a table says of a name */
enum ab_opt_answer {
	AB_OPT_UNKNOWN_VERSION, /* no release of the table at or before the version */
	AB_OPT_READ,            /* the release reads it */
	AB_OPT_NOT_READ,        /* the release does not have it */
	AB_OPT_NEEDS_FEATURE,   /* jemalloc: read only when built with *feature */
};

/*
 * Is jemalloc option `name` read by `version` ("5.3.0", "5.3.0-0-g54eaed1d...",
 * "5.3.1-47-g295e4894")? *basis: the release consulted; *feature: the
 * configure feature for AB_OPT_NEEDS_FEATURE. Both may be NULL.
 */
enum ab_opt_answer ab_allocopts_jemalloc(const char *version, const char *name, const char **basis,
    const char **feature);
/*
 * Is the environment variable `var` (MIMALLOC_PURGE_DELAY) read by mimalloc
 * `version` ("2.1.7", "v3.2.8")? *option: the option it sets (may be NULL).
 */
enum ab_opt_answer ab_allocopts_mimalloc(const char *version, const char *var, const char **basis,
    const struct ab_alloc_option **option);
/*
 * Is `name` (an option's name or alias, exactly) read by `version` of the
 * allocator whose table is `releases`? The one lookup under the two above.
 */
enum ab_opt_answer ab_allocopts_lookup(const struct ab_alloc_release *releases, const char *version,
    const char *name, const char **basis, const struct ab_alloc_option **option);
/*
 * The settings of a runtime environment that the allocator will not read,
 * as sentences appended to warnings (each a malloc'd string): for jemalloc
 * (conf_var: the variable it reads, MALLOC_CONF or PREFIX_MALLOC_CONF) a
 * plain MALLOC_CONF it does not read and every conf name its version does
 * not have; for mimalloc every MIMALLOC_* variable its version does not
 * have; for glibc every MALLOC_*_ variable and glibc.malloc tunable of
 * GLIBC_TUNABLES it does not have; for tcmalloc every TCMALLOC_* variable.
 * kind is a registry name (provenance/alloc/allocreg.h). An unknown
 * version checks nothing. env is NULL-terminated "K=V".
 */
struct ab_strv;
void ab_allocopts_check_env(struct ab_strv *warnings, const char *kind, const char *version, const char *conf_var,
    char *const *env);

/* the table's release for a version (latest at or before it), or NULL */
const struct ab_alloc_release *ab_allocopts_release(const struct ab_alloc_release *releases, const char *version);
/*
 * The allocators' own checks of one runtime setting var=value (called by
 * ab_allocopts_check_env through the registry, provenance/alloc/allocreg.h)
 */
void ab_allocopts_check_jemalloc(struct ab_strv *w, const char *version, const char *conf_var, const char *var,
    const char *value);
void ab_allocopts_check_mimalloc(struct ab_strv *w, const char *version, const char *conf_var, const char *var,
    const char *value);
void ab_allocopts_check_glibc(struct ab_strv *w, const char *version, const char *conf_var, const char *var,
    const char *value);
void ab_allocopts_check_tcmalloc(struct ab_strv *w, const char *version, const char *conf_var, const char *var,
    const char *value);

#endif
