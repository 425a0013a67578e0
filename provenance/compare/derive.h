/*
 * derive: figures of a run defined from its other figures (docs/runs.md,
 * "Derived figures"), such as the campaigns' CPU seconds per million
 * records or the growth of RSS over a soak:
 *
 *   cpu_per_M s/M = cpu_s / records * 1e6
 *   drift % = growth_pct(rss_mean(exit-5min, exit), rss_mean(4min, 5min))
 *
 * A definition is NAME [UNIT] [better=higher|lower] = EXPR. NAME and UNIT
 * follow the rules of a driver's figure (provenance/runs/metrics.h); the
 * direction defaults as a figure's does (higher for a unit ending in
 * "/s"). EXPR is read by a small recursive-descent parser:
 *
 *   expr    := term (('+' | '-') term)*
 *   term    := unary (('*' | '/') unary)*
 *   unary   := '-' unary | primary
 *   primary := NUMBER | METRIC | '"' NAME '"' | '(' expr ')'
 *            | growth_pct '(' expr ',' expr ')'          (a / b - 1) * 100
 *            | rss_mean '(' point ',' point ')'           the RSS series
 *            | rss_median '(' point ',' point ')'
 *   point   := (DURATION | start | end | exit) [('+' | '-') DURATION]
 *
 * METRIC is one of allocbuild's figures or a driver's ([A-Za-z_][A-Za-z0-9_.]*;
 * a name with '-' or a leading digit is written in double quotes);
 * DURATION a number with ms, s or min; the marks are the measured window's
 * start and end and the command's exit, a bare duration counts from the
 * command's start. The window figures are the mean or the median, in MiB,
 * of the resident set's samples (those the figures use: --sample-comm's,
 * else the tree's) between the two points, both included.
 *
 * A figure is computed per run: a run without a value of an input (a
 * figure it did not report, a run too short to sample, a series that does
 * not reach the window), or whose computation divides by 0 or leaves the
 * values a figure may hold, has no value, with the reason: never 0.
 *
 * Errors name their 1-based position in the definition's text: "position
 * 12: expected an operator, not 'x'". One parser (ab_derived_parse), one
 * evaluator (ab_derived_eval), beside the struct.
 */
#ifndef AB_DERIVE_H
#define AB_DERIVE_H

#include <stddef.h>

#include "../runs/series.h"

enum ab_dnode_kind {
	AB_D_NUM, AB_D_METRIC, AB_D_NEG, AB_D_ADD, AB_D_SUB, AB_D_MUL, AB_D_DIV, AB_D_GROWTH,
	AB_D_RSS_MEAN, AB_D_RSS_MEDIAN,
};

/* where a window's point is counted from */
enum ab_dmark { AB_DM_ZERO, AB_DM_START, AB_DM_END, AB_DM_EXIT };

struct ab_dpoint {
	enum ab_dmark mark;
	double offset_s;
};

struct ab_dnode {
	enum ab_dnode_kind kind;
	size_t pos;                  /* 1-based, in the definition's text */
	double num;                  /* AB_D_NUM */
	char *name;                  /* AB_D_METRIC */
	struct ab_dnode *a, *b;      /* operands */
	struct ab_dpoint from, to;   /* AB_D_RSS_* */
};

struct ab_derived {
	char *name, *unit;           /* unit NULL: none */
	int higher;                  /* higher is better */
	char *text;                  /* the definition as given */
	char *expr;                  /* its EXPR, as given, spaces trimmed */
	struct ab_dnode *root;
	int series;                  /* it reads the RSS series (a window figure) */
	char *where;                 /* where it was given, for messages ("--derive", "m.json:3:5: derived[0]"); or NULL */
};

/*
 * Parse a definition into *d. 0; -1 with *why (caller frees) and *pos
 * (1-based in text) saying what is wrong.
 */
int ab_derived_parse(struct ab_derived *d, const char *text, char **why, size_t *pos);
void ab_derived_release(struct ab_derived *d);
/*
 * --derive TEXT: its definition appended to *v (*n of them, where
 * "--derive"); 0, or -1 after reporting "--derive: position N: why"
 */
int ab_derived_add(struct ab_derived **v, size_t *n, const char *text);
/*
 * A metrics file, a small JSON file beside the recipe:
 *   {"derived": ["cpu_per_M s/M = cpu_s / records * 1e6", ...]}
 * each definition appended to *v (where "FILE:LINE:COL: derived[i]").
 * 0, or -1 after reporting every error as FILE:LINE:COL: PATH: what.
 */
int ab_derived_read_file(struct ab_derived **v, size_t *n, const char *path);
/* release the n definitions of v and v */
void ab_derived_free(struct ab_derived *v, size_t n);

/* the metrics EXPR names (AB_D_METRIC nodes), in text order, into *out (caller frees the array) */
size_t ab_derived_inputs(const struct ab_dnode ***out, const struct ab_derived *d);

/* a run's value of a metric, NAN when it has none */
typedef double ab_derived_lookup_fn(void *arg, const char *name);

/* what a window figure reads of a run: its series and marks; series NULL: not sampled */
struct ab_derived_run {
	const struct ab_series *series;
	double window_start_s, window_end_s, command_end_s; /* < 0: unknown */
	double interval_s;           /* the sampling interval: a series that ends less than one short of a point reaches it */
	const char *no_series;       /* series NULL: why ("the run was not sampled" when NULL) */
};

/*
 * The figure of one run; NAN when it has none, with why (caller frees):
 * "no value of 'records'", "'records' is 0: a division by zero", "the
 * series ends at 3.2 s, before 300 s"
 */
double ab_derived_eval(const struct ab_derived *d, ab_derived_lookup_fn *get, void *arg,
    const struct ab_derived_run *run, char **why);

#endif
