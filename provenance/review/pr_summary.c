/*
 * pr_summary: the sections of pr.md a reviewer reads first: the
 * title, the verdict, the variants, the probes, reproducibility, the
 * upstream trees, the sources, the signature and, with --policy, the
 * policy's rules.
 */
#include "pr_impl.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../record/bundle.h"
#include "../record/signersrec.h"
#include "sign.h"

/* one row of the sources table: a source of sources.json */
static void
put_source_row(struct ab_buf *b, const struct ab_sourcesrec_source *s)
{
	const struct ab_fetch_record *rec = s->rec;
	const char *origin = rec->origin;

	ab_buf_puts(b, "| ");
	ab_pr_put_code(b, s->id);
	ab_buf_puts(b, " | ");
	if (rec->kind == AB_FETCH_GIT) {
		ab_buf_puts(b, "git ");
		ab_pr_put_code(b, rec->url ? rec->url : "?");
		ab_buf_puts(b, " commit ");
		ab_pr_put_code(b, rec->commit);
	} else if (rec->kind == AB_FETCH_DIR) {
		ab_buf_puts(b, "directory ");
		ab_pr_put_code(b, rec->dir ? rec->dir : "?");
		ab_buf_puts(b, " (beside the recipe) dirHash ");
		ab_pr_put_code(b, rec->dirhash);
	} else {
		ab_buf_puts(b, "archive ");
		ab_pr_put_code(b, rec->urls.n ? rec->urls.v[0] : "?");
		ab_buf_puts(b, " sha256 ");
		ab_pr_put_code(b, rec->sha256);
	}
	for (size_t j = 0; j < s->patches.n; j++) {
		ab_buf_puts(b, j ? ", " : " + patches ");
		ab_pr_put_code(b, s->patches.v[j]);
	}
	for (size_t j = 0; j < s->overlay_paths.n; j++) {
		ab_buf_puts(b, " + overlay ");
		ab_pr_put_code(b, s->overlay_paths.v[j]);
		ab_buf_puts(b, " ← ");
		ab_pr_put_code(b, s->overlay_sources.v[j]);
	}
	ab_buf_puts(b, " | ");
	if (rec->origin_kind) {
		ab_pr_put_text(b, rec->origin_kind);
		ab_buf_puts(b, " ");
	}
	if (ab_pr_is_local(origin))
		ab_buf_puts(b, "on the build machine");
	else if (origin)
		ab_pr_put_code(b, origin);
	else
		ab_buf_puts(b, "–");
	if (rec->cached_from && !ab_pr_is_local(rec->cached_from)) {
		ab_buf_puts(b, ", first fetched from ");
		ab_pr_put_code(b, rec->cached_from);
	}
	ab_buf_puts(b, " |\n");
}

void
ab_pr_section_title(struct ab_buf *b, const struct evidence *e)
{
	const char *desc = e->srcs.description;

	ab_buf_puts(b, "## Allocator build provenance: ");
	ab_pr_put_text(b, e->name);
	ab_buf_puts(b, "\n\n");
	if (desc) {
		ab_pr_put_text(b, desc);
		ab_buf_puts(b, "\n\n");
	}
}

/* the sources, their pins and the commands that check the evidence, folded */
void
ab_pr_section_sources(struct ab_buf *b, const struct evidence *e, const char *bundle_name)
{
	const char *inv = e->rec.invocation_id, *fin = e->rec.finished_on;
	const char *sha = e->bin.recipe_sha256;

	ab_buf_puts(b, "<details><summary>Sources, pins and how to check the evidence</summary>\n\n");
	ab_buf_puts(b, "Recipe ");
	ab_pr_put_code(b, e->name);
	ab_buf_puts(b, ", sha256 ");
	ab_pr_put_code(b, sha ? sha : "?");
	if (fin) {
		ab_buf_puts(b, ", built ");
		ab_pr_put_text(b, fin);
	}
	if (inv) {
		ab_buf_puts(b, " (invocation ");
		ab_pr_put_code(b, inv);
		ab_buf_puts(b, ")");
	}
	ab_buf_puts(b, ".\n\n| source | pinned | origin |\n|---|---|---|\n");
	for (size_t i = 0; i < e->srcs.n; i++)
		put_source_row(b, &e->srcs.v[i]);
	/* what a reviewer can run: the bundle holds the recipe, every pin and the files beside the recipe */
	ab_buf_puts(b, "\nTo check the evidence, and to build every variant again from it and compare "
	    "(docs/build.md, \"Rebuild\"):\n\n");
	{
		struct ab_buf cmds = {0};
		const char *words[] = {bundle_name, bundle_name};
		const char *seps[] = {"allocbuild verify ", ab_pr_is_signed(e) ? "\nallocbuild rebuild --key PUB.pem " :
		    "\nallocbuild rebuild ", "\n"};

		ab_pr_put_line_shown(&cmds, words, 2, seps);
		ab_pr_put_fenced(b, "sh", cmds.s);
		ab_buf_free(&cmds);
	}
	ab_buf_puts(b, "\n</details>\n\n");
}

