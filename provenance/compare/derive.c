/* derive: a derived figure's definition parsed and computed per run (derive.h) */
#include "derive.h"

#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonpos.h"
#include "../../lib/util.h"
#include "../runs/metrics.h"
#include "../runs/runrec.h"

/* ---- parsing ---- */

struct parser {
	const char *text;   /* the whole definition: positions count from it */
	const char *p;
	char *why;
	size_t pos;
	int series;
};

static const char *const mark_names[] = {"", "start", "end", "exit"};

static size_t
here(const struct parser *ps)
{
	return (size_t)(ps->p - ps->text) + 1;
}

__attribute__((format(printf, 3, 4))) static void *
fail_at(struct parser *ps, size_t pos, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	if (ps->why)
		return NULL;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ps->why = ab_strdup(buf);
	ps->pos = pos;
	return NULL;
}

static void
skip_space(struct parser *ps)
{
	while (*ps->p == ' ' || *ps->p == '\t')
		ps->p++;
}

/* what is at the parser, for a message: "'x'", "the end" */
static char *
shown_here(const struct parser *ps)
{
	size_t n = 0;

	if (!*ps->p)
		return ab_strdup("the end");
	while (ps->p[n] && ps->p[n] != ' ' && n < 16 && (n == 0 || isalnum((unsigned char)ps->p[n]) ||
	    ps->p[n] == '_' || ps->p[n] == '.'))
		n++;
	return ab_sprintf("'%.*s'", (int)n, ps->p);
}

static struct ab_dnode *
node(enum ab_dnode_kind kind, size_t pos)
{
	struct ab_dnode *n = ab_calloc(1, sizeof(*n));

	n->kind = kind;
	n->pos = pos;
	return n;
}

static void
node_free(struct ab_dnode *n)
{
	if (!n)
		return;
	node_free(n->a);
	node_free(n->b);
	free(n->name);
	free(n);
}

/* a decimal number (no sign, no hex, no inf or nan): its length, 0 when none */
static size_t
number_len(const char *s)
{
	size_t n = 0, digits = 0;

	while (isdigit((unsigned char)s[n]))
		n++, digits++;
	if (s[n] == '.')
		for (n++; isdigit((unsigned char)s[n]); n++)
			digits++;
	if (!digits)
		return 0;
	if (s[n] == 'e' || s[n] == 'E') {
		size_t e = n + 1;

		if (s[e] == '+' || s[e] == '-')
			e++;
		if (isdigit((unsigned char)s[e])) {
			while (isdigit((unsigned char)s[e]))
				e++;
			n = e;
		}
	}
	return n;
}

static int
number(struct parser *ps, double *v)
{
	size_t n = number_len(ps->p), at = here(ps);
	char *s;

	if (!n) {
		char *w = shown_here(ps);

		fail_at(ps, at, "expected a number, not %s", w);
		free(w);
		return -1;
	}
	s = ab_strndup(ps->p, n);
	*v = strtod(s, NULL);
	free(s);
	ps->p += n;
	if (!ab_metric_value_valid(*v))
		return fail_at(ps, at, "the number is not finite or past %g", AB_METRIC_VALUE_MAX), -1;
	return 0;
}

/* an identifier: [A-Za-z_][A-Za-z0-9_.]*; its length */
static size_t
ident_len(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_' || s[n] == '.')
		n++;
	return n;
}

/* a duration: NUMBER (ms|s|min), in seconds */
static int
duration(struct parser *ps, double *s)
{
	static const struct {
		const char *unit;
		double scale;
	} units[] = {{"ms", 0.001}, {"min", 60}, {"s", 1}};
	size_t at = here(ps);
	double v;

	if (number(ps, &v) < 0)
		return -1;
	for (size_t i = 0; i < AB_NELEM(units); i++) {
		size_t n = strlen(units[i].unit);

		if (!strncmp(ps->p, units[i].unit, n) && !isalnum((unsigned char)ps->p[n])) {
			ps->p += n;
			*s = v * units[i].scale;
			return 0;
		}
	}
	fail_at(ps, at, "a duration wants its unit, ms, s or min ('240s', '4min')");
	return -1;
}

