#include "allocver.h"

#include <ctype.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/util.h"

int
ab_jemalloc_version_is_bogus(const char *version)
{
	const char *s = version;
	size_t n;

	if (!s)
		return 0;
	while (isspace((unsigned char)*s))
		s++;
	n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		n--;
	if (n == strlen(AB_JEMALLOC_BOGUS_VERSION) && !strncmp(s, AB_JEMALLOC_BOGUS_VERSION, n))
		return 1;
	return n >= 9 && !strncmp(s, "0.0.0-0-g", 9);
}

static int
is_version_char(int c)
{
	return isalnum(c) || c == '_';
}

/* does p[0..n) hold "X.Y.Z-N-g" ending right before p + n? returns its start or NULL */
static const char *
version_start(const char *base, const char *g)
{
	const char *s = g; /* points at '-' of "-g" */
	int dots = 0;

	/* N */
	if (s <= base || !isdigit((unsigned char)s[-1]))
		return NULL;
	while (s > base && isdigit((unsigned char)s[-1]))
		s--;
	if (s <= base || s[-1] != '-')
		return NULL;
	s--;
	/* X.Y.Z */
	for (;;) {
		const char *e = s;

		while (s > base && isdigit((unsigned char)s[-1]))
			s--;
		if (s == e)
			return NULL;
		if (dots == 2)
			break;
		if (s <= base || s[-1] != '.')
			return NULL;
		s--;
		dots++;
	}
	/* not the tail of a longer token */
	if (s > base && (isalnum((unsigned char)s[-1]) || s[-1] == '.'))
		return NULL;
	return s;
}

int
ab_allocver_scan(char **version, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	const char *m, *p, *end;

	*version = NULL;
	if (fd < 0) {
		ab_error_errno("cannot open '%s'", path);
		return AB_EFAIL;
	}
	if (fstat(fd, &st) < 0) {
		ab_error_errno("cannot stat '%s'", path);
		close(fd);
		return AB_EFAIL;
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		ab_error_errno("cannot map '%s'", path);
		return AB_EFAIL;
	}
	end = m + st.st_size;
	for (p = m; p + 2 < end && !*version; p++) {
		const char *g = memchr(p, '-', (size_t)(end - p));
		const char *s, *e;

		if (!g || g + 2 >= end)
			break;
		p = g;
		if (g[1] != 'g')
			continue;
		s = version_start(m, g);
		if (!s)
			continue;
		e = g + 2;
		while (e < end && is_version_char((unsigned char)*e))
			e++;
		if (e - (g + 2) < 7)
			continue;
		*version = ab_strndup(s, (size_t)(e - s));
	}
	munmap((void *)m, (size_t)st.st_size);
	return 0;
}
