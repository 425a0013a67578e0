#include "manifest.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/util.h"
#include "../lib/hash.h"
#include "../lib/jsonio.h"
#include "sign.h"

/* ---- version strings embedded in binaries ---- */

static int
is_version_char(int c)
{
	return isalnum(c) || c == '_';
}

/* does p[0..n) hold "X.Y.Z-N-g" ending right before p + n? returns its start or NULL */
static const char *
version_start(const char *base, const char *g)
{
	const char *s = g; /* points at '-' of "-g" */
	int dots = 0;

	/* N */
	if (s <= base || !isdigit((unsigned char)s[-1]))
		return NULL;
	while (s > base && isdigit((unsigned char)s[-1]))
		s--;
	if (s <= base || s[-1] != '-')
		return NULL;
	s--;
	/* X.Y.Z */
	for (;;) {
		const char *e = s;

		while (s > base && isdigit((unsigned char)s[-1]))
			s--;
		if (s == e)
			return NULL;
		if (dots == 2)
			break;
		if (s <= base || s[-1] != '.')
			return NULL;
		s--;
		dots++;
	}
	/* not the tail of a longer token */
	if (s > base && (isalnum((unsigned char)s[-1]) || s[-1] == '.'))
		return NULL;
	return s;
}

int
ab_manifest_scan_version(char **version, const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	const char *m, *p, *end;

	*version = NULL;
	if (fd < 0) {
		ab_error_errno("cannot open '%s'", path);
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		ab_error_errno("cannot stat '%s'", path);
		close(fd);
		return -1;
	}
	if (st.st_size == 0) {
		close(fd);
		return 0;
	}
	m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED) {
		ab_error_errno("cannot map '%s'", path);
		return -1;
	}
	end = m + st.st_size;
	for (p = m; p + 2 < end && !*version; p++) {
		const char *g = memchr(p, '-', (size_t)(end - p));
		const char *s, *e;

		if (!g || g + 2 >= end)
			break;
		p = g;
		if (g[1] != 'g')
			continue;
		s = version_start(m, g);
		if (!s)
			continue;
		e = g + 2;
		while (e < end && is_version_char((unsigned char)*e))
			e++;
		if (e - (g + 2) < 7)
			continue;
		*version = ab_strndup(s, (size_t)(e - s));
	}
	munmap((void *)m, (size_t)st.st_size);
	return 0;
}

/* ---- helpers ---- */

static const cJSON *
get(const cJSON *o, const char *k)
{
	return cJSON_GetObjectItemCaseSensitive(o, k);
}

static int
is_ok(const cJSON *st)
{
	return cJSON_IsTrue(get(st, "ok"));
}

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

