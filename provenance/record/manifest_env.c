/*
 * manifest_env: a label's runtime environment read from an OUTDIR's
 * manifests (ab_manifest_runtime, for env and run): what it sets and
 * unsets, the settings its allocator will not read, its program and
 * allocator archive; env's outputs (the shell's lines, --json,
 * --systems).
 */
#include "manifest.h"
#include "manifest_impl.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/proc.h"
#include "../../lib/util.h"
#include "../alloc/allocopts.h"

/* ---- env ---- */

/*
 * A manifest of OUTDIR; with checked, only when it holds what SHA256SUMS
 * says (AB_ECHECK, reported, otherwise). *doc is NULL when it is absent
 * and not required.
 */
static int
runtime_doc(cJSON **doc, const char *outdir, const char *rel, int checked, int required)
{
	char *path = ab_manifest_path(outdir, rel);
	int e = 0;

	*doc = NULL;
	if (!ab_path_exists(path)) {
		if (required) {
			ab_error("'%s' has no %s: not a built output directory", outdir, rel);
			e = AB_EFAIL;
		}
	} else if (checked) {
		struct ab_manifest_recorded r;
		char hex[AB_HEX_LEN + 1];
		size_t i;

		if ((e = ab_manifest_recorded_read(&r, outdir, 0)) == 0) {
			for (i = 0; i < r.paths.n && strcmp(r.paths.v[i], rel); i++)
				;
			if (i == r.paths.n || ab_hash_file(hex, NULL, path) < 0 || strcmp(hex, r.hexes.v[i])) {
				ab_error("'%s' does not hold what SHA256SUMS records: run 'allocbuild verify %s'", path, outdir);
				e = AB_ECHECK;
			}
			ab_manifest_recorded_release(&r);
		}
	}
	if (e == 0 && ab_path_exists(path))
		e = ab_json_read(doc, path);
	free(path);
	return e;
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
put_quoted(FILE *out, const char *v)
{
	fputc('\'', out);
	for (; *v; v++) {
		if (*v == '\'')
			fputs("'\\''", out);
		else
			fputc(*v, out);
	}
	fputc('\'', out);
}

/*
 * Settings of the label's runtime environment its allocator will not read
 * (the version and the variable it reads from its probe record).
 */
static void
runtime_warnings(struct ab_manifest_runtime *rt, const cJSON *probes, const cJSON *mine)
{
	const char *label = ab_json_str(mine, "label"), *kind = ab_json_str(ab_json_get(mine, "allocator"), "kind");
	const cJSON *probe = NULL, *v;

	cJSON_ArrayForEach(v, ab_json_get(probes, "variants"))
		if (label && ab_json_str(v, "label") && !strcmp(ab_json_str(v, "label"), label))
			probe = ab_json_get(v, "probe");
	if (probe && ab_json_str(probe, "allocator"))
		kind = ab_json_str(probe, "allocator");
	ab_allocopts_check_env(&rt->warnings, kind, probe ? ab_json_str(probe, "version") : NULL,
	    probe ? ab_json_str(probe, "conf_var") : NULL, ab_strv_argv(&rt->set));
}

/* the label's program (its first executable artifact below OUTDIR) and the subject of its runs */
static void
runtime_artifacts(struct ab_manifest_runtime *rt, const char *outdir, const cJSON *mine)
{
	const cJSON *arts = ab_json_get(mine, "artifacts"), *it, *subject = NULL;

	cJSON_ArrayForEach(it, arts) {
		const char *rel = ab_json_str(it, "path");
		char *abs;

		if (!rel || !ab_path_is_safe_relative(rel))
			continue;
		abs = ab_manifest_path(outdir, rel);
		if (!rt->program && ab_manifest_is_executable(abs)) {
			rt->program = ab_path_absolute(abs);
			subject = it;
		}
		free(abs);
	}
	cJSON_ArrayForEach(it, arts)
		if (cJSON_IsTrue(ab_json_get(it, "allocator_archive")) && ab_json_str(it, "path") &&
		    ab_path_is_safe_relative(ab_json_str(it, "path"))) {
			if (!rt->archive) {
				char *abs = ab_manifest_path(outdir, ab_json_str(it, "path"));

				rt->archive = ab_path_absolute(abs);
				free(abs);
			}
			if (!subject)
				subject = it;
		}
	if (!subject)
		subject = cJSON_GetArrayItem(arts, 0);
	if (subject && ab_json_str(subject, "path") && ab_json_str(subject, "sha256") &&
	    strlen(ab_json_str(subject, "sha256")) == AB_HEX_LEN) {
		rt->subject = ab_strdup(ab_json_str(subject, "path"));
		memcpy(rt->subject_sha256, ab_json_str(subject, "sha256"), AB_HEX_LEN + 1);
	}
}

/* "'OUTDIR' has no built variant 'x'", with the nearest of its labels */
static void
no_variant(const char *outdir, const char *label, const cJSON *vars)
{
	struct ab_strv labels = {0};
	const cJSON *st;
	const char *near;
	char *shown = ab_shown(label);

	cJSON_ArrayForEach(st, vars)
		if (ab_json_str(st, "label"))
			ab_strv_push(&labels, ab_json_str(st, "label"));
	near = ab_closest(label, labels.v, labels.n);
	if (near)
		ab_error("'%s' has no built variant '%s' (did you mean '%s'?)", outdir, shown, near);
	else
		ab_error("'%s' has no built variant '%s'", outdir, shown);
	free(shown);
	ab_strv_free(&labels);
}

int
ab_manifest_runtime(struct ab_manifest_runtime *rt, const char *outdir, const char *label,
    char *const *inherited, int checked)
{
	cJSON *doc = NULL, *probes = NULL;
	const cJSON *vars, *st, *mine = NULL, *it, *env;
	struct ab_strv names = {0};
	int error;

	memset(rt, 0, sizeof(*rt));
	if ((error = runtime_doc(&doc, outdir, "provenance/binary-provenance.json", checked, 1)) < 0 ||
	    (error = runtime_doc(&probes, outdir, "provenance/allocator-probes.json", checked, 0)) < 0)
		goto done;
	error = AB_EFAIL;
	vars = ab_json_get(doc, "variants");
	cJSON_ArrayForEach(st, vars)
		if (ab_json_str(st, "label") && !strcmp(ab_json_str(st, "label"), label))
			mine = st;
	if (!mine) {
		no_variant(outdir, label, vars);
		goto done;
	}
	env = ab_json_get(ab_json_get(mine, "runtime"), "env");
	/*
	 * Every variable that any variant of the OUTDIR sets or unsets, plus
	 * MALLOC_CONF and the allocator variables inherited: whatever this
	 * label does not set is unset, so a value left from another label or
	 * the caller's shell never leaks in.
	 */
	ab_strv_push(&names, "MALLOC_CONF");
	cJSON_ArrayForEach(st, vars) {
		cJSON_ArrayForEach(it, ab_json_get(ab_json_get(st, "runtime"), "env"))
			ab_strv_push(&names, it->string);
		cJSON_ArrayForEach(it, ab_json_get(ab_json_get(st, "runtime"), "unset"))
			if (cJSON_IsString(it))
				ab_strv_push(&names, it->valuestring);
	}
	for (char *const *p = inherited; p && *p; p++)
		if (strchr(*p, '=') && ab_env_is_allocator_var(*p))
			ab_strv_push_owned(&names, ab_strndup(*p, strcspn(*p, "=")));
	for (size_t i = 0; i < names.n; i++)
		if (!ab_env_name_valid(names.v[i], strlen(names.v[i]))) {
			ab_error("%s: variable name '%s' cannot be written as a shell assignment", outdir, names.v[i]);
			goto done;
		}
	qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n; i++)
		if ((!i || strcmp(names.v[i], names.v[i - 1])) && !ab_json_get(env, names.v[i]))
			ab_strv_push(&rt->unset, names.v[i]);
	cJSON_ArrayForEach(it, env)
		ab_strv_pushf(&rt->set, "%s=%s", it->string, cJSON_IsString(it) ? it->valuestring : "");
	runtime_warnings(rt, probes, mine);
	runtime_artifacts(rt, outdir, mine);
	error = 0;
done:
	if (error < 0)
		ab_manifest_runtime_release(rt);
	ab_strv_free(&names);
	cJSON_Delete(doc);
	cJSON_Delete(probes);
	return error;
}

