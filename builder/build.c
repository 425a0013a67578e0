/*
 * build: the run (builder/build.h's entry points): OUTDIR's lock, the
 * phases of a run in order, the scheduler that starts a worker thread per
 * variant to build (build_steps.c), and the run's context. The parts it
 * calls share builder/build_ctx.h.
 */

#include "build.h"
#include "build_ctx.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/atomic.h"
#include "../lib/dirwalk.h"
#include "../lib/hash.h"
#include "../lib/jsonio.h"
#include "../lib/jobserver.h"
#include "../lib/progress.h"
#include "../provenance/record/ccstats.h"
#include "../provenance/record/manifest.h"
#include "../provenance/record/objset.h"
#include "ccwrap.h"
#include "derive.h"

/* was p->vars[vi] compiled in this run (not up to date, not failed)? */
static int
compiled_now(const struct ctx *c, size_t vi)
{
	return c->vs[vi].status == V_BUILT && c->vs[vi].need_build;
}

/* ---- OUTDIR lock ---- */

int
ab_build_lock(int *fd, const char *outdir)
{
	char *path = ab_path_join(outdir, ".lock");
	char pid[32];
	int f;

	*fd = -1;
	f = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (f < 0) {
		ab_error_errno("cannot open lock '%s'", path);
		free(path);
		return AB_EFAIL;
	}
	if (flock(f, LOCK_EX | LOCK_NB) < 0) {
		struct ab_buf holder = {0};

		if (errno == EWOULDBLOCK) {
			if (ab_read_file(&holder, path) == 0 && holder.len && holder.s[holder.len - 1] == '\n')
				holder.s[--holder.len] = '\0';
			ab_error("output directory '%s' is locked by another build%s%s%s", outdir,
			    holder.len ? " (pid " : "", holder.len ? holder.s : "", holder.len ? ")" : "");
		} else {
			ab_error_errno("cannot lock '%s'", path);
		}
		ab_buf_free(&holder);
		close(f);
		free(path);
		return AB_EFAIL;
	}
	snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	/* the pid is only informative: a failure to record it is ignored */
	if (ftruncate(f, 0) == 0 && pwrite(f, pid, strlen(pid), 0) < 0)
		pid[0] = '\0';
	free(path);
	*fd = f;
	return 0;
}
/* ---- scheduling ---- */

/*
 * With --derive: a variant that starts from its lead's trees starts when the
 * lead has ended, never while it writes them; and a relink, which writes
 * into its from variant's build tree, waits until every variant deriving
 * from that tree has copied it (derive.c refuses a variant whose copy would
 * wait for such a relink)
 */
static int
derive_ready(const struct ctx *c, size_t vi)
{
	const struct ab_plan *p = c->p;
	const struct ab_plan_var *pv = &p->vars[vi];

	if (pv->derive_from != AB_PLAN_NONE) {
		enum var_status st = c->vs[pv->derive_from].status;

		return st != V_PENDING && st != V_RUNNING;
	}
	if (pv->v->kind != AB_VARIANT_RELINK || pv->from_vi == AB_PLAN_NONE)
		return 1;
	for (size_t k = 0; k < p->nvars; k++)
		if (p->vars[k].derive_from == pv->from_vi &&
		    (c->vs[k].status == V_PENDING || (c->vs[k].status == V_RUNNING && !c->vs[k].copied)))
			return 0;
	return 1;
}

