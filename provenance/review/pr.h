/*
 * pr: the evidence of a build for a pull request.
 *
 *   ab_pr_write(outdir, dir, notes)
 *
 * verifies OUTDIR, reads the manifests its build recorded (docs/manifests.md)
 * and writes into dir:
 *   pr.md                          a GitHub-flavoured markdown body
 *   provenance-<name>.tar.gz       the evidence bundle (provenance/record/bundle.h)
 * and, when notes is non-NULL ("REPO" or "REPO@REV"), attaches the in-toto
 * statement to that commit as a note under refs/notes/provenance. With
 * sign keys it first signs the statements of OUTDIR (ab_sign_outdir); the
 * envelopes of a signed OUTDIR go into the bundle, and pr.md says who
 * signed and how to check.
 * The body stays under GitHub's 65,536-character limit for a comment: past
 * it, the folded details move to pr-details.md inside the bundle and the
 * body says so. See docs/pr.md.
 */
#ifndef AB_PR_H
#define AB_PR_H

#include <stddef.h>

#include "../attest/intoto.h"

struct ab_key;
struct ab_challenge;

/* GitHub's limit on a pull-request or comment body, in characters */
#define AB_PR_BODY_LIMIT 65536

struct ab_policy;

struct ab_pr_opts {
	const char *outdir;   /* a build's OUTDIR */
	const char *dir;      /* where pr.md and the bundle go (default: OUTDIR) */
	const char *notes;    /* "REPO[@REV]" or NULL */
	size_t limit;         /* body limit; 0: AB_PR_BODY_LIMIT */
	/* private keys: sign the statements of OUTDIR first (provenance/review/sign.h); none when nsign_keys is 0 */
	struct ab_key *const *sign_keys;
	size_t nsign_keys;
	ab_intoto_tree_fn *sign_trees; /* the source trees' files for the links (ab_sign_outdir), or NULL */
	/* the records of independent rebuilds held against OUTDIR (provenance/review/challenge.h), or NULL */
	const struct ab_challenge *rebuilt;
	/*
	 * a reviewer's policy (provenance/review/policy.h), or NULL: checked against
	 * OUTDIR (the signers rule counts sign_keys), its result in the verdict
	 * and a rule table; the policy file and, with sign_keys, its signed
	 * verification summary go into the bundle (AB_PR_POLICY)
	 */
	const struct ab_policy *policy;
	/* derived figures of the runs' comparison (provenance/compare/derive.h: pr --derive, --metrics), or none */
	const struct ab_derived *derived;
	size_t nderived;
};

/* what ab_pr_write did, for its command to say (cli/cmd_pr.c); release with ab_pr_written_release */
struct ab_pr_written {
	size_t signed_statements; /* with sign_keys: the statements signed (even when a later step failed) */
	int is_signed;            /* they were */
	char *md;                 /* DIR/pr.md, written */
	size_t md_chars;          /* its characters (GitHub's measure) */
	int moved;                /* the details went to the bundle (pr-details.md) */
	char *bundle;             /* DIR/provenance-NAME.tar.gz, written */
	size_t bundle_files;
	char note_commit[41];     /* with notes: the commit the statement was attached to, else "" */
};
void ab_pr_written_release(struct ab_pr_written *w);

/*
 * Only an OUTDIR that verifies (provenance/record/manifest.h) is described, and
 * only from what its build recorded: the manifests SHA256SUMS lists, read
 * and packed inside OUTDIR without following a symlink. Returns 0;
 * AB_ECHECK when OUTDIR does not verify (each problem reported, nothing
 * written); AB_EFAIL after reporting what is missing or unreadable.
 */
int ab_pr_write(struct ab_pr_written *w, const struct ab_pr_opts *o);

#endif
