/*
 * runenv: the run environment of a benchmark or verification run, read
 * from the kernel's files once per run (docs/runs.md, "The run
 * environment"): kernel, host name (uname's nodename), CPU model, online CPUs and this process's CPU
 * affinity, cpufreq governor and boost / no_turbo, transparent hugepages,
 * vm.overcommit_memory, page and hugepage size, MemTotal, SwapTotal,
 * vm.swappiness, the swap-in/out counters, the cgroup v2 limits of this
 * process's cgroup, NUMA nodes and numa_balancing, ASLR, the glibc
 * version and the load average.
 *
 * A file that is absent or unreadable is recorded as absent: its value is
 * null and its path is listed in "absent"; nothing is guessed.
 *
 *   cJSON *env = ab_runenv_capture();          before the run
 *   ... run ...
 *   ab_runenv_finish(env);                     the swap counters after it
 */
#ifndef AB_RUNENV_H
#define AB_RUNENV_H

#include <sched.h>

#include <cjson/cJSON.h>

/* the run environment as a JSON object, swap counters in "swap.before"; caller frees */
cJSON *ab_runenv_capture(void);
/* add "swap.after" and "swap.activity" (pages swapped in or out during the run, or null) */
void ab_runenv_finish(cJSON *env);

/*
 * A CPU list as sysfs and taskset write it ("0-3,8,12-15") into *set;
 * 0, or -1 when it is not one (nothing reported). The run environment
 * writes its affinity the same way.
 */
int ab_runenv_cpulist_parse(cpu_set_t *set, const char *list);

/*
 * The fields of a run environment whose difference between runs changes
 * allocator figures: THP mode and defrag, governor, boost, no_turbo, CPU
 * affinity, the cgroup limits, and whether swapping happened. Runs whose
 * values differ do not compare as taken alike (pr, compare).
 */
extern const char *const ab_runenv_compared[];
extern const size_t ab_runenv_ncompared;
/* the value of one of them in env, as text ("absent" for null, "swapping"/"none"/"unknown"); borrowed from env */
const char *ab_runenv_value(const cJSON *env, const char *key);

/*
 * What a page shows of a run environment in one line (pr.md's "Run
 * environment"), read back typed: strings borrowed from env, NULL where
 * absent or not a string; numbers NAN where absent or not a number
 */
struct ab_runenv_shown {
	const char *kernel, *cpu_model, *cpu_affinity, *cpu_online, *governor;
	const char *thp_enabled, *thp_defrag, *cgroup_memory_max, *glibc;
	double page_size, swap_total_kb;
};
void ab_runenv_read_shown(struct ab_runenv_shown *s, const cJSON *env);

#endif
