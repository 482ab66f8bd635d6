/*
 * slab.c - the slab core: slabs over buddy blocks, their hardened
 * freelists and lists, and objects to and from them; kmem_cache_alloc(),
 * kmem_cache_free() and their bulk and node variants; the NUMA rules.
 *
 * The slab layer in files (docs/slab-and-sheaves.md walks through them):
 *   slab.c         this file: slabs, objects to and from them, allocation
 *                  and free, nodes
 *   sheaf.c        per-CPU sheaves and the per-node barn: the fast paths
 *   slab_nolock.c  the same from any context, and the deferred list
 *   slab_debug.c   reports and the checks of debug caches
 *   slab_common.c  the life of a cache: geometry, create, shrink, destroy,
 *                  boot, slabinfo and statistics
 *   kmalloc.c      size classes over those caches; slab_rcu.c kfree_rcu()
 *   slab_internal.h  what they share: struct kmem_cache, the inline fast
 *                  paths, the object layout and the free-pointer helpers
 *
 * A slab is a buddy block of 2^s->order pages cut into s->objects objects
 * of s->size bytes.  Every page of the block has PG_slab and points at the
 * head page (page->private_data), so virt_to_slab() finds the head from any
 * address inside; the head's slab arm holds the cache, the freelist and the
 * count of objects handed out (inuse).
 *
 * Free objects of a slab form a singly linked list through a free pointer
 * stored inside each object at s->offset.  The pointer is *hardened*: what
 * is stored is  next ^ s->random ^ swab(address of the slot itself)
 * (slab_internal.h), so a stray write of a plausible pointer decodes to
 * garbage, and the decoded value is checked to lie on an object boundary
 * inside the same slab before it is followed.  The head (page->freelist)
 * is encoded the same way against its own address.  A free refuses an
 * object that is already the head of its slab's freelist (free(a);
 * free(a) would otherwise make a its own successor), as Linux's hardened
 * freelist does; debug caches check double frees fully (slab_debug.c).
 * The object layout (where the free pointer, red zone and tracks sit) is
 * drawn in slab_internal.h.
 *
 * Slabs of a node sit on `partial` (some objects free) or `full` (none
 * free).  A slab that becomes empty goes back to the buddy unless fewer
 * than s->min_partial slabs are on the partial list.  Tracking full slabs
 * costs a list move and lets kmem_cache_destroy() name every leaked object.
 *
 * Lock order (outermost first), for the whole slab allocator; the other
 * slab files point here:
 *
 *   0. slab_caches_lock        spinlock, IRQs off (slab_common.c): the
 *                              cache list; slabinfo_show() takes each
 *                              list_lock inside it, and the rcu_free
 *                              flush IPI (rcu_sheaf_flush_cpu(), sheaf.c)
 *                              tries each cache's sheaf lock (1)
 *   1. cpu_sheaves[cpu].lock   local_trylock_t, this CPU only (sheaf.c);
 *                              tried, IRQs off, by the slow paths; the
 *                              inline fast paths only read its flag
 *                              (restartable sequences, slab_internal.h)
 *   2. node->barn.lock         spinlock, IRQs off (sheaf.c)
 *   3. node->list_lock         spinlock, IRQs off (this file)
 *   4. the page allocator's locks (pcp->lock, zone->lock)
 *
 * No path takes them in another order, and 2 and 3 are never held
 * together: sheaf.c moves sheaves under the barn lock but flushes or
 * refills their objects only after dropping it.  list_lock is never held
 * across alloc_pages()/__free_pages(): new slabs are made before taking it
 * and empty ones freed after dropping it, so a later trylock-only path
 * (kmalloc_nolock) can swap in try_alloc_pages() without inverting any
 * order.  Functions ending in _locked expect list_lock held.  The
 * any-context paths (slab_nolock.c) take the same locks in the same order,
 * each only tried, once.  The console's lock (kernel/printk.c) comes after
 * all of them: a report (slab_bug()) prints under list_lock, a traced
 * step (stat(), slab_trace.c) under the sheaf lock, slabinfo under
 * slab_caches_lock.  docs/slab-and-sheaves.md draws every nesting.
 *
 * SHADOW (host only, include/kasan.h).  A new slab is poisoned whole; an
 * object is unpoisoned (kasan_slab_alloc()) as it leaves for a caller and
 * poisoned (kasan_slab_free()) once slab_free_check() accepted its free.
 * This file reads and writes free objects and metadata by design, so the
 * host builds it without ASan instrumentation (as slab_nolock.c and
 * slab_debug.c), and slab_fill() writes the bytes no caller owns.  Empty
 * in the kernel.
 */
