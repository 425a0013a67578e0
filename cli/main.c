/*
 * allocbuild: reproducible allocator builds and their provenance.
 * Entry point and the command table; each command's options, usage and
 * help live in its own cli/cmd_<name>.c.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../lib/lazy.h"

#include "cmd.h"
#include "../builder/ccwrap.h"
#include "../lib/netfwd.h"
#include "../lib/util.h"
#include "../lib/version.h"

static const struct ab_cmd *const commands[] = {
	&ab_cmd_validate,
	&ab_cmd_plan,
	&ab_cmd_hash,
	&ab_cmd_fetch,
	&ab_cmd_build,
	&ab_cmd_rebuild,
	&ab_cmd_challenge,
	&ab_cmd_merge,
	&ab_cmd_probe,
	&ab_cmd_upstream_diff,
	&ab_cmd_identify,
	&ab_cmd_relink,
	&ab_cmd_verify,
	&ab_cmd_env,
	&ab_cmd_run,
	&ab_cmd_compare,
	&ab_cmd_sbom,
	&ab_cmd_pr,
	&ab_cmd_sign,
};

static const struct ab_cmd *
lookup(const char *name)
{
	for (size_t i = 0; i < AB_NELEM(commands); i++)
		if (!strcmp(commands[i]->name, name))
			return commands[i];
	return NULL;
}

static void
usage(FILE *f)
{
	fputs("usage: allocbuild <command> [-q|--quiet] [-v|--verbose] [options] [args]\n"
	      "       allocbuild help [command]\n"
	      "       allocbuild --version\n\n"
	      "Commands:\n", f);
	for (size_t i = 0; i < AB_NELEM(commands); i++)
		fprintf(f, "  %-14s %s\n", commands[i]->name, commands[i]->summary);
	fputs("\nSee allocbuild(1) and docs/ for the recipe and manifest formats.\n", f);
}

static int
help(int argc, char **argv)
{
	const struct ab_cmd *c;

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	c = lookup(argv[1]);
	if (!c) {
		ab_error("help: unknown command '%s'", argv[1]);
		return AB_EXIT_USAGE;
	}
	printf("usage: %s", c->usage);
	return 0;
}

static int
wants_help(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--"))
			return 0;
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
			return 1;
	}
	return 0;
}

/*
 * -q/--quiet and -v/--verbose, which every command takes, wherever they
 * appear before "--", before or after the command's name: taken out of
 * argv (argc updated). 0, or -1 for both
 */
static int
take_verbosity(int *argc, char **argv)
{
	int j = 1, seen_dashes = 0;

	for (int i = 1; i < *argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--"))
			seen_dashes = 1;
		if (!seen_dashes && (!strcmp(a, "-q") || !strcmp(a, "--quiet")))
			ab_quiet = 1;
		else if (!seen_dashes && (!strcmp(a, "-v") || !strcmp(a, "--verbose")))
			ab_verbose = 1;
		else
			argv[j++] = argv[i];
	}
	argv[j] = NULL;
	*argc = j;
	return ab_quiet && ab_verbose ? -1 : 0;
}

static int
finish(int rc)
{
	/* data went to stdout: a write error there must not look like success */
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ab_error_errno("cannot write to standard output");
		return rc ? rc : AB_EXIT_USAGE;
	}
	return rc;
}

int
main(int argc, char **argv)
{
	const struct ab_cmd *c;
	int rc;

	/* started through a link of OUTDIR/ccwrap: the compiler wrapper of a build */
	if (argc > 0 && ab_ccwrap_is_tool(argv[0]))
		return ab_ccwrap_main(argc, argv);
	/* a build sandbox's first process, when ccache reaches a remote cache from it (lib/netfwd.h) */
	if (argc > 0 && !strcmp(strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0], AB_NETFWD_INIT))
		return ab_netfwd_init_main(argc, argv);
	/* -q and -v before the command name too, as git takes them (allocbuild -q run ...) */
	if (take_verbosity(&argc, argv) < 0)
		return ab_cmd_usage_error(argc > 1 ? argv[1] : "allocbuild", "-q and -v exclude each other");
	if (argc < 2) {
		usage(stderr);
		return AB_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		printf("allocbuild %s\n", AB_VERSION);
		return finish(0);
	}
	if (!strcmp(argv[1], "help") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))
		return finish(help(argc - 1, argv + 1));
	c = lookup(argv[1]);
	if (!c) {
		const char *names[AB_NELEM(commands)], *near;
		char *shown = ab_shown(argv[1]);

		for (size_t i = 0; i < AB_NELEM(commands); i++)
			names[i] = commands[i]->name;
		near = ab_closest(argv[1], (char *const *)names, AB_NELEM(commands));
		if (near)
			ab_error("unknown command '%s' (did you mean '%s'?)", shown, near);
		else
			ab_error("unknown command '%s'", shown);
		free(shown);
		fputs("Try 'allocbuild help'.\n", stderr);
		return AB_EXIT_USAGE;
	}
	ab_cmd_current = c;
	if (wants_help(argc - 1, argv + 1)) {
		printf("usage: %s", c->usage);
		return finish(0);
	}
	/* libgit2 starts when first called (lib/lazy), not here: most commands never need it */
	rc = c->run(argc - 1, argv + 1);
	ab_lazy_finish();
	return finish(rc);
}
