/*
 * proberesult: a probe's result as a build keeps it (provenance/record/record.h):
 * its verdict typed (allocator, version, secure level, ok or failed,
 * problems, overrides), what the build decides on and its table prints,
 * beside the report, the probe's record as it is written
 * (allocator-probes.json, state.json; provenance/probe/probe.h makes it).
 * The verdict is read from the report in one place, ab_probe_result_read,
 * when the probe is done, when state.json is read, and again after the
 * probe's later steps change the report (a cargo build's bundled
 * jemalloc, the recipe's expect: provenance/probe/probe.h).
 */
#ifndef AB_PROBERESULT_H
#define AB_PROBERESULT_H

#include <stddef.h>

#include <cjson/cJSON.h>

struct ab_probe_problem {
	char *kind;                     /* "invalid_option", "expect_mismatch", "timeout", ... */
	char *setting, *origin;         /* each may be NULL */
	char *message;
};
/* a setting the probe checked: what was requested, what the allocator reports */
struct ab_probe_override {
	char *setting, *option;         /* option may be NULL */
	char *origin, *requested;       /* "build" or "runtime"; the value asked for */
	char *effective;                /* NULL when the allocator reports none */
	char *status;                   /* "ok", "match", "default", "set_by_probe", "ignored", ... */
};
struct ab_probe_result {
	char *allocator;                /* "jemalloc", "mimalloc", "glibc", or NULL: none found */
	char *version;                  /* as reported (a cargo build's: its crate's), or NULL */
	char *conf_var;                 /* the variable its configuration is read from (jemalloc's prefix), or NULL */
	int bogus_version;              /* jemalloc's configure found no VERSION (provenance/alloc/allocver.h) */
	int secure;                     /* mimalloc's secure level; -1: none reported */
	int ok;                         /* the probe ran and found no problem */
	int failed;                     /* it found one (a report without a verdict is neither) */
	struct ab_probe_problem *problems;
	size_t nproblems;
	struct ab_probe_override *overrides;
	size_t noverrides;
	cJSON *report;                  /* the record, owned */
};
/* the result of a probe's record (taken); NULL when report is NULL */
struct ab_probe_result *ab_probe_result_new(cJSON *report);
/* the record as it is written to a file (a copy; caller frees) */
cJSON *ab_probe_result_json(const struct ab_probe_result *r);
/* read r->report's verdict into r again, after the report changed */
void ab_probe_result_read(struct ab_probe_result *r);
void ab_probe_result_free(struct ab_probe_result *r);

/*
 * allocator-probes.json read back, typed: its one reader, for the
 * commands that read an OUTDIR afterwards (pr). The shape read:
 *
 *   {variants: [{label, base, requested: {env, unset}, probe: REPORT}]}
 *
 * each report's verdict read as a build's (ab_probe_result_read), the
 * report kept for what is shown as it is. An entry without its label or
 * its probe, or a label twice, is refused.
 */
struct ab_probe_entry {
	char *label, *base;
	struct ab_probe_result *result; /* owned */
};
struct ab_probe_results {
	struct ab_probe_entry *v;
	size_t n;
};
/* doc read into *out; AB_EFAIL (reported, naming file and key) when it is not one */
int ab_probe_results_parse(struct ab_probe_results *out, const cJSON *doc, const char *file);
/* the result of label, or NULL */
const struct ab_probe_result *ab_probe_results_get(const struct ab_probe_results *r, const char *label);
void ab_probe_results_release(struct ab_probe_results *r);

#endif
