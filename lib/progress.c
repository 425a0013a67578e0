#include "progress.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

struct running {
	size_t step;
	char *label, *name;
	double start;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t ticker;
	int live, ticking, stop;
	size_t total;
	struct running *run;
	size_t nrun;
	int drawn; /* a live line is on the screen */
	int hushed; /* notes of other modules silenced while the live line runs */
	double last; /* when the last plain line was printed (not live) */
	double every; /* the heartbeat's period */
} P = {.lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER};

static void
format_elapsed(char *buf, size_t len, double s)
{
	int t = (int)s;

	if (t >= 3600)
		snprintf(buf, len, "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60);
	else
		snprintf(buf, len, "%d:%02d", t / 60, t % 60);
}

/* with P.lock held: before any line of progress, what came on stdout goes out first (2>&1 keeps lines whole) */
static void
clear_line(void)
{
	fflush(stdout);
	if (P.drawn) {
		fputs("\r\033[K", stderr);
		P.drawn = 0;
	}
}

/*
 * with P.lock held: the most recently started running step, as the live
 * line draws it ("[4/7] a: make (0:41) +1 running") or as a heartbeat
 * prints it ("[4/7] a: make: running (0:30) +1 running")
 */
static void
put_latest(const char *lead, const char *state)
{
	struct running *r = &P.run[P.nrun - 1];
	char el[32];

	format_elapsed(el, sizeof(el), ab_now() - r->start);
	fprintf(stderr, "%s[%zu/%zu] %s%s%s%s (%s)", lead, r->step, P.total, r->label ? r->label : "",
	    r->label ? ": " : "", r->name, state, el);
	if (P.nrun > 1)
		fprintf(stderr, " +%zu running", P.nrun - 1);
}

/* with P.lock held */
static void
draw(void)
{
	if (!P.live || !P.nrun) {
		clear_line();
		fflush(stderr);
		return;
	}
	put_latest("\r\033[K", "");
	P.drawn = 1;
	fflush(stderr);
}

/* with P.lock held, not live: a plain line that a step is still running, at most every P.every seconds */
static void
heartbeat(void)
{
	if (!P.nrun || ab_quiet || ab_now() - P.last < P.every)
		return;
	fflush(stdout);
	put_latest("", ": running");
	fputc('\n', stderr);
	fflush(stderr);
	P.last = ab_now();
}

static void *
tick(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&P.lock);
	while (!P.stop) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_sec += 1;
		pthread_cond_timedwait(&P.cond, &P.lock, &ts);
		if (!P.stop && P.live)
			draw();
		else if (!P.stop)
			heartbeat();
	}
	pthread_mutex_unlock(&P.lock);
	return NULL;
}

/* ab_error and friends while a build runs: printed above the live line */
static void
report_line(const char *line, size_t len)
{
	pthread_mutex_lock(&P.lock);
	clear_line();
	fwrite(line, 1, len, stderr);
	draw();
	fflush(stderr);
	pthread_mutex_unlock(&P.lock);
}

int
ab_progress_terminal(void)
{
	const char *term = getenv("TERM"), *nc = getenv("NO_COLOR");

	return isatty(2) && term && *term && strcmp(term, "dumb") && !(nc && *nc);
}

void
ab_progress_begin(size_t total)
{
	pthread_mutex_lock(&P.lock);
	P.total = total;
	P.live = ab_progress_terminal() && !ab_quiet && !ab_verbose;
	P.stop = 0;
	P.last = ab_now();
	{
		/* a test hook: the tests cannot wait 30 seconds */
		const char *hb = getenv("ALLOCBUILD_TEST_HEARTBEAT");

		P.every = hb && atof(hb) > 0 ? atof(hb) : AB_PROGRESS_HEARTBEAT;
	}
	/* other modules' notes (ab_note) would tear the live line: they go quiet */
	if (P.live && !P.hushed) {
		ab_report_mute();
		P.hushed = 1;
	}
	if (!P.ticking && pthread_create(&P.ticker, NULL, tick, NULL) == 0)
		P.ticking = 1;
	ab_set_reporter(report_line);
	pthread_mutex_unlock(&P.lock);
}

void
ab_progress_start(size_t step, const char *label, const char *name)
{
	struct running *r;

	pthread_mutex_lock(&P.lock);
	P.run = ab_realloc(P.run, (P.nrun + 1) * sizeof(*P.run));
	r = &P.run[P.nrun++];
	r->step = step;
	r->label = ab_strdup_or_null(label);
	r->name = ab_strdup(name);
	r->start = ab_now();
	if (!P.live && !ab_quiet) {
		fflush(stdout);
		fprintf(stderr, "[%zu/%zu] %s%s%s ...\n", step, P.total, label ? label : "", label ? ": " : "", name);
		fflush(stderr);
		P.last = ab_now();
	}
	draw();
	pthread_mutex_unlock(&P.lock);
}

void
ab_progress_end(size_t step, int ok)
{
	pthread_mutex_lock(&P.lock);
	for (size_t i = 0; i < P.nrun; i++) {
		struct running *r = &P.run[i];
		char el[32];

		if (r->step != step)
			continue;
		format_elapsed(el, sizeof(el), ab_now() - r->start);
		if (!P.live && !ab_quiet) {
			fflush(stdout);
			fprintf(stderr, "[%zu/%zu] %s%s%s (%s)%s\n", r->step, P.total, r->label ? r->label : "",
			    r->label ? ": " : "", r->name, el, ok ? "" : " failed");
			P.last = ab_now();
		}
		free(r->label);
		free(r->name);
		memmove(r, r + 1, (P.nrun - i - 1) * sizeof(*r));
		P.nrun--;
		break;
	}
	draw();
	pthread_mutex_unlock(&P.lock);
}

void
ab_progress_skip(size_t step, const char *label, const char *name, const char *why)
{
	pthread_mutex_lock(&P.lock);
	fflush(stdout);
	if (!P.live && !ab_quiet)
		fprintf(stderr, "[%zu/%zu] %s%s%s: %s\n", step, P.total, label ? label : "", label ? ": " : "",
		    name, why);
	pthread_mutex_unlock(&P.lock);
}

void
ab_progress_print(const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&P.lock);
	clear_line();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	draw();
	pthread_mutex_unlock(&P.lock);
}

void
ab_progress_finish(void)
{
	pthread_mutex_lock(&P.lock);
	P.stop = 1;
	pthread_cond_broadcast(&P.cond);
	pthread_mutex_unlock(&P.lock);
	if (P.ticking) {
		pthread_join(P.ticker, NULL);
		P.ticking = 0;
	}
	pthread_mutex_lock(&P.lock);
	ab_set_reporter(NULL);
	clear_line();
	fflush(stderr);
	if (P.hushed) {
		ab_report_unmute();
		P.hushed = 0;
	}
	pthread_mutex_unlock(&P.lock);
}
