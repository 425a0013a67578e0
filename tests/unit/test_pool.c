/*
 * Unit tests of lib/pool: every item runs once, on a worker index below
 * ab_pool_workers(); items are handed out in order; the first error stops
 * the pool and is returned; the start/publish/finish form takes items
 * published while the workers run; ab_pool_stop starts nothing more; the
 * drain runs once per worker after its last item.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/pool.h"
#include "../../lib/util.h"
#include "unit.h"

struct job {
	size_t n;
	atomic_int *runs;     /* per item */
	atomic_int bad_worker;
	int workers;
	size_t fail_at;       /* item that fails, or SIZE_MAX */
	atomic_size_t done;
	atomic_size_t max_seen; /* the largest item started */
	atomic_int order_bad; /* an item started after a later one finished on the same worker */
	size_t *last;         /* per worker: the last item it ran */
};

static int
count(void *arg, size_t i, int worker)
{
	struct job *j = arg;
	size_t m = atomic_load(&j->max_seen);

	if (worker < 0 || worker >= j->workers)
		atomic_store(&j->bad_worker, 1);
	else {
		/* in order: a worker never goes back to an earlier item */
		if (j->last[worker] != SIZE_MAX && j->last[worker] >= i)
			atomic_store(&j->order_bad, 1);
		j->last[worker] = i;
	}
	while (i > m && !atomic_compare_exchange_weak(&j->max_seen, &m, i))
		;
	atomic_fetch_add(&j->runs[i], 1);
	atomic_fetch_add(&j->done, 1);
	if (i % 7 == 0)
		usleep(100);
	return i == j->fail_at ? -7 : 0;
}

/* n items for workers workers */
static void
job_init(struct job *j, size_t n, int workers)
{
	memset(j, 0, sizeof(*j));
	j->n = n;
	j->runs = ab_calloc(n ? n : 1, sizeof(*j->runs));
	j->workers = workers;
	j->last = ab_calloc((size_t)j->workers, sizeof(*j->last));
	for (int w = 0; w < j->workers; w++)
		j->last[w] = SIZE_MAX;
	j->fail_at = SIZE_MAX;
}

static void
job_free(struct job *j)
{
	free(j->runs);
	free(j->last);
}

static int
all_once(const struct job *j)
{
	for (size_t i = 0; i < j->n; i++)
		if (atomic_load(&j->runs[i]) != 1)
			return 0;
	return 1;
}

static int
none_twice(const struct job *j)
{
	for (size_t i = 0; i < j->n; i++)
		if (atomic_load(&j->runs[i]) > 1)
			return 0;
	return 1;
}

static void
test_run(void)
{
	static const size_t ns[] = {0, 1, 2, 3, 64, 1000};
	static const int jobs[] = {1, 2, 3, 8, 0, -1};

	for (size_t a = 0; a < AB_NELEM(ns); a++)
		for (size_t b = 0; b < AB_NELEM(jobs); b++) {
			struct job j;

			job_init(&j, ns[a], ab_pool_workers(ns[a], jobs[b]));
			CHECK(ab_pool_run(ns[a], jobs[b], count, &j) == 0);
			CHECK(all_once(&j));
			CHECK(!atomic_load(&j.bad_worker));
			CHECK(!atomic_load(&j.order_bad));
			job_free(&j);
		}
	CHECK(ab_pool_workers(0, 4) == 1);
	CHECK(ab_pool_workers(3, 4) == 3);
	CHECK(ab_pool_workers(100, 4) == 4);
	CHECK(ab_pool_workers(100, 0) == ab_pool_default_jobs());
	CHECK(ab_pool_jobs(100000) == AB_POOL_MAX);
	CHECK(ab_pool_default_jobs() >= 1);
}

static void
test_error(void)
{
	for (int jobs = 1; jobs <= 4; jobs++) {
		struct job j;

		job_init(&j, 1000, jobs);
		j.fail_at = 10;
		CHECK(ab_pool_run(1000, jobs, count, &j) == -7);
		/* items before the failure were handed out before it, so they ran */
		for (size_t i = 0; i <= 10; i++)
			CHECK(atomic_load(&j.runs[i]) == 1);
		/* it stopped: far fewer than all ran, none twice */
		CHECK(atomic_load(&j.done) < 1000);
		CHECK(none_twice(&j));
		job_free(&j);
	}
}

