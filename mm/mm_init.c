/*
 * mm_init.c - from memblock to a running buddy allocator.
 *
 * The memmap is one virtual array of struct page indexed by frame number
 * (Linux's vmemmap): the struct page of frame pfn is vmemmap[pfn], so
 * pfn_to_page() is one addition and page_to_pfn() one subtraction.  Only
 * [mem_map_base_pfn, mem_map_end_pfn), the first to the last frame of
 * RAM, is backed (holes included: a hole's struct pages simply stay
 * PG_reserved forever).  The backing is per node, as Linux's SPARSEMEM
 * gives it: each memmap page (64 struct pages, 256 KiB of RAM described)
 * comes from the node whose frames it describes, so a CPU reads the
 * struct pages of its node's memory from that node.
 *
 *   virtual:  vmemmap[base] ........................ vmemmap[end - 1]
 *             |<-- pages of node 0's frames -->|<-- node 1's frames -->|
 *   backed:   memblock of node 0               memblock of node 1
 *
 * A memmap page that a node boundary cuts lives on the node of its first
 * frame with RAM; a page that describes only a hole follows the page
 * before it.  Runs of pages with one node are one memblock allocation
 * (2 MiB aligned when at least that big and the virtual start is aligned,
 * so the platform can map it with large pages; unaligned on the same node
 * rather than aligned on another), reserved like everything else memblock
 * hands out, and
 * mapped by the platform hook vmemmap_map() (include/mm.h).  Unlike
 * Linux, holes inside RAM's span are backed too (a 1 GiB PCI hole below
 * 4 GiB costs 16 MiB of memmap), so
 * that pfn_valid() stays a range check.
 *
 * The zones:
 *
 *   pfn:  base ............................................... end
 *         |<------ ZONE_DMA32 (below 4 GiB) ------>|<-- ZONE_NORMAL -->|
 *
 * Order of events in mm_init_nodes():
 *   1. the memmap: virtual room, each run backed from its node's
 *      memblock (so it is reserved);
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
/* vmemmap[pfn] is frame pfn's struct page; only [mem_map_base_pfn,
 * mem_map_end_pfn) of it is backed. */
static struct page *vmemmap;
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

/* Frames whose struct pages share one page of the memmap (64). */
#define PAGES_PER_MEMMAP_PAGE (PAGE_SIZE / sizeof(struct page))
/* A memmap run at least this big is allocated aligned to it: one large
 * (PD-level) page on x86-64. */
#define MEMMAP_LARGE_PAGE (2ul << 20)

/*
 * The node that holds the memmap page for frames [pfn, pfn +
 * PAGES_PER_MEMMAP_PAGE): the node of the first of them that is RAM
 * (memblock's memory: a node range may cover holes); a page that
 * describes no RAM follows the page before it (prev).
 */
static int memmap_page_nid(unsigned long pfn, int prev)
{
	u64 end = (u64)(pfn + PAGES_PER_MEMMAP_PAGE) << PAGE_SHIFT;
	u64 ram = memblock_first_memory((u64)pfn << PAGE_SHIFT, end);
	int nid;

	if (ram == end)
		return prev;
	nid = phys_to_nid(ram);
	return nid == NUMA_NO_NODE ? prev : nid;
}

/* Back the memmap pages of frames [first, last) (whole memmap pages)
 * with one allocation, from node nid when it has room. */
static bool memmap_populate(unsigned long first, unsigned long last,
			    int nid)
{
	unsigned long start = (unsigned long)(vmemmap + first);
	unsigned long end = (unsigned long)(vmemmap + last);
	u64 bytes = end - start;
	phys_addr_t phys = 0;

	/* Whole 2 MiB pieces, where the virtual start is aligned too, let
	 * the platform map it with large pages; failing that, small pages
	 * on the same node rather than large ones on another. */
	if (bytes >= MEMMAP_LARGE_PAGE && IS_ALIGNED(start, MEMMAP_LARGE_PAGE))
		phys = memblock_alloc_node(bytes, MEMMAP_LARGE_PAGE, nid);
	if (!phys)
		phys = memblock_alloc_try_nid(bytes, PAGE_SIZE, nid);
	if (!phys) {
		pr_err("mm: no room for the memmap of pfns [%#lx-%#lx) (%lu KiB)\n",
		       first, last, (unsigned long)(bytes >> 10));
		return false;
	}
	pr_info("mm: memmap of pfns [%#lx-%#lx): %lu KiB at [mem %#lx-%#lx], node %d%s\n",
		first, last, (unsigned long)(bytes >> 10), (unsigned long)phys,
		(unsigned long)(phys + bytes - 1), phys_to_nid(phys),
		phys_to_nid(phys) == nid ? "" : " (its own node is full)");
	return vmemmap_map(start, end, phys, nid);
}

/*
 * The memmap for frames [start_pfn, end_pfn): room at vmemmap, then each
 * run of memmap pages with the same node backed from that node.
 */
static bool memmap_alloc(unsigned long start_pfn, unsigned long end_pfn)
{
	unsigned long first = ALIGN_DOWN(start_pfn, PAGES_PER_MEMMAP_PAGE);
	unsigned long last = ALIGN_UP(end_pfn, PAGES_PER_MEMMAP_PAGE);
	unsigned long pfn, run = first;
	int run_nid;

	vmemmap = vmemmap_reserve(last);
	if (!vmemmap) {
		pr_err("mm: no virtual room for a memmap of pfns [0-%#lx)\n",
		       last);
		return false;
	}
	run_nid = memmap_page_nid(first, node_fallback(0)[0]);
	for (pfn = first; pfn < last; pfn += PAGES_PER_MEMMAP_PAGE) {
		int nid = memmap_page_nid(pfn, run_nid);

		if (nid == run_nid)
			continue;
		if (!memmap_populate(run, pfn, run_nid))
			return false;
		run = pfn;
		run_nid = nid;
	}
	if (!memmap_populate(run, last, run_nid))
		return false;
	mem_map = vmemmap + start_pfn;
	return true;
}

bool mm_init_nodes(struct pglist_data *pgdat)
{
	unsigned long start_pfn = memblock_start_of_DRAM() >> PAGE_SHIFT;
	unsigned long end_pfn = memblock_end_of_DRAM() >> PAGE_SHIFT;
	int nid;

	if (end_pfn <= start_pfn)
		return false;
	if (!memmap_alloc(start_pfn, end_pfn))
		return false;
	mem_map_base_pfn = start_pfn;
	mem_map_end_pfn = end_pfn;
	mem_map_virt_start = (unsigned long)phys_to_virt(
		(phys_addr_t)start_pfn << PAGE_SHIFT);
	mem_map_virt_size = (end_pfn - start_pfn) << PAGE_SHIFT;
	pr_info("mm: memmap of %lu struct pages (%lu bytes each) at %p, each part on its node\n",
		end_pfn - start_pfn, (unsigned long)sizeof(struct page),
		(void *)mem_map);

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
	vmemmap_release();
	vmemmap = mem_map = NULL;
	mem_map_base_pfn = mem_map_end_pfn = 0;
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
