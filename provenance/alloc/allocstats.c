#include "allocstats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

size_t
ab_allocstats_nfigures(const struct ab_allocstats_ops *ops)
{
	size_t n = 0;

	while (ops->figures[n])
		n++;
	return n;
}

/* the start of the last occurrence of needle in text, or NULL */
static const char *
last_of(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);
	const char *last = NULL;

	for (size_t i = 0; n <= len && i <= len - n; i++)
		if (text[i] == needle[0] && !memcmp(text + i, needle, n))
			last = text + i;
	return last;
}

/* --- jemalloc: stats_print's JSON document */

static const char *const je_options[] = {"stats_print", "stats_print_opts", NULL};
static const char *const je_figures[] = {"allocated", "active", "metadata", "resident", "mapped", "retained",
	"dirty", "muzzy", NULL};

/* a member path's number (non-negative, finite), else -1 */
static double
je_num(const cJSON *o, const char *a, const char *b)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(o, a), b);

	return cJSON_IsNumber(v) && isfinite(v->valuedouble) && v->valuedouble >= 0 ? v->valuedouble : -1;
}

static int
je_parse(double *value, double *resolution, const char *text, size_t len, const char **why)
{
	static const char *const stats[] = {"allocated", "active", "metadata", "resident", "mapped", "retained"};
	const char *at = last_of(text, len, "{\"jemalloc\":{");
	const cJSON *je, *merged;
	cJSON *doc;
	double page;
	int e = -1;

	if (!at) {
		*why = "no jemalloc statistics in the output (no '{\"jemalloc\":{')";
		return -1;
	}
	doc = cJSON_ParseWithLengthOpts(at, len - (size_t)(at - text), NULL, 0);
	je = cJSON_GetObjectItemCaseSensitive(doc, "jemalloc");
	merged = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(je, "stats.arenas"), "merged");
	/*
	 * the page: arenas.page when the general part is printed; without it
	 * (option g, which also leaves out the bin and extent tables: 12 KB),
	 * active bytes over active pages, pactive of them
	 */
	page = je_num(je, "arenas", "page");
	if (page <= 0 && je_num(je, "stats", "active") > 0 && je_num(cJSON_GetObjectItemCaseSensitive(je, "stats.arenas"),
	    "merged", "pactive") > 0)
		page = je_num(je, "stats", "active") /
		    je_num(cJSON_GetObjectItemCaseSensitive(je, "stats.arenas"), "merged", "pactive");
	*why = !doc ? "jemalloc's statistics do not parse as JSON (cut short, or other output inside them)" :
	    !merged ? "jemalloc's statistics have no merged arena figures (stats.arenas.merged)" :
	    page <= 0 ? "jemalloc's statistics have no page size (arenas.page, or active over pactive)" : NULL;
	for (size_t i = 0; !*why && i < sizeof(stats) / sizeof(*stats); i++)
		if ((value[i] = je_num(je, "stats", stats[i])) < 0)
			*why = "jemalloc's statistics lack a figure of stats (built without --enable-stats?)";
	if (!*why) {
		const cJSON *d = cJSON_GetObjectItemCaseSensitive(merged, "pdirty"),
		    *m = cJSON_GetObjectItemCaseSensitive(merged, "pmuzzy");

		if (!cJSON_IsNumber(d) || !cJSON_IsNumber(m) || d->valuedouble < 0 || m->valuedouble < 0) {
			*why = "jemalloc's statistics have no dirty or muzzy page count (stats.arenas.merged.pdirty, pmuzzy)";
		} else {
			value[6] = d->valuedouble * page;
			value[7] = m->valuedouble * page;
			for (size_t i = 0; i < 8; i++)
				resolution[i] = 0;
			e = 0;
		}
	}
	cJSON_Delete(doc);
	return e;
}

const struct ab_allocstats_ops ab_allocstats_jemalloc = {
	.var = NULL,
	.value = "stats_print:true,stats_print_opts:Jgadblxeh",
	.join = 1,
	.options = je_options,
	.figures = je_figures,
	.parse = je_parse,
};

/* --- mimalloc: MIMALLOC_SHOW_STATS's text table */

static const char *const mi_options[] = {"show_stats", NULL};
static const char *const mi_figures[] = {"reserved", "committed", "committed_peak", "reset", "peak_rss",
	"peak_commit", NULL};

