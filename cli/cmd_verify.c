/*
 * allocbuild verify: re-hash every subject and manifest of an OUTDIR, or
 * every member of an evidence bundle (without unpacking it); with --key,
 * check the signed statements too (provenance/sign.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../lib/util.h"
#include "../provenance/bundle.h"
#include "../provenance/manifest.h"
#include "../provenance/runrec.h"
#include "../provenance/sign.h"

static const char usage[] =
    "allocbuild verify [--key PUB.pem]... [--require-all] OUTDIR|BUNDLE|FILE.intoto.jsonl\n"
    "\n"
    "Re-hash every artifact and manifest of OUTDIR against SHA256SUMS and the\n"
    "in-toto statement, or every member of an evidence bundle against its\n"
    "BUNDLE-SHA256SUMS, without unpacking it. With --key (a PEM public key,\n"
    "Ed25519 or ECDSA P-256; several allowed, any one suffices unless\n"
    "--require-all), check the DSSE envelopes (provenance/provenance.intoto.jsonl,\n"
    "or the .intoto.jsonl file given): each signature over the PAE first, then\n"
    "the payload type, then every digest of the statement against the files (or\n"
    "the bundle's members); every statement must be signed, once. Without --key,\n"
    "envelopes present are reported as not checked. Exit 0 all verified, 1 a\n"
    "check failed (printed on stdout, naming the line and the file), 2 unreadable\n"
    "input or an unusable key. See docs/manifests.md.\n";

/* the worse of two results: AB_EFAIL over AB_ECHECK over 0 */
static int
worse(int a, int b)
{
	if (a == AB_EFAIL || b == AB_EFAIL)
		return AB_EFAIL;
	return a ? a : b;
}

/* the last line: pass or fail, and what was checked */
static void
print_result(const char *target, const char *kind, int e, size_t nkeys)
{
	char *shown = ab_shown(target);

	printf("%s: %s %s: %s", e ? "FAIL" : "pass", kind, shown,
	    e ? "a check failed (above)" : !strcmp(kind, "envelopes file") ? (nkeys ? "every envelope verified" :
	    "every envelope read") : !strcmp(kind, "OUTDIR") ? "every file matches SHA256SUMS and the statement" :
	    "every member matches BUNDLE-SHA256SUMS and SHA256SUMS");
	if (nkeys)
		printf("; signatures checked with %zu key%s\n", nkeys, nkeys == 1 ? "" : "s");
	else
		printf("; signatures not checked (--key PUB.pem)\n");
	free(shown);
}

static int
verify_bundle(const char *path, const struct ab_sign_verify_opts *o)
{
	struct ab_bundle_members m = {0};
	int e = ab_bundle_verify_keep(&m, path, ab_sign_is_signed_member);

	if (e == 0)
		printf("%s: every member matches BUNDLE-SHA256SUMS\n", path);
	if (e != AB_EFAIL)
		e = worse(e, ab_bundle_check_runs(stdout, &m, AB_MANIFEST_STATEMENT));
	if (e != AB_EFAIL)
		e = worse(e, ab_sign_verify_bundle(stdout, path, &m, o));
	ab_bundle_members_free(&m);
	return e;
}

static int
cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"key", required_argument, NULL, 'k'},
		{"require-all", no_argument, NULL, 'a'},
		{NULL, 0, NULL, 0},
	};
	struct ab_sign_verify_opts o = {0};
	struct ab_strv paths = {0};
	struct ab_key **keys = NULL;
	const char *target;
	size_t nkeys = 0;
	const char *kind = "bundle";
	int c, e;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			ab_strv_push(&paths, optarg);
			break;
		case 'a':
			o.require_all = 1;
			break;
		default:
			ab_strv_free(&paths);
			return ab_cmd_option_error("verify", c, argv);
		}
	}
	if (argc - optind != 1 || (o.require_all && !paths.n)) {
		ab_strv_free(&paths);
		return ab_cmd_usage_error("verify", argc - optind < 1 ? "missing OUTDIR, BUNDLE or FILE.intoto.jsonl" :
		    argc - optind > 1 ? "expected exactly one OUTDIR, BUNDLE or FILE.intoto.jsonl" :
		    "--require-all needs --key");
	}
	target = argv[optind];
	e = ab_cmd_load_keys(&keys, &nkeys, paths.v, paths.n, 0);
	o.keys = keys;
	o.nkeys = nkeys;
	if (e < 0) {
		/* a key that cannot be used */
	} else if (ab_is_dir(target) || !ab_path_exists(target)) {
		struct ab_strv names = {0}, hexes = {0};

		kind = "OUTDIR";
		/* the files hashed for SHA256SUMS are not read again for the signatures */
		e = ab_manifest_verify_seen(stdout, target, &names, &hexes);
		o.known_names = &names;
		o.known_hexes = &hexes;
		if (e != AB_EFAIL)
			e = worse(e, ab_sign_verify_outdir(stdout, target, &o));
		ab_strv_free(&names);
		ab_strv_free(&hexes);
	} else if (ab_sign_is_envelope_file(target)) {
		kind = "envelopes file";
		e = ab_sign_verify_file(stdout, target, &o);
	} else {
		e = verify_bundle(target, &o);
	}
	if (e != AB_EFAIL)
		print_result(target, kind, e, nkeys);
	ab_cmd_free_keys(keys, nkeys);
	ab_strv_free(&paths);
	return ab_cmd_exit(e);
}

const struct ab_cmd ab_cmd_verify = {"verify", "re-hash an output directory or evidence bundle; check signatures",
    usage, cmd_verify};
