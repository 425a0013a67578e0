#include "linkinputs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../../lib/dirwalk.h"
#include "../../lib/linktxt.h"
#include "../../lib/proc.h"

/* response files and linker scripts nest; stop runaway recursion */
#define MAX_DEPTH 8

struct collect {
	struct ab_link_inputs *out;
	const char *cwd;
	char *const *default_dirs;
	int is_static;       /* -static, -Wl,-Bstatic in effect */
	int argi;            /* the top-level argv element being processed */
	const char *arg;     /* its text */
	const char *via;     /* "argv" or "response file X" */
	const char *pending; /* a linker option waiting for its value (from -Xlinker or -Wl,a,b) */
	int dirs_pass;       /* first pass: gather -L directories only */
	const char *confine; /* NULL, or a tree whose files are read only through no symlink that leaves it */
};

static int
ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && !strcmp(s + a - b, suffix);
}

static const char *
kind_of(const char *path)
{
	const char *base = strrchr(path, '/');

	base = base ? base + 1 : path;
	if (ends_with(base, ".o") || ends_with(base, ".obj"))
		return "object";
	if (ends_with(base, ".a"))
		return "archive";
	if (ends_with(base, ".so") || strstr(base, ".so."))
		return "shared-library";
	if (ends_with(base, ".ld") || ends_with(base, ".lds") || ends_with(base, ".map") || ends_with(base, ".ver"))
		return "linker-script";
	return "file";
}

static struct ab_link_input *
add(struct collect *c, const char *arg, char *path, const char *via, const char *kind)
{
	struct ab_link_inputs *o = c->out;
	struct ab_link_input *in;

	if (c->dirs_pass) {
		free(path);
		return NULL;
	}
	o->v = ab_realloc(o->v, (o->n + 1) * sizeof(*o->v));
	in = &o->v[o->n++];
	memset(in, 0, sizeof(*in));
	in->arg = ab_strdup(arg);
	in->path = path;
	in->via = ab_strdup(via);
	in->kind = kind ? kind : path ? kind_of(path) : "library";
	in->argi = c->argi;
	return in;
}

static int is_text_ld_script(const char *path);
static int collect_ld_script(struct collect *c, const char *script, int depth);
static int collect_rsp(struct collect *c, const char *arg, int depth);

/* a file named directly: it must exist */
static int
add_file(struct collect *c, const char *arg, const char *name, const char *kind)
{
	char *path;
	struct stat st;

	if (c->dirs_pass)
		return 0;
	path = ab_path_absolute_in(c->cwd, name);
	if (stat(path, &st) < 0) {
		ab_error_errno("link input '%s' (%s) in '%s'", name, c->via, c->cwd);
		free(path);
		return -1;
	}
	add(c, arg, path, c->via, kind);
	return 0;
}

static char *
find_in(const char *dir, const char *file)
{
	char *p = ab_path_join(dir, file);
	struct stat st;

	if (stat(p, &st) == 0 && S_ISREG(st.st_mode))
		return p;
	free(p);
	return NULL;
}

/* -lNAME or -l:FILE, searched as ld does */
static int
add_library(struct collect *c, const char *arg, const char *name, int depth)
{
	struct ab_strv names = {0};
	char *path = NULL, *via = NULL;
	struct ab_link_input *in;

	if (c->dirs_pass)
		return 0;
	if (name[0] == ':') {
		ab_strv_push(&names, name + 1);
	} else {
		if (!c->is_static)
			ab_strv_pushf(&names, "lib%s.so", name);
		ab_strv_pushf(&names, "lib%s.a", name);
	}
	/* ld tries every name in one directory before the next directory */
	for (size_t d = 0; d < c->out->search_dirs.n && !path; d++)
		for (size_t k = 0; k < names.n && !path; k++)
			if ((path = find_in(c->out->search_dirs.v[d], names.v[k])))
				via = ab_sprintf("-L %s", c->out->search_dirs.v[d]);
	for (size_t d = 0; c->default_dirs && c->default_dirs[d] && !path; d++)
		for (size_t k = 0; k < names.n && !path; k++)
			if ((path = find_in(c->default_dirs[d], names.v[k])))
				via = ab_strdup("default search path");
	ab_strv_free(&names);
	if (!path) {
		add(c, arg, NULL, "not found", "library");
		return 0;
	}
	in = add(c, arg, path, via, NULL);
	free(via);
	if (!strcmp(in->kind, "shared-library") && is_text_ld_script(path)) {
		in->kind = "linker-script";
		return collect_ld_script(c, path, depth + 1);
	}
	return 0;
}

