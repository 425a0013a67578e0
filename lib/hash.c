#include "hash.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dirwalk.h"
#include "util.h"

/*
 * Read buffer per worker. Large enough that syscalls are rare, small
 * enough to stay in the L2 cache between read() and the digest.
 */
#define READ_BUFSZ (256 * 1024)

/*
 * Page-aligned: copy_to_user into a misaligned buffer costs four times
 * the system time on this machine (AMD EPYC), as much as the digest.
 */
static unsigned char *
buf_alloc(void)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, READ_BUFSZ) != 0) {
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

int
ab_hash_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	/* taskset or a cpuset may allow fewer cores than are online */
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0 &&
	    CPU_COUNT(&set) < n)
		n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

/*
 * Stream fd through ctx (already initialised) using buf; 0 or -errno.
 * expect is the size fstat gave for a regular file, else -1: a short read
 * that reaches it is the end of the file, which saves the read() that
 * would return 0 (one syscall in five for a tree of small files).
 */
static int
digest_fd(unsigned char md[32], uint64_t *size, int fd, EVP_MD_CTX *ctx,
    unsigned char *buf, size_t bufsz, int64_t expect)
{
	uint64_t total = 0;
	unsigned int len = 0;
	ssize_t n;

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

int
ab_hash_fd(char hex[AB_HEX_LEN + 1], uint64_t *size, int fd, const char *name)
{
	EVP_MD_CTX *ctx = ctx_new();
	unsigned char md[32];
	uint64_t total = 0;
	int64_t expect = -1;
	unsigned char *buf;
	struct stat st;
	int rc;

	ctx_init(ctx);
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode))
		expect = (int64_t)st.st_size;
	/*
	 * One thread: a second one reading ahead into a ring of buffers was
	 * measured here and gained nothing (the copy out of the page cache is
	 * a sixth of the digest's time, and the hand-over costs as much).
	 */
	buf = buf_alloc();
	rc = digest_fd(md, &total, fd, ctx, buf, READ_BUFSZ, expect);
	free(buf);
	EVP_MD_CTX_free(ctx);
	if (rc < 0) {
		errno = -rc;
		ab_error_errno("cannot read '%s'", name);
		return -1;
	}
	to_hex(hex, md);
	if (size)
		*size = total;
	return 0;
}

