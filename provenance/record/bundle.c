#include "bundle.h"

#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "../../lib/atomic.h"
#include "../../lib/dirwalk.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "manifest.h"
#include "../runs/runrec.h"

#define INDEX_NAME "BUNDLE-SHA256SUMS"

/* a regular member, 0755 when exec (an executable file of a dir source's tree, builder/inputs.h), else 0644 */
static int
add_entry(struct archive *a, const char *name, const void *data, size_t len, int exec, int64_t mtime,
    const char *bundle)
{
	struct archive_entry *e = archive_entry_new();
	int error = -1;

	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, AE_IFREG);
	archive_entry_set_perm(e, exec ? 0755 : 0644);
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

/*
 * A member's bytes: the regular file rel of OUTDIR, opened through the
 * resolver without following any symlink, and with no other hard link (a
 * name elsewhere, outside OUTDIR perhaps, for the same bytes), so that
 * nothing outside OUTDIR and nothing the build did not write can slip in
 */
static int
read_member(struct ab_buf *data, int *exec, int rootfd, const char *outdir, const char *rel, const char *path)
{
	char why[AB_BENEATH_WHY];
	char *src = ab_path_join(outdir, rel);
	int fd = ab_dirwalk_open_beneath(rootfd, rel, O_RDONLY | O_NONBLOCK, AB_BENEATH_NOSYMLINK, why), rc;
	struct stat st;

	if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1) {
		snprintf(why, sizeof(why), "it has %lu hard links: its bytes are also another file's, perhaps outside "
		    "the OUTDIR (copy it to break the link)", (unsigned long)st.st_nlink);
		close(fd);
		fd = -1;
	}
	if (fd < 0) {
		char *shown = ab_shown(src);

		ab_error("%s: refusing member '%s': %s", path, shown, why);
		free(shown);
		free(src);
		return AB_EFAIL;
	}
	*exec = ab_manifest_mode_exec(st.st_mode);
	rc = ab_read_fd_max(data, fd, src, AB_READ_MAX);
	close(fd);
	free(src);
	return rc;
}

/* one member: its parents, its bytes, its line of the index */
static int
add_member(struct archive *a, struct ab_strv *dirs, struct ab_buf *index, int rootfd, const char *outdir,
    const char *top, const char *rel, int64_t mtime, const char *path)
{
	struct ab_buf data = {0};
	char hex[AB_HEX_LEN + 1];
	char *name;
	int rc, exec = 0;

	if (!ab_path_is_safe_relative(rel)) {
		char *shown = ab_shown(rel);

		ab_error("%s: refusing member '%s'", path, shown);
		free(shown);
		return AB_EFAIL;
	}
	if (add_parents(a, dirs, top, rel, mtime, path) < 0)
		return AB_EFAIL;
	rc = read_member(&data, &exec, rootfd, outdir, rel, path);
	if (rc < 0) {
		ab_buf_free(&data);
		return rc;
	}
	ab_hash_buf(hex, data.s, data.len);
	ab_hash_line(index, hex, rel);
	name = ab_sprintf("%s/%s", top, rel);
	rc = add_entry(a, name, data.s, data.len, exec, mtime, path);
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
	int error = AB_EFAIL, rootfd;

	memcpy(sorted, members, nmembers * sizeof(*sorted));
	qsort(sorted, nmembers, sizeof(*sorted), ab_cmp_str);
	rootfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (rootfd < 0) {
		ab_error_errno("cannot open '%s'", outdir);
		goto done;
	}
	if (ab_atomic_open(&out, path, 0) < 0 || start_archive(a, out.fd, path) < 0)
		goto done;
	name = ab_sprintf("%s/", top);
	if (add_dir(a, name, mtime, path) < 0)
		goto done;
	for (size_t i = 0; i < nmembers; i++)
		if (add_member(a, &dirs, &index, rootfd, outdir, top, sorted[i], mtime, path) < 0)
			goto done;
	free(name);
	name = ab_sprintf("%s/%s", top, INDEX_NAME);
	if (add_entry(a, name, index.s ? index.s : "", index.len, 0, mtime, path) < 0)
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
	if (rootfd >= 0)
		close(rootfd);
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
	int exec;           /* its mode has the owner's execute bit */
	struct ab_buf data; /* kept when the caller's keep() asked */
};

