#include "merge.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/copytree.h"
#include "../lib/jsonio.h"
#include "../lib/stale.h"
#include "../lib/util.h"
#include "../provenance/record/manifest.h"
#include "../provenance/record/record.h"
#include "build.h"
#include "inputs.h"
#include "plan.h"
#include "recipe.h"

#define STATEMENT AB_MANIFEST_STATEMENT
#define COMMANDS "provenance/build-commands.json"

/* what one shard's OUTDIR says of itself, once it passed verify */
struct shard {
	const char *dir;
	cJSON *statement, *commands;
	const char *recipe_sha256;
	struct ab_strv labels;            /* the variants it built (ok) */
	struct ab_manifest_last *last;
};

static void
shard_release(struct shard *s)
{
	cJSON_Delete(s->statement);
	cJSON_Delete(s->commands);
	ab_strv_free(&s->labels);
	ab_manifest_last_free(s->last);
}

static const cJSON *
build_definition(const struct shard *s)
{
	return ab_json_get(ab_json_get(s->statement, "predicate"), "buildDefinition");
}

static const cJSON *
metadata(const struct shard *s)
{
	return ab_json_get(ab_json_get(ab_json_get(s->statement, "predicate"), "runDetails"), "metadata");
}

static const cJSON *
run_toolchain(const struct shard *s)
{
	return ab_json_get(ab_json_get(build_definition(s), "internalParameters"), "toolchain");
}

/* verify the shard, then read what the merge needs; AB_ECHECK when it fails verify */
static int
shard_load(struct shard *s, const char *dir)
{
	char *buf = NULL, *path;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);
	const cJSON *it;
	int e;

	s->dir = dir;
	if (!out) {
		ab_error_errno("cannot verify '%s'", dir);
		return AB_EFAIL;
	}
	e = ab_manifest_verify(out, dir);
	fclose(out);
	if (e == AB_ECHECK) {
		fputs(buf, stderr);
		ab_error("'%s' fails verify: not merged", dir);
	}
	free(buf);
	if (e < 0)
		return e;
	path = ab_path_join(dir, STATEMENT);
	e = ab_json_read(&s->statement, path);
	free(path);
	if (e == 0) {
		path = ab_path_join(dir, COMMANDS);
		e = ab_json_read(&s->commands, path);
		free(path);
	}
	if (e < 0)
		return AB_EFAIL;
	s->recipe_sha256 = ab_json_str(ab_json_get(ab_json_get(ab_json_get(build_definition(s),
	    "externalParameters"), "recipe"), "digest"), "sha256");
	if (!s->recipe_sha256) {
		ab_error("'%s/%s' names no recipe digest", dir, STATEMENT);
		return AB_EFAIL;
	}
	cJSON_ArrayForEach(it, ab_json_get(s->commands, "variants"))
		if (cJSON_IsTrue(ab_json_get(it, "ok")) && ab_json_str(it, "label"))
			ab_strv_push(&s->labels, ab_json_str(it, "label"));
	s->last = ab_manifest_last_load(dir);
	if (!s->last) {
		ab_error("'%s': cannot read its manifests", dir);
		return AB_EFAIL;
	}
	return 0;
}

/* the sources' pins ("KIND:DIGEST") of a shard's statement, by name: not another variant's artifact */
static const char *
pin_of(char *buf, size_t len, const cJSON *dep)
{
	const cJSON *d = ab_json_get(dep, "digest");

	if (ab_json_get(dep, "annotations") || !d || !d->child || !cJSON_IsString(d->child))
		return NULL;
	snprintf(buf, len, "%s:%s", d->child->string, d->child->valuestring);
	return buf;
}

