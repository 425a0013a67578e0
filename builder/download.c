#include "download.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/hash.h"
#include "../lib/lazy.h"
#include "../lib/util.h"
#include "../lib/redact.h"

/*
 * libcurl, loaded when the first URL is fetched rather than linked
 * (lib/lazy.h): linked, it and the thirty libraries it needs were mapped
 * and relocated at every start of allocbuild, for the few commands that
 * download. A missing libcurl fails the download, not the start.
 */
static const char *const curl_names[] = {
	"curl_global_init", "curl_global_cleanup", "curl_easy_init", "curl_easy_setopt",
	"curl_easy_perform", "curl_easy_cleanup", "curl_easy_strerror",
};

static struct ab_lazy libcurl = {
	.soname = "libcurl.so.4",
	.package = "libcurl4",
	.names = curl_names,
	.n = sizeof(curl_names) / sizeof(curl_names[0]),
};

static struct {
	int ready; /* curl_global_init done */
	CURLcode (*global_init)(long);
	void (*global_cleanup)(void);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_perform)(CURL *);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
} curl;

static pthread_mutex_t curl_lock = PTHREAD_MUTEX_INITIALIZER;

/* function i of the loaded libcurl into *fn */
static void
sym(void *fn, size_t i)
{
	void *p = ab_lazy_fn(&libcurl, i);

	memcpy(fn, &p, sizeof(p));
}

/* 0 once libcurl is loaded and initialised; AB_EFAIL after reporting why not, naming url */
static int
curl_load(const char *url)
{
	char *shown = ab_url_redact(url), *context = ab_sprintf("cannot download '%s'", shown);
	int error = 0;

	pthread_mutex_lock(&curl_lock);
	if (!curl.ready && (error = ab_lazy_load(&libcurl, context)) == 0) {
		sym(&curl.global_init, 0);
		sym(&curl.global_cleanup, 1);
		sym(&curl.easy_init, 2);
		sym(&curl.easy_setopt, 3);
		sym(&curl.easy_perform, 4);
		sym(&curl.easy_cleanup, 5);
		sym(&curl.easy_strerror, 6);
		if (curl.global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK)
			curl.ready = 1;
		else {
			ab_error("%s: cannot initialise %s", context, libcurl.soname);
			error = AB_EFAIL;
		}
	}
	pthread_mutex_unlock(&curl_lock);
	free(context);
	free(shown);
	return error;
}

void
ab_download_cleanup(void)
{
	pthread_mutex_lock(&curl_lock);
	if (curl.ready)
		curl.global_cleanup();
	curl.ready = 0;
	pthread_mutex_unlock(&curl_lock);
}

struct sink {
	int fd;
	struct ab_sha256 *h;
	int failed;
	uint64_t written, max;
	int too_large;
};

static size_t
sink_write(char *p, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;

	/* the limit first: nothing past it is written */
	if (n > s->max - s->written) {
		s->too_large = 1;
		return 0;
	}
	s->written += n;
	ab_sha256_update(s->h, p, n);
	if (ab_write_all(s->fd, p, n) < 0) {
		s->failed = errno;
		return 0;
	}
	return n;
}

/* dest created for the path forms: O_EXCL, as a temporary must be */
static int
create(const char *dest)
{
	int fd = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		ab_error_errno("cannot create '%s'", dest);
	return fd;
}

/* the path forms end so: fsync and close dest, whatever rc says */
static int
finish(int fd, const char *dest, int rc)
{
	if (fsync(fd) < 0 || close(fd) < 0) {
		if (rc == 0)
			ab_error_errno("cannot write '%s'", dest);
		return AB_EFAIL;
	}
	return rc;
}

/*
 * A file:// URL names a local file: only a regular one is read (curl would
 * open a fifo and wait for a writer, or read /dev/zero for ever)
 */
static int
check_file_url(const char *url)
{
	struct ab_buf path = {0};
	struct stat st;
	const char *p;
	int e = 0;

	if (strncmp(url, "file://", 7))
		return 0;
	p = url + 7;
	p += strcspn(p, "/"); /* file://HOST/PATH: curl takes only an empty host or localhost */
	for (; *p && *p != '?' && *p != '#'; p++) {
		unsigned hi, lo;

		if (*p == '%' && sscanf(p + 1, "%1x%1x", &hi, &lo) == 2) {
			ab_buf_putc(&path, (int)(hi * 16 + lo));
			p += 2;
		} else {
			ab_buf_putc(&path, *p);
		}
	}
	if (path.len && stat(path.s, &st) == 0 && !S_ISREG(st.st_mode)) {
		char *shown = ab_url_redact(url);

		ab_error("cannot download '%s': not a regular file", shown);
		free(shown);
		e = AB_EFAIL;
	}
	ab_buf_free(&path);
	return e;
}

