#include "toolchain.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/jsonio.h"
#include "../../lib/proc.h"
#include "../../lib/util.h"

#define CACHE_FORMAT "allocbuild-toolchain 1"
#define DPKG_STATUS "/var/lib/dpkg/status"

/* how a tool's file is found and how its version is read */
enum find { BY_PATH, BY_PROG_NAME, BY_FILE_NAME };
enum version { VER_FLAG, VER_BANNER, VER_RUN, VER_NONE };

static const struct tool {
	const char *name;
	enum find find;
	const char *what;  /* the program looked up, or what the compiler is asked for */
	const char *via;   /* the compiler asked (BY_PROG_NAME, BY_FILE_NAME, VER_BANNER) */
	enum version version;
	const char *only;  /* the build system that alone uses it, or NULL */
} tools[] = {
	{"cc", BY_PATH, "cc", NULL, VER_FLAG, NULL},
	{"cc1", BY_PROG_NAME, "cc1", "cc", VER_BANNER, NULL},
	{"c++", BY_PATH, "c++", NULL, VER_FLAG, NULL},
	{"cc1plus", BY_PROG_NAME, "cc1plus", "c++", VER_BANNER, NULL},
	{"as", BY_PROG_NAME, "as", "cc", VER_FLAG, NULL},
	{"ld", BY_PROG_NAME, "ld", "cc", VER_FLAG, NULL},
	{"ar", BY_PATH, "ar", NULL, VER_FLAG, NULL},
	{"make", BY_PATH, "make", NULL, VER_FLAG, NULL},
	{"cmake", BY_PATH, "cmake", NULL, VER_FLAG, "cmake"},
	{"autoconf", BY_PATH, "autoconf", NULL, VER_FLAG, NULL},
	{"libc", BY_FILE_NAME, "libc.so.6", "cc", VER_RUN, NULL},
	{"libc-dev", BY_FILE_NAME, "crt1.o", "cc", VER_NONE, NULL},
	{"cargo", BY_PATH, "cargo", NULL, VER_FLAG, "cargo"},
	{"rustc", BY_PATH, "rustc", NULL, VER_FLAG, "cargo"},
};

struct ctx {
	const char *path;
	struct ab_env env;
};

/* ---- running and finding ---- */

/* stdout (or with err, stderr too) of argv, NULL when it did not run or exit 0 */
static char *
run(struct ctx *c, char *const *argv, int want_err)
{
	struct ab_proc p = {.argv = argv, .envp = ab_env_envp(&c->env), .max_output = 1 << 20};
	struct ab_proc_result res;
	struct ab_buf out = {0}, err = {0};
	char *s = NULL;

	p.out = &out;
	p.err = &err;
	/* a missing tool is not an error: its absence is part of the record */
	ab_report_mute();
	if (ab_proc_run(&res, &p) == 0 && res.exit_code == 0) {
		if (want_err) {
			ab_buf_add(&out, err.s ? err.s : "", err.len);
		}
		s = ab_buf_detach(&out);
	}
	ab_report_unmute();
	ab_buf_free(&out);
	ab_buf_free(&err);
	return s;
}

static char *
first_line(const char *s)
{
	return s ? ab_strndup(s, strcspn(s, "\n")) : NULL;
}

/* name looked up in PATH as execvp does; NULL when not there */
static char *
lookup(const struct ctx *c, const char *name)
{
	const char *p = c->path;

	if (strchr(name, '/'))
		return access(name, X_OK) == 0 ? ab_strdup(name) : NULL;
	for (;;) {
		size_t n = strcspn(p, ":");
		char *dir = n ? ab_strndup(p, n) : ab_strdup(".");
		char *cand = ab_path_join(dir, name);
		struct stat st;

		free(dir);
		if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
			return cand;
		free(cand);
		if (!p[n])
			return NULL;
		p += n + 1;
	}
}

/* what `via -print-prog-name=X` or `-print-file-name=X` says, as an existing absolute path */
static char *
ask_compiler(struct ctx *c, const char *via, const char *opt, const char *what)
{
	char *arg = ab_sprintf("%s=%s", opt, what), *argv[] = {(char *)via, arg, NULL};
	char *out = run(c, argv, 0), *line = first_line(out), *path = NULL;

	free(arg);
	free(out);
	if (line && *line) {
		path = strchr(line, '/') ? ab_strdup(line) : lookup(c, line);
		if (path && !ab_path_exists(path)) {
			free(path);
			path = NULL;
		}
	}
	free(line);
	return path;
}