/* the same recipe and the same source pins everywhere; reports every difference */
static int
check_inputs(struct shard *sh, size_t n)
{
	int bad = 0;

	for (size_t i = 1; i < n; i++)
		if (strcmp(sh[i].recipe_sha256, sh[0].recipe_sha256)) {
			ab_error("'%s' and '%s' were built from different recipes (sha256 %s and %s): not merged",
			    sh[0].dir, sh[i].dir, sh[0].recipe_sha256, sh[i].recipe_sha256);
			bad = 1;
		}
	if (bad)
		return AB_ECHECK;
	for (size_t i = 0; i < n; i++) {
		const cJSON *a;

		cJSON_ArrayForEach(a, ab_json_get(build_definition(&sh[i]), "resolvedDependencies")) {
			const char *name = ab_json_str(a, "name");
			char pa[256], pb[256];

			if (!name || !pin_of(pa, sizeof(pa), a))
				continue;
			for (size_t j = i + 1; j < n; j++) {
				const cJSON *b;

				cJSON_ArrayForEach(b, ab_json_get(build_definition(&sh[j]), "resolvedDependencies"))
					if (ab_json_str(b, "name") && !strcmp(ab_json_str(b, "name"), name) &&
					    pin_of(pb, sizeof(pb), b) && strcmp(pa, pb)) {
						ab_error("source '%s' differs: %s in '%s', %s in '%s': not merged", name, pa,
						    sh[i].dir, pb, sh[j].dir);
						bad = 1;
					}
			}
		}
	}
	return bad ? AB_ECHECK : 0;
}

/* the names of the members in which two toolchain objects differ, comma separated, into b */
static void
toolchain_diff(struct ab_buf *b, const cJSON *x, const cJSON *y)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, x) {
		const cJSON *o = ab_json_get(y, it->string);

		if (!o || !cJSON_Compare(it, o, 1))
			ab_buf_printf(b, "%s%s", b->len ? ", " : "", it->string);
	}
	cJSON_ArrayForEach(it, y)
		if (!ab_json_get(x, it->string))
			ab_buf_printf(b, "%s%s", b->len ? ", " : "", it->string);
}

/* the same for two variants' toolchain records (provenance/record/toolchain.h): the tools of x not in y */
static void
tools_diff(struct ab_buf *b, const struct ab_toolchain *x, const struct ab_toolchain *y)
{
	for (size_t i = 0; i < x->n; i++) {
		int same = 0;

		for (size_t k = 0; k < y->n && !same; k++)
			same = ab_tool_equal(&x->v[i], &y->v[k]);
		if (!same)
			ab_buf_printf(b, "%s%s", b->len ? ", " : "", x->v[i].name);
	}
	if (!b->len && x->n != y->n)
		ab_buf_printf(b, "the set of tools");
}

/*
 * A runtime_of that was not probed has no state.json: its label and the
 * key the shard's build-commands.json records (builder/build.h makes the
 * rest); NULL when the shard does not record it as built
 */
static struct ab_variant_record *
runtime_record(const struct shard *s, const char *label)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, ab_json_get(s->commands, "variants")) {
		const char *l = ab_json_str(it, "label"), *key = ab_json_str(it, "key");
		struct ab_variant_record *r;

		if (!l || strcmp(l, label) || !cJSON_IsTrue(ab_json_get(it, "ok")) || !key ||
		    strlen(key) != AB_HEX_LEN)
			continue;
		r = ab_calloc(1, sizeof(*r));
		r->label = ab_strdup(label);
		memcpy(r->key, key, AB_HEX_LEN + 1);
		r->ok = 1;
		return r;
	}
	return NULL;
}

struct merge {
	const struct ab_merge_opts *o;
	struct shard *sh;
	struct ab_plan *plan;
	struct ab_variant_record **rec; /* per plan var: the record of its first shard */
	size_t *from;                   /* per plan var: that shard */
	cJSON *shards_of;               /* label -> [shard dirs] */
	int toolchain_differs;
	struct ab_strv shard_dirs;      /* the shards' absolute paths: where a journal's moves may lead */
	struct ab_strv inputs;          /* the files of inputs/ the shards brought (builder/inputs.h) */
};

/*
 * Every variant of the recipe from the shards that built it: its record
 * (state.json, as its shard's manifests say it), the same artifact digests
 * in each, the toolchains compared
 */
