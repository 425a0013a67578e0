/* compare: the formats of a comparison (table, csv, json, markdown) */
#include "compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../runs/metrics.h"
#include "pagetext.h"
#include "svgchart.h"

static void
put_value(struct ab_buf *b, double v)
{
	char s[64];

	ab_compare_format_value(s, sizeof(s), v);
	ab_buf_puts(b, s);
}


static char *
verdict_text(const struct ab_compare_set *s, const struct ab_compare_row *r)
{
	const char *w = ab_stats_verdict_word(r->verdict);

	if (r->control)
		return ab_sprintf("%s (A/A control)", w);
	if (r->layout)
		return ab_sprintf("%s (layout control)", w);
	if (r->within_layout)
		return ab_sprintf("%s (within layout noise)", w);
	if (ab_compare_unreliable_why(s) && r->verdict != AB_VERDICT_TOO_FEW)
		return ab_sprintf("%s (unreliable)", w);
	return ab_strdup(w);
}

static char *
ci_text(const struct ab_ratio_ci *ci)
{
	char lo[32], hi[32];

	if (isnan(ci->lo))
		return ab_strdup("-");
	snprintf(lo, sizeof(lo), "%.3f", ci->lo);
	snprintf(hi, sizeof(hi), "%.3f", ci->hi);
	return ab_sprintf("[%s, %s]", lo, hi);
}

static char *
p_text(double p)
{
	return isnan(p) ? ab_strdup("-") : ab_sprintf("%.3g", p);
}

/* the ratio; without one the absolute difference of the medians, signed ("diff +5.000") */
static char *
ratio_text(const struct ab_ratio_ci *ci)
{
	char d[40];

	if (ci->undefined == AB_RATIO_DEFINED && !isnan(ci->ratio))
		return ab_sprintf("%.3f", ci->ratio);
	if (isnan(ci->diff))
		return ab_strdup("-");
	ab_compare_format_difference(d, sizeof(d), ci->diff);
	return ab_sprintf("diff %s", d);
}

/* "paired by repetition (rotated runs)" or "unpaired (why)" */
static char *
pairing_text(const struct ab_compare_set *s)
{
	return s->paired ? ab_strdup("paired by repetition (rotated runs)") :
	    ab_sprintf("unpaired (%s)", s->unpaired_why ? s->unpaired_why : "-");
}

static char *
method_text(const struct ab_comparison *c)
{
	return ab_sprintf("ratio of medians with its %.0f%% bootstrap interval (%d resamples, seed %llu), "
	    "Mann-Whitney U p (two-sided), a difference shown when p < %g, the interval excludes 1 and the ratio is "
	    "beyond the noise threshold of %g%%", AB_COMPARE_LEVEL * 100, c->o.resamples,
	    (unsigned long long)c->o.seed, AB_COMPARE_ALPHA, c->o.threshold * 100);
}

/* a name in the text of the table format as it is (a terminal's), in md as a code span */
static void
put_name(struct ab_buf *b, const char *name, int md)
{
	if (md) {
		ab_page_code(b, name);
	} else {
		char *shown = ab_shown(name);

		ab_buf_puts(b, shown);
		free(shown);
	}
}

/* the labels that ran the same bytes as another in another runtime environment (the same one: a control) */
static void
put_same_bytes(struct ab_buf *b, const struct ab_compare_set *s, int md)
{
	for (size_t l = 0; l < s->labels.n; l++) {
		size_t k = s->same_bytes ? s->same_bytes[l] : AB_COMPARE_NONE;
		int control = 0;

		for (size_t i = 0; i < s->ncontrols && k != AB_COMPARE_NONE; i++)
			control |= (s->controls[i].a == k && s->controls[i].b == l);
		if (k == AB_COMPARE_NONE || control)
			continue;
		ab_buf_puts(b, "Same bytes: ");
		put_name(b, s->labels.v[l], md);
		ab_buf_puts(b, " ran the bytes of ");
		put_name(b, s->labels.v[k], md);
		ab_buf_puts(b, " in another runtime environment.\n");
	}
}

/*
 * the hosts of a name's runs: each host's set says whose runs it holds;
 * the last (or a pooled set) what the hosts' runs disagree on, or that
 * they agree
 */
static void
put_hosts(struct ab_buf *b, const struct ab_compare_set *s, int md)
{
	if (s->hosts.n < 2)
		return;
	ab_buf_printf(b, "Hosts: %zu, ", s->hosts.n);
	for (size_t h = 0; h < s->hosts.n; h++) {
		ab_buf_puts(b, h ? ", " : "");
		put_name(b, s->hosts.v[h], md);
	}
	ab_buf_puts(b, s->host ? ": each host's runs compared apart (--by-host); these are " :
	    ": their runs pooled (--pool-hosts).\n");
	if (s->host) {
		put_name(b, s->host, md);
		ab_buf_puts(b, "'s.\n");
	}
	/* md: they are among the warnings, in the block under the table */
	for (size_t i = 0; i < s->host_notes.n && !md; i++) {
		ab_buf_puts(b, "HOSTS: ");
		put_name(b, s->host_notes.v[i], 0);
		ab_buf_puts(b, ".\n");
	}
}

/* each derived figure with its definition: "Derived: cpu_per_M (s/M) = cpu_s / records * 1e6" */
static void
put_derived(struct ab_buf *b, const struct ab_compare_set *s, int md)
{
	for (size_t m = 0; m < s->nmetrics; m++) {
		const struct ab_compare_metric *x = &s->metrics[m];

		if (!x->derived)
			continue;
		ab_buf_puts(b, md ? "Derived figure: " : "Derived: ");
		put_name(b, x->name, md);
		if (x->unit) {
			ab_buf_puts(b, " (");
			if (md)
				ab_page_text(b, x->unit);
			else
				put_name(b, x->unit, 0);
			ab_buf_puts(b, ")");
		}
		ab_buf_puts(b, " = ");
		put_name(b, x->derived->expr, md);
		ab_buf_printf(b, ", computed per run (%s is better).\n", x->higher ? "higher" : "lower");
	}
}

