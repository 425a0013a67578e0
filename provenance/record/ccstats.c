#include "ccstats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/redact.h"
#include "../../lib/jsonio.h"
#include "../../lib/strmap.h"

/* an entry of the local cache that more than one variant stored */
#define STORED_BY_SEVERAL ((size_t)-1)

static const char *const schemes[] = {"redis://", "redis+unix:", "http://", "file:", NULL};

static int
hexdigit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/*
 * Are the n bytes at s made only of what RFC 3986 allows there: unreserved
 * characters, sub-delims, percent-encodings (each '%' and two hex digits)
 * and the characters of extra? Nothing of the bytes is ever quoted back:
 * they may be a password.
 */
static int
uri_chars(const char *s, size_t n, const char *extra)
{
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if (c == '%') {
			if (i + 2 >= n || !hexdigit(s[i + 1]) || !hexdigit(s[i + 2]))
				return 0;
			i += 2;
		} else if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		    strchr("-._~!$&'()*+,;=", c) || (extra && strchr(extra, c))) || c == '\0') {
			return 0;
		}
	}
	return 1;
}

/* host[:port] (a name or an [IP literal]); why without its bytes */
static int
check_hostport(const char *s, size_t n, char *why, size_t whylen)
{
	const char *end = s + n, *colon;

	if (!n) {
		snprintf(why, whylen, "no host");
		return -1;
	}
	if (*s == '[') {
		const char *close = memchr(s, ']', n);

		if (!close || close == s + 1 || !uri_chars(s + 1, (size_t)(close - s - 1), ":")) {
			snprintf(why, whylen, "a host in brackets that is not an IP literal");
			return -1;
		}
		colon = close + 1 < end ? close + 1 : NULL;
		if (colon && *colon != ':') {
			snprintf(why, whylen, "something after the host's closing bracket");
			return -1;
		}
	} else {
		colon = memchr(s, ':', n);
		if (colon == s || !uri_chars(s, (size_t)((colon ? colon : end) - s), NULL)) {
			snprintf(why, whylen, colon == s ? "no host" : "a host with a character a URL does not allow there");
			return -1;
		}
	}
	if (colon) {
		size_t pl = (size_t)(end - colon - 1);
		long port = 0;

		for (size_t i = 0; i < pl; i++)
			port = colon[1 + i] >= '0' && colon[1 + i] <= '9' && port <= 65535 ? port * 10 + colon[1 + i] - '0' : -1;
		if (!pl || port < 0 || port > 65535) {
			snprintf(why, whylen, "a port that is not a number from 0 to 65535");
			return -1;
		}
	}
	return 0;
}

/* one remote storage URL of the list, attributes included; why never quotes it */
static int
check_one(const char *url, size_t len, char *why, size_t whylen)
{
	const char *bar = memchr(url, '|', len), *end = url + len;
	size_t n = bar ? (size_t)(bar - url) : len, k = 0;
	size_t i;

	if (n >= 8 && !strncmp(url, "https://", 8)) {
		snprintf(why, whylen, "https is not supported: Debian 12's ccache 4.7 speaks plain http only");
		return -1;
	}
	for (i = 0; schemes[i]; i++)
		if (n >= (k = strlen(schemes[i])) && !strncmp(url, schemes[i], k))
			break;
	if (!schemes[i]) {
		snprintf(why, whylen, "not a remote storage ccache knows (redis://HOST:PORT, redis+unix:PATH, "
		    "http://HOST/PATH or file:PATH)");
		return -1;
	}
	if (n <= k) {
		snprintf(why, whylen, "nothing after '%s'", schemes[i]);
		return -1;
	}
	/* an authority after "//" (redis://, http://; redis+unix: and file: may have one) */
	if (!strncmp(url + k - 2, "//", 2) || (n >= k + 2 && !strncmp(url + k, "//", 2))) {
		const char *auth = url + k + (strncmp(url + k - 2, "//", 2) ? 2 : 0);
		size_t alen = strcspn(auth, "/?#"), ulen = 0;
		const char *at = NULL;

		if (auth + alen > url + n)
			alen = (size_t)(url + n - auth);
		for (const char *p = auth; p < auth + alen; p++)
			if (*p == '@')
				at = p;
		if (at) {
			ulen = (size_t)(at - auth);
			if (!uri_chars(auth, ulen, ":")) {
				snprintf(why, whylen, "its user information holds a character a URL does not allow there "
				    "(percent-encode it: '@' is %%40, a space %%20)");
				return -1;
			}
			ulen++;
		}
		/* file:///PATH and redis+unix:///PATH have no host; ccache refuses a user without one */
		if ((alen > ulen || at || url[k - 1] != ':') && check_hostport(auth + ulen, alen - ulen, why, whylen) < 0)
			return -1;
		if (!uri_chars(auth + alen, (size_t)(url + n - auth - alen), ":@/?#")) {
			snprintf(why, whylen, "a path or query with a character a URL does not allow there");
			return -1;
		}
	} else if (!uri_chars(url + k, n - k, ":@/?#")) {
		snprintf(why, whylen, "a path with a character a URL does not allow there");
		return -1;
	}
	/* attributes: |NAME=VALUE each */
	for (const char *a = bar; a && a < end;) {
		const char *next = memchr(a + 1, '|', (size_t)(end - a - 1));
		const char *aend = next ? next : end, *eq = memchr(a + 1, '=', (size_t)(aend - a - 1));
		size_t nl = eq ? (size_t)(eq - a - 1) : 0;

		nl = eq ? nl : (size_t)(aend - a - 1);
		if (!nl || strspn(a + 1, "abcdefghijklmnopqrstuvwxyz0123456789-_") < nl) {
			snprintf(why, whylen, "an attribute that is not |NAME=VALUE or |NAME");
			return -1;
		}
		a = next;
	}
	return 0;
}

