#include "cache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/atomic.h"
#include "../lib/hash.h"
#include "../lib/util.h"

char *
ab_cache_default_dir(const char *option)
{
	const char *e;

	if (option && option[0])
		return ab_path_absolute(option);
	if ((e = getenv("ALLOCBUILD_CACHE")) && e[0])
		return ab_path_absolute(e);
	if ((e = getenv("XDG_CACHE_HOME")) && e[0] == '/')
		return ab_sprintf("%s/allocbuild", e);
	if ((e = getenv("HOME")) && e[0])
		return ab_sprintf("%s/.cache/allocbuild", e);
	return ab_path_absolute(".allocbuild-cache");
}

void
ab_cache_init(struct ab_cache *c, const char *dir)
{
	memset(c, 0, sizeof(*c));
	c->dir = ab_path_absolute(dir);
	c->lock_fd = -1;
}

void
ab_cache_release(struct ab_cache *c)
{
	if (c->lock_fd >= 0)
		close(c->lock_fd);
	free(c->dir);
	memset(c, 0, sizeof(*c));
	c->lock_fd = -1;
}

static int
rm_stale(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	const char *base = path + ftw->base;
	size_t n = strlen(base);

	(void)st;
	if (flag != FTW_F)
		return 0;
	/* libgit2's lock files and temporary packs of an interrupted fetch */
	if ((n > 5 && !strcmp(base + n - 5, ".lock")) || !strncmp(base, "pack_git2_", 10) ||
	    !strncmp(base, "tmp_", 4)) {
		if (unlink(path) == 0)
			ab_note("removed stale '%s'", path);
	}
	return 0;
}

/* under the exclusive lock nobody else writes: remove what interrupted runs left */
static void
clean_stale(const struct ab_cache *c)
{
	char *tmp = ab_path_join(c->dir, "tmp");
	char *git = ab_path_join(c->dir, "git");
	DIR *d;
	struct dirent *de;

	if ((d = opendir(tmp))) {
		while ((de = readdir(d))) {
			char *p;

			if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
				continue;
			p = ab_path_join(tmp, de->d_name);
			ab_rm_rf(p);
			free(p);
		}
		closedir(d);
	}
	if ((d = opendir(git))) {
		while ((de = readdir(d))) {
			static const char *const sub[] = {"refs", "objects/pack", "logs"};
			static const char *const top[] = {"HEAD.lock", "config.lock", "packed-refs.lock",
			    "FETCH_HEAD.lock", "index.lock", "shallow.lock"};
			char *repo;

			if (de->d_name[0] == '.')
				continue;
			repo = ab_path_join(git, de->d_name);
			for (size_t i = 0; i < AB_NELEM(sub); i++) {
				char *p = ab_path_join(repo, sub[i]);

				nftw(p, rm_stale, 16, FTW_PHYS);
				free(p);
			}
			for (size_t i = 0; i < AB_NELEM(top); i++) {
				char *p = ab_path_join(repo, top[i]);

				if (unlink(p) == 0)
					ab_note("removed stale '%s'", p);
				free(p);
			}
			free(repo);
		}
		closedir(d);
	}
	free(tmp);
	free(git);
}

static int
holder_pid(int fd)
{
	char buf[32];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

	if (n <= 0)
		return 0;
	buf[n] = '\0';
	return atoi(buf);
}

