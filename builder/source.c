/*
 * source: the orchestration of pinned sources (see source.h). The cache
 * and its lock live in cache.c, git in git.c, extraction in archive.c,
 * downloads in download.c, patches in patch.c, tree indexes (the stamp of
 * a materialization) in worktree.c.
 */
#include "source.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../lib/redact.h"
#include "../lib/atomic.h"
#include "../lib/hash.h"
#include "../lib/jsonio.h"
#include "../lib/logtail.h"
#include "../lib/guard.h"
#include "../lib/stale.h"
#include "extract.h"
#include "cache.h"
#include "download.h"
#include "git.h"
#include "isolation.h"
#include "localdir.h"
#include "patch.h"
#include "../lib/proc.h"
#include "worktree.h"

#define STAMP_FORMAT "allocbuild-stamp/1"

struct ab_source_state {
	struct ab_cache cache;
	int cache_ready;
	struct ab_fetch_set fetched; /* source id -> fetch record of this run */
};

static struct ab_cache *
cache_of(const struct ab_source_opts *o)
{
	struct ab_source_state *st = o->state;

	if (!st->cache_ready) {
		char *dir = ab_cache_default_dir(o->cache_dir);

		ab_cache_init(&st->cache, dir);
		free(dir);
		st->cache_ready = 1;
	}
	return &st->cache;
}

void
ab_source_opts_init(struct ab_source_opts *o)
{
	const char *env = getenv("ALLOCBUILD_MIRRORS");

	memset(o, 0, sizeof(*o));
	o->state = ab_calloc(1, sizeof(*o->state));
	/* pushed first: a --mirror with the same FROM comes later and wins */
	if (env) {
		const char *s = env;

		while (*s) {
			size_t n;

			s += strspn(s, " \t\r\n");
			n = strcspn(s, " \t\r\n");
			if (n) {
				char *m = ab_strndup(s, n);

				if (strchr(m, '=') && m[0] != '=') {
					ab_strv_push_owned(&o->mirrors, m);
				} else {
					char *shown = ab_url_redact(m);

					ab_warn("ALLOCBUILD_MIRRORS: ignoring '%s' (expected FROM=TO)", shown);
					free(shown);
					free(m);
				}
			}
			s += n;
		}
	}
}

void
ab_source_opts_release(struct ab_source_opts *o)
{
	if (o->state) {
		if (o->state->cache_ready)
			ab_cache_release(&o->state->cache);
		ab_fetch_set_release(&o->state->fetched);
		free(o->state);
	}
	free(o->cache_dir);
	free(o->log_dir);
	ab_strv_free(&o->mirrors);
	ab_strv_free(&o->mirror_dirs);
	ab_download_cleanup();
	memset(o, 0, sizeof(*o));
}

/* fetch */

struct fetch_walk {
	const struct ab_source_opts *o;
	const struct ab_recipe *r;
	cJSON *m; /* sources.json to add the records to, or NULL */
};

/* a URL as recorded: without its credentials (lib/util.h), which only the request itself uses */
static char *
shown_url(const char *url)
{
	return url ? ab_url_redact(url) : NULL;
}

static void
merge_into(cJSON *rec, const cJSON *from)
{
	for (const cJSON *it = from->child; it; it = it->next) {
		cJSON_DeleteItemFromObjectCaseSensitive(rec, it->string);
		cJSON_AddItemToObject(rec, it->string, cJSON_Duplicate(it, 1));
	}
}

static int
fetch_git(struct ab_fetch_record *rec, const struct ab_source_opts *o, const struct ab_recipe *r, const struct ab_source *s)
{
	struct ab_cache *c = cache_of(o);
	struct ab_git_pin pin = {0};
	char *fetch_url = ab_git_mirror_url(o->mirrors.v, o->mirrors.n, s->url);
	int error = AB_EFAIL;

	/* an unpinned ref is bad input, as validate says */
	if (ab_recipe_check_pin(r, s, o->allow_unpinned) < 0)
		goto done;
	if (ab_cache_lock(c, 1) < 0)
		goto done;
	error = ab_git_fetch(&pin, c, s->url, fetch_url, s->commit, s->unpinned);
	ab_cache_unlock(c);
	if (error < 0) {
		ab_error("source '%s': cannot fetch the pinned commit", s->id);
		error = AB_ECHECK;
		goto done;
	}
	rec->kind = AB_FETCH_GIT;
	rec->url = shown_url(s->url);
	rec->fetch_url = shown_url(fetch_url);
	if (s->unpinned) {
		rec->unpinned = 1;
		rec->ref = ab_strdup_or_null(pin.ref);
		rec->ref_kind = ab_strdup_or_null(pin.ref_kind);
	}
	rec->commit = ab_strdup_or_null(pin.commit);
	rec->tree = ab_strdup_or_null(pin.tree);
	if (pin.fetched_from) {
		rec->origin = shown_url(pin.fetched_from);
		rec->origin_kind = ab_strdup("fetch");
	} else {
		rec->origin = ab_cache_git_path(c, s->url);
		rec->origin_kind = ab_strdup("cache");
	}
	rec->cached_from = shown_url(pin.origin);
	if (pin.fetched_from) {
		char *from = ab_url_redact(pin.fetched_from);

		ab_note("source '%s': commit %s (tree %s) fetched from '%s'", s->id, pin.commit, pin.tree, from);
		free(from);
	} else
		ab_note("source '%s': commit %s (tree %s) in the cache", s->id, pin.commit, pin.tree);
done:
	ab_git_pin_release(&pin);
	free(fetch_url);
	return error;
}

static const char *
url_basename(const char *url)
{
	const char *end = url + strcspn(url, "?#");
	const char *b = end;

	while (b > url && b[-1] != '/')
		b--;
	return b < end ? b : NULL;
}

/*
 * move a verified temporary file into the cache under its hash: the
 * download's temporary lives in CACHE/tmp (not a lib/atomic temporary
 * beside its destination), so that the cache's exclusive locker removes
 * what an interrupted download left
 */
static int
store_archive(struct ab_cache *c, const char *tmp, const char *sha256, const char *origin)
{
	char *path = ab_cache_archive_path(c, sha256);
	char *dir = ab_path_dirname(path);
	int error = -1;

	if (ab_mkdir_p(dir, 0755) < 0)
		goto done;
	/* the origin first: a crash in between leaves an origin without a file, never the reverse */
	if (ab_cache_set_archive_origin(c, sha256, origin) < 0)
		goto done;
	if (rename(tmp, path) < 0) {
		ab_error_errno("cannot rename '%s' to '%s'", tmp, path);
		goto done;
	}
	error = 0;
done:
	free(dir);
	free(path);
	return error;
}

