/*
 * svgchart: the charts of pr.md as standalone SVG files for the bundle
 * (docs/runs.md, "Formats"): a line chart and a bar chart with min-max
 * whiskers, 640 x 360, drawn from the values alone (no fonts measured, no
 * clock, no randomness: the same values give the same bytes). Pure
 * functions appending to a buffer; the caller writes the file.
 */
#ifndef AB_SVGCHART_H
#define AB_SVGCHART_H

#include <stddef.h>

#include "../../lib/util.h"

struct ab_svg_line {
	const char *name;   /* shown in the legend */
	const double *y;    /* n values at equal steps from x 0 to xmax */
	size_t n;
};

/* a line chart of nl lines, appended to b */
void ab_svg_lines(struct ab_buf *b, const char *title, const char *xname, double xmax, const char *yname,
    const struct ab_svg_line *l, size_t nl);
/* a bar chart: per category its median as a bar, its minimum to maximum as a whisker; appended to b */
void ab_svg_bars(struct ab_buf *b, const char *title, const char *yname, const char *const *cat,
    const double *median, const double *lo, const double *hi, size_t n);

#endif
