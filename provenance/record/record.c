#include "record.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/jsonio.h"

void
ab_variant_record_set_probe(struct ab_variant_record *v, struct ab_probe_result *probe)
{
	ab_probe_result_free(v->probe);
	v->probe = probe;
}

static void
artifact_copy(struct ab_artifact_record *to, const struct ab_artifact_record *a)
{
	*to = *a;
	to->path = ab_strdup(a->path);
	to->artifact = ab_strdup(a->artifact);
	to->allocator_version = ab_strdup_or_null(a->allocator_version);
	to->parts = a->parts ? cJSON_Duplicate(a->parts, 1) : NULL;
}

void
ab_artifact_record_release(struct ab_artifact_record *a)
{
	free(a->path);
	free(a->artifact);
	free(a->allocator_version);
	cJSON_Delete(a->parts);
	memset(a, 0, sizeof(*a));
}

static void
artifacts_clear(struct ab_variant_record *v)
{
	for (size_t i = 0; i < v->nartifacts; i++)
		ab_artifact_record_release(&v->artifacts[i]);
	free(v->artifacts);
	v->artifacts = NULL;
	v->nartifacts = 0;
	v->have_artifacts = 0;
}

void
ab_variant_record_copy_artifacts(struct ab_variant_record *v, const struct ab_variant_record *from)
{
	artifacts_clear(v);
	v->have_artifacts = 1;
	if (!from)
		return;
	v->artifacts = ab_calloc(from->nartifacts ? from->nartifacts : 1, sizeof(*v->artifacts));
	for (size_t i = 0; i < from->nartifacts; i++)
		artifact_copy(&v->artifacts[i], &from->artifacts[i]);
	v->nartifacts = from->nartifacts;
}

int
ab_variant_record_artifacts_intact(const struct ab_variant_record *v, const char *outdir)
{
	int root, ok = v->have_artifacts;

	if (!ok || (root = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0)
		return 0;
	/* hashed as verify hashes them: inside OUTDIR only, never a fifo */
	for (size_t i = 0; i < v->nartifacts && ok; i++) {
		char hex[AB_HEX_LEN + 1];

		ok = ab_hash_file_beneath(hex, NULL, root, v->artifacts[i].path, 0, NULL) == 0 &&
		    !strcmp(hex, v->artifacts[i].sha256);
	}
	close(root);
	return ok;
}

const char *
ab_variant_record_archive_sha256(const struct ab_variant_record *v, const struct ab_variant_record *from)
{
	const char *sha = NULL;
	const cJSON *it;

	if (!v->relink) {
		for (size_t i = 0; i < v->nartifacts; i++)
			if (v->artifacts[i].allocator_archive)
				sha = v->artifacts[i].sha256;
		return sha;
	}
	/* a relink links its base's archive unless a replacement took its place */
	if (!from || !(sha = ab_variant_record_archive_sha256(from, NULL)))
		return NULL;
	cJSON_ArrayForEach(it, ab_json_get(v->relink, "differing_inputs")) {
		const char *before = ab_json_str(ab_json_get(it, "before"), "sha256");

		if (before && !strcmp(before, sha))
			return ab_json_str(ab_json_get(it, "after"), "sha256");
	}
	return sha;
}

const struct ab_variant_record *
ab_run_record_at(const struct ab_run_record *run, size_t ix)
{
	return ix < run->nvariants ? &run->variants[ix] : NULL;
}

int
ab_variant_record_reproducible(const struct ab_variant_record *v)
{
	return cJSON_IsTrue(ab_json_get(v->reproducible, "enabled"));
}

int
ab_variant_record_sandboxed(const struct ab_variant_record *v)
{
	return cJSON_IsTrue(ab_json_get(v->sandbox, "enabled"));
}

void
ab_variant_record_step_logs(const struct ab_variant_record *v, struct ab_strv *out)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, v->steps)
		if (ab_json_str(it, "log"))
			ab_strv_push(out, ab_json_str(it, "log"));
}

/* the tree record's {path, sha256} of a patch, found at any depth (materialize's shape: tree.h) */
static const char *
patch_in(const cJSON *tree, const char *path)
{
	const cJSON *it;

	if (cJSON_IsObject(tree) && ab_json_str(tree, "sha256") && ab_json_str(tree, "path") &&
	    !strcmp(ab_json_str(tree, "path"), path))
		return ab_json_str(tree, "sha256");
	cJSON_ArrayForEach(it, tree) {
		const char *hex = patch_in(it, path);

		if (hex)
			return hex;
	}
	return NULL;
}