/* the banner cc1 or cc1plus prints for `cc -v` ("GNU C17 (Debian ...) version 12.2.0 ...") */
static char *
banner(struct ctx *c, const char *via)
{
	const char *lang = strcmp(via, "c++") ? "c" : "c++";
	char *argv[] = {(char *)via, "-v", "-x", (char *)lang, "-fsyntax-only", "/dev/null", NULL};
	char *out = run(c, argv, 1), *line = NULL;

	for (const char *s = out; s && *s;) {
		size_t n = strcspn(s, "\n");

		if (n > 4 && !strncmp(s, "GNU C", 5)) {
			line = ab_strndup(s, n);
			break;
		}
		s += n + (s[n] == '\n');
	}
	free(out);
	return line;
}

static char *
version_of(struct ctx *c, const struct tool *t, const char *path)
{
	char *out, *line;

	switch (t->version) {
	case VER_FLAG: {
		struct ab_tool_id id;

		ab_toolchain_identify(&id, path, ab_env_envp(&c->env));
		line = id.version;
		id.version = NULL;
		ab_tool_id_release(&id);
		return line;
	}
	case VER_RUN: {
		char *argv[] = {(char *)path, NULL};

		out = run(c, argv, 0);
		break;
	}
	case VER_BANNER:
		return banner(c, t->via);
	default:
		return NULL;
	}
	line = first_line(out);
	free(out);
	return line;
}

static char *
real_path(const char *p)
{
	char buf[PATH_MAX];

	return realpath(p, buf) ? ab_strdup(buf) : ab_strdup(p);
}

/* ---- packages ---- */

/* the names dpkg may know a file by: as found, resolved, and without a merged /usr */
static void
dpkg_names(struct ab_strv *out, const char *path, const char *file)
{
	/* the file first: its package owns the program, a link may belong to another (ar: binutils) */
	const char *both[] = {file ? file : path, path};

	for (size_t i = 0; i < 2; i++) {
		ab_strv_push(out, both[i]);
		if (!strncmp(both[i], "/usr/", 5) &&
		    (!strncmp(both[i] + 4, "/lib", 4) || !strncmp(both[i] + 4, "/bin/", 5) || !strncmp(both[i] + 4, "/sbin/", 6)))
			ab_strv_push(out, both[i] + 4);
	}
}

/* "pkg[:arch][, pkg2]: /path" lines of dpkg-query -S into path -> first package */
static void
parse_search(cJSON *owners, const char *out)
{
	for (const char *s = out; s && *s;) {
		size_t n = strcspn(s, "\n");
		char *line = ab_strndup(s, n), *sep = strstr(line, ": ");

		s += n + (s[n] == '\n');
		if (!sep || !strncmp(line, "diversion ", 10)) {
			free(line);
			continue;
		}
		*sep = '\0';
		line[strcspn(line, ",")] = '\0';
		if (!ab_json_get(owners, sep + 2))
			cJSON_AddStringToObject(owners, sep + 2, line);
		free(line);
	}
}

/* "pkg\tversion\tarch" lines of dpkg-query -W into pkg -> {version, architecture} */
static void
parse_show(cJSON *pkgs, const char *out)
{
	for (const char *s = out; s && *s;) {
		size_t n = strcspn(s, "\n");
		char *line = ab_strndup(s, n), *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;

		s += n + (s[n] == '\n');
		if (t2) {
			cJSON *p = cJSON_CreateObject();

			*t1 = *t2 = '\0';
			cJSON_AddStringToObject(p, "version", t1 + 1);
			cJSON_AddStringToObject(p, "architecture", t2 + 1);
			cJSON_DeleteItemFromObject(pkgs, line);
			cJSON_AddItemToObject(pkgs, line, p);
		}
		free(line);
	}
}

