/*
 * probe: run a program under the allocator's own reporting and build the
 * probe record. What is an allocator's own is its probe file
 * (probe_<name>.c: the operations its registry row points at,
 * provenance/alloc/allocreg.h); the record helpers they share are
 * probe_record.c.
 */
#include "probe.h"
#include "probe_impl.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/atomic.h"
#include "../../lib/proc.h"
#include "../../lib/which.h"
#include "../../lib/util.h"
#include "../../lib/jsonio.h"
#include "../alloc/allocscan.h"

const char *
ab_probe_kv_get(const struct ab_kvlist *kv, const char *key)
{
	const char *v = NULL;

	/* the last one wins, as it would in a shell */
	for (size_t i = 0; i < kv->n; i++)
		if (!strcmp(kv->v[i].key, key))
			v = kv->v[i].value ? kv->v[i].value : "";
	return v;
}

static cJSON *
requested_json(const struct ab_probe_req *req)
{
	cJSON *r = cJSON_CreateObject(), *env = cJSON_AddObjectToObject(r, "env");

	for (size_t i = 0; i < req->env.n; i++) {
		cJSON_DeleteItemFromObjectCaseSensitive(env, req->env.v[i].key);
		cJSON_AddStringToObject(env, req->env.v[i].key, req->env.v[i].value ? req->env.v[i].value : "");
	}
	cJSON_AddItemToObject(r, "unset", ab_json_strv(req->unset.v, req->unset.n));
	return r;
}

void
ab_probe_run_release(struct ab_probe_run *r)
{
	ab_buf_free(&r->out);
	ab_buf_free(&r->err);
	cJSON_Delete(r->json);
}

/* a probe's children: the scrubbed environment, or in a sandbox one of their own */
static void
probe_env(struct ab_env *env, const struct ab_probe_req *req)
{
	if (!req->sandbox) {
		ab_env_scrubbed(env);
		return;
	}
	ab_env_sandboxed(env);
	ab_env_set(env, "PATH", AB_SANDBOX_PATH);
	ab_env_set(env, "HOME", req->sandbox_home ? req->sandbox_home : "/tmp");
}

/* argv and cwd onto p, as the request's sandbox sees them when it has one (*boxed and *incwd hold them) */
static void
in_sandbox(struct ab_proc *p, struct ab_strv *boxed, char **incwd, const struct ab_probe_req *req,
    char *const *argv, const char *cwd)
{
	p->argv = argv;
	p->cwd = cwd;
	if (!req->sandbox)
		return;
	ab_sandbox_inside_argv(boxed, req->sandbox, argv);
	p->argv = ab_strv_argv(boxed);
	if (cwd && (*incwd = ab_sandbox_inside(req->sandbox, cwd)))
		p->cwd = *incwd;
	p->sandbox = req->sandbox;
}

int
ab_probe_run(struct ab_probe_run *r, const struct ab_probe_req *req, char *const *argv, const char *key,
    const char *value)
{
	struct ab_env env = {0};
	struct ab_proc p = {0};
	struct ab_strv boxed = {0};
	char *incwd = NULL;
	size_t argc = 0;
	int error;

	memset(r, 0, sizeof(*r));
	probe_env(&env, req);
	for (size_t i = 0; i < req->env.n; i++)
		ab_env_set(&env, req->env.v[i].key, req->env.v[i].value ? req->env.v[i].value : "");
	for (size_t i = 0; i < req->unset.n; i++)
		ab_env_unset(&env, req->unset.v[i]);
	if (key)
		ab_env_set(&env, key, value);
	in_sandbox(&p, &boxed, &incwd, req, argv, req->cwd);
	argv = p.argv;
	p.envp = ab_env_envp(&env);
	p.out = &r->out;
	p.err = &r->err;
	p.timeout = req->timeout > 0 ? req->timeout : AB_PROBE_TIMEOUT;
	/* jemalloc's general section is a few KiB: a chatty program must not fill memory */
	p.max_output = 16u << 20;
	error = ab_proc_run(&r->res, &p);
	/* a program that could not start has already been reported */
	if (!error) {
		while (argv[argc])
			argc++;
		r->json = cJSON_CreateObject();
		cJSON_AddItemToObject(r->json, "argv", ab_json_strv(argv, argc));
		if (p.cwd)
			cJSON_AddStringToObject(r->json, "cwd", p.cwd);
		else
			cJSON_AddNullToObject(r->json, "cwd");
		cJSON_AddItemToObject(r->json, "env_set", ab_json_strv(env.set.v, env.set.n));
		cJSON_AddItemToObject(r->json, "env_removed", ab_json_strv(env.removed.v, env.removed.n));
		cJSON_AddNumberToObject(r->json, "exit_code", r->res.exit_code);
		cJSON_AddNumberToObject(r->json, "signal", r->res.signal);
		cJSON_AddBoolToObject(r->json, "timed_out", r->res.timed_out);
		cJSON_AddNumberToObject(r->json, "timeout", p.timeout);
	}
	ab_env_release(&env);
	ab_strv_free(&boxed);
	free(incwd);
	return error;
}

