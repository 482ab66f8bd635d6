/*
 * page_alloc.c - the buddy page allocator, its per-CPU page lists, and the
 * any-context (NMI-safe) entry points try_alloc_pages()/free_pages_nolock().
 *
 * LOCK ORDER (outermost first):
 *
 *   pcp->lock       (struct per_cpu_pages, one per CPU per zone)
 *     zone->lock    (struct zone)
 *
 * pcp->lock guards one CPU's page lists in one zone.  Its own CPU takes it
 * with IRQs off on every allocation and free of order <= PCP_MAX_ORDER:
 * first with one inline try (THE FAST PATHS, below), and only if that
 * fails by spinning (spin_lock_irqsave, the slow paths); drain_all_pages()
 * takes other CPUs' pcp->lock by spinning too, to empty their lists
 * without an IPI.  It is a real spinlock rather than a local lock for that
 * reason.  In NMI context it is only ever trylocked: if the code the NMI
 * interrupted holds it, the NMI backs off.
 *
 * zone->lock guards the zone's free_area[] lists and free_pages.  Taken
 * with IRQs off, alone or nested inside pcp->lock; never the other way
 * round.  NMI context: trylock only.
 *
 * zone->deferred_free is a lock-free list (llist): free_pages_nolock()
 * pushes a block there when it cannot take either lock, and whoever next
 * holds zone->lock for an ordinary free (or refill, or drain) takes the whole
 * list and frees it properly.  nr_deferred counts its pages (atomically),
 * so nr_free_pages() never loses them.
 *
 * THE BUDDY.  Free memory in a zone is a set of blocks of 2^order pages,
 * order 0..MAX_ORDER.  Invariants, under zone->lock:
 *   - A free block of order k starts at a frame number aligned to 2^k.
 *   - Its head page (first frame) has PG_buddy set and page->order == k and
 *     is on free_area[k].free_list; no other page of the block has PG_buddy.
 *   - free_area[k].nr_free is the length of that list; free_pages is the
 *     sum over k of nr_free << k.
 *   - Two free blocks of order k are buddies when their frame numbers differ
 *     only in bit k (buddy_pfn = pfn ^ (1 << k)); together they are the
 *     aligned block of order k + 1 that contains both.
 *   - No two free buddies stay apart: a free merges as far as it can, so
 *     the free blocks are the unique largest-aligned cover of the free frames.
 * A block is merged with its buddy (page_is_buddy) only when
 *   (a) the buddy's frame lies in the same zone,
 *   (b) the buddy is the head of a free block (PG_buddy),
 *   (c) that block has the same order k (a larger free block containing
 *       the buddy frame, or a smaller one starting there, is no buddy),
 *   (d) and it belongs to the same node and zone by its flags.
 *
 * PER-CPU LISTS.  Orders 0..PCP_MAX_ORDER are served from a per-CPU list:
 * an empty list is refilled with a batch (PCP_BATCH pages' worth) from the
 * buddy under zone->lock, and a list holding more than PCP_HIGH pages gives
 * a batch back.  Blocks on them are "free" for accounting (nr_free_pages)
 * but not for the buddy (PG_pcp, not PG_buddy): drain_local_pages() and
 * drain_all_pages() return them so they can merge again.  zone_pcp_disable()
 * switches a zone's lists off, then drains every CPU's under its pcp->lock;
 * every path that lists a page reads the switch again under that lock, so
 * nothing is listed behind the drain.
 *
 * BAD FREES.  An allocated block's head records its order in page->flags
 * (PAGE_ALLOC_ORDER_SHIFT).  A free checks the page before touching any
 * list: a double free, a free of a page that is not the head of an
 * allocated block, or a free with a different order is reported (frame,
 * order, caller) and ignored, so the lists stay intact.  One test of the
 * recorded order against the order given finds all of these, and the free
 * claims the block with one compare-and-swap that clears the recorded
 * order; that alone refuses every double free, concurrent ones included.
 * Only a refused free looks closer (free_pages_refused(), and
 * pfn_in_free_block() at neighbouring pages) to word its report: those
 * reads take no lock, race with other CPUs' list changes, and so may never
 * decide whether a free goes ahead.
 *
 * UNLOCKED READERS OF page->flags.  Other CPUs read a page's flags without
 * holding what guards them: page_is_buddy() (under zone->lock) looks at a
 * neighbour that may be allocated, and its owner changes its own bits
 * (PG_slab, PG_head...) meanwhile; a free's CAS reads the word of a page
 * that may be on a list.  This is safe because PG_buddy and PG_pcp are
 * only set and cleared under zone->lock and pcp->lock, an allocated page
 * never has them, and the allocation order bits change only by the
 * allocation (prep_new_page(), once the block is off every list and before
 * it is handed out) and by the CAS.  Flags of a page that is no longer
 * ours to own (a deferred free) are set with atomic operations.
 *
 * POISON.  With page_poisoning on (`page_poison`), a freed block is filled
 * with PAGE_POISON and its head marked PG_poisoned; the mark follows the
 * block through the lists (a split gives it to both halves, a merge keeps
 * it only if both halves had it, so memory never poisoned is never
 * checked), and prep_new_page() checks every byte of a marked block before
 * handing it out: a byte that changed was written after the free.  While
 * it is on, frees take the slow path (the fill is the cost that matters).
 *
 * SHADOW (host only, include/kasan.h).  A freed block is poisoned for
 * AddressSanitizer once its free is claimed (after the poison fill), and
 * at boot; prep_new_page() unpoisons it first thing.  Empty in the kernel.
 */
#include <mm.h>
#include <mmzone.h>
#include <mm_points.h>
#include <nolock_stats.h>
#include <spinlock.h>
#include <smp.h>
#include <irqflags.h>
#include <kasan.h>
#include <memlayout.h>
#include <printk.h>
#include <kernel.h>
#include <kunit.h>
#include <string.h>
#include "internal.h"

struct pglist_data *node_data[MAX_NUMNODES];
unsigned long nr_bad_page_frees;
bool page_poisoning;
unsigned long nr_page_poison_reports;
unsigned long nr_alloc_fail_warnings;

/* Why the any-context paths (here and in the slab allocator) said "not
 * now": include/nolock_stats.h.  Defined here, the lowest layer. */
DEFINE_PER_CPU(struct nolock_stats, nolock_stats);

/* ---- what page->flags records about allocated blocks ---- */

