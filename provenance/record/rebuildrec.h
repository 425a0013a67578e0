/*
 * rebuildrec: a rebuild record as it travels alone (docs/build.md,
 * "Independent rebuilders"). `rebuild` writes it; `challenge` and
 * `pr --rebuilt` read it back.
 *
 * The record is the Statement `rebuild` writes into its directory,
 * provenance/rebuild.intoto.json (provenance/record/repro.h), whose predicate
 * also says
 *   "original": {..., "statement_sha256": the sha256 of the rebuilt
 *                build's provenance/provenance.intoto.json (the same
 *                bytes in its OUTDIR and its bundle), "bundle_sha256": the
 *                bundle's own, when a bundle was rebuilt}
 *   "rebuilder": {"host": {"name", "kernel", "machine", "cpu_model"},
 *                 "toolchain": {label: the variant's tools as
 *                               build-commands.json records them},
 *                 "sandbox": {label: the sandbox's paths and namespaces}}
 * so that it names what it rebuilt by digest and who rebuilt where.
 * `rebuild --sign KEY` also writes DIR/rebuild.intoto.jsonl: one DSSE
 * envelope (provenance/attest/dsse.h) whose payload is the record's bytes.
 *
 *   ab_rebuildrec_identify(st, statement_hex, bundle_hex, rebuilt_commands);
 *   ab_rebuildrec_sign(dir, keys, nkeys);             after the record is written
 *   ab_rebuildrec_read(&r, "r1.jsonl", pubkeys, n, &why);
 */
#ifndef AB_REBUILDREC_H
#define AB_REBUILDREC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../../lib/hash.h"
#include "repro.h"
#include "toolchain.h"

/* where rebuild writes the signed record, relative to its directory */
#define AB_REBUILDREC_ENVELOPE "rebuild.intoto.jsonl"
/* where the record itself is, relative to an OUTDIR */
#define AB_REBUILDREC_STATEMENT "provenance/rebuild.intoto.json"

struct ab_key;
struct ab_strv;

/*
 * Add to the predicate of st (ab_repro_statement's) the original's
 * digests (bundle_hex NULL for an OUTDIR) and the rebuilder: this host,
 * and the toolchain and sandbox of each variant of rebuilt_commands (the
 * rebuild's build-commands.json)
 */
void ab_rebuildrec_identify(cJSON *st, const char *statement_hex, const char *bundle_hex,
    const cJSON *rebuilt_commands);

/* sign dir's record with keys (private) into dir/AB_REBUILDREC_ENVELOPE, atomically; reports errors */
int ab_rebuildrec_sign(const char *dir, struct ab_key *const *keys, size_t nkeys);

/* the tools a rebuild of one variant recorded (predicate.rebuilder.toolchain's member label) */
struct ab_rebuildrec_tools {
	const char *label;           /* owned by st */
	int ok;                      /* tools is a record (provenance/record/toolchain.h); else it says nothing */
	struct ab_toolchain tools;
};

/* a record read back */
struct ab_rebuildrec {
	char *file;          /* as given */
	cJSON *st;           /* the Statement */
	int enveloped;       /* it came in a DSSE envelope */
	char *signer;        /* the id of the key that verified it, NULL when none was checked */
	const char *host;    /* predicate.rebuilder.host.name, "?" when absent; owned by st */
	char original[AB_HEX_LEN + 1]; /* predicate.original.statement_sha256 */
	char sha256[AB_HEX_LEN + 1];   /* of the file's bytes (the envelope, or the plain record) */
	char *text;          /* the file's bytes, for the places of errors */
	size_t len;
	struct ab_repro_result cmp;  /* predicate.comparison, typed */
	struct ab_rebuildrec_tools *tools; /* predicate.rebuilder.toolchain, in its order */
	size_t ntools;
};

/*
 * Read the record in file: a Statement, or a DSSE envelope line carrying
 * one. With keys (public), an envelope whose signatures do not verify,
 * or a plain Statement, is AB_ECHECK with the reasons appended to why
 * (nothing of its payload is read then). A file that is no record of a
 * rebuild is AB_EFAIL, reported as "FILE:LINE:COL: what" (a comparison
 * that is not one as "FILE: key: what", provenance/record/repro.h).
 * Release r in every case.
 */
int ab_rebuildrec_read(struct ab_rebuildrec *r, const char *file, struct ab_key *const *keys, size_t nkeys,
    struct ab_strv *why);
void ab_rebuildrec_release(struct ab_rebuildrec *r);
/* the tools the rebuild of label recorded, NULL when it recorded none (or no record of tools) */
const struct ab_toolchain *ab_rebuildrec_tools_of(const struct ab_rebuildrec *r, const char *label);

/* an error about the record at the place of its text where needle first occurs ("FILE:LINE:COL: ..."), or 1:1 */
void ab_rebuildrec_error(const struct ab_rebuildrec *r, const char *needle, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
