#include "tree.h"

#include <archive.h>
#include <archive_entry.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/dirwalk.h"
#include "../../lib/member.h"
#include "../../lib/util.h"
#include "../../lib/bz2.h"
#include "../../lib/pool.h"

enum {
	READ_BUFSZ = 256 * 1024, /* git blobs streamed */
	VERSION_MAX = 4096,   /* a VERSION file larger than this is not a version */
	GIT_STREAM_MIN = 32 * 1024 * 1024, /* stream git blobs from this size when the ODB allows */
	BZ2_PAR_MAX = 64 * 1024 * 1024,    /* bzip2 files up to this size are decoded in parallel */
};

/* holes in one sparse archive member, at most (hashing zeros runs at ~2 GB/s) */
static const int64_t HOLES_MAX = (int64_t)16 << 30;

const char *
ab_tree_kind_name(enum ab_tree_kind kind)
{
	switch (kind) {
	case AB_TREE_DIRECTORY:
		return "directory";
	case AB_TREE_ARCHIVE:
		return "archive";
	case AB_TREE_GIT:
		return "git";
	}
	return "?";
}

static struct ab_tree_entry *
add_entry(struct ab_tree *t, char *path, enum ab_entry_type type)
{
	struct ab_tree_entry *e;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 256;
		t->v = ab_realloc(t->v, t->cap * sizeof(*t->v));
	}
	e = &t->v[t->n];
	memset(e, 0, sizeof(*e));
	e->path = path;
	e->type = type;
	e->seq = t->n++;
	return e;
}

static void
entry_release(struct ab_tree_entry *e)
{
	free(e->path);
	free(e->target);
	free(e->data);
	free(e->hardlink);
}

void
ab_tree_free(struct ab_tree *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++)
		entry_release(&t->v[i]);
	free(t->v);
	free(t->spec);
	free(t->root);
	free(t->rev);
	free(t->subpath);
	free(t->version);
	free(t);
}