/* The order + 1 recorded in a head page's flags; 0: not an allocated head. */
static unsigned int flags_alloc_order_plus1(unsigned long flags)
{
	return (unsigned int)((flags >> PAGE_ALLOC_ORDER_SHIFT) &
			      PAGE_ALLOC_ORDER_MASK);
}

static bool zone_spans_pfn(const struct zone *zone, unsigned long pfn)
{
	return pfn >= zone->zone_start_pfn &&
	       pfn < zone->zone_start_pfn + zone->spanned_pages;
}

/* ---- the buddy: every function here needs zone->lock ---- */

/* The order is stored before the flag that makes it meaningful. */
static void add_to_free_list_locked(struct page *page, struct zone *zone,
				    unsigned int order)
{
	page->order = order;
	mm_point(MM_POINT_BUDDY_HEAD_HALF, page);
	page->flags |= PG_buddy;
	list_add(&page->lru, &zone->free_area[order].free_list);
	/* WRITE_ONCE: nr_free_pages() and show_free_areas() read these
	 * without the lock. */
	WRITE_ONCE(zone->free_area[order].nr_free,
		   zone->free_area[order].nr_free + 1);
	WRITE_ONCE(zone->free_pages, zone->free_pages + (1ul << order));
}

static void del_from_free_list_locked(struct page *page, struct zone *zone,
				      unsigned int order)
{
	list_del(&page->lru);
	page->flags &= ~PG_buddy;
	WRITE_ONCE(zone->free_area[order].nr_free,
		   zone->free_area[order].nr_free - 1);
	WRITE_ONCE(zone->free_pages, zone->free_pages - (1ul << order));
}

/* Conditions (a)-(d) of the header comment. */
static bool page_is_buddy(const struct zone *zone, unsigned long buddy_pfn,
			  unsigned int order)
{
	const struct page *buddy;

	if (!zone_spans_pfn(zone, buddy_pfn) || !pfn_valid(buddy_pfn))
		return false;                                     /* (a) */
	buddy = pfn_to_page(buddy_pfn);
	if (!(buddy->flags & PG_buddy))                           /* (b) */
		return false;
	if (buddy->order != order)                                /* (c) */
		return false;
	return page_to_nid(buddy) == zone->node &&                /* (d) */
	       page_zonenum(buddy) == zone->idx;
}

/* Put a block back and merge it with its buddy for as long as it has one. */
static void __free_one_page(struct page *page, unsigned long pfn,
			    struct zone *zone, unsigned int order)
{
	/* A merged block is poisoned only if both halves were. */
	bool poisoned = page->flags & PG_poisoned;

	lockdep_assert_held(&zone->lock);
	while (order < MAX_ORDER) {
		unsigned long buddy_pfn = pfn ^ (1ul << order);
		struct page *buddy;

		/* Checked first: buddy_pfn may lie outside the memmap. */
		if (!page_is_buddy(zone, buddy_pfn, order))
			break;
		buddy = pfn_to_page(buddy_pfn);
		del_from_free_list_locked(buddy, zone, order);
		poisoned = poisoned && (buddy->flags & PG_poisoned);
		buddy->flags &= ~PG_poisoned;
		pfn_to_page(pfn)->flags &= ~PG_poisoned;
		pfn &= buddy_pfn;           /* the merged block's head */
		order++;
	}
	page = pfn_to_page(pfn);
	if (poisoned)
		page->flags |= PG_poisoned;
	else
		page->flags &= ~PG_poisoned;
	add_to_free_list_locked(page, zone, order);
}

/*
 * A block of order `high` was taken to serve order `low`: give back its
 * upper halves, largest first, keeping the first 2^low pages.
 */
static void buddy_split_locked(struct zone *zone, struct page *page,
			       unsigned int low, unsigned int high)
{
	while (high > low) {
		struct page *upper;

		high--;
		upper = page + (1ul << high);
		/* The halves of a poisoned block are poisoned blocks. */
		upper->flags = (upper->flags & ~PG_poisoned) |
			       (page->flags & PG_poisoned);
		add_to_free_list_locked(upper, zone, high);
	}
}

/* The smallest free block that fits, split down to `order`. */
static struct page *__rmqueue_smallest(struct zone *zone, unsigned int order)
{
	unsigned int o;

	lockdep_assert_held(&zone->lock);
	for (o = order; o <= MAX_ORDER; o++) {
		struct free_area *area = &zone->free_area[o];
		struct page *page;

		if (list_empty(&area->free_list))
			continue;
		page = list_first_entry(&area->free_list, struct page, lru);
		del_from_free_list_locked(page, zone, o);
		buddy_split_locked(zone, page, order, o);
		return page;
	}
	return NULL;
}

/* Blocks freed by free_pages_nolock() while the locks were taken. */
static void free_deferred_pages_locked(struct zone *zone)
{
	struct llist_node *n;

	lockdep_assert_held(&zone->lock);
	n = llist_del_all(&zone->deferred_free);
	mm_point(MM_POINT_PAGE_DEFERRED_TAKEN, zone);
	while (n) {
		/* Read the link first: the free reuses it as page->lru. */
		struct llist_node *next = n->next;
		struct page *page = llist_entry(n, struct page, llnode);
		unsigned int order = page->order;

		page->flags &= ~PG_deferred;
		__free_one_page(page, page_to_pfn(page), zone, order);
		__atomic_fetch_sub(&zone->nr_deferred, 1ul << order,
				   __ATOMIC_RELAXED);
		n = next;
	}
}

/* ---- per-CPU lists: these need pcp->lock (and zone->lock when said) ---- */

/* Which path a step that both take runs on: its interleaving point is
 * mm_point_fast() (host only) on a fast path, mm_point() on a slow one. */
enum pcp_path {
	PCP_SLOW_PATH,
	PCP_FAST_PATH,
};

static __always_inline void __pcp_add_locked(struct per_cpu_pages *pcp,
					     struct page *page,
					     unsigned int order,
					     enum pcp_path path)
{
	struct list_head *list = &pcp->lists[order];

	OPTIMIZER_HIDE_VAR(list);   /* one address, computed once */
	page->order = order;
	if (path == PCP_FAST_PATH)
		mm_point_fast(MM_POINT_PCP_HEAD_HALF, page);
	else
		mm_point(MM_POINT_PCP_HEAD_HALF, page);
	page->flags |= PG_pcp;
	list_add(&page->lru, list);
	WRITE_ONCE(pcp->count, pcp->count + (1 << order)); /* read unlocked */
}

