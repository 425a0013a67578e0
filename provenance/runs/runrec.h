/*
 * runrec: the record of one run of `allocbuild run` (docs/runs.md), which
 * is also an in-toto Statement: subject the program of `run --program`,
 * else the variant's program (or its allocator archive), predicateType
 * AB_RUN_PREDICATE, the predicate the record itself, with the run's log
 * and JUnit report as its byproducts. It names no path of the author's
 * machine (struct ab_runrec: cwd, outdir_abs).
 *
 * A run's files live in OUTDIR/runs/NAME/, numbered across the runs of
 * that name: NNNN-LABEL.intoto.json (the record), NNNN-LABEL.log,
 * NNNN-LABEL.junit.xml and NNNN-LABEL.series.csv (the sampled series,
 * provenance/runs/series.h). Each is written atomically, the record last, and
 * then listed in SHA256SUMS; the build keeps those lines when it rewrites
 * SHA256SUMS, and verify checks them (provenance/record/manifest.h).
 *
 * One serializer (ab_runrec_statement) and one parser (ab_runrec_parse)
 * of the record, beside its struct.
 */
#ifndef AB_RUNREC_H
#define AB_RUNREC_H

#include <stddef.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "../../lib/hash.h"
#include "../../lib/util.h"
#include "metrics.h"
#include "sampler.h"
#include "series.h"

/* the predicate type of a run record's Statement */
#define AB_RUN_PREDICATE "https://allocbuild.dev/run/v1"
#define AB_RUN_DIR "runs"
/* the variable of run --env-pad: its size varied per repetition, not listed among the variables set */
#define AB_RUN_ENV_PAD "ALLOCBUILD_ENV_PAD"

/* how a run ended */
enum ab_run_status {
	AB_RUN_EXITED,      /* exit_code says how */
	AB_RUN_SIGNALED,    /* killed by a signal of its own */
	AB_RUN_TIMED_OUT,   /* killed past --timeout */
	AB_RUN_INTERRUPTED, /* allocbuild was sent SIGINT/SIGTERM/SIGHUP and passed it on */
};

struct ab_runrec_file {
	char *path; /* relative to OUTDIR */
	char sha256[AB_HEX_LEN + 1];
	uint64_t size;
};

/* what the sampler saw (provenance/runs/sampler.h), as the record keeps it */
struct ab_runrec_sampling {
	int interval_ms;
	const char *comm;            /* --sample-comm, or NULL */
	int pss;                     /* --sample-pss */
	const char *mark_start, *mark_end; /* the patterns, or NULL */
	double cooldown_s;           /* 0: none asked */
	struct ab_runrec_file series;
	size_t samples;
	struct ab_sampling_outcome seen; /* the sampler's outcome as it is (provenance/runs/sampler.h) */
	struct ab_series_figures figures;
};

/*
 * A file the command ran or named, hashed before the first run: the
 * program its COMMAND resolved to (as exec finds it in PATH), an argument
 * naming an existing regular file, or the program of `run --program`. A
 * record names no path of the author's machine: such a file is known by
 * its path relative to OUTDIR when it is inside it, else by its base name
 * and digest alone.
 */
struct ab_runrec_input {
	int arg;                     /* its index in argv (0: the program); -1 for --program */
	const char *path;            /* relative to OUTDIR, or NULL: outside it */
	const char *name;            /* its base name; NULL: nothing recorded (a record of an earlier allocbuild) */
	char sha256[AB_HEX_LEN + 1];
	int artifact;                /* path is an artifact of the OUTDIR's build, with this digest */
	const char *kept;            /* --program: its copy under runs/NAME/programs/ (NULL: an artifact, not copied) */
};

/*
 * run --allocator-stats: the setting that asked the allocator for its
 * statistics at exit (provenance/alloc/allocstats.h) and the figures read
 * back out of the run's output, in bytes
 */
#define AB_RUN_ALLOCSTATS_MAX 12
struct ab_runrec_allocstats {
	const char *allocator;       /* its registry name */
	const char *variable, *setting; /* the variable set, the setting asked for (in the variable's value) */
	size_t n;                    /* figures; 0 when there are none (missing says why) */
	const char *names[AB_RUN_ALLOCSTATS_MAX];
	double bytes[AB_RUN_ALLOCSTATS_MAX];
	double resolution[AB_RUN_ALLOCSTATS_MAX]; /* what the figure is known to, in bytes (0: exact) */
	const char *missing;
};

