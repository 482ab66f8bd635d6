/*
 * buddy_drought.h - make the buddy run dry for a test, and give it back.
 *
 * exhaust_buddy() takes every free page there is (this CPU's lists and
 * every other CPU's are drained first), largest blocks first, and chains
 * the blocks through their lru with the order in private_data;
 * release_buddy() frees them again.  In between every page allocation
 * fails, so a test can reach the "out of memory" branches of the slab
 * layer deterministically, at the moment it chooses (from an mm_point
 * hook, say: nothing is held there).  Shared by the slab and nolock tests,
 * in the kernel and on the host.
 */
#ifndef TESTS_KERNEL_BUDDY_DROUGHT_H
#define TESTS_KERNEL_BUDDY_DROUGHT_H

#include <mm.h>
#include <list.h>

/* Take every free page from the buddy; returns how many pages. */
static inline unsigned long exhaust_buddy(struct list_head *taken)
{
	unsigned long n = 0;
	int order;

	drain_all_pages();  /* other CPUs' page lists too */
	for (order = MAX_ORDER; order >= 0; order--) {
		struct page *page;

		while ((page = alloc_pages(__GFP_NOWARN, (unsigned int)order))) {
			page->private_data = (unsigned long)order;
			list_add(&page->lru, taken);
			n += 1ul << order;
		}
	}
	return n;
}

static inline void release_buddy(struct list_head *taken)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, taken, lru) {
		list_del(&page->lru);
		__free_pages(page, (unsigned int)page->private_data);
	}
}

#endif
