/*
 * updiff: compare a candidate tree (a vendored copy, an archive, a directory
 * inside a commit) with an upstream tree, file by file, and rank several
 * upstreams by how well they match (`upstream-diff`, `identify`).
 * docs/upstream-diff.md describes the statuses, the file classes, the
 * verdict and the JSON report.
 *
 * The one-call API, for the build (provenance/upstream-diff.json):
 *
 *   struct ab_updiff_opts o;
 *   cJSON *report;
 *
 *   ab_updiff_opts_init(&o);                  non-strict, automatic strip
 *   if (ab_updiff_compare(&report, vendored, upstream, &o) < 0)
 *           return -1;                         errors already reported
 *   ...report's "matches" (bool) is the verdict, "summary" the line...
 *   ab_json_write(path, report);
 *   cJSON_Delete(report);
 *
 * Both specs take any form ab_tree_read accepts (provenance/tree/tree.h):
 * DIR, ARCHIVE or git:REPO@REV[:PATH]. A difference is not an error:
 * ab_updiff_compare returns 0 and sets "matches": false.
 *
 * The step-by-step API (what the commands use):
 *   ab_updiff_read_trees() reads several sides in parallel,
 *   ab_updiff_new() compares two trees (borrowed, free them after the diff),
 *   ab_updiff_print() / ab_updiff_print_diffs() / ab_updiff_json() render,
 *   ab_updiff_free().
 */
#ifndef AB_UPDIFF_H
#define AB_UPDIFF_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "../../lib/util.h"
#include "tree.h"

enum ab_file_class {
	AB_CLASS_SOURCE,
	AB_CLASS_HEADER,
	AB_CLASS_TEMPLATE,
	AB_CLASS_BUILD,
	AB_CLASS_TEST,
	AB_CLASS_DOC,
	AB_CLASS_METADATA,
	AB_CLASS_GENERATED, /* generated in release tarballs: configure, VERSION, doc/NAME.3, doc/NAME.html */
	AB_CLASS_OTHER,
	AB_CLASS_COUNT,
};

enum ab_updiff_status {
	AB_UPDIFF_IDENTICAL,
	AB_UPDIFF_DIFFERS,
	AB_UPDIFF_ONLY_CANDIDATE,
	AB_UPDIFF_ONLY_UPSTREAM,
	AB_UPDIFF_STATUS_COUNT,
};

/* the class of a tree-relative path (rules in docs/upstream-diff.md) */
enum ab_file_class ab_updiff_classify(const char *path);
/* "source", "header", ..., "generated", "other" */
const char *ab_updiff_class_name(enum ab_file_class c);
/* "identical", "differs", "only in candidate", "only in upstream" */
const char *ab_updiff_status_name(enum ab_updiff_status s);
/* the same as JSON values: "identical", "differs", "only-in-candidate", "only-in-upstream" */
const char *ab_updiff_status_key(enum ab_updiff_status s);

struct ab_updiff_opts {
	int strict;      /* any difference fails the verdict */
	int strip;       /* archive sides: < 0 automatic, else components to strip */
	int jobs;        /* threads for reading (default 2) */
	int diffs;       /* ab_updiff_compare: put unified diffs into the report */
};

void ab_updiff_opts_init(struct ab_updiff_opts *o);

struct ab_updiff_file {
	const char *path;                 /* borrowed from the trees */
	enum ab_updiff_status status;
	enum ab_file_class cls;
	int significant;                  /* counts against the verdict */
	struct ab_tree_entry *cand, *up;  /* NULL on the side that lacks it */
};

struct ab_updiff {
	struct ab_tree *cand, *up;        /* borrowed */
	int strict;
	struct ab_updiff_file *v;
	size_t n;
	size_t count[AB_UPDIFF_STATUS_COUNT];
	size_t by_class[AB_CLASS_COUNT][AB_UPDIFF_STATUS_COUNT];
	size_t significant;               /* files that fail the verdict */
	size_t missing;                   /* source, header, template, build files only in upstream */
	uint64_t identical_bytes;         /* bytes of identical regular files */
	int matches;                      /* the verdict: significant == 0 */
	char *summary;                    /* the summary line */
	struct ab_strv notes;             /* "note: ..." lines (version strings) */
};

/*
 * Read specs[0..n) with up to jobs threads into trees[0..n) (archive sides
 * stripped as strip says); the sides read at once share lib/hash's
 * default hashing workers. Reports every failure; on error returns -1
 * and leaves every trees[i] NULL.
 */
int ab_updiff_read_trees(struct ab_tree **trees, const char *const *specs, size_t n, int strip, int jobs);
/* compare two trees; the trees must outlive the result; free with ab_updiff_free */
struct ab_updiff *ab_updiff_new(struct ab_tree *cand, struct ab_tree *up, int strict);
void ab_updiff_free(struct ab_updiff *u);
/*
 * identify's ranking of one candidate's comparisons with several
 * upstreams: <0 when p is the better match, >0 when q is, 0 for the same
 * score. Most identical files first, then most identical bytes, then the
 * fewest significant differences, the fewest files that differ or only
 * the candidate has, the fewest only the upstream has.
 */
int ab_updiff_rank(const struct ab_updiff *p, const struct ab_updiff *q);
/*
 * The human report: sides, non-identical files, with_diffs the unified
 * diffs (upstream -> candidate) of differing files (loads their contents),
 * class counts, summary, verdict, notes. Reports read errors.
 */
int ab_updiff_print(FILE *f, struct ab_updiff *u, int with_diffs);
/* the full report; with_diffs loads contents and adds "diff" members; NULL on read errors */
cJSON *ab_updiff_json(struct ab_updiff *u, int with_diffs);
/* a side's description for a JSON report */
cJSON *ab_updiff_side_json(const struct ab_tree *t);

/* one call: read, compare, report (see the top of this file); opts NULL means defaults */
int ab_updiff_compare(cJSON **report, const char *candidate, const char *upstream,
    const struct ab_updiff_opts *opts);

#endif