static int
cmp_entry(const void *a, const void *b)
{
	const struct ab_tree_entry *x = a, *y = b;
	int c = strcmp(x->path, y->path);

	if (c)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

struct ab_tree_entry *
ab_tree_find(const struct ab_tree *t, const char *path)
{
	size_t lo = 0, hi = t->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(path, t->v[mid].path);

		if (!c)
			return &t->v[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

void
ab_tree_dirhash(char hex[AB_HEX_LEN + 1], const struct ab_tree_entry *v, size_t n)
{
	struct ab_dirhash *d = ab_dirhash_new();

	for (size_t i = 0; i < n; i++)
		if (v[i].type == AB_ENTRY_FILE)
			ab_dirhash_add(d, v[i].sha256, v[i].path);
	ab_dirhash_final(hex, d);
}

/* sort, drop earlier duplicates (a later archive member replaces an earlier one), totals, dirHash */
static void
finish_tree(struct ab_tree *t)
{
	size_t w = 0;

	if (t->n)
		qsort(t->v, t->n, sizeof(*t->v), cmp_entry);
	for (size_t i = 0; i < t->n; i++) {
		if (i + 1 < t->n && !strcmp(t->v[i].path, t->v[i + 1].path)) {
			entry_release(&t->v[i]);
			continue;
		}
		t->v[w++] = t->v[i];
	}
	t->n = w;
	t->nfiles = 0;
	t->bytes = 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->v[i].type != AB_ENTRY_FILE)
			continue;
		t->nfiles++;
		t->bytes += t->v[i].size;
	}
	ab_tree_dirhash(t->dirhash, t->v, t->n);
}

/* the first line of a VERSION file, trimmed; NULL when empty */
static char *
version_line(const char *data, size_t len)
{
	size_t n = 0;

	while (n < len && data[n] != '\n' && data[n] != '\r' && data[n] != '\0')
		n++;
	while (n && (data[n - 1] == ' ' || data[n - 1] == '\t'))
		n--;
	return n ? ab_strndup(data, n) : NULL;
}

/* ---- directories ---- */

/*
 * The walk's entries other than regular files (those lib/hash hashes on
 * the pool while the walk goes on): symlinks keep their target
 */
static int
dir_visit(struct ab_dirwalk_entry *e, void *arg)
{
	struct ab_tree *t = arg;
	struct ab_tree_entry *te;
	char buf[4096];
	ssize_t n;

	switch (e->type) {
	case DT_DIR:
		return AB_DIRWALK_DESCEND;
	case DT_LNK:
		n = readlinkat(e->dirfd, e->name, buf, sizeof(buf) - 1);
		if (n < 0) {
			char *p = ab_path_join(e->root, e->path);

			ab_error_errno("cannot read symbolic link '%s'", p);
			free(p);
			return -1;
		}
		te = add_entry(t, ab_strdup(e->path), AB_ENTRY_SYMLINK);
		te->target = ab_strndup(buf, (size_t)n);
		te->size = (uint64_t)n;
		ab_hash_buf(te->sha256, buf, (size_t)n);
		return 0;
	default:
		add_entry(t, ab_strdup(e->path), AB_ENTRY_OTHER);
		return 0;
	}
}

static int
read_dir(struct ab_tree *t, int jobs)
{
	struct ab_hash_tfile *files;
	struct ab_tree_entry *ver;
	size_t nfiles;

	/* jobs <= 1 is one thread here */
	if (ab_hash_tree_files(&files, &nfiles, t->root, jobs < 1 ? 1 : jobs, dir_visit, t) < 0)
		return -1;
	for (size_t i = 0; i < nfiles; i++) {
		struct ab_tree_entry *e = add_entry(t, files[i].path, AB_ENTRY_FILE);

		files[i].path = NULL; /* the entry's now */
		e->size = files[i].size;
		e->exec = (files[i].mode & 0111) != 0;
		memcpy(e->sha256, files[i].hex, sizeof(e->sha256));
	}
	ab_hash_tfiles_free(files, nfiles);
	finish_tree(t);
	ver = ab_tree_find(t, "VERSION");
	if (ver && ver->type == AB_ENTRY_FILE && ver->size <= VERSION_MAX) {
		struct ab_buf b = {0};
		char *full = ab_path_join(t->root, "VERSION");

		if (ab_read_file(&b, full) == 0 && b.s)
			t->version = version_line(b.s, b.len);
		ab_buf_free(&b);
		free(full);
	}
	return 0;
}

static int
load_dir(struct ab_tree *t, uint64_t limit)
{
	for (size_t i = 0; i < t->n; i++) {
		struct ab_tree_entry *e = &t->v[i];
		struct ab_buf b = {0};
		char *full;

		if (!e->wanted || e->loaded || e->type != AB_ENTRY_FILE || e->size > limit)
			continue;
		full = ab_path_join(t->root, e->path);
		if (ab_read_file(&b, full) < 0) {
			free(full);
			return -1;
		}
		free(full);
		e->data_len = b.len;
		e->data = ab_buf_detach(&b);
		e->loaded = 1;
	}
	return 0;
}

/* ---- archives ---- */

struct arcsrc {
	int fd;
	struct ab_sha256 *h;
	const char *path;
	int read_error;
	unsigned char *mem;   /* the whole file, for parallel bzip2 decoding */
	struct ab_bz2 *bz;
	int bz_failed;        /* retry with libarchive's sequential decoder */
	char buf[64 * 1024];
};

/*
 * A .bz2 archive of moderate size is read into memory and its blocks are
 * decoded in parallel (lib/bz2.h): bzip2 is most of the time spent
 * on a release tarball. Returns 0 when that is set up.
 */
static int
arc_try_bz2(struct arcsrc *s)
{
	unsigned char magic[4];
	struct stat st;
	size_t got = 0;
	int jobs = ab_pool_default_jobs();

	if (jobs < 2 || fstat(s->fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size < 14 ||
	    st.st_size > BZ2_PAR_MAX || pread(s->fd, magic, 4, 0) != 4 || memcmp(magic, "BZh", 3))
		return -1;
	s->mem = ab_malloc((size_t)st.st_size);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(s->fd, s->mem + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got != (size_t)st.st_size || ab_bz2_open(&s->bz, s->mem, got, jobs > 4 ? 4 : jobs) != 0) {
		free(s->mem);
		s->mem = NULL;
		lseek(s->fd, 0, SEEK_SET);
		return -1;
	}
	if (s->h)
		ab_sha256_update(s->h, s->mem, got);
	return 0;
}

static la_ssize_t
arc_read(struct archive *a, void *ud, const void **out)
{
	struct arcsrc *s = ud;
	ssize_t n;

	if (s->bz) {
		n = ab_bz2_read(s->bz, out);
		if (n < 0) {
			s->bz_failed = 1;
			archive_set_error(a, EIO, "parallel bzip2 decoding failed");
			return -1;
		}
		return n;
	}
	do
		n = read(s->fd, s->buf, sizeof(s->buf));
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		s->read_error = errno;
		archive_set_error(a, errno, "read error");
		return -1;
	}
	if (s->h)
		ab_sha256_update(s->h, s->buf, (size_t)n);
	*out = s->buf;
	return n;
}

/* libarchive's message, which some readers leave unset on a damaged archive */
static const char *
arc_error(struct archive *a)
{
	const char *msg = archive_error_string(a);

	return msg ? msg : "damaged archive";
}

static int
arc_open(struct archive **out, struct arcsrc *s, const char *path, int hash, int par)
{
	struct archive *a = archive_read_new();

	s->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (s->fd < 0) {
		ab_error_errno("cannot open '%s'", path);
		archive_read_free(a);
		return -1;
	}
	s->path = path;
	s->h = hash ? ab_sha256_new() : NULL;
	s->read_error = 0;
	s->mem = NULL;
	s->bz = NULL;
	s->bz_failed = 0;
	if (par)
		arc_try_bz2(s);
	archive_read_support_filter_all(a);
	/* every archive format, but not mtree or raw, which take any text file for an archive */
	archive_read_support_format_7zip(a);
	archive_read_support_format_ar(a);
	archive_read_support_format_cab(a);
	archive_read_support_format_cpio(a);
	archive_read_support_format_iso9660(a);
	archive_read_support_format_lha(a);
	archive_read_support_format_rar(a);
	archive_read_support_format_rar5(a);
	archive_read_support_format_tar(a);
	archive_read_support_format_xar(a);
	archive_read_support_format_zip(a);
	if (archive_read_open(a, s, NULL, arc_read, NULL) != ARCHIVE_OK) {
		if (!s->bz_failed)
			ab_error("cannot read archive '%s': %s", path, arc_error(a));
		archive_read_free(a);
		ab_bz2_free(s->bz);
		free(s->mem);
		close(s->fd);
		if (s->h) {
			char hex[AB_HEX_LEN + 1];

			ab_sha256_final(hex, s->h);
			s->h = NULL;
		}
		return s->bz_failed ? -2 : -1;
	}
	*out = a;
	return 0;
}

static void
arc_close(struct archive *a, struct arcsrc *s, char hex[AB_HEX_LEN + 1])
{
	archive_read_free(a);
	ab_bz2_free(s->bz);
	s->bz = NULL;
	free(s->mem);
	s->mem = NULL;
	if (s->h) {
		ssize_t n;

		/* the end-of-archive marker may come before the end of the file */
		while ((n = read(s->fd, s->buf, sizeof(s->buf))) > 0 || (n < 0 && errno == EINTR))
			if (n > 0)
				ab_sha256_update(s->h, s->buf, (size_t)n);
		ab_sha256_final(hex, s->h);
		s->h = NULL;
	}
	close(s->fd);
}

/*
 * Feed a member's data to fn block by block: holes of sparse members as
 * zeros, and a sparse member's trailing hole up to the size in its header
 * (libarchive leaves it out). Returns -1 on a read error (the caller
 * reports archive_error_string), -2 when the holes exceed HOLES_MAX: a
 * hostile header could otherwise make us hash zeros for ever.
 */
static int
member_data(struct archive *a, struct archive_entry *ae, void (*fn)(void *, const void *, size_t), void *ud)
{
	static const char zeros[64 * 1024];
	const void *p;
	size_t len;
	la_int64_t off, pos = 0, holes = 0;
	int r;

	for (;;) {
		r = archive_read_data_block(a, &p, &len, &off);
		if (r == ARCHIVE_EOF)
			break;
		if (r < ARCHIVE_WARN)
			return -1;
		if (off > pos && (holes += off - pos) > HOLES_MAX)
			return -2;
		while (pos < off) {
			size_t n = off - pos < (la_int64_t)sizeof(zeros) ? (size_t)(off - pos) : sizeof(zeros);

			fn(ud, zeros, n);
			pos += (la_int64_t)n;
		}
		if (len)
			fn(ud, p, len);
		pos = off + (la_int64_t)len;
	}
	if (archive_entry_sparse_count(ae) > 0 && archive_entry_size_is_set(ae)) {
		la_int64_t size = archive_entry_size(ae);

		if (size > pos && (holes += size - pos) > HOLES_MAX)
			return -2;
		while (pos < size) {
			size_t n = size - pos < (la_int64_t)sizeof(zeros) ? (size_t)(size - pos) : sizeof(zeros);

			fn(ud, zeros, n);
			pos += (la_int64_t)n;
		}
	}
	return 0;
}

struct hashsink {
	struct ab_sha256 *h;
	uint64_t size;
	struct ab_buf *keep; /* the first VERSION_MAX bytes, or NULL */
};

static void
hash_sink(void *ud, const void *p, size_t n)
{
	struct hashsink *s = ud;

	ab_sha256_update(s->h, p, n);
	s->size += n;
	if (s->keep && s->keep->len < VERSION_MAX)
		ab_buf_add(s->keep, p, n);
}

static void
buf_sink(void *ud, const void *p, size_t n)
{
	ab_buf_add(ud, p, n);
}

/*
 * Archive members are refused by the rules and in the words of extraction
 * for `fetch` (lib/member.h), so that a tarball upstream-diff accepts
 * is one fetch extracts. The checks that depend on the names after the
 * strip (paths through a symlink or a file, duplicates, symlink targets,
 * hard links) run once the strip is known, over the members in archive
 * order, as extraction does.
 */
struct member {
	char *raw;    /* the name in the archive, for messages */
	char *name;   /* normalised, not stripped */
	enum ab_member_type type;
	char *link;   /* symlink target or hard link name as in the archive */
	size_t entry; /* index in t->v, or SIZE_MAX for a directory */
};

struct members {
	struct member *v;
	size_t n, cap;
};

static void
members_free(struct members *m)
{
	for (size_t i = 0; i < m->n; i++) {
		free(m->v[i].raw);
		free(m->v[i].name);
		free(m->v[i].link);
	}
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/*
 * The checks that need the strip and the members before, in archive
 * order; a hard link takes the content of the file it names. Members with
 * nothing left after the strip are skipped, as extraction skips them.
 */
static int
check_members(struct ab_tree *t, const struct members *m, int strip)
{
	struct ab_member_set *seen = ab_member_set_new(t->root, strip);
	int error = -1;

	for (size_t i = 0; i < m->n; i++) {
		const struct member *mb = &m->v[i];
		struct ab_member am = {mb->raw, ab_member_strip(mb->name, strip), mb->type, mb->link, mb->entry};
		size_t k = SIZE_MAX;

		if (!am.rel)
			continue;
		if (ab_member_accept(NULL, &k, seen, &am) < 0)
			goto done;
		if (mb->type == AB_MEMBER_HARDLINK) {
			struct ab_tree_entry *e = &t->v[mb->entry], *to = &t->v[k];

			e->type = to->type;
			e->size = to->size;
			e->exec = to->exec;
			memcpy(e->sha256, to->sha256, sizeof(e->sha256));
		}
	}
	error = 0;
done:
	ab_member_set_free(seen);
	return error;
}

/* what the pass over an archive gathers besides the entries */
struct arcscan {
	struct members mem;  /* every member with a name, in archive order */
	char *top;           /* the first component of the first member */
	int any, same_top, file_at_top;
	struct ab_buf ver;   /* the first bytes of the member being read, when a VERSION */
};

static struct member *
members_add(struct members *m)
{
	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 256;
		m->v = ab_realloc(m->v, m->cap * sizeof(*m->v));
	}
	return &m->v[m->n++];
}

/*
 * Hash a regular member's data into e, holes included; a VERSION's first
 * line is kept in e->data until the strip is known. 0, -1 (reported), or
 * -2 when the parallel bzip2 decoder gave up.
 */
static int
hash_member(struct ab_tree *t, struct arcscan *sc, struct archive *a, struct archive_entry *ae,
    const struct arcsrc *s, struct ab_tree_entry *e)
{
	const char *below = ab_member_strip(e->path, 1);
	int is_version = !strcmp(below ? below : "", "VERSION") || !strcmp(e->path, "VERSION");
	struct hashsink hs = {ab_sha256_new(), 0, is_version ? &sc->ver : NULL};
	int rd;

	ab_buf_clear(&sc->ver);
	rd = member_data(a, ae, hash_sink, &hs);
	ab_sha256_final(e->sha256, hs.h);
	e->size = hs.size;
	if (rd < 0 && s->bz_failed)
		return -2;
	if (rd == -2) {
		char *shown = ab_shown(e->path);

		ab_error("archive '%s': member '%s': sparse holes larger than 16 GiB", t->root, shown);
		free(shown);
		return -1;
	}
	if (rd < 0) {
		char *shown = ab_shown(e->path);

		ab_error("cannot read '%s' in archive '%s': %s", shown, t->root, arc_error(a));
		free(shown);
		return -1;
	}
	if (is_version && sc->ver.len && e->size <= VERSION_MAX) {
		e->data = version_line(sc->ver.s, sc->ver.len);
		e->data_len = e->data ? strlen(e->data) : 0;
	}
	return 0;
}

/*
 * One member: refused by extraction's rules, or recorded (sc->mem) and,
 * unless a directory, made an entry; a regular file is hashed. The top
 * directory is tracked for the automatic strip. 0, -1 (reported), -2.
 */
static int
read_member(struct ab_tree *t, struct arcscan *sc, struct archive *a, struct archive_entry *ae,
    const struct arcsrc *s)
{
	const char *raw = archive_entry_pathname(ae);
	const char *hl = archive_entry_hardlink(ae);
	struct ab_tree_entry *e;
	struct member *mb;
	enum ab_member_type type;
	char *name;
	size_t toplen;

	/* as extraction: a name that cannot be decoded is no name */
	if (!raw)
		raw = "";
	if (ab_member_check(&type, t->root, raw, ae) < 0)
		return -1;
	name = ab_member_normalise(raw);
	if (!*name) {
		free(name);
		return 0;
	}
	mb = members_add(&sc->mem);
	mb->raw = ab_strdup(raw);
	mb->name = ab_strdup(name);
	mb->type = type;
	mb->link = type == AB_MEMBER_HARDLINK ? ab_strdup(hl) : type == AB_MEMBER_SYMLINK ?
	    ab_strdup(archive_entry_symlink(ae) ? archive_entry_symlink(ae) : "") : NULL;
	mb->entry = type == AB_MEMBER_DIR ? SIZE_MAX : t->n;
	toplen = strcspn(name, "/");
	if (!sc->any) {
		sc->top = ab_strndup(name, toplen);
		sc->any = 1;
	} else if (strlen(sc->top) != toplen || strncmp(sc->top, name, toplen)) {
		sc->same_top = 0;
	}
	if (type == AB_MEMBER_DIR) {
		free(name);
		return 0;
	}
	if (!name[toplen])
		sc->file_at_top = 1;
	if (type == AB_MEMBER_HARDLINK) {
		/* the content comes from the file it names, in check_members */
		e = add_entry(t, name, AB_ENTRY_FILE);
		e->hardlink = ab_member_normalise(hl);
		return 0;
	}
	if (type == AB_MEMBER_SYMLINK) {
		e = add_entry(t, name, AB_ENTRY_SYMLINK);
		e->target = ab_strdup(mb->link);
		e->size = strlen(mb->link);
		ab_hash_buf(e->sha256, mb->link, e->size);
		return 0;
	}
	e = add_entry(t, name, AB_ENTRY_FILE);
	e->exec = (archive_entry_perm(ae) & 0111) != 0;
	return hash_member(t, sc, a, ae, s, e);
}

/* the names after the strip; entries with nothing left go; a root VERSION gives the version */
static void
apply_strip(struct ab_tree *t, int strip)
{
	size_t w = 0;

	t->strip = strip;
	for (size_t i = 0; i < t->n; i++) {
		struct ab_tree_entry *e = &t->v[i];
		const char *rest = ab_member_strip(e->path, strip);

		if (!rest || !*rest) {
			entry_release(e);
			continue;
		}
		if (rest != e->path) {
			char *p = ab_strdup(rest);

			free(e->path);
			e->path = p;
		}
		if (!strcmp(e->path, "VERSION") && e->data) {
			free(t->version);
			t->version = ab_strdup(e->data);
		}
		free(e->data);
		e->data = NULL;
		e->data_len = 0;
		t->v[w++] = *e;
	}
	t->n = w;
}

/* one pass over the archive: 0, -1 (reported), -2 when the parallel bzip2 decoder gave up */
static int
read_archive_pass(struct ab_tree *t, int strip, int par)
{
	struct arcsrc *s = ab_malloc(sizeof(*s));
	struct arcscan sc = {.same_top = 1};
	struct archive *a;
	struct archive_entry *ae;
	int r, error;

	if ((error = arc_open(&a, s, t->root, 1, par)) < 0) {
		free(s);
		return error;
	}
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK || r == ARCHIVE_WARN)
		if ((error = read_member(t, &sc, a, ae, s)) < 0)
			goto done;
	error = -2;
	if (r != ARCHIVE_EOF && s->bz_failed)
		goto done;
	error = -1;
	if (r != ARCHIVE_EOF) {
		ab_error("cannot read archive '%s': %s", t->root, arc_error(a));
		goto done;
	}
	if (strip < 0)
		strip = sc.any && sc.same_top && !sc.file_at_top ? 1 : 0;
	if (check_members(t, &sc.mem, strip) < 0)
		goto done;
	apply_strip(t, strip);
	arc_close(a, s, t->archive_sha256);
	a = NULL;
	if (s->read_error) {
		errno = s->read_error;
		ab_error_errno("cannot read '%s'", t->root);
		goto done;
	}
	finish_tree(t);
	error = 0;
done:
	if (a)
		arc_close(a, s, t->archive_sha256);
	free(s);
	free(sc.top);
	ab_buf_free(&sc.ver);
	members_free(&sc.mem);
	return error;
}

