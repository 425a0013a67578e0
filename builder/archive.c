#include "archive.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../provenance/hash.h"
#include "util.h"

/* a small string set (member names seen, with their type) */
struct set {
	char **keys;
	unsigned *types;
	size_t n, cap; /* cap is a power of two */
};

static uint64_t
hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static size_t
set_slot(const struct set *s, const char *key)
{
	size_t i = (size_t)hash_str(key) & (s->cap - 1);

	while (s->keys[i] && strcmp(s->keys[i], key))
		i = (i + 1) & (s->cap - 1);
	return i;
}

static unsigned
set_get(const struct set *s, const char *key)
{
	size_t i;

	if (!s->cap)
		return 0;
	i = set_slot(s, key);
	return s->keys[i] ? s->types[i] : 0;
}

static void
set_put(struct set *s, const char *key, unsigned type)
{
	size_t i;

	if (2 * (s->n + 1) > s->cap) {
		struct set bigger = {0};

		bigger.cap = s->cap ? s->cap * 2 : 1024;
		bigger.keys = ab_calloc(bigger.cap, sizeof(char *));
		bigger.types = ab_calloc(bigger.cap, sizeof(unsigned));
		for (size_t k = 0; k < s->cap; k++) {
			if (s->keys[k]) {
				size_t j = set_slot(&bigger, s->keys[k]);

				bigger.keys[j] = s->keys[k];
				bigger.types[j] = s->types[k];
				bigger.n++;
			}
		}
		free(s->keys);
		free(s->types);
		*s = bigger;
	}
	i = set_slot(s, key);
	if (!s->keys[i]) {
		s->keys[i] = ab_strdup(key);
		s->n++;
	}
	s->types[i] = type;
}

static void
set_free(struct set *s)
{
	for (size_t i = 0; i < s->cap; i++)
		free(s->keys[i]);
	free(s->keys);
	free(s->types);
	memset(s, 0, sizeof(*s));
}

/*
 * Split a member name into components, dropping "." and empty ones, and
 * remove `strip` leading components. Returns the stripped name (caller
 * frees) or NULL when nothing remains.
 */
static char *
strip_name(const char *name, int strip)
{
	struct ab_buf out = {0};
	const char *s = name;
	int skipped = 0;

	while (*s) {
		size_t n = strcspn(s, "/");

		if (n && !(n == 1 && s[0] == '.')) {
			if (skipped < strip) {
				skipped++;
			} else {
				if (out.len)
					ab_buf_putc(&out, '/');
				ab_buf_add(&out, s, n);
			}
		}
		s += n;
		while (*s == '/')
			s++;
	}
	if (!out.len) {
		ab_buf_free(&out);
		return NULL;
	}
	return ab_buf_detach(&out);
}

static int
depth_of_dir(const char *rel)
{
	int d = 0;

	for (const char *s = rel; *s; s++)
		if (*s == '/')
			d++;
	return d;
}

/* does a symlink at rel with this target stay inside the tree? */
static int
symlink_target_ok(const char *rel, const char *target)
{
	int depth = depth_of_dir(rel), named = 0;
	const char *s = target;

	if (!target[0] || target[0] == '/')
		return 0;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 2 && s[0] == '.' && s[1] == '.') {
			/* "dir/.." may climb out through a symlinked dir: allow '..' only first */
			if (named || --depth < 0)
				return 0;
		} else if (n && !(n == 1 && s[0] == '.')) {
			named = 1;
		}
		s += n;
		while (*s == '/')
			s++;
	}
	return 1;
}

