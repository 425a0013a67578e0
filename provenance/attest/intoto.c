#include "intoto.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/dirwalk.h"
#include "../../lib/atomic.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/strmap.h"
#include "../../lib/util.h"
#include "canonjson.h"
#include "keys.h"

#define LINK_SUFFIX ".link"
#define KEYID_PREFIX 8

/* what the links are made from: the build's manifests, and the keys */
struct ctx {
	const char *outdir;
	struct ab_key *const *keys;
	size_t nkeys;
	/* build-commands, binary-provenance, allocator-probes, relink-provenance (or NULL) */
	cJSON *commands, *binaries, *probes, *relinks;
	struct ab_strv *names, *texts;
	const struct ab_intoto_known *known;
	struct ab_strmap sums;     /* known->paths -> index */
	struct ab_strv tree_dirs;  /* the trees read so far ... */
	struct ab_strmap tree_ix;  /* ... by name -> index in trees */
	struct tree {
		struct ab_hash_tfile *f;
		size_t n;
	} *trees;
};

/* ---- keys ---- */

int
ab_intoto_pubkey(cJSON **out, char *id, const struct ab_key *k)
{
	struct ab_buf pub = {0}, canon = {0};
	int ed = !strcmp(ab_key_algorithm(k), AB_KEY_ED25519), e;
	cJSON *d = cJSON_CreateObject(), *algs;

	*out = NULL;
	e = ab_key_public_text(&pub, k);
	cJSON_AddStringToObject(d, "keytype", ed ? "ed25519" : "ecdsa");
	cJSON_AddStringToObject(d, "scheme", ed ? "ed25519" : AB_KEY_ECDSA_P256);
	/* securesystemslib.settings.HASH_ALGORITHMS, which its keyid covers */
	algs = cJSON_AddArrayToObject(d, "keyid_hash_algorithms");
	cJSON_AddItemToArray(algs, cJSON_CreateString("sha256"));
	cJSON_AddItemToArray(algs, cJSON_CreateString("sha512"));
	cJSON_AddStringToObject(cJSON_AddObjectToObject(d, "keyval"), "public", pub.s ? pub.s : "");
	if (e == 0)
		e = ab_canonjson(&canon, d);
	if (e == 0) {
		ab_hash_buf(id, canon.s, canon.len);
		*out = d;
		d = NULL;
	}
	cJSON_Delete(d);
	ab_buf_free(&pub);
	ab_buf_free(&canon);
	return e;
}

/* ---- values ---- */

/*
 * v copied for a link: a number other than an integer below 10^15 (a
 * duration; cJSON prints larger ones with an exponent, which Python reads
 * as a float) becomes a string, as canonical JSON holds integers only
 */
static cJSON *
plain(const cJSON *v)
{
	cJSON *c, *it;

	if (cJSON_IsNumber(v)) {
		double d = v->valuedouble;
		char s[32];

		if (isfinite(d) && d == floor(d) && fabs(d) < 1e15)
			return cJSON_CreateNumber(d);
		snprintf(s, sizeof(s), "%.17g", d);
		return cJSON_CreateString(s);
	}
	if (!cJSON_IsArray(v) && !cJSON_IsObject(v))
		return cJSON_Duplicate(v, 0);
	c = cJSON_IsArray(v) ? cJSON_CreateArray() : cJSON_CreateObject();
	cJSON_ArrayForEach(it, v) {
		if (cJSON_IsArray(v))
			cJSON_AddItemToArray(c, plain(it));
		else
			cJSON_AddItemToObject(c, it->string, plain(it));
	}
	return c;
}

/* member key of obj, copied with plain(), or an empty object/array of the given kind */
static cJSON *
plain_member(const cJSON *obj, const char *key, int array)
{
	const cJSON *v = ab_json_get(obj, key);

	if (v)
		return plain(v);
	return array ? cJSON_CreateArray() : cJSON_CreateObject();
}

