/*
 * cmd: the subcommands. Each takes the arguments after its name
 * (argv[0] is the command name, for getopt) and returns the process exit
 * code: 0 success, 1 a check failed, 2 usage error or bad input.
 * main.c handles --help / -h for every command from the table.
 */
#ifndef AB_CMD_H
#define AB_CMD_H

#include <stdio.h>

int cmd_validate(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_hash(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
int cmd_build(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_upstream_diff(int argc, char **argv);
int cmd_identify(int argc, char **argv);
int cmd_relink(int argc, char **argv);
int cmd_verify(int argc, char **argv);
int cmd_env(int argc, char **argv);
int cmd_pr(int argc, char **argv);

/* the exit code of a domain result (lib/util.h): 0 -> 0, AB_ECHECK -> 1, any other negative -> 2 */
int ab_cmd_exit(int rc);
/* print "usage: ..." of a command (from main.c's table) to f */
void ab_cmd_usage(FILE *f, const char *name);
/* report a usage error for a command: message plus a hint; returns 2 */
int ab_cmd_usage_error(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
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

#endif
