/*
 * memmap_review_test.c - an outside review of the per-node memmap at
 * VMEMMAP_BASE (commit 846f237): what the page tables behind it must say.
 *
 * numa.struct_pages_live_on_their_node asks one frame per memmap page for
 * its node.  These cases look at the mapping itself, on any machine (the
 * 5 GiB boot is the one with 2 MiB pages and the PCI hole):
 *   - exact: every memmap page of [ALIGN_DOWN(base, 64), ALIGN_UP(end, 64))
 *     is mapped RW, NX, supervisor, at 4 KiB or 2 MiB, by a frame that is
 *     PG_reserved RAM; nothing is mapped after the memmap's last page up to
 *     the next 2 MiB boundary and one more 2 MiB, nor before its first;
 *   - the right frame: vmemmap_lookup() names the frame that really holds
 *     the bytes (a struct page that nobody touches since boot, PG_reserved
 *     and its lru still pointing at itself, is read through the direct map
 *     at the frame vmemmap_lookup() gives, and must point at the memmap
 *     address of that same struct page);
 *   - 2 MiB pages where the change promises them (one node, a memmap of at
 *     least 4 MiB starting at frame 0: aligned on both sides);
 *   - the page tables under VMEMMAP_BASE are PG_reserved RAM, each on the
 *     node of the first frame it maps (the run that created it).
 */
#include <kunit.h>
#include <memlayout.h>
#include <mm.h>
#include <mmzone.h>
#include <numa.h>
#include "../../arch/x86_64/cpu.h"
#include "../../arch/x86_64/paging.h"

#define MR_PAGES_PER_MEMMAP_PAGE (PAGE_SIZE / sizeof(struct page))
#define MR_PTE_USER (1ul << 2)
#define MR_PML4_INDEX(va) (((va) >> 39) & 0x1ff)

static unsigned long mr_first_va(void)
{
	return (unsigned long)(mem_map - mem_map_base_pfn +
			       ALIGN_DOWN(mem_map_base_pfn,
					  MR_PAGES_PER_MEMMAP_PAGE));
}

static unsigned long mr_last_va(void)
{
	return (unsigned long)(mem_map - mem_map_base_pfn +
			       ALIGN_UP(mem_map_end_pfn,
					MR_PAGES_PER_MEMMAP_PAGE));
}

static bool mr_frame_reserved(phys_addr_t phys)
{
	unsigned long pfn = phys >> PAGE_SHIFT;

	return pfn_valid(pfn) && (pfn_to_page(pfn)->flags & PG_reserved);
}

static void memmap_mapping_is_exact(struct kunit *test)
{
	unsigned long va, first = mr_first_va(), last = mr_last_va();
	unsigned long bad = 0, huge = 0, small = 0, stray = 0, end;
	unsigned int level;

	KUNIT_EXPECT_EQ(test, (unsigned long)(mem_map - mem_map_base_pfn),
			VMEMMAP_BASE);
	for (va = first; va < last; va += PAGE_SIZE) {
		phys_addr_t frame;
		u64 e = paging_lookup(va, &level);
		bool ok = vmemmap_lookup((void *)va, &frame) &&
			  (e & PTE_PRESENT) && (e & PTE_WRITE) &&
			  !(e & MR_PTE_USER) &&
			  (!cpu_has_nx || (e & PTE_NX)) &&
			  (level == 1 || level == 2) &&
			  mr_frame_reserved(frame);

		if (ok && level == 2)
			huge++;
		else if (ok)
			small++;
		if (!ok && !bad++)
			kunit_info(test, "memmap va %#lx: entry %#lx level %u", va,
				   (unsigned long)e, level);
	}
	/* After the last memmap page: nothing up to the next 2 MiB, and the
	 * 2 MiB after that. */
	end = ALIGN_UP(last, PAGE_2M) + PAGE_2M;
	for (va = last; va < end; va += PAGE_SIZE) {
		phys_addr_t frame;

		if (vmemmap_lookup((void *)va, &frame) && !stray++)
			kunit_info(test, "va %#lx past the memmap (ends %#lx) maps frame %#lx",
				   va, last, (unsigned long)frame);
	}
	/* Before the first one. */
	if (first > VMEMMAP_BASE) {
		phys_addr_t frame;

		if (vmemmap_lookup((void *)(first - PAGE_SIZE), &frame))
			stray++;
	}
	kunit_info(test, "memmap [%#lx-%#lx): %lu KiB in 2 MiB pages, %lu KiB in 4 KiB pages",
		   first, last, huge * 4, small * 4);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, stray, 0);
	if (nr_node_ids == 1 && first == VMEMMAP_BASE &&
	    last - first >= 2 * PAGE_2M)
		KUNIT_EXPECT_GT(test, huge, 0);
}

static void lookup_names_the_real_frame(struct kunit *test)
{
	unsigned long pfn, checked = 0, wrong = 0;

	for (pfn = mem_map_base_pfn; pfn < mem_map_end_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);
		const struct page *alias;
		phys_addr_t frame;

		if (!(page->flags & PG_reserved) || page->lru.next != &page->lru)
			continue;
		if (!vmemmap_lookup(page, &frame)) {
			wrong++;
			continue;
		}
		alias = phys_to_virt(frame);
		checked++;
		if (alias->lru.next != &page->lru && !wrong++)
			kunit_info(test, "pfn %#lx: struct page at %p, vmemmap_lookup() says frame %#lx, which holds another",
				   pfn, page, (unsigned long)frame);
	}
	kunit_info(test, "%lu untouched struct pages read back through their frames",
		   checked);
	KUNIT_EXPECT_GT(test, checked, 0);
	KUNIT_EXPECT_EQ(test, wrong, 0);
}

