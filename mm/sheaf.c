/*
 * sheaf.c - per-CPU sheaves and the per-node barn: the fast paths of the
 * slab allocator, and prefilled sheaves.
 *
 * A sheaf is an array of free object pointers and a count.  Each CPU has,
 * per cache, a `main` sheaf and a `spare` one under a local_trylock_t:
 *
 *   alloc: pop main->objects[--size]          free: main->objects[size++] = x
 *
 * No shared cache line is written on either path.  Only when main is empty
 * (alloc) or full (free) does a CPU look further, cheapest first:
 *
 *   main empty:  1. swap with a non-empty spare
 *                2. trade main (empty) for a full sheaf from the barn
 *                3. unlock, fill a new sheaf from the slabs, relock, re-check
 *   main full:   1. swap with a spare that has room
 *                2. trade main (full) for an empty sheaf from the barn,
 *                   if the barn has room for one more full sheaf
 *                3. unlock, allocate an empty sheaf, relock, re-check
 *                4. move a batch of SHEAF_FLUSH_BATCH objects out of main
 *                   and free them to the slabs after unlocking
 *
 * The barn (one per node) keeps at most BARN_MAX_FULL full and
 * BARN_MAX_EMPTY empty sheaves so CPUs can trade without touching slabs;
 * it may briefly exceed the full limit when a refill raced with a free
 * (step 3 above found main no longer empty).
 *
 * Before its first use a CPU's main is &bootstrap_sheaf, capacity 0, which
 * is both empty and full, so it sends the first alloc and free down the
 * slow paths, which install a real sheaf.  It is one global shared by
 * every cache and CPU, so it must stay an empty placeholder:
 *   - it is only ever a `main`, and while it is, the CPU has no spare (a
 *     CPU has no sheaves at all, or a real main and perhaps a spare);
 *   - it never goes into a barn, never becomes a spare, and is never
 *     handed out by kmem_cache_prefill_sheaf();
 *   - its size stays 0 (a free into it would write past the global).
 * The code checks this where a sheaf moves (bootstrap_sheaf_escapes():
 * barn puts, spare installs, prefill), warns if it ever fires, and keeps
 * the placeholder where it belongs.  A sheaf returned to a CPU whose main
 * is the placeholder becomes its main.
 *
 * Sheaf arrays come from kmalloc_nosheaf(): kmalloc's caches, but straight
 * from their slabs, so a cache never needs a sheaf to make a sheaf (the
 * recursion hazard of Linux).
 *
 * Capacity (calculate_sheaf_capacity()) follows Linux: by the slot size,
 * 60 objects below 256 bytes, 28 below 1 KiB, 12 below a page, 4 from a
 * page on, so a full sheaf parks a few KiB whatever the class.  A
 * creator's sheaf_capacity may raise that, never lower it.  Tests that
 * want the spare, the barn and the refill after four objects say so with
 * SLAB_TEST_SHEAF_CAPACITY, a flag no cache of the kernel sets: the rule
 * stays Linux's, and a test that bends it names the bend where it does.
 *
 * Locking: see the lock order at the top of mm/slab.c.  Here:
 *   - pcs->lock (local_trylock_t): always *try*-locked.  The slow paths
 *     here hold it with IRQs off, so in the kernel only an NMI may find it
 *     taken.  The inline fast paths of slab_internal.h take no lock in
 *     the kernel: they are restartable sequences (include/rseq.h) that
 *     read the flag and go slow while it is set, and that an interrupt
 *     sends back to their start, so an IRQ or NMI handler never sees them
 *     half done (the host build runs the same sequences, a signal
 *     playing the interrupt).  A failed trylock sends the
 *     caller to the slabs, which is always correct; a flush IPI, which has
 *     no other way, answers "busy" and is asked again (see
 *     flush_all_sheaves()).
 *   - barn->lock: taken inside pcs->lock, never with list_lock; nothing is
 *     allocated or freed under it.
 *   - After any unlock/relock the CPU's state is read afresh: an interrupt
 *     may have allocated or freed in between.
 *
 * Any context (alloc_from_pcs_nolock/free_to_pcs_nolock, for
 * kmalloc_nolock()/kfree_nolock(), docs/any-context.md): the same steps
 * with LOCK_TRY (include/spinlock.h), so the barn is only trylocked,
 * minus every step that would drop the lock or allocate: no refill (it
 * would unlock and make slabs), no new sheaf (a sheaf comes from kmalloc's
 * caches: hazard 4, recursion), no flush (it frees slabs).  A trade with
 * the barn is one visit that takes one sheaf and leaves one of the other
 * kind, and only while the list it leaves one on is under its limit, so
 * no limit is ever passed.  When nothing works the caller goes to the
 * slabs.
 *
 * Flushing (kmem_cache_shrink(), kmem_cache_destroy()): each CPU's
 * sheaves are taken away by an IPI on that CPU (a few stores under its
 * sheaf lock) and their objects given back by the caller afterwards, in
 * task context.  In the kernel an IPI that lands inside a fast path
 * takes the sheaves at once (the entry restarts the fast path, which then
 * finds the bootstrap sheaf and goes slow); the "busy" answer below is
 * for a lock that is held all the same: a slow path an NMI-driven flush
 * met, or a test that holds the flag itself.  Then the IPI cannot take the lock,
 * and cannot wait for it either: the holder resumes only once the IPI
 * returns.  So it answers "busy", and the caller sends it again.  Each
 * retry comes after an IPI that returned, after which the interrupted
 * holder (straight-line code, no loop, no call) reaches its unlock; the
 * CPU answers busy again only if the next IPI happens to land inside
 * another one.  Linux runs the flush from a workqueue on the CPU instead,
 * in task context, where the holder cannot be interrupted; this kernel has
 * no scheduler to run task work on a busy CPU.
 *
 * The rcu_free sheaf (kfree_rcu(), mm/slab_rcu.c): a third per-CPU sheaf
 * under the same lock, holding objects that wait for a grace period.
 * free_to_rcu_sheaf() pushes; when it is full it is handed whole to
 * call_rcu() before the lock is dropped (rcu_free_submit_locked()), so a
 * flush IPI that gets the lock afterwards, and the rcu_barrier() after
 * that flush, are ordered after it; a flush (pcs_detach(),
 * flush_rcu_sheaves()) submits a partial one the same way.  After the
 * grace period rcu_free_sheaf_cb() puts it in the barn as a full sheaf,
 * or flushes it when the barn has its fill.  Its objects are never free
 * while on the CPU or in flight: no path but the callback moves them.
 *
 * mm_point() marks the interleaving points (include/mm_points.h): each
 * place the sheaf lock is dropped and retaken, half way through a swap,
 * the barn lock held, a flush that found a CPU busy; a test makes NMIs,
 * IRQs and other CPUs land there.
 */
#include <cpumask.h>
#include <kernel.h>
#include <string.h>
#include "slab_internal.h"

