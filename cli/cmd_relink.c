/*
 * allocbuild relink: the standalone form of a diagnostic relink
 * (docs/relink.md). The work is done by ab_relink_run() (relink.h), which
 * the build command shares for recipe relink variants.
 */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/jsonio.h"
#include "cmd.h"
#include "../lib/proc.h"
#include "../builder/relink.h"
#include "../lib/util.h"
#include "../lib/version.h"

static const char usage[] =
    "allocbuild relink --link-txt PATH --replace OLD=NEW [--replace OLD=NEW]... --output PATH\n"
    "                  [--build-dir DIR] [--provenance PATH] [--check-normal] [--dry-run] [--json]\n"
    "\n"
    "Run the link command of a CMake link.txt (parsed without a shell) from its\n"
    "build directory with every argument naming OLD replaced by NEW and -o set\n"
    "to the output: a diagnostic relink, never a distributable build. Writes\n"
    "relink-provenance.json next to the output: both argv, every input's\n"
    "SHA-256 on both sides and the verdict. --check-normal also links the\n"
    "unchanged command and records whether it reproduces the normal binary.\n"
    "Exit 1 when the link fails, 2 on bad input. See docs/relink.md.\n";

static int
cmd_relink(int argc, char **argv)
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
		{NULL, 0, NULL, 0},
	};
	struct ab_relink_replacement *reps = NULL;
	struct ab_relink_spec spec = {0};
	const char *prov_path = NULL;
	char *prov_default = NULL, *out_abs = NULL;
	struct ab_env env = {0};
	int json = 0, c, r, rc = AB_EXIT_USAGE;
	size_t nreps = 0;
	cJSON *prov = NULL;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:", opts, NULL)) != -1) {
		switch (c) {
		case 'l':
			spec.link_txt = optarg;
			break;
		case 'r': {
			char *eq = strchr(optarg, '=');

			if (!eq || eq == optarg || !eq[1]) {
				rc = ab_cmd_usage_error("relink", "--replace '%s': expected OLD=NEW", optarg);
				goto done;
			}
			reps = ab_realloc(reps, (nreps + 1) * sizeof(*reps));
			*eq = '\0';
			reps[nreps].path = optarg;
			reps[nreps].with = eq + 1;
			nreps++;
			break;
		}
		case 'o':
			spec.output = optarg;
			break;
		case 'C':
			spec.build_dir = optarg;
			break;
		case 'p':
			prov_path = optarg;
			break;
		case 'n':
			spec.dry_run = 1;
			break;
		case 'j':
			json = 1;
			break;
		case 'N':
			spec.check_normal = 1;
			break;
		default:
			rc = ab_cmd_option_error("relink", c, argv);
			goto done;
		}
	}
	if (optind < argc) {
		rc = ab_cmd_usage_error("relink", "unexpected argument '%s'", argv[optind]);
		goto done;
	}
	if (!spec.link_txt) {
		rc = ab_cmd_usage_error("relink", "--link-txt is required");
		goto done;
	}
	if (!nreps) {
		rc = ab_cmd_usage_error("relink", "at least one --replace OLD=NEW is required");
		goto done;
	}
	if (!spec.output) {
		rc = ab_cmd_usage_error("relink", "--output is required");
		goto done;
	}
	spec.replace = reps;
	spec.nreplace = nreps;
	spec.tool = AB_TOOL;
	ab_env_scrubbed(&env);
	spec.env = &env;
	out_abs = ab_path_absolute(spec.output);
	if (!prov_path) {
		char *dir = ab_path_dirname(out_abs);

		prov_default = ab_path_join(dir, "relink-provenance.json");
		free(dir);
		prov_path = prov_default;
	}

	r = ab_relink_run(&prov, &spec);
	if (r == AB_RELINK_ELINK) {
		rc = AB_EXIT_CHECK;
		goto done;
	}
	if (r < 0)
		goto done;
	if (spec.dry_run) {
		if (json) {
			if (ab_json_print(stdout, prov) < 0)
				goto done;
		} else {
			cJSON *a = cJSON_GetObjectItemCaseSensitive(prov, "argv");
			struct ab_strv v = {0};
			const cJSON *it;
			char *q;

			cJSON_ArrayForEach(it, a)
				ab_strv_push(&v, it->valuestring);
			q = ab_argv_quote(ab_strv_argv(&v));
			printf("cwd: %s\nargv: %s\n", ab_json_str(prov, "cwd"), q);
			free(q);
			ab_strv_free(&v);
		}
	} else {
		if (ab_json_write(prov_path, prov) < 0) {
			/* a binary without its provenance would pass for something it is not */
			unlink(out_abs);
			goto done;
		}
		if (json) {
			if (ab_json_print(stdout, prov) < 0)
				goto done;
		} else {
			printf("output: %s\nprovenance: %s\nkind: diagnostic relink\nverdict: %s\n", out_abs, prov_path,
			    ab_json_str(prov, "verdict"));
		}
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ab_error_errno("cannot write to standard output");
		goto done;
	}
	rc = AB_EXIT_OK;
done:
	cJSON_Delete(prov);
	ab_env_release(&env);
	free(reps);
	free(prov_default);
	free(out_abs);
	return rc;
}

const struct ab_cmd ab_cmd_relink = {"relink", "relink a CMake link.txt with another allocator archive", usage, cmd_relink};
