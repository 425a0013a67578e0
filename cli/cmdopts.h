/*
 * cmdopts: the options several commands share, parsed here, in the
 * command layer, into the plain structs the builder takes
 * (struct ab_source_opts, struct ab_plan_opts).
 *
 *   static const struct option longopts[] = {AB_PLAN_LONGOPTS, AB_SOURCE_LONGOPTS, ...};
 *   while ((c = getopt_long(argc, argv, ":o:j:", longopts, NULL)) != -1) {
 *           h = ab_cmd_plan_option(&po, "build", c, optarg);
 *           if (h == 0)
 *                   h = ab_cmd_source_option(&so, c, optarg);
 *           ... h < 0: a bad value (reported); h == 0: not one of these
 *   }
 */
#ifndef AB_CMDOPTS_H
#define AB_CMDOPTS_H

#include <getopt.h>

struct ab_plan_opts;
struct ab_source_opts;

/* where a source's bytes come from (fetch, build, rebuild) */
enum {
	AB_OPT_CACHE = 0x1000,
	AB_OPT_MIRROR,
	AB_OPT_MIRROR_DIR,
	AB_OPT_ALLOW_UNPINNED,
};

#define AB_SOURCE_LONGOPTS                                                   \
	{"cache", required_argument, NULL, AB_OPT_CACHE},                    \
	{"mirror", required_argument, NULL, AB_OPT_MIRROR},                  \
	{"mirror-dir", required_argument, NULL, AB_OPT_MIRROR_DIR},          \
	{"allow-unpinned", no_argument, NULL, AB_OPT_ALLOW_UNPINNED}

/* handle one getopt_long result; 1 handled, 0 not ours, -1 bad value (reported) */
int ab_cmd_source_option(struct ab_source_opts *o, int opt, const char *arg);

/* the options plan and build share: getopt_long with AB_PLAN_LONGOPTS and "o:j:" */
enum { AB_OPT_CCACHE = 0x1100, AB_OPT_CCACHE_REMOTE, AB_OPT_CCACHE_DIR, AB_OPT_NO_SANDBOX, AB_OPT_DERIVE };
#define AB_PLAN_LONGOPTS                                                     \
	{"output", required_argument, NULL, 'o'},                            \
	{"outdir", required_argument, NULL, 'o'},                            \
	{"jobs", required_argument, NULL, 'j'},                              \
	{"ccache", no_argument, NULL, AB_OPT_CCACHE},                        \
	{"ccache-remote", required_argument, NULL, AB_OPT_CCACHE_REMOTE},    \
	{"ccache-dir", required_argument, NULL, AB_OPT_CCACHE_DIR},          \
	{"no-sandbox", no_argument, NULL, AB_OPT_NO_SANDBOX},                \
	{"derive", no_argument, NULL, AB_OPT_DERIVE}

/*
 * take option opt (what getopt_long returned) into o when it is one of
 * AB_PLAN_LONGOPTS: 1 when it was, 0 when not, -1 after reporting a bad
 * value as a usage error of command cmd
 */
int ab_cmd_plan_option(struct ab_plan_opts *o, const char *cmd, int opt, const char *arg);

#endif
