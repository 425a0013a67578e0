#include "cmakeprov.h"

#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/proc.h"
#include "../../lib/util.h"
#include "../../lib/dirwalk.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"

#define SCHEMA "https://allocbuild.dev/cmake-cache-provenance/v1"

/* cache keys recorded even when absent (then as null) */
static const char *const named_keys[] = {
	"FLB_JEMALLOC", "FLB_JEMALLOC_OPTIONS", "FLB_PREFER_SYSTEM_LIB_JEMALLOC",
	"FLB_PREFER_SYSTEM_LIBS", "CMAKE_BUILD_TYPE", "FLB_DEBUG", "FLB_RELEASE",
	"FLB_SMALL", "FLB_COVERAGE", "FLB_IPO", "FLB_SECURITY", "FLB_VALGRIND",
	"FLB_MTRACE", "FLB_TRACE", "FLB_SHARED_LIB", "FLB_BINARY",
	"WITH_SYSTEM_MALLOC", "CMAKE_C_COMPILER", "CMAKE_CXX_COMPILER",
	"CMAKE_C_FLAGS", "CMAKE_EXE_LINKER_FLAGS", "CMAKE_AR", "CMAKE_GENERATOR",
};

/* every present key starting with one of these is recorded too */
static const char *const key_prefixes[] = {
	"FLB_", "MI_", "SANITIZE_", "CMAKE_C_FLAGS", "CMAKE_CXX_FLAGS",
	"CMAKE_EXE_LINKER_FLAGS",
};

static const char *const build_types[] = {
	"Debug", "Release", "RelWithDebInfo", "MinSizeRel",
};

/* the next line of text[*pos..len) without its "\n" or "\r\n"; NULL at the end */
static char *
next_line(const char *text, size_t len, size_t *pos)
{
	size_t start = *pos, end;

	if (start >= len)
		return NULL;
	end = start;
	while (end < len && text[end] != '\n')
		end++;
	*pos = end < len ? end + 1 : end;
	if (end > start && text[end - 1] == '\r')
		end--;
	return ab_strndup(text + start, end - start);
}

static int
is_blank(int c)
{
	return c == ' ' || c == '\t' || c == '\r';
}

static int
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

/*
 * One cache entry line, as CMake's cmCacheManager::ParseEntry reads it:
 * KEY:TYPE=VALUE where KEY has neither ':' nor '=' and TYPE no '=', or
 * "KEY":TYPE=VALUE; trailing blanks of VALUE are dropped unless VALUE is
 * all blanks, and a VALUE enclosed in single quotes loses them.
 */
static int
parse_cache_entry(char **key, char **type, char **value, const char *line)
{
	const char *p = line, *k0, *k1, *t0, *t1, *v0, *v1;

	if (*p == '"') {
		k0 = ++p;
		while (*p && *p != '"')
			p++;
		if (*p != '"' || p[1] != ':')
			return -1;
		k1 = p;
		p += 2;
	} else {
		k0 = p;
		while (*p && *p != ':' && *p != '=')
			p++;
		if (*p != ':')
			return -1;
		k1 = p++;
	}
	t0 = p;
	while (*p && *p != '=')
		p++;
	if (*p != '=')
		return -1;
	t1 = p++;
	v0 = p;
	v1 = p + strlen(p);
	while (v1 > v0 && is_blank(v1[-1]))
		v1--;
	if (v1 == v0)
		v1 = p + strlen(p); /* all blanks: kept as they are */
	if (v1 - v0 >= 2 && *v0 == '\'' && v1[-1] == '\'')
		v0++, v1--;
	*key = ab_strndup(k0, (size_t)(k1 - k0));
	*type = ab_strndup(t0, (size_t)(t1 - t0));
	*value = ab_strndup(v0, (size_t)(v1 - v0));
	return 0;
}

static const char *const cache_properties[][2] = {
	{"-ADVANCED", "advanced"},
	{"-MODIFIED", "modified"},
	{"-STRINGS", "strings"},
};

int
ab_cmakeprov_parse_cache(cJSON **out, const char *text, size_t len, const char *name)
{
	cJSON *entries = cJSON_CreateObject(), *props = cJSON_CreateArray(), *it;
	size_t pos = 0;
	char *line;
	int lineno = 0, error = -1;

	*out = NULL;
	while ((line = next_line(text, len, &pos))) {
		char *p = line, *key, *type, *value;
		cJSON *e;

		lineno++;
		while (*p && isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#' || (p[0] == '/' && p[1] == '/')) {
			free(line);
			continue;
		}
		if (parse_cache_entry(&key, &type, &value, p) < 0) {
			ab_error("%s:%d: cannot parse cache entry '%s'", name, lineno, p);
			free(line);
			goto done;
		}
		free(line);
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "type", type);
		cJSON_AddStringToObject(e, "value", value);
		/* a property of another entry: folded in after all entries are read */
		if (strcmp(type, "INTERNAL") == 0) {
			for (size_t i = 0; i < AB_NELEM(cache_properties); i++) {
				if (has_suffix(key, cache_properties[i][0]) &&
				    strlen(key) > strlen(cache_properties[i][0])) {
					cJSON_AddStringToObject(e, "key", key);
					cJSON_AddNumberToObject(e, "property", (double)i);
					cJSON_AddItemToArray(props, e);
					e = NULL;
					break;
				}
			}
		}
		if (e) {
			/* CMake keeps the last of duplicate entries */
			cJSON_DeleteItemFromObjectCaseSensitive(entries, key);
			cJSON_AddItemToObject(entries, key, e);
		}
		free(key);
		free(type);
		free(value);
	}
	cJSON_ArrayForEach(it, props) {
		const char *key = ab_json_str(it, "key");
		int i = ab_json_get(it, "property")->valueint;
		char *base = ab_strndup(key, strlen(key) - strlen(cache_properties[i][0]));
		cJSON *e = ab_json_get(entries, base);
		const char *v = ab_json_str(it, "value");

		/* a property of an entry that does not exist describes nothing */
		if (e) {
			cJSON_DeleteItemFromObjectCaseSensitive(e, cache_properties[i][1]);
			if (i == 2)
				cJSON_AddStringToObject(e, cache_properties[i][1], v);
			else
				cJSON_AddBoolToObject(e, cache_properties[i][1], strcmp(v, "0") != 0 &&
				                      strcasecmp(v, "OFF") != 0 && strcasecmp(v, "FALSE") != 0 && *v);
		}
		free(base);
	}
	*out = entries;
	entries = NULL;
	error = 0;
