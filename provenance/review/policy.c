/*
 * policy: the policy file read into typed rules (provenance/review/policy.h,
 * docs/policy.md). Positions and errors through lib/jsonpos, as recipes.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonpos.h"
#include "policy.h"
#include "../alloc/allocreg.h"
#include "../runs/runenv.h"

static const char *const kind_names[] = {
	[AB_POL_SOURCE] = "source",
	[AB_POL_UPSTREAM] = "upstream",
	[AB_POL_ALLOCATOR] = "allocator",
	[AB_POL_BAKED] = "baked",
	[AB_POL_RUNTIME] = "runtime",
	[AB_POL_NOT_SET] = "not_set",
	[AB_POL_SECURE] = "secure",
	[AB_POL_REPRODUCIBLE] = "reproducible",
	[AB_POL_TARGETS] = "targets",
	[AB_POL_SIGNERS] = "signers",
	[AB_POL_RUNS] = "runs",
	[AB_POL_ONLY_DIFFERS] = "only_differs",
};

const char *
ab_policy_kind_name(enum ab_policy_kind k)
{
	return kind_names[k];
}

/* the loader's state: the diagnostics, and the policy being filled */
struct ctx {
	struct ab_jdiags dg;
	struct ab_policy *p;
};

static int
is_hex(const char *s, size_t n)
{
	if (strlen(s) != n)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/* a member of type t (cJSON_String, ...), or NULL: missing (reported when required) or of another type (reported) */
static const struct ab_jnode *
typed(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, int t, int required)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	char *p;
	int bad;

	if (!m) {
		if (required)
			ab_jdiag_missing(&c->dg, obj, path, key);
		return NULL;
	}
	p = ab_jpath_key(path, key);
	bad = ab_jdiag_want(&c->dg, m, p, t) < 0;
	free(p);
	return bad ? NULL : m;
}

/* a string member: a copy, or NULL */
static char *
str_of(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, int required)
{
	const struct ab_jnode *m = typed(c, obj, path, key, cJSON_String, required);

	return m ? ab_strdup(m->j->valuestring) : NULL;
}

/* a digest member: lowercase hex of n digits */
static char *
hex_of(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, size_t n, const char *what)
{
	const struct ab_jnode *m = typed(c, obj, path, key, cJSON_String, 0);
	char *p, *v;

	if (!m)
		return NULL;
	if (is_hex(m->j->valuestring, n))
		return ab_strdup(m->j->valuestring);
	p = ab_jpath_key(path, key);
	v = ab_jshown(m->j->valuestring);
	ab_jdiag_add(&c->dg, m->line, m->col, p, "'%s' is not %s (%zu lowercase hex digits)", v, what, n);
	free(v);
	free(p);
	return NULL;
}

/* an integer from min to max at n; -1 (reported) when it is not one */
static int
int_at(struct ctx *c, const struct ab_jnode *n, const char *path, long min, long max, long *out)
{
	double d = n->j->valuedouble;

	if (n->type != 'n' || d != (double)(long)d || d < (double)min || d > (double)max) {
		if (n->type != 'n')
			ab_jdiag_add(&c->dg, n->line, n->col, path, "expected an integer, got %s",
			    ab_json_type_name(n->j));
		else
			ab_jdiag_add(&c->dg, n->line, n->col, path, "expected an integer from %ld to %ld, got %g",
			    min, max, d);
		return -1;
	}
	*out = (long)d;
	return 0;
}

static int
int_of(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, long min, long max,
    long *out)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	char *p;
	int e;

	if (!m)
		return 1;
	p = ab_jpath_key(path, key);
	e = int_at(c, m, p, min, max, out);
	free(p);
	return e;
}

/*
 * A list of non-empty strings (a string alone is a list of one) into out;
 * setting: each must be "name:value"
 */
static void
strs_at(struct ctx *c, const struct ab_jnode *n, const char *path, struct ab_strv *out, int setting)
{
	const struct ab_jnode *one = n;
	size_t count = 1;

	if (n->type == '[') {
		if (!n->nkids)
			ab_jdiag_add(&c->dg, n->line, n->col, path, "must not be empty");
		count = n->nkids;
	} else if (ab_jdiag_want(&c->dg, n, path, cJSON_String) < 0) {
		return;
	}
	for (size_t i = 0; i < count; i++) {
		char *p = n->type == '[' ? ab_jpath_index(path, i) : ab_strdup(path);
		const char *s;

		one = n->type == '[' ? &n->kids[i] : n;
		if (ab_jdiag_want(&c->dg, one, p, cJSON_String) == 0) {
			s = one->j->valuestring;
			if (!*s) {
				ab_jdiag_add(&c->dg, one->line, one->col, p, "must not be empty");
			} else if (setting && (!strchr(s, ':') || s[0] == ':')) {
				char *v = ab_jshown(s);

				ab_jdiag_add(&c->dg, one->line, one->col, p, "'%s' is not a setting 'name:value'", v);
				free(v);
			} else {
				ab_strv_push(out, s);
			}
		}
		free(p);
	}
}

