#include "manifest.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/atomic.h"
#include "../../lib/dirwalk.h"
#include "../../lib/proc.h"
#include "../../lib/strmap.h"
#include "../../lib/util.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../alloc/allocopts.h"
#include "../attest/intoto.h"
#include "../../lib/version.h"
#include "../runs/runrec.h"
#include "../attest/statement.h"
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

/* where the run's files are written: its OUTDIR, or the directory renamed to it afterwards */
static const char *
wdir(const struct ab_run_record *run)
{
	return run->write_dir ? run->write_dir : run->outdir;
}

/* the binary of a variant, its first executable artifact: its path in the OUTDIR */
static char *
variant_binary(const struct ab_run_record *run, const struct ab_variant_record *v)
{
	for (size_t i = 0; i < v->nartifacts; i++) {
		char *abs = mpath(wdir(run), v->artifacts[i].path);
		int x = is_executable_file(abs);

		free(abs);
		if (x)
			return mpath(run->outdir, v->artifacts[i].path);
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
	char *why;  /* verify: why the file has no digest ("missing", ...), or NULL */
	cJSON *annotations; /* the statement's annotations of the file, or NULL */
};

struct sums {
	struct sum *v;
	size_t n, cap;
	struct ab_strmap index; /* path to its entry: an OUTDIR's files grow with its runs */
};

/* path's entry, or NULL */
static struct sum *
find_sum(const struct sums *s, const char *path)
{
	size_t i;

	return ab_strmap_get(&s->index, path, &i) ? &s->v[i] : NULL;
}

static void
add_sum(struct sums *s, const char *path, const char *hex)
{
	if (find_sum(s, path))
		return;
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->v = ab_realloc(s->v, s->cap * sizeof(*s->v));
	}
	s->v[s->n].path = ab_strdup(path);
	ab_strmap_put(&s->index, s->v[s->n].path, s->n);
	s->v[s->n].want = NULL;
	s->v[s->n].why = NULL;
	s->v[s->n].annotations = NULL;
	snprintf(s->v[s->n].hex, sizeof(s->v[s->n].hex), "%s", hex);
	s->n++;
}

/* a file of OUTDIR hashed as verify will hash it: opened only inside OUTDIR, never a fifo */
static int
add_sum_file(struct sums *s, const char *outdir, const char *rel)
{
	char hex[AB_HEX_LEN + 1], why[AB_BENEATH_WHY] = "cannot open the output directory";
	int root = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int e = root < 0 ? -1 : ab_hash_file_beneath(hex, NULL, root, rel, 0, why);

	if (root >= 0)
		close(root);
	if (e == 0) {
		add_sum(s, rel, hex);
		return 0;
	}
	{
		char *abs = mpath(outdir, rel);

		ab_error("cannot hash '%s': %s", abs, why);
		free(abs);
	}
	return AB_EFAIL;
}

static void
free_sums(struct sums *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->v[i].path);
		free(s->v[i].want);
		free(s->v[i].why);
		cJSON_Delete(s->v[i].annotations);
	}
	free(s->v);
	ab_strmap_free(&s->index);
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
	{"provenance/reproducibility.intoto.json", AB_MANIFEST_RECORD},
	{"provenance/rebuild.intoto.json", AB_MANIFEST_RECORD},
	{"SHA256SUMS", AB_MANIFEST_ALWAYS},
};
const size_t ab_manifest_nfiles = AB_NELEM(ab_manifest_files);

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
	if (run->options.ccache) {
		ab_json_add_str_or_null(o, "ccache_dir", run->options.ccache_dir);
		ab_json_add_str_or_null(o, "ccache_remote", run->options.ccache_remote);
	}
	cJSON_AddBoolToObject(o, "sandbox", run->options.sandbox);
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
		if (st->sandbox)
			cJSON_AddItemToObject(v, "sandbox", jdup(st->sandbox));
		if (st->compile_log)
			cJSON_AddStringToObject(v, "compile_log", st->compile_log);
		if (st->toolchain.present)
			cJSON_AddItemToObject(v, "toolchain", ab_toolchain_json(&st->toolchain));
		cJSON_AddItemToObject(v, "steps", st->steps ? jdup(st->steps) : cJSON_CreateArray());
		if (st->cargo)
			cJSON_AddItemToObject(v, "cargo", ab_cargo_record_json(st->cargo));
		if (st->ccache)
			cJSON_AddItemToObject(v, "ccache", jdup(st->ccache));
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

/* the labels of the diagnostic relinks of run's variant at index ix; NULL when none */
static cJSON *
relinks_of(const struct ab_run_record *run, size_t ix)
{
	cJSON *a = NULL;

	for (size_t i = 0; i < run->nvariants; i++) {
		const struct ab_variant_record *it = &run->variants[i];

		if (!it->ok || !it->relink || it->from_ix != ix)
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
		const struct ab_fetch_record *pin = ab_fetch_set_get(&run->sources, base->source);

		cJSON_AddStringToObject(src, "id", base->source);
		cJSON_AddItemToObject(src, "pin", pin ? ab_fetch_record_json(pin) : cJSON_CreateNull());
		/* null as it has always been written: the state's "source" id shadowed the tree's record */
		cJSON_AddNullToObject(src, "tree");
	} else if (base->from) {
		cJSON_AddStringToObject(src, "relink_of", base->from);
	}
	return src;
}

/* the artifacts of other variants it used: [{variant, artifact, path, sha256}] */
static cJSON *
uses_json(const struct ab_variant_record *st)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < st->nuses; i++) {
		const struct ab_use_record *u = &st->uses[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "variant", u->variant);
		cJSON_AddStringToObject(o, "artifact", u->artifact);
		ab_json_add_str_or_null(o, "path", u->path);
		ab_json_add_str_or_null(o, "sha256", u->path ? u->sha256 : NULL);
		cJSON_AddItemToArray(a, o);
	}
	return a;
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
		st = ab_run_record_at(run, st->from ? st->from_ix : st->base_ix);
	}
	return NULL;
}