/* a variant built with "reproducible": false (or from one), or outside the sandbox, is marked so wherever it is shown */
static void
put_not_reproducible(struct ab_buf *b, const struct evidence *e, const char *label)
{
	const struct ab_binprov_variant *bv = ab_pr_bin_of(e, label);

	if (bv && !bv->reproducible)
		ab_buf_puts(b, " **⚠ not reproducible**");
	if (bv && !bv->sandboxed)
		ab_buf_puts(b, " **⚠ not sandboxed**");
}

/* the probes' findings over every variant: requested settings in effect, equal to the default, not in effect */
struct probe_tally {
	int probed, in_effect, dflt, bad, problems, failed;
};

static void
tally_probes(struct probe_tally *t, const struct evidence *e)
{
	memset(t, 0, sizeof(*t));
	for (const struct ab_cmdsrec_variant *v = e->cmds.variants; v < e->cmds.variants + e->cmds.nvariants; v++) {
		const struct ab_probe_result *probe = ab_pr_probe_of(e, v->label);

		if (!probe)
			continue;
		t->probed++;
		t->failed += !probe->ok && !probe->noverrides && !probe->nproblems;
		for (size_t i = 0; i < probe->noverrides; i++) {
			const char *st = probe->overrides[i].status;

			if (st && (!strcmp(st, "ok") || !strcmp(st, "match")))
				t->in_effect++;
			else if (st && !strcmp(st, "default"))
				t->dflt++;
			else
				t->bad++;
		}
		t->problems += (int)probe->nproblems;
	}
}

/*
 * the variants built apart that gave the same bytes as an earlier one (a
 * relink identical to a normal build): an A/A pair by construction, whose
 * runs measure noise only. Runtime variants run their base's bytes by design
 */
static void
put_same_bytes(struct ab_buf *b, const struct evidence *e)
{
	for (const struct ab_cmdsrec_variant *v = e->cmds.variants; v < e->cmds.variants + e->cmds.nvariants; v++) {
		const char *label = v->label;
		const struct ab_binprov_artifact *art = ab_pr_artifact_of(e, label);
		const char *hex = art ? art->sha256 : NULL;

		if (!hex || ab_pr_kind_is(v, "runtime_of"))
			continue;
		for (const struct ab_cmdsrec_variant *w = e->cmds.variants; w < v; w++) {
			const char *other = w->label;
			const struct ab_binprov_artifact *oa = ab_pr_artifact_of(e, other);

			if (ab_pr_kind_is(w, "runtime_of") || !oa || strcmp(oa->sha256, hex))
				continue;
			ab_buf_puts(b, "; ");
			ab_pr_put_code(b, label);
			ab_buf_puts(b, " is the same bytes as ");
			ab_pr_put_code(b, other);
			ab_buf_puts(b, " (an A/A pair by construction)");
			break;
		}
	}
}

/* what a build --check or rebuild record found, for the verdict */
static void
put_repro_verdict(struct ab_buf *b, const struct ab_repro_record *rec, const char *what)
{
	int differ = 0;

	if (!rec)
		return;
	for (size_t i = 0; i < rec->cmp.n; i++)
		differ += !rec->cmp.artifacts[i].identical;
	ab_buf_puts(b, differ ? "❌ " : "✅ ");
	ab_buf_puts(b, what);
	ab_buf_puts(b, ": ");
	ab_pr_put_text(b, rec->cmp.summary ? rec->cmp.summary : "?");
}

