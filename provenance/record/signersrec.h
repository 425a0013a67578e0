/*
 * signersrec: provenance/signers.json (AB_MANIFEST_SIGNERS), which `sign`
 * writes beside the envelopes (provenance/review/sign.h): who signed the
 * statements, by key id and algorithm. A hint for the reader (pr.md shows
 * it), never trusted: verify --key checks the keys themselves. One
 * serializer and one reader, beside the struct:
 *
 *   {_type: AB_SIGNERSREC_TYPE, version: 1, envelopes, payloadType,
 *    statements: [paths], keyid: AB_SIGNERSREC_KEYID, signers: [{keyid, algorithm}]}
 */
#ifndef AB_SIGNERSREC_H
#define AB_SIGNERSREC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../../lib/util.h"

#define AB_SIGNERSREC_TYPE "https://allocbuild.dev/signers/v1"
/* how a key id is made from a key */
#define AB_SIGNERSREC_KEYID "hex SHA-256 of the public key's DER SubjectPublicKeyInfo"

struct ab_signersrec_key {
	const char *keyid, *algorithm; /* NULL when the entry has none (read back: strings of doc) */
};

struct ab_signersrec {
	const char *envelopes, *payload_type; /* written; not read back */
	const struct ab_strv *statements; /* written; not read back */
	struct ab_signersrec_key *v; /* in the document's order (an entry that is no object: both NULL) */
	size_t n;
	cJSON *doc;                  /* read back: the document, owned */
};

/* the document; a new object */
cJSON *ab_signersrec_json(const struct ab_signersrec *s);
/*
 * OUTDIR's signers.json read back into *out: its signers; none when it
 * is no such document, or cannot be read (reported, as ab_json_read does)
 */
void ab_signersrec_read(struct ab_signersrec *out, const char *outdir);
void ab_signersrec_release(struct ab_signersrec *s);

#endif
