/*
 * vsa: the signed Verification Summary Attestation of verify --policy
 * (provenance/review/vsa.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../../lib/version.h"
#include "../record/bundle.h"
#include "../attest/dsse.h"
#include "../record/manifest.h"
#include "../record/rebuildrec.h"
#include "../record/stmtrec.h"
#include "../attest/statement.h"
#include "challenge.h"
#include "vsa.h"

/* the attestations a policy reads, when the target holds them */
static const char *const inputs[] = {AB_MANIFEST_STATEMENT, "provenance/reproducibility.intoto.json",
	"provenance/rebuild.intoto.json", "provenance/provenance.intoto.jsonl"};

char *
ab_vsa_default_path(const struct ab_vsa *v)
{
	size_t n = strlen(v->target);

	/* beside the target (an OUTDIR's own directory holds Statements that verify would hold the VSA to) */
	while (n > 1 && v->target[n - 1] == '/')
		n--;
	return ab_sprintf("%.*s.%s", (int)n, v->target, AB_VSA_FILE);
}

/*
 * The target as seen from the VSA's directory, for its subjects' names:
 * its path below that directory ("bo", beside it), else its path from
 * there climbing first ("../../work/bo"), so that verify --key finds the
 * files wherever the VSA was written. Both resolved (realpath): the
 * directory the VSA is written into exists. Caller frees.
 */
static char *
target_from(const char *vsa_path, const char *target)
{
	char *dir = ab_path_dirname(vsa_path), *rdir = realpath(dir, NULL), *rt = realpath(target, NULL);
	struct ab_buf b = {0};
	size_t common = 0;

	if (!rdir || !rt) {
		const char *base = strrchr(target, '/');

		free(dir);
		free(rdir);
		free(rt);
		return ab_strdup(base && base[1] ? base + 1 : target);
	}
	/* the longest leading run of whole components the two share ("/" at least) */
	for (size_t i = 1; rdir[i - 1] && rdir[i - 1] == rt[i - 1]; i++)
		if ((rdir[i] == '/' || !rdir[i]) && (rt[i] == '/' || !rt[i]))
			common = i;
	for (const char *q = rdir + common; *q; q++)
		if (*q == '/' && q[1])
			ab_buf_puts(&b, b.len ? "/.." : "..");
	if (rt[common]) {
		if (b.len)
			ab_buf_putc(&b, '/');
		ab_buf_puts(&b, rt + common + (rt[common] == '/'));
	}
	free(dir);
	free(rdir);
	free(rt);
	return b.s ? ab_buf_detach(&b) : ab_strdup(".");
}

/* the last component of a path as given ("bo" of "/x/bo/"), the name a file inside a bundle goes by; caller frees */
static char *
last_component(const char *path)
{
	size_t n = strlen(path);
	const char *s;

	while (n > 1 && path[n - 1] == '/')
		n--;
	for (s = path + n; s > path && s[-1] != '/'; s--)
		;
	return ab_strndup(s, (size_t)(path + n - s));
}

/* rel of the target read into b: 0, 1 absent, AB_EFAIL (reported) */
static int
read_member(struct ab_buf *b, const struct ab_vsa *v, const char *rel)
{
	char *path;
	int e;

	if (v->bundle)
		return ab_bundle_read(b, v->target, rel, 64u << 20);
	path = ab_path_join(v->target, rel);
	e = !ab_path_exists(path) ? 1 : ab_read_file_max(b, path, 64u << 20) < 0 ? AB_EFAIL : 0;
	free(path);
	return e;
}

/* subjects: an OUTDIR's artifacts as its statement names them; a bundle: the file */
static int
add_subjects(cJSON *subjects, const struct ab_vsa *v, const char *vsa_path)
{
	char *from = v->inside ? ab_strdup("") : target_from(vsa_path, v->target);
	struct ab_buf b = {0};
	cJSON *st = NULL;
	struct ab_stmtrec names;
	int e = AB_EFAIL;

	if (v->bundle) {
		char hex[AB_HEX_LEN + 1];

		if (ab_hash_file(hex, NULL, v->target) == 0) {
			ab_statement_descriptor(subjects, from, hex);
			e = 0;
		}
		goto done;
	}
	if (read_member(&b, v, AB_MANIFEST_STATEMENT) != 0 || !(st = cJSON_ParseWithLength(b.s, b.len))) {
		ab_error("'%s': cannot read %s", v->target, AB_MANIFEST_STATEMENT);
		goto done;
	}
	ab_stmtrec_read(&names, st);
	for (size_t i = 0; i < names.lists[AB_STMTREC_SUBJECT].n; i++) {
		const struct ab_stmtrec_descriptor *d = &names.lists[AB_STMTREC_SUBJECT].v[i];
		char *rel;

		if (!d->name || !d->sha256)
			continue;
		rel = *from ? ab_path_join(from, d->name) : ab_strdup(d->name);
		ab_statement_descriptor(subjects, rel, d->sha256);
		free(rel);
	}
	ab_stmtrec_release(&names);
	e = 0;
done:
	cJSON_Delete(st);
	ab_buf_free(&b);
	free(from);
	return e;
}

