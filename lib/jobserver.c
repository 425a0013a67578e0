#include "jobserver.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "util.h"

/* GNU make's token byte */
#define TOKEN '+'

struct ab_jobserver {
	int fds[2];
	int n;
	int held; /* tokens taken by ab_jobserver_acquire and not yet given back */
	pthread_mutex_t lock;
};

/* move fd above stdin/stdout/stderr, which a child gets redirected */
static int
above_stdio(int *fd)
{
	int nfd;

	if (*fd > 2)
		return 0;
	nfd = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
	if (nfd < 0)
		return -1;
	close(*fd);
	*fd = nfd;
	return 0;
}

/*
 * Back to exactly n tokens. Called with the lock held and no token held
 * by any step: no make of ours is running, so whatever is missing was
 * lost with a killed make.
 */
static int
refill(struct ab_jobserver *js)
{
	int avail = 0;
	char buf[256];

	if (ioctl(js->fds[0], FIONREAD, &avail) < 0)
		return -1;
	while (avail > js->n) {
		size_t want = (size_t)(avail - js->n) < sizeof(buf) ? (size_t)(avail - js->n) : sizeof(buf);
		ssize_t got = read(js->fds[0], buf, want);

		if (got <= 0)
			return -1;
		avail -= (int)got;
	}
	for (int i = 0; i < (int)sizeof(buf); i++)
		buf[i] = TOKEN;
	while (avail < js->n) {
		size_t want = (size_t)(js->n - avail) < sizeof(buf) ? (size_t)(js->n - avail) : sizeof(buf);
		ssize_t put = write(js->fds[1], buf, want);

		if (put <= 0)
			return -1;
		avail += (int)put;
	}
	return 0;
}

int
ab_jobserver_open(struct ab_jobserver **out, int n)
{
	struct ab_jobserver *js = ab_calloc(1, sizeof(*js));

	*out = NULL;
	js->n = n < 1 ? 1 : n;
	if (pipe2(js->fds, O_CLOEXEC) < 0) {
		ab_error_errno("cannot create the jobserver pipe");
		free(js);
		return -1;
	}
	/* make sets the read end non-blocking anyway: do it from the start */
	if (above_stdio(&js->fds[0]) < 0 || above_stdio(&js->fds[1]) < 0 ||
	    fcntl(js->fds[0], F_SETFL, fcntl(js->fds[0], F_GETFL) | O_NONBLOCK) < 0) {
		ab_error_errno("cannot set up the jobserver pipe");
		close(js->fds[0]);
		close(js->fds[1]);
		free(js);
		return -1;
	}
	pthread_mutex_init(&js->lock, NULL);
	refill(js);
	*out = js;
	return 0;
}

int
ab_jobserver_acquire(struct ab_jobserver *js)
{
	for (;;) {
		struct pollfd pfd = {.fd = js->fds[0], .events = POLLIN};
		char c;
		ssize_t got;

		pthread_mutex_lock(&js->lock);
		got = read(js->fds[0], &c, 1);
		if (got == 1) {
			js->held++;
			pthread_mutex_unlock(&js->lock);
			return 0;
		}
		if (got < 0 && errno != EAGAIN && errno != EINTR) {
			ab_error_errno("cannot read a token from the jobserver pipe");
			pthread_mutex_unlock(&js->lock);
			return -1;
		}
		if (js->held == 0) {
			/* nobody can give one back: tokens were lost */
			if (refill(js) < 0) {
				ab_error_errno("cannot refill the jobserver pipe");
				pthread_mutex_unlock(&js->lock);
				return -1;
			}
			pthread_mutex_unlock(&js->lock);
			continue;
		}
		pthread_mutex_unlock(&js->lock);
		/* a make or another step gives one back; the timeout only guards against surprises */
		if (poll(&pfd, 1, 1000) < 0 && errno != EINTR) {
			ab_error_errno("cannot wait for the jobserver pipe");
			return -1;
		}
	}
}

void
ab_jobserver_release(struct ab_jobserver *js)
{
	char c = TOKEN;

	pthread_mutex_lock(&js->lock);
	if (js->held > 0)
		js->held--;
	if (js->held == 0)
		(void)refill(js); /* the next acquire retries and reports */
	else
		while (write(js->fds[1], &c, 1) < 0 && errno == EINTR)
			;
	pthread_mutex_unlock(&js->lock);
}

void
ab_jobserver_fds(const struct ab_jobserver *js, int fds[2])
{
	fds[0] = js->fds[0];
	fds[1] = js->fds[1];
}

int
ab_jobserver_size(const struct ab_jobserver *js)
{
	return js->n;
}

void
ab_jobserver_free(struct ab_jobserver *js)
{
	if (!js)
		return;
	close(js->fds[0]);
	close(js->fds[1]);
	pthread_mutex_destroy(&js->lock);
	free(js);
}
