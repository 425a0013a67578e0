#include "testresult.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "../attest/dsse.h"
#include "../attest/statement.h"
#include "../record/manifest.h"

enum outcome { PASSED, WARNED, FAILED };

static const char *const outcome_key[] = {"passedTests", "warnedTests", "failedTests"};
static const char *const outcome_word[] = {"PASSED", "WARNED", "FAILED"};

/* the digest SHA256SUMS gives rel, or NULL */
static const char *
listed(const struct ab_strv *paths, const struct ab_strv *hexes, const char *rel)
{
	for (size_t i = 0; i < paths->n; i++)
		if (!strcmp(paths->v[i], rel))
			return hexes->v[i];
	return NULL;
}

/* a number, or null for none (NAN) or no finite one */
static void
add_number(cJSON *o, const char *key, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, key, v);
	else
		cJSON_AddNullToObject(o, key);
}

static void
add_shown(cJSON *o, const char *key, double v)
{
	char s[64];

	ab_compare_format_value(s, sizeof(s), v);
	cJSON_AddStringToObject(o, key, s);
}

/* "METRIC[ CELL]: LABEL against BASE" */
static char *
test_name(const struct ab_compare_set *s, const struct ab_compare_row *r)
{
	const char *cell = s->cells.v[r->cell];

	return ab_sprintf("%s%s%s: %s against %s%s%s", s->metrics[r->metric].name, *cell ? " " : "", cell,
	    s->labels.v[r->label], s->labels.v[r->against], s->host ? " on " : "", s->host ? s->host : "");
}

static enum outcome
outcome_of(const struct ab_compare_set *s, const struct ab_compare_row *r)
{
	if (!r->g || !r->base)
		return WARNED;
	if (r->control)
		return ab_stats_verdict_differs(r->verdict) ? FAILED : r->verdict == AB_VERDICT_TOO_FEW ? WARNED : PASSED;
	if (r->verdict == AB_VERDICT_WORSE)
		return FAILED;
	if (r->verdict == AB_VERDICT_TOO_FEW || r->verdict == AB_VERDICT_DIFFERS || ab_compare_unreliable_why(s))
		return WARNED;
	return PASSED;
}

static cJSON *
group_json(const struct ab_compare_set *s, const struct ab_compare_group *g)
{
	cJSON *o = cJSON_CreateObject(), *shown;

	cJSON_AddStringToObject(o, "label", s->labels.v[g->label]);
	if (s->host)
		cJSON_AddStringToObject(o, "host", s->host);
	cJSON_AddStringToObject(o, "metric", s->metrics[g->metric].name);
	ab_json_add_str_or_null(o, "unit", s->metrics[g->metric].unit);
	if (*s->cells.v[g->cell])
		cJSON_AddStringToObject(o, "cell", s->cells.v[g->cell]);
	cJSON_AddNumberToObject(o, "n", (double)g->n);
	add_number(o, "median", g->median);
	add_number(o, "min", g->min);
	add_number(o, "max", g->max);
	shown = cJSON_AddObjectToObject(o, "shown");
	add_shown(shown, "median", g->median);
	add_shown(shown, "min", g->min);
	add_shown(shown, "max", g->max);
	return o;
}

