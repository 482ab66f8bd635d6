/*
 * cpu_slab.c - the design sheaves replaced: SLUB's per-CPU slabs, kept as
 * a third cache mode (SLAB_MODE_CPU_SLAB) so the two can be measured and
 * read side by side (docs/cpu-slab.md).
 *
 * THE IDEA.  Each CPU owns one slab of the cache, *frozen*: no node list
 * holds it and no other CPU allocates from it.  The CPU allocates by
 * popping the head of a freelist it keeps in its own line
 * (struct kmem_cache_cpu, slab_internal.h), and frees an object of that
 * same slab by pushing it there.  Objects of any other slab go back to
 * their slab's own freelist.  Linux ran this design from 2.6.22 to 6.19.
 *
 * THE FAST PATHS hold no lock and do not turn IRQs off.  They read the
 * line's transaction id (tid), then its freelist head and slab, and commit
 * with one cmpxchg16b of the pair (freelist, tid): the new head and tid +
 * 2.  An IRQ or NMI that lands between the reads and the commit and uses
 * this CPU's line changes tid, so the commit fails and the fast path
 * reads again (CMPXCHG_DOUBLE_CPU_FAIL).  The tid, not the head, is what
 * makes the commit safe: the head alone could be the same object again
 * after an allocation and a free in between (the ABA problem), with a
 * different successor.  No preemption here, so a task never moves to
 * another CPU between the reads and the commit; Linux adds the CPU number
 * to the tid for that.  The commit has no lock prefix: only this CPU
 * writes its line (a flush IPI runs on it, too).
 *
 * The pop reads the object's free pointer before the commit, when the
 * object may already have been taken by an interrupt and overwritten:
 * the value may be garbage, but then the commit fails.  A successor that
 * is not an object of the slab sends the pop to the slow path, which
 * reads it again under the lock and reports it if it is still wrong.
 *
 * THE SLOW PATH (cpu_slab_alloc_slow()) takes the line's local_trylock_t
 * with IRQs off and makes tid odd for as long as it holds it: a fast path
 * that reads an odd tid goes slow itself, and one that read it earlier
 * fails its commit.  In order it tries:
 *   1. this CPU's freelist (only non-empty here when a fast path gave up);
 *   2. the frozen slab's own freelist: the objects other CPUs freed to it
 *      meanwhile, taken whole with one cmpxchg16b (ALLOC_REFILL);
 *   3. the slab is full: unfreeze it onto the node's full list
 *      (DEACTIVATE_FULL), and take the next slab of this CPU's partial
 *      list (CPU_PARTIAL_ALLOC);
 *   4. the node's partial list: freeze its first slab for this CPU
 *      (ALLOC_FROM_PARTIAL) and a few more onto this CPU's partial list
 *      (CPU_PARTIAL_NODE), up to s->cpu_partial_slabs;
 *   5. a new slab from the buddy, frozen at birth (ALLOC_SLAB).
 * A node without memory, or a request for another node, goes to the
 * ordinary slab path (slab.c), whose slabs are never frozen.
 *
 * FREEZING.  A slab's freelist and counters (inuse, objects, frozen:
 * struct page) are one 16-byte pair, and in a cpu-slab cache every change
 * of it is one cmpxchg16b (a retry counts CMPXCHG_DOUBLE_FAIL):
 *   - a frozen slab: its owner takes its freelist; any CPU pushes a freed
 *     object on it (FREE_FROZEN: the remote free of the design, no lock at
 *     all); unfreezing merges the owner's freelist back;
 *   - a slab that is not frozen sits on its node's partial or full list.
 *     A free that leaves it on the same list (it had free objects and
 *     still has objects in use) takes no lock either.  A free that moves
 *     it (full to partial, or empty) and every allocation from it
 *     (cpu_slab_take_locked(), freezing) hold list_lock, and still commit
 *     by cmpxchg16b, since lockless frees may land meanwhile.
 * Freezing a slab of the node's partial list and unfreezing one both
 * happen under list_lock, so a free that must move a slab and read "not
 * frozen" sees the truth again once it holds the lock.
 *
 * WHERE THIS DIFFERS FROM LINUX.  Linux keeps full slabs on no list, and
 * the first free to a full slab freezes it onto the freeing CPU's partial
 * list without list_lock.  Here full slabs stay on the node's full list
 * (so kmem_cache_destroy() can name every leaked object, as in the other
 * modes), and that first free takes list_lock to move the slab to the
 * node's partial list.  Slabs on a CPU's partial list stay frozen (Linux
 * before 6.8 did the same).  kmalloc_nolock() on a cpu-slab cache follows
 * the trylock-only rules of slab_nolock.c, as Linux 6.18 did: the fast
 * paths as they are, each lock of the slow path tried once, "busy" when
 * one is held.
 *
 * INVARIANTS.
 *   - A slab is frozen exactly while it is some CPU's c->slab, on some
 *     CPU's c->partial, or held by a flush that took it from a CPU; it is
 *     then on no node list and counted in its node's nr_frozen.
 *   - inuse counts the objects not on the slab's own freelist, so the
 *     objects on a CPU's freelist count as in use, like objects in sheaves.
 *   - c->freelist holds only objects of c->slab; c->slab NULL means an
 *     empty c->freelist.
 *   - tid is odd exactly while this CPU's slow path holds the line, or
 *     while the cache is traced (every step then goes slow and is printed).
 *
 * LOCK ORDER: the line's lock is level 1 of mm/slab.c's order (where the
 * sheaf lock is for a sheaf cache), then list_lock, then the page
 * allocator; the slow path keeps the line's lock (IRQs off) across a new
 * slab's allocation, which takes the page allocator's locks after it.
 *
 * SHADOW (host only): the fast path reads free pointers of free objects,
 * so the host builds this file without ASan instrumentation, as slab.c.
 */