const char *
ab_variant_record_patch_sha256(const struct ab_variant_record *v, const char *path)
{
	return patch_in(v->tree, path);
}

/* ---- to JSON ---- */

cJSON *
ab_record_runtime_json(const struct ab_variant_record *v)
{
	cJSON *rt = cJSON_CreateObject(), *env = cJSON_AddObjectToObject(rt, "env");

	for (size_t i = 0; i < v->runtime_env.n; i++)
		cJSON_AddStringToObject(env, v->runtime_env.v[i].key, v->runtime_env.v[i].value);
	cJSON_AddItemToObject(rt, "unset", ab_json_strv(v->runtime_unset.v, v->runtime_unset.n));
	return rt;
}

cJSON *
ab_record_allocator_json(const struct ab_variant_record *v)
{
	cJSON *al = cJSON_CreateObject();

	if (!v->allocator.kind)
		return al;
	cJSON_AddStringToObject(al, "kind", v->allocator.kind);
	if (v->allocator.archive)
		cJSON_AddStringToObject(al, "archive", v->allocator.archive);
	if (v->allocator.vendored)
		cJSON_AddStringToObject(al, "vendored", v->allocator.vendored);
	if (v->allocator.upstream)
		cJSON_AddStringToObject(al, "upstream", v->allocator.upstream);
	return al;
}

cJSON *
ab_record_artifacts_json(const struct ab_variant_record *v)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < v->nartifacts; i++) {
		const struct ab_artifact_record *ar = &v->artifacts[i];
		cJSON *it = cJSON_CreateObject();

		cJSON_AddStringToObject(it, "path", ar->path);
		cJSON_AddStringToObject(it, "artifact", ar->artifact);
		cJSON_AddNumberToObject(it, "size", (double)ar->size);
		cJSON_AddStringToObject(it, "sha256", ar->sha256);
		if (ar->allocator_archive)
			cJSON_AddTrueToObject(it, "allocator_archive");
		if (ar->allocator_version)
			cJSON_AddStringToObject(it, "allocator_version", ar->allocator_version);
		else
			cJSON_AddNullToObject(it, "allocator_version");
		cJSON_AddBoolToObject(it, "bogus_version", ar->bogus_version);
		if (ar->parts)
			cJSON_AddItemToObject(it, "parts", cJSON_Duplicate(ar->parts, 1));
		cJSON_AddItemToArray(a, it);
	}
	return a;
}

static void
add_copy(cJSON *o, const char *key, const cJSON *doc)
{
	if (doc)
		cJSON_AddItemToObject(o, key, cJSON_Duplicate(doc, 1));
}

static void
add_probe(cJSON *st, const struct ab_variant_record *v)
{
	if (v->probe)
		cJSON_AddItemToObject(st, "probe", ab_probe_result_json(v->probe));
	if (v->probe_key[0])
		cJSON_AddStringToObject(st, "probe_key", v->probe_key);
}

/*
 * The fields are in the order state.json has always had, which is the
 * order in which a build learns them: what the recipe and plan say, what
 * the steps made, the probe and the upstream diff, ok last. A record
 * loaded from an earlier run keeps the order of what it kept and has what
 * this run established again (runtime, probe) after it; a probe key set
 * without a probe (no probe step) follows ok.
 */
