/*
 * Unit tests of provenance/attest/canonjson: the canonical JSON in-toto 1.3.1
 * signs. Each expected string is what securesystemslib 0.26 (Debian's
 * python3-securesystemslib, the library in-toto-verify checks link
 * signatures with) gives for the same input:
 *   /usr/bin/python3 -c 'import json, sys; from securesystemslib.formats
 *   import encode_canonical; sys.stdout.buffer.write(
 *   encode_canonical(json.loads(INPUT)).encode("utf-8"))'
 * written here with C escapes for the bytes outside printable ASCII: key
 * order (upper case, '_', a prefix before its extensions, non-ASCII after
 * ASCII by code point), only '\' and '"' escaped (control characters, DEL
 * and UTF-8 as they are), nesting, integers up to 2^53 and -0, and a
 * link's members. And the refusals: a number with a fraction, one beyond
 * 2^53, two members of one name (Python keeps the last).
 */
#include <cjson/cJSON.h>

#include "unit.h"

#include "../../lib/util.h"
#include "../../provenance/attest/canonjson.h"

static const struct {
	const char *in, *want;
} cases[] = {
	{"{\"b\":1,\"a\":[true,false,null],\"A\":\"x\"}",
	    "{\"A\":\"x\",\"a\":[true,false,null],\"b\":1}"},
	{"\"quote \\\" backslash \\\\ slash \\/ nl \\n tab \\t cr \\r bell \\u0007 del \\u007f\"",
	    "\"quote \\\" backslash \\\\ slash / nl \012 tab \011 cr \015 bell \007 del \177\""},
	{"{\"\\u00e9\":\"caf\\u00e9\",\"e\":\"\\u65e5\\u672c\",\"z\\u00ff\":\"\\ud83d\\ude00\",\"zy\":0}",
	    "{\"e\":\"\346\227\245\346\234\254\",\"zy\":0,\"z\303\277\":\"\360\237\230\200\",\"\303\251\":\"caf\303\251\"}"},
	{"{\"nested\":{\"b\":{\"d\":[1,{\"y\":2,\"x\":[]}],\"c\":{}},\"a\":-42},\"\":\"\"}",
	    "{\"\":\"\",\"nested\":{\"a\":-42,\"b\":{\"c\":{},\"d\":[1,{\"x\":[],\"y\":2}]}}}"},
	{"[9007199254740992,-9007199254740992,0,-0,1000]",
	    "[9007199254740992,-9007199254740992,0,0,1000]"},
	{"{\"aa\":1,\"a\":2,\"ab\":3,\"a \":4,\"B\":5,\"_type\":\"link\",\"\\u007f\":6}",
	    "{\"B\":5,\"_type\":\"link\",\"a\":2,\"a \":4,\"aa\":1,\"ab\":3,\"\177\":6}"},
	{"{\"signed\":{\"_type\":\"link\",\"name\":\"build-x\",\"materials\":{\"src/a.c\":{\"sha256\":\"00ff\"}},\"command\":[\"make\",\"-j2\"],\"byproducts\":{\"return-value\":0},\"environment\":{}}}",
	    "{\"signed\":{\"_type\":\"link\",\"byproducts\":{\"return-value\":0},\"command\":[\"make\",\"-j2\"],\"environment\":{},\"materials\":{\"src/a.c\":{\"sha256\":\"00ff\"}},\"name\":\"build-x\"}}"},
};

/* the canonical form of the JSON text in, or NULL when it is refused */
static char *
canon(const char *in)
{
	struct ab_buf b = {0};
	cJSON *v = cJSON_Parse(in);
	char *s = NULL;

	CHECK(v != NULL);
	if (v && ab_canonjson(&b, v) == 0)
		s = ab_buf_detach(&b);
	ab_buf_free(&b);
	cJSON_Delete(v);
	return s;
}

static void
refused(const char *in, const char *msg)
{
	struct unit_catch c;
	char *s, *err;

	unit_catch_begin(&c);
	s = canon(in);
	err = unit_catch_end(&c);
	CHECK(s == NULL);
	CHECK(err && strstr(err, msg));
	if (!err || !strstr(err, msg))
		fprintf(stderr, "stderr: %s\n", err ? err : "(none)");
	free(err);
	free(s);
}

int
main(void)
{
	for (size_t i = 0; i < AB_NELEM(cases); i++) {
		char *s = canon(cases[i].in);

		CHECK_STR(s, cases[i].want);
		free(s);
	}
	refused("{\"a\":[1.5]}", "allocbuild: cannot encode a number as canonical JSON: 1.5 is not an integer it holds");
	refused("{\"n\":9007199254740994}", "cannot encode 'n' as canonical JSON: 9007199254740994 is not an integer");
	refused("{\"x\":{\"a\":1,\"a\":2}}", "cannot encode an object as canonical JSON: two members named 'a'");
	return unit_done();
}
