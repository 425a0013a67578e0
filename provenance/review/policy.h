/*
 * policy: a reviewer's policy file (docs/policy.md), the rules a build
 * and its runs must meet, read into typed rules.
 *
 * The file is JSON read with positions (lib/jsonpos.h), so every error is
 * `FILE:LINE:COL: PATH: MESSAGE`, all of them at once, as a recipe's.
 * Each rule names the variants it applies to (labels, or fnmatch(3)
 * patterns) and holds exactly one kind of check; nothing of the JSON is
 * kept once loaded. provenance/review/policycheck.h checks the rules against an
 * OUTDIR's or a bundle's records.
 *
 *   struct ab_policy *p;
 *   if (ab_policy_load(&p, "policy.json", stderr) < 0) ...   errors printed
 *   ...
 *   ab_policy_free(p);
 */
#ifndef AB_POLICY_H
#define AB_POLICY_H

#include <stddef.h>
#include <stdio.h>

#include "../../lib/hash.h"
#include "../../lib/util.h"

/* the largest policy file read */
#define AB_POLICY_MAX (4u << 20)

enum ab_policy_kind {
	AB_POL_SOURCE,       /* source pins: commit, archive sha256, dirHash */
	AB_POL_UPSTREAM,     /* the vendored tree identical to its upstream source */
	AB_POL_ALLOCATOR,    /* allocator kind and version (exact or range) */
	AB_POL_BAKED,        /* build-time options: exact, contains, absent */
	AB_POL_RUNTIME,      /* run-time options set and read by the allocator */
	AB_POL_NOT_SET,      /* options that must not be set at run time */
	AB_POL_SECURE,       /* mimalloc's secure level */
	AB_POL_REPRODUCIBLE, /* a build --check or rebuild record, every artifact identical */
	AB_POL_TARGETS,      /* hosts the build must run on: page size, huge page size, VA bits */
	AB_POL_SIGNERS,      /* n of m keys signed the statements */
	AB_POL_RUNS,         /* run records: repetitions, run environment, A/A control */
	AB_POL_ONLY_DIFFERS, /* the objects of a variant's tree differ from another variant's only below given paths */
};

/* a host a build must run on; 0 where not given */
struct ab_policy_target {
	char *name;
	long page, hugepage;
	int vaddr_bits;
};

/* what a reproducibility rule accepts */
enum ab_policy_record { AB_POL_RECORD_ANY, AB_POL_RECORD_CHECK, AB_POL_RECORD_REBUILD };

struct ab_policy_rule {
	enum ab_policy_kind kind;
	int line, col;              /* of the rule, in the policy file */
	struct ab_strv variants;    /* labels or patterns; empty for signers */
	/* source */
	char *commit, *sha256, *dirhash;
	/* upstream: every file identical, else the upstream-diff verdict (nothing significant differs) */
	int identical;
	/* allocator */
	char *alloc_kind, *version, *version_min, *version_max;
	/* baked: exact (NULL: not checked; "": nothing baked), contains "name:value", absent names */
	char *exact;
	struct ab_strv contains, absent;
	/* runtime: "name:value" read; not_set: names, or "*" for any */
	struct ab_strv read, names;
	/* secure */
	int secure;
	/* reproducible: the record wanted, and independent rebuilders that got every artifact identical (0: none asked) */
	enum ab_policy_record record;
	int independent;
	/* targets */
	struct ab_policy_target *targets;
	size_t ntargets;
	/* signers: keyids (hex), at least min of them */
	struct ab_strv keyids;
	size_t min;
	/* runs: name, repetitions per label, run-environment fields equal across labels or given values */
	/* only_differs: the variant compared against, and the patterns every differing object's directory matches */
	char *from;
	struct ab_strv in;
	char *run_name;
	int min_repetitions;
	struct ab_strv equal, value_keys, value_vals;
	int aa_control;
	struct ab_strv metrics;     /* the metrics the A/A control is judged on; empty: compare's default set */
};

struct ab_policy {
	char *path;
	char sha256[AB_HEX_LEN + 1]; /* of the file's bytes */
	char *name, *description;
	struct ab_policy_rule *rules;
	size_t nrules;
};

/*
 * have's numbers ("5.3.0-0-g54ea...", or a policy's "5.3.1") against
 * want's, as far as want goes: <0, 0, >0 ("5.3.2" is 0 against "5.3", so
 * a range's max "5.3" takes every 5.3.x); an allocator rule's range
 */
int ab_policy_version_cmp(const char *have, const char *want);
/* the kind's name, as written in a policy: "source", "baked"... */
const char *ab_policy_kind_name(enum ab_policy_kind k);
/*
 * Read the policy at path into *out; every error printed on errs as
 * FILE:LINE:COL: PATH: MESSAGE. 0, or AB_EFAIL (*out NULL). Free with
 * ab_policy_free.
 */
int ab_policy_load(struct ab_policy **out, const char *path, FILE *errs);
/* the same from text, name being the file name shown */
int ab_policy_parse(struct ab_policy **out, const char *name, const char *text, size_t len, FILE *errs);
void ab_policy_free(struct ab_policy *p);

#endif
