#include "runrec.h"
#include "../attest/statement.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fnmatch.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/atomic.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/places.h"
#include "../../lib/redact.h"
#include "../../lib/version.h"

static cJSON *
file_json(const struct ab_runrec_file *f)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "path", f->path);
	cJSON_AddStringToObject(o, "sha256", f->sha256);
	cJSON_AddNumberToObject(o, "size", (double)f->size);
	return o;
}

/* a measured figure: microseconds (or 1e-6 of a unit) are all it holds; NAN is null */
static void
add_figure(cJSON *o, const char *key, double v)
{
	if (isnan(v))
		cJSON_AddNullToObject(o, key);
	else
		cJSON_AddNumberToObject(o, key, (double)(long long)(v * 1e6 + (v < 0 ? -0.5 : 0.5)) / 1e6);
}

static void
add_str_or_null(cJSON *o, const char *key, const char *v)
{
	ab_json_add_str_or_null(o, key, v);
}

static cJSON *
figures_json(const struct ab_series_figures *f, const struct ab_runrec_sampling *s)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "window_samples", (double)f->window_samples);
	add_figure(o, "steady_rss_kb", f->steady_rss_kb);
	add_figure(o, "peak_rss_kb", f->peak_rss_kb);
	add_figure(o, "cooldown_rss_kb", f->cooldown_rss_kb);
	add_figure(o, "rss_gib_s", f->rss_gib_s);
	add_figure(o, "window_cpu_s", f->window_cpu_s);
	add_figure(o, "cpu_s", f->cpu_s);
	add_figure(o, "minor_faults", f->minor_faults);
	add_figure(o, "major_faults", f->major_faults);
	add_figure(o, "max_threads", f->max_threads);
	add_figure(o, "max_processes", f->max_processes);
	if (s->comm)
		add_figure(o, "tree_peak_rss_kb", f->tree_peak_rss_kb);
	if (s->pss) {
		add_figure(o, "steady_pss_kb", f->steady_pss_kb);
		add_figure(o, "peak_pss_kb", f->peak_pss_kb);
		add_figure(o, "steady_anon_kb", f->steady_anon_kb);
		add_figure(o, "peak_anon_kb", f->peak_anon_kb);
	}
	return o;
}

static cJSON *
sampling_json(const struct ab_runrec_sampling *s)
{
	cJSON *o = cJSON_CreateObject(), *x;

	cJSON_AddNumberToObject(o, "interval_ms", s->interval_ms);
	add_str_or_null(o, "comm", s->comm);
	cJSON_AddBoolToObject(o, "pss", s->pss);
	x = cJSON_AddObjectToObject(o, "marks");
	add_str_or_null(x, "start", s->mark_start);
	add_str_or_null(x, "end", s->mark_end);
	x = cJSON_AddObjectToObject(o, "series");
	cJSON_AddStringToObject(x, "path", s->series.path);
	cJSON_AddStringToObject(x, "sha256", s->series.sha256);
	cJSON_AddNumberToObject(x, "size", (double)s->series.size);
	cJSON_AddNumberToObject(x, "samples", (double)s->samples);
	x = cJSON_AddObjectToObject(o, "window");
	add_figure(x, "start_s", s->seen.window_start_s);
	add_figure(x, "end_s", s->seen.window_end_s);
	cJSON_AddStringToObject(x, "started_by", s->seen.start_marked ? "mark" : "start");
	cJSON_AddStringToObject(x, "ended_by", s->seen.end_marked ? "mark" : "exit");
	add_str_or_null(x, "start_line", s->seen.start_line);
	add_str_or_null(x, "end_line", s->seen.end_line);
	add_figure(o, "command_end_s", s->seen.command_end_s >= 0 ? s->seen.command_end_s : NAN);
	if (s->cooldown_s > 0) {
		x = cJSON_AddObjectToObject(o, "cooldown");
		add_figure(x, "requested_s", s->cooldown_s);
		add_figure(x, "at_s", s->seen.cooldown_at_s);
		cJSON_AddBoolToObject(x, "reached", s->seen.cooldown_reached);
		cJSON_AddNumberToObject(x, "leftovers_ended", s->seen.leftovers_ended);
	} else {
		cJSON_AddNullToObject(o, "cooldown");
	}
	cJSON_AddItemToObject(o, "figures", figures_json(&s->figures, s));
	return o;
}

static cJSON *
metrics_json(const struct ab_metrics *m)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < m->n; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", m->v[i].name);
		cJSON_AddNumberToObject(o, "value", m->v[i].value);
		add_str_or_null(o, "unit", m->v[i].unit);
		add_str_or_null(o, "cell", m->v[i].cell);
		cJSON_AddStringToObject(o, "better", m->v[i].higher ? "higher" : "lower");
		cJSON_AddNumberToObject(o, "reported", m->v[i].reported);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

static cJSON *
overhead_json(const struct ab_runrec *r)
{
	cJSON *o = cJSON_CreateObject();

	add_figure(o, "allocbuild_cpu_s", r->allocbuild_cpu_s >= 0 ? r->allocbuild_cpu_s : NAN);
	if (r->sampling) {
		add_figure(o, "sampler_cpu_s", r->sampling->seen.sampler_cpu_s);
		cJSON_AddNumberToObject(o, "sampler_readings", r->sampling->seen.ticks);
		cJSON_AddNumberToObject(o, "sampler_late", r->sampling->seen.late_ticks);
	} else {
		cJSON_AddNullToObject(o, "sampler_cpu_s");
	}
	return o;
}

