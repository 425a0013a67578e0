/*
 * recipe: the recipe loader (docs/recipe.md).
 *
 * cJSON keeps no positions, so loading takes three steps:
 *   1. scan: a strict JSON scanner over the raw bytes that reports the
 *      first syntax error with its exact position and builds a tree of
 *      positions (one jnode per value, with the position of its key);
 *   2. cJSON parses the same bytes, and the two trees are walked in
 *      lockstep so that every cJSON item gets its jnode;
 *   3. the rules of the format are checked on that tree, every error is
 *      collected, and the errors are printed sorted by position.
 * The scanner is stricter than cJSON (it is the one that decides what is
 * valid JSON), so cJSON never rejects what the scanner accepted.
 */
#include <cjson/cJSON.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../lib/hash.h"
#include "../lib/member.h"
#include "../lib/pool.h"
#include "../lib/proc.h"
#include "recipe.h"
#include "../lib/strmap.h"
#include "../lib/util.h"

#define MAX_DEPTH 256
/* cJSON copies at most 63 characters of a number before strtod() */
#define MAX_NUMBER 63

/* position tree */
struct jnode {
	const cJSON *j;
	char type;          /* '{', '[', '"', 'n' (number), 't' (true/false), '0' (null) */
	int line, col;      /* of the value */
	int kline, kcol;    /* of the key, for object members */
	struct jnode *kids; /* members or elements, in document order */
	size_t nkids, cap;
};

static void
jnode_release(struct jnode *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		jnode_release(&n->kids[i]);
	free(n->kids);
}

static struct jnode *
jnode_add(struct jnode *n)
{
	if (n->nkids == n->cap) {
		n->cap = n->cap ? 2 * n->cap : 4;
		n->kids = ab_realloc(n->kids, n->cap * sizeof(*n->kids));
	}
	memset(&n->kids[n->nkids], 0, sizeof(*n->kids));
	return &n->kids[n->nkids++];
}

/* a string's index in lib/strmap, -1 when absent */
static long
map_get(const struct ab_strmap *m, const char *key)
{
	size_t v;

	return ab_strmap_get(m, key, &v) ? (long)v : -1;
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

static char *
pk(const char *path, const char *key)
{
	struct ab_buf b = {0};

	if (strcmp(path, "$"))
		ab_buf_puts(&b, path);
	path_add_key(&b, key, strlen(key));
	return ab_buf_detach(&b);
}

static char *
pi(const char *path, size_t i)
{
	return ab_sprintf("%s[%zu]", path, i);
}

/* a value shown in a message: printable, quoted, bounded */
static char *
shown(const char *s)
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

static void scan_value(struct scan *sc, struct jnode *n, int depth);

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
scan_object(struct scan *sc, struct jnode *n, int depth)
{
	char buf[32];

	if (scan_open(sc, '}'))
		return;
	for (;;) {
		struct jnode *k;
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
scan_array(struct scan *sc, struct jnode *n, int depth)
{
	if (scan_open(sc, ']'))
		return;
	for (;;) {
		struct jnode *e;
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
scan_value(struct scan *sc, struct jnode *n, int depth)
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
attach(struct jnode *n, const cJSON *j)
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
 * 3. The rules.
 */
struct diag {
	int line, col;
	size_t seq;
	char *msg; /* "path: message" */
};

struct edge {
	size_t from, to;
	int line, col;
	char *path;
};

struct ctx {
	struct ab_recipe *r;
	unsigned flags;
	struct diag *d;
	size_t nd, capd;
	/* labels in recipe order, NULL where missing or invalid */
	const char **labels;
	const struct jnode **lnodes; /* where each label is */
	struct ab_strmap lmap;       /* label -> variant index */
	struct ab_strmap smap;       /* source id -> source index */
	struct edge *e; /* dependencies between variants */
	size_t ne, cape;
	int no_sources; /* "sources" is missing or not an object: do not resolve source ids */
	struct edge *oe; /* overlays between sources */
	size_t noe, capoe;
	struct usecheck *uc; /* {variant:...} references, checked once every variant is parsed */
	size_t nuc, capuc;
};

/* where a variant reference was written, for the check of its label's kind and artifacts */
struct usecheck {
	size_t v, u;   /* variants[v].uses[u] */
	int line, col;
	char *path;
};

static void err(struct ctx *c, int line, int col, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void
err(struct ctx *c, int line, int col, const char *path, const char *fmt, ...)
{
	struct ab_buf b = {0};
	va_list ap;

	ab_buf_printf(&b, "%s: ", path);
	va_start(ap, fmt);
	ab_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	if (c->nd == c->capd) {
		c->capd = c->capd ? 2 * c->capd : 16;
		c->d = ab_realloc(c->d, c->capd * sizeof(*c->d));
	}
	c->d[c->nd].line = line;
	c->d[c->nd].col = col;
	c->d[c->nd].seq = c->nd;
	c->d[c->nd].msg = ab_buf_detach(&b);
	c->nd++;
}

static void
add_edge(struct edge **v, size_t *n, size_t *cap, size_t from, size_t to, const struct jnode *at,
    const char *path)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 8;
		*v = ab_realloc(*v, *cap * sizeof(**v));
	}
	(*v)[*n].from = from;
	(*v)[*n].to = to;
	(*v)[*n].line = at->line;
	(*v)[*n].col = at->col;
	(*v)[*n].path = ab_strdup(path);
	(*n)++;
}

static const char *
type_name(const cJSON *j)
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

/* is n of the cJSON type t (cJSON_String, ...)? reports when not */
static int
want(struct ctx *c, const struct jnode *n, const char *path, int t)
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
	err(c, n->line, n->col, path, "expected %s, got %s", w, type_name(n->j));
	return -1;
}

static const struct jnode *
member(const struct jnode *obj, const char *key)
{
	if (!obj || obj->type != '{')
		return NULL;
	for (size_t i = 0; i < obj->nkids; i++)
		if (!strcmp(obj->kids[i].j->string, key))
			return &obj->kids[i];
	return NULL;
}

static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[33], cur[33];

	if (la > 32 || lb > 32)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(prev));
	}
	return prev[lb];
}

/*
 * Report duplicate keys and, when keys is not NULL, unknown keys of an
 * object (keys is NULL-terminated).
 */
static void
check_keys(struct ctx *c, const struct jnode *obj, const char *path, const char *const *keys)
{
	for (size_t i = 0; i < obj->nkids; i++) {
		const struct jnode *k = &obj->kids[i];
		const char *name = k->j->string;
		char *p = pk(path, name);
		int known = !keys;

		for (size_t j = 0; j < i; j++) {
			if (!strcmp(obj->kids[j].j->string, name)) {
				err(c, k->kline, k->kcol, p, "duplicate key (first at %d:%d)", obj->kids[j].kline,
				    obj->kids[j].kcol);
				known = 1; /* one error is enough */
				break;
			}
		}
		for (size_t j = 0; keys && keys[j] && !known; j++)
			if (!strcmp(keys[j], name))
				known = 1;
		if (!known) {
			const char *best = NULL;
			size_t bd = 3;

			for (size_t j = 0; keys[j]; j++) {
				size_t d = edit_distance(name, keys[j]);

				if (d < bd && d < strlen(keys[j])) {
					bd = d;
					best = keys[j];
				}
			}
			if (best)
				err(c, k->kline, k->kcol, p, "unknown key (did you mean '%s'?)", best);
			else
				err(c, k->kline, k->kcol, p, "unknown key");
		}
		free(p);
	}
}

static void
missing(struct ctx *c, const struct jnode *obj, const char *path, const char *key)
{
	char *p = pk(path, key);

	err(c, obj->line, obj->col, p, "required key is missing");
	free(p);
}

/* a string member; NULL (reported when required) when missing or not a string */
static const char *
str_member(struct ctx *c, const struct jnode *obj, const char *path, const char *key, int required,
    const struct jnode **node)
{
	const struct jnode *m = member(obj, key);
	const char *s = NULL;
	char *p;

	if (node)
		*node = m;
	if (!m) {
		if (required)
			missing(c, obj, path, key);
		return NULL;
	}
	p = pk(path, key);
	if (want(c, m, p, cJSON_String) == 0)
		s = m->j->valuestring;
	free(p);
	return s;
}

static char *
dup_or_null(const char *s)
{
	return s ? ab_strdup(s) : NULL;
}

static int
is_ident(const char *s)
{
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '.' || *p == '_' || *p == '-'))
			return 0;
	return *s != '\0';
}

static int
check_ident(struct ctx *c, int line, int col, const char *path, const char *what, const char *s)
{
	char *v;

	if (is_ident(s))
		return 0;
	v = shown(s);
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		err(c, line, col, path, "invalid %s '%s': '.' and '..' are reserved", what, v);
	else
		err(c, line, col, path, "invalid %s '%s': use only letters, digits, '.', '_' and '-'", what, v);
	free(v);
	return -1;
}

/* a path that must stay inside a tree; where names the tree */
static int
check_rel_path(struct ctx *c, const struct jnode *n, const char *path, const char *s, const char *where)
{
	char *v;

	if (ab_path_is_safe_relative(s))
		return 0;
	v = shown(s);
	if (!*s)
		err(c, n->line, n->col, path, "empty path");
	else if (s[0] == '/')
		err(c, n->line, n->col, path, "'%s' is absolute: it must be relative to the %s", v, where);
	else
		err(c, n->line, n->col, path, "'%s' leaves the %s: '..' is not allowed", v, where);
	free(v);
	return -1;
}