/* the first leading directory of rel that is a symlink member, or NULL */
static char *
through_symlink(const struct set *seen, const char *rel)
{
	char *p = ab_strdup(rel);

	for (char *s = strchr(p, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		if (set_get(seen, p) == AE_IFLNK)
			return p;
		*s = '/';
	}
	free(p);
	return NULL;
}

static int
copy_data(struct archive *in, struct archive *out)
{
	const void *buf;
	size_t size;
	la_int64_t off;
	int r;

	while ((r = archive_read_data_block(in, &buf, &size, &off)) == ARCHIVE_OK)
		if (archive_write_data_block(out, buf, size, off) < ARCHIVE_OK)
			return -1;
	return r == ARCHIVE_EOF ? 0 : -2;
}

int
ab_archive_extract(const char *path, const char *name, const char *sha256, int strip, const char *dir)
{
	struct ab_buf bytes = {0};
	struct archive *in = NULL, *out = NULL;
	struct archive_entry *entry;
	struct set seen = {0};
	char *rel = NULL, *member = NULL;
	int cwd = -1, error = -1, r;
	int flags = ARCHIVE_EXTRACT_TIME | ARCHIVE_EXTRACT_SECURE_SYMLINKS | ARCHIVE_EXTRACT_SECURE_NODOTDOT |
	    ARCHIVE_EXTRACT_SECURE_NOABSOLUTEPATHS | ARCHIVE_EXTRACT_NO_OVERWRITE;

	/* hash and extract the same bytes: nothing can change in between */
	if (ab_read_file(&bytes, path) < 0)
		return -1;
	if (sha256) {
		char got[AB_HEX_LEN + 1];

		ab_hash_buf(got, bytes.s, bytes.len);
		if (strcmp(got, sha256)) {
			ab_error("archive '%s': sha256 mismatch for '%s': expected %s, got %s", name, path,
			    sha256, got);
			ab_buf_free(&bytes);
			return -1;
		}
	}
	in = archive_read_new();
	out = archive_write_disk_new();
	archive_read_support_filter_all(in);
	archive_read_support_format_tar(in);
	archive_read_support_format_gnutar(in);
	archive_read_support_format_zip(in);
	archive_write_disk_set_options(out, flags);
	if (archive_read_open_memory(in, bytes.s, bytes.len) != ARCHIVE_OK) {
		ab_error("archive '%s': %s", name, archive_error_string(in));
		goto done;
	}
	cwd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cwd < 0 || chdir(dir) < 0) {
		ab_error_errno("cannot enter '%s'", dir);
		goto done;
	}
	for (;;) {
		const char *raw, *link;
		mode_t type, perm;
		char *bad;

		r = archive_read_next_header(in, &entry);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			ab_error("archive '%s': %s", name, archive_error_string(in));
			goto done;
		}
		raw = archive_entry_pathname(entry);
		free(member);
		member = ab_strdup(raw ? raw : "");
		free(rel);
		rel = NULL;
		if (!member[0]) {
			ab_error("archive '%s': a member has no name", name);
			goto done;
		}
		if (member[0] == '/') {
			ab_error("archive '%s': member '%s': absolute path", name, member);
			goto done;
		}
		if (!ab_path_is_safe_relative(member)) {
			ab_error("archive '%s': member '%s': '..' in path", name, member);
			goto done;
		}
		type = archive_entry_filetype(entry);
		perm = archive_entry_perm(entry);
		if (type == AE_IFCHR || type == AE_IFBLK) {
			ab_error("archive '%s': member '%s': device node", name, member);
			goto done;
		}
		if (type == AE_IFIFO) {
			ab_error("archive '%s': member '%s': fifo", name, member);
			goto done;
		}
		if (type == AE_IFSOCK) {
			ab_error("archive '%s': member '%s': socket", name, member);
			goto done;
		}
		if (perm & (S_ISUID | S_ISGID)) {
			ab_error("archive '%s': member '%s': setuid or setgid bit", name, member);
			goto done;
		}
		if (archive_entry_hardlink(entry))
			type = 0; /* a hard link, whatever it says */
		else if (type != AE_IFREG && type != AE_IFDIR && type != AE_IFLNK) {
			ab_error("archive '%s': member '%s': unsupported file type", name, member);
			goto done;
		}
		rel = strip_name(member, strip);
		if (!rel) {
			archive_read_data_skip(in);
			continue;
		}
		if ((bad = through_symlink(&seen, rel))) {
			ab_error("archive '%s': member '%s': path goes through symlink '%s'", name, member, bad);
			free(bad);
			goto done;
		}
		if (set_get(&seen, rel) && !(type == AE_IFDIR && set_get(&seen, rel) == AE_IFDIR)) {
			ab_error("archive '%s': member '%s': duplicate member", name, member);
			goto done;
		}
		if (type == AE_IFLNK) {
			link = archive_entry_symlink(entry);
			if (!link || !link[0]) {
				ab_error("archive '%s': member '%s': symlink without a target", name, member);
				goto done;
			}
			if (link[0] == '/') {
				ab_error("archive '%s': member '%s': symlink to absolute path '%s'", name, member, link);
				goto done;
			}
			if (!symlink_target_ok(rel, link)) {
				ab_error("archive '%s': member '%s': symlink points outside the tree ('%s')", name,
				    member, link);
				goto done;
			}
		}
		if (type == 0) {
			char *target;

			link = archive_entry_hardlink(entry);
			if (link[0] == '/' || !ab_path_is_safe_relative(link)) {
				ab_error("archive '%s': member '%s': hard link to '%s' outside the tree", name, member,
				    link);
				goto done;
			}
			target = strip_name(link, strip);
			if (!target || set_get(&seen, target) != AE_IFREG) {
				ab_error("archive '%s': member '%s': hard link to '%s', which is not an earlier file",
				    name, member, link);
				free(target);
				goto done;
			}
			archive_entry_set_hardlink(entry, target);
			free(target);
		}
		if (type == AE_IFDIR)
			archive_entry_set_perm(entry, perm | 0700);
		archive_entry_set_pathname(entry, rel);
		if (archive_write_header(out, entry) < ARCHIVE_OK) {
			ab_error("archive '%s': member '%s': %s", name, member, archive_error_string(out));
			goto done;
		}
		if (type == AE_IFREG && archive_entry_size(entry) > 0) {
			r = copy_data(in, out);
			if (r < 0) {
				ab_error("archive '%s': member '%s': %s", name, member,
				    archive_error_string(r == -1 ? out : in));
				goto done;
			}
		}
		if (archive_write_finish_entry(out) < ARCHIVE_OK) {
			ab_error("archive '%s': member '%s': %s", name, member, archive_error_string(out));
			goto done;
		}
		set_put(&seen, rel, type ? type : AE_IFREG);
	}
	/* directory times and modes are fixed up at close, relative to the cwd */
	if (archive_write_close(out) != ARCHIVE_OK) {
		ab_error("archive '%s': %s", name, archive_error_string(out));
		goto done;
	}
	error = 0;
done:
	if (out)
		archive_write_free(out);
	if (in)
		archive_read_free(in);
	if (cwd >= 0) {
		if (fchdir(cwd) < 0)
			ab_error_errno("cannot return to the working directory");
		close(cwd);
	}
	set_free(&seen);
	free(rel);
	free(member);
	ab_buf_free(&bytes);
	return error;
}
