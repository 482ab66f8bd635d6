/*
 * mm_init.c - from memblock to a running buddy allocator.
 *
 * The memmap is one flat array of struct page, one per frame from the
 * first to the last frame of RAM (holes included: a hole's struct pages
 * simply stay PG_reserved forever).  Its memory comes from memblock, top
 * down, so it sits at the end of RAM and is reserved like everything else
 * memblock handed out:
 *
 *   pfn:  base ............................................... end
 *   mem_map[0] ....................................... mem_map[end-base-1]
 *         |<------ ZONE_DMA32 (below 4 GiB) ------>|<-- ZONE_NORMAL -->|
 *
 * Order of events in mm_init_node():
 *   1. allocate the memmap from memblock (so it is reserved);
 *   2. every struct page: PG_reserved, its node and zone in page->flags;
 *   3. the zones: ranges, empty free lists, per-CPU lists;
 *   4. every free memblock range (memory minus reserved), split at the zone
 *      boundary, goes to the buddy as the largest aligned blocks.
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

static struct pglist_data contig_page_data;

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

static void free_memblock_ranges(void)
{
	u64 cursor = 0, start, end;

	while (memblock_next_free_range(&cursor, &start, &end)) {
		unsigned long s = (unsigned long)(start >> PAGE_SHIFT);
		unsigned long e = (unsigned long)(end >> PAGE_SHIFT);
		unsigned long split = min(max(s, ZONE_NORMAL_START_PFN), e);

		free_pages_boot(s, split);   /* the DMA32 part */
		free_pages_boot(split, e);   /* the Normal part */
	}
}

bool mm_init_node(int nid, struct pglist_data *pgdat)
{
	unsigned long start_pfn = memblock_start_of_DRAM() >> PAGE_SHIFT;
	unsigned long end_pfn = memblock_end_of_DRAM() >> PAGE_SHIFT;
	u64 bytes = (u64)(end_pfn - start_pfn) * sizeof(struct page);
	phys_addr_t phys;

	if (nid < 0 || nid >= MAX_NUMNODES || end_pfn <= start_pfn)
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
	pr_info("mm: memmap of %lu struct pages (%lu bytes each, %lu KiB) at [mem %#lx-%#lx]\n",
		end_pfn - start_pfn, (unsigned long)sizeof(struct page),
		(unsigned long)(bytes >> 10), (unsigned long)phys,
		(unsigned long)(phys + bytes - 1));

	memmap_init(nid, start_pfn, end_pfn);
	zones_init(nid, pgdat, start_pfn, end_pfn);
	node_data[nid] = pgdat;
	free_memblock_ranges();
	return true;
}

void mm_exit_node(int nid)
{
	if (nid >= 0 && nid < MAX_NUMNODES)
		node_data[nid] = NULL;
	mem_map_virt_start = mem_map_virt_size = 0;
}

void mm_core_init(void)
{
	unsigned int z;

	if (!mm_init_node(0, &contig_page_data))
		panic("mm: cannot set up the page allocator");
	for (z = 0; z < MAX_NR_ZONES; z++) {
		const struct zone *zone = &contig_page_data.node_zones[z];

		if (zone_is_empty(zone))
			continue;
		pr_info("mm: zone %-6s pfns [%#lx-%#lx), %lu pages managed by the buddy\n",
			zone->name, zone->zone_start_pfn,
			zone->zone_start_pfn + zone->spanned_pages,
			zone->managed_pages);
	}
	show_free_areas();
}
