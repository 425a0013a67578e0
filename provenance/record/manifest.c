/*
 * manifest: the manifests a build writes into its OUTDIR: the recipe as
 * built, the documents other modules shaped (sources.json,
 * cmake-cache-provenance.json), build-commands.json,
 * binary-provenance.json, allocator-probes.json, upstream-diff.json,
 * relink-provenance.json, the in-toto statement and SHA256SUMS last; a
 * record added after the build (build --check, rebuild); the signed
 * envelopes removed when they go stale. With the helpers that the
 * manifest_*.c beside it share (manifest_impl.h): verify
 * (manifest_verify.c), what the last build recorded (manifest_last.c), a
 * label's runtime environment (manifest_env.c).
 */
#include "manifest.h"
#include "bundle.h"
#include "manifest_impl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/atomic.h"
#include "../../lib/dirwalk.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/places.h"
#include "../../lib/strmap.h"
#include "../../lib/util.h"
#include "../../lib/version.h"
#include "../attest/intoto.h"
#include "../attest/statement.h"
#include "../runs/runrec.h"
#include "toolchain.h"

/* ---- helpers ---- */

static cJSON *
jdup(const cJSON *o)
{
	return o ? cJSON_Duplicate(o, 1) : cJSON_CreateNull();
}

char *
ab_manifest_path(const char *outdir, const char *rel)
{
	return ab_path_join(outdir, rel);
}

/*
 * What is published names no place of the author's machine: the run's
 * OUTDIR (the one the records name; a merge writes them elsewhere first),
 * the current directory, HOME, and those of the builds that made its
 * records (a shard's, a copied OUTDIR's). Without a run (a record added
 * later), the places of OUTDIR dir.
 */
static int
write_manifest(const char *dir, const char *rel, const cJSON *doc, const struct ab_run_record *run)
{
	char *path = ab_manifest_path(dir, rel);
	cJSON *shown = cJSON_Duplicate(doc, 1);
	size_t n = 1 + (run ? run->nvariants : 0);
	struct ab_places *ps = ab_calloc(n, sizeof(*ps));
	int e;

	ab_places_init(&ps[0], run ? run->outdir : dir);
	for (size_t i = 1; i < n; i++)
		ps[i] = run->variants[i - 1].places; /* borrowed */
	ab_places_hide_json(ps, n, shown);
	e = ab_json_write(path, shown);
	ab_places_release(&ps[0]);
	free(ps);
	cJSON_Delete(shown);
	free(path);
	return e;
}

int
ab_manifest_is_executable(const char *path)
{
	struct stat st;
	size_t n = strlen(path);

	if (n > 2 && !strcmp(path + n - 2, ".a"))
		return 0;
	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & 0111);
}

int
ab_manifest_mode_exec(mode_t mode)
{
	return S_ISREG(mode) && (mode & S_IXUSR);
}

const char *
ab_manifest_mode_name(int exec)
{
	return exec ? "0755" : "0644";
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
		char *abs = ab_manifest_path(wdir(run), v->artifacts[i].path);
		int x = ab_manifest_is_executable(abs);

		free(abs);
		if (x)
			return ab_manifest_path(run->outdir, v->artifacts[i].path);
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

/* path's entry, or NULL */
struct sum *
ab_manifest_find_sum(const struct sums *s, const char *path)
{
	size_t i;

	return ab_strmap_get(&s->index, path, &i) ? &s->v[i] : NULL;
}

void
ab_manifest_add_sum(struct sums *s, const char *path, const char *hex)
{
	if (ab_manifest_find_sum(s, path))
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
		ab_manifest_add_sum(s, rel, hex);
		return 0;
	}
	{
		char *abs = ab_manifest_path(outdir, rel);

		ab_error("cannot hash '%s': %s", abs, why);
		free(abs);
	}
	return AB_EFAIL;
}

