#include "netfwd.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "util.h"

/*
 * copy both ways between a and b until both directions ended; closes
 * neither. With a filter, what a sends goes through it first, and a
 * refusal ends both directions (said on stderr: the relay's log)
 */
static void
splice_fds(int a, int b, struct ab_cacheproto *filter)
{
	struct pollfd p[2] = {{.fd = a, .events = POLLIN}, {.fd = b, .events = POLLIN}};
	char buf[16384];
	struct ab_buf out = {0};
	int open_dirs = 2;

	while (open_dirs > 0) {
		if (poll(p, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			return;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;

			if (p[i].fd < 0 || !(p[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(p[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n > 0 && i == 0 && filter) {
				ab_buf_clear(&out);
				if (ab_cacheproto_feed(filter, buf, (size_t)n, &out) < 0) {
					ab_warn("the remote compile cache's relay ended a connection of a build step: %s",
					    ab_cacheproto_why(filter));
					shutdown(a, SHUT_RDWR);
					shutdown(b, SHUT_RDWR);
					ab_buf_free(&out);
					return;
				}
				if (out.len && ab_write_all(b, out.s, out.len) < 0)
					n = -1;
				else
					continue;
			}
			/* what one side sends goes to the other: a to b, b to a */
			if (n <= 0 || ab_write_all(i ? a : b, buf, (size_t)n) < 0) {
				/* this direction is done: the other side sees the end of it */
				shutdown(i ? a : b, SHUT_WR);
				p[i].fd = -1;
				open_dirs--;
			}
		}
	}
	ab_buf_free(&out);
}

/* ---- outside: unix sockets to TCP ---- */

struct listener {
	struct ab_netfwd *f;
	int fd;
	char *path;
	const struct ab_cacheproto_remote *t;
	pthread_t thread;
	int started;
};

struct ab_netfwd {
	char *dir;
	struct listener *l;
	size_t n;
};

/* a connection's own copy of its remote: a detached thread may outlive the relay */
struct conn {
	int fd;
	struct ab_cacheproto_remote r;
};

static char *
dup_or_null(const char *s)
{
	return s ? ab_strdup(s) : NULL;
}

static int
tcp_connect(const char *host, const char *port)
{
	struct addrinfo hints = {.ai_socktype = SOCK_STREAM}, *res = NULL;
	int fd = -1;

	if (getaddrinfo(host, port, &hints, &res) != 0)
		return -1;
	for (struct addrinfo *a = res; a && fd < 0; a = a->ai_next) {
		fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd >= 0 && connect(fd, a->ai_addr, a->ai_addrlen) < 0) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(res);
	return fd;
}

/*
 * Redis: the relay's AUTH, answered +OK within 10 s, before anything of
 * ccache's; 0, or -1 (a wrong password: the connection ends, and ccache
 * says the remote failed)
 */
static int
redis_auth(int up, const struct ab_cacheproto_remote *r)
{
	struct ab_buf cmd = {0}, reply = {0};
	struct pollfd p = {.fd = up, .events = POLLIN};
	double deadline = ab_now() + 10;
	int e = -1;

	if (!ab_cacheproto_redis_auth(&cmd, r))
		return 0;
	if (ab_write_all(up, cmd.s, cmd.len) < 0)
		goto done;
	while (reply.len < 512 && (!reply.len || reply.s[reply.len - 1] != '\n')) {
		char c;
		int left = (int)((deadline - ab_now()) * 1000);

		if (left <= 0 || poll(&p, 1, left) <= 0 || read(up, &c, 1) != 1)
			goto done;
		ab_buf_putc(&reply, c);
	}
	if (reply.len == 5 && !memcmp(reply.s, "+OK\r\n", 5))
		e = 0;
	else
		ab_warn("the remote compile cache %s:%s refused the relay's AUTH", r->host, r->port);
done:
	ab_buf_free(&cmd);
	ab_buf_free(&reply);
	return e;
}

static void *
conn_thread(void *arg)
{
	struct conn *c = arg;
	int up = tcp_connect(c->r.host, c->r.port);

	/* an unreachable remote: the connection ends, and ccache says the remote failed */
	if (up >= 0 && redis_auth(up, &c->r) == 0) {
		struct ab_cacheproto *filter = ab_cacheproto_new(&c->r);

		splice_fds(c->fd, up, filter);
		ab_cacheproto_free(filter);
	}
	if (up >= 0)
		close(up);
	close(c->fd);
	ab_cacheproto_remote_release(&c->r);
	free(c);
	return NULL;
}

static void *
accept_thread(void *arg)
{
	struct listener *l = arg;

	for (;;) {
		int fd = accept4(l->fd, NULL, NULL, SOCK_CLOEXEC);
		struct conn *c;
		pthread_t th;
		pthread_attr_t attr;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL; /* closed by ab_netfwd_stop */
		}
		c = ab_calloc(1, sizeof(*c));
		c->fd = fd;
		c->r.kind = l->t->kind;
		c->r.host = ab_strdup(l->t->host);
		c->r.port = ab_strdup(l->t->port);
		c->r.user = dup_or_null(l->t->user);
		c->r.password = dup_or_null(l->t->password);
		c->r.http_host = dup_or_null(l->t->http_host);
		c->r.http_auth = dup_or_null(l->t->http_auth);
		c->r.http_prefix = dup_or_null(l->t->http_prefix);
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		if (pthread_create(&th, &attr, conn_thread, c) != 0) {
			close(fd);
			ab_cacheproto_remote_release(&c->r);
			free(c);
		}
		pthread_attr_destroy(&attr);
	}
}

static int
unix_listen(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
ab_netfwd_start(struct ab_netfwd **out, const char *dir, const struct ab_cacheproto_remote *t, size_t n)
{
	struct ab_netfwd *f = ab_calloc(1, sizeof(*f));

	*out = NULL;
	if (mkdir(dir, 0700) < 0) {
		ab_error_errno("cannot create '%s' for the remote compile cache's sockets", dir);
		free(f);
		return AB_EFAIL;
	}
	f->dir = ab_strdup(dir);
	f->n = n;
	f->l = ab_calloc(n ? n : 1, sizeof(*f->l));
	for (size_t i = 0; i < n; i++) {
		struct listener *l = &f->l[i];

		l->f = f;
		l->t = &t[i];
		l->path = ab_sprintf("%s/%zu.sock", dir, i);
		l->fd = unix_listen(l->path);
		if (l->fd < 0) {
			ab_error_errno("cannot listen on '%s' for the remote compile cache", l->path);
			ab_netfwd_stop(f);
			return AB_EFAIL;
		}
		if (pthread_create(&l->thread, NULL, accept_thread, l) != 0) {
			ab_error("cannot start the remote compile cache's forwarder");
			ab_netfwd_stop(f);
			return AB_EFAIL;
		}
		l->started = 1;
	}
	*out = f;
	return 0;
}

void
ab_netfwd_stop(struct ab_netfwd *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++) {
		struct listener *l = &f->l[i];

		if (l->fd >= 0)
			shutdown(l->fd, SHUT_RDWR);
		if (l->started)
			pthread_join(l->thread, NULL);
		if (l->fd >= 0)
			close(l->fd);
		if (l->path)
			unlink(l->path);
		free(l->path);
	}
	if (f->dir)
		rmdir(f->dir);
	free(f->dir);
	free(f->l);
	free(f);
}

/* ---- inside: loopback TCP to the unix sockets ---- */

static int
unix_connect(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -1;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd >= 0 && connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static int
loopback_listen(int port)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((unsigned short)port)};
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), one = 1;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 64) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* the forwarder process: accept on every listener, a child per connection */
static void
serve(const int *fds, char *const *socks, size_t n)
{
	struct pollfd *p = ab_calloc(n, sizeof(*p));
	struct sigaction sa = {.sa_handler = SIG_IGN, .sa_flags = SA_NOCLDWAIT};

	sigaction(SIGCHLD, &sa, NULL);
	for (size_t i = 0; i < n; i++) {
		p[i].fd = fds[i];
		p[i].events = POLLIN;
	}
	for (;;) {
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			_exit(1);
		}
		for (size_t i = 0; i < n; i++) {
			int c;

			if (!(p[i].revents & POLLIN) || (c = accept4(fds[i], NULL, NULL, SOCK_CLOEXEC)) < 0)
				continue;
			if (fork() == 0) {
				int u = unix_connect(socks[i]);

				if (u >= 0)
					splice_fds(c, u, NULL);
				_exit(0);
			}
			close(c);
		}
	}
}

int
ab_netfwd_init_main(int argc, char **argv)
{
	int *fds = ab_calloc((size_t)argc, sizeof(*fds));
	char **socks = ab_calloc((size_t)argc, sizeof(*socks));
	size_t n = 0;
	int i = 1;

	for (; i < argc && strcmp(argv[i], "--"); i++) {
		char *eq = strchr(argv[i], '=');
		int port = eq ? atoi(argv[i]) : 0;

		if (!eq || port <= 0 || port > 65535) {
			fprintf(stderr, "%s: bad argument '%s' (PORT=SOCKET)\n", AB_NETFWD_INIT, argv[i]);
			return 126;
		}
		fds[n] = loopback_listen(port);
		if (fds[n] < 0) {
			fprintf(stderr, "%s: cannot listen on 127.0.0.1:%d: %s\n", AB_NETFWD_INIT, port, strerror(errno));
			return 126;
		}
		socks[n++] = eq + 1;
	}
	if (i + 1 >= argc) {
		fprintf(stderr, "%s: no command after --\n", AB_NETFWD_INIT);
		return 126;
	}
	if (n) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "%s: cannot fork: %s\n", AB_NETFWD_INIT, strerror(errno));
			return 126;
		}
		if (pid == 0)
			serve(fds, socks, n);
		for (size_t k = 0; k < n; k++)
			close(fds[k]);
	}
	execvp(argv[i + 1], argv + i + 1);
	fprintf(stderr, "%s: cannot run '%s': %s\n", AB_NETFWD_INIT, argv[i + 1], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
