/*
 * allocbuild verify: re-hash every subject and manifest of an OUTDIR, or
 * every member of an evidence bundle (without unpacking it); with --key,
 * check the signed statements too (provenance/review/sign.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../lib/jsonio.h"
#include "../lib/util.h"
#include "../provenance/record/bundle.h"
#include "../provenance/review/challenge.h"
#include "../provenance/record/manifest.h"
#include "../provenance/review/policy.h"
#include "../provenance/review/policycheck.h"
#include "../provenance/runs/runrec.h"
#include "../provenance/review/sign.h"
#include "../provenance/review/vsa.h"

static const char usage[] =
    "allocbuild verify [--key PUB.pem]... [--require-all] [--json] OUTDIR|BUNDLE|FILE.intoto.jsonl\n"
    "allocbuild verify --policy POLICY.json [--key PUB.pem]... [--json]\n"
    "                  [--rebuilt RECORD]... [--rebuilt-key PUB.pem]...\n"
    "                  [--sign KEY.pem [-o VSA.intoto.jsonl]] OUTDIR|BUNDLE\n"
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
    "or fail), keys, lines (every line above)}. See docs/manifests.md.\n"
    "\n"
    "With --policy, the policy file is read first (an error in it: FILE:LINE:COL,\n"
    "exit 2, nothing checked); after the checks above, every rule of the policy\n"
    "is checked against the records: one line per rule and variant, pass, or\n"
    "FAIL with what was expected, what was found and the file and field read;\n"
    "then a last line for the policy. Exit 1 when a rule fails. With --json,\n"
    "the document has a member policy {path, sha256, result, rules}.\n"
    "--rebuilt gives independent rebuilders' records (rebuild --sign; checked\n"
    "with --rebuilt-key as challenge does) for a reproducible rule: a rebuild\n"
    "record of the build (\"record\": \"any\" or \"rebuild\") when it got every\n"
    "artifact identical, and its \"independent\" count: a rebuilder counts once,\n"
    "by the key that verified its record; a record not checked by a\n"
    "--rebuilt-key counts for none. With\n"
    "--sign (or --signing-key: a private key), the result is also written as a\n"
    "SLSA Verification Summary Attestation in a DSSE envelope, signed by it, to\n"
    "-o (default OUTDIR/vsa.intoto.jsonl, or BUNDLE.vsa.intoto.jsonl), PASSED or\n"
    "FAILED, listing the rebuilders' records it counted (digest and keyid);\n"
    "verify --key checks it. See docs/policy.md.\n";

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
	char *shown;

	/* -q: only what failed */
	if (ab_quiet && !e)
		return;
	shown = ab_shown(target);
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
print_json(const char *target, const char *kind, int e, size_t nkeys, const char *lines, const struct ab_policy *pol,
    const struct ab_policy_report *rep, int pe)
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
	if (pol) {
		cJSON *po = cJSON_AddObjectToObject(o, "policy");

		cJSON_AddStringToObject(po, "path", pol->path);
		cJSON_AddStringToObject(po, "sha256", pol->sha256);
		cJSON_AddStringToObject(po, "result", pe ? "fail" : "pass");
		cJSON_AddItemToObject(po, "rules", ab_policy_report_json(rep));
	}
	ab_json_print(stdout, o);
	cJSON_Delete(o);
}

static int
verify_bundle(FILE *out, const char *path, const struct ab_sign_verify_opts *o)
{
	struct ab_bundle_members m = {0};
	int e = ab_bundle_verify_keep_to(out, &m, path, ab_sign_is_signed_member);

	if (e == 0 && !ab_quiet)
		fprintf(out, "%s: every member matches BUNDLE-SHA256SUMS\n", path);
	if (e != AB_EFAIL)
		e = worse(e, ab_bundle_check_runs(out, &m, AB_MANIFEST_STATEMENT));
	if (e != AB_EFAIL)
		e = worse(e, ab_sign_verify_bundle(out, path, &m, o));
	ab_bundle_members_free(&m);
	return e;
}