/* the variant of doc (a manifest with "variants": [{"label": ...}]) named label, or NULL */
static const cJSON *
variant(const cJSON *doc, const char *label)
{
	const cJSON *v;

	if (!label)
		return NULL;
	cJSON_ArrayForEach(v, ab_json_get(doc, "variants")) {
		const char *l = ab_json_str(v, "label");

		if (l && !strcmp(l, label))
			return v;
	}
	return NULL;
}

/* ---- artifacts ---- */

static void
add_digest(cJSON *dict, const char *name, const char *hex)
{
	cJSON_AddStringToObject(cJSON_AddObjectToObject(dict, name), "sha256", hex);
}

/* the files of the tree reldir of the OUTDIR: known, read before, or hashed now */
static int
tree_files(const struct tree **out, struct ctx *c, const char *reldir)
{
	struct tree t = {0};
	size_t i;
	char *dir;
	int e = 1;

	if (ab_strmap_get(&c->tree_ix, reldir, &i)) {
		*out = &c->trees[i];
		return 0;
	}
	dir = ab_path_join(c->outdir, reldir);
	if (c->known && c->known->tree)
		e = c->known->tree(&t.f, &t.n, dir);
	if (e == 1)
		e = ab_hash_tree_files(&t.f, &t.n, dir, 0, NULL, NULL);
	free(dir);
	if (e < 0) {
		ab_hash_tfiles_free(t.f, t.n);
		return e;
	}
	i = c->tree_dirs.n;
	ab_strv_push(&c->tree_dirs, reldir);
	c->trees = ab_realloc(c->trees, (i + 1) * sizeof(*c->trees));
	c->trees[i] = t;
	ab_strmap_put(&c->tree_ix, c->tree_dirs.v[i], i);
	*out = &c->trees[i];
	return 0;
}

/* the files of the tree reldir of the OUTDIR into dict, each named PREFIX/PATH */
static int
add_tree(cJSON *dict, struct ctx *c, const char *reldir, const char *prefix)
{
	const struct tree *t;
	int e = tree_files(&t, c, reldir);

	for (size_t i = 0; e == 0 && i < t->n; i++) {
		char *name = ab_sprintf("%s/%s", prefix, t->f[i].path);

		add_digest(dict, name, t->f[i].hex);
		free(name);
	}
	return e;
}

/* the files rels (relative to the OUTDIR) into dict, under their names: recorded, else hashed now */
static int
add_files(cJSON *dict, const struct ctx *c, const struct ab_strv *rels)
{
	size_t n = rels->n ? rels->n : 1, *which = ab_calloc(n, sizeof(*which)), k;
	char (*hex)[AB_HEX_LEN + 1] = ab_calloc(n, sizeof(*hex)), (*now)[AB_HEX_LEN + 1] = ab_calloc(n, sizeof(*now));
	struct ab_strv paths = {0};
	int e;

	for (size_t i = 0; i < rels->n; i++) {
		if (ab_strmap_get(&c->sums, rels->v[i], &k)) {
			memcpy(hex[i], c->known->hexes->v[k], AB_HEX_LEN + 1);
			continue;
		}
		which[paths.n] = i;
		ab_strv_push_owned(&paths, ab_path_join(c->outdir, rels->v[i]));
	}
	e = paths.n ? ab_hash_files(now, NULL, (const char *const *)paths.v, paths.n, 0, 0) : 0;
	for (size_t j = 0; e == 0 && j < paths.n; j++)
		memcpy(hex[which[j]], now[j], AB_HEX_LEN + 1);
	for (size_t i = 0; e == 0 && i < rels->n; i++)
		add_digest(dict, rels->v[i], hex[i]);
	ab_strv_free(&paths);
	free(which);
	free(hex);
	free(now);
	return e;
}

/* the artifacts binary-provenance.json records for label, appended to rels */
static void
artifacts_of(struct ab_strv *rels, const struct ctx *c, const char *label)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, ab_json_get(variant(c->binaries, label), "artifacts")) {
		const char *p = ab_json_str(a, "path");

		if (p && ab_path_is_safe_relative(p) && !ab_strv_has(rels, p))
			ab_strv_push(rels, p);
	}
}

