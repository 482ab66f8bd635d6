/*
 * mmzone.h - nodes, zones, free areas and per-CPU page lists.
 *
 * A node (struct pglist_data) is the memory of one NUMA node (include/
 * numa.h) with its own zones: node 0 alone holds all of RAM on a one-node
 * machine; host tests build nodes over borrowed memory so they can count
 * exactly.  A memoryless node has no pglist_data (NODE_DATA() is NULL).
 *
 * Zones split a node by what devices can reach:
 *   ZONE_DMA32   frames below 4 GiB (32-bit DMA), __GFP_DMA32 asks for it;
 *   ZONE_NORMAL  frames at or above 4 GiB.
 * An allocation tries the highest zone it allows first and falls back
 * downwards (Normal -> DMA32), so low memory is kept for those who need it.
 *
 * Each zone has:
 *   free_area[order]   the buddy's free blocks of 2^order pages, with a
 *                      count (nr_free, in blocks);
 *   pcp[cpu]           each CPU's cache of small blocks (orders 0..3);
 *   deferred_free      blocks freed by free_pages_nolock() when no lock
 *                      could be taken, waiting for the next locked free.
 *
 * Locks (the full story and their order are at the top of mm/page_alloc.c):
 *   pcp->lock   guards one CPU's lists in one zone; taken with IRQs off by
 *               that CPU (and by drain_all_pages() from any CPU); only
 *               trylocked from NMI context.
 *   zone->lock  guards free_area[], free_pages; IRQs off; NMI: trylock only.
 *   deferred_free is lock-free (llist): anyone pushes, a zone->lock holder
 *               takes the lot.
 */
#ifndef MMZONE_H
#define MMZONE_H

#include <list.h>
#include <llist.h>
#include <mm.h>
#include <numa.h>
#include <smp.h>
#include <spinlock.h>

enum zone_type {
	ZONE_DMA32,
	ZONE_NORMAL,
	MAX_NR_ZONES
};

/* Orders served by the per-CPU lists: 0..PCP_MAX_ORDER (Linux's
 * PAGE_ALLOC_COSTLY_ORDER).  Larger blocks always go to the buddy. */
#define PCP_MAX_ORDER  3
#define NR_PCP_LISTS   (PCP_MAX_ORDER + 1)
#define PCP_BATCH      32    /* pages moved to/from the buddy at a time */
#define PCP_HIGH       (4 * PCP_BATCH) /* more than this: give a batch back */

/* First frame of ZONE_NORMAL: 4 GiB. */
#define ZONE_NORMAL_START_PFN (SZ_4G >> PAGE_SHIFT)

struct free_area {
	struct list_head free_list;  /* heads of free blocks, PG_buddy set */
	unsigned long nr_free;       /* blocks on free_list */
};

/*
 * Each CPU's entry starts a cache line of its own and takes whole lines
 * (96 bytes of fields, so two): entries that shared a line would bounce
 * it between their CPUs on every allocation.  A power-of-two size also
 * makes &zone->pcp[cpu] one shift.
 */
#define PCP_ENTRY_SIZE (2 * SMP_LINE_SIZE)

struct per_cpu_pages {
	spinlock_t lock;             /* see the header comment */
	int count;                   /* pages (not blocks) on all lists */
	struct list_head lists[NR_PCP_LISTS]; /* PG_pcp heads, by order */
	/* Pages the allocation fast path took from these lists: numa_hit on
	 * this zone's node, local_node or other_node by this CPU's node
	 * (include/numa.h, numa_stat_read()).  Only this CPU writes it, one
	 * instruction, under the lock. */
	unsigned long numa_hit_fast;
} __aligned(PCP_ENTRY_SIZE);

BUILD_BUG_ON(sizeof(struct per_cpu_pages) != PCP_ENTRY_SIZE);

struct zone {
	spinlock_t lock;
	const char *name;
	int node;
	enum zone_type idx;
	unsigned long zone_start_pfn;
	unsigned long spanned_pages;   /* frames in the zone's range */
	unsigned long managed_pages;   /* frames handed to the buddy at boot */
	bool pcp_disabled;             /* zone_pcp_disable(): buddy only */

