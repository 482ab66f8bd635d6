/*
 * slab.c - object caches over buddy blocks: slabs, hardened freelists,
 * cache creation and destruction, debugging, and slabinfo.
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
 * freelist does; debug caches check double frees fully.
 *
 * The object layout (where the free pointer, red zone and tracks sit) is
 * drawn in slab_internal.h, beside the helpers every slab file shares.
 *
 * Slabs of a node sit on `partial` (some objects free) or `full` (none
 * free).  A slab that becomes empty goes back to the buddy unless fewer
 * than s->min_partial slabs are on the partial list.  Tracking full slabs
 * costs a list move and lets kmem_cache_destroy() name every leaked object.
 *
 * Lock order (outermost first), for the whole slab allocator:
 *
 *   1. cpu_sheaves[cpu].lock   local_trylock_t, this CPU only (sheaf.c);
 *                              IRQs off in the slow paths, on in the
 *                              inline fast paths
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
 * each only tried, once.
 *
 * SHADOW (host only, include/kasan.h).  A new slab is poisoned whole; an
 * object is unpoisoned (kasan_slab_alloc()) as it leaves for a caller and
 * poisoned (kasan_slab_free()) once slab_free_check() accepted its free.
 * This file reads and writes free objects and metadata by design, so the
 * host builds it without ASan instrumentation, and slab_fill() writes the
 * bytes no caller owns.  Empty in the kernel.
 */
#include <kernel.h>
#include <kunit.h>
#include <printk.h>
#include <prandom.h>
#include <string.h>
#include "internal.h"
#include "slab_internal.h"

#define MIN_PARTIAL_LOW    2
#define MIN_PARTIAL_HIGH   5

BUILD_BUG_ON(sizeof(struct slub_percpu_sheaves) != SLAB_CACHE_LINE);

LIST_HEAD(slab_caches);
DEFINE_SPINLOCK(slab_caches_lock);

static bool slab_up;          /* kmem_cache works: caches can be made */
static bool slab_available;   /* and the kmalloc caches exist (atomic) */
static slab_flags_t slub_debug_flags;
static const char *slub_debug_names;   /* ",a,b" after the letters, or NULL */
static unsigned long cache_serial;

/*
 * The cache of struct kmem_cache, itself static so it needs no cache.
 * Static storage cannot wait for the CPU count, so it has room for
 * NR_CPUS lines; only the first nr_cpu_possible are ever used.  (A union
 * may hold a struct with a flexible array, C11 6.7.2.1.)
 */
static union {
	struct kmem_cache cache;
	char bytes[sizeof(struct kmem_cache) +
		   NR_CPUS * sizeof(struct slub_percpu_sheaves)];
} kmem_cache_boot_storage __aligned(SLAB_CACHE_LINE);
#define kmem_cache_boot (kmem_cache_boot_storage.cache)

const char *const slab_stat_names[NR_SLAB_STAT_ITEMS] = {
	[ALLOC_PCS] = "alloc_pcs",         [ALLOC_SLOWPATH] = "alloc_slow",
	[FREE_PCS] = "free_pcs",           [FREE_SLOWPATH] = "free_slow",
	[SHEAF_SWAP] = "sheaf_swap",       [SHEAF_REFILL] = "sheaf_refill",
	[SHEAF_FLUSH] = "sheaf_flush",     [SHEAF_ALLOC] = "sheaf_alloc",
	[SHEAF_FREE] = "sheaf_free",       [BARN_GET] = "barn_get",
	[BARN_GET_FAIL] = "barn_get_fail", [BARN_PUT] = "barn_put",
	[BARN_PUT_FAIL] = "barn_put_fail", [SHEAF_PREFILL] = "sheaf_prefill",
	[SHEAF_RETURN] = "sheaf_return",   [ALLOC_SLAB] = "slab_alloc",
	[FREE_SLAB] = "slab_free",         [SHEAF_FLUSH_BUSY] = "flush_busy",
	[FREE_RCU_SHEAF] = "free_rcu_sheaf",
	[FREE_RCU_FALLBACK] = "free_rcu_fallback",
	[RCU_SHEAF_SUBMIT] = "rcu_sheaf_submit",
	[RCU_SHEAF_RETURN] = "rcu_sheaf_return",
	[RCU_SHEAF_RETURN_FLUSH] = "rcu_sheaf_return_flush",
};