#include <kernel.h>
#include <nolock_stats.h>
#include "slab_internal.h"

#define TID_STEP   2   /* a fast path's change */
#define TID_BUSY   1   /* the low bit: the slow path owns the line */

/* Objects Linux keeps on a CPU's partial list, by object size, and the
 * slabs that makes (half full on average, so twice the objects). */
#define CPU_PARTIAL_OBJECTS_PAGE   6
#define CPU_PARTIAL_OBJECTS_1K     24
#define CPU_PARTIAL_OBJECTS_256    52
#define CPU_PARTIAL_OBJECTS_SMALL  120

/* How many times a flush asks a busy CPU again before it warns. */
#define CPU_SLAB_FLUSH_MAX_TRIES   1000000

/* ---------------------------------------------------------------------- */
/* The two 16-byte compare-and-exchanges                                   */
/* ---------------------------------------------------------------------- */

/* The 16 bytes a cmpxchg16b names as its memory operand: may_alias, since
 * they are really two words of a struct (gcc -O2 -Wstrict-aliasing). */
typedef __int128 __attribute__((may_alias)) pair_bytes;

/*
 * This CPU's (freelist, tid): no lock prefix, since only this CPU writes
 * the line, and an interrupt sees the instruction whole or not at all.
 */
static __always_inline bool cpu_pair_cmpxchg(struct kmem_cache_cpu *c,
					     void *old_head,
					     unsigned long old_tid,
					     void *new_head,
					     unsigned long new_tid)
{
	unsigned long lo = (unsigned long)old_head, hi = old_tid;
	bool ok;

	__asm__ __volatile__("cmpxchg16b %[pair]"
			     : "=@ccz"(ok), [pair] "+m"(*(pair_bytes *)c),
			       "+a"(lo), "+d"(hi)
			     : "b"((unsigned long)new_head), "c"(new_tid)
			     : "memory");
	return ok;
}

#ifndef __has_feature
#define __has_feature(x) 0
#endif

/*
 * A slab's (freelist, counters), which every CPU may change: locked.
 *
 * ThreadSanitizer (the host's threaded stress, tests/host/stress) cannot
 * see inside inline assembly, so it would miss the ordering this
 * instruction gives: a remote free writes the object's link, then pushes
 * it with this cmpxchg16b; the owner takes the chain with another and
 * then reads the links.  Built for TSan, the same compare-and-exchange is
 * TSan's own 16-byte atomic (sequentially consistent, as a lock prefix
 * is), which it models; every other build keeps the instruction.
 */
#if __has_feature(thread_sanitizer) || defined(__SANITIZE_THREAD__)
#include <sanitizer/tsan_interface_atomic.h>

static __always_inline bool slab_pair_cmpxchg(struct page *slab,
					      unsigned long old_freelist,
					      unsigned long old_counters,
					      unsigned long new_freelist,
					      unsigned long new_counters)
{
	__tsan_atomic128 old = ((__tsan_atomic128)old_counters << 64) |
			       old_freelist;
	__tsan_atomic128 new = ((__tsan_atomic128)new_counters << 64) |
			       new_freelist;

	return __tsan_atomic128_compare_exchange_strong(
		(volatile __tsan_atomic128 *)&slab->freelist, &old, new,
		__tsan_memory_order_seq_cst, __tsan_memory_order_seq_cst);
}
#else
static __always_inline bool slab_pair_cmpxchg(struct page *slab,
					      unsigned long old_freelist,
					      unsigned long old_counters,
					      unsigned long new_freelist,
					      unsigned long new_counters)
{
	unsigned long lo = old_freelist, hi = old_counters;
	bool ok;

	__asm__ __volatile__("lock cmpxchg16b %[pair]"
			     : "=@ccz"(ok),
			       [pair] "+m"(*(pair_bytes *)&slab->freelist),
			       "+a"(lo), "+d"(hi)
			     : "b"(new_freelist), "c"(new_counters)
			     : "memory");
	return ok;
}
#endif

/* A copy of a slab's counters, to change and compare-exchange. */
union slab_counters {
	unsigned long word;
	struct {
		unsigned int inuse;
		unsigned short objects;
		unsigned short frozen;
	};
};

BUILD_BUG_ON(sizeof(union slab_counters) != sizeof(unsigned long));

/* The pair as it is now (each word read once). */
struct slab_pair {
	unsigned long freelist;   /* encoded, as slab->freelist stores it */
	union slab_counters counters;
};

