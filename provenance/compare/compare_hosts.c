/* compare: runs of several hosts (refused, split a set per host, or pooled) and runs with and without the allocator's statistics (compare.h) */
#include "compare.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "compare_impl.h"

const char *
ab_compare_run_host(const struct ab_runrec *r)
{
	const char *h = ab_json_str(r->environment, "host");

	return h && *h ? h : "(unknown host)";
}

/* the hosts of a set's runs, in order of first run */
static void
collect_hosts(struct ab_compare_set *s)
{
	for (size_t i = 0; i < s->nruns; i++)
		if (!ab_strv_has(&s->hosts, ab_compare_run_host(&s->runs[i])))
			ab_strv_push(&s->hosts, ab_compare_run_host(&s->runs[i]));
}

/* "alpha (4 runs) and beta (4 runs)" */
static char *
hosts_text(const struct ab_compare_set *s)
{
	struct ab_buf b = {0};

	for (size_t h = 0; h < s->hosts.n; h++) {
		size_t n = 0;

		for (size_t i = 0; i < s->nruns; i++)
			n += !strcmp(ab_compare_run_host(&s->runs[i]), s->hosts.v[h]);
		ab_buf_printf(&b, "%s%s (%zu run%s)", !h ? "" : h + 1 == s->hosts.n ? " and " : ", ", s->hosts.v[h], n,
		    n == 1 ? "" : "s");
	}
	return ab_buf_detach(&b);
}

/*
 * a label whose runs asked its allocator for its statistics at exit (run
 * --allocator-stats: a setting of the allocator) in some runs and not in
 * others: never pooled. 0 or AB_EFAIL (reported)
 */
int
ab_compare_refuse_mixed_stats(const struct ab_comparison *c)
{
	for (size_t k = 0; k < c->nsets; k++) {
		const struct ab_compare_set *s = &c->sets[k];
		struct ab_strmap at = {0};
		size_t (*n)[2] = ab_calloc(s->nruns + 1, sizeof(*n)), next = 0, l;
		int e = 0;

		for (size_t i = 0; i < s->nruns; i++) {
			if (!ab_strmap_get(&at, s->runs[i].label, &l))
				ab_strmap_put(&at, s->runs[i].label, l = next++);
			n[l][s->runs[i].alloc_stats != NULL]++;
		}
		for (size_t i = 0; i < s->nruns && !e; i++) {
			ab_strmap_get(&at, s->runs[i].label, &l);
			if (n[l][0] && n[l][1]) {
				ab_error("compare: runs/%s: %s: %zu run%s with --allocator-stats and %zu without: never pooled "
				    "(asking for the statistics changes the allocator's settings); give them another --name",
				    s->name, s->runs[i].label, n[l][1], n[l][1] == 1 ? "" : "s", n[l][0]);
				e = AB_EFAIL;
			}
		}
		ab_strmap_free(&at);
		free(n);
		if (e)
			return e;
	}
	return 0;
}

/*
 * the sets whose runs ran on several hosts: refused (named), split into a
 * set per host (following each other, the name's hosts on each), or
 * pooled as they are. 0 or AB_EFAIL (reported)
 */
int
ab_compare_split_hosts(struct ab_comparison *c)
{
	struct ab_compare_set *v = NULL;
	size_t n = 0;

	for (size_t k = 0; k < c->nsets; k++)
		collect_hosts(&c->sets[k]);
	for (size_t k = 0; k < c->nsets; k++) {
		struct ab_compare_set *s = &c->sets[k];

		if (s->hosts.n > 1 && c->o.hosts == AB_HOSTS_REFUSE) {
			char *t = hosts_text(s);

			ab_error("compare: runs/%s: runs of %zu hosts, %s: not pooled silently ('--by-host' compares each "
			    "host's runs apart, '--pool-hosts' pools them)", s->name, s->hosts.n, t);
			free(t);
			return AB_EFAIL;
		}
	}
	for (size_t k = 0; k < c->nsets; k++) {
		struct ab_compare_set *s = &c->sets[k];

		if (s->hosts.n < 2 || c->o.hosts != AB_HOSTS_SPLIT) {
			v = ab_realloc(v, (n + 1) * sizeof(*v));
			v[n++] = *s;
			continue;
		}
		for (size_t h = 0; h < s->hosts.n; h++) {
			struct ab_compare_set *x;

			v = ab_realloc(v, (n + 1) * sizeof(*v));
			x = &v[n++];
			memset(x, 0, sizeof(*x));
			x->name = ab_strdup(s->name);
			x->host = ab_strdup(s->hosts.v[h]);
			for (size_t j = 0; j < s->hosts.n; j++)
				ab_strv_push(&x->hosts, s->hosts.v[j]);
			x->runs = ab_calloc(s->nruns, sizeof(*x->runs));
			x->src = ab_calloc(s->nruns, sizeof(*x->src));
			/* the runs move: each is released once, by its host's set */
			for (size_t i = 0; i < s->nruns; i++)
				if (!strcmp(ab_compare_run_host(&s->runs[i]), s->hosts.v[h])) {
					x->runs[x->nruns] = s->runs[i];
					x->src[x->nruns++] = s->src[i];
				}
		}
		free(s->name);
		free(s->runs);
		free(s->src);
		ab_strv_free(&s->hosts);
	}
	free(c->sets);
	c->sets = v;
	c->nsets = n;
	return 0;
}

