#include "series.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void
ab_series_add(struct ab_series *s, const struct ab_sample *x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 256;
		s->v = ab_realloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = *x;
}

void
ab_series_release(struct ab_series *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

uint64_t
ab_series_rss(const struct ab_series *s, const struct ab_sample *x)
{
	return s->comm ? x->comm_rss_kb : x->rss_kb;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median_of(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* the median over the window's samples of column(x) */
static double
window_median(const struct ab_series *s, const struct ab_series_window *w, uint64_t (*column)(const struct ab_series *,
    const struct ab_sample *))
{
	double *v = ab_calloc(s->n ? s->n : 1, sizeof(*v)), m;
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++) {
		double t = (double)s->v[i].ms / 1000;

		if (t >= w->start_s && t <= w->end_s)
			v[k++] = (double)column(s, &s->v[i]);
	}
	m = median_of(v, k);
	free(v);
	return m;
}

static uint64_t
col_pss(const struct ab_series *s, const struct ab_sample *x)
{
	(void)s;
	return x->pss_kb;
}

static uint64_t
col_anon(const struct ab_series *s, const struct ab_sample *x)
{
	(void)s;
	return x->anon_kb;
}

/* the cumulative CPU at time t: of the last sample at or before it (0 before the first) */
static uint64_t
cpu_at(const struct ab_series *s, double t)
{
	uint64_t c = 0;

	for (size_t i = 0; i < s->n && (double)s->v[i].ms / 1000 <= t; i++)
		c = s->v[i].cpu_ms;
	return c;
}

int
ab_series_reaches(const struct ab_series *s, double at_s)
{
	return s->n && (double)s->v[s->n - 1].ms / 1000 + 0.001 >= at_s;
}

void
ab_series_figures(struct ab_series_figures *f, const struct ab_series *s, const struct ab_series_window *w)
{
	double peak = 0, tree_peak = 0, pss_peak = 0, anon_peak = 0, integral = 0;

	memset(f, 0, sizeof(*f));
	f->cooldown_rss_kb = f->tree_peak_rss_kb = NAN;
	f->steady_pss_kb = f->peak_pss_kb = f->steady_anon_kb = f->peak_anon_kb = NAN;
	for (size_t i = 0; i < s->n; i++) {
		const struct ab_sample *x = &s->v[i];
		double t = (double)x->ms / 1000, rss = (double)ab_series_rss(s, x);

		f->window_samples += t >= w->start_s && t <= w->end_s;
		peak = rss > peak ? rss : peak;
		tree_peak = (double)x->rss_kb > tree_peak ? (double)x->rss_kb : tree_peak;
		pss_peak = (double)x->pss_kb > pss_peak ? (double)x->pss_kb : pss_peak;
		anon_peak = (double)x->anon_kb > anon_peak ? (double)x->anon_kb : anon_peak;
		f->max_threads = (double)x->threads > f->max_threads ? (double)x->threads : f->max_threads;
		f->max_processes = (double)x->processes > f->max_processes ? (double)x->processes : f->max_processes;
		if (i) {
			double dt = (double)(x->ms - s->v[i - 1].ms) / 1000;

			integral += dt * (rss + (double)ab_series_rss(s, &s->v[i - 1])) / 2;
		}
		/* the last sample up to the cooldown's end, within the series' millisecond */
		if (w->cooldown_at_s >= 0 && t <= w->cooldown_at_s + 0.001)
			f->cooldown_rss_kb = rss;
	}
	/* a cooldown the series does not reach has no figure */
	if (w->cooldown_at_s >= 0 && !ab_series_reaches(s, w->cooldown_at_s))
		f->cooldown_rss_kb = NAN;
	f->steady_rss_kb = window_median(s, w, ab_series_rss);
	f->peak_rss_kb = s->n ? peak : NAN;
	f->rss_gib_s = integral / (1024.0 * 1024.0);
	if (s->n) {
		f->cpu_s = (double)s->v[s->n - 1].cpu_ms / 1000;
		f->window_cpu_s = (double)(cpu_at(s, w->end_s) - cpu_at(s, w->start_s)) / 1000;
		f->minor_faults = (double)s->v[s->n - 1].minflt;
		f->major_faults = (double)s->v[s->n - 1].majflt;
	}
	if (s->comm)
		f->tree_peak_rss_kb = tree_peak;
	if (s->pss) {
		f->steady_pss_kb = window_median(s, w, col_pss);
		f->steady_anon_kb = window_median(s, w, col_anon);
		f->peak_pss_kb = pss_peak;
		f->peak_anon_kb = anon_peak;
	}
}

/* the columns of a file: the seven always there, then comm's, then pss's */
static const char *const base_cols[] = {"ms", "rss_kb", "cpu_ms", "minflt", "majflt", "threads", "processes"};

void
ab_series_csv(struct ab_buf *b, const struct ab_series *s)
{
	for (size_t i = 0; i < AB_NELEM(base_cols); i++)
		ab_buf_printf(b, "%s%s", i ? "," : "", base_cols[i]);
	if (s->comm)
		ab_buf_puts(b, ",comm_rss_kb");
	if (s->pss)
		ab_buf_puts(b, ",pss_kb,anon_kb");
	ab_buf_putc(b, '\n');
	for (size_t i = 0; i < s->n; i++) {
		const struct ab_sample *x = &s->v[i];

		ab_buf_printf(b, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64,
		    x->ms, x->rss_kb, x->cpu_ms, x->minflt, x->majflt, x->threads, x->processes);
		if (s->comm)
			ab_buf_printf(b, ",%" PRIu64, x->comm_rss_kb);
		if (s->pss)
			ab_buf_printf(b, ",%" PRIu64 ",%" PRIu64, x->pss_kb, x->anon_kb);
		ab_buf_putc(b, '\n');
	}
}

/* one line of numbers into v; how many, or -1 when one is not a whole decimal number */
static int
numbers(uint64_t *v, int max, const char *s, size_t n)
{
	int k = 0;
	size_t i = 0;

	while (i < n) {
		uint64_t x = 0;
		size_t d = 0;

		while (i < n && s[i] >= '0' && s[i] <= '9' && d < 19) {
			x = x * 10 + (uint64_t)(s[i++] - '0');
			d++;
		}
		if (!d || k == max || (i < n && s[i] != ','))
			return -1;
		v[k++] = x;
		i += i < n;
		if (i == n && s[n - 1] == ',')
			return -1;
	}
	return k;
}

int
ab_series_parse(struct ab_series *s, const char *text, size_t len, const char *name)
{
	const char *p = text, *end = text + len, *nl = memchr(p, '\n', len);
	struct ab_buf want = {0};
	size_t line = 1;
	int cols;

	memset(s, 0, sizeof(*s));
	if (!nl) {
		ab_error("'%s': not a series file: no header line", name);
		return AB_EFAIL;
	}
	for (int v = 0; v < 4; v++) {
		struct ab_series probe = {.comm = v & 1, .pss = v >> 1 & 1};

		ab_buf_clear(&want);
		ab_series_csv(&want, &probe);
		if (want.len == (size_t)(nl - p) + 1 && !memcmp(want.s, p, want.len)) {
			s->comm = probe.comm;
			s->pss = probe.pss;
			break;
		}
		if (v == 3) {
			ab_buf_free(&want);
			ab_error("'%s':1: not a series file's header: '%.*s'", name, (int)(nl - p), p);
			return AB_EFAIL;
		}
	}
	ab_buf_free(&want);
	cols = (int)AB_NELEM(base_cols) + s->comm + 2 * s->pss;
	for (p = nl + 1; p < end; p = nl + 1) {
		uint64_t v[10];
		struct ab_sample x = {0};
		int k = 0;

		line++;
		nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl || (k = numbers(v, 10, p, (size_t)(nl - p))) != cols || (s->n && v[0] < s->v[s->n - 1].ms)) {
			ab_error("'%s':%zu: %s", name, line, !nl ? "the last line has no newline" : k != cols ?
			    "not a line of the series' columns" : "time goes back");
			ab_series_release(s);
			return AB_EFAIL;
		}
		x.ms = v[0], x.rss_kb = v[1], x.cpu_ms = v[2], x.minflt = v[3], x.majflt = v[4];
		x.threads = v[5], x.processes = v[6];
		k = 7;
		if (s->comm)
			x.comm_rss_kb = v[k++];
		if (s->pss)
			x.pss_kb = v[k++], x.anon_kb = v[k++];
		ab_series_add(s, &x);
	}
	return 0;
}
