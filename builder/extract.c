#include "extract.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/hash.h"
#include "../lib/member.h"
#include "../lib/util.h"

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

/*
 * A failure of libarchive's disk writer: its errno says why ("Write
 * failed" alone does not), and an environment failure (disk full) is
 * noted as one (lib/util.h)
 */
static void
write_failed(struct archive *out, const char *name, const char *member)
{
	int e = archive_errno(out);
	const char *msg = archive_error_string(out);
	char *shown = ab_shown(member);

	if (e > 0) {
		ab_note_environment(e);
		ab_error("archive '%s': member '%s': cannot write: %s", name, shown, strerror(e));
	} else {
		ab_error("archive '%s': member '%s': %s", name, shown, msg ? msg : "cannot write");
	}
	free(shown);
}

/*
 * The member whose header was just read, checked (builder/member.h),
 * its name stripped, written under the cwd; skipped when stripping
 * leaves nothing. -1 (reported) when it is refused or cannot be written
 */
static int
extract_member(struct archive *in, struct archive *out, struct archive_entry *entry, const char *name, int strip,
    struct ab_member_set *seen)
{
	struct ab_member m = {0};
	enum ab_member_type type;
	const char *raw = archive_entry_pathname(entry), *linked = NULL;
	char *member = ab_strdup(raw ? raw : ""), *norm = NULL;
	int r, error = -1;

	if (ab_member_check(&type, name, member, entry) < 0)
		goto done;
	norm = ab_member_normalise(member);
	m.raw = member;
	m.rel = ab_member_strip(norm, strip);
	m.type = type;
	if (!m.rel) {
		archive_read_data_skip(in);
		error = 0;
		goto done;
	}
	if (type == AB_MEMBER_SYMLINK)
		m.link = archive_entry_symlink(entry);
	else if (type == AB_MEMBER_HARDLINK)
		m.link = archive_entry_hardlink(entry);
	if (ab_member_accept(&linked, NULL, seen, &m) < 0)
		goto done;
	if (type == AB_MEMBER_HARDLINK)
		archive_entry_set_hardlink(entry, linked);
	if (type == AB_MEMBER_DIR)
		archive_entry_set_perm(entry, archive_entry_perm(entry) | 0700);
	archive_entry_set_pathname(entry, m.rel);
	if (archive_write_header(out, entry) < ARCHIVE_OK) {
		write_failed(out, name, member);
		goto done;
	}
	if (type == AB_MEMBER_FILE && archive_entry_size(entry) > 0) {
		r = copy_data(in, out);
		if (r == -1) {
			write_failed(out, name, member);
			goto done;
		}
		if (r < 0) {
			const char *why = archive_error_string(in);
			char *shown = ab_shown(member);

			ab_error("archive '%s': member '%s': %s", name, shown, why ? why : "damaged data");
			free(shown);
			goto done;
		}
	}
	if (archive_write_finish_entry(out) < ARCHIVE_OK) {
		write_failed(out, name, member);
		goto done;
	}
	error = 0;
done:
	free(norm);
	free(member);
	return error;
}

int
ab_archive_extract(const char *path, const char *name, const char *sha256, int strip, const char *dir)
{
	struct ab_buf bytes = {0};
	struct archive *in = NULL, *out = NULL;
	struct archive_entry *entry;
	struct ab_member_set *seen = NULL;
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
	seen = ab_member_set_new(name, strip);
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
		r = archive_read_next_header(in, &entry);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN) {
			ab_error("archive '%s': %s", name, archive_error_string(in));
			goto done;
		}
		if (extract_member(in, out, entry, name, strip, seen) < 0)
			goto done;
	}
	/* directory times and modes are fixed up at close, relative to the cwd */
	if (archive_write_close(out) != ARCHIVE_OK) {
		write_failed(out, name, "(the directories' times and modes)");
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
	ab_member_set_free(seen);
	ab_buf_free(&bytes);
	return error;
}
