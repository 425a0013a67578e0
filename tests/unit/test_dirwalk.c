/*
 * Unit tests of the directory walker (lib/dirwalk.h): every entry
 * exactly once, breadth-first, "." and ".." never; descend control;
 * symlinks never followed, also when a directory is swapped for one
 * mid-walk; the lazily fetched stat; a callback's error stopping the
 * walk; and the exact messages for directories that cannot be opened
 * (removed mid-walk, a file as root, missing, unreadable: run as nobody
 * when the test runs as root). A middle component swapped mid-walk for a
 * symlink to a directory outside the tree is never followed: held open,
 * the walk goes on in the directory it listed; opened by name, it is
 * reported. A tree deeper than PATH_MAX is walked completely, with a
 * bounded number of descriptors.
 */
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../../lib/atomic.h"
#include "../../lib/dirwalk.h"
#include "../../lib/util.h"
#include "unit.h"

/* an entry to create: 'd' directory, 'f' file holding data, 'l' symlink to data, 'p' fifo */
struct node {
	char kind;
	const char *path, *data;
};

static void
make(const char *root, const struct node *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *path = ab_path_join(root, v[i].path);
		int rc;

		if (v[i].kind == 'd')
			rc = mkdir(path, 0755);
		else if (v[i].kind == 'f')
			rc = ab_write_file_atomic(path, v[i].data, strlen(v[i].data));
		else if (v[i].kind == 'l')
			rc = symlink(v[i].data, path);
		else
			rc = mkfifo(path, 0644);
		if (rc < 0) {
			perror(path);
			exit(1);
		}
		free(path);
	}
}

static char
type_char(unsigned char type)
{
	switch (type) {
	case DT_REG:
		return 'f';
	case DT_DIR:
		return 'd';
	case DT_LNK:
		return 'l';
	case DT_FIFO:
		return 'p';
	default:
		return '?';
	}
}

/* what a walk saw: "<type> <path>" per entry in walk order, and the calls */
struct seen {
	struct ab_strv v;
	int calls;
	int stop_at;          /* return -1 on this call (1-based), 0: never */
	const char *skip;     /* do not descend into this path */
	int stat_all;         /* fetch the stat of every entry and check it */
	int stat_bad;
};

