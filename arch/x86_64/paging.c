/*
 * paging.c - the page tables the kernel runs on after boot.
 *
 * entry.asm left a temporary map (4 GiB identity + the image at KERNEL_VMA,
 * all writable and executable).  paging_init() replaces it with:
 *
 *   DIRECT_MAP_BASE + p -> p   for every physical range the memory map
 *                              reports, rounded out to 2 MiB, with 1 GiB
 *                              pages where the CPU has them (CPUID
 *                              0x80000001 EDX.Page1GB) and the range covers
 *                              a whole aligned gigabyte; read-write, NX,
 *                              except the image's text, rodata and kallsyms:
 *                              read-only, NX, in 4 KiB pages (the huge
 *                              pages around them are split).
 *   KERNEL_VMA + p -> p        the kernel image in 4 KiB pages so that each
 *                              section gets its own rights:
 *                              text R+X, rodata R+NX, data/bss RW+NX.
 *   IOREMAP_BASE ...           MMIO (the local and I/O APIC), uncached.
 *   VMEMMAP_BASE + pfn * 64    the memmap (mm/mm_init.c), added after
 *                              the switch by vmemmap_map(): each run from
 *                              its node's memory, 2 MiB pages where a
 *                              whole aligned 2 MiB allows, else 4 KiB;
 *                              read-write, NX.  Its page tables come from
 *                              memblock on the same node, not the pool.
 *
 * The invariant is W^X by physical page, not just by mapping: no page is
 * writable through one entry and executable through this or another (a
 * writable alias of text is as good as writable text).  The direct map is
 * never executable; text is executable only at KERNEL_VMA and read-only
 * everywhere.  The one other executable page is the AP trampoline while
 * CPUs start (smpboot.c): identity-mapped read-only, with its direct-map
 * alias made read-only first and writable again only after the identity
 * mapping is gone.  paging_audit_wx() checks all of this on a live tree of
 * tables (tests/kernel/wx_test.c, and smpboot.c during bring-up).
 *
 * Nothing maps virtual address 0, so a NULL dereference faults.  CR0.WP
 * (set in entry.asm) makes read-only pages read-only for the kernel too, and
 * EFER.NXE makes the NX bit count (only set when the CPU has NX: on a CPU
 * without it the bit is reserved and would fault, and W^X cannot hold).
 *
 * Page-table pages come from a static pool in .bss: the memory allocator
 * does not exist yet when this runs (the memmap's alone come from
 * memblock, which exists by then).  The pool covers a direct map of
 * 64 GiB even with 2 MiB pages, plus the tables that splitting huge pages
 * takes; beyond that the boot stops with a message.
 */
#include <kernel.h>
#include <memlayout.h>
#include <printk.h>
#include <string.h>
#include <mm.h>
#include <numa.h>
#include "paging.h"
#include "cpu.h"

#define PT_ENTRIES     512
#define PT_POOL_DIRECT_PAGES 96  /* PML4, PDPTs, PDs, image and MMIO PTs */
#define PT_POOL_SPLIT_PAGES  8   /* huge direct-map pages split to 4 KiB */
#define PT_POOL_PAGES  (PT_POOL_DIRECT_PAGES + PT_POOL_SPLIT_PAGES)
#define IOREMAP_BASE   0xffffc90000000000ul
#define IOREMAP_SIZE   (64ul << 20)

#define PML4_INDEX(va) (((va) >> 39) & 0x1ff)
#define PDPT_INDEX(va) (((va) >> 30) & 0x1ff)
#define PD_INDEX(va)   (((va) >> 21) & 0x1ff)
#define PT_INDEX(va)   (((va) >> 12) & 0x1ff)

typedef u64 pte_t;

extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __data_start[], __data_end[], __kallsyms_start[],
	__kallsyms_end[], __bss_start[], __bss_end[], __kernel_end[];

static pte_t pt_pool[PT_POOL_PAGES][PT_ENTRIES] __aligned(PAGE_SIZE);
static unsigned int pt_pool_used;
static pte_t *kernel_pml4;
static unsigned long ioremap_next = IOREMAP_BASE;