static int
check_nonempty(struct ctx *c, const struct jnode *n, const char *path, const char *s)
{
	if (*s)
		return 0;
	err(c, n->line, n->col, path, "must not be empty");
	return -1;
}

/*
 * An integer member from min to max; returns -1 (reported) when it is not
 * an integer, or one out of the range the caller checks with the value
 * (below it, the callers' own words), or one that no int holds
 */
static int
int_value(struct ctx *c, const struct jnode *n, const char *path, int min, int max, int *out)
{
	double d;

	if (n->type != 'n') {
		err(c, n->line, n->col, path, "expected an integer, got %s", type_name(n->j));
		return -1;
	}
	d = n->j->valuedouble;
	/* a double of 2^53 or more is an integer; below, it converts (no libm needed) */
	if (d != d || d - d != 0 || (d > -9007199254740992.0 && d < 9007199254740992.0 && d != (double)(long long)d)) {
		err(c, n->line, n->col, path, "expected an integer, got %g", d);
		return -1;
	}
	/* range first: converting an out-of-range double is undefined */
	if (!(d >= (double)INT_MIN && d <= (double)INT_MAX) || (d > max && min >= 0) || (d < min && min < 0)) {
		if (d > -1e15 && d < 1e15)
			err(c, n->line, n->col, path, "out of range: expected an integer from %d to %d, got %.0f", min, max, d);
		else
			err(c, n->line, n->col, path, "out of range: expected an integer from %d to %d, got %g", min, max, d);
		return -1;
	}
	*out = (int)d;
	return 0;
}

enum { PATH_ANY, PATH_BUILD, PATH_SOURCE };

static const char *const tree_name[] = {NULL, "build directory", "source tree"};

/*
 * An array of strings into out (always NULL-terminated). Elements must be
 * non-empty when nonempty is set; paths checked when kind is not PATH_ANY.
 */
static void
str_list(struct ctx *c, const struct jnode *n, const char *path, struct ab_list *out, int nonempty, int kind)
{
	size_t k = 0;

	out->v = ab_calloc(1, sizeof(char *));
	out->n = 0;
	if (!n || want(c, n, path, cJSON_Array) < 0)
		return;
	out->v = ab_realloc(out->v, (n->nkids + 1) * sizeof(char *));
	for (size_t i = 0; i < n->nkids; i++) {
		const struct jnode *e = &n->kids[i];
		char *p = pi(path, i);

		if (want(c, e, p, cJSON_String) == 0) {
			const char *s = e->j->valuestring;

			if (kind != PATH_ANY)
				check_rel_path(c, e, p, s, tree_name[kind]);
			else if (nonempty)
				check_nonempty(c, e, p, s);
			out->v[k++] = ab_strdup(s);
		}
		free(p);
	}
	out->v[k] = NULL;
	out->n = k;
}

/* an array-of-strings member into out (which keeps its default when key is missing); the member or NULL */
static const struct jnode *
list_member(struct ctx *c, const struct jnode *obj, const char *path, const char *key, struct ab_list *out,
    int nonempty, int kind)
{
	const struct jnode *m = member(obj, key);
	char *p;

	if (!m)
		return NULL;
	free(out->v);
	p = pk(path, key);
	str_list(c, m, p, out, nonempty, kind);
	free(p);
	return m;
}

/*
 * A string member that must not be empty or, when kind is not PATH_ANY,
 * must be a path inside that tree: a copy, NULL when missing (reported
 * when required) or not a string.
 */
static char *
dup_member(struct ctx *c, const struct jnode *obj, const char *path, const char *key, int required, int kind)
{
	const struct jnode *m;
	const char *s = str_member(c, obj, path, key, required, &m);
	char *p;

	if (!s)
		return NULL;
	p = pk(path, key);
	if (kind != PATH_ANY)
		check_rel_path(c, m, p, s, tree_name[kind]);
	else
		check_nonempty(c, m, p, s);
	free(p);
	return ab_strdup(s);
}

/* an integer member from 1 (0 when zero_ok) to max; 0 when it is not */
static void
count_member(struct ctx *c, const struct jnode *obj, const char *path, const char *key, int zero_ok, int max,
    int *out)
{
	const struct jnode *m = member(obj, key);
	char *p;

	if (!m)
		return;
	p = pk(path, key);
	if (int_value(c, m, p, zero_ok ? 0 : 1, max, out) < 0)
		*out = 0;
	else if (*out < (zero_ok ? 0 : 1)) {
		if (zero_ok)
			err(c, m->line, m->col, p, "must not be negative, got %d", *out);
		else
			err(c, m->line, m->col, p, "must be a positive integer, got %d", *out);
		*out = 0;
	}
	free(p);
}

/* a CMake variable: anything but '=' (CMake's -DNAME=value splits at the first one) */
static int
valid_cmake_name(const char *s)
{
	return *s && !strchr(s, '=');
}

/* an environment variable: [A-Za-z_][A-Za-z0-9_]*, the one rule of lib/proc (env and probe --env use it too) */
static int
valid_env_name(const char *s)
{
	return ab_env_name_valid(s, strlen(s));
}

/* an object-of-strings member (env, defines) into out, in recipe order; names checked by valid */
static void
kv_member(struct ctx *c, const struct jnode *obj, const char *opath, const char *okey, struct ab_kvlist *out,
    const char *what, int (*valid)(const char *))
{
	const struct jnode *n = member(obj, okey);
	char *path;
	size_t k = 0;

	if (!n)
		return;
	path = pk(opath, okey);
	if (want(c, n, path, cJSON_Object) < 0) {
		free(path);
		return;
	}
	check_keys(c, n, path, NULL);
	out->v = ab_calloc(n->nkids ? n->nkids : 1, sizeof(*out->v));
	for (size_t i = 0; i < n->nkids; i++) {
		const struct jnode *e = &n->kids[i];
		const char *key = e->j->string;
		char *p = pk(path, key);

		if (!valid(key)) {
			char *v = shown(key);

			if (valid == valid_env_name)
				err(c, e->kline, e->kcol, p, "invalid %s name '%s': expected [A-Za-z_][A-Za-z0-9_]*", what, v);
			else
				err(c, e->kline, e->kcol, p, "invalid %s name '%s'", what, v);
			free(v);
		}
		if (want(c, e, p, cJSON_String) == 0) {
			out->v[k].key = ab_strdup(key);
			out->v[k].value = ab_strdup(e->j->valuestring);
			k++;
		}
		free(p);
	}
	out->n = k;
	free(path);
}

/* is s a plausible git ref name (git check-ref-format, loosely)? */
static int
is_ref_name(const char *s)
{
	size_t n = strlen(s);

	if (!n || s[0] == '-' || s[0] == '/' || s[n - 1] == '/' || s[n - 1] == '.' || strstr(s, "..") ||
	    strstr(s, "//") || strstr(s, "@{") || (n >= 5 && !strcmp(s + n - 5, ".lock")))
		return 0;
	for (const char *p = s; *p; p++)
		if ((unsigned char)*p <= 0x20 || *p == 0x7f || strchr("~^:?*[\\", *p))
			return 0;
	return 1;
}

/* an unpinned commit, said alike by validate and by ab_recipe_check_pins */
#define PIN_ERROR "'%s' is not a 40-digit commit id (use --allow-unpinned to resolve it)"

static void
pin_error(struct ctx *c, int line, int col, const char *path, const char *commit)
{
	char *v = shown(commit);

	err(c, line, col, path, PIN_ERROR, v);
	free(v);
}

static void
parse_git(struct ctx *c, struct ab_source *s, const struct jnode *g, const char *path)
{
	static const char *const keys[] = {"url", "commit", NULL};
	const struct jnode *m;
	const char *v;
	char *p;

	if (want(c, g, path, cJSON_Object) < 0)
		return;
	check_keys(c, g, path, keys);
	s->url = dup_member(c, g, path, "url", 1, PATH_ANY);
	v = str_member(c, g, path, "commit", 1, &m);
	if (v) {
		p = pk(path, "commit");
		s->commit = ab_strdup(v);
		s->commit_line = m->line;
		s->commit_col = m->col;
		if (!ab_is_hex(v, 40)) {
			if (!is_ref_name(v)) {
				char *sv = shown(v);

				err(c, m->line, m->col, p, "'%s' is neither a 40-digit commit id nor a ref name", sv);
				free(sv);
			} else {
				s->unpinned = 1;
				if (c->flags & AB_RECIPE_REQUIRE_PINS)
					pin_error(c, m->line, m->col, p, v);
			}
		}
		free(p);
	}
}

/*
 * A file the build reads whole or runs (a patch, build.cargo, build.rustc)
 * that exists must be a regular file: /dev/zero or a fifo would hang
 * fetch or build, holding the cache's lock. 0, or -1 with the error at n.
 */
static int
check_regular(struct ctx *c, const struct jnode *n, const char *p, const char *file, const char *shown_as)
{
	struct stat st;
	char *sv;

	if (stat(file, &st) < 0 || S_ISREG(st.st_mode))
		return 0;
	sv = shown(shown_as);
	err(c, n->line, n->col, p, "'%s' is not a regular file", sv);
	free(sv);
	return -1;
}

