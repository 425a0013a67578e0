#include "git.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <git2/sys/odb_backend.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/atomic.h"
#include "../lib/hash.h"
#include "../lib/pool.h"
#include "../lib/util.h"
#include "../lib/redact.h"
#include "worktree.h"

void
ab_git_pin_release(struct ab_git_pin *p)
{
	free(p->ref);
	free(p->ref_kind);
	free(p->fetched_from);
	free(p->origin);
	memset(p, 0, sizeof(*p));
}

char *
ab_git_mirror_url(char *const *mirrors, size_t n, const char *url)
{
	/* the longest FROM wins; for the same FROM, the later entry (a --mirror after ALLOCBUILD_MIRRORS) */
	const char *best = NULL;
	size_t best_len = 0;

	for (size_t i = 0; i < n; i++) {
		const char *eq = strchr(mirrors[i], '=');
		size_t len;

		if (!eq)
			continue;
		len = (size_t)(eq - mirrors[i]);
		if (len >= best_len && !strncmp(url, mirrors[i], len)) {
			best = eq + 1;
			best_len = len;
		}
	}
	if (!best)
		return ab_strdup(url);
	return ab_sprintf("%s%s", best, url + best_len);
}

static char *
origin_path(const char *repo)
{
	return ab_path_join(repo, "allocbuild-origin");
}

static char *
read_origin(const char *repo)
{
	char *p = origin_path(repo);
	struct ab_buf b = {0};
	char *out = NULL;

	if (ab_path_exists(p) && ab_read_file(&b, p) == 0) {
		b.s[strcspn(b.s, "\n")] = '\0';
		out = ab_buf_detach(&b);
	}
	ab_buf_free(&b);
	free(p);
	return out;
}

/*
 * The first fetch from a repository on this machine, done as `git clone
 * --local` does it: the source's packs and loose objects hard-linked into
 * the new cache repository's object directory (git never changes an object
 * file in place, and a link keeps its bytes when the source repacks), then
 * the refs the fetch refspecs would have made, written directly. libgit2's
 * local transport instead walks and packs every object again: 3.4 times
 * git's time for a 12,000-file repository (issue 19). Done in the
 * repository while it still has its temporary name, so that a killed run
 * never leaves a commit without the objects it needs (it leaves a
 * temporary, removed as stale). From a path that opens as a repository,
 * not shallow, whose objects have no alternates; 0 when done, 1 when it
 * does not apply or a link failed (another file system,
 * protected_hardlinks): the caller starts over with an empty repository
 * and fetches.
 */
static int
link_dir(const char *from, const char *to, int depth)
{
	DIR *d = opendir(from);
	struct dirent *de;
	int rc = 0;

	if (!d)
		return errno == ENOENT ? 0 : 1;
	while (rc == 0 && (de = readdir(d))) {
		char *src, *dst;
		struct stat st;

		if (de->d_name[0] == '.' || !strcmp(de->d_name, "info"))
			continue;
		src = ab_path_join(from, de->d_name);
		dst = ab_path_join(to, de->d_name);
		if (lstat(src, &st) < 0)
			rc = 1;
		else if (S_ISDIR(st.st_mode) && depth == 0)
			rc = (mkdir(dst, 0755) < 0 && errno != EEXIST) ? 1 : link_dir(src, dst, 1);
		else if (S_ISREG(st.st_mode) && link(src, dst) < 0 && errno != EEXIST)
			rc = 1;
		free(src);
		free(dst);
	}
	closedir(d);
	return rc;
}

static int
link_ref(git_reference *ref, void *arg)
{
	git_repository *repo = arg;
	const char *name = git_reference_name(ref);
	const git_oid *oid = git_reference_target(ref);
	git_reference *made = NULL;
	char *to = NULL;
	int rc = 0;

	if (oid && !strncmp(name, "refs/heads/", 11))
		to = ab_sprintf("refs/remotes/origin/%s", name + 11);
	else if (oid && !strncmp(name, "refs/tags/", 10))
		to = ab_strdup(name);
	if (to && git_reference_create(&made, repo, to, oid, 1, "allocbuild: linked from a local repository") < 0)
		rc = -1;
	git_reference_free(made);
	git_reference_free(ref);
	free(to);
	return rc;
}

