#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../lib/jsonio.h"
#include "../lib/util.h"
#include "../provenance/manifest.h"
#include "../provenance/repro.h"

/* the manifests of a built OUTDIR a comparison reads */
struct side_docs {
	cJSON *binaries, *commands, *statement;
};

static int
read_side(struct side_docs *d, struct ab_repro_side *s, const char *outdir)
{
	static const char *const names[] = {"provenance/binary-provenance.json", "provenance/build-commands.json",
		"provenance/provenance.intoto.json"};
	cJSON **docs[] = {&d->binaries, &d->commands, &d->statement};

	for (size_t i = 0; i < AB_NELEM(names); i++) {
		char *p = ab_path_join(outdir, names[i]);
		int e = ab_json_read(docs[i], p);

		free(p);
		if (e < 0)
			return AB_EFAIL;
	}
	s->where = outdir;
	s->outdir = outdir;
	s->binaries = d->binaries;
	s->commands = d->commands;
	s->statement = d->statement;
	return 0;
}

static void
release_side(struct side_docs *d)
{
	cJSON_Delete(d->binaries);
	cJSON_Delete(d->commands);
	cJSON_Delete(d->statement);
}

/* the second build: the same variants, elsewhere, at another -j, from nothing */
static int
second_build(struct ab_plan **out, const struct ab_recipe *r, const struct ab_plan *first,
    char *const *labels, size_t nlabels, const struct ab_build_opts *o)
{
	struct ab_plan_opts po = {0};
	struct ab_build_opts bo = *o;
	char *dir = ab_path_join(first->outdir, AB_CHECK_DIR);
	int e;

	po.outdir = dir;
	po.jobs = first->jobs * 2;
	/* ccache would give back the first build's objects: nothing would be checked */
	po.ccache = 0;
	bo.force = 1;
	bo.table = 0;
	bo.have_lock = 0;
	e = ab_rm_rf(dir);
	if (e == 0)
		e = ab_plan_make(out, r, &po, labels, nlabels);
	if (e == 0) {
		ab_note("check: building again in '%s' with -j %d", dir, (*out)->jobs);
		e = ab_build_run(*out, &bo);
	}
	free(dir);
	return e;
}

int
ab_check_run(const struct ab_recipe *r, const struct ab_plan_opts *po, char *const *labels, size_t nlabels,
    const struct ab_build_opts *o)
{
	struct ab_plan *p = NULL, *p2 = NULL;
	struct ab_build_opts bo = *o;
	struct side_docs d1 = {0}, d2 = {0};
	struct ab_repro_side a = {0}, b = {0};
	cJSON *cmp, *st;
	int lockfd = -1, rc, differ, built;
	double t0;

	if ((rc = ab_plan_make(&p, r, po, labels, nlabels)) < 0)
		goto done;
	if ((rc = ab_mkdir_p(p->outdir, 0755)) < 0 || (rc = ab_build_lock(&lockfd, p->outdir)) < 0)
		goto done;
	bo.have_lock = 1;
	/* a probe that finds a problem (AB_ECHECK) leaves artifacts to compare: the check goes on */
	if ((built = ab_build_run(p, &bo)) == AB_EFAIL || (rc = second_build(&p2, r, p, labels, nlabels, o)) == AB_EFAIL) {
		rc = AB_EFAIL;
		goto done;
	}
	built = built < 0 ? built : rc;
	if ((rc = read_side(&d1, &a, p->outdir)) < 0 || (rc = read_side(&d2, &b, p2->outdir)) < 0)
		goto done;
	t0 = ab_now();
	cmp = ab_repro_compare(&a, &b);
	if (getenv("ALLOCBUILD_STATS"))
		ab_note("stats: comparison %.3fs", ab_now() - t0);
	differ = ab_json_get(cmp, "differ")->valueint;
	printf("reproducibility: built again in %s with -j %d\n", p2->outdir, p2->jobs);
	ab_repro_print(stdout, cmp);
	st = ab_repro_statement(AB_REPRO_CHECK_TYPE, cmp, &a, &b, 0);
	{
		cJSON *how = cJSON_AddObjectToObject(ab_json_get(st, "predicate"), "how");

		cJSON_AddStringToObject(how, "directory", AB_CHECK_DIR);
		cJSON_AddStringToObject(how, "differences",
		    "another OUTDIR (a longer path), another -j, no ccache, every variant built from nothing");
	}
	rc = ab_manifest_add_record(p->outdir, "provenance/reproducibility.intoto.json", st);
	cJSON_Delete(st);
	if (rc == 0 && (differ || built < 0))
		rc = AB_ECHECK;
done:
	release_side(&d1);
	release_side(&d2);
	ab_plan_free(p);
	ab_plan_free(p2);
	if (lockfd >= 0)
		close(lockfd);
	return rc;
}
