#include "patch.h"

#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/mempack.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/member.h"
#include "../lib/util.h"

struct progress {
	const char *path;  /* the file being patched */
	int hunk;          /* 1-based number of the hunk being applied, 0 before the first */
	char header[128];
};

static int
on_delta(const git_diff_delta *delta, void *payload)
{
	struct progress *p = payload;

	p->path = delta->new_file.path ? delta->new_file.path : delta->old_file.path;
	p->hunk = 0;
	p->header[0] = '\0';
	return 0;
}

static int
on_hunk(const git_diff_hunk *hunk, void *payload)
{
	struct progress *p = payload;
	size_t n = hunk->header_len;

	p->hunk++;
	while (n > 0 && (hunk->header[n - 1] == '\n' || hunk->header[n - 1] == '\r'))
		n--;
	if (n >= sizeof(p->header))
		n = sizeof(p->header) - 1;
	memcpy(p->header, hunk->header, n);
	p->header[n] = '\0';
	return 0;
}

/* lstat dir/rel, refusing to go through a symlink on the way; -1 with errno */
static int
lstat_below(const char *dir, const char *rel, struct stat *st)
{
	char *p = ab_path_join(dir, rel);
	size_t base = strlen(dir) + 1;
	int rc = 0;

	for (char *s = strchr(p + base, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (lstat(p, st) < 0 || !S_ISDIR(st->st_mode)) {
			if (rc == 0 && errno != ENOENT)
				errno = ENOTDIR;
			*s = '/';
			free(p);
			return -1;
		}
		*s = '/';
	}
	rc = lstat(p, st);
	free(p);
	return rc;
}

static int
load_file(git_index *index, git_repository *repo, const char *dir, const char *rel, const char *name)
{
	git_index_entry e;
	struct stat st;
	char *full;
	struct ab_buf b = {0};
	int error = -1;

	if (lstat_below(dir, rel, &st) < 0)
		return 0; /* missing: the apply reports it with the hunk */
	full = ab_path_join(dir, rel);
	memset(&e, 0, sizeof(e));
	e.path = rel;
	if (S_ISLNK(st.st_mode)) {
		char target[4096];
		ssize_t n = readlink(full, target, sizeof(target));

		if (n < 0) {
			ab_error_errno("patch '%s': cannot read symlink '%s'", name, rel);
			goto done;
		}
		ab_buf_add(&b, target, (size_t)n);
		e.mode = GIT_FILEMODE_LINK;
	} else if (S_ISREG(st.st_mode)) {
		if (ab_read_file(&b, full) < 0)
			goto done;
		e.mode = (st.st_mode & 0111) ? GIT_FILEMODE_BLOB_EXECUTABLE : GIT_FILEMODE_BLOB;
	} else {
		ab_error("patch '%s': '%s' is not a file", name, rel);
		goto done;
	}
	if (git_blob_create_from_buffer(&e.id, repo, b.s ? b.s : "", b.len) < 0 || git_index_add(index, &e) < 0) {
		ab_error_git("patch '%s': cannot load '%s'", name, rel);
		goto done;
	}
	error = 0;
done:
	ab_buf_free(&b);
	free(full);
	return error;
}

static int
mkdirs_below(const char *dir, const char *rel)
{
	char *p = ab_path_join(dir, rel);
	size_t base = strlen(dir) + 1;
	struct stat st;

	for (char *s = strchr(p + base, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (lstat(p, &st) < 0) {
			if (mkdir(p, 0777) < 0) {
				ab_error_errno("cannot create directory '%s'", p);
				free(p);
				return -1;
			}
		} else if (!S_ISDIR(st.st_mode)) {
			ab_error("cannot write below '%s': not a directory", p);
			free(p);
			return -1;
		}
		*s = '/';
	}
	free(p);
	return 0;
}

static int
write_result(git_repository *repo, git_index *post, const char *dir, const char *rel)
{
	const git_index_entry *e = git_index_get_bypath(post, rel, 0);
	git_blob *blob = NULL;
	char *full = ab_path_join(dir, rel);
	char *tmp = ab_sprintf("%s.allocbuild-patch", full);
	int error = -1;

	if (!e) {
		ab_error("patch result has no '%s'", rel);
		goto done;
	}
	if (git_blob_lookup(&blob, repo, &e->id) < 0) {
		ab_error_git("cannot read the patched '%s'", rel);
		goto done;
	}
	if (mkdirs_below(dir, rel) < 0)
		goto done;
	unlink(tmp);
	if (e->mode == GIT_FILEMODE_LINK) {
		char *target = ab_strndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));

		if (symlink(target, tmp) < 0) {
			ab_error_errno("cannot create symlink '%s'", tmp);
			free(target);
			goto done;
		}
		free(target);
	} else {
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    e->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666);

		if (fd < 0) {
			ab_error_errno("cannot create '%s'", tmp);
			goto done;
		}
		if (ab_write_close(fd, tmp, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob)) < 0)
			goto done;
	}
	if (rename(tmp, full) < 0) {
		ab_error_errno("cannot replace '%s'", full);
		goto done;
	}
	error = 0;