#include <kernel.h>
#include <printk.h>
#include <string.h>
#include "internal.h"
#include "slab_internal.h"

/* ---------------------------------------------------------------------- */
/* Slabs and object addresses (the inline helpers: slab_internal.h)        */
/* ---------------------------------------------------------------------- */

/*
 * Is p the first byte of an object in some slab (of any cache)?  Safe on
 * any value: it reads only the memmap, never p itself.
 */
bool is_slab_object(const void *p)
{
	struct page *slab = virt_to_slab(p);
	struct kmem_cache *s;

	if (!slab)
		return false;
	s = READ_ONCE(slab->slab_cache);
	return s && object_index(s, slab, p) >= 0;
}

/*
 * Cheap check on every free, debug or not: object must be the start of an
 * object in a slab of s.  Debug caches check the rest (double free, red
 * zones) under list_lock.
 */
bool slab_free_check(struct kmem_cache *s, const void *object,
		     unsigned long caller)
{
	struct page *slab = virt_to_slab(object);

	if (unlikely(!slab || slab->slab_cache != s)) {
		slab_bug(s, object, caller,
			 "invalid free: not an object of this cache%s%s",
			 slab ? ", it belongs to " : "",
			 slab ? slab->slab_cache->name : "");
		return false;
	}
	if (unlikely(object_index(s, slab, object) < 0)) {
		slab_bug(s, object, caller,
			 "invalid free: not the start of an object");
		return false;
	}
	return true;
}

/* ---------------------------------------------------------------------- */
/* Making and unmaking slabs (no lock held)                                */
/* ---------------------------------------------------------------------- */

/* Turn a fresh buddy block into a slab of s with every object free. */
static struct page *setup_slab(struct kmem_cache *s, struct page *slab)
{
	unsigned int i, nr_pages = 1u << s->order;
	char *base, *p;

	/* Every page: its head, its cache and the slab's first byte, so the
	 * free fast paths start from whichever page the object lies in. */
	for (i = 0; i < nr_pages; i++) {
		slab[i].private_data = (unsigned long)slab;
		slab[i].slab_cache = s;
		slab[i].slab_start = (unsigned long)slab_base(slab);
		slab[i].flags |= PG_slab;
	}
	slab->objects = (unsigned short)s->objects;
	slab->inuse = 0;
	slab->frozen = 0;
	INIT_LIST_HEAD(&slab->lru);

	/* Link the objects in address order; run each constructor once. */
	base = slab_base(slab);
	for (i = 0; i < s->objects; i++) {
		p = base + (unsigned long)i * s->size;
		if (is_debug_cache(s))
			init_object(s, p, SLUB_RED_INACTIVE);
		if (s->flags & SLAB_STORE_USER)   /* no stale "last free by" */
			slab_fill(slab_object_tracks(s, p), 0,
				  2 * sizeof(struct slab_track));
		if (s->ctor)
			s->ctor(p);
		set_freepointer(s, p, i + 1 < s->objects ? p + s->size : NULL);
	}
	set_slab_freelist(s, slab, base);
	/* Every byte of a new slab is the allocator's until handed out. */
	kasan_poison(page_address(slab), PAGE_SIZE << s->order);
	stat(s, ALLOC_SLAB);
	return slab;
}

/* A new slab on node nid, or (without __GFP_THISNODE) the nearest node
 * with memory the page allocator finds. */
