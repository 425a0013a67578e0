/*
 * allocbuild probe [--allocator jemalloc|mimalloc] [--env K=V]... [--unset K]...
 *                  [--timeout SECONDS] [--json] -- PROGRAM [ARGS...]
 * allocbuild probe [options] --archive LIB.a [--workdir DIR]
 * Run PROGRAM (or a tiny program linked statically against LIB.a) under
 * the allocator's own reporting and print the settings in effect
 * (docs/probes.md). Exit 0: no problem; 1: invalid or unknown
 * settings, or an override did not take effect; 2: usage, or the program
 * cannot run.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "../builder/recipe.h"
#include "../lib/util.h"
#include "../lib/jsonio.h"
#include "../provenance/probe.h"

static void
kvlist_free(struct ab_kvlist *kv)
{
	for (size_t i = 0; i < kv->n; i++) {
		free(kv->v[i].key);
		free(kv->v[i].value);
	}
	free(kv->v);
}

static void
list_free(struct ab_list *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

static int
valid_name(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		    (i > 0 && s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

int
cmd_probe(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"allocator", required_argument, NULL, 'a'},
		{"env", required_argument, NULL, 'e'},
		{"unset", required_argument, NULL, 'u'},
		{"json", no_argument, NULL, 'j'},
		{"archive", required_argument, NULL, 'A'},
		{"workdir", required_argument, NULL, 'w'},
		{"timeout", required_argument, NULL, 't'},
		{NULL, 0, NULL, 0},
	};
	struct ab_probe_req req = {0};
	cJSON *rec = NULL;
	const char *archive = NULL, *workdir = NULL;
	char *tmpdir = NULL;
	int json = 0, c, rc = AB_EXIT_USAGE, error;
	const cJSON *it;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:", longopts, NULL)) != -1) {
		switch (c) {
		case 'a':
			if (strcmp(optarg, "jemalloc") && strcmp(optarg, "mimalloc")) {
				rc = ab_cmd_usage_error("probe", "unknown allocator '%s' (jemalloc or mimalloc)", optarg);
				goto done;
			}
			req.allocator = optarg;
			break;
		case 'e': {
			const char *eq = strchr(optarg, '=');

			if (!eq || !valid_name(optarg, (size_t)(eq - optarg))) {
				rc = ab_cmd_usage_error("probe", "--env wants NAME=VALUE, not '%s'", optarg);
				goto done;
			}
			req.env.v = ab_realloc(req.env.v, (req.env.n + 1) * sizeof(*req.env.v));
			req.env.v[req.env.n].key = ab_strndup(optarg, (size_t)(eq - optarg));
			req.env.v[req.env.n].value = ab_strdup(eq + 1);
			req.env.n++;
			break;
		}
		case 'u':
			if (!valid_name(optarg, strlen(optarg))) {
				rc = ab_cmd_usage_error("probe", "--unset wants a variable name, not '%s'", optarg);
				goto done;
			}
			req.unset.v = ab_realloc(req.unset.v, (req.unset.n + 2) * sizeof(*req.unset.v));
			req.unset.v[req.unset.n++] = ab_strdup(optarg);
			req.unset.v[req.unset.n] = NULL;
			break;
		case 'j':
			json = 1;
			break;
		case 'A':
			archive = optarg;
			break;
		case 'w':
			workdir = optarg;
			break;
		case 't': {
			char *end;

			req.timeout = strtod(optarg, &end);
			if (end == optarg || *end || !(req.timeout > 0) || req.timeout > 86400) {
				rc = ab_cmd_usage_error("probe", "--timeout wants a positive number of seconds, not '%s'", optarg);
				goto done;
			}
			break;
		}
		default:
			rc = ab_cmd_option_error("probe", c, argv);
			goto done;
		}
	}
	if (archive && optind < argc) {
		rc = ab_cmd_usage_error("probe", "--archive and a program to run exclude each other");
		goto done;
	}
	if (workdir && !archive) {
		rc = ab_cmd_usage_error("probe", "--workdir needs --archive");
		goto done;
	}
	if (!archive && optind >= argc) {
		rc = ab_cmd_usage_error("probe", "no program to run");
		goto done;
	}
	if (archive && !workdir) {
		const char *t = getenv("TMPDIR");

		tmpdir = ab_sprintf("%s/allocbuild-probe-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(tmpdir)) {
			ab_error_errno("probe: cannot create a directory '%s'", tmpdir);
			free(tmpdir);
			tmpdir = NULL;
			goto done;
		}
		workdir = tmpdir;
	}
	if (archive)
		error = ab_probe_archive(&rec, &req, archive, workdir);
	else
		error = ab_probe_program(&rec, &req, argv + optind);
	if (error < 0)
		goto done;
	/* the problems are diagnostics: on stderr, whatever the format on stdout */
	cJSON_ArrayForEach(it, cJSON_GetObjectItemCaseSensitive(rec, "problems"))
		ab_error("probe: %s", cJSON_GetObjectItemCaseSensitive(it, "message")->valuestring);
	if (json) {
		if (ab_json_print(stdout, rec) < 0)
			goto done;
	} else {
		ab_probe_print(stdout, rec);
	}
	rc = ab_probe_ok(rec) ? AB_EXIT_OK : AB_EXIT_CHECK;
done:
	if (tmpdir)
		ab_rm_rf(tmpdir);
	free(tmpdir);
	cJSON_Delete(rec);
	kvlist_free(&req.env);
	list_free(&req.unset);
	return rc;
}