void
ab_manifest_runtime_release(struct ab_manifest_runtime *rt)
{
	ab_strv_free(&rt->set);
	ab_strv_free(&rt->unset);
	ab_strv_free(&rt->warnings);
	free(rt->program);
	free(rt->archive);
	free(rt->subject);
	memset(rt, 0, sizeof(*rt));
}

int
ab_manifest_env(FILE *out, const char *outdir, const char *label)
{
	extern char **environ;
	struct ab_manifest_runtime rt;
	const char *label_shown = label;

	if (ab_manifest_runtime(&rt, outdir, label, environ, 0) < 0)
		return AB_EFAIL;
	for (size_t i = 0; i < rt.unset.n; i++)
		fprintf(out, "unset %s\n", rt.unset.v[i]);
	for (size_t i = 0; i < rt.set.n; i++) {
		const char *eq = strchr(rt.set.v[i], '=');

		fprintf(out, "export %.*s=", (int)(eq - rt.set.v[i]), rt.set.v[i]);
		put_quoted(out, eq + 1);
		fputc('\n', out);
	}
	for (size_t i = 0; i < rt.warnings.n; i++) {
		ab_warn("%s: %s", label_shown, rt.warnings.v[i]);
		fprintf(out, "# warning: %s\n", rt.warnings.v[i]);
	}
	ab_manifest_runtime_release(&rt);
	return 0;
}