/* each patch: a file beside the recipe (relative to its directory, never absolute), a regular one */
static void
check_patches(struct ctx *c, const struct jnode *m, const char *path)
{
	char *p = pk(path, "patches");

	for (size_t i = 0; i < m->nkids; i++) {
		const struct jnode *e = &m->kids[i];
		char *q, *full, *sv;

		if (e->type != '"' || !*e->j->valuestring)
			continue;
		q = pi(p, i);
		if (e->j->valuestring[0] == '/') {
			sv = shown(e->j->valuestring);
			err(c, e->line, e->col, q, "'%s' is an absolute path: a patch is a file beside the recipe, relative "
			    "to its directory", sv);
			free(sv);
		} else {
			full = ab_recipe_path(c->r, e->j->valuestring);
			check_regular(c, e, q, full, e->j->valuestring);
			free(full);
		}
		free(q);
	}
	free(p);
}

static void
parse_archive(struct ctx *c, struct ab_source *s, const struct jnode *a, const char *path)
{
	static const char *const keys[] = {"urls", "sha256", "strip", "max_size_mib", NULL};
	const struct jnode *m;
	const char *v;
	char *p;

	if (want(c, a, path, cJSON_Object) < 0)
		return;
	check_keys(c, a, path, keys);
	m = member(a, "urls");
	p = pk(path, "urls");
	if (!m) {
		missing(c, a, path, "urls");
	} else {
		str_list(c, m, p, &s->urls, 1, PATH_ANY);
		if (m->type == '[' && !m->nkids)
			err(c, m->line, m->col, p, "at least one url is required");
	}
	free(p);
	v = str_member(c, a, path, "sha256", 1, &m);
	if (v) {
		p = pk(path, "sha256");
		if (!ab_is_hex(v, 64)) {
			char *sv = shown(v);

			err(c, m->line, m->col, p, "'%s' is not a sha256 (64 lowercase hex digits)", sv);
			free(sv);
		}
		s->sha256 = ab_strdup(v);
		free(p);
	}
	count_member(c, a, path, "strip", 1, AB_MEMBER_STRIP_MAX, &s->strip);
	count_member(c, a, path, "max_size_mib", 0, AB_ARCHIVE_MAX_MIB_MAX, &s->max_size_mib);
}

/* a directory beside the recipe, pinned by its dirHash (docs/recipe.md, "dir") */
static void
parse_dir(struct ctx *c, struct ab_source *s, const struct jnode *d, const char *path)
{
	static const char *const keys[] = {"path", "dirHash", NULL};
	const struct jnode *m;
	const char *v;

	if (want(c, d, path, cJSON_Object) < 0)
		return;
	check_keys(c, d, path, keys);
	v = str_member(c, d, path, "path", 1, &m);
	if (v) {
		char *p = pk(path, "path");

		if (check_rel_path(c, m, p, v, "recipe's directory") == 0)
			s->dir = ab_strdup(v);
		free(p);
	}
	v = str_member(c, d, path, "dirHash", 1, &m);
	if (v) {
		char *p = pk(path, "dirHash");

		if (!ab_is_hex(v, 64)) {
			char *sv = shown(v);

			err(c, m->line, m->col, p, "'%s' is not a dirHash (64 lowercase hex digits)", sv);
			free(sv);
		}
		s->dirhash = ab_strdup(v);
		free(p);
	}
}

static long
source_index(const struct ctx *c, const char *id)
{
	return map_get(&c->smap, id);
}

/* the index of the source named id at n; -1, reported, when there is none */
static long
source_ref(struct ctx *c, const struct jnode *n, const char *path, const char *id)
{
	long t = source_index(c, id);

	if (t < 0) {
		char *v = shown(id);

		err(c, n->line, n->col, path, "unknown source '%s'", v);
		free(v);
	}
	return t;
}

static void
parse_source(struct ctx *c, size_t idx, const struct jnode *n, const char *path)
{
	static const char *const keys[] = {"git", "archive", "dir", "patches", "prepare", "overlay", NULL};
	static const char *const kinds[] = {"git", "archive", "dir"};
	struct ab_source *s = &c->r->sources[idx];
	const struct jnode *k[3], *first = NULL, *m;
	size_t nk = 0, fk = 0;
	char *p;

	s->line = n->line;
	s->col = n->col;
	s->patches.v = ab_calloc(1, sizeof(char *));
	if (want(c, n, path, cJSON_Object) < 0) {
		s->urls.v = ab_calloc(1, sizeof(char *));
		return;
	}
	check_keys(c, n, path, keys);
	/* one kind: the first written counts, each later one is reported */
	for (size_t i = 0; i < 3; i++)
		if ((k[i] = member(n, kinds[i])) && (!first || k[i] < first))
			first = k[i], fk = i;
	for (size_t i = 0; i < 3; i++)
		nk += k[i] != NULL;
	if (!nk)
		err(c, n->line, n->col, path, "a source needs one of 'git', 'archive' or 'dir'");
	for (size_t i = 0; i < 3 && nk > 1; i++)
		if (k[i] && k[i] != first) {
			p = pk(path, kinds[i]);
			err(c, k[i]->kline, k[i]->kcol, p, "a source has one of 'git', 'archive' or 'dir', not several");
			free(p);
		}
	if (first) {
		p = pk(path, kinds[fk]);
		if (fk == 0) {
			s->kind = AB_SOURCE_GIT;
			parse_git(c, s, first, p);
		} else if (fk == 1) {
			s->kind = AB_SOURCE_ARCHIVE;
			parse_archive(c, s, first, p);
		} else {
			s->kind = AB_SOURCE_DIR;
			parse_dir(c, s, first, p);
		}
		free(p);
	}
	if (!s->urls.v)
		s->urls.v = ab_calloc(1, sizeof(char *));

	m = list_member(c, n, path, "patches", &s->patches, 1, PATH_ANY);
	if (m && m->type == '[')
		check_patches(c, m, path);

	m = member(n, "prepare");
	p = pk(path, "prepare");
	if (m && want(c, m, p, cJSON_Array) == 0) {
		s->prepare = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*s->prepare));
		for (size_t i = 0; i < m->nkids; i++) {
			const struct jnode *e = &m->kids[i];
			char *q = pi(p, i);
			struct ab_list *l = &s->prepare[s->nprepare];

			str_list(c, e, q, l, 0, PATH_ANY);
			s->nprepare++;
			if (e->type == '[') {
				if (!e->nkids)
					err(c, e->line, e->col, q, "empty command");
				else if (l->n && !l->v[0][0])
					err(c, e->kids[0].line, e->kids[0].col, q, "empty program name");
			}
			free(q);
		}
	}
	free(p);

	m = member(n, "overlay");
	p = pk(path, "overlay");
	if (m && want(c, m, p, cJSON_Object) == 0) {
		check_keys(c, m, p, NULL);
		s->overlays = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*s->overlays));
		for (size_t i = 0; i < m->nkids; i++) {
			const struct jnode *e = &m->kids[i];
			char *q = pk(p, e->j->string);
			struct jnode keynode = *e;
			long t;

			keynode.line = e->kline;
			keynode.col = e->kcol;
			check_rel_path(c, &keynode, q, e->j->string, "source tree");
			if (want(c, e, q, cJSON_String) == 0) {
				const char *v = e->j->valuestring;
				struct ab_overlay *o = &s->overlays[s->noverlays++];

				o->path = ab_strdup(e->j->string);
				o->source = ab_strdup(v);
				t = source_ref(c, e, q, v);
				if (t >= 0 && (size_t)t == idx)
					err(c, e->line, e->col, q, "a source cannot overlay itself");
				else if (t >= 0)
					add_edge(&c->oe, &c->noe, &c->capoe, idx, (size_t)t, e, q);
			}
			free(q);
		}
	}
	free(p);
}

static long
label_index(struct ctx *c, const char *label)
{
	return map_get(&c->lmap, label);
}

/* a reference to another variant; records the dependency */
static long
variant_ref(struct ctx *c, size_t idx, const struct jnode *n, const char *path, const char *label)
{
	long t = label_index(c, label);

	if (t < 0) {
		char *v = shown(label);

		err(c, n->line, n->col, path, "unknown variant '%s'", v);
		free(v);
		return -1;
	}
	add_edge(&c->e, &c->ne, &c->cape, idx, (size_t)t, n, path);
	return t;
}

/* the {variant:LABEL:PATH} references of the string n (at path), added to v->uses once each */
static void
string_refs(struct ctx *c, size_t idx, struct ab_variant *v, const struct jnode *n, const char *path)
{
	const char *s = n->j->valuestring;
	size_t pos = 0, start, end;
	struct ab_varref ref;
	int r;

	while ((r = ab_varref_next(s, &pos, &start, &end, &ref)) != 0) {
		size_t u;

		if (r < 0) {
			char *sv = shown(s + start);

			err(c, n->line, n->col, path, "malformed variant reference at '%s': expected {variant:LABEL:PATH}",
			    sv);
			free(sv);
			continue;
		}
		if (v->label && !strcmp(ref.label, v->label)) {
			err(c, n->line, n->col, path, "a variant cannot use its own artifact");
			ab_varref_release(&ref);
			continue;
		}
		if (check_rel_path(c, n, path, ref.path, "build directory of the variant used") < 0 ||
		    variant_ref(c, idx, n, path, ref.label) < 0) {
			ab_varref_release(&ref);
			continue;
		}
		for (u = 0; u < v->nuses; u++)
			if (!strcmp(v->uses[u].label, ref.label) && !strcmp(v->uses[u].path, ref.path))
				break;
		if (u < v->nuses) {
			ab_varref_release(&ref);
			continue;
		}
		v->uses = ab_realloc(v->uses, (v->nuses + 1) * sizeof(*v->uses));
		v->uses[v->nuses++] = ref;
		if (c->nuc == c->capuc) {
			c->capuc = c->capuc ? 2 * c->capuc : 8;
			c->uc = ab_realloc(c->uc, c->capuc * sizeof(*c->uc));
		}
		c->uc[c->nuc++] = (struct usecheck){idx, u, n->line, n->col, ab_strdup(path)};
	}
}

