/*
 * intoto: the in-toto links of an OUTDIR (docs/intoto.md), in the form
 * Debian's in-toto 1.3.1 reads: its `in-toto-verify` checks them against a
 * layout. `sign` writes them beside the DSSE envelopes (provenance/review/sign.h).
 *
 * A link is a JSON "metablock" (in-toto 1.3.1, models/metadata.py):
 *   {"signatures": [{"keyid": ID, "sig": HEX}],
 *    "signed": {"_type": "link", "name": STEP, "command": [...],
 *               "materials": {PATH: {"sha256": HEX}}, "products": {...},
 *               "byproducts": {...}, "environment": {...}}}
 * sig is the key's signature (provenance/attest/keys.h: Ed25519 or ECDSA P-256,
 * in hex) over the canonical JSON (provenance/attest/canonjson.h) of "signed",
 * and ID is securesystemslib's keyid: the hex SHA-256 of the canonical JSON
 * of the public key's dictionary (ab_intoto_pubkey), not allocbuild's own
 * keyid. One file per step and key, OUTDIR/in-toto/STEP.ID[:8].link,
 * the name in-toto-verify looks for.
 *
 * The steps, read from the build's manifests (paths relative to the
 * OUTDIR, so a layout's MATCH rules join them); each file's digest is the
 * one the build recorded (SHA256SUMS), a source tree's files those fetch
 * recorded and git-like stat data shows unchanged, and any other file is
 * hashed when sign runs:
 *   fetch-SOURCE  products: the source's tree as materialized, SOURCE/PATH
 *                 (the first variant's tree); byproducts: the pin
 *   build-LABEL   materials: variants/LABEL/src/PATH; products: the
 *                 variant's artifacts and logs; command: the last recorded
 *                 argv (make, cmake --build, cargo), every step's argv in
 *                 byproducts, the last one's environment in environment
 *   relink-LABEL  the same for a relink, its materials the artifacts that
 *                 replaced inputs of the link
 *   probe-LABEL   materials: the artifacts of the variant it probes;
 *                 products: variants/LABEL/probe/PATH; command: the probe
 *                 program's argv, its compile argv in byproducts
 */
#ifndef AB_INTOTO_H
#define AB_INTOTO_H

#include <stddef.h>

#include <cjson/cJSON.h>

/* where the links are, relative to an OUTDIR */
#define AB_INTOTO_DIR "in-toto"

struct ab_hash_tfile;
struct ab_key;
struct ab_strv;

/*
 * The public key of k as securesystemslib's dictionary (keytype, scheme,
 * keyid_hash_algorithms, keyval.public: what `in-toto-verify` and a
 * layout's "keys" read) into *out, its keyid into id (65 bytes). Reports
 * errors.
 */
int ab_intoto_pubkey(cJSON **out, char *id, const struct ab_key *k);

/*
 * The regular files of a source tree (dir, its path) with their digests,
 * in path order, as fetch recorded them and checked by stat data the way
 * git checks its index (builder/source.h): 0 and *files, *n set; 1 when
 * not known; AB_EFAIL reported.
 */
typedef int ab_intoto_tree_fn(struct ab_hash_tfile **files, size_t *n, const char *dir);

/*
 * What is already known of the files the links name, so that sign does
 * not read them again. A file or tree neither gives is hashed.
 */
struct ab_intoto_known {
	/* the digests the build recorded in SHA256SUMS (paths relative to the OUTDIR), or NULL */
	const struct ab_strv *paths, *hexes;
	ab_intoto_tree_fn *tree; /* NULL: every tree is hashed */
};

/*
 * The links of outdir's steps signed by each of keys[0..nkeys) (private),
 * file names relative to outdir into names and their bytes into texts,
 * in step order; nothing written. Each tree and file is read once, and
 * not at all when known gives it (known may be NULL). An OUTDIR without
 * build records gives none. Reports errors.
 */
int ab_intoto_make(struct ab_strv *names, struct ab_strv *texts, const char *outdir, struct ab_key *const *keys,
    size_t nkeys, const struct ab_intoto_known *known);
/* replace outdir's links by those made (each written atomically); reports errors */
int ab_intoto_write(const char *outdir, const struct ab_strv *names, const struct ab_strv *texts);
/* remove outdir's links (in-toto/ *.link); reports errors */
int ab_intoto_remove(const char *outdir);
/* does the path relative to an OUTDIR (or a bundle member's) name a link: in-toto/NAME.link? */
int ab_intoto_is_link(const char *rel);
/* the links present in outdir, relative to it, sorted; reports errors */
int ab_intoto_links(struct ab_strv *out, const char *outdir);

#endif