static int
collect(struct ab_dirwalk_entry *e, void *arg)
{
	struct seen *s = arg;
	const char *slash = strrchr(e->path, '/');

	s->calls++;
	if (strcmp(e->name, slash ? slash + 1 : e->path))
		s->stat_bad++;
	if (s->stat_all) {
		const struct stat *st;
		struct stat want;

		if (ab_dirwalk_stat(&st, e) < 0 || fstatat(e->dirfd, e->name, &want, AT_SYMLINK_NOFOLLOW) < 0 ||
		    st->st_ino != want.st_ino || IFTODT(st->st_mode) != e->type)
			s->stat_bad++;
	}
	ab_strv_pushf(&s->v, "%c %s", type_char(e->type), e->path);
	if (s->stop_at && s->calls == s->stop_at)
		return -1;
	if (s->skip && !strcmp(e->path, s->skip))
		return 0;
	/* asked for every entry: the walker descends into directories only */
	return AB_DIRWALK_DESCEND;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the sorted records joined with ',' ; caller frees */
static char *
sorted(struct ab_strv *v)
{
	struct ab_buf b = {0};

	qsort(v->v, v->n, sizeof(*v->v), cmp_str);
	for (size_t i = 0; i < v->n; i++) {
		if (i)
			ab_buf_putc(&b, ',');
		ab_buf_puts(&b, v->v[i]);
	}
	return ab_buf_detach(&b);
}

static size_t
depth(const char *rec)
{
	size_t n = 0;

	for (; *rec; rec++)
		n += *rec == '/';
	return n;
}

static void
test_coverage(const char *root)
{
	struct seen s = {.stat_all = 1};
	char *got;
	int rc;

	rc = ab_dirwalk(root, collect, &s);
	CHECK(rc == 0);
	CHECK(s.stat_bad == 0);
	/* breadth-first: no entry is deeper than one that follows it */
	for (size_t i = 1; i < s.v.n; i++)
		CHECK(depth(s.v.v[i - 1]) <= depth(s.v.v[i]));
	got = sorted(&s.v);
	CHECK_STR(got, "d d,d d/sub,d d/sub/deeper,d skip,f .hidden,f a,f d/e,f d/sub/deeper/g,"
	    "f d/sub/f,f odd\nname,f skip/hidden,l lnk,p fifo");
	free(got);
	ab_strv_free(&s.v);

	/* a directory whose content the callback does not want; stat only when asked */
	s = (struct seen){.skip = "d/sub"};
	CHECK(ab_dirwalk(root, collect, &s) == 0);
	got = sorted(&s.v);
	CHECK_STR(got, "d d,d d/sub,d skip,f .hidden,f a,f d/e,f odd\nname,f skip/hidden,l lnk,p fifo");
	free(got);
	ab_strv_free(&s.v);

	/* a callback's error stops the walk at once, reported by the callback */
	s = (struct seen){.stop_at = 2};
	CHECK(ab_dirwalk(root, collect, &s) == -1);
	CHECK(s.calls == 2);
	ab_strv_free(&s.v);
}

/* through an open root: the same walk, the descriptor stays open */
static void
test_fd(const char *root)
{
	struct seen s = {0};
	int fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	struct stat st;

	CHECK(fd >= 0);
	CHECK(ab_dirwalk_fd(fd, root, collect, &s) == 0);
	CHECK(s.v.n == 13);
	CHECK(fstat(fd, &st) == 0);
	close(fd);
	ab_strv_free(&s.v);
}

/* the stat of a symlink is the link's own */
static int
stat_link(struct ab_dirwalk_entry *e, void *arg)
{
	const struct stat *st;

	if (strcmp(e->path, "lnk"))
		return AB_DIRWALK_DESCEND;
	if (ab_dirwalk_stat(&st, e) < 0)
		return -1;
	*(int *)arg = S_ISLNK(st->st_mode) && e->type == DT_LNK;
	return AB_DIRWALK_DESCEND;
}

static int
descend_all(struct ab_dirwalk_entry *e, void *arg)
{
	(void)e;
	(void)arg;
	return AB_DIRWALK_DESCEND;
}

/* changes made under the walker's feet, by the callback */
static int
sabotage(struct ab_dirwalk_entry *e, void *arg)
{
	const struct stat *st;

	(void)arg;
	if (!strcmp(e->name, "gone")) {
		/* listed as a directory, removed before it is opened */
		unlinkat(e->dirfd, e->name, AT_REMOVEDIR);
	} else if (!strcmp(e->name, "swap")) {
		/* swapped for a symlink to a directory: not followed (O_NOFOLLOW with O_DIRECTORY: ENOTDIR) */
		renameat(e->dirfd, e->name, e->dirfd, "swapped");
		symlinkat("swapped", e->dirfd, e->name);
	} else if (!strcmp(e->name, "victim")) {
		unlinkat(e->dirfd, e->name, 0);
		return ab_dirwalk_stat(&st, e) < 0 ? -1 : 0;
	}
	return AB_DIRWALK_DESCEND;
}

static void
check_error(const char *root, const char *sub, const char *want_fmt)
{
	char *dir = ab_path_join(root, sub), *got, *want;
	struct unit_catch c;
	int rc;

	unit_catch_begin(&c);
	rc = ab_dirwalk(dir, sabotage, NULL);
	got = unit_catch_end(&c);
	CHECK(rc == -1);
	want = ab_sprintf(want_fmt, dir);
	CHECK_STR(got, want);
	free(want);
	free(got);
	free(dir);
}

static void
test_errors(const char *root)
{
	static const struct node errs[] = {
		{'d', "e1", NULL}, {'d', "e1/gone", NULL},
		{'d', "e2", NULL}, {'d', "e2/swap", NULL}, {'f', "e2/swap/x", "x\n"},
		{'d', "e3", NULL}, {'f', "e3/victim", "v\n"},
	};
	static const struct node again = {'d', "e1/gone", NULL};
	char *p, *got, *want;
	struct unit_catch c;
	int ok = 0;

	CHECK(ab_dirwalk(root, stat_link, &ok) == 0);
	CHECK(ok == 1);

	make(root, errs, AB_NELEM(errs));
	check_error(root, "e1", "allocbuild: cannot open directory '%s/gone': No such file or directory");
	check_error(root, "e2", "allocbuild: cannot open directory '%s/swap': Not a directory");
	check_error(root, "e3", "allocbuild: cannot stat '%s/victim': No such file or directory");
	check_error(root, "a", "allocbuild: cannot open directory '%s': Not a directory");
	check_error(root, "missing", "allocbuild: cannot open directory '%s': No such file or directory");

	/* a root given with a trailing slash is not doubled in messages */
	make(root, &again, 1);
	p = ab_sprintf("%s/e1/", root);
	unit_catch_begin(&c);
	CHECK(ab_dirwalk(p, sabotage, NULL) == -1);
	got = unit_catch_end(&c);
	want = ab_sprintf("allocbuild: cannot open directory '%sgone': No such file or directory", p);
	CHECK_STR(got, want);
	free(want);
	free(got);
	free(p);
}

/*
 * A directory without read permission. Root reads anything, so as root
 * the walk runs in a child that has become nobody; when that is not
 * possible the case is skipped with a note.
 */
static void
test_unreadable(const char *root)
{
	static const struct node perm[] = {{'d', "perm", NULL}, {'d', "perm/locked", NULL}};
	char *top = ab_path_join(root, "perm"), *locked = ab_path_join(top, "locked");
	char *got, *want;
	struct unit_catch c;
	int status = 0;
	pid_t pid;

	make(root, perm, AB_NELEM(perm));
	chmod(root, 0755);
	chmod(locked, 0);
	unit_catch_begin(&c);
	pid = fork();
	if (pid == 0) {
		int fd;

		if (getuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
			_exit(3);
		/* TMPDIR may be closed to nobody: then there is nothing to test */
		if ((fd = open(top, O_RDONLY | O_DIRECTORY)) < 0)
			_exit(3);
		close(fd);
		_exit(ab_dirwalk(top, descend_all, NULL) == -1 ? 0 : 1);
	}
	waitpid(pid, &status, 0);
	got = unit_catch_end(&c);
	chmod(locked, 0755);
	if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
		printf("test_dirwalk: cannot become nobody, unreadable directory case skipped\n");
	} else {
		CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
		want = ab_sprintf("allocbuild: cannot open directory '%s': Permission denied", locked);
		CHECK_STR(got, want);
		free(want);
	}
	free(got);
	free(locked);
	free(top);
}

/*
 * Swapping a middle component: "X" is renamed to "X.real" and replaced by
 * a symlink to out, which mirrors the tree with a MARKER file where the
 * tree has its files. The walker must never list out.
 */
struct swap {
	struct seen s;
	const char *out;
	char first;           /* the top directory of the first "?/a/b" seen */
	int swapped;
};

static void
swap_top(const char *root, const char *top, const char *out)
{
	char *from = ab_path_join(root, top), *to = ab_sprintf("%s.real", from);

	if (rename(from, to) < 0 || symlink(out, from) < 0) {
		perror(from);
		exit(1);
	}
	free(to);
	free(from);
}

/* the chain x/y/z/w: x swapped while x/y is listed, so x is held open */
static int
swap_held(struct ab_dirwalk_entry *e, void *arg)
{
	struct swap *w = arg;

	if (!strcmp(e->path, "x/y/z")) {
		swap_top(e->root, "x", w->out);
		w->swapped++;
	}
	return collect(e, &w->s);
}

/*
 * p/a/b/c and q/a/b/c: when the second top directory's a/b is seen, the
 * first top directory is no longer held and is reopened by name next
 */
static int
swap_named(struct ab_dirwalk_entry *e, void *arg)
{
	struct swap *w = arg;

	if (strlen(e->path) == 5 && !strcmp(e->path + 1, "/a/b")) {
		if (!w->first) {
			w->first = e->path[0];
		} else if (e->path[0] != w->first && !w->swapped) {
			char top[2] = {w->first, '\0'};

			swap_top(e->root, top, w->out);
			w->swapped++;
		}
	}
	return collect(e, &w->s);
}

static void
test_swap(const char *root)
{
	static const struct node held[] = {
		{'d', "s1", NULL}, {'d', "s1/x", NULL}, {'d', "s1/x/y", NULL}, {'d', "s1/x/y/z", NULL},
		{'d', "s1/x/y/z/w", NULL}, {'f', "s1/x/y/z/w/f", "f\n"},
		{'d', "out1", NULL}, {'d', "out1/y", NULL}, {'d', "out1/y/z", NULL},
		{'d', "out1/y/z/w", NULL}, {'f', "out1/y/z/w/MARKER", "m\n"},
	};
	static const struct node named[] = {
		{'d', "s2", NULL}, {'d', "s2/p", NULL}, {'d', "s2/p/a", NULL}, {'d', "s2/p/a/b", NULL},
		{'d', "s2/p/a/b/c", NULL}, {'f', "s2/p/a/b/c/f", "f\n"},
		{'d', "s2/q", NULL}, {'d', "s2/q/a", NULL}, {'d', "s2/q/a/b", NULL},
		{'d', "s2/q/a/b/c", NULL}, {'f', "s2/q/a/b/c/f", "f\n"},
		{'d', "out2", NULL}, {'d', "out2/a", NULL}, {'d', "out2/a/b", NULL},
		{'d', "out2/a/b/c", NULL}, {'f', "out2/a/b/c/MARKER", "m\n"},
	};
	char *s1 = ab_path_join(root, "s1"), *s2 = ab_path_join(root, "s2");
	char *out1 = ab_path_join(root, "out1"), *out2 = ab_path_join(root, "out2");
	struct swap w = {.out = out1};
	struct unit_catch c;
	char *got, *want;
	int rc;

	make(root, held, AB_NELEM(held));
	make(root, named, AB_NELEM(named));

	/* held open: the walk goes on in the directory it listed, now x.real */
	rc = ab_dirwalk(s1, swap_held, &w);
	CHECK(rc == 0);
	CHECK(w.swapped == 1);
	got = sorted(&w.s.v);
	CHECK_STR(got, "d x,d x/y,d x/y/z,d x/y/z/w,f x/y/z/w/f");
	CHECK(!strstr(got, "MARKER"));
	free(got);
	ab_strv_free(&w.s.v);

	/* opened by name from the root: the symlink is refused, O_NOFOLLOW */
	w = (struct swap){.out = out2};
	unit_catch_begin(&c);
	rc = ab_dirwalk(s2, swap_named, &w);
	got = unit_catch_end(&c);
	CHECK(rc == -1);
	CHECK(w.swapped == 1);
	want = ab_sprintf("allocbuild: cannot open directory '%s/%c': Not a directory", s2, w.first);
	CHECK_STR(got, want);
	free(want);
	free(got);
	for (size_t i = 0; i < w.s.v.n; i++)
		CHECK(!strstr(w.s.v.v[i], "MARKER"));
	ab_strv_free(&w.s.v);
	free(out2);
	free(out1);
	free(s2);
	free(s1);
}

#define DEEP_LEVELS 40
#define DEEP_NAME 120

/* the deep tree's directory name at level i (0-based): 120 characters */
static void
deep_name(char *name, int i)
{
	memset(name, 'a' + i % 26, DEEP_NAME);
	name[0] = (char)('0' + i / 10);
	name[1] = (char)('0' + i % 10);
	name[2] = '-';
	name[DEEP_NAME] = '\0';
}

/* how deep the walk went, and the highest descriptor seen meanwhile */
struct deep {
	int entries, levels, max_fd, files;
	size_t longest;
};

static int
deep_visit(struct ab_dirwalk_entry *e, void *arg)
{
	struct deep *d = arg;
	int fd = dup(0);

	if (fd > d->max_fd)
		d->max_fd = fd;
	if (fd >= 0)
		close(fd);
	d->entries++;
	d->levels += e->type == DT_DIR;
	d->files += e->type == DT_REG && !strcmp(e->name, "bottom");
	if (strlen(e->path) > d->longest)
		d->longest = strlen(e->path);
	return AB_DIRWALK_DESCEND;
}

/* remove the deep chain below parent, level by level through descriptors */
static void
deep_remove(int parent, int i)
{
	char name[DEEP_NAME + 1];
	int fd;

	deep_name(name, i);
	if (i < DEEP_LEVELS - 1 && (fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW)) >= 0) {
		deep_remove(fd, i + 1);
		close(fd);
	}
	if (i == DEEP_LEVELS - 1) {
		fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
		CHECK(fd >= 0 && unlinkat(fd, "bottom", 0) == 0);
		close(fd);
	}
	CHECK(unlinkat(parent, name, AT_REMOVEDIR) == 0);
}