static int
add_inputs(cJSON *arr, const struct ab_vsa *v, const struct ab_challenge *rebuilt)
{
	for (size_t i = 0; i < AB_NELEM(inputs); i++) {
		struct ab_buf b = {0};
		char hex[AB_HEX_LEN + 1];
		cJSON *o;
		int e = read_member(&b, v, inputs[i]);

		if (e < 0)
			return AB_EFAIL;
		if (e == 0) {
			ab_hash_buf(hex, b.s ? b.s : "", b.len);
			o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "uri", inputs[i]);
			cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "digest"), "sha256", hex);
			cJSON_AddItemToArray(arr, o);
		}
		ab_buf_free(&b);
	}
	/* the rebuilders' records a reproducible rule counted: those whose signature a key verified */
	for (size_t i = 0; rebuilt && i < ab_challenge_nrecords(rebuilt); i++) {
		const struct ab_rebuildrec *r = ab_challenge_record(rebuilt, i);
		cJSON *o;

		if (!r->signer)
			continue;
		o = cJSON_CreateObject();
		if (v->inside) {
			/* inside the bundle: no path of the author's machine, the record's file name */
			char *name = last_component(r->file);

			cJSON_AddStringToObject(o, "uri", name);
			free(name);
		} else {
			cJSON_AddStringToObject(o, "uri", r->file);
		}
		cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "digest"), "sha256", r->sha256);
		cJSON_AddStringToObject(cJSON_AddObjectToObject(o, "annotations"), "signerKeyid", r->signer);
		cJSON_AddItemToArray(arr, o);
	}
	return 0;
}

static cJSON *
predicate(const struct ab_vsa *v)
{
	cJSON *p = cJSON_CreateObject(), *ver, *pol, *lv;
	char now[32];

	ver = cJSON_AddObjectToObject(p, "verifier");
	cJSON_AddStringToObject(ver, "id", AB_VSA_VERIFIER);
	cJSON_AddStringToObject(cJSON_AddObjectToObject(ver, "version"), "allocbuild", AB_VERSION);
	ab_utc_time(now, sizeof(now), time(NULL));
	cJSON_AddStringToObject(p, "timeVerified", now);
	if (v->inside) {
		/* inside the bundle: the OUTDIR by its name, the policy as the bundle holds it (no path of this machine) */
		char *target = last_component(v->target), *policy = last_component(v->policy->path);
		char *uri = ab_sprintf("%s/%s", AB_PR_POLICY, policy);

		cJSON_AddStringToObject(p, "resourceUri", target);
		pol = cJSON_AddObjectToObject(p, "policy");
		cJSON_AddStringToObject(pol, "uri", uri);
		free(target);
		free(policy);
		free(uri);
	} else {
		cJSON_AddStringToObject(p, "resourceUri", v->target);
		pol = cJSON_AddObjectToObject(p, "policy");
		cJSON_AddStringToObject(pol, "uri", v->policy->path);
	}
	cJSON_AddStringToObject(cJSON_AddObjectToObject(pol, "digest"), "sha256", v->policy->sha256);
	cJSON_AddArrayToObject(p, "inputAttestations");
	cJSON_AddStringToObject(p, "verificationResult", v->passed ? "PASSED" : "FAILED");
	/* provenance that exists and verifies is SLSA Build L1; a policy that passed is allocbuild's own level */
	lv = cJSON_AddArrayToObject(p, "verifiedLevels");
	if (v->passed) {
		cJSON_AddItemToArray(lv, cJSON_CreateString("SLSA_BUILD_LEVEL_1"));
		cJSON_AddItemToArray(lv, cJSON_CreateString("ALLOCBUILD_POLICY_PASSED"));
	} else {
		cJSON_AddItemToArray(lv, cJSON_CreateString("FAILED"));
	}
	cJSON_AddStringToObject(p, "slsaVersion", "1.0");
	return p;
}

int
ab_vsa_write(const char *path, const struct ab_vsa *v, struct ab_key *const *keys, size_t nkeys)
{
	return ab_vsa_write_rebuilt(path, v, NULL, keys, nkeys);
}

int
ab_vsa_write_rebuilt(const char *path, const struct ab_vsa *v, const struct ab_challenge *rebuilt,
    struct ab_key *const *keys, size_t nkeys)
{
	cJSON *subjects, *st = ab_statement_new(AB_VSA_PREDICATE, &subjects), *pred;
	char *body = NULL;
	int e = AB_EFAIL;

	if (add_subjects(subjects, v, path) < 0)
		goto done;
	pred = predicate(v);
	cJSON_AddItemToObject(st, "predicate", pred);
	if (add_inputs(ab_json_get(pred, "inputAttestations"), v, rebuilt) < 0)
		goto done;
	body = cJSON_PrintUnformatted(st);
	e = ab_dsse_sign_file(path, AB_DSSE_INTOTO, body, strlen(body), keys, nkeys);
done:
	free(body);
	cJSON_Delete(st);
	return e;
}
