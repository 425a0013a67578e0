#include "svgchart.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pagetext.h"

/*
 * The layout, in pixels: a margin, the fonts, DejaVu Sans's ascent and
 * descent (of the em), the plot's height and least width
 */
#define PAD 8.0
#define FONT 12.0
#define TITLE_FONT 15.0
#define ASC 0.93
#define DESC 0.24
#define PH 260.0
#define PW_MIN 420.0
/* a bar chart's slot per category at least, with its label turned (two labels' lines apart by more than a line) */
#define SLOT_TURNED 22.0
/* a bar chart no wider than this takes its labels flat */
#define PW_FLAT_MAX 840.0

static const char *const colours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2",
    "#7f7f7f"};

/* DejaVu Sans's advance widths of ' ' to '~', in 2048ths of the em */
static const unsigned short advance[95] = {651, 821, 942, 1716, 1303, 1946, 1597, 563, 799, 799, 1024, 1716, 651,
    739, 651, 690, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 1303, 690, 690, 1716, 1716, 1716, 1087,
    2048, 1401, 1405, 1430, 1577, 1294, 1178, 1587, 1540, 604, 604, 1343, 1141, 1767, 1532, 1612, 1235, 1612, 1423,
    1300, 1251, 1499, 1401, 2025, 1403, 1251, 1403, 799, 690, 799, 1716, 1024, 1024, 1255, 1300, 1126, 1300, 1260,
    721, 1300, 1298, 569, 569, 1186, 569, 1995, 1298, 1253, 1300, 1300, 842, 1067, 803, 1298, 1212, 1675, 1212,
    1212, 1075, 1303, 690, 1303, 1716};

double
ab_chart_text_width(const char *s, double size)
{
	double units = 0;

	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p >= 32 && *p < 127)
			units += advance[*p - 32];
		else if (*p >= 0xC0 || *p < 0x80)
			units += 2048; /* a character of another script, or a control: an em */
	}
	return units / 2048 * size;
}

/* ---- axes ---- */

void
ab_chart_axis(struct ab_chart_axis *a, double lo, double hi)
{
	static const double steps[] = {1, 2, 2.5, 5, 10};
	double span, raw, mag, top;
	int e;

	if (!(hi > lo)) {
		/* one value: room around it, from 0 when it is 0 */
		double d = fabs(hi) > 0 ? fabs(hi) / 2 : 1;

		lo = lo < 0 ? lo - d : lo > 0 ? 0 : lo;
		hi = hi + d;
	}
	span = hi - lo;
	raw = span / 5;
	mag = pow(10, floor(log10(raw)));
	a->step = 10 * mag;
	for (size_t i = 0; i < sizeof(steps) / sizeof(*steps); i++)
		if (raw <= steps[i] * mag * (1 + 1e-9)) {
			a->step = steps[i] * mag;
			break;
		}
	a->lo = floor(lo / a->step + 1e-9) * a->step;
	a->hi = ceil(hi / a->step - 1e-9) * a->step;
	top = fmax(fabs(a->lo), fabs(a->hi));
	e = top > 0 ? (int)floor(log10(top) + 1e-9) : 0;
	/* engineering: the exponent a multiple of 3 at or below the largest tick's */
	a->exp10 = e >= 0 ? e / 3 * 3 : -((-e + 2) / 3 * 3);
	{
		double scaled = a->step / pow(10, a->exp10), m = scaled / pow(10, floor(log10(scaled) + 1e-9));
		int d = (int)ceil(-log10(scaled) - 1e-9);

		/* 2.5, 0.25: one digit more than the power of ten says */
		d += fabs(m - 2.5) < 1e-6;
		a->decimals = d < 0 ? 0 : d;
	}
}

void
ab_chart_axis_label(char *buf, size_t len, const struct ab_chart_axis *a, double v)
{
	double x = v / pow(10, a->exp10);

	if (fabs(v) < a->step * 1e-6)
		snprintf(buf, len, "0");
	else
		snprintf(buf, len, "%.*f", a->decimals, x);
}

