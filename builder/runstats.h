/*
 * runstats: `run --allocator-stats` (docs/runs.md, "The allocator's own
 * statistics"). Each label's allocator, as its build's probe found it
 * (allocator-probes.json), is asked for its statistics at exit through its
 * registry row (provenance/alloc/allocstats.h): a setting in its
 * environment, which the record keeps with the variables set; after the
 * run, the figures are read back out of the run's log into the record
 * (predicate.allocator_stats, in bytes) and into its figures as
 * ALLOCATOR.FIGURE_mib (MiB, lower is better), so that compare and pr
 * show them beside RSS. A label whose allocator reports none is refused
 * before the first run.
 */
#ifndef AB_RUNSTATS_H
#define AB_RUNSTATS_H

#include "../lib/proc.h"
#include "../provenance/record/manifest.h"
#include "../provenance/runs/metrics.h"
#include "../provenance/runs/runrec.h"

struct ab_allockind;

struct ab_runstats {
	const struct ab_allockind *kind;
	char *variable;    /* the variable set */
};

/* label's allocator and its variable, from its runtime rt; AB_EFAIL (reported) when it reports none */
int ab_runstats_resolve(struct ab_runstats *s, const struct ab_manifest_runtime *rt, const char *label);
/* the setting into e, joined to the variable's value there when the allocator's option joins */
void ab_runstats_env(const struct ab_runstats *s, struct ab_env *e);
/*
 * The figures out of the log into out (names and strings static or s's:
 * valid while s is) and into m; a run without them is warned about
 * (label, the log) and recorded with why
 */
void ab_runstats_read(struct ab_runrec_allocstats *out, struct ab_metrics *m, const struct ab_runstats *s,
    const char *log_path, const char *log_shown, const char *label);
void ab_runstats_release(struct ab_runstats *s);

#endif
