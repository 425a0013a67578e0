#include "layoutband.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "../../lib/dirwalk.h"
#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../record/manifest.h"

#define RELINK_DOC "provenance/relink-provenance.json"

/* a program's key: the digest of what it links as its normal output, then its replacements, sorted */
static char *
key_of(const char *normal_sha, struct ab_strv *withs)
{
	struct ab_buf b = {0};

	if (withs->n)
		ab_strv_sort(withs);
	ab_buf_puts(&b, normal_sha);
	for (size_t i = 0; i < withs->n; i++)
		ab_buf_printf(&b, "\n%s", withs->v[i]);
	return ab_buf_detach(&b);
}

static void
add_relink(struct ab_layoutband *lb, const char *label, const cJSON *doc)
{
	const char *normal = ab_json_str(ab_json_get(doc, "normal_output"), "sha256");
	const cJSON *layout = ab_json_get(doc, "layout"), *it;
	struct ab_strv withs = {0};

	if (!label || !normal)
		return;
	cJSON_ArrayForEach(it, ab_json_get(doc, "replacements"))
		if (ab_json_str(it, "with"))
			ab_strv_push(&withs, ab_json_str(it, "with"));
	lb->seed = ab_realloc(lb->seed, (lb->labels.n + 1) * sizeof(*lb->seed));
	lb->seed[lb->labels.n] = cJSON_IsNumber(ab_json_get(layout, "seed")) ? (int)ab_json_get(layout, "seed")->valuedouble : -1;
	ab_strv_push(&lb->labels, label);
	ab_strv_push_owned(&lb->keys, key_of(normal, &withs));
	ab_strv_free(&withs);
}

int
ab_layoutband_read(struct ab_layoutband *lb, const char *outdir)
{
	struct ab_manifest_recorded rec = {0};
	struct ab_buf b = {0};
	char why[AB_BENEATH_WHY], got[AB_HEX_LEN + 1];
	const char *want = NULL;
	cJSON *doc = NULL, *it;
	int fd = -1, rootfd = -1, e = AB_EFAIL;

	memset(lb, 0, sizeof(*lb));
	if (ab_manifest_recorded_read(&rec, outdir, 1) < 0)
		return 0; /* load_sets read it already, and said what was wrong */
	for (size_t i = 0; i < rec.paths.n; i++)
		if (!strcmp(rec.paths.v[i], RELINK_DOC))
			want = rec.hexes.v[i];
	if (!want) {
		e = 0;
		goto done;
	}
	if ((rootfd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0 ||
	    (fd = ab_dirwalk_open_beneath(rootfd, RELINK_DOC, O_RDONLY | O_NONBLOCK, 0, why)) < 0) {
		ab_error("compare: '%s/%s': %s", outdir, RELINK_DOC, rootfd < 0 ? "cannot open the OUTDIR" : why);
		goto done;
	}
	if (ab_read_fd_max(&b, fd, RELINK_DOC, 256u << 20) < 0)
		goto done;
	ab_hash_buf(got, b.s ? b.s : "", b.len);
	if (strcmp(got, want)) {
		ab_error("compare: '%s/%s': sha256 %s, SHA256SUMS says %s: run 'allocbuild verify %s'", outdir, RELINK_DOC,
		    got, want, outdir);
		e = AB_ECHECK;
		goto done;
	}
	if (!(doc = cJSON_ParseWithLength(b.s ? b.s : "", b.len))) {
		ab_error("compare: '%s/%s': not a JSON document", outdir, RELINK_DOC);
		goto done;
	}
	/* variants: {label: document}, or [{label, ...}] */
	cJSON_ArrayForEach(it, ab_json_get(doc, "variants"))
		add_relink(lb, it->string ? it->string : ab_json_str(it, "label"), it);
	e = 0;
done:
	cJSON_Delete(doc);
	ab_buf_free(&b);
	if (fd >= 0)
		close(fd);
	if (rootfd >= 0)
		close(rootfd);
	ab_manifest_recorded_release(&rec);
	return e;
}

/* the key of a label's program: its relink's, else the digest its runs ran (a build variant) */
static const char *
label_key(const struct ab_layoutband *lb, const char *label, const char *digest, int *seed)
{
	for (size_t i = 0; i < lb->labels.n; i++)
		if (!strcmp(lb->labels.v[i], label)) {
			*seed = lb->seed[i];
			return lb->keys.v[i];
		}
	*seed = -1;
	return digest;
}

size_t
ab_layoutband_family(const struct ab_layoutband *lb, char *const *labels, char *const *digests, size_t n,
    size_t baseline, size_t *out)
{
	int seed;
	const char *base = label_key(lb, labels[baseline], digests[baseline], &seed);
	size_t m = 0;

	if (!base || seed >= 0)
		return 0;
	for (size_t l = 0; l < n; l++) {
		const char *k = l == baseline ? NULL : label_key(lb, labels[l], digests[l], &seed);

		if (k && seed >= 0 && !strcmp(k, base))
			out[m++] = l;
	}
	return m;
}

void
ab_layoutband_release(struct ab_layoutband *lb)
{
	ab_strv_free(&lb->labels);
	ab_strv_free(&lb->keys);
	free(lb->seed);
	memset(lb, 0, sizeof(*lb));
}
