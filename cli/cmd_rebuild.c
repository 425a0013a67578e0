/* allocbuild rebuild: build a finished OUTDIR or an evidence bundle again and compare every digest */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "cmdopts.h"
#include "../builder/rebuild.h"
#include "../builder/source.h"
#include "../lib/util.h"

enum { OPT_DIFFOSCOPE = 0x2100, OPT_DIFFOSCOPE_TIMEOUT, OPT_KEY, OPT_REQUIRE_ALL, OPT_TRUST_UNSIGNED, OPT_SIGN, OPT_JSON };

static const char usage[] =
    "allocbuild rebuild [-o DIR] [-j N] [--cache DIR] [--mirror FROM=TO] [--mirror-dir DIR]\n"
    "                   [--key PUB.pem]... [--require-all] [--trust-unsigned] [--sign KEY.pem]...\n"
    "                   [--diffoscope] [--diffoscope-timeout SECONDS] [--json] OUTDIR|BUNDLE\n"
    "\n"
    "Verify a built OUTDIR or the evidence bundle of `pr` (it holds the\n"
    "recipe and every pin), build every variant again in a fresh DIR\n"
    "(default ./allocbuild-rebuild/<recipe name>) and compare every recorded\n"
    "artifact digest. For an artifact that differs it names the ar members or\n"
    "ELF sections that differ and, as the likely cause, a recorded tool\n"
    "version or host probe that differs; --diffoscope also writes\n"
    "diffoscope's report (at most 300 seconds an artifact, or SECONDS) to\n"
    "DIR/diffoscope/. The record goes to\n"
    "DIR/provenance/rebuild.intoto.json (and to OUTDIR's). Exit 0 when every\n"
    "digest matches, 1 when any differs, 2 on bad input (not a bundle, a\n"
    "tampered bundle or OUTDIR, an edited recipe: nothing is built then).\n"
    "The record names the build it rebuilt by digest and says who rebuilt\n"
    "where (host, kernel, CPU, each variant's toolchain and sandbox): it can\n"
    "travel alone, to `allocbuild challenge`. --sign KEY.pem (a PEM private\n"
    "key, Ed25519 or ECDSA P-256; repeatable) also writes it signed, one DSSE\n"
    "envelope, to DIR/rebuild.intoto.jsonl. With --json, what it prints goes\n"
    "to standard error and standard output gets one document at the end:\n"
    "{from, kind, dir, result (pass or fail), summary, record, signed_record,\n"
    "artifacts (label, path, original_sha256, rebuilt_sha256, identical, ...)}.\n"
    "\n"
    "A bundle's recipe chooses the sources and the commands the rebuild runs,\n"
    "as you. With --key (a signer's PEM public key; several allowed, any one\n"
    "suffices unless --require-all) its signed statements are checked first, as\n"
    "`verify --key` checks them: a signature that does not verify is exit 1 and\n"
    "nothing runs. Without --key, rebuild prints the sources, prepare commands,\n"
    "configure and build argv and environment it would run, and goes on only\n"
    "with --trust-unsigned or a yes typed on the terminal (docs/build.md,\n"
    "\"Rebuilding from the evidence\").\n";

/* a yes typed on the terminal; never without one (no standard input, a pipe) */
static int
confirm(void)
{
	char line[16];

	if (!isatty(STDIN_FILENO) || !isatty(STDERR_FILENO))
		return 0;
	fputs("run these commands? [y/N] ", stderr);
	fflush(stderr);
	if (!fgets(line, sizeof(line), stdin))
		return 0;
	line[strcspn(line, "\n")] = '\0';
	return !strcmp(line, "y") || !strcmp(line, "yes");
}