static int
point(struct parser *ps, struct ab_dpoint *pt)
{
	size_t n;

	skip_space(ps);
	memset(pt, 0, sizeof(*pt));
	n = ident_len(ps->p);
	if (n) {
		size_t m;

		for (m = 1; m < AB_NELEM(mark_names); m++)
			if (strlen(mark_names[m]) == n && !strncmp(ps->p, mark_names[m], n))
				break;
		if (m == AB_NELEM(mark_names))
			return fail_at(ps, here(ps), "a window's point is a duration ('240s') or start, end or exit, not '%.*s'",
			    (int)n, ps->p), -1;
		pt->mark = (enum ab_dmark)m;
		ps->p += n;
		skip_space(ps);
		if (*ps->p == '+' || *ps->p == '-') {
			double sign = *ps->p == '-' ? -1 : 1;

			ps->p++;
			skip_space(ps);
			if (duration(ps, &pt->offset_s) < 0)
				return -1;
			pt->offset_s *= sign;
		}
	} else if (duration(ps, &pt->offset_s) < 0) {
		return -1;
	}
	skip_space(ps);
	return 0;
}

static int
expect(struct parser *ps, char c)
{
	skip_space(ps);
	if (*ps->p != c) {
		char *w = shown_here(ps);

		fail_at(ps, here(ps), "expected '%c', not %s", c, w);
		free(w);
		return -1;
	}
	ps->p++;
	return 0;
}

static struct ab_dnode *expr(struct parser *ps);

static struct ab_dnode *
function(struct parser *ps, const char *name, size_t n, size_t at)
{
	struct ab_dnode *x;

	if (n == 10 && !strncmp(name, "growth_pct", n)) {
		x = node(AB_D_GROWTH, at);
		if (expect(ps, '(') < 0 || !(x->a = expr(ps)) || expect(ps, ',') < 0 || !(x->b = expr(ps)) ||
		    expect(ps, ')') < 0)
			return node_free(x), NULL;
		return x;
	}
	if ((n == 8 && !strncmp(name, "rss_mean", n)) || (n == 10 && !strncmp(name, "rss_median", n))) {
		x = node(n == 8 ? AB_D_RSS_MEAN : AB_D_RSS_MEDIAN, at);
		if (expect(ps, '(') < 0 || point(ps, &x->from) < 0 || expect(ps, ',') < 0 || point(ps, &x->to) < 0 ||
		    expect(ps, ')') < 0)
			return node_free(x), NULL;
		if (x->from.mark == x->to.mark && x->from.offset_s >= x->to.offset_s)
			return node_free(x), fail_at(ps, at, "%.*s: the window's end is not after its start", (int)n, name);
		if ((x->from.mark == AB_DM_ZERO && x->from.offset_s < 0) || (x->to.mark == AB_DM_ZERO && x->to.offset_s < 0))
			return node_free(x), fail_at(ps, at, "%.*s: a time before the command's start", (int)n, name);
		ps->series = 1;
		return x;
	}
	return fail_at(ps, at, "unknown function '%.*s' (growth_pct, rss_mean, rss_median)", (int)n, name);
}