static cJSON *
row_json(const struct ab_compare_set *s, const struct ab_compare_row *r, const char *name, enum outcome out)
{
	cJSON *o = cJSON_CreateObject(), *ci, *shown;
	struct ab_compare_row_texts t;

	cJSON_AddStringToObject(o, "test", name);
	cJSON_AddStringToObject(o, "outcome", outcome_word[out]);
	cJSON_AddStringToObject(o, "label", s->labels.v[r->label]);
	cJSON_AddStringToObject(o, "against", s->labels.v[r->against]);
	if (s->host)
		cJSON_AddStringToObject(o, "host", s->host);
	cJSON_AddStringToObject(o, "metric", s->metrics[r->metric].name);
	ab_json_add_str_or_null(o, "unit", s->metrics[r->metric].unit);
	cJSON_AddStringToObject(o, "better", s->metrics[r->metric].higher ? "higher" : "lower");
	if (s->metrics[r->metric].derived)
		cJSON_AddStringToObject(o, "definition", s->metrics[r->metric].derived->expr);
	if (*s->cells.v[r->cell])
		cJSON_AddStringToObject(o, "cell", s->cells.v[r->cell]);
	cJSON_AddBoolToObject(o, "control", r->control);
	cJSON_AddBoolToObject(o, "paired", r->paired);
	cJSON_AddNumberToObject(o, "n", (double)r->na);
	cJSON_AddNumberToObject(o, "n_against", (double)r->nb);
	add_number(o, "median", r->g ? r->g->median : NAN);
	add_number(o, "median_against", r->base ? r->base->median : NAN);
	add_number(o, "ratio", r->ci.undefined == AB_RATIO_DEFINED ? r->ci.ratio : NAN);
	ci = cJSON_AddArrayToObject(o, "ci");
	if (!isnan(r->ci.lo)) {
		cJSON_AddItemToArray(ci, isfinite(r->ci.lo) ? cJSON_CreateNumber(r->ci.lo) : cJSON_CreateNull());
		cJSON_AddItemToArray(ci, isfinite(r->ci.hi) ? cJSON_CreateNumber(r->ci.hi) : cJSON_CreateNull());
	}
	add_number(o, "difference", r->ci.diff);
	add_number(o, "u", r->u.u);
	add_number(o, "p", r->u.p);
	cJSON_AddStringToObject(o, "verdict", ab_stats_verdict_word(r->verdict));
	cJSON_AddBoolToObject(o, "unreliable", ab_compare_unreliable_why(s) != NULL);
	ab_compare_row_texts(&t, s, r);
	shown = cJSON_AddObjectToObject(o, "shown");
	cJSON_AddStringToObject(shown, "ratio", t.ratio);
	cJSON_AddStringToObject(shown, "ci", t.ci);
	cJSON_AddStringToObject(shown, "p", t.p);
	cJSON_AddStringToObject(shown, "verdict", t.verdict);
	ab_compare_row_texts_release(&t);
	return o;
}

/* compare's settings: a ResourceDescriptor whose content is the settings' JSON */
static cJSON *
settings_descriptor(const struct ab_comparison *c, const struct ab_compare_set *s)
{
	cJSON *d = cJSON_CreateObject(), *a = cJSON_CreateObject(), *m;
	char seed[32];

	snprintf(seed, sizeof(seed), "%llu", (unsigned long long)c->o.seed);
	cJSON_AddStringToObject(a, "seed", seed);
	cJSON_AddNumberToObject(a, "resamples", c->o.resamples);
	cJSON_AddNumberToObject(a, "threshold", c->o.threshold);
	cJSON_AddNumberToObject(a, "alpha", AB_COMPARE_ALPHA);
	cJSON_AddNumberToObject(a, "level", AB_COMPARE_LEVEL);
	cJSON_AddStringToObject(a, "baseline", s->labels.v[s->baseline]);
	cJSON_AddStringToObject(a, "pairing", s->paired ? "paired by repetition (rotated runs)" : "unpaired");
	if (s->unpaired_why)
		cJSON_AddStringToObject(a, "unpaired_why", s->unpaired_why);
	m = cJSON_AddArrayToObject(a, "metrics");
	for (size_t i = 0; i < s->nmetrics; i++)
		cJSON_AddItemToArray(m, cJSON_CreateString(s->metrics[i].name));
	if (s->hosts.n > 1) {
		cJSON_AddItemToObject(a, "hosts", ab_json_strv(s->hosts.v, s->hosts.n));
		cJSON_AddStringToObject(a, "host_runs", s->host ? "compared apart, a host at a time" : "pooled");
	}
	/* the derived figures' definitions, as given: a reader computes them again from the run records */
	m = NULL;
	for (size_t i = 0; i < s->nmetrics; i++)
		if (s->metrics[i].derived) {
			m = m ? m : cJSON_AddArrayToObject(a, "derived");
			cJSON_AddItemToArray(m, cJSON_CreateString(s->metrics[i].derived->text));
		}
	cJSON_AddStringToObject(d, "name", "allocbuild compare settings");
	cJSON_AddStringToObject(d, "mediaType", "application/json");
	cJSON_AddItemToObject(d, "annotations", a);
	{
		/* the settings themselves as its content, so the descriptor names bytes */
		char *text = cJSON_PrintUnformatted(a);
		struct ab_buf b64 = {0};

		ab_dsse_b64_encode(&b64, text, strlen(text));
		cJSON_AddStringToObject(d, "content", b64.s ? b64.s : "");
		ab_buf_free(&b64);
		cJSON_free(text);
	}
	return d;
}

