/*
 * mm_init.c - from memblock to a running buddy allocator.
 *
 * The memmap is one flat array of struct page, one per frame from the
 * first to the last frame of RAM (holes included: a hole's struct pages
 * simply stay PG_reserved forever), whatever node each frame is on.  Its
 * memory comes from memblock, top down, so it sits at the end of RAM (on
 * the last node: Linux would give each node its own part) and is reserved
 * like everything else memblock handed out:
 *
 *   pfn:  base ............................................... end
 *   mem_map[0] ....................................... mem_map[end-base-1]
 *         |<------ ZONE_DMA32 (below 4 GiB) ------>|<-- ZONE_NORMAL -->|
 *
 * Order of events in mm_init_nodes():
 *   1. allocate the memmap from memblock (so it is reserved);
 *   2. every struct page: PG_reserved, its node (numa_next_range(),
 *      include/numa.h) and zone in page->flags;
 *   3. each node with memory: its zones over the span of its ranges,
 *      empty free lists, per-CPU lists;
 *   4. every free memblock range (memory minus reserved), cut at node
 *      boundaries and at the zone boundary, goes to its node's buddy as the
 *      largest aligned blocks (a block never straddles two nodes).
 * After that memblock is no longer used.
 *
 * Locking: runs on the boot CPU before anything else can allocate; the
 * buddy's own locks are taken as usual in step 4 (cheap, and it keeps the
 * lockdep assertions honest).
 */
#include <mm.h>
#include <mmzone.h>
#include <memblock.h>
#include <memlayout.h>
#include <printk.h>
#include <kernel.h>
#include <string.h>
#include "internal.h"

struct page *mem_map;
unsigned long mem_map_base_pfn;
unsigned long mem_map_end_pfn;
unsigned long mem_map_virt_start;
unsigned long mem_map_virt_size;

static struct pglist_data node_pgdat[MAX_NUMNODES];

static const char *const zone_names[MAX_NR_ZONES] = {
	[ZONE_DMA32] = "DMA32",
	[ZONE_NORMAL] = "Normal",
};

static enum zone_type pfn_zone(unsigned long pfn)
{
	return pfn < ZONE_NORMAL_START_PFN ? ZONE_DMA32 : ZONE_NORMAL;
}

static void memmap_init(int nid, unsigned long start_pfn,
			unsigned long end_pfn)
{
	unsigned long pfn;

	for (pfn = start_pfn; pfn < end_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		memset(page, 0, sizeof(*page));
		page->flags = PG_reserved |
			      ((unsigned long)nid << PAGE_NID_SHIFT) |
			      ((unsigned long)pfn_zone(pfn) << PAGE_ZONE_SHIFT);
		INIT_LIST_HEAD(&page->lru);
	}
}

static void zones_init(int nid, struct pglist_data *pgdat,
		       unsigned long start_pfn, unsigned long end_pfn)
{
	unsigned long split = min(max(start_pfn, ZONE_NORMAL_START_PFN),
				  end_pfn);
	unsigned int z;

	memset(pgdat, 0, sizeof(*pgdat));
	pgdat->node_id = nid;
	pgdat->node_start_pfn = start_pfn;
	pgdat->node_spanned_pages = end_pfn - start_pfn;
	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &pgdat->node_zones[z];

		zone->name = zone_names[z];
		zone->node = nid;
		zone->idx = (enum zone_type)z;
		zone_init_free_lists(zone);
	}
	pgdat->node_zones[ZONE_DMA32].zone_start_pfn = start_pfn;
	pgdat->node_zones[ZONE_DMA32].spanned_pages = split - start_pfn;
	pgdat->node_zones[ZONE_NORMAL].zone_start_pfn = split;
	pgdat->node_zones[ZONE_NORMAL].spanned_pages = end_pfn - split;
	node_set_first_zones(pgdat);
}

/* Give the free memory of [start, end) to the buddy, split at the zone
 * boundary (a block never straddles two zones). */
static void free_range_to_buddy(u64 start, u64 end)
{
	unsigned long s = (unsigned long)(start >> PAGE_SHIFT);
	unsigned long e = (unsigned long)(end >> PAGE_SHIFT);
	unsigned long split = min(max(s, ZONE_NORMAL_START_PFN), e);

	free_pages_boot(s, split);   /* the DMA32 part */
	free_pages_boot(split, e);   /* the Normal part */
}

/* Every free memblock range, cut at node boundaries (a block never
 * straddles two nodes either). */
static void free_memblock_ranges(void)
{
	u64 cursor = 0, start, end;

	while (memblock_next_free_range(&cursor, &start, &end)) {
		unsigned int r = 0;
		u64 ns, ne;
		int nid;

		while (numa_next_range(&r, &ns, &ne, &nid)) {
			u64 s = max(start, ns), e = min(end, ne);

			if (s < e)
				free_range_to_buddy(s, e);
		}
	}
}