struct page *allocate_slab(struct kmem_cache *s, gfp_t gfp, int nid)
{
	/* One read of the flag: tracing turned on meanwhile must not print
	 * from a snapshot that was never taken. */
	bool traced = READ_ONCE(s->flags) & SLAB_TRACED;
	struct slab_trace_pages before;
	struct page *slab;

	if (unlikely(traced))
		slab_trace_pages_before(&before, nid);
	slab = alloc_pages_node(nid, (gfp & ~__GFP_ZERO) | __GFP_NOWARN,
				s->order);
	if (!slab)
		return NULL;
	if (unlikely(traced))
		slab_trace_pages_after(s, &before, slab);
	return setup_slab(s, slab);
}

/* Any context: one try at the page allocator; *busy as try_alloc_pages. */
struct page *allocate_slab_nolock(struct kmem_cache *s, gfp_t gfp,
				  int nid, bool *busy)
{
	bool traced = READ_ONCE(s->flags) & SLAB_TRACED;   /* read once */
	struct slab_trace_pages before;
	struct page *slab;

	if (unlikely(traced))
		slab_trace_pages_before(&before, nid);
	slab = __try_alloc_pages(nid, gfp, s->order, busy);
	if (!slab)
		return NULL;
	if (unlikely(traced))
		slab_trace_pages_after(s, &before, slab);
	return setup_slab(s, slab);
}

/*
 * A SLAB_TYPESAFE_BY_RCU slab's pages, after the grace period (slab_rcu.c):
 * IRQs on, never in NMI context.  free_slab() left the cache in the head's
 * slab_cache and the order in private_data, nothing else of the slab.
 */
static void free_slab_rcu_cb(struct rcu_head *head)
{
	struct page *slab = container_of(head, struct page, rcu_head);
	struct kmem_cache *s = slab->slab_cache;
	unsigned int order = (unsigned int)slab->private_data;

	slab->slab_cache = NULL;
	slab->private_data = 0;
	INIT_LIST_HEAD(&slab->lru);   /* it shared rcu_head's words */
	__free_pages(slab, order);
	slab_rcu_pending_dec(s);
}

/*
 * LOCK_TRY: the any-context free of pages (never waits).  The slab
 * stops being one here (a late free of one of its objects is refused as
 * no slab's), and is counted freed; a SLAB_TYPESAFE_BY_RCU slab's memory
 * stays as it is until a grace period has passed (call_rcu() works in
 * any context), so readers that found an object in it still read one.
 */
void free_slab(struct kmem_cache *s, struct page *slab, enum lock_how how)
{
	unsigned int i, nr_pages = 1u << s->order;

	for (i = 0; i < nr_pages; i++) {
		slab[i].flags &= ~PG_slab;
		slab[i].private_data = 0;
		slab[i].slab_cache = NULL;
		slab[i].slab_start = 0;
	}
	slab->freelist = NULL;
	slab->counters = 0;   /* inuse, objects, frozen */
	stat(s, FREE_SLAB);
	if (s->flags & SLAB_TYPESAFE_BY_RCU) {
		slab->slab_cache = s;
		slab->private_data = s->order;
		slab_rcu_pending_inc(s);
		call_rcu(&slab->rcu_head, free_slab_rcu_cb);
		return;
	}
	INIT_LIST_HEAD(&slab->lru);
	if (how == LOCK_SPIN)
		__free_pages(slab, s->order);
	else
		free_pages_nolock(slab, s->order);
}

void free_slab_list(struct kmem_cache *s, struct list_head *list,
		    enum lock_how how)
{
	struct page *slab, *next;

	if (list_empty(list))   /* the common case: nothing to free */
		return;
	list_for_each_entry_safe(slab, next, list, lru) {
		list_del(&slab->lru);
		free_slab(s, slab, how);
	}
}

/* ---------------------------------------------------------------------- */
/* Objects to and from slabs (list_lock)                                   */
/* ---------------------------------------------------------------------- */

/*
 * Take up to nr objects from one slab on the partial list; move it to
 * `full` when it runs out.  A decoded free pointer that is not an object
 * of this slab is reported and never followed: the objects beyond it are
 * lost (counted as in use) rather than handed out.  Returns how many.
 */