	/* Guarded by lock. */
	struct free_area free_area[NR_PAGE_ORDERS];
	unsigned long free_pages;      /* pages in free_area[] */

	/* Lock-free: pushed by free_pages_nolock(), taken under lock. */
	struct llist_head deferred_free;
	unsigned long nr_deferred;     /* pages on it (atomic) */

	struct per_cpu_pages pcp[NR_CPUS];
};

typedef struct pglist_data {
	struct zone node_zones[MAX_NR_ZONES];
	/*
	 * The first zone an allocation tries, without and with __GFP_DMA32:
	 * the highest zone it allows that has memory (ZONE_DMA32 when none
	 * has; its lists are empty then).  Set with the zones, and again
	 * whenever a zone's first memory arrives (free_pages_boot()), so
	 * the allocation fast path need not look for it every time.
	 */
	struct zone *first_zone[2];
	int node_id;
	unsigned long node_start_pfn;
	unsigned long node_spanned_pages;
} pg_data_t;

extern struct pglist_data *node_data[MAX_NUMNODES];
#define NODE_DATA(nid) (node_data[nid])

static inline int page_to_nid(const struct page *page)
{
	return (int)((page->flags >> PAGE_NID_SHIFT) & PAGE_NID_MASK);
}

static inline enum zone_type page_zonenum(const struct page *page)
{
	return (enum zone_type)((page->flags >> PAGE_ZONE_SHIFT) &
				PAGE_ZONE_MASK);
}

/* The zone named by a value of page->flags (a copy already in hand). */
static inline struct zone *flags_zone(unsigned long flags)
{
	return &NODE_DATA((flags >> PAGE_NID_SHIFT) & PAGE_NID_MASK)->
		node_zones[(flags >> PAGE_ZONE_SHIFT) & PAGE_ZONE_MASK];
}

static inline struct zone *page_zone(const struct page *page)
{
	return flags_zone(page->flags);
}

static inline bool zone_is_empty(const struct zone *zone)
{
	return zone->spanned_pages == 0;
}

/*
 * Bring up the page allocator over the memory memblock describes: one
 * memmap for all of it (from memblock), and for every node with memory
 * (include/numa.h) its zones over its ranges, with every free memblock
 * range of it given to its buddy.  pgdat is room for MAX_NUMNODES nodes.
 * Returns false (with a message) when the memmap cannot be allocated.  The
 * kernel calls it once at boot; host tests call it over a crafted map
 * (and topology) in an arena.
 */
bool mm_init_nodes(struct pglist_data *pgdat);
/* Forget every node (host tests, after they have given everything back). */
void mm_exit_nodes(void);

unsigned long node_nr_free_pages(int nid);
unsigned long zone_nr_free_pages(const struct zone *zone);
unsigned long zone_pcp_count(const struct zone *zone);

/*
 * Bad frees reported so far (double free, wrong order, not allocated).
 * These report counters are bumped with atomic adds: any CPU, and an NMI
 * in free_pages_nolock() or try_alloc_pages(), may count at once.
 */
extern unsigned long nr_bad_page_frees;

/*
 * Page poisoning (`page_poison` on the command line, or set by a test):
 * a freed block is filled with PAGE_POISON and marked PG_poisoned; when it
 * is handed out again every byte is checked, and a byte that changed is
 * reported as a write after free (counted in nr_page_poison_reports).
 */
#define PAGE_POISON 0xaa
extern bool page_poisoning;
extern unsigned long nr_page_poison_reports;
/* Allocation failures that were reported (without __GFP_NOWARN). */
extern unsigned long nr_alloc_fail_warnings;

/*
 * Serve this zone's small orders straight from the buddy (zone->lock every
 * time) instead of the per-CPU lists, and drain what the lists hold; and
 * back.  For benchmarks that compare the two paths.  Other CPUs may
 * allocate and free meanwhile: each reads the switch again under its
 * pcp->lock, which the drain takes after setting it, so once
 * zone_pcp_disable() has returned no page of the zone is on a per-CPU list.
 */
void zone_pcp_disable(struct zone *zone);
void zone_pcp_enable(struct zone *zone);

#endif /* MMZONE_H */
