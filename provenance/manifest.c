#include "manifest.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/util.h"
#include "../lib/hash.h"
#include "../lib/jsonio.h"
#include "../lib/version.h"
#include "sign.h"
#include "toolchain.h"

/* ---- helpers ---- */

static cJSON *
jdup(const cJSON *o)
{
	return o ? cJSON_Duplicate(o, 1) : cJSON_CreateNull();
}

static char *
mpath(const char *outdir, const char *rel)
{
	return ab_path_join(outdir, rel);
}

static int
write_manifest(const char *outdir, const char *rel, const cJSON *doc)
{
	char *path = mpath(outdir, rel);
	int e = ab_json_write(path, doc);

	free(path);
	return e;
}

static int
is_executable_file(const char *path)
{
	struct stat st;
	size_t n = strlen(path);

	if (n > 2 && !strcmp(path + n - 2, ".a"))
		return 0;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

/* the binary of a variant: its first executable artifact */
static char *
variant_binary(const char *outdir, const struct ab_variant_record *v)
{
	for (size_t i = 0; i < v->nartifacts; i++) {
		char *abs = mpath(outdir, v->artifacts[i].path);

		if (is_executable_file(abs))
			return abs;
		free(abs);
	}
	return NULL;
}

static cJSON *
digest(const char *hex)
{
	cJSON *d = cJSON_CreateObject();

	cJSON_AddStringToObject(d, "sha256", hex);
	return d;
}

/* a file to list in SHA256SUMS (and in the statement) */
struct sum {
	char *path; /* relative to OUTDIR */
	char hex[AB_HEX_LEN + 1];
	char *want; /* verify: the last expectation compared, or NULL */
};

struct sums {
	struct sum *v;
	size_t n;
};

static int
has_sum(const struct sums *s, const char *path)
{
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->v[i].path, path))
			return 1;
	return 0;
}

static void
add_sum(struct sums *s, const char *path, const char *hex)
{
	if (has_sum(s, path))
		return;
	s->v = ab_realloc(s->v, (s->n + 1) * sizeof(*s->v));
	s->v[s->n].path = ab_strdup(path);
	s->v[s->n].want = NULL;
	snprintf(s->v[s->n].hex, sizeof(s->v[s->n].hex), "%s", hex);
	s->n++;
}

static int
add_sum_file(struct sums *s, const char *outdir, const char *rel)
{
	char hex[AB_HEX_LEN + 1];
	char *abs = mpath(outdir, rel);
	int e = ab_hash_file(hex, NULL, abs);

	free(abs);
	if (e == 0)
		add_sum(s, rel, hex);
	return e;
}

static void
free_sums(struct sums *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].want);
	}
	free(s->v);
}

/* ---- the manifests ---- */

const struct ab_manifest_file ab_manifest_files[] = {
	{"recipe.json", AB_MANIFEST_ALWAYS},
	{"provenance/sources.json", AB_MANIFEST_ALWAYS},
	{"provenance/build-commands.json", AB_MANIFEST_ALWAYS},
	{"provenance/cmake-cache-provenance.json", AB_MANIFEST_CMAKE},
	{"provenance/binary-provenance.json", AB_MANIFEST_ALWAYS},
	{"provenance/allocator-probes.json", AB_MANIFEST_ALWAYS},
	{"provenance/upstream-diff.json", AB_MANIFEST_UPDIFF},
	{"provenance/relink-provenance.json", AB_MANIFEST_RELINK},
	{"provenance/provenance.intoto.json", AB_MANIFEST_ALWAYS},
	{"SHA256SUMS", AB_MANIFEST_ALWAYS},
};
const size_t ab_manifest_nfiles = AB_NELEM(ab_manifest_files);

const char *const ab_manifest_records[] = {
	"provenance/reproducibility.intoto.json",
	"provenance/rebuild.intoto.json",
	NULL,
};

static cJSON *
recipe_json(const struct ab_run_record *run)
{
	cJSON *r = cJSON_CreateObject();

	cJSON_AddStringToObject(r, "name", run->recipe.name);
	cJSON_AddStringToObject(r, "path", run->recipe.path);
	cJSON_AddStringToObject(r, "sha256", run->recipe.sha256);
	return r;
}

