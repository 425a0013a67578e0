#include "cmdsrec.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"

/* an object's members NAME: value (NULL when not a string), in order */
static struct ab_cmdsrec_kv *
kvs(size_t *n, const cJSON *o)
{
	struct ab_cmdsrec_kv *v = ab_calloc((size_t)cJSON_GetArraySize(o) + 1, sizeof(*v));
	const cJSON *it;

	*n = 0;
	cJSON_ArrayForEach(it, o) {
		if (!it->string)
			continue;
		v[*n].name = ab_strdup(it->string);
		v[*n].value = cJSON_IsString(it) ? ab_strdup(it->valuestring) : NULL;
		(*n)++;
	}
	return v;
}

static void
kvs_free(struct ab_cmdsrec_kv *v, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(v[i].name);
		free(v[i].value);
	}
	free(v);
}

static void
parse_definition(struct ab_cmdsrec_variant *v, const cJSON *def)
{
	const cJSON *al = ab_json_get(def, "allocator"), *build = ab_json_get(def, "build");
	const cJSON *relink = ab_json_get(def, "relink"), *rt = ab_json_get(def, "runtime"), *it;

	v->def.source = ab_json_strdup(def, "source");
	v->def.runtime_of = ab_json_strdup(def, "runtime_of");
	v->def.allocator.kind = ab_json_strdup(al, "kind");
	v->def.allocator.vendored = ab_json_strdup(al, "vendored");
	v->def.allocator.upstream = ab_json_strdup(al, "upstream");
	v->def.build_system = ab_json_strdup(build, "system");
	cJSON_ArrayForEach(it, ab_json_get(build, "configure"))
		if (cJSON_IsString(it))
			ab_strv_push(&v->def.configure, it->valuestring);
	v->def.defines = kvs(&v->def.ndefines, ab_json_get(build, "defines"));
	v->def.relink_from = ab_json_strdup(relink, "from");
	v->def.replace = ab_calloc((size_t)cJSON_GetArraySize(ab_json_get(relink, "replace")) + 1, sizeof(*v->def.replace));
	cJSON_ArrayForEach(it, ab_json_get(relink, "replace")) {
		struct ab_cmdsrec_replace *r = &v->def.replace[v->def.nreplace++];

		r->path = ab_json_strdup(it, "path");
		r->with_variant = ab_json_strdup(ab_json_get(it, "with"), "variant");
	}
	v->def.env = kvs(&v->def.nenv, ab_json_get(rt, "env"));
	cJSON_ArrayForEach(it, ab_json_get(rt, "unset"))
		ab_strv_push(&v->def.unset, cJSON_IsString(it) ? it->valuestring : "");
}

static int
parse_variant(struct ab_cmdsrec_variant *v, const cJSON *o, const char *file, size_t i)
{
	const cJSON *it;

	if (!cJSON_IsObject(o) || !ab_json_str(o, "label") || !ab_json_str(o, "kind")) {
		ab_error("'%s': variants[%zu]: no label or no kind", file, i);
		return AB_EFAIL;
	}
	v->label = ab_json_strdup(o, "label");
	v->kind = ab_json_strdup(o, "kind");
	v->ok = cJSON_IsTrue(ab_json_get(o, "ok"));
	parse_definition(v, ab_json_get(o, "definition"));
	cJSON_ArrayForEach(it, ab_json_get(ab_json_get(o, "sandbox"), "paths"))
		if (ab_json_str(it, "real"))
			ab_strv_push(&v->sandbox_real, ab_json_str(it, "real"));
	v->tools_ok = ab_json_get(o, "toolchain") && ab_toolchain_parse(&v->tools, ab_json_get(o, "toolchain")) == 0;
	return 0;
}