static unsigned int take_from_slab_locked(struct kmem_cache *s,
					  struct kmem_cache_node *n,
					  struct page *slab, unsigned int nr,
					  void **p, unsigned long caller)
{
	void *object = slab_freelist(s, slab);
	unsigned int got = 0;
	bool lost = false;

	/* Lockless frees may push on it meanwhile: cmpxchg16b. */
	if (cache_has_cpu_slab(s))
		return cpu_slab_take_locked(s, n, slab, nr, p, caller);
	lockdep_assert_held(&n->list_lock);
	mm_point(MM_POINT_SLAB_LIST_LOCKED, s);
	while (got < nr && object) {
		void *next = get_freepointer(s, object);

		if (unlikely(next && object_index(s, slab, next) < 0)) {
			slab_bug(s, object, caller,
				 "free pointer corrupted: it decodes to %p, not an object of this slab",
				 next);
			next = NULL;
			lost = true;
		}
		clear_freepointer(s, object);
		if (is_debug_cache(s))
			alloc_debug_checks(s, object, caller);
		p[got++] = object;
		slab->inuse++;
		object = next;
	}
	set_slab_freelist(s, slab, object);
	if (lost)
		slab->inuse = slab->objects;
	if (!object) {
		list_move(&slab->lru, &n->full);
		n->nr_partial--;
	}
	return got;
}

/* ---- which node (include/slab.h, slab_numa_mode) ---- */

enum slab_numa_mode slab_numa_mode = SLAB_NUMA_LINUX;

const char *const slab_numa_mode_names[NR_SLAB_NUMA_MODES] = {
	[SLAB_NUMA_BLIND] = "blind",
	[SLAB_NUMA_LINUX] = "linux",
	[SLAB_NUMA_STRICT] = "strict",
};