cJSON *
ab_variant_record_json(const struct ab_variant_record *v)
{
	cJSON *st = cJSON_CreateObject();

	cJSON_AddStringToObject(st, "label", v->label);
	cJSON_AddStringToObject(st, "kind", v->kind);
	cJSON_AddStringToObject(st, "base", v->base);
	cJSON_AddStringToObject(st, "key", v->key);
	cJSON_AddStringToObject(st, "dir", v->dir);
	cJSON_AddStringToObject(st, "artifact_dir", v->artifact_dir);
	if (v->source)
		cJSON_AddStringToObject(st, "source", v->source);
	if (v->from)
		cJSON_AddStringToObject(st, "from", v->from);
	cJSON_AddItemToObject(st, "allocator", ab_record_allocator_json(v));
	if (!v->loaded)
		cJSON_AddItemToObject(st, "runtime", ab_record_runtime_json(v));
	if (v->fetched.present)
		cJSON_AddItemToObject(st, "fetched", ab_fetch_set_json(&v->fetched));
	add_copy(st, "steps", v->steps);
	/* a second "source" member: readers that look up "source" find the id */
	add_copy(st, "source", v->tree);
	add_copy(st, "relink", v->relink);
	if (v->have_artifacts)
		cJSON_AddItemToObject(st, "artifacts", ab_record_artifacts_json(v));
	add_copy(st, "cmake", v->cmake);
	if (v->cargo)
		cJSON_AddItemToObject(st, "cargo", ab_cargo_record_json(v->cargo));
	add_copy(st, "reproducible", v->reproducible);
	add_copy(st, "sandbox", v->sandbox);
	if (v->toolchain.present)
		cJSON_AddItemToObject(st, "toolchain", ab_toolchain_json(&v->toolchain));
	add_copy(st, "host_probes", v->host_probes);
	add_copy(st, "ccache", v->ccache);
	if (v->compile_log)
		cJSON_AddStringToObject(st, "compile_log", v->compile_log);
	if (v->derived_from)
		cJSON_AddStringToObject(st, "derived_from", v->derived_from);
	add_copy(st, "objects", v->objects);
	if (!v->loaded) {
		if (v->probe)
			add_probe(st, v);
		add_copy(st, "upstream_diff", v->upstream_diff);
	} else {
		if (!v->updiff_new)
			add_copy(st, "upstream_diff", v->upstream_diff);
		cJSON_AddItemToObject(st, "runtime", ab_record_runtime_json(v));
		add_probe(st, v);
		if (v->updiff_new)
			add_copy(st, "upstream_diff", v->upstream_diff);
	}
	cJSON_AddBoolToObject(st, "ok", v->ok);
	if (!v->loaded && !v->probe && v->probe_key[0])
		cJSON_AddStringToObject(st, "probe_key", v->probe_key);
	if (ab_places_any(&v->places))
		cJSON_AddItemToObject(st, "places", ab_places_json(&v->places));
	return st;
}

/* ---- from JSON ---- */

static int
copy_hex(char out[AB_HEX_LEN + 1], const char *s)
{
	out[0] = '\0';
	if (!s || strlen(s) > AB_HEX_LEN)
		return -1;
	strcpy(out, s);
	return 0;
}

static cJSON *
dup_or_null(const cJSON *doc)
{
	return doc ? cJSON_Duplicate(doc, 1) : NULL;
}

/* the artifact records; 0 when any is not one (the state is then not trusted) */
static int
parse_artifacts(struct ab_variant_record *v, const cJSON *arts)
{
	const cJSON *it;
	size_t n = 0;

	if (!cJSON_IsArray(arts))
		return 0;
	v->artifacts = ab_calloc((size_t)cJSON_GetArraySize(arts) + 1, sizeof(*v->artifacts));
	cJSON_ArrayForEach(it, arts) {
		struct ab_artifact_record *a = &v->artifacts[n];
		const cJSON *size = ab_json_get(it, "size");

		if (!ab_json_str(it, "path") || !ab_json_str(it, "artifact") || !cJSON_IsNumber(size) ||
		    copy_hex(a->sha256, ab_json_str(it, "sha256")) < 0)
			return 0;
		a->path = ab_json_strdup(it, "path");
		a->artifact = ab_json_strdup(it, "artifact");
		a->size = (uint64_t)size->valuedouble;
		a->allocator_archive = cJSON_IsTrue(ab_json_get(it, "allocator_archive"));
		a->allocator_version = ab_json_strdup(it, "allocator_version");
		a->bogus_version = cJSON_IsTrue(ab_json_get(it, "bogus_version"));
		a->parts = dup_or_null(ab_json_get(it, "parts"));
		v->nartifacts = ++n;
	}
	v->have_artifacts = 1;
	return 1;
}

static void
parse_runtime(struct ab_variant_record *v, const cJSON *rt)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, ab_json_get(rt, "env"))
		if (cJSON_IsString(it))
			ab_kvlist_add(&v->runtime_env, it->string, it->valuestring);
	cJSON_ArrayForEach(it, ab_json_get(rt, "unset"))
		if (cJSON_IsString(it))
			ab_list_add(&v->runtime_unset, it->valuestring);
}

