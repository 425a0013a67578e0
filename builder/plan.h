/*
 * plan: turn a recipe and the command-line options into the ordered steps
 * of a build. `allocbuild plan` prints the plan and `allocbuild build`
 * executes the very same one, so what plan shows is what build runs.
 *
 * Calling protocol:
 *   struct ab_plan_opts o = {.outdir = NULL, .jobs = 0};
 *   struct ab_plan *p;
 *   if (ab_plan_make(&p, recipe, &o, labels, nlabels) < 0) ...  reported
 *   ab_plan_print(stdout, p);            or ab_build_run(p, ...)
 *   ab_plan_free(p);
 *
 * Steps are numbered 1..nsteps in the order plan prints them; the progress
 * lines of a build use the same numbers. Paths in the plan are absolute.
 */
#ifndef AB_PLAN_H
#define AB_PLAN_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "recipe.h"
#include "../lib/netfwd.h"
#include "../lib/sandbox.h"
#include "../lib/util.h"

enum ab_step_kind {
	AB_STEP_FETCH,     /* a source's pinned bytes into the cache */
	AB_STEP_UPSTREAM,  /* a fresh tree of an upstream source, for upstream-diff */
	AB_STEP_SOURCE,    /* a fresh source tree for a variant: patches, overlays, prepare */
	AB_STEP_CONFIGURE, /* autotools configure or cmake -S -B */
	AB_STEP_BUILD,     /* make or cmake --build */
	AB_STEP_RELINK,    /* relink variant: the from-variant's link.txt with other archives */
	AB_STEP_PROBE,     /* allocator probe of the variant's artifacts */
	AB_STEP_UPDIFF,    /* vendored allocator against its upstream source */
	AB_STEP_MANIFESTS, /* provenance/ and SHA256SUMS */
};

/* an index into plan->vars or plan->steps that is none */
#define AB_PLAN_NONE ((size_t)-1)

struct ab_step {
	enum ab_step_kind kind;
	size_t var;                    /* index into plan->vars, or AB_PLAN_NONE */
	const struct ab_source *source;/* FETCH, UPSTREAM, SOURCE */
	char *name;                    /* short, for progress: "make build_lib_static" */
	struct ab_strv argv;           /* CONFIGURE, BUILD: what is executed */
	char *cwd;                     /* its working directory */
	char *log;                     /* its log file */
	char *dir;                     /* UPSTREAM: destination tree */
	int jobserver;                 /* BUILD: holds one token of the run's jobserver while it runs */
	struct ab_strv env;            /* BUILD: "K=V" for this step only, on top of the variant's env
	                                  (MAKEFLAGS with AB_JOBSERVER_FDS); not part of the content key */
	struct ab_strv unset;          /* BUILD: names removed for this step only */
};

struct ab_plan_var {
	const struct ab_variant *v;
	size_t index;         /* into recipe->variants */
	const struct ab_variant *base; /* runtime_of: the variant that built the binary; else v */
	const struct ab_variant *probe_from; /* whose probe settings apply: v's own, else base's, else a relink's from's */
	const struct ab_variant *alloc_from; /* whose allocator it has: base's, or a relink's from's when it names none */
	char *dir;            /* OUTDIR/variants/<label> */
	char *src, *build, *logs, *probe;
	char *artdir;         /* where its artifacts are: the base variant's build dir */
	int sandboxed;        /* its steps run in the build sandbox (builder/isolation.h) */
	struct ab_sandbox sb; /* that sandbox (empty when not sandboxed) */
	/* what its steps see of src, build (a relink: its from's build), logs and probe:
	   the fixed paths when sandboxed, else the real ones */
	const char *in_src, *in_build, *in_logs, *in_probe;
	/* sandboxed: the files of logs its steps write (the compile log, ccache's statistics log), bound
	   writable in a logs directory they cannot otherwise write, made empty before its first step */
	struct ab_strv log_files;
	int jobs;             /* make / cmake --build -j; with the jobserver: what it may reach */
	struct ab_strv env;   /* "K=V" set for configure and build on top of the scrubbed base */
	int reproducible;     /* compiled path-independently: its own "reproducible", or for a relink or
	                         runtime_of that of every variant it uses */
	int ccwrap;           /* its compiles and archives go through the compiler wrapper */
	struct ab_strv ccflags; /* what the compiler wrapper adds (builder/ccwrap.h); empty when none */
	size_t first_step, nsteps; /* its SOURCE .. RELINK steps (indexes into steps) */
	size_t probe_step, updiff_step; /* AB_PLAN_NONE when none */
	struct ab_strv artifacts; /* paths relative to the build dir (base's for runtime_of) */
	size_t *deps;         /* indexes into plan->vars this variant waits for (ab_recipe_variant_deps) */
	size_t ndeps;
	size_t derive_from;   /* --derive: the earlier variant whose finished trees it starts from, when that one is
	                         built in this run (builder/derive.h); else AB_PLAN_NONE */
	char *derive_why;     /* --derive: why it is built clean although an earlier variant has its source, or NULL */
	size_t lead;          /* with ccache: the first build variant of the same source, whose build step its
	                         own waits for (the objects they share compiled once); else AB_PLAN_NONE */
	/* the labels v names, resolved once when planned: indexes into plan->vars (AB_PLAN_NONE: not in the plan) */
	size_t base_vi;       /* base's */
	size_t from_vi;       /* a relink's from variant's; AB_PLAN_NONE for others */
	size_t *with_vi;      /* per v->relink.replace: its with_variant's, AB_PLAN_NONE for a path */
	size_t *uses_vi;      /* per v->uses: the variant whose artifact it uses */
};

