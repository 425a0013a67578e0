/*
 * allocbuild probe [--allocator NAME] [--env K=V]... [--unset K]...
 *                  [--timeout SECONDS] [--json] -- PROGRAM [ARGS...]
 * allocbuild probe [options] --archive LIB.a [--workdir DIR]
 * Run PROGRAM (or a tiny program linked statically against LIB.a) under
 * the allocator's own reporting and print the settings in effect
 * (docs/probes.md). Exit 0: no problem; 1: invalid or unknown
 * settings, or an override did not take effect; 2: usage, or the program
 * cannot run.
 */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../lib/proc.h"
#include "../lib/util.h"
#include "../lib/jsonio.h"
#include "../provenance/alloc/allocreg.h"
#include "../provenance/probe/probe.h"

static const char usage[] =
    "allocbuild probe [--allocator NAME] [--env K=V]... [--unset K]... [--timeout SECONDS] [--json] -- PROGRAM [ARGS...]\n"
    "allocbuild probe [--allocator NAME] [--env K=V]... [--json] --archive LIB.a [--workdir DIR]\n"
    "allocbuild probe --pid PID [--pid PID]... [--against OUTDIR|BUNDLE [--expect LABEL]] [--json] [-o FILE]\n"
    "\n"
    "Run PROGRAM (or a tiny program linked statically against LIB.a) with the\n"
    "allocator's own reporting on (jemalloc stats_print, MIMALLOC_VERBOSE=1,\n"
    "tcmalloc's MallocExtension, glibc's ld.so --list-tunables) and report the\n"
    "settings in effect: version, build-time malloc_conf, every opt.*, mimalloc\n"
    "option or tunable, quantum, page size, secure level. NAME is an allocator\n"
    "of the registry (detected when not given). Checks each --env\n"
    "setting against what the allocator reports. Exit 1 on invalid, unknown or\n"
    "ineffective settings. A run is killed after --timeout seconds (60).\n"
    "With --pid, inspect running processes from /proc instead, never stopping or\n"
    "signalling them: the executable and its SHA-256, every allocator in the\n"
    "process (linked in, mapped, preloaded), its allocator environment checked\n"
    "against the options of the allocator version found, start time and host;\n"
    "--against names the variant it is. -o writes the JSON record atomically.\n"
    "Exit 1 when a process runs two allocators, settings its allocator ignores,\n"
    "or not the --expect variant; 2 when a pid cannot be read (and why).\n"
    "See docs/probes.md.\n";

struct options {
	struct ab_probe_req req;
	const char *archive, *workdir;
	int json;
	struct ab_strv pids;      /* --pid */
	struct ab_probe_pid_opts pid;
	const char *output;       /* -o: the JSON record */
};

/* the options before PROGRAM into o; optind is left at PROGRAM; 2 after reporting */
static int
parse_options(struct options *o, int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'},
		{"env", required_argument, NULL, 'e'},
		{"unset", required_argument, NULL, 'u'},
		{"json", no_argument, NULL, 'j'},
		{"archive", required_argument, NULL, 'A'},
		{"workdir", required_argument, NULL, 'w'},
		{"timeout", required_argument, NULL, 't'},
		{"pid", required_argument, NULL, 'p'},
		{"against", required_argument, NULL, 'g'},
		{"expect", required_argument, NULL, 'x'},
		{"output", required_argument, NULL, 'o'},
		{NULL, 0, NULL, 0},
	};
	int c;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:o:", longopts, NULL)) != -1) {
		const char *eq;
		char *end;

		switch (c) {
		case 'a':
			if (!ab_allockind_find(optarg))
				return ab_cmd_usage_error("probe", "unknown allocator '%s' (%s)", optarg,
				    ab_allockind_names(NULL, " or "));
			o->req.allocator = optarg;
			break;
		case 'e':
			eq = strchr(optarg, '=');
			if (!eq || !ab_env_name_valid(optarg, (size_t)(eq - optarg)))
				return ab_cmd_usage_error("probe", "--env wants NAME=VALUE, not '%s'", optarg);
			{
				char *k = ab_strndup(optarg, (size_t)(eq - optarg));

				ab_kvlist_add(&o->req.env, k, eq + 1);
				free(k);
			}
			break;
		case 'u':
			if (!ab_env_name_valid(optarg, strlen(optarg)))
				return ab_cmd_usage_error("probe", "--unset wants a variable name, not '%s'", optarg);
			ab_list_add(&o->req.unset, optarg);
			break;
		case 'j':
			o->json = 1;
			break;
		case 'A':
			o->archive = optarg;
			break;
		case 'w':
			o->workdir = optarg;
			break;
		case 't':
			o->req.timeout = strtod(optarg, &end);
			if (end == optarg || *end || !(o->req.timeout > 0) || o->req.timeout > 86400)
				return ab_cmd_usage_error("probe", "--timeout wants a positive number of seconds, not '%s'",
				    optarg);
			break;
		case 'p': {
			int pid;

			if (ab_cmd_parse_int(&pid, optarg, 1, INT_MAX) < 0)
				return ab_cmd_usage_error("probe", "--pid wants a process id, not '%s'", optarg);
			ab_strv_push(&o->pids, optarg);
			break;
		}
		case 'g':
			o->pid.against = optarg;
			break;
		case 'x':
			o->pid.expect = optarg;
			break;
		case 'o':
			o->output = optarg;
			break;
		default:
			return ab_cmd_option_error("probe", c, argv);
		}
	}
	if (o->pids.n) {
		if (o->archive || optind < argc || o->req.env.n || o->req.unset.n || o->req.allocator)
			return ab_cmd_usage_error("probe", "--pid inspects running processes: it takes no program, "
			    "--archive, --env, --unset or --allocator");
		if (o->pid.expect && !o->pid.against)
			return ab_cmd_usage_error("probe", "--expect needs --against OUTDIR|BUNDLE");
		return 0;
	}
	if (o->pid.against || o->pid.expect || o->output)
		return ab_cmd_usage_error("probe", "--against, --expect and -o go with --pid");
	if (o->archive && optind < argc)
		return ab_cmd_usage_error("probe", "--archive and a program to run exclude each other");
	if (o->workdir && !o->archive)
		return ab_cmd_usage_error("probe", "--workdir needs --archive");
	if (!o->archive && optind >= argc)
		return ab_cmd_usage_error("probe", "no program to run");
	return 0;
}

