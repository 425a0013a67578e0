#include "svgchart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pagetext.h"

/* the plot area inside the 640 x 360 picture */
#define W 640
#define H 360
#define X0 70.0
#define Y0 40.0
#define PW 420.0
#define PH 260.0

static const char *const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f"};

static void
put_text(struct ab_buf *b, double x, double y, const char *anchor, const char *extra, const char *s)
{
	ab_buf_printf(b, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", x, y, anchor, extra);
	ab_page_html(b, s);
	ab_buf_puts(b, "</text>\n");
}

/* the picture's start: background, title, axes, the y axis from lo to hi with 5 steps */
static void
frame(struct ab_buf *b, const char *title, const char *yname, double lo, double hi)
{
	ab_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
	    "font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"%d\" height=\"%d\" fill=\"white\"/>\n", W, H, W,
	    H, W, H);
	put_text(b, X0 + PW / 2, 24, "middle", " font-size=\"15\"", title);
	ab_buf_printf(b, "<path d=\"M%.1f %.1fV%.1fH%.1f\" stroke=\"black\" fill=\"none\"/>\n", X0, Y0, Y0 + PH, X0 + PW);
	for (int k = 0; k <= 5; k++) {
		double v = lo + (hi - lo) * k / 5, y = Y0 + PH - PH * k / 5;
		char num[32];

		snprintf(num, sizeof(num), "%.4g", v);
		ab_buf_printf(b, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"#ddd\"/>\n", X0, y, X0 + PW);
		put_text(b, X0 - 6, y + 4, "end", "", num);
	}
	ab_buf_printf(b, "<text x=\"16\" y=\"%.1f\" text-anchor=\"middle\" transform=\"rotate(-90 16 %.1f)\">", Y0 + PH / 2,
	    Y0 + PH / 2);
	ab_page_html(b, yname);
	ab_buf_puts(b, "</text>\n");
}

/* a value's height in the plot */
static double
ypos(double v, double lo, double hi)
{
	return Y0 + PH - (hi > lo ? (v - lo) / (hi - lo) : 0) * PH;
}

/* the axis range: from 0 (or below, for negative values) to a tenth above the largest */
static void
range(double *lo, double *hi, const double *v, size_t n)
{
	*lo = 0, *hi = 0;
	for (size_t i = 0; i < n; i++)
		if (isfinite(v[i])) {
			*lo = v[i] < *lo ? v[i] : *lo;
			*hi = v[i] > *hi ? v[i] : *hi;
		}
	*hi = *hi > *lo ? *hi * 1.1 : *lo + 1;
	*lo *= 1.1;
}

void
ab_svg_lines(struct ab_buf *b, const char *title, const char *xname, double xmax, const char *yname,
    const struct ab_svg_line *l, size_t nl)
{
	double lo, hi, *all;
	size_t n = 0;

	for (size_t i = 0; i < nl; i++)
		n += l[i].n;
	all = ab_calloc(n + 1, sizeof(*all));
	n = 0;
	for (size_t i = 0; i < nl; i++)
		for (size_t k = 0; k < l[i].n; k++)
			all[n++] = l[i].y[k];
	range(&lo, &hi, all, n);
	free(all);
	frame(b, title, yname, lo, hi);
	for (int k = 0; k <= 5; k++) {
		char num[32];

		snprintf(num, sizeof(num), "%.4g", xmax * k / 5);
		put_text(b, X0 + PW * k / 5, Y0 + PH + 16, "middle", "", num);
	}
	put_text(b, X0 + PW / 2, Y0 + PH + 34, "middle", "", xname);
	for (size_t i = 0; i < nl; i++) {
		const char *c = colours[i % AB_NELEM(colours)];

		ab_buf_printf(b, "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
		for (size_t k = 0; k < l[i].n; k++)
			ab_buf_printf(b, "%s%.1f,%.1f", k ? " " : "", X0 + (l[i].n > 1 ? PW * (double)k / (double)(l[i].n - 1) : 0),
			    ypos(isfinite(l[i].y[k]) ? l[i].y[k] : 0, lo, hi));
		ab_buf_puts(b, "\"/>\n");
		ab_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", X0 + PW + 16,
		    Y0 + 20.0 * (double)i, c);
		put_text(b, X0 + PW + 34, Y0 + 20.0 * (double)i + 11, "start", "", l[i].name);
	}
	ab_buf_puts(b, "</svg>\n");
}

void
ab_svg_bars(struct ab_buf *b, const char *title, const char *yname, const char *const *cat,
    const double *median, const double *lo_v, const double *hi_v, size_t n)
{
	double lo, hi, *all = ab_calloc(3 * n + 1, sizeof(*all)), slot = n ? PW / (double)n : PW;

	for (size_t i = 0; i < n; i++) {
		all[3 * i] = median[i];
		all[3 * i + 1] = lo_v[i];
		all[3 * i + 2] = hi_v[i];
	}
	range(&lo, &hi, all, 3 * n);
	free(all);
	frame(b, title, yname, lo, hi);
	for (size_t i = 0; i < n; i++) {
		double x = X0 + slot * (double)i + slot / 2, top = ypos(median[i], lo, hi), base = ypos(0 > lo ? 0 : lo, lo, hi);

		ab_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n", x - slot / 4,
		    top < base ? top : base, slot / 2, fabs(base - top), colours[0]);
		ab_buf_printf(b, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"black\" "
		    "stroke-width=\"1.5\"/>\n", x, ypos(lo_v[i], lo, hi), ypos(hi_v[i], lo, hi), x - 8, ypos(lo_v[i], lo, hi),
		    x + 8, x - 8, ypos(hi_v[i], lo, hi), x + 8);
		put_text(b, x, Y0 + PH + 16, "middle", "", cat[i]);
	}
	ab_buf_puts(b, "</svg>\n");
}
