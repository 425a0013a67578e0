#include "hash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirwalk.h"
#include "pool.h"
#include "sha256x.h"
#include "util.h"

/*
 * Page-aligned: copy_to_user into a misaligned buffer costs four times
 * the system time on this machine (AMD EPYC), as much as the digest.
 */
void *
ab_hash_readbuf_new(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, AB_HASH_READBUF) != 0) {
		fputs("allocbuild: out of memory\n", stderr);
		abort();
	}
	return p;
}

struct ab_sha256 {
	EVP_MD_CTX *ctx;
};

static pthread_once_t md_once = PTHREAD_ONCE_INIT;
static const EVP_MD *md_sha256;

static void
md_init(void)
{
	/* fetch once: an implicit fetch on every init takes a global lock */
	md_sha256 = EVP_MD_fetch(NULL, "SHA256", NULL);
	if (!md_sha256)
		md_sha256 = EVP_sha256();
}

static const EVP_MD *
sha256_md(void)
{
	pthread_once(&md_once, md_init);
	return md_sha256;
}

static EVP_MD_CTX *
ctx_new(void)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	if (!ctx) {
		fputs("allocbuild: cannot initialise SHA-256\n", stderr);
		abort();
	}
	return ctx;
}

static void
ctx_init(EVP_MD_CTX *ctx)
{
	if (EVP_DigestInit_ex(ctx, sha256_md(), NULL) != 1) {
		fputs("allocbuild: cannot initialise SHA-256\n", stderr);
		abort();
	}
}