static struct ab_dnode *
primary(struct parser *ps)
{
	size_t at, n;
	struct ab_dnode *x;

	skip_space(ps);
	at = here(ps);
	if (*ps->p == '(') {
		ps->p++;
		if (!(x = expr(ps)) || expect(ps, ')') < 0)
			return node_free(x), NULL;
		return x;
	}
	if (*ps->p == '"') {
		const char *end = strchr(ps->p + 1, '"');

		if (!end)
			return fail_at(ps, at, "a quoted name without its closing '\"'");
		if (!ab_metric_name_valid(ps->p + 1, (size_t)(end - ps->p - 1)))
			return fail_at(ps, at, "'%.*s' is no metric name (1 to 64 of A-Z a-z 0-9 _ . -)",
			    (int)(end - ps->p - 1), ps->p + 1);
		x = node(AB_D_METRIC, at);
		x->name = ab_strndup(ps->p + 1, (size_t)(end - ps->p - 1));
		ps->p = end + 1;
		return x;
	}
	if ((n = ident_len(ps->p))) {
		const char *name = ps->p;

		ps->p += n;
		skip_space(ps);
		if (*ps->p == '(')
			return function(ps, name, n, at);
		if (!ab_metric_name_valid(name, n))
			return fail_at(ps, at, "'%.*s' is no metric name (1 to 64 of A-Z a-z 0-9 _ . -)", (int)n, name);
		x = node(AB_D_METRIC, at);
		x->name = ab_strndup(name, n);
		return x;
	}
	if (number_len(ps->p)) {
		x = node(AB_D_NUM, at);
		if (number(ps, &x->num) < 0)
			return node_free(x), NULL;
		if (isalpha((unsigned char)*ps->p))
			return node_free(x), fail_at(ps, at, "a number followed by '%c': durations are for rss_mean and "
			    "rss_median; a metric name starting with a digit is written in double quotes", *ps->p);
		return x;
	}
	{
		char *w = shown_here(ps);

		fail_at(ps, at, "expected a number, a metric or '(', not %s", w);
		free(w);
	}
	return NULL;
}

static struct ab_dnode *
unary(struct parser *ps)
{
	skip_space(ps);
	if (*ps->p == '-') {
		struct ab_dnode *x = node(AB_D_NEG, here(ps));

		ps->p++;
		if (!(x->a = unary(ps)))
			return node_free(x), NULL;
		return x;
	}
	return primary(ps);
}

static struct ab_dnode *
term(struct parser *ps)
{
	struct ab_dnode *x = unary(ps);

	while (x) {
		struct ab_dnode *y;

		skip_space(ps);
		if (*ps->p != '*' && *ps->p != '/')
			break;
		y = node(*ps->p == '*' ? AB_D_MUL : AB_D_DIV, here(ps));
		ps->p++;
		y->a = x;
		x = y;
		if (!(y->b = unary(ps)))
			return node_free(x), NULL;
	}
	return x;
}

static struct ab_dnode *
expr(struct parser *ps)
{
	struct ab_dnode *x = term(ps);

	while (x) {
		struct ab_dnode *y;

		skip_space(ps);
		if (*ps->p != '+' && *ps->p != '-')
			break;
		y = node(*ps->p == '+' ? AB_D_ADD : AB_D_SUB, here(ps));
		ps->p++;
		y->a = x;
		x = y;
		if (!(y->b = term(ps)))
			return node_free(x), NULL;
	}
	return x;
}

/* the '=' that ends the head NAME [UNIT] [better=...]: the first one not of "better=" */
static const char *
head_end(const char *s)
{
	for (const char *p = s; *p; p++) {
		if (!strncmp(p, "better=", 7) && (p == s || p[-1] == ' ' || p[-1] == '\t')) {
			p += 6;
			continue;
		}
		if (*p == '=')
			return p;
	}
	return NULL;
}

