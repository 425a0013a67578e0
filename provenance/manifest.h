/*
 * manifest: the manifests of an OUTDIR (docs/manifests.md): sources.json,
 * build-commands.json, cmake-cache-provenance.json, binary-provenance.json,
 * allocator-probes.json, upstream-diff.json, relink-provenance.json, the
 * in-toto statement provenance.intoto.json and SHA256SUMS; and the readers
 * behind `verify` and `env`.
 *
 * The build (builder/build.c) fills one run record (provenance/record.h):
 * the recipe, invocation id, times, options, toolchain, the sources'
 * fetch records, the resolved dependencies, one record per variant and
 * the documents other modules shaped. ab_manifest_write() turns it into
 * every file, each written atomically, SHA256SUMS last.
 */
#ifndef AB_MANIFEST_H
#define AB_MANIFEST_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "record.h"

/* the in-toto buildType and builder id of allocbuild (docs/manifests.md) */
#define AB_BUILD_TYPE "https://allocbuild.dev/build/v1"
#define AB_BUILDER_ID "https://allocbuild.dev/builder/v1"

/* which runs write a manifest */
enum ab_manifest_when {
	AB_MANIFEST_ALWAYS,
	AB_MANIFEST_CMAKE,  /* the plan has a cmake variant */
	AB_MANIFEST_UPDIFF, /* a variant compares its vendored allocator with an upstream source */
	AB_MANIFEST_RELINK, /* the plan has a relink variant */
};

struct ab_manifest_file {
	const char *path; /* relative to OUTDIR */
	enum ab_manifest_when when;
};

/* the files a build's manifests step writes, in the order SHA256SUMS lists them; SHA256SUMS last */
extern const struct ab_manifest_file ab_manifest_files[];
extern const size_t ab_manifest_nfiles;

/*
 * Records that commands add to a built OUTDIR, each an in-toto Statement
 * whose subjects are artifacts of the OUTDIR: `build --check`'s
 * reproducibility record and `rebuild`'s record (docs/manifests.md).
 * SHA256SUMS lists them after the manifests. A later build keeps a record
 * while every subject digest it names is still that of the file, and
 * removes it otherwise (the artifacts it vouched for are gone).
 */
extern const char *const ab_manifest_records[];
/* NULL-terminated */

/*
 * Write record doc to OUTDIR/rel (one of ab_manifest_records) and list it
 * in SHA256SUMS; the envelopes of the OUTDIR, which do not sign it, are
 * removed. The caller holds OUTDIR's lock. 0 or AB_EFAIL (reported).
 */
int ab_manifest_add_record(const char *outdir, const char *rel, const cJSON *doc);

/* copy the recipe and write every manifest of a run into run->outdir; 0 or AB_EFAIL (reported) */
int ab_manifest_write(const struct ab_run_record *run);

/*
 * Re-hash every file named by OUTDIR/SHA256SUMS and every subject and
 * byproduct of provenance.intoto.json; print each mismatch on out as
 * "PATH: expected HEX, actual HEX" (actual "missing" for a missing file).
 * Returns 0 when all match, AB_ECHECK on any mismatch, AB_EFAIL (reported)
 * when OUTDIR holds no readable manifests.
 */
int ab_manifest_verify(FILE *out, const char *outdir);

/*
 * The runtime environment of a label as shell lines: `unset NAME` for every
 * allocator variable the label does not set, then `export NAME='value'`.
 * Returns 0, or AB_EFAIL (reported) for an unknown label or unreadable OUTDIR.
 */
int ab_manifest_env(FILE *out, const char *outdir, const char *label);
/* "LABEL=/abs/path/to/binary" for every variant with a binary; 0 or AB_EFAIL (reported) */
int ab_manifest_systems(FILE *out, const char *outdir);

#endif