/* the ID of /etc/os-release ("debian"), for package URLs */
static char *
os_id(void)
{
	struct ab_buf b = {0};
	char *id = NULL;

	ab_report_mute();
	if (ab_read_file(&b, "/etc/os-release") == 0)
		for (const char *s = b.s; s && *s;) {
			size_t n = strcspn(s, "\n");

			if (!strncmp(s, "ID=", 3)) {
				id = ab_strndup(s + 3, n - 3);
				if (id[0] == '"') {
					memmove(id, id + 1, strlen(id));
					id[strcspn(id, "\"")] = '\0';
				}
				break;
			}
			s += n + (s[n] == '\n');
		}
	ab_report_unmute();
	ab_buf_free(&b);
	return id ? id : ab_strdup("debian");
}

/* a purl component: everything but unreserved characters percent-encoded */
static void
put_purl(struct ab_buf *b, const char *s)
{
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || strchr(".-_~", ch))
			ab_buf_putc(b, ch);
		else
			ab_buf_printf(b, "%%%02X", ch);
	}
}

/* the package of each tool found, with one dpkg-query -S and one dpkg-query -W */
static void
add_packages(struct ctx *c, cJSON *record)
{
	struct ab_strv search = {0}, show = {0};
	cJSON *owners = cJSON_CreateObject(), *pkgs = cJSON_CreateObject(), *it;
	char *id = os_id(), *out;

	ab_strv_push(&search, "dpkg-query");
	ab_strv_push(&search, "-S");
	cJSON_ArrayForEach(it, record)
		if (ab_json_str(it, "path"))
			dpkg_names(&search, ab_json_str(it, "path"), ab_json_str(it, "file"));
	/* exit 1 when one name is not found: the others are still printed */
	{
		struct ab_proc p = {.argv = ab_strv_argv(&search), .envp = ab_env_envp(&c->env)};
		struct ab_proc_result res;
		struct ab_buf o = {0};

		p.out = &o;
		ab_report_mute();
		if (search.n > 2 && ab_proc_run(&res, &p) == 0)
			parse_search(owners, o.s);
		ab_report_unmute();
		ab_buf_free(&o);
	}
	ab_strv_push(&show, "dpkg-query");
	ab_strv_push(&show, "-W");
	ab_strv_push(&show, "-f=${binary:Package}\t${Version}\t${Architecture}\n");
	cJSON_ArrayForEach(it, owners)
		ab_strv_push(&show, it->valuestring);
	if (show.n > 3 && (out = run(c, ab_strv_argv(&show), 0))) {
		parse_show(pkgs, out);
		free(out);
	}
	cJSON_ArrayForEach(it, record) {
		const char *path = ab_json_str(it, "path"), *file = ab_json_str(it, "file"), *owner = NULL;
		struct ab_strv names = {0};
		const cJSON *pkg;

		if (path) {
			dpkg_names(&names, path, file);
			for (size_t i = 0; i < names.n && !owner; i++)
				owner = ab_json_str(owners, names.v[i]);
		}
		ab_strv_free(&names);
		pkg = owner ? ab_json_get(pkgs, owner) : NULL;
		if (pkg) {
			struct ab_buf u = {0};
			char *name = ab_strndup(owner, strcspn(owner, ":"));

			cJSON_ReplaceItemInObject(it, "package", cJSON_CreateString(name));
			cJSON_ReplaceItemInObject(it, "package_version", cJSON_CreateString(ab_json_str(pkg, "version")));
			cJSON_ReplaceItemInObject(it, "architecture", cJSON_CreateString(ab_json_str(pkg, "architecture")));
			ab_buf_puts(&u, "pkg:deb/");
			put_purl(&u, id);
			ab_buf_putc(&u, '/');
			put_purl(&u, name);
			ab_buf_putc(&u, '@');
			put_purl(&u, ab_json_str(pkg, "version"));
			ab_buf_puts(&u, "?arch=");
			put_purl(&u, ab_json_str(pkg, "architecture"));
			cJSON_ReplaceItemInObject(it, "uri", cJSON_CreateString(u.s));
			ab_buf_free(&u);
			free(name);
		} else if (file) {
			char *uri = ab_sprintf("file://%s", file);

			cJSON_ReplaceItemInObject(it, "uri", cJSON_CreateString(uri));
			free(uri);
		}
	}
	cJSON_Delete(owners);
	cJSON_Delete(pkgs);
	ab_strv_free(&search);
	ab_strv_free(&show);
	free(id);
}