struct slab_sheaf bootstrap_sheaf;   /* capacity 0: see above */

/*
 * Default capacity by slot size (the stride, metadata included), with
 * Linux's thresholds: many small objects, few large ones, so that a full
 * sheaf parks about the same bytes whatever the class.  Rounded up below
 * to fill the sheaf's own kmalloc object: 60, 28, 12 and 4.
 */
#define SHEAF_SLOT_LARGE   PAGE_SIZE
#define SHEAF_SLOT_MEDIUM  1024
#define SHEAF_SLOT_SMALL   256

static unsigned int default_sheaf_capacity(unsigned int slot_size)
{
	if (slot_size >= SHEAF_SLOT_LARGE)
		return 4;
	if (slot_size >= SHEAF_SLOT_MEDIUM)
		return 12;
	if (slot_size >= SHEAF_SLOT_SMALL)
		return 26;
	return 60;
}

#define SHEAF_CAPACITY_MAX \
	((KMALLOC_MAX_CACHE_SIZE - SHEAF_HEADER_SIZE) / sizeof(void *))

/*
 * The capacity of s's sheaves.  wanted is the creator's sheaf_capacity: 0
 * for none, SHEAF_CAPACITY_DEFAULT for the default, else a minimum (as in
 * Linux): the default for the slot size unless wanted is larger.  Only a
 * cache made with SLAB_TEST_SHEAF_CAPACITY takes a smaller wanted as it
 * is, so that a test reaches the spare, the barn and the refill after a
 * handful of objects.  Either way the result is rounded up to fill the
 * kmalloc object the sheaf lives in.
 */
unsigned int calculate_sheaf_capacity(const struct kmem_cache *s,
				      unsigned int wanted)
{
	unsigned int floor = default_sheaf_capacity(s->size);
	size_t bytes;

	if (wanted == 0)
		return 0;
	if (wanted == SHEAF_CAPACITY_DEFAULT)
		wanted = floor;
	else if (!(s->flags & SLAB_TEST_SHEAF_CAPACITY))
		wanted = max(wanted, floor);
	wanted = min(wanted, (unsigned int)SHEAF_CAPACITY_MAX);
	/* Use the whole kmalloc object the sheaf will live in. */
	bytes = kmalloc_size_roundup(SHEAF_HEADER_SIZE + wanted * sizeof(void *));
	return (unsigned int)((bytes - SHEAF_HEADER_SIZE) / sizeof(void *));
}

void pcs_init(struct kmem_cache *s)
{
	unsigned int cpu;
	int nid;

	for_each_possible_cpu(cpu) {
		struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[cpu];

		local_lock_init(&pcs->lock);
		pcs->main = &bootstrap_sheaf;
		pcs->spare = NULL;
		pcs->rcu_free = NULL;
	}
	/* A barn for every node, memoryless ones included (their CPUs have
	 * sheaves too: Linux 7.1 had to add theirs). */
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct node_barn *barn = &get_node(s, nid)->barn;

		spin_lock_init(&barn->lock, "slab barn");
		INIT_LIST_HEAD(&barn->sheaves_full);
		INIT_LIST_HEAD(&barn->sheaves_empty);
		barn->nr_full = barn->nr_empty = 0;
	}
}

/* ---------------------------------------------------------------------- */
/* The placeholder stays a placeholder                                     */
/* ---------------------------------------------------------------------- */

/*
 * True, after a warning, if sheaf is the bootstrap sheaf about to go where
 * only a real sheaf may (`where`: the barn, a spare, a prefilled sheaf).
 * The caller then leaves it out, which is always safe: the placeholder
 * owns no object and no memory.  A warning here is a bug in this file.
 */
static bool bootstrap_sheaf_escapes(const struct slab_sheaf *sheaf,
				    const char *where)
{
	if (likely(sheaf != &bootstrap_sheaf))
		return false;
	WARN_ON(sheaf == &bootstrap_sheaf);
	pr_err("sheaf: the bootstrap sheaf kept out of %s\n", where);
	return true;
}

/* Its size and capacity are 0 for ever; mend them if a stray free wrote. */
static void bootstrap_sheaf_check(void)
{
	if (WARN_ON(READ_ONCE(bootstrap_sheaf.size) ||
		    READ_ONCE(bootstrap_sheaf.capacity))) {
		WRITE_ONCE(bootstrap_sheaf.size, 0);
		WRITE_ONCE(bootstrap_sheaf.capacity, 0);
	}
}

/* ---------------------------------------------------------------------- */
/* Sheaves themselves (no lock needed: the caller owns the sheaf)          */
/* ---------------------------------------------------------------------- */

static struct slab_sheaf *alloc_empty_sheaf(struct kmem_cache *s, gfp_t gfp,
					    unsigned int capacity)
{
	struct slab_sheaf *sheaf;

	sheaf = kmalloc_nosheaf(SHEAF_HEADER_SIZE + capacity * sizeof(void *),
				gfp & ~__GFP_ZERO);
	if (!sheaf)
		return NULL;
	INIT_LIST_HEAD(&sheaf->barn_list);
	sheaf->cache = s;
	sheaf->capacity = capacity;
	sheaf->size = 0;
	stat(s, SHEAF_ALLOC);
	return sheaf;
}

static void free_empty_sheaf(struct kmem_cache *s, struct slab_sheaf *sheaf)
{
	if (sheaf == &bootstrap_sheaf)
		return;
	WARN_ON(sheaf->size);
	kfree_nosheaf(sheaf);
	stat(s, SHEAF_FREE);
}

/* Fill the sheaf from the slabs, up to its capacity.  Returns how many. */
static unsigned int refill_sheaf(struct kmem_cache *s,
				 struct slab_sheaf *sheaf, gfp_t gfp)
{
	unsigned int got;

	got = __slab_alloc_bulk(s, gfp, NUMA_NO_NODE,
				sheaf->capacity - sheaf->size,
				&sheaf->objects[sheaf->size], _RET_IP_);
	sheaf->size += got;
	stat(s, SHEAF_REFILL);
	return got;
}

/* Every object of the sheaf back to its slab. */
static void sheaf_flush(struct kmem_cache *s, struct slab_sheaf *sheaf)
{
	if (!sheaf->size)
		return;
	__slab_free_bulk(s, sheaf->size, sheaf->objects, _RET_IP_);
	sheaf->size = 0;
	stat(s, SHEAF_FLUSH);
}

static void sheaf_flush_and_free(struct kmem_cache *s,
				 struct slab_sheaf *sheaf)
{
	if (!sheaf || sheaf == &bootstrap_sheaf)
		return;
	sheaf_flush(s, sheaf);
	free_empty_sheaf(s, sheaf);
}

/* A new sheaf holding at least one object, or NULL. */
static struct slab_sheaf *alloc_full_sheaf(struct kmem_cache *s, gfp_t gfp)
{
	struct slab_sheaf *sheaf = alloc_empty_sheaf(s, gfp, s->sheaf_capacity);

