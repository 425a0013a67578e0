#include "relink.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/jsonio.h"
#include "../provenance/linkinputs.h"
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
 * Link the unchanged command to a temporary file and compare it with the
 * normal build's output: identical bytes show that the inputs hashed now
 * are those the normal binary was linked from. Returns the record, or NULL
 * (reported) when the link could not be run at all.
 */
static cJSON *
check_normal(char *const *before, int oi, int joined, const char *build_dir, const char *out_dir,
    const char *output, struct ab_env *env, const char *log_path, const char *sha_orig, const char *orig_out)
{
	struct ab_strv argv = {0};
	struct ab_buf out = {0}, err = {0};
	struct ab_proc_result res;
	const char *base = strrchr(output, '/') + 1;
	char *tmp = ab_sprintf("%s/.%s.normal-check.%ld", out_dir, base, (long)getpid());
	char sha[AB_HEX_LEN + 1];
	cJSON *o = NULL;

	for (size_t i = 0; before[i]; i++)
		ab_strv_push_owned(&argv, (int)i == oi ? output_arg(tmp, joined) : ab_strdup(before[i]));
	{
		struct ab_proc p = {.argv = argv.v, .cwd = build_dir, .envp = ab_env_envp(env), .out = &out, .err = &err};

		unlink(tmp);
		if (ab_proc_run(&res, &p) < 0)
			goto done;
	}
	if (log_path) {
		FILE *f = fopen(log_path, "a");

		if (f) {
			fprintf(f, "# normal check\n%s%s", out.s ? out.s : "", err.s ? err.s : "");
			fclose(f);
		}
	}
	o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "what", "the unchanged link command, linked again now and compared with the normal output");
	if (res.exit_code != 0 || ab_hash_file(sha, NULL, tmp) < 0) {
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
	unlink(tmp);
	free(tmp);
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
named_in_rsp(char *const *argv, const char *dir, const struct rep *r)
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
		if (access(path, R_OK) == 0 && ab_read_file(&b, path) == 0 &&
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

int
ab_relink_run(cJSON **prov, const struct ab_relink_spec *spec)
{
	struct ab_linktxt lt = {0};
	struct ab_strv after = {0}, ddirs = {0};
	struct ab_link_inputs in_before = {0}, in_after = {0};
	struct ab_env own_env = {0}, *env = spec->env;
	struct rep *reps = NULL;
	char *build_dir = NULL, *output = NULL, *out_dir = NULL, *tmp = NULL, *orig_out = NULL;
	char *const *before;
	char sha_out[AB_HEX_LEN + 1], sha_lt[AB_HEX_LEN + 1], sha_orig[AB_HEX_LEN + 1];
	uint64_t size_out = 0, size_orig = 0;
	struct ab_buf lerr = {0}, lout = {0}, verdict = {0};
	struct ab_proc_result res;
	struct stat st, ost;
	int error = AB_RELINK_EINPUT, oi, joined, have_orig = 0, bad = 0;
	const struct ab_linkcmd *cmd;
	cJSON *doc = NULL, *check = NULL;
	double t0 = ab_now(), t_hash = 0, c_hash = 0, c_link = 0;

	*prov = NULL;
	if (!spec->nreplace) {
		ab_error("relink of '%s': no replacement given", spec->link_txt);
		return AB_RELINK_EINPUT;
	}
	if (!env) {
		ab_env_scrubbed(&own_env);
		env = &own_env;
	}
	if (ab_linktxt_load(&lt, spec->link_txt) < 0)
		goto done;
	if (lt.ncmds != 1) {
		ab_error("%s: %zu commands; a relink needs exactly one link command", spec->link_txt, lt.ncmds);
		goto done;
	}
	cmd = &lt.cmds[0];
	before = cmd->argv.v;
	oi = ab_linktxt_output_index(before, &joined);
	if (oi == -1) {
		ab_error("%s:%d: the link command has no '-o'", spec->link_txt, cmd->line);
		goto done;
	}
	if (oi == -2) {
		ab_error("%s:%d: the link command has more than one '-o' or a '-o' without a file", spec->link_txt,
		    cmd->line);
		goto done;
	}
	build_dir = spec->build_dir ? ab_path_absolute(spec->build_dir) : ab_linktxt_build_dir(spec->link_txt);
	if (!build_dir)
		goto done;
	if (!ab_is_dir(build_dir)) {
		ab_error("build directory '%s' of '%s' is not a directory", build_dir, spec->link_txt);
		goto done;
	}
	output = ab_path_absolute(spec->output);
	out_dir = ab_path_dirname(output);
	orig_out = ab_path_absolute_in(build_dir, before[oi] + (joined ? 2 : 0));
	if (!strcmp(orig_out, output) ||
	    (stat(orig_out, &ost) == 0 && stat(output, &st) == 0 && st.st_dev == ost.st_dev && st.st_ino == ost.st_ino)) {
		ab_error("output '%s' is the normal build's own output: choose another path", spec->output);
		goto done;
	}

	/* replacements: each must exist and match at least one argv element */
	reps = ab_calloc(spec->nreplace, sizeof(*reps));
	for (size_t r = 0; r < spec->nreplace; r++) {
		char *abs;

		reps[r].path = spec->replace[r].path;
		reps[r].with = ab_path_absolute(spec->replace[r].with);
		if (stat(reps[r].with, &st) < 0) {
			ab_error_errno("replacement '%s' for '%s'", spec->replace[r].with, reps[r].path);
			bad = 1;
			continue;
		}
		if (!S_ISREG(st.st_mode)) {
			ab_error("replacement '%s' for '%s': not a regular file", spec->replace[r].with, reps[r].path);
			bad = 1;
			continue;
		}
		abs = ab_path_absolute_in(build_dir, reps[r].path);
		if (stat(abs, &st) == 0) {
			reps[r].have_id = 1;
			reps[r].dev = st.st_dev;
			reps[r].ino = st.st_ino;
		}
		free(abs);
	}
	if (bad)
		goto done;
	ab_strv_push(&after, before[0]);
	for (int i = 1; before[i]; i++) {
		const char *a = before[i];
		size_t r;

		if (i == oi) {
			ab_strv_push_owned(&after, NULL);
			continue;
		}
		if (a[0] == '-' || a[0] == '@' || !a[0]) {
			ab_strv_push(&after, a);
			continue;
		}
		for (r = 0; r < spec->nreplace; r++)
			if (matches(&reps[r], build_dir, a))
				break;
		if (r < spec->nreplace) {
			reps[r].count++;
			ab_strv_push(&after, reps[r].with);
		} else {
			ab_strv_push(&after, a);
		}
	}
	for (size_t r = 0; r < spec->nreplace; r++) {
		char *rsp;

		if (reps[r].count != 0)
			continue;
		rsp = named_in_rsp(before, build_dir, &reps[r]);
		if (rsp)
			ab_error("%s:%d: replacement '%s' is named only inside response file '%s': "
			    "replacing inside response files is not supported", spec->link_txt, cmd->line,
			    reps[r].path, rsp);
		else
			ab_error("%s:%d: replacement '%s' matches nothing in the link command", spec->link_txt,
			    cmd->line, reps[r].path);
		free(rsp);
		bad = 1;
	}
	if (bad)
		goto done;
	after.v[oi] = output_arg(output, joined);

	if (spec->dry_run) {
		cJSON *rj = cJSON_CreateArray();

		note_replacements(reps, spec->nreplace);
		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "cwd", build_dir);
		cJSON_AddItemToObject(doc, "argv", ab_json_strv(after.v, after.n));
		for (size_t r = 0; r < spec->nreplace; r++) {
			cJSON *o = cJSON_CreateObject();

			cJSON_AddStringToObject(o, "path", reps[r].path);
			cJSON_AddStringToObject(o, "with", reps[r].with);
			cJSON_AddNumberToObject(o, "count", reps[r].count);
			cJSON_AddItemToArray(rj, o);
		}
		cJSON_AddItemToObject(doc, "replacements", rj);
		*prov = doc;
		doc = NULL;
		error = 0;
		goto done;
	}

	/* the proof: every input of both commands, hashed */
	t_hash = ab_now();
	c_hash = cpu_self() + cpu_children();
	if (ab_linkinputs_default_dirs(&ddirs, before[0], build_dir, ab_env_envp(env)) < 0)
		goto done;
	if (ab_linkinputs_collect(&in_before, before, build_dir, ab_strv_argv(&ddirs)) < 0 ||
	    ab_linkinputs_collect(&in_after, after.v, build_dir, ab_strv_argv(&ddirs)) < 0)
		goto done;
	if (in_before.n != in_after.n) {
		ab_error("relink of '%s': the two link commands have %zu and %zu inputs", spec->link_txt, in_before.n,
		    in_after.n);
		goto done;
	}
	/* renaming the result over one of its own inputs would destroy it */
	{
		struct stat ist;
		int have_out = stat(output, &st) == 0;

		for (size_t side = 0; side < 2; side++) {
			const struct ab_link_inputs *in = side ? &in_after : &in_before;

			for (size_t i = 0; i < in->n; i++) {
				const char *ip = in->v[i].path;

				if (ip && (!strcmp(ip, output) || (have_out && stat(ip, &ist) == 0 &&
				    ist.st_dev == st.st_dev && ist.st_ino == st.st_ino))) {
					ab_error("output '%s' is an input of the link ('%s'): choose another path",
					    spec->output, in->v[i].arg);
					goto done;
				}
			}
		}
	}
	if (ab_linkinputs_hash_pair(&in_before, &in_after, 0) < 0)
		goto done;
	if (ab_hash_file(sha_lt, NULL, spec->link_txt) < 0)
		goto done;
	t_hash = ab_now() - t_hash;
	c_hash = cpu_self() + cpu_children() - c_hash;

	/* link to a temporary name next to the output, rename on success */
	if (ab_mkdir_p(out_dir, 0755) < 0)
		goto done;
	{
		const char *base = strrchr(output, '/') + 1;

		tmp = ab_sprintf("%s/.%s.relink-tmp.%ld", out_dir, base, (long)getpid());
	}
	unlink(tmp);
	free(after.v[oi]);
	after.v[oi] = output_arg(tmp, joined);
	{
		struct ab_proc p = {.argv = after.v, .cwd = build_dir, .envp = ab_env_envp(env), .out = &lout,
		    .err = &lerr};

		c_link = cpu_children();
		if (ab_proc_run(&res, &p) < 0)
			goto done;
		c_link = cpu_children() - c_link;
	}
	if (spec->log_path) {
		struct ab_buf lb = {0};
		char *q = ab_argv_quote(after.v);
		FILE *f = fopen(spec->log_path, "a");

		ab_buf_printf(&lb, "cd %s\n%s\n%s%s", build_dir, q, lout.s ? lout.s : "", lerr.s ? lerr.s : "");
		if (!f || fwrite(lb.s, 1, lb.len, f) != lb.len || fclose(f) != 0) {
			ab_error_errno("cannot write log '%s'", spec->log_path);
			free(q);
			ab_buf_free(&lb);
			unlink(tmp);
			goto done;
		}
		free(q);
		ab_buf_free(&lb);
	}
	if (res.exit_code != 0) {
		char why[128];

		if (lout.len)
			fwrite(lout.s, 1, lout.len, stderr);
		if (lerr.len)
			fwrite(lerr.s, 1, lerr.len, stderr);
		ab_proc_describe(why, sizeof(why), &res);
		ab_error("relink of '%s' failed: '%s' %s", spec->link_txt, before[0], why);
		unlink(tmp);
		error = AB_RELINK_ELINK;
		goto done;
	}
	if (lerr.len)
		fwrite(lerr.s, 1, lerr.len, stderr); /* linker warnings */
	if (ab_hash_file(sha_out, &size_out, tmp) < 0) {
		unlink(tmp);
		goto done;
	}
	if (rename(tmp, output) < 0) {
		ab_error_errno("cannot rename '%s' to '%s'", tmp, output);
		unlink(tmp);
		goto done;
	}
	free(after.v[oi]);
	after.v[oi] = output_arg(output, joined);
	note_replacements(reps, spec->nreplace);
	if (stat(orig_out, &ost) == 0 && S_ISREG(ost.st_mode)) {
		if (ab_hash_file(sha_orig, &size_orig, orig_out) < 0)
			goto done;
		have_orig = 1;
	}
	if (spec->check_normal) {
		check = check_normal(before, oi, joined, build_dir, out_dir, output, env, spec->log_path,
		    have_orig ? sha_orig : NULL, orig_out);
		if (!check) {
			unlink(output);
			goto done;
		}
	}

	/* relink-provenance.json */
	{
		cJSON *diff = cJSON_CreateArray(), *rj = cJSON_CreateArray(), *differing, *inputs, *o;

		doc = cJSON_CreateObject();
		cJSON_AddStringToObject(doc, "kind", "diagnostic relink");
		cJSON_AddStringToObject(doc, "note",
		    "the normal build's link command rerun with other inputs; not a normal distributable build");
		if (spec->tool)
			cJSON_AddStringToObject(doc, "tool", spec->tool);
		o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, "path", spec->link_txt);
		{
			char *abs = ab_path_absolute(spec->link_txt);

			cJSON_AddStringToObject(o, "absolute", abs);
			free(abs);
		}
		cJSON_AddStringToObject(o, "sha256", sha_lt);
		cJSON_AddNumberToObject(o, "line", cmd->line);
		cJSON_AddItemToObject(doc, "link_txt", o);
		cJSON_AddStringToObject(doc, "cwd", build_dir);
		cJSON_AddItemToObject(doc, "env", env_json(env));
		for (size_t r = 0; r < spec->nreplace; r++) {
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "path", reps[r].path);
			cJSON_AddStringToObject(o, "with", reps[r].with);
			cJSON_AddNumberToObject(o, "count", reps[r].count);
			cJSON_AddItemToArray(rj, o);
		}
		cJSON_AddItemToObject(doc, "replacements", rj);
		cJSON_AddItemToObject(doc, "argv_before", ab_json_strv(before, cmd->argv.n));
		cJSON_AddItemToObject(doc, "argv_after", ab_json_strv(after.v, after.n));
		for (size_t i = 0; i < after.n; i++) {
			if (!strcmp(before[i], after.v[i]))
				continue;
			o = cJSON_CreateObject();
			cJSON_AddNumberToObject(o, "index", (double)i);
			cJSON_AddStringToObject(o, "before", before[i]);
			cJSON_AddStringToObject(o, "after", after.v[i]);
			cJSON_AddStringToObject(o, "why", (int)i == oi ? "output" : "replacement");
			cJSON_AddItemToArray(diff, o);
		}
		cJSON_AddItemToObject(doc, "argv_diff", diff);
		cJSON_AddItemToObject(doc, "search_dirs", ab_json_strv(in_before.search_dirs.v, in_before.search_dirs.n));
		cJSON_AddItemToObject(doc, "default_search_dirs", ab_json_strv(ddirs.v, ddirs.n));
		inputs = compare_inputs(&differing, &verdict, &in_before, &in_after);
		cJSON_AddItemToObject(doc, "inputs", inputs);
		cJSON_AddItemToObject(doc, "differing_inputs", differing);
		if (cJSON_GetArraySize(differing) == 0)
			cJSON_AddStringToObject(doc, "verdict", "no input differs");
		else {
			char *v = ab_sprintf("only these inputs differ: %s", verdict.s);

			cJSON_AddStringToObject(doc, "verdict", v);
			free(v);
		}
		cJSON_AddItemToObject(doc, "normal_output",
		    file_json(before[oi], orig_out, have_orig ? sha_orig : NULL, size_orig));
		cJSON_AddItemToObject(doc, "output", file_json(NULL, output, sha_out, size_out));
		if (check) {
			cJSON_AddItemToObject(doc, "normal_check", check);
			check = NULL;
		}
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "exit_code", res.exit_code);
		cJSON_AddStringToObject(o, "linked_as", tmp);
		cJSON_AddItemToObject(doc, "link", o);
		o = cJSON_CreateObject();
		cJSON_AddNumberToObject(o, "inputs", t_hash);
		cJSON_AddNumberToObject(o, "inputs_cpu", c_hash);
		cJSON_AddNumberToObject(o, "link", res.seconds);
		cJSON_AddNumberToObject(o, "link_cpu", c_link);
		cJSON_AddNumberToObject(o, "total", ab_now() - t0);
		cJSON_AddItemToObject(doc, "seconds", o);
	}
	*prov = doc;
	doc = NULL;
	error = 0;
done:
	cJSON_Delete(doc);
	cJSON_Delete(check);
	ab_linktxt_release(&lt);
	ab_strv_free(&after);
	ab_strv_free(&ddirs);
	ab_linkinputs_release(&in_before);
	ab_linkinputs_release(&in_after);
	if (reps)
		for (size_t r = 0; r < spec->nreplace; r++)
			free(reps[r].with);
	free(reps);
	free(build_dir);
	free(output);
	free(out_dir);
	free(tmp);
	free(orig_out);
	ab_buf_free(&lerr);
	ab_buf_free(&lout);
	ab_buf_free(&verdict);
	if (env == &own_env)
		ab_env_release(&own_env);
	return error;
}
