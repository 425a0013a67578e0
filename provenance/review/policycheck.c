/*
 * policycheck: a policy's rules against an OUTDIR's or a bundle's records
 * (provenance/review/policycheck.h, docs/policy.md).
 */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../record/bundle.h"
#include "challenge.h"
#include "../compare/compare.h"
#include "../attest/keys.h"
#include "policycheck.h"
#include "../record/binprov.h"
#include "../record/cmdsrec.h"
#include "../record/proberesult.h"
#include "../record/repro.h"
#include "../record/updiffrec.h"
#include "../runs/runenv.h"
#include "sign.h"
#include "statsruns.h"
#include "../alloc/allocreg.h"
#include "../alloc/allocstats.h"

#define BIN "provenance/binary-provenance.json"
#define PROBES "provenance/allocator-probes.json"
#define UPDIFF "provenance/upstream-diff.json"
#define CHECK "provenance/reproducibility.intoto.json"
#define COMMANDS "provenance/build-commands.json"
#define REBUILD "provenance/rebuild.intoto.json"
#define SIGNERS "provenance/provenance.intoto.jsonl"
#define RECORD_MAX (64u << 20)

/* jemalloc's message when the host's pages are larger than the build's LG_PAGE (src/pages.c) */
#define PAGE_ABORT "<jemalloc>: Unsupported system page size"

/* the records a policy reads, each NULL when the target has none */
struct recs {
	const struct ab_policy_check_opts *o;
	cJSON *bin, *probes, *updiff, *check, *rebuild, *commands;
	/* read typed (provenance/record/): binary-provenance.json, allocator-probes.json, upstream-diff.json */
	struct ab_binprov binp;
	struct ab_probe_results pr;
	struct ab_updiffrecs ud;
	struct ab_repro_record chk, reb; /* check's and rebuild's, read typed (provenance/record/repro.h) */
	struct ab_cmdsrec cmds;          /* build-commands.json's (provenance/record/cmdsrec.h) */
	struct ab_statsruns sr;          /* the labels run with --allocator-stats (an OUTDIR's; none in a bundle) */
};

/* one check of a rule */
struct at {
	struct ab_policy_report *rep;
	size_t rule;
	enum ab_policy_kind kind;
	const char *variant;
};

static void
add(const struct at *a, int ok, const char *file, const char *field, const char *expected, const char *actual)
{
	struct ab_policy_report *r = a->rep;
	struct ab_policy_line *l;

	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 32;
		r->v = ab_realloc(r->v, r->cap * sizeof(*r->v));
	}
	l = &r->v[r->n++];
	memset(l, 0, sizeof(*l));
	l->rule = a->rule;
	l->kind = a->kind;
	l->variant = ab_strdup_or_null(a->variant);
	l->ok = ok;
	l->expected = ok || !expected ? NULL : ab_strdup(expected);
	l->actual = ab_strdup(actual ? actual : "none");
	l->file = ab_strdup(file);
	l->field = ab_strdup(field);
	if (!ok)
		r->failed++;
}

/* the same with a file, a field and texts made by the caller, freed here */
static void
addff(const struct at *a, int ok, char *file, char *field, char *expected, char *actual)
{
	add(a, ok, file, field, expected, actual);
	free(file);
	free(field);
	free(expected);
	free(actual);
}

/* the same with a field and texts made by the caller, freed here */
static void
addf(const struct at *a, int ok, const char *file, char *field, char *expected, char *actual)
{
	add(a, ok, file, field, expected, actual);
	free(field);
	free(expected);
	free(actual);
}

/* rel of the target: 0 and *out, 1 when it has none, AB_EFAIL (reported) */
static int
read_record(cJSON **out, const struct ab_policy_check_opts *o, const char *rel)
{
	struct ab_buf b = {0};
	int e;

	*out = NULL;
	if (o->bundle) {
		e = ab_bundle_read(&b, o->target, rel, RECORD_MAX);
		if (e == 0 && !(*out = cJSON_ParseWithLength(b.s ? b.s : "", b.len))) {
			ab_error("'%s': the member '%s' is not JSON", o->target, rel);
			e = AB_EFAIL;
		}
		ab_buf_free(&b);
		return e;
	}
	{
		char *path = ab_path_join(o->target, rel);

		e = !ab_path_exists(path) ? 1 : ab_json_read(out, path) < 0 ? AB_EFAIL : 0;
		free(path);
	}
	return e;
}

/* the records read typed; AB_EFAIL (reported, naming the file and the key) */
static int
recs_parse(struct recs *r)
{
	char *bin = ab_sprintf("%s/%s", r->o->target, BIN), *probes = ab_sprintf("%s/%s", r->o->target, PROBES);
	char *updiff = ab_sprintf("%s/%s", r->o->target, UPDIFF);
	int e = ab_binprov_parse(&r->binp, r->bin, bin);

	if (e == 0 && r->probes)
		e = ab_probe_results_parse(&r->pr, r->probes, probes);
	if (e == 0 && r->updiff)
		e = ab_updiffrecs_parse(&r->ud, r->updiff, updiff);
	if (e == 0 && r->check)
		e = ab_repro_record_parse(&r->chk, r->check, CHECK);
	if (e == 0 && r->commands)
		e = ab_cmdsrec_parse(&r->cmds, r->commands, COMMANDS);
	if (e == 0 && r->rebuild)
		e = ab_repro_record_parse(&r->reb, r->rebuild, REBUILD);
	free(bin);
	free(probes);
	free(updiff);
	return e;
}

