/*
 * run: the job of `allocbuild run` (docs/runs.md). For each repetition
 * and each label (rotated with rotate: a b c, b c a, c a b), run a command
 * with the label's runtime environment exactly as `env` defines it
 * (provenance/record/manifest.h: ab_manifest_runtime), `{bin}` and `{label}` in
 * its arguments standing for the variant's program and label, and
 * ALLOCBUILD_BIN / ALLOCBUILD_LABEL set, on the CPUs of --cpus; stream
 * its output to a log and the terminal while a sampler reads its process
 * tree (provenance/runs/sampler.h); then take the driver's figures from its log
 * (provenance/runs/metrics.h), write its series and its record
 * (provenance/runs/runrec.h) and list the run's files in SHA256SUMS.
 *
 * Everything that can be refused is refused before the first run: a bad
 * name, an unknown label, `{bin}` for a label without a program artifact,
 * a command that cannot be found (AB_EFAIL); an artifact that does not
 * hold what the build recorded (AB_ECHECK). OUTDIR's lock is held
 * throughout, so no build changes an artifact while it runs. SIGINT,
 * SIGTERM and SIGHUP are passed on to the command, its record says
 * "interrupted", and no further run starts (lib/proc.h:
 * ab_proc_caught() tells the caller which signal came).
 */
#ifndef AB_RUN_H
#define AB_RUN_H

#include <stddef.h>
#include <stdio.h>

struct ab_run_opts {
	int json;           /* one document on stdout at the end, the command's output in its log only */
	const char *outdir;
	char *const *labels;
	size_t nlabels;
	const char *name;   /* NULL: the command's base name */
	int repeat;         /* >= 1 */
	int rotate;
	const char *junit;  /* the JUnit report the command writes, relative to the current directory, or NULL */
	double timeout;     /* seconds, 0: none */
	char *const *sets;  /* "NAME=VALUE" set on top (--env), `{bin}` and `{label}` replaced */
	size_t nsets;
	char *const *argv;  /* the command, NULL-terminated */
	const char *cache_dir; /* the digest cache's directory (--cache), NULL: ab_cache_default_dir's */
	int rehash;         /* hash the artifact even when the digest cache vouches for it */
	int sample_ms;      /* the sampler's interval; 0: no sampling */
	const char *sample_comm; /* the process name whose RSS the figures use, or NULL */
	int sample_pss;     /* read PSS and anonymous memory too */
	const char *mark_start, *mark; /* patterns of the lines that start and end the measured window, or NULL */
	double cooldown;    /* seconds sampled after the window, 0: none */
	const char *cpus;   /* the command's CPU affinity ("0-3,8"), or NULL: allocbuild's */
	const char *cell;   /* the cell the runs' figures belong to, or NULL */
	const char *program; /* --program: the program that runs, the records' subject ({bin}, {label} replaced), or NULL */
	int allocator_stats; /* --allocator-stats: the allocator's statistics at exit (builder/runstats.h) */
	int env_pad;        /* --env-pad: the largest AB_RUN_ENV_PAD (provenance/runs/runrec.h), 0 to that over the repetitions; 0: none */
};

/*
 * Run them all. 0 when every command exited 0; AB_ECHECK when one did
 * not, was killed, timed out or interrupted, or an artifact changed since
 * the build; AB_EFAIL for bad input (nothing recorded) or a JUnit report
 * the command did not write (recorded as missing; the runs go on).
 */
int ab_run(const struct ab_run_opts *o);

/* print the run environment (provenance/runs/runenv.h) as JSON on out */
int ab_run_env_only(FILE *out);

#endif
