/*
 * ccstats: what ccache did for a variant's compiles, and the remote
 * cache's address as it may be recorded (docs/scale.md, "A shared
 * compile cache").
 *
 * A build with --ccache gives each build variant its own statistics log
 * (CCACHE_STATSLOG, ccache 4.x): per compiler call a "# SOURCE" line and
 * the counters it updated (cache_miss, direct_cache_hit,
 * local_storage_hit, remote_storage_hit, remote_storage_error, ...).
 * ab_ccstats_read() turns it into the record
 *   {"log": "<log path relative to OUTDIR>",
 *    "cacheable": N, "local_hits": L, "remote_hits": R, "misses": M,
 *    "uncacheable": U, "remote_errors": E, "remote_timeouts": T}
 * where cacheable = L + R + M: a call served from the local cache is a
 * local hit, one the local cache missed and the remote storage served
 * a remote hit, one that compiled a miss; links, preprocessor-only
 * calls, autoconf tests and the like are uncacheable. A call whose
 * remote storage failed (connection refused, timeout) counts in
 * remote_errors or remote_timeouts: ccache then went on with the local
 * cache only, so the build did not fail. After a run, the variants'
 * compile logs say which local hits took an entry an earlier variant of
 * the same run stored (ab_ccstats_attribute): "from_earlier_variants".
 */
#ifndef AB_CCSTATS_H
#define AB_CCSTATS_H

#include <cjson/cJSON.h>

#include "../../lib/util.h"

/* the statistics log's name in a variant's logs directory */
#define AB_CCSTATS_LOG "ccache-stats.log"

/*
 * What one compiler call got from ccache, as the compile log's last field
 * says it (builder/ccwrap.h): compiled and stored in the local cache, taken
 * from the local cache, taken from the remote storage (and stored in the
 * local cache), or none of these (not through ccache, or uncacheable).
 */
#define AB_CCSTATS_MISS "miss"
#define AB_CCSTATS_HIT "hit"
#define AB_CCSTATS_REMOTE_HIT "remote-hit"
#define AB_CCSTATS_NONE "-"

/*
 * Is url, a list of URLs separated by spaces, each a remote storage that
 * ccache 4.7 can use: redis://[USERINFO@]HOST[:PORT][/DB],
 * redis+unix:PATH, http://[USERINFO@]HOST[:PORT]/PATH or file:PATH, each
 * optionally followed by |NAME=VALUE attributes, and made only of what a
 * URL allows where it stands (RFC 3986: percent-encodings well formed, a
 * port a number up to 65535, a host present)? 0, or AB_EFAIL with the
 * reason in why, which never quotes the URL's bytes. ccache prints a URL
 * it cannot parse, password included, into whatever log the compiler's
 * output goes to (a configure log): every URL allocbuild hands it passes
 * this first (https:// is refused: Debian 12's ccache has no TLS).
 */
int ab_ccstats_remote_check(const char *url, char *why, size_t whylen);
/* the remote storage as records show it: lib/redact.h's rule (ab_url_redact), kept for its callers; caller frees */
char *ab_ccstats_redact(const char *url);
/* an environment entry "K=V" as records and the plan show it: lib/redact.h's rule (ab_redact_env); caller frees */
char *ab_ccstats_env_shown(const char *kv);

/*
 * The record of the statistics log at path (rel is what the record names)
 * into *out; *out is NULL when there is no log (nothing was compiled
 * through ccache). AB_EFAIL reported when it exists and cannot be read.
 */
int ab_ccstats_read(cJSON **out, const char *path, const char *rel);
/*
 * The result of the one compiler call whose statistics log (its counters
 * alone, text of len bytes) is text: one of AB_CCSTATS_*, static.
 */
const char *ab_ccstats_call_result(const char *text, size_t len);
/*
 * The local hits of each variant compiled in one run that took an entry
 * another variant of the run stored: adds "from_earlier_variants" to
 * recs[i] (skipped when NULL) from the compile logs logs[i] (their text,
 * NULL when none) of the n variants. A hit counts when another variant's
 * log has the same compile (object digest, directory, output, source and
 * command, under the sandbox's fixed names) as a miss or a remote hit:
 * that variant stored the entry before this call found it. A compile
 * several variants stored at once counts for each other one.
 */
void ab_ccstats_attribute(cJSON *const *recs, const char *const *logs, size_t n);
/* the calls of the record whose remote storage failed (errors and timeouts) */
int ab_ccstats_remote_failures(const cJSON *rec);
/* the record's one-line summary, "12 compiles: 1 local hit (1 from earlier variants of this build), 10 remote hits, 1 miss (92% hits)" (caller frees) */
char *ab_ccstats_summary(const cJSON *rec);

#endif
