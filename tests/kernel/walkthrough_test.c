/*
 * walkthrough_test.c - the story docs/slab-and-sheaves.md tells, traced.
 *
 * Suite walkthrough replays, on one CPU and a fresh cache with sheaves of
 * 4 objects (so that the spare, the barn and a refill come after a handful
 * of objects), the allocation and free paths the document walks through,
 * with the cache traced (mm/slab_trace.c): every step prints its line,
 * and the document quotes those lines ("Follow one allocation").  Each
 * step of the scenario checks the exact sequence of statistics its
 * operations took (slab_trace_hook records them), so the story cannot
 * drift from the code without this suite failing, and the harness checks
 * that the document's quote is what the log says
 * (tests/harness/run_tests.py, check_walkthrough_doc()).
 *
 * The scenario, each a `walkthrough: step N:` line in the log:
 *   1. the first allocation on this CPU: main is the bootstrap sheaf, the
 *      barn has nothing, so a sheaf is made (from a kmalloc cache), the
 *      cache's first slab comes from the page allocator, and the sheaf is
 *      refilled from it;
 *   2. three more allocations: sheaf hits, until main is empty;
 *   3. the fifth: main empty, no spare, barn empty: another sheaf,
 *      refilled from the now partial slab (no new slab); the empty main
 *      becomes the spare;
 *   4. a free: main has room;
 *   5. four frees: the first finds main full and swaps it with the spare;
 *   6. nine allocations: main, a swap, then a refill (the empty main goes
 *      to the barn);
 *   7. the nine freed: a swap, then main and spare full: main is traded
 *      at the barn for an empty sheaf;
 *   8. kfree_nolock() while this node's list_lock is held, in a cache
 *      without sheaves: parked on the deferred list, freed by irq_work;
 *   9. the cache destroyed: every sheaf flushed back to the slabs and
 *      freed, the empty slab back to the page allocator.
 * Nothing else allocates from these private caches; the CPU does not move
 * (the case runs in task context on the boot CPU with IRQs on: a tick's
 * interrupt never allocates from them).
 */
#include <kunit.h>
#include <kernel.h>
#include <slab.h>
#include <smp.h>
#include <spinlock.h>
#include "../../mm/slab_internal.h"
#include "test_wait.h"

#define WALK_SIZE       64
#define WALK_CAP        4
#define WALK_OBJECTS    16
#define WALK_MAX_STEPS  64

static struct kmem_cache *walk, *walk_nosheaf;
static enum slab_stat_item seen[WALK_MAX_STEPS];
static unsigned int nr_seen;

static void record(struct kmem_cache *s, enum slab_stat_item item,
		   const char *func)
{
	(void)func;
	if ((s == walk || s == walk_nosheaf) && nr_seen < WALK_MAX_STEPS)
		seen[nr_seen++] = item;
}

/* The steps since the last call are exactly want[0..nr). */
static void expect_steps(struct kunit *test, const char *step,
			 const enum slab_stat_item *want, unsigned int nr)
{
	unsigned int i;
	bool same = nr_seen == nr;

	for (i = 0; same && i < nr; i++)
		same = seen[i] == want[i];
	if (!same) {
		kunit_info(test, "%s: %u steps, expected %u:", step, nr_seen, nr);
		for (i = 0; i < max(nr_seen, nr); i++)
			kunit_info(test, "  %-22s %s",
				   i < nr_seen ? slab_stat_item_name(seen[i]) : "-",
				   i < nr ? slab_stat_item_name(want[i]) : "-");
	}
	KUNIT_EXPECT_TRUE(test, same);
	nr_seen = 0;
}

#define EXPECT_STEPS(test, step, ...)					\
	do {								\
		static const enum slab_stat_item want_[] = { __VA_ARGS__ }; \
		expect_steps((test), (step), want_, ARRAY_SIZE(want_));	\
	} while (0)

static void step_line(unsigned int n, const char *what)
{
	pr_info("walkthrough: step %u: %s\n", n, what);
}