/* the references of configure, defines and env (the values, not the names) */
static void
build_refs(struct ctx *c, size_t idx, struct ab_variant *v, const struct jnode *b, const char *path)
{
	static const char *const lists[] = {"configure", "defines", "env"};

	for (size_t k = 0; k < AB_NELEM(lists); k++) {
		const struct jnode *m = member(b, lists[k]);
		char *mp;

		if (!m || (m->type != '[' && m->type != '{'))
			continue;
		mp = pk(path, lists[k]);
		for (size_t i = 0; i < m->nkids; i++) {
			char *ep = m->type == '[' ? pi(mp, i) : pk(mp, m->kids[i].j->string);

			if (m->kids[i].type == '"')
				string_refs(c, idx, v, &m->kids[i], ep);
			free(ep);
		}
		free(mp);
	}
}

/* does variant t have the artifact path (its artifacts, allocator archive, a relink's output)? */
static int
has_artifact(const struct ab_variant *t, const char *path)
{
	for (size_t i = 0; i < t->artifacts.n; i++)
		if (!strcmp(t->artifacts.v[i], path))
			return 1;
	return (t->allocator.archive && !strcmp(t->allocator.archive, path)) ||
	    (t->kind == AB_VARIANT_RELINK && t->relink.output && !strcmp(t->relink.output, path));
}

/* every reference names a build or relink variant and one of its artifacts */
static void
check_uses(struct ctx *c)
{
	for (size_t i = 0; i < c->nuc; i++) {
		const struct usecheck *k = &c->uc[i];
		const struct ab_varref *ref = &c->r->variants[k->v].uses[k->u];
		long t = label_index(c, ref->label);
		const struct ab_variant *tv = t >= 0 ? &c->r->variants[t] : NULL;
		char *lv = shown(ref->label), *pv = shown(ref->path);

		if (tv && tv->kind == AB_VARIANT_RUNTIME)
			err(c, k->line, k->col, k->path,
			    "variant '%s' is a runtime_of variant and builds nothing: use its base '%s'", lv,
			    tv->runtime_of ? tv->runtime_of : "?");
		else if (tv && !has_artifact(tv, ref->path))
			err(c, k->line, k->col, k->path,
			    "'%s' is not an artifact of variant '%s': list it in that variant's 'artifacts'", pv, lv);
		free(lv);
		free(pv);
		free(c->uc[i].path);
	}
	free(c->uc);
	c->uc = NULL;
	c->nuc = c->capuc = 0;
}

/* the keys only one build system takes: each refused, at its key, for the others */
static void
system_keys(struct ctx *c, enum ab_build_system sys, const struct jnode *b, const char *path)
{
	static const struct {
		const char *key;
		enum ab_build_system only;
		const char *systems;
	} own[] = {{"profile", AB_BUILD_CARGO, "cargo"}, {"features", AB_BUILD_CARGO, "cargo"},
		{"bins", AB_BUILD_CARGO, "cargo"}, {"vendor", AB_BUILD_CARGO, "cargo"},
		{"cargo", AB_BUILD_CARGO, "cargo"}, {"rustc", AB_BUILD_CARGO, "cargo"},
		{"configure", AB_BUILD_AUTOTOOLS, "autotools"}, {"defines", AB_BUILD_CMAKE, "cmake"},
		{"generator", AB_BUILD_CMAKE, "cmake"}, {"targets", AB_BUILD_AUTOTOOLS, "autotools and cmake"}};
	static const char *const names[] = {"autotools", "cmake", "cargo"};

	for (size_t i = 0; i < AB_NELEM(own); i++) {
		const struct jnode *m = member(b, own[i].key);
		char *p;

		/* autotools and cmake report each other's keys already; targets serve both */
		if (!m || own[i].only == sys || (sys != AB_BUILD_CARGO && own[i].only != AB_BUILD_CARGO))
			continue;
		p = pk(path, own[i].key);
		err(c, m->kline, m->kcol, p, "'%s' is for %s builds, not %s", own[i].key, own[i].systems,
		    names[sys]);
		free(p);
	}
}

/* a cargo profile or binary name: what cargo accepts, never a path */
static int
valid_cargo_name(const char *s)
{
	if (!*s || *s == '-')
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
		    *s == '_' || *s == '-'))
			return 0;
	return 1;
}

/* a cargo feature: NAME or CRATE/NAME (cargo's own syntax), no spaces or commas */
static int
valid_cargo_feature(const char *s)
{
	const char *slash = strchr(s, '/');

	if (!*s || strpbrk(s, " ,\t") || *s == '-')
		return 0;
	return !slash || (slash != s && slash[1] && !strchr(slash + 1, '/'));
}

static void
check_names(struct ctx *c, const struct jnode *m, const char *path, const struct ab_list *l,
    int (*valid)(const char *), const char *what)
{
	if (!m || m->type != '[')
		return;
	for (size_t i = 0, k = 0; i < m->nkids && k < l->n; i++) {
		char *p, *sv;

		if (m->kids[i].type != '"')
			continue;
		if (valid(l->v[k])) {
			k++;
			continue;
		}
		p = pi(path, i);
		sv = shown(l->v[k]);
		err(c, m->kids[i].line, m->kids[i].col, p, "invalid %s '%s'", what, sv);
		free(sv);
		free(p);
		k++;
	}
}

/* an absolute path of a tool (cargo, rustc), or NULL */
static char *
tool_member(struct ctx *c, const struct jnode *b, const char *path, const char *key)
{
	const struct jnode *m;
	char *s = dup_member(c, b, path, key, 0, PATH_ANY), *p;

	if (s && *s && *s != '/') {
		char *sv = shown(s);

		m = member(b, key);
		p = pk(path, key);
		err(c, m->line, m->col, p, "'%s' is not an absolute path (without one, %s is what PATH finds)", sv, key);
		free(sv);
		free(p);
	} else if (s && *s) {
		m = member(b, key);
		p = pk(path, key);
		check_regular(c, m, p, s, s);
		free(p);
	}
	return s;
}

/* profile, features, bins, vendor, cargo and rustc of a cargo build (docs/recipe.md, "Cargo builds") */
static void
cargo_members(struct ctx *c, struct ab_variant *v, const struct jnode *b, const char *path)
{
	const struct jnode *m;
	char *p;

	v->build.profile = dup_member(c, b, path, "profile", 0, PATH_ANY);
	if (v->build.profile && !valid_cargo_name(v->build.profile)) {
		char *sv = shown(v->build.profile);

		m = member(b, "profile");
		p = pk(path, "profile");
		err(c, m->line, m->col, p, "invalid cargo profile name '%s': expected [A-Za-z0-9_-]+", sv);
		free(sv);
		free(p);
	}
	m = list_member(c, b, path, "features", &v->build.features, 1, PATH_ANY);
	p = pk(path, "features");
	check_names(c, m, p, &v->build.features, valid_cargo_feature, "cargo feature");
	free(p);
	m = list_member(c, b, path, "bins", &v->build.bins, 1, PATH_ANY);
	p = pk(path, "bins");
	check_names(c, m, p, &v->build.bins, valid_cargo_name, "cargo binary name");
	free(p);
	v->build.vendor = dup_member(c, b, path, "vendor", 0, PATH_SOURCE);
	v->build.cargo = tool_member(c, b, path, "cargo");
	v->build.rustc = tool_member(c, b, path, "rustc");
}

