/*
 * manifest: the manifests of an OUTDIR (docs/manifests.md): sources.json,
 * build-commands.json, cmake-cache-provenance.json, binary-provenance.json,
 * allocator-probes.json, upstream-diff.json, relink-provenance.json, the
 * in-toto statement provenance.intoto.json and SHA256SUMS; and the readers
 * behind `verify` and `env`.
 *
 * The build (builder/build_runrec.c) fills one run record (provenance/record/record.h):
 * the recipe, invocation id, times, options, toolchain, the sources'
 * fetch records, the resolved dependencies, one record per variant and
 * the documents other modules shaped. ab_manifest_write() turns it into
 * every file, each written atomically, SHA256SUMS last.
 */
#ifndef AB_MANIFEST_H
#define AB_MANIFEST_H

#include <stdio.h>
#include <sys/types.h>

#include <cjson/cJSON.h>

#include "../../lib/hash.h"
#include "../../lib/util.h"
#include "record.h"

/*
 * The format version of upstream-diff.json and relink-provenance.json:
 * 2, their "variants" an array of {label, ...the variant's report} in plan
 * order, as every manifest's (version 1 keyed them by label in an object;
 * the readers still read it). The other manifests are at version 1.
 */
#define AB_MANIFEST_PER_VARIANT_VERSION 2

/*
 * The two files `sign` writes beside the manifests (provenance/review/sign.h):
 * the envelopes and signers.json. They are not listed in SHA256SUMS (they
 * vouch for themselves: verify --key checks them), and a build, which
 * rewrites the statement they signed, removes them, and the in-toto links
 * sign writes with them (provenance/attest/intoto.h: OUTDIR/in-toto/ *.link)
 * (ab_manifest_remove_signed; reports errors).
 */
#define AB_MANIFEST_ENVELOPES "provenance/provenance.intoto.jsonl"
#define AB_MANIFEST_SIGNERS "provenance/signers.json"
int ab_manifest_remove_signed(const char *outdir);

/*
 * The mode of a file of inputs/ (builder/inputs.h), as the bundle carries
 * it and a rebuild lays it out: executable (0755) when a regular file with
 * the owner's execute bit, else 0644. The build statement names it in the
 * file's byproduct, {"annotations": {"mode": "0755"}}, so that a signature
 * covers it (docs/manifests.md, "inputs/"): a configure script whose bit
 * was taken away in a bundle fails verify --key, rather than the rebuild.
 */
#define AB_MANIFEST_MODE "mode"
int ab_manifest_mode_exec(mode_t mode);
/* "0755" or "0644" */
const char *ab_manifest_mode_name(int exec);

/* the in-toto buildType and builder id of allocbuild (docs/manifests.md) */
#define AB_BUILD_TYPE "https://allocbuild.dev/build/v1"
#define AB_BUILDER_ID "https://allocbuild.dev/builder/v1"

/* which runs write a manifest */
enum ab_manifest_when {
	AB_MANIFEST_ALWAYS,
	AB_MANIFEST_CMAKE,  /* the plan has a cmake variant */
	AB_MANIFEST_UPDIFF, /* a variant compares its vendored allocator with an upstream source */
	AB_MANIFEST_RELINK, /* the plan has a relink variant */
	AB_MANIFEST_RECORD, /* never by a build: added later by build --check or rebuild (below) */
};

struct ab_manifest_file {
	const char *path; /* relative to OUTDIR */
	enum ab_manifest_when when;
};

/* the files a build's manifests step writes, in the order SHA256SUMS lists them; SHA256SUMS last */
extern const struct ab_manifest_file ab_manifest_files[];
extern const size_t ab_manifest_nfiles;

/*
 * The records (AB_MANIFEST_RECORD) are what commands add to a built
 * OUTDIR, each an in-toto Statement whose subjects are artifacts of the
 * OUTDIR: `build --check`'s reproducibility record and `rebuild`'s record
 * (docs/manifests.md). SHA256SUMS lists them after the manifests, and
 * alone, as it does the manifests (the statement, written before them,
 * does not); verify refuses one present but not listed. A later build
 * keeps a record while every subject digest it names is still that of the
 * file, and removes it otherwise (the artifacts it vouched for are gone).
 */

