#include "hash.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../builder/util.h"

struct ab_sha256 {
	EVP_MD_CTX *ctx;
};

struct ab_sha256 *
ab_sha256_new(void)
{
	struct ab_sha256 *h = ab_malloc(sizeof(*h));

	h->ctx = EVP_MD_CTX_new();
	if (!h->ctx || EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL) != 1) {
		fputs("allocbuild: cannot initialise SHA-256\n", stderr);
		abort();
	}
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
	static const char digits[] = "0123456789abcdef";
	unsigned char md[32];
	unsigned int len = 0;

	EVP_DigestFinal_ex(h->ctx, md, &len);
	for (unsigned i = 0; i < 32; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[AB_HEX_LEN] = '\0';
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
ab_hash_file(char hex[AB_HEX_LEN + 1], uint64_t *size, const char *path)
{
	enum { BUFSZ = 1 << 18 };
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct ab_sha256 *h;
	uint64_t total = 0;
	char *buf;
	ssize_t n;

	if (fd < 0) {
		ab_error_errno("cannot open '%s'", path);
		return -1;
	}
	posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);
	buf = ab_malloc(BUFSZ);
	h = ab_sha256_new();
	while ((n = read(fd, buf, BUFSZ)) != 0) {
		if (n < 0) {
			if (errno == EINTR)
				continue;
			ab_error_errno("cannot read '%s'", path);
			ab_sha256_final(hex, h);
			free(buf);
			close(fd);
			return -1;
		}
		ab_sha256_update(h, buf, (size_t)n);
		total += (uint64_t)n;
	}
	ab_sha256_final(hex, h);
	free(buf);
	close(fd);
	if (size)
		*size = total;
	return 0;
}
