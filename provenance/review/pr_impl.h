/*
 * pr_impl: what the parts of pr.md share (provenance/review/pr.c and its
 * pr_md, pr_summary, pr_diff, pr_runs): the evidence pr.md is made from,
 * and the functions one part calls in another. Private to them.
 */
#ifndef AB_PR_IMPL_H
#define AB_PR_IMPL_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../../lib/util.h"
#include "../compare/compare.h"
#include "../compare/pagetext.h"
#include "../record/binprov.h"
#include "../record/cmakeprov.h"
#include "../record/cmdsrec.h"
#include "../record/manifest.h"
#include "../record/proberesult.h"
#include "../record/repro.h"
#include "../record/sourcesrec.h"
#include "../record/updiffrec.h"
#include "challenge.h"
#include "policy.h"
#include "policycheck.h"

/*
 * What pr.md is made from: the manifests of one OUTDIR, nothing else. The
 * variants are build-commands.json's (each with the recipe's definition of
 * it), the sources sources.json's (each with its patches and overlays).
 */
struct evidence {
	const char *outdir;
	struct ab_manifest_recorded rec; /* what the build recorded: nothing else is read */
	const char *name;     /* the recipe's */
	cJSON *commands, *relink, *statement;
	struct ab_sourcesrec srcs;      /* sources.json: the sources' fetch records, patches and overlays */
	struct ab_cmdsrec cmds;         /* build-commands.json: the variants, in the order built, and their objects compared */
	/* the manifests read typed (provenance/record/): each empty when the build recorded none */
	struct ab_binprov bin;          /* binary-provenance.json */
	struct ab_probe_results probes; /* allocator-probes.json */
	struct ab_updiffrecs updiff;    /* upstream-diff.json */
	struct ab_cmakeprov_doc cmake;  /* cmake-cache-provenance.json */
	/* the records of build --check and rebuild (provenance/record/repro.h), NULL when there are none */
	const struct ab_repro_record *check, *rebuild;
	struct ab_repro_record check_rec, rebuild_rec;
	struct ab_comparison *runs; /* the runs' comparison, when there are runs */
	const struct ab_pr_opts *o;  /* what pr was asked (the derived figures of the runs' comparison) */
};

/* ---- pr_md.c ---- */

/* a member by dotted path ("a.b.c"), NULL when any step is missing */
const cJSON *ab_pr_jget(const cJSON *o, const char *path);
const char *ab_pr_jstr(const cJSON *o, const char *path);
/* the same, dflt when it is missing */
const char *ab_pr_jstr_or(const cJSON *o, const char *path, const char *dflt);
/* the entry of a manifest's "variants" for label: an object keyed by label, or an array of {label} */
const cJSON *ab_pr_for_label(const cJSON *doc, const char *label);
/*
 * The page's escaping, one function a context (provenance/compare/
 * pagetext.h: the one mechanism, compare's markdown and charts use it
 * too). What of s may be written to pr.md: newlines as spaces (one line
 * of a table or a list), every other control character escaped as on a
 * terminal (ab_shown; ab_page_line); caller frees
 */
char *ab_pr_shown_line(const char *s);
/* text for a table cell or a line: no markup, link, HTML or new cell (ab_page_text) */
void ab_pr_put_text(struct ab_buf *b, const char *text);
/* a value as an inline code span, safe inside a table cell (ab_page_code) */
void ab_pr_put_code(struct ab_buf *b, const char *text);
/* a value as <code> inside HTML (a <summary>, where GitHub shows backticks as they are; ab_page_html) */
void ab_pr_put_html_code(struct ab_buf *b, const char *text);
/* a fenced code block of text (lines already escaped): the fence longer than any run of backticks in it */
void ab_pr_put_fenced(struct ab_buf *b, const char *info, const char *text);
/* one line of a fenced block: the n words escaped, between the n + 1 separators */
void ab_pr_put_line_shown(struct ab_buf *b, const char *const *words, size_t n, const char *const *seps);
void ab_pr_put_short_hash(struct ab_buf *b, const char *hex);
/* is the variant's kind kind? */
int ab_pr_kind_is(const struct ab_cmdsrec_variant *v, const char *kind);
const char *ab_pr_kind_words(const struct ab_cmdsrec_variant *v);
/* the variant that built v's binary: v, or its runtime_of's, followed to the end */
const struct ab_cmdsrec_variant *ab_pr_base_of(const struct evidence *e, const struct ab_cmdsrec_variant *v);
/* the probe's result of a label (allocator-probes.json), or NULL */
const struct ab_probe_result *ab_pr_probe_of(const struct evidence *e, const char *label);
/* the record of label in binary-provenance.json, or NULL */
const struct ab_binprov_variant *ab_pr_bin_of(const struct evidence *e, const char *label);
/* the first artifact record of the binary of label (binary-provenance.json), or NULL */
const struct ab_binprov_artifact *ab_pr_artifact_of(const struct evidence *e, const char *label);
/* one more code span in a list separated by spaces; *any counts the spans */
void ab_pr_put_word(struct ab_buf *b, int *any, const char *s);
/* how the binary of a variant was made: a relink's replacements, else the configure options or defines */
void ab_pr_put_options(struct ab_buf *b, const struct ab_cmdsrec_variant *base);
void ab_pr_put_runtime(struct ab_buf *b, const struct ab_cmdsrec_variant *v);
/* the allocator's version: the probe's, else the string found in the artifact */
void ab_pr_put_version(struct ab_buf *b, const struct ab_probe_result *probe, const struct ab_binprov_artifact *art);
/* jemalloc's malloc_conf built in, as its probe's report shows it (build_time, else config), or NULL */
const char *ab_pr_malloc_conf_of(const struct ab_probe_result *probe);
/* a source's pin as the recipe gives it: a git commit (or the ref an unpinned one names) */
const char *ab_pr_git_pin(const struct ab_fetch_record *rec);
/*
 * ... and so is where it was when its variants were built: an OUTDIR
 * moved or copied since keeps, in the records of its up-to-date
 * variants, the place they were built in (each sandboxed variant's
 * "OUTDIR/variants" mount, build-commands.json)
 */