/*
 * the independent rebuilders' records (pr --rebuilt), as a reproducibility
 * policy counts them (provenance/review/policycheck.c): an artifact is
 * rebuilt identical by a rebuilder whose key verified its record; an
 * unsigned record proves nothing about who rebuilt. Artifacts some
 * record got otherwise, and the quorum, are said beside
 */
static void
put_rebuilt_verdict(struct ab_buf *b, const struct ab_challenge *c)
{
	struct ab_challenge_tally t;
	size_t n = ab_challenge_nrecords(c);

	ab_challenge_tally(&t, c);
	if (!ab_challenge_checked(c)) {
		ab_buf_printf(b, "⚠ %zu rebuild record%s of independent rebuilders, signatures not checked "
		    "(`pr --rebuilt-key PUB.pem`): an unsigned record proves nothing about who rebuilt, and counts for "
		    "nothing (below)", n, n == 1 ? "" : "s");
		return;
	}
	if (t.reproduced == t.artifacts)
		ab_buf_printf(b, "✅ every artifact rebuilt identical by an independent rebuilder (%zu signed record%s, "
		    "%zu key%s", n, n == 1 ? "" : "s", t.keys, t.keys == 1 ? "" : "s");
	else
		ab_buf_printf(b, "❌ %zu of %zu artifacts rebuilt identical by no independent rebuilder (%zu signed "
		    "record%s, %zu key%s", t.artifacts - t.reproduced, t.artifacts, n, n == 1 ? "" : "s", t.keys,
		    t.keys == 1 ? "" : "s");
	if (t.quorum_met < t.artifacts)
		ab_buf_printf(b, "; quorum %zu met by %zu of %zu artifacts", ab_challenge_quorum(c), t.quorum_met,
		    t.artifacts);
	ab_buf_puts(b, ")");
	if (t.differ)
		ab_buf_printf(b, "; ⚠ %zu artifact%s rebuilt into other bytes by some (likely causes below)", t.differ,
		    t.differ == 1 ? "" : "s");
	else
		ab_buf_puts(b, " (below)");
}

/* the kinds of the rules that failed, each once: " reproducible, targets" */
static void
put_failed_kinds(struct ab_buf *b, const struct ab_policy_report *rep)
{
	unsigned seen = 0;

	for (size_t i = 0, k = 0; i < rep->n; i++) {
		const struct ab_policy_line *l = &rep->v[i];

		if (l->ok || (seen & 1u << l->kind))
			continue;
		seen |= 1u << l->kind;
		ab_buf_printf(b, "%s %s", k++ ? "," : "", ab_policy_kind_name(l->kind));
	}
}

/*
 * The first lines: what was built, whether the probes agree, what was
 * checked and by whom it is signed; each line's proof is in a section below
 */