struct ab_variant_record *
ab_variant_record_parse(const cJSON *st)
{
	struct ab_variant_record *v;
	const cJSON *al = ab_json_get(st, "allocator"), *it;

	if (!cJSON_IsObject(st) || !ab_json_str(st, "label") || !ab_json_str(st, "kind") ||
	    !ab_json_str(st, "base") || !ab_json_str(st, "dir") || !ab_json_str(st, "artifact_dir"))
		return NULL;
	v = ab_calloc(1, sizeof(*v));
	v->loaded = 1;
	v->label = ab_json_strdup(st, "label");
	v->kind = ab_json_strdup(st, "kind");
	v->base = ab_json_strdup(st, "base");
	v->dir = ab_json_strdup(st, "dir");
	v->artifact_dir = ab_json_strdup(st, "artifact_dir");
	/* a key that is not one matches no key: the variant is built again */
	copy_hex(v->key, ab_json_str(st, "key"));
	copy_hex(v->probe_key, ab_json_str(st, "probe_key"));
	v->from = ab_json_strdup(st, "from");
	v->allocator.kind = ab_json_strdup(al, "kind");
	if (v->allocator.kind) {
		v->allocator.archive = ab_json_strdup(al, "archive");
		v->allocator.vendored = ab_json_strdup(al, "vendored");
		v->allocator.upstream = ab_json_strdup(al, "upstream");
	}
	parse_runtime(v, ab_json_get(st, "runtime"));
	v->ok = cJSON_IsTrue(ab_json_get(st, "ok"));
	if (ab_json_get(st, "artifacts") && !parse_artifacts(v, ab_json_get(st, "artifacts"))) {
		artifacts_clear(v);
		v->ok = 0;
	}
	/* "source" twice: the id, then the tree's record */
	cJSON_ArrayForEach(it, st) {
		if (strcmp(it->string, "source"))
			continue;
		if (cJSON_IsString(it) && !v->source)
			v->source = ab_strdup(it->valuestring);
		else if (cJSON_IsObject(it) && !v->tree)
			v->tree = cJSON_Duplicate(it, 1);
	}
	/* a record of what it was built from that is not one: built again */
	if (ab_fetch_set_parse(&v->fetched, ab_json_get(st, "fetched")) < 0)
		v->ok = 0;
	v->steps = dup_or_null(ab_json_get(st, "steps"));
	v->relink = dup_or_null(ab_json_get(st, "relink"));
	v->cmake = dup_or_null(ab_json_get(st, "cmake"));
	v->cargo = ab_cargo_record_parse(ab_json_get(st, "cargo"));
	if (ab_json_get(st, "cargo") && !v->cargo)
		v->ok = 0;
	v->reproducible = dup_or_null(ab_json_get(st, "reproducible"));
	v->sandbox = dup_or_null(ab_json_get(st, "sandbox"));
	/* a toolchain that is not one: built again */
	if (ab_toolchain_parse(&v->toolchain, ab_json_get(st, "toolchain")) < 0)
		v->ok = 0;
	v->host_probes = dup_or_null(ab_json_get(st, "host_probes"));
	v->ccache = dup_or_null(ab_json_get(st, "ccache"));
	v->compile_log = ab_json_str(st, "compile_log") ? ab_strdup(ab_json_str(st, "compile_log")) : NULL;
	v->derived_from = ab_json_str(st, "derived_from") ? ab_strdup(ab_json_str(st, "derived_from")) : NULL;
	v->objects = dup_or_null(ab_json_get(st, "objects"));
	ab_variant_record_set_probe(v, ab_probe_result_new(dup_or_null(ab_json_get(st, "probe"))));
	v->upstream_diff = dup_or_null(ab_json_get(st, "upstream_diff"));
	ab_places_parse(&v->places, ab_json_get(st, "places"));
	return v;
}

int
ab_variant_record_load(struct ab_variant_record **out, const char *path)
{
	struct ab_buf b = {0};
	cJSON *st;

	*out = NULL;
	if (!ab_path_exists(path))
		return 0;
	if (ab_read_file(&b, path) < 0)
		return AB_EFAIL;
	st = cJSON_ParseWithLength(b.s, b.len);
	ab_buf_free(&b);
	*out = ab_variant_record_parse(st);
	cJSON_Delete(st);
	return 0;
}

/* ---- the run's dependencies ---- */

struct ab_dependency *
ab_run_record_dependency(struct ab_run_record *run)
{
	run->deps = ab_realloc(run->deps, (run->ndeps + 1) * sizeof(*run->deps));
	memset(&run->deps[run->ndeps], 0, sizeof(run->deps[run->ndeps]));
	return &run->deps[run->ndeps++];
}

void
ab_run_record_use_deps(struct ab_run_record *run)
{
	for (size_t vi = 0; vi < run->nvariants; vi++) {
		const struct ab_variant_record *vr = &run->variants[vi];

		for (size_t u = 0; u < vr->nuses; u++) {
			struct ab_dependency *d;

			if (!vr->uses[u].path)
				continue;
			d = ab_run_record_dependency(run);
			d->name = ab_strdup(vr->uses[u].path);
			d->digest_kind = "sha256";
			d->digest = ab_strdup(vr->uses[u].sha256);
			d->used_by = ab_strdup(vr->label);
		}
	}
}

