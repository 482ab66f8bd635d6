/*
 * memblock.h - the boot-time memory allocator: ranges of memory and of
 * reservations, before the buddy allocator exists.
 *
 * Two sorted lists of physical ranges:
 *   memory   - RAM the firmware says we may use (page-aligned, merged, with
 *              the PCI hole taken out);
 *   reserved - parts of that RAM that are already spoken for: the first
 *              MiB, the kernel image, the multiboot2 block, GRUB modules,
 *              ranges the firmware marks reserved/ACPI/NVS/bad, and
 *              whatever memblock_alloc() handed out (the memmap).
 * Free memory is memory minus reserved.  At the end of boot mm_core_init()
 * gives every free range to the buddy allocator and memblock is done.
 *
 * Invariants, after every call: each list is sorted by base, its ranges do
 * not overlap and are not adjacent (neighbours are merged), and every range
 * in `memory` is page-aligned.  Reserved ranges are rounded out to pages.
 *
 * Locking: none.  memblock runs on the boot CPU before any other CPU or
 * interrupt exists; nothing may call it after mm_core_init().
 */
#ifndef MEMBLOCK_H
#define MEMBLOCK_H

#include <types.h>

#define MEMBLOCK_MAX_REGIONS 128

/* The highest physical address we accept (x86-64: 52 address bits). */
#define MEMBLOCK_MAX_PHYS (1ull << 52)

/* The 32-bit PCI hole: MMIO (PCI BARs, I/O APIC at 0xfec00000, local APIC
 * at 0xfee00000, firmware flash below 4 GiB), never RAM on a PC.  QEMU puts
 * RAM below 0xe0000000 on both its pc and q35 machines. */
#define PCI_HOLE_START 0xe0000000ull
#define PCI_HOLE_END   SZ_4G

/*
 * The least free memory (after reservations) the kernel agrees to run on,
 * and the least RAM that leaves it under QEMU (MEM=16M): the first MiB and
 * the kernel image (about 7 MiB, most of it boot stacks and tables in .bss)
 * are reserved.  A self-test that needs more than this free at once skips
 * (tests/kernel/memory_need.h).  e820.c panics, naming both, with less.
 */
#define MEMBLOCK_MIN_FREE (8ull << 20)
#define MEMORY_MIN_MIB 16

struct memblock_region {
	u64 base;
	u64 size;
};

struct memblock_type {
	const char *name;
	unsigned int cnt;
	unsigned int dropped;   /* ranges lost because the array was full */
	struct memblock_region regions[MEMBLOCK_MAX_REGIONS];
};

struct memblock {
	struct memblock_type memory;
	struct memblock_type reserved;
};

extern struct memblock memblock;

/* Firmware memory map entry types: the BIOS E820 numbers, which multiboot2
 * uses too (Multiboot2 spec 3.6.8; ACPI spec 15, "System Address Map"). */
#define E820_TYPE_RAM      1
#define E820_TYPE_RESERVED 2
#define E820_TYPE_ACPI     3
#define E820_TYPE_NVS      4
#define E820_TYPE_UNUSABLE 5

struct fw_mmap_entry {
	u64 base;
	u64 length;
	u32 type;
};

/* What memblock_add_firmware_map() did with a map, for the log and tests. */
struct memblock_map_stats {
	unsigned int used;        /* RAM entries that contributed memory */
	unsigned int ignored;     /* entries dropped entirely */
	unsigned int trimmed;     /* RAM entries cut to page boundaries or
				   * to the physical address limit */
	unsigned int overlaps;    /* RAM entries overlapping earlier RAM */
	unsigned int fw_reserved; /* non-RAM entries reserved over RAM */
	u64 ignored_bytes;        /* RAM lost to the above */
	u64 pci_hole_bytes;       /* "RAM" removed from the PCI hole */
};

void memblock_reset(void);
bool memblock_add(u64 base, u64 size);
bool memblock_remove(u64 base, u64 size);
bool memblock_reserve(u64 base, u64 size);

/*
 * Sanitize a firmware memory map and add it: RAM entries (any order, any
 * overlap) are page-trimmed and merged into `memory`, the PCI hole is cut
 * out, and non-RAM entries that overlap RAM are reserved.  Every entry that
 * is ignored or clipped is reported with pr_warn().
 */
void memblock_add_firmware_map(const struct fw_mmap_entry *map,
			       unsigned int nr,
			       struct memblock_map_stats *stats);

/* Take `size` bytes aligned to `align` (a power of two) from free memory in
 * [min, max), highest address first, and reserve it.  0 on failure (so
 * address 0 is never handed out). */
phys_addr_t memblock_alloc_range(u64 size, u64 align, u64 min, u64 max);
phys_addr_t memblock_alloc(u64 size, u64 align);

/* Walk free memory (memory minus reserved) in address order: start with
 * *cursor = 0; each call returns the next free range [*start, *end). */
bool memblock_next_free_range(u64 *cursor, u64 *start, u64 *end);

u64 memblock_phys_mem_size(void);   /* bytes in `memory` */
u64 memblock_reserved_size(void);   /* bytes of `reserved` inside memory */
u64 memblock_free_size(void);       /* memory minus reserved */
u64 memblock_start_of_DRAM(void);
/* The first address of memory (RAM) in [from, to), or to if none. */
u64 memblock_first_memory(u64 from, u64 to);
u64 memblock_end_of_DRAM(void);

void memblock_dump(void);

#endif /* MEMBLOCK_H */
