/*
 * stale: the one check before allocbuild acts again on a temporary that
 * an interrupted run left (a merge's directory and the journal of its
 * moves, a `fetch --check-patches` tree, a variant's source tree made or
 * moved aside beside it, an atomic writer's file). A name
 * shaped like one of ours proves nothing: in a shared directory anyone can
 * make it. So a run acts only on a temporary it can prove its own, and
 * names, then leaves alone, any other:
 *
 *   ab_stale_own()     the path itself is not a symbolic link, is of the
 *                      kind expected (a directory or a regular file), is
 *                      owned by the effective user and, when private,
 *                      neither group nor others have any access (as
 *                      mkdtemp and mkstemp create them: 0700, 0600);
 *   ab_stale_inside()  a path such a temporary names (a journal's entry)
 *                      is absolute, has no "." or ".." component, lies
 *                      below one of the directories given, and no
 *                      component below that directory is a symbolic link;
 *   ab_stale_pid_dead() the run whose pid the name carries is gone.
 *
 * The checks fill why (a lowercase reason for a message) and return 0
 * when the path passes, -1 when not; nothing is reported.
 */
#ifndef AB_STALE_H
#define AB_STALE_H

#include <stddef.h>

enum ab_stale_kind { AB_STALE_DIR, AB_STALE_FILE };

int ab_stale_own(const char *path, enum ab_stale_kind kind, int private, char *why, size_t whylen);
int ab_stale_inside(const char *path, char *const *dirs, size_t ndirs, char *why, size_t whylen);
/* 1 when no process has that pid (ESRCH); 0 when one has (ours, another user's) or pid <= 0 */
int ab_stale_pid_dead(long pid);

/*
 * The temporaries in dir named PREFIX<pid>-... of runs that are gone: each
 * that ab_stale_own proves this user's private directory is removed
 * ("removed 'PATH', left by an interrupted WHAT (pid N)"), any other is
 * named and left alone. Returns how many were removed.
 */
int ab_stale_clean(const char *dir, const char *prefix, const char *what);

/*
 * A guard (lib/guard.h) that removes the private directory path when
 * this process ends however it ends (a signal, kill -9): if path is then
 * still this user's directory (not a link), `chmod -R u+rwX` and `rm -rf`
 * it. 0 with *g set, or -1 (reported); after removing path itself the
 * caller lets the guard go with ab_guard_done.
 */
struct ab_guard;
int ab_stale_reaper_start(struct ab_guard *g, const char *path);

#endif