/* the members whose bytes verify keeps, besides hashing them */
enum kept { KEEP_INDEX, KEEP_SUMS, KEEP_STATEMENT, KEEP_COMMANDS, KEEP_N };
static const char *const kept_name[KEEP_N] = {INDEX_NAME, "SHA256SUMS", AB_MANIFEST_STATEMENT,
    "provenance/build-commands.json"};

/* what a verification read from the bundle */
struct verify {
	const char *path;
	struct member *m; /* every regular member but the index, in archive order */
	size_t nm, cap;
	struct ab_strmap index; /* member name -> position in m */
	size_t held;      /* the bytes of the members kept, together (AB_BUNDLE_MAX_KEPT_TOTAL) */
	struct ab_buf kept[KEEP_N];
	int have[KEEP_N];
	int (*keep)(const char *name); /* members whose bytes the caller wants, or NULL */
	int failed;       /* a problem was printed */
	FILE *out;        /* where problems are printed */
};

/* a problem of the bundle (or of one of its members) on v->out, names escaped */
static void
say(struct verify *v, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
say(struct verify *v, const char *name, const char *fmt, ...)
{
	char *shown = ab_shown(name);
	va_list ap;

	fputs(shown, v->out);
	fputs(": ", v->out);
	va_start(ap, fmt);
	vfprintf(v->out, fmt, ap);
	va_end(ap);
	fputc('\n', v->out);
	free(shown);
	v->failed = 1;
}

/* parse "<hex>  <name>" lines; returns the number of bad lines */
static int
parse_sums(struct ab_strv *names, struct ab_strv *hexes, const char *text)
{
	int bad = 0;

	while (*text) {
		size_t n = strcspn(text, "\n");
		char *line = ab_strndup(text, n), *hex, *name;

		if (ab_hash_line_parse(line, n, &hex, &name) == 0) {
			ab_strv_push(hexes, hex);
			ab_strv_push(names, name);
		} else if (n) {
			bad++;
		}
		free(line);
		text += n;
		if (*text)
			text++;
	}
	return bad;
}

/* a member's name without its leading "./" (tar -C dir . repacks so), or NULL */
static const char *
member_name(const char *name)
{
	while (name && name[0] == '.' && name[1] == '/')
		name += 2;
	return name;
}

/*
 * The member's name relative to the top directory (the first member's
 * first component), or NULL when it is refused (printed). A leading "./"
 * is no part of the name; a file beside the top directory is refused.
 */
static const char *
member_rel(struct verify *v, char **top, const char *name, int isdir)
{
	name = member_name(name);
	if (!name || !ab_path_is_safe_relative(name)) {
		say(v, name ? name : "(a member without a name)", "unsafe member name");
		return NULL;
	}
	if (!isdir && !strchr(name, '/')) {
		say(v, name, "not inside a top directory");
		return NULL;
	}
	if (!*top)
		*top = ab_strndup(name, strcspn(name, "/"));
	if (strncmp(name, *top, strlen(*top)) || (name[strlen(*top)] != '/' && name[strlen(*top)])) {
		char *t = ab_shown(*top);

		say(v, name, "outside the bundle's top directory '%s'", t);
		free(t);
		return NULL;
	}
	return name[strlen(*top)] ? name + strlen(*top) + 1 : "";
}

static struct member *
find_member(const struct verify *v, const char *name)
{
	size_t j;

	return ab_strmap_get(&v->index, name, &j) ? &v->m[j] : NULL;
}

/* n more bytes of a member kept in memory: within the limits, else printed and AB_ECHECK */
static int
hold(struct verify *v, const char *rel, size_t now, size_t n)
{
	if (now + n > AB_BUNDLE_MAX_KEPT) {
		say(v, rel, "larger than %zu bytes, the most verify holds of a manifest, statement or envelopes",
		    AB_BUNDLE_MAX_KEPT);
		return AB_ECHECK;
	}
	if (v->held + n > AB_BUNDLE_MAX_KEPT_TOTAL) {
		say(v, rel, "the manifests, statements and envelopes read so far hold more than %zu bytes together",
		    AB_BUNDLE_MAX_KEPT_TOTAL);
		return AB_ECHECK;
	}
	v->held += n;
	return 0;
}

/* hash a regular member; the members verify reads are kept as well; AB_ECHECK on corrupt data (printed) */
static int
hash_member(struct verify *v, struct archive *a, const char *rel, int exec)
{
	struct ab_buf *keep = NULL, data = {0};
	struct ab_sha256 *h;
	char buf[65536], hex[AB_HEX_LEN + 1];
	la_ssize_t n;
	int k, want;

	if (find_member(v, rel) || (!strcmp(rel, INDEX_NAME) && v->have[KEEP_INDEX])) {
		say(v, rel, "duplicate member");
		return 0;
	}
	for (k = 0; k < KEEP_N; k++)
		if (!strcmp(rel, kept_name[k])) {
			keep = &v->kept[k];
			v->have[k] = 1;
			break;
		}
	h = ab_sha256_new();
	want = v->keep && v->keep(rel);
	while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
		ab_sha256_update(h, buf, (size_t)n);
		if ((keep || want) && hold(v, rel, keep ? keep->len : data.len, (size_t)n) < 0) {
			ab_sha256_final(hex, h);
			ab_buf_free(&data);
			return AB_ECHECK;
		}
		if (keep)
			ab_buf_add(keep, buf, (size_t)n);
		if (want)
			ab_buf_add(&data, buf, (size_t)n);
	}
	ab_sha256_final(hex, h);
	if (n < 0) {
		const char *why = archive_error_string(a);

		say(v, rel, "corrupt data: %s", why ? why : "truncated or damaged");
		ab_buf_free(&data);
		return AB_ECHECK;
	}
	if (keep && !keep->s)
		ab_buf_grow(keep, 0), keep->s[0] = '\0';
	if (keep == &v->kept[KEEP_INDEX]) {
		ab_buf_free(&data);
		return 0;
	}
	if (v->nm == v->cap) {
		v->cap = v->cap ? 2 * v->cap : 32;
		v->m = ab_realloc(v->m, v->cap * sizeof(*v->m));
	}
	v->m[v->nm].name = ab_strdup(rel);
	ab_strmap_put(&v->index, v->m[v->nm].name, v->nm);
	v->m[v->nm].listed = 0;
	v->m[v->nm].exec = exec;
	v->m[v->nm].data = data;
	memcpy(v->m[v->nm].hex, hex, sizeof(hex));
	v->nm++;
	return 0;
}