static int
add_search_dir(struct collect *c, const char *dir)
{
	struct ab_strv *sd = &c->out->search_dirs;
	char *abs;

	if (!c->dirs_pass)
		return 0;
	abs = ab_path_absolute_in(c->cwd, dir);
	for (size_t i = 0; i < sd->n; i++)
		if (!strcmp(sd->v[i], abs)) {
			free(abs);
			return 0;
		}
	ab_strv_push_owned(sd, abs);
	return 0;
}

/* linker options whose value is a separate argument that is not an input */
static int
ld_takes_value(const char *o)
{
	static const char *const opts[] = {
		"-rpath", "--rpath", "-rpath-link", "--rpath-link", "-soname", "--soname", "-h", "-z",
		"-Map", "--Map", "-e", "--entry", "-u", "--undefined", "-y", "--trace-symbol", "--defsym",
		"-m", "-a", "-o", "--output", "--sysroot", "-plugin", "--plugin", "-plugin-opt", "--plugin-opt",
		"-dynamic-linker", "--dynamic-linker", "-I", "-F", "-f", "--filter", "--auxiliary", "-Y",
		"-assert", "--wrap", "--exclude-libs", "-R", "--just-symbols", "--hash-style", "--build-id",
		"-G", "--gpsize", "--section-start", "-Ttext", "-Tdata", "-Tbss", "--image-base", "-init",
		"-fini", "--require-defined", "--retain-symbols-file",
	};

	for (size_t i = 0; i < AB_NELEM(opts); i++)
		if (!strcmp(o, opts[i]))
			return 1;
	return 0;
}

/* one argument as the linker sees it (after -Wl, splitting or -Xlinker) */
static int
linker_arg(struct collect *c, const char *a, int depth)
{
	const char *p = c->pending;

	c->pending = NULL;
	if (p) {
		if (!strcmp(p, "-L") || !strcmp(p, "--library-path"))
			return add_search_dir(c, a);
		if (!strcmp(p, "-l") || !strcmp(p, "--library"))
			return add_library(c, c->arg, a, depth);
		if (!strcmp(p, "-T") || !strcmp(p, "--script") || !strcmp(p, "--version-script") ||
		    !strcmp(p, "--dynamic-list") || !strcmp(p, "-dT") || !strcmp(p, "--default-script"))
			return add_file(c, c->arg, a, "linker-script");
		return 0; /* a value that is not an input */
	}
	if (!strcmp(a, "-L") || !strcmp(a, "--library-path") || !strcmp(a, "-l") || !strcmp(a, "--library") ||
	    !strcmp(a, "-T") || !strcmp(a, "--script") || !strcmp(a, "--version-script") ||
	    !strcmp(a, "--dynamic-list") || !strcmp(a, "-dT") || !strcmp(a, "--default-script") || ld_takes_value(a)) {
		c->pending = a;
		return 0;
	}
	if (!strncmp(a, "--library-path=", 15))
		return add_search_dir(c, a + 15);
	if (!strncmp(a, "-L", 2))
		return add_search_dir(c, a + 2);
	if (!strncmp(a, "--library=", 10))
		return add_library(c, c->arg, a + 10, depth);
	if (!strncmp(a, "-l", 2))
		return add_library(c, c->arg, a + 2, depth);
	if (!strncmp(a, "--script=", 9))
		return add_file(c, c->arg, a + 9, "linker-script");
	if (!strncmp(a, "--version-script=", 17))
		return add_file(c, c->arg, a + 17, "linker-script");
	if (!strncmp(a, "--dynamic-list=", 15))
		return add_file(c, c->arg, a + 15, "linker-script");
	if (!strncmp(a, "-T", 2) && a[2] && strncmp(a, "-Ttext", 6) && strncmp(a, "-Tdata", 6) &&
	    strncmp(a, "-Tbss", 5))
		return add_file(c, c->arg, a + 2, "linker-script");
	if (!strcmp(a, "-Bstatic") || !strcmp(a, "-static") || !strcmp(a, "-dn") || !strcmp(a, "-non_shared"))
		c->is_static = 1;
	else if (!strcmp(a, "-Bdynamic") || !strcmp(a, "-dy") || !strcmp(a, "-call_shared"))
		c->is_static = 0;
	if (a[0] == '-' || !a[0])
		return 0;
	return add_file(c, c->arg, a, NULL);
}