void
ab_probe_add_run(cJSON *rec, struct ab_probe_run *r)
{
	cJSON_AddItemToObject(rec, "run", r->json);
	r->json = NULL;
}

cJSON *
ab_probe_new_record(const struct ab_probe_req *req, const char *allocator, int detected)
{
	cJSON *rec = cJSON_CreateObject();

	if (allocator)
		cJSON_AddStringToObject(rec, "allocator", allocator);
	else
		cJSON_AddNullToObject(rec, "allocator");
	cJSON_AddBoolToObject(rec, "detected", detected);
	cJSON_AddItemToObject(rec, "requested", requested_json(req));
	return rec;
}

void
ab_probe_no_statistics(cJSON *rec, const char *what, char *const *argv, const struct ab_probe_run *r)
{
	char status[128];

	ab_proc_describe(status, sizeof(status), &r->res);
	if (r->res.timed_out) {
		const cJSON *t = cJSON_GetObjectItemCaseSensitive(r->json, "timeout");

		ab_probe_add_problem(rec, "timeout", NULL, NULL,
		    "'%s' ran past the probe's limit of %gs and was killed: give it arguments that make it exit",
		    argv[0], cJSON_IsNumber(t) ? t->valuedouble : 0.0);
		return;
	}
	ab_probe_add_problem(rec, "no_statistics", NULL, NULL,
	    "no %s report in the output of '%s' (%s): is it linked with %s?", what, argv[0], status, what);
}

void
ab_probe_asked_for(cJSON *rec, const char *kind)
{
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "allocator");
	cJSON_AddNullToObject(rec, "allocator");
	cJSON_AddStringToObject(rec, "asked_for", kind);
}

const struct ab_allockind *
ab_probe_kind_of(const struct ab_probe_ops *ops)
{
	const struct ab_allockind *k = ab_allockinds;

	while (k->name && k->probe != ops)
		k++;
	return k;
}

/* ---- what the binary holds, read before it runs (provenance/alloc/allocscan.h) ---- */

const struct ab_allocator *
ab_probe_scan_first(const struct ab_probe_scan *sc, const struct ab_allockind *k)
{
	return k ? sc->first[ab_allockind_index(k)] : NULL;
}

/* the allocators of the program and of every library the request preloads */
static void
scan_program(struct ab_probe_scan *sc, const struct ab_probe_req *req, const char *argv0)
{
	const char *preload = ab_probe_kv_get(&req->env, "LD_PRELOAD");
	char *prog = ab_proc_which(argv0, NULL);

	memset(sc, 0, sizeof(*sc));
	ab_report_mute();
	if (prog)
		(void)ab_allocscan_file(&sc->al, prog, 0);
	for (const char *p = preload ? preload : ""; *p;) {
		size_t n = strcspn(p, ": ");

		if (n) {
			char *lib = ab_strndup(p, n);

			(void)ab_allocscan_file(&sc->al, lib, 1);
			free(lib);
		}
		p += n;
		if (*p)
			p++;
	}
	ab_report_unmute();
	for (size_t i = 0; i < sc->al.n; i++) {
		const struct ab_allocator *a = &sc->al.v[i];
		const struct ab_allockind *k = ab_allockind_find(a->kind);

		if (k && !sc->first[ab_allockind_index(k)])
			sc->first[ab_allockind_index(k)] = a;
		sc->replacing += !k || !k->fallback;
	}
	free(prog);
}

