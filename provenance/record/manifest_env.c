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
#include "binprov.h"
#include "proberesult.h"

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

#define BINPROV "provenance/binary-provenance.json"
#define PROBES "provenance/allocator-probes.json"

/*
 * binary-provenance.json, and allocator-probes.json when want_probes (none
 * when it is absent), read typed (provenance/record/binprov.h,
 * proberesult.h); 0, AB_ECHECK or AB_EFAIL (reported, naming the file and
 * the key). Release both in every case.
 */
static int
runtime_docs(struct ab_binprov *b, struct ab_probe_results *pr, const char *outdir, int checked, int want_probes)
{
	cJSON *doc = NULL, *probes = NULL;
	char *bp = ab_manifest_path(outdir, BINPROV), *pp = ab_manifest_path(outdir, PROBES);
	int e;

	memset(b, 0, sizeof(*b));
	memset(pr, 0, sizeof(*pr));
	if ((e = runtime_doc(&doc, outdir, BINPROV, checked, 1)) == 0 && want_probes)
		e = runtime_doc(&probes, outdir, PROBES, checked, 0);
	if (e == 0)
		e = ab_binprov_parse(b, doc, bp);
	if (e == 0 && probes)
		e = ab_probe_results_parse(pr, probes, pp);
	cJSON_Delete(doc);
	cJSON_Delete(probes);
	free(bp);
	free(pp);
	return e;
}

/*
 * Settings of the label's runtime environment its allocator will not read
 * (the version and the variable it reads from its probe record); the
 * allocator the probe found and that variable, kept.
 */
static void
runtime_warnings(struct ab_manifest_runtime *rt, const struct ab_probe_results *pr, const struct ab_binprov_variant *mine)
{
	const struct ab_probe_result *probe = ab_probe_results_get(pr, mine->label);
	const char *kind = probe && probe->allocator ? probe->allocator : mine->allocator.kind;

	ab_allocopts_check_env(&rt->warnings, kind, probe ? probe->version : NULL, probe ? probe->conf_var : NULL,
	    ab_strv_argv(&rt->set));
	rt->allocator = probe ? ab_strdup_or_null(probe->allocator) : NULL;
	rt->conf_var = probe ? ab_strdup_or_null(probe->conf_var) : NULL;
}

/* the label's program (its first executable artifact below OUTDIR) and the subject of its runs */
static void
runtime_artifacts(struct ab_manifest_runtime *rt, const char *outdir, const struct ab_binprov_variant *mine)
{
	const struct ab_binprov_artifact *subject = NULL;

	for (size_t i = 0; i < mine->nartifacts; i++) {
		const char *rel = mine->artifacts[i].path;
		char *abs;

		if (!ab_path_is_safe_relative(rel))
			continue;
		abs = ab_manifest_path(outdir, rel);
		if (!rt->program && ab_manifest_is_executable(abs)) {
			rt->program = ab_path_absolute(abs);
			subject = &mine->artifacts[i];
		}
		free(abs);
	}
	for (size_t i = 0; i < mine->nartifacts; i++)
		if (mine->artifacts[i].allocator_archive && ab_path_is_safe_relative(mine->artifacts[i].path)) {
			if (!rt->archive) {
				char *abs = ab_manifest_path(outdir, mine->artifacts[i].path);

				rt->archive = ab_path_absolute(abs);
				free(abs);
			}
			if (!subject)
				subject = &mine->artifacts[i];
		}
	if (!subject && mine->nartifacts)
		subject = &mine->artifacts[0];
	if (subject) {
		rt->subject = ab_strdup(subject->path);
		memcpy(rt->subject_sha256, subject->sha256, AB_HEX_LEN + 1);
	}
}

