#include "allocver.h"

#include <ctype.h>
#include <string.h>

#include "../../lib/util.h"

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
ab_allocver_scan_mem(char **version, const void *data, size_t len)
{
	const char *m = data, *p, *end = m + len;

	*version = NULL;
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
	return 0;
}

int
ab_allocver_scan(char **version, const char *path)
{
	const unsigned char *map;
	size_t size;
	int r = ab_map_file(&map, &size, path);

	*version = NULL;
	if (r != 0)
		return r < 0 ? AB_EFAIL : 0;
	ab_allocver_scan_mem(version, map, size);
	ab_unmap_file(map, size);
	return 0;
}

char *
ab_mimalloc_version_string(long v)
{
	/* MI_MALLOC_VERSION: 209, 217 (2.1.7), 316, 3208 (3.2.8), 20401, 30403 */
	if (v <= 0)
		return NULL;
	if (v < 1000)
		return ab_sprintf("%ld.%ld.%ld", v / 100, v / 10 % 10, v % 10);
	if (v < 10000)
		return ab_sprintf("%ld.%ld.%ld", v / 1000, v / 100 % 10, v % 100);
	return ab_sprintf("%ld.%ld.%ld", v / 10000, v / 100 % 100, v % 100);
}
