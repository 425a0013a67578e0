/*
 * varref: references to another variant's artifact inside a build
 * variant's configure arguments, CMake define values and build
 * environment values (docs/recipe.md, "Using another variant's artifact"):
 *
 *   "-DALIVE_ARCHIVE={variant:stock53:lib/libjemalloc_pic.a}"
 *
 * LABEL is a build or relink variant of the recipe and PATH one of its
 * artifacts (or its allocator archive); the plan replaces the reference
 * with the artifact's absolute path and builds LABEL first. The syntax is
 * exactly `{variant:` LABEL `:` PATH `}`, PATH holding no `}`; any other
 * text, braces included, is left as it is.
 */
#ifndef AB_VARREF_H
#define AB_VARREF_H

#include <stddef.h>

#define AB_VARREF_OPEN "{variant:"

struct ab_varref {
	char *label;
	char *path;
};

/*
 * The next reference in s at or after *pos: 1 and *ref filled (the
 * caller frees its strings), with *start and *end the byte range of the
 * whole reference; 0 when there is none; -1 when a reference starts at
 * *start but is malformed (no ':' after the label, an empty label or
 * path, no closing '}'). *pos moves past what was read.
 */
int ab_varref_next(const char *s, size_t *pos, size_t *start, size_t *end, struct ab_varref *ref);

/*
 * s with every reference replaced by resolve(arg, label, path), a
 * malloc'd string; NULL when a reference is malformed or resolve returns
 * NULL (both reported by the loader already, so not here).
 */
typedef char *ab_varref_resolve_fn(void *arg, const char *label, const char *path);
char *ab_varref_expand(const char *s, ab_varref_resolve_fn *resolve, void *arg);

void ab_varref_release(struct ab_varref *ref);

#endif
