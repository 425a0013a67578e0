/*
 * statsruns: which labels of an OUTDIR ran with their allocator asked for
 * its statistics at exit (run --allocator-stats, provenance/runs/runrec.h:
 * allocator_stats), for a policy's not_set rule: the option that asks
 * for them (jemalloc's stats_print, mimalloc's show_stats) is a setting
 * set at run time. Only records SHA256SUMS lists with their digest count.
 */
#ifndef AB_STATSRUNS_H
#define AB_STATSRUNS_H

#include "../../lib/util.h"

struct ab_statsruns {
	struct ab_strv labels, files, allocators; /* one entry per label: its first such run, its allocator */
};

/* 0, or AB_EFAIL (reported) when SHA256SUMS cannot be read */
int ab_statsruns_read(struct ab_statsruns *out, const char *outdir);
/* label's entry, or -1 */
int ab_statsruns_find(const struct ab_statsruns *s, const char *label);
void ab_statsruns_release(struct ab_statsruns *s);

#endif
