/*
 * series: what the sampler of a run read from its process tree over time
 * (provenance/runs/sampler.h), the figures derived from it, and its file,
 * NNNN-LABEL.series.csv beside the run record (docs/runs.md, "The
 * series"): a header line naming the columns, then one line per sample,
 * integers only:
 *
 *   ms,rss_kb,cpu_ms,minflt,majflt,threads,processes[,comm_rss_kb][,pss_kb,anon_kb]
 *
 * ms counts from the command's start; rss_kb is the tree's resident set
 * (summed over its processes); cpu_ms, minflt and majflt are the tree's
 * cumulative CPU time and page faults; comm_rss_kb is that of the
 * processes named by --sample-comm, pss_kb and anon_kb come with
 * --sample-pss. One writer (ab_series_csv) and one reader
 * (ab_series_parse), beside the struct.
 */
#ifndef AB_SERIES_H
#define AB_SERIES_H

#include <stddef.h>
#include <stdint.h>

#include "../../lib/util.h"

struct ab_sample {
	uint64_t ms;
	uint64_t rss_kb, cpu_ms, minflt, majflt;
	uint64_t threads, processes;
	uint64_t comm_rss_kb;      /* with comm */
	uint64_t pss_kb, anon_kb;  /* with pss */
};

struct ab_series {
	struct ab_sample *v;
	size_t n, cap;
	int comm;  /* the comm_rss_kb column is there */
	int pss;   /* the pss_kb and anon_kb columns are */
};

/* the part of a run the figures describe, in seconds from the command's start */
struct ab_series_window {
	double start_s, end_s;   /* the measured window */
	double cooldown_at_s;    /* where the cooldown RSS is read; < 0: none asked */
};

/* what a series says of its run; a figure it cannot give is NAN */
struct ab_series_figures {
	size_t window_samples;      /* samples in the measured window */
	double steady_rss_kb;       /* the median of the window's samples (of comm's with comm) */
	double peak_rss_kb;         /* the largest sample */
	double cooldown_rss_kb;     /* the last sample at or before cooldown_at_s, when the series reaches it */
	double rss_gib_s;           /* the resident set integrated over the series (trapezoids), GiB x s */
	double window_cpu_s;        /* the tree's CPU seconds within the window */
	double cpu_s;               /* its CPU seconds over the series */
	double minor_faults, major_faults;
	double max_threads, max_processes;
	double tree_peak_rss_kb;    /* with comm: the whole tree's largest sample */
	double steady_pss_kb, peak_pss_kb, steady_anon_kb, peak_anon_kb; /* with pss */
};

void ab_series_add(struct ab_series *s, const struct ab_sample *x);
void ab_series_release(struct ab_series *s);
/* the resident set the figures use: comm's with comm, else the tree's */
uint64_t ab_series_rss(const struct ab_series *s, const struct ab_sample *x);
/*
 * Does the series reach at_s (seconds)? Its last sample is at or past it,
 * within the series' resolution: samples keep whole milliseconds, so the
 * one taken at the very end may read up to half of one short
 */
int ab_series_reaches(const struct ab_series *s, double at_s);
void ab_series_figures(struct ab_series_figures *f, const struct ab_series *s, const struct ab_series_window *w);

/* the series as its file's text, appended to b */
void ab_series_csv(struct ab_buf *b, const struct ab_series *s);
/* the text of a series file into *s; 0, or AB_EFAIL after reporting what is wrong with name */
int ab_series_parse(struct ab_series *s, const char *text, size_t len, const char *name);

#endif
