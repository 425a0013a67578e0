#include "run.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/atomic.h"
#include "../lib/digestcache.h"
#include "../lib/hash.h"
#include "../lib/jsonio.h"
#include "../lib/proc.h"
#include "../lib/which.h"
#include "../lib/util.h"
#include "../provenance/record/manifest.h"
#include "../provenance/runs/metrics.h"
#include "../provenance/runs/runenv.h"
#include "../provenance/runs/runrec.h"
#include "../provenance/runs/sampler.h"
#include "../provenance/review/sign.h"
#include "build.h"
#include "cache.h"
#include "runinputs.h"
#include "runstats.h"

extern char **environ;

/* what one label runs with, checked before the first run */
struct label {
	const char *label;
	struct ab_manifest_runtime rt;
	const char *subject_kind;
	int cached;                /* the digest cache vouched for the artifact */
	char hashed_on[32];        /* when its bytes were last hashed */
	struct ab_runinputs in;    /* what its command runs and names (builder/runinputs.h) */
	struct ab_runstats stats;  /* --allocator-stats: its allocator's (builder/runstats.h) */
};

struct job {
	const struct ab_run_opts *o;
	struct label *labels;
	char *dir;                 /* OUTDIR/runs/NAME */
	char *reldir;              /* runs/NAME */
	const char *name;
	char *cwd;
	char *outdir_abs, *outdir_real; /* OUTDIR as a record must not name it */
	char *invocation, *recipe_sha256;
	int next, total, done;
	int batch;                 /* the number of this invocation's first run */
	int failed, junit_missing;
	int pin;                   /* --cpus: the command runs on cpus, allocbuild's main thread meanwhile too */
	cpu_set_t cpus, own_cpus;  /* the command's, and allocbuild's own */
	cJSON *json_runs;          /* --json: a member per run */
};

/* s with {bin} and {label} replaced; caller frees */
static char *
expand(const char *s, const char *bin, const char *label)
{
	struct ab_buf b = {0};

	while (*s) {
		if (!strncmp(s, "{bin}", 5) && bin) {
			ab_buf_puts(&b, bin);
			s += 5;
		} else if (!strncmp(s, "{label}", 7)) {
			ab_buf_puts(&b, label);
			s += 7;
		} else {
			ab_buf_putc(&b, *s++);
		}
	}
	return b.s ? ab_buf_detach(&b) : ab_strdup("");
}

static int
uses_bin(const struct ab_run_opts *o)
{
	for (char *const *a = o->argv; *a; a++)
		if (strstr(*a, "{bin}"))
			return 1;
	for (size_t i = 0; i < o->nsets; i++)
		if (strstr(o->sets[i], "{bin}"))
			return 1;
	return 0;
}

static void
bad_name(const char *name)
{
	ab_error("run: '%s' is not a run name: letters, digits, '.', '_' and '-', up to 64, not "
	    "starting with '.' or '-' (give one with --name)", name);
}

/* can the command be executed for this label ({bin} and {label} replaced)? */
static int
check_command(const struct label *l, const struct ab_run_opts *o)
{
	char *prog = expand(o->argv[0], l->rt.program, l->label);
	int ok = ab_proc_findable(prog, NULL);

	if (!ok)
		ab_error("run: cannot run '%s': %s", prog, strchr(prog, '/') ? "not an executable file" :
		    "command not found in PATH");
	free(prog);
	return ok ? 0 : AB_EFAIL;
}

/* the digest SHA256SUMS gives rel, or NULL */
static const char *
listed(const struct ab_manifest_recorded *r, const char *rel)
{
	for (size_t i = 0; i < r->paths.n; i++)
		if (!strcmp(r->paths.v[i], rel))
			return r->hexes.v[i];
	return NULL;
}

/*
 * The label's runtime and its artifact, as the build recorded it: the
 * subject's digest in binary-provenance.json, SHA256SUMS and the
 * statement alike, and the file still holding it.
 */
