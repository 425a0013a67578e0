/*
 * cmd: the command layer. Each command takes the arguments after its name
 * (argv[0] is the command name, for getopt) and returns the process exit
 * code: 0 success, 1 a check failed, 2 usage error or bad input; it is the
 * only layer that turns results into exit codes (ab_cmd_exit). main.c
 * holds the table and handles --help / -h for every command.
 */
#ifndef AB_CMD_H
#define AB_CMD_H

#include <stddef.h>
#include <stdio.h>

/*
 * A command, defined at the bottom of its cli/cmd_<name>.c next to its
 * options: the name, a one-line summary for `allocbuild help`, the usage
 * text (synopsis lines, then a blank line and the help) that `help NAME`
 * and `NAME --help` print, and the function main.c calls with the
 * arguments after the name.
 */
struct ab_cmd {
	const char *name;
	const char *summary;
	const char *usage;
	int (*run)(int argc, char **argv);
};

extern const struct ab_cmd ab_cmd_validate, ab_cmd_plan, ab_cmd_hash, ab_cmd_fetch, ab_cmd_build,
    ab_cmd_probe, ab_cmd_upstream_diff, ab_cmd_identify, ab_cmd_relink, ab_cmd_verify, ab_cmd_env,
    ab_cmd_pr, ab_cmd_sign, ab_cmd_run, ab_cmd_rebuild, ab_cmd_merge, ab_cmd_compare, ab_cmd_challenge,
    ab_cmd_sbom;

/*
 * the exit code of a domain result (lib/util.h): 0 -> 0, AB_ECHECK -> 1,
 * any other negative -> 2; 2 for any failure once the environment failed
 * (disk full, I/O error: ab_environment_failed)
 */
int ab_cmd_exit(int rc);
/* report a usage error for a command: message plus a hint; returns 2 */
int ab_cmd_usage_error(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* the command main() runs (its usage names its options for "did you mean"), or NULL */
extern const struct ab_cmd *ab_cmd_current;
/*
 * report the option getopt_long() just refused, c being what it returned
 * ('?', or ':' for a missing value: the option string starts with ':'
 * after any '+'): "option 'X' needs a value", "option 'X' takes no value"
 * or "unknown option 'X'"; returns 2
 */
int ab_cmd_option_error(const char *name, int c, char *const *argv);
/* a whole decimal number from min to max into *out; -1 (not reported) otherwise */
int ab_cmd_parse_int(int *out, const char *arg, int min, int max);
/*
 * the value of -j/--jobs, 1 to 1024, into *out; -1 after reporting
 * "<name>: invalid job count '<arg>'" as a usage error
 */
int ab_cmd_parse_jobs(int *out, const char *name, const char *arg);
/* the value of --strip, 0 to 64 leading path components, into *out; -1 after reporting */
int ab_cmd_parse_strip(int *out, const char *name, const char *arg);

struct ab_key;
/*
 * load the PEM keys named by paths[0..npaths) (--key), private ones when
 * private is set, else public ones (provenance/attest/keys.h), into a new array
 * *keys of *nkeys; 0 or AB_EFAIL (reported). Free it with ab_cmd_free_keys,
 * whatever the result
 */
int ab_cmd_load_keys(struct ab_key ***keys, size_t *nkeys, char *const *paths, size_t npaths, int private);
void ab_cmd_free_keys(struct ab_key **keys, size_t nkeys);

#endif
