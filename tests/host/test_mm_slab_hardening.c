/*
 * test_mm_slab_hardening.c - the slab hardening tests
 * (tests/kernel/slab_hardening_test.c) on the host, under AddressSanitizer
 * and UBSan, in the slab tests' environment (test_mm_slab.c: 32 MiB of
 * arena, four pretend CPUs); there the deferred list drains when the test
 * calls slab_deferred_flush_all().
 *
 * A second suite, slab_hardening_z, boots the allocator as
 * `slub_debug=Z` would (every cache red-zoned, the kmalloc caches with
 * their kmalloc red zone from the size asked for) and runs the cases that
 * only bite there: krealloc() must neither leave red zone where zeroes
 * are due nor copy it, a deferred kfree() of a kmalloc object must
 * pass its red-zone checks, and kmalloc_nolock() must keep the size asked.  A third, slab_stride, proves the division-free
 * test of the kfree() fast path (slab_object_start()) against division
 * for every stride and offset.
 */
#include <slab.h>
#include <smp.h>
#include "mm_arena.h"
#include "../../mm/slab_internal.h"
#include "../kernel/slab_hardening_test.c"

#define Z_TEST_CPUS  4
#define Z_ARENA_BASE (16ull << 20)
#define Z_ARENA_END  (48ull << 20)

static int hardening_z_suite_init(struct kunit_suite *suite)
{
	const struct fw_mmap_entry map[] = {
		{ Z_ARENA_BASE, Z_ARENA_END - Z_ARENA_BASE, E820_TYPE_RAM },
	};

	(void)suite;
	arena_map_memory(&test_arena, Z_ARENA_BASE, Z_ARENA_END - Z_ARENA_BASE);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	if (!arena_boot(&test_arena))
		return -1;
	host_cpu_id = 0;
	nr_cpu_ids = nr_cpu_possible = Z_TEST_CPUS;
	kmem_cache_init("Z");
	return 0;
}