static __always_inline struct slab_pair slab_pair_read(struct page *slab)
{
	struct slab_pair p;

	p.freelist = (unsigned long)READ_ONCE(slab->freelist);
	p.counters.word = READ_ONCE(slab->counters);
	return p;
}

static __always_inline bool slab_pair_update(struct kmem_cache *s,
					     struct page *slab,
					     const struct slab_pair *old,
					     void *new_head,
					     union slab_counters new_counters)
{
	if (slab_pair_cmpxchg(slab, old->freelist, old->counters.word,
			      freeptr_encode(s, new_head, &slab->freelist),
			      new_counters.word))
		return true;
	stat(s, CMPXCHG_DOUBLE_FAIL);
	return false;
}

static __always_inline void *slab_pair_head(struct kmem_cache *s,
					    struct page *slab,
					    const struct slab_pair *p)
{
	return freeptr_decode(s, p->freelist, &slab->freelist);
}

/* CPUID leaf 1, ECX bit 13: the CPU has cmpxchg16b (every x86-64 CPU but
 * the very first ones; QEMU's qemu64 and max models have it). */
#define CPUID_1_ECX_CX16 (1u << 13)

bool cpu_slab_supported(void)
{
	unsigned int a = 1, b, c = 0, d;

	__asm__ __volatile__("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	return c & CPUID_1_ECX_CX16;
}

/* ---------------------------------------------------------------------- */
/* Per-CPU lines                                                           */
/* ---------------------------------------------------------------------- */

static __always_inline struct kmem_cache_cpu *this_cpu_slab(struct kmem_cache *s)
{
	return this_cpu_line(s->cpu_slab);
}

static inline struct kmem_cache_cpu *cpu_slab_of(struct kmem_cache *s,
						 unsigned int cpu)
{
	return &s->cpu_slab[cpu];
}

static unsigned int cpu_partial_slabs(const struct kmem_cache *s)
{
	unsigned int objects;

	if (s->size >= PAGE_SIZE)
		objects = CPU_PARTIAL_OBJECTS_PAGE;
	else if (s->size >= 1024)
		objects = CPU_PARTIAL_OBJECTS_1K;
	else if (s->size >= 256)
		objects = CPU_PARTIAL_OBJECTS_256;
	else
		objects = CPU_PARTIAL_OBJECTS_SMALL;
	return DIV_ROUND_UP(objects * 2, (unsigned int)s->objects);
}

/* The order of the block that holds every possible CPU's line. */
static unsigned int cpu_slab_lines_order(void)
{
	size_t bytes = (size_t)nr_cpu_possible * sizeof(struct kmem_cache_cpu);
	unsigned int order = 0;

	while ((PAGE_SIZE << order) < bytes)
		order++;
	return order;
}

int cpu_slab_init(struct kmem_cache *s)
{
	unsigned int order = cpu_slab_lines_order(), cpu;
	struct page *page;

	page = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
	if (!page)
		return -1;
	s->cpu_slab = page_address(page);
	s->cpu_partial_slabs = cpu_partial_slabs(s);
	for_each_possible_cpu(cpu) {
		struct kmem_cache_cpu *c = cpu_slab_of(s, cpu);

		INIT_LIST_HEAD(&c->partial);
		local_lock_init(&c->lock);
		c->tid = (s->flags & SLAB_TRACED) ? TID_BUSY : 0;
	}
	return 0;
}

void cpu_slab_release(struct kmem_cache *s)
{
	if (!s->cpu_slab)
		return;
	__free_pages(virt_to_page(s->cpu_slab), cpu_slab_lines_order());
	s->cpu_slab = NULL;
}

/* The slow path owns the line from here (the lock held): tid odd. */
static void cpu_slab_begin_locked(struct kmem_cache_cpu *c)
{
	WRITE_ONCE(c->tid, c->tid | TID_BUSY);
}

/* ...to here: tid even and new, unless the cache is traced (then it stays
 * odd, and every fast path goes slow to be printed). */
static void cpu_slab_end_locked(struct kmem_cache *s, struct kmem_cache_cpu *c)
{
	unsigned long tid = (c->tid | TID_BUSY) + 1;

	if (READ_ONCE(s->flags) & SLAB_TRACED)
		tid |= TID_BUSY;
	WRITE_ONCE(c->tid, tid);
}

/* ---------------------------------------------------------------------- */
/* Freezing and unfreezing                                                 */
/* ---------------------------------------------------------------------- */

/*
 * Take the whole freelist of a slab this CPU has frozen (objects others
 * freed to it): NULL when it has none.  inuse becomes objects.
 */
static void *frozen_slab_take_freelist(struct kmem_cache *s, struct page *slab)
{
	struct slab_pair old;
	union slab_counters new;
	void *head;

	do {
		old = slab_pair_read(slab);
		head = slab_pair_head(s, slab, &old);
		if (!head)
			return NULL;
		new = old.counters;
		new.inuse = new.objects;
	} while (!slab_pair_update(s, slab, &old, NULL, new));
	return head;
}

/*
 * Freeze a slab of node n's partial list (list_lock held): off the list,
 * frozen, counted in nr_frozen.  take_objects: its freelist comes out too
 * (returned; inuse becomes objects), else it stays on the slab.
 */
static void *freeze_partial_slab_locked(struct kmem_cache *s,
					struct kmem_cache_node *n,
					struct page *slab, bool take_objects)
{
	struct slab_pair old;
	union slab_counters new;
	void *head;

	lockdep_assert_held(&n->list_lock);
	list_del_init(&slab->lru);
	n->nr_partial--;
	n->nr_frozen++;
	do {
		old = slab_pair_read(slab);
		head = slab_pair_head(s, slab, &old);
		new = old.counters;
		new.frozen = 1;
		if (take_objects)
			new.inuse = new.objects;
	} while (!slab_pair_update(s, slab, &old, take_objects ? NULL : head,
				   new));
	return take_objects ? head : NULL;
}

/*
 * Count the chain of free objects at head (this CPU's freelist: objects of
 * slab) and find its tail.  A link that is not an object of the slab is
 * reported and cut there: the objects behind it stay counted in use.
 */
static unsigned int freelist_tail(struct kmem_cache *s, struct page *slab,
				  void *head, void **tail)
{
	unsigned int count = 0;
	void *p = head;

	*tail = NULL;
	while (p) {
		void *next = get_freepointer(s, p);

		count++;
		*tail = p;
		if (unlikely(next && object_index(s, slab, next) < 0)) {
			slab_bug(s, p, _RET_IP_,
				 "free pointer corrupted: it decodes to %p, not an object of this slab",
				 next);
			set_freepointer(s, p, NULL);
			break;
		}
		if (unlikely(count > slab->objects)) {   /* a loop */
			slab_bug(s, p, _RET_IP_,
				 "free pointer corrupted: this CPU's freelist loops");
			set_freepointer(s, p, NULL);
			break;
		}
		p = next;
	}
	return count;
}

/*
 * Give a frozen slab back to its node, with `head`, a chain of its free
 * objects this CPU held (may be NULL), merged into its freelist: onto the
 * full or partial list, or onto *discard when empty and the node keeps
 * enough.  False, nothing changed, when LOCK_TRY found list_lock held.
 */
static bool unfreeze_slab(struct kmem_cache *s, struct page *slab, void *head,
			  enum lock_how how, struct list_head *discard)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	unsigned int count = 0;
	struct slab_pair old;
	union slab_counters new;
	unsigned long flags;
	void *tail = NULL, *new_head;

	if (head)
		count = freelist_tail(s, slab, head, &tail);
	if (!spin_lock_irqsave_or_try(&n->list_lock, &flags, how))
		return false;
	mm_point(MM_POINT_CPU_SLAB_UNFREEZE, s);
	do {
		old = slab_pair_read(slab);
		new_head = slab_pair_head(s, slab, &old);
		if (tail) {
			set_freepointer(s, tail, new_head);
			new_head = head;
		}
		new = old.counters;
		new.inuse -= count;
		new.frozen = 0;
	} while (!slab_pair_update(s, slab, &old, new_head, new));
	n->nr_frozen--;
	if (!new_head) {
		list_add(&slab->lru, &n->full);
		stat(s, DEACTIVATE_FULL);
	} else if (new.inuse == 0 && n->nr_partial >= s->min_partial) {
		n->nr_slabs--;
		list_add(&slab->lru, discard);
		stat(s, DEACTIVATE_EMPTY);
	} else {
		list_add(&slab->lru, &n->partial);
		n->nr_partial++;
		stat(s, DEACTIVATE_PARTIAL);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	return true;
}

/* ---------------------------------------------------------------------- */
/* Allocation                                                              */
/* ---------------------------------------------------------------------- */

/* Pop this CPU's freelist (lock held): the object, or NULL when empty.  A
 * bad link is reported, and the rest of the chain dropped (in use). */
static void *cpu_freelist_pop_locked(struct kmem_cache *s,
				     struct kmem_cache_cpu *c,
				     unsigned long caller)
{
	void *object = c->freelist, *next;

	if (!object)
		return NULL;
	next = get_freepointer(s, object);
	if (unlikely(next && object_index(s, c->slab, next) < 0)) {
		slab_bug(s, object, caller,
			 "free pointer corrupted: it decodes to %p, not an object of this slab",
			 next);
		next = NULL;
	}
	WRITE_ONCE(c->freelist, next);
	return object;
}

/*
 * Freeze node nid's first partial slab as this CPU's slab (its objects
 * onto c->freelist) and up to cpu_partial_slabs more onto c->partial.
 * False when the list was empty, or (LOCK_TRY) list_lock held (*busy).
 */
static bool freeze_from_node_locked(struct kmem_cache *s,
				    struct kmem_cache_cpu *c, int nid,
				    enum lock_how how, bool *busy)
{
	struct kmem_cache_node *n = get_node(s, nid);
	unsigned long flags;
	struct page *slab;

	if (!spin_lock_irqsave_or_try(&n->list_lock, &flags, how)) {
		*busy = true;
		return false;
	}
	mm_point(MM_POINT_SLAB_LIST_LOCKED, s);
	if (list_empty(&n->partial)) {
		spin_unlock_irqrestore(&n->list_lock, flags);
		return false;
	}
	slab = list_first_entry(&n->partial, struct page, lru);
	c->freelist = freeze_partial_slab_locked(s, n, slab, true);
	c->slab = slab;
	stat(s, ALLOC_FROM_PARTIAL);
	while (c->nr_partial < s->cpu_partial_slabs &&
	       !list_empty(&n->partial)) {
		slab = list_first_entry(&n->partial, struct page, lru);
		freeze_partial_slab_locked(s, n, slab, false);
		list_add_tail(&slab->lru, &c->partial);
		c->nr_partial++;
		stat(s, CPU_PARTIAL_NODE);
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	numa_stat_count(NUMA_STAT_OBJECTS, nid, nid, 1);
	return true;
}

/* A new slab on node nid, frozen for this CPU, its objects on c->freelist. */
static bool freeze_new_slab_locked(struct kmem_cache *s,
				   struct kmem_cache_cpu *c, gfp_t gfp,
				   int nid, enum lock_how how, bool *busy)
{
	struct kmem_cache_node *n;
	unsigned long flags;
	struct page *slab;

	mm_point(MM_POINT_SLAB_ALLOC_UNLOCKED, s);
	if (how == LOCK_TRY)
		slab = allocate_slab_nolock(s, gfp | __GFP_THISNODE, nid, busy);
	else
		slab = allocate_slab(s, gfp | __GFP_THISNODE, nid);
	if (!slab)
		return false;
	n = get_node(s, slab_nid(slab));
	mm_point(MM_POINT_SLAB_NEW_UNLINKED, s);
	if (!spin_lock_irqsave_or_try(&n->list_lock, &flags, how)) {
		/* Never counted on its node: freeing it puts every count
		 * back (as slab_alloc_new_nolock()). */
		*busy = true;
		free_slab(s, slab, LOCK_TRY);
		return false;
	}
	n->nr_slabs++;
	n->nr_frozen++;
	/* Nobody else knows the slab yet: plain stores do. */
	c->freelist = slab_freelist(s, slab);
	set_slab_freelist(s, slab, NULL);
	slab->inuse = slab->objects;
	slab->frozen = 1;
	c->slab = slab;
	spin_unlock_irqrestore(&n->list_lock, flags);
	numa_stat_count(NUMA_STAT_OBJECTS, nid, nid, 1);
	return true;
}

/*
 * The slow path, this CPU's line locked and tid odd (head comment, steps
 * 1-5).  NULL when the node has no object and no memory (the caller tries
 * the ordinary path), or (LOCK_TRY) a lock was held (*busy).
 */
static void *cpu_slab_refill_locked(struct kmem_cache *s,
				    struct kmem_cache_cpu *c, gfp_t gfp,
				    enum lock_how how, bool *busy,
				    unsigned long caller)
{
	int nid = numa_mem_id();
	LIST_HEAD(discard);
	void *object = NULL;

	for (;;) {
		object = cpu_freelist_pop_locked(s, c, caller);
		if (object) {
			stat(s, ALLOC_FASTPATH);   /* what a fast path would do */
			break;
		}
		if (c->slab) {
			void *head = frozen_slab_take_freelist(s, c->slab);

			if (head) {
				WRITE_ONCE(c->freelist, head);
				stat(s, ALLOC_REFILL);
				continue;
			}
			/* Full: back to its node's full list. */
			if (!unfreeze_slab(s, c->slab, NULL, how, &discard)) {
				*busy = true;
				break;
			}
			WRITE_ONCE(c->slab, NULL);
		}
		if (!list_empty(&c->partial)) {
			struct page *slab = list_first_entry(&c->partial,
							     struct page, lru);

			list_del_init(&slab->lru);
			c->nr_partial--;
			WRITE_ONCE(c->slab, slab);
			stat(s, CPU_PARTIAL_ALLOC);
			continue;
		}
		if (freeze_from_node_locked(s, c, nid, how, busy))
			continue;
		if (*busy || !NODE_DATA(nid))
			break;
		if (!freeze_new_slab_locked(s, c, gfp, nid, how, busy))
			break;
	}
	free_slab_list(s, &discard, how);
	return object;
}

/* Out of line: the fast path's caller then saves no registers for it. */
static __noinline void *cpu_slab_alloc_slow(struct kmem_cache *s, gfp_t gfp,
					    enum lock_how how, bool *busy,
					    unsigned long caller)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	bool ignored = false;
	unsigned long flags;
	void *object;

	if (!busy)
		busy = &ignored;
	if (!local_trylock_irqsave(&c->lock, flags)) {
		/* Held by the code this NMI interrupted (only an NMI finds
		 * it held: the holder keeps IRQs off). */
		*busy = true;
		return NULL;
	}
	cpu_slab_begin_locked(c);
	mm_point(MM_POINT_CPU_SLAB_LOCKED, s);
	object = cpu_slab_refill_locked(s, c, gfp, how, busy, caller);
	cpu_slab_end_locked(s, c);
	local_unlock_irqrestore(&c->lock, flags);
	return object;
}

/*
 * The fast path: pop this CPU's freelist with one cmpxchg16b of (freelist,
 * tid).  NULL: go slow (empty, tid odd, or a successor that is no object
 * of the slab).
 */
static __always_inline void *cpu_slab_alloc_fast(struct kmem_cache *s)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	unsigned long tid;
	struct page *slab;
	void *object, *next;

	for (;;) {
		tid = READ_ONCE(c->tid);
		barrier();   /* tid first: a change after it fails the commit */
		object = READ_ONCE(c->freelist);
		/* Two loads: an interrupt may change both between them. */
		mm_point_fast(MM_POINT_CPU_SLAB_FAST_HEAD, s);
		slab = READ_ONCE(c->slab);
		/* !slab: an IRQ between the two loads took the slab away (a
		 * flush, or an allocation that found no memory); object is
		 * then stale, and its successor cannot be looked up. */
		if (unlikely((tid & TID_BUSY) || !object || !slab))
			return NULL;
		/* May read a taken object's data (then the commit fails).
		 * A successor that is no object of the slab (a stray write,
		 * or that data) goes slow; the check is slab_object_start()'s
		 * multiply, not a division. */
		next = get_freepointer(s, object);
		if (unlikely(next && !slab_object_start(s, slab, next)))
			return NULL;
		mm_point_fast(MM_POINT_CPU_SLAB_FAST, s);
		if (likely(cpu_pair_cmpxchg(c, object, tid, next,
					    tid + TID_STEP)))
			break;
		stat(s, CMPXCHG_DOUBLE_CPU_FAIL);
	}
	__asm__ __volatile__("incq %0" : "+m"(c->alloc_fastpath));
	return object;
}