static int
collect_variants(struct merge *m)
{
	const struct ab_plan *p = m->plan;
	int bad = 0;

	m->rec = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*m->rec));
	m->from = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*m->from));
	m->shards_of = cJSON_CreateObject();
	for (size_t vi = 0; vi < p->nvars; vi++) {
		const char *label = p->vars[vi].v->label;
		cJSON *where = cJSON_AddArrayToObject(m->shards_of, label);
		int refused = 0;

		for (size_t i = 0; i < m->o->nshards; i++) {
			struct shard *s = &m->sh[i];
			struct ab_variant_record *r = NULL;
			char *sp, *rel;

			if (!ab_strv_has(&s->labels, label))
				continue;
			rel = ab_sprintf("variants/%s/state.json", label);
			sp = ab_path_join(s->dir, rel);
			free(rel);
			ab_variant_record_load(&r, sp);
			free(sp);
			if (!r && p->vars[vi].v->kind == AB_VARIANT_RUNTIME && (r = runtime_record(s, label))) {
				/* nothing of its own to check: its base's record is */
			} else if (!r || !r->ok || !ab_manifest_last_has(s->last, r)) {
				ab_error("'%s': the record of variant '%s' (state.json) is not what its manifests say: not merged",
				    s->dir, label);
				ab_variant_record_free(r);
				bad = refused = 1;
				continue;
			}
			cJSON_AddItemToArray(where, cJSON_CreateString(s->dir));
			if (!m->rec[vi]) {
				m->rec[vi] = r;
				m->from[vi] = i;
				continue;
			}
			{
				const struct ab_variant_record *f = m->rec[vi];
				struct ab_buf d = {0};

				/* a runtime_of has its base's artifacts: compared as the base's */
				for (size_t k = 0; p->vars[vi].v->kind != AB_VARIANT_RUNTIME &&
				    (k < f->nartifacts || k < r->nartifacts); k++) {
					const struct ab_artifact_record *x = k < f->nartifacts ? &f->artifacts[k] : NULL;
					const struct ab_artifact_record *y = k < r->nartifacts ? &r->artifacts[k] : NULL;

					if (x && y && !strcmp(x->path, y->path) && !strcmp(x->sha256, y->sha256))
						continue;
					ab_error("reproducibility cross-check failed: variant '%s' artifact '%s' is %s in '%s' and %s in '%s': not merged",
					    label, x ? x->path : y->path, x ? x->sha256 : "missing", m->sh[m->from[vi]].dir,
					    y && (!x || !strcmp(x->path, y->path)) ? y->sha256 : "missing", s->dir);
					bad = 1;
				}
				tools_diff(&d, &f->toolchain, &r->toolchain);
				if (d.len) {
					m->toolchain_differs = 1;
					if (m->o->require_same_toolchain) {
						ab_error("variant '%s' was built with another toolchain in '%s' than in '%s' (%s): not merged",
						    label, s->dir, m->sh[m->from[vi]].dir, d.s);
						bad = 1;
					} else {
						ab_warn("variant '%s' was built with another toolchain in '%s' than in '%s' (%s)",
						    label, s->dir, m->sh[m->from[vi]].dir, d.s);
					}
				}
				ab_buf_free(&d);
			}
			ab_variant_record_free(r);
		}
		if (!m->rec[vi] && !refused) {
			ab_error("no shard built variant '%s': not merged", label);
			bad = 1;
		}
	}
	return bad ? AB_ECHECK : 0;
}

/* the toolchains of the runs: each shard's against the first's */
static int
compare_run_toolchains(struct merge *m)
{
	int bad = 0;

	for (size_t i = 1; i < m->o->nshards; i++) {
		struct ab_buf d = {0};

		toolchain_diff(&d, run_toolchain(&m->sh[0]), run_toolchain(&m->sh[i]));
		if (d.len) {
			m->toolchain_differs = 1;
			if (m->o->require_same_toolchain) {
				ab_error("'%s' and '%s' were built with different toolchains (%s): not merged",
				    m->sh[0].dir, m->sh[i].dir, d.s);
				bad = 1;
			} else {
				ab_warn("'%s' and '%s' were built with different toolchains (%s); each variant's is recorded",
				    m->sh[0].dir, m->sh[i].dir, d.s);
			}
		}
		ab_buf_free(&d);
	}
	return bad ? AB_ECHECK : 0;
}

