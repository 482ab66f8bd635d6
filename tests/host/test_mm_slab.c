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
#include <nolock_stats.h>
#include <stdlib.h>
#include "mm_arena.h"
#include "../../mm/slab_internal.h"

int slab_test_env_init(void);
void slab_test_env_exit(void);

#define HOST_TEST_CPUS  4
#define SLAB_ARENA_BASE (16ull << 20)
#define SLAB_ARENA_END  (48ull << 20)   /* 32 MiB of "RAM" */

/* Memory and CPUs, the slab allocator not yet initialised. */
static int slab_test_env_init_memory(void)
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
	return 0;
}

int slab_test_env_init(void)
{
	if (slab_test_env_init_memory())
		return -1;
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

/*
 * Host only: the boot window before kmalloc_init() has published the
 * classes, which an NMI may hit.  kmalloc_nolock()'s fast path reads the
 * flat size table; an entry not yet published (NULL, as the host reset
 * leaves them) must send it slow, where slab_is_available() says "not
 * now": NULL, counted as no memory, nothing dereferenced.
 */
static void kmalloc_nolock_before_the_classes_exist(struct kunit *test)
{
	unsigned long nomem = this_cpu_ptr(nolock_stats)->obj_alloc_nomem;

	slab_test_env_exit();
	KUNIT_ASSERT_EQ(test, slab_test_env_init_memory(), 0);
	KUNIT_EXPECT_FALSE(test, slab_is_available());
	KUNIT_EXPECT_PTR_EQ(test, kmalloc_nolock(64, 0, NUMA_NO_NODE), NULL);
	KUNIT_EXPECT_EQ(test, this_cpu_ptr(nolock_stats)->obj_alloc_nomem,
			nomem + 1);
	kmem_cache_init(getenv("SLUB_DEBUG"));
	KUNIT_EXPECT_TRUE(test, slab_is_available());
	kfree_nolock(kmalloc_nolock(64, 0, NUMA_NO_NODE));
}

static struct kunit_case boot_window_cases[] = {
	KUNIT_CASE(kmalloc_nolock_before_the_classes_exist),
	{}
};

static int boot_window_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void boot_window_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static struct kunit_suite slab_boot_window_suite = {
	.name = "slab_boot_window",
	.suite_init = boot_window_suite_init,
	.suite_exit = boot_window_suite_exit,
	.test_cases = boot_window_cases,
};
kunit_test_suite(slab_boot_window_suite);
