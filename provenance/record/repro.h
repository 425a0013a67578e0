/*
 * repro: two builds of one recipe compared artifact by artifact, and the
 * record that says what was found (`build --check`, `rebuild`;
 * docs/manifests.md, "Reproducibility and rebuild records").
 *
 * Each side is what its manifests say: binary-provenance.json (the
 * artifacts with their digests and fingerprints, the host probes, which
 * variants are reproducible) and build-commands.json (each variant's
 * toolchain). The original's files may be absent (a rebuild from a
 * bundle): then the fingerprints alone name what differs.
 *
 *   struct ab_repro_side a = {.outdir = OUTDIR, .binaries = b1, .commands = c1, ...};
 *   struct ab_repro_result cmp;
 *   ab_repro_compare(&cmp, &a, &b);
 *   ab_repro_print(stdout, &cmp);
 *   cJSON *st = ab_repro_statement(AB_REPRO_REBUILD_TYPE, &cmp, &a, &b, 0);
 *   ab_repro_result_release(&cmp);
 *
 * The comparison (struct ab_repro_result; its one serializer
 * ab_repro_result_json and one parser ab_repro_result_parse) is
 *   {"artifacts": [{"label", "path", "original_sha256", "rebuilt_sha256",
 *                   "identical", "reproducible", "difference" (artdiff.h),
 *                   "summary", "likely_causes": [...]}],
 *    "compared": N, "identical": I, "differ": D, "differ_expected": E,
 *    "summary": "2/2 artifacts identical"}
 * "differ" counts the reproducible artifacts that differ (a failed check);
 * "differ_expected" those of variants built with "reproducible": false.
 * Likely causes: a recorded tool version or package that differs between
 * the two builds of the variant (provenance/record/toolchain.h), a host probe
 * that differs (provenance/alloc/hostprobe.h), "reproducible": false. When both
 * sides have the variant's compile log, an artifact that differs also has
 * "first_differing_compile": {"source", "output", "cwd", "command",
 * "original_sha256", "rebuilt_sha256"} (the first compile of the
 * original's order whose object differs) and "differing_compiles": N.
 *
 * ab_repro_compile_logs reads the compile logs that build-commands.json
 * names through a reader (an OUTDIR's files, a bundle's members).
 */
#ifndef AB_REPRO_H
#define AB_REPRO_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../../lib/util.h"

#define AB_REPRO_CHECK_TYPE "https://allocbuild.dev/reproducibility/v1"
#define AB_REPRO_REBUILD_TYPE "https://allocbuild.dev/rebuild/v1"

struct ab_repro_side {
	const char *where;       /* the OUTDIR or bundle, as named in messages and the record */
	const char *outdir;      /* where its artifacts are, or NULL when they are not at hand */
	const cJSON *binaries;   /* its provenance/binary-provenance.json */
	const cJSON *commands;   /* its provenance/build-commands.json */
	const cJSON *statement;  /* its provenance/provenance.intoto.json */
	const cJSON *compiles;   /* label -> its compile log's text (builder/ccwrap.h), or NULL */
};

/*
 * The manifests of a built OUTDIR that a comparison reads, into a side
 * whose where and outdir are that OUTDIR; the documents are the caller's:
 * free them with ab_repro_docs_release. Reports errors.
 */
struct ab_repro_docs {
	cJSON *binaries, *commands, *statement, *compiles;
};
int ab_repro_side_read(struct ab_repro_side *s, struct ab_repro_docs *d, const char *outdir);
void ab_repro_docs_release(struct ab_repro_docs *d);

/*
 * The compile logs build-commands.json names, read by read(ctx, path,
 * out) (0 and the text in out, else not there): an object label -> text
 */
cJSON *ab_repro_compile_logs(const cJSON *commands, int (*read)(void *ctx, const char *rel, struct ab_buf *out),
    void *ctx);

/*
 * The comparison, typed: what ab_repro_compare makes, and what the
 * readers of a reproducibility or rebuild record use (pr, verify --policy,
 * challenge). Read back, a member left out is NULL (0 for identical and
 * reproducible; -1 for the counts and jobs); a likely cause that is not a
 * string is "?"; difference and first_compile are not read back.
 */
