#include "repro.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/proc.h"
#include "../../lib/strmap.h"
#include "../../lib/util.h"
#include "../tree/artdiff.h"
#include "../alloc/hostprobe.h"
#include "../attest/statement.h"
#include "toolchain.h"

/* the entry of label in a manifest's "variants" array, or NULL */
static const cJSON *
variant_of(const cJSON *doc, const char *label)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, ab_json_get(doc, "variants")) {
		const char *l = ab_json_str(it, "label");

		if (l && label && !strcmp(l, label))
			return it;
	}
	return NULL;
}

/* the artifact record of path in a side's binary-provenance.json, and the variant that has it */
static const cJSON *
artifact_at(const cJSON *binaries, const char *path, const cJSON **var)
{
	const cJSON *v, *a;

	cJSON_ArrayForEach(v, ab_json_get(binaries, "variants"))
		cJSON_ArrayForEach(a, ab_json_get(v, "artifacts")) {
			const char *p = ab_json_str(a, "path");

			if (p && !strcmp(p, path)) {
				if (var)
					*var = v;
				return a;
			}
		}
	return NULL;
}

/* what differs between the two builds of a variant that explains different bytes, appended to causes */
static void
likely_causes(struct ab_strv *causes, const struct ab_repro_side *a, const struct ab_repro_side *b, const cJSON *va,
    const cJSON *vb, int reproducible)
{
	const char *label = ab_json_str(va, "label");
	const cJSON *ca = variant_of(a->commands, label), *cb = variant_of(b->commands, label);
	cJSON *hp, *it;
	struct ab_toolchain ta, tb;
	struct ab_strv tc = {0};

	if (!reproducible)
		ab_strv_push(causes, "the variant is built with \"reproducible\": false");
	/* a toolchain that is not a record (an edited build-commands.json) compares as none */
	ab_toolchain_parse(&ta, ab_json_get(ca, "toolchain"));
	ab_toolchain_parse(&tb, ab_json_get(cb, "toolchain"));
	ab_toolchain_diff(&tc, &ta, &tb);
	for (size_t i = 0; i < tc.n; i++)
		ab_strv_pushf(causes, "toolchain: %s", tc.v[i]);
	ab_strv_free(&tc);
	ab_toolchain_release(&ta);
	ab_toolchain_release(&tb);
	hp = ab_hostprobe_diff(ab_json_get(va, "host_probes"), ab_json_get(vb, "host_probes"));
	cJSON_ArrayForEach(it, hp)
		ab_strv_pushf(causes, "host probe: %s (pin it with --with-lg-page, --with-lg-hugepage, --with-lg-vaddr)",
		    it->valuestring);
	cJSON_Delete(hp);
}

static int
seen_path(const struct ab_repro_result *r, const char *path)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->artifacts[i].path, path))
			return 1;
	return 0;
}

/* ---- compile logs ---- */

struct compile {
	char *line;                    /* the line, its tabs made NULs */
	const char *sha, *cwd, *out, *src, *cmd;
};

struct clog {
	struct compile *c;
	size_t n;
	struct ab_strv keys;           /* "cwd\tout#N" (its Nth writing), index-aligned with c */
	struct ab_strmap map;
};

static void
clog_parse(struct clog *l, const char *text)
{
	struct ab_strv bases = {0};     /* "cwd\tout", each once */
	struct ab_strmap seen = {0};    /* base -> its index in bases and count */
	size_t *count = NULL;

	memset(l, 0, sizeof(*l));
	while (text && *text) {
		size_t n = strcspn(text, "\n"), k;
		char *line = ab_strndup(text, n), *f[6] = {line}, *base;
		int nf = 1;

		text += n + (text[n] == '\n');
		/* a sixth field, what ccache did for the compile, is not compared */
		for (char *t = line; *t && nf < 6; t++)
			if (*t == '\t') {
				*t = '\0';
				f[nf++] = t + 1;
			}
		if (nf < 5) {
			free(line);
			continue;
		}
		l->c = ab_realloc(l->c, (l->n + 1) * sizeof(*l->c));
		l->c[l->n++] = (struct compile){line, f[0], f[1], f[2], f[3], f[4]};
		base = ab_sprintf("%s\t%s", f[1], f[2]);
		if (!ab_strmap_get(&seen, base, &k)) {
			k = bases.n;
			ab_strv_push_owned(&bases, base);
			ab_strmap_put(&seen, bases.v[k], k);
			count = ab_realloc(count, bases.n * sizeof(*count));
			count[k] = 0;
		} else {
			free(base);
		}
		/* the same object written again (configure's conftest.o): its Nth writing */
		ab_strv_pushf(&l->keys, "%s#%zu", bases.v[k], count[k]++);
	}
	for (size_t i = 0; i < l->keys.n; i++)
		ab_strmap_put(&l->map, l->keys.v[i], i);
	ab_strmap_free(&seen);
	ab_strv_free(&bases);
	free(count);
}

