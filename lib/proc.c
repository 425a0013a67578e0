#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "guard.h"
#include "which.h"

extern char **environ;

int
ab_env_name_valid(const char *s, size_t n)
{
	if (n == 0)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(s[i] == '_' || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= 'a' && s[i] <= 'z') ||
		    (i > 0 && s[i] >= '0' && s[i] <= '9')))
			return 0;
	return 1;
}

int
ab_proc_argv_fits(const char *what, char *const *argv, char *const *envp)
{
	long arg_max = sysconf(_SC_ARG_MAX);
	size_t total = 0, n = 0, page = (size_t)sysconf(_SC_PAGESIZE);
	char *const *lists[2] = {argv, envp ? envp : environ};

	for (int k = 0; k < 2; k++)
		for (char *const *s = lists[k]; s && *s; s++) {
			size_t len = strlen(*s) + 1;

			if (len > 32 * page) {
				ab_error("%s: an argument of %zu bytes is longer than the system's limit of %zu", what, len,
				    32 * page);
				return -1;
			}
			total += len + sizeof(char *);
			n += k == 0;
		}
	if (arg_max > 0 && total > (size_t)arg_max) {
		ab_error("%s: %zu arguments (%zu bytes with the environment) are more than the system's limit of %ld "
		    "bytes", what, n, total, arg_max);
		return -1;
	}
	return 0;
}

int
ab_env_is_allocator_var(const char *name)
{
	size_t n = strcspn(name, "=");

	/*
	 * by pattern: MALLOC_* (MALLOC_CONF, MALLOC_ARENA_MAX, MALLOC_TOP_PAD_
	 * ...), *_MALLOC_CONF, MIMALLOC_*, TCMALLOC_*, GLIBC_TUNABLES and
	 * LD_PRELOAD; every
	 * variable of provenance/alloc/allocreg's rows is one (tests/unit/test_allocreg.c)
	 */
	if ((n == 14 && !strncmp(name, "GLIBC_TUNABLES", 14)) || (n == 10 && !strncmp(name, "LD_PRELOAD", 10)))
		return 1;
	if (n >= 7 && !strncmp(name, "MALLOC_", 7))
		return 1;
	if (!strncmp(name, "MIMALLOC_", 9) || !strncmp(name, "TCMALLOC_", 9))
		return 1;
	return n > 12 && !strncmp(name + n - 12, "_MALLOC_CONF", 12);
}

