/*
 * test_mm_slab.c - the slab tests (tests/kernel/slab_test.c) on the host,
 * under AddressSanitizer and UBSan.
 *
 * Each suite gets fresh memory and a freshly initialised slab allocator,
 * four pretend CPUs (smp_call_function_single() and on_each_cpu() switch
 * host_cpu_id), and gives everything back when it ends.  The environment
 * variable SLUB_DEBUG, if set, is the slub_debug= option of that boot.
 */
#include <slab.h>
#include <smp.h>
#include <stdlib.h>
#include "mm_arena.h"
#include "../../mm/slab_internal.h"

int slab_test_env_init(void);
void slab_test_env_exit(void);

#define HOST_TEST_CPUS  4
#define SLAB_ARENA_BASE (16ull << 20)
#define SLAB_ARENA_END  (48ull << 20)   /* 32 MiB of "RAM" */

int slab_test_env_init(void)
{
	const struct fw_mmap_entry map[] = {
		{ SLAB_ARENA_BASE, SLAB_ARENA_END - SLAB_ARENA_BASE,
		  E820_TYPE_RAM },
	};

	arena_map_memory(&test_arena, SLAB_ARENA_BASE,
			 SLAB_ARENA_END - SLAB_ARENA_BASE);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	if (!arena_boot(&test_arena))
		return -1;
	host_cpu_id = 0;
	nr_cpu_ids = HOST_TEST_CPUS;
	/* Caches sized for exactly these CPUs: a loop past them is caught
	 * by the shadow (a cache is itself a slab object). */
	nr_cpu_possible = HOST_TEST_CPUS;
	/* $SLUB_DEBUG plays the kernel's slub_debug= (the debug matrix of
	 * tests/harness/run_tests.py). */
	kmem_cache_init(getenv("SLUB_DEBUG"));
	return 0;
}

void slab_test_env_exit(void)
{
	slab_host_reset();
	drain_all_pages();
	nr_cpu_ids = 1;
	nr_cpu_possible = NR_CPUS;
	host_cpu_id = 0;
	arena_exit(&test_arena);
}

#include "../kernel/slab_test.c"