/* the record's "allocators", and the problems of the binary itself */
static void
scan_record(cJSON *rec, const struct ab_probe_scan *sc, const struct ab_probe_req *req)
{
	cJSON *all;

	if (sc->al.n == 0)
		return;
	all = cJSON_AddArrayToObject(rec, "allocators");
	for (size_t i = 0; i < sc->al.n; i++)
		cJSON_AddItemToArray(all, ab_allocator_json(&sc->al.v[i]));
	if (sc->replacing > 1) {
		struct ab_buf b = {0};

		for (size_t i = 0; i < sc->al.n; i++)
			ab_buf_printf(&b, "%s%s %s (%s %s)", i ? " and " : "", sc->al.v[i].kind,
			    sc->al.v[i].version ? sc->al.v[i].version : "(version unknown)",
			    sc->al.v[i].shared ? "preloaded" : "linked into", sc->al.v[i].file);
		ab_probe_add_problem(rec, "two_allocators", NULL, NULL,
		    "two allocators in one process: %s; each reads its own options, and the report of one is not "
		    "the other's", b.s);
		ab_buf_free(&b);
	}
	for (const struct ab_allockind *k = ab_allockinds; k->name; k++)
		if (ab_probe_scan_first(sc, k) && k->probe->scan_problems)
			k->probe->scan_problems(rec, sc, req);
}

/* an inherited LD_PRELOAD is removed for the probe: the program would run with it in production */
static void
note_inherited_preload(cJSON *rec, const struct ab_probe_req *req)
{
	const char *inherited = getenv("LD_PRELOAD");
	char *msg;

	if (!inherited || !*inherited || ab_probe_kv_get(&req->env, "LD_PRELOAD"))
		return;
	msg = ab_sprintf("the inherited LD_PRELOAD='%s' was removed for the probe; a process started from this "
	    "environment would run with it (pass --env LD_PRELOAD=... to probe that)", inherited);
	ab_warn("probe: %s", msg);
	cJSON_AddItemToArray(cJSON_AddArrayToObject(rec, "notes"), cJSON_CreateString(msg));
	free(msg);
}

/* what the program's own report left unknown, from the binary */
void
ab_probe_complete_from_scan(cJSON *rec, const struct ab_allocator *a)
{
	if (!a || cJSON_IsString(cJSON_GetObjectItemCaseSensitive(rec, "version")) || !a->version)
		return;
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "version");
	cJSON_AddStringToObject(rec, "version", a->version);
	cJSON_DeleteItemFromObjectCaseSensitive(rec, "version_from");
	cJSON_AddStringToObject(rec, "version_from", a->version_from ? a->version_from : "the binary");
}

/* the option an override's effective value is read from: mimalloc names it apart from its variable */
static const char *
override_option(const cJSON *o)
{
	const char *opt = ab_json_str(o, "option");

	return opt ? opt : ab_json_str(o, "setting");
}

/*
 * A runtime setting that took effect but whose value is also the
 * allocator's own default proves nothing: it may as well not have been
 * read. Probe once more without the runtime allocator variables, and mark
 * each such setting "default" (docs/probes.md), with the value found.
 */
