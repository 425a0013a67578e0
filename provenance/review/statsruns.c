#include "statsruns.h"

#include <stdlib.h>
#include <string.h>

#include "../../lib/hash.h"
#include "../../lib/jsonio.h"
#include "../record/manifest.h"
#include "../runs/runrec.h"

int
ab_statsruns_read(struct ab_statsruns *out, const char *outdir)
{
	struct ab_manifest_recorded rec;

	memset(out, 0, sizeof(*out));
	if (ab_manifest_recorded_read(&rec, outdir, 0) < 0)
		return AB_EFAIL;
	for (size_t i = 0; i < rec.paths.n; i++) {
		char *path, hex[AB_HEX_LEN + 1];
		struct ab_runrec r;
		cJSON *doc = NULL;

		if (!ab_runrec_is_statement(rec.paths.v[i]))
			continue;
		path = ab_path_join(outdir, rec.paths.v[i]);
		/* a record that is not what SHA256SUMS says is verify's to report, not a run */
		if (ab_hash_file(hex, NULL, path) == 0 && !strcmp(hex, rec.hexes.v[i]) && ab_json_read(&doc, path) == 0 &&
		    ab_runrec_parse(&r, doc, rec.paths.v[i]) == 0) {
			if (r.alloc_stats && ab_statsruns_find(out, r.label) < 0) {
				ab_strv_push(&out->labels, r.label);
				ab_strv_push(&out->files, rec.paths.v[i]);
				ab_strv_push(&out->allocators, r.alloc_stats->allocator);
			}
			ab_runrec_release(&r);
		} else if (doc) {
			ab_runrec_release(&r);
		}
		free(path);
	}
	ab_manifest_recorded_release(&rec);
	return 0;
}

int
ab_statsruns_find(const struct ab_statsruns *s, const char *label)
{
	for (size_t i = 0; i < s->labels.n; i++)
		if (!strcmp(s->labels.v[i], label))
			return (int)i;
	return -1;
}

void
ab_statsruns_release(struct ab_statsruns *s)
{
	ab_strv_free(&s->labels);
	ab_strv_free(&s->files);
	ab_strv_free(&s->allocators);
}