static void pcp_add_locked(struct per_cpu_pages *pcp, struct page *page,
			   unsigned int order)
{
	__pcp_add_locked(pcp, page, order, PCP_SLOW_PATH);
}

/* Which end of a per-CPU list: the block freed last (still in the
 * cache, for an allocation) or the one freed first (back to the buddy). */
enum pcp_end {
	PCP_HOTTEST,
	PCP_COLDEST,
};

/* The entry is only unlinked: prep_new_page() or the buddy relinks it. */
static __always_inline struct page *pcp_take_locked(struct per_cpu_pages *pcp,
						    unsigned int order,
						    enum pcp_end end)
{
	struct list_head *list = &pcp->lists[order];
	struct list_head *entry = end == PCP_COLDEST ? list->prev : list->next;
	struct page *page;

	if (entry == list)          /* empty; the lock holder reads plainly */
		return NULL;
	page = list_entry(entry, struct page, lru);
	__list_del_entry(&page->lru);
	page->flags &= ~PG_pcp;
	WRITE_ONCE(pcp->count, pcp->count - (1 << order));
	return page;
}

/* Move up to `count` blocks of `order` from the buddy to the pcp list. */
static void rmqueue_bulk_locked(struct zone *zone, unsigned int order,
				int count, struct per_cpu_pages *pcp)
{
	lockdep_assert_held(&pcp->lock);
	lockdep_assert_held(&zone->lock);
	while (count-- > 0) {
		struct page *page = __rmqueue_smallest(zone, order);

		if (!page)
			break;
		pcp_add_locked(pcp, page, order);
	}
}

/* Give at least `nr_pages` pages (coldest first, all orders in turn) from
 * the pcp lists back to the buddy; everything if nr_pages >= count. */
static void free_pcppages_bulk_locked(struct zone *zone, int nr_pages,
				      struct per_cpu_pages *pcp)
{
	unsigned int order = 0;

	lockdep_assert_held(&pcp->lock);
	lockdep_assert_held(&zone->lock);
	while (nr_pages > 0 && pcp->count > 0) {
		struct page *page = pcp_take_locked(pcp, order, PCP_COLDEST);

		if (page) {
			__free_one_page(page, page_to_pfn(page), zone, order);
			nr_pages -= 1 << order;
		}
		order = (order + 1) % NR_PCP_LISTS;
	}
}

static void drain_zone_pcp(struct zone *zone, unsigned int cpu)
{
	struct per_cpu_pages *pcp = &zone->pcp[cpu];
	unsigned long flags;

	spin_lock_irqsave(&pcp->lock, flags);
	spin_lock(&zone->lock);
	mm_point(MM_POINT_ZONE_LOCKED, zone);
	free_pcppages_bulk_locked(zone, pcp->count, pcp);
	free_deferred_pages_locked(zone);
	spin_unlock(&zone->lock);
	spin_unlock_irqrestore(&pcp->lock, flags);
}

static void drain_cpu_pages(unsigned int cpu)
{
	int nid;
	unsigned int z;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		if (!pgdat)
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++)
			if (!zone_is_empty(&pgdat->node_zones[z]))
				drain_zone_pcp(&pgdat->node_zones[z], cpu);
	}
}

void drain_local_pages(void)
{
	drain_cpu_pages(smp_processor_id());
}

/* Each CPU's pcp->lock is a spinlock, so we can empty its lists from here. */
void drain_all_pages(void)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		drain_cpu_pages(cpu);
}

/* ---- allocation ---- */

/*
 * How an allocation's slow path takes its locks: how is LOCK_TRY on the
 * any-context path, one try each (spin_lock_irqsave_or_try(),
 * include/spinlock.h); busy is set when a try failed, so the caller can
 * tell "a lock was held" from "no memory".
 */
struct lock_mode {
	enum lock_how how;
	bool busy;
};

/* A lock of the slow path, taken as mode->how says
 * (spin_lock_irqsave_or_try()); a try that fails marks the mode busy. */
static bool lock_irqsave_by_mode(spinlock_t *lock, unsigned long *flags,
				 struct lock_mode *mode)
{
	if (spin_lock_irqsave_or_try(lock, flags, mode->how))
		return true;
	mode->busy = true;
	return false;
}

static bool lock_by_mode(spinlock_t *lock, struct lock_mode *mode)
{
	if (spin_lock_or_try(lock, mode->how))
		return true;
	mode->busy = true;
	return false;
}

/*
 * zone_uses_pcp() is read before pcp->lock is taken, so zone_pcp_disable()
 * may have switched the lists off and drained this CPU's in between: read
 * the switch again under the lock, which the drain took after setting it,
 * and never put a page on a list that the drain has already passed.  (The
 * fast paths read it only under the lock.)
 */
static __always_inline bool pcp_switched_off_locked(const struct zone *zone)
{
	return READ_ONCE(zone->pcp_disabled);
}

static struct page *rmqueue_buddy(struct zone *zone, unsigned int order,
				  struct lock_mode *mode);

static struct page *rmqueue_pcplist(struct zone *zone, unsigned int order,
				    struct lock_mode *mode)
{
	struct per_cpu_pages *pcp = &zone->pcp[smp_processor_id()];
	struct page *page;
	unsigned long flags;

	if (!lock_irqsave_by_mode(&pcp->lock, &flags, mode))
		return NULL;
	mm_point(MM_POINT_PCP_LOCKED, zone);
	if (unlikely(pcp_switched_off_locked(zone))) {
		spin_unlock_irqrestore(&pcp->lock, flags);
		return rmqueue_buddy(zone, order, mode);
	}
	page = pcp_take_locked(pcp, order, PCP_HOTTEST);
	if (!page && lock_by_mode(&zone->lock, mode)) {
		int blocks = max(PCP_BATCH >> order, 1);

		mm_point(MM_POINT_ZONE_LOCKED, zone);
		free_deferred_pages_locked(zone);
		rmqueue_bulk_locked(zone, order, blocks, pcp);
		spin_unlock(&zone->lock);
		page = pcp_take_locked(pcp, order, PCP_HOTTEST);
	}
	spin_unlock_irqrestore(&pcp->lock, flags);
	return page;
}

