#include "pr.h"

#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "../../lib/atomic.h"
#include "../../lib/util.h"
#include "../record/bundle.h"
#include "challenge.h"
#include "../compare/compare.h"
#include "../../lib/jsonio.h"
#include "../record/manifest.h"
#include "notes.h"
#include "policy.h"
#include "policycheck.h"
#include "../runs/runrec.h"
#include "sign.h"
#include "../attest/intoto.h"
#include "vsa.h"

/*
 * What pr.md is made from: the manifests of one OUTDIR, nothing else. The
 * variants are build-commands.json's (each with the recipe's definition of
 * it), the sources sources.json's (each with its patches and overlays).
 */
struct evidence {
	const char *outdir;
	struct ab_manifest_recorded rec; /* what the build recorded: nothing else is read */
	const char *name;     /* the recipe's */
	cJSON *sources, *commands, *binaries, *probes, *updiff, *cmake, *relink, *statement;
	cJSON *check, *rebuild; /* the records of build --check and rebuild, when there are */
	struct ab_comparison *runs; /* the runs' comparison, when there are runs */
};

/* a member by dotted path ("a.b.c"), NULL when any step is missing */
static const cJSON *
jget(const cJSON *o, const char *path)
{
	char key[128];

	while (o && *path) {
		size_t n = strcspn(path, ".");

		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		o = ab_json_get(o, key);
		path += n;
		if (*path == '.')
			path++;
	}
	return o;
}