int
ab_env_is_toolchain_var(const char *name)
{
	static const char *const names[] = {"CC", "CXX", "CPP", "CXXCPP", "LD", "AS", "AR", "RANLIB", "NM", "STRIP",
		"OBJCOPY", "OBJDUMP", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDLIBS", "LIBS", "ARFLAGS", "ASFLAGS",
		"CPATH", "C_INCLUDE_PATH", "CPLUS_INCLUDE_PATH", "OBJC_INCLUDE_PATH", "LIBRARY_PATH", "GCC_EXEC_PREFIX",
		"COMPILER_PATH", "DEPENDENCIES_OUTPUT", "SUNPRO_DEPENDENCIES", "MAKEFLAGS", "MFLAGS", "GNUMAKEFLAGS",
		"MAKEFILES", "PKG_CONFIG", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR", "PKG_CONFIG_SYSROOT_DIR"};
	size_t n = strcspn(name, "=");

	if (n > 6 && !strncmp(name, "CMAKE_", 6))
		return 1;
	for (size_t i = 0; i < AB_NELEM(names); i++)
		if (strlen(names[i]) == n && !strncmp(name, names[i], n))
			return 1;
	return 0;
}

static ssize_t
find(const struct ab_strv *sv, const char *key)
{
	size_t kl = strlen(key);

	for (size_t i = 0; i < sv->n; i++)
		if (!strncmp(sv->v[i], key, kl) && sv->v[i][kl] == '=')
			return (ssize_t)i;
	return -1;
}

static void
remove_at(struct ab_strv *sv, size_t i)
{
	free(sv->v[i]);
	memmove(sv->v + i, sv->v + i + 1, (sv->n - i) * sizeof(*sv->v));
	sv->n--;
}

void
ab_env_empty(struct ab_env *e)
{
	memset(e, 0, sizeof(*e));
	ab_strv_argv(&e->envp);
}

void
ab_env_scrubbed(struct ab_env *e)
{
	ab_env_empty(e);
	for (char **p = environ; p && *p; p++) {
		if (!strchr(*p, '='))
			continue;
		if (ab_env_is_allocator_var(*p) || ab_env_is_toolchain_var(*p)) {
			ab_strv_push_owned(&e->removed, ab_strndup(*p, strcspn(*p, "=")));
			continue;
		}
		ab_strv_push(&e->envp, *p);
	}
	ab_env_set(e, "LC_ALL", "C");
	ab_env_set(e, "TZ", "UTC");
}

void
ab_env_sandboxed(struct ab_env *e)
{
	ab_env_empty(e);
	for (char **p = environ; p && *p; p++)
		if (strchr(*p, '='))
			ab_strv_push_owned(&e->removed, ab_strndup(*p, strcspn(*p, "=")));
	/* in name order: the caller's environment order says nothing */
	if (e->removed.n)
		ab_strv_sort(&e->removed);
	ab_env_set(e, "LC_ALL", "C");
	ab_env_set(e, "TZ", "UTC");
}

void
ab_env_set(struct ab_env *e, const char *key, const char *value)
{
	ssize_t i = find(&e->envp, key);

	if (i >= 0)
		remove_at(&e->envp, (size_t)i);
	i = find(&e->set, key);
	if (i >= 0)
		remove_at(&e->set, (size_t)i);
	ab_strv_pushf(&e->envp, "%s=%s", key, value);
	ab_strv_pushf(&e->set, "%s=%s", key, value);
}

void
ab_env_unset(struct ab_env *e, const char *key)
{
	ssize_t i = find(&e->envp, key);

	if (i >= 0) {
		remove_at(&e->envp, (size_t)i);
		ab_strv_push(&e->removed, key);
	}
	i = find(&e->set, key);
	if (i >= 0)
		remove_at(&e->set, (size_t)i);
}

const char *
ab_env_get(const struct ab_env *e, const char *key)
{
	ssize_t i = find(&e->envp, key);

	return i < 0 ? NULL : e->envp.v[i] + strlen(key) + 1;
}

char **
ab_env_envp(struct ab_env *e)
{
	return ab_strv_argv(&e->envp);
}

void
ab_env_release(struct ab_env *e)
{
	ab_strv_free(&e->envp);
	ab_strv_free(&e->set);
	ab_strv_free(&e->removed);
}

/*
 * Running children, by process group, for the signal handler: a signal that
 * ends allocbuild is passed on to each group first.
 */
#define MAX_RUNNING 256
static volatile sig_atomic_t running[MAX_RUNNING];
static pthread_once_t handlers_once = PTHREAD_ONCE_INIT;
/* ab_proc_catch_signals: forward and remember instead of dying */
static volatile sig_atomic_t catching, caught;

static void
forward_signal(int sig)
{
	int saved = errno;

	for (int i = 0; i < MAX_RUNNING; i++) {
		pid_t pg = (pid_t)running[i];

		/* a child that has not reached its setsid yet is not a group: itself then */
		if (pg > 0 && kill(-pg, sig == SIGHUP ? SIGTERM : sig) < 0 && errno == ESRCH)
			kill(pg, sig == SIGHUP ? SIGTERM : sig);
	}
	if (catching) {
		caught = sig;
		errno = saved;
		return;
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static void
install_handlers(void)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = forward_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < AB_NELEM(sigs); i++) {
		struct sigaction old;

		/* leave a signal ignored by our parent (nohup) ignored */
		if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_IGN)
			continue;
		sigaction(sigs[i], &sa, NULL);
	}
}

void
ab_proc_catch_signals(void)
{
	pthread_once(&handlers_once, install_handlers);
	catching = 1;
	/* a reader of our output gone (| head) must not end us before the record is written */
	signal(SIGPIPE, SIG_IGN);
}

