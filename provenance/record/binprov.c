#include "binprov.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"

#define FILE_REL "provenance/binary-provenance.json"

static uint64_t
number(const cJSON *o, const char *key)
{
	const cJSON *n = ab_json_get(o, key);

	return cJSON_IsNumber(n) && n->valuedouble >= 0 ? (uint64_t)n->valuedouble : 0;
}

static int
flag(const cJSON *o, const char *key)
{
	return cJSON_IsTrue(ab_json_get(o, key));
}

static int
is_sha256(const char *s)
{
	return s && strlen(s) == AB_HEX_LEN && ab_is_hex(s, AB_HEX_LEN);
}

static int
parse_artifact(struct ab_binprov_artifact *a, const cJSON *o, const char *file, const char *label, size_t i)
{
	const char *sha = ab_json_str(o, "sha256");

	memset(a, 0, sizeof(*a));
	if (!cJSON_IsObject(o) || !ab_json_str(o, "path") || !is_sha256(sha)) {
		ab_error("'%s': variant '%s': artifacts[%zu]: no path or no sha256 of 64 hex digits", file, label, i);
		return AB_EFAIL;
	}
	a->path = ab_json_strdup(o, "path");
	a->artifact = ab_json_strdup(o, "artifact");
	a->size = number(o, "size");
	memcpy(a->sha256, sha, AB_HEX_LEN + 1);
	a->allocator_archive = flag(o, "allocator_archive");
	a->allocator_version = ab_json_strdup(o, "allocator_version");
	a->bogus_version = flag(o, "bogus_version");
	a->format = ab_json_strdup(ab_json_get(o, "parts"), "format");
	return 0;
}

static void
release_artifact(struct ab_binprov_artifact *a)
{
	free(a->path);
	free(a->artifact);
	free(a->allocator_version);
	free(a->format);
}

static struct ab_binprov_host_probes *
parse_host_probes(const cJSON *o)
{
	struct ab_binprov_host_probes *h;
	const cJSON *it;

	if (!o || cJSON_IsNull(o))
		return NULL;
	h = ab_calloc(1, sizeof(*h));
	it = ab_json_get(o, "LG_PAGE");
	h->lg_page = cJSON_IsNumber(it) ? it->valueint : -1;
	it = ab_json_get(o, "LG_HUGEPAGE");
	h->lg_hugepage = cJSON_IsNumber(it) ? it->valueint : -1;
	it = ab_json_get(o, "LG_VADDR");
	h->lg_vaddr = cJSON_IsNumber(it) ? it->valueint : -1;
	cJSON_ArrayForEach(it, ab_json_get(o, "pinned"))
		if (cJSON_IsString(it))
			ab_strv_push(&h->pinned, it->valuestring);
	return h;
}

static void
parse_uses(struct ab_binprov_variant *v, const cJSON *uses)
{
	const cJSON *it;

	v->uses = ab_calloc((size_t)cJSON_GetArraySize(uses) + 1, sizeof(*v->uses));
	cJSON_ArrayForEach(it, uses) {
		struct ab_binprov_use *u = &v->uses[v->nuses++];

		u->variant = ab_json_strdup(it, "variant");
		u->artifact = ab_json_strdup(it, "artifact");
		u->path = ab_json_strdup(it, "path");
		u->sha256 = ab_json_strdup(it, "sha256");
	}
}

/* runtime: {env, unset} */
static void
parse_runtime(struct ab_binprov_variant *v, const cJSON *rt)
{
	const cJSON *env = ab_json_get(rt, "env"), *it;

	v->env = ab_calloc((size_t)cJSON_GetArraySize(env) + 1, sizeof(*v->env));
	cJSON_ArrayForEach(it, env) {
		v->env[v->nenv].name = ab_strdup(it->string ? it->string : "");
		v->env[v->nenv++].value = ab_strdup(cJSON_IsString(it) ? it->valuestring : "");
	}
	cJSON_ArrayForEach(it, ab_json_get(rt, "unset"))
		if (cJSON_IsString(it))
			ab_strv_push(&v->unset, it->valuestring);
}

