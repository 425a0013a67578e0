/* compare: reading the run records of an OUTDIR and its --runs-from copies into sets (compare.h) */
#include "compare.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/pool.h"
#include "../record/manifest.h"
#include "compare_impl.h"

/* ---- reading the records ---- */

/* one record: its place, what SHA256SUMS says of it, its bytes, and what they parse into */
struct item {
	const char *rel, *want;
	size_t src;     /* its OUTDIR (source_dir) */
	struct ab_buf bytes;
	cJSON *doc;
	int state;      /* 0 read, 1 cannot be read (reported), 2 digest differs, 3 not JSON */
	char got[AB_HEX_LEN + 1];
};

/* the OUTDIR runs come from: 0 the one compared, k its --runs-from k */
const char *
ab_compare_source_dir(const struct ab_comparison *c, size_t k)
{
	return k ? c->o.runs_from[k - 1] : c->o.outdir;
}

/* hash and parse one record's bytes (on the pool: nothing reported here) */
static int
parse_one(void *arg, size_t i, int worker)
{
	struct item *it = &((struct item *)arg)[i];

	(void)worker;
	if (it->state)
		return 0;
	ab_hash_buf(it->got, it->bytes.s ? it->bytes.s : "", it->bytes.len);
	if (strcmp(it->got, it->want))
		it->state = 2;
	else if (!(it->doc = cJSON_ParseWithLength(it->bytes.s ? it->bytes.s : "", it->bytes.len)))
		it->state = 3;
	ab_buf_free(&it->bytes);
	return 0;
}

/* read a record through OUTDIR's resolver; reported */
static void
read_one(struct item *it, int rootfd, const char *outdir)
{
	char why[AB_BENEATH_WHY];
	int fd = ab_dirwalk_open_beneath(rootfd, it->rel, O_RDONLY | O_NONBLOCK, 0, why);
	char *name = ab_path_join(outdir, it->rel);

	if (fd < 0) {
		ab_error("compare: '%s': %s", name, why);
		it->state = 1;
	} else {
		if (ab_read_fd_max(&it->bytes, fd, name, 64u << 20) < 0)
			it->state = 1;
		close(fd);
	}
	free(name);
}

/* the run name of a record's path runs/NAME/NNNN-LABEL.intoto.json; caller frees */
static char *
name_of(const char *rel)
{
	const char *n = rel + sizeof(AB_RUN_DIR);

	return ab_strndup(n, strcspn(n, "/"));
}

/* a run and its OUTDIR, sorted together: by number, then OUTDIR */
struct sourced {
	struct ab_runrec r;
	size_t src;
};

static int
cmp_sourced(const void *a, const void *b)
{
	const struct sourced *x = a, *y = b;

	if (x->r.number != y->r.number)
		return x->r.number < y->r.number ? -1 : 1;
	return x->src < y->src ? -1 : x->src > y->src;
}

/* a set's runs in run number order (then OUTDIR), with their OUTDIRs */
static void
sort_runs(struct ab_compare_set *s)
{
	struct sourced *v = ab_calloc(s->nruns + 1, sizeof(*v));

	for (size_t i = 0; i < s->nruns; i++)
		v[i].r = s->runs[i], v[i].src = s->src[i];
	qsort(v, s->nruns, sizeof(*v), cmp_sourced);
	for (size_t i = 0; i < s->nruns; i++)
		s->runs[i] = v[i].r, s->src[i] = v[i].src;
	free(v);
}

/* report what was wrong with a record; AB_ECHECK, or AB_EFAIL when it is not a record */
static int
item_error(const struct item *it, const char *outdir)
{
	switch (it->state) {
	case 1:
		return AB_ECHECK;
	case 2:
		ab_error("compare: '%s/%s': sha256 %s, SHA256SUMS says %s: run 'allocbuild verify %s'", outdir, it->rel,
		    it->got, it->want, outdir);
		return AB_ECHECK;
	default:
		ab_error("compare: '%s/%s': not a JSON document", outdir, it->rel);
		return AB_EFAIL;
	}
}