static const char *
status_word(enum ab_run_status s)
{
	switch (s) {
	case AB_RUN_EXITED:
		return "exited";
	case AB_RUN_SIGNALED:
		return "signaled";
	case AB_RUN_TIMED_OUT:
		return "timed out";
	case AB_RUN_INTERRUPTED:
		return "interrupted";
	}
	return "exited";
}

/* ---- the places of the author's machine, kept out of the record ---- */

/* s with the places of the author's machine the record knows hidden (lib/places.h); caller frees */
static char *
hide_places(const char *s, const struct ab_runrec *r)
{
	struct ab_places p = {r->outdir_abs, r->outdir_real, r->cwd, r->home};

	return ab_places_hide(&p, 1, s);
}

/*
 * where the command ran, seen from OUTDIR: "OUTDIR", "OUTDIR/SUB" inside
 * it, "OUTDIR/../.." above it; NULL elsewhere (that would name a
 * directory of the author's machine); caller frees
 */
static char *
cwd_from_outdir(const struct ab_runrec *r)
{
	const char *out = r->outdir_real, *cwd = r->cwd;
	size_t n = out ? strlen(out) : 0, c = cwd ? strlen(cwd) : 0;
	struct ab_buf b = {0};

	if (!n || !c)
		return NULL;
	if (!strncmp(cwd, out, n) && (cwd[n] == '/' || !cwd[n]))
		return ab_sprintf("OUTDIR%s", cwd + n);
	/* above it: "/" or a prefix of OUTDIR ending where one of its components does */
	if (!((c == 1 && cwd[0] == '/') || (c < n && !strncmp(out, cwd, c) && out[c] == '/')))
		return NULL;
	ab_buf_puts(&b, "OUTDIR");
	for (const char *q = out + (c == 1 ? 0 : c); *q; q++)
		if (*q == '/' && q[1])
			ab_buf_puts(&b, "/..");
	return ab_buf_detach(&b);
}

static cJSON *
input_json(const struct ab_runrec_input *in)
{
	cJSON *o = cJSON_CreateObject();

	if (in->arg >= 0)
		cJSON_AddNumberToObject(o, "arg", in->arg);
	add_str_or_null(o, "path", in->path);
	cJSON_AddStringToObject(o, "name", in->name);
	cJSON_AddStringToObject(o, "sha256", in->sha256);
	cJSON_AddBoolToObject(o, "artifact", in->artifact);
	if (in->arg < 0)
		add_str_or_null(o, "kept", in->kept);
	return o;
}

/* the Statement's subject: the program of --program (its artifact path or its copy), else the label's artifact */
static void
subject_of(const struct ab_runrec *r, const char **name, const char **hex)
{
	*name = r->subject;
	*hex = r->subject_sha256;
	if (r->given) {
		*name = r->given->artifact ? r->given->path : r->given->kept;
		*hex = r->given->sha256;
	}
}

static cJSON *
allocstats_json(const struct ab_runrec_allocstats *a)
{
	cJSON *o = cJSON_CreateObject(), *f, *res = NULL;

	cJSON_AddStringToObject(o, "allocator", a->allocator);
	cJSON_AddStringToObject(o, "variable", a->variable);
	cJSON_AddStringToObject(o, "setting", a->setting);
	if (!a->n) {
		cJSON_AddNullToObject(o, "figures");
		add_str_or_null(o, "missing", a->missing);
		return o;
	}
	f = cJSON_AddObjectToObject(o, "figures");
	for (size_t i = 0; i < a->n; i++) {
		cJSON_AddNumberToObject(f, a->names[i], a->bytes[i]);
		if (a->resolution[i] > 0)
			cJSON_AddNumberToObject(res ? res : (res = cJSON_CreateObject()), a->names[i], a->resolution[i]);
	}
	/* the figures known to a resolution (mimalloc prints a tenth of a KiB, MiB, GiB) */
	if (res)
		cJSON_AddItemToObject(o, "resolution", res);
	return o;
}

