#include "inputs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "localdir.h"
#include "../lib/atomic.h"
#include "../lib/copytree.h"
#include "../lib/dirwalk.h"
#include "../lib/hash.h"
#include "../lib/jsonio.h"

/* where save builds the new inputs/ and leaves the old one, beside it in OUTDIR */
#define NEW_DIR ".inputs-new"
#define OLD_DIR ".inputs-old"
/* what stands for each level between a restored recipe's directory and the root */
#define LEVEL "_"

/*
 * rel (relative to the recipe's directory) as inputs/<k>/<rest>, rest
 * without "." or ".." components; NULL when nothing is left of it
 */
static char *
kept_name(const char *rel)
{
	struct ab_strv parts = {0};
	struct ab_buf b = {0};
	unsigned up = 0;
	char *out = NULL;

	for (const char *p = rel; *p;) {
		size_t n = strcspn(p, "/");

		if (n == 2 && !strncmp(p, "..", 2)) {
			if (parts.n)
				free(parts.v[--parts.n]);
			else
				up++;
		} else if (n && !(n == 1 && *p == '.')) {
			ab_strv_push_owned(&parts, ab_strndup(p, n));
		}
		p += n + (p[n] == '/');
	}
	if (parts.n) {
		ab_buf_printf(&b, AB_INPUTS_DIR "/%u", up);
		for (size_t i = 0; i < parts.n; i++)
			ab_buf_printf(&b, "/%s", parts.v[i]);
		out = b.s;
	}
	ab_strv_free(&parts);
	return out;
}

static int
save_dir(const struct ab_recipe *r, const struct ab_source *s, const char *tmp)
{
	char *name = kept_name(s->dir), *dest = NULL, *what;
	int e = 0;

	if (!name)
		return 0; /* the recipe's own directory: validate refuses it */
	dest = ab_path_join(tmp, name + sizeof(AB_INPUTS_DIR));
	if (!ab_is_dir(dest)) {
		what = ab_sprintf("source '%s'", s->id);
		e = ab_mkdir_p(dest, 0755) < 0 ? AB_EFAIL : ab_localdir_copy(what, r->dir, s->dir, dest, s->dirhash);
		free(what);
	}
	free(dest);
	free(name);
	return e < 0 ? AB_EFAIL : 0;
}

static int
save_patch(const struct ab_recipe *r, const struct ab_source *s, const char *patch,
    const struct ab_variant_record *vr, const char *tmp)
{
	const char *want = ab_variant_record_patch_sha256(vr, patch);
	char *name = kept_name(patch), *src = ab_recipe_path(r, patch), *dest = NULL, *dir = NULL;
	char hex[AB_HEX_LEN + 1];
	struct ab_buf b = {0};
	int e = AB_EFAIL;

	if (!name || !want) {
		e = 0; /* not applied to a tree this run built */
		goto done;
	}
	dest = ab_path_join(tmp, name + sizeof(AB_INPUTS_DIR));
	if (ab_path_exists(dest)) {
		e = 0;
		goto done;
	}
	if (ab_read_file(&b, src) < 0)
		goto done;
	ab_hash_buf(hex, b.s ? b.s : "", b.len);
	if (strcmp(hex, want)) {
		ab_error("source '%s': patch '%s' changed during the build: its sha256 is %s, the build applied %s",
		    s->id, patch, hex, want);
		goto done;
	}
	dir = ab_path_dirname(dest);
	if (ab_mkdir_p(dir, 0755) < 0 || ab_write_file_atomic(dest, b.s ? b.s : "", b.len) < 0)
		goto done;
	e = 0;
done:
	ab_buf_free(&b);
	free(dir);
	free(dest);
	free(src);
	free(name);
	return e;
}

/* every regular file below root, as "inputs/<path>", into names */
struct lister {
	struct ab_strv *names;
};