static struct page *rmqueue_buddy(struct zone *zone, unsigned int order,
				  struct lock_mode *mode)
{
	struct page *page;
	unsigned long flags;

	if (!lock_irqsave_by_mode(&zone->lock, &flags, mode))
		return NULL;
	mm_point(MM_POINT_ZONE_LOCKED, zone);
	free_deferred_pages_locked(zone);
	page = __rmqueue_smallest(zone, order);
	spin_unlock_irqrestore(&zone->lock, flags);
	return page;
}

/*
 * The block was poisoned when freed: every byte must still be PAGE_POISON.
 * Any context (try_alloc_pages() calls it too): it only reads and prints.
 */
static void check_page_poison(struct page *page, unsigned int order)
{
	const u8 *p = page_address(page);
	unsigned long i, n = PAGE_SIZE << order;

	for (i = 0; i < n; i++) {
		if (likely(p[i] == PAGE_POISON))
			continue;
		__atomic_fetch_add(&nr_page_poison_reports, 1, __ATOMIC_RELAXED);
		kunit_print_report(LOGLEVEL_ERR, "BUG: page poison overwritten: pfn %#lx order %u, byte %#lx is %#x, not %#x: written after it was freed",
				   page_to_pfn(page), order, i, p[i],
				   PAGE_POISON);
		return;
	}
}

/* The allocation's own marks on the head, from the flags it had free. */
#define ALLOC_CLEARS_FLAGS (PG_buddy | PG_pcp | PG_deferred | PG_head | \
			    PG_nolock_alloc | PG_poisoned | \
			    (PAGE_ALLOC_ORDER_MASK << PAGE_ALLOC_ORDER_SHIFT))

/* Off every list, not yet handed out: make the block an allocated one. */
static __always_inline void prep_new_page_flags(struct page *page,
						unsigned int order)
{
	unsigned long flags = page->flags & ~ALLOC_CLEARS_FLAGS;

	flags |= (unsigned long)(order + 1) << PAGE_ALLOC_ORDER_SHIFT;
	if (order)
		flags |= PG_head;
	page->flags = flags;
	INIT_LIST_HEAD(&page->lru);
}

/* What only some allocations need: the poison check, the zeroing. */
static __noinline struct page *prep_new_page_checked(struct page *page,
						     unsigned int order,
						     gfp_t gfp)
{
	if (page->flags & PG_poisoned)
		check_page_poison(page, order);
	prep_new_page_flags(page, order);
	if (gfp & __GFP_ZERO)
		memset(page_address(page), 0, PAGE_SIZE << order);
	return page;
}

/* Returns page; the common case inline, the rest in a call. */
static __always_inline struct page *prep_new_page(struct page *page,
						  unsigned int order,
						  gfp_t gfp)
{
	kasan_unpoison(page_address(page), PAGE_SIZE << order);
	if (unlikely((page->flags & PG_poisoned) || (gfp & __GFP_ZERO)))
		return prep_new_page_checked(page, order, gfp);
	prep_new_page_flags(page, order);
	return page;
}

/* Does an order-`order` block of this zone go through the per-CPU lists? */
static bool zone_uses_pcp(const struct zone *zone, unsigned int order)
{
	return order <= PCP_MAX_ORDER && !READ_ONCE(zone->pcp_disabled);
}

void zone_pcp_disable(struct zone *zone)
{
	WRITE_ONCE(zone->pcp_disabled, true);
	drain_all_pages();
}

void zone_pcp_enable(struct zone *zone)
{
	WRITE_ONCE(zone->pcp_disabled, false);
}

/* The highest zone gfp allows; an allocation falls back downwards from it
 * (Normal, then DMA32). */
static __always_inline int gfp_highest_zone(gfp_t gfp)
{
	return (gfp & __GFP_DMA32) ? ZONE_DMA32 : ZONE_NORMAL;
}

void node_set_first_zones(struct pglist_data *pgdat)
{
	unsigned int dma32;

	for (dma32 = 0; dma32 < ARRAY_SIZE(pgdat->first_zone); dma32++) {
		int z = gfp_highest_zone(dma32 ? __GFP_DMA32 : 0);

		while (z > 0 && !pgdat->node_zones[z].managed_pages)
			z--;
		pgdat->first_zone[dma32] = &pgdat->node_zones[z];
	}
}

static struct page *get_page_from_node(struct pglist_data *pgdat, gfp_t gfp,
				       unsigned int order,
				       struct lock_mode *mode)
{
	int z = gfp_highest_zone(gfp);

	for (; z >= 0; z--) {
		struct zone *zone = &pgdat->node_zones[z];
		struct page *page;

		if (!zone->managed_pages)
			continue;
		if (zone_uses_pcp(zone, order))
			page = rmqueue_pcplist(zone, order, mode);
		else
			page = rmqueue_buddy(zone, order, mode);
		if (page)
			return prep_new_page(page, order, gfp);
	}
	return NULL;
}

static void warn_alloc(int nid, gfp_t gfp, unsigned int order)
{
	if (gfp & __GFP_NOWARN)
		return;
	__atomic_fetch_add(&nr_alloc_fail_warnings, 1, __ATOMIC_RELAXED);
	pr_warn("page allocation failure: order:%u, gfp:%#x, node:%d, %lu pages free\n",
		order, gfp, nid, nr_free_pages());
}

/* Is nid a node an allocation may name (NUMA_NO_NODE resolved)? */
static bool alloc_node_valid(int nid)
{
	return nid >= 0 && nid < MAX_NUMNODES && node_online(nid);
}

/*
 * A block for a request that prefers node `preferred` (online; it may be
 * memoryless): from that node, or with __GFP_THISNODE from nowhere else,
 * or else from the nodes with memory nearest first (node_fallback()).
 * Counted in the numastat counters (include/numa.h).
 */
static struct page *get_page_from_nodes(int preferred, gfp_t gfp,
					unsigned int order,
					struct lock_mode *mode)
{
	const int this_node_only[] = { preferred, NUMA_NO_NODE };
	const int *fallback = (gfp & __GFP_THISNODE) ? this_node_only :
			      node_fallback(preferred);
	struct page *page;
	unsigned int i;

	for (i = 0; fallback[i] != NUMA_NO_NODE; i++) {
		if (!NODE_DATA(fallback[i]))   /* a memoryless node asked */
			continue;
		page = get_page_from_node(NODE_DATA(fallback[i]), gfp, order,
					  mode);
		if (page) {
			numa_stat_count(NUMA_STAT_PAGES, preferred,
					fallback[i], 1ul << order);
			return page;
		}
	}
	return NULL;
}