static int
read_archive(struct ab_tree *t, int strip)
{
	int rc = read_archive_pass(t, strip, 1);

	if (rc != -2)
		return rc;
	/* the parallel bzip2 decoder gave up: start again with libarchive's */
	for (size_t i = 0; i < t->n; i++)
		entry_release(&t->v[i]);
	t->n = 0;
	free(t->version);
	t->version = NULL;
	return read_archive_pass(t, strip, 0) < 0 ? -1 : 0;
}

/* a second pass over the archive for the content of wanted members */
static int
load_archive(struct ab_tree *t, uint64_t limit)
{
	struct arcsrc *s;
	struct archive *a;
	struct archive_entry *ae;
	int r, error = -1, need = 0;

	for (size_t i = 0; i < t->n; i++) {
		struct ab_tree_entry *e = &t->v[i];

		if (e->wanted && !e->loaded && e->type == AB_ENTRY_FILE && e->size <= limit)
			need = 1;
	}
	if (!need)
		return 0;
	s = ab_malloc(sizeof(*s));
	if (arc_open(&a, s, t->root, 0, 0) < 0) {
		free(s);
		return -1;
	}
	while ((r = archive_read_next_header(a, &ae)) == ARCHIVE_OK || r == ARCHIVE_WARN) {
		const char *raw = archive_entry_pathname(ae);
		struct ab_tree_entry *e;
		const char *rest;
		char *name;

		if (!raw)
			raw = archive_entry_pathname_utf8(ae);
		if (!raw || archive_entry_filetype(ae) != AE_IFREG || archive_entry_hardlink(ae))
			continue;
		name = ab_member_normalise(raw);
		rest = ab_member_strip(name, t->strip);
		e = rest ? ab_tree_find(t, rest) : NULL;
		free(name);
		if (!e || !e->wanted || e->type != AB_ENTRY_FILE || e->size > limit)
			continue;
		{
			struct ab_buf b = {0};

			if (member_data(a, ae, buf_sink, &b) < 0) {
				char *shown = ab_shown(e->path);

				ab_error("cannot read '%s' in archive '%s': %s", shown, t->root, arc_error(a));
				free(shown);
				ab_buf_free(&b);
				goto done;
			}
			/* a later duplicate member replaces an earlier one, as in the listing */
			free(e->data);
			e->data_len = b.len;
			e->data = ab_buf_detach(&b);
			e->loaded = 1;
		}
	}
	if (r != ARCHIVE_EOF) {
		ab_error("cannot read archive '%s': %s", t->root, arc_error(a));
		goto done;
	}
	/* hard-linked members: copy the data of a file with the same content */
	for (size_t i = 0; i < t->n; i++) {
		struct ab_tree_entry *e = &t->v[i];

		if (!e->wanted || e->loaded || !e->hardlink || e->size > limit)
			continue;
		for (size_t k = 0; k < t->n; k++)
			if (t->v[k].loaded && !strcmp(t->v[k].sha256, e->sha256)) {
				e->data = ab_malloc(t->v[k].data_len + 1);
				memcpy(e->data, t->v[k].data, t->v[k].data_len);
				e->data[t->v[k].data_len] = '\0';
				e->data_len = t->v[k].data_len;
				e->loaded = 1;
				break;
			}
	}
	error = 0;
done:
	arc_close(a, s, NULL);
	free(s);
	return error;
}

