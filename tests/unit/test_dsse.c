/*
 * Unit tests of provenance/attest/dsse and provenance/attest/keys: the PAE of the DSSE
 * specification's example and test vectors, base64 in both alphabets and
 * only in canonical form, the envelope parser's refusals, and a
 * known-answer test: the specification's Ed25519 key A (the RFC 8032 test
 * key 1) and payload give exactly the published signature.
 *
 * Where the expected values come from (none from allocbuild's output):
 * - PAE and signatures: github.com/secure-systems-lab/dsse, protocol.md
 *   ("DSSEv1 29 http://example.com/HelloWorld 11 hello world") and
 *   testvectors/vectors.json (vectors single-signature, url-safe-base64,
 *   payload-type-swapped, non-ascii-payload-type, empty-payload, and key B
 *   of threshold-two-distinct-keys);
 * - the keyids: `openssl pkey -pubin -in A.pub.pem -outform DER | sha256sum`,
 *   the same as Python's hashlib.sha256 of 302a300506032b6570032100 || public.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <openssl/evp.h>

#include "unit.h"

#include "../../lib/atomic.h"
#include "../../lib/util.h"
#include "../../provenance/attest/dsse.h"
#include "../../provenance/attest/keys.h"

#define SEED_A "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60"
#define SEED_B "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb"
#define KEYID_A "06e3fd8fda29bb60ab59557de61edb0aecdb231134be30e75b455f8e1b792fa9"
#define KEYID_B "deb2ded39dc26fce0e6085b6fc34bf6b5941913bbfe2ea614113cff9e004c170"
#define STATEMENT "{\"_type\":\"https://in-toto.io/Statement/v1\"}"
#define STATEMENT_B64 "eyJfdHlwZSI6Imh0dHBzOi8vaW4tdG90by5pby9TdGF0ZW1lbnQvdjEifQ=="
#define SIG_A "2WAfaHm5jluo0w+0rk8uVkluELJYWjSmU9x7EUzx+AyteDGJ4/nqyJXfmAUVFIAoQafWm7AxBZNw5M9ixNHiCA=="
#define SIG_B "c1+67/aT0yqEpwx8PsVY3MLHsj9D0CZ014/Fv/QlG59P+9CobUZ7xECJ/V3USG0Ob9CiE5LjReEZUzNF2l7eBw=="

static char *tmp;

static int
unhex(unsigned char *out, const char *hex)
{
	size_t n = strlen(hex) / 2;

	for (size_t i = 0; i < n; i++) {
		unsigned v;

		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -1;
		out[i] = (unsigned char)v;
	}
	return (int)n;
}

static char *
hex_of(const void *p, size_t n)
{
	char *s = ab_malloc(2 * n + 1);

	for (size_t i = 0; i < n; i++)
		snprintf(s + 2 * i, 3, "%02x", ((const unsigned char *)p)[i]);
	s[2 * n] = '\0';
	return s;
}

/* an Ed25519 private key PEM (PKCS#8) from its 32-byte seed, written to tmp/name */
static char *
ed25519_pem(const char *name, const char *seed)
{
	unsigned char der[48];
	struct ab_buf pem = {0}, b64 = {0};
	char *path = ab_path_join(tmp, name);

	unhex(der, "302e020100300506032b657004220420");
	unhex(der + 16, seed);
	ab_dsse_b64_encode(&b64, der, sizeof(der));
	ab_buf_printf(&pem, "-----BEGIN PRIVATE KEY-----\n%s\n-----END PRIVATE KEY-----\n", b64.s);
	CHECK(ab_write_file_atomic(path, pem.s, pem.len) == 0);
	/* as a signer keeps it: a private key others can read is refused (provenance/attest/keys.h) */
	CHECK(chmod(path, 0600) == 0);
	ab_buf_free(&pem);
	ab_buf_free(&b64);
	return path;
}

static void
check_pae(const char *type, const void *body, size_t len, const char *want_hex)
{
	struct ab_buf b = {0};
	char *hex;

	ab_dsse_pae(&b, type, body, len);
	hex = hex_of(b.s, b.len);
	CHECK_STR(hex, want_hex);
	free(hex);
	ab_buf_free(&b);
}

