/*
 * test_mm_buddy.c - host tests of mm/page_alloc.c and mm/mm_init.c over a
 * private node (tests/host/mm_arena.h), under ASan and UBSan.
 *
 * Most cases boot the "clean" arena: RAM [16 MiB, 28 MiB) with everything
 * above 24 MiB reserved except exactly the room the memmap needs, so the
 * buddy starts with two whole MAX_ORDER blocks and nothing else.  Counts
 * can then be asserted exactly, and "everything coalesced back" means
 * free_area[MAX_ORDER].nr_free == 2 again.
 */
#include <kasan.h>
#include <kunit.h>
#include <kernel.h>
#include <mm_points.h>
#include <prandom.h>
#include <slab.h>   /* NUMA_NO_NODE */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <nolock_stats.h>
#include "mm_arena.h"

/* This CPU's nolock_stats, copied, so a test can compare before/after. */
static struct nolock_stats nolock_stats_now(void)
{
	return *this_cpu_ptr(nolock_stats);
}

#define MiB (1ull << 20)
#define CLEAN_BASE (16 * MiB)
#define CLEAN_RAM_END (28 * MiB)
#define CLEAN_FREE_END (24 * MiB)
#define CLEAN_PAGES ((CLEAN_FREE_END - CLEAN_BASE) >> PAGE_SHIFT)  /* 2048 */

static void boot_clean_arena(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ CLEAN_BASE, CLEAN_RAM_END - CLEAN_BASE, E820_TYPE_RAM },
	};
	u64 memmap = arena_memmap_bytes(CLEAN_BASE, CLEAN_RAM_END);

	arena_map_memory(&test_arena, CLEAN_BASE, CLEAN_RAM_END - CLEAN_BASE);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	memblock_reserve(CLEAN_FREE_END, CLEAN_RAM_END - CLEAN_FREE_END - memmap);
	KUNIT_ASSERT_TRUE(test, arena_boot(&test_arena));
}

static struct zone *dma32(void)
{
	return arena_zone(ZONE_DMA32);
}

/* Return every pcp page and check the buddy is whole again. */
static void expect_whole_again(struct kunit *test)
{
	unsigned int o;

	drain_all_pages();
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), CLEAN_PAGES);
	KUNIT_EXPECT_EQ(test, dma32()->free_area[MAX_ORDER].nr_free, 2);
	for (o = 0; o < MAX_ORDER; o++)
		KUNIT_EXPECT_EQ(test, dma32()->free_area[o].nr_free, 0);
}

static void boot_gives_exact_counts(struct kunit *test)
{
	boot_clean_arena(test);
	KUNIT_EXPECT_EQ(test, dma32()->managed_pages, CLEAN_PAGES);
	KUNIT_EXPECT_EQ(test, arena_zone(ZONE_NORMAL)->managed_pages, 0);
	KUNIT_EXPECT_EQ(test, dma32()->free_pages, CLEAN_PAGES);
	KUNIT_EXPECT_TRUE(test, pfn_to_page(CLEAN_FREE_END >> PAGE_SHIFT)->flags &
				PG_reserved);
	KUNIT_EXPECT_FALSE(test, pfn_to_page(CLEAN_BASE >> PAGE_SHIFT)->flags &
				 PG_reserved);
	expect_whole_again(test);
}

static void split_and_coalesce(struct kunit *test)
{
	struct page *p;
	unsigned int o;

	boot_clean_arena(test);
	/* Order 4 is above the pcp orders: straight from the buddy. */
	p = alloc_pages_node(0, GFP_KERNEL, 4);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, dma32()->free_area[MAX_ORDER].nr_free, 1);
	for (o = 4; o < MAX_ORDER; o++)
		KUNIT_EXPECT_EQ(test, dma32()->free_area[o].nr_free, 1);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), CLEAN_PAGES - 16);
	KUNIT_EXPECT_TRUE(test, p->flags & PG_head);
	__free_pages(p, 4);
	expect_whole_again(test);

	/* Order 0 goes through the pcp list: a batch comes out at once. */
	p = alloc_pages_node(0, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), CLEAN_PAGES - 1);
	KUNIT_EXPECT_EQ(test, dma32()->pcp[0].count, PCP_BATCH - 1);
	KUNIT_EXPECT_EQ(test, dma32()->free_pages, CLEAN_PAGES - PCP_BATCH);
	__free_pages(p, 0);
	KUNIT_EXPECT_EQ(test, dma32()->pcp[0].count, PCP_BATCH);
	expect_whole_again(test);
}

static void every_order_is_aligned(struct kunit *test)
{
	unsigned int o;

	boot_clean_arena(test);
	for (o = 0; o <= MAX_ORDER; o++) {
		struct page *p = alloc_pages_node(0, GFP_KERNEL | __GFP_ZERO, o);
		unsigned long pfn;
		const u8 *mem;
		size_t i;

		KUNIT_ASSERT_NOT_NULL(test, p);
		pfn = page_to_pfn(p);
		KUNIT_EXPECT_EQ(test, pfn & ((1ul << o) - 1), 0);
		KUNIT_EXPECT_EQ(test, (unsigned long)virt_to_phys(page_address(p)) &
					((PAGE_SIZE << o) - 1), 0);
		KUNIT_EXPECT_PTR_EQ(test, virt_to_page(page_address(p)), p);
		mem = page_address(p);
		for (i = 0; i < (PAGE_SIZE << o); i++)
			if (mem[i])
				break;
		KUNIT_EXPECT_EQ(test, i, PAGE_SIZE << o);   /* __GFP_ZERO */
		__free_pages(p, o);
	}
	KUNIT_EXPECT_NULL(test, alloc_pages_node(0, GFP_KERNEL | __GFP_NOWARN,
						 MAX_ORDER + 1));
	expect_whole_again(test);
}

