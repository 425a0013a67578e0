/*
 * pr_runs: the runs section of pr.md (allocbuild run,
 * provenance/runs/runrec.h): per run name its labels, figures, warnings,
 * run environments, the tails of failed runs' logs and the charts.
 */
#include "pr_impl.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "../record/bundle.h"

/* the runs of one name, in the order SHA256SUMS lists their records */
struct run_group {
	char *name;
	cJSON *records; /* array of predicates */
};

static double
num(const cJSON *o, const char *path)
{
	const cJSON *n = ab_pr_jget(o, path);

	return cJSON_IsNumber(n) ? n->valuedouble : 0;
}

/* a run's ending in words: "0", "1", "SIGKILL", "timed out", "interrupted" */
static char *
run_status(const cJSON *r)
{
	const char *st = ab_pr_jstr_or(r, "status", "?");

	if (!strcmp(st, "exited") && cJSON_IsNumber(ab_pr_jget(r, "exit_code")))
		return ab_sprintf("%d", (int)num(r, "exit_code"));
	if (!strcmp(st, "signaled"))
		return ab_sprintf("%s", ab_pr_jstr_or(r, "signal_name", "signal"));
	return ab_strdup(st);
}

static int
run_ok(const cJSON *r)
{
	return !strcmp(ab_pr_jstr_or(r, "status", ""), "exited") && cJSON_IsNumber(ab_pr_jget(r, "exit_code")) &&
	    num(r, "exit_code") == 0;
}