static const char *
jstr(const cJSON *o, const char *path)
{
	const cJSON *v = jget(o, path);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* the same, dflt when it is missing */
static const char *
jstr_or(const cJSON *o, const char *path, const char *dflt)
{
	const char *s = jstr(o, path);

	return s ? s : dflt;
}

/* the entry of a manifest's "variants" for label: an object keyed by label, or an array of {label} */
static const cJSON *
for_label(const cJSON *doc, const char *label)
{
	const cJSON *vs = jget(doc, "variants"), *it;

	if (cJSON_IsObject(vs))
		return ab_json_get(vs, label);
	cJSON_ArrayForEach(it, vs) {
		const char *l = jstr(it, "label");

		if (l && !strcmp(l, label))
			return it;
	}
	return NULL;
}

/*
 * What of s may be written to pr.md: newlines as spaces (one line of a
 * table or a list), every other control character escaped as on a
 * terminal (ab_shown); caller frees
 */
static char *
shown_line(const char *s)
{
	char *flat = ab_strdup(s ? s : ""), *out;

	for (char *p = flat; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	out = ab_shown(flat);
	free(flat);
	return out;
}

/* text for a table cell or a line: no pipes, no newlines, no raw HTML, no control characters */
static void
put_text(struct ab_buf *b, const char *text)
{
	char *shown = shown_line(text);

	for (const char *s = shown; *s; s++) {
		switch (*s) {
		case '|': ab_buf_puts(b, "\\|"); break;
		case '<': ab_buf_puts(b, "&lt;"); break;
		case '>': ab_buf_puts(b, "&gt;"); break;
		case '&': ab_buf_puts(b, "&amp;"); break;
		case '\n': case '\r': ab_buf_putc(b, ' '); break;
		case '*': case '_': case '`': case '[': case ']': case '\\':
			ab_buf_putc(b, '\\');
			ab_buf_putc(b, *s);
			break;
		default: ab_buf_putc(b, *s);
		}
	}
	free(shown);
}

/* a value as an inline code span, safe inside a table cell */
static void
put_code(struct ab_buf *b, const char *text)
{
	char *shown = shown_line(text);
	const char *fence = strchr(shown, '`') ? "`` " : "`";
	const char *close = strchr(shown, '`') ? " ``" : "`";

	ab_buf_puts(b, fence);
	for (const char *s = shown; *s; s++) {
		if (*s == '|')
			ab_buf_puts(b, "\\|");
		else
			ab_buf_putc(b, *s);
	}
	ab_buf_puts(b, close);
	free(shown);
}

/* a value as <code> inside HTML (a <summary>, where GitHub shows backticks as they are) */
static void
put_html_code(struct ab_buf *b, const char *text)
{
	char *shown = shown_line(text);

	ab_buf_puts(b, "<code>");
	for (const char *s = shown; *s; s++) {
		switch (*s) {
		case '<': ab_buf_puts(b, "&lt;"); break;
		case '>': ab_buf_puts(b, "&gt;"); break;
		case '&': ab_buf_puts(b, "&amp;"); break;
		case '"': ab_buf_puts(b, "&quot;"); break;
		default: ab_buf_putc(b, *s);
		}
	}
	ab_buf_puts(b, "</code>");
	free(shown);
}

/* a fenced code block of text (lines already escaped): the fence longer than any run of backticks in it */
static void
put_fenced(struct ab_buf *b, const char *info, const char *text)
{
	size_t run = 0, longest = 0, fence;

	for (const char *s = text; *s; s++) {
		run = *s == '`' ? run + 1 : 0;
		if (run > longest)
			longest = run;
	}
	fence = longest >= 3 ? longest + 1 : 3;
	for (size_t i = 0; i < fence; i++)
		ab_buf_putc(b, '`');
	ab_buf_puts(b, info);
	ab_buf_putc(b, '\n');
	ab_buf_puts(b, text);
	for (size_t i = 0; i < fence; i++)
		ab_buf_putc(b, '`');
	ab_buf_putc(b, '\n');
}

/* one line of a fenced block: the n words escaped, between the n + 1 separators */
static void
put_line_shown(struct ab_buf *b, const char *const *words, size_t n, const char *const *seps)
{
	for (size_t i = 0; i < n; i++) {
		char *w = ab_shown(words[i]);

		ab_buf_puts(b, seps[i]);
		ab_buf_puts(b, w);
		free(w);
	}
	ab_buf_puts(b, seps[n]);
}

static void
put_short_hash(struct ab_buf *b, const char *hex)
{
	char s[13];

	if (!hex) {
		ab_buf_puts(b, "–");
		return;
	}
	snprintf(s, sizeof(s), "%.12s", hex);
	put_code(b, s);
}

/* a manifest the build recorded (listed in SHA256SUMS), else none, whatever lies in OUTDIR under its name */
static int
load_optional(cJSON **out, const struct evidence *e, const char *name)
{
	char *rel = ab_sprintf("provenance/%s", name);
	char *p = ab_path_join(e->outdir, rel);
	int rc = 0;

	*out = NULL;
	if (ab_strv_has(&e->rec.paths, rel))
		rc = ab_json_read(out, p);
	free(p);
	free(rel);
	return rc;
}

/*
 * pr describes only an OUTDIR that verifies: every manifest and log it
 * reads or packs is one the build recorded, with the digest recorded.
 * AB_ECHECK (each problem reported) when it does not.
 */
static int
verify_outdir(const char *outdir)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	int rc;

	if (!f) {
		ab_error_errno("pr: cannot verify '%s'", outdir);
		return AB_EFAIL;
	}
	rc = ab_manifest_verify(f, outdir);
	fclose(f);
	if (rc == AB_ECHECK) {
		for (const char *s = text; s && *s;) {
			size_t n = strcspn(s, "\n");

			ab_error("pr: %.*s", (int)n, s);
			s += n + (s[n] == '\n');
		}
		ab_error("pr: '%s' does not verify ('allocbuild verify %s'): nothing written", outdir, outdir);
	}
	free(text);
	return rc;
}

/* the runs' comparison, as `allocbuild compare` makes it, when SHA256SUMS lists a run record */
static int
load_runs(struct evidence *e)
{
	struct ab_compare_opts co = {.outdir = e->outdir, .seed = AB_COMPARE_SEED, .resamples = AB_COMPARE_RESAMPLES,
	    .threshold = AB_COMPARE_THRESHOLD};

	for (size_t i = 0; i < e->rec.paths.n; i++)
		if (ab_runrec_is_statement(e->rec.paths.v[i]))
			return ab_compare_load(&e->runs, &co);
	return 0;
}

static int
load_evidence(struct evidence *e, const char *outdir)
{
	char *rp = ab_sprintf("%s/recipe.json", outdir);
	int rc = AB_EFAIL;

	memset(e, 0, sizeof(*e));
	e->outdir = outdir;
	if (!ab_path_exists(rp)) {
		ab_error("pr: '%s' has no recipe.json: not an allocbuild output directory", outdir);
		goto done;
	}
	if ((rc = verify_outdir(outdir)) < 0 || (rc = ab_manifest_recorded_read(&e->rec, outdir, 0)) < 0)
		goto done;
	rc = AB_EFAIL;
	{
		char *need[] = {"binary-provenance.json", "provenance.intoto.json"};

		for (size_t i = 0; i < AB_NELEM(need); i++) {
			char *p = ab_sprintf("%s/provenance/%s", outdir, need[i]);
			int missing = !ab_path_exists(p);

			free(p);
			if (missing) {
				ab_error("pr: '%s' has no provenance/%s: run 'allocbuild build' first", outdir, need[i]);
				goto done;
			}
		}
	}
	if (load_optional(&e->sources, e, "sources.json") < 0 ||
	    load_optional(&e->commands, e, "build-commands.json") < 0 ||
	    load_optional(&e->binaries, e, "binary-provenance.json") < 0 ||
	    load_optional(&e->probes, e, "allocator-probes.json") < 0 ||
	    load_optional(&e->updiff, e, "upstream-diff.json") < 0 ||
	    load_optional(&e->cmake, e, "cmake-cache-provenance.json") < 0 ||
	    load_optional(&e->relink, e, "relink-provenance.json") < 0 ||
	    load_optional(&e->statement, e, "provenance.intoto.json") < 0 ||
	    load_optional(&e->check, e, "reproducibility.intoto.json") < 0 ||
	    load_optional(&e->rebuild, e, "rebuild.intoto.json") < 0)
		goto done;
	e->name = jstr(e->binaries, "recipe.name");
	if (!e->name) {
		ab_error("pr: '%s/provenance/binary-provenance.json' names no recipe", outdir);
		goto done;
	}
	rc = load_runs(e);
done:
	free(rp);
	return rc;
}

static void
release_evidence(struct evidence *e)
{
	cJSON_Delete(e->sources);
	cJSON_Delete(e->commands);
	cJSON_Delete(e->binaries);
	cJSON_Delete(e->probes);
	cJSON_Delete(e->updiff);
	cJSON_Delete(e->cmake);
	cJSON_Delete(e->relink);
	cJSON_Delete(e->statement);
	cJSON_Delete(e->check);
	cJSON_Delete(e->rebuild);
	ab_compare_free(e->runs);
	ab_manifest_recorded_release(&e->rec);
}

/* the variants of the build, in the order it built them (build-commands.json) */
static const cJSON *
variants(const struct evidence *e)
{
	return jget(e->commands, "variants");
}

static int
is_kind(const cJSON *v, const char *kind)
{
	const char *k = jstr(v, "kind");

	return k && !strcmp(k, kind);
}

static const char *
kind_words(const cJSON *v)
{
	if (is_kind(v, "relink"))
		return "diagnostic relink";
	if (is_kind(v, "runtime_of"))
		return "runtime only";
	return "normal build";
}

/* the variant that built v's binary: v, or its runtime_of's, followed to the end */
static const cJSON *
base_of(const struct evidence *e, const cJSON *v)
{
	for (int guard = cJSON_GetArraySize(variants(e)); v && is_kind(v, "runtime_of") && guard > 0; guard--) {
		const cJSON *b = for_label(e->commands, jstr(v, "definition.runtime_of"));

		if (!b)
			break;
		v = b;
	}
	return v;
}

/* the probe record of a label (allocator-probes.json) */
static const cJSON *
probe_of(const struct evidence *e, const char *label)
{
	const cJSON *p = for_label(e->probes, label);

	return p ? jget(p, "probe") : NULL;
}

/* the first artifact record of the binary of label (binary-provenance.json) */
static const cJSON *
artifact_of(const struct evidence *e, const char *label)
{
	const cJSON *arts = jget(for_label(e->binaries, label), "artifacts");

	return cJSON_IsArray(arts) ? cJSON_GetArrayItem(arts, 0) : NULL;
}

/* one more code span in a list separated by spaces; *any counts the spans */
static void
put_word(struct ab_buf *b, int *any, const char *s)
{
	if ((*any)++)
		ab_buf_puts(b, " ");
	put_code(b, s);
}

/* how the binary of a variant was made: a relink's replacements, else the configure options or defines */
static void
put_options(struct ab_buf *b, const cJSON *base)
{
	const cJSON *def = jget(base, "definition"), *it;
	int any = 0;

	if (is_kind(base, "relink")) {
		ab_buf_puts(b, "relink of ");
		put_code(b, jstr_or(def, "relink.from", "?"));
		cJSON_ArrayForEach(it, jget(def, "relink.replace")) {
			ab_buf_puts(b, ", ");
			put_code(b, jstr_or(it, "path", "?"));
			ab_buf_puts(b, " → ");
			put_code(b, jstr_or(it, "with.variant", "?"));
		}
		return;
	}
	cJSON_ArrayForEach(it, jget(def, "build.configure"))
		if (cJSON_IsString(it))
			put_word(b, &any, it->valuestring);
	cJSON_ArrayForEach(it, jget(def, "build.defines")) {
		char *d = ab_sprintf("-D%s=%s", it->string, cJSON_IsString(it) ? it->valuestring : "");

		put_word(b, &any, d);
		free(d);
	}
	if (!any)
		ab_buf_puts(b, "–");
}

static void
put_runtime(struct ab_buf *b, const cJSON *v)
{
	const cJSON *it;
	int any = 0;

	cJSON_ArrayForEach(it, jget(v, "definition.runtime.env")) {
		char *kv = ab_sprintf("%s=%s", it->string, cJSON_IsString(it) ? it->valuestring : "");

		put_word(b, &any, kv);
		free(kv);
	}
	cJSON_ArrayForEach(it, jget(v, "definition.runtime.unset")) {
		char *u = ab_sprintf("unset %s", cJSON_IsString(it) ? it->valuestring : "");

		put_word(b, &any, u);
		free(u);
	}
	if (!any)
		ab_buf_puts(b, "–");
}

/* the allocator's version: the probe's, else the string found in the artifact */
static void
put_version(struct ab_buf *b, const cJSON *probe, const cJSON *art)
{
	const char *ver = jstr(probe, "version");
	int bogus = cJSON_IsTrue(jget(probe, "bogus_version"));

	if (!ver && art) {
		ver = jstr(art, "allocator_version");
		bogus = cJSON_IsTrue(jget(art, "bogus_version"));
	}
	if (!ver) {
		ab_buf_puts(b, "–");
		return;
	}
	put_code(b, ver);
	if (bogus)
		ab_buf_puts(b, " **⚠ bogus version: configure found no VERSION**");
}

static const char *
malloc_conf_of(const cJSON *probe)
{
	const char *s = jstr(probe, "build_time.malloc_conf");

	if (!s)
		s = jstr(probe, "config.malloc_conf");
	return s;
}

/* a source's pin as the recipe gives it: a git commit (or the ref an unpinned one names) */
static const char *
git_pin(const cJSON *rec)
{
	return jstr(rec, "ref") ? jstr(rec, "ref") : jstr(rec, "commit");
}

/*
 * The OUTDIR's place on the author's machine is no part of the evidence:
 * every mention of its absolute path in b (a relink's inputs, a run's
 * command, a cwd) becomes "OUTDIR"
 */
static void
hide_path(struct ab_buf *b, const char *outdir)
{
	char *abs = ab_path_absolute(outdir);
	size_t n = strlen(abs);
	struct ab_buf out = {0};
	const char *s = b->s, *hit;

	if (!s || n < 2) {
		free(abs);
		return;
	}
	while ((hit = strstr(s, abs))) {
		char next = hit[n];
		int whole = !(next == '.' || next == '_' || next == '-' || (next >= '0' && next <= '9') ||
		    (next >= 'A' && next <= 'Z') || (next >= 'a' && next <= 'z'));

		ab_buf_add(&out, s, (size_t)(hit - s));
		if (whole)
			ab_buf_puts(&out, "OUTDIR");
		else
			ab_buf_add(&out, hit, n);
		s = hit + n;
	}
	ab_buf_puts(&out, s);
	ab_buf_free(b);
	*b = out;
	free(abs);
}

/*
 * ... and so is where it was when its variants were built: an OUTDIR
 * moved or copied since keeps, in the records of its up-to-date
 * variants, the place they were built in (each sandboxed variant's
 * "OUTDIR/variants" mount, build-commands.json)
 */
static void
hide_outdir(struct ab_buf *b, const struct evidence *e)
{
	const cJSON *v, *m;

	hide_path(b, e->outdir);
	cJSON_ArrayForEach(v, variants(e))
		cJSON_ArrayForEach(m, jget(v, "sandbox.paths")) {
			const char *real = jstr(m, "real");
			size_t n = real ? strlen(real) : 0;

			if (n > strlen("/variants") && !strcmp(real + n - strlen("/variants"), "/variants")) {
				char *at = ab_strndup(real, n - strlen("/variants"));

				hide_path(b, at);
				free(at);
			}
		}
}

/* does OUTDIR hold envelopes (provenance/review/sign.h)? */
static int
is_signed(const struct evidence *e)
{
	char *env = ab_path_join(e->outdir, AB_SIGN_ENVELOPES);
	int there = ab_path_exists(env);

	free(env);
	return there;
}

/*
 * Is origin a file of the author's machine (a mirror directory, a cache)?
 * pr.md never shows its path: the page is read on another machine, and
 * the pin proves the bytes anyway
 */
static int
is_local(const char *origin)
{
	return origin && (origin[0] == '/' || !strncmp(origin, "file:", 5));
}

/* one row of the sources table: a source of sources.json */
static void
put_source_row(struct ab_buf *b, const cJSON *rec)
{
	const char *origin = jstr(rec, "origin");
	const cJSON *it;
	int j = 0;

	ab_buf_puts(b, "| ");
	put_code(b, rec->string);
	ab_buf_puts(b, " | ");
	if (is_kind(rec, "git")) {
		ab_buf_puts(b, "git ");
		put_code(b, jstr_or(rec, "url", "?"));
		ab_buf_puts(b, " commit ");
		put_code(b, jstr_or(rec, "commit", "?"));
	} else if (is_kind(rec, "dir")) {
		ab_buf_puts(b, "directory ");
		put_code(b, jstr_or(rec, "dir", "?"));
		ab_buf_puts(b, " (beside the recipe) dirHash ");
		put_code(b, jstr_or(rec, "dirHash", "?"));
	} else {
		const cJSON *u = cJSON_GetArrayItem(jget(rec, "urls"), 0);

		ab_buf_puts(b, "archive ");
		put_code(b, cJSON_IsString(u) ? u->valuestring : "?");
		ab_buf_puts(b, " sha256 ");
		put_code(b, jstr_or(rec, "sha256", "?"));
	}
	cJSON_ArrayForEach(it, jget(rec, "patches")) {
		ab_buf_puts(b, j++ ? ", " : " + patches ");
		put_code(b, cJSON_IsString(it) ? it->valuestring : "?");
	}
	cJSON_ArrayForEach(it, jget(rec, "overlay")) {
		ab_buf_puts(b, " + overlay ");
		put_code(b, it->string);
		ab_buf_puts(b, " ← ");
		put_code(b, cJSON_IsString(it) ? it->valuestring : "?");
	}
	ab_buf_puts(b, " | ");
	if (jstr(rec, "origin_kind")) {
		put_text(b, jstr(rec, "origin_kind"));
		ab_buf_puts(b, " ");
	}
	if (is_local(origin))
		ab_buf_puts(b, "on the build machine");
	else if (origin)
		put_code(b, origin);
	else
		ab_buf_puts(b, "–");
	if (jstr(rec, "cached_from") && !is_local(jstr(rec, "cached_from"))) {
		ab_buf_puts(b, ", first fetched from ");
		put_code(b, jstr(rec, "cached_from"));
	}
	ab_buf_puts(b, " |\n");
}

static void
section_title(struct ab_buf *b, const struct evidence *e)
{
	const char *desc = jstr(e->sources, "recipe.description");

	ab_buf_puts(b, "## Allocator build provenance: ");
	put_text(b, e->name);
	ab_buf_puts(b, "\n\n");
	if (desc) {
		put_text(b, desc);
		ab_buf_puts(b, "\n\n");
	}
}

/* the sources, their pins and the commands that check the evidence, folded */
static void
section_sources(struct ab_buf *b, const struct evidence *e, const char *bundle_name)
{
	const char *inv = jstr(e->statement, "predicate.runDetails.metadata.invocationId");
	const char *fin = jstr(e->statement, "predicate.runDetails.metadata.finishedOn");
	const char *sha = jstr(e->binaries, "recipe.sha256");
	const cJSON *rec;

	ab_buf_puts(b, "<details><summary>Sources, pins and how to check the evidence</summary>\n\n");
	ab_buf_puts(b, "Recipe ");
	put_code(b, e->name);
	ab_buf_puts(b, ", sha256 ");
	put_code(b, sha ? sha : "?");
	if (fin) {
		ab_buf_puts(b, ", built ");
		put_text(b, fin);
	}
	if (inv) {
		ab_buf_puts(b, " (invocation ");
		put_code(b, inv);
		ab_buf_puts(b, ")");
	}
	ab_buf_puts(b, ".\n\n| source | pinned | origin |\n|---|---|---|\n");
	cJSON_ArrayForEach(rec, jget(e->sources, "sources"))
		put_source_row(b, rec);
	/* what a reviewer can run: the bundle holds the recipe, every pin and the files beside the recipe */
	ab_buf_puts(b, "\nTo check the evidence, and to build every variant again from it and compare "
	    "(docs/build.md, \"Rebuild\"):\n\n");
	{
		struct ab_buf cmds = {0};
		const char *words[] = {bundle_name, bundle_name};
		const char *seps[] = {"allocbuild verify ", is_signed(e) ? "\nallocbuild rebuild --key PUB.pem " :
		    "\nallocbuild rebuild ", "\n"};

		put_line_shown(&cmds, words, 2, seps);
		put_fenced(b, "sh", cmds.s);
		ab_buf_free(&cmds);
	}
	ab_buf_puts(b, "\n</details>\n\n");
}

/* a variant built with "reproducible": false (or from one), or outside the sandbox, is marked so wherever it is shown */
static void
put_not_reproducible(struct ab_buf *b, const struct evidence *e, const char *label)
{
	const cJSON *r = jget(for_label(e->binaries, label), "reproducible");

	if (cJSON_IsFalse(r))
		ab_buf_puts(b, " **⚠ not reproducible**");
	if (cJSON_IsFalse(jget(for_label(e->binaries, label), "sandboxed")))
		ab_buf_puts(b, " **⚠ not sandboxed**");
}

/* "s" for a plural */
static const char *
pl(int n)
{
	return n == 1 ? "" : "s";
}

/* the probes' findings over every variant: requested settings in effect, equal to the default, not in effect */
struct probe_tally {
	int probed, in_effect, dflt, bad, problems, failed;
};

static void
tally_probes(struct probe_tally *t, const struct evidence *e)
{
	const cJSON *v, *it;

	memset(t, 0, sizeof(*t));
	cJSON_ArrayForEach(v, variants(e)) {
		const cJSON *probe = probe_of(e, jstr(v, "label"));

		if (!probe)
			continue;
		t->probed++;
		t->failed += !cJSON_IsTrue(jget(probe, "ok")) && !cJSON_GetArraySize(jget(probe, "overrides")) &&
		    !cJSON_GetArraySize(jget(probe, "problems"));
		cJSON_ArrayForEach(it, jget(probe, "overrides")) {
			const char *st = jstr(it, "status");

			if (st && (!strcmp(st, "ok") || !strcmp(st, "match")))
				t->in_effect++;
			else if (st && !strcmp(st, "default"))
				t->dflt++;
			else
				t->bad++;
		}
		t->problems += cJSON_GetArraySize(jget(probe, "problems"));
	}
}

/* what a build --check or rebuild record found, for the verdict */
static void
put_repro_verdict(struct ab_buf *b, const cJSON *rec, const char *what)
{
	const cJSON *it;
	int differ = 0;

	if (!rec)
		return;
	cJSON_ArrayForEach(it, jget(rec, "predicate.comparison.artifacts"))
		differ += !cJSON_IsTrue(jget(it, "identical"));
	ab_buf_puts(b, differ ? "❌ " : "✅ ");
	ab_buf_puts(b, what);
	ab_buf_puts(b, ": ");
	put_text(b, jstr_or(rec, "predicate.comparison.summary", "?"));
}

/*
 * the runs in one line: per name, its runs, labels and failures, whether
 * an A/A control is there and clean, and mixed run environments
 */
static void
put_runs_verdict(struct ab_buf *b, const struct ab_comparison *c)
{
	ab_buf_puts(b, "\n- **Runs**: ");
	for (size_t i = 0; i < c->nsets; i++) {
		const struct ab_compare_set *s = &c->sets[i];

		ab_buf_puts(b, i ? "; " : "");
		put_code(b, s->name);
		ab_buf_printf(b, " %zu run%s of %zu label%s", s->nruns, s->nruns == 1 ? "" : "s", s->labels.n,
		    s->labels.n == 1 ? "" : "s");
		if (s->nfailed)
			ab_buf_printf(b, ", **⚠ %zu failed**", s->nfailed);
		if (s->control_differs)
			ab_buf_puts(b, ", ❌ the A/A control differs: its verdicts are unreliable");
		else if (s->ncontrols)
			ab_buf_puts(b, ", ✅ A/A control clean");
		else
			ab_buf_puts(b, ", ⚠ no A/A control (two labels on one artifact)");
		if (s->mixed_env)
			ab_buf_puts(b, ", ⚠ mixed run environments");
	}
	ab_buf_puts(b, " (below)");
}

/*
 * The first lines: what was built, whether the probes agree, what was
 * checked and by whom it is signed; each line's proof is in a section below
 */
static void
section_verdict(struct ab_buf *b, const struct evidence *e, const struct ab_challenge *rebuilt,
    const struct ab_policy *pol, const struct ab_policy_report *prep)
{
	struct probe_tally t;
	const cJSON *v, *it;
	int n = 0, relinks = 0, runtime = 0, plain = 0, off = 0, same = 0, differs = 0;
	cJSON *signers = NULL;

	cJSON_ArrayForEach(v, variants(e)) {
		const cJSON *rep = for_label(e->updiff, jstr(v, "label"));

		n++;
		relinks += is_kind(v, "relink");
		runtime += is_kind(v, "runtime_of");
		plain += cJSON_IsFalse(jget(for_label(e->binaries, jstr(v, "label")), "sandboxed"));
		off += cJSON_IsFalse(jget(for_label(e->binaries, jstr(v, "label")), "reproducible"));
		if (rep)
			cJSON_IsTrue(jget(rep, "matches")) ? same++ : differs++;
	}
	tally_probes(&t, e);
	ab_buf_printf(b, "**%d variant%s built**", n, pl(n));
	if (relinks || runtime) {
		ab_buf_printf(b, " (%d normal build%s", n - relinks - runtime, pl(n - relinks - runtime));
		if (relinks)
			ab_buf_printf(b, ", %d diagnostic relink%s", relinks, pl(relinks));
		if (runtime)
			ab_buf_printf(b, ", %d runtime only", runtime);
		ab_buf_puts(b, ")");
	}
	if (plain)
		ab_buf_printf(b, ", **⚠ %d not sandboxed**", plain);
	if (off)
		ab_buf_printf(b, ", **⚠ %d not reproducible**", off);
	ab_buf_printf(b, "; every file matches SHA256SUMS (%zu files, verified by `pr`).\n\n", e->rec.paths.n);
	ab_buf_puts(b, "- **Probes**: ");
	if (!t.probed)
		ab_buf_puts(b, "none (no variant names an allocator)");
	else if (t.bad || t.problems || t.failed)
		ab_buf_printf(b, "❌ %d requested setting%s not in effect, %d problem%s, %d probe%s failed (below)", t.bad,
		    pl(t.bad), t.problems, pl(t.problems), t.failed, pl(t.failed));
	else
		ab_buf_printf(b, "✅ %d requested setting%s in effect in %d probed variant%s", t.in_effect,
		    pl(t.in_effect), t.probed, pl(t.probed));
	if (t.dflt)
		ab_buf_printf(b, "; ➖ %d equal%s the default (not distinguishable)", t.dflt, t.dflt == 1 ? "s" : "");
	ab_buf_puts(b, "\n- **Reproducibility**: ");
	if (!e->check && !e->rebuild)
		ab_buf_puts(b, "⚠ not checked (no `build --check` or `rebuild` record)");
	put_repro_verdict(b, e->check, "`build --check`");
	if (e->check && e->rebuild)
		ab_buf_puts(b, "; ");
	if (e->rebuild)
		put_repro_verdict(b, e->rebuild, "`rebuild`");
	if (pol) {
		ab_buf_puts(b, "\n- **Policy** ");
		put_code(b, pol->name ? pol->name : pol->path);
		ab_buf_printf(b, " (sha256 `%.12s`): ", pol->sha256);
		if (prep->failed)
			ab_buf_printf(b, "❌ %zu of %zu rule checks failed (below)", prep->failed, prep->n);
		else
			ab_buf_printf(b, "✅ every rule check passed (%zu)", prep->n);
	}
	ab_buf_puts(b, "\n- **Independent rebuilds**: ");
	if (!rebuilt)
		ab_buf_puts(b, "none shown (`pr --rebuilt RECORD...`)");
	else if (ab_challenge_verdict(rebuilt) == 0)
		ab_buf_puts(b, "✅ every artifact rebuilt identical by its quorum of rebuilders (below)");
	else
		ab_buf_puts(b, "❌ an artifact without its quorum of identical rebuilds (below)");
	if (e->runs)
		put_runs_verdict(b, e->runs);
	if (same || differs)
		ab_buf_printf(b, "\n- **Vendored allocator trees**: %s%d identical to upstream, %d differ%s", differs ? "❌ " :
		    "✅ ", same, differs, differs == 1 ? "s" : "");
	ab_buf_puts(b, "\n- **Signed**: ");
	if (!is_signed(e)) {
		ab_buf_puts(b, "⚠ not signed (`allocbuild sign`, or `pr --sign`)");
	} else {
		char *p = ab_path_join(e->outdir, AB_SIGN_SIGNERS);
		int k = 0;

		if (ab_json_read(&signers, p) < 0)
			signers = NULL;
		free(p);
		ab_buf_puts(b, "every statement, by ");
		cJSON_ArrayForEach(it, jget(signers, "signers")) {
			char id[17];

			snprintf(id, sizeof(id), "%s", jstr_or(it, "keyid", "?"));
			ab_buf_puts(b, k++ ? ", " : "");
			put_code(b, id);
			ab_buf_puts(b, " (");
			put_text(b, jstr_or(it, "algorithm", "?"));
			ab_buf_puts(b, ")");
		}
		if (!k)
			ab_buf_puts(b, "keys signers.json does not name");
		ab_buf_puts(b, ": `verify --key` checks it");
	}
	ab_buf_puts(b, "\n\n");
	cJSON_Delete(signers);
}

/* the allocator's version in short ("5.3.0" of "5.3.0-0-g54eaed1d..."): the full one is in the details */
static void
put_short_version(struct ab_buf *b, const cJSON *probe, const cJSON *art)
{
	const char *ver = jstr(probe, "version");
	int bogus = cJSON_IsTrue(jget(probe, "bogus_version"));
	char *s;

	if (!ver && art) {
		ver = jstr(art, "allocator_version");
		bogus = cJSON_IsTrue(jget(art, "bogus_version"));
	}
	if (!ver)
		return;
	s = ab_strndup(ver, ver[0] >= '0' && ver[0] <= '9' ? strcspn(ver, "-") : strlen(ver));
	ab_buf_puts(b, " ");
	put_code(b, bogus ? "?" : s);
	if (bogus)
		ab_buf_puts(b, " **⚠ bogus version**");
	free(s);
}

/*
 * One row of the variants table: narrow enough for GitHub (the allocator
 * with its short version, what is built in, "–" when nothing), or in full
 * (the version as the probe reported it, the configure options or CMake
 * defines, `""` when nothing was built in)
 */
static void
put_variant_row(struct ab_buf *b, const struct evidence *e, const cJSON *v, int full)
{
	const char *label = jstr_or(v, "label", "?");
	const cJSON *base = base_of(e, v);
	const cJSON *probe = probe_of(e, label);
	/* a relink without an allocator of its own has its from variant's: the probe says which */
	const char *alloc = jstr(base, "definition.allocator.kind") ? jstr(base, "definition.allocator.kind") :
	    jstr(probe, "allocator");
	const cJSON *art = artifact_of(e, jstr(base, "label") ? jstr(base, "label") : label);
	const char *mc = malloc_conf_of(probe);

	ab_buf_puts(b, "| ");
	put_code(b, label);
	ab_buf_puts(b, " | ");
	ab_buf_puts(b, kind_words(v));
	if (is_kind(v, "runtime_of")) {
		ab_buf_puts(b, " of ");
		put_code(b, jstr_or(v, "definition.runtime_of", "?"));
	}
	put_not_reproducible(b, e, label);
	ab_buf_puts(b, " | ");
	put_text(b, alloc ? alloc : "–");
	if (full) {
		ab_buf_puts(b, " | ");
		put_version(b, probe, art);
		ab_buf_puts(b, " | ");
		put_options(b, base);
	} else {
		put_short_version(b, probe, art);
	}
	ab_buf_puts(b, " | ");
	if (mc && (mc[0] || full))
		put_code(b, mc[0] ? mc : "\"\"");
	else if (cJSON_IsNumber(jget(probe, "secure")))
		ab_buf_printf(b, "secure level %d", jget(probe, "secure")->valueint);
	else
		ab_buf_puts(b, "–");
	ab_buf_puts(b, " | ");
	put_runtime(b, v);
	ab_buf_puts(b, " | ");
	put_short_hash(b, jstr(art, "sha256"));
	ab_buf_puts(b, " |\n");
}

static void
section_variants(struct ab_buf *b, struct ab_buf *details, const struct evidence *e)
{
	const cJSON *v;

	ab_buf_puts(b, "### Variants\n\n| label | kind | allocator | built in | runtime environment | artifact |\n"
	    "|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach(v, variants(e))
		put_variant_row(b, e, v, 0);
	ab_buf_puts(b, "\n");
	ab_buf_puts(details, "<details><summary>Variants in full: versions, configure options and defines</summary>\n\n"
	    "| label | kind | allocator | version | configure options / defines | built in (jemalloc config.malloc_conf, mimalloc secure level) | runtime environment | artifact sha256 |\n"
	    "|---|---|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach(v, variants(e))
		put_variant_row(details, e, v, 1);
	ab_buf_puts(details, "\n</details>\n\n");

	/* the full digests, folded */
	ab_buf_puts(details, "<details><summary>Artifact digests (sha256)</summary>\n\n");
	{
		struct ab_buf lines = {0};

		cJSON_ArrayForEach(v, variants(e)) {
			const char *label = jstr_or(v, "label", "?");
			const cJSON *bv = for_label(e->binaries, label), *a;
			const char *arch = jstr(bv, "allocator.archive_sha256");

			cJSON_ArrayForEach(a, jget(bv, "artifacts")) {
				const char *words[] = {jstr_or(a, "sha256", "?"), jstr_or(a, "path", "?"), label};
				const char *seps[] = {"", "  ", " (", ")\n"};

				put_line_shown(&lines, words, 3, seps);
			}
			if (arch) {
				const char *words[] = {arch, label};
				const char *seps[] = {"", "  allocator archive of ", "\n"};

				put_line_shown(&lines, words, 2, seps);
			}
		}
		put_fenced(details, "", lines.s ? lines.s : "");
		ab_buf_free(&lines);
	}
	ab_buf_puts(details, "\n</details>\n\n");
}

/* what a build --check or rebuild record found: one line, and the artifacts that differ */
static void
put_repro_record(struct ab_buf *b, const cJSON *rec, const char *what)
{
	const cJSON *cmp = jget(rec, "predicate.comparison"), *it, *c;
	const cJSON *jobs = jget(rec, "predicate.rebuild.jobs");

	if (!rec)
		return;
	ab_buf_puts(b, "- ");
	ab_buf_puts(b, what);
	if (cJSON_IsNumber(jobs))
		ab_buf_printf(b, " (-j %d)", jobs->valueint);
	ab_buf_puts(b, ": **");
	put_text(b, jstr_or(cmp, "summary", "?"));
	ab_buf_puts(b, "**\n");
	cJSON_ArrayForEach(it, jget(cmp, "artifacts")) {
		if (cJSON_IsTrue(jget(it, "identical")))
			continue;
		ab_buf_puts(b, "  - differs: ");
		put_code(b, jstr_or(it, "path", "?"));
		ab_buf_puts(b, ": ");
		put_text(b, jstr_or(it, "summary", "?"));
		cJSON_ArrayForEach(c, jget(it, "likely_causes")) {
			ab_buf_puts(b, "; likely cause: ");
			put_text(b, cJSON_IsString(c) ? c->valuestring : "?");
		}
		ab_buf_puts(b, "\n");
	}
}

/* the host probes of one variant as table cells */
static void
put_host_probe_row(struct ab_buf *b, const cJSON *v)
{
	static const char *const names[] = {"LG_PAGE", "LG_HUGEPAGE", "LG_VADDR"};
	const cJSON *hp = jget(v, "host_probes"), *it;
	int any = 0;

	ab_buf_puts(b, "| ");
	put_code(b, jstr_or(v, "label", "?"));
	for (size_t i = 0; i < AB_NELEM(names); i++) {
		const cJSON *x = jget(hp, names[i]);

		ab_buf_puts(b, " | ");
		if (cJSON_IsNumber(x))
			ab_buf_printf(b, "%d", x->valueint);
		else
			ab_buf_puts(b, "–");
	}
	ab_buf_puts(b, " | ");
	cJSON_ArrayForEach(it, jget(hp, "pinned"))
		if (cJSON_IsString(it))
			put_word(b, &any, it->valuestring);
	if (!any)
		ab_buf_puts(b, "measured on the build host");
	ab_buf_puts(b, " |\n");
}

static void
section_reproducibility(struct ab_buf *b, const struct evidence *e)
{
	const cJSON *v;
	int probes = 0, off = 0, plain = 0, all = 0;

	cJSON_ArrayForEach(v, jget(e->binaries, "variants")) {
		probes |= jget(v, "host_probes") && !cJSON_IsNull(jget(v, "host_probes"));
		off |= cJSON_IsFalse(jget(v, "reproducible"));
		plain += cJSON_IsFalse(jget(v, "sandboxed"));
		all++;
	}
	ab_buf_puts(b, "### Reproducibility\n\n");
	if (plain < all || !all)
		ab_buf_puts(b, "Every variant is built in allocbuild's build sandbox, where its trees are always "
		    "`/allocbuild/src` and `/allocbuild/build` (no network, nothing of the host but the system, read-only), "
		    "through allocbuild's compiler wrapper (deterministic `ar`), umask 022, `SOURCE_DATE_EPOCH`");
	else
		ab_buf_puts(b, "**⚠ No variant is built in allocbuild's build sandbox** (`--no-sandbox`): each is compiled "
		    "at its real paths with `-ffile-prefix-map` through allocbuild's compiler wrapper (deterministic `ar`), "
		    "the caller's environment scrubbed, umask 022, `SOURCE_DATE_EPOCH`");
	if (off || (plain && plain < all)) {
		ab_buf_puts(b, ", except those marked");
		if (off)
			ab_buf_puts(b, " **⚠ not reproducible** (`\"reproducible\": false`)");
		if (off && plain && plain < all)
			ab_buf_puts(b, " and");
		if (plain && plain < all)
			ab_buf_puts(b, " **⚠ not sandboxed** (built at their real paths with `-ffile-prefix-map`, "
			    "the caller's environment scrubbed)");
	}
	ab_buf_puts(b, ".\n\n");
	put_repro_record(b, e->check, "`build --check`, built again in a second directory");
	put_repro_record(b, e->rebuild, "`rebuild`, rebuilt in a fresh directory");
	if (e->check || e->rebuild)
		ab_buf_puts(b, "\n");
	if (!probes)
		return;
	ab_buf_puts(b, "jemalloc's configure measured the build host (a host that measures otherwise builds other "
	    "bytes unless the recipe pins the values):\n\n"
	    "| variant | LG_PAGE | LG_HUGEPAGE | LG_VADDR | pinned by |\n|---|---|---|---|---|\n");
	cJSON_ArrayForEach(v, jget(e->binaries, "variants"))
		if (jget(v, "host_probes") && !cJSON_IsNull(jget(v, "host_probes")))
			put_host_probe_row(b, v);
	ab_buf_puts(b, "\n");
}

static void
section_upstream(struct ab_buf *b, const struct evidence *e)
{
	const cJSON *v;
	int any = 0;

	cJSON_ArrayForEach(v, variants(e)) {
		const char *label = jstr_or(v, "label", "?");
		const cJSON *rep = for_label(e->updiff, label), *n;
		const char *summary = jstr(rep, "summary");
		const char *vendored = jstr(v, "definition.allocator.vendored");
		const char *upstream = jstr(v, "definition.allocator.upstream");

		if (!rep)
			continue;
		if (!any++)
			ab_buf_puts(b, "### Upstream verification\n\n");
		ab_buf_puts(b, "- ");
		put_code(b, label);
		ab_buf_puts(b, ": ");
		put_code(b, vendored ? vendored : "?");
		ab_buf_puts(b, cJSON_IsTrue(jget(rep, "matches")) ? " **matches** upstream " : " **differs from** upstream ");
		put_code(b, upstream ? upstream : "?");
		ab_buf_puts(b, ": ");
		put_text(b, summary ? summary : "(no summary)");
		ab_buf_puts(b, "\n");
		cJSON_ArrayForEach(n, jget(rep, "notes")) {
			if (!cJSON_IsString(n))
				continue;
			ab_buf_puts(b, "  - ");
			put_text(b, n->valuestring);
			ab_buf_puts(b, "\n");
		}
	}
	if (any)
		ab_buf_puts(b, "\n");
}

static void
section_probes(struct ab_buf *b, struct ab_buf *details, const struct evidence *e)
{
	const cJSON *vj;
	int any = 0;

	cJSON_ArrayForEach(vj, variants(e)) {
		const char *label = jstr(vj, "label");
		const cJSON *probe = probe_of(e, label), *it;

		if (!probe)
			continue;
		if (!any++)
			ab_buf_puts(b, "### Probes: requested against effective\n\n"
			    "| label | verdict | setting | requested | effective |\n|---|---|---|---|---|\n");
		{
			int rows = 0;
			int ok = cJSON_IsTrue(jget(probe, "ok"));

			cJSON_ArrayForEach(it, jget(probe, "overrides")) {
				const char *set = jstr(it, "setting"), *req = jstr(it, "requested");
				const char *eff = jstr(it, "effective"), *st = jstr(it, "status");
				int good = st && (!strcmp(st, "ok") || !strcmp(st, "match"));
				int dflt = st && !strcmp(st, "default");

				ab_buf_puts(b, "| ");
				put_code(b, label);
				/* a requested value that is also the default cannot show that it was read */
				ab_buf_puts(b, good ? " | ✅ in effect | " :
				    dflt ? " | ➖ equals the default (not distinguishable) | " : " | **❌ not in effect** | ");
				put_code(b, set ? set : "?");
				ab_buf_puts(b, " | ");
				put_code(b, req ? req : "?");
				ab_buf_puts(b, " | ");
				if (eff)
					put_code(b, eff);
				else
					put_text(b, st ? st : "–");
				ab_buf_puts(b, " |\n");
				rows++;
			}
			cJSON_ArrayForEach(it, jget(probe, "problems")) {
				const char *msg = jstr(it, "message"), *kind = jstr(it, "kind");

				ab_buf_puts(b, "| ");
				put_code(b, label);
				ab_buf_puts(b, " | **⚠ ");
				put_text(b, kind ? kind : "problem");
				ab_buf_puts(b, "** | ");
				put_code(b, jstr_or(it, "setting", "?"));
				ab_buf_puts(b, " | ");
				put_text(b, jstr_or(it, "origin", "–"));
				ab_buf_puts(b, " | ");
				put_text(b, msg ? msg : "");
				ab_buf_puts(b, " |\n");
				rows++;
			}
			if (!rows) {
				ab_buf_puts(b, "| ");
				put_code(b, label);
				ab_buf_puts(b, ok ? " | ✅ no problem | – | – | defaults |\n" : " | **❌ failed** | – | – | – |\n");
			}
		}
		/* every effective option, folded */
		{
			const cJSON *eff = jget(probe, "effective");

			if (cJSON_IsObject(eff) && cJSON_GetArraySize(eff) > 0) {
				ab_buf_puts(details, "<details><summary>Effective allocator options of ");
				put_html_code(details, label);
				ab_buf_puts(details, "</summary>\n\n");
				{
					struct ab_buf lines = {0};

					cJSON_ArrayForEach(it, eff) {
						char *val = cJSON_IsString(it) ? ab_strdup(it->valuestring) : cJSON_PrintUnformatted(it);
						const char *words[] = {it->string, val};
						const char *seps[] = {"", ": ", "\n"};

						put_line_shown(&lines, words, 2, seps);
						free(val);
					}
					put_fenced(details, "", lines.s ? lines.s : "");
					ab_buf_free(&lines);
				}
				ab_buf_puts(details, "\n</details>\n\n");
			}
		}
	}
	if (any)
		ab_buf_puts(b, "\n");
}

static int
has_string(const cJSON *arr, const char *s)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, arr)
		if (cJSON_IsString(it) && !strcmp(it->valuestring, s))
			return 1;
	return 0;
}

/* configure arguments of x against y: what only x has */
static void
args_diff(struct ab_buf *b, const cJSON *x, const cJSON *y, const char *sign)
{
	const cJSON *it;

	cJSON_ArrayForEach(it, x)
		if (cJSON_IsString(it) && !has_string(y, it->valuestring)) {
			ab_buf_printf(b, " %s", sign);
			put_code(b, it->valuestring);
		}
}

/* CMake cache keys and flags of label against the first variant, from the cmake manifest's diffs */
/* the words of s (split at spaces) into w */
static void
split_words(struct ab_strv *w, const char *s)
{
	for (const char *p = s; *p;) {
		size_t n = strcspn(p, " ");

		if (n)
			ab_strv_push_owned(w, ab_strndup(p, n));
		p += n + (p[n] == ' ');
	}
}

/*
 * Two values that are lists of words (a configure line in a cache entry)
 * as the words removed (−) and added (+), not both lines whole: 1 when
 * written, 0 when they are not such lists or differ only in order
 */
static int
put_word_diff(struct ab_buf *b, const char *av, const char *bv)
{
	struct ab_strv x = {0}, y = {0};
	int n = 0;

	if (!av || !bv || !strchr(av, ' ') || !strchr(bv, ' '))
		return 0;
	split_words(&x, av);
	split_words(&y, bv);
	for (size_t i = 0; i < x.n; i++)
		if (!ab_strv_has(&y, x.v[i])) {
			ab_buf_puts(b, n++ ? " −" : "−");
			put_code(b, x.v[i]);
		}
	for (size_t i = 0; i < y.n; i++)
		if (!ab_strv_has(&x, y.v[i])) {
			ab_buf_puts(b, n++ ? " +" : "+");
			put_code(b, y.v[i]);
		}
	ab_strv_free(&x);
	ab_strv_free(&y);
	return n > 0;
}

/*
 * A cache entry's value as the diffs record it, "TYPE=value": the length
 * of "TYPE=" when a and b have the same one (words are compared without
 * it), else 0
 */
static size_t
same_type_prefix(const char *a, const char *b)
{
	size_t n = 0;

	if (!a || !b)
		return 0;
	while (a[n] >= 'A' && a[n] <= 'Z')
		n++;
	return n && a[n] == '=' && !strncmp(a, b, n + 1) ? n + 1 : 0;
}

static void
put_cmake_diffs(struct ab_buf *b, const struct evidence *e, const char *label)
{
	const cJSON *d, *k;

	cJSON_ArrayForEach(d, jget(e->cmake, "diffs")) {
		const char *bl = jstr(d, "b");

		if (!bl || strcmp(bl, label))
			continue;
		cJSON_ArrayForEach(k, jget(d, "differences")) {
			const char *sec = jstr(k, "section"), *name = jstr(k, "key");
			const char *av = jstr(k, "a"), *bv = jstr(k, "b");
			size_t skip = same_type_prefix(av, bv);

			ab_buf_puts(b, " ");
			if (sec && strcmp(sec, "keys")) {
				put_text(b, sec);
				ab_buf_puts(b, " ");
			}
			put_code(b, name ? name : "?");
			ab_buf_puts(b, ": ");
			if (!put_word_diff(b, av ? av + skip : NULL, bv ? bv + skip : NULL)) {
				if (av)
					put_code(b, av);
				else
					ab_buf_puts(b, "absent");
				ab_buf_puts(b, " → ");
				if (bv)
					put_code(b, bv);
				else
					ab_buf_puts(b, "absent");
			}
			ab_buf_puts(b, ";");
		}
	}
}

/* a runtime-only variant or a diagnostic relink, in words */
static void
put_special_difference(struct ab_buf *b, const struct evidence *e, const cJSON *v, const char *label)
{
	ab_buf_puts(b, "- ");
	put_code(b, label);
	if (is_kind(v, "runtime_of")) {
		ab_buf_puts(b, ": the binary of ");
		put_code(b, jstr_or(v, "definition.runtime_of", "?"));
		ab_buf_puts(b, ", run with ");
		put_runtime(b, v);
	} else {
		const cJSON *doc = for_label(e->relink, label);
		const char *verdict = jstr(doc, "verdict");

		ab_buf_puts(b, ": **diagnostic relink** of ");
		put_code(b, jstr_or(v, "definition.relink.from", "?"));
		ab_buf_puts(b, " (not a normal build): ");
		put_text(b, verdict ? verdict : "no relink provenance recorded");
		if (jget(doc, "normal_check.identical"))
			ab_buf_puts(b, cJSON_IsTrue(jget(doc, "normal_check.identical"))
			    ? "; the unchanged link command, run again, reproduces the normal binary byte for byte"
			    : "; **the unchanged link command, run again, does not reproduce the normal binary**");
	}
	ab_buf_puts(b, "\n");
}

static int
same_str(const cJSON *x, const cJSON *y, const char *path)
{
	const char *a = jstr(x, path), *b = jstr(y, path);

	return a && b && !strcmp(a, b);
}

/*
 * The CMake cache and flag differences between variants built from the
 * same source, as a table (variants of two unrelated projects differ in
 * everything: that says nothing); cmake-cache-provenance.json has them all
 */
static void
put_cmake_table(struct ab_buf *details, const struct evidence *e)
{
	const cJSON *pair, *d;
	int rows = 0;

	cJSON_ArrayForEach(pair, jget(e->cmake, "diffs")) {
		const char *a = jstr(pair, "a"), *bl = jstr(pair, "b");
		const char *sa = jstr(for_label(e->commands, a), "definition.source");
		const char *sb = jstr(for_label(e->commands, bl), "definition.source");

		if (!a || !bl || !sa || !sb || strcmp(sa, sb))
			continue;
		cJSON_ArrayForEach(d, jget(pair, "differences")) {
			if (!rows++)
				ab_buf_puts(details, "<details><summary>CMake cache and flag differences (variants of one "
				    "source)</summary>\n\n| variants | section | key | first | second |\n|---|---|---|---|---|\n");
			ab_buf_puts(details, "| ");
			put_code(details, a);
			ab_buf_puts(details, " → ");
			put_code(details, bl);
			ab_buf_puts(details, " | ");
			put_text(details, jstr_or(d, "section", "?"));
			ab_buf_puts(details, " | ");
			put_code(details, jstr_or(d, "key", "?"));
			ab_buf_puts(details, " | ");
			put_code(details, jstr_or(d, "a", "–"));
			ab_buf_puts(details, " | ");
			put_code(details, jstr_or(d, "b", "–"));
			ab_buf_puts(details, " |\n");
		}
	}
	if (rows)
		ab_buf_puts(details, "\nEvery cache entry and flag of each variant: `provenance/cmake-cache-provenance.json` "
		    "in the bundle.\n\n</details>\n\n");
}

static void
section_differences(struct ab_buf *b, struct ab_buf *details, const struct evidence *e)
{
	const cJSON *first = NULL, *v;
	int any = 0;

	ab_buf_puts(b, "### What differs between variants\n\n");
	cJSON_ArrayForEach(v, variants(e)) {
		const char *label = jstr_or(v, "label", "?");
		const cJSON *def = jget(v, "definition"), *fdef;
		size_t before;

		if (is_kind(v, "runtime_of") || is_kind(v, "relink")) {
			put_special_difference(b, e, v, label);
			any++;
			continue;
		}
		if (!first) {
			first = v;
			continue;
		}
		fdef = jget(first, "definition");
		if (!same_str(fdef, def, "build.system") || !same_str(fdef, def, "source"))
			continue;
		ab_buf_puts(b, "- ");
		put_code(b, label);
		ab_buf_puts(b, " against ");
		put_code(b, jstr_or(first, "label", "?"));
		ab_buf_puts(b, ":");
		before = b->len;
		args_diff(b, jget(def, "build.configure"), jget(fdef, "build.configure"), "+");
		args_diff(b, jget(fdef, "build.configure"), jget(def, "build.configure"), "−");
		if (b->len == before && is_kind(v, "autotools"))
			ab_buf_puts(b, " same configure arguments");
		put_cmake_diffs(b, e, label);
		ab_buf_puts(b, "\n");
		any++;
	}
	if (!any)
		ab_buf_puts(b, "Only one variant was built.\n");
	ab_buf_puts(b, "\n");
	put_cmake_table(details, e);
}

/* a mermaid node id: letters, digits and underscores only */
static void
put_node_id(struct ab_buf *b, const char *prefix, const char *s)
{
	ab_buf_puts(b, prefix);
	for (; *s; s++)
		ab_buf_putc(b, (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ? *s : '_');
}

/* text inside a quoted mermaid label: escaped for mermaid, no control characters, no backticks */
static void
put_mermaid_text(struct ab_buf *b, const char *text)
{
	char *shown = shown_line(text);

	for (const char *s = shown; *s; s++) {
		if (*s == '"')
			ab_buf_puts(b, "#quot;");
		else if (*s == '<')
			ab_buf_puts(b, "#lt;");
		else if (*s == '>')
			ab_buf_puts(b, "#gt;");
		else if (*s == '`')
			ab_buf_puts(b, "#96;");
		else
			ab_buf_putc(b, *s);
	}
	free(shown);
}

/* a quoted mermaid label of two lines; the text is escaped for mermaid */
static void
put_node_label(struct ab_buf *b, const char *line1, const char *line2)
{
	const char *lines[2] = {line1, line2};

	ab_buf_puts(b, "[\"");
	for (int i = 0; i < 2 && lines[i]; i++) {
		if (i)
			ab_buf_puts(b, "<br/>");
		put_mermaid_text(b, lines[i]);
	}
	ab_buf_puts(b, "\"]");
}

/* "  FROM_ID<edge>TO_ID\n" */
static void
put_edge(struct ab_buf *b, const char *fprefix, const char *from, const char *edge, const char *tprefix,
    const char *to)
{
	ab_buf_puts(b, "  ");
	put_node_id(b, fprefix, from ? from : "?");
	ab_buf_puts(b, edge);
	put_node_id(b, tprefix, to ? to : "?");
	ab_buf_puts(b, "\n");
}

/* the sources with their patches and overlays */
static void
flow_sources(struct ab_buf *b, const struct evidence *e)
{
	const cJSON *rec, *it;

	cJSON_ArrayForEach(rec, jget(e->sources, "sources")) {
		const char *id = rec->string;
		char *label = is_kind(rec, "git") ? ab_sprintf("git %.12s", git_pin(rec) ? git_pin(rec) : "?")
		    : is_kind(rec, "dir") ? ab_sprintf("dirHash %.12s", jstr_or(rec, "dirHash", "?"))
		                      : ab_sprintf("sha256 %.12s", jstr_or(rec, "sha256", "?"));
		size_t j = 0;

		ab_buf_puts(b, "  ");
		put_node_id(b, "src_", id);
		put_node_label(b, id, label);
		ab_buf_puts(b, "\n");
		free(label);
		cJSON_ArrayForEach(it, jget(rec, "patches")) {
			char *pid = ab_sprintf("%s_%zu", id, j++);

			ab_buf_puts(b, "  ");
			put_node_id(b, "patch_", pid);
			put_node_label(b, cJSON_IsString(it) ? it->valuestring : "?", NULL);
			ab_buf_puts(b, " -- patch --> ");
			put_node_id(b, "src_", id);
			ab_buf_puts(b, "\n");
			free(pid);
		}
		cJSON_ArrayForEach(it, jget(rec, "overlay")) {
			struct ab_buf edge = {0};

			ab_buf_puts(&edge, " -- \"overlay ");
			put_mermaid_text(&edge, it->string);
			ab_buf_puts(&edge, "\" --> ");
			put_edge(b, "src_", cJSON_IsString(it) ? it->valuestring : "?", edge.s, "src_", id);
			ab_buf_free(&edge);
		}
	}
}

/* the variants, what each is made from, and their artifacts */
static void
flow_variants(struct ab_buf *b, const struct evidence *e)
{
	const cJSON *v, *it;

	cJSON_ArrayForEach(v, variants(e)) {
		const char *label = jstr_or(v, "label", "?");
		const cJSON *def = jget(v, "definition");
		size_t k = 0;

		ab_buf_puts(b, "  ");
		put_node_id(b, "var_", label);
		put_node_label(b, label, kind_words(v));
		ab_buf_puts(b, "\n");
		if (is_kind(v, "relink")) {
			put_edge(b, "var_", jstr(def, "relink.from"), " -- relink --> ", "var_", label);
			cJSON_ArrayForEach(it, jget(def, "relink.replace"))
				put_edge(b, "var_", jstr(it, "with.variant"), " -. archive .-> ", "var_", label);
		} else if (is_kind(v, "runtime_of")) {
			put_edge(b, "var_", jstr(def, "runtime_of"), " -. runtime env .-> ", "var_", label);
			continue;
		} else {
			put_edge(b, "src_", jstr(def, "source"), " --> ", "var_", label);
			cJSON_ArrayForEach(it, jget(for_label(e->binaries, label), "uses"))
				put_edge(b, "var_", jstr(it, "variant"), " -. uses .-> ", "var_", label);
		}
		cJSON_ArrayForEach(it, jget(for_label(e->binaries, label), "artifacts")) {
			const char *p = jstr(it, "path"), *h = jstr(it, "sha256");
			char *aid = ab_sprintf("%s_%zu", label, k++);
			char *al = ab_sprintf("%.12s", h ? h : "?");

			ab_buf_puts(b, "  ");
			put_node_id(b, "var_", label);
			ab_buf_puts(b, " --> ");
			put_node_id(b, "art_", aid);
			put_node_label(b, p ? p : "?", al);
			ab_buf_puts(b, "\n");
			free(aid);
			free(al);
		}
	}
}

static void
section_flow(struct ab_buf *b, const struct evidence *e)
{
	struct ab_buf chart = {0};

	ab_buf_puts(b, "### Flow\n\n");
	ab_buf_puts(&chart, "flowchart LR\n");
	flow_sources(&chart, e);
	flow_variants(&chart, e);
	put_fenced(b, "mermaid", chart.s);
	ab_buf_puts(b, "\n");
	ab_buf_free(&chart);
}

/* who signed the statements and how to check them (provenance/review/sign.h); nothing when unsigned */
static void
section_signature(struct ab_buf *b, const struct evidence *e, const char *bundle_name)
{
	cJSON *signers = NULL;
	const cJSON *it;

	if (!is_signed(e))
		return;
	/* signers.json is a hint for the reader (never trusted: the keys are checked by verify --key) */
	{
		char *p = ab_path_join(e->outdir, AB_SIGN_SIGNERS);

		if (ab_json_read(&signers, p) < 0)
			signers = NULL;
		free(p);
	}
	ab_buf_puts(b, "<details><summary>Signature: who signed, and how to check it</summary>\n\nEvery in-toto statement of the build is signed: `" AB_SIGN_ENVELOPES "` "
	    "holds a DSSE envelope of each (payload type `application/vnd.in-toto+json`), signed by\n\n"
	    "| keyid (sha256 of the public key's DER SubjectPublicKeyInfo) | algorithm |\n|---|---|\n");
	cJSON_ArrayForEach(it, jget(signers, "signers")) {
		ab_buf_puts(b, "| ");
		put_code(b, jstr(it, "keyid") ? jstr(it, "keyid") : "?");
		ab_buf_puts(b, " | ");
		put_code(b, jstr(it, "algorithm") ? jstr(it, "algorithm") : "?");
		ab_buf_puts(b, " |\n");
	}
	if (!cJSON_GetArraySize(jget(signers, "signers")))
		ab_buf_puts(b, "| (provenance/signers.json is missing) | ? |\n");
	ab_buf_printf(b, "\nA valid signature vouches for every artifact (the statement's subjects) and every "
	    "manifest and log (its byproducts), each by its sha256. Check it with the signer's public key "
	    "`PUB.pem`, obtained from the signer, not from the bundle:\n\n```sh\n"
	    "allocbuild verify --key PUB.pem %s\n"
	    "python3 dsse-verify.py PUB.pem %s | (cd allocbuild-out/%s && sha256sum -c)\n```\n\n"
	    "The second needs no allocbuild: `dsse-verify.py` is allocbuild's `docs/dsse-verify.py`, a short "
	    "program on Python's securesystemslib (Debian: `python3-securesystemslib`) that checks every "
	    "envelope (`tar -xzf %s provenance-%s/%s`) and prints `sha256sum -c` lines for the digests it "
	    "vouches for.\n\n</details>\n\n", bundle_name, AB_SIGN_ENVELOPES, e->name, bundle_name, e->name,
	    AB_SIGN_ENVELOPES);
	cJSON_Delete(signers);
}

static int
write_text(const char *dir, const char *name, const struct ab_buf *b)
{
	char *p = ab_path_join(dir, name);
	int rc = ab_write_file_atomic(p, b->s ? b->s : "", b->len);

	free(p);
	return rc;
}

/* can dir/name be written over (lib/atomic.h)? reported */
static int
check_target(const char *dir, const char *name)
{
	char *p = ab_path_join(dir, name);
	int rc = ab_atomic_check(p);

	free(p);
	return rc;
}

/* characters, as GitHub counts them: UTF-8 code points */
static size_t
utf8_len(const char *s, size_t n)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		if (((unsigned char)s[i] & 0xC0) != 0x80)
			c++;
	return c;
}

/*
 * The Statements of OUTDIR that SHA256SUMS does not list, and the
 * envelopes and signers.json when it is signed (provenance/review/sign.h), with
 * its in-toto links (provenance/attest/intoto.h); reports errors
 */
static int
add_signed_members(struct ab_strv *m, const char *outdir)
{
	struct ab_strv st = {0};
	char *env = ab_path_join(outdir, AB_SIGN_ENVELOPES);

	if (ab_sign_statements(&st, outdir) < 0) {
		free(env);
		return -1;
	}
	for (size_t i = 0; i < st.n; i++)
		if (!ab_strv_has(m, st.v[i]))
			ab_strv_push(m, st.v[i]);
	if (ab_path_exists(env)) {
		char *signers = ab_path_join(outdir, AB_SIGN_SIGNERS);

		ab_strv_push(m, AB_SIGN_ENVELOPES);
		if (ab_path_exists(signers))
			ab_strv_push(m, AB_SIGN_SIGNERS);
		free(signers);
	}
	ab_strv_free(&st);
	free(env);
	/* the in-toto links sign wrote beside them (provenance/attest/intoto.h) */
	return ab_intoto_links(m, outdir);
}

/*
 * The files of OUTDIR that go into the bundle, relative to OUTDIR: what
 * the build recorded in SHA256SUMS but the artifacts (the statement's
 * subjects), SHA256SUMS itself, pr-details.md when the details moved
 * there, and the signed statements with their envelopes and signers.json
 * (provenance/review/sign.h), which verify checks on their own. Nothing else in
 * OUTDIR, whatever its name.
 */
static int
collect_members(struct ab_strv *m, const struct evidence *e, int with_details)
{
	if (!ab_strv_has(&e->rec.paths, "recipe.json")) {
		ab_error("pr: '%s' has no recipe.json in its SHA256SUMS", e->outdir);
		return AB_EFAIL;
	}
	ab_strv_push(m, "SHA256SUMS");
	for (size_t i = 0; i < e->rec.paths.n; i++)
		if (!ab_strv_has(&e->rec.subjects, e->rec.paths.v[i]))
			ab_strv_push(m, e->rec.paths.v[i]);
	if (with_details)
		ab_strv_push(m, "pr-details.md");
	if (add_signed_members(m, e->outdir) < 0)
		return AB_EFAIL;
	return 0;
}

/* ---- Policy (pr --policy, provenance/review/policycheck.h) ---- */

static void
policy_rows(struct ab_buf *b, const struct ab_policy_report *rep, int failed_only)
{
	ab_buf_puts(b, "| result | rule | variant | expected | found | read from |\n|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < rep->n; i++) {
		const struct ab_policy_line *l = &rep->v[i];

		if (failed_only && l->ok)
			continue;
		ab_buf_printf(b, "| %s | `rules[%zu]` %s | ", l->ok ? "✅" : "**❌**", l->rule, ab_policy_kind_name(l->kind));
		if (l->variant)
			put_code(b, l->variant);
		else
			ab_buf_puts(b, "–");
		ab_buf_puts(b, " | ");
		put_text(b, l->expected ? l->expected : "–");
		ab_buf_puts(b, " | ");
		put_text(b, l->actual);
		ab_buf_puts(b, " | ");
		put_code(b, l->file);
		ab_buf_puts(b, " ");
		put_code(b, l->field);
		ab_buf_puts(b, " |\n");
	}
}

/* the rules that failed in the body, every rule in the details */
static void
section_policy(struct ab_buf *b, struct ab_buf *details, const struct ab_policy *pol,
    const struct ab_policy_report *rep, const char *bundle_name)
{
	const char *base = strrchr(pol->path, '/');

	ab_buf_puts(b, "### Policy\n\n");
	ab_buf_puts(b, "Checked with `allocbuild verify --policy` against this build's records; the policy file is ");
	ab_buf_printf(b, "`%s/", AB_PR_POLICY);
	put_text(b, base ? base + 1 : pol->path);
	ab_buf_printf(b, "` in `%s` (sha256 `%s`).\n\n", bundle_name, pol->sha256);
	if (rep->failed)
		policy_rows(b, rep, 1);
	else
		ab_buf_printf(b, "✅ every rule check passed (%zu).\n", rep->n);
	ab_buf_puts(b, "\n");
	ab_buf_puts(details, "<details><summary>Policy: every rule check</summary>\n\n");
	policy_rows(details, rep, 0);
	ab_buf_puts(details, "\n</details>\n\n");
}

/*
 * The policy file (its bytes) and, with keys, its signed verification
 * summary into OUTDIR/pr-policy, and into m
 */
static int
write_policy_files(struct ab_strv *m, const struct ab_pr_opts *o, int passed)
{
	const char *base = strrchr(o->policy->path, '/');
	char *dir = ab_path_join(o->outdir, AB_PR_POLICY), *copy = NULL, *vsa = NULL;
	struct ab_buf text = {0};
	int e = AB_EFAIL;

	base = base ? base + 1 : o->policy->path;
	if (!*base || !strcmp(base, AB_VSA_FILE)) {
		ab_error("pr: cannot bundle a policy named '%s'", o->policy->path);
		goto done;
	}
	if (ab_rm_rf(dir) < 0 || ab_mkdir_p(dir, 0755) < 0 || ab_read_file_max(&text, o->policy->path, AB_POLICY_MAX) < 0)
		goto done;
	copy = ab_path_join(dir, base);
	/* the bytes the policy was read from: their digest is the one the VSA and pr.md give */
	if (ab_write_file_atomic(copy, text.s ? text.s : "", text.len) < 0)
		goto done;
	ab_strv_pushf(m, "%s/%s", AB_PR_POLICY, base);
	if (o->nsign_keys) {
		struct ab_vsa v = {o->outdir, 0, o->policy, passed, 1};

		vsa = ab_path_join(dir, AB_VSA_FILE);
		if (ab_vsa_write(vsa, &v, o->sign_keys, o->nsign_keys) < 0)
			goto done;
		ab_strv_pushf(m, "%s/%s", AB_PR_POLICY, AB_VSA_FILE);
	}
	e = 0;
done:
	ab_buf_free(&text);
	free(copy);
	free(vsa);
	free(dir);
	return e;
}

/* ---- Runs (allocbuild run, provenance/runs/runrec.h) ---- */

/* the runs of one name, in the order SHA256SUMS lists their records */
struct run_group {
	char *name;
	cJSON *records; /* array of predicates */
};

static double
num(const cJSON *o, const char *path)
{
	const cJSON *n = jget(o, path);

	return cJSON_IsNumber(n) ? n->valuedouble : 0;
}

/* a run's ending in words: "0", "1", "SIGKILL", "timed out", "interrupted" */
static char *
run_status(const cJSON *r)
{
	const char *st = jstr_or(r, "status", "?");

	if (!strcmp(st, "exited") && cJSON_IsNumber(jget(r, "exit_code")))
		return ab_sprintf("%d", (int)num(r, "exit_code"));
	if (!strcmp(st, "signaled"))
		return ab_sprintf("%s", jstr_or(r, "signal_name", "signal"));
	return ab_strdup(st);
}

static int
run_ok(const cJSON *r)
{
	return !strcmp(jstr_or(r, "status", ""), "exited") && cJSON_IsNumber(jget(r, "exit_code")) &&
	    num(r, "exit_code") == 0;
}

/* the labels of a group, in order of first run */
static void
group_labels(struct ab_strv *labels, const struct run_group *g)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, g->records)
		if (jstr(r, "label") && !ab_strv_has(labels, jstr(r, "label")))
			ab_strv_push(labels, jstr(r, "label"));
}