struct ab_plan_opts {
	const char *outdir;   /* NULL: ./allocbuild-out/<recipe name> */
	int jobs;             /* -j; 0: online cores */
	int ccache;           /* --ccache: compile through ccache */
	const char *ccache_remote; /* --ccache-remote URL: ccache's remote storage (implies --ccache); "": none */
	const char *ccache_dir;    /* --ccache-dir DIR: its local cache (implies --ccache) */
	int no_sandbox;       /* --no-sandbox: no variant runs in the build sandbox */
	int derive;           /* --derive: a variant that differs from an earlier one only in its settings starts
	                         from a copy of its trees (builder/derive.h) */
};

struct ab_plan {
	const struct ab_recipe *r;
	char *outdir;         /* absolute */
	int jobs;             /* the job budget */
	int parallel;         /* variants built at once */
	int jobserver;        /* tokens of the jobserver shared by make-based builds; 0: none */
	int ccache;
	char *ccache_remote;  /* CCACHE_REMOTE_STORAGE of the children ("": none), or NULL (ccache's own configuration) */
	char *ccache_dir;     /* CCACHE_DIR of the children (absolute), or NULL (inherited, else ccache's default) */
	char *ccwrap;         /* OUTDIR/ccwrap: the compiler wrapper's links, when a variant uses them; else NULL */
	int sandbox;          /* a variant runs in the build sandbox */
	int no_sandbox;       /* --no-sandbox */
	int derive;           /* --derive */
	char *self;           /* the allocbuild binary (a sandbox's /allocbuild/bin/allocbuild) */
	char *ccache_real;    /* with ccache in a sandbox: the local cache directory bound into it */
	char *ccache_remote_inside; /* ccache_remote as a sandboxed ccache reaches it (builder/isolation.h) */
	struct ab_cacheproto_remote *net; /* the remote addresses allocbuild forwards the sandboxes' loopback to */
	size_t nnet;
	char *net_dir;        /* where the forwarder's sockets are made (when nnet) */
	struct ab_strv remote_paths; /* file: and redis+unix: storages, shown in the sandboxes */
	struct ab_step *steps;
	size_t nsteps;
	struct ab_plan_var *vars; /* the selected variants in dependency order */
	size_t nvars;
	struct ab_strv manifests; /* paths relative to OUTDIR */
};

/* build the plan for the given labels (all when nlabels is 0); reports errors */
/*
 * For a build that must compile everything again (build --check's second
 * build, rebuild): ccache as the first build used it (used) when ccache
 * changes the bytes (without the sandbox it hands the compiler paths under
 * CCACHE_BASEDIR made relative, which __FILE__ and the debug info keep;
 * ab_plan_ccache_changes_bytes), but with an empty
 * private local cache, a new directory *dir under TMPDIR, and no remote
 * storage, so that nothing comes from an earlier build. The caller
 * removes and frees *dir (NULL when unused). 0, or AB_EFAIL (reported).
 */
int ab_plan_opts_fresh_ccache(struct ab_plan_opts *po, char **dir, int used);
/*
 * Does compiling through ccache change a variant's bytes in this plan? Not
 * in the sandbox (the fixed paths need no rewriting): only when a variant
 * runs without it
 */
int ab_plan_ccache_changes_bytes(const struct ab_plan *p);
int ab_plan_make(struct ab_plan **out, const struct ab_recipe *r, const struct ab_plan_opts *o,
    char *const *labels, size_t nlabels);
/* print every step with its argv (shell-quoted) and cwd */
void ab_plan_print(FILE *f, const struct ab_plan *p);
/*
 * The same as a document (plan --json): recipe {name, path, sha256},
 * outdir, jobs, parallel, jobserver, ccache, sandbox, and steps [{n, kind,
 * label (or null), name, source, dir, argv, cwd, env, unset, sandboxed}]
 * (what a step does not have is null or empty); caller frees
 */
cJSON *ab_plan_json(const struct ab_plan *p);
void ab_plan_free(struct ab_plan *p);

/*
 * A recipe string with its {variant:LABEL:PATH} references replaced by the
 * artifacts' absolute paths (builder/varref.h); caller frees
 */
char *ab_plan_expand(const struct ab_plan *p, const char *s);
/* the same as pv's steps see them: in pv's sandbox, /allocbuild/variants/LABEL/build/PATH */
char *ab_plan_expand_for(const struct ab_plan *p, const struct ab_plan_var *pv, const char *s);

/* the index into p->vars of the variant labelled label, or AB_PLAN_NONE: the one label lookup */
size_t ab_plan_var_index(const struct ab_plan *p, const char *label);
/* the variant a step belongs to, or NULL */
const struct ab_plan_var *ab_plan_step_var(const struct ab_plan *p, const struct ab_step *s);
/* "autotools", "cmake", "relink", "runtime_of" */
const char *ab_plan_kind_name(const struct ab_variant *v);
/*
 * What the jobserver's pipe fds are in a step's MAKEFLAGS as planned and
 * recorded: "-j4 --jobserver-auth=<fds>"; the build substitutes "R,W", the
 * fd numbers of this run (docs/build.md).
 */
#define AB_JOBSERVER_FDS "<fds>"
/* the value of SOURCE_DATE_EPOCH given to every child (docs/build.md) */
#define AB_SOURCE_DATE_EPOCH "0"
/* the umask of every child (docs/build.md) */
#define AB_CHILD_UMASK 022

#endif
