/*
 * unit tests for provenance/compare's formats: how a value is shown
 * (ab_compare_format_value) for ordinary, huge and non-finite values
 * (log10 of an infinity once went into an int: signed overflow that UBSan
 * reports; 1e308 printed 309 digits into a 64-byte buffer, cut short),
 * and the page's escaping (provenance/compare/pagetext.h), one function a
 * context, on what a driver may print.
 */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../provenance/compare/compare.h"
#include "../../provenance/compare/pagetext.h"
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

typedef void put_fn(struct ab_buf *b, const char *s);

static void
check_put(put_fn *put, const char *in, const char *want)
{
	struct ab_buf b = {0};

	put(&b, in);
	CHECK_STR(b.s ? b.s : "", want);
	ab_buf_free(&b);
}

static void
check_pagetext(void)
{
	/* Markdown text: no HTML, no link, no emphasis, no new cell or line */
	check_put(ab_page_text, "<script>alert(1)</script>", "&lt;script&gt;alert(1)&lt;/script&gt;");
	check_put(ab_page_text, "[x](https://evil.invalid/)", "\\[x\\](https\\://evil.invalid/)");
	check_put(ab_page_text, "![i](x) a|b *c* _d_ ~e~ $f$ `g` &amp;", "!\\[i\\](x) a\\|b \\*c\\* \\_d\\_ \\~e\\~ \\$f\\$ \\`g\\` &amp;amp;");
	check_put(ab_page_text, "www.evil.invalid and WWW.x", "www\\.evil.invalid and WWW\\.x");
	check_put(ab_page_text, "a\nb\rc\x1b[31m", "a b c\\\\x1b\\[31m");
	check_put(ab_page_text, "ops/s 12:30", "ops/s 12:30");
	/* a code span: one backtick more than the longest run, pipes escaped for a table */
	check_put(ab_page_code, "stock53", "`stock53`");
	check_put(ab_page_code, "a`b", "`` a`b ``");
	check_put(ab_page_code, "a``|b", "``` a``\\|b ```");
	check_put(ab_page_code, "<img src=x>", "`<img src=x>`");
	/* HTML and XML text */
	check_put(ab_page_html, "<b a=\"1\" c='2'>&", "&lt;b a=&quot;1&quot; c=&#39;2&#39;&gt;&amp;");
	/* Mermaid strings: entity codes for all but plain text */
	check_put(ab_page_mermaid, "wall_s, s", "wall_s, s");
	check_put(ab_page_mermaid, "rss_gib_s, GiB*s (x 1e15)", "rss_gib_s, GiB*s (x 1e15)");
	check_put(ab_page_mermaid, "a\"];x", "a#34;#93;#59;x");
	check_put(ab_page_mermaid, "%%{init:{}}%%", "#37;#37;#123;init:#123;#125;#125;#37;#37;");
	check_put(ab_page_mermaid, "#quot;<b>`", "#35;quot#59;#60;b#62;#96;");
	check_put(ab_page_mermaid, "µs", "µs");
}

int
main(void)
{
	check_format_value();
	check_pagetext();
	return unit_done();
}
