/*
 * memory_need.h - a test that needs more free memory than there is skips.
 *
 * The kernel boots on MEMBLOCK_MIN_FREE (include/memblock.h); a test that
 * takes much more than that at once (a random walk over hundreds of blocks,
 * say) calls kunit_skip_unless_free_pages() first.  With too little, the
 * case is reported `# SKIP needs N KiB free, has M KiB` instead of failing
 * an allocation half-way and leaving what it took to starve every later
 * case.  Pages on the per-CPU lists count as free (nr_free_pages()).
 */
#ifndef TESTS_KERNEL_MEMORY_NEED_H
#define TESTS_KERNEL_MEMORY_NEED_H

#include <kunit.h>
#include <mm.h>

static inline void kunit_skip_unless_free_pages(struct kunit *test,
						unsigned long pages)
{
	unsigned long free = nr_free_pages();

	if (free < pages)
		kunit_skip(test, "needs %lu KiB free, has %lu KiB",
			   pages * (PAGE_SIZE / 1024), free * (PAGE_SIZE / 1024));
}

#endif /* TESTS_KERNEL_MEMORY_NEED_H */
