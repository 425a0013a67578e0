/*
 * pr: pr.md and the evidence bundle for a pull request. The evidence is
 * read from one OUTDIR's manifests (load_evidence), the page is made of
 * its sections (pr_summary, pr_diff, pr_runs, written with pr_md's
 * helpers; their shared parts in pr_impl.h), kept under GitHub's limit by
 * moving the details into the bundle, and written with the bundle; with
 * --sign the OUTDIR is signed first, with --notes the statement is
 * attached to a commit.
 */
#include "pr.h"
#include "pr_impl.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../lib/atomic.h"
#include "../../lib/jsonio.h"
#include "../../lib/redact.h"
#include "../record/bundle.h"
#include "notes.h"
#include "sbom.h"
#include "sign.h"
#include "vsa.h"

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
 * The manifests read typed (provenance/record/): each with its reader,
 * when the build recorded it; a manifest that is not one is refused,
 * naming the file and the key (AB_EFAIL)
 */
static int
parse_bin(struct evidence *e, const cJSON *doc, const char *file)
{
	return ab_binprov_parse(&e->bin, doc, file);
}

static int
parse_probes(struct evidence *e, const cJSON *doc, const char *file)
{
	return ab_probe_results_parse(&e->probes, doc, file);
}

static int
parse_updiff(struct evidence *e, const cJSON *doc, const char *file)
{
	return ab_updiffrecs_parse(&e->updiff, doc, file);
}

static int
parse_cmake(struct evidence *e, const cJSON *doc, const char *file)
{
	return ab_cmakeprov_doc_parse(&e->cmake, doc, file);
}

static int
parse_check(struct evidence *e, const cJSON *doc, const char *file)
{
	e->check = &e->check_rec;
	return ab_repro_record_parse(&e->check_rec, doc, file);
}

static int
parse_rebuild(struct evidence *e, const cJSON *doc, const char *file)
{
	e->rebuild = &e->rebuild_rec;
	return ab_repro_record_parse(&e->rebuild_rec, doc, file);
}

/* build-commands.json, typed (provenance/record/cmdsrec.h), when the build recorded it */
static int
load_commands(struct evidence *e)
{
	char *p;
	int rc;

	if (!e->commands)
		return 0;
	p = ab_sprintf("%s/provenance/build-commands.json", e->outdir);
	rc = ab_cmdsrec_parse(&e->cmds, e->commands, p);
	free(p);
	return rc;
}

static int
parse_sources(struct evidence *e, const cJSON *doc, const char *file)
{
	return ab_sourcesrec_parse(&e->srcs, doc, file);
}

/* OUTDIR/provenance/name read by parse when the build recorded it; reported */
static int
load_typed_one(struct evidence *e, const char *name, int (*parse)(struct evidence *e, const cJSON *doc, const char *file))
{
	cJSON *doc;
	char *p;
	int rc;

	if (load_optional(&doc, e, name) < 0)
		return AB_EFAIL;
	if (!doc)
		return 0;
	p = ab_sprintf("%s/provenance/%s", e->outdir, name);
	rc = parse(e, doc, p);
	free(p);
	cJSON_Delete(doc);
	return rc;
}

static int
load_typed(struct evidence *e)
{
	static const struct {
		const char *name;
		int (*parse)(struct evidence *e, const cJSON *doc, const char *file);
	} t[] = {{"binary-provenance.json", parse_bin}, {"allocator-probes.json", parse_probes},
		{"upstream-diff.json", parse_updiff}, {"cmake-cache-provenance.json", parse_cmake},
		{"reproducibility.intoto.json", parse_check}, {"rebuild.intoto.json", parse_rebuild}};

	for (size_t i = 0; i < AB_NELEM(t); i++)
		if (load_typed_one(e, t[i].name, t[i].parse) < 0)
			return AB_EFAIL;
	return 0;
}

