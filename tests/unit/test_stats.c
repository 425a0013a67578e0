/*
 * unit tests for provenance/compare/stats: known answers (scipy 1.10.1's
 * mannwhitneyu and bootstrap, percentile method, 100,000 resamples, on
 * the same data; t7210 checks against scipy itself), and the simulation
 * of docs/runs.md: with n = 15 per label, a true 3% shift is detected in
 * at least 90% of 200 trials and an A/A difference (the same
 * distribution) shown in at most 5%. Without a ratio (a zero baseline)
 * the U test alone decides.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../provenance/compare/stats.h"
#include "unit.h"

struct known {
	const char *what;
	double a[12], b[12];
	size_t na, nb;
	double u, p;
	int exact;
	double ratio, lo, hi;         /* unpaired */
	double plo, phi;              /* paired (na == nb), else 0 */
};

static const struct known known[] = {
	{"exact", {1.1, 1.2, 1.3, 1.25, 1.15}, {1.0, 1.05, 1.02, 0.98, 1.01}, 5, 5, 25, 0.0079365079365079361, 1,
	    1.188118811881188, 1.0891089108910892, 1.2871287128712872, 1.1, 1.2755102040816326},
	{"exact, sizes differ", {3.0, 1.0, 4.5, 2.2}, {2.0, 3.5, 0.5, 5.0, 2.5, 1.5}, 4, 6, 13, 0.91428571428571426, 1,
	    1.1555555555555557, 0.4, 2.75, 0, 0},
	{"ties", {1, 2, 2, 3, 3, 3, 4, 5, 5}, {2, 3, 3, 4, 4, 4, 5, 6, 7}, 9, 9, 24.5, 0.16261321753078861, 0, 0.75, 0.5,
	    1.25, 0.6666666666666666, 0.8333333333333334},
	{"asymptotic", {100.0, 102.8, 105.6, 100.7, 103.5, 106.3, 101.4, 104.2, 107.0, 102.1, 104.9, 100.0},
	    {99.0, 99.6, 100.2, 100.8, 101.4, 102.0, 102.6, 103.2, 103.8, 104.4, 105.0, 105.6}, 12, 12, 87,
	    0.40219674304326025, 0, 1.0083088954056696, 0.9813218390804596, 1.0364271457085827, 0.9814814814814815,
	    1.0337301587301586},
};

/* two bootstrap intervals of 100,000 resamples agree to a Monte Carlo error well under 0.2% */
static int
close_to(double got, double want)
{
	return fabs(got - want) <= 0.002 * fabs(want);
}

static void
check_known(void)
{
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		const struct known *k = &known[i];
		struct ab_utest u;
		struct ab_ratio_ci ci;

		ab_stats_mannwhitney(&u, k->a, k->na, k->b, k->nb);
		CHECK(u.u == k->u);
		CHECK(fabs(u.p - k->p) < 1e-12);
		CHECK(u.exact == k->exact);
		ab_stats_ratio_ci(&ci, k->a, k->na, k->b, k->nb, 0, 1, 100000, 0.95);
		CHECK(fabs(ci.ratio - k->ratio) < 1e-12);
		CHECK(close_to(ci.lo, k->lo));
		CHECK(close_to(ci.hi, k->hi));
		if (k->na != k->nb)
			continue;
		ab_stats_ratio_ci(&ci, k->a, k->na, k->b, k->nb, 1, 1, 100000, 0.95);
		CHECK(close_to(ci.lo, k->plo));
		CHECK(close_to(ci.hi, k->phi));
		if (!close_to(ci.lo, k->plo) || !close_to(ci.hi, k->phi))
			fprintf(stderr, "%s: paired [%g, %g], scipy [%g, %g]\n", k->what, ci.lo, ci.hi, k->plo, k->phi);
	}
}

