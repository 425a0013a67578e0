/*
 * proc: run a child process from an argv vector, never through a shell.
 *
 * Calling protocol:
 *   struct ab_env env = {0};
 *   ab_env_scrubbed(&env);               inherited environment minus allocator
 *                                        variables, plus LC_ALL=C and TZ=UTC
 *   ab_env_set(&env, "SOURCE_DATE_EPOCH", "0");
 *   struct ab_proc p = { .argv = argv, .cwd = dir, .envp = ab_env_envp(&env),
 *                        .log_path = "logs/03-make.log" };
 *   struct ab_proc_result res;
 *   if (ab_proc_run(&res, &p) < 0) ...  could not start: already reported
 *   if (res.exit_code != 0) ...          ran and failed: caller reports
 *   ab_env_release(&env);
 *
 * The child is started with fork + chdir + execve and a close-on-exec status
 * pipe, so a failed chdir or exec is reported by the parent with errno.
 * Each child leads its own session (setsid: no controlling terminal, so
 * nothing it runs can read the caller's terminal or type into it with
 * TIOCSTI) and so its own process group, and gets SIGTERM when allocbuild
 * dies (PR_SET_PDEATHSIG); SIGINT, SIGTERM and SIGHUP received by allocbuild
 * are passed on to every running child's group before allocbuild exits, so
 * no make keeps writing into a build directory after allocbuild is gone.
 * After ab_proc_catch_signals() they are passed on the same way but
 * allocbuild lives on: the child ends, ab_proc_run returns, and
 * ab_proc_caught() says which signal came (`run` records "interrupted").
 *
 * The result carries the child tree's resources from wait4(2): user and
 * system CPU seconds of the child and of the descendants it waited for,
 * and ru_maxrss, the peak RSS of the largest single process among them
 * (not a sum).
 */
#ifndef AB_PROC_H
#define AB_PROC_H

#include "sandbox.h"
#include "util.h"

struct ab_env {
	struct ab_strv envp;    /* the full "K=V" environment */
	struct ab_strv set;     /* "K=V" set explicitly (recorded in provenance) */
	struct ab_strv removed; /* names removed from the inherited environment */
};

/*
 * Start from the inherited environment; remove the variables that change
 * allocator behaviour: MALLOC_CONF, LD_PRELOAD, every MIMALLOC_* and every
 * *_MALLOC_CONF, and those that change what compilers and build systems
 * make (ab_env_is_toolchain_var), each recorded in removed; set LC_ALL=C
 * and TZ=UTC (recorded in set). A recipe sets the latter in build.env.
 */
void ab_env_scrubbed(struct ab_env *e);
/* start from an empty environment */
void ab_env_empty(struct ab_env *e);
/*
 * For a sandboxed child: nothing of the inherited environment (every
 * inherited name recorded in removed), then LC_ALL=C and TZ=UTC as
 * ab_env_scrubbed sets them; the caller sets PATH and HOME
 */
void ab_env_sandboxed(struct ab_env *e);
void ab_env_set(struct ab_env *e, const char *key, const char *value);
/* remove key if present; recorded in removed when it was present */
void ab_env_unset(struct ab_env *e, const char *key);
/* value of key in the environment, or NULL */
const char *ab_env_get(const struct ab_env *e, const char *key);
char **ab_env_envp(struct ab_env *e);
void ab_env_release(struct ab_env *e);
/* is s[0..n) a portable environment variable name, [A-Za-z_][A-Za-z0-9_]*? */
int ab_env_name_valid(const char *s, size_t n);
/* is this a variable that changes allocator behaviour (scrubbed above)? */
int ab_env_is_allocator_var(const char *name);
/*
 * Is this a variable that changes what a compiler, make, CMake or
 * pkg-config produces, read by them from the environment (scrubbed above)?
 * CC CXX CPP CXXCPP LD AS AR RANLIB NM STRIP OBJCOPY OBJDUMP, CFLAGS
 * CXXFLAGS CPPFLAGS LDFLAGS LDLIBS LIBS ARFLAGS ASFLAGS, GCC's CPATH
 * C_INCLUDE_PATH CPLUS_INCLUDE_PATH OBJC_INCLUDE_PATH LIBRARY_PATH
 * GCC_EXEC_PREFIX COMPILER_PATH DEPENDENCIES_OUTPUT SUNPRO_DEPENDENCIES,
 * make's MAKEFLAGS MFLAGS GNUMAKEFLAGS MAKEFILES, PKG_CONFIG
 * PKG_CONFIG_PATH PKG_CONFIG_LIBDIR PKG_CONFIG_SYSROOT_DIR, every CMAKE_*.
 */