/* ---- the record ---- */

/* the entry of tool t found at path (NULL: not there; taken), without its package */
static cJSON *
tool_entry(struct ctx *c, const struct tool *t, char *path)
{
	cJSON *o = cJSON_CreateObject();
	char *file = NULL, *version = NULL;

	if (path) {
		char *norm = real_path(path);

		file = norm;
		/* the compiler's answers hold ".." components: the path as the tool itself is found */
		if (t->find != BY_PATH) {
			free(path);
			path = ab_strdup(norm);
		}
		version = version_of(c, t, path);
	}
	cJSON_AddStringToObject(o, "name", t->name);
	ab_json_add_str_or_null(o, "path", path);
	ab_json_add_str_or_null(o, "file", file);
	ab_json_add_str_or_null(o, "version", version);
	cJSON_AddNullToObject(o, "package");
	cJSON_AddNullToObject(o, "package_version");
	cJSON_AddNullToObject(o, "architecture");
	cJSON_AddNullToObject(o, "uri");
	free(path);
	free(file);
	free(version);
	return o;
}

void
ab_toolchain_replace(cJSON *tools_of, const char *name, const char *path)
{
	struct ctx c = {.path = getenv("PATH")};
	cJSON *one = cJSON_CreateArray(), *it;
	int i = 0;

	if (!c.path)
		c.path = "/usr/local/bin:/usr/bin:/bin";
	for (size_t k = 0; k < AB_NELEM(tools); k++)
		if (!strcmp(tools[k].name, name) && tools[k].find == BY_PATH)
			cJSON_AddItemToArray(one, tool_entry(&c, &tools[k], access(path, X_OK) == 0 ? ab_strdup(path) : NULL));
	if (!cJSON_GetArraySize(one)) {
		cJSON_Delete(one);
		return;
	}
	ab_env_scrubbed(&c.env);
	ab_env_set(&c.env, "PATH", c.path);
	add_packages(&c, one);
	ab_env_release(&c.env);
	it = cJSON_DetachItemFromArray(one, 0);
	cJSON_Delete(one);
	for (const cJSON *t = tools_of ? tools_of->child : NULL; t; t = t->next, i++)
		if (ab_json_str(t, "name") && !strcmp(ab_json_str(t, "name"), name)) {
			cJSON_ReplaceItemInArray(tools_of, i, it);
			return;
		}
	cJSON_AddItemToArray(tools_of, it);
}

static cJSON *
make_record(struct ctx *c)
{
	cJSON *record = cJSON_CreateArray();

	for (size_t i = 0; i < AB_NELEM(tools); i++) {
		const struct tool *t = &tools[i];
		char *path;

		if (t->find == BY_PATH)
			path = lookup(c, t->what);
		else
			path = ask_compiler(c, t->via, t->find == BY_PROG_NAME ? "-print-prog-name" : "-print-file-name", t->what);
		cJSON_AddItemToArray(record, tool_entry(c, t, path));
	}
	add_packages(c, record);
	return record;
}

/* ---- the cache ---- */