cJSON *
ab_testresult_statement(const struct ab_comparison *c, const struct ab_compare_set *sets, size_t n,
    const struct ab_strv *paths, const struct ab_strv *hexes)
{
	cJSON *subject, *st = ab_statement_new(AB_TESTRESULT_PREDICATE, &subject);
	cJSON *pred = cJSON_CreateObject(), *conf, *lists[3], *tests, *figures, *byp;
	struct ab_strv seen = {0};
	enum outcome result = PASSED;
	const char *rh = listed(paths, hexes, "recipe.json");

	for (size_t h = 0; h < n; h++)
		for (size_t i = 0; i < sets[h].nruns; i++) {
			const struct ab_runrec *r = &sets[h].runs[i];
			char *key = ab_sprintf("%s\n%s", r->subject, r->subject_sha256);

			if (r->subject && !ab_strv_has(&seen, key)) {
				ab_strv_push(&seen, key);
				ab_statement_descriptor(subject, r->subject, r->subject_sha256);
			}
			free(key);
		}
	ab_strv_free(&seen);
	cJSON_AddStringToObject(pred, "result", "");
	conf = cJSON_AddArrayToObject(pred, "configuration");
	byp = cJSON_CreateArray();
	if (rh) {
		ab_statement_descriptor(conf, "recipe.json", rh);
		ab_statement_descriptor(byp, "recipe.json", rh);
	}
	cJSON_AddItemToArray(conf, settings_descriptor(c, &sets[0]));
	for (size_t h = 0; h < n; h++)
		for (size_t i = 0; i < sets[h].nruns; i++) {
			const struct ab_compare_set *s = &sets[h];
			const struct ab_runrec *r = &s->runs[i];
			char *rel = ab_sprintf("%s/%s/%04d-%s.intoto.json", AB_RUN_DIR, s->name, r->number, r->label);
			const char *hex = listed(paths, hexes, rel);

			if (hex) {
				cJSON *d = ab_statement_descriptor(conf, rel, hex), *a = cJSON_AddObjectToObject(d, "annotations");

				cJSON_AddStringToObject(d, "mediaType", "application/vnd.in-toto+json");
				cJSON_AddStringToObject(a, "label", r->label);
				cJSON_AddBoolToObject(a, "ok", s->ok[i]);
				if (r->environment)
					cJSON_AddItemToObject(a, "environment", cJSON_Duplicate(r->environment, 1));
				ab_statement_descriptor(byp, rel, hex);
			}
			free(rel);
		}
	for (int k = 0; k < 3; k++)
		lists[k] = cJSON_AddArrayToObject(pred, outcome_key[k]);
	tests = cJSON_AddArrayToObject(pred, "tests");
	for (size_t h = 0; h < n; h++)
		for (size_t i = 0; i < sets[h].nrows; i++) {
			const struct ab_compare_set *s = &sets[h];
			const struct ab_compare_row *r = &s->rows[i];
			char *name = test_name(s, r);
			enum outcome out = outcome_of(s, r);

			cJSON_AddItemToArray(lists[out], cJSON_CreateString(name));
			cJSON_AddItemToArray(tests, row_json(s, r, name, out));
			if (out > result)
				result = out;
			free(name);
		}
	cJSON_ReplaceItemInObject(pred, "result", cJSON_CreateString(outcome_word[result]));
	figures = cJSON_AddArrayToObject(pred, "figures");
	for (size_t h = 0; h < n; h++)
		for (size_t i = 0; i < sets[h].ngroups; i++)
			cJSON_AddItemToArray(figures, group_json(&sets[h], &sets[h].groups[i]));
	/* the hosts' findings: where their verdicts disagree, the labels that ran other bytes on another host */
	if (sets[n - 1].host_notes.n)
		cJSON_AddItemToObject(pred, "host_notes", ab_json_strv(sets[n - 1].host_notes.v, sets[n - 1].host_notes.n));
	cJSON_AddItemToObject(pred, "byproducts", byp);
	cJSON_AddItemToObject(st, "predicate", pred);
	return st;
}