static void
to_hex(char hex[AB_HEX_LEN + 1], const unsigned char md[32])
{
	static const char digits[] = "0123456789abcdef";

	for (unsigned i = 0; i < 32; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[AB_HEX_LEN] = '\0';
}

struct ab_sha256 *
ab_sha256_new(void)
{
	struct ab_sha256 *h = ab_malloc(sizeof(*h));

	h->ctx = ctx_new();
	ctx_init(h->ctx);
	return h;
}

void
ab_sha256_update(struct ab_sha256 *h, const void *p, size_t n)
{
	EVP_DigestUpdate(h->ctx, p, n);
}

void
ab_sha256_final(char hex[AB_HEX_LEN + 1], struct ab_sha256 *h)
{
	unsigned char md[32];
	unsigned int len = 0;

	EVP_DigestFinal_ex(h->ctx, md, &len);
	to_hex(hex, md);
	EVP_MD_CTX_free(h->ctx);
	free(h);
}

void
ab_hash_buf(char hex[AB_HEX_LEN + 1], const void *p, size_t n)
{
	struct ab_sha256 *h = ab_sha256_new();

	ab_sha256_update(h, p, n);
	ab_sha256_final(hex, h);
}

/*
 * Hashing many files is bound by the cores while the files are in the
 * page cache, and by the disk's latency when they are not: a worker
 * that waits on a read leaves its core idle. So the default is more
 * workers than cores (git's index preload, which stats files, runs up to
 * 20 threads for the same reason): on the 2-core VM of docs/hashing.md a
 * 12,000-file tree hashed cold in 1.06 s with 2 workers and 0.54 s with
 * 8 (no faster with 12 or 16), and warm in the same time (paired medians
 * 1.00 and 1.02).
 */
#define HASH_IO_EXTRA 32 /* workers beyond the cores at the most */

int
ab_hash_default_jobs(void)
{
	int cores = ab_pool_default_jobs();

	return cores * 4 < cores + HASH_IO_EXTRA ? cores * 4 : cores + HASH_IO_EXTRA;
}

/* the workers for many files: jobs as given (ab_pool_jobs), else the default above */
static int
hash_jobs(int jobs)
{
	return jobs > 0 ? ab_pool_jobs(jobs) : ab_hash_default_jobs();
}

/*
 * The one file-hash read loop: fd through ctx (already initialised) with
 * buf; 0 or -errno. expect is the size fstat gave for a regular file, else
 * -1: a short read that reaches it is the end of the file, which saves the
 * read() that would return 0 (one syscall in five for a tree of small
 * files). Readahead is asked for when more than one read is to come.
 */
static int
digest_fd(unsigned char md[32], uint64_t *size, int fd, EVP_MD_CTX *ctx,
    unsigned char *buf, size_t bufsz, int64_t expect)
{
	uint64_t total = 0;
	unsigned int len = 0;
	ssize_t n;

	if (expect < 0 || (uint64_t)expect > bufsz)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	while ((n = read(fd, buf, bufsz)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		EVP_DigestUpdate(ctx, buf, (size_t)n);
		total += (uint64_t)n;
		if ((size_t)n < bufsz && expect >= 0 && total == (uint64_t)expect)
			break;
	}
	EVP_DigestFinal_ex(ctx, md, &len);
	*size = total;
	return 0;
}

/*
 * A big file is read ahead by a second thread into a ring of buffers while
 * this one digests, so the copy out of the page cache (a fifth of the
 * time of a file in the cache) overlaps the digest instead of adding to
 * it. Memory: AHEAD_RING * AHEAD_BUF bytes, whatever the file's size.
 */
enum { AHEAD_RING = 4 };
#define AHEAD_BUF ((size_t)1 << 20)
#define AHEAD_MIN ((int64_t)16 << 20) /* smaller files: one thread (the ring would not fill) */

struct ahead {
	int fd;
	unsigned char *mem;            /* AHEAD_RING buffers of AHEAD_BUF */
	size_t len[AHEAD_RING];
	size_t filled, used;           /* buffers filled by the reader, digested (under mu) */
	int done;                      /* the reader has stopped: end of file or err */
	int err;                       /* -errno of the failed read, or 0 */
	int stop;                      /* the digester wants no more */
	pthread_mutex_t mu;
	pthread_cond_t cv;             /* one waiter at a time: the other thread */
};

static void *
ahead_reader(void *arg)
{
	struct ahead *a = arg;

	for (;;) {
		unsigned char *b;
		size_t got = 0;
		ssize_t n;
		int err = 0;

		pthread_mutex_lock(&a->mu);
		while (a->filled - a->used == AHEAD_RING && !a->stop)
			pthread_cond_wait(&a->cv, &a->mu);
		if (a->stop) {
			pthread_mutex_unlock(&a->mu);
			return NULL;
		}
		b = a->mem + (a->filled % AHEAD_RING) * AHEAD_BUF;
		pthread_mutex_unlock(&a->mu);
		/* a full buffer: few hand-overs (a pipe gives short reads) */
		while (got < AHEAD_BUF) {
			n = read(a->fd, b + got, AHEAD_BUF - got);
			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				err = -errno;
			if (n <= 0)
				break;
			got += (size_t)n;
		}
		pthread_mutex_lock(&a->mu);
		if (got && !err)
			a->len[a->filled++ % AHEAD_RING] = got;
		a->err = err;
		a->done = err || got < AHEAD_BUF;
		pthread_cond_signal(&a->cv);
		pthread_mutex_unlock(&a->mu);
		if (err || got < AHEAD_BUF)
			return NULL;
	}
}

/*
 * The file-hash loop of digest_fd with the reads on a second thread:
 * 0, -errno, or 1 when the thread or its ring could not be set up (then
 * nothing was read and ctx is untouched: the caller runs digest_fd).
 */
static int
digest_fd_ahead(unsigned char md[32], uint64_t *size, int fd, EVP_MD_CTX *ctx)
{
	struct ahead a = {.fd = fd};
	uint64_t total = 0;
	unsigned int len = 0;
	pthread_t tid;
	void *mem = NULL;
	int err;

	if (posix_memalign(&mem, 4096, AHEAD_RING * AHEAD_BUF) != 0)
		return 1;
	a.mem = mem;
	pthread_mutex_init(&a.mu, NULL);
	pthread_cond_init(&a.cv, NULL);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (pthread_create(&tid, NULL, ahead_reader, &a) != 0) {
		pthread_cond_destroy(&a.cv);
		pthread_mutex_destroy(&a.mu);
		free(mem);
		return 1;
	}
	pthread_mutex_lock(&a.mu);
	for (;;) {
		size_t i;

		while (a.filled == a.used && !a.done)
			pthread_cond_wait(&a.cv, &a.mu);
		if (a.filled == a.used)
			break;
		i = a.used % AHEAD_RING;
		pthread_mutex_unlock(&a.mu);
		EVP_DigestUpdate(ctx, a.mem + i * AHEAD_BUF, a.len[i]);
		total += a.len[i];
		pthread_mutex_lock(&a.mu);
		a.used++;
		pthread_cond_signal(&a.cv);
	}
	a.stop = 1;
	pthread_cond_signal(&a.cv);
	err = a.err;
	pthread_mutex_unlock(&a.mu);
	pthread_join(tid, NULL);
	pthread_cond_destroy(&a.cv);
	pthread_mutex_destroy(&a.mu);
	free(mem);
	if (err)
		return err;
	EVP_DigestFinal_ex(ctx, md, &len);
	*size = total;
	return 0;
}

/*
 * The digest of what fd reads, reported as the header says: with the
 * caller's buf, or (buf NULL) read ahead on a second thread when the file
 * is big and there is a second core, else with a buffer of its own.
 */
static int
hash_fd(char hex[AB_HEX_LEN + 1], uint64_t *size, int fd, int64_t expect, const char *name,
    void *buf, size_t buflen)
{
	EVP_MD_CTX *ctx = ctx_new();
	unsigned char md[32];
	uint64_t total = 0;
	struct stat st;
	void *own = NULL;
	int rc = 1;

	if (expect < 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		expect = (int64_t)st.st_size;
	ctx_init(ctx);
	/* a second thread only when a core is free for it: not inside a pool's parallel items */
	if (!buf && expect >= AHEAD_MIN && ab_pool_default_jobs() > 1 && !ab_pool_in_worker())
		rc = digest_fd_ahead(md, &total, fd, ctx);
	if (rc == 1) {
		if (!buf) {
			buf = own = ab_hash_readbuf_new();
			buflen = AB_HASH_READBUF;
		}
		rc = digest_fd(md, &total, fd, ctx, buf, buflen, expect);
	}
	EVP_MD_CTX_free(ctx);
	free(own);
	if (rc < 0) {
		errno = -rc;
		if (name)
			ab_error_errno("cannot read '%s'", name);
		return AB_EFAIL;
	}
	to_hex(hex, md);
	if (size)
		*size = total;
	return 0;
}

int
ab_hash_fd_buf(char hex[AB_HEX_LEN + 1], uint64_t *size, int fd, int64_t expect, const char *name,
    void *buf, size_t buflen)
{
	return hash_fd(hex, size, fd, expect, name, buf, buflen);
}

int
ab_hash_fd(char hex[AB_HEX_LEN + 1], uint64_t *size, int fd, const char *name)
{
	return hash_fd(hex, size, fd, -1, name, NULL, 0);
}

int
ab_hash_file_buf(char hex[AB_HEX_LEN + 1], uint64_t *size, const char *path, int oflags, void *buf)
{
	/* O_NONBLOCK: a fifo neither hangs the open nor is read; it changes nothing for a regular file */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK | oflags);
	struct stat st;
	int rc;

	if (fd < 0) {
		ab_error_errno("cannot open '%s'", path);
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (S_ISREG(st.st_mode))
			ab_error_errno("cannot stat '%s'", path);
		else
			ab_error("'%s' is not a regular file", path);
		close(fd);
		return -1;
	}
	rc = hash_fd(hex, size, fd, (int64_t)st.st_size, path, buf, buf ? AB_HASH_READBUF : 0);
	close(fd);
	return rc;
}

int
ab_hash_file(char hex[AB_HEX_LEN + 1], uint64_t *size, const char *path)
{
	return ab_hash_file_buf(hex, size, path, 0, NULL);
}

/*
 * ab_hash_file_beneath's work, with the caller's read buffer (NULL: as
 * hash_fd chooses) and the size its fstat gave as the end of the file.
 */
static int
hash_beneath(char hex[AB_HEX_LEN + 1], uint64_t *size, int rootfd, const char *rel, int flags, char *why,
    void *buf)
{
	int fd = ab_dirwalk_open_beneath(rootfd, rel, O_RDONLY | O_NONBLOCK, flags, why);
	struct stat st;
	int rc, e;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		e = errno;
		if (why)
			snprintf(why, AB_BENEATH_WHY, "%s", strerror(e));
		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		if (why)
			snprintf(why, AB_BENEATH_WHY, "%s", S_ISDIR(st.st_mode) ? "not a regular file (a directory)" :
			    "not a regular file");
		close(fd);
		errno = EINVAL;
		return -1;
	}
	rc = hash_fd(hex, size, fd, (int64_t)st.st_size, NULL, buf, buf ? AB_HASH_READBUF : 0);
	e = errno;
	close(fd);
	if (rc < 0) {
		if (why)
			snprintf(why, AB_BENEATH_WHY, "%s", strerror(e));
		errno = e;
		return -1;
	}
	return 0;
}

int
ab_hash_file_beneath(char hex[AB_HEX_LEN + 1], uint64_t *size, int rootfd, const char *rel, int flags, char *why)
{
	return hash_beneath(hex, size, rootfd, rel, flags, why, NULL);
}

/* ab_hash_files_beneath's job: one read buffer per worker */
struct beneath_job {
	struct ab_hash_result *res;
	int rootfd, flags;
	const char *const *rels;
	void **bufs;
};

static int
beneath_one(void *arg, size_t i, int worker)
{
	struct beneath_job *j = arg;
	struct ab_hash_result *r = &j->res[i];
	char why[AB_BENEATH_WHY];

	if (!j->bufs[worker])
		j->bufs[worker] = ab_hash_readbuf_new();
	if (hash_beneath(r->hex, &r->size, j->rootfd, j->rels[i], j->flags, why, j->bufs[worker]) < 0) {
		r->err = errno;
		r->why = ab_strdup(why);
		r->hex[0] = '\0';
		r->size = 0;
	} else {
		r->err = 0;
		r->why = NULL;
	}
	return 0;
}

void
ab_hash_files_beneath(struct ab_hash_result *res, int rootfd, const char *const *rels, size_t n, int flags,
    int jobs)
{
	struct beneath_job j = {.res = res, .rootfd = rootfd, .flags = flags, .rels = rels};
	int njobs = hash_jobs(jobs), workers = ab_pool_workers(n, njobs);

	if (n == 0)
		return;
	j.bufs = ab_calloc((size_t)workers, sizeof(*j.bufs));
	ab_pool_run(n, njobs, beneath_one, &j);
	for (int w = 0; w < workers; w++)
		free(j.bufs[w]);
	free(j.bufs);
}

void
ab_hash_line(struct ab_buf *b, const char *hex, const char *name)
{
	const char *s;

	if (strpbrk(name, "\\\n\r")) {
		ab_buf_putc(b, '\\');
		ab_buf_puts(b, hex);
		ab_buf_puts(b, "  ");
		for (s = name; *s; s++) {
			if (*s == '\\')
				ab_buf_puts(b, "\\\\");
			else if (*s == '\n')
				ab_buf_puts(b, "\\n");
			else if (*s == '\r')
				ab_buf_puts(b, "\\r");
			else
				ab_buf_putc(b, *s);
		}
	} else {
		ab_buf_puts(b, hex);
		ab_buf_puts(b, "  ");
		ab_buf_puts(b, name);
	}
	ab_buf_putc(b, '\n');
}

/* undo the escapes of s in place; -1 for one sha256sum does not write */
static int
unescape(char *s)
{
	char *w = s;

	for (; *s; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		s++;
		if (*s == '\\')
			*w++ = '\\';
		else if (*s == 'n')
			*w++ = '\n';
		else if (*s == 'r')
			*w++ = '\r';
		else
			return -1;
	}
	*w = '\0';
	return 0;
}

int
ab_hash_line_parse(char *line, size_t n, char **hex, char **name)
{
	int escaped = n > 0 && line[0] == '\\';

	line += escaped;
	n -= (size_t)escaped;
	if (n < AB_HEX_LEN + 3 || line[AB_HEX_LEN] != ' ' || line[AB_HEX_LEN + 1] != ' ' || memchr(line, '\0', n))
		return -1;
	line[AB_HEX_LEN] = '\0';
	line[n] = '\0';
	if (!ab_is_hex(line, AB_HEX_LEN))
		return -1;
	*hex = line;
	*name = line + AB_HEX_LEN + 2;
	if (escaped && unescape(*name) < 0)
		return -1;
	return **name ? 0 : -1;
}

/*
 * The tree hash. The calling thread walks the tree (lib/dirwalk:
 * openat, readdir, d_type, no stat in the common case) and appends each
 * regular file to a chunked array that never moves, publishing it to the
 * pool (lib/pool: the start/finish form) as soon as it is complete; the
 * pool's threads hash the files while the walk goes on. When the walk is
 * done the caller hashes too until every file is done; then the paths are
 * sorted bytewise and the sha256sum lines fed in that order to the outer
 * digest. With SHA-NI (lib/sha256x) each worker hashes up to
 * AB_SHA256X_LANES files together (hash_lanes); else one at a time with
 * OpenSSL (hash_one).
 */

enum { OP_NONE, OP_OPEN, OP_READ, OP_TYPE };

struct tfile {
	char *path; /* relative to the root */
	uint64_t size;
	unsigned mode; /* st_mode of the open file */
	int err;    /* errno of the failure when op != OP_NONE */
	int op;
	unsigned char md[32];
};

#define CHUNK_BITS 12
#define CHUNK_SIZE ((size_t)1 << CHUNK_BITS)
#define MAX_CHUNKS ((size_t)1 << 16) /* 268 million files */

/* a file being hashed in one lane of a worker (hash_lanes) */
struct lane {
	struct tfile *f;
	int fd;
	int eof;         /* nothing more to read */
	int64_t expect;  /* the size fstat gave */
	uint64_t total;  /* bytes read */
	size_t pos, len; /* of buf: digested, filled */
	unsigned char *buf;
	uint32_t h[8];
};

/* what one worker of the pool keeps between files */
struct tworker {
	EVP_MD_CTX *ctx;
	unsigned char *buf;                /* AB_HASH_READBUF; the lanes' buffers are in it */
	struct lane lane[AB_SHA256X_LANES];
	int busy;                          /* lane[0 .. busy-1] hold files */
};

#define LANE_BUF (AB_HASH_READBUF / AB_SHA256X_LANES)

struct tree {
	const char *dir;           /* the root as given, or NULL: a list (ab_hash_files) */
	int rootfd;                /* or AT_FDCWD for a list */
	int oflags;                /* added to the opens: O_NOFOLLOW for a tree */
	struct tfile **chunks;     /* MAX_CHUNKS pointers, filled as needed */
	size_t n;                  /* files appended (walker only) */
	struct ab_pool *pool;
	struct tworker *workers;   /* one per pool worker, set up on first use */
	struct tfile **sorted;     /* the files in path order, once walked */
	int jobs;                  /* workers of the pool, the caller included */
	ab_dirwalk_fn *other;      /* the caller's visit for other entries, or NULL */
	void *arg;
};

static struct tfile *
tree_file(const struct tree *t, size_t i)
{
	return &t->chunks[i >> CHUNK_BITS][i & (CHUNK_SIZE - 1)];
}

static int
tree_add(struct tree *t, const char *path)
{
	struct tfile *f;

	if (t->n >> CHUNK_BITS >= MAX_CHUNKS) {
		ab_error("cannot hash '%s': too many files", t->dir ? t->dir : path);
		return -1;
	}
	if (!t->chunks[t->n >> CHUNK_BITS])
		t->chunks[t->n >> CHUNK_BITS] = ab_malloc(CHUNK_SIZE * sizeof(struct tfile));
	f = tree_file(t, t->n);
	memset(f, 0, sizeof(*f));
	f->path = ab_strdup(path);
	t->n++;
	/* the entry is complete before a worker can see it */
	ab_pool_publish(t->pool, t->n);
	return 0;
}

static char *
display_path(const struct tree *t, const char *rel)
{
	if (!t->dir)
		return ab_strdup(rel);
	return rel[0] ? ab_path_join(t->dir, rel) : ab_strdup(t->dir);
}

/* the walk (lib/dirwalk) gives the regular files; everything else is not -type f */
static int
tree_visit(struct ab_dirwalk_entry *e, void *arg)
{
	struct tree *t = arg;

	if (e->type == DT_REG)
		return tree_add(t, e->path);
	return t->other ? t->other(e, t->arg) : AB_DIRWALK_DESCEND;
}

/*
 * A file that cannot be hashed does not stop the others: the error
 * reported is then the first in path order, whatever the timing.
 */
static int
tree_open(const struct tree *t, struct tfile *f, struct stat *st)
{
	int fd = openat(t->rootfd, f->path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC | t->oflags);

	if (fd < 0) {
		f->err = errno;
		f->op = OP_OPEN;
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		/* replaced by something else since the walk */
		f->err = 0;
		f->op = OP_TYPE;
		close(fd);
		return -1;
	}
	f->mode = st->st_mode;
	return fd;
}

static int
hash_one(void *arg, size_t i, int worker)
{
	struct tree *t = arg;
	struct tworker *w = &t->workers[worker];
	struct tfile *f = tree_file(t, i);
	struct stat st;
	int fd, rc;

	if (!w->ctx) {
		w->ctx = ctx_new();
		w->buf = ab_hash_readbuf_new();
	}
	if ((fd = tree_open(t, f, &st)) < 0)
		return 0;
	ctx_init(w->ctx);
	rc = digest_fd(f->md, &f->size, fd, w->ctx, w->buf, AB_HASH_READBUF, (int64_t)st.st_size);
	if (rc < 0) {
		f->err = -rc;
		f->op = OP_READ;
	}
	close(fd);
	return 0;
}

/*
 * Several files at once: a worker keeps up to AB_SHA256X_LANES files
 * open, each read into its own part of the worker's buffer, and digests
 * the whole blocks all of them have in one ab_sha256x_blocks() call, so
 * their SHA-256 rounds interleave. A lane is "settled" when it has a
 * whole block to digest, or has been ended (its digest written, its file
 * closed, the last busy lane moved into its place). The reads follow
 * digest_fd's rules: a short read that reaches fstat's size is the end.
 */
static void
lane_end(struct tworker *w, int k)
{
	struct lane *l = &w->lane[k];

	if (l->f->op == OP_NONE) {
		ab_sha256x_final(l->f->md, l->h, l->buf + l->pos, l->len - l->pos, l->total);
		l->f->size = l->total;
	}
	close(l->fd);
	w->busy--;
	if (k != w->busy) {
		unsigned char *buf = l->buf;

		/* the last busy lane moves here with its buffer; the free slot keeps this one */
		*l = w->lane[w->busy];
		w->lane[w->busy].buf = buf;
	}
}

/* read until the lane has a whole block or its file ended; then end it if it has none */
static void
lane_settle(struct tworker *w, int k)
{
	struct lane *l = &w->lane[k];

	while (l->len - l->pos < 64 && !l->eof) {
		size_t want;
		ssize_t n;

		if (l->pos) {
			memmove(l->buf, l->buf + l->pos, l->len - l->pos);
			l->len -= l->pos;
			l->pos = 0;
		}
		want = LANE_BUF - l->len;
		n = read(l->fd, l->buf + l->len, want);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			l->f->err = errno;
			l->f->op = OP_READ;
			break;
		}
		l->len += (size_t)n;
		l->total += (uint64_t)n;
		if (n == 0 || ((size_t)n < want && l->total == (uint64_t)l->expect))
			l->eof = 1;
	}
	if (l->f->op != OP_NONE || l->len - l->pos < 64)
		lane_end(w, k);
}

