/*
 * record: what a build records, typed. One struct ab_variant_record per
 * variant and one struct ab_run_record for the run: builder/build's parts
 * fill them from the plan and as the steps run (build_record.c,
 * build_steps.c, build_runrec.c), cli/buildtable.c's final table reads them,
 * and provenance/record/manifest.c writes every manifest from them
 * (docs/manifests.md).
 *
 * A variant's record is also OUTDIR/variants/<label>/state.json, what a
 * later run's up-to-date check reads back: ab_variant_record_json() and
 * ab_variant_record_load() are the only conversions between a record and
 * JSON, and the manifests use the same serializers for the parts they
 * carry (ab_record_runtime_json, ab_record_allocator_json,
 * ab_record_artifacts_json).
 *
 * What the build decides on and reads back is typed: the keys, ok, the
 * artifacts and their digests, and the records of the modules that make
 * them, each with one serializer (struct -> cJSON, where a file is
 * written) and one parser (cJSON -> struct, where state.json or a shard is
 * read), beside its struct:
 *   probe      struct ab_probe_result (provenance/record/proberesult.h): allocator,
 *              version, secure level, verdict, problems, overrides, beside
 *              the probe's report as it is written
 *   cargo      struct ab_cargo_record (provenance/record/cargoprov.h): Cargo.lock's
 *              digest, the crates, the jemalloc a crate bundles
 *   fetched    struct ab_fetch_set of struct ab_fetch_record
 *              (provenance/record/fetchrec.h): each source's commit and tree,
 *              sha256 or dirHash, and origin; the run's sources too
 *   toolchain  the run's struct ab_tool_ids (provenance/record/toolchain.h): each
 *              tool's --version line and digest
 * Documents other modules shape and the build only carries stay cJSON
 * payloads owned by the record: materialize records (builder/source.h),
 * step records, relink documents, CMake records,
 * upstream-diff reports, a variant's toolchain record.
 *
 *   struct ab_variant_record v = {0};       or ab_variant_record_load(&old, path)
 *   ... fill it ...
 *   cJSON *state = ab_variant_record_json(&v);
 *   ab_variant_record_release(&v);
 */
#ifndef AB_RECORD_H
#define AB_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include <cjson/cJSON.h>

#include "../../lib/hash.h"
#include "../../lib/places.h"
#include "../../lib/util.h"
#include "cargoprov.h"
#include "fetchrec.h"
#include "proberesult.h"
#include "toolchain.h"

struct ab_artifact_record {
	char *path;              /* relative to OUTDIR */
	char *artifact;          /* as the recipe names it, relative to the build dir */
	uint64_t size;
	char sha256[AB_HEX_LEN + 1];
	int allocator_archive;   /* it is the allocator archive of the variant */
	char *allocator_version; /* the version string in its bytes (provenance/alloc/allocver.h), or NULL */
	int bogus_version;       /* ab_jemalloc_version_is_bogus(allocator_version) */
	cJSON *parts;            /* its fingerprint (provenance/tree/artdiff.h), or NULL */
};

/* an artifact of another variant that a build variant used ({variant:LABEL:PATH}, builder/varref.h) */
struct ab_use_record {
	char *variant;               /* the label used */
	char *artifact;              /* as the recipe names it, relative to that variant's build dir */
	char *path;                  /* relative to OUTDIR; NULL when that variant has no such record */
	char sha256[AB_HEX_LEN + 1]; /* "" with path NULL */
};

#define AB_RECORD_NONE ((size_t)-1)

struct ab_variant_record {
	char *label;
	char *kind;          /* "autotools", "cmake", "relink", "runtime_of" */
	char *base;          /* the variant that built its binary: itself unless runtime_of */
	char key[AB_HEX_LEN + 1];       /* the content key of its build inputs */
	char probe_key[AB_HEX_LEN + 1]; /* the key plus the runtime environment; "" until set */
	char *dir;           /* OUTDIR/variants/<label>, relative to OUTDIR */
	char *artifact_dir;  /* where its artifacts are, relative to OUTDIR */
	char *source;        /* build variants: the source id */
	char *from;          /* relink variants: the variant relinked */
	/*
	 * base's and from's records as indexes into the run record's variants,
	 * set once when the run record is assembled (from the plan's, which
	 * resolved the labels); AB_RECORD_NONE when none or not in the run
	 */
	size_t base_ix, from_ix;
	struct {
		char *kind;      /* NULL when its base names no allocator; then the others are NULL too */
		char *archive, *vendored, *upstream; /* each may be NULL */
	} allocator;
	struct ab_kvlist runtime_env; /* what it runs with */
	struct ab_list runtime_unset;
	int ok;              /* built or up to date, probed and compared: what a later run may trust */
	/*
	 * the places of the build that made it (lib/places.h: its OUTDIR,
	 * current directory, HOME), owned: its paths name them, and the
	 * manifests hide them, wherever the record is read (a copied OUTDIR,
	 * a merge's shard); none in a record from before
	 */
	struct ab_places places;