static cJSON *
options_json(const struct ab_run_record *run)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "jobs", run->options.jobs);
	cJSON_AddNumberToObject(o, "parallel_variants", run->options.parallel_variants);
	cJSON_AddNumberToObject(o, "jobserver", run->options.jobserver);
	cJSON_AddBoolToObject(o, "ccache", run->options.ccache);
	cJSON_AddBoolToObject(o, "keep_going", run->options.keep_going);
	cJSON_AddBoolToObject(o, "force", run->options.force);
	cJSON_AddStringToObject(o, "source_date_epoch", run->options.source_date_epoch);
	return o;
}

static cJSON *
header(const struct ab_run_record *run, const char *type)
{
	cJSON *doc = cJSON_CreateObject();

	cJSON_AddStringToObject(doc, "_type", type);
	cJSON_AddNumberToObject(doc, "version", 1);
	cJSON_AddItemToObject(doc, "recipe", recipe_json(run));
	cJSON_AddStringToObject(doc, "invocation_id", run->invocation_id);
	return doc;
}

static cJSON *
commands_doc(const struct ab_run_record *run)
{
	cJSON *doc = header(run, "https://allocbuild.dev/build-commands/v1"), *vars;

	cJSON_AddItemToObject(doc, "options", options_json(run));
	vars = cJSON_AddArrayToObject(doc, "variants");
	for (size_t i = 0; i < run->nvariants; i++) {
		const struct ab_variant_record *st = &run->variants[i];
		cJSON *v = cJSON_CreateObject();

		cJSON_AddStringToObject(v, "label", st->label);
		cJSON_AddStringToObject(v, "kind", st->kind);
		cJSON_AddBoolToObject(v, "ok", st->ok);
		cJSON_AddStringToObject(v, "key", st->key);
		if (st->definition)
			cJSON_AddItemToObject(v, "definition", jdup(st->definition));
		if (st->reproducible)
			cJSON_AddItemToObject(v, "reproducible", jdup(st->reproducible));
		if (st->toolchain)
			cJSON_AddItemToObject(v, "toolchain", jdup(st->toolchain));
		cJSON_AddItemToObject(v, "steps", st->steps ? jdup(st->steps) : cJSON_CreateArray());
		cJSON_AddItemToArray(vars, v);
	}
	return doc;
}

/*
 * What binary-provenance.json says of a diagnostic relink: that it is one,
 * its normal sibling (the binary the unchanged link.txt made) and the
 * inputs that differ between the two links
 */
static cJSON *
relink_marking(const cJSON *relink, const char *from)
{
	cJSON *m = cJSON_CreateObject(), *sib;
	const cJSON *normal = ab_json_get(relink, "normal_output"), *check = ab_json_get(relink, "normal_check");

	cJSON_AddStringToObject(m, "kind", "diagnostic relink");
	cJSON_AddStringToObject(m, "note", "the normal build's link command rerun with other inputs; "
	    "not a normal distributable build");
	sib = cJSON_AddObjectToObject(m, "normal_sibling");
	cJSON_AddStringToObject(sib, "label", from);
	cJSON_AddItemToObject(sib, "binary", jdup(ab_json_get(normal, "path")));
	cJSON_AddItemToObject(sib, "sha256", jdup(ab_json_get(normal, "sha256")));
	cJSON_AddItemToObject(sib, "link_reproduced", jdup(ab_json_get(check, "identical")));
	cJSON_AddItemToObject(m, "differing_inputs", jdup(ab_json_get(relink, "differing_inputs")));
	cJSON_AddItemToObject(m, "verdict", jdup(ab_json_get(relink, "verdict")));
	return m;
}

/* the labels of the diagnostic relinks of the variant labelled label; NULL when none */
static cJSON *
relinks_of(const struct ab_run_record *run, const char *label)
{
	cJSON *a = NULL;

	for (size_t i = 0; i < run->nvariants; i++) {
		const struct ab_variant_record *it = &run->variants[i];

		if (!it->ok || !it->relink || !it->from || strcmp(it->from, label))
			continue;
		if (!a)
			a = cJSON_CreateArray();
		cJSON_AddItemToArray(a, cJSON_CreateString(it->label));
	}
	return a;
}

/* where the binary of a variant came from: its base's source (pin and tree), or the variant it relinks */
static cJSON *
source_json(const struct ab_run_record *run, const struct ab_variant_record *base)
{
	cJSON *src = cJSON_CreateObject();

	if (base->source) {
		cJSON_AddStringToObject(src, "id", base->source);
		cJSON_AddItemToObject(src, "pin", jdup(ab_json_get(run->sources, base->source)));
		/* null as it has always been written: the state's "source" id shadowed the tree's record */
		cJSON_AddNullToObject(src, "tree");
	} else if (base->from) {
		cJSON_AddStringToObject(src, "relink_of", base->from);
	}
	return src;
}

