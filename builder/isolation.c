#include "isolation.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ccwrap.h"

void
ab_isolation_variant(struct ab_sandbox *sb, const struct ab_isolation_dirs *d)
{
	ab_sandbox_tmpfs(sb, AB_FIXED_ROOT);
	ab_sandbox_dir(sb, AB_FIXED_HOME);
	if (d->variants)
		ab_sandbox_bind(sb, d->variants, AB_FIXED_VARIANTS, 0);
	if (d->src)
		ab_sandbox_bind(sb, d->src, AB_FIXED_SRC, 1);
	if (d->build)
		ab_sandbox_bind(sb, d->build, AB_FIXED_BUILD, 1);
	/*
	 * allocbuild writes its own logs there, outside the sandbox: a step that
	 * could make an entry there could make allocbuild write through a link
	 */
	if (d->logs)
		ab_sandbox_bind(sb, d->logs, AB_FIXED_LOGS, 0);
	for (size_t i = 0; d->logs && d->log_files && d->log_files[i]; i++) {
		char *real = ab_path_join(d->logs, d->log_files[i]);
		char *inside = ab_sprintf("%s/%s", AB_FIXED_LOGS, d->log_files[i]);

		ab_sandbox_bind(sb, real, inside, 1);
		free(real);
		free(inside);
	}
	if (d->probe)
		ab_sandbox_bind(sb, d->probe, AB_FIXED_PROBE, 1);
	if (d->self) {
		ab_sandbox_bind(sb, d->self, AB_FIXED_BIN, 0);
		for (size_t i = 0; ab_ccwrap_tools[i]; i++) {
			char *link = ab_sprintf("%s/%s", AB_FIXED_CCWRAP, ab_ccwrap_tools[i]);

			ab_sandbox_link(sb, AB_FIXED_BIN, link);
			free(link);
		}
	}
	if (d->ccache)
		ab_sandbox_bind(sb, d->ccache, AB_FIXED_CCACHE, 1);
	for (size_t i = 0; d->tools && d->tools[i]; i++)
		ab_sandbox_bind(sb, d->tools[i], d->tools[i], 0);
}

int
ab_isolation_log_files(const char *logs, const char *const *names)
{
	for (size_t i = 0; names && names[i]; i++) {
		char *path = ab_path_join(logs, names[i]);
		int fd;

		/* never through a link: O_NOFOLLOW, and a fresh file */
		if (unlink(path) < 0 && errno != ENOENT) {
			ab_error_errno("cannot remove '%s'", path);
			free(path);
			return AB_EFAIL;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (fd < 0) {
			ab_error_errno("cannot create '%s'", path);
			free(path);
			return AB_EFAIL;
		}
		close(fd);
		free(path);
	}
	return 0;
}

void
ab_isolation_source(struct ab_sandbox *sb, const char *src)
{
	ab_sandbox_tmpfs(sb, AB_FIXED_ROOT);
	ab_sandbox_dir(sb, AB_FIXED_HOME);
	ab_sandbox_bind(sb, src, AB_FIXED_SRC, 1);
}

char *
ab_isolation_artifact(const char *label, const char *path)
{
	return ab_sprintf("%s/%s/build/%s", AB_FIXED_VARIANTS, label, path);
}

/* one URL of the list: onto out, rewritten as the sandbox reaches it (lib/cacheproto.h) */
static void
remote_one(struct ab_buf *out, const char *url, size_t len, struct ab_cacheproto_remote **t, size_t *n,
    struct ab_strv *paths)
{
	size_t attrs = strcspn(url, "|");
	char addr[32];

	if (attrs > len)
		attrs = len;
	if (!strncmp(url, "file:", 5) || !strncmp(url, "redis+unix:", 11)) {
		const char *path = url + (url[0] == 'f' ? 5 : 11);
		size_t plen = attrs - (size_t)(path - url);

		if (!strncmp(path, "//", 2)) {
			path += 2;
			plen -= 2;
		}
		ab_strv_push_owned(paths, ab_strndup(path, plen));
		ab_buf_add(out, url, len);
		return;
	}
	*t = ab_realloc(*t, (*n + 1) * sizeof(**t));
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", AB_NETFWD_PORT + (int)*n);
	if (ab_cacheproto_remote_parse(&(*t)[*n], out, url, len, addr) < 0) {
		ab_buf_add(out, url, len);
		return;
	}
	(*n)++;
}

char *
ab_isolation_remote(const char *urls, struct ab_cacheproto_remote **targets, size_t *ntargets, struct ab_strv *paths)
{
	struct ab_buf out = {0};
	const char *s = urls;

	*targets = NULL;
	*ntargets = 0;
	while (*s) {
		size_t n = strcspn(s, " ");

		if (n)
			remote_one(&out, s, n, targets, ntargets, paths);
		s += n;
		while (*s == ' ')
			ab_buf_putc(&out, *s++);
	}
	return ab_buf_detach(&out);
}

void
ab_isolation_targets_free(struct ab_cacheproto_remote *t, size_t n)
{
	for (size_t i = 0; i < n; i++)
		ab_cacheproto_remote_release(&t[i]);
	free(t);
}

void
ab_isolation_net(struct ab_sandbox *sb, const char *net, size_t n)
{
	char *init = ab_sprintf("%s/%s", AB_FIXED_ROOT "/bin", AB_NETFWD_INIT);

	ab_sandbox_bind(sb, net, AB_FIXED_NET, 1);
	ab_sandbox_link(sb, AB_FIXED_BIN, init);
	ab_strv_push(&sb->init, init);
	for (size_t i = 0; i < n; i++)
		ab_strv_pushf(&sb->init, "%d=%s/%zu.sock", AB_NETFWD_PORT + (int)i, AB_FIXED_NET, i);
	ab_strv_push(&sb->init, "--");
	free(init);
}