done:
	cJSON_Delete(entries);
	cJSON_Delete(props);
	return error;
}

static char *
trim(char *s)
{
	char *e;

	while (*s && isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		e--;
	*e = '\0';
	return s;
}

/* the last assignment of a variable wins, as in CMake */
static void
set_var(cJSON *vars, const char *name, const char *value)
{
	cJSON_DeleteItemFromObjectCaseSensitive(vars, name);
	cJSON_AddStringToObject(vars, name, value);
}

/*
 * Give each line of text, trimmed, to fn, which sets the variables it
 * finds in a new object for *out. -1 when fn fails (it reports).
 */
static int
parse_lines(cJSON **out, const char *text, size_t len, const char *name,
            int (*fn)(cJSON *vars, char *line, const char *name, int lineno))
{
	cJSON *vars = cJSON_CreateObject();
	size_t pos = 0;
	char *line;
	int lineno = 0;

	*out = NULL;
	while ((line = next_line(text, len, &pos))) {
		int e = fn(vars, trim(line), name, ++lineno);

		free(line);
		if (e < 0) {
			cJSON_Delete(vars);
			return -1;
		}
	}
	*out = vars;
	return 0;
}

/* flags.make: "NAME = value" lines and comments */
static int
flags_line(cJSON *vars, char *p, const char *name, int lineno)
{
	char *q, *e;

	if (!*p || *p == '#')
		return 0;
	q = p;
	while (isalnum((unsigned char)*q) || *q == '_')
		q++;
	e = q;
	while (is_blank(*q))
		q++;
	if (e == p || *q != '=') {
		ab_error("%s:%d: cannot parse '%s' (expected NAME = value)", name, lineno, p);
		return -1;
	}
	*e = '\0';
	set_var(vars, p, trim(q + 1));
	return 0;
}

int
ab_cmakeprov_parse_flags(cJSON **out, const char *text, size_t len, const char *name)
{
	return parse_lines(out, text, len, name, flags_line);
}

/* CMake<LANG>Compiler.cmake: the file is CMake code, only set(NAME ARG) lines carry data */
static int
compiler_line(cJSON *vars, char *p, const char *name, int lineno)
{
	struct ab_buf v = {0};
	char *n0;

	if (strncmp(p, "set(", 4) != 0)
		return 0;
	p += 4;
	while (is_blank(*p))
		p++;
	n0 = p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	if (p == n0 || !(is_blank(*p) || *p == ')'))
		return 0;
	if (*p == ')') {
		*p = '\0';
		set_var(vars, n0, "");
		return 0;
	}
	*p++ = '\0';
	while (is_blank(*p))
		p++;
	ab_buf_puts(&v, "");
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1]) {
				p++;
				ab_buf_putc(&v, *p == 'n' ? '\n' : *p == 't' ? '\t' : *p == 'r' ? '\r' : *p);
			} else {
				ab_buf_putc(&v, *p);
			}
		}
		if (*p != '"') {
			ab_error("%s:%d: unterminated string in set(%s ...)", name, lineno, n0);
			ab_buf_free(&v);
			return -1;
		}
		p++;
	} else {
		while (*p && *p != ')' && !is_blank(*p))
			ab_buf_putc(&v, *p++);
	}
	while (is_blank(*p))
		p++;
	/* set(NAME a b c) and set(NAME "x" PARENT_SCOPE) are not data */
	if (*p == ')')
		set_var(vars, n0, v.s);
	ab_buf_free(&v);
	return 0;
}

int
ab_cmakeprov_parse_compiler(cJSON **out, const char *text, size_t len, const char *name)
{
	return parse_lines(out, text, len, name, compiler_line);
}

int
ab_cmakeprov_parse_cfgcmd(cJSON **out, const char *text, size_t len, const char *name)
{
	const char *p, *end;
	struct ab_buf el = {0};
	cJSON *argv;
	int depth = 0;

	*out = NULL;
	if (len < 6 || strncmp(text, "cmd='", 5) != 0) {
		ab_error("%s:1: expected cmd='...'", name);
		return -1;
	}
	end = text + len;
	while (end > text + 5 && (end[-1] == '\n' || end[-1] == '\r'))
		end--;
	if (end <= text + 5 || end[-1] != '\'') {
		ab_error("%s:1: unterminated cmd='...'", name);
		return -1;
	}
	end--;
	argv = cJSON_CreateArray();
	ab_buf_puts(&el, "");
	/* CMake's list splitting (cmExpandList): empty elements are dropped */
	for (p = text + 5; p <= end; p++) {
		if (p == end || (*p == ';' && depth == 0)) {
			if (el.len)
				cJSON_AddItemToArray(argv, cJSON_CreateString(el.s));
			ab_buf_clear(&el);
			ab_buf_puts(&el, "");
			continue;
		}
		if (*p == '\\' && p + 1 < end && p[1] == ';') {
			ab_buf_putc(&el, ';');
			p++;
			continue;
		}
		if (*p == '[')
			depth++;
		else if (*p == ']' && depth > 0)
			depth--;
		ab_buf_putc(&el, *p);
	}
	ab_buf_free(&el);
	*out = argv;
	return 0;
}

/* split on blanks into a vector of words */
static void
split_words(struct ab_strv *sv, const char *s)
{
	while (s && *s) {
		const char *w;

		while (*s && isspace((unsigned char)*s))
			s++;
		w = s;
		while (*s && !isspace((unsigned char)*s))
			s++;
		if (s > w)
			ab_strv_push_owned(sv, ab_strndup(w, (size_t)(s - w)));
	}
}

static int
words_contain(const struct ab_strv *hay, const struct ab_strv *needle)
{
	if (!needle->n || needle->n > hay->n)
		return 0;
	for (size_t i = 0; i + needle->n <= hay->n; i++) {
		size_t j = 0;

		while (j < needle->n && strcmp(hay->v[i + j], needle->v[j]) == 0)
			j++;
		if (j == needle->n)
			return 1;
	}
	return 0;
}

static const char *
cache_value(const cJSON *cache, const char *key)
{
	return ab_json_str(ab_json_get(cache, key), "value");
}

