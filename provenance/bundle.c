#include "bundle.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/hash.h"

#define INDEX_NAME "BUNDLE-SHA256SUMS"

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
add_entry(struct archive *a, const char *name, const void *data, size_t len, int64_t mtime,
    const char *bundle)
{
	struct archive_entry *e = archive_entry_new();
	int error = -1;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, 0644);
	archive_entry_set_size(e, (la_int64_t)len);
	archive_entry_set_mtime(e, (time_t)mtime, 0);
	archive_entry_set_uid(e, 0);
	archive_entry_set_gid(e, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		ab_error("%s: cannot add '%s': %s", bundle, name, archive_error_string(a));
		goto done;
	}
	if (len && archive_write_data(a, data, len) != (la_ssize_t)len) {
		ab_error("%s: cannot write '%s': %s", bundle, name, archive_error_string(a));
		goto done;
	}
	error = 0;
done:
	archive_entry_free(e);
	return error;
}

static int
add_dir(struct archive *a, const char *name, int64_t mtime, const char *bundle)
{
	struct archive_entry *e = archive_entry_new();
	int error = 0;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFDIR);
	archive_entry_set_perm(e, 0755);
	archive_entry_set_mtime(e, (time_t)mtime, 0);
	if (archive_write_header(a, e) != ARCHIVE_OK) {
		ab_error("%s: cannot add '%s': %s", bundle, name, archive_error_string(a));
		error = -1;
	}
	archive_entry_free(e);
	return error;
}

int
ab_bundle_write(const char *path, const char *outdir, const char *top, char *const *members,
    size_t nmembers, int64_t mtime)
{
	char **sorted = ab_calloc(nmembers + 1, sizeof(*sorted));
	struct archive *a = archive_write_new();
	struct ab_buf index = {0}, data = {0};
	struct ab_strv dirs = {0};
	char *tmp = ab_sprintf("%s.tmp.XXXXXX", path);
	int fd = -1, error = -1;

	memcpy(sorted, members, nmembers * sizeof(*sorted));
	qsort(sorted, nmembers, sizeof(*sorted), cmp_str);
	fd = mkstemp(tmp);
	if (fd < 0) {
		ab_error_errno("cannot create temporary file for '%s'", path);
		goto done;
	}
	if (archive_write_set_format_ustar(a) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "gzip", "compression-level", "9") != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		ab_error("%s: cannot start the bundle: %s", path, archive_error_string(a));
		goto done;
	}
	{
		char *topdir = ab_sprintf("%s/", top);

		error = add_dir(a, topdir, mtime, path);
		free(topdir);
		if (error < 0)
			goto done;
		error = -1;
	}
	for (size_t i = 0; i < nmembers; i++) {
		char *src = ab_path_join(outdir, sorted[i]);
		char *name = ab_sprintf("%s/%s", top, sorted[i]);
		char hex[AB_HEX_LEN + 1];
		const char *slash;
		int rc;

		if (!ab_path_is_safe_relative(sorted[i])) {
			ab_error("%s: refusing member '%s'", path, sorted[i]);
			free(src);
			free(name);
			goto done;
		}
		/* the member's parent directories, each once */
		for (slash = strchr(sorted[i], '/'); slash; slash = strchr(slash + 1, '/')) {
			char *d = ab_strndup(sorted[i], (size_t)(slash - sorted[i]) + 1);
			size_t k;

			for (k = 0; k < dirs.n && strcmp(dirs.v[k], d); k++)
				;
			rc = 0;
			if (k == dirs.n) {
				char *dname = ab_sprintf("%s/%s", top, d);

				ab_strv_push(&dirs, d);
				rc = add_dir(a, dname, mtime, path);
				free(dname);
			}
			free(d);
			if (rc < 0) {
				free(src);
				free(name);
				goto done;
			}
		}
		ab_buf_clear(&data);
		rc = ab_read_file(&data, src);
		free(src);
		if (rc < 0) {
			free(name);
			goto done;
		}
		ab_hash_buf(hex, data.s, data.len);
		ab_buf_printf(&index, "%s  %s\n", hex, sorted[i]);
		rc = add_entry(a, name, data.s, data.len, mtime, path);
		free(name);
		if (rc < 0)
			goto done;
	}
	{
		char *name = ab_sprintf("%s/%s", top, INDEX_NAME);
		int rc = add_entry(a, name, index.s ? index.s : "", index.len, mtime, path);

		free(name);
		if (rc < 0)
			goto done;
	}
	if (archive_write_close(a) != ARCHIVE_OK) {
		ab_error("%s: cannot finish the bundle: %s", path, archive_error_string(a));
		goto done;
	}
	if (fchmod(fd, 0644) < 0 || fsync(fd) < 0 || close(fd) < 0) {
		fd = -1;
		ab_error_errno("cannot write '%s'", tmp);
		goto done;
	}
	fd = -1;
	if (rename(tmp, path) < 0) {
		ab_error_errno("cannot replace '%s'", path);
		goto done;
	}
	error = 0;
done:
	archive_write_free(a);
	if (fd >= 0)
		close(fd);
	if (error < 0)
		unlink(tmp);
	free(tmp);
	free(sorted);
	ab_buf_free(&index);
	ab_buf_free(&data);
	ab_strv_free(&dirs);
	return error;
}

struct member {
	char *name;       /* relative to the top directory */
	char hex[AB_HEX_LEN + 1];
	int listed;
};