static void
parse_build(struct ctx *c, size_t idx, struct ab_variant *v, const struct jnode *b, const char *path)
{
	static const char *const keys[] = {"system", "configure", "defines", "generator", "targets", "jobs",
		"env", "profile", "features", "bins", "vendor", "cargo", "rustc", NULL};
	const struct jnode *m, *cf, *df, *gen;
	const char *s;
	char *p;

	v->build.configure.v = ab_calloc(1, sizeof(char *));
	v->build.targets.v = ab_calloc(1, sizeof(char *));
	v->build.features.v = ab_calloc(1, sizeof(char *));
	v->build.bins.v = ab_calloc(1, sizeof(char *));
	if (want(c, b, path, cJSON_Object) < 0)
		return;
	check_keys(c, b, path, keys);
	s = str_member(c, b, path, "system", 1, &m);
	cf = member(b, "configure");
	df = member(b, "defines");
	gen = member(b, "generator");
	if (s) {
		if (!strcmp(s, "autotools")) {
			v->build.system = AB_BUILD_AUTOTOOLS;
			if (df) {
				p = pk(path, "defines");
				err(c, df->kline, df->kcol, p,
				    "'defines' is for cmake builds; an autotools build takes 'configure'");
				free(p);
			}
			if (gen) {
				p = pk(path, "generator");
				err(c, gen->kline, gen->kcol, p, "'generator' is for cmake builds");
				free(p);
			}
		} else if (!strcmp(s, "cmake")) {
			v->build.system = AB_BUILD_CMAKE;
			if (cf) {
				p = pk(path, "configure");
				err(c, cf->kline, cf->kcol, p,
				    "'configure' is for autotools builds; a cmake build takes 'defines'");
				free(p);
			}
		} else if (!strcmp(s, "cargo")) {
			v->build.system = AB_BUILD_CARGO;
		} else {
			char *sv = shown(s);

			p = pk(path, "system");
			err(c, m->line, m->col, p, "unknown build system '%s' (expected 'autotools', 'cmake' or 'cargo')",
			    sv);
			free(sv);
			free(p);
		}
	}
	if (s)
		system_keys(c, v->build.system, b, path);
	list_member(c, b, path, "configure", &v->build.configure, 0, PATH_ANY);
	kv_member(c, b, path, "defines", &v->build.defines, "cmake variable", valid_cmake_name);
	v->build.generator = dup_member(c, b, path, "generator", 0, PATH_ANY);
	if (!v->build.generator)
		v->build.generator = ab_strdup("Unix Makefiles");
	list_member(c, b, path, "targets", &v->build.targets, 1, PATH_ANY);
	count_member(c, b, path, "jobs", 0, AB_POOL_MAX, &v->build.jobs);
	kv_member(c, b, path, "env", &v->build.env, "environment variable", valid_env_name);
	cargo_members(c, v, b, path);
	build_refs(c, idx, v, b, path);
}

static void
parse_relink(struct ctx *c, size_t idx, struct ab_variant *v, const struct jnode *rl, const char *path)
{
	static const char *const keys[] = {"from", "link_txt", "replace", "output", NULL};
	static const char *const rkeys[] = {"path", "with", NULL};
	static const char *const wkeys[] = {"variant", "artifact", NULL};
	const struct jnode *m;
	const char *s;
	char *p;

	if (want(c, rl, path, cJSON_Object) < 0)
		return;
	check_keys(c, rl, path, keys);
	s = str_member(c, rl, path, "from", 1, &m);
	if (s) {
		long t;

		p = pk(path, "from");
		v->relink.from = ab_strdup(s);
		t = variant_ref(c, idx, m, p, s);
		if (t >= 0 && c->r->variants[t].kind != AB_VARIANT_BUILD && c->labels[t]) {
			char *sv = shown(s);

			err(c, m->line, m->col, p, "variant '%s' is not a build variant", sv);
			free(sv);
		}
		free(p);
	}
	v->relink.link_txt = dup_member(c, rl, path, "link_txt", 1, PATH_BUILD);
	v->relink.output = dup_member(c, rl, path, "output", 1, PATH_BUILD);
	m = member(rl, "replace");
	p = pk(path, "replace");
	if (!m) {
		missing(c, rl, path, "replace");
	} else if (want(c, m, p, cJSON_Array) == 0) {
		if (!m->nkids)
			err(c, m->line, m->col, p, "at least one replacement is required");
		v->relink.replace = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*v->relink.replace));
		for (size_t i = 0; i < m->nkids; i++) {
			const struct jnode *e = &m->kids[i], *w, *x;
			struct ab_replace *rp = &v->relink.replace[v->relink.nreplace];
			char *q = pi(p, i), *wp;

			if (want(c, e, q, cJSON_Object) < 0) {
				free(q);
				continue;
			}
			v->relink.nreplace++;
			check_keys(c, e, q, rkeys);
			rp->path = dup_member(c, e, q, "path", 1, PATH_ANY);
			if (rp->path) {
				char *pp = pk(q, "path");

				string_refs(c, idx, v, member(e, "path"), pp);
				free(pp);
			}
			w = member(e, "with");
			wp = pk(q, "with");
			if (!w) {
				missing(c, e, q, "with");
			} else if (want(c, w, wp, cJSON_Object) == 0) {
				check_keys(c, w, wp, wkeys);
				s = str_member(c, w, wp, "variant", 1, &x);
				if (s) {
					char *vp = pk(wp, "variant");

					rp->with_variant = ab_strdup(s);
					variant_ref(c, idx, x, vp, s);
					free(vp);
				}
				rp->with_artifact = dup_member(c, w, wp, "artifact", 1, PATH_BUILD);
			}
			free(wp);
			free(q);
		}
	}
	free(p);
}

static void
parse_allocator(struct ctx *c, struct ab_variant *v, const struct jnode *n, const char *path)
{
	static const char *const keys[] = {"kind", "archive", "vendored", "upstream", NULL};
	const struct jnode *m;
	const char *s;
	char *p;

	if (want(c, n, path, cJSON_Object) < 0)
		return;
	v->allocator.present = 1;
	check_keys(c, n, path, keys);
	s = str_member(c, n, path, "kind", 1, &m);
	if (s) {
		if (strcmp(s, "jemalloc") && strcmp(s, "mimalloc")) {
			char *sv = shown(s);

			p = pk(path, "kind");
			err(c, m->line, m->col, p, "unknown allocator kind '%s' (expected 'jemalloc' or 'mimalloc')",
			    sv);
			free(sv);
			free(p);
		}
		v->allocator.kind = ab_strdup(s);
	}
	v->allocator.archive = dup_member(c, n, path, "archive", 0, PATH_BUILD);
	v->allocator.vendored = dup_member(c, n, path, "vendored", 0, PATH_SOURCE);
	s = str_member(c, n, path, "upstream", 0, &m);
	if (s) {
		if (!c->no_sources) {
			p = pk(path, "upstream");
			source_ref(c, m, p, s);
			free(p);
		}
		v->allocator.upstream = ab_strdup(s);
	}
}

static void
parse_runtime(struct ctx *c, struct ab_variant *v, const struct jnode *n, const char *path)
{
	static const char *const keys[] = {"env", "unset", NULL};
	const struct jnode *m;
	char *p;

	if (want(c, n, path, cJSON_Object) < 0)
		return;
	check_keys(c, n, path, keys);
	kv_member(c, n, path, "env", &v->runtime.env, "environment variable", valid_env_name);
	m = list_member(c, n, path, "unset", &v->runtime.unset, 0, PATH_ANY);
	if (!m || m->type != '[')
		return;
	p = pk(path, "unset");
	for (size_t i = 0; i < m->nkids; i++) {
		const struct jnode *e = &m->kids[i];

		if (e->type == '"' && !valid_env_name(e->j->valuestring)) {
			char *q = pi(p, i), *sv = shown(e->j->valuestring);

			err(c, e->line, e->col, q, "invalid environment variable name '%s': expected [A-Za-z_][A-Za-z0-9_]*", sv);
			free(sv);
			free(q);
		}
	}
	free(p);
}

static void
parse_probe(struct ctx *c, struct ab_variant *v, const struct jnode *n, const char *path)
{
	static const char *const keys[] = {"args", "timeout", NULL};

	if (want(c, n, path, cJSON_Object) < 0)
		return;
	check_keys(c, n, path, keys);
	list_member(c, n, path, "args", &v->probe.args, 0, PATH_ANY);
	count_member(c, n, path, "timeout", 0, INT_MAX, &v->probe.timeout);
}

/* an allocator option name as probes report it: lg_extent_max_active_fit, purge_delay */
static int
valid_option_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(*s >= 'a' && *s <= 'z') && !(*s >= '0' && *s <= '9') && *s != '_' && *s != '.')
			return 0;
	return 1;
}

static void
parse_expect(struct ctx *c, struct ab_variant *v, const struct jnode *n, const char *path)
{
	static const char *const keys[] = {"version", "secure", "options", NULL};
	const struct jnode *m;

	v->expect.present = 1;
	if (want(c, n, path, cJSON_Object) < 0)
		return;
	check_keys(c, n, path, keys);
	v->expect.version = dup_member(c, n, path, "version", 0, PATH_ANY);
	if ((m = member(n, "secure"))) {
		char *p = pk(path, "secure");

		if (int_value(c, m, p, 0, 4, &v->expect.secure) < 0)
			v->expect.secure = -1;
		free(p);
	}
	kv_member(c, n, path, "options", &v->expect.options, "allocator option", valid_option_name);
}

/* "reproducible": a boolean, on build variants only (a relink or runtime_of is what its variants are) */
static void
parse_reproducible(struct ctx *c, struct ab_variant *v, const struct jnode *m, const char *path)
{
	char *p;

	if (!m)
		return;
	p = pk(path, "reproducible");
	if (!cJSON_IsBool(m->j))
		err(c, m->line, m->col, p, "expected a boolean, got %s", type_name(m->j));
	else if (v->kind != AB_VARIANT_BUILD)
		err(c, m->kline, m->kcol, p,
		    "'reproducible' is for build variants (a relink or runtime_of is as reproducible as the variants it uses)");
	else
		v->reproducible = cJSON_IsTrue(m->j);
	free(p);
}

/* "sandbox": a boolean, on any variant: its steps (build, relink, probe) run in the build sandbox */
static void
parse_sandbox(struct ctx *c, struct ab_variant *v, const struct jnode *m, const char *path)
{
	char *p;

	if (!m)
		return;
	p = pk(path, "sandbox");
	if (!cJSON_IsBool(m->j))
		err(c, m->line, m->col, p, "expected a boolean, got %s", type_name(m->j));
	else
		v->sandbox = cJSON_IsTrue(m->j);
	free(p);
}