	if (!sheaf)
		return NULL;
	if (!refill_sheaf(s, sheaf, gfp)) {
		free_empty_sheaf(s, sheaf);
		return NULL;
	}
	return sheaf;
}

/* ---------------------------------------------------------------------- */
/* The barn (barn->lock inside; IRQs off)                                  */
/* ---------------------------------------------------------------------- */

/* This CPU's node's barn (the caller holds its sheaf lock or has IRQs
 * off, so it stays on this CPU). */
static struct node_barn *cache_barn(struct kmem_cache *s)
{
	return &get_node(s, numa_node_id())->barn;
}

static struct slab_sheaf *barn_take_locked(struct node_barn *barn,
					   enum barn_list which)
{
	bool full = which == SHEAVES_FULL;
	struct list_head *list = full ? &barn->sheaves_full
				       : &barn->sheaves_empty;
	struct slab_sheaf *sheaf;

	lockdep_assert_held(&barn->lock);
	if (list_empty(list))
		return NULL;
	sheaf = list_first_entry(list, struct slab_sheaf, barn_list);
	list_del_init(&sheaf->barn_list);
	if (full)
		barn->nr_full--;
	else
		barn->nr_empty--;
	return sheaf;
}

static void barn_put_locked(struct node_barn *barn, struct slab_sheaf *sheaf)
{
	lockdep_assert_held(&barn->lock);
	mm_point(MM_POINT_BARN_LOCKED, sheaf->cache);
	if (sheaf->size) {
		list_add(&sheaf->barn_list, &barn->sheaves_full);
		barn->nr_full++;
	} else {
		list_add(&sheaf->barn_list, &barn->sheaves_empty);
		barn->nr_empty++;
	}
}

/* A full (non-empty) or an empty sheaf from the barn, or NULL. */
static struct slab_sheaf *barn_get_sheaf(struct kmem_cache *s,
					 enum barn_list which,
					 enum lock_how how)
{
	struct node_barn *barn = cache_barn(s);
	struct slab_sheaf *sheaf;
	unsigned long flags;

	if (!spin_lock_irqsave_or_try(&barn->lock, &flags, how))
		return NULL;
	sheaf = barn_take_locked(barn, which);
	spin_unlock_irqrestore(&barn->lock, flags);
	stat(s, sheaf ? BARN_GET : BARN_GET_FAIL);
	return sheaf;
}

/*
 * Store a sheaf in the barn.  Refused (false) when its list is at its
 * limit, unless BARN_PAST_LIMIT: a full sheaf that cannot be dropped (see
 * above).
 */
enum barn_limit {
	BARN_WITHIN_LIMIT,
	BARN_PAST_LIMIT,
};

static bool barn_put_sheaf(struct kmem_cache *s, struct slab_sheaf *sheaf,
			   enum barn_limit limit)
{
	/* Spins: never called from the any-context paths. */
	struct node_barn *barn = cache_barn(s);
	unsigned long flags;
	bool ok;

	if (bootstrap_sheaf_escapes(sheaf, "the barn"))
		return false;
	spin_lock_irqsave(&barn->lock, flags);
	ok = limit == BARN_PAST_LIMIT ||
	     (sheaf->size ? barn->nr_full < BARN_MAX_FULL
			  : barn->nr_empty < BARN_MAX_EMPTY);
	if (ok)
		barn_put_locked(barn, sheaf);
	spin_unlock_irqrestore(&barn->lock, flags);
	stat(s, ok ? BARN_PUT : BARN_PUT_FAIL);
	return ok;
}

/* Trade a full sheaf for an empty one in one visit; NULL if the barn has
 * no empty sheaf or no room for another full one. */
static struct slab_sheaf *barn_replace_full_sheaf(struct kmem_cache *s,
						  struct slab_sheaf *full,
						  enum lock_how how)
{
	struct node_barn *barn = cache_barn(s);
	struct slab_sheaf *empty = NULL;
	unsigned long flags;

	if (bootstrap_sheaf_escapes(full, "the barn"))
		return NULL;
	if (!spin_lock_irqsave_or_try(&barn->lock, &flags, how))
		return NULL;
	if (barn->nr_full < BARN_MAX_FULL && barn->nr_empty) {
		empty = barn_take_locked(barn, SHEAVES_EMPTY);
		barn_put_locked(barn, full);
	}
	spin_unlock_irqrestore(&barn->lock, flags);
	if (empty) {
		stat(s, BARN_GET);
		stat(s, BARN_PUT);
	} else {
		stat(s, BARN_PUT_FAIL);
	}
	return empty;
}

/* Trade an empty sheaf for a full one in one visit; NULL if the barn has
 * no full sheaf, no room for another empty one (the trade leaves one
 * more empty and one fewer full), or, with LOCK_TRY, its lock was
 * taken. */
static struct slab_sheaf *barn_replace_empty_sheaf(struct kmem_cache *s,
						   struct slab_sheaf *empty,
						   enum lock_how how)
{
	struct node_barn *barn = cache_barn(s);
	struct slab_sheaf *full = NULL;
	unsigned long flags;

	if (bootstrap_sheaf_escapes(empty, "the barn"))
		return NULL;
	if (!spin_lock_irqsave_or_try(&barn->lock, &flags, how))
		return NULL;
	if (barn->nr_full && barn->nr_empty < BARN_MAX_EMPTY) {
		full = barn_take_locked(barn, SHEAVES_FULL);
		barn_put_locked(barn, empty);
	}
	spin_unlock_irqrestore(&barn->lock, flags);
	stat(s, full ? BARN_GET : BARN_GET_FAIL);
	return full;
}

static bool barn_has_room_for_full(struct kmem_cache *s)
{
	return READ_ONCE(cache_barn(s)->nr_full) < BARN_MAX_FULL;
}

/* ---------------------------------------------------------------------- */
/* The CPU's sheaves (pcs->lock held where the name says _locked)          */
/* ---------------------------------------------------------------------- */

static struct slub_percpu_sheaves *this_pcs(struct kmem_cache *s)
{
	return this_cpu_sheaves(s);
}

/*
 * The one way a sheaf becomes this CPU's spare (there is none now).  A
 * spare is a real sheaf of the cache's capacity, beside a real main.  Each
 * broken rule is a bug here, warned about and mended: the placeholder is
 * left out, a sheaf offered beside the placeholder becomes main instead,
 * one of another capacity is flushed and freed.
 */
static void pcs_install_spare_locked(struct kmem_cache *s,
				     struct slub_percpu_sheaves *pcs,
				     struct slab_sheaf *sheaf)
{
	if (bootstrap_sheaf_escapes(sheaf, "a spare"))
		return;
	if (WARN_ON(sheaf->capacity != s->sheaf_capacity)) {
		sheaf_flush_and_free(s, sheaf);
		return;
	}
	if (WARN_ON(pcs->main == &bootstrap_sheaf)) {
		pcs->main = sheaf;
		return;
	}
	pcs->spare = sheaf;
}