static void
schedule(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	pthread_mutex_lock(&c->lock);
	for (;;) {
		int progress = 0;

		for (size_t vi = 0; vi < p->nvars; vi++) {
			const struct ab_plan_var *pv = &p->vars[vi];
			struct var_state *vs = &c->vs[vi];
			int ready = 1, dead = 0;
			void **arg;

			if (vs->status != V_PENDING)
				continue;
			for (size_t k = 0; k < pv->ndeps; k++) {
				enum var_status st = c->vs[pv->deps[k]].status;

				if (st == V_FAILED || st == V_SKIPPED)
					dead = 1;
				else if (st == V_PENDING || st == V_RUNNING)
					ready = 0;
			}
			if (dead) {
				vs->status = V_SKIPPED;
				ab_error("%s: skipped: a variant it depends on failed", pv->v->label);
				progress = 1;
				continue;
			}
			/* its lead first: a variant waiting for it must not hold the only slot */
			if (pv->lead != AB_PLAN_NONE && c->vs[pv->lead].status == V_PENDING)
				ready = 0;
			if (!derive_ready(c, vi))
				ready = 0;
			if (!ready || (c->failed && !c->o->keep_going))
				continue;
			if (pv->v->kind == AB_VARIANT_RUNTIME || !vs->need_build) {
				vs->status = vs->need_build ? V_BUILT : V_UPTODATE;
				progress = 1;
				continue;
			}
			if (c->running >= p->parallel)
				continue;
			arg = ab_malloc(2 * sizeof(*arg));
			arg[0] = c;
			arg[1] = (void *)(uintptr_t)vi;
			vs->status = V_RUNNING;
			if (pthread_create(&vs->thread, NULL, ab_build_worker, arg) != 0) {
				free(arg);
				ab_error("cannot start a thread for '%s'", pv->v->label);
				vs->status = V_FAILED;
				c->failed = 1;
				progress = 1;
				continue;
			}
			vs->joined = 0;
			c->running++;
			progress = 1;
		}
		if (progress)
			continue;
		if (c->running == 0)
			break;
		pthread_cond_wait(&c->cond, &c->lock);
	}
	for (size_t vi = 0; vi < p->nvars; vi++)
		if (c->vs[vi].status == V_PENDING) {
			c->vs[vi].status = V_SKIPPED;
			ab_error("%s: not built: stopped after a failure (use --keep-going)", p->vars[vi].v->label);
		}
	pthread_mutex_unlock(&c->lock);
	for (size_t vi = 0; vi < p->nvars; vi++)
		if (c->vs[vi].thread && !c->vs[vi].joined) {
			pthread_join(c->vs[vi].thread, NULL);
			c->vs[vi].joined = 1;
		}
}

/* ---- the run ---- */

static void
print_stats(double t0)
{
	struct rusage self, kids;
	double wall = ab_now() - t0, own, ch;

	if (!getenv("ALLOCBUILD_STATS") || getrusage(RUSAGE_SELF, &self) < 0 || getrusage(RUSAGE_CHILDREN, &kids) < 0)
		return;
	own = (double)self.ru_utime.tv_sec + (double)self.ru_utime.tv_usec / 1e6 +
	    (double)self.ru_stime.tv_sec + (double)self.ru_stime.tv_usec / 1e6;
	ch = (double)kids.ru_utime.tv_sec + (double)kids.ru_utime.tv_usec / 1e6 +
	    (double)kids.ru_stime.tv_sec + (double)kids.ru_stime.tv_usec / 1e6;
	ab_note("stats: wall %.3fs, own cpu %.3fs (%.2f%% of wall), children cpu %.3fs", wall, own,
	    wall > 0 ? 100.0 * own / wall : 0.0, ch);
}

void
ab_build_ctx_init(struct ctx *c, const struct ab_plan *p, const struct ab_build_opts *o)
{
	memset(c, 0, sizeof(*c));
	c->p = p;
	c->o = o;
	pthread_mutex_init(&c->lock, NULL);
	pthread_cond_init(&c->cond, NULL);
	pthread_mutex_init(&c->source_lock, NULL);
	c->vs = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*c->vs));
	c->fetched = ab_calloc(p->r->nsources + 1, sizeof(*c->fetched));
	ab_build_run_init(c);
}

void
ab_build_ctx_release(struct ctx *c)
{
	ab_run_record_release(&c->run);
	free(c->vs);
	for (size_t i = 0; c->fetched && i < c->p->r->nsources; i++)
		ab_fetch_record_free(c->fetched[i]);
	free(c->fetched);
	ab_toolchain_release(&c->tools);
	ab_jobserver_free(c->js);
	pthread_mutex_destroy(&c->lock);
	pthread_cond_destroy(&c->cond);
	pthread_mutex_destroy(&c->source_lock);
}

/*
 * The temporaries of lib/atomic that a killed run left where a build
 * writes: OUTDIR, its provenance/, each variant's directory and logs, a
 * relink's output directory. The lock is held, so no live writer is there.
 */
