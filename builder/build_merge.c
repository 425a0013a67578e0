/*
 * build_merge: the manifests of a merge of shards (builder/merge.c), written
 * from the shards' records as a run writes its own.
 */

#include "build.h"
#include "build_ctx.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/jsonio.h"
#include "../provenance/record/toolchain.h"

/* ---- a merge of shards ---- */

static int
json_int(const cJSON *o, const char *key)
{
	const cJSON *n = ab_json_get(o, key);

	return cJSON_IsNumber(n) ? n->valueint : cJSON_IsTrue(n) ? 1 : 0;
}

int
ab_build_write_merged(const struct ab_plan *p, const struct ab_build_merged *m)
{
	struct ab_build_opts o = {0};
	struct ctx c;
	int e;

	ab_build_ctx_init(&c, p, &o);
	c.run.write_dir = ab_strdup(m->dir);
	free(c.run.recipe.path);
	c.run.recipe.path = ab_strdup(m->recipe_path);
	c.run.recipe_text = NULL; /* the shards' copy, as they built it */
	c.run.recipe_file = ab_strdup(m->recipe_file);
	for (size_t i = 0; m->inputs && i < m->inputs->n; i++)
		ab_strv_push(&c.run.inputs, m->inputs->v[i]);
	snprintf(c.run.started_on, sizeof(c.run.started_on), "%s", m->started_on);
	c.run.options.jobs = json_int(m->options, "jobs");
	c.run.options.parallel_variants = json_int(m->options, "parallel_variants");
	c.run.options.jobserver = json_int(m->options, "jobserver");
	c.run.options.ccache = json_int(m->options, "ccache");
	if (ab_json_str(m->options, "ccache_dir"))
		c.run.options.ccache_dir = ab_strdup(ab_json_str(m->options, "ccache_dir"));
	if (ab_json_str(m->options, "ccache_remote"))
		c.run.options.ccache_remote = ab_strdup(ab_json_str(m->options, "ccache_remote"));
	c.run.options.keep_going = json_int(m->options, "keep_going");
	c.run.options.force = json_int(m->options, "force");
	if (m->toolchain && ab_tool_ids_parse(&c.run.toolchain, m->toolchain) < 0) {
		ab_build_ctx_release(&c);
		return AB_EFAIL;
	}
	c.run.merge = cJSON_Duplicate(m->merge, 1);
	for (size_t vi = 0; vi < p->nvars; vi++) {
		struct ab_variant_record *vr = ab_build_record_of(&c, vi);

		*vr = *m->records[vi];
		memset(m->records[vi], 0, sizeof(*m->records[vi]));
		if (!vr->kind && p->vars[vi].v->kind == AB_VARIANT_RUNTIME) {
			/* a runtime_of never probed has no state.json: made as every run makes it, its key as recorded */
			size_t b = p->vars[vi].base_vi;

			memcpy(c.vs[vi].key, vr->key, sizeof(c.vs[vi].key));
			ab_variant_record_release(vr);
			ab_build_record_init(&c, vi);
			ab_variant_record_copy_artifacts(vr, b == AB_PLAN_NONE ? NULL : ab_build_record_of(&c, b));
			vr->ok = 1;
		}
		/* not in state.json: from the recipe, as every run makes it */
		cJSON_Delete(vr->definition);
		vr->definition = ab_build_definition_json(p->vars[vi].v);
	}
	e = ab_build_manifests(&c);
	ab_build_ctx_release(&c);
	return e;
}
