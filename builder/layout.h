/*
 * layout: a link whose code layout changes and nothing else, the layout
 * control of a benchmark (docs/relink.md, "Layout controls"). The order
 * in which a program's objects and its archives' members are linked
 * decides where each function lands, and that alone has moved measured
 * CPU by more than a typical allocator effect (Mytkowicz, Diwan, Hauswirth
 * and Sweeney, "Producing wrong data without doing anything obviously
 * wrong!", ASPLOS 2009). A layout variant links the same objects in a
 * seeded permutation: the positions of the command's object files
 * (*.o, *.obj) are shuffled among themselves, and each archive it links
 * from a build tree (not the system's, under /usr or /lib) is replaced by
 * a copy whose members are in a shuffled order (the linker places what it
 * pulls from an archive in member order), the copy's symbol index made by
 * ranlib. The same members are pulled, so the program has the same
 * symbols; only their addresses move.
 *
 * The permutation is a pure function of the seed: lib/rng's generator
 * (xoshiro256** seeded by splitmix64) drives a Fisher-Yates shuffle of
 * the object positions, and gives each archive,
 * in command order, the seed of its members' shuffle.
 *
 *   struct ab_layout l = {.seed = 3};
 *   ab_layout_permute(&l, &argv, oi, build_dir, copies_dir);  objects moved, archives listed
 *   for each l.archives[i]: ab_layout_archive_write(&l, i) then ranlib l.archives[i].copy
 *   ab_layout_order(&l, j)            the argv index a position j took its argument from
 *   cJSON *o = ab_layout_json(&l);    the seed and each order, for relink-provenance.json
 *   ab_layout_release(&l);
 */
#ifndef AB_LAYOUT_H
#define AB_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "../lib/rng.h"

#include <cjson/cJSON.h>

#include "../lib/hash.h"
#include "../lib/util.h"

struct ab_layout_archive {
	int argi;                /* its argv index */
	char *path;              /* the archive linked, absolute */
	char *copy;              /* its permuted copy, absolute */
	struct ab_strv members;  /* the copy's members, in their new order */
	char sha256[AB_HEX_LEN + 1]; /* the original's digest */
	uint64_t seed;           /* its members' shuffle: drawn from the layout's seed in command order */
};

struct ab_layout {
	uint64_t seed;
	struct ab_rng rng;       /* the generator (lib/rng.h), seeded with seed */
	size_t *from;            /* per argv position: the position its argument came from */
	size_t nargv;
	struct ab_strv objects;  /* the object arguments, in their new order */
	struct ab_layout_archive *archives;
	size_t narchives;
};

/*
 * Permute argv (a link command, its output at oi) in place: the object
 * arguments' positions shuffled, each archive of a build tree (resolved
 * against build_dir) to be replaced by copies_dir/N-NAME, listed in
 * l->archives and already substituted in argv (argv owns its strings;
 * write the copies with
 * ab_layout_archive_write before linking). AB_EFAIL when a command has
 * nothing to permute (reported).
 */
int ab_layout_permute(struct ab_layout *l, struct ab_strv *argv, int oi, const char *build_dir,
    const char *copies_dir, const char *what);
/* write archive i's permuted copy (atomically, its directory made); 0 or AB_EFAIL (reported) */
int ab_layout_archive_write(struct ab_layout *l, size_t i);
/* the argv position whose argument position j holds now */
size_t ab_layout_order(const struct ab_layout *l, size_t j);
/* {seed, objects: [...], archives: [{path, sha256, copy, members: [...]}]} */
cJSON *ab_layout_json(const struct ab_layout *l);
void ab_layout_release(struct ab_layout *l);

#endif