static int
recs_read(struct recs *r)
{
	struct {
		cJSON **where;
		const char *rel;
		int required;
	} t[] = {{&r->bin, BIN, 1}, {&r->probes, PROBES, 0}, {&r->updiff, UPDIFF, 0}, {&r->check, CHECK, 0},
		{&r->rebuild, REBUILD, 0}, {&r->commands, COMMANDS, 0}};

	for (size_t i = 0; i < AB_NELEM(t); i++) {
		int e = read_record(t[i].where, r->o, t[i].rel);

		if (e < 0)
			return AB_EFAIL;
		if (e > 0 && t[i].required) {
			ab_error("'%s' has no %s: not the output of a build", r->o->target, t[i].rel);
			return AB_EFAIL;
		}
	}
	if (!r->o->bundle && ab_statsruns_read(&r->sr, r->o->target) < 0)
		return AB_EFAIL;
	return recs_parse(r);
}

static void
recs_release(struct recs *r)
{
	cJSON_Delete(r->bin);
	cJSON_Delete(r->probes);
	cJSON_Delete(r->updiff);
	ab_updiffrecs_release(&r->ud);
	ab_binprov_release(&r->binp);
	ab_probe_results_release(&r->pr);
	ab_repro_record_release(&r->chk);
	ab_repro_record_release(&r->reb);
	ab_cmdsrec_release(&r->cmds);
	ab_statsruns_release(&r->sr);
	cJSON_Delete(r->check);
	cJSON_Delete(r->rebuild);
	cJSON_Delete(r->commands);
}

/*
 * 1. Rules on one variant.
 */
struct var {
	const char *label;
	const struct ab_binprov_variant *bin; /* binary-provenance.json's entry */
	const struct ab_probe_result *probe;  /* allocator-probes.json's, or NULL */
	const char *base;                     /* the variant whose binary it runs: itself, or its base */
	int bi, pi;                           /* their indexes */
};

static void
check_source(const struct at *a, const struct ab_policy_rule *r, const struct var *v)
{
	const struct ab_fetch_record *pin = v->bin->source.pin;
	const struct {
		const char *want, *key, *got;
	} t[] = {{r->commit, "commit", pin ? pin->commit : NULL}, {r->sha256, "sha256", pin ? pin->sha256 : NULL},
		{r->dirhash, "dirHash", pin ? pin->dirhash : NULL}};

	for (size_t i = 0; i < AB_NELEM(t); i++) {
		const char *got = t[i].got;

		if (!t[i].want)
			continue;
		addf(a, got && !strcmp(got, t[i].want), BIN, ab_sprintf("variants[%d].source.pin.%s", v->bi, t[i].key),
		    ab_sprintf("%s %s", t[i].key, t[i].want),
		    got ? ab_sprintf("%s %s", t[i].key, got) : ab_sprintf("no %s: the source is of kind %s", t[i].key,
		    pin ? ab_fetch_kind_name(pin->kind) : "unknown"));
	}
}

static void
check_upstream(const struct at *a, const struct ab_policy_rule *r, const struct recs *rc, const struct var *v)
{
	const struct ab_updiffrec *rep = ab_updiffrecs_get(&rc->ud, v->label);
	const char *key = r->identical ? "identical" : "matches";
	char *field = ab_sprintf("variants[\"%s\"].%s", v->label, key);
	int ok = rep && (r->identical ? rep->identical : rep->matches);

	if (!rc->updiff || !rep)
		addf(a, 0, UPDIFF, field, ab_strdup("an upstream-diff report of the vendored tree"),
		    ab_strdup(rc->updiff ? "no report for this variant" : "no upstream-diff record"));
	else
		addf(a, ok, UPDIFF, field, ab_strdup(r->identical ?
		    "every file identical to upstream" : "the vendored tree matching upstream"),
		    ab_strdup(rep->summary ? rep->summary : ok ? key : "no"));
}

/* does have ("5.3.0-0-g..." or "5.3.0") name exactly version want? */
static int
version_is(const char *have, const char *want)
{
	size_t n = strlen(want);

	return !strncmp(have, want, n) && (have[n] == '\0' || have[n] == '-');
}

static void
check_allocator(const struct at *a, const struct ab_policy_rule *r, const struct var *v)
{
	const char *kind = v->probe ? v->probe->allocator : NULL, *ver = v->probe ? v->probe->version : NULL;
	int ok;

	if (!v->probe) {
		addf(a, 0, PROBES, ab_sprintf("variants[].label"), ab_strdup("a probe record"),
		    ab_strdup("no probe of this variant"));
		return;
	}
	addf(a, kind && !strcmp(kind, r->alloc_kind), PROBES, ab_sprintf("variants[%d].probe.allocator", v->pi),
	    ab_strdup(r->alloc_kind), ab_strdup(kind ? kind : "no allocator found"));
	if (!r->version && !r->version_min && !r->version_max)
		return;
	if (v->probe->bogus_version || !ver) {
		addf(a, 0, PROBES, ab_sprintf("variants[%d].probe.version", v->pi), ab_strdup(r->version ? r->version :
		    "a version in range"), ab_sprintf("%s (not a version: the build could not tell)", ver ? ver : "none"));
		return;
	}
	if (r->version) {
		ok = version_is(ver, r->version);
		addf(a, ok, PROBES, ab_sprintf("variants[%d].probe.version", v->pi), ab_strdup(r->version), ab_strdup(ver));
		return;
	}
	ok = (!r->version_min || ab_policy_version_cmp(ver, r->version_min) >= 0) &&
	    (!r->version_max || ab_policy_version_cmp(ver, r->version_max) <= 0);
	addf(a, ok, PROBES, ab_sprintf("variants[%d].probe.version", v->pi),
	    ab_sprintf("from %s to %s", r->version_min ? r->version_min : "any", r->version_max ? r->version_max : "any"),
	    ab_strdup(ver));
}

