/*
 * updiffrec: provenance/upstream-diff.json read back, typed: per variant
 * naming allocator.vendored and allocator.upstream, the report of
 * provenance/tree/updiff.h (docs/upstream-diff.md, "JSON"). The build
 * writes it (builder/build_probe.c); this is its one reader, for the
 * commands that read an OUTDIR afterwards (sbom, policycheck, pr). The
 * shape read (version 2; version 1, variants keyed by label in an
 * object, {LABEL: {candidate, ...}}, is still read):
 *
 *   {variants: [{label, candidate: SIDE, upstream: SIDE, matches, identical, summary, notes: [..],
 *                files: [{path, status, class, significant, diff, diff_omitted}]}]}
 *   SIDE: {spec, kind, path | repository, rev, commit, tree, archive_sha256, files,
 *          digest: {dirHash}, version}
 *
 * A file's diff (the unified diff from the upstream to the candidate,
 * headers `--- upstream/PATH` and `+++ candidate/PATH`) is there when the
 * build recorded it (builder/build_probe.c: within AB_UPDIFF_RECORD_MAX
 * bytes of diffs; past that diff_omitted says why). A report without
 * its two sides' kinds and dirHashes, or a file without path and a known
 * status, is refused. Fields left out are NULL (0).
 */
#ifndef AB_UPDIFFREC_H
#define AB_UPDIFFREC_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../tree/updiff.h"

/* the most bytes of diffs a build records in one report (builder/build_probe.c) */
#define AB_UPDIFF_RECORD_MAX (1024 * 1024)

struct ab_updiffrec_side {
	char *spec, *kind;        /* kind: "directory", "archive", "git" */
	char *path, *repository, *rev, *commit, *tree;
	char *archive_sha256;     /* an archive side */
	uint64_t files;
	char *dirhash;
	char *version;            /* its VERSION file, or NULL */
};

struct ab_updiffrec_file {
	char *path;
	enum ab_updiff_status status;
	char *cls;                /* "source", "header", ... (docs/upstream-diff.md, "Classes") */
	int significant;
	char *diff;               /* recorded, or NULL */
	char *diff_omitted;       /* why it was not recorded, or NULL */
};

struct ab_updiffrec {
	char *label;
	struct ab_updiffrec_side candidate, upstream;
	int matches, identical;
	char *summary;
	struct ab_strv notes;
	struct ab_updiffrec_file *files;
	size_t nfiles;
};

struct ab_updiffrecs {
	struct ab_updiffrec *v;
	size_t n;
};

/* doc read into *out; AB_EFAIL (reported, naming file and key) when it is not one: a report without its label, or twice */
int ab_updiffrecs_parse(struct ab_updiffrecs *out, const cJSON *doc, const char *file);
/* OUTDIR/provenance/upstream-diff.json read and parsed; AB_EFAIL (reported) */
int ab_updiffrecs_read(struct ab_updiffrecs *out, const char *outdir);
/* the report of label, or NULL */
const struct ab_updiffrec *ab_updiffrecs_get(const struct ab_updiffrecs *r, const char *label);
void ab_updiffrecs_release(struct ab_updiffrecs *r);

#endif