/* the kind of a variant, from its first kind key; set before references are resolved */
static void
variant_kind(struct ctx *c, struct ab_variant *v, const struct jnode *n, const char *path)
{
	static const char *const kinds[] = {"source", "relink", "runtime_of"};
	const struct jnode *first = NULL;
	size_t fk = 0;

	v->kind = AB_VARIANT_BUILD;
	if (!n || n->type != '{')
		return;
	for (size_t i = 0; i < n->nkids; i++) {
		const struct jnode *m = &n->kids[i];

		for (size_t k = 0; k < AB_NELEM(kinds); k++) {
			if (strcmp(m->j->string, kinds[k]))
				continue;
			if (!first) {
				first = m;
				fk = k;
			} else if (strcmp(first->j->string, m->j->string) && path) {
				char *p = pk(path, m->j->string);

				err(c, m->kline, m->kcol, p,
				    "a variant has exactly one of 'source', 'relink' or 'runtime_of' (already has '%s')",
				    kinds[fk]);
				free(p);
			}
		}
	}
	if (!first) {
		if (path)
			err(c, n->line, n->col, path, "a variant needs one of 'source', 'relink' or 'runtime_of'");
		return;
	}
	v->kind = fk == 0 ? AB_VARIANT_BUILD : fk == 1 ? AB_VARIANT_RELINK : AB_VARIANT_RUNTIME;
}

static void
parse_variant(struct ctx *c, size_t idx, const struct jnode *n, const char *path)
{
	static const char *const keys[] = {"label", "source", "build", "relink", "runtime_of", "artifacts",
		"allocator", "runtime", "probe", "expect", "reproducible", "sandbox", NULL};
	struct ab_variant *v = &c->r->variants[idx];
	const struct jnode *m, *b;
	const char *s;
	char *p;

	v->line = n->line;
	v->col = n->col;
	v->reproducible = 1;
	v->sandbox = 1;
	v->artifacts.v = ab_calloc(1, sizeof(char *));
	v->runtime.unset.v = ab_calloc(1, sizeof(char *));
	v->probe.args.v = ab_calloc(1, sizeof(char *));
	if (n->type != '{')
		return; /* reported by the label pass */
	check_keys(c, n, path, keys);
	variant_kind(c, v, n, path);
	s = str_member(c, n, path, "label", 1, NULL);
	if (s)
		v->label = ab_strdup(s);

	b = member(n, "build");
	s = str_member(c, n, path, "source", 0, &m);
	if (v->kind == AB_VARIANT_BUILD && member(n, "source")) {
		if (!b)
			missing(c, n, path, "build");
		if (s) {
			v->source = ab_strdup(s);
			if (!c->no_sources) {
				p = pk(path, "source");
				source_ref(c, m, p, s);
				free(p);
			}
		}
	}
	if (b) {
		p = pk(path, "build");
		if (v->kind != AB_VARIANT_BUILD || !member(n, "source"))
			err(c, b->kline, b->kcol, p, "'build' needs 'source' (only build variants have it)");
		else
			parse_build(c, idx, v, b, p);
		free(p);
	}
	if (!v->build.configure.v) {
		v->build.configure.v = ab_calloc(1, sizeof(char *));
		v->build.targets.v = ab_calloc(1, sizeof(char *));
	}

	m = member(n, "relink");
	if (m && v->kind == AB_VARIANT_RELINK) {
		p = pk(path, "relink");
		parse_relink(c, idx, v, m, p);
		free(p);
	}
	s = str_member(c, n, path, "runtime_of", 0, &m);
	if (s && v->kind == AB_VARIANT_RUNTIME) {
		p = pk(path, "runtime_of");
		v->runtime_of = ab_strdup(s);
		variant_ref(c, idx, m, p, s);
		free(p);
	}

	list_member(c, n, path, "artifacts", &v->artifacts, 1, PATH_BUILD);
	m = member(n, "allocator");
	if (m) {
		p = pk(path, "allocator");
		parse_allocator(c, v, m, p);
		free(p);
	}
	m = member(n, "runtime");
	if (m) {
		p = pk(path, "runtime");
		parse_runtime(c, v, m, p);
		free(p);
	}
	v->expect.secure = -1;
	m = member(n, "expect");
	if (m) {
		p = pk(path, "expect");
		parse_expect(c, v, m, p);
		free(p);
	}
	m = member(n, "probe");
	if (m) {
		p = pk(path, "probe");
		if (v->kind == AB_VARIANT_RUNTIME)
			err(c, m->kline, m->kcol, p, "a runtime_of variant is probed like its base: set 'probe' there");
		else
			parse_probe(c, v, m, p);
		free(p);
	}
	parse_reproducible(c, v, member(n, "reproducible"), path);
	parse_sandbox(c, v, member(n, "sandbox"), path);
	/* an allocator variant must have something to probe */
	m = member(n, "allocator");
	if (m && m->type == '{' && v->kind != AB_VARIANT_RUNTIME && !member(n, "artifacts") &&
	    !member(m, "archive")) {
		p = pk(path, "allocator");
		err(c, m->kline, m->kcol, p, "nothing to probe: give the variant 'artifacts' or 'allocator.archive'");
		free(p);
	}
}

/* report every cycle of the graph (edges from -> to over n nodes) once, where it closes */
static void
find_cycles(struct ctx *c, size_t n, const struct edge *e, size_t ne, const char *what, int variants)
{
	/* 0 white, 1 on the stack, 2 done; iterative DFS so deep chains cannot overflow the stack */
	unsigned char *color = ab_calloc(n ? n : 1, 1);
	size_t *stack = ab_calloc(n ? n : 1, sizeof(size_t));
	size_t *next = ab_calloc(n ? n : 1, sizeof(size_t)); /* next edge to look at per node */
	size_t *first = ab_calloc(n + 1, sizeof(size_t));   /* node u's edges: adj[first[u]..first[u+1]) */
	size_t *adj = ab_calloc(ne ? ne : 1, sizeof(size_t));

	for (size_t k = 0; k < ne; k++)
		first[e[k].from + 1]++;
	for (size_t u = 0; u < n; u++)
		first[u + 1] += first[u];
	for (size_t k = 0; k < ne; k++)
		adj[next[e[k].from]++ + first[e[k].from]] = k; /* edges keep their recipe order */

	for (size_t root = 0; root < n; root++) {
		size_t sp = 0;

		if (color[root])
			continue;
		stack[sp++] = root;
		color[root] = 1;
		next[root] = first[root];
		while (sp) {
			size_t u = stack[sp - 1], k;

			if (next[u] == first[u + 1]) {
				color[u] = 2;
				sp--;
				continue;
			}
			k = adj[next[u]++];
			if (color[e[k].to] == 0) {
				color[e[k].to] = 1;
				next[e[k].to] = first[e[k].to];
				stack[sp++] = e[k].to;
			} else if (color[e[k].to] == 1) {
				struct ab_buf b = {0};
				size_t at = 0;

				while (stack[at] != e[k].to)
					at++;
				for (size_t i = at; i < sp; i++) {
					const char *name = variants ? c->r->variants[stack[i]].label
					                            : c->r->sources[stack[i]].id;

					ab_buf_printf(&b, "%s -> ", name ? name : "?");
				}
				ab_buf_puts(&b, variants ? c->r->variants[e[k].to].label : c->r->sources[e[k].to].id);
				err(c, e[k].line, e[k].col, e[k].path, "%s cycle: %s", what, b.s);
				ab_buf_free(&b);
			}
		}
	}
	free(color);
	free(stack);
	free(next);
	free(first);
	free(adj);
}