/* one ab_sha256x_blocks() over every busy lane, then settle them */
static void
lanes_digest(struct tworker *w)
{
	uint32_t *h[AB_SHA256X_LANES];
	const unsigned char *p[AB_SHA256X_LANES];
	size_t nb = SIZE_MAX;

	for (int k = 0; k < w->busy; k++) {
		struct lane *l = &w->lane[k];
		size_t b = (l->len - l->pos) / 64;

		h[k] = l->h;
		p[k] = l->buf + l->pos;
		if (b < nb)
			nb = b;
	}
	ab_sha256x_blocks(w->busy, h, p, nb);
	for (int k = 0; k < w->busy; k++)
		w->lane[k].pos += nb * 64;
	for (int k = w->busy - 1; k >= 0; k--)
		lane_settle(w, k);
}

/* the pool's item: the file joins a lane; digest while every lane is busy */
static int
hash_lanes(void *arg, size_t i, int worker)
{
	struct tree *t = arg;
	struct tworker *w = &t->workers[worker];
	struct tfile *f = tree_file(t, i);
	struct lane *l;
	struct stat st;
	int fd;

	if (!w->buf) {
		w->buf = ab_hash_readbuf_new();
		for (int k = 0; k < AB_SHA256X_LANES; k++)
			w->lane[k].buf = w->buf + (size_t)k * LANE_BUF;
	}
	if ((fd = tree_open(t, f, &st)) < 0)
		return 0;
	if (st.st_size > (off_t)LANE_BUF)
		posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	l = &w->lane[w->busy++];
	l->f = f;
	l->fd = fd;
	l->eof = 0;
	l->expect = (int64_t)st.st_size;
	l->total = 0;
	l->pos = l->len = 0;
	ab_sha256x_init(l->h);
	lane_settle(w, w->busy - 1);
	while (w->busy == AB_SHA256X_LANES)
		lanes_digest(w);
	return 0;
}

