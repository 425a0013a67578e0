/*
 * jsonpos: JSON documents read with the position of every value, and the
 * FILE:LINE:COL diagnostics of the formats allocbuild reads that way
 * (recipes, policies).
 *
 * cJSON keeps no positions, so reading takes two steps:
 *   1. scan: a strict JSON scanner over the raw bytes that reports the
 *      first syntax error with its exact position and builds a tree of
 *      positions (one ab_jnode per value, with the position of its key);
 *   2. cJSON parses the same bytes, and the two trees are walked in
 *      lockstep so that every cJSON item gets its ab_jnode.
 * The scanner is stricter than cJSON (it is the one that decides what is
 * valid JSON), so cJSON never rejects what the scanner accepted.
 *
 * A format's rules are then checked on the tree by its own loader, which
 * collects every error (ab_jdiag_add) and prints them sorted by position
 * (ab_jdiags_print): `FILE:LINE:COL: PATH: MESSAGE`, PATH a JSON path
 * such as `variants[2].build.system` (the root is `$`).
 *
 *   struct ab_jdoc d;
 *   if (ab_jdoc_parse(&d, name, text, len, stderr) < 0) return -1;
 *   ... check d.root, ab_jdiag_add(&diags, n->line, n->col, path, ...) ...
 *   bad = ab_jdiags_print(&diags, name, stderr);
 *   ab_jdiags_release(&diags); ab_jdoc_release(&d);
 */
#ifndef AB_JSONPOS_H
#define AB_JSONPOS_H

#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

/* the position of one value */
struct ab_jnode {
	const cJSON *j;
	char type;             /* '{', '[', '"', 'n' (number), 't' (true/false), '0' (null) */
	int line, col;         /* of the value */
	int kline, kcol;       /* of the key, for object members */
	struct ab_jnode *kids; /* members or elements, in document order */
	size_t nkids, cap;
};

/* a document and its positions */
struct ab_jdoc {
	cJSON *json;
	struct ab_jnode root;
};

/* the errors found in a document, printed sorted by position */
struct ab_jdiag {
	int line, col;
	size_t seq;
	char *msg; /* "path: message" */
};
struct ab_jdiags {
	struct ab_jdiag *d;
	size_t n, cap;
};

/*
 * Parse text (a UTF-8 byte order mark skipped) into *out; a syntax error is
 * printed on errs as `NAME:LINE:COL: PATH: MESSAGE` and gives -1 (*out
 * then holds nothing). Release *out with ab_jdoc_release.
 */
int ab_jdoc_parse(struct ab_jdoc *out, const char *name, const char *text, size_t len, FILE *errs);
void ab_jdoc_release(struct ab_jdoc *d);

/* an error at line:col of the document: "path: message" */
void ab_jdiag_add(struct ab_jdiags *dg, int line, int col, const char *path, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void ab_jdiag_vadd(struct ab_jdiags *dg, int line, int col, const char *path, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
/* print every error as NAME:LINE:COL: ..., sorted by position, each once; returns how many there were */
size_t ab_jdiags_print(struct ab_jdiags *dg, const char *name, FILE *errs);
void ab_jdiags_release(struct ab_jdiags *dg);

/* JSON paths: path + "." + key (or ["key"] when the key is not plain); path + "[i]"; the caller frees */
char *ab_jpath_key(const char *path, const char *key);
char *ab_jpath_index(const char *path, size_t i);
/* a value shown in a message: printable, bounded (80 characters); the caller frees */
char *ab_jshown(const char *s);
/* "an object", "a string"... */
const char *ab_json_type_name(const cJSON *j);
/* the member key of obj (an object node), or NULL */
const struct ab_jnode *ab_jnode_member(const struct ab_jnode *obj, const char *key);

/* the usual checks of a loader, each reported through dg */
/* is n of the cJSON type t (cJSON_Object, cJSON_Array, cJSON_String)? -1 (reported) when not */
int ab_jdiag_want(struct ab_jdiags *dg, const struct ab_jnode *n, const char *path, int t);
/* duplicate keys and, when keys is not NULL (NULL-terminated), unknown ones, with a suggestion */
void ab_jdiag_check_keys(struct ab_jdiags *dg, const struct ab_jnode *obj, const char *path,
    const char *const *keys);
/* "path.key: required key is missing", at obj */
void ab_jdiag_missing(struct ab_jdiags *dg, const struct ab_jnode *obj, const char *path, const char *key);

#endif
