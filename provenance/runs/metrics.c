#include "metrics.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct ab_metric_def ab_metric_builtins[AB_M_NBUILTIN] = {
	[AB_M_WALL] = {"wall_s", "s", "wall time of the run"},
	[AB_M_CPU] = {"cpu_s", "s", "user + system CPU of the command's tree (wait4)"},
	[AB_M_MAXRSS] = {"maxrss_mib", "MiB", "peak RSS of the largest single process (wait4)"},
	[AB_M_STEADY_RSS] = {"steady_rss_mib", "MiB", "median sampled RSS in the measured window"},
	[AB_M_PEAK_RSS] = {"peak_rss_mib", "MiB", "largest sampled RSS"},
	[AB_M_COOLDOWN_RSS] = {"cooldown_rss_mib", "MiB", "sampled RSS at the end of the cooldown"},
	[AB_M_RSS_GIB_S] = {"rss_gib_s", "GiB*s", "sampled RSS integrated over time"},
	[AB_M_WINDOW_CPU] = {"window_cpu_s", "s", "sampled CPU of the tree within the measured window"},
	[AB_M_MINFLT] = {"minor_faults", "faults", "minor page faults of the tree"},
	[AB_M_MAJFLT] = {"major_faults", "faults", "major page faults of the tree"},
	[AB_M_THREADS] = {"max_threads", "threads", "most threads of the tree at once"},
	[AB_M_STEADY_PSS] = {"steady_pss_mib", "MiB", "median sampled PSS in the window (--sample-pss)"},
	[AB_M_PEAK_PSS] = {"peak_pss_mib", "MiB", "largest sampled PSS (--sample-pss)"},
	[AB_M_STEADY_ANON] = {"steady_anon_mib", "MiB", "median sampled anonymous memory in the window (--sample-pss)"},
	[AB_M_PEAK_ANON] = {"peak_anon_mib", "MiB", "largest sampled anonymous memory (--sample-pss)"},
};

int
ab_metric_builtin(const char *name)
{
	for (int i = 0; i < AB_M_NBUILTIN; i++)
		if (!strcmp(ab_metric_builtins[i].name, name))
			return i;
	return -1;
}

int
ab_metric_value_valid(double v)
{
	return isfinite(v) && fabs(v) <= AB_METRIC_VALUE_MAX;
}

int
ab_metric_name_valid(const char *s, size_t n)
{
	if (n == 0 || n > 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || s[i] == '.' || s[i] == '-' || (s[i] >= '0' && s[i] <= '9') ||
		    (s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z')))
			return 0;
	return 1;
}

static int
printable_token(const char *s, size_t n, size_t max, int allow_eq)
{
	if (n == 0 || n > max)
		return 0;
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] >= 0x7f || (!allow_eq && s[i] == '='))
			return 0;
	return 1;
}

int
ab_metric_cell_valid(const char *s, size_t n)
{
	return printable_token(s, n, 64, 1);
}

int
ab_metric_unit_valid(const char *s, size_t n)
{
	return printable_token(s, n, 32, 0);
}

/*
 * a figure's key: the name's length, the name, then the cell ("" for the
 * run's, "=CELL" for one of its own), so that no two pairs share a key
 */
static char *
key_of(const char *name, const char *cell)
{
	return ab_sprintf("%zu:%s%s%s", strlen(name), name, cell ? "=" : "", cell ? cell : "");
}

const struct ab_metric *
ab_metrics_get(const struct ab_metrics *m, const char *name, const char *cell)
{
	char *key = key_of(name, cell);
	size_t i;
	int found = ab_strmap_get(&m->index, key, &i);

	free(key);
	return found ? &m->v[i] : NULL;
}

int
ab_metrics_set(struct ab_metrics *m, const char *name, double value, const char *unit, const char *cell,
    int higher, int reported)
{
	char *key = key_of(name, cell);
	struct ab_metric *x;
	size_t i;

	if (ab_strmap_get(&m->index, key, &i)) {
		x = &m->v[i];
		free(key);
	} else if (m->n >= AB_METRICS_MAX) {
		m->dropped += reported > 0 ? (size_t)reported : 1;
		free(key);
		return 0;
	} else {
		/* v grows by doubling; the index's keys are the figures' own strings, which do not move */
		if (!(m->n & (m->n - 1)))
			m->v = ab_realloc(m->v, (m->n ? 2 * m->n : 1) * sizeof(*m->v));
		x = &m->v[m->n];
		memset(x, 0, sizeof(*x));
		x->name = ab_strdup(name);
		x->cell = ab_strdup_or_null(cell);
		x->key = key;
		ab_strmap_put(&m->index, x->key, m->n++);
	}
	free(x->unit);
	x->value = value;
	x->unit = ab_strdup_or_null(unit);
	x->higher = higher;
	x->reported += reported;
	return 1;
}