/*
 * The gzip framing, which libarchive does not check: the whole stream
 * inflates, its trailer (CRC-32 and length) matches, and nothing follows
 * it. 0; AB_ECHECK (printed) for a damaged stream; AB_EFAIL (reported)
 * when the file is not gzip at all or cannot be read.
 */
static int
check_gzip(struct verify *v)
{
	int fd = open(v->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	unsigned char in[65536], out[65536];
	z_stream z = {0};
	int zr = Z_OK, error = AB_EFAIL, started = 0;
	struct stat st;
	ssize_t n;

	if (fd < 0 || fstat(fd, &st) < 0) {
		ab_error_errno("cannot open bundle '%s'", v->path);
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		ab_error("bundle '%s' is not a regular file", v->path);
		goto done;
	}
	if (st.st_size == 0) {
		ab_error("bundle '%s' is empty: not an evidence bundle", v->path);
		goto done;
	}
	if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
		ab_error("cannot initialise zlib");
		goto done;
	}
	started = 1;
	while (zr != Z_STREAM_END && (n = read(fd, in, sizeof(in))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ab_error_errno("cannot read bundle '%s'", v->path);
			goto done;
		}
		if (z.total_in == 0 && (n < 2 || in[0] != 0x1f || in[1] != 0x8b)) {
			ab_error("'%s' is not gzip-compressed: not an evidence bundle", v->path);
			goto done;
		}
		z.next_in = in;
		z.avail_in = (uInt)n;
		do {
			z.next_out = out;
			z.avail_out = sizeof(out);
			zr = inflate(&z, Z_NO_FLUSH);
		} while (zr == Z_OK && z.avail_in);
		if (zr != Z_OK && zr != Z_STREAM_END && zr != Z_BUF_ERROR) {
			error = AB_ECHECK;
			say(v, v->path, "corrupt gzip stream: %s", z.msg ? z.msg : "damaged data");
			goto done;
		}
		if (zr == Z_STREAM_END && z.avail_in) {
			error = AB_ECHECK;
			say(v, v->path, "%u bytes of trailing data after the gzip stream", z.avail_in);
			goto done;
		}
	}
	if (zr != Z_STREAM_END) {
		error = AB_ECHECK;
		say(v, v->path, "corrupt gzip stream: it ends before its trailer");
		goto done;
	}
	n = read(fd, in, 1);
	if (n > 0) {
		error = AB_ECHECK;
		say(v, v->path, "trailing data after the gzip stream");
		goto done;
	}
	error = 0;
done:
	if (started)
		inflateEnd(&z);
	if (fd >= 0)
		close(fd);
	return error;
}

