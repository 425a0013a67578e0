/*
 * allocbuild run OUTDIR LABEL... [--name NAME] [--repeat N] [--rotate]
 *     [--junit PATH] [--timeout S] [--env NAME=VALUE]... [--sample-ms MS]
 *     [--sample-comm NAME] [--sample-pss] [--mark-start REGEX] [--mark REGEX]
 *     [--cooldown S] [--cpus LIST] [--cell CELL] [--program PATH] [--env-pad BYTES]
 *     [--allocator-stats] -- COMMAND [ARG...]
 * allocbuild run --env-only
 *
 * Run a benchmark or verification command once per label and repetition
 * with the label's runtime environment, and record each run under
 * OUTDIR/runs/NAME/ (builder/run.h, docs/runs.md).
 */
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../builder/run.h"
#include "../lib/proc.h"
#include "../lib/util.h"
#include "../provenance/runs/metrics.h"

enum { OPT_OLD_SET = 0x1200, OPT_JSON, OPT_ENV_PAD, OPT_ALLOC_STATS };

static const char usage[] =
    "allocbuild run OUTDIR LABEL... [--name NAME] [--repeat N] [--rotate] [--junit PATH]\n"
    "               [--timeout S] [--env NAME=VALUE]... [--cache DIR] [--rehash]\n"
    "               [--sample-ms MS] [--sample-comm NAME] [--sample-pss]\n"
    "               [--mark-start REGEX] [--mark REGEX] [--cooldown S]\n"
    "               [--cpus LIST] [--cell CELL] [--program PATH] [--env-pad BYTES]\n"
    "               [--allocator-stats] [--json] -- COMMAND [ARG...]\n"
    "allocbuild run --env-only\n"
    "\n"
    "Run COMMAND (never through a shell) once per LABEL, N times each (--repeat,\n"
    "default 1; --rotate: a b c, b c a, c a b), with exactly the runtime\n"
    "environment `allocbuild env OUTDIR LABEL` prints (the inherited MALLOC_CONF,\n"
    "*_MALLOC_CONF, MIMALLOC_* and LD_PRELOAD removed unless the label sets them),\n"
    "ALLOCBUILD_LABEL, ALLOCBUILD_BIN (the label's program artifact, when it has\n"
    "one) and ALLOCBUILD_ARCHIVE (its allocator archive, when it has one) set,\n"
    "and --env NAME=VALUE on top (--set, its old name, still works). In ARGs\n"
    "and --env values, {bin} stands for the program and {label} for the label.\n"
    "The output goes to the terminal\n"
    "and to OUTDIR/runs/NAME/NNNN-LABEL.log (with --json to the log only: stdout\n"
    "then holds one document, {\"outdir\", \"name\", \"runs\": [{\"record\",\n"
    "\"label\", \"repetition\", \"result\", \"exit_code\", \"wall_s\",\n"
    "\"steady_rss_kib\", \"peak_rss_kib\", \"cooldown_rss_kib\"}], \"failed\"}, and -q\n"
    "keeps the per-run lines back); each run's record,\n"
    "NNNN-LABEL.intoto.json (an in-toto Statement), holds argv, cwd, the variables\n"
    "set and removed, the artifact's digest, times, exit status, CPU and peak RSS\n"
    "of the child tree, the run environment and, with --junit, the summary of the\n"
    "JUnit report the command wrote (kept as NNNN-LABEL.junit.xml). SHA256SUMS\n"
    "lists every file; verify checks them. NAME defaults to COMMAND's base name.\n"
    "--timeout kills the command past S seconds. Before the first run each\n"
    "label's artifact is checked against the build's digest: hashed, or taken\n"
    "from the digest cache in DIR (--cache, ALLOCBUILD_CACHE, else\n"
    "$XDG_CACHE_HOME/allocbuild) when the file's device, inode, size, mtime and\n"
    "ctime are those it had when last hashed; --rehash always hashes. The record\n"
    "says which (artifact.checked_by). What ran is hashed too: the program COMMAND\n"
    "resolves to and each argument naming an existing file (by its path in OUTDIR,\n"
    "else its base name, with its digest); a program that is no artifact of\n"
    "OUTDIR is warned about. --program PATH names the program that runs (a copy\n"
    "is kept under runs/NAME/programs/ unless it is an artifact): the records'\n"
    "subject. --env-pad BYTES varies the size of the environment over the\n"
    "repetitions, from 0 to BYTES evenly (ALLOCBUILD_ENV_PAD, recorded as env_pad),\n"
    "a layout control: the stack's alignment moves with it. --allocator-stats asks\n"
    "each label's allocator for its statistics at exit (jemalloc: stats_print as\n"
    "JSON in its conf variable; mimalloc: MIMALLOC_SHOW_STATS=1), read back out of\n"
    "the log into the record (allocator_stats, bytes) and its figures\n"
    "(jemalloc.resident_mib, mimalloc.committed_mib, ...): a setting of the\n"
    "allocator, recorded with the variables set; compare never pools such runs\n"
    "with runs without it. --env-only prints the run environment as JSON and\n"
    "runs nothing.\n"
    "While COMMAND runs, its process tree is sampled from /proc every MS\n"
    "milliseconds (--sample-ms, default 50; 0 turns sampling off): RSS, CPU time,\n"
    "page faults, threads, with --sample-pss PSS and anonymous memory too, and\n"
    "with --sample-comm NAME the RSS of the processes named NAME apart (the\n"
    "figures then use theirs). The series goes to NNNN-LABEL.series.csv; the\n"
    "record keeps steady RSS (the median in the measured window), sampled peak,\n"
    "cooldown RSS, RSS GiB*s, CPU and faults. The window runs from the start (or\n"
    "the first output line matching --mark-start) to the command's end (or the\n"
    "first line matching --mark after it); --cooldown S reads the RSS S seconds\n"
    "after the window, sampling what the command left running until then and\n"
    "ending it. --cpus runs COMMAND with that CPU affinity. Output lines\n"
    "\"ALLOCBUILD_METRIC NAME=VALUE [UNIT] [cell=CELL] [better=higher|lower]\" are\n"
    "the driver's own figures, kept in the record; --cell names the cell of the\n"
    "runs' figures. allocbuild compare turns the records into tables.\n"
    "Exit 0 every command exited 0, 1 one did not (or was interrupted, or an\n"
    "artifact changed since the build: nothing runs then), 2 bad input (nothing\n"
    "is recorded) or a JUnit report the command did not write. See docs/runs.md.\n";

