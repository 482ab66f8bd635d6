/*
 * nolock_stats.h - why the any-context allocation paths said "not now".
 *
 * try_alloc_pages()/free_pages_nolock() (mm/page_alloc.c) and
 * kmalloc_nolock()/kfree_nolock() (mm/slab_nolock.c, mm/slab.c, mm/sheaf.c,
 * mm/kmalloc.c) count, per CPU, every NULL they return by its reason, and
 * every free they had to defer.  The NMI storm tests print these per CPU
 * and check that a NULL always has a reason; a learner can see how often
 * each lock was found taken.  Only the owning CPU writes its counters,
 * but from any context: normal code and an NMI that interrupts it may
 * bump the same counter, so every bump is one atomic add
 * (nolock_stat_inc), which an interrupt cannot split.  Readers on other
 * CPUs may see values a moment old.
 */
#ifndef NOLOCK_STATS_H
#define NOLOCK_STATS_H

#include <smp.h>

struct nolock_stats {
	unsigned long page_alloc_busy;   /* try_alloc_pages: a lock was held */
	unsigned long page_alloc_nomem;  /* try_alloc_pages: no free block */
	unsigned long page_free_deferred;/* free_pages_nolock: parked on llist */
	unsigned long obj_alloc_busy;    /* kmalloc_nolock: locks held */
	unsigned long obj_alloc_nomem;   /* kmalloc_nolock: no object/slab */
	unsigned long obj_free_deferred; /* kfree_nolock: parked on llist */
};

DECLARE_PER_CPU(struct nolock_stats, nolock_stats);

#define nolock_stat_inc(field) \
	__atomic_fetch_add(&this_cpu_ptr(nolock_stats)->field, 1, \
			   __ATOMIC_RELAXED)

#endif /* NOLOCK_STATS_H */
