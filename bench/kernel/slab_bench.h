/*
 * slab_bench.h - what the slab benchmarks (slab_bench.c, scaling_bench.c,
 * counted_bench.c) share: the private caches they compare and the memory report.
 *
 * Every comparison is "the same cache with and without sheaves": two
 * private caches of one object size, created in the same boot, one with
 * the default sheaf capacity and one with sheaf_capacity = 0 (every
 * allocation and free then goes to the slabs under the node's list_lock).
 */
#ifndef BENCH_SLAB_BENCH_H
#define BENCH_SLAB_BENCH_H

#include <slab.h>

/* A private cache of `size`-byte objects, with sheaves or without. */
struct kmem_cache *bench_cache(unsigned int size, bool sheaves);

/* The same with an explicit mode (SLAB_MODE_SHEAVES with the default
 * capacity, SLAB_MODE_CPU_SLAB or SLAB_MODE_NONE): mode_bench.c and the
 * counted groups compare the three designs on caches made this way. */
struct kmem_cache *bench_cache_mode(unsigned int size, enum slab_mode mode);

/*
 * Bytes held in cache s's sheaves, as rows of `group`: one row per online
 * CPU (main + spare: the sheaf arrays and the free objects parked in
 * them) and one for the barn, with variant "<cache>.<phase>.cpu" (param =
 * CPU) and "<cache>.<phase>.barn".  Unit "bytes".
 */
void bench_report_cache_memory(const char *group, struct kmem_cache *s,
			       const char *phase);

#endif
