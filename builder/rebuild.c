#include "rebuild.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../lib/hash.h"
#include "../lib/jsonio.h"
#include "../lib/proc.h"
#include "../lib/strmap.h"
#include "../lib/util.h"
#include "../lib/redact.h"
#include "../provenance/record/bundle.h"
#include "../provenance/record/manifest.h"
#include "../provenance/record/rebuildrec.h"
#include "../provenance/record/repro.h"
#include "../provenance/review/sign.h"
#include "build.h"
#include "inputs.h"
#include "plan.h"
#include "recipe.h"

/* no manifest of a build comes near this; a larger member is not one */
#define MAX_MEMBER (64u << 20)

#define RECORD "provenance/rebuild.intoto.json"

/* what the original build left: its recipe and manifests, from an OUTDIR or a bundle */
struct original {
	int bundle;
	struct ab_buf recipe;
	char statement_hex[AB_HEX_LEN + 1]; /* of its provenance/provenance.intoto.json: what records name */
	char bundle_hex[AB_HEX_LEN + 1];    /* of the bundle, when it is one */
	cJSON *binaries, *commands, *statement, *sources;
};

static void
original_release(struct original *g)
{
	ab_buf_free(&g->recipe);
	cJSON_Delete(g->binaries);
	cJSON_Delete(g->commands);
	cJSON_Delete(g->statement);
	cJSON_Delete(g->sources);
}

/* one file of the original (relative to the OUTDIR or the bundle's top) into b */
static int
read_member(struct ab_buf *b, const struct ab_rebuild_opts *o, const struct original *g, const char *rel)
{
	char *p;
	int e;

	if (g->bundle) {
		e = ab_bundle_read(b, o->from, rel, MAX_MEMBER);
		if (e > 0)
			ab_error("'%s' has no %s: not the evidence bundle of a build", o->from, rel);
		return e == 0 ? 0 : AB_EFAIL;
	}
	p = ab_path_join(o->from, rel);
	if (!ab_path_exists(p)) {
		ab_error("'%s' has no %s: not a built OUTDIR", o->from, rel);
		free(p);
		return AB_EFAIL;
	}
	e = ab_read_file(b, p);
	free(p);
	return e;
}

/* a compile log of the original, when it has one (a bundle carries them: they are in SHA256SUMS) */
struct original_reader {
	const struct ab_rebuild_opts *o;
	const struct original *g;
};

static int
read_original(void *ctx, const char *rel, struct ab_buf *out)
{
	const struct original_reader *r = ctx;
	char *p;
	int e;

	if (r->g->bundle)
		return ab_bundle_read(out, r->o->from, rel, MAX_MEMBER) == 0 ? 0 : -1;
	p = ab_path_join(r->o->from, rel);
	e = ab_path_exists(p) ? ab_read_file(out, p) : -1;
	free(p);
	return e < 0 ? -1 : 0;
}

static int
read_json(cJSON **out, const struct ab_rebuild_opts *o, const struct original *g, const char *rel, char *hex)
{
	struct ab_buf b = {0};
	int e = read_member(&b, o, g, rel);

	if (e == 0 && hex)
		ab_hash_buf(hex, b.s ? b.s : "", b.len);
	if (e == 0 && !(*out = cJSON_ParseWithLength(b.s ? b.s : "", b.len))) {
		ab_error("%s: %s: not JSON", o->from, rel);
		e = AB_EFAIL;
	}
	ab_buf_free(&b);
	return e;
}

/* the signed statements too, as `verify --key` checks them: AB_ECHECK when one does not verify */
static int
verify_signatures(const struct ab_rebuild_opts *o, int bundle)
{
	struct ab_sign_verify_opts so = {.keys = o->keys, .nkeys = o->nkeys, .require_all = o->require_all};
	struct ab_bundle_members m = {0};
	int e;

	if (!bundle)
		return ab_sign_verify_outdir(o->out, o->from, &so);
	e = ab_bundle_verify_keep(&m, o->from, ab_sign_is_signed_member);
	if (e == 0)
		e = ab_sign_verify_bundle(o->out, o->from, &m, &so);
	ab_bundle_members_free(&m);
	return e;
}

