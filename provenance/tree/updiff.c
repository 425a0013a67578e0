#include "updiff.h"

#include <ctype.h>
#include <git2.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../../lib/util.h"
#include "../../lib/jsonio.h"
#include "../../lib/hash.h"
#include "../../lib/pool.h"
#include "../alloc/allocver.h"

enum {
	DIFF_MAX = 8 * 1024 * 1024, /* text files larger than this are not diffed */
	BINARY_PROBE = 8000,        /* git's heuristic: a NUL in the first 8000 bytes */
	LIST_MAX = 10,              /* names listed in the summary line */
};

/* ---- classes ---- */

static const char *const class_names[AB_CLASS_COUNT] = {
	"source", "header", "template", "build", "test", "doc", "metadata", "generated", "other",
};

const char *
ab_updiff_class_name(enum ab_file_class c)
{
	return c < AB_CLASS_COUNT ? class_names[c] : "?";
}

const char *
ab_updiff_status_name(enum ab_updiff_status s)
{
	static const char *const names[] = {"identical", "differs", "only in candidate", "only in upstream"};

	return s < AB_UPDIFF_STATUS_COUNT ? names[s] : "?";
}

const char *
ab_updiff_status_key(enum ab_updiff_status s)
{
	static const char *const names[] = {"identical", "differs", "only-in-candidate", "only-in-upstream"};

	return s < AB_UPDIFF_STATUS_COUNT ? names[s] : "?";
}

static int
in_list(const char *s, size_t n, const char *const *list)
{
	for (; *list; list++)
		if (strlen(*list) == n && !strncmp(s, *list, n))
			return 1;
	return 0;
}

/* does the basename start with one of the prefixes (case-insensitive)? */
static int
has_prefix_ci(const char *base, const char *const *list)
{
	for (; *list; list++)
		if (!strncasecmp(base, *list, strlen(*list)))
			return 1;
	return 0;
}

