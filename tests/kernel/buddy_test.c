/*
 * buddy_test.c - the page allocator tested in the running kernel, on the
 * real node 0.
 *
 * Nothing else allocates while the self-tests run (one CPU does the work,
 * no interrupts allocate), so every case can compare nr_free_pages() and
 * the free blocks per order exactly before and after, after draining the
 * per-CPU lists.  Randomized cases print the boot seed: boot again with
 * seed=N to replay one.
 */
#include <kunit.h>
#include <kernel.h>
#include <mm.h>
#include <mmzone.h>
#include <prandom.h>
#include <smp.h>
#include <spinlock.h>
#include <string.h>
#include <irqflags.h>
#include "memory_need.h"

struct buddy_snapshot {
	unsigned long nr_free;
	unsigned long blocks[MAX_NR_ZONES][NR_PAGE_ORDERS];
};

static void take_snapshot(struct buddy_snapshot *s)
{
	unsigned int z, o;

	drain_all_pages();
	s->nr_free = nr_free_pages();
	for (z = 0; z < MAX_NR_ZONES; z++)
		for (o = 0; o <= MAX_ORDER; o++)
			s->blocks[z][o] =
				NODE_DATA(0)->node_zones[z].free_area[o].nr_free;
}

/* After a drain, the buddy must look exactly as it did. */
static void expect_same_as(struct kunit *test, const struct buddy_snapshot *a)
{
	struct buddy_snapshot b;
	unsigned int z, o;

	take_snapshot(&b);
	KUNIT_EXPECT_EQ(test, b.nr_free, a->nr_free);
	for (z = 0; z < MAX_NR_ZONES; z++)
		for (o = 0; o <= MAX_ORDER; o++)
			KUNIT_EXPECT_EQ(test, b.blocks[z][o], a->blocks[z][o]);
}

static void boot_handed_memory_to_the_buddy(struct kunit *test)
{
	struct zone *dma32 = &NODE_DATA(0)->node_zones[ZONE_DMA32];
	phys_addr_t memmap_frame;

	KUNIT_ASSERT_NOT_NULL(test, NODE_DATA(0));
	KUNIT_EXPECT_GT(test, dma32->managed_pages, 0);
	KUNIT_EXPECT_GT(test, nr_free_pages(), 8ul << (20 - PAGE_SHIFT));
	/* The first MiB and the kernel image are never free. */
	KUNIT_EXPECT_TRUE(test, pfn_to_page(0)->flags & PG_reserved);
	KUNIT_EXPECT_TRUE(test, virt_to_page(boot_handed_memory_to_the_buddy)->flags &
				PG_reserved);
	/* So are the frames behind the memmap (mapped at VMEMMAP_BASE). */
	KUNIT_ASSERT_TRUE(test, vmemmap_lookup(mem_map, &memmap_frame));
	KUNIT_EXPECT_TRUE(test, pfn_to_page(memmap_frame >> PAGE_SHIFT)->flags &
				PG_reserved);
}

/* Every free page, one at a time, then all back: nothing lost or made up. */
static void allocate_every_page_then_free_all(struct kunit *test)
{
	struct buddy_snapshot before;
	struct page *chain = NULL, *p;
	unsigned long n = 0;

	take_snapshot(&before);
	while ((p = alloc_page(GFP_KERNEL | __GFP_NOWARN))) {
		/* Every free frame must be reachable through the direct map. */
		*(unsigned long *)page_address(p) = page_to_pfn(p);
		p->private_data = (unsigned long)chain;
		chain = p;
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, before.nr_free);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), 0);
	kunit_info(test, "allocated all %lu free pages\n", n);
	while (chain) {
		p = chain;
		chain = (struct page *)p->private_data;
		if (*(unsigned long *)page_address(p) != page_to_pfn(p))
			n = 0;   /* two allocations shared a frame */
		__free_page(p);
	}
	KUNIT_EXPECT_EQ(test, n, before.nr_free);
	expect_same_as(test, &before);
}

