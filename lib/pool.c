#include "pool.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "util.h"

struct thread {
	struct ab_pool *p;
	int worker;
	pthread_t tid;
};

struct ab_pool {
	ab_pool_fn *fn;
	ab_pool_drain_fn *drain; /* or NULL */
	void *arg;
	atomic_size_t next;      /* the next item to hand out */
	atomic_size_t published; /* items that may be taken */
	atomic_int error;        /* the first negative code; 0 while none */
	atomic_int waiting;      /* workers asleep on cv */
	int open;                /* under mu: more items may be published */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct thread *threads;
	int nthreads;
};

int
ab_pool_default_jobs(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	cpu_set_t set;

	/* taskset or a cpuset may allow fewer cores than are online */
	if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0 &&
	    CPU_COUNT(&set) < n)
		n = CPU_COUNT(&set);
	return n < 1 ? 1 : n > 256 ? 256 : (int)n;
}

int
ab_pool_jobs(int jobs)
{
	if (jobs <= 0)
		return ab_pool_default_jobs();
	return jobs > AB_POOL_MAX ? AB_POOL_MAX : jobs;
}

int
ab_pool_workers(size_t n, int jobs)
{
	int w = ab_pool_jobs(jobs);

	if (n < (size_t)w)
		w = n ? (int)n : 1;
	return w;
}

static void
wake_all(struct ab_pool *p)
{
	pthread_mutex_lock(&p->mu);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
}

static void
fail(struct ab_pool *p, int code)
{
	int none = 0;

	if (atomic_compare_exchange_strong(&p->error, &none, code))
		wake_all(p); /* workers asleep for more items give up */
}

/*
 * Take items until none is left or one failed. An index taken beyond the
 * published ones waits for the producer; published is stored and waiting
 * loaded sequentially consistent by the producer, waiting incremented and
 * published loaded so here: either this worker sees the item or the
 * producer sees the worker and wakes it.
 */
static void
work(struct ab_pool *p, int worker)
{
	for (;;) {
		size_t i;
		int rc;

		if (atomic_load_explicit(&p->error, memory_order_relaxed))
			break;
		i = atomic_fetch_add(&p->next, 1);
		if (i >= atomic_load_explicit(&p->published, memory_order_acquire)) {
			int more;

			pthread_mutex_lock(&p->mu);
			atomic_fetch_add(&p->waiting, 1);
			while (i >= atomic_load(&p->published) && p->open && !atomic_load(&p->error))
				pthread_cond_wait(&p->cv, &p->mu);
			atomic_fetch_sub(&p->waiting, 1);
			more = i < atomic_load_explicit(&p->published, memory_order_acquire);
			pthread_mutex_unlock(&p->mu);
			if (!more)
				break;
		}
		/* an item taken runs, error or not: every item below a failed one runs */
		rc = p->fn(p->arg, i, worker);
		if (rc < 0)
			fail(p, rc);
	}
}

/* this thread's items running in a pool of several workers (work) */
static _Thread_local int in_parallel_work;

int
ab_pool_in_worker(void)
{
	return in_parallel_work > 0;
}

static void *
thread_main(void *arg)
{
	struct thread *t = arg;

	in_parallel_work++;
	work(t->p, t->worker);
	if (t->p->drain)
		t->p->drain(t->p->arg, t->worker);
	in_parallel_work--;
	return NULL;
}

/* a pool with n items published (open: more may come) and up to threads threads */
static struct ab_pool *
pool_new(size_t n, int open, int threads, ab_pool_fn *fn, ab_pool_drain_fn *drain, void *arg)
{
	struct ab_pool *p = ab_calloc(1, sizeof(*p));

	p->fn = fn;
	p->drain = drain;
	p->arg = arg;
	atomic_init(&p->next, 0);
	atomic_init(&p->published, n);
	atomic_init(&p->error, 0);
	atomic_init(&p->waiting, 0);
	p->open = open;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (threads > AB_POOL_MAX - 1)
		threads = AB_POOL_MAX - 1;
	if (threads > 0)
		p->threads = ab_calloc((size_t)threads, sizeof(*p->threads));
	for (int k = 0; k < threads; k++) {
		struct thread *t = &p->threads[p->nthreads];

		t->p = p;
		t->worker = p->nthreads + 1;
		if (pthread_create(&t->tid, NULL, thread_main, t) == 0)
			p->nthreads++;
	}
	return p;
}

/* close, join the threads, free; the first error */
static int
pool_free(struct ab_pool *p)
{
	int error;

	pthread_mutex_lock(&p->mu);
	p->open = 0;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	for (int k = 0; k < p->nthreads; k++)
		pthread_join(p->threads[k].tid, NULL);
	error = atomic_load(&p->error);
	pthread_cond_destroy(&p->cv);
	pthread_mutex_destroy(&p->mu);
	free(p->threads);
	free(p);
	return error;
}

int
ab_pool_run(size_t n, int jobs, ab_pool_fn *fn, void *arg)
{
	int workers = ab_pool_workers(n, jobs);
	struct ab_pool *p;

	if (workers == 1) {
		/* no thread, no lock: the common case of a small or serial job */
		for (size_t i = 0; i < n; i++) {
			int rc = fn(arg, i, 0);

			if (rc < 0)
				return rc;
		}
		return 0;
	}
	p = pool_new(n, 0, workers - 1, fn, NULL, arg);
	in_parallel_work++;
	work(p, 0);
	in_parallel_work--;
	return pool_free(p);
}

int
ab_pool_start(struct ab_pool **out, int threads, ab_pool_fn *fn, ab_pool_drain_fn *drain, void *arg)
{
	*out = pool_new(0, 1, threads, fn, drain, arg);
	return (*out)->nthreads;
}

void
ab_pool_publish(struct ab_pool *p, size_t n)
{
	atomic_store(&p->published, n);
	if (atomic_load(&p->waiting))
		wake_all(p);
}

int
ab_pool_finish(struct ab_pool *p)
{
	pthread_mutex_lock(&p->mu);
	p->open = 0;
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	work(p, 0);
	if (p->drain)
		p->drain(p->arg, 0);
	return pool_free(p);
}

void
ab_pool_stop(struct ab_pool *p)
{
	/* an error code nobody reads: it only stops the hand-out */
	fail(p, AB_EFAIL);
	pool_free(p);
}