/* every digest of the input must hold before anything of it is believed */
static int
verify_input(const struct ab_rebuild_opts *o, struct original *g)
{
	struct stat st;
	int e;

	if (stat(o->from, &st) < 0) {
		ab_error_errno("cannot read '%s'", o->from);
		return AB_EFAIL;
	}
	g->bundle = !S_ISDIR(st.st_mode);
	if (g->bundle) {
		e = ab_bundle_verify(o->from);
	} else {
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);

		/* only its complaints are shown: they go with the error */
		e = f ? ab_manifest_verify(f, o->from) : AB_EFAIL;
		if (f)
			fclose(f);
		if (e == AB_ECHECK)
			fputs(buf, o->out);
		free(buf);
	}
	if (e == AB_ECHECK)
		ab_error("'%s' does not verify (above): a changed %s is not rebuilt", o->from,
		    g->bundle ? "bundle" : "OUTDIR");
	if (e < 0)
		return AB_EFAIL;
	if (o->nkeys && (e = verify_signatures(o, g->bundle)) < 0) {
		if (e == AB_ECHECK)
			ab_error("'%s': its signatures do not verify with the keys given (above): nothing of it is run",
			    o->from);
		return e;
	}
	return 0;
}

static int
load_original(struct original *g, const struct ab_rebuild_opts *o)
{
	const char *want, *stmt_want;
	char hex[AB_HEX_LEN + 1];
	int e = verify_input(o, g);

	if (e < 0)
		return e;
	if (read_member(&g->recipe, o, g, "recipe.json") < 0 ||
	    read_json(&g->binaries, o, g, "provenance/binary-provenance.json", NULL) < 0 ||
	    read_json(&g->commands, o, g, "provenance/build-commands.json", NULL) < 0 ||
	    read_json(&g->statement, o, g, "provenance/provenance.intoto.json", g->statement_hex) < 0 ||
	    read_json(&g->sources, o, g, "provenance/sources.json", NULL) < 0)
		return AB_EFAIL;
	if (g->bundle && ab_hash_file(g->bundle_hex, NULL, o->from) < 0)
		return AB_EFAIL;
	/* the recipe is the one the build recorded, digest for digest */
	ab_hash_buf(hex, g->recipe.s ? g->recipe.s : "", g->recipe.len);
	want = ab_json_str(ab_json_get(g->binaries, "recipe"), "sha256");
	stmt_want = ab_json_str(ab_json_get(ab_json_get(ab_json_get(ab_json_get(ab_json_get(g->statement, "predicate"),
	    "buildDefinition"), "externalParameters"), "recipe"), "digest"), "sha256");
	if (!want || !stmt_want || strcmp(want, hex) || strcmp(stmt_want, hex)) {
		ab_error("%s: recipe.json is not the recipe that was built: its sha256 is %s, the statement records %s",
		    o->from, hex, stmt_want ? stmt_want : "none");
		return AB_EFAIL;
	}
	return 0;
}

/* is name a file of inputs/ (builder/inputs.h)? */
static int
is_input(const char *name)
{
	return !strncmp(name, AB_INPUTS_DIR "/", sizeof(AB_INPUTS_DIR));
}