void ab_pr_hide_outdir(struct ab_buf *b, const struct evidence *e);
/* does OUTDIR hold envelopes (provenance/review/sign.h)? */
int ab_pr_is_signed(const struct evidence *e);
/*
 * Is origin a file of the author's machine (a mirror directory, a cache)?
 * pr.md never shows its path: the page is read on another machine, and
 * the pin proves the bytes anyway
 */
int ab_pr_is_local(const char *origin);
/* "s" for a plural */
const char *ab_pr_pl(int n);

/* ---- pr_summary.c ---- */

/* the most the benchmark's lines of the verdict take (bytes; the run names past it are counted) */
#define AB_PR_VERDICT_RUNS_MAX 8000

void ab_pr_section_title(struct ab_buf *b, const struct evidence *e);
/* the sources, their pins and the commands that check the evidence, folded */
void ab_pr_section_sources(struct ab_buf *b, const struct evidence *e, const char *bundle_name);
/*
 * The first lines: what was built, whether the probes agree, what was
 * checked and by whom it is signed; each line's proof is in a section below
 */
void ab_pr_section_verdict(struct ab_buf *b, const struct evidence *e, const struct ab_challenge *rebuilt,
    const struct ab_policy *pol, const struct ab_policy_report *prep);
void ab_pr_section_variants(struct ab_buf *b, struct ab_buf *details, const struct evidence *e);
void ab_pr_section_reproducibility(struct ab_buf *b, const struct evidence *e);
void ab_pr_section_upstream(struct ab_buf *b, const struct evidence *e);
void ab_pr_section_probes(struct ab_buf *b, struct ab_buf *details, const struct evidence *e);
/* who signed the statements and how to check them (provenance/review/sign.h); nothing when unsigned */
void ab_pr_section_signature(struct ab_buf *b, const struct evidence *e, const char *bundle_name);
/* the rules that failed in the body, every rule in the details */
void ab_pr_section_policy(struct ab_buf *b, struct ab_buf *details, const struct ab_policy *pol,
    const struct ab_policy_report *rep, const char *bundle_name);

/* ---- pr_diff.c ---- */

void ab_pr_section_differences(struct ab_buf *b, struct ab_buf *details, const struct evidence *e);
void ab_pr_section_flow(struct ab_buf *b, const struct evidence *e);

/* ---- pr_runs.c ---- */

/* how much of a run name's part pr.md shows */
enum ab_pr_runs_size {
	AB_PR_RUNS_FULL,      /* its table, comparison, warnings, charts, environment */
	AB_PR_RUNS_NO_CHARTS, /* the same without its Mermaid charts (in pr-details.md and the SVG files) */
	AB_PR_RUNS_STUB,      /* its heading and what was left out, and where it is */
};

/*
 * One run name's part of the Runs section in each size, and what each
 * leaves out (for pr-details.md). pr.c keeps the page under its limit by
 * taking the smaller sizes, from the last run name back, and says so on
 * the page: a driver's hundreds of figures make the page shorter, never
 * fail it.
 */
struct ab_pr_runs_part {
	struct ab_buf text[3];     /* by enum ab_pr_runs_size */
	struct ab_buf left_out[3]; /* what that size leaves out: nothing, the charts, everything but the heading */
};

struct ab_pr_runs {
	struct ab_buf head, tail;  /* the section's heading; its closing note */
	struct ab_pr_runs_part *parts;
	size_t n;
};

/*
 * the runs, per name: statuses, the comparison (provenance/compare/compare.h:
 * mixed run environments flagged, not refused), the environment, and
 * folded every run (into details); limit and bundle_name for the page's
 * words of what a smaller size leaves out. Nothing when there are no runs
 */
int ab_pr_section_runs(struct ab_pr_runs *out, struct ab_buf *details, const struct evidence *e,
    struct ab_compare_svgs *svg, size_t limit, const char *bundle_name);
void ab_pr_runs_release(struct ab_pr_runs *r);

#endif