void
ab_pr_section_verdict(struct ab_buf *b, const struct evidence *e, const struct ab_challenge *rebuilt,
    const struct ab_policy *pol, const struct ab_policy_report *prep)
{
	struct probe_tally t;
	int n = 0, relinks = 0, runtime = 0, plain = 0, off = 0, same = 0, differs = 0;

	for (const struct ab_cmdsrec_variant *v = e->cmds.variants; v < e->cmds.variants + e->cmds.nvariants; v++) {
		const struct ab_updiffrec *rep = ab_updiffrecs_get(&e->updiff, v->label);
		const struct ab_binprov_variant *bv = ab_pr_bin_of(e, v->label);

		n++;
		relinks += ab_pr_kind_is(v, "relink");
		runtime += ab_pr_kind_is(v, "runtime_of");
		plain += bv && !bv->sandboxed;
		off += bv && !bv->reproducible;
		if (rep)
			rep->matches ? same++ : differs++;
	}
	tally_probes(&t, e);
	/* the benchmark's answer first: which variant differs, by how much, how sure (provenance/compare) */
	if (e->runs)
		ab_compare_verdict_md(b, e->runs, AB_PR_VERDICT_RUNS_MAX);
	ab_buf_printf(b, "**%d variant%s built**", n, ab_pr_pl(n));
	if (relinks || runtime) {
		ab_buf_printf(b, " (%d normal build%s", n - relinks - runtime, ab_pr_pl(n - relinks - runtime));
		if (relinks)
			ab_buf_printf(b, ", %d diagnostic relink%s", relinks, ab_pr_pl(relinks));
		if (runtime)
			ab_buf_printf(b, ", %d runtime only", runtime);
		ab_buf_puts(b, ")");
	}
	if (plain)
		ab_buf_printf(b, ", **⚠ %d not sandboxed**", plain);
	if (off)
		ab_buf_printf(b, ", **⚠ %d not reproducible**", off);
	put_same_bytes(b, e);
	ab_buf_printf(b, "; every file matches SHA256SUMS (%zu files, verified by `pr`).\n\n", e->rec.paths.n);
	ab_buf_puts(b, "- **Probes**: ");
	if (!t.probed)
		ab_buf_puts(b, "none (no variant names an allocator)");
	else if (t.bad || t.problems || t.failed)
		ab_buf_printf(b, "❌ %d requested setting%s not in effect, %d problem%s, %d probe%s failed (below)", t.bad,
		    ab_pr_pl(t.bad), t.problems, ab_pr_pl(t.problems), t.failed, ab_pr_pl(t.failed));
	else
		ab_buf_printf(b, "✅ %d requested setting%s in effect in %d probed variant%s", t.in_effect,
		    ab_pr_pl(t.in_effect), t.probed, ab_pr_pl(t.probed));
	if (t.dflt)
		ab_buf_printf(b, "; ➖ %d equal%s the default (not distinguishable)", t.dflt, t.dflt == 1 ? "s" : "");
	/* every record of a rebuild, local or an independent rebuilder's, on one line: they answer one question */
	ab_buf_puts(b, "\n- **Reproducibility**: ");
	if (!e->check && !e->rebuild && !rebuilt)
		ab_buf_puts(b, "⚠ not checked (no `build --check` or `rebuild` record, no independent rebuilder's "
		    "(`pr --rebuilt`))");
	put_repro_verdict(b, e->check, "`build --check`");
	if (e->check && e->rebuild)
		ab_buf_puts(b, "; ");
	if (e->rebuild)
		put_repro_verdict(b, e->rebuild, "`rebuild`");
	if (rebuilt) {
		ab_buf_puts(b, e->check || e->rebuild ? "; " : "");
		put_rebuilt_verdict(b, rebuilt);
	}
	if (pol) {
		ab_buf_puts(b, "\n- **Policy** ");
		ab_pr_put_code(b, pol->name ? pol->name : pol->path);
		ab_buf_printf(b, " (sha256 `%.12s`): ", pol->sha256);
		if (prep->failed) {
			ab_buf_printf(b, "❌ %zu of %zu rule checks failed:", prep->failed, prep->n);
			put_failed_kinds(b, prep);
			ab_buf_puts(b, " (below)");
		} else {
			ab_buf_printf(b, "✅ every rule check passed (%zu)", prep->n);
		}
	}
	if (same || differs)
		ab_buf_printf(b, "\n- **Vendored allocator trees**: %s%d identical to upstream, %d differ%s", differs ? "❌ " :
		    "✅ ", same, differs, differs == 1 ? "s" : "");
	ab_buf_puts(b, "\n- **Signed**: ");
	if (!ab_pr_is_signed(e)) {
		ab_buf_puts(b, "⚠ not signed (`allocbuild sign`, or `pr --sign`)");
	} else {
		struct ab_signersrec signers;
		size_t k = 0;

		ab_signersrec_read(&signers, e->outdir);
		ab_buf_puts(b, "every statement, by ");
		for (; k < signers.n; k++) {
			char id[17];

			snprintf(id, sizeof(id), "%s", signers.v[k].keyid ? signers.v[k].keyid : "?");
			ab_buf_puts(b, k ? ", " : "");
			ab_pr_put_code(b, id);
			ab_buf_puts(b, " (");
			ab_pr_put_text(b, signers.v[k].algorithm ? signers.v[k].algorithm : "?");
			ab_buf_puts(b, ")");
		}
		ab_signersrec_release(&signers);
		if (!k)
			ab_buf_puts(b, "keys signers.json does not name");
		ab_buf_puts(b, ": `verify --key` checks it");
	}
	ab_buf_puts(b, "\n\n");
}

