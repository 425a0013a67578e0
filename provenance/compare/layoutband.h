/*
 * layoutband: the layout noise of a comparison (docs/runs.md, "Layout
 * noise"). The baseline's layout variants are the labels of a run set
 * that are layout relinks (builder/layout.h) of the program the
 * baseline's runs ran: relinks with a `layout` in OUTDIR's
 * relink-provenance.json whose normal output has the digest of the
 * baseline's program and whose replacements are the baseline's own (none
 * for a build variant, a relink's for a relink). Their medians and the
 * baseline's spread by code layout alone; per cell and metric that
 * spread, with its bootstrap interval, is the layout band
 * (provenance/compare/stats.h), and a verdict of another label whose
 * ratio lies inside it is "within layout noise".
 *
 *   struct ab_layoutband lb;
 *   ab_layoutband_read(&lb, outdir);       relink-provenance.json, checked against SHA256SUMS
 *   ab_layoutband_apply(&lb, set, opts);   the set's layouts, bands, and rows marked
 *   ab_layoutband_release(&lb);
 */
#ifndef AB_LAYOUTBAND_H
#define AB_LAYOUTBAND_H

#include "../../lib/strmap.h"
#include "../../lib/util.h"

struct ab_compare_set;
struct ab_compare_opts;

struct ab_layoutband {
	struct ab_strv labels;   /* the relinks of OUTDIR */
	struct ab_strv keys;     /* each one's program: its normal output's digest and replacements */
	int *seed;               /* its layout seed, -1 for a relink without a layout */
};

/*
 * OUTDIR's relinks (none when it has no relink-provenance.json); 0, or
 * AB_ECHECK when the document does not hold the digest SHA256SUMS gives
 * it, AB_EFAIL when it cannot be read or parsed (reported)
 */
int ab_layoutband_read(struct ab_layoutband *lb, const char *outdir);
/* find the baseline's layout variants in s, compute the bands, mark the rows inside them */
void ab_layoutband_apply(const struct ab_layoutband *lb, struct ab_compare_set *s, const struct ab_compare_opts *o);
void ab_layoutband_release(struct ab_layoutband *lb);

#endif
