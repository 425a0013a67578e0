#include "bundle.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/atomic.h"
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

/* the archive's format: deterministic ustar in gzip without name or time */
static int
start_archive(struct archive *a, int fd, const char *path)
{
	if (archive_write_set_format_ustar(a) != ARCHIVE_OK ||
	    archive_write_add_filter_gzip(a) != ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "gzip", "timestamp", NULL) != ARCHIVE_OK ||
	    archive_write_set_filter_option(a, "gzip", "compression-level", "9") != ARCHIVE_OK ||
	    archive_write_set_bytes_in_last_block(a, 1) != ARCHIVE_OK ||
	    archive_write_open_fd(a, fd) != ARCHIVE_OK) {
		ab_error("%s: cannot start the bundle: %s", path, archive_error_string(a));
		return AB_EFAIL;
	}
	return 0;
}

/* the directories above member rel, each once (dirs: those added so far) */
static int
add_parents(struct archive *a, struct ab_strv *dirs, const char *top, const char *rel, int64_t mtime,
    const char *path)
{
	for (const char *slash = strchr(rel, '/'); slash; slash = strchr(slash + 1, '/')) {
		char *d = ab_strndup(rel, (size_t)(slash - rel) + 1);
		size_t k;
		int rc = 0;

		for (k = 0; k < dirs->n && strcmp(dirs->v[k], d); k++)
			;
		if (k == dirs->n) {
			char *dname = ab_sprintf("%s/%s", top, d);

			ab_strv_push(dirs, d);
			rc = add_dir(a, dname, mtime, path);
			free(dname);
		}
		free(d);
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* one member: its parents, its bytes, its line of the index */
static int
add_member(struct archive *a, struct ab_strv *dirs, struct ab_buf *index, const char *outdir, const char *top,
    const char *rel, int64_t mtime, const char *path)
{
	struct ab_buf data = {0};
	char hex[AB_HEX_LEN + 1];
	char *src, *name;
	int rc;

	if (!ab_path_is_safe_relative(rel)) {
		ab_error("%s: refusing member '%s'", path, rel);
		return AB_EFAIL;
	}
	if (add_parents(a, dirs, top, rel, mtime, path) < 0)
		return AB_EFAIL;
	src = ab_path_join(outdir, rel);
	rc = ab_read_file(&data, src);
	free(src);
	if (rc < 0) {
		ab_buf_free(&data);
		return rc;
	}
	ab_hash_buf(hex, data.s, data.len);
	ab_buf_printf(index, "%s  %s\n", hex, rel);
	name = ab_sprintf("%s/%s", top, rel);
	rc = add_entry(a, name, data.s, data.len, mtime, path);
	free(name);
	ab_buf_free(&data);
	return rc;
}

int
ab_bundle_write(const char *path, const char *outdir, const char *top, char *const *members,
    size_t nmembers, int64_t mtime)
{
	char **sorted = ab_calloc(nmembers + 1, sizeof(*sorted));
	struct archive *a = archive_write_new();
	struct ab_atomic out = {0};
	struct ab_buf index = {0};
	struct ab_strv dirs = {0};
	char *name = NULL;
	int error = AB_EFAIL;

	memcpy(sorted, members, nmembers * sizeof(*sorted));
	qsort(sorted, nmembers, sizeof(*sorted), cmp_str);
	if (ab_atomic_open(&out, path, 0) < 0 || start_archive(a, out.fd, path) < 0)
		goto done;
	name = ab_sprintf("%s/", top);
	if (add_dir(a, name, mtime, path) < 0)
		goto done;
	for (size_t i = 0; i < nmembers; i++)
		if (add_member(a, &dirs, &index, outdir, top, sorted[i], mtime, path) < 0)
			goto done;
	free(name);
	name = ab_sprintf("%s/%s", top, INDEX_NAME);
	if (add_entry(a, name, index.s ? index.s : "", index.len, mtime, path) < 0)
		goto done;
	if (archive_write_close(a) != ARCHIVE_OK) {
		ab_error("%s: cannot finish the bundle: %s", path, archive_error_string(a));
		goto done;
	}
	error = ab_atomic_commit(&out);
done:
	/* archive_write_open_fd leaves the descriptor to us */
	archive_write_free(a);
	ab_atomic_abort(&out);
	free(name);
	free(sorted);
	ab_buf_free(&index);
	ab_strv_free(&dirs);
	return error;
}

struct member {
	char *name;       /* relative to the top directory */
	char hex[AB_HEX_LEN + 1];
	int listed;
	struct ab_buf data; /* kept when the caller's keep() asked */
};

/* what a verification read from the bundle */
struct verify {
	const char *path;
	struct member *m; /* every regular member but the index, in archive order */
	size_t nm, cap;
	struct ab_buf index, sums; /* the contents of BUNDLE-SHA256SUMS and SHA256SUMS */
	int (*keep)(const char *name); /* members whose bytes the caller wants, or NULL */
	int have_index, have_sums;
	int failed;       /* a problem was printed */
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

/*
 * The member's name relative to the top directory (the first member's
 * first component), or NULL when it is refused (printed).
 */
static const char *
member_rel(struct verify *v, char **top, const char *name)
{
	if (!name || !ab_path_is_safe_relative(name)) {
		printf("%s: unsafe member name\n", name ? name : "(null)");
		v->failed = 1;
		return NULL;
	}
	if (!*top)
		*top = ab_strndup(name, strcspn(name, "/"));
	if (strncmp(name, *top, strlen(*top)) || name[strlen(*top)] != '/') {
		printf("%s: outside the bundle's top directory '%s'\n", name, *top);
		v->failed = 1;
		return NULL;
	}
	return name + strlen(*top) + 1;
}

/* hash a regular member; the index and SHA256SUMS are kept as well; AB_ECHECK on corrupt data (printed) */
static int
hash_member(struct verify *v, struct archive *a, const char *rel)
{
	struct ab_buf *keep = NULL, data = {0};
	struct ab_sha256 *h;
	char buf[65536];
	la_ssize_t n;

	if (!strcmp(rel, INDEX_NAME))
		keep = &v->index, v->have_index = 1;
	else if (!strcmp(rel, "SHA256SUMS"))
		keep = &v->sums, v->have_sums = 1;
	h = ab_sha256_new();
	while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
		ab_sha256_update(h, buf, (size_t)n);
		if (keep)
			ab_buf_add(keep, buf, (size_t)n);
		if (v->keep && v->keep(rel))
			ab_buf_add(&data, buf, (size_t)n);
	}
	if (n < 0) {
		char hex[AB_HEX_LEN + 1];

		ab_sha256_final(hex, h);
		printf("%s: corrupt data: %s\n", rel, archive_error_string(a));
		v->failed = 1;
		ab_buf_free(&data);
		return AB_ECHECK;
	}
	if (keep == &v->index) {
		char hex[AB_HEX_LEN + 1];

		ab_sha256_final(hex, h);
		ab_buf_free(&data);
		return 0;
	}
	if (v->nm == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 32;
		v->m = ab_realloc(v->m, v->cap * sizeof(*v->m));
	}
	v->m[v->nm].name = ab_strdup(rel);
	v->m[v->nm].listed = 0;
	v->m[v->nm].data = data;
	ab_sha256_final(v->m[v->nm].hex, h);
	v->nm++;
	return 0;
}

/* stream the bundle once: every member checked for its place and hashed */
static int
read_members(struct verify *v)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	const char *current = NULL;
	char *top = NULL;
	int error = AB_EFAIL, r;

	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, v->path, 1 << 16) != ARCHIVE_OK) {
		ab_error("cannot open bundle '%s': %s", v->path, archive_error_string(a));
		goto done;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *rel;

		current = archive_entry_pathname(e);
		if (!(rel = member_rel(v, &top, current)) || archive_entry_filetype(e) == AE_IFDIR)
			continue;
		if (archive_entry_filetype(e) != AE_IFREG) {
			printf("%s: not a regular file\n", rel);
			v->failed = 1;
			continue;
		}
		if ((error = hash_member(v, a, rel)) < 0)
			goto done;
	}
	error = AB_ECHECK;
	if (r != ARCHIVE_EOF) {
		printf("%s: corrupt bundle after '%s': %s\n", v->path, current ? current : "(start)",
		    archive_error_string(a));
		goto done;
	}
	if (!v->have_index) {
		printf("%s: no %s in the bundle\n", v->path, INDEX_NAME);
		goto done;
	}
	error = 0;
