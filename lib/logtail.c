#include "logtail.h"

#include <stdlib.h>
#include <string.h>

#include "progress.h"
#include "util.h"

/* a log's text split into lines (pointers into the text, which stays owned by the caller) */
struct log_lines {
	const char **v;
	size_t *len;
	size_t n;
};

static void
split_lines(struct log_lines *l, const char *text, size_t size)
{
	size_t cap = 64;

	l->v = ab_malloc(cap * sizeof(*l->v));
	l->len = ab_malloc(cap * sizeof(*l->len));
	l->n = 0;
	for (const char *s = text; s < text + size;) {
		size_t n = strcspn(s, "\n");

		if (l->n == cap) {
			cap *= 2;
			l->v = ab_realloc(l->v, cap * sizeof(*l->v));
			l->len = ab_realloc(l->len, cap * sizeof(*l->len));
		}
		l->v[l->n] = s;
		l->len[l->n++] = n;
		s += n + (s[n] == '\n');
	}
}

/* does the line say what went wrong (rather than that something did)? */
static int
error_line(const char *s, size_t n, int *make_seen)
{
	static const char *const words[] = {"error:", "Error:", "not found", "No such file", "undefined reference",
	    "cannot find"};
	char *line = ab_strndup(s, n);
	int hit = 0;

	for (size_t i = 0; i < AB_NELEM(words) && !hit; i++)
		hit = strstr(line, words[i]) != NULL;
	/* make's "***" lines cascade up every parent: only the first one tells */
	if (!hit && strstr(line, "***") && !*make_seen)
		hit = *make_seen = 1;
	free(line);
	return hit;
}

/*
 * The first lines of a failed step's log that say what went wrong, with
 * the lines just before each, when they lie before the tail that follows
 * them: the tail of a parallel make is the cascade of "Error 2" lines, not
 * the cause (a configure "not found" on line 12 of 224)
 */
#define FIRST_ERRORS 5
#define ERROR_CONTEXT 2
static void
first_errors(struct ab_buf *o, const struct log_lines *l, size_t tail_start)
{
	size_t shown_to = 0, found = 0;
	int make_seen = 0;

	for (size_t i = 0; i < tail_start && found < FIRST_ERRORS; i++) {
		if (!error_line(l->v[i], l->len[i], &make_seen))
			continue;
		if (!found++)
			ab_buf_puts(o, "  first errors in the log:\n");
		for (size_t k = i > ERROR_CONTEXT ? i - ERROR_CONTEXT : 0; k <= i; k++)
			if (k >= shown_to) {
				ab_buf_printf(o, "| %zu: ", k + 1);
				ab_buf_add_text(o, l->v[k], l->len[k]);
				ab_buf_putc(o, '\n');
				shown_to = k + 1;
			}
	}
	if (found)
		ab_buf_printf(o, "  last %d lines of the log:\n", AB_LOGTAIL_LINES);
}

void
ab_logtail_print(const char *log)
{
	struct ab_buf b = {0}, o = {0};
	struct log_lines l;
	size_t start;

	if (ab_read_file(&b, log) < 0)
		return;
	split_lines(&l, b.s, b.len);
	start = l.n > AB_LOGTAIL_LINES ? l.n - AB_LOGTAIL_LINES : 0;
	first_errors(&o, &l, start);
	for (size_t i = start; i < l.n; i++) {
		ab_buf_puts(&o, "| ");
		ab_buf_add_text(&o, l.v[i], l.len[i]);
		ab_buf_putc(&o, '\n');
	}
	ab_progress_print("%s", o.s ? o.s : "");
	ab_buf_free(&o);
	free(l.v);
	free(l.len);
	ab_buf_free(&b);
}

