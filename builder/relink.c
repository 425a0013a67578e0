#include "relink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/redact.h"
#include "../lib/atomic.h"
#include "../lib/dirwalk.h"
#include "../lib/jsonio.h"
#include "../provenance/tree/linkinputs.h"
#include "isolation.h"
#include "layout.h"
#include "../lib/linktxt.h"

struct rep {
	const char *path;   /* as given */
	char *with;         /* absolute */
	int have_id;        /* path names an existing file: match by device and inode too */
	dev_t dev;
	ino_t ino;
	int count;
	char sha_with[AB_HEX_LEN + 1];
};

static int
same_file(const char *dir, const char *p, dev_t dev, ino_t ino)
{
	char *abs = ab_path_absolute_in(dir, p);
	struct stat st;
	int r = stat(abs, &st) == 0 && st.st_dev == dev && st.st_ino == ino;

	free(abs);
	return r;
}

/* CPU seconds (user + system) of this process, or of its waited-for children */
static double
cpu_self(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
cpu_children(void)
{
	struct rusage ru;

	getrusage(RUSAGE_CHILDREN, &ru);
	return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	    (double)ru.ru_stime.tv_usec / 1e6;
}

static char *output_arg(const char *out, int joined);

/*
 * Run a link command, in the sandbox when there is one: every argument
 * that is a real path under its binds (or -o with one joined), and the
 * directory, as the sandbox sees them
 */
static int
run_link(struct ab_proc_result *res, char *const *argv, const char *cwd, struct ab_env *env,
    const struct ab_sandbox *sandbox, struct ab_buf *out, struct ab_buf *err)
{
	struct ab_proc p = {.argv = argv, .cwd = cwd, .envp = ab_env_envp(env), .out = out, .err = err};
	struct ab_strv in = {0};
	char *incwd = NULL;
	int e;

	if (sandbox) {
		for (size_t i = 0; argv[i]; i++) {
			char *t = NULL;

			if (argv[i][0] == '/')
				t = ab_sandbox_inside(sandbox, argv[i]);
			else if (!strncmp(argv[i], "-o/", 3) && (t = ab_sandbox_inside(sandbox, argv[i] + 2))) {
				char *j = ab_sprintf("-o%s", t);

				free(t);
				t = j;
			}
			ab_strv_push_owned(&in, t ? t : ab_strdup(argv[i]));
		}
		incwd = ab_sandbox_inside(sandbox, cwd);
		p.argv = ab_strv_argv(&in);
		p.cwd = incwd ? incwd : cwd;
		p.sandbox = sandbox;
	}
	e = ab_proc_run(res, &p);
	ab_strv_free(&in);
	free(incwd);
	return e;
}

/* the step's log to append to (lib/util.h's ab_open_log: never through a link), or NULL */
static FILE *
open_log(const char *path)
{
	int fd = ab_open_log(path);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "a");

	if (!f && fd >= 0)
		close(fd);
	return f;
}

/*
 * Link the unchanged command to a temporary file and compare it with the
 * normal build's output: identical bytes show that the inputs hashed now
 * are those the normal binary was linked from. The file is a temporary of
 * lib/atomic that is never committed, so a crash leaves only a temporary
 * the cleanup of dead writers recognises. Returns the record, or NULL
 * (reported) when the link could not be run at all.
 */
static cJSON *
check_normal(char *const *before, int oi, int joined, const char *build_dir, const char *output,
    struct ab_env *env, const struct ab_sandbox *sandbox, const char *log_path, const char *sha_orig,
    const char *orig_out)
{
	struct ab_strv argv = {0};
	struct ab_buf out = {0}, err = {0};
	struct ab_proc_result res;
	struct ab_atomic tmp = {0};
	char sha[AB_HEX_LEN + 1];
	cJSON *o = NULL;

	if (ab_atomic_open(&tmp, output, AB_ATOMIC_BYNAME) < 0)
		goto done;
	for (size_t i = 0; before[i]; i++)
		ab_strv_push_owned(&argv, (int)i == oi ? output_arg(tmp.tmp, joined) : ab_strdup(before[i]));
	if (run_link(&res, argv.v, build_dir, env, sandbox, &out, &err) < 0)
		goto done;
	if (log_path) {
		FILE *f = open_log(log_path);

		if (f) {
			fprintf(f, "# normal check\n%s%s", out.s ? out.s : "", err.s ? err.s : "");
			fclose(f);
		}
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "what", "the unchanged link command, linked again now and compared with the normal output");
	if (res.exit_code != 0 || ab_hash_file(sha, NULL, tmp.tmp) < 0) {
		char why[128];

		ab_proc_describe(why, sizeof(why), &res);
		cJSON_AddStringToObject(o, "error", res.exit_code != 0 ? why : "cannot hash the result");
		cJSON_AddBoolToObject(o, "identical", 0);
		ab_warn("the normal link command of '%s' failed when run again (%s)", orig_out, why);
		goto done;
	}
	cJSON_AddStringToObject(o, "sha256", sha);
	cJSON_AddBoolToObject(o, "identical", sha_orig && !strcmp(sha, sha_orig));
	if (!sha_orig)
		ab_warn("normal output '%s' does not exist: nothing to compare with", orig_out);
	else if (strcmp(sha, sha_orig))
		ab_warn("linking the normal command again does not reproduce '%s': its inputs or the toolchain "
		    "changed since the normal build", orig_out);
done:
	ab_atomic_abort(&tmp);
	ab_strv_free(&argv);
	ab_buf_free(&out);
	ab_buf_free(&err);
	return o;
}

