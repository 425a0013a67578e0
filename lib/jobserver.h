/*
 * jobserver: one GNU make jobserver (a pipe holding N one-byte tokens)
 * shared by every make-based build step of one `allocbuild build`, so
 * that the job budget -j N goes where the work is (docs/build.md).
 *
 * Calling protocol:
 *   struct ab_jobserver *js;
 *   if (ab_jobserver_open(&js, n) < 0) ...        reported
 *   ab_jobserver_acquire(js);                     the step's implicit job slot
 *   env MAKEFLAGS=-jN --jobserver-auth=R,W (ab_jobserver_fds), keep R and W
 *   open in that one child (struct ab_proc keep_fds), run make without -j
 *   ab_jobserver_release(js);                     when the step has ended
 *   ab_jobserver_free(js);
 *
 * Both fds are close-on-exec: only a child that is given them explicitly
 * sees them. GNU make sets the read end non-blocking (the flag is shared
 * by every holder), so tokens are taken with poll + read. Every step that
 * holds a token runs a make that may hold more; a make killed with -9
 * takes its tokens with it, so whenever no step holds a token the pipe is
 * refilled to exactly N: lost tokens never starve later builds.
 * Thread-safe.
 */
#ifndef AB_JOBSERVER_H
#define AB_JOBSERVER_H

struct ab_jobserver;

/* a pipe with n tokens (n >= 1); reports errors */
int ab_jobserver_open(struct ab_jobserver **out, int n);
/* take one token, waiting as long as it takes; returns 0, or -1 (reported) */
int ab_jobserver_acquire(struct ab_jobserver *js);
/* give the token back; the last holder refills the pipe to n tokens */
void ab_jobserver_release(struct ab_jobserver *js);
/* the read and write ends, for --jobserver-auth=R,W */
void ab_jobserver_fds(const struct ab_jobserver *js, int fds[2]);
/* the number of tokens */
int ab_jobserver_size(const struct ab_jobserver *js);
void ab_jobserver_free(struct ab_jobserver *js);

#endif
