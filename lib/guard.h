/*
 * guard: a helper process that acts when the process that started it is
 * gone, however it ended (a signal, even kill -9), unless it was let go
 * first. It waits on a pipe whose write end only the starting process
 * holds (close-on-exec: no child keeps it open), holds no other
 * descriptor of ours (a lock, a pipe someone reads to its end) and
 * ignores SIGINT, SIGTERM, SIGHUP, SIGQUIT (a ^C to the process group)
 * and SIGPIPE.
 *
 *   struct ab_guard g;
 *   if (ab_guard_start(&g, on_gone, arg) < 0) ...   reported
 *   ...
 *   ab_guard_done(&g);                              let it go, without acting
 *
 * on_gone(arg) runs in the helper, a fork of a process that may have had
 * threads: async-signal-safe calls only (it may execve); arg is read in
 * the helper's copy of our memory, as it was at ab_guard_start.
 */
#ifndef AB_GUARD_H
#define AB_GUARD_H

struct ab_guard {
	int fd;
	long pid; /* the helper; 0 when none */
};

int ab_guard_start(struct ab_guard *g, void (*on_gone)(const void *arg), const void *arg);
/* a no-op on a guard that did not start */
void ab_guard_done(struct ab_guard *g);

#endif
