/*
 * objset: the objects a variant's build left in its tree, read from its
 * compile log (builder/ccwrap.h: object digest, directory, output, source,
 * command, ccache's result), with its link inputs (the static archives the
 * build made, added by the caller), and two such sets compared: the evidence that
 * two variants of one source differ only where their settings reach
 * (build-commands.json "objects" and "object_comparison", docs/manifests.md).
 *
 *   struct ab_objset a, b;
 *   ab_objset_parse(&a, text_a, "/allocbuild/build", exists, ctx);
 *   ab_objset_digest(hex, &a);                       the set's digest
 *   cJSON *cmp = ab_objset_compare(&a, "c1", &b, "c2");
 *   ab_objset_release(&a);
 */
#ifndef AB_OBJSET_H
#define AB_OBJSET_H

#include <stddef.h>

#include <cjson/cJSON.h>

#include "../../lib/hash.h"
#include "../../lib/strmap.h"
#include "../../lib/util.h"

struct ab_objset {
	struct ab_strv paths;  /* each object's path below the build tree, in the log's order */
	struct ab_strv sha;    /* its digest, index-aligned */
	struct ab_strmap map;  /* path -> index */
};

/*
 * The objects of a compile log: each output joined to its directory and
 * taken relative to build (the build tree as the compiles saw it); an
 * object outside it (a configure test in /tmp) is none of the tree's. The
 * last writing of a path counts, and only when exists(ctx, path) says it
 * is still in the tree (configure's conftest.o is not). 0 (a log that is
 * not one has no objects).
 */
void ab_objset_parse(struct ab_objset *s, const char *text, const char *build,
    int (*exists)(void *ctx, const char *path), void *ctx);
/*
 * One more member: a link input of the tree that no compile wrote (a
 * static archive the build made: its ar members are objects of the set
 * already, its index and order are not), or a later writing of a path
 */
void ab_objset_add(struct ab_objset *s, const char *rel, const char *sha);
/* the SHA-256 of the set: its SHA256SUMS lines ("DIGEST  PATH", lib/hash.h's ab_hash_line) sorted by path */
void ab_objset_digest(char hex[AB_HEX_LEN + 1], const struct ab_objset *s);
/*
 * a against b: {a, b, identical, differ, only_a, only_b, differ_by_directory
 * {DIR: n} (the most first, then by name), differing [PATH...] (sorted, at
 * most AB_OBJSET_NAMED)}; the same on every run whatever the order of the
 * compiles; caller frees
 */
#define AB_OBJSET_NAMED 100
cJSON *ab_objset_compare(const struct ab_objset *a, const char *la, const struct ab_objset *b, const char *lb);
void ab_objset_release(struct ab_objset *s);

#endif
