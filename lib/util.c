#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int ab_quiet;
int ab_verbose;
static ab_report_fn *reporter;
static atomic_int environment_failed;

int
ab_errno_is_environment(int err)
{
	return err == ENOSPC || err == EDQUOT || err == EIO || err == EROFS || err == EFBIG || err == ENOMEM;
}

void
ab_note_environment(int err)
{
	if (ab_errno_is_environment(err))
		atomic_store(&environment_failed, 1);
}

int
ab_environment_failed(void)
{
	return atomic_load(&environment_failed);
}

enum escape_mode {
	ESC_NAME,    /* ab_shown: everything that is not plain printable text */
	ESC_MESSAGE, /* a reported line: control characters but newline and tab, no backslashes */
};

/* the length of the valid UTF-8 sequence at s (at most n bytes), 0 when it is not one */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
	size_t len, i;
	unsigned cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (n < len)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	/* overlong forms, surrogates and what lies past U+10FFFF are not UTF-8 */
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

static void
add_escaped(struct ab_buf *b, const char *text, size_t n, enum escape_mode mode)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t i = 0;

	while (i < n) {
		unsigned char c = s[i];
		size_t len = utf8_seq(s + i, n - i);

		if (c == '\\' && mode == ESC_NAME) {
			ab_buf_puts(b, "\\\\");
		} else if (c == '\n' || c == '\t') {
			if (mode == ESC_MESSAGE)
				ab_buf_putc(b, (char)c);
			else
				ab_buf_puts(b, c == '\n' ? "\\n" : "\\t");
		} else if (c == '\r') {
			ab_buf_puts(b, "\\r");
		} else if (c < 0x20 || c == 0x7f || !len) {
			ab_buf_printf(b, "\\x%02x", c);
		} else if (len == 2 && c == 0xc2 && s[i + 1] < 0xa0) {
			/* a C1 control character (U+0080..U+009F): CSI and friends to some terminals */
			ab_buf_printf(b, "\\x%02x\\x%02x", c, s[i + 1]);
			i += 2;
			continue;
		} else {
			ab_buf_add(b, s + i, len);
			i += len;
			continue;
		}
		i++;
	}
}

void
ab_buf_add_shown(struct ab_buf *b, const char *s, size_t n)
{
	add_escaped(b, s, n, ESC_NAME);
	if (!b->s)
		ab_buf_grow(b, 0), b->s[0] = '\0';
}

void
ab_buf_add_text(struct ab_buf *b, const char *s, size_t n)
{
	add_escaped(b, s, n, ESC_MESSAGE);
	if (!b->s)
		ab_buf_grow(b, 0), b->s[0] = '\0';
}

char *
ab_shown(const char *s)
{
	struct ab_buf b = {0};

	ab_buf_add_shown(&b, s ? s : "", s ? strlen(s) : 0);
	return ab_buf_detach(&b);
}

void
ab_set_reporter(ab_report_fn *fn)
{
	reporter = fn;
}

/*
 * Does the message start with a place, "FILE:LINE:COL: "? It is printed
 * without "allocbuild: " then, as compilers print theirs, so that vim's
 * and Emacs's error parsers jump to the place
 */
static int
has_place(const char *s)
{
	size_t n = strcspn(s, ": \t\n");

	if (!n || s[n] != ':')
		return 0;
	for (int field = 0; field < 2; field++) {
		const char *d = s + n + 1;
		size_t k = strspn(d, "0123456789");

		if (!k || d[k] != ':')
			return 0;
		n += k + 1;
	}
	return s[n + 1] == ' ';
}

/* this thread's reports are muted (ab_report_mute): a count, never shared between threads */
static _Thread_local int muted;

