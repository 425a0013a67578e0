#include "linktxt.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/*
 * One scanner for link.txt lines and response files. In a link.txt each
 * line is scanned on its own (CMake reads the file line by line, so a
 * quote never spans lines) and everything a POSIX shell would treat
 * differently from CMake's kwsys splitter is refused. A response file is
 * split as GCC's libiberty buildargv() does: whitespace including
 * newlines separates, quotes group, a backslash escapes the next byte.
 */
struct scan {
	const char *name;
	const char *text;  /* the buffer positions are relative to */
	size_t len;
	int line0;         /* line number of text[0] */
	int rsp;
	FILE *errs;
};

static int
fail(const struct scan *s, size_t pos, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static int
fail(const struct scan *s, size_t pos, const char *fmt, ...)
{
	struct ab_buf b = {0};
	int line = s->line0, col = 1;
	va_list ap;

	for (size_t i = 0; i < pos && i < s->len; i++) {
		if (s->text[i] == '\n')
			line++, col = 1;
		else
			col++;
	}
	ab_buf_printf(&b, "%s:%d:%d: ", s->name, line, col);
	va_start(ap, fmt);
	ab_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ab_buf_putc(&b, '\n');
	fwrite(b.s, 1, b.len, s->errs ? s->errs : stderr);
	fflush(s->errs ? s->errs : stderr);
	ab_buf_free(&b);
	return -1;
}

/* a printable rendering of one byte for messages */
static const char *
show(char c, char buf[8])
{
	if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f)
		snprintf(buf, 8, "\\x%02x", (unsigned char)c);
	else
		snprintf(buf, 8, "%c", c);
	return buf;
}

static int
is_name_start(char c)
{
	return isalpha((unsigned char)c) || c == '_';
}

static int
is_name_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* the message for an unescaped '$' at text[i] (outside single quotes) */
static int
dollar(const struct scan *s, size_t i)
{
	const char *t = s->text;
	size_t n = s->len;

	if (i + 1 < n && t[i + 1] == '(')
		return fail(s, i, "command substitution '$(' is not supported");
	if (i + 1 < n && t[i + 1] == '{')
		return fail(s, i, "variable expansion '${' is not supported");
	if (i + 1 < n && is_name_start(t[i + 1])) {
		size_t e = i + 2;

		while (e < n && is_name_char(t[e]))
			e++;
		return fail(s, i, "variable expansion '%.*s' is not supported", (int)(e - i), t + i);
	}
	if (i + 1 < n && strchr("0123456789@*#?$!-", t[i + 1]) && t[i + 1])
		return fail(s, i, "variable expansion '$%c' is not supported", t[i + 1]);
	return fail(s, i, "unescaped '$' is not supported: write '\\$'");
}

/* is the word so far (starting at ws, unquoted digits only) a file descriptor number? */
static int
fd_prefix(const char *t, size_t ws, size_t i, int word_quoted)
{
	if (word_quoted || ws == i)
		return 0;
	for (size_t k = ws; k < i; k++)
		if (!isdigit((unsigned char)t[k]))
			return 0;
	return 1;
}

/*
 * The quoted part of a word, from the opening quote at *pos to past the
 * closing one, into w. In a link.txt single and double quotes differ as
 * in a shell: a backslash is refused inside single quotes, '$' and '`'
 * inside double quotes. In a response file they group alike.
 */
static int
quoted(const struct scan *s, size_t *pos, struct ab_buf *w)
{
	const char *t = s->text;
	size_t n = s->len, open = *pos, i;
	char q = t[open], sb[8];
	const char *name = q == '"' ? "double" : "single";

	for (i = open + 1;; i++) {
		if (i >= n || (!s->rsp && t[i] == '\n'))
			return fail(s, open, "unbalanced %s quote", name);
		if (t[i] == q)
			break;
		if (t[i] == '\0')
			return fail(s, i, "NUL byte is not supported");
		if (t[i] == '\\') {
			/* a shell keeps these backslashes, CMake's splitter drops them */
			if (!s->rsp && q == '\'')
				return fail(s, i, "backslash inside single quotes is not supported");
			if (i + 1 >= n || (!s->rsp && t[i + 1] == '\n'))
				return fail(s, open, "unbalanced %s quote", name);
			if (t[i + 1] == '\0')
				return fail(s, i + 1, "NUL byte is not supported");
			if (!s->rsp && !strchr("\\\"$`", t[i + 1]))
				return fail(s, i, "backslash before '%s' inside double quotes is not supported",
				    show(t[i + 1], sb));
			i++;
		} else if (!s->rsp && t[i] == '\r') {
			return fail(s, i, "carriage return is not supported");
		} else if (!s->rsp && q == '"' && t[i] == '$') {
			return dollar(s, i);
		} else if (!s->rsp && q == '"' && t[i] == '`') {
			return fail(s, i, "command substitution '`' is not supported");
		}
		ab_buf_putc(w, t[i]);
	}
	*pos = i + 1;
	return 0;
}