#define NR_RANDOM_BLOCKS 512
#define RANDOM_MAX_ORDER 6
/*
 * What the random walk holds at its peak: about half the blocks live, of
 * (2^(RANDOM_MAX_ORDER+1) - 1) / (RANDOM_MAX_ORDER+1) = 18 pages on average
 * (every order equally likely), and a quarter more for the spread of the
 * walk and for fragmentation: 5760 pages, 22.5 MiB.
 */
#define RANDOM_AVG_BLOCK_PAGES \
	(((1ul << (RANDOM_MAX_ORDER + 1)) - 1) / (RANDOM_MAX_ORDER + 1))
#define RANDOM_PEAK_PAGES (NR_RANDOM_BLOCKS / 2 * RANDOM_AVG_BLOCK_PAGES)
#define RANDOM_NEED_PAGES (RANDOM_PEAK_PAGES + RANDOM_PEAK_PAGES / 4)

static u64 pattern_of(unsigned long pfn, unsigned long i)
{
	return ((u64)pfn << 20) ^ (i * 0x9e3779b97f4a7c15ull) ^ boot_seed;
}

static void fill_block(struct page *p, unsigned int order)
{
	u64 *w = page_address(p);
	unsigned long i, n = (PAGE_SIZE << order) / sizeof(u64);

	for (i = 0; i < n; i++)
		w[i] = pattern_of(page_to_pfn(p), i);
}

static bool block_intact(struct page *p, unsigned int order)
{
	const u64 *w = page_address(p);
	unsigned long i, n = (PAGE_SIZE << order) / sizeof(u64);

	for (i = 0; i < n; i++)
		if (w[i] != pattern_of(page_to_pfn(p), i))
			return false;
	return true;
}

static void random_orders_never_overlap(struct kunit *test)
{
	static struct page *blk[NR_RANDOM_BLOCKS];
	static unsigned int ord[NR_RANDOM_BLOCKS];
	struct buddy_snapshot before;
	struct rnd_state rnd;
	unsigned int i, step;

	kunit_skip_unless_free_pages(test, RANDOM_NEED_PAGES);
	kunit_info(test, "seed %lu\n", (unsigned long)boot_seed);
	prandom_seed_state(&rnd, boot_seed);
	memset(blk, 0, sizeof(blk));
	take_snapshot(&before);
	for (step = 0; step < 4 * NR_RANDOM_BLOCKS; step++) {
		i = prandom_below(&rnd, NR_RANDOM_BLOCKS);
		if (blk[i]) {
			KUNIT_EXPECT_TRUE(test, block_intact(blk[i], ord[i]));
			__free_pages(blk[i], ord[i]);
			blk[i] = NULL;
			continue;
		}
		ord[i] = prandom_below(&rnd, RANDOM_MAX_ORDER + 1);
		blk[i] = alloc_pages(prandom_below(&rnd, 4) ? GFP_KERNEL :
				     GFP_DMA32, ord[i]);
		KUNIT_ASSERT_NOT_NULL(test, blk[i]);
		KUNIT_EXPECT_EQ(test, page_to_pfn(blk[i]) &
				      ((1ul << ord[i]) - 1), 0);
		fill_block(blk[i], ord[i]);
	}
	/* A write into a block that overlaps another shows up here. */
	for (i = 0; i < NR_RANDOM_BLOCKS; i++) {
		if (!blk[i])
			continue;
		KUNIT_EXPECT_TRUE(test, block_intact(blk[i], ord[i]));
		__free_pages(blk[i], ord[i]);
	}
	expect_same_as(test, &before);
}

static void pcp_drain_gives_back_what_it_held(struct kunit *test)
{
	struct zone *zone = &NODE_DATA(0)->node_zones[ZONE_DMA32];
	struct per_cpu_pages *pcp = &zone->pcp[smp_processor_id()];
	struct page *a, *b;
	unsigned long total, held, buddy;

	drain_all_pages();
	total = nr_free_pages();
	a = alloc_pages(GFP_DMA32, 0);
	b = alloc_pages(GFP_DMA32, 3);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	__free_pages(b, 3);
	held = pcp->count;
	KUNIT_EXPECT_GT(test, held, 0);
	buddy = zone->free_pages;
	KUNIT_EXPECT_EQ(test, nr_free_pages(), total - 1);

	drain_local_pages();
	KUNIT_EXPECT_EQ(test, pcp->count, 0);
	KUNIT_EXPECT_EQ(test, zone->free_pages, buddy + held);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), total - 1);
	__free_pages(a, 0);
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, nr_free_pages(), total);
}

