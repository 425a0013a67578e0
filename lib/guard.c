#include "guard.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>
#include <sys/wait.h>

#include "util.h"

/* the helper: only async-signal-safe calls */
static void
watch(int fd, void (*on_gone)(const void *arg), const void *arg)
{
	static const int ignored[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE};
	char c;
	ssize_t n;
	int null;

	for (size_t i = 0; i < AB_NELEM(ignored); i++)
		signal(ignored[i], SIG_IGN);
	if ((null = open("/dev/null", O_RDWR | O_CLOEXEC)) >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	if (fd > 3)
		close_range(3, (unsigned)fd - 1, 0);
	close_range((unsigned)fd + 1, ~0U, 0);
	while ((n = read(fd, &c, 1)) < 0 && errno == EINTR)
		;
	/* a byte: let go; end of file: the starter is gone */
	if (n == 0)
		on_gone(arg);
	_exit(0);
}

int
ab_guard_start(struct ab_guard *g, void (*on_gone)(const void *arg), const void *arg)
{
	int p[2];
	pid_t pid;

	g->fd = -1;
	g->pid = 0;
	if (pipe2(p, O_CLOEXEC) < 0) {
		ab_error_errno("cannot make a pipe");
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		ab_error_errno("cannot start a process");
		close(p[0]);
		close(p[1]);
		return -1;
	}
	if (pid == 0) {
		close(p[1]);
		watch(p[0], on_gone, arg);
	}
	close(p[0]);
	g->fd = p[1];
	g->pid = pid;
	return 0;
}

void
ab_guard_done(struct ab_guard *g)
{
	if (g->fd >= 0) {
		(void)!write(g->fd, "", 1);
		close(g->fd);
	}
	if (g->pid > 0)
		while (waitpid((pid_t)g->pid, NULL, 0) < 0 && errno == EINTR)
			;
	g->fd = -1;
	g->pid = 0;
}