bool cpu_has_nx, cpu_has_1g_pages;
u64 direct_map_bytes;

static pte_t *alloc_table(void)
{
	if (pt_pool_used == PT_POOL_PAGES)
		panic("paging: out of page-table pages (pool of %u): too much memory to map at boot",
		      PT_POOL_PAGES);
	return pt_pool[pt_pool_used++];
}

/* Page tables live in the kernel image; the CPU wants physical addresses. */
static u64 table_phys(const pte_t *t)
{
	return virt_to_phys(t);
}

static pte_t *table_virt(pte_t e)
{
	u64 phys = e & PTE_ADDR_MASK;

	/* The pool's tables are in the image (mapped at KERNEL_VMA before
	 * the direct map exists); the memmap's come from memblock later,
	 * when the direct map is up. */
	if (phys >= KERNEL_LOAD_PHYS && phys < virt_to_phys(__kernel_end))
		return (pte_t *)(phys + KERNEL_VMA);
	return phys_to_virt(phys);
}

static u64 nx(void)
{
	return cpu_has_nx ? PTE_NX : 0;
}

/* The next-level table under entry `e`, created if absent. */
static pte_t *walk_or_create(pte_t *table, unsigned int index)
{
	if (!(table[index] & PTE_PRESENT)) {
		pte_t *t = alloc_table();

		table[index] = table_phys(t) | PTE_PRESENT | PTE_WRITE;
	}
	BUG_ON(table[index] & PTE_HUGE);
	return table_virt(table[index]);
}

static void map_page_4k(unsigned long va, u64 phys, u64 flags)
{
	pte_t *pdpt = walk_or_create(kernel_pml4, PML4_INDEX(va));
	pte_t *pd = walk_or_create(pdpt, PDPT_INDEX(va));
	pte_t *pt = walk_or_create(pd, PD_INDEX(va));

	pt[PT_INDEX(va)] = phys | flags | PTE_PRESENT;
}

static void map_direct_range(u64 start, u64 end)
{
	u64 p = ALIGN_DOWN(start, PAGE_2M);
	u64 flags = PTE_PRESENT | PTE_WRITE | PTE_GLOBAL | nx();

	end = ALIGN_UP(end, PAGE_2M);
	while (p < end) {
		unsigned long va = DIRECT_MAP_BASE + p;
		pte_t *pdpt = walk_or_create(kernel_pml4, PML4_INDEX(va));

		/* A gigabyte that an earlier range already began with 2 MiB
		 * pages (a PD exists) must be finished with 2 MiB pages too. */
		if (cpu_has_1g_pages && IS_ALIGNED(p, PAGE_1G) &&
		    p + PAGE_1G <= end &&
		    !(pdpt[PDPT_INDEX(va)] & PTE_PRESENT)) {
			pdpt[PDPT_INDEX(va)] = p | flags | PTE_HUGE;
			p += PAGE_1G;
			continue;
		}
		if (pdpt[PDPT_INDEX(va)] & PTE_HUGE) {
			/* Already covered by a 1 GiB page. */
			p += PAGE_2M;
			continue;
		}
		{
			pte_t *pd = walk_or_create(pdpt, PDPT_INDEX(va));

			pd[PD_INDEX(va)] = p | flags | PTE_HUGE;
		}
		p += PAGE_2M;
	}
}

static void map_kernel_section(char *start, char *end, u64 flags)
{
	unsigned long va;

	for (va = (unsigned long)start; va < (unsigned long)end; va += PAGE_SIZE)
		map_page_4k(va, va - KERNEL_VMA, flags | PTE_GLOBAL);
}

/*
 * Turn the huge leaf *e (spanning `span` bytes) into a table of 512 leaves
 * of span / 512 with the same translation and rights.  The caller flushes
 * the TLB for what it then changes (INVLPG drops a cached huge entry too).
 */