static int
link_local(git_repository *repo, const char *fetch_url)
{
	git_repository *src = NULL;
	char *from = NULL, *to = NULL, *alt = NULL;
	int rc = 1;

	if (fetch_url[0] != '/' || !ab_is_dir(fetch_url))
		return 1;
	if (git_repository_open_ext(&src, fetch_url, GIT_REPOSITORY_OPEN_NO_SEARCH, NULL) < 0 ||
	    git_repository_is_shallow(src))
		goto done;
	from = ab_path_join(git_repository_commondir(src), "objects");
	to = ab_path_join(git_repository_path(repo), "objects");
	alt = ab_path_join(from, "info/alternates");
	if (ab_path_exists(alt) || link_dir(from, to, 0) != 0)
		goto done;
	if (git_reference_foreach(src, link_ref, repo) < 0)
		goto done;
	rc = 0;
done:
	git_error_clear();
	git_repository_free(src);
	free(from);
	free(to);
	free(alt);
	return rc;
}

static void
note_fetch(const char *url, const char *fetch_url)
{
	char *shown_url = ab_url_redact(url), *shown_from = ab_url_redact(fetch_url);

	ab_note("fetching '%s'%s%s", shown_url, strcmp(url, fetch_url) ? " from " : "",
	    strcmp(url, fetch_url) ? shown_from : "");
	free(shown_url);
	free(shown_from);
}

/*
 * the cache's repository of url, opened; created when create is set, its
 * objects linked from fetch_url when that is a local repository (*linked
 * set: it holds what a fetch from there would have brought)
 */
static int
open_cache_repo(git_repository **out, struct ab_cache *c, const char *url, const char *fetch_url, int *linked)
{
	char *path = ab_cache_git_path(c, url);
	char *tmp = NULL;
	int error = -1, create = fetch_url != NULL;

	*out = NULL;
	if (linked)
		*linked = 0;
	if (ab_is_dir(path)) {
		if (git_repository_open_bare(out, path) < 0) {
			ab_error_git("cannot open the cached repository '%s' of '%s'", path, url);
			goto done;
		}
		error = 0;
		goto done;
	}
	if (!create) {
		ab_error("no cached repository for '%s'", url);
		goto done;
	}
	/* create under a temporary name so an interrupted run leaves no half repository */
	tmp = ab_cache_tmp_path(c, "git");
	if (git_repository_init(out, tmp, 1) < 0) {
		ab_error_git("cannot create a repository in '%s'", tmp);
		goto done;
	}
	if (link_local(*out, fetch_url) == 0) {
		note_fetch(url, fetch_url);
		if (linked)
			*linked = 1;
	} else if (fetch_url[0] == '/') {
		/* whatever a failed link left: start empty */
		git_repository_free(*out);
		*out = NULL;
		ab_rm_rf(tmp);
		if (git_repository_init(out, tmp, 1) < 0) {
			ab_error_git("cannot create a repository in '%s'", tmp);
			goto done;
		}
	}
	git_repository_free(*out);
	*out = NULL;
	{
		char *dir = ab_path_dirname(path);

		if (ab_mkdir_p(dir, 0755) < 0) {
			free(dir);
			goto done;
		}
		free(dir);
	}
	if (rename(tmp, path) < 0) {
		ab_error_errno("cannot rename '%s' to '%s'", tmp, path);
		goto done;
	}
	if (git_repository_open_bare(out, path) < 0) {
		ab_error_git("cannot open the cached repository '%s'", path);
		goto done;
	}
	error = 0;
done:
	if (tmp && error)
		ab_rm_rf(tmp);
	free(tmp);
	free(path);
	return error;
}