static int
check_label(struct label *l, const struct ab_manifest_recorded *rec, const char *outdir, int need_bin,
    const char *cache_dir, int rehash)
{
	char hex[AB_HEX_LEN + 1];
	int64_t at;
	const char *want;
	char *path;
	int e;

	if ((e = ab_manifest_runtime(&l->rt, outdir, l->label, environ, 1)) < 0)
		return e;
	if (need_bin && !l->rt.program) {
		ab_error("run: '{bin}': variant '%s' has no program artifact (its artifacts are libraries)", l->label);
		return AB_EFAIL;
	}
	if (!l->rt.subject) {
		ab_error("run: variant '%s' has no artifact recorded", l->label);
		return AB_EFAIL;
	}
	l->subject_kind = l->rt.program ? "program" : "allocator archive";
	want = ab_manifest_recorded_subject(rec, l->rt.subject);
	if (!want || strcmp(want, l->rt.subject_sha256)) {
		ab_error("run: %s: '%s' is not recorded alike by SHA256SUMS, the statement and "
		    "binary-provenance.json: run 'allocbuild verify %s'", l->label, l->rt.subject, outdir);
		return AB_ECHECK;
	}
	path = ab_path_join(outdir, l->rt.subject);
	e = ab_digestcache_hash(hex, &l->cached, &at, path, cache_dir, rehash);
	ab_utc_time(l->hashed_on, sizeof(l->hashed_on), (time_t)(at / 1000));
	if (e == 0 && strcmp(hex, want)) {
		ab_error("run: %s: '%s' changed since the build: sha256 %s, the build recorded %s; refusing to run it",
		    l->label, path, hex, want);
		e = AB_ECHECK;
	}
	free(path);
	return e;
}

/* the build statement's invocationId and the recipe's digest, when SHA256SUMS vouches for them */
static void
build_identity(struct job *j, const struct ab_manifest_recorded *rec)
{
	const char *want = listed(rec, AB_MANIFEST_STATEMENT);
	char *path = ab_path_join(j->o->outdir, AB_MANIFEST_STATEMENT);
	char hex[AB_HEX_LEN + 1];
	cJSON *doc = NULL;

	ab_report_mute();
	if (want && ab_hash_file(hex, NULL, path) == 0 && !strcmp(hex, want) && ab_json_read(&doc, path) == 0) {
		const char *id = ab_json_str(ab_json_get(ab_json_get(ab_json_get(doc, "predicate"), "runDetails"),
		    "metadata"), "invocationId");

		if (id)
			j->invocation = ab_strdup(id);
	}
	ab_report_unmute();
	if (listed(rec, "recipe.json"))
		j->recipe_sha256 = ab_strdup(listed(rec, "recipe.json"));
	cJSON_Delete(doc);
	free(path);
}

/* the environment of one run: the caller's, then the label's runtime, then ours */
static void
run_env(struct ab_env *e, const struct label *l, const struct ab_run_opts *o)
{
	ab_env_empty(e);
	for (char **p = environ; p && *p; p++)
		if (strchr(*p, '='))
			ab_strv_push(&e->envp, *p);
	for (size_t i = 0; i < l->rt.unset.n; i++)
		ab_env_unset(e, l->rt.unset.v[i]);
	for (size_t i = 0; i < l->rt.set.n; i++) {
		const char *eq = strchr(l->rt.set.v[i], '=');
		char *k = ab_strndup(l->rt.set.v[i], (size_t)(eq - l->rt.set.v[i]));

		ab_env_set(e, k, eq + 1);
		free(k);
	}
	ab_env_set(e, "ALLOCBUILD_LABEL", l->label);
	if (l->rt.program)
		ab_env_set(e, "ALLOCBUILD_BIN", l->rt.program);
	if (l->rt.archive)
		ab_env_set(e, "ALLOCBUILD_ARCHIVE", l->rt.archive);
	for (size_t i = 0; i < o->nsets; i++) {
		const char *eq = strchr(o->sets[i], '=');
		char *k = ab_strndup(o->sets[i], (size_t)(eq - o->sets[i]));
		char *v = expand(eq + 1, l->rt.program, l->label);

		ab_env_set(e, k, v);
		free(k);
		free(v);
	}
	/* last: joined to a conf variable that --env set */
	if (o->allocator_stats)
		ab_runstats_env(&l->stats, e);
}

/* the JUnit report before the run: it counts only when the command wrote it */
struct stamp {
	int exists;
	struct stat st;
};

static void
stamp_of(struct stamp *s, const char *path)
{
	s->exists = lstat(path, &s->st) == 0;
}

/* the report itself, not what a link points to: a link is written (and refused later) */
static int
written_since(const struct stamp *before, const char *path)
{
	struct stat st;

	if (lstat(path, &st) < 0 || !(S_ISREG(st.st_mode) || S_ISLNK(st.st_mode)))
		return 0;
	return !before->exists || st.st_ino != before->st.st_ino || st.st_size != before->st.st_size ||
	    st.st_mtim.tv_sec != before->st.st_mtim.tv_sec || st.st_mtim.tv_nsec != before->st.st_mtim.tv_nsec;
}

/*
 * keep the report the command wrote in the run's folder, with its summary:
 * only a regular file (a link is not followed: it could make run copy
 * any file of the user's into the OUTDIR and the bundle) that is a JUnit
 * report (else its digest only is recorded). 0, with r->junit_refused set
 * when it was not kept, or < 0 (reported)
 */