static void split_huge_leaf(pte_t *e, u64 span)
{
	pte_t *t = alloc_table();
	u64 child = span / PT_ENTRIES;
	u64 base = *e & PTE_ADDR_MASK & ~(span - 1);
	u64 flags = *e & ~PTE_ADDR_MASK;
	unsigned int i;

	if (child == PAGE_SIZE)
		flags &= ~PTE_HUGE;   /* in a PT entry, bit 7 is PAT */
	for (i = 0; i < PT_ENTRIES; i++)
		t[i] = (base + i * child) | flags;
	*e = table_phys(t) | PTE_PRESENT | PTE_WRITE;
}

/* The 4 KiB leaf that maps phys in the direct map, splitting as needed. */
static pte_t *direct_map_pte_4k(u64 phys)
{
	unsigned long va = DIRECT_MAP_BASE + phys;
	pte_t *e = &kernel_pml4[PML4_INDEX(va)];

	BUG_ON(!(*e & PTE_PRESENT));
	e = &table_virt(*e)[PDPT_INDEX(va)];
	BUG_ON(!(*e & PTE_PRESENT));
	if (*e & PTE_HUGE)
		split_huge_leaf(e, PAGE_1G);
	e = &table_virt(*e)[PD_INDEX(va)];
	BUG_ON(!(*e & PTE_PRESENT));
	if (*e & PTE_HUGE)
		split_huge_leaf(e, PAGE_2M);
	return &table_virt(*e)[PT_INDEX(va)];
}

void paging_set_direct_map_rights(u64 phys, u64 end,
				  enum direct_map_rights rights)
{
	u64 flags = PTE_PRESENT | PTE_GLOBAL | nx() |
		    (rights == DIRECT_MAP_RW ? PTE_WRITE : 0);
	u64 p;

	for (p = ALIGN_DOWN(phys, PAGE_SIZE); p < end; p += PAGE_SIZE) {
		*direct_map_pte_4k(p) = p | flags;
		invlpg(DIRECT_MAP_BASE + p);
	}
}

static void detect_features(void)
{
	u32 a, b, c, d;

	cpuid(CPUID_EXT_FEATURES & 0x80000000, 0, &a, &b, &c, &d);
	if (a < CPUID_EXT_FEATURES)
		return;
	cpuid(CPUID_EXT_FEATURES, 0, &a, &b, &c, &d);
	cpu_has_nx = d & CPUID_EXT_EDX_NX;
	cpu_has_1g_pages = d & CPUID_EXT_EDX_PDPE1GB;
}

void paging_init(const struct phys_range *ranges, unsigned int nr)
{
	unsigned int i;

	detect_features();
	kernel_pml4 = alloc_table();
	memset(kernel_pml4, 0, PAGE_SIZE);

	for (i = 0; i < nr; i++) {
		map_direct_range(ranges[i].start, ranges[i].end);
		direct_map_bytes += ranges[i].end - ranges[i].start;
	}

	map_kernel_section(__text_start, __text_end, 0);
	map_kernel_section(__rodata_start, __rodata_end, nx());
	map_kernel_section(__data_start, __data_end, PTE_WRITE | nx());
	map_kernel_section(__kallsyms_start, __kallsyms_end, nx());
	map_kernel_section(__bss_start, __bss_end, PTE_WRITE | nx());
	/* No writable alias of what the image maps read-only. */
	paging_set_direct_map_rights(virt_to_phys(__text_start),
				     virt_to_phys(__rodata_end), DIRECT_MAP_RO);
	paging_set_direct_map_rights(virt_to_phys(__kallsyms_start),
				     virt_to_phys(__kallsyms_end), DIRECT_MAP_RO);

	write_cr3(table_phys(kernel_pml4));
	pr_info("paging: direct map of %lu MiB at %#lx (%s pages; text, rodata read-only), image: text RX, rodata R, data RW%s\n",
		(unsigned long)(direct_map_bytes >> 20), DIRECT_MAP_BASE,
		cpu_has_1g_pages ? "1 GiB" : "2 MiB",
		cpu_has_nx ? ", NX on all but text" : " (no NX on this CPU)");
}

