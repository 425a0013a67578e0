/*
 * buildtable: what `build` prints when its build ran to its end, on
 * standard output: one row per variant (label, kind, allocator and
 * version, secure level, each setting the probe checked as requested ->
 * effective, the allocator archive's digest), what ccache did for each
 * variant compiled in this run, and what became of OUTDIR's signatures.
 * It is given to the builder as struct ab_build_opts' finished callback.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buildtable.h"
#include "../builder/build.h"
#include "../builder/plan.h"
#include "../lib/jsonio.h"
#include "../lib/util.h"
#include "../provenance/record/ccstats.h"
#include "../provenance/record/record.h"

/*
 * Every setting the probe checked, requested next to effective, for any
 * allocator: "lg_extent_max_active_fit:30 (built in) -> 30",
 * "MIMALLOC_PURGE_DELAY=10 -> 10 (default)", "X=1 -> unknown"; "-" when none
 */
static char *
settings_cell(const struct ab_probe_result *probe)
{
	struct ab_buf b = {0};

	for (size_t i = 0; probe && i < probe->noverrides; i++) {
		const struct ab_probe_override *o = &probe->overrides[i];
		const char *set = o->setting, *req = o->requested, *eff = o->effective, *st = o->status;
		const char *origin = o->origin;
		int plain = st && (!strcmp(st, "ok") || !strcmp(st, "match") || !strcmp(st, "default"));

		if (!set || !st || !strcmp(st, "set_by_probe"))
			continue;
		ab_buf_printf(&b, "%s%s%s%s%s -> %s", b.len ? ", " : "", set, strncmp(set, "MIMALLOC_", 9) ? ":" : "=",
		    req ? req : "?", origin && !strcmp(origin, "build") ? " (built in)" : "", eff && plain ? eff : st);
		if (!strcmp(st, "default"))
			ab_buf_puts(&b, " (default)");
		else if (eff && !plain)
			ab_buf_printf(&b, " (is %s)", eff);
	}
	return b.len ? ab_buf_detach(&b) : ab_strdup("-");
}

/* the allocator version a variant's record shows: its probe's, else an artifact's */
static const char *
version_of(const struct ab_variant_record *vr)
{
	const char *version = vr->probe ? vr->probe->version : NULL;

	for (size_t i = 0; i < vr->nartifacts && !version; i++)
		version = vr->artifacts[i].allocator_version;
	return version;
}

/* the cells of one variant's row */
static void
table_row(char **cells, const struct ab_build_outcome *o, size_t vi)
{
	const struct ab_plan *p = o->plan;
	const struct ab_variant *v = p->vars[vi].v;
	const struct ab_variant_record *vr = &o->run->variants[vi], *from = NULL;
	const char *version = version_of(vr), *archive = "-", *sha;
	char shortsha[16];

	if (v->kind == AB_VARIANT_RELINK)
		from = ab_run_record_at(o->run, p->vars[vi].from_vi);
	sha = ab_variant_record_archive_sha256(vr, from);
	/* a program built with another variant's archive ({variant:...}): that archive (its base's for a runtime_of) */
	{
		const struct ab_variant_record *b = ab_run_record_at(o->run, p->vars[vi].base_vi);

		for (size_t i = 0; !sha && b && i < b->nuses; i++)
			if (b->uses[i].path && b->uses[i].sha256[0])
				sha = b->uses[i].sha256;
	}
	if (sha) {
		snprintf(shortsha, sizeof(shortsha), "%.12s", sha);
		archive = shortsha;
	}
	if (!vr->ok)
		version = "(not built)";
	cells[0] = ab_strdup(v->label);
	/* the table says what a relink is, as the manifests and the PR do */
	cells[1] = ab_strdup(v->kind == AB_VARIANT_RELINK ? "diagnostic relink" : ab_plan_kind_name(v));
	cells[2] = ab_sprintf("%s%s%s", vr->allocator.kind ? vr->allocator.kind : "",
	    vr->allocator.kind ? " " : "", version ? version : "-");
	cells[3] = vr->probe && vr->probe->secure >= 0 ? ab_sprintf("%d", vr->probe->secure) : ab_strdup("-");
	cells[4] = settings_cell(vr->probe);
	cells[5] = ab_strdup(archive);
}