static void
clean_stale_temporaries(const struct ab_plan *p)
{
	char *prov = ab_path_join(p->outdir, "provenance");

	ab_atomic_clean_stale(p->outdir);
	ab_atomic_clean_stale(prov);
	free(prov);
	for (size_t vi = 0; vi < p->nvars; vi++) {
		const struct ab_plan_var *pv = &p->vars[vi];

		ab_atomic_clean_stale(pv->dir);
		ab_atomic_clean_stale(pv->logs);
		/* a copy of another variant's trees that a killed build left half made (builder/derive.h);
		   anything else of that name is named when the variant is built */
		ab_derive_clean(pv, 0);
		if (pv->v->kind == AB_VARIANT_RELINK) {
			const struct ab_plan_var *from = &p->vars[pv->from_vi];
			char *out = ab_path_join(from->build, pv->v->relink.output), *dir = ab_path_dirname(out);

			ab_atomic_clean_stale(dir);
			free(dir);
			free(out);
		}
	}
}

/*
 * Which local hits of the variants compiled in this run took an entry that
 * an earlier variant of the run stored, from their compile logs
 * (provenance/record/ccstats.h): into each one's ccache record
 */
static void
attribute_ccache(struct ctx *c)
{
	const struct ab_plan *p = c->p;
	cJSON **recs = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*recs));
	struct ab_buf *texts = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*texts));
	const char **logs = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*logs));

	for (size_t vi = 0; p->ccache && vi < p->nvars; vi++) {
		struct ab_variant_record *vr = ab_build_record_of(c, vi);
		char *log;

		if (!vr->ccache || !compiled_now(c, vi))
			continue;
		recs[vi] = vr->ccache;
		log = ab_path_join(p->vars[vi].logs, AB_CCWRAP_LOG);
		if (ab_path_exists(log) && ab_read_file(&texts[vi], log) == 0)
			logs[vi] = texts[vi].s;
		free(log);
	}
	if (p->ccache)
		ab_ccstats_attribute(recs, logs, p->nvars);
	for (size_t vi = 0; vi < p->nvars; vi++)
		ab_buf_free(&texts[vi]);
	free(texts);
	free(logs);
	free(recs);
}

/* a remote compile cache that failed a variant compiled in this run is said */
static void
warn_ccache(struct ctx *c)
{
	const struct ab_plan *p = c->p;

	for (size_t vi = 0; p->ccache && vi < p->nvars; vi++) {
		const struct ab_variant_record *vr = ab_build_record_of(c, vi);
		int failed;

		if (!vr->ccache || !compiled_now(c, vi) || !(failed = ab_ccstats_remote_failures(vr->ccache)))
			continue;
		ab_warn("%s: the remote cache %s was unreachable (%d ccache call%s could not use it): "
		    "built with the local cache only", vr->label,
		    c->run.options.ccache_remote ? c->run.options.ccache_remote : "(ccache.conf's)", failed,
		    failed == 1 ? "" : "s");
	}
}

/* ---- the objects of each variant, and variants of one source compared ---- */

/* is rel a regular file below the build tree ctx (never through a link)? */
static int
object_exists(void *ctx, const char *rel)
{
	char *path = ab_path_join(ctx, rel);
	struct stat st;
	int ok = lstat(path, &st) == 0 && S_ISREG(st.st_mode);

	free(path);
	return ok;
}

/* the static archives of a build tree: regular files named *.a, never through a link */
static int
archive_found(struct ab_dirwalk_entry *e, void *arg)
{
	size_t n = strlen(e->name);

	if (e->type == DT_DIR)
		return AB_DIRWALK_DESCEND;
	if (e->type == DT_REG && n > 2 && !strcmp(e->name + n - 2, ".a"))
		ab_strv_push(arg, e->path);
	return 0;
}

/*
 * The link inputs of a tree that no compile wrote: each static archive
 * its build made, hashed where it is (a tree sandboxed steps wrote: read
 * through no link out of it)
 */
