/*
 * pr_diff: what differs between the variants (configure options,
 * CMake caches, word by word) and the flow chart from sources to
 * binaries (Mermaid).
 */
#include "pr_impl.h"

#include <stdlib.h>
#include <string.h>

/* configure arguments of x against y: what only x has */
static void
args_diff(struct ab_buf *b, const struct ab_strv *x, const struct ab_strv *y, const char *sign)
{
	for (size_t i = 0; i < x->n; i++)
		if (!ab_strv_has(y, x->v[i])) {
			ab_buf_printf(b, " %s", sign);
			ab_pr_put_code(b, x->v[i]);
		}
}

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
			ab_pr_put_code(b, x.v[i]);
		}
	for (size_t i = 0; i < y.n; i++)
		if (!ab_strv_has(&x, y.v[i])) {
			ab_buf_puts(b, n++ ? " +" : "+");
			ab_pr_put_code(b, y.v[i]);
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

/* CMake cache keys and flags of label against the first variant, from the cmake manifest's diffs */
static void
put_cmake_diffs(struct ab_buf *b, const struct evidence *e, const char *label)
{
	for (size_t i = 0; i < e->cmake.ndiffs; i++) {
		const struct ab_cmakeprov_pair *d = &e->cmake.diffs[i];

		if (strcmp(d->b, label))
			continue;
		for (size_t j = 0; j < d->n; j++) {
			const char *sec = d->d[j].section, *name = d->d[j].key;
			const char *av = d->d[j].a, *bv = d->d[j].b;
			size_t skip = same_type_prefix(av, bv);

			ab_buf_puts(b, " ");
			if (sec && strcmp(sec, "keys")) {
				ab_pr_put_text(b, sec);
				ab_buf_puts(b, " ");
			}
			ab_pr_put_code(b, name ? name : "?");
			ab_buf_puts(b, ": ");
			if (!put_word_diff(b, av ? av + skip : NULL, bv ? bv + skip : NULL)) {
				if (av)
					ab_pr_put_code(b, av);
				else
					ab_buf_puts(b, "absent");
				ab_buf_puts(b, " → ");
				if (bv)
					ab_pr_put_code(b, bv);
				else
					ab_buf_puts(b, "absent");
			}
			ab_buf_puts(b, ";");
		}
	}
}

/*
 * The objects of label's tree against first's, from build-commands.json's
 * object_comparison (their compile logs): " objects: 6 identical, 2 differ
 * (DIR: 1, DIR: 1)", at most four directories named
 */
static void
put_object_diff(struct ab_buf *b, const struct evidence *e, const char *first, const char *label)
{
	for (size_t i = 0; i < e->cmds.nobjects; i++) {
		const struct ab_cmdsrec_objects *c = &e->cmds.objects[i];
		int n = 0, dirs = (int)c->dirs.n;

		if (!c->a || !c->b || strcmp(c->a, first) || strcmp(c->b, label) || !c->counted)
			continue;
		/* after the settings ("...;" or "KEY: A → B;" written), or alone */
		ab_buf_printf(b, "%s objects: %d identical, %d differ", b->len && b->s[b->len - 1] != ';' &&
		    b->s[b->len - 1] != ':' ? ";" : "", c->identical, c->differ);
		for (size_t k = 0; k < c->dirs.n; k++) {
			if (n == 4) {
				ab_buf_printf(b, ", and %d more", dirs - n);
				break;
			}
			ab_buf_puts(b, n++ ? ", " : " (");
			ab_pr_put_code(b, c->dirs.v[k]);
			ab_buf_printf(b, ": %d", c->dir_n[k]);
		}
		if (n)
			ab_buf_puts(b, ")");
		return;
	}
}

/* a runtime-only variant or a diagnostic relink, in words */
static void
put_special_difference(struct ab_buf *b, const struct evidence *e, const struct ab_cmdsrec_variant *v,
    const char *label)
{
	ab_buf_puts(b, "- ");
	ab_pr_put_code(b, label);
	if (ab_pr_kind_is(v, "runtime_of")) {
		ab_buf_puts(b, ": the binary of ");
		ab_pr_put_code(b, v->def.runtime_of ? v->def.runtime_of : "?");
		ab_buf_puts(b, ", run with ");
		ab_pr_put_runtime(b, v);
	} else {
		const cJSON *doc = ab_pr_for_label(e->relink, label);
		const char *verdict = ab_pr_jstr(doc, "verdict");

		ab_buf_puts(b, ": **diagnostic relink** of ");
		ab_pr_put_code(b, v->def.relink_from ? v->def.relink_from : "?");
		ab_buf_puts(b, " (not a normal build): ");
		ab_pr_put_text(b, verdict ? verdict : "no relink provenance recorded");
		if (ab_pr_jget(doc, "normal_check.identical"))
			ab_buf_puts(b, cJSON_IsTrue(ab_pr_jget(doc, "normal_check.identical"))
			    ? "; the unchanged link command, run again, reproduces the normal binary byte for byte"
			    : "; **the unchanged link command, run again, does not reproduce the normal binary**");
	}
	ab_buf_puts(b, "\n");
}

static int
same_str(const char *a, const char *b)
{
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
	int rows = 0;

	for (size_t i = 0; i < e->cmake.ndiffs; i++) {
		const struct ab_cmakeprov_pair *pair = &e->cmake.diffs[i];
		const char *a = pair->a, *bl = pair->b;
		const struct ab_cmdsrec_variant *va = ab_cmdsrec_variant(&e->cmds, a), *vb = ab_cmdsrec_variant(&e->cmds, bl);

		if (!va || !vb || !same_str(va->def.source, vb->def.source))
			continue;
		for (size_t j = 0; j < pair->n; j++) {
			const struct ab_cmakeprov_difference *d = &pair->d[j];

			if (!rows++)
				ab_buf_puts(details, "<details><summary>CMake cache and flag differences (variants of one "
				    "source)</summary>\n\n| variants | section | key | first | second |\n|---|---|---|---|---|\n");
			ab_buf_puts(details, "| ");
			ab_pr_put_code(details, a);
			ab_buf_puts(details, " → ");
			ab_pr_put_code(details, bl);
			ab_buf_puts(details, " | ");
			ab_pr_put_text(details, d->section ? d->section : "?");
			ab_buf_puts(details, " | ");
			ab_pr_put_code(details, d->key ? d->key : "?");
			ab_buf_puts(details, " | ");
			ab_pr_put_code(details, d->a ? d->a : "–");
			ab_buf_puts(details, " | ");
			ab_pr_put_code(details, d->b ? d->b : "–");
			ab_buf_puts(details, " |\n");
		}
	}
	if (rows)
		ab_buf_puts(details, "\nEvery cache entry and flag of each variant: `provenance/cmake-cache-provenance.json` "
		    "in the bundle.\n\n</details>\n\n");
}

void
ab_pr_section_differences(struct ab_buf *b, struct ab_buf *details, const struct evidence *e)
{
	const struct ab_cmdsrec_variant *first = NULL;
	int any = 0;

	ab_buf_puts(b, "### What differs between variants\n\n");
	for (const struct ab_cmdsrec_variant *v = e->cmds.variants; v < e->cmds.variants + e->cmds.nvariants; v++) {
		const char *label = v->label;
		size_t before;

		if (ab_pr_kind_is(v, "runtime_of") || ab_pr_kind_is(v, "relink")) {
			put_special_difference(b, e, v, label);
			any++;
			continue;
		}
		if (!first) {
			first = v;
			continue;
		}
		if (!same_str(first->def.build_system, v->def.build_system) || !same_str(first->def.source, v->def.source))
			continue;
		ab_buf_puts(b, "- ");
		ab_pr_put_code(b, label);
		ab_buf_puts(b, " against ");
		ab_pr_put_code(b, first->label);
		ab_buf_puts(b, ":");
		before = b->len;
		args_diff(b, &v->def.configure, &first->def.configure, "+");
		args_diff(b, &first->def.configure, &v->def.configure, "−");
		if (b->len == before && ab_pr_kind_is(v, "autotools"))
			ab_buf_puts(b, " same configure arguments");
		put_cmake_diffs(b, e, label);
		put_object_diff(b, e, first->label, label);
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

/* a quoted mermaid label of two lines; the text is escaped for mermaid (ab_page_mermaid) */
static void
put_node_label(struct ab_buf *b, const char *line1, const char *line2)
{
	const char *lines[2] = {line1, line2};

	ab_buf_puts(b, "[\"");
	for (int i = 0; i < 2 && lines[i]; i++) {
		if (i)
			ab_buf_puts(b, "<br/>");
		ab_page_mermaid(b, lines[i]);
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
	for (size_t i = 0; i < e->srcs.n; i++) {
		const struct ab_sourcesrec_source *s = &e->srcs.v[i];
		const struct ab_fetch_record *rec = s->rec;
		const char *id = s->id;
		char *label = rec->kind == AB_FETCH_GIT ? ab_sprintf("git %.12s", ab_pr_git_pin(rec))
		    : rec->kind == AB_FETCH_DIR ? ab_sprintf("dirHash %.12s", rec->dirhash)
		                                : ab_sprintf("sha256 %.12s", rec->sha256);

		ab_buf_puts(b, "  ");
		put_node_id(b, "src_", id);
		put_node_label(b, id, label);
		ab_buf_puts(b, "\n");
		free(label);
		for (size_t j = 0; j < s->patches.n; j++) {
			char *pid = ab_sprintf("%s_%zu", id, j);

			ab_buf_puts(b, "  ");
			put_node_id(b, "patch_", pid);
			put_node_label(b, s->patches.v[j], NULL);
			ab_buf_puts(b, " -- patch --> ");
			put_node_id(b, "src_", id);
			ab_buf_puts(b, "\n");
			free(pid);
		}
		for (size_t j = 0; j < s->overlay_paths.n; j++) {
			struct ab_buf edge = {0};

			ab_buf_puts(&edge, " -- \"overlay ");
			ab_page_mermaid(&edge, s->overlay_paths.v[j]);
			ab_buf_puts(&edge, "\" --> ");
			put_edge(b, "src_", s->overlay_sources.v[j], edge.s, "src_", id);
			ab_buf_free(&edge);
		}
	}
}

/* the variants, what each is made from, and their artifacts */
static void
flow_variants(struct ab_buf *b, const struct evidence *e)
{
	for (const struct ab_cmdsrec_variant *v = e->cmds.variants; v < e->cmds.variants + e->cmds.nvariants; v++) {
		const char *label = v->label;
		const struct ab_binprov_variant *bv = ab_pr_bin_of(e, label);
		size_t k = 0;

		ab_buf_puts(b, "  ");
		put_node_id(b, "var_", label);
		put_node_label(b, label, ab_pr_kind_words(v));
		ab_buf_puts(b, "\n");
		if (ab_pr_kind_is(v, "relink")) {
			put_edge(b, "var_", v->def.relink_from, " -- relink --> ", "var_", label);
			for (size_t i = 0; i < v->def.nreplace; i++)
				put_edge(b, "var_", v->def.replace[i].with_variant, " -. archive .-> ", "var_", label);
		} else if (ab_pr_kind_is(v, "runtime_of")) {
			put_edge(b, "var_", v->def.runtime_of, " -. runtime env .-> ", "var_", label);
			continue;
		} else {
			put_edge(b, "src_", v->def.source, " --> ", "var_", label);
			for (size_t i = 0; bv && i < bv->nuses; i++)
				put_edge(b, "var_", bv->uses[i].variant, " -. uses .-> ", "var_", label);
		}
		for (size_t i = 0; bv && i < bv->nartifacts; i++) {
			const char *p = bv->artifacts[i].path, *h = bv->artifacts[i].sha256;
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

void
ab_pr_section_flow(struct ab_buf *b, const struct evidence *e)
{
	struct ab_buf chart = {0};

	ab_buf_puts(b, "### Flow\n\n");
	ab_buf_puts(&chart, "flowchart LR\n");
	flow_sources(&chart, e);
	flow_variants(&chart, e);
	ab_pr_put_fenced(b, "mermaid", chart.s);
	ab_buf_puts(b, "\n");
	ab_buf_free(&chart);
}