/* 1 accepted, 0 rejected (reported), -1 error */
static int
try_candidate(const struct ab_source *s, struct ab_cache *c, const char *what, const char *where, int is_url)
{
	char got[AB_HEX_LEN + 1];
	char *tmp = ab_cache_tmp_path(c, "archive");
	/* the cache's origin file, the records and every message say where without credentials */
	char *origin = is_url ? ab_url_redact(where) : ab_strdup(where);
	int mib = s->max_size_mib ? s->max_size_mib : AB_ARCHIVE_MAX_MIB_DEFAULT;
	uint64_t max = (uint64_t)mib << 20;
	int rc;

	if (is_url)
		ab_note("source '%s': downloading '%s'", s->id, origin);
	rc = is_url ? ab_download_url(got, where, tmp, max) : ab_download_copy(got, where, tmp, max);
	if (rc == AB_DOWNLOAD_TOO_LARGE) {
		/* a source larger than its limit is bad input, not a candidate to pass over */
		ab_error("source '%s': %s '%s' holds more than the source's limit of %d MiB: not used (a larger "
		    "archive needs sources.%s.archive.max_size_mib in the recipe)", s->id, what, origin, mib, s->id);
		unlink(tmp);
		rc = -1;
		goto done;
	}
	if (rc < 0) {
		unlink(tmp);
		rc = 0;
		goto done;
	}
	if (strcmp(got, s->sha256)) {
		ab_warn("source '%s': sha256 mismatch from %s '%s': expected %s, got %s; not used", s->id, what,
		    origin, s->sha256, got);
		unlink(tmp);
		rc = 0;
		goto done;
	}
	rc = store_archive(c, tmp, s->sha256, origin) < 0 ? -1 : 1;
	if (rc < 0)
		unlink(tmp);
done:
	free(origin);
	free(tmp);
	return rc;
}

/* where the accepted bytes of an archive came from */
struct archive_origin {
	const char *kind;       /* "cache", "mirror-dir", "url"; NULL while none */
	char *where;
	struct ab_strv tried;   /* the candidates looked at, for the message when none fits */
	uint64_t size;
};

/* the cached archive, when its digest is right; a wrong one is removed */
static void
archive_from_cache(struct archive_origin *ao, const struct ab_source *s, const char *path)
{
	char got[AB_HEX_LEN + 1] = "";

	if (!ab_path_exists(path))
		return;
	/* a file that cannot be read (reported) is kept: only a wrong digest proves it bad */
	if (ab_hash_file(got, &ao->size, path) < 0) {
		ao->size = 0;
	} else if (!strcmp(got, s->sha256)) {
		ao->kind = "cache";
		ao->where = ab_strdup(path);
	} else {
		ab_warn("source '%s': sha256 mismatch from cache '%s': expected %s, got %s; removed", s->id,
		    path, s->sha256, got);
		unlink(path);
	}
}

/* in each mirror directory: sha256/<hex>, then the basename of each URL */
static int
archive_from_mirror_dirs(struct archive_origin *ao, const struct ab_source_opts *o, struct ab_cache *c,
    const struct ab_source *s)
{
	for (size_t d = 0; !ao->kind && d < o->mirror_dirs.n; d++) {
		struct ab_strv names = {0};
		int rc = 0;

		ab_strv_pushf(&names, "sha256/%s", s->sha256);
		for (size_t u = 0; u < s->urls.n; u++) {
			const char *b = url_basename(s->urls.v[u]);
			int dup = 0;

			for (size_t k = 0; b && k < names.n; k++)
				dup |= !strcmp(names.v[k], b);
			if (b && !dup)
				ab_strv_push(&names, b);
		}
		for (size_t k = 0; !ao->kind && rc >= 0 && k < names.n; k++) {
			char *cand = ab_path_join(o->mirror_dirs.v[d], names.v[k]);

			if (ab_path_exists(cand)) {
				ab_strv_push(&ao->tried, cand);
				rc = try_candidate(s, c, "mirror dir file", cand, 0);
				if (rc > 0) {
					ao->kind = "mirror-dir";
					ao->where = ab_strdup(cand);
				}
			}
			free(cand);
		}
		ab_strv_free(&names);
		if (rc < 0)
			return AB_EFAIL;
	}
	return 0;
}

/* each URL of the recipe, after the mirrors rewrote it */
static int
archive_from_urls(struct archive_origin *ao, const struct ab_source_opts *o, struct ab_cache *c,
    const struct ab_source *s)
{
	for (size_t u = 0; !ao->kind && u < s->urls.n; u++) {
		char *url = ab_git_mirror_url(o->mirrors.v, o->mirrors.n, s->urls.v[u]);
		int rc;

		ab_strv_push_owned(&ao->tried, ab_url_redact(url));
		rc = try_candidate(s, c, "url", url, 1);
		if (rc > 0) {
			ao->kind = "url";
			ao->where = ab_url_redact(url);
		}
		free(url);
		if (rc < 0)
			return AB_EFAIL;
	}
	return 0;
}

static void
archive_record(struct ab_fetch_record *rec, struct ab_cache *c, const struct ab_source *s,
    const struct archive_origin *ao)
{
	char *cached_from = ab_cache_archive_origin(c, s->sha256);

	rec->kind = AB_FETCH_ARCHIVE;
	for (size_t i = 0; i < s->urls.n; i++)
		ab_strv_push_owned(&rec->urls, ab_url_redact(s->urls.v[i]));
	rec->sha256 = ab_strdup_or_null(s->sha256);
	rec->strip = s->strip;
	rec->size = ao->size;
	rec->origin = shown_url(ao->where);
	rec->origin_kind = ab_strdup_or_null(ao->kind);
	rec->cached_from = shown_url(cached_from ? cached_from : ao->where);
	free(cached_from);
}