int
ab_testresult_is_statement(const char *rel)
{
	size_t n = strlen(AB_TESTRESULT_DIR), m;
	const char *base = rel + n + 1;
	char *name;
	int ok;

	if (strncmp(rel, AB_TESTRESULT_DIR "/", n + 1) || strchr(base, '/'))
		return 0;
	m = strlen(base);
	if (m <= 12 || strcmp(base + m - 12, ".intoto.json"))
		return 0;
	name = ab_strndup(base, m - 12);
	ok = ab_runrec_name_valid(name);
	free(name);
	return ok;
}

/* the run names of SHA256SUMS's run records, sorted */
static void
run_names(struct ab_strv *out, const struct ab_strv *paths)
{
	for (size_t i = 0; i < paths->n; i++) {
		const char *rel = paths->v[i], *name = rel + sizeof(AB_RUN_DIR);
		char *n;

		if (!ab_runrec_is_statement(rel))
			continue;
		n = ab_strndup(name, strcspn(name, "/"));
		if (!ab_strv_has(out, n))
			ab_strv_push(out, n);
		free(n);
	}
	if (out->n)
		ab_strv_sort(out);
}

int
ab_testresult_write(size_t *n, const char *outdir, const struct ab_compare_opts *o)
{
	struct ab_compare_opts dflt = {.outdir = outdir, .seed = AB_COMPARE_SEED, .resamples = AB_COMPARE_RESAMPLES,
	    .threshold = AB_COMPARE_THRESHOLD};
	struct ab_manifest_recorded rec = {0};
	struct ab_strv names = {0};
	char *dir = ab_path_join(outdir, AB_TESTRESULT_DIR);
	int rc;

	*n = 0;
	if ((rc = ab_manifest_recorded_read(&rec, outdir, 0)) < 0)
		goto done;
	run_names(&names, &rec.paths);
	if ((rc = ab_rm_rf(dir)) < 0 || !names.n)
		goto done;
	if ((rc = ab_mkdir_p(dir, 0755)) < 0)
		goto done;
	for (size_t i = 0; i < names.n && rc == 0; i++) {
		/* compare's own settings for the runs it compared (all, or its --name), the defaults for the others */
		struct ab_compare_opts co = o && (!o->name || !strcmp(o->name, names.v[i])) ? *o : dflt;
		struct ab_comparison *c = NULL;

		co.outdir = outdir;
		co.name = names.v[i];
		/* a name of several hosts' runs: a host at a time, unless asked to pool them */
		if (co.hosts == AB_HOSTS_REFUSE)
			co.hosts = AB_HOSTS_SPLIT;
		if ((rc = ab_compare_load(&c, &co)) == 0) {
			cJSON *st = ab_testresult_statement(c, c->sets, c->nsets, &rec.paths, &rec.hexes);
			char *path = ab_sprintf("%s/%s.intoto.json", dir, names.v[i]);

			rc = ab_json_write(path, st);
			if (rc == 0)
				(*n)++;
			cJSON_Delete(st);
			free(path);
		}
		ab_compare_free(c);
	}
done:
	ab_strv_free(&names);
	ab_manifest_recorded_release(&rec);
	free(dir);
	return rc;
}
