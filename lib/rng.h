/*
 * rng: the one seeded generator, xoshiro256** (Blackman and Vigna, 2018)
 * seeded through splitmix64, for everything allocbuild draws at random
 * and must draw again the same from the same seed: compare's bootstrap
 * and permutation tests (provenance/compare/stats.h), relink's layout
 * permutations (builder/layout.h).
 */
#ifndef AB_RNG_H
#define AB_RNG_H

#include <stddef.h>
#include <stdint.h>

struct ab_rng {
	uint64_t s[4];
};

void ab_rng_seed(struct ab_rng *r, uint64_t seed);
uint64_t ab_rng_next(struct ab_rng *r);
/* uniform in [0, n), n > 0: the high half of a 64 x 64 product (Lemire; the bias, n / 2^64, is nil here) */
size_t ab_rng_below(struct ab_rng *r, size_t n);
/* uniform in [0, 1) */
double ab_rng_uniform(struct ab_rng *r);
/* standard normal (Box-Muller) */
double ab_rng_normal(struct ab_rng *r);
/* v[0..n) in a uniformly drawn order (Fisher-Yates, from the last position down) */
void ab_rng_shuffle(struct ab_rng *r, size_t *v, size_t n);
/* a seed of its own for one use, from a seed and a name (FNV-1a, then splitmix64) */
uint64_t ab_rng_derive(uint64_t seed, const char *name);

#endif