static void exhaust_then_give_back(struct kunit *test)
{
	static struct page *pages[CLEAN_PAGES];
	unsigned long n = 0, warned;
	unsigned long addr;

	boot_clean_arena(test);
	while (n < CLEAN_PAGES) {
		pages[n] = alloc_pages_node(0, GFP_KERNEL | __GFP_NOWARN, 0);
		if (!pages[n])
			break;
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, CLEAN_PAGES);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), 0);
	warned = nr_alloc_fail_warnings;
	KUNIT_EXPECT_NULL(test, alloc_pages_node(0, GFP_KERNEL | __GFP_NOWARN, 0));
	KUNIT_EXPECT_EQ(test, nr_alloc_fail_warnings, warned);
	KUNIT_EXPECT_NULL(test, alloc_pages_node(0, GFP_ATOMIC, 0));
	KUNIT_EXPECT_EQ(test, nr_alloc_fail_warnings, warned + 1);
	while (n)
		__free_pages(pages[--n], 0);
	expect_whole_again(test);

	/* The by-address pair on the same memory. */
	addr = (unsigned long)page_address(alloc_pages_node(0, GFP_KERNEL, 2));
	KUNIT_EXPECT_EQ(test, addr & (4 * PAGE_SIZE - 1), 0);
	free_pages(addr, 2);
	expect_whole_again(test);
}

/*
 * Two zones.  RAM cannot sit right below 4 GiB (the PCI hole), so the arena
 * spans the hole: DMA32 is the 4 MiB just below PCI_HOLE_START, Normal is
 * 16 MiB at 4 GiB.  The hole's bytes are never touched.
 */
#define TWO_ZONE_BASE (PCI_HOLE_START - 4 * MiB)
#define TWO_ZONE_END  (PCI_HOLE_END + 16 * MiB)

static unsigned long boot_two_zone_arena(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ PCI_HOLE_END, 16 * MiB, E820_TYPE_RAM },
		{ TWO_ZONE_BASE, 4 * MiB, E820_TYPE_RAM },
	};

	arena_map_memory(&test_arena, TWO_ZONE_BASE,
			 TWO_ZONE_END - TWO_ZONE_BASE);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	KUNIT_ASSERT_TRUE(test, arena_boot(&test_arena));
	KUNIT_EXPECT_EQ(test, dma32()->managed_pages, 1024);
	KUNIT_EXPECT_EQ(test, arena_zone(ZONE_NORMAL)->zone_start_pfn,
			ZONE_NORMAL_START_PFN);
	/* The memmap (top down) is at the end of Normal. */
	return 4096 - arena_memmap_bytes(TWO_ZONE_BASE, TWO_ZONE_END) / PAGE_SIZE;
}

static void zones_and_fallback(struct kunit *test)
{
	unsigned long normal_free, n = 0;
	struct page *p, *first = NULL;

	normal_free = boot_two_zone_arena(test);
	KUNIT_EXPECT_EQ(test, arena_zone(ZONE_NORMAL)->managed_pages,
			normal_free);

	p = alloc_pages_node(0, GFP_DMA32, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_LT(test, page_to_pfn(p), ZONE_NORMAL_START_PFN);
	KUNIT_EXPECT_EQ(test, page_zonenum(p), ZONE_DMA32);
	__free_pages(p, 0);

	/* GFP_KERNEL prefers Normal, then falls back to DMA32. */
	for (;;) {
		p = alloc_pages_node(0, GFP_KERNEL | __GFP_NOWARN, 4);
		if (!p)
			break;
		if (n == 0)
			KUNIT_EXPECT_EQ(test, page_zonenum(p), ZONE_NORMAL);
		if (page_zonenum(p) == ZONE_DMA32)
			break;
		p->lru.next = (struct list_head *)first; /* keep a chain */
		first = p;
		n++;
	}
	KUNIT_ASSERT_NOT_NULL(test, p);            /* DMA32 served */
	KUNIT_EXPECT_EQ(test, n, normal_free / 16);
	__free_pages(p, 4);
	while (first) {
		p = first;
		first = (struct page *)p->lru.next;
		__free_pages(p, 4);
	}
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), 1024 + normal_free);
}

static void dma32_does_not_fall_back_upwards(struct kunit *test)
{
	struct page *p;

	boot_two_zone_arena(test);
	p = alloc_pages_node(0, GFP_DMA32, MAX_ORDER);   /* all of DMA32 */
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_pfn(p), TWO_ZONE_BASE >> PAGE_SHIFT);
	KUNIT_EXPECT_NULL(test, alloc_pages_node(0, GFP_DMA32 | __GFP_NOWARN, 0));
	KUNIT_EXPECT_GT(test, node_nr_free_pages(0), 0);
	__free_pages(p, MAX_ORDER);
}

/*
 * The allocation fast path serves orders 0..PCP_MAX_ORDER from the
 * per-CPU list of one zone only (pglist_data.first_zone[]), without the
 * slow path's walk: with both zones' lists holding pages, GFP_DMA32 must
 * still come from DMA32 and GFP_KERNEL from Normal.  (Before, each first
 * allocation here found its list empty and the slow path chose the zone.)
 */
static void fast_path_takes_the_zone_gfp_asks_for(struct kunit *test)
{
	struct zone *normal;
	struct page *d, *n, *p;
	unsigned long free;

	boot_two_zone_arena(test);
	normal = arena_zone(ZONE_NORMAL);
	free = node_nr_free_pages(0);
	d = alloc_pages_node(0, GFP_DMA32, 0);    /* refills DMA32's list */
	n = alloc_pages_node(0, GFP_KERNEL, 0);   /* refills Normal's */
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_ASSERT_NOT_NULL(test, n);
	KUNIT_EXPECT_EQ(test, page_zonenum(d), ZONE_DMA32);
	KUNIT_EXPECT_EQ(test, page_zonenum(n), ZONE_NORMAL);
	__free_pages(d, 0);
	__free_pages(n, 0);
	KUNIT_EXPECT_GT(test, dma32()->pcp[0].count, 0);
	KUNIT_EXPECT_GT(test, normal->pcp[0].count, 0);
	/* Both lists hold pages: the fast path serves each of these. */
	p = alloc_pages_node(0, GFP_DMA32, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_zonenum(p), ZONE_DMA32);
	__free_pages(p, 0);
	p = alloc_pages_node(0, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_zonenum(p), ZONE_NORMAL);
	__free_pages(p, 0);
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), free);
}