/* the records each OUTDIR's SHA256SUMS lists, of the run names asked for, into sets sorted by name */
int
ab_compare_load_sets(struct ab_comparison *c)
{
	size_t nsrc = 1 + c->o.nruns_from, total = 0, n = 0;
	struct ab_manifest_recorded *rec = ab_calloc(nsrc, sizeof(*rec));
	int *rootfd = ab_calloc(nsrc, sizeof(*rootfd));
	struct ab_strv names = {0};
	struct ab_strmap name_at = {0}, seen = {0};
	struct item *items = NULL;
	int e = 0;

	for (size_t k = 0; k < nsrc; k++)
		rootfd[k] = -1;
	for (size_t k = 0; k < nsrc && e == 0; k++)
		if ((e = ab_manifest_recorded_read(&rec[k], ab_compare_source_dir(c, k), 0)) == 0)
			total += rec[k].paths.n;
	if (e < 0)
		goto done;
	items = ab_calloc(total + 1, sizeof(*items));
	for (size_t k = 0; k < nsrc; k++)
		for (size_t i = 0; i < rec[k].paths.n; i++) {
			char *name;

			/* a copy of OUTDIR carries its records: the same bytes are the same run, read once */
			if (!ab_runrec_is_statement(rec[k].paths.v[i]) || ab_strmap_get(&seen, rec[k].hexes.v[i], NULL))
				continue;
			ab_strmap_put(&seen, rec[k].hexes.v[i], 0);
			name = name_of(rec[k].paths.v[i]);
			if (c->o.name && strcmp(name, c->o.name)) {
				free(name);
				continue;
			}
			/* the index holds the names' own strings: pushed first, then indexed */
			if (!ab_strmap_get(&name_at, name, NULL)) {
				ab_strv_push(&names, name);
				ab_strmap_put(&name_at, names.v[names.n - 1], names.n - 1);
			}
			items[n].rel = rec[k].paths.v[i];
			items[n].want = rec[k].hexes.v[i];
			items[n].src = k;
			n++;
			free(name);
		}
	e = AB_EFAIL;
	if (!n) {
		if (c->o.name)
			ab_error("compare: '%s' has no runs named '%s' in its SHA256SUMS", c->o.outdir, c->o.name);
		else
			ab_error("compare: '%s' has no runs in its SHA256SUMS: record some with 'allocbuild run'", c->o.outdir);
		goto done;
	}
	for (size_t k = 0; k < nsrc; k++)
		if ((rootfd[k] = open(ab_compare_source_dir(c, k), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
			ab_error_errno("compare: cannot open '%s'", ab_compare_source_dir(c, k));
			goto done;
		}
	/* read here (errors reported in order), parsed on the pool (most of the work) */
	for (size_t i = 0; i < n; i++)
		read_one(&items[i], rootfd[items[i].src], ab_compare_source_dir(c, items[i].src));
	ab_pool_run(n, 0, parse_one, items);
	ab_strv_sort(&names);
	ab_strmap_free(&name_at);
	ab_strmap_of_strv(&name_at, &names);
	c->nsets = names.n;
	c->sets = ab_calloc(names.n, sizeof(*c->sets));
	for (size_t k = 0; k < names.n; k++)
		c->sets[k].name = ab_strdup(names.v[k]);
	e = 0;
	for (size_t i = 0; i < n; i++) {
		struct item *it = &items[i];
		struct ab_compare_set *s;
		char *name = name_of(it->rel);
		size_t k = 0;

		ab_strmap_get(&name_at, name, &k);
		s = &c->sets[k];
		free(name);
		if (it->state) {
			int ie = item_error(it, ab_compare_source_dir(c, it->src));

			e = e < 0 ? e : ie;
			continue;
		}
		s->runs = ab_realloc(s->runs, (s->nruns + 1) * sizeof(*s->runs));
		s->src = ab_realloc(s->src, (s->nruns + 1) * sizeof(*s->src));
		{
			char *where = ab_path_join(ab_compare_source_dir(c, it->src), it->rel);
			int pe = ab_runrec_parse(&s->runs[s->nruns], it->doc, where);

			it->doc = NULL;
			free(where);
			if (pe < 0) {
				ab_runrec_release(&s->runs[s->nruns]);
				e = e < 0 ? e : pe;
				continue;
			}
		}
		s->src[s->nruns] = it->src;
		s->nruns++;
	}
	for (size_t k = 0; k < c->nsets; k++)
		sort_runs(&c->sets[k]);
done:
	for (size_t i = 0; i < n; i++) {
		cJSON_Delete(items[i].doc);
		ab_buf_free(&items[i].bytes);
	}
	free(items);
	for (size_t k = 0; k < nsrc; k++) {
		if (rootfd[k] >= 0)
			close(rootfd[k]);
		ab_manifest_recorded_release(&rec[k]);
	}
	free(rootfd);
	free(rec);
	ab_strmap_free(&name_at);
	ab_strmap_free(&seen);
	ab_strv_free(&names);
	return e;
}