const char *
ab_cmakeprov_detect_build_type(const cJSON *cache, const char *lang, const char *flags)
{
	struct ab_strv words = {0};
	const char *best = "";
	size_t best_n = 0;

	split_words(&words, flags);
	for (size_t i = 0; i < AB_NELEM(build_types); i++) {
		struct ab_strv cfg = {0};
		char key[64], up[32];
		size_t k;

		for (k = 0; build_types[i][k] && k + 1 < sizeof(up); k++)
			up[k] = (char)toupper((unsigned char)build_types[i][k]);
		up[k] = '\0';
		snprintf(key, sizeof(key), "CMAKE_%s_FLAGS_%s", lang, up);
		split_words(&cfg, cache_value(cache, key));
		if (cfg.n > best_n && words_contain(&words, &cfg)) {
			best = build_types[i];
			best_n = cfg.n;
		}
		ab_strv_free(&cfg);
	}
	ab_strv_free(&words);
	return best;
}

/* a file of the build directory, never through a symlink that leaves it (a step's link to a host file) */
static int
read_if_exists(struct ab_buf *b, const char *build, const char *path, int *found)
{
	return ab_dirwalk_read_below(b, build, path, AB_READ_MAX, found);
}

static int
strv_has(const struct ab_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return 1;
	return 0;
}

static int
wanted_key(const char *key)
{
	for (size_t i = 0; i < AB_NELEM(named_keys); i++)
		if (strcmp(key, named_keys[i]) == 0)
			return 1;
	for (size_t i = 0; i < AB_NELEM(key_prefixes); i++)
		if (strncmp(key, key_prefixes[i], strlen(key_prefixes[i])) == 0)
			return 1;
	return 0;
}

static cJSON *
record_keys(const cJSON *cache)
{
	struct ab_strv names = {0};
	const cJSON *it;
	cJSON *keys = cJSON_CreateObject();

	for (size_t i = 0; i < AB_NELEM(named_keys); i++)
		ab_strv_push(&names, named_keys[i]);
	cJSON_ArrayForEach(it, cache)
		if (wanted_key(it->string) && !strv_has(&names, it->string))
			ab_strv_push(&names, it->string);
	if (names.n)
		ab_strv_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		const cJSON *e = ab_json_get(cache, names.v[i]);
		cJSON *r;

		if (e) {
			r = cJSON_CreateObject();
			cJSON_AddStringToObject(r, "type", ab_json_str(e, "type"));
			cJSON_AddStringToObject(r, "value", ab_json_str(e, "value"));
		} else if (strcmp(names.v[i], "FLB_JEMALLOC_OPTIONS") == 0) {
			/* a plain variable: absent from the cache unless passed with -D */
			r = cJSON_CreateObject();
			cJSON_AddNullToObject(r, "type");
			cJSON_AddNullToObject(r, "value");
			cJSON_AddBoolToObject(r, "defaulted", 1);
		} else {
			r = cJSON_CreateNull();
		}
		cJSON_AddItemToObject(keys, names.v[i], r);
	}
	ab_strv_free(&names);
	return keys;
}

/* CMakeFiles/<cmake version>/: the cache's version, else the only or first such directory */
static char *
find_version_dir(const char *build, const cJSON *cache)
{
	const char *maj = cache_value(cache, "CMAKE_CACHE_MAJOR_VERSION");
	const char *min = cache_value(cache, "CMAKE_CACHE_MINOR_VERSION");
	const char *pat = cache_value(cache, "CMAKE_CACHE_PATCH_VERSION");
	char *files = ab_path_join(build, "CMakeFiles"), *dir = NULL;
	struct ab_strv found = {0};
	struct dirent *de;
	DIR *d;

	if (maj && min && pat) {
		char *v = ab_sprintf("CMakeFiles/%s.%s.%s", maj, min, pat);

		dir = ab_path_join(build, v);
		if (ab_is_dir(dir)) {
			free(files);
			free(dir);
			return v;
		}
		free(dir);
		free(v);
		dir = NULL;
	}
	if ((d = opendir(files))) {
		while ((de = readdir(d)))
			if (isdigit((unsigned char)de->d_name[0]))
				ab_strv_pushf(&found, "CMakeFiles/%s", de->d_name);
		closedir(d);
	}
	if (found.n) {
		ab_strv_sort(&found);
		dir = ab_strdup(found.v[0]);
	}
	ab_strv_free(&found);
	free(files);
	return dir;
}

static int
record_compilers(cJSON *rec, const char *build, const cJSON *cache)
{
	static const char *const langs[] = {"C", "CXX"};
	char *vdir = find_version_dir(build, cache);
	cJSON *comp = cJSON_AddObjectToObject(rec, "compilers");
	int error = -1;

	for (size_t i = 0; vdir && i < AB_NELEM(langs); i++) {
		char *rel = ab_sprintf("%s/CMake%sCompiler.cmake", vdir, langs[i]);
		char *path = ab_path_join(build, rel), *k;
		struct ab_buf b = {0};
		cJSON *vars = NULL, *c;
		int found;

		if (read_if_exists(&b, build, path, &found) < 0 ||
		    (found && ab_cmakeprov_parse_compiler(&vars, b.s, b.len, path) < 0)) {
			free(rel), free(path), ab_buf_free(&b);
			goto done;
		}
		if (found) {
			c = cJSON_AddObjectToObject(comp, langs[i]);
			k = ab_sprintf("CMAKE_%s_COMPILER", langs[i]);
			cJSON_AddStringToObject(c, "path", ab_json_str(vars, k) ? ab_json_str(vars, k) : "");
			free(k);
			k = ab_sprintf("CMAKE_%s_COMPILER_ID", langs[i]);
			cJSON_AddStringToObject(c, "id", ab_json_str(vars, k) ? ab_json_str(vars, k) : "");
			free(k);
			k = ab_sprintf("CMAKE_%s_COMPILER_VERSION", langs[i]);
			cJSON_AddStringToObject(c, "version", ab_json_str(vars, k) ? ab_json_str(vars, k) : "");
			free(k);
			cJSON_AddStringToObject(c, "file", rel);
		}
		cJSON_Delete(vars);
		ab_buf_free(&b);
		free(rel);
		free(path);
	}
	error = 0;
done:
	free(vdir);
	return error;
}

/* the first executable name in search_path outside skip_dir, or NULL */
static char *
lookup_outside(const char *name, const char *search_path, const char *skip_dir)
{
	for (const char *p = search_path ? search_path : "/usr/bin:/bin";;) {
		size_t n = strcspn(p, ":");
		char *dir = n ? ab_strndup(p, n) : ab_strdup(".");
		char *cand = ab_path_join(dir, name);
		int skip = !strcmp(dir, skip_dir), ok = !skip && access(cand, X_OK) == 0;

		free(dir);
		if (ok)
			return cand;
		free(cand);
		if (!p[n])
			return NULL;
		p += n + 1;
	}
}