/*
 * jemalloc's measurements of the host the variant's allocator was built
 * on: its own build's, a relink's from variant's, a runtime_of's base's
 */
static const cJSON *
host_probes_of(const struct ab_run_record *run, const struct ab_variant_record *st)
{
	for (int guard = 0; st && guard < 3; guard++) {
		if (st->host_probes)
			return st->host_probes;
		st = ab_run_record_variant(run, st->from ? st->from : st->base);
	}
	return NULL;
}

static cJSON *
binary_variant(const struct ab_run_record *run, const struct ab_variant_record *st)
{
	/* the source identity is the base variant's (runtime_of shares its binary) */
	const struct ab_variant_record *base = ab_run_record_variant(run, st->base);
	cJSON *v = cJSON_CreateObject(), *al, *relinks;
	const char *archive_sha;
	char *bin;

	if (!base)
		base = st;
	cJSON_AddStringToObject(v, "label", st->label);
	cJSON_AddStringToObject(v, "kind", st->kind);
	cJSON_AddStringToObject(v, "base", st->base);
	bin = variant_binary(run->outdir, st);
	if (bin)
		cJSON_AddStringToObject(v, "binary", bin);
	else
		cJSON_AddNullToObject(v, "binary");
	free(bin);
	cJSON_AddItemToObject(v, "runtime", ab_record_runtime_json(st));
	if (st->relink)
		cJSON_AddItemToObject(v, "diagnostic_relink", relink_marking(st->relink, st->from));
	else if ((relinks = relinks_of(run, st->label)))
		cJSON_AddItemToObject(v, "diagnostic_relinks", relinks);
	archive_sha = ab_variant_record_archive_sha256(st, ab_run_record_variant(run, st->from));
	al = ab_record_allocator_json(st);
	if (archive_sha)
		cJSON_AddStringToObject(al, "archive_sha256", archive_sha);
	else
		cJSON_AddNullToObject(al, "archive_sha256");
	cJSON_AddItemToObject(v, "allocator", al);
	cJSON_AddItemToObject(v, "source", source_json(run, base));
	cJSON_AddBoolToObject(v, "reproducible", ab_variant_record_reproducible(st));
	cJSON_AddItemToObject(v, "host_probes", jdup(host_probes_of(run, st)));
	cJSON_AddItemToObject(v, "artifacts", ab_record_artifacts_json(st));
	return v;
}

static cJSON *
binary_doc(const struct ab_run_record *run)
{
	cJSON *doc = header(run, "https://allocbuild.dev/binary-provenance/v1");
	cJSON *vars = cJSON_AddArrayToObject(doc, "variants");

	for (size_t i = 0; i < run->nvariants; i++)
		if (run->variants[i].ok)
			cJSON_AddItemToArray(vars, binary_variant(run, &run->variants[i]));
	return doc;
}

static cJSON *
probes_doc(const struct ab_run_record *run)
{
	cJSON *doc = header(run, "https://allocbuild.dev/allocator-probes/v1");
	cJSON *vars = cJSON_AddArrayToObject(doc, "variants");

	for (size_t i = 0; i < run->nvariants; i++) {
		const struct ab_variant_record *st = &run->variants[i];
		cJSON *v;

		if (!st->ok || !st->probe)
			continue;
		v = cJSON_CreateObject();
		cJSON_AddStringToObject(v, "label", st->label);
		cJSON_AddStringToObject(v, "base", st->base);
		cJSON_AddItemToObject(v, "requested", ab_record_runtime_json(st));
		cJSON_AddItemToObject(v, "probe", jdup(st->probe));
		cJSON_AddItemToArray(vars, v);
	}
	return doc;
}

/* {label: a payload of each ok variant} under "variants"; NULL when no variant has one */
static cJSON *
per_variant(const struct ab_run_record *run, const char *type, cJSON *(*payload)(const struct ab_variant_record *))
{
	cJSON *doc = NULL, *vars = NULL;

	for (size_t i = 0; i < run->nvariants; i++) {
		const struct ab_variant_record *st = &run->variants[i];

		if (!st->ok || !payload(st))
			continue;
		if (!doc) {
			doc = header(run, type);
			vars = cJSON_AddObjectToObject(doc, "variants");
		}
		cJSON_AddItemToObject(vars, st->label, jdup(payload(st)));
	}
	return doc;
}

