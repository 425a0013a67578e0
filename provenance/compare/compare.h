/*
 * compare: the recorded runs of an OUTDIR turned into evidence
 * (docs/runs.md, "Compare"), for `allocbuild compare` and pr.md's Runs
 * section.
 *
 *   struct ab_compare_opts o = {.outdir = dir, ...};
 *   struct ab_comparison *c;
 *   rc = ab_compare_load(&c, &o);       the records SHA256SUMS lists, analysed
 *   ab_compare_print(stdout, c, AB_CMP_TABLE);
 *   ab_compare_free(c);
 *
 * Per run name (a set), cell and label, and per metric (provenance/
 * metrics.h: allocbuild's figures and the driver's): the values of the
 * runs that succeeded, their median, minimum and maximum. Against the
 * baseline label, in each cell: the ratio of the medians with its
 * bootstrap interval, the Mann-Whitney U test and a verdict
 * (provenance/compare/stats.h). Runs are paired by repetition (the same batch
 * and repetition: one `run --rotate` invocation's) when every run of the
 * set was rotated and every repetition ran each label, unpaired
 * otherwise. Failed runs are left out, with a warning naming them.
 *
 * An A/A control: two labels whose runs all ran the same bytes (artifact
 * digest) with the same runtime environment (the variables set and
 * removed, ALLOCBUILD_LABEL and the paths of ALLOCBUILD_BIN and
 * ALLOCBUILD_ARCHIVE aside) are the same thing under two names: a
 * runtime variant without settings, or two variants built apart into the
 * same bytes (a relink identical to a normal build); their
 * comparison is the control, and when it shows a difference every
 * verdict of the set is flagged unreliable. Runs taken under different
 * run environments (provenance/runs/runenv.h: ab_runenv_compared) are refused
 * for a paired comparison (refuse_mixed_paired: AB_ECHECK, reported), or
 * compared unpaired and flagged.
 *
 * Derived figures (derive.h, o->derived) are computed per run from its
 * other figures (and its series, for the RSS window figures) and then
 * grouped and compared like the others; a run without a value of an input
 * has none, named in a warning.
 *
 * Runs of one name from several hosts (the host of each record's run
 * environment; the OUTDIR's runs and those of o->runs_from, a record both
 * hold read once) are refused, split into a set per host or pooled
 * (enum ab_compare_hosts); a split name's last set notes where the hosts'
 * verdicts disagree and which labels ran other bytes on another host.
 *
 * Every record is read through its OUTDIR's resolver and must hold the
 * digest SHA256SUMS gives it; the series the charts of md and pr.md and
 * the window figures read (ab_compare_series, ab_compare_charts) must hold
 * the one their record gives them.
 */
#ifndef AB_COMPARE_H
#define AB_COMPARE_H

#include <stdint.h>
#include <stdio.h>

#include "../../lib/strmap.h"
#include "../../lib/util.h"
#include "../runs/runrec.h"
#include "derive.h"
#include "layoutband.h"
#include "stats.h"

#define AB_COMPARE_SEED 1
#define AB_COMPARE_RESAMPLES 10000
#define AB_COMPARE_THRESHOLD 0.01
#define AB_COMPARE_ALPHA 0.05
#define AB_COMPARE_LEVEL 0.95
/* no label, row or position */
#define AB_COMPARE_NONE ((size_t)-1)

enum ab_compare_format { AB_CMP_TABLE, AB_CMP_CSV, AB_CMP_JSON, AB_CMP_MD };

/*
 * The runs of one name taken on several hosts (their run environment's
 * host): never pooled silently. AB_HOSTS_REFUSE (compare's default)
 * refuses them, naming the hosts; AB_HOSTS_SPLIT (compare --by-host, pr)
 * compares each host's runs apart, a set per host (the sets of one name
 * follow each other), and says where their verdicts disagree and which
 * labels ran other bytes on another host; AB_HOSTS_POOL (--pool-hosts)
 * pools them, unpaired, and says so.
 */
