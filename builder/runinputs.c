/*
 * runinputs: what a run's command runs and names, hashed before its
 * first run (builder/runinputs.h, docs/runs.md "What ran").
 */
#include "runinputs.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/atomic.h"
#include "../lib/digestcache.h"
#include "../lib/hash.h"
#include "../lib/which.h"
#include "../provenance/record/manifest.h"

/* the most of a --program's bytes kept with the runs */
#define KEEP_MAX ((size_t)1 << 30)

/* the string kept for the inputs' lifetime */
static const char *
own(struct ab_runinputs *in, char *s)
{
	if (!s)
		return NULL;
	ab_strv_push_owned(&in->owned, s);
	return s;
}

/*
 * real (a resolved absolute path) as the record knows it: its path
 * relative to OUTDIR when inside it, its base name, and whether it is an
 * artifact of the OUTDIR's build with digest hex
 */
static void
describe(struct ab_runinputs *in, struct ab_runrec_input *f, const char *real, const char *hex,
    const struct ab_runinputs_where *w)
{
	size_t n = strlen(w->outdir_real);
	const char *base = strrchr(real, '/');

	f->name = own(in, ab_strdup(base ? base + 1 : real));
	snprintf(f->sha256, sizeof(f->sha256), "%s", hex);
	f->path = NULL;
	f->artifact = 0;
	if (!strncmp(real, w->outdir_real, n) && real[n] == '/') {
		const char *want;

		f->path = own(in, ab_strdup(real + n + 1));
		want = ab_manifest_recorded_subject(w->rec, f->path);
		f->artifact = want && !strcmp(want, hex);
	}
}

/* hash the regular file path (resolved) into f; 0, or AB_EFAIL (reported) */
static int
hash_into(struct ab_runinputs *in, struct ab_runrec_input *f, const char *path, const struct ab_runinputs_where *w)
{
	char hex[AB_HEX_LEN + 1], *real = realpath(path, NULL);
	int cached, e;
	int64_t at;

	if (!real) {
		ab_error_errno("run: cannot resolve '%s'", path);
		return AB_EFAIL;
	}
	if ((e = ab_digestcache_hash(hex, &cached, &at, real, w->cache_dir, w->rehash)) == 0)
		describe(in, f, real, hex, w);
	free(real);
	return e;
}

static int
is_regular(const char *path)
{
	struct stat st;

	return *path && stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* --program: the file read, hashed from those bytes, and where its copy goes unless it is an artifact */
static int
hash_given(struct ab_runinputs *in, const char *program, const char *reldir, const struct ab_runinputs_where *w)
{
	struct ab_runrec_input *g = &in->given;
	char hex[AB_HEX_LEN + 1], *real;
	const char *base = strrchr(program, '/'), *listed = NULL;

	if (!is_regular(program)) {
		ab_error("run: --program '%s': %s", program, ab_path_exists(program) ? "not a regular file" :
		    "no such file");
		return AB_EFAIL;
	}
	if (!(real = realpath(program, NULL))) {
		ab_error_errno("run: cannot resolve '%s'", program);
		return AB_EFAIL;
	}
	if (ab_read_file_max(&in->given_bytes, real, KEEP_MAX) < 0) {
		free(real);
		return AB_EFAIL;
	}
	ab_hash_buf(hex, in->given_bytes.s ? in->given_bytes.s : "", in->given_bytes.len);
	describe(in, g, real, hex, w);
	free(real);
	g->arg = -1;
	g->kept = NULL;
	if (g->artifact) {
		in->given_listed = 1;
		ab_buf_free(&in->given_bytes);
		return 0;
	}
	/* the name the copy has in the command, not its target's: "frag-fit-only", a copy of "frag-stock53" */
	g->name = own(in, ab_strdup(base ? base + 1 : program));
	g->kept = own(in, ab_sprintf("%s/programs/%.12s-%s", reldir, hex, g->name));
	for (size_t i = 0; i < w->rec->paths.n; i++)
		if (!strcmp(w->rec->paths.v[i], g->kept))
			listed = w->rec->hexes.v[i];
	if (listed && strcmp(listed, hex)) {
		ab_error("run: '%s' is listed in SHA256SUMS with sha256 %s, not %s: another program of the same name and "
		    "the same first digits; use another --name", g->kept, listed, hex);
		return AB_EFAIL;
	}
	if (listed) {
		char *path = ab_path_join(w->outdir, g->kept), now[AB_HEX_LEN + 1];

		/* kept by an earlier run of the name, unchanged: no second copy, no second line */
		in->given_listed = ab_hash_file(now, NULL, path) == 0 && !strcmp(now, hex);
		free(path);
	}
	if (in->given_listed)
		ab_buf_free(&in->given_bytes);
	return 0;
}

int
ab_runinputs_hash(struct ab_runinputs *in, char *const *argv, const char *program, const char *reldir,
    const struct ab_runinputs_where *w)
{
	char *exe = ab_proc_which(argv[0], w->envp);
	size_t n = 0;
	int e;

	memset(in, 0, sizeof(*in));
	if (!exe) {
		ab_error(strchr(argv[0], '/') ? "run: cannot run '%s': not an executable file" :
		    "run: cannot run '%s': command not found in PATH", argv[0]);
		return AB_EFAIL;
	}
	e = hash_into(in, &in->program, exe, w);
	free(exe);
	if (e < 0)
		return e;
	in->program.arg = 0;
	while (argv[n])
		n++;
	in->files = ab_calloc(n ? n : 1, sizeof(*in->files));
	for (size_t i = 1; i < n; i++) {
		if (!is_regular(argv[i]))
			continue;
		if ((e = hash_into(in, &in->files[in->nfiles], argv[i], w)) < 0)
			return e;
		in->files[in->nfiles++].arg = (int)i;
	}
	return program ? hash_given(in, program, reldir, w) : 0;
}

int
ab_runinputs_tied(const struct ab_runinputs *in)
{
	if (in->given.name || in->program.artifact)
		return 1;
	for (size_t i = 0; i < in->nfiles; i++)
		if (in->files[i].artifact)
			return 1;
	return 0;
}

int
ab_runinputs_keep(struct ab_runrec_file *file, struct ab_runinputs *in, const char *outdir)
{
	char *path, *dir;
	int e;

	memset(file, 0, sizeof(*file));
	if (!in->given.name || in->given_listed)
		return 0;
	path = ab_path_join(outdir, in->given.kept);
	dir = ab_path_dirname(path);
	e = ab_mkdir_p(dir, 0755) < 0 ? AB_EFAIL :
	    ab_write_file_atomic(path, in->given_bytes.s ? in->given_bytes.s : "", in->given_bytes.len);
	if (e == 0) {
		file->path = ab_strdup(in->given.kept);
		memcpy(file->sha256, in->given.sha256, sizeof(file->sha256));
		file->size = in->given_bytes.len;
		in->given_listed = 1;
		ab_buf_free(&in->given_bytes);
	}
	free(dir);
	free(path);
	return e;
}

void
ab_runinputs_kept_by_other(struct ab_runinputs *in, const struct ab_runrec_file *kept)
{
	if (in->given.kept && !in->given_listed && !strcmp(in->given.kept, kept->path) &&
	    !strcmp(in->given.sha256, kept->sha256)) {
		in->given_listed = 1;
		ab_buf_free(&in->given_bytes);
	}
}

void
ab_runinputs_release(struct ab_runinputs *in)
{
	free(in->files);
	ab_buf_free(&in->given_bytes);
	ab_strv_free(&in->owned);
	memset(in, 0, sizeof(*in));
}
