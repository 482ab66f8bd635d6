/*
 * test_mm_slab.c - the slab tests (tests/kernel/slab_test.c) on the host,
 * under AddressSanitizer and UBSan.
 *
 * Each suite gets fresh memory and a freshly initialised slab allocator,
 * four pretend CPUs (smp_call_function_single() and on_each_cpu() switch
 * host_cpu_id), and gives everything back when it ends.  The environment
 * variable SLUB_DEBUG, if set, is the slub_debug= option of that boot.
 */
#include <mm_check.h>
#include <slab.h>
#include <smp.h>
#include <nolock_stats.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* $SLAB_MODE plays the kernel's slab_mode= ("sheaf", "cpuslab", "none";
 * unset: auto, sheaves), the mode matrix of tests/harness/run_tests.py. */
static enum slab_mode env_slab_mode(void)
{
	const char *name = getenv("SLAB_MODE");
	unsigned int m;

	for (m = 0; name && m < NR_SLAB_MODES; m++)
		if (!strcmp(name, slab_mode_names[m]))
			return m;
	if (name) {
		fprintf(stderr, "SLAB_MODE=%s: not one of sheaf, cpuslab, none\n",
			name);
		exit(2);
	}
	return SLAB_MODE_AUTO;
}

/*
 * Memory, CPUs, and the slab allocator with its kmalloc classes in
 * kmalloc_mode (slab_mode=).  The host build also gives that mode to
 * every cache created without a mode of its own and with the default
 * sheaf capacity (kmem_cache_create(), slab_host_default_mode in
 * mm/slab_common.c), so the suites of generic slab behaviour run over
 * each mode.
 */
int slab_test_env_init_mode(enum slab_mode kmalloc_mode)
{
	if (slab_test_env_init_memory())
		return -1;
	slab_kmalloc_mode = kmalloc_mode;
	slab_host_default_mode = kmalloc_mode;
	/* $SLUB_DEBUG plays the kernel's slub_debug= (the debug matrix of
	 * tests/harness/run_tests.py). */
	kmem_cache_init(getenv("SLUB_DEBUG"));
	return 0;
}

int slab_test_env_init(void)
{
	return slab_test_env_init_mode(env_slab_mode());
}

void slab_test_env_exit(void)
{
	slab_host_reset();
	slab_kmalloc_mode = SLAB_MODE_AUTO;
	slab_host_default_mode = SLAB_MODE_AUTO;
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

/* ---- the trace (mm/slab_trace.c) ---- */

#define TRACE_CAP     4
#define TRACE_STEPS   32

static struct kmem_cache *traced;
static enum slab_stat_item trace_seen[TRACE_STEPS];
static unsigned int nr_trace_seen;

static void trace_record(struct kmem_cache *s, enum slab_stat_item item,
			 const char *func)
{
	(void)func;
	if (s == traced && nr_trace_seen < TRACE_STEPS)
		trace_seen[nr_trace_seen++] = item;
}

static unsigned int trace_count(enum slab_stat_item item)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr_trace_seen; i++)
		n += trace_seen[i] == item;
	return n;
}

static int slab_trace_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void slab_trace_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static void slab_trace_case_exit(struct kunit *test)
{
	(void)test;
	slab_trace_hook = NULL;
	if (traced)
		kmem_cache_destroy(traced);
	traced = NULL;
}

/*
 * A traced cache leaves the inline fast paths: every allocation and free
 * shows up as a step (a sheaf hit included), its main is the trace gate
 * while the lock is free, and mm_check finds the real main behind it.
 * Turned off, the fast paths serve it again and print nothing.
 */
static void traced_cache_takes_every_step_slow(struct kunit *test)
{
	struct kmem_cache_args args = { .sheaf_capacity = TRACE_CAP };
	struct slub_percpu_sheaves *pcs;
	void *obj[TRACE_CAP];
	unsigned int i;

	traced = kmem_cache_create_args("trace_host", 64, &args,
					SLAB_TEST_SHEAF_CAPACITY);
	KUNIT_ASSERT_NOT_NULL(test, traced);
	if (!cache_has_sheaves(traced))
		kunit_skip(test, "slub_debug= is on: caches have no sheaves");
	pcs = this_cpu_sheaves(traced);
	nr_trace_seen = 0;
	slab_trace_hook = trace_record;
	slab_trace_enable(traced);

	obj[0] = kmem_cache_alloc(traced, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	KUNIT_EXPECT_EQ(test, trace_count(SHEAF_REFILL), 1);
	KUNIT_EXPECT_EQ(test, trace_count(ALLOC_SLAB), 1);
	KUNIT_EXPECT_EQ(test, trace_count(ALLOC_PCS), 1);
	KUNIT_EXPECT_PTR_EQ(test, pcs->main, &slab_trace_gate);
	KUNIT_EXPECT_EQ(test, pcs_main_unlocked(pcs)->size, TRACE_CAP - 1);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	/* Sheaf hits too: the inline pop refused the gate. */
	nr_trace_seen = 0;
	for (i = 1; i < TRACE_CAP; i++) {
		obj[i] = kmem_cache_alloc(traced, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	KUNIT_EXPECT_EQ(test, nr_trace_seen, TRACE_CAP - 1);
	KUNIT_EXPECT_EQ(test, trace_count(ALLOC_PCS), TRACE_CAP - 1);
	nr_trace_seen = 0;
	for (i = 0; i < TRACE_CAP; i++)
		kmem_cache_free(traced, obj[i]);
	KUNIT_EXPECT_EQ(test, trace_count(FREE_PCS), TRACE_CAP);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	/* Off: the real main is back and the fast paths serve silently. */
	slab_trace_disable(traced);
	KUNIT_EXPECT_PTR_NE(test, pcs->main, &slab_trace_gate);
	obj[0] = kmem_cache_alloc(traced, GFP_KERNEL);   /* refills */
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	nr_trace_seen = 0;
	obj[1] = kmem_cache_alloc(traced, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj[1]);
	kmem_cache_free(traced, obj[1]);
	kmem_cache_free(traced, obj[0]);
	KUNIT_EXPECT_EQ(test, nr_trace_seen, 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static struct kunit_case slab_trace_cases[] = {
	KUNIT_CASE(traced_cache_takes_every_step_slow),
	{}
};

static struct kunit_suite slab_trace_suite = {
	.name = "slab_trace_host",
	.suite_init = slab_trace_suite_init,
	.suite_exit = slab_trace_suite_exit,
	.exit = slab_trace_case_exit,
	.test_cases = slab_trace_cases,
};
kunit_test_suite(slab_trace_suite);
