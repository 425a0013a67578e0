/*
 * unit tests for provenance/compare's formats: how a value is shown
 * (ab_compare_format_value) for ordinary, huge and non-finite values.
 * (log10 of an infinity once went into an int: signed overflow that UBSan
 * reports; 1e308 printed 309 digits into a 64-byte buffer, cut short.)
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../provenance/compare/compare.h"
#include "unit.h"

static const char *
shown(double v)
{
	static char buf[64];

	ab_compare_format_value(buf, sizeof(buf), v);
	return buf;
}

static void
check_format_value(void)
{
	/* four significant digits, no exponent */
	CHECK_STR(shown(1042.4), "1042");
	CHECK_STR(shown(0.15664), "0.1566");
	CHECK_STR(shown(990), "990.0");
	CHECK_STR(shown(0), "0");
	CHECK_STR(shown(-5), "-5.000");
	CHECK_STR(shown(1e-9), "0.000000");
	CHECK_STR(shown(123456789012345.0), "123456789012345");
	/* no value */
	CHECK_STR(shown(NAN), "-");
	/* infinities: said so, never a number made of whatever the int became */
	CHECK_STR(shown(INFINITY), "inf");
	CHECK_STR(shown(-INFINITY), "-inf");
	/* huge values: four significant digits with an exponent, whole in the buffer */
	CHECK_STR(shown(1e15), "1.000e+15");
	CHECK_STR(shown(1e308), "1.000e+308");
	CHECK_STR(shown(-1.5e308), "-1.500e+308");
	CHECK_STR(shown(DBL_MAX), "1.798e+308");
	/* the smallest values are no trouble either */
	CHECK_STR(shown(DBL_MIN), "0.000000");
	CHECK_STR(shown(-DBL_TRUE_MIN), "-0.000000");
	/* a difference is signed */
	{
		char d[40];

		ab_compare_format_difference(d, sizeof(d), 5);
		CHECK_STR(d, "+5.000");
		ab_compare_format_difference(d, sizeof(d), -0.25);
		CHECK_STR(d, "-0.2500");
		ab_compare_format_difference(d, sizeof(d), 0);
		CHECK_STR(d, "0");
		ab_compare_format_difference(d, sizeof(d), 2e18);
		CHECK_STR(d, "+2.000e+18");
	}
	/* a short buffer is cut, never overrun */
	{
		char small[6];

		ab_compare_format_value(small, sizeof(small), 1e308);
		CHECK_STR(small, "1.000");
	}
}

int
main(void)
{
	check_format_value();
	return unit_done();
}
