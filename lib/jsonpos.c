/*
 * jsonpos: JSON read with positions, and the FILE:LINE:COL diagnostics of
 * the formats read that way (lib/jsonpos.h). Moved here from the recipe
 * loader, so that recipes and policies report errors in the same words.
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "jsonpos.h"
#include "util.h"

#define MAX_DEPTH 256
/* cJSON copies at most 63 characters of a number before strtod() */
#define MAX_NUMBER 63


static void
jnode_release(struct ab_jnode *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		jnode_release(&n->kids[i]);
	free(n->kids);
}

static struct ab_jnode *
jnode_add(struct ab_jnode *n)
{
	if (n->nkids == n->cap) {
		n->cap = n->cap ? 2 * n->cap : 4;
		n->kids = ab_realloc(n->kids, n->cap * sizeof(*n->kids));
	}
	memset(&n->kids[n->nkids], 0, sizeof(*n->kids));
	return &n->kids[n->nkids++];
}


/* JSON paths: `variants[2].build.system`, `sources.x.overlay["lib/a"]`; the root is `$` */
static int
plain_key(const char *k)
{
	size_t n = strlen(k);

	/* "." and ".." (or a dot at either end, or two together) would read as path syntax: sources... */
	if (!n || k[0] == '.' || k[n - 1] == '.' || strstr(k, ".."))
		return 0;
	for (; *k; k++)
		if (!((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') ||
		    *k == '_' || *k == '-' || *k == '.'))
			return 0;
	return 1;
}

static void
quote(struct ab_buf *b, const char *s, size_t n)
{
	ab_buf_putc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			ab_buf_printf(b, "\\%c", c);
		else if (c < 0x20 || c == 0x7f)
			ab_buf_printf(b, "\\u%04x", c);
		else
			ab_buf_putc(b, (char)c);
	}
	ab_buf_putc(b, '"');
}

static void
path_add_key(struct ab_buf *b, const char *key, size_t n)
{
	char *k = ab_strndup(key, n);

	if (plain_key(k) && strlen(k) == n) {
		if (b->len)
			ab_buf_putc(b, '.');
		ab_buf_puts(b, k);
	} else {
		if (!b->len)
			ab_buf_putc(b, '$');
		ab_buf_putc(b, '[');
		quote(b, key, n);
		ab_buf_putc(b, ']');
	}
	free(k);
}

char *
ab_jpath_key(const char *path, const char *key)
{
	struct ab_buf b = {0};

	if (strcmp(path, "$"))
		ab_buf_puts(&b, path);
	path_add_key(&b, key, strlen(key));
	return ab_buf_detach(&b);
}

char *
ab_jpath_index(const char *path, size_t i)
{
	return ab_sprintf("%s[%zu]", path, i);
}

/* a value shown in a message: printable, quoted, bounded */
char *
ab_jshown(const char *s)
{
	struct ab_buf b = {0};
	size_t n = strlen(s);

	for (size_t i = 0; i < n && i < 80; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			ab_buf_printf(&b, "\\x%02x", c);
		else
			ab_buf_putc(&b, (char)c);
	}
	if (n > 80)
		ab_buf_puts(&b, "...");
	return ab_buf_detach(&b);
}

/*

 * 1. The scanner.
 */
struct scan {
	const char *p, *end;
	int line, col;
	struct ab_buf path;
	int failed;
	int eline, ecol;
	char *epath, *emsg;
};

static void
adv(struct scan *sc)
{
	unsigned char c = (unsigned char)*sc->p++;

	if (c == '\n') {
		sc->line++;
		sc->col = 1;
	} else if ((c & 0xc0) != 0x80) {
		/* columns count characters: UTF-8 continuation bytes do not move */
		sc->col++;
	}
}