/*
 * alloc_pages_node() of a node that is not there (the ends of an int,
 * numbers below NUMA_NO_NODE, a slot of node_data[] with no node): NULL,
 * whatever the order; the fast path must not index node_data[] with it
 * first.  NUMA_NO_NODE itself means this CPU's node (include/numa.h).
 */
static void alloc_pages_node_refuses_absent_nodes(struct kunit *test)
{
	static const int nids[] = { -2, -2147483647 - 1, 1,
				    MAX_NUMNODES - 1, MAX_NUMNODES,
				    2147483647 };
	struct page *page;
	unsigned int i;

	boot_clean_arena(test);
	__free_pages(alloc_pages_node(0, GFP_KERNEL, 0), 0);  /* lists warm */
	page = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, page_to_nid(page), 0);
	__free_pages(page, 0);
	for (i = 0; i < ARRAY_SIZE(nids); i++) {
		KUNIT_EXPECT_NULL(test, alloc_pages_node(nids[i], GFP_KERNEL |
							 __GFP_NOWARN, 0));
		KUNIT_EXPECT_NULL(test, alloc_pages_node(nids[i], GFP_KERNEL |
							 __GFP_NOWARN,
							 PCP_MAX_ORDER));
	}
	expect_whole_again(test);
}

static void bad_frees_are_reported_not_applied(struct kunit *test)
{
	unsigned long bad = nr_bad_page_frees;
	struct page *p0, *p5, *reserved;
	unsigned int o;
	unsigned long snapshot[NR_PAGE_ORDERS];

	boot_clean_arena(test);
	p0 = alloc_pages_node(0, GFP_KERNEL, 0);
	p5 = alloc_pages_node(0, GFP_KERNEL, 5);
	KUNIT_ASSERT_NOT_NULL(test, p0);
	KUNIT_ASSERT_NOT_NULL(test, p5);
	__free_pages(p0, 0);
	drain_all_pages();
	for (o = 0; o <= MAX_ORDER; o++)
		snapshot[o] = dma32()->free_area[o].nr_free;

	KUNIT_EXPECT_REPORT(test, "double free: already free",
			    __free_pages(p0, 0));
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 1);
	KUNIT_EXPECT_REPORT(test, "wrong order", __free_pages(p5, 4));
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 2);
	KUNIT_EXPECT_REPORT(test, "not the head of an allocated block",
			    __free_pages(p5 + 1, 0));     /* a tail page */
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 3);
	reserved = pfn_to_page(CLEAN_FREE_END >> PAGE_SHIFT);
	KUNIT_EXPECT_REPORT(test, "reserved page, never allocated",
			    __free_pages(reserved, 0));
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 4);
	/* The nolock path checks too. */
	KUNIT_EXPECT_REPORT(test, "double free: already free",
			    free_pages_nolock(p0, 0));
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 5);
	KUNIT_EXPECT_REPORT(test, "order above MAX_ORDER",
			    __free_pages(p5, MAX_ORDER + 1));
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 6);

	for (o = 0; o <= MAX_ORDER; o++)
		KUNIT_EXPECT_EQ(test, dma32()->free_area[o].nr_free, snapshot[o]);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), CLEAN_PAGES - 32);
	__free_pages(p5, 5);                      /* the right free still works */
	KUNIT_EXPECT_REPORT(test, "double free: already free",
			    __free_pages(p5, 5)); /* and the second is caught */
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 7);
	expect_whole_again(test);
}

/* The model: which frames the test owns, one bit each. */
static u8 owned[CLEAN_PAGES / 8];

static bool model_test_and_set(unsigned long idx, unsigned long n, bool set)
{
	unsigned long i;
	bool clash = false;

	for (i = idx; i < idx + n; i++) {
		bool bit = owned[i / 8] & (1u << (i % 8));

		if (bit == set)
			clash = true;
		if (set)
			owned[i / 8] |= (u8)(1u << (i % 8));
		else
			owned[i / 8] &= (u8)~(1u << (i % 8));
	}
	return !clash;
}

