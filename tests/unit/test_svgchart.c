/*
 * unit tests for provenance/compare/svgchart: the axis of round ticks in
 * engineering notation that the SVG files and pr.md's Mermaid charts
 * share (the ranges that showed 2.013e+05, 27.72 and 0.7496 on the
 * charts of issue 48), the estimate of a text's width, and the layout:
 * a line that stops at its own end, a picture that grows to hold its
 * labels, a bar chart's labels turned when they would run together.
 * t7210 and t7280 render the charts in chromium.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../provenance/compare/svgchart.h"
#include "unit.h"

/* the labels of an axis' ticks, " "-separated */
static char *
tick_labels(const struct ab_chart_axis *a)
{
	struct ab_buf b = {0};

	for (long k = 0; k <= lround((a->hi - a->lo) / a->step); k++) {
		char num[32];

		ab_chart_axis_label(num, sizeof(num), a, a->lo + (double)k * a->step);
		ab_buf_printf(&b, "%s%s", k ? " " : "", num);
	}
	return ab_buf_detach(&b);
}

static void
check_axis(double lo, double hi, const char *ticks, const char *name)
{
	struct ab_chart_axis a;
	char *got, *full;

	ab_chart_axis(&a, lo, hi);
	got = tick_labels(&a);
	full = ab_chart_axis_name(&a, "u");
	CHECK(a.lo <= lo && a.hi >= hi);
	CHECK_STR(got, ticks);
	CHECK_STR(full, name);
	free(got);
	free(full);
}

static void
check_axes(void)
{
	/* a driver's figure of about 2e5 (its axis read 2.013e+05): thousands */
	check_axis(0, 221430, "0 50 100 150 200 250", "u (×10³)");
	/* RSS in MiB */
	check_axis(0, 46.56, "0 10 20 30 40 50", "u");
	check_axis(0, 27.72, "0 10 20 30", "u");
	/* seconds: milliseconds on the axis (0.7496 was a tick) */
	check_axis(0, 0.7496, "0 200 400 600 800", "u (×10⁻³)");
	check_axis(0, 0.242, "0 50 100 150 200 250", "u (×10⁻³)");
	/* GiB*s */
	check_axis(0, 0.009286, "0 2 4 6 8 10", "u (×10⁻³)");
	/* steps of 2.5 take a decimal more */
	check_axis(0, 12, "0 2.5 5.0 7.5 10.0 12.5", "u");
	check_axis(0, 1051, "0 0.25 0.50 0.75 1.00 1.25", "u (×10³)");
	/* negative figures */
	check_axis(-5, 20, "-5 0 5 10 15 20", "u");
	/* past 1e15, and below 1: 0.5 is 500 x 10^-3 */
	check_axis(0, 3e18, "0 1 2 3", "u (×10¹⁸)");
	check_axis(0, 0.5, "0 100 200 300 400 500", "u (×10⁻³)");
	/* one value, or none: room around it */
	check_axis(0, 0, "0 0.2 0.4 0.6 0.8 1.0", "u");
	check_axis(7, 7, "0 2.5 5.0 7.5 10.0 12.5", "u");
}

static void
check_width(void)
{
	/* DejaVu Sans: a digit 1303/2048 em, 'i' 569 */
	CHECK(fabs(ab_chart_text_width("0", 12) - 1303.0 / 2048 * 12) < 1e-9);
	CHECK(fabs(ab_chart_text_width("ii", 2048) - 2 * 569) < 1e-9);
	/* a character of another script counts an em, its bytes once */
	CHECK(fabs(ab_chart_text_width("×", 10) - 10) < 1e-9);
	CHECK(ab_chart_text_width("", 12) == 0);
}

/* the x of the last point of an SVG's polyline number nth (from 0) */
static double
last_x(const char *svg, int nth)
{
	const char *p = svg;
	double x = -1;

	for (int i = 0; i <= nth && p; i++)
		if ((p = strstr(p, "<polyline")))
			p++;
	if (p && (p = strstr(p, "points=\""))) {
		const char *end = strchr(p, '>'), *q;

		for (q = p; (q = strchr(q, ',')) && q < end; q++) {
			const char *s = q;

			while (s > p && s[-1] != ' ' && s[-1] != '"')
				s--;
			x = strtod(s, NULL);
		}
	}
	return x;
}

static void
check_layout(void)
{
	static const double y1[] = {1, 30, 30, 30}, y2[] = {1, 20, 40, 40};
	struct ab_svg_line l[] = {{"short", y1, 4, 0.5}, {"long", y2, 4, 1.0}};
	struct ab_buf b = {0}, c = {0};
	static const char *const cat[] = {"fluent-bit-jemalloc-5.3.1-special", "fluent-bit-jemalloc-5.3.0-runtime-fit",
	    "normal53", "relink53", "other"};
	static const double med[] = {1, 2, 3, 4, 5};

	ab_svg_lines(&b, "RSS over time", "seconds", "RSS (MiB)", l, 2);
	/* the shorter run's line stops half way, it does not run on to the end at 0 */
	CHECK(last_x(b.s, 0) > 0 && last_x(b.s, 1) > 0);
	{
		double x0 = strtod(strstr(b.s, "<path d=\"M") + 10, NULL), a = last_x(b.s, 0) - x0, z = last_x(b.s, 1) - x0;

		CHECK(fabs(a / z - 0.5) < 0.01);
	}
	CHECK(strstr(b.s, "<circle class=\"end\"") != NULL);
	CHECK(strstr(b.s, ">seconds</text>") != NULL);
	/* five labels, two long: turned, and the picture tall enough for them */
	ab_svg_bars(&c, "ops_per_s, ops/s", "ops/s", cat, med, med, med, 5);
	CHECK(strstr(c.s, "rotate(-45") != NULL);
	{
		double h = strtod(strstr(c.s, "height=\"") + 8, NULL);

		CHECK(h > 360 + 0.7 * ab_chart_text_width(cat[1], 12) - 80);
	}
	/* the same values, the same bytes */
	{
		struct ab_buf d = {0};

		ab_svg_bars(&d, "ops_per_s, ops/s", "ops/s", cat, med, med, med, 5);
		CHECK(d.len == c.len && !memcmp(d.s, c.s, c.len));
		ab_buf_free(&d);
	}
	ab_buf_free(&b);
	ab_buf_free(&c);
}

int
main(void)
{
	check_axes();
	check_width();
	check_layout();
	return unit_done();
}