static cJSON *
upstream_diff_of(const struct ab_variant_record *v)
{
	return v->upstream_diff;
}

static cJSON *
relink_of(const struct ab_variant_record *v)
{
	return v->relink;
}

/* a {name, digest} resource descriptor per file into arr */
static void
add_descriptors(cJSON *arr, const struct sums *files)
{
	for (size_t i = 0; i < files->n; i++) {
		cJSON *s = cJSON_CreateObject();

		cJSON_AddStringToObject(s, "name", files->v[i].path);
		cJSON_AddItemToObject(s, "digest", digest(files->v[i].hex));
		cJSON_AddItemToArray(arr, s);
	}
}

static cJSON *
build_definition(const struct ab_run_record *run)
{
	cJSON *bd = cJSON_CreateObject(), *ext, *r, *labels, *intp, *keys, *deps;

	cJSON_AddStringToObject(bd, "buildType", AB_BUILD_TYPE);
	ext = cJSON_AddObjectToObject(bd, "externalParameters");
	r = cJSON_AddObjectToObject(ext, "recipe");
	cJSON_AddStringToObject(r, "name", run->recipe.name);
	cJSON_AddStringToObject(r, "path", run->recipe.path);
	cJSON_AddStringToObject(r, "copy", "recipe.json");
	cJSON_AddItemToObject(r, "digest", digest(run->recipe.sha256));
	labels = cJSON_AddArrayToObject(ext, "variants");
	for (size_t i = 0; i < run->nvariants; i++)
		cJSON_AddItemToArray(labels, cJSON_CreateString(run->variants[i].label));
	cJSON_AddItemToObject(ext, "options", options_json(run));
	intp = cJSON_AddObjectToObject(bd, "internalParameters");
	cJSON_AddItemToObject(intp, "toolchain", jdup(run->toolchain));
	keys = cJSON_AddObjectToObject(intp, "variantKeys");
	for (size_t i = 0; i < run->nvariants; i++)
		if (run->variants[i].ok)
			cJSON_AddStringToObject(keys, run->variants[i].label, run->variants[i].key);
	keys = cJSON_AddObjectToObject(intp, "reproducible");
	for (size_t i = 0; i < run->nvariants; i++)
		if (run->variants[i].ok && run->variants[i].reproducible)
			cJSON_AddItemToObject(keys, run->variants[i].label, jdup(run->variants[i].reproducible));
	deps = cJSON_AddArrayToObject(bd, "resolvedDependencies");
	for (size_t i = 0; i < run->ndeps; i++) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddStringToObject(d, "name", run->deps[i].name);
		cJSON_AddStringToObject(d, "uri", run->deps[i].uri);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "digest"), run->deps[i].digest_kind,
		    run->deps[i].digest);
		cJSON_AddItemToArray(deps, d);
	}
	return bd;
}

static cJSON *
statement(const struct ab_run_record *run, const struct sums *subjects, const struct sums *byproducts)
{
	cJSON *doc = cJSON_CreateObject(), *pred, *rd, *b, *md;

	cJSON_AddStringToObject(doc, "_type", "https://in-toto.io/Statement/v1");
	add_descriptors(cJSON_AddArrayToObject(doc, "subject"), subjects);
	cJSON_AddStringToObject(doc, "predicateType", "https://slsa.dev/provenance/v1");
	pred = cJSON_AddObjectToObject(doc, "predicate");
	cJSON_AddItemToObject(pred, "buildDefinition", build_definition(run));
	rd = cJSON_AddObjectToObject(pred, "runDetails");
	b = cJSON_AddObjectToObject(rd, "builder");
	cJSON_AddStringToObject(b, "id", AB_BUILDER_ID);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(b, "version"), "allocbuild", AB_VERSION);
	{
		/* the tools that decide the bytes, as Debian's .buildinfo names build dependencies */
		cJSON *bdeps = cJSON_AddArrayToObject(b, "builderDependencies");

		for (size_t i = 0; i < run->nvariants; i++)
			if (run->variants[i].ok)
				ab_toolchain_descriptors(bdeps, run->variants[i].toolchain);
	}
	md = cJSON_AddObjectToObject(rd, "metadata");
	cJSON_AddStringToObject(md, "invocationId", run->invocation_id);
	cJSON_AddStringToObject(md, "startedOn", run->started_on);
	cJSON_AddStringToObject(md, "finishedOn", run->finished_on);
	add_descriptors(cJSON_AddArrayToObject(rd, "byproducts"), byproducts);
	return doc;
}