/*
 * One amount as mi_printf_amount prints it (src/stats.c): "0", "512 B",
 * "32.0 MiB" (a tenth of K, M or G, truncated); blank is 1 B, which it
 * leaves out. -1 when it is none of those.
 */
static double
mi_amount(const char *s, size_t n, double *resolution)
{
	char buf[32], *end;
	double v, unit = 1;

	while (n && *s == ' ')
		s++, n--;
	while (n && s[n - 1] == ' ')
		n--;
	*resolution = 0;
	if (!n)
		return 1;
	if (n >= sizeof(buf))
		return -1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	v = strtod(buf, &end);
	if (end == buf || v < 0)
		return -1;
	while (*end == ' ')
		end++;
	if (!strcmp(end, "KiB"))
		unit = 1024.0;
	else if (!strcmp(end, "MiB"))
		unit = 1024.0 * 1024;
	else if (!strcmp(end, "GiB"))
		unit = 1024.0 * 1024 * 1024;
	else if (*end && strcmp(end, "B"))
		return -1;
	if (unit > 1)
		*resolution = unit / 10;
	return floor(v * unit + 0.5);
}

/* the line of the table named name ("%10s:"), from the table's start on; NULL: none */
static const char *
mi_row(const char *table, const char *end, const char *name, size_t *len)
{
	size_t n = strlen(name);

	for (const char *p = table; p < end;) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		const char *q = p;

		if (!eol)
			eol = end;
		while (q < eol && *q == ' ')
			q++;
		if ((size_t)(eol - q) > n && !memcmp(q, name, n) && q[n] == ':' && q + n - p == 10) {
			*len = (size_t)(eol - p);
			return p;
		}
		p = eol + 1;
	}
	return NULL;
}

/* column c (0 peak, 1 total, 2 freed, 3 current) of a row: 11 characters each after "%10s:" */
static double
mi_column(const char *row, size_t len, int c, double *resolution)
{
	size_t at = 11 + 11 * (size_t)c;

	if (len < at + 11)
		return -1;
	return mi_amount(row + at, 11, resolution);
}

/* the amount after "key: " on the process line, to its ',' or end */
static double
mi_process(const char *row, size_t len, const char *key, double *resolution)
{
	size_t k = strlen(key);

	for (size_t i = 0; i + k <= len; i++)
		if (!memcmp(row + i, key, k)) {
			const char *s = row + i + k, *e = memchr(s, ',', len - i - k);

			return mi_amount(s, (size_t)((e ? e : row + len) - s), resolution);
		}
	return -1;
}

static int
mi_parse(double *value, double *resolution, const char *text, size_t len, const char **why)
{
	static const struct {
		const char *row;
		int column;
	} cols[] = {{"reserved", 3}, {"committed", 3}, {"committed", 0}, {"reset", 1}};
	const char *table = last_of(text, len, "heap stats:"), *end = text + len, *row;
	size_t n;

	if (!table) {
		*why = "no mimalloc statistics in the output (no 'heap stats:' table)";
		return -1;
	}
	for (size_t i = 0; i < sizeof(cols) / sizeof(*cols); i++) {
		if (!(row = mi_row(table, end, cols[i].row, &n)) ||
		    (value[i] = mi_column(row, n, cols[i].column, &resolution[i])) < 0) {
			*why = "mimalloc's statistics table lacks a row or an amount it reads (reserved, committed, reset)";
			return -1;
		}
	}
	if (!(row = mi_row(table, end, "process", &n)) || (value[4] = mi_process(row, n, "rss: ", &resolution[4])) < 0) {
		*why = "mimalloc's statistics have no process line with its peak RSS";
		return -1;
	}
	/* mimalloc prints commit only when it knows a peak */
	if ((value[5] = mi_process(row, n, "commit: ", &resolution[5])) < 0)
		value[5] = 0, resolution[5] = 0;
	return 0;
}

const struct ab_allocstats_ops ab_allocstats_mimalloc = {
	.var = "MIMALLOC_SHOW_STATS",
	.value = "1",
	.join = 0,
	.options = mi_options,
	.figures = mi_figures,
	.parse = mi_parse,
};