/* An empty sheaf no longer main: keep it as spare, in the barn, or free. */
static void stash_empty_sheaf_locked(struct kmem_cache *s,
				     struct slub_percpu_sheaves *pcs,
				     struct slab_sheaf *empty)
{
	if (empty == &bootstrap_sheaf)
		return;
	if (!pcs->spare) {
		pcs_install_spare_locked(s, pcs, empty);
		return;
	}
	if (barn_put_sheaf(s, empty, BARN_WITHIN_LIMIT))
		return;
	free_empty_sheaf(s, empty);  /* list_lock inside: allowed by order */
}

static void swap_main_spare_locked(struct kmem_cache *s,
				   struct slub_percpu_sheaves *pcs)
{
	struct slab_sheaf *tmp = pcs->main;

	pcs->main = pcs->spare;
	mm_point(MM_POINT_SHEAF_SWAP_MID, s);    /* main == spare here */
	pcs->spare = NULL;
	pcs_install_spare_locked(s, pcs, tmp);
	stat(s, SHEAF_SWAP);
}

/*
 * Main is empty.  Returns pcs, locked, with objects in main; or NULL with
 * the lock dropped when no sheaf could be had (the caller then asks the
 * slabs for one object).
 */
static struct slub_percpu_sheaves *
pcs_replace_empty_main(struct kmem_cache *s, struct slub_percpu_sheaves *pcs,
		       gfp_t gfp, unsigned long *flags)
{
	struct slab_sheaf *full, *old;

	if (pcs->spare && pcs->spare->size) {
		swap_main_spare_locked(s, pcs);
		return pcs;
	}
	full = barn_get_sheaf(s, SHEAVES_FULL, LOCK_SPIN);
	if (full) {
		old = pcs->main;
		pcs->main = full;
		stash_empty_sheaf_locked(s, pcs, old);
		return pcs;
	}

	/* Refill without the lock: it walks slabs and may make new ones. */
	pcs_unlock_irqrestore(s, pcs, *flags);
	mm_point(MM_POINT_SHEAF_REFILL_UNLOCKED, s);
	full = alloc_full_sheaf(s, gfp);
	if (!full)
		return NULL;
	mm_point(MM_POINT_SHEAF_REFILL_DONE, s);
	pcs = this_pcs(s);
	if (!pcs_trylock_irqsave(s, pcs, *flags)) {
		sheaf_flush_and_free(s, full);
		return NULL;
	}
	/* Re-check: an interrupt may have freed into main meanwhile. */
	if (!pcs->main->size) {
		old = pcs->main;
		pcs->main = full;
		stash_empty_sheaf_locked(s, pcs, old);
	} else if (!pcs->spare) {
		pcs_install_spare_locked(s, pcs, full);
	} else if (!pcs->spare->size) {
		old = pcs->spare;
		pcs->spare = NULL;
		pcs_install_spare_locked(s, pcs, full);
		if (!barn_put_sheaf(s, old, BARN_WITHIN_LIMIT))
			free_empty_sheaf(s, old);
	} else {
		barn_put_sheaf(s, full, BARN_PAST_LIMIT);
	}
	return pcs;
}

void *alloc_from_pcs(struct kmem_cache *s, gfp_t gfp)
{
	struct slub_percpu_sheaves *pcs = this_pcs(s);
	unsigned long flags;
	void *object;

	if (!pcs_trylock_irqsave(s, pcs, flags))
		return NULL;
	mm_point(MM_POINT_SHEAF_LOCKED, s);
	if (unlikely(!pcs->main->size)) {
		pcs = pcs_replace_empty_main(s, pcs, gfp, &flags);
		if (!pcs)
			return NULL;
	}
	object = pcs->main->objects[--pcs->main->size];
	pcs->alloc_pcs++;
	slab_trace(s, ALLOC_PCS);
	pcs_unlock_irqrestore(s, pcs, flags);
	return object;
}

/*
 * Main is full: make room (see the head comment), push object, unlock.
 * False, with the lock dropped, when there was no way to keep the object
 * (the caller frees it to its slab).
 */
static __noinline bool free_to_pcs_slow(struct kmem_cache *s,
					struct slub_percpu_sheaves *pcs,
					void *object, unsigned long *flags)
{
	void *batch[SHEAF_FLUSH_BATCH];
	struct slab_sheaf *main = pcs->main, *empty;
	unsigned int nb = 0;

	/* 1. A spare with room. */
	if (pcs->spare && pcs->spare->size < pcs->spare->capacity) {
		swap_main_spare_locked(s, pcs);
		goto push;
	}
	/* 2. An empty sheaf from the barn for our full one. */
	if (main == &bootstrap_sheaf)
		empty = barn_get_sheaf(s, SHEAVES_EMPTY, LOCK_SPIN);
	else
		empty = barn_replace_full_sheaf(s, main, LOCK_SPIN);
	if (empty) {
		pcs->main = empty;
		goto push;
	}
	/* 3. A new empty sheaf, if the full one has somewhere to go. */
	if (main == &bootstrap_sheaf || !pcs->spare ||
	    barn_has_room_for_full(s)) {
		pcs_unlock_irqrestore(s, pcs, *flags);
		mm_point(MM_POINT_SHEAF_FREE_UNLOCKED, s);
		empty = alloc_empty_sheaf(s, GFP_NOWAIT, s->sheaf_capacity);
		mm_point(MM_POINT_SHEAF_FREE_GOT_EMPTY, s);
		pcs = this_pcs(s);
		if (!pcs_trylock_irqsave(s, pcs, *flags)) {
			if (empty)
				free_empty_sheaf(s, empty);
			return false;
		}
		/* Ask again: a mode switch (slab_set_numa_mode()) may have
		 * flushed the sheaves meanwhile under rules that send this
		 * object to its slab. */
		if (slab_free_skips_sheaves(object)) {
			pcs_unlock_irqrestore(s, pcs, *flags);
			if (empty)
				free_empty_sheaf(s, empty);
			return false;
		}
		main = pcs->main;   /* re-read: interrupts may have run */
		if (empty) {
			if (main->size < main->capacity) {
				stash_empty_sheaf_locked(s, pcs, empty);
				goto push;
			}
			if (main == &bootstrap_sheaf) {
				pcs->main = empty;
				goto push;
			}
			if (!pcs->spare) {
				pcs->main = empty;
				pcs_install_spare_locked(s, pcs, main);
				goto push;
			}
			if (barn_put_sheaf(s, main, BARN_WITHIN_LIMIT)) {
				pcs->main = empty;
				goto push;
			}
			free_empty_sheaf(s, empty);
		}
		if (main->size < main->capacity)
			goto push;
		if (main == &bootstrap_sheaf) {
			pcs_unlock_irqrestore(s, pcs, *flags);
			return false;
		}
	}
	/* 4. Flush a batch of main to the slabs, after unlocking. */
	nb = min((unsigned int)SHEAF_FLUSH_BATCH, main->size);
	main->size -= nb;
	memcpy(batch, &main->objects[main->size], nb * sizeof(void *));
	stat(s, SHEAF_FLUSH);
push:
	pcs->main->objects[pcs->main->size++] = object;
	pcs->free_pcs++;
	slab_trace(s, FREE_PCS);
	pcs_unlock_irqrestore(s, pcs, *flags);
	if (nb)
		mm_point(MM_POINT_SHEAF_FLUSH_BATCH, s);
	if (nb)
		__slab_free_bulk(s, nb, batch, _RET_IP_);
	return true;
}