static pte_t *lookup_pte(unsigned long va, unsigned int *level)
{
	pte_t *t = kernel_pml4;
	pte_t *e;

	e = &t[PML4_INDEX(va)];
	if (!(*e & PTE_PRESENT))
		return NULL;
	t = table_virt(*e);
	e = &t[PDPT_INDEX(va)];
	if (!(*e & PTE_PRESENT) || (*e & PTE_HUGE)) {
		*level = 3;
		return e;
	}
	t = table_virt(*e);
	e = &t[PD_INDEX(va)];
	if (!(*e & PTE_PRESENT) || (*e & PTE_HUGE)) {
		*level = 2;
		return e;
	}
	t = table_virt(*e);
	*level = 1;
	return &t[PT_INDEX(va)];
}

u64 paging_lookup(unsigned long va, unsigned int *level)
{
	unsigned int lvl = 0;
	pte_t *e = lookup_pte(va, &lvl);

	if (level)
		*level = lvl;
	return e ? *e : 0;
}

void paging_unmap_kernel_page(unsigned long va)
{
	unsigned int level;
	pte_t *e = lookup_pte(va, &level);

	BUG_ON(!e || level != 1);
	*e = 0;
	invlpg(va);
}

void *ioremap(phys_addr_t phys, size_t size)
{
	u64 offset = phys & ~PAGE_MASK;
	u64 p = phys & PAGE_MASK;
	unsigned long va = ioremap_next;
	unsigned long span = ALIGN_UP(offset + size, PAGE_SIZE);
	unsigned long i;

	if (va + span > IOREMAP_BASE + IOREMAP_SIZE)
		panic("ioremap: MMIO window full mapping %#lx (+%zu)",
		      (unsigned long)phys, size);
	for (i = 0; i < span; i += PAGE_SIZE)
		map_page_4k(va + i, p + i, PTE_WRITE | PTE_PCD | PTE_PWT | nx());
	ioremap_next += span;
	return (void *)(va + offset);
}

void paging_map_identity_page(phys_addr_t phys)
{
	map_page_4k(phys, phys, 0);   /* read-only, executable */
	invlpg(phys);
}

void paging_unmap_identity_page(phys_addr_t phys)
{
	unsigned int level;
	pte_t *e = lookup_pte(phys, &level);

	if (e && level == 1) {
		*e = 0;
		invlpg(phys);
	}
}

/* ---- the memmap at VMEMMAP_BASE (the hooks of include/mm.h) ---- */

struct page *vmemmap_reserve(unsigned long end_pfn)
{
	if (end_pfn > VMEMMAP_SIZE / sizeof(struct page))
		return NULL;
	return (struct page *)VMEMMAP_BASE;
}

/* The next-level table under table[index], created from node nid's
 * memory if absent (NULL: memblock has none left). */
static pte_t *vmemmap_table(pte_t *table, unsigned int index, int nid)
{
	if (!(table[index] & PTE_PRESENT)) {
		phys_addr_t phys = memblock_alloc_try_nid(PAGE_SIZE, PAGE_SIZE,
							  nid);

		if (!phys) {
			pr_err("paging: no memory for a memmap page table\n");
			return NULL;
		}
		memset(phys_to_virt(phys), 0, PAGE_SIZE);
		table[index] = phys | PTE_PRESENT | PTE_WRITE;
	}
	BUG_ON(table[index] & PTE_HUGE);
	return table_virt(table[index]);
}