static void double_free_is_caught(struct kunit *test)
{
	struct buddy_snapshot before;
	unsigned long bad = nr_bad_page_frees;
	struct page *p;

	take_snapshot(&before);
	p = alloc_pages(GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_REPORT(test, "wrong order", /* refused */
			    __free_pages(p, 1));
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 1);
	__free_pages(p, 2);
	KUNIT_EXPECT_REPORT(test, "double free: already free",
			    __free_pages(p, 2));      /* refused */
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 2);
	expect_same_as(test, &before);
}

static unsigned long deferred_pages(void)
{
	unsigned long n = 0;
	unsigned int z;
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++)
		for (z = 0; NODE_DATA(nid) && z < MAX_NR_ZONES; z++)
			n += NODE_DATA(nid)->node_zones[z].nr_deferred;
	return n;
}

/* Take (or drop) every pcp and zone lock of this CPU on every node (a try
 * on one node falls back to the others), as if an NMI had interrupted
 * code holding them all.  IRQs are off meanwhile. */
static void hold_all_locks(bool hold)
{
	unsigned int z, cpu = smp_processor_id();
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		for (z = 0; NODE_DATA(nid) && z < MAX_NR_ZONES; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (zone_is_empty(zone))
				continue;
			if (hold) {
				spin_lock(&zone->pcp[cpu].lock);
				spin_lock(&zone->lock);
			} else {
				spin_unlock(&zone->lock);
				spin_unlock(&zone->pcp[cpu].lock);
			}
		}
	}
}

/* An "NMI" (this CPU's nmi_nesting raised) while this CPU holds the locks:
 * the nolock calls must neither spin nor lose a page. */
static void nolock_calls_inside_held_locks(struct kunit *test)
{
	struct buddy_snapshot before;
	struct page *p, *q, *got;
	unsigned long flags;

	take_snapshot(&before);
	p = alloc_pages(GFP_KERNEL, 0);
	q = try_alloc_pages(0, 5);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, q);

	flags = local_irq_save();
	hold_all_locks(true);
	this_cpu()->nmi_nesting++;
	got = try_alloc_pages(0, 0);
	free_pages_nolock(p, 0);
	free_pages_nolock(q, 5);
	this_cpu()->nmi_nesting--;
	hold_all_locks(false);
	local_irq_restore(flags);

	KUNIT_EXPECT_NULL(test, got);
	KUNIT_EXPECT_EQ(test, deferred_pages(), 33);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before.nr_free);
	/* The next frees (one per zone) drain the deferred lists. */
	free_page(__get_free_page(GFP_DMA32));
	free_page(__get_free_page(GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, deferred_pages(), 0);
	expect_same_as(test, &before);
}

/*
 * Page poisoning: a write into a freed page is reported when the page is
 * handed out again.  The per-CPU list is LIFO, so the next order-0
 * allocation on this CPU returns the page just freed.
 */
#define POISON_ORDER 2   /* a block of four pages, from the per-CPU list */

