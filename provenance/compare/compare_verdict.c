/*
 * compare: the answer of a comparison in a few lines, for the first
 * screen of pr.md (ab_compare_verdict_md, compare.h)
 */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pagetext.h"

/* a label's results shown, the strongest first; the rest are counted */
#define SHOWN_RESULTS 4
/* a set's labels shown; the rest are counted */
#define SHOWN_LABELS 10

/* how far a row's result is from "no difference": |log ratio|, else 1 - p (no ratio) */
static double
strength(const struct ab_compare_row *r)
{
	if (r->ci.undefined == AB_RATIO_DEFINED && r->ci.ratio > 0)
		return 10 + fabs(log(r->ci.ratio));
	return isnan(r->u.p) ? 0 : 1 - r->u.p;
}

static int
cmp_strength(const void *a, const void *b)
{
	const struct ab_compare_row *x = *(const struct ab_compare_row *const *)a,
	    *y = *(const struct ab_compare_row *const *)b;
	double sx = strength(x), sy = strength(y);

	if (sx != sy)
		return sx > sy ? -1 : 1;
	/* the same strength: in the table's order */
	return x < y ? -1 : x > y;
}

/* one result: "`cpu_s` 1.247× [1.099, 1.343]", the cell named when the set has cells; no ratio: the difference */
static void
put_result(struct ab_buf *b, const struct ab_compare_set *s, const struct ab_compare_row *r)
{
	ab_page_code(b, s->metrics[r->metric].name);
	if (s->cells.n > 1 || s->cells.v[0][0]) {
		ab_buf_puts(b, " in ");
		ab_page_code(b, s->cells.v[r->cell][0] ? s->cells.v[r->cell] : "(no cell)");
	}
	if (r->ci.undefined == AB_RATIO_DEFINED && !isnan(r->ci.ratio)) {
		ab_buf_printf(b, " %.3f×", r->ci.ratio);
		if (!isnan(r->ci.lo))
			ab_buf_printf(b, " [%.3f, %.3f]", r->ci.lo, r->ci.hi);
	} else {
		char d[40];

		ab_compare_format_difference(d, sizeof(d), r->ci.diff);
		ab_buf_printf(b, " diff %s, p %.3g", d, r->u.p);
	}
	if (r->within_layout) {
		const struct ab_compare_band *x = ab_compare_band(s, r->cell, r->metric);

		ab_buf_printf(b, " (**within layout noise**: the band is ±%.1f%%)", 100 * x->b.band);
	}
}

/* "5 pairs", "5 and 5 runs", "4 to 5 pairs": how many values the label's rows compared */
static void
put_count(struct ab_buf *b, const struct ab_compare_row *const *rows, size_t n)
{
	size_t lo = (size_t)-1, hi = 0, lob = (size_t)-1, hib = 0;
	int paired = n && rows[0]->paired;

	for (size_t i = 0; i < n; i++) {
		lo = rows[i]->na < lo ? rows[i]->na : lo;
		hi = rows[i]->na > hi ? rows[i]->na : hi;
		lob = rows[i]->nb < lob ? rows[i]->nb : lob;
		hib = rows[i]->nb > hib ? rows[i]->nb : hib;
	}
	if (!n)
		return;
	if (paired && lo == hi)
		ab_buf_printf(b, " (%zu pair%s)", lo, lo == 1 ? "" : "s");
	else if (paired)
		ab_buf_printf(b, " (%zu to %zu pairs)", lo, hi);
	else if (lo == hi && lob == hib)
		ab_buf_printf(b, " (%zu and %zu runs)", lo, lob);
	else
		ab_buf_printf(b, " (%zu to %zu and %zu to %zu runs)", lo, hi, lob, hib);
}

/* the metrics of rows, named when few, else counted: "`wall_s`, `cpu_s`" or "6 metrics" */
static void
put_metrics(struct ab_buf *b, const struct ab_compare_set *s, const struct ab_compare_row *const *rows, size_t n,
    const char *other)
{
	if (n > 3) {
		ab_buf_printf(b, "%zu%s metrics", n, other);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		ab_buf_puts(b, i == 0 ? "" : i + 1 == n ? " and " : ", ");
		ab_page_code(b, s->metrics[rows[i]->metric].name);
		if (s->cells.n > 1 || s->cells.v[0][0]) {
			ab_buf_puts(b, " in ");
			ab_page_code(b, s->cells.v[rows[i]->cell][0] ? s->cells.v[rows[i]->cell] : "(no cell)");
		}
	}
}