static void
test_pae(void)
{
	struct ab_buf b = {0};

	ab_dsse_pae(&b, "http://example.com/HelloWorld", "hello world", 11);
	CHECK_STR(b.s, "DSSEv1 29 http://example.com/HelloWorld 11 hello world");
	ab_buf_free(&b);
	check_pae(AB_DSSE_INTOTO, STATEMENT, strlen(STATEMENT),
	    "445353457631203238206170706c69636174696f6e2f766e642e696e2d746f746f2b6a736f6e203433207b225f74797065223a2268"
	    "747470733a2f2f696e2d746f746f2e696f2f53746174656d656e742f7631227d");
	check_pae(AB_DSSE_INTOTO, "", 0, "445353457631203238206170706c69636174696f6e2f766e642e696e2d746f746f2b6a736f6e203020");
	/* LEN counts bytes: 29 for the 28 characters of a type with an a-umlaut */
	check_pae("application/vnd.ex\xc3\xa4mple+json", STATEMENT, strlen(STATEMENT),
	    "445353457631203239206170706c69636174696f6e2f766e642e6578c3a46d706c652b6a736f6e203433207b225f74797065223a2268"
	    "747470733a2f2f696e2d746f746f2e696f2f53746174656d656e742f7631227d");
	check_pae("", STATEMENT, strlen(STATEMENT),
	    "445353457631203020203433207b225f74797065223a2268747470733a2f2f696e2d746f746f2e696f2f53746174656d656e742f76"
	    "31227d");
	{
		unsigned char body[5] = {0xfb, 0xff, 0xbf, 0x3e, 0x3f};

		check_pae(AB_DSSE_INTOTO, body, sizeof(body),
		    "445353457631203238206170706c69636174696f6e2f766e642e696e2d746f746f2b6a736f6e203520fbffbf3e3f");
	}
}

static int
decodes(const char *s, const char *want_hex)
{
	unsigned char *out;
	size_t n;
	char *hex;
	int ok;

	if (ab_dsse_b64_decode(&out, &n, s, strlen(s)) < 0)
		return 0;
	hex = hex_of(out, n);
	ok = !strcmp(hex, want_hex);
	free(hex);
	free(out);
	return ok;
}

static void
test_base64(void)
{
	struct ab_buf b = {0};
	unsigned char *out = NULL;
	size_t n;

	ab_dsse_b64_encode(&b, "", 0);
	CHECK_STR(b.s, "");
	ab_dsse_b64_encode(&b, "hello world", 11);
	CHECK_STR(b.s, "aGVsbG8gd29ybGQ=");
	ab_buf_free(&b);
	CHECK(decodes("", ""));
	CHECK(decodes("aGVsbG8gd29ybGQ=", "68656c6c6f20776f726c64"));
	CHECK(decodes("aGVsbG8gd29ybGQ", "68656c6c6f20776f726c64"));     /* padding may be left out */
	CHECK(decodes("+/+/Pj8=", "fbffbf3e3f"));
	CHECK(decodes("-_-_Pj8=", "fbffbf3e3f"));                        /* URL-safe */
	CHECK(decodes("-_-_Pj8", "fbffbf3e3f"));
	CHECK(!decodes("+_-/Pj8=", "fbffbf3e3f"));                       /* two alphabets at once */
	CHECK(!decodes("aGVsbG8gd29ybGR=", "68656c6c6f20776f726c64"));   /* stray bits: not canonical */
	CHECK(!decodes("aGVsbG8 gd29ybGQ=", "68656c6c6f20776f726c64"));  /* white space */
	CHECK(!decodes("aGVs=bG8", "68656c"));
	CHECK(!decodes("aGVsb", ""));                                    /* 5 characters */
	CHECK(!decodes("aGVsbG8gd29ybGQ===", ""));
	CHECK(ab_dsse_b64_decode(&out, &n, "a*==", 4) < 0 && !out);
}

/* the first signature of a vector's envelope line checked with k */
static int
vector_check(const char *line, const struct ab_key *k)
{
	struct ab_dsse e;
	struct ab_buf why = {0};
	int rc;

	rc = ab_dsse_parse(&e, line, strlen(line), &why);
	if (rc == 0)
		rc = ab_dsse_check(&e, &e.sigs[0], k);
	if (why.len)
		fprintf(stderr, "vector: %s\n", why.s);
	ab_dsse_release(&e);
	ab_buf_free(&why);
	return rc;
}