static void
clog_free(struct clog *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->c[i].line);
	free(l->c);
	ab_strv_free(&l->keys);
	ab_strmap_free(&l->map);
}

/*
 * The first compile of a (in its order) whose object b wrote too, at the
 * same path from the same directory, with other bytes; and how many do,
 * into r. An object only one side wrote (CMake's try-compiles in a
 * directory of a random name) is no difference of the build.
 */
static void
first_differing_compile(struct ab_repro_artifact *r, const char *ta, const char *tb)
{
	struct clog a, b;
	size_t first = (size_t)-1, differ = 0, j;

	clog_parse(&a, ta);
	clog_parse(&b, tb);
	for (size_t i = 0; i < a.n; i++) {
		if (ab_strmap_get(&b.map, a.keys.v[i], &j) && strcmp(a.c[i].sha, b.c[j].sha)) {
			differ++;
			if (first == (size_t)-1)
				first = i;
		}
	}
	if (first != (size_t)-1) {
		struct ab_repro_compile *f = r->first_compile = ab_calloc(1, sizeof(*f));
		const struct compile *c = &a.c[first];

		f->source = ab_strdup(c->src);
		f->output = ab_strdup(c->out);
		f->cwd = ab_strdup(c->cwd);
		f->command = ab_strdup(c->cmd);
		f->original_sha256 = ab_strdup(c->sha);
		ab_strmap_get(&b.map, a.keys.v[first], &j);
		f->rebuilt_sha256 = ab_strdup(b.c[j].sha);
		r->differing_compiles = (int)differ;
	}
	clog_free(&a);
	clog_free(&b);
}

cJSON *
ab_repro_compile_logs(const cJSON *commands, int (*read)(void *ctx, const char *rel, struct ab_buf *out), void *ctx)
{
	cJSON *logs = cJSON_CreateObject();
	const cJSON *v;

	cJSON_ArrayForEach(v, ab_json_get(commands, "variants")) {
		const char *rel = ab_json_str(v, "compile_log"), *label = ab_json_str(v, "label");
		struct ab_buf b = {0};

		if (rel && label && read(ctx, rel, &b) == 0)
			cJSON_AddStringToObject(logs, label, b.s ? b.s : "");
		ab_buf_free(&b);
	}
	return logs;
}

/* one artifact of the original against the other build's file of the same path, into *r */
static void
compare_one(struct ab_repro_artifact *r, const struct ab_repro_side *a, const struct ab_repro_side *b,
    const cJSON *va, const cJSON *art)
{
	const char *path = ab_json_str(art, "path"), *ha = ab_json_str(art, "sha256"), *hb;
	const cJSON *vb = NULL, *other = artifact_at(b->binaries, path, &vb);

	memset(r, 0, sizeof(*r));
	hb = ab_json_str(other, "sha256");
	r->label = ab_strdup_or_null(ab_json_str(va, "label"));
	r->path = ab_strdup(path);
	r->original_sha256 = ab_strdup(ha ? ha : "");
	r->rebuilt_sha256 = ab_strdup_or_null(hb);
	r->identical = ha && hb && !strcmp(ha, hb);
	r->reproducible = cJSON_IsTrue(ab_json_get(va, "reproducible"));
	if (!r->identical) {
		char *pa = a->outdir ? ab_path_join(a->outdir, path) : NULL;
		char *pb = b->outdir ? ab_path_join(b->outdir, path) : NULL;
		const char *la = ab_json_str(a->compiles, r->label), *lb = ab_json_str(b->compiles, r->label);

		if (pa && !ab_path_exists(pa)) {
			free(pa);
			pa = NULL;
		}
		if (other) {
			r->difference = ab_artdiff_compare(ab_json_get(art, "parts"), ab_json_get(other, "parts"), pa, pb);
			r->summary = ab_artdiff_summary(r->difference);
		} else {
			r->summary = ab_strdup("not built again");
		}
		likely_causes(&r->likely_causes, a, b, va, vb ? vb : va, r->reproducible);
		if (la && lb)
			first_differing_compile(r, la, lb);
		free(pa);
		free(pb);
	}
}

