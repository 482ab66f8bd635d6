/*
 * memlayout.h - where things live in the virtual address space.
 *
 *   0xffff888000000000  DIRECT_MAP_BASE: all physical memory, mapped 1:1
 *                       (phys_to_virt(p) == p + DIRECT_MAP_BASE), read-write
 *                       except the image's text, rodata and kallsyms
 *                       (read-only), never executable.  The same base as
 *                       Linux x86-64.
 *   0xffffc90000000000  IOREMAP_BASE (arch/x86_64/paging.c): MMIO, uncached.
 *   0xffffea0000000000  VMEMMAP_BASE: the memmap, struct page of frame
 *                       pfn at VMEMMAP_BASE + pfn * 64, backed from each
 *                       node's own memory (mm/mm_init.c), read-write,
 *                       never executable.  VMEMMAP_SIZE (1 TiB) covers
 *                       64 TiB of physical addresses.  Linux's vmemmap
 *                       base.
 *   0xffffffff80000000  KERNEL_VMA: physical address 0 as the kernel image
 *                       sees it; the image is loaded at KERNEL_LOAD_PHYS and
 *                       runs at KERNEL_VMA + KERNEL_LOAD_PHYS (-mcmodel=kernel
 *                       needs the top 2 GiB).
 *
 * Code that needs a page's address uses the direct map; only the boot path
 * and the linker script care about KERNEL_VMA.  The host build of mm/
 * shadows this header: its "physical memory" is a malloc'd arena.
 */
#ifndef MEMLAYOUT_H
#define MEMLAYOUT_H

#include <types.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE  (1ul << PAGE_SHIFT)
#define PAGE_MASK  (~(PAGE_SIZE - 1))

#define DIRECT_MAP_BASE   0xffff888000000000ul
#define KERNEL_VMA        0xffffffff80000000ul
#define KERNEL_LOAD_PHYS  0x200000ul
#define VMEMMAP_BASE      0xffffea0000000000ul
#define VMEMMAP_SIZE      (1ul << 40)

static inline void *phys_to_virt(phys_addr_t p)
{
	return (void *)(p + DIRECT_MAP_BASE);
}

static inline phys_addr_t virt_to_phys(const void *v)
{
	unsigned long a = (unsigned long)v;

	/* Addresses in the kernel image translate through KERNEL_VMA. */
	if (a >= KERNEL_VMA)
		return a - KERNEL_VMA;
	return a - DIRECT_MAP_BASE;
}

/*
 * virt_to_phys() for an address known to be in the direct map (kmalloc()
 * memory always is): one subtraction.  Anything else yields a frame number
 * no memmap covers, which pfn_valid() then refuses.
 */
static inline phys_addr_t __pa_direct(const void *v)
{
	return (unsigned long)v - DIRECT_MAP_BASE;
}

#endif /* MEMLAYOUT_H */
