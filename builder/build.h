/*
 * build: execute a plan (builder/plan.h). Takes OUTDIR's lock, decides
 * which variants are up to date from their content keys, fetches and
 * materializes sources, runs configure and build (variants in parallel
 * within the job budget), probes the artifacts, and writes every manifest
 * (provenance/record/manifest.h). See docs/build.md.
 *
 *   struct ab_build_opts bo = {.src = &source_opts, .keep_going = 0};
 *   rc = ab_build_run(plan, &bo);      0 all built; AB_ECHECK a variant failed or a
 *                                      probe found a problem; AB_EFAIL bad input,
 *                                      OUTDIR locked, I/O (lib/util.h)
 *
 * Each variant's record (provenance/record/record.h) is filled as it is built and
 * written to variants/<label>/state.json; the manifests are written from
 * the records.
 */
#ifndef AB_BUILD_H
#define AB_BUILD_H

#include <cjson/cJSON.h>

#include "build_opts.h"
#include "plan.h"
#include "../provenance/record/record.h"
#include "source.h"

/* run the plan; 0, AB_ECHECK or AB_EFAIL, every problem reported once */
int ab_build_run(const struct ab_plan *p, const struct ab_build_opts *o);

/*
 * take OUTDIR/.lock (flock, never blocking); *fd receives the descriptor
 * to close when done. Reports "... is locked by another build" and
 * returns AB_EFAIL when held.
 */
int ab_build_lock(int *fd, const char *outdir);

/*
 * What a merge of shards (builder/merge.h) gives to write the manifests of
 * plan p, the whole recipe, as one build of it writes them: the records,
 * one per p->vars (each taken: zeroed after), and what the run record
 * cannot draw from them. dir is where to write them (a temporary beside
 * p's OUTDIR, renamed to it afterwards). A runtime_of variant's record
 * may hold only its label and key (it has no state.json unless probed):
 * the rest is made from the plan and its base's record, as a build does.
 */
struct ab_build_merged {
	const char *dir;
	const char *recipe_path;   /* as the shards recorded it */
	const char *recipe_file;   /* the recipe.json to copy */
	const char *started_on;    /* the earliest shard's */
	const struct ab_strv *inputs; /* the files of inputs/ the shards brought (builder/inputs.h) */
	const cJSON *options;      /* build-commands.json "options" of the first shard */
	const cJSON *toolchain;    /* the statement's internalParameters.toolchain */
	const cJSON *merge;        /* the merge's own record (internalParameters.merge) */
	struct ab_variant_record **records;
};
/* write every manifest from m; 0 or AB_EFAIL (reported) */
int ab_build_write_merged(const struct ab_plan *p, const struct ab_build_merged *m);

#endif