static cJSON *
binary_variant(const struct ab_run_record *run, const struct ab_variant_record *st)
{
	/* the source identity is the base variant's (runtime_of shares its binary) */
	const struct ab_variant_record *base = ab_run_record_at(run, st->base_ix);
	cJSON *v = cJSON_CreateObject(), *al, *relinks;
	const char *archive_sha;
	char *bin;

	if (!base)
		base = st;
	cJSON_AddStringToObject(v, "label", st->label);
	cJSON_AddStringToObject(v, "kind", st->kind);
	cJSON_AddStringToObject(v, "base", st->base);
	bin = variant_binary(run, st);
	if (bin)
		cJSON_AddStringToObject(v, "binary", bin);
	else
		cJSON_AddNullToObject(v, "binary");
	free(bin);
	cJSON_AddItemToObject(v, "runtime", ab_record_runtime_json(st));
	if (st->relink)
		cJSON_AddItemToObject(v, "diagnostic_relink", relink_marking(st->relink, st->from));
	else if ((relinks = relinks_of(run, (size_t)(st - run->variants))))
		cJSON_AddItemToObject(v, "diagnostic_relinks", relinks);
	archive_sha = ab_variant_record_archive_sha256(st, ab_run_record_at(run, st->from_ix));
	al = ab_record_allocator_json(st);
	if (archive_sha)
		cJSON_AddStringToObject(al, "archive_sha256", archive_sha);
	else
		cJSON_AddNullToObject(al, "archive_sha256");
	cJSON_AddItemToObject(v, "allocator", al);
	cJSON_AddItemToObject(v, "source", source_json(run, base));
	cJSON_AddBoolToObject(v, "reproducible", ab_variant_record_reproducible(st));
	cJSON_AddBoolToObject(v, "sandboxed", ab_variant_record_sandboxed(st));
	cJSON_AddItemToObject(v, "host_probes", jdup(host_probes_of(run, st)));
	cJSON_AddItemToObject(v, "artifacts", ab_record_artifacts_json(st));
	if (st->nuses)
		cJSON_AddItemToObject(v, "uses", uses_json(st));
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
		cJSON_AddItemToObject(v, "probe", ab_probe_result_json(st->probe));
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
		cJSON *s = ab_statement_descriptor(arr, files->v[i].path, files->v[i].hex);

		if (files->v[i].annotations)
			cJSON_AddItemToObject(s, "annotations", jdup(files->v[i].annotations));
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
	cJSON_AddItemToObject(intp, "toolchain", ab_tool_ids_json(&run->toolchain));
	keys = cJSON_AddObjectToObject(intp, "variantKeys");
	for (size_t i = 0; i < run->nvariants; i++)
		if (run->variants[i].ok)
			cJSON_AddStringToObject(keys, run->variants[i].label, run->variants[i].key);
	keys = cJSON_AddObjectToObject(intp, "reproducible");
	for (size_t i = 0; i < run->nvariants; i++)
		if (run->variants[i].ok && run->variants[i].reproducible)
			cJSON_AddItemToObject(keys, run->variants[i].label, jdup(run->variants[i].reproducible));
	/* where each variant's steps ran: the namespaces, no network, the fixed paths and the real ones */
	keys = cJSON_AddObjectToObject(intp, "sandbox");
	for (size_t i = 0; i < run->nvariants; i++)
		if (run->variants[i].ok && run->variants[i].sandbox)
			cJSON_AddItemToObject(keys, run->variants[i].label, jdup(run->variants[i].sandbox));
	if (run->merge)
		cJSON_AddItemToObject(intp, "merge", jdup(run->merge));
	if (run->earlier_invocations.n)
		cJSON_AddItemToObject(intp, "earlierInvocations",
		    ab_json_strv(run->earlier_invocations.v, run->earlier_invocations.n));
	deps = cJSON_AddArrayToObject(bd, "resolvedDependencies");
	for (size_t i = 0; i < run->ndeps; i++) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddStringToObject(d, "name", run->deps[i].name);
		if (run->deps[i].uri)
			cJSON_AddStringToObject(d, "uri", run->deps[i].uri);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "digest"), run->deps[i].digest_kind,
		    run->deps[i].digest);
		if (run->deps[i].used_by)
			cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "annotations"), "usedBy", run->deps[i].used_by);
		cJSON_AddItemToArray(deps, d);
	}
	return bd;
}

static cJSON *
statement(const struct ab_run_record *run, const struct sums *subjects, const struct sums *byproducts)
{
	cJSON *subj, *doc = ab_statement_new(AB_MANIFEST_SLSA_PROVENANCE, &subj), *pred, *rd, *b, *md;

	add_descriptors(subj, subjects);
	pred = cJSON_AddObjectToObject(doc, "predicate");
	cJSON_AddItemToObject(pred, "buildDefinition", build_definition(run));
	rd = cJSON_AddObjectToObject(pred, "runDetails");
	b = cJSON_AddObjectToObject(rd, "builder");
	cJSON_AddStringToObject(b, "id", AB_BUILDER_ID);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(b, "version"), "allocbuild", AB_VERSION);
	{
		/* the tools that decide the bytes, as Debian's .buildinfo names build dependencies */
		const struct ab_toolchain **tc = ab_calloc(run->nvariants + 1, sizeof(*tc));
		size_t n = 0;

		for (size_t i = 0; i < run->nvariants; i++)
			if (run->variants[i].ok)
				tc[n++] = &run->variants[i].toolchain;
		cJSON_AddItemToObject(b, "builderDependencies", ab_toolchain_descriptors(tc, n));
		free(tc);
	}
	md = cJSON_AddObjectToObject(rd, "metadata");
	cJSON_AddStringToObject(md, "invocationId", run->invocation_id);
	cJSON_AddStringToObject(md, "startedOn", run->started_on);
	cJSON_AddStringToObject(md, "finishedOn", run->finished_on);
	add_descriptors(cJSON_AddArrayToObject(rd, "byproducts"), byproducts);
	return doc;
}

int
ab_manifest_remove_signed(const char *outdir)
{
	static const char *const files[] = {AB_MANIFEST_ENVELOPES, AB_MANIFEST_SIGNERS};

	for (size_t i = 0; i < AB_NELEM(files); i++) {
		char *path = ab_path_join(outdir, files[i]);
		int e = unlink(path) < 0 && errno != ENOENT;

		if (e)
			ab_error_errno("cannot remove '%s'", path);
		free(path);
		if (e)
			return AB_EFAIL;
	}
	return ab_intoto_remove(outdir);
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

	if (run->recipe_text)
		ab_buf_add(&b, run->recipe_text, run->recipe_len);
	else if (ab_read_file(&b, run->recipe_file ? run->recipe_file : run->recipe.path) < 0)
		return AB_EFAIL;
	path = mpath(wdir(run), "recipe.json");
	e = ab_write_file_atomic(path, b.s, b.len);
	free(path);
	ab_buf_free(&b);
	return e;
}

