#include "dsse.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>
#include <openssl/evp.h>

#include "../../lib/atomic.h"
#include "../../lib/jsonio.h"
#include "../../lib/util.h"
#include "keys.h"

/* a multiple of 3 (encode) and of 4 (decode): EVP's block calls take an int */
#define B64_CHUNK (3 * 4 * (1 << 20))

void
ab_dsse_pae(struct ab_buf *out, const char *type, const void *body, size_t len)
{
	ab_buf_printf(out, "DSSEv1 %zu ", strlen(type));
	ab_buf_puts(out, type);
	ab_buf_printf(out, " %zu ", len);
	ab_buf_add(out, body, len);
}

void
ab_dsse_b64_encode(struct ab_buf *out, const void *p, size_t n)
{
	const unsigned char *in = p;

	ab_buf_grow(out, 0);
	while (n) {
		size_t k = n < B64_CHUNK ? n : B64_CHUNK;
		int w;

		ab_buf_grow(out, (k + 2) / 3 * 4);
		w = EVP_EncodeBlock((unsigned char *)out->s + out->len, in, (int)k);
		out->len += (size_t)w;
		in += k;
		n -= k;
	}
	out->s[out->len] = '\0';
}

static int
b64_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '/';
}

int
ab_dsse_b64_decode(unsigned char **out, size_t *outlen, const char *s, size_t n)
{
	struct ab_buf norm = {0}, again = {0};
	unsigned char *dec = NULL;
	size_t pad = 0, got = 0;
	int std = 0, url = 0, error = -1;

	*out = NULL;
	*outlen = 0;
	while (pad < n && pad < 3 && s[n - 1 - pad] == '=')
		pad++;
	if (pad > 2 || (pad && n % 4) || (n - pad) % 4 == 1)
		goto done;
	/* one alphabet, mapped to the standard one; padding completed */
	ab_buf_grow(&norm, n + 3);
	for (size_t i = 0; i < n - pad; i++) {
		char c = s[i];

		std |= c == '+' || c == '/';
		url |= c == '-' || c == '_';
		c = c == '-' ? '+' : c == '_' ? '/' : c;
		if (!b64_char(c))
			goto done;
		ab_buf_putc(&norm, c);
	}
	if (std && url)
		goto done;
	pad = (4 - norm.len % 4) % 4;
	for (size_t i = 0; i < pad; i++)
		ab_buf_putc(&norm, '=');
	dec = ab_malloc(norm.len / 4 * 3 + 1);
	for (size_t off = 0; off < norm.len;) {
		size_t k = norm.len - off < B64_CHUNK ? norm.len - off : B64_CHUNK;
		int w = EVP_DecodeBlock(dec + got, (const unsigned char *)norm.s + off, (int)k);

		if (w < 0)
			goto done;
		got += (size_t)w;
		off += k;
	}
	got -= pad;
	/* canonical: the bytes encode back to exactly what was given */
	ab_dsse_b64_encode(&again, dec, got);
	if (again.len != norm.len || memcmp(again.s, norm.s, norm.len))
		goto done;
	*out = dec;
	*outlen = got;
	dec = NULL;
	error = 0;
done:
	free(dec);
	ab_buf_free(&norm);
	ab_buf_free(&again);
	return error;
}

/* a member name given twice: parsers differ on which one counts, so the envelope is refused */
static const char *
duplicate_member(const cJSON *o)
{
	for (const cJSON *a = o->child; a; a = a->next)
		for (const cJSON *b = a->next; b; b = b->next)
			if (a->string && b->string && !strcmp(a->string, b->string))
				return a->string;
	return NULL;
}

static const cJSON *
member(const cJSON *o, const char *k)
{
	return ab_json_get(o, k);
}

