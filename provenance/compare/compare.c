/* compare: reading and analysing the runs (the formats: compare_out.c) */
#include "compare.h"

#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/jsonio.h"
#include "../../lib/pool.h"
#include "../runs/runenv.h"
#include "compare_impl.h"

/* ---- values ---- */

double
ab_compare_builtin_value(const struct ab_runrec *r, int m)
{
	const struct ab_series_figures *f = r->sampling ? &r->sampling->figures : NULL;
	int window = m == AB_M_STEADY_RSS || m == AB_M_WINDOW_CPU || m == AB_M_STEADY_PSS || m == AB_M_STEADY_ANON;

	/* wait4's figures are the kernel's whatever the run's length; the sampler's need samples */
	if (m != AB_M_WALL && m != AB_M_CPU && m != AB_M_MAXRSS && ab_runrec_too_short(r, window))
		return NAN;
	switch (m) {
	case AB_M_WALL:
		return r->wall_s;
	case AB_M_CPU:
		return r->user_s + r->sys_s;
	case AB_M_MAXRSS:
		return r->maxrss_kb >= 0 ? (double)r->maxrss_kb / 1024 : NAN;
	case AB_M_STEADY_RSS:
		return f ? f->steady_rss_kb / 1024 : NAN;
	case AB_M_PEAK_RSS:
		return f ? f->peak_rss_kb / 1024 : NAN;
	case AB_M_COOLDOWN_RSS:
		return f ? f->cooldown_rss_kb / 1024 : NAN;
	case AB_M_RSS_GIB_S:
		return f ? f->rss_gib_s : NAN;
	case AB_M_WINDOW_CPU:
		return f ? f->window_cpu_s : NAN;
	case AB_M_MINFLT:
		return f ? f->minor_faults : NAN;
	case AB_M_MAJFLT:
		return f ? f->major_faults : NAN;
	case AB_M_THREADS:
		return f ? f->max_threads : NAN;
	case AB_M_STEADY_PSS:
		return f ? f->steady_pss_kb / 1024 : NAN;
	case AB_M_PEAK_PSS:
		return f ? f->peak_pss_kb / 1024 : NAN;
	case AB_M_STEADY_ANON:
		return f ? f->steady_anon_kb / 1024 : NAN;
	case AB_M_PEAK_ANON:
		return f ? f->peak_anon_kb / 1024 : NAN;
	}
	return NAN;
}

static size_t
index_of(const struct ab_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (!strcmp(v->v[i], s))
			return i;
	return (size_t)-1;
}

static size_t
metric_index(const struct ab_compare_set *s, const char *name)
{
	size_t i;

	return ab_strmap_get(&s->metric_at, name, &i) ? i : (size_t)-1;
}

static void
add_metric(struct ab_compare_set *s, const char *name, const char *unit, int higher, int builtin)
{
	/* doubling: a set's metrics grow with its runs' names */
	if (!(s->nmetrics & (s->nmetrics - 1)))
		s->metrics = ab_realloc(s->metrics, (s->nmetrics ? 2 * s->nmetrics : 1) * sizeof(*s->metrics));
	s->metrics[s->nmetrics].name = ab_strdup(name);
	s->metrics[s->nmetrics].unit = ab_strdup_or_null(unit);
	s->metrics[s->nmetrics].higher = higher;
	s->metrics[s->nmetrics].builtin = builtin;
	s->metrics[s->nmetrics].derived = NULL;
	ab_strmap_put(&s->metric_at, s->metrics[s->nmetrics].name, s->nmetrics);
	s->nmetrics++;
}

/* the position of a cell, or (size_t)-1 */
static size_t
cell_index(const struct ab_compare_set *s, const char *cell)
{
	size_t i;

	return ab_strmap_get(&s->cell_at, cell, &i) ? i : (size_t)-1;
}

static void
add_cell(struct ab_compare_set *s, const char *cell)
{
	if (cell_index(s, cell) != (size_t)-1)
		return;
	ab_strv_push(&s->cells, cell);
	ab_strmap_put(&s->cell_at, s->cells.v[s->cells.n - 1], s->cells.n - 1);
}

/* is a builtin there for some successful run? */
static int
builtin_seen(const struct ab_compare_set *s, int m)
{
	for (size_t i = 0; i < s->nruns; i++)
		if (s->ok[i] && !isnan(ab_compare_builtin_value(&s->runs[i], m)))
			return 1;
	return 0;
}

/* the driver's metric name as some run reported it, or NULL */
static const struct ab_metric *
driver_metric(const struct ab_compare_set *s, const char *name)
{
	for (size_t i = 0; i < s->nruns; i++)
		for (size_t k = 0; k < s->runs[i].metrics.n; k++)
			if (!strcmp(s->runs[i].metrics.v[k].name, name))
				return &s->runs[i].metrics.v[k];
	return NULL;
}

/* is name one of the set's figures: allocbuild's, or a driver's some run reported? */
static int
known_metric(const struct ab_compare_set *s, const char *name)
{
	return ab_metric_builtin(name) >= 0 || driver_metric(s, name);
}

/* the names a derived figure may use in s, for "did you mean": allocbuild's and the driver's */
static void
metric_names(struct ab_strv *out, const struct ab_compare_set *s)
{
	struct ab_strmap seen = {0};

	for (int b = 0; b < AB_M_NBUILTIN; b++)
		ab_strv_push(out, ab_metric_builtins[b].name);
	for (size_t i = 0; i < s->nruns; i++)
		for (size_t k = 0; k < s->runs[i].metrics.n; k++)
			if (!ab_strmap_get(&seen, s->runs[i].metrics.v[k].name, NULL)) {
				ab_strmap_put(&seen, s->runs[i].metrics.v[k].name, 0);
				ab_strv_push(out, s->runs[i].metrics.v[k].name);
			}
	ab_strmap_free(&seen);
}

/*
 * the derived figures, after the others: each input a figure of the set
 * (an unknown one refused with its position and the nearest name), each
 * name a new one
 */
static int
add_derived(struct ab_compare_set *s, const struct ab_compare_opts *o)
{
	for (size_t i = 0; i < o->nderived; i++) {
		const struct ab_derived *d = &o->derived[i];
		const char *where = d->where ? d->where : "--derive";
		const struct ab_dnode **in;
		size_t n = ab_derived_inputs(&in, d);
		int bad = 0;

		if (metric_index(s, d->name) != (size_t)-1 || driver_metric(s, d->name)) {
			ab_error("compare: runs/%s: %s: position 1: '%s' is a figure its runs report: a derived figure takes "
			    "another name", s->name, where, d->name);
			free(in);
			return AB_EFAIL;
		}
		for (size_t k = 0; k < n && !bad; k++) {
			struct ab_strv names = {0};
			const char *near;

			if (known_metric(s, in[k]->name))
				continue;
			metric_names(&names, s);
			near = ab_closest(in[k]->name, names.v, names.n);
			if (near)
				ab_error("compare: runs/%s: %s: position %zu: unknown metric '%s' (did you mean '%s'?)", s->name,
				    where, in[k]->pos, in[k]->name, near);
			else
				ab_error("compare: runs/%s: %s: position %zu: unknown metric '%s' (allocbuild's: wall_s, cpu_s, "
				    "steady_rss_mib, ...; the driver's: those its runs report)", s->name, where, in[k]->pos,
				    in[k]->name);
			ab_strv_free(&names);
			bad = 1;
		}
		free(in);
		if (bad)
			return AB_EFAIL;
		add_metric(s, d->name, d->unit, d->higher, -1);
		s->metrics[s->nmetrics - 1].derived = d;
	}
	return 0;
}