/* the artifact of variant label whose recipe name is artifact (binary-provenance.json), or NULL */
static const char *
artifact_path(const struct ctx *c, const char *label, const char *artifact)
{
	const cJSON *a;

	cJSON_ArrayForEach(a, ab_json_get(variant(c->binaries, label), "artifacts")) {
		const char *p = ab_json_str(a, "path"), *n = ab_json_str(a, "artifact");

		if (p && n && !strcmp(n, artifact) && ab_path_is_safe_relative(p))
			return p;
	}
	return NULL;
}

/* a relink's materials: the artifacts that replaced inputs of its link */
static int
relink_materials(cJSON *l, const struct ctx *c, const cJSON *relink)
{
	struct ab_strv mats = {0};
	const cJSON *r;
	int e;

	cJSON_ArrayForEach(r, ab_json_get(relink, "replace")) {
		const cJSON *w = ab_json_get(r, "with");
		const char *v = ab_json_str(w, "variant"), *a = ab_json_str(w, "artifact");
		const char *p = v && a ? artifact_path(c, v, a) : NULL;

		if (p && !ab_strv_has(&mats, p))
			ab_strv_push(&mats, p);
	}
	e = add_files(ab_json_get(l, "materials"), c, &mats);
	ab_strv_free(&mats);
	return e;
}

/* ---- links ---- */

/* a link's "signed" part, materials and products empty */
static cJSON *
link_new(const char *name, cJSON *command, cJSON *byproducts, cJSON *environment)
{
	cJSON *l = cJSON_CreateObject();

	cJSON_AddStringToObject(l, "_type", "link");
	cJSON_AddStringToObject(l, "name", name);
	cJSON_AddItemToObject(l, "command", command);
	cJSON_AddObjectToObject(l, "materials");
	cJSON_AddObjectToObject(l, "products");
	cJSON_AddItemToObject(l, "byproducts", byproducts);
	cJSON_AddItemToObject(l, "environment", environment);
	return l;
}

/* the signature of one key over the canonical bytes, as a metablock's entry */
static int
signature(cJSON **out, const struct ab_key *k, const struct ab_buf *canon, char *id)
{
	struct ab_buf sig = {0}, hex = {0};
	cJSON *pub = NULL;
	int e = ab_intoto_pubkey(&pub, id, k);

	if (e == 0)
		e = ab_key_sign(&sig, k, canon->s, canon->len);
	for (size_t i = 0; e == 0 && i < sig.len; i++)
		ab_buf_printf(&hex, "%02x", (unsigned char)sig.s[i]);
	if (e == 0) {
		*out = cJSON_CreateObject();
		cJSON_AddStringToObject(*out, "keyid", id);
		cJSON_AddStringToObject(*out, "sig", hex.s ? hex.s : "");
	}
	cJSON_Delete(pub);
	ab_buf_free(&sig);
	ab_buf_free(&hex);
	return e;
}

/* the link signed by each key, one metablock each, appended to the context's names and texts; takes l */
static int
link_sign(struct ctx *c, cJSON *l)
{
	struct ab_buf canon = {0};
	int e = ab_canonjson(&canon, l);

	for (size_t i = 0; e == 0 && i < c->nkeys; i++) {
		char id[AB_HEX_LEN + 1];
		cJSON *doc = cJSON_CreateObject(), *sig = NULL;
		char *text;

		if ((e = signature(&sig, c->keys[i], &canon, id)) == 0) {
			cJSON_AddItemToArray(cJSON_AddArrayToObject(doc, "signatures"), sig);
			cJSON_AddItemToObject(doc, "signed", cJSON_Duplicate(l, 1));
			text = cJSON_Print(doc);
			ab_strv_push_owned(c->texts, ab_sprintf("%s\n", text));
			ab_strv_pushf(c->names, "%s/%s.%.*s%s", AB_INTOTO_DIR, ab_json_str(l, "name"), KEYID_PREFIX, id,
			    LINK_SUFFIX);
			free(text);
		}
		cJSON_Delete(doc);
	}
	ab_buf_free(&canon);
	cJSON_Delete(l);
	return e;
}