static void
note_replacements(const struct rep *reps, size_t n)
{
	for (size_t r = 0; r < n; r++)
		ab_note("replaced '%s' with '%s' (%d %s)", reps[r].path, reps[r].with, reps[r].count,
		    reps[r].count == 1 ? "time" : "times");
}

static int
matches(const struct rep *r, const char *dir, const char *a)
{
	return !strcmp(a, r->path) || (r->have_id && same_file(dir, a, r->dev, r->ino));
}

/* the response file (as named: "@x.rsp" without '@') whose words name r, or NULL; caller frees */
static char *
named_in_rsp(char *const *argv, const char *dir, const struct rep *r, const char *confine)
{
	FILE *devnull = fopen("/dev/null", "w");
	char *found = NULL;

	for (size_t i = 1; argv[i] && !found; i++) {
		struct ab_buf b = {0};
		struct ab_strv words = {0};
		char *path;

		if (argv[i][0] != '@' || !argv[i][1])
			continue;
		path = ab_path_absolute_in(dir, argv[i] + 1);
		if (access(path, R_OK) == 0 && ab_dirwalk_read_below(&b, confine, path, AB_LINKTXT_MAX, NULL) == 0 &&
		    ab_linktxt_parse_rsp(&words, path, b.s, b.len, devnull) == 0)
			for (size_t k = 0; k < words.n && !found; k++)
				if (words.v[k][0] != '-' && matches(r, dir, words.v[k]))
					found = ab_strdup(argv[i] + 1);
		free(path);
		ab_buf_free(&b);
		ab_strv_free(&words);
	}
	if (devnull)
		fclose(devnull);
	return found;
}

/* the argv element for the output at index oi */
static char *
output_arg(const char *out, int joined)
{
	return joined ? ab_sprintf("-o%s", out) : ab_strdup(out);
}

static cJSON *
env_json(const struct ab_env *env)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddItemToObject(o, "set", ab_json_strv(env->set.v, env->set.n));
	cJSON_AddItemToObject(o, "removed", ab_json_strv(env->removed.v, env->removed.n));
	return o;
}

static cJSON *
file_json(const char *arg, const char *path, const char *sha, uint64_t size)
{
	cJSON *o = cJSON_CreateObject();

	if (arg)
		cJSON_AddStringToObject(o, "arg", arg);
	cJSON_AddStringToObject(o, "path", path);
	if (sha) {
		cJSON_AddStringToObject(o, "sha256", sha);
		cJSON_AddNumberToObject(o, "size", (double)size);
	} else {
		cJSON_AddNullToObject(o, "sha256");
	}
	return o;
}

/* inputs of both sides, paired by position (the argv differ only in replaced elements) */
static cJSON *
compare_inputs(cJSON **differing, struct ab_buf *verdict, const struct ab_link_inputs *a,
    const struct ab_link_inputs *b)
{
	cJSON *arr = cJSON_CreateArray();
	struct ab_strv seen = {0};

	*differing = cJSON_CreateArray();
	for (size_t i = 0; i < a->n; i++) {
		const struct ab_link_input *x = &a->v[i], *y = &b->v[i];
		cJSON *o = cJSON_CreateObject();
		int same_path = (!x->path && !y->path) || (x->path && y->path && !strcmp(x->path, y->path));
		int same = same_path && !strcmp(x->sha256, y->sha256);

		cJSON_AddStringToObject(o, "kind", x->kind);
		cJSON_AddNumberToObject(o, "argv_index", x->argi);
		cJSON_AddItemToObject(o, "before", ab_linkinputs_json(x));
		cJSON_AddItemToObject(o, "after", ab_linkinputs_json(y));
		cJSON_AddBoolToObject(o, "same", same);
		cJSON_AddItemToArray(arr, o);
		if (!same) {
			char *key = ab_sprintf("%s\n%s", x->path ? x->path : x->arg, y->path ? y->path : y->arg);
			size_t k;

			for (k = 0; k < seen.n; k++)
				if (!strcmp(seen.v[k], key))
					break;
			if (k == seen.n) {
				cJSON *d = cJSON_CreateObject();

				ab_strv_push(&seen, key);
				cJSON_AddItemToObject(d, "before", ab_linkinputs_json(x));
				cJSON_AddItemToObject(d, "after", ab_linkinputs_json(y));
				cJSON_AddBoolToObject(d, "content_differs", strcmp(x->sha256, y->sha256) != 0);
				cJSON_AddItemToArray(*differing, d);
				ab_buf_printf(verdict, "%s%s -> %s%s", seen.n > 1 ? ", " : "", x->arg,
				    y->path ? y->path : y->arg,
				    strcmp(x->sha256, y->sha256) ? "" : " (same content)");
			}
			free(key);
		}
	}
	ab_strv_free(&seen);
	return arr;
}

