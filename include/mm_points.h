/*
 * mm_points.h - named interleaving points of the slab, sheaf, barn and
 * page allocators, where a test can make an NMI, an IRQ or another CPU
 * land.
 *
 * The code that is most likely to be wrong is the code between two steps
 * that must look atomic to somebody: a lock dropped and retaken (whatever
 * the CPU read before may have changed), two stores that must be seen
 * together (a flag and the order beside it), a lock held that an NMI
 * will find taken.  Each such place calls
 *
 *     mm_point(MM_POINT_SHEAF_REFILL_UNLOCKED, s);
 *
 * with the cache (slab points) or zone (page points) it is about.  When a
 * test has set mm_point_hook, the hook runs there, in the allocator's own
 * context (its locks held, IRQs as they are), and may do what an
 * interrupt could: tests/kernel/interleave_test.c runs every allocator
 * scenario once per point reached and per interrupting action, and checks
 * the invariants (include/mm_check.h) after each run.  docs/any-context.md
 * ("How the interleavings are searched") has the method and the figures.
 *
 * Cost: NULL in production, so a point is one load and a branch predicted
 * not taken, and points sit only on slow paths.  The inline fast paths
 * (mm/slab_internal.h) have none: they are restartable sequences
 * (include/rseq.h), searched instruction by instruction by single-step
 * tests instead (tests/kernel/singlestep_test.c, tests/host/test_mm_rseq.c).
 * The per-CPU page lists' inline fast paths (mm/page_alloc.c) have points
 * only in the host test build (mm_point_fast(), MM_POINTS_FAST), so the
 * kernel's fast path is instruction for instruction what it was; there
 * they step aside while a hook is set (mm_points_divert()).
 *
 * Rules for the hook: it runs with whatever the point holds, so it may only
 * call what an interrupt of that kind may call there (the test decides by
 * irqs_disabled() and by which locks are taken); it must not re-enter
 * itself (the test ignores points reached from its own actions).
 */
#ifndef MM_POINTS_H
#define MM_POINTS_H

#include <compiler.h>