done:
	archive_read_free(a);
	free(top);
	return error;
}

static struct member *
find_member(const struct verify *v, const char *name)
{
	for (size_t j = 0; j < v->nm; j++)
		if (!strcmp(v->m[j].name, name))
			return &v->m[j];
	return NULL;
}

/* every member listed in the index with its digest, nothing listed missing */
static void
check_index(struct verify *v)
{
	struct ab_strv names = {0}, hexes = {0};

	if (parse_sums(&names, &hexes, v->index.s ? v->index.s : ""))
		printf("%s: malformed lines\n", INDEX_NAME), v->failed = 1;
	for (size_t i = 0; i < names.n; i++) {
		struct member *m = find_member(v, names.v[i]);

		if (!m) {
			printf("%s: missing from the bundle\n", names.v[i]);
			v->failed = 1;
			continue;
		}
		m->listed = 1;
		if (strcmp(m->hex, hexes.v[i])) {
			printf("%s: sha256 mismatch: expected %s, actual %s\n", names.v[i], hexes.v[i], m->hex);
			v->failed = 1;
		}
	}
	for (size_t j = 0; j < v->nm; j++)
		if (!v->m[j].listed)
			printf("%s: not listed in %s\n", v->m[j].name, INDEX_NAME), v->failed = 1;
	ab_strv_free(&names);
	ab_strv_free(&hexes);
}