static int
diag_cmp(const void *a, const void *b)
{
	const struct diag *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	if (x->col != y->col)
		return x->col < y->col ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void
check_recipe(struct ctx *c, const struct jnode *root)
{
	static const char *const keys[] = {"recipe", "name", "description", "sources", "variants", NULL};
	struct ab_recipe *r = c->r;
	const struct jnode *m, *vs;
	const char *s;

	if (want(c, root, "$", cJSON_Object) < 0)
		return;
	check_keys(c, root, "$", keys);

	m = member(root, "recipe");
	if (!m) {
		missing(c, root, "$", "recipe");
	} else if (int_value(c, m, "recipe", INT_MIN, INT_MAX, &r->format) == 0 && r->format != 1) {
		err(c, m->line, m->col, "recipe", "unsupported recipe format %d (this allocbuild reads format 1)",
		    r->format);
	}
	s = str_member(c, root, "$", "name", 1, &m);
	if (s) {
		check_ident(c, m->line, m->col, "name", "name", s);
		r->name = ab_strdup(s);
	}
	r->description = dup_or_null(str_member(c, root, "$", "description", 0, NULL));

	/* sources first: variants refer to them wherever they are in the file */
	m = member(root, "sources");
	c->no_sources = !m || m->type != '{';
	if (!m) {
		missing(c, root, "$", "sources");
	} else if (want(c, m, "sources", cJSON_Object) == 0) {
		check_keys(c, m, "sources", NULL);
		r->sources = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*r->sources));
		/* ids first, so that overlays may name a later source */
		for (size_t i = 0; i < m->nkids; i++) {
			const struct jnode *e = &m->kids[i];
			char *p = pk("sources", e->j->string);

			if (check_ident(c, e->kline, e->kcol, p, "source id", e->j->string) == 0 &&
			    source_index(c, e->j->string) < 0) {
				r->sources[i].id = ab_strdup(e->j->string);
				ab_strmap_put(&c->smap, r->sources[i].id, i);
			}
			r->nsources++;
			free(p);
		}
		for (size_t i = 0; i < m->nkids; i++) {
			char *p = pk("sources", m->kids[i].j->string);

			parse_source(c, i, &m->kids[i], p);
			free(p);
		}
		find_cycles(c, r->nsources, c->oe, c->noe, "overlay", 0);
	}

	vs = member(root, "variants");
	if (!vs) {
		missing(c, root, "$", "variants");
		return;
	}
	if (want(c, vs, "variants", cJSON_Array) < 0)
		return;
	if (!vs->nkids) {
		err(c, vs->line, vs->col, "variants", "at least one variant is required");
		return;
	}
	r->variants = ab_calloc(vs->nkids, sizeof(*r->variants));
	r->nvariants = vs->nkids;
	c->labels = ab_calloc(vs->nkids, sizeof(*c->labels));
	c->lnodes = ab_calloc(vs->nkids, sizeof(*c->lnodes));
	/* labels and kinds first: references may point forward */
	for (size_t i = 0; i < vs->nkids; i++) {
		const struct jnode *e = &vs->kids[i], *l;
		char *p = pi("variants", i);

		if (want(c, e, p, cJSON_Object) == 0) {
			variant_kind(c, &r->variants[i], e, NULL);
			l = member(e, "label");
			if (l && l->type == '"') {
				char *lp = pk(p, "label");
				const char *ls = l->j->valuestring;
				long prev = label_index(c, ls);

				if (check_ident(c, l->line, l->col, lp, "label", ls) == 0) {
					if (prev >= 0) {
						char *sv = shown(ls);

						err(c, l->line, l->col, lp, "duplicate label '%s' (first at %d:%d)", sv,
						    c->lnodes[prev]->line, c->lnodes[prev]->col);
						free(sv);
					} else {
						c->labels[i] = ls;
						c->lnodes[i] = l;
						ab_strmap_put(&c->lmap, ls, i);
					}
				}
				free(lp);
			}
			r->variants[i].line = e->line;
			r->variants[i].col = e->col;
		}
		free(p);
	}
	for (size_t i = 0; i < vs->nkids; i++) {
		char *p = pi("variants", i);

		parse_variant(c, i, &vs->kids[i], p);
		free(p);
	}
	check_uses(c);
	find_cycles(c, r->nvariants, c->e, c->ne, "dependency", 1);
}

void
ab_recipe_free(struct ab_recipe *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nsources; i++) {
		struct ab_source *s = &r->sources[i];

		free(s->id);
		free(s->url);
		free(s->commit);
		ab_list_free(&s->urls);
		free(s->sha256);
		free(s->dir);
		free(s->dirhash);
		ab_list_free(&s->patches);
		for (size_t j = 0; j < s->nprepare; j++)
			ab_list_free(&s->prepare[j]);
		free(s->prepare);
		for (size_t j = 0; j < s->noverlays; j++) {
			free(s->overlays[j].path);
			free(s->overlays[j].source);
		}
		free(s->overlays);
	}
	free(r->sources);
	for (size_t i = 0; i < r->nvariants; i++) {
		struct ab_variant *v = &r->variants[i];

		free(v->label);
		free(v->source);
		ab_list_free(&v->build.configure);
		ab_kvlist_free(&v->build.defines);
		for (size_t k = 0; k < v->nuses; k++)
			ab_varref_release(&v->uses[k]);
		free(v->expect.version);
		ab_kvlist_free(&v->expect.options);
		free(v->uses);
		free(v->build.generator);
		ab_list_free(&v->build.targets);
		ab_kvlist_free(&v->build.env);
		free(v->build.profile);
		ab_list_free(&v->build.features);
		ab_list_free(&v->build.bins);
		free(v->build.vendor);
		free(v->build.cargo);
		free(v->build.rustc);
		free(v->relink.from);
		free(v->relink.link_txt);
		for (size_t j = 0; j < v->relink.nreplace; j++) {
			free(v->relink.replace[j].path);
			free(v->relink.replace[j].with_variant);
			free(v->relink.replace[j].with_artifact);
		}
		free(v->relink.replace);
		free(v->relink.output);
		free(v->runtime_of);
		ab_list_free(&v->artifacts);
		ab_list_free(&v->probe.args);
		free(v->allocator.kind);
		free(v->allocator.archive);
		free(v->allocator.vendored);
		free(v->allocator.upstream);
		ab_kvlist_free(&v->runtime.env);
		ab_list_free(&v->runtime.unset);
	}
	free(r->variants);
	free(r->path);
	free(r->text);
	free(r->dir);
	free(r->name);
	free(r->description);
	free(r);
}

int
ab_recipe_parse_ext(struct ab_recipe **out, const char *name, const char *text, size_t len, FILE *errs,
    unsigned flags)
{
	struct scan sc = {0};
	struct jnode root = {0};
	struct ctx c = {0};
	cJSON *doc = NULL;
	char *dir;
	size_t bom = 0;
	int error = -1;

	*out = NULL;
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
	scan_value(&sc, &root, 0);
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
	doc = cJSON_ParseWithLength(text + bom, len - bom);
	if (!doc || attach(&root, doc) < 0) {
		/* cannot happen: the scanner is stricter than cJSON */
		const char *ep = cJSON_GetErrorPtr();
		int line = 1, col = 1;

		if (!doc && ep && ep >= text && ep <= text + len)
			offset_pos(text, (size_t)(ep - text), &line, &col);
		fprintf(errs, "%s:%d:%d: $: cJSON cannot parse what the scanner accepted\n", name, line,
		    col);
#ifdef AB_FUZZING
		abort(); /* let the fuzzer find any disagreement */
#endif
		goto done;
	}

	c.flags = flags;
	c.r = ab_calloc(1, sizeof(*c.r));
	c.r->path = ab_strdup(name);
	/* relative paths (patches) are the recipe's own: next to the file itself, after symlinks */
	{
		char *real = realpath(name, NULL);

		dir = ab_path_dirname(real ? real : name);
		c.r->dir = ab_path_absolute(dir);
		free(dir);
		free(real);
	}
	ab_hash_buf(c.r->sha256, text, len);
	/* the bytes that were hashed, so that a copy can never differ from the digest */
	c.r->text = ab_strndup(text, len);
	c.r->len = len;
	check_recipe(&c, &root);
	if (c.nd) {
		qsort(c.d, c.nd, sizeof(*c.d), diag_cmp);
		for (size_t i = 0; i < c.nd; i++) {
			/* the same error reached twice (e.g. a type error seen by two passes) prints once */
			if (i && c.d[i].line == c.d[i - 1].line && c.d[i].col == c.d[i - 1].col &&
			    !strcmp(c.d[i].msg, c.d[i - 1].msg))
				continue;
			fprintf(errs, "%s:%d:%d: %s\n", name, c.d[i].line, c.d[i].col, c.d[i].msg);
		}
		ab_recipe_free(c.r);
		goto done;
	}
	*out = c.r;
	error = 0;
done:
	for (size_t i = 0; i < c.nd; i++)
		free(c.d[i].msg);
	free(c.d);
	for (size_t i = 0; i < c.ne; i++)
		free(c.e[i].path);
	free(c.e);
	for (size_t i = 0; i < c.noe; i++)
		free(c.oe[i].path);
	free(c.oe);
	free(c.labels);
	free(c.lnodes);
	ab_strmap_free(&c.lmap);
	ab_strmap_free(&c.smap);
	cJSON_Delete(doc);
	jnode_release(&root);
	ab_buf_free(&sc.path);
	free(sc.epath);
	free(sc.emsg);
	return error;
}

int
ab_recipe_parse(struct ab_recipe **out, const char *name, const char *text, size_t len, FILE *errs)
{
	return ab_recipe_parse_ext(out, name, text, len, errs, 0);
}

int
ab_recipe_load_ext(struct ab_recipe **out, const char *path, unsigned flags)
{
	return ab_recipe_load_to(out, path, flags, stderr);
}

int
ab_recipe_load_to(struct ab_recipe **out, const char *path, unsigned flags, FILE *errs)
{
	struct ab_buf b = {0};
	int error;

	*out = NULL;
	if (ab_is_dir(path)) {
		ab_error("cannot read recipe '%s': is a directory", path);
		return -1;
	}
	if (ab_read_file_max(&b, path, AB_RECIPE_MAX) < 0)
		return -1;
	error = ab_recipe_parse_ext(out, path, b.s, b.len, errs, flags);
	if (*out) {
		/* relative paths (patches) are the recipe's own: next to the file itself, after symlinks */
		char *real = realpath(path, NULL);

		if (real) {
			free((*out)->dir);
			(*out)->dir = ab_path_dirname(real);
			free(real);
		}
	}
	ab_buf_free(&b);
	return error;
}

int
ab_recipe_load(struct ab_recipe **out, const char *path)
{
	return ab_recipe_load_ext(out, path, 0);
}

int
ab_recipe_check_pin(const struct ab_recipe *r, const struct ab_source *s, int allow_unpinned)
{
	char *p, *v;

	if (s->kind != AB_SOURCE_GIT || !s->unpinned || allow_unpinned)
		return 0;
	{
		char *src = pk("sources", s->id);

		p = ab_sprintf("%s.git.commit", src);
		free(src);
	}
	v = shown(s->commit);
	ab_error("%s:%d:%d: %s: " PIN_ERROR, r->path, s->commit_line, s->commit_col, p, v);
	free(v);
	free(p);
	return -1;
}