/* the inputs/ files an OUTDIR's SHA256SUMS lists, each read and checked against its line */
static int
outdir_inputs(struct ab_strv *names, struct ab_buf **bufs, int **exec, const struct ab_rebuild_opts *o)
{
	struct ab_manifest_recorded rec = {0};
	int e = ab_manifest_recorded_read(&rec, o->from, 0);

	for (size_t i = 0; e == 0 && i < rec.paths.n; i++) {
		const char *name = rec.paths.v[i];
		char *path, hex[AB_HEX_LEN + 1];
		struct ab_buf *b;
		struct stat st;

		if (!is_input(name))
			continue;
		path = ab_path_join(o->from, name);
		*bufs = ab_realloc(*bufs, (names->n + 1) * sizeof(**bufs));
		*exec = ab_realloc(*exec, (names->n + 1) * sizeof(**exec));
		b = &(*bufs)[names->n];
		memset(b, 0, sizeof(*b));
		(*exec)[names->n] = stat(path, &st) == 0 && ab_manifest_mode_exec(st.st_mode);
		ab_strv_push(names, name);
		e = ab_read_file(b, path);
		if (e == 0) {
			ab_hash_buf(hex, b->s ? b->s : "", b->len);
			if (strcmp(hex, rec.hexes.v[i])) {
				ab_error("'%s': %s changed since it was verified", o->from, name);
				e = AB_EFAIL;
			}
		}
		free(path);
	}
	ab_manifest_recorded_release(&rec);
	return e;
}

/*
 * Each file of inputs/ against the mode the build statement records for
 * it (AB_MANIFEST_MODE; a statement from before modes were recorded
 * records none): the rebuild lays the files out with their modes, so a
 * file whose mode is not the one built with is refused here, rather than
 * built and its failure taken for the original's. With --key the
 * statement's signature was checked, and with it the modes.
 */
static int
check_modes(const struct ab_rebuild_opts *o, const struct original *g, const struct ab_inputs_file *files, size_t n)
{
	const cJSON *byp = ab_json_get(ab_json_get(ab_json_get(g->statement, "predicate"), "runDetails"), "byproducts");
	const cJSON *it;
	struct ab_strmap recorded = {0};
	size_t i = 0, k;
	int e = 0;

	cJSON_ArrayForEach(it, byp) {
		const char *name = ab_json_str(it, "name");

		if (name)
			ab_strmap_put(&recorded, name, i);
		i++;
	}
	for (i = 0; i < n; i++) {
		const char *want = ab_strmap_get(&recorded, files[i].name, &k) ?
		    ab_json_str(ab_json_get(cJSON_GetArrayItem(byp, (int)k), "annotations"), AB_MANIFEST_MODE) : NULL;
		const char *have = ab_manifest_mode_name(files[i].exec);

		if (want && strcmp(want, have)) {
			char *shown = ab_shown(files[i].name), *w = ab_shown(want);

			ab_error("'%s': %s: its mode is %s, the build statement records %s: a changed %s is not rebuilt",
			    o->from, shown, have, w, g->bundle ? "bundle" : "OUTDIR");
			free(w);
			free(shown);
			e = AB_EFAIL;
		}
	}
	ab_strmap_free(&recorded);
	return e;
}

/*
 * The original's inputs/ (builder/inputs.h: its dir sources' trees and
 * patch files) laid out in a temporary directory *root, which becomes
 * r's directory: the rebuild reads the files the bundle carries, never
 * the author's at the recipe's recorded path. Nothing to do (and *root
 * NULL) when the original kept none.
 */