/* everything one relink works on, from its spec to its document */
struct relink {
	const struct ab_relink_spec *spec;
	struct ab_env own_env, *env;
	struct ab_linktxt lt;
	const struct ab_linkcmd *cmd; /* the one command of link.txt */
	char *const *before;          /* its argv, the normal link */
	int oi, joined;               /* the index of the output; "-oFILE" in one word */
	char *build_dir, *output, *out_dir, *orig_out; /* absolute */
	struct rep *reps;             /* spec->nreplace */
	struct ab_strv after;         /* the relink's argv */
	struct ab_strv ddirs;         /* the compiler's default search directories */
	struct ab_link_inputs in_before, in_after;
	char sha_lt[AB_HEX_LEN + 1], sha_out[AB_HEX_LEN + 1], sha_orig[AB_HEX_LEN + 1];
	uint64_t size_out, size_orig;
	int have_orig;
	struct ab_proc_result res;    /* of the link */
	char *linked_as;              /* the temporary the linker wrote */
	cJSON *check;                 /* the normal check's record, or NULL */
	struct ab_layout layout;      /* spec->layout: the permutation */
	double t0, t_hash, c_hash, c_link;
};

static void
relink_release(struct relink *r)
{
	cJSON_Delete(r->check);
	ab_layout_release(&r->layout);
	ab_linktxt_release(&r->lt);
	ab_strv_free(&r->after);
	ab_strv_free(&r->ddirs);
	ab_linkinputs_release(&r->in_before);
	ab_linkinputs_release(&r->in_after);
	if (r->reps)
		for (size_t i = 0; i < r->spec->nreplace; i++)
			free(r->reps[i].with);
	free(r->reps);
	free(r->build_dir);
	free(r->output);
	free(r->out_dir);
	free(r->orig_out);
	free(r->linked_as);
	if (r->env == &r->own_env)
		ab_env_release(&r->own_env);
}

/*
 * A link command recorded in the build sandbox names the sandbox's paths
 * (builder/isolation.h): the inputs are hashed, matched and recorded where
 * they really are (run_link shows them to the sandbox again). Run outside
 * any sandbox (`allocbuild relink` of a sandboxed build's link.txt), the
 * wrapper the command names (/allocbuild/ccwrap/c++) is the tool it would
 * have run: the next one of that name in PATH.
 */
static void
host_paths(struct relink *r)
{
	char **argv = r->cmd->argv.v;
	size_t n = strlen(AB_FIXED_CCWRAP);

	for (size_t i = 1; r->spec->sandbox && argv[i]; i++) {
		char *real = argv[i][0] == '/' ? ab_sandbox_real(r->spec->sandbox, argv[i]) : NULL;

		if (real) {
			free(argv[i]);
			argv[i] = real;
		}
	}
	if (!r->spec->sandbox && !strncmp(argv[0], AB_FIXED_CCWRAP, n) && argv[0][n] == '/' && !ab_path_exists(argv[0])) {
		char *tool = ab_strdup(argv[0] + n + 1);

		ab_note("'%s' is the build sandbox's compiler wrapper: running '%s' from PATH instead", argv[0], tool);
		free(argv[0]);
		argv[0] = tool;
	}
}