/* fetch-SOURCE: the tree the source step of a variant materialized, once per source */
static int
fetch_link(struct ctx *c, const cJSON *v, const cJSON *step, struct ab_strv *seen)
{
	const char *src = ab_json_str(step, "source"), *dir = ab_json_str(step, "dir");
	char *name;
	cJSON *l, *by;
	int e;

	if (!src || !dir || ab_strv_has(seen, src) || !ab_path_is_safe_relative(dir))
		return 0;
	ab_strv_push(seen, src);
	by = cJSON_CreateObject();
	cJSON_AddItemToObject(by, "pin", plain_member(ab_json_get(variant(c->binaries, ab_json_str(v, "label")), "source"),
	    "pin", 0));
	cJSON_AddStringToObject(by, "tree", dir);
	name = ab_sprintf("fetch-%s", src);
	l = link_new(name, cJSON_CreateArray(), by, cJSON_CreateObject());
	free(name);
	e = add_tree(ab_json_get(l, "products"), c, dir, src);
	if (e < 0) {
		cJSON_Delete(l);
		return e;
	}
	return link_sign(c, l);
}

/* one recorded build step, as build-LABEL's byproducts list them */
static cJSON *
step_summary(const cJSON *s)
{
	static const char *const keys[] = {"name", "argv", "cwd", "exit_status", "log"};
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < AB_NELEM(keys); i++)
		if (ab_json_get(s, keys[i]))
			cJSON_AddItemToObject(o, keys[i], plain(ab_json_get(s, keys[i])));
	return o;
}

/* build-LABEL's files: its source tree, its artifacts and logs; relink-LABEL's: the replacements */
static int
build_files(cJSON *l, struct ctx *c, const cJSON *v, const cJSON *relink)
{
	const char *label = ab_json_str(v, "label"), *log = ab_json_str(v, "compile_log");
	struct ab_strv prods = {0};
	const cJSON *s;
	int e = relink ? relink_materials(l, c, relink) : 0;

	cJSON_ArrayForEach(s, ab_json_get(v, "steps")) {
		const char *dir = ab_json_str(s, "dir"), *slog = ab_json_str(s, "log");

		if (dir && ab_json_str(s, "source") && ab_path_is_safe_relative(dir) && e == 0)
			e = add_tree(ab_json_get(l, "materials"), c, dir, dir);
		if (slog && ab_path_is_safe_relative(slog))
			ab_strv_push(&prods, slog);
	}
	artifacts_of(&prods, c, label);
	if (log && ab_path_is_safe_relative(log))
		ab_strv_push(&prods, log);
	if (e == 0)
		e = add_files(ab_json_get(l, "products"), c, &prods);
	ab_strv_free(&prods);
	return e;
}

/* relink-LABEL: the link command relink-provenance.json records, which the step record does not hold */
static int
relink_link(struct ctx *c, const cJSON *v, const cJSON *relink)
{
	const char *label = ab_json_str(v, "label");
	const cJSON *doc = ab_json_labelled_find(c->relinks, label), *s, *step = NULL;
	cJSON *by, *env, *l;
	char *name;

	cJSON_ArrayForEach(s, ab_json_get(v, "steps")) {
		const char *kind = ab_json_str(s, "step");

		if (kind && !strcmp(kind, "relink"))
			step = s;
	}
	if (!step || !doc)
		return 0;
	by = cJSON_CreateObject();
	cJSON_AddItemToObject(by, "from", plain_member(relink, "from", 0));
	cJSON_AddItemToArray(cJSON_AddArrayToObject(by, "steps"), step_summary(step));
	cJSON_AddNumberToObject(by, "return-value", cJSON_IsTrue(ab_json_get(step, "ok")) ? 0 : 1);
	env = cJSON_CreateObject();
	cJSON_AddItemToObject(env, "cwd", plain_member(doc, "cwd", 0));
	cJSON_AddItemToObject(env, "env_set", plain_member(ab_json_get(doc, "env"), "set", 1));
	cJSON_AddItemToObject(env, "env_removed", plain_member(ab_json_get(doc, "env"), "removed", 1));
	name = ab_sprintf("relink-%s", label);
	l = link_new(name, plain_member(doc, "argv_after", 1), by, env);
	free(name);
	if (build_files(l, c, v, relink) < 0) {
		cJSON_Delete(l);
		return AB_EFAIL;
	}
	return link_sign(c, l);
}