/*
 * Write record doc to OUTDIR/rel (an AB_MANIFEST_RECORD) and list it
 * in SHA256SUMS; the envelopes of the OUTDIR, which do not sign it, are
 * removed. The caller holds OUTDIR's lock. 0 or AB_EFAIL (reported).
 */
int ab_manifest_add_record(const char *outdir, const char *rel, const cJSON *doc);

/* copy the recipe and write every manifest of a run into run->outdir; 0 or AB_EFAIL (reported) */
int ab_manifest_write(const struct ab_run_record *run);

/* the in-toto statement, the one manifest that cannot list itself */
#define AB_MANIFEST_STATEMENT "provenance/provenance.intoto.json"
/* the predicate type of the build's Statement: SLSA provenance v1 */
#define AB_MANIFEST_SLSA_PROVENANCE "https://slsa.dev/provenance/v1"

/*
 * Verify an OUTDIR: re-hash every file named by SHA256SUMS and every
 * subject and byproduct of the statement (a path is opened only inside
 * OUTDIR: lib/dirwalk.h's resolver; never a fifo or device), and check
 * what they cover (ab_manifest_check_listing). Every problem is printed on
 * out as "PATH: what", a mismatch as "PATH: expected HEX, actual HEX"
 * ("actual missing", "actual not a regular file", ...). Returns 0 when
 * all is well, AB_ECHECK when a check failed (a damaged or unreadable
 * statement included), AB_EFAIL (reported) when OUTDIR has no SHA256SUMS
 * or cannot be read (an I/O error).
 */
int ab_manifest_verify(FILE *out, const char *outdir);
/*
 * ab_manifest_verify for a command that works only on an OUTDIR that
 * verifies (pr, sbom): each problem reported as "WHO: PATH: what", then
 * "WHO: 'OUTDIR' does not verify ('allocbuild verify OUTDIR'): CONSEQUENCE";
 * the same returns
 */
int ab_manifest_verify_reported(const char *who, const char *outdir, const char *consequence);
/*
 * the same, and every file it hashed appended to names with its digest to
 * hexes (verify --key hands them to ab_sign_verify_outdir: no file is read
 * twice)
 */
int ab_manifest_verify_seen(FILE *out, const char *outdir, struct ab_strv *names, struct ab_strv *hexes);

/*
 * What the build recorded, as verify and the bundle's verify read it: the
 * paths SHA256SUMS lists, the statement and build-commands.json (each
 * NULL when unreadable) and the files present that must be recorded (an
 * OUTDIR: the manifests present and everything under provenance/; a
 * bundle: every member but its index, SHA256SUMS and pr-details.md).
 */
struct ab_manifest_listing {
	const struct ab_strv *sums;
	const cJSON *statement, *commands;
	const struct ab_strv *present;
	/* what the run records listed name (provenance/runs/runrec.h); NULL: not checked (a bundle) */
	const struct ab_strv *run_named;
};

/*
 * The coverage rules: SHA256SUMS and the statement name the same files
 * (the manifests are SHA256SUMS's alone, the files under runs/ the run
 * records', each named by a run record), both ways; every manifest the
 * build writes (always, or for the variants build-commands.json says were
 * built) is listed; nothing present is unlisted. Prints each problem on
 * out as "PATH: what" and returns how many.
 */
int ab_manifest_check_listing(FILE *out, const struct ab_manifest_listing *l);

/*
 * What the last build recorded in an OUTDIR, for the readers that trust
 * nothing else (pr; the next build's up-to-date check): the lines of
 * SHA256SUMS and the subjects of the statement, path and digest, and
 * which build it was (invocation id, when it finished), read
 * inside OUTDIR only. It checks no digest: callers that need the files to
 * match run ab_manifest_verify first.
 */
struct ab_manifest_recorded {
	struct ab_strv paths, hexes;            /* SHA256SUMS, in order */
	struct ab_strv subjects, subject_hexes; /* the statement's subjects */
	char *invocation_id, *finished_on;      /* its predicate.runDetails.metadata's, or NULL */
};
/* 0; AB_EFAIL (reported unless quiet) when SHA256SUMS or the statement cannot be read or parsed */
int ab_manifest_recorded_read(struct ab_manifest_recorded *r, const char *outdir, int quiet);
/* the digest that both SHA256SUMS and the statement give the subject path; NULL when either lacks it or they differ */
const char *ab_manifest_recorded_subject(const struct ab_manifest_recorded *r, const char *path);
void ab_manifest_recorded_release(struct ab_manifest_recorded *r);