int
ab_recipe_check_pins(const struct ab_recipe *r, int allow_unpinned)
{
	int error = 0;

	for (size_t i = 0; i < r->nsources; i++)
		if (ab_recipe_check_pin(r, &r->sources[i], allow_unpinned) < 0)
			error = -1;
	return error;
}

const struct ab_source *
ab_recipe_source(const struct ab_recipe *r, const char *id)
{
	for (size_t i = 0; i < r->nsources; i++)
		if (!strcmp(r->sources[i].id, id))
			return &r->sources[i];
	return NULL;
}

const struct ab_variant *
ab_recipe_variant(const struct ab_recipe *r, const char *label)
{
	for (size_t i = 0; i < r->nvariants; i++)
		if (!strcmp(r->variants[i].label, label))
			return &r->variants[i];
	return NULL;
}

char *
ab_recipe_path(const struct ab_recipe *r, const char *p)
{
	char *joined, *abs;

	if (p[0] == '/')
		return ab_strdup(p);
	joined = ab_path_join(r->dir, p);
	abs = ab_path_absolute(joined);
	free(joined);
	return abs;
}

size_t
ab_recipe_count(const struct ab_recipe *r, enum ab_variant_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nvariants; i++)
		n += r->variants[i].kind == kind;
	return n;
}

static void
add_dep_label(const char **deps, size_t *n, const char *label)
{
	size_t k = 0;

	if (!label)
		return;
	while (k < *n && strcmp(deps[k], label))
		k++;
	if (k == *n)
		deps[(*n)++] = label;
}

size_t
ab_recipe_variant_deps(const char **deps, const struct ab_variant *v)
{
	size_t n = 0;

	if (v->kind == AB_VARIANT_RUNTIME) {
		add_dep_label(deps, &n, v->runtime_of);
	} else if (v->kind == AB_VARIANT_RELINK) {
		add_dep_label(deps, &n, v->relink.from);
		for (size_t i = 0; i < v->relink.nreplace; i++)
			add_dep_label(deps, &n, v->relink.replace[i].with_variant);
	}
	for (size_t i = 0; i < v->nuses; i++)
		add_dep_label(deps, &n, v->uses[i].label);
	return n;
}

size_t
ab_recipe_variant_ndeps_max(const struct ab_variant *v)
{
	return 1 + v->relink.nreplace + v->nuses;
}

static size_t
max_deps(const struct ab_recipe *r)
{
	size_t m = 1;

	for (size_t i = 0; i < r->nvariants; i++)
		if (ab_recipe_variant_ndeps_max(&r->variants[i]) > m)
			m = ab_recipe_variant_ndeps_max(&r->variants[i]);
	return m;
}

/* the indexes of the variants variant i depends on (labels map does not know are skipped) */
static size_t
deps_of(size_t *deps, const char **labels, const struct ab_recipe *r, const struct ab_strmap *map, size_t i)
{
	size_t nl = ab_recipe_variant_deps(labels, &r->variants[i]), n = 0;

	for (size_t j = 0; j < nl; j++) {
		long d = map_get(map, labels[j]);

		if (d >= 0)
			deps[n++] = (size_t)d;
	}
	return n;
}

/* a binary min-heap of variant indexes */
static void
heap_push(size_t *h, size_t *n, size_t x)
{
	size_t i = (*n)++;

	while (i && h[(i - 1) / 2] > x) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = x;
}

static size_t
heap_pop(size_t *h, size_t *n)
{
	size_t top = h[0], x = h[--*n], i = 0;

	for (;;) {
		size_t c = 2 * i + 1;

		if (c >= *n)
			break;
		if (c + 1 < *n && h[c + 1] < h[c])
			c++;
		if (h[c] >= x)
			break;
		h[i] = h[c];
		i = c;
	}
	if (*n)
		h[i] = x;
	return top;
}

/* want[i] for the labelled variants (all when nlabels is 0) and everything they depend on */
static int
select_variants(unsigned char *want, const struct ab_recipe *r, const struct ab_strmap *map, char *const *labels,
    size_t nlabels)
{
	size_t nv = r->nvariants, qn = 0, maxd = max_deps(r);
	size_t *queue = ab_calloc(nv ? nv : 1, sizeof(size_t)), *deps = ab_calloc(maxd, sizeof(size_t));
	const char **dl = ab_calloc(maxd, sizeof(*dl));
	int error = 0;

	for (size_t i = 0; i < nlabels; i++) {
		long k = map_get(map, labels[i]);

		if (k < 0) {
			ab_error("unknown variant '%s'", labels[i]);
			error = AB_EFAIL;
		} else {
			want[k] = 1;
		}
	}
	if (!nlabels)
		memset(want, 1, nv);
	for (size_t i = 0; !error && i < nv; i++)
		if (want[i])
			queue[qn++] = i;
	for (size_t q = 0; !error && q < qn; q++) {
		size_t nd = deps_of(deps, dl, r, map, queue[q]);

		for (size_t j = 0; j < nd; j++)
			if (!want[deps[j]]) {
				want[deps[j]] = 1;
				queue[qn++] = deps[j];
			}
	}
	free(queue);
	free(deps);
	free(dl);
	return error;
}

/*
 * The wanted variants in a stable topological order: always the first
 * variant in recipe order whose dependencies are done. Returns how many.
 */
static size_t
topo_order(size_t *out, const struct ab_recipe *r, const struct ab_strmap *map, const unsigned char *want)
{
	size_t nv = r->nvariants, one = nv ? nv : 1, maxd = max_deps(r), nedges = 0, nheap = 0, n = 0;
	size_t *indeg = ab_calloc(one, sizeof(size_t)), *fill = ab_calloc(one, sizeof(size_t));
	size_t *first = ab_calloc(nv + 1, sizeof(size_t)); /* dependents of i: rdep[first[i]..first[i+1]) */
	size_t *heap = ab_calloc(one, sizeof(size_t)), *deps = ab_calloc(maxd, sizeof(size_t)), *rdep;
	const char **dl = ab_calloc(maxd, sizeof(*dl));

	for (size_t i = 0; i < nv; i++) {
		size_t nd = want[i] ? deps_of(deps, dl, r, map, i) : 0;

		indeg[i] = nd;
		nedges += nd;
		for (size_t j = 0; j < nd; j++)
			first[deps[j] + 1]++;
	}
	for (size_t i = 0; i < nv; i++)
		first[i + 1] += first[i];
	rdep = ab_calloc(nedges ? nedges : 1, sizeof(size_t));
	for (size_t i = 0; i < nv; i++) {
		size_t nd = want[i] ? deps_of(deps, dl, r, map, i) : 0;

		for (size_t j = 0; j < nd; j++)
			rdep[first[deps[j]] + fill[deps[j]]++] = i;
	}
	for (size_t i = 0; i < nv; i++)
		if (want[i] && !indeg[i])
			heap_push(heap, &nheap, i);
	while (nheap) {
		size_t u = heap_pop(heap, &nheap);

		out[n++] = u;
		for (size_t k = first[u]; k < first[u + 1]; k++)
			if (--indeg[rdep[k]] == 0)
				heap_push(heap, &nheap, rdep[k]);
	}
	free(indeg);
	free(fill);
	free(first);
	free(heap);
	free(deps);
	free(dl);
	free(rdep);
	return n;
}

int
ab_recipe_order(size_t **order, size_t *norder, const struct ab_recipe *r, char *const *labels,
    size_t nlabels)
{
	size_t nv = r->nvariants, one = nv ? nv : 1;
	unsigned char *want = ab_calloc(one, 1);
	struct ab_strmap map = {0};
	int error;

	*order = NULL;
	*norder = 0;
	for (size_t i = 0; i < nv; i++)
		ab_strmap_put(&map, r->variants[i].label, i);
	error = select_variants(want, r, &map, labels, nlabels);
	if (!error) {
		*order = ab_calloc(one, sizeof(size_t));
		*norder = topo_order(*order, r, &map, want);
	}
	free(want);
	ab_strmap_free(&map);
	return error;
}

static int
walk_overlays(const struct ab_recipe *r, const struct ab_source *s, const struct ab_overlay *via, int depth,
    ab_overlay_fn *enter, ab_overlay_fn *leave, void *arg)
{
	int e = enter ? enter(arg, s, via, depth) : 0;

	for (size_t i = 0; !e && i < s->noverlays; i++) {
		const struct ab_source *o = ab_recipe_source(r, s->overlays[i].source);

		/* a loaded recipe has no unknown overlay source */
		if (o)
			e = walk_overlays(r, o, &s->overlays[i], depth + 1, enter, leave, arg);
	}
	if (!e && leave)
		e = leave(arg, s, via, depth);
	return e;
}

int
ab_recipe_overlay_walk(const struct ab_recipe *r, const struct ab_source *s, ab_overlay_fn *enter,
    ab_overlay_fn *leave, void *arg)
{
	return s ? walk_overlays(r, s, NULL, 0, enter, leave, arg) : 0;
}

const struct ab_variant *
ab_recipe_base_variant(const struct ab_recipe *r, const struct ab_variant *v)
{
	for (size_t guard = 0; v && v->kind == AB_VARIANT_RUNTIME && guard <= r->nvariants; guard++)
		v = ab_recipe_variant(r, v->runtime_of);
	return v;
}