/*
 * Everything the fast path below does not: a bad node or order, NMI
 * context, orders above the lists, an empty list (refilled from the
 * buddy), a lock not free at once (spun on), lists switched off, the
 * fall-back to lower zones and to other nodes, and with nothing found, a
 * drain of every CPU's lists and one more try before the warning.
 */
static __noinline struct page *alloc_pages_slow(int nid, gfp_t gfp,
						unsigned int order)
{
	struct lock_mode spin = { .how = LOCK_SPIN };
	struct page *page;

	if (nid == NUMA_NO_NODE)
		nid = numa_mem_id();
	if (!alloc_node_valid(nid) || order > MAX_ORDER) {
		warn_alloc(nid, gfp, order);
		return NULL;
	}
	if (in_nmi()) {
		/* It would spin on locks the NMI may have interrupted. */
		WARN_ON_ONCE(in_nmi());
		return NULL;
	}
	page = get_page_from_nodes(nid, gfp, order, &spin);
	if (!page) {
		/* Pages may sit on per-CPU lists of other orders or CPUs. */
		drain_all_pages();
		page = get_page_from_nodes(nid, gfp, order, &spin);
	}
	if (!page)
		warn_alloc(nid, gfp, order);
	return page;
}

/*
 * THE FAST PATHS.  An allocation or free of order <= PCP_MAX_ORDER first
 * tries this CPU's list in one zone, inline: IRQs off, pcp->lock tried
 * once (spin_trylock_once()), the lists-off switch read under it, one
 * block taken or put, unlocked.  It never waits and never takes
 * zone->lock, so it is safe in any context; whenever it cannot finish
 * (the lock not free at once, an empty list, a list at its high mark, a
 * deferred free waiting, the lists switched off) it changes nothing and
 * the slow path, which spins or tries by context, does the whole job.
 * Its interleaving points are host-only (mm_point_fast()); in the kernel
 * it steps aside for the slow path while a test hook is set
 * (mm_points_divert()), and so makes no call at all.
 */
static __always_inline struct per_cpu_pages *
pcp_trylock_irqsave(struct zone *zone, unsigned long *flags)
{
	struct per_cpu_pages *pcp = &zone->pcp[smp_processor_id()];

	OPTIMIZER_HIDE_VAR(pcp);
	*flags = local_irq_save();
	if (likely(spin_trylock_once(&pcp->lock)))
		return pcp;
	local_irq_restore(*flags);
	return NULL;
}

static __always_inline void pcp_unlock_irqrestore(struct per_cpu_pages *pcp,
						  unsigned long flags)
{
	spin_unlock_inline(&pcp->lock);
	local_irq_restore(flags);
}

/* The first zone an allocation tries (see pglist_data.first_zone). */
static __always_inline struct zone *gfp_first_zone(struct pglist_data *pgdat,
						   gfp_t gfp)
{
	return pgdat->first_zone[!!(gfp & __GFP_DMA32)];
}

static __always_inline struct page *rmqueue_pcplist_fast(struct zone *zone,
							 unsigned int order)
{
	struct per_cpu_pages *pcp;
	struct page *page = NULL;
	unsigned long flags;

	pcp = pcp_trylock_irqsave(zone, &flags);
	if (unlikely(!pcp))
		return NULL;
	mm_point_fast(MM_POINT_PCP_LOCKED, zone);
	if (likely(!pcp_switched_off_locked(zone))) {
		page = pcp_take_locked(pcp, order, PCP_HOTTEST);
		if (likely(page))
			pcp->numa_hit_fast += 1ul << order;
	}
	pcp_unlock_irqrestore(pcp, flags);
	return page;
}

/* alloc_pages_node(): the fast path (the node's own lists), or else the
 * slow one. */
static __always_inline struct page *__alloc_pages(int nid, gfp_t gfp,
						  unsigned int order)
{
	struct pglist_data *pgdat;
	struct page *page;

	if (nid == NUMA_NO_NODE)
		nid = numa_mem_id();
	if (unlikely((unsigned int)nid >= MAX_NUMNODES ||
		     order > PCP_MAX_ORDER || in_nmi() || mm_points_divert()))
		return alloc_pages_slow(nid, gfp, order);
	pgdat = NODE_DATA(nid);
	if (unlikely(!pgdat))
		return alloc_pages_slow(nid, gfp, order);
	page = rmqueue_pcplist_fast(gfp_first_zone(pgdat, gfp), order);
	if (unlikely(!page))
		return alloc_pages_slow(nid, gfp, order);
	return prep_new_page(page, order, gfp);   /* counted by the list */
}

struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order)
{
	return __alloc_pages(nid, gfp, order);
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	return __alloc_pages(NUMA_NO_NODE, gfp, order);
}

unsigned long __get_free_pages(gfp_t gfp, unsigned int order)
{
	struct page *page = alloc_pages(gfp, order);

	return page ? (unsigned long)page_address(page) : 0;
}

/*
 * Any context, NMI included: every lock is tried once; NULL means "not
 * now" (a lock was held, by another CPU or by the code we interrupted, or
 * the memory was not there).  No drain, no retry, no warning.  The block
 * is zeroed, as the caller cannot pass __GFP_ZERO.  nid NUMA_NO_NODE is
 * this CPU's memory node; any node is only preferred: a remote block
 * beats none (as Linux's alloc_pages_nolock()), unless gfp (internal
 * callers) says __GFP_THISNODE.  *busy (if not NULL)
 * tells the two NULLs apart; each NULL is counted in nolock_stats.
 */
struct page *__try_alloc_pages(int nid, gfp_t gfp, unsigned int order,
			       bool *busy)
{
	struct lock_mode once = { .how = LOCK_TRY };
	struct page *page = NULL;

	if (nid == NUMA_NO_NODE)
		nid = numa_mem_id();
	if (alloc_node_valid(nid) && order <= MAX_ORDER)
		page = get_page_from_nodes(nid, __GFP_ZERO | __GFP_NOWARN |
					   (gfp & __GFP_THISNODE), order,
					   &once);
	if (busy)
		*busy = !page && once.busy;
	if (!page) {
		if (once.busy)
			nolock_stat_inc(page_alloc_busy);
		else
			nolock_stat_inc(page_alloc_nomem);
		return NULL;
	}
	page->flags |= PG_nolock_alloc;
	return page;
}