static void
test_stream(void)
{
	for (int threads = 0; threads <= 3; threads++) {
		struct ab_pool *p;
		struct job j;

		job_init(&j, 500, threads + 1);
		CHECK(ab_pool_start(&p, threads, count, NULL, &j) == threads);
		for (size_t n = 1; n <= 500; n++) {
			ab_pool_publish(p, n);
			if (n % 50 == 0)
				usleep(200);
		}
		CHECK(ab_pool_finish(p) == 0);
		CHECK(all_once(&j));
		CHECK(!atomic_load(&j.bad_worker));
		CHECK(!atomic_load(&j.order_bad));
		job_free(&j);
	}
}

static void
test_stop(void)
{
	struct ab_pool *p;
	struct job j;

	job_init(&j, 100000, 3);
	CHECK(ab_pool_start(&p, 2, count, NULL, &j) == 2);
	ab_pool_publish(p, 100000);
	usleep(1000);
	ab_pool_stop(p);
	/* nothing runs after the stop returned, nothing ran twice */
	{
		size_t done = atomic_load(&j.done);

		usleep(1000);
		CHECK(atomic_load(&j.done) == done);
		CHECK(done < 100000);
	}
	CHECK(none_twice(&j));
	job_free(&j);

	/* a stop with nothing published and workers waiting */
	job_init(&j, 1, 3);
	ab_pool_start(&p, 2, count, NULL, &j);
	usleep(1000);
	ab_pool_stop(p);
	CHECK(atomic_load(&j.done) == 0);
	job_free(&j);
}

/* a drain per worker: once each, after that worker's last item (its last[] no longer moves) */
static atomic_int drains[8];
static size_t drained_after[8];

static void
drain(void *arg, int worker)
{
	struct job *j = arg;

	atomic_fetch_add(&drains[worker], 1);
	drained_after[worker] = j->last[worker];
}

static void
test_drain(void)
{
	for (int stop = 0; stop <= 1; stop++) {
		struct ab_pool *p;
		struct job j;

		memset(drains, 0, sizeof(drains));
		job_init(&j, 300, 4);
		for (int w = 0; w < 4; w++)
			drained_after[w] = j.last[w];
		CHECK(ab_pool_start(&p, 3, count, drain, &j) == 3);
		ab_pool_publish(p, 300);
		if (stop) {
			ab_pool_stop(p);
			/* the calling thread took no item and is no worker here */
			CHECK(atomic_load(&drains[0]) == 0);
		} else {
			CHECK(ab_pool_finish(p) == 0);
			CHECK(all_once(&j));
			CHECK(atomic_load(&drains[0]) == 1);
		}
		for (int w = 1; w < 4; w++)
			CHECK(atomic_load(&drains[w]) == 1);
		for (int w = 0; w < 4; w++)
			CHECK(drained_after[w] == j.last[w]);
		job_free(&j);
	}
}

/* every item records whether it saw itself inside a parallel pool */
static int
in_worker(void *arg, size_t i, int worker)
{
	atomic_int *seen = arg;

	(void)worker;
	atomic_fetch_add(&seen[i], ab_pool_in_worker() ? 1 : 100);
	return 0;
}

static void
test_in_worker(void)
{
	atomic_int seen[64];

	CHECK(!ab_pool_in_worker());
	for (int i = 0; i < 64; i++)
		atomic_init(&seen[i], 0);
	/* two workers: every item, the caller's included, is inside */
	CHECK(ab_pool_run(64, 2, in_worker, seen) == 0);
	for (int i = 0; i < 64; i++)
		CHECK(atomic_load(&seen[i]) == 1);
	CHECK(!ab_pool_in_worker());
	/* one worker: run serially on this thread, which has the cores to itself */
	for (int i = 0; i < 64; i++)
		atomic_init(&seen[i], 0);
	CHECK(ab_pool_run(64, 1, in_worker, seen) == 0);
	for (int i = 0; i < 64; i++)
		CHECK(atomic_load(&seen[i]) == 100);
}

int
main(void)
{
	test_in_worker();
	test_run();
	test_error();
	test_stream();
	test_stop();
	test_drain();
	return unit_done();
}
