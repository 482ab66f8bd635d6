/*
 * multiboot2.h - what GRUB told us, copied out of its information block.
 *
 * The tag numbers and layouts are those of the Multiboot2 specification,
 * section 3.6 ("Boot information format").
 *
 * Two firmwares, one reader: under a BIOS, GRUB passes the E820 map (tag
 * 6) and the ACPI 1.0 RSDP (tag 14); under UEFI it also passes the EFI
 * system table (tag 12), the firmware's own memory map (tag 17) and the
 * ACPI 2.0 RSDP (tag 15).  The EFI map is preferred when it is there and
 * sound (efi_mmap.c converts it); the E820-style tag is the fallback.
 */
#ifndef ARCH_X86_64_MULTIBOOT2_H
#define ARCH_X86_64_MULTIBOOT2_H

#include <types.h>

#define MB2_BOOTLOADER_MAGIC 0x36d76289

#define MB2_TAG_END       0
#define MB2_TAG_CMDLINE   1
#define MB2_TAG_LOADER    2
#define MB2_TAG_MODULE    3
#define MB2_TAG_MMAP      6
#define MB2_TAG_ACPI_OLD  14
#define MB2_TAG_ACPI_NEW  15
#define MB2_TAG_EFI32     11   /* EFI 32-bit system table pointer */
#define MB2_TAG_EFI64     12   /* EFI 64-bit system table pointer */
#define MB2_TAG_EFI_MMAP  17   /* the EFI memory map (efi_mmap.h) */
#define MB2_TAG_EFI_BS    18   /* boot services were not exited */

/* Memory map entry types (spec 3.6.8), the same as the BIOS E820 types. */
#define MB2_MEMORY_AVAILABLE        1
#define MB2_MEMORY_RESERVED         2
#define MB2_MEMORY_ACPI_RECLAIMABLE 3
#define MB2_MEMORY_NVS              4
#define MB2_MEMORY_BADRAM           5

#define BOOT_MMAP_MAX    128
#define BOOT_CMDLINE_MAX 2048 /* bytes of command line kept, NUL included */
#define BOOT_MODULES_MAX 8
#define BOOT_RSDP_MAX    36   /* an ACPI 2.0 RSDP is 36 bytes */

struct boot_mmap_entry {
	u64 base;
	u64 length;
	u32 type;
};

struct boot_module {
	u64 start, end;
};

/* Which firmware started GRUB: UEFI when GRUB passed an EFI system table. */
enum boot_firmware {
	BOOT_FIRMWARE_BIOS,
	BOOT_FIRMWARE_UEFI,
};

/* Where boot_info.mmap came from. */
enum boot_mmap_source {
	BOOT_MMAP_NONE,
	BOOT_MMAP_E820,       /* tag 6: the BIOS E820 map, or GRUB's
				 translation of the EFI map */
	BOOT_MMAP_EFI,        /* tag 17: the firmware's own EFI map */
};

struct boot_info {
	phys_addr_t info_phys;        /* the information block itself */
	u32 info_size;
	const char *cmdline;          /* at most BOOT_CMDLINE_MAX - 1 bytes */
	size_t cmdline_len;           /* as the boot loader gave it */
	const char *loader_name;
	struct boot_mmap_entry mmap[BOOT_MMAP_MAX];
	unsigned int nr_mmap;
	unsigned int mmap_dropped;    /* entries beyond BOOT_MMAP_MAX */
	struct boot_module modules[BOOT_MODULES_MAX];
	unsigned int nr_modules;
	u8 rsdp[BOOT_RSDP_MAX];       /* copy of the ACPI RSDP, if given */
	unsigned int rsdp_len;        /* 0: GRUB gave none */
	bool rsdp_is_v2;
	enum boot_firmware firmware;
	u64 efi_system_table;         /* physical; 0 under BIOS */
	bool efi_boot_services;       /* GRUB left them running (tag 18) */
	enum boot_mmap_source mmap_source;
	bool efi_mmap_refused;        /* tag 17 came but was not usable */
	unsigned int efi_nr_desc;     /* descriptors in tag 17 */
	unsigned int efi_runtime;     /* of them, kept for runtime services */
	u64 efi_boot_services_bytes;  /* boot-services memory made usable */
};

extern struct boot_info boot_info;

/*
 * Parse the block at `info` (identity- or direct-mapped, as the caller
 * says by passing a usable pointer).  Returns false with a message when the
 * magic or the block is bad.
 */
bool multiboot2_parse(u32 magic, const void *info, phys_addr_t info_phys);
const char *mb2_memory_type_name(u32 type);

#endif