/* the build's own SHA256SUMS must agree with the manifests carried */
static void
check_sums(struct verify *v)
{
	struct ab_strv names = {0}, hexes = {0};

	parse_sums(&names, &hexes, v->sums.s ? v->sums.s : "");
	for (size_t i = 0; i < names.n; i++) {
		const char *n = names.v[i][0] == '*' ? names.v[i] + 1 : names.v[i];

		for (size_t j = 0; j < v->nm; j++)
			if (!strcmp(v->m[j].name, n) && strcmp(v->m[j].hex, hexes.v[i])) {
				printf("%s: sha256 differs from SHA256SUMS: expected %s, actual %s\n", n,
				    hexes.v[i], v->m[j].hex);
				v->failed = 1;
			}
	}
	ab_strv_free(&names);
	ab_strv_free(&hexes);
}

int
ab_bundle_verify_keep(struct ab_bundle_members *out, const char *path, int (*keep)(const char *name))
{
	struct verify v = {.path = path, .keep = out ? keep : NULL};
	int error = read_members(&v);

	if (error == 0) {
		check_index(&v);
		if (v.have_sums)
			check_sums(&v);
		error = v.failed ? AB_ECHECK : 0;
	}
	if (out) {
		out->v = ab_calloc(v.nm + 1, sizeof(*out->v));
		out->n = v.nm;
	}
	for (size_t j = 0; j < v.nm; j++) {
		if (out) {
			out->v[j].name = v.m[j].name;
			memcpy(out->v[j].hex, v.m[j].hex, sizeof(out->v[j].hex));
			out->v[j].data = v.m[j].data;
			continue;
		}
		free(v.m[j].name);
		ab_buf_free(&v.m[j].data);
	}
	free(v.m);
	ab_buf_free(&v.index);
	ab_buf_free(&v.sums);
	return error;
}

int
ab_bundle_verify(const char *path)
{
	return ab_bundle_verify_keep(NULL, path, NULL);
}

void
ab_bundle_members_free(struct ab_bundle_members *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].name);
		ab_buf_free(&m->v[i].data);
	}
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

const struct ab_bundle_member *
ab_bundle_member(const struct ab_bundle_members *m, const char *name)
{
	for (size_t i = 0; i < m->n; i++)
		if (!strcmp(m->v[i].name, name))
			return &m->v[i];
	return NULL;
}

int
ab_bundle_read(struct ab_buf *out, const char *path, const char *rel, size_t max)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	int error = 1, r;

	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, path, 65536) != ARCHIVE_OK) {
		ab_error("cannot read bundle '%s': %s", path, archive_error_string(a));
		archive_read_free(a);
		return AB_EFAIL;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *name = archive_entry_pathname(e), *slash = name ? strchr(name, '/') : NULL;
		char buf[65536];
		la_ssize_t n;

		if (!slash || strcmp(slash + 1, rel) || archive_entry_filetype(e) != AE_IFREG)
			continue;
		ab_buf_clear(out);
		while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
			if (out->len + (size_t)n > max) {
				ab_error("bundle '%s': member '%s' is larger than %zu bytes", path, rel, max);
				error = AB_EFAIL;
				goto done;
			}
			ab_buf_add(out, buf, (size_t)n);
		}
		if (n < 0) {
			ab_error("bundle '%s': corrupt member '%s': %s", path, rel, archive_error_string(a));
			error = AB_EFAIL;
			goto done;
		}
		error = 0;
		goto done;
	}
	if (r != ARCHIVE_EOF) {
		ab_error("cannot read bundle '%s': %s", path, archive_error_string(a));
		error = AB_EFAIL;
	}
done:
	archive_read_free(a);
	return error;
}