/* is setting "name" (or "name:value" when value) among the comma-separated settings of conf? */
static int
conf_has(const char *conf, const char *name, size_t nlen, const char *value)
{
	for (const char *s = conf; *s;) {
		size_t n = strcspn(s, ",");
		const char *colon = memchr(s, ':', n);

		if (colon && (size_t)(colon - s) == nlen && !strncmp(s, name, nlen) &&
		    (!value || (strlen(value) == n - nlen - 1 && !strncmp(colon + 1, value, n - nlen - 1))))
			return 1;
		s += n + (s[n] == ',');
	}
	return 0;
}

static void
check_baked(const struct at *a, const struct ab_policy_rule *r, const struct var *v)
{
	/* jemalloc's build-time options as its probe's report shows them */
	const cJSON *cfg = v->probe ? ab_json_get(v->probe->report, "config") : NULL;
	const char *conf = ab_json_str(cfg, "malloc_conf");
	char *field = ab_sprintf("variants[%d].probe.config.malloc_conf", v->pi);

	if (!conf) {
		add(a, 0, PROBES, field, "jemalloc's build-time options (config.malloc_conf)",
		    v->probe ? "no config.malloc_conf in the probe (not jemalloc?)" : "no probe of this variant");
		free(field);
		return;
	}
	if (r->exact)
		addf(a, !strcmp(conf, r->exact), PROBES, ab_strdup(field), *r->exact ? ab_sprintf("'%s'", r->exact) :
		    ab_strdup("nothing baked ('')"), *conf ? ab_sprintf("'%s'", conf) : ab_strdup("nothing baked ('')"));
	for (size_t i = 0; i < r->contains.n; i++) {
		const char *s = r->contains.v[i], *colon = strchr(s, ':');

		addf(a, conf_has(conf, s, (size_t)(colon - s), colon + 1), PROBES, ab_strdup(field),
		    ab_sprintf("'%s' among the baked options", s), ab_sprintf("'%s'", conf));
	}
	for (size_t i = 0; i < r->absent.n; i++)
		addf(a, !conf_has(conf, r->absent.v[i], strlen(r->absent.v[i]), NULL), PROBES, ab_strdup(field),
		    ab_sprintf("no '%s' among the baked options", r->absent.v[i]), ab_sprintf("'%s'", conf));
	free(field);
}

/* is the override set at run time? */
static int
at_runtime(const struct ab_probe_override *o)
{
	return o->origin && !strcmp(o->origin, "runtime");
}

/* the probe's verdict on a setting set at run time: the override whose setting is name, or NULL */
static const struct ab_probe_override *
override(const struct var *v, const char *name, size_t nlen, int *index)
{
	for (size_t i = 0; v->probe && i < v->probe->noverrides; i++) {
		const struct ab_probe_override *o = &v->probe->overrides[i];
		const char *s = o->setting ? o->setting : "";

		if (at_runtime(o) && strlen(s) == nlen && !strncmp(s, name, nlen)) {
			*index = (int)i;
			return o;
		}
	}
	*index = -1;
	return NULL;
}

static void
check_runtime(const struct at *a, const struct ab_policy_rule *r, const struct var *v)
{
	for (size_t i = 0; i < r->read.n; i++) {
		const char *s = r->read.v[i], *colon = strchr(s, ':');
		int k;
		const struct ab_probe_override *o = override(v, s, (size_t)(colon - s), &k);
		const char *st = o && o->status ? o->status : "none", *eff = o && o->effective ? o->effective : "none";
		int ok = o && (!strcmp(st, "ok") || !strcmp(st, "default")) && !strcmp(eff, colon + 1);

		addf(a, ok, PROBES, o ? ab_sprintf("variants[%d].probe.overrides[%d]", v->pi, k) :
		    ab_sprintf("variants[%d].probe.overrides", v->pi), ab_sprintf("'%s' set at run time and read", s),
		    o ? ab_sprintf("%.*s set at run time: status %s, effective %s", (int)(colon - s), s, st, eff) :
		    ab_sprintf("%.*s not set at run time", (int)(colon - s), s));
	}
}

/*
 * not_set and the runs: the option that asked the allocator for its
 * statistics (run --allocator-stats) is a setting set at run time, named
 * with the first run of the label that set it
 */
static void
not_set_in_runs(const struct at *a, const struct recs *rc, const char *name, const struct var *v)
{
	int i = ab_statsruns_find(&rc->sr, v->label);
	const struct ab_allockind *k = i < 0 ? NULL : ab_allockind_find(rc->sr.allocators.v[i]);
	const char *opt = NULL;

	for (const char *const *p = k && k->stats ? k->stats->options : NULL; p && *p && !opt; p++)
		if (!strcmp(name, "*") || !strcmp(name, *p))
			opt = *p;
	if (opt)
		addf(a, 0, rc->sr.files.v[i], ab_strdup("predicate.allocator_stats"),
		    ab_sprintf("%s not set at run time", strcmp(name, "*") ? name : "no allocator option"),
		    ab_sprintf("%s set at run time by run --allocator-stats", opt));
}

