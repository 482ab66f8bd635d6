/*
 * slab_rcu.c - freeing slab objects after a grace period: kfree_rcu(),
 * kfree_rcu_nolock(), kvfree_rcu_barrier(), the per-cache barrier of
 * kmem_cache_destroy(), and SLAB_TYPESAFE_BY_RCU slabs (include/slab.h is
 * the API, include/rcupdate.h the RCU underneath, docs/rcu.md the tour).
 *
 * Where a kfree_rcu()'d object goes, cheapest first:
 *
 *   1. this CPU's rcu_free sheaf of the object's cache (mm/sheaf.c): the
 *      object's cache comes from its page, as kfree() finds it.  A full
 *      sheaf is handed to call_rcu() whole, one callback for a sheaf of
 *      objects, and comes back after the grace period as a full sheaf in
 *      the barn: the objects are reused without touching a slab freelist.
 *   2. a call_rcu() of its own (a cache without sheaves, a debug cache, a
 *      large kmalloc block, or no rcu_free sheaf to be had): through the
 *      rcu_head at `field` inside the object; the callback finds the
 *      object's start from the head (kfree_rcu_object_of()) and kfree()s
 *      it.  The one-argument form has no head: it allocates a small
 *      struct kfree_rcu_ptr to carry the pointer, and if even that fails,
 *      waits for a grace period itself (synchronize_rcu()) and frees at
 *      once: why it is task context only.
 *   3. kfree_rcu_nolock(), any context: step 1 with trylocks and no
 *      allocation; else the rcu_head is pushed on this CPU's lock-free
 *      kfree_rcu_defer list and an irq_work hands each parked object to
 *      kvfree_call_rcu() (steps 1 and 2) soon after, in IRQ context.  The
 *      object is never lost and never freed early: parked, it has not
 *      even started waiting for its grace period.
 *
 * Invariants:
 *   - an object handed to kfree_rcu() is held (in use, as far as its slab
 *     knows) until the callback that frees it has run: in an rcu_free
 *     sheaf, a sheaf in flight, a pending call_rcu(), or parked on a
 *     kfree_rcu_defer list.  mm/mm_check.c counts the rcu_free sheaves'
 *     objects as held; the others are simply allocated objects.
 *   - s->rcu_pending counts what of s is in flight (sheaves, objects and,
 *     for SLAB_TYPESAFE_BY_RCU, slabs); each callback drops it as its last
 *     access to s.  Parked objects are not counted: every barrier drains
 *     the defer lists first (kfree_rcu_defer_flush_all()).
 *
 * Barriers.  kvfree_rcu_barrier(): drain the defer lists, flush every
 * CPU's rcu_free sheaf of every cache to call_rcu(), then rcu_barrier().
 * kmem_cache_destroy() does the same for its cache alone
 * (kmem_cache_rcu_barrier()), and again after it has freed its slabs when
 * they wait for a grace period (SLAB_TYPESAFE_BY_RCU).  Flush first, then
 * barrier: Linux's destroy once waited for the callbacks without
 * flushing, or flushed without waiting, and the sheaves in flight came back
 * to a cache that was gone (tests/kernel/slab_rcu_test.c's
 * destroy_waits_for_rcu_free_sheaves catches either).
 *
 * SLAB_TYPESAFE_BY_RCU: an empty slab leaves its lists as any other, but
 * its pages reach the buddy only from an RCU callback (slab.c,
 * free_slab()), so a reader that found an object before it was freed
 * reads memory that is still an object of this cache.  The object itself
 * may be reused at once; the reader re-checks its identity (docs/rcu.md).
 *
 * Locks: none of its own.  The defer list is an llist (any context
 * pushes; only its CPU drains, in IRQ context or an IPI).  The sheaf
 * paths take pcs->lock and the barn lock in slab.c's order.
 */
#include <cpumask.h>
#include <irq_work.h>
#include <kernel.h>
#include <kunit.h>
#include <llist.h>
#include <printk.h>
#include <rcupdate.h>
#include "slab_internal.h"

/* The one-argument kfree_rcu()'s carrier. */
struct kfree_rcu_ptr {
	struct rcu_head rh;
	void *ptr;
};