static int
keep_junit(struct ab_runrec *r, struct job *j, const char *base)
{
	struct ab_buf b = {0};
	char *dst;
	int fd = open(j->o->junit, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e;

	if (fd < 0 && errno == ELOOP) {
		r->junit_refused = "a symbolic link";
		return 0;
	}
	if (fd < 0) {
		ab_error_errno("run: cannot open the JUnit report '%s'", j->o->junit);
		return AB_EFAIL;
	}
	e = ab_read_fd_max(&b, fd, j->o->junit, 256u << 20);
	close(fd);
	if (e < 0)
		return AB_EFAIL;
	ab_hash_buf(r->junit.sha256, b.s ? b.s : "", b.len);
	r->junit.size = b.len;
	r->junit_summary = ab_runrec_junit_summary(b.s ? b.s : "", b.len);
	if (!r->junit_summary) {
		r->junit_refused = "not a JUnit report";
		ab_buf_free(&b);
		return 0;
	}
	r->junit.path = ab_sprintf("%s/%s.junit.xml", j->reldir, base);
	dst = ab_path_join(j->o->outdir, r->junit.path);
	e = ab_write_file_atomic(dst, b.s ? b.s : "", b.len);
	free(dst);
	ab_buf_free(&b);
	return e;
}

static void
describe(char *buf, size_t len, const struct ab_runrec *r)
{
	switch (r->status) {
	case AB_RUN_EXITED:
		snprintf(buf, len, "exit %d", r->exit_code);
		break;
	case AB_RUN_SIGNALED:
		snprintf(buf, len, "killed by signal %d (%s)", r->signal, sigabbrev_np(r->signal));
		break;
	case AB_RUN_TIMED_OUT:
		snprintf(buf, len, "timed out");
		break;
	case AB_RUN_INTERRUPTED:
		snprintf(buf, len, "interrupted");
		break;
	}
}

static int
start_sampler(struct ab_sampler **s, const struct job *j, const char *log_path)
{
	const struct ab_run_opts *o = j->o;
	struct ab_sampler_opts so = {.interval_ms = o->sample_ms, .comm = o->sample_comm, .pss = o->sample_pss,
	    .log_path = log_path, .mark_start = o->mark_start, .mark_end = o->mark, .cooldown_s = o->cooldown};

	return ab_sampler_start(s, &so);
}

static double
cpu_between(const struct rusage *a, const struct rusage *b)
{
	double ua = (double)a->ru_utime.tv_sec + a->ru_utime.tv_usec / 1e6, sa = (double)a->ru_stime.tv_sec +
	    a->ru_stime.tv_usec / 1e6;
	double ub = (double)b->ru_utime.tv_sec + b->ru_utime.tv_usec / 1e6, sb = (double)b->ru_stime.tv_sec +
	    b->ru_stime.tv_usec / 1e6;

	return (ub - ua) + (sb - sa);
}

/* what the sampler saw, for the record; its series written beside it; the warnings of a window or cooldown missed */
static int
keep_series(struct ab_runrec_sampling *rs, const struct ab_sampling *sam, const struct job *j, const char *label,
    const char *base)
{
	const struct ab_run_opts *o = j->o;
	struct ab_buf csv = {0};
	char *path;
	int e;

	rs->interval_ms = o->sample_ms;
	rs->comm = o->sample_comm;
	rs->pss = o->sample_pss;
	rs->mark_start = o->mark_start;
	rs->mark_end = o->mark;
	rs->cooldown_s = o->cooldown;
	rs->samples = sam->series.n;
	rs->seen = sam->seen; /* the lines it holds stay the sampling's */
	ab_sampling_figures(&rs->figures, sam);
	if (o->mark_start && !sam->seen.start_marked)
		ab_warn("run: %s: no line of its output matched --mark-start '%s': the window starts with the command",
		    label, o->mark_start);
	if (o->mark && !sam->seen.end_marked)
		ab_warn("run: %s: no line of its output matched --mark '%s': the window ends with the command", label,
		    o->mark);
	if (o->cooldown > 0 && !sam->seen.cooldown_reached)
		ab_warn("run: %s: the sampling ended at %.2f s, before the cooldown's %.2f s: no cooldown RSS (keep the "
		    "command, or the server it started, running for --cooldown after the window)", label,
		    sam->series.n ? (double)sam->series.v[sam->series.n - 1].ms / 1000 : 0.0, sam->seen.cooldown_at_s);
	ab_series_csv(&csv, &sam->series);
	rs->series.path = ab_sprintf("%s/%s.series.csv", j->reldir, base);
	rs->series.size = csv.len;
	ab_hash_buf(rs->series.sha256, csv.s ? csv.s : "", csv.len);
	path = ab_path_join(o->outdir, rs->series.path);
	e = ab_write_file_atomic(path, csv.s ? csv.s : "", csv.len);
	free(path);
	ab_buf_free(&csv);
	return e;
}

/* the record of run number j->next of label l before it runs: what is run, how, in which environment */
static void
record_start(struct ab_runrec *r, struct job *j, struct label *l, int rep, char *const *order, size_t norder,
    struct ab_strv *argv, struct ab_env *env)
{
	const struct ab_run_opts *o = j->o;

	r->name = j->name;
	r->number = j->next++;
	r->label = l->label;
	r->repetition = rep + 1;
	r->repetitions = o->repeat;
	r->order = order;
	r->norder = norder;
	r->build_invocation = j->invocation;
	r->recipe_sha256 = j->recipe_sha256;
	r->subject = l->rt.subject;
	r->subject_kind = l->subject_kind;
	r->subject_cached = l->cached;
	memcpy(r->subject_hashed_on, l->hashed_on, sizeof(r->subject_hashed_on));
	memcpy(r->subject_sha256, l->rt.subject_sha256, sizeof(r->subject_sha256));
	r->cwd = j->cwd;
	r->outdir_abs = j->outdir_abs;
	r->outdir_real = j->outdir_real;
	r->home = getenv("HOME");
	r->program = l->in.program;
	r->files = l->in.files;
	r->nfiles = l->in.nfiles;
	r->given = l->in.given.name ? &l->in.given : NULL;
	r->junit_path = o->junit;
	r->batch = j->batch;
	r->rotated = o->rotate;
	r->cell = o->cell;
	r->cpus = o->cpus;
	for (char *const *a = o->argv; *a; a++)
		ab_strv_push_owned(argv, expand(*a, l->rt.program, l->label));
	r->argv = ab_strv_argv(argv);
	run_env(env, l, o);
	for (size_t i = 0; i < env->set.n; i++)
		ab_strv_push(&r->overrides, env->set.v[i]);
	if (o->env_pad > 0) {
		/* the environment's size, varied over the repetitions: 0 to the largest, evenly */
		size_t n = o->repeat > 1 ? (size_t)o->env_pad * (size_t)rep / (size_t)(o->repeat - 1) : 0;
		char *pad = ab_calloc(n + 1, 1);

		memset(pad, 'x', n);
		ab_env_set(env, AB_RUN_ENV_PAD, pad);
		free(pad);
		r->env_padded = 1;
		r->env_pad = (int)n;
	}
	for (size_t i = 0; i < env->removed.n; i++)
		ab_strv_push(&r->removed, env->removed.v[i]);
	if (r->removed.n)
		ab_strv_sort(&r->removed);
}

/* how the command ended, into its record */
static void
record_result(struct ab_runrec *r, const struct ab_proc_result *res)
{
	r->exit_code = res->exit_code;
	r->signal = res->signal;
	/* microseconds: what rusage measures, without the noise of a double's last digits */
	r->wall_s = (double)(long long)(res->seconds * 1e6 + 0.5) / 1e6;
	r->user_s = (double)(long long)(res->user_s * 1e6 + 0.5) / 1e6;
	r->sys_s = (double)(long long)(res->sys_s * 1e6 + 0.5) / 1e6;
	r->maxrss_kb = res->maxrss_kb;
	r->status = ab_proc_caught() ? AB_RUN_INTERRUPTED : res->timed_out ? AB_RUN_TIMED_OUT :
	    res->signal ? AB_RUN_SIGNALED : AB_RUN_EXITED;
}

/*
 * --junit: the report the command wrote since before (kept, onto files)
 * or why there is none (recorded, reported); AB_EFAIL when it cannot be kept
 */
static int
record_junit(struct ab_runrec *r, struct job *j, const struct label *l, const struct stamp *before,
    const char *base, struct ab_runrec_file *files, size_t *nfiles)
{
	const char *junit = j->o->junit;

	if (!written_since(before, junit)) {
		ab_error("run: %s: the command did not write the JUnit report '%s': recorded as missing", l->label, junit);
		j->junit_missing = 1;
		return 0;
	}
	if (keep_junit(r, j, base) < 0)
		return AB_EFAIL;
	if (r->junit.path) {
		files[(*nfiles)++] = r->junit;
	} else {
		ab_error("run: %s: the JUnit report '%s' is %s: not kept, its state recorded", l->label, junit,
		    r->junit_refused);
		j->junit_missing = 1;
	}
	return 0;
}

/* the run's in-toto Statement, written, and every file of the run appended to SHA256SUMS */
static int
record_write(const struct ab_runrec *r, const struct job *j, const char *base, struct ab_runrec_file *files,
    size_t nfiles)
{
	cJSON *stmt = ab_runrec_statement(r);
	char *json = cJSON_Print(stmt), *text = ab_sprintf("%s\n", json), *path;
	struct ab_runrec_file f = {0};
	int e;

	cJSON_Delete(stmt);
	cJSON_free(json);
	f.path = ab_sprintf("%s/%s.intoto.json", j->reldir, base);
	f.size = strlen(text);
	ab_hash_buf(f.sha256, text, f.size);
	path = ab_path_join(j->o->outdir, f.path);
	files[nfiles++] = f;
	e = ab_write_file_atomic(path, text, f.size) < 0 || ab_runrec_sums_append(j->o->outdir, files, nfiles) < 0 ?
	    AB_EFAIL : 0;
	free(f.path);
	free(path);
	free(text);
	return e;
}

/* a figure of the sampling, or null */
static void
add_kib(cJSON *o, const char *name, double kib)
{
	if (isnan(kib))
		cJSON_AddNullToObject(o, name);
	else
		cJSON_AddNumberToObject(o, name, kib);
}

/*
 * the run's line: on stderr for the user, on stdout for scripts (none with
 * -q); with --json a member of the document instead:
 * {"record", "label", "repetition", "result", "exit_code", "wall_s",
 *  "steady_rss_kib", "peak_rss_kib", "cooldown_rss_kib"}
 */
static void
record_report(const struct ab_runrec *r, struct job *j, const char *base, int rep)
{
	char what[64];

	describe(what, sizeof(what), r);
	if (j->json_runs) {
		cJSON *o = cJSON_CreateObject();
		char *rec = ab_sprintf("%s/%s.intoto.json", j->reldir, base);

		cJSON_AddStringToObject(o, "record", rec);
		cJSON_AddStringToObject(o, "label", r->label);
		cJSON_AddNumberToObject(o, "repetition", rep + 1);
		cJSON_AddStringToObject(o, "result", what);
		cJSON_AddNumberToObject(o, "exit_code", r->exit_code);
		cJSON_AddNumberToObject(o, "wall_s", r->wall_s);
		/* null where there is no figure: not sampled, or too short to sample (ab_runrec_too_short) */
		add_kib(o, "steady_rss_kib", r->sampling && !ab_runrec_too_short(r, 1) ? r->sampling->figures.steady_rss_kb : NAN);
		add_kib(o, "peak_rss_kib", r->sampling && !ab_runrec_too_short(r, 0) ? r->sampling->figures.peak_rss_kb : NAN);
		add_kib(o, "cooldown_rss_kib", r->sampling && !ab_runrec_too_short(r, 0) ?
		    r->sampling->figures.cooldown_rss_kb : NAN);
		cJSON_AddItemToArray(j->json_runs, o);
		free(rec);
	}
	if (!ab_quiet) {
		fflush(stdout);
		fprintf(stderr, "[%d/%d] %s (repetition %d/%d): %s, %.2fs\n", j->done, j->total, r->label, rep + 1,
		    j->o->repeat, what, r->wall_s);
	}
	if (j->json_runs || ab_quiet)
		return;
	printf("%s/%s.intoto.json: %s %d/%d %s, %.3f s", j->reldir, base, r->label, rep + 1, j->o->repeat, what,
	    r->wall_s);
	/* figures of a run too short to sample are whatever the sampler caught: said, not shown (as compare does) */
	if (r->sampling && ab_runrec_too_short(r, 0))
		printf(", too short to sample (%zu sample%s, one every %d ms)", r->sampling->samples,
		    r->sampling->samples == 1 ? "" : "s", r->sampling->interval_ms);
	else if (r->sampling && ab_runrec_too_short(r, 1))
		printf(", a measured window too short to sample (%zu sample%s), peak %.1f MiB",
		    r->sampling->figures.window_samples, r->sampling->figures.window_samples == 1 ? "" : "s",
		    r->sampling->figures.peak_rss_kb / 1024);
	else if (r->sampling && !isnan(r->sampling->figures.steady_rss_kb))
		printf(", steady RSS %.1f MiB, peak %.1f MiB", r->sampling->figures.steady_rss_kb / 1024,
		    r->sampling->figures.peak_rss_kb / 1024);
	if (r->sampling && !ab_runrec_too_short(r, 0) && !isnan(r->sampling->figures.cooldown_rss_kb))
		printf(", cooldown %.1f MiB", r->sampling->figures.cooldown_rss_kb / 1024);
	printf("\n");
}

/* one run of one label: the command, its log, its JUnit report, its record, SHA256SUMS */
static int
run_one(struct job *j, struct label *l, int rep, char *const *order, size_t norder)
{
	const struct ab_run_opts *o = j->o;
	struct ab_runrec r = {0};
	struct ab_env env = {0};
	struct ab_strv argv = {0};
	struct ab_atomic log = {0};
	struct ab_proc_result res;
	struct stamp junit_before = {0};
	struct ab_runrec_file files[5], kept = {0};
	struct ab_sampler *sampler = NULL;
	struct ab_sampling sam = {0};
	struct ab_runrec_sampling rs = {0};
	struct ab_runrec_allocstats as;
	struct rusage ru0, ru1;
	size_t nfiles = 0;
	char *base = ab_sprintf("%04d-%s", j->next, l->label), *path = NULL;
	int e = AB_EFAIL;

	log.fd = -1;
	record_start(&r, j, l, rep, order, norder, &argv, &env);
	r.log.path = ab_sprintf("%s/%s.log", j->reldir, base);
	path = ab_path_join(o->outdir, r.log.path);
	if (ab_atomic_open(&log, path, AB_ATOMIC_NOSYNC) < 0)
		goto done;
	if (o->junit)
		stamp_of(&junit_before, o->junit);
	++j->done;
	if (!ab_quiet) {
		fflush(stdout);
		fprintf(stderr, "[%d/%d] %s (repetition %d/%d): %s\n", j->done, j->total, l->label, rep + 1, o->repeat,
		    r.log.path);
	}
	/* before the sampler starts: its thread's CPU time, all of it, is part of allocbuild's */
	getrusage(RUSAGE_SELF, &ru0);
	if (o->sample_ms && start_sampler(&sampler, j, log.tmp) < 0)
		goto done;
	/* the command inherits the main thread's CPUs; the sampler keeps allocbuild's */
	if (j->pin && sched_setaffinity(0, sizeof(j->cpus), &j->cpus) < 0) {
		ab_error_errno("run: cannot run on the CPUs '%s'", o->cpus);
		goto done;
	}
	r.environment = ab_runenv_capture();
	ab_utc_now_ms(r.started_on, sizeof(r.started_on));
	{
		struct ab_proc p = {.argv = r.argv, .cwd = NULL, .envp = ab_env_envp(&env), .log_path = log.tmp,
		    .tee = !o->json, .timeout = o->timeout,
		    /*
		     * every process the command starts ends with it; but for a cooldown
		     * after the command's exit (no --mark) its leftovers must outlive it:
		     * then the sampler ends them after the cooldown (docs/runs.md)
		     */
		    .whole_tree = !(o->sample_ms && o->cooldown > 0 && !o->mark)};
		int pe = ab_proc_run(&res, &p);

		if (j->pin)
			sched_setaffinity(0, sizeof(j->own_cpus), &j->own_cpus);
		if (pe < 0)
			goto done;
	}
	ab_utc_now_ms(r.finished_on, sizeof(r.finished_on));
	if (sampler) {
		int se = ab_sampler_finish(&sam, sampler);

		sampler = NULL;
		if (se < 0)
			goto done;
	}
	getrusage(RUSAGE_SELF, &ru1);
	r.allocbuild_cpu_s = cpu_between(&ru0, &ru1);
	ab_runenv_finish(r.environment);
	record_result(&r, &res);
	if (ab_metrics_scan(&r.metrics, log.tmp, l->label) < 0)
		goto done;
	if (o->allocator_stats) {
		ab_runstats_read(&as, &r.metrics, &l->stats, log.tmp, r.log.path, l->label);
		r.alloc_stats = &as;
	}
	if (ab_hash_file(r.log.sha256, &r.log.size, log.tmp) < 0 || ab_atomic_commit(&log) < 0)
		goto done;
	files[nfiles++] = r.log;
	if (o->sample_ms) {
		if (keep_series(&rs, &sam, j, l->label, base) < 0)
			goto done;
		r.sampling = &rs;
		files[nfiles++] = rs.series;
	}
	if (o->junit && record_junit(&r, j, l, &junit_before, base, files, &nfiles) < 0)
		goto done;
	/* --program's copy, listed with the first record that names it */
	if (ab_runinputs_keep(&kept, &l->in, o->outdir) < 0)
		goto done;
	if (kept.path) {
		files[nfiles++] = kept;
		for (size_t i = 0; i < o->nlabels; i++)
			ab_runinputs_kept_by_other(&j->labels[i].in, &kept);
	}
	if (record_write(&r, j, base, files, nfiles) < 0)
		goto done;
	record_report(&r, j, base, rep);
	if (r.status != AB_RUN_EXITED || r.exit_code != 0)
		j->failed = 1;
	e = 0;
done:
	if (sampler)
		ab_sampler_finish(&sam, sampler);
	ab_sampling_release(&sam);
	free(rs.series.path);
	free(kept.path);
	ab_atomic_abort(&log);
	ab_env_release(&env);
	ab_strv_free(&argv);
	ab_runrec_release(&r);
	free(base);
	free(path);
	return e;
}

/*
 * What each label's command runs and names, hashed before the first run
 * (builder/runinputs.h); a program that is no artifact of the OUTDIR,
 * with no --program, warned about once per program
 */
static int
hash_inputs(struct job *j, const struct ab_manifest_recorded *rec, const char *cache_dir)
{
	const struct ab_run_opts *o = j->o;
	struct ab_runinputs_where w = {.outdir = o->outdir, .outdir_real = j->outdir_real, .rec = rec,
	    .cache_dir = cache_dir, .rehash = o->rehash};
	struct ab_strv warned = {0};
	int e = 0;

	for (size_t i = 0; i < o->nlabels && e == 0; i++) {
		struct label *l = &j->labels[i];
		struct ab_strv argv = {0};
		char *program = o->program ? expand(o->program, l->rt.program, l->label) : NULL;

		for (char *const *a = o->argv; *a; a++)
			ab_strv_push_owned(&argv, expand(*a, l->rt.program, l->label));
		e = ab_runinputs_hash(&l->in, ab_strv_argv(&argv), program, j->reldir, &w);
		if (e == 0 && !ab_runinputs_tied(&l->in) && !ab_strv_has(&warned, l->in.program.sha256)) {
			ab_strv_push(&warned, l->in.program.sha256);
			ab_warn("run: %s: its program '%s' (sha256 %.12s) is not an artifact of '%s', and no file its "
			    "arguments name is: the records name it by its digest alone; build it as a variant of the "
			    "recipe (and run {bin}), or give the program that runs with --program PATH (kept with the "
			    "runs as their subject)", l->label, argv.v[0], l->in.program.sha256, o->outdir);
		}
		ab_strv_free(&argv);
		free(program);
	}
	ab_strv_free(&warned);
	return e;
}

/* --cpus: a list the machine can run the command on (tried now, before any run) */
static int
check_cpus(struct job *j)
{
	const char *list = j->o->cpus;

	if (!list)
		return 0;
	if (ab_runenv_cpulist_parse(&j->cpus, list) < 0) {
		ab_error("run: --cpus wants a CPU list such as '0-3,8', not '%s'", list);
		return AB_EFAIL;
	}
	if (sched_getaffinity(0, sizeof(j->own_cpus), &j->own_cpus) < 0) {
		ab_error_errno("run: cannot read allocbuild's CPU affinity");
		return AB_EFAIL;
	}
	if (sched_setaffinity(0, sizeof(j->cpus), &j->cpus) < 0) {
		ab_error_errno("run: --cpus '%s': cannot run on these CPUs", list);
		return AB_EFAIL;
	}
	sched_setaffinity(0, sizeof(j->own_cpus), &j->own_cpus);
	j->pin = 1;
	return 0;
}

static void
job_release(struct job *j, size_t nlabels)
{
	for (size_t i = 0; j->labels && i < nlabels; i++) {
		ab_manifest_runtime_release(&j->labels[i].rt);
		ab_runinputs_release(&j->labels[i].in);
		ab_runstats_release(&j->labels[i].stats);
	}
	free(j->labels);
	free(j->dir);
	free(j->reldir);
	free(j->cwd);
	free(j->outdir_abs);
	free(j->outdir_real);
	free(j->invocation);
	free(j->recipe_sha256);
}

/* the labels in the order of repetition rep */
static void
order_of(char **order, const struct ab_run_opts *o, int rep)
{
	for (size_t i = 0; i < o->nlabels; i++)
		order[i] = o->labels[o->rotate ? (i + (size_t)rep) % o->nlabels : i];
}

/* records added to a signed OUTDIR are not signed: said, as pr refuses it until it is signed again */
static void
warn_signed(const struct job *j, const char *outdir)
{
	char *env = ab_path_join(outdir, AB_SIGN_ENVELOPES);

	if (j->done && ab_path_exists(env))
		ab_warn("run: '%s' is signed and the records of this run are not: sign it again (allocbuild sign "
		    "--signing-key KEY.pem '%s') before pr", outdir, outdir);
	free(env);
}

int
ab_run(const struct ab_run_opts *o)
{
	struct job j = {.o = o, .json_runs = o->json ? cJSON_CreateArray() : NULL};
	struct ab_manifest_recorded rec = {0};
	char *name = NULL, **order = NULL, *cache_dir = ab_cache_default_dir(o->cache_dir);
	int lockfd = -1, e = AB_EFAIL, have_rec = 0;

	if (o->name && !ab_runrec_name_valid(o->name)) {
		bad_name(o->name);
		goto done;
	}
	if ((o->mark_start && ab_sampler_check_regex("run: --mark-start", o->mark_start) < 0) ||
	    (o->mark && ab_sampler_check_regex("run: --mark", o->mark) < 0) || check_cpus(&j) < 0)
		goto done;
	if (ab_build_lock(&lockfd, o->outdir) < 0)
		goto done;
	if ((e = ab_manifest_recorded_read(&rec, o->outdir, 0)) < 0)
		goto done;
	have_rec = 1;
	j.labels = ab_calloc(o->nlabels, sizeof(*j.labels));
	for (size_t i = 0; i < o->nlabels; i++) {
		j.labels[i].label = o->labels[i];
		for (size_t k = 0; k < i; k++)
			if (!strcmp(o->labels[k], o->labels[i])) {
				ab_error("run: label '%s' is given twice", o->labels[i]);
				e = AB_EFAIL;
				goto done;
			}
		if ((e = check_label(&j.labels[i], &rec, o->outdir, uses_bin(o), cache_dir, o->rehash)) < 0)
			goto done;
		if ((e = check_command(&j.labels[i], o)) < 0)
			goto done;
		if (o->allocator_stats && (e = ab_runstats_resolve(&j.labels[i].stats, &j.labels[i].rt, o->labels[i])) < 0)
			goto done;
		for (size_t w = 0; w < j.labels[i].rt.warnings.n; w++)
			ab_warn("%s: %s", o->labels[i], j.labels[i].rt.warnings.v[w]);
	}
	e = AB_EFAIL;
	/* the default name: the command's base name, as it runs for the first label */
	if (o->name) {
		name = ab_strdup(o->name);
	} else {
		char *prog = expand(o->argv[0], j.labels[0].rt.program, j.labels[0].label);
		const char *b = strrchr(prog, '/');

		name = ab_strdup(b ? b + 1 : prog);
		free(prog);
		if (!ab_runrec_name_valid(name)) {
			bad_name(name);
			goto done;
		}
	}
	j.name = name;
	build_identity(&j, &rec);
	if (!(j.cwd = getcwd(NULL, 0))) {
		ab_error_errno("run: cannot get the current directory");
		goto done;
	}
	j.reldir = ab_sprintf("%s/%s", AB_RUN_DIR, name);
	j.dir = ab_path_join(o->outdir, j.reldir);
	j.outdir_abs = ab_path_absolute(o->outdir);
	if (!(j.outdir_real = realpath(o->outdir, NULL))) {
		ab_error_errno("run: cannot resolve '%s'", o->outdir);
		goto done;
	}
	if ((e = hash_inputs(&j, &rec, cache_dir)) < 0)
		goto done;
	e = AB_EFAIL;
	if (ab_mkdir_p(j.dir, 0755) < 0)
		goto done;
	/* the log of a run killed with -9 is a temporary of a dead process: gone now */
	ab_atomic_clean_stale(j.dir);
	j.next = j.batch = ab_runrec_next_number(j.dir);
	j.total = o->repeat * (int)o->nlabels;
	if (j.next > AB_RUN_NUMBER_MAX - j.total + 1) {
		ab_error("run: '%s' would number runs beyond %d: use another --name", j.dir, AB_RUN_NUMBER_MAX);
		goto done;
	}
	order = ab_calloc(o->nlabels, sizeof(*order));
	ab_proc_catch_signals();
	for (int rep = 0; rep < o->repeat && !ab_proc_caught(); rep++) {
		order_of(order, o, rep);
		for (size_t i = 0; i < o->nlabels && !ab_proc_caught(); i++) {
			struct label *l = NULL;

			for (size_t k = 0; k < o->nlabels; k++)
				if (!strcmp(j.labels[k].label, order[i]))
					l = &j.labels[k];
			if (run_one(&j, l, rep, order, o->nlabels) < 0)
				goto done;
		}
	}
	warn_signed(&j, o->outdir);
	if (j.json_runs) {
		cJSON *doc = cJSON_CreateObject();

		cJSON_AddStringToObject(doc, "outdir", o->outdir);
		cJSON_AddStringToObject(doc, "name", j.name);
		cJSON_AddItemToObject(doc, "runs", j.json_runs);
		j.json_runs = NULL;
		cJSON_AddBoolToObject(doc, "failed", j.failed || ab_proc_caught());
		ab_json_print(stdout, doc);
		cJSON_Delete(doc);
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		ab_error_errno("cannot write to stdout");
		goto done;
	}
	e = j.junit_missing ? AB_EFAIL : j.failed || ab_proc_caught() ? AB_ECHECK : 0;
done:
	cJSON_Delete(j.json_runs);
	if (have_rec)
		ab_manifest_recorded_release(&rec);
	job_release(&j, o->nlabels);
	free(order);
	free(name);
	free(cache_dir);
	if (lockfd >= 0)
		close(lockfd);
	return e;
}

int
ab_run_env_only(FILE *out)
{
	cJSON *env = ab_runenv_capture();
	int e = ab_json_print(out, env);

	cJSON_Delete(env);
	return e;
}