bool vmemmap_map(unsigned long start, unsigned long end, phys_addr_t phys,
		 int nid)
{
	u64 flags = PTE_PRESENT | PTE_WRITE | PTE_GLOBAL | nx();

	BUG_ON(start < VMEMMAP_BASE || end > VMEMMAP_BASE + VMEMMAP_SIZE ||
	       !IS_ALIGNED(start, PAGE_SIZE) || !IS_ALIGNED(phys, PAGE_SIZE));
	while (start < end) {
		pte_t *pdpt = vmemmap_table(kernel_pml4, PML4_INDEX(start), nid);
		pte_t *pd = pdpt ? vmemmap_table(pdpt, PDPT_INDEX(start), nid)
				 : NULL;
		pte_t *pt;

		if (!pd)
			return false;
		/* A whole aligned 2 MiB on both sides: one large page. */
		if (IS_ALIGNED(start, PAGE_2M) && IS_ALIGNED(phys, PAGE_2M) &&
		    end - start >= PAGE_2M &&
		    !(pd[PD_INDEX(start)] & PTE_PRESENT)) {
			pd[PD_INDEX(start)] = phys | flags | PTE_HUGE;
			start += PAGE_2M;
			phys += PAGE_2M;
			continue;
		}
		pt = vmemmap_table(pd, PD_INDEX(start), nid);
		if (!pt)
			return false;
		pt[PT_INDEX(start)] = phys | flags;
		start += PAGE_SIZE;
		phys += PAGE_SIZE;
	}
	return true;
}

bool vmemmap_lookup(const void *addr, phys_addr_t *phys)
{
	unsigned long va = (unsigned long)addr;
	unsigned int level;
	pte_t *e;
	u64 span;

	if (va - VMEMMAP_BASE >= VMEMMAP_SIZE)
		return false;
	e = lookup_pte(va, &level);
	if (!e || !(*e & PTE_PRESENT) || level > 2)
		return false;
	span = level == 2 ? PAGE_2M : PAGE_SIZE;
	*phys = (*e & PTE_ADDR_MASK & ~(span - 1)) + (va & (span - 1));
	return true;
}

void vmemmap_release(void)
{
	/* Never called: mm_exit_nodes() is for the host tests. */
}

u64 paging_kernel_cr3(void)
{
	return table_phys(kernel_pml4);
}

/* ---- the W^X audit (see paging.h) ---- */

#define LEVEL_PML4 4
#define LEVEL_PT   1
#define PT_INDEX_BITS 9
#define VA_SIGN_EXTEND 0xffff000000000000ul  /* bits 63:48 of a high VA */
#define PML4_FIRST_HIGH (PT_ENTRIES / 2)      /* index whose VA has bit 47 */

/* One pass of the walk: collect executable ranges, or judge writable ones. */
enum wx_pass {
	WX_PASS_FIND_EXEC,
	WX_PASS_CHECK_WRITABLE,
};

/* Bytes one entry maps at `level` (1 = PT, 2 = PD, 3 = PDPT, 4 = PML4). */
static u64 level_span(unsigned int level)
{
	return PAGE_SIZE << (PT_INDEX_BITS * (level - 1));
}

static u64 overlap_bytes(u64 a, u64 a_end, u64 b, u64 b_end)
{
	u64 lo = a > b ? a : b;
	u64 hi = a_end < b_end ? a_end : b_end;

	return hi > lo ? hi - lo : 0;
}

static void wx_note_bad(struct wx_audit *a, const char *what,
			unsigned long va, u64 phys)
{
	if (a->first_bad_what)
		return;
	a->first_bad_what = what;
	a->first_bad_va = va;
	a->first_bad_phys = phys;
}

static void wx_add_exec(struct wx_audit *a, u64 phys, u64 end)
{
	struct phys_range *last = a->nr_exec ? &a->exec[a->nr_exec - 1] : NULL;

	if (last && last->end == phys) {
		last->end = end;
		return;
	}
	if (a->nr_exec == WX_AUDIT_MAX_EXEC_RANGES) {
		a->exec_ranges_lost++;
		return;
	}
	a->exec[a->nr_exec].start = phys;
	a->exec[a->nr_exec].end = end;
	a->nr_exec++;
}

/* The image's read-only physical pages: text, rodata, kallsyms. */
static u64 ro_image_overlap(u64 phys, u64 end)
{
	u64 text = virt_to_phys(__text_start);
	u64 rodata_end = ALIGN_UP(virt_to_phys(__rodata_end), PAGE_SIZE);

	return overlap_bytes(phys, end, text, rodata_end) +
	       overlap_bytes(phys, end, virt_to_phys(__kallsyms_start),
			     virt_to_phys(__kallsyms_end));
}

