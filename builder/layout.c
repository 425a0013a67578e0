#include "layout.h"

#include <stdlib.h>
#include <string.h>

#include "../lib/arfile.h"
#include "../lib/atomic.h"
#include "../lib/jsonio.h"

static int
ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* an argument that is a file of the link (not an option, response file or the output) */
static int
is_file_arg(const char *a)
{
	return a[0] && a[0] != '-' && a[0] != '@';
}

static int
system_path(const char *p)
{
	return !strncmp(p, "/usr/", 5) || !strncmp(p, "/lib/", 5) || !strncmp(p, "/lib64/", 7);
}

int
ab_layout_permute(struct ab_layout *l, struct ab_strv *argv, int oi, const char *build_dir, const char *copies_dir,
    const char *what)
{
	size_t *pos = ab_calloc(argv->n + 1, sizeof(*pos)), *perm = ab_calloc(argv->n + 1, sizeof(*perm)), n = 0;
	char **orig = ab_calloc(argv->n + 1, sizeof(*orig));

	ab_rng_seed(&l->rng, l->seed);
	l->nargv = argv->n;
	l->from = ab_calloc(argv->n + 1, sizeof(*l->from));
	for (size_t i = 0; i < argv->n; i++) {
		l->from[i] = i;
		orig[i] = argv->v[i];
		if (i > 0 && (int)i != oi && argv->v[i] && is_file_arg(argv->v[i]) &&
		    (ends_with(argv->v[i], ".o") || ends_with(argv->v[i], ".obj")))
			pos[n++] = i;
	}
	memcpy(perm, pos, n * sizeof(*perm));
	ab_rng_shuffle(&l->rng, perm, n);
	for (size_t k = 0; k < n; k++) {
		argv->v[pos[k]] = orig[perm[k]];
		l->from[pos[k]] = perm[k];
		ab_strv_push(&l->objects, orig[perm[k]]);
	}
	for (size_t i = 1; i < argv->n; i++) {
		struct ab_layout_archive *a;
		char *abs;
		const char *base;

		if ((int)i == oi || !argv->v[i] || !is_file_arg(argv->v[i]) || !ends_with(argv->v[i], ".a"))
			continue;
		abs = ab_path_absolute_in(build_dir, argv->v[i]);
		if (system_path(abs)) {
			free(abs);
			continue;
		}
		l->archives = ab_realloc(l->archives, (l->narchives + 1) * sizeof(*l->archives));
		a = &l->archives[l->narchives++];
		memset(a, 0, sizeof(*a));
		a->argi = (int)i;
		a->path = abs;
		base = strrchr(abs, '/') ? strrchr(abs, '/') + 1 : abs;
		a->copy = ab_sprintf("%s/%zu-%s", copies_dir, l->narchives, base);
		a->seed = ab_rng_next(&l->rng);
		free(argv->v[i]);
		argv->v[i] = ab_strdup(a->copy);
	}
	free(pos);
	free(perm);
	free(orig);
	if (n < 2 && !l->narchives) {
		ab_error("%s: no layout to permute: the link command has %zu object%s and no archive of a build tree",
		    what, n, n == 1 ? "" : "s");
		return AB_EFAIL;
	}
	return 0;
}

int
ab_layout_archive_write(struct ab_layout *l, size_t i)
{
	struct ab_layout_archive *a = &l->archives[i];
	struct ab_buf in = {0}, out = {0};
	struct ab_ar ar;
	struct ab_ar_member *m = NULL;
	size_t n = 0, *order = NULL;
	struct ab_rng rng;
	char *dir = ab_path_dirname(a->copy);
	int r, error = AB_EFAIL;

	if (ab_read_file(&in, a->path) < 0)
		goto done;
	ab_hash_buf(a->sha256, in.s, in.len);
	if (!ab_ar_is_ar(in.s, in.len)) {
		ab_error("'%s' is not an ar archive: cannot permute its members", a->path);
		goto done;
	}
	ab_ar_init(&ar, in.s, in.len, a->path);
	for (;;) {
		m = ab_realloc(m, (n + 1) * sizeof(*m));
		if ((r = ab_ar_next(&ar, &m[n])) <= 0)
			break;
		n++;
	}
	if (r < 0)
		goto done;
	order = ab_calloc(n + 1, sizeof(*order));
	for (size_t k = 0; k < n; k++)
		order[k] = k;
	ab_rng_seed(&rng, a->seed);
	ab_rng_shuffle(&rng, order, n);
	ab_strv_free(&a->members);
	for (size_t k = 0; k < n; k++)
		ab_strv_push(&a->members, m[order[k]].name);
	if (ab_ar_write(&out, m, order, n, a->path) < 0 || ab_mkdir_p(dir, 0755) < 0 ||
	    ab_atomic_write(a->copy, out.s, out.len, 0) < 0)
		goto done;
	error = 0;
done:
	free(dir);
	free(order);
	free(m);
	ab_buf_free(&in);
	ab_buf_free(&out);
	return error;
}

size_t
ab_layout_order(const struct ab_layout *l, size_t j)
{
	return j < l->nargv ? l->from[j] : j;
}

cJSON *
ab_layout_json(const struct ab_layout *l)
{
	cJSON *o = cJSON_CreateObject(), *arr;

	cJSON_AddNumberToObject(o, "seed", (double)l->seed);
	cJSON_AddItemToObject(o, "objects", ab_json_strv(l->objects.v, l->objects.n));
	arr = cJSON_AddArrayToObject(o, "archives");
	for (size_t i = 0; i < l->narchives; i++) {
		const struct ab_layout_archive *a = &l->archives[i];
		cJSON *e = cJSON_CreateObject();

		cJSON_AddStringToObject(e, "path", a->path);
		cJSON_AddStringToObject(e, "sha256", a->sha256);
		cJSON_AddStringToObject(e, "copy", a->copy);
		cJSON_AddItemToObject(e, "members", ab_json_strv(a->members.v, a->members.n));
		cJSON_AddItemToArray(arr, e);
	}
	return o;
}

void
ab_layout_release(struct ab_layout *l)
{
	for (size_t i = 0; i < l->narchives; i++) {
		free(l->archives[i].path);
		free(l->archives[i].copy);
		ab_strv_free(&l->archives[i].members);
	}
	free(l->archives);
	free(l->from);
	ab_strv_free(&l->objects);
	memset(l, 0, sizeof(*l));
}