int
ab_hash_file(char hex[AB_HEX_LEN + 1], uint64_t *size, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	int rc;

	if (fd < 0) {
		ab_error_errno("cannot open '%s'", path);
		return -1;
	}
	rc = ab_hash_fd(hex, size, fd, path);
	close(fd);
	return rc;
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

/*
 * The tree hash. The calling thread walks the tree (lib/dirwalk:
 * openat, readdir, d_type, no stat in the common case) and appends each
 * regular file to a chunked array that never moves; worker threads hash
 * the files as soon as they are published, each taking the next index from
 * an atomic counter, so the walk overlaps the hashing. When the walk is
 * done the caller joins the workers; then the paths are sorted bytewise
 * and the sha256sum lines fed in that order to the outer digest.
 */

enum { OP_NONE, OP_OPEN, OP_READ, OP_TYPE };

struct tfile {
	char *path; /* relative to the root */
	uint64_t size;
	int err;    /* errno of the failure when op != OP_NONE */
	int op;
	unsigned char md[32];
};

#define CHUNK_BITS 12
#define CHUNK_SIZE ((size_t)1 << CHUNK_BITS)
#define MAX_CHUNKS ((size_t)1 << 16) /* 268 million files */

struct tree {
	const char *dir;
	int rootfd;
	struct tfile **chunks;     /* MAX_CHUNKS pointers, filled as needed */
	size_t n;                  /* files appended (walker only) */
	atomic_size_t published;   /* files that workers may take */
	atomic_size_t next;        /* next index to hash */
	atomic_int stop;           /* the walk failed: workers give up */
	atomic_int waiting;        /* workers asleep on cv */
	int walking;               /* under mu: more files may come */
	pthread_mutex_t mu;
	pthread_cond_t cv;
};

static struct tfile *
tree_file(const struct tree *t, size_t i)
{
	return &t->chunks[i >> CHUNK_BITS][i & (CHUNK_SIZE - 1)];
}

/* wake workers waiting for files; done: the walk is over */
static void
tree_publish(struct tree *t, int done)
{
	pthread_mutex_lock(&t->mu);
	if (done)
		t->walking = 0;
	pthread_cond_broadcast(&t->cv);
	pthread_mutex_unlock(&t->mu);
}

static int
tree_add(struct tree *t, const char *path)
{
	struct tfile *f;

	if (t->n >> CHUNK_BITS >= MAX_CHUNKS) {
		ab_error("cannot hash '%s': too many files", t->dir);
		return -1;
	}
	if (!t->chunks[t->n >> CHUNK_BITS])
		t->chunks[t->n >> CHUNK_BITS] = ab_malloc(CHUNK_SIZE * sizeof(struct tfile));
	f = tree_file(t, t->n);
	memset(f, 0, sizeof(*f));
	f->path = ab_strdup(path);
	t->n++;
	/*
	 * The entry is complete before a worker can see it. Both this store
	 * and the load of waiting are sequentially consistent, as are the
	 * worker's increment of waiting and its load of published: either
	 * the worker sees the file or the walker sees the worker and wakes it.
	 */
	atomic_store(&t->published, t->n);
	if (atomic_load(&t->waiting))
		tree_publish(t, 0);
	return 0;
}

static char *
display_path(const struct tree *t, const char *rel)
{
	return rel[0] ? ab_path_join(t->dir, rel) : ab_strdup(t->dir);
}

/* the walk (lib/dirwalk) gives the regular files; everything else is not -type f */
static int
tree_visit(struct ab_dirwalk_entry *e, void *arg)
{
	if (e->type == DT_REG)
		return tree_add(arg, e->path);
	return AB_DIRWALK_DESCEND;
}

static void
hash_one(struct tree *t, struct tfile *f, EVP_MD_CTX *ctx, unsigned char *buf)
{
	struct stat st;
	int fd, rc;

	fd = openat(t->rootfd, f->path,
	    O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		f->err = errno;
		f->op = OP_OPEN;
		return;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		/* replaced by something else since the walk */
		f->err = 0;
		f->op = OP_TYPE;
		close(fd);
		return;
	}
	ctx_init(ctx);
	rc = digest_fd(f->md, &f->size, fd, ctx, buf, READ_BUFSZ, (int64_t)st.st_size);
	if (rc < 0) {
		f->err = -rc;
		f->op = OP_READ;
	}
	close(fd);
}

/*
 * A file that cannot be hashed does not stop the others: the error
 * reported is then the first in path order, whatever the timing.
 */
static void *
tree_worker(void *arg)
{
	struct tree *t = arg;
	EVP_MD_CTX *ctx = ctx_new();
	unsigned char *buf = buf_alloc();

	for (;;) {
		size_t i = atomic_fetch_add(&t->next, 1);

		if (i >= atomic_load_explicit(&t->published, memory_order_acquire)) {
			int more;

			pthread_mutex_lock(&t->mu);
			atomic_fetch_add(&t->waiting, 1);
			while (i >= atomic_load(&t->published) && t->walking && !atomic_load(&t->stop))
				pthread_cond_wait(&t->cv, &t->mu);
			atomic_fetch_sub(&t->waiting, 1);
			more = i < atomic_load_explicit(&t->published, memory_order_acquire);
			pthread_mutex_unlock(&t->mu);
			if (!more)
				break;
		}
		if (atomic_load_explicit(&t->stop, memory_order_relaxed))
			break;
		hash_one(t, tree_file(t, i), ctx, buf);
	}
	EVP_MD_CTX_free(ctx);
	free(buf);
	return NULL;
}

static int
cmp_tfile(const void *a, const void *b)
{
	/* strcmp compares as unsigned char: the order of LC_ALL=C sort */
	return strcmp((*(struct tfile *const *)a)->path, (*(struct tfile *const *)b)->path);
}

static int
tree_report(const struct tree *t, struct tfile **sorted)
{
	for (size_t i = 0; i < t->n; i++) {
		const struct tfile *f = sorted[i];
		char *p;

		if (f->op == OP_NONE)
			continue;
		p = display_path(t, f->path);
		errno = f->err;
		if (f->op == OP_OPEN)
			ab_error_errno("cannot open '%s'", p);
		else if (f->op == OP_READ)
			ab_error_errno("cannot read '%s'", p);
		else
			ab_error("cannot hash '%s': no longer a regular file", p);
		free(p);
		return -1;
	}
	return 0;
}

int
ab_hash_tree_count(char hex[AB_HEX_LEN + 1], uint64_t *files, uint64_t *bytes,
    const char *dir, int jobs)
{
	struct tree t = {.dir = dir, .rootfd = -1, .walking = 1};
	struct ab_buf lines = {0};
	struct tfile **sorted = NULL;
	struct ab_sha256 *outer;
	pthread_t *tid;
	uint64_t total = 0;
	int started = 0, error = -1, walked;

	/* like `cd DIR`: a symlink to a directory is followed at the top only */
	t.rootfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t.rootfd < 0) {
		ab_error_errno("cannot open directory '%s'", dir);
		return -1;
	}
	atomic_init(&t.published, 0);
	atomic_init(&t.next, 0);
	atomic_init(&t.stop, 0);
	atomic_init(&t.waiting, 0);
	pthread_mutex_init(&t.mu, NULL);
	pthread_cond_init(&t.cv, NULL);
	t.chunks = ab_calloc(MAX_CHUNKS, sizeof(*t.chunks));

	/* jobs - 1 workers hash while this thread walks, then it joins them */
	if (jobs <= 0)
		jobs = ab_hash_default_jobs();
	tid = ab_calloc((size_t)jobs, sizeof(*tid));
	for (int i = 1; i < jobs; i++)
		if (pthread_create(&tid[started], NULL, tree_worker, &t) == 0)
			started++;
	walked = ab_dirwalk_fd(t.rootfd, dir, tree_visit, &t);
	if (walked < 0)
		atomic_store(&t.stop, 1);
	tree_publish(&t, 1);
	if (walked == 0)
		tree_worker(&t);
	for (int i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	free(tid);
	if (walked < 0)
		goto done;

	sorted = ab_calloc(t.n ? t.n : 1, sizeof(*sorted));
	for (size_t i = 0; i < t.n; i++)
		sorted[i] = tree_file(&t, i);
	if (t.n > 1)
		qsort(sorted, t.n, sizeof(*sorted), cmp_tfile);
	if (tree_report(&t, sorted) < 0)
		goto done;

	outer = ab_sha256_new();
	for (size_t i = 0; i < t.n; i++) {
		char fhex[AB_HEX_LEN + 1];

		to_hex(fhex, sorted[i]->md);
		ab_hash_line(&lines, fhex, sorted[i]->path);
		total += sorted[i]->size;
		if (lines.len >= 65536) {
			ab_sha256_update(outer, lines.s, lines.len);
			ab_buf_clear(&lines);
		}
	}
	if (lines.len)
		ab_sha256_update(outer, lines.s, lines.len);
	ab_sha256_final(hex, outer);
	if (files)
		*files = t.n;
	if (bytes)
		*bytes = total;
	error = 0;
done:
	for (size_t i = 0; i < t.n; i++)
		free(tree_file(&t, i)->path);
	for (size_t c = 0; c < MAX_CHUNKS && t.chunks[c]; c++)
		free(t.chunks[c]);
	free(t.chunks);
	free(sorted);
	ab_buf_free(&lines);
	pthread_cond_destroy(&t.cv);
	pthread_mutex_destroy(&t.mu);
	close(t.rootfd);
	return error;
}

int
ab_hash_tree(char hex[AB_HEX_LEN + 1], const char *dir, int jobs)
{
	return ab_hash_tree_count(hex, NULL, NULL, dir, jobs);
}