void *cpu_slab_alloc_fastpath(struct kmem_cache *s)
{
	void *object = cpu_slab_alloc_fast(s);

	if (unlikely(!object))
		return NULL;
	clear_freepointer(s, object);
	kasan_slab_alloc(s, object);
	return object;
}

void *cpu_slab_alloc(struct kmem_cache *s, gfp_t gfp, enum lock_how how,
		     bool *busy, unsigned long caller)
{
	void *object = cpu_slab_alloc_fast(s);

	if (unlikely(!object)) {
		object = cpu_slab_alloc_slow(s, gfp, how, busy, caller);
		if (!object)
			return NULL;
	}
	/* Its link must not make a later free think it is free. */
	clear_freepointer(s, object);
	return object;
}

/* ---------------------------------------------------------------------- */
/* Free                                                                    */
/* ---------------------------------------------------------------------- */

/* Push on this CPU's freelist when the object is of this CPU's slab. */
static __always_inline bool cpu_slab_free_fast(struct kmem_cache *s,
					       struct page *slab, void *object)
{
	struct kmem_cache_cpu *c = this_cpu_slab(s);
	unsigned long tid;
	void *head;

	for (;;) {
		tid = READ_ONCE(c->tid);
		barrier();
		if (unlikely((tid & TID_BUSY) || READ_ONCE(c->slab) != slab))
			return false;
		head = READ_ONCE(c->freelist);
		if (unlikely(head == object))
			return false;   /* free(a); free(a): the slow path says so */
		set_freepointer(s, object, head);
		mm_point_fast(MM_POINT_CPU_SLAB_FAST, s);
		if (likely(cpu_pair_cmpxchg(c, head, tid, object,
					    tid + TID_STEP)))
			break;
		/* Not freed after all: a link left in it would make the
		 * path it takes now think it free already. */
		clear_freepointer(s, object);
		stat(s, CMPXCHG_DOUBLE_CPU_FAIL);
	}
	__asm__ __volatile__("incq %0" : "+m"(c->free_fastpath));
	return true;
}

