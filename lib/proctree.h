/*
 * proctree: a command's process tree read from /proc (proc(5)): the
 * resident set, CPU time, page faults and threads of each process, summed.
 *
 *   struct ab_proctree *t;
 *   ab_proctree_open(&t, getpid(), "fluent-bit", 0);   before the command is started
 *   for (;;) {
 *           struct ab_proctree_totals tot;
 *           ab_proctree_read(t, &tot);                   each interval
 *           ...
 *   }
 *   ab_proctree_end(t, 2.0);                             SIGTERM what is left, SIGKILL 2 s later
 *   ab_proctree_free(t);
 *
 * The tree: the first child of `parent` that a reading finds is its root
 * (the command, which leads its own process group: lib/proc.h); a process
 * belongs to the tree when its parent does, or when it is in the root's
 * process group, so that a server whose starter exited (and which was
 * reparented away) is still followed; a child of `parent` in parent's
 * own group is parent's helper (run's guard, lib/guard.h), not the
 * command's, and left out. Each member's stat file (and
 * smaps_rollup with pss) stays open while the process lives and is read
 * again at each reading; a member that is gone, or a zombie, keeps its last
 * CPU time and fault counts in the totals, so that they never go down.
 * A reading looks at /proc's list of processes once and opens only the
 * files of processes it has not seen before: its cost grows with the
 * tree, not with the machine's processes. One thread uses a tree.
 */
#ifndef AB_PROCTREE_H
#define AB_PROCTREE_H

#include <stdint.h>
#include <sys/types.h>

struct ab_proctree;

struct ab_proctree_totals {
	int processes;         /* members alive (zombies aside) */
	int threads;           /* their threads */
	uint64_t rss_kb;       /* the sum of their resident sets */
	int comm_processes;    /* those named comm */
	uint64_t comm_rss_kb;  /* the sum of theirs */
	uint64_t pss_kb;       /* with pss: smaps_rollup's Pss, summed */
	uint64_t anon_kb;      /* with pss: its Anonymous, summed */
	uint64_t cpu_ms;       /* user + system CPU of every member seen, gone ones at their last reading */
	uint64_t minflt, majflt; /* page faults, the same way */
	int root_seen;         /* the root was found */
	int root_alive;        /* it runs (not gone, not a zombie) */
};

/*
 * Follow the tree of the next child of parent. comm (NULL: none) names
 * the processes whose resident set is also summed apart (as /proc shows
 * a name: at most 15 bytes); pss also reads each member's smaps_rollup
 * (it walks the page tables: costlier). 0, or AB_EFAIL when /proc cannot
 * be read (reported).
 */
int ab_proctree_open(struct ab_proctree **out, pid_t parent, const char *comm, int pss);
/* read the tree now into *tot; 0, or AB_EFAIL when /proc cannot be listed (reported) */
int ab_proctree_read(struct ab_proctree *t, struct ab_proctree_totals *tot);
/*
 * End the members still alive: SIGTERM to the root's process group and
 * to each member, then, past grace seconds, SIGKILL to those still
 * there. Returns how many were alive.
 */
int ab_proctree_end(struct ab_proctree *t, double grace);
void ab_proctree_free(struct ab_proctree *t);

#endif
