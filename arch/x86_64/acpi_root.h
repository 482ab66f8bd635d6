/*
 * acpi_root.h - the two structures every ACPI walk starts from, checked:
 * the RSDP and the root table it points at (the XSDT, or the RSDT).
 *
 * ACPI 6.5, 5.2.5.3: the RSDP ("RSD PTR ") has a checksum over its first
 * 20 bytes (all an ACPI 1.0 RSDP has); from revision 2 (ACPI 2.0) on it
 * also has a length, the 64-bit address of the XSDT and an extended
 * checksum over all `length` bytes.  UEFI firmware hands over a revision 2
 * RSDP (GRUB's multiboot2 tag 15, "ACPI new"), SeaBIOS a revision 0 one
 * (tag 14).  5.2.7 and 5.2.8: the RSDT and the XSDT are a 36-byte table
 * header and then an array of 4-byte (RSDT) or 8-byte (XSDT) physical
 * addresses of the other tables; the XSDT's are not 8-byte aligned (they
 * start at byte 36), so they are read with memcpy.
 *
 * Both checks are plain byte arithmetic over a buffer of `len` readable
 * bytes (no direct map), so acpi.c uses them on the firmware's tables and
 * tests/host/test_boot_firmware.c on tables built byte by byte, cut and
 * corrupted, under ASan.  Neither prints: each fills `why` with one line
 * naming what is wrong (and the numbers that show it) and the caller
 * decides whether to print it (acpi.c scans the BIOS area with the same
 * check, where nearly every candidate fails).  A caller adds where the
 * structure was.
 */
#ifndef ARCH_X86_64_ACPI_ROOT_H
#define ARCH_X86_64_ACPI_ROOT_H

#include <types.h>

#define ACPI_RSDP_SIGNATURE   "RSD PTR "
#define ACPI_RSDP_V1_LEN      20
#define ACPI_RSDP_V2_LEN      36
#define ACPI_RSDP_REVISION_2  2    /* ACPI 2.0 and later */
#define ACPI_SDT_HEADER_LEN   36
#define ACPI_OEM_ID_LEN       6
#define ACPI_WHY_MAX          200  /* bytes of a `why` line, NUL included */

/* What a good RSDP says. */
struct acpi_root {
	u8 revision;                  /* 0: ACPI 1.0; 2: ACPI 2.0 or later */
	char oem_id[ACPI_OEM_ID_LEN + 1];
	u32 rsdt_phys;
	u64 xsdt_phys;                /* 0 below revision 2 */
	u32 length;                   /* bytes the checksums covered */
};

/* A good root table's entries. */
struct acpi_sdt_view {
	const u8 *entries;            /* the first address */
	unsigned int nr;              /* addresses in the table */
	unsigned int entry_size;      /* 8 (XSDT) or 4 (RSDT) */
	unsigned int nr_null;         /* entries that are 0 (skipped) */
};

/*
 * The RSDP at p, of which len bytes may be read.  true: *out filled.
 * false: `why` (ACPI_WHY_MAX bytes) says what is wrong.  A revision 2
 * RSDP whose extended checksum fails is refused whole, even when its
 * ACPI 1.0 part is good: the firmware wrote it wrong.
 */
bool acpi_rsdp_check(const void *p, size_t len, struct acpi_root *out,
		     char *why);

/*
 * The root table at p (XSDT when is_xsdt, else RSDT), len bytes readable:
 * signature, length, checksum and a whole number of addresses.  true:
 * *out filled.  false: `why` says what is wrong.
 */
bool acpi_sdt_check(const void *p, size_t len, bool is_xsdt,
		    struct acpi_sdt_view *out, char *why);

/* Address i (< view->nr) of a checked root table. */
u64 acpi_sdt_entry(const struct acpi_sdt_view *view, unsigned int i);

/* "ACPI 1.0" or "ACPI 2.0+" for an RSDP revision. */
const char *acpi_revision_name(u8 rsdp_revision);

#endif