bool free_to_pcs(struct kmem_cache *s, void *object)
{
	struct slub_percpu_sheaves *pcs = this_pcs(s);
	unsigned long flags;

	if (slab_free_skips_sheaves(object))
		return false;
	if (!pcs_trylock_irqsave(s, pcs, flags))
		return false;
	mm_point(MM_POINT_SHEAF_LOCKED, s);
	if (unlikely(pcs->main->size == pcs->main->capacity))
		return free_to_pcs_slow(s, pcs, object, &flags);
	pcs->main->objects[pcs->main->size++] = object;
	pcs->free_pcs++;
	slab_trace(s, FREE_PCS);
	pcs_unlock_irqrestore(s, pcs, flags);
	return true;
}

/*
 * kmalloc_node(node) under Linux's rules (include/slab.h): the object on
 * top of this CPU's main sheaf if it is from node, else NULL; no swap, no
 * refill (the caller goes to that node's slabs).  Any context: the sheaf
 * lock is only tried (*busy when held).
 */
void *alloc_from_pcs_node(struct kmem_cache *s, int node, bool *busy)
{
	struct slub_percpu_sheaves *pcs = this_pcs(s);
	struct slab_sheaf *main;
	unsigned long flags;
	void *object = NULL;

	if (!pcs_trylock_irqsave(s, pcs, flags)) {
		*busy = true;
		return NULL;
	}
	mm_point(MM_POINT_SHEAF_NOLOCK_LOCKED, s);
	main = pcs->main;
	if (main->size &&
	    page_to_nid(virt_to_page(main->objects[main->size - 1])) == node) {
		object = main->objects[--main->size];
		pcs->alloc_pcs++;
		slab_trace(s, ALLOC_PCS);
	}
	pcs_unlock_irqrestore(s, pcs, flags);
	return object;
}

/*
 * Any context: an object from this CPU's sheaves, or NULL.  *busy is set
 * when the sheaf lock was held (by the code this NMI interrupted).  Only
 * a swap with the spare or a one-visit trade with the barn (trylock);
 * never a refill, never a new sheaf: see the head comment.
 */
void *alloc_from_pcs_nolock(struct kmem_cache *s, bool *busy)
{
	struct slub_percpu_sheaves *pcs = this_pcs(s);
	struct slab_sheaf *full;
	unsigned long flags;
	void *object = NULL;

	if (!pcs_trylock_irqsave(s, pcs, flags)) {
		*busy = true;
		return NULL;
	}
	mm_point(MM_POINT_SHEAF_NOLOCK_LOCKED, s);
	if (!pcs->main->size) {
		if (pcs->spare && pcs->spare->size) {
			swap_main_spare_locked(s, pcs);
		} else if (pcs->main == &bootstrap_sheaf) {
			full = barn_get_sheaf(s, SHEAVES_FULL, LOCK_TRY);
			if (full)
				pcs->main = full;
		} else {
			full = barn_replace_empty_sheaf(s, pcs->main, LOCK_TRY);
			if (full)
				pcs->main = full;
		}
	}
	if (pcs->main->size) {
		object = pcs->main->objects[--pcs->main->size];
		pcs->alloc_pcs++;
		slab_trace(s, ALLOC_PCS);
	}
	pcs_unlock_irqrestore(s, pcs, flags);
	return object;
}

/*
 * Any context: keep object in this CPU's sheaves; false when there was no
 * room to be had without allocating or flushing (the caller goes to the
 * slabs) or the sheaf lock was held (*busy set).
 */
bool free_to_pcs_nolock(struct kmem_cache *s, void *object, bool *busy)
{
	struct slub_percpu_sheaves *pcs = this_pcs(s);
	struct slab_sheaf *empty = NULL;
	unsigned long flags;
	bool done = false;

	if (slab_free_skips_sheaves(object))
		return false;
	if (!pcs_trylock_irqsave(s, pcs, flags)) {
		*busy = true;
		return false;
	}
	mm_point(MM_POINT_SHEAF_NOLOCK_LOCKED, s);
	if (pcs->main->size == pcs->main->capacity) {
		if (pcs->spare && pcs->spare->size < pcs->spare->capacity) {
			swap_main_spare_locked(s, pcs);
		} else {
			if (pcs->main == &bootstrap_sheaf)
				empty = barn_get_sheaf(s, SHEAVES_EMPTY,
						       LOCK_TRY);
			else
				empty = barn_replace_full_sheaf(s, pcs->main,
								LOCK_TRY);
			if (empty)
				pcs->main = empty;
		}
	}
	if (pcs->main->size < pcs->main->capacity) {
		pcs->main->objects[pcs->main->size++] = object;
		pcs->free_pcs++;
		slab_trace(s, FREE_PCS);
		done = true;
	}
	pcs_unlock_irqrestore(s, pcs, flags);
	return done;
}

/* Up to nr objects from the sheaves (no refill: the caller asks the slabs
 * for the rest in one batch).  Returns how many. */
unsigned int alloc_from_pcs_bulk(struct kmem_cache *s, unsigned int nr,
				 void **p)
{
	struct slub_percpu_sheaves *pcs = this_pcs(s);
	unsigned int got = 0, n;
	struct slab_sheaf *full, *old;
	unsigned long flags;

	if (!pcs_trylock_irqsave(s, pcs, flags))
		return 0;
	mm_point(MM_POINT_SHEAF_BULK_LOCKED, s);
	for (;;) {
		struct slab_sheaf *main = pcs->main;

		n = min(nr - got, main->size);
		if (n) {        /* never write the shared bootstrap sheaf */
			main->size -= n;
			memcpy(p + got, &main->objects[main->size],
			       n * sizeof(void *));
			got += n;
		}
		if (got == nr)
			break;
		if (pcs->spare && pcs->spare->size) {
			swap_main_spare_locked(s, pcs);
			continue;
		}
		full = barn_get_sheaf(s, SHEAVES_FULL, LOCK_SPIN);
		if (!full)
			break;
		old = pcs->main;
		pcs->main = full;
		stash_empty_sheaf_locked(s, pcs, old);
	}
	pcs->alloc_pcs += got;
	slab_trace_n(s, ALLOC_PCS, got);
	pcs_unlock_irqrestore(s, pcs, flags);
	return got;
}