static int
parse_variant(struct ab_binprov_variant *v, const cJSON *o, const char *file, size_t i)
{
	const cJSON *al = ab_json_get(o, "allocator"), *src = ab_json_get(o, "source"), *arts = ab_json_get(o, "artifacts");
	const cJSON *pin = ab_json_get(src, "pin"), *it;

	memset(v, 0, sizeof(*v));
	if (!cJSON_IsObject(o) || !ab_json_str(o, "label") || !ab_json_str(o, "kind")) {
		ab_error("'%s': variants[%zu]: no label or no kind", file, i);
		return AB_EFAIL;
	}
	v->label = ab_json_strdup(o, "label");
	v->kind = ab_json_strdup(o, "kind");
	v->base = ab_json_strdup(o, "base");
	v->binary = ab_json_strdup(o, "binary");
	parse_runtime(v, ab_json_get(o, "runtime"));
	v->allocator.kind = ab_json_strdup(al, "kind");
	v->allocator.archive = ab_json_strdup(al, "archive");
	v->allocator.vendored = ab_json_strdup(al, "vendored");
	v->allocator.upstream = ab_json_strdup(al, "upstream");
	v->allocator.archive_sha256 = ab_json_strdup(al, "archive_sha256");
	v->reproducible = !cJSON_IsFalse(ab_json_get(o, "reproducible"));
	v->sandboxed = !cJSON_IsFalse(ab_json_get(o, "sandboxed"));
	v->host_probes = parse_host_probes(ab_json_get(o, "host_probes"));
	v->host_probes_member = ab_json_get(o, "host_probes") != NULL;
	parse_uses(v, ab_json_get(o, "uses"));
	v->source.id = ab_json_strdup(src, "id");
	v->source.relink_of = ab_json_strdup(src, "relink_of");
	if (pin && !cJSON_IsNull(pin) && !(v->source.pin = ab_fetch_record_parse(pin))) {
		ab_error("'%s': variant '%s': source.pin: not a fetch record with its commit, sha256 or dirHash", file,
		    v->label);
		return AB_EFAIL;
	}
	if (arts && !cJSON_IsArray(arts)) {
		ab_error("'%s': variant '%s': artifacts: not a list", file, v->label);
		return AB_EFAIL;
	}
	v->artifacts = ab_calloc((size_t)cJSON_GetArraySize(arts) + 1, sizeof(*v->artifacts));
	cJSON_ArrayForEach(it, arts) {
		if (parse_artifact(&v->artifacts[v->nartifacts], it, file, v->label, v->nartifacts) < 0)
			return AB_EFAIL;
		v->nartifacts++;
	}
	return 0;
}

static void
release_variant(struct ab_binprov_variant *v)
{
	free(v->label);
	free(v->kind);
	free(v->base);
	free(v->binary);
	for (size_t i = 0; i < v->nenv; i++) {
		free(v->env[i].name);
		free(v->env[i].value);
	}
	free(v->env);
	ab_strv_free(&v->unset);
	free(v->allocator.kind);
	free(v->allocator.archive);
	free(v->allocator.vendored);
	free(v->allocator.upstream);
	free(v->allocator.archive_sha256);
	free(v->source.id);
	free(v->source.relink_of);
	ab_fetch_record_free(v->source.pin);
	if (v->host_probes)
		ab_strv_free(&v->host_probes->pinned);
	free(v->host_probes);
	for (size_t i = 0; i < v->nuses; i++) {
		free(v->uses[i].variant);
		free(v->uses[i].artifact);
		free(v->uses[i].path);
		free(v->uses[i].sha256);
	}
	free(v->uses);
	for (size_t i = 0; i < v->nartifacts; i++)
		release_artifact(&v->artifacts[i]);
	free(v->artifacts);
}

int
ab_binprov_parse(struct ab_binprov *out, const cJSON *doc, const char *file)
{
	const cJSON *recipe = ab_json_get(doc, "recipe"), *vars = ab_json_get(doc, "variants"), *it;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(doc) || !ab_json_str(recipe, "name") || !is_sha256(ab_json_str(recipe, "sha256"))) {
		ab_error("'%s': not binary-provenance.json: no recipe name and sha256", file);
		return AB_EFAIL;
	}
	if (!cJSON_IsArray(vars)) {
		ab_error("'%s': variants: not a list", file);
		return AB_EFAIL;
	}
	out->recipe_name = ab_json_strdup(recipe, "name");
	out->recipe_path = ab_json_strdup(recipe, "path");
	out->recipe_sha256 = ab_json_strdup(recipe, "sha256");
	out->invocation_id = ab_json_strdup(doc, "invocation_id");
	out->variants = ab_calloc((size_t)cJSON_GetArraySize(vars) + 1, sizeof(*out->variants));
	cJSON_ArrayForEach(it, vars) {
		struct ab_binprov_variant *v = &out->variants[out->nvariants];
		int e = parse_variant(v, it, file, out->nvariants);

		out->nvariants++;
		if (e == 0 && ab_binprov_variant(out, v->label) != v) {
			ab_error("'%s': variant '%s' is listed twice", file, v->label);
			e = AB_EFAIL;
		}
		if (e < 0) {
			ab_binprov_release(out);
			return e;
		}
	}
	return 0;
}

int
ab_binprov_read(struct ab_binprov *out, const char *outdir)
{
	char *path = ab_path_join(outdir, FILE_REL);
	cJSON *doc = NULL;
	int e;

	memset(out, 0, sizeof(*out));
	e = ab_json_read(&doc, path);
	if (e == 0)
		e = ab_binprov_parse(out, doc, path);
	cJSON_Delete(doc);
	free(path);
	return e;
}

const struct ab_binprov_variant *
ab_binprov_variant(const struct ab_binprov *b, const char *label)
{
	for (size_t i = 0; i < b->nvariants; i++)
		if (b->variants[i].label && !strcmp(b->variants[i].label, label))
			return &b->variants[i];
	return NULL;
}

int
ab_binprov_sets(const struct ab_binprov_variant *v, const char *name)
{
	for (size_t i = 0; i < v->nenv; i++)
		if (!strcmp(v->env[i].name, name))
			return 1;
	return 0;
}

void
ab_binprov_release(struct ab_binprov *b)
{
	for (size_t i = 0; i < b->nvariants; i++)
		release_variant(&b->variants[i]);
	free(b->variants);
	free(b->recipe_name);
	free(b->recipe_path);
	free(b->recipe_sha256);
	free(b->invocation_id);
	memset(b, 0, sizeof(*b));
}
