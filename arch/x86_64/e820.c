/*
 * e820.c - from what GRUB told us to memblock: the PC memory map, plus the
 * ranges the kernel knows are taken.
 *
 * multiboot2 hands over the BIOS E820 map (the same type numbers).  We give
 * it to memblock_add_firmware_map(), which trusts none of it (see
 * mm/memblock.c), then reserve:
 *   [0, 1 MiB)        real-mode IVT, BIOS data, EBDA, VGA, option ROMs,
 *                     and later the AP trampoline;
 *   the kernel image  __kernel_phys_start .. __kernel_phys_end (linker.ld),
 *                     which includes .bss (boot page tables, stacks);
 *   the multiboot2 information block and every GRUB module.
 * Then it checks that enough is left to run on, and prints the result.
 *
 * Boot CPU, before interrupts: no locking.
 */
#include <kernel.h>
#include <memblock.h>
#include <printk.h>
#include "multiboot2.h"
#include "e820.h"

#define LOW_MEMORY_END 0x100000ull   /* 1 MiB */

extern char __kernel_phys_start[], __kernel_phys_end[];

/*
 * Too little memory ends here, in one line, before anything allocates:
 * later, every allocation of the boot and of the tests would fail one by
 * one.  The line says how much RAM there is, how much of it is free after
 * the reservations, what the kernel needs free (MEMBLOCK_MIN_FREE), and
 * how much more RAM that takes.
 */
static void check_minimum_memory(void)
{
	u64 free = memblock_free_size();

	if (free >= MEMBLOCK_MIN_FREE)
		return;
	panic("memory: too little to run: %lu KiB of RAM, %lu KiB of it free after the first MiB, the kernel and GRUB's data; this kernel needs %lu KiB free (MEM=%luM or more), %lu KiB more",
	      (unsigned long)(memblock_phys_mem_size() >> 10),
	      (unsigned long)(free >> 10),
	      (unsigned long)(MEMBLOCK_MIN_FREE >> 10),
	      (unsigned long)(MEMORY_MIN_MIB),
	      (unsigned long)((MEMBLOCK_MIN_FREE - free) >> 10));
}

void e820__memblock_setup(void)
{
	static struct fw_mmap_entry map[BOOT_MMAP_MAX];
	struct memblock_map_stats st;
	unsigned int i;

	memblock_reset();
	for (i = 0; i < boot_info.nr_mmap; i++) {
		map[i].base = boot_info.mmap[i].base;
		map[i].length = boot_info.mmap[i].length;
		map[i].type = boot_info.mmap[i].type;
	}
	if (boot_info.mmap_dropped)
		pr_warn("e820: %u memory map entries beyond the first %u ignored\n",
			boot_info.mmap_dropped, BOOT_MMAP_MAX);
	memblock_add_firmware_map(map, boot_info.nr_mmap, &st);
	pr_info("e820: %u usable entries, %u ignored, %u trimmed, %u overlapping, %u firmware ranges reserved\n",
		st.used, st.ignored, st.trimmed, st.overlaps, st.fw_reserved);

	memblock_reserve(0, LOW_MEMORY_END);
	memblock_reserve((u64)(uintptr_t)__kernel_phys_start,
			 (u64)(uintptr_t)__kernel_phys_end -
			 (u64)(uintptr_t)__kernel_phys_start);
	memblock_reserve(boot_info.info_phys, boot_info.info_size);
	for (i = 0; i < boot_info.nr_modules; i++)
		memblock_reserve(boot_info.modules[i].start,
				 boot_info.modules[i].end -
				 boot_info.modules[i].start);
	pr_info("e820: reserved the first 1 MiB, the kernel [%#lx-%#lx), multiboot2 info [%#lx +%u], %u modules\n",
		(unsigned long)(uintptr_t)__kernel_phys_start,
		(unsigned long)(uintptr_t)__kernel_phys_end,
		(unsigned long)boot_info.info_phys, boot_info.info_size,
		boot_info.nr_modules);
	memblock_dump();

	check_minimum_memory();
}