static void page_poison_catches_write_after_free(struct kunit *test)
{
	bool was = page_poisoning;
	unsigned long reports = nr_page_poison_reports;
	unsigned long before = nr_free_pages();
	struct page *p, *q;
	u8 *data;

	page_poisoning = true;
	p = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	data = page_address(p);
	__free_pages(p, 0);
	KUNIT_EXPECT_TRUE(test, p->flags & PG_poisoned);
	KUNIT_EXPECT_EQ(test, data[0], PAGE_POISON);
	KUNIT_EXPECT_EQ(test, data[PAGE_SIZE - 1], PAGE_POISON);

	/* A clean round trip is not reported. */
	q = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	KUNIT_EXPECT_EQ(test, nr_page_poison_reports, reports);
	KUNIT_EXPECT_FALSE(test, q->flags & PG_poisoned);
	__free_pages(q, 0);

	/* A stray write after the free is. */
	data[100] = 0x55;
	KUNIT_EXPECT_REPORT(test, "BUG: page poison overwritten",
			    q = alloc_pages(GFP_KERNEL, 0));
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	KUNIT_EXPECT_EQ(test, nr_page_poison_reports, reports + 1);
	__free_pages(q, 0);

	/* In a bigger block, a write into its last page is seen too. */
	p = alloc_pages(GFP_KERNEL, POISON_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, p);
	data = page_address(p);
	__free_pages(p, POISON_ORDER);
	data[(PAGE_SIZE << POISON_ORDER) - 1] = 0x55;
	KUNIT_EXPECT_REPORT(test, "BUG: page poison overwritten",
			    q = alloc_pages(GFP_KERNEL, POISON_ORDER));
	KUNIT_ASSERT_PTR_EQ(test, q, p);  /* the per-CPU list gives it back */
	KUNIT_EXPECT_EQ(test, nr_page_poison_reports, reports + 2);
	__free_pages(q, POISON_ORDER);

	page_poisoning = was;
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before);
}

/*
 * Poisoned blocks merge with never-poisoned ones and are split again
 * without a false report: allocate and free many blocks of mixed orders
 * with poisoning on, then allocate them all again with it off.
 */
#define POISON_BLOCKS 64

static void page_poison_survives_split_and_merge(struct kunit *test)
{
	static struct page *blocks[POISON_BLOCKS];
	bool was = page_poisoning;
	unsigned long reports = nr_page_poison_reports;
	unsigned long before = nr_free_pages();
	unsigned int i;

	page_poisoning = true;
	for (i = 0; i < POISON_BLOCKS; i++)
		blocks[i] = alloc_pages(GFP_KERNEL, i % 5);
	for (i = 0; i < POISON_BLOCKS; i++)
		if (blocks[i])
			__free_pages(blocks[i], i % 5);
	drain_all_pages();   /* back to the buddy: merge with their buddies */
	page_poisoning = false;
	for (i = 0; i < POISON_BLOCKS; i++)
		blocks[i] = alloc_pages(GFP_KERNEL, (i * 7) % 6);
	for (i = 0; i < POISON_BLOCKS; i++)
		if (blocks[i])
			__free_pages(blocks[i], (i * 7) % 6);
	page_poisoning = was;
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, nr_page_poison_reports, reports);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before);
}

/* zone_pcp_disable(): small orders go straight to the buddy and back. */
static void pcp_disabled_zone_uses_the_buddy(struct kunit *test)
{
	unsigned long before = nr_free_pages();
	struct page *page = alloc_pages(GFP_KERNEL, 0);
	struct zone *zone;

	KUNIT_ASSERT_NOT_NULL(test, page);
	zone = page_zone(page);
	__free_pages(page, 0);
	zone_pcp_disable(zone);
	KUNIT_EXPECT_EQ(test, zone_pcp_count(zone), 0);   /* drained */
	page = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	__free_pages(page, 0);
	KUNIT_EXPECT_EQ(test, zone_pcp_count(zone), 0);   /* not parked */
	zone_pcp_enable(zone);
	page = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	__free_pages(page, 0);
	KUNIT_EXPECT_GT(test, zone_pcp_count(zone), 0);   /* lists again */
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before);
}

static struct kunit_case buddy_cases[] = {
	KUNIT_CASE(boot_handed_memory_to_the_buddy),
	KUNIT_CASE(allocate_every_page_then_free_all),
	KUNIT_CASE(random_orders_never_overlap),
	KUNIT_CASE(pcp_drain_gives_back_what_it_held),
	KUNIT_CASE(double_free_is_caught),
	KUNIT_CASE(nolock_calls_inside_held_locks),
	KUNIT_CASE(page_poison_catches_write_after_free),
	KUNIT_CASE(page_poison_survives_split_and_merge),
	KUNIT_CASE(pcp_disabled_zone_uses_the_buddy),
	{}
};

static struct kunit_suite buddy_suite = {
	.name = "buddy",
	.test_cases = buddy_cases,
};
kunit_test_suite(buddy_suite);