static void
test_deep(const char *root)
{
	char *top = ab_path_join(root, "deep"), name[DEEP_NAME + 1];
	struct deep d = {.max_fd = -1};
	int fd, base, topfd;

	CHECK(mkdir(top, 0755) == 0);
	topfd = open(top, O_RDONLY | O_DIRECTORY);
	CHECK(topfd >= 0);
	fd = dup(topfd);
	for (int i = 0; i < DEEP_LEVELS; i++) {
		int next;

		deep_name(name, i);
		CHECK(mkdirat(fd, name, 0755) == 0);
		next = openat(fd, name, O_RDONLY | O_DIRECTORY);
		CHECK(next >= 0);
		close(fd);
		fd = next;
	}
	CHECK(close(openat(fd, "bottom", O_WRONLY | O_CREAT | O_EXCL, 0644)) == 0);
	close(fd);

	base = dup(0);
	close(base);
	CHECK(ab_dirwalk(top, deep_visit, &d) == 0);
	CHECK(d.entries == DEEP_LEVELS + 1);
	CHECK(d.levels == DEEP_LEVELS);
	CHECK(d.files == 1);
	CHECK(d.longest == DEEP_LEVELS * (DEEP_NAME + 1) + strlen("bottom"));
	CHECK(d.longest > PATH_MAX);
	/* bounded: the held ancestors, the listed directory, the root, a spare */
	CHECK(d.max_fd - base <= 32 + 3);
	/* and nothing left open */
	fd = dup(0);
	CHECK(fd == base);
	close(fd);

	deep_remove(topfd, 0);
	close(topfd);
	CHECK(rmdir(top) == 0);
	free(top);
}

int
main(void)
{
	static const struct node tree[] = {
		{'f', "a", "a\n"}, {'f', ".hidden", ""}, {'f', "odd\nname", "odd\n"},
		{'d', "d", NULL}, {'f', "d/e", "e\n"}, {'d', "d/sub", NULL}, {'f', "d/sub/f", "f\n"},
		{'d', "d/sub/deeper", NULL}, {'f', "d/sub/deeper/g", "g\n"},
		{'d', "skip", NULL}, {'f', "skip/hidden", "h\n"},
		{'l', "lnk", "d"}, {'p', "fifo", NULL},
	};
	char *root = unit_tmpdir("dirwalk");

	make(root, tree, AB_NELEM(tree));
	test_coverage(root);
	test_fd(root);
	test_errors(root);
	test_unreadable(root);
	test_swap(root);
	test_deep(root);
	CHECK(ab_rm_rf(root) == 0);
	free(root);
	return unit_done();
}
