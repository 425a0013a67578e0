/*
 * lib/redact: the one rule for secrets in what is printed or recorded:
 * URLs (userinfo, secret query parameters, ccache attributes, every URL
 * of a list), environment entries and settings, argv.
 */
#include <stdlib.h>
#include <string.h>

#include "../../lib/atomic.h"
#include "../../lib/redact.h"
#include "../../lib/util.h"
#include "unit.h"

static void
test_urls(void)
{
	static const char *const cases[][2] = {
	    {"https://example.org/a.tar.gz", "https://example.org/a.tar.gz"},
	    {"https://alice:pw@example.org/a", "https://***@example.org/a"},
	    {"https://TOKEN@github.com/x.git", "https://***@github.com/x.git"},
	    {"http://h/a?token=T&v=1", "http://h/a?token=***&v=1"},
	    {"http://h/a?access_token=T#frag", "http://h/a?access_token=***#frag"},
	    {"http://h/a?Password=T", "http://h/a?Password=***"},
	    {"http://h/c|bearer-token=T|layout=subdirs", "http://h/c|bearer-token=***|layout=subdirs"},
	    {"redis://:P1@h1:6379 http://u:P2@h2/c", "redis://***@h1:6379 http://***@h2/c"},
	    {"redis+unix:/run/r.sock|password=P", "redis+unix:/run/r.sock|password=***"},
	    {"from=https://u:p@h/ to", "from=https://***@h/ to"},
	    {"no url here", "no url here"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = ab_url_redact(cases[i][0]);

		CHECK_STR(s, cases[i][1]);
		free(s);
	}
}

static void
test_env(void)
{
	static const char *const cases[][2] = {
	    {"CCACHE_REMOTE_STORAGE=redis://:P@h|bearer-token=T", "CCACHE_REMOTE_STORAGE=redis://***@h|bearer-token=***"},
	    {"GITHUB_TOKEN=abc", "GITHUB_TOKEN=***"},
	    {"DB_PASS=abc", "DB_PASS=***"},
	    {"HTTP_AUTH=abc", "HTTP_AUTH=***"},
	    {"AUTHOR=Jane", "AUTHOR=Jane"},
	    {"PATH=/usr/bin:/bin", "PATH=/usr/bin:/bin"},
	    {"MALLOC_CONF=lg_extent_max_active_fit:30", "MALLOC_CONF=lg_extent_max_active_fit:30"},
	    {"URL=http://u:p@h/", "URL=http://***@h/"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *s = ab_redact_env(cases[i][0]);

		CHECK_STR(s, cases[i][1]);
		free(s);
	}
}

static void
test_argv(void)
{
	char *argv[] = {"./driver", "--token", "T1", "--api-key=K2", "--url", "http://u:P3@h/x?sig=S4",
	    "-DCMAKE_BUILD_TYPE=Release", "--label", "stock", NULL};
	static const char *const want[] = {"./driver", "--token", "***", "--api-key=***", "--url",
	    "http://***@h/x?sig=***", "-DCMAKE_BUILD_TYPE=Release", "--label", "stock"};
	struct ab_strv v = {0};
	char *q;

	ab_redact_argv(&v, argv);
	CHECK(v.n == sizeof(want) / sizeof(want[0]));
	for (size_t i = 0; i < v.n && i < sizeof(want) / sizeof(want[0]); i++)
		CHECK_STR(v.v[i], want[i]);
	ab_strv_free(&v);
	q = ab_argv_shown(argv);
	CHECK(!strstr(q, "T1") && !strstr(q, "K2") && !strstr(q, "P3") && !strstr(q, "S4"));
	free(q);
}

/* the first line holding a credential: a password, a token with a value; not a user alone, nor a value masked */
static void
test_find(void)
{
	static const struct {
		const char *text;
		unsigned long line;
	} cases[] = {
	    {"a\nb\nfetching https://u:pw@h/x\n", 3},
	    {"ssh://git@github.com/x.git\n", 0},
	    {"https://TOKEN@github.com/x.git\n", 0},
	    {"http://h/a?token=T\n", 1},
	    {"http://h/a?token=\n", 0},
	    {"redis://***@h:1 http://***@h/c?token=***|bearer-token=***\n", 0},
	    {"\"ccache_remote\": \"http://***@h/c?token=***|bearer-token=***\",\n", 0},
	    {"x\nhttp://h/c|bearer-token=T\n", 2},
	    {"https://u:@h/\n", 0},
	    {"no url\n", 0},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		CHECK(ab_redact_find(cases[i].text, strlen(cases[i].text)) == cases[i].line);
}

/* a log's lines that hold one rewritten, the others byte for byte (a NUL byte too) */
static void
test_file(void)
{
	char *dir = unit_tmpdir("redact"), *p = ab_path_join(dir, "log");
	static const char text[] = "one\0two\nCCACHE_REMOTE_STORAGE=redis://:PW@h:1\nthree";
	static const char want[] = "one\0two\nCCACHE_REMOTE_STORAGE=redis://***@h:1\nthree";
	struct ab_buf b = {0};

	CHECK(ab_write_file_atomic(p, text, sizeof(text) - 1) == 0);
	CHECK(ab_redact_file(p) == 0);
	CHECK(ab_read_file(&b, p) == 0 && b.len == sizeof(want) - 1 && !memcmp(b.s, want, b.len));
	ab_buf_free(&b);
	ab_rm_rf(dir);
	free(p);
	free(dir);
}

int
main(void)
{
	test_find();
	test_file();
	test_urls();
	test_env();
	test_argv();
	return unit_done();
}
