/*
 * sourcesrec: provenance/sources.json read back, typed (docs/manifests.md;
 * builder/source.h writes it, format allocbuild-sources/1): its one
 * reader, for the commands that read an OUTDIR's manifests afterwards
 * (pr). The shape read:
 *
 *   {recipe: {name, description},
 *    sources: {ID: FETCH RECORD (provenance/record/fetchrec.h) + {patches: [..], overlay: {PATH: SOURCE}}}}
 *
 * The trees under "variants" (fetch's) are not read. A source whose
 * record is not a fetch record is refused. A patch or an overlay's
 * source that is not a string is "?".
 */
#ifndef AB_SOURCESREC_H
#define AB_SOURCESREC_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../../lib/util.h"
#include "fetchrec.h"

struct ab_sourcesrec_source {
	char *id;
	struct ab_fetch_record *rec;
	struct ab_strv patches;                 /* as the recipe writes them */
	struct ab_strv overlay_paths, overlay_sources; /* index-aligned, in order */
};

struct ab_sourcesrec {
	char *description;                      /* the recipe's, or NULL */
	struct ab_sourcesrec_source *v;         /* in the document's order */
	size_t n;
};

/* doc read into *out; AB_EFAIL (reported, naming file and key) when it is not one */
int ab_sourcesrec_parse(struct ab_sourcesrec *out, const cJSON *doc, const char *file);
void ab_sourcesrec_release(struct ab_sourcesrec *s);

#endif