/* the runs' comparison, as `allocbuild compare` makes it, when SHA256SUMS lists a run record */
static int
load_runs(struct evidence *e)
{
	struct ab_compare_opts co = {.outdir = e->outdir, .seed = AB_COMPARE_SEED, .resamples = AB_COMPARE_RESAMPLES,
	    .threshold = AB_COMPARE_THRESHOLD, .derived = e->o->derived, .nderived = e->o->nderived,
	    .hosts = AB_HOSTS_SPLIT};

	for (size_t i = 0; i < e->rec.paths.n; i++)
		if (ab_runrec_is_statement(e->rec.paths.v[i]))
			return ab_compare_load(&e->runs, &co);
	return 0;
}

/*
 * No credential leaves in the bundle: every file of it but the artifacts
 * (a log a step printed its environment into, a run's output) is read
 * for what lib/redact.h would mask, and pr refuses the OUTDIR, naming the
 * file and line, before anything is written. AB_ECHECK, 0, or AB_EFAIL.
 */
static int
check_no_credentials(const struct evidence *e)
{
	int rc = 0;

	for (size_t i = 0; i < e->rec.paths.n && rc == 0; i++) {
		const char *rel = e->rec.paths.v[i];
		struct ab_buf b = {0};
		char *p;
		unsigned long line;

		if (ab_strv_has(&e->rec.subjects, rel))
			continue;
		p = ab_path_join(e->outdir, rel);
		if (ab_read_file(&b, p) < 0) {
			rc = AB_EFAIL;
		} else if ((line = ab_redact_find(b.s ? b.s : "", (unsigned long)b.len)) != 0) {
			ab_error("pr: '%s', line %lu, holds a credential (a URL's password or a token): the bundle would "
			    "publish it; nothing written (a build in the sandbox never hands the steps its remote "
			    "cache's credentials: docs/build.md, \"Sandbox\")", rel, line);
			rc = AB_ECHECK;
		}
		ab_buf_free(&b);
		free(p);
	}
	return rc;
}

