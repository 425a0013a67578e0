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

/* a seeded generator (xoshiro256**) */
struct ab_rng {
	uint64_t s[4];
};

void ab_rng_seed(struct ab_rng *r, uint64_t seed);
uint64_t ab_rng_next(struct ab_rng *r);
/* uniform in [0, 1) */
double ab_rng_uniform(struct ab_rng *r);
/* standard normal (Box-Muller) */
double ab_rng_normal(struct ab_rng *r);
/* a seed of its own for one comparison, from the run set's and a name (FNV-1a, then splitmix64) */
uint64_t ab_rng_derive(uint64_t seed, const char *name);

/* the median of v[0..n) (v is left sorted); NAN when n is 0 */
double ab_stats_median(double *v, size_t n);

struct ab_ratio_ci {
	double ratio;   /* median(a) / median(b); NAN when median(b) <= 0 */
	double lo, hi;  /* the interval; NAN when there is none */
};

/*
 * The ratio of the medians of a and b with its bootstrap interval at
 * level (0.95). paired: a[i] and b[i] are a pair (na == nb). No interval
 * when a side has fewer than 2 values or a value of b is not positive.
 */
void ab_stats_ratio_ci(struct ab_ratio_ci *out, const double *a, size_t na, const double *b, size_t nb, int paired,
    uint64_t seed, int resamples, double level);

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
	AB_VERDICT_NO_RATIO,   /* the baseline's values are not all positive: no ratio */
};

struct ab_verdict_rule {
	double alpha;      /* 0.05 */
	double threshold;  /* the noise threshold, 0.01: a ratio within 1 +- it is no difference */
	int higher;        /* higher is better */
};

/*
 * better or worse only when the U test gives p < alpha, the interval
 * excludes 1 and the ratio is farther from 1 than the threshold; else no
 * difference shown
 */
enum ab_verdict ab_stats_verdict(const struct ab_ratio_ci *ci, const struct ab_utest *u, size_t na, size_t nb,
    const struct ab_verdict_rule *rule);
const char *ab_stats_verdict_word(enum ab_verdict v);

#endif