static void wx_leaf(struct wx_audit *a, enum wx_pass pass, unsigned long va,
		    u64 phys, u64 size, u64 rights)
{
	bool writable = rights & PTE_WRITE;
	bool executable = !cpu_has_nx || !(rights & PTE_NX);
	u64 end = phys + size;
	u64 bytes = 0;
	unsigned int i;

	if (pass == WX_PASS_FIND_EXEC) {
		a->leaves++;
		if (executable) {
			a->exec_pages += size / PAGE_SIZE;
			wx_add_exec(a, phys, end);
		}
		if (writable && executable) {
			a->wx_pages += size / PAGE_SIZE;
			wx_note_bad(a, "writable and executable", va, phys);
		}
		return;
	}
	if (!writable)
		return;
	bytes = ro_image_overlap(phys, end);
	if (bytes) {
		a->ro_alias_pages += bytes / PAGE_SIZE;
		wx_note_bad(a, "writable alias of kernel text/rodata", va, phys);
	}
	if (executable)
		return;   /* counted as W+X already */
	for (i = 0, bytes = 0; i < a->nr_exec; i++)
		bytes += overlap_bytes(phys, end, a->exec[i].start,
				       a->exec[i].end);
	if (bytes) {
		a->exec_alias_pages += bytes / PAGE_SIZE;
		wx_note_bad(a, "writable alias of an executable page", va, phys);
	}
}

/*
 * `rights` is what the levels above grant: PTE_WRITE if every one of them
 * allows writes, PTE_NX if any of them forbids execution.
 */
static void wx_walk(struct wx_audit *a, enum wx_pass pass, u64 table_phys,
		    unsigned int level, unsigned long va_base, u64 rights)
{
	const pte_t *t = phys_to_virt(table_phys & PTE_ADDR_MASK);
	u64 span = level_span(level);
	unsigned int i;

	for (i = 0; i < PT_ENTRIES; i++) {
		pte_t e = t[i];
		unsigned long va = va_base + i * span;
		u64 r = (rights & e & PTE_WRITE) | ((rights | e) & PTE_NX);

		if (!(e & PTE_PRESENT))
			continue;
		if (level == LEVEL_PML4 && i >= PML4_FIRST_HIGH)
			va |= VA_SIGN_EXTEND;
		/* PTE_HUGE means a leaf only in a PDPT or a PD entry (in a
		 * PT entry the same bit is PAT). */
		if (level == LEVEL_PT || (level < LEVEL_PML4 && (e & PTE_HUGE))) {
			/* Bit 12 of a huge entry is PAT, not address. */
			wx_leaf(a, pass, va, e & PTE_ADDR_MASK & ~(span - 1),
				span, r);
			continue;
		}
		wx_walk(a, pass, e, level - 1, va, r);
	}
}

void paging_audit_wx(u64 root_phys, struct wx_audit *a)
{
	memset(a, 0, sizeof(*a));
	wx_walk(a, WX_PASS_FIND_EXEC, root_phys, LEVEL_PML4, 0, PTE_WRITE);
	wx_walk(a, WX_PASS_CHECK_WRITABLE, root_phys, LEVEL_PML4, 0, PTE_WRITE);
}

bool wx_audit_clean(const struct wx_audit *a)
{
	return !a->wx_pages && !a->ro_alias_pages && !a->exec_alias_pages &&
	       !a->exec_ranges_lost;
}

void wx_audit_print(const char *when, const struct wx_audit *a)
{
	if (wx_audit_clean(a)) {
		pr_info("paging: W^X audit (%s): %lu executable pages, none writable anywhere\n",
			when, a->exec_pages);
		return;
	}
	pr_err("paging: W^X audit (%s): %lu W+X pages, %lu writable pages of text/rodata, %lu writable aliases of executable pages%s; first: %s at %#lx (phys %#lx)\n",
	       when, a->wx_pages, a->ro_alias_pages, a->exec_alias_pages,
	       a->exec_ranges_lost ? ", executable ranges lost" : "",
	       a->first_bad_what ? a->first_bad_what : "too many executable ranges",
	       a->first_bad_va, (unsigned long)a->first_bad_phys);
}