/* build-LABEL, when the variant ran commands of its own; relink-LABEL for a relink */
static int
build_link(struct ctx *c, const cJSON *v)
{
	const cJSON *s, *last = NULL, *relink = ab_json_get(ab_json_get(v, "definition"), "relink");
	cJSON *by, *steps, *env, *l;
	char *name;

	if (relink)
		return relink_link(c, v, relink);
	cJSON_ArrayForEach(s, ab_json_get(v, "steps")) {
		if (ab_json_get(s, "argv"))
			last = s;
	}
	if (!last)
		return 0;
	by = cJSON_CreateObject();
	steps = cJSON_AddArrayToObject(by, "steps");
	cJSON_ArrayForEach(s, ab_json_get(v, "steps")) {
		if (ab_json_get(s, "argv"))
			cJSON_AddItemToArray(steps, step_summary(s));
	}
	cJSON_AddItemToObject(by, "return-value", plain_member(last, "exit_status", 0));
	env = cJSON_CreateObject();
	cJSON_AddItemToObject(env, "cwd", plain_member(last, "cwd", 0));
	cJSON_AddItemToObject(env, "env_set", plain_member(last, "env_set", 0));
	cJSON_AddItemToObject(env, "env_removed", plain_member(last, "env_removed", 1));
	name = ab_sprintf("build-%s", ab_json_str(v, "label"));
	l = link_new(name, plain_member(last, "argv", 1), by, env);
	free(name);
	if (build_files(l, c, v, NULL) < 0) {
		cJSON_Delete(l);
		return AB_EFAIL;
	}
	return link_sign(c, l);
}

/* probe-LABEL: the artifacts of the variant probed, the probe program made */
static int
probe_link(struct ctx *c, const cJSON *v)
{
	const char *label = ab_json_str(v, "label"), *base = ab_json_str(v, "base");
	const cJSON *p = ab_json_get(v, "probe"), *run = ab_json_get(p, "run");
	struct ab_strv mats = {0};
	char *name, *dir;
	cJSON *by, *env, *l;
	int e;

	if (!label || !run)
		return 0;
	by = cJSON_CreateObject();
	cJSON_AddItemToObject(by, "compile", plain_member(ab_json_get(p, "compile"), "argv", 1));
	cJSON_AddItemToObject(by, "return-value", plain_member(run, "exit_code", 0));
	env = cJSON_CreateObject();
	cJSON_AddItemToObject(env, "env_set", plain_member(run, "env_set", 1));
	name = ab_sprintf("probe-%s", label);
	l = link_new(name, plain_member(run, "argv", 1), by, env);
	free(name);
	artifacts_of(&mats, c, base ? base : label);
	e = add_files(ab_json_get(l, "materials"), c, &mats);
	dir = ab_sprintf("variants/%s/probe", label);
	if (e == 0 && ab_path_is_safe_relative(dir))
		e = add_tree(ab_json_get(l, "products"), c, dir, dir);
	free(dir);
	ab_strv_free(&mats);
	if (e < 0) {
		cJSON_Delete(l);
		return e;
	}
	return link_sign(c, l);
}

/* a manifest of provenance/, or NULL when it is absent; AB_EFAIL when unreadable */
static int
read_manifest(cJSON **out, const char *outdir, const char *name)
{
	char *path = ab_sprintf("%s/provenance/%s", outdir, name);
	int e = ab_path_exists(path) ? ab_json_read(out, path) : 0;

	free(path);
	return e;
}