static void
stamp_file(struct ab_buf *b, const char *path)
{
	struct stat st;

	if (path && stat(path, &st) == 0)
		ab_buf_printf(b, "%s %lu %lu %lld %lld.%09ld\n", path, (unsigned long)st.st_dev, (unsigned long)st.st_ino,
		    (long long)st.st_size, (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
	else
		ab_buf_printf(b, "%s missing\n", path ? path : "?");
}

/*
 * What the record depends on, cheaply: PATH, and the identity of every
 * program the tools are found through and of dpkg's status file (a
 * package installed or upgraded changes it)
 */
static char *
stamp(struct ctx *c)
{
	struct ab_buf b = {0};

	ab_buf_printf(&b, "%s\nPATH=%s\n", CACHE_FORMAT, c->path);
	for (size_t i = 0; i < AB_NELEM(tools); i++) {
		const char *name = tools[i].find == BY_PATH ? tools[i].what : tools[i].via;
		char *p = lookup(c, name);

		stamp_file(&b, p ? p : name);
		if (tools[i].find == BY_PROG_NAME) {
			char *q = lookup(c, tools[i].what);

			stamp_file(&b, q ? q : tools[i].what);
			free(q);
		}
		free(p);
	}
	stamp_file(&b, DPKG_STATUS);
	return ab_buf_detach(&b);
}

int
ab_toolchain_record(cJSON **out, const struct ab_toolchain_opts *o)
{
	struct ctx c = {.path = o->path ? o->path : getenv("PATH")};
	cJSON *cached = NULL, *doc;
	char *st;
	int error = 0;

	if (!c.path)
		c.path = "/usr/local/bin:/usr/bin:/bin";
	ab_env_scrubbed(&c.env);
	ab_env_set(&c.env, "PATH", c.path);
	st = stamp(&c);
	if (o->cache && ab_path_exists(o->cache)) {
		ab_report_mute();
		/* an unreadable cache is made again */
		if (ab_json_read(&cached, o->cache) == 0 && ab_json_str(cached, "stamp") &&
		    !strcmp(ab_json_str(cached, "stamp"), st) && cJSON_IsArray(ab_json_get(cached, "record"))) {
			*out = cJSON_DetachItemFromObject(cached, "record");
			ab_report_unmute();
			goto done;
		}
		ab_report_unmute();
	}
	*out = make_record(&c);
	if (o->cache) {
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "stamp", st);
		cJSON_AddItemToObject(doc, "record", cJSON_Duplicate(*out, 1));
		error = ab_json_write(o->cache, doc);
		cJSON_Delete(doc);
	}
done:
	cJSON_Delete(cached);
	free(st);
	ab_env_release(&c.env);
	return error;
}

int
ab_toolchain_only(const char *name, const char *system)
{
	for (size_t i = 0; name && i < AB_NELEM(tools); i++)
		if (!strcmp(tools[i].name, name))
			return tools[i].only && !strcmp(tools[i].only, system);
	return 0;
}

cJSON *
ab_toolchain_select(const cJSON *record, const char *system)
{
	cJSON *a = cJSON_CreateArray();
	const cJSON *it;

	cJSON_ArrayForEach(it, record) {
		const char *name = ab_json_str(it, "name");
		int skip = 0;

		for (size_t i = 0; name && i < AB_NELEM(tools); i++)
			if (!strcmp(tools[i].name, name) && tools[i].only && (!system || strcmp(tools[i].only, system)))
				skip = 1;
		if (!skip)
			cJSON_AddItemToArray(a, cJSON_Duplicate(it, 1));
	}
	return a;
}

static int
same_str(const cJSON *a, const cJSON *b, const char *key)
{
	const char *x = ab_json_str(a, key), *y = ab_json_str(b, key);

	return x == y || (x && y && !strcmp(x, y));
}

void
ab_toolchain_descriptors(cJSON *arr, const cJSON *record)
{
	static const char *const notes[] = {"path", "file", "version", "package", "package_version", "architecture"};
	const cJSON *it, *have;

	cJSON_ArrayForEach(it, record) {
		cJSON *d, *an;
		int dup = 0;

		if (!ab_json_str(it, "path"))
			continue;
		cJSON_ArrayForEach(have, arr) {
			const cJSON *hn = ab_json_get(have, "annotations");

			if (same_str(have, it, "name") && same_str(hn, it, "file") && same_str(hn, it, "version") &&
			    same_str(hn, it, "package_version"))
				dup = 1;
		}
		if (dup)
			continue;
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "name", ab_json_str(it, "name"));
		if (ab_json_str(it, "uri"))
			cJSON_AddStringToObject(d, "uri", ab_json_str(it, "uri"));
		an = cJSON_AddObjectToObject(d, "annotations");
		for (size_t i = 0; i < AB_NELEM(notes); i++)
			if (ab_json_str(it, notes[i]))
				cJSON_AddStringToObject(an, notes[i], ab_json_str(it, notes[i]));
		cJSON_AddItemToArray(arr, d);
	}
}

static const cJSON *
tool_named(const cJSON *record, const char *name)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, record)
		if (ab_json_str(it, "name") && !strcmp(ab_json_str(it, "name"), name))
			return it;
	return NULL;
}