static void sc_fail_at(struct scan *sc, int line, int col, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
sc_fail_at(struct scan *sc, int line, int col, const char *fmt, ...)
{
	struct ab_buf b = {0};
	va_list ap;

	if (sc->failed)
		return;
	va_start(ap, fmt);
	ab_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	sc->failed = 1;
	sc->eline = line;
	sc->ecol = col;
	sc->epath = ab_strdup(sc->path.len ? sc->path.s : "$");
	sc->emsg = ab_buf_detach(&b);
}

/* what is at the current position, for "expected X, got Y" */
static const char *
got(struct scan *sc, char *buf, size_t len)
{
	unsigned char c;

	if (sc->p >= sc->end)
		return "end of input";
	c = (unsigned char)*sc->p;
	if (c > 0x20 && c < 0x7f)
		snprintf(buf, len, "'%c'", c);
	else
		snprintf(buf, len, "byte 0x%02x", c);
	return buf;
}

static void
skip_ws(struct scan *sc)
{
	while (sc->p < sc->end && (*sc->p == ' ' || *sc->p == '\t' || *sc->p == '\n' || *sc->p == '\r'))
		adv(sc);
}

static int
hex4(const char *p, const char *end, unsigned *out)
{
	unsigned v = 0;

	if (end - p < 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		char c = p[i];

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A' + 10);
		else
			return -1;
	}
	*out = v;
	return 0;
}

/* length of the valid UTF-8 sequence at p, 0 when invalid */
static size_t
utf8_len(const unsigned char *p, const unsigned char *end)
{
	size_t n;
	unsigned cp;

	if (p[0] < 0x80)
		return 1;
	if (p[0] >= 0xc2 && p[0] <= 0xdf)
		n = 2, cp = p[0] & 0x1f;
	else if (p[0] >= 0xe0 && p[0] <= 0xef)
		n = 3, cp = p[0] & 0x0f;
	else if (p[0] >= 0xf0 && p[0] <= 0xf4)
		n = 4, cp = p[0] & 0x07;
	else
		return 0;
	if ((size_t)(end - p) < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static void
scan_string(struct scan *sc)
{
	int line = sc->line, col = sc->col;

	adv(sc); /* the opening quote */
	for (;;) {
		unsigned char c;
		int eline, ecol;

		if (sc->p >= sc->end) {
			sc_fail_at(sc, line, col, "unterminated string");
			return;
		}
		c = (unsigned char)*sc->p;
		eline = sc->line;
		ecol = sc->col;
		if (c == '"') {
			adv(sc);
			return;
		}
		if (c == '\\') {
			unsigned u, lo;

			adv(sc);
			if (sc->p >= sc->end) {
				sc_fail_at(sc, line, col, "unterminated string");
				return;
			}
			c = (unsigned char)*sc->p;
			if (strchr("\"\\/bfnrt", c) && c) {
				adv(sc);
				continue;
			}
			if (c != 'u') {
				if (c > 0x20 && c < 0x7f)
					sc_fail_at(sc, eline, ecol, "invalid escape '\\%c' in string", c);
				else
					sc_fail_at(sc, eline, ecol, "invalid escape in string");
				return;
			}
			if (hex4(sc->p + 1, sc->end, &u) < 0) {
				sc_fail_at(sc, eline, ecol, "invalid \\u escape in string");
				return;
			}
			if (u == 0) {
				sc_fail_at(sc, eline, ecol, "\\u0000 is not allowed in strings");
				return;
			}
			if (u >= 0xdc00 && u <= 0xdfff) {
				sc_fail_at(sc, eline, ecol, "unpaired surrogate \\u%04x in string", u);
				return;
			}
			for (int i = 0; i < 5; i++)
				adv(sc);
			if (u >= 0xd800 && u <= 0xdbff) {
				if (sc->end - sc->p < 6 || sc->p[0] != '\\' || sc->p[1] != 'u' ||
				    hex4(sc->p + 2, sc->end, &lo) < 0 || lo < 0xdc00 || lo > 0xdfff) {
					sc_fail_at(sc, eline, ecol, "unpaired surrogate \\u%04x in string", u);
					return;
				}
				for (int i = 0; i < 6; i++)
					adv(sc);
			}
			continue;
		}
		if (c == '\n') {
			/* most likely a missing closing quote: point at the opening one */
			sc_fail_at(sc, line, col, "unterminated string");
			return;
		}
		if (c < 0x20) {
			sc_fail_at(sc, eline, ecol, "control character 0x%02x in string (escape it)", c);
			return;
		}
		{
			size_t n = utf8_len((const unsigned char *)sc->p, (const unsigned char *)sc->end);

			if (!n) {
				sc_fail_at(sc, eline, ecol, "invalid UTF-8 in string");
				return;
			}
			while (n--)
				adv(sc);
		}
	}
}

static int
is_digit(int c)
{
	return c >= '0' && c <= '9';
}

static int
is_word(int c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_';
}

static void
scan_number(struct scan *sc)
{
	const char *start = sc->p;
	int line = sc->line, col = sc->col;
	int ok = 1;

	if (*sc->p == '-')
		adv(sc);
	if (sc->p < sc->end && *sc->p == '0') {
		adv(sc);
	} else if (sc->p < sc->end && is_digit(*sc->p)) {
		while (sc->p < sc->end && is_digit(*sc->p))
			adv(sc);
	} else {
		ok = 0;
	}
	if (ok && sc->p < sc->end && *sc->p == '.') {
		adv(sc);
		if (sc->p >= sc->end || !is_digit(*sc->p))
			ok = 0;
		while (sc->p < sc->end && is_digit(*sc->p))
			adv(sc);
	}
	if (ok && sc->p < sc->end && (*sc->p == 'e' || *sc->p == 'E')) {
		adv(sc);
		if (sc->p < sc->end && (*sc->p == '+' || *sc->p == '-'))
			adv(sc);
		if (sc->p >= sc->end || !is_digit(*sc->p))
			ok = 0;
		while (sc->p < sc->end && is_digit(*sc->p))
			adv(sc);
	}
	if (ok && sc->p < sc->end && (is_word(*sc->p) || *sc->p == '.' || *sc->p == '+' || *sc->p == '-'))
		ok = 0;
	if (!ok)
		sc_fail_at(sc, line, col, "invalid number");
	else if (sc->p - start > MAX_NUMBER)
		sc_fail_at(sc, line, col, "number longer than %d characters", MAX_NUMBER);
}

static void scan_value(struct scan *sc, struct ab_jnode *n, int depth);

/* past the opening '{' or '['; 1 when close follows at once (the container is empty and done) */
static int
scan_open(struct scan *sc, char close)
{
	adv(sc);
	skip_ws(sc);
	if (sc->p < sc->end && *sc->p == close) {
		adv(sc);
		return 1;
	}
	return 0;
}

/*
 * After a member or element: cut its part off the path (back to save),
 * then 1 when a ',' announces another one, 0 past the closing character
 * or on an error.
 */
static int
scan_next(struct scan *sc, size_t save, char close)
{
	char buf[32];

	sc->path.len = save;
	sc->path.s[save] = '\0';
	skip_ws(sc);
	if (sc->p < sc->end && *sc->p == ',') {
		adv(sc);
		return 1;
	}
	if (sc->p < sc->end && *sc->p == close) {
		adv(sc);
		return 0;
	}
	sc_fail_at(sc, sc->line, sc->col, "expected ',' or '%c', got %s", close, got(sc, buf, sizeof(buf)));
	return 0;
}

static void
scan_object(struct scan *sc, struct ab_jnode *n, int depth)
{
	char buf[32];

	if (scan_open(sc, '}'))
		return;
	for (;;) {
		struct ab_jnode *k;
		const char *key;
		size_t save = sc->path.len;

		skip_ws(sc);
		if (sc->p >= sc->end || *sc->p != '"') {
			sc_fail_at(sc, sc->line, sc->col, "expected a string key, got %s", got(sc, buf, sizeof(buf)));
			return;
		}
		k = jnode_add(n);
		k->kline = sc->line;
		k->kcol = sc->col;
		key = sc->p + 1;
		scan_string(sc);
		if (sc->failed)
			return;
		path_add_key(&sc->path, key, (size_t)(sc->p - 1 - key));
		skip_ws(sc);
		if (sc->p >= sc->end || *sc->p != ':') {
			sc_fail_at(sc, sc->line, sc->col, "expected ':' after the key, got %s",
			    got(sc, buf, sizeof(buf)));
			return;
		}
		adv(sc);
		skip_ws(sc);
		scan_value(sc, k, depth + 1);
		if (sc->failed || !scan_next(sc, save, '}'))
			return;
	}
}

static void
scan_array(struct scan *sc, struct ab_jnode *n, int depth)
{
	if (scan_open(sc, ']'))
		return;
	for (;;) {
		struct ab_jnode *e;
		size_t save = sc->path.len;

		skip_ws(sc);
		ab_buf_printf(&sc->path, "%s[%zu]", sc->path.len ? "" : "$", n->nkids);
		e = jnode_add(n);
		scan_value(sc, e, depth + 1);
		if (sc->failed || !scan_next(sc, save, ']'))
			return;
	}
}

static void
scan_value(struct scan *sc, struct ab_jnode *n, int depth)
{
	char buf[32];
	unsigned char c;

	n->line = sc->line;
	n->col = sc->col;
	if (sc->p >= sc->end) {
		sc_fail_at(sc, sc->line, sc->col, "expected a value, got end of input");
		return;
	}
	c = (unsigned char)*sc->p;
	if (c == '{' || c == '[') {
		if (depth >= MAX_DEPTH) {
			sc_fail_at(sc, sc->line, sc->col, "nesting deeper than %d levels", MAX_DEPTH);
			return;
		}
		n->type = (char)c;
		if (c == '{')
			scan_object(sc, n, depth);
		else
			scan_array(sc, n, depth);
	} else if (c == '"') {
		n->type = '"';
		scan_string(sc);
	} else if (c == '-' || is_digit(c)) {
		n->type = 'n';
		scan_number(sc);
	} else if (is_word(c)) {
		const char *w = sc->p;
		size_t len = 0;

		while (w + len < sc->end && is_word(w[len]))
			len++;
		if ((len == 4 && !memcmp(w, "true", 4)) || (len == 5 && !memcmp(w, "false", 5)))
			n->type = 't';
		else if (len == 4 && !memcmp(w, "null", 4))
			n->type = '0';
		else {
			char *s = ab_strndup(w, len < 20 ? len : 20);

			sc_fail_at(sc, sc->line, sc->col, "expected a value, got '%s%s'", s, len > 20 ? "..." : "");
			free(s);
			return;
		}
		while (len--)
			adv(sc);
	} else {
		sc_fail_at(sc, sc->line, sc->col, "expected a value, got %s", got(sc, buf, sizeof(buf)));
	}
}

/* the position of byte offset off, for errors that cJSON reports */
static void
offset_pos(const char *text, size_t off, int *line, int *col)
{
	*line = 1;
	*col = 1;
	for (size_t i = 0; i < off; i++) {
		if (text[i] == '\n') {
			(*line)++;
			*col = 1;
		} else if ((text[i] & 0xc0) != 0x80) {
			(*col)++;
		}
	}
}

static int
attach(struct ab_jnode *n, const cJSON *j)
{
	const cJSON *c;
	size_t i = 0;
	char t;

	n->j = j;
	if (cJSON_IsObject(j))
		t = '{';
	else if (cJSON_IsArray(j))
		t = '[';
	else if (cJSON_IsString(j))
		t = '"';
	else if (cJSON_IsNumber(j))
		t = 'n';
	else if (cJSON_IsBool(j))
		t = 't';
	else if (cJSON_IsNull(j))
		t = '0';
	else
		return -1;
	if (t != n->type)
		return -1;
	if (t != '{' && t != '[')
		return 0;
	for (c = j->child; c; c = c->next, i++) {
		if (i >= n->nkids || attach(&n->kids[i], c) < 0)
			return -1;
		if (t == '{' && !c->string)
			return -1;
	}
	return i == n->nkids ? 0 : -1;
}


/*
 * 2. The document: scanned, then parsed by cJSON and attached.
 */
int
ab_jdoc_parse(struct ab_jdoc *out, const char *name, const char *text, size_t len, FILE *errs)
{
	struct scan sc = {0};
	size_t bom = 0;
	int error = -1;

	memset(out, 0, sizeof(*out));
	if (!errs)
		errs = stderr;
	sc.p = text;
	sc.end = text + len;
	sc.line = 1;
	sc.col = 1;
	/*
	 * A UTF-8 byte order mark is not part of the document. cJSON is not
	 * given it: it only skips one in front of more than one byte.
	 */
	if (len >= 3 && !memcmp(text, "\xef\xbb\xbf", 3))
		bom = 3;
	sc.p += bom;
	skip_ws(&sc);
	scan_value(&sc, &out->root, 0);
	if (!sc.failed) {
		char buf[32];

		skip_ws(&sc);
		if (sc.p < sc.end) {
			ab_buf_clear(&sc.path);
			sc_fail_at(&sc, sc.line, sc.col, "expected end of input, got %s", got(&sc, buf, sizeof(buf)));
		}
	}
	if (sc.failed) {
		fprintf(errs, "%s:%d:%d: %s: %s\n", name, sc.eline, sc.ecol, sc.epath, sc.emsg);
		goto done;
	}
	out->json = cJSON_ParseWithLength(text + bom, len - bom);
	if (!out->json || attach(&out->root, out->json) < 0) {
		/* cannot happen: the scanner is stricter than cJSON */
		const char *ep = cJSON_GetErrorPtr();
		int line = 1, col = 1;

		if (!out->json && ep && ep >= text && ep <= text + len)
			offset_pos(text, (size_t)(ep - text), &line, &col);
		fprintf(errs, "%s:%d:%d: $: cJSON cannot parse what the scanner accepted\n", name, line, col);
#ifdef AB_FUZZING
		abort(); /* let the fuzzer find any disagreement */
#endif
		goto done;
	}
	error = 0;
done:
	if (error < 0)
		ab_jdoc_release(out);
	ab_buf_free(&sc.path);
	free(sc.epath);
	free(sc.emsg);
	return error;
}

void
ab_jdoc_release(struct ab_jdoc *d)
{
	if (!d)
		return;
	cJSON_Delete(d->json);
	jnode_release(&d->root);
	memset(d, 0, sizeof(*d));
}

/*
 * 3. The diagnostics of a format's rules.
 */
void
ab_jdiag_vadd(struct ab_jdiags *dg, int line, int col, const char *path, const char *fmt, va_list ap)
{
	struct ab_buf b = {0};

	ab_buf_printf(&b, "%s: ", path);
	ab_buf_vprintf(&b, fmt, ap);
	if (dg->n == dg->cap) {
		dg->cap = dg->cap ? 2 * dg->cap : 16;
		dg->d = ab_realloc(dg->d, dg->cap * sizeof(*dg->d));
	}
	dg->d[dg->n].line = line;
	dg->d[dg->n].col = col;
	dg->d[dg->n].seq = dg->n;
	dg->d[dg->n].msg = ab_buf_detach(&b);
	dg->n++;
}

void
ab_jdiag_add(struct ab_jdiags *dg, int line, int col, const char *path, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ab_jdiag_vadd(dg, line, col, path, fmt, ap);
	va_end(ap);
}

static int
diag_cmp(const void *a, const void *b)
{
	const struct ab_jdiag *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

size_t
ab_jdiags_print(struct ab_jdiags *dg, const char *name, FILE *errs)
{
	if (!dg->n)
		return 0;
	qsort(dg->d, dg->n, sizeof(*dg->d), diag_cmp);
	for (size_t i = 0; i < dg->n; i++) {
		/* the same error reached twice (e.g. a type error seen by two passes) prints once */
		if (i && dg->d[i].line == dg->d[i - 1].line && dg->d[i].col == dg->d[i - 1].col &&
		    !strcmp(dg->d[i].msg, dg->d[i - 1].msg))
			continue;
		fprintf(errs ? errs : stderr, "%s:%d:%d: %s\n", name, dg->d[i].line, dg->d[i].col, dg->d[i].msg);
	}
	return dg->n;
}

void
ab_jdiags_release(struct ab_jdiags *dg)
{
	for (size_t i = 0; i < dg->n; i++)
		free(dg->d[i].msg);
	free(dg->d);
	memset(dg, 0, sizeof(*dg));
}

const char *
ab_json_type_name(const cJSON *j)
{
	if (cJSON_IsObject(j))
		return "an object";
	if (cJSON_IsArray(j))
		return "an array";
	if (cJSON_IsString(j))
		return "a string";
	if (cJSON_IsNumber(j))
		return "a number";
	if (cJSON_IsBool(j))
		return "a boolean";
	return "null";
}

int
ab_jdiag_want(struct ab_jdiags *dg, const struct ab_jnode *n, const char *path, int t)
{
	const char *w;

	if ((n->j->type & 0xff) == t)
		return 0;
	switch (t) {
	case cJSON_Object:
		w = "an object";
		break;
	case cJSON_Array:
		w = "an array";
		break;
	default:
		w = "a string";
		break;
	}
	ab_jdiag_add(dg, n->line, n->col, path, "expected %s, got %s", w, ab_json_type_name(n->j));
	return -1;
}

const struct ab_jnode *
ab_jnode_member(const struct ab_jnode *obj, const char *key)
{
	if (!obj || obj->type != '{')
		return NULL;
	for (size_t i = 0; i < obj->nkids; i++)
		if (!strcmp(obj->kids[i].j->string, key))
			return &obj->kids[i];
	return NULL;
}

void
ab_jdiag_check_keys(struct ab_jdiags *dg, const struct ab_jnode *obj, const char *path, const char *const *keys)
{
	for (size_t i = 0; i < obj->nkids; i++) {
		const struct ab_jnode *k = &obj->kids[i];
		const char *name = k->j->string;
		char *p = ab_jpath_key(path, name);
		int known = !keys;

		for (size_t j = 0; j < i; j++) {
			if (!strcmp(obj->kids[j].j->string, name)) {
				ab_jdiag_add(dg, k->kline, k->kcol, p, "duplicate key (first at %d:%d)",
				    obj->kids[j].kline, obj->kids[j].kcol);
				known = 1; /* one error is enough */
				break;
			}
		}
		for (size_t j = 0; keys && keys[j] && !known; j++)
			if (!strcmp(keys[j], name))
				known = 1;
		if (!known) {
			size_t nkeys = 0;
			const char *best;

			while (keys[nkeys])
				nkeys++;
			best = ab_closest(name, (char *const *)keys, nkeys);
			if (best)
				ab_jdiag_add(dg, k->kline, k->kcol, p, "unknown key (did you mean '%s'?)", best);
			else
				ab_jdiag_add(dg, k->kline, k->kcol, p, "unknown key");
		}
		free(p);
	}
}

void
ab_jdiag_missing(struct ab_jdiags *dg, const struct ab_jnode *obj, const char *path, const char *key)
{
	char *p = ab_jpath_key(path, key);

	ab_jdiag_add(dg, obj->line, obj->col, p, "required key is missing");
	free(p);
}