/* Up to nr objects into the sheaves; the caller frees the rest to slabs. */
unsigned int free_to_pcs_bulk(struct kmem_cache *s, unsigned int nr, void **p)
{
	struct slub_percpu_sheaves *pcs = this_pcs(s);
	struct slab_sheaf *empty;
	unsigned int done = 0, n;
	unsigned long flags;

	/* Only the objects before the first that must skip the sheaves. */
	for (n = 0; n < nr; n++)
		if (slab_free_skips_sheaves(p[n]))
			break;
	nr = n;
	if (!nr || !pcs_trylock_irqsave(s, pcs, flags))
		return 0;
	mm_point(MM_POINT_SHEAF_BULK_LOCKED, s);
	for (;;) {
		struct slab_sheaf *main = pcs->main;

		n = min(nr - done, main->capacity - main->size);
		if (n) {        /* never write the shared bootstrap sheaf */
			memcpy(&main->objects[main->size], p + done,
			       n * sizeof(void *));
			main->size += n;
			done += n;
		}
		if (done == nr)
			break;
		if (pcs->spare && pcs->spare->size < pcs->spare->capacity) {
			swap_main_spare_locked(s, pcs);
			continue;
		}
		if (main == &bootstrap_sheaf)
			break;
		empty = barn_replace_full_sheaf(s, main, LOCK_SPIN);
		if (!empty)
			break;
		pcs->main = empty;
	}
	pcs->free_pcs += done;
	slab_trace_n(s, FREE_PCS, done);
	pcs_unlock_irqrestore(s, pcs, flags);
	return done;
}

/* ---------------------------------------------------------------------- */
/* The rcu_free sheaf (kfree_rcu(), mm/slab_rcu.c)                         */
/* ---------------------------------------------------------------------- */

/*
 * After the grace period, on the CPU that submitted the sheaf, IRQs on,
 * never in NMI context: its objects are free now.  The sheaf goes into the
 * barn as a full sheaf, so the next CPU whose main runs dry takes them
 * without touching a slab; when the barn has its fill of full sheaves the
 * objects go to their slabs and the empty sheaf to the barn or away.  The
 * cache's rcu_pending drops last: kmem_cache_destroy() may free the cache
 * as soon as it reads 0, so nothing here looks at s after that.
 */
static void rcu_free_sheaf_cb(struct rcu_head *head)
{
	struct slab_sheaf *sheaf = container_of(head, struct slab_sheaf,
						rcu_head);
	struct kmem_cache *s = sheaf->cache;
	unsigned int i;

	INIT_LIST_HEAD(&sheaf->barn_list);   /* it shared rcu_head's words */
	for (i = 0; i < sheaf->size; i++)
		kasan_slab_free(s, sheaf->objects[i]);
	mm_point(MM_POINT_RCU_SHEAF_RETURNED, s);
	if (sheaf->size && barn_put_sheaf(s, sheaf, BARN_WITHIN_LIMIT)) {
		stat(s, RCU_SHEAF_RETURN);
	} else {
		sheaf_flush(s, sheaf);
		stat(s, RCU_SHEAF_RETURN_FLUSH);
		if (!barn_put_sheaf(s, sheaf, BARN_WITHIN_LIMIT))
			free_empty_sheaf(s, sheaf);
	}
	slab_rcu_pending_dec(s);
}

/*
 * Hand this CPU's rcu_free sheaf, if any, to call_rcu(), under the sheaf
 * lock: once the lock is free again the sheaf is on call_rcu()'s list, so
 * a barrier that took the lock after us (a flush IPI) and then queued its
 * own callback on this CPU is ordered after it.
 */
static void rcu_free_submit_locked(struct kmem_cache *s,
				   struct slub_percpu_sheaves *pcs)
{
	struct slab_sheaf *sheaf = pcs->rcu_free;

	if (!sheaf)
		return;
	pcs->rcu_free = NULL;
	stat(s, RCU_SHEAF_SUBMIT);
	slab_rcu_pending_inc(s);
	call_rcu(&sheaf->rcu_head, rcu_free_sheaf_cb);
	mm_point(MM_POINT_RCU_SHEAF_SUBMITTED, s);
}

/*
 * kfree_rcu(): keep object in this CPU's rcu_free sheaf.  A sheaf that
 * becomes full is submitted at once.  No rcu_free sheaf yet: an empty one
 * from the barn, else (LOCK_SPIN only) one allocated with the lock
 * dropped, and everything read again after relocking.  False, with
 * nothing done, when the lock was held (an NMI's kfree_rcu_nolock() over
 * a slow path) or no sheaf could be had: the caller falls back.
 * LOCK_TRY: the any-context variant (barn trylocked, nothing
 * allocated).
 */
bool free_to_rcu_sheaf(struct kmem_cache *s, void *object, enum lock_how how)
{
	struct slub_percpu_sheaves *pcs = this_pcs(s);
	struct slab_sheaf *sheaf, *extra = NULL;
	unsigned long flags;

	/* The sheaf ends in this node's barn: its objects must be local. */
	if (slab_free_skips_sheaves(object))
		return false;
	if (!pcs_trylock_irqsave(s, pcs, flags))
		return false;
	mm_point(MM_POINT_RCU_SHEAF_LOCKED, s);
	if (!pcs->rcu_free) {
		sheaf = barn_get_sheaf(s, SHEAVES_EMPTY, how);
		if (!sheaf && how == LOCK_SPIN) {
			pcs_unlock_irqrestore(s, pcs, flags);
			mm_point(MM_POINT_RCU_SHEAF_UNLOCKED, s);
			sheaf = alloc_empty_sheaf(s, GFP_NOWAIT,
						  s->sheaf_capacity);
			if (!sheaf)
				return false;
			pcs = this_pcs(s);
			if (!pcs_trylock_irqsave(s, pcs, flags)) {
				free_empty_sheaf(s, sheaf);
				return false;
			}
			/* Re-check: an interrupt's kfree_rcu() may have
			 * installed one meanwhile. */
			if (pcs->rcu_free)
				extra = sheaf;
			else
				pcs->rcu_free = sheaf;
		} else if (sheaf) {
			pcs->rcu_free = sheaf;
		}
		if (!pcs->rcu_free) {
			pcs_unlock_irqrestore(s, pcs, flags);
			return false;
		}
	}
	sheaf = pcs->rcu_free;
	sheaf->objects[sheaf->size++] = object;
	stat(s, FREE_RCU_SHEAF);
	if (sheaf->size == sheaf->capacity)
		rcu_free_submit_locked(s, pcs);
	pcs_unlock_irqrestore(s, pcs, flags);
	if (extra && !barn_put_sheaf(s, extra, BARN_WITHIN_LIMIT))
		free_empty_sheaf(s, extra);
	return true;
}

