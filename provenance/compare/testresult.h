/*
 * testresult: compare's findings as in-toto test results
 * (https://in-toto.io/attestation/test-result/v0.1), the predicate policy
 * engines and reviewers' tools read (docs/runs.md, "Test results"): one
 * Statement per run name, OUTDIR/test-results/NAME.intoto.json, written by
 * `compare --sign` and by `sign` (provenance/review/sign.h), which signs it
 * with the OUTDIR's other Statements.
 *
 *   subject        the artifacts the runs ran (each run record's subject), with their sha256
 *   predicate
 *     result       FAILED when a test failed, else WARNED when one warned, else PASSED
 *     configuration  ResourceDescriptors: recipe.json (sha256), compare's settings
 *                  (seed, resamples, threshold, alpha, level, baseline, pairing: annotations),
 *                  and each run record (sha256; its label and run environment: annotations)
 *     passedTests, warnedTests, failedTests
 *                  "METRIC[ CELL]: LABEL against BASELINE", one a label (and cell) and
 *                  metric: failed when worse beyond the threshold (an A/A control: when it
 *                  differs at all), warned when nothing can be said (too few runs, a
 *                  difference without a ratio, an unreliable set), else passed
 *     tests        the extension: per test its figures (n, medians, ratio, interval, p,
 *                  verdict) and `shown`, the texts compare and pr.md print for them
 *     figures      every label's figures (n, median, min, max, and `shown`)
 *     byproducts   recipe.json and the run records with their sha256, so that
 *                  `verify --key` and docs/dsse-verify.py check them
 *
 * The same runs and settings give the same bytes (compare's statistics are
 * seeded), so writing them again changes nothing a signature covers.
 */
#ifndef AB_TESTRESULT_H
#define AB_TESTRESULT_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../../lib/util.h"
#include "../record/bundle.h"
#include "compare.h"

#define AB_TESTRESULT_PREDICATE "https://in-toto.io/attestation/test-result/v0.1"
#define AB_TESTRESULT_DIR AB_TEST_RESULTS

/*
 * the Statement of a run name of c: its set, or its n sets, one a host
 * (AB_HOSTS_SPLIT: each test and figure names its host, "METRIC: LABEL
 * against BASE on HOST"); recorded gives SHA256SUMS's paths and digests;
 * caller frees
 */
cJSON *ab_testresult_statement(const struct ab_comparison *c, const struct ab_compare_set *sets, size_t n,
    const struct ab_strv *paths, const struct ab_strv *hexes);
/*
 * OUTDIR/test-results/NAME.intoto.json for every run name of OUTDIR's runs
 * (compare with the options of o, or its defaults when o is NULL), each
 * written atomically; the directory's other files removed. *n gets how
 * many (0 and nothing written when OUTDIR has no runs). 0, AB_ECHECK (a
 * record does not hold what SHA256SUMS says) or AB_EFAIL (reported)
 */
int ab_testresult_write(size_t *n, const char *outdir, const struct ab_compare_opts *o);
/* is rel (relative to OUTDIR) a test-result Statement's place: test-results/NAME.intoto.json? */
int ab_testresult_is_statement(const char *rel);

#endif
