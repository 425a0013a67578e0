/*
 * sandbox: a child process in an unprivileged sandbox made by bubblewrap
 * (bwrap, Debian's `bubblewrap`: what Flatpak uses; docs/design.md says
 * why not unshare(2) and mount(2) here): its own user, mount, network,
 * PID, IPC and UTS namespaces, no capabilities and no user namespace of
 * its own; the host's system directories read-only (/usr, /etc without
 * its secrets nor anything others may not read, /bin /lib /sbin as the
 * host has them, of /sys only the CPUs, NUMA nodes and memory settings),
 * a new /proc, a minimal /dev, a private /tmp; no network but its own
 * loopback; and nothing else of the host but what the caller binds.
 *
 * Calling protocol (lib/proc.h runs it: struct ab_proc's sandbox):
 *   struct ab_sandbox sb = {0};
 *   ab_sandbox_tmpfs(&sb, "/allocbuild");                      a skeleton
 *   ab_sandbox_bind(&sb, "/abs/OUTDIR/variants/v/src", "/allocbuild/src", 1);
 *   ab_sandbox_link(&sb, "/allocbuild/bin/allocbuild", "/allocbuild/ccwrap/cc");
 *   if (ab_sandbox_check() < 0) ...      reported: the cause and the ways out
 *   ... ab_proc_run with .sandbox = &sb, .cwd an inside path ...
 *   ab_sandbox_release(&sb);
 *
 * The caller's paths in argv, cwd and the environment are the inside
 * ones; ab_sandbox_inside() translates a real path under a bind. The
 * child runs as the caller's uid and gid (mapped to themselves); it ends
 * with allocbuild (bwrap's --die-with-parent), and when its first process
 * ends every process of its PID namespace ends with it.
 */
#ifndef AB_SANDBOX_H
#define AB_SANDBOX_H

#include "util.h"

/* the PATH of a sandboxed child after the directories its caller puts first */
#define AB_SANDBOX_PATH "/usr/local/bin:/usr/bin:/bin"

/* what a sandbox holds beside the host's system directories, in mount order */
struct ab_sandbox_op {
	enum { AB_SB_BIND, AB_SB_RO_BIND, AB_SB_TMPFS, AB_SB_DIR, AB_SB_LINK, AB_SB_FILE_NULL } kind;
	char *real;   /* BIND, RO_BIND: the host path; LINK: the link's target */
	char *inside; /* where it appears */
};

struct ab_sandbox {
	struct ab_sandbox_op *ops;
	size_t nops;
	int share_net; /* 1: the host's network (never set by allocbuild's builds: they have none) */
	struct ab_strv init; /* non-empty: the sandbox's first process, given the command after it */
};

void ab_sandbox_bind(struct ab_sandbox *sb, const char *real, const char *inside, int rw);
void ab_sandbox_tmpfs(struct ab_sandbox *sb, const char *inside);
void ab_sandbox_dir(struct ab_sandbox *sb, const char *inside);
void ab_sandbox_link(struct ab_sandbox *sb, const char *target, const char *inside);
void ab_sandbox_release(struct ab_sandbox *sb);

/*
 * The inside path of real, a path at or under one of the binds (the last
 * one that holds it: later binds are mounted over earlier ones), or NULL;
 * caller frees
 */
char *ab_sandbox_inside(const struct ab_sandbox *sb, const char *real);
/* the real path of an inside path under a bind, or NULL; caller frees */
char *ab_sandbox_real(const struct ab_sandbox *sb, const char *inside);
/*
 * argv onto out with every argument that is a real path at or under a bind
 * (the whole argument) as the sandbox sees it: for callers that work with
 * real paths (a relink's link command, a probe)
 */
void ab_sandbox_inside_argv(struct ab_strv *out, const struct ab_sandbox *sb, char *const *argv);

/*
 * bwrap's argv (onto out) that runs argv in the sandbox, in the inside
 * directory cwd (NULL: the sandbox's /). bwrap itself is found as
 * ab_sandbox_check found it.
 */
void ab_sandbox_argv(struct ab_strv *out, const struct ab_sandbox *sb, const char *cwd, char *const *argv);

/*
 * Can this process make a sandbox? Tried once (bwrap runs /bin/true in
 * one): 0, or AB_EFAIL after reporting why not (bwrap missing, user
 * namespaces refused: which setting refuses them) and the two ways out.
 */
int ab_sandbox_check(void);
/* "bubblewrap 0.8.0" after a successful ab_sandbox_check, else NULL */
const char *ab_sandbox_tool(void);
/* the namespaces a sandbox has, for the records: "user", "mount", ... NULL-terminated (static) */
extern const char *const ab_sandbox_namespaces[];

#endif