/* what the statement records of the merge (internalParameters.merge) */
static cJSON *
merge_record(const struct merge *m)
{
	cJSON *doc = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(doc, "shards");

	for (size_t i = 0; i < m->o->nshards; i++) {
		const struct shard *s = &m->sh[i];
		cJSON *e = cJSON_CreateObject();

		ab_json_add_str_or_null(e, "outdir", s->dir);
		ab_json_add_str_or_null(e, "invocationId", ab_json_str(metadata(s), "invocationId"));
		ab_json_add_str_or_null(e, "startedOn", ab_json_str(metadata(s), "startedOn"));
		ab_json_add_str_or_null(e, "finishedOn", ab_json_str(metadata(s), "finishedOn"));
		cJSON_AddItemToObject(e, "variants", ab_json_strv(s->labels.v, s->labels.n));
		cJSON_AddItemToObject(e, "toolchain", cJSON_Duplicate(run_toolchain(s), 1));
		cJSON_AddItemToArray(arr, e);
	}
	cJSON_AddItemToObject(doc, "variantShards", cJSON_Duplicate(m->shards_of, 1));
	cJSON_AddBoolToObject(doc, "toolchainDiffers", m->toolchain_differs);
	return doc;
}

/*
 * --move renames the shards' directories into the temporary. Each rename
 * is written first to the temporary's journal, MOVED_JOURNAL (NUL-ended
 * pairs: the shard directory's absolute path, the path inside the
 * temporary), so that a merge that fails, and a later merge that finds
 * the temporary of one that was killed, put every directory back before
 * removing the temporary: a merge --move refused or interrupted never
 * takes a variant away from its shard.
 */
#define MOVED_JOURNAL ".moved"

static int
journal_move(const char *tmp, const char *src, const char *rel)
{
	char *j = ab_path_join(tmp, MOVED_JOURNAL), *abs = ab_path_absolute(src);
	int fd = open(j, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600), e = 0;

	if (fd < 0 || ab_write_all(fd, abs, strlen(abs) + 1) < 0 || ab_write_all(fd, rel, strlen(rel) + 1) < 0) {
		ab_error_errno("cannot write '%s'", j);
		e = AB_EFAIL;
	}
	if (fd >= 0 && close(fd) < 0 && !e) {
		ab_error_errno("cannot write '%s'", j);
		e = AB_EFAIL;
	}
	free(j);
	free(abs);
	return e;
}

/*
 * The pairs of tmp's journal (src, rel, src, rel...), each proven before
 * anything is moved: the journal a regular file of this user's, mode
 * 0600; every rel a relative path without "..", tmp/rel inside tmp and
 * every src inside one of the shard directories (shards, absolute), both
 * without a symbolic link below them (lib/stale.h). -1 with why otherwise.
 */
static int
journal_pairs(struct ab_strv *pairs, const char *tmp, char *const *shards, size_t nshards, char *why, size_t whylen)
{
	char *j = ab_path_join(tmp, MOVED_JOURNAL), *tmpv[] = {(char *)tmp};
	struct ab_buf b = {0};
	int fd = -1, e = 0;

	if (!ab_path_exists(j))
		goto done;
	e = -1;
	if (ab_stale_own(j, AB_STALE_FILE, 1, why, whylen) < 0)
		goto done;
	fd = open(j, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0 || ab_read_fd_max(&b, fd, j, AB_READ_MAX) < 0) {
		snprintf(why, whylen, "its journal cannot be read");
		goto done;
	}
	for (size_t at = 0; at < b.len;) {
		const char *src = b.s + at, *end = b.s + b.len, *z = memchr(src, '\0', (size_t)(end - src));
		const char *rel = z ? z + 1 : end;
		char *dst;
		int bad;

		z = rel < end ? memchr(rel, '\0', (size_t)(end - rel)) : NULL;
		if (!z)
			break; /* a pair cut short by a kill: its rename never happened */
		at = (size_t)(z + 1 - b.s);
		dst = ab_path_join(tmp, rel);
		bad = !ab_path_is_safe_relative(rel) || ab_stale_inside(dst, tmpv, 1, why, whylen) < 0 ||
		    ab_stale_inside(src, shards, nshards, why, whylen) < 0;
		free(dst);
		if (bad) {
			if (!ab_path_is_safe_relative(rel))
				snprintf(why, whylen, "its journal names '%s', not a path inside it", rel);
			else {
				char *w = ab_strdup(why);

				snprintf(why, whylen, "its journal names '%s': %s", src, w);
				free(w);
			}
			goto done;
		}
		ab_strv_push(pairs, src);
		ab_strv_push(pairs, rel);
	}
	e = 0;
done:
	if (fd >= 0)
		close(fd);
	ab_buf_free(&b);
	free(j);
	return e;
}

