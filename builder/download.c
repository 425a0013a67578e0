#include "download.h"

#include <curl/curl.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/hash.h"
#include "../lib/util.h"

static int curl_ready;

void
ab_download_init(void)
{
	if (!curl_ready && curl_global_init(CURL_GLOBAL_DEFAULT) == 0)
		curl_ready = 1;
}

void
ab_download_cleanup(void)
{
	if (curl_ready)
		curl_global_cleanup();
	curl_ready = 0;
}

struct sink {
	int fd;
	struct ab_sha256 *h;
	int failed;
};

static size_t
sink_write(char *p, size_t size, size_t nmemb, void *arg)
{
	struct sink *s = arg;
	size_t n = size * nmemb;

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

int
ab_download_url_fd(char sha256[65], const char *url, int fd, const char *name)
{
	struct sink s = {.fd = fd};
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *curl;
	CURLcode rc;

	ab_download_init();
	s.h = ab_sha256_new();
	curl = curl_easy_init();
	if (!curl) {
		ab_error("cannot initialise libcurl");
		ab_sha256_final(sha256, s.h);
		return AB_EFAIL;
	}
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https,http,file");
	curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "https,http");
	curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 1L);
	curl_easy_setopt(curl, CURLOPT_MAXREDIRS, 10L);
	curl_easy_setopt(curl, CURLOPT_FAILONERROR, 1L);
	curl_easy_setopt(curl, CURLOPT_CONNECTTIMEOUT, 30L);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1024L);
	curl_easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 60L);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "allocbuild");
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, sink_write);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, &s);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	rc = curl_easy_perform(curl);
	curl_easy_cleanup(curl);
	ab_sha256_final(sha256, s.h);
	if (rc != CURLE_OK) {
		if (s.failed) {
			errno = s.failed;
			ab_error_errno("cannot write '%s'", name);
		} else {
			char *shown = ab_url_redact(url);
			char *why = ab_url_redact(errbuf[0] ? errbuf : curl_easy_strerror(rc));

			ab_error("cannot download '%s': %s", shown, why);
			free(shown);
			free(why);
		}
		return AB_EFAIL;
	}
	return 0;
}

int
ab_download_url(char sha256[65], const char *url, const char *dest)
{
	int fd = create(dest);

	if (fd < 0)
		return AB_EFAIL;
	return finish(fd, dest, ab_download_url_fd(sha256, url, fd, dest));
}

/* in (src) copied to fd (name), hashed */
static int
copy_fd(char sha256[65], int in, const char *src, int fd, const char *name)
{
	struct sink s = {.fd = fd};
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
			errno = s.failed;
			ab_error_errno("cannot write '%s'", name);
			error = AB_EFAIL;
			break;
		}
	}
	ab_sha256_final(sha256, s.h);
	return error;
}

int
ab_download_copy_fd(char sha256[65], const char *src, int fd, const char *name)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	int error;

	if (in < 0) {
		ab_error_errno("cannot open '%s'", src);
		return AB_EFAIL;
	}
	error = copy_fd(sha256, in, src, fd, name);
	close(in);
	return error;
}

int
ab_download_copy(char sha256[65], const char *src, const char *dest)
{
	int in = open(src, O_RDONLY | O_CLOEXEC);
	int fd, error;

	if (in < 0) {
		ab_error_errno("cannot open '%s'", src);
		return AB_EFAIL;
	}
	if ((fd = create(dest)) < 0) {
		close(in);
		return AB_EFAIL;
	}
	error = finish(fd, dest, copy_fd(sha256, in, src, fd, dest));
	close(in);
	return error;
}