/* the worker has no more items: finish the files in its lanes */
static void
lanes_drain(void *arg, int worker)
{
	struct tworker *w = &((struct tree *)arg)->workers[worker];

	while (w->busy)
		lanes_digest(w);
}

static int
cmp_tfile(const void *a, const void *b)
{
	/* strcmp compares as unsigned char: the order of LC_ALL=C sort */
	return strcmp((*(struct tfile *const *)a)->path, (*(struct tfile *const *)b)->path);
}

/* the failure of one file, if any: 0 or -1 */
static int
tfile_report(const struct tree *t, const struct tfile *f)
{
	char *p;

	if (f->op == OP_NONE)
		return 0;
	p = display_path(t, f->path);
	errno = f->err;
	if (f->op == OP_OPEN)
		ab_error_errno("cannot open '%s'", p);
	else if (f->op == OP_READ)
		ab_error_errno("cannot read '%s'", p);
	else
		ab_error("cannot hash '%s': %s", p, t->dir ? "no longer a regular file" : "not a regular file");
	free(p);
	return -1;
}

/* the first failure in the order of files (NULL: as added), or with all every one */
static int
tree_report(const struct tree *t, struct tfile **files, int all)
{
	int error = 0;

	for (size_t i = 0; i < t->n && (all || error == 0); i++)
		if (tfile_report(t, files ? files[i] : tree_file(t, i)) < 0)
			error = -1;
	return error;
}