/* a warning when a label's repetitions differ in exit status (compare warns of run environments) */
static void
put_run_warnings(struct ab_buf *b, const struct run_group *g, const struct ab_strv *labels)
{
	struct ab_buf w = {0};
	const cJSON *r;

	for (size_t i = 0; i < labels->n; i++) {
		struct ab_strv st = {0};

		cJSON_ArrayForEach(r, g->records)
			if (!strcmp(jstr_or(r, "label", ""), labels->v[i])) {
				char *s = run_status(r);

				if (!ab_strv_has(&st, s))
					ab_strv_push(&st, s);
				free(s);
			}
		if (st.n > 1) {
			ab_buf_puts(&w, "> - ");
			put_code(&w, labels->v[i]);
			ab_buf_puts(&w, ":");
			for (size_t k = 0; k < st.n; k++) {
				ab_buf_puts(&w, k ? ", " : " ");
				put_text(&w, st.v[k]);
			}
			ab_buf_puts(&w, "\n");
		}
		ab_strv_free(&st);
	}
	if (w.len) {
		ab_buf_puts(b, "> [!WARNING]\n> The repetitions of a label differ in exit status:\n");
		ab_buf_add(b, w.s, w.len);
		ab_buf_puts(b, "\n");
	}
	ab_buf_free(&w);
}

