/*
 * frag: the default recipe's benchmark program (recipes/jemalloc-5.3.0-policy.json,
 * docs/runs.md "A worked example"), linked against each jemalloc archive
 * the recipe builds. It allocates the same seeded pattern whatever the
 * allocator's settings, so that a difference between labels is the
 * allocator's:
 *
 *   1. a working set: 256 blocks of 4 to 260 KiB, kept;
 *   2. 8 blocks of 4 MiB, freed: free extents far larger than what follows;
 *   3. 256 blocks of 16 to 48 KiB.
 *
 * Each block's pages are written. jemalloc reuses a free extent for a
 * request only when it is at most 2^lg_extent_max_active_fit times larger
 * (64 times by default): stock53 maps new pages for step 3 while the 4 MiB
 * extents stay resident, lg_extent_max_active_fit:30 (special53, fit-only)
 * carves step 3 out of them. Then frag prints "held" (the measured window
 * starts: run --mark-start '^held$'), keeps its blocks for a moment,
 * reports its figures as ALLOCBUILD_METRIC lines (docs/runs.md, "Figures
 * of the benchmark") and prints "done" (the window ends: --mark '^done$'):
 *
 *   allocs_per_s   allocations a second over the three steps
 *   resident_mib   jemalloc's stats.resident while the blocks are held
 *   frag_pct       the resident bytes that hold no allocation, in percent
 *
 * No argument; the figures of jemalloc come from mallctl, so it needs the
 * jemalloc it is linked with (unprefixed). It prints nothing of its own
 * environment or paths.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int mallctl(const char *name, void *oldp, size_t *oldlenp, void *newp, size_t newlen);

#define BLOCKS 256
#define BIG 8
#define BIG_SIZE ((size_t)4 << 20)
#define PAGE 4096
#define HOLD_MS 300

/* xorshift64*: the same sizes on every run */
static uint64_t
next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* a block of size bytes with each page written, or exit 1 */
static char *
block(size_t size)
{
	char *p = malloc(size);

	if (!p) {
		fprintf(stderr, "frag: out of memory at %zu bytes\n", size);
		exit(1);
	}
	for (size_t i = 0; i < size; i += PAGE)
		p[i] = (char)i;
	p[size - 1] = 1;
	return p;
}

/* a jemalloc statistic in bytes, refreshed; -1 when it cannot be read */
static double
stat_bytes(const char *name)
{
	uint64_t epoch = 1;
	size_t v = 0, n = sizeof(v), en = sizeof(epoch);

	if (mallctl("epoch", &epoch, &en, &epoch, en) || mallctl(name, &v, &n, NULL, 0))
		return -1;
	return (double)v;
}

int
main(void)
{
	static char *set[BLOCKS], *big[BIG], *small[BLOCKS];
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	struct timespec hold = {HOLD_MS / 1000, (HOLD_MS % 1000) * 1000000L};
	double t0, t1, resident, allocated;

	t0 = now_s();
	for (int i = 0; i < BLOCKS; i++)
		set[i] = block((4 + next(&seed) % 257) * 1024);
	for (int i = 0; i < BIG; i++)
		big[i] = block(BIG_SIZE);
	for (int i = 0; i < BIG; i++)
		free(big[i]);
	for (int i = 0; i < BLOCKS; i++)
		small[i] = block((16 + next(&seed) % 33) * 1024);
	t1 = now_s();
	printf("held\n");
	fflush(stdout);
	nanosleep(&hold, NULL);
	resident = stat_bytes("stats.resident");
	allocated = stat_bytes("stats.allocated");
	printf("ALLOCBUILD_METRIC allocs_per_s=%.0f allocs/s\n", (BLOCKS + BIG + BLOCKS) / (t1 > t0 ? t1 - t0 : 1e-9));
	if (resident > 0 && allocated >= 0) {
		printf("ALLOCBUILD_METRIC resident_mib=%.3f MiB\n", resident / (1024.0 * 1024.0));
		printf("ALLOCBUILD_METRIC frag_pct=%.2f %%\n", 100.0 * (resident - allocated) / resident);
	}
	printf("done\n");
	fflush(stdout);
	for (int i = 0; i < BLOCKS; i++) {
		free(set[i]);
		free(small[i]);
	}
	return 0;
}