/* How often a flush asks a CPU whose sheaf lock was held (see
 * flush_retry_busy_cpu() below). */
#define SHEAF_FLUSH_MAX_TRIES 100000

/* What the rcu_free flush IPIs were asked, and which CPUs were busy. */
struct rcu_sheaf_flush {
	struct kmem_cache *s;   /* NULL: every cache with sheaves */
	bool busy[NR_CPUS];
};

static bool rcu_free_submit(struct kmem_cache *s, unsigned int cpu)
{
	struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[cpu];
	unsigned long flags;

	if (!cache_has_sheaves(s))
		return true;
	if (!pcs_trylock_irqsave(s, pcs, flags))
		return false;
	rcu_free_submit_locked(s, pcs);
	pcs_unlock_irqrestore(s, pcs, flags);
	return true;
}

/* The IPI (or, for a CPU not online, a call from here). */
static void rcu_sheaf_flush_cpu(struct rcu_sheaf_flush *f, unsigned int cpu)
{
	struct kmem_cache *s;
	unsigned long flags;
	bool done = true;

	if (f->s) {
		f->busy[cpu] = !rcu_free_submit(f->s, cpu);
		return;
	}
	spin_lock_irqsave(&slab_caches_lock, flags);
	list_for_each_entry(s, &slab_caches, list)
		if (!rcu_free_submit(s, cpu))
			done = false;
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	f->busy[cpu] = !done;
}

static void rcu_sheaf_flush_this_cpu(void *info)
{
	rcu_sheaf_flush_cpu(info, smp_processor_id());
}

/*
 * Task context, IRQs on: every CPU's rcu_free sheaf of s (of every cache
 * when s is NULL) handed to call_rcu(), so that an rcu_barrier() after
 * this waits for every object kfree_rcu() kept in one.  Skipping a CPU
 * would be Linux's destroy bug, so a CPU whose lock was held is asked
 * again, as flush_all_sheaves() does; a CPU not online is done from here
 * (its lock is free: nothing runs there).
 */
void flush_rcu_sheaves(struct kmem_cache *s)
{
	struct rcu_sheaf_flush f = { .s = s };
	struct cpumask online;
	unsigned int cpu, tries;

	cpu_online_mask_get(&online);
	on_each_cpu(rcu_sheaf_flush_this_cpu, &f, true);
	for_each_possible_cpu(cpu) {
		if (!cpumask_test_cpu(cpu, &online)) {
			rcu_sheaf_flush_cpu(&f, cpu);
			WARN_ON(f.busy[cpu]);
			continue;
		}
		for (tries = 0; f.busy[cpu]; tries++) {
			if (s)
				mm_point(MM_POINT_SHEAF_FLUSH_BUSY, s);
			if (WARN_ON(tries > SHEAF_FLUSH_MAX_TRIES))
				break;
			cpu_relax();
			if (smp_call_function_single(cpu,
						     rcu_sheaf_flush_this_cpu,
						     &f, true))
				rcu_sheaf_flush_cpu(&f, cpu);
		}
	}
}

/* ---------------------------------------------------------------------- */
/* Flushing every CPU and the barn                                         */
/* ---------------------------------------------------------------------- */

/*
 * Take the CPU's sheaves away, leaving it the bootstrap sheaf; false when
 * its sheaf lock is held (by a test that holds the flag; the slow paths
 * hold it with IRQs off, so an IPI never lands inside one).  Its
 * rcu_free sheaf cannot be flushed (its objects wait for a grace period):
 * it is handed to call_rcu() here, under the lock, and comes back through
 * the barn.
 */
static bool pcs_detach(struct kmem_cache *s, struct slub_percpu_sheaves *pcs,
		       struct slab_sheaf **main, struct slab_sheaf **spare)
{
	unsigned long flags;

	if (!pcs_trylock_irqsave(s, pcs, flags))
		return false;
	*main = pcs->main;
	*spare = pcs->spare;
	pcs->main = &bootstrap_sheaf;
	pcs->spare = NULL;
	rcu_free_submit_locked(s, pcs);
	pcs_unlock_irqrestore(s, pcs, flags);
	return true;
}

/* What the flush IPIs took from each CPU, and which CPUs were busy. */
struct sheaf_flush {
	struct kmem_cache *s;
	struct slab_sheaf *main[NR_CPUS];
	struct slab_sheaf *spare[NR_CPUS];
	bool taken[NR_CPUS];    /* that CPU's sheaves are in main/spare[] */
	bool busy[NR_CPUS];     /* its IPI found the sheaf lock held */
};

/* The flush IPI, on the CPU whose sheaves it takes (see the head comment). */
static void flush_take_this_cpu(void *info)
{
	struct sheaf_flush *f = info;
	unsigned int cpu = smp_processor_id();

	f->taken[cpu] = pcs_detach(f->s, &f->s->cpu_sheaves[cpu],
				   &f->main[cpu], &f->spare[cpu]);
	f->busy[cpu] = !f->taken[cpu];
}

/*
 * Ask a CPU whose IPI found it busy again, until it answers.  A lock still
 * held after SHEAF_FLUSH_MAX_TRIES answers was never released (no holder
 * keeps it that long): a bug, warned about, and that CPU is left.
 */

static void flush_retry_busy_cpu(struct sheaf_flush *f, unsigned int cpu)
{
	unsigned int tries = 0;

	while (f->busy[cpu]) {
		stat(f->s, SHEAF_FLUSH_BUSY);
		mm_point(MM_POINT_SHEAF_FLUSH_BUSY, f->s);
		if (WARN_ON(++tries > SHEAF_FLUSH_MAX_TRIES))
			return;
		cpu_relax();
		if (smp_call_function_single(cpu, flush_take_this_cpu, f,
					     true)) {
			f->busy[cpu] = false;  /* offline now: taken from here */
			return;
		}
	}
}

/* Runs nothing: CPUs not online have their sheaves taken from here. */
static void flush_take_offline_cpu(struct sheaf_flush *f, unsigned int cpu)
{
	struct slub_percpu_sheaves *pcs = &f->s->cpu_sheaves[cpu];

	if (pcs->main == &bootstrap_sheaf && !pcs->spare && !pcs->rcu_free)
		return;
	/* Nothing runs there, so its lock is free unless it leaked. */
	f->taken[cpu] = !WARN_ON(!pcs_detach(f->s, pcs, &f->main[cpu],
					      &f->spare[cpu]));
}

