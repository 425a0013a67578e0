/*
 * policycheck: a policy's rules (provenance/review/policy.h) checked against the
 * records of an OUTDIR or an evidence bundle (docs/policy.md): the
 * statement's manifests (binary-provenance.json, allocator-probes.json,
 * upstream-diff.json), the reproducibility and rebuild records, the
 * signatures and the run records. Each rule gives one line per variant it
 * applies to (per target host for targets): pass, or fail with what was
 * expected, what was found, and the file and field read. A pattern that
 * matches no variant fails: a policy never passes by matching nothing.
 *
 * The caller verifies the target first (verify): this module reads the
 * records, it does not check their digests.
 *
 *   struct ab_policy_report rep = {0};
 *   rc = ab_policy_check(&rep, policy, &opts);  0 every rule passed, AB_ECHECK one failed,
 *                                                AB_EFAIL unreadable records (reported)
 *   ab_policy_report_print(stdout, &rep);
 *   ab_policy_report_release(&rep);
 */
#ifndef AB_POLICYCHECK_H
#define AB_POLICYCHECK_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "policy.h"

struct ab_challenge;
struct ab_key;

struct ab_policy_check_opts {
	const char *target;         /* an OUTDIR or a bundle */
	int bundle;
	struct ab_key *const *keys; /* verify's --key: the keys a signers rule may count */
	size_t nkeys;
	/* independent rebuilders' records held against the target (provenance/review/challenge.h), or NULL */
	const struct ab_challenge *rebuilt;
};

/* one line: a rule on a variant */
struct ab_policy_line {
	size_t rule;
	enum ab_policy_kind kind;
	char *variant;  /* the label (and target host), or the pattern that matched nothing, or NULL */
	int ok;
	char *expected; /* NULL when it passed */
	char *actual;   /* what was found */
	char *file;     /* the record read, relative to the target */
	char *field;    /* the field read in it */
};

struct ab_policy_report {
	struct ab_policy_line *v;
	size_t n, cap, failed;
};

int ab_policy_check(struct ab_policy_report *out, const struct ab_policy *p, const struct ab_policy_check_opts *o);
/* every line, then none: "pass: rules[N] KIND VARIANT: ACTUAL (FILE: FIELD)" or "FAIL: ...: expected E, got A (...)" */
void ab_policy_report_print(FILE *f, const struct ab_policy_report *r);
/* the lines as a JSON array; caller frees */
cJSON *ab_policy_report_json(const struct ab_policy_report *r);
void ab_policy_report_release(struct ab_policy_report *r);

#endif