/* one row of a name's hosts: its verdict on each (AB_VERDICT_TOO_FEW + 1: no row there) */
struct host_row {
	const struct ab_compare_row **on;
};

/*
 * the hosts of a split name, sets [first, first + n): the labels that ran
 * other bytes on another host, and the rows whose verdicts disagree (both
 * with runs enough for a verdict), noted on its last set and warned
 */
void
ab_compare_note_hosts(struct ab_compare_set *sets, size_t n)
{
	struct ab_compare_set *last = &sets[n - 1];
	struct ab_strmap at = {0};
	struct ab_strv keys = {0};
	struct host_row *rows = NULL;
	struct ab_strv labels = {0};

	/* the artifacts: one digest a label on every host (a pooled set's runs name theirs) */
	for (size_t h = 0; h < n; h++)
		for (size_t l = 0; l < sets[h].labels.n; l++)
			if (!ab_strv_has(&labels, sets[h].labels.v[l]))
				ab_strv_push(&labels, sets[h].labels.v[l]);
	for (size_t l = 0; l < labels.n; l++) {
		struct ab_buf b = {0};
		const char *first = NULL;
		int differ = 0;

		for (size_t x = 0; x < last->hosts.n; x++) {
			const char *hex = NULL;
			int mixed = 0;

			for (size_t h = 0; h < n; h++)
				for (size_t i = 0; i < sets[h].nruns; i++)
					if (!strcmp(sets[h].runs[i].label, labels.v[l]) &&
					    !strcmp(ab_compare_run_host(&sets[h].runs[i]), last->hosts.v[x])) {
						mixed |= hex && strcmp(hex, sets[h].runs[i].subject_sha256);
						hex = sets[h].runs[i].subject_sha256;
					}
			if (!hex)
				continue;
			ab_buf_printf(&b, "%s%s sha256 %.12s%s", b.len ? ", " : "", last->hosts.v[x], hex,
			    mixed ? " and others" : "");
			differ |= mixed || (first && strcmp(first, hex));
			first = first ? first : hex;
		}
		if (differ) {
			ab_strv_pushf(&last->host_notes, "%s ran other bytes on the hosts: %s", labels.v[l], b.s);
			last->hosts_bytes_differ = 1;
		}
		ab_buf_free(&b);
	}
	/* the verdicts, row by row: the same cell, metric, label and baseline on each host */
	for (size_t h = 0; h < n; h++)
		for (size_t i = 0; i < sets[h].nrows; i++) {
			const struct ab_compare_row *r = &sets[h].rows[i];
			char *key;
			size_t k;

			if (r->control && r->against != sets[h].baseline)
				continue;
			key = ab_sprintf("%s\n%s\n%s\n%s", sets[h].cells.v[r->cell], sets[h].metrics[r->metric].name,
			    sets[h].labels.v[r->label], sets[h].labels.v[r->against]);
			if (!ab_strmap_get(&at, key, &k)) {
				ab_strv_push(&keys, key);
				k = keys.n - 1;
				ab_strmap_put(&at, keys.v[k], k);
				rows = ab_realloc(rows, keys.n * sizeof(*rows));
				rows[k].on = ab_calloc(n, sizeof(*rows[k].on));
			}
			rows[k].on[h] = r;
			free(key);
		}
	for (size_t k = 0; k < keys.n; k++) {
		const struct ab_compare_row *ref = NULL;
		struct ab_buf b = {0};
		int differ = 0;

		for (size_t h = 0; h < n; h++) {
			const struct ab_compare_row *r = rows[k].on[h];

			if (!r || r->verdict == AB_VERDICT_TOO_FEW)
				continue;
			differ |= ref && ref->verdict != r->verdict;
			ref = ref ? ref : r;
		}
		if (differ) {
			const struct ab_compare_set *s0 = NULL;
			const struct ab_compare_row *r0 = NULL;

			for (size_t h = 0; h < n; h++) {
				const struct ab_compare_row *r = rows[k].on[h];

				if (!r)
					continue;
				if (!r0)
					r0 = r, s0 = &sets[h];
				ab_buf_printf(&b, "%s%s on %s", b.len ? ", " : "", ab_stats_verdict_word(r->verdict), sets[h].host);
				if (r->ci.undefined == AB_RATIO_DEFINED)
					ab_buf_printf(&b, " (ratio %.3f, p %.3g)", r->ci.ratio, r->u.p);
				else
					ab_buf_printf(&b, " (p %.3g)", r->u.p);
			}
			ab_strv_pushf(&last->host_notes, "the hosts disagree on %s%s%s of %s against %s: %s",
			    s0->metrics[r0->metric].name, *s0->cells.v[r0->cell] ? " in cell " : "", s0->cells.v[r0->cell],
			    s0->labels.v[r0->label], s0->labels.v[r0->against], b.s);
			last->hosts_disagree = 1;
		}
		ab_buf_free(&b);
		free(rows[k].on);
	}
	for (size_t i = 0; i < last->host_notes.n; i++)
		ab_strv_push(&last->warnings, last->host_notes.v[i]);
	free(rows);
	ab_strv_free(&keys);
	ab_strmap_free(&at);
	ab_strv_free(&labels);
}

