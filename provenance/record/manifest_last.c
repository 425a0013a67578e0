/*
 * manifest_last: what the last build recorded in an OUTDIR (the lines of
 * SHA256SUMS and the statement's subjects, for pr, run, rebuild, compare
 * and sign) and the last run's manifests, loaded for the next build's
 * up-to-date check.
 */
#include "manifest.h"
#include "manifest_impl.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/places.h"
#include "../../lib/util.h"

/* ---- what the last build recorded ---- */

int
ab_manifest_recorded_read(struct ab_manifest_recorded *r, const char *outdir, int quiet)
{
	struct verifier v = {.outdir = outdir};
	struct ab_buf b = {0};
	cJSON *stmt = NULL;
	const cJSON *it;
	int error = AB_EFAIL, fd = -1;

	memset(r, 0, sizeof(*r));
	v.rootfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if ((fd = ab_manifest_open_sums(v.rootfd, outdir, quiet)) < 0)
		goto done;
	if (quiet)
		ab_report_mute();
	error = ab_read_fd_max(&b, fd, "SHA256SUMS", AB_READ_MAX);
	if (quiet)
		ab_report_unmute();
	close(fd);
	if (error < 0)
		goto done;
	error = AB_EFAIL;
	for (const char *s = b.s; *s;) {
		size_t n = strcspn(s, "\n");
		char *line = ab_strndup(s, n), *hex, *name;

		if (ab_hash_line_parse(line, n, &hex, &name) == 0) {
			ab_strv_push(&r->hexes, hex);
			ab_strv_push(&r->paths, name);
		}
		free(line);
		s += n + (s[n] == '\n');
	}
	if (!(stmt = ab_manifest_read_doc(&v, AB_MANIFEST_STATEMENT))) {
		if (!quiet)
			ab_error("'%s/%s' is not a readable in-toto statement", outdir, AB_MANIFEST_STATEMENT);
		goto done;
	}
	cJSON_ArrayForEach(it, ab_json_get(stmt, "subject")) {
		const char *name = ab_json_str(it, "name"), *hex = ab_json_str(ab_json_get(it, "digest"), "sha256");

		if (name && hex) {
			ab_strv_push(&r->subjects, name);
			ab_strv_push(&r->subject_hexes, hex);
		}
	}
	it = ab_json_get(ab_json_get(ab_json_get(stmt, "predicate"), "runDetails"), "metadata");
	r->invocation_id = ab_json_strdup(it, "invocationId");
	r->finished_on = ab_json_strdup(it, "finishedOn");
	error = 0;
done:
	if (v.rootfd >= 0)
		close(v.rootfd);
	cJSON_Delete(stmt);
	ab_buf_free(&b);
	if (error < 0)
		ab_manifest_recorded_release(r);
	return error;
}

const char *
ab_manifest_recorded_subject(const struct ab_manifest_recorded *r, const char *path)
{
	const char *a = NULL, *b = NULL;

	for (size_t i = 0; i < r->paths.n && !a; i++)
		if (!strcmp(r->paths.v[i], path))
			a = r->hexes.v[i];
	for (size_t i = 0; i < r->subjects.n && !b; i++)
		if (!strcmp(r->subjects.v[i], path))
			b = r->subject_hexes.v[i];
	return a && b && !strcmp(a, b) ? a : NULL;
}

void
ab_manifest_recorded_release(struct ab_manifest_recorded *r)
{
	ab_strv_free(&r->paths);
	ab_strv_free(&r->hexes);
	ab_strv_free(&r->subjects);
	ab_strv_free(&r->subject_hexes);
	free(r->invocation_id);
	free(r->finished_on);
	r->invocation_id = r->finished_on = NULL;
}

/* ---- the last run, for the next one's up-to-date check ---- */

struct ab_manifest_last {
	struct ab_manifest_recorded rec;
	int tampered;    /* a manifest does not hold what SHA256SUMS says: nothing is trusted */
	int statement;   /* the statement is listed and holds what SHA256SUMS says */
	cJSON *commands, *probes, *updiff, *relink, *cmake; /* NULL when not recorded */
	struct ab_places places; /* the manifests hide them (write_manifest): a record is held to them so */
};

/* a manifest that SHA256SUMS lists, if it holds what SHA256SUMS says (else l->tampered); NULL when not listed */
static cJSON *
last_doc(struct ab_manifest_last *l, const char *outdir, const char *rel)
{
	struct verifier v = {.outdir = outdir};
	char hex[AB_HEX_LEN + 1];
	cJSON *doc = NULL;
	size_t i;

	for (i = 0; i < l->rec.paths.n && strcmp(l->rec.paths.v[i], rel); i++)
		;
	if (i == l->rec.paths.n)
		return NULL;
	v.rootfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (v.rootfd < 0 || ab_hash_file_beneath(hex, NULL, v.rootfd, rel, 0, NULL) < 0 ||
	    strcmp(hex, l->rec.hexes.v[i]) || !(doc = ab_manifest_read_doc(&v, rel)))
		l->tampered = 1;
	if (v.rootfd >= 0)
		close(v.rootfd);
	return doc;
}