enum ab_file_class
ab_updiff_classify(const char *path)
{
	static const char *const test_dirs[] = {"test", "tests", "testing", "unittest", "unittests", NULL};
	static const char *const template_ext[] = {".in", ".am", ".ac", ".m4", NULL};
	static const char *const header_ext[] = {".h", ".hh", ".hpp", ".hxx", ".h++", ".inl", ".ipp", ".tcc", NULL};
	static const char *const source_ext[] = {".c", ".cc", ".cpp", ".cxx", ".c++", ".m", ".mm", ".s", ".S",
		".asm", ".rs", ".go", ".cu", NULL};
	static const char *const build_names[] = {"Makefile", "makefile", "GNUmakefile", "CMakeLists.txt",
		"meson.build", "meson_options.txt", "configure", "autogen.sh", "bootstrap", "SConstruct",
		"SConscript", "BUILD", "BUILD.bazel", "WORKSPACE", "Kconfig", "install-sh", "config.guess",
		"config.sub", "ltmain.sh", "missing", "depcomp", "compile", NULL};
	static const char *const build_ext[] = {".cmake", ".mk", ".make", ".sh", ".bash", ".py", ".pl",
		".awk", ".sed", ".bat", ".cmd", ".ps1", ".sln", ".vcxproj", ".vcproj", ".filters", ".props",
		".targets", NULL};
	static const char *const doc_ext[] = {".md", ".txt", ".rst", ".adoc", ".xml", ".xsl", ".html",
		".htm", ".css", ".svg", ".png", ".jpg", ".gif", ".pdf", ".tex", ".texi", ".1", ".2", ".3",
		".4", ".5", ".6", ".7", ".8", ".9", NULL};
	static const char *const doc_names[] = {"README", "COPYING", "LICENSE", "LICENCE", "ChangeLog",
		"CHANGES", "NEWS", "AUTHORS", "CONTRIBUTING", "CONTRIBUTORS", "INSTALL", "TUNING", "NOTICE",
		"HISTORY", "THANKS", "TODO", "BUGS", "MAINTAINERS", NULL};
	static const char *const build_dirs[] = {"scripts", "build-aux", "cmake", "msvc", "bin", "tools",
		"build", NULL};
	static const char *const doc_dirs[] = {"doc", "docs", "doc_internal", "man", "documentation", NULL};
	const char *base = strrchr(path, '/');
	const char *ext, *first_end = path + strcspn(path, "/");
	size_t baselen;

	base = base ? base + 1 : path;
	baselen = strlen(base);
	ext = strrchr(base, '.');
	if (ext == base)
		ext = NULL;

	/* 1. generated in release tarballs, absent from git trees */
	if (!strcmp(path, "configure") || !strcmp(path, "VERSION"))
		return AB_CLASS_GENERATED;
	if (!strncmp(path, "doc/", 4) && !strchr(path + 4, '/') && ext &&
	    (!strcmp(ext, ".html") || (strlen(ext) == 2 && ext[1] >= '1' && ext[1] <= '9')))
		return AB_CLASS_GENERATED;
	/* 2. metadata: any component that starts with a dot */
	for (const char *p = path; *p;) {
		if (*p == '.')
			return AB_CLASS_METADATA;
		p += strcspn(p, "/");
		while (*p == '/')
			p++;
	}
	/* 3. test: a directory component named like a test directory */
	for (const char *p = path; p < base;) {
		size_t n = strcspn(p, "/");

		if (in_list(p, n, test_dirs))
			return AB_CLASS_TEST;
		p += n + 1;
	}
	/* 4. templates that configure or automake turn into files */
	if (!strcmp(base, "configure.ac") || !strcmp(base, "configure.in"))
		return AB_CLASS_TEMPLATE;
	if (ext && in_list(ext, strlen(ext), template_ext))
		return AB_CLASS_TEMPLATE;
	/* 5. by extension: headers, sources */
	if (ext && in_list(ext, strlen(ext), header_ext))
		return AB_CLASS_HEADER;
	if (ext && in_list(ext, strlen(ext), source_ext))
		return AB_CLASS_SOURCE;
	/* 6. build files and scripts by name, then documents by name */
	if (in_list(base, baselen, build_names) || (ext && in_list(ext, strlen(ext), build_ext)))
		return AB_CLASS_BUILD;
	if (has_prefix_ci(base, doc_names) || (ext && in_list(ext, strlen(ext), doc_ext)))
		return AB_CLASS_DOC;
	/* 7. by top-level directory */
	if (*first_end && in_list(path, (size_t)(first_end - path), build_dirs))
		return AB_CLASS_BUILD;
	if (*first_end && in_list(path, (size_t)(first_end - path), doc_dirs))
		return AB_CLASS_DOC;
	return AB_CLASS_OTHER;
}

/* ---- reading ---- */

/* the trees on the pool (lib/pool.h): every one is read, each failure is reported */
struct readjob {
	struct ab_tree **trees;
	const char *const *specs;
	int strip;
	int side_jobs; /* hashing workers of a directory side */
	atomic_int failed;
};

static int
read_item(void *arg, size_t i, int worker)
{
	struct readjob *j = arg;

	(void)worker;
	if (ab_tree_read(&j->trees[i], j->specs[i], j->strip, j->side_jobs) < 0)
		atomic_store(&j->failed, 1);
	return 0;
}

int
ab_updiff_read_trees(struct ab_tree **trees, const char *const *specs, size_t n, int strip, int jobs)
{
	struct readjob j = {.trees = trees, .specs = specs, .strip = strip};
	int at_once = ab_pool_workers(n, jobs < 1 ? 1 : jobs);

	for (size_t i = 0; i < n; i++)
		trees[i] = NULL;
	if (n == 1) {
		/* one side: let the directory reader use the threads */
		return ab_tree_read(&trees[0], specs[0], strip, jobs);
	}
	atomic_init(&j.failed, 0);
	/*
	 * jobs <= 1 is one side at a time here. The sides read at once share
	 * the hashing workers (lib/hash.h: more than the cores, so that a
	 * side not in the page cache is read with several reads in flight:
	 * two cold 12,000-file trees took 2.7 s with one worker each)
	 */
	j.side_jobs = ab_hash_default_jobs() / at_once;
	if (j.side_jobs < 1)
		j.side_jobs = 1;
	ab_pool_run(n, at_once, read_item, &j);
	if (!atomic_load(&j.failed))
		return 0;
	for (size_t i = 0; i < n; i++) {
		ab_tree_free(trees[i]);
		trees[i] = NULL;
	}
	return -1;
}