struct page *try_alloc_pages(int nid, unsigned int order)
{
	return __try_alloc_pages(nid, 0, order, NULL);
}

/* ---- freeing ---- */

static void bad_page_free(unsigned long pfn, unsigned int order,
			  unsigned long caller, const char *why)
{
	__atomic_fetch_add(&nr_bad_page_frees, 1, __ATOMIC_RELAXED);
	kunit_print_report(LOGLEVEL_ERR, "BUG: bad page free: pfn %#lx order %u caller %pS: %s; ignored",
			   pfn, order, (void *)caller, why);
}

/*
 * Is `pfn` inside a free block (buddy, pcp or deferred) headed elsewhere?
 * It reads other pages' flags and order without their locks, while other
 * CPUs put those pages on lists and take them off, so the answer can be
 * stale: it only words the report of a free that free_pages_claim() has
 * already refused, and never decides one.
 */
static bool pfn_in_free_block(unsigned long pfn)
{
	unsigned int o;

	for (o = 0; o <= MAX_ORDER; o++) {
		unsigned long head = pfn & ~((1ul << o) - 1);
		const struct page *p;

		if (!pfn_valid(head))
			break;
		p = pfn_to_page(head);
		if ((p->flags & (PG_buddy | PG_pcp | PG_deferred)) &&
		    p->order >= o)
			return true;
	}
	return false;
}

/* What an allocated block's head stops being when it is freed. */
#define FREE_CLEARS_FLAGS (PG_head | PG_slab | PG_large_kmalloc | \
			   PG_nolock_alloc | PG_poisoned | \
			   (PAGE_ALLOC_ORDER_MASK << PAGE_ALLOC_ORDER_SHIFT))

/*
 * A free that free_pages_claim() refused, `flags` being what it read on
 * the page: say why.  Nothing else is done; the block is left alone.
 */
static __noinline void free_pages_refused(struct page *page,
					  unsigned int order,
					  unsigned long caller,
					  unsigned long flags)
{
	unsigned long pfn = page_to_pfn(page);
	unsigned int recorded = flags_alloc_order_plus1(flags);
	bool already_free;

	if (order > MAX_ORDER) {
		bad_page_free(pfn, order, caller, "order above MAX_ORDER");
		return;
	}
	if (flags & PG_reserved) {
		bad_page_free(pfn, order, caller,
			      "reserved page, never allocated");
		return;
	}
	if (!recorded) {
		already_free = (flags & (PG_buddy | PG_pcp | PG_deferred)) ||
			       pfn_in_free_block(pfn);
		bad_page_free(pfn, order, caller, already_free ?
			      "double free: already free" :
			      "not the head of an allocated block, or a double free racing the first");
		return;
	}
	bad_page_free(pfn, order, caller, "wrong order");
	pr_err("  the block at pfn %#lx was allocated with order %u\n",
	       pfn, recorded - 1);
}

/* page_poisoning: fill a claimed block and mark its head. */
static __noinline void free_pages_poison(struct page *page,
					 unsigned int order)
{
	/* A slab's block comes back with its free objects poisoned in the
	 * shadow: the fill writes them all. */
	kasan_unpoison(page_address(page), PAGE_SIZE << order);
	memset(page_address(page), PAGE_POISON, PAGE_SIZE << order);
	__atomic_fetch_or(&page->flags, PG_poisoned, __ATOMIC_RELAXED);
}

/*
 * Check that `page` heads an allocated block of `order`, and forget that
 * it does.  Returns the block's zone, or NULL (after a report) when the
 * free must not go ahead.
 */
static __always_inline struct zone *free_pages_claim(struct page *page,
						     unsigned int order,
						     unsigned long caller)
{
	unsigned long flags;

	if (unlikely(!page_in_memmap(page))) {
		bad_page_free(0, order, caller, "not a page of the memmap");
		return NULL;
	}
	/*
	 * Claim the free by clearing the recorded order with one
	 * compare-and-swap.  Only an allocated block's head has an order
	 * recorded (never above MAX_ORDER, never on a PG_reserved page), so
	 * the one test of the recorded order against `order` refuses every
	 * bad free, and the CAS every double free: of a block already free
	 * (its order was cleared by the first free), and of two CPUs freeing
	 * the same block at the same instant (exactly one wins).  Only once
	 * it has refused does free_pages_refused() look closer (and
	 * pfn_in_free_block() at the neighbours), to say which it was; it
	 * reads them without a lock, so it must never decide a free (a
	 * correct free refused that way would leak the block).
	 */
	flags = __atomic_load_n(&page->flags, __ATOMIC_RELAXED);
	do {
		if (unlikely(flags_alloc_order_plus1(flags) !=
			     (unsigned long)order + 1)) {
			free_pages_refused(page, order, caller, flags);
			return NULL;
		}
	} while (!__atomic_compare_exchange_n(&page->flags, &flags,
					      flags & ~FREE_CLEARS_FLAGS,
					      false, __ATOMIC_ACQ_REL,
					      __ATOMIC_RELAXED));
	/* The node and zone bits were set at boot: the word we swapped has
	 * them.  Never NULL: NODE_DATA() of a page's node is set. */
	return flags_zone(flags);
}

/* A claimed block is poisoned in the shadow (host only, empty here). */
static __always_inline void free_pages_shadow(struct page *page,
					      unsigned int order)
{
	kasan_poison(page_address(page), PAGE_SIZE << order);
}

/* The slow path's part after the claim (and its point): the poison fill
 * when page poisoning is on, then the shadow. */
static void free_pages_prepare(struct page *page, unsigned int order)
{
	if (READ_ONCE(page_poisoning))
		free_pages_poison(page, order);
	free_pages_shadow(page, order);
}

static void free_to_buddy(struct zone *zone, struct page *page,
			  unsigned int order);