void
ab_cmakeprov_unwrap(cJSON *rec, const char *wrapper_dir, const char *search_path)
{
	cJSON *c;
	size_t n = strlen(wrapper_dir);

	cJSON_ArrayForEach(c, ab_json_get(rec, "compilers")) {
		const char *path = ab_json_str(c, "path");
		char *wrapper, *real;

		if (!path || strncmp(path, wrapper_dir, n) || path[n] != '/' || strchr(path + n + 1, '/'))
			continue;
		wrapper = ab_strdup(path);
		real = lookup_outside(path + n + 1, search_path, wrapper_dir);
		cJSON_ReplaceItemInObject(c, "path", real ? cJSON_CreateString(real) : cJSON_CreateNull());
		cJSON_AddStringToObject(c, "wrapper", wrapper);
		free(wrapper);
		free(real);
	}
}

/* target name -> directory relative to the build dir, from TargetDirectories.txt */
static int
list_targets(struct ab_strv *names, struct ab_strv *dirs, const char *build, const char *cache_dir, int *found)
{
	char *path = ab_path_join(build, "CMakeFiles/TargetDirectories.txt");
	struct ab_buf b = {0};
	size_t pos = 0;
	char *line;

	if (read_if_exists(&b, build, path, found) < 0) {
		free(path);
		return -1;
	}
	while (*found && (line = next_line(b.s, b.len, &pos))) {
		char *p = trim(line), *base;
		size_t n = cache_dir ? strlen(cache_dir) : 0;

		/* absolute as cmake wrote them: relative to the cache's build dir */
		if (n && strncmp(p, cache_dir, n) == 0 && p[n] == '/')
			p += n + 1;
		else if (strncmp(p, build, strlen(build)) == 0 && p[strlen(build)] == '/')
			p += strlen(build) + 1;
		base = strrchr(p, '/');
		base = base ? base + 1 : p;
		if (*p && has_suffix(base, ".dir")) {
			ab_strv_push_owned(names, ab_strndup(base, strlen(base) - 4));
			ab_strv_push(dirs, p);
		}
		free(line);
	}
	ab_buf_free(&b);
	free(path);
	return 0;
}

static int
record_target(cJSON **out, const char *build, const char *dir, const cJSON *cache)
{
	char *fpath = ab_sprintf("%s/%s/flags.make", build, dir);
	char *lpath = ab_sprintf("%s/%s/link.txt", build, dir);
	struct ab_buf fb = {0}, lb = {0};
	cJSON *t = cJSON_CreateObject(), *flags = NULL;
	int ffound, lfound, error = -1;

	*out = NULL;
	if (read_if_exists(&fb, build, fpath, &ffound) < 0 || read_if_exists(&lb, build, lpath, &lfound) < 0)
		goto done;
	if (ffound && ab_cmakeprov_parse_flags(&flags, fb.s, fb.len, fpath) < 0)
		goto done;
	cJSON_AddBoolToObject(t, "found", 1);
	cJSON_AddStringToObject(t, "dir", dir);
	if (flags) {
		const char *cf = ab_json_str(flags, "C_FLAGS"), *lang = "C";

		if (!cf) {
			cf = ab_json_str(flags, "CXX_FLAGS");
			lang = "CXX";
		}
		cJSON_AddItemToObject(t, "flags", flags);
		if (cf)
			cJSON_AddStringToObject(t, "build_type", ab_cmakeprov_detect_build_type(cache, lang, cf));
		else
			cJSON_AddNullToObject(t, "build_type");
		flags = NULL;
	} else {
		cJSON_AddNullToObject(t, "flags");
		cJSON_AddNullToObject(t, "build_type");
	}
	if (lfound) {
		cJSON *lines = cJSON_AddArrayToObject(t, "link");
		size_t pos = 0;
		char *line;

		while ((line = next_line(lb.s, lb.len, &pos))) {
			char *p = trim(line);

			if (*p)
				cJSON_AddItemToArray(lines, cJSON_CreateString(p));
			free(line);
		}
	} else {
		cJSON_AddNullToObject(t, "link");
	}
	*out = t;
	t = NULL;
	error = 0;
done:
	cJSON_Delete(t);
	cJSON_Delete(flags);
	ab_buf_free(&fb);
	ab_buf_free(&lb);
	free(fpath);
	free(lpath);
	return error;
}

static int
record_targets(cJSON *rec, const char *build, const cJSON *cache, char *const *want, size_t nwant)
{
	struct ab_strv names = {0}, dirs = {0}, order = {0};
	cJSON *targets = cJSON_AddObjectToObject(rec, "targets");
	int found, error = -1;

	if (list_targets(&names, &dirs, build, cache_value(cache, "CMAKE_CACHEFILE_DIR"), &found) < 0)
		goto done;
	cJSON_AddStringToObject(rec, "targets_from", found ? "CMakeFiles/TargetDirectories.txt" : "");
	if (nwant) {
		for (size_t i = 0; i < nwant; i++)
			if (!strv_has(&order, want[i]))
				ab_strv_push(&order, want[i]);
	} else {
		for (size_t i = 0; i < names.n; i++) {
			char *f = ab_sprintf("%s/%s/flags.make", build, dirs.v[i]);

			if (ab_path_exists(f) && !strv_has(&order, names.v[i]))
				ab_strv_push(&order, names.v[i]);
			free(f);
		}
		if (order.n)
			ab_strv_sort(&order);
	}
	for (size_t i = 0; i < order.n; i++) {
		size_t j = 0;
		cJSON *t;

		while (j < names.n && strcmp(names.v[j], order.v[i]) != 0)
			j++;
		if (j == names.n) {
			t = cJSON_CreateObject();
			cJSON_AddBoolToObject(t, "found", 0);
		} else if (record_target(&t, build, dirs.v[j], cache) < 0) {
			goto done;
		}
		cJSON_AddItemToObject(targets, order.v[i], t);
	}
	error = 0;
done:
	ab_strv_free(&names);
	ab_strv_free(&dirs);
	ab_strv_free(&order);
	return error;
}

/*
 * The effective build type: that of the first named target, or, when the
 * build named none, the most common one among the targets (the first in
 * name order on a tie). Bundled subprojects may set their own (Fluent
 * Bit's monkey, co and rbtree compile as Debug in a RelWithDebInfo build):
 * such targets are listed under "other_targets".
 */
