/*
 * probe: which allocator settings are in effect in a program (docs/probes.md).
 *
 * A probe runs a program with the allocator's own reporting switched on
 * and parses what the allocator prints:
 *   jemalloc  MALLOC_CONF=<requested>,stats_print:true,stats_print_opts:mdablxeh
 *             and the general statistics section on stderr at exit
 *   mimalloc  MIMALLOC_VERBOSE=1 and the option lines on stderr at start
 * It then checks what was asked for against what the allocator reports and
 * collects every problem: invalid or out-of-range settings (tied to where
 * they came from: baked in at build time or the runtime environment),
 * malformed conf strings, unknown MIMALLOC_* variables (mimalloc silently
 * ignores them), and overrides that did not take effect.
 *
 * Calling protocol (the build command calls this after each build):
 *   struct ab_probe_req req = {0};
 *   req.allocator = v->allocator.kind;   a registry name (provenance/alloc/allocreg.h),
 *                                        or NULL: detect (the binary's, then each in registry order)
 *   req.env = variant->runtime.env;      the runtime environment to check, e.g.
 *                                        MALLOC_CONF=lg_extent_max_active_fit:12
 *   req.unset = variant->runtime.unset;
 *   cJSON *rec;
 *   if (ab_probe_program(&rec, &req, argv) < 0) ...        could not run: reported
 *   or, for a library artifact:
 *   if (ab_probe_archive(&rec, &req, "build/lib/libjemalloc_pic.a",
 *                        "OUTDIR/variants/special53/probe") < 0) ...
 *   if (!ab_probe_ok(rec)) ...            problems: rec->problems, each with a message
 *   cJSON_AddItemToArray(probes, rec);    or cJSON_Delete(rec)
 *
 * The child gets the scrubbed environment of lib/proc.h (MALLOC_CONF,
 * LD_PRELOAD, MIMALLOC_*, *_MALLOC_CONF removed; LC_ALL=C, TZ=UTC), then
 * req.env, then req.unset removed, then the probe's own switches. Nothing
 * is printed on success; the record holds everything (docs/probes.md).
 */
#ifndef AB_PROBE_H
#define AB_PROBE_H

#include <stdio.h>

#include <cjson/cJSON.h>

#include "../../lib/sandbox.h"
#include "../../lib/util.h"
#include "../record/proberesult.h"

struct ab_probe_req {
	const char *allocator;   /* a registry name (provenance/alloc/allocreg.h), or NULL to detect */
	struct ab_kvlist env;    /* requested runtime environment (not owned) */
	struct ab_list unset;    /* variables to remove (not owned) */
	const char *cwd;         /* where the program runs; NULL: current directory */
	const char *cc;          /* compiler for ab_probe_archive; NULL: "cc" */
	double timeout;          /* seconds a probe run may take; 0: AB_PROBE_TIMEOUT */
	const struct ab_sandbox *sandbox; /* non-NULL: the runs and the probe program's link happen in it
	                            (lib/sandbox.h), real paths under its binds as it sees them */
	const char *sandbox_home; /* HOME there */
};

/* the default limit of one probe run, in seconds (recipe probe.timeout) */
#define AB_PROBE_TIMEOUT 60

/*
 * Run argv (argv[0] looked up in PATH) under the probe and build the record.
 * A run longer than req->timeout is killed and recorded as a problem of
 * kind "timeout". Returns 0 when the probe ran (whatever it found: see
 * ab_probe_ok), -1
 * (reported) when the program cannot be started or req is invalid.
 * *record is freed with cJSON_Delete.
 */
int ab_probe_program(cJSON **record, const struct ab_probe_req *req, char *const *argv);

/*
 * Write a tiny C program into workdir (created if needed; NULL: a
 * temporary directory under $TMPDIR, removed afterwards), compile it with
 * cc and link it statically against archive (jemalloc: -lpthread -ldl -lm;
 * mimalloc: -lpthread), then probe that program. The allocator is
 * req->allocator, or guessed from the archive's name. The record also has
 * "archive" and "compile" {argv, cwd}. Returns -1 (reported) when the probe
 * program cannot be written or compiled, or the allocator is unknown.
 */
int ab_probe_archive(cJSON **record, const struct ab_probe_req *req, const char *archive,
    const char *workdir);

/*
 * A running process, read from /proc (provenance/probe/probe_pid.c, docs/probes.md
 * "Running processes"): never stopped, attached to or signalled.
 */
struct ab_probe_pid_opts {
	const char *against; /* an OUTDIR or evidence bundle: match the process to its variant, or NULL */
	const char *expect;  /* with against: the label it must be, or NULL */
};
/*
 * Inspect process pid into *record (freed with cJSON_Delete): 0 when
 * nothing is wrong, AB_ECHECK when the record has problems (two
 * allocators, a setting its allocator ignores or refuses, not the expected
 * variant), AB_EFAIL when the process cannot be read (no such pid, a
 * kernel thread, another user's process, exited while read: reported,
 * saying which) and *record is NULL.
 */
int ab_probe_pid(cJSON **record, int pid, const struct ab_probe_pid_opts *o);
/* the human form of a process record */
void ab_probe_pid_print(FILE *f, const cJSON *record);

/*
 * What a variant expects of its allocator (the recipe's "expect",
 * docs/recipe.md); a field left NULL or -1 is not checked.
 */
struct ab_probe_expect {
	const char *version;            /* "5.3.0" or "2.1.7": the version reported, or its part before '-' */
	int secure;                     /* mimalloc's secure level; -1: not checked */
	const struct ab_kvlist *options; /* name -> value, against the record's "effective" (numbers by value) */
};
/*
 * Check a probe record against x: records "expected" in it and, for each
 * mismatch, a problem of kind "expect_mismatch" naming the expected and
 * the actual value, and sets "ok" false. Returns the number of mismatches.
 */
int ab_probe_check_expect(cJSON *record, const struct ab_probe_expect *x);

/*
 * The jemalloc a Rust crate bundled, identified from the crate's sources
 * (version, e.g. "5.1.0-0-g61efbda...", and from, e.g. "crate jemalloc-sys
 * 0.3.2, configure/VERSION"): the crate's build loses the version, so the
 * binary reports a bogus 0.0.0-0-g000... When the record's version is
 * bogus or absent it becomes this one ("binary_version" keeps what the
 * binary said). Then every requested setting (baked and runtime) is
 * checked against that version's options (provenance/alloc/allocopts.h): a
 * problem of jemalloc's own gets the explanation appended, and a name the
 * version lacks that jemalloc did not complain about becomes a problem of
 * kind "unknown_option". Returns the number of settings that version lacks.
 */
int ab_probe_jemalloc_bundled(cJSON *record, const char *version, const char *from);

/* true when the record says the probe ran and found no problem */
int ab_probe_ok(const cJSON *record);

/* a probe's typed result (provenance/record/proberesult.h) changed by the probe's own later steps */
/* ab_probe_jemalloc_bundled on its record, the verdict read again */
int ab_probe_result_bundled(struct ab_probe_result *r, const char *version, const char *from);
/* ab_probe_check_expect on its record, the verdict read again */
int ab_probe_result_check_expect(struct ab_probe_result *r, const struct ab_probe_expect *x);

/* the compact human table of a record (stdout of `allocbuild probe`) */
void ab_probe_print(FILE *f, const cJSON *record);

#endif
