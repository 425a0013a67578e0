#include "cacheproto.h"

#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "redact.h"
#include "util.h"

/* bounds of what ccache sends: a Redis command's words, an HTTP request's head, a body */
#define LINE_MAX_ 64
#define KEY_MAX 128
#define HEAD_MAX 16384
#define BODY_MAX ((size_t)1 << 31)

void
ab_cacheproto_remote_release(struct ab_cacheproto_remote *r)
{
	free(r->host);
	free(r->port);
	free(r->user);
	free(r->password);
	free(r->http_host);
	free(r->http_auth);
	free(r->http_prefix);
	memset(r, 0, sizeof(*r));
}

static int
hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* s[0..n) with its percent-encodings decoded (validated before: lib's callers check remote URLs first) */
static char *
unpercent(const char *s, size_t n)
{
	struct ab_buf b = {0};

	for (size_t i = 0; i < n; i++) {
		if (s[i] == '%' && i + 2 < n && hexval(s[i + 1]) >= 0 && hexval(s[i + 2]) >= 0) {
			ab_buf_putc(&b, (char)(hexval(s[i + 1]) * 16 + hexval(s[i + 2])));
			i += 2;
		} else {
			ab_buf_putc(&b, s[i]);
		}
	}
	return b.s ? ab_buf_detach(&b) : ab_strdup("");
}

/* "Basic base64(user:password)" */
static char *
basic_auth(const char *user, const char *password)
{
	char *plain = ab_sprintf("%s:%s", user, password);
	size_t n = strlen(plain);
	unsigned char *enc = ab_malloc(4 * ((n + 2) / 3) + 1);
	char *v;

	EVP_EncodeBlock(enc, (const unsigned char *)plain, (int)n);
	v = ab_sprintf("Basic %s", (char *)enc);
	free(enc);
	free(plain);
	return v;
}

/* the attributes after the URL's first '|', onto inside but for the secret ones; a bearer token into *bearer */
static void
attributes(struct ab_buf *inside, const char *s, size_t n, char **bearer)
{
	while (n) {
		size_t len = 0, name;

		while (len < n && s[len] != '|')
			len++;
		name = 0;
		while (name < len && s[name] != '=')
			name++;
		if (name == 12 && !strncmp(s, "bearer-token", 12) && name < len) {
			free(*bearer);
			*bearer = unpercent(s + name + 1, len - name - 1);
		} else if (len && !ab_redact_secret_name(s, (unsigned long)name)) {
			ab_buf_putc(inside, '|');
			ab_buf_add(inside, s, len);
		}
		s += len;
		n -= len;
		if (n) {
			s++;
			n--;
		}
	}
}

int
ab_cacheproto_remote_parse(struct ab_cacheproto_remote *r, struct ab_buf *inside, const char *url, size_t len,
    const char *addr)
{
	const char *sep, *auth, *end, *at, *hp, *colon, *path, *pend;
	size_t attrs;
	char *bearer = NULL;
	int redis = len >= 8 && !strncmp(url, "redis://", 8);

	memset(r, 0, sizeof(*r));
	if (!redis && !(len >= 7 && !strncmp(url, "http://", 7)))
		return -1;
	r->kind = redis ? AB_CACHEPROTO_REDIS : AB_CACHEPROTO_HTTP;
	attrs = 0;
	while (attrs < len && url[attrs] != '|')
		attrs++;
	sep = strstr(url, "://");
	auth = sep + 3;
	end = auth;
	while (end < url + attrs && *end != '/' && *end != '?' && *end != '#')
		end++;
	at = memchr(auth, '@', (size_t)(end - auth));
	hp = at ? at + 1 : auth;
	/* [v6]:port or host:port */
	colon = *hp == '[' ? memchr(hp, ']', (size_t)(end - hp)) : hp;
	colon = colon ? memchr(colon, ':', (size_t)(end - colon)) : NULL;
	r->host = ab_strndup(hp + (*hp == '['), (size_t)((colon ? colon : end) - hp) - (*hp == '[') * 2);
	r->port = colon ? ab_strndup(colon + 1, (size_t)(end - colon - 1)) : ab_strdup(redis ? "6379" : "80");
	r->http_host = ab_strndup(hp, (size_t)(end - hp));
	if (at) {
		const char *c = memchr(auth, ':', (size_t)(at - auth));

		if (redis && !c) {
			/* redis://PASSWORD@HOST */
			r->password = unpercent(auth, (size_t)(at - auth));
		} else if (redis) {
			/* redis://[USER]:PASSWORD@HOST: an empty user is Redis's default user */
			if (c > auth)
				r->user = unpercent(auth, (size_t)(c - auth));
			r->password = unpercent(c + 1, (size_t)(at - c - 1));
		} else if (c) {
			char *u = unpercent(auth, (size_t)(c - auth)), *p = unpercent(c + 1, (size_t)(at - c - 1));

			r->http_auth = basic_auth(u, p);
			free(u);
			free(p);
		}
	}
	/* the path (a Redis database, an HTTP prefix) without query or fragment */
	path = end;
	pend = path;
	while (pend < url + attrs && *pend != '?' && *pend != '#')
		pend++;
	ab_buf_add(inside, url, (size_t)(auth - url));
	ab_buf_puts(inside, addr);
	ab_buf_add(inside, path, (size_t)(pend - path));
	/* ccache's own rule: the path, with a '/' at its end */
	r->http_prefix = ab_sprintf("%.*s%s", (int)(pend - path), path, pend > path && pend[-1] == '/' ? "" : "/");
	if (attrs < len)
		attributes(inside, url + attrs + 1, len - attrs - 1, &bearer);
	if (bearer) {
		free(r->http_auth);
		r->http_auth = ab_sprintf("Bearer %s", bearer);
		free(bearer);
	}
	if (redis) {
		free(r->http_host);
		r->http_host = NULL;
		free(r->http_auth);
		r->http_auth = NULL;
		free(r->http_prefix);
		r->http_prefix = NULL;
	}
	return 0;
}

/* a RESP bulk string onto out */
static void
bulk(struct ab_buf *out, const char *s)
{
	ab_buf_printf(out, "$%zu\r\n%s\r\n", strlen(s), s);
}

int
ab_cacheproto_redis_auth(struct ab_buf *out, const struct ab_cacheproto_remote *r)
{
	if (r->kind != AB_CACHEPROTO_REDIS || !r->password)
		return 0;
	ab_buf_printf(out, "*%d\r\n", r->user ? 3 : 2);
	bulk(out, "AUTH");
	if (r->user)
		bulk(out, r->user);
	bulk(out, r->password);
	return 1;
}

/* ---- the filter ---- */

enum state {
	RESP_ARRAY,  /* a line "*N" */
	RESP_LEN,    /* a line "$L" */
	RESP_WORD,   /* a word kept whole to be checked (the command, a key, a database) */
	RESP_VALUE,  /* SET's value, streamed */
	HTTP_HEAD,   /* a request's head, up to its empty line */
	HTTP_BODY,   /* its body, streamed */
};

struct ab_cacheproto {
	const struct ab_cacheproto_remote *r;
	enum state st;
	struct ab_buf acc;   /* the line, word or head being read */
	size_t want;         /* RESP_WORD: its length (with CRLF); RESP_VALUE, HTTP_BODY: bytes left */
	int nargs, arg;      /* the command's word count, and which word comes */
	char cmd[8];         /* the command, upper case */
	char why[160];
};

struct ab_cacheproto *
ab_cacheproto_new(const struct ab_cacheproto_remote *r)
{
	struct ab_cacheproto *f = ab_calloc(1, sizeof(*f));

	f->r = r;
	f->st = r->kind == AB_CACHEPROTO_REDIS ? RESP_ARRAY : HTTP_HEAD;
	return f;
}

void
ab_cacheproto_free(struct ab_cacheproto *f)
{
	if (!f)
		return;
	ab_buf_free(&f->acc);
	free(f);
}

const char *
ab_cacheproto_why(const struct ab_cacheproto *f)
{
	return f->why;
}

static int
refuse(struct ab_cacheproto *f, const char *fmt, const char *what, size_t n)
{
	char shown[48];
	size_t k = 0;

	for (size_t i = 0; i < n && k + 1 < sizeof(shown); i++)
		shown[k++] = what[i] >= 0x20 && what[i] < 0x7f ? what[i] : '?';
	shown[k] = '\0';
	snprintf(f->why, sizeof(f->why), fmt, shown);
	return -1;
}

/* a RESP count line ("*3", "$12") of digits after its sign, at most max; -1 if not */
static long
count_line(const struct ab_buf *l, char sign, long max)
{
	long v = 0;

	if (l->len < 4 || l->s[0] != sign || l->s[l->len - 2] != '\r' || l->s[l->len - 1] != '\n')
		return -1;
	for (size_t i = 1; i < l->len - 2; i++) {
		if (l->s[i] < '0' || l->s[i] > '9' || v > max / 10)
			return -1;
		v = v * 10 + (l->s[i] - '0');
	}
	return v <= max ? v : -1;
}

/* the commands of ccache's Redis storage, with their word counts */
static int
redis_command(const char *name, size_t n, char *cmd, int nargs)
{
	static const struct {
		const char *name;
		int nargs;
	} allowed[] = {{"GET", 2}, {"EXISTS", 2}, {"DEL", 2}, {"SET", 3}, {"SELECT", 2}};

	for (size_t i = 0; i < AB_NELEM(allowed); i++)
		if (strlen(allowed[i].name) == n && !strncasecmp(name, allowed[i].name, n)) {
			strcpy(cmd, allowed[i].name);
			return allowed[i].nargs == nargs ? 0 : -1;
		}
	return -1;
}

/* a word of a command, whole: the command itself, a key, a database */
static int
redis_word(struct ab_cacheproto *f)
{
	const char *w = f->acc.s;
	size_t n = f->acc.len - 2;

	if (w[n] != '\r' || w[n + 1] != '\n')
		return refuse(f, "a Redis word not ended by CRLF", "", 0);
	if (f->arg == 0) {
		if (redis_command(w, n, f->cmd, f->nargs) < 0)
			return refuse(f, "a Redis command '%s' that ccache does not send", w, n);
		return 0;
	}
	if (!strcmp(f->cmd, "SELECT")) {
		if (!n || strspn(w, "0123456789") < n)
			return refuse(f, "a Redis database '%s' that is not a number", w, n);
		return 0;
	}
	/* ccache's keys: "ccache:" and the digest's letters and digits */
	if (n <= 7 || strncmp(w, "ccache:", 7) || strspn(w + 7, "0123456789abcdefghijklmnopqrstuvwxyz") < n - 7)
		return refuse(f, "a Redis key '%s' that is not ccache's", w, n);
	return 0;
}

/* the next word: its length line read, what comes is kept whole or streamed */
static void
next_word(struct ab_cacheproto *f, long len)
{
	f->want = (size_t)len + 2;
	f->st = f->arg == 2 ? RESP_VALUE : RESP_WORD;
}

static int
feed_redis(struct ab_cacheproto *f, const char **in, size_t *n, struct ab_buf *out)
{
	if (f->st == RESP_VALUE) {
		size_t k = *n < f->want ? *n : f->want;

		ab_buf_add(out, *in, k);
		*in += k;
		*n -= k;
		f->want -= k;
		if (!f->want) {
			f->arg++;
			f->st = RESP_ARRAY;
		}
		return 0;
	}
	if (f->st == RESP_WORD) {
		size_t k = *n < f->want - f->acc.len ? *n : f->want - f->acc.len;

		ab_buf_add(&f->acc, *in, k);
		*in += k;
		*n -= k;
		if (f->acc.len < f->want)
			return 0;
		if (redis_word(f) < 0)
			return -1;
		ab_buf_add(out, f->acc.s, f->acc.len);
		ab_buf_clear(&f->acc);
		f->arg++;
		f->st = f->arg == f->nargs ? RESP_ARRAY : RESP_LEN;
		return 0;
	}
	/* a line: "*N" or "$L" */
	while (*n) {
		char c = **in;

		ab_buf_putc(&f->acc, c);
		(*in)++;
		(*n)--;
		if (f->acc.len > LINE_MAX_)
			return refuse(f, "a Redis line longer than %s bytes", "64", 2);
		if (c == '\n')
			break;
	}
	if (!f->acc.len || f->acc.s[f->acc.len - 1] != '\n')
		return 0;
	if (f->st == RESP_ARRAY) {
		long nargs = count_line(&f->acc, '*', 3);

		if (nargs < 2)
			return refuse(f, "a Redis request '%s' that is not an array of 2 or 3 words", f->acc.s, f->acc.len - 2);
		f->nargs = (int)nargs;
		f->arg = 0;
		f->st = RESP_LEN;
	} else {
		long len = count_line(&f->acc, '$', f->arg == 2 ? (long)BODY_MAX : f->arg == 1 ? KEY_MAX : 8);

		if (len < 0)
			return refuse(f, "a Redis word length '%s' out of bounds", f->acc.s, f->acc.len - 2);
		ab_buf_add(out, f->acc.s, f->acc.len);
		ab_buf_clear(&f->acc);
		next_word(f, len);
		return 0;
	}
	ab_buf_add(out, f->acc.s, f->acc.len);
	ab_buf_clear(&f->acc);
	return 0;
}

/* does a header line (without CRLF) have this name? */
static int
header_is(const char *line, size_t n, const char *name)
{
	size_t k = strlen(name);

	return n > k && line[k] == ':' && !strncasecmp(line, name, k);
}

/* a request's head, whole: checked and written again with the remote's Host and Authorization */
static int
http_head(struct ab_cacheproto *f, struct ab_buf *out)
{
	static const char *const methods[] = {"GET ", "HEAD ", "PUT ", "DELETE "};
	const char *h = f->acc.s, *eol = strstr(h, "\r\n"), *target, *sp;
	size_t m = AB_NELEM(methods);
	long long length = 0;

	for (size_t i = 0; i < AB_NELEM(methods); i++)
		if (!strncmp(h, methods[i], strlen(methods[i])))
			m = i;
	if (m == AB_NELEM(methods))
		return refuse(f, "an HTTP request '%s' that ccache does not send", h, (size_t)(eol - h));
	target = h + strlen(methods[m]);
	sp = memchr(target, ' ', (size_t)(eol - target));
	if (!sp || target[0] != '/' || strspn(target, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789/._-") <
	    (size_t)(sp - target) || memmem(target, (size_t)(sp - target), "..", 2) || eol - sp != 9 ||
	    strncmp(sp, " HTTP/1.", 8))
		return refuse(f, "an HTTP request line '%s' that is not ccache's", h, (size_t)(eol - h));
	if (strncmp(target, f->r->http_prefix, strlen(f->r->http_prefix)))
		return refuse(f, "an HTTP request '%s' outside the remote's path", h, (size_t)(eol - h));
	ab_buf_add(out, h, (size_t)(eol - h) + 2);
	ab_buf_printf(out, "Host: %s\r\n", f->r->http_host);
	if (f->r->http_auth)
		ab_buf_printf(out, "Authorization: %s\r\n", f->r->http_auth);
	for (const char *l = eol + 2; strncmp(l, "\r\n", 2); l = strstr(l, "\r\n") + 2) {
		size_t n = (size_t)(strstr(l, "\r\n") - l);

		if (header_is(l, n, "Host") || header_is(l, n, "Authorization") || header_is(l, n, "Proxy-Authorization"))
			continue;
		if (header_is(l, n, "Transfer-Encoding"))
			return refuse(f, "an HTTP header '%s' (ccache sends a Content-Length)", l, n);
		if (header_is(l, n, "Content-Length")) {
			const char *v = l + 15;

			while (*v == ' ' || *v == '\t')
				v++;
			length = 0;
			for (; v < l + n && *v >= '0' && *v <= '9' && length <= (long long)BODY_MAX; v++)
				length = length * 10 + (*v - '0');
			if (v < l + n || length > (long long)BODY_MAX)
				return refuse(f, "an HTTP header '%s' out of bounds", l, n);
		}
		ab_buf_add(out, l, n + 2);
	}
	ab_buf_add(out, "\r\n", 2);
	f->want = (size_t)length;
	f->st = f->want ? HTTP_BODY : HTTP_HEAD;
	return 0;
}

static int
feed_http(struct ab_cacheproto *f, const char **in, size_t *n, struct ab_buf *out)
{
	if (f->st == HTTP_BODY) {
		size_t k = *n < f->want ? *n : f->want;

		ab_buf_add(out, *in, k);
		*in += k;
		*n -= k;
		f->want -= k;
		if (!f->want)
			f->st = HTTP_HEAD;
		return 0;
	}
	while (*n) {
		char c = **in;

		ab_buf_putc(&f->acc, c);
		(*in)++;
		(*n)--;
		if (f->acc.len > HEAD_MAX)
			return refuse(f, "an HTTP request head longer than %s bytes", "16384", 5);
		if (c == '\n' && f->acc.len >= 4 && !memcmp(f->acc.s + f->acc.len - 4, "\r\n\r\n", 4))
			break;
	}
	if (f->acc.len < 4 || memcmp(f->acc.s + f->acc.len - 4, "\r\n\r\n", 4))
		return 0;
	if (memchr(f->acc.s, '\0', f->acc.len))
		return refuse(f, "an HTTP request head with a NUL byte", "", 0);
	if (http_head(f, out) < 0)
		return -1;
	ab_buf_clear(&f->acc);
	return 0;
}

int
ab_cacheproto_feed(struct ab_cacheproto *f, const char *in, size_t n, struct ab_buf *out)
{
	while (n)
		if ((f->r->kind == AB_CACHEPROTO_REDIS ? feed_redis(f, &in, &n, out) : feed_http(f, &in, &n, out)) < 0)
			return -1;
	return 0;
}
