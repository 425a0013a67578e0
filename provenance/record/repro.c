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

/* what differs between the two builds of a variant that explains different bytes */
static cJSON *
likely_causes(const struct ab_repro_side *a, const struct ab_repro_side *b, const cJSON *va, const cJSON *vb,
    int reproducible)
{
	const char *label = ab_json_str(va, "label");
	const cJSON *ca = variant_of(a->commands, label), *cb = variant_of(b->commands, label);
	cJSON *causes = cJSON_CreateArray(), *hp, *it;
	struct ab_toolchain ta, tb;
	struct ab_strv tc = {0};

	if (!reproducible)
		cJSON_AddItemToArray(causes, cJSON_CreateString("the variant is built with \"reproducible\": false"));
	/* a toolchain that is not a record (an edited build-commands.json) compares as none */
	ab_toolchain_parse(&ta, ab_json_get(ca, "toolchain"));
	ab_toolchain_parse(&tb, ab_json_get(cb, "toolchain"));
	ab_toolchain_diff(&tc, &ta, &tb);
	for (size_t i = 0; i < tc.n; i++) {
		char *s = ab_sprintf("toolchain: %s", tc.v[i]);

		cJSON_AddItemToArray(causes, cJSON_CreateString(s));
		free(s);
	}
	ab_strv_free(&tc);
	ab_toolchain_release(&ta);
	ab_toolchain_release(&tb);
	hp = ab_hostprobe_diff(ab_json_get(va, "host_probes"), ab_json_get(vb, "host_probes"));
	cJSON_ArrayForEach(it, hp) {
		char *s = ab_sprintf("host probe: %s (pin it with --with-lg-page, --with-lg-hugepage, --with-lg-vaddr)",
		    it->valuestring);

		cJSON_AddItemToArray(causes, cJSON_CreateString(s));
		free(s);
	}
	cJSON_Delete(hp);
	return causes;
}

static int
seen_path(const cJSON *arts, const char *path)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, arts)
		if (!strcmp(ab_json_str(it, "path"), path))
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
first_differing_compile(cJSON *r, const char *ta, const char *tb)
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
		cJSON *f = cJSON_AddObjectToObject(r, "first_differing_compile");
		const struct compile *c = &a.c[first];

		cJSON_AddStringToObject(f, "source", c->src);
		cJSON_AddStringToObject(f, "output", c->out);
		cJSON_AddStringToObject(f, "cwd", c->cwd);
		cJSON_AddStringToObject(f, "command", c->cmd);
		cJSON_AddStringToObject(f, "original_sha256", c->sha);
		ab_strmap_get(&b.map, a.keys.v[first], &j);
		cJSON_AddStringToObject(f, "rebuilt_sha256", b.c[j].sha);
		cJSON_AddNumberToObject(r, "differing_compiles", (double)differ);
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

