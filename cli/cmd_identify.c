/*
 * allocbuild identify [--json] [--strip N] CANDIDATE UPSTREAM...
 *
 * Rank upstream trees by how many of the candidate's files (then bytes)
 * they hold identically, print the best with its evidence, and say plainly
 * when no upstream matches. Exit 0 when the best upstream matches (the
 * upstream-diff verdict passes), 1 when none does, 2 on bad input.
 */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "cmd.h"
#include "../lib/util.h"
#include "../lib/jsonio.h"
#include "../provenance/alloc/allocver.h"
#include "../provenance/tree/updiff.h"

struct ranked {
	struct ab_updiff *u;
	size_t index; /* position on the command line */
};

static size_t
candidate_files(const struct ab_updiff *u)
{
	return u->count[AB_UPDIFF_IDENTICAL] + u->count[AB_UPDIFF_DIFFERS] + u->count[AB_UPDIFF_ONLY_CANDIDATE];
}

/* the better match first (ab_updiff_rank), then command-line order */
static int
cmp_rank(const void *a, const void *b)
{
	const struct ranked *x = a, *y = b;
	int c = ab_updiff_rank(x->u, y->u);

	if (c)
		return c;
	return x->index < y->index ? -1 : x->index > y->index;
}

static int
same_score(const struct ranked *x, const struct ranked *y)
{
	return ab_updiff_rank(x->u, y->u) == 0;
}

/* "VERSION 5.3.0-0-g..." or "no VERSION" or "bogus VERSION ..." */
static char *
version_label(const struct ab_tree *t)
{
	if (!t->version)
		return ab_strdup("no VERSION");
	if (ab_jemalloc_version_is_bogus(t->version))
		return ab_sprintf("bogus VERSION %s", t->version);
	return ab_sprintf("VERSION %s", t->version);
}

static void
print_text(const struct ab_tree *cand, struct ranked *r, size_t n)
{
	const struct ab_updiff *best = r[0].u;
	size_t ncand = candidate_files(best), shown = 0;
	char *label;

	printf("candidate: %s (%s): %zu files, %llu bytes, dirHash %s\n", cand->spec, ab_tree_kind_name(cand->kind),
	    cand->nfiles, (unsigned long long)cand->bytes, cand->dirhash);
	for (size_t i = 0; i < n; i++) {
		const struct ab_updiff *u = r[i].u;

		label = version_label(u->up);
		printf("%zu. %s (%s): %zu of %zu files identical (%llu of %llu bytes), %zu %s, %zu only in candidate, "
		    "%zu only in upstream%s\n", i + 1, u->up->spec, label, u->count[AB_UPDIFF_IDENTICAL], ncand,
		    (unsigned long long)u->identical_bytes, (unsigned long long)cand->bytes,
		    u->count[AB_UPDIFF_DIFFERS], u->count[AB_UPDIFF_DIFFERS] == 1 ? "differs" : "differ",
		    u->count[AB_UPDIFF_ONLY_CANDIDATE], u->count[AB_UPDIFF_ONLY_UPSTREAM],
		    u->matches ? "" : " [does not match]");
		free(label);
	}
	label = version_label(best->up);
	if (best->matches && best->count[AB_UPDIFF_IDENTICAL] == ncand)
		printf("best match: %s (%s): every candidate file is identical in it\n", best->up->spec, label);
	else if (best->matches)
		printf("best match: %s (%s): no source, header, template or build file differs or is extra\n",
		    best->up->spec, label);
	else {
		printf("no upstream matches exactly; the closest is %s (%s): %zu significant difference%s", best->up->spec,
		    label, best->significant, best->significant == 1 ? "" : "s");
		for (size_t i = 0; i < best->n && shown < 10; i++) {
			if (!best->v[i].significant)
				continue;
			printf("%s%s (%s)", shown ? ", " : ": ", best->v[i].path, ab_updiff_class_name(best->v[i].cls));
			shown++;
		}
		if (best->significant > shown)
			printf(", and %zu more", best->significant - shown);
		putchar('\n');
	}
	free(label);
	printf("evidence: %s\n", best->summary);
	for (size_t i = 1; i < n && same_score(&r[0], &r[i]); i++)
		printf("note: %s matches exactly as well as %s: they cannot be told apart by this candidate\n",
		    r[i].u->up->spec, best->up->spec);
	for (size_t i = 0; i < best->notes.n; i++)
		printf("%s\n", best->notes.v[i]);
}