/* ---- git ---- */

int
ab_tree_parse_git_spec(char **repo, char **rev, char **path, const char *spec)
{
	const char *at = NULL, *rest, *colon = NULL;
	int depth = 0;

	*repo = *rev = *path = NULL;
	if (!strncmp(spec, "git:", 4))
		spec += 4;
	for (const char *p = strchr(spec, '@'); p; p = strchr(p + 1, '@')) {
		char *prefix = ab_strndup(spec, (size_t)(p - spec));
		int dir = ab_is_dir(prefix);

		free(prefix);
		if (!at)
			at = p;
		if (dir) {
			at = p;
			break;
		}
	}
	if (!at || at == spec)
		return -1;
	rest = at + 1;
	for (const char *p = rest; *p; p++) {
		if (*p == '{')
			depth++;
		else if (*p == '}' && depth)
			depth--;
		else if (*p == ':' && !depth) {
			colon = p;
			break;
		}
	}
	if ((colon ? colon : rest + strlen(rest)) == rest)
		return -1;
	*repo = ab_strndup(spec, (size_t)(at - spec));
	*rev = colon ? ab_strndup(rest, (size_t)(colon - rest)) : ab_strdup(rest);
	/* "./a//b/" -> "a/b", as archive member names */
	*path = colon ? ab_member_normalise(colon + 1) : ab_strdup("");
	return 0;
}

