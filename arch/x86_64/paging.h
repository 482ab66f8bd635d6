/*
 * paging.h - the kernel's final page tables.
 */
#ifndef ARCH_X86_64_PAGING_H
#define ARCH_X86_64_PAGING_H

#include <types.h>

/* Page-table entry bits (SDM vol. 3A, 4.5, tables 4-15 to 4-20). */
#define PTE_PRESENT  (1ul << 0)
#define PTE_WRITE    (1ul << 1)
#define PTE_PWT      (1ul << 3)
#define PTE_PCD      (1ul << 4)
#define PTE_HUGE     (1ul << 7)    /* 2 MiB in a PD entry, 1 GiB in a PDPT */
#define PTE_GLOBAL   (1ul << 8)
#define PTE_NX       (1ul << 63)
#define PTE_ADDR_MASK 0x000ffffffffff000ul

#define PAGE_2M (1ul << 21)
#define PAGE_1G (1ul << 30)

/*
 * Build the direct map of every range in `ranges` (physical [start, end)),
 * map the kernel image with per-section permissions, and switch CR3.
 */
struct phys_range {
	u64 start, end;
};
void paging_init(const struct phys_range *ranges, unsigned int nr);

void paging_unmap_kernel_page(unsigned long va);
/* Map a physical MMIO range uncached; returns its virtual address. */
void *ioremap(phys_addr_t phys, size_t size);
/* Identity-map one low page (the AP trampoline), executable. */
void paging_map_identity_page(phys_addr_t phys);
void paging_unmap_identity_page(phys_addr_t phys);
/* Walk the tables: the PTE bits mapping va (0 if unmapped). */
u64 paging_lookup(unsigned long va, unsigned int *level);
u64 paging_kernel_cr3(void);

extern bool cpu_has_nx, cpu_has_1g_pages;
extern u64 direct_map_bytes;

#endif
