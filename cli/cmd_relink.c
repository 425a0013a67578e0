/*
 * allocbuild relink: the standalone form of a diagnostic relink
 * (docs/relink.md). The work is done by ab_relink_run() (relink.h), which
 * the build command shares for recipe relink variants; this file parses
 * the options, calls it, saves and prints the result and picks the exit
 * code.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../builder/relink.h"
#include "../lib/jsonio.h"
#include "../lib/proc.h"
#include "../lib/util.h"
#include "../lib/redact.h"
#include "../lib/version.h"

static const char usage[] =
    "allocbuild relink --link-txt PATH [--replace OLD=NEW]... [--layout-seed N] --output PATH\n"
    "                  [--build-dir DIR] [--provenance PATH] [--check-normal] [--dry-run] [--json]\n"
    "\n"
    "Run the link command of a CMake link.txt (parsed without a shell) from its\n"
    "build directory with every argument naming OLD replaced by NEW and -o set\n"
    "to the output: a diagnostic relink, never a distributable build. Writes\n"
    "relink-provenance.json next to the output: both argv, every input's\n"
    "SHA-256 on both sides and the verdict. --check-normal also links the\n"
    "unchanged command and records whether it reproduces the normal binary.\n"
    "--layout-seed N makes a layout control: the same inputs with the objects\n"
    "and each build-tree archive's members in the seeded order N (the archives\n"
    "copied to OUTPUT.archives/); it needs no --replace.\n"
    "Exit 1 when the link fails, 2 on bad input. See docs/relink.md.\n";

struct relink_opts {
	struct ab_relink_spec spec;
	struct ab_relink_replacement *reps;
	size_t nreps;
	const char *prov_path; /* --provenance, or NULL */
	int json;
};

/* 0, or the exit code of a usage error (reported) */
static int
parse_options(struct relink_opts *o, int argc, char **argv)
{
	static const struct option opts[] = {
		{"link-txt", required_argument, NULL, 'l'},
		{"replace", required_argument, NULL, 'r'},
		{"output", required_argument, NULL, 'o'},
		{"build-dir", required_argument, NULL, 'C'},
		{"provenance", required_argument, NULL, 'p'},
		{"dry-run", no_argument, NULL, 'n'},
		{"json", no_argument, NULL, 'j'},
		{"check-normal", no_argument, NULL, 'N'},
		{"layout-seed", required_argument, NULL, 'L'},
		{NULL, 0, NULL, 0},
	};
	int c;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		char *eq;

		switch (c) {
		case 'l':
			o->spec.link_txt = optarg;
			break;
		case 'r':
			eq = strchr(optarg, '=');
			if (!eq || eq == optarg || !eq[1])
				return ab_cmd_usage_error("relink", "--replace '%s': expected OLD=NEW", optarg);
			o->reps = ab_realloc(o->reps, (o->nreps + 1) * sizeof(*o->reps));
			*eq = '\0';
			o->reps[o->nreps].path = optarg;
			o->reps[o->nreps].with = eq + 1;
			o->nreps++;
			break;
		case 'o':
			o->spec.output = optarg;
			break;
		case 'C':
			o->spec.build_dir = optarg;
			break;
		case 'p':
			o->prov_path = optarg;
			break;
		case 'n':
			o->spec.dry_run = 1;
			break;
		case 'j':
			o->json = 1;
			break;
		case 'N':
			o->spec.check_normal = 1;
			break;
		case 'L': {
			int v;

			if (ab_cmd_parse_int(&v, optarg, 0, 1 << 30) < 0)
				return ab_cmd_usage_error("relink", "--layout-seed wants a whole number from 0, not '%s'", optarg);
			o->spec.layout = 1;
			o->spec.layout_seed = (uint64_t)v;
			break;
		}
		default:
			return ab_cmd_option_error("relink", c, argv);
		}
	}
	if (optind < argc)
		return ab_cmd_usage_error("relink", "unexpected argument '%s'", argv[optind]);
	if (!o->spec.link_txt)
		return ab_cmd_usage_error("relink", "--link-txt is required");
	if (!o->nreps && !o->spec.layout)
		return ab_cmd_usage_error("relink", "at least one --replace OLD=NEW (or --layout-seed N) is required");
	if (!o->spec.output)
		return ab_cmd_usage_error("relink", "--output is required");
	o->spec.replace = o->reps;
	o->spec.nreplace = o->nreps;
	o->spec.tool = AB_TOOL;
	return 0;
}

/* a dry run: where the link would run and its argv, quoted for a shell */
static void
print_dry_run(const cJSON *prov)
{
	const cJSON *a = ab_json_get(prov, "argv"), *it;
	struct ab_strv v = {0};
	char *q;

	cJSON_ArrayForEach(it, a)
		ab_strv_push(&v, it->valuestring);
	q = ab_argv_shown(ab_strv_argv(&v));
	printf("cwd: %s\nargv: %s\n", ab_json_str(prov, "cwd"), q);
	free(q);
	ab_strv_free(&v);
}

static int
print_result(const cJSON *prov, const struct relink_opts *o, const char *prov_path)
{
	if (o->json) {
		if (ab_json_print(stdout, prov) < 0)
			return AB_EFAIL;
	} else if (o->spec.dry_run) {
		print_dry_run(prov);
	} else {
		char *out = ab_path_absolute(o->spec.output);

		printf("output: %s\nprovenance: %s\nkind: diagnostic relink\nverdict: %s\n", out, prov_path,
		    ab_json_str(prov, "verdict"));
		free(out);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ab_error_errno("cannot write to standard output");
		return AB_EFAIL;
	}
	return 0;
}

static int
cmd_relink(int argc, char **argv)
{
	struct relink_opts o = {0};
	struct ab_env env = {0};
	char *prov_path = NULL;
	cJSON *prov = NULL;
	int rc;

	if ((rc = parse_options(&o, argc, argv)) != 0) {
		free(o.reps);
		return rc;
	}
	ab_env_scrubbed(&env);
	o.spec.env = &env;
	prov_path = o.prov_path ? ab_strdup(o.prov_path) : ab_relink_provenance_path(o.spec.output);
	o.spec.provenance = prov_path;
	rc = ab_relink_run(&prov, &o.spec);
	if (rc == 0 && !o.spec.dry_run)
		rc = ab_relink_save(prov, prov_path, o.spec.output);
	if (rc == 0)
		rc = print_result(prov, &o, prov_path);
	cJSON_Delete(prov);
	ab_env_release(&env);
	free(o.reps);
	free(prov_path);
	return ab_cmd_exit(rc);
}

const struct ab_cmd ab_cmd_relink = {"relink", "relink a CMake link.txt with another allocator archive", usage, cmd_relink};
