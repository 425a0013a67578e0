/*
 * svgchart: the charts of pr.md as standalone SVG files for the bundle
 * (docs/runs.md, "Formats"): a line chart and a bar chart with min-max
 * whiskers, drawn from the values alone (no fonts measured, no clock, no
 * randomness: the same values give the same bytes). Pure functions
 * appending to a buffer; the caller writes the file.
 *
 * What a reader must be able to read is laid out so that it can be: the
 * axes' ticks are round (1, 2, 2.5 or 5 times a power of ten) and in
 * engineering notation (the values in units of a power of ten that is a
 * multiple of 3, named on the axis: "ops/s (×10³)", never 2.013e+05);
 * the picture grows to hold every label (their widths estimated from
 * DejaVu Sans's advances, the widest common sans-serif face); a bar
 * chart's labels turn 45 degrees when they would run together; a line
 * ends where its run ended, with a dot. The axis helpers serve pr.md's
 * Mermaid charts too (provenance/compare/compare_out.c), so that both
 * draw the same ticks.
 */
#ifndef AB_SVGCHART_H
#define AB_SVGCHART_H

#include <stddef.h>

#include "../../lib/util.h"

/* an axis of values: round ticks from lo to hi, step apart, shown in units of 10^exp10 */
struct ab_chart_axis {
	double lo, hi, step;
	int exp10;      /* a multiple of 3: the values are shown divided by 10^exp10 */
	int decimals;   /* of a tick's label */
};

/* the axis holding lo..hi (lo <= hi; equal ones are given room): about 5 round steps */
void ab_chart_axis(struct ab_chart_axis *a, double lo, double hi);
/* a value's label on the axis (in its units, a.decimals decimals, "0" for zero); 32 bytes hold any */
void ab_chart_axis_label(char *buf, size_t len, const struct ab_chart_axis *a, double v);
/* name with the axis' unit appended when it has one: "ops/s (×10³)"; caller frees */
char *ab_chart_axis_name(const struct ab_chart_axis *a, const char *name);
/* the width of s in pixels at a font size, estimated from DejaVu Sans's advances (wider than most faces) */
double ab_chart_text_width(const char *s, double size);

struct ab_svg_line {
	const char *name;   /* shown in the legend */
	const double *y;    /* n values at equal steps from x 0 to end */
	size_t n;
	double end;         /* where the line ends on the x axis (its run's end): drawn no further, with a dot */
};

/* a line chart of nl lines, appended to b; the x axis from 0 to the latest end */
void ab_svg_lines(struct ab_buf *b, const char *title, const char *xname, const char *yname,
    const struct ab_svg_line *l, size_t nl);
/* a bar chart: per category its median as a bar, its minimum to maximum as a whisker; appended to b */
void ab_svg_bars(struct ab_buf *b, const char *title, const char *yname, const char *const *cat,
    const double *median, const double *lo, const double *hi, size_t n);

#endif