static int
load_binary_doc(cJSON **doc, const char *outdir)
{
	return runtime_doc(doc, outdir, "provenance/binary-provenance.json", 0, 1);
}

int
ab_manifest_systems(FILE *out, const char *outdir)
{
	cJSON *doc = NULL;
	const cJSON *st;

	if (load_binary_doc(&doc, outdir) < 0)
		return AB_EFAIL;
	cJSON_ArrayForEach(st, ab_json_get(doc, "variants")) {
		const char *label = ab_json_str(st, "label");
		struct ab_manifest_runtime rt;

		/* a line a driver reads, perhaps a shell: only what a recipe may call a label */
		if (label && !ab_is_ident(label)) {
			char *shown = ab_shown(label);

			ab_error("'%s/provenance/binary-provenance.json': variant label '%s' is not one a recipe can give "
			    "(letters, digits, '.', '_' and '-')", outdir, shown);
			free(shown);
			cJSON_Delete(doc);
			return AB_EFAIL;
		}
		if (!label || ab_manifest_runtime(&rt, outdir, label, NULL, 0) < 0)
			continue;
		if (rt.program) {
			/* where the OUTDIR is now (binary-provenance.json's "binary" is where it was built) */
			fprintf(out, "%s=%s\n", label, rt.program);
		} else {
			/* an archive-only variant: no line a driver would run, a comment that names the archive */
			fprintf(out, "# %s: no program artifact", label);
			if (rt.archive)
				fprintf(out, "; its allocator archive: ALLOCBUILD_ARCHIVE=%s", rt.archive);
			fputc('\n', out);
		}
		ab_manifest_runtime_release(&rt);
	}
	cJSON_Delete(doc);
	return 0;
}

/* one label's whole runtime environment as env --json gives it */
static cJSON *
runtime_json(const struct ab_manifest_runtime *rt, const char *label)
{
	cJSON *o = cJSON_CreateObject(), *set = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "label", label);
	for (size_t i = 0; i < rt->set.n; i++) {
		const char *eq = strchr(rt->set.v[i], '=');
		char *k = ab_strndup(rt->set.v[i], (size_t)(eq - rt->set.v[i]));

		cJSON_AddStringToObject(set, k, eq + 1);
		free(k);
	}
	cJSON_AddItemToObject(o, "set", set);
	cJSON_AddItemToObject(o, "unset", ab_json_strv(rt->unset.v, rt->unset.n));
	ab_json_add_str_or_null(o, "program", rt->program);
	ab_json_add_str_or_null(o, "archive", rt->archive);
	cJSON_AddItemToObject(o, "warnings", ab_json_strv(rt->warnings.v, rt->warnings.n));
	return o;
}

int
ab_manifest_env_json(cJSON **out, const char *outdir, const char *label)
{
	extern char **environ;
	cJSON *doc = NULL, *arr = NULL;
	const cJSON *st;
	int e = 0;

	*out = NULL;
	if (load_binary_doc(&doc, outdir) < 0)
		return AB_EFAIL;
	arr = cJSON_CreateArray();
	cJSON_ArrayForEach(st, ab_json_get(doc, "variants")) {
		const char *l = ab_json_str(st, "label");
		struct ab_manifest_runtime rt;

		if (!l || (label && strcmp(l, label)))
			continue;
		if ((e = ab_manifest_runtime(&rt, outdir, l, environ, 0)) < 0)
			break;
		cJSON_AddItemToArray(arr, runtime_json(&rt, l));
		ab_manifest_runtime_release(&rt);
	}
	if (e == 0 && label && !cJSON_GetArraySize(arr)) {
		no_variant(outdir, label, ab_json_get(doc, "variants"));
		e = AB_EFAIL;
	}
	cJSON_Delete(doc);
	if (e < 0) {
		cJSON_Delete(arr);
		return e;
	}
	*out = arr;
	return 0;
}