/* the pool that hashes t's files as tree_add publishes them: jobs - 1 threads, then the caller */
static void
tree_pool_start(struct tree *t, int jobs)
{
	t->jobs = jobs;
	t->workers = ab_calloc((size_t)jobs, sizeof(*t->workers));
	if (ab_sha256x_lanes() > 0)
		ab_pool_start(&t->pool, jobs - 1, hash_lanes, lanes_drain, t);
	else
		ab_pool_start(&t->pool, jobs - 1, hash_one, NULL, t);
}

/* every file added hashed (the caller hashing too), or with stop those taken only */
static void
tree_pool_end(struct tree *t, int stop)
{
	if (stop)
		ab_pool_stop(t->pool);
	else
		ab_pool_finish(t->pool);
	t->pool = NULL;
	for (int w = 0; w < t->jobs; w++) {
		if (t->workers[w].ctx)
			EVP_MD_CTX_free(t->workers[w].ctx);
		free(t->workers[w].buf);
	}
	free(t->workers);
	t->workers = NULL;
}

/*
 * Walk and hash: jobs - 1 threads hash while this thread walks; then it
 * sorts the paths (the others still hashing: the order needs no digest)
 * and hashes too. t->sorted is then the files in path order.
 */
static int
tree_walk_hash(struct tree *t, int jobs)
{
	int walked;

	tree_pool_start(t, hash_jobs(jobs));
	walked = ab_dirwalk_fd(t->rootfd, t->dir, tree_visit, t);
	if (walked >= 0) {
		/* a worker writes a file's digest, never its path: the sort reads only paths */
		t->sorted = ab_calloc(t->n ? t->n : 1, sizeof(*t->sorted));
		for (size_t i = 0; i < t->n; i++)
			t->sorted[i] = tree_file(t, i);
		if (t->n > 1)
			qsort(t->sorted, t->n, sizeof(*t->sorted), cmp_tfile);
	}
	tree_pool_end(t, walked < 0);
	return walked < 0 ? -1 : 0;
}