enum ab_compare_hosts { AB_HOSTS_REFUSE, AB_HOSTS_SPLIT, AB_HOSTS_POOL };

struct ab_compare_opts {
	const char *outdir;
	const char *name;            /* one run name, or NULL: every one */
	const char *baseline;        /* a label, or NULL: the label run first */
	char *const *metrics;        /* the metrics compared; none: the default set */
	size_t nmetrics;
	int unpaired;                /* never pair runs */
	int refuse_mixed_paired;     /* runs to pair under different environments: refuse (compare), else flag (pr) */
	uint64_t seed;               /* AB_COMPARE_SEED */
	int resamples;               /* AB_COMPARE_RESAMPLES */
	double threshold;            /* AB_COMPARE_THRESHOLD */
	/*
	 * derived figures (derive.h: --derive, --metrics FILE), compared after
	 * the others; each input must be a metric of every set compared
	 */
	const struct ab_derived *derived;
	size_t nderived;
	/*
	 * more OUTDIRs whose runs join these (compare --runs-from: copies of
	 * the build on other hosts), each read as outdir is, through its own
	 * SHA256SUMS and resolver
	 */
	char *const *runs_from;
	size_t nruns_from;
	enum ab_compare_hosts hosts;
};

struct ab_compare_metric {
	char *name;
	char *unit;                  /* or NULL */
	int higher;                  /* higher is better */
	int builtin;                 /* enum ab_metric_builtin, or -1: the driver's or derived */
	const struct ab_derived *derived; /* a derived figure's definition (the options'), or NULL */
};

/* one cell x label x metric: the values of its successful runs, in run order */
struct ab_compare_group {
	size_t cell, label, metric;
	double *v;
	size_t n;
	size_t *run;                 /* the run of each value (index into the set's runs) */
	double median, min, max;     /* NAN when n is 0 */
	const struct ab_compare_row *row; /* its row against the baseline, or NULL (the baseline's, or none) */
};

/* a label against another (the baseline, or a control's first label) in a cell, for a metric */
struct ab_compare_row {
	size_t cell, metric, label, against;
	const struct ab_compare_group *g, *base; /* NULL when a side has no group */
	int paired;
	size_t na, nb;               /* the values compared (pairs when paired) */
	struct ab_ratio_ci ci;
	struct ab_utest u;
	enum ab_verdict verdict;
	int control;                 /* an A/A control's row */
	int layout;                  /* a layout variant of the baseline against it (layoutband.h) */
	int within_layout;           /* a difference inside the layout band of its cell and metric */
};

/* the layout band of the baseline in a cell, for a metric (layoutband.h) */
struct ab_compare_band {
	size_t cell, metric;
	struct ab_layout_band b;
};

/* an A/A control: labels a and b (a before b in the set's order, a the control's baseline) ran one artifact */
struct ab_compare_control {
	size_t a, b;
	char sha256[AB_HEX_LEN + 1];
};