/* a parsed record's "junit" (run --junit): whether run was asked for a report, and its summary */
struct ab_runrec_junit_read {
	int asked;                   /* the record has a "junit" object */
	int summed;                  /* ... with the summary of a report it read (ab_runrec_junit_summary): the figures */
	double tests, failures, errors, skipped, time; /* 0 when the summary lacks one */
};

struct ab_runrec {
	const char *name;            /* --name */
	int number;                  /* NNNN */
	const char *label;
	int repetition, repetitions; /* 1-based */
	char *const *order;          /* the labels in this repetition's order */
	size_t norder;
	const char *build_invocation; /* the build statement's invocationId, or NULL */
	const char *recipe_sha256;   /* or NULL */
	const char *subject;         /* relative to OUTDIR */
	const char *subject_kind;    /* "program", "allocator archive" or "artifact" */
	char subject_sha256[AB_HEX_LEN + 1];
	int subject_cached;          /* the digest cache vouched for the digest (lib/digestcache.h) */
	char subject_hashed_on[32];  /* when the artifact's bytes were last read and hashed, UTC */
	char *const *argv;           /* as executed (the record keeps it with the places below hidden) */
	/*
	 * Writing: the absolute current directory; a record keeps where it
	 * is from OUTDIR ("OUTDIR", "OUTDIR/sub", "OUTDIR/../.."), or null
	 * when it is none of those. Parsed: that form, or NULL.
	 */
	const char *cwd;
	/*
	 * Writing: where the author's machine keeps things, never written: in
	 * argv, the variables set and the JUnit report's name, the absolute
	 * path of OUTDIR becomes "OUTDIR", that of the current directory "."
	 * and $HOME "~" (the longest that matches first)
	 */
	const char *outdir_abs, *outdir_real, *home;
	struct ab_runrec_input program; /* the executable COMMAND resolved to */
	struct ab_runrec_input *files;  /* the arguments naming an existing regular file, in argv order */
	size_t nfiles;
	/*
	 * --program PATH: the program the run names as its subject (the
	 * Statement's subject is its artifact path or its copy, kept), or NULL:
	 * the subject is the label's artifact
	 */
	const struct ab_runrec_input *given;
	struct ab_strv overrides;    /* "NAME=value" set by allocbuild */
	struct ab_strv removed;      /* names removed from the inherited environment */
	char started_on[32], finished_on[32];
	enum ab_run_status status;
	int exit_code, signal;       /* exit_code -1 when killed; signal 0 when exited */
	double wall_s, user_s, sys_s;
	long maxrss_kb;
	struct ab_runrec_file log;
	const char *junit_path;      /* --junit as given, or NULL */
	struct ab_runrec_file junit; /* its copy; path NULL when the command did not write it or it was not kept */
	cJSON *junit_summary;        /* owned; NULL when missing or not JUnit */
	/*
	 * why a report the command wrote was not kept: "not a JUnit report"
	 * (its sha256 and size recorded, not its bytes), "a symbolic link"
	 * (not followed); NULL: read, or missing
	 */
	const char *junit_refused;
	cJSON *environment;          /* owned: provenance/runs/runenv.h */
	int batch;                   /* the number of the first run of the invocation that made this one; 0 unknown */
	int rotated;                 /* that invocation rotated the labels (--rotate) */
	const char *cell;            /* --cell, or NULL */
	const char *cpus;            /* --cpus as given, or NULL */
	int env_padded;              /* run with --env-pad */
	int env_pad;                 /* then: the bytes of AB_RUN_ENV_PAD this run had */
	struct ab_runrec_sampling *sampling; /* NULL: not sampled */
	const struct ab_runrec_allocstats *alloc_stats; /* NULL: not asked (run without --allocator-stats) */
	struct ab_metrics metrics;   /* the driver's figures (owned) */
	double allocbuild_cpu_s;     /* allocbuild's own CPU seconds while the command ran (< 0 unknown) */
	/* a parsed record: the document its strings point into, and the arrays made for it */
	cJSON *doc;
	char **argv_owned, **order_owned;
	struct ab_runrec_sampling *sampling_owned;
	struct ab_runrec_input *files_owned, *given_owned;
	struct ab_runrec_allocstats *alloc_stats_owned; /* on the heap: a record is copied by value (compare) */
	struct ab_runrec_junit_read junit_read; /* a parsed record: its "junit" as run wrote it */
};