int
ab_cache_lock(struct ab_cache *c, int exclusive)
{
	char *path;
	int op = exclusive ? LOCK_EX : LOCK_SH;

	if (c->readonly)
		exclusive = 0;
	if (c->depth > 0 && (c->exclusive || !exclusive)) {
		c->depth++;
		return 0;
	}
	if (c->lock_fd < 0 && !c->readonly) {
		path = ab_path_join(c->dir, "lock");
		if (ab_is_dir(c->dir) && (c->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0 &&
		    (errno == EACCES || errno == EROFS || errno == EPERM)) {
			/* a cache this process may not write (pre-filled, read-only): what it holds is used */
			c->readonly = 1;
			exclusive = 0;
			c->lock_fd = open(path, O_RDONLY | O_CLOEXEC);
			ab_note("the cache '%s' is read-only: using what it holds", c->dir);
			free(path);
			if (c->lock_fd < 0) {
				c->depth++;
				return 0;
			}
		} else {
			char *tmp = ab_path_join(c->dir, "tmp");

			if (c->lock_fd < 0 && ab_mkdir_p(tmp, 0755) == 0)
				c->lock_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
			if (c->lock_fd < 0) {
				ab_error_errno("cannot open the cache lock '%s'", path);
				free(tmp);
				free(path);
				return -1;
			}
			if (ab_mkdir_p(tmp, 0755) < 0) {
				free(tmp);
				free(path);
				return -1;
			}
			free(tmp);
			free(path);
		}
	}
	if (c->lock_fd < 0) {
		/* read-only without a lock file: nobody can write it, nobody needs to wait */
		c->depth++;
		return 0;
	}
	if (flock(c->lock_fd, op | LOCK_NB) < 0) {
		if (errno != EWOULDBLOCK) {
			ab_error_errno("cannot lock the cache '%s'", c->dir);
			return -1;
		}
		{
			int pid = holder_pid(c->lock_fd);

			if (pid > 0)
				fprintf(stderr, "allocbuild: waiting for the cache lock held by pid %d\n", pid);
			else
				fprintf(stderr, "allocbuild: waiting for the cache lock '%s/lock'\n", c->dir);
			fflush(stderr);
		}
		while (flock(c->lock_fd, op) < 0) {
			if (errno != EINTR) {
				ab_error_errno("cannot lock the cache '%s'", c->dir);
				return -1;
			}
		}
	}
	if (exclusive) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());

		if (ftruncate(c->lock_fd, 0) == 0 && pwrite(c->lock_fd, buf, (size_t)n, 0) < 0)
			ab_warn("cannot record the pid in '%s/lock'", c->dir);
		clean_stale(c);
	}
	c->exclusive = exclusive;
	c->depth++;
	return 0;
}

void
ab_cache_unlock(struct ab_cache *c)
{
	if (c->depth <= 0 || --c->depth > 0)
		return;
	if (c->lock_fd >= 0)
		flock(c->lock_fd, LOCK_UN);
	c->exclusive = 0;
}

char *
ab_cache_tmp_path(const struct ab_cache *c, const char *hint)
{
	static unsigned counter;
	char rnd[AB_HEX_LEN + 1];
	char seed[96];
	int n = snprintf(seed, sizeof(seed), "%ld.%u.%f", (long)getpid(), counter++, ab_now());

	ab_hash_buf(rnd, seed, (size_t)n);
	rnd[12] = '\0';
	return ab_sprintf("%s/tmp/%s-%ld-%s", c->dir, hint, (long)getpid(), rnd);
}

char *
ab_cache_archive_path(const struct ab_cache *c, const char *sha256)
{
	return ab_sprintf("%s/archives/sha256/%s", c->dir, sha256);
}

char *
ab_cache_archive_origin(const struct ab_cache *c, const char *sha256)
{
	char *path = ab_sprintf("%s/archives/origin/%s", c->dir, sha256);
	struct ab_buf b = {0};
	char *out = NULL;

	/* the one bounded reader: a regular file of one line (a missing one is no origin) */
	ab_report_mute();
	if (ab_path_exists(path) && ab_read_file_max(&b, path, 65536) == 0 && b.len)
		out = ab_strndup(b.s, strcspn(b.s, "\n"));
	ab_report_unmute();
	ab_buf_free(&b);
	free(path);
	return out;
}

int
ab_cache_set_archive_origin(const struct ab_cache *c, const char *sha256, const char *origin)
{
	char *dir = ab_sprintf("%s/archives/origin", c->dir);
	char *path = ab_path_join(dir, sha256);
	char *line = ab_sprintf("%s\n", origin);
	int error = ab_mkdir_p(dir, 0755);

	if (!error)
		error = ab_write_file_atomic(path, line, strlen(line));
	free(dir);
	free(path);
	free(line);
	return error;
}

char *
ab_cache_git_path(const struct ab_cache *c, const char *url)
{
	char hex[AB_HEX_LEN + 1];

	ab_hash_buf(hex, url, strlen(url));
	return ab_sprintf("%s/git/%s.git", c->dir, hex);
}