/* ---- comparing ---- */

static int
entries_equal(const struct ab_tree_entry *a, const struct ab_tree_entry *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case AB_ENTRY_FILE:
		return a->size == b->size && !strcmp(a->sha256, b->sha256);
	case AB_ENTRY_SYMLINK:
		return !strcmp(a->target, b->target);
	case AB_ENTRY_OTHER:
		return 1;
	}
	return 0;
}

static int
is_significant(const struct ab_updiff_file *f, int strict)
{
	if (f->status == AB_UPDIFF_IDENTICAL)
		return 0;
	if (strict)
		return 1;
	if (f->status == AB_UPDIFF_ONLY_UPSTREAM)
		return 0;
	switch (f->cls) {
	case AB_CLASS_SOURCE:
	case AB_CLASS_HEADER:
	case AB_CLASS_TEMPLATE:
	case AB_CLASS_BUILD:
	case AB_CLASS_OTHER:
		return 1;
	case AB_CLASS_GENERATED:
		/* configure runs in the build and VERSION names it: a changed one matters */
		return f->status == AB_UPDIFF_DIFFERS &&
		    (!strcmp(f->path, "configure") || !strcmp(f->path, "VERSION"));
	default:
		return 0;
	}
}

static int
is_jemalloc_tree(const struct ab_tree *t)
{
	return ab_tree_find(t, "include/jemalloc/jemalloc_macros.h.in") != NULL ||
	    ab_tree_find(t, "src/jemalloc.c") != NULL;
}

static void
add_list(struct ab_buf *b, struct ab_updiff *u, enum ab_updiff_status status)
{
	const struct ab_updiff_file *shown[LIST_MAX];
	size_t nshown = 0, total = u->count[status];
	int done[LIST_MAX] = {0};

	for (size_t i = 0; i < u->n && nshown < LIST_MAX; i++)
		if (u->v[i].status == status)
			shown[nshown++] = &u->v[i];
	/* group the names by class, classes in order of first appearance */
	for (size_t i = 0, first = 1; i < nshown; i++) {
		if (done[i])
			continue;
		for (size_t k = i; k < nshown; k++) {
			if (done[k] || shown[k]->cls != shown[i]->cls)
				continue;
			ab_buf_puts(b, first ? ": " : ", ");
			/* the summary is read as text (a terminal, pr.md): names escaped */
			ab_buf_add_shown(b, shown[k]->path, strlen(shown[k]->path));
			first = 0;
			done[k] = 1;
		}
		ab_buf_printf(b, " (%s)", ab_updiff_class_name(shown[i]->cls));
	}
	if (total > nshown)
		ab_buf_printf(b, ", and %zu more", total - nshown);
}

static char *
make_summary(struct ab_updiff *u)
{
	struct ab_buf b = {0};
	size_t ncand = u->count[AB_UPDIFF_IDENTICAL] + u->count[AB_UPDIFF_DIFFERS] +
	    u->count[AB_UPDIFF_ONLY_CANDIDATE];

	ab_buf_printf(&b, "%zu file%s in candidate: %zu identical, %zu %s, %zu only in candidate",
	    ncand, ncand == 1 ? "" : "s", u->count[AB_UPDIFF_IDENTICAL], u->count[AB_UPDIFF_DIFFERS],
	    u->count[AB_UPDIFF_DIFFERS] == 1 ? "differs" : "differ", u->count[AB_UPDIFF_ONLY_CANDIDATE]);
	ab_buf_printf(&b, "; %zu only in upstream", u->count[AB_UPDIFF_ONLY_UPSTREAM]);
	add_list(&b, u, AB_UPDIFF_ONLY_UPSTREAM);
	return ab_buf_detach(&b);
}

