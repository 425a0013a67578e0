/*
 * progress: the step lines of a build on stderr, `[3/7] special53: make
 * build_lib_static (0:41)`. On a terminal (stderr a tty, TERM set and not
 * "dumb", NO_COLOR unset or empty) one live line is redrawn every second;
 * otherwise, without an escape code, a plain line is printed when each
 * step starts (`[3/7] special53: make build_lib_static ...`) and when it
 * ends, and while steps run and nothing else was printed for
 * AB_PROGRESS_HEARTBEAT seconds, a line that the latest is still running
 * (`[3/7] special53: make build_lib_static: running (0:30) +1 running`). Every
 * function is thread-safe; messages printed through ab_progress_print(),
 * and between begin and finish every ab_error / ab_warn / ab_note line
 * (progress installs itself as lib/util.h's reporter), never garble the
 * live line.
 *
 *   ab_progress_begin(nsteps);
 *   ab_progress_start(3, "special53", "make build_lib_static");
 *   ... ab_progress_end(3, 1);
 *   ab_progress_finish();
 */
#ifndef AB_PROGRESS_H
#define AB_PROGRESS_H

#include <stddef.h>

#define AB_PROGRESS_HEARTBEAT 30

/* may escape codes and a live line go to stderr? (a tty, TERM not dumb, NO_COLOR unset) */
int ab_progress_terminal(void);
/* total number of steps; live mode when ab_progress_terminal() */
void ab_progress_begin(size_t total);
/* step (1-based) of a variant (label may be NULL) starts */
void ab_progress_start(size_t step, const char *label, const char *name);
/* it ended; ok 0 marks it failed */
void ab_progress_end(size_t step, int ok);
/* a step that needs no work: prints `[2/7] stock53: configure: up to date` */
void ab_progress_skip(size_t step, const char *label, const char *name, const char *why);
/* print a message on stderr without garbling the live line */
void ab_progress_print(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* stop the live line and clear it */
void ab_progress_finish(void);

#endif
