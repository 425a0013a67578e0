/*
 * recipe: the recipe model (builder/recipe.h): freed, looked up by
 * source id and label, its patches read once. Loaded by recipe_load.c;
 * its graphs are queried in recipe_order.c.
 */
#include <stdlib.h>
#include <string.h>

#include "../lib/hash.h"
#include "../lib/util.h"
#include "recipe.h"

void
ab_recipe_free(struct ab_recipe *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nsources; i++) {
		struct ab_source *s = &r->sources[i];

		free(s->id);
		free(s->url);
		free(s->commit);
		ab_list_free(&s->urls);
		free(s->sha256);
		free(s->dir);
		free(s->dirhash);
		for (size_t j = 0; s->patch_bytes && j < s->patches.n; j++)
			ab_buf_free(&s->patch_bytes[j].text);
		free(s->patch_bytes);
		ab_list_free(&s->patches);
		for (size_t j = 0; j < s->nprepare; j++)
			ab_list_free(&s->prepare[j]);
		free(s->prepare);
		for (size_t j = 0; j < s->noverlays; j++) {
			free(s->overlays[j].path);
			free(s->overlays[j].source);
		}
		free(s->overlays);
	}
	free(r->sources);
	for (size_t i = 0; i < r->nvariants; i++) {
		struct ab_variant *v = &r->variants[i];

		free(v->label);
		free(v->source);
		ab_list_free(&v->build.configure);
		ab_kvlist_free(&v->build.defines);
		for (size_t k = 0; k < v->nuses; k++)
			ab_varref_release(&v->uses[k]);
		free(v->expect.version);
		ab_kvlist_free(&v->expect.options);
		free(v->uses);
		free(v->build.generator);
		ab_list_free(&v->build.targets);
		ab_kvlist_free(&v->build.env);
		free(v->build.profile);
		ab_list_free(&v->build.features);
		ab_list_free(&v->build.bins);
		free(v->build.vendor);
		free(v->build.cargo);
		free(v->build.rustc);
		free(v->relink.from);
		free(v->relink.link_txt);
		for (size_t j = 0; j < v->relink.nreplace; j++) {
			free(v->relink.replace[j].path);
			free(v->relink.replace[j].with_variant);
			free(v->relink.replace[j].with_artifact);
		}
		free(v->relink.replace);
		free(v->relink.output);
		free(v->runtime_of);
		ab_list_free(&v->artifacts);
		ab_list_free(&v->probe.args);
		free(v->allocator.kind);
		free(v->allocator.archive);
		free(v->allocator.vendored);
		free(v->allocator.upstream);
		ab_kvlist_free(&v->runtime.env);
		ab_list_free(&v->runtime.unset);
	}
	free(r->variants);
	free(r->path);
	free(r->text);
	free(r->dir);
	free(r->name);
	free(r->description);
	if (r->patch_lock)
		pthread_mutex_destroy(r->patch_lock);
	free(r->patch_lock);
	free(r);
}

const struct ab_source *
ab_recipe_source(const struct ab_recipe *r, const char *id)
{
	for (size_t i = 0; i < r->nsources; i++)
		if (!strcmp(r->sources[i].id, id))
			return &r->sources[i];
	return NULL;
}

const struct ab_variant *
ab_recipe_variant(const struct ab_recipe *r, const char *label)
{
	for (size_t i = 0; i < r->nvariants; i++)
		if (!strcmp(r->variants[i].label, label))
			return &r->variants[i];
	return NULL;
}

char *
ab_recipe_path(const struct ab_recipe *r, const char *p)
{
	char *joined, *abs;

	if (p[0] == '/')
		return ab_strdup(p);
	joined = ab_path_join(r->dir, p);
	abs = ab_path_absolute(joined);
	free(joined);
	return abs;
}

size_t
ab_recipe_count(const struct ab_recipe *r, enum ab_variant_kind kind)
{
	size_t n = 0;

	for (size_t i = 0; i < r->nvariants; i++)
		n += r->variants[i].kind == kind;
	return n;
}

int
ab_recipe_patch(const struct ab_patch_bytes **out, const struct ab_recipe *r, const struct ab_source *s, size_t i)
{
	struct ab_patch_bytes *pb = &s->patch_bytes[i];
	int error = 0;

	pthread_mutex_lock(r->patch_lock);
	if (!pb->read) {
		char *path = ab_recipe_path(r, s->patches.v[i]);

		if (ab_read_file(&pb->text, path) == 0) {
			ab_hash_buf(pb->sha256, pb->text.s ? pb->text.s : "", pb->text.len);
			pb->read = 1;
		} else {
			ab_buf_free(&pb->text);
			error = AB_EFAIL;
		}
		free(path);
	}
	pthread_mutex_unlock(r->patch_lock);
	*out = error ? NULL : pb;
	return error;
}