/* one row of the table: label, repetitions, statuses, JUnit totals (the figures: the comparison) */
static void
put_run_row(struct ab_buf *b, const struct run_group *g, const char *label)
{
	size_t n = 0;
	const cJSON *r;
	double jt[4] = {0};
	int junit = 0, junit_missing = 0;
	struct ab_buf st = {0};

	cJSON_ArrayForEach(r, g->records) {
		const cJSON *sum = jget(r, "junit.summary");
		char *s;

		if (strcmp(jstr_or(r, "label", ""), label))
			continue;
		n++;
		s = run_status(r);
		ab_buf_printf(&st, "%s%s", st.len ? ", " : "", s);
		free(s);
		if (sum) {
			junit = 1;
			jt[0] += num(sum, "tests");
			jt[1] += num(sum, "failures");
			jt[2] += num(sum, "errors");
			jt[3] += num(sum, "skipped");
		} else if (jget(r, "junit") && cJSON_IsObject(jget(r, "junit"))) {
			junit_missing++;
		}
	}
	ab_buf_puts(b, "| ");
	put_code(b, label);
	ab_buf_printf(b, " | %zu | ", n);
	put_text(b, st.s ? st.s : "");
	ab_buf_puts(b, " | ");
	if (junit)
		ab_buf_printf(b, "%.0f tests, %.0f failures, %.0f errors, %.0f skipped", jt[0], jt[1], jt[2], jt[3]);
	else
		ab_buf_puts(b, "–");
	if (junit_missing)
		ab_buf_printf(b, "%s%d report%s missing", junit ? "; " : "", junit_missing, junit_missing == 1 ? "" : "s");
	ab_buf_puts(b, " |\n");
	ab_buf_free(&st);
}

