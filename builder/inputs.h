/*
 * inputs: the files beside the recipe that a build read, kept in OUTDIR
 * so that its bundle carries them and `rebuild` of the bundle needs none
 * of the author's files (docs/manifests.md, "inputs/").
 *
 * They are the trees of the `dir` sources and the patch files of every
 * source the variants built were made of. Each is named by its path
 * relative to the recipe's directory, normalised, which may climb k
 * levels ("../patches/x.patch": k = 1, rest "patches/x.patch"); it is
 * kept as inputs/<k>/<rest>: inputs/0/app/Cargo.toml, inputs/1/patches/
 * x.patch. A dir source is copied as the build copies it (regular files,
 * modes 0644 or 0755) and the copy checked against its dirHash; a patch
 * is checked against the sha256 its variant's tree record gives.
 *
 *   ab_inputs_save(&names, recipe, run, outdir);   OUTDIR/inputs made anew
 *   ...
 *   ab_inputs_restore(&recipe_dir, root, files, n); a rebuild's recipe directory
 */
#ifndef AB_INPUTS_H
#define AB_INPUTS_H

#include <stddef.h>

#include "recipe.h"
#include "../lib/util.h"
#include "../provenance/record/record.h"

#define AB_INPUTS_DIR "inputs"

/*
 * Write OUTDIR/inputs anew (removed when the run read no such file) for
 * the variants of run that are ok; the names of its files, relative to
 * outdir and sorted, are appended to names. 0 or AB_EFAIL (reported).
 */
int ab_inputs_save(struct ab_strv *names, const struct ab_recipe *r, const struct ab_run_record *run,
    const char *outdir);

/* copy the files of src/inputs that dst/inputs lacks (a merge of shards); names as for save */
int ab_inputs_merge(struct ab_strv *names, const char *dst, const char *src);

/* a file of an OUTDIR's inputs/, as a bundle or an OUTDIR holds it */
struct ab_inputs_file {
	const char *name; /* relative to the OUTDIR: inputs/<k>/<rest> */
	const void *data;
	size_t len;
	int exec;         /* its mode is 0755, not 0644 */
};

/*
 * Lay the files out below root (an existing empty directory) as they
 * were around the recipe, and give the directory that stands for the
 * recipe's in *recipe_dir (caller frees). A name that is not
 * inputs/<k>/<rest> with a plain rest is refused. 0 or AB_EFAIL (reported).
 */
int ab_inputs_restore(char **recipe_dir, const char *root, const struct ab_inputs_file *files, size_t n);

#endif