/* the control pairs in words, or the lack of one */
static void
put_controls(struct ab_buf *b, const struct ab_compare_set *s, int md)
{
	put_same_bytes(b, s, md);
	if (!s->ncontrols) {
		ab_buf_puts(b, "No A/A control: no two labels ran the same bytes with the same runtime environment.\n");
		return;
	}
	for (size_t i = 0; i < s->ncontrols; i++) {
		const struct ab_compare_control *x = &s->controls[i];
		int shown = 0, differs = 0, judged = 0;

		for (size_t r = 0; r < s->nrows; r++) {
			const struct ab_compare_row *w = &s->rows[r];

			if (!w->control || !((w->label == x->a && w->against == x->b) || (w->label == x->b && w->against == x->a)))
				continue;
			shown++;
			judged |= w->verdict != AB_VERDICT_TOO_FEW;
			differs |= ab_stats_verdict_differs(w->verdict);
		}
		ab_buf_puts(b, "A/A control: ");
		put_name(b, s->labels.v[x->a], md);
		ab_buf_puts(b, " against ");
		put_name(b, s->labels.v[x->b], md);
		ab_buf_printf(b, " (the same bytes, sha256 %s%.12s%s, and runtime environment: an A/A pair by "
		    "construction): %s.\n", md ? "`" : "",
		    x->sha256, md ? "`" : "", !shown ? "no metric to compare" : !judged ? "too few runs for a verdict" :
		    !differs ? "no difference shown in any metric" :
		    md ? "**shows a difference**: every verdict is unreliable" : "shows a difference: every verdict is unreliable");
	}
}

/*
 * The baseline's layout band, when it has layout variants: "Layout band of
 * frag (5 layout variants: a, b, ...): cpu_s ±4.1% [1.2%, 6.0%], ...;
 * 1 difference is within it."
 */
static void
put_layout(struct ab_buf *b, const struct ab_compare_set *s, int md)
{
	if (!s->nlayouts)
		return;
	ab_buf_puts(b, "Layout band of ");
	put_name(b, s->labels.v[s->baseline], md);
	ab_buf_printf(b, " (%zu layout variant%s: ", s->nlayouts, s->nlayouts == 1 ? "" : "s");
	for (size_t i = 0; i < s->nlayouts; i++) {
		ab_buf_puts(b, i ? ", " : "");
		put_name(b, s->labels.v[s->layouts[i]], md);
	}
	ab_buf_puts(b, "; the spread of their medians and the baseline's, max / min - 1, 95% interval):");
	for (size_t i = 0; i < s->nbands; i++) {
		const struct ab_compare_band *x = &s->bands[i];

		ab_buf_puts(b, i ? ", " : " ");
		if (s->cells.v[x->cell][0])
			ab_buf_printf(b, "%s ", s->cells.v[x->cell]);
		put_name(b, s->metrics[x->metric].name, md);
		ab_buf_printf(b, " ±%.1f%%", 100 * x->b.band);
		if (!isnan(x->b.lo))
			ab_buf_printf(b, " [%.1f%%, %.1f%%]", 100 * x->b.lo, 100 * x->b.hi);
	}
	if (!s->nbands)
		ab_buf_puts(b, " no metric with values of two of them");
	ab_buf_printf(b, ". %zu difference%s of another label %s inside it: within layout noise.\n", s->within_layout,
	    s->within_layout == 1 ? "" : "s", s->within_layout == 1 ? "is" : "are");
}

/* the machine's load during the runs, when their records hold it: "load 0.52 to 3.20 (...) on 2 CPUs" */
static void
put_load(struct ab_buf *b, const struct ab_compare_set *s, int md)
{
	if (!s->load_runs)
		return;
	ab_buf_printf(b, "Machine load (the 1-minute load average at each run's start): %.2f to %.2f on %d CPU%s%s.\n",
	    s->load_min, s->load_max, s->load_cpus, s->load_cpus == 1 ? "" : "s", !s->busy ? "" : md ?
	    ": **busy**, more than the CPUs run at once" : ": busy, more than the CPUs run at once");
}

/*
 * runs that asked their allocator for its statistics at exit (run
 * --allocator-stats): the allocator's own figures are among the metrics,
 * and the setting is one of the allocator's
 */
static const struct ab_runrec_allocstats *
alloc_stats_of(const struct ab_compare_set *s, size_t *n)
{
	const struct ab_runrec_allocstats *a = NULL;

	*n = 0;
	for (size_t i = 0; i < s->nruns; i++)
		if (s->runs[i].alloc_stats && (*n)++ == 0)
			a = s->runs[i].alloc_stats;
	return a;
}

static void
put_alloc_stats(struct ab_buf *b, const struct ab_compare_set *s, int md)
{
	size_t n;
	const struct ab_runrec_allocstats *a = alloc_stats_of(s, &n);

	if (!a)
		return;
	ab_buf_printf(b, "Allocator statistics: %zu of %zu runs asked %s for them at exit (run --allocator-stats: %s%s=%s%s, "
	    "a setting of the allocator, in every run of their labels); its figures are the %s%s.*_mib%s rows.\n", n,
	    s->nruns, a->allocator, md ? "`" : "", a->variable, a->setting, md ? "`" : "", md ? "`" : "", a->allocator,
	    md ? "`" : "");
}

/* the labels whose every run failed: nothing of them is compared */
static void
put_failed_labels(struct ab_buf *b, const struct ab_compare_set *s, int md)
{
	if (!s->failed_labels.n)
		return;
	ab_buf_puts(b, md ? "**Failed**: " : "FAILED: ");
	if (s->failed_labels.n == s->labels.n) {
		ab_buf_printf(b, "every run failed (%zu of %zu): nothing is compared.\n", s->nfailed, s->nruns);
		return;
	}
	ab_buf_puts(b, "every run of ");
	for (size_t i = 0; i < s->failed_labels.n; i++) {
		ab_buf_puts(b, i == 0 ? "" : i + 1 == s->failed_labels.n ? " and " : ", ");
		put_name(b, s->failed_labels.v[i], md);
	}
	ab_buf_puts(b, " failed: nothing of it is compared.\n");
}

/* ---- table ---- */

struct table {
	struct ab_strv cells;   /* row-major */
	size_t ncols;
};

static void
table_add(struct table *t, char *cell)
{
	ab_strv_push_owned(&t->cells, cell);
}

static void
table_print(struct ab_buf *b, const struct table *t)
{
	size_t *w = ab_calloc(t->ncols, sizeof(*w));

	for (size_t i = 0; i < t->cells.n; i++) {
		size_t n = strlen(t->cells.v[i]);

		if (n > w[i % t->ncols])
			w[i % t->ncols] = n;
	}
	for (size_t i = 0; i < t->cells.n; i++) {
		size_t col = i % t->ncols;

		if (col + 1 == t->ncols)
			ab_buf_printf(b, "%s\n", t->cells.v[i]);
		else
			ab_buf_printf(b, "%-*s  ", (int)w[col], t->cells.v[i]);
	}
	free(w);
}

static char *
range_text(const struct ab_compare_group *g)
{
	char lo[64], hi[64];

	ab_compare_format_value(lo, sizeof(lo), g->min);
	ab_compare_format_value(hi, sizeof(hi), g->max);
	return ab_sprintf("%s-%s", lo, hi);
}