/* the commit and its tree are present; 1 yes, 0 no */
static int
have_commit(git_repository *repo, const git_oid *oid, char tree[41])
{
	git_commit *commit = NULL;
	git_tree *t = NULL;
	int ok = 0;

	if (git_commit_lookup(&commit, repo, oid) == 0 && git_commit_tree(&t, commit) == 0) {
		git_oid_tostr(tree, 41, git_tree_id(t));
		ok = 1;
	}
	git_tree_free(t);
	git_commit_free(commit);
	git_error_clear();
	return ok;
}

/* report a libgit2 failure: libgit2's message may quote a URL with its credentials, which are taken out */
static void
git_error_redacted(const char *what)
{
	const git_error *ge = git_error_last();
	char *msg = ab_url_redact(ge && ge->message ? ge->message : "unknown libgit2 error");

	ab_error("%s: %s", what, msg);
	free(msg);
}

static int
do_fetch(git_repository *repo, const char *url, const char *fetch_url, char **specs, size_t nspecs,
    int quiet_failure)
{
	git_remote *remote = NULL;
	git_fetch_options fo;
	git_strarray refspecs = {specs, nspecs};
	char *shown_url = ab_url_redact(url), *shown_from = ab_url_redact(fetch_url), *what = NULL;
	int error = -1;

	git_fetch_options_init(&fo, GIT_FETCH_OPTIONS_VERSION);
	fo.prune = GIT_FETCH_PRUNE;
	fo.download_tags = GIT_REMOTE_DOWNLOAD_TAGS_NONE;
	fo.update_fetchhead = 0;
	if (git_remote_create_anonymous(&remote, repo, fetch_url) < 0) {
		what = ab_sprintf("cannot use '%s'", shown_from);
		git_error_redacted(what);
		goto done;
	}
	if (git_remote_fetch(remote, &refspecs, &fo, NULL) < 0) {
		if (!quiet_failure) {
			if (strcmp(url, fetch_url))
				what = ab_sprintf("cannot fetch '%s' (from '%s')", shown_url, shown_from);
			else
				what = ab_sprintf("cannot fetch '%s'", shown_url);
			/* a local path (neither a URL nor host:path) that is not there: libgit2 calls it an unsupported protocol */
			if ((fetch_url[0] == '/' || fetch_url[0] == '.' || !strchr(fetch_url, ':')) && !ab_path_exists(fetch_url))
				ab_error("%s: no repository there: No such file or directory", what);
			else
				git_error_redacted(what);
		}
		goto done;
	}
	error = 0;
done:
	git_remote_free(remote);
	free(shown_url);
	free(shown_from);
	free(what);
	return error;
}

static int
fetch_all(git_repository *repo, const char *url, const char *fetch_url)
{
	char *specs[] = {"+refs/heads/*:refs/remotes/origin/*", "+refs/tags/*:refs/tags/*"};
	note_fetch(url, fetch_url);
	return do_fetch(repo, url, fetch_url, specs, AB_NELEM(specs), 0);
}

static int
resolve_ref(struct ab_git_pin *pin, git_repository *repo, const char *want)
{
	struct ab_strv cands = {0};
	git_reference *ref = NULL;
	git_object *obj = NULL;
	int error = -1;

	if (!strncmp(want, "refs/heads/", 11)) {
		ab_strv_pushf(&cands, "refs/remotes/origin/%s", want + 11);
	} else if (!strncmp(want, "refs/tags/", 10)) {
		ab_strv_push(&cands, want);
	} else {
		ab_strv_pushf(&cands, "refs/remotes/origin/%s", want);
		ab_strv_pushf(&cands, "refs/tags/%s", want);
	}
	for (size_t i = 0; i < cands.n && !ref; i++) {
		if (git_reference_lookup(&ref, repo, cands.v[i]) < 0) {
			ref = NULL;
			continue;
		}
		if (!strncmp(cands.v[i], "refs/remotes/", 13)) {
			pin->ref_kind = ab_strdup("branch");
		} else {
			git_object *target = NULL;

			/* an annotated tag's ref points at a tag object */
			if (git_reference_target(ref) &&
			    git_object_lookup(&target, repo, git_reference_target(ref), GIT_OBJECT_TAG) == 0)
				pin->ref_kind = ab_strdup("annotated tag");
			else
				pin->ref_kind = ab_strdup("tag");
			git_object_free(target);
		}
	}
	git_error_clear();
	if (!ref) {
		ab_error("no branch or tag '%s'", want);
		goto done;
	}
	if (git_reference_peel(&obj, ref, GIT_OBJECT_COMMIT) < 0) {
		ab_error_git("'%s' does not name a commit", want);
		goto done;
	}
	git_oid_tostr(pin->commit, sizeof(pin->commit), git_object_id(obj));
	pin->ref = ab_strdup(want);
	error = 0;
done:
	git_object_free(obj);
	git_reference_free(ref);
	ab_strv_free(&cands);
	return error;
}

