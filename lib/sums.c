/* sums: SHA256SUMS lines, escaped as GNU sha256sum escapes them */
#include <string.h>

#include "hash.h"
#include "sums.h"
#include "util.h"

static int
needs_escape(const char *name)
{
	return strpbrk(name, "\\\n\r") != NULL;
}

void
ab_sums_put(struct ab_buf *b, const char *hex, const char *name)
{
	if (!needs_escape(name)) {
		ab_buf_printf(b, "%s  %s\n", hex, name);
		return;
	}
	ab_buf_printf(b, "\\%s  ", hex);
	for (const char *s = name; *s; s++) {
		if (*s == '\\')
			ab_buf_puts(b, "\\\\");
		else if (*s == '\n')
			ab_buf_puts(b, "\\n");
		else if (*s == '\r')
			ab_buf_puts(b, "\\r");
		else
			ab_buf_putc(b, *s);
	}
	ab_buf_putc(b, '\n');
}

/* undo the escapes of s in place; -1 for one sha256sum does not write */
static int
unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		s++;
		if (*s == '\\')
			*w++ = '\\';
		else if (*s == 'n')
			*w++ = '\n';
		else if (*s == 'r')
			*w++ = '\r';
		else
			return -1;
	}
	*w = '\0';
	return 0;
}

int
ab_sums_parse(char *line, size_t n, char **hex, char **name)
{
	int escaped = n > 0 && line[0] == '\\';

	line += escaped;
	n -= (size_t)escaped;
	if (n < AB_HEX_LEN + 3 || line[AB_HEX_LEN] != ' ' || line[AB_HEX_LEN + 1] != ' ' || memchr(line, '\0', n))
		return -1;
	line[AB_HEX_LEN] = '\0';
	line[n] = '\0';
	if (!ab_is_hex(line, AB_HEX_LEN))
		return -1;
	*hex = line;
	*name = line + AB_HEX_LEN + 2;
	if (escaped && unescape(*name) < 0)
		return -1;
	return **name ? 0 : -1;
}