/* the signatures array into e; AB_ECHECK with the reason in why */
static int
parse_sigs(struct ab_dsse *e, const cJSON *sigs, struct ab_buf *why)
{
	const cJSON *it;
	size_t i = 0;

	if (!cJSON_IsArray(sigs) || !cJSON_GetArraySize(sigs)) {
		ab_buf_puts(why, "no signatures");
		return AB_ECHECK;
	}
	e->sigs = ab_calloc((size_t)cJSON_GetArraySize(sigs), sizeof(*e->sigs));
	cJSON_ArrayForEach(it, sigs) {
		const cJSON *sig = member(it, "sig"), *keyid = member(it, "keyid");
		struct ab_dsse_sig *s = &e->sigs[i];
		const char *dup;

		if (!cJSON_IsObject(it) || !cJSON_IsString(sig)) {
			ab_buf_printf(why, "signatures[%zu] has no sig", i);
			return AB_ECHECK;
		}
		if ((dup = duplicate_member(it))) {
			ab_buf_printf(why, "signatures[%zu] has '%s' twice", i, dup);
			return AB_ECHECK;
		}
		if (keyid && !cJSON_IsString(keyid) && !cJSON_IsNull(keyid)) {
			ab_buf_printf(why, "signatures[%zu].keyid is not a string", i);
			return AB_ECHECK;
		}
		e->nsigs = ++i;
		if (cJSON_IsString(keyid) && keyid->valuestring[0])
			s->keyid = ab_strdup(keyid->valuestring);
		if (ab_dsse_b64_decode(&s->sig, &s->len, sig->valuestring, strlen(sig->valuestring)) < 0) {
			ab_buf_printf(why, "signatures[%zu].sig is not base64", i - 1);
			return AB_ECHECK;
		}
	}
	return 0;
}

int
ab_dsse_parse(struct ab_dsse *e, const char *line, size_t len, struct ab_buf *why)
{
	const char *end = NULL, *dup;
	cJSON *j = cJSON_ParseWithLengthOpts(line, len, &end, 0);
	const cJSON *payload, *type;
	int error = AB_ECHECK;

	memset(e, 0, sizeof(*e));
	if (j && end)
		while (end < line + len && (*end == ' ' || *end == '\t' || *end == '\r'))
			end++;
	if (!j || !cJSON_IsObject(j) || end != line + len) {
		ab_buf_puts(why, "not a JSON object");
		goto done;
	}
	if ((dup = duplicate_member(j))) {
		ab_buf_printf(why, "'%s' given twice", dup);
		goto done;
	}
	payload = member(j, "payload");
	type = member(j, "payloadType");
	if (!cJSON_IsString(payload)) {
		ab_buf_puts(why, "no payload");
		goto done;
	}
	if (!cJSON_IsString(type)) {
		ab_buf_puts(why, "no payloadType");
		goto done;
	}
	e->payload_type = ab_strdup(type->valuestring);
	if (ab_dsse_b64_decode(&e->payload, &e->payload_len, payload->valuestring, strlen(payload->valuestring)) < 0) {
		ab_buf_puts(why, "payload is not base64");
		goto done;
	}
	error = parse_sigs(e, member(j, "signatures"), why);
done:
	cJSON_Delete(j);
	return error;
}

void
ab_dsse_release(struct ab_dsse *e)
{
	for (size_t i = 0; i < e->nsigs; i++) {
		free(e->sigs[i].keyid);
		free(e->sigs[i].sig);
	}
	free(e->sigs);
	free(e->payload_type);
	free(e->payload);
	memset(e, 0, sizeof(*e));
}

int
ab_dsse_sign(struct ab_buf *out, const char *type, const void *body, size_t len,
    struct ab_key *const *keys, size_t nkeys)
{
	struct ab_buf pae = {0}, sig = {0}, b64 = {0};
	cJSON *env = cJSON_CreateObject(), *sigs;
	char *line = NULL;
	int error = AB_EFAIL;