int
ab_git_have(struct ab_git_pin *pin, struct ab_cache *c, const char *url, const char *commit)
{
	char *path = ab_cache_git_path(c, url);
	git_repository *repo = NULL;
	git_oid oid;
	int ok = 0;

	if (ab_is_dir(path) && git_repository_open_bare(&repo, path) == 0 &&
	    git_oid_fromstr(&oid, commit) == 0 && have_commit(repo, &oid, pin->tree)) {
		memcpy(pin->commit, commit, 41);
		ok = 1;
	}
	git_error_clear();
	git_repository_free(repo);
	free(path);
	return ok;
}

int
ab_git_fetch(struct ab_git_pin *pin, struct ab_cache *c, const char *url, const char *fetch_url,
    const char *want, int unpinned)
{
	git_repository *repo = NULL;
	char *path = ab_cache_git_path(c, url);
	git_oid oid;
	int error = -1, linked = 0;

	memset(pin, 0, sizeof(*pin));
	if (open_cache_repo(&repo, c, url, fetch_url, &linked) < 0)
		goto done;
	if (linked)
		pin->fetched_from = ab_strdup(fetch_url);
	if (unpinned) {
		/* a branch moves: always ask the remote (just linked: its refs are the remote's) */
		if (!linked && fetch_all(repo, url, fetch_url) < 0)
			goto done;
		if (!linked)
			pin->fetched_from = ab_strdup(fetch_url);
		if (resolve_ref(pin, repo, want) < 0)
			goto done;
	} else {
		memcpy(pin->commit, want, 41);
	}
	if (git_oid_fromstr(&oid, pin->commit) < 0) {
		ab_error("'%s' is not a commit id", pin->commit);
		goto done;
	}
	if (!have_commit(repo, &oid, pin->tree) && !unpinned) {
		if (fetch_all(repo, url, fetch_url) < 0)
			goto done;
		if (!linked)
			pin->fetched_from = ab_strdup(fetch_url);
		if (!have_commit(repo, &oid, pin->tree)) {
			/* not reachable from a branch or tag: ask for the object itself */
			char *spec = ab_sprintf("+%s:refs/allocbuild/pins/%s", pin->commit, pin->commit);

			do_fetch(repo, url, fetch_url, &spec, 1, 1);
			git_error_clear();
			free(spec);
		}
	}
	if (!have_commit(repo, &oid, pin->tree)) {
		char *shown_url = ab_url_redact(url), *shown_from = ab_url_redact(fetch_url);

		if (strcmp(url, fetch_url))
			ab_error("commit %s not found in '%s' (fetched from '%s')", pin->commit, shown_url, shown_from);
		else
			ab_error("commit %s not found in '%s'", pin->commit, shown_url);
		free(shown_url);
		free(shown_from);
		goto done;
	}
	if (pin->fetched_from) {
		char *op = origin_path(path), *shown = ab_url_redact(fetch_url);
		char *line = ab_sprintf("%s\n", shown);

		/* the cache keeps where its objects came from, never the credentials used */
		ab_write_file_atomic(op, line, strlen(line));
		free(op);
		free(line);
		free(shown);
	}
	pin->origin = read_origin(path);
	if (!pin->origin)
		pin->origin = ab_url_redact(fetch_url);
	error = 0;
done:
	git_repository_free(repo);
	free(path);
	return error;
}