/* Up to nr objects from node nid's partial slabs; returns how many. */
static unsigned int take_from_node_partial(struct kmem_cache *s, int nid,
					   int preferred, unsigned int nr,
					   void **p, unsigned long caller)
{
	struct kmem_cache_node *n = get_node(s, nid);
	unsigned int got = 0;
	unsigned long flags;
	struct page *slab;

	spin_lock_irqsave(&n->list_lock, flags);
	while (got < nr && !list_empty(&n->partial)) {
		slab = list_first_entry(&n->partial, struct page, lru);
		got += take_from_slab_locked(s, n, slab, nr - got, p + got,
					     caller);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	if (got)
		numa_stat_count(NUMA_STAT_OBJECTS, preferred, nid, got);
	return got;
}

/* A new slab joins its node's partial list and gives up to nr objects. */
static unsigned int take_from_new_slab(struct kmem_cache *s,
				       struct page *slab, int preferred,
				       unsigned int nr, void **p,
				       unsigned long caller)
{
	int nid = slab_nid(slab);
	struct kmem_cache_node *n = get_node(s, nid);
	unsigned int got;
	unsigned long flags;

	mm_point(MM_POINT_SLAB_NEW_UNLINKED, s);
	spin_lock_irqsave(&n->list_lock, flags);
	list_add(&slab->lru, &n->partial);
	n->nr_partial++;
	n->nr_slabs++;
	got = take_from_slab_locked(s, n, slab, nr, p, caller);
	spin_unlock_irqrestore(&n->list_lock, flags);
	numa_stat_count(NUMA_STAT_OBJECTS, preferred, nid, got);
	return got;
}

/* One object from node nid's first partial slab, list_lock tried once. */
void *slab_alloc_partial_nolock(struct kmem_cache *s, int nid, int preferred,
				bool *busy, unsigned long caller)
{
	struct kmem_cache_node *n = get_node(s, nid);
	void *object = NULL;
	unsigned long flags;
	struct page *slab;

	if (!spin_trylock_irqsave(&n->list_lock, flags)) {
		*busy = true;
		return NULL;
	}
	if (!list_empty(&n->partial)) {
		slab = list_first_entry(&n->partial, struct page, lru);
		take_from_slab_locked(s, n, slab, 1, &object, caller);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	if (object)
		numa_stat_count(NUMA_STAT_OBJECTS, preferred, nid, 1);
	return object;
}

/* One object from a fresh slab (on node preferred, or with gfp allowing
 * it the nearest node with memory); the slab joins its node only if
 * list_lock can be had, else it goes straight back (hazard 2). */
void *slab_alloc_new_nolock(struct kmem_cache *s, gfp_t gfp, int preferred,
			    bool *busy, unsigned long caller)
{
	struct kmem_cache_node *n;
	void *object = NULL;
	unsigned long flags;
	struct page *slab;

	slab = allocate_slab_nolock(s, gfp, preferred, busy);
	if (!slab)
		return NULL;
	n = get_node(s, slab_nid(slab));
	mm_point(MM_POINT_SLAB_NEW_NOLOCK, s);
	if (!spin_trylock_irqsave(&n->list_lock, flags)) {
		/* Never on the node's lists nor in nr_slabs: freeing it
		 * (counted in FREE_SLAB) puts every count back. */
		*busy = true;
		free_slab(s, slab, LOCK_TRY);
		return NULL;
	}
	list_add(&slab->lru, &n->partial);
	n->nr_partial++;
	n->nr_slabs++;
	take_from_slab_locked(s, n, slab, 1, &object, caller);
	spin_unlock_irqrestore(&n->list_lock, flags);
	numa_stat_count(NUMA_STAT_OBJECTS, preferred, slab_nid(slab), 1);
	return object;
}

/*
 * Take nr objects for a request that prefers node `node`, in this order:
 *   1. the preferred node's partial slabs;
 *   2. new slabs on the preferred node;
 *   and, when another node may serve (slab_node_fallback_allowed()):
 *   3. the other nodes' partial slabs, nearest first;
 *   4. new slabs wherever the page allocator finds memory, nearest first.
 * (Linux tries other nodes' partial slabs before a new local slab; this
 * order keeps objects local while the node has memory.)  No lock is held
 * across a call into the page allocator.  Returns how many it got (fewer
 * only when no allowed node has memory).
 */
unsigned int __slab_alloc_bulk(struct kmem_cache *s, gfp_t gfp, int node,
			       unsigned int nr, void **p, unsigned long caller)
{
	int preferred = slab_preferred_node(node);
	const int *fallback;
	unsigned int got, i;
	struct page *slab;

	if (preferred < 0)
		return 0;
	got = take_from_node_partial(s, preferred, preferred, nr, p, caller);
	while (got < nr) {
		mm_point(MM_POINT_SLAB_ALLOC_UNLOCKED, s);
		/* No lock held: the buddy may take its own. */
		slab = NODE_DATA(preferred) ?
		       allocate_slab(s, gfp | __GFP_THISNODE, preferred) : NULL;
		if (!slab)
			break;
		got += take_from_new_slab(s, slab, preferred, nr - got,
					  p + got, caller);
	}
	if (got == nr || !slab_node_fallback_allowed(gfp))
		return got;
	fallback = node_fallback(preferred);
	for (i = 0; got < nr && fallback[i] != NUMA_NO_NODE; i++)
		if (fallback[i] != preferred)
			got += take_from_node_partial(s, fallback[i], preferred,
						      nr - got, p + got,
						      caller);
	while (got < nr) {
		slab = allocate_slab(s, gfp & ~__GFP_THISNODE, preferred);
		if (!slab)
			break;
		got += take_from_new_slab(s, slab, preferred, nr - got,
					  p + got, caller);
	}
	return got;
}

/*
 * Put one object back on its slab.  An empty slab beyond the node's
 * minimum is unlinked onto *discard for the caller to free unlocked.
 */
void free_to_slab_locked(struct kmem_cache *s, struct kmem_cache_node *n,
			 struct page *slab, void *object,
			 struct list_head *discard, unsigned long caller)
{
	lockdep_assert_held(&n->list_lock);
	mm_point(MM_POINT_SLAB_LIST_LOCKED, s);
	if (unlikely(object_is_parked(s, object))) {
		slab_bug(s, object, caller,
			 "double free: the object is parked on a deferred-free list");
		return;
	}
	/* free(a); free(a) included: the head's slot is a freelist link. */
	if (unlikely(object_looks_free(s, slab, object))) {
		slab_bug(s, object, caller,
			 "double free: the object's free pointer says it is free");
		return;
	}
	/* Last: they repaint the object for a free one. */
	if (is_debug_cache(s) &&
	    !free_debug_checks_locked(s, slab, object, caller))
		return;
	set_freepointer(s, object, slab_freelist(s, slab));
	set_slab_freelist(s, slab, object);
	if (slab->inuse-- == slab->objects) {
		list_move(&slab->lru, &n->partial);
		n->nr_partial++;
	}
	if (slab->inuse == 0 && n->nr_partial > s->min_partial) {
		list_move(&slab->lru, discard);
		n->nr_partial--;
		n->nr_slabs--;
	}
}

/* Each object to its slab, under its node's list_lock (taken once for a
 * run of objects of one node). */
void __slab_free_bulk(struct kmem_cache *s, unsigned int nr, void **p,
		      unsigned long caller)
{
	struct kmem_cache_node *n = NULL;
	LIST_HEAD(discard);
	unsigned long flags = 0;
	unsigned int i;

	/* A cpu-slab cache's slab may be frozen: its own rules, each. */
	if (cache_has_cpu_slab(s)) {
		for (i = 0; i < nr; i++)
			cpu_slab_free(s, p[i], LOCK_SPIN, caller);
		return;
	}
	for (i = 0; i < nr; i++) {
		struct page *slab = virt_to_slab(p[i]);
		struct kmem_cache_node *want = get_node(s, slab_nid(slab));

		if (want != n) {
			if (n)
				spin_unlock_irqrestore(&n->list_lock, flags);
			n = want;
			spin_lock_irqsave(&n->list_lock, flags);
		}
		free_to_slab_locked(s, n, slab, p[i], &discard, caller);
	}
	if (n)
		spin_unlock_irqrestore(&n->list_lock, flags);
	mm_point(MM_POINT_SLAB_DISCARD_UNLOCKED, s);
	free_slab_list(s, &discard, LOCK_SPIN);
}

/* ---------------------------------------------------------------------- */
/* Allocation and free                                                     */
/* ---------------------------------------------------------------------- */

void *slab_alloc_caller(struct kmem_cache *s, gfp_t gfp, unsigned long caller)
{
	void *object = NULL;

	/* It would spin on locks the NMI may have interrupted: a bug in the
	 * caller, who wanted kmalloc_nolock().  Refused, as alloc_pages(). */
	if (WARN_ON_ONCE(in_nmi()))
		return NULL;

	if (cache_has_sheaves(s))
		object = alloc_from_pcs(s, gfp);
	else if (cache_has_cpu_slab(s))
		object = cpu_slab_alloc(s, gfp, LOCK_SPIN, NULL, caller);
	if (!object) {
		if (__slab_alloc_bulk(s, gfp, NUMA_NO_NODE, 1, &object,
				      caller) != 1)
			return NULL;
		stat(s, ALLOC_SLOWPATH);
	}
	return slab_post_alloc_hook(s, object, gfp);
}

void *slab_alloc_node_caller(struct kmem_cache *s, gfp_t gfp, int node,
			     unsigned long caller)
{
	bool busy = false;
	void *object = NULL;

	/* Node-blind sheaves serve any node, but never a __GFP_THISNODE
	 * request: that is a contract of the caller's, not a preference. */
	if (node == NUMA_NO_NODE ||
	    (slab_numa_mode == SLAB_NUMA_BLIND && node_online(node) &&
	     !(gfp & __GFP_THISNODE)))
		return slab_alloc_caller(s, gfp, caller);
	if (WARN_ON_ONCE(in_nmi()))
		return NULL;
	if (slab_preferred_node(node) < 0) {
		pr_warn("slab: %s: node %d is not an online node\n",
			s->name, node);
		return NULL;
	}
	if (cache_has_sheaves(s) && node == numa_mem_id())
		object = alloc_from_pcs_node(s, node, &busy);
	else if (cache_has_cpu_slab(s) && node == numa_mem_id())
		object = cpu_slab_alloc(s, gfp, LOCK_SPIN, NULL, caller);
	if (!object) {
		if (__slab_alloc_bulk(s, gfp, node, 1, &object, caller) != 1)
			return NULL;
		stat(s, ALLOC_SLOWPATH);
	}
	return slab_post_alloc_hook(s, object, gfp);
}

void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfp, int node)
{
	return slab_alloc_node_caller(s, gfp, node, _RET_IP_);
}

/*
 * Past the sheaf fast paths: a cpu-slab cache's fast path, then the full
 * path.  Out of line, so the sheaf fast paths around them are what they
 * were, instruction for instruction.
 */
static __noinline void *kmem_cache_alloc_slow(struct kmem_cache *s, gfp_t gfp,
					      unsigned long caller)
{
	void *object;

	if (cache_has_cpu_slab(s) && !(gfp & __GFP_ZERO)) {
		object = cpu_slab_alloc_fastpath(s);
		if (likely(object))
			return object;
	}
	return slab_alloc_caller(s, gfp, caller);
}

static __noinline void kmem_cache_free_slow(struct kmem_cache *s,
					    void *object, unsigned long caller)
{
	if (cache_has_cpu_slab(s) && !in_nmi() &&
	    slab_fast_free_cache(object) == s) {
		cpu_slab_free_checked(s, object, caller);
		return;
	}
	if (!object)
		return;
	slab_free(s, object, caller);
}

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp)
{
	void *object;

	/* A cache without sheaves would go slow by itself (every CPU's main
	 * is the empty, capacity-0 bootstrap sheaf), but asking first keeps
	 * its path free of a pop that cannot succeed. */
	if (likely(cache_has_sheaves(s) && !(gfp & __GFP_ZERO))) {
		object = pcs_alloc_fast(s);
		if (likely(object))
			return object;
	}
	return kmem_cache_alloc_slow(s, gfp, _RET_IP_);
}