static void one_allocation_traced(struct kunit *test)
{
	struct kmem_cache_args args = { .sheaf_capacity = WALK_CAP };
	struct kmem_cache_args none = { .sheaf_capacity = 0 };
	void *obj[WALK_OBJECTS], *parked;
	struct kmem_cache_node *n;
	unsigned long flags;
	unsigned int i;
	u64 end;

	walk = kmem_cache_create_args("walkthrough", WALK_SIZE, &args,
				      SLAB_TEST_SHEAF_CAPACITY);
	KUNIT_ASSERT_NOT_NULL(test, walk);
	if (!cache_has_sheaves(walk)) {
		kmem_cache_destroy(walk);
		kunit_skip(test, "slub_debug= is on: caches have no sheaves");
	}
	walk_nosheaf = kmem_cache_create_args("walkthrough_nosheaf", WALK_SIZE,
					      &none, 0);
	KUNIT_ASSERT_NOT_NULL(test, walk_nosheaf);
	nr_seen = 0;
	WRITE_ONCE(slab_trace_hook, record);
	slab_trace_enable(walk);
	slab_trace_enable(walk_nosheaf);
	expect_steps(test, "enable", NULL, 0);

	step_line(1, "kmem_cache_alloc(walkthrough): the first allocation on this CPU");
	obj[0] = kmem_cache_alloc(walk, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	EXPECT_STEPS(test, "step 1", BARN_GET_FAIL, SHEAF_ALLOC, ALLOC_SLAB,
		     SHEAF_REFILL, ALLOC_PCS);

	step_line(2, "three more allocations: sheaf hits until main is empty");
	for (i = 1; i < WALK_CAP; i++) {
		obj[i] = kmem_cache_alloc(walk, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	EXPECT_STEPS(test, "step 2", ALLOC_PCS, ALLOC_PCS, ALLOC_PCS);

	step_line(3, "the fifth: main empty, no spare, the barn empty");
	obj[WALK_CAP] = kmem_cache_alloc(walk, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj[WALK_CAP]);
	EXPECT_STEPS(test, "step 3", BARN_GET_FAIL, SHEAF_ALLOC, SHEAF_REFILL,
		     ALLOC_PCS);

	step_line(4, "one free: main has room");
	kmem_cache_free(walk, obj[WALK_CAP]);
	EXPECT_STEPS(test, "step 4", FREE_PCS);

	step_line(5, "four frees: the first finds main full and swaps it with the empty spare");
	for (i = 0; i < WALK_CAP; i++)
		kmem_cache_free(walk, obj[i]);
	EXPECT_STEPS(test, "step 5", SHEAF_SWAP, FREE_PCS, FREE_PCS, FREE_PCS,
		     FREE_PCS);

	step_line(6, "allocate nine: main, a swap to the spare, then a refill (the empty main goes to the barn)");
	for (i = 0; i < 2 * WALK_CAP + 1; i++) {
		obj[i] = kmem_cache_alloc(walk, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	EXPECT_STEPS(test, "step 6", ALLOC_PCS, ALLOC_PCS, ALLOC_PCS, ALLOC_PCS,
		     SHEAF_SWAP, ALLOC_PCS, ALLOC_PCS, ALLOC_PCS, ALLOC_PCS,
		     BARN_GET_FAIL, SHEAF_ALLOC, SHEAF_REFILL, BARN_PUT,
		     ALLOC_PCS);

	step_line(7, "free the nine: a swap, then main and spare full: main traded at the barn for an empty sheaf");
	for (i = 0; i < 2 * WALK_CAP + 1; i++)
		kmem_cache_free(walk, obj[i]);
	EXPECT_STEPS(test, "step 7", FREE_PCS, SHEAF_SWAP, FREE_PCS, FREE_PCS,
		     FREE_PCS, FREE_PCS, BARN_GET, BARN_PUT, FREE_PCS, FREE_PCS,
		     FREE_PCS, FREE_PCS);

	step_line(8, "kfree_nolock() while the node's list_lock is held (a cache without sheaves), then its irq_work");
	parked = kmem_cache_alloc(walk_nosheaf, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, parked);
	nr_seen = 0;
	n = get_node(walk_nosheaf, page_to_nid(virt_to_page(parked)));
	flags = local_irq_save();
	spin_lock(&n->list_lock);
	kfree_nolock(parked);
	spin_unlock(&n->list_lock);
	local_irq_restore(flags);
	/* The irq_work (a self-IPI) frees it; wait for it, never a window. */
	end = test_deadline();
	while (slab_deferred_frees(smp_processor_id()) &&
	       !test_deadline_passed(end))
		;
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(smp_processor_id()), 0);
	EXPECT_STEPS(test, "step 8", FREE_DEFERRED, FREE_SLOWPATH);

	step_line(9, "kmem_cache_destroy(): sheaves flushed, slabs back to the page allocator");
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(walk), 0);
	EXPECT_STEPS(test, "step 9", SHEAF_FLUSH, SHEAF_FREE, SHEAF_FLUSH,
		     SHEAF_FREE, SHEAF_FLUSH, SHEAF_FREE, FREE_SLAB);
	WRITE_ONCE(slab_trace_hook, NULL);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(walk_nosheaf), 0);
	walk = walk_nosheaf = NULL;
}

static void walkthrough_exit(struct kunit *test)
{
	(void)test;
	WRITE_ONCE(slab_trace_hook, NULL);
}

static struct kunit_case walkthrough_cases[] = {
	KUNIT_CASE(one_allocation_traced),
	{}
};

static struct kunit_suite walkthrough_suite = {
	.name = "walkthrough",
	.exit = walkthrough_exit,
	.test_cases = walkthrough_cases,
};
kunit_test_suite(walkthrough_suite);