static int
restore_inputs(char **root, struct ab_recipe *r, const struct ab_rebuild_opts *o, const struct original *g)
{
	struct ab_bundle_members m = {0};
	struct ab_strv names = {0};
	struct ab_buf *bufs = NULL;
	struct ab_inputs_file *files = NULL;
	int *exec = NULL, e = AB_EFAIL;
	size_t n = 0;
	const char *tmp = getenv("TMPDIR");
	char *dir = NULL;

	*root = NULL;
	if (g->bundle) {
		/* read again, and verified again as it is read: the bytes laid out are the ones checked */
		if (ab_bundle_verify_keep(&m, o->from, is_input) != 0) {
			ab_error("'%s' does not verify: its inputs are not used", o->from);
			goto done;
		}
		files = ab_calloc(m.n + 1, sizeof(*files));
		for (size_t i = 0; i < m.n; i++)
			if (is_input(m.v[i].name))
				files[n++] = (struct ab_inputs_file){.name = m.v[i].name, .data = m.v[i].data.s,
				    .len = m.v[i].data.len, .exec = m.v[i].exec};
	} else {
		if (outdir_inputs(&names, &bufs, &exec, o) < 0)
			goto done;
		files = ab_calloc(names.n + 1, sizeof(*files));
		for (; n < names.n; n++)
			files[n] = (struct ab_inputs_file){.name = names.v[n], .data = bufs[n].s, .len = bufs[n].len,
			    .exec = exec[n]};
	}
	if (!n) {
		e = 0;
		goto done;
	}
	if (check_modes(o, g, files, n) < 0)
		goto done;
	*root = ab_sprintf("%s/allocbuild-rebuild-inputs-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(*root)) {
		ab_error_errno("cannot create '%s'", *root);
		free(*root);
		*root = NULL;
		goto done;
	}
	if (ab_inputs_restore(&dir, *root, files, n) < 0)
		goto done;
	free(r->dir);
	r->dir = dir;
	e = 0;
done:
	ab_bundle_members_free(&m);
	for (size_t i = 0; i < names.n; i++)
		ab_buf_free(&bufs[i]);
	free(bufs);
	free(exec);
	ab_strv_free(&names);
	free(files);
	return e;
}

/* unpinned git sources at the commits the original resolved */
static int
pin_sources(struct ab_recipe *r, const struct original *g)
{
	for (size_t i = 0; i < r->nsources; i++) {
		struct ab_source *s = &r->sources[i];
		const char *commit;

		if (s->kind != AB_SOURCE_GIT || !s->unpinned)
			continue;
		commit = ab_json_str(ab_json_get(ab_json_get(g->sources, "sources"), s->id), "commit");
		if (!commit || strlen(commit) != 40 || !ab_is_hex(commit, 40)) {
			ab_error("sources.json records no commit for the unpinned source '%s'", s->id);
			return AB_EFAIL;
		}
		free(s->commit);
		s->commit = ab_strdup(commit);
		s->unpinned = 0;
	}
	return 0;
}

/* the labels the original built (externalParameters.variants) */
static int
built_labels(struct ab_strv *out, const struct original *g)
{
	const cJSON *it, *vs = ab_json_get(ab_json_get(ab_json_get(ab_json_get(g->statement, "predicate"),
	    "buildDefinition"), "externalParameters"), "variants");

	cJSON_ArrayForEach(it, vs)
		if (cJSON_IsString(it))
			ab_strv_push(out, it->valuestring);
	if (!out->n) {
		ab_error("the statement names no variant that was built");
		return AB_EFAIL;
	}
	return 0;
}

static int
is_empty_dir(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	int empty = 1;

	if (!d)
		return 0;
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			empty = 0;
	closedir(d);
	return empty;
}


/* the record into an OUTDIR, under its lock */
static int
add_record(const char *outdir, const cJSON *st)
{
	int fd = -1, e = ab_build_lock(&fd, outdir);

	if (e == 0)
		e = ab_manifest_add_record(outdir, RECORD, st);
	if (fd >= 0)
		close(fd);
	return e;
}

/*
 * rebuild --json: {from, kind, dir, result (pass: every reproducible
 * artifact identical, or fail), summary, record, signed_record, artifacts
 * (the comparison's, as the record holds them)}
 */
static void
print_json(const struct ab_rebuild_opts *o, const struct original *g, const char *dir,
    const struct ab_repro_result *cmp)
{
	cJSON *doc = cJSON_CreateObject();
	char *record = ab_sprintf("%s/%s", dir, RECORD);
	char *env = o->nsign_keys ? ab_sprintf("%s/%s", dir, AB_REBUILDREC_ENVELOPE) : NULL;

	cJSON_AddStringToObject(doc, "from", o->from);
	cJSON_AddStringToObject(doc, "kind", g->bundle ? "bundle" : "OUTDIR");
	cJSON_AddStringToObject(doc, "dir", dir);
	cJSON_AddStringToObject(doc, "result", cmp->differ ? "fail" : "pass");
	cJSON_AddStringToObject(doc, "summary", cmp->summary);
	cJSON_AddStringToObject(doc, "record", record);
	cJSON_AddItemToObject(doc, "signed_record", env ? cJSON_CreateString(env) : cJSON_CreateNull());
	cJSON_AddItemToObject(doc, "artifacts", ab_repro_artifacts_json(cmp));
	ab_json_print(stdout, doc);
	cJSON_Delete(doc);
	free(record);
	free(env);
}

