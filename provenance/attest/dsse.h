/*
 * dsse: Dead Simple Signing Envelopes (github.com/secure-systems-lab/dsse),
 * one JSON object a line of an .intoto.jsonl file:
 *
 *   {"payload":"<base64 of the body>","payloadType":"<type>",
 *    "signatures":[{"keyid":"<id>","sig":"<base64 of the signature>"}]}
 *
 * Each signature is over the pre-authentication encoding
 *
 *   PAE(type, body) = "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
 *
 * LEN the byte length in ASCII decimal without leading zeros, SP one space.
 * A line is written without spaces, members in the order above, base64 in
 * the standard alphabet with padding. Parsing accepts either alphabet
 * (standard or URL-safe), padded or not, as DSSE asks of verifiers, but
 * only canonical encodings: a string that does not re-encode to itself
 * (stray bits in its last character, whitespace) is refused, so one
 * signature has one spelling.
 *
 * The protocol order is the caller's: check a signature over the PAE
 * (ab_dsse_check) before parsing the payload; parse decodes, it never
 * interprets the body.
 */
#ifndef AB_DSSE_H
#define AB_DSSE_H

#include <stddef.h>

/* the payload type of an in-toto Statement */
#define AB_DSSE_INTOTO "application/vnd.in-toto+json"

struct ab_buf;
struct ab_key;
struct ab_strv;

struct ab_dsse_sig {
	char *keyid;         /* NULL when the envelope has none */
	unsigned char *sig;
	size_t len;
};

/* an envelope decoded from its line; zero-initialise, release with ab_dsse_release */
struct ab_dsse {
	char *payload_type;
	unsigned char *payload;
	size_t payload_len;
	struct ab_dsse_sig *sigs;
	size_t nsigs;
};

/* PAE(type, body) appended to out */
void ab_dsse_pae(struct ab_buf *out, const char *type, const void *body, size_t len);

/* base64 (standard alphabet, padded) of p[0..n) appended to out */
void ab_dsse_b64_encode(struct ab_buf *out, const void *p, size_t n);
/* decode s[0..n), either alphabet, padded or not, canonical only; 0, or -1 (not reported) */
int ab_dsse_b64_decode(unsigned char **out, size_t *outlen, const char *s, size_t n);

/*
 * Decode one envelope line (without its newline). On failure returns
 * AB_ECHECK with the reason in *why (not reported): "not JSON", "no
 * payload", "payload is not base64", ... Release e in every case.
 */
int ab_dsse_parse(struct ab_dsse *e, const char *line, size_t len, struct ab_buf *why);
void ab_dsse_release(struct ab_dsse *e);

/*
 * The envelope line (no newline) of body under type, signed by each of
 * keys[0..nkeys) (private keys) in that order; appended to out. Reports
 * errors.
 */
int ab_dsse_sign(struct ab_buf *out, const char *type, const void *body, size_t len,
    struct ab_key *const *keys, size_t nkeys);
/*
 * The same envelope, one line with its newline, written atomically to
 * path: a signed record that travels alone (a rebuild record, a VSA).
 * 0, or AB_EFAIL after reporting.
 */
int ab_dsse_sign_file(const char *path, const char *type, const void *body, size_t len,
    struct ab_key *const *keys, size_t nkeys);

/* 0 when signature s of e verifies with k over PAE(e->payload_type, e->payload), AB_ECHECK otherwise */
int ab_dsse_check(const struct ab_dsse *e, const struct ab_dsse_sig *s, const struct ab_key *k);

/*
 * The signatures of e with keys[0..nkeys) (public keys): a signature's
 * keyid narrows the keys tried (every key when it has none). 0 when a key
 * verified one (every key, with require_all); AB_ECHECK otherwise, each
 * reason a string appended to why (not reported). accepted (nkeys
 * entries, or NULL) gets 1 for each key that verified a signature.
 */
int ab_dsse_verify_keys(const struct ab_dsse *e, struct ab_key *const *keys, size_t nkeys, int require_all,
    char *accepted, struct ab_strv *why);

/* a string from an envelope as it may be printed: control characters become '?'; caller frees */
char *ab_dsse_printable(const char *s);

#endif