/* stream the bundle once: every member checked for its place and hashed */
static int
read_members(struct verify *v)
{
	struct archive *a = archive_read_new();
	struct archive_entry *e;
	char *current = NULL;
	char *top = NULL;
	int error = AB_EFAIL, r, members = 0;

	archive_read_support_filter_all(a);
	archive_read_support_format_all(a);
	if (archive_read_open_filename(a, v->path, 1 << 16) != ARCHIVE_OK) {
		ab_error("cannot open bundle '%s': %s", v->path, archive_error_string(a));
		goto done;
	}
	while ((r = archive_read_next_header(a, &e)) == ARCHIVE_OK) {
		const char *rel, *name;
		int isdir;

		if (++members > AB_BUNDLE_MAX_MEMBERS) {
			say(v, v->path, "more than %d members, the most verify reads of a bundle", AB_BUNDLE_MAX_MEMBERS);
			error = AB_ECHECK;
			goto done;
		}
		free(current);
		current = ab_strdup(archive_entry_pathname(e) ? archive_entry_pathname(e) : "");
		isdir = archive_entry_filetype(e) == AE_IFDIR;
		name = member_name(archive_entry_pathname(e));
		/* the archive's own "./" (tar -C dir .): no member of the bundle */
		if (isdir && name && (!name[0] || !strcmp(name, ".")))
			continue;
		if (!(rel = member_rel(v, &top, name, isdir)) || isdir)
			continue;
		if (archive_entry_filetype(e) != AE_IFREG || !rel[0]) {
			say(v, rel[0] ? rel : current, "not a regular file");
			continue;
		}
		if ((error = hash_member(v, a, rel, (archive_entry_perm(e) & 0100) != 0)) < 0)
			goto done;
	}
	if (r != ARCHIVE_EOF && !members) {
		ab_error("'%s' is not an evidence bundle: %s", v->path, archive_error_string(a));
		error = AB_EFAIL;
		goto done;
	}
	error = AB_ECHECK;
	if (r != ARCHIVE_EOF) {
		char *after = current ? ab_shown(current) : ab_strdup("(start)");
		const char *why = archive_error_string(a);

		say(v, v->path, "corrupt bundle after '%s': %s", after, why ? why : "damaged data");
		free(after);
		goto done;
	}
	if (!members) {
		ab_error("'%s' holds no members: not an evidence bundle", v->path);
		error = AB_EFAIL;
		goto done;
	}
	if (!v->have[KEEP_INDEX]) {
		ab_error("'%s' has no %s under a top directory: not an evidence bundle of allocbuild", v->path,
		    INDEX_NAME);
		error = AB_EFAIL;
		goto done;
	}
	error = 0;
done:
	archive_read_free(a);
	free(current);
	free(top);
	return error;
}