/* the next space-separated token of [*p, end): its start and length, 0 when none */
static size_t
token(const char **start, const char **p, const char *end)
{
	while (*p < end && (**p == ' ' || **p == '\t'))
		(*p)++;
	*start = *p;
	while (*p < end && **p != ' ' && **p != '\t')
		(*p)++;
	return (size_t)(*p - *start);
}

int
ab_metrics_line(struct ab_metrics *m, const char *line, size_t n, const char **why)
{
	const char *p = line, *end = line + n, *t, *eq;
	size_t k = sizeof(AB_METRIC_PREFIX) - 1, len;
	char *name = NULL, *unit = NULL, *cell = NULL, *num, *numend;
	int higher = -1, rc = -1;
	double value;

	*why = NULL;
	if (n < k || memcmp(line, AB_METRIC_PREFIX, k) || (n > k && line[k] != ' ' && line[k] != '\t'))
		return 0;
	p += k;
	len = token(&t, &p, end);
	if (!len || !(eq = memchr(t, '=', len)) || !ab_metric_name_valid(t, (size_t)(eq - t))) {
		*why = "wants NAME=VALUE first, NAME 1 to 64 of [A-Za-z0-9_.-]";
		return -1;
	}
	name = ab_strndup(t, (size_t)(eq - t));
	num = ab_strndup(eq + 1, len - (size_t)(eq + 1 - t));
	errno = 0;
	value = strtod(num, &numend);
	if (!*num || *numend || errno == ERANGE || !ab_metric_value_valid(value) || strpbrk(num, "xXnNiI")) {
		*why = "its VALUE is not a finite decimal number of at most 1e300";
		free(num);
		goto done;
	}
	free(num);
	if (ab_metric_builtin(name) >= 0) {
		*why = "its NAME is one of allocbuild's own figures";
		goto done;
	}
	while ((len = token(&t, &p, end))) {
		if (len > 5 && !memcmp(t, "cell=", 5) && !cell && ab_metric_cell_valid(t + 5, len - 5)) {
			cell = ab_strndup(t + 5, len - 5);
		} else if (len == 13 && !memcmp(t, "better=higher", 13) && higher < 0) {
			higher = 1;
		} else if (len == 12 && !memcmp(t, "better=lower", 12) && higher < 0) {
			higher = 0;
		} else if (!unit && !cell && higher < 0 && ab_metric_unit_valid(t, len)) {
			unit = ab_strndup(t, len);
		} else {
			*why = "after NAME=VALUE: [UNIT] [cell=CELL] [better=higher|lower], in that order";
			goto done;
		}
	}
	if (higher < 0)
		higher = unit && strlen(unit) > 2 && !strcmp(unit + strlen(unit) - 2, "/s");
	ab_metrics_set(m, name, value, unit, cell, higher, 1);
	rc = 1;
done:
	free(name);
	free(unit);
	free(cell);
	return rc;
}

int
ab_metrics_scan(struct ab_metrics *m, const char *log_path, const char *label)
{
	FILE *f = fopen(log_path, "re");
	char *line = NULL;
	size_t cap = 0, no = 0, dropped = m->dropped;
	ssize_t n;

	if (!f) {
		ab_error_errno("cannot read the log '%s'", log_path);
		return AB_EFAIL;
	}
	while ((n = getline(&line, &cap, f)) > 0) {
		const char *why;

		no++;
		if (line[n - 1] == '\n')
			line[--n] = '\0';
		if (ab_metrics_line(m, line, (size_t)n, &why) < 0) {
			char *shown = ab_shown(line);

			ab_warn("run: %s: log line %zu: '%.200s': not a metric: %s", label, no, shown, why);
			free(shown);
		}
	}
	free(line);
	if (ferror(f)) {
		ab_error_errno("cannot read the log '%s'", log_path);
		fclose(f);
		return AB_EFAIL;
	}
	fclose(f);
	if (m->dropped > dropped)
		ab_warn("run: %s: the command reported more than %d figures (a name in a cell): %zu report%s of further "
		    "ones left out, counted in the record's metrics_dropped (docs/runs.md, \"Figures of the benchmark\")",
		    label, AB_METRICS_MAX, m->dropped - dropped, m->dropped - dropped == 1 ? "" : "s");
	return 0;
}

void
ab_metrics_release(struct ab_metrics *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].name);
		free(m->v[i].unit);
		free(m->v[i].cell);
		free(m->v[i].key);
	}
	free(m->v);
	ab_strmap_free(&m->index);
	memset(m, 0, sizeof(*m));
}