static cJSON *
predicate(const struct ab_runrec *r)
{
	cJSON *p = cJSON_CreateObject(), *o, *byp;

	cJSON_AddStringToObject(p, "name", r->name);
	cJSON_AddNumberToObject(p, "number", r->number);
	cJSON_AddStringToObject(p, "label", r->label);
	cJSON_AddNumberToObject(p, "repetition", r->repetition);
	cJSON_AddNumberToObject(p, "repetitions", r->repetitions);
	cJSON_AddItemToObject(p, "order", ab_json_strv(r->order, r->norder));
	cJSON_AddNumberToObject(p, "batch", r->batch);
	cJSON_AddBoolToObject(p, "rotated", r->rotated);
	add_str_or_null(p, "cell", r->cell);
	o = cJSON_AddObjectToObject(p, "build");
	if (r->build_invocation)
		cJSON_AddStringToObject(o, "invocation_id", r->build_invocation);
	else
		cJSON_AddNullToObject(o, "invocation_id");
	if (r->recipe_sha256)
		cJSON_AddStringToObject(o, "recipe_sha256", r->recipe_sha256);
	else
		cJSON_AddNullToObject(o, "recipe_sha256");
	o = cJSON_AddObjectToObject(p, "artifact");
	cJSON_AddStringToObject(o, "path", r->subject);
	cJSON_AddStringToObject(o, "kind", r->subject_kind);
	cJSON_AddStringToObject(o, "sha256", r->subject_sha256);
	cJSON_AddStringToObject(o, "checked_by", r->subject_cached ? "digest cache" : "hash");
	cJSON_AddStringToObject(o, "hashed_on", r->subject_hashed_on);
	if (r->program.name)
		cJSON_AddItemToObject(p, "program", input_json(&r->program));
	else
		cJSON_AddNullToObject(p, "program");
	o = cJSON_AddArrayToObject(p, "files");
	for (size_t i = 0; i < r->nfiles; i++)
		cJSON_AddItemToArray(o, input_json(&r->files[i]));
	if (r->given)
		cJSON_AddItemToObject(p, "subject_program", input_json(r->given));
	else
		cJSON_AddNullToObject(p, "subject_program");
	{
		/* as lib/redact shows a command: URL passwords, tokens, --token X masked; no place of this machine */
		struct ab_strv shown = {0};
		char *cwd = cwd_from_outdir(r);

		ab_redact_argv(&shown, r->argv);
		for (size_t i = 0; i < shown.n; i++) {
			char *h = hide_places(shown.v[i], r);

			free(shown.v[i]);
			shown.v[i] = h;
		}
		cJSON_AddItemToObject(p, "argv", ab_json_strv(shown.v, shown.n));
		ab_strv_free(&shown);
		add_str_or_null(p, "cwd", cwd);
		free(cwd);
	}
	o = cJSON_AddObjectToObject(p, "env_overrides");
	for (size_t i = 0; i < r->overrides.n; i++) {
		char *kv = ab_redact_env(r->overrides.v[i]);
		const char *eq = strchr(kv, '=');
		char *k = ab_strndup(kv, (size_t)(eq - kv)), *v = hide_places(eq + 1, r);

		cJSON_AddStringToObject(o, k, v);
		free(k);
		free(v);
		free(kv);
	}
	cJSON_AddItemToObject(p, "env_removed", ab_json_strv(r->removed.v, r->removed.n));
	cJSON_AddStringToObject(p, "started_on", r->started_on);
	cJSON_AddStringToObject(p, "finished_on", r->finished_on);
	cJSON_AddStringToObject(p, "status", status_word(r->status));
	if (r->exit_code >= 0)
		cJSON_AddNumberToObject(p, "exit_code", r->exit_code);
	else
		cJSON_AddNullToObject(p, "exit_code");
	if (r->signal) {
		cJSON_AddNumberToObject(p, "signal", r->signal);
		cJSON_AddStringToObject(p, "signal_name", sigabbrev_np(r->signal) ? sigabbrev_np(r->signal) : "?");
	} else {
		cJSON_AddNullToObject(p, "signal");
	}
	cJSON_AddNumberToObject(p, "wall_s", r->wall_s);
	cJSON_AddNumberToObject(p, "user_s", r->user_s);
	cJSON_AddNumberToObject(p, "sys_s", r->sys_s);
	cJSON_AddNumberToObject(p, "maxrss_kb", (double)r->maxrss_kb);
	add_str_or_null(p, "cpus", r->cpus);
	if (r->env_padded) {
		cJSON *pad = cJSON_AddObjectToObject(p, "env_pad");

		cJSON_AddStringToObject(pad, "variable", AB_RUN_ENV_PAD);
		cJSON_AddNumberToObject(pad, "bytes", r->env_pad);
	}
	if (r->alloc_stats)
		cJSON_AddItemToObject(p, "allocator_stats", allocstats_json(r->alloc_stats));
	if (r->sampling)
		cJSON_AddItemToObject(p, "sampling", sampling_json(r->sampling));
	else
		cJSON_AddNullToObject(p, "sampling");
	cJSON_AddItemToObject(p, "metrics", metrics_json(&r->metrics));
	cJSON_AddNumberToObject(p, "metrics_dropped", (double)r->metrics.dropped);
	cJSON_AddItemToObject(p, "overhead", overhead_json(r));
	cJSON_AddItemToObject(p, "log", file_json(&r->log));
	if (r->junit_path) {
		char *report = hide_places(r->junit_path, r);

		o = cJSON_AddObjectToObject(p, "junit");
		cJSON_AddStringToObject(o, "report", report);
		free(report);
		if (r->junit.path) {
			cJSON_AddStringToObject(o, "path", r->junit.path);
			cJSON_AddStringToObject(o, "sha256", r->junit.sha256);
			cJSON_AddNumberToObject(o, "size", (double)r->junit.size);
			cJSON_AddStringToObject(o, "state", "read");
			if (r->junit_summary)
				cJSON_AddItemToObject(o, "summary", cJSON_Duplicate(r->junit_summary, 1));
		} else if (r->junit_refused) {
			if (r->junit.sha256[0]) {
				cJSON_AddStringToObject(o, "sha256", r->junit.sha256);
				cJSON_AddNumberToObject(o, "size", (double)r->junit.size);
			}
			cJSON_AddStringToObject(o, "state", r->junit_refused);
		} else {
			cJSON_AddStringToObject(o, "state", "missing");
		}
	} else {
		cJSON_AddNullToObject(p, "junit");
	}
	if (r->environment)
		cJSON_AddItemToObject(p, "environment", cJSON_Duplicate(r->environment, 1));
	o = cJSON_AddObjectToObject(p, "tool");
	cJSON_AddStringToObject(o, "allocbuild", AB_VERSION);
	byp = cJSON_AddArrayToObject(p, "byproducts");
	ab_statement_descriptor(byp, r->log.path, r->log.sha256);
	if (r->junit.path)
		ab_statement_descriptor(byp, r->junit.path, r->junit.sha256);
	if (r->sampling && r->sampling->series.path)
		ab_statement_descriptor(byp, r->sampling->series.path, r->sampling->series.sha256);
	return p;
}

