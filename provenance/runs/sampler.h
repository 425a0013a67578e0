/*
 * sampler: the process tree of a run sampled over time, on a thread of
 * its own, while lib/proc.h runs the command (docs/runs.md, "Sampling").
 *
 *   struct ab_sampler *s;
 *   ab_sampler_start(&s, &opts);      just before the command is started
 *   ab_proc_run(&res, &p);            the command; its log is opts.log_path
 *   ab_sampler_finish(&out, s);       after it: the cooldown, the series
 *   ...
 *   ab_sampling_release(&out);
 *
 * Every interval_ms the thread reads the tree of allocbuild's next child
 * (lib/proctree.h) into a sample (provenance/runs/series.h), from the first
 * reading that finds the command until it has ended and nothing of its
 * tree is left. It also reads the command's log as it grows: the first
 * line matching mark_start (when given) starts the measured window, the
 * first after it matching mark_end (when given) ends it; without them the
 * window is the command's whole run. A line counts as seen at the first
 * sample after it was written (within one interval).
 *
 * cooldown_s > 0 asks for the cooldown figure: the resident set
 * cooldown_s seconds after the window's end. Processes of the tree that
 * outlive the command (a server its driver started) are sampled until
 * then, and then ended (SIGTERM; SIGKILL 2 s later): without a mark_end,
 * the window ends when the command does and the cooldown is theirs. The
 * command itself is never ended by the sampler.
 *
 * Patterns are POSIX extended regular expressions; ab_sampler_check_regex
 * says whether one compiles, before any run.
 */
#ifndef AB_SAMPLER_H
#define AB_SAMPLER_H

#include "series.h"

struct ab_sampler;

struct ab_sampler_opts {
	int interval_ms;          /* > 0 */
	const char *comm;         /* the processes whose resident set the figures use, or NULL: the tree's */
	int pss;                  /* read smaps_rollup too */
	const char *log_path;     /* the command's log, as it is written */
	const char *mark_start;   /* or NULL */
	const char *mark_end;     /* or NULL */
	double cooldown_s;        /* 0: none */
};

/*
 * what the sampler saw of the run, besides its series; times in seconds
 * from the command's start. The run record embeds it as it is
 * (provenance/runs/runrec.h: struct ab_runrec_sampling's seen)
 */
struct ab_sampling_outcome {
	double window_start_s, window_end_s;
	int start_marked, end_marked;     /* by a line of the log (else the start, the end) */
	/* the lines that marked them (their first 256 bytes), or NULL; owned by the sampling, or by the record parsed */
	const char *start_line, *end_line;
	double command_end_s;             /* when the command was seen ended; < 0 never */
	double cooldown_at_s;             /* window end + cooldown, or -1 without one */
	int cooldown_reached;             /* the series goes that far */
	int leftovers_ended;              /* processes of the tree ended after the cooldown */
	double sampler_cpu_s;             /* the sampler thread's own CPU time */
	unsigned ticks, late_ticks;       /* readings, and intervals missed because one ran late */
};

/* what the sampler saw */
struct ab_sampling {
	struct ab_series series;
	struct ab_sampling_outcome seen;
};

/* does pattern compile as an extended regular expression? 0, or AB_EFAIL after reporting "<option>: ..." */
int ab_sampler_check_regex(const char *option, const char *pattern);
/* start sampling; 0, or AB_EFAIL (reported): /proc or the log cannot be read, a thread cannot start */
int ab_sampler_start(struct ab_sampler **out, const struct ab_sampler_opts *o);
/*
 * The command has ended (its wait returned): sample what is left through
 * the cooldown, end it, stop and free the sampler; what it saw into *out
 * (release it with ab_sampling_release, whatever the result).
 */
int ab_sampler_finish(struct ab_sampling *out, struct ab_sampler *s);
void ab_sampling_release(struct ab_sampling *s);
/* the figures of a sampling (provenance/runs/series.h) */
void ab_sampling_figures(struct ab_series_figures *f, const struct ab_sampling *s);

#endif