static void
vreport(const char *prefix, const char *suffix, const char *fmt, va_list ap)
{
	struct ab_buf b = {0};
	struct ab_buf msg = {0};

	if (muted)
		return;

	ab_buf_vprintf(&msg, fmt, ap);
	if (prefix || !has_place(msg.s ? msg.s : ""))
		ab_buf_puts(&b, "allocbuild: ");
	if (prefix)
		ab_buf_puts(&b, prefix);
	if (suffix) {
		ab_buf_puts(&msg, ": ");
		ab_buf_puts(&msg, suffix);
	}
	/*
	 * whatever a message quotes (a name, a library's message), no control
	 * character reaches the terminal but the newlines of a message of
	 * several lines; names are escaped where they are quoted (ab_shown)
	 */
	add_escaped(&b, msg.s ? msg.s : "", msg.len, ESC_MESSAGE);
	ab_buf_free(&msg);
	ab_buf_putc(&b, '\n');
	if (reporter) {
		reporter(b.s, b.len);
	} else {
		/* what came before on stdout comes first: 2>&1 never puts a message inside a line of data */
		fflush(stdout);
		/* one write so that lines from parallel workers do not interleave */
		fwrite(b.s, 1, b.len, stderr);
		fflush(stderr);
	}
	ab_buf_free(&b);
}

void
ab_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(NULL, NULL, fmt, ap);
	va_end(ap);
}

void
ab_error_errno(const char *fmt, ...)
{
	va_list ap;
	int e = errno;

	ab_note_environment(e);
	va_start(ap, fmt);
	vreport(NULL, strerror(e), fmt, ap);
	va_end(ap);
	errno = e;
}

void
ab_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning: ", NULL, fmt, ap);
	va_end(ap);
}

void
ab_report_mute(void)
{
	muted++;
}

void
ab_report_unmute(void)
{
	muted--;
}

void
ab_note(const char *fmt, ...)
{
	va_list ap;

	if (ab_quiet || muted)
		return;
	va_start(ap, fmt);
	vreport(NULL, NULL, fmt, ap);
	va_end(ap);
}

void
ab_test_pause(const char *var)
{
	const char *mark = getenv(var);
	int fd;

	if (!mark)
		return;
	if ((fd = open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0)
		close(fd);
	for (int i = 0; i < 3000 && access(mark, F_OK) == 0; i++)
		usleep(10000);
}

static void
oom(void)
{
	fputs("allocbuild: out of memory\n", stderr);
	abort();
}

void *
ab_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		oom();
	return p;
}

void *
ab_calloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (!p)
		oom();
	return p;
}

void *
ab_realloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

char *
ab_strdup(const char *s)
{
	return ab_strndup(s, strlen(s));
}

char *
ab_strdup_or_null(const char *s)
{
	return s ? ab_strdup(s) : NULL;
}