cJSON *
ab_runrec_statement(const struct ab_runrec *r)
{
	cJSON *subj, *s = ab_statement_new(AB_RUN_PREDICATE, &subj);
	const char *name, *hex;

	subject_of(r, &name, &hex);
	ab_statement_descriptor(subj, name, hex);
	cJSON_AddItemToObject(s, "predicate", predicate(r));
	return s;
}

void
ab_runrec_release(struct ab_runrec *r)
{
	ab_strv_free(&r->overrides);
	ab_strv_free(&r->removed);
	free(r->log.path);
	free(r->junit.path);
	cJSON_Delete(r->junit_summary);
	cJSON_Delete(r->environment);
	ab_metrics_release(&r->metrics);
	if (r->sampling_owned)
		free(r->sampling_owned->series.path);
	free(r->sampling_owned);
	free(r->argv_owned);
	free(r->order_owned);
	free(r->files_owned);
	free(r->given_owned);
	free(r->alloc_stats_owned);
	cJSON_Delete(r->doc);
	memset(r, 0, sizeof(*r));
}

/* ---- reading a record back ---- */

static double
num_or(const cJSON *o, const char *key, double dflt)
{
	const cJSON *n = ab_json_get(o, key);

	return cJSON_IsNumber(n) ? n->valuedouble : dflt;
}

/*
 * a whole number read back: dflt when absent, not a number, or outside
 * [min, max] (a hand-edited 1e300 cast to an int would be undefined)
 */
static double
whole_or(const cJSON *o, const char *key, double dflt, double min, double max)
{
	double v = num_or(o, key, dflt);

	return v >= min && v <= max ? v : dflt;
}

/* a figure read back: null (or absent) is NAN */
static double
figure(const cJSON *o, const char *key)
{
	return num_or(o, key, NAN);
}

static const char *
str_of(const cJSON *o, const char *key)
{
	return ab_json_str(o, key);
}

/* a JSON array of strings as a NULL-terminated array of pointers into it; caller frees the array */
static char **
strings_of(const cJSON *arr, size_t *n)
{
	char **v = ab_calloc((size_t)cJSON_GetArraySize(arr) + 1, sizeof(*v));
	const cJSON *it;
	size_t k = 0;

	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it))
			v[k++] = it->valuestring;
	if (n)
		*n = k;
	return v;
}

static void
parse_file(struct ab_runrec_file *f, const cJSON *o)
{
	const char *hex = str_of(o, "sha256");

	f->path = str_of(o, "path") ? ab_strdup(str_of(o, "path")) : NULL;
	snprintf(f->sha256, sizeof(f->sha256), "%s", hex ? hex : "");
	f->size = (uint64_t)whole_or(o, "size", 0, 0, 0x1p63);
}

/* a file the record names (struct ab_runrec_input); 0, or -1 when it lacks its name or digest */
static int
parse_input(struct ab_runrec_input *in, const cJSON *o, int arg)
{
	const char *hex = str_of(o, "sha256");

	memset(in, 0, sizeof(*in));
	if (!str_of(o, "name") || !hex || !ab_is_hex(hex, AB_HEX_LEN))
		return -1;
	in->arg = arg < 0 ? -1 : (int)whole_or(o, "arg", 0, 0, INT_MAX);
	in->path = str_of(o, "path");
	in->name = str_of(o, "name");
	memcpy(in->sha256, hex, AB_HEX_LEN + 1);
	in->artifact = cJSON_IsTrue(ab_json_get(o, "artifact"));
	in->kept = arg < 0 ? str_of(o, "kept") : NULL;
	return 0;
}

/* the program, the files and --program's program a record names (none in an earlier allocbuild's) */
static void
parse_inputs(struct ab_runrec *r, const cJSON *p)
{
	const cJSON *files = ab_json_get(p, "files"), *it;
	struct ab_runrec_input given;

	if (parse_input(&r->program, ab_json_get(p, "program"), 0) < 0)
		memset(&r->program, 0, sizeof(r->program));
	r->files = r->files_owned = ab_calloc((size_t)cJSON_GetArraySize(files) + 1, sizeof(*r->files_owned));
	cJSON_ArrayForEach(it, files)
		if (parse_input(&r->files_owned[r->nfiles], it, 1) == 0)
			r->nfiles++;
	if (parse_input(&given, ab_json_get(p, "subject_program"), -1) == 0) {
		r->given_owned = ab_calloc(1, sizeof(*r->given_owned));
		*r->given_owned = given;
		r->given = r->given_owned;
	}
}

static void
parse_figures(struct ab_series_figures *f, const cJSON *o)
{
	f->window_samples = (size_t)whole_or(o, "window_samples", 0, 0, 0x1p63);
	f->steady_rss_kb = figure(o, "steady_rss_kb");
	f->peak_rss_kb = figure(o, "peak_rss_kb");
	f->cooldown_rss_kb = figure(o, "cooldown_rss_kb");
	f->rss_gib_s = figure(o, "rss_gib_s");
	f->window_cpu_s = figure(o, "window_cpu_s");
	f->cpu_s = figure(o, "cpu_s");
	f->minor_faults = figure(o, "minor_faults");
	f->major_faults = figure(o, "major_faults");
	f->max_threads = figure(o, "max_threads");
	f->max_processes = figure(o, "max_processes");
	f->tree_peak_rss_kb = figure(o, "tree_peak_rss_kb");
	f->steady_pss_kb = figure(o, "steady_pss_kb");
	f->peak_pss_kb = figure(o, "peak_pss_kb");
	f->steady_anon_kb = figure(o, "steady_anon_kb");
	f->peak_anon_kb = figure(o, "peak_anon_kb");
}