/* --pid: every process, one record each (an array for several); 2 when one cannot be read */
static int
probe_pids(const struct options *o)
{
	cJSON *all = cJSON_CreateArray();
	int rc = AB_EXIT_OK;

	for (size_t i = 0; i < o->pids.n; i++) {
		cJSON *rec = NULL;
		int e = ab_probe_pid(&rec, atoi(o->pids.v[i]), &o->pid);
		const cJSON *it;

		if (e == AB_EFAIL) {
			rc = AB_EXIT_USAGE;
			continue;
		}
		cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "problems"))
			ab_error("probe: pid %s: %s", o->pids.v[i],
			    ab_json_str(it, "message") ? ab_json_str(it, "message") : "a problem without a message");
		if (e == AB_ECHECK && rc == AB_EXIT_OK)
			rc = AB_EXIT_CHECK;
		if (!o->json) {
			if (i > 0)
				putchar('\n');
			ab_probe_pid_print(stdout, rec);
		}
		cJSON_AddItemToArray(all, rec);
	}
	if (o->pids.n == 1 && cJSON_GetArraySize(all) == 1) {
		cJSON *one = cJSON_DetachItemFromArray(all, 0);

		cJSON_Delete(all);
		all = one;
	}
	if (o->json && ab_json_print(stdout, all) < 0)
		rc = AB_EXIT_USAGE;
	if (o->output && ab_json_write(o->output, all) < 0)
		rc = AB_EXIT_USAGE;
	cJSON_Delete(all);
	return rc;
}

static int
cmd_probe(int argc, char **argv)
{
	struct options o = {0};
	cJSON *rec = NULL;
	struct ab_probe_result *res = NULL;
	int rc;

	rc = parse_options(&o, argc, argv);
	if (rc)
		goto done;
	if (o.pids.n) {
		rc = probe_pids(&o);
		goto done;
	}
	rc = AB_EXIT_USAGE;
	if (o.archive ? ab_probe_archive(&rec, &o.req, o.archive, o.workdir) < 0
	              : ab_probe_program(&rec, &o.req, argv + optind) < 0)
		goto done;
	res = ab_probe_result_new(rec);
	rec = NULL;
	if (!res)
		goto done;
	/* the problems are diagnostics: on stderr, whatever the format on stdout */
	for (size_t i = 0; i < res->nproblems; i++)
		ab_error("probe: %s", res->problems[i].message);
	if (o.json) {
		if (ab_json_print(stdout, res->report) < 0)
			goto done;
	} else {
		ab_probe_print(stdout, res->report);
	}
	rc = res->ok ? AB_EXIT_OK : AB_EXIT_CHECK;
done:
	ab_probe_result_free(res);
	cJSON_Delete(rec);
	ab_kvlist_free(&o.req.env);
	ab_list_free(&o.req.unset);
	ab_strv_free(&o.pids);
	return rc;
}

const struct ab_cmd ab_cmd_probe = {"probe", "report the allocator settings in effect in a program", usage, cmd_probe};