/*
 * The last run's manifests as the next build's up-to-date check reads
 * them. A variant's state.json is authenticated by nothing; what it says
 * counts only when the manifests of the run that wrote it say the same,
 * each manifest with the digest SHA256SUMS gives it.
 */
struct ab_manifest_last;
/* read OUTDIR's manifests (NULL when it has none: nothing is recorded); reports nothing */
struct ab_manifest_last *ab_manifest_last_load(const char *outdir);
/*
 * Does the last run's record of v's label say what v (an earlier run's
 * state) says: the artifacts listed with the same digests in SHA256SUMS
 * and as the statement's subjects, the same key and steps in
 * build-commands.json, the same probe record, upstream diff, relink
 * document and CMake record? 1 yes; 0 no, or l is NULL.
 */
int ab_manifest_last_has(const struct ab_manifest_last *l, const struct ab_variant_record *v);
void ab_manifest_last_free(struct ab_manifest_last *l);

/*
 * The runtime environment of a label, as both `env` (printed) and `run`
 * (applied) use it: unset every variable any variant of the OUTDIR sets or
 * unsets, MALLOC_CONF, and every allocator variable of the inherited
 * environment (lib/proc.h: ab_env_is_allocator_var), unless the label sets
 * it; then set what the label sets. Also the label's artifacts: its
 * program (its first executable artifact) and the subject a run records
 * (the program, else its allocator archive, else its first artifact).
 */
struct ab_manifest_runtime {
	struct ab_strv set;         /* "NAME=value", in the recipe's order */
	struct ab_strv unset;       /* names, sorted, none of them set */
	struct ab_strv warnings;    /* settings its allocator version does not read (ab_allocopts_check_env) */
	char *program;              /* absolute path below OUTDIR, or NULL when it has no program artifact */
	char *archive;              /* its allocator archive (an absolute path below OUTDIR), or NULL */
	char *subject;              /* relative to OUTDIR, or NULL when it has no artifact */
	char subject_sha256[AB_HEX_LEN + 1]; /* as binary-provenance.json records it */
	char *allocator;            /* the allocator its build's probe found (a registry name), or NULL: none */
	char *conf_var;             /* the variable that allocator reads its configuration from (jemalloc's), or NULL */
};
/*
 * Fill *rt for label; inherited is the environment to clean ("K=V", NULL
 * for none). With checked, binary-provenance.json and allocator-probes.json
 * must hold what SHA256SUMS says (AB_ECHECK, reported). 0; AB_EFAIL
 * (reported) for an unknown label, a name that is not a valid variable
 * name, or an unreadable OUTDIR.
 */
int ab_manifest_runtime(struct ab_manifest_runtime *rt, const char *outdir, const char *label,
    char *const *inherited, int checked);
void ab_manifest_runtime_release(struct ab_manifest_runtime *rt);

/*
 * The runtime environment of a label as shell lines (ab_manifest_runtime
 * with this process's environment): `unset NAME`, then `export
 * NAME='value'`, then each warning as a `# warning:` line (and on stderr).
 * Returns 0, or AB_EFAIL (reported) for an unknown label or unreadable OUTDIR.
 */
int ab_manifest_env(FILE *out, const char *outdir, const char *label);
/*
 * "LABEL=/abs/path/to/binary" for every variant with a binary; for one
 * without, "# LABEL: no program artifact; its allocator archive:
 * ALLOCBUILD_ARCHIVE=/abs/path" (a comment: nothing a driver would run).
 * 0 or AB_EFAIL (reported)
 */
int ab_manifest_systems(FILE *out, const char *outdir);
/*
 * env --json: [{label, set {NAME: value}, unset [NAME], program, archive,
 * warnings}] for label, or for every variant when label is NULL; caller
 * frees. 0 or AB_EFAIL (reported: an unknown label, an unreadable OUTDIR)
 */
int ab_manifest_env_json(cJSON **out, const char *outdir, const char *label);

#endif