static void random_sequence_matches_model(struct kunit *test)
{
	enum { SLOTS = 256, STEPS = 20000 };
	static struct page *slot[SLOTS];
	static unsigned int slot_order[SLOTS];
	unsigned long base_pfn = CLEAN_BASE >> PAGE_SHIFT, held = 0;
	struct rnd_state rnd;
	u64 seed = 0x5eed0001;
	unsigned int step, i;

	boot_clean_arena(test);
	memset(owned, 0, sizeof(owned));
	memset(slot, 0, sizeof(slot));
	prandom_seed_state(&rnd, seed);
	kunit_info(test, "seed %lu\n", (unsigned long)seed);
	for (step = 0; step < STEPS; step++) {
		unsigned int s = prandom_below(&rnd, SLOTS);

		if (slot[s]) {
			unsigned long pfn = page_to_pfn(slot[s]);

			KUNIT_ASSERT_TRUE(test, model_test_and_set(pfn - base_pfn,
					1ul << slot_order[s], false));
			if (prandom_below(&rnd, 4) == 0)
				free_pages_nolock(slot[s], slot_order[s]);
			else
				__free_pages(slot[s], slot_order[s]);
			held -= 1ul << slot_order[s];
			slot[s] = NULL;
		} else {
			unsigned int o = prandom_below(&rnd, 100) < 80 ?
					 prandom_below(&rnd, 4) :
					 prandom_below(&rnd, 8);
			struct page *p = prandom_below(&rnd, 4) == 0 ?
				try_alloc_pages(0, o) :
				alloc_pages_node(0, GFP_KERNEL | __GFP_NOWARN, o);
			unsigned long pfn;

			if (!p)
				continue;
			pfn = page_to_pfn(p);
			KUNIT_ASSERT_GE(test, pfn, base_pfn);
			KUNIT_ASSERT_LE(test, pfn + (1ul << o),
					base_pfn + CLEAN_PAGES);
			KUNIT_ASSERT_EQ(test, pfn & ((1ul << o) - 1), 0);
			/* No overlap with anything the model says we own. */
			KUNIT_ASSERT_TRUE(test, model_test_and_set(pfn - base_pfn,
					1ul << o, true));
			slot[s] = p;
			slot_order[s] = o;
			held += 1ul << o;
		}
		KUNIT_ASSERT_EQ(test, node_nr_free_pages(0), CLEAN_PAGES - held);
		if (step % 997 == 0)
			drain_local_pages();
	}
	for (i = 0; i < SLOTS; i++)
		if (slot[i])
			__free_pages(slot[i], slot_order[i]);
	expect_whole_again(test);
}

static void pcp_drain_gives_back_exactly(struct kunit *test)
{
	struct page *a, *b;
	unsigned long pcp0, pcp1, buddy;

	boot_clean_arena(test);
	nr_cpu_ids = 2;
	a = alloc_pages_node(0, GFP_KERNEL, 0);
	host_cpu_id = 1;
	b = alloc_pages_node(0, GFP_KERNEL, 2);
	host_cpu_id = 0;
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	__free_pages(b, 2);           /* freed on CPU 0: onto CPU 0's list */
	pcp0 = dma32()->pcp[0].count;
	pcp1 = dma32()->pcp[1].count;
	KUNIT_EXPECT_EQ(test, pcp0, PCP_BATCH - 1 + 4);
	KUNIT_EXPECT_EQ(test, pcp1, PCP_BATCH - 4);
	buddy = dma32()->free_pages;

	drain_local_pages();
	KUNIT_EXPECT_EQ(test, dma32()->pcp[0].count, 0);
	KUNIT_EXPECT_EQ(test, dma32()->pcp[1].count, pcp1);
	KUNIT_EXPECT_EQ(test, dma32()->free_pages, buddy + pcp0);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), CLEAN_PAGES - 1);

	drain_all_pages();            /* reaches CPU 1's list too */
	KUNIT_EXPECT_EQ(test, dma32()->pcp[1].count, 0);
	KUNIT_EXPECT_EQ(test, dma32()->free_pages, CLEAN_PAGES - 1);
	__free_pages(a, 0);
	expect_whole_again(test);
}

/*
 * Each CPU's per-CPU page lists lie on cache lines of their own: entries
 * that shared a line would move it from CPU to CPU on every allocation
 * and free of either.  (The 96-byte entries did: CPU 1's started inside
 * CPU 0's second line, CPU 2's inside CPU 1's.)
 */
static void pcp_entries_share_no_cache_line(struct kunit *test)
{
	const struct zone *zone;
	unsigned int cpu, sharing = 0;

	boot_clean_arena(test);
	zone = dma32();
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		if ((uintptr_t)&zone->pcp[cpu] % SMP_LINE_SIZE ||
		    sizeof(zone->pcp[cpu]) % SMP_LINE_SIZE)
			sharing++;
	KUNIT_EXPECT_EQ(test, sharing, 0);
	expect_whole_again(test);
}

static void pcp_high_mark_gives_a_batch_back(struct kunit *test)
{
	static struct page *pages[PCP_HIGH + 8];
	unsigned int i;

	boot_clean_arena(test);
	for (i = 0; i < ARRAY_SIZE(pages); i++)
		pages[i] = alloc_pages_node(0, GFP_KERNEL, 0);
	drain_all_pages();
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		__free_pages(pages[i], 0);
		KUNIT_EXPECT_LE(test, dma32()->pcp[0].count, PCP_HIGH);
	}
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), CLEAN_PAGES);
	expect_whole_again(test);
}

/* The same bound when the pages come back through free_pages_nolock(),
 * whose list add gives a batch back only if it can trylock the zone. */
static void nolock_free_keeps_the_pcp_high_mark(struct kunit *test)
{
	static struct page *pages[PCP_HIGH + 8];
	unsigned int i;

	boot_clean_arena(test);
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		pages[i] = alloc_pages_node(0, GFP_KERNEL, 0);
		KUNIT_ASSERT_NOT_NULL(test, pages[i]);
	}
	drain_all_pages();
	for (i = 0; i < ARRAY_SIZE(pages); i++) {
		free_pages_nolock(pages[i], 0);
		KUNIT_EXPECT_LE(test, dma32()->pcp[0].count, PCP_HIGH);
	}
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), CLEAN_PAGES);
	expect_whole_again(test);
}

/* Page poisoning checks every page of a block: a write into the last
 * page of a freed order-2 block is reported when the block comes back. */
#define POISON_ORDER 2

static void poison_is_checked_in_every_page(struct kunit *test)
{
	struct page *p, *q;
	u8 *data;

	boot_clean_arena(test);
	page_poisoning = true;
	p = alloc_pages_node(0, GFP_KERNEL, POISON_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, p);
	data = page_address(p);
	__free_pages(p, POISON_ORDER);
	kasan_unchecked_fill(&data[(PAGE_SIZE << POISON_ORDER) - 1], 0x55, 1);
	KUNIT_EXPECT_REPORT(test, "page poison overwritten",
			    q = alloc_pages_node(0, GFP_KERNEL, POISON_ORDER));
	KUNIT_EXPECT_PTR_EQ(test, q, p);   /* the per-CPU list gives it back */
	if (q)
		__free_pages(q, POISON_ORDER);
	page_poisoning = false;
	expect_whole_again(test);
}

