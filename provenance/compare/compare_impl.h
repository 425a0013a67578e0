/*
 * compare_impl: what the rooms of compare share that compare.h does not
 * offer: the steps of ab_compare_load in their own files (reading the
 * records: compare_load.c; hosts and the allocator's statistics:
 * compare_hosts.c), each AB_EFAIL after reporting.
 */
#ifndef AB_COMPARE_IMPL_H
#define AB_COMPARE_IMPL_H

#include "compare.h"

/* the OUTDIR runs come from: 0 the one compared, k its --runs-from k */
const char *ab_compare_source_dir(const struct ab_comparison *c, size_t k);
/* the run records of the OUTDIR and its --runs-from copies, checked against their SHA256SUMS, into c's sets */
int ab_compare_load_sets(struct ab_comparison *c);
/* a label's runs with and without run --allocator-stats: refused, never pooled */
int ab_compare_refuse_mixed_stats(const struct ab_comparison *c);
/* sets of runs of several hosts: refused (named), split a set per host, or pooled, as c->o.hosts says */
int ab_compare_split_hosts(struct ab_comparison *c);
/* what the hosts' sets of one name disagree on, said in the last of them */
void ab_compare_note_hosts(struct ab_compare_set *sets, size_t n);

#endif