/* the archive's pinned bytes into the cache: from the cache, a mirror directory or a URL, in that order */
static int
fetch_archive(struct ab_fetch_record *rec, const struct ab_source_opts *o, const struct ab_source *s)
{
	struct ab_cache *c = cache_of(o);
	char *path = ab_cache_archive_path(c, s->sha256);
	struct archive_origin ao = {0};
	int error = AB_EFAIL;

	if (ab_cache_lock(c, 1) < 0) {
		free(path);
		return AB_EFAIL;
	}
	archive_from_cache(&ao, s, path);
	if (archive_from_mirror_dirs(&ao, o, c, s) < 0 || archive_from_urls(&ao, o, c, s) < 0)
		goto done;
	if (!ao.kind) {
		struct ab_buf list = {0};

		for (size_t k = 0; k < ao.tried.n; k++)
			ab_buf_printf(&list, ", '%s'", ao.tried.v[k]);
		ab_error("source '%s': no candidate has sha256 %s (tried the cache%s)", s->id, s->sha256,
		    list.s ? list.s : "");
		ab_buf_free(&list);
		error = AB_ECHECK;
		goto done;
	}
	if (!ao.size) {
		struct stat st;

		if (stat(path, &st) == 0)
			ao.size = (uint64_t)st.st_size;
	}
	archive_record(rec, c, s, &ao);
	ab_note("source '%s': sha256 %s from %s '%s'", s->id, s->sha256, ao.kind, ao.where);
	error = 0;
done:
	ab_cache_unlock(c);
	ab_strv_free(&ao.tried);
	free(ao.where);
	free(path);
	return error;
}

/* a dir source: nothing to fetch, the directory checked against its pin (builder/localdir.h) */
static int
fetch_dir(struct ab_fetch_record *rec, const struct ab_recipe *r, const struct ab_source *s)
{
	char *what = ab_sprintf("source '%s'", s->id);
	char hex[AB_HEX_LEN + 1];
	uint64_t files = 0, bytes = 0;
	int error = ab_localdir_check(hex, &files, &bytes, what, r->dir, s->dir, s->dirhash);

	if (error == 0) {
		rec->kind = AB_FETCH_DIR;
		rec->dir = ab_strdup_or_null(s->dir);
		rec->dirhash = ab_strdup(hex);
		rec->files = files;
		rec->bytes = bytes;
		ab_note("source '%s': dirHash %s of '%s' (%llu files)", s->id, hex, s->dir, (unsigned long long)files);
	}
	free(what);
	return error;
}

int
ab_source_fetch(struct ab_fetch_record **out, const struct ab_source_opts *o, const struct ab_recipe *r,
    const struct ab_source *s)
{
	const struct ab_fetch_record *done = ab_fetch_set_get(&o->state->fetched, s->id);
	struct ab_fetch_record *mine;
	int error;

	*out = NULL;
	if (done) {
		*out = ab_fetch_record_copy(done);
		return 0;
	}
	mine = ab_calloc(1, sizeof(*mine));
	error = s->kind == AB_SOURCE_GIT ? fetch_git(mine, o, r, s) :
	    s->kind == AB_SOURCE_DIR ? fetch_dir(mine, r, s) : fetch_archive(mine, o, s);
	if (error < 0) {
		ab_fetch_record_free(mine);
		return error;
	}
	*out = ab_fetch_record_copy(mine);
	ab_fetch_set_put(&o->state->fetched, s->id, mine);
	return 0;
}

static int
fetch_one(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth)
{
	const struct fetch_walk *fw = arg;
	struct ab_fetch_record *rec;
	int error;

	(void)via;
	(void)depth;
	error = ab_source_fetch(&rec, fw->o, fw->r, s);
	if (!error && fw->m)
		ab_sources_manifest_add_source(fw->m, s, ab_fetch_record_json(rec));
	ab_fetch_record_free(rec);
	return error;
}

/* fetch s and the sources of its overlays; with m, add their records to that manifest */
static int
fetch_closure(cJSON *m, const struct ab_source_opts *o, const struct ab_recipe *r, const struct ab_source *s)
{
	struct fetch_walk fw = {.o = o, .r = r, .m = m};

	return ab_recipe_overlay_walk(r, s, fetch_one, NULL, &fw);
}

/* materialize */

static const struct ab_fetch_record *
fetched(const struct ab_source_opts *o, const struct ab_source *s)
{
	return ab_fetch_set_get(&o->state->fetched, s->id);
}

/*
 * The inputs that determine a source's tree, as a canonical string:
 * "{source ID <pin> overlay PATH {...} ... patch P HEX ... prepare [argv]}"
 */
struct inputs_walk {
	struct ab_buf *out;
	const struct ab_source_opts *o;
	const struct ab_recipe *r;
};

static int
inputs_enter(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth)
{
	struct inputs_walk *w = arg;
	const struct ab_fetch_record *f = fetched(w->o, s);

	(void)depth;
	if (!f) {
		ab_error("source '%s' was not fetched", s->id);
		return AB_EFAIL;
	}
	if (via)
		ab_buf_printf(w->out, " overlay %s ", via->path);
	ab_buf_printf(w->out, "{source %s ", s->id);
	if (s->kind == AB_SOURCE_GIT) {
		char *url = ab_url_redact(s->url);

		/* the stamp holds this string: no credentials in it either */
		ab_buf_printf(w->out, "git %s commit %s tree %s", url, f->commit, f->tree);
		free(url);
	} else if (s->kind == AB_SOURCE_DIR)
		ab_buf_printf(w->out, "dir %s dirHash %s", s->dir, s->dirhash);
	else
		ab_buf_printf(w->out, "archive sha256 %s strip %d", s->sha256, s->strip);
	return 0;
}

static int
inputs_leave(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth)
{
	struct inputs_walk *w = arg;

	(void)via;
	(void)depth;
	for (size_t i = 0; i < s->patches.n; i++) {
		const struct ab_patch_bytes *pb;

		if (ab_recipe_patch(&pb, w->r, s, i) < 0) {
			ab_error("source '%s': cannot read patch '%s'", s->id, s->patches.v[i]);
			return AB_EFAIL;
		}
		ab_buf_printf(w->out, " patch %s %s", s->patches.v[i], pb->sha256);
	}
	for (size_t i = 0; i < s->nprepare; i++) {
		cJSON *a = ab_json_strv(s->prepare[i].v, s->prepare[i].n);
		char *t = cJSON_PrintUnformatted(a);

		ab_buf_printf(w->out, " prepare %s", t);
		cJSON_free(t);
		cJSON_Delete(a);
	}
	ab_buf_puts(w->out, "}");
	return 0;
}

