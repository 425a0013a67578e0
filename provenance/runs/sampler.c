#include "sampler.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <regex.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../lib/proctree.h"
#include "../../lib/util.h"

/* the longest line matched against the marks; a longer one is matched on its start */
#define LINE_MAX_MATCH 4096
/* what a record keeps of a marking line */
#define LINE_KEPT 256
/* the grace of processes ended after the cooldown, between SIGTERM and SIGKILL */
#define END_GRACE_S 2.0

struct ab_sampler {
	struct ab_sampler_opts o;
	struct ab_proctree *tree;
	regex_t re[2];              /* start, end */
	int have_re[2];
	int logfd;
	off_t log_off;
	struct ab_buf line;         /* the log's last line, not ended yet (its first LINE_MAX_MATCH bytes) */
	size_t line_len;            /* its whole length */
	pthread_t thread;
	atomic_int command_done;    /* finish was called: the command's wait returned */
	double t0;
	struct ab_sampling out;
	int error;
};

int
ab_sampler_check_regex(const char *option, const char *pattern)
{
	regex_t re;
	int rc = regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB);

	if (rc) {
		char msg[256];

		regerror(rc, &re, msg, sizeof(msg));
		ab_error("%s: '%s' is not an extended regular expression: %s", option, pattern, msg);
		return AB_EFAIL;
	}
	regfree(&re);
	return 0;
}

static char *
kept_line(const char *s, size_t n)
{
	return ab_strndup(s, n < LINE_KEPT ? n : LINE_KEPT);
}

/* a whole line of the log: does it mark the window's start or end? */
static void
match_line(struct ab_sampler *s, const char *l, size_t n, double at)
{
	char *z = ab_strndup(l, n < LINE_MAX_MATCH ? n : LINE_MAX_MATCH);
	struct ab_sampling *o = &s->out;

	if (s->have_re[0] && !o->seen.start_marked) {
		if (regexec(&s->re[0], z, 0, NULL, 0) == 0) {
			o->seen.start_marked = 1;
			o->seen.window_start_s = at;
			o->seen.start_line = kept_line(l, n);
		}
	} else if (s->have_re[1] && !o->seen.end_marked && regexec(&s->re[1], z, 0, NULL, 0) == 0) {
		o->seen.end_marked = 1;
		o->seen.window_end_s = at;
		o->seen.end_line = kept_line(l, n);
	}
	free(z);
}

/* the log's new bytes: each line they end looked at */
static void
scan_log(struct ab_sampler *s, double at)
{
	char buf[16384];
	ssize_t got;

	if (s->logfd < 0)
		return;
	while ((got = pread(s->logfd, buf, sizeof(buf), s->log_off)) > 0) {
		const char *p = buf, *end = buf + got;

		s->log_off += got;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);

			if (s->line.len < LINE_MAX_MATCH)
				ab_buf_add(&s->line, p, n < LINE_MAX_MATCH - s->line.len ? n : LINE_MAX_MATCH - s->line.len);
			s->line_len += n;
			if (!nl)
				break;
			match_line(s, s->line.s ? s->line.s : "", s->line.len, at);
			ab_buf_clear(&s->line);
			s->line_len = 0;
			p = nl + 1;
		}
	}
}

static void
sleep_until(double t)
{
	double left = t - ab_now();

	if (left > 0) {
		struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};

		while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
			;
	}
}

static void
add_sample(struct ab_sampler *s, const struct ab_proctree_totals *t, double at)
{
	struct ab_sample x = {
		.ms = (uint64_t)(at * 1000 + 0.5), .rss_kb = t->rss_kb, .cpu_ms = t->cpu_ms, .minflt = t->minflt,
		.majflt = t->majflt, .threads = (uint64_t)t->threads, .processes = (uint64_t)t->processes,
		.comm_rss_kb = t->comm_rss_kb, .pss_kb = t->pss_kb, .anon_kb = t->anon_kb,
	};

	/* two readings within a millisecond (the command's end) keep the later */
	if (s->out.series.n && s->out.series.v[s->out.series.n - 1].ms >= x.ms) {
		x.ms = s->out.series.v[s->out.series.n - 1].ms;
		s->out.series.v[s->out.series.n - 1] = x;
		return;
	}
	ab_series_add(&s->out.series, &x);
}

/* where the window ends as far as known now: the mark, else the command's end; < 0 not yet */
static double
window_end(const struct ab_sampling *o)
{
	return o->seen.end_marked ? o->seen.window_end_s : o->seen.command_end_s;
}

/*
 * The thread: one reading per interval, once the command is found (until
 * then every millisecond, so that a sample is taken near its start).
 */
