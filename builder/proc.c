#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

int
ab_env_is_allocator_var(const char *name)
{
	size_t n = strcspn(name, "=");

	if ((n == 11 && !strncmp(name, "MALLOC_CONF", 11)) || (n == 10 && !strncmp(name, "LD_PRELOAD", 10)))
		return 1;
	if (!strncmp(name, "MIMALLOC_", 9))
		return 1;
	return n > 12 && !strncmp(name + n - 12, "_MALLOC_CONF", 12);
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
		if (ab_env_is_allocator_var(*p)) {
			ab_strv_push_owned(&e->removed, ab_strndup(*p, strcspn(*p, "=")));
			continue;
		}
		ab_strv_push(&e->envp, *p);
	}
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

/* execvp with an explicit environment: look argv[0] up in envp's PATH */
static void
exec_with_env(char *const *argv, char *const *envp)
{
	const char *path = NULL;
	char buf[4096];

	if (!envp) {
		execvp(argv[0], argv);
		return;
	}
	if (strchr(argv[0], '/')) {
		execve(argv[0], argv, envp);
		return;
	}
	for (char *const *p = envp; *p; p++)
		if (!strncmp(*p, "PATH=", 5))
			path = *p + 5;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	errno = ENOENT;
	while (*path) {
		size_t n = strcspn(path, ":");
		int saved;

		if (n == 0)
			snprintf(buf, sizeof(buf), "%s", argv[0]);
		else
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, argv[0]);
		execve(buf, argv, envp);
		saved = errno;
		if (saved != ENOENT && saved != ENOTDIR && saved != EACCES)
			return;
		path += n;
		if (*path == ':')
			path++;
		errno = saved == EACCES ? EACCES : ENOENT;
	}
}

static void
child_fail(int fd, int stage)
{
	int msg[2] = {stage, errno};

	(void)!write(fd, msg, sizeof(msg));
	_exit(127);
}

static void
drain(int fds[2], struct ab_buf *bufs[2])
{
	struct pollfd pfd[2];
	char tmp[16384];

	for (;;) {
		int n = 0;

		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0) {
				pfd[n].fd = fds[i];
				pfd[n].events = POLLIN;
				n++;
			}
		if (!n)
			return;
		if (poll(pfd, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (int j = 0; j < n; j++) {
			if (!(pfd[j].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			for (int i = 0; i < 2; i++) {
				ssize_t r;

				if (fds[i] != pfd[j].fd)
					continue;
				r = read(fds[i], tmp, sizeof(tmp));
				if (r > 0) {
					ab_buf_add(bufs[i], tmp, (size_t)r);
				} else if (r == 0 || errno != EINTR) {
					close(fds[i]);
					fds[i] = -1;
				}
			}
		}
	}
}

int
ab_proc_run(struct ab_proc_result *res, const struct ab_proc *p)
{
	int status_pipe[2] = {-1, -1}, outp[2] = {-1, -1}, errp[2] = {-1, -1};
	int logfd = -1, devnull = -1, error = -1, status, msg[2];
	double start = ab_now();
	pid_t pid = -1;
	ssize_t n;

	memset(res, 0, sizeof(*res));
	res->pid = -1;
	res->exit_code = -1;
	if (p->log_path && (!p->out || !p->err)) {
		logfd = open(p->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
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
	if (pipe2(status_pipe, O_CLOEXEC) < 0 || (p->out && pipe2(outp, O_CLOEXEC) < 0) ||
	    (p->err && pipe2(errp, O_CLOEXEC) < 0)) {
		ab_error_errno("cannot create pipe for '%s'", p->argv[0]);
		goto done;
	}
	fflush(NULL);
	pid = fork();
	res->pid = (int)pid;
	if (pid < 0) {
		ab_error_errno("cannot fork for '%s'", p->argv[0]);
		goto done;
	}
	if (pid == 0) {
		int out_fd = p->out ? outp[1] : logfd >= 0 ? logfd : devnull;
		int err_fd = p->err ? errp[1] : logfd >= 0 ? logfd : devnull;
		int in_fd = open("/dev/null", O_RDONLY);

		signal(SIGPIPE, SIG_DFL);
		if (in_fd >= 0 && !p->inherit_stdio)
			dup2(in_fd, 0);
		if (out_fd >= 0 && dup2(out_fd, 1) < 0)
			child_fail(status_pipe[1], 0);
		if (err_fd >= 0 && dup2(err_fd, 2) < 0)
			child_fail(status_pipe[1], 0);
		if (p->cwd && chdir(p->cwd) < 0)
			child_fail(status_pipe[1], 1);
		exec_with_env(p->argv, p->envp);
		child_fail(status_pipe[1], 2);
	}
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
		errno = msg[1];
		if (msg[0] == 1)
			ab_error_errno("cannot run '%s': cannot enter directory '%s'", p->argv[0], p->cwd);
		else if (msg[0] == 2)
			ab_error_errno("cannot run '%s'", p->argv[0]);
		else
			ab_error_errno("cannot run '%s': cannot redirect output", p->argv[0]);
		goto done;
	}
	{
		int fds[2] = {outp[0], errp[0]};
		struct ab_buf *bufs[2] = {p->out, p->err};

		drain(fds, bufs);
		outp[0] = errp[0] = -1;
	}
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			ab_error_errno("cannot wait for '%s'", p->argv[0]);
			goto done;
		}
	}
	if (WIFEXITED(status)) {
		res->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		res->exit_code = -1;
		res->signal = WTERMSIG(status);
	}
	error = 0;
done:
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
	return error;
}

void
ab_proc_describe(char *buf, size_t len, const struct ab_proc_result *res)
{
	if (res->signal)
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