/* the labels of a group, in order of first run */
static void
group_labels(struct ab_strv *labels, const struct run_group *g)
{
	const cJSON *r;

	cJSON_ArrayForEach(r, g->records)
		if (ab_pr_jstr(r, "label") && !ab_strv_has(labels, ab_pr_jstr(r, "label")))
			ab_strv_push(labels, ab_pr_jstr(r, "label"));
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
			if (!strcmp(ab_pr_jstr_or(r, "label", ""), labels->v[i])) {
				char *s = run_status(r);

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
run_program(const cJSON *r)
{
	const cJSON *p = ab_pr_jget(r, "subject_program");
	const char *name, *hex;
	struct ab_buf b = {0};

	if (!cJSON_IsObject(p))
		p = ab_pr_jget(r, "program");
	name = ab_pr_jstr(p, "name");
	hex = ab_pr_jstr(p, "sha256");
	if (!name || !hex)
		return NULL;
	ab_pr_put_code(&b, name);
	ab_buf_puts(&b, " ");
	ab_pr_put_short_hash(&b, hex);
	if (!cJSON_IsTrue(ab_pr_jget(p, "artifact")))
		ab_buf_puts(&b, ab_pr_jstr(p, "kept") ? " (kept in the bundle)" : " ⚠ not an artifact of this build");
	return ab_buf_detach(&b);
}

/* one row of the table: label, repetitions, statuses, program, JUnit totals (the figures: the comparison) */
static void
put_run_row(struct ab_buf *b, const struct run_group *g, const char *label)
{
	size_t n = 0;
	const cJSON *r;
	double jt[4] = {0};
	int junit = 0, junit_missing = 0;
	struct ab_buf st = {0};
	struct ab_strv programs = {0};

	cJSON_ArrayForEach(r, g->records) {
		const cJSON *sum = ab_pr_jget(r, "junit.summary");
		char *s;

		if (strcmp(ab_pr_jstr_or(r, "label", ""), label))
			continue;
		n++;
		s = run_status(r);
		ab_buf_printf(&st, "%s%s", st.len ? ", " : "", s);
		free(s);
		s = run_program(r);
		if (s && !ab_strv_has(&programs, s))
			ab_strv_push(&programs, s);
		free(s);
		if (sum) {
			junit = 1;
			jt[0] += num(sum, "tests");
			jt[1] += num(sum, "failures");
			jt[2] += num(sum, "errors");
			jt[3] += num(sum, "skipped");
		} else if (ab_pr_jget(r, "junit") && cJSON_IsObject(ab_pr_jget(r, "junit"))) {
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
put_log_tail(struct ab_buf *b, const struct evidence *e, const cJSON *r)
{
	const char *rel = ab_pr_jstr(r, "log.path");
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

/* every run, failed ones and their reruns alike, folded */
static void
put_run_list(struct ab_buf *details, const struct evidence *e, const struct run_group *g)
{
	const cJSON *r;

	ab_buf_puts(details, "<details><summary>Runs of ");
	ab_pr_put_html_code(details, g->name);
	ab_buf_puts(details, ": every run, failed ones and reruns alike</summary>\n\n"
	    "| # | label | repetition | started (UTC) | status | wall s | user s | sys s | peak RSS MiB | log sha256 |\n"
	    "|---|---|---|---|---|---|---|---|---|---|\n");
	cJSON_ArrayForEach(r, g->records) {
		char *s = run_status(r);

		ab_buf_printf(details, "| %04d | ", (int)num(r, "number"));
		ab_pr_put_code(details, ab_pr_jstr_or(r, "label", "?"));
		ab_buf_printf(details, " | %d/%d | ", (int)num(r, "repetition"), (int)num(r, "repetitions"));
		ab_pr_put_text(details, ab_pr_jstr_or(r, "started_on", "?"));
		ab_buf_puts(details, " | ");
		ab_pr_put_text(details, s);
		ab_buf_printf(details, " | %.3f | %.3f | %.3f | %.1f | ", num(r, "wall_s"), num(r, "user_s"),
		    num(r, "sys_s"), num(r, "maxrss_kb") / 1024);
		ab_pr_put_short_hash(details, ab_pr_jstr(r, "log.sha256"));
		ab_buf_puts(details, " |\n");
		free(s);
	}
	r = cJSON_GetArrayItem(g->records, 0);
	ab_buf_puts(details, "\nCommand (argv, no shell) of the first run: ");
	{
		struct ab_buf a = {0};
		const cJSON *it;

		cJSON_ArrayForEach(it, ab_pr_jget(r, "argv"))
			if (cJSON_IsString(it))
				ab_buf_printf(&a, "%s%s", a.len ? " " : "", it->valuestring);
		ab_pr_put_code(details, a.s ? a.s : "");
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
	const cJSON *r = cJSON_GetArrayItem(g->records, 0), *env = ab_pr_jget(r, "environment");
	char line[512];

	snprintf(line, sizeof(line), "kernel %s, %s, CPUs %s of %s online, governor %s, THP %s (defrag %s), "
	    "pages %.0f B, swap %.0f kB, cgroup memory.max %s, glibc %s",
	    ab_pr_jstr_or(env, "kernel", "?"), ab_pr_jstr_or(env, "cpu.model", "unknown CPU"),
	    ab_pr_jstr_or(env, "cpu.affinity", "?"),
	    ab_pr_jstr_or(env, "cpu.online", "?"), ab_pr_jstr_or(env, "cpu.governor", "absent"),
	    ab_pr_jstr_or(env, "memory.thp_enabled", "absent"), ab_pr_jstr_or(env, "memory.thp_defrag", "absent"),
	    num(env, "memory.page_size"), num(env, "memory.swap_total_kb"),
	    cJSON_IsString(ab_json_get(ab_json_get(env, "cgroup"), "memory.max")) ?
	    ab_json_get(ab_json_get(env, "cgroup"), "memory.max")->valuestring : "absent",
	    ab_pr_jstr_or(env, "glibc", "?"));
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

			ab_buf_printf(&head, " (%d runs, records in ", cJSON_GetArraySize(g[k].records));
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
	for (size_t k = 0; k < ng; k++) {
		free(g[k].name);
		cJSON_Delete(g[k].records);
	}
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