/* remove a manifest that this run does not produce, so no stale one survives */
static int
drop(const char *outdir, const char *rel)
{
	char *path = mpath(outdir, rel);
	int e = 0;

	if (unlink(path) < 0 && errno != ENOENT) {
		ab_error_errno("cannot remove '%s'", path);
		e = AB_EFAIL;
	}
	free(path);
	return e;
}

/* write doc (taken) to outdir/rel, or remove outdir/rel when doc is NULL */
static int
write_or_drop(const char *outdir, const char *rel, cJSON *doc)
{
	int e = doc ? write_manifest(outdir, rel, doc) : drop(outdir, rel);

	cJSON_Delete(doc);
	return e;
}

/* the recipe exactly as built */
static int
copy_recipe(const struct ab_run_record *run)
{
	struct ab_buf b = {0};
	char *path;
	int e;

	if (ab_read_file(&b, run->recipe.path) < 0)
		return AB_EFAIL;
	path = mpath(run->outdir, "recipe.json");
	e = ab_write_file_atomic(path, b.s, b.len);
	free(path);
	ab_buf_free(&b);
	return e;
}

/* the documents other modules made (sources.json, cmake-cache-provenance.json), then ours */
static int
write_documents(const struct ab_run_record *run)
{
	const char *out = run->outdir;
	const cJSON *it;

	cJSON_ArrayForEach(it, run->documents)
		if (!ab_path_is_safe_relative(it->string) || write_manifest(out, it->string, it) < 0)
			return AB_EFAIL;
	if (!ab_json_get(run->documents, "provenance/cmake-cache-provenance.json") &&
	    drop(out, "provenance/cmake-cache-provenance.json") < 0)
		return AB_EFAIL;
	if (write_or_drop(out, "provenance/build-commands.json", commands_doc(run)) < 0 ||
	    write_or_drop(out, "provenance/binary-provenance.json", binary_doc(run)) < 0 ||
	    write_or_drop(out, "provenance/allocator-probes.json", probes_doc(run)) < 0 ||
	    write_or_drop(out, "provenance/upstream-diff.json",
		per_variant(run, "https://allocbuild.dev/upstream-diff/v1", upstream_diff_of)) < 0 ||
	    write_or_drop(out, "provenance/relink-provenance.json",
		per_variant(run, "https://allocbuild.dev/relink-provenance/v1", relink_of)) < 0)
		return AB_EFAIL;
	return 0;
}

/*
 * subjects: the artifacts of the variants built; byproducts: their logs,
 * then recipe.json and every other manifest this run wrote, so that a
 * signature over the statement (provenance/sign.h) vouches for all of them
 */
static int
collect_outputs(struct sums *subjects, struct sums *byproducts, const struct ab_run_record *run)
{
	for (size_t i = 0; i < run->nvariants; i++) {
		const struct ab_variant_record *st = &run->variants[i];
		const cJSON *it;

		if (!st->ok)
			continue;
		for (size_t k = 0; k < st->nartifacts; k++)
			add_sum(subjects, st->artifacts[k].path, st->artifacts[k].sha256);
		cJSON_ArrayForEach(it, st->steps)
			if (ab_json_str(it, "log") && add_sum_file(byproducts, run->outdir, ab_json_str(it, "log")) < 0)
				return AB_EFAIL;
	}
	for (size_t i = 0; i < ab_manifest_nfiles; i++) {
		const char *rel = ab_manifest_files[i].path;
		char *abs;
		int present;

		/* the statement cannot name itself; SHA256SUMS comes after it */
		if (!strcmp(rel, "provenance/provenance.intoto.json") || !strcmp(rel, "SHA256SUMS"))
			continue;
		abs = mpath(run->outdir, rel);
		present = ab_path_exists(abs);
		free(abs);
		if (present && add_sum_file(byproducts, run->outdir, rel) < 0)
			return AB_EFAIL;
	}
	return 0;
}

/*
 * The records of ab_manifest_records that still vouch for this run's
 * artifacts (every subject digest is that of a subject of the run) into
 * kept; the others are removed
 */
