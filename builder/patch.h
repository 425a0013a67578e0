/*
 * patch: apply a patch file to a directory tree with libgit2's apply (git
 * apply semantics: exact context, renames, mode changes, binary patches).
 * The files the patch touches are loaded into an in-memory repository,
 * the patch is applied there (git_apply_to_tree) and only when every hunk
 * applied are the results written back, each through a temporary file
 * and rename. A patch that does not apply changes nothing.
 */
#ifndef AB_PATCH_H
#define AB_PATCH_H

#include "../lib/util.h"

/*
 * Apply the patch whose bytes are patch (as read once with its digest:
 * ab_recipe_patch) to dir (name is the patch as the recipe writes it, for
 * messages). check_only: like git apply --check. On failure reports
 * patch, target file and hunk.
 */
int ab_patch_apply(const char *dir, const struct ab_buf *patch, const char *name, int check_only);

#endif
