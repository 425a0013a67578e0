/*
 * allocbuild sign --signing-key KEY.pem [--signing-key KEY.pem]... OUTDIR
 * allocbuild sign --intoto-pubkey PUB.pem
 *
 * Wrap every in-toto Statement of an OUTDIR in a DSSE envelope signed with
 * each key (provenance/review/sign.h), and write the in-toto links of its steps
 * (provenance/attest/intoto.h). The keys are loaded before anything is written; a
 * key that cannot be used writes nothing. --intoto-pubkey prints a key's
 * public half as in-toto 1.3.1 reads it, for a layout.
 */
#include <getopt.h>
#include <stdlib.h>

#include <unistd.h>

#include "cmd.h"
#include "../builder/build.h"
#include "../builder/source.h"
#include "../lib/util.h"
#include "../lib/jsonio.h"
#include "../provenance/attest/intoto.h"
#include "../provenance/attest/keys.h"
#include "../provenance/record/manifest.h"
#include "../provenance/review/sign.h"

static const char usage[] =
    "allocbuild sign [--json] --signing-key KEY.pem [--signing-key KEY.pem]... OUTDIR\n"
    "allocbuild sign --intoto-pubkey PUB.pem\n"
    "\n"
    "Wrap every in-toto Statement of OUTDIR (provenance/provenance.intoto.json)\n"
    "in a DSSE envelope, payloadType application/vnd.in-toto+json, signed with\n"
    "each KEY: a PEM private key, Ed25519 or ECDSA P-256, as `openssl genpkey`\n"
    "writes it. Writes OUTDIR/provenance/provenance.intoto.jsonl (one envelope a\n"
    "line) and provenance/signers.json (keyid and algorithm of each key). An\n"
    "encrypted key's passphrase comes from ALLOCBUILD_KEY_PASSPHRASE, else from\n"
    "the terminal. Check with `allocbuild verify --key PUB.pem OUTDIR`.\n"
    "Also writes one in-toto link per step (fetch-SOURCE, build-LABEL,\n"
    "relink-LABEL, probe-LABEL) per key, OUTDIR/in-toto/STEP.KEYID8.link, that\n"
    "in-toto 1.3.1's in-toto-verify checks against a layout (docs/intoto.md).\n"
    "--intoto-pubkey prints the public key PUB.pem (openssl pkey -pubout) as\n"
    "in-toto-verify --key-types ed25519|ecdsa and a layout's keys read it\n"
    "(securesystemslib's JSON; its keyid names the links), and writes nothing.\n"
    "Takes OUTDIR's lock: a build or run in progress there makes it exit 2.\n"
    "OUTDIR is verified first, as `allocbuild verify OUTDIR` verifies it\n"
    "(every file against SHA256SUMS and the statement; every statement's names\n"
    "relative, none with '..'): what does not verify is not signed.\n"
    "It says what it signed and wrote (nothing with -q); --json prints it as one\n"
    "document: {\"outdir\", \"statements\", \"envelopes\", \"keys\": [{\"algorithm\",\n"
    "\"keyid\"}], \"links\"}.\n"
    "Exit 0 signed, 1 OUTDIR does not verify, 2 bad input (nothing is written\n"
    "then). See docs/manifests.md.\n"
    "(--key, this command's old name for the signing key, still works, with a\n"
    "warning: everywhere else --key names a trusted public key.)\n";

/* --intoto-pubkey: the key's public half as securesystemslib's JSON on stdout */
static int
print_intoto_pubkey(const char *path)
{
	struct ab_key *k = NULL;
	char id[AB_HEX_LEN + 1];
	cJSON *pub = NULL;
	int rc = ab_key_load(&k, path, AB_KEY_PUBLIC);

	if (rc == 0)
		rc = ab_intoto_pubkey(&pub, id, k);
	if (rc == 0)
		rc = ab_json_print(stdout, pub);
	cJSON_Delete(pub);
	ab_key_free(k);
	return ab_cmd_exit(rc);
}

/*
 * What was signed: a line for the statements and one for the in-toto links
 * (none with -q), or with --json one document
 * {"outdir", "statements", "envelopes", "keys": [{"algorithm", "keyid"}], "links": [PATH...]}
 */
