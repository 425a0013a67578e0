/*
 * build: execute a plan (builder/plan.h). Takes OUTDIR's lock, decides
 * which variants are up to date from their content keys, fetches and
 * materializes sources, runs configure and build (variants in parallel
 * within the job budget), probes the artifacts, and writes every manifest
 * (provenance/manifest.h). See docs/build.md.
 *
 *   struct ab_build_opts bo = {.src = &source_opts, .keep_going = 0};
 *   rc = ab_build_run(plan, &bo);      0 all built, 1 a variant failed,
 *                                      2 bad input or OUTDIR locked
 */
#ifndef AB_BUILD_H
#define AB_BUILD_H

#include "plan.h"
#include "source.h"

struct ab_build_opts {
	const struct ab_source_opts *src;
	int keep_going;  /* a failed variant does not stop the others */
	int force;       /* rebuild even when up to date */
	int table;       /* print the final table on stdout */
};

/* run the plan; returns the exit code (0, 1 or 2); every error reported */
int ab_build_run(const struct ab_plan *p, const struct ab_build_opts *o);

/*
 * take OUTDIR/.lock (flock, never blocking); *fd receives the descriptor
 * to close when done. Reports "... is locked by another build" and
 * returns -1 when held.
 */
int ab_build_lock(int *fd, const char *outdir);

#endif