/* the one link command of link.txt, its output, the build directory; AB_EFAIL (reported) */
static int
load_command(struct relink *r)
{
	const struct ab_relink_spec *spec = r->spec;
	struct stat st, ost;

	{
		struct ab_buf b = {0};
		int e = ab_dirwalk_read_below(&b, spec->confine, spec->link_txt, AB_LINKTXT_MAX, NULL) < 0 ||
		    ab_linktxt_parse(&r->lt, spec->link_txt, b.s ? b.s : "", b.len, NULL) < 0;

		ab_buf_free(&b);
		if (e)
			return AB_EFAIL;
	}
	if (r->lt.ncmds != 1) {
		ab_error("%s: %zu commands; a relink needs exactly one link command", spec->link_txt, r->lt.ncmds);
		return AB_EFAIL;
	}
	r->cmd = &r->lt.cmds[0];
	r->before = r->cmd->argv.v;
	host_paths(r);
	/* before resolving any -l against the -L directories: a command exec refuses is refused now */
	{
		char *what = ab_sprintf("%s:%d", spec->link_txt, r->cmd->line);
		int fits = ab_proc_argv_fits(what, r->before, ab_env_envp(r->env));

		free(what);
		if (fits < 0)
			return AB_EFAIL;
	}
	r->oi = ab_linktxt_output_index(r->before, &r->joined);
	if (r->oi == -1) {
		ab_error("%s:%d: the link command has no '-o'", spec->link_txt, r->cmd->line);
		return AB_EFAIL;
	}
	if (r->oi == -2) {
		ab_error("%s:%d: the link command has more than one '-o' or a '-o' without a file", spec->link_txt,
		    r->cmd->line);
		return AB_EFAIL;
	}
	r->build_dir = spec->build_dir ? ab_path_absolute(spec->build_dir) : ab_linktxt_build_dir(spec->link_txt);
	if (!r->build_dir)
		return AB_EFAIL;
	if (!ab_is_dir(r->build_dir)) {
		ab_error("build directory '%s' of '%s' is not a directory", r->build_dir, spec->link_txt);
		return AB_EFAIL;
	}
	r->output = ab_path_absolute(spec->output);
	r->out_dir = ab_path_dirname(r->output);
	r->orig_out = ab_path_absolute_in(r->build_dir, r->before[r->oi] + (r->joined ? 2 : 0));
	if (!strcmp(r->orig_out, r->output) || (stat(r->orig_out, &ost) == 0 && stat(r->output, &st) == 0 &&
	    st.st_dev == ost.st_dev && st.st_ino == ost.st_ino)) {
		ab_error("output '%s' is the normal build's own output: choose another path", spec->output);
		return AB_EFAIL;
	}
	return 0;
}

/* each replacement must exist; the file it replaces is known by device and inode too */
static int
resolve_replacements(struct relink *r)
{
	const struct ab_relink_spec *spec = r->spec;
	struct stat st;
	int bad = 0;

	r->reps = ab_calloc(spec->nreplace, sizeof(*r->reps));
	for (size_t i = 0; i < spec->nreplace; i++) {
		struct rep *rp = &r->reps[i];
		char *abs;

		rp->path = spec->replace[i].path;
		rp->with = ab_path_absolute(spec->replace[i].with);
		if (stat(rp->with, &st) < 0) {
			ab_error_errno("replacement '%s' for '%s'", spec->replace[i].with, rp->path);
			bad = 1;
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			ab_error("replacement '%s' for '%s': not a regular file", spec->replace[i].with, rp->path);
			bad = 1;
			continue;
		}
		abs = ab_path_absolute_in(r->build_dir, rp->path);
		if (stat(abs, &st) == 0) {
			rp->have_id = 1;
			rp->dev = st.st_dev;
			rp->ino = st.st_ino;
		}
		free(abs);
	}
	return bad ? AB_EFAIL : 0;
}

/* the relink's argv: replaced operands, the output; each replacement must match at least once */
static int
rewrite_argv(struct relink *r)
{
	const struct ab_relink_spec *spec = r->spec;
	int bad = 0;

	ab_strv_push(&r->after, r->before[0]);
	for (int i = 1; r->before[i]; i++) {
		const char *a = r->before[i];
		size_t k;

		if (i == r->oi) {
			ab_strv_push_owned(&r->after, NULL);
			continue;
		}
		if (a[0] == '-' || a[0] == '@' || !a[0]) {
			ab_strv_push(&r->after, a);
			continue;
		}
		for (k = 0; k < spec->nreplace; k++)
			if (matches(&r->reps[k], r->build_dir, a))
				break;
		if (k < spec->nreplace) {
			r->reps[k].count++;
			ab_strv_push(&r->after, r->reps[k].with);
		} else {
			ab_strv_push(&r->after, a);
		}
	}
	for (size_t k = 0; k < spec->nreplace; k++) {
		char *rsp;

		if (r->reps[k].count != 0)
			continue;
		rsp = named_in_rsp(r->before, r->build_dir, &r->reps[k], r->spec->confine);
		if (rsp)
			ab_error("%s:%d: replacement '%s' is named only inside response file '%s': "
			    "replacing inside response files is not supported", spec->link_txt, r->cmd->line,
			    r->reps[k].path, rsp);
		else
			ab_error("%s:%d: replacement '%s' matches nothing in the link command", spec->link_txt,
			    r->cmd->line, r->reps[k].path);
		free(rsp);
		bad = 1;
	}
	if (bad)
		return AB_EFAIL;
	r->after.v[r->oi] = output_arg(r->output, r->joined);
	return 0;
}

