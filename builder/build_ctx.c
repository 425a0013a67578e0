/*
 * build_ctx: what every part of the build uses beside the run's state
 * (builder/build_ctx.h): a variant's record in the run, a path relative to
 * OUTDIR, a step's environment.
 */

#include "build_ctx.h"

#include <stdlib.h>
#include <string.h>

struct ab_variant_record *
ab_build_record_of(struct ctx *c, size_t vi)
{
	return &c->run.variants[vi];
}

/* ---- small helpers ---- */

char *
ab_build_rel_to_outdir(const struct ab_plan *p, const char *abs)
{
	size_t n = strlen(p->outdir);

	if (!strncmp(abs, p->outdir, n) && abs[n] == '/')
		return ab_strdup(abs + n + 1);
	return ab_strdup(abs);
}

void
ab_build_fill_env(struct ab_env *env, const struct ab_plan_var *pv)
{
	/* a sandboxed step has an environment of its own: nothing of the caller's */
	if (pv && pv->sandboxed)
		ab_env_sandboxed(env);
	else
		ab_env_scrubbed(env);
	for (size_t i = 0; pv && i < pv->env.n; i++) {
		const char *eq = strchr(pv->env.v[i], '=');
		char *k = ab_strndup(pv->env.v[i], (size_t)(eq - pv->env.v[i]));

		ab_env_set(env, k, eq + 1);
		free(k);
	}
}