static void
check_not_set(const struct at *a, const struct ab_policy_rule *r, const struct var *v, const struct recs *rc)
{
	/* the variables the probe was run with, as its report shows them */
	const cJSON *env = v->probe ? ab_json_get(ab_json_get(v->probe->report, "requested"), "env") : NULL;

	for (size_t i = 0; i < r->names.n; i++) {
		const char *name = r->names.v[i];
		const struct ab_probe_override *o;
		int k = -1, n = 0;

		not_set_in_runs(a, rc, name, v);
		if (strcmp(name, "*")) {
			o = override(v, name, strlen(name), &k);
			addf(a, !o, PROBES, o ? ab_sprintf("variants[%d].probe.overrides[%d]", v->pi, k) : ab_sprintf("variants[%d].probe.overrides", v->pi),
			    ab_sprintf("%s not set at run time", name),
			    o ? ab_sprintf("%s set at run time to %s", name, o->requested ? o->requested : "?") :
			    ab_sprintf("%s not set at run time", name));
			continue;
		}
		/* "*": nothing of the allocator's set at run time: no override, no variable */
		for (size_t j = 0; v->probe && j < v->probe->noverrides; j++)
			n += at_runtime(&v->probe->overrides[j]);
		n += cJSON_GetArraySize(env);
		addf(a, n == 0, PROBES, ab_sprintf("variants[%d].probe.requested.env", v->pi),
		    ab_strdup("no allocator option set at run time"), n ? ab_sprintf("%s set at run time", env && env->child ? env->child->string :
		    "an option") :
		    ab_strdup("nothing set at run time"));
	}
}

static void
check_secure(const struct at *a, const struct ab_policy_rule *r, const struct var *v)
{
	int s = v->probe ? v->probe->secure : -1;

	addf(a, s >= 0 && s == r->secure, PROBES, ab_sprintf("variants[%d].probe.secure", v->pi),
	    ab_sprintf("secure level %d", r->secure), s >= 0 ? ab_sprintf("secure level %d", s) :
	    ab_strdup("no secure level (not mimalloc?)"));
}

/* how many artifacts of label a record's comparison holds, how many identical, and the first that is not */
static int
repro_count(const struct ab_repro_result *cmp, const char *label, int *same, int *first_bad)
{
	int n = 0;

	*same = 0;
	*first_bad = -1;
	for (size_t i = 0; i < cmp->n; i++) {
		const struct ab_repro_artifact *it = &cmp->artifacts[i];

		if (it->label && !strcmp(it->label, label)) {
			n++;
			if (it->identical)
				(*same)++;
			else if (*first_bad < 0)
				*first_bad = (int)i;
		}
	}
	return n;
}

/* the artifacts of a variant (its base's, for a runtime variant, which has none of its own) in a record */
static void
repro_one(const struct at *a, const struct ab_repro_record *rec, const char *file, const struct var *v)
{
	const char *base = v->label;
	int same, first_bad, n = repro_count(&rec->cmp, base, &same, &first_bad);

	if (!n && strcmp(v->base, v->label)) {
		base = v->base;
		n = repro_count(&rec->cmp, base, &same, &first_bad);
	}
	addf(a, n && same == n, file, first_bad >= 0 ? ab_sprintf("predicate.comparison.artifacts[%d].identical",
	    first_bad) : ab_strdup("predicate.comparison.artifacts"), ab_strdup("every artifact identical"),
	    !n ? ab_sprintf("no artifact of %s compared", base) : strcmp(base, v->label) ?
	    ab_sprintf("%d/%d artifact%s identical (its base %s's)", same, n, n == 1 ? "" : "s", base) :
	    ab_sprintf("%d/%d artifact%s identical", same, n, n == 1 ? "" : "s"));
}

/*
 * The rebuilders of verify --rebuilt that got every artifact of the
 * variant (its base's, for a runtime one) identical, each counted once by
 * the key that verified its record: a host name is only what a record
 * says of itself, so unsigned records count for nothing
 */
static void
repro_independent(const struct at *a, const struct ab_policy_rule *r, const struct recs *rc, const struct var *v)
{
	const struct ab_challenge *ch = rc->o->rebuilt;
	const char *base = v->label;
	size_t n = 0, least = 0;
	char *actual;

	if (ch) {
		least = ab_challenge_label_signers(ch, base, &n);
		if (!n && strcmp(v->base, v->label)) {
			base = v->base;
			least = ab_challenge_label_signers(ch, base, &n);
		}
	}
	if (!ch)
		actual = ab_strdup("no rebuild record given (verify --rebuilt RECORD)");
	else if (!n)
		actual = ab_sprintf("no artifact of %s rebuilt", base);
	else if (!ab_challenge_checked(ch))
		actual = ab_strdup("none: the records' signatures were not checked (--rebuilt-key PUB.pem), and an "
		    "unsigned record proves nothing about who rebuilt");
	else
		actual = ab_sprintf("%zu signing key%s for %s %zu artifact%s%s%s", least, least == 1 ? "" : "s",
		    n == 1 ? "its" : "the least of its", n, n == 1 ? "" : "s", strcmp(base, v->label) ? ", its base " : "",
		    strcmp(base, v->label) ? base : "");
	addf(a, n && least >= (size_t)r->independent, "rebuild records (--rebuilt)",
	    ab_strdup("predicate.comparison.artifacts"), ab_sprintf("%d independent rebuilder%s (signing keys) with every "
	    "artifact identical", r->independent, r->independent == 1 ? "" : "s"), actual);
}

/*
 * The signed rebuild records of verify --rebuilt (pr --rebuilt) as a
 * rebuild record of the variant: at least one rebuilder, counted by the
 * key that verified its record, got each of its artifacts (its base's,
 * for a runtime variant) identical. The same count as the independent
 * rebuilders' (ab_challenge_label_signers), at least one
 */
static void
repro_signed(const struct at *a, const struct recs *rc, const struct var *v)
{
	const struct ab_challenge *ch = rc->o->rebuilt;
	const char *base = v->label;
	size_t n = 0, least = ab_challenge_label_signers(ch, base, &n);

	if (!n && strcmp(v->base, v->label)) {
		base = v->base;
		least = ab_challenge_label_signers(ch, base, &n);
	}
	addf(a, n && least >= 1, "rebuild records (--rebuilt)", ab_strdup("predicate.comparison.artifacts"),
	    ab_strdup("every artifact identical in a signed rebuild record"), !n ?
	    ab_sprintf("no artifact of %s rebuilt", base) : !least ?
	    ab_sprintf("no signing key got %s %zu artifact%s identical", n == 1 ? "its" : "each of its", n,
	    n == 1 ? "" : "s") :
	    ab_sprintf("%zu signing key%s for %s %zu artifact%s%s%s", least, least == 1 ? "" : "s",
	    n == 1 ? "its" : "the least of its", n, n == 1 ? "" : "s", strcmp(base, v->label) ? ", its base " : "",
	    strcmp(base, v->label) ? base : ""));
}