struct ab_repro_compile {
	char *source, *output, *cwd, *command, *original_sha256, *rebuilt_sha256;
};
struct ab_repro_artifact {
	char *label, *path;
	char *original_sha256, *rebuilt_sha256; /* rebuilt NULL: not built again */
	int identical;                  /* the member is true */
	int reproducible;               /* its variant is built to be reproducible */
	/* an artifact that differs: */
	cJSON *difference;              /* how (provenance/tree/artdiff.h, shown as it is), owned; NULL: not built again */
	char *summary;
	struct ab_strv likely_causes;
	struct ab_repro_compile *first_compile; /* first_differing_compile, or NULL */
	int differing_compiles;
	char *diffoscope, *diffoscope_sha256; /* its diffoscope report, or NULL */
};
struct ab_repro_result {
	struct ab_repro_artifact *artifacts;
	size_t n;
	int compared, identical, differ, differ_expected; /* -1: the comparison does not say */
	char *summary;
};
/* compare the artifacts of original a with those of b (see above) into *out */
void ab_repro_compare(struct ab_repro_result *out, const struct ab_repro_side *a, const struct ab_repro_side *b);
/* the comparison as a record holds it (above); a new document */
cJSON *ab_repro_result_json(const struct ab_repro_result *r);
/* its "artifacts" alone; a new array */
cJSON *ab_repro_artifacts_json(const struct ab_repro_result *r);
/* cmp (the comparison, above) read into *out; AB_EFAIL (reported, naming file and key) when it is not one */
int ab_repro_result_parse(struct ab_repro_result *out, const cJSON *cmp, const char *file);
void ab_repro_result_release(struct ab_repro_result *r);
/* a record (an in-toto Statement above): its predicate.comparison, and predicate.rebuild.jobs (-1: none) */
struct ab_repro_record {
	struct ab_repro_result cmp;
	int jobs;
};
int ab_repro_record_parse(struct ab_repro_record *out, const cJSON *st, const char *file);
void ab_repro_record_release(struct ab_repro_record *r);

/* one line per artifact ("identical  LABEL  PATH  SHA" or "differs ..." with the summary and causes), then the summary */
void ab_repro_print(FILE *f, const struct ab_repro_result *cmp);
/*
 * The record as an in-toto Statement of type `type`: its subjects are the
 * compared artifacts of a (subjects_of_b 0) or of b, paths relative to that
 * side's OUTDIR; the predicate holds the recipe, both builds and cmp. The
 * caller may add to "predicate".
 */
cJSON *ab_repro_statement(const char *type, const struct ab_repro_result *cmp, const struct ab_repro_side *a,
    const struct ab_repro_side *b, int subjects_of_b);

/*
 * diffoscope, the reproducible-builds project's tool that explains a
 * difference, on the artifacts of cmp that differ: the first one, or every
 * one with all (rebuild --diffoscope). Each report is diffoscope's text
 * (--text), at most AB_REPRO_DIFFOSCOPE_MAX bytes (--max-text-report-size)
 * and `timeout` seconds (0: AB_REPRO_DIFFOSCOPE_TIMEOUT; past that it is
 * stopped and its report is partial), written to
 * DIR/diffoscope/<label>.<file>.txt (DIR/diffoscope made anew), outside
 * provenance/: the comparison's artifact gets `diffoscope` (its path
 * relative to DIR) and `diffoscope_sha256`, so the record that carries
 * cmp names it by digest. The artifacts are a_root/PATH and b_root/PATH.
 * Without diffoscope in PATH a note says so and nothing is run. Returns
 * how many reports were written; a failure to run is a warning.
 */
#define AB_REPRO_DIFFOSCOPE_TIMEOUT 300
#define AB_REPRO_DIFFOSCOPE_MAX (1024 * 1024)
struct ab_repro_diffoscope {
	const char *a_root, *b_root, *dir;
	int timeout;
	int all;
};
int ab_repro_diffoscope(struct ab_repro_result *cmp, const struct ab_repro_diffoscope *o);
/* does the comparison name a diffoscope report? prints "diffoscope: ..." lines for them to f */
void ab_repro_print_diffoscope(FILE *f, const struct ab_repro_result *cmp, const char *where);

#endif