/*
 * Split s->text into words appended to out. Returns 0, or -1 after
 * reporting the first error.
 */
static int
split(struct ab_strv *out, const struct scan *s)
{
	const char *t = s->text;
	size_t n = s->len, i = 0, ws = 0;
	struct ab_buf w = {0};
	int in_word = 0, word_quoted = 0, error = -1;
	size_t nwords0 = out->n;

	while (i < n) {
		char c = t[i];

		if (c == '\0') {
			fail(s, i, "NUL byte is not supported");
			goto done;
		}
		if (c == '\r' && !s->rsp) {
			fail(s, i, "carriage return is not supported");
			goto done;
		}
		if (c == ' ' || c == '\t' || (s->rsp && (c == '\n' || c == '\r' || c == '\f' || c == '\v'))) {
			if (in_word) {
				ab_strv_push_owned(out, ab_buf_detach(&w));
				in_word = word_quoted = 0;
			}
			i++;
			continue;
		}
		if (!in_word) {
			in_word = 1;
			word_quoted = 0;
			ws = i;
			ab_buf_clear(&w);
			ab_buf_grow(&w, 0);
			w.s[0] = '\0';
			if (!s->rsp && c == '~') {
				fail(s, i, "tilde expansion '~' is not supported");
				goto done;
			}
			if (!s->rsp && c == '#') {
				fail(s, i, "comment '#' is not supported");
				goto done;
			}
		}
		if (c == '\\') {
			if (i + 1 >= n || (!s->rsp && t[i + 1] == '\n')) {
				fail(s, i, "backslash at the end of a line is not supported");
				goto done;
			}
			if (t[i + 1] == '\0' || (!s->rsp && t[i + 1] == '\r')) {
				i++;
				continue; /* reported as NUL / CR */
			}
			ab_buf_putc(&w, t[i + 1]);
			word_quoted = 1;
			i += 2;
			continue;
		}
		if (c == '\'' || c == '"') {
			word_quoted = 1;
			if (quoted(s, &i, &w) < 0)
				goto done;
			continue;
		}
		if (!s->rsp) {
			switch (c) {
			case ';':
				fail(s, i, "shell operator ';' is not supported");
				goto done;
			case '&':
				if (i + 1 < n && t[i + 1] == '>')
					fail(s, i, "redirection '&>' is not supported");
				else
					fail(s, i, "shell operator '%s' is not supported",
					    i + 1 < n && t[i + 1] == '&' ? "&&" : "&");
				goto done;
			case '|':
				fail(s, i, "shell operator '%s' is not supported",
				    i + 1 < n && t[i + 1] == '|' ? "||" : "|");
				goto done;
			case '<':
			case '>': {
				size_t at = fd_prefix(t, ws, i, word_quoted) ? ws : i;
				size_t e = i + 1;

				if (e < n && strchr("<>&|", t[e]))
					e++;
				fail(s, at, "redirection '%.*s' is not supported", (int)(e - at), t + at);
				goto done;
			}
			case '$':
				dollar(s, i);
				goto done;
			case '`':
				fail(s, i, "command substitution '`' is not supported");
				goto done;
			case '*':
			case '?':
			case '[':
				fail(s, i, "unquoted glob character '%c' is not supported", c);
				goto done;
			case '{':
				fail(s, i, "unquoted '{' is not supported (brace expansion)");
				goto done;
			case '(':
			case ')':
				fail(s, i, "unquoted '%c' is not supported", c);
				goto done;
			case '=':
				/* "NAME=value prog" would set a variable in a shell, not run NAME=value */
				if (out->n == nwords0 && !word_quoted && i > ws && is_name_start(t[ws])) {
					size_t k = ws;

					while (k < i && is_name_char(t[k]))
						k++;
					if (k == i) {
						fail(s, ws, "variable assignment '%.*s=' in command position is not supported",
						    (int)(i - ws), t + ws);
						goto done;
					}
				}
				break;
			default:
				break;
			}
		}
		ab_buf_putc(&w, c);
		i++;
	}
	if (in_word)
		ab_strv_push_owned(out, ab_buf_detach(&w));
	error = 0;
done:
	ab_buf_free(&w);
	return error;
}