/* a file of an OUTDIR, read whole: 0, or -1 when it is not there (said by nobody: the log is optional) */
static int
read_in_outdir(void *ctx, const char *rel, struct ab_buf *out)
{
	char *p = ab_path_join(ctx, rel);
	int e = ab_path_exists(p) ? ab_read_file(out, p) : -1;

	free(p);
	return e < 0 ? -1 : 0;
}

int
ab_repro_side_read(struct ab_repro_side *s, struct ab_repro_docs *d, const char *outdir)
{
	static const char *const names[] = {"provenance/binary-provenance.json", "provenance/build-commands.json",
		"provenance/provenance.intoto.json"};
	cJSON **docs[] = {&d->binaries, &d->commands, &d->statement};

	for (size_t i = 0; i < AB_NELEM(names); i++) {
		char *p = ab_path_join(outdir, names[i]);
		int e = ab_json_read(docs[i], p);

		free(p);
		if (e < 0)
			return AB_EFAIL;
	}
	d->compiles = ab_repro_compile_logs(d->commands, read_in_outdir, (void *)outdir);
	s->where = outdir;
	s->outdir = outdir;
	s->binaries = d->binaries;
	s->commands = d->commands;
	s->statement = d->statement;
	s->compiles = d->compiles;
	return 0;
}

void
ab_repro_docs_release(struct ab_repro_docs *d)
{
	cJSON_Delete(d->binaries);
	cJSON_Delete(d->commands);
	cJSON_Delete(d->statement);
	cJSON_Delete(d->compiles);
	memset(d, 0, sizeof(*d));
}

void
ab_repro_compare(struct ab_repro_result *out, const struct ab_repro_side *a, const struct ab_repro_side *b)
{
	const cJSON *v, *art;
	double t0 = ab_now();
	struct ab_buf line = {0};
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	cJSON_ArrayForEach(v, ab_json_get(a->binaries, "variants")) {
		/* a runtime_of variant has its base's artifacts: compared once, as its base's */
		if (!strcmp(ab_json_str(v, "kind") ? ab_json_str(v, "kind") : "", "runtime_of"))
			continue;
		cJSON_ArrayForEach(art, ab_json_get(v, "artifacts")) {
			const char *path = ab_json_str(art, "path");
			struct ab_repro_artifact *r;

			if (!path || seen_path(out, path))
				continue;
			if (out->n == cap) {
				cap = cap ? 2 * cap : 16;
				out->artifacts = ab_realloc(out->artifacts, cap * sizeof(*out->artifacts));
			}
			r = &out->artifacts[out->n++];
			compare_one(r, a, b, v, art);
			if (r->identical)
				out->identical++;
			else if (r->reproducible)
				out->differ++;
			else
				out->differ_expected++;
		}
	}
	out->compared = (int)out->n;
	ab_buf_printf(&line, "%d/%d artifact%s identical", out->identical, out->compared, out->compared == 1 ? "" : "s");
	if (out->differ_expected)
		ab_buf_printf(&line, "; %d of a variant built with \"reproducible\": false differ%s", out->differ_expected,
		    out->differ_expected == 1 ? "s" : "");
	out->summary = ab_buf_detach(&line);
	if (getenv("ALLOCBUILD_STATS"))
		ab_note("stats: comparison %.3fs", ab_now() - t0);
}