static int
have_dependency(const struct ab_run_record *run, const char *name, const char *digest)
{
	for (size_t i = 0; i < run->ndeps; i++)
		if (!strcmp(run->deps[i].name, name) && !strcmp(run->deps[i].digest, digest))
			return 1;
	return 0;
}

void
ab_run_record_cargo_deps(struct ab_run_record *run, const struct ab_cargo_record *cargo, const char *label)
{
	if (!cargo)
		return;
	if (!have_dependency(run, "Cargo.lock", cargo->lock_sha256)) {
		struct ab_dependency *d = ab_run_record_dependency(run);

		d->name = ab_strdup("Cargo.lock");
		d->digest_kind = "sha256";
		d->digest = ab_strdup(cargo->lock_sha256);
		d->used_by = ab_strdup(label);
	}
	for (size_t i = 0; i < cargo->ncrates; i++) {
		const struct ab_cargo_crate *cr = &cargo->crates[i];
		const char *digest = cr->checksum_valid ? cr->checksum : cr->dirhash;
		char *dn;

		if (!digest)
			continue;
		dn = ab_sprintf("crate %s %s", cr->name, cr->version);
		if (!have_dependency(run, dn, digest)) {
			struct ab_dependency *d = ab_run_record_dependency(run);

			d->name = dn;
			d->uri = ab_sprintf("pkg:cargo/%s@%s", cr->name, cr->version);
			d->digest_kind = cr->checksum_valid ? "sha256" : "dirHash";
			d->digest = ab_strdup(digest);
			dn = NULL;
		}
		free(dn);
	}
}

/* ---- lifecycle ---- */

void
ab_variant_record_release(struct ab_variant_record *v)
{
	free(v->label);
	free(v->kind);
	free(v->base);
	free(v->dir);
	free(v->artifact_dir);
	free(v->source);
	free(v->from);
	free(v->allocator.kind);
	free(v->allocator.archive);
	free(v->allocator.vendored);
	free(v->allocator.upstream);
	ab_kvlist_free(&v->runtime_env);
	ab_list_free(&v->runtime_unset);
	artifacts_clear(v);
	for (size_t i = 0; i < v->nuses; i++) {
		free(v->uses[i].variant);
		free(v->uses[i].artifact);
		free(v->uses[i].path);
	}
	free(v->uses);
	ab_fetch_set_release(&v->fetched);
	cJSON_Delete(v->steps);
	cJSON_Delete(v->tree);
	cJSON_Delete(v->relink);
	cJSON_Delete(v->cmake);
	ab_cargo_record_free(v->cargo);
	ab_probe_result_free(v->probe);
	cJSON_Delete(v->upstream_diff);
	cJSON_Delete(v->reproducible);
	cJSON_Delete(v->sandbox);
	free(v->compile_log);
	free(v->derived_from);
	cJSON_Delete(v->objects);
	ab_toolchain_release(&v->toolchain);
	cJSON_Delete(v->host_probes);
	cJSON_Delete(v->ccache);
	cJSON_Delete(v->definition);
	ab_places_release(&v->places);
	memset(v, 0, sizeof(*v));
}

void
ab_variant_record_free(struct ab_variant_record *v)
{
	if (!v)
		return;
	ab_variant_record_release(v);
	free(v);
}

void
ab_run_record_release(struct ab_run_record *run)
{
	free(run->recipe.name);
	free(run->recipe.path);
	free(run->recipe.sha256);
	free(run->outdir);
	free(run->write_dir);
	ab_strv_free(&run->earlier_invocations);
	ab_strv_free(&run->inputs);
	ab_tool_ids_release(&run->toolchain);
	free(run->options.ccache_remote);
	free(run->options.ccache_dir);
	ab_fetch_set_release(&run->sources);
	for (size_t i = 0; i < run->nvariants; i++)
		ab_variant_record_release(&run->variants[i]);
	free(run->variants);
	for (size_t i = 0; i < run->ndeps; i++) {
		free(run->deps[i].name);
		free(run->deps[i].uri);
		free(run->deps[i].digest);
		free(run->deps[i].used_by);
	}
	free(run->deps);
	cJSON_Delete(run->documents);
	free(run->recipe_file);
	cJSON_Delete(run->merge);
	cJSON_Delete(run->object_comparison);
	memset(run, 0, sizeof(*run));
}