/* tree writing */

struct wentry {
	char *path; /* relative */
	git_oid oid;
	git_filemode_t mode;
	uint64_t size;
	char hash[65]; /* sha256 of what was written */
};

enum { WRITER_RUN = 32 };

/* what one worker of the pool keeps: its own repository handle, a path buffer, a SHA-1 context */
struct wstate {
	git_repository *repo;
	git_odb *odb;
	struct ab_buf path;
	EVP_MD_CTX *sha1;
	int opened;
};

struct writer {
	const char *repo_path;
	const char *dest;
	struct wentry *v;
	size_t n, cap;
	int bad_name;
	struct wstate *ws;   /* one per pool worker */
	struct ab_buf err;   /* the first failure, reported once by the caller */
	pthread_mutex_t lock;
};

static int
valid_name(const char *name)
{
	return name[0] && strcmp(name, ".") && strcmp(name, "..") && strcasecmp(name, ".git") &&
	    !strchr(name, '/');
}

static int
walk_cb(const char *root, const git_tree_entry *entry, void *payload)
{
	struct writer *w = payload;
	const char *name = git_tree_entry_name(entry);
	git_filemode_t mode = git_tree_entry_filemode(entry);
	char *rel, *full;

	if (!valid_name(name)) {
		ab_error("refusing tree entry '%s%s'", root, name);
		w->bad_name = 1;
		return -1;
	}
	rel = ab_sprintf("%s%s", root, name);
	if (mode == GIT_FILEMODE_TREE || mode == GIT_FILEMODE_COMMIT) {
		/* a submodule is an empty directory, as in a git checkout */
		full = ab_path_join(w->dest, rel);
		if (mkdir(full, 0777) < 0) {
			ab_error_errno("cannot create directory '%s'", full);
			free(full);
			free(rel);
			w->bad_name = 1;
			return -1;
		}
		free(full);
		free(rel);
		return mode == GIT_FILEMODE_COMMIT ? 1 : 0;
	}
	if (w->n == w->cap) {
		w->cap = w->cap ? w->cap * 2 : 1024;
		w->v = ab_realloc(w->v, w->cap * sizeof(*w->v));
	}
	w->v[w->n].path = rel;
	git_oid_cpy(&w->v[w->n].oid, git_tree_entry_id(entry));
	w->v[w->n].mode = mode;
	w->n++;
	return 0;
}

static int
writer_fail(struct writer *w, const char *msg)
{
	pthread_mutex_lock(&w->lock);
	if (!w->err.len)
		ab_buf_puts(&w->err, msg);
	pthread_mutex_unlock(&w->lock);
	return AB_EFAIL;
}

/*
 * A blob's bytes, read from the object database's backends directly:
 * libgit2's own read would check the object's id with its
 * collision-detecting SHA-1, a third of the CPU of writing a tree. The id
 * is checked here instead, with OpenSSL's SHA-1 (blob_matches); git's
 * checkout checks none. An object no backend has is read the ordinary
 * way (verified by libgit2). Release with blob_release.
 */
struct blob {
	git_odb_backend *backend; /* the backend whose memory data is; NULL: obj */
	git_odb_object *obj;
	void *data;
	size_t size;
};