/*
 * A free the slow paths refuse, with its report: object parked on a
 * deferred list (kfree_nolock() could not free it), or free already in
 * slab, whose freelist starts at head (its own link says so, or it is the
 * head).  On a slab that is not frozen it is counted FREE_SLOWPATH, as
 * slab.c counts a refused free (the path it took).  The fast free
 * compares the head and sends an object that may be parked here
 * (object_may_be_parked()); a double free behind the head of this CPU's
 * freelist passes it, as in Linux (docs/cpu-slab.md).
 */
static bool cpu_slab_free_refused(struct kmem_cache *s, struct page *slab,
				  void *head, void *object, bool frozen,
				  unsigned long caller)
{
	if (unlikely(object_is_parked(s, object)))
		slab_bug(s, object, caller,
			 "double free: the object is parked on a deferred-free list");
	else if (unlikely(head == object || object_looks_free(s, slab, object)))
		slab_bug(s, object, caller,
			 "double free: the object's free pointer says it is free");
	else
		return false;
	if (!frozen)
		stat(s, FREE_SLOWPATH);
	return true;
}

/*
 * The free of an object of a slab that is not frozen and must change
 * lists (it was full, or it becomes empty): under list_lock, still by
 * cmpxchg16b.  *discard gets the slab when it is empty and the node keeps
 * enough.  False when the slab was frozen meanwhile (the caller retries).
 */