static void
make_notes(struct ab_updiff *u)
{
	const struct ab_tree *c = u->cand, *up = u->up;
	struct ab_buf b = {0};
	size_t other = u->significant;
	const struct ab_updiff_file *ver = NULL;

	if (!is_jemalloc_tree(c) || (c->version && !ab_jemalloc_version_is_bogus(c->version)))
		return;
	for (size_t i = 0; i < u->n; i++)
		if (!strcmp(u->v[i].path, "VERSION"))
			ver = &u->v[i];
	/* the verdict without VERSION itself: what the content says */
	if (ver && ver->significant)
		other--;
	if (!c->version)
		ab_buf_printf(&b, "note: candidate has no VERSION file: a build from it reports jemalloc version %s; ",
		    AB_JEMALLOC_BOGUS_VERSION);
	else
		ab_buf_printf(&b, "note: candidate's VERSION holds the bogus version %s, which a build from it reports; ",
		    c->version);
	if (other == 0 && up->version && !ab_jemalloc_version_is_bogus(up->version)) {
		ab_buf_printf(&b, "by content it is upstream %s (VERSION of %s)", up->version, up->spec);
		ab_strv_push_owned(&u->notes, ab_buf_detach(&b));
		ab_strv_pushf(&u->notes, "note: configure it with --with-version=%s to report the real version",
		    up->version);
		return;
	}
	if (other == 0)
		ab_buf_printf(&b, "by content it matches %s, which has no usable VERSION either", up->spec);
	else
		ab_buf_printf(&b, "by content it is not %s%s%s: %zu significant file%s differ%s", up->spec,
		    up->version ? " " : "", up->version ? up->version : "", other, other == 1 ? "" : "s",
		    other == 1 ? "s" : "");
	ab_strv_push_owned(&u->notes, ab_buf_detach(&b));
}

struct ab_updiff *
ab_updiff_new(struct ab_tree *cand, struct ab_tree *up, int strict)
{
	struct ab_updiff *u = ab_calloc(1, sizeof(*u));
	size_t i = 0, k = 0;

	u->cand = cand;
	u->up = up;
	u->strict = strict;
	u->v = ab_calloc(cand->n + up->n, sizeof(*u->v));
	while (i < cand->n || k < up->n) {
		struct ab_updiff_file *f = &u->v[u->n++];
		int c = i >= cand->n ? 1 : k >= up->n ? -1 : strcmp(cand->v[i].path, up->v[k].path);

		if (c < 0) {
			f->cand = &cand->v[i++];
			f->status = AB_UPDIFF_ONLY_CANDIDATE;
		} else if (c > 0) {
			f->up = &up->v[k++];
			f->status = AB_UPDIFF_ONLY_UPSTREAM;
		} else {
			f->cand = &cand->v[i++];
			f->up = &up->v[k++];
			f->status = entries_equal(f->cand, f->up) ? AB_UPDIFF_IDENTICAL : AB_UPDIFF_DIFFERS;
			if (f->status == AB_UPDIFF_IDENTICAL && f->cand->type == AB_ENTRY_FILE)
				u->identical_bytes += f->cand->size;
		}
		f->path = f->cand ? f->cand->path : f->up->path;
		f->cls = ab_updiff_classify(f->path);
		f->significant = is_significant(f, strict);
		u->count[f->status]++;
		u->by_class[f->cls][f->status]++;
		if (f->significant)
			u->significant++;
		if (f->status == AB_UPDIFF_ONLY_UPSTREAM && f->cls <= AB_CLASS_BUILD)
			u->missing++;
	}
	u->matches = u->significant == 0;
	u->summary = make_summary(u);
	make_notes(u);
	return u;
}

void
ab_updiff_free(struct ab_updiff *u)
{
	if (!u)
		return;
	free(u->v);
	free(u->summary);
	ab_strv_free(&u->notes);
	free(u);
}

/* ---- output ---- */

static int diff_one(struct ab_buf *b, const struct ab_updiff_file *x);
static int load_differing(struct ab_updiff *u);

static const char *
type_name(enum ab_entry_type t)
{
	return t == AB_ENTRY_FILE ? "regular file" : t == AB_ENTRY_SYMLINK ? "symbolic link" : "special file";
}