struct ab_manifest_last *
ab_manifest_last_load(const char *outdir)
{
	struct ab_manifest_last *l = ab_calloc(1, sizeof(*l));
	cJSON *stmt;

	if (ab_manifest_recorded_read(&l->rec, outdir, 1) < 0) {
		free(l);
		return NULL;
	}
	ab_places_init(&l->places, outdir);
	stmt = last_doc(l, outdir, AB_MANIFEST_STATEMENT);
	l->statement = stmt != NULL;
	cJSON_Delete(stmt);
	l->commands = last_doc(l, outdir, "provenance/build-commands.json");
	l->probes = last_doc(l, outdir, "provenance/allocator-probes.json");
	l->updiff = last_doc(l, outdir, "provenance/upstream-diff.json");
	l->relink = last_doc(l, outdir, "provenance/relink-provenance.json");
	l->cmake = last_doc(l, outdir, "provenance/cmake-cache-provenance.json");
	return l;
}

/* the entry of label in a manifest's "variants" (lib/jsonio.h) */
static const cJSON *
last_entry(const cJSON *doc, const char *label)
{
	return ab_json_labelled_find(doc, label);
}

/*
 * both absent, or equal: a, as a manifest holds it, and b, of record r, as
 * a manifest would hold it (the places of the build that made r, and of
 * this OUTDIR, hidden: write_manifest)
 */
static int
same_doc(const struct ab_manifest_last *l, const struct ab_variant_record *r, const cJSON *a, const cJSON *b)
{
	struct ab_places ps[2] = {r->places, l->places};
	cJSON *shown;
	int same;

	if (!a || !b)
		return !a && !b;
	shown = cJSON_Duplicate(b, 1);
	ab_places_hide_json(ps, 2, shown);
	same = cJSON_Compare(a, shown, 1);
	cJSON_Delete(shown);
	return same;
}

/*
 * same_doc of label's entry in a per-variant manifest (upstream-diff,
 * relink-provenance, cmake-cache-provenance) and the record's payload: an
 * entry of an array is {label, ...the payload}, one of an object (a
 * version 1 manifest) the payload itself
 */
static int
same_payload(const struct ab_manifest_last *l, const struct ab_variant_record *r, const cJSON *doc, const cJSON *mine)
{
	const cJSON *entry = last_entry(doc, r->label);
	cJSON *bare;
	int same;

	if (!entry || !cJSON_IsArray(ab_json_get(doc, "variants")))
		return same_doc(l, r, entry, mine);
	bare = cJSON_Duplicate(entry, 1);
	cJSON_DeleteItemFromObjectCaseSensitive(bare, "label");
	same = same_doc(l, r, bare, mine);
	cJSON_Delete(bare);
	return same;
}

int
ab_manifest_last_has(const struct ab_manifest_last *l, const struct ab_variant_record *v)
{
	const cJSON *cmd, *probe;
	cJSON *none, *mine;
	int same;

	if (!l || l->tampered || !l->statement || !l->commands)
		return 0;
	for (size_t i = 0; i < v->nartifacts; i++) {
		const char *hex = ab_manifest_recorded_subject(&l->rec, v->artifacts[i].path);

		if (!hex || strcmp(hex, v->artifacts[i].sha256))
			return 0;
	}
	cmd = last_entry(l->commands, v->label);
	if (!cmd || !cJSON_IsTrue(ab_json_get(cmd, "ok")) || !ab_json_str(cmd, "key") ||
	    strcmp(ab_json_str(cmd, "key"), v->key))
		return 0;
	none = cJSON_CreateArray();
	same = same_doc(l, v, ab_json_get(cmd, "steps"), v->steps ? v->steps : none);
	cJSON_Delete(none);
	probe = ab_json_get(last_entry(l->probes, v->label), "probe");
	mine = ab_probe_result_json(v->probe);
	same = same && same_doc(l, v, probe, mine);
	cJSON_Delete(mine);
	return same && same_payload(l, v, l->updiff, v->upstream_diff) && same_payload(l, v, l->relink, v->relink) &&
	    same_payload(l, v, l->cmake, v->cmake);
}

void
ab_manifest_last_free(struct ab_manifest_last *l)
{
	if (!l)
		return;
	ab_manifest_recorded_release(&l->rec);
	ab_places_release(&l->places);
	cJSON_Delete(l->commands);
	cJSON_Delete(l->probes);
	cJSON_Delete(l->updiff);
	cJSON_Delete(l->relink);
	cJSON_Delete(l->cmake);
	free(l);
}