static void
print_table(const struct ab_build_outcome *o)
{
	static const char *head[] = {"LABEL", "KIND", "ALLOCATOR", "SECURE", "SETTINGS: REQUESTED -> EFFECTIVE",
	    "ARCHIVE SHA256"};
	enum { NCOL = 6 };
	const struct ab_plan *p = o->plan;
	char ***cells = ab_calloc(p->nvars + 1, sizeof(*cells));
	size_t w[NCOL] = {0};

	for (size_t r = 0; r <= p->nvars; r++) {
		cells[r] = ab_calloc(NCOL, sizeof(**cells));
		if (r == 0) {
			for (int k = 0; k < NCOL; k++)
				cells[r][k] = ab_strdup(head[k]);
		} else {
			table_row(cells[r], o, r - 1);
		}
		for (int k = 0; k < NCOL; k++)
			if (strlen(cells[r][k]) > w[k])
				w[k] = strlen(cells[r][k]);
	}
	for (size_t r = 0; r <= p->nvars; r++) {
		for (int k = 0; k < NCOL; k++) {
			if (k < NCOL - 1)
				printf("%-*s  ", (int)w[k], cells[r][k]);
			else
				printf("%s\n", cells[r][k]);
			free(cells[r][k]);
		}
		free(cells[r]);
	}
	free(cells);
}

/* what ccache did for each variant compiled in this run */
static void
print_ccache(const struct ab_build_outcome *o)
{
	for (size_t vi = 0; o->plan->ccache && vi < o->plan->nvars; vi++) {
		const struct ab_variant_record *vr = &o->run->variants[vi];
		char *line;

		if (!vr->ccache || !o->compiled[vi])
			continue;
		line = ab_ccstats_summary(vr->ccache);
		printf("ccache %s: %s\n", vr->label, line);
		free(line);
	}
}

/* one variant's row as build --json gives it */
static cJSON *
row_json(const struct ab_build_outcome *o, size_t vi)
{
	const struct ab_variant_record *vr = &o->run->variants[vi];
	const struct ab_probe_result *probe = vr->probe;
	char *cells[6];
	cJSON *row = cJSON_CreateObject(), *set;

	table_row(cells, o, vi);
	cJSON_AddStringToObject(row, "label", cells[0]);
	cJSON_AddStringToObject(row, "kind", cells[1]);
	cJSON_AddBoolToObject(row, "built", vr->ok);
	ab_json_add_str_or_null(row, "allocator", vr->allocator.kind);
	ab_json_add_str_or_null(row, "version", vr->ok ? version_of(vr) : NULL);
	if (probe && probe->secure >= 0)
		cJSON_AddNumberToObject(row, "secure", probe->secure);
	else
		cJSON_AddNullToObject(row, "secure");
	set = cJSON_AddArrayToObject(row, "settings");
	for (size_t i = 0; probe && i < probe->noverrides; i++) {
		const struct ab_probe_override *ov = &probe->overrides[i];
		cJSON *s;

		if (!ov->setting || !ov->status || !strcmp(ov->status, "set_by_probe"))
			continue;
		s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "setting", ov->setting);
		ab_json_add_str_or_null(s, "requested", ov->requested);
		ab_json_add_str_or_null(s, "effective", ov->effective);
		cJSON_AddStringToObject(s, "status", ov->status);
		ab_json_add_str_or_null(s, "origin", ov->origin);
		cJSON_AddItemToArray(set, s);
	}
	{
		const char *sha = ab_variant_record_archive_sha256(vr, o->plan->vars[vi].v->kind == AB_VARIANT_RELINK ?
		    ab_run_record_at(o->run, o->plan->vars[vi].from_vi) : NULL);

		ab_json_add_str_or_null(row, "archive_sha256", sha);
	}
	if (o->plan->ccache && vr->ccache && o->compiled[vi])
		cJSON_AddItemToObject(row, "ccache", cJSON_Duplicate(vr->ccache, 1));
	for (int k = 0; k < 6; k++)
		free(cells[k]);
	return row;
}

void
ab_cmd_build_json(const struct ab_build_outcome *o)
{
	cJSON *doc = cJSON_CreateObject(), *vs;
	size_t built = 0;

	cJSON_AddStringToObject(doc, "outdir", o->plan->outdir);
	vs = cJSON_AddArrayToObject(doc, "variants");
	for (size_t vi = 0; vi < o->plan->nvars; vi++) {
		cJSON_AddItemToArray(vs, row_json(o, vi));
		built += o->run->variants[vi].ok;
	}
	cJSON_AddNumberToObject(doc, "built", (double)built);
	cJSON_AddNumberToObject(doc, "failed", (double)(o->plan->nvars - built));
	cJSON_AddStringToObject(doc, "signatures", o->signatures_removed ? "removed" : o->signatures_kept ? "kept" : "none");
	ab_json_print(stdout, doc);
	cJSON_Delete(doc);
}

void
ab_cmd_build_table(const struct ab_build_outcome *o)
{
	/* -q: a build that went through says nothing; a failure is said on stderr all the same */
	if (ab_quiet)
		return;
	print_table(o);
	print_ccache(o);
	if (o->signatures_removed)
		printf("signatures: removed (the statement changed): sign again\n");
	else if (o->signatures_kept)
		printf("signatures: kept (nothing changed)\n");
}