static bool free_to_unfrozen_slab_locked(struct kmem_cache *s,
					 struct kmem_cache_node *n,
					 struct page *slab, void *object,
					 struct list_head *discard,
					 unsigned long caller)
{
	struct slab_pair old;
	union slab_counters new;
	void *head;

	lockdep_assert_held(&n->list_lock);
	mm_point(MM_POINT_SLAB_LIST_LOCKED, s);
	do {
		old = slab_pair_read(slab);
		if (old.counters.frozen)
			return false;
		head = slab_pair_head(s, slab, &old);
		if (cpu_slab_free_refused(s, slab, head, object, false,
					  caller))
			return true;
		set_freepointer(s, object, head);
		new = old.counters;
		new.inuse--;
	} while (!slab_pair_update(s, slab, &old, object, new) &&
		 (clear_freepointer(s, object), true));
	if (!head) {   /* was full */
		list_move(&slab->lru, &n->partial);
		n->nr_partial++;
	}
	if (new.inuse == 0 && n->nr_partial > s->min_partial) {
		list_move(&slab->lru, discard);
		n->nr_partial--;
		n->nr_slabs--;
	}
	return true;
}

/*
 * To a slab that is not this CPU's: pushed on its freelist with one
 * cmpxchg16b when it is frozen (FREE_FROZEN) or stays on its list, else
 * under its node's list_lock.  False only with LOCK_TRY and list_lock
 * held.
 */