static void
print_side(FILE *f, const char *label, const struct ab_tree *t)
{
	fprintf(f, "%s %s (%s", label, t->spec, ab_tree_kind_name(t->kind));
	if (t->kind == AB_TREE_ARCHIVE)
		fprintf(f, ", sha256 %s, %d component%s stripped", t->archive_sha256, t->strip,
		    t->strip == 1 ? "" : "s");
	if (t->kind == AB_TREE_GIT && *t->commit)
		fprintf(f, ", commit %s", t->commit);
	if (t->kind == AB_TREE_GIT)
		fprintf(f, ", tree %s", t->tree_id);
	fprintf(f, "): %zu files", t->nfiles);
	if (t->n > t->nfiles)
		fprintf(f, " and %zu symlink%s or special file%s", t->n - t->nfiles, t->n - t->nfiles == 1 ? "" : "s",
		    t->n - t->nfiles == 1 ? "" : "s");
	fprintf(f, ", %llu bytes, dirHash %s\n", (unsigned long long)t->bytes, t->dirhash);
}

static int
print_diffs(FILE *f, struct ab_updiff *u)
{
	struct ab_buf b = {0};

	if (load_differing(u) < 0)
		return -1;
	for (size_t i = 0; i < u->n; i++) {
		if (u->v[i].status != AB_UPDIFF_DIFFERS)
			continue;
		ab_buf_clear(&b);
		if (diff_one(&b, &u->v[i]) < 0) {
			ab_buf_free(&b);
			return -1;
		}
		fwrite(b.s, 1, b.len, f);
	}
	ab_buf_free(&b);
	return 0;
}

int
ab_updiff_print(FILE *f, struct ab_updiff *u, int with_diffs)
{
	static const char *const heads[] = {"identical", "differ", "only in candidate", "only in upstream"};

	print_side(f, "candidate:", u->cand);
	print_side(f, "upstream: ", u->up);
	if (u->count[AB_UPDIFF_IDENTICAL] != u->n)
		fputc('\n', f);
	for (size_t i = 0; i < u->n; i++) {
		const struct ab_updiff_file *x = &u->v[i];

		if (x->status == AB_UPDIFF_IDENTICAL)
			continue;
		char *path = ab_shown(x->path);

		fprintf(f, "%-17s  %-9s  %s", ab_updiff_status_name(x->status), ab_updiff_class_name(x->cls), path);
		free(path);
		if (x->status == AB_UPDIFF_DIFFERS && x->cand->type != x->up->type) {
			fprintf(f, " (%s in candidate, %s in upstream)", type_name(x->cand->type), type_name(x->up->type));
		} else if (x->status == AB_UPDIFF_DIFFERS && x->cand->type == AB_ENTRY_SYMLINK) {
			char *ct = ab_shown(x->cand->target), *ut = ab_shown(x->up->target);

			fprintf(f, " (symbolic link to '%s' in candidate, to '%s' in upstream)", ct, ut);
			free(ct);
			free(ut);
		}
		else if (x->status != AB_UPDIFF_DIFFERS && (x->cand ? x->cand : x->up)->type != AB_ENTRY_FILE)
			fprintf(f, " (%s)", type_name((x->cand ? x->cand : x->up)->type));
		fputc('\n', f);
	}
	if (with_diffs && u->count[AB_UPDIFF_DIFFERS]) {
		fputc('\n', f);
		if (print_diffs(f, u) < 0)
			return -1;
	}
	fprintf(f, "\n%-10s %9s %7s %17s %16s\n", "class", heads[0], heads[1], heads[2], heads[3]);
	for (int c = 0; c < AB_CLASS_COUNT; c++) {
		const size_t *n = u->by_class[c];

		if (!(n[0] + n[1] + n[2] + n[3]))
			continue;
		fprintf(f, "%-10s %9zu %7zu %17zu %16zu\n", class_names[c], n[0], n[1], n[2], n[3]);
	}
	fprintf(f, "\n%s\n", u->summary);
	if (u->significant == 0 && u->count[AB_UPDIFF_IDENTICAL] == u->n)
		fputs("verdict: identical to upstream\n", f);
	else if (u->significant == 0 && u->missing == 0)
		fputs("verdict: matches upstream: no source, header, template or build file differs or is extra\n", f);
	else if (u->significant == 0)
		fprintf(f, "verdict: matches upstream: no source, header, template or build file differs or is extra "
		    "(but %zu of them %s missing from the candidate)\n", u->missing, u->missing == 1 ? "is" : "are");
	else {
		size_t shown = 0;

		fprintf(f, "verdict: differs from upstream%s: %zu significant difference%s", u->strict ? " (--strict)" : "",
		    u->significant, u->significant == 1 ? "" : "s");
		for (size_t i = 0; i < u->n && shown < LIST_MAX; i++) {
			if (!u->v[i].significant)
				continue;
			char *path = ab_shown(u->v[i].path);

			fprintf(f, "%s%s (%s)", shown ? ", " : ": ", path, ab_updiff_class_name(u->v[i].cls));
			free(path);
			shown++;
		}
		if (u->significant > shown)
			fprintf(f, ", and %zu more", u->significant - shown);
		fputc('\n', f);
	}
	for (size_t i = 0; i < u->notes.n; i++)
		fprintf(f, "%s\n", u->notes.v[i]);
	return 0;
}