static void
strs_of(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, struct ab_strv *out,
    int setting)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	char *p;

	if (!m)
		return;
	p = ab_jpath_key(path, key);
	strs_at(c, m, p, out, setting);
	free(p);
}

/* an object member checked for its keys; NULL when missing (reported when required) or not an object */
static const struct ab_jnode *
obj_at(struct ctx *c, const struct ab_jnode *n, const char *path, const char *const *keys)
{
	if (ab_jdiag_want(&c->dg, n, path, cJSON_Object) < 0)
		return NULL;
	ab_jdiag_check_keys(&c->dg, n, path, keys);
	return n;
}

/* "at least one of": reported at the object */
static void
need_one(struct ctx *c, const struct ab_jnode *o, const char *path, int any, const char *which)
{
	if (!any)
		ab_jdiag_add(&c->dg, o->line, o->col, path, "expected at least one of %s", which);
}

static void
parse_source(struct ctx *c, struct ab_policy_rule *r, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"commit", "sha256", "dirHash", NULL};

	if (!obj_at(c, n, path, keys))
		return;
	r->commit = hex_of(c, n, path, "commit", 40, "a commit id");
	r->sha256 = hex_of(c, n, path, "sha256", AB_HEX_LEN, "a SHA-256 digest");
	r->dirhash = hex_of(c, n, path, "dirHash", AB_HEX_LEN, "a SHA-256 digest");
	need_one(c, n, path, ab_jnode_member(n, "commit") || ab_jnode_member(n, "sha256") ||
	    ab_jnode_member(n, "dirHash"), "commit, sha256, dirHash");
}

int
ab_policy_version_cmp(const char *have, const char *want)
{
	while (*want) {
		long x = strtol(have, (char **)&have, 10), y = strtol(want, (char **)&want, 10);

		if (x != y)
			return x < y ? -1 : 1;
		if (*want == '.')
			want++;
		if (*have == '.')
			have++;
		else if (*want)
			return -1; /* "5.3" against "5.3.0" */
	}
	return 0;
}

/* a version: digits and dots, "5.3.0" */
static int
valid_version(const char *s)
{
	int digits = 0;

	for (; *s; s++) {
		if (*s >= '0' && *s <= '9')
			digits++;
		else if (*s != '.' || !digits)
			return 0;
		else
			digits = 0;
	}
	return digits > 0;
}

static char *
version_of(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	char *s = str_of(c, obj, path, key, 0), *p, *v;

	if (!s || valid_version(s))
		return s;
	p = ab_jpath_key(path, key);
	v = ab_jshown(s);
	ab_jdiag_add(&c->dg, m->line, m->col, p, "'%s' is not a version such as '5.3.0'", v);
	free(v);
	free(p);
	free(s);
	return NULL;
}

static void
parse_allocator(struct ctx *c, struct ab_policy_rule *r, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"kind", "version", NULL};
	static const char *const range[] = {"min", "max", NULL};
	const struct ab_jnode *v;

	if (!obj_at(c, n, path, keys))
		return;
	r->alloc_kind = str_of(c, n, path, "kind", 1);
	if (r->alloc_kind && !ab_allockind_find(r->alloc_kind)) {
		const struct ab_jnode *k = ab_jnode_member(n, "kind");
		char *p = ab_jpath_key(path, "kind"), *s = ab_jshown(r->alloc_kind);

		ab_jdiag_add(&c->dg, k->line, k->col, p, "unknown allocator '%s' (%s)", s, ab_allockind_names(NULL, " or "));
		free(s);
		free(p);
	}
	if (!(v = ab_jnode_member(n, "version")))
		return;
	if (v->type == '{') {
		char *p = ab_jpath_key(path, "version");

		if (obj_at(c, v, p, range)) {
			r->version_min = version_of(c, v, p, "min");
			r->version_max = version_of(c, v, p, "max");
			need_one(c, v, p, ab_jnode_member(v, "min") || ab_jnode_member(v, "max"), "min, max");
			/* a range no version is in: a rule that could never pass */
			if (r->version_min && r->version_max &&
			    ab_policy_version_cmp(r->version_min, r->version_max) > 0) {
				char *q = ab_jpath_key(p, "min");
				const struct ab_jnode *m = ab_jnode_member(v, "min");

				ab_jdiag_add(&c->dg, m->line, m->col, q,
				    "'%s' is above max '%s': no version is in the range", r->version_min, r->version_max);
				free(q);
			}
		}
		free(p);
	} else {
		r->version = version_of(c, n, path, "version");
	}
}