/* the last lines of a run's log, at most this many bytes in pr.md (the whole log is in the bundle) */
#define RUN_LOG_TAIL 2048

static void
put_log_tail(struct ab_buf *b, const struct evidence *e, const cJSON *r)
{
	const char *rel = jstr(r, "log.path");
	struct ab_buf log = {0}, text = {0};
	char *p;
	size_t from = 0;

	if (!rel || !ab_strv_has(&e->rec.paths, rel))
		return;
	p = ab_path_join(e->outdir, rel);
	if (ab_read_file(&log, p) == 0 && log.len) {
		if (log.len > RUN_LOG_TAIL) {
			from = log.len - RUN_LOG_TAIL;
			while (from < log.len && log.s[from - 1] != '\n')
				from++;
		}
		for (const char *s = log.s + from; s < log.s + log.len;) {
			const char *nl = memchr(s, '\n', (size_t)(log.s + log.len - s));
			size_t n = nl ? (size_t)(nl - s) : (size_t)(log.s + log.len - s);

			ab_buf_add_text(&text, s, n);
			ab_buf_putc(&text, '\n');
			s += n + 1;
		}
		ab_buf_puts(b, "\n");
		if (from)
			ab_buf_printf(b, "The last %zu of %zu bytes of ", log.len - from, log.len);
		else
			ab_buf_puts(b, "The whole of ");
		put_code(b, rel);
		ab_buf_puts(b, from ? " (whole in the bundle):\n\n" : ":\n\n");
		put_fenced(b, "", text.s ? text.s : "");
	}
	ab_buf_free(&log);
	ab_buf_free(&text);
	free(p);
}