struct gitwalk {
	struct ab_tree *t;
	const char *prefix;
};

static int
git_walk_cb(const char *root, const git_tree_entry *te, void *payload)
{
	struct gitwalk *w = payload;
	git_filemode_t mode = git_tree_entry_filemode(te);
	struct ab_tree_entry *e;
	char *path;

	if (mode == GIT_FILEMODE_TREE)
		return 0;
	path = ab_sprintf("%s%s", root, git_tree_entry_name(te));
	switch (mode) {
	case GIT_FILEMODE_BLOB:
	case GIT_FILEMODE_BLOB_EXECUTABLE:
		e = add_entry(w->t, path, AB_ENTRY_FILE);
		e->exec = mode == GIT_FILEMODE_BLOB_EXECUTABLE;
		break;
	case GIT_FILEMODE_LINK:
		e = add_entry(w->t, path, AB_ENTRY_SYMLINK);
		break;
	default:
		e = add_entry(w->t, path, AB_ENTRY_OTHER);
		break;
	}
	git_oid_tostr(e->blob, sizeof(e->blob), git_tree_entry_id(te));
	return 0;
}

/* hash a blob; large blobs are streamed when the object database can (loose objects) */
static int
hash_blob(struct ab_tree *t, git_repository *repo, git_odb *odb, struct ab_tree_entry *e, int keep)
{
	git_oid oid;
	git_blob *blob = NULL;
	size_t len = 0;
	git_object_t type;

	git_oid_fromstr(&oid, e->blob);
	if (!keep && e->type == AB_ENTRY_FILE && git_odb_read_header(&len, &type, odb, &oid) == 0 &&
	    len >= GIT_STREAM_MIN) {
		git_odb_stream *st = NULL;
		git_object_size_t size;

		if (git_odb_open_rstream(&st, &size, &type, odb, &oid) == 0) {
			struct ab_sha256 *h = ab_sha256_new();
			char *buf = ab_malloc(READ_BUFSZ);
			int n, error = 0;

			e->size = 0;
			while ((n = git_odb_stream_read(st, buf, READ_BUFSZ)) > 0) {
				ab_sha256_update(h, buf, (size_t)n);
				e->size += (uint64_t)n;
			}
			if (n < 0) {
				char *shown = ab_shown(e->path);

				ab_error_git("%s: cannot read blob %s of '%s'", t->spec, e->blob, shown);
				free(shown);
				error = -1;
			}
			ab_sha256_final(e->sha256, h);
			free(buf);
			git_odb_stream_free(st);
			return error;
		}
		git_error_clear();
	}
	if (git_blob_lookup(&blob, repo, &oid) < 0) {
		char *shown = ab_shown(e->path);

		ab_error_git("%s: cannot read blob %s of '%s'", t->spec, e->blob, shown);
		free(shown);
		return -1;
	}
	e->size = (uint64_t)git_blob_rawsize(blob);
	ab_hash_buf(e->sha256, git_blob_rawcontent(blob), (size_t)e->size);
	if (e->type == AB_ENTRY_SYMLINK)
		e->target = ab_strndup(git_blob_rawcontent(blob), (size_t)e->size);
	if (keep) {
		e->data = ab_malloc((size_t)e->size + 1);
		memcpy(e->data, git_blob_rawcontent(blob), (size_t)e->size);
		e->data[e->size] = '\0';
		e->data_len = (size_t)e->size;
		e->loaded = 1;
	}
	git_blob_free(blob);
	return 0;
}

