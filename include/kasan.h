/*
 * kasan.h - which bytes of the heap their owner may touch: the allocator's
 * shadow hooks (Linux's KASAN, in small, and only on the host).
 *
 * The kernel keeps no shadow memory, so every hook is empty there and
 * costs nothing.  The host tests run the allocator inside one arena that
 * AddressSanitizer sees as a single allocation: without help, a test that
 * reads a freed object, or past the size it asked kmalloc() for, reads
 * arena memory and ASan says nothing.  With MM_KASAN defined (the host's
 * ASan builds: mm_tests, the threaded stress, the fuzzer), the hooks mark
 * the arena with ASan's manual poisoning:
 *
 *   page blocks   poisoned whole while free (buddy, per-CPU lists,
 *                 deferred lists), addressable while allocated;
 *   slabs         poisoned when made, objects included, and their
 *                 metadata (an outside free pointer, red zones, tracking
 *                 records) stays poisoned for good;
 *   objects       addressable from allocation to free: object_size bytes
 *                 from kmem_cache_alloc(), exactly the size asked from
 *                 kmalloc() (ksize() hands over the whole class).
 *
 * Rules for the allocator's own code:
 *   - mm/slab.c, mm/slab_nolock.c and mm/slab_debug.c read and write
 *     free objects (free pointers, deferred links, debug fills and
 *     checks), so the host builds them without ASan instrumentation
 *     (KASAN_UNINSTRUMENTED in the Makefile), as Linux builds mm/slub.c
 *     without KASAN; their fills of bytes no caller owns go through
 *     slab_fill() (slab_debug.c), because the sanitizer's runtime checks
 *     memset() from any file.
 *   - An object is unpoisoned before it leaves the allocator and before
 *     anything (zeroing, a constructor) writes it for the caller; it is
 *     poisoned once its free is accepted, before any list or sheaf makes
 *     it visible to another allocation (which would unpoison it first).
 *   - ksize() and krealloc() ask kasan_byte_addressable() of the first
 *     byte before they hand over or copy an object (Linux's
 *     kasan_check_byte()): freed memory is reported, never unpoisoned.
 *   - Tests that corrupt freed memory on purpose (to prove a detector)
 *     lift the poisoning around that write with kasan_unpoison() and put
 *     it back, as Linux's KUnit tests do with kasan_disable_current().
 *
 * ASan's shadow has a granule of 8 bytes: a region that ends inside a
 * granule is tracked exactly at its end, one that starts inside a granule
 * is rounded; objects and slabs are 8-byte aligned, so both ends of an
 * object are exact.
 */
#ifndef _KASAN_H
#define _KASAN_H

#include <types.h>
#include <stdbool.h>
#include <stddef.h>

#ifdef MM_KASAN
/* ASan's public interface (sanitizer/asan_interface.h), declared here so
 * that files built without ASan instrumentation call the same runtime. */
void __asan_poison_memory_region(void const volatile *addr, size_t size);
void __asan_unpoison_memory_region(void const volatile *addr, size_t size);
int __asan_address_is_poisoned(void const volatile *addr);

static inline void kasan_poison(const void *addr, size_t size)
{
	__asan_poison_memory_region(addr, size);
}

static inline void kasan_unpoison(const void *addr, size_t size)
{
	__asan_unpoison_memory_region(addr, size);
}

/* For tests: may the owner touch this byte? */
static inline bool kasan_byte_addressable(const void *addr)
{
	return !__asan_address_is_poisoned(addr);
}

#define KASAN_ENABLED true
#else
static inline void kasan_poison(const void *addr, size_t size)
{
	(void)addr;
	(void)size;
}

static inline void kasan_unpoison(const void *addr, size_t size)
{
	(void)addr;
	(void)size;
}

static inline bool kasan_byte_addressable(const void *addr)
{
	(void)addr;
	return true;
}

#define KASAN_ENABLED false
#endif

/*
 * For tests that write or read memory they do not own on purpose, to prove
 * that a detector fires (a write after free, a stray write over a free
 * pointer): these accesses are not checked against the shadow, and leave
 * it as it was.  Byte by byte through volatile, so the compiler neither
 * merges them into a checked memcpy() nor drops them.
 */
#ifdef MM_KASAN
#define __kasan_unchecked __attribute__((no_sanitize_address))
#else
#define __kasan_unchecked
#endif

static inline __kasan_unchecked void kasan_unchecked_write(void *dst,
							    const void *src,
							    size_t n)
{
	volatile u8 *d = dst;
	const u8 *s = src;

	while (n--)
		*d++ = *s++;
}

static inline __kasan_unchecked void kasan_unchecked_read(void *dst,
							   const void *src,
							   size_t n)
{
	const volatile u8 *s = src;
	u8 *d = dst;

	while (n--)
		*d++ = *s++;
}

static inline __kasan_unchecked void kasan_unchecked_fill(void *dst, u8 value,
							   size_t n)
{
	volatile u8 *d = dst;

	while (n--)
		*d++ = value;
}

/* The same for one pointer-sized word: a free pointer, a deferred link. */
static inline void *kasan_unchecked_load_ptr(void *const *slot)
{
	void *value;

	kasan_unchecked_read(&value, slot, sizeof(value));
	return value;
}

static inline void kasan_unchecked_store_ptr(void **slot, void *value)
{
	kasan_unchecked_write(slot, &value, sizeof(value));
}

#endif /* _KASAN_H */
