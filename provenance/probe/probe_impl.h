/*
 * probe_impl: private to provenance/probe/probe*.c (and their unit tests and
 * fuzzer): each allocator's probe operations (struct ab_probe_ops, one
 * probe_<name>.c per row of provenance/alloc/allocreg.h), the parsers and
 * checkers of each allocator's report, the run machinery of probe.c and
 * the record helpers they share (probe_record.c). Nothing outside the probe includes this header; the
 * rest of the tree uses provenance/probe/probe.h.
 */
#ifndef AB_PROBE_IMPL_H
#define AB_PROBE_IMPL_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../../lib/proc.h"
#include "../../lib/util.h"
#include "../alloc/allocreg.h"
#include "../alloc/allocscan.h"
#include "probe.h"

/* ---- the probe's own machinery (probe.c), shared by each allocator's probe file ---- */

/* one run of the program under a probe */
struct ab_probe_run {
	struct ab_buf out, err;
	struct ab_proc_result res;
	cJSON *json; /* argv, cwd, env_set, env_removed, exit_code, signal */
};
/* run argv with the request's environment plus key=value (key NULL: nothing more); -1 when it cannot start */
int ab_probe_run(struct ab_probe_run *r, const struct ab_probe_req *req, char *const *argv, const char *key,
    const char *value);
void ab_probe_run_release(struct ab_probe_run *r);
/* move the run's JSON into rec's "run" */
void ab_probe_add_run(cJSON *rec, struct ab_probe_run *r);
/* {allocator (null when NULL), detected, requested} */
cJSON *ab_probe_new_record(const struct ab_probe_req *req, const char *allocator, int detected);
/* the problem of a run that reported nothing of `what` */
void ab_probe_no_statistics(cJSON *rec, const char *what, char *const *argv, const struct ab_probe_run *r);
/* asked for kind and nothing reported: the record says so and never claims it */
void ab_probe_asked_for(cJSON *rec, const char *kind);
/* the record's version, when the report left it unknown, from the binary scan */
void ab_probe_complete_from_scan(cJSON *rec, const struct ab_allocator *a);
/* the rows whose report can be asked of any program, joined with "or" (a registry list); static */
const char *ab_probe_detectable(void);
/* the last value of key in kv, or NULL */
const char *ab_probe_kv_get(const struct ab_kvlist *kv, const char *key);

/* what the binary (and what the request preloads) holds, read before it runs */
struct ab_probe_scan {
	struct ab_allocators al;
	const struct ab_allocator *first[AB_ALLOCKIND_MAX]; /* the first of each registry row, or NULL */
	int replacing;                                      /* allocators other than the C library's */
};
/* the first allocator of kind k in the scan, or NULL */
const struct ab_allocator *ab_probe_scan_first(const struct ab_probe_scan *sc, const struct ab_allockind *k);

/*
 * An allocator's probe operations (provenance/alloc/allocreg.h's row points
 * at them; each is defined in provenance/probe/probe_<name>.c). NULL members
 * are things the allocator does not have.
 */
struct ab_probe_ops {
	/*
	 * run argv under the allocator's own report into *out; when detecting
	 * (req->allocator NULL) and the program shows it is not this
	 * allocator, *out is NULL and 0 is returned. -1: could not run (reported).
	 */
	int (*run)(cJSON **out, const struct ab_probe_req *req, char *const *argv, const struct ab_probe_scan *sc);
	/* problems of the binary itself, from what it holds (jemalloc's prefix and MALLOC_CONF) */
	void (*scan_problems)(cJSON *rec, const struct ab_probe_scan *sc, const struct ab_probe_req *req);
	/* the probe program of an archive into b (NULL: an archive of it cannot be probed) */
	void (*archive_program)(struct ab_buf *b, const char *archive);
	const char *const *archive_libs; /* linked after the archive, NULL-terminated */
	/* probe --pid: does a read the variable var=value? 1 when it does, its settings and problems added */
	int (*pid_setting)(cJSON *rec, cJSON *settings, const struct ab_allocator *a, const char *var, const char *value,
	    const char *label);
	/* probe --pid: is a the build a variant's probe record found (beyond kind and version)? */
	int (*same_build)(const struct ab_allocator *a, const cJSON *probe);
	/* probe --pid's human form: what it shows of one allocator beyond kind, version and file */
	void (*print)(FILE *f, const cJSON *allocator);
};