void slab_free(struct kmem_cache *s, void *object, unsigned long caller)
{
	if (in_nmi()) {
		/* The ordinary path may spin: take the any-context one. */
		slab_free_nolock(s, object, caller);
		return;
	}
	/* A cpu-slab cache's fast path checks what the sheaves' does: the
	 * first byte of an object of this very cache (slab_fast_free_cache()). */
	if (cache_has_cpu_slab(s) && slab_fast_free_cache(object) == s) {
		cpu_slab_free_checked(s, object, caller);
		return;
	}
	if (!slab_free_check(s, object, caller))
		return;
	kasan_slab_free(s, object);
	/* free_to_pcs() refuses an object that must skip the sheaves. */
	if (cache_has_sheaves(s) && free_to_pcs(s, object))
		return;
	if (cache_has_cpu_slab(s)) {
		cpu_slab_free(s, object, LOCK_SPIN, caller);
		return;
	}
	__slab_free_bulk(s, 1, &object, caller);
	stat(s, FREE_SLOWPATH);
}

void kmem_cache_free(struct kmem_cache *s, void *object)
{
	/* Fast path only for an object of this very cache (NULL is no
	 * object of any: slab_fast_free_cache() refuses it); anything else
	 * goes to slab_free(), which reports it.  A cache without sheaves
	 * goes straight there, as in kmem_cache_alloc(). */
	if (likely(cache_has_sheaves(s) &&
		   slab_fast_free_cache(object) == s &&
		   pcs_free_fast(s, object)))
		return;
	kmem_cache_free_slow(s, object, _RET_IP_);
}