static int
looks_binary(const struct ab_tree_entry *e)
{
	size_t n = e->data_len < BINARY_PROBE ? e->data_len : BINARY_PROBE;

	return memchr(e->data, '\0', n) != NULL;
}

static int
patch_line(const git_diff_delta *d, const git_diff_hunk *h, const git_diff_line *l, void *payload)
{
	struct ab_buf *b = payload;

	(void)d;
	(void)h;
	switch (l->origin) {
	case GIT_DIFF_LINE_FILE_HDR:
		return 0;
	case GIT_DIFF_LINE_CONTEXT:
	case GIT_DIFF_LINE_ADDITION:
	case GIT_DIFF_LINE_DELETION:
		ab_buf_putc(b, l->origin);
		break;
	default:
		break;
	}
	ab_buf_add(b, l->content, l->content_len);
	return 0;
}

/* the diff text of one differing file into b (contents loaded) */
static int
diff_one(struct ab_buf *b, const struct ab_updiff_file *x)
{
	const struct ab_tree_entry *c = x->cand, *up = x->up;
	git_diff_options o;
	git_patch *patch = NULL;
	char *path = ab_shown(x->path);
	int error = 0;

	if (c->type != up->type) {
		ab_buf_printf(b, "File upstream/%s is a %s while file candidate/%s is a %s\n", path,
		    type_name(up->type), path, type_name(c->type));
		goto done;
	}
	if (c->type == AB_ENTRY_SYMLINK) {
		char *ut = ab_shown(up->target), *ct = ab_shown(c->target);

		ab_buf_printf(b, "Symbolic links upstream/%s -> %s and candidate/%s -> %s differ\n", path, ut, path, ct);
		free(ut);
		free(ct);
		goto done;
	}
	if (c->type != AB_ENTRY_FILE)
		goto done;
	if (!c->loaded || !up->loaded) {
		ab_buf_printf(b, "Files upstream/%s and candidate/%s differ (too large to diff: %llu and %llu bytes)\n",
		    path, path, (unsigned long long)up->size, (unsigned long long)c->size);
		goto done;
	}
	if (looks_binary(c) || looks_binary(up)) {
		ab_buf_printf(b, "Binary files upstream/%s and candidate/%s differ\n", path, path);
		goto done;
	}
	git_diff_options_init(&o, GIT_DIFF_OPTIONS_VERSION);
	o.flags = GIT_DIFF_FORCE_TEXT;
	o.context_lines = 3;
	if (git_patch_from_buffers(&patch, up->data, up->data_len, x->path, c->data, c->data_len, x->path, &o) < 0) {
		ab_error_git("cannot diff '%s'", path);
		error = -1;
		goto done;
	}
	ab_buf_printf(b, "--- upstream/%s\n+++ candidate/%s\n", path, path);
	if (git_patch_print(patch, patch_line, b) < 0) {
		ab_error_git("cannot diff '%s'", path);
		error = -1;
	}
done:
	git_patch_free(patch);
	free(path);
	return error;
}

static int
load_differing(struct ab_updiff *u)
{
	int any = 0;

	for (size_t i = 0; i < u->n; i++) {
		struct ab_updiff_file *x = &u->v[i];

		if (x->status != AB_UPDIFF_DIFFERS)
			continue;
		x->cand->wanted = x->up->wanted = 1;
		any = 1;
	}
	if (!any)
		return 0;
	if (ab_tree_load(u->cand, DIFF_MAX) < 0 || ab_tree_load(u->up, DIFF_MAX) < 0)
		return -1;
	return 0;
}