/* compiler-driver options whose value is a separate argument that is not an input */
static int
cc_takes_value(const char *o)
{
	static const char *const opts[] = {
		"-o", "-I", "-D", "-U", "-x", "-u", "-e", "-z", "-B", "-include", "-imacros", "-isystem",
		"-iquote", "-idirafter", "-iprefix", "-MF", "-MT", "-MQ", "-aux-info", "--param",
		"-Xassembler", "-Xpreprocessor", "-dumpdir", "-dumpbase", "-dumpbase-ext", "-wrapper",
		"--sysroot", "-target", "--target", "-arch",
	};

	for (size_t i = 0; i < AB_NELEM(opts); i++)
		if (!strcmp(o, opts[i]))
			return 1;
	return 0;
}

static int
driver_args(struct collect *c, char *const *argv, size_t n, int top, int depth)
{
	for (size_t i = top ? 1 : 0; i < n; i++) {
		const char *a = argv[i];

		if (top) {
			c->argi = (int)i;
			c->arg = a;
		}
		if (!strcmp(a, "-Xlinker") && i + 1 < n) {
			if (linker_arg(c, argv[i + 1], depth) < 0)
				return -1;
			i++;
			continue;
		}
		if (!strncmp(a, "-Wl,", 4)) {
			char *copy = ab_strdup(a + 4), *save = NULL;
			int r = 0;

			/* empty fields are kept by gcc; strtok drops them, which is harmless here */
			for (char *f = strtok_r(copy, ",", &save); f && r == 0; f = strtok_r(NULL, ",", &save))
				r = linker_arg(c, f, depth);
			/* a value must not leak into the next -Wl, group's owner, but gcc does join them */
			free(copy);
			if (r < 0)
				return -1;
			continue;
		}
		if (!strcmp(a, "-L") && i + 1 < n) {
			add_search_dir(c, argv[++i]);
			continue;
		}
		if (!strncmp(a, "-L", 2)) {
			add_search_dir(c, a + 2);
			continue;
		}
		if (!strcmp(a, "-l") && i + 1 < n) {
			if (add_library(c, a, argv[++i], depth) < 0)
				return -1;
			continue;
		}
		if (!strncmp(a, "-l", 2)) {
			if (add_library(c, a, a + 2, depth) < 0)
				return -1;
			continue;
		}
		if (!strcmp(a, "-T") && i + 1 < n) {
			if (add_file(c, a, argv[++i], "linker-script") < 0)
				return -1;
			continue;
		}
		if (!strncmp(a, "-T", 2)) {
			if (add_file(c, a, a + 2, "linker-script") < 0)
				return -1;
			continue;
		}
		if (!strcmp(a, "-static")) {
			c->is_static = 1;
			continue;
		}
		if (a[0] == '@' && a[1]) {
			if (collect_rsp(c, a, depth) < 0)
				return -1;
			continue;
		}
		if (a[0] == '-') {
			if (cc_takes_value(a) && i + 1 < n)
				i++;
			continue;
		}
		if (add_file(c, a, a, NULL) < 0)
			return -1;
	}
	return 0;
}

/* a response file the first pass may read: a readable regular file within the bound (the second pass says why not) */
static int
readable_rsp(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) && (uint64_t)st.st_size <= AB_LINKTXT_MAX &&
	    access(path, R_OK) == 0;
}

static int
collect_rsp(struct collect *c, const char *arg, int depth)
{
	struct ab_buf b = {0};
	struct ab_strv words = {0};
	const char *saved_via = c->via;
	char *path, *via;
	int error = -1;

	/* errors are reported by the second pass, once */
	if (depth >= MAX_DEPTH) {
		if (!c->dirs_pass)
			ab_error("response file '%s' nests too deeply", arg + 1);
		return -1;
	}
	path = ab_path_absolute_in(c->cwd, arg + 1);
	if (c->dirs_pass) {
		FILE *devnull = fopen("/dev/null", "w");

		ab_report_mute();
		if (readable_rsp(path) && ab_dirwalk_read_below(&b, c->confine, path, AB_LINKTXT_MAX, NULL) == 0 &&
		    ab_linktxt_parse_rsp(&words, path, b.s, b.len, devnull) == 0)
			driver_args(c, words.v, words.n, 0, depth + 1);
		ab_report_unmute();
		if (devnull)
			fclose(devnull);
		error = 0;
		goto done;
	}
	/* bounded, and never a fifo or a device (@/dev/zero), nor through a link out of the build tree */
	if (ab_dirwalk_read_below(&b, c->confine, path, AB_LINKTXT_MAX, NULL) < 0)
		goto done;
	add(c, arg, ab_strdup(path), c->via, "response-file");
	if (ab_linktxt_parse_rsp(&words, path, b.s, b.len, NULL) < 0)
		goto done;
	via = ab_sprintf("response file %s", arg + 1);
	c->via = via;
	error = driver_args(c, words.v, words.n, 0, depth + 1);
	c->via = saved_via;
	free(via);
done:
	free(path);
	ab_buf_free(&b);
	ab_strv_free(&words);
	return error;
}

