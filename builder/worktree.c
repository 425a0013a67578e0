#include "worktree.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/hash.h"
#include "../lib/dirwalk.h"

static int
is_hex_prefix(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static void
add_entry(struct ab_wt_index *idx, const char *path, const struct stat *st)
{
	struct ab_wt_entry *e;

	if (idx->n == idx->cap) {
		idx->cap = idx->cap ? idx->cap * 2 : 256;
		idx->v = ab_realloc(idx->v, idx->cap * sizeof(*idx->v));
	}
	e = &idx->v[idx->n++];
	memset(e, 0, sizeof(*e));
	e->path = ab_strdup(path);
	e->mode = st->st_mode;
	e->size = (uint64_t)st->st_size;
	e->ino = (uint64_t)st->st_ino;
	e->mtime_s = st->st_mtim.tv_sec;
	e->mtime_ns = st->st_mtim.tv_nsec;
	e->ctime_s = st->st_ctim.tv_sec;
	e->ctime_ns = st->st_ctim.tv_nsec;
}

/* every entry goes into the index with its lstat data */
static int
scan_visit(struct ab_dirwalk_entry *e, void *arg)
{
	const struct stat *st;

	if (ab_dirwalk_stat(&st, e) < 0)
		return -1;
	add_entry(arg, e->path, st);
	return AB_DIRWALK_DESCEND;
}

static int
cmp_entry(const void *a, const void *b)
{
	return strcmp(((const struct ab_wt_entry *)a)->path, ((const struct ab_wt_entry *)b)->path);
}

static int
scan(struct ab_wt_index *idx, const char *dir)
{
	memset(idx, 0, sizeof(*idx));
	if (ab_dirwalk(dir, scan_visit, idx) < 0)
		return -1;
	qsort(idx->v, idx->n, sizeof(*idx->v), cmp_entry);
	return 0;
}

/*
 * The entries' hashes: the regular files all together (lib/hash, not
 * following a symlink put in their place), a symlink's of its target;
 * every entry is tried, each failure reported.
 */
static int
hash_all(struct ab_wt_entry *const *todo, size_t n, const char *dir, int jobs)
{
	char **paths = ab_calloc(n ? n : 1, sizeof(*paths));
	struct ab_wt_entry **files = ab_calloc(n ? n : 1, sizeof(*files));
	char (*hex)[AB_HEX_LEN + 1];
	size_t nfiles = 0;
	int error = 0;

	for (size_t i = 0; i < n; i++) {
		struct ab_wt_entry *e = todo[i];
		char *path = ab_path_join(dir, e->path);

		e->hash[0] = '\0';
		if (S_ISREG(e->mode)) {
			files[nfiles] = e;
			paths[nfiles++] = path;
			continue;
		}
		if (S_ISLNK(e->mode)) {
			char target[4096];
			ssize_t len = readlink(path, target, sizeof(target));

			if (len < 0) {
				ab_error_errno("cannot read symlink '%s'", path);
				error = -1;
			} else
				ab_hash_buf(e->hash, target, (size_t)len);
		}
		free(path);
	}
	hex = ab_calloc(nfiles ? nfiles : 1, sizeof(*hex));
	/* a few files are hashed faster than threads start */
	if (ab_hash_files(hex, NULL, (const char *const *)paths, nfiles, O_NOFOLLOW, nfiles < 64 ? 1 : jobs) < 0)
		error = -1;
	else
		for (size_t i = 0; i < nfiles; i++)
			memcpy(files[i]->hash, hex[i], sizeof(files[i]->hash));
	for (size_t i = 0; i < nfiles; i++)
		free(paths[i]);
	free(paths);
	free(files);
	free(hex);
	return error;
}

void
ab_wt_index_dirhash(char hex[65], const struct ab_wt_index *idx)
{
	struct ab_dirhash *d = ab_dirhash_new();

	for (size_t i = 0; i < idx->n; i++)
		if (S_ISREG(idx->v[i].mode))
			ab_dirhash_add(d, idx->v[i].hash, idx->v[i].path);
	ab_dirhash_final(hex, d);
}

static const struct ab_wt_entry *
hint_for(const struct ab_wt_index *hint, const char *path)
{
	size_t lo = 0, hi = hint ? hint->n : 0;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(hint->v[mid].path, path);

		if (!c)
			return &hint->v[mid];
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

void
ab_wt_index_add(struct ab_wt_index *idx, const char *path, unsigned mode, uint64_t size, const char *hash)
{
	struct stat st;

	memset(&st, 0, sizeof(st));
	st.st_mode = mode;
	st.st_size = (off_t)size;
	add_entry(idx, path, &st);
	if (hash)
		memcpy(idx->v[idx->n - 1].hash, hash, 65);
}

void
ab_wt_index_sort(struct ab_wt_index *idx)
{
	qsort(idx->v, idx->n, sizeof(*idx->v), cmp_entry);
}

int
ab_wt_index_build(struct ab_wt_index *idx, const char *dir, int jobs)
{
	return ab_wt_index_build_hinted(idx, dir, jobs, NULL);
}

int
ab_wt_index_build_hinted(struct ab_wt_index *idx, const char *dir, int jobs, const struct ab_wt_index *hint)
{
	struct ab_wt_entry **todo;
	size_t n = 0;
	int error;

	if (scan(idx, dir) < 0) {
		ab_wt_index_free(idx);
		return -1;
	}
	todo = ab_calloc(idx->n, sizeof(*todo));
	for (size_t i = 0; i < idx->n; i++) {
		struct ab_wt_entry *e = &idx->v[i];
		const struct ab_wt_entry *h;

		if (S_ISDIR(e->mode))
			continue;
		/* a hash known from writing the file, for the same kind and size */
		h = hint_for(hint, e->path);
		if (h && h->hash[0] && (h->mode & S_IFMT) == (e->mode & S_IFMT) && h->size == e->size)
			memcpy(e->hash, h->hash, 65);
		else
			todo[n++] = e;
	}
	error = hash_all(todo, n, dir, jobs);
	free(todo);
	if (error < 0) {
		ab_wt_index_free(idx);
		return -1;
	}
	ab_wt_index_dirhash(idx->dirhash, idx);
	return 0;
}

void
ab_wt_index_free(struct ab_wt_index *idx)
{
	for (size_t i = 0; i < idx->n; i++)
		free(idx->v[i].path);
	free(idx->v);
	memset(idx, 0, sizeof(*idx));
}

void
ab_wt_index_write(struct ab_buf *out, const struct ab_wt_index *idx)
{
	for (size_t i = 0; i < idx->n; i++) {
		const struct ab_wt_entry *e = &idx->v[i];

		ab_buf_printf(out, "%o %llu %lld.%09lld %lld.%09lld %llu %s ", e->mode,
		    (unsigned long long)e->size, (long long)e->mtime_s, (long long)e->mtime_ns,
		    (long long)e->ctime_s, (long long)e->ctime_ns, (unsigned long long)e->ino,
		    e->hash[0] ? e->hash : "-");
		for (const char *s = e->path; *s; s++) {
			if (*s == '\\')
				ab_buf_puts(out, "\\\\");
			else if (*s == '\n')
				ab_buf_puts(out, "\\n");
			else
				ab_buf_putc(out, *s);
		}
		ab_buf_putc(out, '\n');
	}
}

/* parse an unsigned number ending at a space (or '.' when dot) */
static int
parse_num(const char **p, const char *end, int base, char stop, unsigned long long *out)
{
	unsigned long long v = 0;
	const char *s = *p;

	if (s >= end || *s == stop)
		return -1;
	for (; s < end && *s != stop; s++) {
		int d = *s >= '0' && *s <= '9' ? *s - '0' : -1;

		if (d < 0 || d >= base)
			return -1;
		v = v * (unsigned)base + (unsigned)d;
	}
	if (s >= end)
		return -1;
	*out = v;
	*p = s + 1;
	return 0;
}

/* sscanf would measure the whole remaining text on every call: parse by hand */
int
ab_wt_index_parse(struct ab_wt_index *idx, const char *text, size_t len)
{
	const char *p = text, *end = text + len;

	memset(idx, 0, sizeof(*idx));
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		unsigned long long mode, size, ino, ms, mn, cs, cn;
		const char *hash;
		struct stat st;
		struct ab_buf path = {0};

		if (!nl)
			goto bad;
		if (parse_num(&p, nl, 8, ' ', &mode) < 0 || parse_num(&p, nl, 10, ' ', &size) < 0 ||
		    parse_num(&p, nl, 10, '.', &ms) < 0 || parse_num(&p, nl, 10, ' ', &mn) < 0 ||
		    parse_num(&p, nl, 10, '.', &cs) < 0 || parse_num(&p, nl, 10, ' ', &cn) < 0 ||
		    parse_num(&p, nl, 10, ' ', &ino) < 0)
			goto bad;
		hash = p;
		if (nl - p > 65 && p[64] == ' ' && is_hex_prefix(p, 64))
			p += 65;
		else if (nl - p > 2 && p[0] == '-' && p[1] == ' ')
			p += 2, hash = NULL;
		else
			goto bad;
		for (const char *s = p; s < nl; s++) {
			if (*s == '\\' && s + 1 < nl) {
				s++;
				ab_buf_putc(&path, *s == 'n' ? '\n' : *s);
			} else {
				ab_buf_putc(&path, *s);
			}
		}
		if (!path.len) {
			ab_buf_free(&path);
			goto bad;
		}
		memset(&st, 0, sizeof(st));
		st.st_mode = (mode_t)mode;
		st.st_size = (off_t)size;
		st.st_ino = (ino_t)ino;
		st.st_mtim.tv_sec = (time_t)ms;
		st.st_mtim.tv_nsec = (long)mn;
		st.st_ctim.tv_sec = (time_t)cs;
		st.st_ctim.tv_nsec = (long)cn;
		add_entry(idx, path.s, &st);
		ab_buf_free(&path);
		if (hash) {
			memcpy(idx->v[idx->n - 1].hash, hash, 64);
			idx->v[idx->n - 1].hash[64] = '\0';
		}
		p = nl + 1;
	}
	ab_wt_index_dirhash(idx->dirhash, idx);
	return 0;
bad:
	ab_wt_index_free(idx);
	return -1;
}

static int
racy(const struct ab_wt_entry *e, int64_t s, int64_t ns)
{
	return e->mtime_s > s || (e->mtime_s == s && e->mtime_ns >= ns) || e->ctime_s > s ||
	    (e->ctime_s == s && e->ctime_ns >= ns);
}

int
ab_wt_index_verify(struct ab_wt_index *idx, const char *dir, int64_t since_s, int64_t since_ns,
    int jobs, int *refreshed, char **why)
{
	struct ab_wt_index cur;
	struct ab_wt_entry **todo = NULL;
	size_t *which = NULL, n = 0;
	int rc = 0;

	*refreshed = 0;
	*why = NULL;
	if (scan(&cur, dir) < 0) {
		ab_wt_index_free(&cur);
		return -1;
	}
	if (cur.n != idx->n) {
		size_t i = 0;

		while (i < cur.n && i < idx->n && !strcmp(cur.v[i].path, idx->v[i].path))
			i++;
		if (i < cur.n && (i >= idx->n || strcmp(cur.v[i].path, idx->v[i].path) < 0))
			*why = ab_sprintf("'%s' was added", cur.v[i].path);
		else
			*why = ab_sprintf("'%s' was removed", idx->v[i].path);
		rc = 1;
		goto done;
	}
	todo = ab_calloc(cur.n, sizeof(*todo));
	which = ab_calloc(cur.n, sizeof(*which));
	for (size_t i = 0; i < cur.n; i++) {
		struct ab_wt_entry *c = &cur.v[i], *r = &idx->v[i];

		if (strcmp(c->path, r->path)) {
			*why = ab_sprintf("'%s' was %s", strcmp(c->path, r->path) < 0 ? c->path : r->path,
			    strcmp(c->path, r->path) < 0 ? "added" : "removed");
			rc = 1;
			goto done;
		}
		if (c->mode != r->mode) {
			*why = ab_sprintf("the mode of '%s' changed", c->path);
			rc = 1;
			goto done;
		}
		if (S_ISDIR(c->mode))
			continue;
		if (S_ISREG(c->mode) && c->size != r->size) {
			*why = ab_sprintf("'%s' was modified", c->path);
			rc = 1;
			goto done;
		}
		if (c->mtime_s != r->mtime_s || c->mtime_ns != r->mtime_ns || c->ctime_s != r->ctime_s ||
		    c->ctime_ns != r->ctime_ns || c->ino != r->ino || racy(r, since_s, since_ns)) {
			which[n] = i;
			todo[n++] = c;
		}
	}
	if (hash_all(todo, n, dir, jobs) < 0) {
		rc = -1;
		goto done;
	}
	for (size_t k = 0; k < n; k++) {
		struct ab_wt_entry *c = todo[k], *r = &idx->v[which[k]];

		if (strcmp(c->hash, r->hash)) {
			*why = ab_sprintf("'%s' was modified", c->path);
			rc = 1;
			goto done;
		}
		if (c->mtime_s != r->mtime_s || c->mtime_ns != r->mtime_ns || c->ctime_s != r->ctime_s ||
		    c->ctime_ns != r->ctime_ns || c->ino != r->ino) {
			r->mtime_s = c->mtime_s;
			r->mtime_ns = c->mtime_ns;
			r->ctime_s = c->ctime_s;
			r->ctime_ns = c->ctime_ns;
			r->ino = c->ino;
		}
	}
	/* rewrite the index so that racily clean entries are trusted next time */
	if (n > 0)
		*refreshed = 1;
done:
	free(todo);
	free(which);
	ab_wt_index_free(&cur);
	return rc;
}