int ab_env_is_toolchain_var(const char *name);

struct ab_proc {
	char *const *argv;    /* argv[0] is looked up in PATH of envp */
	const char *cwd;      /* NULL: current directory */
	char *const *envp;    /* NULL: inherit */
	const char *log_path; /* stdout and stderr appended here, unless captured */
	struct ab_buf *out;   /* non-NULL: capture stdout */
	struct ab_buf *err;   /* non-NULL: capture stderr */
	int inherit_stdio;    /* with no log and no capture: 1 keeps the terminal, 0 discards */
	double timeout;       /* seconds; > 0: the process group is killed past it */
	size_t max_output;    /* > 0: captured bytes kept per stream; the rest is read and dropped */
	const int *keep_fds;  /* fds above 2 left open, same numbers, in this child only (a jobserver pipe) */
	size_t nkeep_fds;
	int tee;              /* with log_path: stdout and stderr go to the log and to ours, as they come */
	const struct ab_sandbox *sandbox; /* non-NULL: run in it (lib/sandbox.h); argv, cwd and envp are
	                                     as seen inside, and cwd is entered inside */
	/*
	 * 1: every process the command starts ends with it, whatever its group
	 * or session (setsid): this process becomes a subreaper
	 * (PR_SET_CHILD_SUBREAPER, for good), and when the command exits what
	 * it left running is killed (SIGKILL) and reaped, and reading its
	 * output ends, even if a leftover held it; past the timeout the whole
	 * tree is killed. And a guard (lib/guard.h) ends the command's process
	 * group (SIGTERM, SIGKILL 2 s later) if this process dies first, even
	 * by kill -9. For a caller with no other child being started
	 * meanwhile (`run`).
	 */
	int whole_tree;
};

struct ab_proc_result {
	int exit_code;   /* 0..255, or -1 when killed by a signal */
	int signal;      /* the signal, or 0 (in a sandbox, bwrap's exit status 128+N is taken as signal N) */
	int pid;
	int timed_out;   /* killed because it ran past p->timeout */
	int truncated;   /* captured output was cut at p->max_output */
	double seconds;  /* wall time */
	double user_s, sys_s; /* CPU seconds of the child tree (wait4's rusage) */
	long maxrss_kb;  /* the largest peak RSS of a process of the tree, KiB */
};

/*
 * Run and wait. Returns -1 (reported) when the process could not be
 * started (missing program, bad cwd, unwritable log); 0 when it ran,
 * whatever its exit status.
 */
int ab_proc_run(struct ab_proc_result *res, const struct ab_proc *p);
/*
 * From now on SIGINT, SIGTERM and SIGHUP are forwarded to the running
 * children and remembered instead of ending allocbuild; a signal ignored
 * by our parent stays ignored. SIGPIPE is ignored (children get the
 * default back): a write to a closed stdout fails instead.
 */
void ab_proc_catch_signals(void);
/* the last signal caught since ab_proc_catch_signals, or 0 */
int ab_proc_caught(void);

/* "exit status 2" / "killed by signal 9 (Killed)" into a static-free buffer */
void ab_proc_describe(char *buf, size_t len, const struct ab_proc_result *res);
/*
 * Would execve take this argv and environment (envp NULL: this process's)?
 * Linux refuses (E2BIG) one string longer than MAX_ARG_STRLEN (32 pages)
 * and more than ARG_MAX (sysconf) bytes of strings and pointers in all.
 * 0, or -1 after reporting "<what>: ..." with the count and the limit:
 * checked before work that a refused exec would waste.
 */
int ab_proc_argv_fits(const char *what, char *const *argv, char *const *envp);
/* argv as one shell-quoted line for logs and messages; caller frees */
char *ab_argv_quote(char *const *argv);

#endif
