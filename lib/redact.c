#include "redact.h"

#include <stdlib.h>
#include <string.h>

#include "atomic.h"
#include "proc.h"
#include "util.h"

#define MASK "***"

static char
lower(char c)
{
	return (char)(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
}

/* the name, lowercased, at most 63 bytes, into low */
static void
lowered(char low[64], const char *name, size_t n)
{
	if (n > 63)
		n = 63;
	for (size_t i = 0; i < n; i++)
		low[i] = lower(name[i]);
	low[n] = '\0';
}

/* does a query parameter's or ccache attribute's name say that its value is a secret? (a URL's words) */
static int
secret_param(const char *name, size_t n)
{
	static const char *const words[] = {"token", "key", "secret", "password", "passwd", "auth", "signature",
	    "sig", "credential", "session", "code"};
	char low[64];

	lowered(low, name, n);
	for (size_t i = 0; i < AB_NELEM(words); i++)
		if (strstr(low, words[i]))
			return 1;
	return 0;
}

int
ab_redact_secret_name(const char *name, unsigned long len)
{
	/* anywhere in the name */
	static const char *const words[] = {"password", "passwd", "token", "secret", "credential", "apikey", "api_key",
	    "api-key", "access_key", "access-key", "accesskey", "private_key", "private-key", "bearer",
	    "authorization"};
	/* a whole part of it, between '-', '_' or '.' ("auth" but not "author") */
	static const char *const parts[] = {"auth", "pass", "pwd"};
	char low[64];

	while (len && *name == '-')
		name++, len--;
	lowered(low, name, len);
	for (size_t i = 0; i < AB_NELEM(words); i++)
		if (strstr(low, words[i]))
			return 1;
	for (const char *s = low; *s;) {
		size_t n = strcspn(s, "-_.");

		for (size_t i = 0; i < AB_NELEM(parts); i++)
			if (n == strlen(parts[i]) && !strncmp(s, parts[i], n))
				return 1;
		s += n;
		while (*s && strchr("-_.", *s))
			s++;
	}
	return 0;
}

/* where a URL's authority ends; a userinfo's last '@' before it ends the userinfo */
static size_t
authority_len(const char *s)
{
	return strcspn(s, "/?# \t\r\n'\"<>`");
}

/*
 * the userinfo and the secret query parameters of every URL of text, into
 * b; *found counts the credentials masked (a userinfo with a password, a
 * secret parameter with a value: not a user name alone)
 */
static void
redact_urls(struct ab_buf *b, const char *text, int *found)
{
	const char *s = text;

	while (*s) {
		const char *at = strstr(s, "://"), *auth, *end, *cred = NULL, *q;

		if (!at) {
			ab_buf_puts(b, s);
			break;
		}
		auth = at + 3;
		end = auth + authority_len(auth);
		/* the last '@' of the authority ends the userinfo (a password may hold '@' unescaped) */
		for (const char *p = auth; p < end; p++)
			if (*p == '@')
				cred = p;
		ab_buf_add(b, s, (size_t)(auth - s));
		if (cred)
			ab_buf_puts(b, MASK);
		if (cred && memchr(auth, ':', (size_t)(cred - auth)) && ((const char *)memchr(auth, ':',
		    (size_t)(cred - auth)))[1] != '@')
			(*found)++;
		ab_buf_add(b, cred ? cred : auth, (size_t)(end - (cred ? cred : auth)));
		s = end;
		/* the path, then the query's parameters up to the end of the URL or the next one */
		q = s + strcspn(s, "? \t\r\n'\"<>`");
		if (*q != '?' || (strstr(s, "://") && strstr(s, "://") < q))
			continue;
		ab_buf_add(b, s, (size_t)(q - s) + 1);
		s = q + 1;
		while (*s && !strchr("#| \t\r\n'\"<>`", *s)) {
			size_t n = strcspn(s, "&#| \t\r\n'\"<>`"), klen = strcspn(s, "=&#| \t\r\n'\"<>`");

			if (klen < n && s[klen] == '=' && secret_param(s, klen)) {
				ab_buf_add(b, s, klen + 1);
				ab_buf_puts(b, MASK);
				/* a value already masked is none */
				*found += klen + 1 < n && strncmp(s + klen + 1, MASK, strlen(MASK));
			} else {
				ab_buf_add(b, s, n);
			}
			s += n;
			if (*s == '&')
				ab_buf_putc(b, *s++);
		}
	}
}

/* every ccache attribute "|NAME=VALUE" of text whose name looks secret: its value masked (counted in *found) */
static char *
redact_attributes(const char *text, int *found)
{
	struct ab_buf b = {0};
	const char *s = text;

	for (const char *bar; (bar = strchr(s, '|'));) {
		const char *name = bar + 1;
		size_t klen = strcspn(name, "=| \t\r\n"), vlen;

		ab_buf_add(&b, s, (size_t)(name - s));
		s = name;
		if (name[klen] != '=' || !klen || !secret_param(name, klen))
			continue;
		vlen = strcspn(name + klen + 1, "| \t\r\n");
		*found += vlen > 0 && strncmp(name + klen + 1, MASK, strlen(MASK));
		ab_buf_add(&b, name, klen + 1);
		ab_buf_puts(&b, MASK);
		s = name + klen + 1 + vlen;
	}
	ab_buf_puts(&b, s);
	return ab_buf_detach(&b);
}

char *
ab_url_redact(const char *text)
{
	struct ab_buf b = {0};
	char *out;
	int found = 0;

	redact_urls(&b, text ? text : "", &found);
	out = redact_attributes(b.s ? b.s : "", &found);
	ab_buf_free(&b);
	return out;
}

/* line[0..n) redacted (a NUL byte ends what is read of it), or NULL when it holds no credential */
static char *
line_redacted(const char *line, size_t n)
{
	char *one = ab_strndup(line, n), *masked;
	struct ab_buf b = {0};
	int found = 0;

	redact_urls(&b, one, &found);
	masked = redact_attributes(b.s ? b.s : "", &found);
	ab_buf_free(&b);
	free(one);
	if (!found) {
		free(masked);
		return NULL;
	}
	return masked;
}

unsigned long
ab_redact_find(const char *text, unsigned long len)
{
	unsigned long line = 1;

	for (size_t at = 0; at < len; line++) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;
		char *masked = line_redacted(text + at, n);

		if (masked) {
			free(masked);
			return line;
		}
		at += n + 1;
	}
	return 0;
}