/*
 * True once kmem_cache_init() is over, kmalloc caches included.  Any
 * context: kmalloc_nolock() asks, and an NMI may arrive while
 * kmalloc_init() is still making the caches (slab_up is already true
 * then, so kmem_cache_create() works, but kmalloc's cache pointers are not
 * all set).
 */
bool slab_is_available(void)
{
	return __atomic_load_n(&slab_available, __ATOMIC_ACQUIRE);
}

const char *kmem_cache_name(const struct kmem_cache *s)
{
	return s->name;
}

unsigned int kmem_cache_size(const struct kmem_cache *s)
{
	return s->object_size;
}

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
	slab->objects = s->objects;
	slab->inuse = 0;
	INIT_LIST_HEAD(&slab->lru);

	/* Link the objects in address order; run each constructor once. */
	base = slab_base(slab);
	for (i = 0; i < s->objects; i++) {
		p = base + (unsigned long)i * s->size;
		if (is_debug_cache(s))
			init_object(s, p, false);
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
static struct page *allocate_slab(struct kmem_cache *s, gfp_t gfp, int nid)
{
	struct page *slab;

	slab = alloc_pages_node(nid, (gfp & ~__GFP_ZERO) | __GFP_NOWARN,
				s->order);
	return slab ? setup_slab(s, slab) : NULL;
}

/* Any context: one try at the page allocator; *busy as try_alloc_pages. */
static struct page *allocate_slab_nolock(struct kmem_cache *s, gfp_t gfp,
					 int nid, bool *busy)
{
	struct page *slab = __try_alloc_pages(nid, gfp, s->order, busy);

	return slab ? setup_slab(s, slab) : NULL;
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
 * allow_spin false: the any-context free of pages (never waits).  The slab
 * stops being one here (a late free of one of its objects is refused as
 * no slab's), and is counted freed; a SLAB_TYPESAFE_BY_RCU slab's memory
 * stays as it is until a grace period has passed (call_rcu() works in
 * any context), so readers that found an object in it still read one.
 */
void free_slab(struct kmem_cache *s, struct page *slab, bool allow_spin)
{
	unsigned int i, nr_pages = 1u << s->order;

	for (i = 0; i < nr_pages; i++) {
		slab[i].flags &= ~PG_slab;
		slab[i].private_data = 0;
		slab[i].slab_cache = NULL;
		slab[i].slab_start = 0;
	}
	slab->freelist = NULL;
	slab->inuse = 0;
	slab->objects = 0;
	stat(s, FREE_SLAB);
	if (s->flags & SLAB_TYPESAFE_BY_RCU) {
		slab->slab_cache = s;
		slab->private_data = s->order;
		slab_rcu_pending_inc(s);
		call_rcu(&slab->rcu_head, free_slab_rcu_cb);
		return;
	}
	INIT_LIST_HEAD(&slab->lru);
	if (allow_spin)
		__free_pages(slab, s->order);
	else
		free_pages_nolock(slab, s->order);
}

void free_slab_list(struct kmem_cache *s, struct list_head *list,
		    bool allow_spin)
{
	struct page *slab, *next;

	list_for_each_entry_safe(slab, next, list, lru) {
		list_del(&slab->lru);
		free_slab(s, slab, allow_spin);
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

	list_lock_irqsave(n, true, &flags);
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
	list_lock_irqsave(n, true, &flags);
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

	if (!list_lock_irqsave(n, false, &flags)) {
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
	if (!list_lock_irqsave(n, false, &flags)) {
		/* Never on the node's lists nor in nr_slabs: freeing it
		 * (counted in FREE_SLAB) puts every count back. */
		*busy = true;
		free_slab(s, slab, false);
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

	for (i = 0; i < nr; i++) {
		struct page *slab = virt_to_slab(p[i]);
		struct kmem_cache_node *want = get_node(s, slab_nid(slab));

		if (want != n) {
			if (n)
				spin_unlock_irqrestore(&n->list_lock, flags);
			n = want;
			list_lock_irqsave(n, true, &flags);
		}
		free_to_slab_locked(s, n, slab, p[i], &discard, caller);
	}
	if (n)
		spin_unlock_irqrestore(&n->list_lock, flags);
	mm_point(MM_POINT_SLAB_DISCARD_UNLOCKED, s);
	free_slab_list(s, &discard, true);
}

/* ---------------------------------------------------------------------- */
/* Cache geometry                                                          */
/* ---------------------------------------------------------------------- */

/*
 * slab_object_start()'s constants (mm/slab_internal.h): the stride as
 * d0 * 2^stride_shift with d0 odd, and d0's inverse modulo 2^64.  Newton's
 * step x' = x * (2 - d0 * x) doubles the number of correct low bits, and
 * x = d0 is right in the low 3 (an odd square is 1 mod 8): five steps give
 * 96 > 64.
 */
#define INVERSE_NEWTON_STEPS 5

void calculate_stride_inverse(struct kmem_cache *s)
{
	unsigned long d0, x;
	unsigned int i;

	s->stride_shift = (unsigned int)__builtin_ctz(s->size);
	d0 = s->size >> s->stride_shift;
	x = d0;
	for (i = 0; i < INVERSE_NEWTON_STEPS; i++)
		x *= 2 - d0 * x;
	BUG_ON(d0 * x != 1);
	s->stride_inverse = x;
}

static unsigned int ilog2_u(unsigned int v)
{
	return 31 - (unsigned int)__builtin_clz(v);
}

/*
 * Does the free pointer need a word of its own after the object (and its
 * red zone)?  Yes when no byte of a free object is left to hold it:
 *   - a constructor's work must survive in a free object;
 *   - poison fills every byte of a free object;
 *   - SLAB_TYPESAFE_BY_RCU: a reader may still read a free object's
 *     fields (it re-checks them), so none may be overwritten;
 *   - a red zone with an object under a word: a word in the middle would
 *     reach into the red zone, which the first allocation then reports;
 *   - a debug kmalloc cache red-zones the bytes past the size asked for,
 *     so the middle of the object may be red zone while it is allocated,
 *     and a deferred free links an object through that slot before the
 *     debug checks of the free have looked at it.
 */
static bool freeptr_outside_object(const struct kmem_cache *s)
{
	if (s->ctor || (s->flags & (SLAB_POISON | SLAB_TYPESAFE_BY_RCU)))
		return true;
	if (!(s->flags & SLAB_RED_ZONE))
		return false;
	return s->object_size < WORD || (s->flags & SLAB_KMALLOC);
}

/* Where the metadata goes and how far apart objects are. */
static void calculate_sizes(struct kmem_cache *s)
{
	unsigned int off;

	s->inuse = ALIGN_UP(s->object_size, (unsigned int)WORD);
	off = s->inuse;
	if (s->flags & SLAB_RED_ZONE)
		off += REDZONE_SIZE;
	if (freeptr_outside_object(s)) {
		s->offset = off;
		off += WORD;
	} else {
		s->offset = ALIGN_DOWN(s->object_size / 2, (unsigned int)WORD);
	}
	if (s->flags & SLAB_STORE_USER)
		off += 2 * sizeof(struct slab_track);
	s->orig_size_offset = 0;
	if ((s->flags & SLAB_KMALLOC) && (s->flags & SLAB_RED_ZONE)) {
		s->orig_size_offset = off;  /* one word: the size asked for */
		off += WORD;
	}
	s->size = ALIGN_UP(off, s->align);
}

/*
 * The slab order: the smallest that holds `want` objects, want being
 * SLAB_MIN_OBJECTS, or as many as the largest order holds for objects too
 * big for that.  That also bounds the waste, with no test of its own:
 * with want == SLAB_MIN_OBJECTS objects in the block the tail is shorter
 * than one object, so under 1/SLAB_MIN_OBJECTS of the block; with fewer,
 * only the largest order holds `want`, and there is no other choice.
 */
static bool calculate_order(struct kmem_cache *s)
{
	unsigned int order, want;

	if (s->size > (PAGE_SIZE << SLAB_MAX_ORDER))
		return false;
	want = min((unsigned int)((PAGE_SIZE << SLAB_MAX_ORDER) / s->size),
		   (unsigned int)SLAB_MIN_OBJECTS);
	for (order = 0; order < SLAB_MAX_ORDER; order++)
		if ((PAGE_SIZE << order) / s->size >= want)
			break;
	s->order = order;
	s->objects = min((unsigned int)((PAGE_SIZE << order) / s->size),
			 (unsigned int)SLAB_MAX_OBJECTS);
	/* The unused tail is shorter than a stride: a bigger order would
	 * fit another object. */
	return (PAGE_SIZE << order) - (unsigned long)s->objects * s->size <
	       s->size;
}

/*
 * The next cache name of slub_debug= (",a,b" after the letters): *p moves
 * past it; false once the list is done.
 */
static bool slub_debug_next_name(const char **p, const char **name,
				 size_t *len)
{
	const char *end;

	if (!*p || !**p)
		return false;
	(*p)++;                         /* the comma */
	end = strchr(*p, ',');
	if (!end)
		end = *p + strlen(*p);
	*name = *p;
	*len = (size_t)(end - *p);
	*p = end;
	return true;
}

static bool slub_debug_selects(const char *name)
{
	const char *p = slub_debug_names, *n;
	size_t len;

	if (!slub_debug_flags)
		return false;
	if (!p || !*p)
		return true;            /* no names: every cache */
	while (slub_debug_next_name(&p, &n, &len))
		if (len == strlen(name) && !strncmp(n, name, len))
			return true;
	return false;
}

/* `slub_debug=[FZPU][,cache,...]`: no letters means all checks. */
static void slub_debug_parse(const char *opt)
{
	if (!opt)
		return;
	for (; *opt && *opt != ','; opt++) {
		switch (*opt) {
		case 'F': case 'f': slub_debug_flags |= SLAB_CONSISTENCY_CHECKS; break;
		case 'Z': case 'z': slub_debug_flags |= SLAB_RED_ZONE; break;
		case 'P': case 'p': slub_debug_flags |= SLAB_POISON; break;
		case 'U': case 'u': slub_debug_flags |= SLAB_STORE_USER; break;
		default:
			pr_warn("slub_debug: unknown flag '%c' ignored\n", *opt);
		}
	}
	if (!slub_debug_flags)
		slub_debug_flags = SLAB_DEBUG_FLAGS;
	slub_debug_names = *opt ? opt : NULL;
}

/*
 * Each cache that slub_debug= names and no cache made so far has: a typo,
 * or a cache created later (a test's), which the flags still reach.
 */
static void slub_debug_report_unmatched(void)
{
	const char *p = slub_debug_names, *name;
	size_t len;

	while (slub_debug_next_name(&p, &name, &len)) {
		struct kmem_cache *s;
		bool found = false;

		list_for_each_entry(s, &slab_caches, list)
			if (strlen(s->name) == len &&
			    !strncmp(s->name, name, len))
				found = true;
		if (!found && len)
			pr_warn("slub_debug: no cache named '%.*s' yet: its checks apply only if one is created later\n",
				(int)len, name);
	}
}

/* A per-cache random value: the boot seed, mixed with the cache's name,
 * address and creation number. */
static unsigned long cache_random(const struct kmem_cache *s)
{
	struct rnd_state r;
	unsigned long h = (unsigned long)s ^
		__atomic_add_fetch(&cache_serial, 1, __ATOMIC_RELAXED);
	const char *c;

	for (c = s->name; *c; c++)
		h = h * 31 + (unsigned char)*c;
	prandom_seed_state(&r, boot_seed ^ h);
	return (unsigned long)prandom_u64_state(&r) | 1;
}

static int setup_cache(struct kmem_cache *s, const char *name,
		       unsigned int size, const struct kmem_cache_args *args,
		       slab_flags_t flags)
{
	unsigned int align = args->align ? args->align : (unsigned int)WORD;
	int nid;

	/* Larger than the largest slab: refused before calculate_sizes()
	 * adds metadata to it in unsigned int, which could wrap. */
	if (!size || size > (PAGE_SIZE << SLAB_MAX_ORDER) ||
	    (align & (align - 1)))
		return -1;
	if (slub_debug_selects(name))
		flags |= slub_debug_flags;
	/* Poison would undo the constructor, or what a SLAB_TYPESAFE_BY_RCU
	 * reader re-checks in a freed object. */
	if (args->ctor || (flags & SLAB_TYPESAFE_BY_RCU))
		flags &= ~SLAB_POISON;
	if ((flags & SLAB_HWCACHE_ALIGN) && size > SLAB_CACHE_LINE / 2)
		align = max(align, (unsigned int)SLAB_CACHE_LINE);
	s->name = name;
	s->object_size = size;
	s->align = max(align, (unsigned int)WORD);
	s->flags = flags;
	s->ctor = args->ctor;
	s->refcount = 1;
	calculate_sizes(s);
	calculate_stride_inverse(s);
	if (!calculate_order(s))
		return -1;
	s->min_partial = min(max(ilog2_u(s->size) / 2,
				 (unsigned int)MIN_PARTIAL_LOW),
			     (unsigned int)MIN_PARTIAL_HIGH);
	s->random = cache_random(s);

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = get_node(s, nid);

		spin_lock_init(&n->list_lock, "slab list_lock");
		INIT_LIST_HEAD(&n->partial);
		INIT_LIST_HEAD(&n->full);
		n->nr_partial = n->nr_slabs = 0;
	}
	s->sheaf_capacity = is_debug_cache(s) ? 0 :
		calculate_sheaf_capacity(s, args->sheaf_capacity);
	pcs_init(s);
	return 0;
}

static void add_to_cache_list(struct kmem_cache *s)
{
	unsigned long flags;

	spin_lock_irqsave(&slab_caches_lock, flags);
	list_add_tail(&s->list, &slab_caches);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

struct kmem_cache *kmem_cache_create_args(const char *name, unsigned int size,
					  const struct kmem_cache_args *args,
					  slab_flags_t flags)
{
	static const struct kmem_cache_args none;
	struct kmem_cache *s;

	if (WARN_ON(!slab_up))
		return NULL;
	s = kmem_cache_alloc(&kmem_cache_boot, GFP_KERNEL | __GFP_ZERO);
	if (!s)
		return NULL;
	if (setup_cache(s, name, size, args ? args : &none, flags)) {
		pr_err("kmem_cache_create(%s): size %u cannot be a slab cache\n",
		       name, size);
		kmem_cache_free(&kmem_cache_boot, s);
		return NULL;
	}
	add_to_cache_list(s);
	return s;
}

struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, slab_flags_t flags,
				     void (*ctor)(void *))
{
	struct kmem_cache_args args = {
		.align = align,
		.ctor = ctor,
		.sheaf_capacity = SHEAF_CAPACITY_DEFAULT,
	};

	return kmem_cache_create_args(name, size, &args, flags);
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
	return slab_alloc_caller(s, gfp, _RET_IP_);
}

void slab_free(struct kmem_cache *s, void *object, unsigned long caller)
{
	if (in_nmi()) {
		/* The ordinary path may spin: take the any-context one. */
		slab_free_nolock(s, object, caller);
		return;
	}
	if (!slab_free_check(s, object, caller))
		return;
	kasan_slab_free(s, object);
	/* free_to_pcs() refuses an object that must skip the sheaves. */
	if (cache_has_sheaves(s) && free_to_pcs(s, object))
		return;
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
	if (!object)
		return;
	slab_free(s, object, _RET_IP_);
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
/* Shrinking and destruction                                               */
/* ---------------------------------------------------------------------- */

/* Unlink every empty slab of the node onto *discard. */
static void collect_empty_slabs_locked(struct kmem_cache_node *n,
				       struct list_head *discard)
{
	struct page *slab, *next;

	lockdep_assert_held(&n->list_lock);
	list_for_each_entry_safe(slab, next, &n->partial, lru) {
		if (slab->inuse)
			continue;
		list_move(&slab->lru, discard);
		n->nr_partial--;
		n->nr_slabs--;
	}
}

void kmem_cache_shrink(struct kmem_cache *s)
{
	LIST_HEAD(discard);
	unsigned long flags;
	int nid;

	slab_deferred_flush_all();   /* objects kfree_nolock() parked */
	flush_all_sheaves(s);
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = get_node(s, nid);

		spin_lock_irqsave(&n->list_lock, flags);
		collect_empty_slabs_locked(n, &discard);
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
	free_slab_list(s, &discard, true);
}

int kmem_cache_destroy(struct kmem_cache *s)
{
	unsigned long flags, leaks = 0;
	LIST_HEAD(discard);
	int nid;

	if (!s)
		return 0;
	/* What kfree_rcu() took is not a leak either: its grace period ends
	 * and the objects come back (into the barn) before we look. */
	kmem_cache_rcu_barrier(s);
	slab_deferred_flush_all();   /* they are not leaks: free them first */
	flush_all_sheaves(s);
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = get_node(s, nid);

		spin_lock_irqsave(&n->list_lock, flags);
		leaks += report_leaks_locked(s, n);
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
	if (leaks) {
		kunit_print_report(LOGLEVEL_ERR, "kmem_cache_destroy %s: %lu objects still allocated: cache kept",
				   s->name, leaks);
		__atomic_fetch_add(&slab_reports, 1, __ATOMIC_RELAXED);
		return -1;
	}
	/* No object is out (the caller promised no more allocations): the
	 * lists hold only empty slabs now. */
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = get_node(s, nid);

		spin_lock_irqsave(&n->list_lock, flags);
		collect_empty_slabs_locked(n, &discard);
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
	free_slab_list(s, &discard, true);
	/* SLAB_TYPESAFE_BY_RCU slabs still wait for their grace period, and
	 * their callbacks name s. */
	kmem_cache_rcu_barrier_slabs(s);

	spin_lock_irqsave(&slab_caches_lock, flags);
	list_del(&s->list);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	s->refcount = 0;
	kmem_cache_free(&kmem_cache_boot, s);
	return 0;
}

/*
 * Shrink every cache: first every sheaf of every cache back to the slabs
 * (sheaf arrays themselves live in kmalloc caches), then every empty slab
 * back to the buddy.  For tests that count pages exactly.  Caches must not
 * be created or destroyed meanwhile (on_each_cpu() needs IRQs on, so the
 * cache list is walked without its lock).
 */
void kmem_cache_shrink_all(void)
{
	struct kmem_cache *s;

	list_for_each_entry(s, &slab_caches, list)
		flush_all_sheaves(s);
	list_for_each_entry(s, &slab_caches, list)
		kmem_cache_shrink(s);
}

#ifdef HOST_TEST
/* Host tests: forget every cache before the test frees its arena. */
void slab_host_reset(void)
{
	slab_deferred_host_reset();
	slab_rcu_host_reset();
	kmalloc_host_reset();
	INIT_LIST_HEAD(&slab_caches);
	memset(&kmem_cache_boot_storage, 0, sizeof(kmem_cache_boot_storage));
	slab_up = false;
	__atomic_store_n(&slab_available, false, __ATOMIC_RELEASE);
	slub_debug_flags = 0;
	slub_debug_names = NULL;
}
#endif

/* ---------------------------------------------------------------------- */
/* Boot and slabinfo                                                       */
/* ---------------------------------------------------------------------- */

void kmem_cache_init(const char *slub_debug)
{
	static const struct kmem_cache_args boot_args = { .align = SLAB_CACHE_LINE };

	if (slab_up)
		return;
	/* Every cache gets sheaves for nr_cpu_possible CPUs: no other CPU
	 * may ever run (smp_prepare_cpus() set it; the host's tests do). */
	BUG_ON(nr_cpu_possible > NR_CPUS || nr_cpu_ids > nr_cpu_possible);
	slub_debug_parse(slub_debug);
	/* The cache of caches: no sheaves, so it never needs a sheaf. */
	if (setup_cache(&kmem_cache_boot, "kmem_cache",
			(unsigned int)kmem_cache_struct_size(nr_cpu_possible),
			&boot_args, 0))
		panic("slab: cannot set up the kmem_cache cache");
	add_to_cache_list(&kmem_cache_boot);
	slab_defer_init();
	slab_rcu_init();
	slab_up = true;
	mm_point(MM_POINT_KMALLOC_INIT, &kmem_cache_boot);
	kmalloc_init();
	/* Release: whoever sees it true sees every kmalloc cache made. */
	__atomic_store_n(&slab_available, true, __ATOMIC_RELEASE);
	pr_info("slab: struct kmem_cache %u bytes (%u possible CPU%s), kmalloc 8 B..%u KiB, slub_debug: %s\n",
		kmem_cache_boot.size, nr_cpu_possible,
		nr_cpu_possible == 1 ? "" : "s", KMALLOC_MAX_CACHE_SIZE >> 10,
		slub_debug_flags ? (slub_debug_names ? slub_debug_names + 1
						     : "every cache")
				 : "off");
	slub_debug_report_unmatched();
}

unsigned long slab_stat_sum(struct kmem_cache *s, enum slab_stat_item i)
{
	unsigned long v = READ_ONCE(s->stat[i]);
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		if (i == ALLOC_PCS)
			v += READ_ONCE(s->cpu_sheaves[cpu].alloc_pcs);
		else if (i == FREE_PCS)
			v += READ_ONCE(s->cpu_sheaves[cpu].free_pcs);
	}
	return v;
}

/* One line of counts per cache, then the sheaf statistics of caches that
 * saw any traffic.  Takes each list_lock briefly; not for crash paths. */
void slabinfo_show(void)
{
	struct kmem_cache *s;
	unsigned long flags;

	pr_info("slabinfo: name              active  total objsize stride obj/slab order slabs sheaf\n");
	spin_lock_irqsave(&slab_caches_lock, flags);
	list_for_each_entry(s, &slab_caches, list) {
		unsigned long active = 0, slabs = 0, fl;
		struct page *slab;
		int nid;

		for (nid = 0; nid < MAX_NUMNODES; nid++) {
			struct kmem_cache_node *n = get_node(s, nid);

			spin_lock_irqsave(&n->list_lock, fl);
			slabs += n->nr_slabs;
			list_for_each_entry(slab, &n->partial, lru)
				active += slab->inuse;
			list_for_each_entry(slab, &n->full, lru)
				active += slab->inuse;
			spin_unlock_irqrestore(&n->list_lock, fl);
		}
		pr_info("slabinfo: %-16s %7lu %6lu %7u %6u %8lu %5u %5lu %5u\n",
			s->name, active, slabs * s->objects, s->object_size,
			s->size, s->objects, s->order, slabs, s->sheaf_capacity);
	}
	list_for_each_entry(s, &slab_caches, list) {
		if (!slab_stat_sum(s, ALLOC_SLAB))
			continue;
		pr_info("slabstat: %-16s alloc pcs %lu slow %lu, free pcs %lu slow %lu, "
			"refill %lu flush %lu swap %lu, barn get %lu/%lu put %lu/%lu, "
			"slabs +%lu -%lu\n",
			s->name, slab_stat_sum(s, ALLOC_PCS), slab_stat_sum(s, ALLOC_SLOWPATH),
			slab_stat_sum(s, FREE_PCS), slab_stat_sum(s, FREE_SLOWPATH),
			slab_stat_sum(s, SHEAF_REFILL), slab_stat_sum(s, SHEAF_FLUSH),
			slab_stat_sum(s, SHEAF_SWAP), slab_stat_sum(s, BARN_GET),
			slab_stat_sum(s, BARN_GET_FAIL), slab_stat_sum(s, BARN_PUT),
			slab_stat_sum(s, BARN_PUT_FAIL), slab_stat_sum(s, ALLOC_SLAB),
			slab_stat_sum(s, FREE_SLAB));
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}

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
