/*
 * pr_md: what every part of pr.md is written with: members of the
 * manifests by path, Markdown and HTML put safely (text, code, fenced
 * blocks), the variants' facts as words (kind, options, runtime, version),
 * and local paths hidden.
 */
#include "pr_impl.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "sign.h"

/* a member by dotted path ("a.b.c"), NULL when any step is missing */
const cJSON *
ab_pr_jget(const cJSON *o, const char *path)
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

const char *
ab_pr_jstr(const cJSON *o, const char *path)
{
	const cJSON *v = ab_pr_jget(o, path);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* the same, dflt when it is missing */
const char *
ab_pr_jstr_or(const cJSON *o, const char *path, const char *dflt)
{
	const char *s = ab_pr_jstr(o, path);

	return s ? s : dflt;
}

/* the entry of a manifest's "variants" for label (lib/jsonio.h: version 2's array of {label}, or version 1's object) */
const cJSON *
ab_pr_for_label(const cJSON *doc, const char *label)
{
	return ab_json_labelled_find(doc, label);
}

/*
 * pr.md's names for the page's escaping (provenance/compare/pagetext.h,
 * the one mechanism, shared with compare's markdown and charts)
 */
char *
ab_pr_shown_line(const char *s)
{
	return ab_page_line(s);
}

void
ab_pr_put_text(struct ab_buf *b, const char *text)
{
	ab_page_text(b, text);
}

void
ab_pr_put_code(struct ab_buf *b, const char *text)
{
	ab_page_code(b, text);
}

void
ab_pr_put_html_code(struct ab_buf *b, const char *text)
{
	ab_buf_puts(b, "<code>");
	ab_page_html(b, text);
	ab_buf_puts(b, "</code>");
}

/* a fenced code block of text (lines already escaped): the fence longer than any run of backticks in it */
void
ab_pr_put_fenced(struct ab_buf *b, const char *info, const char *text)
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
void
ab_pr_put_line_shown(struct ab_buf *b, const char *const *words, size_t n, const char *const *seps)
{
	for (size_t i = 0; i < n; i++) {
		char *w = ab_shown(words[i]);

		ab_buf_puts(b, seps[i]);
		ab_buf_puts(b, w);
		free(w);
	}
	ab_buf_puts(b, seps[n]);
}

void
ab_pr_put_short_hash(struct ab_buf *b, const char *hex)
{
	char s[13];

	if (!hex) {
		ab_buf_puts(b, "–");
		return;
	}
	snprintf(s, sizeof(s), "%.12s", hex);
	ab_pr_put_code(b, s);
}

int
ab_pr_kind_is(const struct ab_cmdsrec_variant *v, const char *kind)
{
	return v && !strcmp(v->kind, kind);
}

const char *
ab_pr_kind_words(const struct ab_cmdsrec_variant *v)
{
	if (ab_pr_kind_is(v, "relink"))
		return "diagnostic relink";
	if (ab_pr_kind_is(v, "runtime_of"))
		return "runtime only";
	return "normal build";
}

/* the variant that built v's binary: v, or its runtime_of's, followed to the end */
const struct ab_cmdsrec_variant *
ab_pr_base_of(const struct evidence *e, const struct ab_cmdsrec_variant *v)
{
	for (size_t guard = e->cmds.nvariants; v && ab_pr_kind_is(v, "runtime_of") && guard > 0; guard--) {
		const struct ab_cmdsrec_variant *b = ab_cmdsrec_variant(&e->cmds, v->def.runtime_of);

		if (!b)
			break;
		v = b;
	}
	return v;
}

/* the probe's result of a label (allocator-probes.json) */
const struct ab_probe_result *
ab_pr_probe_of(const struct evidence *e, const char *label)
{
	return ab_probe_results_get(&e->probes, label);
}

const struct ab_binprov_variant *
ab_pr_bin_of(const struct evidence *e, const char *label)
{
	return label ? ab_binprov_variant(&e->bin, label) : NULL;
}

/* the first artifact record of the binary of label (binary-provenance.json) */
const struct ab_binprov_artifact *
ab_pr_artifact_of(const struct evidence *e, const char *label)
{
	const struct ab_binprov_variant *v = ab_pr_bin_of(e, label);

	return v && v->nartifacts ? &v->artifacts[0] : NULL;
}

/* one more code span in a list separated by spaces; *any counts the spans */
void
ab_pr_put_word(struct ab_buf *b, int *any, const char *s)
{
	if ((*any)++)
		ab_buf_puts(b, " ");
	ab_pr_put_code(b, s);
}

/* how the binary of a variant was made: a relink's replacements, else the configure options or defines */
void
ab_pr_put_options(struct ab_buf *b, const struct ab_cmdsrec_variant *base)
{
	int any = 0;

	if (ab_pr_kind_is(base, "relink")) {
		ab_buf_puts(b, "relink of ");
		ab_pr_put_code(b, base->def.relink_from ? base->def.relink_from : "?");
		for (size_t i = 0; i < base->def.nreplace; i++) {
			const struct ab_cmdsrec_replace *r = &base->def.replace[i];

			ab_buf_puts(b, ", ");
			ab_pr_put_code(b, r->path ? r->path : "?");
			ab_buf_puts(b, " → ");
			ab_pr_put_code(b, r->with_variant ? r->with_variant : "?");
		}
		return;
	}
	for (size_t i = 0; base && i < base->def.configure.n; i++)
		ab_pr_put_word(b, &any, base->def.configure.v[i]);
	for (size_t i = 0; base && i < base->def.ndefines; i++) {
		const struct ab_cmdsrec_kv *d = &base->def.defines[i];
		char *w = ab_sprintf("-D%s=%s", d->name, d->value ? d->value : "");

		ab_pr_put_word(b, &any, w);
		free(w);
	}
	if (!any)
		ab_buf_puts(b, "–");
}

void
ab_pr_put_runtime(struct ab_buf *b, const struct ab_cmdsrec_variant *v)
{
	int any = 0;

	for (size_t i = 0; v && i < v->def.nenv; i++) {
		char *kv = ab_sprintf("%s=%s", v->def.env[i].name, v->def.env[i].value ? v->def.env[i].value : "");

		ab_pr_put_word(b, &any, kv);
		free(kv);
	}
	for (size_t i = 0; v && i < v->def.unset.n; i++) {
		char *u = ab_sprintf("unset %s", v->def.unset.v[i]);

		ab_pr_put_word(b, &any, u);
		free(u);
	}
	if (!any)
		ab_buf_puts(b, "–");
}

/* the allocator's version: the probe's, else the string found in the artifact */
void
ab_pr_put_version(struct ab_buf *b, const struct ab_probe_result *probe, const struct ab_binprov_artifact *art)
{
	const char *ver = probe ? probe->version : NULL;
	int bogus = probe && probe->bogus_version;

	if (!ver && art) {
		ver = art->allocator_version;
		bogus = art->bogus_version;
	}
	if (!ver) {
		ab_buf_puts(b, "–");
		return;
	}
	ab_pr_put_code(b, ver);
	if (bogus)
		ab_buf_puts(b, " **⚠ bogus version: configure found no VERSION**");
}

const char *
ab_pr_malloc_conf_of(const struct ab_probe_result *probe)
{
	const char *s;

	if (!probe)
		return NULL;
	s = ab_pr_jstr(probe->report, "build_time.malloc_conf");
	if (!s)
		s = ab_pr_jstr(probe->report, "config.malloc_conf");
	return s;
}

/* a source's pin as the recipe gives it: a git commit (or the ref an unpinned one names) */
const char *
ab_pr_git_pin(const struct ab_fetch_record *rec)
{
	return rec->ref ? rec->ref : rec->commit;
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
void
ab_pr_hide_outdir(struct ab_buf *b, const struct evidence *e)
{
	hide_path(b, e->outdir);
	for (size_t i = 0; i < e->cmds.nvariants; i++)
		for (size_t k = 0; k < e->cmds.variants[i].sandbox_real.n; k++) {
			const char *real = e->cmds.variants[i].sandbox_real.v[k];
			size_t n = strlen(real);

			if (n > strlen("/variants") && !strcmp(real + n - strlen("/variants"), "/variants")) {
				char *at = ab_strndup(real, n - strlen("/variants"));

				hide_path(b, at);
				free(at);
			}
		}
}

/* does OUTDIR hold envelopes (provenance/review/sign.h)? */
int
ab_pr_is_signed(const struct evidence *e)
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
int
ab_pr_is_local(const char *origin)
{
	/* as recorded: absolute, or with its place hidden (lib/places.h: "./", "~/", "OUTDIR/") */
	return origin && (origin[0] == '/' || !strncmp(origin, "file:", 5) || !strncmp(origin, "./", 2) ||
	    !strncmp(origin, "~/", 2) || !strncmp(origin, "OUTDIR/", 7) || !strcmp(origin, ".") ||
	    !strcmp(origin, "~"));
}

/* "s" for a plural */
const char *
ab_pr_pl(int n)
{
	return n == 1 ? "" : "s";
}