static void free_to_pcp(struct zone *zone, struct page *page,
			unsigned int order)
{
	struct per_cpu_pages *pcp = &zone->pcp[smp_processor_id()];
	unsigned long flags;

	spin_lock_irqsave(&pcp->lock, flags);
	mm_point(MM_POINT_PCP_LOCKED, zone);
	if (unlikely(pcp_switched_off_locked(zone))) {
		spin_unlock_irqrestore(&pcp->lock, flags);
		free_to_buddy(zone, page, order);
		return;
	}
	pcp_add_locked(pcp, page, order);
	if (pcp->count > PCP_HIGH || !llist_empty(&zone->deferred_free)) {
		spin_lock(&zone->lock);
		mm_point(MM_POINT_ZONE_LOCKED, zone);
		if (pcp->count > PCP_HIGH)
			free_pcppages_bulk_locked(zone, PCP_BATCH, pcp);
		free_deferred_pages_locked(zone);
		spin_unlock(&zone->lock);
	}
	spin_unlock_irqrestore(&pcp->lock, flags);
}

static void free_to_buddy(struct zone *zone, struct page *page,
			  unsigned int order)
{
	unsigned long flags;

	spin_lock_irqsave(&zone->lock, flags);
	mm_point(MM_POINT_ZONE_LOCKED, zone);
	__free_one_page(page, page_to_pfn(page), zone, order);
	free_deferred_pages_locked(zone);
	spin_unlock_irqrestore(&zone->lock, flags);
}

/*
 * The any-context free onto this CPU's list, pcp->lock held (trylocked).
 * False, with nothing done, when the lists were switched off meanwhile,
 * or when the block would take the list past PCP_HIGH and zone->lock,
 * which a batch given back needs, is taken (*zone_busy then): listed
 * anyway, a burst of such frees would pile up there without bound, so the
 * caller parks the block on the zone instead.
 */
static bool pcp_free_listed_locked(struct zone *zone,
				   struct per_cpu_pages *pcp,
				   struct page *page, unsigned int order,
				   bool *zone_busy)
{
	if (unlikely(pcp_switched_off_locked(zone)))
		return false;
	if (pcp->count + (1 << order) <= PCP_HIGH) {
		pcp_add_locked(pcp, page, order);
		return true;
	}
	if (!spin_trylock(&zone->lock)) {
		*zone_busy = true;
		return false;
	}
	pcp_add_locked(pcp, page, order);
	free_pcppages_bulk_locked(zone, PCP_BATCH, pcp);
	free_deferred_pages_locked(zone);
	spin_unlock(&zone->lock);
	return true;
}

/* The any-context free of a claimed block: trylocks only. */
static void free_claimed_nolock(struct zone *zone, struct page *page,
				unsigned int order)
{
	bool zone_busy = false;
	unsigned long flags;

	if (zone_uses_pcp(zone, order)) {
		struct per_cpu_pages *pcp = &zone->pcp[smp_processor_id()];

		if (spin_trylock_irqsave(&pcp->lock, flags)) {
			if (pcp_free_listed_locked(zone, pcp, page, order,
						   &zone_busy)) {
				spin_unlock_irqrestore(&pcp->lock, flags);
				return;
			}
			spin_unlock_irqrestore(&pcp->lock, flags);
		}
	}
	/* Tried once already when the pcp list was at its high mark. */
	if (!zone_busy && spin_trylock_irqsave(&zone->lock, flags)) {
		__free_one_page(page, page_to_pfn(page), zone, order);
		free_deferred_pages_locked(zone);
		spin_unlock_irqrestore(&zone->lock, flags);
		return;
	}
	/*
	 * zone->lock is taken, and pcp->lock too or the list is at its
	 * high mark: leave it for the next locked free.  Count
	 * first, so the counter never goes below what the list holds.  The
	 * order and the flag are published by llist_add()'s release (the
	 * drain reads them after llist_del_all()'s acquire); the flag is set
	 * atomically because other CPUs read this word without our lock
	 * (page_is_buddy() on a neighbour, a racing bad free's CAS).
	 */
	nolock_stat_inc(page_free_deferred);
	page->order = order;
	__atomic_fetch_or(&page->flags, PG_deferred, __ATOMIC_RELAXED);
	__atomic_fetch_add(&zone->nr_deferred, 1ul << order, __ATOMIC_RELAXED);
	mm_point(MM_POINT_PAGE_DEFER_MARKED, zone);
	llist_add(&page->llnode, &zone->deferred_free);
}

/*
 * The free's slow path, for a block it has claimed: in NMI context (or
 * from free_pages_nolock()) the any-context one; otherwise this CPU's
 * list, locked by spinning, giving a batch back past PCP_HIGH and taking
 * the deferred frees along, or the buddy.
 */
static __noinline void free_claimed_slow(struct zone *zone,
					 struct page *page,
					 unsigned int order, enum lock_how how)
{
	if (how == LOCK_TRY || in_nmi()) {
		/* The ordinary path would spin: take the any-context one. */
		free_claimed_nolock(zone, page, order);
		return;
	}
	if (zone_uses_pcp(zone, order))
		free_to_pcp(zone, page, order);
	else
		free_to_buddy(zone, page, order);
}

/*
 * The free's fast path (see THE FAST PATHS above): onto this CPU's list
 * when the block keeps it at or under PCP_HIGH and no deferred free waits
 * for zone->lock.  False, with nothing done, sends the claimed block to
 * free_claimed_slow().
 */
static __always_inline bool free_to_pcp_fast(struct zone *zone,
					     struct page *page,
					     unsigned int order)
{
	struct per_cpu_pages *pcp;
	unsigned long flags;

	pcp = pcp_trylock_irqsave(zone, &flags);
	if (unlikely(!pcp))
		return false;
	mm_point_fast(MM_POINT_PCP_LOCKED, zone);
	if (unlikely(pcp_switched_off_locked(zone) ||
		     pcp->count + (1 << order) > PCP_HIGH ||
		     !llist_empty(&zone->deferred_free))) {
		pcp_unlock_irqrestore(pcp, flags);
		return false;
	}
	__pcp_add_locked(pcp, page, order, PCP_FAST_PATH);
	pcp_unlock_irqrestore(pcp, flags);
	return true;
}

/*
 * The whole free by the slow path, when the fast path steps aside: for a
 * test hook (mm_points_divert()) and for page poisoning, whose fill is
 * too long for the fast path to care about the call.
 */
static __noinline void free_pages_slow(struct page *page, unsigned int order,
				       unsigned long caller, enum lock_how how)
{
	struct zone *zone = free_pages_claim(page, order, caller);

	if (!zone)
		return;
	mm_point(MM_POINT_PAGE_FREE_CLAIMED, zone);
	free_pages_prepare(page, order);
	free_claimed_slow(zone, page, order, how);
}

