/*
 * rng.h - the one pseudo-random generator of the tree: xorshift64*
 * (Vigna), seeded through splitmix64. The same numbers from every libc and
 * every machine, so a seeded workload (bonnie's seeks, dbload's rows,
 * oltp's clients, pg's reservoir) or simulation repeats exactly. Not for
 * secrets: tokens and keys come from getrandom().
 */
#ifndef BB_RNG_H
#define BB_RNG_H

#include <stdint.h>

/* The next number; *s must not be 0 (rng_seed never returns 0). */
static inline uint64_t rng_next(uint64_t *s)
{
	uint64_t x = *s;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545F4914F6CDD1DULL;
}

/* A state from any seed (0 included): splitmix64, so that nearby seeds
 * give unrelated streams. */
static inline uint64_t rng_seed(uint64_t seed)
{
	seed += 0x9E3779B97F4A7C15ULL;
	seed = (seed ^ (seed >> 30)) * 0xBF58476D1CE4E5B9ULL;
	seed = (seed ^ (seed >> 27)) * 0x94D049BB133111EBULL;
	return (seed ^ (seed >> 31)) | 1;
}

#endif