/*
 * Put back what tmp's journal says was moved (a directory still in the
 * temporary whose shard has none there). 0 when tmp may be removed, -1
 * (reported) when it still holds something that could not be put back,
 * or its journal is not provably a merge's of these shards (then nothing
 * is moved).
 */
static int
restore_moves(const char *tmp, char *const *shards, size_t nshards)
{
	struct ab_strv pairs = {0};
	char why[PATH_MAX + 128];
	int e = 0;

	if (journal_pairs(&pairs, tmp, shards, nshards, why, sizeof(why)) < 0) {
		ab_warn("'%s': %s: left alone", tmp, why);
		return -1;
	}
	for (size_t i = 0; i + 1 < pairs.n; i += 2) {
		const char *src = pairs.v[i];
		char *dst = ab_path_join(tmp, pairs.v[i + 1]);

		if (ab_path_exists(dst) && !ab_path_exists(src)) {
			if (rename(dst, src) == 0) {
				ab_note("put '%s' back from the merge --move that did not finish", src);
			} else {
				ab_error_errno("cannot put '%s' back to '%s' (kept in '%s')", dst, src, tmp);
				e = -1;
			}
		}
		free(dst);
	}
	ab_strv_free(&pairs);
	return e;
}

/* move or copy src to dst (rel inside tmp) */
static int
transfer(const char *tmp, const char *rel, const char *src, const char *dst, int move)
{
	if (move) {
		if (journal_move(tmp, src, rel) < 0)
			return AB_EFAIL;
		if (rename(src, dst) == 0)
			return 0;
		if (errno != EXDEV) {
			ab_error_errno("cannot move '%s' to '%s'", src, dst);
			return AB_EFAIL;
		}
	}
	return ab_copy_tree(src, dst);
}

/*
 * Each variant's directory from its first shard; then each artifact not
 * there (a relink's output lies in its from variant's directory, which
 * may come from another shard) from the shard of its own variant
 */
static int
fill(struct merge *m, const char *tmp)
{
	const struct ab_plan *p = m->plan;
	char *vdir = ab_path_join(tmp, "variants");
	int e = 0;

	if (mkdir(vdir, 0755) < 0) {
		ab_error_errno("cannot create '%s'", vdir);
		free(vdir);
		return AB_EFAIL;
	}
	free(vdir);
	for (size_t vi = 0; vi < p->nvars && !e; vi++) {
		char *rel = ab_sprintf("variants/%s", p->vars[vi].v->label);
		char *src = ab_path_join(m->sh[m->from[vi]].dir, rel), *dst = ab_path_join(tmp, rel);

		if (ab_is_dir(src))
			e = transfer(tmp, rel, src, dst, m->o->move);
		free(rel);
		free(src);
		free(dst);
	}
	for (size_t vi = 0; vi < p->nvars && !e; vi++) {
		const struct ab_variant_record *r = m->rec[vi];

		for (size_t k = 0; k < r->nartifacts && !e; k++) {
			char *dst = ab_path_join(tmp, r->artifacts[k].path), *src, *dir;

			if (ab_path_exists(dst)) {
				free(dst);
				continue;
			}
			src = ab_path_join(m->sh[m->from[vi]].dir, r->artifacts[k].path);
			dir = ab_path_dirname(dst);
			e = ab_mkdir_p(dir, 0755);
			if (!e)
				e = ab_copy_file(src, dst);
			free(dir);
			free(src);
			free(dst);
		}
	}
	/* the recipe's neighbours each shard read: the same names have the same bytes (their pins) */
	for (size_t i = 0; i < m->o->nshards && !e; i++)
		e = ab_inputs_merge(&m->inputs, tmp, m->sh[i].dir);
	/* the compiler wrapper's links, which the reproducible records name */
	if (!e) {
		char *src = ab_path_join(m->sh[0].dir, "ccwrap"), *dst = ab_path_join(tmp, "ccwrap");

		if (ab_is_dir(src))
			e = ab_copy_tree(src, dst);
		free(src);
		free(dst);
	}
	return e;
}