static void
mark_defaults(cJSON *rec, const struct ab_probe_req *req, char *const *argv, const struct ab_probe_scan *sc)
{
	struct ab_probe_req bare = *req;
	const cJSON *o, *eff;
	cJSON *base = NULL;
	int any = 0;

	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(rec, "overrides"))
		any |= !strcmp(ab_json_str(o, "status") ? ab_json_str(o, "status") : "", "ok") &&
		    !strcmp(ab_json_str(o, "origin") ? ab_json_str(o, "origin") : "", "runtime");
	if (!any)
		return;
	bare.env.v = ab_calloc(req->env.n + 1, sizeof(*bare.env.v));
	bare.env.n = 0;
	for (size_t i = 0; i < req->env.n; i++)
		if (!ab_env_is_allocator_var(req->env.v[i].key) || !strcmp(req->env.v[i].key, "LD_PRELOAD"))
			bare.env.v[bare.env.n++] = req->env.v[i];
	ab_report_mute();
	(void)ab_allockind_find(ab_json_str(rec, "allocator"))->probe->run(&base, &bare, argv, sc);
	ab_report_unmute();
	free(bare.env.v);
	eff = cJSON_GetObjectItemCaseSensitive(base, "effective");
	cJSON_ArrayForEach(o, cJSON_GetObjectItemCaseSensitive(rec, "overrides")) {
		const char *st = ab_json_str(o, "status"), *origin = ab_json_str(o, "origin");
		const char *got = ab_json_str(o, "effective"), *opt = override_option(o);
		const char *dflt = opt ? ab_json_str(eff, opt) : NULL;

		if (!st || strcmp(st, "ok") || !origin || strcmp(origin, "runtime") || !got || !dflt || strcmp(got, dflt))
			continue;
		cJSON_ReplaceItemInObjectCaseSensitive((cJSON *)o, "status", cJSON_CreateString("default"));
		cJSON_AddStringToObject((cJSON *)o, "default", dflt);
	}
	cJSON_Delete(base);
}

static int
detects(const struct ab_allockind *k)
{
	return k->detect;
}

const char *
ab_probe_detectable(void)
{
	return ab_allockind_names(detects, " or ");
}

/*
 * Detect: the allocator the binary holds (the first row found), else each
 * row whose report any program gives, in registry order, else the C
 * library's own (which says when the program did not run to its end).
 */
static int
probe_detect(cJSON **rec, const struct ab_probe_req *req, char *const *argv, const struct ab_probe_scan *sc)
{
	const struct ab_allockind *k;

	for (k = ab_allockinds; k->name; k++)
		if (!k->fallback && ab_probe_scan_first(sc, k))
			return k->probe->run(rec, req, argv, sc);
	for (k = ab_allockinds; k->name && !*rec; k++)
		if (k->detect && k->probe->run(rec, req, argv, sc) < 0)
			return -1;
	return *rec ? 0 : ab_allockind_fallback()->probe->run(rec, req, argv, sc);
}

int
ab_probe_program(cJSON **out, const struct ab_probe_req *req, char *const *argv)
{
	const struct ab_allockind *k = NULL;
	struct ab_probe_scan sc;
	cJSON *rec = NULL;
	int error = -1;

	*out = NULL;
	if (!argv || !argv[0]) {
		ab_error("probe: no program to run");
		return -1;
	}
	if (req->allocator && !(k = ab_allockind_find(req->allocator))) {
		ab_error("probe: unknown allocator '%s' (%s)", req->allocator, ab_allockind_names(NULL, " or "));
		return -1;
	}
	scan_program(&sc, req, argv[0]);
	if ((k ? k->probe->run(&rec, req, argv, &sc) : probe_detect(&rec, req, argv, &sc)) < 0)
		goto done;
	scan_record(rec, &sc, req);
	note_inherited_preload(rec, req);
	if (ab_json_str(rec, "allocator"))
		mark_defaults(rec, req, argv, &sc);
	ab_probe_finish(rec);
	*out = rec;
	error = 0;
done:
	ab_allocators_release(&sc.al);
	return error;
}

/* the probe program of an archive of allocator k, written to src */
static int
write_program(const char *src, const struct ab_allockind *k, const char *archive)
{
	struct ab_buf b = {0};
	int error;

	k->probe->archive_program(&b, archive);
	error = ab_write_file_atomic(src, b.s, b.len);
	ab_buf_free(&b);
	return error;
}

