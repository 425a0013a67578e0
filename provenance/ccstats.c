#include "ccstats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lib/jsonio.h"

static const char *const schemes[] = {"redis://", "redis+unix:", "http://", "file:", NULL};

int
ab_ccstats_remote_check(const char *url, char *why, size_t whylen)
{
	size_t n = strcspn(url, "|");

	if (!strncmp(url, "https://", 8)) {
		snprintf(why, whylen, "https is not supported: Debian 12's ccache 4.7 speaks plain http only");
		return AB_EFAIL;
	}
	for (size_t i = 0; schemes[i]; i++) {
		size_t k = strlen(schemes[i]);

		if (!strncmp(url, schemes[i], k)) {
			if (n <= k) {
				snprintf(why, whylen, "nothing after '%s'", schemes[i]);
				return AB_EFAIL;
			}
			return 0;
		}
	}
	snprintf(why, whylen, "not a remote storage ccache knows (redis://HOST:PORT, redis+unix:PATH, "
	    "http://HOST/PATH or file:PATH)");
	return AB_EFAIL;
}

char *
ab_ccstats_redact(const char *url)
{
	const char *s = strstr(url, "://"), *end, *at, *colon;

	if (!s)
		return ab_strdup(url);
	s += 3;
	end = s + strcspn(s, "/|");
	at = memchr(s, '@', (size_t)(end - s));
	if (!at)
		return ab_strdup(url);
	/* redis://PASSWORD@HOST or redis://USER:PASSWORD@HOST: the password goes */
	colon = memchr(s, ':', (size_t)(at - s));
	if (!colon && !strncmp(url, "redis", 5))
		return ab_sprintf("%.*s***%s", (int)(s - url), url, at);
	if (!colon)
		return ab_strdup(url);
	return ab_sprintf("%.*s***%s", (int)(colon + 1 - url), url, at);
}

char *
ab_ccstats_env_shown(const char *kv)
{
	static const char key[] = "CCACHE_REMOTE_STORAGE=";
	char *url, *shown;

	if (strncmp(kv, key, sizeof(key) - 1))
		return ab_strdup(kv);
	url = ab_ccstats_redact(kv + sizeof(key) - 1);
	shown = ab_sprintf("%s%s", key, url);
	free(url);
	return shown;
}

/* the counters of one compiler call, as the log names them */
struct call {
	int miss, hit, local_hit, remote_hit, remote_error, remote_timeout;
};

/* the record's numbers, in its order */
enum { CACHEABLE, LOCAL_HITS, REMOTE_HITS, MISSES, UNCACHEABLE, REMOTE_ERRORS, REMOTE_TIMEOUTS, NCOUNTS };
static const char *const count_names[NCOUNTS] = {"cacheable", "local_hits", "remote_hits", "misses",
    "uncacheable", "remote_errors", "remote_timeouts"};

static void
count(int *n, const struct call *c)
{
	if (c->miss)
		n[MISSES]++;
	else if (c->hit)
		n[c->remote_hit && !c->local_hit ? REMOTE_HITS : LOCAL_HITS]++;
	else
		n[UNCACHEABLE]++;
	n[CACHEABLE] += c->miss || c->hit;
	n[REMOTE_ERRORS] += c->remote_error;
	n[REMOTE_TIMEOUTS] += c->remote_timeout;
}

static void
counter(struct call *c, const char *s, size_t n)
{
#define IS(name) (n == sizeof(name) - 1 && !memcmp(s, name, n))
	if (IS("cache_miss"))
		c->miss = 1;
	else if (IS("direct_cache_hit") || IS("preprocessed_cache_hit"))
		c->hit = 1;
	else if (IS("local_storage_hit"))
		c->local_hit = 1;
	else if (IS("remote_storage_hit"))
		c->remote_hit = 1;
	else if (IS("remote_storage_error"))
		c->remote_error = 1;
	else if (IS("remote_storage_timeout"))
		c->remote_timeout = 1;
#undef IS
}

int
ab_ccstats_read(cJSON **out, const char *path, const char *rel)
{
	struct ab_buf b = {0};
	struct stat st;
	struct call c = {0};
	int open = 0, n[NCOUNTS] = {0};

	*out = NULL;
	if (stat(path, &st) < 0 && errno == ENOENT)
		return 0;
	if (ab_read_file(&b, path) < 0)
		return AB_EFAIL;
	for (size_t at = 0; at < b.len;) {
		const char *line = b.s + at;
		size_t len = strcspn(line, "\n");

		at += len + (at + len < b.len);
		if (len && line[0] == '#') {
			/* "# SOURCE": the next call */
			if (open)
				count(n, &c);
			memset(&c, 0, sizeof(c));
			open = 1;
		} else if (len && open) {
			counter(&c, line, len);
		}
	}
	if (open)
		count(n, &c);
	ab_buf_free(&b);
	*out = cJSON_CreateObject();
	cJSON_AddStringToObject(*out, "log", rel);
	for (int i = 0; i < NCOUNTS; i++)
		cJSON_AddNumberToObject(*out, count_names[i], n[i]);
	return 0;
}

static int
num(const cJSON *rec, const char *key)
{
	const cJSON *v = ab_json_get(rec, key);

	return cJSON_IsNumber(v) ? v->valueint : 0;
}

int
ab_ccstats_remote_failures(const cJSON *rec)
{
	return num(rec, "remote_errors") + num(rec, "remote_timeouts");
}

char *
ab_ccstats_summary(const cJSON *rec)
{
	int n = num(rec, "cacheable"), l = num(rec, "local_hits"), r = num(rec, "remote_hits");
	int m = num(rec, "misses"), e = ab_ccstats_remote_failures(rec);
	struct ab_buf b = {0};

	ab_buf_printf(&b, "%d compile%s: %d local hit%s, %d remote hit%s, %d miss%s", n, n == 1 ? "" : "s", l,
	    l == 1 ? "" : "s", r, r == 1 ? "" : "s", m, m == 1 ? "" : "es");
	if (n)
		ab_buf_printf(&b, " (%d%% hits)", (int)((100.0 * (l + r)) / n));
	if (e)
		ab_buf_printf(&b, "; the remote storage failed for %d call%s", e, e == 1 ? "" : "s");
	return ab_buf_detach(&b);
}