static void
set_table(struct ab_buf *b, const struct ab_comparison *c, const struct ab_compare_set *s)
{
	static const char *const head[] = {"METRIC", "UNIT", "CELL", "LABEL", "N", "MEDIAN", "MIN-MAX", "RATIO",
	    "95% CI", "P", "VERDICT"};
	struct table t = {.ncols = AB_NELEM(head)};
	char *pairing = pairing_text(s), *method = method_text(c);

	ab_buf_printf(b, "runs/%s%s%s: %zu runs of %zu label%s, %zu failed; baseline %s; %s\n", s->name,
	    s->host ? " on host " : "", s->host ? s->host : "", s->nruns, s->labels.n, s->labels.n == 1 ? "" : "s",
	    s->nfailed, s->labels.v[s->baseline], pairing);
	ab_buf_printf(b, "%s\n", method);
	put_hosts(b, s, 0);
	put_derived(b, s, 0);
	put_controls(b, s, 0);
	put_layout(b, s, 0);
	put_load(b, s, 0);
	put_alloc_stats(b, s, 0);
	put_failed_labels(b, s, 0);
	if (ab_compare_unreliable_why(s))
		ab_buf_printf(b, "UNRELIABLE: %s\n", ab_compare_unreliable_why(s));
	ab_buf_puts(b, "\n");
	for (size_t i = 0; i < AB_NELEM(head); i++)
		table_add(&t, ab_strdup(head[i]));
	for (size_t m = 0; m < s->nmetrics; m++)
		for (size_t cl = 0; cl < s->cells.n; cl++)
			for (size_t l = 0; l < s->labels.n; l++) {
				const struct ab_compare_group *g = ab_compare_group(s, cl, l, m);
				const struct ab_compare_row *r = g ? g->row : NULL;
				char med[64];

				if (!g)
					continue;
				ab_compare_format_value(med, sizeof(med), g->median);
				/* names as a record holds them: no escape sequence reaches the terminal */
				table_add(&t, ab_shown(s->metrics[m].name));
				table_add(&t, ab_shown(s->metrics[m].unit ? s->metrics[m].unit : "-"));
				table_add(&t, ab_shown(s->cells.v[cl][0] ? s->cells.v[cl] : "-"));
				table_add(&t, ab_shown(s->labels.v[l]));
				table_add(&t, ab_sprintf("%zu", g->n));
				table_add(&t, ab_strdup(med));
				table_add(&t, range_text(g));
				if (l == s->baseline) {
					for (int k = 0; k < 3; k++)
						table_add(&t, ab_strdup("-"));
					table_add(&t, ab_strdup("baseline"));
				} else if (r) {
					table_add(&t, ratio_text(&r->ci));
					table_add(&t, ci_text(&r->ci));
					table_add(&t, p_text(r->u.p));
					table_add(&t, verdict_text(s, r));
				} else {
					for (int k = 0; k < 3; k++)
						table_add(&t, ab_strdup("-"));
					table_add(&t, ab_strdup("no baseline runs"));
				}
			}
	table_print(b, &t);
	/* the controls apart from the baseline */
	for (size_t i = 0; i < s->nrows; i++) {
		const struct ab_compare_row *r = &s->rows[i];
		char *ci, *p, *ratio;

		if (!r->control || r->against == s->baseline)
			continue;
		ci = ci_text(&r->ci);
		p = p_text(r->u.p);
		ratio = ratio_text(&r->ci);
		ab_buf_printf(b, "A/A %s%s%s: %s against %s: ratio %s %s, p %s: %s\n", s->metrics[r->metric].name,
		    s->cells.v[r->cell][0] ? " in " : "", s->cells.v[r->cell], s->labels.v[r->label],
		    s->labels.v[r->against], ratio, ci, p, ab_stats_verdict_word(r->verdict));
		free(ci);
		free(p);
		free(ratio);
	}
	ab_strv_free(&t.cells);
	free(pairing);
	free(method);
}

/* ---- csv: one row per observation ---- */

/*
 * A text field of the CSV (a name, label, cell, unit: what a driver or a
 * record says). A spreadsheet reads a cell that starts with =, +, -, @, a
 * tab or a carriage return as a formula (=HYPERLINK(...), -2+3, @SUM(...)):
 * such a field gets a leading single quote, which the spreadsheet shows as
 * text (OWASP, "CSV Injection"). Quoted when it holds a comma, a
 * semicolon (the separator of some locales), a quote, a tab or a line
 * break.
 */
static void
csv_text(struct ab_buf *b, const char *s, int last)
{
	if (s) {
		int formula = *s && strchr("=+-@\t\r", *s), quote = strpbrk(s, ",;\"\t\r\n") != NULL;

		if (quote)
			ab_buf_putc(b, '"');
		if (formula)
			ab_buf_putc(b, '\'');
		for (; *s; s++) {
			if (*s == '"')
				ab_buf_putc(b, '"');
			ab_buf_putc(b, *s);
		}
		if (quote)
			ab_buf_putc(b, '"');
	}
	ab_buf_putc(b, last ? '\n' : ',');
}

static void
csv_row(struct ab_buf *b, const struct ab_compare_set *s, size_t i, const char *metric, const char *cell, double v,
    const char *unit)
{
	const struct ab_runrec *r = &s->runs[i];
	char num[64], *end = ab_runrec_ending(r), *status = ab_sprintf("%s%s", r->status == AB_RUN_EXITED ?
	    "exit " : "", end);

	csv_text(b, s->name, 0);
	ab_buf_printf(b, "%d,%d,%d,", r->number, r->batch, r->repetition);
	csv_text(b, r->label, 0);
	csv_text(b, cell, 0);
	csv_text(b, status, 0);
	csv_text(b, metric, 0);
	/*
	 * a number stays a number, negative ones too: nothing to quote or
	 * neutralize. 15 significant digits: every decimal the records and
	 * drivers write with as many comes back as written (0.224865, not
	 * 0.22486500000000001), and a sum of two (cpu_s: user + sys) as the
	 * decimal it is; the binary tail of 17 digits measured nothing
	 */
	if (isnan(v))
		num[0] = '\0';
	else
		snprintf(num, sizeof(num), "%.15g", v);
	ab_buf_printf(b, "%s,", num);
	csv_text(b, unit, 0);
	csv_text(b, r->subject_sha256, 0);
	/* the host that ran it: runs of several (compare --runs-from) have numbers in common */
	csv_text(b, ab_compare_run_host(r), 1);
	free(end);
	free(status);
}