static void
check_edges(void)
{
	double a[] = {1, 2, 3}, b[] = {4, 5, 6}, z[] = {0, 1, 2}, one[] = {7};
	struct ab_ratio_ci ci, again;
	struct ab_utest u;
	struct ab_verdict_rule rule = {0.05, 0.01, 0};

	/* the smallest p of 3 against 3 is 0.1: too few runs for any verdict */
	ab_stats_mannwhitney(&u, a, 3, b, 3);
	CHECK(fabs(u.p - 0.1) < 1e-12 && u.exact);
	CHECK(fabs(ab_stats_mannwhitney_min_p(3, 3) - 0.1) < 1e-12);
	CHECK(ab_stats_min_runs(0.05) == 4);
	ab_stats_ratio_ci(&ci, a, 3, b, 3, 0, 1, 1000, 0.95);
	CHECK(ab_stats_verdict(&ci, &u, 3, 3, &rule) == AB_VERDICT_TOO_FEW);
	/* a baseline with a zero: no ratio */
	ab_stats_ratio_ci(&ci, a, 3, z, 3, 0, 1, 1000, 0.95);
	CHECK(isnan(ci.ratio) && isnan(ci.lo));
	/* one value: a ratio, no interval */
	ab_stats_ratio_ci(&ci, one, 1, b, 3, 0, 1, 1000, 0.95);
	CHECK(fabs(ci.ratio - 7.0 / 5) < 1e-12 && isnan(ci.lo));
	ab_stats_mannwhitney(&u, a, 0, b, 3);
	CHECK(isnan(u.p));
	/* the same seed gives the same interval, another seed another */
	ab_stats_ratio_ci(&ci, known[3].a, 12, known[3].b, 12, 0, 42, 2000, 0.95);
	ab_stats_ratio_ci(&again, known[3].a, 12, known[3].b, 12, 0, 42, 2000, 0.95);
	CHECK(ci.lo == again.lo && ci.hi == again.hi);
	ab_stats_ratio_ci(&again, known[3].a, 12, known[3].b, 12, 0, 43, 2000, 0.95);
	CHECK(ci.lo != again.lo || ci.hi != again.hi);
	CHECK(ab_rng_derive(1, "a") != ab_rng_derive(1, "b") && ab_rng_derive(1, "a") == ab_rng_derive(1, "a"));
	/* the verdict's direction follows the metric's */
	{
		struct ab_ratio_ci r = {.ratio = 1.05, .lo = 1.02, .hi = 1.08, .diff = 5, .undefined = AB_RATIO_DEFINED};
		struct ab_utest t = {0, 0.001, 0};

		CHECK(ab_stats_verdict(&r, &t, 10, 10, &rule) == AB_VERDICT_WORSE);
		rule.higher = 1;
		CHECK(ab_stats_verdict(&r, &t, 10, 10, &rule) == AB_VERDICT_BETTER);
		/* within the noise threshold: no difference */
		r.ratio = 1.008, r.lo = 1.004, r.hi = 1.012;
		CHECK(ab_stats_verdict(&r, &t, 10, 10, &rule) == AB_VERDICT_NONE);
		/* an interval holding 1 */
		r.ratio = 1.05, r.lo = 0.99;
		CHECK(ab_stats_verdict(&r, &t, 10, 10, &rule) == AB_VERDICT_NONE);
		/* p too high */
		r.lo = 1.02, t.p = 0.06;
		CHECK(ab_stats_verdict(&r, &t, 10, 10, &rule) == AB_VERDICT_NONE);
	}
}

/*
 * No ratio is no verdict of "no difference": 0 against 5 every time (a
 * zero baseline) differs by the U test alone, with the difference of the
 * medians; a ratio past the largest double is undefined too; the median
 * of two 1e300s (AB_METRIC_VALUE_MAX, what a record may hold) is finite
 */