/*
 * The halves a split gives back are poisoned blocks too: free a whole
 * MAX_ORDER block with poisoning on, take one page of it (the buddy splits
 * the block), write into the free upper half, and the write is reported
 * when that half is handed out.  The per-CPU lists are off so that every
 * order comes straight from the buddy and the split is the one expected.
 */
static void poison_survives_a_split(struct kunit *test)
{
	struct page *big, *other, *small, *upper, *q;
	u8 *data;

	boot_clean_arena(test);
	zone_pcp_disable(dma32());
	page_poisoning = true;
	big = alloc_pages_node(0, GFP_KERNEL, MAX_ORDER);
	other = alloc_pages_node(0, GFP_KERNEL, MAX_ORDER);  /* the other one */
	KUNIT_ASSERT_NOT_NULL(test, big);
	KUNIT_ASSERT_NOT_NULL(test, other);
	__free_pages(big, MAX_ORDER);      /* poisoned, as one block */
	small = alloc_pages_node(0, GFP_KERNEL, 0);
	KUNIT_EXPECT_PTR_EQ(test, small, big);
	upper = big + (1ul << (MAX_ORDER - 1));
	data = page_address(upper);
	kasan_unchecked_fill(&data[PAGE_SIZE - 1], 0x55, 1);
	KUNIT_EXPECT_REPORT(test, "page poison overwritten",
			    q = alloc_pages_node(0, GFP_KERNEL, MAX_ORDER - 1));
	KUNIT_EXPECT_PTR_EQ(test, q, upper);
	if (q)
		__free_pages(q, MAX_ORDER - 1);
	if (small)
		__free_pages(small, 0);
	__free_pages(other, MAX_ORDER);
	page_poisoning = false;
	zone_pcp_enable(dma32());
	expect_whole_again(test);
}

/* ---- any context ---- */

static void nolock_alloc_works_and_zeroes(struct kunit *test)
{
	struct page *p;
	unsigned int o;

	boot_clean_arena(test);
	for (o = 0; o <= MAX_ORDER; o++) {
		p = try_alloc_pages(0, o);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_TRUE(test, p->flags & PG_nolock_alloc);
		KUNIT_EXPECT_EQ(test, *(u64 *)page_address(p), 0);
		free_pages_nolock(p, o);
	}
	KUNIT_EXPECT_NULL(test, try_alloc_pages(0, MAX_ORDER + 1));
	KUNIT_EXPECT_NULL(test, try_alloc_pages(3, 0));   /* no such node */
	expect_whole_again(test);
}

static void nolock_alloc_fails_when_a_lock_is_held(struct kunit *test)
{
	struct page *p;
	unsigned long warned = nr_alloc_fail_warnings;
	struct nolock_stats st = nolock_stats_now();

	boot_clean_arena(test);
	/* Our own CPU holds its pcp lock (the NMI interrupted it there). */
	spin_lock(&dma32()->pcp[0].lock);
	host_nmi_nesting = 1;
	KUNIT_EXPECT_NULL(test, try_alloc_pages(0, 0));
	KUNIT_EXPECT_NULL(test, try_alloc_pages(0, PCP_MAX_ORDER));
	p = try_alloc_pages(0, PCP_MAX_ORDER + 1);    /* no pcp needed */
	KUNIT_EXPECT_NOT_NULL(test, p);
	host_nmi_nesting = 0;
	/* Each NULL counted once, as "busy", never as "no memory". */
	KUNIT_EXPECT_EQ(test, nolock_stats_now().page_alloc_busy,
			st.page_alloc_busy + 2);
	KUNIT_EXPECT_EQ(test, nolock_stats_now().page_alloc_nomem,
			st.page_alloc_nomem);
	spin_unlock(&dma32()->pcp[0].lock);
	if (p)
		__free_pages(p, PCP_MAX_ORDER + 1);

	/* The zone lock held: an empty pcp list cannot be refilled... */
	spin_lock(&dma32()->lock);
	host_nmi_nesting = 1;
	KUNIT_EXPECT_NULL(test, try_alloc_pages(0, 0));
	KUNIT_EXPECT_NULL(test, try_alloc_pages(0, 6));
	host_nmi_nesting = 0;
	spin_unlock(&dma32()->lock);
	/* ...but a filled one serves without the zone lock. */
	__free_pages(alloc_pages_node(0, GFP_KERNEL, 0), 0);
	spin_lock(&dma32()->lock);
	host_nmi_nesting = 1;
	p = try_alloc_pages(0, 0);
	KUNIT_EXPECT_NOT_NULL(test, p);
	if (p)
		free_pages_nolock(p, 0);
	host_nmi_nesting = 0;
	spin_unlock(&dma32()->lock);
	KUNIT_EXPECT_EQ(test, nr_alloc_fail_warnings, warned);  /* no noise */
	KUNIT_EXPECT_EQ(test, nolock_stats_now().page_alloc_busy,
			st.page_alloc_busy + 4);
	/* Too big for any free block: "no memory", not "busy". */
	KUNIT_EXPECT_NULL(test, try_alloc_pages(0, MAX_ORDER + 1));
	KUNIT_EXPECT_EQ(test, nolock_stats_now().page_alloc_nomem,
			st.page_alloc_nomem + 1);
	KUNIT_EXPECT_EQ(test, nolock_stats_now().page_free_deferred,
			st.page_free_deferred);
	expect_whole_again(test);
}