int
ab_proc_caught(void)
{
	return caught;
}

static int
track(pid_t pg)
{
	for (int i = 0; i < MAX_RUNNING; i++) {
		sig_atomic_t zero = 0;

		if (__atomic_compare_exchange_n(&running[i], &zero, (sig_atomic_t)pg, 0, __ATOMIC_SEQ_CST,
		        __ATOMIC_SEQ_CST))
			return i;
	}
	return -1;
}

static void
untrack(int slot)
{
	if (slot >= 0)
		__atomic_store_n(&running[slot], 0, __ATOMIC_SEQ_CST);
}

static void
child_fail(int fd, int stage)
{
	int msg[2] = {stage, errno};

	(void)!write(fd, msg, sizeof(msg));
	_exit(127);
}

static void
child_exec(char *const *cand, char *const *argv, char *const *envp, int status_fd)
{
	extern char **environ;
	int err = ENOENT;

	for (size_t i = 0; cand[i]; i++) {
		execve(cand[i], argv, envp ? envp : environ);
		if (errno == EACCES)
			err = EACCES;
		else if (errno != ENOENT && errno != ENOTDIR) {
			err = errno;
			break;
		}
	}
	errno = err;
	child_fail(status_fd, 2);
}

static void
keep(struct ab_buf *b, const char *p, size_t n, size_t max, int *truncated)
{
	if (max && b->len + n > max) {
		*truncated = 1;
		n = b->len < max ? max - b->len : 0;
	}
	if (n)
		ab_buf_add(b, p, n);
}

/*
 * The whole tree of a command (ab_proc.whole_tree): allocbuild is the
 * subreaper of what the command starts, so a process that leaves its
 * group or session (setsid) and is orphaned stays among our descendants,
 * found through /proc/PID/task/TID/children; the children we had before
 * the command (others) are not its.
 */
struct tree {
	pid_t pid;       /* the command */
	pid_t *others;   /* our children before it started */
	size_t nothers;
	int ended;       /* the command exited; what it left was killed */
};

struct pids {
	pid_t *v;
	unsigned char *direct; /* a child of ours (an orphan to reap), not of a descendant */
	size_t n, cap;
};

static void
pids_add(struct pids *s, pid_t pid, int direct)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 32;
		s->v = ab_realloc(s->v, s->cap * sizeof(*s->v));
		s->direct = ab_realloc(s->direct, s->cap);
	}
	s->v[s->n] = pid;
	s->direct[s->n++] = (unsigned char)direct;
}

static int
is_other(const struct tree *t, pid_t pid)
{
	for (size_t i = 0; i < t->nothers; i++)
		if (t->others[i] == pid)
			return 1;
	return 0;
}

/* the children of pid (every thread's) into s, and theirs, unless t says they are not the command's */
static void
collect_children(struct pids *s, pid_t pid, const struct tree *t, int depth)
{
	char path[64];
	DIR *d;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%ld/task", (long)pid);
	if (depth > 4096 || !(d = opendir(path)))
		return;
	while ((de = readdir(d))) {
		char file[352], buf[4096], *p, *end;
		ssize_t n;
		int fd;

		if (de->d_name[0] == '.')
			continue;
		snprintf(file, sizeof(file), "%s/%s/children", path, de->d_name);
		if ((fd = open(file, O_RDONLY | O_CLOEXEC)) < 0)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		buf[n > 0 ? n : 0] = '\0';
		for (p = buf;; p = end) {
			long c = strtol(p, &end, 10);

			if (end == p)
				break;
			if (t && is_other(t, (pid_t)c))
				continue;
			pids_add(s, (pid_t)c, t != NULL);
			collect_children(s, (pid_t)c, NULL, depth + 1);
		}
	}
	closedir(d);
}