static cJSON *
replacements_json(const struct relink *r)
{
	cJSON *rj = cJSON_CreateArray();

	for (size_t i = 0; i < r->spec->nreplace; i++) {
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "path", r->reps[i].path);
		cJSON_AddStringToObject(o, "with", r->reps[i].with);
		cJSON_AddNumberToObject(o, "count", r->reps[i].count);
		cJSON_AddItemToArray(rj, o);
	}
	return rj;
}

/* a dry run's document: {"cwd", "argv", "replacements"} */
static cJSON *
dry_run_json(const struct relink *r)
{
	cJSON *doc = cJSON_CreateObject();

	note_replacements(r->reps, r->spec->nreplace);
	cJSON_AddStringToObject(doc, "cwd", r->build_dir);
	cJSON_AddItemToObject(doc, "argv", ab_json_strv(r->after.v, r->after.n));
	cJSON_AddItemToObject(doc, "replacements", replacements_json(r));
	return doc;
}

/* do two absolute paths name the same file (or the same path that does not exist yet)? */
static int
same_path(const char *a, const char *b)
{
	struct stat sa, sb;

	return !strcmp(a, b) || (stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	    sa.st_ino == sb.st_ino);
}

/*
 * What the relink writes (its output; the document, when the caller says
 * where) must not be anything it reads: renaming the result over one of
 * its own inputs would destroy what the provenance describes
 */
static int
check_outputs_not_inputs(const struct relink *r)
{
	const struct ab_relink_spec *spec = r->spec;
	const char *what[2] = {"output", "provenance"}, *given[2] = {spec->output, spec->provenance};
	char *abs[2] = {ab_strdup(r->output), spec->provenance ? ab_path_absolute(spec->provenance) : NULL};
	char *lt = ab_path_absolute(spec->link_txt);
	int error = AB_EFAIL;

	for (int k = 0; k < 2; k++) {
		if (!abs[k])
			continue;
		if (same_path(abs[k], lt)) {
			ab_error("%s '%s' is the link's own link.txt: choose another path", what[k], given[k]);
			goto done;
		}
		if (k == 1 && same_path(abs[1], abs[0])) {
			ab_error("provenance '%s' is the relink's output: choose another path", given[1]);
			goto done;
		}
		for (size_t side = 0; side < 2; side++) {
			const struct ab_link_inputs *in = side ? &r->in_after : &r->in_before;

			for (size_t i = 0; i < in->n; i++)
				if (in->v[i].path && same_path(abs[k], in->v[i].path)) {
					ab_error("%s '%s' is an input of the link ('%s'): choose another path", what[k],
					    given[k], in->v[i].arg);
					goto done;
				}
		}
		for (size_t i = 0; i < spec->nreplace; i++)
			if (same_path(abs[k], r->reps[i].with)) {
				ab_error("%s '%s' is the replacement '%s' of the link: choose another path", what[k], given[k],
				    spec->replace[i].with);
				goto done;
			}
	}
	error = 0;
done:
	free(abs[0]);
	free(abs[1]);
	free(lt);
	return error;
}

/* the compiler's default library directories, asked where the link runs (the sandbox's are the host's) */
static int
default_dirs(struct relink *r)
{
	char *cwd;
	int e;

	if (!r->spec->sandbox)
		return ab_linkinputs_default_dirs(&r->ddirs, r->before[0], r->build_dir, ab_env_envp(r->env), NULL);
	cwd = ab_sandbox_inside(r->spec->sandbox, r->build_dir);
	e = ab_linkinputs_default_dirs(&r->ddirs, r->before[0], cwd ? cwd : r->build_dir, ab_env_envp(r->env),
	    r->spec->sandbox);
	free(cwd);
	return e;
}

/* the proof: every input of both commands, and link.txt, hashed */
/* a layout's inputs in the order of the normal link's: each where its argument came from */
struct origin {
	size_t key, at;
};

static int
by_origin(const void *pa, const void *pb)
{
	const struct origin *a = pa, *b = pb;

	if (a->key != b->key)
		return a->key < b->key ? -1 : 1;
	return a->at < b->at ? -1 : a->at > b->at;
}

static void
align_layout_inputs(struct relink *r)
{
	size_t n = r->in_after.n;
	struct origin *o = ab_calloc(n + 1, sizeof(*o));
	struct ab_link_input *v = ab_calloc(n + 1, sizeof(*v));

	for (size_t i = 0; i < n; i++) {
		o[i].key = ab_layout_order(&r->layout, (size_t)r->in_after.v[i].argi);
		o[i].at = i;
	}
	qsort(o, n, sizeof(*o), by_origin);
	for (size_t i = 0; i < n; i++)
		v[i] = r->in_after.v[o[i].at];
	if (n)
		memcpy(r->in_after.v, v, n * sizeof(*v));
	free(v);
	free(o);
}

