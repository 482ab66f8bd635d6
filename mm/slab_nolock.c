/*
 * slab_nolock.c - the slab allocator from any context: slab_alloc_nolock()
 * and slab_free_nolock(), behind kmalloc_nolock() and kfree_nolock()
 * (docs/any-context.md), and the per-CPU deferred list that lets a free
 * never fail.
 *
 * An NMI can land while the code it interrupted holds any allocator lock,
 * so nothing here waits: each lock is only tried, once (LOCK_TRY,
 * include/spinlock.h), and new slabs come from try_alloc_pages().  The
 * locks and their order are the ordinary paths' (the lock order at the
 * top of mm/slab.c); a path that only tries cannot deadlock, but it may
 * fail, and then the caller hears "busy" (*busy) rather than "no memory".
 *
 * ALLOCATION: this CPU's sheaves (alloc_from_pcs_nolock(), sheaf.c), then
 * one partial slab, then one fresh slab (slab_alloc_partial_nolock(),
 * slab_alloc_new_nolock(), slab.c), in __slab_alloc_bulk()'s node order;
 * each step lives beside its locked twin and is taken at most once, so a
 * cache whose locks always fail (a debug cache has no sheaves) fails at
 * once instead of looping.  A fresh slab that cannot be put on the list
 * (list_lock taken meanwhile) was never counted on the node: it is handed
 * straight back and counted freed, so nr_slabs and the slab_alloc/
 * slab_free statistics still agree.
 *
 * FREE: the sheaves, then list_lock, else the object is parked on this
 * CPU's deferred list and an irq_work frees it soon after.
 *
 * THE DEFERRED LIST.  Per CPU, lock-free: a push is one compare-and-swap
 * on the head, the drain takes the whole list with one exchange (llist.h
 * explains why that is safe).  Objects of any cache are linked through
 * their own free-pointer slot, and the link is stored *encoded* with the
 * object's cache hardening like a slab freelist pointer, plus
 * DEFERRED_LINK_TAG (slab_internal.h), so a stray write into it decodes to
 * garbage (hazard 1 of Linux) and a freelist link and a deferred link never
 * pass for each other.  The drain validates each link before following it
 * (reported, never followed); a free that reaches a slab refuses an object
 * that is parked or already free, and a park one that is parked or free
 * (defer_free_check()), so a double free that meets the list is caught on
 * every cache without sheaves.  Only this CPU pushes (normal code, its
 * IRQs and NMIs); the drain runs on this CPU in IRQ context (its irq_work,
 * or the IPI of slab_deferred_flush_all()), where no allocator spinlock of
 * this CPU can be held; the sheaf lock is only tried (on the host the
 * inline fast paths hold it with IRQs on; in the kernel they are
 * restartable sequences and take no lock).  kmem_cache_shrink() and
 * kmem_cache_destroy() flush every CPU's list first, so no object of a
 * cache outlives it there.  Invariant: slab_deferred_frees(cpu) never
 * reads less than the list holds (a push counts first, the drain
 * uncounts after each free); mm_check.c walks the lists.
 *
 * SHADOW (host only, include/kasan.h): this file writes the links into
 * freed objects, so, like slab.c, the host builds it without ASan
 * instrumentation.
 */
#include <irq_work.h>
#include <kernel.h>
#include <nolock_stats.h>
#include "slab_internal.h"

/* ---------------------------------------------------------------------- */
/* Allocation: sheaves, one partial slab, one fresh slab                  */
/* ---------------------------------------------------------------------- */

/*
 * The slabs' part of slab_alloc_nolock(): the preferred node's partial
 * slabs, a new slab there, and (when allowed) the other nodes' partial
 * slabs and a new slab anywhere: __slab_alloc_bulk()'s order, each lock
 * tried once.
 */