/* our children now, with every thread's */
static void
our_children(pid_t **out, size_t *n)
{
	struct pids s = {0};

	collect_children(&s, getpid(), &(struct tree){0}, 0);
	/* only the direct ones (the walk went deeper) */
	*n = 0;
	for (size_t i = 0; i < s.n; i++)
		if (s.direct[i])
			s.v[(*n)++] = s.v[i];
	*out = s.v;
	free(s.direct);
}

static int
is_zombie(pid_t pid)
{
	char path[64], buf[512], *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 1; /* gone */
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	rp = strrchr(buf, ')');
	return !rp || rp[1] != ' ' || rp[2] == 'Z' || rp[2] == 'X';
}

/*
 * SIGKILL to every process of the command's tree but the command itself
 * when it ended (include_cmd 0), until none is left alive; the orphans
 * are reaped (the command is its caller's to wait for)
 */
static void
kill_tree(const struct tree *t, int include_cmd)
{
	for (int round = 0; round < 1000; round++) {
		struct pids s = {0};
		size_t live = 0;

		collect_children(&s, getpid(), t, 0);
		for (size_t i = 0; i < s.n; i++) {
			if (s.v[i] == t->pid && !include_cmd)
				continue;
			if (!is_zombie(s.v[i])) {
				kill(s.v[i], SIGKILL);
				live++;
			}
			if (s.direct[i] && s.v[i] != t->pid)
				waitpid(s.v[i], NULL, WNOHANG);
		}
		free(s.v);
		free(s.direct);
		if (!live)
			return;
		{
			struct timespec ts = {0, 2 * 1000 * 1000};

			nanosleep(&ts, NULL);
		}
	}
}

/*
 * a guard's action (lib/guard.h), when allocbuild is gone (kill -9): the
 * command's group gets SIGTERM, then SIGKILL after 2 s, so that its
 * children in the group do not outlive it; only async-signal-safe calls
 */
static void
end_group(const void *arg)
{
	pid_t pg = (pid_t)(intptr_t)arg;
	struct timespec ts = {0, 50 * 1000 * 1000};

	if (kill(-pg, SIGTERM) < 0)
		return;
	for (int i = 0; i < 40 && kill(-pg, 0) == 0; i++)
		nanosleep(&ts, NULL);
	kill(-pg, SIGKILL);
}

/* has the command exited (not reaped: wait_child takes its rusage)? */
static int
command_exited(pid_t pid)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/*
 * read both pipes to EOF, into bufs, or with tee_log >= 0 into the log and
 * to our stdout and stderr; past the deadline (> 0) kill the group once.
 * With a tree, the command's end ends the reading too: what it left
 * running (a daemon holding its stdout) is killed; past the deadline the
 * whole tree is.
 */
static void
drain(int fds[2], struct ab_buf *bufs[2], int tee_log, pid_t pg, double deadline, size_t max,
    struct ab_proc_result *res, struct tree *t)
{
	struct pollfd pfd[2];
	char tmp[16384];