/*
 * Reproduced: each record the rule takes that the target holds (build
 * --check's, rebuild's) has every artifact identical, and so do the
 * signed records of independent rebuilders given with --rebuilt (a
 * rebuild record of this build as well as rebuild's own, for "any" and
 * "rebuild"); at least one of them must be there. With "independent" the
 * rebuilders are counted on a line of their own
 */
static void
check_reproducible(const struct at *a, const struct ab_policy_rule *r, const struct recs *rc, const struct var *v)
{
	int check = r->record != AB_POL_RECORD_REBUILD, rebuild = r->record != AB_POL_RECORD_CHECK;
	const struct ab_challenge *ch = rc->o->rebuilt;
	int signed_rebuilt = rebuild && ch && ab_challenge_checked(ch) && ab_challenge_nrecords(ch) > 0;

	if (check && rc->check)
		repro_one(a, &rc->chk, CHECK, v);
	if (rebuild && rc->rebuild)
		repro_one(a, &rc->reb, REBUILD, v);
	if (signed_rebuilt && !r->independent)
		repro_signed(a, rc, v);
	if (!(check && rc->check) && !(rebuild && rc->rebuild) && !signed_rebuilt)
		addf(a, 0, check ? CHECK : REBUILD, ab_strdup("predicate.comparison"), ab_strdup(
		    r->record == AB_POL_RECORD_CHECK ? "a build --check record" : r->record == AB_POL_RECORD_REBUILD ?
		    "a rebuild record, or a signed one of an independent rebuilder (--rebuilt)" :
		    "a build --check or rebuild record, or a signed one of an independent rebuilder (--rebuilt)"),
		    rebuild && ch && ab_challenge_nrecords(ch) ? ab_sprintf("none: %zu rebuild record%s given (--rebuilt), "
		    "%s not checked (--rebuilt-key PUB.pem): an unsigned record proves nothing about who rebuilt",
		    ab_challenge_nrecords(ch), ab_challenge_nrecords(ch) == 1 ? "" : "s",
		    ab_challenge_nrecords(ch) == 1 ? "its signature" : "their signatures") : ab_strdup("none"));
	if (r->independent)
		repro_independent(a, r, rc, v);
}

static char *
size_words(long bytes)
{
	if (bytes >= 1L << 30)
		return ab_sprintf("%ld GiB", bytes >> 30);
	if (bytes >= 1L << 20)
		return ab_sprintf("%ld MiB", bytes >> 20);
	return ab_sprintf("%ld KiB", bytes >> 10);
}

static void
check_targets(struct at *a, const struct ab_policy_rule *r, const struct var *v)
{
	const struct ab_binprov_host_probes *h = v->bin->host_probes;
	/* a record with the member null is not one without it (that says "none recorded") */
	int hp = v->bin->host_probes_member;
	const int lp = h ? h->lg_page : -1, lh = h ? h->lg_hugepage : -1, lv = h ? h->lg_vaddr : -1;
	const char *label = a->variant;

	for (size_t i = 0; i < r->ntargets; i++) {
		const struct ab_policy_target *t = &r->targets[i];
		char *name = ab_sprintf("%s on %s", label, t->name ? t->name : "?");

		a->variant = name;
		if (!hp) {
			addf(a, 0, BIN, ab_sprintf("variants[%d].host_probes", v->bi),
			    ab_strdup("jemalloc's host probes (LG_PAGE...)"), ab_strdup("none recorded"));
		}
		if (hp && t->page && lp >= 0) {
			long have = 1L << lp;
			char *hs = size_words(have), *ts = size_words(t->page);

			addf(a, have >= t->page, BIN, ab_sprintf("variants[%d].host_probes.LG_PAGE", v->bi),
			    ab_sprintf("pages of %s or larger", ts), have >= t->page ?
			    ab_sprintf("LG_PAGE %d (%s pages)", lp, hs) :
			    ab_sprintf("LG_PAGE %d (%s pages): jemalloc aborts there with \"" PAGE_ABORT "\"",
			    lp, hs));
			free(hs);
			free(ts);
		}
		if (hp && t->hugepage && lh >= 0) {
			long have = 1L << lh;
			char *hs = size_words(have), *ts = size_words(t->hugepage);

			addf(a, have == t->hugepage, BIN, ab_sprintf("variants[%d].host_probes.LG_HUGEPAGE", v->bi),
			    ab_sprintf("huge pages of %s", ts), ab_sprintf("LG_HUGEPAGE %d (%s)", lh, hs));
			free(hs);
			free(ts);
		}
		if (hp && t->vaddr_bits && lv >= 0)
			addf(a, lv >= t->vaddr_bits, BIN, ab_sprintf("variants[%d].host_probes.LG_VADDR", v->bi),
			    ab_sprintf("%d-bit virtual addresses or more", t->vaddr_bits), ab_sprintf("LG_VADDR %d", lv));
		free(name);
	}
	a->variant = label;
}

/* does the directory dir match one of the patterns (DIR, a slash and two stars, matches DIR and all below it)? */
static int
dir_in(const struct ab_strv *in, const char *dir)
{
	char *slash = ab_sprintf("%s/", dir);
	int ok = 0;

	for (size_t i = 0; i < in->n && !ok; i++)
		ok = !fnmatch(in->v[i], dir, 0) || !fnmatch(in->v[i], slash, 0);
	free(slash);
	return ok;
}

