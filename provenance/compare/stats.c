#include "stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double
ab_stats_median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the median of a resample: x in ascending order, c[i] how often x[i] was drawn */
static double
median_of_counts(const double *x, const unsigned *c, size_t n)
{
	size_t want = n % 2 ? (n + 1) / 2 : n / 2, cum = 0, i = 0;
	double lo;

	for (;; i++) {
		cum += c[i];
		if (cum >= want)
			break;
	}
	lo = x[i];
	if (n % 2 || cum >= want + 1)
		return lo;
	while (!c[++i])
		;
	return (lo + x[i]) / 2;
}

/* numpy's percentile (linear) of sorted v[0..n); an infinite neighbour gives an infinite bound, not inf - inf */
static double
percentile(const double *v, size_t n, double q)
{
	double h = (double)(n - 1) * q;
	size_t k = (size_t)h;

	if (k + 1 >= n || h == (double)k || v[k + 1] == v[k])
		return v[k < n ? k : n - 1];
	return v[k] + (h - (double)k) * (v[k + 1] - v[k]);
}

static int
cmp_index(const void *a, const void *b, void *base)
{
	double x = ((const double *)base)[*(const size_t *)a], y = ((const double *)base)[*(const size_t *)b];

	return x < y ? -1 : x > y;
}

/* the indices of v in ascending order of value */
static size_t *
order_of(const double *v, size_t n)
{
	size_t *o = ab_calloc(n ? n : 1, sizeof(*o));

	for (size_t i = 0; i < n; i++)
		o[i] = i;
	qsort_r(o, n, sizeof(*o), cmp_index, (void *)v);
	return o;
}

void
ab_stats_ratio_ci(struct ab_ratio_ci *out, const double *a, size_t na, const double *b, size_t nb, int paired,
    uint64_t seed, int resamples, double level)
{
	double *sa, *sb, *ratios;
	unsigned *ca, *cb;
	size_t *ra = NULL, *rb = NULL;
	struct ab_rng rng;

	out->ratio = out->lo = out->hi = out->diff = NAN;
	out->undefined = AB_RATIO_EMPTY;
	if (!na || !nb)
		return;
	sa = ab_calloc(na, sizeof(*sa));
	sb = ab_calloc(nb, sizeof(*sb));
	memcpy(sa, a, na * sizeof(*a));
	memcpy(sb, b, nb * sizeof(*b));
	{
		double ma = ab_stats_median(sa, na), mb = ab_stats_median(sb, nb);

		out->diff = ma - mb;
		/* sb is sorted: its first value is its least */
		out->undefined = !(sb[0] > 0) ? AB_RATIO_NOT_POSITIVE : !isfinite(ma / mb) ? AB_RATIO_OVERFLOW :
		    AB_RATIO_DEFINED;
		if (out->undefined == AB_RATIO_DEFINED)
			out->ratio = ma / mb;
	}
	if (out->undefined != AB_RATIO_DEFINED || na < 2 || nb < 2 || resamples < 2 || (paired && na != nb)) {
		free(sa);
		free(sb);
		return;
	}
	ratios = ab_calloc((size_t)resamples, sizeof(*ratios));
	ca = ab_calloc(na, sizeof(*ca));
	cb = ab_calloc(nb, sizeof(*cb));
	if (paired) {
		/* each pair's rank in a and in b: a draw counts at both ranks, and the medians scan sa and sb in order */
		size_t *o = order_of(a, na);

		ra = ab_calloc(na, sizeof(*ra));
		for (size_t i = 0; i < na; i++)
			ra[o[i]] = i;
		free(o);
		o = order_of(b, nb);
		rb = ab_calloc(nb, sizeof(*rb));
		for (size_t i = 0; i < nb; i++)
			rb[o[i]] = i;
		free(o);
	}
	ab_rng_seed(&rng, seed);
	for (int r = 0; r < resamples; r++) {
		double ma, mb;

		memset(ca, 0, na * sizeof(*ca));
		if (paired) {
			memset(cb, 0, nb * sizeof(*cb));
			for (size_t i = 0; i < na; i++) {
				size_t j = ab_rng_below(&rng, na);

				ca[ra[j]]++;
				cb[rb[j]]++;
			}
			ma = median_of_counts(sa, ca, na);
			mb = median_of_counts(sb, cb, nb);
		} else {
			memset(cb, 0, nb * sizeof(*cb));
			for (size_t i = 0; i < na; i++)
				ca[ab_rng_below(&rng, na)]++;
			for (size_t i = 0; i < nb; i++)
				cb[ab_rng_below(&rng, nb)]++;
			ma = median_of_counts(sa, ca, na);
			mb = median_of_counts(sb, cb, nb);
		}
		ratios[r] = ma / mb;
	}
	qsort(ratios, (size_t)resamples, sizeof(*ratios), cmp_double);
	out->lo = percentile(ratios, (size_t)resamples, (1 - level) / 2);
	out->hi = percentile(ratios, (size_t)resamples, 1 - (1 - level) / 2);
	free(ratios);
	free(ca);
	free(cb);
	free(ra);
	free(rb);
	free(sa);
	free(sb);
}