int
ab_redact_file(const char *path)
{
	struct ab_buf in = {0}, out = {0};
	int changed = 0, rc;

	if (ab_read_file(&in, path) < 0)
		return AB_EFAIL;
	for (size_t at = 0; at < in.len;) {
		const char *nl = memchr(in.s + at, '\n', in.len - at);
		size_t n = nl ? (size_t)(nl - (in.s + at)) : in.len - at;
		char *masked = line_redacted(in.s + at, n);

		if (masked) {
			ab_buf_puts(&out, masked);
			changed = 1;
			free(masked);
		} else {
			ab_buf_add(&out, in.s + at, n);
		}
		if (nl)
			ab_buf_putc(&out, '\n');
		at += n + 1;
	}
	rc = changed ? ab_write_file_atomic(path, out.s, out.len) : 0;
	ab_buf_free(&in);
	ab_buf_free(&out);
	return rc;
}

char *
ab_redact_env(const char *kv)
{
	const char *eq = strchr(kv, '=');
	char *value, *out;

	/* NAME=VALUE only when NAME is a name: "http://h/x?sig=S" is a URL */
	if (!eq || eq == kv || strspn(kv, "-ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.") <
	    (size_t)(eq - kv))
		return ab_url_redact(kv);
	if (ab_redact_secret_name(kv, (unsigned long)(eq - kv)))
		return ab_sprintf("%.*s=%s", (int)(eq - kv), kv, MASK);
	value = ab_url_redact(eq + 1);
	out = ab_sprintf("%.*s=%s", (int)(eq - kv), kv, value);
	free(value);
	return out;
}

void
ab_redact_argv(struct ab_strv *out, char *const *argv)
{
	int hide_next = 0;

	for (size_t i = 0; argv && argv[i]; i++) {
		const char *a = argv[i];

		if (hide_next) {
			ab_strv_push(out, MASK);
			hide_next = 0;
			continue;
		}
		if (a[0] == '-' && !strchr(a, '=') && ab_redact_secret_name(a, (unsigned long)strlen(a))) {
			/* "--token X": the option kept, its value not */
			hide_next = 1;
			ab_strv_push(out, a);
			continue;
		}
		ab_strv_push_owned(out, ab_redact_env(a));
	}
}

char *
ab_argv_shown(char *const *argv)
{
	struct ab_strv v = {0};
	char *q;

	ab_redact_argv(&v, argv);
	q = ab_argv_quote(ab_strv_argv(&v));
	ab_strv_free(&v);
	return q;
}