void
ab_manifest_free_sums(struct sums *s)
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
		if (st->derived_from)
			cJSON_AddStringToObject(v, "derived_from", st->derived_from);
		if (st->objects)
			cJSON_AddItemToObject(v, "objects", jdup(st->objects));
		if (st->toolchain.present)
			cJSON_AddItemToObject(v, "toolchain", ab_toolchain_json(&st->toolchain));
		cJSON_AddItemToObject(v, "steps", st->steps ? jdup(st->steps) : cJSON_CreateArray());
		if (st->cargo)
			cJSON_AddItemToObject(v, "cargo", ab_cargo_record_json(st->cargo));
		if (st->ccache)
			cJSON_AddItemToObject(v, "ccache", jdup(st->ccache));
		cJSON_AddItemToArray(vars, v);
	}
	if (run->object_comparison)
		cJSON_AddItemToObject(doc, "object_comparison", jdup(run->object_comparison));
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
	if (st->derived_from)
		cJSON_AddStringToObject(v, "derived_from", st->derived_from);
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

/*
 * [{label, ...a payload}] of each ok variant, in plan order, under
 * "variants" (version 2; version 1 keyed them by label in an object);
 * NULL when no variant has one
 */
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
			cJSON_ReplaceItemInObjectCaseSensitive(doc, "version", cJSON_CreateNumber(AB_MANIFEST_PER_VARIANT_VERSION));
			vars = cJSON_AddArrayToObject(doc, "variants");
		}
		cJSON_AddItemToArray(vars, ab_json_labelled(st->label, payload(st)));
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
	/* build --derive: the variants whose build started from another's finished trees */
	keys = NULL;
	for (size_t i = 0; i < run->nvariants; i++)
		if (run->variants[i].ok && run->variants[i].derived_from) {
			if (!keys)
				keys = cJSON_AddObjectToObject(intp, "derivedFrom");
			cJSON_AddStringToObject(keys, run->variants[i].label, run->variants[i].derived_from);
		}
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
	/* and the Statements sign writes with them: the runs' test results and the SBOM (provenance/record/bundle.h) */
	{
		static const char *const dirs[] = {AB_TEST_RESULTS, AB_SBOM_DIR};

		for (size_t i = 0; i < AB_NELEM(dirs); i++) {
			char *path = ab_path_join(outdir, dirs[i]);
			int e = ab_rm_rf(path);

			free(path);
			if (e < 0)
				return AB_EFAIL;
		}
	}
	return ab_intoto_remove(outdir);
}

/* remove a manifest that this run does not produce, so no stale one survives */
static int
drop(const char *outdir, const char *rel)
{
	char *path = ab_manifest_path(outdir, rel);
	int e = 0;

	if (unlink(path) < 0 && errno != ENOENT) {
		ab_error_errno("cannot remove '%s'", path);
		e = AB_EFAIL;
	}
	free(path);
	return e;
}