static const struct option longopts[] = {
	{"name", required_argument, NULL, 'n'},
	{"repeat", required_argument, NULL, 'r'},
	{"rotate", no_argument, NULL, 'R'},
	{"junit", required_argument, NULL, 'j'},
	{"timeout", required_argument, NULL, 't'},
	{"env", required_argument, NULL, 's'},
	{"set", required_argument, NULL, OPT_OLD_SET}, /* the old name of --env, warned */
	{"env-only", no_argument, NULL, 'E'},
	{"cache", required_argument, NULL, 'c'},
	{"rehash", no_argument, NULL, 'H'},
	{"sample-ms", required_argument, NULL, 'S'},
	{"sample-comm", required_argument, NULL, 'C'},
	{"sample-pss", no_argument, NULL, 'P'},
	{"mark-start", required_argument, NULL, 'M'},
	{"mark", required_argument, NULL, 'm'},
	{"cooldown", required_argument, NULL, 'D'},
	{"cpus", required_argument, NULL, 'u'},
	{"cell", required_argument, NULL, 'L'},
	{"program", required_argument, NULL, 'p'},
	{"json", no_argument, NULL, OPT_JSON},
	{"env-pad", required_argument, NULL, OPT_ENV_PAD},
	{"allocator-stats", no_argument, NULL, OPT_ALLOC_STATS},
	{NULL, 0, NULL, 0},
};