/* compare, report, record; AB_ECHECK when a reproducible artifact differs */
static int
compare_and_record(const struct ab_rebuild_opts *o, const struct original *g, const char *dir)
{
	struct ab_repro_docs rd = {0};
	struct ab_repro_result cmp = {0};
	cJSON *st;
	struct original_reader rr = {o, g};
	cJSON *compiles = ab_repro_compile_logs(g->commands, read_original, &rr);
	struct ab_repro_side a = {.where = o->from, .outdir = g->bundle ? NULL : o->from,
		.binaries = g->binaries, .commands = g->commands, .statement = g->statement, .compiles = compiles};
	struct ab_repro_side b = {0};
	int e, differ;

	if (ab_repro_side_read(&b, &rd, dir) < 0) {
		e = AB_EFAIL;
		goto done;
	}
	ab_repro_compare(&cmp, &a, &b);
	differ = cmp.differ + cmp.differ_expected;
	/* diffoscope explains the first artifact that differs (every one with --diffoscope) */
	if (differ) {
		char *from = ab_path_absolute(o->from);
		struct ab_repro_diffoscope dopt = {.a_root = from, .b_root = dir, .dir = dir,
			.timeout = o->diffoscope_timeout, .all = o->diffoscope};

		if (g->bundle)
			ab_note("diffoscope: the bundle holds no artifacts to compare with: not run");
		else
			ab_repro_diffoscope(&cmp, &dopt);
		free(from);
	}
	fprintf(o->out, "rebuild of %s in %s\n", o->from, dir);
	ab_repro_print(o->out, &cmp);
	ab_repro_print_diffoscope(o->out, &cmp, dir);
	differ = cmp.differ;
	if (!g->bundle) {
		cJSON *mine = ab_repro_statement(AB_REPRO_REBUILD_TYPE, &cmp, &a, &b, 0);

		ab_rebuildrec_identify(mine, g->statement_hex, NULL, b.commands);
		e = add_record(o->from, mine);
		cJSON_Delete(mine);
		if (e < 0)
			goto done;
	}
	st = ab_repro_statement(AB_REPRO_REBUILD_TYPE, &cmp, &a, &b, 1);
	cJSON_AddStringToObject(ab_json_get(st, "predicate"), "from", g->bundle ? "bundle" : "outdir");
	ab_rebuildrec_identify(st, g->statement_hex, g->bundle ? g->bundle_hex : NULL, b.commands);
	e = add_record(dir, st);
	if (e == 0 && o->nsign_keys) {
		e = ab_rebuildrec_sign(dir, o->sign_keys, o->nsign_keys);
		if (e == 0)
			fprintf(o->out, "signed record: %s/%s\n", dir, AB_REBUILDREC_ENVELOPE);
	}
	if (e == 0 && differ)
		e = AB_ECHECK;
	if (e != AB_EFAIL && o->json)
		print_json(o, g, dir, &cmp);
	cJSON_Delete(st);
done:
	ab_repro_result_release(&cmp);
	ab_repro_docs_release(&rd);
	cJSON_Delete(compiles);
	return e;
}

/*
 * ccache for the rebuild: as the original compiled, with an empty cache of
 * its own, when ccache changes the bytes of a variant of this recipe
 * (ab_plan_ccache_changes_bytes); else none
 */
