#include "runstats.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/util.h"
#include "../provenance/alloc/allocreg.h"
#include "../provenance/alloc/allocstats.h"

/* a record keeps every figure a registry row reads */
_Static_assert(AB_ALLOCSTATS_MAX <= AB_RUN_ALLOCSTATS_MAX, "a run record keeps fewer figures than an allocator reads");

static int
has_stats(const struct ab_allockind *k)
{
	return k->stats != NULL;
}

int
ab_runstats_resolve(struct ab_runstats *s, const struct ab_manifest_runtime *rt, const char *label)
{
	const struct ab_allocstats_ops *ops;

	memset(s, 0, sizeof(*s));
	s->kind = ab_allockind_find(rt->allocator);
	if (!s->kind || !s->kind->stats) {
		ab_error("run: --allocator-stats: %s's allocator is %s: allocbuild reads the statistics at exit of %s",
		    label, rt->allocator ? rt->allocator : "not known (its probe found none)",
		    ab_allockind_names(has_stats, " and "));
		return AB_EFAIL;
	}
	/* jemalloc's conf variable is the one its probe found (a prefixed build reads JE_MALLOC_CONF) */
	ops = s->kind->stats;
	s->variable = ab_strdup(ops->var ? ops->var : rt->conf_var ? rt->conf_var : "MALLOC_CONF");
	return 0;
}

void
ab_runstats_env(const struct ab_runstats *s, struct ab_env *e)
{
	const struct ab_allocstats_ops *ops = s->kind->stats;
	const char *had = ab_env_get(e, s->variable);

	if (ops->join && had && *had) {
		char *v = ab_sprintf("%s,%s", had, ops->value);

		ab_env_set(e, s->variable, v);
		free(v);
	} else {
		ab_env_set(e, s->variable, ops->value);
	}
}

void
ab_runstats_read(struct ab_runrec_allocstats *out, struct ab_metrics *m, const struct ab_runstats *s,
    const char *log_path, const char *log_shown, const char *label)
{
	const struct ab_allocstats_ops *ops = s->kind->stats;
	size_t n = ab_allocstats_nfigures(ops);
	double v[AB_ALLOCSTATS_MAX], res[AB_ALLOCSTATS_MAX];
	struct ab_buf text = {0};
	const char *why = NULL;

	memset(out, 0, sizeof(*out));
	out->allocator = s->kind->name;
	out->variable = s->variable;
	out->setting = ops->value;
	if (ab_read_file(&text, log_path) < 0)
		why = "its log could not be read";
	else
		ops->parse(v, res, text.s ? text.s : "", text.len, &why);
	if (why) {
		out->missing = why;
		ab_warn("run: %s: --allocator-stats: %s (%s)", label, why, log_shown);
		ab_buf_free(&text);
		return;
	}
	out->n = n;
	for (size_t i = 0; i < n; i++) {
		char *name = ab_sprintf("%s.%s_mib", s->kind->name, ops->figures[i]);

		out->names[i] = ops->figures[i];
		out->bytes[i] = v[i];
		out->resolution[i] = res[i];
		ab_metrics_set(m, name, v[i] / (1024.0 * 1024.0), "MiB", NULL, 0, 1);
		free(name);
	}
	ab_buf_free(&text);
}

void
ab_runstats_release(struct ab_runstats *s)
{
	free(s->variable);
	memset(s, 0, sizeof(*s));
}