/* the label that is an A/A control with l, that one first when it is, else AB_COMPARE_NONE */
static size_t
control_of(const struct ab_compare_set *s, size_t l, size_t first)
{
	size_t other = AB_COMPARE_NONE;

	for (size_t i = 0; i < s->ncontrols; i++) {
		size_t k = s->controls[i].a == l ? s->controls[i].b : s->controls[i].b == l ? s->controls[i].a :
		    AB_COMPARE_NONE;

		if (k == first)
			return k;
		if (k != AB_COMPARE_NONE && other == AB_COMPARE_NONE)
			other = k;
	}
	return other;
}

/*
 * one label's line: what it is when it is the same bytes as another, its
 * results that differ (grouped by verdict, the strongest first), then
 * what showed no difference and what had too few runs, and how many runs
 * were compared
 */
static void
put_label(struct ab_buf *b, const struct ab_compare_set *s, size_t l, size_t against)
{
	const struct ab_compare_row **rows = ab_calloc(s->nrows + 1, sizeof(*rows)), **diff, **none, **few;
	size_t n = 0, nd = 0, nn = 0, nf = 0, k = s->same_bytes ? s->same_bytes[l] : AB_COMPARE_NONE;
	const char *unreliable = ab_compare_unreliable_why(s);
	size_t twin = control_of(s, l, against);
	int control = twin == against;

	diff = ab_calloc(s->nrows + 1, sizeof(*diff));
	none = ab_calloc(s->nrows + 1, sizeof(*none));
	few = ab_calloc(s->nrows + 1, sizeof(*few));
	for (size_t i = 0; i < s->nrows; i++) {
		const struct ab_compare_row *r = &s->rows[i];

		if (r->label != l || r->against != against)
			continue;
		rows[n++] = r;
		if (ab_stats_verdict_differs(r->verdict))
			diff[nd++] = r;
		else if (r->verdict == AB_VERDICT_TOO_FEW)
			few[nf++] = r;
		else
			none[nn++] = r;
	}
	qsort(diff, nd, sizeof(*diff), cmp_strength);
	ab_buf_puts(b, "- ");
	ab_page_code(b, s->labels.v[l]);
	for (size_t i = 0; i < s->nlayouts; i++)
		if (s->layouts[i] == l && against == s->baseline)
			ab_buf_puts(b, " (a layout variant of the baseline: the layout control)");
	if (twin != AB_COMPARE_NONE) {
		ab_buf_puts(b, " (the same bytes and runtime environment as ");
		ab_page_code(b, s->labels.v[twin]);
		ab_buf_puts(b, control ? ": the A/A control)" : ": an A/A control, below)");
	} else if (k != AB_COMPARE_NONE) {
		ab_buf_puts(b, " (the same bytes as ");
		ab_page_code(b, s->labels.v[k]);
		ab_buf_puts(b, ", in another runtime environment)");
	}
	ab_buf_puts(b, ": ");
	if (ab_strv_has(&s->failed_labels, s->labels.v[l])) {
		ab_buf_puts(b, "❌ every run failed: nothing compared\n");
		goto done;
	}
	if (!n) {
		ab_buf_puts(b, "no figure to compare with the baseline's\n");
		goto done;
	}
	/*
	 * the results shown: the strongest of each verdict, then the next
	 * strongest of any, SHOWN_RESULTS in all; grouped by verdict, the
	 * verdicts in the order of their strongest
	 */
	{
		unsigned char *pick = ab_calloc(nd + 1, 1);
		int seen_v[AB_VERDICT_DIFFERS + 1] = {0}, groups = 0;
		size_t shown = 0;

		for (size_t i = 0; i < nd && shown < SHOWN_RESULTS; i++)
			if (!seen_v[diff[i]->verdict]++) {
				pick[i] = 1;
				shown++;
			}
		for (size_t i = 0; i < nd && shown < SHOWN_RESULTS; i++)
			if (!pick[i]) {
				pick[i] = 1;
				shown++;
			}
		memset(seen_v, 0, sizeof(seen_v));
		for (size_t i = 0; i < nd; i++) {
			enum ab_verdict v = diff[i]->verdict;

			if (!pick[i] || seen_v[v]++)
				continue;
			ab_buf_printf(b, "%s**%s%s**", groups++ ? "; " : "", v == AB_VERDICT_DIFFERS ? "differs" :
			    ab_stats_verdict_word(v), control || !unreliable ? "" : " (unreliable)");
			for (size_t j = i, m = 0; j < nd; j++)
				if (pick[j] && diff[j]->verdict == v) {
					ab_buf_puts(b, m++ ? ", " : " ");
					put_result(b, s, diff[j]);
				}
		}
		if (shown < nd)
			ab_buf_printf(b, "; and %zu more difference%s (below)", nd - shown, nd - shown == 1 ? "" : "s");
		if (nn) {
			ab_buf_puts(b, groups ? "; no difference shown in " : "no difference shown in ");
			put_metrics(b, s, none, nn, groups ? " other" : "");
		}
		if (nf) {
			ab_buf_puts(b, groups || nn ? "; too few runs for a verdict in " : "too few runs for a verdict in ");
			put_metrics(b, s, few, nf, "");
		}
		free(pick);
	}
	put_count(b, rows, n);
	ab_buf_puts(b, "\n");
done:
	free(rows);
	free(diff);
	free(none);
	free(few);
}

