/*
 * manifest_impl: private to provenance/record/manifest*.c: the lists of
 * files with their digests (struct sums) that the writer (manifest.c) and
 * verify (manifest_verify.c) keep, verify's state and readers that
 * manifest_last.c uses too, and the path helpers manifest_env.c shares.
 * Nothing outside the manifests includes this header; the rest of the tree
 * uses provenance/record/manifest.h.
 */
#ifndef AB_MANIFEST_IMPL_H
#define AB_MANIFEST_IMPL_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../../lib/hash.h"
#include "../../lib/strmap.h"
#include "../../lib/util.h"

/* a file to list in SHA256SUMS (and in the statement) */
struct sum {
	char *path; /* relative to OUTDIR */
	char hex[AB_HEX_LEN + 1];
	char *want; /* verify: the last expectation compared, or NULL */
	char *why;  /* verify: why the file has no digest ("missing", ...), or NULL */
	cJSON *annotations; /* the statement's annotations of the file, or NULL */
};

struct sums {
	struct sum *v;
	size_t n, cap;
	struct ab_strmap index; /* path to its entry: an OUTDIR's files grow with its runs */
};

/* what verify found out about the files of an OUTDIR */
struct verifier {
	FILE *out;
	const char *outdir;
	int rootfd;
	struct sums seen;    /* every file hashed once: its digest, or why it has none */
	struct ab_strv sums; /* the paths SHA256SUMS lists, in order */
	struct ab_strmap listed; /* each of them to its index */
	int bad;             /* problems printed */
};

/* manifest.c: OUTDIR/rel (allocated) */
char *ab_manifest_path(const char *outdir, const char *rel);
/* a regular file with an execute bit, not a static archive (.a) */
int ab_manifest_is_executable(const char *path);
/* path's entry, or NULL */
struct sum *ab_manifest_find_sum(const struct sums *s, const char *path);
/* path with its digest hex (hex digits, or "" for none), unless listed already */
void ab_manifest_add_sum(struct sums *s, const char *path, const char *hex);
void ab_manifest_free_sums(struct sums *s);

/* manifest_verify.c: a manifest of OUTDIR read through the resolver; NULL when unreadable or not JSON */
cJSON *ab_manifest_read_doc(struct verifier *v, const char *rel);
/* OUTDIR's SHA256SUMS opened through the resolver (rootfd: OUTDIR, or -1); -1 reported unless quiet */
int ab_manifest_open_sums(int rootfd, const char *outdir, int quiet);

#endif