static void *slab_alloc_slabs_nolock(struct kmem_cache *s, gfp_t gfp,
				     int preferred, bool *busy,
				     unsigned long caller)
{
	const int *fallback;
	void *object;
	unsigned int i;

	object = slab_alloc_partial_nolock(s, preferred, preferred, busy,
					   caller);
	/* A held list_lock would be held for the fresh slab too. */
	if (!object && !*busy && NODE_DATA(preferred))
		object = slab_alloc_new_nolock(s, gfp | __GFP_THISNODE,
					       preferred, busy, caller);
	/* A held lock here answers "busy", not "try another node". */
	if (object || *busy || !slab_node_fallback_allowed(gfp))
		return object;
	fallback = node_fallback(preferred);
	for (i = 0; !object && fallback[i] != NUMA_NO_NODE; i++)
		if (fallback[i] != preferred)
			object = slab_alloc_partial_nolock(s, fallback[i],
							   preferred, busy,
							   caller);
	if (!object)
		object = slab_alloc_new_nolock(s, gfp & ~__GFP_THISNODE,
					       preferred, busy, caller);
	return object;
}

void *slab_alloc_nolock(struct kmem_cache *s, gfp_t gfp, int node,
			bool *busy, unsigned long caller)
{
	bool sheaf_busy = false, list_busy = false;
	int preferred = slab_preferred_node(node);
	void *object = NULL;

	*busy = false;
	if (preferred < 0)
		return NULL;
	if (cache_has_sheaves(s)) {
		if (node == NUMA_NO_NODE ||
		    (slab_numa_mode == SLAB_NUMA_BLIND &&
		     !(gfp & __GFP_THISNODE)))
			object = alloc_from_pcs_nolock(s, &sheaf_busy);
		else if (node == numa_mem_id())
			object = alloc_from_pcs_node(s, node, &sheaf_busy);
	} else if (cache_has_cpu_slab(s) &&
		   (node == NUMA_NO_NODE || node == numa_mem_id())) {
		object = cpu_slab_alloc(s, gfp, LOCK_TRY, &sheaf_busy, caller);
		if (object)   /* counted by cpu_slab.c, as a sheaf hit */
			return slab_post_alloc_hook(s, object, gfp);
	}
	if (!object) {
		object = slab_alloc_slabs_nolock(s, gfp, preferred,
						 &list_busy, caller);
		if (!object) {
			*busy = sheaf_busy || list_busy;
			return NULL;
		}
		stat(s, ALLOC_SLOWPATH);
	}
	return slab_post_alloc_hook(s, object, gfp);
}

/* ---------------------------------------------------------------------- */
/* Free: sheaves, list_lock, else the per-CPU deferred list                */
/* ---------------------------------------------------------------------- */

struct slab_defer {
	void *first;              /* newest parked object, or NULL */
	unsigned long count;      /* objects parked (atomic) */
	struct irq_work work;     /* frees them, in IRQ context */
};

static DEFINE_PER_CPU(struct slab_defer, slab_defer);

/*
 * A double free caught before it can meet the deferred list: the object
 * is parked already, or it is free in its slab (its free pointer, or its
 * red zone, says so).  The checks read the object without list_lock: it
 * is the caller's, unless this is the double free they look for.
 */
static bool defer_free_check(struct kmem_cache *s, void *object,
			     unsigned long caller)
{
	if (unlikely(object_is_parked(s, object))) {
		slab_bug(s, object, caller,
			 "double free: the object is parked on a deferred-free list");
		return false;
	}
	if (unlikely(object_looks_free(s, virt_to_slab(object), object)) ||
	    ((s->flags & SLAB_RED_ZONE) &&
	     red_zone_is(s, object, SLUB_RED_INACTIVE))) {
		slab_bug(s, object, caller, "double free");
		return false;
	}
	return true;
}

/* Push object (of s) on this CPU's list; the link is stored encoded. */
static void defer_free(struct kmem_cache *s, void *object,
		       unsigned long caller)
{
	struct slab_defer *d = this_cpu_ptr(slab_defer);
	void **slot = freeptr_slot(s, object);
	void *first;

	if (!defer_free_check(s, object, caller))
		return;
	first = __atomic_load_n(&d->first, __ATOMIC_RELAXED);
	/* Count first, so the count never reads less than the list holds. */
	__atomic_fetch_add(&d->count, 1, __ATOMIC_RELAXED);
	mm_point(MM_POINT_DEFER_COUNTED, s);
	do {
		*slot = (void *)deferred_link_encode(s, first, slot);
	} while (!__atomic_compare_exchange_n(&d->first, &first, object, true,
					      __ATOMIC_RELEASE,
					      __ATOMIC_RELAXED));
	nolock_stat_inc(obj_free_deferred);
	stat(s, FREE_DEFERRED);
	irq_work_queue(&d->work);
}