int
ab_ccstats_remote_check(const char *url, char *why, size_t whylen)
{
	const char *s = url;
	size_t count = 0;

	for (;;) {
		size_t n;

		s += strspn(s, " \t");
		if (!*s)
			break;
		n = strcspn(s, " \t");
		for (size_t i = 0; i < n; i++)
			if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) {
				snprintf(why, whylen, "a control character");
				return AB_EFAIL;
			}
		if (check_one(s, n, why, whylen) < 0) {
			if (count || s[n]) {
				size_t l = strlen(why);

				snprintf(why + l, whylen > l ? whylen - l : 0, " (its URL number %zu)", count + 1);
			}
			return AB_EFAIL;
		}
		count++;
		s += n;
	}
	if (!count) {
		snprintf(why, whylen, "not a remote storage ccache knows (redis://HOST:PORT, redis+unix:PATH, "
		    "http://HOST/PATH or file:PATH)");
		return AB_EFAIL;
	}
	return 0;
}

char *
ab_ccstats_redact(const char *url)
{
	return ab_url_redact(url);
}

char *
ab_ccstats_env_shown(const char *kv)
{
	return ab_redact_env(kv);
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

const char *
ab_ccstats_call_result(const char *text, size_t len)
{
	struct call c = {0};

	for (size_t at = 0; at < len;) {
		const char *line = text + at;
		size_t n = strcspn(line, "\n");

		if (n > len - at)
			n = len - at;
		at += n + (at + n < len);
		if (n && line[0] != '#')
			counter(&c, line, n);
	}
	if (c.miss)
		return AB_CCSTATS_MISS;
	if (c.hit)
		return c.remote_hit && !c.local_hit ? AB_CCSTATS_REMOTE_HIT : AB_CCSTATS_HIT;
	return AB_CCSTATS_NONE;
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

	ab_buf_printf(&b, "%d compile%s: %d local hit%s", n, n == 1 ? "" : "s", l, l == 1 ? "" : "s");
	if (cJSON_IsNumber(ab_json_get(rec, "from_earlier_variants")))
		ab_buf_printf(&b, " (%d from earlier variants of this build)", num(rec, "from_earlier_variants"));
	ab_buf_printf(&b, ", %d remote hit%s, %d miss%s", r, r == 1 ? "" : "s", m, m == 1 ? "" : "es");
	if (n)
		ab_buf_printf(&b, " (%d%% hits)", (int)((100.0 * (l + r)) / n));
	if (e)
		ab_buf_printf(&b, "; the remote storage failed for %d call%s", e, e == 1 ? "" : "s");
	return ab_buf_detach(&b);
}

/* ---- which variant's compile a hit took ---- */

/* the compiles of one variant's log: each line cut at its last tab */
struct compiles {
	struct ab_strv keys;       /* the line without its result: object digest, directory, output, source, command */
	const char **result;       /* index-aligned with keys: AB_CCSTATS_* */
};

static void
compiles_parse(struct compiles *cs, const char *text)
{
	memset(cs, 0, sizeof(*cs));
	while (text && *text) {
		size_t n = strcspn(text, "\n");
		char *line = ab_strndup(text, n), *last = strrchr(line, '\t');
		int tabs = 0;

		text += n + (text[n] == '\n');
		for (const char *t = line; *t; t++)
			tabs += *t == '\t';
		/* a line of five fields (a log without results) took nothing from a cache that anyone knows of */
		if (tabs < 5) {
			free(line);
			continue;
		}
		*last = '\0';
		cs->result = ab_realloc(cs->result, (cs->keys.n + 1) * sizeof(*cs->result));
		cs->result[cs->keys.n] = last + 1;
		ab_strv_push_owned(&cs->keys, line);
	}
}

static int
stores(const char *result)
{
	return !strcmp(result, AB_CCSTATS_MISS) || !strcmp(result, AB_CCSTATS_REMOTE_HIT);
}

void
ab_ccstats_attribute(cJSON *const *recs, const char *const *logs, size_t n)
{
	struct compiles *cs = ab_calloc(n ? n : 1, sizeof(*cs));
	struct ab_strmap stored = {0}; /* a compile stored in the local cache -> index into owner */
	size_t *owner = NULL, nowner = 0, at;

	for (size_t i = 0; i < n; i++) {
		compiles_parse(&cs[i], logs[i]);
		for (size_t k = 0; k < cs[i].keys.n; k++) {
			if (!stores(cs[i].result[k]))
				continue;
			if (ab_strmap_put(&stored, cs[i].keys.v[k], nowner)) {
				owner = ab_realloc(owner, (nowner + 1) * sizeof(*owner));
				owner[nowner++] = i;
			} else if (ab_strmap_get(&stored, cs[i].keys.v[k], &at) && owner[at] != i) {
				/* two variants compiled it at once: a third's hit took either's entry */
				owner[at] = STORED_BY_SEVERAL;
			}
		}
	}
	for (size_t i = 0; i < n; i++) {
		int from = 0;

		for (size_t k = 0; k < cs[i].keys.n; k++)
			if (!strcmp(cs[i].result[k], AB_CCSTATS_HIT) && ab_strmap_get(&stored, cs[i].keys.v[k], &at) &&
			    owner[at] != i)
				from++;
		if (recs[i])
			cJSON_AddNumberToObject(recs[i], "from_earlier_variants", from);
	}
	/* the map points into the keys: freed first */
	ab_strmap_free(&stored);
	for (size_t i = 0; i < n; i++) {
		ab_strv_free(&cs[i].keys);
		free(cs[i].result);
	}
	free(cs);
	free(owner);
}