char *
ab_strndup(const char *s, size_t n)
{
	char *p = ab_malloc(n + 1);

	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *
ab_sprintf(const char *fmt, ...)
{
	struct ab_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	ab_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	return ab_buf_detach(&b);
}

void
ab_buf_grow(struct ab_buf *b, size_t extra)
{
	size_t need;

	if (extra > SIZE_MAX - b->len - 1)
		oom();
	need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	if (b->cap < 64)
		b->cap = 64;
	while (b->cap < need)
		b->cap = b->cap > SIZE_MAX / 2 ? need : b->cap * 2;
	b->s = ab_realloc(b->s, b->cap);
}

void
ab_buf_add(struct ab_buf *b, const void *p, size_t n)
{
	ab_buf_grow(b, n);
	if (n)
		memcpy(b->s + b->len, p, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void
ab_buf_puts(struct ab_buf *b, const char *s)
{
	ab_buf_add(b, s, strlen(s));
}

void
ab_buf_putc(struct ab_buf *b, int c)
{
	char ch = (char)c;

	ab_buf_add(b, &ch, 1);
}

void
ab_buf_vprintf(struct ab_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	int n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return;
	ab_buf_grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void
ab_buf_printf(struct ab_buf *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ab_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

void
ab_buf_clear(struct ab_buf *b)
{
	b->len = 0;
	if (b->s)
		b->s[0] = '\0';
}

char *
ab_buf_detach(struct ab_buf *b)
{
	char *s = b->s ? b->s : ab_strdup("");

	b->s = NULL;
	b->len = b->cap = 0;
	return s;
}

void
ab_buf_free(struct ab_buf *b)
{
	free(b->s);
	b->s = NULL;
	b->len = b->cap = 0;
}

void
ab_strv_push_owned(struct ab_strv *sv, char *s)
{
	if (sv->n + 2 > sv->cap) {
		sv->cap = sv->cap ? sv->cap * 2 : 8;
		sv->v = ab_realloc(sv->v, sv->cap * sizeof(*sv->v));
	}
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
ab_strv_push(struct ab_strv *sv, const char *s)
{
	ab_strv_push_owned(sv, ab_strdup(s));
}

void
ab_strv_pushf(struct ab_strv *sv, const char *fmt, ...)
{
	struct ab_buf b = {0};
	va_list ap;

	va_start(ap, fmt);
	ab_buf_vprintf(&b, fmt, ap);
	va_end(ap);
	ab_strv_push_owned(sv, ab_buf_detach(&b));
}

void
ab_strv_free(struct ab_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = sv->cap = 0;
}

int
ab_cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
ab_strv_sort(struct ab_strv *sv)
{
	if (sv->n > 1)
		qsort(sv->v, sv->n, sizeof(*sv->v), ab_cmp_str);
}

int
ab_strv_has(const struct ab_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (!strcmp(sv->v[i], s))
			return 1;
	return 0;
}

char **
ab_strv_argv(struct ab_strv *sv)
{
	if (!sv->v) {
		sv->cap = 8;
		sv->v = ab_calloc(sv->cap, sizeof(*sv->v));
	}
	return sv->v;
}

int
ab_mkdir_p(const char *path, unsigned mode)
{
	char *p = ab_strdup(path);
	int error = -1;

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;

			*s = '\0';
			if (mkdir(p, mode) < 0 && errno != EEXIST) {
				ab_error_errno("cannot create directory '%s'", p);
				goto done;
			}
			*s = c;
			if (!c)
				break;
		}
	}
	if (!ab_is_dir(path)) {
		ab_error("cannot create directory '%s': not a directory", path);
		goto done;
	}
	error = 0;
done:
	free(p);
	return error;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0 && errno != ENOENT) {
		ab_error_errno("cannot remove '%s'", path);
		return -1;
	}
	return 0;
}

int
ab_rm_rf(const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return errno == ENOENT ? 0 : (ab_error_errno("cannot remove '%s'", path), -1);
	if (!S_ISDIR(st.st_mode)) {
		if (unlink(path) < 0) {
			ab_error_errno("cannot remove '%s'", path);
			return -1;
		}
		return 0;
	}
	/* make read-only directories writable first, as git's object dirs can be */
	return nftw(path, rm_one, 64, FTW_DEPTH | FTW_PHYS) < 0 ? -1 : 0;
}

int
ab_read_fd_max(struct ab_buf *out, int fd, const char *name, size_t max)
{
	struct stat st;
	size_t start = out->len;
	ssize_t n;

	if (fstat(fd, &st) < 0) {
		ab_error_errno("cannot stat '%s'", name);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		ab_error("'%s' is not a regular file", name);
		return -1;
	}
	if ((uint64_t)st.st_size > max) {
		ab_error("'%s' is larger than %zu bytes", name, max);
		return -1;
	}
	/*
	 * read straight into the buffer, sized by fstat: a file that does not
	 * grow is read without an intermediate copy (a private key's bytes are
	 * in one place only, which its reader wipes)
	 */
	ab_buf_grow(out, (size_t)st.st_size);
	out->s[out->len] = '\0';
	for (;;) {
		size_t room = out->cap - out->len - 1;
		char probe;

		n = room ? read(fd, out->s + out->len, room) : read(fd, &probe, 1);
		if (n == 0)
			break;
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ab_error_errno("cannot read '%s'", name);
			return -1;
		}
		if (out->len - start + (size_t)n > max) {
			ab_error("'%s' is larger than %zu bytes", name, max);
			return -1;
		}
		if (room) {
			out->len += (size_t)n;
			out->s[out->len] = '\0';
		} else {
			/* it grew while read */
			ab_buf_add(out, &probe, 1);
			ab_buf_grow(out, 65536);
		}
	}
	return 0;
}

int
ab_read_file_max(struct ab_buf *out, const char *path, size_t max)
{
	/* O_NONBLOCK: opening a fifo must not wait for a writer; it changes nothing for a regular file */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int rc;

	if (fd < 0) {
		ab_error_errno("cannot open '%s'", path);
		return -1;
	}
	rc = ab_read_fd_max(out, fd, path, max);
	close(fd);
	return rc;
}

static size_t
edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), prev[33], cur[33];

	if (la > 32 || lb > 32)
		return 99;
	for (size_t j = 0; j <= lb; j++)
		prev[j] = j;
	for (size_t i = 1; i <= la; i++) {
		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
			size_t del = prev[j] + 1, ins = cur[j - 1] + 1;

			cur[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
		}
		memcpy(prev, cur, sizeof(prev));
	}
	return prev[lb];
}