/* open dir, walk, hash and sort (t->sorted); every failure reported */
static int
tree_run(struct tree *t, int jobs)
{
	/* like `cd DIR`: a symlink to a directory is followed at the top only */
	t->rootfd = open(t->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->rootfd < 0) {
		ab_error_errno("cannot open directory '%s'", t->dir);
		return -1;
	}
	t->chunks = ab_calloc(MAX_CHUNKS, sizeof(*t->chunks));
	if (tree_walk_hash(t, jobs) < 0)
		return -1;
	return tree_report(t, t->sorted, 0);
}

static void
tree_free(struct tree *t)
{
	if (t->chunks) {
		for (size_t i = 0; i < t->n; i++)
			free(tree_file(t, i)->path);
		for (size_t c = 0; c < MAX_CHUNKS && t->chunks[c]; c++)
			free(t->chunks[c]);
		free(t->chunks);
	}
	free(t->sorted);
	if (t->rootfd >= 0)
		close(t->rootfd);
}

int
ab_hash_tree_files(struct ab_hash_tfile **out, size_t *nout, const char *dir, int jobs,
    ab_dirwalk_fn *other, void *arg)
{
	struct tree t = {.dir = dir, .rootfd = -1, .oflags = O_NOFOLLOW, .other = other, .arg = arg};
	struct ab_hash_tfile *files;
	int error = -1;

	*out = NULL;
	*nout = 0;
	if (tree_run(&t, jobs) < 0)
		goto done;
	files = ab_calloc(t.n ? t.n : 1, sizeof(*files));
	for (size_t i = 0; i < t.n; i++) {
		struct tfile *f = t.sorted[i];

		files[i].path = f->path;
		files[i].size = f->size;
		files[i].mode = f->mode;
		to_hex(files[i].hex, f->md);
		f->path = NULL; /* now the caller's */
	}
	*out = files;
	*nout = t.n;
	error = 0;
done:
	tree_free(&t);
	return error;
}