/* the set's notes, one a line: the A/A controls, failed and short runs, the machine, mixed environments */
static void
put_notes(struct ab_buf *b, const struct ab_compare_set *s)
{
	for (size_t i = 0; i < s->ncontrols; i++) {
		const struct ab_compare_control *x = &s->controls[i];
		int differs = 0, judged = 0, any = 0;

		/* clean only where it could have shown a difference: too few runs judge nothing */
		for (size_t r = 0; r < s->nrows; r++) {
			const struct ab_compare_row *w = &s->rows[r];

			if (w->control && ((w->label == x->a && w->against == x->b) || (w->label == x->b && w->against == x->a))) {
				any = 1;
				judged |= w->verdict != AB_VERDICT_TOO_FEW;
				differs |= ab_stats_verdict_differs(w->verdict);
			}
		}
		ab_buf_puts(b, differs ? "- ❌ A/A control " : judged ? "- ✅ A/A control clean: " : "- ⚠ A/A control ");
		ab_page_code(b, s->labels.v[x->a]);
		ab_buf_puts(b, " and ");
		ab_page_code(b, s->labels.v[x->b]);
		ab_buf_puts(b, " (the same bytes and runtime environment)");
		ab_buf_puts(b, differs ? " show a difference: every verdict above is unreliable\n" : judged ?
		    " show no difference\n" : any ? ": too few runs for a verdict\n" : ": no figure to compare\n");
	}
	if (!s->ncontrols && s->labels.n > 1)
		ab_buf_puts(b, "- ⚠ no A/A control: no two labels ran the same bytes with the same runtime environment\n");
	if (s->nlayouts) {
		ab_buf_printf(b, "- %s layout band of ", s->within_layout ? "⚠" : "✅");
		ab_page_code(b, s->labels.v[s->baseline]);
		ab_buf_printf(b, " (%zu layout variant%s, the same objects linked in other orders):", s->nlayouts,
		    s->nlayouts == 1 ? "" : "s");
		for (size_t i = 0; i < s->nbands; i++) {
			ab_buf_puts(b, i ? ", " : " ");
			ab_page_code(b, s->metrics[s->bands[i].metric].name);
			ab_buf_printf(b, " ±%.1f%%", 100 * s->bands[i].b.band);
		}
		if (s->within_layout)
			ab_buf_printf(b, "; %zu difference%s above %s inside it: code layout alone could give %s\n",
			    s->within_layout, s->within_layout == 1 ? "" : "s", s->within_layout == 1 ? "is" : "are",
			    s->within_layout == 1 ? "it" : "them");
		else
			ab_buf_puts(b, "; every difference above is larger than it\n");
	}
	if (s->failed_labels.n == s->labels.n)
		ab_buf_printf(b, "- ❌ every run failed (%zu of %zu): nothing compared\n", s->nfailed, s->nruns);
	else if (s->nfailed)
		ab_buf_printf(b, "- ⚠ %zu failed run%s left out\n", s->nfailed, s->nfailed == 1 ? "" : "s");
	if (s->mixed_env)
		ab_buf_puts(b, "- ❌ the runs ran under different run environments: every verdict above is unreliable\n");
	if (s->nshort)
		ab_buf_printf(b, "- ⚠ %zu run%s too short to sample: %s sampled figures are left out\n", s->nshort,
		    s->nshort == 1 ? "" : "s", s->nshort == 1 ? "its" : "their");
	if (s->busy)
		ab_buf_printf(b, "- ⚠ busy machine: load %.2f to %.2f (the 1-minute average at the runs' starts) on %d "
		    "CPU%s: the times are noisier\n", s->load_min, s->load_max, s->load_cpus, s->load_cpus == 1 ? "" : "s");
	for (size_t i = 0; i < s->host_notes.n; i++) {
		ab_buf_puts(b, "- ❌ ");
		ab_page_text(b, s->host_notes.v[i]);
		ab_buf_puts(b, "\n");
	}
}

