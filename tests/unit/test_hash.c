/*
 * Unit tests of lib/hash: NIST SHA-256 vectors, streaming split at
 * every boundary, a streamed file larger than 4 GiB, the sha256sum line
 * escaping, the dirHash of a small tree built here and the default
 * number of hashing workers.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/atomic.h"
#include "../../lib/util.h"
#include "../../lib/hash.h"
#include "unit.h"

static const char *
hex_of(const void *p, size_t n)
{
	static char hex[AB_HEX_LEN + 1];

	ab_hash_buf(hex, p, n);
	return hex;
}

static void
test_vectors(void)
{
	static const char v448[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static const char v896[] = "abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmn"
	    "hijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu";
	char hex[AB_HEX_LEN + 1];
	struct ab_sha256 *h;
	char *million;

	CHECK_STR(hex_of("", 0), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	CHECK_STR(hex_of("abc", 3), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	CHECK_STR(hex_of(v448, strlen(v448)), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	CHECK_STR(hex_of(v896, strlen(v896)), "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");

	million = ab_malloc(1000000);
	memset(million, 'a', 1000000);
	CHECK_STR(hex_of(million, 1000000), "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	/* the same million streamed in uneven pieces */
	h = ab_sha256_new();
	for (size_t off = 0, step = 1; off < 1000000; off += step, step = step * 3 % 9973 + 1)
		ab_sha256_update(h, million + off, step < 1000000 - off ? step : 1000000 - off);
	ab_sha256_final(hex, h);
	CHECK_STR(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
	free(million);

	/* zero-length updates change nothing */
	h = ab_sha256_new();
	ab_sha256_update(h, "", 0);
	ab_sha256_update(h, "abc", 3);
	ab_sha256_update(h, "", 0);
	ab_sha256_final(hex, h);
	CHECK_STR(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

/* split a 200-byte input (crossing three 64-byte blocks) at every pair of points */
static void
test_split(void)
{
	unsigned char in[200];
	char want[AB_HEX_LEN + 1], got[AB_HEX_LEN + 1];
	int bad = 0;

	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (unsigned char)(i * 7 + 3);
	ab_hash_buf(want, in, sizeof(in));
	for (size_t a = 0; a <= sizeof(in); a++) {
		for (size_t b = a; b <= sizeof(in); b++) {
			struct ab_sha256 *h = ab_sha256_new();

			ab_sha256_update(h, in, a);
			ab_sha256_update(h, in + a, b - a);
			ab_sha256_update(h, in + b, sizeof(in) - b);
			ab_sha256_final(got, h);
			if (strcmp(got, want))
				bad++;
		}
	}
	CHECK(bad == 0);
}

static char *
make_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *dir = ab_sprintf("%s/ab-test-hash.XXXXXX", base && *base ? base : "/tmp");

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	return dir;
}

static void
put(const char *dir, const char *name, const char *s)
{
	char *path = ab_path_join(dir, name);

	CHECK(ab_write_file_atomic(path, s, strlen(s)) == 0);
	free(path);
}

/*
 * A sparse file of 4 GiB + 12345 bytes of zeros, streamed through
 * ab_hash_file: the size must not wrap at 32 bits and the digest must be
 * the one sha256sum and Python's hashlib give for that many zero bytes.
 */
static void
test_big_file(const char *dir)
{
	const uint64_t size = (UINT64_C(4) << 30) + 12345;
	char hex[AB_HEX_LEN + 1];
	uint64_t got = 0;
	char *path;
	int fd;

	/* tmpfs reads holes from the shared zero page: no 4 GiB of page cache */
	if (access("/dev/shm", W_OK) == 0)
		path = ab_sprintf("/dev/shm/ab-test-hash-sparse.%ld", (long)getpid());
	else
		path = ab_path_join(dir, "sparse");

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	CHECK(fd >= 0);
	if (fd < 0 || ftruncate(fd, (off_t)size) < 0) {
		perror("sparse file");
		unit_failed++;
		if (fd >= 0)
			close(fd);
		free(path);
		return;
	}
	close(fd);
	CHECK(ab_hash_file(hex, &got, path) == 0);
	CHECK(got == size);
	CHECK_STR(hex, "59ead87e2e32370612861365e7dcf1543fb29afaa0b29432c37eab5373fed514");
	unlink(path);
	free(path);
}

/* a file of many read buffers (read ahead by a second thread), against the in-memory digest */
static void
test_big_buffered(const char *dir)
{
	const size_t n = (33u << 20) + 7, small = 100000;
	unsigned char *data = ab_malloc(n);
	char *path = ab_path_join(dir, "big");
	char want[AB_HEX_LEN + 1], got[AB_HEX_LEN + 1];
	uint64_t size = 0;
	uint32_t x = 1;

	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		data[i] = (unsigned char)(x >> 24);
	}
	CHECK(ab_write_file_atomic(path, data, n) == 0);
	ab_hash_buf(want, data, n);
	CHECK(ab_hash_file(got, &size, path) == 0);
	CHECK_STR(got, want);
	CHECK(size == n);
	/* an exact number of read-ahead buffers: the last read returns 0 */
	CHECK(ab_write_file_atomic(path, data, 32u << 20) == 0);
	ab_hash_buf(want, data, 32u << 20);
	CHECK(ab_hash_file(got, &size, path) == 0);
	CHECK_STR(got, want);
	CHECK(size == 32u << 20);
	/* a read that fails in the read-ahead thread is the error of the call */
	{
		int fd = open(path, O_WRONLY);

		CHECK(fd >= 0);
		errno = 0;
		CHECK(ab_hash_fd(got, NULL, fd, NULL) == -1);
		CHECK(errno == EBADF);
		close(fd);
	}
	/* and one smaller than a buffer */
	CHECK(ab_write_file_atomic(path, data, small) == 0);
	ab_hash_buf(want, data, small);
	CHECK(ab_hash_file(got, &size, path) == 0);
	CHECK_STR(got, want);
	CHECK(size == small);
	unlink(path);
	free(path);
	free(data);
}

