#include "cargoprov.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "../alloc/allocver.h"
#include "../tree/tree.h"

/* where a crate keeps the VERSION of the jemalloc it bundles: jemalloc-sys and tikv-jemalloc-sys */
static const char *const version_files[] = {"configure/VERSION", "jemalloc/VERSION", "VERSION"};

/* `key = "value"` of one line into *value (a copy); 0 when the line is not that */
static int
lock_field(const char *line, size_t n, const char *key, char **value)
{
	size_t k = strlen(key);
	const char *p = line, *end = line + n, *q;

	if (n < k || strncmp(p, key, k))
		return 0;
	p += k;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p++ != '=')
		return 0;
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p++ != '"' || !(q = memchr(p, '"', (size_t)(end - p))))
		return 0;
	free(*value);
	*value = ab_strndup(p, (size_t)(q - p));
	return 1;
}

static void
crates_release(struct ab_cargo_record *r)
{
	for (size_t i = 0; i < r->ncrates; i++) {
		struct ab_cargo_crate *c = &r->crates[i];

		free(c->name);
		free(c->version);
		free(c->source);
		free(c->checksum);
		free(c->package_checksum);
		free(c->dir);
		free(c->dirhash);
	}
	free(r->crates);
	r->crates = NULL;
	r->ncrates = 0;
}

/* a [[package]] with a source (the workspace's own have none) becomes a crate of r */
static void
flush_package(struct ab_cargo_record *r, char **name, char **version, char **source, char **checksum)
{
	if (*name && *version && *source) {
		struct ab_cargo_crate *c;

		r->crates = ab_realloc(r->crates, (r->ncrates + 1) * sizeof(*r->crates));
		c = &r->crates[r->ncrates++];
		memset(c, 0, sizeof(*c));
		c->name = *name;
		c->version = *version;
		c->source = *source;
		c->checksum = *checksum;
	} else {
		free(*name);
		free(*version);
		free(*source);
		free(*checksum);
	}
	*name = *version = *source = *checksum = NULL;
}

/* the packages of a Cargo.lock text into r's crates */
static void
parse_lock(struct ab_cargo_record *r, const char *text)
{
	char *name = NULL, *version = NULL, *source = NULL, *checksum = NULL;
	int in_package = 0;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (n && p[n - 1] == '\r')
			n--;
		if (*p == '[') {
			flush_package(r, &name, &version, &source, &checksum);
			in_package = n == 11 && !strncmp(p, "[[package]]", 11);
		} else if (in_package) {
			(void)(lock_field(p, n, "name", &name) || lock_field(p, n, "version", &version) ||
			    lock_field(p, n, "source", &source) || lock_field(p, n, "checksum", &checksum));
		}
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	flush_package(r, &name, &version, &source, &checksum);
}

/* {name, version, source, checksum} of a crate, what Cargo.lock says of it */
static cJSON *
crate_locked_json(const struct ab_cargo_crate *c)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "name", c->name);
	cJSON_AddStringToObject(o, "version", c->version);
	cJSON_AddStringToObject(o, "source", c->source);
	ab_json_add_str_or_null(o, "checksum", c->checksum);
	return o;
}

cJSON *
ab_cargoprov_parse_lock(const char *text)
{
	struct ab_cargo_record r = {0};
	cJSON *arr = cJSON_CreateArray();

	parse_lock(&r, text);
	for (size_t i = 0; i < r.ncrates; i++)
		cJSON_AddItemToArray(arr, crate_locked_json(&r.crates[i]));
	crates_release(&r);
	return arr;
}

