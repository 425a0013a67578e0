/*
 * pool: the one thread pool. Every parallel loop of allocbuild over items
 * runs on it. (Threads that are no such loop start their own: the
 * variant scheduler, builder/build.c, runs each variant on a thread of
 * its own, started when its dependencies are done and the job budget
 * allows; a dependency graph of long waits on child processes is not a
 * list of numbered items. Likewise lib/hash's read-ahead, the run
 * sampler, the progress heartbeat, the network forwarder.)
 *
 * Items are numbered 0 .. n-1 and handed out one at a time, in order,
 * through an atomic counter: a caller that orders its items by size,
 * largest first, gets the work split by bytes. Worker 0 is the calling
 * thread, which works too; the other workers are threads 1 .. jobs-1, so
 * fn can keep per-worker state (read buffers, digest contexts, an open
 * repository) in an array of ab_pool_workers(n, jobs) slots indexed by
 * `worker`, with no lock. When a thread cannot be created the pool runs
 * with fewer; the calling thread is always there.
 *
 * Errors: fn returns 0, or a negative code after reporting (lib/util.h).
 * The first negative code, in time, stops the pool: a worker that has seen
 * it takes no other item, every item taken runs to its end (so every item
 * numbered below a failed one runs), and that code is returned. A caller
 * that wants every item to run whatever happens records each failure
 * itself and returns 0 from fn.
 *
 *   static int
 *   hash_one(void *arg, size_t item, int worker)
 *   {
 *           struct job *j = arg;
 *           ... j->files[item], j->buf[worker] ...
 *           return 0;
 *   }
 *   error = ab_pool_run(n, jobs, hash_one, &job);
 *
 * The start/finish form serves a producer that finds the items while the
 * workers take them (a directory walk: lib/hash), or a consumer that takes
 * results in order while they are made (lib/bz2):
 *
 *   struct ab_pool *p;
 *   ab_pool_start(&p, threads, fn, drain, arg);  threads background workers, 1 .. threads
 *   ab_pool_publish(p, n);                items 0 .. n-1 may be taken (n only grows)
 *   ...
 *   error = ab_pool_finish(p);            no more items; the calling thread works as
 *                                         worker 0 until every item is done; frees p
 *   or ab_pool_stop(p);                   workers take no other item; waits for the
 *                                         running ones; frees p
 *
 * drain (or NULL) is called once by every worker when it has taken its
 * last item, before finish or stop returns: a worker that keeps several
 * items going at once (lib/hash hashes up to four files together) ends
 * them there. Workers waiting for items sleep. fn must not call back into
 * its pool.
 */
#ifndef AB_POOL_H
#define AB_POOL_H

#include <stddef.h>

#define AB_POOL_MAX 1024 /* workers at the most (the largest -j) */

struct ab_pool;

/* one item: 0 or a negative code (reported); worker is 0 .. workers-1 */
typedef int ab_pool_fn(void *arg, size_t item, int worker);
/* a worker has taken its last item (the start/finish form) */
typedef void ab_pool_drain_fn(void *arg, int worker);

/* online cores this process may run on (its affinity mask), 1 .. 256 */
int ab_pool_default_jobs(void);
/* is this thread running an item of a pool of several workers (every core is then taken)? */
int ab_pool_in_worker(void);
/* jobs as the pool reads it: <= 0 one per core (ab_pool_default_jobs), at most AB_POOL_MAX */
int ab_pool_jobs(int jobs);
/* the workers ab_pool_run(n, jobs, ...) uses, at least 1: size per-worker arrays with it */
int ab_pool_workers(size_t n, int jobs);
/* fn for every item 0 .. n-1 on up to jobs workers (see above); the first error */
int ab_pool_run(size_t n, int jobs, ab_pool_fn *fn, void *arg);

/* start threads background workers (1 .. threads), no items yet; *out is set even when
   none could start; returns how many did */
int ab_pool_start(struct ab_pool **out, int threads, ab_pool_fn *fn, ab_pool_drain_fn *drain,
    void *arg);
/* items 0 .. n-1 may now be taken; n never shrinks; one producer thread */
void ab_pool_publish(struct ab_pool *p, size_t n);
/* no more items: work as worker 0 until all published items are done, join, free; the first error */
int ab_pool_finish(struct ab_pool *p);
/* workers take no other item; wait for those running, join, free */
void ab_pool_stop(struct ab_pool *p);

#endif
