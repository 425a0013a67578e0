/*
 * stats: the statistics of `allocbuild compare` (docs/runs.md,
 * "Statistics"): medians, the bootstrap interval of a ratio of medians,
 * the Mann-Whitney U test, and the verdict they give. Pure functions of
 * arrays of doubles and a seed: the same input gives the same output.
 *
 * The bootstrap: `resamples` times, each sample is drawn again with
 * replacement (pairs of (a, b) drawn together when paired) and the ratio
 * median(a*) / median(b*) taken; the interval is the percentile interval
 * of those ratios (linear interpolation between order statistics, as
 * numpy's percentile). The random numbers are xoshiro256** seeded by
 * splitmix64 from the seed.
 *
 * The U test is two-sided, as scipy.stats.mannwhitneyu's default: exact
 * when both samples have at most 8 values and no value ties, else the
 * normal approximation with the tie correction and the continuity
 * correction.
 */
#ifndef AB_STATS_H
#define AB_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "../../lib/rng.h"

/* the median of v[0..n) (v is left sorted); NAN when n is 0 */
double ab_stats_median(double *v, size_t n);

/* why a ratio of medians has no value */
enum ab_ratio_undefined {
	AB_RATIO_DEFINED,
	AB_RATIO_NOT_POSITIVE, /* a value of the baseline is zero or negative */
	AB_RATIO_OVERFLOW,     /* median(a) / median(b) is past the largest double */
	AB_RATIO_EMPTY,        /* a side has no values */
};

struct ab_ratio_ci {
	double ratio;   /* median(a) / median(b); NAN when undefined */
	double lo, hi;  /* the interval; NAN when there is none; hi may be infinite (a resample's ratio overflowed) */
	double diff;    /* median(a) - median(b), the absolute difference, whatever the ratio; NAN when a side is empty */
	enum ab_ratio_undefined undefined;
};

/*
 * The ratio of the medians of a and b with its bootstrap interval at
 * level (0.95), and their difference. paired: a[i] and b[i] are a pair
 * (na == nb). No ratio when a value of b is not positive or the ratio
 * overflows; no interval then, or when a side has fewer than 2 values.
 * The values must be finite (provenance/runs/metrics.h: AB_METRIC_VALUE_MAX).
 */
void ab_stats_ratio_ci(struct ab_ratio_ci *out, const double *a, size_t na, const double *b, size_t nb, int paired,
    uint64_t seed, int resamples, double level);

/*
 * The layout band (docs/runs.md, "Layout noise"): k builds of one program
 * that differ only in code layout (builder/layout.h), each with its
 * values; band is the spread of their medians, max / min - 1, and lo, hi
 * its bootstrap interval at level (each member's values drawn again
 * apart). NAN when fewer than two members have values or a median is not
 * positive; no interval when a member has fewer than 2 values.
 */
struct ab_layout_band {
	double band, lo, hi;
	size_t members;     /* the members with values */
};

void ab_stats_layout_band(struct ab_layout_band *out, const double *const *v, const size_t *n, size_t k,
    uint64_t seed, int resamples, double level);
/* is a ratio of medians inside a band: max(ratio, 1 / ratio) - 1 <= band */
int ab_stats_within_band(double ratio, double band);

struct ab_utest {
	double u;      /* U of a (scipy's U1: the pairs (a[i], b[j]) with a[i] > b[j], ties counting half) */
	double p;      /* two-sided; NAN when a side is empty */
	int exact;     /* from the exact distribution */
};

void ab_stats_mannwhitney(struct ab_utest *out, const double *a, size_t na, const double *b, size_t nb);
/* the smallest two-sided p the test can give for these sizes (exact, no ties): 2 / C(na + nb, na) */
double ab_stats_mannwhitney_min_p(size_t na, size_t nb);
/* the fewest runs per side (equal sizes) with which the test can reach p < alpha */
size_t ab_stats_min_runs(double alpha);

enum ab_verdict {
	AB_VERDICT_NONE,       /* no difference shown */
	AB_VERDICT_BETTER,
	AB_VERDICT_WORSE,
	AB_VERDICT_TOO_FEW,    /* the test cannot reach alpha with these sizes */
	AB_VERDICT_NO_RATIO,   /* no ratio, and the U test shows no difference */
	AB_VERDICT_DIFFERS,    /* no ratio, and the U test shows a difference (p < alpha) */
};

struct ab_verdict_rule {
	double alpha;      /* 0.05 */
	double threshold;  /* the noise threshold, 0.01: a ratio within 1 +- it is no difference */
	int higher;        /* higher is better */
};

/*
 * better or worse only when the U test gives p < alpha, the interval
 * excludes 1 and the ratio is farther from 1 than the threshold; else no
 * difference shown. Without a ratio (a zero baseline: 0 against 5) the U
 * test alone decides: differs when p < alpha, never "no difference" for
 * want of a ratio.
 */
enum ab_verdict ab_stats_verdict(const struct ab_ratio_ci *ci, const struct ab_utest *u, size_t na, size_t nb,
    const struct ab_verdict_rule *rule);
/* does the verdict say the two sides differ (better, worse, or differs without a ratio)? */
int ab_stats_verdict_differs(enum ab_verdict v);
const char *ab_stats_verdict_word(enum ab_verdict v);
/* why a ratio is undefined, in words ("a baseline value is not positive"); NULL when it is defined */
const char *ab_stats_ratio_why(enum ab_ratio_undefined u);

#endif