static void
parse_sampling(struct ab_runrec_sampling *s, const cJSON *o)
{
	const cJSON *w = ab_json_get(o, "window"), *c = ab_json_get(o, "cooldown"), *sr = ab_json_get(o, "series");

	s->interval_ms = (int)whole_or(o, "interval_ms", 0, 0, INT_MAX);
	s->comm = str_of(o, "comm");
	s->pss = cJSON_IsTrue(ab_json_get(o, "pss"));
	s->mark_start = str_of(ab_json_get(o, "marks"), "start");
	s->mark_end = str_of(ab_json_get(o, "marks"), "end");
	parse_file(&s->series, sr);
	s->samples = (size_t)whole_or(sr, "samples", 0, 0, 0x1p63);
	s->seen.window_start_s = figure(w, "start_s");
	s->seen.window_end_s = figure(w, "end_s");
	s->seen.start_marked = str_of(w, "started_by") && !strcmp(str_of(w, "started_by"), "mark");
	s->seen.end_marked = str_of(w, "ended_by") && !strcmp(str_of(w, "ended_by"), "mark");
	s->seen.start_line = str_of(w, "start_line");
	s->seen.end_line = str_of(w, "end_line");
	s->seen.command_end_s = num_or(o, "command_end_s", -1);
	s->cooldown_s = cJSON_IsObject(c) ? num_or(c, "requested_s", 0) : 0;
	s->seen.cooldown_at_s = cJSON_IsObject(c) ? num_or(c, "at_s", -1) : -1;
	s->seen.cooldown_reached = cJSON_IsTrue(ab_json_get(c, "reached"));
	s->seen.leftovers_ended = (int)whole_or(c, "leftovers_ended", 0, 0, INT_MAX);
	parse_figures(&s->figures, ab_json_get(o, "figures"));
}

/*
 * the driver's figures of a record; a name, unit or cell that run would
 * not have recorded (a name names an SVG file of pr's bundle) is refused,
 * reported with the file's name
 */
static int
parse_metrics(struct ab_metrics *m, const cJSON *arr, const char *file)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, arr) {
		const char *name = str_of(it, "name"), *better = str_of(it, "better"), *unit = str_of(it, "unit"),
		    *cell = str_of(it, "cell");
		const cJSON *v = ab_json_get(it, "value");

		if (!name || !cJSON_IsNumber(v))
			continue;
		if (!ab_metric_name_valid(name, strlen(name)) || (unit && !ab_metric_unit_valid(unit, strlen(unit))) ||
		    (cell && !ab_metric_cell_valid(cell, strlen(cell)))) {
			char *shown = ab_shown(name);

			ab_error("'%s': predicate.metrics: the figure '%.64s' has a name, unit or cell that run does not "
			    "record (a name is 1 to 64 of [A-Za-z0-9_.-], a unit 1 to 32 printable characters without a space "
			    "or '=', a cell 1 to 64 without a space)", file, shown);
			free(shown);
			return AB_EFAIL;
		}
		ab_metrics_set(m, name, v->valuedouble, unit, cell, better && !strcmp(better, "higher"),
		    (int)whole_or(it, "reported", 1, 0, INT_MAX));
	}
	return 0;
}

static int
parse_status(enum ab_run_status *st, const char *w)
{
	static const enum ab_run_status all[] = {AB_RUN_EXITED, AB_RUN_SIGNALED, AB_RUN_TIMED_OUT, AB_RUN_INTERRUPTED};

	for (size_t i = 0; w && i < AB_NELEM(all); i++)
		if (!strcmp(status_word(all[i]), w)) {
			*st = all[i];
			return 0;
		}
	return -1;
}

/* a figure that may be absent (NAN) but is never infinite or past AB_METRIC_VALUE_MAX */
static int
figure_ok(double v)
{
	return isnan(v) || ab_metric_value_valid(v);
}

/*
 * the first number of a parsed record that compare cannot compute with
 * (inf: JSON's 1e999; 1e308, whose sums overflow), its place into where;
 * NULL when every one is usable
 */
static const char *
bad_number(const struct ab_runrec *r, char *where, size_t len)
{
	const struct {
		const char *name;
		double v;
	} top[] = {{"wall_s", r->wall_s}, {"user_s", r->user_s}, {"sys_s", r->sys_s}};

	for (size_t i = 0; i < AB_NELEM(top); i++)
		if (!figure_ok(top[i].v)) {
			snprintf(where, len, "predicate.%s", top[i].name);
			return where;
		}
	if (r->sampling) {
		const struct ab_series_figures *f = &r->sampling->figures;
		const struct {
			const char *name;
			double v;
		} fig[] = {{"steady_rss_kb", f->steady_rss_kb}, {"peak_rss_kb", f->peak_rss_kb},
		    {"cooldown_rss_kb", f->cooldown_rss_kb}, {"rss_gib_s", f->rss_gib_s},
		    {"window_cpu_s", f->window_cpu_s}, {"cpu_s", f->cpu_s}, {"minor_faults", f->minor_faults},
		    {"major_faults", f->major_faults}, {"max_threads", f->max_threads},
		    {"max_processes", f->max_processes}, {"tree_peak_rss_kb", f->tree_peak_rss_kb},
		    {"steady_pss_kb", f->steady_pss_kb}, {"peak_pss_kb", f->peak_pss_kb},
		    {"steady_anon_kb", f->steady_anon_kb}, {"peak_anon_kb", f->peak_anon_kb}};

		for (size_t i = 0; i < AB_NELEM(fig); i++)
			if (!figure_ok(fig[i].v)) {
				snprintf(where, len, "predicate.sampling.figures.%s", fig[i].name);
				return where;
			}
	}
	for (size_t i = 0; i < r->metrics.n; i++)
		if (!ab_metric_value_valid(r->metrics.v[i].value)) {
			snprintf(where, len, "predicate.metrics: the value of '%.64s'", r->metrics.v[i].name);
			return where;
		}
	return NULL;
}