static int
blob_read(struct blob *b, git_odb *odb, const git_oid *oid)
{
	size_t n = git_odb_num_backends(odb);

	memset(b, 0, sizeof(*b));
	for (size_t i = 0; i < n; i++) {
		git_odb_backend *be;
		git_object_t type;
		int e;

		if (git_odb_get_backend(&be, odb, i) < 0 || !be->read)
			continue;
		e = be->read(&b->data, &b->size, &type, be, oid);
		if (e == 0 && type == GIT_OBJECT_BLOB) {
			b->backend = be;
			return 0;
		}
		if (e == 0)
			git_odb_backend_data_free(be, b->data);
		if (e == 0 || (e != GIT_ENOTFOUND && e != GIT_PASSTHROUGH))
			break;
	}
	memset(b, 0, sizeof(*b));
	if (git_odb_read(&b->obj, odb, oid) < 0)
		return -1;
	if (git_odb_object_type(b->obj) != GIT_OBJECT_BLOB) {
		git_error_set_str(GIT_ERROR_ODB, "the object is not a blob");
		git_odb_object_free(b->obj);
		b->obj = NULL;
		return -1;
	}
	b->data = (void *)git_odb_object_data(b->obj);
	b->size = git_odb_object_size(b->obj);
	return 0;
}

static void
blob_release(struct blob *b)
{
	if (b->backend)
		git_odb_backend_data_free(b->backend, b->data);
	git_odb_object_free(b->obj);
}

/* is the blob's git object id oid ("blob SIZE\0" and the bytes, SHA-1)? */
static int
blob_matches(EVP_MD_CTX *ctx, const struct blob *b, const git_oid *oid)
{
	char hdr[32];
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	int n = snprintf(hdr, sizeof(hdr), "blob %zu", b->size);

	if (b->obj)
		return 1; /* read by libgit2, which checked it */
	if (!EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) || !EVP_DigestUpdate(ctx, hdr, (size_t)n + 1) ||
	    !EVP_DigestUpdate(ctx, b->data, b->size) || !EVP_DigestFinal_ex(ctx, md, &mdlen))
		return 0;
	return mdlen == GIT_OID_RAWSZ && !memcmp(md, oid->id, GIT_OID_RAWSZ);
}

static int
write_entry(struct writer *w, struct wstate *ws, struct wentry *e)
{
	struct blob blob;
	const char *data;
	size_t size;
	int error = 0;

	if (blob_read(&blob, ws->odb, &e->oid) < 0) {
		const git_error *ge = git_error_last();
		char *m = ab_sprintf("cannot read the blob of '%s': %s", e->path, ge ? ge->message : "?");

		writer_fail(w, m);
		free(m);
		return AB_EFAIL;
	}
	if (!blob_matches(ws->sha1, &blob, &e->oid)) {
		char id[GIT_OID_HEXSZ + 1];
		char *m = ab_sprintf("the blob of '%s' is corrupt: its bytes are not object %s", e->path,
		    git_oid_tostr(id, sizeof(id), &e->oid));

		blob_release(&blob);
		writer_fail(w, m);
		free(m);
		return AB_EFAIL;
	}
	data = blob.data;
	size = blob.size;
	ab_hash_buf(e->hash, data, size);
	e->size = size;
	ab_buf_clear(&ws->path);
	ab_buf_printf(&ws->path, "%s/%s", w->dest, e->path);
	if (e->mode == GIT_FILEMODE_LINK) {
		char *target = ab_strndup(data, size);

		if (symlink(target, ws->path.s) < 0) {
			char *m = ab_sprintf("cannot create symlink '%s': %s", ws->path.s, strerror(errno));

			error = writer_fail(w, m);
			free(m);
		}
		free(target);
	} else {
		int fd = open(ws->path.s, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		    e->mode == GIT_FILEMODE_BLOB_EXECUTABLE ? 0777 : 0666);

		int err = fd < 0 ? errno : 0;

		/* the descriptor is closed whether the write failed or not */
		if (fd >= 0 && ab_write_all(fd, data, size) < 0)
			err = errno;
		if (fd >= 0 && close(fd) < 0 && !err)
			err = errno;
		if (err) {
			char *m = ab_sprintf("cannot write '%s': %s", ws->path.s, strerror(err));

			error = writer_fail(w, m);
			free(m);
		}
	}
	blob_release(&blob);
	return error;
}

/*
 * One item of the pool: a run of WRITER_RUN consecutive entries (mostly
 * one directory): two threads creating files in the same directory
 * contend for its lock. The first failure stops the pool.
 */