/*
 * The frame of the first leaf under table entry e at level (3 = PDPT
 * entry, 2 = PD entry, 1 = PT entry), or ~0 if none.
 */
static phys_addr_t mr_first_leaf(u64 e, unsigned int level)
{
	const u64 *t;
	unsigned int i;

	if (!(e & PTE_PRESENT))
		return ~0ull;
	if (level == 1 || (e & PTE_HUGE))
		return e & PTE_ADDR_MASK & ~((PAGE_SIZE << (9 * (level - 1))) - 1);
	t = phys_to_virt(e & PTE_ADDR_MASK);
	for (i = 0; i < 512; i++)
		if (t[i] & PTE_PRESENT)
			return mr_first_leaf(t[i], level - 1);
	return ~0ull;
}

/*
 * A table under VMEMMAP_BASE: reserved RAM, and on the node of the first
 * frame it maps (the run that created it is the one that maps its first
 * entry, and asked its own node for it).
 */
static void mr_check_table(u64 e, unsigned int level, unsigned long *tables,
			   unsigned long *bad, unsigned long *off_node)
{
	phys_addr_t t = e & PTE_ADDR_MASK, leaf = mr_first_leaf(e, level);

	(*tables)++;
	if (!mr_frame_reserved(t))
		(*bad)++;
	if (leaf == ~0ull || phys_to_nid(t) != phys_to_nid(leaf))
		(*off_node)++;
}

static void memmap_page_tables_reserved(struct kunit *test)
{
	const u64 *pml4 = phys_to_virt(paging_kernel_cr3() & PTE_ADDR_MASK);
	u64 e = pml4[MR_PML4_INDEX(VMEMMAP_BASE)];
	unsigned long tables = 0, bad = 0, off_node = 0;
	const u64 *pdpt, *pd;
	unsigned int i, j;

	KUNIT_ASSERT_TRUE(test, e & PTE_PRESENT);
	mr_check_table(e, 4, &tables, &bad, &off_node);
	pdpt = phys_to_virt(e & PTE_ADDR_MASK);
	for (i = 0; i < 512; i++) {
		if (!(pdpt[i] & PTE_PRESENT))
			continue;
		KUNIT_EXPECT_FALSE(test, pdpt[i] & PTE_HUGE);
		mr_check_table(pdpt[i], 3, &tables, &bad, &off_node);
		pd = phys_to_virt(pdpt[i] & PTE_ADDR_MASK);
		for (j = 0; j < 512; j++)
			if ((pd[j] & PTE_PRESENT) && !(pd[j] & PTE_HUGE))
				mr_check_table(pd[j], 2, &tables, &bad,
					       &off_node);
	}
	kunit_info(test, "%lu page tables under VMEMMAP_BASE, %lu not reserved, %lu not on the node of their first frame",
		   tables, bad, off_node);
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, off_node, 0);
}

/*
 * A memmap page whose frames lie in no node range (the PCI hole, the
 * 640K-1M hole) lives on the node of the page before it.  On two nodes
 * with more than 3 GiB the PCI hole follows the node below it (node 1 on
 * 2 x 2300M); numa.struct_pages_live_on_their_node only asks frames of
 * node ranges.
 */
static bool mr_page_in_a_range(unsigned long head)
{
	unsigned int r = 0;
	u64 s, e;
	int nid;

	while (numa_next_range(&r, &s, &e, &nid))
		if ((s >> PAGE_SHIFT) < head + MR_PAGES_PER_MEMMAP_PAGE &&
		    (e >> PAGE_SHIFT) > head)
			return true;
	return false;
}

static void hole_pages_follow_previous_page(struct kunit *test)
{
	unsigned long first = ALIGN_DOWN(mem_map_base_pfn, MR_PAGES_PER_MEMMAP_PAGE);
	unsigned long last = ALIGN_UP(mem_map_end_pfn, MR_PAGES_PER_MEMMAP_PAGE);
	unsigned long head, holes = 0, wrong = 0;
	int prev = NUMA_NO_NODE;

	for (head = first; head < last; head += MR_PAGES_PER_MEMMAP_PAGE) {
		phys_addr_t frame;
		int where = NUMA_NO_NODE;

		if (vmemmap_lookup(mem_map - mem_map_base_pfn + head, &frame))
			where = phys_to_nid(frame);
		if (!mr_page_in_a_range(head)) {
			holes++;
			if (where != prev && !wrong++)
				kunit_info(test, "hole memmap page of pfn %#lx on node %d, the page before on node %d",
					   head, where, prev);
		}
		prev = where;
	}
	kunit_info(test, "%lu memmap pages of holes only", holes);
	KUNIT_EXPECT_EQ(test, wrong, 0);
}

static struct kunit_case memmap_review_cases[] = {
	KUNIT_CASE(memmap_mapping_is_exact),
	KUNIT_CASE(lookup_names_the_real_frame),
	KUNIT_CASE(memmap_page_tables_reserved),
	KUNIT_CASE(hole_pages_follow_previous_page),
	{}
};

static struct kunit_suite memmap_review_suite = {
	.name = "memmap_review",
	.test_cases = memmap_review_cases,
};
kunit_test_suite(memmap_review_suite);