static int
has_archive_program(const struct ab_allockind *k)
{
	return k->probe->archive_program != NULL;
}

/* the rows whose archive can be probed, "jemalloc, mimalloc or tcmalloc"; static */
static const char *
archive_kinds(void)
{
	return ab_allockind_names(has_archive_program, " or ");
}

/* the last lines of a compiler's output, for the error message */
static const char *
tail_lines(const char *s, int n)
{
	const char *p = s + strlen(s);

	while (p > s && (p[-1] == '\n'))
		p--;
	while (p > s) {
		if (p[-1] == '\n' && --n == 0)
			break;
		p--;
	}
	return p;
}

int
ab_probe_archive(cJSON **out, const struct ab_probe_req *req, const char *archive, const char *workdir)
{
	const char *alloc = req->allocator, *base = strrchr(archive, '/');
	const struct ab_allockind *k = NULL;
	char *abs_archive = NULL, *dir = NULL, *tmpdir = NULL, *src = NULL, *prog = NULL;
	struct ab_strv argv = {0}, boxed = {0};
	char *incwd = NULL;
	struct ab_env env = {0};
	struct ab_buf cout = {0};
	struct ab_proc p = {0};
	struct ab_proc_result res;
	struct ab_probe_req sub = *req;
	char *prog_argv[2];
	cJSON *compile;
	int error = -1;

	*out = NULL;
	base = base ? base + 1 : archive;
	/* a missing archive is said first: its name cannot tell anything then */
	if (!ab_path_exists(archive) || ab_is_dir(archive)) {
		ab_error("probe: no archive '%s'", archive);
		return -1;
	}
	if (!alloc) {
		for (const struct ab_allockind *r = ab_allockinds; r->name && !k; r++)
			if (r->probe->archive_program && strstr(base, r->name))
				k = r;
		if (!k) {
			ab_error("probe: cannot tell the allocator of '%s' from its name: name it (%s)", archive,
			    archive_kinds());
			return -1;
		}
	} else if (!(k = ab_allockind_find(alloc)) || !k->probe->archive_program) {
		ab_error("probe: unknown allocator '%s' (%s)", alloc, archive_kinds());
		return -1;
	}
	abs_archive = ab_path_absolute(archive);
	if (workdir) {
		dir = ab_path_absolute(workdir);
		if (ab_mkdir_p(dir, 0777) < 0)
			goto done;
	} else {
		const char *t = getenv("TMPDIR");

		tmpdir = ab_sprintf("%s/allocbuild-probe-XXXXXX", t && *t ? t : "/tmp");
		if (!mkdtemp(tmpdir)) {
			ab_error_errno("probe: cannot create a directory '%s'", tmpdir);
			goto done;
		}
		dir = ab_strdup(tmpdir);
	}
	src = ab_path_join(dir, "probe.c");
	prog = ab_path_join(dir, "probe");
	if (write_program(src, k, archive) < 0)
		goto done;
	ab_strv_push(&argv, req->cc ? req->cc : "cc");
	ab_strv_push(&argv, "-o");
	ab_strv_push(&argv, prog);
	ab_strv_push(&argv, src);
	ab_strv_push(&argv, abs_archive);
	for (const char *const *l = k->probe->archive_libs; l && *l; l++)
		ab_strv_push(&argv, *l);
	probe_env(&env, req);
	in_sandbox(&p, &boxed, &incwd, req, ab_strv_argv(&argv), dir);
	p.envp = ab_env_envp(&env);
	p.out = &cout;
	p.err = &cout;
	if (ab_proc_run(&res, &p) < 0)
		goto done;
	if (res.exit_code != 0) {
		char status[128];

		ab_proc_describe(status, sizeof(status), &res);
		ab_error("probe: cannot link a probe program against '%s' (%s):\n%s", archive, status,
		    cout.s ? tail_lines(cout.s, 20) : "");
		goto done;
	}
	sub.allocator = k->name;
	prog_argv[0] = prog;
	prog_argv[1] = NULL;
	if (ab_probe_program(out, &sub, prog_argv) < 0)
		goto done;
	cJSON_AddStringToObject(*out, "archive", archive);
	compile = cJSON_AddObjectToObject(*out, "compile");
	cJSON_AddItemToObject(compile, "argv", boxed.n ? ab_json_strv(boxed.v, boxed.n) : ab_json_strv(argv.v, argv.n));
	cJSON_AddStringToObject(compile, "cwd", p.cwd);
	ab_probe_finish(*out);
	error = 0;
done:
	if (tmpdir && ab_path_exists(tmpdir))
		ab_rm_rf(tmpdir);
	free(tmpdir);
	ab_buf_free(&cout);
	ab_env_release(&env);
	ab_strv_free(&argv);
	ab_strv_free(&boxed);
	free(incwd);
	free(abs_archive);
	free(dir);
	free(src);
	free(prog);
	return error;
}

