#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../lib/jsonio.h"
#include "../lib/util.h"
#include "../provenance/record/manifest.h"
#include "../provenance/record/repro.h"

/* the second build: the same variants, elsewhere, at another -j, from nothing */
static int
second_build(struct ab_plan **out, const struct ab_recipe *r, const struct ab_plan *first,
    char *const *labels, size_t nlabels, const struct ab_build_opts *o)
{
	struct ab_plan_opts po = {0};
	struct ab_build_opts bo = *o;
	char *dir = ab_path_join(first->outdir, AB_CHECK_DIR), *cache = NULL;
	int e;

	po.outdir = dir;
	po.jobs = first->jobs * 2;
	po.no_sandbox = first->no_sandbox;
	bo.force = 1;
	bo.finished = NULL;
	bo.have_lock = 0;
	e = ab_plan_opts_fresh_ccache(&po, &cache, first->ccache && ab_plan_ccache_changes_bytes(first));
	if (e == 0)
		e = ab_rm_rf(dir);
	if (e == 0)
		e = ab_plan_make(out, r, &po, labels, nlabels);
	if (e == 0) {
		ab_note("check: building again in '%s' with -j %d%s%s", dir, (*out)->jobs,
		    cache ? ", through ccache with an empty cache of its own" : "",
		    first->derive ? ", every variant from a fresh tree (never derived)" : "");
		e = ab_build_run(*out, &bo);
	}
	if (cache && ab_rm_rf(cache) < 0 && e == 0)
		e = AB_EFAIL;
	free(cache);
	free(dir);
	return e;
}

/*
 * The variants the first build derived from another's trees (build
 * --derive), each checked here against its clean build: said, and in the
 * record's how.derived [{variant, from, checked}]
 */
static void
derived_checked(cJSON *how, const struct ab_repro_side *a, const struct ab_repro_result *cmp)
{
	const cJSON *v;
	cJSON *list = NULL;

	cJSON_ArrayForEach(v, ab_json_get(a->binaries, "variants")) {
		const char *label = ab_json_str(v, "label"), *from = ab_json_str(v, "derived_from");
		int n = 0, same = 0;
		cJSON *d;

		if (!label || !from)
			continue;
		for (size_t i = 0; i < cmp->n; i++) {
			const char *l = cmp->artifacts[i].label;

			if (l && !strcmp(l, label)) {
				n++;
				same += cmp->artifacts[i].identical;
			}
		}
		printf("derived    %s from %s's trees: built clean here, %d/%d artifact%s identical\n", label, from, same, n,
		    n == 1 ? "" : "s");
		if (!list)
			list = cJSON_AddArrayToObject(how, "derived");
		d = cJSON_CreateObject();
		cJSON_AddStringToObject(d, "variant", label);
		cJSON_AddStringToObject(d, "from", from);
		cJSON_AddBoolToObject(d, "checked", n > 0 && same == n);
		cJSON_AddItemToArray(list, d);
	}
}

int
ab_check_run(const struct ab_recipe *r, const struct ab_plan_opts *po, char *const *labels, size_t nlabels,
    const struct ab_build_opts *o)
{
	struct ab_plan *p = NULL, *p2 = NULL;
	struct ab_build_opts bo = *o;
	struct ab_repro_docs d1 = {0}, d2 = {0};
	struct ab_repro_side a = {0}, b = {0};
	struct ab_repro_result cmp = {0};
	cJSON *st;
	int lockfd = -1, rc, differ, built;

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
	if ((rc = ab_repro_side_read(&a, &d1, p->outdir)) < 0 || (rc = ab_repro_side_read(&b, &d2, p2->outdir)) < 0)
		goto done;
	ab_repro_compare(&cmp, &a, &b);
	differ = cmp.differ;
	/* diffoscope explains the first artifact that differs, its report kept in OUTDIR/diffoscope/ */
	if (differ) {
		struct ab_repro_diffoscope dopt = {.a_root = p->outdir, .b_root = p2->outdir, .dir = p->outdir};

		ab_repro_diffoscope(&cmp, &dopt);
	} else {
		char *old = ab_path_join(p->outdir, "diffoscope");

		rc = ab_rm_rf(old);
		free(old);
		if (rc < 0)
			goto done;
	}
	printf("reproducibility: built again in %s with -j %d\n", p2->outdir, p2->jobs);
	ab_repro_print(stdout, &cmp);
	ab_repro_print_diffoscope(stdout, &cmp, p->outdir);
	st = ab_repro_statement(AB_REPRO_CHECK_TYPE, &cmp, &a, &b, 0);
	{
		cJSON *how = cJSON_AddObjectToObject(ab_json_get(st, "predicate"), "how");

		cJSON_AddStringToObject(how, "directory", AB_CHECK_DIR);
		cJSON_AddStringToObject(how, "differences", p->sandbox ?
		    "another OUTDIR (the same fixed paths in the sandbox), another -j, no cached object (no ccache: "
		    "in the sandbox it changes no byte), every variant built from nothing" :
		    "another OUTDIR (a longer path), another -j, no cached object (ccache, if used, with an empty "
		    "cache of its own), every variant built from nothing");
		derived_checked(how, &a, &cmp);
	}
	rc = ab_manifest_add_record(p->outdir, "provenance/reproducibility.intoto.json", st);
	cJSON_Delete(st);
	if (rc == 0 && (differ || built < 0))
		rc = AB_ECHECK;
done:
	ab_repro_result_release(&cmp);
	ab_repro_docs_release(&d1);
	ab_repro_docs_release(&d2);
	ab_plan_free(p);
	ab_plan_free(p2);
	if (lockfd >= 0)
		close(lockfd);
	return rc;
}