static __noinline bool cpu_slab_free_slow(struct kmem_cache *s,
					  struct page *slab, void *object,
					  enum lock_how how,
					  unsigned long caller)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(slab));
	struct slab_pair old;
	union slab_counters new;
	unsigned long flags;
	LIST_HEAD(discard);
	bool done;
	void *head;

	for (;;) {
		old = slab_pair_read(slab);
		head = slab_pair_head(s, slab, &old);
		mm_point(MM_POINT_CPU_SLAB_FROZEN_READ, s);
		/* Full, or about to be empty: a list move, under the lock. */
		if (!old.counters.frozen && (!head || old.counters.inuse <= 1))
			break;
		/* free(a); free(a), a still free in its slab or on its
		 * owner's freelist (the link there says so), or parked. */
		if (cpu_slab_free_refused(s, slab, head, object,
					  old.counters.frozen, caller))
			return true;
		set_freepointer(s, object, head);
		new = old.counters;
		new.inuse--;
		if (slab_pair_update(s, slab, &old, object, new)) {
			stat(s, new.frozen ? FREE_FROZEN : FREE_SLOWPATH);
			return true;
		}
		/* Not freed after all: a link left in it would make the path
		 * it takes now think it free already. */
		clear_freepointer(s, object);
	}
	if (!spin_lock_irqsave_or_try(&n->list_lock, &flags, how))
		return false;
	done = free_to_unfrozen_slab_locked(s, n, slab, object, &discard,
					    caller);
	spin_unlock_irqrestore(&n->list_lock, flags);
	/* Frozen meanwhile (taken off the partial list): its freelist takes
	 * the object without a lock, from the top. */
	if (!done)
		return cpu_slab_free_slow(s, slab, object, how, caller);
	mm_point(MM_POINT_SLAB_DISCARD_UNLOCKED, s);
	free_slab_list(s, &discard, how);
	stat(s, FREE_SLOWPATH);
	return true;
}

/*
 * slab.c's take_from_slab_locked() for a cpu-slab cache: up to nr objects
 * of an unfrozen slab on node n's partial list, list_lock held, committed
 * by cmpxchg16b (lockless frees may push meanwhile: then again).  A link
 * that is no object of the slab is reported and the rest of the freelist
 * dropped (in use), as slab.c does.
 */
unsigned int cpu_slab_take_locked(struct kmem_cache *s,
				  struct kmem_cache_node *n, struct page *slab,
				  unsigned int nr, void **p,
				  unsigned long caller)
{
	struct slab_pair old;
	union slab_counters new;
	unsigned int got, i;
	void *object, *rest;
	bool lost;

	lockdep_assert_held(&n->list_lock);
	mm_point(MM_POINT_SLAB_LIST_LOCKED, s);
	do {
		old = slab_pair_read(slab);
		object = slab_pair_head(s, slab, &old);
		got = 0;
		lost = false;
		while (got < nr && object) {
			void *next = get_freepointer(s, object);

			if (unlikely(next && object_index(s, slab, next) < 0)) {
				lost = true;
				next = NULL;
			}
			p[got++] = object;
			object = next;
		}
		rest = object;
		new = old.counters;
		new.inuse += got;
		if (lost)
			new.inuse = new.objects;
	} while (!slab_pair_update(s, slab, &old, rest, new));
	if (unlikely(lost))
		slab_bug(s, p[got - 1], caller,
			 "free pointer corrupted: it decodes to a value that is not an object of this slab");
	for (i = 0; i < got; i++)
		clear_freepointer(s, p[i]);
	if (!rest) {
		list_move(&slab->lru, &n->full);
		n->nr_partial--;
	}
	return got;
}

/*
 * Might object be parked on a deferred list (kfree_nolock() could not free
 * it, and this is its second free)?  Its slot then decodes, as a deferred
 * link, to NULL or an address the memmap covers; an allocated object's
 * slot holds FREEPTR_IN_USE (non-canonical that way) or its owner's data,
 * which passes only by guessing s->random.  A few instructions, so the
 * fast free keeps the promise of docs/any-context.md; a yes goes to the
 * slow path, which checks fully (object_is_parked()) and reports.
 */
