/*
 * internal.h - what mm/ files share with each other and nobody else.
 *
 * mm_init.c builds the memmap and the zones at boot; page_alloc.c owns
 * everything after that.  The calls below are the seam between the two.
 */
#ifndef MM_INTERNAL_H
#define MM_INTERNAL_H

#include <mmzone.h>

/* Set up a zone's locks, free lists and per-CPU lists (all empty). */
void zone_init_free_lists(struct zone *zone);

/* Work out pgdat->first_zone[] from what the zones have. */
void node_set_first_zones(struct pglist_data *pgdat);

/* Boot: hand frames [start_pfn, end_pfn) of one zone to the buddy, as the
 * largest aligned blocks that fit.  The frames must be PG_reserved. */
void free_pages_boot(unsigned long start_pfn, unsigned long end_pfn);

/* try_alloc_pages() that also says why it failed: *busy is true when a
 * lock could not be taken, false when the memory was not there.  For the
 * slab allocator's any-context path, which counts the two apart.  gfp:
 * only __GFP_THISNODE means anything (the strict slab mode). */
struct page *__try_alloc_pages(int nid, gfp_t gfp, unsigned int order,
			       bool *busy);
/* mm/slab.c: cpu's slab_free_flags (struct percpu) for slab_numa_mode. */
void slab_numa_cpu_update(unsigned int cpu);

#endif /* MM_INTERNAL_H */