static __always_inline void free_pages_caller(struct page *page,
					      unsigned int order,
					      unsigned long caller,
					      enum lock_how how)
{
	struct zone *zone;

	if (unlikely(mm_points_divert() || READ_ONCE(page_poisoning))) {
		free_pages_slow(page, order, caller, how);
		return;
	}
	zone = free_pages_claim(page, order, caller);
	if (unlikely(!zone))
		return;
	OPTIMIZER_HIDE_VAR(zone);   /* a pointer, not node + index * size */
	mm_point_fast(MM_POINT_PAGE_FREE_CLAIMED, zone);
	free_pages_shadow(page, order);   /* poisoning is off */
	if (likely(order <= PCP_MAX_ORDER) &&
	    likely(free_to_pcp_fast(zone, page, order)))
		return;
	free_claimed_slow(zone, page, order, how);
}

void __free_pages(struct page *page, unsigned int order)
{
	free_pages_caller(page, order, _RET_IP_, LOCK_SPIN);
}

void free_pages(unsigned long addr, unsigned int order)
{
	if (addr)
		free_pages_caller(virt_to_page((void *)addr), order, _RET_IP_,
				  LOCK_SPIN);
}

/* Any context, NMI included: trylocks only; never loses the block. */
void free_pages_nolock(struct page *page, unsigned int order)
{
	free_pages_caller(page, order, _RET_IP_, LOCK_TRY);
}

/* ---- boot ---- */

void zone_init_free_lists(struct zone *zone)
{
	unsigned int o, cpu;

	spin_lock_init(&zone->lock, "zone->lock");
	for (o = 0; o < NR_PAGE_ORDERS; o++) {
		INIT_LIST_HEAD(&zone->free_area[o].free_list);
		zone->free_area[o].nr_free = 0;
	}
	zone->free_pages = 0;
	init_llist_head(&zone->deferred_free);
	zone->nr_deferred = 0;
	for_each_possible_cpu(cpu) {
		struct per_cpu_pages *pcp = &zone->pcp[cpu];

		spin_lock_init(&pcp->lock, "pcp->lock");
		pcp->count = 0;
		for (o = 0; o < NR_PCP_LISTS; o++)
			INIT_LIST_HEAD(&pcp->lists[o]);
	}
}

void free_pages_boot(unsigned long start_pfn, unsigned long end_pfn)
{
	unsigned long pfn = start_pfn;

	while (pfn < end_pfn) {
		unsigned int order = MAX_ORDER;
		struct page *page = pfn_to_page(pfn);
		struct zone *zone = page_zone(page);
		unsigned long flags, i;

		while (order && (!IS_ALIGNED(pfn, 1ul << order) ||
				 pfn + (1ul << order) > end_pfn))
			order--;
		for (i = 0; i < (1ul << order); i++)
			page[i].flags &= ~PG_reserved;
		kasan_poison(page_address(page), PAGE_SIZE << order);
		spin_lock_irqsave(&zone->lock, flags);
		__free_one_page(page, pfn, zone, order);
		zone->managed_pages += 1ul << order;
		spin_unlock_irqrestore(&zone->lock, flags);
		if (zone->managed_pages == 1ul << order)   /* its first */
			node_set_first_zones(NODE_DATA(zone->node));
		pfn += 1ul << order;
	}
}

/* ---- accounting ---- */

unsigned long zone_pcp_count(const struct zone *zone)
{
	unsigned long n = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu)
		n += (unsigned long)READ_ONCE(zone->pcp[cpu].count);
	return n;
}

unsigned long zone_nr_free_pages(const struct zone *zone)
{
	return READ_ONCE(zone->free_pages) + zone_pcp_count(zone) +
	       __atomic_load_n(&zone->nr_deferred, __ATOMIC_RELAXED);
}

unsigned long node_nr_free_pages(int nid)
{
	unsigned long n = 0;
	unsigned int z;

	if (nid < 0 || nid >= MAX_NUMNODES || !NODE_DATA(nid))
		return 0;
	for (z = 0; z < MAX_NR_ZONES; z++)
		n += zone_nr_free_pages(&NODE_DATA(nid)->node_zones[z]);
	return n;
}

unsigned long nr_free_pages(void)
{
	unsigned long n = 0;
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++)
		n += node_nr_free_pages(nid);
	return n;
}

/*
 * Like /proc/buddyinfo: free blocks per order in each zone.  Takes no lock
 * (it may run from a crash or an NMI), so on a busy system the numbers
 * can be a moment apart from each other.
 */
void show_free_areas(void)
{
	int nid;
	unsigned int z, o;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct pglist_data *pgdat = NODE_DATA(nid);

		if (!pgdat)
			continue;
		char orders[160], sizes[160];
		int olen = 0, slen = 0;

		/* Column heads: the order, and the block size it means. */
		for (o = 0; o <= MAX_ORDER; o++) {
			unsigned long kib = (PAGE_SIZE >> 10) << o;

			olen += snprintf(orders + olen, sizeof(orders) - olen,
					 " %5u", o);
			slen += snprintf(sizes + slen, sizeof(sizes) - slen,
					 kib >= 1024 ? " %4luM" : " %4luK",
					 kib >= 1024 ? kib >> 10 : kib);
		}
		pr_info("buddy: node %d, free blocks of each order (a block of order n is 2^n pages):\n",
			nid);
		pr_info("  %-11s%s\n", "order", orders);
		pr_info("  %-11s%s\n", "block size", sizes);
		for (z = 0; z < MAX_NR_ZONES; z++) {
			const struct zone *zone = &pgdat->node_zones[z];
			char line[160];
			int len = 0;

			if (zone_is_empty(zone))
				continue;
			for (o = 0; o <= MAX_ORDER; o++)
				len += snprintf(line + len, sizeof(line) - len,
						" %5lu",
						READ_ONCE(zone->free_area[o].nr_free));
			pr_info("  zone %-6s%s\n", zone->name, line);
			pr_info("  zone %-6s %lu pages free (%lu KiB) = buddy %lu + pcp %lu + deferred %lu, of %lu managed\n",
				zone->name, zone_nr_free_pages(zone),
				zone_nr_free_pages(zone) << (PAGE_SHIFT - 10),
				READ_ONCE(zone->free_pages),
				zone_pcp_count(zone),
				__atomic_load_n(&zone->nr_deferred,
						__ATOMIC_RELAXED),
				zone->managed_pages);
		}
	}
}