static void barn_shrink(struct kmem_cache *s, struct node_barn *barn)
{
	struct slab_sheaf *sheaf, *next;
	unsigned long flags;
	LIST_HEAD(full);
	LIST_HEAD(empty);

	spin_lock_irqsave(&barn->lock, flags);
	while ((sheaf = barn_take_locked(barn, SHEAVES_FULL)))
		list_add(&sheaf->barn_list, &full);
	while ((sheaf = barn_take_locked(barn, SHEAVES_EMPTY)))
		list_add(&sheaf->barn_list, &empty);
	spin_unlock_irqrestore(&barn->lock, flags);
	mm_point(MM_POINT_BARN_SHRINK_UNLOCKED, s);

	list_for_each_entry_safe(sheaf, next, &full, barn_list) {
		list_del_init(&sheaf->barn_list);
		sheaf_flush_and_free(s, sheaf);
	}
	list_for_each_entry_safe(sheaf, next, &empty, barn_list) {
		list_del_init(&sheaf->barn_list);
		free_empty_sheaf(s, sheaf);
	}
}

/*
 * Task context, IRQs on (on_each_cpu()).  One IPI to every online CPU takes
 * its sheaves; a CPU whose sheaf lock was held is asked again until it
 * answers; then every sheaf taken is flushed here, and the barn emptied.
 */
void flush_all_sheaves(struct kmem_cache *s)
{
	struct sheaf_flush f = { .s = s };
	unsigned int cpu;
	int nid;

	if (!cache_has_sheaves(s))
		return;
	bootstrap_sheaf_check();
	on_each_cpu(flush_take_this_cpu, &f, true);
	for_each_possible_cpu(cpu) {
		flush_retry_busy_cpu(&f, cpu);
		if (!f.taken[cpu] && !f.busy[cpu])
			flush_take_offline_cpu(&f, cpu);
		if (!f.taken[cpu])
			continue;
		mm_point(MM_POINT_SHEAF_DETACHED, s);
		sheaf_flush_and_free(s, f.main[cpu]);
		sheaf_flush_and_free(s, f.spare[cpu]);
	}
	for (nid = 0; nid < MAX_NUMNODES; nid++)
		barn_shrink(s, &get_node(s, nid)->barn);
}

/* ---------------------------------------------------------------------- */
/* Prefilled sheaves                                                       */
/* ---------------------------------------------------------------------- */

/* An oversize sheaf (count beyond the capacity, or a cache without
 * sheaves): exactly count objects, given back by flushing. */
static struct slab_sheaf *prefill_oversize(struct kmem_cache *s, gfp_t gfp,
					   unsigned int count)
{
	struct slab_sheaf *sheaf = alloc_empty_sheaf(s, gfp, count);

	if (!sheaf)
		return NULL;
	if (refill_sheaf(s, sheaf, gfp) < count) {
		sheaf_flush_and_free(s, sheaf);
		return NULL;
	}
	return sheaf;
}

struct slab_sheaf *kmem_cache_prefill_sheaf(struct kmem_cache *s, gfp_t gfp,
					    unsigned int count)
{
	struct slub_percpu_sheaves *pcs;
	struct slab_sheaf *sheaf = NULL;
	unsigned long flags;

	if (count > s->sheaf_capacity) {
		sheaf = prefill_oversize(s, gfp, count);
		goto out;
	}
	/* The CPU's spare, if it holds enough. */
	pcs = this_pcs(s);
	if (pcs_trylock_irqsave(s, pcs, flags)) {
		if (pcs->spare && pcs->spare->size >= count) {
			sheaf = pcs->spare;
			pcs->spare = NULL;
			if (bootstrap_sheaf_escapes(sheaf, "a prefilled sheaf"))
				sheaf = NULL;
		}
		pcs_unlock_irqrestore(s, pcs, flags);
	}
	if (!sheaf)
		sheaf = barn_get_sheaf(s, SHEAVES_FULL, LOCK_SPIN);
	if (!sheaf)
		sheaf = alloc_empty_sheaf(s, gfp, s->sheaf_capacity);
	if (!sheaf)
		return NULL;
	mm_point(MM_POINT_PREFILL_UNLOCKED, s);
	if (sheaf->size < count)
		refill_sheaf(s, sheaf, gfp);
	if (sheaf->size < count) {
		kmem_cache_return_sheaf(s, gfp, sheaf);
		return NULL;
	}
out:
	if (sheaf)
		stat(s, SHEAF_PREFILL);
	return sheaf;
}

void *kmem_cache_alloc_from_sheaf(struct kmem_cache *s, gfp_t gfp,
				  struct slab_sheaf *sheaf)
{
	void *object;

	if (WARN_ON(sheaf->cache != s) || !sheaf->size)
		return NULL;
	object = sheaf->objects[--sheaf->size];
	kasan_slab_alloc(s, object);
	if (gfp & __GFP_ZERO)
		memset(object, 0, s->object_size);
	return object;
}

int kmem_cache_refill_sheaf(struct kmem_cache *s, gfp_t gfp,
			    struct slab_sheaf **sheafp, unsigned int size)
{
	struct slab_sheaf *sheaf = *sheafp, *bigger;

	if (sheaf->size >= size)
		return 0;
	if (size > sheaf->capacity) {
		bigger = kmem_cache_prefill_sheaf(s, gfp, size);
		if (!bigger)
			return -ENOMEM;
		kmem_cache_return_sheaf(s, gfp, sheaf);
		*sheafp = bigger;
		return 0;
	}
	refill_sheaf(s, sheaf, gfp);
	return sheaf->size >= size ? 0 : -ENOMEM;
}

void kmem_cache_return_sheaf(struct kmem_cache *s, gfp_t gfp,
			     struct slab_sheaf *sheaf)
{
	struct slub_percpu_sheaves *pcs;
	unsigned long flags;

	(void)gfp;
	stat(s, SHEAF_RETURN);
	if (sheaf->capacity != s->sheaf_capacity || !cache_has_sheaves(s)) {
		sheaf_flush_and_free(s, sheaf);
		return;
	}
	pcs = this_pcs(s);
	if (pcs_trylock_irqsave(s, pcs, flags)) {
		if (pcs->main == &bootstrap_sheaf) {
			/* A CPU without sheaves: as a spare beside the
			 * placeholder, the next swap would make the
			 * placeholder the spare. */
			pcs->main = sheaf;
			sheaf = NULL;
		} else if (!pcs->spare) {
			pcs_install_spare_locked(s, pcs, sheaf);
			sheaf = NULL;
		}
		pcs_unlock_irqrestore(s, pcs, flags);
	}
	if (!sheaf)
		return;
	mm_point(MM_POINT_RETURN_UNLOCKED, s);
	if (sheaf->size == sheaf->capacity &&
	    barn_put_sheaf(s, sheaf, BARN_WITHIN_LIMIT))
		return;
	sheaf_flush(s, sheaf);
	if (!barn_put_sheaf(s, sheaf, BARN_WITHIN_LIMIT))
		free_empty_sheaf(s, sheaf);
}

unsigned int kmem_cache_sheaf_size(const struct slab_sheaf *sheaf)
{
	return sheaf->size;
}