static void
add_archives(struct ab_objset *s, const char *build)
{
	struct ab_strv found = {0};
	int rootfd = open(build, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	if (rootfd >= 0 && ab_dirwalk_fd(rootfd, build, archive_found, &found) == 0)
		for (size_t i = 0; i < found.n; i++) {
			char hex[AB_HEX_LEN + 1], why[AB_BENEATH_WHY];

			if (ab_hash_file_beneath(hex, NULL, rootfd, found.v[i], 0, why) == 0)
				ab_objset_add(s, found.v[i], hex);
		}
	if (rootfd >= 0)
		close(rootfd);
	ab_strv_free(&found);
}

/* do two build variants build the same source bytes with the same build system? */
static int
same_program(const struct ab_plan *p, const struct ab_plan_var *a, const struct ab_plan_var *b)
{
	const struct ab_source *sa = ab_recipe_source(p->r, a->v->source), *sb = ab_recipe_source(p->r, b->v->source);

	if (a->v->build.system != b->v->build.system || sa->kind != sb->kind)
		return 0;
	if (sa == sb)
		return 1;
	if (sa->kind == AB_SOURCE_GIT)
		return !strcmp(sa->url, sb->url) && !strcmp(sa->commit, sb->commit);
	if (sa->kind == AB_SOURCE_DIR)
		return !strcmp(sa->dirhash, sb->dirhash);
	return !strcmp(sa->sha256, sb->sha256) && sa->strip == sb->strip;
}

/* "6 identical, 3 differ (dir: 3, ...)" */
static void
note_comparison(const cJSON *cmp)
{
	struct ab_buf b = {0};
	const cJSON *d;
	int shown = 0, n = 0;

	cJSON_ArrayForEach(d, ab_json_get(cmp, "differ_by_directory"))
		n++;
	ab_buf_printf(&b, "objects %s / %s: %d identical, %d differ", ab_json_str(cmp, "a"), ab_json_str(cmp, "b"),
	    ab_json_get(cmp, "identical")->valueint, ab_json_get(cmp, "differ")->valueint);
	cJSON_ArrayForEach(d, ab_json_get(cmp, "differ_by_directory")) {
		if (shown == 4) {
			ab_buf_printf(&b, ", and %d more director%s", n - shown, n - shown == 1 ? "y" : "ies");
			break;
		}
		ab_buf_printf(&b, "%s%s: %d", shown ? ", " : " (", d->string, d->valueint);
		shown++;
	}
	ab_note("%s%s", b.s, shown ? ")" : "");
	ab_buf_free(&b);
}

/*
 * Each build variant's objects (the objects of its tree, from its compile
 * log: provenance/record/objset.h) into its record, and every pair of
 * variants of one program compared into the run record; the first of each
 * program against each other one said
 */
static void
compare_objects(struct ctx *c)
{
	const struct ab_plan *p = c->p;
	struct ab_objset *sets = ab_calloc(p->nvars + 1, sizeof(*sets));
	int *have = ab_calloc(p->nvars + 1, sizeof(*have));
	cJSON *all = NULL;

	for (size_t vi = 0; vi < p->nvars; vi++) {
		const struct ab_plan_var *pv = &p->vars[vi];
		struct ab_variant_record *vr = ab_build_record_of(c, vi);
		char *log = ab_path_join(pv->logs, AB_CCWRAP_LOG), hex[AB_HEX_LEN + 1];
		struct ab_buf text = {0};

		if (pv->v->kind == AB_VARIANT_BUILD && (c->vs[vi].status == V_BUILT || c->vs[vi].status == V_UPTODATE) &&
		    vr->compile_log && ab_path_exists(log) && ab_read_file(&text, log) == 0) {
			ab_objset_parse(&sets[vi], text.s, pv->in_build, object_exists, pv->build);
			add_archives(&sets[vi], pv->build);
			have[vi] = 1;
			ab_objset_digest(hex, &sets[vi]);
			cJSON_Delete(vr->objects);
			vr->objects = cJSON_CreateObject();
			cJSON_AddNumberToObject(vr->objects, "count", (double)sets[vi].paths.n);
			cJSON_AddStringToObject(vr->objects, "sha256", hex);
		}
		ab_buf_free(&text);
		free(log);
	}
	for (size_t i = 0; i < p->nvars; i++) {
		int first = 1;

		if (!have[i])
			continue;
		for (size_t k = 0; k < i && first; k++)
			first = !(have[k] && same_program(p, &p->vars[k], &p->vars[i]));
		for (size_t j = i + 1; j < p->nvars; j++) {
			cJSON *cmp;

			if (!have[j] || !same_program(p, &p->vars[i], &p->vars[j]))
				continue;
			cmp = ab_objset_compare(&sets[i], p->vars[i].v->label, &sets[j], p->vars[j].v->label);
			if (first)
				note_comparison(cmp);
			if (!all)
				all = cJSON_CreateArray();
			cJSON_AddItemToArray(all, cmp);
		}
	}
	cJSON_Delete(c->run.object_comparison);
	c->run.object_comparison = all;
	for (size_t vi = 0; vi < p->nvars; vi++)
		ab_objset_release(&sets[vi]);
	free(sets);
	free(have);
}

/* what the command shows of a build that ran to its end (cli/buildtable.c) */
static void
finish(struct ctx *c, const struct ab_build_opts *o)
{
	const struct ab_plan *p = c->p;
	int *compiled = ab_calloc(p->nvars ? p->nvars : 1, sizeof(*compiled));
	char *env = ab_path_join(p->outdir, AB_MANIFEST_ENVELOPES);
	struct ab_build_outcome out = {.plan = p, .run = &c->run, .compiled = compiled,
	    .signatures_removed = c->unsigned_, .signatures_kept = !c->unsigned_ && c->kept && ab_path_exists(env)};

	for (size_t vi = 0; vi < p->nvars; vi++)
		compiled[vi] = compiled_now(c, vi);
	o->finished(&out);
	free(compiled);
	free(env);
}

/* the phases of a build, in order; each reports its own failure */
static int
run_phases(struct ctx *c, int *probe_bad)
{
	const struct ab_plan *p = c->p;
	int e;

	clean_stale_temporaries(p);
	ab_progress_begin(p->nsteps);
	/* before anything runs a compiler through PATH, the toolchain's identity included */
	if (p->ccwrap && ab_ccwrap_install(p->ccwrap) < 0)
		return AB_EFAIL;
	if (ab_build_toolchain(c) < 0)
		return AB_EFAIL;
	if ((e = ab_build_fetch_unpinned(c)) < 0 || (e = ab_build_decide_all(c)) < 0 || (e = ab_build_fetch_needed(c)) < 0)
		return e;
	ab_build_record_fetched(c);
	if (p->jobserver && ab_jobserver_open(&c->js, p->jobserver) < 0)
		return AB_EFAIL;
	if (p->nnet && ab_netfwd_start(&c->net, p->net_dir, p->net, p->nnet) < 0)
		return AB_EFAIL;
	schedule(c);
	attribute_ccache(c);
	warn_ccache(c);
	ab_build_check_variants(c, probe_bad);
	compare_objects(c);
	ab_netfwd_stop(c->net);
	c->net = NULL;
	ab_build_link_records(c);
	if ((e = ab_build_write_states(c)) < 0 || (e = ab_build_write_manifests(c)) < 0)
		return e;
	return 0;
}

int
ab_build_run(const struct ab_plan *p, const struct ab_build_opts *o)
{
	struct ctx c;
	int lockfd = -1, probe_bad = 0, rc;
	mode_t old_umask;
	double t0 = ab_now();

	/* no sandbox, no build: never silently without it, and nothing written before saying so */
	if (p->sandbox && ab_sandbox_check() < 0)
		return AB_EFAIL;
	ab_build_ctx_init(&c, p, o);
	/* every child's umask, whatever the caller's: generated files and their modes do not vary */
	old_umask = umask(AB_CHILD_UMASK);
	rc = ab_mkdir_p(p->outdir, 0755) < 0 || (!o->have_lock && ab_build_lock(&lockfd, p->outdir) < 0) ||
	    (p->ccache_real && ab_mkdir_p(p->ccache_real, 0755) < 0) ? AB_EFAIL : 0;
	if (rc == 0)
		rc = run_phases(&c, &probe_bad);
	ab_progress_finish();
	if (rc == 0) {
		if (o->finished)
			finish(&c, o);
		rc = c.failed || probe_bad ? AB_ECHECK : 0;
		print_stats(t0);
	}
	ab_build_ctx_release(&c);
	if (lockfd >= 0)
		close(lockfd);
	umask(old_umask);
	return rc;
}