/* every run, failed ones and their reruns alike, folded */
static void
put_run_list(struct ab_buf *details, const struct evidence *e, const struct run_group *g)
{
	const cJSON *r;

	ab_buf_puts(details, "<details><summary>Runs of ");
	put_html_code(details, g->name);
	ab_buf_puts(details, ": every run, failed ones and reruns alike</summary>\n\n"
	    "| # | label | repetition | started (UTC) | status | wall s | user s | sys s | peak RSS MiB | log sha256 |\n"
	    "|---|---|---|---|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach(r, g->records) {
		char *s = run_status(r);

		ab_buf_printf(details, "| %04d | ", (int)num(r, "number"));
		put_code(details, jstr_or(r, "label", "?"));
		ab_buf_printf(details, " | %d/%d | ", (int)num(r, "repetition"), (int)num(r, "repetitions"));
		put_text(details, jstr_or(r, "started_on", "?"));
		ab_buf_puts(details, " | ");
		put_text(details, s);
		ab_buf_printf(details, " | %.3f | %.3f | %.3f | %.1f | ", num(r, "wall_s"), num(r, "user_s"),
		    num(r, "sys_s"), num(r, "maxrss_kb") / 1024);
		put_short_hash(details, jstr(r, "log.sha256"));
		ab_buf_puts(details, " |\n");
		free(s);
	}
	r = cJSON_GetArrayItem(g->records, 0);
	ab_buf_puts(details, "\nCommand (argv, no shell) of the first run: ");
	{
		struct ab_buf a = {0};
		const cJSON *it;

		cJSON_ArrayForEach(it, jget(r, "argv"))
			if (cJSON_IsString(it))
				ab_buf_printf(&a, "%s%s", a.len ? " " : "", it->valuestring);
		put_code(details, a.s ? a.s : "");
		ab_buf_free(&a);
	}
	ab_buf_puts(details, "\n");
	cJSON_ArrayForEach(r, g->records)
		if (!run_ok(r))
			put_log_tail(details, e, r);
	ab_buf_puts(details, "\n</details>\n\n");
}