/* the binary of a variant: its first executable artifact, else the probe program */
static char *
variant_binary(const char *outdir, const cJSON *st)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, get(st, "artifacts")) {
		const char *rel = ab_json_str(it, "path");
		char *abs;

		if (!rel)
			continue;
		abs = mpath(outdir, rel);
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

static cJSON *
header(const cJSON *run, const char *type)
{
	cJSON *doc = cJSON_CreateObject();

	cJSON_AddStringToObject(doc, "_type", type);
	cJSON_AddNumberToObject(doc, "version", 1);
	cJSON_AddItemToObject(doc, "recipe", jdup(get(run, "recipe")));
	cJSON_AddItemToObject(doc, "invocation_id", jdup(get(run, "invocation_id")));
	return doc;
}

static cJSON *
commands_doc(const cJSON *run)
{
	cJSON *doc = header(run, "https://allocbuild.dev/build-commands/v1"), *vars;
	const cJSON *st;

	cJSON_AddItemToObject(doc, "options", jdup(get(run, "options")));
	vars = cJSON_AddArrayToObject(doc, "variants");
	cJSON_ArrayForEach(st, get(run, "variants")) {
		cJSON *v = cJSON_CreateObject();

		cJSON_AddItemToObject(v, "label", jdup(get(st, "label")));
		cJSON_AddItemToObject(v, "kind", jdup(get(st, "kind")));
		cJSON_AddItemToObject(v, "ok", jdup(get(st, "ok")));
		cJSON_AddItemToObject(v, "key", jdup(get(st, "key")));
		cJSON_AddItemToObject(v, "steps", get(st, "steps") ? jdup(get(st, "steps")) : cJSON_CreateArray());
		cJSON_AddItemToArray(vars, v);
	}
	return doc;
}

/* the state of the variant labelled label in run, or NULL */
static const cJSON *
state_of(const cJSON *run, const char *label)
{
	const cJSON *it;

	if (!label)
		return NULL;
	cJSON_ArrayForEach(it, get(run, "variants"))
		if (ab_json_str(it, "label") && !strcmp(ab_json_str(it, "label"), label))
			return it;
	return NULL;
}

const char *
ab_manifest_archive_sha256(const cJSON *st, const cJSON *from)
{
	const cJSON *it, *relink = get(st, "relink");
	const char *sha = NULL;

	if (!relink) {
		cJSON_ArrayForEach(it, get(st, "artifacts"))
			if (cJSON_IsTrue(get(it, "allocator_archive")))
				sha = ab_json_str(it, "sha256");
		return sha;
	}
	/* a relink links its base's archive unless a replacement took its place */
	if (!from || !(sha = ab_manifest_archive_sha256(from, NULL)))
		return NULL;
	cJSON_ArrayForEach(it, get(relink, "differing_inputs")) {
		const char *before = ab_json_str(get(it, "before"), "sha256");

		if (before && !strcmp(before, sha))
			return ab_json_str(get(it, "after"), "sha256");
	}
	return sha;
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
	const cJSON *normal = get(relink, "normal_output"), *check = get(relink, "normal_check");

	cJSON_AddStringToObject(m, "kind", "diagnostic relink");
	cJSON_AddStringToObject(m, "note", "the normal build's link command rerun with other inputs; "
	    "not a normal distributable build");
	sib = cJSON_AddObjectToObject(m, "normal_sibling");
	cJSON_AddStringToObject(sib, "label", from);
	cJSON_AddItemToObject(sib, "binary", jdup(get(normal, "path")));
	cJSON_AddItemToObject(sib, "sha256", jdup(get(normal, "sha256")));
	cJSON_AddItemToObject(sib, "link_reproduced", jdup(get(check, "identical")));
	cJSON_AddItemToObject(m, "differing_inputs", jdup(get(relink, "differing_inputs")));
	cJSON_AddItemToObject(m, "verdict", jdup(get(relink, "verdict")));
	return m;
}

/* the labels of the diagnostic relinks of the variant labelled label; NULL when none */
static cJSON *
relinks_of(const cJSON *run, const char *label)
{
	cJSON *a = NULL;
	const cJSON *it;

	cJSON_ArrayForEach(it, get(run, "variants")) {
		if (!is_ok(it) || !get(it, "relink") || !ab_json_str(it, "from") || strcmp(ab_json_str(it, "from"), label))
			continue;
		if (!a)
			a = cJSON_CreateArray();
		cJSON_AddItemToArray(a, jdup(get(it, "label")));
	}
	return a;
}

static cJSON *
binary_doc(const char *outdir, const cJSON *run)
{
	cJSON *doc = header(run, "https://allocbuild.dev/binary-provenance/v1"), *vars;
	const cJSON *st, *sources = get(run, "sources");

	vars = cJSON_AddArrayToObject(doc, "variants");
	cJSON_ArrayForEach(st, get(run, "variants")) {
		cJSON *v, *al, *src, *relinks;
		const cJSON *base;
		const char *archive_sha;
		char *bin;

		if (!is_ok(st))
			continue;
		/* the source identity is the base variant's (runtime_of shares its binary) */
		if (!(base = state_of(run, ab_json_str(st, "base"))))
			base = st;
		v = cJSON_CreateObject();
		cJSON_AddItemToObject(v, "label", jdup(get(st, "label")));
		cJSON_AddItemToObject(v, "kind", jdup(get(st, "kind")));
		cJSON_AddItemToObject(v, "base", jdup(get(st, "base")));
		bin = variant_binary(outdir, st);
		if (bin)
			cJSON_AddStringToObject(v, "binary", bin);
		else
			cJSON_AddNullToObject(v, "binary");
		free(bin);
		cJSON_AddItemToObject(v, "runtime", jdup(get(st, "runtime")));
		if (get(st, "relink"))
			cJSON_AddItemToObject(v, "diagnostic_relink", relink_marking(get(st, "relink"), ab_json_str(st, "from")));
		else if ((relinks = relinks_of(run, ab_json_str(st, "label"))))
			cJSON_AddItemToObject(v, "diagnostic_relinks", relinks);
		archive_sha = ab_manifest_archive_sha256(st, state_of(run, ab_json_str(st, "from")));
		al = jdup(get(st, "allocator"));
		if (archive_sha)
			cJSON_AddStringToObject(al, "archive_sha256", archive_sha);
		else if (cJSON_IsObject(al))
			cJSON_AddNullToObject(al, "archive_sha256");
		cJSON_AddItemToObject(v, "allocator", al);
		src = cJSON_AddObjectToObject(v, "source");
		if (ab_json_str(base, "source")) {
			const char *id = ab_json_str(base, "source");

			cJSON_AddStringToObject(src, "id", id);
			cJSON_AddItemToObject(src, "pin", jdup(get(sources, id)));
			cJSON_AddItemToObject(src, "tree", jdup(get(base, "source") && cJSON_IsObject(get(base, "source")) ?
			    get(base, "source") : NULL));
		} else if (ab_json_str(base, "from")) {
			cJSON_AddStringToObject(src, "relink_of", ab_json_str(base, "from"));
		}
		cJSON_AddItemToObject(v, "artifacts", jdup(get(st, "artifacts")));
		cJSON_AddItemToArray(vars, v);
	}
	return doc;
}

static cJSON *
probes_doc(const cJSON *run)
{
	cJSON *doc = header(run, "https://allocbuild.dev/allocator-probes/v1"), *vars;
	const cJSON *st;

	vars = cJSON_AddArrayToObject(doc, "variants");
	cJSON_ArrayForEach(st, get(run, "variants")) {
		cJSON *v;

		if (!is_ok(st) || !get(st, "probe"))
			continue;
		v = cJSON_CreateObject();
		cJSON_AddItemToObject(v, "label", jdup(get(st, "label")));
		cJSON_AddItemToObject(v, "base", jdup(get(st, "base")));
		cJSON_AddItemToObject(v, "requested", jdup(get(st, "runtime")));
		cJSON_AddItemToObject(v, "probe", jdup(get(st, "probe")));
		cJSON_AddItemToArray(vars, v);
	}
	return doc;
}

/* {label: state[key]} for the ok variants that have key; NULL when none */
static cJSON *
per_variant(const cJSON *run, const char *type, const char *key, const char *field)
{
	cJSON *doc = NULL, *vars = NULL;
	const cJSON *st;

	cJSON_ArrayForEach(st, get(run, "variants")) {
		if (!is_ok(st) || !get(st, key))
			continue;
		if (!doc) {
			doc = header(run, type);
			vars = cJSON_AddObjectToObject(doc, field);
		}
		cJSON_AddItemToObject(vars, ab_json_str(st, "label"), jdup(get(st, key)));
	}
	return doc;
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
statement(const char *outdir, const cJSON *run, const struct sums *subjects, const struct sums *byproducts)
{
	cJSON *doc = cJSON_CreateObject(), *subj, *pred, *bd, *ext, *intp, *deps, *rd, *b, *md, *bp;
	const cJSON *recipe = get(run, "recipe"), *st;

	(void)outdir;
	cJSON_AddStringToObject(doc, "_type", "https://in-toto.io/Statement/v1");
	subj = cJSON_AddArrayToObject(doc, "subject");
	add_descriptors(subj, subjects);
	cJSON_AddStringToObject(doc, "predicateType", "https://slsa.dev/provenance/v1");
	pred = cJSON_AddObjectToObject(doc, "predicate");
	bd = cJSON_AddObjectToObject(pred, "buildDefinition");
	cJSON_AddStringToObject(bd, "buildType", AB_BUILD_TYPE);
	ext = cJSON_AddObjectToObject(bd, "externalParameters");
	{
		cJSON *r = cJSON_AddObjectToObject(ext, "recipe"), *labels;

		cJSON_AddItemToObject(r, "name", jdup(get(recipe, "name")));
		cJSON_AddItemToObject(r, "path", jdup(get(recipe, "path")));
		cJSON_AddStringToObject(r, "copy", "recipe.json");
		cJSON_AddItemToObject(r, "digest", digest(ab_json_str(recipe, "sha256") ? ab_json_str(recipe, "sha256") : ""));
		labels = cJSON_AddArrayToObject(ext, "variants");
		cJSON_ArrayForEach(st, get(run, "variants"))
			cJSON_AddItemToArray(labels, jdup(get(st, "label")));
		cJSON_AddItemToObject(ext, "options", jdup(get(run, "options")));
	}
	intp = cJSON_AddObjectToObject(bd, "internalParameters");
	cJSON_AddItemToObject(intp, "toolchain", jdup(get(run, "toolchain")));
	{
		cJSON *keys = cJSON_AddObjectToObject(intp, "variantKeys");

		cJSON_ArrayForEach(st, get(run, "variants"))
			if (is_ok(st))
				cJSON_AddItemToObject(keys, ab_json_str(st, "label"), jdup(get(st, "key")));
	}
	deps = cJSON_AddArrayToObject(bd, "resolvedDependencies");
	{
		const cJSON *d;

		cJSON_ArrayForEach(d, get(run, "dependencies"))
			cJSON_AddItemToArray(deps, jdup(d));
	}
	rd = cJSON_AddObjectToObject(pred, "runDetails");
	b = cJSON_AddObjectToObject(rd, "builder");
	cJSON_AddStringToObject(b, "id", AB_BUILDER_ID);
	{
		cJSON *ver = cJSON_AddObjectToObject(b, "version");

		cJSON_AddItemToObject(ver, "allocbuild", jdup(get(run, "allocbuild_version")));
	}
	md = cJSON_AddObjectToObject(rd, "metadata");
	cJSON_AddItemToObject(md, "invocationId", jdup(get(run, "invocation_id")));
	cJSON_AddItemToObject(md, "startedOn", jdup(get(run, "started_on")));
	cJSON_AddItemToObject(md, "finishedOn", jdup(get(run, "finished_on")));
	bp = cJSON_AddArrayToObject(rd, "byproducts");
	add_descriptors(bp, byproducts);
	return doc;
}

/*
 * The files of an OUTDIR that describe a build: the recipe copy and every
 * manifest, the statement last. The statement lists the others among its
 * byproducts, so that a signature over it (provenance/sign.h) vouches for
 * every manifest; SHA256SUMS lists them all.
 */
static const char *const manifest_files[] = {
	"recipe.json", "provenance/sources.json", "provenance/build-commands.json",
	"provenance/cmake-cache-provenance.json", "provenance/binary-provenance.json",
	"provenance/allocator-probes.json", "provenance/upstream-diff.json",
	"provenance/relink-provenance.json", "provenance/provenance.intoto.json",
};

/* the manifest_files present in outdir into s, the statement too when with_statement; reports errors */
static int
add_manifests(struct sums *s, const char *outdir, int with_statement)
{
	size_t n = AB_NELEM(manifest_files) - !with_statement;

	for (size_t i = 0; i < n; i++) {
		char *abs = mpath(outdir, manifest_files[i]);
		int present = ab_path_exists(abs);

		free(abs);
		if (present && add_sum_file(s, outdir, manifest_files[i]) < 0)
			return -1;
	}
	return 0;
}

/* remove a manifest that this run does not produce, so no stale one survives */
static int
drop(const char *outdir, const char *rel)
{
	char *path = mpath(outdir, rel);
	int e = 0;

	if (unlink(path) < 0 && errno != ENOENT) {
		ab_error_errno("cannot remove '%s'", path);
		e = -1;
	}
	free(path);
	return e;
}

int
ab_manifest_write(const char *outdir, const cJSON *run)
{
	const char *recipe_path = ab_json_str(get(run, "recipe"), "path");
	struct sums subjects = {0}, byproducts = {0}, all = {0};
	struct ab_buf b = {0};
	char *prov = mpath(outdir, "provenance"), *path;
	const cJSON *st, *it;
	cJSON *doc;
	int error = -1;
	static const struct {
		const char *rel, *type, *key, *field;
	} optional[] = {
		{"provenance/upstream-diff.json", "https://allocbuild.dev/upstream-diff/v1", "upstream_diff", "variants"},
		{"provenance/relink-provenance.json", "https://allocbuild.dev/relink-provenance/v1", "relink", "variants"},
	};

	if (ab_mkdir_p(prov, 0755) < 0)
		goto done;
	/* the recipe exactly as built */
	if (!recipe_path || ab_read_file(&b, recipe_path) < 0)
		goto done;
	path = mpath(outdir, "recipe.json");
	error = ab_write_file_atomic(path, b.s, b.len);
	free(path);
	if (error < 0)
		goto done;
	error = -1;

	/* the documents other modules made (sources.json, cmake-cache-provenance.json) */
	cJSON_ArrayForEach(it, get(run, "documents"))
		if (!ab_path_is_safe_relative(it->string) || write_manifest(outdir, it->string, it) < 0)
			goto done;
	if (!get(get(run, "documents"), "provenance/cmake-cache-provenance.json") &&
	    drop(outdir, "provenance/cmake-cache-provenance.json") < 0)
		goto done;
	doc = commands_doc(run);
	if (write_manifest(outdir, "provenance/build-commands.json", doc) < 0)
		goto fail;
	cJSON_Delete(doc);
	doc = binary_doc(outdir, run);
	if (write_manifest(outdir, "provenance/binary-provenance.json", doc) < 0)
		goto fail;
	cJSON_Delete(doc);
	doc = probes_doc(run);
	if (write_manifest(outdir, "provenance/allocator-probes.json", doc) < 0)
		goto fail;
	cJSON_Delete(doc);
	for (size_t i = 0; i < AB_NELEM(optional); i++) {
		doc = per_variant(run, optional[i].type, optional[i].key, optional[i].field);
		if (doc ? write_manifest(outdir, optional[i].rel, doc) < 0 : drop(outdir, optional[i].rel) < 0)
			goto fail;
		cJSON_Delete(doc);
	}
	doc = NULL;

	/* subjects: the artifacts of the variants built; byproducts: their logs and the other manifests */
	cJSON_ArrayForEach(st, get(run, "variants")) {
		if (!is_ok(st))
			continue;
		cJSON_ArrayForEach(it, get(st, "artifacts"))
			if (ab_json_str(it, "path") && ab_json_str(it, "sha256"))
				add_sum(&subjects, ab_json_str(it, "path"), ab_json_str(it, "sha256"));
		cJSON_ArrayForEach(it, get(st, "steps"))
			if (ab_json_str(it, "log") && add_sum_file(&byproducts, outdir, ab_json_str(it, "log")) < 0)
				goto done;
	}
	if (add_manifests(&byproducts, outdir, 0) < 0)
		goto done;
	doc = statement(outdir, run, &subjects, &byproducts);
	if (write_manifest(outdir, "provenance/provenance.intoto.json", doc) < 0)
		goto fail;
	cJSON_Delete(doc);
	doc = NULL;
	/* a new statement: envelopes signed over the old one are stale */
	if (ab_sign_remove(outdir) < 0)
		goto done;

	for (size_t i = 0; i < subjects.n; i++)
		add_sum(&all, subjects.v[i].path, subjects.v[i].hex);
	for (size_t i = 0; i < byproducts.n; i++)
		add_sum(&all, byproducts.v[i].path, byproducts.v[i].hex);
	if (add_manifests(&all, outdir, 1) < 0)
		goto done;
	ab_buf_clear(&b);
	for (size_t i = 0; i < all.n; i++)
		ab_buf_printf(&b, "%s  %s\n", all.v[i].hex, all.v[i].path);
	path = mpath(outdir, "SHA256SUMS");
	error = ab_write_file_atomic(path, b.s ? b.s : "", b.len);
	free(path);
	goto done;
fail:
	cJSON_Delete(doc);
done:
	free_sums(&subjects);
	free_sums(&byproducts);
	free_sums(&all);
	ab_buf_free(&b);
	free(prov);
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
		return -1;
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
	int bad = 0, error = -1;
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

		lists[0] = get(stmt, "subject");
		lists[1] = get(get(get(stmt, "predicate"), "runDetails"), "byproducts");
		for (int k = 0; k < 2; k++)
			cJSON_ArrayForEach(it, lists[k]) {
				const char *name = ab_json_str(it, "name"), *want = ab_json_str(get(it, "digest"), "sha256");

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
	error = bad ? 1 : 0;
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
		return -1;
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
	int error = -1;

	if (load_binary_doc(&doc, outdir) < 0)
		return -1;
	vars = get(doc, "variants");
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
		cJSON_ArrayForEach(it, get(get(st, "runtime"), "env"))
			ab_strv_push(&names, it->string);
		cJSON_ArrayForEach(it, get(get(st, "runtime"), "unset"))
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
		if (get(get(get(mine, "runtime"), "env"), names.v[i]))
			continue;
		fprintf(out, "unset %s\n", names.v[i]);
	}
	cJSON_ArrayForEach(it, get(get(mine, "runtime"), "env")) {
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
		return -1;
	cJSON_ArrayForEach(st, get(doc, "variants")) {
		const char *bin = ab_json_str(st, "binary"), *label = ab_json_str(st, "label");

		if (bin && label)
			fprintf(out, "%s=%s\n", label, bin);
	}
	cJSON_Delete(doc);
	return 0;
}
