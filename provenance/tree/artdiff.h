/*
 * artdiff: what differs between two builds of one artifact.
 *
 * A fingerprint is what a build records of an artifact beside its
 * sha256 (binary-provenance.json, artifacts[].parts), enough to name what
 * differs later without the bytes (a rebuild from a bundle, which holds
 * no artifacts):
 *   an ar archive  {"format": "ar", "members": [{"name", "size", "sha256"}, ...]}
 *                  in archive order; a member whose header is not the
 *                  deterministic one (mtime 0, uid and gid 0, mode 644) has
 *                  "header": "mtime M uid U gid G mode O"
 *   an ELF file    {"format": "elf", "sections": [{"name", "size", "sha256"}, ...]}
 *                  (sha256 null for a section without bytes in the file)
 *   anything else  no fingerprint (NULL)
 *
 * A comparison of two fingerprints (and, when both files are at hand, of
 * the members' own ELF sections) is
 *   {"identical": false, "format": "ar",
 *    "members": {"differ": ["a.o"], "missing": ["b.o"], "extra": ["c.o"]},
 *    "member_sections": {"a.o": [".data"]},       with both files only
 *    "sections": {"differ": [], "missing": [], "extra": []},   ELF files
 *    "note": "..."}                                 when nothing listed explains it
 * "missing" is in the original (a) and not in the other (b), "extra" the
 * reverse; repeated names are matched in order.
 */
#ifndef AB_ARTDIFF_H
#define AB_ARTDIFF_H

#include <cjson/cJSON.h>

/* the fingerprint of the file at path into *out (NULL for a file of another format); AB_EFAIL reported */
int ab_artdiff_fingerprint(cJSON **out, const char *path);
/*
 * Compare the fingerprints a (the original) and b; path_a and path_b
 * (each may be NULL) let it look into differing members. A new document
 * (see above); identical true when the fingerprints are the same.
 */
cJSON *ab_artdiff_compare(const cJSON *a, const cJSON *b, const char *path_a, const char *path_b);
/* the comparison in words, one line: "members differ: noise.o (sections .data)"; caller frees */
char *ab_artdiff_summary(const cJSON *diff);

#endif