static cJSON *
entry_json(const struct ab_tree_entry *e)
{
	cJSON *o;

	if (!e)
		return cJSON_CreateNull();
	o = cJSON_CreateObject();
	switch (e->type) {
	case AB_ENTRY_FILE:
		cJSON_AddStringToObject(o, "type", "file");
		cJSON_AddNumberToObject(o, "size", (double)e->size);
		cJSON_AddStringToObject(o, "sha256", e->sha256);
		if (e->exec)
			cJSON_AddBoolToObject(o, "executable", 1);
		break;
	case AB_ENTRY_SYMLINK:
		cJSON_AddStringToObject(o, "type", "symlink");
		cJSON_AddStringToObject(o, "target", e->target);
		break;
	case AB_ENTRY_OTHER:
		cJSON_AddStringToObject(o, "type", "other");
		break;
	}
	return o;
}

cJSON *
ab_updiff_side_json(const struct ab_tree *t)
{
	cJSON *o = cJSON_CreateObject(), *d;

	cJSON_AddStringToObject(o, "spec", t->spec);
	cJSON_AddStringToObject(o, "kind", ab_tree_kind_name(t->kind));
	cJSON_AddStringToObject(o, t->kind == AB_TREE_GIT ? "repository" : "path", t->root);
	if (t->kind == AB_TREE_ARCHIVE) {
		cJSON_AddStringToObject(o, "archive_sha256", t->archive_sha256);
		cJSON_AddNumberToObject(o, "strip", t->strip);
	}
	if (t->kind == AB_TREE_GIT) {
		cJSON_AddStringToObject(o, "rev", t->rev);
		cJSON_AddStringToObject(o, "subpath", t->subpath);
		if (*t->commit)
			cJSON_AddStringToObject(o, "commit", t->commit);
		else
			cJSON_AddNullToObject(o, "commit");
		cJSON_AddStringToObject(o, "tree", t->tree_id);
	}
	cJSON_AddNumberToObject(o, "entries", (double)t->n);
	cJSON_AddNumberToObject(o, "files", (double)t->nfiles);
	cJSON_AddNumberToObject(o, "bytes", (double)t->bytes);
	d = cJSON_AddObjectToObject(o, "digest");
	cJSON_AddStringToObject(d, "dirHash", t->dirhash);
	if (t->version)
		cJSON_AddStringToObject(o, "version", t->version);
	else
		cJSON_AddNullToObject(o, "version");
	return o;
}

static cJSON *
counts_json(const size_t *n)
{
	cJSON *o = cJSON_CreateObject();

	cJSON_AddNumberToObject(o, "identical", (double)n[AB_UPDIFF_IDENTICAL]);
	cJSON_AddNumberToObject(o, "differ", (double)n[AB_UPDIFF_DIFFERS]);
	cJSON_AddNumberToObject(o, "only_in_candidate", (double)n[AB_UPDIFF_ONLY_CANDIDATE]);
	cJSON_AddNumberToObject(o, "only_in_upstream", (double)n[AB_UPDIFF_ONLY_UPSTREAM]);
	return o;
}

