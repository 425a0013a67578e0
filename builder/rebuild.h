/*
 * rebuild: `allocbuild rebuild OUTDIR|BUNDLE` (docs/build.md, "Rebuilding
 * from the evidence"). From a finished OUTDIR, or from the evidence
 * bundle `pr` writes, which holds the recipe and every pin:
 *
 *   1. the input is verified first (a bundle as `verify BUNDLE`, an OUTDIR
 *      as `verify OUTDIR`; with keys, as `verify --key`: its signed
 *      statements too), and the recipe's sha256 must be the one its
 *      manifests and statement record: anything else is bad input, and
 *      nothing is built; signatures that do not verify are a failed check;
 *   1b. a bundle whose signatures were not checked (no keys) is somebody's
 *      commands: the prepare commands, configure and build argv and the
 *      environment it would run are printed, and the rebuild goes on only
 *      with trust_unsigned or when confirm() says yes;
 *   2. the recipe is built again, every variant the original built, into a
 *      fresh directory (sources through the same options as `build`),
 *      unpinned sources at the commits the original resolved;
 *   3. every recorded artifact digest is compared with the rebuilt file's
 *      (provenance/record/repro.h): for each that differs, which ar members or
 *      ELF sections differ, and which recorded tool version or host probe
 *      differs, as the likely cause; with diffoscope, its report;
 *   4. the record, provenance/rebuild.intoto.json, is added to the fresh
 *      OUTDIR (its subjects the rebuilt artifacts) and, when rebuilding
 *      from an OUTDIR, to that one too (its subjects the originals); it
 *      names the original by digest and says who rebuilt where
 *      (provenance/record/rebuildrec.h); with sign_keys, also signed alone into
 *      DIR/rebuild.intoto.jsonl.
 *
 *   struct ab_rebuild_opts o = {.from = "bo", .src = &source_opts};
 *   rc = ab_rebuild_run(&o);   0 every digest matches; AB_ECHECK one
 *                              differs or a variant failed; AB_EFAIL bad input
 */
#ifndef AB_REBUILD_H
#define AB_REBUILD_H

#include <stdio.h>

#include "source.h"

/* the default directory of a rebuild: ./allocbuild-rebuild/<recipe name> */
#define AB_REBUILD_DEFAULT_DIR "allocbuild-rebuild"

struct ab_key;

struct ab_rebuild_opts {
	const char *from;      /* a built OUTDIR or an evidence bundle */
	const char *outdir;    /* where to rebuild; NULL: AB_REBUILD_DEFAULT_DIR/<recipe name>; must be new or empty */
	int jobs;              /* -j; 0: online cores */
	const struct ab_source_opts *src;
	int diffoscope;        /* run diffoscope on each artifact that differs (needs the original files) */
	int diffoscope_timeout; /* seconds; 0: AB_REPRO_DIFFOSCOPE_TIMEOUT (provenance/record/repro.h) */
	struct ab_key *const *keys; /* public keys the signed statements must verify with (--key) */
	size_t nkeys;
	int require_all;       /* every key must have signed (else any one) */
	struct ab_key *const *sign_keys; /* private keys that sign the record into DIR/rebuild.intoto.jsonl (--sign) */
	size_t nsign_keys;
	int trust_unsigned;    /* a bundle without keys is rebuilt without asking (--trust-unsigned) */
	FILE *out;             /* where what rebuild finds is printed; NULL: stdout */
	int json;              /* also print one JSON document on stdout at the end (--json; out is then stderr) */
	/* asked, after the commands were printed, when a bundle's signatures were not checked: 1 yes; NULL: no */
	int (*confirm)(void);
};

int ab_rebuild_run(const struct ab_rebuild_opts *o);

#endif