int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t nr,
			  void **p)
{
	unsigned int got = 0, slow;
	size_t i;

	/* As kmem_cache_alloc(): a bug in the caller, refused. */
	if (WARN_ON_ONCE(in_nmi()))
		return 0;
	if (cache_has_sheaves(s))
		got = alloc_from_pcs_bulk(s, (unsigned int)nr, p);
	else if (cache_has_cpu_slab(s))
		while (got < nr &&
		       (p[got] = cpu_slab_alloc(s, gfp, LOCK_SPIN, NULL,
						     _RET_IP_)))
			got++;
	if (got < nr) {
		slow = __slab_alloc_bulk(s, gfp, NUMA_NO_NODE,
					 (unsigned int)nr - got, p + got,
					 _RET_IP_);
		stat_add(s, ALLOC_SLOWPATH, slow);
		got += slow;
	}
	if (got < nr) {
		kmem_cache_free_bulk(s, got, p);
		return 0;
	}
	for (i = 0; i < nr; i++)
		kasan_slab_alloc(s, p[i]);
	if (gfp & __GFP_ZERO)
		for (i = 0; i < nr; i++)
			memset(p[i], 0, s->object_size);
	return (int)nr;
}

void kmem_cache_free_bulk(struct kmem_cache *s, size_t nr, void **p)
{
	unsigned int done = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		/* Each an object's first byte in a slab of s, as the free fast
		 * paths ask; in an NMI one at a time too: kmem_cache_free()
		 * takes the any-context path there, the batch paths spin. */
		if (slab_object_cache(p[i]) != s || in_nmi()) {
			/* Something odd in the batch: one at a time. */
			for (i = 0; i < nr; i++)
				kmem_cache_free(s, p[i]);
			return;
		}
	}
	for (i = 0; i < nr; i++)
		kasan_slab_free(s, p[i]);
	if (cache_has_sheaves(s))
		done = free_to_pcs_bulk(s, (unsigned int)nr, p);
	if (done < nr) {
		__slab_free_bulk(s, (unsigned int)nr - done, p + done, _RET_IP_);
		stat_add(s, FREE_SLOWPATH, nr - done);
	}
}