static void *
sample_loop(void *arg)
{
	struct ab_sampler *s = arg;
	struct ab_sampling *o = &s->out;
	double interval = s->o.interval_ms / 1000.0, next = s->t0;
	int found = 0;

	for (;;) {
		struct ab_proctree_totals t;
		double now, at, wend;

		if (ab_proctree_read(s->tree, &t) < 0) {
			s->error = AB_EFAIL;
			break;
		}
		now = ab_now();
		at = now - s->t0;
		o->seen.ticks++;
		if (s->have_re[0] || s->have_re[1])
			scan_log(s, at);
		if (!found && t.root_seen) {
			found = 1;
			next = now;
		}
		if (t.processes)
			add_sample(s, &t, at);
		if (o->seen.command_end_s < 0 && ((t.root_seen && !t.root_alive) || atomic_load(&s->command_done)))
			o->seen.command_end_s = at;
		wend = window_end(o);
		if (o->seen.command_end_s >= 0) {
			if (!t.processes)
				break;
			/* processes outlived the command: theirs is the cooldown; without one they are left alone */
			if (s->o.cooldown_s > 0 && wend >= 0 && at >= wend + s->o.cooldown_s) {
				o->seen.leftovers_ended = ab_proctree_end(s->tree, END_GRACE_S);
				break;
			}
			if (s->o.cooldown_s <= 0 && atomic_load(&s->command_done))
				break;
		} else if (!found && atomic_load(&s->command_done)) {
			break;
		}
		if (!found) {
			sleep_until(now + 0.001);
			continue;
		}
		next += interval;
		if (ab_now() > next + interval) {
			/* a reading ran late (a loaded machine): the intervals missed are counted, not crammed in */
			double missed = floor((ab_now() - next) / interval);

			o->seen.late_ticks += (unsigned)missed;
			next += missed * interval;
		}
		sleep_until(next);
	}
	{
		struct timespec cpu;

		if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu) == 0)
			o->seen.sampler_cpu_s = (double)cpu.tv_sec + cpu.tv_nsec / 1e9;
	}
	return NULL;
}

static void
sampler_free(struct ab_sampler *s)
{
	for (int k = 0; k < 2; k++)
		if (s->have_re[k])
			regfree(&s->re[k]);
	if (s->logfd >= 0)
		close(s->logfd);
	ab_proctree_free(s->tree);
	ab_buf_free(&s->line);
	ab_sampling_release(&s->out);
	free(s);
}

int
ab_sampler_start(struct ab_sampler **out, const struct ab_sampler_opts *o)
{
	struct ab_sampler *s = ab_calloc(1, sizeof(*s));
	const char *pat[2] = {o->mark_start, o->mark_end};
	int rc;

	*out = NULL;
	s->o = *o;
	s->logfd = -1;
	s->out.seen.command_end_s = -1;
	s->out.seen.cooldown_at_s = -1;
	s->out.series.comm = o->comm != NULL;
	s->out.series.pss = o->pss;
	atomic_init(&s->command_done, 0);
	for (int k = 0; k < 2; k++)
		if (pat[k]) {
			if (ab_sampler_check_regex(k ? "--mark" : "--mark-start", pat[k]) < 0)
				goto fail;
			regcomp(&s->re[k], pat[k], REG_EXTENDED | REG_NOSUB);
			s->have_re[k] = 1;
		}
	if ((pat[0] || pat[1]) && (s->logfd = open(o->log_path, O_RDONLY | O_CLOEXEC)) < 0) {
		ab_error_errno("cannot read the log '%s'", o->log_path);
		goto fail;
	}
	if (ab_proctree_open(&s->tree, getpid(), o->comm, o->pss) < 0)
		goto fail;
	s->t0 = ab_now();
	if ((rc = pthread_create(&s->thread, NULL, sample_loop, s)) != 0) {
		errno = rc;
		ab_error_errno("cannot start the sampler");
		goto fail;
	}
	*out = s;
	return 0;
fail:
	sampler_free(s);
	return AB_EFAIL;
}

int
ab_sampler_finish(struct ab_sampling *out, struct ab_sampler *s)
{
	struct ab_sampling *o = &s->out;
	double wend;
	int e;

	atomic_store(&s->command_done, 1);
	pthread_join(s->thread, NULL);
	if (o->seen.command_end_s < 0)
		o->seen.command_end_s = ab_now() - s->t0;
	/* the log is whole now: a mark written at the very end is seen, at the command's end */
	if (s->have_re[0] || s->have_re[1]) {
		scan_log(s, o->seen.command_end_s);
		if (s->line.len)
			match_line(s, s->line.s, s->line.len, o->seen.command_end_s);
	}
	if (!o->seen.start_marked)
		o->seen.window_start_s = 0;
	wend = window_end(o);
	if (!o->seen.end_marked)
		o->seen.window_end_s = wend;
	if (s->o.cooldown_s > 0) {
		o->seen.cooldown_at_s = wend + s->o.cooldown_s;
		o->seen.cooldown_reached = ab_series_reaches(&o->series, o->seen.cooldown_at_s);
	}
	e = s->error;
	*out = *o;
	memset(o, 0, sizeof(*o));
	sampler_free(s);
	return e;
}

void
ab_sampling_release(struct ab_sampling *s)
{
	ab_series_release(&s->series);
	free((char *)s->seen.start_line);
	free((char *)s->seen.end_line);
	memset(s, 0, sizeof(*s));
}

void
ab_sampling_figures(struct ab_series_figures *f, const struct ab_sampling *s)
{
	struct ab_series_window w = {s->seen.window_start_s, s->seen.window_end_s, s->seen.cooldown_at_s};

	ab_series_figures(f, &s->series, &w);
}