cJSON *
ab_updiff_json(struct ab_updiff *u, int with_diffs)
{
	cJSON *doc, *classes, *files, *counts;
	struct ab_buf b = {0};

	if (with_diffs && load_differing(u) < 0)
		return NULL;
	doc = cJSON_CreateObject();
	cJSON_AddItemToObject(doc, "candidate", ab_updiff_side_json(u->cand));
	cJSON_AddItemToObject(doc, "upstream", ab_updiff_side_json(u->up));
	cJSON_AddBoolToObject(doc, "strict", u->strict);
	cJSON_AddBoolToObject(doc, "matches", u->matches);
	cJSON_AddBoolToObject(doc, "identical", u->count[AB_UPDIFF_IDENTICAL] == u->n);
	cJSON_AddStringToObject(doc, "summary", u->summary);
	counts = counts_json(u->count);
	cJSON_AddNumberToObject(counts, "files_in_candidate",
	    (double)(u->count[AB_UPDIFF_IDENTICAL] + u->count[AB_UPDIFF_DIFFERS] + u->count[AB_UPDIFF_ONLY_CANDIDATE]));
	cJSON_AddNumberToObject(counts, "significant", (double)u->significant);
	cJSON_AddNumberToObject(counts, "missing_significant", (double)u->missing);
	cJSON_AddNumberToObject(counts, "identical_bytes", (double)u->identical_bytes);
	cJSON_AddItemToObject(doc, "counts", counts);
	classes = cJSON_AddObjectToObject(doc, "classes");
	for (int c = 0; c < AB_CLASS_COUNT; c++) {
		const size_t *n = u->by_class[c];

		if (n[0] + n[1] + n[2] + n[3])
			cJSON_AddItemToObject(classes, class_names[c], counts_json(n));
	}
	cJSON_AddItemToObject(doc, "notes", ab_json_strv(u->notes.v, u->notes.n));
	files = cJSON_AddArrayToObject(doc, "files");
	for (size_t i = 0; i < u->n; i++) {
		const struct ab_updiff_file *x = &u->v[i];
		cJSON *o = cJSON_CreateObject();

		cJSON_AddStringToObject(o, "path", x->path);
		cJSON_AddStringToObject(o, "status", ab_updiff_status_key(x->status));
		cJSON_AddStringToObject(o, "class", class_names[x->cls]);
		cJSON_AddBoolToObject(o, "significant", x->significant);
		cJSON_AddItemToObject(o, "candidate", entry_json(x->cand));
		cJSON_AddItemToObject(o, "upstream", entry_json(x->up));
		if (with_diffs && x->status == AB_UPDIFF_DIFFERS) {
			ab_buf_clear(&b);
			if (diff_one(&b, x) < 0) {
				ab_buf_free(&b);
				cJSON_Delete(o);
				cJSON_Delete(doc);
				return NULL;
			}
			cJSON_AddStringToObject(o, "diff", b.s ? b.s : "");
		}
		cJSON_AddItemToArray(files, o);
	}
	ab_buf_free(&b);
	return doc;
}

void
ab_updiff_opts_init(struct ab_updiff_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->strip = -1;
	o->jobs = 2;
}

int
ab_updiff_compare(cJSON **report, const char *candidate, const char *upstream, const struct ab_updiff_opts *opts)
{
	const char *specs[2] = {candidate, upstream};
	struct ab_tree *trees[2];
	struct ab_updiff *u;
	int error = -1;

	struct ab_updiff_opts defaults;

	*report = NULL;
	if (!opts) {
		ab_updiff_opts_init(&defaults);
		opts = &defaults;
	}
	if (ab_updiff_read_trees(trees, specs, 2, opts->strip, opts->jobs) < 0)
		return -1;
	u = ab_updiff_new(trees[0], trees[1], opts->strict);
	*report = ab_updiff_json(u, opts->diffs);
	if (*report)
		error = 0;
	ab_updiff_free(u);
	ab_tree_free(trees[0]);
	ab_tree_free(trees[1]);
	return error;
}

int
ab_updiff_rank(const struct ab_updiff *p, const struct ab_updiff *q)
{
	size_t dp = p->count[AB_UPDIFF_DIFFERS] + p->count[AB_UPDIFF_ONLY_CANDIDATE];
	size_t dq = q->count[AB_UPDIFF_DIFFERS] + q->count[AB_UPDIFF_ONLY_CANDIDATE];

	if (p->count[AB_UPDIFF_IDENTICAL] != q->count[AB_UPDIFF_IDENTICAL])
		return p->count[AB_UPDIFF_IDENTICAL] > q->count[AB_UPDIFF_IDENTICAL] ? -1 : 1;
	if (p->identical_bytes != q->identical_bytes)
		return p->identical_bytes > q->identical_bytes ? -1 : 1;
	if (p->significant != q->significant)
		return p->significant < q->significant ? -1 : 1;
	if (dp != dq)
		return dp < dq ? -1 : 1;
	if (p->count[AB_UPDIFF_ONLY_UPSTREAM] != q->count[AB_UPDIFF_ONLY_UPSTREAM])
		return p->count[AB_UPDIFF_ONLY_UPSTREAM] < q->count[AB_UPDIFF_ONLY_UPSTREAM] ? -1 : 1;
	return 0;
}