done:
	if (error)
		unlink(tmp);
	git_blob_free(blob);
	free(tmp);
	free(full);
	return error;
}

/*
 * What the patch creates obeys the rules of archive members (lib/member.h):
 * a symlink it makes neither points to an absolute path nor leaves the
 * tree. Checked on the whole result before anything is written.
 */
static int
check_results(git_repository *repo, git_index *post, git_diff *diff, const char *name)
{
	size_t n = git_diff_num_deltas(diff);

	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const git_index_entry *e;
		git_blob *blob = NULL;
		int bad;

		if (d->status == GIT_DELTA_DELETED || !(e = git_index_get_bypath(post, d->new_file.path, 0)) ||
		    e->mode != GIT_FILEMODE_LINK)
			continue;
		if (git_blob_lookup(&blob, repo, &e->id) < 0) {
			ab_error_git("cannot read the patched '%s'", d->new_file.path);
			return -1;
		}
		{
			char *target = ab_strndup(git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
			char *pn = ab_shown(name), *fn = ab_shown(d->new_file.path);
			char *what = ab_sprintf("patch '%s': '%s'", pn, fn);

			bad = ab_member_check_symlink(what, d->new_file.path, target) < 0;
			free(what);
			free(pn);
			free(fn);
			free(target);
		}
		git_blob_free(blob);
		if (bad)
			return -1;
	}
	return 0;
}

/* does text hold a line starting with prefix? */
static int
has_line(const struct ab_buf *text, const char *prefix)
{
	size_t pl = strlen(prefix);

	for (size_t at = 0; at < text->len;) {
		const char *l = text->s + at, *nl = memchr(l, '\n', text->len - at);
		size_t n = nl ? (size_t)(nl - l) : text->len - at;

		if (n >= pl && !memcmp(l, prefix, pl))
			return 1;
		at += n + 1;
	}
	return 0;
}

/*
 * The path a traditional "--- "/"+++ " line names, as patch -p1 takes it:
 * up to a tab (a timestamp follows), its first component dropped; NULL
 * for /dev/null (the file is created or deleted), "" when it has no
 * component to drop
 */
static char *
p1_path(const char *l, size_t n)
{
	const char *tab = memchr(l, '\t', n), *slash;
	size_t len = tab ? (size_t)(tab - l) : n;

	if (len == 9 && !memcmp(l, "/dev/null", 9))
		return NULL;
	slash = memchr(l, '/', len);
	if (!slash || slash == l + len - 1)
		return ab_strdup("");
	return ab_strndup(slash + 1, len - (size_t)(slash + 1 - l));
}

/* a hunk header's line counts: "@@ -a[,b] +c[,d] @@"; 0 or -1 */
static int
hunk_counts(const char *l, size_t n, long *old, long *new)
{
	char *h = ab_strndup(l, n), *p = h + 4, *end;
	int ok = 0;

	*old = *new = 1;
	if (strncmp(h, "@@ -", 4))
		goto done;
	strtol(p, &end, 10);
	if (*end == ',')
		*old = strtol(end + 1, &end, 10);
	if (strncmp(end, " +", 2))
		goto done;
	strtol(end + 2, &end, 10);
	if (*end == ',')
		*new = strtol(end + 1, &end, 10);
	ok = !strncmp(end, " @@", 3) && *old >= 0 && *new >= 0;
done:
	free(h);
	return ok ? 0 : -1;
}