static int
keep_records(struct sums *kept, const char *outdir, const struct sums *subjects)
{
	for (size_t i = 0; ab_manifest_records[i]; i++) {
		const char *rel = ab_manifest_records[i];
		char *abs = mpath(outdir, rel);
		cJSON *doc = NULL;
		const cJSON *it;
		int ok = 1, e = 0;

		if (!ab_path_exists(abs)) {
			free(abs);
			continue;
		}
		ab_quiet++;
		if (ab_json_read(&doc, abs) < 0 || !cJSON_GetArraySize(ab_json_get(doc, "subject")))
			ok = 0;
		ab_quiet--;
		cJSON_ArrayForEach(it, ab_json_get(doc, "subject")) {
			const char *name = ab_json_str(it, "name"), *hex = ab_json_str(ab_json_get(it, "digest"), "sha256");
			int found = 0;

			for (size_t k = 0; name && hex && k < subjects->n; k++)
				found |= !strcmp(subjects->v[k].path, name) && !strcmp(subjects->v[k].hex, hex);
			ok &= found;
		}
		cJSON_Delete(doc);
		e = ok ? add_sum_file(kept, outdir, rel) : drop(outdir, rel);
		free(abs);
		if (e < 0)
			return e;
	}
	return 0;
}

/* SHA256SUMS, last: the subjects, the byproducts, every manifest written and the records kept */
static int
write_sums(const struct ab_run_record *run, const struct sums *subjects, const struct sums *byproducts)
{
	struct sums all = {0};
	struct ab_buf b = {0};
	char *path;
	int e = AB_EFAIL;

	for (size_t i = 0; i < subjects->n; i++)
		add_sum(&all, subjects->v[i].path, subjects->v[i].hex);
	for (size_t i = 0; i < byproducts->n; i++)
		add_sum(&all, byproducts->v[i].path, byproducts->v[i].hex);
	/* every manifest this run wrote (the others were dropped), SHA256SUMS itself not */
	for (size_t i = 0; i + 1 < ab_manifest_nfiles; i++) {
		const char *rel = ab_manifest_files[i].path;
		char *abs = mpath(run->outdir, rel);
		int present = ab_path_exists(abs);

		free(abs);
		if (present && add_sum_file(&all, run->outdir, rel) < 0)
			goto done;
	}
	if (keep_records(&all, run->outdir, subjects) < 0)
		goto done;
	for (size_t i = 0; i < all.n; i++)
		ab_buf_printf(&b, "%s  %s\n", all.v[i].hex, all.v[i].path);
	path = mpath(run->outdir, "SHA256SUMS");
	e = ab_write_file_atomic(path, b.s ? b.s : "", b.len);
	free(path);
done:
	free_sums(&all);
	ab_buf_free(&b);
	return e;
}

int
ab_manifest_write(const struct ab_run_record *run)
{
	struct sums subjects = {0}, byproducts = {0};
	char *prov = mpath(run->outdir, "provenance");
	int error = AB_EFAIL;

	if (ab_mkdir_p(prov, 0755) < 0 || copy_recipe(run) < 0 || write_documents(run) < 0 ||
	    collect_outputs(&subjects, &byproducts, run) < 0)
		goto done;
	if (write_or_drop(run->outdir, "provenance/provenance.intoto.json",
	    statement(run, &subjects, &byproducts)) < 0)
		goto done;
	/* a new statement: envelopes signed over the old one are stale */
	if (ab_sign_remove(run->outdir) < 0)
		goto done;
	error = write_sums(run, &subjects, &byproducts);
done:
	free_sums(&subjects);
	free_sums(&byproducts);
	free(prov);
	return error;
}

static int
is_record(const char *rel)
{
	for (size_t i = 0; ab_manifest_records[i]; i++)
		if (!strcmp(ab_manifest_records[i], rel))
			return 1;
	return 0;
}

int
ab_manifest_add_record(const char *outdir, const char *rel, const cJSON *doc)
{
	char *sums_path = mpath(outdir, "SHA256SUMS");
	struct ab_buf old = {0}, b = {0};
	int error = AB_EFAIL;

	if (!is_record(rel)) {
		ab_error("'%s' is not a record of an OUTDIR", rel);
		goto done;
	}
	if (write_manifest(outdir, rel, doc) < 0 || ab_read_file(&old, sums_path) < 0)
		goto done;
	/* every line but the records', then the records present, in their order */
	for (const char *s = old.s; s && *s;) {
		size_t n = strcspn(s, "\n");
		char *name = n > AB_HEX_LEN + 2 ? ab_strndup(s + AB_HEX_LEN + 2, n - AB_HEX_LEN - 2) : NULL;

		if (!name || !is_record(name)) {
			ab_buf_add(&b, s, n);
			ab_buf_putc(&b, '\n');
		}
		free(name);
		s += n + (s[n] == '\n');
	}
	for (size_t i = 0; ab_manifest_records[i]; i++) {
		char *abs = mpath(outdir, ab_manifest_records[i]);
		char hex[AB_HEX_LEN + 1];
		int e = 0;

		if (ab_path_exists(abs)) {
			e = ab_hash_file(hex, NULL, abs);
			if (e == 0)
				ab_buf_printf(&b, "%s  %s\n", hex, ab_manifest_records[i]);
		}
		free(abs);
		if (e < 0)
			goto done;
	}
	/* the envelopes sign the statements as they were: stale now */
	if (ab_write_file_atomic(sums_path, b.s ? b.s : "", b.len) < 0 || ab_sign_remove(outdir) < 0)
		goto done;
	error = 0;
done:
	ab_buf_free(&old);
	ab_buf_free(&b);
	free(sums_path);
	return error;
}

