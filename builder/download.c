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

static int
finish(struct sink *s, char sha256[65], const char *dest)
{
	int error = 0;

	ab_sha256_final(sha256, s->h);
	if (fsync(s->fd) < 0 || close(s->fd) < 0) {
		ab_error_errno("cannot write '%s'", dest);
		error = -1;
	}
	return error;
}

int
ab_download_url(char sha256[65], const char *url, const char *dest)
{
	struct sink s = {.fd = -1};
	char errbuf[CURL_ERROR_SIZE] = "";
	CURL *curl;
	CURLcode rc;
	long status = 0;
	int error = -1;

	ab_download_init();
	s.fd = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (s.fd < 0) {
		ab_error_errno("cannot create '%s'", dest);
		return -1;
	}
	s.h = ab_sha256_new();
	curl = curl_easy_init();
	if (!curl) {
		ab_error("cannot initialise libcurl");
		ab_sha256_final(sha256, s.h);
		close(s.fd);
		return -1;
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
	curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(curl);
	if (finish(&s, sha256, dest) < 0)
		return -1;
	if (rc != CURLE_OK) {
		if (s.failed) {
			errno = s.failed;
			ab_error_errno("cannot write '%s'", dest);
		} else {
			ab_error("cannot download '%s': %s", url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
		}
		goto done;
	}
	error = 0;
done:
	return error;
}

int
ab_download_copy(char sha256[65], const char *src, const char *dest)
{
	struct sink s = {.fd = -1};
	char buf[1 << 16];
	ssize_t n;
	int in = open(src, O_RDONLY | O_CLOEXEC);

	if (in < 0) {
		ab_error_errno("cannot open '%s'", src);
		return -1;
	}
	s.fd = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (s.fd < 0) {
		ab_error_errno("cannot create '%s'", dest);
		close(in);
		return -1;
	}
	s.h = ab_sha256_new();
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ab_error_errno("cannot read '%s'", src);
			close(in);
			finish(&s, sha256, dest);
			return -1;
		}
		if (sink_write(buf, 1, (size_t)n, &s) != (size_t)n) {
			errno = s.failed;
			ab_error_errno("cannot write '%s'", dest);
			close(in);
			finish(&s, sha256, dest);
			return -1;
		}
	}
	close(in);
	return finish(&s, sha256, dest);
}