/* write doc (taken) to dir/rel as run's (write_manifest), or remove dir/rel when doc is NULL */
static int
write_or_drop(const char *dir, const char *rel, cJSON *doc, const struct ab_run_record *run)
{
	int e = doc ? write_manifest(dir, rel, doc, run) : drop(dir, rel);

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
	path = ab_manifest_path(wdir(run), "recipe.json");
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
		if (!ab_path_is_safe_relative(it->string) || write_manifest(out, it->string, it, run) < 0)
			return AB_EFAIL;
	if (!ab_json_get(run->documents, "provenance/cmake-cache-provenance.json") &&
	    drop(out, "provenance/cmake-cache-provenance.json") < 0)
		return AB_EFAIL;
	if (write_or_drop(out, "provenance/build-commands.json", commands_doc(run), run) < 0 ||
	    write_or_drop(out, "provenance/binary-provenance.json", binary_doc(run), run) < 0 ||
	    write_or_drop(out, "provenance/allocator-probes.json", probes_doc(run), run) < 0 ||
	    write_or_drop(out, "provenance/upstream-diff.json",
		per_variant(run, "https://allocbuild.dev/upstream-diff/v1", upstream_diff_of), run) < 0 ||
	    write_or_drop(out, "provenance/relink-provenance.json",
		per_variant(run, "https://allocbuild.dev/relink-provenance/v1", relink_of), run) < 0)
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

/* the mode of inputs/'s file rel (AB_MANIFEST_MODE), as its byproduct's annotation */
static int
input_mode(struct sums *byproducts, const char *outdir, const char *rel)
{
	struct sum *e = ab_manifest_find_sum(byproducts, rel);
	char *abs = ab_manifest_path(outdir, rel);
	struct stat st;
	int rc = lstat(abs, &st);

	if (rc < 0)
		ab_error_errno("cannot read '%s'", abs);
	free(abs);
	if (rc < 0)
		return AB_EFAIL;
	if (e && !e->annotations) {
		e->annotations = cJSON_CreateObject();
		cJSON_AddStringToObject(e->annotations, AB_MANIFEST_MODE,
		    ab_manifest_mode_name(ab_manifest_mode_exec(st.st_mode)));
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
		struct ab_strv logs = {0};
		int e = 0;

		if (!st->ok)
			continue;
		for (size_t k = 0; k < st->nartifacts; k++)
			ab_manifest_add_sum(subjects, st->artifacts[k].path, st->artifacts[k].sha256);
		ab_variant_record_step_logs(st, &logs);
		for (size_t k = 0; k < logs.n && !e; k++)
			e = add_sum_file(byproducts, wdir(run), logs.v[k]);
		ab_strv_free(&logs);
		if (e < 0)
			return AB_EFAIL;
		if (ccache_byproduct(byproducts, run, st) < 0)
			return AB_EFAIL;
		if (st->compile_log && add_sum_file(byproducts, wdir(run), st->compile_log) < 0)
			return AB_EFAIL;
	}
	/* the recipe's neighbours the build read, which a bundle carries (builder/inputs.h), with their modes */
	for (size_t i = 0; i < run->inputs.n; i++)
		if (add_sum_file(byproducts, wdir(run), run->inputs.v[i]) < 0 ||
		    input_mode(byproducts, wdir(run), run->inputs.v[i]) < 0)
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
		abs = ab_manifest_path(wdir(run), rel);
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
		abs = ab_manifest_path(outdir, rel);
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
		ab_manifest_add_sum(&all, subjects->v[i].path, subjects->v[i].hex);
	for (size_t i = 0; i < byproducts->n; i++)
		ab_manifest_add_sum(&all, byproducts->v[i].path, byproducts->v[i].hex);
	/* every manifest this run wrote (the others were dropped), SHA256SUMS itself not; the records below */
	for (size_t i = 0; i + 1 < ab_manifest_nfiles; i++) {
		const char *rel = ab_manifest_files[i].path;
		char *abs;
		int present;

		if (ab_manifest_files[i].when == AB_MANIFEST_RECORD)
			continue;
		abs = ab_manifest_path(wdir(run), rel);
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
	path = ab_manifest_path(wdir(run), "SHA256SUMS");
	e = ab_write_file_atomic(path, b.s ? b.s : "", b.len);
	free(path);
done:
	ab_manifest_free_sums(&all);
	ab_buf_free(&b);
	return e;
}

int
ab_manifest_write(const struct ab_run_record *run)
{
	struct sums subjects = {0}, byproducts = {0};
	char *prov = ab_manifest_path(wdir(run), "provenance");
	int error = AB_EFAIL;

	if (ab_mkdir_p(prov, 0755) < 0 || copy_recipe(run) < 0 || write_documents(run) < 0 ||
	    collect_outputs(&subjects, &byproducts, run) < 0)
		goto done;
	if (write_or_drop(wdir(run), "provenance/provenance.intoto.json",
	    statement(run, &subjects, &byproducts), run) < 0)
		goto done;
	/* a new statement: envelopes signed over the old one are stale */
	if (ab_manifest_remove_signed(wdir(run)) < 0)
		goto done;
	error = write_sums(run, &subjects, &byproducts);
done:
	ab_manifest_free_sums(&subjects);
	ab_manifest_free_sums(&byproducts);
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
	char *sums_path = ab_manifest_path(outdir, "SHA256SUMS");
	struct ab_buf old = {0}, b = {0};
	int error = AB_EFAIL;

	if (!is_record(rel)) {
		ab_error("'%s' is not a record of an OUTDIR", rel);
		goto done;
	}
	if (write_manifest(outdir, rel, doc, NULL) < 0 || ab_read_file(&old, sums_path) < 0)
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
		abs = ab_manifest_path(outdir, r);
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
