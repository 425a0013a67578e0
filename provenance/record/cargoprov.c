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
flush_package(cJSON *arr, char **name, char **version, char **source, char **checksum)
{
	if (*name && *version && *source) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "name", *name);
		cJSON_AddStringToObject(o, "version", *version);
		cJSON_AddStringToObject(o, "source", *source);
		if (*checksum)
			cJSON_AddStringToObject(o, "checksum", *checksum);
		else
			cJSON_AddNullToObject(o, "checksum");
		cJSON_AddItemToArray(arr, o);
	}
	free(*name);
	free(*version);
	free(*source);
	free(*checksum);
	*name = *version = *source = *checksum = NULL;
}

cJSON *
ab_cargoprov_parse_lock(const char *text)
{
	cJSON *arr = cJSON_CreateArray();
	char *name = NULL, *version = NULL, *source = NULL, *checksum = NULL;
	int in_package = 0;

	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n");

		if (n && p[n - 1] == '\r')
			n--;
		if (*p == '[') {
			flush_package(arr, &name, &version, &source, &checksum);
			in_package = n == 11 && !strncmp(p, "[[package]]", 11);
		} else if (in_package) {
			(void)(lock_field(p, n, "name", &name) || lock_field(p, n, "version", &version) ||
			    lock_field(p, n, "source", &source) || lock_field(p, n, "checksum", &checksum));
		}
		p += strcspn(p, "\n");
		if (*p)
			p++;
	}
	flush_package(arr, &name, &version, &source, &checksum);
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
bundled_jemalloc(cJSON *rec, const cJSON *crate, const char *dir)
{
	const char *name = ab_json_str(crate, "name");

	if (cJSON_HasObjectItem(rec, "jemalloc") || !strstr(name, "jemalloc"))
		return;
	for (size_t i = 0; i < AB_NELEM(version_files); i++) {
		char *path = ab_path_join(dir, version_files[i]), *v = NULL;
		struct ab_buf b = {0};

		ab_report_mute();
		if (ab_read_file_max(&b, path, 4096) == 0 && b.s)
			(void)ab_allocver_scan_mem(&v, b.s, b.len);
		ab_report_unmute();
		ab_buf_free(&b);
		free(path);
		if (v) {
			cJSON *j = cJSON_AddObjectToObject(rec, "jemalloc");

			cJSON_AddStringToObject(j, "crate", name);
			cJSON_AddStringToObject(j, "crate_version", ab_json_str(crate, "version"));
			cJSON_AddStringToObject(j, "version", v);
			cJSON_AddStringToObject(j, "file", version_files[i]);
			free(v);
			return;
		}
	}
}

int
ab_cargoprov_read(cJSON **out, const char *src, const char *crates)
{
	char *lock = ab_path_join(src, "Cargo.lock");
	struct ab_buf b = {0};
	char hex[AB_HEX_LEN + 1];
	cJSON *rec, *arr, *it, *lf;

	*out = NULL;
	if (ab_read_file(&b, lock) < 0) {
		free(lock);
		return AB_EFAIL;
	}
	rec = cJSON_CreateObject();
	lf = cJSON_AddObjectToObject(rec, "lockfile");
	cJSON_AddStringToObject(lf, "path", "Cargo.lock");
	ab_hash_buf(hex, b.s ? b.s : "", b.len);
	cJSON_AddStringToObject(lf, "sha256", hex);
	cJSON_AddStringToObject(rec, "crates_dir", crates);
	arr = ab_cargoprov_parse_lock(b.s ? b.s : "");
	cJSON_AddItemToObject(rec, "crates", arr);
	cJSON_ArrayForEach(it, arr) {
		char *dir = crate_dir(crates, ab_json_str(it, "name"), ab_json_str(it, "version"));
		struct ab_tree *t = NULL;
		char *pc;

		cJSON_AddBoolToObject(it, "checksum_valid", is_hex64(ab_json_str(it, "checksum")));
		if (!dir) {
			cJSON_AddNullToObject(it, "dir");
			cJSON_AddNullToObject(it, "dirHash");
			continue;
		}
		pc = package_checksum(dir);
		if (pc)
			cJSON_AddStringToObject(it, "package_checksum", pc);
		cJSON_AddStringToObject(it, "dir", dir);
		if (ab_tree_read(&t, dir, 0, 1) < 0) {
			free(pc);
			free(dir);
			cJSON_Delete(rec);
			ab_buf_free(&b);
			free(lock);
			return AB_EFAIL;
		}
		cJSON_AddStringToObject(it, "dirHash", t->dirhash);
		ab_tree_free(t);
		bundled_jemalloc(rec, it, dir);
		free(pc);
		free(dir);
	}
	ab_buf_free(&b);
	free(lock);
	*out = rec;
	return 0;
}