static cJSON *
artifact_json(const struct ab_repro_artifact *a)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddStringToObject(r, "label", a->label);
	cJSON_AddStringToObject(r, "path", a->path);
	cJSON_AddStringToObject(r, "original_sha256", a->original_sha256 ? a->original_sha256 : "");
	if (a->rebuilt_sha256)
		cJSON_AddStringToObject(r, "rebuilt_sha256", a->rebuilt_sha256);
	else
		cJSON_AddNullToObject(r, "rebuilt_sha256");
	cJSON_AddBoolToObject(r, "identical", a->identical);
	cJSON_AddBoolToObject(r, "reproducible", a->reproducible);
	if (!a->identical) {
		if (a->difference)
			cJSON_AddItemToObject(r, "difference", cJSON_Duplicate(a->difference, 1));
		cJSON_AddStringToObject(r, "summary", a->summary);
		cJSON_AddItemToObject(r, "likely_causes", ab_json_strv(a->likely_causes.v, a->likely_causes.n));
	}
	if (a->first_compile) {
		const struct ab_repro_compile *c = a->first_compile;
		cJSON *f = cJSON_AddObjectToObject(r, "first_differing_compile");

		cJSON_AddStringToObject(f, "source", c->source);
		cJSON_AddStringToObject(f, "output", c->output);
		cJSON_AddStringToObject(f, "cwd", c->cwd);
		cJSON_AddStringToObject(f, "command", c->command);
		cJSON_AddStringToObject(f, "original_sha256", c->original_sha256);
		cJSON_AddStringToObject(f, "rebuilt_sha256", c->rebuilt_sha256);
		cJSON_AddNumberToObject(r, "differing_compiles", a->differing_compiles);
	}
	if (a->diffoscope) {
		cJSON_AddStringToObject(r, "diffoscope", a->diffoscope);
		if (a->diffoscope_sha256)
			cJSON_AddStringToObject(r, "diffoscope_sha256", a->diffoscope_sha256);
	}
	return r;
}

cJSON *
ab_repro_artifacts_json(const struct ab_repro_result *r)
{
	cJSON *arts = cJSON_CreateArray();

	for (size_t i = 0; i < r->n; i++)
		cJSON_AddItemToArray(arts, artifact_json(&r->artifacts[i]));
	return arts;
}

cJSON *
ab_repro_result_json(const struct ab_repro_result *r)
{
	cJSON *cmp = cJSON_CreateObject();

	cJSON_AddItemToObject(cmp, "artifacts", ab_repro_artifacts_json(r));
	cJSON_AddNumberToObject(cmp, "compared", r->compared);
	cJSON_AddNumberToObject(cmp, "identical", r->identical);
	cJSON_AddNumberToObject(cmp, "differ", r->differ);
	cJSON_AddNumberToObject(cmp, "differ_expected", r->differ_expected);
	cJSON_AddStringToObject(cmp, "summary", r->summary ? r->summary : "");
	return cmp;
}

void
ab_repro_print(FILE *f, const struct ab_repro_result *cmp)
{
	size_t wl = 0, wp = 0;

	for (size_t i = 0; i < cmp->n; i++) {
		size_t l = strlen(cmp->artifacts[i].label ? cmp->artifacts[i].label : ""), p = strlen(cmp->artifacts[i].path);

		wl = l > wl ? l : wl;
		wp = p > wp ? p : wp;
	}
	for (size_t i = 0; i < cmp->n; i++) {
		const struct ab_repro_artifact *it = &cmp->artifacts[i];
		const char *label = it->label ? it->label : "";

		if (it->identical) {
			fprintf(f, "identical  %-*s  %-*s  %.12s\n", (int)wl, label, (int)wp, it->path, it->original_sha256);
			continue;
		}
		fprintf(f, "differs    %-*s  %-*s  %.12s -> %.12s: %s%s\n", (int)wl, label, (int)wp, it->path,
		    it->original_sha256, it->rebuilt_sha256 ? it->rebuilt_sha256 : "missing", it->summary,
		    it->reproducible ? "" : " (expected: \"reproducible\": false)");
		for (size_t k = 0; k < it->likely_causes.n; k++)
			fprintf(f, "           likely cause: %s\n", it->likely_causes.v[k]);
		if (it->first_compile) {
			const struct ab_repro_compile *c = it->first_compile;

			fprintf(f, "           first differing compile (%d of the variant's differ): %s -> %s in %s\n",
			    it->differing_compiles, c->source, c->output, c->cwd);
			fprintf(f, "           command: %s\n", c->command);
		}
	}
	fprintf(f, "%s\n", cmp->summary);
}

static cJSON *
build_json(const struct ab_repro_side *s)
{
	cJSON *o = cJSON_CreateObject();
	const cJSON *jobs = ab_json_get(ab_json_get(s->commands, "options"), "jobs");

	cJSON_AddStringToObject(o, "where", s->where ? s->where : "");
	if (ab_json_str(s->binaries, "invocation_id"))
		cJSON_AddStringToObject(o, "invocation_id", ab_json_str(s->binaries, "invocation_id"));
	if (cJSON_IsNumber(jobs))
		cJSON_AddNumberToObject(o, "jobs", jobs->valuedouble);
	return o;
}

