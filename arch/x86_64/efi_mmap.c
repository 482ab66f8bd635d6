/*
 * efi_mmap.c - the UEFI memory map tag into the PC memory map.
 *
 * The policy (which EFI type becomes which PC type, what is refused, what
 * is skipped) is written out in efi_mmap.h.  The walk goes in three steps,
 * each over the descriptors as they lie in the tag (never copied, read
 * with memcpy: the tag promises 8-byte alignment, a firmware's descriptor
 * size need not keep it):
 *   1. the header: the tag's size, the descriptor size and version; a
 *      problem here refuses the map whole;
 *   2. every pair of good descriptors is compared for overlap (a few
 *      hundred descriptors at most: the quadratic check costs nothing
 *      next to a boot); the first overlap is named, all are counted;
 *   3. each good descriptor becomes a range of its PC type, merged with
 *      the range before it when they touch and share the type.
 * Portable: no direct map, no memlayout, so the host tests run it under
 * ASan over tags cut at every byte.  Boot CPU only: no locks.
 */
#include <kernel.h>
#include <printk.h>
#include <string.h>
#include <types.h>
#include <unaligned.h>
#include "efi_mmap.h"

#define EFI_TAG_SIZE_OFFSET      4
#define EFI_TAG_DESC_SIZE_OFFSET 8
#define EFI_TAG_DESC_VERS_OFFSET 12

/* Inside an EFI_MEMORY_DESCRIPTOR. */
#define EFI_DESC_TYPE            0
#define EFI_DESC_PHYS_START      8
#define EFI_DESC_NUM_PAGES       24
#define EFI_DESC_ATTRIBUTE       32

/* The descriptor size must keep the u64 fields aligned (UEFI 2.10, 7.2:
 * "the size ... to allow for future expansion"; every firmware uses a
 * multiple of 8). */
#define EFI_DESC_SIZE_ALIGN      8

#define EFI_WARNING_LINE_MAX     256
#define EFI_PAGE_MASK            ((1ull << EFI_PAGE_SHIFT) - 1)

static char efi_last_warning[EFI_WARNING_LINE_MAX];

const char *efi_mmap_last_warning(void)
{
	return efi_last_warning;
}

/* Print one warning line and keep it for efi_mmap_last_warning(). */
static __printf(1, 2) void efi_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(efi_last_warning, sizeof(efi_last_warning), fmt, ap);
	va_end(ap);
	pr_warn("%s\n", efi_last_warning);
}

const char *efi_memory_type_name(u32 efi_type)
{
	switch (efi_type) {
	case EFI_RESERVED_TYPE:              return "reserved";
	case EFI_LOADER_CODE:                return "loader code";
	case EFI_LOADER_DATA:                return "loader data";
	case EFI_BOOT_SERVICES_CODE:         return "boot-services code";
	case EFI_BOOT_SERVICES_DATA:         return "boot-services data";
	case EFI_RUNTIME_SERVICES_CODE:      return "runtime-services code";
	case EFI_RUNTIME_SERVICES_DATA:      return "runtime-services data";
	case EFI_CONVENTIONAL_MEMORY:        return "conventional";
	case EFI_UNUSABLE_MEMORY:            return "unusable";
	case EFI_ACPI_RECLAIM_MEMORY:        return "ACPI reclaim";
	case EFI_ACPI_MEMORY_NVS:            return "ACPI NVS";
	case EFI_MEMORY_MAPPED_IO:           return "MMIO";
	case EFI_MEMORY_MAPPED_IO_PORT_SPACE: return "MMIO port space";
	case EFI_PAL_CODE:                   return "PAL code";
	case EFI_PERSISTENT_MEMORY:          return "persistent";
	case EFI_UNACCEPTED_MEMORY:          return "unaccepted";
	default:                             return "unknown";
	}
}