/* the documents other modules made (sources.json, cmake-cache-provenance.json), then ours */
static int
write_documents(const struct ab_run_record *run)
{
	const char *out = wdir(run);
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

/* a variant's ccache statistics log, its counts as the annotations (provenance/record/ccstats.h) */
static int
ccache_byproduct(struct sums *byproducts, const struct ab_run_record *run, const struct ab_variant_record *st)
{
	const char *log = ab_json_str(st->ccache, "log");
	cJSON *counts;

	if (!log)
		return 0;
	if (add_sum_file(byproducts, wdir(run), log) < 0)
		return AB_EFAIL;
	for (size_t i = 0; i < byproducts->n; i++)
		if (!strcmp(byproducts->v[i].path, log) && !byproducts->v[i].annotations) {
			counts = jdup(st->ccache);
			cJSON_DeleteItemFromObjectCaseSensitive(counts, "log");
			byproducts->v[i].annotations = counts;
		}
	return 0;
}

/*
 * subjects: the artifacts of the variants built; byproducts: their logs,
 * then recipe.json and every other manifest this run wrote, so that a
 * signature over the statement (provenance/review/sign.h) vouches for all of them
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
			if (ab_json_str(it, "log") && add_sum_file(byproducts, wdir(run), ab_json_str(it, "log")) < 0)
				return AB_EFAIL;
		if (ccache_byproduct(byproducts, run, st) < 0)
			return AB_EFAIL;
		if (st->compile_log && add_sum_file(byproducts, wdir(run), st->compile_log) < 0)
			return AB_EFAIL;
	}
	/* the recipe's neighbours the build read, which a bundle carries (builder/inputs.h) */
	for (size_t i = 0; i < run->inputs.n; i++)
		if (add_sum_file(byproducts, wdir(run), run->inputs.v[i]) < 0)
			return AB_EFAIL;
	for (size_t i = 0; i < ab_manifest_nfiles; i++) {
		const char *rel = ab_manifest_files[i].path;
		char *abs;
		int present;

		/*
		 * the statement cannot name itself; SHA256SUMS comes after it;
		 * the records are written after the build, over its statement
		 */
		if (!strcmp(rel, "provenance/provenance.intoto.json") || !strcmp(rel, "SHA256SUMS") ||
		    ab_manifest_files[i].when == AB_MANIFEST_RECORD)
			continue;
		abs = mpath(wdir(run), rel);
		present = ab_path_exists(abs);
		free(abs);
		if (present && add_sum_file(byproducts, wdir(run), rel) < 0)
			return AB_EFAIL;
	}
	return 0;
}

/*
 * The records (AB_MANIFEST_RECORD) that still vouch for this run's
 * artifacts (every subject digest is that of a subject of the run) into
 * kept; the others are removed
 */
static int
keep_records(struct sums *kept, const char *outdir, const struct sums *subjects)
{
	for (size_t i = 0; i < ab_manifest_nfiles; i++) {
		const char *rel = ab_manifest_files[i].path;
		char *abs;
		cJSON *doc = NULL;
		const cJSON *it;
		int ok = 1, e = 0;

		if (ab_manifest_files[i].when != AB_MANIFEST_RECORD)
			continue;
		abs = mpath(outdir, rel);
		if (!ab_path_exists(abs)) {
			free(abs);
			continue;
		}
		ab_report_mute();
		if (ab_json_read(&doc, abs) < 0 || !cJSON_GetArraySize(ab_json_get(doc, "subject")))
			ok = 0;
		ab_report_unmute();
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
	/* every manifest this run wrote (the others were dropped), SHA256SUMS itself not; the records below */
	for (size_t i = 0; i + 1 < ab_manifest_nfiles; i++) {
		const char *rel = ab_manifest_files[i].path;
		char *abs;
		int present;

		if (ab_manifest_files[i].when == AB_MANIFEST_RECORD)
			continue;
		abs = mpath(wdir(run), rel);
		present = ab_path_exists(abs);
		free(abs);
		if (present && add_sum_file(&all, wdir(run), rel) < 0)
			goto done;
	}
	if (keep_records(&all, wdir(run), subjects) < 0)
		goto done;
	for (size_t i = 0; i < all.n; i++)
		ab_hash_line(&b, all.v[i].hex, all.v[i].path);
	/* the runs recorded under runs/ are not the build's: their lines stay (provenance/runs/runrec.h) */
	ab_runrec_sums_carry(&b, wdir(run));
	path = mpath(wdir(run), "SHA256SUMS");
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
	char *prov = mpath(wdir(run), "provenance");
	int error = AB_EFAIL;

	if (ab_mkdir_p(prov, 0755) < 0 || copy_recipe(run) < 0 || write_documents(run) < 0 ||
	    collect_outputs(&subjects, &byproducts, run) < 0)
		goto done;
	if (write_or_drop(wdir(run), "provenance/provenance.intoto.json",
	    statement(run, &subjects, &byproducts)) < 0)
		goto done;
	/* a new statement: envelopes signed over the old one are stale */
	if (ab_manifest_remove_signed(wdir(run)) < 0)
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
	for (size_t i = 0; i < ab_manifest_nfiles; i++)
		if (ab_manifest_files[i].when == AB_MANIFEST_RECORD && !strcmp(ab_manifest_files[i].path, rel))
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
		char *line = ab_strndup(s, n), *hex, *name;

		if (ab_hash_line_parse(line, n, &hex, &name) < 0 || !is_record(name)) {
			ab_buf_add(&b, s, n);
			ab_buf_putc(&b, '\n');
		}
		free(line);
		s += n + (s[n] == '\n');
	}
	for (size_t i = 0; i < ab_manifest_nfiles; i++) {
		const char *r = ab_manifest_files[i].path;
		char *abs;
		char hex[AB_HEX_LEN + 1];
		int e = 0;

		if (ab_manifest_files[i].when != AB_MANIFEST_RECORD)
			continue;
		abs = mpath(outdir, r);
		if (ab_path_exists(abs)) {
			e = ab_hash_file(hex, NULL, abs);
			if (e == 0)
				ab_hash_line(&b, hex, r);
		}
		free(abs);
		if (e < 0)
			goto done;
	}
	/* the envelopes sign the statements as they were: stale now */
	if (ab_write_file_atomic(sums_path, b.s ? b.s : "", b.len) < 0 || ab_manifest_remove_signed(outdir) < 0)
		goto done;
	error = 0;
done:
	ab_buf_free(&old);
	ab_buf_free(&b);
	free(sums_path);
	return error;
}