/* one artifact of the original against the other build's file of the same path */
static cJSON *
compare_one(const struct ab_repro_side *a, const struct ab_repro_side *b, const cJSON *va, const cJSON *art)
{
	const char *path = ab_json_str(art, "path"), *ha = ab_json_str(art, "sha256"), *hb;
	const cJSON *vb = NULL, *other = artifact_at(b->binaries, path, &vb);
	int reproducible = cJSON_IsTrue(ab_json_get(va, "reproducible"));
	cJSON *r = cJSON_CreateObject();

	hb = ab_json_str(other, "sha256");
	cJSON_AddStringToObject(r, "label", ab_json_str(va, "label"));
	cJSON_AddStringToObject(r, "path", path);
	cJSON_AddStringToObject(r, "original_sha256", ha ? ha : "");
	if (hb)
		cJSON_AddStringToObject(r, "rebuilt_sha256", hb);
	else
		cJSON_AddNullToObject(r, "rebuilt_sha256");
	cJSON_AddBoolToObject(r, "identical", ha && hb && !strcmp(ha, hb));
	cJSON_AddBoolToObject(r, "reproducible", reproducible);
	if (!(ha && hb && !strcmp(ha, hb))) {
		char *pa = a->outdir ? ab_path_join(a->outdir, path) : NULL;
		char *pb = b->outdir ? ab_path_join(b->outdir, path) : NULL;
		cJSON *d = NULL;
		char *sum;

		if (pa && !ab_path_exists(pa)) {
			free(pa);
			pa = NULL;
		}
		if (other) {
			d = ab_artdiff_compare(ab_json_get(art, "parts"), ab_json_get(other, "parts"), pa, pb);
			sum = ab_artdiff_summary(d);
			cJSON_AddItemToObject(r, "difference", d);
		} else {
			sum = ab_strdup("not built again");
		}
		cJSON_AddStringToObject(r, "summary", sum);
		cJSON_AddItemToObject(r, "likely_causes", likely_causes(a, b, va, vb ? vb : va, reproducible));
		{
			const char *label = ab_json_str(va, "label");
			const char *la = ab_json_str(a->compiles, label), *lb = ab_json_str(b->compiles, label);

			if (la && lb)
				first_differing_compile(r, la, lb);
		}
		free(sum);
		free(pa);
		free(pb);
	}
	return r;
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

cJSON *
ab_repro_compare(const struct ab_repro_side *a, const struct ab_repro_side *b)
{
	cJSON *cmp = cJSON_CreateObject(), *arts = cJSON_AddArrayToObject(cmp, "artifacts");
	const cJSON *v, *art;
	int n = 0, same = 0, differ = 0, expected = 0;
	double t0 = ab_now();
	char *sum;

	cJSON_ArrayForEach(v, ab_json_get(a->binaries, "variants")) {
		/* a runtime_of variant has its base's artifacts: compared once, as its base's */
		if (!strcmp(ab_json_str(v, "kind") ? ab_json_str(v, "kind") : "", "runtime_of"))
			continue;
		cJSON_ArrayForEach(art, ab_json_get(v, "artifacts")) {
			const char *path = ab_json_str(art, "path");
			cJSON *r;

			if (!path || seen_path(arts, path))
				continue;
			r = compare_one(a, b, v, art);
			n++;
			if (cJSON_IsTrue(ab_json_get(r, "identical")))
				same++;
			else if (cJSON_IsTrue(ab_json_get(r, "reproducible")))
				differ++;
			else
				expected++;
			cJSON_AddItemToArray(arts, r);
		}
	}
	cJSON_AddNumberToObject(cmp, "compared", n);
	cJSON_AddNumberToObject(cmp, "identical", same);
	cJSON_AddNumberToObject(cmp, "differ", differ);
	cJSON_AddNumberToObject(cmp, "differ_expected", expected);
	{
		struct ab_buf line = {0};

		ab_buf_printf(&line, "%d/%d artifact%s identical", same, n, n == 1 ? "" : "s");
		if (expected)
			ab_buf_printf(&line, "; %d of a variant built with \"reproducible\": false differ%s", expected,
			    expected == 1 ? "s" : "");
		sum = ab_buf_detach(&line);
	}
	cJSON_AddStringToObject(cmp, "summary", sum);
	free(sum);
	if (getenv("ALLOCBUILD_STATS"))
		ab_note("stats: comparison %.3fs", ab_now() - t0);
	return cmp;
}

void
ab_repro_print(FILE *f, const cJSON *cmp)
{
	const cJSON *it, *c;
	size_t wl = 0, wp = 0;

	cJSON_ArrayForEach(it, ab_json_get(cmp, "artifacts")) {
		size_t l = strlen(ab_json_str(it, "label")), p = strlen(ab_json_str(it, "path"));

		wl = l > wl ? l : wl;
		wp = p > wp ? p : wp;
	}
	cJSON_ArrayForEach(it, ab_json_get(cmp, "artifacts")) {
		const char *ha = ab_json_str(it, "original_sha256"), *hb = ab_json_str(it, "rebuilt_sha256");

		if (cJSON_IsTrue(ab_json_get(it, "identical"))) {
			fprintf(f, "identical  %-*s  %-*s  %.12s\n", (int)wl, ab_json_str(it, "label"), (int)wp,
			    ab_json_str(it, "path"), ha);
			continue;
		}
		fprintf(f, "differs    %-*s  %-*s  %.12s -> %.12s: %s%s\n", (int)wl, ab_json_str(it, "label"), (int)wp,
		    ab_json_str(it, "path"), ha, hb ? hb : "missing", ab_json_str(it, "summary"),
		    cJSON_IsTrue(ab_json_get(it, "reproducible")) ? "" : " (expected: \"reproducible\": false)");
		cJSON_ArrayForEach(c, ab_json_get(it, "likely_causes"))
			fprintf(f, "           likely cause: %s\n", c->valuestring);
		if ((c = ab_json_get(it, "first_differing_compile"))) {
			int nd = ab_json_get(it, "differing_compiles") ? ab_json_get(it, "differing_compiles")->valueint : 0;

			fprintf(f, "           first differing compile (%d of the variant's differ): %s -> %s in %s\n", nd,
			    ab_json_str(c, "source"), ab_json_str(c, "output"), ab_json_str(c, "cwd"));
			fprintf(f, "           command: %s\n", ab_json_str(c, "command"));
		}
	}
	fprintf(f, "%s\n", ab_json_str(cmp, "summary"));
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
ab_repro_statement(const char *type, cJSON *cmp, const struct ab_repro_side *a, const struct ab_repro_side *b,
    int subjects_of_b)
{
	cJSON *subj, *st = ab_statement_new(type, &subj), *pred, *r;
	const cJSON *it;
	const cJSON *rec = ab_json_get(a->binaries, "recipe");

	cJSON_ArrayForEach(it, ab_json_get(cmp, "artifacts")) {
		const char *hex = ab_json_str(it, subjects_of_b ? "rebuilt_sha256" : "original_sha256");

		if (hex && *hex)
			ab_statement_descriptor(subj, ab_json_str(it, "path"), hex);
	}
	pred = cJSON_AddObjectToObject(st, "predicate");
	r = cJSON_AddObjectToObject(pred, "recipe");
	cJSON_AddStringToObject(r, "name", ab_json_str(rec, "name") ? ab_json_str(rec, "name") : "");
	cJSON_AddStringToObject(r, "sha256", ab_json_str(rec, "sha256") ? ab_json_str(rec, "sha256") : "");
	cJSON_AddItemToObject(pred, "original", build_json(a));
	cJSON_AddItemToObject(pred, "rebuild", build_json(b));
	cJSON_AddItemToObject(pred, "comparison", cmp);
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
ab_repro_diffoscope(cJSON *cmp, const struct ab_repro_diffoscope *o)
{
	char *reports = ab_path_join(o->dir, "diffoscope");
	char max[32];
	struct ab_env env;
	int timeout = o->timeout > 0 ? o->timeout : AB_REPRO_DIFFOSCOPE_TIMEOUT, written = 0;
	cJSON *it;

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
	cJSON_ArrayForEach(it, ab_json_get(cmp, "artifacts")) {
		const char *path = ab_json_str(it, "path"), *base;
		char *a, *b, *out, *rel;
		char *argv[] = {"diffoscope", "--max-text-report-size", max, "--text", NULL, NULL, NULL, NULL};
		struct ab_proc p = {.argv = argv, .envp = ab_env_envp(&env), .timeout = timeout};
		struct ab_proc_result res;

		if (cJSON_IsTrue(ab_json_get(it, "identical")) || !ab_json_str(it, "rebuilt_sha256") || !path)
			continue;
		base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		a = ab_path_join(o->a_root, path);
		b = ab_path_join(o->b_root, path);
		rel = ab_sprintf("diffoscope/%s.%s.txt", ab_json_str(it, "label"), base);
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

				cJSON_AddStringToObject(it, "diffoscope", rel);
				if (ab_hash_file(hex, NULL, out) == 0)
					cJSON_AddStringToObject(it, "diffoscope_sha256", hex);
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
ab_repro_print_diffoscope(FILE *f, const cJSON *cmp, const char *where)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, ab_json_get(cmp, "artifacts"))
		if (ab_json_str(it, "diffoscope"))
			fprintf(f, "diffoscope: %s of %s: %s/%s\n", ab_json_str(it, "path"), ab_json_str(it, "label"), where,
			    ab_json_str(it, "diffoscope"));
}

int
ab_repro_result_parse(struct ab_repro_result *out, const cJSON *cmp, const char *file)
{
	const cJSON *arts = ab_json_get(cmp, "artifacts"), *differ = ab_json_get(cmp, "differ"), *it, *c;

	memset(out, 0, sizeof(*out));
	out->differ = -1;
	if (!cJSON_IsObject(cmp) || (arts && !cJSON_IsArray(arts))) {
		ab_error("'%s': predicate.comparison: expected {artifacts: [...], summary}", file);
		return AB_EFAIL;
	}
	out->summary = ab_json_strdup(cmp, "summary");
	if (cJSON_IsNumber(differ))
		out->differ = differ->valueint;
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
	}
	free(r->artifacts);
	free(r->summary);
	memset(r, 0, sizeof(*r));
	r->differ = -1;
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
