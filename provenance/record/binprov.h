/*
 * binprov: provenance/binary-provenance.json read back, typed
 * (docs/manifests.md). The build writes the manifest from its variant
 * records (provenance/record/manifest.c); this is its one reader, for the
 * commands that read an OUTDIR's manifests afterwards (sbom, pr; policycheck
 * to come). The shape read:
 *
 *   {recipe: {name, path, sha256}, invocation_id,
 *    variants: [{label, kind, base, binary,
 *                allocator: {kind, archive, vendored, upstream, archive_sha256},
 *                source: {id, pin (a fetch record, provenance/record/fetchrec.h), relink_of},
 *                runtime: {env: {NAME: value}, unset: [..]},
 *                reproducible, sandboxed,
 *                host_probes: {LG_PAGE, LG_HUGEPAGE, LG_VADDR, pinned: [..]} or null,
 *                artifacts: [{path, artifact, size, sha256, allocator_archive,
 *                             allocator_version, bogus_version, parts: {format}}],
 *                uses: [{variant, artifact, path, sha256}]}]}
 *
 * Members not named here are not read. A variant without a label or kind,
 * an artifact without a path or a sha256 of 64 hex digits, a document
 * without the recipe's name and sha256 or two variants of one label are
 * refused: a record without its identity is none. A field left out is
 * NULL (0 for the numbers and flags); a runtime variable's value that is
 * not a string is "", an unset name that is not a string left out.
 */
#ifndef AB_BINPROV_H
#define AB_BINPROV_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../../lib/hash.h"
#include "../../lib/util.h"
#include "fetchrec.h"

struct ab_binprov_artifact {
	char *path;               /* relative to OUTDIR */
	char *artifact;           /* relative to the variant's build directory */
	uint64_t size;
	char sha256[AB_HEX_LEN + 1];
	int allocator_archive;    /* the variant's allocator.archive */
	char *allocator_version;  /* X.Y.Z-N-gHASH found in its bytes, or NULL */
	int bogus_version;
	char *format;             /* parts.format: "ar", "elf", or NULL */
};

/* jemalloc's measurements of the build host (provenance/alloc/hostprobe.h), as recorded */
struct ab_binprov_host_probes {
	int lg_page, lg_hugepage, lg_vaddr; /* -1: not a number in the record */
	struct ab_strv pinned;              /* the settings the recipe pinned them by */
};

/* an artifact of another variant it was built with */
struct ab_binprov_use {
	char *variant, *artifact, *path, *sha256; /* path and sha256 NULL when that variant has none */
};

/* a variable the variant's runtime environment sets */
struct ab_binprov_var {
	char *name, *value;
};

struct ab_binprov_variant {
	char *label, *kind, *base, *binary;
	struct ab_binprov_var *env; /* runtime.env, in the record's order */
	size_t nenv;
	struct ab_strv unset;       /* runtime.unset */
	int reproducible, sandboxed; /* 1 unless the record says false */
	struct ab_binprov_host_probes *host_probes; /* NULL: none recorded (the member null or absent) */
	int host_probes_member;  /* the record has the member, null or not */
	struct ab_binprov_use *uses;
	size_t nuses;
	struct {
		char *kind, *archive, *vendored, *upstream;
		char *archive_sha256;   /* the allocator archive in the binary, or NULL */
	} allocator;
	struct {
		char *id;               /* NULL for a relink or a runtime_of of one */
		struct ab_fetch_record *pin;
		char *relink_of;
	} source;
	struct ab_binprov_artifact *artifacts;
	size_t nartifacts;
};

struct ab_binprov {
	char *recipe_name, *recipe_path, *recipe_sha256;
	char *invocation_id;
	struct ab_binprov_variant *variants;
	size_t nvariants;
};

/* doc read into *out; AB_EFAIL (reported, naming what and where, file for the messages) when it is not one */
int ab_binprov_parse(struct ab_binprov *out, const cJSON *doc, const char *file);
/* OUTDIR/provenance/binary-provenance.json read and parsed; AB_EFAIL (reported) */
int ab_binprov_read(struct ab_binprov *out, const char *outdir);
/* the variant of label, or NULL */
const struct ab_binprov_variant *ab_binprov_variant(const struct ab_binprov *b, const char *label);
/* does v's runtime environment set name? */
int ab_binprov_sets(const struct ab_binprov_variant *v, const char *name);
void ab_binprov_release(struct ab_binprov *b);

#endif