/*
 * The objects of v's tree against those of the rule's from variant
 * (build-commands.json's object_comparison, from the compile logs): every
 * directory holding a differing object matches one of the patterns, and
 * neither tree has an object the other lacks
 */
static void
check_only_differs(const struct at *a, const struct ab_policy_rule *r, const struct recs *rc, const struct var *v)
{
	const struct ab_cmdsrec_objects *cmp = NULL;
	struct ab_buf out = {0}, pats = {0};
	int at = -1, bad = 0, differ, only;

	for (size_t i = 0; i < rc->cmds.nobjects; i++) {
		const char *x = rc->cmds.objects[i].a, *y = rc->cmds.objects[i].b;

		if (x && y && ((!strcmp(x, r->from) && !strcmp(y, v->label)) || (!strcmp(y, r->from) && !strcmp(x, v->label)))) {
			cmp = &rc->cmds.objects[i];
			at = (int)i;
		}
	}
	for (size_t k = 0; k < r->in.n; k++)
		ab_buf_printf(&pats, "%s%s", k ? ", " : "", r->in.v[k]);
	if (!cmp) {
		addf(a, 0, COMMANDS, ab_strdup("object_comparison"),
		    ab_sprintf("the objects of %s compared with %s's (two variants of one program built together)", v->label,
		    r->from), ab_strdup("none"));
		ab_buf_free(&pats);
		return;
	}
	differ = cmp->differ;
	only = cmp->only_a + cmp->only_b;
	for (size_t k = 0; k < cmp->dirs.n; k++) {
		if (dir_in(&r->in, cmp->dirs.v[k]))
			continue;
		ab_buf_printf(&out, "%s%s (%d)", bad++ ? ", " : "", cmp->dirs.v[k], cmp->dir_n[k]);
	}
	if (only)
		ab_buf_printf(&out, "%s%d object%s in one tree only", bad++ ? ", " : "", only, only == 1 ? "" : "s");
	addf(a, !bad, COMMANDS, ab_sprintf("object_comparison[%d].differ_by_directory", at),
	    ab_sprintf("objects differing from %s's only in %s", r->from, pats.s ? pats.s : "nothing"),
	    bad ? ab_sprintf("objects differing outside it: %s", out.s) :
	    ab_sprintf("%d identical, %d differ, all in %s", cmp->identical, differ, pats.s ? pats.s : "nothing"));
	ab_buf_free(&out);
	ab_buf_free(&pats);
}

static void
check_variant(struct at *a, const struct ab_policy_rule *r, const struct recs *rc, const struct var *v)
{
	switch (r->kind) {
	case AB_POL_SOURCE:
		check_source(a, r, v);
		break;
	case AB_POL_UPSTREAM:
		check_upstream(a, r, rc, v);
		break;
	case AB_POL_ALLOCATOR:
		check_allocator(a, r, v);
		break;
	case AB_POL_BAKED:
		check_baked(a, r, v);
		break;
	case AB_POL_RUNTIME:
		check_runtime(a, r, v);
		break;
	case AB_POL_NOT_SET:
		check_not_set(a, r, v, rc);
		break;
	case AB_POL_SECURE:
		check_secure(a, r, v);
		break;
	case AB_POL_REPRODUCIBLE:
		check_reproducible(a, r, rc, v);
		break;
	case AB_POL_TARGETS:
		check_targets(a, r, v);
		break;
	case AB_POL_ONLY_DIFFERS:
		check_only_differs(a, r, rc, v);
		break;
	case AB_POL_SIGNERS:
	case AB_POL_RUNS:
		break;
	}
}

/* does label match one of the rule's variants? which[i] set for each pattern that matched */
static int
matches(const struct ab_policy_rule *r, const char *label, unsigned char *which)
{
	int any = 0;

	for (size_t i = 0; i < r->variants.n; i++)
		if (!fnmatch(r->variants.v[i], label, 0)) {
			which[i] = 1;
			any = 1;
		}
	return any;
}

/* a pattern of the rule that matched no variant fails */
static void
unmatched(struct at *a, const struct ab_policy_rule *r, const unsigned char *which, const char *file,
    const char *field, const char *what)
{
	for (size_t i = 0; i < r->variants.n; i++) {
		if (which[i])
			continue;
		a->variant = r->variants.v[i];
		add(a, 0, file, field, what, "none");
	}
	a->variant = NULL;
}

static void
check_rule_variants(struct at *a, const struct ab_policy_rule *r, const struct recs *rc)
{
	unsigned char *which = ab_calloc(r->variants.n + 1, 1);

	for (size_t bi = 0; bi < rc->binp.nvariants; bi++) {
		const struct ab_binprov_variant *b = &rc->binp.variants[bi];
		struct var v = {b->label, b, NULL, b->base ? b->base : b->label, (int)bi, -1};

		if (!matches(r, v.label, which))
			continue;
		for (size_t k = 0; k < rc->pr.n && !v.probe; k++)
			if (!strcmp(rc->pr.v[k].label, v.label)) {
				v.probe = rc->pr.v[k].result;
				v.pi = (int)k;
			}
		a->variant = v.label;
		check_variant(a, r, rc, &v);
	}
	unmatched(a, r, which, BIN, "variants[].label", "a variant matching it");
	free(which);
}

/*
 * 2. Rules on the whole build: signers, runs.
 */