static int
inputs_of(struct ab_buf *out, const struct ab_source_opts *o, const struct ab_recipe *r, const struct ab_source *s)
{
	struct inputs_walk w = {.out = out, .o = o, .r = r};

	return ab_recipe_overlay_walk(r, s, inputs_enter, inputs_leave, &w);
}

/* the parts of the fetch record a materialize record repeats as its "base" */
static cJSON *
base_record(const struct ab_fetch_record *f)
{
	static const char *const keys[] = {"kind", "url", "ref", "commit", "tree", "urls", "sha256", "strip",
	    "origin", "origin_kind"};
	cJSON *b = cJSON_CreateObject(), *full = f ? ab_fetch_record_json(f) : NULL;

	for (size_t i = 0; i < AB_NELEM(keys); i++) {
		cJSON *it = cJSON_DetachItemFromObjectCaseSensitive(full, keys[i]);

		if (it)
			cJSON_AddItemToObject(b, keys[i], it);
	}
	cJSON_Delete(full);
	return b;
}

static int
tree_hash(char hex[AB_HEX_LEN + 1], const char *dir, int jobs)
{
	struct ab_wt_index idx;

	if (ab_wt_index_build(&idx, dir, jobs) < 0)
		return -1;
	memcpy(hex, idx.dirhash, AB_HEX_LEN + 1);
	ab_wt_index_free(&idx);
	return 0;
}

/* every leading directory of rel below root is a real directory (or missing) */
static int
no_symlink_below(const char *root, const char *rel)
{
	char *p = ab_path_join(root, rel);
	size_t base = strlen(root) + 1;
	struct stat st;
	int ok = 1;

	for (char *s = p + base; ok && (s = strchr(s, '/')); s++) {
		*s = '\0';
		if (lstat(p, &st) == 0 && !S_ISDIR(st.st_mode))
			ok = 0;
		*s = '/';
	}
	free(p);
	return ok;
}

struct build_ctx {
	const struct ab_source_opts *o;
	const struct ab_recipe *r;
	const char *log_dir;
	const char *shown_dest; /* what records and messages call the tree */
	int check_only;         /* stop after patches, apply nothing for real beyond the temp tree */
	int sandboxed;          /* prepare commands run in the build sandbox (builder/isolation.h) */
};

static int build_tree(cJSON *rec, const struct build_ctx *ctx, const struct ab_source *s, const char *dir,
    const char *shown, int depth, struct ab_wt_index *final, struct timespec *since);

/* write the source's base tree into the existing empty dir */
static int
write_base(const struct build_ctx *ctx, const struct ab_source *s, const char *dir, struct ab_wt_index *hint)
{
	const struct ab_fetch_record *f = fetched(ctx->o, s);
	struct ab_cache *c = cache_of(ctx->o);
	int error;

	if (ab_cache_lock(c, 0) < 0)
		return -1;
	if (s->kind == AB_SOURCE_GIT) {
		/*
		 * a writer per core, as git's parallel checkout (checkout.workers):
		 * inflating the blobs is most of the time, and the two cores of
		 * bench/checkout.sh write a 12,000-file tree in 0.65x git's time
		 * (one writer: 1.2x) with the same system time
		 */
		error = ab_git_write_tree(c, s->url, f->tree, dir, ctx->o->jobs, hint);
	} else if (s->kind == AB_SOURCE_DIR) {
		char *what = ab_sprintf("source '%s'", s->id);

		error = ab_localdir_copy(what, ctx->r->dir, s->dir, dir, s->dirhash);
		free(what);
	} else {
		char *path = ab_cache_archive_path(c, s->sha256);
		char *name = ab_sprintf("%s", s->urls.n ? url_basename(s->urls.v[0]) ? url_basename(s->urls.v[0]) :
		    s->urls.v[0] : s->sha256);

		error = ab_archive_extract(path, name, s->sha256, s->strip, dir);
		free(name);
		free(path);
	}
	ab_cache_unlock(c);
	if (error < 0)
		ab_error("source '%s': cannot write its tree", s->id);
	return error;
}

static int
apply_overlay(cJSON *list, const struct build_ctx *ctx, const struct ab_source *s,
    const struct ab_overlay *ov, const char *dir, const char *shown, int depth)
{
	const struct ab_source *os = ab_recipe_source(ctx->r, ov->source);
	char *target = NULL, *parent = NULL, *tmp = NULL, *shown_target = NULL;
	cJSON *orec = NULL;
	int error = -1;

	if (!os) {
		ab_error("source '%s': overlay '%s': unknown source '%s'", s->id, ov->path, ov->source);
		return -1;
	}
	if (!ab_path_is_safe_relative(ov->path) || !no_symlink_below(dir, ov->path)) {
		ab_error("source '%s': overlay '%s': not a path inside the tree", s->id, ov->path);
		return -1;
	}
	target = ab_path_join(dir, ov->path);
	shown_target = ab_path_join(shown, ov->path);
	parent = ab_path_dirname(target);
	if (ab_mkdir_p(parent, 0755) < 0)
		goto done;
	tmp = ab_sprintf("%s.overlay-tmp", target);
	if (ab_rm_rf(tmp) < 0 || mkdir(tmp, 0777) < 0) {
		ab_error_errno("cannot create '%s'", tmp);
		goto done;
	}
	orec = cJSON_CreateObject();
	if (build_tree(orec, ctx, os, tmp, shown_target, depth + 1, NULL, NULL) < 0)
		goto done;
	if (ab_rm_rf(target) < 0)
		goto done;
	if (rename(tmp, target) < 0) {
		ab_error_errno("cannot rename '%s' to '%s'", tmp, target);
		goto done;
	}
	{
		cJSON *entry = cJSON_CreateObject();

		cJSON_AddStringToObject(entry, "path", ov->path);
		cJSON_AddStringToObject(entry, "source", ov->source);
		merge_into(entry, orec);
		cJSON_AddItemToArray(list, entry);
	}
	ab_note("source '%s': overlay '%s' with source '%s'", s->id, ov->path, ov->source);
	error = 0;
done:
	if (error && tmp)
		ab_rm_rf(tmp);
	cJSON_Delete(orec);
	free(tmp);
	free(parent);
	free(target);
	free(shown_target);
	return error;
}