static int
rebuild_ccache(struct ab_plan_opts *po, char **cache, const struct original *g, const struct ab_recipe *r,
    struct ab_strv labels)
{
	struct ab_plan *probe = NULL;
	int used = cJSON_IsTrue(ab_json_get(ab_json_get(g->commands, "options"), "ccache"));

	*cache = NULL;
	if (used) {
		if (ab_plan_make(&probe, r, po, labels.v, labels.n) < 0)
			return AB_EFAIL;
		used = ab_plan_ccache_changes_bytes(probe);
		ab_plan_free(probe);
	}
	return ab_plan_opts_fresh_ccache(po, cache, used);
}

/* one command as an argv list, ["sh","-c","..."], what it shows redacted */
static void
print_argv(FILE *f, const char *label, const char *what, char *const *argv, const char *cwd)
{
	cJSON *a = cJSON_CreateArray();
	struct ab_strv shown = {0};
	char *text;

	ab_redact_argv(&shown, argv);
	for (size_t i = 0; i < shown.n; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(shown.v[i]));
	ab_strv_free(&shown);
	text = cJSON_PrintUnformatted(a);
	fprintf(f, "  %s: %s %s\n", label, what, text);
	if (cwd)
		fprintf(f, "      in %s\n", cwd);
	cJSON_free(text);
	cJSON_Delete(a);
}

struct print_prepare {
	FILE *f;
	const char *label;
};

static int
print_prepare(void *arg, const struct ab_source *s, const struct ab_overlay *via, int depth)
{
	struct print_prepare *pp = arg;

	(void)via;
	(void)depth;
	for (size_t i = 0; i < s->nprepare; i++)
		print_argv(pp->f, pp->label, "prepare", s->prepare[i].v, NULL);
	return 0;
}

/* where a source's bytes come from: what its build system then runs */
static void
print_source(FILE *f, const struct ab_source *s)
{
	char *url = ab_url_redact(s->kind == AB_SOURCE_GIT ? s->url : s->kind == AB_SOURCE_ARCHIVE && s->urls.n ?
	    s->urls.v[0] : "");

	if (s->kind == AB_SOURCE_GIT)
		fprintf(f, "  source %s: git %s %s\n", s->id, url, s->commit);
	else if (s->kind == AB_SOURCE_DIR)
		fprintf(f, "  source %s: dir %s dirHash %s\n", s->id, s->dir, s->dirhash);
	else
		fprintf(f, "  source %s: archive %s sha256 %s\n", s->id, url, s->sha256);
	free(url);
}

static void
print_env(FILE *f, const char *label, const struct ab_kvlist *env)
{
	for (size_t k = 0; k < env->n; k++) {
		char *kv = ab_sprintf("%s=%s", env->v[k].key, env->v[k].value);
		char *shown = ab_redact_env(kv);

		fprintf(f, "  %s: env %s\n", label, shown);
		free(shown);
		free(kv);
	}
}

/* what a rebuild of p runs that the bundle's recipe chose: prepare commands, configure and build argv, env */
static void
print_commands(FILE *f, const struct ab_plan *p)
{
	const struct ab_plan_var *env_shown = NULL;

	for (size_t i = 0; i < p->nsteps; i++) {
		const struct ab_step *s = &p->steps[i];
		const struct ab_plan_var *pv = ab_plan_step_var(p, s);
		const char *label = pv ? pv->v->label : "-";

		if (s->kind == AB_STEP_FETCH) {
			print_source(f, s->source);
		} else if (s->kind == AB_STEP_SOURCE || s->kind == AB_STEP_UPSTREAM) {
			struct print_prepare pp = {.f = f, .label = label};

			ab_recipe_overlay_walk(p->r, s->source, NULL, print_prepare, &pp);
		} else if (s->kind == AB_STEP_CONFIGURE || s->kind == AB_STEP_BUILD) {
			if (env_shown != pv)
				print_env(f, label, &pv->v->build.env);
			env_shown = pv;
			print_argv(f, label, s->kind == AB_STEP_CONFIGURE ? "configure" : "build",
			    ab_strv_argv((struct ab_strv *)&s->argv), s->cwd);
		}
	}
}