/* the run environment of a group's first run, in one line */
static void
put_run_env(struct ab_buf *b, const struct run_group *g)
{
	const cJSON *r = cJSON_GetArrayItem(g->records, 0), *env = jget(r, "environment");
	char line[512];

	snprintf(line, sizeof(line), "kernel %s, %s, CPUs %s of %s online, governor %s, THP %s (defrag %s), "
	    "pages %.0f B, swap %.0f kB, cgroup memory.max %s, glibc %s",
	    jstr_or(env, "kernel", "?"), jstr_or(env, "cpu.model", "unknown CPU"), jstr_or(env, "cpu.affinity", "?"),
	    jstr_or(env, "cpu.online", "?"), jstr_or(env, "cpu.governor", "absent"),
	    jstr_or(env, "memory.thp_enabled", "absent"), jstr_or(env, "memory.thp_defrag", "absent"),
	    num(env, "memory.page_size"), num(env, "memory.swap_total_kb"),
	    cJSON_IsString(ab_json_get(ab_json_get(env, "cgroup"), "memory.max")) ?
	    ab_json_get(ab_json_get(env, "cgroup"), "memory.max")->valuestring : "absent",
	    jstr_or(env, "glibc", "?"));
	ab_buf_puts(b, "Run environment (first run): ");
	put_text(b, line);
	ab_buf_puts(b, ".\n\n");
}

/*
 * the runs, per name: statuses, the comparison (provenance/compare/compare.h:
 * mixed run environments flagged, not refused), the environment, and
 * folded every run
 */