/* kmalloc(20), parked by kfree_nolock(), freed by the drain: no report. */
static void kmalloc_object_deferred_under_z(struct kunit *test)
{
	unsigned long reports = slab_reports, irq;
	struct kmem_cache *s = kmalloc_slab(KMALLOC_ASKED);
	void *a = kmalloc(KMALLOC_ASKED, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_TRUE(test, s->orig_size_offset != 0);
	memset(a, 0x5a, KMALLOC_ASKED);
	slab_report_count_only = true;
	park_objects(s, &a, 1, &irq);
	KUNIT_EXPECT_EQ(test, parked_here(), 1);
	unpark_all(irq);
	KUNIT_EXPECT_EQ(test, parked_here(), 0);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	slab_report_count_only = false;
}

/*
 * slab_object_start()'s index (one multiplication, one rotation) against
 * division, for every stride a cache can have (multiples of 8 up to the
 * largest slab, and every stride up to 64 for the arithmetic's sake),
 * with as many objects as fit: every offset inside the slab, the unused
 * tail, and offsets a wild pointer gives (below the slab: the subtraction
 * wraps; far above it).  An offset passes exactly when it is q * stride
 * with q below the object count, and then the index is q.
 */
#define MAX_SLAB_BYTES (PAGE_SIZE << 3)
#define SMALL_STRIDES  64

static const unsigned long wild_offsets[] = {
	~0ul, ~0ul - 7, -(unsigned long)PAGE_SIZE, 1ul << 32, (1ul << 32) + 64,
	1ul << 63, (1ul << 63) + 4096, 0x5555555555555555ul,
};

static unsigned long index_mismatches(unsigned int d)
{
	static struct kmem_cache fake;
	unsigned long wrong = 0, off, idx;
	unsigned int i;

	fake.size = d;
	calculate_stride_inverse(&fake);
	fake.objects = MAX_SLAB_BYTES / d;
	for (off = 0; off < MAX_SLAB_BYTES; off++) {
		bool object = off % d == 0 && off / d < fake.objects;

		idx = slab_object_index(&fake, off);
		wrong += (idx < fake.objects) != object;
		wrong += object && idx != off / d;
	}
	for (i = 0; i < ARRAY_SIZE(wild_offsets); i++)
		wrong += slab_object_index(&fake, wild_offsets[i]) <
			 fake.objects;
	return wrong;
}

static void object_index_matches_division(struct kunit *test)
{
	unsigned long wrong = 0;
	unsigned int d;

	for (d = 1; d <= SMALL_STRIDES; d++)
		wrong += index_mismatches(d);
	for (d = SMALL_STRIDES + 8; d <= MAX_SLAB_BYTES; d += 8)
		wrong += index_mismatches(d);
	KUNIT_EXPECT_EQ(test, wrong, 0);
}

/*
 * The counters an NMI may reach (review of issue 10: "plain ++ from NMI
 * context").  The two hot ones, cpu_sheaves[].alloc_pcs/free_pcs, are
 * plain adds, but only ever made by the holder of this CPU's sheaf lock,
 * so an NMI (which only tries that lock) cannot interleave with one; every
 * other counter (s->stat[], nolock_stats, the parked count) is an atomic
 * add.  Here the "NMI" lands while the sheaf lock is held: its
 * kmalloc_nolock()/kfree_nolock() must leave the hot counters alone and be
 * counted, once each, by the atomic slow-path ones.
 */
static void nmi_leaves_hot_counters_alone(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_slab(64);
	struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[smp_processor_id()];
	unsigned long alloc_pcs, free_pcs, slow_alloc, slow_free;
	void *p;

	if (!cache_has_sheaves(s))   /* $SLAB_MODE: the kmalloc classes' */
		kunit_skip(test, "kmalloc-64 has no sheaves in this slab mode");
	kfree(kmalloc(64, GFP_KERNEL));     /* this CPU's sheaves exist */
	alloc_pcs = pcs->alloc_pcs;
	free_pcs = pcs->free_pcs;
	slow_alloc = slab_stat_sum(s, ALLOC_SLOWPATH);
	slow_free = slab_stat_sum(s, FREE_SLOWPATH);
	KUNIT_ASSERT_TRUE(test, local_trylock(&pcs->lock));
	host_nmi_nesting++;
	p = kmalloc_nolock(64, 0, NUMA_NO_NODE);
	kfree_nolock(p);
	host_nmi_nesting--;
	local_unlock(&pcs->lock);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, pcs->alloc_pcs, alloc_pcs);
	KUNIT_EXPECT_EQ(test, pcs->free_pcs, free_pcs);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(s, ALLOC_SLOWPATH), slow_alloc + 1);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(s, FREE_SLOWPATH), slow_free + 1);
}

static struct kunit_case slab_counter_cases[] = {
	KUNIT_CASE(nmi_leaves_hot_counters_alone),
	{}
};

static struct kunit_suite slab_counter_suite = {
	.name = "slab_hardening_counters",
	.suite_init = hardening_suite_init,
	.suite_exit = hardening_suite_exit,
	.test_cases = slab_counter_cases,
};
kunit_test_suite(slab_counter_suite);

static struct kunit_case slab_stride_cases[] = {
	KUNIT_CASE(object_index_matches_division),
	{}
};

static struct kunit_suite slab_stride_suite = {
	.name = "slab_stride",
	.test_cases = slab_stride_cases,
};
kunit_test_suite(slab_stride_suite);

static struct kunit_case slab_hardening_z_cases[] = {
	KUNIT_CASE(kmalloc_object_deferred_under_z),
	KUNIT_CASE(krealloc_zeroes_what_it_exposes),
	KUNIT_CASE(tiny_object_red_zone_is_its_own),
	KUNIT_CASE(double_free_of_a_parked_object),
	KUNIT_CASE(kmalloc_nolock_keeps_the_size_asked),
	KUNIT_CASE(kmalloc_keeps_the_size_asked),
	{}
};

static struct kunit_suite slab_hardening_z_suite = {
	.name = "slab_hardening_z",
	.suite_init = hardening_z_suite_init,
	.suite_exit = hardening_suite_exit,
	.exit = hardening_case_exit,
	.test_cases = slab_hardening_z_cases,
};
kunit_test_suite(slab_hardening_z_suite);