static int
list_file(struct ab_dirwalk_entry *e, void *arg)
{
	struct lister *l = arg;

	if (e->type == DT_DIR)
		return AB_DIRWALK_DESCEND;
	if (e->type == DT_REG)
		ab_strv_pushf(l->names, AB_INPUTS_DIR "/%s", e->path);
	return 0;
}

static int
list_tree(struct ab_strv *names, const char *root)
{
	struct ab_strv found = {0};
	struct lister l = {.names = &found};

	if (ab_dirwalk(root, list_file, &l) < 0) {
		ab_strv_free(&found);
		return AB_EFAIL;
	}
	if (found.n)
		ab_strv_sort(&found);
	for (size_t i = 0; i < found.n; i++)
		ab_strv_push(names, found.v[i]);
	ab_strv_free(&found);
	return 0;
}

/* the sources of the variants built, dir trees and patches, into tmp */
static int
fill(const struct ab_recipe *r, const struct ab_run_record *run, const char *tmp)
{
	for (size_t vi = 0; vi < run->nvariants; vi++) {
		const struct ab_variant_record *vr = &run->variants[vi];
		if (!vr->ok)
			continue;
		for (size_t k = 0; k < vr->fetched.n; k++) {
			const struct ab_source *s = ab_recipe_source(r, vr->fetched.v[k].id);

			if (!s)
				continue;
			if (s->kind == AB_SOURCE_DIR && save_dir(r, s, tmp) < 0)
				return AB_EFAIL;
			for (size_t i = 0; i < s->patches.n; i++)
				if (save_patch(r, s, s->patches.v[i], vr, tmp) < 0)
					return AB_EFAIL;
		}
	}
	return 0;
}

int
ab_inputs_save(struct ab_strv *names, const struct ab_recipe *r, const struct ab_run_record *run,
    const char *outdir)
{
	char *tmp = ab_path_join(outdir, NEW_DIR), *old = ab_path_join(outdir, OLD_DIR);
	char *dir = ab_path_join(outdir, AB_INPUTS_DIR);
	struct ab_strv found = {0};
	int e = AB_EFAIL;

	if (ab_rm_rf(tmp) < 0 || ab_rm_rf(old) < 0 || ab_mkdir_p(tmp, 0755) < 0 || fill(r, run, tmp) < 0 ||
	    list_tree(&found, tmp) < 0)
		goto done;
	/* the new tree in place of the old one, which is removed after */
	if (ab_is_dir(dir) && rename(dir, old) < 0) {
		ab_error_errno("cannot rename '%s' to '%s'", dir, old);
		goto done;
	}
	if (found.n && rename(tmp, dir) < 0) {
		ab_error_errno("cannot rename '%s' to '%s'", tmp, dir);
		goto done;
	}
	if (ab_rm_rf(old) < 0)
		goto done;
	for (size_t i = 0; i < found.n; i++)
		ab_strv_push(names, found.v[i]);
	e = 0;
done:
	if (ab_rm_rf(tmp) < 0)
		e = AB_EFAIL;
	ab_strv_free(&found);
	free(dir);
	free(old);
	free(tmp);
	return e;
}

/* one file of src's inputs/ into dst's, unless it is there */
struct merger {
	const char *src, *dst;
	int error;
};

static int
merge_file(struct ab_dirwalk_entry *e, void *arg)
{
	struct merger *m = arg;
	char *s, *d, *dir;

	if (e->type == DT_DIR)
		return AB_DIRWALK_DESCEND;
	if (e->type != DT_REG)
		return 0;
	s = ab_path_join(m->src, e->path);
	d = ab_path_join(m->dst, e->path);
	dir = ab_path_dirname(d);
	if (!ab_path_exists(d) && (ab_mkdir_p(dir, 0755) < 0 || ab_copy_file(s, d) < 0))
		m->error = AB_EFAIL;
	free(dir);
	free(d);
	free(s);
	return m->error ? -1 : 0;
}

