/*
 * pr_runs: the runs section of pr.md (allocbuild run,
 * provenance/runs/runrec.h): per run name its labels, figures, warnings,
 * run environments, the tails of failed runs' logs and the charts.
 */
#include "pr_impl.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../record/bundle.h"
#include "../runs/runenv.h"

/* the runs of one name (compare's, read typed through SHA256SUMS's digests), in run number order */
struct run_group {
	const char *name;
	const struct ab_runrec **runs;
	size_t n;
};

/* the labels of a group, in order of first run */
static void
group_labels(struct ab_strv *labels, const struct run_group *g)
{
	for (size_t i = 0; i < g->n; i++)
		if (!ab_strv_has(labels, g->runs[i]->label))
			ab_strv_push(labels, g->runs[i]->label);
}

/* a warning when a label's repetitions differ in exit status (compare warns of run environments) */
static void
put_run_warnings(struct ab_buf *b, const struct run_group *g, const struct ab_strv *labels)
{
	struct ab_buf w = {0};

	for (size_t i = 0; i < labels->n; i++) {
		struct ab_strv st = {0};

		for (size_t k = 0; k < g->n; k++)
			if (!strcmp(g->runs[k]->label, labels->v[i])) {
				char *s = ab_runrec_ending(g->runs[k]);

				if (!ab_strv_has(&st, s))
					ab_strv_push(&st, s);
				free(s);
			}
		if (st.n > 1) {
			ab_buf_puts(&w, "> - ");
			ab_pr_put_code(&w, labels->v[i]);
			ab_buf_puts(&w, ":");
			for (size_t k = 0; k < st.n; k++) {
				ab_buf_puts(&w, k ? ", " : " ");
				ab_pr_put_text(&w, st.v[k]);
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

/*
 * what a run ran, as a cell: the program of --program (the record's
 * subject), else the one its command resolved to, by name and digest,
 * marked when it is no artifact of the build (kept in the bundle, or
 * not); NULL for a record of an earlier allocbuild; caller frees
 */
static char *
run_program(const struct ab_runrec *r)
{
	const struct ab_runrec_input *p = r->given ? r->given : &r->program;
	struct ab_buf b = {0};

	if (!p->name)
		return NULL;
	ab_pr_put_code(&b, p->name);
	ab_buf_puts(&b, " ");
	ab_pr_put_short_hash(&b, p->sha256);
	if (!p->artifact)
		ab_buf_puts(&b, p->kept ? " (kept in the bundle)" : " ⚠ not an artifact of this build");
	return ab_buf_detach(&b);
}

/* one row of the table: label, repetitions, statuses, program, JUnit totals (the figures: the comparison) */
static void
put_run_row(struct ab_buf *b, const struct run_group *g, const char *label)
{
	size_t n = 0;
	double jt[4] = {0};
	int junit = 0, junit_missing = 0;
	struct ab_buf st = {0};
	struct ab_strv programs = {0};

	for (size_t i = 0; i < g->n; i++) {
		const struct ab_runrec *r = g->runs[i];
		char *s;

		if (strcmp(r->label, label))
			continue;
		n++;
		s = ab_runrec_ending(r);
		ab_buf_printf(&st, "%s%s", st.len ? ", " : "", s);
		free(s);
		s = run_program(r);
		if (s && !ab_strv_has(&programs, s))
			ab_strv_push(&programs, s);
		free(s);
		if (r->junit_read.summed) {
			junit = 1;
			jt[0] += r->junit_read.tests;
			jt[1] += r->junit_read.failures;
			jt[2] += r->junit_read.errors;
			jt[3] += r->junit_read.skipped;
		} else if (r->junit_read.asked) {
			junit_missing++;
		}
	}
	ab_buf_puts(b, "| ");
	ab_pr_put_code(b, label);
	ab_buf_printf(b, " | %zu | ", n);
	ab_pr_put_text(b, st.s ? st.s : "");
	ab_buf_puts(b, " | ");
	for (size_t i = 0; i < programs.n; i++)
		ab_buf_printf(b, "%s%s", i ? "<br>" : "", programs.v[i]);
	ab_buf_puts(b, programs.n ? " | " : "– | ");
	if (junit)
		ab_buf_printf(b, "%.0f tests, %.0f failures, %.0f errors, %.0f skipped", jt[0], jt[1], jt[2], jt[3]);
	else
		ab_buf_puts(b, "–");
	if (junit_missing)
		ab_buf_printf(b, "%s%d report%s missing", junit ? "; " : "", junit_missing, junit_missing == 1 ? "" : "s");
	ab_buf_puts(b, " |\n");
	ab_buf_free(&st);
	ab_strv_free(&programs);
}

/* the last lines of a run's log, at most this many bytes in pr.md (the whole log is in the bundle) */
#define RUN_LOG_TAIL 2048

static void
put_log_tail(struct ab_buf *b, const struct evidence *e, const struct ab_runrec *r)
{
	const char *rel = r->log.path;
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
		ab_pr_put_code(b, rel);
		ab_buf_puts(b, from ? " (whole in the bundle):\n\n" : ":\n\n");
		ab_pr_put_fenced(b, "", text.s ? text.s : "");
	}
	ab_buf_free(&log);
	ab_buf_free(&text);
	free(p);
}

/* a figure of a run as the list shows it: 0 where the record has none */
static double
shown_figure(double v)
{
	return isnan(v) ? 0 : v;
}

/* every run, failed ones and their reruns alike, folded */
static void
put_run_list(struct ab_buf *details, const struct evidence *e, const struct run_group *g)
{
	struct ab_buf a = {0};

	ab_buf_puts(details, "<details><summary>Runs of ");
	ab_pr_put_html_code(details, g->name);
	ab_buf_puts(details, ": every run, failed ones and reruns alike</summary>\n\n"
	    "| # | label | repetition | started (UTC) | status | wall s | user s | sys s | peak RSS MiB | log sha256 |\n"
	    "|---|---|---|---|---|---|---|---|---|---|\n");
	for (size_t i = 0; i < g->n; i++) {
		const struct ab_runrec *r = g->runs[i];
		char *s = ab_runrec_ending(r);

		ab_buf_printf(details, "| %04d | ", r->number);
		ab_pr_put_code(details, r->label);
		ab_buf_printf(details, " | %d/%d | ", r->repetition, r->repetitions);
		ab_pr_put_text(details, r->started_on[0] ? r->started_on : "?");
		ab_buf_puts(details, " | ");
		ab_pr_put_text(details, s);
		ab_buf_printf(details, " | %.3f | %.3f | %.3f | %.1f | ", shown_figure(r->wall_s), shown_figure(r->user_s),
		    shown_figure(r->sys_s), r->maxrss_kb < 0 ? 0 : (double)r->maxrss_kb / 1024);
		ab_pr_put_short_hash(details, r->log.sha256[0] ? r->log.sha256 : NULL);
		ab_buf_puts(details, " |\n");
		free(s);
	}
	ab_buf_puts(details, "\nCommand (argv, no shell) of the first run: ");
	for (char *const *v = g->runs[0]->argv; v && *v; v++)
		ab_buf_printf(&a, "%s%s", a.len ? " " : "", *v);
	ab_pr_put_code(details, a.s ? a.s : "");
	ab_buf_free(&a);
	ab_buf_puts(details, "\n");
	for (size_t i = 0; i < g->n; i++)
		if (!ab_runrec_ok(g->runs[i]))
			put_log_tail(details, e, g->runs[i]);
	ab_buf_puts(details, "\n</details>\n\n");
}

/* the run environment of a group's first run, in one line */
static void
put_run_env(struct ab_buf *b, const struct run_group *g)
{
	struct ab_runenv_shown v;
	char line[512];

	ab_runenv_read_shown(&v, g->runs[0]->environment);
	snprintf(line, sizeof(line), "kernel %s, %s, CPUs %s of %s online, governor %s, THP %s (defrag %s), "
	    "pages %.0f B, swap %.0f kB, cgroup memory.max %s, glibc %s",
	    v.kernel ? v.kernel : "?", v.cpu_model ? v.cpu_model : "unknown CPU", v.cpu_affinity ? v.cpu_affinity : "?",
	    v.cpu_online ? v.cpu_online : "?", v.governor ? v.governor : "absent",
	    v.thp_enabled ? v.thp_enabled : "absent", v.thp_defrag ? v.thp_defrag : "absent",
	    shown_figure(v.page_size), shown_figure(v.swap_total_kb),
	    v.cgroup_memory_max ? v.cgroup_memory_max : "absent", v.glibc ? v.glibc : "?");
	ab_buf_puts(b, "Run environment (first run): ");
	ab_pr_put_text(b, line);
	ab_buf_puts(b, ".\n\n");
}

/* the parts of one run name, made of its heading, its tables (a), its Mermaid charts and the rest (b) */
static void
make_part(struct ab_pr_runs_part *p, const struct run_group *g, const struct ab_compare_set *set,
    const struct ab_buf *head, const struct ab_buf *a, const struct ab_buf *charts, const struct ab_buf *b, size_t limit,
    const char *bundle_name)
{
	struct ab_buf *full = &p->text[AB_PR_RUNS_FULL], *slim = &p->text[AB_PR_RUNS_NO_CHARTS],
	    *stub = &p->text[AB_PR_RUNS_STUB];
	char *dir = ab_sprintf("%s/%s/", AB_PR_CHARTS, g->name), *cmd = ab_sprintf("allocbuild compare OUTDIR --name %s",
	    g->name);

	ab_buf_add(full, head->s ? head->s : "", head->len);
	ab_buf_add(full, a->s ? a->s : "", a->len);
	ab_buf_add(full, charts->s ? charts->s : "", charts->len);
	ab_buf_add(full, b->s ? b->s : "", b->len);
	/* without its Mermaid charts: the page says where they are */
	ab_buf_add(slim, head->s ? head->s : "", head->len);
	ab_buf_add(slim, a->s ? a->s : "", a->len);
	if (charts->len) {
		ab_buf_printf(slim, "Its charts are left out of this page, which they would take past its %zu-character "
		    "limit: they are in `pr-details.md` inside `%s`, and as SVG files under ", limit, bundle_name);
		ab_pr_put_code(slim, dir);
		ab_buf_puts(slim, ".\n\n");
		ab_buf_puts(&p->left_out[AB_PR_RUNS_NO_CHARTS], "#### Charts of ");
		ab_pr_put_code(&p->left_out[AB_PR_RUNS_NO_CHARTS], g->name);
		ab_buf_puts(&p->left_out[AB_PR_RUNS_NO_CHARTS], "\n\n");
		ab_buf_add(&p->left_out[AB_PR_RUNS_NO_CHARTS], charts->s, charts->len);
	}
	ab_buf_add(slim, b->s ? b->s : "", b->len);
	/* its heading and what was left out */
	ab_buf_add(stub, head->s ? head->s : "", head->len);
	ab_buf_printf(stub, "Its comparison (%zu figure%s of %zu label%s), warnings, charts and run environment are left "
	    "out of this page, which they would take past its %zu-character limit: they are in `pr-details.md` inside "
	    "`%s` (the charts also as SVG files under ", set ? set->nmetrics : 0, set && set->nmetrics == 1 ? "" : "s",
	    set ? set->labels.n : 0, set && set->labels.n == 1 ? "" : "s", limit, bundle_name);
	ab_pr_put_code(stub, dir);
	ab_buf_puts(stub, "); ");
	ab_pr_put_code(stub, cmd);
	ab_buf_puts(stub, " prints the comparison.\n\n");
	ab_buf_add(&p->left_out[AB_PR_RUNS_STUB], head->s ? head->s : "", head->len);
	ab_buf_add(&p->left_out[AB_PR_RUNS_STUB], a->s ? a->s : "", a->len);
	ab_buf_add(&p->left_out[AB_PR_RUNS_STUB], charts->s ? charts->s : "", charts->len);
	ab_buf_add(&p->left_out[AB_PR_RUNS_STUB], b->s ? b->s : "", b->len);
	free(dir);
	free(cmd);
}

static int
cmp_run_number(const void *a, const void *b)
{
	const struct ab_runrec *const *x = a, *const *y = b;

	return ((*x)->number > (*y)->number) - ((*x)->number < (*y)->number);
}

/*
 * the runs of each name, as compare read them (through SHA256SUMS's
 * digests, typed: provenance/runs/runrec.h): the names in the order
 * SHA256SUMS lists their first records, a name's runs (one set, or a set
 * per host) in run number order; how many names
 */
static size_t
run_groups(struct run_group **out, const struct evidence *e, const struct ab_comparison *c)
{
	struct run_group *g = NULL;
	size_t ng = 0;

	for (size_t i = 0; i < e->rec.paths.n; i++) {
		const char *rel = e->rec.paths.v[i], *name = rel + strlen(AB_RUN_DIR) + 1;
		size_t len, k;

		if (!ab_runrec_is_statement(rel))
			continue;
		len = (size_t)(strchr(name, '/') - name);
		for (k = 0; k < ng && (strlen(g[k].name) != len || strncmp(g[k].name, name, len)); k++)
			;
		if (k < ng)
			continue;
		g = ab_realloc(g, (ng + 1) * sizeof(*g));
		memset(&g[ng], 0, sizeof(*g));
		for (size_t s = 0; s < c->nsets; s++) {
			const struct ab_compare_set *set = &c->sets[s];

			if (strlen(set->name) != len || strncmp(set->name, name, len))
				continue;
			g[ng].name = set->name;
			g[ng].runs = ab_realloc(g[ng].runs, (g[ng].n + set->nruns + 1) * sizeof(*g[ng].runs));
			for (size_t r = 0; r < set->nruns; r++)
				g[ng].runs[g[ng].n++] = &set->runs[r];
		}
		if (!g[ng].n) {
			free(g[ng].runs);
			continue;
		}
		/* a name split by host: its sets' runs back in one order (qsort is not stable, the numbers differ) */
		qsort(g[ng].runs, g[ng].n, sizeof(*g[ng].runs), cmp_run_number);
		ng++;
	}
	*out = g;
	return ng;
}

/*
 * the runs, per name: statuses, the comparison (provenance/compare/compare.h:
 * mixed run environments flagged, not refused), the environment, and
 * folded every run
 */
int
ab_pr_section_runs(struct ab_pr_runs *out, struct ab_buf *details, const struct evidence *e,
    struct ab_compare_svgs *svg, size_t limit, const char *bundle_name)
{
	struct run_group *g = NULL;
	size_t ng = 0;
	const struct ab_comparison *c = e->runs;
	int rc = AB_EFAIL;

	memset(out, 0, sizeof(*out));
	if (c)
		ng = run_groups(&g, e, c);
	if (!ng || !c) {
		rc = 0;
		goto done;
	}
	ab_buf_puts(&out->head, "### Runs\n\n");
	out->parts = ab_calloc(ng, sizeof(*out->parts));
	out->n = ng;
	for (size_t k = 0; k < ng; k++) {
		struct ab_strv labels = {0};
		struct ab_buf head = {0}, a = {0}, charts = {0}, b = {0};
		const struct ab_compare_set *set = NULL;

		group_labels(&labels, &g[k]);
		ab_buf_puts(&head, "#### ");
		ab_pr_put_code(&head, g[k].name);
		{
			/* one code span: text escapes inside one would show their backslashes */
			char *dir = ab_sprintf("%s/%s/", AB_RUN_DIR, g[k].name);

			ab_buf_printf(&head, " (%zu runs, records in ", g[k].n);
			ab_pr_put_code(&head, dir);
			ab_buf_puts(&head, ")\n\n");
			free(dir);
		}
		put_run_warnings(&a, &g[k], &labels);
		ab_buf_puts(&a, "| label | runs | exit statuses | program (sha256) | JUnit |\n|---|---|---|---|---|\n");
		for (size_t i = 0; i < labels.n; i++)
			put_run_row(&a, &g[k], labels.v[i]);
		ab_buf_puts(&a, "\n");
		for (size_t i = 0; i < c->nsets; i++)
			if (!strcmp(c->sets[i].name, g[k].name)) {
				size_t had = svg->names.n;

				set = &c->sets[i];
				ab_compare_markdown(&a, c, set);
				if ((rc = ab_compare_charts(&charts, c, set, svg)) < 0) {
					ab_strv_free(&labels);
					ab_buf_free(&head);
					ab_buf_free(&a);
					ab_buf_free(&charts);
					ab_buf_free(&b);
					goto done;
				}
				if (svg->names.n > had) {
					ab_buf_puts(&b, "The same charts as SVG files in the bundle:");
					for (size_t q = had; q < svg->names.n; q++) {
						char *rel = ab_sprintf("%s/%s", AB_PR_CHARTS, svg->names.v[q]);

						ab_buf_puts(&b, q > had ? ", " : " ");
						if (svg->href) {
							/* linked where the page lies beside them (OUTDIR, the bundle's top) */
							ab_buf_puts(&b, "[");
							ab_pr_put_code(&b, rel);
							ab_buf_puts(&b, "](<");
							ab_page_href(&b, svg->href);
							ab_page_href(&b, svg->names.v[q]);
							ab_buf_puts(&b, ">)");
						} else {
							ab_pr_put_code(&b, rel);
						}
						free(rel);
					}
					ab_buf_puts(&b, ".\n\n");
				}
			}
		put_run_env(&b, &g[k]);
		make_part(&out->parts[k], &g[k], set, &head, &a, &charts, &b, limit, bundle_name);
		put_run_list(details, e, &g[k]);
		ab_strv_free(&labels);
		ab_buf_free(&head);
		ab_buf_free(&a);
		ab_buf_free(&charts);
		ab_buf_free(&b);
	}
	ab_buf_puts(&out->tail, "`wall_s` is the command's wall time, `cpu_s` and `maxrss_mib` its process tree's (wait4: "
	    "the largest single process's peak, not a sum); the sampled figures (`steady_rss_mib`, `peak_rss_mib`, "
	    "`cooldown_rss_mib`, `rss_gib_s`) the whole tree's (docs/runs.md). `allocbuild compare` prints the same "
	    "comparison, and its values (`--format csv`, `json`).\n\n");
	rc = 0;
done:
	for (size_t k = 0; k < ng; k++)
		free(g[k].runs);
	free(g);
	return rc;
}

void
ab_pr_runs_release(struct ab_pr_runs *r)
{
	ab_buf_free(&r->head);
	ab_buf_free(&r->tail);
	for (size_t k = 0; k < r->n; k++)
		for (int z = 0; z < 3; z++) {
			ab_buf_free(&r->parts[k].text[z]);
			ab_buf_free(&r->parts[k].left_out[z]);
		}
	free(r->parts);
	memset(r, 0, sizeof(*r));
}
