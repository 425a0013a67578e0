/*
 * probe_impl: private to provenance/probe/probe*.c (and their unit tests and
 * fuzzer): the parsers and checkers of each allocator's report
 * (probe_jemalloc.c, probe_mimalloc.c) and the record helpers they share
 * (probe_record.c). Nothing outside the probe includes this header; the
 * rest of the tree uses provenance/probe/probe.h.
 */
#ifndef AB_PROBE_IMPL_H
#define AB_PROBE_IMPL_H

#include <cjson/cJSON.h>

#include "../../lib/util.h"

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
/* append a problem {kind, setting, origin, message} to record */
void ab_probe_add_problem(cJSON *record, const char *kind, const char *setting,
    const char *origin, const char *fmt, ...) __attribute__((format(printf, 5, 6)));

#endif
