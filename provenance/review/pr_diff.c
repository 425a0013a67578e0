/*
 * pr_diff: what differs between the variants (configure options,
 * CMake caches, word by word) and the flow chart from sources to
 * binaries (Mermaid).
 */
#include "pr_impl.h"

#include <stdlib.h>
#include <string.h>

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
			ab_pr_put_code(b, it->valuestring);
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
	const cJSON *d, *k;

	cJSON_ArrayForEach(d, ab_pr_jget(e->cmake, "diffs")) {
		const char *bl = ab_pr_jstr(d, "b");

		if (!bl || strcmp(bl, label))
			continue;
		cJSON_ArrayForEach(k, ab_pr_jget(d, "differences")) {
			const char *sec = ab_pr_jstr(k, "section"), *name = ab_pr_jstr(k, "key");
			const char *av = ab_pr_jstr(k, "a"), *bv = ab_pr_jstr(k, "b");
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
	const cJSON *c, *d;

	cJSON_ArrayForEach(c, ab_pr_jget(e->commands, "object_comparison")) {
		const char *x = ab_pr_jstr(c, "a"), *y = ab_pr_jstr(c, "b");
		const cJSON *same = ab_pr_jget(c, "identical"), *differ = ab_pr_jget(c, "differ");
		int n = 0, dirs = 0;

		if (!x || !y || strcmp(x, first) || strcmp(y, label) || !cJSON_IsNumber(same) || !cJSON_IsNumber(differ))
			continue;
		cJSON_ArrayForEach(d, ab_pr_jget(c, "differ_by_directory"))
			dirs++;
		/* after the settings ("...;" or "KEY: A → B;" written), or alone */
		ab_buf_printf(b, "%s objects: %d identical, %d differ", b->len && b->s[b->len - 1] != ';' &&
		    b->s[b->len - 1] != ':' ? ";" : "", same->valueint, differ->valueint);
		cJSON_ArrayForEach(d, ab_pr_jget(c, "differ_by_directory")) {
			if (n == 4) {
				ab_buf_printf(b, ", and %d more", dirs - n);
				break;
			}
			ab_buf_puts(b, n++ ? ", " : " (");
			ab_pr_put_code(b, d->string);
			ab_buf_printf(b, ": %d", cJSON_IsNumber(d) ? d->valueint : 0);
		}
		if (n)
			ab_buf_puts(b, ")");
		return;
	}
}

/* a runtime-only variant or a diagnostic relink, in words */
static void
put_special_difference(struct ab_buf *b, const struct evidence *e, const cJSON *v, const char *label)
{
	ab_buf_puts(b, "- ");
	ab_pr_put_code(b, label);
	if (ab_pr_is_kind(v, "runtime_of")) {
		ab_buf_puts(b, ": the binary of ");
		ab_pr_put_code(b, ab_pr_jstr_or(v, "definition.runtime_of", "?"));
		ab_buf_puts(b, ", run with ");
		ab_pr_put_runtime(b, v);
	} else {
		const cJSON *doc = ab_pr_for_label(e->relink, label);
		const char *verdict = ab_pr_jstr(doc, "verdict");

		ab_buf_puts(b, ": **diagnostic relink** of ");
		ab_pr_put_code(b, ab_pr_jstr_or(v, "definition.relink.from", "?"));
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
same_str(const cJSON *x, const cJSON *y, const char *path)
{
	const char *a = ab_pr_jstr(x, path), *b = ab_pr_jstr(y, path);

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

	cJSON_ArrayForEach(pair, ab_pr_jget(e->cmake, "diffs")) {
		const char *a = ab_pr_jstr(pair, "a"), *bl = ab_pr_jstr(pair, "b");
		const char *sa = ab_pr_jstr(ab_pr_for_label(e->commands, a), "definition.source");
		const char *sb = ab_pr_jstr(ab_pr_for_label(e->commands, bl), "definition.source");

		if (!a || !bl || !sa || !sb || strcmp(sa, sb))
			continue;
		cJSON_ArrayForEach(d, ab_pr_jget(pair, "differences")) {
			if (!rows++)
				ab_buf_puts(details, "<details><summary>CMake cache and flag differences (variants of one "
				    "source)</summary>\n\n| variants | section | key | first | second |\n|---|---|---|---|---|\n");
			ab_buf_puts(details, "| ");
			ab_pr_put_code(details, a);
			ab_buf_puts(details, " → ");
			ab_pr_put_code(details, bl);
			ab_buf_puts(details, " | ");
			ab_pr_put_text(details, ab_pr_jstr_or(d, "section", "?"));
			ab_buf_puts(details, " | ");
			ab_pr_put_code(details, ab_pr_jstr_or(d, "key", "?"));
			ab_buf_puts(details, " | ");
			ab_pr_put_code(details, ab_pr_jstr_or(d, "a", "–"));
			ab_buf_puts(details, " | ");
			ab_pr_put_code(details, ab_pr_jstr_or(d, "b", "–"));
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
	const cJSON *first = NULL, *v;
	int any = 0;

	ab_buf_puts(b, "### What differs between variants\n\n");
	cJSON_ArrayForEach(v, ab_pr_variants(e)) {
		const char *label = ab_pr_jstr_or(v, "label", "?");
		const cJSON *def = ab_pr_jget(v, "definition"), *fdef;
		size_t before;

		if (ab_pr_is_kind(v, "runtime_of") || ab_pr_is_kind(v, "relink")) {
			put_special_difference(b, e, v, label);
			any++;
			continue;
		}
		if (!first) {
			first = v;
			continue;
		}
		fdef = ab_pr_jget(first, "definition");
		if (!same_str(fdef, def, "build.system") || !same_str(fdef, def, "source"))
			continue;
		ab_buf_puts(b, "- ");
		ab_pr_put_code(b, label);
		ab_buf_puts(b, " against ");
		ab_pr_put_code(b, ab_pr_jstr_or(first, "label", "?"));
		ab_buf_puts(b, ":");
		before = b->len;
		args_diff(b, ab_pr_jget(def, "build.configure"), ab_pr_jget(fdef, "build.configure"), "+");
		args_diff(b, ab_pr_jget(fdef, "build.configure"), ab_pr_jget(def, "build.configure"), "−");
		if (b->len == before && ab_pr_is_kind(v, "autotools"))
			ab_buf_puts(b, " same configure arguments");
		put_cmake_diffs(b, e, label);
		put_object_diff(b, e, ab_pr_jstr_or(first, "label", "?"), label);
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
	const cJSON *rec, *it;

	cJSON_ArrayForEach(rec, ab_pr_jget(e->sources, "sources")) {
		const char *id = rec->string;
		char *label = ab_pr_is_kind(rec, "git") ? ab_sprintf("git %.12s", ab_pr_git_pin(rec) ? ab_pr_git_pin(rec) : "?")
		    : ab_pr_is_kind(rec, "dir") ? ab_sprintf("dirHash %.12s", ab_pr_jstr_or(rec, "dirHash", "?"))
		                      : ab_sprintf("sha256 %.12s", ab_pr_jstr_or(rec, "sha256", "?"));
		size_t j = 0;

		ab_buf_puts(b, "  ");
		put_node_id(b, "src_", id);
		put_node_label(b, id, label);
		ab_buf_puts(b, "\n");
		free(label);
		cJSON_ArrayForEach(it, ab_pr_jget(rec, "patches")) {
			char *pid = ab_sprintf("%s_%zu", id, j++);

			ab_buf_puts(b, "  ");
			put_node_id(b, "patch_", pid);
			put_node_label(b, cJSON_IsString(it) ? it->valuestring : "?", NULL);
			ab_buf_puts(b, " -- patch --> ");
			put_node_id(b, "src_", id);
			ab_buf_puts(b, "\n");
			free(pid);
		}
		cJSON_ArrayForEach(it, ab_pr_jget(rec, "overlay")) {
			struct ab_buf edge = {0};

			ab_buf_puts(&edge, " -- \"overlay ");
			ab_page_mermaid(&edge, it->string);
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

	cJSON_ArrayForEach(v, ab_pr_variants(e)) {
		const char *label = ab_pr_jstr_or(v, "label", "?");
		const cJSON *def = ab_pr_jget(v, "definition");
		size_t k = 0;

		ab_buf_puts(b, "  ");
		put_node_id(b, "var_", label);
		put_node_label(b, label, ab_pr_kind_words(v));
		ab_buf_puts(b, "\n");
		if (ab_pr_is_kind(v, "relink")) {
			put_edge(b, "var_", ab_pr_jstr(def, "relink.from"), " -- relink --> ", "var_", label);
			cJSON_ArrayForEach(it, ab_pr_jget(def, "relink.replace"))
				put_edge(b, "var_", ab_pr_jstr(it, "with.variant"), " -. archive .-> ", "var_", label);
		} else if (ab_pr_is_kind(v, "runtime_of")) {
			put_edge(b, "var_", ab_pr_jstr(def, "runtime_of"), " -. runtime env .-> ", "var_", label);
			continue;
		} else {
			put_edge(b, "src_", ab_pr_jstr(def, "source"), " --> ", "var_", label);
			cJSON_ArrayForEach(it, ab_pr_jget(ab_pr_for_label(e->binaries, label), "uses"))
				put_edge(b, "var_", ab_pr_jstr(it, "variant"), " -. uses .-> ", "var_", label);
		}
		cJSON_ArrayForEach(it, ab_pr_jget(ab_pr_for_label(e->binaries, label), "artifacts")) {
			const char *p = ab_pr_jstr(it, "path"), *h = ab_pr_jstr(it, "sha256");
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
