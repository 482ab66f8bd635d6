/*
 * types.h - the basic integer types every file uses.
 *
 * The kernel is freestanding, but <stdint.h>, <stddef.h>, <stdbool.h> and
 * <stdarg.h> come from the compiler itself, not from a C library, so they are
 * safe to use.  The short Linux names (u8 ... u64) keep mm/ code readable for
 * anyone who has read mm/page_alloc.c, and the same header serves the host
 * build of mm/ unchanged.
 */
#ifndef TYPES_H
#define TYPES_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdarg.h>

typedef uint8_t  u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int8_t   s8;
typedef int16_t  s16;
typedef int32_t  s32;
typedef int64_t  s64;

typedef u64 phys_addr_t;

/* 4 GiB, where 32-bit physical addresses end: ZONE_NORMAL starts there,
 * the PCI hole ends there, and everything below it is in the direct map
 * whatever its memory type (kernel/main.c; the ACPI tables are read
 * there).  One definition for all of them (Linux's SZ_4G). */
#define SZ_4G 0x100000000ull

#define BITS_PER_LONG 64   /* x86-64, kernel and host alike */

#endif /* TYPES_H */
