/*
 * build_ctx: the state of one run that the parts of the build share, not
 * for other modules (callers use builder/build.h): struct ctx, a variant's
 * scheduling state, and the functions each part offers the others. The
 * parts: build.c (the run: lock, phases, scheduler, the context made and
 * released), build_ctx.c (a variant's record, paths, environments),
 * build_key.c, build_steps.c, build_probe.c, build_record.c,
 * build_runrec.c, build_merge.c.
 *
 * The parts call downwards only: build.c on build_record.c,
 * build_runrec.c, build_key.c and build_steps.c (its worker threads);
 * build_merge.c (a merge of shards) on build.c's context, build_record.c
 * and build_runrec.c; build_record.c on build_key.c and build_probe.c;
 * build_runrec.c on build_key.c; build_probe.c on build_steps.c; all of
 * them on build_ctx.c. The options come from builder/build_opts.h, so that
 * no part includes build.c's own header but build.c and build_merge.c.
 */
#ifndef AB_BUILD_CTX_H
#define AB_BUILD_CTX_H

#include <pthread.h>

#include "../lib/hash.h"
#include "../lib/proc.h"
#include "../provenance/record/record.h"
#include "build_opts.h"
#include "plan.h"
#include "source.h"

enum var_status { V_PENDING, V_RUNNING, V_BUILT, V_UPTODATE, V_FAILED, V_SKIPPED };

/* the scheduling state of a variant; what it records is its ab_variant_record */
struct var_state {
	enum var_status status;
	char key[AB_HEX_LEN + 1];       /* build inputs */
	char probe_key[AB_HEX_LEN + 1]; /* build key plus the runtime environment */
	int need_build, need_probe;
	int updiffed;                   /* its upstream diff was made again in this run */
	int rebuilt;                    /* its binary is built again in this run (runtime_of: its base's) */
	int copied;                     /* --derive: done with its lead's trees (copied, or built clean): a relink
	                                   may write into the lead's build tree */
	pthread_t thread;
	int joined;
};

struct ctx {
	const struct ab_plan *p;
	const struct ab_build_opts *o;
	struct ab_run_record run;    /* run.variants[vi] is the record of p->vars[vi] */
	struct var_state *vs;
	struct ab_fetch_record **fetched; /* by the recipe's source index: the fetch record of this run, or NULL */
	struct ab_toolchain tools;   /* the toolchain record of this run (provenance/record/toolchain.h) */
	char toolchain_key[AB_HEX_LEN + 1];
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_mutex_t source_lock; /* the source module is driven by one thread at a time */
	struct ab_jobserver *js;     /* shared by the make-based build steps, or NULL */
	struct ab_manifest_last *last; /* the last run's manifests, while deciding what is up to date */
	struct ab_netfwd *net;       /* the remote compile cache's forwarder, for sandboxed builds */
	int running, failed;
	int kept;                    /* nothing changed: the OUTDIR's manifests (and signatures) were kept */
	int unsigned_;               /* the signatures of the OUTDIR were removed with its old statement */
	double child_seconds;
};

/* build_ctx.c: a variant's record, paths and environments */
struct ab_variant_record *ab_build_record_of(struct ctx *c, size_t vi);
char *ab_build_rel_to_outdir(const struct ab_plan *p, const char *abs);
void ab_build_fill_env(struct ab_env *env, const struct ab_plan_var *pv);

/* build.c: the run's context (build_merge.c makes one too) */
void ab_build_ctx_init(struct ctx *c, const struct ab_plan *p, const struct ab_build_opts *o);
void ab_build_ctx_release(struct ctx *c);

/* build_key.c: toolchain identity and content keys */
int ab_build_toolchain(struct ctx *c);
const struct ab_fetch_record *ab_build_fetched_of(const struct ctx *c, const struct ab_source *s);
int ab_build_compute_key(struct ctx *c, size_t vi);

/* build_steps.c: running steps, artifacts */
int ab_build_sandbox_dirs(const struct ab_plan *p, const struct ab_plan_var *pv);
void *ab_build_worker(void *arg);

/* build_probe.c: probes and upstream diffs */
int ab_build_probe_variant(struct ctx *c, size_t vi);
int ab_build_upstream_tree(struct ctx *c, const struct ab_step *s);
int ab_build_updiff_variant(struct ctx *c, size_t vi);

/* build_record.c: the variants' records, what is up to date, fetches, the checks after the builds */
void ab_build_record_init(struct ctx *c, size_t vi);
cJSON *ab_build_definition_json(const struct ab_variant *v);
int ab_build_decide_all(struct ctx *c);
int ab_build_fetch_unpinned(struct ctx *c);
int ab_build_fetch_needed(struct ctx *c);
void ab_build_record_fetched(struct ctx *c);
void ab_build_check_variants(struct ctx *c, int *probe_bad);
int ab_build_write_states(struct ctx *c);

/* build_runrec.c: the run record and the manifests */
void ab_build_run_init(struct ctx *c);
/*
 * each record's base and from as indexes into the run record
 * (base_ix, from_ix), from the plan's resolution of the labels, once the
 * records are settled (a record taken from state.json or a shard replaces
 * the whole struct): the manifests and the table look no label up
 */
void ab_build_link_records(struct ctx *c);
int ab_build_manifests(struct ctx *c);
int ab_build_write_manifests(struct ctx *c);

#endif