/* every member listed in the index with its digest, nothing listed missing */
static void
check_index(struct verify *v)
{
	struct ab_strv names = {0}, hexes = {0};

	if (parse_sums(&names, &hexes, v->kept[KEEP_INDEX].s ? v->kept[KEEP_INDEX].s : ""))
		say(v, INDEX_NAME, "malformed lines");
	for (size_t i = 0; i < names.n; i++) {
		struct member *m = find_member(v, names.v[i]);

		if (!m) {
			say(v, names.v[i], "missing from the bundle");
			continue;
		}
		m->listed = 1;
		if (strcmp(m->hex, hexes.v[i]))
			say(v, names.v[i], "sha256 mismatch: expected %s, actual %s", hexes.v[i], m->hex);
	}
	for (size_t j = 0; j < v->nm; j++)
		if (!v->m[j].listed)
			say(v, v->m[j].name, "not listed in %s", INDEX_NAME);
	ab_strv_free(&names);
	ab_strv_free(&hexes);
}

/* the subjects of the statement (artifacts: in SHA256SUMS, never in a bundle), indexed by name */
static void
subjects_of(struct ab_strmap *out, const cJSON *stmt)
{
	const cJSON *it;
	size_t i = 0;

	cJSON_ArrayForEach(it, ab_json_get(stmt, "subject"))
		if (ab_json_str(it, "name"))
			ab_strmap_put(out, ab_json_str(it, "name"), i++);
}

/*
 * The build's own SHA256SUMS must agree with the members carried: each
 * listed file that a bundle carries (all but the artifacts) is there with
 * its digest, and the coverage rules of an OUTDIR hold (provenance/record/manifest.h)
 */
static void
check_sums(struct verify *v)
{
	struct ab_strv names = {0}, hexes = {0}, present = {0};
	struct ab_strmap subjects = {0};
	cJSON *stmt = NULL, *commands = NULL;

	if (!v->have[KEEP_SUMS]) {
		say(v, "SHA256SUMS", "missing from the bundle");
		return;
	}
	if (parse_sums(&names, &hexes, v->kept[KEEP_SUMS].s))
		say(v, "SHA256SUMS", "malformed lines");
	if (v->have[KEEP_STATEMENT])
		stmt = cJSON_ParseWithLength(v->kept[KEEP_STATEMENT].s, v->kept[KEEP_STATEMENT].len);
	if (!stmt)
		say(v, AB_MANIFEST_STATEMENT, "not a readable in-toto statement");
	if (v->have[KEEP_COMMANDS])
		commands = cJSON_ParseWithLength(v->kept[KEEP_COMMANDS].s, v->kept[KEEP_COMMANDS].len);
	subjects_of(&subjects, stmt);
	for (size_t i = 0; i < names.n; i++) {
		const struct member *m = find_member(v, names.v[i]);

		if (m && strcmp(m->hex, hexes.v[i]))
			say(v, names.v[i], "sha256 differs from SHA256SUMS: expected %s, actual %s", hexes.v[i], m->hex);
		else if (!m && stmt && !ab_strmap_get(&subjects, names.v[i], NULL))
			say(v, names.v[i], "listed in SHA256SUMS but missing from the bundle");
	}
	for (size_t j = 0; j < v->nm; j++)
		if (strcmp(v->m[j].name, "SHA256SUMS") && strcmp(v->m[j].name, "pr-details.md") &&
		    strncmp(v->m[j].name, AB_PR_CHARTS "/", sizeof(AB_PR_CHARTS)) &&
		    strncmp(v->m[j].name, AB_PR_POLICY "/", sizeof(AB_PR_POLICY)) &&
		    strncmp(v->m[j].name, AB_TEST_RESULTS "/", sizeof(AB_TEST_RESULTS)) &&
		    strncmp(v->m[j].name, AB_SBOM_DIR "/", sizeof(AB_SBOM_DIR)))
			ab_strv_push(&present, v->m[j].name);
	{
		struct ab_manifest_listing l = {.sums = &names, .statement = stmt, .commands = commands,
		    .present = &present};

		if (ab_manifest_check_listing(v->out, &l))
			v->failed = 1;
	}
	ab_strmap_free(&subjects);
	cJSON_Delete(stmt);
	cJSON_Delete(commands);
	ab_strv_free(&names);
	ab_strv_free(&hexes);
	ab_strv_free(&present);
}