static void
parse_baked(struct ctx *c, struct ab_policy_rule *r, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"exact", "contains", "absent", NULL};

	if (!obj_at(c, n, path, keys))
		return;
	r->exact = str_of(c, n, path, "exact", 0);
	strs_of(c, n, path, "contains", &r->contains, 1);
	strs_of(c, n, path, "absent", &r->absent, 0);
	need_one(c, n, path, ab_jnode_member(n, "exact") || ab_jnode_member(n, "contains") ||
	    ab_jnode_member(n, "absent"), "exact, contains, absent");
}

static void
parse_runtime(struct ctx *c, struct ab_policy_rule *r, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"read", NULL};

	if (!obj_at(c, n, path, keys))
		return;
	if (!ab_jnode_member(n, "read"))
		ab_jdiag_missing(&c->dg, n, path, "read");
	strs_of(c, n, path, "read", &r->read, 1);
}

static void
parse_reproducible(struct ctx *c, struct ab_policy_rule *r, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"record", "independent", NULL};
	const struct ab_jnode *m;
	long ind = 0;
	char *s;

	if (!obj_at(c, n, path, keys))
		return;
	if (int_of(c, n, path, "independent", 1, 100, &ind) == 0)
		r->independent = (int)ind;
	if (!(s = str_of(c, n, path, "record", 0)))
		return;
	m = ab_jnode_member(n, "record");
	if (!strcmp(s, "any")) {
		r->record = AB_POL_RECORD_ANY;
	} else if (!strcmp(s, "check")) {
		r->record = AB_POL_RECORD_CHECK;
	} else if (!strcmp(s, "rebuild")) {
		r->record = AB_POL_RECORD_REBUILD;
	} else {
		char *p = ab_jpath_key(path, "record"), *v = ab_jshown(s);

		ab_jdiag_add(&c->dg, m->line, m->col, p, "unknown record '%s' (any, check or rebuild)", v);
		free(v);
		free(p);
	}
	free(s);
}

/* a power of two from 4 KiB to 1 GiB (a page or huge page size) */
static void
size_of(struct ctx *c, const struct ab_jnode *obj, const char *path, const char *key, long *out)
{
	const struct ab_jnode *m = ab_jnode_member(obj, key);
	char *p;

	if (int_of(c, obj, path, key, 4096, 1L << 30, out) != 0 || !(*out & (*out - 1)))
		return;
	p = ab_jpath_key(path, key);
	ab_jdiag_add(&c->dg, m->line, m->col, p, "%ld is not a power of two", *out);
	free(p);
	*out = 0;
}

static void
parse_targets(struct ctx *c, struct ab_policy_rule *r, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"name", "page_size", "huge_page_size", "vaddr_bits", NULL};

	if (ab_jdiag_want(&c->dg, n, path, cJSON_Array) < 0)
		return;
	if (!n->nkids)
		ab_jdiag_add(&c->dg, n->line, n->col, path, "must not be empty");
	r->targets = ab_calloc(n->nkids ? n->nkids : 1, sizeof(*r->targets));
	for (size_t i = 0; i < n->nkids; i++) {
		const struct ab_jnode *t = &n->kids[i];
		struct ab_policy_target *tg = &r->targets[r->ntargets];
		char *p = ab_jpath_index(path, i);
		long bits = 0;

		if (obj_at(c, t, p, keys)) {
			r->ntargets++;
			tg->name = str_of(c, t, p, "name", 1);
			size_of(c, t, p, "page_size", &tg->page);
			size_of(c, t, p, "huge_page_size", &tg->hugepage);
			if (int_of(c, t, p, "vaddr_bits", 32, 64, &bits) == 0)
				tg->vaddr_bits = (int)bits;
			need_one(c, t, p, ab_jnode_member(t, "page_size") || ab_jnode_member(t, "huge_page_size") ||
			    ab_jnode_member(t, "vaddr_bits"), "page_size, huge_page_size, vaddr_bits");
		}
		free(p);
	}
}