/* predicate.allocator_stats: refused, naming the member, when a figure is not a number of bytes */
static int
parse_allocstats(struct ab_runrec_allocstats *a, const cJSON *o, const char *name)
{
	const cJSON *f = ab_json_get(o, "figures"), *it;

	a->allocator = str_of(o, "allocator");
	a->variable = str_of(o, "variable");
	a->setting = str_of(o, "setting");
	a->missing = str_of(o, "missing");
	if (!a->allocator || !a->variable || !a->setting) {
		ab_error("'%s': predicate.allocator_stats: it lacks its allocator, variable or setting", name);
		return AB_EFAIL;
	}
	cJSON_ArrayForEach(it, f) {
		if (a->n == AB_RUN_ALLOCSTATS_MAX || !cJSON_IsNumber(it) || !figure_ok(it->valuedouble) ||
		    it->valuedouble < 0) {
			ab_error("'%s': predicate.allocator_stats.figures.%s: not a number of bytes (at most %d figures)", name,
			    it->string, AB_RUN_ALLOCSTATS_MAX);
			return AB_EFAIL;
		}
		a->names[a->n] = it->string;
		a->bytes[a->n] = it->valuedouble;
		a->resolution[a->n] = num_or(ab_json_get(o, "resolution"), it->string, 0);
		a->n++;
	}
	return 0;
}

/* the record's "junit": asked, and the summary of the report read (any member missing is 0) */
static void
parse_junit(struct ab_runrec_junit_read *j, const cJSON *o)
{
	const cJSON *sum = ab_json_get(o, "summary");

	j->asked = cJSON_IsObject(o);
	j->summed = j->asked && cJSON_IsObject(sum);
	if (!j->summed)
		return;
	j->tests = num_or(sum, "tests", 0);
	j->failures = num_or(sum, "failures", 0);
	j->errors = num_or(sum, "errors", 0);
	j->skipped = num_or(sum, "skipped", 0);
	j->time = num_or(sum, "time", 0);
}

int
ab_runrec_parse(struct ab_runrec *r, cJSON *stmt, const char *name)
{
	char where[128];
	const cJSON *p = ab_json_get(stmt, "predicate"), *a = ab_json_get(p, "artifact"), *it;
	const char *hex = str_of(a, "sha256");

	memset(r, 0, sizeof(*r));
	r->doc = stmt;
	r->allocbuild_cpu_s = -1;
	if (!cJSON_IsObject(p) || !str_of(p, "name") || !str_of(p, "label") || !cJSON_IsNumber(ab_json_get(p, "number")) ||
	    !hex || !ab_is_hex(hex, AB_HEX_LEN) || parse_status(&r->status, str_of(p, "status")) < 0) {
		ab_error("'%s': not a run record: it lacks its name, number, label, status or artifact digest", name);
		return AB_EFAIL;
	}
	r->name = str_of(p, "name");
	r->number = (int)whole_or(p, "number", 0, 0, INT_MAX);
	r->label = str_of(p, "label");
	r->repetition = (int)whole_or(p, "repetition", 0, 0, INT_MAX);
	r->repetitions = (int)whole_or(p, "repetitions", 0, 0, INT_MAX);
	r->order = r->order_owned = strings_of(ab_json_get(p, "order"), &r->norder);
	r->batch = (int)whole_or(p, "batch", 0, 0, INT_MAX);
	r->rotated = cJSON_IsTrue(ab_json_get(p, "rotated"));
	r->cell = str_of(p, "cell");
	r->subject = str_of(a, "path");
	r->subject_kind = str_of(a, "kind");
	memcpy(r->subject_sha256, hex, AB_HEX_LEN + 1);
	r->argv = r->argv_owned = strings_of(ab_json_get(p, "argv"), NULL);
	r->cwd = str_of(p, "cwd");
	parse_inputs(r, p);
	cJSON_ArrayForEach(it, ab_json_get(p, "env_overrides"))
		if (cJSON_IsString(it))
			ab_strv_pushf(&r->overrides, "%s=%s", it->string, it->valuestring);
	cJSON_ArrayForEach(it, ab_json_get(p, "env_removed"))
		if (cJSON_IsString(it))
			ab_strv_push(&r->removed, it->valuestring);
	snprintf(r->started_on, sizeof(r->started_on), "%s", str_of(p, "started_on") ? str_of(p, "started_on") : "");
	snprintf(r->finished_on, sizeof(r->finished_on), "%s", str_of(p, "finished_on") ? str_of(p, "finished_on") : "");
	r->exit_code = (int)whole_or(p, "exit_code", -1, INT_MIN, INT_MAX);
	r->signal = (int)whole_or(p, "signal", 0, 0, INT_MAX);
	r->wall_s = num_or(p, "wall_s", NAN);
	r->user_s = num_or(p, "user_s", NAN);
	r->sys_s = num_or(p, "sys_s", NAN);
	r->maxrss_kb = (long)whole_or(p, "maxrss_kb", -1, 0, 0x1p62);
	r->cpus = str_of(p, "cpus");
	r->env_padded = cJSON_IsObject(ab_json_get(p, "env_pad"));
	r->env_pad = r->env_padded ? (int)whole_or(ab_json_get(p, "env_pad"), "bytes", 0, 0, INT_MAX) : 0;
	parse_file(&r->log, ab_json_get(p, "log"));
	if (cJSON_IsObject(ab_json_get(p, "allocator_stats"))) {
		r->alloc_stats = r->alloc_stats_owned = ab_calloc(1, sizeof(*r->alloc_stats_owned));
		if (parse_allocstats(r->alloc_stats_owned, ab_json_get(p, "allocator_stats"), name) < 0)
			return AB_EFAIL;
	}
	parse_junit(&r->junit_read, ab_json_get(p, "junit"));
	if (cJSON_IsObject(ab_json_get(p, "sampling"))) {
		r->sampling = r->sampling_owned = ab_calloc(1, sizeof(*r->sampling_owned));
		parse_sampling(r->sampling, ab_json_get(p, "sampling"));
	}
	if (parse_metrics(&r->metrics, ab_json_get(p, "metrics"), name) < 0)
		return AB_EFAIL;
	/* what run left out, and what a record past AB_METRICS_MAX (an earlier allocbuild's) holds beyond it */
	r->metrics.dropped += (size_t)whole_or(p, "metrics_dropped", 0, 0, 0x1p53);
	r->allocbuild_cpu_s = num_or(ab_json_get(p, "overhead"), "allocbuild_cpu_s", -1);
	r->environment = cJSON_DetachItemFromObject((cJSON *)p, "environment");
	if (bad_number(r, where, sizeof(where))) {
		ab_error("'%s': %s: not a finite number of at most 1e300: not a figure allocbuild records", name, where);
		return AB_EFAIL;
	}
	return 0;
}