struct ab_compare_set {
	char *name;
	char *host;                  /* AB_HOSTS_SPLIT, runs of several hosts: the host of these, else NULL */
	struct ab_strv hosts;        /* the hosts of the name's runs, in order of first run (several: split or pooled) */
	struct ab_runrec *runs;      /* parsed, in run number order */
	size_t *src;                 /* the OUTDIR of each run: 0 outdir, i runs_from[i - 1] */
	int *ok;                     /* each run succeeded (exit 0) */
	size_t nruns, nfailed;
	struct ab_strv labels;       /* in order of first run */
	struct ab_strv cells;        /* "" is the cell of runs that name none */
	struct ab_strmap cell_at;    /* a cell's position in cells */
	size_t baseline;
	struct ab_compare_metric *metrics;
	size_t nmetrics;
	struct ab_strmap metric_at;  /* a metric's position in metrics, by name */
	size_t metrics_dropped;      /* the driver's figures the runs left out (past AB_METRICS_MAX a run) */
	struct ab_compare_group *groups;
	size_t ngroups;
	struct ab_compare_row *rows; /* each label against the baseline, then the controls */
	size_t nrows;
	int paired;                  /* runs paired by repetition */
	char *unpaired_why;          /* why not, or NULL */
	struct ab_compare_control *controls; /* the A/A pairs */
	size_t ncontrols;
	size_t *layouts;             /* the baseline's layout variants (label indexes), in label order */
	size_t nlayouts;
	struct ab_compare_band *bands; /* per cell and metric with a band */
	size_t nbands;
	size_t within_layout;        /* the differences inside a band */
	/*
	 * per label, the first label before it whose runs all ran the same
	 * bytes (artifact digest) as its runs all did, whatever their
	 * environments; AB_COMPARE_NONE when none. With the same environment
	 * too the two are an A/A pair by construction (controls)
	 */
	size_t *same_bytes;
	int mixed_env;               /* runs under different run environments */
	int control_differs;         /* an A/A control shows a difference */
	int control_judged;          /* an A/A control had runs enough for a verdict in some metric (else its "no difference" says nothing) */
	size_t nshort;               /* successful runs too short to sample: their sampled figures are left out */
	struct ab_strv failed_labels; /* labels with runs and not one successful: nothing of them is compared */
	/*
	 * the machine's load while the runs ran: the 1-minute load average
	 * at each run's start (its run environment's loadavg), on the CPUs
	 * online; load_runs 0 when no run recorded it
	 */
	size_t load_runs;
	double load_min, load_max;
	int load_cpus;
	int busy;                    /* load_max reached load_cpus: the runs shared the machine's CPUs with other work */
	struct ab_strv warnings;
	/*
	 * the hosts' findings, on the last set of a name split by host (and
	 * on a pooled one): where their verdicts disagree, the labels that ran
	 * other bytes on another host; one line each, in words
	 */
	struct ab_strv host_notes;
	int hosts_disagree;          /* a verdict of a row differs between hosts (neither too few runs) */
	int hosts_bytes_differ;      /* a label ran other bytes on another host */
};

struct ab_comparison {
	struct ab_compare_opts o;
	struct ab_layoutband layouts; /* OUTDIR's relinks (layoutband.h) */
	struct ab_compare_set *sets;
	size_t nsets;
};

/*
 * Read and analyse. 0; AB_ECHECK when a record does not hold what
 * SHA256SUMS says or a paired comparison was refused; AB_EFAIL for bad
 * input: no runs, an unknown name, label or metric (reported). *out is
 * set only on 0.
 */
int ab_compare_load(struct ab_comparison **out, const struct ab_compare_opts *o);
/* is any verdict of c flagged unreliable (a control that differs, mixed environments)? */
int ab_compare_unreliable(const struct ab_comparison *c);
/* did a label run other bytes on another host (the artifacts are not the same on every host)? */
int ab_compare_hosts_bytes_differ(const struct ab_comparison *c);
/* the host a run ran on (its run environment's), or "(unknown host)" for a record without one */
const char *ab_compare_run_host(const struct ab_runrec *r);
/* has a label of some set no successful run (every run of it failed)? */
int ab_compare_failed(const struct ab_comparison *c);
/* why the verdicts of a set are unreliable, in words, or NULL */
const char *ab_compare_unreliable_why(const struct ab_compare_set *s);
/* the band of a cell and metric, or NULL */
const struct ab_compare_band *ab_compare_band(const struct ab_compare_set *s, size_t cell, size_t metric);
/* the group of a cell, label and metric, or NULL */
const struct ab_compare_group *ab_compare_group(const struct ab_compare_set *s, size_t cell, size_t label,
    size_t metric);