static void
parse_signers(struct ctx *c, struct ab_policy_rule *r, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"keys", "min", NULL};
	const struct ab_jnode *k;
	long min = 0;

	if (!obj_at(c, n, path, keys))
		return;
	if (!(k = typed(c, n, path, "keys", cJSON_Array, 1)))
		return;
	strs_of(c, n, path, "keys", &r->keyids, 0);
	/* a key counts once: the same keyid twice would let one key meet "min": 2 */
	for (size_t i = 0; i < k->nkids; i++)
		for (size_t j = 0; j < i; j++) {
			const struct ab_jnode *a = &k->kids[j], *b = &k->kids[i];

			if (a->type == '"' && b->type == '"' && !strcmp(a->j->valuestring, b->j->valuestring)) {
				char *p = ab_jpath_index("", i), *q = ab_sprintf("%s.keys%s", path, p);
				char *v = ab_jshown(b->j->valuestring);

				ab_jdiag_add(&c->dg, b->line, b->col, q, "'%s' is listed twice (first at %d:%d): "
				    "a key counts once", v, a->line, a->col);
				free(v);
				free(q);
				free(p);
				break;
			}
		}
	for (size_t i = 0; i < r->keyids.n; i++) {
		if (!is_hex(r->keyids.v[i], AB_HEX_LEN)) {
			char *p = ab_jpath_index("", i), *q = ab_sprintf("%s.keys%s", path, p), *v = ab_jshown(r->keyids.v[i]);

			ab_jdiag_add(&c->dg, k->kids[i].line, k->kids[i].col, q,
			    "'%s' is not a keyid (64 lowercase hex digits: allocbuild sign prints it)", v);
			free(v);
			free(q);
			free(p);
		}
	}
	r->min = r->keyids.n;
	if (int_of(c, n, path, "min", 1, (long)(r->keyids.n ? r->keyids.n : 1), &min) == 0)
		r->min = (size_t)min;
}

static int
is_runenv_field(const char *s)
{
	for (size_t i = 0; i < ab_runenv_ncompared; i++)
		if (!strcmp(s, ab_runenv_compared[i]))
			return 1;
	return 0;
}

static void
runenv_field(struct ctx *c, int line, int col, const char *path, const char *s)
{
	struct ab_buf b = {0};
	char *v;

	if (is_runenv_field(s))
		return;
	for (size_t i = 0; i < ab_runenv_ncompared; i++)
		ab_buf_printf(&b, "%s%s", i ? ", " : "", ab_runenv_compared[i]);
	v = ab_jshown(s);
	ab_jdiag_add(&c->dg, line, col, path, "unknown run-environment field '%s' (one of %s)", v, b.s);
	free(v);
	ab_buf_free(&b);
}

static void
parse_runs(struct ctx *c, struct ab_policy_rule *r, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"name", "min_repetitions", "equal", "values", "aa_control", "metrics", NULL};
	const struct ab_jnode *m;
	long reps = 1;

	if (!obj_at(c, n, path, keys))
		return;
	r->run_name = str_of(c, n, path, "name", 1);
	if (int_of(c, n, path, "min_repetitions", 1, 1000000, &reps) >= 0)
		r->min_repetitions = (int)reps;
	strs_of(c, n, path, "equal", &r->equal, 0);
	if ((m = ab_jnode_member(n, "equal")) && m->type == '[')
		for (size_t i = 0; i < m->nkids; i++)
			if (m->kids[i].type == '"') {
				char *p = ab_jpath_key(path, "equal"), *q = ab_jpath_index(p, i);

				runenv_field(c, m->kids[i].line, m->kids[i].col, q, m->kids[i].j->valuestring);
				free(q);
				free(p);
			}
	if ((m = typed(c, n, path, "values", cJSON_Object, 0))) {
		char *p = ab_jpath_key(path, "values");

		ab_jdiag_check_keys(&c->dg, m, p, NULL);
		for (size_t i = 0; i < m->nkids; i++) {
			char *q = ab_jpath_key(p, m->kids[i].j->string);

			runenv_field(c, m->kids[i].kline, m->kids[i].kcol, q, m->kids[i].j->string);
			if (ab_jdiag_want(&c->dg, &m->kids[i], q, cJSON_String) == 0) {
				ab_strv_push(&r->value_keys, m->kids[i].j->string);
				ab_strv_push(&r->value_vals, m->kids[i].j->valuestring);
			}
			free(q);
		}
		free(p);
	}
	if ((m = ab_jnode_member(n, "aa_control"))) {
		if (m->type != 't') {
			char *p = ab_jpath_key(path, "aa_control");

			ab_jdiag_add(&c->dg, m->line, m->col, p, "expected a boolean, got %s", ab_json_type_name(m->j));
			free(p);
		} else {
			r->aa_control = cJSON_IsTrue(m->j);
		}
	}
	strs_of(c, n, path, "metrics", &r->metrics, 0);
	if ((m = ab_jnode_member(n, "metrics")) && m->type == '[' && !r->aa_control) {
		char *p = ab_jpath_key(path, "metrics");

		ab_jdiag_add(&c->dg, m->line, m->col, p, "the metrics an A/A control is judged on: only with \"aa_control\": true");
		free(p);
	}
}

