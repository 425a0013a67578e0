/*
 * shard: the partition of a recipe's variants into N shards that
 * `plan --matrix` prints and `build --shard K/N` builds (docs/scale.md).
 * Each shard is a dependency closure (ab_recipe_variant_deps: a relink
 * with its `from` and replacement variants, a runtime_of with its base, a
 * {variant:...} user with the variants it uses); a variant needed by two
 * shards is in both. The partition depends on the recipe alone: the same
 * recipe and N give the same shards on every machine.
 *
 * Cost estimate: a build variant AB_SHARD_COST_BUILD, a relink
 * AB_SHARD_COST_RELINK, a runtime_of AB_SHARD_COST_RUNTIME; a shard costs
 * the sum over its variants. Variants are placed heaviest first (own cost,
 * then closure cost, then recipe order); a variant some shard already has
 * is not placed again; otherwise its closure goes to the shard whose cost
 * grows to the least total (ties: the lower shard). A shard may be empty
 * when N exceeds what the dependencies let split.
 *
 *   struct ab_shards *s;
 *   if (ab_shard_make(&s, recipe, n) < 0) ...       reported
 *   s->shard[k].labels: shard k+1's labels, in dependency order
 *   ab_shards_free(s);
 */
#ifndef AB_SHARD_H
#define AB_SHARD_H

#include <cjson/cJSON.h>

#include "recipe.h"
#include "../lib/util.h"

#define AB_SHARD_COST_BUILD 20
#define AB_SHARD_COST_RELINK 2
#define AB_SHARD_COST_RUNTIME 1
/* the most shards a recipe is split into */
#define AB_SHARD_MAX 1024

struct ab_shard {
	struct ab_strv labels; /* in the recipe's dependency order (ab_recipe_order) */
	unsigned long cost;
};

struct ab_shards {
	const struct ab_recipe *r;
	struct ab_shard *shard;
	size_t n;
};

/* split r into n shards (1..AB_SHARD_MAX); 0 or AB_EFAIL (reported) */
int ab_shard_make(struct ab_shards **out, const struct ab_recipe *r, size_t n);
/* the cost of one variant (above) */
unsigned long ab_shard_variant_cost(const struct ab_variant *v);
/*
 * "K/N" into *k and *n (1 <= K <= N <= AB_SHARD_MAX); -1 (not reported)
 * when it is not that
 */
int ab_shard_parse(size_t *k, size_t *n, const char *s);
/* the partition as `plan --matrix` prints it (docs/scale.md); caller frees */
cJSON *ab_shard_json(const struct ab_shards *s);
void ab_shards_free(struct ab_shards *s);

#endif