/* the earliest startedOn of the shards (ISO 8601 UTC strings order as times) */
static const char *
earliest_start(const struct merge *m)
{
	const char *t = NULL;

	for (size_t i = 0; i < m->o->nshards; i++) {
		const char *s = ab_json_str(metadata(&m->sh[i]), "startedOn");

		if (s && (!t || strcmp(s, t) < 0))
			t = s;
	}
	return t ? t : "";
}

/*
 * The temporaries of merges into outdir that were killed, .NAME.merge-PID-XXXXXX
 * of a dead pid: each acted on only when it is provably one of ours
 * (lib/stale.h: this user's, mode 0700, not a link; its journal's every
 * path inside it or one of the shards); any other is named and left alone
 */
static void
clean_stale(const char *parent, const char *base, char *const *shards, size_t nshards)
{
	DIR *d = opendir(parent);
	struct dirent *de;
	char *prefix = ab_sprintf(".%s.merge-", base);
	size_t pl = strlen(prefix);

	while (d && (de = readdir(d))) {
		char *end, *path, why[160];
		long pid;

		if (strncmp(de->d_name, prefix, pl))
			continue;
		pid = strtol(de->d_name + pl, &end, 10);
		if (*end != '-' || !ab_stale_pid_dead(pid))
			continue;
		path = ab_path_join(parent, de->d_name);
		if (ab_stale_own(path, AB_STALE_DIR, 1, why, sizeof(why)) < 0)
			ab_warn("'%s' is named like the temporary of an interrupted merge but is not provably one "
			    "(%s): left alone", path, why);
		else if (restore_moves(path, shards, nshards) == 0)
			ab_rm_rf(path);
		free(path);
	}
	if (d)
		closedir(d);
	free(prefix);
}

static int
write_merged(struct merge *m, const char *target)
{
	const char *slash = strrchr(target, '/');
	char *parent = ab_path_dirname(target), *base = ab_strdup(slash ? slash + 1 : target);
	char *tmp = NULL, *recipe = ab_path_join(m->sh[0].dir, "recipe.json");
	struct ab_build_merged bm = {0};
	char *buf = NULL;
	size_t len = 0;
	FILE *out;
	int e;

	tmp = ab_sprintf("%s/.%s.merge-%ld-XXXXXX", parent, base, (long)getpid());
	if (!mkdtemp(tmp)) {
		ab_error_errno("cannot create a directory in '%s'", parent);
		e = AB_EFAIL;
		goto done;
	}
	/* 0700 (mkdtemp's) while it is a temporary: what proves it ours to the next merge (clean_stale) */
	if ((e = fill(m, tmp)) < 0)
		goto fail;
	bm.dir = tmp;
	bm.recipe_path = m->plan->r->path;
	bm.recipe_file = recipe;
	bm.started_on = earliest_start(m);
	bm.options = ab_json_get(m->sh[0].commands, "options");
	bm.toolchain = run_toolchain(&m->sh[0]);
	bm.merge = merge_record(m);
	bm.records = m->rec;
	bm.inputs = &m->inputs;
	e = ab_build_write_merged(m->plan, &bm);
	cJSON_Delete((cJSON *)bm.merge);
	if (e < 0)
		goto fail;
	/* what is renamed into place verifies, or nothing is */
	out = open_memstream(&buf, &len);
	if (!out) {
		ab_error_errno("cannot verify '%s'", tmp);
		e = AB_EFAIL;
		goto fail;
	}
	e = ab_manifest_verify(out, tmp);
	fclose(out);
	if (e < 0) {
		fputs(buf ? buf : "", stderr);
		ab_error("the merged directory '%s' fails verify", tmp);
		goto fail;
	}
	if (chmod(tmp, 0755) < 0) {
		ab_error_errno("cannot set the mode of '%s'", tmp);
		e = AB_EFAIL;
		goto fail;
	}
	if (rename(tmp, target) < 0) {
		ab_error_errno("cannot rename '%s' to '%s'", tmp, target);
		e = AB_EFAIL;
		goto fail;
	}
	/* merged: the journal of the moves goes (a kill before this leaves it, harmless, in OUTDIR) */
	{
		char *j = ab_path_join(target, MOVED_JOURNAL);

		unlink(j);
		free(j);
	}
	e = 0;
	goto done;
fail:
	if (restore_moves(tmp, m->shard_dirs.v, m->shard_dirs.n) == 0)
		ab_rm_rf(tmp);
done:
	free(buf);
	free(tmp);
	free(recipe);
	free(parent);
	free(base);
	return e;
}