/* ab_dsse_verify_keys on a line signed by a: which keys verify it, and why not */
static void
verify_keys_cases(struct ab_key *a, struct ab_key *b, const char *pb)
{
	struct ab_key *both[] = {a, b}, *only_b[] = {b};
	struct ab_buf line = {0}, why = {0};
	struct ab_strv reasons = {0};
	struct ab_dsse e;
	char accepted[2] = {0}, *want;

	CHECK(ab_dsse_sign(&line, AB_DSSE_INTOTO, STATEMENT, strlen(STATEMENT), &a, 1) == 0);
	CHECK(ab_dsse_parse(&e, line.s, line.len, &why) == 0);
	CHECK(ab_dsse_verify_keys(&e, both, 2, 0, accepted, &reasons) == 0);
	CHECK(accepted[0] == 1 && accepted[1] == 0 && reasons.n == 0);
	/* with require_all, b's signature is missing */
	CHECK(ab_dsse_verify_keys(&e, both, 2, 1, NULL, &reasons) == AB_ECHECK);
	want = ab_sprintf("no valid signature by '%s' (keyid " KEYID_B "), and --require-all asks for one", pb);
	CHECK(reasons.n == 1 && !strcmp(reasons.v[0], want));
	free(want);
	ab_strv_free(&reasons);
	/* b alone: a's keyid is none of the keys given */
	CHECK(ab_dsse_verify_keys(&e, only_b, 1, 0, NULL, &reasons) == AB_ECHECK);
	CHECK(reasons.n == 1 && !strcmp(reasons.v[0], "unknown keyid " KEYID_A ": no --key has this id"));
	ab_strv_free(&reasons);
	ab_dsse_release(&e);
	ab_buf_free(&line);
	ab_buf_free(&why);
}

static void
test_known_answer(void)
{
	char *pa = ed25519_pem("a.pem", SEED_A), *pb = ed25519_pem("b.pem", SEED_B);
	struct ab_key *a = NULL, *b = NULL;
	struct ab_buf line = {0};

	CHECK(ab_key_load(&a, pa, AB_KEY_PRIVATE) == 0);
	CHECK(ab_key_load(&b, pb, AB_KEY_PRIVATE) == 0);
	if (!a || !b)
		goto done;
	CHECK_STR(ab_key_id(a), KEYID_A);
	CHECK_STR(ab_key_id(b), KEYID_B);
	CHECK_STR(ab_key_algorithm(a), AB_KEY_ED25519);
	/* the exact envelope: the vector's payload and signature, allocbuild's keyid */
	CHECK(ab_dsse_sign(&line, AB_DSSE_INTOTO, STATEMENT, strlen(STATEMENT), &a, 1) == 0);
	CHECK_STR(line.s, "{\"payload\":\"" STATEMENT_B64 "\",\"payloadType\":\"application/vnd.in-toto+json\","
	    "\"signatures\":[{\"keyid\":\"" KEYID_A "\",\"sig\":\"" SIG_A "\"}]}");
	ab_buf_clear(&line);
	CHECK(ab_dsse_sign(&line, AB_DSSE_INTOTO, STATEMENT, strlen(STATEMENT), &b, 1) == 0);
	CHECK(strstr(line.s, "\"sig\":\"" SIG_B "\"") != NULL);
	verify_keys_cases(a, b, pb);

	/* the vectors, verified (keyid "A" is only a hint: the signature decides) */
	CHECK(vector_check("{\"payload\":\"" STATEMENT_B64 "\",\"payloadType\":\"application/vnd.in-toto+json\","
	    "\"signatures\":[{\"sig\":\"" SIG_A "\",\"keyid\":\"A\"}]}", a) == 0);
	CHECK(vector_check("{\"payload\":\"" STATEMENT_B64 "\",\"payloadType\":\"application/vnd.in-toto+json\","
	    "\"signatures\":[{\"sig\":\"" SIG_A "\",\"keyid\":\"A\"}]}", b) == AB_ECHECK);
	CHECK(vector_check("{\"payload\":\"-_-_Pj8=\",\"payloadType\":\"application/vnd.in-toto+json\",\"signatures\":"
	    "[{\"sig\":\"P-_KHICeR7tI6S_YyejJTRtrXhcQyQ2LYPaL8h90KjC9qN8HU_svOQ6TuDOT1HIrsGW886DbWNWcCmX5twLrAw==\","
	    "\"keyid\":\"A\"}]}", a) == 0);
	CHECK(vector_check("{\"payload\":\"" STATEMENT_B64 "\",\"payloadType\":\"application/vnd.example.other+json\","
	    "\"signatures\":[{\"sig\":\"" SIG_A "\",\"keyid\":\"A\"}]}", a) == AB_ECHECK);
	CHECK(vector_check("{\"payload\":\"" STATEMENT_B64 "\",\"payloadType\":\"application/vnd.ex\xc3\xa4mple+json\","
	    "\"signatures\":[{\"sig\":\"xmSk/ug66ysT7ayhkCIjhAq42zgZXSsEWuzUaNL7w2eGAdF/NU6/fRXPtmfN+5DNSAs5/i2lUnHjbbjPsu0tAw==\","
	    "\"keyid\":\"A\"}]}", a) == 0);
	CHECK(vector_check("{\"payload\":\"\",\"payloadType\":\"application/vnd.in-toto+json\",\"signatures\":"
	    "[{\"sig\":\"gSggCAaTLTYyRH6FIDBem6meyIynsYy8RTHVzwx9tnTb7Bg/1jMWnuVgI/gffqmbsC2VX5/jHfkkDqsj7CDbDg==\","
	    "\"keyid\":\"A\"}]}", a) == 0);
	CHECK(vector_check("{\"payload\":\"" STATEMENT_B64 "\",\"payloadType\":\"\",\"signatures\":"
	    "[{\"sig\":\"iC3q/+3Rm0+lpAJRueDmDh15PnwCfxKmS0NAfKsbv+zgulXQC/WM9trc+j1XEqlwDIg/vf/uNfebeD6sxInrDg==\","
	    "\"keyid\":\"A\"}]}", a) == 0);
done:
	ab_key_free(a);
	ab_key_free(b);
	ab_buf_free(&line);
	free(pa);
	free(pb);
}