/* a driver's figure of a run (its position k in the run's figures) under the set's metric m */
struct csv_at {
	size_t m, k;
};

static int
cmp_csv_at(const void *a, const void *b)
{
	const struct csv_at *x = a, *y = b;

	return x->m != y->m ? (x->m < y->m ? -1 : 1) : (x->k > y->k) - (x->k < y->k);
}

/* each run's rows in the order of the set's metrics: the run's figures found by name once, then sorted */
static void
set_csv(struct ab_buf *b, const struct ab_compare_set *s)
{
	struct csv_at *at = NULL;
	size_t cap = 0;

	for (size_t i = 0; i < s->nruns; i++) {
		const struct ab_runrec *r = &s->runs[i];
		size_t n = 0, j = 0, m;

		if (r->metrics.n > cap) {
			cap = r->metrics.n;
			at = ab_realloc(at, cap * sizeof(*at));
		}
		for (size_t k = 0; k < r->metrics.n; k++)
			if (ab_strmap_get(&s->metric_at, r->metrics.v[k].name, &m) && s->metrics[m].builtin < 0)
				at[n].m = m, at[n++].k = k;
		if (n)
			qsort(at, n, sizeof(*at), cmp_csv_at);
		for (m = 0; m < s->nmetrics; m++) {
			const struct ab_compare_metric *cm = &s->metrics[m];

			if (cm->builtin >= 0) {
				csv_row(b, s, i, cm->name, r->cell ? r->cell : "", ab_compare_builtin_value(r, cm->builtin),
				    cm->unit);
				continue;
			}
			for (; j < n && at[j].m == m; j++) {
				const struct ab_metric *d = &r->metrics.v[at[j].k];

				csv_row(b, s, i, cm->name, d->cell ? d->cell : r->cell ? r->cell : "", d->value, d->unit);
			}
		}
	}
	free(at);
}

/* ---- json ---- */