int
ab_runrec_ok(const struct ab_runrec *r)
{
	return r->status == AB_RUN_EXITED && r->exit_code == 0;
}

int
ab_runrec_too_short(const struct ab_runrec *r, int window)
{
	return r->sampling && (r->sampling->samples < AB_RUN_MIN_SAMPLES ||
	    (window && r->sampling->figures.window_samples < AB_RUN_MIN_SAMPLES));
}

char *
ab_runrec_ending(const struct ab_runrec *r)
{
	if (r->status == AB_RUN_EXITED)
		return ab_sprintf("%d", r->exit_code);
	if (r->status == AB_RUN_SIGNALED)
		return ab_strdup(sigabbrev_np(r->signal) ? sigabbrev_np(r->signal) : "signal");
	return ab_strdup(status_word(r->status));
}

int
ab_runrec_name_valid(const char *name)
{
	size_t n = strlen(name);

	if (n == 0 || n > 64 || name[0] == '.' || name[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!(name[i] == '.' || name[i] == '_' || name[i] == '-' || (name[i] >= '0' && name[i] <= '9') ||
		    (name[i] >= 'a' && name[i] <= 'z') || (name[i] >= 'A' && name[i] <= 'Z')))
			return 0;
	return 1;
}

int
ab_runrec_record_number(const char *base)
{
	size_t n = strlen(base), k = strlen(".intoto.json"), d = 0;
	int num = 0;

	/* four digits at least; more only without a leading zero, as %04d writes them */
	while (base[d] >= '0' && base[d] <= '9' && d < 9)
		num = num * 10 + (base[d++] - '0');
	if (d < 4 || (d > 4 && base[0] == '0') || base[d] != '-' || n <= d + 1 + k ||
	    strcmp(base + n - k, ".intoto.json"))
		return -1;
	return num;
}

int
ab_runrec_next_number(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	int max = 0;

	if (!d)
		return 1;
	while ((de = readdir(d))) {
		int n = ab_runrec_record_number(de->d_name);

		if (n > max)
			max = n;
	}
	closedir(d);
	return max + 1;
}

int
ab_runrec_is_run_file(const char *rel)
{
	return !strncmp(rel, AB_RUN_DIR "/", sizeof(AB_RUN_DIR));
}

int
ab_runrec_is_statement(const char *rel)
{
	const char *name, *base;

	if (!ab_runrec_is_run_file(rel))
		return 0;
	name = rel + sizeof(AB_RUN_DIR);
	base = strchr(name, '/');
	if (!base || strchr(base + 1, '/'))
		return 0;
	{
		char *n = ab_strndup(name, (size_t)(base - name));
		int ok = ab_runrec_name_valid(n);

		free(n);
		return ok && ab_runrec_record_number(base + 1) >= 0;
	}
}

/* the value of attribute name in the start tag tag[0..n), as a number; -1 when absent */
static double
attr_num(const char *tag, size_t n, const char *name)
{
	size_t k = strlen(name);

	for (size_t i = 1; i + k + 2 < n; i++) {
		const char *p = tag + i;

		if ((tag[i - 1] == ' ' || tag[i - 1] == '\t' || tag[i - 1] == '\n' || tag[i - 1] == '\r') &&
		    !strncmp(p, name, k) && p[k] == '=' && (p[k + 1] == '"' || p[k + 1] == '\''))
			return strtod(p + k + 2, NULL);
	}
	return -1;
}

/* the start tags <elem ...> with a tests count in text, summed into sum (only the first with first_only); how many */
static int
sum_tags(cJSON *sum, const char *text, size_t len, const char *elem, int first_only)
{
	static const char *const keys[] = {"tests", "failures", "errors", "skipped", "time"};
	double tot[5] = {0};
	size_t el = strlen(elem);
	int found = 0;

	for (size_t i = 0; i + el + 1 < len; i++) {
		const char *t = text + i, *end;

		if (t[0] != '<' || strncmp(t + 1, elem, el) || (t[el + 1] != ' ' && t[el + 1] != '>' &&
		    t[el + 1] != '\t' && t[el + 1] != '\n' && t[el + 1] != '\r' && t[el + 1] != '/'))
			continue;
		end = memchr(t, '>', len - i);
		if (!end)
			break;
		/* an element without counts (a bare <testsuites>) says nothing */
		if (attr_num(t, (size_t)(end - t), "tests") < 0)
			continue;
		for (int k = 0; k < 5; k++) {
			double v = attr_num(t, (size_t)(end - t), keys[k]);

			/* pytest writes "skipped", some writers "skip" */
			if (v < 0 && k == 3)
				v = attr_num(t, (size_t)(end - t), "skip");
			if (v > 0)
				tot[k] += v;
		}
		found++;
		if (first_only)
			break;
	}
	if (found)
		for (int k = 0; k < 5; k++)
			cJSON_AddNumberToObject(sum, keys[k], tot[k]);
	return found;
}

cJSON *
ab_runrec_junit_summary(const char *text, size_t len)
{
	cJSON *sum = cJSON_CreateObject();

	if (sum_tags(sum, text, len, "testsuites", 1) || sum_tags(sum, text, len, "testsuite", 0))
		return sum;
	cJSON_Delete(sum);
	return NULL;
}

void
ab_runrec_named(struct ab_strv *names, struct ab_strv *hexes, const cJSON *stmt)
{
	const cJSON *lists[2], *it;

	lists[0] = ab_json_get(stmt, "subject");
	lists[1] = ab_json_get(ab_json_get(stmt, "predicate"), "byproducts");
	for (int k = 0; k < 2; k++)
		cJSON_ArrayForEach(it, lists[k]) {
			const char *name = ab_json_str(it, "name"), *hex = ab_json_str(ab_json_get(it, "digest"), "sha256");

			if (name && hex) {
				ab_strv_push(names, name);
				ab_strv_push(hexes, hex);
			}
		}
}

void
ab_runrec_inputs_inside(struct ab_strv *paths, struct ab_strv *hexes, const cJSON *stmt)
{
	const cJSON *p = ab_json_get(stmt, "predicate"), *it;
	struct ab_runrec_input in;

	if (parse_input(&in, ab_json_get(p, "program"), 0) == 0 && in.path) {
		ab_strv_push(paths, in.path);
		ab_strv_push(hexes, in.sha256);
	}
	cJSON_ArrayForEach(it, ab_json_get(p, "files"))
		if (parse_input(&in, it, 1) == 0 && in.path) {
			ab_strv_push(paths, in.path);
			ab_strv_push(hexes, in.sha256);
		}
}

int
ab_runrec_sums_append(const char *outdir, const struct ab_runrec_file *files, size_t n)
{
	char *path = ab_path_join(outdir, "SHA256SUMS");
	struct ab_buf b = {0};
	int e = ab_read_file(&b, path);

	if (e == 0) {
		if (b.len && b.s[b.len - 1] != '\n')
			ab_buf_putc(&b, '\n');
		for (size_t i = 0; i < n; i++)
			ab_hash_line(&b, files[i].sha256, files[i].path);
		e = ab_write_file_atomic(path, b.s, b.len);
	}
	ab_buf_free(&b);
	free(path);
	return e;
}

void
ab_runrec_sums_carry(struct ab_buf *b, const char *outdir)
{
	char *path = ab_path_join(outdir, "SHA256SUMS");
	struct ab_buf old = {0};

	ab_report_mute();
	if (ab_path_exists(path) && ab_read_file(&old, path) == 0)
		for (const char *s = old.s; s && *s;) {
			size_t n = strcspn(s, "\n");
			char *line = ab_strndup(s, n), *hex, *rel;

			if (ab_hash_line_parse(line, n, &hex, &rel) == 0 && !strncmp(rel, AB_RUN_DIR "/", sizeof(AB_RUN_DIR))) {
				char *abs = ab_path_join(outdir, rel);
				struct stat st;

				/* a run removed on purpose (its files gone) is not brought back */
				if (lstat(abs, &st) == 0)
					ab_hash_line(b, hex, rel);
				free(abs);
			}
			free(line);
			s += n + (s[n] == '\n');
		}
	ab_report_unmute();
	ab_buf_free(&old);
	free(path);
}

void
ab_runrec_builds(struct ab_strv *out, const cJSON *build_stmt)
{
	const cJSON *pred = ab_json_get(build_stmt, "predicate"), *it;
	const char *id = ab_json_str(ab_json_get(ab_json_get(pred, "runDetails"), "metadata"), "invocationId");
	size_t start = out->n;

	if (id)
		ab_strv_push(out, id);
	cJSON_ArrayForEach(it, ab_json_get(ab_json_get(ab_json_get(pred, "buildDefinition"), "internalParameters"),
	    "earlierInvocations")) {
		if (out->n - start >= AB_RUN_BUILDS_MAX)
			break;
		if (cJSON_IsString(it) && !ab_strv_has(out, it->valuestring))
			ab_strv_push(out, it->valuestring);
	}
}

char *
ab_runrec_foreign(const cJSON *record, const struct ab_strv *builds)
{
	const char *of = ab_json_str(ab_json_get(ab_json_get(record, "predicate"), "build"), "invocation_id");
	char *shown, *why;

	if (!builds->n || (of && ab_strv_has(builds, of)))
		return NULL;
	shown = ab_shown(of ? of : "(none)");
	why = ab_sprintf("a run of build %s, not of this OUTDIR's (%s%s): a record of another OUTDIR", shown,
	    builds->v[0], builds->n > 1 ? " or an earlier build it kept the runs of" : "");
	free(shown);
	return why;
}
