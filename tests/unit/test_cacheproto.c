/*
 * lib/cacheproto: what a sandboxed ccache may say to its remote storage.
 * The URL each side sees (credentials with the relay only), the relay's
 * AUTH, and the filter: what ccache sends passes byte for byte whatever
 * the pieces it arrives in (one byte at a time too), with the remote's
 * Host and Authorization in place of the client's; anything else ends
 * the connection with a reason.
 */
#include <stdlib.h>
#include <string.h>

#include "../../lib/cacheproto.h"
#include "../../lib/util.h"
#include "unit.h"

static void
parse(struct ab_cacheproto_remote *r, struct ab_buf *inside, const char *url)
{
	ab_buf_clear(inside);
	CHECK(ab_cacheproto_remote_parse(r, inside, url, strlen(url), "127.0.0.1:40000") == 0);
}

static void
test_parse(void)
{
	struct ab_cacheproto_remote r;
	struct ab_buf in = {0}, auth = {0};

	parse(&r, &in, "redis://alice:p%40ss@cache.lab:6380/2|connect-timeout=50");
	CHECK_STR(in.s, "redis://127.0.0.1:40000/2|connect-timeout=50");
	CHECK(r.kind == AB_CACHEPROTO_REDIS);
	CHECK_STR(r.host, "cache.lab");
	CHECK_STR(r.port, "6380");
	CHECK_STR(r.user, "alice");
	CHECK_STR(r.password, "p@ss");
	CHECK(ab_cacheproto_redis_auth(&auth, &r) == 1);
	CHECK_STR(auth.s, "*3\r\n$4\r\nAUTH\r\n$5\r\nalice\r\n$4\r\np@ss\r\n");
	ab_cacheproto_remote_release(&r);

	parse(&r, &in, "redis://:PW@h");
	CHECK_STR(in.s, "redis://127.0.0.1:40000");
	CHECK(r.user == NULL);
	CHECK_STR(r.password, "PW");
	CHECK_STR(r.port, "6379");
	ab_buf_clear(&auth);
	CHECK(ab_cacheproto_redis_auth(&auth, &r) == 1);
	CHECK_STR(auth.s, "*2\r\n$4\r\nAUTH\r\n$2\r\nPW\r\n");
	ab_cacheproto_remote_release(&r);

	parse(&r, &in, "redis://h:1");
	ab_buf_clear(&auth);
	CHECK(ab_cacheproto_redis_auth(&auth, &r) == 0 && auth.len == 0);
	ab_cacheproto_remote_release(&r);

	parse(&r, &in, "http://u:p@[::1]:8080/c?token=T|bearer-token=B|layout=subdirs|keep-alive=true");
	CHECK_STR(in.s, "http://127.0.0.1:40000/c|layout=subdirs|keep-alive=true");
	CHECK(r.kind == AB_CACHEPROTO_HTTP);
	CHECK_STR(r.host, "::1");
	CHECK_STR(r.port, "8080");
	CHECK_STR(r.http_host, "[::1]:8080");
	CHECK_STR(r.http_auth, "Bearer B");
	CHECK_STR(r.http_prefix, "/c/");
	ab_cacheproto_remote_release(&r);

	parse(&r, &in, "http://u:p@h");
	CHECK_STR(in.s, "http://127.0.0.1:40000");
	CHECK_STR(r.http_auth, "Basic dTpw");
	CHECK_STR(r.http_prefix, "/");
	ab_cacheproto_remote_release(&r);

	CHECK(ab_cacheproto_remote_parse(&r, &in, "file:/x", 7, "a") == -1);
	ab_buf_free(&in);
	ab_buf_free(&auth);
}

/* what the filter passes of text fed in pieces of step bytes; NULL when it refused (why in *why) */
static char *
feed(const struct ab_cacheproto_remote *r, const char *text, size_t step, char *why, size_t whylen)
{
	struct ab_cacheproto *f = ab_cacheproto_new(r);
	struct ab_buf out = {0};
	size_t n = strlen(text);
	char *res = NULL;

	for (size_t at = 0; at < n; at += step)
		if (ab_cacheproto_feed(f, text + at, at + step < n ? step : n - at, &out) < 0) {
			snprintf(why, whylen, "%s", ab_cacheproto_why(f));
			goto done;
		}
	res = out.s ? ab_buf_detach(&out) : ab_strdup("");
done:
	ab_buf_free(&out);
	ab_cacheproto_free(f);
	return res;
}