bool kfree_rcu_test_fail_carrier;

/* kfree_rcu_nolock()'s parked objects, per CPU. */
struct kfree_rcu_defer {
	struct llist_head heads;      /* rcu_heads inside parked objects */
	unsigned long count;          /* parked now (atomic) */
	struct irq_work work;         /* hands them on, in IRQ context */
};

static DEFINE_PER_CPU(struct kfree_rcu_defer, kfree_rcu_defer);

/* The slab cache of ptr when it is an object's first byte, else NULL. */
static __always_inline struct kmem_cache *kfree_rcu_cache(const void *ptr)
{
	return slab_object_cache(ptr);
}

/*
 * The object an rcu_head lies in: the slab object around it, or the large
 * kmalloc block whose first page holds it (kfree_rcu()'s field lies within
 * KFREE_RCU_MAX_OFFSET of the start, and a block starts on a page).
 */
static void *kfree_rcu_object_of(struct rcu_head *head)
{
	struct page *slab = virt_to_slab(head);

	if (slab)
		return slab_object_containing(slab->slab_cache, slab, head);
	return (void *)((unsigned long)head & ~(PAGE_SIZE - 1));
}

/* Step 2's callback: the grace period is over. */
static void kfree_rcu_object_cb(struct rcu_head *head)
{
	void *object = kfree_rcu_object_of(head);
	struct kmem_cache *s = kfree_rcu_cache(object);

	kfree(object);
	if (s)
		slab_rcu_pending_dec(s);
}

static void kfree_rcu_ptr_cb(struct rcu_head *head)
{
	struct kfree_rcu_ptr *kp = container_of(head, struct kfree_rcu_ptr, rh);
	struct kmem_cache *s = kfree_rcu_cache(kp->ptr);

	kfree(kp->ptr);
	kfree(kp);
	if (s)
		slab_rcu_pending_dec(s);
}

/*
 * Is ptr something kfree() takes?  Reported (as kfree() would) if not.  s
 * is kfree_rcu_cache(ptr): non-NULL only for an object's first byte in a
 * slab of s, which is all slab_free_check() would ask, so then there is
 * nothing left to check (as on kfree()'s fast path).
 */
static bool kfree_rcu_check(struct kmem_cache *s, void *ptr,
			    unsigned long caller)
{
	if (s)
		return true;
	if (kmalloc_large_block_start(ptr))
		return true;
	slab_bug(NULL, ptr, caller,
		 "kfree_rcu of a pointer kmalloc never returned");
	return false;
}

/* Step 2: a call_rcu() of the object's own, or of a carrier for it. */
static void kfree_rcu_fallback(struct kmem_cache *s, struct rcu_head *head,
			       void *ptr, unsigned long caller)
{
	struct kfree_rcu_ptr *kp;
	const char *why;

	if (s)
		stat(s, FREE_RCU_FALLBACK);
	if (head) {
		if (s)
			slab_rcu_pending_inc(s);
		call_rcu(head, kfree_rcu_object_cb);
		return;
	}
	kp = READ_ONCE(kfree_rcu_test_fail_carrier) ? NULL :
	     kmalloc(sizeof(*kp), GFP_NOWAIT);
	if (kp) {
		kp->ptr = ptr;
		if (s)
			slab_rcu_pending_inc(s);
		call_rcu(&kp->rh, kfree_rcu_ptr_cb);
		return;
	}
	/* Linux's kvfree_rcu_mightsleep(): wait, then free. */
	why = rcu_cannot_wait();
	if (why) {
		slab_bug(s, ptr, caller,
			 "kfree_rcu(ptr) without an rcu_head in %s, out of memory: the object is leaked",
			 why);
		return;
	}
	synchronize_rcu();
	kfree(ptr);
}

static void __kvfree_call_rcu(struct rcu_head *head, void *ptr,
			      unsigned long caller)
{
	struct kmem_cache *s;

	if (ZERO_OR_NULL_PTR(ptr))
		return;
	if (in_nmi()) {
		if (head) {
			kfree_rcu_nolock_call(head, ptr);
			return;
		}
		slab_bug(NULL, ptr, caller,
			 "kfree_rcu(ptr) in NMI context: kfree_rcu_nolock(ptr, field) is the call; the object is leaked");
		return;
	}
	s = kfree_rcu_cache(ptr);
	if (!kfree_rcu_check(s, ptr, caller))
		return;
	if (s && cache_has_sheaves(s) && free_to_rcu_sheaf(s, ptr, LOCK_SPIN))
		return;
	kfree_rcu_fallback(s, head, ptr, caller);
}