/* --policy: every rule against the records of target, after the checks above; its last line */
static int
check_policy(FILE *out, struct ab_policy_report *rep, const struct ab_policy *pol, const char *target,
    const char *kind, struct ab_key *const *keys, size_t nkeys, const struct ab_challenge *rebuilt)
{
	struct ab_policy_check_opts po = {target, 0, keys, nkeys, rebuilt};
	char *shown_p, *shown_t;
	int e;

	po.bundle = !strcmp(kind, "bundle");
	if ((e = ab_policy_check(rep, pol, &po)) == AB_EFAIL)
		return e;
	ab_policy_report_print(out, rep);
	shown_p = ab_shown(pol->path);
	shown_t = ab_shown(target);
	if (e)
		fprintf(out, "FAIL: policy %s: %zu of %zu rule checks failed on %s %s\n", shown_p, rep->failed, rep->n,
		    kind, shown_t);
	else if (!ab_quiet)
		fprintf(out, "pass: policy %s: every rule check passed on %s %s (%zu)\n", shown_p, kind, shown_t,
		    rep->n);
	free(shown_p);
	free(shown_t);
	return e;
}

/* --sign: the verification summary, signed, written */
static int
write_vsa(const char *target, const char *kind, const struct ab_policy *pol, int passed, struct ab_key *const *keys,
    size_t nkeys, const char *out, const struct ab_challenge *rebuilt)
{
	struct ab_vsa v = {target, !strcmp(kind, "bundle"), pol, passed, 0};
	char *path = out ? ab_strdup(out) : ab_vsa_default_path(&v);
	int e = ab_vsa_write_rebuilt(path, &v, rebuilt, keys, nkeys);

	if (e == 0)
		ab_note("verification summary (%s), signed: %s", passed ? "PASSED" : "FAILED", path);
	free(path);
	return e;
}

/* what verify was asked */
struct args {
	struct ab_sign_verify_opts o;
	struct ab_strv paths, records, rpaths; /* --key, --rebuilt, --rebuilt-key */
	const char *policy, *sign, *vsa;       /* --policy, --sign, -o */
	int json;
};

static void
args_release(struct args *a)
{
	ab_strv_free(&a->paths);
	ab_strv_free(&a->records);
	ab_strv_free(&a->rpaths);
}

/* the options into *a; 0, or the exit code of a usage error (reported) */
static int
parse_args(struct args *a, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"key", required_argument, NULL, 'k'},
		{"require-all", no_argument, NULL, 'a'},
		{"json", no_argument, NULL, 'J'},
		{"policy", required_argument, NULL, 'P'},
		{"sign", required_argument, NULL, 'S'},
		{"signing-key", required_argument, NULL, 'S'},
		{"output", required_argument, NULL, 'o'},
		{"rebuilt", required_argument, NULL, 'r'},
		{"rebuilt-key", required_argument, NULL, 'K'},
		{NULL, 0, NULL, 0},
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'k': ab_strv_push(&a->paths, optarg); break;
		case 'a': a->o.require_all = 1; break;
		case 'J': a->json = 1; break;
		case 'P': a->policy = optarg; break;
		case 'S': a->sign = optarg; break;
		case 'o': a->vsa = optarg; break;
		case 'r': ab_strv_push(&a->records, optarg); break;
		case 'K': ab_strv_push(&a->rpaths, optarg); break;
		default: return ab_cmd_option_error("verify", c, argv);
		}
	}
	if (argc - optind < 1)
		return ab_cmd_usage_error("verify", "missing OUTDIR, BUNDLE or FILE.intoto.jsonl");
	if (argc - optind > 1)
		return ab_cmd_usage_error("verify", "expected exactly one OUTDIR, BUNDLE or FILE.intoto.jsonl");
	if (a->o.require_all && !a->paths.n)
		return ab_cmd_usage_error("verify", "--require-all needs --key");
	if (a->sign && !a->policy)
		return ab_cmd_usage_error("verify", "--sign needs --policy (it signs the policy's verification summary)");
	if (a->vsa && !a->sign)
		return ab_cmd_usage_error("verify", "-o needs --sign");
	if (a->records.n && !a->policy)
		return ab_cmd_usage_error("verify", "--rebuilt needs --policy");
	if (a->rpaths.n && !a->records.n)
		return ab_cmd_usage_error("verify", "--rebuilt-key needs --rebuilt");
	return 0;
}

/* the plain verify of target: its kind in *kind; every line on out */
static int
verify_target(FILE *out, const char **kind, const char *target, struct ab_sign_verify_opts *o)
{
	int e;

	if (ab_is_dir(target) || !ab_path_exists(target)) {
		*kind = "OUTDIR";
		e = ab_sign_verify_outdir_all(out, target, o);
	} else if (ab_sign_is_envelope_file(target)) {
		*kind = "envelopes file";
		e = ab_sign_verify_file(out, target, o);
	} else {
		*kind = "bundle";
		e = verify_bundle(out, target, o);
	}
	return e;
}