/* the permuted archives of a layout written, each indexed by ranlib as the link runs */
static int
write_layout_archives(struct relink *r)
{
	for (size_t i = 0; i < r->layout.narchives; i++) {
		char *argv[] = {"ranlib", "-D", r->layout.archives[i].copy, NULL};
		struct ab_proc_result res;
		struct ab_buf out = {0}, err = {0};
		int e;

		if (ab_layout_archive_write(&r->layout, i) < 0)
			return AB_EFAIL;
		e = run_link(&res, argv, r->build_dir, r->env, r->spec->sandbox, &out, &err);
		if (e == 0 && res.exit_code != 0) {
			char why[128];

			fwrite(err.s ? err.s : "", 1, err.len, stderr);
			ab_proc_describe(why, sizeof(why), &res);
			ab_error("ranlib of '%s' %s", r->layout.archives[i].copy, why);
			e = AB_EFAIL;
		}
		ab_buf_free(&out);
		ab_buf_free(&err);
		if (e < 0)
			return AB_EFAIL;
	}
	return 0;
}

static int
hash_inputs(struct relink *r)
{
	const struct ab_relink_spec *spec = r->spec;

	r->t_hash = ab_now();
	r->c_hash = cpu_self() + cpu_children();
	if (default_dirs(r) < 0)
		return AB_EFAIL;
	if (ab_linkinputs_collect(&r->in_before, r->before, r->build_dir, ab_strv_argv(&r->ddirs), r->spec->confine) < 0 ||
	    ab_linkinputs_collect(&r->in_after, r->after.v, r->build_dir, ab_strv_argv(&r->ddirs), r->spec->confine) < 0)
		return AB_EFAIL;
	if (r->in_before.n != r->in_after.n) {
		ab_error("relink of '%s': the two link commands have %zu and %zu inputs", spec->link_txt,
		    r->in_before.n, r->in_after.n);
		return AB_EFAIL;
	}
	if (check_outputs_not_inputs(r) < 0)
		return AB_EFAIL;
	if (ab_linkinputs_hash_pair(&r->in_before, &r->in_after, 0) < 0)
		return AB_EFAIL;
	if (spec->layout)
		align_layout_inputs(r);
	if (ab_hash_file(r->sha_lt, NULL, spec->link_txt) < 0)
		return AB_EFAIL;
	r->t_hash = ab_now() - r->t_hash;
	r->c_hash = cpu_self() + cpu_children() - r->c_hash;
	return 0;
}

/* the command and the linker's output appended to the step's log */
static int
append_log(const struct relink *r, const struct ab_buf *lout, const struct ab_buf *lerr)
{
	struct ab_buf lb = {0};
	struct ab_strv in = {0};
	const struct ab_sandbox *sb = r->spec->sandbox;
	/* in the sandbox, where and what ran as it saw them, as every step's log says it (no place of the host) */
	char *cwd = sb ? ab_sandbox_inside(sb, r->build_dir) : NULL, *q;
	FILE *f = open_log(r->spec->log_path);
	int error = 0;

	if (sb)
		ab_sandbox_inside_argv(&in, sb, r->after.v);
	q = ab_argv_shown(sb ? ab_strv_argv(&in) : r->after.v);
	ab_buf_printf(&lb, "cd %s\n%s\n%s%s", cwd ? cwd : r->build_dir, q, lout->s ? lout->s : "", lerr->s ? lerr->s : "");
	if (!f || fwrite(lb.s, 1, lb.len, f) != lb.len || fclose(f) != 0) {
		ab_error_errno("cannot write log '%s'", r->spec->log_path);
		error = AB_EFAIL;
	}
	free(q);
	free(cwd);
	ab_strv_free(&in);
	ab_buf_free(&lb);
	return error;
}

/*
 * The link, to a temporary of lib/atomic next to the output that the
 * linker writes by name, renamed to the output when the link succeeded
 * and its result is hashed. AB_ECHECK when the linker failed (its output
 * shown), AB_EFAIL otherwise (reported).
 */