int
ab_hash_files(char (*hex)[AB_HEX_LEN + 1], uint64_t *size, const char *const *paths, size_t n,
    int oflags, int jobs)
{
	struct tree t = {.rootfd = AT_FDCWD, .oflags = oflags};
	int error = 0;

	if (n == 0)
		return 0;
	if (n == 1) {
		/* one file: as ab_hash_file, a big one read ahead on a second thread */
		struct tfile f = {.path = (char *)paths[0]};
		struct stat st;
		int fd = tree_open(&t, &f, &st);

		if (fd >= 0) {
			if (hash_fd(hex[0], size, fd, (int64_t)st.st_size, NULL, NULL, 0) < 0) {
				f.err = errno;
				f.op = OP_READ;
			}
			close(fd);
		}
		return tfile_report(&t, &f);
	}
	t.chunks = ab_calloc(MAX_CHUNKS, sizeof(*t.chunks));
	tree_pool_start(&t, ab_pool_workers(n, hash_jobs(jobs)));
	for (size_t i = 0; i < n && error == 0; i++)
		error = tree_add(&t, paths[i]);
	tree_pool_end(&t, error < 0);
	if (error == 0)
		error = tree_report(&t, NULL, 1);
	for (size_t i = 0; i < t.n && error == 0; i++) {
		to_hex(hex[i], tree_file(&t, i)->md);
		if (size)
			size[i] = tree_file(&t, i)->size;
	}
	tree_free(&t);
	return error;
}