void
ab_linktxt_release(struct ab_linktxt *lt)
{
	if (!lt)
		return;
	for (size_t i = 0; i < lt->ncmds; i++)
		ab_strv_free(&lt->cmds[i].argv);
	free(lt->cmds);
	free(lt->path);
	memset(lt, 0, sizeof(*lt));
}

int
ab_linktxt_parse(struct ab_linktxt *out, const char *name, const char *text, size_t len, FILE *errs)
{
	size_t start = 0;
	int line = 1;

	memset(out, 0, sizeof(*out));
	out->path = ab_strdup(name);
	while (start < len) {
		const char *nl = memchr(text + start, '\n', len - start);
		size_t end = nl ? (size_t)(nl - text) : len;
		struct scan s = {name, text + start, end - start, line, 0, errs};
		struct ab_strv argv = {0};

		if (split(&argv, &s) < 0) {
			ab_strv_free(&argv);
			ab_linktxt_release(out);
			return -1;
		}
		if (argv.n) {
			out->cmds = ab_realloc(out->cmds, (out->ncmds + 1) * sizeof(*out->cmds));
			out->cmds[out->ncmds].argv = argv;
			out->cmds[out->ncmds].line = line;
			out->ncmds++;
		}
		start = end + 1;
		line++;
	}
	return 0;
}

int
ab_linktxt_load(struct ab_linktxt *out, const char *path)
{
	struct ab_buf b = {0};
	int error;

	memset(out, 0, sizeof(*out));
	if (ab_read_file_max(&b, path, AB_LINKTXT_MAX) < 0)
		return -1;
	error = ab_linktxt_parse(out, path, b.s, b.len, NULL);
	ab_buf_free(&b);
	return error;
}

int
ab_linktxt_parse_rsp(struct ab_strv *out, const char *name, const char *text, size_t len, FILE *errs)
{
	struct scan s = {name, text, len, 1, 1, errs};

	return split(out, &s);
}

char *
ab_linktxt_build_dir(const char *link_txt)
{
	char *abs = ab_path_absolute(link_txt);
	char *dir = ab_path_dirname(abs);      /* .../CMakeFiles/<target>.dir */
	char *cmf = ab_path_dirname(dir);      /* .../CMakeFiles */
	const char *base = strrchr(dir, '/');
	const char *cbase = strrchr(cmf, '/');
	char *res = NULL;
	size_t bl;

	base = base ? base + 1 : dir;
	cbase = cbase ? cbase + 1 : cmf;
	bl = strlen(base);
	if (bl <= 4 || strcmp(base + bl - 4, ".dir") || strcmp(cbase, "CMakeFiles")) {
		ab_error("cannot tell the build directory of '%s': expected .../CMakeFiles/<target>.dir/link.txt "
		    "(give --build-dir)", link_txt);
		goto done;
	}
	res = ab_path_dirname(cmf);
done:
	free(abs);
	free(dir);
	free(cmf);
	return res;
}

int
ab_linktxt_output_index(char *const *argv, int *joined)
{
	int found = -1;

	*joined = 0;
	for (int i = 1; argv[i]; i++) {
		if (!strcmp(argv[i], "-o")) {
			if (found >= 0 || !argv[i + 1])
				return -2;
			found = i + 1;
			i++;
		} else if (!strncmp(argv[i], "-o", 2)) {
			if (found >= 0)
				return -2;
			found = i;
			*joined = 1;
		}
	}
	return found;
}
