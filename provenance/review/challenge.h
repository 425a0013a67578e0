/*
 * challenge: the rebuild records of independent rebuilders held against
 * one build (`allocbuild challenge`, `pr --rebuilt`; docs/build.md,
 * "Independent rebuilders"), as `guix challenge` holds substitute
 * servers' hashes against a local build.
 *
 * The build is a bundle or an OUTDIR; its identity is the sha256 of its
 * statement (provenance/provenance.intoto.json), which every record must
 * name (provenance/record/rebuildrec.h). Its artifacts are the statement's
 * subjects. For each artifact the records are grouped by the digest they
 * rebuilt: the original's group, then each other digest with the hosts
 * that got it and the likely cause their record names (a tool version
 * or package, a host probe), or else the difference between the
 * record's toolchain and the original's for that variant.
 *
 * A rebuilder counts once however many records it gave: its signing
 * key's id when the record's signature was checked, else its host name.
 * An artifact passes with at least `quorum` independent rebuilders that
 * got the original digest (0: as many as records were given). A host
 * name is only what an unsigned record says of itself: without keys the
 * table and its JSON carry a warning that unsigned records prove nothing
 * about who rebuilt (AB_CHALLENGE_UNSIGNED), and a policy counts only
 * rebuilders by a verified signing key (ab_challenge_label_signers).
 *
 *   struct ab_challenge *c;
 *   rc = ab_challenge_make(&c, "bundle.tar.gz", &opts);  AB_EFAIL bad input (reported),
 *                                                      AB_ECHECK a record refused (printed), else 0
 *   ab_challenge_print(stdout, c);
 *   rc = ab_challenge_verdict(c);                     0, or AB_ECHECK
 *   ab_challenge_free(c);
 */
#ifndef AB_CHALLENGE_H
#define AB_CHALLENGE_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

struct ab_buf;
struct ab_key;
struct ab_challenge;
struct ab_rebuildrec;

/* what challenge says when no record's signature was checked */
#define AB_CHALLENGE_UNSIGNED "signatures not checked: an unsigned record proves nothing about who rebuilt " \
	"(its host name is what it says of itself; anyone can write one, or copy one under another name)"

struct ab_challenge_opts {
	char *const *records;        /* the record files */
	size_t nrecords;
	struct ab_key *const *keys;  /* public keys; with any, every record must be signed by one */
	size_t nkeys;
	size_t quorum;               /* 0: nrecords */
};

/*
 * The records against input (a bundle or OUTDIR). Bad input (an
 * unreadable input or record, a record of another build) is reported,
 * every one, and returns AB_EFAIL with *out NULL. A record whose signature
 * does not verify is refused: reported, left out of the table, and the
 * result is AB_ECHECK with *out set.
 */
int ab_challenge_make(struct ab_challenge **out, const char *input, const struct ab_challenge_opts *o);
/* 0 when every artifact has its quorum and no record was refused, else AB_ECHECK */
int ab_challenge_verdict(const struct ab_challenge *c);
/*
 * The artifacts of label (as the build's statement names them) in *n, and
 * the fewest rebuilders that got one of them identical counted by the
 * keys that verified their records: two records signed by one key are one
 * rebuilder, a record whose signature was not checked is none (0 when n
 * is 0). A policy's reproducible rule (provenance/review/policycheck.h)
 */
size_t ab_challenge_label_signers(const struct ab_challenge *c, const char *label, size_t *n);
/* were the records' signatures checked (keys given)? */
int ab_challenge_checked(const struct ab_challenge *c);
/* the records against the build, artifact by artifact (pr.md's verdict) */
struct ab_challenge_tally {
	size_t artifacts;   /* the build's (its statement's subjects) */
	size_t reproduced;  /* those at least one rebuilder counted by a verified key got identical (0 unchecked) */
	size_t differ;      /* those some record rebuilt into other bytes, or did not rebuild */
	size_t quorum_met;  /* those with their quorum of independent rebuilders */
	size_t keys;        /* the keys that verified a record counted */
};
void ab_challenge_tally(struct ab_challenge_tally *t, const struct ab_challenge *c);
/* the quorum of independent rebuilders an artifact needs */
size_t ab_challenge_quorum(const struct ab_challenge *c);
/* the records counted (read, of this build, not refused), in the order given; ab_challenge_record(c, i) for i < n */
size_t ab_challenge_nrecords(const struct ab_challenge *c);
const struct ab_rebuildrec *ab_challenge_record(const struct ab_challenge *c, size_t i);
/* the text table (see docs/build.md) */
void ab_challenge_print(FILE *f, const struct ab_challenge *c);
/* the table as pr.md shows it (markdown, names escaped), appended to b */
void ab_challenge_md(struct ab_buf *b, const struct ab_challenge *c);
/* the same as a JSON document (challenge --json); caller frees */
cJSON *ab_challenge_json(const struct ab_challenge *c);
void ab_challenge_free(struct ab_challenge *c);

#endif