	struct ab_artifact_record *artifacts;
	size_t nartifacts;
	int have_artifacts;  /* hashed (there may be none) */
	struct ab_use_record *uses; /* the artifacts of other variants it used; made by each run, not in state.json */
	size_t nuses;

	struct ab_fetch_set fetched; /* source id -> fetch record of the sources its tree is made of (provenance/record/fetchrec.h) */
	cJSON *steps;        /* its step records, in order; NULL when none ran */
	cJSON *tree;         /* the materialize record of its source tree */
	cJSON *relink;       /* relink variants: the relink document */
	cJSON *cmake;        /* cmake variants: the CMake record */
	struct ab_cargo_record *cargo; /* cargo variants: what Cargo.lock resolved (provenance/record/cargoprov.h), or NULL */
	struct ab_probe_result *probe; /* the probe's verdict and record (provenance/record/proberesult.h), or NULL */
	cJSON *upstream_diff;
	cJSON *reproducible; /* what was done for path independence (builder/ccwrap.h), {"enabled": ...} */
	cJSON *sandbox;      /* where its steps ran (builder/isolation.h), {"enabled": ...}; NULL in a record
	                        from before the sandbox */
	struct ab_toolchain toolchain; /* the tools it was built with (provenance/record/toolchain.h); not present: none */
	cJSON *host_probes;  /* jemalloc's measurements of the build host (provenance/alloc/hostprobe.h), or NULL */
	cJSON *ccache;       /* what ccache did for its compiles (provenance/record/ccstats.h), or NULL */
	char *compile_log;   /* its compile log (builder/ccwrap.h), relative to OUTDIR, or NULL */
	cJSON *objects;      /* the objects its build left in its tree, from its compile log
	                        (provenance/record/objset.h): {count, sha256}, or NULL */
	char *derived_from;  /* the variant whose finished trees its build started from (build --derive,
	                        builder/derive.h), or NULL: built from a fresh tree */
	cJSON *definition;   /* the variant as the recipe defines it, for build-commands.json; not in state.json */

	/* for the field order of state.json (ab_variant_record_json) */
	int loaded;          /* read back from an earlier run's state.json */
	int updiff_new;      /* upstream_diff was made in this run */
};

/* a resolvedDependency of the statement: a source as fetched */
struct ab_dependency {
	char *name;
	char *uri;
	const char *digest_kind; /* "gitCommit", "sha256" or "dirHash" (static) */
	char *digest;
	char *used_by;           /* another variant's artifact: the label of the variant that used it; else NULL (uri NULL too) */
};

struct ab_run_record {
	struct {
		char *name, *path, *sha256;
	} recipe;
	char *outdir;        /* absolute */
	char *write_dir;     /* where the manifests are written, when not outdir (a merge: renamed to outdir after) */
	char invocation_id[37];
	char started_on[32], finished_on[32]; /* UTC, ISO 8601 */
	struct {
		int jobs, parallel_variants, jobserver, ccache, keep_going, force;
		int sandbox;         /* not --no-sandbox: variants run in the build sandbox unless their recipe says not */
		const char *source_date_epoch; /* static */
		char *ccache_remote; /* with ccache: its remote storage in effect (password redacted), or NULL */
		char *ccache_dir;    /* with ccache: its local cache directory in effect, or NULL */
	} options;
	struct ab_tool_ids toolchain; /* the tools' identities (internalParameters; provenance/record/toolchain.h) */
	struct ab_fetch_set sources; /* source id -> fetch record: this run's fetches, else what the variants recorded */
	struct ab_variant_record *variants; /* in the plan's order */
	size_t nvariants;
	struct ab_dependency *deps;
	size_t ndeps;
	cJSON *documents;    /* manifest path -> a document other modules shaped (sources.json, ...) */
	const char *recipe_text; /* the bytes of recipe.json (not owned), or NULL: read recipe_file */
	size_t recipe_len;
	char *recipe_file;   /* what recipe.json is copied from when there is no text; NULL: recipe.path (a merge: a shard's copy) */
	cJSON *object_comparison; /* [ab_objset_compare of two variants of one source], or NULL */
	cJSON *merge;        /* a merge of shards (builder/merge.h): what it merged, for the statement; else NULL */
	/*
	 * the invocation ids of the earlier builds of this OUTDIR (the last
	 * statement's, then those it named), whose run records it keeps: a
	 * run record names one of them or this build's, else it is another
	 * OUTDIR's (provenance/runs/runrec.h)
	 */
	struct ab_strv earlier_invocations;
	/* the files of OUTDIR/inputs (builder/inputs.h), relative to OUTDIR: byproducts of the build */
	struct ab_strv inputs;
};