/* does the file start like a GNU ld script rather than an ELF object? */
static int
is_text_ld_script(const char *path)
{
	char head[256];
	/* a regular file only, opened without blocking: a fifo named by a link command never hangs it */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || (n = read(fd, head, sizeof(head) - 1)) < 0) {
		close(fd);
		return 0;
	}
	close(fd);
	head[n] = '\0';
	if (n >= 4 && !memcmp(head, "\177ELF", 4))
		return 0;
	return strstr(head, "GROUP") || strstr(head, "INPUT") || strstr(head, "OUTPUT_FORMAT") ||
	    strstr(head, "/* GNU ld script");
}

/* the absolute file names inside GROUP ( ... ) / INPUT ( ... ) of a small ld script */
static int
collect_ld_script(struct collect *c, const char *script, int depth)
{
	struct ab_buf b = {0};
	char *via;
	const char *s;
	int error = 0;

	if (depth >= MAX_DEPTH || ab_dirwalk_read_below(&b, c->confine, script, AB_READ_MAX, NULL) < 0)
		return 0; /* hashed as a whole already; its members are a best effort */
	via = ab_sprintf("linker script %s", script);
	s = b.s;
	while (*s && !error) {
		size_t n;

		if (!strncmp(s, "/*", 2)) {
			const char *e = strstr(s + 2, "*/");

			s = e ? e + 2 : s + strlen(s);
			continue;
		}
		n = strcspn(s, " \t\r\n(),");
		if (n && s[0] == '/') {
			char *name = ab_strndup(s, n);
			struct stat st;

			if (stat(name, &st) == 0 && S_ISREG(st.st_mode))
				add(c, c->arg, ab_path_absolute(name), via, NULL);
			free(name);
		}
		s += n ? n : 1;
	}
	free(via);
	ab_buf_free(&b);
	return error;
}

int
ab_linkinputs_collect(struct ab_link_inputs *out, char *const *argv, const char *cwd, char *const *default_dirs,
    const char *confine)
{
	struct collect c = {0};
	size_t n = 0;

	memset(out, 0, sizeof(*out));
	c.out = out;
	c.cwd = cwd;
	c.confine = confine;
	c.default_dirs = default_dirs;
	c.via = "argv";
	while (argv[n])
		n++;
	/*
	 * ld applies every -L to every -l wherever they stand: a first pass
	 * gathers the directories (also from -Wl, and response files), the
	 * second collects the inputs.
	 */
	c.dirs_pass = 1;
	driver_args(&c, argv, n, 1, 0);
	c.dirs_pass = 0;
	c.is_static = 0;
	c.pending = NULL;
	c.via = "argv";
	if (driver_args(&c, argv, n, 1, 0) < 0) {
		ab_linkinputs_release(out);
		return -1;
	}
	ab_strv_argv(&out->search_dirs);
	return 0;
}

int
ab_linkinputs_default_dirs(struct ab_strv *out, const char *compiler, const char *cwd, char *const *envp,
    const struct ab_sandbox *sandbox)
{
	char *argv[] = {(char *)compiler, "-print-search-dirs", NULL};
	struct ab_buf o = {0}, e = {0};
	struct ab_proc p = {.argv = argv, .cwd = cwd, .envp = envp, .out = &o, .err = &e, .sandbox = sandbox};
	struct ab_proc_result res;
	const char *line;
	int error = -1;

	if (ab_proc_run(&res, &p) < 0)
		goto done;
	if (res.exit_code != 0) {
		char why[128];

		ab_proc_describe(why, sizeof(why), &res);
		ab_error("'%s -print-search-dirs' failed (%s): %s", compiler, why, e.s ? e.s : "");
		goto done;
	}
	line = o.s ? strstr(o.s, "libraries: =") : NULL;
	if (!line) {
		error = 0; /* not a GCC-like driver: no default directories known */
		goto done;
	}
	line += strlen("libraries: =");
	while (*line && *line != '\n') {
		size_t n = strcspn(line, ":\n");

		if (n) {
			char *d = ab_strndup(line, n), *abs = ab_path_absolute(d);
			size_t k;

			for (k = 0; k < out->n; k++)
				if (!strcmp(out->v[k], abs))
					break;
			if (k == out->n && ab_is_dir(abs))
				ab_strv_push_owned(out, abs);
			else
				free(abs);
			free(d);
		}
		line += n;
		if (*line == ':')
			line++;
	}
	ab_strv_argv(out);
	error = 0;
done:
	ab_buf_free(&o);
	ab_buf_free(&e);
	return error;
}