int
ab_download_url_fd(char sha256[65], const char *url, int fd, const char *name, uint64_t max)
{
	struct sink s = {.fd = fd, .max = max};
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *h;
	CURLcode rc;

	if (check_file_url(url) < 0 || curl_load(url) < 0)
		return AB_EFAIL;
	s.h = ab_sha256_new();
	h = curl.easy_init();
	if (!h) {
		ab_error("cannot initialise libcurl");
		ab_sha256_final(sha256, s.h);
		return AB_EFAIL;
	}
	curl.easy_setopt(h, CURLOPT_URL, url);
	curl.easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https,http,file");
	curl.easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "https,http");
	curl.easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
	curl.easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
	curl.easy_setopt(h, CURLOPT_FAILONERROR, 1L);
	curl.easy_setopt(h, CURLOPT_CONNECTTIMEOUT, 30L);
	curl.easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1024L);
	curl.easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 60L);
	curl.easy_setopt(h, CURLOPT_USERAGENT, "allocbuild");
	curl.easy_setopt(h, CURLOPT_ERRORBUFFER, errbuf);
	curl.easy_setopt(h, CURLOPT_WRITEFUNCTION, sink_write);
	curl.easy_setopt(h, CURLOPT_WRITEDATA, &s);
	curl.easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	/* a Content-Length past the limit is refused before a byte comes; a stream is cut by sink_write */
	curl.easy_setopt(h, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)(max > INT64_MAX ? INT64_MAX : max));
	rc = curl.easy_perform(h);
	curl.easy_cleanup(h);
	ab_sha256_final(sha256, s.h);
	if (rc != CURLE_OK) {
		if (s.too_large || rc == CURLE_FILESIZE_EXCEEDED)
			return AB_DOWNLOAD_TOO_LARGE;
		if (s.failed) {
			errno = s.failed;
			ab_error_errno("cannot write '%s'", name);
		} else {
			char *shown = ab_url_redact(url);
			char *why = ab_url_redact(errbuf[0] ? errbuf : curl.easy_strerror(rc));

			ab_error("cannot download '%s': %s", shown, why);
			free(shown);
			free(why);
		}
		return AB_EFAIL;
	}
	return 0;
}

int
ab_download_url(char sha256[65], const char *url, const char *dest, uint64_t max)
{
	int fd = create(dest);

	if (fd < 0)
		return AB_EFAIL;
	return finish(fd, dest, ab_download_url_fd(sha256, url, fd, dest, max));
}

/* in (src) copied to fd (name), hashed */
static int
copy_fd(char sha256[65], int in, const char *src, int fd, const char *name, uint64_t max)
{
	struct sink s = {.fd = fd, .max = max};
	char buf[1 << 16];
	ssize_t n;
	int error = 0;

	s.h = ab_sha256_new();
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ab_error_errno("cannot read '%s'", src);
			error = AB_EFAIL;
			break;
		}
		if (sink_write(buf, 1, (size_t)n, &s) != (size_t)n) {
			if (s.too_large) {
				error = AB_DOWNLOAD_TOO_LARGE;
				break;
			}
			errno = s.failed;
			ab_error_errno("cannot write '%s'", name);
			error = AB_EFAIL;
			break;
		}
	}
	ab_sha256_final(sha256, s.h);
	return error;
}

/* src opened for a copy: without blocking (a fifo), and only when it is a regular file */
static int
open_regular(const char *src)
{
	int in = open(src, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;

	if (in < 0) {
		ab_error_errno("cannot open '%s'", src);
		return -1;
	}
	if (fstat(in, &st) < 0 || !S_ISREG(st.st_mode)) {
		if (S_ISREG(st.st_mode))
			ab_error_errno("cannot stat '%s'", src);
		else
			ab_error("'%s' is not a regular file", src);
		close(in);
		return -1;
	}
	return in;
}

int
ab_download_copy_fd(char sha256[65], const char *src, int fd, const char *name, uint64_t max)
{
	int in = open_regular(src);
	int error;

	if (in < 0)
		return AB_EFAIL;
	error = copy_fd(sha256, in, src, fd, name, max);
	close(in);
	return error;
}

int
ab_download_copy(char sha256[65], const char *src, const char *dest, uint64_t max)
{
	int in = open_regular(src);
	int fd, error;

	if (in < 0)
		return AB_EFAIL;
	if ((fd = create(dest)) < 0) {
		close(in);
		return AB_EFAIL;
	}
	error = finish(fd, dest, copy_fd(sha256, in, src, fd, dest, max));
	close(in);
	return error;
}