/* how many arrangements of m a's and n b's give U = u (m, n <= 8): f(m, n, u) = f(m-1, n, u-n) + f(m, n-1, u) */
static double
arrangements(int m, int n, int u, double memo[9][9][65], char seen[9][9][65])
{
	double v;

	if (u < 0 || u > m * n)
		return 0;
	if (m == 0 || n == 0)
		return u == 0;
	if (seen[m][n][u])
		return memo[m][n][u];
	v = arrangements(m - 1, n, u - n, memo, seen) + arrangements(m, n - 1, u, memo, seen);
	seen[m][n][u] = 1;
	memo[m][n][u] = v;
	return v;
}

static double
choose(size_t n, size_t k)
{
	double c = 1;

	for (size_t i = 1; i <= k; i++)
		c = c * (double)(n - k + i) / (double)i;
	return c;
}

void
ab_stats_layout_band(struct ab_layout_band *out, const double *const *v, const size_t *n, size_t k, uint64_t seed,
    int resamples, double level)
{
	double **sorted = ab_calloc(k + 1, sizeof(*sorted)), *bands = NULL;
	unsigned **counts = ab_calloc(k + 1, sizeof(*counts));
	size_t m = 0;
	int interval = resamples >= 2;
	struct ab_rng rng;

	out->band = out->lo = out->hi = NAN;
	out->members = 0;
	for (size_t i = 0; i < k; i++) {
		if (!n[i])
			continue;
		sorted[m] = ab_calloc(n[i], sizeof(**sorted));
		memcpy(sorted[m], v[i], n[i] * sizeof(**v));
		counts[m] = ab_calloc(n[i], sizeof(**counts));
		interval &= n[i] >= 2;
		/* the medians sort each member's values: its least first */
		ab_stats_median(sorted[m], n[i]);
		if (!(sorted[m][0] > 0))
			goto done;
		m++;
	}
	out->members = m;
	if (m < 2)
		goto done;
	{
		double lo = INFINITY, hi = 0;

		for (size_t i = 0, j = 0; i < k; i++) {
			double med;

			if (!n[i])
				continue;
			med = ab_stats_median(sorted[j++], n[i]);
			lo = med < lo ? med : lo;
			hi = med > hi ? med : hi;
		}
		out->band = hi / lo - 1;
	}
	if (!interval)
		goto done;
	bands = ab_calloc((size_t)resamples, sizeof(*bands));
	ab_rng_seed(&rng, seed);
	for (int r = 0; r < resamples; r++) {
		double lo = INFINITY, hi = 0;

		for (size_t i = 0, j = 0; i < k; i++) {
			double med;

			if (!n[i])
				continue;
			memset(counts[j], 0, n[i] * sizeof(**counts));
			for (size_t d = 0; d < n[i]; d++)
				counts[j][ab_rng_below(&rng, n[i])]++;
			med = median_of_counts(sorted[j], counts[j], n[i]);
			j++;
			lo = med < lo ? med : lo;
			hi = med > hi ? med : hi;
		}
		bands[r] = hi / lo - 1;
	}
	qsort(bands, (size_t)resamples, sizeof(*bands), cmp_double);
	out->lo = percentile(bands, (size_t)resamples, (1 - level) / 2);
	out->hi = percentile(bands, (size_t)resamples, 1 - (1 - level) / 2);
done:
	for (size_t i = 0; i <= k; i++) {
		free(sorted[i]);
		free(counts[i]);
	}
	free(sorted);
	free(counts);
	free(bands);
}

int
ab_stats_within_band(double ratio, double band)
{
	if (!(ratio > 0) || isnan(band))
		return 0;
	/* a ratio on the band's edge is inside it, whatever the last bit */
	return (ratio >= 1 ? ratio : 1 / ratio) - 1 <= band * (1 + 1e-12) + 1e-15;
}

