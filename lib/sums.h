/*
 * sums: one line of a SHA256SUMS file as GNU sha256sum writes and reads
 * it, one copy for every such file allocbuild writes (OUTDIR's
 * SHA256SUMS, a bundle's BUNDLE-SHA256SUMS) and reads back.
 *
 *   HEX  NAME           a plain name
 *   \HEX  ESCAPED       a name holding a backslash, a newline or a carriage
 *                       return, written \\, \n and \r (coreutils 9)
 *
 * so that a name with a newline (a recipe's artifact, a file of a dir
 * source kept under inputs/) stays one line, and `sha256sum -c` checks
 * the file as allocbuild's verify does.
 *
 *   ab_sums_put(&b, hex, "lib/n\nl.a");    "\\<hex>  lib/n\\nl.a\n"
 *   ab_sums_parse(line, n, &hex, &name);   in place: 0, -1 malformed
 */
#ifndef AB_SUMS_H
#define AB_SUMS_H

#include <stddef.h>

struct ab_buf;

/* append the line of name (its digest hex, 64 lowercase digits) to b, newline included */
void ab_sums_put(struct ab_buf *b, const char *hex, const char *name);

/*
 * Parse one line (n bytes, without its newline; line[n], its newline or
 * NUL, is written) in place: *hex gets its
 * digest (NUL-terminated), *name its name, unescaped. 0, or -1 when it is
 * no line of a SHA256SUMS file (short, no two spaces, not hex, an escape
 * sha256sum does not write, an empty name).
 */
int ab_sums_parse(char *line, size_t n, char **hex, char **name);

#endif