int
ab_inputs_merge(struct ab_strv *names, const char *dst, const char *src)
{
	char *from = ab_path_join(src, AB_INPUTS_DIR), *to = ab_path_join(dst, AB_INPUTS_DIR);
	struct merger m = {.src = from, .dst = to};
	struct ab_strv found = {0};
	int e = 0;

	if (ab_is_dir(from) && (ab_dirwalk(from, merge_file, &m) < 0 || m.error))
		e = AB_EFAIL;
	if (!e && ab_is_dir(to) && (e = list_tree(&found, to)) == 0)
		for (size_t i = 0; i < found.n; i++)
			if (!ab_strv_has(names, found.v[i]))
				ab_strv_push(names, found.v[i]);
	if (names->n)
		ab_strv_sort(names);
	ab_strv_free(&found);
	free(from);
	free(to);
	return e;
}

/* "inputs/<k>/<rest>": k into *up, rest at *rest; -1 for any other name */
static int
parse_name(const char *name, unsigned *up, const char **rest)
{
	const char *p = name + sizeof(AB_INPUTS_DIR);
	char *end;
	unsigned long k;

	if (strncmp(name, AB_INPUTS_DIR "/", sizeof(AB_INPUTS_DIR)) || *p < '0' || *p > '9')
		return -1;
	errno = 0;
	k = strtoul(p, &end, 10);
	if (errno || *end != '/' || k > 64 || (*p == '0' && end != p + 1))
		return -1;
	*up = (unsigned)k;
	*rest = end + 1;
	for (const char *c = *rest; ; ) {
		size_t n = strcspn(c, "/");

		if (!n || (n == 1 && *c == '.') || (n == 2 && !strncmp(c, "..", 2)))
			return -1;
		if (!c[n])
			break;
		c += n + 1;
	}
	return 0;
}

int
ab_inputs_restore(char **recipe_dir, const char *root, const struct ab_inputs_file *files, size_t n)
{
	unsigned depth = 0, up;
	const char *rest;
	struct ab_buf b = {0};

	*recipe_dir = NULL;
	for (size_t i = 0; i < n; i++) {
		if (parse_name(files[i].name, &up, &rest) < 0 ||
		    (up && (!strncmp(rest, LEVEL "/", sizeof(LEVEL)) || !strcmp(rest, LEVEL)))) {
			char *shown = ab_shown(files[i].name);

			ab_error("'%s' is not a file of inputs/ a rebuild can lay out (inputs/<levels up>/<path>)", shown);
			free(shown);
			return AB_EFAIL;
		}
		if (up > depth)
			depth = up;
	}
	for (size_t i = 0; i < n; i++) {
		char *path, *dir;
		int e;

		parse_name(files[i].name, &up, &rest);
		ab_buf_clear(&b);
		ab_buf_puts(&b, root);
		for (unsigned k = up; k < depth; k++)
			ab_buf_puts(&b, "/" LEVEL);
		ab_buf_printf(&b, "/%s", rest);
		path = b.s;
		dir = ab_path_dirname(path);
		/* each reports its own failure */
		e = ab_mkdir_p(dir, 0755) < 0 ||
		    ab_atomic_write(path, files[i].data ? files[i].data : "", files[i].len, AB_ATOMIC_NOSYNC) < 0;
		if (!e && chmod(path, files[i].exec ? 0755 : 0644) < 0) {
			ab_error_errno("cannot set the mode of '%s'", path);
			e = 1;
		}
		free(dir);
		if (e) {
			ab_buf_free(&b);
			return AB_EFAIL;
		}
	}
	ab_buf_clear(&b);
	ab_buf_puts(&b, root);
	for (unsigned k = 0; k < depth; k++)
		ab_buf_puts(&b, "/" LEVEL);
	if (ab_mkdir_p(b.s, 0755) < 0) {
		ab_buf_free(&b);
		return AB_EFAIL;
	}
	*recipe_dir = b.s;
	return 0;
}