cJSON *
ab_repro_statement(const char *type, const struct ab_repro_result *cmp, const struct ab_repro_side *a,
    const struct ab_repro_side *b, int subjects_of_b)
{
	cJSON *subj, *st = ab_statement_new(type, &subj), *pred, *r;
	const cJSON *rec = ab_json_get(a->binaries, "recipe");

	for (size_t i = 0; i < cmp->n; i++) {
		const struct ab_repro_artifact *it = &cmp->artifacts[i];
		const char *hex = subjects_of_b ? it->rebuilt_sha256 : it->original_sha256;

		if (hex && *hex)
			ab_statement_descriptor(subj, it->path, hex);
	}
	pred = cJSON_AddObjectToObject(st, "predicate");
	r = cJSON_AddObjectToObject(pred, "recipe");
	cJSON_AddStringToObject(r, "name", ab_json_str(rec, "name") ? ab_json_str(rec, "name") : "");
	cJSON_AddStringToObject(r, "sha256", ab_json_str(rec, "sha256") ? ab_json_str(rec, "sha256") : "");
	cJSON_AddItemToObject(pred, "original", build_json(a));
	cJSON_AddItemToObject(pred, "rebuild", build_json(b));
	cJSON_AddItemToObject(pred, "comparison", ab_repro_result_json(cmp));
	return st;
}

/* ---- diffoscope ---- */