/* the head's words: NAME, then an optional UNIT and better=higher|lower */
static int
head(struct parser *ps, struct ab_derived *d, const char *end)
{
	int words = 0, direction = -1;

	for (const char *p = ps->text; p < end;) {
		size_t n, at;

		while (p < end && (*p == ' ' || *p == '\t'))
			p++;
		if (p == end)
			break;
		at = (size_t)(p - ps->text) + 1;
		for (n = 0; p + n < end && p[n] != ' ' && p[n] != '\t'; n++)
			;
		if (!words) {
			if (!ab_metric_name_valid(p, n))
				return fail_at(ps, at, "'%.*s' is no name for a figure (1 to 64 of A-Z a-z 0-9 _ . -)", (int)n, p),
				    -1;
			if (ab_metric_builtin(d->name = ab_strndup(p, n)) >= 0)
				return fail_at(ps, at, "'%s' is one of allocbuild's figures: a derived figure takes another name",
				    d->name), -1;
		} else if (n > 7 && !strncmp(p, "better=", 7)) {
			if (n == 13 && !strncmp(p + 7, "higher", 6))
				direction = 1;
			else if (n == 12 && !strncmp(p + 7, "lower", 5))
				direction = 0;
			else
				return fail_at(ps, at + 7, "better= wants higher or lower, not '%.*s'", (int)n - 7, p + 7), -1;
		} else if (!d->unit && direction < 0) {
			if (!ab_metric_unit_valid(p, n))
				return fail_at(ps, at, "'%.*s' is no unit (1 to 32 printable characters, no '=')", (int)n, p), -1;
			d->unit = ab_strndup(p, n);
		} else {
			return fail_at(ps, at, "expected '=' after the name, its unit and better=, not '%.*s'", (int)n, p), -1;
		}
		words++;
		p += n;
	}
	if (!words)
		return fail_at(ps, 1, "a derived figure is NAME [UNIT] [better=higher|lower] = EXPR: no NAME"), -1;
	if (direction >= 0) {
		d->higher = direction;
	} else {
		size_t ul = d->unit ? strlen(d->unit) : 0;

		d->higher = ul >= 2 && !strcmp(d->unit + ul - 2, "/s");
	}
	return 0;
}

int
ab_derived_parse(struct ab_derived *d, const char *text, char **why, size_t *pos)
{
	struct parser ps = {.text = text, .p = text};
	const char *eq = head_end(text);
	size_t elen;

	memset(d, 0, sizeof(*d));
	*why = NULL;
	*pos = 0;
	if (!eq) {
		fail_at(&ps, strlen(text) + 1, "a derived figure is NAME [UNIT] [better=higher|lower] = EXPR: no '='");
		goto fail;
	}
	if (head(&ps, d, eq) < 0)
		goto fail;
	ps.p = eq + 1;
	if (!(d->root = expr(&ps)))
		goto fail;
	skip_space(&ps);
	if (*ps.p) {
		char *w = shown_here(&ps);

		fail_at(&ps, here(&ps), "expected an operator (+ - * /), not %s", w);
		free(w);
		goto fail;
	}
	d->text = ab_strdup(text);
	for (eq++; *eq == ' ' || *eq == '\t'; eq++)
		;
	for (elen = strlen(eq); elen && (eq[elen - 1] == ' ' || eq[elen - 1] == '\t'); elen--)
		;
	d->expr = ab_strndup(eq, elen);
	d->series = ps.series;
	return 0;
fail:
	*why = ps.why;
	*pos = ps.pos;
	ab_derived_release(d);
	return -1;
}

void
ab_derived_release(struct ab_derived *d)
{
	if (!d)
		return;
	free(d->name);
	free(d->unit);
	free(d->text);
	free(d->expr);
	free(d->where);
	node_free(d->root);
	memset(d, 0, sizeof(*d));
}

/* a name used twice: the second is refused where it is given */
static const struct ab_derived *
named(const struct ab_derived *v, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v[i].name, name))
			return &v[i];
	return NULL;
}

int
ab_derived_add(struct ab_derived **v, size_t *n, const char *text)
{
	struct ab_derived d;
	char *why;
	size_t pos;

	if (ab_derived_parse(&d, text, &why, &pos) < 0) {
		ab_error("--derive: position %zu: %s", pos, why);
		free(why);
		return -1;
	}
	if (named(*v, *n, d.name)) {
		ab_error("--derive: position 1: the derived figure '%s' is defined twice", d.name);
		ab_derived_release(&d);
		return -1;
	}
	d.where = ab_strdup("--derive");
	*v = ab_realloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = d;
	return 0;
}

