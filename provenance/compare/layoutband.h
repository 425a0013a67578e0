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
 *   n = ab_layoutband_family(&lb, labels, digests, nlabels, baseline, out);
 *   ab_layoutband_release(&lb);
 *
 * compare (compare.c) computes the bands (stats.h) and marks the rows.
 */
#ifndef AB_LAYOUTBAND_H
#define AB_LAYOUTBAND_H

#include "../../lib/strmap.h"
#include "../../lib/util.h"

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
/*
 * The layout variants of labels[baseline] among labels[0..n), into out
 * (label indexes, in label order); digests[l] is the program label l's
 * runs ran. Their number; 0 when the baseline is itself a layout variant.
 */
size_t ab_layoutband_family(const struct ab_layoutband *lb, char *const *labels, char *const *digests, size_t n,
    size_t baseline, size_t *out);
void ab_layoutband_release(struct ab_layoutband *lb);

#endif
