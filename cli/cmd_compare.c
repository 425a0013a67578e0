/*
 * allocbuild compare OUTDIR [--name NAME] [--baseline LABEL] [--metric M]...
 *     [--format table|csv|json|md] [--unpaired] [--threshold PCT]
 *     [--seed N] [--resamples N] [--derive DEF]... [--metrics FILE]
 *     [--runs-from OUTDIR2]... [--by-host|--pool-hosts] [--sign KEY.pem]...
 *
 * The recorded runs of OUTDIR as medians, ranges, ratios against a
 * baseline with bootstrap intervals, U tests, verdicts and the A/A
 * control (provenance/compare/compare.h, docs/runs.md).
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <unistd.h>

#include "cmd.h"
#include "../builder/build.h"
#include "../builder/source.h"
#include "../lib/util.h"
#include "../provenance/compare/compare.h"
#include "../provenance/compare/testresult.h"
#include "../provenance/record/manifest.h"
#include "../provenance/review/sign.h"
#include "../provenance/runs/metrics.h"

static const char usage[] =
    "allocbuild compare OUTDIR [--name NAME] [--baseline LABEL] [--metric M]...\n"
    "                   [--format table|csv|json|md] [--unpaired] [--threshold PCT]\n"
    "                   [--seed N] [--resamples N] [--derive DEF]... [--metrics FILE]\n"
    "                   [--runs-from OUTDIR2]... [--by-host|--pool-hosts] [--sign KEY.pem]...\n"
    "\n"
    "Compare the runs `allocbuild run` recorded in OUTDIR (those SHA256SUMS lists,\n"
    "each checked against it), per run name (--name: only that one), cell and\n"
    "label: for each metric the successful runs' count, median and range, and\n"
    "against the baseline label (--baseline, default the label run first) the\n"
    "ratio of medians with its 95% bootstrap interval (paired by repetition when\n"
    "the runs were rotated, unless --unpaired; --resamples, default 10000;\n"
    "--seed, default 1, printed with the result), the Mann-Whitney U p-value and\n"
    "a verdict: better, worse, or no difference shown (p >= 0.05, an interval\n"
    "holding 1, or a ratio within the noise threshold, --threshold, default 1%).\n"
    "Metrics (--metric, repeatable; default wall_s, cpu_s, the sampled RSS\n"
    "figures or maxrss_mib, and every figure the driver reported): wall_s cpu_s\n"
    "maxrss_mib steady_rss_mib peak_rss_mib cooldown_rss_mib rss_gib_s window_cpu_s\n"
    "minor_faults major_faults max_threads steady_pss_mib peak_pss_mib\n"
    "steady_anon_mib peak_anon_mib, or the name of a driver's figure\n"
    "(ALLOCBUILD_METRIC lines). --derive 'NAME [UNIT] [better=higher|lower] = EXPR'\n"
    "(repeatable) and --metrics FILE ({\"derived\": [DEF, ...]}) add derived figures,\n"
    "computed per run and compared like the others: EXPR of metrics and numbers\n"
    "with + - * / and parentheses, growth_pct(A, B), and rss_mean(FROM, TO) or\n"
    "rss_median(FROM, TO) of the RSS series between two points (240s, 4min,\n"
    "start, end, exit, exit-5min); a run without an input has no value, said.\n"
    "--runs-from OUTDIR2 (repeatable) adds the runs recorded in a copy of the\n"
    "build on another host. Runs of one name taken on several hosts (each\n"
    "record's run environment names its host) are never pooled silently: they\n"
    "are refused, naming the hosts, unless --by-host compares each host's runs\n"
    "apart (a table per host, against the same baseline, and the rows whose\n"
    "verdicts disagree between hosts said) or --pool-hosts pools them, unpaired.\n"
    "A label whose artifact has another digest on another host is named, exit 1.\n"
    "Two labels that ran the same bytes (artifact\n"
    "digest) with the same runtime environment are an A/A control: when it\n"
    "shows a difference, every verdict is flagged unreliable. Failed runs are\n"
    "left out, named in a warning; too few runs for the U test give a warning\n"
    "and no verdict; a run too short to sample (fewer than 3 samples) has no\n"
    "sampled figures, with a warning, not figures of 0. The machine's load at\n"
    "the runs' starts is said, with a warning when it passed the CPUs.\n"
    "--format csv prints one row per observation (values to 15 significant\n"
    "digits, as the records hold them); md what pr.md shows, with Mermaid\n"
    "charts (RSS over time of each label's median run, read from its series and\n"
    "checked against its record). Warnings go to stderr (and into json and md).\n"
    "Exit 0 compared; 1 a verdict is unreliable (the A/A control shows a\n"
    "difference, or the runs ran under different run environments), every run\n"
    "of a label failed, rotated runs under different environments were refused\n"
    "a paired comparison, or a record (or with md a series) does not hold what\n"
    "SHA256SUMS (its record) says; 2 bad input (no runs, an unknown name, label\n"
    "or metric). See\n"
    "docs/runs.md.\n"
    "--sign KEY.pem (repeatable) also writes each run name's findings as an\n"
    "in-toto test-result Statement, OUTDIR/test-results/NAME.intoto.json (the\n"
    "artifacts as subjects; the recipe, the run records with their run\n"
    "environments and these settings as configuration; one passed, warned or\n"
    "failed test per label and metric, with its ratio, interval, p and n), and\n"
    "signs every Statement of OUTDIR as `allocbuild sign` does.\n";

static int
parse_format(enum ab_compare_format *f, const char *s)
{
	static const char *const names[] = {"table", "csv", "json", "md"};
	static const enum ab_compare_format fmts[] = {AB_CMP_TABLE, AB_CMP_CSV, AB_CMP_JSON, AB_CMP_MD};

	for (size_t i = 0; i < AB_NELEM(names); i++)
		if (!strcmp(names[i], s)) {
			*f = fmts[i];
			return 0;
		}
	return -1;
}

/* "1", "1%", "0.5%": percent, 0 to 100 */
static int
parse_percent(double *out, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || (*end && strcmp(end, "%")) || !(v >= 0) || v > 100)
		return -1;
	*out = v / 100;
	return 0;
}

