#include "digestcache.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "atomic.h"
#include "util.h"

/* what an entry holds of a file's stat */
struct ident {
	uint64_t dev, ino, size;
	int64_t mtime_ns, ctime_ns;
};

static int64_t
ns_of(const struct timespec *t)
{
	return (int64_t)t->tv_sec * 1000000000 + t->tv_nsec;
}

static void
ident_of(struct ident *id, const struct stat *st)
{
	id->dev = (uint64_t)st->st_dev;
	id->ino = (uint64_t)st->st_ino;
	id->size = (uint64_t)st->st_size;
	id->mtime_ns = ns_of(&st->st_mtim);
	id->ctime_ns = ns_of(&st->st_ctim);
}

static int
ident_eq(const struct ident *a, const struct ident *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->size == b->size && a->mtime_ns == b->mtime_ns &&
	    a->ctime_ns == b->ctime_ns;
}

static int64_t
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* the cache file read whole, NUL-terminated; empty when absent or unreadable (never reported) */
static void
read_entries(struct ab_buf *b, const char *file)
{
	int fd = open(file, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	char chunk[1 << 16];
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = read(fd, chunk, sizeof(chunk))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ab_buf_clear(b);
			break;
		}
		ab_buf_add(b, chunk, (size_t)n);
	}
	close(fd);
	ab_buf_add(b, "", 1);
	b->len--;
}

/*
 * one line "sha256 dev ino size mtime_ns ctime_ns hashed_at_ms path" parsed;
 * 0 when it is well formed, its path (up to end) being path
 */
static int
parse_line(char hex[AB_HEX_LEN + 1], struct ident *id, int64_t *at, const char *line, const char *end,
    const char *path)
{
	int off = 0;
	size_t plen = strlen(path);

	if (end - line < AB_HEX_LEN + 1 || line[AB_HEX_LEN] != ' ')
		return -1;
	for (int i = 0; i < AB_HEX_LEN; i++)
		if (!((line[i] >= '0' && line[i] <= '9') || (line[i] >= 'a' && line[i] <= 'f')))
			return -1;
	memcpy(hex, line, AB_HEX_LEN);
	hex[AB_HEX_LEN] = '\0';
	if (sscanf(line + AB_HEX_LEN + 1, "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNd64 " %" SCNd64 " %" SCNd64 " %n",
	        &id->dev, &id->ino, &id->size, &id->mtime_ns, &id->ctime_ns, at, &off) != 6 || off <= 0)
		return -1;
	line += AB_HEX_LEN + 1 + off;
	return (size_t)(end - line) == plen && !memcmp(line, path, plen) ? 0 : -1;
}

/* the entry of path in the cache text s, when its stat is now */
static int
lookup(char hex[AB_HEX_LEN + 1], int64_t *at, const char *s, const char *path, const struct ident *now)
{
	for (const char *line = s; line && *line;) {
		const char *end = strchr(line, '\n');
		struct ident id;

		if (!end)
			break;
		if (parse_line(hex, &id, at, line, end, path) == 0)
			return ident_eq(&id, now) ? 0 : -1;
		line = end + 1;
	}
	return -1;
}

/* the cache text s without path's line and the oldest lines past the bound, then path's new line */
static void
store(const char *dir, const char *file, const char *s, const char *path, const char hex[AB_HEX_LEN + 1],
    const struct ident *id, int64_t at)
{
	struct ab_buf out = {0};
	size_t lines = 0, skip;
	const char *line;

	for (line = s; *line; line++)
		lines += *line == '\n';
	skip = lines >= AB_DIGESTCACHE_MAX ? lines - AB_DIGESTCACHE_MAX + 1 : 0;
	for (line = s; *line;) {
		const char *end = strchr(line, '\n');
		char h[AB_HEX_LEN + 1];
		struct ident old;
		int64_t t;

		if (!end)
			break;
		if (skip)
			skip--;
		else if (parse_line(h, &old, &t, line, end, path) != 0)
			ab_buf_add(&out, line, (size_t)(end - line + 1));
		line = end + 1;
	}
	ab_buf_printf(&out, "%s %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRId64 " %" PRId64 " %" PRId64 " %s\n", hex,
	    id->dev, id->ino, id->size, id->mtime_ns, id->ctime_ns, at, path);
	/* a cache: nothing said when it cannot be written, nor fsynced */
	if ((mkdir(dir, 0755) == 0 || errno == EEXIST) && access(dir, W_OK) == 0)
		ab_atomic_write(file, out.s, out.len, AB_ATOMIC_NOSYNC);
	ab_buf_free(&out);
}

int
ab_digestcache_hash(char hex[AB_HEX_LEN + 1], int *cached, int64_t *hashed_at_ms, const char *path,
    const char *dir, int rehash)
{
	struct ab_buf text = {0};
	struct stat before, after;
	struct ident id, id2;
	char *abs = NULL, *file = NULL;
	int64_t start = now_ms();
	int fd = -1, rc = AB_EFAIL;

	*cached = 0;
	*hashed_at_ms = start;
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)) < 0) {
		ab_error_errno("cannot open '%s'", path);
		return AB_EFAIL;
	}
	if (fstat(fd, &before) < 0) {
		ab_error_errno("cannot stat '%s'", path);
		goto done;
	}
	ident_of(&id, &before);
	if (dir && S_ISREG(before.st_mode) && (abs = realpath(path, NULL)) && !strchr(abs, '\n')) {
		file = ab_path_join(dir, AB_DIGESTCACHE_FILE);
		read_entries(&text, file);
		if (!rehash && text.s && lookup(hex, hashed_at_ms, text.s, abs, &id) == 0) {
			*cached = 1;
			rc = 0;
			goto done;
		}
	}
	if (ab_hash_fd(hex, NULL, fd, path) < 0)
		goto done;
	rc = 0;
	/* stored when the file did not change while it was read and settled before */
	if (file && fstat(fd, &after) == 0 && (ident_of(&id2, &after), ident_eq(&id, &id2)) &&
	    id.ctime_ns / 1000000 + AB_DIGESTCACHE_SETTLE_MS <= start &&
	    id.mtime_ns / 1000000 + AB_DIGESTCACHE_SETTLE_MS <= start)
		store(dir, file, text.s ? text.s : "", abs, hex, &id, start);
done:
	close(fd);
	ab_buf_free(&text);
	free(abs);
	free(file);
	return rc;
}
