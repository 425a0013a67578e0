/*
 * signersrec: provenance/signers.json, written and read back
 * (signersrec.h).
 */
#include "signersrec.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/jsonio.h"
#include "manifest.h"

cJSON *
ab_signersrec_json(const struct ab_signersrec *s)
{
	cJSON *doc = cJSON_CreateObject(), *signers;

	cJSON_AddStringToObject(doc, "_type", AB_SIGNERSREC_TYPE);
	cJSON_AddNumberToObject(doc, "version", 1);
	cJSON_AddStringToObject(doc, "envelopes", s->envelopes);
	cJSON_AddStringToObject(doc, "payloadType", s->payload_type);
	cJSON_AddItemToObject(doc, "statements", ab_json_strv(s->statements->v, s->statements->n));
	cJSON_AddStringToObject(doc, "keyid", AB_SIGNERSREC_KEYID);
	signers = cJSON_AddArrayToObject(doc, "signers");
	for (size_t i = 0; i < s->n; i++) {
		cJSON *k = cJSON_CreateObject();

		cJSON_AddStringToObject(k, "keyid", s->v[i].keyid);
		cJSON_AddStringToObject(k, "algorithm", s->v[i].algorithm);
		cJSON_AddItemToArray(signers, k);
	}
	return doc;
}

void
ab_signersrec_read(struct ab_signersrec *out, const char *outdir)
{
	char *p = ab_path_join(outdir, AB_MANIFEST_SIGNERS);
	const cJSON *it, *signers;

	memset(out, 0, sizeof(*out));
	if (ab_json_read(&out->doc, p) < 0)
		out->doc = NULL;
	free(p);
	signers = ab_json_get(out->doc, "signers");
	out->v = ab_calloc((size_t)cJSON_GetArraySize(signers) + 1, sizeof(*out->v));
	cJSON_ArrayForEach(it, signers) {
		out->v[out->n].keyid = ab_json_str(it, "keyid");
		out->v[out->n].algorithm = ab_json_str(it, "algorithm");
		out->n++;
	}
}

void
ab_signersrec_release(struct ab_signersrec *s)
{
	free(s->v);
	cJSON_Delete(s->doc);
	memset(s, 0, sizeof(*s));
}
