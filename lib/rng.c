#include "rng.h"

#include <math.h>

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

void
ab_rng_seed(struct ab_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
ab_rng_next(struct ab_rng *r)
{
	uint64_t *s = r->s, out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return out;
}

size_t
ab_rng_below(struct ab_rng *r, size_t n)
{
	return (size_t)(((unsigned __int128)ab_rng_next(r) * n) >> 64);
}

double
ab_rng_uniform(struct ab_rng *r)
{
	return (double)(ab_rng_next(r) >> 11) * 0x1.0p-53;
}

double
ab_rng_normal(struct ab_rng *r)
{
	double u = ab_rng_uniform(r), v = ab_rng_uniform(r);

	return sqrt(-2 * log(1 - u)) * cos(2 * M_PI * v);
}

void
ab_rng_shuffle(struct ab_rng *r, size_t *v, size_t n)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = ab_rng_below(r, i), t = v[i - 1];

		v[i - 1] = v[j];
		v[j] = t;
	}
}

uint64_t
ab_rng_derive(uint64_t seed, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ULL;

	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 0x100000001b3ULL;
	h ^= seed;
	return splitmix64(&h);
}