const char *
ab_closest(const char *name, char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t bd = 3;

	for (size_t j = 0; j < n; j++) {
		size_t d = edit_distance(name, candidates[j]);

		if (d < bd && d < strlen(candidates[j])) {
			bd = d;
			best = candidates[j];
		}
	}
	return best;
}

int
ab_is_ident(const char *s)
{
	if (!strcmp(s, ".") || !strcmp(s, ".."))
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    *p == '.' || *p == '_' || *p == '-'))
			return 0;
	return *s != '\0';
}

int
ab_read_file(struct ab_buf *out, const char *path)
{
	return ab_read_file_max(out, path, AB_READ_MAX);
}

int
ab_open_log(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC, 0644);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	if (fcntl(fd, F_SETFL, O_APPEND) < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

void
ab_utc_time(char *buf, size_t len, time_t t)
{
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void
ab_utc_now_ms(char *buf, size_t len)
{
	struct timespec ts;
	struct tm tm;
	char s[24];

	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%03dZ", s, (int)(ts.tv_nsec / 1000000));
}

int
ab_map_file(const unsigned char **map, size_t *size, const char *path)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	void *m;

	*map = NULL;
	*size = 0;
	if (fd < 0) {
		ab_error_errno("cannot open '%s'", path);
		return AB_EFAIL;
	}
	if (fstat(fd, &st) < 0) {
		ab_error_errno("cannot stat '%s'", path);
		close(fd);
		return AB_EFAIL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size == 0) {
		close(fd);
		return 1;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		ab_error_errno("cannot map '%s'", path);
		return AB_EFAIL;
	}
	*map = m;
	*size = (size_t)st.st_size;
	return 0;
}

void
ab_unmap_file(const unsigned char *map, size_t size)
{
	if (map)
		munmap((void *)map, size);
}

int
ab_write_all(int fd, const void *p, size_t n)
{
	const char *s = p;

	while (n > 0) {
		ssize_t k = write(fd, s, n);

		if (k < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		s += k;
		n -= (size_t)k;
	}
	return 0;
}

int
ab_write_close(int fd, const char *name, const void *p, size_t n)
{
	if (ab_write_all(fd, p, n) < 0) {
		ab_error_errno("cannot write '%s'", name);
		close(fd);
		return -1;
	}
	if (close(fd) < 0) {
		ab_error_errno("cannot write '%s'", name);
		return -1;
	}
	return 0;
}

int
ab_path_exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

int
ab_is_dir(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

char *
ab_path_join(const char *a, const char *b)
{
	size_t la = strlen(a);

	if (!la)
		return ab_strdup(b);
	if (b[0] == '/')
		b++;
	return a[la - 1] == '/' ? ab_sprintf("%s%s", a, b) : ab_sprintf("%s/%s", a, b);
}

char *
ab_path_absolute(const char *p)
{
	struct ab_buf in = {0}, out = {0};
	char *cwd, *s, *save = NULL;

	if (p[0] == '/') {
		ab_buf_puts(&in, p);
	} else {
		cwd = getcwd(NULL, 0);
		if (!cwd)
			cwd = ab_strdup(".");
		ab_buf_printf(&in, "%s/%s", cwd, p);
		free(cwd);
	}
	for (s = strtok_r(in.s, "/", &save); s; s = strtok_r(NULL, "/", &save)) {
		if (!strcmp(s, "."))
			continue;
		if (!strcmp(s, "..")) {
			char *slash = out.len ? strrchr(out.s, '/') : NULL;

			if (slash) {
				out.len = (size_t)(slash - out.s);
				out.s[out.len] = '\0';
			}
			continue;
		}
		ab_buf_putc(&out, '/');
		ab_buf_puts(&out, s);
	}
	if (!out.len)
		ab_buf_putc(&out, '/');
	ab_buf_free(&in);
	return ab_buf_detach(&out);
}

char *
ab_path_absolute_in(const char *base, const char *p)
{
	char *j, *abs;

	if (p[0] == '/')
		return ab_path_absolute(p);
	j = ab_path_join(base, p);
	abs = ab_path_absolute(j);
	free(j);
	return abs;
}

char *
ab_path_dirname(const char *p)
{
	const char *slash = strrchr(p, '/');

	if (!slash)
		return ab_strdup(".");
	if (slash == p)
		return ab_strdup("/");
	return ab_strndup(p, (size_t)(slash - p));
}

int
ab_path_is_safe_relative(const char *name)
{
	const char *s = name;

	if (!name[0] || name[0] == '/')
		return 0;
	while (*s) {
		size_t n = strcspn(s, "/");

		if (n == 2 && s[0] == '.' && s[1] == '.')
			return 0;
		s += n;
		while (*s == '/')
			s++;
	}
	return 1;
}

double
ab_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

void
ab_format_duration(char *buf, size_t len, double s)
{
	if (s < 10)
		snprintf(buf, len, "%.1fs", s);
	else if (s < 60)
		snprintf(buf, len, "%.0fs", s);
	else
		snprintf(buf, len, "%dm%02ds", (int)(s / 60), (int)s % 60);
}

int
ab_is_hex(const char *s, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return s[i] == '\0';
}

void
ab_kvlist_add(struct ab_kvlist *l, const char *key, const char *value)
{
	l->v = ab_realloc(l->v, (l->n + 1) * sizeof(*l->v));
	l->v[l->n].key = ab_strdup(key);
	l->v[l->n].value = ab_strdup(value);
	l->n++;
}

void
ab_kvlist_free(struct ab_kvlist *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].key);
		free(l->v[i].value);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void
ab_list_add(struct ab_list *l, const char *s)
{
	l->v = ab_realloc(l->v, (l->n + 2) * sizeof(*l->v));
	l->v[l->n++] = ab_strdup(s);
	l->v[l->n] = NULL;
}

void
ab_list_free(struct ab_list *l)
{
	for (size_t i = 0; l->v && i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

char *
ab_path_first_missing(const char *dir)
{
	char *created = ab_strdup(dir);

	for (;;) {
		char *up = ab_path_dirname(created);

		if (ab_path_exists(up) || !strcmp(up, created)) {
			free(up);
			break;
		}
		free(created);
		created = up;
	}
	if (ab_path_exists(created)) {
		free(created);
		created = NULL;
	}
	return created;
}

void
ab_rmdir_up_to(const char *dir, const char *top)
{
	for (char *p = ab_strdup(dir), *up; p; p = up) {
		up = NULL;
		if (rmdir(p) == 0 && strcmp(p, top))
			up = ab_path_dirname(p);
		free(p);
	}
}