static void
check_signers(struct at *a, const struct ab_policy_rule *r, const struct ab_policy_check_opts *o)
{
	struct ab_buf got = {0}, missing = {0};
	size_t n = 0;
	FILE *null = fopen("/dev/null", "w");

	for (size_t i = 0; i < r->keyids.n; i++) {
		const struct ab_key *k = NULL;
		int ok = 0;

		for (size_t j = 0; j < o->nkeys && !k; j++)
			if (!strcmp(ab_key_id(o->keys[j]), r->keyids.v[i]))
				k = o->keys[j];
		if (k && null) {
			struct ab_key *one[1] = {(struct ab_key *)k};
			struct ab_sign_verify_opts so = {.keys = one, .nkeys = 1};
			struct ab_bundle_members m = {0};

			/* the key's own verification: each envelope signed by it, every digest matching */
			if (o->bundle)
				ok = ab_bundle_verify_keep_to(null, &m, o->target, ab_sign_is_signed_member) == 0 &&
				    ab_sign_verify_bundle(null, o->target, &m, &so) == 0;
			else
				ok = ab_sign_verify_outdir(null, o->target, &so) == 0;
			ab_bundle_members_free(&m);
		}
		n += ok;
		ab_buf_printf(ok ? &got : &missing, "%s%.16s%s", (ok ? got.len : missing.len) ? ", " : "",
		    r->keyids.v[i], ok ? "" : k ? " (no valid signature by it)" : " (key not given)");
	}
	if (null)
		fclose(null);
	a->variant = NULL;
	addf(a, n >= r->min, SIGNERS, ab_strdup("signatures[].keyid"),
	    ab_sprintf("%zu of %zu keys signed every statement", r->min, r->keyids.n),
	    ab_sprintf("%zu of %zu%s%s%s%s", n, r->keyids.n, got.len ? ": " : "", got.len ? got.s : "",
	    missing.len ? "; not: " : "", missing.len ? missing.s : ""));
	ab_buf_free(&got);
	ab_buf_free(&missing);
}

/* the record of run i of s, as its file: runs/NAME/NNNN-LABEL.intoto.json */
static char *
run_file(const struct ab_compare_set *s, size_t i)
{
	return ab_sprintf("runs/%s/%04d-%s.intoto.json", s->name, s->runs[i].number, s->runs[i].label);
}

static void
runs_env(struct at *a, const struct ab_policy_rule *r, const struct ab_compare_set *s)
{
	for (size_t f = 0; f < r->equal.n; f++) {
		const char *first = NULL;
		size_t i0 = 0, i1 = 0;
		int differ = 0;

		for (size_t i = 0; i < s->nruns && !differ; i++) {
			const char *val = ab_runenv_value(s->runs[i].environment, r->equal.v[f]);

			if (!first) {
				first = val;
				i0 = i;
			} else if (strcmp(val, first)) {
				differ = 1;
				i1 = i;
			}
		}
		a->variant = r->equal.v[f];
		addff(a, !differ, differ ? run_file(s, i1) : ab_sprintf("runs/%s/*.intoto.json", s->name),
		    ab_sprintf("predicate.environment: %s", r->equal.v[f]), ab_strdup("the same in every run"),
		    differ ? ab_sprintf("%s in run %04d (%s), %s in run %04d (%s)", first, s->runs[i0].number,
		    s->runs[i0].label, ab_runenv_value(s->runs[i1].environment, r->equal.v[f]), s->runs[i1].number,
		    s->runs[i1].label) : ab_sprintf("%s in every run", first ? first : "absent"));
	}
	for (size_t f = 0; f < r->value_keys.n; f++) {
		const char *bad = NULL;
		size_t ib = 0;

		for (size_t i = 0; i < s->nruns && !bad; i++) {
			const char *val = ab_runenv_value(s->runs[i].environment, r->value_keys.v[f]);

			if (strcmp(val, r->value_vals.v[f])) {
				bad = val;
				ib = i;
			}
		}
		a->variant = r->value_keys.v[f];
		addff(a, !bad, bad ? run_file(s, ib) : ab_sprintf("runs/%s/*.intoto.json", s->name),
		    ab_sprintf("predicate.environment: %s", r->value_keys.v[f]),
		    ab_sprintf("%s in every run", r->value_vals.v[f]), bad ? ab_sprintf("%s in run %04d (%s)", bad, s->runs[ib].number, s->runs[ib].label) :
		    ab_sprintf("%s in every run", r->value_vals.v[f]));
	}
}

/* the label of a runs check, "LABEL on HOST" when the runs are of several hosts; caller frees */
static char *
on_host(const struct ab_compare_set *s, const char *label)
{
	return s->host ? ab_sprintf("%s on %s", label, s->host) : ab_strdup(label);
}

/* the counts of one set of the runs (each host's runs are checked apart) */
static void
runs_counts(struct at *a, const struct ab_policy_rule *r, const struct ab_compare_set *s, unsigned char *which)
{
	char *v;

	for (size_t l = 0; l < s->labels.n; l++) {
		size_t n = 0;

		if (!matches(r, s->labels.v[l], which))
			continue;
		for (size_t i = 0; i < s->nruns; i++)
			n += s->ok[i] && !strcmp(s->runs[i].label, s->labels.v[l]);
		a->variant = v = on_host(s, s->labels.v[l]);
		addff(a, (int)n >= r->min_repetitions, ab_sprintf("runs/%s/*-%s.intoto.json", s->name, s->labels.v[l]),
		    ab_strdup("predicate.status"),
		    ab_sprintf("%d successful runs or more", r->min_repetitions), ab_sprintf("%zu successful run%s", n,
		    n == 1 ? "" : "s"));
		free(v);
	}
	a->variant = NULL;
}