static void
record_build_type(cJSON *rec, const cJSON *cache, int named)
{
	const cJSON *targets = ab_json_get(rec, "targets"), *t, *pick = NULL;
	const char *cached = cache_value(cache, "CMAKE_BUILD_TYPE"), *eff;
	cJSON *bt = cJSON_AddObjectToObject(rec, "build_type"), *others;
	int best = 0;

	if (cached)
		cJSON_AddStringToObject(bt, "cache", cached);
	else
		cJSON_AddNullToObject(bt, "cache");
	cJSON_ArrayForEach(t, targets) {
		const char *ty = ab_json_str(t, "build_type");
		const cJSON *u;
		int n = 0;

		if (!ty)
			continue;
		if (named) {
			pick = t;
			break;
		}
		cJSON_ArrayForEach(u, targets)
			if (ab_json_str(u, "build_type") && strcmp(ab_json_str(u, "build_type"), ty) == 0)
				n++;
		if (n > best)
			best = n, pick = t;
	}
	if (!pick) {
		cJSON_AddNullToObject(bt, "effective");
		cJSON_AddNullToObject(bt, "evidence");
		cJSON_AddBoolToObject(bt, "shadowed", 0);
		return;
	}
	eff = ab_json_str(pick, "build_type");
	{
		const cJSON *flags = ab_json_get(pick, "flags");
		const char *lang = ab_json_str(flags, "C_FLAGS") ? "C" : "CXX";
		char *fk = ab_sprintf("%s_FLAGS", lang), *up = ab_strdup(eff), *ck, *ev;

		for (char *p = up; *p; p++)
			*p = (char)toupper((unsigned char)*p);
		ck = ab_sprintf("CMAKE_%s_FLAGS_%s", lang, up);
		if (*eff)
			ev = ab_sprintf("%s: %s '%s' has %s '%s'", pick->string, fk, ab_json_str(flags, fk),
			                ck, cache_value(cache, ck));
		else
			ev = ab_sprintf("%s: %s '%s' has no CMAKE_%s_FLAGS_<CONFIG>", pick->string, fk,
			                ab_json_str(flags, fk), lang);
		cJSON_AddStringToObject(bt, "effective", eff);
		cJSON_AddStringToObject(bt, "evidence", ev);
		cJSON_AddBoolToObject(bt, "shadowed", strcmp(cached ? cached : "", eff) != 0);
		free(fk);
		free(ck);
		free(ev);
		free(up);
	}
	others = cJSON_CreateObject();
	cJSON_ArrayForEach(t, targets) {
		const char *ty = ab_json_str(t, "build_type");
		cJSON *list;

		if (!ty || strcmp(ty, eff) == 0)
			continue;
		list = ab_json_get(others, ty);
		if (!list)
			list = cJSON_AddArrayToObject(others, ty);
		cJSON_AddItemToArray(list, cJSON_CreateString(t->string));
	}
	if (cJSON_GetArraySize(others))
		cJSON_AddItemToObject(bt, "other_targets", others);
	else
		cJSON_Delete(others);
}

static int
record_jemalloc(cJSON *rec, const char *build)
{
	static const char cfgcmd[] = "jemalloc-prefix/tmp/jemalloc-cfgcmd.txt";
	static const char version[] = "jemalloc-prefix/src/jemalloc-build/VERSION";
	char *cpath = ab_path_join(build, cfgcmd), *vpath = ab_path_join(build, version);
	struct ab_buf cb = {0}, vb = {0};
	cJSON *argv = NULL, *j;
	int cfound, vfound, error = -1;

	if (read_if_exists(&cb, build, cpath, &cfound) < 0 || read_if_exists(&vb, build, vpath, &vfound) < 0)
		goto done;
	if (!cfound) {
		cJSON_AddNullToObject(rec, "jemalloc");
		error = 0;
		goto done;
	}
	if (ab_cmakeprov_parse_cfgcmd(&argv, cb.s, cb.len, cpath) < 0)
		goto done;
	j = cJSON_AddObjectToObject(rec, "jemalloc");
	cJSON_AddStringToObject(j, "cfgcmd", cfgcmd);
	cJSON_AddItemToObject(j, "configure", argv);
	/* the version jemalloc's configure settled on (once it has run) */
	if (vfound) {
		char *v = ab_strdup(trim(vb.s));

		cJSON_AddStringToObject(j, "version_file", version);
		cJSON_AddStringToObject(j, "version", v);
		cJSON_AddBoolToObject(j, "bogus_version", strstr(v, "missing_version") != NULL ||
		                      strncmp(v, "0.0.0-", 6) == 0);
		free(v);
	} else {
		cJSON_AddNullToObject(j, "version");
	}
	error = 0;
done:
	ab_buf_free(&cb);
	ab_buf_free(&vb);
	free(cpath);
	free(vpath);
	return error;
}

int
ab_cmakeprov_read(cJSON **out, const char *build_dir, char *const *targets, size_t ntargets)
{
	char *build = ab_path_absolute(build_dir);
	char *cpath = ab_path_join(build, "CMakeCache.txt");
	char hex[AB_HEX_LEN + 1], *ver = NULL;
	struct ab_buf b = {0};
	cJSON *cache = NULL, *rec = NULL, *c;
	const char *v;
	int error = -1;

	*out = NULL;
	if (!ab_path_exists(cpath)) {
		ab_error("'%s' is not a cmake build directory: no CMakeCache.txt", build_dir);
		goto done;
	}
	if (ab_dirwalk_read_below(&b, build, cpath, AB_READ_MAX, NULL) < 0 ||
	    ab_cmakeprov_parse_cache(&cache, b.s, b.len, cpath) < 0)
		goto done;
	ab_hash_buf(hex, b.s, b.len);

	rec = cJSON_CreateObject();
	cJSON_AddStringToObject(rec, "build_dir", build);
	v = cache_value(cache, "CMAKE_HOME_DIRECTORY");
	if (v)
		cJSON_AddStringToObject(rec, "source_dir", v);
	else
		cJSON_AddNullToObject(rec, "source_dir");
	/* where cmake ran, if the build directory has moved since */
	v = cache_value(cache, "CMAKE_CACHEFILE_DIR");
	if (v && strcmp(v, build) != 0)
		cJSON_AddStringToObject(rec, "cache_build_dir", v);
	c = cJSON_AddObjectToObject(rec, "cmake");
	if (cache_value(cache, "CMAKE_CACHE_MAJOR_VERSION"))
		ver = ab_sprintf("%s.%s.%s", cache_value(cache, "CMAKE_CACHE_MAJOR_VERSION"),
		                 cache_value(cache, "CMAKE_CACHE_MINOR_VERSION") ? cache_value(cache, "CMAKE_CACHE_MINOR_VERSION") : "?",
		                 cache_value(cache, "CMAKE_CACHE_PATCH_VERSION") ? cache_value(cache, "CMAKE_CACHE_PATCH_VERSION") : "?");
	cJSON_AddStringToObject(c, "version", ver ? ver : "");
	v = cache_value(cache, "CMAKE_GENERATOR");
	cJSON_AddStringToObject(c, "generator", v ? v : "");
	c = cJSON_AddObjectToObject(rec, "cache");
	cJSON_AddStringToObject(c, "path", "CMakeCache.txt");
	cJSON_AddStringToObject(c, "sha256", hex);
	cJSON_AddNumberToObject(c, "size", (double)b.len);
	cJSON_AddItemToObject(rec, "keys", record_keys(cache));
	if (record_targets(rec, build, cache, targets, ntargets) < 0)
		goto done;
	record_build_type(rec, cache, ntargets > 0);
	if (record_compilers(rec, build, cache) < 0 || record_jemalloc(rec, build) < 0)
		goto done;
	*out = rec;
	rec = NULL;
	error = 0;
done:
	cJSON_Delete(rec);
	cJSON_Delete(cache);
	ab_buf_free(&b);
	free(ver);
	free(cpath);
	free(build);
	return error;
}