static int
write_run(void *arg, size_t item, int worker)
{
	struct writer *w = arg;
	struct wstate *ws = &w->ws[worker];
	size_t end = (item + 1) * WRITER_RUN < w->n ? (item + 1) * WRITER_RUN : w->n;

	if (!ws->opened) {
		ws->opened = 1;
		if (!(ws->sha1 = EVP_MD_CTX_new()))
			writer_fail(w, "cannot make a SHA-1 context");
		if (git_repository_open_bare(&ws->repo, w->repo_path) < 0 ||
		    git_repository_odb(&ws->odb, ws->repo) < 0) {
			const git_error *e = git_error_last();
			char *m = ab_sprintf("cannot open '%s': %s", w->repo_path, e ? e->message : "?");

			writer_fail(w, m);
			free(m);
		}
	}
	if (!ws->odb || !ws->sha1)
		return AB_EFAIL;
	for (size_t i = item * WRITER_RUN; i < end; i++)
		if (write_entry(w, ws, &w->v[i]) < 0)
			return AB_EFAIL;
	return 0;
}

/* the blobs of w->v written below w->dest on jobs threads; the first failure reported */
static int
write_entries(struct writer *w, int jobs)
{
	size_t runs = (w->n + WRITER_RUN - 1) / WRITER_RUN;
	int workers, error;

	if (w->n <= 64)
		jobs = 1;
	workers = ab_pool_workers(runs, jobs);
	w->ws = ab_calloc((size_t)workers, sizeof(*w->ws));
	error = ab_pool_run(runs, jobs, write_run, w);
	for (int k = 0; k < workers; k++) {
		ab_buf_free(&w->ws[k].path);
		EVP_MD_CTX_free(w->ws[k].sha1);
		git_odb_free(w->ws[k].odb);
		git_repository_free(w->ws[k].repo);
	}
	free(w->ws);
	w->ws = NULL;
	if (error < 0)
		ab_error("%s", w->err.s);
	return error;
}

int
ab_git_write_tree(struct ab_cache *c, const char *url, const char *tree_hex, const char *dest, int jobs,
    struct ab_wt_index *hint)
{
	struct writer w = {0};
	char *repo_path = ab_cache_git_path(c, url);
	git_repository *repo = NULL;
	git_tree *tree = NULL;
	git_oid oid;
	int error = -1;

	w.repo_path = repo_path;
	w.dest = dest;
	pthread_mutex_init(&w.lock, NULL);
	if (git_repository_open_bare(&repo, repo_path) < 0) {
		ab_error_git("cannot open the cached repository of '%s'", url);
		goto done;
	}
	if (git_oid_fromstr(&oid, tree_hex) < 0 || git_tree_lookup(&tree, repo, &oid) < 0) {
		ab_error_git("cannot read tree %s of '%s'", tree_hex, url);
		goto done;
	}
	/* pre-order: directories are created before what they hold */
	if (git_tree_walk(tree, GIT_TREEWALK_PRE, walk_cb, &w) < 0) {
		if (!w.bad_name)
			ab_error_git("cannot walk tree %s of '%s'", tree_hex, url);
		goto done;
	}
	if (write_entries(&w, jobs) < 0)
		goto done;
	if (hint) {
		memset(hint, 0, sizeof(*hint));
		for (size_t i = 0; i < w.n; i++)
			ab_wt_index_add(hint, w.v[i].path, w.v[i].mode == GIT_FILEMODE_LINK ? S_IFLNK | 0777 : S_IFREG | 0644,
			    w.v[i].size, w.v[i].hash);
		ab_wt_index_sort(hint);
	}
	error = 0;
done:
	for (size_t i = 0; i < w.n; i++)
		free(w.v[i].path);
	free(w.v);
	ab_buf_free(&w.err);
	pthread_mutex_destroy(&w.lock);
	git_tree_free(tree);
	git_repository_free(repo);
	free(repo_path);
	return error;
}
