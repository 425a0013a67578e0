/* cmdopts: the options fetch, plan, build and rebuild share (cmdopts.h) */
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "cmdopts.h"
#include "../builder/plan.h"
#include "../builder/source.h"
#include "../lib/redact.h"
#include "../lib/util.h"
#include "../provenance/record/ccstats.h"

int
ab_cmd_source_option(struct ab_source_opts *o, int opt, const char *arg)
{
	switch (opt) {
	case AB_OPT_CACHE:
		if (!arg[0]) {
			ab_error("--cache: empty directory name");
			return -1;
		}
		free(o->cache_dir);
		o->cache_dir = ab_strdup(arg);
		return 1;
	case AB_OPT_MIRROR:
		if (!strchr(arg, '=') || arg[0] == '=' || strchr(arg, '=')[1] == '\0') {
			char *shown = ab_url_redact(arg);

			ab_error("--mirror: expected FROM=TO, got '%s'", shown);
			free(shown);
			return -1;
		}
		ab_strv_push(&o->mirrors, arg);
		return 1;
	case AB_OPT_MIRROR_DIR:
		if (!ab_is_dir(arg)) {
			ab_error("--mirror-dir: '%s' is not a directory", arg);
			return -1;
		}
		ab_strv_push_owned(&o->mirror_dirs, ab_path_absolute(arg));
		return 1;
	case AB_OPT_ALLOW_UNPINNED:
		o->allow_unpinned = 1;
		return 1;
	}
	return 0;
}

int
ab_cmd_plan_option(struct ab_plan_opts *o, const char *cmd, int opt, const char *arg)
{
	switch (opt) {
	case 'o':
		o->outdir = arg;
		return 1;
	case 'j':
		return ab_cmd_parse_jobs(&o->jobs, cmd, arg) < 0 ? -1 : 1;
	case AB_OPT_CCACHE:
		o->ccache = 1;
		return 1;
	case AB_OPT_CCACHE_REMOTE: {
		char why[160];

		if (ab_ccstats_remote_check(arg, why, sizeof(why)) < 0) {
			char *shown = ab_url_redact(arg);

			ab_cmd_usage_error(cmd, "--ccache-remote '%s': %s", shown, why);
			free(shown);
			return -1;
		}
		o->ccache = 1;
		o->ccache_remote = arg;
		return 1;
	}
	case AB_OPT_CCACHE_DIR:
		if (!*arg) {
			ab_cmd_usage_error(cmd, "--ccache-dir: an empty directory name");
			return -1;
		}
		o->ccache = 1;
		o->ccache_dir = arg;
		return 1;
	case AB_OPT_NO_SANDBOX:
		o->no_sandbox = 1;
		return 1;
	case AB_OPT_DERIVE:
		o->derive = 1;
		return 1;
	default:
		return 0;
	}
}