/* parse "<hex>  <name>" lines; returns the number of bad lines */
static int
parse_sums(struct ab_strv *names, struct ab_strv *hexes, const char *text)
{
	int bad = 0;

	while (*text) {
		size_t n = strcspn(text, "\n");

		if (n > AB_HEX_LEN + 2 && text[AB_HEX_LEN] == ' ' && text[AB_HEX_LEN + 1] == ' ') {
			ab_strv_push_owned(hexes, ab_strndup(text, AB_HEX_LEN));
			ab_strv_push_owned(names, ab_strndup(text + AB_HEX_LEN + 2, n - AB_HEX_LEN - 2));
		} else if (n) {
			bad++;
		}
		text += n;
		if (*text)
			text++;
	}
	return bad;
}

int
ab_bundle_verify(const char *path)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	struct member *m = NULL;
	size_t nm = 0, cap = 0;
	struct ab_buf index = {0}, sums = {0};
	char *top = NULL;
	const char *current = NULL;
	int have_index = 0, have_sums = 0, failed = 0, error = -1, r;
	char buf[65536];

	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, path, 1 << 16) != ARCHIVE_OK) {
		ab_error("cannot open bundle '%s': %s", path, archive_error_string(a));
		goto done;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e);
		const char *rel;
		struct ab_sha256 *h;
		struct ab_buf *keep = NULL;
		la_ssize_t n;

		current = name;
		if (!name || !ab_path_is_safe_relative(name)) {
			printf("%s: unsafe member name\n", name ? name : "(null)");
			failed = 1;
			continue;
		}
		if (!top) {
			size_t tl = strcspn(name, "/");

			top = ab_strndup(name, tl);
		}
		if (strncmp(name, top, strlen(top)) || name[strlen(top)] != '/') {
			printf("%s: outside the bundle's top directory '%s'\n", name, top);
			failed = 1;
			continue;
		}
		rel = name + strlen(top) + 1;
		if (archive_entry_filetype(e) == AE_IFDIR)
			continue;
		if (archive_entry_filetype(e) != AE_IFREG) {
			printf("%s: not a regular file\n", rel);
			failed = 1;
			continue;
		}
		if (!strcmp(rel, INDEX_NAME))
			keep = &index, have_index = 1;
		else if (!strcmp(rel, "SHA256SUMS"))
			keep = &sums, have_sums = 1;
		h = ab_sha256_new();
		while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
			ab_sha256_update(h, buf, (size_t)n);
			if (keep)
				ab_buf_add(keep, buf, (size_t)n);
		}
		if (n < 0) {
			char hex[AB_HEX_LEN + 1];

			ab_sha256_final(hex, h);
			printf("%s: corrupt data: %s\n", rel, archive_error_string(a));
			failed = 1;
			error = 1;
			goto done;
		}
		if (keep == &index)
			continue;
		if (nm == cap) {
			cap = cap ? 2 * cap : 32;
			m = ab_realloc(m, cap * sizeof(*m));
		}
		m[nm].name = ab_strdup(rel);
		m[nm].listed = 0;
		ab_sha256_final(m[nm].hex, h);
		nm++;
	}
	if (r != ARCHIVE_EOF) {
		printf("%s: corrupt bundle after '%s': %s\n", path, current ? current : "(start)",
		    archive_error_string(a));
		error = 1;
		goto done;
	}
	if (!have_index) {
		printf("%s: no %s in the bundle\n", path, INDEX_NAME);
		error = 1;
		goto done;
	}
	{
		struct ab_strv names = {0}, hexes = {0};

		if (parse_sums(&names, &hexes, index.s ? index.s : ""))
			printf("%s: malformed lines\n", INDEX_NAME), failed = 1;
		for (size_t i = 0; i < names.n; i++) {
			size_t j;

			for (j = 0; j < nm; j++)
				if (!strcmp(m[j].name, names.v[i]))
					break;
			if (j == nm) {
				printf("%s: missing from the bundle\n", names.v[i]);
				failed = 1;
				continue;
			}
			m[j].listed = 1;
			if (strcmp(m[j].hex, hexes.v[i])) {
				printf("%s: sha256 mismatch: expected %s, actual %s\n", names.v[i], hexes.v[i], m[j].hex);
				failed = 1;
			}
		}
		for (size_t j = 0; j < nm; j++)
			if (!m[j].listed)
				printf("%s: not listed in %s\n", m[j].name, INDEX_NAME), failed = 1;
		ab_strv_free(&names);
		ab_strv_free(&hexes);
	}
	/* the build's own SHA256SUMS must agree with the manifests carried */
	if (have_sums) {
		struct ab_strv names = {0}, hexes = {0};

		parse_sums(&names, &hexes, sums.s ? sums.s : "");
		for (size_t i = 0; i < names.n; i++) {
			const char *n = names.v[i][0] == '*' ? names.v[i] + 1 : names.v[i];

			for (size_t j = 0; j < nm; j++)
				if (!strcmp(m[j].name, n) && strcmp(m[j].hex, hexes.v[i])) {
					printf("%s: sha256 differs from SHA256SUMS: expected %s, actual %s\n", n,
					    hexes.v[i], m[j].hex);
					failed = 1;
				}
		}
		ab_strv_free(&names);
		ab_strv_free(&hexes);
	}
	error = failed;
done:
	archive_read_free(a);
	for (size_t j = 0; j < nm; j++)
		free(m[j].name);
	free(m);
	free(top);
	ab_buf_free(&index);
	ab_buf_free(&sums);
	return error;
}
