/*
 * statement: the in-toto Statement (https://in-toto.io/Statement/v1), one
 * builder for every Statement allocbuild writes (the build's provenance,
 * a run record, a reproducibility or rebuild record) and one test of what
 * a document says it is.
 *
 *   cJSON *subject, *st = ab_statement_new(AB_RUN_PREDICATE, &subject);
 *   ab_statement_descriptor(subject, "variants/a/build/bin/x", hex);
 *   cJSON_AddItemToObject(st, "predicate", predicate);
 *
 * The members come in the order in-toto's examples give them: _type,
 * subject, predicateType, then the caller's predicate.
 */
#ifndef AB_STATEMENT_H
#define AB_STATEMENT_H

#include <cjson/cJSON.h>

#define AB_STATEMENT_V1 "https://in-toto.io/Statement/v1"
/* the type the in-toto attestation framework gave Statements before v1: read, never written */
#define AB_STATEMENT_V01 "https://in-toto.io/Statement/v0.1"

/* {_type, subject: [], predicateType}; *subject (when not NULL) gets the array */
cJSON *ab_statement_new(const char *predicate_type, cJSON **subject);
/* a resource descriptor {name, digest: {sha256}} appended to arr; it is returned, for annotations */
cJSON *ab_statement_descriptor(cJSON *arr, const char *name, const char *sha256);
/* is doc a Statement: its _type v1 (or, with v01, v0.1 too)? */
int ab_statement_is(const cJSON *doc, int v01);

#endif