char *
ab_chart_axis_name(const struct ab_chart_axis *a, const char *name)
{
	static const char *const sup[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
	struct ab_buf b = {0};
	char digits[16];

	if (!a->exp10)
		return ab_strdup(name);
	ab_buf_printf(&b, "%s (×10%s", name, a->exp10 < 0 ? "⁻" : "");
	snprintf(digits, sizeof(digits), "%d", abs(a->exp10));
	for (const char *p = digits; *p; p++)
		ab_buf_puts(&b, sup[*p - '0']);
	ab_buf_puts(&b, ")");
	return ab_buf_detach(&b);
}

/* the steps from an axis' lowest tick to its highest */
static long
ticks(const struct ab_chart_axis *a)
{
	return lround((a->hi - a->lo) / a->step);
}

/* ---- drawing ---- */

static void
put_text(struct ab_buf *b, const char *cls, double x, double y, const char *anchor, const char *extra, const char *s)
{
	ab_buf_printf(b, "<text class=\"%s\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\"%s>", cls, x, y, anchor, extra);
	ab_page_html(b, s);
	ab_buf_puts(b, "</text>\n");
}

/*
 * What both charts share: the picture's size, the plot's place, the y
 * axis with its labels and its name (turned beside the labels, or above
 * them when it is longer than the plot is high)
 */
struct frame {
	double W, H, X0, Y0, PW;
	struct ab_chart_axis y;
	char *yname;
	int yname_above;
	double ylab_w;
};

/* the left side and the top, for a y axis over lo..hi named yname under a title */
static void
frame_start(struct frame *f, double lo, double hi, const char *yname)
{
	double top = PAD + (ASC + DESC) * TITLE_FONT + 6;

	memset(f, 0, sizeof(*f));
	ab_chart_axis(&f->y, lo, hi);
	f->yname = ab_chart_axis_name(&f->y, yname);
	for (long k = 0; k <= ticks(&f->y); k++) {
		char num[32];

		ab_chart_axis_label(num, sizeof(num), &f->y, f->y.lo + (double)k * f->y.step);
		f->ylab_w = fmax(f->ylab_w, ab_chart_text_width(num, FONT));
	}
	f->yname_above = ab_chart_text_width(f->yname, FONT) > PH - 2 * PAD;
	if (f->yname_above) {
		f->X0 = PAD + f->ylab_w + 6;
		top += (ASC + DESC) * FONT + 6;
	} else {
		f->X0 = PAD + (ASC + DESC) * FONT + 6 + f->ylab_w + 6;
	}
	/* the top tick's label reaches ASC * FONT - 4 above Y0 */
	f->Y0 = top + ASC * FONT - 4;
	f->PW = PW_MIN;
}

/* the picture's start (W and H known): background, title, the y axis with its grid, labels and name */
static void
frame_draw(struct ab_buf *b, const struct frame *f, const char *title)
{
	ab_buf_printf(b, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\" "
	    "font-family=\"sans-serif\" font-size=\"%.0f\">\n<rect width=\"%.0f\" height=\"%.0f\" fill=\"white\"/>\n", f->W,
	    f->H, f->W, f->H, FONT, f->W, f->H);
	put_text(b, "title", f->W / 2, PAD + ASC * TITLE_FONT, "middle", " font-size=\"15\"", title);
	for (long k = 0; k <= ticks(&f->y); k++) {
		double v = f->y.lo + (double)k * f->y.step, y = f->Y0 + PH - (v - f->y.lo) / (f->y.hi - f->y.lo) * PH;
		char num[32];

		ab_chart_axis_label(num, sizeof(num), &f->y, v);
		ab_buf_printf(b, "<path d=\"M%.1f %.1fH%.1f\" stroke=\"#ddd\"/>\n", f->X0, y, f->X0 + f->PW);
		put_text(b, "tick y", f->X0 - 6, y + 4, "end", "", num);
	}
	ab_buf_printf(b, "<path d=\"M%.1f %.1fV%.1fH%.1f\" stroke=\"black\" fill=\"none\"/>\n", f->X0, f->Y0, f->Y0 + PH,
	    f->X0 + f->PW);
	if (f->yname_above) {
		/* its line ends 4 pixels above the top tick's label */
		put_text(b, "axis y", PAD, f->Y0 - ASC * FONT - DESC * FONT, "start", "", f->yname);
	} else {
		/* turned: its ascent lies to the left of x, its descent to the right */
		double x = PAD + ASC * FONT, y = f->Y0 + PH / 2;
		char *t = ab_sprintf(" transform=\"rotate(-90 %.1f %.1f)\"", x, y);

		put_text(b, "axis y", x, y, "middle", t, f->yname);
		free(t);
	}
}

/* a value's height in the plot */
static double
ypos(const struct frame *f, double v)
{
	return f->Y0 + PH - (v - f->y.lo) / (f->y.hi - f->y.lo) * PH;
}

/* the picture wide enough for its title, centred over it */
static void
fit_title(struct frame *f, const char *title)
{
	f->W = fmax(f->W, ab_chart_text_width(title, TITLE_FONT) + 2 * PAD);
	if (f->yname_above)
		f->W = fmax(f->W, PAD + ab_chart_text_width(f->yname, FONT) + PAD);
}

void
ab_svg_lines(struct ab_buf *b, const char *title, const char *xname, const char *yname,
    const struct ab_svg_line *l, size_t nl)
{
	struct frame f;
	struct ab_chart_axis x;
	double lo = 0, hi = 0, xend = 0, name_w = 0, lastx_w = 0, legend_x, xlab_y;
	char num[32], *xtitle;

	for (size_t i = 0; i < nl; i++) {
		for (size_t k = 0; k < l[i].n; k++)
			if (isfinite(l[i].y[k])) {
				lo = fmin(lo, l[i].y[k]);
				hi = fmax(hi, l[i].y[k]);
			}
		xend = fmax(xend, l[i].end);
		name_w = fmax(name_w, ab_chart_text_width(l[i].name, FONT));
	}
	frame_start(&f, lo, hi, yname);
	ab_chart_axis(&x, 0, xend);
	xtitle = ab_chart_axis_name(&x, xname);
	ab_chart_axis_label(num, sizeof(num), &x, x.hi);
	lastx_w = ab_chart_text_width(num, FONT);
	legend_x = f.X0 + f.PW + fmax(16, lastx_w / 2 + 8);
	xlab_y = f.Y0 + PH + 8 + ASC * FONT;
	f.H = fmax(xlab_y + DESC * FONT + 6 + (ASC + DESC) * FONT + PAD, f.Y0 + 20.0 * (double)nl + PAD);
	f.W = legend_x + 18 + name_w + PAD;
	fit_title(&f, title);
	fit_title(&f, xtitle);
	frame_draw(b, &f, title);
	for (long k = 0; k <= ticks(&x); k++) {
		double v = x.lo + (double)k * x.step;

		ab_chart_axis_label(num, sizeof(num), &x, v);
		put_text(b, "tick x", f.X0 + (v - x.lo) / (x.hi - x.lo) * f.PW, xlab_y, "middle", "", num);
	}
	put_text(b, "axis x", f.X0 + f.PW / 2, xlab_y + DESC * FONT + 6 + ASC * FONT, "middle", "", xtitle);
	for (size_t i = 0; i < nl; i++) {
		const char *c = colours[i % AB_NELEM(colours)];
		double px = f.X0, py = ypos(&f, 0);

		ab_buf_printf(b, "<polyline class=\"series\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\" points=\"", c);
		for (size_t k = 0; k < l[i].n; k++) {
			/* its own end: a run that ended early stops there, it does not drop to 0 */
			double t = l[i].n > 1 ? l[i].end * (double)k / (double)(l[i].n - 1) : 0;

			px = f.X0 + (t - x.lo) / (x.hi - x.lo) * f.PW;
			py = ypos(&f, isfinite(l[i].y[k]) ? l[i].y[k] : 0);
			ab_buf_printf(b, "%s%.1f,%.1f", k ? " " : "", px, py);
		}
		ab_buf_puts(b, "\"/>\n");
		ab_buf_printf(b, "<circle class=\"end\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>\n", px, py, c);
		ab_buf_printf(b, "<rect x=\"%.1f\" y=\"%.1f\" width=\"12\" height=\"12\" fill=\"%s\"/>\n", legend_x,
		    f.Y0 + 20.0 * (double)i, c);
		put_text(b, "legend", legend_x + 18, f.Y0 + 20.0 * (double)i + 11, "start", "", l[i].name);
	}
	ab_buf_puts(b, "</svg>\n");
	free(xtitle);
	free(f.yname);
}

void
ab_svg_bars(struct ab_buf *b, const char *title, const char *yname, const char *const *cat,
    const double *median, const double *lo_v, const double *hi_v, size_t n)
{
	struct frame f;
	double lo = 0, hi = 0, lab_w = 0, first_w = 0, slot, base, ly;
	int turned;

	for (size_t i = 0; i < n; i++) {
		const double v[3] = {median[i], lo_v[i], hi_v[i]};

		for (int k = 0; k < 3; k++)
			if (isfinite(v[k])) {
				lo = fmin(lo, v[k]);
				hi = fmax(hi, v[k]);
			}
		lab_w = fmax(lab_w, ab_chart_text_width(cat[i], FONT));
	}
	if (n)
		first_w = ab_chart_text_width(cat[0], FONT);
	frame_start(&f, lo, hi, yname);
	/* the labels flat when the picture can be wide enough for them, else turned 45 degrees */
	turned = (double)n * (lab_w + 8) > PW_FLAT_MAX;
	f.PW = fmax(PW_MIN, (double)n * (turned ? SLOT_TURNED : lab_w + 8));
	slot = n ? f.PW / (double)n : f.PW;
	if (turned) {
		/* the first label runs down and to the left of its bar: room for it */
		f.X0 = fmax(f.X0, PAD + M_SQRT1_2 * (first_w + ASC * FONT) - slot / 2 - 3);
		ly = f.Y0 + PH + 10;
		f.H = ly + M_SQRT1_2 * (lab_w + DESC * FONT) + PAD;
	} else {
		ly = f.Y0 + PH + 8 + ASC * FONT;
		f.H = ly + DESC * FONT + PAD;
	}
	f.W = f.X0 + f.PW + PAD + 4;
	fit_title(&f, title);
	frame_draw(b, &f, title);
	base = ypos(&f, 0 > f.y.lo ? 0 : f.y.lo);
	for (size_t i = 0; i < n; i++) {
		double x = f.X0 + slot * (double)i + slot / 2, top = ypos(&f, median[i]);

		ab_buf_printf(b, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
		    x - slot / 4, top < base ? top : base, slot / 2, fabs(base - top), colours[0]);
		ab_buf_printf(b, "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" stroke=\"black\" "
		    "stroke-width=\"1.5\"/>\n", x, ypos(&f, lo_v[i]), ypos(&f, hi_v[i]), x - slot / 6, ypos(&f, lo_v[i]),
		    x + slot / 6, x - slot / 6, ypos(&f, hi_v[i]), x + slot / 6);
		if (turned) {
			char *t = ab_sprintf(" transform=\"rotate(-45 %.1f %.1f)\"", x + 3, ly);

			put_text(b, "tick x", x + 3, ly, "end", t, cat[i]);
			free(t);
		} else {
			put_text(b, "tick x", x, ly, "middle", "", cat[i]);
		}
	}
	ab_buf_puts(b, "</svg>\n");
	free(f.yname);
}
