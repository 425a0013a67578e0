/*
 * build_opts: the options of a build (struct ab_build_opts) and what a
 * build that ran to its end hands its caller (struct ab_build_outcome).
 * Callers take them from builder/build.h, which includes this; the parts
 * of the build (builder/build_ctx.h) take them from here, so that none of
 * them includes build.c's own header.
 */
#ifndef AB_BUILD_OPTS_H
#define AB_BUILD_OPTS_H

struct ab_plan;
struct ab_run_record;
struct ab_source_opts;

/* what a build that ran to its end shows its command (cli/buildtable.c prints it as the final table) */
struct ab_build_outcome {
	const struct ab_plan *plan;
	const struct ab_run_record *run; /* run->variants[vi] is the record of plan->vars[vi] */
	const int *compiled;             /* per plan->vars: compiled in this run (its ccache figures are this run's) */
	int signatures_removed;          /* OUTDIR's signatures went with its old statement: sign again */
	int signatures_kept;             /* nothing changed, and OUTDIR's signatures stand */
};

struct ab_build_opts {
	const struct ab_source_opts *src;
	int keep_going;  /* a failed variant does not stop the others */
	int force;       /* rebuild even when up to date */
	int have_lock;   /* the caller holds OUTDIR's lock (ab_build_lock) */
	/* called when the build ran to its end (any variant failed or not), before the lock is let go; NULL: none */
	void (*finished)(const struct ab_build_outcome *out);
};

#endif