void
ab_stats_mannwhitney(struct ab_utest *out, const double *a, size_t na, const double *b, size_t nb)
{
	size_t n = na + nb;
	double *v, *rank, r1 = 0, ties = 0, u1, u2, u;
	size_t *o;
	int tied = 0;

	out->u = out->p = NAN;
	out->exact = 0;
	if (!na || !nb)
		return;
	v = ab_calloc(n, sizeof(*v));
	rank = ab_calloc(n, sizeof(*rank));
	memcpy(v, a, na * sizeof(*a));
	memcpy(v + na, b, nb * sizeof(*b));
	o = order_of(v, n);
	/* average ranks for ties; their t^3 - t for the correction */
	for (size_t i = 0; i < n;) {
		size_t j = i;

		while (j + 1 < n && v[o[j + 1]] == v[o[i]])
			j++;
		for (size_t k = i; k <= j; k++)
			rank[o[k]] = (double)(i + j) / 2 + 1;
		if (j > i) {
			double t = (double)(j - i + 1);

			tied = 1;
			ties += t * t * t - t;
		}
		i = j + 1;
	}
	for (size_t i = 0; i < na; i++)
		r1 += rank[i];
	u1 = r1 - (double)na * (double)(na + 1) / 2;
	u2 = (double)na * (double)nb - u1;
	u = u1 > u2 ? u1 : u2;
	out->u = u1;
	if (na <= 8 && nb <= 8 && !tied) {
		double memo[9][9][65];
		char seen[9][9][65] = {{{0}}};
		double sf = 0;

		/* P(U >= u) from the exact distribution */
		for (int k = (int)u; k <= (int)(na * nb); k++)
			sf += arrangements((int)na, (int)nb, k, memo, seen);
		out->p = 2 * sf / choose(n, na);
		out->exact = 1;
	} else {
		double s = sqrt((double)na * (double)nb / 12 * ((double)(n + 1) - ties / ((double)n * (double)(n - 1))));

		out->p = s > 0 ? erfc((u - (double)na * (double)nb / 2 - 0.5) / s / M_SQRT2) : 1;
	}
	if (out->p > 1)
		out->p = 1;
	free(v);
	free(rank);
	free(o);
}

double
ab_stats_mannwhitney_min_p(size_t na, size_t nb)
{
	return na && nb ? 2 / choose(na + nb, na) : 1;
}

size_t
ab_stats_min_runs(double alpha)
{
	size_t k = 1;

	while (ab_stats_mannwhitney_min_p(k, k) >= alpha)
		k++;
	return k;
}

enum ab_verdict
ab_stats_verdict(const struct ab_ratio_ci *ci, const struct ab_utest *u, size_t na, size_t nb,
    const struct ab_verdict_rule *rule)
{
	if (na < 2 || nb < 2 || ab_stats_mannwhitney_min_p(na, nb) >= rule->alpha)
		return AB_VERDICT_TOO_FEW;
	/* no ratio: the U test alone says whether the runs differ */
	if (ci->undefined != AB_RATIO_DEFINED || isnan(ci->ratio))
		return u->p < rule->alpha ? AB_VERDICT_DIFFERS : AB_VERDICT_NO_RATIO;
	if (!(u->p < rule->alpha) || isnan(ci->lo) || (ci->lo <= 1 && ci->hi >= 1) ||
	    fabs(ci->ratio - 1) <= rule->threshold)
		return AB_VERDICT_NONE;
	return (ci->ratio > 1) == (rule->higher != 0) ? AB_VERDICT_BETTER : AB_VERDICT_WORSE;
}

int
ab_stats_verdict_differs(enum ab_verdict v)
{
	return v == AB_VERDICT_BETTER || v == AB_VERDICT_WORSE || v == AB_VERDICT_DIFFERS;
}

const char *
ab_stats_verdict_word(enum ab_verdict v)
{
	switch (v) {
	case AB_VERDICT_BETTER:
		return "better";
	case AB_VERDICT_WORSE:
		return "worse";
	case AB_VERDICT_TOO_FEW:
		return "too few runs";
	case AB_VERDICT_NO_RATIO:
		return "no difference shown (ratio undefined)";
	case AB_VERDICT_DIFFERS:
		return "differs (ratio undefined)";
	case AB_VERDICT_NONE:
		break;
	}
	return "no difference shown";
}

const char *
ab_stats_ratio_why(enum ab_ratio_undefined u)
{
	switch (u) {
	case AB_RATIO_NOT_POSITIVE:
		return "a baseline value is not positive";
	case AB_RATIO_OVERFLOW:
		return "the ratio is past the largest number";
	case AB_RATIO_EMPTY:
		return "a side has no values";
	case AB_RATIO_DEFINED:
		break;
	}
	return NULL;
}