static void
test_line(void)
{
	const char *hex = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
	struct ab_buf b = {0};

	ab_hash_line(&b, hex, "plain name");
	CHECK_STR(b.s, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  plain name\n");
	ab_buf_clear(&b);
	ab_hash_line(&b, hex, "a\\b\nc\rd\te");
	CHECK_STR(b.s, "\\e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855  a\\\\b\\nc\\rd\te\n");
	ab_buf_free(&b);
}

static void
test_tree(const char *dir)
{
	char *root = ab_path_join(dir, "tree");
	char *p, hex[AB_HEX_LEN + 1], want[AB_HEX_LEN + 1];
	char ha[AB_HEX_LEN + 1], hb[AB_HEX_LEN + 1], hc[AB_HEX_LEN + 1];
	struct ab_buf lines = {0};
	uint64_t files = 0, bytes = 0;

	/* empty tree: the digest of empty input */
	CHECK(ab_mkdir_p(root, 0755) == 0);
	CHECK(ab_hash_tree(hex, root, 0) == 0);
	CHECK_STR(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");

	/* "a-b" < "a/b" bytewise, though a path-component walk visits a/ first */
	p = ab_path_join(root, "a/sub");
	CHECK(ab_mkdir_p(p, 0755) == 0);
	free(p);
	put(root, "a/b", "B");
	put(root, "a-b", "A");
	put(root, "x\\y", "C");
	p = ab_path_join(root, "link");
	CHECK(symlink("a-b", p) == 0);
	free(p);
	ab_hash_buf(ha, "A", 1);
	ab_hash_buf(hb, "B", 1);
	ab_hash_buf(hc, "C", 1);
	ab_hash_line(&lines, ha, "a-b");
	ab_hash_line(&lines, hb, "a/b");
	ab_hash_line(&lines, hc, "x\\y");
	ab_hash_buf(want, lines.s, lines.len);
	for (int jobs = 0; jobs <= 4; jobs++) {
		CHECK(ab_hash_tree_count(hex, &files, &bytes, root, jobs) == 0);
		CHECK_STR(hex, want);
		CHECK(files == 3 && bytes == 3);
	}

	/* errors name the directory */
	p = ab_path_join(root, "missing");
	CHECK(ab_hash_tree(hex, p, 1) == -1);
	free(p);
	p = ab_path_join(root, "a-b");
	CHECK(ab_hash_tree(hex, p, 1) == -1);
	free(p);

	ab_buf_free(&lines);
	CHECK(ab_rm_rf(root) == 0);
	free(root);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The tree hashed four files at a time (lib/sha256x, when the CPU has
 * SHA-NI) and one at a time with OpenSSL (ALLOCBUILD_SHA256_LANES=1) give
 * the digest of the sha256sum lines computed here file by file: sizes at
 * every block edge, around a lane's 64 KiB buffer and beyond it, spread
 * over directories so that lanes end at every moment of the others.
 */
static void
test_tree_lanes(const char *dir)
{
	static const size_t edge[] = {0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 4095, 4096,
	    65535, 65536, 65537, 131072 + 17, 300000};
	enum { NFILES = 1000 }; /* the lines pass 64 KiB: the outer digest is fed twice */
	char *root = ab_path_join(dir, "lanes");
	char *names[NFILES], *p;
	unsigned char *data = ab_malloc(300000 + 97); /* a file starts at data + i % 97 */
	struct ab_buf lines = {0};
	char want[AB_HEX_LEN + 1], hex[AB_HEX_LEN + 1];
	unsigned seed = 7;
	uint64_t files, bytes, total = 0;

	for (size_t i = 0; i < 300000 + 97; i++)
		data[i] = (unsigned char)((seed = seed * 1103515245 + 12345) >> 16);
	for (int d = 0; d < 5; d++) {
		char sub[16];

		snprintf(sub, sizeof(sub), "d%d", d);
		p = ab_path_join(root, sub);
		CHECK(ab_mkdir_p(p, 0755) == 0);
		free(p);
	}
	for (int i = 0; i < NFILES; i++) {
		size_t len = i < (int)(sizeof(edge) / sizeof(edge[0])) ? edge[i] : (seed = seed * 1103515245 + 12345) >> 8 & 8191;
		char *path;

		names[i] = ab_malloc(32);
		snprintf(names[i], 32, "d%d/f%03d", i % 5, i);
		path = ab_path_join(root, names[i]);
		CHECK(ab_write_file_atomic(path, data + i % 97, len) == 0);
		free(path);
		total += len;
	}
	/* names sort as written: d0/f000 < d0/f005 < ... < d1/f001 ... */
	qsort(names, NFILES, sizeof(names[0]), cmp_str);
	for (int i = 0; i < NFILES; i++) {
		char *path = ab_path_join(root, names[i]), h[AB_HEX_LEN + 1];

		CHECK(ab_hash_file(h, NULL, path) == 0);
		ab_hash_line(&lines, h, names[i]);
		free(path);
		free(names[i]);
	}
	ab_hash_buf(want, lines.s, lines.len);
	for (int openssl = 0; openssl <= 1; openssl++) {
		if (openssl)
			setenv("ALLOCBUILD_SHA256_LANES", "1", 1);
		for (int jobs = 1; jobs <= 3; jobs++) {
			CHECK(ab_hash_tree_count(hex, &files, &bytes, root, jobs) == 0);
			CHECK_STR(hex, want);
			CHECK(files == NFILES && bytes == total);
		}
	}
	unsetenv("ALLOCBUILD_SHA256_LANES");
	ab_buf_free(&lines);
	free(data);
	CHECK(ab_rm_rf(root) == 0);
	free(root);
}

/* a list: every digest as ab_hash_file gives it, lanes or not, 1-3 jobs; every failure reported in order */
static void
test_files(const char *dir)
{
	static const size_t edge[] = {0, 1, 55, 56, 63, 64, 65, 119, 120, 127, 128, 129, 4095, 4096,
	    65535, 65536, 65537, 131072 + 17, 300000};
	enum { NFILES = 150 };
	char *root = ab_path_join(dir, "list");
	char *paths[NFILES];
	char want[NFILES][AB_HEX_LEN + 1], hex[NFILES][AB_HEX_LEN + 1];
	uint64_t len[NFILES], size[NFILES];
	unsigned char *data = ab_malloc(300000 + 97);
	unsigned seed = 11;
	const char *bad[6];
	struct unit_catch c;
	char *err, *q;

	for (size_t i = 0; i < 300000 + 97; i++)
		data[i] = (unsigned char)((seed = seed * 1103515245 + 12345) >> 16);
	CHECK(ab_mkdir_p(root, 0755) == 0);
	for (int i = 0; i < NFILES; i++) {
		char name[16];

		len[i] = i < (int)(sizeof(edge) / sizeof(edge[0])) ? edge[i] : (seed = seed * 1103515245 + 12345) >> 8 & 16383;
		snprintf(name, sizeof(name), "f%03d", i);
		paths[i] = ab_path_join(root, name);
		CHECK(ab_write_file_atomic(paths[i], data + i % 97, len[i]) == 0);
		CHECK(ab_hash_file(want[i], NULL, paths[i]) == 0);
	}
	for (int openssl = 0; openssl <= 1; openssl++) {
		if (openssl)
			setenv("ALLOCBUILD_SHA256_LANES", "1", 1);
		for (int jobs = 1; jobs <= 3; jobs++) {
			memset(hex, 0, sizeof(hex));
			memset(size, 0xff, sizeof(size));
			CHECK(ab_hash_files(hex, size, (const char *const *)paths, NFILES, 0, jobs) == 0);
			for (int i = 0; i < NFILES; i++) {
				CHECK_STR(hex[i], want[i]);
				CHECK(size[i] == len[i]);
			}
		}
	}
	unsetenv("ALLOCBUILD_SHA256_LANES");
	CHECK(ab_hash_files(hex, NULL, NULL, 0, 0, 0) == 0);

	/* a missing file, a directory, a symlink not followed: each reported, the good ones still fine */
	q = ab_path_join(root, "link");
	CHECK(symlink("f001", q) == 0);
	bad[0] = paths[3];
	bad[1] = "no/such/file";
	bad[2] = root;
	bad[3] = q;
	bad[4] = paths[4];
	bad[5] = "also-missing";
	unit_catch_begin(&c);
	CHECK(ab_hash_files(hex, NULL, bad, 6, O_NOFOLLOW, 2) == -1);
	err = unit_catch_end(&c);
	{
		char *w = ab_sprintf("allocbuild: cannot open 'no/such/file': No such file or directory\n"
		    "allocbuild: cannot hash '%s': not a regular file\n"
		    "allocbuild: cannot open '%s': Too many levels of symbolic links\n"
		    "allocbuild: cannot open 'also-missing': No such file or directory", root, q);

		CHECK_STR(err, w);
		free(w);
	}
	free(err);
	/* one file (hashed as ab_hash_file does): followed without O_NOFOLLOW, the target's digest */
	CHECK(ab_hash_files(hex, size, (const char *const *)&q, 1, 0, 1) == 0);
	CHECK_STR(hex[0], want[1]);
	CHECK(size[0] == len[1]);
	unit_catch_begin(&c);
	CHECK(ab_hash_files(hex, NULL, &bad[2], 1, 0, 0) == -1);
	CHECK(ab_hash_files(hex, NULL, &bad[3], 1, O_NOFOLLOW, 0) == -1);
	err = unit_catch_end(&c);
	{
		char *w = ab_sprintf("allocbuild: cannot hash '%s': not a regular file\n"
		    "allocbuild: cannot open '%s': Too many levels of symbolic links", root, q);

		CHECK_STR(err, w);
		free(w);
	}
	free(err);
	free(q);
	for (int i = 0; i < NFILES; i++)
		free(paths[i]);
	free(data);
	CHECK(ab_rm_rf(root) == 0);
	free(root);
}

/*
 * Many files below a directory at once: each outcome exactly what
 * ab_hash_file_beneath gives for it alone (digest and size, or errno and
 * reason), whatever the workers; known digests for two of them.
 */
static void
test_files_beneath(const char *dir)
{
	enum { NGOOD = 200 };
	static const char *const odd[] = {"missing", "sub", "fifo", "out", "in", "f000/x", "sub/../f001", "sub/f"};
	enum { NODD = sizeof(odd) / sizeof(odd[0]), N = NGOOD + NODD };
	char *root = ab_path_join(dir, "beneath"), *p;
	const char *rels[N];
	char names[NGOOD][16];
	struct ab_hash_result res[N];
	unsigned char *data = ab_malloc(400000);
	unsigned seed = 5;
	int rootfd;

	for (size_t i = 0; i < 400000; i++)
		data[i] = (unsigned char)((seed = seed * 1103515245 + 12345) >> 16);
	p = ab_path_join(root, "sub");
	CHECK(ab_mkdir_p(p, 0755) == 0);
	free(p);
	for (int i = 0; i < NGOOD; i++) {
		snprintf(names[i], sizeof(names[i]), "f%03d", i);
		p = ab_path_join(root, names[i]);
		/* sizes 0, 1, ... and every 50th past the read buffer (AB_HASH_READBUF) */
		CHECK(ab_write_file_atomic(p, data + i, i % 50 == 49 ? 300000 + (size_t)i : (size_t)i * 7) == 0);
		free(p);
		rels[i] = names[i];
	}
	p = ab_path_join(root, "sub/f");
	CHECK(ab_write_file_atomic(p, "abc", 3) == 0);
	free(p);
	p = ab_path_join(root, "fifo");
	CHECK(mkfifo(p, 0644) == 0);
	free(p);
	p = ab_path_join(root, "out");
	CHECK(symlink("../..", p) == 0);
	free(p);
	p = ab_path_join(root, "in");
	CHECK(symlink("sub/f", p) == 0);
	free(p);
	for (int i = 0; i < NODD; i++)
		rels[NGOOD + i] = odd[i];
	rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	CHECK(rootfd >= 0);
	for (int flags = 0; flags <= AB_BENEATH_NOSYMLINK; flags += AB_BENEATH_NOSYMLINK)
		for (int jobs = 0; jobs <= 3; jobs++) {
			memset(res, 0x5a, sizeof(res));
			ab_hash_files_beneath(res, rootfd, rels, N, flags, jobs);
			for (int i = 0; i < N; i++) {
				char hex[AB_HEX_LEN + 1] = "", why[AB_BENEATH_WHY] = "";
				uint64_t size = 0;
				int rc = ab_hash_file_beneath(hex, &size, rootfd, rels[i], flags, why), err = errno;

				if (rc == 0) {
					CHECK(res[i].err == 0 && !res[i].why);
					CHECK_STR(res[i].hex, hex);
					CHECK(res[i].size == size);
				} else {
					CHECK(res[i].err == err);
					CHECK_STR(res[i].why, why);
					CHECK_STR(res[i].hex, "");
				}
				free(res[i].why);
			}
			/* the symlink inside the directory: followed unless refused; the others fail */
			CHECK_STR(res[NGOOD + 4].hex, flags ? "" : "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
			CHECK(res[0].err == 0 && !strcmp(res[0].hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"));
			CHECK(res[NGOOD + 0].err == ENOENT);
			CHECK(res[NGOOD + 1].err == EINVAL && res[NGOOD + 2].err == EINVAL);
			CHECK(res[NGOOD + 3].err == (flags ? ELOOP : EXDEV));
			CHECK(res[NGOOD + 5].err == ENOTDIR);
			CHECK(res[49].err == 0 && res[49].size == 300049);
		}
	ab_hash_files_beneath(res, rootfd, rels, 0, 0, 0);
	close(rootfd);
	free(data);
	CHECK(ab_rm_rf(root) == 0);
	free(root);
}

static void
test_file_errors(const char *dir)
{
	char hex[AB_HEX_LEN + 1];
	char *p = ab_path_join(dir, "nonexistent");

	CHECK(ab_hash_file(hex, NULL, p) == -1);
	CHECK(errno == ENOENT);
	free(p);
	/* a directory opens but cannot be read */
	CHECK(ab_hash_file(hex, NULL, dir) == -1);
}

/*
 * The default workers follow the affinity mask: four per core allowed
 * (1 core: 4, 2: 8, ... 10: 40), then the cores and 32 more.
 */
static void
test_default_jobs(void)
{
	cpu_set_t all, some;
	int cores, cpu = 0;

	CHECK(sched_getaffinity(0, sizeof(all), &all) == 0);
	cores = CPU_COUNT(&all);
	CPU_ZERO(&some);
	for (int k = 1; k <= cores && k <= 64; k++) {
		while (!CPU_ISSET(cpu, &all))
			cpu++;
		CPU_SET(cpu, &some);
		cpu++;
		CHECK(sched_setaffinity(0, sizeof(some), &some) == 0);
		CHECK(ab_hash_default_jobs() == (k <= 10 ? 4 * k : k + 32));
	}
	CHECK(sched_setaffinity(0, sizeof(all), &all) == 0);
}

int
main(void)
{
	char *dir = make_tmpdir();

	test_vectors();
	test_split();
	test_line();
	test_default_jobs();
	test_tree(dir);
	test_tree_lanes(dir);
	test_files(dir);
	test_files_beneath(dir);
	test_file_errors(dir);
	test_big_buffered(dir);
	test_big_file(dir);
	ab_rm_rf(dir);
	free(dir);
	return unit_done();
}