static int
cmd_rebuild(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"outdir", required_argument, NULL, 'o'},
		{"jobs", required_argument, NULL, 'j'},
		{"diffoscope", no_argument, NULL, OPT_DIFFOSCOPE},
		{"diffoscope-timeout", required_argument, NULL, OPT_DIFFOSCOPE_TIMEOUT},
		{"key", required_argument, NULL, OPT_KEY},
		{"require-all", no_argument, NULL, OPT_REQUIRE_ALL},
		{"trust-unsigned", no_argument, NULL, OPT_TRUST_UNSIGNED},
		{"sign", required_argument, NULL, OPT_SIGN},
		{"signing-key", required_argument, NULL, OPT_SIGN}, /* sign's name for it */
		{"json", no_argument, NULL, OPT_JSON},
		AB_SOURCE_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct ab_source_opts so;
	struct ab_rebuild_opts o = {.confirm = confirm};
	struct ab_strv keypaths = {0}, signpaths = {0};
	struct ab_key **keys = NULL, **signers = NULL;
	size_t nkeys = 0, nsigners = 0;
	int c, h, rc = AB_EXIT_USAGE;

	ab_source_opts_init(&so);
	o.src = &so;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.outdir = optarg;
			continue;
		case 'j':
			if (ab_cmd_parse_jobs(&o.jobs, "rebuild", optarg) < 0)
				goto done;
			continue;
		case OPT_DIFFOSCOPE:
			o.diffoscope = 1;
			continue;
		case OPT_DIFFOSCOPE_TIMEOUT:
			if (ab_cmd_parse_int(&o.diffoscope_timeout, optarg, 1, 86400) < 0) {
				rc = ab_cmd_usage_error("rebuild", "invalid timeout '%s'", optarg);
				goto done;
			}
			o.diffoscope = 1;
			continue;
		case OPT_KEY:
			ab_strv_push(&keypaths, optarg);
			continue;
		case OPT_SIGN:
			ab_strv_push(&signpaths, optarg);
			continue;
		case OPT_REQUIRE_ALL:
			o.require_all = 1;
			continue;
		case OPT_TRUST_UNSIGNED:
			o.trust_unsigned = 1;
			continue;
		case OPT_JSON:
			o.json = 1;
			o.out = stderr;
			continue;
		default:
			break;
		}
		h = ab_cmd_source_option(&so, c, optarg);
		if (h < 0)
			goto done;
		if (h == 0) {
			rc = ab_cmd_option_error("rebuild", c, argv);
			goto done;
		}
	}
	if (optind >= argc) {
		rc = ab_cmd_usage_error("rebuild", "missing OUTDIR or bundle");
		goto done;
	}
	if (optind + 1 < argc) {
		rc = ab_cmd_usage_error("rebuild", "one OUTDIR or bundle, not '%s' too", argv[optind + 1]);
		goto done;
	}
	if (o.require_all && !keypaths.n) {
		rc = ab_cmd_usage_error("rebuild", "--require-all needs --key");
		goto done;
	}
	if (o.trust_unsigned && keypaths.n) {
		rc = ab_cmd_usage_error("rebuild", "--trust-unsigned and --key: the signatures are checked or not");
		goto done;
	}
	if (ab_cmd_load_keys(&keys, &nkeys, keypaths.v, keypaths.n, 0) < 0 ||
	    ab_cmd_load_keys(&signers, &nsigners, signpaths.v, signpaths.n, 1) < 0)
		goto done;
	o.sign_keys = signers;
	o.nsign_keys = nsigners;
	o.from = argv[optind];
	o.keys = keys;
	o.nkeys = nkeys;
	rc = ab_cmd_exit(ab_rebuild_run(&o));
done:
	ab_cmd_free_keys(keys, nkeys);
	ab_cmd_free_keys(signers, nsigners);
	ab_strv_free(&keypaths);
	ab_strv_free(&signpaths);
	ab_source_opts_release(&so);
	return rc;
}

const struct ab_cmd ab_cmd_rebuild = {"rebuild", "build an OUTDIR or evidence bundle again and compare every digest",
    usage, cmd_rebuild};