/* "'OUTDIR' has no built variant 'x'", with the nearest of its labels */
static void
no_variant(const char *outdir, const char *label, const struct ab_binprov *b)
{
	struct ab_strv labels = {0};
	const char *near;
	char *shown = ab_shown(label);

	for (size_t i = 0; i < b->nvariants; i++)
		ab_strv_push(&labels, b->variants[i].label);
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
	struct ab_binprov b;
	struct ab_probe_results pr;
	const struct ab_binprov_variant *mine;
	struct ab_strv names = {0};
	int error;

	memset(rt, 0, sizeof(*rt));
	if ((error = runtime_docs(&b, &pr, outdir, checked, 1)) < 0)
		goto done;
	error = AB_EFAIL;
	if (!(mine = ab_binprov_variant(&b, label))) {
		no_variant(outdir, label, &b);
		goto done;
	}
	/*
	 * Every variable that any variant of the OUTDIR sets or unsets, plus
	 * MALLOC_CONF and the allocator variables inherited: whatever this
	 * label does not set is unset, so a value left from another label or
	 * the caller's shell never leaks in.
	 */
	ab_strv_push(&names, "MALLOC_CONF");
	for (size_t k = 0; k < b.nvariants; k++) {
		for (size_t i = 0; i < b.variants[k].nenv; i++)
			ab_strv_push(&names, b.variants[k].env[i].name);
		for (size_t i = 0; i < b.variants[k].unset.n; i++)
			ab_strv_push(&names, b.variants[k].unset.v[i]);
	}
	for (char *const *p = inherited; p && *p; p++)
		if (strchr(*p, '=') && ab_env_is_allocator_var(*p))
			ab_strv_push_owned(&names, ab_strndup(*p, strcspn(*p, "=")));
	for (size_t i = 0; i < names.n; i++)
		if (!ab_env_name_valid(names.v[i], strlen(names.v[i]))) {
			ab_error("%s: variable name '%s' cannot be written as a shell assignment", outdir, names.v[i]);
			goto done;
		}
	ab_strv_sort(&names);
	for (size_t i = 0; i < names.n; i++)
		if ((!i || strcmp(names.v[i], names.v[i - 1])) && !ab_binprov_sets(mine, names.v[i]))
			ab_strv_push(&rt->unset, names.v[i]);
	for (size_t i = 0; i < mine->nenv; i++)
		ab_strv_pushf(&rt->set, "%s=%s", mine->env[i].name, mine->env[i].value);
	runtime_warnings(rt, &pr, mine);
	runtime_artifacts(rt, outdir, mine);
	error = 0;
done:
	if (error < 0)
		ab_manifest_runtime_release(rt);
	ab_strv_free(&names);
	ab_binprov_release(&b);
	ab_probe_results_release(&pr);
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
	free(rt->allocator);
	free(rt->conf_var);
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

int
ab_manifest_systems(FILE *out, const char *outdir)
{
	struct ab_binprov b;
	struct ab_probe_results none;

	if (runtime_docs(&b, &none, outdir, 0, 0) < 0)
		return AB_EFAIL;
	for (size_t k = 0; k < b.nvariants; k++) {
		const char *label = b.variants[k].label;
		struct ab_manifest_runtime rt;

		/* a line a driver reads, perhaps a shell: only what a recipe may call a label */
		if (label && !ab_is_ident(label)) {
			char *shown = ab_shown(label);

			ab_error("'%s/provenance/binary-provenance.json': variant label '%s' is not one a recipe can give "
			    "(letters, digits, '.', '_' and '-')", outdir, shown);
			free(shown);
			ab_binprov_release(&b);
			return AB_EFAIL;
		}
		if (ab_manifest_runtime(&rt, outdir, label, NULL, 0) < 0)
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
	ab_binprov_release(&b);
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
	struct ab_binprov b;
	struct ab_probe_results none;
	cJSON *arr = NULL;
	int e = 0;

	*out = NULL;
	if (runtime_docs(&b, &none, outdir, 0, 0) < 0)
		return AB_EFAIL;
	arr = cJSON_CreateArray();
	for (size_t k = 0; k < b.nvariants; k++) {
		const char *l = b.variants[k].label;
		struct ab_manifest_runtime rt;

		if (label && strcmp(l, label))
			continue;
		if ((e = ab_manifest_runtime(&rt, outdir, l, environ, 0)) < 0)
			break;
		cJSON_AddItemToArray(arr, runtime_json(&rt, l));
		ab_manifest_runtime_release(&rt);
	}
	if (e == 0 && label && !cJSON_GetArraySize(arr)) {
		no_variant(outdir, label, &b);
		e = AB_EFAIL;
	}
	ab_binprov_release(&b);
	if (e < 0) {
		cJSON_Delete(arr);
		return e;
	}
	*out = arr;
	return 0;
}
