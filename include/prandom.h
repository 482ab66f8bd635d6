/*
 * prandom.h - a small, seedable pseudo-random generator for tests.
 *
 * xorshift64* (Vigna, 2016): one multiply and three shifts a number, good
 * enough to shuffle allocation orders and sizes, and fully determined by
 * its seed, so a failing randomised test replays exactly with `seed=`.
 * Never zero: a zero state would stay zero, so seeding maps 0 to a constant.
 */
#ifndef PRANDOM_H
#define PRANDOM_H

#include <types.h>

struct rnd_state {
	u64 s;
};

#define PRANDOM_ZERO_SEED_REPLACEMENT 0x9e3779b97f4a7c15ull
#define XORSHIFT64STAR_MULT           0x2545f4914f6cdd1dull

static inline void prandom_seed_state(struct rnd_state *r, u64 seed)
{
	r->s = seed ? seed : PRANDOM_ZERO_SEED_REPLACEMENT;
}

static inline u64 prandom_u64_state(struct rnd_state *r)
{
	u64 x = r->s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	r->s = x;
	return x * XORSHIFT64STAR_MULT;
}

static inline u32 prandom_u32_state(struct rnd_state *r)
{
	return (u32)(prandom_u64_state(r) >> 32);
}

/* Uniform-enough in [0, n) for test purposes; n > 0. */
static inline u32 prandom_below(struct rnd_state *r, u32 n)
{
	return (u32)(((u64)prandom_u32_state(r) * n) >> 32);
}

/* The boot's seed (`seed=` or from the TSC), printed at boot. */
extern u64 boot_seed;

#endif