static void
print_row(FILE *f, const char *a, const char *b)
{
	fprintf(f, "%-14s %s\n", a, b);
}

void
ab_probe_print(FILE *f, const cJSON *rec)
{
	const char *alloc = ab_json_str(rec, "allocator");
	const char *version = ab_json_str(rec, "version");
	const cJSON *overrides = cJSON_GetObjectItemCaseSensitive(rec, "overrides");
	const cJSON *problems = cJSON_GetObjectItemCaseSensitive(rec, "problems");
	const cJSON *it;
	char num[64];
	int w = 7;

	if (!alloc && ab_json_str(rec, "asked_for")) {
		char *none = ab_sprintf("none reported (asked for %s)", ab_json_str(rec, "asked_for"));

		print_row(f, "allocator", none);
		free(none);
	} else {
		print_row(f, "allocator", alloc ? alloc : "unknown");
	}
	if (version || cJSON_HasObjectItem(rec, "version")) {
		char *v = ab_sprintf("%s%s", version ? version : "unknown",
		    cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(rec, "bogus_version")) ?
			" (bogus: configure found no version)" : "");

		print_row(f, "version", v);
		free(v);
	}
	if (cJSON_HasObjectItem(rec, "build_time")) {
		const char *bt = ab_json_str(rec, "build_time");

		print_row(f, "build-time", bt ? bt : "(none)");
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(rec, "quantum")) && cJSON_IsNumber(it)) {
		snprintf(num, sizeof(num), "%.0f", it->valuedouble);
		print_row(f, "quantum", num);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(rec, "page")) && cJSON_IsNumber(it)) {
		snprintf(num, sizeof(num), "%.0f", it->valuedouble);
		print_row(f, "page", num);
	}
	if ((it = cJSON_GetObjectItemCaseSensitive(rec, "secure")) && cJSON_IsNumber(it)) {
		snprintf(num, sizeof(num), "%.0f", it->valuedouble);
		print_row(f, "secure level", num);
	}
	cJSON_ArrayForEach(it, overrides) {
		const char *s = ab_json_str(it, "setting");
		int n = s ? (int)strlen(s) : 0;

		if (n > w)
			w = n;
	}
	if (cJSON_GetArraySize(overrides) > 0) {
		fprintf(f, "\n%-*s  %-10s %-16s %-16s %s\n", w, "setting", "origin", "requested", "effective", "status");
		cJSON_ArrayForEach(it, overrides) {
			const char *eff = ab_json_str(it, "effective");

			fprintf(f, "%-*s  %-10s %-16s %-16s %s\n", w, ab_json_str(it, "setting"),
			    ab_json_str(it, "origin"), ab_json_str(it, "requested"), eff ? eff : "-",
			    ab_json_str(it, "status"));
		}
	}
	fputc('\n', f);
	if (cJSON_GetArraySize(problems) == 0) {
		print_row(f, "result", "ok");
		return;
	}
	snprintf(num, sizeof(num), "%d problem%s", cJSON_GetArraySize(problems),
	    cJSON_GetArraySize(problems) == 1 ? "" : "s");
	print_row(f, "result", num);
}
