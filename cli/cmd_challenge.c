/*
 * allocbuild challenge: the rebuild records of independent rebuilders
 * held against one build, artifact by artifact (provenance/review/challenge.h)
 */
#include <getopt.h>
#include <stdio.h>

#include "cmd.h"
#include "../lib/jsonio.h"
#include "../lib/util.h"
#include "../provenance/review/challenge.h"

static const char usage[] =
    "allocbuild challenge [--key PUB.pem]... [--quorum N] [--json] BUNDLE|OUTDIR RECORD...\n"
    "\n"
    "Hold the records of `rebuild` (DIR/provenance/rebuild.intoto.json, or\n"
    "the envelope DIR/rebuild.intoto.jsonl that `rebuild --sign` writes) of\n"
    "several rebuilders against the build they rebuilt: each must name this\n"
    "build (the sha256 of its statement). Prints per artifact the original\n"
    "digest and how many records got it (\"3 of 3 identical\"), then each\n"
    "other digest with the hosts that got it and the likely cause their record\n"
    "names (a tool version, a host probe) or their toolchain's difference.\n"
    "With --key (a PEM public key; several allowed) every record must be an\n"
    "envelope signed by one of them; one that is not is refused and not\n"
    "counted. A rebuilder counts once: by its key when checked, else by its\n"
    "host name, which is only what an unsigned record says of itself: without\n"
    "--key a warning says so (on standard error, in the table and in --json),\n"
    "as unsigned records prove nothing about who rebuilt.\n"
    "Exit 0 when every artifact has at least N independent rebuilders\n"
    "with the original digest (--quorum, default: as many as records given)\n"
    "and no record was refused, 1 otherwise, 2 on bad input (an unreadable\n"
    "record, a record of another build). See docs/build.md, \"Independent\n"
    "rebuilders\".\n";

enum { OPT_KEY = 0x2200, OPT_QUORUM, OPT_JSON };

static int
cmd_challenge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"key", required_argument, NULL, OPT_KEY},
		{"quorum", required_argument, NULL, OPT_QUORUM},
		{"json", no_argument, NULL, OPT_JSON},
		{NULL, 0, NULL, 0},
	};
	struct ab_challenge_opts o = {0};
	struct ab_challenge *ch = NULL;
	struct ab_strv paths = {0};
	struct ab_key **keys = NULL;
	size_t nkeys = 0;
	int c, q = 0, json = 0, e, rc = AB_EXIT_USAGE;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_KEY:
			ab_strv_push(&paths, optarg);
			break;
		case OPT_QUORUM:
			if (ab_cmd_parse_int(&q, optarg, 1, 1 << 20) < 0) {
				rc = ab_cmd_usage_error("challenge", "invalid quorum '%s': a whole number from 1", optarg);
				goto done;
			}
			break;
		case OPT_JSON:
			json = 1;
			break;
		default:
			rc = ab_cmd_option_error("challenge", c, argv);
			goto done;
		}
	}
	if (argc - optind < 2) {
		rc = ab_cmd_usage_error("challenge", argc - optind < 1 ? "missing BUNDLE or OUTDIR" :
		    "missing RECORD: give the records of one or more rebuilds");
		goto done;
	}
	if ((size_t)q > (size_t)(argc - optind - 1)) {
		rc = ab_cmd_usage_error("challenge", "--quorum %d: only %d record%s given", q, argc - optind - 1,
		    argc - optind - 1 == 1 ? "" : "s");
		goto done;
	}
	if (ab_cmd_load_keys(&keys, &nkeys, paths.v, paths.n, 0) < 0) {
		rc = ab_cmd_exit(AB_EFAIL);
		goto done;
	}
	o.records = argv + optind + 1;
	o.nrecords = (size_t)(argc - optind - 1);
	o.keys = keys;
	o.nkeys = nkeys;
	o.quorum = (size_t)q;
	if (!nkeys)
		ab_warn("challenge: no --key: %s", AB_CHALLENGE_UNSIGNED);
	e = ab_challenge_make(&ch, argv[optind], &o);
	if (ch) {
		if (json) {
			cJSON *d = ab_challenge_json(ch);

			ab_json_print(stdout, d);
			cJSON_Delete(d);
		} else {
			ab_challenge_print(stdout, ch);
		}
		if (e == 0)
			e = ab_challenge_verdict(ch);
	}
	rc = ab_cmd_exit(e);
done:
	ab_challenge_free(ch);
	ab_cmd_free_keys(keys, nkeys);
	ab_strv_free(&paths);
	return rc;
}

const struct ab_cmd ab_cmd_challenge = {"challenge", "hold several rebuilders' records against one build",
    usage, cmd_challenge};
