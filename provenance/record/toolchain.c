#include "toolchain.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/jsonio.h"
#include "../../lib/proc.h"
#include "../../lib/strmap.h"
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
	const struct ab_sandbox *sandbox; /* non-NULL: what runs, runs there (a recipe's tool) */
};

/* ---- running and finding ---- */

/* stdout (or with err, stderr too) of argv, NULL when it did not run or exit 0 */
static char *
run(struct ctx *c, char *const *argv, int want_err)
{
	struct ab_proc p = {.argv = argv, .envp = ab_env_envp(&c->env), .max_output = 1 << 20, .sandbox = c->sandbox};
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

		ab_toolchain_identify(&id, path, ab_env_envp(&c->env), c->sandbox);
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

/*
 * "pkg[:arch][, pkg2]: /path" lines of dpkg-query -S: each path's first
 * package, keyed (the first line of a path wins) by path
 */
struct owners {
	struct ab_strv path, pkg;
	struct ab_strmap at;
};

static void
parse_search(struct owners *o, const char *out)
{
	for (const char *s = out; s && *s;) {
		size_t n = strcspn(s, "\n");
		char *line = ab_strndup(s, n), *sep = strstr(line, ": ");

		s += n + (s[n] == '\n');
		if (sep && strncmp(line, "diversion ", 10)) {
			*sep = '\0';
			line[strcspn(line, ",")] = '\0';
			ab_strv_push(&o->path, sep + 2);
			ab_strv_push(&o->pkg, line);
			/* keys are the strv's own strings: they stay where they are as it grows */
			ab_strmap_put(&o->at, o->path.v[o->path.n - 1], o->path.n - 1);
		}
		free(line);
	}
}

/* "pkg\tversion\tarch" lines of dpkg-query -W: each package's version and architecture (the last line wins) */
struct pkgs {
	struct ab_strv name, version, arch;
	struct ab_strmap at;
};

static void
parse_show(struct pkgs *p, const char *out)
{
	for (const char *s = out; s && *s;) {
		size_t n = strcspn(s, "\n");
		char *line = ab_strndup(s, n), *t1 = strchr(line, '\t'), *t2 = t1 ? strchr(t1 + 1, '\t') : NULL;
		size_t i;

		s += n + (s[n] == '\n');
		if (t2) {
			*t1 = *t2 = '\0';
			if (ab_strmap_get(&p->at, line, &i)) {
				free(p->version.v[i]);
				free(p->arch.v[i]);
				p->version.v[i] = ab_strdup(t1 + 1);
				p->arch.v[i] = ab_strdup(t2 + 1);
			} else {
				ab_strv_push(&p->name, line);
				ab_strv_push(&p->version, t1 + 1);
				ab_strv_push(&p->arch, t2 + 1);
				ab_strmap_put(&p->at, p->name.v[p->name.n - 1], p->name.n - 1);
			}
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

/* the package that owns tool t, from what dpkg-query said, into t */
static void
set_package(struct ab_tool *t, const struct owners *o, const struct pkgs *p, const char *id)
{
	struct ab_strv names = {0};
	const char *owner = NULL;
	size_t i;

	if (t->path) {
		dpkg_names(&names, t->path, t->file);
		for (size_t k = 0; k < names.n && !owner; k++)
			if (ab_strmap_get(&o->at, names.v[k], &i))
				owner = o->pkg.v[i];
	}
	ab_strv_free(&names);
	if (owner && ab_strmap_get(&p->at, owner, &i)) {
		struct ab_buf u = {0};

		t->package = ab_strndup(owner, strcspn(owner, ":"));
		t->package_version = ab_strdup(p->version.v[i]);
		t->architecture = ab_strdup(p->arch.v[i]);
		ab_buf_puts(&u, "pkg:deb/");
		put_purl(&u, id);
		ab_buf_putc(&u, '/');
		put_purl(&u, t->package);
		ab_buf_putc(&u, '@');
		put_purl(&u, t->package_version);
		ab_buf_puts(&u, "?arch=");
		put_purl(&u, t->architecture);
		t->uri = ab_buf_detach(&u);
	} else if (t->file) {
		t->uri = ab_sprintf("file://%s", t->file);
	}
}

/* the package of each tool found, with one dpkg-query -S and one dpkg-query -W */
static void
add_packages(struct ctx *c, struct ab_toolchain *record)
{
	struct ab_strv search = {0}, show = {0};
	struct owners o = {0};
	struct pkgs p = {0};
	char *id = os_id(), *out;

	ab_strv_push(&search, "dpkg-query");
	ab_strv_push(&search, "-S");
	for (size_t i = 0; i < record->n; i++)
		if (record->v[i].path)
			dpkg_names(&search, record->v[i].path, record->v[i].file);
	/* exit 1 when one name is not found: the others are still printed */
	{
		struct ab_proc pr = {.argv = ab_strv_argv(&search), .envp = ab_env_envp(&c->env)};
		struct ab_proc_result res;
		struct ab_buf b = {0};

		pr.out = &b;
		ab_report_mute();
		if (search.n > 2 && ab_proc_run(&res, &pr) == 0)
			parse_search(&o, b.s);
		ab_report_unmute();
		ab_buf_free(&b);
	}
	ab_strv_push(&show, "dpkg-query");
	ab_strv_push(&show, "-W");
	ab_strv_push(&show, "-f=${binary:Package}\t${Version}\t${Architecture}\n");
	/* each package once, in first-seen order */
	for (size_t i = 0; i < o.pkg.n; i++)
		if (!ab_strv_has(&show, o.pkg.v[i]))
			ab_strv_push(&show, o.pkg.v[i]);
	if (show.n > 3 && (out = run(c, ab_strv_argv(&show), 0))) {
		parse_show(&p, out);
		free(out);
	}
	for (size_t i = 0; i < record->n; i++)
		set_package(&record->v[i], &o, &p, id);
	ab_strmap_free(&o.at);
	ab_strv_free(&o.path);
	ab_strv_free(&o.pkg);
	ab_strmap_free(&p.at);
	ab_strv_free(&p.name);
	ab_strv_free(&p.version);
	ab_strv_free(&p.arch);
	ab_strv_free(&search);
	ab_strv_free(&show);
	free(id);
}

/* ---- the record ---- */

static struct ab_tool *
push_tool(struct ab_toolchain *t)
{
	t->v = ab_realloc(t->v, (t->n + 1) * sizeof(*t->v));
	memset(&t->v[t->n], 0, sizeof(t->v[t->n]));
	return &t->v[t->n++];
}

static void
tool_release(struct ab_tool *t)
{
	free(t->name);
	free(t->path);
	free(t->file);
	free(t->version);
	free(t->package);
	free(t->package_version);
	free(t->architecture);
	free(t->uri);
	memset(t, 0, sizeof(*t));
}

static void
tool_copy(struct ab_tool *to, const struct ab_tool *t)
{
	to->name = ab_strdup_or_null(t->name);
	to->path = ab_strdup_or_null(t->path);
	to->file = ab_strdup_or_null(t->file);
	to->version = ab_strdup_or_null(t->version);
	to->package = ab_strdup_or_null(t->package);
	to->package_version = ab_strdup_or_null(t->package_version);
	to->architecture = ab_strdup_or_null(t->architecture);
	to->uri = ab_strdup_or_null(t->uri);
}

/* tool t found at path (NULL: not there; taken) into *o, without its package */
static void
tool_entry(struct ab_tool *o, struct ctx *c, const struct tool *t, char *path)
{
	o->name = ab_strdup(t->name);
	if (path) {
		o->file = real_path(path);
		/* the compiler's answers hold ".." components: the path as the tool itself is found */
		if (t->find != BY_PATH) {
			free(path);
			path = ab_strdup(o->file);
		}
		o->version = version_of(c, t, path);
	}
	o->path = path;
}

void
ab_toolchain_replace(struct ab_toolchain *tools_of, const char *name, const char *path, int sandboxed)
{
	struct ab_sandbox sb = {0};
	struct ctx c = {.path = getenv("PATH"), .sandbox = sandboxed ? &sb : NULL};
	struct ab_toolchain one = {0};

	if (!c.path)
		c.path = "/usr/local/bin:/usr/bin:/bin";
	/* the recipe's program answers its version in a sandbox of its own, with a sandbox's environment */
	if (sandboxed) {
		ab_sandbox_bind(&sb, path, path, 0);
		ab_env_sandboxed(&c.env);
		ab_env_set(&c.env, "PATH", AB_SANDBOX_PATH);
	} else {
		ab_env_scrubbed(&c.env);
		ab_env_set(&c.env, "PATH", c.path);
	}
	for (size_t k = 0; k < AB_NELEM(tools); k++)
		if (!strcmp(tools[k].name, name) && tools[k].find == BY_PATH)
			tool_entry(push_tool(&one), &c, &tools[k], access(path, X_OK) == 0 ? ab_strdup(path) : NULL);
	ab_sandbox_release(&sb);
	if (!one.n) {
		ab_env_release(&c.env);
		return;
	}
	/* dpkg, which finds the package, is the host's: outside */
	c.sandbox = NULL;
	ab_env_release(&c.env);
	ab_env_scrubbed(&c.env);
	ab_env_set(&c.env, "PATH", c.path);
	add_packages(&c, &one);
	ab_env_release(&c.env);
	for (size_t i = 0; i < tools_of->n; i++)
		if (tools_of->v[i].name && !strcmp(tools_of->v[i].name, name)) {
			tool_release(&tools_of->v[i]);
			tools_of->v[i] = one.v[0];
			free(one.v);
			return;
		}
	*push_tool(tools_of) = one.v[0];
	free(one.v);
}

static void
make_record(struct ab_toolchain *record, struct ctx *c)
{
	memset(record, 0, sizeof(*record));
	record->present = 1;
	for (size_t i = 0; i < AB_NELEM(tools); i++) {
		const struct tool *t = &tools[i];
		char *path;

		if (t->find == BY_PATH)
			path = lookup(c, t->what);
		else
			path = ask_compiler(c, t->via, t->find == BY_PROG_NAME ? "-print-prog-name" : "-print-file-name", t->what);
		tool_entry(push_tool(record), c, t, path);
	}
	add_packages(c, record);
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

/* the cache's record into *out when its stamp is st: 1, else 0 (an unreadable cache is made again) */
static int
read_cache(struct ab_toolchain *out, const char *path, const char *st)
{
	cJSON *cached = NULL;
	int hit = 0;

	ab_report_mute();
	if (ab_json_read(&cached, path) == 0 && ab_json_str(cached, "stamp") && !strcmp(ab_json_str(cached, "stamp"), st))
		hit = ab_toolchain_parse(out, ab_json_get(cached, "record")) == 0 && out->present;
	ab_report_unmute();
	cJSON_Delete(cached);
	return hit;
}

int
ab_toolchain_record(struct ab_toolchain *out, const struct ab_toolchain_opts *o)
{
	struct ctx c = {.path = o->path ? o->path : getenv("PATH")};
	char *st;
	int error = 0;

	if (!c.path)
		c.path = "/usr/local/bin:/usr/bin:/bin";
	ab_env_scrubbed(&c.env);
	ab_env_set(&c.env, "PATH", c.path);
	st = stamp(&c);
	if (!o->cache || !ab_path_exists(o->cache) || !read_cache(out, o->cache, st)) {
		make_record(out, &c);
		if (o->cache) {
			cJSON *doc = cJSON_CreateObject();

			cJSON_AddStringToObject(doc, "stamp", st);
			cJSON_AddItemToObject(doc, "record", ab_toolchain_json(out));
			error = ab_json_write(o->cache, doc);
			cJSON_Delete(doc);
		}
	}
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

void
ab_toolchain_select(struct ab_toolchain *out, const struct ab_toolchain *record, const char *system)
{
	memset(out, 0, sizeof(*out));
	out->present = 1;
	for (size_t k = 0; k < record->n; k++) {
		const char *name = record->v[k].name;
		int skip = 0;

		for (size_t i = 0; name && i < AB_NELEM(tools); i++)
			if (!strcmp(tools[i].name, name) && tools[i].only && (!system || strcmp(tools[i].only, system)))
				skip = 1;
		if (!skip)
			tool_copy(push_tool(out), &record->v[k]);
	}
}

static int
same_str(const char *x, const char *y)
{
	return x == y || (x && y && !strcmp(x, y));
}

int
ab_tool_equal(const struct ab_tool *a, const struct ab_tool *b)
{
	return same_str(a->name, b->name) && same_str(a->path, b->path) && same_str(a->file, b->file) &&
	    same_str(a->version, b->version) && same_str(a->package, b->package) &&
	    same_str(a->package_version, b->package_version) && same_str(a->architecture, b->architecture) &&
	    same_str(a->uri, b->uri);
}

/* a descriptor names the same tool: name, file, version and package version */
static int
same_descriptor(const struct ab_tool *a, const struct ab_tool *b)
{
	return same_str(a->name, b->name) && same_str(a->file, b->file) && same_str(a->version, b->version) &&
	    same_str(a->package_version, b->package_version);
}

cJSON *
ab_toolchain_descriptors(const struct ab_toolchain *const *records, size_t n)
{
	cJSON *arr = cJSON_CreateArray();
	const struct ab_tool **seen = NULL;
	size_t nseen = 0;

	for (size_t r = 0; r < n; r++)
		for (size_t k = 0; k < records[r]->n; k++) {
			const struct ab_tool *t = &records[r]->v[k];
			const char *notes[][2] = {{"path", t->path}, {"file", t->file}, {"version", t->version},
			    {"package", t->package}, {"package_version", t->package_version},
			    {"architecture", t->architecture}};
			cJSON *d, *an;
			int dup = 0;

			for (size_t i = 0; i < nseen && !dup; i++)
				dup = same_descriptor(seen[i], t);
			if (!t->path || dup)
				continue;
			seen = ab_realloc(seen, (nseen + 1) * sizeof(*seen));
			seen[nseen++] = t;
			d = cJSON_CreateObject();
			ab_json_add_str_or_null(d, "name", t->name);
			if (t->uri)
				cJSON_AddStringToObject(d, "uri", t->uri);
			an = cJSON_AddObjectToObject(d, "annotations");
			for (size_t i = 0; i < AB_NELEM(notes); i++)
				if (notes[i][1])
					cJSON_AddStringToObject(an, notes[i][0], notes[i][1]);
			cJSON_AddItemToArray(arr, d);
		}
	free(seen);
	return arr;
}

static const struct ab_tool *
tool_named(const struct ab_toolchain *record, const char *name)
{
	for (size_t i = 0; i < record->n; i++)
		if (record->v[i].name && !strcmp(record->v[i].name, name))
			return &record->v[i];
	return NULL;
}

/* "version (package package_version)", or "missing" */
static char *
describe(const struct ab_tool *t)
{
	if (!t || !t->path)
		return ab_strdup("missing");
	if (t->package && t->package_version)
		return ab_sprintf("%s (%s %s)", t->version ? t->version : "?", t->package, t->package_version);
	return ab_sprintf("%s (%s)", t->version ? t->version : "?", t->file ? t->file : "?");
}

void
ab_toolchain_diff(struct ab_strv *out, const struct ab_toolchain *a, const struct ab_toolchain *b)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < (pass ? b : a)->n; i++) {
			const struct ab_tool *it = &(pass ? b : a)->v[i];
			const struct ab_tool *x = pass ? tool_named(a, it->name) : it;
			const struct ab_tool *y = pass ? it : it->name ? tool_named(b, it->name) : NULL;
			char *dx, *dy;

			/* a tool of b that a has was compared in the first pass */
			if (!it->name || (pass && x))
				continue;
			dx = describe(x);
			dy = describe(y);
			if (strcmp(dx, dy))
				ab_strv_pushf(out, "%s: %s -> %s", it->name, dx, dy);
			free(dx);
			free(dy);
		}
}

cJSON *
ab_toolchain_json(const struct ab_toolchain *t)
{
	cJSON *a = cJSON_CreateArray();

	for (size_t i = 0; i < t->n; i++) {
		const struct ab_tool *x = &t->v[i];
		cJSON *o = cJSON_CreateObject();

		ab_json_add_str_or_null(o, "name", x->name);
		ab_json_add_str_or_null(o, "path", x->path);
		ab_json_add_str_or_null(o, "file", x->file);
		ab_json_add_str_or_null(o, "version", x->version);
		ab_json_add_str_or_null(o, "package", x->package);
		ab_json_add_str_or_null(o, "package_version", x->package_version);
		ab_json_add_str_or_null(o, "architecture", x->architecture);
		ab_json_add_str_or_null(o, "uri", x->uri);
		cJSON_AddItemToArray(a, o);
	}
	return a;
}

int
ab_toolchain_parse(struct ab_toolchain *out, const cJSON *doc)
{
	const cJSON *it;

	memset(out, 0, sizeof(*out));
	if (!doc)
		return 0;
	if (!cJSON_IsArray(doc))
		return AB_EFAIL;
	out->present = 1;
	cJSON_ArrayForEach(it, doc) {
		struct ab_tool *t;

		if (!ab_json_str(it, "name")) {
			ab_toolchain_release(out);
			return AB_EFAIL;
		}
		t = push_tool(out);
		t->name = ab_json_strdup(it, "name");
		t->path = ab_json_strdup(it, "path");
		t->file = ab_json_strdup(it, "file");
		t->version = ab_json_strdup(it, "version");
		t->package = ab_json_strdup(it, "package");
		t->package_version = ab_json_strdup(it, "package_version");
		t->architecture = ab_json_strdup(it, "architecture");
		t->uri = ab_json_strdup(it, "uri");
	}
	return 0;
}

void
ab_toolchain_release(struct ab_toolchain *t)
{
	for (size_t i = 0; i < t->n; i++)
		tool_release(&t->v[i]);
	free(t->v);
	memset(t, 0, sizeof(*t));
}

/* ---- a tool's identity ---- */

void
ab_toolchain_identify(struct ab_tool_id *out, const char *tool, char *const *envp, const struct ab_sandbox *sandbox)
{
	char *argv[] = {(char *)tool, "--version", NULL};
	struct ab_proc p = {.argv = argv, .envp = envp, .max_output = 1 << 20, .sandbox = sandbox};
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
	ab_toolchain_identify(&ids->v[ids->n++], name, envp, NULL);
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
