#include "rebuildrec.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "../attest/dsse.h"
#include "../attest/keys.h"
#include "repro.h"
#include "../runs/runenv.h"

/* a record is a few kilobytes; one of a thousand variants stays under this */
#define RECORD_MAX ((size_t)16 << 20)

static cJSON *
host_json(void)
{
	cJSON *h = cJSON_CreateObject(), *env = ab_runenv_capture();
	char name[256] = "";

	gethostname(name, sizeof(name) - 1);
	cJSON_AddStringToObject(h, "name", name);
	ab_json_add_str_or_null(h, "kernel", ab_json_str(env, "kernel"));
	ab_json_add_str_or_null(h, "machine", ab_json_str(env, "machine"));
	ab_json_add_str_or_null(h, "cpu_model", ab_json_str(ab_json_get(env, "cpu"), "model"));
	cJSON_Delete(env);
	return h;
}

void
ab_rebuildrec_identify(cJSON *st, const char *statement_hex, const char *bundle_hex, const cJSON *rebuilt_commands)
{
	cJSON *pred = ab_json_get(st, "predicate"), *orig = ab_json_get(pred, "original");
	cJSON *who = cJSON_CreateObject(), *tools, *boxes;
	const cJSON *v;

	cJSON_AddStringToObject(orig, "statement_sha256", statement_hex);
	if (bundle_hex)
		cJSON_AddStringToObject(orig, "bundle_sha256", bundle_hex);
	cJSON_AddItemToObject(who, "host", host_json());
	tools = cJSON_AddObjectToObject(who, "toolchain");
	boxes = cJSON_AddObjectToObject(who, "sandbox");
	cJSON_ArrayForEach(v, ab_json_get(rebuilt_commands, "variants")) {
		const char *label = ab_json_str(v, "label");

		if (!label || !cJSON_IsTrue(ab_json_get(v, "ok")))
			continue;
		if (ab_json_get(v, "toolchain"))
			cJSON_AddItemToObject(tools, label, cJSON_Duplicate(ab_json_get(v, "toolchain"), 1));
		if (ab_json_get(v, "sandbox"))
			cJSON_AddItemToObject(boxes, label, cJSON_Duplicate(ab_json_get(v, "sandbox"), 1));
	}
	cJSON_AddItemToObject(pred, "rebuilder", who);
}

int
ab_rebuildrec_sign(const char *dir, struct ab_key *const *keys, size_t nkeys)
{
	char *rec = ab_path_join(dir, AB_REBUILDREC_STATEMENT), *env = ab_path_join(dir, AB_REBUILDREC_ENVELOPE);
	struct ab_buf body = {0};
	int e;

	e = ab_read_file_max(&body, rec, RECORD_MAX);
	if (e == 0)
		e = ab_dsse_sign_file(env, AB_DSSE_INTOTO, body.s ? body.s : "", body.len, keys, nkeys);
	ab_buf_free(&body);
	free(rec);
	free(env);
	return e < 0 ? AB_EFAIL : 0;
}

/* line and column (from 1) of the first needle in text, 1:1 when absent */
static void
locate(int *line, int *col, const char *text, size_t len, const char *needle)
{
	const char *p = needle && *needle ? memmem(text, len, needle, strlen(needle)) : NULL;

	*line = 1;
	*col = 1;
	for (const char *q = text; p && q < p; q++) {
		if (*q == '\n') {
			(*line)++;
			*col = 1;
		} else {
			(*col)++;
		}
	}
}

void
ab_rebuildrec_error(const struct ab_rebuildrec *r, const char *needle, const char *fmt, ...)
{
	va_list ap;
	char msg[2048];
	int line, col;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	locate(&line, &col, r->text ? r->text : "", r->len, needle);
	ab_error("%s:%d:%d: %s", r->file, line, col, msg);
}

/* the envelope's payload, once a key verified it (with keys) */
static int
open_envelope(struct ab_rebuildrec *r, struct ab_buf *payload, struct ab_key *const *keys, size_t nkeys,
    struct ab_strv *why)
{
	struct ab_dsse e = {0};
	struct ab_buf reason = {0};
	size_t n = strcspn(r->text, "\n");
	int rc = AB_EFAIL;

	r->enveloped = 1;
	if (ab_dsse_parse(&e, r->text, n, &reason) < 0) {
		ab_error("%s:1:1: not a DSSE envelope: %s", r->file, reason.s ? reason.s : "?");
		goto done;
	}
	if (strcmp(e.payload_type, AB_DSSE_INTOTO)) {
		ab_error("%s:1:1: payloadType: not %s", r->file, AB_DSSE_INTOTO);
		goto done;
	}
	if (nkeys) {
		char *accepted = calloc(nkeys, 1);

		rc = ab_dsse_verify_keys(&e, keys, nkeys, 0, accepted, why);
		for (size_t k = 0; rc == 0 && k < nkeys && !r->signer; k++)
			if (accepted[k])
				r->signer = ab_strdup(ab_key_id(keys[k]));
		free(accepted);
		if (rc < 0)
			goto done;
	}
	ab_buf_add(payload, e.payload, e.payload_len);
	rc = 0;
done:
	ab_buf_free(&reason);
	ab_dsse_release(&e);
	return rc;
}