u32 efi_memory_type_to_e820(u32 efi_type, u64 attribute)
{
	if (attribute & EFI_MEMORY_RUNTIME)
		return MB2_MEMORY_RESERVED;
	switch (efi_type) {
	case EFI_LOADER_CODE:
	case EFI_LOADER_DATA:
	case EFI_BOOT_SERVICES_CODE:
	case EFI_BOOT_SERVICES_DATA:
	case EFI_CONVENTIONAL_MEMORY:
		return MB2_MEMORY_AVAILABLE;
	case EFI_ACPI_RECLAIM_MEMORY:
		return MB2_MEMORY_ACPI_RECLAIMABLE;
	case EFI_ACPI_MEMORY_NVS:
		return MB2_MEMORY_NVS;
	case EFI_UNUSABLE_MEMORY:
		return MB2_MEMORY_BADRAM;
	default:
		/* Runtime services, MMIO, PAL code, persistent memory (not
		 * RAM a buddy may hand out), unaccepted memory (it must be
		 * accepted first) and types this file does not know. */
		return MB2_MEMORY_RESERVED;
	}
}

/* One descriptor, read. */
struct efi_desc {
	u32 type;
	u64 start, end;   /* [start, end) bytes */
	u64 attribute;
};

/*
 * Descriptor i of the tag: false when it cannot be a range (a start not on
 * a page, a size that wraps past 2^64, no pages); `why` then says what,
 * or is NULL for a descriptor of no pages, which is only counted.
 */
static bool read_desc(const u8 *d, struct efi_desc *out, const char **why)
{
	u64 pages = get_unaligned_le64(d + EFI_DESC_NUM_PAGES);

	out->type = get_unaligned_le32(d + EFI_DESC_TYPE);
	out->start = get_unaligned_le64(d + EFI_DESC_PHYS_START);
	out->attribute = get_unaligned_le64(d + EFI_DESC_ATTRIBUTE);
	*why = NULL;
	if (!pages)
		return false;
	if (out->start & EFI_PAGE_MASK) {
		*why = "starts inside a 4 KiB page";
		return false;
	}
	if (pages > (~0ull >> EFI_PAGE_SHIFT) ||
	    out->start + (pages << EFI_PAGE_SHIFT) - 1 < out->start) {
		*why = "runs past the end of the 64-bit address space";
		return false;
	}
	out->end = out->start + (pages << EFI_PAGE_SHIFT);
	return true;
}

/* Step 1: the header.  false with the warning printed when refused. */
static bool check_header(const u8 *tag, size_t len, u32 *desc_size,
			 size_t *desc_bytes)
{
	u32 size, version;

	if (len < EFI_MMAP_TAG_HEADER_LEN) {
		efi_warn("efi: memory map tag cut short: %zu bytes, its header alone is %u; using GRUB's e820 map",
			 len, EFI_MMAP_TAG_HEADER_LEN);
		return false;
	}
	size = get_unaligned_le32(tag + EFI_TAG_SIZE_OFFSET);
	*desc_size = get_unaligned_le32(tag + EFI_TAG_DESC_SIZE_OFFSET);
	version = get_unaligned_le32(tag + EFI_TAG_DESC_VERS_OFFSET);
	if (size < EFI_MMAP_TAG_HEADER_LEN || size > len) {
		efi_warn("efi: memory map tag says it is %u bytes, but %zu are there (its header alone is %u); using GRUB's e820 map",
			 size, len, EFI_MMAP_TAG_HEADER_LEN);
		return false;
	}
	if (*desc_size < EFI_MEMORY_DESC_LEN ||
	    *desc_size % EFI_DESC_SIZE_ALIGN) {
		efi_warn("efi: memory map descriptor size %u: not a multiple of %u of at least %u bytes (an EFI_MEMORY_DESCRIPTOR); using GRUB's e820 map",
			 *desc_size, EFI_DESC_SIZE_ALIGN, EFI_MEMORY_DESC_LEN);
		return false;
	}
	if (version != EFI_MEMORY_DESC_VERSION) {
		efi_warn("efi: memory map descriptor version %u, this kernel reads version %u; using GRUB's e820 map",
			 version, EFI_MEMORY_DESC_VERSION);
		return false;
	}
	*desc_bytes = size - EFI_MMAP_TAG_HEADER_LEN;
	if (*desc_bytes < *desc_size) {
		efi_warn("efi: memory map tag holds no whole descriptor (%zu bytes after the header, descriptors of %u); using GRUB's e820 map",
			 *desc_bytes, *desc_size);
		return false;
	}
	if (*desc_bytes % *desc_size)
		efi_warn("efi: memory map tag ends in %zu bytes that are no whole descriptor (descriptors of %u); they are ignored",
			 *desc_bytes % *desc_size, *desc_size);
	return true;
}

