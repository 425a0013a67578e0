/*
 * vsa: the Verification Summary Attestation of `verify --policy --sign`
 * (SLSA VSA v1, https://slsa.dev/spec/v1.0/verification_summary; docs/policy.md):
 * an in-toto Statement (provenance/attest/statement.h) whose subjects are what
 * was verified (an OUTDIR's artifacts, as its statement names them, or the
 * bundle file itself) and whose predicate says who verified it, when,
 * against which policy (its path and SHA-256), the result, the levels and
 * the attestations read; written as one DSSE envelope line
 * (provenance/attest/dsse.h) that `verify --key` and any DSSE verifier check.
 *
 * Its inputAttestations are the target's own (its statement, records and
 * envelopes) and the independent rebuilders' records it relied on: each
 * record of verify --rebuilt whose signature a --rebuilt-key verified, by
 * the path given and the sha256 of its bytes, with the keyid that
 * verified it as an annotation (a record whose signature was not checked
 * counts for no rebuilder, and is not listed).
 *
 * Its subjects' names are relative to the directory of the envelopes
 * file (by default beside the target: OUTDIR.vsa.intoto.jsonl,
 * BUNDLE.vsa.intoto.jsonl), so that verify --key finds the files; a VSA
 * written elsewhere names them from there, climbing first
 * ("../../work/bo/variants/..."), which verify --key accepts of a VSA's
 * subjects in an envelopes file checked on its own
 * (provenance/review/sign.h), and of nothing else. Inside pr's bundle
 * (inside) it names no path of the author's machine: the OUTDIR by its
 * last component, the policy as the bundle holds it, the rebuilders'
 * records by their file names.
 */
#ifndef AB_VSA_H
#define AB_VSA_H

#include <stddef.h>

#include "policy.h"

#define AB_VSA_PREDICATE "https://slsa.dev/verification_summary/v1"
#define AB_VSA_VERIFIER "https://allocbuild.dev/verifier/v1"
/* the VSA of TARGET goes to TARGET.vsa.intoto.jsonl by default */
#define AB_VSA_FILE "vsa.intoto.jsonl"

struct ab_key;
struct ab_challenge;

/* what was verified and how it came out */
struct ab_vsa {
	const char *target;          /* the OUTDIR or bundle, as given */
	int bundle;
	const struct ab_policy *policy;
	int passed;                  /* verify and every rule passed */
	int inside;                  /* the VSA goes inside the target (pr's bundle): subjects named as its statement names them */
};

/* the default path of a target's VSA; caller frees */
char *ab_vsa_default_path(const struct ab_vsa *v);
/*
 * write the signed VSA to path (atomically), signed by keys[0..nkeys)
 * (private), listing the records of rebuilt (the rebuilders' records held
 * against the target, or NULL) that it relied on; reports errors
 */
int ab_vsa_write_rebuilt(const char *path, const struct ab_vsa *v, const struct ab_challenge *rebuilt,
    struct ab_key *const *keys, size_t nkeys);
/* the same without rebuilders' records */
int ab_vsa_write(const char *path, const struct ab_vsa *v, struct ab_key *const *keys, size_t nkeys);

#endif