/* ---- diff ---- */

struct norm {
	const char *dir[3];
	const char *as[3];
	size_t n;
};

static void
norm_init(struct norm *nm, const cJSON *rec)
{
	static const char *const fields[][2] = {
		{"build_dir", "<build>"}, {"cache_build_dir", "<build>"}, {"source_dir", "<source>"},
	};

	nm->n = 0;
	for (size_t i = 0; i < AB_NELEM(fields); i++) {
		const char *d = ab_json_str(rec, fields[i][0]);

		if (d && *d && strcmp(d, "/") != 0) {
			nm->dir[nm->n] = d;
			nm->as[nm->n++] = fields[i][1];
		}
	}
	/* longest first: a build dir inside the source dir is <build> */
	for (size_t i = 0; i < nm->n; i++)
		for (size_t j = i + 1; j < nm->n; j++)
			if (strlen(nm->dir[j]) > strlen(nm->dir[i])) {
				const char *t = nm->dir[i], *u = nm->as[i];

				nm->dir[i] = nm->dir[j], nm->as[i] = nm->as[j];
				nm->dir[j] = t, nm->as[j] = u;
			}
}

static int
path_char(int c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-' || c == '.' || c == '+';
}

/* s with the record's directories replaced by <build> and <source>; caller frees */
static char *
norm_str(const struct norm *nm, const char *s)
{
	struct ab_buf b = {0};

	ab_buf_puts(&b, "");
	while (*s) {
		size_t i;

		for (i = 0; i < nm->n; i++) {
			size_t n = strlen(nm->dir[i]);

			if (strncmp(s, nm->dir[i], n) == 0 && !path_char(s[n])) {
				ab_buf_puts(&b, nm->as[i]);
				s += n;
				break;
			}
		}
		if (i == nm->n)
			ab_buf_putc(&b, *s++);
	}
	return ab_buf_detach(&b);
}

/* a JSON argv as one shell-quoted line (ab_argv_quote); a word that is not a string counts as empty */
static char *
join_argv(const cJSON *argv)
{
	struct ab_strv v = {0};
	const cJSON *it;
	char *line;

	cJSON_ArrayForEach(it, argv)
		ab_strv_push(&v, cJSON_IsString(it) ? it->valuestring : "");
	line = ab_argv_quote(ab_strv_argv(&v));
	ab_strv_free(&v);
	return line;
}

/* add a difference when the normalised values differ; NULL means absent */
static void
diff_add(cJSON *out, const char *section, const char *key, const struct norm *na, const char *a,
         const struct norm *nb, const char *b)
{
	char *x = a ? norm_str(na, a) : NULL, *y = b ? norm_str(nb, b) : NULL;

	if ((x || y) && (!x || !y || strcmp(x, y) != 0)) {
		cJSON *d = cJSON_CreateObject();

		cJSON_AddStringToObject(d, "section", section);
		cJSON_AddStringToObject(d, "key", key);
		cJSON_AddStringToObject(d, "a", x ? x : "absent");
		cJSON_AddStringToObject(d, "b", y ? y : "absent");
		cJSON_AddItemToArray(out, d);
	}
	free(x);
	free(y);
}

/* union of the member names of two objects, a's order first */
static void
member_union(struct ab_strv *sv, const cJSON *a, const cJSON *b)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, a)
		if (it->string && !strv_has(sv, it->string))
			ab_strv_push(sv, it->string);
	cJSON_ArrayForEach(it, b)
		if (it->string && !strv_has(sv, it->string))
			ab_strv_push(sv, it->string);
}

/* a cache key as CMakeCache.txt writes it after "KEY:", NULL when absent */
static char *
key_repr(const cJSON *e)
{
	const char *t = ab_json_str(e, "type"), *v = ab_json_str(e, "value");

	return t && v ? ab_sprintf("%s=%s", t, v) : NULL;
}

/* "Debug: co rbtree; MinSizeRel: x", NULL when every target agrees */
static char *
others_repr(const cJSON *bt)
{
	const cJSON *o = ab_json_get(bt, "other_targets"), *ty, *it;
	struct ab_buf b = {0};

	if (!cJSON_IsObject(o) || !o->child)
		return NULL;
	ab_buf_puts(&b, "");
	cJSON_ArrayForEach(ty, o) {
		if (b.len)
			ab_buf_puts(&b, "; ");
		ab_buf_printf(&b, "%s:", ty->string ? ty->string : "");
		cJSON_ArrayForEach(it, ty)
			ab_buf_printf(&b, " %s", cJSON_IsString(it) ? it->valuestring : "?");
	}
	return ab_buf_detach(&b);
}

static char *
link_repr(const cJSON *t)
{
	const cJSON *l = ab_json_get(t, "link"), *it;
	struct ab_buf b = {0};

	if (!cJSON_IsArray(l))
		return NULL;
	ab_buf_puts(&b, "");
	cJSON_ArrayForEach(it, l) {
		if (b.len)
			ab_buf_putc(&b, '\n');
		ab_buf_puts(&b, cJSON_IsString(it) ? it->valuestring : "");
	}
	return ab_buf_detach(&b);
}