/* the allocator's version in short ("5.3.0" of "5.3.0-0-g54eaed1d..."): the full one is in the details */
static void
put_short_version(struct ab_buf *b, const struct ab_probe_result *probe, const struct ab_binprov_artifact *art)
{
	const char *ver = probe ? probe->version : NULL;
	int bogus = probe && probe->bogus_version;
	char *s;

	if (!ver && art) {
		ver = art->allocator_version;
		bogus = art->bogus_version;
	}
	if (!ver)
		return;
	s = ab_strndup(ver, ver[0] >= '0' && ver[0] <= '9' ? strcspn(ver, "-") : strlen(ver));
	ab_buf_puts(b, " ");
	ab_pr_put_code(b, bogus ? "?" : s);
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
put_variant_row(struct ab_buf *b, const struct evidence *e, const struct ab_cmdsrec_variant *v, int full)
{
	const char *label = v->label;
	const struct ab_cmdsrec_variant *base = ab_pr_base_of(e, v);
	const struct ab_probe_result *probe = ab_pr_probe_of(e, label);
	/* a relink without an allocator of its own has its from variant's: the probe says which */
	const char *alloc = base->def.allocator.kind ? base->def.allocator.kind : probe ? probe->allocator : NULL;
	const struct ab_binprov_artifact *art = ab_pr_artifact_of(e, base->label);
	const char *mc = ab_pr_malloc_conf_of(probe);

	ab_buf_puts(b, "| ");
	ab_pr_put_code(b, label);
	ab_buf_puts(b, " | ");
	ab_buf_puts(b, ab_pr_kind_words(v));
	if (ab_pr_kind_is(v, "runtime_of")) {
		ab_buf_puts(b, " of ");
		ab_pr_put_code(b, v->def.runtime_of ? v->def.runtime_of : "?");
	}
	put_not_reproducible(b, e, label);
	ab_buf_puts(b, " | ");
	ab_pr_put_text(b, alloc ? alloc : "–");
	if (full) {
		ab_buf_puts(b, " | ");
		ab_pr_put_version(b, probe, art);
		ab_buf_puts(b, " | ");
		ab_pr_put_options(b, base);
	} else {
		put_short_version(b, probe, art);
	}
	ab_buf_puts(b, " | ");
	if (mc && (mc[0] || full))
		ab_pr_put_code(b, mc[0] ? mc : "\"\"");
	else if (probe && probe->secure >= 0)
		ab_buf_printf(b, "secure level %d", probe->secure);
	else
		ab_buf_puts(b, "–");
	ab_buf_puts(b, " | ");
	ab_pr_put_runtime(b, v);
	ab_buf_puts(b, " | ");
	ab_pr_put_short_hash(b, art ? art->sha256 : NULL);
	ab_buf_puts(b, " |\n");
}

void
ab_pr_section_variants(struct ab_buf *b, struct ab_buf *details, const struct evidence *e)
{
	ab_buf_puts(b, "### Variants\n\n| label | kind | allocator | built in | runtime environment | artifact |\n"
	    "|---|---|---|---|---|---|\n");
	for (const struct ab_cmdsrec_variant *v = e->cmds.variants; v < e->cmds.variants + e->cmds.nvariants; v++)
		put_variant_row(b, e, v, 0);
	ab_buf_puts(b, "\n");
	ab_buf_puts(details, "<details><summary>Variants in full: versions, configure options and defines</summary>\n\n"
	    "| label | kind | allocator | version | configure options / defines | built in (jemalloc config.malloc_conf, mimalloc secure level) | runtime environment | artifact sha256 |\n"
	    "|---|---|---|---|---|---|---|---|\n");
	for (const struct ab_cmdsrec_variant *v = e->cmds.variants; v < e->cmds.variants + e->cmds.nvariants; v++)
		put_variant_row(details, e, v, 1);
	ab_buf_puts(details, "\n</details>\n\n");

	/* the full digests, folded */
	ab_buf_puts(details, "<details><summary>Artifact digests (sha256)</summary>\n\n");
	{
		struct ab_buf lines = {0};

		for (const struct ab_cmdsrec_variant *v = e->cmds.variants; v < e->cmds.variants + e->cmds.nvariants; v++) {
			const char *label = v->label;
			const struct ab_binprov_variant *bv = ab_pr_bin_of(e, label);
			const char *arch = bv ? bv->allocator.archive_sha256 : NULL;

			for (size_t i = 0; bv && i < bv->nartifacts; i++) {
				const char *words[] = {bv->artifacts[i].sha256, bv->artifacts[i].path, label};
				const char *seps[] = {"", "  ", " (", ")\n"};

				ab_pr_put_line_shown(&lines, words, 3, seps);
			}
			if (arch) {
				const char *words[] = {arch, label};
				const char *seps[] = {"", "  allocator archive of ", "\n"};

				ab_pr_put_line_shown(&lines, words, 2, seps);
			}
		}
		ab_pr_put_fenced(details, "", lines.s ? lines.s : "");
		ab_buf_free(&lines);
	}
	ab_buf_puts(details, "\n</details>\n\n");
}

/* what a build --check or rebuild record found: one line, and the artifacts that differ */
static void
put_repro_record(struct ab_buf *b, const struct ab_repro_record *rec, const char *what)
{
	if (!rec)
		return;
	ab_buf_puts(b, "- ");
	ab_buf_puts(b, what);
	if (rec->jobs >= 0)
		ab_buf_printf(b, " (-j %d)", rec->jobs);
	ab_buf_puts(b, ": **");
	ab_pr_put_text(b, rec->cmp.summary ? rec->cmp.summary : "?");
	ab_buf_puts(b, "**\n");
	for (size_t i = 0; i < rec->cmp.n; i++) {
		const struct ab_repro_artifact *it = &rec->cmp.artifacts[i];

		if (it->identical)
			continue;
		ab_buf_puts(b, "  - differs: ");
		ab_pr_put_code(b, it->path ? it->path : "?");
		ab_buf_puts(b, ": ");
		ab_pr_put_text(b, it->summary ? it->summary : "?");
		for (size_t k = 0; k < it->likely_causes.n; k++) {
			ab_buf_puts(b, "; likely cause: ");
			ab_pr_put_text(b, it->likely_causes.v[k]);
		}
		if (it->diffoscope) {
			ab_buf_puts(b, "; diffoscope's report: ");
			ab_pr_put_code(b, it->diffoscope);
			ab_buf_puts(b, " sha256 ");
			ab_pr_put_short_hash(b, it->diffoscope_sha256 ? it->diffoscope_sha256 : "?");
		}
		ab_buf_puts(b, "\n");
	}
}

/* the host probes of one variant as table cells */
static void
put_host_probe_row(struct ab_buf *b, const struct ab_binprov_variant *v)
{
	const struct ab_binprov_host_probes *hp = v->host_probes;
	const int lg[] = {hp->lg_page, hp->lg_hugepage, hp->lg_vaddr};
	int any = 0;

	ab_buf_puts(b, "| ");
	ab_pr_put_code(b, v->label);
	for (size_t i = 0; i < AB_NELEM(lg); i++) {
		ab_buf_puts(b, " | ");
		if (lg[i] >= 0)
			ab_buf_printf(b, "%d", lg[i]);
		else
			ab_buf_puts(b, "–");
	}
	ab_buf_puts(b, " | ");
	for (size_t i = 0; i < hp->pinned.n; i++)
		ab_pr_put_word(b, &any, hp->pinned.v[i]);
	if (!any)
		ab_buf_puts(b, "measured on the build host");
	ab_buf_puts(b, " |\n");
}

void
ab_pr_section_reproducibility(struct ab_buf *b, const struct evidence *e)
{
	int probes = 0, off = 0, plain = 0, all = 0;

	for (size_t i = 0; i < e->bin.nvariants; i++) {
		const struct ab_binprov_variant *v = &e->bin.variants[i];

		probes |= v->host_probes != NULL;
		off |= !v->reproducible;
		plain += !v->sandboxed;
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
	for (size_t i = 0; i < e->bin.nvariants; i++)
		if (e->bin.variants[i].host_probes)
			put_host_probe_row(b, &e->bin.variants[i]);
	ab_buf_puts(b, "\n");
}

void
ab_pr_section_upstream(struct ab_buf *b, const struct evidence *e)
{
	int any = 0;

	for (const struct ab_cmdsrec_variant *v = e->cmds.variants; v < e->cmds.variants + e->cmds.nvariants; v++) {
		const char *label = v->label;
		const struct ab_updiffrec *rep = ab_updiffrecs_get(&e->updiff, label);
		const char *summary = rep ? rep->summary : NULL;
		const char *vendored = v->def.allocator.vendored, *upstream = v->def.allocator.upstream;

		if (!rep)
			continue;
		if (!any++)
			ab_buf_puts(b, "### Upstream verification\n\n");
		ab_buf_puts(b, "- ");
		ab_pr_put_code(b, label);
		ab_buf_puts(b, ": ");
		ab_pr_put_code(b, vendored ? vendored : "?");
		ab_buf_puts(b, rep->matches ? " **matches** upstream " : " **differs from** upstream ");
		ab_pr_put_code(b, upstream ? upstream : "?");
		ab_buf_puts(b, ": ");
		ab_pr_put_text(b, summary ? summary : "(no summary)");
		ab_buf_puts(b, "\n");
		for (size_t i = 0; i < rep->notes.n; i++) {
			ab_buf_puts(b, "  - ");
			ab_pr_put_text(b, rep->notes.v[i]);
			ab_buf_puts(b, "\n");
		}
	}
	if (any)
		ab_buf_puts(b, "\n");
}

void
ab_pr_section_probes(struct ab_buf *b, struct ab_buf *details, const struct evidence *e)
{
	int any = 0;

	for (const struct ab_cmdsrec_variant *vj = e->cmds.variants; vj < e->cmds.variants + e->cmds.nvariants; vj++) {
		const char *label = vj->label;
		const struct ab_probe_result *probe = ab_pr_probe_of(e, label);
		const cJSON *it;

		if (!probe)
			continue;
		if (!any++)
			ab_buf_puts(b, "### Probes: requested against effective\n\n"
			    "| label | verdict | setting | requested | effective |\n|---|---|---|---|---|\n");
		{
			int rows = 0;
			int ok = probe->ok;

			for (size_t i = 0; i < probe->noverrides; i++) {
				const struct ab_probe_override *o = &probe->overrides[i];
				const char *set = o->setting, *req = o->requested, *eff = o->effective, *st = o->status;
				int good = st && (!strcmp(st, "ok") || !strcmp(st, "match"));
				int dflt = st && !strcmp(st, "default");

				ab_buf_puts(b, "| ");
				ab_pr_put_code(b, label);
				/* a requested value that is also the default cannot show that it was read */
				ab_buf_puts(b, good ? " | ✅ in effect | " :
				    dflt ? " | ➖ equals the default (not distinguishable) | " : " | **❌ not in effect** | ");
				ab_pr_put_code(b, set ? set : "?");
				ab_buf_puts(b, " | ");
				ab_pr_put_code(b, req ? req : "?");
				ab_buf_puts(b, " | ");
				if (eff)
					ab_pr_put_code(b, eff);
				else
					ab_pr_put_text(b, st ? st : "–");
				ab_buf_puts(b, " |\n");
				rows++;
			}
			for (size_t i = 0; i < probe->nproblems; i++) {
				const struct ab_probe_problem *pb = &probe->problems[i];
				const char *msg = pb->message, *kind = pb->kind;

				ab_buf_puts(b, "| ");
				ab_pr_put_code(b, label);
				ab_buf_puts(b, " | **⚠ ");
				ab_pr_put_text(b, kind ? kind : "problem");
				ab_buf_puts(b, "** | ");
				ab_pr_put_code(b, pb->setting ? pb->setting : "?");
				ab_buf_puts(b, " | ");
				ab_pr_put_text(b, pb->origin ? pb->origin : "–");
				ab_buf_puts(b, " | ");
				ab_pr_put_text(b, msg ? msg : "");
				ab_buf_puts(b, " |\n");
				rows++;
			}
			if (!rows) {
				ab_buf_puts(b, "| ");
				ab_pr_put_code(b, label);
				ab_buf_puts(b, ok ? " | ✅ no problem | – | – | defaults |\n" : " | **❌ failed** | – | – | – |\n");
			}
		}
		/* every effective option, folded */
		{
			/* the allocator's options as it reports them: shown as they are */
			const cJSON *eff = ab_pr_jget(probe->report, "effective");

			if (cJSON_IsObject(eff) && cJSON_GetArraySize(eff) > 0) {
				ab_buf_puts(details, "<details><summary>Effective allocator options of ");
				ab_pr_put_html_code(details, label);
				ab_buf_puts(details, "</summary>\n\n");
				{
					struct ab_buf lines = {0};

					cJSON_ArrayForEach(it, eff) {
						char *val = cJSON_IsString(it) ? ab_strdup(it->valuestring) : cJSON_PrintUnformatted(it);
						const char *words[] = {it->string, val};
						const char *seps[] = {"", ": ", "\n"};

						ab_pr_put_line_shown(&lines, words, 2, seps);
						free(val);
					}
					ab_pr_put_fenced(details, "", lines.s ? lines.s : "");
					ab_buf_free(&lines);
				}
				ab_buf_puts(details, "\n</details>\n\n");
			}
		}
	}
	if (any)
		ab_buf_puts(b, "\n");
}

/* who signed the statements and how to check them (provenance/review/sign.h); nothing when unsigned */
void
ab_pr_section_signature(struct ab_buf *b, const struct evidence *e, const char *bundle_name)
{
	struct ab_signersrec signers;

	if (!ab_pr_is_signed(e))
		return;
	/* signers.json is a hint for the reader (never trusted: the keys are checked by verify --key) */
	ab_signersrec_read(&signers, e->outdir);
	ab_buf_puts(b, "<details><summary>Signature: who signed, and how to check it</summary>\n\nEvery in-toto statement of the build is signed: `" AB_SIGN_ENVELOPES "` "
	    "holds a DSSE envelope of each (payload type `application/vnd.in-toto+json`), signed by\n\n"
	    "| keyid (sha256 of the public key's DER SubjectPublicKeyInfo) | algorithm |\n|---|---|\n");
	for (size_t k = 0; k < signers.n; k++) {
		ab_buf_puts(b, "| ");
		ab_pr_put_code(b, signers.v[k].keyid ? signers.v[k].keyid : "?");
		ab_buf_puts(b, " | ");
		ab_pr_put_code(b, signers.v[k].algorithm ? signers.v[k].algorithm : "?");
		ab_buf_puts(b, " |\n");
	}
	if (!signers.n)
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
	ab_signersrec_release(&signers);
}

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
			ab_pr_put_code(b, l->variant);
		else
			ab_buf_puts(b, "–");
		ab_buf_puts(b, " | ");
		ab_pr_put_text(b, l->expected ? l->expected : "–");
		ab_buf_puts(b, " | ");
		ab_pr_put_text(b, l->actual);
		ab_buf_puts(b, " | ");
		ab_pr_put_code(b, l->file);
		ab_buf_puts(b, " ");
		ab_pr_put_code(b, l->field);
		ab_buf_puts(b, " |\n");
	}
}

/* the rules that failed in the body, every rule in the details */
void
ab_pr_section_policy(struct ab_buf *b, struct ab_buf *details, const struct ab_policy *pol,
    const struct ab_policy_report *rep, const char *bundle_name)
{
	const char *base = strrchr(pol->path, '/');

	ab_buf_puts(b, "### Policy\n\n");
	ab_buf_puts(b, "Checked with `allocbuild verify --policy` against this build's records; the policy file is ");
	ab_buf_printf(b, "`%s/", AB_PR_POLICY);
	ab_pr_put_text(b, base ? base + 1 : pol->path);
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