/* the metrics compared: those asked for, else the default set (docs/runs.md) */
static int
choose_metrics(struct ab_compare_set *s, const struct ab_compare_opts *o)
{
	static const int dflt[] = {AB_M_WALL, AB_M_CPU, AB_M_MAXRSS, AB_M_STEADY_RSS, AB_M_PEAK_RSS,
	    AB_M_COOLDOWN_RSS, AB_M_RSS_GIB_S};
	int sampled = builtin_seen(s, AB_M_STEADY_RSS);

	for (size_t i = 0; i < o->nmetrics; i++) {
		int b = ab_metric_builtin(o->metrics[i]);
		const struct ab_metric *d = b < 0 ? driver_metric(s, o->metrics[i]) : NULL;

		int derived = 0;

		for (size_t k = 0; k < o->nderived && !derived; k++)
			derived = !strcmp(o->derived[k].name, o->metrics[i]);
		/* a derived figure asked for by name: it comes with the others derived */
		if (derived || metric_index(s, o->metrics[i]) != (size_t)-1)
			continue;
		if (b >= 0)
			add_metric(s, o->metrics[i], ab_metric_builtins[b].unit, 0, b);
		else if (d)
			add_metric(s, d->name, d->unit, d->higher, -1);
		else {
			ab_error("compare: runs/%s: no run has the metric '%s' (allocbuild's: wall_s, cpu_s, "
			    "steady_rss_mib, ...; see 'allocbuild help compare'; the driver's: those its runs report)",
			    s->name, o->metrics[i]);
			return AB_EFAIL;
		}
	}
	if (o->nmetrics)
		return add_derived(s, o);
	for (size_t i = 0; i < AB_NELEM(dflt); i++) {
		int m = dflt[i];

		/* the sampled figures when there are, wait4's peak RSS when not */
		if ((m == AB_M_MAXRSS && sampled) || (m != AB_M_WALL && m != AB_M_CPU && m != AB_M_MAXRSS &&
		    !builtin_seen(s, m)))
			continue;
		add_metric(s, ab_metric_builtins[m].name, ab_metric_builtins[m].unit, 0, m);
	}
	for (size_t i = 0; i < s->nruns; i++)
		for (size_t k = 0; k < s->runs[i].metrics.n; k++) {
			const struct ab_metric *d = &s->runs[i].metrics.v[k];

			if (s->ok[i] && metric_index(s, d->name) == (size_t)-1)
				add_metric(s, d->name, d->unit, d->higher, -1);
		}
	return add_derived(s, o);
}

/* is name an input of a derived figure of s? */
static int
derived_input(const struct ab_compare_set *s, const char *name)
{
	int found = 0;

	for (size_t m = 0; m < s->nmetrics && !found; m++) {
		const struct ab_dnode **in;
		size_t n;

		if (!s->metrics[m].derived)
			continue;
		n = ab_derived_inputs(&in, s->metrics[m].derived);
		for (size_t k = 0; k < n && !found; k++)
			found = !strcmp(in[k]->name, name);
		free(in);
	}
	return found;
}

/* the cells: "" for the runs' figures without one, then each named, in order of first appearance */
static void
collect_cells(struct ab_compare_set *s)
{
	for (size_t i = 0; i < s->nruns; i++) {
		const char *cell = s->runs[i].cell ? s->runs[i].cell : "";

		if (!s->ok[i])
			continue;
		add_cell(s, cell);
		for (size_t k = 0; k < s->runs[i].metrics.n; k++) {
			const char *mc = s->runs[i].metrics.v[k].cell ? s->runs[i].metrics.v[k].cell : cell;

			if (metric_index(s, s->runs[i].metrics.v[k].name) != (size_t)-1 ||
			    derived_input(s, s->runs[i].metrics.v[k].name))
				add_cell(s, mc);
		}
	}
	if (!s->cells.n)
		add_cell(s, "");
}

static struct ab_compare_group *
group_at(struct ab_compare_set *s, size_t cell, size_t label, size_t metric)
{
	return &s->groups[(cell * s->labels.n + label) * s->nmetrics + metric];
}

const struct ab_compare_group *
ab_compare_group(const struct ab_compare_set *s, size_t cell, size_t label, size_t metric)
{
	const struct ab_compare_group *g = &s->groups[(cell * s->labels.n + label) * s->nmetrics + metric];

	return g->n ? g : NULL;
}

const struct ab_compare_band *
ab_compare_band(const struct ab_compare_set *s, size_t cell, size_t metric)
{
	for (size_t i = 0; i < s->nbands; i++)
		if (s->bands[i].cell == cell && s->bands[i].metric == metric)
			return &s->bands[i];
	return NULL;
}

static void
group_add(struct ab_compare_group *g, double v, size_t run)
{
	if (!(g->n & (g->n - 1))) {
		g->v = ab_realloc(g->v, (g->n ? 2 * g->n : 1) * sizeof(*g->v));
		g->run = ab_realloc(g->run, (g->n ? 2 * g->n : 1) * sizeof(*g->run));
	}
	g->v[g->n] = v;
	g->run[g->n] = run;
	g->n++;
}