static int
section_runs(struct ab_buf *b, struct ab_buf *details, const struct evidence *e, struct ab_compare_svgs *svg)
{
	struct run_group *g = NULL;
	size_t ng = 0;
	const struct ab_comparison *c = e->runs;
	int rc = AB_EFAIL;

	for (size_t i = 0; i < e->rec.paths.n; i++) {
		const char *rel = e->rec.paths.v[i], *slash;
		char *p, *name;
		cJSON *doc = NULL;
		size_t k;

		if (!ab_runrec_is_statement(rel))
			continue;
		p = ab_path_join(e->outdir, rel);
		if (ab_json_read(&doc, p) < 0 || !cJSON_IsObject(ab_json_get(doc, "predicate"))) {
			free(p);
			cJSON_Delete(doc);
			continue;
		}
		free(p);
		slash = strchr(rel + strlen(AB_RUN_DIR) + 1, '/');
		name = ab_strndup(rel + strlen(AB_RUN_DIR) + 1, (size_t)(slash - rel - strlen(AB_RUN_DIR) - 1));
		for (k = 0; k < ng && strcmp(g[k].name, name); k++)
			;
		if (k == ng) {
			g = ab_realloc(g, (ng + 1) * sizeof(*g));
			g[ng].name = name;
			g[ng].records = cJSON_CreateArray();
			ng++;
		} else {
			free(name);
		}
		cJSON_AddItemToArray(g[k].records, cJSON_DetachItemFromObject(doc, "predicate"));
		cJSON_Delete(doc);
	}
	if (!ng || !c) {
		rc = 0;
		goto done;
	}
	ab_buf_puts(b, "### Runs\n\n");
	for (size_t k = 0; k < ng; k++) {
		struct ab_strv labels = {0};

		group_labels(&labels, &g[k]);
		ab_buf_puts(b, "#### ");
		put_code(b, g[k].name);
		ab_buf_printf(b, " (%d runs, records in `runs/", cJSON_GetArraySize(g[k].records));
		put_text(b, g[k].name);
		ab_buf_puts(b, "/`)\n\n");
		put_run_warnings(b, &g[k], &labels);
		ab_buf_puts(b, "| label | runs | exit statuses | JUnit |\n|---|---|---|---|\n");
		for (size_t i = 0; i < labels.n; i++)
			put_run_row(b, &g[k], labels.v[i]);
		ab_buf_puts(b, "\n");
		for (size_t i = 0; i < c->nsets; i++)
			if (!strcmp(c->sets[i].name, g[k].name)) {
				ab_compare_markdown(b, c, &c->sets[i]);
				size_t had = svg->names.n;

				if ((rc = ab_compare_charts(b, c, &c->sets[i], svg)) < 0) {
					ab_strv_free(&labels);
					goto done;
				}
				if (svg->names.n > had) {
					ab_buf_puts(b, "The same charts as SVG files in the bundle:");
					for (size_t q = had; q < svg->names.n; q++) {
						char *rel = ab_sprintf("%s/%s", AB_PR_CHARTS, svg->names.v[q]);

						ab_buf_puts(b, q > had ? ", " : " ");
						put_code(b, rel);
						free(rel);
					}
					ab_buf_puts(b, ".\n\n");
				}
			}
		put_run_env(b, &g[k]);
		put_run_list(details, e, &g[k]);
		ab_strv_free(&labels);
	}
	ab_buf_puts(b, "`wall_s` is the command's wall time, `cpu_s` and `maxrss_mib` its process tree's (wait4: the "
	    "largest single process's peak, not a sum); the sampled figures (`steady_rss_mib`, `peak_rss_mib`, "
	    "`cooldown_rss_mib`, `rss_gib_s`) the whole tree's (docs/runs.md). `allocbuild compare` prints the same "
	    "comparison, and its values (`--format csv`, `json`).\n\n");
	rc = 0;
done:
	for (size_t k = 0; k < ng; k++) {
		free(g[k].name);
		cJSON_Delete(g[k].records);
	}
	free(g);
	return rc;
}

/*
 * pr.md says that every Statement is signed and verify --key checks each
 * of the bundle: a signed OUTDIR with a Statement its envelopes do not
 * carry (a run recorded after sign) is refused, naming it; reported
 */
static int
check_signed_all(const char *outdir)
{
	struct ab_strv un = {0};
	struct ab_buf list = {0};
	int is_signed, rc;

	if ((rc = ab_sign_uncovered(&is_signed, &un, outdir)) < 0)
		return rc;
	for (size_t i = 0; i < un.n; i++)
		ab_buf_printf(&list, "%s'%s'", i ? ", " : "", un.v[i]);
	if (un.n) {
		ab_error("pr: '%s' is signed but not %s, recorded since: sign it again (allocbuild sign --signing-key KEY.pem "
		    "'%s', or pr --sign KEY.pem)", outdir, list.s, outdir);
		rc = AB_EFAIL;
	}
	ab_buf_free(&list);
	ab_strv_free(&un);
	return rc;
}

/* the charts' SVG files into OUTDIR/pr-charts (the bundle carries them, as pr-details.md), and into m */
static int
write_charts(struct ab_strv *m, const char *outdir, const struct ab_compare_svgs *svg)
{
	char *dir;
	int rc = 0;

	if (!svg->names.n)
		return 0;
	dir = ab_path_join(outdir, AB_PR_CHARTS);
	for (size_t i = 0; i < svg->names.n && rc == 0; i++) {
		struct ab_buf t = {.s = svg->texts.v[i], .len = strlen(svg->texts.v[i])};
		char *path = ab_path_join(dir, svg->names.v[i]), *parent = ab_path_dirname(path);

		if (ab_mkdir_p(parent, 0755) < 0)
			rc = AB_EFAIL;
		else if ((rc = write_text(dir, svg->names.v[i], &t)) == 0)
			ab_strv_pushf(m, "%s/%s", AB_PR_CHARTS, svg->names.v[i]);
		free(path);
		free(parent);
	}
	free(dir);
	return rc;
}

void
ab_pr_written_release(struct ab_pr_written *w)
{
	free(w->md);
	free(w->bundle);
	memset(w, 0, sizeof(*w));
}

int
ab_pr_write(struct ab_pr_written *w, const struct ab_pr_opts *o)
{
	struct evidence e;
	struct ab_buf body = {0}, details = {0}, out = {0};
	struct ab_strv members = {0};
	struct ab_compare_svgs svg = {0};
	struct ab_policy_report prep = {0};
	const char *dir = o->dir ? o->dir : o->outdir;
	size_t limit = o->limit ? o->limit : AB_PR_BODY_LIMIT;
	char *bundle_name = NULL, *bundle = NULL, *top = NULL;
	int moved = 0, rc;

	if ((rc = load_evidence(&e, o->outdir)) < 0)
		goto done;
	rc = AB_EFAIL;
	/* a bad --notes target must fail before anything is written */
	if (o->notes && ab_notes_resolve(NULL, o->notes) < 0)
		goto done;
	bundle_name = ab_sprintf("provenance-%s.tar.gz", e.name);
	top = ab_sprintf("provenance-%s", e.name);
	/*
	 * and so must a file that cannot be replaced: no bundle without its
	 * pr.md, no OUTDIR signed for nothing (a DIR not there yet is made afresh)
	 */
	if ((ab_path_exists(dir) && (check_target(dir, "pr.md") < 0 || check_target(dir, bundle_name) < 0)) ||
	    check_target(o->outdir, "pr-details.md") < 0)
		goto done;
	/* the envelopes are written into OUTDIR, and so bundled like the manifests */
	if (o->nsign_keys) {
		size_t n;

		if (ab_sign_outdir(&n, o->outdir, o->sign_keys, o->nsign_keys, o->sign_trees) < 0)
			goto done;
		w->is_signed = 1;
		w->signed_statements = n;
	}
	if (check_signed_all(o->outdir) < 0)
		goto done;
	if (ab_mkdir_p(dir, 0755) < 0)
		goto done;
	/* the verdict and what differs first; what proves it after, folded */
	if (o->policy) {
		struct ab_policy_check_opts po = {o->outdir, 0, o->sign_keys, o->nsign_keys, o->rebuilt};

		if (ab_policy_check(&prep, o->policy, &po) == AB_EFAIL)
			goto done;
	}
	section_title(&body, &e);
	section_verdict(&body, &e, o->rebuilt, o->policy, &prep);
	section_variants(&body, &details, &e);
	section_differences(&body, &details, &e);
	section_probes(&body, &details, &e);
	if (section_runs(&body, &details, &e, &svg) < 0)
		goto done;
	section_reproducibility(&body, &e);
	if (o->rebuilt) {
		ab_buf_puts(&body, "### Independent rebuilds\n\n");
		ab_challenge_md(&body, o->rebuilt);
		ab_buf_puts(&body, "\n");
	}
	if (o->policy)
		section_policy(&body, &details, o->policy, &prep, bundle_name);
	section_upstream(&body, &e);
	section_flow(&body, &e);
	section_sources(&body, &e, bundle_name);
	section_signature(&body, &e, bundle_name);
	hide_outdir(&body, &e);
	hide_outdir(&details, &e);

	ab_buf_add(&out, body.s, body.len);
	ab_buf_add(&out, details.s ? details.s : "", details.len);
	{
		char *foot = ab_sprintf("---\nEvidence: `%s` (recipe, manifests, logs, SHA256SUMS); check it with "
		    "`allocbuild verify %s`.\n", bundle_name, bundle_name);
		char *moved_note = ab_sprintf("---\nThe folded details (digests, effective options, CMake "
		    "differences) would pass GitHub's %zu-character limit: they are in `pr-details.md` inside "
		    "`%s`; check it with `allocbuild verify %s`.\n", limit, bundle_name, bundle_name);

		if (utf8_len(out.s, out.len) + utf8_len(foot, strlen(foot)) >= limit) {
			/* the details move to the bundle; the body says so */
			moved = 1;
			ab_buf_clear(&out);
			ab_buf_add(&out, body.s, body.len);
			ab_buf_puts(&out, moved_note);
			if (utf8_len(out.s, out.len) >= limit) {
				ab_error("pr: the summary alone is %zu characters, over the %zu-character limit",
				    utf8_len(out.s, out.len), limit);
				free(foot);
				free(moved_note);
				goto done;
			}
		} else {
			ab_buf_puts(&out, foot);
		}
		free(foot);
		free(moved_note);
	}
	if (moved) {
		/* pr-details.md lives in OUTDIR so the bundle can carry it */
		if (write_text(o->outdir, "pr-details.md", &details) < 0)
			goto done;
	}
	if (collect_members(&members, &e, moved) < 0 || write_charts(&members, o->outdir, &svg) < 0)
		goto done;
	if (o->policy && write_policy_files(&members, o, prep.failed == 0) < 0)
		goto done;
	bundle = ab_path_join(dir, bundle_name);
	{
		int64_t epoch = 0;
		const cJSON *sde = jget(e.commands, "options.source_date_epoch");

		if (cJSON_IsNumber(sde))
			epoch = (int64_t)sde->valuedouble;
		else if (cJSON_IsString(sde))
			epoch = strtoll(sde->valuestring, NULL, 10);
		if (ab_bundle_write(bundle, o->outdir, top, members.v, members.n, epoch) < 0)
			goto done;
	}
	if (write_text(dir, "pr.md", &out) < 0)
		goto done;
	w->md = ab_path_join(dir, "pr.md");
	w->md_chars = utf8_len(out.s, out.len);
	w->moved = moved;
	w->bundle = ab_strdup(bundle);
	w->bundle_files = members.n + 1;
	if (o->notes) {
		char commit[41];
		char *stmt = cJSON_Print(e.statement);
		struct ab_buf note = {0};

		ab_buf_puts(&note, stmt);
		ab_buf_putc(&note, '\n');
		free(stmt);
		rc = ab_notes_attach(commit, o->notes, AB_NOTES_REF, note.s);
		ab_buf_free(&note);
		if (rc < 0)
			goto done;
		rc = AB_EFAIL;
		memcpy(w->note_commit, commit, sizeof(w->note_commit));
	}
	rc = 0;
done:
	release_evidence(&e);
	ab_policy_report_release(&prep);
	ab_buf_free(&body);
	ab_buf_free(&details);
	ab_buf_free(&out);
	ab_strv_free(&members);
	ab_strv_free(&svg.names);
	ab_strv_free(&svg.texts);
	free(bundle_name);
	free(bundle);
	free(top);
	return rc;
}
