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
#include "../lib/jsonio.h"
#include "../lib/util.h"
#include "../provenance/bundle.h"
#include "../provenance/manifest.h"
#include "../provenance/runrec.h"
#include "../provenance/sign.h"

static const char usage[] =
    "allocbuild verify [--key PUB.pem]... [--require-all] [--json] OUTDIR|BUNDLE|FILE.intoto.jsonl\n"
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
    "input or an unusable key. The last line says pass or FAIL and what was\n"
    "checked. With --json, one document instead: {target, kind, result (pass\n"
    "or fail), keys, lines (every line above)}. See docs/manifests.md.\n";

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
print_result(FILE *out, const char *target, const char *kind, int e, size_t nkeys)
{
	char *shown = ab_shown(target);

	fprintf(out, "%s: %s %s: %s", e ? "FAIL" : "pass", kind, shown,
	    e ? "a check failed (above)" : !strcmp(kind, "envelopes file") ? (nkeys ? "every envelope verified" :
	    "every envelope read") : !strcmp(kind, "OUTDIR") ? "every file matches SHA256SUMS and the statement" :
	    "every member matches BUNDLE-SHA256SUMS and SHA256SUMS");
	if (nkeys)
		fprintf(out, "; signatures checked with %zu key%s\n", nkeys, nkeys == 1 ? "" : "s");
	else
		fprintf(out, "; signatures not checked (--key PUB.pem)\n");
	free(shown);
}

/* verify --json: what was checked, the result, and every line verify printed */
static void
print_json(const char *target, const char *kind, int e, size_t nkeys, const char *lines)
{
	cJSON *o = cJSON_CreateObject(), *arr;

	cJSON_AddStringToObject(o, "target", target);
	cJSON_AddStringToObject(o, "kind", kind);
	cJSON_AddStringToObject(o, "result", e ? "fail" : "pass");
	cJSON_AddNumberToObject(o, "keys", (double)nkeys);
	arr = cJSON_AddArrayToObject(o, "lines");
	for (const char *s = lines; s && *s;) {
		size_t n = strcspn(s, "\n");
		char *line = ab_strndup(s, n);

		cJSON_AddItemToArray(arr, cJSON_CreateString(line));
		free(line);
		s += n + (s[n] == '\n');
	}
	ab_json_print(stdout, o);
	cJSON_Delete(o);
}

static int
verify_bundle(FILE *out, const char *path, const struct ab_sign_verify_opts *o)
{
	struct ab_bundle_members m = {0};
	int e = ab_bundle_verify_keep_to(out, &m, path, ab_sign_is_signed_member);

	if (e == 0)
		fprintf(out, "%s: every member matches BUNDLE-SHA256SUMS\n", path);
	if (e != AB_EFAIL)
		e = worse(e, ab_bundle_check_runs(out, &m, AB_MANIFEST_STATEMENT));
	if (e != AB_EFAIL)
		e = worse(e, ab_sign_verify_bundle(out, path, &m, o));
	ab_bundle_members_free(&m);
	return e;
}

static int
cmd_verify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"key", required_argument, NULL, 'k'},
		{"require-all", no_argument, NULL, 'a'},
		{"json", no_argument, NULL, 'J'},
		{NULL, 0, NULL, 0},
	};
	struct ab_sign_verify_opts o = {0};
	struct ab_strv paths = {0};
	struct ab_key **keys = NULL;
	const char *target;
	size_t nkeys = 0;
	const char *kind = "bundle";
	char *lines = NULL;
	size_t len = 0;
	FILE *out = stdout;
	int c, e, json = 0;

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
		case 'J':
			json = 1;
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
	/* --json: every line into memory, printed as one document at the end */
	if (json && !(out = open_memstream(&lines, &len))) {
		ab_error_errno("verify: cannot allocate");
		ab_strv_free(&paths);
		return AB_EXIT_USAGE;
	}
	e = ab_cmd_load_keys(&keys, &nkeys, paths.v, paths.n, 0);
	o.keys = keys;
	o.nkeys = nkeys;
	if (e < 0) {
		/* a key that cannot be used */
	} else if (ab_is_dir(target) || !ab_path_exists(target)) {
		struct ab_strv names = {0}, hexes = {0};

		kind = "OUTDIR";
		/* the files hashed for SHA256SUMS are not read again for the signatures */
		e = ab_manifest_verify_seen(out, target, &names, &hexes);
		o.known_names = &names;
		o.known_hexes = &hexes;
		if (e != AB_EFAIL)
			e = worse(e, ab_sign_verify_outdir(out, target, &o));
		ab_strv_free(&names);
		ab_strv_free(&hexes);
	} else if (ab_sign_is_envelope_file(target)) {
		kind = "envelopes file";
		e = ab_sign_verify_file(out, target, &o);
	} else {
		e = verify_bundle(out, target, &o);
	}
	if (e != AB_EFAIL)
		print_result(out, target, kind, e, nkeys);
	if (json) {
		fclose(out);
		if (e != AB_EFAIL)
			print_json(target, kind, e, nkeys, lines);
		free(lines);
	}
	ab_cmd_free_keys(keys, nkeys);
	ab_strv_free(&paths);
	return ab_cmd_exit(e);
}

const struct ab_cmd ab_cmd_verify = {"verify", "re-hash an output directory or evidence bundle; check signatures",
    usage, cmd_verify};