static void
check_no_ratio(void)
{
	double zero[] = {0, 0, 0, 0, 0}, five[] = {5, 5, 5, 5, 5}, same[] = {0, 0, 0, 0, 0},
	    tiny[] = {1e-300, 1e-300, 1e-300, 1e-300}, huge[] = {1e300, 1e300, 1e300, 1e300},
	    big[] = {1e300, 1e300};
	struct ab_ratio_ci ci;
	struct ab_utest u;
	struct ab_verdict_rule rule = {0.05, 0.01, 0};
	enum ab_verdict v;

	ab_stats_ratio_ci(&ci, five, 5, zero, 5, 1, 1, 1000, 0.95);
	ab_stats_mannwhitney(&u, five, 5, zero, 5);
	CHECK(isnan(ci.ratio) && isnan(ci.lo) && ci.undefined == AB_RATIO_NOT_POSITIVE);
	CHECK(ci.diff == 5);
	CHECK(fabs(u.p - 0.0039767517097886) < 1e-12);
	v = ab_stats_verdict(&ci, &u, 5, 5, &rule);
	CHECK(v == AB_VERDICT_DIFFERS);
	CHECK(ab_stats_verdict_differs(v));
	CHECK_STR(ab_stats_verdict_word(v), "differs (ratio undefined)");
	CHECK_STR(ab_stats_ratio_why(ci.undefined), "a baseline value is not positive");
	/* the other way round there is a ratio: 0, worse (lower is better: higher would be) */
	ab_stats_ratio_ci(&ci, zero, 5, five, 5, 1, 1, 1000, 0.95);
	ab_stats_mannwhitney(&u, zero, 5, five, 5);
	CHECK(ci.ratio == 0 && ci.lo == 0 && ci.hi == 0 && ci.diff == -5 && ci.undefined == AB_RATIO_DEFINED);
	CHECK(ab_stats_verdict(&ci, &u, 5, 5, &rule) == AB_VERDICT_BETTER);
	/* zeros against zeros: no ratio, and no difference the U test can show */
	ab_stats_ratio_ci(&ci, same, 5, zero, 5, 1, 1, 1000, 0.95);
	ab_stats_mannwhitney(&u, same, 5, zero, 5);
	v = ab_stats_verdict(&ci, &u, 5, 5, &rule);
	CHECK(v == AB_VERDICT_NO_RATIO && !ab_stats_verdict_differs(v) && ci.diff == 0);
	CHECK_STR(ab_stats_verdict_word(v), "no difference shown (ratio undefined)");
	/* too few runs stays too few, ratio or not */
	ab_stats_mannwhitney(&u, five, 3, zero, 3);
	CHECK(ab_stats_verdict(&ci, &u, 3, 3, &rule) == AB_VERDICT_TOO_FEW);
	/* 1e300 / 1e-300 overflows: undefined, said so, and the U test decides */
	ab_stats_ratio_ci(&ci, huge, 4, tiny, 4, 0, 1, 1000, 0.95);
	ab_stats_mannwhitney(&u, huge, 4, tiny, 4);
	CHECK(isnan(ci.ratio) && ci.undefined == AB_RATIO_OVERFLOW && ci.diff == 1e300);
	CHECK_STR(ab_stats_ratio_why(ci.undefined), "the ratio is past the largest number");
	CHECK(ab_stats_verdict(&ci, &u, 4, 4, &rule) == AB_VERDICT_DIFFERS);
	/* the median of an even count of the largest values a record holds is finite */
	CHECK(ab_stats_median(big, 2) == 1e300);
	/* a defined ratio keeps its verdicts */
	CHECK(!ab_stats_verdict_differs(AB_VERDICT_NONE) && !ab_stats_verdict_differs(AB_VERDICT_TOO_FEW) &&
	    ab_stats_verdict_differs(AB_VERDICT_BETTER) && ab_stats_verdict_differs(AB_VERDICT_WORSE));
}

/*
 * 200 trials of n = 15 runs per label, noise normal with cv of the mean,
 * each run of a pair (paired) sharing a drift of the machine: how many
 * trials show the 3% worse label worse, and how many show an A/A pair
 * different
 */
static void
simulate(int *detected, int *aa, double cv, int paired)
{
	struct ab_rng r;
	struct ab_verdict_rule rule = {0.05, 0.01, 0};
	enum { N = 15, TRIALS = 200 };

	*detected = *aa = 0;
	ab_rng_seed(&r, 7);
	for (int t = 0; t < TRIALS; t++) {
		double a[N], b[N], c[N];
		struct ab_ratio_ci ci;
		struct ab_utest u;
		enum ab_verdict v;

		for (int i = 0; i < N; i++) {
			double drift = paired ? ab_rng_normal(&r) * cv : 0, own = paired ? cv / 2 : cv;

			b[i] = 100 * (1 + drift + ab_rng_normal(&r) * own);
			a[i] = 103 * (1 + drift + ab_rng_normal(&r) * own);
			c[i] = 100 * (1 + drift + ab_rng_normal(&r) * own);
		}
		ab_stats_ratio_ci(&ci, a, N, b, N, paired, (uint64_t)t, 10000, 0.95);
		ab_stats_mannwhitney(&u, a, N, b, N);
		*detected += ab_stats_verdict(&ci, &u, N, N, &rule) == AB_VERDICT_WORSE;
		ab_stats_ratio_ci(&ci, c, N, b, N, paired, (uint64_t)t + 1000, 10000, 0.95);
		ab_stats_mannwhitney(&u, c, N, b, N);
		v = ab_stats_verdict(&ci, &u, N, N, &rule);
		*aa += v == AB_VERDICT_WORSE || v == AB_VERDICT_BETTER;
	}
}

static void
check_simulation(void)
{
	static const struct {
		double cv;
		int paired;
	} cases[] = {{0.015, 0}, {0.02, 0}, {0.02, 1}};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int det, aa;

		simulate(&det, &aa, cases[i].cv, cases[i].paired);
		printf("simulation: n=15, noise %.1f%%, %s: a 3%% shift detected in %d of 200 trials, "
		    "an A/A difference shown in %d\n", cases[i].cv * 100, cases[i].paired ? "paired" : "unpaired", det, aa);
		CHECK(det >= 180);
		CHECK(aa <= 10);
	}
}