static void
add_num(cJSON *o, const char *key, double v)
{
	if (isnan(v) || isinf(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, v);
}

static cJSON *
set_json(const struct ab_compare_set *s)
{
	cJSON *o = cJSON_CreateObject(), *a;
	const char *why = ab_compare_unreliable_why(s);

	cJSON_AddStringToObject(o, "name", s->name);
	ab_json_add_str_or_null(o, "host", s->host);
	cJSON_AddItemToObject(o, "hosts", ab_json_strv(s->hosts.v, s->hosts.n));
	cJSON_AddItemToObject(o, "host_notes", ab_json_strv(s->host_notes.v, s->host_notes.n));
	cJSON_AddBoolToObject(o, "hosts_disagree", s->hosts_disagree);
	{
		size_t n;
		const struct ab_runrec_allocstats *as = alloc_stats_of(s, &n);

		if (as) {
			cJSON *j = cJSON_AddObjectToObject(o, "allocator_stats");

			cJSON_AddNumberToObject(j, "runs", (double)n);
			cJSON_AddStringToObject(j, "allocator", as->allocator);
			cJSON_AddStringToObject(j, "variable", as->variable);
			cJSON_AddStringToObject(j, "setting", as->setting);
		} else {
			cJSON_AddNullToObject(o, "allocator_stats");
		}
	}
	cJSON_AddBoolToObject(o, "hosts_bytes_differ", s->hosts_bytes_differ);
	cJSON_AddNumberToObject(o, "runs", (double)s->nruns);
	cJSON_AddNumberToObject(o, "failed", (double)s->nfailed);
	cJSON_AddItemToObject(o, "labels", ab_json_strv(s->labels.v, s->labels.n));
	a = cJSON_AddArrayToObject(o, "cells");
	for (size_t c = 0; c < s->cells.n; c++)
		cJSON_AddItemToArray(a, s->cells.v[c][0] ? cJSON_CreateString(s->cells.v[c]) : cJSON_CreateNull());
	cJSON_AddStringToObject(o, "baseline", s->labels.v[s->baseline]);
	cJSON_AddBoolToObject(o, "paired", s->paired);
	ab_json_add_str_or_null(o, "unpaired_why", s->paired ? NULL : s->unpaired_why);
	a = cJSON_AddArrayToObject(o, "metrics");
	for (size_t m = 0; m < s->nmetrics; m++) {
		cJSON *x = cJSON_CreateObject();

		cJSON_AddStringToObject(x, "name", s->metrics[m].name);
		ab_json_add_str_or_null(x, "unit", s->metrics[m].unit);
		cJSON_AddStringToObject(x, "better", s->metrics[m].higher ? "higher" : "lower");
		cJSON_AddStringToObject(x, "from", s->metrics[m].builtin >= 0 ? "allocbuild" :
		    s->metrics[m].derived ? "derived" : "driver");
		if (s->metrics[m].derived)
			cJSON_AddStringToObject(x, "definition", s->metrics[m].derived->expr);
		cJSON_AddItemToArray(a, x);
	}
	a = cJSON_AddArrayToObject(o, "groups");
	for (size_t g = 0; g < s->ngroups; g++) {
		const struct ab_compare_group *x = &s->groups[g];
		cJSON *j, *v;

		if (!x->n)
			continue;
		j = cJSON_CreateObject();
		ab_json_add_str_or_null(j, "cell", s->cells.v[x->cell][0] ? s->cells.v[x->cell] : NULL);
		cJSON_AddStringToObject(j, "label", s->labels.v[x->label]);
		cJSON_AddStringToObject(j, "metric", s->metrics[x->metric].name);
		cJSON_AddNumberToObject(j, "n", (double)x->n);
		add_num(j, "median", x->median);
		add_num(j, "min", x->min);
		add_num(j, "max", x->max);
		v = cJSON_AddArrayToObject(j, "values");
		for (size_t i = 0; i < x->n; i++)
			cJSON_AddItemToArray(v, cJSON_CreateNumber(x->v[i]));
		v = cJSON_AddArrayToObject(j, "runs");
		for (size_t i = 0; i < x->n; i++)
			cJSON_AddItemToArray(v, cJSON_CreateNumber(s->runs[x->run[i]].number));
		cJSON_AddItemToArray(a, j);
	}
	a = cJSON_AddArrayToObject(o, "comparisons");
	for (size_t i = 0; i < s->nrows; i++) {
		const struct ab_compare_row *r = &s->rows[i];
		cJSON *j = cJSON_CreateObject(), *ci;

		ab_json_add_str_or_null(j, "cell", s->cells.v[r->cell][0] ? s->cells.v[r->cell] : NULL);
		cJSON_AddStringToObject(j, "metric", s->metrics[r->metric].name);
		cJSON_AddStringToObject(j, "label", s->labels.v[r->label]);
		cJSON_AddStringToObject(j, "against", s->labels.v[r->against]);
		cJSON_AddBoolToObject(j, "paired", r->paired);
		cJSON_AddNumberToObject(j, "n", (double)r->na);
		cJSON_AddNumberToObject(j, "n_against", (double)r->nb);
		add_num(j, "ratio", r->ci.ratio);
		ab_json_add_str_or_null(j, "ratio_undefined", ab_stats_ratio_why(r->ci.undefined));
		add_num(j, "difference", r->ci.diff);
		ci = cJSON_AddArrayToObject(j, "ci");
		if (!isnan(r->ci.lo)) {
			/* an infinite bound (a resample's ratio overflowed) is null, as JSON has no infinity */
			cJSON_AddItemToArray(ci, isfinite(r->ci.lo) ? cJSON_CreateNumber(r->ci.lo) : cJSON_CreateNull());
			cJSON_AddItemToArray(ci, isfinite(r->ci.hi) ? cJSON_CreateNumber(r->ci.hi) : cJSON_CreateNull());
		}
		add_num(j, "u", r->u.u);
		add_num(j, "p", r->u.p);
		cJSON_AddBoolToObject(j, "exact", r->u.exact);
		cJSON_AddStringToObject(j, "verdict", ab_stats_verdict_word(r->verdict));
		cJSON_AddBoolToObject(j, "control", r->control);
		cJSON_AddBoolToObject(j, "unreliable", why && !r->control);
		if (s->nlayouts) {
			cJSON_AddBoolToObject(j, "layout_control", r->layout);
			cJSON_AddBoolToObject(j, "within_layout_noise", r->within_layout);
		}
		cJSON_AddItemToArray(a, j);
	}
	a = cJSON_AddArrayToObject(o, "controls");
	for (size_t i = 0; i < s->ncontrols; i++) {
		cJSON *j = cJSON_CreateObject(), *l = cJSON_AddArrayToObject(j, "labels");

		cJSON_AddItemToArray(l, cJSON_CreateString(s->labels.v[s->controls[i].a]));
		cJSON_AddItemToArray(l, cJSON_CreateString(s->labels.v[s->controls[i].b]));
		cJSON_AddStringToObject(j, "artifact_sha256", s->controls[i].sha256);
		cJSON_AddItemToArray(a, j);
	}
	if (s->load_runs) {
		cJSON *l = cJSON_AddObjectToObject(o, "load");

		cJSON_AddNumberToObject(l, "runs", (double)s->load_runs);
		cJSON_AddNumberToObject(l, "min", s->load_min);
		cJSON_AddNumberToObject(l, "max", s->load_max);
		cJSON_AddNumberToObject(l, "cpus", s->load_cpus);
		cJSON_AddBoolToObject(l, "busy", s->busy);
	} else {
		cJSON_AddNullToObject(o, "load");
	}
	if (s->nlayouts) {
		cJSON *l = cJSON_AddObjectToObject(o, "layout"), *bands;

		cJSON_AddStringToObject(l, "baseline", s->labels.v[s->baseline]);
		a = cJSON_AddArrayToObject(l, "variants");
		for (size_t i = 0; i < s->nlayouts; i++)
			cJSON_AddItemToArray(a, cJSON_CreateString(s->labels.v[s->layouts[i]]));
		bands = cJSON_AddArrayToObject(l, "bands");
		for (size_t i = 0; i < s->nbands; i++) {
			const struct ab_compare_band *x = &s->bands[i];
			cJSON *j = cJSON_CreateObject(), *ci = NULL;

			ab_json_add_str_or_null(j, "cell", s->cells.v[x->cell][0] ? s->cells.v[x->cell] : NULL);
			cJSON_AddStringToObject(j, "metric", s->metrics[x->metric].name);
			cJSON_AddNumberToObject(j, "members", (double)x->b.members);
			cJSON_AddNumberToObject(j, "band", x->b.band);
			ci = cJSON_AddArrayToObject(j, "ci");
			if (!isnan(x->b.lo)) {
				cJSON_AddItemToArray(ci, cJSON_CreateNumber(x->b.lo));
				cJSON_AddItemToArray(ci, cJSON_CreateNumber(x->b.hi));
			}
			cJSON_AddItemToArray(bands, j);
		}
		cJSON_AddNumberToObject(l, "within_layout_noise", (double)s->within_layout);
	}
	cJSON_AddNumberToObject(o, "too_short", (double)s->nshort);
	cJSON_AddItemToObject(o, "failed_labels", ab_json_strv(s->failed_labels.v, s->failed_labels.n));
	cJSON_AddBoolToObject(o, "control_differs", s->control_differs);
	cJSON_AddBoolToObject(o, "control_judged", s->control_judged);
	cJSON_AddBoolToObject(o, "mixed_environments", s->mixed_env);
	ab_json_add_str_or_null(o, "unreliable", why);
	cJSON_AddItemToObject(o, "warnings", ab_json_strv(s->warnings.v, s->warnings.n));
	return o;
}

static cJSON *
comparison_json(const struct ab_comparison *c)
{
	cJSON *o = cJSON_CreateObject(), *a;

	cJSON_AddStringToObject(o, "outdir", c->o.outdir);
	cJSON_AddNumberToObject(o, "seed", (double)c->o.seed);
	cJSON_AddNumberToObject(o, "resamples", c->o.resamples);
	cJSON_AddNumberToObject(o, "level", AB_COMPARE_LEVEL);
	cJSON_AddNumberToObject(o, "alpha", AB_COMPARE_ALPHA);
	cJSON_AddNumberToObject(o, "threshold", c->o.threshold);
	a = cJSON_AddArrayToObject(o, "sets");
	for (size_t k = 0; k < c->nsets; k++)
		cJSON_AddItemToArray(a, set_json(&c->sets[k]));
	return o;
}

/* ---- markdown (pr.md) ---- */

void
ab_compare_markdown(struct ab_buf *b, const struct ab_comparison *c, const struct ab_compare_set *s)
{
	int cells = s->cells.n > 1 || s->cells.v[0][0];
	char *pairing = pairing_text(s), *method = method_text(c);

	put_hosts(b, s, 1);
	if (s->hosts.n > 1)
		ab_buf_puts(b, "\n");
	if (s->labels.n > 1) {
		ab_buf_puts(b, "Against ");
		ab_page_code(b, s->labels.v[s->baseline]);
		ab_buf_printf(b, ", %s: %s.\n\n", pairing, method);
	} else {
		ab_buf_puts(b, "One label: its figures, nothing to compare them with.\n\n");
	}
	ab_buf_printf(b, "| metric |%s label | runs | median (min–max) | ratio [95%% CI] | p | verdict |\n"
	    "|---|%s---|---|---|---|---|---|\n", cells ? " cell |" : "", cells ? "---|" : "");
	for (size_t m = 0; m < s->nmetrics; m++)
		for (size_t cl = 0; cl < s->cells.n; cl++)
			for (size_t l = 0; l < s->labels.n; l++) {
				const struct ab_compare_group *g = ab_compare_group(s, cl, l, m);
				const struct ab_compare_row *r = g ? g->row : NULL;

				if (!g)
					continue;
				ab_buf_puts(b, "| ");
				ab_page_code(b, s->metrics[m].name);
				if (s->metrics[m].unit) {
					/* a driver's unit is its own text: <script>, [a](link) are text on the page */
					ab_buf_puts(b, " (");
					ab_page_text(b, s->metrics[m].unit);
					ab_buf_puts(b, ")");
				}
				ab_buf_puts(b, " | ");
				if (cells) {
					if (s->cells.v[cl][0])
						ab_page_code(b, s->cells.v[cl]);
					ab_buf_puts(b, " | ");
				}
				ab_page_code(b, s->labels.v[l]);
				ab_buf_printf(b, " | %zu | ", g->n);
				put_value(b, g->median);
				if (g->n > 1) {
					ab_buf_puts(b, " (");
					put_value(b, g->min);
					ab_buf_puts(b, "–");
					put_value(b, g->max);
					ab_buf_puts(b, ")");
				}
				if (l == s->baseline) {
					ab_buf_puts(b, " | baseline | | |\n");
				} else if (r) {
					char *ratio = ratio_text(&r->ci), *ci = ci_text(&r->ci), *p = p_text(r->u.p),
					    *v = verdict_text(s, r);
					int strong = ab_stats_verdict_differs(r->verdict);

					ab_buf_printf(b, " | %s %s | %s | %s%s%s |\n", ratio, strcmp(ci, "-") ? ci : "", p,
					    strong ? "**" : "", v, strong ? "**" : "");
					free(ratio);
					free(ci);
					free(p);
					free(v);
				} else {
					ab_buf_puts(b, " | – | | no baseline runs |\n");
				}
			}
	ab_buf_puts(b, "\n");
	put_derived(b, s, 1);
	put_controls(b, s, 1);
	put_layout(b, s, 1);
	put_load(b, s, 1);
	put_alloc_stats(b, s, 1);
	put_failed_labels(b, s, 1);
	for (size_t i = 0; i < s->nrows; i++) {
		const struct ab_compare_row *r = &s->rows[i];
		char *ratio, *ci, *p;

		if (!r->control || r->against == s->baseline)
			continue;
		ratio = ratio_text(&r->ci);
		ci = ci_text(&r->ci);
		p = p_text(r->u.p);
		ab_buf_puts(b, "- ");
		ab_page_code(b, s->metrics[r->metric].name);
		ab_buf_printf(b, ": %s %s, p %s: %s\n", ratio, ci, p, ab_stats_verdict_word(r->verdict));
		free(ratio);
		free(ci);
		free(p);
	}
	ab_buf_puts(b, "\n");
	if (s->warnings.n) {
		ab_buf_puts(b, "> [!WARNING]\n");
		/* warnings quote names, units, cells and environments as the records hold them */
		for (size_t i = 0; i < s->warnings.n; i++) {
			ab_buf_puts(b, "> - ");
			ab_page_text(b, s->warnings.v[i]);
			ab_buf_puts(b, "\n");
		}
		ab_buf_puts(b, "\n");
	}
	free(pairing);
	free(method);
}

/* ---- charts (Mermaid xychart-beta: GitHub renders them in pr.md) ---- */

/* the colours of the lines and bars, one a label in order (xychart-beta draws no legend: the text names them) */
static const char *const palette[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f"};
static const char *const palette_words[] = {"blue", "orange", "green", "red", "purple", "brown", "pink", "grey"};
#define CHART_POINTS 60
/* Mermaid's xychart: its width (700), its labels' font (14 px); a category's room beyond its label */
#define MERMAID_WIDTH 700.0
#define MERMAID_HEIGHT 500.0
#define MERMAID_FONT 14.0
#define MERMAID_SLOT_PAD 24.0
/* what Mermaid's y axis takes of the width, and its room for a horizontal chart's labels (half) */
#define MERMAID_Y_AXIS 120.0
#define MERMAID_ROW 28.0

/* a string in a chart's double quotes (ab_page_mermaid) */
static void
chart_text(struct ab_buf *b, const char *s)
{
	ab_buf_putc(b, '"');
	ab_page_mermaid(b, s);
	ab_buf_putc(b, '"');
}

/*
 * a chart's start: its size when it needs more than Mermaid's 700 x 500
 * pixels (the categories of a horizontal chart: GitHub scales the
 * picture to the page), its colours
 */
static void
chart_start(struct ab_buf *b, size_t ncolours, double width, double height, int horizontal)
{
	ab_buf_puts(b, "```mermaid\n%%{init: {\"xyChart\": {");
	if (width > MERMAID_WIDTH)
		ab_buf_printf(b, "\"width\": %.0f, ", ceil(width));
	if (height > MERMAID_HEIGHT)
		ab_buf_printf(b, "\"height\": %.0f, ", ceil(height));
	/*
	 * room beyond what Mermaid measures: with a wide face (DejaVu Sans) its
	 * y axis' name ran into the labels and the x labels' feet left the picture
	 */
	ab_buf_puts(b, "\"xAxis\": {\"labelPadding\": 8}, \"yAxis\": {\"titlePadding\": 10, \"labelPadding\": 10}}, "
	    "\"themeVariables\": {\"xyChart\": {\"plotColorPalette\": \"");
	for (size_t i = 0; i < ncolours; i++)
		ab_buf_printf(b, "%s%s", i ? ", " : "", palette[i % AB_NELEM(palette)]);
	ab_buf_printf(b, "\"}}}}%%%%\nxychart-beta%s\n", horizontal ? " horizontal" : "");
}

/* a y axis: its name with its unit, from its lowest tick to its highest (svgchart's ticks: Mermaid's are d3's within) */
static void
chart_y_axis(struct ab_buf *b, const struct ab_chart_axis *a, const char *name)
{
	char *full = ab_chart_axis_name(a, name), lo[32], hi[32];

	ab_chart_axis_label(lo, sizeof(lo), a, a->lo);
	ab_chart_axis_label(hi, sizeof(hi), a, a->hi);
	ab_buf_puts(b, "    y-axis ");
	chart_text(b, full);
	ab_buf_printf(b, " %s --> %s\n", lo, hi);
	free(full);
}

/* a chart's values in the axis' units */
static void
chart_values(struct ab_buf *b, const char *kind, const struct ab_chart_axis *a, const double *v, size_t n)
{
	char num[64];

	ab_buf_printf(b, "    %s [", kind);
	for (size_t i = 0; i < n; i++) {
		ab_compare_format_value(num, sizeof(num), v[i] / pow(10, a->exp10));
		ab_buf_printf(b, "%s%s", i ? ", " : "", num);
	}
	ab_buf_puts(b, "]\n");
}

/* the SVG file of the last chart, linked when the page can link it: "WHAT: [NAME.svg](HREF)." */
static void
chart_link(struct ab_buf *b, const struct ab_compare_svgs *svg, const char *what)
{
	const char *name;

	if (!svg || !svg->href || !svg->names.n)
		return;
	name = svg->names.v[svg->names.n - 1];
	ab_buf_printf(b, "%s: [", what);
	ab_page_text(b, strrchr(name, '/') ? strrchr(name, '/') + 1 : name);
	ab_buf_puts(b, "](<");
	ab_page_href(b, svg->href);
	ab_page_href(b, name);
	ab_buf_puts(b, ">).\n\n");
}

/* the colours of the labels in words: "blue `a` (run 0019, 1.62 s)" */
static void
chart_legend(struct ab_buf *b, const struct ab_compare_set *s, const int *shown, const long *run, const double *end)
{
	size_t k = 0;

	for (size_t l = 0; l < s->labels.n; l++) {
		char num[32];

		if (!shown[l])
			continue;
		ab_compare_format_value(num, sizeof(num), end[l]);
		ab_buf_printf(b, "%s%s ", k ? ", " : "", palette_words[k % AB_NELEM(palette_words)]);
		ab_page_code(b, s->labels.v[l]);
		ab_buf_printf(b, " (run %04d, %s s)", s->runs[run[l]].number, num);
		k++;
	}
}

/* the resident set of a series at t ms from its start (at most its end): its last sample at or before t, MiB */
static double
rss_at(const struct ab_series *x, double t)
{
	double v = 0;

	for (size_t i = 0; i < x->n && (double)x->v[i].ms <= t; i++)
		v = (double)ab_series_rss(x, &x->v[i]);
	return v / 1024;
}

/* an SVG file of a chart, named SET/WHAT.svg (no metric's name can make "rss-over-time" a metric/ one) */
static void
svg_add(struct ab_compare_svgs *svg, const struct ab_compare_set *s, const char *what, struct ab_buf *text)
{
	if (s->host)
		ab_strv_pushf(&svg->names, "%s/%s/%s.svg", s->name, s->host, what);
	else
		ab_strv_pushf(&svg->names, "%s/%s.svg", s->name, what);
	ab_strv_push_owned(&svg->texts, ab_buf_detach(text));
}

/*
 * RSS over time: each label's median sampled run, each over its own time
 * from its start to its end, so that every line ends where its run ended.
 * Mermaid spreads every line over the whole x axis, so its chart is drawn
 * in each run's share of its time (0 to 100%); the SVG file in seconds,
 * each line stopping at its run's end
 */
static int
chart_rss(struct ab_buf *b, const struct ab_comparison *c, const struct ab_compare_set *s, struct ab_compare_svgs *svg)
{
	struct ab_series *x = ab_calloc(s->labels.n, sizeof(*x));
	long *run = ab_calloc(s->labels.n, sizeof(*run));
	double *y = ab_calloc(s->labels.n * CHART_POINTS, sizeof(*y)), *end = ab_calloc(s->labels.n, sizeof(*end));
	struct ab_svg_line *lines = ab_calloc(s->labels.n, sizeof(*lines));
	int *shown = ab_calloc(s->labels.n, sizeof(*shown)), e = 0;
	size_t nshown = 0, k = 0;
	double top = 0;
	struct ab_chart_axis a;

	for (size_t l = 0; l < s->labels.n && e == 0; l++) {
		size_t last;
		double ms;

		if ((e = ab_compare_series(&x[l], &run[l], c, s, l)) < 0 || run[l] < 0 || !x[l].n)
			continue;
		/*
		 * the run's end is its last reading of a resident set: the kernel
		 * reads 0 of an exiting process whose memory is gone (a reading
		 * after the program's end, not a state of its memory)
		 */
		for (last = x[l].n; last-- > 0 && !ab_series_rss(&x[l], &x[l].v[last]);)
			;
		if (last == (size_t)-1 || !((ms = (double)x[l].v[last].ms) > 0))
			continue;
		shown[l] = 1;
		nshown++;
		end[l] = ms / 1000;
		for (int i = 0; i < CHART_POINTS; i++) {
			y[l * CHART_POINTS + (size_t)i] = rss_at(&x[l], ms * i / (CHART_POINTS - 1));
			top = fmax(top, y[l * CHART_POINTS + (size_t)i]);
		}
		lines[k].name = s->labels.v[l];
		lines[k].y = &y[l * CHART_POINTS];
		lines[k].n = CHART_POINTS;
		lines[k++].end = end[l];
	}
	if (e == 0 && nshown) {
		ab_chart_axis(&a, 0, top);
		ab_buf_puts(b, "RSS over time, MiB, each run from its start (0%) to its end (100%), so that every line ends "
		    "where its run ended (the run of median steady RSS of each label: ");
		chart_legend(b, s, shown, run, end);
		ab_buf_puts(b, "):\n\n");
		chart_start(b, nshown, 0, 0, 0);
		ab_buf_puts(b, "    title \"RSS over time\"\n    x-axis \"% of the run\" 0 --> 100\n");
		chart_y_axis(b, &a, "RSS (MiB)");
		for (size_t l = 0; l < s->labels.n; l++)
			if (shown[l])
				chart_values(b, "line", &a, &y[l * CHART_POINTS], CHART_POINTS);
		ab_buf_puts(b, "```\n\n");
		if (svg) {
			struct ab_buf t = {0};

			ab_svg_lines(&t, "RSS over time", "seconds", "RSS (MiB)", lines, k);
			svg_add(svg, s, "rss-over-time", &t);
			chart_link(b, svg, "The same runs in seconds, each line ending where its run ended");
		}
	}
	for (size_t l = 0; l < s->labels.n; l++)
		ab_series_release(&x[l]);
	free(x);
	free(run);
	free(y);
	free(end);
	free(lines);
	free(shown);
	return e;
}

/* a metric's distribution per label (of the first cell that has it): median bars, min and max lines */
static void
chart_metric(struct ab_buf *b, const struct ab_compare_set *s, size_t m, struct ab_compare_svgs *svg)
{
	const char **cat = ab_calloc(s->labels.n + 1, sizeof(*cat));
	double *v[3];
	size_t cell = 0, n = 0;
	char *title;

	for (int w = 0; w < 3; w++)
		v[w] = ab_calloc(s->labels.n + 1, sizeof(double));
	for (cell = 0; cell < s->cells.n && !n; cell++)
		for (size_t l = 0; l < s->labels.n; l++) {
			const struct ab_compare_group *g = ab_compare_group(s, cell, l, m);

			if (!g)
				continue;
			cat[n] = s->labels.v[l];
			v[0][n] = g->median, v[1][n] = g->min, v[2][n] = g->max;
			n++;
		}
	if (n) {
		const char *unit = s->metrics[m].unit ? s->metrics[m].unit : s->metrics[m].name;
		double lo = 0, hi = 0, widest = 0;
		struct ab_chart_axis a;
		int horizontal;

		cell--;
		title = ab_sprintf("%s%s%s%s%s", s->metrics[m].name, s->cells.v[cell][0] ? " in " : "", s->cells.v[cell],
		    s->metrics[m].unit ? ", " : "", s->metrics[m].unit ? s->metrics[m].unit : "");
		/* from 0, so that a bar's height is its value (a driver's figure may be negative: then from its least) */
		for (size_t i = 0; i < n; i++) {
			lo = fmin(lo, v[1][i]);
			hi = fmax(hi, v[2][i]);
			widest = fmax(widest, ab_chart_text_width(cat[i], MERMAID_FONT));
		}
		/* round ticks in engineering notation: the values in units of a power of ten the axis names */
		ab_chart_axis(&a, lo, hi);
		/*
		 * Mermaid never turns a label, and a category's room must be 1.5
		 * times its label (it centres the last a third of its room from the
		 * edge): labels too wide to stand side by side make the chart
		 * horizontal, a label a row, as wide as the labels need (Mermaid
		 * gives them half) and as high as the rows
		 */
		horizontal = (double)n * (1.5 * widest + MERMAID_SLOT_PAD) > MERMAID_WIDTH - MERMAID_Y_AXIS;
		chart_start(b, 3, horizontal ? 2 * (widest + MERMAID_SLOT_PAD) + MERMAID_Y_AXIS : 0,
		    horizontal ? 120 + (double)n * MERMAID_ROW : 0, horizontal);
		ab_buf_puts(b, "    title ");
		chart_text(b, title);
		ab_buf_puts(b, "\n    x-axis [");
		for (size_t i = 0; i < n; i++) {
			ab_buf_puts(b, i ? ", " : "");
			chart_text(b, cat[i]);
		}
		ab_buf_puts(b, "]\n");
		chart_y_axis(b, &a, unit);
		for (int w = 0; w < 3; w++)
			chart_values(b, w ? "line" : "bar", &a, v[w], n);
		ab_buf_puts(b, "```\n\n");
		if (svg) {
			struct ab_buf t = {0};
			char *what = ab_sprintf("metric/%s", s->metrics[m].name);

			ab_svg_bars(&t, title, unit, cat, v[0], v[1], v[2], n);
			svg_add(svg, s, what, &t);
			free(what);
			chart_link(b, svg, "As an SVG file");
		}
		free(title);
	}
	for (int w = 0; w < 3; w++)
		free(v[w]);
	free(cat);
}

int
ab_compare_charts(struct ab_buf *b, const struct ab_comparison *c, const struct ab_compare_set *s,
    struct ab_compare_svgs *svg)
{
	int e;

	if ((e = chart_rss(b, c, s, svg)) < 0)
		return e;
	if (!s->nmetrics)
		return 0;
	ab_buf_puts(b, "Each metric per label: the median (blue bars), the minimum (orange) and the maximum (green) of "
	    "the successful runs.\n\n");
	for (size_t m = 0; m < s->nmetrics; m++)
		chart_metric(b, s, m, svg);
	return 0;
}

int
ab_compare_print(FILE *out, const struct ab_comparison *c, enum ab_compare_format f)
{
	struct ab_buf b = {0};
	int e;

	if (f == AB_CMP_CSV)
		ab_buf_puts(&b, "name,number,batch,repetition,label,cell,status,metric,value,unit,artifact_sha256,host\n");
	if (f == AB_CMP_JSON) {
		cJSON *doc = comparison_json(c);
		char *text = cJSON_Print(doc);

		ab_buf_printf(&b, "%s\n", text);
		cJSON_free(text);
		cJSON_Delete(doc);
	}
	for (size_t k = 0; k < c->nsets; k++) {
		const struct ab_compare_set *s = &c->sets[k];

		if (f == AB_CMP_TABLE) {
			if (k)
				ab_buf_puts(&b, "\n");
			set_table(&b, c, s);
		} else if (f == AB_CMP_CSV) {
			set_csv(&b, s);
		} else if (f == AB_CMP_MD) {
			ab_buf_puts(&b, "#### ");
			ab_page_code(&b, s->name);
			if (s->host) {
				ab_buf_puts(&b, " on host ");
				ab_page_code(&b, s->host);
			}
			ab_buf_puts(&b, "\n\n");
			ab_compare_markdown(&b, c, s);
			if ((e = ab_compare_charts(&b, c, s, NULL)) < 0) {
				ab_buf_free(&b);
				return e;
			}
		}
		/* the warnings of the data formats go to stderr (json carries them too) */
		if (f != AB_CMP_MD)
			for (size_t i = 0; i < s->warnings.n; i++)
				ab_warn("compare: runs/%s%s%s: %s", s->name, s->host ? " on host " : "", s->host ? s->host : "",
				    s->warnings.v[i]);
	}
	if (fwrite(b.s ? b.s : "", 1, b.len, out) != b.len || fflush(out) != 0 || ferror(out)) {
		ab_error_errno("compare: cannot write the comparison");
		ab_buf_free(&b);
		return AB_EFAIL;
	}
	ab_buf_free(&b);
	return 0;
}

void
ab_compare_row_texts(struct ab_compare_row_texts *t, const struct ab_compare_set *s, const struct ab_compare_row *r)
{
	t->ratio = ratio_text(&r->ci);
	t->ci = ci_text(&r->ci);
	t->p = p_text(r->u.p);
	t->verdict = verdict_text(s, r);
}

void
ab_compare_row_texts_release(struct ab_compare_row_texts *t)
{
	free(t->ratio);
	free(t->ci);
	free(t->p);
	free(t->verdict);
}