/* the last host's set of a name: do the hosts agree? */
static void
put_hosts_agree(struct ab_buf *b, const struct ab_compare_set *s)
{
	if (!s->host || s->host_notes.n || strcmp(s->host, s->hosts.v[s->hosts.n - 1]))
		return;
	ab_buf_printf(b, "- ✅ the %zu hosts agree: every verdict with runs enough on several of them is the same on "
	    "each, and each label ran the same bytes on every host\n", s->hosts.n);
}

/* one set: its line, a line per label against the baseline, the A/A controls apart from it, its notes */
static void
put_set(struct ab_buf *b, const struct ab_compare_set *s)
{
	size_t shown = 0;

	ab_buf_puts(b, "**Benchmark** ");
	ab_page_code(b, s->name);
	if (s->host) {
		ab_buf_puts(b, " on host ");
		ab_page_code(b, s->host);
	} else if (s->hosts.n > 1) {
		ab_buf_printf(b, " (%zu hosts pooled)", s->hosts.n);
	}
	if (s->labels.n < 2) {
		ab_buf_printf(b, ": %zu run%s of ", s->nruns, s->nruns == 1 ? "" : "s");
		ab_page_code(b, s->labels.n ? s->labels.v[0] : "");
		ab_buf_puts(b, " alone: nothing to compare it with.\n\n");
		put_notes(b, s);
		ab_buf_puts(b, "\n");
		return;
	}
	ab_buf_printf(b, ": %zu runs of %zu labels against ", s->nruns, s->labels.n);
	ab_page_code(b, s->labels.v[s->baseline]);
	ab_buf_printf(b, ", %s (the comparison: Runs, below):\n\n", s->paired ? "paired by repetition" : "unpaired");
	for (size_t l = 0; l < s->labels.n; l++)
		if (l != s->baseline && shown++ < SHOWN_LABELS)
			put_label(b, s, l, s->baseline);
	if (shown > SHOWN_LABELS)
		ab_buf_printf(b, "- and %zu more labels (below)\n", shown - SHOWN_LABELS);
	/* each A/A control, the baseline's or not, is a note of its own */
	put_notes(b, s);
	put_hosts_agree(b, s);
	ab_buf_puts(b, "\n");
}

void
ab_compare_verdict_md(struct ab_buf *b, const struct ab_comparison *c, size_t budget)
{
	size_t used = 0;

	for (size_t k = 0; k < c->nsets; k++) {
		struct ab_buf one = {0};

		put_set(&one, &c->sets[k]);
		if (k && used + one.len > budget) {
			ab_buf_free(&one);
			ab_buf_printf(b, "**Benchmark**: %zu more run name%s:", c->nsets - k, c->nsets - k == 1 ? "" : "s");
			for (size_t j = k; j < c->nsets; j++) {
				ab_buf_puts(b, j > k ? ", " : " ");
				ab_page_code(b, c->sets[j].name);
			}
			ab_buf_puts(b, " (their comparisons: Runs, below).\n\n");
			return;
		}
		ab_buf_add(b, one.s, one.len);
		used += one.len;
		ab_buf_free(&one);
	}
}