int
ab_derived_read_file(struct ab_derived **v, size_t *n, const char *path)
{
	static const char *const keys[] = {"derived", NULL};
	struct ab_buf text = {0};
	struct ab_jdoc doc;
	struct ab_jdiags dg = {0};
	const struct ab_jnode *list;
	int rc = -1;

	if (ab_read_file(&text, path) < 0)
		return -1;
	if (ab_jdoc_parse(&doc, path, text.s ? text.s : "", text.len, stderr) < 0) {
		ab_buf_free(&text);
		return -1;
	}
	if (ab_jdiag_want(&dg, &doc.root, "$", cJSON_Object) == 0) {
		ab_jdiag_check_keys(&dg, &doc.root, "$", keys);
		if (!(list = ab_jnode_member(&doc.root, "derived")))
			ab_jdiag_missing(&dg, &doc.root, "$", "derived");
		else if (ab_jdiag_want(&dg, list, "$.derived", cJSON_Array) == 0)
			for (size_t i = 0; i < list->nkids; i++) {
				const struct ab_jnode *k = &list->kids[i];
				char *jp = ab_jpath_index("derived", i), *why;
				struct ab_derived d;
				size_t pos;

				if (ab_jdiag_want(&dg, k, jp, cJSON_String) < 0) {
				} else if (ab_derived_parse(&d, k->j->valuestring, &why, &pos) < 0) {
					ab_jdiag_add(&dg, k->line, k->col, jp, "position %zu: %s", pos, why);
					free(why);
				} else if (named(*v, *n, d.name)) {
					ab_jdiag_add(&dg, k->line, k->col, jp, "the derived figure '%s' is defined twice", d.name);
					ab_derived_release(&d);
				} else {
					d.where = ab_sprintf("%s:%d:%d: %s", path, k->line, k->col, jp);
					*v = ab_realloc(*v, (*n + 1) * sizeof(**v));
					(*v)[(*n)++] = d;
				}
				free(jp);
			}
	}
	rc = ab_jdiags_print(&dg, path, stderr) ? -1 : 0;
	ab_jdiags_release(&dg);
	ab_jdoc_release(&doc);
	ab_buf_free(&text);
	return rc;
}

void
ab_derived_free(struct ab_derived *v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ab_derived_release(&v[i]);
	free(v);
}

static void
inputs_of(const struct ab_dnode *n, const struct ab_dnode ***v, size_t *len)
{
	if (!n)
		return;
	inputs_of(n->a, v, len);
	if (n->kind == AB_D_METRIC) {
		*v = ab_realloc(*v, (*len + 1) * sizeof(**v));
		(*v)[(*len)++] = n;
	}
	inputs_of(n->b, v, len);
}

size_t
ab_derived_inputs(const struct ab_dnode ***out, const struct ab_derived *d)
{
	size_t n = 0;

	*out = NULL;
	inputs_of(d->root, out, &n);
	return n;
}

/* ---- computing ---- */

struct eval {
	ab_derived_lookup_fn *get;
	void *arg;
	const struct ab_derived_run *run;
	char *why;
};

