#include "dirwalk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* ROOT joined with the path inside it, or ROOT itself; caller frees */
static char *
display_path(const char *root, const char *rel)
{
	return rel[0] ? ab_path_join(root, rel) : ab_strdup(root);
}

int
ab_dirwalk_stat(const struct stat **st, struct ab_dirwalk_entry *e)
{
	if (!e->has_st) {
		if (fstatat(e->dirfd, e->name, &e->st, AT_SYMLINK_NOFOLLOW) < 0) {
			char *p = display_path(e->root, e->path);

			ab_error_errno("cannot stat '%s'", p);
			free(p);
			return -1;
		}
		e->has_st = 1;
		e->type = IFTODT(e->st.st_mode);
	}
	*st = &e->st;
	return 0;
}

/*
 * The ancestors held open: fd[i] is the directory named by the first
 * end[i] bytes of held (a '/'-separated path relative to the root), each
 * opened relative to the one before (fd[0] relative to the root). In
 * breadth-first order the directories queued under one parent come one
 * after the other, so a directory costs one openat of its last component
 * from its parent's descriptor, plus the ancestors that changed since the
 * previous directory. At most CHAIN_MAX are held, whatever the depth:
 * deeper ancestors are opened for the moment and closed again.
 */
#define CHAIN_MAX 32

struct chain {
	int fd[CHAIN_MAX];
	size_t end[CHAIN_MAX];
	size_t n;
	struct ab_buf held;
};

static void
chain_drop(struct chain *c, size_t keep)
{
	while (c->n > keep)
		close(c->fd[--c->n]);
}

/* open name below parent; reports "cannot open directory" naming rel, the path so far */
static int
open_dir(int parent, const char *name, const char *root, const char *rel)
{
	int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0) {
		char *p = display_path(root, rel);

		ab_error_errno("cannot open directory '%s'", p);
		free(p);
	}
	return fd;
}

/*
 * Open the directory rel ("" for the root itself) one component at a time
 * from the root, O_NOFOLLOW each, reusing the ancestors held in c. rel is
 * the walker's own copy: cut at each '/' for the moment, restored before
 * returning. Reports "cannot open directory" naming the component that
 * failed; returns the descriptor or -1.
 */
static int
open_queued(struct chain *c, int rootfd, const char *root, char *rel)
{
	int parent = rootfd, tmp = -1, fd;
	size_t k = 0, at;
	char *slash;

	if (!rel[0])
		return open_dir(rootfd, ".", root, rel);
	/* the held ancestors that are rel's ancestors too */
	while (k < c->n && !strncmp(c->held.s, rel, c->end[k]) && rel[c->end[k]] == '/')
		k++;
	chain_drop(c, k);
	if (k)
		parent = c->fd[k - 1];
	at = k ? c->end[k - 1] + 1 : 0;
	while ((slash = strchr(rel + at, '/'))) {
		*slash = '\0';
		fd = open_dir(parent, rel + at, root, rel);
		if (fd < 0) {
			*slash = '/';
			if (tmp >= 0)
				close(tmp);
			return -1;
		}
		*slash = '/';
		if (c->n < CHAIN_MAX) {
			c->fd[c->n] = fd;
			c->end[c->n++] = (size_t)(slash - rel);
			ab_buf_clear(&c->held);
			ab_buf_add(&c->held, rel, (size_t)(slash - rel));
		} else {
			if (tmp >= 0)
				close(tmp);
			tmp = fd;
		}
		parent = fd;
		at = (size_t)(slash - rel) + 1;
	}
	fd = open_dir(parent, rel + at, root, rel);
	if (tmp >= 0)
		close(tmp);
	return fd;
}

/*
 * List the directory rel (relative to rootfd, "" for the root itself):
 * call fn for each entry and queue the subdirectories it wants listed.
 * path is the walker's buffer for entry paths.
 */