static void
parse_objects(struct ab_cmdsrec_objects *c, const cJSON *o)
{
	const cJSON *same = ab_json_get(o, "identical"), *differ = ab_json_get(o, "differ"), *d;
	const cJSON *dirs = ab_json_get(o, "differ_by_directory");
	size_t k = 0;

	c->a = ab_json_strdup(o, "a");
	c->b = ab_json_strdup(o, "b");
	c->counted = cJSON_IsNumber(same) && cJSON_IsNumber(differ);
	c->identical = cJSON_IsNumber(same) ? same->valueint : 0;
	c->differ = cJSON_IsNumber(differ) ? differ->valueint : 0;
	c->only_a = cJSON_IsNumber(ab_json_get(o, "only_a")) ? ab_json_get(o, "only_a")->valueint : 0;
	c->only_b = cJSON_IsNumber(ab_json_get(o, "only_b")) ? ab_json_get(o, "only_b")->valueint : 0;
	c->dir_n = ab_calloc((size_t)cJSON_GetArraySize(dirs) + 1, sizeof(*c->dir_n));
	cJSON_ArrayForEach(d, dirs) {
		ab_strv_push(&c->dirs, d->string ? d->string : "");
		c->dir_n[k++] = cJSON_IsNumber(d) ? d->valueint : 0;
	}
}

int
ab_cmdsrec_parse(struct ab_cmdsrec *out, const cJSON *doc, const char *file)
{
	const cJSON *vars = ab_json_get(doc, "variants"), *objs = ab_json_get(doc, "object_comparison"), *it;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(doc) || !cJSON_IsArray(vars)) {
		ab_error("'%s': variants: not a list", file);
		return AB_EFAIL;
	}
	out->variants = ab_calloc((size_t)cJSON_GetArraySize(vars) + 1, sizeof(*out->variants));
	cJSON_ArrayForEach(it, vars) {
		struct ab_cmdsrec_variant *v = &out->variants[out->nvariants];
		int e = parse_variant(v, it, file, out->nvariants);

		out->nvariants++;
		if (e == 0 && ab_cmdsrec_variant(out, v->label) != v) {
			ab_error("'%s': variants[%zu].label: '%s' twice", file, out->nvariants - 1, v->label);
			e = AB_EFAIL;
		}
		if (e < 0) {
			ab_cmdsrec_release(out);
			return e;
		}
	}
	out->objects = ab_calloc((size_t)cJSON_GetArraySize(objs) + 1, sizeof(*out->objects));
	cJSON_ArrayForEach(it, objs)
		parse_objects(&out->objects[out->nobjects++], it);
	return 0;
}

const struct ab_cmdsrec_variant *
ab_cmdsrec_variant(const struct ab_cmdsrec *c, const char *label)
{
	for (size_t i = 0; label && i < c->nvariants; i++)
		if (c->variants[i].label && !strcmp(c->variants[i].label, label))
			return &c->variants[i];
	return NULL;
}

static void
release_variant(struct ab_cmdsrec_variant *v)
{
	free(v->label);
	free(v->kind);
	free(v->def.source);
	free(v->def.runtime_of);
	free(v->def.allocator.kind);
	free(v->def.allocator.vendored);
	free(v->def.allocator.upstream);
	free(v->def.build_system);
	ab_strv_free(&v->def.configure);
	kvs_free(v->def.defines, v->def.ndefines);
	free(v->def.relink_from);
	for (size_t i = 0; i < v->def.nreplace; i++) {
		free(v->def.replace[i].path);
		free(v->def.replace[i].with_variant);
	}
	free(v->def.replace);
	kvs_free(v->def.env, v->def.nenv);
	ab_strv_free(&v->def.unset);
	ab_strv_free(&v->sandbox_real);
	ab_toolchain_release(&v->tools);
}

void
ab_cmdsrec_release(struct ab_cmdsrec *c)
{
	for (size_t i = 0; i < c->nvariants; i++)
		release_variant(&c->variants[i]);
	for (size_t i = 0; i < c->nobjects; i++) {
		free(c->objects[i].a);
		free(c->objects[i].b);
		ab_strv_free(&c->objects[i].dirs);
		free(c->objects[i].dir_n);
	}
	free(c->variants);
	free(c->objects);
	memset(c, 0, sizeof(*c));
}