static const char *
parse_error(const char *line)
{
	static char why_s[200];
	struct ab_dsse e;
	struct ab_buf why = {0};

	if (ab_dsse_parse(&e, line, strlen(line), &why) == 0)
		snprintf(why_s, sizeof(why_s), "(parsed)");
	else
		snprintf(why_s, sizeof(why_s), "%s", why.s);
	ab_dsse_release(&e);
	ab_buf_free(&why);
	return why_s;
}

static void
test_parse(void)
{
	CHECK_STR(parse_error("{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"\"}]}"), "(parsed)");
	CHECK_STR(parse_error("[]"), "not a JSON object");
	CHECK_STR(parse_error("{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"\"}]} x"),
	    "not a JSON object");
	CHECK_STR(parse_error("{\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"\"}]}"), "no payload");
	CHECK_STR(parse_error("{\"payload\":\"\",\"signatures\":[{\"sig\":\"\"}]}"), "no payloadType");
	CHECK_STR(parse_error("{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[]}"), "no signatures");
	CHECK_STR(parse_error("{\"payload\":\"\",\"payloadType\":\"t\"}"), "no signatures");
	CHECK_STR(parse_error("{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"keyid\":\"k\"}]}"),
	    "signatures[0] has no sig");
	CHECK_STR(parse_error("{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"\",\"keyid\":1}]}"),
	    "signatures[0].keyid is not a string");
	CHECK_STR(parse_error("{\"payload\":\"a\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"\"}]}"),
	    "payload is not base64");
	CHECK_STR(parse_error("{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"!!!!\"}]}"),
	    "signatures[0].sig is not base64");
	/* parsers disagree on which of two equal names counts: refused */
	CHECK_STR(parse_error("{\"payload\":\"\",\"payload\":\"YQ==\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"\"}]}"),
	    "'payload' given twice");
	CHECK_STR(parse_error("{\"payload\":\"\",\"payloadType\":\"t\",\"signatures\":[{\"sig\":\"\",\"sig\":\"\"}]}"),
	    "signatures[0] has 'sig' twice");
}

int
main(void)
{
	tmp = unit_tmpdir("dsse");
	test_pae();
	test_base64();
	test_known_answer();
	test_parse();
	ab_rm_rf(tmp);
	free(tmp);
	return unit_done();
}