/*
 * Everything --policy needs before anything is checked, each a reason for
 * exit 2: the policy, a target it can read, the signing key, and the
 * rebuilders' records (after the plain verify: challenge reads the target)
 */
static int
load_policy(struct ab_policy **pol, struct ab_key ***skeys, size_t *nskeys, const struct args *a, const char *target)
{
	if (ab_policy_load(pol, a->policy, stderr) < 0)
		return AB_EFAIL;
	if (!ab_is_dir(target) && ab_path_exists(target) && ab_sign_is_envelope_file(target)) {
		ab_error("verify --policy: '%s' is an envelopes file: give the OUTDIR or the bundle", target);
		return AB_EFAIL;
	}
	if (a->sign && ab_cmd_load_keys(skeys, nskeys, (char *const *)&a->sign, 1, 1) < 0)
		return AB_EFAIL;
	return 0;
}

static int
load_rebuilt(struct ab_challenge **ch, struct ab_key ***rkeys, size_t *nrkeys, const struct args *a,
    const char *target)
{
	struct ab_challenge_opts co = {.records = a->records.v, .nrecords = a->records.n};

	if (!a->records.n)
		return 0;
	if (ab_cmd_load_keys(rkeys, nrkeys, a->rpaths.v, a->rpaths.n, 0) < 0)
		return AB_EFAIL;
	if (!*nrkeys)
		ab_warn("verify: --rebuilt without --rebuilt-key: the records' signatures are not checked, and they "
		    "count for no independent rebuilder (an unsigned record proves nothing about who rebuilt)");
	co.keys = *rkeys;
	co.nkeys = *nrkeys;
	/* a refused record (AB_ECHECK) is left out and counts for nothing */
	return ab_challenge_make(ch, target, &co) == AB_EFAIL ? AB_EFAIL : 0;
}

static int
cmd_verify(int argc, char **argv)
{
	struct args a = {0};
	struct ab_key **keys = NULL, **skeys = NULL, **rkeys = NULL;
	size_t nkeys = 0, nskeys = 0, nrkeys = 0, len = 0;
	struct ab_policy *pol = NULL;
	struct ab_policy_report rep = {0};
	struct ab_challenge *ch = NULL;
	const char *target, *kind = "bundle";
	char *lines = NULL;
	FILE *out = stdout;
	int e, pe = 0;

	if ((e = parse_args(&a, argc, argv)) != 0) {
		args_release(&a);
		return e;
	}
	target = argv[optind];
	/* a bad policy, an unusable target or key: nothing is checked */
	e = a.policy ? load_policy(&pol, &skeys, &nskeys, &a, target) : 0;
	/* --json: every line into memory, printed as one document at the end */
	if (e == 0 && a.json && !(out = open_memstream(&lines, &len))) {
		ab_error_errno("verify: cannot allocate");
		out = stdout;
		e = AB_EFAIL;
	}
	if (e == 0)
		e = ab_cmd_load_keys(&keys, &nkeys, a.paths.v, a.paths.n, 0);
	a.o.keys = keys;
	a.o.nkeys = nkeys;
	if (e == 0)
		e = verify_target(out, &kind, target, &a.o);
	if (e != AB_EFAIL)
		print_result(out, target, kind, e, nkeys);
	if (e != AB_EFAIL && pol && load_rebuilt(&ch, &rkeys, &nrkeys, &a, target) < 0)
		e = AB_EFAIL;
	if (e != AB_EFAIL && pol)
		pe = check_policy(out, &rep, pol, target, kind, keys, nkeys, ch);
	if (out != stdout) {
		fclose(out);
		if (e != AB_EFAIL && pe != AB_EFAIL)
			print_json(target, kind, e, nkeys, lines, pol, &rep, pe);
		free(lines);
	}
	e = e == AB_EFAIL ? e : worse(e, pe);
	if (e != AB_EFAIL && a.sign && write_vsa(target, kind, pol, e == 0, skeys, nskeys, a.vsa, ch) < 0)
		e = AB_EFAIL;
	ab_policy_report_release(&rep);
	ab_policy_free(pol);
	ab_challenge_free(ch);
	ab_cmd_free_keys(rkeys, nrkeys);
	ab_cmd_free_keys(skeys, nskeys);
	ab_cmd_free_keys(keys, nkeys);
	args_release(&a);
	return ab_cmd_exit(e);
}

const struct ab_cmd ab_cmd_verify = {"verify", "re-hash an output directory or evidence bundle; check signatures",
    usage, cmd_verify};
