/*
 * jsonio: reading and atomically writing JSON documents (cJSON).
 * Every manifest goes through ab_json_write(), which writes with
 * lib/atomic.h: temp file in the same directory, fsync, rename, so a
 * reader never sees a half-written file.
 */
#ifndef AB_JSONIO_H
#define AB_JSONIO_H

#include <stdio.h>

#include <cjson/cJSON.h>

/* pretty-print doc with a trailing newline to path, atomically; reports errors */
int ab_json_write(const char *path, const cJSON *doc);
/* doc pretty-printed and a newline on f (a command's --json output); -1 after reporting */
int ab_json_print(FILE *f, const cJSON *doc);
/* parse a JSON file; reports errors with the file name; *out freed with cJSON_Delete */
int ab_json_read(cJSON **out, const char *path);
/*
 * The member key of obj, or NULL (also when obj is NULL or not an object).
 * The one way members are looked up: case-sensitive, as JSON is.
 */
cJSON *ab_json_get(const cJSON *obj, const char *key);
/* small helpers for building manifests */
cJSON *ab_json_strv(char *const *v, size_t n);        /* array of strings */
const char *ab_json_str(const cJSON *obj, const char *key); /* string member or NULL */
char *ab_json_strdup(const cJSON *obj, const char *key);    /* a copy of the string member, or NULL */
void ab_json_add_str_or_null(cJSON *obj, const char *key, const char *v); /* v, or null when v is NULL */
/*
 * an entry of a manifest's "variants" array (docs/manifests.md: one shape
 * in every manifest): a new object, {label, then copies of payload's
 * members but a "label" of its own}
 */
cJSON *ab_json_labelled(const char *label, const cJSON *payload);
/*
 * the entry of label in a manifest's "variants" (doc's member): an array
 * of {label, ...}, or the object keyed by label of a version 1 manifest
 * (its value, the payload itself); NULL when none
 */
cJSON *ab_json_labelled_find(const cJSON *doc, const char *label);

#endif