static int
link_atomically(struct relink *r)
{
	const struct ab_relink_spec *spec = r->spec;
	struct ab_buf lerr = {0}, lout = {0};
	struct ab_atomic out = {0};
	int error = AB_EFAIL;

	if (ab_mkdir_p(r->out_dir, 0755) < 0 || ab_atomic_open(&out, r->output, AB_ATOMIC_BYNAME) < 0)
		goto done;
	r->linked_as = ab_strdup(out.tmp);
	free(r->after.v[r->oi]);
	r->after.v[r->oi] = output_arg(out.tmp, r->joined);
	r->c_link = cpu_children();
	if (run_link(&r->res, r->after.v, r->build_dir, r->env, spec->sandbox, &lout, &lerr) < 0)
		goto done;
	r->c_link = cpu_children() - r->c_link;
	if (spec->log_path && append_log(r, &lout, &lerr) < 0)
		goto done;
	if (r->res.exit_code != 0) {
		char why[128];

		if (lout.len)
			fwrite(lout.s, 1, lout.len, stderr);
		if (lerr.len)
			fwrite(lerr.s, 1, lerr.len, stderr);
		ab_proc_describe(why, sizeof(why), &r->res);
		ab_error("relink of '%s' failed: '%s' %s", spec->link_txt, r->before[0], why);
		error = AB_ECHECK;
		goto done;
	}
	if (lerr.len)
		fwrite(lerr.s, 1, lerr.len, stderr); /* linker warnings */
	if (ab_hash_file(r->sha_out, &r->size_out, out.tmp) < 0 || ab_atomic_commit(&out) < 0)
		goto done;
	free(r->after.v[r->oi]);
	r->after.v[r->oi] = output_arg(r->output, r->joined);
	error = 0;
done:
	ab_atomic_abort(&out);
	ab_buf_free(&lerr);
	ab_buf_free(&lout);
	return error;
}

/* after the link: the normal output hashed, and linked again when asked; the output removed on failure */
static int
check_result(struct relink *r)
{
	struct stat ost;

	note_replacements(r->reps, r->spec->nreplace);
	if (stat(r->orig_out, &ost) == 0 && S_ISREG(ost.st_mode)) {
		if (ab_hash_file(r->sha_orig, &r->size_orig, r->orig_out) < 0)
			return AB_EFAIL;
		r->have_orig = 1;
	}
	if (r->spec->check_normal) {
		r->check = check_normal(r->before, r->oi, r->joined, r->build_dir, r->output, r->env, r->spec->sandbox,
		    r->spec->log_path, r->have_orig ? r->sha_orig : NULL, r->orig_out);
		if (!r->check) {
			unlink(r->output);
			return AB_EFAIL;
		}
	}
	return 0;
}

static cJSON *
link_txt_json(const struct relink *r)
{
	cJSON *o = cJSON_CreateObject();
	char *abs = ab_path_absolute(r->spec->link_txt);

	cJSON_AddStringToObject(o, "path", r->spec->link_txt);
	cJSON_AddStringToObject(o, "absolute", abs);
	cJSON_AddStringToObject(o, "sha256", r->sha_lt);
	cJSON_AddNumberToObject(o, "line", r->cmd->line);
	free(abs);
	return o;
}

static int
layout_archive(const struct relink *r, size_t i)
{
	for (size_t k = 0; k < r->layout.narchives; k++)
		if ((size_t)r->layout.archives[k].argi == i)
			return 1;
	return 0;
}

/* the argv elements that differ, and why */
static cJSON *
argv_diff_json(const struct relink *r)
{
	cJSON *diff = cJSON_CreateArray();

	for (size_t i = 0; i < r->after.n; i++) {
		cJSON *o;

		if (!strcmp(r->before[i], r->after.v[i]))
			continue;
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "index", (double)i);
		cJSON_AddStringToObject(o, "before", r->before[i]);
		cJSON_AddStringToObject(o, "after", r->after.v[i]);
		cJSON_AddStringToObject(o, "why", (int)i == r->oi ? "output" :
		    !r->spec->layout ? "replacement" :
		    ab_layout_order(&r->layout, i) != i ? "layout: the objects' order" :
		    layout_archive(r, i) ? "layout: the archive's members in another order" : "replacement");
		cJSON_AddItemToArray(diff, o);
	}
	return diff;
}