/* is prog in PATH? */
static int
in_path(const char *prog)
{
	const char *path = getenv("PATH");

	for (const char *p = path ? path : "/usr/bin:/bin";;) {
		size_t n = strcspn(p, ":");
		char *cand = ab_sprintf("%.*s/%s", (int)n, p, prog);
		int ok = access(cand, X_OK) == 0;

		free(cand);
		if (ok)
			return 1;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

int
ab_repro_diffoscope(struct ab_repro_result *cmp, const struct ab_repro_diffoscope *o)
{
	char *reports = ab_path_join(o->dir, "diffoscope");
	char max[32];
	struct ab_env env;
	int timeout = o->timeout > 0 ? o->timeout : AB_REPRO_DIFFOSCOPE_TIMEOUT, written = 0;

	snprintf(max, sizeof(max), "%d", AB_REPRO_DIFFOSCOPE_MAX);
	if (ab_rm_rf(reports) < 0) {
		free(reports);
		return 0;
	}
	if (!in_path("diffoscope")) {
		ab_note("diffoscope is not installed: no report of the artifacts that differ (apt-get install diffoscope-minimal)");
		free(reports);
		return 0;
	}
	ab_env_scrubbed(&env);
	for (size_t i = 0; i < cmp->n; i++) {
		struct ab_repro_artifact *it = &cmp->artifacts[i];
		const char *path = it->path, *base;
		char *a, *b, *out, *rel;
		char *argv[] = {"diffoscope", "--max-text-report-size", max, "--text", NULL, NULL, NULL, NULL};
		struct ab_proc p = {.argv = argv, .envp = ab_env_envp(&env), .timeout = timeout};
		struct ab_proc_result res;

		if (it->identical || !it->rebuilt_sha256 || !path)
			continue;
		base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		a = ab_path_join(o->a_root, path);
		b = ab_path_join(o->b_root, path);
		rel = ab_sprintf("diffoscope/%s.%s.txt", it->label, base);
		out = ab_path_join(o->dir, rel);
		argv[4] = out;
		argv[5] = a;
		argv[6] = b;
		if (ab_mkdir_p(reports, 0755) == 0 && ab_proc_run(&res, &p) == 0) {
			/* 0: no difference found, 1: differences reported */
			if (res.timed_out)
				ab_warn("diffoscope: '%s': stopped after %d seconds; its report is partial", path, timeout);
			else if (res.exit_code > 1 || res.signal)
				ab_warn("diffoscope: '%s': %s", path, res.signal ? "killed" : "failed");
			if (ab_path_exists(out)) {
				char hex[AB_HEX_LEN + 1];

				free(it->diffoscope);
				free(it->diffoscope_sha256);
				it->diffoscope = ab_strdup(rel);
				it->diffoscope_sha256 = ab_hash_file(hex, NULL, out) == 0 ? ab_strdup(hex) : NULL;
				written++;
			}
		}
		free(a);
		free(b);
		free(rel);
		free(out);
		if (written && !o->all)
			break;
	}
	ab_env_release(&env);
	free(reports);
	return written;
}

void
ab_repro_print_diffoscope(FILE *f, const struct ab_repro_result *cmp, const char *where)
{
	for (size_t i = 0; i < cmp->n; i++) {
		const struct ab_repro_artifact *it = &cmp->artifacts[i];

		if (it->diffoscope)
			fprintf(f, "diffoscope: %s of %s: %s/%s\n", it->path, it->label, where, it->diffoscope);
	}
}

/* a count of the comparison, -1 when it does not say */
static int
count_of(const cJSON *cmp, const char *key)
{
	const cJSON *n = ab_json_get(cmp, key);

	return cJSON_IsNumber(n) ? n->valueint : -1;
}

int
ab_repro_result_parse(struct ab_repro_result *out, const cJSON *cmp, const char *file)
{
	const cJSON *arts = ab_json_get(cmp, "artifacts"), *it, *c;

	memset(out, 0, sizeof(*out));
	out->compared = out->identical = out->differ = out->differ_expected = -1;
	if (!cJSON_IsObject(cmp) || (arts && !cJSON_IsArray(arts))) {
		ab_error("'%s': predicate.comparison: expected {artifacts: [...], summary}", file);
		return AB_EFAIL;
	}
	out->summary = ab_json_strdup(cmp, "summary");
	out->compared = count_of(cmp, "compared");
	out->identical = count_of(cmp, "identical");
	out->differ = count_of(cmp, "differ");
	out->differ_expected = count_of(cmp, "differ_expected");
	out->artifacts = ab_calloc((size_t)cJSON_GetArraySize(arts) + 1, sizeof(*out->artifacts));
	cJSON_ArrayForEach(it, arts) {
		struct ab_repro_artifact *a = &out->artifacts[out->n++];

		if (!cJSON_IsObject(it)) {
			ab_error("'%s': predicate.comparison.artifacts[%zu]: expected an object", file, out->n - 1);
			ab_repro_result_release(out);
			return AB_EFAIL;
		}
		a->label = ab_json_strdup(it, "label");
		a->path = ab_json_strdup(it, "path");
		a->original_sha256 = ab_json_strdup(it, "original_sha256");
		a->rebuilt_sha256 = ab_json_strdup(it, "rebuilt_sha256");
		a->identical = cJSON_IsTrue(ab_json_get(it, "identical"));
		a->reproducible = cJSON_IsTrue(ab_json_get(it, "reproducible"));
		a->summary = ab_json_strdup(it, "summary");
		a->diffoscope = ab_json_strdup(it, "diffoscope");
		a->diffoscope_sha256 = ab_json_strdup(it, "diffoscope_sha256");
		cJSON_ArrayForEach(c, ab_json_get(it, "likely_causes"))
			ab_strv_push(&a->likely_causes, cJSON_IsString(c) ? c->valuestring : "?");
	}
	return 0;
}

void
ab_repro_result_release(struct ab_repro_result *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct ab_repro_artifact *a = &r->artifacts[i];

		free(a->label);
		free(a->path);
		free(a->original_sha256);
		free(a->rebuilt_sha256);
		free(a->summary);
		free(a->diffoscope);
		free(a->diffoscope_sha256);
		ab_strv_free(&a->likely_causes);
		cJSON_Delete(a->difference);
		if (a->first_compile) {
			free(a->first_compile->source);
			free(a->first_compile->output);
			free(a->first_compile->cwd);
			free(a->first_compile->command);
			free(a->first_compile->original_sha256);
			free(a->first_compile->rebuilt_sha256);
			free(a->first_compile);
		}
	}
	free(r->artifacts);
	free(r->summary);
	memset(r, 0, sizeof(*r));
	r->compared = r->identical = r->differ = r->differ_expected = -1;
}

int
ab_repro_record_parse(struct ab_repro_record *out, const cJSON *st, const char *file)
{
	const cJSON *pred = ab_json_get(st, "predicate");
	const cJSON *jobs = ab_json_get(ab_json_get(pred, "rebuild"), "jobs");

	out->jobs = cJSON_IsNumber(jobs) ? jobs->valueint : -1;
	return ab_repro_result_parse(&out->cmp, ab_json_get(pred, "comparison"), file);
}

void
ab_repro_record_release(struct ab_repro_record *r)
{
	ab_repro_result_release(&r->cmp);
}