/* Step 2: count overlapping pairs, name the first. */
static void check_overlaps(const u8 *descs, unsigned int n, u32 desc_size,
			   struct efi_mmap_stats *st)
{
	unsigned int i, j;
	const char *why;

	for (i = 0; i < n; i++) {
		struct efi_desc a;

		if (!read_desc(descs + (size_t)i * desc_size, &a, &why))
			continue;
		for (j = i + 1; j < n; j++) {
			struct efi_desc b;

			if (!read_desc(descs + (size_t)j * desc_size, &b, &why))
				continue;
			if (a.start >= b.end || b.start >= a.end)
				continue;
			if (!st->overlaps++)
				efi_warn("efi: memory map descriptors %u [mem %#014lx-%#014lx] (%s) and %u [mem %#014lx-%#014lx] (%s) overlap; both kept, the type that is not RAM wins the overlap",
					 i, (unsigned long)a.start,
					 (unsigned long)(a.end - 1),
					 efi_memory_type_name(a.type), j,
					 (unsigned long)b.start,
					 (unsigned long)(b.end - 1),
					 efi_memory_type_name(b.type));
		}
	}
}

/* Step 3: append [start, end) of `type`, merged with a touching last. */
static void append_range(struct boot_mmap_entry *out, unsigned int max,
			 unsigned int *nr, u64 start, u64 end, u32 type,
			 struct efi_mmap_stats *st)
{
	struct boot_mmap_entry *last = *nr ? &out[*nr - 1] : NULL;

	if (last && last->type == type && last->base + last->length == start) {
		last->length += end - start;
		return;
	}
	if (*nr == max) {
		st->dropped++;
		return;
	}
	out[*nr].base = start;
	out[*nr].length = end - start;
	out[*nr].type = type;
	(*nr)++;
}

bool efi_mmap_parse_tag(const void *tag, size_t len,
			struct boot_mmap_entry *out, unsigned int max,
			unsigned int *nr_out, struct efi_mmap_stats *st)
{
	const u8 *descs = (const u8 *)tag + EFI_MMAP_TAG_HEADER_LEN;
	size_t desc_bytes;
	u32 desc_size;
	unsigned int i, n;

	memset(st, 0, sizeof(*st));
	efi_last_warning[0] = '\0';
	*nr_out = 0;
	if (!check_header(tag, len, &desc_size, &desc_bytes))
		return false;
	n = (unsigned int)(desc_bytes / desc_size);
	st->nr_desc = n;
	check_overlaps(descs, n, desc_size, st);
	for (i = 0; i < n; i++) {
		struct efi_desc d;
		const char *why;
		u32 type;

		if (!read_desc(descs + (size_t)i * desc_size, &d, &why)) {
			if (!why) {
				st->empty++;
				continue;
			}
			st->skipped++;
			efi_warn("efi: memory map descriptor %u (%s, start %#lx, %lu pages) %s; skipped",
				 i, efi_memory_type_name(d.type),
				 (unsigned long)d.start,
				 (unsigned long)get_unaligned_le64(descs + (size_t)i * desc_size +
							 EFI_DESC_NUM_PAGES),
				 why);
			continue;
		}
		type = efi_memory_type_to_e820(d.type, d.attribute);
		if (d.attribute & EFI_MEMORY_RUNTIME)
			st->runtime++;
		if (type == MB2_MEMORY_AVAILABLE &&
		    (d.type == EFI_BOOT_SERVICES_CODE ||
		     d.type == EFI_BOOT_SERVICES_DATA))
			st->boot_services_bytes += d.end - d.start;
		append_range(out, max, nr_out, d.start, d.end, type, st);
	}
	if (!*nr_out) {
		efi_warn("efi: memory map of %u descriptors holds no range (each is empty or bad); using GRUB's e820 map",
			 n);
		return false;
	}
	if (st->dropped)
		efi_warn("efi: memory map: %u ranges beyond the first %u ignored",
			 st->dropped, max);
	return true;
}
