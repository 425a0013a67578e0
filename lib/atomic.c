#include "atomic.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stale.h"
#include "util.h"

/* the temporaries of this process, numbered; threads write manifests side by side */
static atomic_uint counter;

static void
release(struct ab_atomic *a)
{
	free(a->path);
	free(a->tmp);
	a->path = a->tmp = NULL;
	a->fd = -1;
}

int
ab_atomic_open(struct ab_atomic *a, const char *path, int flags)
{
	long pid = (long)getpid();

	a->path = ab_strdup(path);
	a->tmp = NULL;
	a->fd = -1;
	a->flags = flags;
	/* a name taken can only be a dead writer's that had this pid: try the next */
	for (int tries = 0; tries < 64; tries++) {
		free(a->tmp);
		a->tmp = ab_sprintf("%s.tmp.%ld.%u", path, pid, atomic_fetch_add(&counter, 1));
		if (flags & AB_ATOMIC_BYNAME) {
			if (unlink(a->tmp) == 0 || errno == ENOENT)
				return 0;
			break;
		}
		a->fd = open(a->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (a->fd >= 0) {
			/* 0644 whatever the umask, as every manifest has been */
			if (fchmod(a->fd, 0644) == 0)
				return 0;
			close(a->fd);
			unlink(a->tmp);
			break;
		}
		if (errno != EEXIST)
			break;
	}
	ab_error_errno("cannot create temporary file for '%s'", path);
	release(a);
	return AB_EFAIL;
}

void
ab_atomic_abort(struct ab_atomic *a)
{
	if (!a->tmp)
		return;
	if (a->fd >= 0)
		close(a->fd);
	unlink(a->tmp);
	release(a);
}

/* make the rename itself durable; a directory that cannot be synced is no error */
static void
sync_dir(const char *path)
{
	char *dir = ab_path_dirname(path);
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (dfd >= 0) {
		fsync(dfd);
		close(dfd);
	}
	free(dir);
}

int
ab_atomic_commit(struct ab_atomic *a)
{
	int sync = !(a->flags & AB_ATOMIC_NOSYNC);

	if (a->fd < 0 && sync)
		a->fd = open(a->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (sync && (a->fd < 0 || fsync(a->fd) < 0)) {
		ab_error_errno("cannot sync '%s'", a->tmp);
		ab_atomic_abort(a);
		return AB_EFAIL;
	}
	if ((a->fd >= 0 && close(a->fd) < 0) || rename(a->tmp, a->path) < 0) {
		a->fd = -1;
		ab_error_errno("cannot replace '%s'", a->path);
		ab_atomic_abort(a);
		return AB_EFAIL;
	}
	a->fd = -1;
	if (sync)
		sync_dir(a->path);
	release(a);
	return 0;
}

int
ab_atomic_check(const char *path)
{
	char *dir = ab_path_dirname(path);
	struct stat st;
	int rc = 0;

	if (lstat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
		if (S_ISDIR(st.st_mode)) {
			errno = EISDIR;
			ab_error_errno("cannot replace '%s'", path);
		} else {
			ab_error("cannot replace '%s': not a regular file", path);
		}
		rc = AB_EFAIL;
	} else {
		int err = 0;

		if (stat(dir, &st) < 0)
			err = errno;
		else if (!S_ISDIR(st.st_mode))
			err = ENOTDIR;
		else if (access(dir, W_OK | X_OK) < 0)
			err = errno;
		if (err) {
			errno = err;
			ab_error_errno("cannot write into '%s'", dir);
			rc = AB_EFAIL;
		}
	}
	free(dir);
	return rc;
}

int
ab_atomic_write(const char *path, const void *data, size_t len, int flags)
{
	struct ab_atomic a;

	if (ab_atomic_open(&a, path, flags & AB_ATOMIC_NOSYNC) < 0)
		return AB_EFAIL;
	if (ab_write_all(a.fd, data, len) < 0) {
		ab_error_errno("cannot write '%s'", a.tmp);
		ab_atomic_abort(&a);
		return AB_EFAIL;
	}
	return ab_atomic_commit(&a);
}

int
ab_write_file_atomic(const char *path, const void *data, size_t len)
{
	return ab_atomic_write(path, data, len, 0);
}

/* ".<digits>" ending at end (exclusive); the position of its '.', or NULL */
static const char *
digits_before(const char *start, const char *end)
{
	const char *p = end;

	while (p > start && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (p == end || p == start || p[-1] != '.')
		return NULL;
	return p - 1;
}

int
ab_atomic_is_temporary(const char *name, long *pid)
{
	const char *end = name + strlen(name), *n_dot, *pid_dot;

	if (!(n_dot = digits_before(name, end)) || !(pid_dot = digits_before(name, n_dot)))
		return 0;
	if (pid_dot - name < 5 || strncmp(pid_dot - 4, ".tmp", 4))
		return 0;
	if (pid)
		*pid = strtol(pid_dot + 1, NULL, 10);
	return 1;
}

int
ab_atomic_clean_stale(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int removed = 0;

	if (!d)
		return 0;
	while ((de = readdir(d))) {
		long pid;
		char *p, why[160];

		if (!ab_atomic_is_temporary(de->d_name, &pid) || pid <= 0 || pid == (long)getpid())
			continue;
		/* a live process (ours or another user's, EPERM) may still commit it */
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		p = ab_path_join(dir, de->d_name);
		/* only a file of ours (lib/stale.h): not a link, this user's; another's is named and left */
		if (ab_stale_own(p, AB_STALE_FILE, 0, why, sizeof(why)) < 0)
			ab_warn("'%s' is named like an interrupted writer's temporary but is not provably one (%s): left alone",
			    p, why);
		else if (unlinkat(dirfd(d), de->d_name, 0) == 0) {
			ab_note("removed '%s', left by an interrupted run (pid %ld)", p, pid);
			removed++;
		}
		free(p);
	}
	closedir(d);
	return removed;
}