void kvfree_call_rcu(struct rcu_head *head, void *ptr)
{
	__kvfree_call_rcu(head, ptr, _RET_IP_);
}

/* IRQ context (its irq_work) or an IPI, on d's own CPU. */
static void kfree_rcu_defer_drain(struct kfree_rcu_defer *d)
{
	struct llist_node *n = llist_reverse_order(llist_del_all(&d->heads));

	while (n) {
		struct rcu_head *head = llist_entry(n, struct rcu_head, llnode);

		n = n->next;   /* kvfree_call_rcu() reuses the node */
		__kvfree_call_rcu(head, kfree_rcu_object_of(head), _RET_IP_);
		__atomic_fetch_sub(&d->count, 1, __ATOMIC_RELAXED);
	}
}

static void kfree_rcu_defer_work(struct irq_work *work)
{
	kfree_rcu_defer_drain(container_of(work, struct kfree_rcu_defer, work));
}

static void kfree_rcu_defer_flush_cpu(void *info)
{
	(void)info;
	kfree_rcu_defer_drain(this_cpu_ptr(kfree_rcu_defer));
}

/* Task context, IRQs on: every CPU's parked objects handed on now. */
static void kfree_rcu_defer_flush_all(void)
{
	on_each_cpu(kfree_rcu_defer_flush_cpu, NULL, true);
}

unsigned long kfree_rcu_deferred(unsigned int cpu)
{
	return __atomic_load_n(&per_cpu_ptr(kfree_rcu_defer, cpu)->count,
			       __ATOMIC_RELAXED);
}

void kfree_rcu_nolock_call(struct rcu_head *head, void *ptr)
{
	struct kfree_rcu_defer *d;
	struct kmem_cache *s;

	if (ZERO_OR_NULL_PTR(ptr))
		return;
	s = kfree_rcu_cache(ptr);
	if (s && cache_has_sheaves(s) && free_to_rcu_sheaf(s, ptr, LOCK_TRY))
		return;
	d = this_cpu_ptr(kfree_rcu_defer);
	/* Counted first: the count never reads less than the list holds. */
	__atomic_fetch_add(&d->count, 1, __ATOMIC_RELAXED);
	if (s)
		mm_point(MM_POINT_KFREE_RCU_PARKED, s);
	llist_add(&head->llnode, &d->heads);
	irq_work_queue(&d->work);
}

/* What of s is in flight, read with acquire: 0 means every callback is
 * done with s. */
static unsigned long slab_rcu_pending(struct kmem_cache *s)
{
	return __atomic_load_n(&s->rcu_pending, __ATOMIC_ACQUIRE);
}

void kmem_cache_rcu_barrier(struct kmem_cache *s)
{
	kfree_rcu_defer_flush_all();
	flush_rcu_sheaves(s);
	if (slab_rcu_pending(s))
		rcu_barrier();
}

void kmem_cache_rcu_barrier_slabs(struct kmem_cache *s)
{
	if (slab_rcu_pending(s))
		rcu_barrier();
}

void kvfree_rcu_barrier(void)
{
	kfree_rcu_defer_flush_all();
	flush_rcu_sheaves(NULL);
	rcu_barrier();
}

void slab_rcu_init(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		struct kfree_rcu_defer *d = per_cpu_ptr(kfree_rcu_defer, cpu);

		/* Once: on the host a queued work may outlive a reset. */
		if (!d->work.func)
			init_irq_work(&d->work, kfree_rcu_defer_work);
	}
}

#ifdef HOST_TEST
/* Host tests: forget parked objects before the test frees its arena. */
void slab_rcu_host_reset(void)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		init_llist_head(&per_cpu_ptr(kfree_rcu_defer, cpu)->heads);
		per_cpu_ptr(kfree_rcu_defer, cpu)->count = 0;
	}
}
#endif