static void nolock_free_defers_and_next_free_drains(struct kunit *test)
{
	struct page *p5, *p0, *other;
	struct nolock_stats st = nolock_stats_now();

	boot_clean_arena(test);
	p5 = alloc_pages_node(0, GFP_KERNEL, 5);
	p0 = alloc_pages_node(0, GFP_KERNEL, 0);
	other = alloc_pages_node(0, GFP_KERNEL, 6);
	KUNIT_ASSERT_NOT_NULL(test, p5);
	KUNIT_ASSERT_NOT_NULL(test, p0);
	KUNIT_ASSERT_NOT_NULL(test, other);

	/* Both locks held by the context the "NMI" interrupted. */
	spin_lock(&dma32()->pcp[0].lock);
	spin_lock(&dma32()->lock);
	host_nmi_nesting = 1;
	free_pages_nolock(p5, 5);
	free_pages_nolock(p0, 0);
	host_nmi_nesting = 0;
	KUNIT_EXPECT_EQ(test, dma32()->nr_deferred, 33);
	KUNIT_EXPECT_EQ(test, nolock_stats_now().page_free_deferred,
			st.page_free_deferred + 2);
	KUNIT_EXPECT_TRUE(test, p5->flags & PG_deferred);
	KUNIT_EXPECT_FALSE(test, llist_empty(&dma32()->deferred_free));
	/* Counted as free all along: nothing is lost. */
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), CLEAN_PAGES - 64);
	spin_unlock(&dma32()->lock);
	spin_unlock(&dma32()->pcp[0].lock);

	/* A double free of a deferred block is still caught. */
	{
		unsigned long bad = nr_bad_page_frees;

		KUNIT_EXPECT_REPORT(test, "double free: already free",
				    __free_pages(p5, 5));
		KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 1);
	}
	/* The next ordinary free takes the zone lock and drains the list. */
	__free_pages(other, 6);
	KUNIT_EXPECT_EQ(test, dma32()->nr_deferred, 0);
	KUNIT_EXPECT_TRUE(test, llist_empty(&dma32()->deferred_free));
	KUNIT_EXPECT_FALSE(test, p5->flags & PG_deferred);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), CLEAN_PAGES);
	expect_whole_again(test);
}

static void nolock_free_with_only_pcp_held_goes_to_buddy(struct kunit *test)
{
	struct page *p;
	unsigned long buddy;

	boot_clean_arena(test);
	p = alloc_pages_node(0, GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, p);
	buddy = dma32()->free_pages;
	spin_lock(&dma32()->pcp[0].lock);
	host_nmi_nesting = 1;
	free_pages_nolock(p, 1);
	host_nmi_nesting = 0;
	spin_unlock(&dma32()->pcp[0].lock);
	KUNIT_EXPECT_EQ(test, dma32()->free_pages, buddy + 2);
	KUNIT_EXPECT_EQ(test, dma32()->nr_deferred, 0);
	expect_whole_again(test);
}