static int
open_git(git_repository **repo, struct ab_tree *t)
{
	if (git_repository_open_ext(repo, t->root, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0) {
		ab_error_git("%s: cannot open git repository '%s'", t->spec, t->root);
		return -1;
	}
	return 0;
}

static int
read_git(struct ab_tree *t)
{
	git_repository *repo = NULL;
	git_object *obj = NULL, *commit = NULL;
	git_tree *tree = NULL, *sub = NULL;
	git_tree_entry *te = NULL;
	git_odb *odb = NULL;
	struct gitwalk w = {t, NULL};
	int error = -1;

	if (open_git(&repo, t) < 0)
		return -1;
	if (git_revparse_single(&obj, repo, t->rev) < 0) {
		ab_error("%s: revision '%s' not found in '%s'", t->spec, t->rev, t->root);
		goto done;
	}
	if (git_object_peel(&commit, obj, GIT_OBJECT_COMMIT) == 0)
		git_oid_tostr(t->commit, sizeof(t->commit), git_object_id(commit));
	git_error_clear();
	if (git_object_peel((git_object **)&tree, obj, GIT_OBJECT_TREE) < 0) {
		ab_error("%s: revision '%s' does not name a tree", t->spec, t->rev);
		goto done;
	}
	if (*t->subpath) {
		if (git_tree_entry_bypath(&te, tree, t->subpath) < 0) {
			ab_error("%s: path '%s' not found in revision '%s'", t->spec, t->subpath, t->rev);
			goto done;
		}
		if (git_tree_entry_type(te) != GIT_OBJECT_TREE) {
			ab_error("%s: path '%s' in revision '%s' is not a directory", t->spec, t->subpath, t->rev);
			goto done;
		}
		if (git_tree_lookup(&sub, repo, git_tree_entry_id(te)) < 0) {
			ab_error_git("%s: cannot read tree '%s'", t->spec, t->subpath);
			goto done;
		}
	}
	git_oid_tostr(t->tree_id, sizeof(t->tree_id), git_tree_id(sub ? sub : tree));
	if (git_tree_walk(sub ? sub : tree, GIT_TREEWALK_PRE, git_walk_cb, &w) < 0) {
		ab_error_git("%s: cannot walk the tree", t->spec);
		goto done;
	}
	if (git_repository_odb(&odb, repo) < 0) {
		ab_error_git("%s: cannot open the object database", t->spec);
		goto done;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct ab_tree_entry *e = &t->v[i];
		int keep = e->type == AB_ENTRY_FILE && !strcmp(e->path, "VERSION");

		if (e->type == AB_ENTRY_OTHER)
			continue;
		if (hash_blob(t, repo, odb, e, keep) < 0)
			goto done;
		if (keep) {
			if (e->size <= VERSION_MAX)
				t->version = version_line(e->data, e->data_len);
			free(e->data);
			e->data = NULL;
			e->loaded = 0;
		}
	}
	finish_tree(t);
	error = 0;
done:
	git_odb_free(odb);
	git_tree_entry_free(te);
	git_tree_free(sub);
	git_tree_free(tree);
	git_object_free(commit);
	git_object_free(obj);
	git_repository_free(repo);
	return error;
}

static int
load_git(struct ab_tree *t, uint64_t limit)
{
	git_repository *repo = NULL;
	git_odb *odb = NULL;
	int error = -1;

	if (open_git(&repo, t) < 0)
		return -1;
	if (git_repository_odb(&odb, repo) < 0) {
		ab_error_git("%s: cannot open the object database", t->spec);
		goto done;
	}
	for (size_t i = 0; i < t->n; i++) {
		struct ab_tree_entry *e = &t->v[i];

		if (!e->wanted || e->loaded || e->type != AB_ENTRY_FILE || e->size > limit)
			continue;
		if (hash_blob(t, repo, odb, e, 1) < 0)
			goto done;
	}
	error = 0;
done:
	git_odb_free(odb);
	git_repository_free(repo);
	return error;
}

/* ---- entry points ---- */

int
ab_tree_spec_is_git(const char *spec)
{
	return !strncmp(spec, "git:", 4);
}

int
ab_tree_read(struct ab_tree **out, const char *spec, int strip, int jobs)
{
	struct ab_tree *t = ab_calloc(1, sizeof(*t));
	struct stat st;
	int error = -1;

	*out = NULL;
	t->spec = ab_strdup(spec);
	if (ab_tree_spec_is_git(spec)) {
		t->kind = AB_TREE_GIT;
		if (ab_tree_parse_git_spec(&t->root, &t->rev, &t->subpath, spec) < 0) {
			ab_error("'%s': expected git:REPO@REV[:PATH]", spec);
			goto done;
		}
		if (!ab_path_is_safe_relative(*t->subpath ? t->subpath : ".")) {
			ab_error("'%s': unsafe path '%s'", spec, t->subpath);
			goto done;
		}
		error = read_git(t);
		goto done;
	}
	t->root = ab_strdup(spec);
	if (stat(spec, &st) < 0) {
		ab_error_errno("cannot read '%s'", spec);
		goto done;
	}
	if (S_ISDIR(st.st_mode)) {
		t->kind = AB_TREE_DIRECTORY;
		error = read_dir(t, jobs);
	} else if (S_ISREG(st.st_mode)) {
		t->kind = AB_TREE_ARCHIVE;
		error = read_archive(t, strip);
	} else {
		ab_error("cannot read '%s': neither a directory nor an archive file", spec);
	}
done:
	if (error < 0) {
		ab_tree_free(t);
		return -1;
	}
	*out = t;
	return 0;
}

int
ab_tree_load(struct ab_tree *t, uint64_t limit)
{
	switch (t->kind) {
	case AB_TREE_DIRECTORY:
		return load_dir(t, limit);
	case AB_TREE_ARCHIVE:
		return load_archive(t, limit);
	case AB_TREE_GIT:
		return load_git(t, limit);
	}
	return -1;
}