static int
run_prepare(cJSON *list, const struct build_ctx *ctx, const struct ab_source *s, size_t i, const char *dir,
    const char *shown)
{
	struct ab_env env = {0};
	struct ab_proc_result res;
	struct ab_proc p = {0};
	struct ab_sandbox sb = {0};
	char *log = NULL, *argv_text = NULL;
	char desc[128];
	cJSON *e;
	int error = -1;

	if (ab_mkdir_p(ctx->log_dir, 0755) < 0)
		return -1;
	log = ab_sprintf("%s/prepare-%s-%zu.log", ctx->log_dir, s->id, i + 1);
	unlink(log);
	p.argv = s->prepare[i].v;
	p.cwd = dir;
	if (ctx->sandboxed) {
		/* a prepare command is the recipe's code: in the build sandbox, its tree at /allocbuild/src */
		if (ab_sandbox_check() < 0)
			goto done;
		ab_isolation_source(&sb, dir);
		ab_env_sandboxed(&env);
		ab_env_set(&env, "PATH", AB_SANDBOX_PATH);
		ab_env_set(&env, "HOME", AB_FIXED_HOME);
		p.cwd = AB_FIXED_SRC;
		p.sandbox = &sb;
	} else {
		ab_env_scrubbed(&env);
	}
	p.envp = ab_env_envp(&env);
	p.log_path = log;
	argv_text = ab_argv_shown(s->prepare[i].v);
	ab_note("source '%s': prepare: %s", s->id, argv_text);
	if (ab_proc_run(&res, &p) < 0) {
		ab_error("source '%s': prepare step %zu cannot run", s->id, i + 1);
		goto done;
	}
	ab_proc_describe(desc, sizeof(desc), &res);
	e = cJSON_CreateObject();
	cJSON_AddItemToObject(e, "argv", ab_json_strv(s->prepare[i].v, s->prepare[i].n));
	cJSON_AddStringToObject(e, "cwd", shown);
	cJSON_AddBoolToObject(e, "sandbox", ctx->sandboxed);
	cJSON_AddItemToObject(e, "env_set", ab_json_strv(env.set.v, env.set.n));
	cJSON_AddItemToObject(e, "env_removed", ab_json_strv(env.removed.v, env.removed.n));
	cJSON_AddNumberToObject(e, "exit_code", res.exit_code);
	if (res.signal)
		cJSON_AddNumberToObject(e, "signal", res.signal);
	cJSON_AddNumberToObject(e, "seconds", (double)(long)(res.seconds * 1000) / 1000.0);
	cJSON_AddStringToObject(e, "log", log);
	cJSON_AddItemToArray(list, e);
	if (res.exit_code != 0) {
		/* said as a failed configure or build is: where it ran, and what its log says */
		ab_error("source '%s': prepare step %zu failed: %s\n"
		    "  command: %s\n"
		    "  cwd: %s%s\n"
		    "  log: %s (last %d lines below)",
		    s->id, i + 1, desc, argv_text, ctx->sandboxed ? AB_FIXED_SRC : shown,
		    ctx->sandboxed ? " (in the build sandbox: no network, nothing of the host but the system "
		    "directories and the source's own tree; docs/build.md, \"Sandbox\")" : "", log, AB_LOGTAIL_LINES);
		ab_logtail_print(log);
		goto done;
	}
	error = 0;
done:
	free(argv_text);
	free(log);
	ab_env_release(&env);
	ab_sandbox_release(&sb);
	return error;
}

/*
 * build the full tree of s into the existing empty dir; fills rec. When
 * final is not NULL and nothing changes the base tree (no overlays,
 * patches or prepare steps), *final receives the tree's index and *since
 * the time it was taken; otherwise final->v stays NULL.
 */
static int
build_tree(cJSON *rec, const struct build_ctx *ctx, const struct ab_source *s, const char *dir,
    const char *shown, int depth, struct ab_wt_index *final, struct timespec *since)
{
	char before[AB_HEX_LEN + 1], after[AB_HEX_LEN + 1];
	struct ab_wt_index hint = {0}, base = {0};
	struct timespec t;
	cJSON *list;
	int error;

	/* no depth limit: the loader refuses overlay cycles (builder/recipe.h) */
	cJSON_AddStringToObject(rec, "source", s->id);
	cJSON_AddItemToObject(rec, "base", base_record(fetched(ctx->o, s)));
	error = write_base(ctx, s, dir, &hint);
	/* before the index's stat pass: anything modified later is racily clean */
	clock_gettime(CLOCK_REALTIME_COARSE, &t);
	if (!error)
		error = ab_wt_index_build_hinted(&base, dir, ctx->o->jobs, &hint);
	ab_wt_index_free(&hint);
	if (error < 0)
		return -1;
	memcpy(before, base.dirhash, sizeof(before));
	if (final && !s->noverlays && !s->patches.n && !s->nprepare && !ctx->check_only) {
		*final = base;
		*since = t;
	} else {
		ab_wt_index_free(&base);
	}
	cJSON_AddStringToObject(rec, "base_dirHash", before);
	list = cJSON_AddArrayToObject(rec, "overlays");
	for (size_t i = 0; i < s->noverlays; i++)
		if (apply_overlay(list, ctx, s, &s->overlays[i], dir, shown, depth) < 0)
			return -1;
	if (s->noverlays && tree_hash(before, dir, ctx->o->jobs) < 0)
		return -1;
	list = cJSON_AddArrayToObject(rec, "patches");
	for (size_t i = 0; i < s->patches.n; i++) {
		const struct ab_patch_bytes *pb;
		cJSON *e;

		if (ab_recipe_patch(&pb, ctx->r, s, i) < 0 || ab_patch_apply(dir, &pb->text, s->patches.v[i], 0) < 0) {
			ab_error("source '%s': patch %zu of %zu failed", s->id, i + 1, s->patches.n);
			return -1;
		}
		if (tree_hash(after, dir, ctx->o->jobs) < 0)
			return -1;
		e = cJSON_CreateObject();
		cJSON_AddStringToObject(e, "path", s->patches.v[i]);
		cJSON_AddStringToObject(e, "sha256", pb->sha256);
		cJSON_AddStringToObject(e, "dirHash_before", before);
		cJSON_AddStringToObject(e, "dirHash_after", after);
		cJSON_AddItemToArray(list, e);
		ab_note("source '%s': applied patch '%s'", s->id, s->patches.v[i]);
		memcpy(before, after, sizeof(before));
	}
	if (ctx->check_only)
		return 0;
	list = cJSON_AddArrayToObject(rec, "prepare");
	for (size_t i = 0; i < s->nprepare; i++)
		if (run_prepare(list, ctx, s, i, dir, shown) < 0)
			return -1;
	if (depth > 0 && tree_hash(after, dir, ctx->o->jobs) == 0)
		cJSON_AddStringToObject(rec, "dirHash", after);
	return 0;
}