static void ordinary_calls_in_nmi_take_the_safe_path(struct kunit *test)
{
	struct page *p;
	unsigned long warns = warn_count;

	boot_clean_arena(test);
	p = alloc_pages_node(0, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	spin_lock(&dma32()->pcp[0].lock);
	spin_lock(&dma32()->lock);
	host_nmi_nesting = 1;
	/* Would spin forever on our own locks; must not even try, and says
	 * the caller is wrong. */
	kunit_expect_report(test, "WARNING: in_nmi()");
	KUNIT_EXPECT_NULL(test, alloc_pages_node(0, GFP_ATOMIC | __GFP_NOWARN, 0));
	kunit_expect_report_done(test);
	KUNIT_EXPECT_EQ(test, warn_count, warns + 1);
	__free_pages(p, 0);                   /* routed to free_pages_nolock */
	host_nmi_nesting = 0;
	KUNIT_EXPECT_EQ(test, dma32()->nr_deferred, 1);
	spin_unlock(&dma32()->lock);
	spin_unlock(&dma32()->pcp[0].lock);
	/* An ordinary order-0 free (the pcp path) drains it too. */
	__free_pages(alloc_pages_node(0, GFP_KERNEL, 0), 0);
	KUNIT_EXPECT_EQ(test, dma32()->nr_deferred, 0);
	expect_whole_again(test);
}

/*
 * The fast paths disable IRQs before their one try of pcp->lock; when the
 * try fails they must give the flag back before the slow path saves it
 * (or the caller returns with IRQs off for good).  CPU 1 holds CPU 0's
 * pcp->lock, as drain_all_pages() does; free_pages_nolock() on CPU 0,
 * IRQs on, fails the fast try and goes to the zone.
 */
static void fast_path_failed_try_leaves_irqs_as_they_were(struct kunit *test)
{
	unsigned long flags = host_irq_flags;
	struct page *p;
	bool irqs_off;

	boot_clean_arena(test);
	p = alloc_pages_node(0, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	host_cpu_id = 1;
	spin_lock(&dma32()->pcp[0].lock);
	host_cpu_id = 0;
	local_irq_enable();   /* task context, whatever ran before */
	free_pages_nolock(p, 0);
	irqs_off = irqs_disabled();
	host_irq_flags = flags;
	host_cpu_id = 1;
	spin_unlock(&dma32()->pcp[0].lock);
	host_cpu_id = 0;
	KUNIT_EXPECT_FALSE(test, irqs_off);
	expect_whole_again(test);
}

/*
 * alloc_pages() in NMI context is refused with a warning even when this
 * CPU's list could serve it without waiting: the fast path must not make
 * a wrong caller work most of the time (ordinary_calls_in_nmi_... holds
 * the locks, so the fast path fails there anyway).
 */
static void alloc_pages_in_nmi_is_refused_with_pages_listed(struct kunit *test)
{
	unsigned long warns = warn_count;

	boot_clean_arena(test);
	__free_pages(alloc_pages_node(0, GFP_KERNEL, 0), 0);
	KUNIT_EXPECT_GT(test, dma32()->pcp[0].count, 0);
	host_nmi_nesting = 1;
	kunit_expect_report(test, "WARNING: in_nmi()");
	KUNIT_EXPECT_NULL(test, alloc_pages_node(0, GFP_ATOMIC | __GFP_NOWARN,
						 0));
	kunit_expect_report_done(test);
	host_nmi_nesting = 0;
	KUNIT_EXPECT_EQ(test, warn_count, warns + 1);
	expect_whole_again(test);
}

/* Two threads: CPU 0 allocates and frees normally, CPU 1 plays an NMI
 * handler using only the nolock calls. */
struct stress_arg {
	unsigned int cpu;
	bool nmi;
	unsigned long failures;
	unsigned long done;
};

static void *stress_thread(void *p)
{
	struct stress_arg *arg = p;
	struct page *held[16] = { NULL };
	struct rnd_state rnd;
	unsigned int i;

	host_cpu_id = arg->cpu;
	host_nmi_nesting = arg->nmi;
	prandom_seed_state(&rnd, 1234 + arg->cpu);
	for (i = 0; i < 20000; i++) {
		unsigned int s = prandom_below(&rnd, 16), o = s % 4;

		if (held[s]) {
			if (arg->nmi)
				free_pages_nolock(held[s], o);
			else
				__free_pages(held[s], o);
			held[s] = NULL;
			continue;
		}
		held[s] = arg->nmi ? try_alloc_pages(0, o) :
			  alloc_pages_node(0, GFP_KERNEL | __GFP_NOWARN, o);
		if (!held[s])
			arg->failures++;
		else
			arg->done++;
	}
	for (i = 0; i < 16; i++)
		if (held[i]) {
			if (arg->nmi)
				free_pages_nolock(held[i], i % 4);
			else
				__free_pages(held[i], i % 4);
		}
	return NULL;
}

static void nolock_and_locked_paths_race_safely(struct kunit *test)
{
	struct stress_arg a = { .cpu = 0 }, b = { .cpu = 1, .nmi = true };
	pthread_t ta, tb;
	unsigned long bad = nr_bad_page_frees;

	boot_clean_arena(test);
	nr_cpu_ids = 2;
	pthread_create(&ta, NULL, stress_thread, &a);
	pthread_create(&tb, NULL, stress_thread, &b);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	kunit_info(test, "normal: %lu allocations; nolock: %lu, %lu refused\n",
		   a.done, b.done, b.failures);
	KUNIT_EXPECT_EQ(test, a.failures, 0);
	KUNIT_EXPECT_GT(test, b.done, 0);
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad);
	/* One ordinary free drains anything left deferred. */
	__free_pages(alloc_pages_node(0, GFP_KERNEL, 0), 0);
	expect_whole_again(test);
}

/*
 * The second free of a pair landing right after the first claimed the
 * block (before it is on any list): nothing marks the page free yet, but
 * the report must still say "double free" (concurrent_double_free_is_
 * caught_once lost that race now and then under load).
 */
static struct page *claimed_page;
static unsigned int claimed_frees;

static void free_again_once_claimed(enum mm_point point, void *arg)
{
	(void)arg;
	if (point != MM_POINT_PAGE_FREE_CLAIMED || claimed_frees++)
		return;
	__free_pages(claimed_page, 0);   /* as the other CPU would */
}

static void double_free_racing_the_claim_is_named(struct kunit *test)
{
	unsigned long bad = nr_bad_page_frees;

	boot_clean_arena(test);
	claimed_page = alloc_pages_node(0, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, claimed_page);
	claimed_frees = 0;
	mm_point_hook = free_again_once_claimed;
	KUNIT_EXPECT_REPORT(test, "double free", __free_pages(claimed_page, 0));
	mm_point_hook = NULL;
	KUNIT_EXPECT_EQ(test, claimed_frees, 1);   /* one claim */
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad + 1);
	expect_whole_again(test);
}

/*
 * Two CPUs free the same page at the same instant, 500 times: exactly one
 * of each pair may succeed, the other must be reported, and the buddy must
 * come out whole.  (Before the free claimed the block with a
 * compare-and-swap, both could pass the checks and the page went on two
 * lists.)
 */
#define RACE_ROUNDS 500

struct race_state {
	struct page *page;
	unsigned long gen;       /* bumped by the main thread per round */
	unsigned long done;      /* frees finished in this round */
};

struct race_arg {
	struct race_state *st;
	unsigned int cpu;
};

static void *double_free_thread(void *p)
{
	struct race_arg *arg = p;
	struct race_state *st = arg->st;
	unsigned long seen = 0, round;

	host_cpu_id = arg->cpu;
	for (round = 1; round <= RACE_ROUNDS; round++) {
		while (__atomic_load_n(&st->gen, __ATOMIC_ACQUIRE) == seen)
			sched_yield();  /* three threads share two cores */
		seen = round;
		__free_pages(st->page, 0);
		__atomic_fetch_add(&st->done, 1, __ATOMIC_ACQ_REL);
	}
	return NULL;
}

static void concurrent_double_free_is_caught_once(struct kunit *test)
{
	struct race_state st = { 0 };
	struct race_arg a = { &st, 0 }, b = { &st, 1 };
	unsigned long bad = nr_bad_page_frees, round;
	int loglevel = console_loglevel;
	pthread_t ta, tb;

	boot_clean_arena(test);
	nr_cpu_ids = 2;
	console_loglevel = LOGLEVEL_EMERG;  /* 500 reports: keep the log short */
	kunit_expect_report(test, "double free");
	pthread_create(&ta, NULL, double_free_thread, &a);
	pthread_create(&tb, NULL, double_free_thread, &b);
	for (round = 1; round <= RACE_ROUNDS; round++) {
		st.page = alloc_pages_node(0, GFP_KERNEL, 0);
		if (!st.page)
			break;
		__atomic_store_n(&st.done, 0, __ATOMIC_RELEASE);
		__atomic_store_n(&st.gen, round, __ATOMIC_RELEASE);
		while (__atomic_load_n(&st.done, __ATOMIC_ACQUIRE) != 2)
			sched_yield();
	}
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	console_loglevel = loglevel;
	kunit_expect_report_done(test);
	KUNIT_EXPECT_EQ(test, round, RACE_ROUNDS + 1);
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees - bad, RACE_ROUNDS);
	expect_whole_again(test);
}