static int
load_evidence(struct evidence *e, const struct ab_pr_opts *o)
{
	const char *outdir = o->outdir;
	char *rp = ab_sprintf("%s/recipe.json", outdir);
	int rc = AB_EFAIL;

	memset(e, 0, sizeof(*e));
	e->outdir = outdir;
	e->o = o;
	if (!ab_path_exists(rp)) {
		ab_error("pr: '%s' has no recipe.json: not an allocbuild output directory", outdir);
		goto done;
	}
	/* pr describes only an OUTDIR that verifies: every manifest and log it reads or packs is one the build recorded */
	if ((rc = ab_manifest_verify_reported("pr", outdir, "nothing written")) < 0 ||
	    (rc = ab_manifest_recorded_read(&e->rec, outdir, 0)) < 0 || (rc = check_no_credentials(e)) < 0)
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
	if (load_typed_one(e, "sources.json", parse_sources) < 0 ||
	    load_optional(&e->commands, e, "build-commands.json") < 0 || load_commands(e) < 0 || load_typed(e) < 0 ||
	    load_optional(&e->relink, e, "relink-provenance.json") < 0 ||
	    load_optional(&e->statement, e, "provenance.intoto.json") < 0)
		goto done;
	e->name = e->bin.recipe_name;
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
	ab_sourcesrec_release(&e->srcs);
	cJSON_Delete(e->commands);
	ab_cmdsrec_release(&e->cmds);
	ab_binprov_release(&e->bin);
	ab_probe_results_release(&e->probes);
	ab_updiffrecs_release(&e->updiff);
	ab_cmakeprov_doc_release(&e->cmake);
	cJSON_Delete(e->relink);
	cJSON_Delete(e->statement);
	if (e->check)
		ab_repro_record_release(&e->check_rec);
	if (e->rebuild)
		ab_repro_record_release(&e->rebuild_rec);
	ab_compare_free(e->runs);
	ab_manifest_recorded_release(&e->rec);
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

/* are a and b one directory? */
static int
same_dir(const char *a, const char *b)
{
	struct stat sa, sb;

	return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
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
		/* the rebuilders' records the policy relied on, listed as verify --policy lists them */
		if (ab_vsa_write_rebuilt(vsa, &v, o->rebuilt, o->sign_keys, o->nsign_keys) < 0)
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

/*
 * pr.md says that every Statement is signed and verify --key checks each
 * of the bundle: a signed OUTDIR with a Statement its envelopes do not
 * carry (a run recorded after sign) is refused, naming it; reported
 */
/* the SBOM's document (provenance/review/sbom.h) into OUTDIR/sbom, and into m (its Statement is sign's) */
static int
write_sbom(struct ab_strv *m, const char *outdir)
{
	if (ab_sbom_write(outdir, 0) < 0)
		return AB_EFAIL;
	if (!ab_strv_has(m, AB_SBOM_DOC))
		ab_strv_push(m, AB_SBOM_DOC);
	return 0;
}

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

/*
 * pr.md's summary in three pieces: what comes before the runs (body), the
 * Runs section's parts (runs), what comes after (post)
 */
struct page {
	struct ab_buf body, post;
	struct ab_pr_runs runs;
};

/* every section of pr.md, the summary into the page, what proves it into details; AB_EFAIL (reported) */
static int
write_sections(struct page *pg, struct ab_buf *details, struct evidence *e, const struct ab_pr_opts *o,
    struct ab_policy_report *prep, struct ab_compare_svgs *svg, const char *bundle_name, size_t limit)
{
	struct ab_buf *body = &pg->body, *post = &pg->post;

	/* the verdict and what differs first; what proves it after, folded */
	ab_pr_section_title(body, e);
	ab_pr_section_verdict(body, e, o->rebuilt, o->policy, prep);
	ab_pr_section_variants(body, details, e);
	ab_pr_section_differences(body, details, e);
	ab_pr_section_probes(body, details, e);
	if (ab_pr_section_runs(&pg->runs, details, e, svg, limit, bundle_name) < 0)
		return AB_EFAIL;
	ab_pr_section_reproducibility(post, e);
	if (o->rebuilt) {
		ab_buf_puts(post, "### Independent rebuilds\n\n");
		ab_challenge_md(post, o->rebuilt);
		ab_buf_puts(post, "\n");
	}
	if (o->policy)
		ab_pr_section_policy(post, details, o->policy, prep, bundle_name);
	ab_pr_section_upstream(post, e);
	ab_pr_section_flow(post, e);
	ab_pr_section_sources(post, e, bundle_name);
	ab_pr_section_signature(post, e, bundle_name);
	ab_pr_hide_outdir(body, e);
	ab_pr_hide_outdir(post, e);
	ab_pr_hide_outdir(&pg->runs.head, e);
	for (size_t k = 0; k < pg->runs.n; k++)
		for (int z = 0; z < 3; z++) {
			ab_pr_hide_outdir(&pg->runs.parts[k].text[z], e);
			ab_pr_hide_outdir(&pg->runs.parts[k].left_out[z], e);
		}
	ab_pr_hide_outdir(details, e);
	return 0;
}

/* the summary with each run name's part in its size */
static void
summary_of(struct ab_buf *out, const struct page *pg, const enum ab_pr_runs_size *size)
{
	ab_buf_clear(out);
	ab_buf_add(out, pg->body.s ? pg->body.s : "", pg->body.len);
	ab_buf_add(out, pg->runs.head.s ? pg->runs.head.s : "", pg->runs.head.len);
	for (size_t k = 0; k < pg->runs.n; k++)
		ab_buf_add(out, pg->runs.parts[k].text[size[k]].s ? pg->runs.parts[k].text[size[k]].s : "",
		    pg->runs.parts[k].text[size[k]].len);
	ab_buf_add(out, pg->runs.tail.s ? pg->runs.tail.s : "", pg->runs.tail.len);
	ab_buf_add(out, pg->post.s ? pg->post.s : "", pg->post.len);
}

/* the next smaller size: the last run name still showing its charts loses them, else the last one not a stub */
static int
shrink(enum ab_pr_runs_size *size, size_t n)
{
	for (int to = AB_PR_RUNS_NO_CHARTS; to <= AB_PR_RUNS_STUB; to++)
		for (size_t k = n; k-- > 0;)
			if ((int)size[k] < to) {
				size[k] = (enum ab_pr_runs_size)to;
				return 1;
			}
	return 0;
}

/*
 * pr.md into out: the summary, details and the footer, or, when that
 * passes limit characters, the summary and a note that the details are
 * in the bundle (*moved); while that still passes it, the Runs section's
 * parts take their smaller sizes (what they leave out goes into the
 * details, *details_out); AB_EFAIL (reported) when even the smallest
 * passes it
 */
static int
join_page(struct ab_buf *out, struct ab_buf *details_out, int *moved, const struct page *pg,
    const struct ab_buf *details, size_t limit, const char *bundle_name)
{
	char *foot = ab_sprintf("---\nEvidence: `%s` (recipe, manifests, logs, SHA256SUMS); check it with "
	    "`allocbuild verify %s`.\n", bundle_name, bundle_name);
	char *note = ab_sprintf("---\nThe folded details (digests, effective options, CMake differences) would pass "
	    "GitHub's %zu-character limit: they are in `pr-details.md` inside `%s`; check it with "
	    "`allocbuild verify %s`.\n", limit, bundle_name, bundle_name);
	enum ab_pr_runs_size *size = ab_calloc(pg->runs.n + 1, sizeof(*size));
	size_t nfoot = utf8_len(foot, strlen(foot)), nnote = utf8_len(note, strlen(note));
	int e = 0;

	*moved = 0;
	ab_buf_clear(details_out);
	ab_buf_add(details_out, details->s ? details->s : "", details->len);
	summary_of(out, pg, size);
	if (utf8_len(out->s, out->len) + utf8_len(details->s, details->len) + nfoot < limit) {
		ab_buf_add(out, details->s ? details->s : "", details->len);
		ab_buf_puts(out, foot);
		goto done;
	}
	/* the details move to the bundle; the summary says so, and sheds its runs' parts while it must */
	*moved = 1;
	while (utf8_len(out->s, out->len) + nnote >= limit && shrink(size, pg->runs.n))
		summary_of(out, pg, size);
	ab_buf_puts(out, note);
	if (utf8_len(out->s, out->len) >= limit) {
		ab_error("pr: the summary alone is %zu characters, over the %zu-character limit",
		    utf8_len(out->s, out->len), limit);
		e = AB_EFAIL;
		goto done;
	}
	/* what the page left out of the runs, whole, in pr-details.md */
	for (size_t k = 0, any = 0; k < pg->runs.n; k++) {
		const struct ab_buf *lo = &pg->runs.parts[k].left_out[size[k]];

		if (!lo->len)
			continue;
		if (!any++)
			ab_buf_puts(details_out, "### Runs left out of pr.md\n\n");
		ab_buf_add(details_out, lo->s, lo->len);
	}
done:
	free(size);
	free(foot);
	free(note);
	return e;
}

/* the SOURCE_DATE_EPOCH the build recorded, for the bundle's times; 0 when none */
static int64_t
bundle_epoch(const struct evidence *e)
{
	const cJSON *sde = ab_pr_jget(e->commands, "options.source_date_epoch");

	if (cJSON_IsNumber(sde))
		return (int64_t)sde->valuedouble;
	if (cJSON_IsString(sde))
		return strtoll(sde->valuestring, NULL, 10);
	return 0;
}

/* --notes: the provenance statement attached to the commit as a git note (w->note_commit) */
static int
attach_note(struct ab_pr_written *w, const char *notes, const struct evidence *e)
{
	char commit[41];
	char *stmt = cJSON_Print(e->statement);
	struct ab_buf note = {0};
	int rc;

	ab_buf_puts(&note, stmt);
	ab_buf_putc(&note, '\n');
	free(stmt);
	rc = ab_notes_attach(commit, notes, AB_NOTES_REF, note.s);
	ab_buf_free(&note);
	if (rc < 0)
		return rc;
	memcpy(w->note_commit, commit, sizeof(w->note_commit));
	return 0;
}

int
ab_pr_write(struct ab_pr_written *w, const struct ab_pr_opts *o)
{
	struct evidence e;
	struct page pg = {0};
	struct ab_buf details = {0}, details_out = {0}, out = {0};
	struct ab_strv members = {0};
	struct ab_compare_svgs svg = {0};
	struct ab_policy_report prep = {0};
	const char *dir = o->dir ? o->dir : o->outdir;
	size_t limit = o->limit ? o->limit : AB_PR_BODY_LIMIT;
	char *bundle_name = NULL, *bundle = NULL, *top = NULL;
	int moved = 0, rc;

	if ((rc = load_evidence(&e, o)) < 0)
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
		/* the test results hold the figures pr.md shows: its derived ones too */
		struct ab_compare_opts co = {.outdir = o->outdir, .seed = AB_COMPARE_SEED,
		    .resamples = AB_COMPARE_RESAMPLES, .threshold = AB_COMPARE_THRESHOLD, .derived = o->derived,
		    .nderived = o->nderived, .hosts = AB_HOSTS_SPLIT};
		size_t n;

		if (ab_sign_outdir_results(&n, o->outdir, o->sign_keys, o->nsign_keys, o->sign_trees, &co) < 0)
			goto done;
		w->is_signed = 1;
		w->signed_statements = n;
	}
	if (check_signed_all(o->outdir) < 0)
		goto done;
	if (ab_mkdir_p(dir, 0755) < 0)
		goto done;
	/* pr.md beside OUTDIR's pr-charts (the default, and pr-details.md always) links each chart's SVG file */
	if (same_dir(dir, o->outdir))
		svg.href = AB_PR_CHARTS "/";
	if (o->policy) {
		struct ab_policy_check_opts po = {o->outdir, 0, o->sign_keys, o->nsign_keys, o->rebuilt};

		if (ab_policy_check(&prep, o->policy, &po) == AB_EFAIL)
			goto done;
	}
	if (write_sections(&pg, &details, &e, o, &prep, &svg, bundle_name, limit) < 0 ||
	    join_page(&out, &details_out, &moved, &pg, &details, limit, bundle_name) < 0)
		goto done;
	if (moved) {
		/* pr-details.md lives in OUTDIR so the bundle can carry it */
		if (write_text(o->outdir, "pr-details.md", &details_out) < 0)
			goto done;
	}
	if (collect_members(&members, &e, moved) < 0 || write_charts(&members, o->outdir, &svg) < 0 ||
	    write_sbom(&members, o->outdir) < 0)
		goto done;
	if (o->policy && write_policy_files(&members, o, prep.failed == 0) < 0)
		goto done;
	bundle = ab_path_join(dir, bundle_name);
	if (ab_bundle_write(bundle, o->outdir, top, members.v, members.n, bundle_epoch(&e)) < 0)
		goto done;
	if (write_text(dir, "pr.md", &out) < 0)
		goto done;
	w->md = ab_path_join(dir, "pr.md");
	w->md_chars = utf8_len(out.s, out.len);
	w->moved = moved;
	w->bundle = ab_strdup(bundle);
	w->bundle_files = members.n + 1;
	if (o->notes && (rc = attach_note(w, o->notes, &e)) < 0)
		goto done;
	rc = 0;
done:
	release_evidence(&e);
	ab_policy_report_release(&prep);
	ab_buf_free(&pg.body);
	ab_buf_free(&pg.post);
	ab_pr_runs_release(&pg.runs);
	ab_buf_free(&details);
	ab_buf_free(&details_out);
	ab_buf_free(&out);
	ab_strv_free(&members);
	ab_strv_free(&svg.names);
	ab_strv_free(&svg.texts);
	free(bundle_name);
	free(bundle);
	free(top);
	return rc;
}