void
ab_hash_tfiles_free(struct ab_hash_tfile *files, size_t n)
{
	if (!files)
		return;
	for (size_t i = 0; i < n; i++)
		free(files[i].path);
	free(files);
}

/*
 * The outer digest: with SHA-NI by sha256x like the files, so that
 * OpenSSL, which the lanes never needed, is not started (its
 * configuration read) at the end for it; else OpenSSL's.
 */
struct outer {
	struct ab_sha256 *ssl; /* or NULL: sha256x */
	uint32_t h[8];
	uint64_t done;         /* bytes digested */
};

static void
outer_init(struct outer *o)
{
	o->ssl = ab_sha256x_lanes() > 0 ? NULL : ab_sha256_new();
	o->done = 0;
	if (!o->ssl)
		ab_sha256x_init(o->h);
}

/* digest what b holds; with sha256x its last partial block stays in b */
static void
outer_feed(struct outer *o, struct ab_buf *b)
{
	uint32_t *h[1] = {o->h};
	const unsigned char *p[1] = {(const unsigned char *)b->s};
	size_t whole = b->len / 64 * 64;

	if (o->ssl) {
		ab_sha256_update(o->ssl, b->s, b->len);
		ab_buf_clear(b);
		return;
	}
	ab_sha256x_blocks(1, h, p, whole / 64);
	memmove(b->s, b->s + whole, b->len - whole);
	b->len -= whole;
	o->done += whole;
}

static void
outer_final(char hex[AB_HEX_LEN + 1], struct outer *o, struct ab_buf *b)
{
	unsigned char md[32];

	if (b->len)
		outer_feed(o, b);
	if (o->ssl) {
		ab_sha256_final(hex, o->ssl);
		return;
	}
	ab_sha256x_final(md, o->h, (const unsigned char *)b->s, b->len, o->done + b->len);
	to_hex(hex, md);
}

/* the dirHash fold: the outer digest over the sha256sum lines, fed in 64 KiB batches */
struct ab_dirhash {
	struct outer outer;
	struct ab_buf lines;
};

struct ab_dirhash *
ab_dirhash_new(void)
{
	struct ab_dirhash *d = ab_calloc(1, sizeof(*d));

	outer_init(&d->outer);
	return d;
}

void
ab_dirhash_add(struct ab_dirhash *d, const char *hex, const char *path)
{
	ab_hash_line(&d->lines, hex, path);
	if (d->lines.len >= 65536)
		outer_feed(&d->outer, &d->lines);
}

void
ab_dirhash_final(char hex[AB_HEX_LEN + 1], struct ab_dirhash *d)
{
	outer_final(hex, &d->outer, &d->lines);
	ab_buf_free(&d->lines);
	free(d);
}

int
ab_hash_tree_count(char hex[AB_HEX_LEN + 1], uint64_t *files, uint64_t *bytes,
    const char *dir, int jobs)
{
	struct tree t = {.dir = dir, .rootfd = -1, .oflags = O_NOFOLLOW};
	struct ab_dirhash *d;
	uint64_t total = 0;

	if (tree_run(&t, jobs) < 0) {
		tree_free(&t);
		return -1;
	}
	/* the outer digest over the sha256sum lines in path order */
	d = ab_dirhash_new();
	for (size_t i = 0; i < t.n; i++) {
		const struct tfile *f = t.sorted[i];
		char h[AB_HEX_LEN + 1];

		to_hex(h, f->md);
		ab_dirhash_add(d, h, f->path);
		total += f->size;
	}
	ab_dirhash_final(hex, d);
	if (files)
		*files = t.n;
	if (bytes)
		*bytes = total;
	tree_free(&t);
	return 0;
}

int
ab_hash_tree(char hex[AB_HEX_LEN + 1], const char *dir, int jobs)
{
	return ab_hash_tree_count(hex, NULL, NULL, dir, jobs);
}