/* free what an artifact record holds */
void ab_artifact_record_release(struct ab_artifact_record *a);
/* the record's probe; takes probe (NULL: none) */
void ab_variant_record_set_probe(struct ab_variant_record *v, struct ab_probe_result *probe);
/* a copy of the n artifact records of from into v (a runtime_of variant has its base's) */
void ab_variant_record_copy_artifacts(struct ab_variant_record *v, const struct ab_variant_record *from);
/* do this record's artifact digests still match the files below outdir? */
int ab_variant_record_artifacts_intact(const struct ab_variant_record *v, const char *outdir);
/*
 * The SHA-256 of the allocator archive in a variant's binary: its own
 * allocator archive artifact; for a diagnostic relink (v->relink), the
 * archive of its base variant's record `from`, or the archive that
 * replaced that one in the link. NULL when unknown.
 */
const char *ab_variant_record_archive_sha256(const struct ab_variant_record *v,
    const struct ab_variant_record *from);
/* was it built path-independently ("reproducible": {"enabled"}; a record without one: no) */
int ab_variant_record_reproducible(const struct ab_variant_record *v);
/* did its steps run in the build sandbox ("sandbox": {"enabled"}; a record without one: no) */
int ab_variant_record_sandboxed(const struct ab_variant_record *v);
/*
 * The members other modules shape (steps, tree), read back through these
 * and nowhere else: the logs its steps wrote (paths relative to OUTDIR, in
 * step order) appended to out; the sha256 its tree record gives the patch
 * at path (as the recipe names it), or NULL when it applied none there
 */
void ab_variant_record_step_logs(const struct ab_variant_record *v, struct ab_strv *out);
const char *ab_variant_record_patch_sha256(const struct ab_variant_record *v, const char *path);
/* run's record at index ix (a base_ix or from_ix), or NULL for AB_RECORD_NONE */
const struct ab_variant_record *ab_run_record_at(const struct ab_run_record *run, size_t ix);
/*
 * The run's resolvedDependencies: one more entry, zeroed, at the end; the
 * artifacts its variants used of others (each use with a path, in variant
 * order); a cargo variant's Cargo.lock and every crate it locked, each
 * once (a crate by its checksum, else by its directory's dirHash: Debian's
 * crates have none)
 */
struct ab_dependency *ab_run_record_dependency(struct ab_run_record *run);
void ab_run_record_use_deps(struct ab_run_record *run);
void ab_run_record_cargo_deps(struct ab_run_record *run, const struct ab_cargo_record *cargo, const char *label);

/* state.json: the record as one document (caller frees with cJSON_Delete) */
cJSON *ab_variant_record_json(const struct ab_variant_record *v);
/*
 * Read an earlier run's state.json into *out (ab_variant_record_free).
 * *out is NULL when there is none, or it is not a record (a broken state
 * is built again, not an error): 0, or AB_EFAIL after reporting that an
 * existing file cannot be read.
 */
int ab_variant_record_load(struct ab_variant_record **out, const char *path);
/* the same from a parsed document; NULL when it is not a record */
struct ab_variant_record *ab_variant_record_parse(const cJSON *state);

/* the parts of a record the manifests carry as they are (callers free) */
cJSON *ab_record_runtime_json(const struct ab_variant_record *v);   /* {"env": {...}, "unset": [...]} */
cJSON *ab_record_allocator_json(const struct ab_variant_record *v); /* {} or {"kind", ...} */
cJSON *ab_record_artifacts_json(const struct ab_variant_record *v);

void ab_variant_record_release(struct ab_variant_record *v);
void ab_variant_record_free(struct ab_variant_record *v);
void ab_run_record_release(struct ab_run_record *run);

#endif