static void crafted_bad_map_boots_a_correct_buddy(struct kunit *test)
{
	/* Everything wrong at once, within a 16 MiB arena at 16 MiB. */
	const struct fw_mmap_entry map[] = {
		{ 24 * MiB + 0x123, 8 * MiB - 0x123, E820_TYPE_RAM },
		{ 16 * MiB, 0, E820_TYPE_RAM },
		{ 16 * MiB + 0x800, 4 * MiB, E820_TYPE_RAM },
		{ 18 * MiB, 3 * MiB, E820_TYPE_RAM },           /* overlap */
		{ 20 * MiB + 5, 4096, E820_TYPE_ACPI },         /* over RAM */
		{ 20 * MiB + 512 * 1024, 4 * MiB, E820_TYPE_RESERVED },
		{ 40 * MiB, 1 * MiB, E820_TYPE_NVS },           /* over nothing */
	};
	struct memblock_map_stats st;
	unsigned long expect_free, n = 0;
	struct page *p;
	u64 memmap;

	arena_map_memory(&test_arena, 16 * MiB, 16 * MiB);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), &st);
	KUNIT_EXPECT_EQ(test, st.ignored, 1);
	KUNIT_EXPECT_EQ(test, st.overlaps, 1);
	KUNIT_EXPECT_EQ(test, st.fw_reserved, 2);
	/* memory [16M+4K, 21M) and [24M+4K, 32M);
	 * reserved [20M, 20M+8K) (ACPI) and [20.5M, 24.5M). */
	memmap = arena_memmap_bytes(16 * MiB + 4096, 32 * MiB);
	expect_free = (memblock_free_size() - memmap) >> PAGE_SHIFT;
	KUNIT_ASSERT_TRUE(test, arena_boot(&test_arena));
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), expect_free);
	KUNIT_EXPECT_EQ(test, dma32()->managed_pages, expect_free);
	KUNIT_EXPECT_TRUE(test, pfn_to_page((20 * MiB) >> PAGE_SHIFT)->flags &
				PG_reserved);
	KUNIT_EXPECT_TRUE(test, pfn_to_page((24 * MiB + 8192) >> PAGE_SHIFT)->flags &
				PG_reserved);
	/* Every page handed out lies outside every reservation. */
	while ((p = alloc_pages_node(0, GFP_KERNEL | __GFP_NOWARN, 0))) {
		u64 a = (u64)page_to_pfn(p) << PAGE_SHIFT;

		KUNIT_EXPECT_GE(test, a, 16 * MiB + 4096);
		KUNIT_EXPECT_FALSE(test, a >= 20 * MiB && a < 20 * MiB + 8192);
		KUNIT_EXPECT_FALSE(test, a >= 20 * MiB + 512 * 1024 &&
					 a < 24 * MiB + 512 * 1024);
		KUNIT_EXPECT_LT(test, a, 32 * MiB - memmap);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, expect_free);
}

static struct kunit_case buddy_cases[] = {
	KUNIT_CASE(boot_gives_exact_counts),
	KUNIT_CASE(split_and_coalesce),
	KUNIT_CASE(every_order_is_aligned),
	KUNIT_CASE(exhaust_then_give_back),
	KUNIT_CASE(zones_and_fallback),
	KUNIT_CASE(dma32_does_not_fall_back_upwards),
	KUNIT_CASE(fast_path_takes_the_zone_gfp_asks_for),
	KUNIT_CASE(alloc_pages_node_refuses_absent_nodes),
	KUNIT_CASE(bad_frees_are_reported_not_applied),
	KUNIT_CASE(random_sequence_matches_model),
	KUNIT_CASE(pcp_drain_gives_back_exactly),
	KUNIT_CASE(pcp_high_mark_gives_a_batch_back),
	KUNIT_CASE(pcp_entries_share_no_cache_line),
	KUNIT_CASE(crafted_bad_map_boots_a_correct_buddy),
	KUNIT_CASE(double_free_racing_the_claim_is_named),
	KUNIT_CASE(concurrent_double_free_is_caught_once),
	{}
};

static struct kunit_suite buddy_host_suite = {
	.name = "buddy_host",
	.exit = arena_suite_exit,
	.test_cases = buddy_cases,
};
kunit_test_suite(buddy_host_suite);

static struct kunit_case nolock_cases[] = {
	KUNIT_CASE(poison_is_checked_in_every_page),
	KUNIT_CASE(poison_survives_a_split),
	KUNIT_CASE(nolock_free_keeps_the_pcp_high_mark),
	KUNIT_CASE(nolock_alloc_works_and_zeroes),
	KUNIT_CASE(nolock_alloc_fails_when_a_lock_is_held),
	KUNIT_CASE(nolock_free_defers_and_next_free_drains),
	KUNIT_CASE(nolock_free_with_only_pcp_held_goes_to_buddy),
	KUNIT_CASE(ordinary_calls_in_nmi_take_the_safe_path),
	KUNIT_CASE(fast_path_failed_try_leaves_irqs_as_they_were),
	KUNIT_CASE(alloc_pages_in_nmi_is_refused_with_pages_listed),
	KUNIT_CASE(nolock_and_locked_paths_race_safely),
	{}
};

static struct kunit_suite nolock_host_suite = {
	.name = "pages_nolock_host",
	.exit = arena_suite_exit,
	.test_cases = nolock_cases,
};
kunit_test_suite(nolock_host_suite);