/* the run environments and the A/A control of one set of the runs */
static void
runs_control(struct at *a, const struct ab_policy_rule *r, const struct ab_compare_set *s)
{
	char *file = ab_sprintf("runs/%s/*.intoto.json", r->run_name), *v;

	runs_env(a, r, s);
	if (r->aa_control) {
		a->variant = v = on_host(s, "A/A control");
		/* a control with too few runs for the U test to reach p < 0.05 shows nothing: no control */
		addf(a, s->ncontrols && s->control_judged && !s->control_differs, file,
		    ab_strdup("subject, predicate.env_overrides"),
		    ab_strdup("an A/A control (two labels, one artifact) showing no difference"),
		    !s->ncontrols ? ab_strdup("no two labels ran the same artifact and environment") :
		    !s->control_judged ? ab_sprintf("%s against %s: too few runs for a verdict (the U test needs %zu "
		    "successful runs of each to reach p < 0.05)", s->labels.v[s->controls[0].a],
		    s->labels.v[s->controls[0].b], ab_stats_min_runs(0.05)) :
		    s->control_differs ? ab_sprintf("%s against %s differs", s->labels.v[s->controls[0].a],
		    s->labels.v[s->controls[0].b]) : ab_sprintf("%s against %s: no difference",
		    s->labels.v[s->controls[0].a], s->labels.v[s->controls[0].b]));
		free(v);
	}
	a->variant = NULL;
	free(file);
}

static void
check_runs(struct at *a, const struct ab_policy_rule *r, const struct ab_policy_check_opts *o)
{
	/*
	 * The counts and environments need no interval (one resample: none);
	 * the A/A control's verdict does: without an interval no ratio shows a
	 * difference, so aa_control takes compare's own resamples. Runs of
	 * several hosts (an OUTDIR their storage shares) are checked a host at
	 * a time, never pooled: compare's sets, one a host
	 */
	struct ab_compare_opts co = {.outdir = o->target, .name = r->run_name, .seed = AB_COMPARE_SEED,
		.resamples = r->aa_control ? AB_COMPARE_RESAMPLES : 1, .threshold = AB_COMPARE_THRESHOLD,
		.metrics = r->metrics.v, .nmetrics = r->metrics.n, .hosts = AB_HOSTS_SPLIT};
	struct ab_comparison *c = NULL;
	char *file = ab_sprintf("runs/%s/*.intoto.json", r->run_name);
	unsigned char *which = ab_calloc(r->variants.n + 1, 1);

	a->variant = NULL;
	if (o->bundle || ab_compare_load(&c, &co) != 0 || !c->nsets) {
		add(a, 0, file, "predicate", "recorded runs of that name",
		    o->bundle ? "a bundle: runs are checked in an OUTDIR" : "none that could be read");
		goto done;
	}
	for (size_t k = 0; k < c->nsets; k++)
		runs_counts(a, r, &c->sets[k], which);
	unmatched(a, r, which, file, "predicate.label", "runs of a label matching it");
	for (size_t k = 0; k < c->nsets; k++)
		runs_control(a, r, &c->sets[k]);
done:
	a->variant = NULL;
	if (c)
		ab_compare_free(c);
	free(which);
	free(file);
}

int
ab_policy_check(struct ab_policy_report *out, const struct ab_policy *p, const struct ab_policy_check_opts *o)
{
	struct recs rc = {.o = o};
	int e;

	memset(out, 0, sizeof(*out));
	if ((e = recs_read(&rc)) < 0)
		goto done;
	for (size_t i = 0; i < p->nrules; i++) {
		const struct ab_policy_rule *r = &p->rules[i];
		struct at a = {out, i, r->kind, NULL};

		if (r->kind == AB_POL_SIGNERS)
			check_signers(&a, r, o);
		else if (r->kind == AB_POL_RUNS)
			check_runs(&a, r, o);
		else
			check_rule_variants(&a, r, &rc);
	}
	e = out->failed ? AB_ECHECK : 0;
done:
	recs_release(&rc);
	return e;
}

void
ab_policy_report_print(FILE *f, const struct ab_policy_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct ab_policy_line *l = &r->v[i];
		char *var;

		/* -q: only the rules that failed */
		if (l->ok && ab_quiet)
			continue;
		var = l->variant ? ab_shown(l->variant) : NULL;
		fprintf(f, "%s: rules[%zu] %s%s%s: ", l->ok ? "pass" : "FAIL", l->rule, ab_policy_kind_name(l->kind),
		    var ? " " : "", var ? var : "");
		if (l->ok)
			fprintf(f, "%s", l->actual);
		else
			fprintf(f, "expected %s, got %s", l->expected, l->actual);
		fprintf(f, " (%s: %s)\n", l->file, l->field);
		free(var);
	}
}

cJSON *
ab_policy_report_json(const struct ab_policy_report *r)
{
	cJSON *arr = cJSON_CreateArray();

	for (size_t i = 0; i < r->n; i++) {
		const struct ab_policy_line *l = &r->v[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddNumberToObject(o, "rule", (double)l->rule);
		cJSON_AddStringToObject(o, "kind", ab_policy_kind_name(l->kind));
		ab_json_add_str_or_null(o, "variant", l->variant);
		cJSON_AddStringToObject(o, "result", l->ok ? "pass" : "fail");
		ab_json_add_str_or_null(o, "expected", l->expected);
		cJSON_AddStringToObject(o, "actual", l->actual);
		cJSON_AddStringToObject(o, "file", l->file);
		cJSON_AddStringToObject(o, "field", l->field);
		cJSON_AddItemToArray(arr, o);
	}
	return arr;
}

void
ab_policy_report_release(struct ab_policy_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].variant);
		free(r->v[i].expected);
		free(r->v[i].actual);
		free(r->v[i].file);
		free(r->v[i].field);
	}
	free(r->v);
	memset(r, 0, sizeof(*r));
}