static void
diff_targets(cJSON *out, const struct norm *na, const cJSON *a, const struct norm *nb, const cJSON *b)
{
	const cJSON *ta = ab_json_get(a, "targets");
	const cJSON *tb = ab_json_get(b, "targets");
	struct ab_strv names = {0};

	member_union(&names, ta, tb);
	for (size_t i = 0; i < names.n; i++) {
		const cJSON *x = ab_json_get(ta, names.v[i]);
		const cJSON *y = ab_json_get(tb, names.v[i]);
		int fx = cJSON_IsTrue(ab_json_get(x, "found"));
		int fy = cJSON_IsTrue(ab_json_get(y, "found"));
		const cJSON *flx = ab_json_get(x, "flags");
		const cJSON *fly = ab_json_get(y, "flags");
		struct ab_strv vars = {0};
		char *k, *lx, *ly;

		if (fx != fy) {
			diff_add(out, "targets", names.v[i], na, fx ? "found" : NULL, nb, fy ? "found" : NULL);
			continue;
		}
		member_union(&vars, flx, fly);
		for (size_t j = 0; j < vars.n; j++) {
			k = ab_sprintf("%s:%s", names.v[i], vars.v[j]);
			diff_add(out, "targets", k, na, ab_json_str(flx, vars.v[j]), nb, ab_json_str(fly, vars.v[j]));
			free(k);
		}
		ab_strv_free(&vars);
		k = ab_sprintf("%s:build_type", names.v[i]);
		diff_add(out, "targets", k, na, ab_json_str(x, "build_type"), nb, ab_json_str(y, "build_type"));
		free(k);
		k = ab_sprintf("%s:link", names.v[i]);
		lx = link_repr(x);
		ly = link_repr(y);
		diff_add(out, "targets", k, na, lx, nb, ly);
		free(k);
		free(lx);
		free(ly);
	}
	ab_strv_free(&names);
}

int
ab_cmakeprov_diff(cJSON **out, const cJSON *a, const cJSON *b)
{
	static const char *const comp_fields[] = {"path", "id", "version"};
	const cJSON *ka = a ? ab_json_get(a, "keys") : NULL;
	const cJSON *kb = b ? ab_json_get(b, "keys") : NULL;
	const cJSON *x, *y;
	struct norm na, nb;
	struct ab_strv names = {0};
	cJSON *d;

	*out = NULL;
	if (!cJSON_IsObject(ka) || !cJSON_IsObject(kb)) {
		ab_error("cmake provenance diff: malformed record (no \"keys\" object)");
		return -1;
	}
	norm_init(&na, a);
	norm_init(&nb, b);
	d = cJSON_CreateArray();

	x = ab_json_get(a, "cmake");
	y = ab_json_get(b, "cmake");
	diff_add(d, "cmake", "version", &na, ab_json_str(x, "version"), &nb, ab_json_str(y, "version"));
	diff_add(d, "cmake", "generator", &na, ab_json_str(x, "generator"), &nb, ab_json_str(y, "generator"));

	member_union(&names, ka, kb);
	ab_strv_sort(&names);
	for (size_t i = 0; i < names.n; i++) {
		char *ra = key_repr(ab_json_get(ka, names.v[i]));
		char *rb = key_repr(ab_json_get(kb, names.v[i]));

		diff_add(d, "keys", names.v[i], &na, ra, &nb, rb);
		free(ra);
		free(rb);
	}
	ab_strv_free(&names);

	x = ab_json_get(a, "build_type");
	y = ab_json_get(b, "build_type");
	diff_add(d, "build_type", "effective", &na, ab_json_str(x, "effective"), &nb, ab_json_str(y, "effective"));
	{
		char *ox = others_repr(x), *oy = others_repr(y);

		diff_add(d, "build_type", "other_targets", &na, ox, &nb, oy);
		free(ox);
		free(oy);
	}

	x = ab_json_get(a, "compilers");
	y = ab_json_get(b, "compilers");
	member_union(&names, x, y);
	for (size_t i = 0; i < names.n; i++) {
		const cJSON *cx = ab_json_get(x, names.v[i]);
		const cJSON *cy = ab_json_get(y, names.v[i]);

		for (size_t j = 0; j < AB_NELEM(comp_fields); j++) {
			char *k = ab_sprintf("%s:%s", names.v[i], comp_fields[j]);

			diff_add(d, "compilers", k, &na, ab_json_str(cx, comp_fields[j]), &nb, ab_json_str(cy, comp_fields[j]));
			free(k);
		}
	}
	ab_strv_free(&names);

	diff_targets(d, &na, a, &nb, b);

	x = ab_json_get(a, "jemalloc");
	y = ab_json_get(b, "jemalloc");
	{
		const cJSON *cx = ab_json_get(x, "configure");
		const cJSON *cy = ab_json_get(y, "configure");
		char *jx = cJSON_IsArray(cx) ? join_argv(cx) : NULL;
		char *jy = cJSON_IsArray(cy) ? join_argv(cy) : NULL;

		diff_add(d, "jemalloc", "configure", &na, jx, &nb, jy);
		diff_add(d, "jemalloc", "version", &na, ab_json_str(x, "version"), &nb, ab_json_str(y, "version"));
		free(jx);
		free(jy);
	}
	*out = d;
	return 0;
}

cJSON *
ab_cmakeprov_doc_new(void)
{
	cJSON *doc = cJSON_CreateObject();

	/* the header every allocbuild manifest starts with (docs/manifests.md) */
	cJSON_AddStringToObject(doc, "_type", SCHEMA);
	cJSON_AddNumberToObject(doc, "version", AB_CMAKEPROV_DOC_VERSION);
	cJSON_AddNullToObject(doc, "baseline");
	cJSON_AddArrayToObject(doc, "variants");
	cJSON_AddArrayToObject(doc, "diffs");
	return doc;
}

/* the entry of label in an array of {label, ...}, or NULL */
static cJSON *
entry_of(const cJSON *variants, const char *label)
{
	cJSON *it;

	cJSON_ArrayForEach(it, variants) {
		const char *l = ab_json_str(it, "label");

		if (l && !strcmp(l, label))
			return it;
	}
	return NULL;
}