int
ab_bundle_verify_keep(struct ab_bundle_members *out, const char *path, int (*keep)(const char *name))
{
	return ab_bundle_verify_keep_to(stdout, out, path, keep);
}

int
ab_bundle_verify_keep_to(FILE *f, struct ab_bundle_members *out, const char *path, int (*keep)(const char *name))
{
	struct verify v = {.path = path, .keep = out ? keep : NULL, .out = f};
	int error = check_gzip(&v);

	if (error == 0)
		error = read_members(&v);
	if (error == 0) {
		check_index(&v);
		check_sums(&v);
	}
	if (error != AB_EFAIL)
		error = v.failed ? AB_ECHECK : 0;
	if (out) {
		out->v = ab_calloc(v.nm + 1, sizeof(*out->v));
		out->n = v.nm;
		memset(&out->index, 0, sizeof(out->index));
	}
	ab_strmap_free(&v.index);
	for (size_t j = 0; j < v.nm; j++) {
		if (out) {
			out->v[j].name = v.m[j].name;
			memcpy(out->v[j].hex, v.m[j].hex, sizeof(out->v[j].hex));
			out->v[j].data = v.m[j].data;
			out->v[j].exec = v.m[j].exec;
			ab_strmap_put(&out->index, out->v[j].name, j);
			continue;
		}
		free(v.m[j].name);
		ab_buf_free(&v.m[j].data);
	}
	free(v.m);
	for (int k = 0; k < KEEP_N; k++)
		ab_buf_free(&v.kept[k]);
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
	ab_strmap_free(&m->index);
	m->v = NULL;
	m->n = 0;
}

const struct ab_bundle_member *
ab_bundle_member(const struct ab_bundle_members *m, const char *name)
{
	size_t i;

	return ab_strmap_get(&m->index, name, &i) ? &m->v[i] : NULL;
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
		const char *name = member_name(archive_entry_pathname(e)), *slash = name ? strchr(name, '/') : NULL;
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

int
ab_bundle_check_runs(FILE *out, const struct ab_bundle_members *m, const char *build_stmt)
{
	const struct ab_bundle_member *st = ab_bundle_member(m, build_stmt);
	struct ab_strv builds = {0};
	cJSON *doc = st && st->data.s ? cJSON_ParseWithLength(st->data.s, st->data.len) : NULL;
	int rc = 0;

	ab_runrec_builds(&builds, doc);
	cJSON_Delete(doc);
	for (size_t i = 0; i < m->n && builds.n; i++) {
		char *why;

		if (!ab_runrec_is_statement(m->v[i].name) || !m->v[i].data.s)
			continue;

		doc = cJSON_ParseWithLength(m->v[i].data.s, m->v[i].data.len);
		if (doc && (why = ab_runrec_foreign(doc, &builds))) {
			char *name = ab_shown(m->v[i].name);

			fprintf(out, "%s: %s\n", name, why);
			free(name);
			free(why);
			rc = AB_ECHECK;
		}
		cJSON_Delete(doc);
	}
	ab_strv_free(&builds);
	return rc;
}