/* the record as its Statement; caller frees */
cJSON *ab_runrec_statement(const struct ab_runrec *r);
/*
 * A record's Statement read back into *r, which takes stmt (freed by
 * ab_runrec_release, whatever the result): the fields compare and pr use.
 * A record of an earlier allocbuild, without batch, sampling or metrics,
 * reads with batch 0, no sampling and no metrics. 0, or AB_EFAIL after
 * reporting what is missing, naming the file name.
 */
int ab_runrec_parse(struct ab_runrec *r, cJSON *stmt, const char *name);
void ab_runrec_release(struct ab_runrec *r);
/* a run's ending in a word or two: "exit 0", "SIGKILL", "timed out", "interrupted" (ok: exited 0); caller frees */
char *ab_runrec_ending(const struct ab_runrec *r);
int ab_runrec_ok(const struct ab_runrec *r);
/*
 * A sampled figure is a measurement only from this many samples on: a run
 * shorter than that (a command that ends before the sampler's second
 * reading, one whose marks leave a window of a sample or two) has figures
 * of whatever the sampler caught, often nothing yet ("steady RSS 0.0 MiB")
 */
#define AB_RUN_MIN_SAMPLES 3
/* is the run sampled too briefly for its series' figures (or, window: for its measured window's)? */
int ab_runrec_too_short(const struct ab_runrec *r, int window);

/* is name usable as a run name: [A-Za-z0-9._-], 1 to 64 characters, not starting with '.' or '-'? */
int ab_runrec_name_valid(const char *name);
/*
 * Runs are numbered from 1 in their name's directory, written with at
 * least four digits ("%04d": 0001 .. 9999, then 10000 ..), at most
 * AB_RUN_NUMBER_MAX.
 */
#define AB_RUN_NUMBER_MAX 999999999
/* the number the next run in dir (OUTDIR/runs/NAME) takes: one more than any record there */
int ab_runrec_next_number(const char *dir);
/* the number of a record's file name "NNNN-LABEL.intoto.json" (as "%04d" writes it), else -1 */
int ab_runrec_record_number(const char *base);
/* is rel (relative to OUTDIR) a run record: runs/NAME/NNNN-LABEL.intoto.json? */
int ab_runrec_is_statement(const char *rel);
/* is rel under runs/? */
int ab_runrec_is_run_file(const char *rel);

/*
 * The JUnit summary of a report's text: tests, failures, errors, skipped
 * and time, from its <testsuites> element, else the sum of its
 * <testsuite> elements. NULL when it has neither.
 */
cJSON *ab_runrec_junit_summary(const char *text, size_t len);

/* what a run Statement names: its subjects and byproducts, name and sha256, appended */
void ab_runrec_named(struct ab_strv *names, struct ab_strv *hexes, const cJSON *stmt);
/*
 * what a run hashed inside OUTDIR (its program and the files its
 * arguments named, struct ab_runrec_input with a path): path relative to
 * OUTDIR and sha256, appended; a path that is no safe relative one is
 * appended as it is, for the caller to refuse
 */
void ab_runrec_inputs_inside(struct ab_strv *paths, struct ab_strv *hexes, const cJSON *stmt);
/*
 * The builds of an OUTDIR a run record there may name (its
 * predicate.build.invocation_id), from the OUTDIR's build Statement: its
 * invocationId, then the earlier builds' it keeps the records of
 * (internalParameters.earlierInvocations), newest first, at most
 * AB_RUN_BUILDS_MAX; appended to out. A record copied from another
 * OUTDIR names none of them.
 */
#define AB_RUN_BUILDS_MAX 1000
void ab_runrec_builds(struct ab_strv *out, const cJSON *build_stmt);
/*
 * NULL when the run record names one of builds (ab_runrec_builds; none
 * known: nothing to say), else what is wrong ("a run of build X, not of
 * this OUTDIR's (Y): a record of another OUTDIR"); caller frees
 */
char *ab_runrec_foreign(const cJSON *record, const struct ab_strv *builds);

/*
 * Append lines for files (paths relative to outdir, with their digests)
 * to OUTDIR/SHA256SUMS, rewritten atomically; the caller holds OUTDIR's
 * lock. Reports errors.
 */
int ab_runrec_sums_append(const char *outdir, const struct ab_runrec_file *files, size_t n);
/*
 * the lines of OUTDIR/SHA256SUMS under runs/ whose files are there,
 * appended to b (a build rewriting SHA256SUMS keeps them)
 */
void ab_runrec_sums_carry(struct ab_buf *b, const char *outdir);

#endif
