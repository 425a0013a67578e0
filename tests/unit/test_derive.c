/*
 * unit tests for provenance/compare/derive: the definitions' parser
 * (precedence, the head's unit and direction, exact errors with their
 * positions) and the computed figures against a hand computation: a
 * ratio of two figures, growth in percent, and the RSS window figures on
 * a series of 11 samples, one a second, of 10 to 20 MiB.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../provenance/compare/derive.h"
#include "unit.h"

struct fig {
	const char *name;
	double v;
};

static double
lookup(void *arg, const char *name)
{
	for (const struct fig *f = arg; f->name; f++)
		if (!strcmp(f->name, name))
			return f->v;
	return NAN;
}

/* the value of a definition on figs and run, or NAN; *why kept for the caller's check (freed here when NULL) */
static double
value(const char *def, const struct fig *figs, const struct ab_derived_run *run, char **why_out)
{
	struct ab_derived d;
	char *why = NULL;
	size_t pos;
	double v;

	if (ab_derived_parse(&d, def, &why, &pos) < 0) {
		fprintf(stderr, "'%s': position %zu: %s\n", def, pos, why);
		free(why);
		return -12345;
	}
	v = ab_derived_eval(&d, lookup, (void *)figs, run, &why);
	if (why_out)
		*why_out = why;
	else
		free(why);
	ab_derived_release(&d);
	return v;
}

/* the error of a definition that does not parse: "position N: why" */
static void
check_error(const char *def, const char *want)
{
	struct ab_derived d;
	char *why = NULL, got[512];
	size_t pos = 0;

	unit_checks++;
	if (ab_derived_parse(&d, def, &why, &pos) == 0) {
		unit_failed++;
		fprintf(stderr, "'%s' parsed\n", def);
		ab_derived_release(&d);
		return;
	}
	snprintf(got, sizeof(got), "position %zu: %s", pos, why);
	free(why);
	CHECK_STR(got, want);
}

static int
near(double got, double want)
{
	return fabs(got - want) <= 1e-12 * fabs(want);
}