int
ab_cmakeprov_doc_add(cJSON *doc, const char *label, cJSON *rec)
{
	cJSON *variants = ab_json_get(doc, "variants");
	cJSON *diffs = ab_json_get(doc, "diffs");
	const char *base = ab_json_str(doc, "baseline");
	cJSON *d, *entry;

	if (!cJSON_IsArray(variants) || !cJSON_IsArray(diffs)) {
		ab_error("cmake provenance: not a document made by ab_cmakeprov_doc_new");
		cJSON_Delete(rec);
		return -1;
	}
	if (entry_of(variants, label)) {
		ab_error("cmake provenance: variant '%s' added twice", label);
		cJSON_Delete(rec);
		return -1;
	}
	if (base) {
		if (ab_cmakeprov_diff(&d, entry_of(variants, base), rec) < 0) {
			cJSON_Delete(rec);
			return -1;
		}
		entry = cJSON_CreateObject();
		cJSON_AddStringToObject(entry, "a", base);
		cJSON_AddStringToObject(entry, "b", label);
		cJSON_AddItemToObject(entry, "differences", d);
		cJSON_AddItemToArray(diffs, entry);
	} else {
		cJSON_ReplaceItemInObjectCaseSensitive(doc, "baseline", cJSON_CreateString(label));
	}
	/* the entry: {label, then the record's members} (one shape of "variants" in every manifest) */
	cJSON_AddItemToArray(variants, ab_json_labelled(label, rec));
	cJSON_Delete(rec);
	return 0;
}

/* a member that must be a string, else NULL; *bad set when it is there and is not one */
static char *
str_member(const cJSON *o, const char *key, int *bad)
{
	const cJSON *m = ab_json_get(o, key);

	if (m && !cJSON_IsString(m) && !cJSON_IsNull(m))
		*bad = 1;
	return cJSON_IsString(m) ? ab_strdup(m->valuestring) : NULL;
}

static int
parse_pair(struct ab_cmakeprov_pair *p, const cJSON *o, const char *file, size_t i)
{
	const cJSON *ds = ab_json_get(o, "differences"), *d;
	int bad = 0;

	p->a = str_member(o, "a", &bad);
	p->b = str_member(o, "b", &bad);
	if (!cJSON_IsObject(o) || !p->a || !p->b || bad || (ds && !cJSON_IsArray(ds))) {
		ab_error("'%s': diffs[%zu]: expected {a, b, differences: [...]} naming two variants", file, i);
		return AB_EFAIL;
	}
	p->d = ab_calloc((size_t)cJSON_GetArraySize(ds) + 1, sizeof(*p->d));
	cJSON_ArrayForEach(d, ds) {
		struct ab_cmakeprov_difference *x = &p->d[p->n++];

		x->section = str_member(d, "section", &bad);
		x->key = str_member(d, "key", &bad);
		x->a = str_member(d, "a", &bad);
		x->b = str_member(d, "b", &bad);
		if (!cJSON_IsObject(d) || bad) {
			ab_error("'%s': diffs[%zu].differences[%zu]: expected {section, key, a, b} of strings", file, i,
			    p->n - 1);
			return AB_EFAIL;
		}
	}
	return 0;
}

/* variants: [{label, ...record}] (version 2), or {label: record} (version 1, still read) */
static int
parse_variants(struct ab_cmakeprov_doc *out, const cJSON *vs, const char *file)
{
	const cJSON *it;
	size_t i = 0;

	if (!cJSON_IsArray(vs) && !cJSON_IsObject(vs)) {
		ab_error("'%s': variants: expected an array", file);
		return AB_EFAIL;
	}
	out->variants = ab_calloc((size_t)cJSON_GetArraySize(vs) + 1, sizeof(*out->variants));
	cJSON_ArrayForEach(it, vs) {
		struct ab_cmakeprov_entry *v = &out->variants[out->nvariants];
		const char *label = cJSON_IsObject(vs) ? it->string : ab_json_str(it, "label");

		if (!cJSON_IsObject(it) || !label || !*label) {
			ab_error("'%s': variants[%zu].label: a variant's record without its label", file, i);
			return AB_EFAIL;
		}
		for (size_t k = 0; k < out->nvariants; k++)
			if (!strcmp(out->variants[k].label, label)) {
				ab_error("'%s': variants[%zu].label: '%s' twice", file, i, label);
				return AB_EFAIL;
			}
		v->label = ab_strdup(label);
		v->record = cJSON_Duplicate(it, 1);
		if (cJSON_IsArray(vs))
			cJSON_Delete(cJSON_DetachItemFromObjectCaseSensitive(v->record, "label"));
		out->nvariants++;
		i++;
	}
	return 0;
}

int
ab_cmakeprov_doc_parse(struct ab_cmakeprov_doc *out, const cJSON *doc, const char *file)
{
	const cJSON *ver = ab_json_get(doc, "version");
	const cJSON *diffs = ab_json_get(doc, "diffs"), *it;
	int bad = 0;
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(doc)) {
		ab_error("'%s': expected a JSON object", file);
		return AB_EFAIL;
	}
	if (!cJSON_IsNumber(ver) || ver->valuedouble < 1 || ver->valuedouble > AB_CMAKEPROV_DOC_VERSION ||
	    ver->valuedouble != (double)ver->valueint) {
		ab_error("'%s': version: expected 1 to %d", file, AB_CMAKEPROV_DOC_VERSION);
		return AB_EFAIL;
	}
	out->version = ver->valueint;
	out->baseline = str_member(doc, "baseline", &bad);
	if (bad) {
		ab_error("'%s': baseline: expected a variant's label", file);
		goto fail;
	}
	if (parse_variants(out, ab_json_get(doc, "variants"), file) < 0)
		goto fail;
	if (!cJSON_IsArray(diffs)) {
		ab_error("'%s': diffs: expected an array", file);
		goto fail;
	}
	out->diffs = ab_calloc((size_t)cJSON_GetArraySize(diffs) + 1, sizeof(*out->diffs));
	cJSON_ArrayForEach(it, diffs)
		if (parse_pair(&out->diffs[out->ndiffs++], it, file, i++) < 0)
			goto fail;
	return 0;
fail:
	ab_cmakeprov_doc_release(out);
	return AB_EFAIL;
}

void
ab_cmakeprov_doc_release(struct ab_cmakeprov_doc *d)
{
	for (size_t i = 0; i < d->nvariants; i++) {
		free(d->variants[i].label);
		cJSON_Delete(d->variants[i].record);
	}
	for (size_t i = 0; i < d->ndiffs; i++) {
		for (size_t k = 0; k < d->diffs[i].n; k++) {
			free(d->diffs[i].d[k].section);
			free(d->diffs[i].d[k].key);
			free(d->diffs[i].d[k].a);
			free(d->diffs[i].d[k].b);
		}
		free(d->diffs[i].a);
		free(d->diffs[i].b);
		free(d->diffs[i].d);
	}
	free(d->variants);
	free(d->diffs);
	free(d->baseline);
	memset(d, 0, sizeof(*d));
}