static char *
stamp_path(const char *dest)
{
	return ab_sprintf("%s.stamp", dest);
}

static int
write_stamp(const char *dest, const char *inputs, const cJSON *rec, const struct ab_wt_index *idx,
    int64_t since_s, int64_t since_ns)
{
	cJSON *head = cJSON_CreateObject();
	char *path = stamp_path(dest), *line;
	struct ab_buf b = {0};
	int error;

	cJSON_AddStringToObject(head, "stamp", STAMP_FORMAT);
	cJSON_AddStringToObject(head, "inputs", inputs);
	cJSON_AddNumberToObject(head, "since_s", (double)since_s);
	cJSON_AddNumberToObject(head, "since_ns", (double)since_ns);
	cJSON_AddItemToObject(head, "record", cJSON_Duplicate(rec, 1));
	line = cJSON_PrintUnformatted(head);
	ab_buf_puts(&b, line);
	ab_buf_putc(&b, '\n');
	ab_wt_index_write(&b, idx);
	/* no fsync: a stamp lost or torn by a crash is unreadable or missing, and the tree is written again */
	error = ab_atomic_write(path, b.s, b.len, AB_ATOMIC_NOSYNC);
	cJSON_free(line);
	cJSON_Delete(head);
	ab_buf_free(&b);
	free(path);
	return error;
}

/* the stamp at path into *head and idx: 0; 1 when it is unreadable or of another format */
static int
read_stamp(cJSON **head, struct ab_wt_index *idx, const char *path)
{
	struct ab_buf b = {0};
	char *nl;
	int rc = 1;

	*head = NULL;
	if (ab_read_file(&b, path) < 0)
		goto done;
	nl = strchr(b.s, '\n');
	if (!nl || !(*head = cJSON_ParseWithLength(b.s, (size_t)(nl - b.s))) ||
	    !ab_json_str(*head, "stamp") || strcmp(ab_json_str(*head, "stamp"), STAMP_FORMAT) ||
	    !ab_json_str(*head, "inputs") || !cJSON_IsObject(ab_json_get(*head, "record")) ||
	    ab_wt_index_parse(idx, nl + 1, b.len - (size_t)(nl + 1 - b.s)) < 0)
		goto done;
	rc = 0;
done:
	ab_buf_free(&b);
	return rc;
}

/* dest checked against idx, recorded at the stamp head's time: 0 it matches, 1 it does not (*why), -1 error */
static int
verify_stamped(struct ab_wt_index *idx, const cJSON *head, const char *dest, int jobs, int *refreshed, char **why)
{
	return ab_wt_index_verify(idx, dest, (int64_t)cJSON_GetNumberValue(ab_json_get(head, "since_s")),
	    (int64_t)cJSON_GetNumberValue(ab_json_get(head, "since_ns")), jobs, refreshed, why);
}

/* the stamp of dest written again with idx's refreshed stat data, as git refreshes its index (best effort) */
static void
refresh_stamp(const char *dest, const cJSON *head, const struct ab_wt_index *idx)
{
	struct timespec now;

	clock_gettime(CLOCK_REALTIME_COARSE, &now);
	write_stamp(dest, ab_json_str(head, "inputs"), ab_json_get(head, "record"), idx, now.tv_sec, now.tv_nsec);
}

int
ab_source_tree_files(struct ab_hash_tfile **files, size_t *n, const char *dir)
{
	char *path = stamp_path(dir), *why = NULL;
	struct ab_wt_index idx = {0};
	cJSON *head = NULL;
	int refreshed, rc = 1;

	*files = NULL;
	*n = 0;
	if (!ab_path_exists(path) || read_stamp(&head, &idx, path) != 0)
		goto done;
	rc = verify_stamped(&idx, head, dir, 0, &refreshed, &why);
	if (rc != 0)
		goto done;
	if (refreshed) {
		/* a stamp that cannot be written is only not refreshed: the files are known all the same */
		ab_report_mute();
		refresh_stamp(dir, head, &idx);
		ab_report_unmute();
	}
	*files = ab_calloc(idx.n ? idx.n : 1, sizeof(**files));
	for (size_t i = 0; i < idx.n; i++) {
		if (!S_ISREG(idx.v[i].mode))
			continue;
		(*files)[*n].path = ab_strdup(idx.v[i].path);
		(*files)[*n].size = idx.v[i].size;
		(*files)[*n].mode = idx.v[i].mode;
		memcpy((*files)[*n].hex, idx.v[i].hash, sizeof((*files)[*n].hex));
		(*n)++;
	}
done:
	free(why);
	ab_wt_index_free(&idx);
	cJSON_Delete(head);
	free(path);
	return rc;
}

/* 1: dest is a valid earlier materialization of inputs (rec filled), 0: rebuild, -1 error */
static int
try_reuse(cJSON *rec, const struct ab_source_opts *o, const char *dest, const char *inputs, const char *id)
{
	char *path = stamp_path(dest);
	cJSON *head = NULL;
	struct ab_wt_index idx = {0};
	char *why = NULL;
	int refreshed = 0, rc = -1, v;

	if (!ab_path_exists(path)) {
		ab_error("'%s' exists and was not written by allocbuild fetch (no '%s'); remove it", dest, path);
		goto done;
	}
	if (read_stamp(&head, &idx, path) != 0) {
		ab_note("source '%s': unreadable stamp '%s': writing '%s' again", id, path, dest);
		rc = 0;
		goto done;
	}
	if (strcmp(ab_json_str(head, "inputs"), inputs)) {
		ab_note("source '%s': the pinned inputs changed: writing '%s' again", id, dest);
		rc = 0;
		goto done;
	}
	v = verify_stamped(&idx, head, dest, o->jobs, &refreshed, &why);
	if (v < 0)
		goto done;
	if (v > 0) {
		ab_note("source '%s': '%s' changed (%s): writing it again", id, dest, why);
		rc = 0;
		goto done;
	}
	merge_into(rec, ab_json_get(head, "record"));
	if (refreshed)
		refresh_stamp(dest, head, &idx);
	rc = 1;
done:
	free(why);
	ab_wt_index_free(&idx);
	cJSON_Delete(head);
	free(path);
	return rc;
}

