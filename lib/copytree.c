/* copytree: copy a directory tree (lib/copytree.h) */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include "copytree.h"
#include "util.h"

/* the bytes of in into out by read and write; 0 or AB_EFAIL (reported) */
static int
copy_bytes(int in, int out, const char *src, const char *dst)
{
	char buf[1 << 16];
	ssize_t n;

	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ab_error_errno("cannot read '%s'", src);
			return AB_EFAIL;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t w = write(out, buf + off, (size_t)(n - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w < 0) {
				ab_error_errno("cannot write '%s'", dst);
				return AB_EFAIL;
			}
			off += w;
		}
	}
	return 0;
}

static int
copy_file(const char *src, const char *dst, unsigned flags, size_t *cloned)
{
	struct stat st;
	int in = -1, out = -1, error = AB_EFAIL;

	in = open(src, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (in < 0 || fstat(in, &st) < 0) {
		ab_error_errno("cannot read '%s'", src);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		ab_error("'%s' is not a regular file", src);
		goto done;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, st.st_mode & 07777);
	if (out < 0) {
		ab_error_errno("cannot create '%s'", dst);
		goto done;
	}
	/* a clone shares the blocks until either side writes: never a link between the two trees */
	if ((flags & AB_COPY_SAME) && ioctl(out, FICLONE, in) == 0) {
		if (cloned)
			(*cloned)++;
	} else if (copy_bytes(in, out, src, dst) < 0) {
		goto done;
	}
	if (fchmod(out, st.st_mode & 07777) < 0) {
		ab_error_errno("cannot set the mode of '%s'", dst);
		goto done;
	}
	if ((flags & AB_COPY_SAME) && futimens(out, (struct timespec[2]){st.st_atim, st.st_mtim}) < 0) {
		ab_error_errno("cannot set the times of '%s'", dst);
		goto done;
	}
	error = 0;
done:
	if (out >= 0 && close(out) < 0 && !error) {
		ab_error_errno("cannot write '%s'", dst);
		error = AB_EFAIL;
	}
	if (in >= 0)
		close(in);
	return error;
}

int
ab_copy_file(const char *src, const char *dst)
{
	return copy_file(src, dst, 0, NULL);
}

static int
copy_link(const char *src, const char *dst, unsigned flags, const struct stat *st)
{
	ssize_t n;
	size_t cap = 256;
	int e = 0;

	for (;;) {
		char *t = ab_malloc(cap);

		n = readlink(src, t, cap);
		if (n < 0) {
			free(t);
			ab_error_errno("cannot read the link '%s'", src);
			return AB_EFAIL;
		}
		if ((size_t)n < cap) {
			t[n] = 0;
			if (symlink(t, dst) < 0) {
				ab_error_errno("cannot create the link '%s'", dst);
				e = AB_EFAIL;
			} else if ((flags & AB_COPY_SAME) &&
			    utimensat(AT_FDCWD, dst, (struct timespec[2]){st->st_atim, st->st_mtim}, AT_SYMLINK_NOFOLLOW) < 0) {
				ab_error_errno("cannot set the times of the link '%s'", dst);
				e = AB_EFAIL;
			}
			free(t);
			break;
		}
		free(t);
		cap *= 2;
	}
	return e;
}

int
ab_copy_tree(const char *src, const char *dst)
{
	return ab_copy_tree_flags(src, dst, 0, NULL);
}

int
ab_copy_tree_flags(const char *src, const char *dst, unsigned flags, size_t *cloned)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	int error = 0;

	if (lstat(src, &st) < 0) {
		ab_error_errno("cannot read '%s'", src);
		return AB_EFAIL;
	}
	if (S_ISLNK(st.st_mode))
		return copy_link(src, dst, flags, &st);
	if (S_ISREG(st.st_mode))
		return copy_file(src, dst, flags, cloned);
	if (!S_ISDIR(st.st_mode)) {
		ab_error("'%s' is not a file, a directory or a link: not copied", src);
		return AB_EFAIL;
	}
	if (mkdir(dst, 0700) < 0) {
		ab_error_errno("cannot create '%s'", dst);
		return AB_EFAIL;
	}
	d = opendir(src);
	if (!d) {
		ab_error_errno("cannot read '%s'", src);
		return AB_EFAIL;
	}
	while (!error && (errno = 0, de = readdir(d))) {
		char *s, *t;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		s = ab_path_join(src, de->d_name);
		t = ab_path_join(dst, de->d_name);
		error = ab_copy_tree_flags(s, t, flags, cloned);
		free(s);
		free(t);
	}
	if (!error && errno) {
		ab_error_errno("cannot read '%s'", src);
		error = AB_EFAIL;
	}
	closedir(d);
	if (!error && chmod(dst, st.st_mode & 07777) < 0) {
		ab_error_errno("cannot set the mode of '%s'", dst);
		error = AB_EFAIL;
	}
	/* last: its entries' copies changed its time */
	if (!error && (flags & AB_COPY_SAME) &&
	    utimensat(AT_FDCWD, dst, (struct timespec[2]){st.st_atim, st.st_mtim}, 0) < 0) {
		ab_error_errno("cannot set the times of '%s'", dst);
		error = AB_EFAIL;
	}
	return error;
}
