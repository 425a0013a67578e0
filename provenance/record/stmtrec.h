/*
 * stmtrec: an in-toto Statement read back for what it names, typed: its
 * type, its predicate type, and the two lists whose digests a verifier
 * checks, its subject and its byproducts (a build's
 * predicate.runDetails.byproducts; a run record's predicate.byproducts,
 * provenance/runs/runrec.h). Its one reader, for those who check a
 * Statement's names against files (sign, challenge); the Statements are
 * written by provenance/attest/statement.h.
 *
 *   {_type, subject: [{name, digest: {sha256}, annotations: {mode}}],
 *    predicateType, predicate: {runDetails: {byproducts: [...]}} or {byproducts: [...]}}
 *
 * Nothing is refused here: a member left out or of another type is NULL
 * (a list: absent, or present but no array), and a descriptor keeps its
 * place in its list whatever it holds, for the caller to judge.
 */
#ifndef AB_STMTREC_H
#define AB_STMTREC_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* one resource descriptor; strings borrowed from the document */
struct ab_stmtrec_descriptor {
	const char *name;            /* NULL: none, or not a string */
	const char *sha256;          /* digest.sha256 as it is (not checked to be hex), or NULL */
	const char *mode;            /* annotations' AB_MANIFEST_MODE (provenance/record/manifest.h), or NULL */
};

struct ab_stmtrec_list {
	int present;                 /* the member is there ... */
	int array;                   /* ... and is an array: v holds its items, in order */
	struct ab_stmtrec_descriptor *v;
	size_t n;
};

enum { AB_STMTREC_SUBJECT, AB_STMTREC_BYPRODUCTS };

struct ab_stmtrec {
	const char *type;            /* _type */
	const char *predicate_type;  /* predicateType */
	struct ab_stmtrec_list lists[2]; /* by AB_STMTREC_SUBJECT, AB_STMTREC_BYPRODUCTS */
};

/* what doc names, into *s (borrowing doc's strings: doc outlives s) */
void ab_stmtrec_read(struct ab_stmtrec *s, const cJSON *doc);
void ab_stmtrec_release(struct ab_stmtrec *s);

#endif