	for (;;) {
		int n = 0, wait_ms = -1, r;

		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0) {
				pfd[n].fd = fds[i];
				pfd[n].events = POLLIN;
				n++;
			}
		if (!n)
			return;
		if (deadline > 0 && !res->timed_out) {
			double left = deadline - ab_now();

			wait_ms = left <= 0 ? 0 : (int)(left * 1000) + 1;
		}
		/* with a tree, look for the command's end every 50 ms */
		if (t && !t->ended && (wait_ms < 0 || wait_ms > 50))
			wait_ms = 50;
		r = poll(pfd, (nfds_t)n, wait_ms);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		if (t && !t->ended && command_exited(t->pid)) {
			t->ended = 1;
			kill_tree(t, 0);
			continue;
		}
		if (r == 0 && deadline > 0 && !res->timed_out && ab_now() >= deadline) {
			res->timed_out = 1;
			kill(-pg, SIGKILL);
			if (t)
				kill_tree(t, 1);
			continue;
		}
		if (r == 0)
			continue;
		for (int j = 0; j < n; j++) {
			if (!(pfd[j].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			for (int i = 0; i < 2; i++) {
				ssize_t got;

				if (fds[i] != pfd[j].fd)
					continue;
				got = read(fds[i], tmp, sizeof(tmp));
				if (got > 0 && tee_log >= 0) {
					/* the terminal going away must not stop the log */
					if (ab_write_all(tee_log, tmp, (size_t)got) < 0)
						ab_note_environment(errno);
					(void)!ab_write_all(i + 1, tmp, (size_t)got);
				} else if (got > 0) {
					keep(bufs[i], tmp, (size_t)got, max, &res->truncated);
				} else if (got == 0 || errno != EINTR) {
					close(fds[i]);
					fds[i] = -1;
				}
			}
		}
	}
}

/* wait for pid and take its tree's rusage; past the deadline (> 0) kill its group */
static int
wait_child(pid_t pid, int *status, double deadline, struct ab_proc_result *res, const struct tree *t)
{
	for (;;) {
		struct rusage ru;
		pid_t r = wait4(pid, status, deadline > 0 && !res->timed_out ? WNOHANG : 0, &ru);

		if (r == pid) {
			res->user_s = (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6;
			res->sys_s = (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
			res->maxrss_kb = ru.ru_maxrss;
			return 0;
		}
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (ab_now() >= deadline) {
			res->timed_out = 1;
			kill(-pid, SIGKILL);
			if (t)
				kill_tree(t, 1);
			continue;
		}
		{
			struct timespec ts = {0, 20 * 1000 * 1000};

			nanosleep(&ts, NULL);
		}
	}
}

/* an executable regular file at the host path of what the sandbox calls inside; -1 with errno */
static int
sandboxed_executable(const struct ab_sandbox *sb, const char *inside)
{
	char *real = ab_sandbox_real(sb, inside);
	struct stat st;
	int e = 0;

	/* a path no bind names is the host's own (the system is bound where it is) */
	if (stat(real ? real : inside, &st) < 0)
		e = -1;
	else if (!S_ISREG(st.st_mode))
		errno = EACCES, e = -1;
	else if (access(real ? real : inside, X_OK) < 0)
		e = -1;
	free(real);
	return e;
}

/*
 * A sandboxed argv[0] as the host has it under the sandbox's binds, named
 * by its path or found through the PATH of the step's environment:
 * reported as a failed exec would be (bwrap would only say it in the log).
 */
static int
sandboxed_findable(const struct ab_proc *p)
{
	const char *path = AB_SANDBOX_PATH;
	int e = -1;

	if (strchr(p->argv[0], '/')) {
		e = sandboxed_executable(p->sandbox, p->argv[0]);
	} else {
		for (size_t i = 0; p->envp && p->envp[i]; i++)
			if (!strncmp(p->envp[i], "PATH=", 5))
				path = p->envp[i] + 5;
		errno = ENOENT;
		while (e < 0 && *path) {
			size_t n = strcspn(path, ":");
			char *cand = ab_sprintf("%.*s/%s", (int)n, path, p->argv[0]);

			if (path[0] == '/' && sandboxed_executable(p->sandbox, cand) == 0)
				e = 0;
			free(cand);
			path += n + (path[n] == ':');
		}
		if (e < 0)
			errno = ENOENT;
	}
	if (e < 0)
		ab_error_errno("cannot run '%s'", p->argv[0]);
	return e;
}

/*
 * In the child: its own group, default signals, the standard files fds
 * (in, out, err; -1 keeps ours), cwd, then exec; never returns. A step
 * that fails is said on status_fd (child_fail)
 */
static void
child_start(const struct ab_proc *p, const int fds[3], int status_fd, const char *cwd, char *const *cand,
    char *const *argv, pid_t parent)
{
	sigset_t none;

	/*
	 * its own session and so its own group: a timeout or our death reaches
	 * all of it, and it has no controlling terminal, so that nothing it
	 * runs can type into the caller's (TIOCSTI) or read from it
	 */
	if (setsid() < 0)
		child_fail(status_fd, 3);
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(127);
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (int i = 0; i < 3; i++)
		if (fds[i] >= 0 && dup2(fds[i], i) < 0)
			child_fail(status_fd, 0);
	if (cwd && chdir(cwd) < 0)
		child_fail(status_fd, 1);
	for (size_t i = 0; i < p->nkeep_fds; i++)
		if (fcntl(p->keep_fds[i], F_SETFD, 0) < 0)
			child_fail(status_fd, 0);
	child_exec(cand, argv, p->envp, status_fd);
	_exit(127);
}

/* why the child did not start: the stage and errno it sent (child_fail) */
static void
report_start_failure(const int msg[2], const struct ab_proc *p)
{
	errno = msg[1];
	if (msg[0] == 1)
		ab_error_errno("cannot run '%s': cannot enter directory '%s'", p->argv[0], p->cwd);
	else if (msg[0] == 2)
		ab_error_errno("cannot run '%s'", p->argv[0]);
	else if (msg[0] == 3)
		ab_error_errno("cannot run '%s': cannot start a session of its own", p->argv[0]);
	else
		ab_error_errno("cannot run '%s': cannot redirect output", p->argv[0]);
}

/* how the command ended (waitpid's status) into res */
static void
set_status(struct ab_proc_result *res, int status, const struct ab_proc *p)
{
	if (WIFEXITED(status)) {
		res->exit_code = WEXITSTATUS(status);
		/* bwrap exits 128+N when its command was killed by signal N: said as the signal it was */
		if (p->sandbox && res->exit_code > 128 && res->exit_code < 128 + SIGRTMIN) {
			res->signal = res->exit_code - 128;
			res->exit_code = -1;
		}
	} else if (WIFSIGNALED(status)) {
		res->exit_code = -1;
		res->signal = WTERMSIG(status);
	}
}

int
ab_proc_run(struct ab_proc_result *res, const struct ab_proc *p)
{
	int status_pipe[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1};
	int logfd = -1, devnull = -1, nullin = -1, error = -1, status, msg[2], slot = -1;
	struct tree tree = {0};
	struct ab_guard guard = {.fd = -1};
	struct ab_strv cand = {0};
	double start = ab_now(), deadline = p->timeout > 0 ? start + p->timeout : 0;
	pid_t pid = -1, parent = getpid();
	ssize_t n;
	int tee = p->tee && p->log_path && !p->out && !p->err;
	struct ab_strv boxed = {0};
	char *const *argv = p->argv;
	const char *cwd = p->cwd;

	memset(res, 0, sizeof(*res));
	res->pid = -1;
	res->exit_code = -1;
	pthread_once(&handlers_once, install_handlers);
	if (p->log_path && (!p->out || !p->err)) {
		logfd = ab_open_log(p->log_path);
		if (logfd < 0) {
			ab_error_errno("cannot open log '%s'", p->log_path);
			goto done;
		}
	}
	if (!p->log_path && !p->inherit_stdio && (!p->out || !p->err)) {
		devnull = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (devnull < 0) {
			ab_error_errno("cannot open '/dev/null'");
			goto done;
		}
	}
	if (!p->inherit_stdio && (nullin = open("/dev/null", O_RDONLY | O_CLOEXEC)) < 0) {
		ab_error_errno("cannot open '/dev/null'");
		goto done;
	}
	if (pipe2(status_pipe, O_CLOEXEC) < 0 || ((p->out || tee) && pipe2(outp, O_CLOEXEC) < 0) ||
	    ((p->err || tee) && pipe2(errp, O_CLOEXEC) < 0)) {
		ab_error_errno("cannot create pipe for '%s'", p->argv[0]);
		goto done;
	}
	if (p->sandbox) {
		/* bwrap runs argv inside, in cwd: what it cannot start is said as for any child */
		if (sandboxed_findable(p) < 0)
			goto done;
		ab_sandbox_argv(&boxed, p->sandbox, p->cwd, p->argv);
		argv = ab_strv_argv(&boxed);
		cwd = NULL;
	}
	ab_exec_candidates(&cand, argv[0], p->envp);
	if (p->whole_tree) {
		/* the orphans of the command's tree become ours, whatever their session */
		if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0) {
			ab_error_errno("cannot become the subreaper of '%s'", p->argv[0]);
			goto done;
		}
		our_children(&tree.others, &tree.nothers);
	}
	fflush(NULL);
	pid = fork();
	res->pid = (int)pid;
	if (pid < 0) {
		ab_error_errno("cannot fork for '%s'", p->argv[0]);
		goto done;
	}
	if (pid == 0) {
		int fds[3] = {nullin, p->out || tee ? outp[1] : logfd >= 0 ? logfd : devnull,
		    p->err || tee ? errp[1] : logfd >= 0 ? logfd : devnull};

		child_start(p, fds, status_pipe[1], cwd, cand.v, argv, parent);
	}
	/* the child's setsid makes its group: setpgid here would race it (a group leader cannot setsid) */
	tree.pid = pid;
	/* our death ends the command's group, not only the command (PR_SET_PDEATHSIG); the guard is not the command's */
	if (p->whole_tree && ab_guard_start(&guard, end_group, (const void *)(intptr_t)pid) == 0) {
		tree.others = ab_realloc(tree.others, (tree.nothers + 1) * sizeof(*tree.others));
		tree.others[tree.nothers++] = (pid_t)guard.pid;
	}
	slot = track(pid);
	close(status_pipe[1]);
	status_pipe[1] = -1;
	if (outp[1] >= 0)
		close(outp[1]), outp[1] = -1;
	if (errp[1] >= 0)
		close(errp[1]), errp[1] = -1;
	do
		n = read(status_pipe[0], msg, sizeof(msg));
	while (n < 0 && errno == EINTR);
	if (n == (ssize_t)sizeof(msg)) {
		while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
			;
		report_start_failure(msg, p);
		goto done;
	}
	{
		int fds[2] = {outp[0], errp[0]};
		struct ab_buf *bufs[2] = {p->out, p->err};

		drain(fds, bufs, tee ? logfd : -1, pid, deadline, p->max_output, res, p->whole_tree ? &tree : NULL);
		outp[0] = errp[0] = -1;
	}
	if (wait_child(pid, &status, deadline, res, p->whole_tree ? &tree : NULL) < 0) {
		ab_error_errno("cannot wait for '%s'", p->argv[0]);
		goto done;
	}
	/* what the command left running (not holding its output) ends with it */
	if (p->whole_tree)
		kill_tree(&tree, 0);
	set_status(res, status, p);
	error = 0;
done:
	untrack(slot);
	res->seconds = ab_now() - start;
	for (int i = 0; i < 2; i++) {
		if (status_pipe[i] >= 0)
			close(status_pipe[i]);
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	if (logfd >= 0)
		close(logfd);
	if (devnull >= 0)
		close(devnull);
	if (nullin >= 0)
		close(nullin);
	ab_guard_done(&guard);
	ab_strv_free(&cand);
	ab_strv_free(&boxed);
	free(tree.others);
	return error;
}

void
ab_proc_describe(char *buf, size_t len, const struct ab_proc_result *res)
{
	if (res->timed_out)
		snprintf(buf, len, "timed out, killed by signal %d (%s)", res->signal, strsignal(res->signal));
	else if (res->signal)
		snprintf(buf, len, "killed by signal %d (%s)", res->signal, strsignal(res->signal));
	else
		snprintf(buf, len, "exit status %d", res->exit_code);
}

char *
ab_argv_quote(char *const *argv)
{
	struct ab_buf b = {0};

	for (size_t i = 0; argv[i]; i++) {
		const char *s = argv[i];

		if (i)
			ab_buf_putc(&b, ' ');
		if (*s && !s[strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-+=.,/:@%")]) {
			ab_buf_puts(&b, s);
			continue;
		}
		ab_buf_putc(&b, '\'');
		for (; *s; s++) {
			if (*s == '\'')
				ab_buf_puts(&b, "'\\''");
			else
				ab_buf_putc(&b, *s);
		}
		ab_buf_putc(&b, '\'');
	}
	return ab_buf_detach(&b);
}
