#include "localdir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/dirwalk.h"
#include "../lib/util.h"

/* a dirHash covers the names and contents of regular files: anything but those and directories would be unpinned */
static int
only_files(struct ab_dirwalk_entry *e, void *arg)
{
	const char *what = arg;

	if (e->type == DT_DIR)
		return AB_DIRWALK_DESCEND;
	if (e->type == DT_REG)
		return 0;
	ab_error("%s: '%s/%s' is a %s: a dir source holds regular files and directories only", what, e->root,
	    e->path, e->type == DT_LNK ? "symlink" : "special file");
	return -1;
}

/*
 * root/rel, a directory that stays inside root: opened one component at a
 * time from root (lib/dirwalk's containment check), a symlink on the way
 * followed only while it stays inside; the path to walk into *dir
 */
static int
contained(char **dir, const char *what, const char *root, const char *rel)
{
	char why[AB_BENEATH_WHY];
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd = -1;

	*dir = ab_path_join(root, rel);
	if (rootfd < 0) {
		ab_error_errno("%s: cannot use the recipe's directory '%s'", what, root);
		return AB_EFAIL;
	}
	fd = ab_dirwalk_open_beneath(rootfd, rel, O_RDONLY | O_DIRECTORY, 0, why);
	close(rootfd);
	if (fd < 0) {
		if (errno == EXDEV || errno == ELOOP)
			ab_error("%s: directory '%s' %s: a dir source stays inside the recipe's directory '%s'", what,
			    rel, why, root);
		else if (errno == ENOTDIR)
			ab_error("%s: '%s' is not a directory", what, *dir);
		else
			ab_error("%s: cannot use directory '%s': %s", what, *dir, why);
		return AB_EFAIL;
	}
	close(fd);
	return 0;
}

int
ab_localdir_check(char hex[AB_HEX_LEN + 1], uint64_t *files, uint64_t *bytes, const char *what,
    const char *root, const char *rel, const char *want)
{
	char *dir = NULL;
	int e = contained(&dir, what, root, rel);

	if (e < 0)
		goto done;
	e = AB_EFAIL;
	if (ab_dirwalk(dir, only_files, (void *)what) < 0 || ab_hash_tree_count(hex, files, bytes, dir, 0) < 0)
		goto done;
	e = 0;
	if (strcmp(hex, want)) {
		ab_error("%s: directory '%s' has dirHash %s, the recipe pins %s", what, dir, hex, want);
		e = AB_ECHECK;
	}
done:
	free(dir);
	return e;
}

struct copy {
	const char *what, *dest;
	char buf[65536];
};

static int
copy_file(struct copy *c, struct ab_dirwalk_entry *e, const char *to)
{
	const struct stat *st;
	int in, out, error = AB_EFAIL;
	ssize_t n;

	if (ab_dirwalk_stat(&st, e) < 0)
		return AB_EFAIL;
	in = openat(e->dirfd, e->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (in < 0) {
		ab_error_errno("%s: cannot open '%s/%s'", c->what, e->root, e->path);
		return AB_EFAIL;
	}
	out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, (st->st_mode & 0111) ? 0755 : 0644);
	if (out < 0) {
		ab_error_errno("%s: cannot create '%s'", c->what, to);
		close(in);
		return AB_EFAIL;
	}
	while ((n = read(in, c->buf, sizeof(c->buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ab_error_errno("%s: cannot read '%s/%s'", c->what, e->root, e->path);
			goto done;
		}
		if (ab_write_all(out, c->buf, (size_t)n) < 0) {
			ab_error_errno("%s: cannot write '%s'", c->what, to);
			goto done;
		}
	}
	error = 0;
done:
	close(in);
	if (close(out) < 0 && !error) {
		ab_error_errno("%s: cannot write '%s'", c->what, to);
		error = AB_EFAIL;
	}
	return error;
}

static int
copy_visit(struct ab_dirwalk_entry *e, void *arg)
{
	struct copy *c = arg;
	char *to = ab_path_join(c->dest, e->path);
	int r = 0;

	switch (e->type) {
	case DT_DIR:
		if (mkdir(to, 0755) < 0) {
			ab_error_errno("%s: cannot create directory '%s'", c->what, to);
			r = AB_EFAIL;
		} else {
			r = AB_DIRWALK_DESCEND;
		}
		break;
	case DT_REG:
		r = copy_file(c, e, to);
		break;
	default:
		r = only_files(e, (void *)c->what);
	}
	free(to);
	return r < 0 ? -1 : r;
}

int
ab_localdir_copy(const char *what, const char *root, const char *rel, const char *dest, const char *want)
{
	struct copy *c;
	char hex[AB_HEX_LEN + 1], *dir = NULL;
	int e = contained(&dir, what, root, rel);

	if (e < 0)
		goto done;
	c = ab_calloc(1, sizeof(*c));
	c->what = what;
	c->dest = dest;
	e = ab_dirwalk(dir, copy_visit, c) < 0 || ab_hash_tree(hex, dest, 0) < 0 ? AB_EFAIL : 0;
	free(c);
	if (e == 0 && strcmp(hex, want)) {
		ab_error("%s: the copy of directory '%s' has dirHash %s, the recipe pins %s (it changed while copied)",
		    what, dir, hex, want);
		e = AB_ECHECK;
	}
done:
	free(dir);
	return e;
}
