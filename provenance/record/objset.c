/* objset: the objects of a compile log, and two sets compared (provenance/record/objset.h) */
#include "objset.h"

#include <stdlib.h>
#include <string.h>

/* dir/out (out alone when absolute) with "." and ".." resolved; NULL when it climbs above the root */
static char *
object_path(const char *dir, size_t dn, const char *out, size_t on)
{
	char *joined = out[0] == '/' || !dn ? ab_strndup(out, on) : ab_sprintf("%.*s/%.*s", (int)dn, dir, (int)on, out);
	struct ab_strv parts = {0};
	struct ab_buf b = {0};
	char *save = NULL, *tok;

	for (tok = strtok_r(joined, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		if (!strcmp(tok, "."))
			continue;
		if (!strcmp(tok, "..")) {
			if (!parts.n) {
				ab_strv_free(&parts);
				free(joined);
				return NULL;
			}
			free(parts.v[--parts.n]);
			parts.v[parts.n] = NULL;
			continue;
		}
		ab_strv_push(&parts, tok);
	}
	for (size_t i = 0; i < parts.n; i++)
		ab_buf_printf(&b, "/%s", parts.v[i]);
	ab_strv_free(&parts);
	free(joined);
	return b.s ? ab_buf_detach(&b) : ab_strdup("/");
}

void
ab_objset_parse(struct ab_objset *s, const char *text, const char *build,
    int (*exists)(void *ctx, const char *path), void *ctx)
{
	size_t bn = strlen(build);

	memset(s, 0, sizeof(*s));
	while (text && *text) {
		size_t n = strcspn(text, "\n"), k;
		const char *line = text, *f[5];
		size_t len[5];
		int nf = 0;
		char *abs;

		text += n + (text[n] == '\n');
		for (const char *t = line, *end = line + n; nf < 5;) {
			const char *tab = memchr(t, '\t', (size_t)(end - t));

			f[nf] = t;
			len[nf++] = tab ? (size_t)(tab - t) : (size_t)(end - t);
			if (!tab)
				break;
			t = tab + 1;
		}
		if (nf < 3 || len[0] != AB_HEX_LEN)
			continue;
		abs = object_path(f[1], len[1], f[2], len[2]);
		/* only what is below the build tree is the tree's */
		if (abs && !strncmp(abs, build, bn) && abs[bn] == '/' && abs[bn + 1]) {
			const char *rel = abs + bn + 1;

			if (ab_strmap_get(&s->map, rel, &k)) {
				/* written again: the last writing is the object in the tree */
				free(s->sha.v[k]);
				s->sha.v[k] = ab_strndup(f[0], len[0]);
			} else {
				ab_strv_push(&s->paths, rel);
				ab_strv_push_owned(&s->sha, ab_strndup(f[0], len[0]));
				ab_strmap_put(&s->map, s->paths.v[s->paths.n - 1], s->paths.n - 1);
			}
		}
		free(abs);
	}
	/* configure's tests and CMake's try-compiles remove what they compiled: not objects of the tree */
	if (exists) {
		struct ab_objset kept = {0};

		for (size_t i = 0; i < s->paths.n; i++) {
			if (!exists(ctx, s->paths.v[i]))
				continue;
			ab_strv_push(&kept.paths, s->paths.v[i]);
			ab_strv_push(&kept.sha, s->sha.v[i]);
			ab_strmap_put(&kept.map, kept.paths.v[kept.paths.n - 1], kept.paths.n - 1);
		}
		ab_objset_release(s);
		*s = kept;
	}
}

static int
by_path(const void *a, const void *b)
{
	return strcmp(**(char *const *const *)a, **(char *const *const *)b);
}

void
ab_objset_add(struct ab_objset *s, const char *rel, const char *sha)
{
	size_t k;

	if (ab_strmap_get(&s->map, rel, &k)) {
		free(s->sha.v[k]);
		s->sha.v[k] = ab_strdup(sha);
		return;
	}
	ab_strv_push(&s->paths, rel);
	ab_strv_push(&s->sha, sha);
	ab_strmap_put(&s->map, s->paths.v[s->paths.n - 1], s->paths.n - 1);
}

void
ab_objset_digest(char hex[AB_HEX_LEN + 1], const struct ab_objset *s)
{
	struct ab_sha256 *h = ab_sha256_new();
	char ***order = ab_calloc(s->paths.n + 1, sizeof(*order));
	struct ab_buf line = {0};

	for (size_t i = 0; i < s->paths.n; i++)
		order[i] = &s->paths.v[i];
	qsort(order, s->paths.n, sizeof(*order), by_path);
	for (size_t i = 0; i < s->paths.n; i++) {
		size_t k = (size_t)(order[i] - s->paths.v);

		/* the one writer of a SHA256SUMS line (lib/hash.h) */
		line.len = 0;
		ab_hash_line(&line, s->sha.v[k], s->paths.v[k]);
		ab_sha256_update(h, line.s, line.len);
	}
	ab_sha256_final(hex, h);
	ab_buf_free(&line);
	free(order);
}

/* a directory and how many of its objects differ */
struct dircount {
	char *dir;
	int n;
};

/* the most differing objects first, then by name: the same order on every run */
static int
by_count(const void *a, const void *b)
{
	const struct dircount *x = a, *y = b;

	return x->n != y->n ? (y->n > x->n) - (y->n < x->n) : strcmp(x->dir, y->dir);
}

static int
by_string(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

cJSON *
ab_objset_compare(const struct ab_objset *a, const char *la, const struct ab_objset *b, const char *lb)
{
	cJSON *r = cJSON_CreateObject(), *dirs, *named;
	struct dircount *dc = NULL;
	struct ab_strmap dmap = {0};
	struct ab_strv differing = {0}, dnames = {0};
	int same = 0, only_a = 0, only_b = 0;
	size_t k, ndc = 0;

	for (size_t i = 0; i < a->paths.n; i++) {
		if (!ab_strmap_get(&b->map, a->paths.v[i], &k)) {
			only_a++;
		} else if (!strcmp(a->sha.v[i], b->sha.v[k])) {
			same++;
		} else {
			ab_strv_push(&differing, a->paths.v[i]);
			ab_strv_push_owned(&dnames, ab_path_dirname(a->paths.v[i]));
			if (ab_strmap_get(&dmap, dnames.v[dnames.n - 1], &k)) {
				dc[k].n++;
			} else {
				dc = ab_realloc(dc, (ndc + 1) * sizeof(*dc));
				dc[ndc] = (struct dircount){dnames.v[dnames.n - 1], 1};
				ab_strmap_put(&dmap, dnames.v[dnames.n - 1], ndc++);
			}
		}
	}
	for (size_t i = 0; i < b->paths.n; i++)
		only_b += !ab_strmap_get(&a->map, b->paths.v[i], NULL);
	if (ndc)
		qsort(dc, ndc, sizeof(*dc), by_count);
	if (differing.n)
		qsort(differing.v, differing.n, sizeof(*differing.v), by_string);
	cJSON_AddStringToObject(r, "a", la);
	cJSON_AddStringToObject(r, "b", lb);
	cJSON_AddNumberToObject(r, "identical", same);
	cJSON_AddNumberToObject(r, "differ", (double)differing.n);
	cJSON_AddNumberToObject(r, "only_a", only_a);
	cJSON_AddNumberToObject(r, "only_b", only_b);
	dirs = cJSON_AddObjectToObject(r, "differ_by_directory");
	for (size_t i = 0; i < ndc; i++)
		cJSON_AddNumberToObject(dirs, dc[i].dir, dc[i].n);
	named = cJSON_AddArrayToObject(r, "differing");
	for (size_t i = 0; i < differing.n && i < AB_OBJSET_NAMED; i++)
		cJSON_AddItemToArray(named, cJSON_CreateString(differing.v[i]));
	ab_strmap_free(&dmap);
	free(dc);
	ab_strv_free(&differing);
	ab_strv_free(&dnames);
	return r;
}

void
ab_objset_release(struct ab_objset *s)
{
	ab_strmap_free(&s->map);
	ab_strv_free(&s->paths);
	ab_strv_free(&s->sha);
}