int
main(void)
{
	const struct fig figs[] = {{"cpu_s", 0.75}, {"records", 250000}, {"wall_s", 2.5}, {"p99-ms", 4}, {"zero", 0},
	    {NULL, 0}};
	struct ab_series s = {0};
	struct ab_derived_run run = {&s, 1, 5, 10, 1, NULL};
	struct ab_derived d;
	char *why = NULL;
	size_t pos;

	/* the head: name, unit, direction */
	CHECK(ab_derived_parse(&d, "cpu_per_M s/M = cpu_s / records * 1e6", &why, &pos) == 0);
	CHECK_STR(d.name, "cpu_per_M");
	CHECK_STR(d.unit, "s/M");
	CHECK_STR(d.expr, "cpu_s / records * 1e6");
	CHECK(!d.higher && !d.series);
	ab_derived_release(&d);
	CHECK(ab_derived_parse(&d, "tput records/s=records / wall_s", &why, &pos) == 0);
	CHECK(d.higher);
	ab_derived_release(&d);
	CHECK(ab_derived_parse(&d, "x better=higher = 1", &why, &pos) == 0);
	CHECK(d.higher && !d.unit);
	ab_derived_release(&d);
	CHECK(ab_derived_parse(&d, "drift % better=lower = growth_pct(rss_mean(exit-3s, exit), rss_mean(2s, 4s))", &why,
	    &pos) == 0);
	CHECK(!d.higher && d.series);
	CHECK_STR(d.unit, "%");
	{
		const struct ab_dnode **in;

		CHECK(ab_derived_inputs(&in, &d) == 0);
		free(in);
	}
	ab_derived_release(&d);
	CHECK(ab_derived_parse(&d, "r = cpu_s / \"p99-ms\" + cpu_s", &why, &pos) == 0);
	{
		const struct ab_dnode **in;

		CHECK(ab_derived_inputs(&in, &d) == 3);
		CHECK_STR(in[0]->name, "cpu_s");
		CHECK_STR(in[1]->name, "p99-ms");
		CHECK(in[1]->pos == 13);
		free(in);
	}
	ab_derived_release(&d);

	/* by hand: 0.75 / 250000 * 1e6 = 3; precedence and association */
	CHECK(near(value("c s/M = cpu_s / records * 1e6", figs, NULL, NULL), 3));
	CHECK(near(value("x = 2 + 3 * 4 - -1", figs, NULL, NULL), 15));
	CHECK(near(value("x = (2 + 3) * 4", figs, NULL, NULL), 20));
	CHECK(near(value("x = 10 / 4 / 5", figs, NULL, NULL), 0.5));
	CHECK(near(value("x = 10 - 4 - 5", figs, NULL, NULL), 1));
	CHECK(near(value("x = wall_s - cpu_s", figs, NULL, NULL), 1.75));
	CHECK(near(value("x = \"p99-ms\" * 2.5e-1", figs, NULL, NULL), 1));
	CHECK(near(value("g % = growth_pct(113.3, 100)", figs, NULL, NULL), 13.3));
	CHECK(near(value("g % = growth_pct(cpu_s, 0.5)", figs, NULL, NULL), 50));

	/* missing, never 0 */
	CHECK(isnan(value("x = cpu_s / recrods", figs, NULL, &why)));
	CHECK_STR(why, "no value of 'recrods'");
	free(why);
	CHECK(isnan(value("x = cpu_s / zero * 1e6", figs, NULL, &why)));
	CHECK_STR(why, "'zero' is 0: a division by zero (position 11)");
	free(why);
	CHECK(isnan(value("x = cpu_s / (records - 250000)", figs, NULL, &why)));
	CHECK_STR(why, "the operand at position 22 is 0: a division by zero (position 11)");
	free(why);
	CHECK(isnan(value("x = 1e300 * 10", figs, NULL, &why)));
	CHECK_STR(why, "the result 1e+301 is not finite or past 1e+300");
	free(why);

	/* the series: a sample a second, 0 to 10 s, of 10 to 20 MiB */
	for (int i = 0; i <= 10; i++) {
		struct ab_sample x = {.ms = (uint64_t)i * 1000, .rss_kb = (uint64_t)(10 + i) * 1024};

		ab_series_add(&s, &x);
	}
	/* 2, 3 and 4 s: 12, 13, 14 MiB */
	CHECK(near(value("w MiB = rss_mean(2s, 4s)", figs, &run, NULL), 13));
	CHECK(near(value("w MiB = rss_mean(2000ms, 4s)", figs, &run, NULL), 13));
	/* exit (10 s) less 3 s: 17, 18, 19, 20 MiB */
	CHECK(near(value("w MiB = rss_median(exit-3s, exit)", figs, &run, NULL), 18.5));
	CHECK(near(value("w MiB = rss_mean(exit - 3s, exit)", figs, &run, NULL), 18.5));
	/* the measured window, 1 to 5 s: 11 to 15 */
	CHECK(near(value("w MiB = rss_median(start, end)", figs, &run, NULL), 13));
	/* the soak's drift: the last 3 s (18.5) over 2-4 s (13): 42.307...% */
	CHECK(near(value("d % = growth_pct(rss_mean(exit-3s, exit), rss_mean(2s, 4s))", figs, &run, NULL),
	    (18.5 / 13 - 1) * 100));
	CHECK(near(value("d % = (rss_mean(end, exit) / rss_mean(0s, 2s) - 1) * 100", figs, &run, NULL),
	    (17.5 / 11 - 1) * 100));
	CHECK(near(value("w MiB = rss_mean(0.1min, 0.15min)", figs, &run, NULL), 17.5));
	CHECK(isnan(value("w MiB = rss_mean(9s, 12s)", figs, &run, &why)));
	CHECK_STR(why, "the series ends at 10.000 s, before 12.000 s (position 9)");
	free(why);
	/* a series that ends within an interval (1 s) of the point reaches it: 9 and 10 s, and 8 */
	CHECK(near(value("w MiB = rss_mean(8s, 11s)", figs, &run, NULL), 19));
	CHECK(isnan(value("w MiB = rss_mean(2s, 3s)", figs, &run, &why)));
	CHECK_STR(why, "2 samples between 2.000 s and 3.000 s (position 9), fewer than 3");
	free(why);
	CHECK(isnan(value("w MiB = rss_mean(2s, 4s)", figs, NULL, &why)));
	CHECK_STR(why, "the run was not sampled");
	free(why);
	{
		struct ab_derived_run nomark = {&s, -1, -1, 10, 1, NULL};
		struct ab_derived_run brief = {NULL, -1, -1, -1, 0, "the run was too short to sample"};

		CHECK(isnan(value("w MiB = rss_mean(start, end)", figs, &brief, &why)));
		CHECK_STR(why, "the run was too short to sample");
		free(why);

		CHECK(isnan(value("w MiB = rss_mean(start, end)", figs, &nomark, &why)));
		CHECK_STR(why, "its record has no time of 'start'");
		free(why);
	}
	ab_series_release(&s);

	/* errors, with their positions in the definition */
	check_error("x = cpu_s / / records", "position 13: expected a number, a metric or '(', not '/'");
	check_error("x = cpu_s records", "position 11: expected an operator (+ - * /), not 'records'");
	check_error("x = (cpu_s + 1", "position 15: expected ')', not the end");
	check_error("x = rss_mean(2s 4s)", "position 17: expected ',', not '4s'");
	check_error("x = rss_mean(2, 4s)", "position 14: a duration wants its unit, ms, s or min ('240s', '4min')");
	check_error("x = rss_mean(4s, 2s)", "position 5: rss_mean: the window's end is not after its start");
	check_error("x = rss_mean(middle, end)", "position 14: a window's point is a duration ('240s') or start, end "
	    "or exit, not 'middle'");
	check_error("x = 240s", "position 5: a number followed by 's': durations are for rss_mean and rss_median; a "
	    "metric name starting with a digit is written in double quotes");
	check_error("x = mean(cpu_s)", "position 5: unknown function 'mean' (growth_pct, rss_mean, rss_median)");
	check_error("x = \"cpu s\"", "position 5: 'cpu s' is no metric name (1 to 64 of A-Z a-z 0-9 _ . -)");
	check_error("cpu_s / records", "position 16: a derived figure is NAME [UNIT] [better=higher|lower] = EXPR: no '='");
	check_error("wall_s = cpu_s * 2", "position 1: 'wall_s' is one of allocbuild's figures: a derived figure takes "
	    "another name");
	check_error("CPU s / M = cpu_s", "position 7: expected '=' after the name, its unit and better=, not '/'");
	check_error("x y better=sideways = 1", "position 12: better= wants higher or lower, not 'sideways'");
	check_error(" = 1", "position 1: a derived figure is NAME [UNIT] [better=higher|lower] = EXPR: no NAME");
	check_error("x = ", "position 5: expected a number, a metric or '(', not the end");
	return unit_done();
}