/* a run's series through OUTDIR's resolver, checked against its record's digest; 0, AB_ECHECK or AB_EFAIL (reported) */
static int
read_series(struct ab_series *out, const char *outdir, const struct ab_runrec_file *f)
{
	struct ab_buf text = {0};
	char why[AB_BENEATH_WHY], got[AB_HEX_LEN + 1], *name = ab_path_join(outdir, f->path);
	int fd = -1, rootfd = -1, e = AB_EFAIL;

	memset(out, 0, sizeof(*out));
	if ((rootfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
		ab_error_errno("compare: cannot open '%s'", outdir);
		goto done;
	}
	if ((fd = ab_dirwalk_open_beneath(rootfd, f->path, O_RDONLY | O_NONBLOCK, 0, why)) < 0) {
		ab_error("compare: '%s': %s", name, why);
		goto done;
	}
	if (ab_read_fd_max(&text, fd, name, 256u << 20) < 0)
		goto done;
	ab_hash_buf(got, text.s ? text.s : "", text.len);
	if (strcmp(got, f->sha256)) {
		ab_error("compare: '%s': sha256 %s, its record says %s: run 'allocbuild verify %s'", name, got, f->sha256,
		    outdir);
		e = AB_ECHECK;
		goto done;
	}
	e = ab_series_parse(out, text.s ? text.s : "", text.len, name);
done:
	if (fd >= 0)
		close(fd);
	if (rootfd >= 0)
		close(rootfd);
	ab_buf_free(&text);
	free(name);
	return e;
}

/* what a derived figure reads of a run in one cell: allocbuild's figures in the run's own cell only */
struct lookup {
	const struct ab_runrec *r;
	const char *cell;            /* NULL: the run's own */
};

static double
lookup_value(void *arg, const char *name)
{
	const struct lookup *k = arg;
	int b = ab_metric_builtin(name);
	const struct ab_metric *m;

	if (b >= 0)
		return k->cell ? NAN : ab_compare_builtin_value(k->r, b);
	m = ab_metrics_get(&k->r->metrics, name, k->cell);
	return m ? m->value : NAN;
}

/* has the run a value of some input of d in the cell (the window figures: in its own, when sampled)? */
static int
derived_has_input(const struct ab_derived *d, const struct lookup *k)
{
	const struct ab_dnode **in;
	size_t n = ab_derived_inputs(&in, d);
	int any = d->series && !k->cell && k->r->sampling;

	for (size_t i = 0; i < n && !any; i++)
		any = !isnan(lookup_value((void *)k, in[i]->name));
	free(in);
	return any || (!n && !d->series && !k->cell);
}

/* the runs whose derived figure has no value: counted and named, with why, per metric */
struct missing {
	size_t n;
	struct ab_buf b;
};

/*
 * a run's derived figures into their groups: computed in each cell where
 * the run has a value of some input, else in its own cell (to say why it
 * has none); a run without a value is named with why, never given 0
 */
static int
fill_derived(const struct ab_comparison *c, struct ab_compare_set *s, size_t i, size_t l, size_t own,
    struct missing *miss)
{
	const struct ab_runrec *r = &s->runs[i];
	struct ab_series series = {0};
	struct ab_derived_run dr = {NULL, -1, -1, -1, 0, NULL};
	int e = 0, loaded = 0;
	char brief[80];

	snprintf(brief, sizeof(brief), "the run was too short to sample (fewer than %d samples)", AB_RUN_MIN_SAMPLES);
	for (size_t m = 0; m < s->nmetrics && e == 0; m++) {
		const struct ab_derived *d = s->metrics[m].derived;
		size_t computed = 0;

		if (!d)
			continue;
		if (d->series && r->sampling && ab_runrec_too_short(r, 0))
			dr.no_series = brief;
		else if (d->series && r->sampling && !r->sampling->series.path)
			dr.no_series = "its record names no series";
		if (d->series && !loaded && r->sampling && r->sampling->series.path && !ab_runrec_too_short(r, 0)) {
			if ((e = read_series(&series, ab_compare_source_dir(c, s->src[i]), &r->sampling->series)) < 0)
				break;
			dr.series = &series;
			dr.window_start_s = r->sampling->seen.window_start_s;
			dr.window_end_s = r->sampling->seen.window_end_s;
			dr.command_end_s = r->sampling->seen.command_end_s;
			dr.interval_s = r->sampling->interval_ms / 1000.0;
			loaded = 1;
		}
		/* the run's own cell, then each other cell its figures name, once */
		for (size_t k = 0; k <= r->metrics.n; k++) {
			const char *cell = k ? r->metrics.v[k - 1].cell : NULL;
			struct lookup lk = {r, cell};
			size_t at = own;
			char *why = NULL;
			double v;
			int dup = 0;

			if (k && !cell)
				continue;
			if (cell) {
				if (!strcmp(cell, r->cell ? r->cell : ""))
					continue;
				for (size_t j = 0; j + 1 < k && !dup; j++)
					dup = r->metrics.v[j].cell && !strcmp(r->metrics.v[j].cell, cell);
				if (dup || (at = cell_index(s, cell)) == (size_t)-1)
					continue;
			}
			if (!derived_has_input(d, &lk))
				continue;
			computed++;
			v = ab_derived_eval(d, lookup_value, &lk, &dr, &why);
			if (!isnan(v)) {
				group_add(group_at(s, at, l, m), v, i);
			} else if (miss[m].n++ < 10) {
				ab_buf_printf(&miss[m].b, "%s%04d-%s%s%s (%s)", miss[m].b.len ? ", " : "", r->number, r->label,
				    cell ? " in cell " : "", cell ? cell : "", why);
			}
			free(why);
		}
		if (!computed) {
			struct lookup lk = {r, NULL};
			char *why = NULL;

			(void)ab_derived_eval(d, lookup_value, &lk, &dr, &why);
			if (miss[m].n++ < 10)
				ab_buf_printf(&miss[m].b, "%s%04d-%s (%s)", miss[m].b.len ? ", " : "", r->number, r->label, why);
			free(why);
		}
	}
	ab_series_release(&series);
	return e;
}

/*
 * every successful run's values into the groups; their medians and
 * ranges; runs without a value counted. Each run's figures are read once,
 * each found by name: linear in the figures, whatever their number
 */
static int
fill_groups(const struct ab_comparison *c, struct ab_compare_set *s)
{
	struct missing *miss = ab_calloc(s->nmetrics + 1, sizeof(*miss));
	int e = 0;
	size_t *present = ab_calloc(s->nmetrics + 1, sizeof(*present)), nok = 0, nbuiltin = 0;
	size_t *seen = ab_calloc(s->nmetrics + 1, sizeof(*seen)), *builtin = ab_calloc(s->nmetrics + 1, sizeof(*builtin));

	s->ngroups = s->cells.n * s->labels.n * s->nmetrics;
	s->groups = ab_calloc(s->ngroups, sizeof(*s->groups));
	for (size_t cl = 0; cl < s->cells.n; cl++)
		for (size_t l = 0; l < s->labels.n; l++)
			for (size_t m = 0; m < s->nmetrics; m++) {
				struct ab_compare_group *g = group_at(s, cl, l, m);

				g->cell = cl, g->label = l, g->metric = m;
			}
	for (size_t m = 0; m < s->nmetrics; m++)
		if (s->metrics[m].builtin >= 0)
			builtin[nbuiltin++] = m;
	for (size_t i = 0; i < s->nruns; i++) {
		const struct ab_runrec *r = &s->runs[i];
		size_t l = index_of(&s->labels, r->label), c0 = cell_index(s, r->cell ? r->cell : "");

		if (!s->ok[i])
			continue;
		nok++;
		for (size_t b = 0; b < nbuiltin; b++) {
			double v = ab_compare_builtin_value(r, s->metrics[builtin[b]].builtin);

			if (!isnan(v)) {
				group_add(group_at(s, c0, l, builtin[b]), v, i);
				present[builtin[b]]++;
			}
		}
		/* the driver's figures in the run's order: its groups get them in the order the run reported them */
		for (size_t k = 0; k < r->metrics.n; k++) {
			const struct ab_metric *d = &r->metrics.v[k];
			size_t m = metric_index(s, d->name), mc;
			const struct ab_compare_metric *cm;

			if (m == (size_t)-1 || s->metrics[m].builtin >= 0)
				continue;
			cm = &s->metrics[m];
			mc = d->cell ? cell_index(s, d->cell) : c0;
			group_add(group_at(s, mc, l, m), d->value, i);
			if (seen[m] != i + 1) {
				seen[m] = i + 1;
				present[m]++;
			}
			if (!(cm->unit ? d->unit && !strcmp(cm->unit, d->unit) : !d->unit))
				ab_strv_pushf(&s->warnings, "%s: run %04d-%s reports it in '%s', not '%s'", cm->name, r->number,
				    r->label, d->unit ? d->unit : "(no unit)", cm->unit ? cm->unit : "(no unit)");
		}
		s->metrics_dropped += r->metrics.dropped;
		if (e == 0)
			e = fill_derived(c, s, i, l, c0, miss);
	}
	for (size_t g = 0; g < s->ngroups; g++) {
		struct ab_compare_group *x = &s->groups[g];
		double *v = ab_calloc(x->n ? x->n : 1, sizeof(*v));

		if (x->n)
			memcpy(v, x->v, x->n * sizeof(*v));
		x->median = ab_stats_median(v, x->n);
		x->min = x->n ? v[0] : NAN;
		x->max = x->n ? v[x->n - 1] : NAN;
		free(v);
	}
	for (size_t m = 0; m < s->nmetrics; m++) {
		int b = s->metrics[m].builtin;
		size_t brief = 0;

		if (s->metrics[m].derived) {
			if (miss[m].n)
				ab_strv_pushf(&s->warnings, "%s: %zu of the %zu successful runs have no value of the derived figure "
				    "(%s), left out, not shown as 0: %s%s", s->metrics[m].name, miss[m].n, nok,
				    s->metrics[m].derived->expr, miss[m].b.s, miss[m].n > 10 ? " and more" : "");
			ab_buf_free(&miss[m].b);
			continue;
		}

		/* the runs too short to sample are said once, apart (note_short) */
		for (size_t i = 0; i < s->nruns && b >= 0 && b != AB_M_WALL && b != AB_M_CPU && b != AB_M_MAXRSS; i++)
			brief += s->ok[i] && ab_runrec_too_short(&s->runs[i], b == AB_M_STEADY_RSS || b == AB_M_WINDOW_CPU ||
			    b == AB_M_STEADY_PSS || b == AB_M_STEADY_ANON);
		if (present[m] + brief < nok)
			ab_strv_pushf(&s->warnings, "%s: %zu of the %zu successful runs have no value%s", s->metrics[m].name,
			    nok - present[m] - brief, nok, b == AB_M_COOLDOWN_RSS ?
			    " (the sampling ended before the cooldown)" : b >= 0 ? " (not sampled)" : "");
	}
	if (s->metrics_dropped)
		ab_strv_pushf(&s->warnings, "the runs left out %zu report%s of figures past the %d a run keeps (each "
		    "record's metrics_dropped): they are in no comparison", s->metrics_dropped,
		    s->metrics_dropped == 1 ? "" : "s", AB_METRICS_MAX);
	free(present);
	free(seen);
	free(builtin);
	free(miss);
	return e;
}

/* ---- the set's checks ---- */

/* the failed runs: left out, named */
static void
note_failed(struct ab_compare_set *s)
{
	struct ab_buf b = {0};
	size_t shown = 0;

	for (size_t i = 0; i < s->nruns; i++) {
		char *end;

		if (s->ok[i])
			continue;
		if (shown++ == 10)
			continue;
		end = ab_runrec_ending(&s->runs[i]);
		ab_buf_printf(&b, "%s%04d-%s (%s%s)", b.len ? ", " : "", s->runs[i].number, s->runs[i].label,
		    s->runs[i].status == AB_RUN_EXITED ? "exit " : "", end);
		free(end);
	}
	if (s->nfailed > 10)
		ab_buf_printf(&b, " and %zu more", s->nfailed - 10);
	if (s->nfailed)
		ab_strv_pushf(&s->warnings, "%zu failed run%s left out: %s", s->nfailed, s->nfailed == 1 ? "" : "s", b.s);
	ab_buf_free(&b);
}

/*
 * the runs too short to sample, said instead of figures of 0: the runs
 * with fewer than AB_RUN_MIN_SAMPLES samples (none of their sampled
 * figures counts), then those with a measured window that short (its
 * figures do not count)
 */
static void
note_short(struct ab_compare_set *s)
{
	for (int window = 0; window < 2; window++) {
		struct ab_buf b = {0};
		size_t n = 0;
		int ms = 0;

		for (size_t i = 0; i < s->nruns; i++) {
			const struct ab_runrec *r = &s->runs[i];

			if (!s->ok[i] || !ab_runrec_too_short(r, window) || (window && ab_runrec_too_short(r, 0)))
				continue;
			ms = ms ? ms : r->sampling->interval_ms;
			if (n++ < 10)
				ab_buf_printf(&b, "%s%04d-%s", b.len ? ", " : "", r->number, r->label);
		}
		if (n > 10)
			ab_buf_printf(&b, " and %zu more", n - 10);
		if (n && !window)
			ab_strv_pushf(&s->warnings, "%zu run%s too short to sample (fewer than %d samples, one every %d ms): "
			    "%s sampled figures (steady and peak RSS, RSS GiB*s, faults, threads) are left out, not shown as 0: "
			    "%s (runs of several sampling intervals, or a smaller --sample-ms, measure them)", n,
			    n == 1 ? "" : "s", AB_RUN_MIN_SAMPLES, ms, n == 1 ? "its" : "their", b.s);
		if (n && window)
			ab_strv_pushf(&s->warnings, "%zu run%s whose measured window held fewer than %d samples (one every %d "
			    "ms): %s figures of the window (steady RSS, window CPU) are left out, not shown as 0: %s", n,
			    n == 1 ? "" : "s", AB_RUN_MIN_SAMPLES, ms, n == 1 ? "its" : "their", b.s);
		if (!window)
			s->nshort = n;
		ab_buf_free(&b);
	}
}

/* the labels whose every run failed: nothing of them is compared */
static void
note_failed_labels(struct ab_compare_set *s)
{
	for (size_t l = 0; l < s->labels.n; l++) {
		int any = 0;

		for (size_t i = 0; i < s->nruns && !any; i++)
			any = s->ok[i] && !strcmp(s->runs[i].label, s->labels.v[l]);
		if (!any)
			ab_strv_push(&s->failed_labels, s->labels.v[l]);
	}
}

/*
 * the machine's load at the runs' starts: runenv keeps the environment
 * as its JSON object (provenance/runs/runenv.h), loadavg its three load
 * averages and cpu.online_count the CPUs
 */
static void
note_load(struct ab_compare_set *s)
{
	for (size_t i = 0; i < s->nruns; i++) {
		const cJSON *la = ab_json_get(s->runs[i].environment, "loadavg"), *one = cJSON_GetArrayItem(la, 0);
		const cJSON *cpus = ab_json_get(ab_json_get(s->runs[i].environment, "cpu"), "online_count");

		if (!cJSON_IsNumber(one) || !isfinite(one->valuedouble) || one->valuedouble < 0)
			continue;
		if (!s->load_runs++ || one->valuedouble < s->load_min)
			s->load_min = one->valuedouble;
		if (s->load_runs == 1 || one->valuedouble > s->load_max)
			s->load_max = one->valuedouble;
		if (cJSON_IsNumber(cpus) && cpus->valuedouble > s->load_cpus && cpus->valuedouble < 1e6)
			s->load_cpus = (int)cpus->valuedouble;
	}
	if (!s->load_runs || s->load_cpus < 1)
		return;
	/*
	 * a load past the CPUs: runnable work waited for a CPU while the runs
	 * ran, and a run's times took some of it. The load counts the runs'
	 * own work too, so below it nothing is said but the figures
	 */
	s->busy = s->load_max >= s->load_cpus;
	if (s->busy)
		ab_strv_pushf(&s->warnings, "the machine was busy: its load (the 1-minute load average at each run's "
		    "start) was %.2f to %.2f on %d CPU%s, more than its CPUs run at once: work (the runs' own or "
		    "another's) waited for a CPU, which makes the runs' times noisier (an idle machine measures better)",
		    s->load_min, s->load_max, s->load_cpus, s->load_cpus == 1 ? "" : "s");
}

/* the labels of the successful runs whose environment has value v for field key, ", "-separated, each once */
static void
labels_with(struct ab_buf *b, const struct ab_compare_set *s, const char *key, const char *v)
{
	struct ab_strv seen = {0};

	for (size_t i = 0; i < s->nruns; i++)
		if (s->ok[i] && !strcmp(ab_runenv_value(s->runs[i].environment, key), v) &&
		    !ab_strv_has(&seen, s->runs[i].label)) {
			ab_buf_printf(b, "%s%s", seen.n ? ", " : "", s->runs[i].label);
			ab_strv_push(&seen, s->runs[i].label);
		}
	ab_strv_free(&seen);
}

/* the environments of the successful runs: mixed? the first field that differs, in words; caller frees */
static char *
mixed_environments(const struct ab_compare_set *s)
{
	for (size_t k = 0; k < ab_runenv_ncompared; k++) {
		const char *key = ab_runenv_compared[k], *first = NULL;
		struct ab_strv vals = {0};
		struct ab_buf b = {0};
		int differs = 0;

		/* the common case, every run alike, without an allocation */
		for (size_t i = 0; i < s->nruns && !differs; i++)
			if (s->ok[i]) {
				const char *v = ab_runenv_value(s->runs[i].environment, key);

				if (!first)
					first = v;
				differs = strcmp(first, v) != 0;
			}
		if (!differs)
			continue;
		for (size_t i = 0; i < s->nruns; i++)
			if (s->ok[i] && !ab_strv_has(&vals, ab_runenv_value(s->runs[i].environment, key)))
				ab_strv_push(&vals, ab_runenv_value(s->runs[i].environment, key));
		ab_buf_printf(&b, "%s:", key);
		for (size_t i = 0; i < vals.n; i++) {
			ab_buf_printf(&b, "%s %s (", i ? ";" : "", vals.v[i]);
			labels_with(&b, s, key, vals.v[i]);
			ab_buf_puts(&b, ")");
		}
		ab_strv_free(&vals);
		return ab_buf_detach(&b);
	}
	return NULL;
}

/*
 * What a label is, whatever its name: the artifact's digest, what ran
 * (the program, run --program's program, the files its arguments named:
 * each by digest and place in argv) and the runtime environment
 * (variables set, ALLOCBUILD_LABEL, _BIN and _ARCHIVE aside, and
 * removed), when all its runs agree; caller frees; NULL when they do not.
 * Two labels of one artifact whose runs ran another driver are no A/A pair.
 */
static char *
identity(const struct ab_compare_set *s, const char *label)
{
	char *id = NULL;

	for (size_t i = 0; i < s->nruns; i++) {
		const struct ab_runrec *r = &s->runs[i];
		struct ab_buf b = {0};
		char *mine, **set;

		if (strcmp(r->label, label))
			continue;
		ab_buf_printf(&b, "%s\n", r->subject_sha256);
		if (r->program.name)
			ab_buf_printf(&b, "program %s\n", r->program.sha256);
		if (r->given)
			ab_buf_printf(&b, "subject program %s\n", r->given->sha256);
		for (size_t k = 0; k < r->nfiles; k++)
			ab_buf_printf(&b, "file %d %s\n", r->files[k].arg, r->files[k].sha256);
		/* in name order: the label's env and --set come in different orders */
		set = ab_calloc(r->overrides.n + 1, sizeof(*set));
		if (r->overrides.n)
			memcpy(set, r->overrides.v, r->overrides.n * sizeof(*set));
		qsort(set, r->overrides.n, sizeof(*set), ab_cmp_str);
		/*
		 * what names the label (its name, the paths of its artifacts, whose
		 * bytes are the digest above) is not what it runs: two variants built
		 * apart into the same bytes are the same thing
		 */
		for (size_t k = 0; k < r->overrides.n; k++)
			if (strncmp(set[k], "ALLOCBUILD_LABEL=", 17) && strncmp(set[k], "ALLOCBUILD_BIN=", 15) &&
			    strncmp(set[k], "ALLOCBUILD_ARCHIVE=", 19))
				ab_buf_printf(&b, "set %s\n", set[k]);
		free(set);
		for (size_t k = 0; k < r->removed.n; k++)
			ab_buf_printf(&b, "unset %s\n", r->removed.v[k]);
		mine = ab_buf_detach(&b);
		if (id && strcmp(id, mine)) {
			free(id);
			free(mine);
			return NULL;
		}
		free(id);
		id = mine;
	}
	return id;
}

/* the artifact digest every run of label ran, or NULL when they differ */
static const char *
bytes_of(const struct ab_compare_set *s, const char *label)
{
	const char *hex = NULL;

	for (size_t i = 0; i < s->nruns; i++) {
		if (strcmp(s->runs[i].label, label))
			continue;
		if (hex && strcmp(hex, s->runs[i].subject_sha256))
			return NULL;
		hex = s->runs[i].subject_sha256;
	}
	return hex;
}

/* the A/A pairs: labels that are the same thing; and the labels that ran the same bytes */
static void
find_controls(struct ab_compare_set *s)
{
	char **ids = ab_calloc(s->labels.n, sizeof(*ids));

	s->same_bytes = ab_calloc(s->labels.n, sizeof(*s->same_bytes));
	for (size_t l = 0; l < s->labels.n; l++) {
		const char *mine = bytes_of(s, s->labels.v[l]);

		s->same_bytes[l] = AB_COMPARE_NONE;
		for (size_t k = 0; k < l && mine && s->same_bytes[l] == AB_COMPARE_NONE; k++)
			if (bytes_of(s, s->labels.v[k]) && !strcmp(bytes_of(s, s->labels.v[k]), mine))
				s->same_bytes[l] = k;
	}
	for (size_t l = 0; l < s->labels.n; l++)
		ids[l] = identity(s, s->labels.v[l]);
	for (size_t a = 0; a < s->labels.n; a++)
		for (size_t b = a + 1; b < s->labels.n; b++)
			if (ids[a] && ids[b] && !strcmp(ids[a], ids[b])) {
				struct ab_compare_control *x;

				s->controls = ab_realloc(s->controls, (s->ncontrols + 1) * sizeof(*s->controls));
				x = &s->controls[s->ncontrols++];
				x->a = a, x->b = b;
				snprintf(x->sha256, sizeof(x->sha256), "%.*s", AB_HEX_LEN, ids[a]);
			}
	for (size_t l = 0; l < s->labels.n; l++)
		free(ids[l]);
	free(ids);
}

/* ---- the comparisons ---- */

struct keyed {
	uint64_t key;
	double v;
};

static int
cmp_keyed(const void *a, const void *b)
{
	uint64_t x = ((const struct keyed *)a)->key, y = ((const struct keyed *)b)->key;

	return x < y ? -1 : x > y;
}

/* the values of g keyed by (batch, repetition), sorted */
static struct keyed *
keyed_values(const struct ab_compare_set *s, const struct ab_compare_group *g)
{
	struct keyed *k = ab_calloc(g->n ? g->n : 1, sizeof(*k));

	for (size_t i = 0; i < g->n; i++) {
		const struct ab_runrec *r = &s->runs[g->run[i]];

		k[i].key = (uint64_t)(unsigned)r->batch << 32 | (unsigned)r->repetition;
		k[i].v = g->v[i];
	}
	qsort(k, g->n, sizeof(*k), cmp_keyed);
	return k;
}

struct job {
	const struct ab_comparison *c;
	struct ab_compare_set *s;
};

/* one row: its values (paired: the repetitions both sides have), interval, test, verdict */
static int
compare_row(void *arg, size_t i, int worker)
{
	struct job *j = arg;
	struct ab_compare_set *s = j->s;
	struct ab_compare_row *row = &s->rows[i];
	const struct ab_compare_metric *m = &s->metrics[row->metric];
	struct ab_verdict_rule rule = {AB_COMPARE_ALPHA, j->c->o.threshold, m->higher};
	const double *a = row->g->v, *b = row->base->v;
	double *pa = NULL, *pb = NULL;
	char *seed_name;

	(void)worker;
	row->na = row->g->n;
	row->nb = row->base->n;
	if (row->paired) {
		struct keyed *ka = keyed_values(s, row->g), *kb = keyed_values(s, row->base);
		size_t x = 0, y = 0, n = 0;

		pa = ab_calloc(row->na + 1, sizeof(*pa));
		pb = ab_calloc(row->nb + 1, sizeof(*pb));
		while (x < row->na && y < row->nb) {
			if (ka[x].key < kb[y].key) {
				x++;
			} else if (ka[x].key > kb[y].key) {
				y++;
			} else {
				pa[n] = ka[x++].v;
				pb[n++] = kb[y++].v;
			}
		}
		free(ka);
		free(kb);
		a = pa, b = pb;
		row->na = row->nb = n;
	}
	seed_name = ab_sprintf("%s\n%s\n%s\n%s", s->cells.v[row->cell], m->name, s->labels.v[row->label],
	    s->labels.v[row->against]);
	ab_stats_ratio_ci(&row->ci, a, row->na, b, row->nb, row->paired, ab_rng_derive(j->c->o.seed, seed_name),
	    j->c->o.resamples, AB_COMPARE_LEVEL);
	ab_stats_mannwhitney(&row->u, a, row->na, b, row->nb);
	row->verdict = ab_stats_verdict(&row->ci, &row->u, row->na, row->nb, &rule);
	free(seed_name);
	free(pa);
	free(pb);
	return 0;
}

static void
add_row(struct ab_compare_set *s, size_t cell, size_t metric, size_t label, size_t against, int control)
{
	const struct ab_compare_group *g = ab_compare_group(s, cell, label, metric),
	    *base = ab_compare_group(s, cell, against, metric);
	struct ab_compare_row *r;

	if (!g || !base)
		return;
	if (!(s->nrows & (s->nrows - 1)))
		s->rows = ab_realloc(s->rows, (s->nrows ? 2 * s->nrows : 1) * sizeof(*s->rows));
	r = &s->rows[s->nrows++];
	memset(r, 0, sizeof(*r));
	r->cell = cell, r->metric = metric, r->label = label, r->against = against;
	r->g = g, r->base = base;
	r->paired = s->paired;
	r->control = control;
}

/* is the pair (a, b) an A/A control of s? */
static int
is_control(const struct ab_compare_set *s, size_t a, size_t b)
{
	for (size_t i = 0; i < s->ncontrols; i++)
		if ((s->controls[i].a == a && s->controls[i].b == b) || (s->controls[i].a == b && s->controls[i].b == a))
			return 1;
	return 0;
}

static void
make_rows(struct ab_compare_set *s)
{
	for (size_t c = 0; c < s->cells.n; c++)
		for (size_t m = 0; m < s->nmetrics; m++)
			for (size_t l = 0; l < s->labels.n; l++)
				if (l != s->baseline)
					add_row(s, c, m, l, s->baseline, is_control(s, l, s->baseline));
	/* the controls that do not involve the baseline: their second label against their first */
	for (size_t i = 0; i < s->ncontrols; i++) {
		const struct ab_compare_control *x = &s->controls[i];

		if (x->a != s->baseline && x->b != s->baseline)
			for (size_t c = 0; c < s->cells.n; c++)
				for (size_t m = 0; m < s->nmetrics; m++)
					add_row(s, c, m, x->b, x->a, 1);
	}
}

/* too few runs for a verdict: which labels, in which cells */
static void
note_too_few(struct ab_compare_set *s)
{
	size_t need = ab_stats_min_runs(AB_COMPARE_ALPHA);
	struct ab_buf b = {0};

	for (size_t c = 0; c < s->cells.n; c++)
		for (size_t l = 0; l < s->labels.n; l++) {
			size_t n = 0;

			for (size_t m = 0; m < s->nmetrics; m++)
				if (ab_compare_group(s, c, l, m) && ab_compare_group(s, c, l, m)->n > n)
					n = ab_compare_group(s, c, l, m)->n;
			if (n && n < need) {
				ab_buf_printf(&b, "%s%s has %zu", b.len ? ", " : "", s->labels.v[l], n);
				if (s->cells.v[c][0])
					ab_buf_printf(&b, " in cell %s", s->cells.v[c]);
			}
		}
	if (b.len && s->labels.n > 1)
		ab_strv_pushf(&s->warnings, "too few runs for a verdict: the Mann-Whitney U test needs at least %zu "
		    "successful runs of each label to reach p < %g (its smallest p with 3 and 3 is 0.1); %s", need,
		    AB_COMPARE_ALPHA, b.s);
	ab_buf_free(&b);
}

/*
 * the rows without a ratio (a baseline value not positive, a ratio past
 * the largest double), one warning a cause: their verdict is the U
 * test's alone, and the table shows the difference of the medians
 */
static void
note_no_ratio(struct ab_compare_set *s)
{
	static const enum ab_ratio_undefined why[] = {AB_RATIO_NOT_POSITIVE, AB_RATIO_OVERFLOW};

	for (size_t w = 0; w < AB_NELEM(why); w++) {
		struct ab_buf b = {0};
		size_t n = 0;

		for (size_t i = 0; i < s->nrows; i++) {
			const struct ab_compare_row *r = &s->rows[i];

			if (r->ci.undefined != why[w])
				continue;
			if (n++ < 10)
				ab_buf_printf(&b, "%s%s%s%s (%s against %s)", b.len ? ", " : "", s->metrics[r->metric].name,
				    *s->cells.v[r->cell] ? " in cell " : "", s->cells.v[r->cell], s->labels.v[r->label],
				    s->labels.v[r->against]);
		}
		if (n > 10)
			ab_buf_printf(&b, " and %zu more", n - 10);
		if (n)
			ab_strv_pushf(&s->warnings, "no ratio of medians for %s: %s; the row shows the difference of the "
			    "medians instead, and the U test alone decides whether the runs differ", b.s,
			    ab_stats_ratio_why(why[w]));
		ab_buf_free(&b);
	}
}

/*
 * an A/A control that shows a difference: one warning naming every metric
 * (and cell) in which it does, so that a real effect in one metric is not
 * hidden behind timing noise in another
 */
static void
warn_control(struct ab_compare_set *s, const struct ab_compare_control *c)
{
	struct ab_buf b = {0};
	const struct ab_compare_row *first = NULL;

	for (size_t i = 0; i < s->nrows; i++) {
		const struct ab_compare_row *r = &s->rows[i];

		if (!r->control || !((r->label == c->b && r->against == c->a) || (r->label == c->a && r->against == c->b)))
			continue;
		s->control_judged |= r->verdict != AB_VERDICT_TOO_FEW;
		if (!ab_stats_verdict_differs(r->verdict))
			continue;
		first = first ? first : r;
		ab_buf_printf(&b, "%s%s%s%s (", b.len ? ", " : "", s->metrics[r->metric].name,
		    *s->cells.v[r->cell] ? " in cell " : "", s->cells.v[r->cell]);
		if (r->ci.undefined == AB_RATIO_DEFINED) {
			ab_buf_printf(&b, "ratio %.3f", r->ci.ratio);
		} else {
			char d[40];

			/* 0 against 5 every time: no ratio, and still no clean control */
			ab_compare_format_difference(d, sizeof(d), r->ci.diff);
			ab_buf_printf(&b, "no ratio, difference %s", d);
		}
		ab_buf_printf(&b, ", p %.3g)", r->u.p);
	}
	if (first) {
		ab_strv_pushf(&s->warnings, "the A/A control %s against %s (the same bytes and runtime environment) "
		    "shows a difference in %s: every verdict is flagged unreliable", s->labels.v[first->label],
		    s->labels.v[first->against], b.s);
		s->control_differs = 1;
	}
	ab_buf_free(&b);
}
/* does every repetition of every invocation hold a run of each label (what pairing by repetition needs)? */
static int
complete_repetitions(const struct ab_compare_set *s)
{
	struct keyed *k = ab_calloc(s->nruns + 1, sizeof(*k));
	int ok = 1;

	for (size_t i = 0; i < s->nruns; i++) {
		k[i].key = (uint64_t)(unsigned)s->runs[i].batch << 32 | (unsigned)s->runs[i].repetition;
		k[i].v = (double)index_of(&s->labels, s->runs[i].label);
	}
	qsort(k, s->nruns, sizeof(*k), cmp_keyed);
	for (size_t i = 0, j; i < s->nruns && ok; i = j) {
		for (j = i; j < s->nruns && k[j].key == k[i].key; j++)
			;
		/* a label runs once per repetition of an invocation: as many runs as labels means all */
		ok = j - i == s->labels.n;
	}
	free(k);
	return ok;
}

/*
 * analyse a set; baseline the label asked for (--baseline), or for a
 * host's set of a split name the name's first label, so that every host
 * compares against the same; NULL: the set's first
 */
/*
 * The baseline's layout variants (layoutband.h), the layout band of each
 * cell and metric (the spread of their medians and the baseline's,
 * stats.h), and the differences of other labels inside it marked
 */
static void
layout_bands(struct ab_comparison *c, struct ab_compare_set *s)
{
	char **digests = ab_calloc(s->labels.n + 1, sizeof(*digests));

	for (size_t l = 0; l < s->labels.n; l++)
		for (size_t i = s->nruns; i-- > 0;)
			if (!strcmp(s->runs[i].label, s->labels.v[l]))
				digests[l] = s->runs[i].subject_sha256;
	s->layouts = ab_calloc(s->labels.n + 1, sizeof(*s->layouts));
	s->nlayouts = ab_layoutband_family(&c->layouts, s->labels.v, digests, s->labels.n, s->baseline, s->layouts);
	free(digests);
	if (!s->nlayouts)
		return;
	s->bands = ab_calloc(s->cells.n * s->nmetrics + 1, sizeof(*s->bands));
	for (size_t cell = 0; cell < s->cells.n; cell++)
		for (size_t m = 0; m < s->nmetrics; m++) {
			const double **v = ab_calloc(s->nlayouts + 2, sizeof(*v));
			size_t *n = ab_calloc(s->nlayouts + 2, sizeof(*n));
			struct ab_compare_band *band = &s->bands[s->nbands];
			char *seed_name = ab_sprintf("layout\n%s\n%s", s->cells.v[cell], s->metrics[m].name);

			for (size_t i = 0; i <= s->nlayouts; i++) {
				const struct ab_compare_group *g = ab_compare_group(s, cell, i ? s->layouts[i - 1] : s->baseline, m);

				v[i] = g ? g->v : NULL;
				n[i] = g ? g->n : 0;
			}
			ab_stats_layout_band(&band->b, v, n, s->nlayouts + 1, ab_rng_derive(c->o.seed, seed_name),
			    c->o.resamples, 0.95);
			if (!isnan(band->b.band)) {
				band->cell = cell;
				band->metric = m;
				s->nbands++;
			}
			free(seed_name);
			free(v);
			free(n);
		}
	for (size_t i = 0; i < s->nrows; i++) {
		struct ab_compare_row *r = &s->rows[i];
		const struct ab_compare_band *band = ab_compare_band(s, r->cell, r->metric);

		if (r->against != s->baseline || r->control)
			continue;
		for (size_t k = 0; k < s->nlayouts; k++)
			r->layout |= r->label == s->layouts[k];
		if (!r->layout && band && ab_stats_verdict_differs(r->verdict) && ab_stats_within_band(r->ci.ratio, band->b.band)) {
			r->within_layout = 1;
			s->within_layout++;
		}
	}
}

static int
analyse(struct ab_comparison *c, struct ab_compare_set *s, const char *baseline)
{
	const struct ab_compare_opts *o = &c->o;
	int rotated = 1, batched = 1, e;
	char *mixed;
	struct job j = {c, s};

	s->ok = ab_calloc(s->nruns ? s->nruns : 1, sizeof(*s->ok));
	for (size_t i = 0; i < s->nruns; i++) {
		s->ok[i] = ab_runrec_ok(&s->runs[i]);
		s->nfailed += !s->ok[i];
		if (!ab_strv_has(&s->labels, s->runs[i].label))
			ab_strv_push(&s->labels, s->runs[i].label);
		rotated &= s->runs[i].rotated;
		batched &= s->runs[i].batch > 0;
	}
	if (baseline) {
		if ((s->baseline = index_of(&s->labels, baseline)) == (size_t)-1) {
			struct ab_buf b = {0};

			for (size_t l = 0; l < s->labels.n; l++)
				ab_buf_printf(&b, "%s%s", l ? ", " : "", s->labels.v[l]);
			if (s->host)
				ab_error("compare: runs/%s has no runs of the baseline '%s' on host '%s' (its labels there: %s)",
				    s->name, baseline, s->host, b.s);
			else
				ab_error("compare: runs/%s has no runs of the baseline '%s' (its labels: %s)", s->name, baseline,
				    b.s);
			ab_buf_free(&b);
			return AB_EFAIL;
		}
	}
	if (choose_metrics(s, o) < 0)
		return AB_EFAIL;
	collect_cells(s);
	note_failed(s);
	note_failed_labels(s);
	note_short(s);
	note_load(s);
	if ((e = fill_groups(c, s)) < 0)
		return e;
	s->paired = 0;
	if (s->labels.n < 2)
		s->unpaired_why = ab_strdup("one label");
	else if (o->unpaired)
		s->unpaired_why = ab_strdup("--unpaired");
	else if (s->hosts.n > 1 && !s->host)
		s->unpaired_why = ab_sprintf("runs of %zu hosts pooled (--pool-hosts)", s->hosts.n);
	else if (!rotated || !batched)
		s->unpaired_why = ab_strdup("the runs were not all rotated (run --rotate)");
	else if (!complete_repetitions(s))
		s->unpaired_why = ab_strdup("the rotated invocations did not each run every label");
	else
		s->paired = 1;
	if ((mixed = mixed_environments(s))) {
		s->mixed_env = 1;
		if (s->paired && o->refuse_mixed_paired) {
			ab_error("compare: runs/%s: rotated runs, to be compared in pairs, ran under different run environments "
			    "(%s): refusing a paired comparison ('--unpaired' compares them unpaired, flagged unreliable)",
			    s->name, mixed);
			free(mixed);
			return AB_ECHECK;
		}
		if (s->paired) {
			s->paired = 0;
			s->unpaired_why = ab_strdup("the runs ran under different run environments");
		}
		ab_strv_pushf(&s->warnings, "the runs ran under different run environments (%s): every verdict is "
		    "flagged unreliable", mixed);
		free(mixed);
	}
	find_controls(s);
	make_rows(s);
	/* each group finds its row against the baseline at once (the rows no longer move) */
	for (size_t i = 0; i < s->nrows; i++)
		if (s->rows[i].against == s->baseline)
			s->groups[s->rows[i].g - s->groups].row = &s->rows[i];
	ab_pool_run(s->nrows, 0, compare_row, &j);
	layout_bands(c, s);
	for (size_t k = 0; k < s->ncontrols; k++)
		warn_control(s, &s->controls[k]);
	note_no_ratio(s);
	note_too_few(s);
	return 0;
}

int
ab_compare_load(struct ab_comparison **out, const struct ab_compare_opts *o)
{
	struct ab_comparison *c = ab_calloc(1, sizeof(*c));
	int e;

	*out = NULL;
	c->o = *o;
	if ((e = ab_compare_load_sets(c)) < 0 || (e = ab_compare_refuse_mixed_stats(c)) < 0 || (e = ab_compare_split_hosts(c)) < 0 ||
	    (e = ab_layoutband_read(&c->layouts, o->outdir)) < 0)
		goto fail;
	for (size_t first = 0, end; first < c->nsets; first = end) {
		const char *baseline = o->baseline;

		/* a name's sets: one, or one a host */
		for (end = first + 1; end < c->nsets && !strcmp(c->sets[end].name, c->sets[first].name); end++)
			;
		/* every host against the same baseline: the label of the name's first run (of OUTDIR's, on a tie) */
		if (!baseline && end - first > 1) {
			const struct ab_runrec *best = NULL;
			size_t best_src = 0;

			for (size_t k = first; k < end; k++)
				for (size_t i = 0; i < c->sets[k].nruns; i++)
					if (!best || c->sets[k].runs[i].number < best->number ||
					    (c->sets[k].runs[i].number == best->number && c->sets[k].src[i] < best_src)) {
						best = &c->sets[k].runs[i];
						best_src = c->sets[k].src[i];
					}
			baseline = best ? best->label : NULL;
		}
		for (size_t k = first; k < end; k++)
			if ((e = analyse(c, &c->sets[k], baseline)) < 0)
				goto fail;
		if (c->sets[first].hosts.n > 1)
			ab_compare_note_hosts(&c->sets[first], end - first);
	}
	*out = c;
	return 0;
fail:
	ab_compare_free(c);
	return e;
}

int
ab_compare_hosts_bytes_differ(const struct ab_comparison *c)
{
	for (size_t k = 0; k < c->nsets; k++)
		if (c->sets[k].hosts_bytes_differ)
			return 1;
	return 0;
}

/* the run of a label whose steady RSS (else peak RSS) is the median of its successful sampled runs, or -1 */
static long
median_sampled_run(const struct ab_compare_set *s, size_t label)
{
	size_t n = 0, *idx = ab_calloc(s->nruns + 1, sizeof(*idx));
	double *v = ab_calloc(s->nruns + 1, sizeof(*v));
	long at = -1;

	for (size_t i = 0; i < s->nruns; i++) {
		const struct ab_runrec *r = &s->runs[i];
		double x;

		if (!s->ok[i] || strcmp(r->label, s->labels.v[label]) || !r->sampling || !r->sampling->series.path ||
		    ab_runrec_too_short(r, 0))
			continue;
		x = ab_compare_builtin_value(r, AB_M_STEADY_RSS);
		if (isnan(x))
			x = ab_compare_builtin_value(r, AB_M_PEAK_RSS);
		idx[n] = i;
		v[n++] = isnan(x) ? 0 : x;
	}
	/* the lower median: a run that was, not a mean of two */
	for (size_t k = 0; k < n && at < 0; k++) {
		size_t below = 0, same_before = 0;

		for (size_t j = 0; j < n; j++) {
			below += v[j] < v[k];
			same_before += v[j] == v[k] && j < k;
		}
		if (below + same_before == (n - 1) / 2)
			at = (long)idx[k];
	}
	free(idx);
	free(v);
	return at;
}

int
ab_compare_series(struct ab_series *out, long *run, const struct ab_comparison *c, const struct ab_compare_set *s,
    size_t label)
{
	memset(out, 0, sizeof(*out));
	if ((*run = median_sampled_run(s, label)) < 0)
		return 0;
	return read_series(out, ab_compare_source_dir(c, s->src[*run]), &s->runs[*run].sampling->series);
}

const char *
ab_compare_unreliable_why(const struct ab_compare_set *s)
{
	if (s->control_differs && s->mixed_env)
		return "the A/A control shows a difference, and the runs ran under different run environments";
	if (s->control_differs)
		return "the A/A control shows a difference";
	if (s->mixed_env)
		return "the runs ran under different run environments";
	return NULL;
}

int
ab_compare_failed(const struct ab_comparison *c)
{
	for (size_t k = 0; k < c->nsets; k++)
		if (c->sets[k].failed_labels.n)
			return 1;
	return 0;
}

int
ab_compare_unreliable(const struct ab_comparison *c)
{
	for (size_t k = 0; k < c->nsets; k++)
		if (ab_compare_unreliable_why(&c->sets[k]))
			return 1;
	return 0;
}

void
ab_compare_free(struct ab_comparison *c)
{
	if (!c)
		return;
	for (size_t k = 0; k < c->nsets; k++) {
		struct ab_compare_set *s = &c->sets[k];

		free(s->name);
		free(s->host);
		ab_strv_free(&s->hosts);
		ab_strv_free(&s->host_notes);
		for (size_t i = 0; i < s->nruns; i++)
			ab_runrec_release(&s->runs[i]);
		free(s->runs);
		free(s->src);
		free(s->ok);
		ab_strv_free(&s->labels);
		ab_strv_free(&s->cells);
		for (size_t m = 0; m < s->nmetrics; m++) {
			free(s->metrics[m].name);
			free(s->metrics[m].unit);
		}
		free(s->metrics);
		ab_strmap_free(&s->metric_at);
		ab_strmap_free(&s->cell_at);
		for (size_t g = 0; g < s->ngroups; g++) {
			free(s->groups[g].v);
			free(s->groups[g].run);
		}
		free(s->groups);
		free(s->rows);
		free(s->unpaired_why);
		free(s->controls);
		free(s->layouts);
		free(s->bands);
		free(s->same_bytes);
		ab_strv_free(&s->warnings);
		ab_strv_free(&s->failed_labels);
	}
	ab_layoutband_release(&c->layouts);
	free(c->sets);
	free(c);
}

/* numbers as every format of a comparison shows them (compare.h) */

void
ab_compare_format_value(char *buf, size_t len, double v)
{
	double mag = fabs(v);
	int dec = 0;

	if (isnan(v)) {
		snprintf(buf, len, "-");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, "%s", v < 0 ? "-inf" : "inf");
		return;
	}
	/*
	 * past AB_COMPARE_PLAIN_MAX a plain number would print every digit of
	 * the double (309 for 1e308: more than any caller's buffer): four
	 * significant digits with an exponent instead
	 */
	if (mag >= AB_COMPARE_PLAIN_MAX) {
		snprintf(buf, len, "%.3e", v);
		return;
	}
	/* log10 of a finite non-zero magnitude below 1e15 lies within [-324, 15): the int cannot overflow */
	if (mag > 0)
		dec = 3 - (int)floor(log10(mag));
	dec = dec < 0 ? 0 : dec > 6 ? 6 : dec;
	snprintf(buf, len, "%.*f", dec, v);
}

void
ab_compare_format_difference(char *buf, size_t len, double d)
{
	char v[32];

	ab_compare_format_value(v, sizeof(v), d);
	snprintf(buf, len, "%s%s", d > 0 ? "+" : "", v);
}