int
ab_merge_run(const struct ab_merge_opts *o)
{
	struct merge m = {.o = o};
	struct ab_recipe *r = NULL;
	struct ab_plan_opts po = {0};
	char *target = NULL, *recipe = NULL;
	struct stat st;
	int e = 0;

	if (!o->nshards) {
		ab_error("no shard to merge");
		return AB_EFAIL;
	}
	target = ab_path_absolute(o->outdir);
	if (lstat(target, &st) == 0 || errno != ENOENT) {
		if (lstat(target, &st) == 0)
			ab_error("'%s' exists: merge writes a new OUTDIR", o->outdir);
		else
			ab_error_errno("cannot use '%s'", o->outdir);
		free(target);
		return AB_EFAIL;
	}
	/* first, as the shards are read: a killed merge --move may hold some of their directories */
	for (size_t i = 0; i < o->nshards; i++)
		ab_strv_push_owned(&m.shard_dirs, ab_path_absolute(o->shards[i]));
	{
		const char *slash = strrchr(target, '/');
		char *parent = ab_path_dirname(target);

		clean_stale(parent, slash ? slash + 1 : target, m.shard_dirs.v, m.shard_dirs.n);
		free(parent);
	}
	m.sh = ab_calloc(o->nshards, sizeof(*m.sh));
	for (size_t i = 0; i < o->nshards; i++) {
		for (size_t j = 0; j < i; j++)
			if (!strcmp(o->shards[i], o->shards[j])) {
				ab_error("'%s' is named twice", o->shards[i]);
				e = AB_EFAIL;
				goto done;
			}
		if ((e = shard_load(&m.sh[i], o->shards[i])) < 0)
			goto done;
	}
	if ((e = check_inputs(m.sh, o->nshards)) < 0)
		goto done;
	recipe = ab_path_join(m.sh[0].dir, "recipe.json");
	if (ab_recipe_load(&r, recipe) < 0) {
		e = AB_EFAIL;
		goto done;
	}
	/* the recipe as the shards name it (sources.json, the statement), not the copy it is read from */
	{
		const char *rp = ab_json_str(ab_json_get(ab_json_get(build_definition(&m.sh[0]), "externalParameters"),
		    "recipe"), "path");

		if (rp) {
			free(r->path);
			r->path = ab_strdup(rp);
		}
	}
	po.outdir = target;
	if (ab_plan_make(&m.plan, r, &po, NULL, 0) < 0) {
		e = AB_EFAIL;
		goto done;
	}
	/* every difference reported, then refused */
	e = collect_variants(&m);
	if (compare_run_toolchains(&m) < 0 && e == 0)
		e = AB_ECHECK;
	if (e < 0)
		goto done;
	if ((e = write_merged(&m, target)) < 0)
		goto done;
	ab_note("merged %zu shards into '%s': %zu variants", o->nshards, o->outdir, m.plan->nvars);
	for (size_t vi = 0; o->merged && vi < m.plan->nvars; vi++)
		ab_strv_push(o->merged, m.plan->vars[vi].v->label);
done:
	if (m.plan)
		for (size_t vi = 0; vi < m.plan->nvars && m.rec; vi++)
			ab_variant_record_free(m.rec[vi]);
	free(m.rec);
	free(m.from);
	cJSON_Delete(m.shards_of);
	ab_strv_free(&m.shard_dirs);
	ab_strv_free(&m.inputs);
	for (size_t i = 0; m.sh && i < o->nshards; i++)
		shard_release(&m.sh[i]);
	free(m.sh);
	ab_plan_free(m.plan);
	ab_recipe_free(r);
	free(recipe);
	free(target);
	return e;
}
