/* unit tests for lib/hash's SHA256SUMS lines: ab_hash_line and ab_hash_line_parse, as GNU sha256sum writes and reads them */
#include <stdlib.h>
#include <string.h>

#include "../../lib/hash.h"
#include "../../lib/util.h"
#include "unit.h"

#define H "2e7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1a25aefc6"

/* the line of name, and its parse back */
static void
round_trip(const char *name, const char *want_line)
{
	struct ab_buf b = {0};
	char *hex, *got;

	ab_hash_line(&b, H, name);
	CHECK_STR(b.s, want_line);
	CHECK(b.len > 0 && b.s[b.len - 1] == '\n');
	b.s[--b.len] = '\0';
	CHECK(ab_hash_line_parse(b.s, b.len, &hex, &got) == 0);
	CHECK_STR(hex, H);
	CHECK_STR(got, name);
	ab_buf_free(&b);
}

static int
parses(const char *text)
{
	char *line = ab_strdup(text), *hex, *name;
	int rc = ab_hash_line_parse(line, strlen(line), &hex, &name);

	free(line);
	return rc;
}

int
main(void)
{
	/* as coreutils 9.1's sha256sum writes them (its bytes compared in t4066) */
	round_trip("lib/libjemalloc_pic.a", H "  lib/libjemalloc_pic.a\n");
	round_trip("lib/n\nl.a", "\\" H "  lib/n\\nl.a\n");
	round_trip("a\\b", "\\" H "  a\\\\b\n");
	round_trip("c\rr", "\\" H "  c\\rr\n");
	round_trip("\\\n\\", "\\" H "  \\\\\\n\\\\\n");
	round_trip("with  two spaces", H "  with  two spaces\n");
	/* a plain line is taken as it is: a backslash in it is the name's */
	{
		char line[] = H "  a\\nb", *hex, *name;

		CHECK(ab_hash_line_parse(line, strlen(line), &hex, &name) == 0);
		CHECK_STR(name, "a\\nb");
	}
	/* what sha256sum does not write */
	CHECK(parses("") < 0);
	CHECK(parses(H) < 0);
	CHECK(parses(H "  ") < 0);
	CHECK(parses(H " x") < 0);
	CHECK(parses(H "\tx") < 0);
	CHECK(parses("2E7D2C03A9507AE265ECF5B5356885A53393A2029D241394997265A1A25AEFC6  x") < 0);
	CHECK(parses("zz7d2c03a9507ae265ecf5b5356885a53393a2029d241394997265a1a25aefc6  x") < 0);
	CHECK(parses("\\" H "  a\\tb") < 0);
	CHECK(parses("\\" H "  a\\") < 0);
	CHECK(parses("\\\\" H "  a") < 0);
	return unit_done();
}
