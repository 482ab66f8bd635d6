/*
 * cpumask.h - a set of CPU numbers, one bit each.
 *
 * NR_CPUS is 64, so a mask is one word; the helpers keep Linux's names so
 * code reads the same if the mask ever grows.  Not atomic: build a mask in
 * one context and hand it over, do not share one being changed.
 */
#ifndef CPUMASK_H
#define CPUMASK_H

#include <compiler.h>
#include <smp.h>

struct cpumask {
	unsigned long bits;
};

BUILD_BUG_ON(NR_CPUS > 64);

static inline void cpumask_clear(struct cpumask *m)
{
	m->bits = 0;
}

static inline void cpumask_set_cpu(unsigned int cpu, struct cpumask *m)
{
	m->bits |= 1ul << cpu;
}

static inline void cpumask_clear_cpu(unsigned int cpu, struct cpumask *m)
{
	m->bits &= ~(1ul << cpu);
}

static inline bool cpumask_test_cpu(unsigned int cpu, const struct cpumask *m)
{
	return (m->bits >> cpu) & 1;
}

static inline unsigned int cpumask_weight(const struct cpumask *m)
{
	return (unsigned int)__builtin_popcountl(m->bits);
}

#define for_each_cpu(cpu, mask)                                               \
	for ((cpu) = 0; (cpu) < NR_CPUS; (cpu)++)                             \
		if (cpumask_test_cpu((cpu), (mask)))

/* Every CPU that is online now. */
void cpu_online_mask_get(struct cpumask *m);

#endif
