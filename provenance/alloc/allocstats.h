/*
 * allocstats: an allocator's own statistics at exit, as `run
 * --allocator-stats` asks for them and reads them back out of what the
 * program printed (docs/runs.md, "The allocator's own statistics").
 *
 * A registry row (allocreg.h) that can report its statistics points to
 * its struct ab_allocstats_ops: the setting that asks for them (a
 * variable, or an option joined to the allocator's conf variable), the
 * option names a policy's not_set knows them by, the figures in the order
 * a record keeps them, and the parser of the printed text:
 *
 * - jemalloc: `stats_print:true,stats_print_opts:Jgadblxeh` in its conf
 *   variable (MALLOC_CONF, or the prefixed one a probe found): at exit,
 *   merged statistics as one JSON document on stderr (about 900 bytes),
 *   without the general part (version, options, size classes) and the
 *   per-arena, bin, large, mutex, extent and HPA tables; the page size is
 *   active bytes over active pages. Its figures are exact; they
 *   include stats_print's own 64 KiB output buffer, which it allocates
 *   before it reads (allocated and metadata 64 KiB more than the program
 *   read just before, active a page more than that).
 * - mimalloc: MIMALLOC_SHOW_STATS=1: at exit, its text table on stderr
 *   (2.0.9 has no JSON form). Amounts are printed to a tenth of their
 *   unit (KiB, MiB, GiB), truncated: a figure is known to that resolution.
 */
#ifndef AB_ALLOCSTATS_H
#define AB_ALLOCSTATS_H

#include <stddef.h>

#define AB_ALLOCSTATS_MAX 12

struct ab_allocstats_ops {
	/* the variable set: NULL for the allocator's conf variable (the probe's conf_var) */
	const char *var;
	/* its value, or the option joined with ',' to a value the variable already has (join set) */
	const char *value;
	int join;
	/* the option names the setting sets (a policy's not_set), NULL-terminated */
	const char *const *options;
	/* the figures, in bytes, in the order a record keeps them, NULL-terminated */
	const char *const *figures;
	/*
	 * the figures out of the program's output text (its last report when
	 * there are several): 0, or -1 with *why (static) when there is none
	 * that parses; resolution[i] is what a figure is known to (0: exact)
	 */
	int (*parse)(double *value, double *resolution, const char *text, size_t len, const char **why);
};

extern const struct ab_allocstats_ops ab_allocstats_jemalloc, ab_allocstats_mimalloc;

/* the number of figures of ops */
size_t ab_allocstats_nfigures(const struct ab_allocstats_ops *ops);

#endif
