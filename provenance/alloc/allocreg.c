#include "allocreg.h"

#include <stdio.h>
#include <string.h>

#include "allocopts.h"
#include "allocstats.h"
#include "allocscan.h"
#include "allocver.h"

/* each allocator's probe operations, in its probe file (provenance/probe/probe_<name>.c) */
extern const struct ab_probe_ops ab_probe_jemalloc_ops, ab_probe_mimalloc_ops, ab_probe_tcmalloc_ops,
    ab_probe_glibc_ops;

static const char *const jemalloc_vars[] = {"MALLOC_CONF", "*_MALLOC_CONF", NULL};
static const char *const mimalloc_vars[] = {"MIMALLOC_*", NULL};
static const char *const tcmalloc_vars[] = {"TCMALLOC_*", NULL};
/* GLIBC_TUNABLES and the tunables' env aliases (elf/dl-tunables.list) */
static const char *const glibc_vars[] = {"GLIBC_TUNABLES", "MALLOC_ARENA_MAX", "MALLOC_ARENA_TEST", "MALLOC_CHECK_",
    "MALLOC_TOP_PAD_", "MALLOC_PERTURB_", "MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "MALLOC_MMAP_MAX_", NULL};

const struct ab_allockind ab_allockinds[] = {
	{
		.name = "jemalloc",
		.vars = jemalloc_vars,
		.detect = 1,
		.releases = ab_jemalloc_releases,
		.scan_version = ab_allocver_scan_mem,
		.scan = ab_allocscan_jemalloc,
		.check_env = ab_allocopts_check_jemalloc,
		.probe = &ab_probe_jemalloc_ops,
		.stats = &ab_allocstats_jemalloc,
	},
	{
		.name = "mimalloc",
		.vars = mimalloc_vars,
		.has_secure = 1,
		.detect = 1,
		.releases = ab_mimalloc_releases,
		.scan = ab_allocscan_mimalloc,
		.check_env = ab_allocopts_check_mimalloc,
		.probe = &ab_probe_mimalloc_ops,
		.stats = &ab_allocstats_mimalloc,
	},
	{
		.name = "tcmalloc",
		.vars = tcmalloc_vars,
		.releases = ab_tcmalloc_releases,
		.scan = ab_allocscan_tcmalloc,
		.check_env = ab_allocopts_check_tcmalloc,
		.probe = &ab_probe_tcmalloc_ops,
	},
	{
		.name = "glibc",
		.vars = glibc_vars,
		.fallback = 1,
		.releases = ab_glibc_releases,
		.check_env = ab_allocopts_check_glibc,
		.probe = &ab_probe_glibc_ops,
	},
	{.name = NULL},
};

const struct ab_allockind *
ab_allockind_find(const char *name)
{
	for (const struct ab_allockind *k = ab_allockinds; name && k->name; k++)
		if (!strcmp(k->name, name))
			return k;
	return NULL;
}

const struct ab_allockind *
ab_allockind_fallback(void)
{
	const struct ab_allockind *k = ab_allockinds;

	while (k->name && !k->fallback)
		k++;
	return k;
}

size_t
ab_allockind_index(const struct ab_allockind *k)
{
	return (size_t)(k - ab_allockinds);
}

const char *
ab_allockind_names(int (*which)(const struct ab_allockind *k), const char *conj)
{
	static char buf[256];
	const struct ab_allockind *pick[AB_ALLOCKIND_MAX];
	size_t n = 0, len = 0;

	for (const struct ab_allockind *k = ab_allockinds; k->name && n < AB_ALLOCKIND_MAX; k++)
		if (!which || which(k))
			pick[n++] = k;
	buf[0] = '\0';
	for (size_t i = 0; i < n && len < sizeof(buf); i++) {
		int w = snprintf(buf + len, sizeof(buf) - len, "%s%s", i == 0 ? "" : i + 1 < n ? ", " : conj,
		    pick[i]->name);

		len += w > 0 ? (size_t)w : 0;
	}
	return buf;
}

static int
var_matches(const char *pattern, const char *var)
{
	size_t p = strlen(pattern), v = strlen(var);

	if (p && pattern[p - 1] == '*')
		return v >= p - 1 && !strncmp(var, pattern, p - 1);
	if (pattern[0] == '*')
		return v >= p && !strcmp(var + v - (p - 1), pattern + 1);
	return !strcmp(pattern, var);
}

int
ab_allockind_reads(const struct ab_allockind *k, const char *var)
{
	for (const char *const *p = k->vars; p && *p; p++)
		if (var_matches(*p, var))
			return 1;
	return 0;
}

int
ab_allockind_any_reads(const char *var)
{
	for (const struct ab_allockind *k = ab_allockinds; k->name; k++)
		if (ab_allockind_reads(k, var))
			return 1;
	return 0;
}