/* {"from": LABEL, "in": [PATTERN...]} */
static void
parse_only_differs(struct ctx *c, struct ab_policy_rule *r, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"from", "in", NULL};

	if (!obj_at(c, n, path, keys))
		return;
	r->from = str_of(c, n, path, "from", 1);
	if (!ab_jnode_member(n, "in"))
		ab_jdiag_missing(&c->dg, n, path, "in");
	strs_of(c, n, path, "in", &r->in, 0);
}

/* one rule: "variants" and exactly one kind */
static void
parse_rule(struct ctx *c, const struct ab_jnode *n, const char *path)
{
	static const char *const keys[] = {"variants", "why", "source", "upstream", "allocator", "baked", "runtime",
		"not_set", "secure", "reproducible", "targets", "signers", "runs", "only_differs", NULL};
	struct ab_policy *p = c->p;
	struct ab_policy_rule *r;
	const struct ab_jnode *k = NULL;
	char *kp;
	long secure = 0;

	if (!obj_at(c, n, path, keys))
		return;
	r = &p->rules[p->nrules++];
	r->line = n->line;
	r->col = n->col;
	for (size_t i = 0; i < n->nkids; i++) {
		for (size_t j = 0; j < AB_NELEM(kind_names); j++) {
			if (strcmp(n->kids[i].j->string, kind_names[j]))
				continue;
			if (k) {
				char *q = ab_jpath_key(path, n->kids[i].j->string);

				ab_jdiag_add(&c->dg, n->kids[i].kline, n->kids[i].kcol, q,
				    "a rule has one kind: '%s' already at %d:%d", k->j->string, k->kline, k->kcol);
				free(q);
			} else {
				k = &n->kids[i];
				r->kind = (enum ab_policy_kind)j;
			}
		}
	}
	if (!k) {
		ab_jdiag_add(&c->dg, n->line, n->col, path, "a rule needs one kind: source, upstream, allocator, baked, "
		    "runtime, not_set, secure, reproducible, targets, signers, runs or only_differs");
		return;
	}
	free(str_of(c, n, path, "why", 0)); /* words for the reader: checked, not kept */
	if (r->kind == AB_POL_SIGNERS) {
		if (ab_jnode_member(n, "variants")) {
			const struct ab_jnode *v = ab_jnode_member(n, "variants");
			char *q = ab_jpath_key(path, "variants");

			ab_jdiag_add(&c->dg, v->kline, v->kcol, q, "a signers rule applies to the whole build: no variants");
			free(q);
		}
	} else if (!ab_jnode_member(n, "variants")) {
		ab_jdiag_missing(&c->dg, n, path, "variants");
	} else {
		strs_of(c, n, path, "variants", &r->variants, 0);
	}
	kp = ab_jpath_key(path, k->j->string);
	switch (r->kind) {
	case AB_POL_SOURCE:
		parse_source(c, r, k, kp);
		break;
	case AB_POL_UPSTREAM:
		if (k->type == '"' && (!strcmp(k->j->valuestring, "matches") || !strcmp(k->j->valuestring, "identical")))
			r->identical = !strcmp(k->j->valuestring, "identical");
		else
			ab_jdiag_add(&c->dg, k->line, k->col, kp, "expected \"matches\" (upstream-diff's verdict) or "
			    "\"identical\" (every file)");
		break;
	case AB_POL_ALLOCATOR:
		parse_allocator(c, r, k, kp);
		break;
	case AB_POL_BAKED:
		parse_baked(c, r, k, kp);
		break;
	case AB_POL_RUNTIME:
		parse_runtime(c, r, k, kp);
		break;
	case AB_POL_NOT_SET:
		strs_at(c, k, kp, &r->names, 0);
		break;
	case AB_POL_SECURE:
		if (int_at(c, k, kp, 0, 4, &secure) == 0)
			r->secure = (int)secure;
		break;
	case AB_POL_REPRODUCIBLE:
		parse_reproducible(c, r, k, kp);
		break;
	case AB_POL_TARGETS:
		parse_targets(c, r, k, kp);
		break;
	case AB_POL_SIGNERS:
		parse_signers(c, r, k, kp);
		break;
	case AB_POL_RUNS:
		parse_runs(c, r, k, kp);
		break;
	case AB_POL_ONLY_DIFFERS:
		parse_only_differs(c, r, k, kp);
		break;
	}
	free(kp);
}

