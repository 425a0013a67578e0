/* allocbuild build: build every variant of a recipe and write its provenance */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../builder/build.h"
#include "../builder/check.h"
#include "buildtable.h"
#include "cmd.h"
#include "cmdopts.h"
#include "../builder/plan.h"
#include "../builder/recipe.h"
#include "../builder/shard.h"
#include "../builder/source.h"
#include "../lib/util.h"

enum { OPT_KEEP_GOING = 0x2000, OPT_FORCE, OPT_CHECK, OPT_SHARD, OPT_JSON };

static const char usage[] =
    "allocbuild build [-o OUTDIR] [-j N] [-k|--keep-going] [--force] [--ccache] [--check]\n"
    "                 [--ccache-remote URL] [--ccache-dir DIR] [--no-sandbox] [--derive]\n"
    "                 [--cache DIR] [--mirror FROM=TO] [--mirror-dir DIR] [--allow-unpinned]\n"
    "                 [--shard K/N] [--json] RECIPE [LABEL...]\n"
    "\n"
    "Build the variants (all, or the labels and what they depend on) into\n"
    "OUTDIR (default ./allocbuild-out/<recipe name>), probe their allocators\n"
    "and write the manifests (docs/build.md, docs/manifests.md). Up-to-date\n"
    "variants are only re-verified; --force rebuilds. Exit 1 when a variant\n"
    "fails or a probe finds a problem. At the end a table of the variants\n"
    "(none with -q); --json prints it as one document on stdout, progress\n"
    "staying on stderr: {\"outdir\", \"variants\": [{\"label\", \"kind\",\n"
    "\"built\", \"allocator\", \"version\", \"secure\", \"settings\",\n"
    "\"archive_sha256\", \"ccache\"}], \"built\", \"failed\", \"signatures\"}.\n"
    "\n"
    "--check builds every variant a second time, from nothing, in\n"
    "OUTDIR/reproducibility/check with another -j, and reports each artifact\n"
    "as identical or differs (and what differs); the record goes to\n"
    "OUTDIR/provenance/reproducibility.intoto.json. Exit 1 when any differs.\n"
    "\n"
    "--ccache compiles through ccache; --ccache-remote URL (redis://HOST:PORT,\n"
    "http://HOST/PATH) shares its cache across machines, --ccache-dir DIR\n"
    "names the local cache (both imply --ccache). With ccache the first\n"
    "variant of each source compiles before the others of it, which take\n"
    "the objects they share from the cache. Each variant's hits (and those\n"
    "from earlier variants of the build) and misses are in the summary and\n"
    "the manifests; an unreachable remote storage is said, and the build\n"
    "goes on with the local cache.\n"
    "\n"
    "--derive starts a variant that differs from an earlier variant of the\n"
    "same source only in its settings (configure arguments, CMake defines,\n"
    "build.env) from a copy of that variant's finished trees, once it has\n"
    "been built: its configure runs again there and the build system\n"
    "rebuilds what the settings change. A variant that cannot is built clean\n"
    "and the reason is said; --check builds every variant clean\n"
    "(docs/build.md, \"Derived build trees\").\n"
    "\n"
    "Every step that runs build-system code runs in the build sandbox (own\n"
    "user, mount, PID and network namespaces, the system read-only, nothing\n"
    "of the caller's files or environment, the variant's trees always at\n"
    "/allocbuild/src and /allocbuild/build); --no-sandbox builds without it,\n"
    "recorded as such (docs/build.md, \"Sandbox\").\n"
    "\n"
    "--shard K/N builds exactly shard K of the N that `plan --matrix -n N`\n"
    "prints (no labels then); `merge` combines the shards (docs/scale.md).\n";

/* the labels of shard k of n of r into *labels; 0, or AB_EFAIL (reported) */
static int
shard_labels(struct ab_strv *labels, const struct ab_recipe *r, size_t k, size_t n)
{
	struct ab_shards *s;

	if (ab_shard_make(&s, r, n) < 0)
		return AB_EFAIL;
	for (size_t i = 0; i < s->shard[k - 1].labels.n; i++)
		ab_strv_push(labels, s->shard[k - 1].labels.v[i]);
	ab_shards_free(s);
	return 0;
}