/*
 * remove <dest>.tmp-<pid>-* and <dest>.old-<pid>-* left by processes that
 * no longer run, when lib/stale proves each this user's directory (not a
 * link; a source tree is not private); any other is named and left alone
 */
static void
clean_stale_siblings(const char *dest)
{
	char *dir = ab_path_dirname(dest);
	const char *base = strrchr(dest, '/') ? strrchr(dest, '/') + 1 : dest;
	size_t blen = strlen(base);
	DIR *d = opendir(dir);
	struct dirent *de;

	while (d && (de = readdir(d))) {
		const char *rest;
		long pid;
		char *end, *p, why[160];

		if (strncmp(de->d_name, base, blen) || de->d_name[blen] != '.')
			continue;
		rest = de->d_name + blen + 1;
		if (strncmp(rest, "tmp-", 4) && strncmp(rest, "old-", 4))
			continue;
		pid = strtol(rest + 4, &end, 10);
		if (end == rest + 4 || *end != '-' || !ab_stale_pid_dead(pid))
			continue;
		p = ab_path_join(dir, de->d_name);
		if (ab_stale_own(p, AB_STALE_DIR, 0, why, sizeof(why)) < 0) {
			ab_warn("'%s' is named like the temporary of an interrupted run but is not provably one (%s): "
			    "left alone", p, why);
		} else {
			ab_note("removing '%s', left by an interrupted run", p);
			ab_rm_rf(p);
		}
		free(p);
	}
	if (d)
		closedir(d);
	free(dir);
}

static char *
make_tmp_dir(const char *dest, const char *what)
{
	char *t = ab_sprintf("%s.%s-%ld-XXXXXX", dest, what, (long)getpid());

	mode_t mask;

	if (!mkdtemp(t)) {
		ab_error_errno("cannot create a temporary directory next to '%s'", dest);
		free(t);
		return NULL;
	}
	/* mkdtemp makes it private; a source tree is an ordinary directory */
	mask = umask(0);
	umask(mask);
	chmod(t, 0777 & ~mask);
	return t;
}

/* the tree of s in tmp, with its record and index (*since: when the index was taken) */
static int
build_fresh(cJSON *mine, struct ab_wt_index *idx, struct timespec *since, const struct build_ctx *ctx,
    const struct ab_source *s, const char *tmp, const char *dest)
{
	if (build_tree(mine, ctx, s, tmp, dest, 0, idx, since) < 0)
		return -1;
	if (!idx->v) {
		clock_gettime(CLOCK_REALTIME_COARSE, since);
		if (ab_wt_index_build(idx, tmp, ctx->o->jobs) < 0)
			return -1;
	}
	cJSON_AddStringToObject(mine, "dirHash", idx->dirhash);
	cJSON_AddFalseToObject(mine, "reused");
	return 0;
}

/*
 * tmp becomes dest; an earlier dest is moved to *old first. The stamp goes
 * first, so a crash never leaves a stamp on a different tree.
 */
static int
swap_into_place(char **old, const char *dest, const char *tmp)
{
	char *sp = stamp_path(dest);
	int error = -1;

	if (unlink(sp) < 0 && errno != ENOENT) {
		ab_error_errno("cannot remove '%s'", sp);
		goto done;
	}
	if (ab_path_exists(dest)) {
		if (!(*old = make_tmp_dir(dest, "old")) || rename(dest, *old) < 0) {
			ab_error_errno("cannot move '%s' out of the way", dest);
			goto done;
		}
	}
	if (rename(tmp, dest) < 0) {
		ab_error_errno("cannot rename '%s' to '%s'", tmp, dest);
		goto done;
	}
	error = 0;
done:
	free(sp);
	return error;
}

int
ab_source_materialize(cJSON *rec, const struct ab_source_opts *o, const struct ab_recipe *r,
    const struct ab_source *s, const char *dest)
{
	struct build_ctx ctx = {.o = o, .r = r, .shown_dest = dest, .sandboxed = !o->no_sandbox};
	struct ab_buf inputs = {0};
	struct ab_wt_index idx = {0};
	struct timespec since;
	char *parent = ab_path_dirname(dest), *tmp = NULL, *old = NULL, *log_dir = NULL, *created = NULL;
	cJSON *mine = NULL;
	double start = ab_now();
	int error = -1, rc;

	if (fetch_closure(NULL, o, r, s) < 0 || inputs_of(&inputs, o, r, s) < 0)
		goto done;
	if (ab_path_exists(dest)) {
		rc = try_reuse(rec, o, dest, inputs.s, s->id);
		if (rc < 0)
			goto done;
		if (rc > 0) {
			cJSON_DeleteItemFromObjectCaseSensitive(rec, "reused");
			cJSON_AddTrueToObject(rec, "reused");
			ab_note("source '%s': '%s' is up to date (verified in %.2fs)", s->id, dest, ab_now() - start);
			error = 0;
			goto done;
		}
	}
	/* remember the first missing ancestor: a failure removes what it created */
	created = ab_path_first_missing(parent);
	if (ab_mkdir_p(parent, 0755) < 0)
		goto done;
	clean_stale_siblings(dest);
	log_dir = o->log_dir ? ab_strdup(o->log_dir) : ab_path_join(parent, "logs");
	ctx.log_dir = log_dir;
	if (!(tmp = make_tmp_dir(dest, "tmp")))
		goto done;
	mine = cJSON_CreateObject();
	if (build_fresh(mine, &idx, &since, &ctx, s, tmp, dest) < 0 || swap_into_place(&old, dest, tmp) < 0)
		goto done;
	free(tmp);
	tmp = NULL;
	if (old)
		ab_rm_rf(old);
	if (write_stamp(dest, inputs.s, mine, &idx, since.tv_sec, since.tv_nsec) < 0)
		goto done;
	merge_into(rec, mine);
	ab_note("source '%s': wrote '%s' in %.2fs (dirHash %s)", s->id, dest, ab_now() - start, idx.dirhash);
	error = 0;
done:
	if (tmp)
		ab_rm_rf(tmp);
	if (old && error && ab_path_exists(old) && !ab_path_exists(dest))
		rename(old, dest);
	if (error && created)
		ab_rmdir_up_to(parent, created);
	free(created);
	ab_wt_index_free(&idx);
	cJSON_Delete(mine);
	ab_buf_free(&inputs);
	free(old);
	free(tmp);
	free(log_dir);
	free(parent);
	return error;
}