/*
 * A traditional unified diff (diff -u, quilt, patch -p1's input: no
 * "diff --git" lines) in git's form, which libgit2 parses: each file's
 * "--- "/"+++ " pair gets a "diff --git a/P b/P" header, with P the new
 * name (the old one for a deletion) without its first component, and a
 * file mode line for a creation or deletion. Lines between files (an
 * "Index:" or "diff -u" line, commentary) are dropped; hunk lines are
 * counted, so a removed line "-- x" is never taken for a header. -1 when
 * a name has no component to drop (reported).
 */
static int
to_git_form(struct ab_buf *out, const struct ab_buf *text, const char *name)
{
	long old = 0, new = 0;
	size_t line = 0;

	for (size_t at = 0; at < text->len;) {
		const char *l = text->s + at, *nl = memchr(l, '\n', text->len - at);
		size_t n = nl ? (size_t)(nl - l) : text->len - at, next = at + n + 1;
		const char *l2 = next < text->len ? text->s + next : NULL;
		size_t n2 = 0;

		line++;
		if (l2) {
			const char *nl2 = memchr(l2, '\n', text->len - next);

			n2 = nl2 ? (size_t)(nl2 - l2) : text->len - next;
		}
		if (old > 0 || new > 0) {
			/* inside a hunk: its own lines, as many as its header says */
			if (n && l[0] == '-')
				old--;
			else if (n && l[0] == '+')
				new--;
			else if (!n || l[0] == ' ')
				old--, new--;
			ab_buf_add(out, l, n);
			ab_buf_putc(out, '\n');
		} else if (n >= 4 && !memcmp(l, "--- ", 4) && l2 && n2 >= 4 && !memcmp(l2, "+++ ", 4)) {
			char *a = p1_path(l + 4, n - 4), *b = p1_path(l2 + 4, n2 - 4), *p;
			size_t hat = next + n2 + 1, hl = 0;
			const char *h = hat < text->len ? text->s + hat : "", *hn;

			if (hat < text->len) {
				hn = memchr(h, '\n', text->len - hat);
				hl = hn ? (size_t)(hn - h) : text->len - hat;
			}

			/* diff -N names the missing side by its path: its hunk, -0,0 or +0,0, says so */
			if (a && b && hl > 9 && !memcmp(h, "@@ -0,0 +", 9)) {
				free(a);
				a = NULL;
			} else if (a && b && hl > 11 && memmem(h, hl, " +0,0 @@", 8)) {
				free(b);
				b = NULL;
			}
			p = b ? b : a;

			if (!p || (a && !a[0]) || (b && !b[0])) {
				int second = !a || a[0]; /* the "+++ " line is the one at fault */

				ab_error("patch '%s': line %zu: '%.*s' has no directory to take off (patch -p1)", name,
				    line + (size_t)second, (int)((second ? n2 : n) - 4), (second ? l2 : l) + 4);
				free(a);
				free(b);
				return -1;
			}
			/* one file, as patch -p1 patches one: named by the new name when both are there */
			ab_buf_printf(out, "diff --git a/%s b/%s\n", p, p);
			if (!a)
				ab_buf_puts(out, "new file mode 100644\n--- /dev/null\n");
			else
				ab_buf_printf(out, "%s--- a/%s\n", b ? "" : "deleted file mode 100644\n", p);
			if (b)
				ab_buf_printf(out, "+++ b/%s\n", p);
			else
				ab_buf_puts(out, "+++ /dev/null\n");
			free(a);
			free(b);
			next += n2 + 1;
			line++;
		} else if (n >= 3 && !memcmp(l, "@@ ", 3) && hunk_counts(l, n, &old, &new) == 0) {
			ab_buf_add(out, l, n);
			ab_buf_putc(out, '\n');
		} else if (n >= 1 && l[0] == '\\') {
			/* "\ No newline at end of file" after a hunk's last line */
			ab_buf_add(out, l, n);
			ab_buf_putc(out, '\n');
		}
		at = next;
	}
	return 0;
}