static __always_inline bool object_may_be_parked(const struct kmem_cache *s,
						 void *object)
{
	void *next = get_deferred_link(s, object);

	return !next || pfn_valid(__pa_direct(next) >> PAGE_SHIFT);
}

bool cpu_slab_free_fastpath(struct kmem_cache *s, void *object)
{
	struct page *slab = virt_to_slab(object);

	if (unlikely(object_may_be_parked(s, object)))
		return false;

	/* Poisoned before the push, as a sheaf push does: once on the
	 * freelist an interrupt may take it and open it again. */
	kasan_slab_free(s, object);
	return cpu_slab_free_fast(s, slab, object);
}

void cpu_slab_free_checked(struct kmem_cache *s, void *object,
			   unsigned long caller)
{
	if (likely(cpu_slab_free_fastpath(s, object)))
		return;
	cpu_slab_free_slow(s, virt_to_slab(object), object, LOCK_SPIN, caller);
}

bool cpu_slab_free(struct kmem_cache *s, void *object, enum lock_how how,
		   unsigned long caller)
{
	struct page *slab = virt_to_slab(object);

	if (likely(!object_may_be_parked(s, object) &&
		   cpu_slab_free_fast(s, slab, object)))
		return true;
	return cpu_slab_free_slow(s, slab, object, how, caller);
}

/* ---------------------------------------------------------------------- */
/* Flushing every CPU                                                      */
/* ---------------------------------------------------------------------- */

struct cpu_slab_flush {
	struct kmem_cache *s;
	bool busy[NR_CPUS];
};

/* Unfreeze everything a CPU holds; false when its line's lock is held. */
static bool cpu_slab_flush_cpu(struct kmem_cache *s, unsigned int cpu)
{
	struct kmem_cache_cpu *c = cpu_slab_of(s, cpu);
	struct page *slab, *next;
	unsigned long flags;
	LIST_HEAD(partial);
	LIST_HEAD(discard);
	void *head;

	if (!local_trylock_irqsave(&c->lock, flags))
		return false;
	cpu_slab_begin_locked(c);
	slab = c->slab;
	head = c->freelist;
	WRITE_ONCE(c->slab, NULL);
	WRITE_ONCE(c->freelist, NULL);
	while (!list_empty(&c->partial))
		list_move_tail(c->partial.next, &partial);
	c->nr_partial = 0;
	cpu_slab_end_locked(s, c);
	local_unlock_irqrestore(&c->lock, flags);
	if (!slab && list_empty(&partial))
		return true;
	mm_point(MM_POINT_CPU_SLAB_DETACHED, s);
	stat(s, CPUSLAB_FLUSH);
	if (slab)
		unfreeze_slab(s, slab, head, LOCK_SPIN, &discard);
	list_for_each_entry_safe(slab, next, &partial, lru) {
		list_del_init(&slab->lru);
		unfreeze_slab(s, slab, NULL, LOCK_SPIN, &discard);
	}
	free_slab_list(s, &discard, LOCK_SPIN);
	return true;
}

static void cpu_slab_flush_this_cpu(void *info)
{
	struct cpu_slab_flush *f = info;
	unsigned int cpu = smp_processor_id();

	f->busy[cpu] = !cpu_slab_flush_cpu(f->s, cpu);
}

/*
 * Task context, IRQs on.  One IPI to every online CPU unfreezes its slabs
 * there (IRQ context: the line's lock is only ever held with IRQs off, so
 * an IPI finds it free, except on the host, where a test may hold it);
 * a CPU found busy is asked again; CPUs not online are flushed from here.
 */
void flush_all_cpu_slabs(struct kmem_cache *s)
{
	struct cpu_slab_flush f = { .s = s };
	unsigned int cpu, tries;

	if (!cache_has_cpu_slab(s))
		return;
	on_each_cpu(cpu_slab_flush_this_cpu, &f, true);
	for_each_possible_cpu(cpu) {
		if (cpu >= nr_cpu_ids) {   /* never brought up: nothing runs */
			WARN_ON(!cpu_slab_flush_cpu(s, cpu));
			continue;
		}
		for (tries = 0; f.busy[cpu]; tries++) {
			if (WARN_ON(tries > CPU_SLAB_FLUSH_MAX_TRIES))
				break;
			cpu_relax();
			if (smp_call_function_single(cpu,
						     cpu_slab_flush_this_cpu,
						     &f, true))
				f.busy[cpu] = !cpu_slab_flush_cpu(s, cpu);
		}
	}
}

/* Objects a CPU holds on its freelist (racy: for statistics). */
unsigned long cpu_slab_objects(struct kmem_cache *s, unsigned int cpu)
{
	struct kmem_cache_cpu *c = cpu_slab_of(s, cpu);
	unsigned long n = 0;
	void *p = READ_ONCE(c->freelist);
	struct page *slab = READ_ONCE(c->slab);

	while (p && slab && n < slab->objects) {
		n++;
		p = get_freepointer(s, p);
		if (p && object_index(s, slab, p) < 0)
			break;
	}
	return n;
}
