/*
 * statement: the one builder of in-toto Statements v1
 * (https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md),
 * the envelope-less form of every record allocbuild signs: the build's
 * provenance, run records, reproducibility and rebuild records, the
 * verification summary (VSA) of verify --policy.
 *
 *   cJSON *subjects, *st = ab_statement_new(&subjects, PREDICATE_TYPE);
 *   ab_statement_add_subject(subjects, "variants/x/build/lib/a.a", hex);
 *   cJSON_AddItemToObject(st, "predicate", predicate);
 */
#ifndef AB_STATEMENT_H
#define AB_STATEMENT_H

#include <cjson/cJSON.h>

#define AB_STATEMENT_TYPE "https://in-toto.io/Statement/v1"
/* the earlier version, still accepted in envelopes */
#define AB_STATEMENT_TYPE_V01 "https://in-toto.io/Statement/v0.1"

/* {_type, subject: [], predicateType}; *subjects is the (empty) subject array; caller frees the result */
cJSON *ab_statement_new(cJSON **subjects, const char *predicate_type);
/* a subject {name, digest: {sha256}} appended */
void ab_statement_add_subject(cJSON *subjects, const char *name, const char *sha256);
/* is doc a Statement of a version allocbuild reads (_type)? */
int ab_statement_is(const cJSON *doc);

#endif