/*
 * numa_next_range() in frames, clipped to [lo, hi): the next node range
 * with frames there, as [*s, *e) of node *nid.  *cursor = 0 first.
 */
static bool next_node_pfns(unsigned int *cursor, unsigned long lo,
			   unsigned long hi, unsigned long *s,
			   unsigned long *e, int *nid)
{
	u64 ns, ne;

	while (numa_next_range(cursor, &ns, &ne, nid)) {
		*s = max((unsigned long)(ns >> PAGE_SHIFT), lo);
		*e = min((unsigned long)(ne >> PAGE_SHIFT), hi);
		if (*s < *e)
			return true;
	}
	return false;
}

/* The frames of node nid's ranges in [lo, hi): [*first, *last). */
static bool node_pfn_span(int nid, unsigned long lo, unsigned long hi,
			  unsigned long *first, unsigned long *last)
{
	unsigned long s, e;
	unsigned int r = 0;
	int n;

	*first = hi;
	*last = lo;
	while (next_node_pfns(&r, lo, hi, &s, &e, &n)) {
		if (n != nid)
			continue;
		*first = min(*first, s);
		*last = max(*last, e);
	}
	return *first < *last;
}

/* The node bits of every frame of the node ranges (memmap_init() gave
 * all frames the first memory node's). */
static void memmap_set_nodes(unsigned long lo, unsigned long hi)
{
	unsigned long s, e, pfn;
	unsigned int r = 0;
	int nid;

	while (next_node_pfns(&r, lo, hi, &s, &e, &nid)) {
		for (pfn = s; pfn < e; pfn++) {
			struct page *page = pfn_to_page(pfn);

			page->flags = (page->flags &
				       ~(PAGE_NID_MASK << PAGE_NID_SHIFT)) |
				      ((unsigned long)nid << PAGE_NID_SHIFT);
		}
	}
}

bool mm_init_nodes(struct pglist_data *pgdat)
{
	unsigned long start_pfn = memblock_start_of_DRAM() >> PAGE_SHIFT;
	unsigned long end_pfn = memblock_end_of_DRAM() >> PAGE_SHIFT;
	u64 bytes = (u64)(end_pfn - start_pfn) * sizeof(struct page);
	phys_addr_t phys;
	int nid;

	if (end_pfn <= start_pfn)
		return false;
	phys = memblock_alloc(bytes, PAGE_SIZE);
	if (!phys) {
		pr_err("mm: no room for a memmap of %lu KiB\n",
		       (unsigned long)(bytes >> 10));
		return false;
	}
	mem_map = phys_to_virt(phys);
	mem_map_base_pfn = start_pfn;
	mem_map_end_pfn = end_pfn;
	mem_map_virt_start = (unsigned long)phys_to_virt(
		(phys_addr_t)start_pfn << PAGE_SHIFT);
	mem_map_virt_size = (end_pfn - start_pfn) << PAGE_SHIFT;
	pr_info("mm: memmap of %lu struct pages (%lu bytes each, %lu KiB) at [mem %#lx-%#lx], on node %d\n",
		end_pfn - start_pfn, (unsigned long)sizeof(struct page),
		(unsigned long)(bytes >> 10), (unsigned long)phys,
		(unsigned long)(phys + bytes - 1), phys_to_nid(phys));

	memmap_init(node_fallback(0)[0], start_pfn, end_pfn);
	memmap_set_nodes(start_pfn, end_pfn);
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		unsigned long first, last;

		if (!node_state(nid, NODE_MEMORY) ||
		    !node_pfn_span(nid, start_pfn, end_pfn, &first, &last))
			continue;
		zones_init(nid, &pgdat[nid], first, last);
		node_data[nid] = &pgdat[nid];
	}
	free_memblock_ranges();
	return true;
}

void mm_exit_nodes(void)
{
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++)
		node_data[nid] = NULL;
	mem_map_virt_start = mem_map_virt_size = 0;
}

void mm_core_init(void)
{
	unsigned int z;
	int nid;

	if (!mm_init_nodes(node_pgdat))
		panic("mm: cannot set up the page allocator");
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!NODE_DATA(nid))
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++) {
			const struct zone *zone = &node_pgdat[nid].node_zones[z];

			if (zone_is_empty(zone))
				continue;
			pr_info("mm: node %d zone %-6s pfns [%#lx-%#lx), %lu pages managed by the buddy\n",
				nid, zone->name, zone->zone_start_pfn,
				zone->zone_start_pfn + zone->spanned_pages,
				zone->managed_pages);
		}
		pr_info("mm: node %d: %lu pages free (%lu MiB)\n", nid,
			node_nr_free_pages(nid),
			node_nr_free_pages(nid) >> (20 - PAGE_SHIFT));
	}
	show_free_areas();
}
