#include "updiffrec.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"

#define FILE_REL "provenance/upstream-diff.json"

static int
parse_side(struct ab_updiffrec_side *s, const cJSON *o)
{
	const cJSON *files = ab_json_get(o, "files");

	memset(s, 0, sizeof(*s));
	s->spec = ab_json_strdup(o, "spec");
	s->kind = ab_json_strdup(o, "kind");
	s->path = ab_json_strdup(o, "path");
	s->repository = ab_json_strdup(o, "repository");
	s->rev = ab_json_strdup(o, "rev");
	s->commit = ab_json_strdup(o, "commit");
	s->tree = ab_json_strdup(o, "tree");
	s->archive_sha256 = ab_json_strdup(o, "archive_sha256");
	s->files = cJSON_IsNumber(files) && files->valuedouble >= 0 ? (uint64_t)files->valuedouble : 0;
	s->dirhash = ab_json_strdup(ab_json_get(o, "digest"), "dirHash");
	s->version = ab_json_strdup(o, "version");
	return s->kind && s->dirhash ? 0 : AB_EFAIL;
}

static void
release_side(struct ab_updiffrec_side *s)
{
	free(s->spec);
	free(s->kind);
	free(s->path);
	free(s->repository);
	free(s->rev);
	free(s->commit);
	free(s->tree);
	free(s->archive_sha256);
	free(s->dirhash);
	free(s->version);
}

static int
parse_status(enum ab_updiff_status *out, const char *key)
{
	for (int s = 0; key && s < AB_UPDIFF_STATUS_COUNT; s++)
		if (!strcmp(ab_updiff_status_key((enum ab_updiff_status)s), key)) {
			*out = (enum ab_updiff_status)s;
			return 0;
		}
	return AB_EFAIL;
}

static int
parse_report(struct ab_updiffrec *r, const char *label, const cJSON *o, const char *file)
{
	const cJSON *files = ab_json_get(o, "files"), *notes = ab_json_get(o, "notes"), *it;

	r->label = ab_strdup(label);
	if (!cJSON_IsObject(o) || parse_side(&r->candidate, ab_json_get(o, "candidate")) < 0 ||
	    parse_side(&r->upstream, ab_json_get(o, "upstream")) < 0) {
		ab_error("'%s': variants.%s: not an upstream-diff report: no candidate and upstream with kind and dirHash",
		    file, label);
		return AB_EFAIL;
	}
	r->matches = cJSON_IsTrue(ab_json_get(o, "matches"));
	r->identical = cJSON_IsTrue(ab_json_get(o, "identical"));
	r->summary = ab_json_strdup(o, "summary");
	cJSON_ArrayForEach(it, notes)
		if (cJSON_IsString(it))
			ab_strv_push(&r->notes, it->valuestring);
	if (!cJSON_IsArray(files)) {
		ab_error("'%s': variants.%s.files: not a list", file, label);
		return AB_EFAIL;
	}
	r->files = ab_calloc((size_t)cJSON_GetArraySize(files) + 1, sizeof(*r->files));
	cJSON_ArrayForEach(it, files) {
		struct ab_updiffrec_file *f = &r->files[r->nfiles];

		if (!ab_json_str(it, "path") || parse_status(&f->status, ab_json_str(it, "status")) < 0) {
			ab_error("'%s': variants.%s.files[%zu]: no path or no known status", file, label, r->nfiles);
			return AB_EFAIL;
		}
		f->path = ab_json_strdup(it, "path");
		f->cls = ab_json_strdup(it, "class");
		f->significant = cJSON_IsTrue(ab_json_get(it, "significant"));
		f->diff = ab_json_strdup(it, "diff");
		f->diff_omitted = ab_json_strdup(it, "diff_omitted");
		r->nfiles++;
	}
	return 0;
}

static void
release_report(struct ab_updiffrec *r)
{
	free(r->label);
	release_side(&r->candidate);
	release_side(&r->upstream);
	free(r->summary);
	ab_strv_free(&r->notes);
	for (size_t i = 0; i < r->nfiles; i++) {
		free(r->files[i].path);
		free(r->files[i].cls);
		free(r->files[i].diff);
		free(r->files[i].diff_omitted);
	}
	free(r->files);
}

int
ab_updiffrecs_parse(struct ab_updiffrecs *out, const cJSON *doc, const char *file)
{
	const cJSON *vars = ab_json_get(doc, "variants"), *it;
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsArray(vars) && !cJSON_IsObject(vars)) {
		ab_error("'%s': not upstream-diff.json: no variants array", file);
		return AB_EFAIL;
	}
	out->v = ab_calloc((size_t)cJSON_GetArraySize(vars) + 1, sizeof(*out->v));
	cJSON_ArrayForEach(it, vars) {
		/* version 2: [{label, ...report}]; version 1: {label: report} */
		const char *label = cJSON_IsArray(vars) ? ab_json_str(it, "label") : it->string;

		if (!label || !*label) {
			ab_error("'%s': variants[%zu].label: a report without its variant's label", file, i);
			ab_updiffrecs_release(out);
			return AB_EFAIL;
		}
		if (ab_updiffrecs_get(out, label)) {
			ab_error("'%s': variants[%zu].label: '%s' twice", file, i, label);
			ab_updiffrecs_release(out);
			return AB_EFAIL;
		}
		if (parse_report(&out->v[out->n++], label, it, file) < 0) {
			ab_updiffrecs_release(out);
			return AB_EFAIL;
		}
		i++;
	}
	return 0;
}

int
ab_updiffrecs_read(struct ab_updiffrecs *out, const char *outdir)
{
	char *path = ab_path_join(outdir, FILE_REL);
	cJSON *doc = NULL;
	int e;

	memset(out, 0, sizeof(*out));
	e = ab_json_read(&doc, path);
	if (e == 0)
		e = ab_updiffrecs_parse(out, doc, path);
	cJSON_Delete(doc);
	free(path);
	return e;
}

const struct ab_updiffrec *
ab_updiffrecs_get(const struct ab_updiffrecs *r, const char *label)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].label, label))
			return &r->v[i];
	return NULL;
}

void
ab_updiffrecs_release(struct ab_updiffrecs *r)
{
	for (size_t i = 0; i < r->n; i++)
		release_report(&r->v[i]);
	free(r->v);
	memset(r, 0, sizeof(*r));
}