/* relink-provenance.json (docs/relink.md); one linear sequence of members in document order */
static cJSON *
provenance_json(struct relink *r)
{
	const struct ab_relink_spec *spec = r->spec;
	struct ab_buf verdict = {0};
	cJSON *doc = cJSON_CreateObject(), *differing, *o;

	cJSON_AddStringToObject(doc, "kind", "diagnostic relink");
	cJSON_AddStringToObject(doc, "note",
	    "the normal build's link command rerun with other inputs; not a normal distributable build");
	if (spec->tool)
		cJSON_AddStringToObject(doc, "tool", spec->tool);
	cJSON_AddItemToObject(doc, "link_txt", link_txt_json(r));
	cJSON_AddStringToObject(doc, "cwd", r->build_dir);
	cJSON_AddItemToObject(doc, "env", env_json(r->env));
	cJSON_AddItemToObject(doc, "replacements", replacements_json(r));
	if (spec->layout)
		cJSON_AddItemToObject(doc, "layout", ab_layout_json(&r->layout));
	cJSON_AddItemToObject(doc, "argv_before", ab_json_strv(r->before, r->cmd->argv.n));
	cJSON_AddItemToObject(doc, "argv_after", ab_json_strv(r->after.v, r->after.n));
	cJSON_AddItemToObject(doc, "argv_diff", argv_diff_json(r));
	cJSON_AddItemToObject(doc, "search_dirs", ab_json_strv(r->in_before.search_dirs.v, r->in_before.search_dirs.n));
	cJSON_AddItemToObject(doc, "default_search_dirs", ab_json_strv(r->ddirs.v, r->ddirs.n));
	cJSON_AddItemToObject(doc, "inputs", compare_inputs(&differing, &verdict, &r->in_before, &r->in_after));
	cJSON_AddItemToObject(doc, "differing_inputs", differing);
	if (cJSON_GetArraySize(differing) == 0) {
		cJSON_AddStringToObject(doc, "verdict", "no input differs");
	} else {
		char *v = ab_sprintf("only these inputs differ: %s", verdict.s);

		cJSON_AddStringToObject(doc, "verdict", v);
		free(v);
	}
	cJSON_AddItemToObject(doc, "normal_output",
	    file_json(r->before[r->oi], r->orig_out, r->have_orig ? r->sha_orig : NULL, r->size_orig));
	cJSON_AddItemToObject(doc, "output", file_json(NULL, r->output, r->sha_out, r->size_out));
	if (r->check) {
		cJSON_AddItemToObject(doc, "normal_check", r->check);
		r->check = NULL;
	}
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "exit_code", r->res.exit_code);
	cJSON_AddStringToObject(o, "linked_as", r->linked_as);
	cJSON_AddItemToObject(doc, "link", o);
	o = cJSON_CreateObject();
	cJSON_AddNumberToObject(o, "inputs", r->t_hash);
	cJSON_AddNumberToObject(o, "inputs_cpu", r->c_hash);
	cJSON_AddNumberToObject(o, "link", r->res.seconds);
	cJSON_AddNumberToObject(o, "link_cpu", r->c_link);
	cJSON_AddNumberToObject(o, "total", ab_now() - r->t0);
	cJSON_AddItemToObject(doc, "seconds", o);
	ab_buf_free(&verdict);
	return doc;
}

/* a layout relink: its argv permuted, the archive copies beside the output (OUTPUT.archives/) */
static int
permute(struct relink *r)
{
	char *copies, *what;
	int e;

	if (!r->spec->layout)
		return 0;
	r->layout.seed = r->spec->layout_seed;
	copies = ab_sprintf("%s.archives", r->output);
	what = ab_sprintf("%s:%d", r->spec->link_txt, r->cmd->line);
	e = ab_layout_permute(&r->layout, &r->after, r->oi, r->build_dir, copies, what);
	free(what);
	free(copies);
	return e;
}

int
ab_relink_run(cJSON **prov, const struct ab_relink_spec *spec)
{
	struct relink r = {.spec = spec, .env = spec->env, .t0 = ab_now()};
	int error;

	*prov = NULL;
	if (!spec->nreplace && !spec->layout) {
		ab_error("relink of '%s': no replacement given", spec->link_txt);
		return AB_EFAIL;
	}
	if (!r.env) {
		ab_env_scrubbed(&r.own_env);
		r.env = &r.own_env;
	}
	if ((error = load_command(&r)) < 0 || (error = resolve_replacements(&r)) < 0 ||
	    (error = rewrite_argv(&r)) < 0 || (error = permute(&r)) < 0)
		goto done;
	if (spec->dry_run) {
		*prov = dry_run_json(&r);
		goto done;
	}
	if (spec->layout && (error = write_layout_archives(&r)) < 0)
		goto done;
	if ((error = hash_inputs(&r)) < 0 || (error = link_atomically(&r)) < 0 || (error = check_result(&r)) < 0)
		goto done;
	*prov = provenance_json(&r);
done:
	relink_release(&r);
	return error;
}

char *
ab_relink_provenance_path(const char *output)
{
	char *abs = ab_path_absolute(output);
	char *dir = ab_path_dirname(abs);
	char *path = ab_path_join(dir, "relink-provenance.json");

	free(dir);
	free(abs);
	return path;
}

int
ab_relink_save(const cJSON *prov, const char *path, const char *output)
{
	if (ab_json_write(path, prov) < 0) {
		/* a binary without its provenance would pass for something it is not */
		char *abs = ab_path_absolute(output);

		unlink(abs);
		free(abs);
		return AB_EFAIL;
	}
	return 0;
}