int
ab_patch_apply(const char *dir, const struct ab_buf *patch, const char *name, int check_only)
{
	struct ab_buf git = {0};
	const struct ab_buf *text = patch;
	git_diff *diff = NULL;
	git_odb *odb = NULL;
	git_odb_backend *mempack = NULL;
	git_repository *repo = NULL;
	git_index *pre = NULL, *post = NULL;
	git_tree *tree = NULL;
	git_oid tree_oid;
	git_apply_options ao;
	struct progress prog = {0};
	size_t n;
	int error = -1;

	if (!has_line(patch, "diff --git ")) {
		if (to_git_form(&git, patch, name) < 0)
			goto done;
		/* nothing a diff names: libgit2 says what it makes of it */
		if (git.len)
			text = &git;
	}
	if (git_diff_from_buffer(&diff, text->s, text->len) < 0) {
		ab_error_git("patch '%s' is not a valid patch", name);
		goto done;
	}
	n = git_diff_num_deltas(diff);
	if (n == 0) {
		ab_error("patch '%s' holds no changes", name);
		goto done;
	}
	if (git_odb_new(&odb) < 0 || git_mempack_new(&mempack) < 0 || git_odb_add_backend(odb, mempack, 1) < 0) {
		ab_error_git("cannot create an in-memory object database");
		goto done;
	}
	if (git_repository_wrap_odb(&repo, odb) < 0 || git_index_new(&pre) < 0) {
		ab_error_git("cannot create an in-memory repository");
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);
		const char *paths[2] = {d->old_file.path, d->new_file.path};

		for (int k = 0; k < 2; k++) {
			if (paths[k] && !ab_path_is_safe_relative(paths[k])) {
				ab_error("patch '%s': refusing path '%s'", name, paths[k]);
				goto done;
			}
		}
		if (d->status != GIT_DELTA_ADDED && load_file(pre, repo, dir, d->old_file.path, name) < 0)
			goto done;
	}
	if (git_index_write_tree_to(&tree_oid, pre, repo) < 0 || git_tree_lookup(&tree, repo, &tree_oid) < 0) {
		ab_error_git("patch '%s': cannot build the preimage", name);
		goto done;
	}
	git_apply_options_init(&ao, GIT_APPLY_OPTIONS_VERSION);
	ao.delta_cb = on_delta;
	ao.hunk_cb = on_hunk;
	ao.payload = &prog;
	if (git_apply_to_tree(&post, repo, tree, diff, &ao) < 0) {
		const git_error *ge = git_error_last();
		const char *msg = ge && ge->message ? ge->message : "does not apply";

		if (prog.hunk)
			ab_error("patch '%s' does not apply to '%s': hunk #%d %s: %s", name,
			    prog.path ? prog.path : "?", prog.hunk, prog.header, msg);
		else
			ab_error("patch '%s' does not apply to '%s': %s", name, prog.path ? prog.path : "?", msg);
		goto done;
	}
	if (check_results(repo, post, diff, name) < 0)
		goto done;
	if (check_only) {
		error = 0;
		goto done;
	}
	for (size_t i = 0; i < n; i++) {
		const git_diff_delta *d = git_diff_get_delta(diff, i);

		if (d->status == GIT_DELTA_DELETED || d->status == GIT_DELTA_RENAMED) {
			char *full = ab_path_join(dir, d->old_file.path);

			if (unlink(full) < 0 && errno != ENOENT) {
				ab_error_errno("cannot remove '%s'", full);
				free(full);
				goto done;
			}
			free(full);
		}
		if (d->status != GIT_DELTA_DELETED && write_result(repo, post, dir, d->new_file.path) < 0)
			goto done;
	}
	error = 0;
done:
	git_tree_free(tree);
	git_index_free(post);
	git_index_free(pre);
	git_repository_free(repo);
	git_odb_free(odb);
	git_diff_free(diff);
	ab_buf_free(&git);
	return error;
}