/* ---- verify ---- */

/*
 * Check one expected digest of a file. A file named again (SHA256SUMS, then
 * the statement's subjects and byproducts) is hashed once, but every
 * expectation is compared with what the file holds: a digest replaced in
 * SHA256SUMS alone must not hide a tampered subject.
 */
static int
check_one(FILE *out, const char *outdir, const char *rel, const char *want, struct sums *seen, int *bad)
{
	char hex[AB_HEX_LEN + 1];
	char *abs;

	for (size_t i = 0; i < seen->n; i++) {
		if (strcmp(seen->v[i].path, rel))
			continue;
		/* a mismatch already printed for the same expectation is not repeated */
		if (seen->v[i].want && !strcmp(seen->v[i].want, want))
			return 0;
		if (!seen->v[i].hex[0]) {
			fprintf(out, "%s: expected %s, actual missing\n", rel, want);
			*bad = 1;
		} else if (strcmp(seen->v[i].hex, want)) {
			fprintf(out, "%s: expected %s, actual %s\n", rel, want, seen->v[i].hex);
			*bad = 1;
		}
		free(seen->v[i].want);
		seen->v[i].want = ab_strdup(want);
		return 0;
	}
	abs = mpath(outdir, rel);
	hex[0] = '\0';
	if (!ab_path_exists(abs)) {
		fprintf(out, "%s: expected %s, actual missing\n", rel, want);
		*bad = 1;
	} else if (ab_hash_file(hex, NULL, abs) < 0) {
		free(abs);
		return AB_EFAIL;
	} else if (strcmp(hex, want)) {
		fprintf(out, "%s: expected %s, actual %s\n", rel, want, hex);
		*bad = 1;
	}
	free(abs);
	/* what the file holds ("" when missing), for later expectations */
	add_sum(seen, rel, hex);
	seen->v[seen->n - 1].want = ab_strdup(want);
	return 0;
}

int
ab_manifest_verify(FILE *out, const char *outdir)
{
	char *sums_path = mpath(outdir, "SHA256SUMS"), *stmt_path = mpath(outdir, "provenance/provenance.intoto.json");
	struct ab_buf b = {0};
	struct sums seen = {0};
	cJSON *stmt = NULL;
	const char *s;
	int bad = 0, error = AB_EFAIL;
	size_t line = 0;

	if (!ab_path_exists(sums_path)) {
		ab_error("'%s' has no SHA256SUMS: not an allocbuild output directory", outdir);
		goto done;
	}
	if (ab_read_file(&b, sums_path) < 0)
		goto done;
	for (s = b.s; *s;) {
		size_t n = strcspn(s, "\n");
		char *l = ab_strndup(s, n);
		int e = 0;

		line++;
		s += n + (s[n] == '\n');
		if (n < AB_HEX_LEN + 3 || l[AB_HEX_LEN] != ' ' || l[AB_HEX_LEN + 1] != ' ') {
			ab_error("%s:%zu: malformed line", sums_path, line);
			free(l);
			goto done;
		}
		l[AB_HEX_LEN] = '\0';
		if (!ab_is_hex(l, AB_HEX_LEN) || !ab_path_is_safe_relative(l + AB_HEX_LEN + 2)) {
			ab_error("%s:%zu: malformed digest", sums_path, line);
			free(l);
			goto done;
		}
		e = check_one(out, outdir, l + AB_HEX_LEN + 2, l, &seen, &bad);
		free(l);
		if (e < 0)
			goto done;
	}
	/* the statement's subjects and byproducts too, in case SHA256SUMS was rewritten */
	if (ab_json_read(&stmt, stmt_path) < 0)
		goto done;
	{
		const cJSON *lists[2], *it;

		lists[0] = ab_json_get(stmt, "subject");
		lists[1] = ab_json_get(ab_json_get(ab_json_get(stmt, "predicate"), "runDetails"), "byproducts");
		for (int k = 0; k < 2; k++)
			cJSON_ArrayForEach(it, lists[k]) {
				const char *name = ab_json_str(it, "name"), *want = ab_json_str(ab_json_get(it, "digest"), "sha256");

				if (!name || !want || !ab_path_is_safe_relative(name)) {
					ab_error("%s: malformed subject", stmt_path);
					goto done;
				}
				if (check_one(out, outdir, name, want, &seen, &bad) < 0)
					goto done;
			}
	}
	if (!bad)
		fprintf(out, "verified %zu files in %s\n", seen.n, outdir);
	error = bad ? AB_ECHECK : 0;
done:
	cJSON_Delete(stmt);
	free_sums(&seen);
	ab_buf_free(&b);
	free(sums_path);
	free(stmt_path);
	return error;
}