static int
list_dir(struct chain *c, int rootfd, const char *root, char *rel, struct ab_buf *path,
    struct ab_strv *queue, ab_dirwalk_fn *fn, void *arg)
{
	struct ab_dirwalk_entry e = {.root = root};
	struct dirent *de;
	size_t base;
	DIR *d;
	int fd, error = -1;

	fd = open_queued(c, rootfd, root, rel);
	if (fd < 0)
		return -1;
	if (!(d = fdopendir(fd))) {
		char *p = display_path(root, rel);

		ab_error_errno("cannot open directory '%s'", p);
		free(p);
		close(fd);
		return -1;
	}
	ab_buf_clear(path);
	if (rel[0]) {
		ab_buf_puts(path, rel);
		ab_buf_putc(path, '/');
	}
	base = path->len;
	e.dirfd = dirfd(d);
	for (;;) {
		int rc;

		errno = 0;
		de = readdir(d);
		if (!de)
			break;
		if (de->d_name[0] == '.' && (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		path->len = base;
		ab_buf_puts(path, de->d_name);
		e.path = path->s;
		e.name = path->s + base;
		e.type = de->d_type;
		e.has_st = 0;
		if (e.type == DT_UNKNOWN) {
			const struct stat *st;

			if (ab_dirwalk_stat(&st, &e) < 0)
				goto done;
		}
		rc = fn(&e, arg);
		if (rc < 0)
			goto done;
		if (rc == AB_DIRWALK_DESCEND && e.type == DT_DIR)
			ab_strv_push(queue, e.path);
	}
	if (errno) {
		char *p = display_path(root, rel);

		ab_error_errno("cannot read directory '%s'", p);
		free(p);
		goto done;
	}
	error = 0;
done:
	closedir(d);
	return error;
}

int
ab_dirwalk_fd(int rootfd, const char *root, ab_dirwalk_fn *fn, void *arg)
{
	struct ab_strv queue = {0};
	struct ab_buf path = {0};
	struct chain c = {.n = 0};
	int error = 0;

	ab_strv_push(&queue, "");
	for (size_t q = 0; q < queue.n && !error; q++) {
		error = list_dir(&c, rootfd, root, queue.v[q], &path, &queue, fn, arg);
		/* listed: the queue only grows, so free what is behind */
		free(queue.v[q]);
		queue.v[q] = NULL;
	}
	chain_drop(&c, 0);
	ab_buf_free(&c.held);
	ab_buf_free(&path);
	ab_strv_free(&queue);
	return error;
}

int
ab_dirwalk(const char *root, ab_dirwalk_fn *fn, void *arg)
{
	/* like `cd ROOT`: a symlink to a directory is followed at the top only */
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int error;

	if (fd < 0) {
		ab_error_errno("cannot open directory '%s'", root);
		return -1;
	}
	error = ab_dirwalk_fd(fd, root, fn, arg);
	close(fd);
	return error;
}

/* ---- the resolver ---- */

/* the directories opened below the root, innermost last, with the length of the resolved path at each */
struct beneath {
	int *fd;
	size_t *mark;
	size_t n, cap;
	struct ab_buf path; /* the components resolved so far, for messages */
};

static void
beneath_push(struct beneath *b, int fd, const char *name, size_t n)
{
	if (b->n == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 16;
		b->fd = ab_realloc(b->fd, b->cap * sizeof(*b->fd));
		b->mark = ab_realloc(b->mark, b->cap * sizeof(*b->mark));
	}
	b->mark[b->n] = b->path.len;
	b->fd[b->n++] = fd;
	if (b->path.len)
		ab_buf_putc(&b->path, '/');
	ab_buf_add(&b->path, name, n);
}

static void
beneath_pop(struct beneath *b)
{
	close(b->fd[--b->n]);
	b->path.len = b->mark[b->n];
	b->path.s[b->path.len] = '\0';
}

/* the resolved path with one more component: the symlink being looked at */
static void
why_link(char *why, const char *fmt, const struct beneath *b, const char *name, size_t n)
{
	if (why)
		snprintf(why, AB_BENEATH_WHY, fmt, b->path.len ? b->path.s : "", b->path.len ? "/" : "", (int)n,
		    name);
}

int
ab_dirwalk_open_beneath(int rootfd, const char *rel, int oflags, int flags, char *why)
{
	struct beneath b = {0};
	struct ab_buf todo = {0};
	size_t at = 0;
	int links = 0, fd = -1, err = 0;

	ab_buf_puts(&todo, rel);
	ab_buf_grow(&todo, 0);
	for (;;) {
		const char *name;
		size_t n, next;
		int last, cur, d;
		char target[PATH_MAX + 1];
		ssize_t tn;
		struct stat st;

		while (todo.s[at] == '/')
			at++;
		name = todo.s + at;
		n = strcspn(name, "/");
		if (!n) {
			/* rel named a directory: the one reached */
			fd = openat(b.n ? b.fd[b.n - 1] : rootfd, ".", oflags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
			err = errno;
			break;
		}
		next = at + n;
		while (todo.s[next] == '/')
			next++;
		last = !todo.s[next];
		if (n == 1 && name[0] == '.') {
			at = next;
			continue;
		}
		if (n == 2 && name[0] == '.' && name[1] == '.') {
			if (!b.n) {
				err = EXDEV;
				if (why)
					snprintf(why, AB_BENEATH_WHY, "leaves the directory ('..' above it)");
				break;
			}
			beneath_pop(&b);
			at = next;
			continue;
		}
		cur = b.n ? b.fd[b.n - 1] : rootfd;
		{
			char *one = ab_strndup(name, n);

			if (!last || (flags & AB_BENEATH_MKDIR)) {
				d = openat(cur, one, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (d < 0 && errno == ENOENT && (flags & AB_BENEATH_MKDIR) &&
				    (mkdirat(cur, one, 0777) == 0 || errno == EEXIST))
					d = openat(cur, one, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (d >= 0 && last) {
					/* the directory itself was asked for: open it as asked */
					fd = openat(d, ".", oflags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC);
					err = errno;
					close(d);
					free(one);
					break;
				}
			} else {
				d = openat(cur, one, oflags | O_NOFOLLOW | O_NOCTTY | O_CLOEXEC, 0644);
				if (d >= 0) {
					fd = d;
					free(one);
					break;
				}
			}
			err = errno;
			if (d >= 0) {
				beneath_push(&b, d, name, n);
				at = next;
				free(one);
				continue;
			}
			/* was it a symlink? (O_NOFOLLOW says ELOOP or ENOTDIR, O_EXCL EEXIST) */
			if (fstatat(cur, one, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISLNK(st.st_mode)) {
				free(one);
				if (why)
					snprintf(why, AB_BENEATH_WHY, "%s", strerror(err));
				break;
			}
			tn = readlinkat(cur, one, target, sizeof(target) - 1);
			free(one);
		}
		if (flags & AB_BENEATH_NOSYMLINK) {
			err = ELOOP;
			why_link(why, "goes through symlink '%s%s%.*s'", &b, name, n);
			break;
		}
		if (tn <= 0 || (size_t)tn >= sizeof(target) - 1) {
			err = tn < 0 ? errno : ENAMETOOLONG;
			if (why)
				snprintf(why, AB_BENEATH_WHY, "%s", strerror(err));
			break;
		}
		target[tn] = '\0';
		if (target[0] == '/') {
			err = EXDEV;
			why_link(why, "leaves the directory through symlink '%s%s%.*s'", &b, name, n);
			break;
		}
		if (++links > AB_BENEATH_MAXLINKS) {
			err = ELOOP;
			if (why)
				snprintf(why, AB_BENEATH_WHY, "too many symlinks");
			break;
		}
		{
			/* the target takes the symlink's place in what is left to resolve */
			struct ab_buf rest = {0};
			size_t depth = b.n;
			int climbs = 0;

			/* a target that climbs above the root is refused, naming this symlink */
			for (const char *t = target; *t;) {
				size_t k = strcspn(t, "/");

				if (k == 2 && t[0] == '.' && t[1] == '.') {
					if (!depth) {
						climbs = 1;
						break;
					}
					depth--;
				} else if (k && !(k == 1 && t[0] == '.')) {
					depth++;
				}
				t += k;
				while (*t == '/')
					t++;
			}
			if (climbs) {
				err = EXDEV;
				why_link(why, "leaves the directory through symlink '%s%s%.*s'", &b, name, n);
				break;
			}
			ab_buf_puts(&rest, target);
			if (todo.s[at + n]) {
				ab_buf_putc(&rest, '/');
				ab_buf_puts(&rest, todo.s + next);
			}
			ab_buf_free(&todo);
			todo = rest;
			ab_buf_grow(&todo, 0);
			at = 0;
		}
	}
	while (b.n)
		beneath_pop(&b);
	free(b.fd);
	free(b.mark);
	ab_buf_free(&b.path);
	ab_buf_free(&todo);
	if (fd < 0)
		errno = err;
	return fd;
}

int
ab_dirwalk_open_below(const char *root, const char *rel, int oflags, int flags, char *why)
{
	int rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC), fd, e;

	if (rootfd < 0) {
		e = errno;
		if (why)
			snprintf(why, AB_BENEATH_WHY, "cannot open directory '%s': %s", root, strerror(e));
		errno = e;
		return -1;
	}
	fd = ab_dirwalk_open_beneath(rootfd, rel, oflags, flags, why);
	e = errno;
	close(rootfd);
	errno = e;
	return fd;
}

int
ab_dirwalk_read_below(struct ab_buf *out, const char *root, const char *path, size_t max, int *found)
{
	size_t n = root ? strlen(root) : 0;
	char why[AB_BENEATH_WHY];
	int fd, rc;

	while (n > 1 && root[n - 1] == '/')
		n--;
	if (found)
		*found = 1;
	if (!root || strncmp(path, root, n) || path[n] != '/') {
		if (found && access(path, F_OK) < 0 && errno == ENOENT) {
			*found = 0;
			return 0;
		}
		return ab_read_file_max(out, path, max);
	}
	fd = ab_dirwalk_open_below(root, path + n + 1, O_RDONLY | O_NONBLOCK, 0, why);
	if (fd < 0) {
		if (found && errno == ENOENT) {
			*found = 0;
			return 0;
		}
		if (errno == EXDEV || errno == ELOOP)
			ab_error("cannot read '%s': it %s ('%.*s')", path, why, (int)n, root);
		else
			ab_error("cannot read '%s': %s", path, why);
		return -1;
	}
	rc = ab_read_fd_max(out, fd, path, max);
	close(fd);
	return rc;
}

static int
cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
ab_dirwalk_files(struct ab_strv *out, const char *root, const char *rel, int (*accept)(const char *name, void *arg),
    void *arg, int (*cmp)(const void *, const void *))
{
	char *dir = ab_path_join(root, rel);
	struct ab_strv names = {0};
	struct dirent *de;
	DIR *d = opendir(dir);

	free(dir);
	if (!d) {
		if (errno == ENOENT || errno == ENOTDIR)
			return 0;
		ab_error_errno("cannot read '%s/%s'", root, rel);
		return AB_EFAIL;
	}
	while ((de = readdir(d))) {
		struct stat st;

		if (accept(de->d_name, arg) && fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISREG(st.st_mode))
			ab_strv_push(&names, de->d_name);
	}
	closedir(d);
	if (names.n)
		qsort(names.v, names.n, sizeof(*names.v), cmp ? cmp : cmp_names);
	for (size_t i = 0; i < names.n; i++)
		ab_strv_pushf(out, "%s/%s", rel, names.v[i]);
	ab_strv_free(&names);
	return 0;
}