static int
is_hex64(const char *s)
{
	size_t i = 0;

	for (; s && s[i]; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return i == 64;
}

/* the crate's directory: NAME-VERSION (Debian, cargo vendor --versioned-dirs) or NAME (cargo vendor) */
static char *
crate_dir(const char *crates, const char *name, const char *version)
{
	char *d = ab_sprintf("%s/%s-%s", crates, name, version), *toml;

	if (ab_is_dir(d))
		return d;
	free(d);
	d = ab_sprintf("%s/%s", crates, name);
	toml = ab_path_join(d, "Cargo.toml");
	if (ab_path_exists(toml)) {
		free(toml);
		return d;
	}
	free(toml);
	free(d);
	return NULL;
}

/* "package" of the crate's .cargo-checksum.json, or NULL */
static char *
package_checksum(const char *dir)
{
	char *path = ab_path_join(dir, ".cargo-checksum.json");
	cJSON *doc = NULL;
	char *s = NULL;

	ab_report_mute();
	if (ab_json_read(&doc, path) == 0 && ab_json_str(doc, "package"))
		s = ab_strdup(ab_json_str(doc, "package"));
	ab_report_unmute();
	cJSON_Delete(doc);
	free(path);
	return s;
}

/* the first line of the crate's jemalloc VERSION file, when it is a jemalloc version */
static void
bundled_jemalloc(struct ab_cargo_record *r, const struct ab_cargo_crate *crate)
{
	if (r->jemalloc.crate || !strstr(crate->name, "jemalloc"))
		return;
	for (size_t i = 0; i < AB_NELEM(version_files); i++) {
		char *path = ab_path_join(crate->dir, version_files[i]), *v = NULL;
		struct ab_buf b = {0};

		ab_report_mute();
		if (ab_read_file_max(&b, path, 4096) == 0 && b.s)
			(void)ab_allocver_scan_mem(&v, b.s, b.len);
		ab_report_unmute();
		ab_buf_free(&b);
		free(path);
		if (v) {
			r->jemalloc.crate = ab_strdup(crate->name);
			r->jemalloc.crate_version = ab_strdup(crate->version);
			r->jemalloc.version = v;
			r->jemalloc.file = ab_strdup(version_files[i]);
			return;
		}
	}
}

/* where the crate is in the crates dir, its digest and its bundled jemalloc; AB_EFAIL reported */
static int
crate_read(struct ab_cargo_record *r, struct ab_cargo_crate *c)
{
	struct ab_tree *t = NULL;

	c->checksum_valid = is_hex64(c->checksum);
	c->dir = crate_dir(r->crates_dir, c->name, c->version);
	if (!c->dir)
		return 0;
	c->package_checksum = package_checksum(c->dir);
	if (ab_tree_read(&t, c->dir, 0, 1) < 0)
		return AB_EFAIL;
	c->dirhash = ab_strdup(t->dirhash);
	ab_tree_free(t);
	bundled_jemalloc(r, c);
	return 0;
}

int
ab_cargoprov_read(struct ab_cargo_record **out, const char *src, const char *crates)
{
	char *lock = ab_path_join(src, "Cargo.lock");
	struct ab_buf b = {0};
	struct ab_cargo_record *r;
	int error = 0;

	*out = NULL;
	if (ab_read_file(&b, lock) < 0) {
		free(lock);
		return AB_EFAIL;
	}
	r = ab_calloc(1, sizeof(*r));
	r->lock_path = ab_strdup("Cargo.lock");
	ab_hash_buf(r->lock_sha256, b.s ? b.s : "", b.len);
	r->crates_dir = ab_strdup(crates);
	parse_lock(r, b.s ? b.s : "");
	for (size_t i = 0; i < r->ncrates && error == 0; i++)
		error = crate_read(r, &r->crates[i]);
	ab_buf_free(&b);
	free(lock);
	if (error < 0) {
		ab_cargo_record_free(r);
		return error;
	}
	*out = r;
	return 0;
}

/* ---- as it is written and read back ---- */

static cJSON *
crate_json(const struct ab_cargo_crate *c)
{
	cJSON *o = crate_locked_json(c);

	cJSON_AddBoolToObject(o, "checksum_valid", c->checksum_valid);
	if (c->package_checksum)
		cJSON_AddStringToObject(o, "package_checksum", c->package_checksum);
	ab_json_add_str_or_null(o, "dir", c->dir);
	ab_json_add_str_or_null(o, "dirHash", c->dirhash);
	return o;
}

cJSON *
ab_cargo_record_json(const struct ab_cargo_record *r)
{
	cJSON *o = cJSON_CreateObject(), *lf = cJSON_AddObjectToObject(o, "lockfile"), *arr;

	cJSON_AddStringToObject(lf, "path", r->lock_path);
	cJSON_AddStringToObject(lf, "sha256", r->lock_sha256);
	cJSON_AddStringToObject(o, "crates_dir", r->crates_dir);
	arr = cJSON_AddArrayToObject(o, "crates");
	for (size_t i = 0; i < r->ncrates; i++)
		cJSON_AddItemToArray(arr, crate_json(&r->crates[i]));
	if (r->jemalloc.crate) {
		cJSON *j = cJSON_AddObjectToObject(o, "jemalloc");

		cJSON_AddStringToObject(j, "crate", r->jemalloc.crate);
		cJSON_AddStringToObject(j, "crate_version", r->jemalloc.crate_version);
		cJSON_AddStringToObject(j, "version", r->jemalloc.version);
		cJSON_AddStringToObject(j, "file", r->jemalloc.file);
	}
	return o;
}

/* a crate as written; 0 when it is not one */
static int
crate_parse(struct ab_cargo_crate *c, const cJSON *o)
{
	c->name = ab_json_strdup(o, "name");
	c->version = ab_json_strdup(o, "version");
	c->source = ab_json_strdup(o, "source");
	c->checksum = ab_json_strdup(o, "checksum");
	c->checksum_valid = cJSON_IsTrue(ab_json_get(o, "checksum_valid"));
	c->package_checksum = ab_json_strdup(o, "package_checksum");
	c->dir = ab_json_strdup(o, "dir");
	c->dirhash = ab_json_strdup(o, "dirHash");
	return c->name && c->version && c->source;
}

struct ab_cargo_record *
ab_cargo_record_parse(const cJSON *doc)
{
	const cJSON *lf = ab_json_get(doc, "lockfile"), *crates = ab_json_get(doc, "crates");
	const cJSON *je = ab_json_get(doc, "jemalloc"), *it;
	const char *sha = ab_json_str(lf, "sha256");
	struct ab_cargo_record *r;

	if (!ab_json_str(lf, "path") || !sha || strlen(sha) != AB_HEX_LEN || !ab_json_str(doc, "crates_dir") ||
	    !cJSON_IsArray(crates))
		return NULL;
	r = ab_calloc(1, sizeof(*r));
	r->lock_path = ab_json_strdup(lf, "path");
	memcpy(r->lock_sha256, sha, AB_HEX_LEN + 1);
	r->crates_dir = ab_json_strdup(doc, "crates_dir");
	r->crates = ab_calloc((size_t)cJSON_GetArraySize(crates) + 1, sizeof(*r->crates));
	cJSON_ArrayForEach(it, crates)
		if (!crate_parse(&r->crates[r->ncrates++], it)) {
			ab_cargo_record_free(r);
			return NULL;
		}
	if (ab_json_str(je, "crate") && ab_json_str(je, "crate_version") && ab_json_str(je, "version") &&
	    ab_json_str(je, "file")) {
		r->jemalloc.crate = ab_json_strdup(je, "crate");
		r->jemalloc.crate_version = ab_json_strdup(je, "crate_version");
		r->jemalloc.version = ab_json_strdup(je, "version");
		r->jemalloc.file = ab_json_strdup(je, "file");
	}
	return r;
}

void
ab_cargo_record_free(struct ab_cargo_record *r)
{
	if (!r)
		return;
	crates_release(r);
	free(r->lock_path);
	free(r->crates_dir);
	free(r->jemalloc.crate);
	free(r->jemalloc.crate_version);
	free(r->jemalloc.version);
	free(r->jemalloc.file);
	free(r);
}