static int
print_signed(const char *outdir, size_t n, struct ab_key *const *keys, size_t nkeys, int json)
{
	struct ab_strv links = {0};
	int rc = ab_intoto_links(&links, outdir);
	char *env = ab_path_join(outdir, AB_SIGN_ENVELOPES);

	if (rc == 0 && json) {
		cJSON *doc = cJSON_CreateObject(), *ks;

		cJSON_AddStringToObject(doc, "outdir", outdir);
		cJSON_AddNumberToObject(doc, "statements", (double)n);
		cJSON_AddStringToObject(doc, "envelopes", env);
		ks = cJSON_AddArrayToObject(doc, "keys");
		for (size_t i = 0; i < nkeys; i++) {
			cJSON *k = cJSON_CreateObject();

			cJSON_AddStringToObject(k, "algorithm", ab_key_algorithm(keys[i]));
			cJSON_AddStringToObject(k, "keyid", ab_key_id(keys[i]));
			cJSON_AddItemToArray(ks, k);
		}
		cJSON_AddItemToObject(doc, "links", ab_json_strv(links.v, links.n));
		rc = ab_json_print(stdout, doc);
		cJSON_Delete(doc);
	} else if (rc == 0 && !ab_quiet) {
		printf("signed %zu statement%s with", n, n == 1 ? "" : "s");
		for (size_t i = 0; i < nkeys; i++)
			printf("%s %s key %s", i ? "," : "", ab_key_algorithm(keys[i]), ab_key_id(keys[i]));
		printf(": %s\n", env);
		if (links.n)
			printf("wrote %zu in-toto link%s: %s/%s\n", links.n, links.n == 1 ? "" : "s", outdir, AB_INTOTO_DIR);
	}
	free(env);
	ab_strv_free(&links);
	return rc;
}

static int
cmd_sign(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"signing-key", required_argument, NULL, 'k'},
		{"key", required_argument, NULL, 'K'},
		{"intoto-pubkey", required_argument, NULL, 'P'},
		{"json", no_argument, NULL, 'j'},
		{NULL, 0, NULL, 0},
	};
	const char *pubkey = NULL;
	int old_name = 0, json = 0;
	struct ab_strv paths = {0};
	struct ab_key **keys = NULL;
	size_t nkeys = 0, n = 0;
	int c, rc, lockfd = -1;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case 'K':
			/* the old spelling, which scripts may use: --key is a trusted public key everywhere else */
			if (!old_name++)
				ab_warn("sign --key is deprecated: name the signing key with --signing-key KEY.pem "
				    "(--key names a trusted public key in verify, rebuild and challenge)");
			/* fall through */
		case 'k':
			ab_strv_push(&paths, optarg);
			break;
		case 'P':
			pubkey = optarg;
			break;
		case 'j':
			json = 1;
			break;
		default:
			ab_strv_free(&paths);
			return ab_cmd_option_error("sign", c, argv);
		}
	}
	if (pubkey) {
		int extra = argc != optind || paths.n;

		ab_strv_free(&paths);
		if (extra)
			return ab_cmd_usage_error("sign", "--intoto-pubkey takes no OUTDIR and no --signing-key");
		return print_intoto_pubkey(pubkey);
	}
	if (argc - optind != 1 || !paths.n) {
		ab_strv_free(&paths);
		return ab_cmd_usage_error("sign", argc - optind != 1 ? "expected one OUTDIR" : "missing --signing-key KEY.pem");
	}
	if (!ab_is_dir(argv[optind])) {
		ab_strv_free(&paths);
		ab_error("sign: '%s' is not a directory", argv[optind]);
		return AB_EXIT_USAGE;
	}
	rc = ab_cmd_load_keys(&keys, &nkeys, paths.v, paths.n, 1);
	/*
	 * the OUTDIR's lock, as build and run take it: what is signed does not
	 * change meanwhile (a directory without a statement gets no lock file:
	 * ab_sign_outdir says what it lacks)
	 */
	if (rc == 0) {
		char *stmt = ab_path_join(argv[optind], AB_MANIFEST_STATEMENT);

		if (ab_path_exists(stmt))
			rc = ab_build_lock(&lockfd, argv[optind]);
		/* nothing is signed that does not verify, under the lock: a signature would vouch for it */
		if (rc == 0 && lockfd >= 0)
			rc = ab_sign_verify_before_signing(argv[optind]);
		free(stmt);
	}
	if (rc == 0)
		rc = ab_sign_outdir(&n, argv[optind], keys, nkeys, ab_source_tree_files);
	if (lockfd >= 0)
		close(lockfd);
	if (rc == 0)
		rc = print_signed(argv[optind], n, keys, nkeys, json);
	ab_cmd_free_keys(keys, nkeys);
	ab_strv_free(&paths);
	return ab_cmd_exit(rc);
}

const struct ab_cmd ab_cmd_sign = {"sign", "sign the in-toto statements of an output directory (DSSE)", usage, cmd_sign};