/* the temporary tree of `fetch --check-patches`: TMPDIR/allocbuild-check-<pid>-XXXXXX */
#define CHECK_PREFIX "allocbuild-check-"

int
ab_source_check_patches(const struct ab_source_opts *o, const struct ab_recipe *r, const struct ab_source *s)
{
	struct build_ctx ctx = {.o = o, .r = r, .check_only = 1, .sandboxed = !o->no_sandbox};
	struct ab_guard reaper;
	const char *tmpdir = getenv("TMPDIR");
	char *tmp;
	cJSON *rec;
	int error;

	if (fetch_closure(NULL, o, r, s) < 0)
		return -1;
	if (!s->patches.n)
		return 0;
	tmpdir = tmpdir && tmpdir[0] ? tmpdir : "/tmp";
	/* the trees of earlier checks that were killed, when provably ours (lib/stale.h) */
	ab_stale_clean(tmpdir, CHECK_PREFIX, "fetch --check-patches");
	tmp = ab_sprintf("%s/" CHECK_PREFIX "%ld-XXXXXX", tmpdir, (long)getpid());
	if (!mkdtemp(tmp)) {
		ab_error_errno("cannot create a temporary directory '%s'", tmp);
		free(tmp);
		return -1;
	}
	/* removed however this process ends: a signal, even kill -9, leaves no source tree behind */
	if (ab_stale_reaper_start(&reaper, tmp) < 0) {
		ab_rm_rf(tmp);
		free(tmp);
		return -1;
	}
	ctx.log_dir = tmp;
	ctx.shown_dest = s->id;
	rec = cJSON_CreateObject();
	error = build_tree(rec, &ctx, s, tmp, s->id, 0, NULL, NULL);
	cJSON_Delete(rec);
	/* a test hook: t2170 interrupts the check here, its tree built and patched */
	ab_test_pause("ALLOCBUILD_TEST_CHECK_PAUSE");
	ab_rm_rf(tmp);
	ab_guard_done(&reaper);
	free(tmp);
	return error;
}

/* manifest */

cJSON *
ab_sources_manifest_new(const struct ab_recipe *r)
{
	cJSON *m = cJSON_CreateObject();
	cJSON *rj = cJSON_AddObjectToObject(m, "recipe");

	cJSON_AddStringToObject(m, "format", "allocbuild-sources/1");
	cJSON_AddStringToObject(rj, "name", r->name);
	cJSON_AddStringToObject(rj, "path", r->path);
	cJSON_AddStringToObject(rj, "sha256", r->sha256);
	if (r->description)
		cJSON_AddStringToObject(rj, "description", r->description);
	cJSON_AddObjectToObject(m, "sources");
	cJSON_AddObjectToObject(m, "variants");
	return m;
}

static void
add_to(cJSON *m, const char *section, const char *key, cJSON *rec)
{
	cJSON *sec = ab_json_get(m, section);

	cJSON_DeleteItemFromObjectCaseSensitive(sec, key);
	cJSON_AddItemToObject(sec, key, rec);
}

void
ab_sources_manifest_add_source(cJSON *m, const struct ab_source *s, cJSON *rec)
{
	/* what the tree is made from besides the pin, as the recipe writes it (for `pr`) */
	if (s->patches.n) {
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "patches");
		cJSON_AddItemToObject(rec, "patches", ab_json_strv(s->patches.v, s->patches.n));
	}
	if (s->noverlays) {
		cJSON *ov = cJSON_CreateObject();

		for (size_t i = 0; i < s->noverlays; i++)
			cJSON_AddStringToObject(ov, s->overlays[i].path, s->overlays[i].source);
		cJSON_DeleteItemFromObjectCaseSensitive(rec, "overlay");
		cJSON_AddItemToObject(rec, "overlay", ov);
	}
	add_to(m, "sources", s->id, rec);
}

void
ab_sources_manifest_add_variant(cJSON *m, const char *label, cJSON *rec)
{
	add_to(m, "variants", label, rec);
}

int
ab_sources_manifest_write(const cJSON *m, const char *outdir)
{
	char *dir = ab_path_join(outdir, "provenance");
	char *path = ab_path_join(dir, "sources.json");
	int error = ab_mkdir_p(dir, 0755);

	if (!error)
		error = ab_json_write(path, m);
	free(dir);
	free(path);
	return error;
}

int
ab_source_variants(cJSON *m, const struct ab_source_opts *o, const struct ab_recipe *r, const char *outdir,
    const size_t *variants, size_t nvariants)
{
	size_t nbuild = 0, k = 0;

	for (size_t i = 0; i < nvariants; i++)
		if (r->variants[variants[i]].kind == AB_VARIANT_BUILD)
			nbuild++;
	/* fetch everything first: materializing only reads the cache */
	for (size_t i = 0; i < nvariants; i++) {
		const struct ab_variant *v = &r->variants[variants[i]];
		const struct ab_source *s;

		if (v->kind != AB_VARIANT_BUILD)
			continue;
		s = ab_recipe_source(r, v->source);
		if (!s) {
			ab_error("variant '%s': unknown source '%s'", v->label, v->source);
			return -1;
		}
		if (fetch_closure(m, o, r, s) < 0)
			return -1;
	}
	for (size_t i = 0; i < nvariants; i++) {
		const struct ab_variant *v = &r->variants[variants[i]];
		char *rel, *dest;
		cJSON *rec;
		int error;

		if (v->kind != AB_VARIANT_BUILD)
			continue;
		rel = ab_sprintf("variants/%s/src", v->label);
		dest = ab_path_join(outdir, rel);
		rec = cJSON_CreateObject();
		ab_note("[%zu/%zu] source tree of '%s'", ++k, nbuild, v->label);
		error = ab_source_materialize(rec, o, r, ab_recipe_source(r, v->source), dest);
		if (!error) {
			cJSON_DeleteItemFromObjectCaseSensitive(rec, "path");
			cJSON_AddStringToObject(rec, "path", rel);
			ab_sources_manifest_add_variant(m, v->label, rec);
		} else {
			cJSON_Delete(rec);
		}
		free(dest);
		free(rel);
		if (error)
			return -1;
	}
	return 0;
}
