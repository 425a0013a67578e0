/* cmd: helpers shared by the subcommands (kept out of main.c so that any
 * object linking a cmd_*.c file, unit tests included, has them) */
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/member.h"
#include "../lib/pool.h"
#include "../lib/util.h"
#include "../provenance/attest/keys.h"

int
ab_cmd_exit(int rc)
{
	if (rc == 0)
		return AB_EXIT_OK;
	/* disk full or an I/O error is the environment's failure, whichever step met it */
	if (ab_environment_failed())
		return AB_EXIT_USAGE;
	return rc == AB_ECHECK ? AB_EXIT_CHECK : AB_EXIT_USAGE;
}

const struct ab_cmd *ab_cmd_current;

/* an unknown long option, with the nearest of those the running command's usage names */
static int
unknown_option(const char *name, const char *arg)
{
	struct ab_strv opts = {0};
	const char *u = ab_cmd_current ? ab_cmd_current->usage : "", *near;
	size_t n = strcspn(arg, "=");
	char *given = ab_strndup(arg, n);
	int rc;

	for (const char *p = strstr(u, "--"); p; p = strstr(p + 2, "--")) {
		size_t k = 2 + strspn(p + 2, "abcdefghijklmnopqrstuvwxyz0123456789-");
		char *o = ab_strndup(p, k);

		if (k > 3 && !ab_strv_has(&opts, o))
			ab_strv_push_owned(&opts, o);
		else
			free(o);
	}
	near = ab_closest(given, opts.v, opts.n);
	rc = near ? ab_cmd_usage_error(name, "unknown option '%s' (did you mean '%s'?)", arg, near) :
	    ab_cmd_usage_error(name, "unknown option '%s'", arg);
	free(given);
	ab_strv_free(&opts);
	return rc;
}

int
ab_cmd_usage_error(const char *name, const char *fmt, ...)
{
	struct ab_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	ab_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ab_error("%s: %s", name, b.s);
	fprintf(stderr, "Try 'allocbuild help %s'.\n", name);
	ab_buf_free(&b);
	return AB_EXIT_USAGE;
}

int
ab_cmd_parse_int(int *out, const char *arg, int min, int max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max)
		return -1;
	*out = (int)v;
	return 0;
}

/* ab_cmd_parse_int, or -1 after reporting "<what> '<arg>'" as a usage error of command name */
static int
parse_number(int *out, const char *name, const char *arg, int min, int max, const char *what)
{
	if (ab_cmd_parse_int(out, arg, min, max) == 0)
		return 0;
	ab_cmd_usage_error(name, "%s '%s'", what, arg);
	return -1;
}

int
ab_cmd_parse_jobs(int *out, const char *name, const char *arg)
{
	return parse_number(out, name, arg, 1, AB_POOL_MAX, "invalid job count");
}

int
ab_cmd_parse_strip(int *out, const char *name, const char *arg)
{
	return parse_number(out, name, arg, 0, AB_MEMBER_STRIP_MAX, "--strip: expected a number of components, got");
}

int
ab_cmd_option_error(const char *name, int c, char *const *argv)
{
	const char *arg = argv[optind - 1], *cur = argv[optind];

	/*
	 * a short option refused inside a group like -xq: getopt stays on the
	 * group until its last letter, so argv[optind - 1] is the argument before
	 */
	if (c == '?' && optopt && cur && cur[0] == '-' && cur[1] && cur[1] != '-' && strchr(cur + 1, optopt))
		return ab_cmd_usage_error(name, "unknown option '-%c'", optopt);
	if (c == ':' && optopt && strncmp(arg, "--", 2))
		return ab_cmd_usage_error(name, "option '-%c' needs a value", optopt);
	if (c == ':')
		return ab_cmd_usage_error(name, "option '%s' needs a value", arg);
	/* a known long option given a value it does not take: optopt is its val */
	if (optopt && !strncmp(arg, "--", 2) && strchr(arg, '='))
		return ab_cmd_usage_error(name, "option '%.*s' takes no value", (int)strcspn(arg, "="), arg);
	/* a short option may sit inside a group like -qx: name it alone */
	if (optopt && strncmp(arg, "--", 2))
		return ab_cmd_usage_error(name, "unknown option '-%c'", optopt);
	return unknown_option(name, arg);
}

int
ab_cmd_load_keys(struct ab_key ***keys, size_t *nkeys, char *const *paths, size_t npaths, int private)
{
	*keys = ab_calloc(npaths + 1, sizeof(**keys));
	*nkeys = 0;
	for (size_t i = 0; i < npaths; i++) {
		if (ab_key_load(&(*keys)[i], paths[i], private ? AB_KEY_PRIVATE : AB_KEY_PUBLIC) < 0)
			return AB_EFAIL;
		*nkeys = i + 1;
	}
	return 0;
}

void
ab_cmd_free_keys(struct ab_key **keys, size_t nkeys)
{
	for (size_t i = 0; i < nkeys; i++)
		ab_key_free(keys[i]);
	free(keys);
}
