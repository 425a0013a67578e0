/*
 * bundle: the evidence bundle of a build, provenance-<name>.tar.gz.
 *
 * The bundle holds the recipe, every manifest, the logs and SHA256SUMS of
 * an OUTDIR under one top directory "provenance-<name>/", plus an index,
 * BUNDLE-SHA256SUMS, listing the sha256 of every other member. It is
 * deterministic: members sorted bytewise by path, mtime fixed to the
 * build's SOURCE_DATE_EPOCH (0 when unknown), uid/gid 0 with no names, modes
 * 0644 (0755 for directories and executable files: those of a dir
 * source's tree in inputs/, builder/inputs.h), ustar format, gzip without
 * name or time, so two runs over the same OUTDIR give identical bytes.
 *
 * ab_bundle_verify() streams the bundle through libarchive without writing
 * anything to disk, hashing every member and checking it against the index.
 */
#ifndef AB_BUNDLE_H
#define AB_BUNDLE_H

/* pr's charts as SVG files (provenance/compare/svgchart.h): a folder of OUTDIR the bundle carries unlisted, as pr-details.md */
#define AB_PR_CHARTS "pr-charts"
/* pr --policy's policy file and signed verification summary: a folder of OUTDIR the bundle carries unlisted */
#define AB_PR_POLICY "pr-policy"
/*
 * compare's test-result Statements (provenance/compare/testresult.h),
 * written by compare --sign and sign: carried beside SHA256SUMS's files,
 * checked by verify --key through the envelopes that sign them
 */
#define AB_TEST_RESULTS "test-results"
/* the SBOM (provenance/review/sbom.h): its CycloneDX document and the Statement sign signs it in, carried the same way */
#define AB_SBOM_DIR "sbom"

#include <stdint.h>
#include <stdio.h>

#include "../../lib/hash.h"
#include "../../lib/strmap.h"
#include "../../lib/util.h"

/*
 * Write the bundle of the files `members` (paths relative to outdir, any
 * order) to path, atomically (lib/atomic.h). mtime is the fixed member time.
 * Reports errors.
 */
int ab_bundle_write(const char *path, const char *outdir, const char *top,
    char *const *members, size_t nmembers, int64_t mtime);

/*
 * What verify reads of a bundle is bounded (docs/pr.md, "Limits"): at
 * most AB_BUNDLE_MAX_MEMBERS members; each member whose bytes it keeps
 * (the index, SHA256SUMS, the statement, build-commands.json, every
 * signed Statement and the envelopes) at most AB_BUNDLE_MAX_KEPT bytes,
 * and all of them together at most AB_BUNDLE_MAX_KEPT_TOTAL. Past a
 * limit the bundle fails (AB_ECHECK, printed) without reading further.
 * Members are found through an index: time linear in the members.
 */
#define AB_BUNDLE_MAX_MEMBERS 200000
#define AB_BUNDLE_MAX_KEPT ((size_t)64 << 20)
#define AB_BUNDLE_MAX_KEPT_TOTAL ((size_t)256 << 20)

/*
 * Check a bundle: every member is listed in BUNDLE-SHA256SUMS with a
 * matching digest, nothing listed is missing, and the bundle's SHA256SUMS
 * agrees with the manifests it carries. Each problem is printed on stdout
 * as "<member>: <what>"; returns 0 when all is well, AB_ECHECK when a
 * check failed (a damaged bundle included), AB_EFAIL (reported) when the
 * bundle cannot be opened at all.
 */
int ab_bundle_verify(const char *path);

/* a regular member of a bundle, as ab_bundle_verify_keep saw it */
struct ab_bundle_member {
	char *name;               /* relative to the top directory */
	char hex[AB_HEX_LEN + 1]; /* the sha256 of its bytes */
	int exec;                 /* its mode is 0755 (not 0644): an executable file of inputs/ */
	struct ab_buf data;       /* its bytes, when keep() chose it; else empty */
};

struct ab_bundle_members {
	struct ab_bundle_member *v; /* in archive order, BUNDLE-SHA256SUMS left out */
	size_t n;
	struct ab_strmap index;     /* name -> position in v */
};

/*
 * ab_bundle_verify, keeping what it read: every regular member's name and
 * digest into *out, and the bytes of the members for which keep(name)
 * (may be NULL) is true. *out holds what was read even when a check
 * failed; free it with ab_bundle_members_free in every case.
 */
int ab_bundle_verify_keep(struct ab_bundle_members *out, const char *path, int (*keep)(const char *name));
/* the same, its problems printed on f rather than stdout */
int ab_bundle_verify_keep_to(FILE *f, struct ab_bundle_members *out, const char *path, int (*keep)(const char *name));
void ab_bundle_members_free(struct ab_bundle_members *m);
/* the member named name, or NULL */
const struct ab_bundle_member *ab_bundle_member(const struct ab_bundle_members *m, const char *name);

/*
 * A bundle's run records (members kept by ab_bundle_verify_keep) checked
 * against its build Statement (member build_stmt) as verify checks an
 * OUTDIR's: each a run of one of its builds, else "NAME: a run of build
 * X, not of this OUTDIR's (Y): a record of another OUTDIR" on out. 0 or
 * AB_ECHECK.
 */
int ab_bundle_check_runs(FILE *out, const struct ab_bundle_members *m, const char *build_stmt);
/*
 * Read the member REL (relative to the bundle's top directory, as in its
 * SHA256SUMS: "provenance/binary-provenance.json") into out, at most max
 * bytes. 0; 1 when the bundle has no such member (not reported); AB_EFAIL
 * when the bundle cannot be read or the member is larger (reported). It
 * does not verify the bundle: callers that trust the content run
 * ab_bundle_verify first.
 */
int ab_bundle_read(struct ab_buf *out, const char *path, const char *rel, size_t max);

#endif