static int
make_links(struct ctx *c)
{
	struct ab_strv seen = {0};
	const cJSON *v, *s;
	int e = 0;

	cJSON_ArrayForEach(v, ab_json_get(c->commands, "variants")) {
		cJSON_ArrayForEach(s, ab_json_get(v, "steps")) {
			if (e == 0 && ab_json_str(s, "source"))
				e = fetch_link(c, v, s, &seen);
		}
	}
	cJSON_ArrayForEach(v, ab_json_get(c->commands, "variants")) {
		if (e == 0 && ab_json_str(v, "label"))
			e = build_link(c, v);
	}
	cJSON_ArrayForEach(v, ab_json_get(c->probes, "variants")) {
		if (e == 0)
			e = probe_link(c, v);
	}
	ab_strv_free(&seen);
	return e;
}

int
ab_intoto_make(struct ab_strv *names, struct ab_strv *texts, const char *outdir, struct ab_key *const *keys,
    size_t nkeys, const struct ab_intoto_known *known)
{
	struct ctx c = {.outdir = outdir, .keys = keys, .nkeys = nkeys, .names = names, .texts = texts, .known = known};
	int e = read_manifest(&c.commands, outdir, "build-commands.json");

	if (known && known->paths)
		ab_strmap_of_strv(&c.sums, known->paths);

	if (e == 0)
		e = read_manifest(&c.binaries, outdir, "binary-provenance.json");
	if (e == 0)
		e = read_manifest(&c.probes, outdir, "allocator-probes.json");
	if (e == 0)
		e = read_manifest(&c.relinks, outdir, "relink-provenance.json");
	if (e == 0 && c.commands)
		e = make_links(&c);
	cJSON_Delete(c.commands);
	cJSON_Delete(c.binaries);
	cJSON_Delete(c.probes);
	cJSON_Delete(c.relinks);
	ab_strmap_free(&c.sums);
	ab_strmap_free(&c.tree_ix);
	for (size_t i = 0; i < c.tree_dirs.n; i++)
		ab_hash_tfiles_free(c.trees[i].f, c.trees[i].n);
	free(c.trees);
	ab_strv_free(&c.tree_dirs);
	return e;
}

/* ---- files ---- */

static int
is_link_name(const char *base)
{
	size_t n = strlen(base), s = strlen(LINK_SUFFIX);

	return base[0] != '.' && n > s && !strcmp(base + n - s, LINK_SUFFIX);
}

int
ab_intoto_is_link(const char *rel)
{
	size_t n = strlen(AB_INTOTO_DIR);

	return !strncmp(rel, AB_INTOTO_DIR, n) && rel[n] == '/' && !strchr(rel + n + 1, '/') && is_link_name(rel + n + 1);
}

/* ab_dirwalk_files' test: a link's file name */
static int
accept_link(const char *name, void *arg)
{
	(void)arg;
	return is_link_name(name);
}

int
ab_intoto_links(struct ab_strv *out, const char *outdir)
{
	return ab_dirwalk_files(out, outdir, AB_INTOTO_DIR, accept_link, NULL, NULL);
}

int
ab_intoto_remove(const char *outdir)
{
	struct ab_strv links = {0};
	int e = ab_intoto_links(&links, outdir);

	for (size_t i = 0; e == 0 && i < links.n; i++) {
		char *path = ab_path_join(outdir, links.v[i]);

		if (unlink(path) < 0 && errno != ENOENT) {
			ab_error_errno("cannot remove '%s'", path);
			e = AB_EFAIL;
		}
		free(path);
	}
	ab_strv_free(&links);
	return e;
}

int
ab_intoto_write(const char *outdir, const struct ab_strv *names, const struct ab_strv *texts)
{
	char *dir = ab_path_join(outdir, AB_INTOTO_DIR);
	int e = ab_intoto_remove(outdir);

	if (e == 0 && names->n)
		e = ab_mkdir_p(dir, 0755);
	for (size_t i = 0; e == 0 && i < names->n; i++) {
		char *path = ab_path_join(outdir, names->v[i]);

		e = ab_write_file_atomic(path, texts->v[i], strlen(texts->v[i]));
		free(path);
	}
	free(dir);
	return e;
}
