/*
 * Host shadow of include/memlayout.h.  The host tests' "physical memory" is
 * an arena from aligned_alloc(); host_direct_map_base is chosen so that the
 * arena's first byte has the physical address the test asked for, and
 * phys_to_virt()/virt_to_phys() keep their kernel meaning.
 */
#ifndef MEMLAYOUT_H
#define MEMLAYOUT_H

#include <types.h>

#define PAGE_SHIFT 12
#define PAGE_SIZE  (1ul << PAGE_SHIFT)
#define PAGE_MASK  (~(PAGE_SIZE - 1))

/* The memmap's virtual room has the kernel's limit (include/memlayout.h):
 * struct pages for 64 TiB of physical addresses. */
#define VMEMMAP_SIZE (1ul << 40)

extern unsigned long host_direct_map_base;

static inline void *phys_to_virt(phys_addr_t p)
{
	return (void *)(p + host_direct_map_base);
}

static inline phys_addr_t virt_to_phys(const void *v)
{
	return (unsigned long)v - host_direct_map_base;
}

static inline phys_addr_t __pa_direct(const void *v)
{
	return (unsigned long)v - host_direct_map_base;
}

#endif /* MEMLAYOUT_H */