/* IRQ context (or an IPI) on d's own CPU: free every parked object. */
static void free_deferred_objects(struct slab_defer *d)
{
	void *object = __atomic_exchange_n(&d->first, NULL, __ATOMIC_ACQUIRE);

	while (object) {
		struct kmem_cache *s = virt_to_slab(object)->slab_cache;
		/* Read the link first: the free reuses the slot. */
		void *next = get_deferred_link(s, object);

		mm_point(MM_POINT_DEFER_DRAIN, s);
		/* Validated as take_from_slab_locked() does: a stray write
		 * into a parked object is reported, never followed (the
		 * objects behind it are lost, and stay counted). */
		if (unlikely(next && !is_slab_object(next))) {
			slab_bug(s, object, _RET_IP_,
				 "deferred-free link corrupted: it decodes to %p, not a slab object",
				 next);
			next = NULL;
		}
		/* No longer parked: a later free must not think it is. */
		clear_freepointer(s, object);
		slab_free(s, object, _RET_IP_);
		__atomic_fetch_sub(&d->count, 1, __ATOMIC_RELAXED);
		object = next;
	}
}

static void deferred_free_work(struct irq_work *work)
{
	free_deferred_objects(container_of(work, struct slab_defer, work));
}

static void flush_deferred_cpu(void *info)
{
	(void)info;
	free_deferred_objects(this_cpu_ptr(slab_defer));
}

void slab_deferred_flush_all(void)
{
	on_each_cpu(flush_deferred_cpu, NULL, true);
}

unsigned long slab_deferred_frees(unsigned int cpu)
{
	return __atomic_load_n(&per_cpu_ptr(slab_defer, cpu)->count,
			       __ATOMIC_RELAXED);
}

void slab_defer_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct slab_defer *d = per_cpu_ptr(slab_defer, cpu);

		/* Once: on the host a queued work may outlive a reset. */
		if (!d->work.func)
			init_irq_work(&d->work, deferred_free_work);
	}
}

void slab_free_nolock(struct kmem_cache *s, void *object,
		      unsigned long caller)
{
	struct kmem_cache_node *n;
	LIST_HEAD(discard);
	unsigned long flags;
	bool busy = false;

	if (!slab_free_check(s, object, caller))
		return;
	n = get_node(s, slab_nid(virt_to_slab(object)));
	kasan_slab_free(s, object);
	if (cache_has_sheaves(s) && free_to_pcs_nolock(s, object, &busy))
		return;
	if (cache_has_cpu_slab(s)) {
		if (!cpu_slab_free(s, object, LOCK_TRY, caller))
			defer_free(s, object, caller);
		return;
	}
	mm_point(MM_POINT_SLAB_FREE_NOLOCK, s);
	if (spin_trylock_irqsave(&n->list_lock, flags)) {
		free_to_slab_locked(s, n, virt_to_slab(object), object,
				    &discard, caller);
		spin_unlock_irqrestore(&n->list_lock, flags);
		free_slab_list(s, &discard, LOCK_TRY);
		stat(s, FREE_SLOWPATH);
		return;
	}
	defer_free(s, object, caller);
}

/* ---------------------------------------------------------------------- */
/* For mm/mm_check.c and the host tests                                    */
/* ---------------------------------------------------------------------- */

/* For mm/mm_check.c: the newest object parked on cpu's deferred list. */
void *slab_deferred_first(unsigned int cpu)
{
	return __atomic_load_n(&per_cpu_ptr(slab_defer, cpu)->first,
			       __ATOMIC_ACQUIRE);
}

/* For mm/mm_check.c: the object parked after this one, decoded as the
 * drain decodes it (free_deferred_objects()). */
void *slab_deferred_next(void *object)
{
	return get_deferred_link(virt_to_slab(object)->slab_cache, object);
}

#ifdef HOST_TEST
/* Host tests: forget every parked object before the arena is freed. */
void slab_deferred_host_reset(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		per_cpu_ptr(slab_defer, cpu)->first = NULL;
		per_cpu_ptr(slab_defer, cpu)->count = 0;
	}
}
#endif