/* the rebuilder's tools per label; tools that are no record are kept as saying nothing (ok 0) */
static void
read_tools(struct ab_rebuildrec *r, const cJSON *toolchain)
{
	const cJSON *it;

	if (!cJSON_IsObject(toolchain))
		return;
	r->tools = ab_calloc((size_t)cJSON_GetArraySize(toolchain) + 1, sizeof(*r->tools));
	cJSON_ArrayForEach(it, toolchain) {
		struct ab_rebuildrec_tools *t = &r->tools[r->ntools++];

		t->label = it->string;
		t->ok = ab_toolchain_parse(&t->tools, it) == 0;
	}
}

const struct ab_toolchain *
ab_rebuildrec_tools_of(const struct ab_rebuildrec *r, const char *label)
{
	for (size_t i = 0; label && i < r->ntools; i++)
		if (!strcmp(r->tools[i].label, label))
			return r->tools[i].ok && r->tools[i].tools.present ? &r->tools[i].tools : NULL;
	return NULL;
}

/* the members challenge reads, each where a rebuild put it */
static int
check_record(struct ab_rebuildrec *r)
{
	const cJSON *pred = ab_json_get(r->st, "predicate");
	const char *type = ab_json_str(r->st, "predicateType"), *hex;

	if (!type || strcmp(type, AB_REPRO_REBUILD_TYPE)) {
		ab_rebuildrec_error(r, "predicateType", "predicateType: not a rebuild record (%s)", AB_REPRO_REBUILD_TYPE);
		return AB_EFAIL;
	}
	hex = ab_json_str(ab_json_get(pred, "original"), "statement_sha256");
	if (!hex || strlen(hex) != AB_HEX_LEN || !ab_is_hex(hex, AB_HEX_LEN)) {
		ab_rebuildrec_error(r, "\"original\"", "predicate.original.statement_sha256: %s: a record of "
		    "a rebuild from before records named their build (rebuild it again)", hex ? "not a sha256" : "missing");
		return AB_EFAIL;
	}
	memcpy(r->original, hex, AB_HEX_LEN + 1);
	if (!cJSON_IsArray(ab_json_get(ab_json_get(pred, "comparison"), "artifacts"))) {
		ab_rebuildrec_error(r, "\"comparison\"", "predicate.comparison.artifacts: missing");
		return AB_EFAIL;
	}
	r->host = ab_json_str(ab_json_get(ab_json_get(pred, "rebuilder"), "host"), "name");
	if (!r->host || !*r->host)
		r->host = "?";
	read_tools(r, ab_json_get(ab_json_get(pred, "rebuilder"), "toolchain"));
	return ab_repro_result_parse(&r->cmp, ab_json_get(pred, "comparison"), r->file);
}

int
ab_rebuildrec_read(struct ab_rebuildrec *r, const char *file, struct ab_key *const *keys, size_t nkeys,
    struct ab_strv *why)
{
	struct ab_buf text = {0}, payload = {0};
	const char *body;
	size_t blen, i = 0;
	int e;

	memset(r, 0, sizeof(*r));
	r->file = ab_strdup(file);
	if (ab_read_file_max(&text, file, RECORD_MAX) < 0)
		return AB_EFAIL;
	r->len = text.len;
	r->text = text.s ? ab_buf_detach(&text) : ab_strdup("");
	ab_hash_buf(r->sha256, r->text, r->len);
	while (i < r->len && strchr(" \t\r\n", r->text[i]))
		i++;
	/* an envelope is one line whose object has a payload; a Statement is the record itself */
	if (i < r->len && r->text[i] == '{' && strstr(r->text, "\"payload\"") && !strstr(r->text, "\"_type\"")) {
		if ((e = open_envelope(r, &payload, keys, nkeys, why)) < 0)
			goto done;
		body = payload.s ? payload.s : "";
		blen = payload.len;
	} else {
		if (nkeys) {
			ab_strv_push(why, "not signed: a plain record, and --key asks for a signature");
			e = AB_ECHECK;
			goto done;
		}
		body = r->text;
		blen = r->len;
	}
	if (!(r->st = cJSON_ParseWithLength(body, blen)) || !cJSON_IsObject(r->st)) {
		ab_rebuildrec_error(r, NULL, "not JSON: not a rebuild record");
		e = AB_EFAIL;
		goto done;
	}
	e = check_record(r);
done:
	ab_buf_free(&payload);
	return e;
}

void
ab_rebuildrec_release(struct ab_rebuildrec *r)
{
	free(r->file);
	free(r->signer);
	free(r->text);
	ab_repro_result_release(&r->cmp);
	for (size_t i = 0; i < r->ntools; i++)
		ab_toolchain_release(&r->tools[i].tools);
	free(r->tools);
	cJSON_Delete(r->st);
	memset(r, 0, sizeof(*r));
}