/* the registry row whose operations are ops (an allocator's probe file names itself so) */
const struct ab_allockind *ab_probe_kind_of(const struct ab_probe_ops *ops);
extern const struct ab_probe_ops ab_probe_jemalloc_ops, ab_probe_mimalloc_ops, ab_probe_tcmalloc_ops,
    ab_probe_glibc_ops;

/* probe_pid.c's record helpers, for the pid_setting operations */
void ab_probe_pid_setting(cJSON *settings, const char *var, const char *setting, const char *value,
    const char *allocator, const char *status, const char *message);
void ab_probe_pid_problem(cJSON *rec, const char *kind, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/*
 * One setting of var, the option name, checked against the option table
 * releases for a's version (a row whose options are its variables or
 * tunables): read, ignored (a problem: "glibc 2.36 has no tunable X: it
 * ignores it silently"), or unchecked when the version is not known. noun
 * names what an option is ("tunable", "variable"), label the allocator
 * as the record shows it ("glibc 2.36"); record_name: the record names
 * the setting even when it is not read
 */
struct ab_alloc_release;
void ab_probe_pid_option(cJSON *rec, cJSON *settings, const struct ab_allocator *a, const struct ab_alloc_release *releases,
    const char *noun, const char *var, const char *name, const char *value, const char *label, int record_name);

/*
 * The pure parts, exposed for the unit tests. A record starts as
 * cJSON_CreateObject(); the parsers fill in what the output shows and
 * return 1 when the allocator's report was found, 0 when not.
 */
int ab_probe_jemalloc_parse(cJSON *record, const char *err);
/* problems and overrides from the parsed record and the requested MALLOC_CONF (may be NULL) */
void ab_probe_jemalloc_check(cJSON *record, const char *requested_conf);
/* err is the program's stderr, out its stdout (for the probe program's mi_version line) */
int ab_probe_mimalloc_parse(cJSON *record, const char *err, const char *out);
/* problems and overrides from the parsed record and the requested MIMALLOC_* variables */
void ab_probe_mimalloc_check(cJSON *record, const struct ab_kvlist *env);
/* set "ok" from "problems" */
void ab_probe_finish(cJSON *record);

/* how a jemalloc conf string ends, as jemalloc's malloc_conf_next() reads it */
enum conf_status { CONF_OK, CONF_ENDS_WITH_KEY, CONF_ENDS_WITH_COMMA, CONF_MALFORMED };
/* split a conf string the way jemalloc does; pairs go to keys/values (may be NULL) */
enum conf_status ab_probe_jemalloc_conf_split(const char *s, struct ab_strv *keys, struct ab_strv *values);
/* jemalloc's MALLOC_CONF for the probe: requested (may be NULL) plus the stats switches; caller frees */
char *ab_probe_jemalloc_conf(const char *requested);

/*
 * append {setting, option (when not NULL), origin, requested,
 * effective (null when NULL), status} to an "overrides" array
 */
void ab_probe_add_override(cJSON *overrides, const char *setting, const char *option, const char *origin,
    const char *requested, const char *effective, const char *status);
/* glibc: the tunables the loader reports (`ld.so --list-tunables`) into record's "effective" */
int ab_probe_glibc_parse(cJSON *record, const char *out);
/* tcmalloc: the probe's "allocbuild-probe: tcmalloc NAME=VALUE" lines into record's "effective" */
int ab_probe_tcmalloc_parse(cJSON *record, const char *err);

/* append a problem {kind, setting, origin, message} to record */
void ab_probe_add_problem(cJSON *record, const char *kind, const char *setting,
    const char *origin, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