/*
 * --sign: the test results written with o's settings and every Statement
 * signed, under OUTDIR's lock, after it verified (as `sign` does)
 */
static int
sign_results(const struct ab_compare_opts *o, struct ab_key *const *keys, size_t nkeys)
{
	size_t n = 0;
	int lockfd = -1, rc;

	if ((rc = ab_build_lock(&lockfd, o->outdir)) == 0 && (rc = ab_sign_verify_before_signing(o->outdir)) == 0)
		rc = ab_sign_outdir_results(&n, o->outdir, keys, nkeys, ab_source_tree_files, o);
	if (lockfd >= 0)
		close(lockfd);
	if (rc == 0)
		ab_note("compare: test results in '%s/%s/', and %zu statement%s signed into '%s/%s'", o->outdir,
		    AB_TESTRESULT_DIR, n, n == 1 ? "" : "s", o->outdir, AB_MANIFEST_ENVELOPES);
	return rc;
}

static int
cmd_compare(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"name", required_argument, NULL, 'n'},
		{"baseline", required_argument, NULL, 'b'},
		{"metric", required_argument, NULL, 'm'},
		{"format", required_argument, NULL, 'f'},
		{"unpaired", no_argument, NULL, 'u'},
		{"threshold", required_argument, NULL, 't'},
		{"seed", required_argument, NULL, 's'},
		{"resamples", required_argument, NULL, 'r'},
		{"sign", required_argument, NULL, 'S'},
		{"derive", required_argument, NULL, 'D'},
		{"metrics", required_argument, NULL, 'M'},
		{"runs-from", required_argument, NULL, 'F'},
		{"by-host", no_argument, NULL, 'H'},
		{"pool-hosts", no_argument, NULL, 'P'},
		{NULL, 0, NULL, 0},
	};
	struct ab_compare_opts o = {.seed = AB_COMPARE_SEED, .resamples = AB_COMPARE_RESAMPLES,
	    .threshold = AB_COMPARE_THRESHOLD, .refuse_mixed_paired = 1};
	enum ab_compare_format fmt = AB_CMP_TABLE;
	struct ab_strv metrics = {0}, keypaths = {0}, from = {0};
	struct ab_comparison *c = NULL;
	struct ab_key **keys = NULL;
	struct ab_derived *derived = NULL;
	size_t nkeys = 0, nderived = 0;
	int ch, rc;

	optind = 1;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":", longopts, NULL)) != -1) {
		switch (ch) {
		case 'n':
			o.name = optarg;
			break;
		case 'b':
			o.baseline = optarg;
			break;
		case 'm':
			if (!ab_metric_name_valid(optarg, strlen(optarg))) {
				ab_strv_free(&metrics);
				ab_strv_free(&from);
				ab_derived_free(derived, nderived);
				return ab_cmd_usage_error("compare", "--metric wants a metric name, not '%s'", optarg);
			}
			ab_strv_push(&metrics, optarg);
			break;
		case 'f':
			if (parse_format(&fmt, optarg) < 0) {
				ab_strv_free(&metrics);
				ab_strv_free(&from);
				ab_derived_free(derived, nderived);
				return ab_cmd_usage_error("compare", "--format wants table, csv, json or md, not '%s'", optarg);
			}
			break;
		case 'u':
			o.unpaired = 1;
			break;
		case 't':
			if (parse_percent(&o.threshold, optarg) < 0) {
				ab_strv_free(&metrics);
				ab_strv_free(&from);
				ab_derived_free(derived, nderived);
				return ab_cmd_usage_error("compare", "--threshold wants a percentage from 0 to 100, not '%s'",
				    optarg);
			}
			break;
		case 's': {
			char *end;

			errno = 0;
			o.seed = strtoull(optarg, &end, 10);
			if (end == optarg || *end || errno || *optarg == '-') {
				ab_strv_free(&metrics);
				ab_strv_free(&from);
				ab_derived_free(derived, nderived);
				return ab_cmd_usage_error("compare", "--seed wants a whole number, not '%s'", optarg);
			}
			break;
		}
		case 'r':
			if (ab_cmd_parse_int(&o.resamples, optarg, 100, 10000000) < 0) {
				ab_strv_free(&metrics);
				ab_strv_free(&from);
				ab_derived_free(derived, nderived);
				return ab_cmd_usage_error("compare", "--resamples wants a number from 100 to 10000000, not '%s'",
				    optarg);
			}
			break;
		case 'S':
			ab_strv_push(&keypaths, optarg);
			break;
		case 'F':
			ab_strv_push(&from, optarg);
			break;
		case 'H':
		case 'P':
			if (o.hosts != AB_HOSTS_REFUSE && o.hosts != (ch == 'H' ? AB_HOSTS_SPLIT : AB_HOSTS_POOL)) {
				ab_strv_free(&metrics);
				ab_strv_free(&keypaths);
				ab_strv_free(&from);
				ab_derived_free(derived, nderived);
				return ab_cmd_usage_error("compare", "--by-host and --pool-hosts exclude each other");
			}
			o.hosts = ch == 'H' ? AB_HOSTS_SPLIT : AB_HOSTS_POOL;
			break;
		case 'D':
		case 'M':
			if ((ch == 'D' ? ab_derived_add(&derived, &nderived, optarg) :
			    ab_derived_read_file(&derived, &nderived, optarg)) < 0) {
				ab_strv_free(&metrics);
				ab_strv_free(&from);
				ab_strv_free(&keypaths);
				ab_derived_free(derived, nderived);
				return AB_EXIT_USAGE;
			}
			break;
		default:
			ab_strv_free(&metrics);
			ab_strv_free(&from);
			ab_strv_free(&keypaths);
			ab_derived_free(derived, nderived);
			return ab_cmd_option_error("compare", ch, argv);
		}
	}
	if (argc - optind != 1) {
		ab_strv_free(&metrics);
		ab_strv_free(&from);
		ab_derived_free(derived, nderived);
		return ab_cmd_usage_error("compare", argc - optind < 1 ? "missing OUTDIR" : "one OUTDIR only");
	}
	if (!ab_is_dir(argv[optind])) {
		ab_strv_free(&metrics);
		ab_strv_free(&from);
		ab_derived_free(derived, nderived);
		ab_error("compare: '%s' is not a directory", argv[optind]);
		return AB_EXIT_USAGE;
	}
	o.outdir = argv[optind];
	o.metrics = metrics.v;
	o.nmetrics = metrics.n;
	o.derived = derived;
	o.nderived = nderived;
	o.runs_from = from.v;
	o.nruns_from = from.n;
	for (size_t i = 0; i < from.n; i++)
		if (!ab_is_dir(from.v[i])) {
			ab_error("compare: --runs-from '%s' is not a directory", from.v[i]);
			rc = AB_EXIT_USAGE;
			goto done;
		}
	if (from.n && keypaths.n) {
		/* a test result names the records it holds by their place in OUTDIR */
		rc = ab_cmd_usage_error("compare", "--sign signs the runs of OUTDIR alone: not with --runs-from");
		goto done;
	}
	/* the keys are read before anything is written */
	rc = keypaths.n ? ab_cmd_load_keys(&keys, &nkeys, keypaths.v, keypaths.n, 1) : 0;
	if (rc == 0)
		rc = ab_compare_load(&c, &o);
	if (rc == 0)
		rc = ab_compare_print(stdout, c, fmt);
	if (rc == 0 && nkeys) {
		fflush(stdout);
		rc = sign_results(&o, keys, nkeys);
	}
	if (rc == 0 && (ab_compare_unreliable(c) || ab_compare_failed(c) || ab_compare_hosts_bytes_differ(c)))
		rc = AB_ECHECK;
	rc = ab_cmd_exit(rc);
done:
	ab_compare_free(c);
	ab_derived_free(derived, nderived);
	ab_cmd_free_keys(keys, nkeys);
	ab_strv_free(&metrics);
	ab_strv_free(&keypaths);
	ab_strv_free(&from);
	return rc;
}

const struct ab_cmd ab_cmd_compare = {"compare",
    "compare the recorded runs: medians, ratios with intervals, U tests, verdicts, the A/A control", usage,
    cmd_compare};