/*
 * A bundle whose signatures were not checked: what it will run is shown,
 * and it runs only with --trust-unsigned or a yes on the terminal
 */
static int
consent(const struct ab_rebuild_opts *o, const struct ab_plan *p)
{
	fprintf(o->out, "'%s' is not checked against a signer's key (--key PUB.pem): rebuilding it runs these commands "
	    "of its recipe, as you, on this machine%s:\n", o->from, p->sandbox ? ", in the build sandbox (no network, "
	    "none of your files but the rebuild's directory; docs/build.md, \"Sandbox\")" : "");
	print_commands(o->out, p);
	fflush(o->out);
	if (o->trust_unsigned || (o->confirm && o->confirm()))
		return 0;
	ab_error("'%s': refusing to run the commands of an unverified bundle: give the signer's public key "
	    "(--key PUB.pem), or --trust-unsigned once you have read them (above)", o->from);
	return AB_EFAIL;
}

int
ab_rebuild_run(const struct ab_rebuild_opts *opts)
{
	struct ab_rebuild_opts copy = *opts;
	const struct ab_rebuild_opts *o = &copy;
	struct original g = {0};
	struct ab_recipe *r = NULL;
	struct ab_plan *p = NULL;
	struct ab_strv labels = {0};
	struct ab_plan_opts po = {0};
	struct ab_build_opts bo = {0};
	const char *name = NULL;
	char *dir = NULL, *cache = NULL, *inputs = NULL;
	int e = AB_EFAIL, built;

	if (!copy.out)
		copy.out = stdout;
	if ((e = load_original(&g, o)) < 0)
		goto done;
	e = AB_EFAIL;
	/* patches are read where the original recipe named them: its recorded path */
	name = ab_json_str(ab_json_get(g.binaries, "recipe"), "path");
	if (ab_recipe_parse(&r, name ? name : "recipe.json", g.recipe.s ? g.recipe.s : "", g.recipe.len, NULL) < 0 ||
	    pin_sources(r, &g) < 0 || built_labels(&labels, &g) < 0 || restore_inputs(&inputs, r, o, &g) < 0)
		goto done;
	dir = o->outdir ? ab_path_absolute(o->outdir) : ab_sprintf("%s/%s", AB_REBUILD_DEFAULT_DIR, r->name);
	if (ab_path_exists(dir) && !is_empty_dir(dir)) {
		ab_error("'%s' exists and is not empty: a rebuild goes into a fresh directory", dir);
		goto done;
	}
	po.outdir = dir;
	po.jobs = o->jobs;
	/* in the sandbox as the original was (a record from before the sandbox: without it) */
	po.no_sandbox = !cJSON_IsTrue(ab_json_get(ab_json_get(g.commands, "options"), "sandbox"));
	/* compiled through ccache as the original was when that changes the bytes, nothing taken from a cache */
	if (rebuild_ccache(&po, &cache, &g, r, labels) < 0 || ab_plan_make(&p, r, &po, labels.v, labels.n) < 0)
		goto done;
	if (g.bundle && !o->nkeys && consent(o, p) < 0)
		goto done;
	bo.src = o->src;
	bo.force = 1;
	built = ab_build_run(p, &bo);
	if (built == AB_EFAIL)
		goto done;
	e = compare_and_record(o, &g, p->outdir);
	if (e == 0 && built < 0)
		e = built;
done:
	original_release(&g);
	ab_recipe_free(r);
	ab_plan_free(p);
	ab_strv_free(&labels);
	if (cache && ab_rm_rf(cache) < 0 && e == 0)
		e = AB_EFAIL;
	if (inputs && ab_rm_rf(inputs) < 0 && e == 0)
		e = AB_EFAIL;
	free(inputs);
	free(cache);
	free(dir);
	return e;
}
