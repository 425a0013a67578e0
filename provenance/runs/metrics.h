/*
 * metrics: the named figures of a run (docs/runs.md, "Figures"), the
 * benchmark's own and allocbuild's.
 *
 * A driver reports its figures as lines of its output (stdout or stderr),
 * each alone on its line:
 *
 *   ALLOCBUILD_METRIC NAME=VALUE [UNIT] [cell=CELL] [better=higher|lower]
 *
 * NAME is 1 to 64 of [A-Za-z0-9_.-], VALUE a finite decimal number of
 * magnitude at most AB_METRIC_VALUE_MAX, UNIT
 * (up to 32 bytes, no '=') what it counts ("records/s", "ms"), CELL the
 * cell the figure belongs to (the campaigns' group/encoding rows; default
 * the run's --cell) and `better` which way is better: by default higher
 * for a unit ending in "/s" (a rate), lower otherwise. A name reported
 * again in the same cell replaces the earlier value (the record counts the
 * reports). A line that starts with ALLOCBUILD_METRIC but does not parse,
 * or reuses the name of one of allocbuild's figures, is ignored with a
 * warning. A run keeps at most AB_METRICS_MAX figures (name and cell):
 * the reports of further ones are left out and counted (`dropped`, the
 * record's metrics_dropped), with a warning. A figure is found by its
 * name and cell through an index (lib/strmap.h), so that reading a log is
 * linear in its lines.
 *
 * allocbuild's own figures of a run, read from its record by compare:
 * AB_METRIC_BUILTIN below, each with its unit and direction (lower is
 * better for all of them).
 */
#ifndef AB_METRICS_H
#define AB_METRICS_H

#include <stddef.h>

#include "../../lib/strmap.h"
#include "../../lib/util.h"

#define AB_METRIC_PREFIX "ALLOCBUILD_METRIC"

/*
 * The most figures (name and cell) one run keeps. A campaign's grid of
 * cells and figures is tens (8 cells of 16 figures: 128); each figure is a
 * row per label in compare's table and a chart in pr.md, and 256 of them
 * already make a Runs section pr must shorten to stay under GitHub's
 * 65,536 characters. Past it a run's figures are a driver's bug (40,000
 * names once took run 6 s and compare 22 s), not evidence.
 */
#define AB_METRICS_MAX 256

struct ab_metric {
	char *name;
	double value;
	char *unit;     /* or NULL */
	char *cell;     /* or NULL: the run's */
	int higher;     /* higher is better */
	int reported;   /* how many times the name was reported in its cell */
	char *key;      /* name and cell as one string, the index's key */
};

struct ab_metrics {
	struct ab_metric *v;
	size_t n;
	struct ab_strmap index;  /* key -> position in v */
	size_t dropped;          /* reports left out: their figure would have been past AB_METRICS_MAX */
};

/*
 * The largest magnitude of a figure, a driver's VALUE or a number of a
 * record: compare adds two values (the median of an even count, user +
 * sys, the difference of two medians) and draws an axis a tenth past the
 * largest, and all of that stays finite below it. A value past it, or
 * not finite (inf, nan), is no measurement: refused where it is read.
 */
#define AB_METRIC_VALUE_MAX 1e300

/* is v finite and within +-AB_METRIC_VALUE_MAX? */
int ab_metric_value_valid(double v);

/* allocbuild's figures of a run (compare's metric names) */
enum ab_metric_builtin {
	AB_M_WALL, AB_M_CPU, AB_M_MAXRSS,
	AB_M_STEADY_RSS, AB_M_PEAK_RSS, AB_M_COOLDOWN_RSS, AB_M_RSS_GIB_S, AB_M_WINDOW_CPU,
	AB_M_MINFLT, AB_M_MAJFLT, AB_M_THREADS,
	AB_M_STEADY_PSS, AB_M_PEAK_PSS, AB_M_STEADY_ANON, AB_M_PEAK_ANON,
	AB_M_NBUILTIN
};

struct ab_metric_def {
	const char *name;   /* "steady_rss_mib" */
	const char *unit;   /* "MiB" */
	const char *what;   /* a few words for the help */
};

extern const struct ab_metric_def ab_metric_builtins[AB_M_NBUILTIN];

/* the builtin named name, or -1 */
int ab_metric_builtin(const char *name);
/* is s a usable metric name: 1 to 64 of [A-Za-z0-9_.-]? */
int ab_metric_name_valid(const char *s, size_t n);
/* is s a usable cell name: 1 to 64 printable ASCII characters, no space? */
int ab_metric_cell_valid(const char *s, size_t n);
/* is s a usable unit: 1 to 32 printable ASCII characters, no space, no '='? */
int ab_metric_unit_valid(const char *s, size_t n);

/*
 * The metric lines of a log file into m (appended; a name again in its
 * cell replaces the value). A malformed line is warned about, with
 * label and the line's number, and skipped; reports past AB_METRICS_MAX
 * figures in one warning at the end. 0, or AB_EFAIL when the log cannot
 * be read (reported).
 */
int ab_metrics_scan(struct ab_metrics *m, const char *log_path, const char *label);
/* one line (without its newline) into m: 1 a metric, 0 not a metric line, -1 a malformed one (why into *why) */
int ab_metrics_line(struct ab_metrics *m, const char *line, size_t n, const char **why);
/*
 * set one: a name again in its cell replaces the value; takes copies. 1,
 * or 0 when it is a figure past AB_METRICS_MAX (left out, counted in
 * m->dropped)
 */
int ab_metrics_set(struct ab_metrics *m, const char *name, double value, const char *unit, const char *cell,
    int higher, int reported);
/* the figure of name in cell (NULL: the run's), or NULL */
const struct ab_metric *ab_metrics_get(const struct ab_metrics *m, const char *name, const char *cell);
void ab_metrics_release(struct ab_metrics *m);

#endif
