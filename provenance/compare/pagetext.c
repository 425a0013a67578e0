#include "pagetext.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

char *
ab_page_line(const char *s)
{
	char *flat = ab_strdup(s ? s : ""), *out;

	for (char *p = flat; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	out = ab_shown(flat);
	free(flat);
	return out;
}

void
ab_page_text(struct ab_buf *b, const char *s)
{
	char *shown = ab_page_line(s);

	for (const char *p = shown; *p; p++) {
		switch (*p) {
		case '|': ab_buf_puts(b, "\\|"); break;
		case '<': ab_buf_puts(b, "&lt;"); break;
		case '>': ab_buf_puts(b, "&gt;"); break;
		case '&': ab_buf_puts(b, "&amp;"); break;
		case '*': case '_': case '`': case '[': case ']': case '\\': case '~': case '$':
			ab_buf_putc(b, '\\');
			ab_buf_putc(b, *p);
			break;
		case ':':
			/* "https://host": GitHub links a bare URL; an escaped colon it does not */
			ab_buf_puts(b, !strncmp(p + 1, "//", 2) ? "\\:" : ":");
			break;
		case '.':
			/* and "www.host" likewise */
			ab_buf_puts(b, p - shown >= 3 && !strncasecmp(p - 3, "www", 3) ? "\\." : ".");
			break;
		default: ab_buf_putc(b, *p);
		}
	}
	free(shown);
}

void
ab_page_code(struct ab_buf *b, const char *s)
{
	char *shown = ab_page_line(s);
	size_t ticks = 0, run = 0;

	for (const char *p = shown; *p; p++) {
		run = *p == '`' ? run + 1 : 0;
		ticks = run > ticks ? run : ticks;
	}
	for (size_t i = 0; i <= ticks; i++)
		ab_buf_putc(b, '`');
	ab_buf_puts(b, ticks ? " " : "");
	for (const char *p = shown; *p; p++)
		if (*p == '|')
			ab_buf_puts(b, "\\|");
		else
			ab_buf_putc(b, *p);
	ab_buf_puts(b, ticks ? " " : "");
	for (size_t i = 0; i <= ticks; i++)
		ab_buf_putc(b, '`');
	free(shown);
}

void
ab_page_html(struct ab_buf *b, const char *s)
{
	char *shown = ab_page_line(s);

	for (const char *p = shown; *p; p++)
		switch (*p) {
		case '&': ab_buf_puts(b, "&amp;"); break;
		case '<': ab_buf_puts(b, "&lt;"); break;
		case '>': ab_buf_puts(b, "&gt;"); break;
		case '"': ab_buf_puts(b, "&quot;"); break;
		case '\'': ab_buf_puts(b, "&#39;"); break;
		default: ab_buf_putc(b, *p);
		}
	free(shown);
}

void
ab_page_mermaid(struct ab_buf *b, const char *s)
{
	char *shown = ab_page_line(s);

	for (const unsigned char *p = (const unsigned char *)shown; *p; p++) {
		/* UTF-8 beyond ASCII is text to Mermaid (ab_shown left only valid sequences, no C1 controls) */
		if (*p >= 0x80 || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr(" _.,:/()*+-='!?", *p))
			ab_buf_putc(b, (char)*p);
		else
			ab_buf_printf(b, "#%u;", *p);
	}
	free(shown);
}

void
ab_page_href(struct ab_buf *b, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("._~/-", *p))
			ab_buf_putc(b, (char)*p);
		else
			ab_buf_printf(b, "%%%02X", *p);
}
