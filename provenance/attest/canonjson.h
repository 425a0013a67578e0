/*
 * canonjson: JSON in securesystemslib's canonical form, the bytes that
 * in-toto 1.3.1 signs and checks (securesystemslib.formats.encode_canonical,
 * python3-securesystemslib 0.26):
 *   - no white space; object members sorted by key, bytewise on UTF-8
 *     (Python's sort of str by code point gives the same order);
 *   - a string is '"', its UTF-8 bytes with only '\' and '"' escaped (each
 *     with a backslash), '"': control characters and non-ASCII as they are;
 *   - true, false, null; integers in decimal, nothing else: a number with a
 *     fraction, or beyond 2^53 where a double no longer holds every
 *     integer, is refused, as securesystemslib refuses a float.
 * An object with two members of the same name is refused too: Python's
 * json keeps only the last, so the two sides would sign different values.
 * cJSON keeps a number's value, not its spelling: 1e3 is encoded as 1000,
 * where Python, reading a float, would refuse it (allocbuild writes
 * integers in decimal).
 */
#ifndef AB_CANONJSON_H
#define AB_CANONJSON_H

#include <cjson/cJSON.h>

struct ab_buf;

/*
 * Append the canonical form of v to out. Returns 0, or AB_EFAIL with the
 * reason reported ("cannot encode ... as canonical JSON: ..."), out then
 * holding a prefix.
 */
int ab_canonjson(struct ab_buf *out, const cJSON *v);

#endif