/* option c of getopt_long into o (--env into sets): 0, or the exit status of a usage error (reported) */
static int
run_option(int c, struct ab_run_opts *o, struct ab_strv *sets, int *env_only, int *old_set, char **argv)
{
	char *end;

	switch (c) {
	case 'n':
		o->name = optarg;
		break;
	case 'r':
		if (ab_cmd_parse_int(&o->repeat, optarg, 1, 100000) < 0)
			return ab_cmd_usage_error("run", "--repeat wants a number from 1 to 100000, not '%s'", optarg);
		break;
	case 'R':
		o->rotate = 1;
		break;
	case 'j':
		o->junit = optarg;
		break;
	case 't':
		o->timeout = strtod(optarg, &end);
		if (end == optarg || *end || !(o->timeout > 0) || o->timeout > 7 * 86400)
			return ab_cmd_usage_error("run", "--timeout wants a positive number of seconds, not '%s'", optarg);
		break;
	case OPT_OLD_SET:
		if (!(*old_set)++)
			ab_warn("run --set is deprecated: set a variable for the command with --env NAME=VALUE, "
			    "as probe does");
		/* fall through */
	case 's': {
		const char *eq = strchr(optarg, '=');

		if (!eq || !ab_env_name_valid(optarg, (size_t)(eq - optarg)))
			return ab_cmd_usage_error("run", "--env wants NAME=VALUE, not '%s'", optarg);
		ab_strv_push(sets, optarg);
		break;
	}
	case 'E':
		*env_only = 1;
		break;
	case 'c':
		o->cache_dir = optarg;
		break;
	case 'H':
		o->rehash = 1;
		break;
	case 'S':
		if (ab_cmd_parse_int(&o->sample_ms, optarg, 0, 60000) < 0)
			return ab_cmd_usage_error("run", "--sample-ms wants milliseconds from 0 to 60000, not '%s'", optarg);
		break;
	case 'C':
		if (!*optarg || strlen(optarg) > 15 || strchr(optarg, '/'))
			return ab_cmd_usage_error("run", "--sample-comm wants a process name as /proc shows it "
			    "(1 to 15 bytes, no '/'), not '%s'", optarg);
		o->sample_comm = optarg;
		break;
	case 'P':
		o->sample_pss = 1;
		break;
	case 'M':
		o->mark_start = optarg;
		break;
	case 'm':
		o->mark = optarg;
		break;
	case 'D':
		o->cooldown = strtod(optarg, &end);
		if (end == optarg || *end || !(o->cooldown > 0) || o->cooldown > 86400)
			return ab_cmd_usage_error("run", "--cooldown wants a positive number of seconds, not '%s'", optarg);
		break;
	case 'u':
		o->cpus = optarg;
		break;
	case 'L':
		if (!ab_metric_cell_valid(optarg, strlen(optarg)))
			return ab_cmd_usage_error("run", "--cell wants 1 to 64 printable characters without spaces, "
			    "not '%s'", optarg);
		o->cell = optarg;
		break;
	case OPT_JSON:
		o->json = 1;
		break;
	case OPT_ALLOC_STATS:
		o->allocator_stats = 1;
		break;
	case OPT_ENV_PAD:
		if (ab_cmd_parse_int(&o->env_pad, optarg, 1, 65536) < 0)
			return ab_cmd_usage_error("run", "--env-pad wants a number of bytes from 1 to 65536, not '%s'", optarg);
		break;
	case 'p':
		if (!*optarg)
			return ab_cmd_usage_error("run", "--program wants the path of the program that runs");
		o->program = optarg;
		break;
	default:
		return ab_cmd_option_error("run", c, argv);
	}
	return 0;
}

static int
cmd_run(int argc, char **argv)
{
	struct ab_run_opts o = {.repeat = 1, .sample_ms = 50};
	struct ab_strv sets = {0};
	int c, dashes = -1, env_only = 0, rc = 0, old_set = 0;

	for (int i = 1; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			dashes = i;
			break;
		}
	optind = 1;
	opterr = 0;
	while (!rc && (c = getopt_long(dashes < 0 ? argc : dashes, argv, ":", longopts, NULL)) != -1)
		rc = run_option(c, &o, &sets, &env_only, &old_set, argv);
	if (rc) {
		ab_strv_free(&sets);
		return rc;
	}
	if (env_only) {
		ab_strv_free(&sets);
		if (optind != (dashes < 0 ? argc : dashes) || dashes >= 0)
			return ab_cmd_usage_error("run", "--env-only takes no OUTDIR, LABEL or COMMAND");
		return ab_cmd_exit(ab_run_env_only(stdout));
	}
	if (!o.sample_ms && (o.sample_comm || o.sample_pss || o.mark_start || o.mark || o.cooldown > 0)) {
		ab_strv_free(&sets);
		return ab_cmd_usage_error("run", "--sample-comm, --sample-pss, --mark-start, --mark and --cooldown "
		    "need sampling: not with --sample-ms 0");
	}
	if (dashes < 0) {
		ab_strv_free(&sets);
		return ab_cmd_usage_error("run", "missing '--' before COMMAND");
	}
	if (dashes - optind < 2 || dashes + 1 >= argc) {
		ab_strv_free(&sets);
		return ab_cmd_usage_error("run", dashes - optind < 1 ? "missing OUTDIR" :
		    dashes - optind < 2 ? "missing LABEL" : "missing COMMAND after '--'");
	}
	if (!ab_is_dir(argv[optind])) {
		ab_strv_free(&sets);
		ab_error("run: '%s' is not a directory", argv[optind]);
		return AB_EXIT_USAGE;
	}
	o.outdir = argv[optind];
	o.labels = argv + optind + 1;
	o.nlabels = (size_t)(dashes - optind - 1);
	o.sets = sets.v;
	o.nsets = sets.n;
	o.argv = argv + dashes + 1;
	rc = ab_run(&o);
	ab_strv_free(&sets);
	/* interrupted: the record is written; end as the signal would have ended us */
	if (ab_proc_caught()) {
		int sig = ab_proc_caught();

		fflush(stdout);
		signal(sig, SIG_DFL);
		raise(sig);
	}
	return ab_cmd_exit(rc);
}

const struct ab_cmd ab_cmd_run = {"run", "run a benchmark or verification command per variant and record each run",
    usage, cmd_run};