/* 0, or -1 (reported) when the document cannot be printed */
static int
print_json(const struct ab_tree *cand, struct ranked *r, size_t n)
{
	cJSON *doc = cJSON_CreateObject(), *ranking;
	int error;

	cJSON_AddItemToObject(doc, "candidate", ab_updiff_side_json(cand));
	cJSON_AddStringToObject(doc, "best", r[0].u->up->spec);
	cJSON_AddBoolToObject(doc, "matches", r[0].u->matches);
	ranking = cJSON_AddArrayToObject(doc, "ranking");
	for (size_t i = 0; i < n; i++) {
		const struct ab_updiff *u = r[i].u;
		cJSON *o = cJSON_CreateObject(), *notes;

		cJSON_AddNumberToObject(o, "rank", (double)(i + 1));
		cJSON_AddItemToObject(o, "upstream", ab_updiff_side_json(u->up));
		cJSON_AddNumberToObject(o, "identical_files", (double)u->count[AB_UPDIFF_IDENTICAL]);
		cJSON_AddNumberToObject(o, "candidate_files", (double)candidate_files(u));
		cJSON_AddNumberToObject(o, "identical_bytes", (double)u->identical_bytes);
		cJSON_AddNumberToObject(o, "candidate_bytes", (double)cand->bytes);
		cJSON_AddNumberToObject(o, "differ", (double)u->count[AB_UPDIFF_DIFFERS]);
		cJSON_AddNumberToObject(o, "only_in_candidate", (double)u->count[AB_UPDIFF_ONLY_CANDIDATE]);
		cJSON_AddNumberToObject(o, "only_in_upstream", (double)u->count[AB_UPDIFF_ONLY_UPSTREAM]);
		cJSON_AddNumberToObject(o, "significant", (double)u->significant);
		cJSON_AddBoolToObject(o, "matches", u->matches);
		cJSON_AddStringToObject(o, "summary", u->summary);
		notes = cJSON_AddArrayToObject(o, "notes");
		for (size_t k = 0; k < u->notes.n; k++)
			cJSON_AddItemToArray(notes, cJSON_CreateString(u->notes.v[k]));
		cJSON_AddItemToArray(ranking, o);
	}
	error = ab_json_print(stdout, doc);
	cJSON_Delete(doc);
	return error;
}

static const char usage[] =
    "allocbuild identify [--json] [--strip N] [-j N] CANDIDATE UPSTREAM...\n"
    "\n"
    "Rank the upstreams by the number of candidate files (then bytes) they\n"
    "hold identically, print the best with its evidence, and say plainly\n"
    "when none matches. Exit 0 when the best matches, 1 when none does.\n";

static int
cmd_identify(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"json", no_argument, NULL, 'J'},
		{"strip", required_argument, NULL, 'p'},
		{"jobs", required_argument, NULL, 'j'},
		{NULL, 0, NULL, 0},
	};
	struct ab_tree **trees;
	struct ranked *r;
	size_t n;
	int json = 0, strip = -1, jobs = 2, c, rc;

	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+:j:", longopts, NULL)) != -1) {
		switch (c) {
		case 'J':
			json = 1;
			break;
		case 'p':
			if (ab_cmd_parse_strip(&strip, "identify", optarg) < 0)
				return AB_EXIT_USAGE;
			break;
		case 'j':
			if (ab_cmd_parse_jobs(&jobs, "identify", optarg) < 0)
				return AB_EXIT_USAGE;
			break;
		default:
			return ab_cmd_option_error("identify", c, argv);
		}
	}
	if (argc - optind < 2)
		return ab_cmd_usage_error("identify", "expected CANDIDATE and at least one UPSTREAM");
	n = (size_t)(argc - optind);
	trees = ab_calloc(n, sizeof(*trees));
	if (ab_updiff_read_trees(trees, (const char *const *)argv + optind, n, strip, jobs) < 0) {
		free(trees);
		return AB_EXIT_USAGE;
	}
	r = ab_calloc(n - 1, sizeof(*r));
	for (size_t i = 1; i < n; i++) {
		r[i - 1].u = ab_updiff_new(trees[0], trees[i], 0);
		r[i - 1].index = i;
	}
	qsort(r, n - 1, sizeof(*r), cmp_rank);
	rc = r[0].u->matches ? AB_EXIT_OK : AB_EXIT_CHECK;
	if (!json)
		print_text(trees[0], r, n - 1);
	else if (print_json(trees[0], r, n - 1) < 0)
		rc = AB_EXIT_USAGE;
	for (size_t i = 0; i < n - 1; i++)
		ab_updiff_free(r[i].u);
	for (size_t i = 0; i < n; i++)
		ab_tree_free(trees[i]);
	free(r);
	free(trees);
	return rc;
}

const struct ab_cmd ab_cmd_identify = {"identify", "rank upstream releases by how well they match a tree", usage, cmd_identify};