/* a point in seconds from the command's start; NAN (why set) when its mark is unknown */
static double
point_s(struct eval *e, const struct ab_dpoint *p)
{
	double base = 0;

	switch (p->mark) {
	case AB_DM_ZERO:
		break;
	case AB_DM_START:
		base = e->run->window_start_s;
		break;
	case AB_DM_END:
		base = e->run->window_end_s;
		break;
	case AB_DM_EXIT:
		base = e->run->command_end_s;
		break;
	}
	if (base < 0) {
		e->why = ab_sprintf("its record has no time of '%s'", mark_names[p->mark]);
		return NAN;
	}
	return base + p->offset_s;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the mean or median RSS (MiB) of the samples between two points, both included */
static double
window(struct eval *e, const struct ab_dnode *n)
{
	const struct ab_series *s = e->run->series;
	double from, to, sum = 0, *v, r;
	size_t k = 0;

	if (!s || !s->n) {
		e->why = ab_strdup(!s && e->run->no_series ? e->run->no_series : "the run was not sampled");
		return NAN;
	}
	if (isnan(from = point_s(e, &n->from)) || isnan(to = point_s(e, &n->to)))
		return NAN;
	if (from < 0)
		from = 0;
	if (!(to > from)) {
		e->why = ab_sprintf("the window %.3f s to %.3f s (position %zu) is empty", from, to, n->pos);
		return NAN;
	}
	/* a mark is seen at the first reading after its line: the last reading may come up to an interval before it */
	if (!ab_series_reaches(s, to - e->run->interval_s)) {
		e->why = ab_sprintf("the series ends at %.3f s, before %.3f s (position %zu)",
		    (double)s->v[s->n - 1].ms / 1000, to, n->pos);
		return NAN;
	}
	v = ab_calloc(s->n, sizeof(*v));
	for (size_t i = 0; i < s->n; i++) {
		/* whole milliseconds: compared in them, as ab_series_reaches does */
		double t = (double)s->v[i].ms;

		if (t + 0.5 >= from * 1000 && t - 0.5 <= to * 1000) {
			v[k] = (double)ab_series_rss(s, &s->v[i]) / 1024;
			sum += v[k++];
		}
	}
	if (k < AB_RUN_MIN_SAMPLES) {
		e->why = ab_sprintf("%zu sample%s between %.3f s and %.3f s (position %zu), fewer than %d", k,
		    k == 1 ? "" : "s", from, to, n->pos, AB_RUN_MIN_SAMPLES);
		free(v);
		return NAN;
	}
	if (n->kind == AB_D_RSS_MEAN) {
		r = sum / (double)k;
	} else {
		qsort(v, k, sizeof(*v), cmp_double);
		r = k % 2 ? v[k / 2] : (v[k / 2 - 1] + v[k / 2]) / 2;
	}
	free(v);
	return r;
}

/* the source text of an operand, for a message: a metric's name, else its position */
static char *
operand_text(const struct ab_dnode *n)
{
	if (n->kind == AB_D_METRIC)
		return ab_sprintf("'%s'", n->name);
	return ab_sprintf("the operand at position %zu", n->pos);
}

static double
eval(struct eval *e, const struct ab_dnode *n)
{
	double a, b;

	switch (n->kind) {
	case AB_D_NUM:
		return n->num;
	case AB_D_METRIC:
		a = e->get(e->arg, n->name);
		if (isnan(a))
			e->why = ab_sprintf("no value of '%s'", n->name);
		return a;
	case AB_D_RSS_MEAN:
	case AB_D_RSS_MEDIAN:
		return window(e, n);
	default:
		break;
	}
	if (isnan(a = eval(e, n->a)))
		return NAN;
	if (n->kind == AB_D_NEG)
		return -a;
	if (isnan(b = eval(e, n->b)))
		return NAN;
	switch (n->kind) {
	case AB_D_ADD:
		return a + b;
	case AB_D_SUB:
		return a - b;
	case AB_D_MUL:
		return a * b;
	case AB_D_DIV:
	case AB_D_GROWTH:
		if (b == 0) {
			char *t = operand_text(n->b);

			e->why = ab_sprintf("%s is 0: a division by zero (position %zu)", t, n->pos);
			free(t);
			return NAN;
		}
		return n->kind == AB_D_DIV ? a / b : (a / b - 1) * 100;
	default:
		return NAN;
	}
}

double
ab_derived_eval(const struct ab_derived *d, ab_derived_lookup_fn *get, void *arg, const struct ab_derived_run *run,
    char **why)
{
	static const struct ab_derived_run none = {NULL, -1, -1, -1, 0, NULL};
	struct eval e = {get, arg, run ? run : &none, NULL};
	double v = eval(&e, d->root);

	if (!isnan(v) && !ab_metric_value_valid(v)) {
		e.why = ab_sprintf("the result %g is not finite or past %g", v, AB_METRIC_VALUE_MAX);
		v = NAN;
	}
	if (isnan(v) && !e.why)
		e.why = ab_strdup("no value");
	*why = e.why;
	return v;
}