struct fid {
	dev_t dev;
	ino_t ino;
};

/* each distinct file hashed once, all of them together (lib/hash: every one tried, each failure reported) */
static int
hash_items(struct ab_link_input **items, size_t nitems, int jobs)
{
	struct fid *ids = ab_calloc(nitems, sizeof(*ids));
	size_t *rep_of = ab_calloc(nitems, sizeof(*rep_of));
	const char **paths = ab_calloc(nitems ? nitems : 1, sizeof(*paths));
	char (*hex)[AB_HEX_LEN + 1] = ab_calloc(nitems ? nitems : 1, sizeof(*hex));
	uint64_t *size = ab_calloc(nitems ? nitems : 1, sizeof(*size));
	size_t n = 0;
	int error = -1;

	for (size_t i = 0; i < nitems; i++) {
		struct stat st;
		size_t k;

		rep_of[i] = (size_t)-1;
		if (!items[i]->path)
			continue;
		if (stat(items[i]->path, &st) < 0) {
			ab_error_errno("cannot hash '%s'", items[i]->path);
			goto done;
		}
		for (k = 0; k < n; k++)
			if (ids[k].dev == st.st_dev && ids[k].ino == st.st_ino)
				break;
		if (k == n) {
			ids[k].dev = st.st_dev;
			ids[k].ino = st.st_ino;
			paths[n++] = items[i]->path;
		}
		rep_of[i] = k;
	}
	if (ab_hash_files(hex, size, paths, n, 0, jobs) < 0)
		goto done;
	for (size_t i = 0; i < nitems; i++) {
		if (rep_of[i] == (size_t)-1)
			continue;
		memcpy(items[i]->sha256, hex[rep_of[i]], sizeof(items[i]->sha256));
		items[i]->size = size[rep_of[i]];
	}
	error = 0;
done:
	free(size);
	free(hex);
	free(paths);
	free(ids);
	free(rep_of);
	return error;
}

int
ab_linkinputs_hash(struct ab_link_inputs *in, int jobs)
{
	return ab_linkinputs_hash_pair(in, NULL, jobs);
}

int
ab_linkinputs_hash_pair(struct ab_link_inputs *a, struct ab_link_inputs *b, int jobs)
{
	size_t n = a->n + (b ? b->n : 0), k = 0;
	struct ab_link_input **items = ab_calloc(n, sizeof(*items));
	int error;

	for (size_t i = 0; i < a->n; i++)
		items[k++] = &a->v[i];
	for (size_t i = 0; b && i < b->n; i++)
		items[k++] = &b->v[i];
	error = hash_items(items, n, jobs);
	free(items);
	return error;
}

cJSON *
ab_linkinputs_json(const struct ab_link_input *in)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddStringToObject(o, "arg", in->arg);
	if (in->path)
		cJSON_AddStringToObject(o, "path", in->path);
	else
		cJSON_AddNullToObject(o, "path");
	cJSON_AddStringToObject(o, "via", in->via);
	cJSON_AddStringToObject(o, "kind", in->kind);
	if (in->path) {
		cJSON_AddNumberToObject(o, "size", (double)in->size);
		cJSON_AddStringToObject(o, "sha256", in->sha256);
	}
	return o;
}

void
ab_linkinputs_release(struct ab_link_inputs *in)
{
	if (!in)
		return;
	for (size_t i = 0; i < in->n; i++) {
		free(in->v[i].arg);
		free(in->v[i].path);
		free(in->v[i].via);
	}
	free(in->v);
	ab_strv_free(&in->search_dirs);
	memset(in, 0, sizeof(*in));
}