/* the layout band on hand-computed values: medians 2, 4 and 3: 4 / 2 - 1 */
static void
check_layout_band_known(void)
{
	double a[] = {3, 1, 2}, b[] = {4}, c[] = {2.5, 3.5, 3, 9};
	const double *v[] = {a, b, c, NULL};
	size_t n[] = {3, 1, 4, 0};
	struct ab_layout_band lb;

	ab_stats_layout_band(&lb, v, n, 4, 1, 1000, 0.95);
	CHECK(lb.band == 1.0);
	CHECK(lb.members == 3);
	/* a member with one value: no interval */
	CHECK(isnan(lb.lo) && isnan(lb.hi));
	n[1] = 0;
	ab_stats_layout_band(&lb, v, n, 4, 1, 1000, 0.95);
	CHECK(fabs(lb.band - (3.25 / 2 - 1)) < 1e-12);
	CHECK(lb.lo <= lb.band + 1e-12 && lb.band <= lb.hi + 1e-12 && lb.lo >= 0);
	/* one member: no band */
	n[2] = 0;
	ab_stats_layout_band(&lb, v, n, 4, 1, 1000, 0.95);
	CHECK(isnan(lb.band) && lb.members == 1);
	CHECK(ab_stats_within_band(1.05, 0.05));
	CHECK(ab_stats_within_band(1 / 1.05, 0.05));
	CHECK(!ab_stats_within_band(1.06, 0.05));
	CHECK(!ab_stats_within_band(1.0, NAN));
}

/*
 * 200 trials of a simulated data set with a known layout component
 * (docs/runs.md, "Layout noise"): the baseline and K = 5 layout variants
 * of it, each build's layout moving its figure by an offset drawn
 * uniformly from +-4% (the baseline's 0), 10 runs each with 0.5% noise;
 * the band is the true spread of that trial's six layouts. The label
 * under test is the baseline's program with an allocator effect of 2x the
 * band (reported as a difference, outside the band, in at least 90% of
 * the trials) or 0.5x (marked within layout noise in at least 90%).
 */
static void
simulate_layout(int *outside, int *within, double times)
{
	struct ab_rng r;
	struct ab_verdict_rule rule = {0.05, 0.01, 0};
	enum { K = 5, N = 10, TRIALS = 200 };

	*outside = *within = 0;
	ab_rng_seed(&r, 11);
	for (int t = 0; t < TRIALS; t++) {
		double m[K + 1][N], a[N], off[K + 1], lo = 1, hi = 1, band;
		const double *v[K + 1];
		size_t n[K + 1];
		struct ab_layout_band lb;
		struct ab_ratio_ci ci;
		struct ab_utest u;
		enum ab_verdict verdict;

		off[0] = 0;
		for (int k = 1; k <= K; k++) {
			off[k] = (ab_rng_uniform(&r) * 2 - 1) * 0.04;
			lo = 1 + off[k] < lo ? 1 + off[k] : lo;
			hi = 1 + off[k] > hi ? 1 + off[k] : hi;
		}
		band = hi / lo - 1;
		for (int k = 0; k <= K; k++) {
			for (int i = 0; i < N; i++)
				m[k][i] = 100 * (1 + off[k]) * (1 + ab_rng_normal(&r) * 0.005);
			v[k] = m[k];
			n[k] = N;
		}
		for (int i = 0; i < N; i++)
			a[i] = 100 * (1 + times * band) * (1 + ab_rng_normal(&r) * 0.005);
		ab_stats_layout_band(&lb, v, n, K + 1, (uint64_t)t, 2000, 0.95);
		ab_stats_ratio_ci(&ci, a, N, m[0], N, 0, (uint64_t)t + 500, 2000, 0.95);
		ab_stats_mannwhitney(&u, a, N, m[0], N);
		verdict = ab_stats_verdict(&ci, &u, N, N, &rule);
		if (ab_stats_verdict_differs(verdict) && !ab_stats_within_band(ci.ratio, lb.band))
			++*outside;
		if (ab_stats_verdict_differs(verdict) && ab_stats_within_band(ci.ratio, lb.band))
			++*within;
	}
}

static void
check_layout_simulation(void)
{
	int outside, within;

	simulate_layout(&outside, &within, 2);
	printf("layout simulation: an effect of 2x the band reported outside it in %d of 200 trials (within: %d)\n",
	    outside, within);
	CHECK(outside >= 180);
	simulate_layout(&outside, &within, 0.5);
	printf("layout simulation: an effect of 0.5x the band marked within layout noise in %d of 200 trials "
	    "(outside: %d)\n", within, outside);
	CHECK(within >= 180);
}

int
main(void)
{
	check_known();
	check_edges();
	check_no_ratio();
	check_simulation();
	check_layout_band_known();
	check_layout_simulation();
	return unit_done();
}