static void
test_redis(void)
{
	struct ab_cacheproto_remote r;
	struct ab_buf in = {0};
	char why[160];
	static const char ok[] = "*2\r\n$6\r\nSELECT\r\n$1\r\n2\r\n"
	    "*2\r\n$3\r\nGET\r\n$15\r\nccache:0a1b2c3d\r\n"
	    "*3\r\n$3\r\nset\r\n$15\r\nccache:0a1b2c3d\r\n$5\r\nab\r\nc\r\n"
	    "*2\r\n$6\r\nEXISTS\r\n$10\r\nccache:xyz\r\n"
	    "*2\r\n$3\r\nDEL\r\n$10\r\nccache:xyz\r\n";
	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"*3\r\n$6\r\nCONFIG\r\n$3\r\nGET\r\n$1\r\n*\r\n", "a Redis command 'CONFIG' that ccache does not send"},
	    {"*2\r\n$4\r\nAUTH\r\n$1\r\nx\r\n", "a Redis command 'AUTH' that ccache does not send"},
	    {"*3\r\n$3\r\nSET\r\n$4\r\nevil\r\n$1\r\n1\r\n", "a Redis key 'evil' that is not ccache's"},
	    {"*2\r\n$3\r\nGET\r\n$8\r\nccache:X\r\n", "a Redis key 'ccache:X' that is not ccache's"},
	    {"*3\r\n$3\r\nGET\r\n$8\r\nccache:x\r\n$1\r\n1\r\n", "a Redis command 'GET' that ccache does not send"},
	    {"*2\r\n$6\r\nSELECT\r\n$2\r\n1a\r\n", "a Redis database '1a' that is not a number"},
	    {"PING\r\n", "a Redis request 'PING' that is not an array of 2 or 3 words"},
	    {"*9\r\n", "a Redis request '*9' that is not an array of 2 or 3 words"},
	    {"*2\r\n$99\r\n", "a Redis word length '$99' out of bounds"},
	};

	parse(&r, &in, "redis://:PW@h:1/2");
	for (size_t step = 1; step <= sizeof(ok); step += 7) {
		char *got = feed(&r, ok, step, why, sizeof(why));

		CHECK_STR(got, ok);
		free(got);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *got = feed(&r, bad[i].text, 3, why, sizeof(why));

		CHECK(got == NULL);
		if (!got)
			CHECK_STR(why, bad[i].why);
		free(got);
	}
	ab_cacheproto_remote_release(&r);
	ab_buf_free(&in);
}

static void
test_http(void)
{
	struct ab_cacheproto_remote r;
	struct ab_buf in = {0};
	char why[160];
	static const char ok[] = "PUT /c/ab/cdef HTTP/1.1\r\nHost: 127.0.0.1:40000\r\nAuthorization: Basic Z3Vlc3M=\r\n"
	    "User-Agent: ccache/4.7.5\r\nContent-Length: 5\r\n\r\nhello"
	    "GET /c/ab/cdef HTTP/1.1\r\nHost: 127.0.0.1:40000\r\n\r\n";
	static const char want[] = "PUT /c/ab/cdef HTTP/1.1\r\nHost: h:8080\r\nAuthorization: Basic dTpw\r\n"
	    "User-Agent: ccache/4.7.5\r\nContent-Length: 5\r\n\r\nhello"
	    "GET /c/ab/cdef HTTP/1.1\r\nHost: h:8080\r\nAuthorization: Basic dTpw\r\n\r\n";
	static const struct {
		const char *text, *why;
	} bad[] = {
	    {"POST /c/x HTTP/1.1\r\n\r\n", "an HTTP request 'POST /c/x HTTP/1.1' that ccache does not send"},
	    {"GET /c/../x HTTP/1.1\r\n\r\n", "an HTTP request line 'GET /c/../x HTTP/1.1' that is not ccache's"},
	    {"GET /c/x?a=b HTTP/1.1\r\n\r\n", "an HTTP request line 'GET /c/x?a=b HTTP/1.1' that is not ccache's"},
	    {"GET /other/x HTTP/1.1\r\n\r\n", "an HTTP request 'GET /other/x HTTP/1.1' outside the remote's path"},
	    {"PUT /c/x HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n",
		"an HTTP header 'Transfer-Encoding: chunked' (ccache sends a Content-Length)"},
	    {"PUT /c/x HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", "an HTTP header 'Content-Length: 1x' out of bounds"},
	};

	parse(&r, &in, "http://u:p@h:8080/c/");
	for (size_t step = 1; step <= sizeof(ok); step += 5) {
		char *got = feed(&r, ok, step, why, sizeof(why));

		CHECK_STR(got, want);
		free(got);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *got = feed(&r, bad[i].text, 2, why, sizeof(why));

		CHECK(got == NULL);
		if (!got)
			CHECK_STR(why, bad[i].why);
		free(got);
	}
	ab_cacheproto_remote_release(&r);
	ab_buf_free(&in);
}

int
main(void)
{
	test_parse();
	test_redis();
	test_http();
	return unit_done();
}
