/* allocbuild merge: combine the OUTDIRs of `build --shard` runs into one */
#include <getopt.h>
#include <stdlib.h>

#include "cmd.h"
#include "../builder/merge.h"
#include "../lib/jsonio.h"
#include "../lib/util.h"

enum { OPT_COPY = 0x2100, OPT_MOVE, OPT_SAME_TOOLCHAIN, OPT_JSON };

static const char usage[] =
    "allocbuild merge [--copy|--move] [--require-same-toolchain] [--json] -o OUTDIR SHARD...\n"
    "\n"
    "Combine the OUTDIRs of `build --shard K/N` runs (or of any builds of\n"
    "parts of one recipe) into the new OUTDIR, with the manifests one build\n"
    "of the whole recipe writes: verify, pr, rebuild and sign take it as\n"
    "they take a build (docs/scale.md). The variants' directories are\n"
    "copied (--copy, the default) or moved out of the shards (--move).\n"
    "\n"
    "Refused, exit 1, naming what differs: a shard that fails verify,\n"
    "shards of different recipes or source pins, a variant no shard built,\n"
    "and a variant built in several shards with different artifact digests\n"
    "(a reproducibility cross-check). Toolchain differences are reported\n"
    "and recorded per variant; --require-same-toolchain refuses them. The\n"
    "OUTDIR is written beside, as .NAME.merge-PID-XXXXXX, and renamed into\n"
    "place at the end: an interrupted merge leaves no OUTDIR. It says what it\n"
    "merged on stderr (nothing with -q); --json prints that as one document on\n"
    "stdout: {\"outdir\", \"shards\": [SHARD...], \"variants\": [LABEL...]}.\n";

static int
cmd_merge(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"output", required_argument, NULL, 'o'},
		{"outdir", required_argument, NULL, 'o'},
		{"copy", no_argument, NULL, OPT_COPY},
		{"move", no_argument, NULL, OPT_MOVE},
		{"require-same-toolchain", no_argument, NULL, OPT_SAME_TOOLCHAIN},
		{"json", no_argument, NULL, OPT_JSON},
		{NULL, 0, NULL, 0},
	};
	struct ab_merge_opts o = {0};
	struct ab_strv merged = {0};
	int c, json = 0, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			o.outdir = optarg;
			break;
		case OPT_COPY:
			o.move = 0;
			break;
		case OPT_MOVE:
			o.move = 1;
			break;
		case OPT_SAME_TOOLCHAIN:
			o.require_same_toolchain = 1;
			break;
		case OPT_JSON:
			json = 1;
			break;
		default:
			return ab_cmd_option_error("merge", c, argv);
		}
	}
	if (!o.outdir)
		return ab_cmd_usage_error("merge", "missing -o OUTDIR");
	if (optind >= argc)
		return ab_cmd_usage_error("merge", "missing shard OUTDIRs");
	o.shards = argv + optind;
	o.nshards = (size_t)(argc - optind);
	o.merged = &merged;
	rc = ab_merge_run(&o);
	/* --json: {"outdir", "shards": [DIR...], "variants": [LABEL...]} */
	if (rc == 0 && json) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "outdir", o.outdir);
		cJSON_AddItemToObject(doc, "shards", ab_json_strv(o.shards, o.nshards));
		cJSON_AddItemToObject(doc, "variants", ab_json_strv(merged.v, merged.n));
		rc = ab_json_print(stdout, doc);
		cJSON_Delete(doc);
	}
	ab_strv_free(&merged);
	return ab_cmd_exit(rc);
}

const struct ab_cmd ab_cmd_merge = {"merge", "combine the OUTDIRs of sharded builds into one", usage, cmd_merge};