static int
cmd_build(int argc, char **argv)
{
	static const struct option longopts[] = {
		AB_PLAN_LONGOPTS,
		{"keep-going", no_argument, NULL, OPT_KEEP_GOING},
		{"force", no_argument, NULL, OPT_FORCE},
		{"check", no_argument, NULL, OPT_CHECK},
		{"shard", required_argument, NULL, OPT_SHARD},
		{"json", no_argument, NULL, OPT_JSON},
		AB_SOURCE_LONGOPTS,
		{NULL, 0, NULL, 0},
	};
	struct ab_source_opts so;
	struct ab_plan_opts po = {0};
	struct ab_build_opts bo = {0};
	struct ab_recipe *r = NULL;
	struct ab_plan *p = NULL;
	struct ab_strv labels = {0};
	const char *shard = NULL;
	size_t sk = 0, sn = 0;
	int c, check = 0, rc = AB_EXIT_USAGE;

	ab_source_opts_init(&so);
	bo.src = &so;
	bo.finished = ab_cmd_build_table;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, ":o:j:k", longopts, NULL)) != -1) {
		int h;

		switch (c) {
		case 'k':
		case OPT_KEEP_GOING:
			bo.keep_going = 1;
			continue;
		case OPT_FORCE:
			bo.force = 1;
			continue;
		case OPT_CHECK:
			check = 1;
			continue;
		case OPT_JSON:
			bo.finished = ab_cmd_build_json;
			continue;
		case OPT_SHARD:
			shard = optarg;
			if (ab_shard_parse(&sk, &sn, shard) < 0) {
				rc = ab_cmd_usage_error("build", "invalid shard '%s' (K/N with 1 <= K <= N <= %d)",
				    shard, AB_SHARD_MAX);
				goto done;
			}
			continue;
		default:
			break;
		}
		h = ab_cmd_plan_option(&po, "build", c, optarg);
		if (h == 0)
			h = ab_cmd_source_option(&so, c, optarg);
		if (h < 0)
			goto done;
		if (h == 0) {
			rc = ab_cmd_option_error("build", c, argv);
			goto done;
		}
	}
	so.no_sandbox = po.no_sandbox;
	if (po.no_sandbox)
		ab_warn("build --no-sandbox: every step runs with your files, your network and your environment "
		    "(but the variables allocbuild scrubs), and the records say it was built outside the sandbox");
	if (optind >= argc) {
		rc = ab_cmd_usage_error("build", "missing recipe");
		goto done;
	}
	if (shard && optind + 1 < argc) {
		rc = ab_cmd_usage_error("build", "--shard takes no labels");
		goto done;
	}
	if (ab_recipe_load(&r, argv[optind]) < 0)
		goto done;
	/* an unpinned commit is bad input: said once, before OUTDIR is made */
	if (ab_recipe_check_pins(r, so.allow_unpinned) < 0)
		goto done;
	for (int i = optind + 1; i < argc; i++)
		ab_strv_push(&labels, argv[i]);
	if (shard) {
		if (shard_labels(&labels, r, sk, sn) < 0)
			goto done;
		if (!labels.n) {
			/* N is more than the dependencies let split: nothing to build, nothing written */
			ab_note("shard %s of recipe '%s' is empty: nothing to build", shard, r->name);
			rc = AB_EXIT_OK;
			goto done;
		}
	}
	if (check) {
		rc = ab_cmd_exit(ab_check_run(r, &po, labels.v, labels.n, &bo));
		goto done;
	}
	if (ab_plan_make(&p, r, &po, labels.v, labels.n) < 0)
		goto done;
	rc = ab_cmd_exit(ab_build_run(p, &bo));
done:
	ab_plan_free(p);
	ab_recipe_free(r);
	ab_strv_free(&labels);
	ab_source_opts_release(&so);
	return rc;
}

const struct ab_cmd ab_cmd_build = {"build", "build every variant of a recipe and write provenance", usage, cmd_build};