	ab_dsse_pae(&pae, type, body, len);
	ab_dsse_b64_encode(&b64, body, len);
	cJSON_AddStringToObject(env, "payload", b64.s);
	cJSON_AddStringToObject(env, "payloadType", type);
	sigs = cJSON_AddArrayToObject(env, "signatures");
	for (size_t i = 0; i < nkeys; i++) {
		cJSON *s;

		if (ab_key_sign(&sig, keys[i], pae.s, pae.len) < 0)
			goto done;
		ab_buf_clear(&b64);
		ab_dsse_b64_encode(&b64, sig.s, sig.len);
		s = cJSON_CreateObject();
		cJSON_AddStringToObject(s, "keyid", ab_key_id(keys[i]));
		cJSON_AddStringToObject(s, "sig", b64.s);
		cJSON_AddItemToArray(sigs, s);
	}
	if (!(line = cJSON_PrintUnformatted(env))) {
		ab_error("cannot serialize an envelope");
		goto done;
	}
	ab_buf_puts(out, line);
	error = 0;
done:
	free(line);
	cJSON_Delete(env);
	ab_buf_free(&pae);
	ab_buf_free(&sig);
	ab_buf_free(&b64);
	return error;
}

int
ab_dsse_check(const struct ab_dsse *e, const struct ab_dsse_sig *s, const struct ab_key *k)
{
	struct ab_buf pae = {0};
	int rc;

	ab_dsse_pae(&pae, e->payload_type, e->payload, e->payload_len);
	rc = ab_key_verify(k, pae.s ? pae.s : "", pae.len, s->sig, s->len);
	ab_buf_free(&pae);
	return rc;
}

char *
ab_dsse_printable(const char *s)
{
	char *p = ab_strdup(s ? s : "");

	for (char *q = p; *q; q++)
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			*q = '?';
	return p;
}

int
ab_dsse_verify_keys(const struct ab_dsse *e, struct ab_key *const *keys, size_t nkeys, int require_all,
    char *accepted, struct ab_strv *why)
{
	const struct ab_key *bad = NULL;
	const char *unknown = NULL;
	char *mine = accepted ? NULL : calloc(nkeys ? nkeys : 1, 1);
	size_t naccepted = 0;
	int rc = AB_ECHECK, unmatched_bad = 0;

	if (!accepted)
		accepted = mine;
	for (size_t i = 0; i < e->nsigs; i++) {
		const struct ab_dsse_sig *s = &e->sigs[i];
		int matched = 0, verified = 0;

		for (size_t k = 0; k < nkeys; k++) {
			/* the keyid only narrows the keys tried; with none, every key is */
			if (s->keyid && strcmp(s->keyid, ab_key_id(keys[k])))
				continue;
			matched = 1;
			if (ab_dsse_check(e, s, keys[k]) == 0) {
				verified = 1;
				if (!accepted[k])
					naccepted++;
				accepted[k] = 1;
			} else if (s->keyid && !bad) {
				bad = keys[k];
			}
		}
		if (!matched && !unknown)
			unknown = s->keyid;
		if (matched && !verified && !s->keyid)
			unmatched_bad = 1;
	}
	if (require_all ? naccepted == nkeys : naccepted > 0) {
		rc = 0;
	} else if (require_all && naccepted) {
		for (size_t k = 0; k < nkeys; k++)
			if (!accepted[k])
				ab_strv_pushf(why, "no valid signature by '%s' (keyid %s), and --require-all asks for one",
				    ab_key_path(keys[k]), ab_key_id(keys[k]));
	} else if (bad) {
		ab_strv_pushf(why, "bad signature: keyid %s does not verify with '%s' (%s)", ab_key_id(bad),
		    ab_key_path(bad), ab_key_algorithm(bad));
	} else if (unknown) {
		char *id = ab_dsse_printable(unknown);

		ab_strv_pushf(why, "unknown keyid %s: no --key has this id", id);
		free(id);
	} else {
		ab_strv_pushf(why, "bad signature: %s verifies with the keys given",
		    unmatched_bad ? "no signature without a keyid" : "no signature");
	}
	free(mine);
	return rc;
}

int
ab_dsse_sign_file(const char *path, const char *type, const void *body, size_t len,
    struct ab_key *const *keys, size_t nkeys)
{
	struct ab_buf line = {0};
	int e = ab_dsse_sign(&line, type, body, len, keys, nkeys);

	if (e == 0) {
		ab_buf_putc(&line, '\n');
		e = ab_write_file_atomic(path, line.s, line.len);
	}
	ab_buf_free(&line);
	return e < 0 ? AB_EFAIL : 0;
}