enum mm_point {
	/* mm/sheaf.c: the per-CPU sheaves (arg: the cache) */
	MM_POINT_SHEAF_LOCKED,          /* slow path took the sheaf lock (IRQs off) */
	MM_POINT_SHEAF_SWAP_MID,        /* sheaf lock held, main == spare */
	MM_POINT_SHEAF_REFILL_UNLOCKED, /* lock dropped to refill an empty main */
	MM_POINT_SHEAF_REFILL_DONE,     /* full sheaf in hand, lock not retaken */
	MM_POINT_SHEAF_FREE_UNLOCKED,   /* lock dropped to get an empty sheaf */
	MM_POINT_SHEAF_FREE_GOT_EMPTY,  /* empty sheaf in hand, lock not retaken */
	MM_POINT_SHEAF_FLUSH_BATCH,     /* batch taken out of main, not yet freed */
	MM_POINT_SHEAF_NOLOCK_LOCKED,   /* any-context path holds the sheaf lock */
	MM_POINT_SHEAF_BULK_LOCKED,     /* bulk alloc/free holds the sheaf lock */
	MM_POINT_SHEAF_DETACHED,        /* flush: a CPU's sheaves taken, not flushed */
	MM_POINT_SHEAF_FLUSH_BUSY,      /* flush: a CPU's IPI found it busy, asking again */
	MM_POINT_PREFILL_UNLOCKED,      /* prefill: sheaf in hand before its refill */
	MM_POINT_RETURN_UNLOCKED,       /* return: no spare slot, before barn/flush */
	MM_POINT_RCU_SHEAF_LOCKED,      /* kfree_rcu holds the sheaf lock */
	MM_POINT_RCU_SHEAF_UNLOCKED,    /* kfree_rcu dropped it for an empty sheaf */
	MM_POINT_RCU_SHEAF_SUBMITTED,   /* full rcu_free sheaf queued, lock held */
	MM_POINT_RCU_SHEAF_RETURNED,    /* its grace period over, before the barn */
	/* mm/sheaf.c: the barn (arg: the cache) */
	MM_POINT_BARN_LOCKED,           /* barn->lock held */
	MM_POINT_BARN_SHRINK_UNLOCKED,  /* barn emptied onto private lists */
	/* mm/slab.c, mm/slab_nolock.c: slabs and the deferred list (arg: the
	 * cache) */
	MM_POINT_SLAB_LIST_LOCKED,      /* list_lock held */
	MM_POINT_SLAB_ALLOC_UNLOCKED,   /* partial list ran out, before a new slab */
	MM_POINT_SLAB_NEW_UNLINKED,     /* new slab made, not on the lists yet */
	MM_POINT_SLAB_NEW_NOLOCK,       /* any context: the same, list_lock untried */
	MM_POINT_SLAB_DISCARD_UNLOCKED, /* empty slabs unlinked, not yet freed */
	MM_POINT_SLAB_FREE_NOLOCK,      /* kfree_nolock: sheaves refused, list next */
	MM_POINT_CPU_SLAB_FAST_HEAD,    /* cpu slab alloc fast path: head read,
					   slab not yet (host test build) */
	MM_POINT_CPU_SLAB_FAST,         /* cpu slab fast path: pair read, no
					   cmpxchg16b yet (host test build) */
	MM_POINT_CPU_SLAB_LOCKED,       /* cpu slab slow path: lock held, tid odd */
	MM_POINT_CPU_SLAB_FROZEN_READ,  /* free: a frozen slab's pair read,
					   no cmpxchg16b yet */
	MM_POINT_CPU_SLAB_UNFREEZE,     /* list_lock held, slab still frozen */
	MM_POINT_CPU_SLAB_DETACHED,     /* flush: a CPU's slabs taken, frozen */
	MM_POINT_DEFER_COUNTED,         /* deferred push: counted, not linked */
	MM_POINT_DEFER_DRAIN,           /* drain: list taken, object not yet freed */
	MM_POINT_KFREE_RCU_PARKED,      /* kfree_rcu_nolock: parked for irq_work */
	MM_POINT_KMALLOC_INIT,          /* boot: slab up, kmalloc caches not made */
	/* mm/page_alloc.c (arg: the zone; the page for the two _HEAD_HALF) */
	MM_POINT_PCP_LOCKED,            /* a pcp->lock held (IRQs off) */
	MM_POINT_ZONE_LOCKED,           /* zone->lock held (IRQs off) */
	MM_POINT_BUDDY_HEAD_HALF,       /* free head half made: of PG_buddy and
					 * its order, one is stored */
	MM_POINT_PCP_HEAD_HALF,         /* the same for PG_pcp */
	MM_POINT_PAGE_FREE_CLAIMED,     /* free claimed by its CAS, on no list yet */
	MM_POINT_PAGE_DEFER_MARKED,     /* nolock free: marked, not yet on the llist */
	MM_POINT_PAGE_DEFERRED_TAKEN,   /* deferred pages taken off the llist */
	NR_MM_POINTS
};

extern const char *const mm_point_names[NR_MM_POINTS];

typedef void (*mm_point_hook_t)(enum mm_point point, void *arg);
extern mm_point_hook_t mm_point_hook;

static __always_inline void mm_point(enum mm_point point, void *arg)
{
	mm_point_hook_t hook = __atomic_load_n(&mm_point_hook, __ATOMIC_RELAXED);

	if (unlikely(hook))
		hook(point, arg);
}

/* Points inside the page allocator's inline fast paths: only in the host
 * test build (the Makefile's HOSTCFLAGS define MM_POINTS_FAST; the host
 * benchmark's build does not, so it measures the fast paths as the kernel
 * has them). */
#ifdef MM_POINTS_FAST
#define mm_point_fast(point, arg) mm_point(point, arg)
#else
#define mm_point_fast(point, arg) do { (void)(arg); } while (0)
#endif

/*
 * The page allocator's inline fast paths (mm/page_alloc.c) share their
 * points with its slow paths, where the same critical sections are taken
 * by spinning; those points would be lost to the kernel's search if the
 * fast paths only had mm_point_fast().  So in a build without
 * MM_POINTS_FAST this is true while a hook is set, and the fast paths
 * step aside for the slow ones: the kernel's interleaving test reaches
 * every page point, and with no hook the fast paths hold no call at all.
 * In the host test build it is false: the fast paths run, points and all.
 */
static __always_inline bool mm_points_divert(void)
{
#ifdef MM_POINTS_FAST
	return false;
#else
	return __atomic_load_n(&mm_point_hook, __ATOMIC_RELAXED) != NULL;
#endif
}

#endif /* MM_POINTS_H */