/* ---- env ---- */

static int
load_binary_doc(cJSON **doc, const char *outdir)
{
	char *path = mpath(outdir, "provenance/binary-provenance.json");
	int e;

	if (!ab_path_exists(path)) {
		ab_error("'%s' has no provenance/binary-provenance.json: not a built output directory", outdir);
		free(path);
		return AB_EFAIL;
	}
	e = ab_json_read(doc, path);
	free(path);
	return e;
}

static int
valid_name(const char *s)
{
	if (!*s || isdigit((unsigned char)*s))
		return 0;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
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

int
ab_manifest_env(FILE *out, const char *outdir, const char *label)
{
	cJSON *doc = NULL;
	const cJSON *vars, *st, *mine = NULL, *it;
	struct ab_strv names = {0};
	int error = AB_EFAIL;

	if (load_binary_doc(&doc, outdir) < 0)
		return AB_EFAIL;
	vars = ab_json_get(doc, "variants");
	cJSON_ArrayForEach(st, vars)
		if (ab_json_str(st, "label") && !strcmp(ab_json_str(st, "label"), label))
			mine = st;
	if (!mine) {
		ab_error("'%s' has no built variant '%s'", outdir, label);
		goto done;
	}
	/*
	 * Every variable that any variant of the OUTDIR sets or unsets, plus
	 * MALLOC_CONF: whatever this label does not set is unset, so a value
	 * left from another label or the caller's shell never leaks in.
	 */
	ab_strv_push(&names, "MALLOC_CONF");
	cJSON_ArrayForEach(st, vars) {
		cJSON_ArrayForEach(it, ab_json_get(ab_json_get(st, "runtime"), "env"))
			ab_strv_push(&names, it->string);
		cJSON_ArrayForEach(it, ab_json_get(ab_json_get(st, "runtime"), "unset"))
			if (cJSON_IsString(it))
				ab_strv_push(&names, it->valuestring);
	}
	for (size_t i = 0; i < names.n; i++)
		if (!valid_name(names.v[i])) {
			ab_error("%s: variable name '%s' cannot be written as a shell assignment", outdir, names.v[i]);
			goto done;
		}
	qsort(names.v, names.n, sizeof(*names.v), cmp_str);
	for (size_t i = 0; i < names.n; i++) {
		if (i && !strcmp(names.v[i], names.v[i - 1]))
			continue;
		if (ab_json_get(ab_json_get(ab_json_get(mine, "runtime"), "env"), names.v[i]))
			continue;
		fprintf(out, "unset %s\n", names.v[i]);
	}
	cJSON_ArrayForEach(it, ab_json_get(ab_json_get(mine, "runtime"), "env")) {
		fprintf(out, "export %s=", it->string);
		put_quoted(out, cJSON_IsString(it) ? it->valuestring : "");
		fputc('\n', out);
	}
	error = 0;
done:
	ab_strv_free(&names);
	cJSON_Delete(doc);
	return error;
}

int
ab_manifest_systems(FILE *out, const char *outdir)
{
	cJSON *doc = NULL;
	const cJSON *st;

	if (load_binary_doc(&doc, outdir) < 0)
		return AB_EFAIL;
	cJSON_ArrayForEach(st, ab_json_get(doc, "variants")) {
		const char *bin = ab_json_str(st, "binary"), *label = ab_json_str(st, "label");

		if (bin && label)
			fprintf(out, "%s=%s\n", label, bin);
	}
	cJSON_Delete(doc);
	return 0;
}