/* ---- verify ---- */

/* what verify found out about the files of an OUTDIR */
struct verifier {
	FILE *out;
	const char *outdir;
	int rootfd;
	struct sums seen;    /* every file hashed once: its digest, or why it has none */
	struct ab_strv sums; /* the paths SHA256SUMS lists, in order */
	struct ab_strmap listed; /* each of them to its index */
	int bad;             /* problems printed */
};

/* a path as printed: no control character of a hostile name reaches the terminal */
static void
put_path(FILE *out, const char *rel)
{
	char *s = ab_shown(rel);

	fputs(s, out);
	free(s);
}

static void
problem(struct verifier *v, const char *rel, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void
problem(struct verifier *v, const char *rel, const char *fmt, ...)
{
	va_list ap;

	put_path(v->out, rel);
	fputs(": ", v->out);
	va_start(ap, fmt);
	vfprintf(v->out, fmt, ap);
	va_end(ap);
	fputc('\n', v->out);
	v->bad++;
}

/*
 * What a file's hash failing with err says: a missing file (ENOENT), a
 * file of another type (EINVAL, ENOTDIR) or a path leaving OUTDIR (EXDEV,
 * ELOOP) is what the file holds, for the caller to compare; anything else
 * is a failure of the environment (an I/O error).
 */
static int
is_content_errno(int err)
{
	return err == ENOENT || err == EINVAL || err == EXDEV || err == ELOOP || err == ENOTDIR;
}

/* rel's outcome into v->seen: its digest, or (err, why) why it has none */
static struct sum *
seen_add(struct verifier *v, const char *rel, const char *hex, int err, const char *why)
{
	struct sum *s;

	add_sum(&v->seen, rel, err ? "" : hex);
	s = &v->seen.v[v->seen.n - 1];
	if (err)
		s->why = ab_strdup(err == ENOENT ? "missing" : why);
	return s;
}

/*
 * Hash rel below OUTDIR once, through the one resolver (a symlink only
 * inside OUTDIR, no fifo or device read): its sum in v->seen, with why it
 * has no digest. A failure of the environment is reported and AB_EFAIL.
 */
static int
hash_seen(struct sum **out, struct verifier *v, const char *rel)
{
	char hex[AB_HEX_LEN + 1] = "", why[AB_BENEATH_WHY];
	int err = 0;

	if ((*out = find_sum(&v->seen, rel)))
		return 0;
	if (ab_hash_file_beneath(hex, NULL, v->rootfd, rel, 0, why) < 0) {
		err = errno;
		if (!is_content_errno(err)) {
			char *p = ab_path_join(v->outdir, rel);

			ab_error("cannot read '%s': %s", p, why);
			free(p);
			return AB_EFAIL;
		}
	}
	*out = seen_add(v, rel, hex, err, why);
	return 0;
}

/*
 * Hash the files SHA256SUMS lists all at once, on the pool, before they
 * are compared in order: the reads of a cold OUTDIR overlap, and the run
 * records are then in the page cache for check_runs. A failure of the
 * environment is left for hash_seen to meet again, and report, in order.
 */
static void
prefetch_seen(struct verifier *v, const char *const *rels, size_t n)
{
	struct ab_hash_result *res = ab_calloc(n ? n : 1, sizeof(*res));

	ab_hash_files_beneath(res, v->rootfd, rels, n, 0, 0);
	for (size_t i = 0; i < n; i++) {
		if (!find_sum(&v->seen, rels[i]) && (res[i].err == 0 || is_content_errno(res[i].err)))
			seen_add(v, rels[i], res[i].hex, res[i].err, res[i].why);
		free(res[i].why);
	}
	free(res);
}

/*
 * Check one expected digest of a file. A file named again (SHA256SUMS, then
 * the statement's subjects and byproducts) is hashed once, but every
 * expectation is compared with what the file holds: a digest replaced in
 * SHA256SUMS alone must not hide a tampered subject.
 */
static int
check_one(struct verifier *v, const char *rel, const char *want)
{
	struct sum *s;

	if (hash_seen(&s, v, rel) < 0)
		return AB_EFAIL;
	/* a mismatch already printed for the same expectation is not repeated */
	if (s->want && !strcmp(s->want, want))
		return 0;
	if (!s->hex[0])
		problem(v, rel, "expected %s, actual %s", want, s->why);
	else if (strcmp(s->hex, want))
		problem(v, rel, "expected %s, actual %s", want, s->hex);
	free(s->want);
	s->want = ab_strdup(want);
	return 0;
}

/* read a manifest of OUTDIR (bounded, through the resolver); NULL when it cannot be read or parsed */
static cJSON *
read_manifest(struct verifier *v, const char *rel)
{
	int fd = ab_dirwalk_open_beneath(v->rootfd, rel, O_RDONLY | O_NONBLOCK, 0, NULL);
	struct ab_buf b = {0};
	cJSON *doc = NULL;

	if (fd < 0)
		return NULL;
	ab_report_mute();
	if (ab_read_fd_max(&b, fd, rel, AB_READ_MAX) == 0)
		doc = cJSON_ParseWithLength(b.s, b.len);
	ab_report_unmute();
	close(fd);
	ab_buf_free(&b);
	return doc;
}

/*
 * OUTDIR's SHA256SUMS, opened through the resolver (rootfd: OUTDIR, or -1
 * when it could not be opened); -1 reported unless quiet: missing, or why
 * it cannot be read (a symlink leaving OUTDIR, ...)
 */
static int
open_sums(int rootfd, const char *outdir, int quiet)
{
	char why[AB_BENEATH_WHY];
	int fd = rootfd < 0 ? -1 : ab_dirwalk_open_beneath(rootfd, "SHA256SUMS", O_RDONLY | O_NONBLOCK, 0, why);

	if (fd < 0 && !quiet) {
		if (rootfd < 0 || errno == ENOENT) {
			ab_error("'%s' has no SHA256SUMS: not an allocbuild output directory", outdir);
		} else {
			char *p = mpath(outdir, "SHA256SUMS");

			ab_error("cannot read '%s': %s", p, why);
			free(p);
		}
	}
	return fd;
}

/* SHA256SUMS: its files hashed at once, then every line checked in order; its paths in v->sums */
static int
check_sums_file(struct verifier *v, const char *text)
{
	struct ab_strv lines = {0};
	char **rels, **hexes;
	const char **files;
	size_t nfiles = 0;
	int e = 0;

	for (const char *s = text; *s;) {
		size_t n = strcspn(s, "\n");

		ab_strv_push_owned(&lines, ab_strndup(s, n));
		s += n + (s[n] == '\n');
	}
	/* each line's path and digest (lib/hash.h), NULL when malformed; the safe ones hashed at once */
	rels = ab_calloc(lines.n ? lines.n : 1, sizeof(*rels));
	hexes = ab_calloc(lines.n ? lines.n : 1, sizeof(*hexes));
	files = ab_calloc(lines.n ? lines.n : 1, sizeof(*files));
	for (size_t i = 0; i < lines.n; i++) {
		if (ab_hash_line_parse(lines.v[i], strlen(lines.v[i]), &hexes[i], &rels[i]) < 0)
			rels[i] = NULL;
		else if (ab_path_is_safe_relative(rels[i]))
			files[nfiles++] = rels[i];
	}
	prefetch_seen(v, files, nfiles);
	free(files);
	for (size_t i = 0; i < lines.n && e == 0; i++) {
		char *l = hexes[i], *where = ab_sprintf("SHA256SUMS:%zu", i + 1);
		const char *rel = rels[i];

		if (!rel) {
			problem(v, where, "malformed line");
		} else if (!ab_path_is_safe_relative(rel)) {
			char *p = ab_shown(rel);

			problem(v, where, "unsafe path '%s' (absolute or with '..')", p);
			free(p);
		} else if (ab_strmap_get(&v->listed, rel, NULL)) {
			char *p = ab_shown(rel);

			problem(v, where, "'%s' is listed twice", p);
			free(p);
		} else {
			ab_strv_push(&v->sums, rel);
			ab_strmap_put(&v->listed, v->sums.v[v->sums.n - 1], v->sums.n - 1);
			e = check_one(v, rel, l);
		}
		free(where);
	}
	free(rels);
	free(hexes);
	ab_strv_free(&lines);
	return e;
}

/* the statement's subjects and byproducts, each checked against the file; their names into names */
static int
check_statement(struct verifier *v, const cJSON *stmt, struct ab_strv *names)
{
	const cJSON *lists[2], *it;

	lists[0] = ab_json_get(stmt, "subject");
	lists[1] = ab_json_get(ab_json_get(ab_json_get(stmt, "predicate"), "runDetails"), "byproducts");
	for (int k = 0; k < 2; k++)
		cJSON_ArrayForEach(it, lists[k]) {
			const char *name = ab_json_str(it, "name"), *want = ab_json_str(ab_json_get(it, "digest"), "sha256");

			if (!name || !want || !ab_is_hex(want, AB_HEX_LEN) || !ab_path_is_safe_relative(name)) {
				problem(v, AB_MANIFEST_STATEMENT, "malformed %s", k ? "byproduct" : "subject");
				continue;
			}
			ab_strv_push(names, name);
			if (check_one(v, name, want) < 0)
				return AB_EFAIL;
		}
	return 0;
}

/* the files present under OUTDIR/provenance (anything but directories), as OUTDIR-relative paths */
static int
present_visit(struct ab_dirwalk_entry *e, void *arg)
{
	if (e->type == DT_DIR)
		return AB_DIRWALK_DESCEND;
	ab_strv_pushf(arg, "provenance/%s", e->path);
	return 0;
}

/* the files present under OUTDIR/runs: every one must be a run's (provenance/runs/runrec.h) */
static int
present_run_visit(struct ab_dirwalk_entry *e, void *arg)
{
	if (e->type == DT_DIR)
		return AB_DIRWALK_DESCEND;
	ab_strv_pushf(arg, AB_RUN_DIR "/%s", e->path);
	return 0;
}

static int
present_runs(struct ab_strv *present, struct verifier *v)
{
	char *runs = mpath(v->outdir, AB_RUN_DIR);
	struct stat st;
	int e = 0;

	if (fstatat(v->rootfd, AB_RUN_DIR, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (S_ISDIR(st.st_mode))
			e = ab_dirwalk(runs, present_run_visit, present);
		else
			ab_strv_push(present, AB_RUN_DIR);
	}
	free(runs);
	return e;
}

/*
 * The run records SHA256SUMS lists: each a run Statement whose subject
 * and byproducts hold what it says, and a run of one of this OUTDIR's
 * builds (ab_runrec_builds: not a record copied from another OUTDIR whose
 * artifacts have the same bytes); what they name into names
 */
static int
check_runs(struct verifier *v, struct ab_strv *names)
{
	struct ab_strv builds = {0};
	cJSON *build = read_manifest(v, AB_MANIFEST_STATEMENT);
	int rc = 0;

	/* an unreadable statement is a problem of its own */
	ab_runrec_builds(&builds, build);
	cJSON_Delete(build);
	for (size_t i = 0; i < v->sums.n && rc == 0; i++) {
		const char *rel = v->sums.v[i];
		struct ab_strv n = {0}, h = {0};
		size_t nsubj;
		cJSON *stmt;
		char *why;
		int e = 0;

		if (!ab_runrec_is_statement(rel))
			continue;
		stmt = read_manifest(v, rel);
		if (!stmt || !ab_json_str(stmt, "predicateType") || strcmp(ab_json_str(stmt, "predicateType"), AB_RUN_PREDICATE)) {
			problem(v, rel, "not a readable run record");
			cJSON_Delete(stmt);
			continue;
		}
		if ((why = ab_runrec_foreign(stmt, &builds))) {
			problem(v, rel, "%s", why);
			free(why);
		}
		ab_runrec_named(&n, &h, stmt);
		nsubj = (size_t)cJSON_GetArraySize(ab_json_get(stmt, "subject"));
		for (size_t j = 0; j < n.n && e == 0; j++) {
			struct sum *seen;

			if (!ab_path_is_safe_relative(n.v[j]) || !ab_is_hex(h.v[j], AB_HEX_LEN)) {
				problem(v, rel, "malformed subject or byproduct");
				continue;
			}
			ab_strv_push(names, n.v[j]);
			if (j >= nsubj) {
				e = check_one(v, n.v[j], h.v[j]);
				continue;
			}
			/* the artifact the run ran: a later build may have replaced it */
			if ((e = hash_seen(&seen, v, n.v[j])) == 0 && strcmp(seen->hex, h.v[j]))
				problem(v, rel, "ran '%s' with sha256 %s, which is now %s", n.v[j], h.v[j],
				    seen->hex[0] ? seen->hex : seen->why);
		}
		ab_strv_free(&n);
		ab_strv_free(&h);
		cJSON_Delete(stmt);
		if (e < 0)
			rc = e;
	}
	ab_strv_free(&builds);
	return rc;
}

static int
present_files(struct ab_strv *present, struct verifier *v)
{
	char *prov = mpath(v->outdir, "provenance");
	int e = 0;

	for (size_t i = 0; i < ab_manifest_nfiles; i++) {
		struct stat st;

		if (strncmp(ab_manifest_files[i].path, "provenance/", 11) &&
		    fstatat(v->rootfd, ab_manifest_files[i].path, &st, AT_SYMLINK_NOFOLLOW) == 0)
			ab_strv_push(present, ab_manifest_files[i].path);
	}
	if (ab_is_dir(prov))
		e = ab_dirwalk(prov, present_visit, present);
	free(prov);
	if (e >= 0)
		e = present_runs(present, v);
	return e < 0 ? AB_EFAIL : 0;
}

/* does the build that build-commands.json describes write the manifest m? */
static int
manifest_expected(const struct ab_manifest_file *m, const cJSON *commands)
{
	const cJSON *it;

	if (m->when == AB_MANIFEST_ALWAYS)
		return 1;
	cJSON_ArrayForEach(it, ab_json_get(commands, "variants")) {
		const char *kind = ab_json_str(it, "kind");
		const cJSON *al = ab_json_get(ab_json_get(it, "definition"), "allocator");

		if (!cJSON_IsTrue(ab_json_get(it, "ok")) || !kind)
			continue;
		if ((m->when == AB_MANIFEST_CMAKE && !strcmp(kind, "cmake")) ||
		    (m->when == AB_MANIFEST_RELINK && !strcmp(kind, "relink")) ||
		    (m->when == AB_MANIFEST_UPDIFF && ab_json_str(al, "vendored") && ab_json_str(al, "upstream")))
			return 1;
	}
	return 0;
}

static int
is_manifest(const char *rel)
{
	for (size_t i = 0; i < ab_manifest_nfiles; i++)
		if (!strcmp(ab_manifest_files[i].path, rel))
			return 1;
	return 0;
}

/* is rel a manifest that the build build-commands.json describes writes (SHA256SUMS aside)? */
static int
expected_manifest(const char *rel, const cJSON *commands)
{
	for (size_t i = 0; i + 1 < ab_manifest_nfiles; i++)
		if (!strcmp(ab_manifest_files[i].path, rel))
			return manifest_expected(&ab_manifest_files[i], commands);
	return 0;
}

int
ab_manifest_check_listing(FILE *out, const struct ab_manifest_listing *l)
{
	struct verifier v = {.out = out};
	struct ab_strv stated = {0};
	struct ab_strmap in_stated = {0}, in_sums = {0}, in_run_named = {0};
	const cJSON *it, *lists[2];

	lists[0] = ab_json_get(l->statement, "subject");
	lists[1] = ab_json_get(ab_json_get(ab_json_get(l->statement, "predicate"), "runDetails"), "byproducts");
	for (int k = 0; k < 2; k++)
		cJSON_ArrayForEach(it, lists[k])
			if (ab_json_str(it, "name"))
				ab_strv_push(&stated, ab_json_str(it, "name"));
	/* the lists grow with the runs recorded: each is looked up through an index */
	ab_strmap_of_strv(&in_stated, &stated);
	ab_strmap_of_strv(&in_sums, l->sums);
	/* SHA256SUMS and the statement agree on the set, both ways (manifests are SHA256SUMS's alone) */
	if (l->statement) {
		for (size_t i = 0; i < l->sums->n; i++)
			if (!is_manifest(l->sums->v[i]) && !ab_strmap_get(&in_stated, l->sums->v[i], NULL) &&
			    !ab_runrec_is_run_file(l->sums->v[i]))
				problem(&v, l->sums->v[i], "listed in SHA256SUMS but not in the statement");
		for (size_t i = 0; i < stated.n; i++)
			if (!ab_strmap_get(&in_sums, stated.v[i], NULL))
				problem(&v, stated.v[i], "in the statement but not listed in SHA256SUMS");
	}
	/* the files of runs are the run records' and theirs: each listed file under runs/ recorded by one */
	if (l->run_named) {
		ab_strmap_of_strv(&in_run_named, l->run_named);
		for (size_t i = 0; i < l->sums->n; i++)
			if (ab_runrec_is_run_file(l->sums->v[i]) && !ab_runrec_is_statement(l->sums->v[i]) &&
			    !ab_strmap_get(&in_run_named, l->sums->v[i], NULL))
				problem(&v, l->sums->v[i], "listed in SHA256SUMS but recorded by no run");
		for (size_t i = 0, first; i < l->run_named->n; i++)
			/* a name the runs give twice is reported once */
			if (!ab_strmap_get(&in_sums, l->run_named->v[i], NULL) &&
			    ab_strmap_get(&in_run_named, l->run_named->v[i], &first) && first == i)
				problem(&v, l->run_named->v[i], "named by a run record but not listed in SHA256SUMS");
	}
	/* every manifest the build writes, and every file present, is listed */
	for (size_t i = 0; i + 1 < ab_manifest_nfiles; i++)
		if (!ab_strmap_get(&in_sums, ab_manifest_files[i].path, NULL) &&
		    manifest_expected(&ab_manifest_files[i], l->commands))
			problem(&v, ab_manifest_files[i].path, "a manifest of this build, not listed in SHA256SUMS");
	for (size_t i = 0; i < l->present->n; i++) {
		const char *p = l->present->v[i];

		/*
		 * an expected manifest missing from SHA256SUMS was named just
		 * above; the envelopes, signers.json and the in-toto links are
		 * sign's, written after the build, and checked on their own
		 * (provenance/review/sign.h, in-toto-verify)
		 */
		if (!strcmp(p, "SHA256SUMS") || ab_strmap_get(&in_sums, p, NULL) || expected_manifest(p, l->commands) ||
		    !strcmp(p, AB_MANIFEST_ENVELOPES) || !strcmp(p, AB_MANIFEST_SIGNERS) || ab_intoto_is_link(p))
			continue;
		problem(&v, p, "not listed in SHA256SUMS: not a file this build %s", ab_runrec_is_run_file(p) ?
		    "or a run recorded" : "recorded");
	}
	ab_strv_free(&stated);
	ab_strmap_free(&in_stated);
	ab_strmap_free(&in_sums);
	ab_strmap_free(&in_run_named);
	return v.bad;
}

int
ab_manifest_verify(FILE *out, const char *outdir)
{
	return ab_manifest_verify_seen(out, outdir, NULL, NULL);
}

int
ab_manifest_verify_seen(FILE *out, const char *outdir, struct ab_strv *names, struct ab_strv *hexes)
{
	struct verifier v = {.out = out, .outdir = outdir, .rootfd = -1};
	struct ab_strv stated = {0}, present = {0}, run_named = {0};
	struct ab_buf b = {0};
	cJSON *stmt = NULL, *commands = NULL;
	int error = AB_EFAIL, fd;

	v.rootfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (v.rootfd < 0) {
		ab_error_errno("cannot open '%s'", outdir);
		goto done;
	}
	if ((fd = open_sums(v.rootfd, outdir, 0)) < 0)
		goto done;
	{
		char *name = mpath(outdir, "SHA256SUMS");
		int e = ab_read_fd_max(&b, fd, name, AB_READ_MAX);

		free(name);
		close(fd);
		if (e < 0)
			goto done;
	}
	if (check_sums_file(&v, b.s) < 0)
		goto done;
	/* the statement's subjects and byproducts too, in case SHA256SUMS was rewritten */
	stmt = read_manifest(&v, AB_MANIFEST_STATEMENT);
	if (!ab_statement_is(stmt, 0)) {
		problem(&v, AB_MANIFEST_STATEMENT, "not a readable in-toto statement");
		cJSON_Delete(stmt);
		stmt = NULL;
	} else if (check_statement(&v, stmt, &stated) < 0) {
		goto done;
	}
	commands = read_manifest(&v, "provenance/build-commands.json");
	if (check_runs(&v, &run_named) < 0 || present_files(&present, &v) < 0)
		goto done;
	{
		struct ab_manifest_listing l = {.sums = &v.sums, .statement = stmt, .commands = commands,
		    .present = &present, .run_named = &run_named};

		v.bad += ab_manifest_check_listing(out, &l);
	}
	if (!v.bad)
		fprintf(out, "verified %zu files in %s\n", v.seen.n, outdir);
	error = v.bad ? AB_ECHECK : 0;
	for (size_t i = 0; names && hexes && i < v.seen.n; i++)
		if (!v.seen.v[i].why && v.seen.v[i].hex[0]) {
			ab_strv_push(names, v.seen.v[i].path);
			ab_strv_push(hexes, v.seen.v[i].hex);
		}
done:
	if (v.rootfd >= 0)
		close(v.rootfd);
	cJSON_Delete(stmt);
	cJSON_Delete(commands);
	free_sums(&v.seen);
	ab_strv_free(&v.sums);
	ab_strmap_free(&v.listed);
	ab_strv_free(&stated);
	ab_strv_free(&present);
	ab_strv_free(&run_named);
	ab_buf_free(&b);
	return error;
}

/* ---- what the last build recorded ---- */

int
ab_manifest_recorded_read(struct ab_manifest_recorded *r, const char *outdir, int quiet)
{
	struct verifier v = {.outdir = outdir};
	struct ab_buf b = {0};
	cJSON *stmt = NULL;
	const cJSON *it;
	int error = AB_EFAIL, fd = -1;

	memset(r, 0, sizeof(*r));
	v.rootfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if ((fd = open_sums(v.rootfd, outdir, quiet)) < 0)
		goto done;
	if (quiet)
		ab_report_mute();
	error = ab_read_fd_max(&b, fd, "SHA256SUMS", AB_READ_MAX);
	if (quiet)
		ab_report_unmute();
	close(fd);
	if (error < 0)
		goto done;
	error = AB_EFAIL;
	for (const char *s = b.s; *s;) {
		size_t n = strcspn(s, "\n");
		char *line = ab_strndup(s, n), *hex, *name;

		if (ab_hash_line_parse(line, n, &hex, &name) == 0) {
			ab_strv_push(&r->hexes, hex);
			ab_strv_push(&r->paths, name);
		}
		free(line);
		s += n + (s[n] == '\n');
	}
	if (!(stmt = read_manifest(&v, AB_MANIFEST_STATEMENT))) {
		if (!quiet)
			ab_error("'%s/%s' is not a readable in-toto statement", outdir, AB_MANIFEST_STATEMENT);
		goto done;
	}
	cJSON_ArrayForEach(it, ab_json_get(stmt, "subject")) {
		const char *name = ab_json_str(it, "name"), *hex = ab_json_str(ab_json_get(it, "digest"), "sha256");

		if (name && hex) {
			ab_strv_push(&r->subjects, name);
			ab_strv_push(&r->subject_hexes, hex);
		}
	}
	error = 0;
done:
	if (v.rootfd >= 0)
		close(v.rootfd);
	cJSON_Delete(stmt);
	ab_buf_free(&b);
	if (error < 0)
		ab_manifest_recorded_release(r);
	return error;
}

const char *
ab_manifest_recorded_subject(const struct ab_manifest_recorded *r, const char *path)
{
	const char *a = NULL, *b = NULL;

	for (size_t i = 0; i < r->paths.n && !a; i++)
		if (!strcmp(r->paths.v[i], path))
			a = r->hexes.v[i];
	for (size_t i = 0; i < r->subjects.n && !b; i++)
		if (!strcmp(r->subjects.v[i], path))
			b = r->subject_hexes.v[i];
	return a && b && !strcmp(a, b) ? a : NULL;
}

void
ab_manifest_recorded_release(struct ab_manifest_recorded *r)
{
	ab_strv_free(&r->paths);
	ab_strv_free(&r->hexes);
	ab_strv_free(&r->subjects);
	ab_strv_free(&r->subject_hexes);
}

/* ---- the last run, for the next one's up-to-date check ---- */

struct ab_manifest_last {
	struct ab_manifest_recorded rec;
	int tampered;    /* a manifest does not hold what SHA256SUMS says: nothing is trusted */
	int statement;   /* the statement is listed and holds what SHA256SUMS says */
	cJSON *commands, *probes, *updiff, *relink, *cmake; /* NULL when not recorded */
};

/* a manifest that SHA256SUMS lists, if it holds what SHA256SUMS says (else l->tampered); NULL when not listed */
static cJSON *
last_doc(struct ab_manifest_last *l, const char *outdir, const char *rel)
{
	struct verifier v = {.outdir = outdir};
	char hex[AB_HEX_LEN + 1];
	cJSON *doc = NULL;
	size_t i;

	for (i = 0; i < l->rec.paths.n && strcmp(l->rec.paths.v[i], rel); i++)
		;
	if (i == l->rec.paths.n)
		return NULL;
	v.rootfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (v.rootfd < 0 || ab_hash_file_beneath(hex, NULL, v.rootfd, rel, 0, NULL) < 0 ||
	    strcmp(hex, l->rec.hexes.v[i]) || !(doc = read_manifest(&v, rel)))
		l->tampered = 1;
	if (v.rootfd >= 0)
		close(v.rootfd);
	return doc;
}

struct ab_manifest_last *
ab_manifest_last_load(const char *outdir)
{
	struct ab_manifest_last *l = ab_calloc(1, sizeof(*l));
	cJSON *stmt;

	if (ab_manifest_recorded_read(&l->rec, outdir, 1) < 0) {
		free(l);
		return NULL;
	}
	stmt = last_doc(l, outdir, AB_MANIFEST_STATEMENT);
	l->statement = stmt != NULL;
	cJSON_Delete(stmt);
	l->commands = last_doc(l, outdir, "provenance/build-commands.json");
	l->probes = last_doc(l, outdir, "provenance/allocator-probes.json");
	l->updiff = last_doc(l, outdir, "provenance/upstream-diff.json");
	l->relink = last_doc(l, outdir, "provenance/relink-provenance.json");
	l->cmake = last_doc(l, outdir, "provenance/cmake-cache-provenance.json");
	return l;
}

/* the entry of label in a manifest's "variants": an object keyed by label, or an array of {label} */
static const cJSON *
last_entry(const cJSON *doc, const char *label)
{
	const cJSON *vs = ab_json_get(doc, "variants"), *it;

	if (cJSON_IsObject(vs))
		return ab_json_get(vs, label);
	cJSON_ArrayForEach(it, vs)
		if (ab_json_str(it, "label") && !strcmp(ab_json_str(it, "label"), label))
			return it;
	return NULL;
}

/* both absent, or equal */
static int
same_doc(const cJSON *a, const cJSON *b)
{
	return (!a && !b) || (a && b && cJSON_Compare(a, b, 1));
}

int
ab_manifest_last_has(const struct ab_manifest_last *l, const struct ab_variant_record *v)
{
	const cJSON *cmd, *probe;
	cJSON *none, *mine;
	int same;

	if (!l || l->tampered || !l->statement || !l->commands)
		return 0;
	for (size_t i = 0; i < v->nartifacts; i++) {
		const char *hex = ab_manifest_recorded_subject(&l->rec, v->artifacts[i].path);

		if (!hex || strcmp(hex, v->artifacts[i].sha256))
			return 0;
	}
	cmd = last_entry(l->commands, v->label);
	if (!cmd || !cJSON_IsTrue(ab_json_get(cmd, "ok")) || !ab_json_str(cmd, "key") ||
	    strcmp(ab_json_str(cmd, "key"), v->key))
		return 0;
	none = cJSON_CreateArray();
	same = same_doc(ab_json_get(cmd, "steps"), v->steps ? v->steps : none);
	cJSON_Delete(none);
	probe = ab_json_get(last_entry(l->probes, v->label), "probe");
	mine = ab_probe_result_json(v->probe);
	same = same && same_doc(probe, mine);
	cJSON_Delete(mine);
	return same && same_doc(last_entry(l->updiff, v->label), v->upstream_diff) &&
	    same_doc(last_entry(l->relink, v->label), v->relink) && same_doc(last_entry(l->cmake, v->label), v->cmake);
}

void
ab_manifest_last_free(struct ab_manifest_last *l)
{
	if (!l)
		return;
	ab_manifest_recorded_release(&l->rec);
	cJSON_Delete(l->commands);
	cJSON_Delete(l->probes);
	cJSON_Delete(l->updiff);
	cJSON_Delete(l->relink);
	cJSON_Delete(l->cmake);
	free(l);
}

/* ---- env ---- */

/*
 * A manifest of OUTDIR; with checked, only when it holds what SHA256SUMS
 * says (AB_ECHECK, reported, otherwise). *doc is NULL when it is absent
 * and not required.
 */
static int
runtime_doc(cJSON **doc, const char *outdir, const char *rel, int checked, int required)
{
	char *path = mpath(outdir, rel);
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
		abs = mpath(outdir, rel);
		if (!rt->program && is_executable_file(abs)) {
			rt->program = ab_path_absolute(abs);
			subject = it;
		}
		free(abs);
	}
	cJSON_ArrayForEach(it, arts)
		if (cJSON_IsTrue(ab_json_get(it, "allocator_archive")) && ab_json_str(it, "path") &&
		    ab_path_is_safe_relative(ab_json_str(it, "path"))) {
			if (!rt->archive) {
				char *abs = mpath(outdir, ab_json_str(it, "path"));

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
		ab_error("'%s' has no built variant '%s'", outdir, label);
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
		const char *bin = ab_json_str(st, "binary"), *label = ab_json_str(st, "label");
		struct ab_manifest_runtime rt;

		if (bin && label) {
			fprintf(out, "%s=%s\n", label, bin);
			continue;
		}
		/* an archive-only variant: no line a driver would run, a comment that names the archive */
		if (!label || ab_manifest_runtime(&rt, outdir, label, NULL, 0) < 0)
			continue;
		fprintf(out, "# %s: no program artifact", label);
		if (rt.archive)
			fprintf(out, "; its allocator archive: ALLOCBUILD_ARCHIVE=%s", rt.archive);
		fputc('\n', out);
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
		ab_error("'%s' has no built variant '%s'", outdir, label);
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