/* print c in a format; 0, or AB_EFAIL when out cannot be written, or md's series cannot be read (reported) */
int ab_compare_print(FILE *out, const struct ab_comparison *c, enum ab_compare_format f);
/*
 * The answer of the runs in a few lines, for the first screen of pr.md,
 * appended to b (compare_verdict.c). Per set a line (its runs, labels,
 * baseline and pairing), then a list: a line per label against the
 * baseline, its results that show a difference first, grouped by verdict,
 * the strongest first ("**worse** `cpu_s` 1.247× [1.099, 1.343]": the
 * ratio of medians and its 95% interval, as hyperfine's "1.23 ± 0.04
 * times faster than"), then "no difference shown in ..." and the runs
 * compared ("(5 pairs)"), naming the label whose bytes it ran when it
 * ran another's; then the set's notes, a line each ("- ✅ A/A control
 * clean: ...", failed runs, runs too short to sample, a busy machine,
 * mixed run environments): a finding of that kind is one more line. The
 * sets past budget bytes are named in one line.
 */
void ab_compare_verdict_md(struct ab_buf *b, const struct ab_comparison *c, size_t budget);
/* one set's comparison table as markdown (pr.md's Runs section), appended to b */
void ab_compare_markdown(struct ab_buf *b, const struct ab_comparison *c, const struct ab_compare_set *s);
/*
 * the series of a label's median sampled run (by steady RSS, else peak RSS;
 * the lower median) into *out, read through OUTDIR's resolver and checked
 * against its record's digest; *run its index in s->runs, -1 (and 0, *out
 * empty) when the label has no sampled run. 0; AB_ECHECK (digest) or
 * AB_EFAIL (reported). The caller releases *out (ab_series_release).
 */
int ab_compare_series(struct ab_series *out, long *run, const struct ab_comparison *c, const struct ab_compare_set *s,
    size_t label);
/* the charts as SVG files (provenance/compare/svgchart.h): names SET/rss-over-time.svg, SET/metric/METRIC.svg and their texts */
struct ab_compare_svgs {
	struct ab_strv names, texts;
	/*
	 * where the page finds them, prefixed to a name (pr.md written beside
	 * OUTDIR's pr-charts: "pr-charts/"): each chart is followed by a link
	 * to its file; NULL: none
	 */
	const char *href;
};

/*
 * pr.md's charts of a set (Mermaid xychart-beta), appended to b: RSS over
 * time, one distribution a metric; each also as SVG into *svg, unless
 * NULL. 0, or ab_compare_series's error
 */
int ab_compare_charts(struct ab_buf *b, const struct ab_comparison *c, const struct ab_compare_set *s,
    struct ab_compare_svgs *svg);
/*
 * one of allocbuild's figures of a run (enum ab_metric_builtin), in its
 * unit; NAN when it has none: not sampled, or a sampled figure of a run
 * too short to sample (ab_runrec_too_short: fewer than AB_RUN_MIN_SAMPLES samples; for
 * the window's figures, in its measured window)
 */
double ab_compare_builtin_value(const struct ab_runrec *r, int metric);
/* from this magnitude on, compare shows a value with an exponent */
#define AB_COMPARE_PLAIN_MAX 1e15
/*
 * a value as compare shows it: four significant digits (at most six
 * decimals), no exponent below AB_COMPARE_PLAIN_MAX ("1042", "0.1566");
 * past it with one ("1.000e+308"); "inf" and "-inf" for infinities, "-"
 * for NAN (no value). 32 bytes hold any.
 */
void ab_compare_format_value(char *buf, size_t len, double v);
/* a difference as compare shows it: ab_compare_format_value's, signed ("+5.000", "-0.2500", "0") */
void ab_compare_format_difference(char *buf, size_t len, double d);
void ab_compare_free(struct ab_comparison *c);
/*
 * What compare shows of a row, as its table, --format md and pr.md write
 * it: the ratio ("1.042", or "diff +5.000" without one), the interval
 * ("[1.038, 1.046]" or "-"), p ("0.00794" or "-") and the verdict with
 * its marks ("better", "no difference shown (A/A control)"); for the
 * test-result statements (provenance/compare/testresult.h)
 */
struct ab_compare_row_texts {
	char *ratio, *ci, *p, *verdict;
};
void ab_compare_row_texts(struct ab_compare_row_texts *t, const struct ab_compare_set *s, const struct ab_compare_row *r);
void ab_compare_row_texts_release(struct ab_compare_row_texts *t);

#endif
