/*
 * pagetext: text put on the reviewer's page, one function for each
 * context it lands in: Markdown text, a Markdown code span, HTML (and
 * SVG's XML) text, a Mermaid string, a link's destination. pr.md,
 * pr-details.md, `compare --format md`, the Mermaid charts and the SVG
 * files are all written with these, and nothing else escapes text for
 * them (docs/pr.md).
 *
 * What a benchmark prints (a metric's name and unit, a cell, a warning
 * that quotes them), and whatever a record holds (a label, a status, an
 * environment's value), is untrusted: on the page it stays text. It never
 * becomes markup, a link, an image, a heading, a script, a table's new
 * cell or line, a Mermaid directive, entity or string's end. Each
 * function first makes the text one line (newlines as spaces, other
 * control characters escaped as on a terminal: ab_shown), then escapes
 * what the context gives a meaning to.
 *
 * Here, in the compare room, because both compare (its markdown and
 * charts) and review (pr.md) write the page, and review includes compare.
 */
#ifndef AB_PAGETEXT_H
#define AB_PAGETEXT_H

#include "../../lib/util.h"

/* s as one line: newlines and carriage returns as spaces, other control characters as ab_shown escapes them; caller frees */
char *ab_page_line(const char *s);
/*
 * Markdown text: a table cell, a list item, a line. Every character
 * Markdown (GitHub's) reads as markup is escaped: \ ` * _ [ ] ~ $ | with a
 * backslash, < > & as entities (no HTML, no autolink), and the ':' of
 * "scheme://" and the '.' of "www." (no bare link)
 */
void ab_page_text(struct ab_buf *b, const char *s);
/*
 * a Markdown code span: fenced with one backtick more than the longest
 * run of them in s (padded with spaces when it has one), '|' as "\|" so
 * that a table's cell holds it
 */
void ab_page_code(struct ab_buf *b, const char *s);
/* HTML or XML text, in an element or a quoted attribute: & < > " ' as entities */
void ab_page_html(struct ab_buf *b, const char *s);
/*
 * the inside of a Mermaid double-quoted string (a chart's title, axis and
 * categories, a flow chart's label): letters, digits, spaces and
 * _ . , : / ( ) * + - = ' ! ? as they are, every other character (" # %
 * ; < > & ` { } and the rest) as Mermaid's entity code #N; (its decimal
 * code point), which Mermaid shows as that character: no string's end, no
 * %%{init}%% directive, no HTML, no entity of the text's own
 */
void ab_page_mermaid(struct ab_buf *b, const char *s);

/*
 * a relative link's destination (a file of the page's, such as a chart's
 * SVG): letters, digits and . _ ~ / - as they are, every other byte
 * percent-encoded, so that no destination ends its link or names a
 * scheme ("javascript:" has its colon encoded)
 */
void ab_page_href(struct ab_buf *b, const char *s);

#endif
