/*
 * buildtable: the final table of `allocbuild build` (cli/buildtable.c),
 * printed from what the build leaves (builder/build.h), as its
 * finished callback:
 *
 *   struct ab_build_opts bo = {.src = &so, .finished = ab_cmd_build_table};
 */
#ifndef AB_BUILDTABLE_H
#define AB_BUILDTABLE_H

struct ab_build_outcome;

void ab_cmd_build_table(const struct ab_build_outcome *o);
/*
 * build --json: the same as one document on stdout, {"outdir", "variants":
 * [{"label", "kind", "built", "allocator", "version", "secure", "settings":
 * [{"setting", "requested", "effective", "status", "origin"}],
 * "archive_sha256", "ccache"}], "built", "failed", "signatures"}
 */
void ab_cmd_build_json(const struct ab_build_outcome *o);

#endif