/* "version (package package_version)", or "missing" */
static char *
describe(const cJSON *t)
{
	const char *v = ab_json_str(t, "version"), *pkg = ab_json_str(t, "package"), *pv = ab_json_str(t, "package_version");

	if (!t || !ab_json_str(t, "path"))
		return ab_strdup("missing");
	if (pkg && pv)
		return ab_sprintf("%s (%s %s)", v ? v : "?", pkg, pv);
	return ab_sprintf("%s (%s)", v ? v : "?", ab_json_str(t, "file") ? ab_json_str(t, "file") : "?");
}

cJSON *
ab_toolchain_diff(const cJSON *a, const cJSON *b)
{
	cJSON *d = cJSON_CreateArray();
	const cJSON *it;

	for (int pass = 0; pass < 2; pass++)
		cJSON_ArrayForEach(it, (pass ? b : a)) {
			const char *name = ab_json_str(it, "name");
			const cJSON *x = pass ? tool_named(a, name) : it, *y = pass ? it : tool_named(b, name);
			char *dx, *dy;

			/* a tool of b that a has was compared in the first pass */
			if (!name || (pass && x))
				continue;
			dx = describe(x);
			dy = describe(y);
			if (strcmp(dx, dy)) {
				char *line = ab_sprintf("%s: %s -> %s", name, dx, dy);

				cJSON_AddItemToArray(d, cJSON_CreateString(line));
				free(line);
			}
			free(dx);
			free(dy);
		}
	return d;
}

/* ---- a tool's identity ---- */

void
ab_toolchain_identify(struct ab_tool_id *out, const char *tool, char *const *envp)
{
	char *argv[] = {(char *)tool, "--version", NULL};
	struct ab_proc p = {.argv = argv, .envp = envp, .max_output = 1 << 20};
	struct ab_proc_result res;
	struct ab_buf o = {0}, err = {0};
	int ok;

	memset(out, 0, sizeof(*out));
	out->name = ab_strdup(tool);
	p.out = &o;
	p.err = &err;
	/* a missing tool is not an error: its absence is part of the record */
	ab_report_mute();
	ok = ab_proc_run(&res, &p) == 0 && res.exit_code == 0 && o.s;
	ab_report_unmute();
	if (ok) {
		out->version = first_line(o.s);
		ab_hash_buf(out->sha256, o.s, o.len);
	}
	ab_buf_free(&o);
	ab_buf_free(&err);
}

void
ab_tool_ids_add(struct ab_tool_ids *ids, const char *name, char *const *envp)
{
	ids->v = ab_realloc(ids->v, (ids->n + 1) * sizeof(*ids->v));
	ab_toolchain_identify(&ids->v[ids->n++], name, envp);
}

cJSON *
ab_tool_ids_json(const struct ab_tool_ids *ids)
{
	cJSON *o = cJSON_CreateObject();

	for (size_t i = 0; i < ids->n; i++) {
		const struct ab_tool_id *t = &ids->v[i];
		cJSON *e = cJSON_AddObjectToObject(o, t->name);

		ab_json_add_str_or_null(e, "version", t->version);
		if (t->version)
			cJSON_AddStringToObject(e, "version_output_sha256", t->sha256);
	}
	return o;
}

int
ab_tool_ids_parse(struct ab_tool_ids *out, const cJSON *doc)
{
	const cJSON *it;

	memset(out, 0, sizeof(*out));
	if (!cJSON_IsObject(doc)) {
		ab_error("internalParameters.toolchain: not an object");
		return AB_EFAIL;
	}
	out->v = ab_calloc((size_t)cJSON_GetArraySize(doc) + 1, sizeof(*out->v));
	cJSON_ArrayForEach(it, doc) {
		struct ab_tool_id *t = &out->v[out->n++];
		const char *v = ab_json_str(it, "version"), *sha = ab_json_str(it, "version_output_sha256");

		t->name = ab_strdup(it->string);
		t->version = ab_strdup_or_null(v);
		snprintf(t->sha256, sizeof(t->sha256), "%s", sha ? sha : "");
	}
	return 0;
}

void
ab_tool_id_release(struct ab_tool_id *t)
{
	free(t->name);
	free(t->version);
}

void
ab_tool_ids_release(struct ab_tool_ids *ids)
{
	for (size_t i = 0; i < ids->n; i++)
		ab_tool_id_release(&ids->v[i]);
	free(ids->v);
	memset(ids, 0, sizeof(*ids));
}
