/*
 * efi_mmap.h - the UEFI memory map, as GRUB hands it over, turned into the
 * PC memory map the rest of the kernel reads (struct boot_mmap_entry).
 *
 * Booted by UEFI firmware, GRUB calls ExitBootServices() for us and passes
 * the firmware's final memory map in a multiboot2 tag (type 17, spec
 * 3.6.13): a u32 descriptor size and a u32 descriptor version, then the
 * descriptors, each an EFI_MEMORY_DESCRIPTOR (UEFI 2.10, 7.2, GetMemoryMap()):
 * u32 type, u32 padding, u64 physical start, u64 virtual start, u64 number
 * of 4 KiB pages, u64 attributes.  The firmware may make descriptors
 * larger than that (the size field says by how much): we step by the size
 * given and read only the fields we know.
 *
 * How each EFI type becomes a PC (E820) type, the policy in one table
 * (efi_memory_type_to_e820()):
 *   conventional, loader code/data,
 *   boot-services code/data            -> usable: boot services have exited,
 *                                         so their memory is free RAM (the
 *                                         kernel image and GRUB's block,
 *                                         which sit in loader data, are
 *                                         reserved by e820.c on their own);
 *   runtime-services code/data         -> reserved: the firmware's runtime
 *                                         still lives there;
 *   ACPI reclaim                       -> ACPI data (the tables: never
 *                                         reclaimed by this kernel);
 *   ACPI NVS                           -> ACPI NVS (never ours);
 *   unusable                           -> bad RAM;
 *   MMIO, port space, PAL code,
 *   persistent, reserved, unknown      -> reserved.
 * Any descriptor with the EFI_MEMORY_RUNTIME attribute is reserved too,
 * whatever its type: the firmware asked to keep it mapped at run time.
 * Neighbouring descriptors that end up the same PC type are merged, so
 * OVMF's hundred-odd descriptors become a map of a dozen ranges.
 *
 * The contract of efi_mmap_parse_tag(), like srat.h's parsers:
 *   - it reads only bytes [0, len) of the tag, whatever the tag's own size
 *     and descriptor size say;
 *   - a map it cannot trust at all (tag cut short of its header, a
 *     descriptor size smaller than EFI_MEMORY_DESCRIPTOR, an unknown
 *     descriptor version, no descriptor left) is refused whole, with one
 *     line naming what and where, and the caller falls back to GRUB's
 *     e820-style map tag;
 *   - a single bad descriptor (a start not on a page, a range that wraps
 *     past 2^64) is skipped with a line naming its index; descriptors that
 *     overlap are kept and the first such pair is named (memblock then
 *     lets the type that is not RAM win over the overlap);
 *   - the last warning line is kept for the host tests
 *     (efi_mmap_last_warning()).
 * Portable C (no direct map, no memlayout): the same file builds into the
 * kernel and into the host tests (tests/host/test_boot_firmware.c).
 * Boot CPU only, before anything else runs: no locks.
 */
#ifndef ARCH_X86_64_EFI_MMAP_H
#define ARCH_X86_64_EFI_MMAP_H

#include <types.h>
#include "multiboot2.h"

/* The tag's header: type, size, descriptor size, descriptor version. */
#define EFI_MMAP_TAG_HEADER_LEN  16
/* EFI_MEMORY_DESCRIPTOR as UEFI 2.10 (7.2) defines it, version 1. */
#define EFI_MEMORY_DESC_LEN      40
#define EFI_MEMORY_DESC_VERSION  1
#define EFI_PAGE_SHIFT           12

/* EFI_MEMORY_TYPE (UEFI 2.10, table 7.6). */
#define EFI_RESERVED_TYPE             0
#define EFI_LOADER_CODE               1
#define EFI_LOADER_DATA               2
#define EFI_BOOT_SERVICES_CODE        3
#define EFI_BOOT_SERVICES_DATA        4
#define EFI_RUNTIME_SERVICES_CODE     5
#define EFI_RUNTIME_SERVICES_DATA     6
#define EFI_CONVENTIONAL_MEMORY       7
#define EFI_UNUSABLE_MEMORY           8
#define EFI_ACPI_RECLAIM_MEMORY       9
#define EFI_ACPI_MEMORY_NVS           10
#define EFI_MEMORY_MAPPED_IO          11
#define EFI_MEMORY_MAPPED_IO_PORT_SPACE 12
#define EFI_PAL_CODE                  13
#define EFI_PERSISTENT_MEMORY         14
#define EFI_UNACCEPTED_MEMORY         15

/* Memory attribute: keep mapped for runtime services (UEFI 2.10, 7.2). */
#define EFI_MEMORY_RUNTIME  (1ull << 63)

/* What one conversion did, for the boot log and the tests. */
struct efi_mmap_stats {
	unsigned int nr_desc;       /* whole descriptors in the tag */
	unsigned int skipped;       /* bad descriptors left out */
	unsigned int empty;         /* descriptors of no pages */
	unsigned int overlaps;      /* pairs of descriptors that overlap */
	unsigned int runtime;       /* kept reserved for runtime services */
	unsigned int dropped;       /* ranges beyond `max` */
	u64 boot_services_bytes;    /* boot-services memory made usable */
};

/*
 * Convert the EFI memory map tag at `tag` (len bytes readable) into at
 * most `max` entries at `out`; *nr_out is how many.  Returns false (the
 * map refused whole, one warning printed, *nr_out 0) or true.
 */
bool efi_mmap_parse_tag(const void *tag, size_t len,
			struct boot_mmap_entry *out, unsigned int max,
			unsigned int *nr_out, struct efi_mmap_stats *st);

/* The PC memory type of an EFI descriptor (policy above). */
u32 efi_memory_type_to_e820(u32 efi_type, u64 attribute);
/* The EFI type's name, for messages ("boot-services data"). */
const char *efi_memory_type_name(u32 efi_type);

/* The last warning of the last call, without its newline; "" if none. */
const char *efi_mmap_last_warning(void);

#endif