static void
check_policy(struct ctx *c, const struct ab_jnode *root)
{
	static const char *const keys[] = {"policy", "name", "description", "rules", NULL};
	const struct ab_jnode *m;
	long version = 0;

	if (!obj_at(c, root, "$", keys))
		return;
	if (!ab_jnode_member(root, "policy"))
		ab_jdiag_missing(&c->dg, root, "$", "policy");
	else if (int_of(c, root, "$", "policy", 1, 1, &version) < 0)
		return;
	c->p->name = str_of(c, root, "$", "name", 1);
	c->p->description = str_of(c, root, "$", "description", 0);
	if (!(m = typed(c, root, "$", "rules", cJSON_Array, 1)))
		return;
	if (!m->nkids)
		ab_jdiag_add(&c->dg, m->line, m->col, "rules", "must not be empty");
	c->p->rules = ab_calloc(m->nkids ? m->nkids : 1, sizeof(*c->p->rules));
	for (size_t i = 0; i < m->nkids; i++) {
		char *p = ab_jpath_index("rules", i);

		parse_rule(c, &m->kids[i], p);
		free(p);
	}
}

int
ab_policy_parse(struct ab_policy **out, const char *name, const char *text, size_t len, FILE *errs)
{
	struct ab_jdoc doc;
	struct ctx c = {0};

	*out = NULL;
	if (ab_jdoc_parse(&doc, name, text, len, errs) < 0)
		return AB_EFAIL;
	c.p = ab_calloc(1, sizeof(*c.p));
	c.p->path = ab_strdup(name);
	ab_hash_buf(c.p->sha256, text, len);
	check_policy(&c, &doc.root);
	ab_jdoc_release(&doc);
	if (ab_jdiags_print(&c.dg, name, errs)) {
		ab_jdiags_release(&c.dg);
		ab_policy_free(c.p);
		return AB_EFAIL;
	}
	ab_jdiags_release(&c.dg);
	*out = c.p;
	return 0;
}

int
ab_policy_load(struct ab_policy **out, const char *path, FILE *errs)
{
	struct ab_buf b = {0};
	int e;

	*out = NULL;
	if (ab_is_dir(path)) {
		ab_error("cannot read policy '%s': is a directory", path);
		return AB_EFAIL;
	}
	if (ab_read_file_max(&b, path, AB_POLICY_MAX) < 0)
		return AB_EFAIL;
	e = ab_policy_parse(out, path, b.s ? b.s : "", b.len, errs);
	ab_buf_free(&b);
	return e;
}

static void
rule_release(struct ab_policy_rule *r)
{
	ab_strv_free(&r->variants);
	free(r->commit);
	free(r->sha256);
	free(r->dirhash);
	free(r->alloc_kind);
	free(r->version);
	free(r->version_min);
	free(r->version_max);
	free(r->exact);
	ab_strv_free(&r->contains);
	ab_strv_free(&r->absent);
	ab_strv_free(&r->read);
	ab_strv_free(&r->names);
	for (size_t i = 0; i < r->ntargets; i++)
		free(r->targets[i].name);
	free(r->targets);
	ab_strv_free(&r->keyids);
	free(r->run_name);
	free(r->from);
	ab_strv_free(&r->in);
	ab_strv_free(&r->equal);
	ab_strv_free(&r->value_keys);
	ab_strv_free(&r->value_vals);
	ab_strv_free(&r->metrics);
}

void
ab_policy_free(struct ab_policy *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nrules; i++)
		rule_release(&p->rules[i]);
	free(p->rules);
	free(p->path);
	free(p->name);
	free(p->description);
	free(p);
}
