/*
 * sign: the signed statements of an OUTDIR (docs/manifests.md, "Signed
 * statements").
 *
 * Statements. ab_sign_statements() is the one place that knows where the
 * in-toto Statements of an OUTDIR live: the build's
 * provenance/provenance.intoto.json, then the run records
 * runs/NAME/NNNN-LABEL.intoto.json (provenance/runs/runrec.h), then compare's
 * test results test-results/NAME.intoto.json. A record that
 * adds Statements of its own (rebuild records) adds its place, a
 * directory (its last component may be "*") and a file-name pattern, to
 * the table `places` in sign.c; then
 * `sign`, `pr --sign`, the bundle (provenance/review/pr.c) and `verify --key` take
 * them in with nothing else changed. ab_sign_is_statement() answers the
 * same question for one relative path (a bundle's members).
 *
 * Signing. ab_sign_outdir() first writes the runs' test results
 * (test-results/NAME.intoto.json, provenance/compare/testresult.h), then wraps
 * every Statement found in a DSSE envelope
 * (provenance/attest/dsse.h) with payloadType application/vnd.in-toto+json, the
 * payload being the statement file's bytes exactly, signed by each key
 * given, and writes atomically
 *   provenance/provenance.intoto.jsonl   one envelope a line, in the order
 *                                        of ab_sign_statements()
 *   provenance/signers.json              the keyid and algorithm of each key:
 *                                        a hint for pr.md, never trusted
 * and, with the same keys, the in-toto links of the build's steps
 * (provenance/attest/intoto.h: OUTDIR/in-toto/), all made before anything is
 * written. A build rewrites its statement, so it removes them all
 * (ab_manifest_remove_signed): no envelope or link outlives the statement
 * it signed.
 *
 * Verifying. ab_sign_verify_outdir/_bundle/_file check every line of the
 * envelopes in this order, so that nothing of a payload is read before a
 * signature over it verified: decode the line; verify the signatures over
 * PAE(payloadType, payload) with the keys whose id matches the signature's
 * keyid (every key when it has none); the payload type; the Statement
 * (JSON, _type); every subject and byproduct digest against the files (of
 * the OUTDIR, or the bundle's members: a subject the bundle does not carry
 * is listed as not checked). And, where the Statements are at hand (an
 * OUTDIR, a bundle, an .intoto.jsonl in OUTDIR/provenance/), each is the
 * payload of exactly one line and each line carries one of them: a line
 * removed, added or duplicated fails. Every problem is printed on out as
 * "<envelopes>:<line>: <what>" or "<statement>: <what>"; the result is 0,
 * AB_ECHECK when a check failed, AB_EFAIL (reported) for unreadable input.
 * With no keys the signatures are not checked: the lines are decoded and
 * counted, and out says that they were present and not checked.
 */
#ifndef AB_SIGN_H
#define AB_SIGN_H

#include <stddef.h>
#include <stdio.h>

#include "../attest/intoto.h"
#include "../record/manifest.h"

/* where sign writes (named by provenance/record/manifest.h, whose coverage rules know them) */
#define AB_SIGN_ENVELOPES AB_MANIFEST_ENVELOPES
#define AB_SIGN_SIGNERS AB_MANIFEST_SIGNERS

struct ab_key;
struct ab_strv;
struct ab_bundle_members;

/* the Statements of outdir, paths relative to it, in signing order; reports errors */
int ab_sign_statements(struct ab_strv *out, const char *outdir);
/* does the path relative to an OUTDIR name a Statement (a place of ab_sign_statements)? */
int ab_sign_is_statement(const char *rel);
/* is it a Statement or one of the files sign writes (the members a signed bundle verification reads)? */
int ab_sign_is_signed_member(const char *rel);

/*
 * *is_signed: does outdir hold envelopes? When it does, out receives the
 * Statements whose bytes no line of them carries (added since it was
 * signed: a run record), in signing order. Coverage only: no signature is
 * checked (verify --key does). Reports errors.
 */
int ab_sign_uncovered(int *is_signed, struct ab_strv *out, const char *outdir);

/*
 * Sign every Statement of outdir with keys[0..nkeys) (private keys) and
 * write the envelopes, signers.json and the in-toto links (provenance/attest/intoto.h),
 * with the digests SHA256SUMS records and the source trees' files from
 * trees (may be NULL: the trees are hashed); *nsigned (may be NULL)
 * receives how many Statements were signed. The caller has verified
 * outdir (sign: ab_sign_verify_before_signing; pr its own verify); a
 * Statement that names an unsafe path is refused here too (AB_ECHECK).
 * Reports errors; none is written then.
 */
int ab_sign_outdir(size_t *nsigned, const char *outdir, struct ab_key *const *keys, size_t nkeys,
    ab_intoto_tree_fn *trees);
/*
 * The same, the runs' test-result Statements (provenance/compare/
 * testresult.h) written first with compare's options results (NULL: its
 * defaults), as ab_sign_outdir writes them: `compare --sign`
 */
struct ab_compare_opts;
int ab_sign_outdir_results(size_t *nsigned, const char *outdir, struct ab_key *const *keys, size_t nkeys,
    ab_intoto_tree_fn *trees, const struct ab_compare_opts *results);

struct ab_sign_verify_opts {
	struct ab_key *const *keys; /* public keys */
	size_t nkeys;               /* 0: signatures present are not checked */
	int require_all;            /* every key must have signed every envelope (else any one) */
	/* an OUTDIR's files this process hashed already, with their digests (ab_manifest_verify_seen), or NULL */
	const struct ab_strv *known_names, *known_hexes;
};

/*
 * the envelopes of an OUTDIR against its files and Statements; with keys,
 * none is a failure; without keys, a Statement naming a path that is not
 * safe and relative (absolute, or with "..") is one
 */
int ab_sign_verify_outdir(FILE *out, const char *outdir, const struct ab_sign_verify_opts *o);
/*
 * `allocbuild verify OUTDIR`: every file against SHA256SUMS and the
 * statement (ab_manifest_verify_seen), then ab_sign_verify_outdir with
 * the digests already made; o's known_* are not read
 */
int ab_sign_verify_outdir_all(FILE *out, const char *outdir, const struct ab_sign_verify_opts *o);
/*
 * What `sign` checks before it signs: OUTDIR as `allocbuild verify OUTDIR`
 * checks it (no keys). 0; AB_ECHECK with every problem reported as
 * "sign: ..." and that nothing was signed; AB_EFAIL (reported)
 */
int ab_sign_verify_before_signing(const char *outdir);
/* the envelopes in a bundle's members (ab_bundle_verify_keep with ab_sign_is_signed_member) */
int ab_sign_verify_bundle(FILE *out, const char *bundle, const struct ab_bundle_members *m,
    const struct ab_sign_verify_opts *o);
/*
 * An .intoto.jsonl file: names are relative to the OUTDIR above it when
 * it sits in a directory called provenance, else to its own directory
 */
int ab_sign_verify_file(FILE *out, const char *path, const struct ab_sign_verify_opts *o);
/* is the file at path envelopes: named *.jsonl, or its first byte other than white space '{'? */
int ab_sign_is_envelope_file(const char *path);

#endif
