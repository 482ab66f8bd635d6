/*
 * unaligned.h - little-endian fields of firmware tables, read at any
 * alignment (ACPI tables, the SRAT, the EFI memory map GRUB hands over).
 *
 * A table's fields sit wherever its layout puts them, so a field is read
 * a byte at a time and assembled, never through a cast pointer (that
 * would be undefined for a misaligned address, and UBSan in the host
 * tests says so).  Linux's names: get_unaligned_le32(), ..._le64().
 */
#ifndef UNALIGNED_H
#define UNALIGNED_H

#include <types.h>

static inline u32 get_unaligned_le32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static inline u64 get_unaligned_le64(const u8 *p)
{
	return (u64)get_unaligned_le32(p) | (u64)get_unaligned_le32(p + 4) << 32;
}

#endif /* UNALIGNED_H */