/* ---------------------------------------------------------------------- */
/* Objects from addresses, freelists decoded (kfree_rcu(), mm_check.c)     */
/* ---------------------------------------------------------------------- */

void *slab_object_containing(const struct kmem_cache *s, struct page *slab,
			     const void *p)
{
	unsigned long idx = ((unsigned long)p -
			     (unsigned long)slab_base(slab)) / s->size;

	return (char *)slab_base(slab) + idx * s->size;
}

/* For mm/mm_check.c: a slab's freelist decoded, whatever the encoding. */
void *slab_check_first_free(const struct kmem_cache *s, struct page *slab)
{
	return slab_freelist(s, slab);
}

void *slab_check_next_free(const struct kmem_cache *s, void *object)
{
	return get_freepointer(s, object);
}

/* ---------------------------------------------------------------------- */
/* Nodes and sheaves (include/slab.h: slab_numa_mode)                     */
/* ---------------------------------------------------------------------- */

void slab_numa_cpu_update(unsigned int cpu)
{
	struct percpu *p = &percpu_areas[cpu];
	unsigned long node_bits = (unsigned long)PAGE_NID_MASK << PAGE_NID_SHIFT;
	unsigned long want = PG_slab;
	unsigned long mask = PG_slab;

	if (slab_numa_mode != SLAB_NUMA_BLIND) {
		want |= (unsigned long)p->numa_mem << PAGE_NID_SHIFT;
		mask |= node_bits;
	}
	/* Both always hold PG_slab, so a reader that sees one old and one
	 * new word still takes only slab pages (and, at worst, sends a local
	 * object the slow way once). */
	WRITE_ONCE(p->slab_free_flags_want, want);
	WRITE_ONCE(p->slab_free_flags_mask, mask);
}

void slab_set_numa_mode(enum slab_numa_mode mode)
{
	struct kmem_cache *s;
	unsigned int cpu;

	if (mode >= NR_SLAB_NUMA_MODES)
		return;
	WRITE_ONCE(slab_numa_mode, mode);
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		slab_numa_cpu_update(cpu);
	/* What the sheaves and barns hold was chosen under the old rules.
	 * Caches are never destroyed while a test switches modes (the
	 * tests and the benchmark own the caches they make). */
	list_for_each_entry(s, &slab_caches, list)
		flush_all_sheaves(s);
}
