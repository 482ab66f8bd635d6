/*
 * mm_check.c - check every invariant the allocator's headers state.
 *
 * The interface and when it may be called: include/mm_check.h.  Here,
 * which rule each check enforces and where that rule is written:
 *
 * SHEAVES (mm/slab_internal.h, mm/sheaf.c), per CPU of a cache:
 *   S1 main is never NULL while the sheaf lock is free;
 *   S2 main is &bootstrap_sheaf or a real sheaf of this cache with the
 *      cache's capacity, size <= capacity, on no barn list;
 *   S3 spare is NULL or a real sheaf of the cache's capacity (never the
 *      bootstrap sheaf), not main, on no barn list;
 *   S4 a cache without sheaves has bootstrap main and no spare everywhere;
 *   S5 the bootstrap sheaf is empty, capacity 0, of no cache, in no barn;
 *   S6 rcu_free is NULL or a real sheaf of the cache's capacity, neither
 *      main nor spare, on no list, never full while the lock is free (a
 *      full one is with call_rcu() already); its objects are held like a
 *      sheaf's (kfree_rcu() took them: not free until a grace period).
 * BARN:
 *   B1 sheaves_full holds sheaves with 0 < size <= capacity, sheaves_empty
 *      ones with size 0; all of this cache and its capacity;
 *   B2 nr_full/nr_empty are the list lengths, the lists well linked;
 *   B3 nr_empty <= BARN_MAX_EMPTY; nr_full <= BARN_MAX_FULL plus one per
 *      CPU (a refill that raced with a free may force one in, sheaf.c);
 *   B4 no sheaf is in two places (two lists, a list and a CPU, two CPUs).
 * SLABS (mm/slab.c, mm/slab_internal.h), under list_lock:
 *   L1 every slab on the lists is a slab of this cache: PG_slab on each
 *      page pointing at the head, objects == s->objects, the block's
 *      recorded order is s->order, its frame aligned to it;
 *   L2 on `partial` 0 <= inuse < objects, on `full` inuse == objects;
 *      at most min_partial empty slabs are kept;
 *   L3 the freelist holds exactly objects - inuse distinct objects of the
 *      slab (no cycle, nothing outside it);
 *   L4 nr_partial and nr_slabs are the list lengths; nr_slabs equals
 *      slabs made minus slabs freed (statistics);
 * CPU SLABS (mm/cpu_slab.c, a cpu-slab cache), quiescent:
 *   F1 each CPU's slab and the slabs of its partial list are frozen slabs
 *      of this cache (L1, L3, inuse <= objects); every slab on a node list
 *      is not frozen; a CPU's freelist holds objects of its slab only,
 *      each once, and is empty without a slab; tid is even unless traced;
 *   F2 nr_frozen is the number of frozen slabs of the node, so nr_partial
 *      + full + nr_frozen == nr_slabs (L4);
 *   objects on a CPU's freelist count as held (as objects in sheaves) for
 *   X1-X3.
 * CROSS (objects in sheaves count as in use by their slabs):
 *   X1 every object in a sheaf or on a deferred list is an object of a
 *      slab on this cache's lists, and is not on that slab's freelist
 *      (else it would be handed out twice);
 *   X2 no object is held twice (two sheaves, twice in one, sheaf and
 *      deferred list);
 *   X3 per slab, the objects held in sheaves <= inuse.
 * NODES (mm/slab_internal.h, include/slab.h):
 *   N1 every slab is on the lists of the node its pages are on;
 *   N2 strict mode: every object in a CPU's sheaves is from that CPU's
 *      memory node, every object in node n's barn from n's nearest node
 *      with memory (its CPUs' memory node).
 * BUDDY (include/mmzone.h, mm/page_alloc.c head comment), per zone:
 *   P1 free_area[k] holds nr_free blocks, each a PG_buddy head with order
 *      k, aligned to 2^k, inside the zone, of this node and zone, with no
 *      allocated order recorded; free_pages = sum nr_free << k;
 *   P2 no two free buddies of the same order stay apart (merged);
 *   P3 each CPU's pcp lists: PG_pcp heads of their list's order, aligned,
 *      in the zone; count is the pages on them; count <= PCP_HIGH, plus
 *      one batch per list (a refill of an empty list does not look at the
 *      high mark; a free_pages_nolock() that would pass it with zone->lock
 *      taken parks the block on the zone instead);
 *   P4 the deferred list: PG_deferred heads, nr_deferred their pages;
 *   P5 every page of the span: a free-block flag only on a listed head,
 *      no page inside a free block is a head of anything or a slab, no
 *      allocated block overlaps a free one; free + pcp + deferred pages
 *      <= managed_pages;
 *   P6 the zone's node: first_zone[] without and with __GFP_DMA32 is the
 *      highest zone allowed that has managed pages (ZONE_DMA32 if none).
 *
 * Locks: each lock is only tried (see the header); the order is the
 * allocator's own (pcp->lock before zone->lock; barn and list_lock never
 * together), so a check is just another any-context reader.  mm_check_lock
 * guards the scratch arrays below, which keep the checks off the stack and
 * out of the allocator they check.
 */
#include <kernel.h>
#include <mm.h>
#include <mm_check.h>
#include <mmzone.h>
#include <printk.h>
#include <spinlock.h>
#include <string.h>
#include "slab_internal.h"

#define MM_CHECK_MAX_OBJECTS  16384  /* objects held in sheaves, checked */
#define MM_CHECK_MAX_SHEAVES  256    /* sheaves of one cache, checked */
#define MM_CHECK_MAX_LIST     (1ul << 24) /* longer lists are loops */
#define MM_CHECK_MAX_PRINTED  16     /* per call; the rest only counted */

#define SLAB_RULES  "mm/slab_internal.h"
#define SHEAF_RULES "mm/sheaf.c"
#define SLAB_C      "mm/slab.c"
#define NOLOCK_C    "mm/slab_nolock.c"
#define ZONE_RULES  "include/mmzone.h"
#define BUDDY_RULES "mm/page_alloc.c"

unsigned long mm_check_violations;
bool mm_check_quiet;
const char *mm_check_match;
unsigned long mm_check_matched;
bool mm_check_full_span = true;

static DEFINE_SPINLOCK(mm_check_lock);
static unsigned long held_objects[MM_CHECK_MAX_OBJECTS];
static const struct slab_sheaf *seen_sheaves[MM_CHECK_MAX_SHEAVES];

/* One run of a check: what it is about, and what it found. */
struct check {
	const char *kind;     /* "cache" or "zone" */
	const char *name;
	int violations;
};

static void __printf(3, 4) violation(struct check *c, const char *rules,
				     const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	c->violations++;
	__atomic_fetch_add(&mm_check_violations, 1, __ATOMIC_RELAXED);
	if (!mm_check_match &&
	    (mm_check_quiet || c->violations > MM_CHECK_MAX_PRINTED))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (mm_check_match && strstr(msg, mm_check_match))
		mm_check_matched++;
	if (mm_check_quiet || c->violations > MM_CHECK_MAX_PRINTED)
		return;
	pr_err("mm_check: %s %s: %s [%s]\n", c->kind, c->name, msg, rules);
}

static int finish(struct check *c)
{
	if (c->violations > MM_CHECK_MAX_PRINTED && !mm_check_quiet)
		pr_err("mm_check: %s %s: %d violations in all\n", c->kind,
		       c->name, c->violations);
	return c->violations;
}

/* Walk a list_head list at most `max` steps; false if it is not a well
 * linked ring within that (a corrupted list).  *len gets its length. */
static bool list_is_sane(const struct list_head *head, unsigned long max,
			 unsigned long *len)
{
	const struct list_head *p = head;
	unsigned long n = 0;

	*len = 0;
	if (!head->next || !head->prev)
		return false;
	do {
		if (!p->next || p->next->prev != p)
			return false;
		p = p->next;
		if (p != head)
			n++;
	} while (p != head && n <= max);
	*len = n;
	return p == head;
}

/* ---------------------------------------------------------------------- */
/* Sorting and searching the held objects (no allocation, no recursion)    */
/* ---------------------------------------------------------------------- */

static void sift_down(unsigned long *a, unsigned long root, unsigned long n)
{
	for (;;) {
		unsigned long child = 2 * root + 1, tmp;

		if (child >= n)
			return;
		if (child + 1 < n && a[child + 1] > a[child])
			child++;
		if (a[root] >= a[child])
			return;
		tmp = a[root];
		a[root] = a[child];
		a[child] = tmp;
		root = child;
	}
}

static void heap_sort(unsigned long *a, unsigned long n)
{
	unsigned long i, tmp;

	for (i = n / 2; i-- > 0;)
		sift_down(a, i, n);
	for (i = n; i-- > 1;) {
		tmp = a[0];
		a[0] = a[i];
		a[i] = tmp;
		sift_down(a, 0, i);
	}
}

/* First index whose value is >= v. */
static unsigned long lower_bound(const unsigned long *a, unsigned long n,
				 unsigned long v)
{
	unsigned long lo = 0, hi = n;

	while (lo < hi) {
		unsigned long mid = lo + (hi - lo) / 2;

		if (a[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool is_held(const unsigned long *a, unsigned long n, const void *p)
{
	unsigned long i = lower_bound(a, n, (unsigned long)p);

	return i < n && a[i] == (unsigned long)p;
}

/* ---------------------------------------------------------------------- */
/* Sheaves and the barn                                                    */
/* ---------------------------------------------------------------------- */

struct cache_scan {
	struct check c;
	struct kmem_cache *s;
	unsigned long nr_held;       /* into held_objects */
	unsigned long frozen_found[MAX_NUMNODES]; /* F2 */
	bool held_overflow;
	unsigned int nr_sheaves;     /* into seen_sheaves */
	/* N2: the node every object of the sheaves being checked must be
	 * on (strict mode), or NUMA_NO_NODE for any. */
	int sheaf_nid;
	/* N1: the node whose lists are being checked. */
	int list_nid;
};

static bool bootstrap_in_a_list(void)
{
	const struct list_head *l = &bootstrap_sheaf.barn_list;

	return l->next && l->next != l;
}

static void check_bootstrap(struct cache_scan *cs)
{
	if (bootstrap_sheaf.size || bootstrap_sheaf.capacity)
		violation(&cs->c, SLAB_RULES,
			  "the bootstrap sheaf has size %u capacity %u (must be 0, 0)",
			  bootstrap_sheaf.size, bootstrap_sheaf.capacity);
	if (bootstrap_sheaf.cache)
		violation(&cs->c, SHEAF_RULES,
			  "the bootstrap sheaf belongs to cache %s",
			  bootstrap_sheaf.cache->name);
	if (bootstrap_in_a_list())
		violation(&cs->c, SHEAF_RULES,
			  "the bootstrap sheaf is linked into a barn list");
}

/* Remember a sheaf; false (reported) if it was seen already. */
static bool note_sheaf(struct cache_scan *cs, const struct slab_sheaf *sh,
		       const char *where)
{
	unsigned int i;

	for (i = 0; i < cs->nr_sheaves; i++) {
		if (seen_sheaves[i] == sh) {
			violation(&cs->c, SLAB_RULES,
				  "sheaf %p is in two places (again as %s)",
				  sh, where);
			return false;
		}
	}
	if (cs->nr_sheaves < MM_CHECK_MAX_SHEAVES)
		seen_sheaves[cs->nr_sheaves++] = sh;
	return true;
}

static void hold_object(struct cache_scan *cs, void *object)
{
	if (cs->nr_held >= MM_CHECK_MAX_OBJECTS) {
		cs->held_overflow = true;
		return;
	}
	held_objects[cs->nr_held++] = (unsigned long)object;
}

/* A real sheaf (not the bootstrap one) of cs->s: its fields and objects. */
static void check_real_sheaf(struct cache_scan *cs,
			     const struct slab_sheaf *sh, const char *where)
{
	struct kmem_cache *s = cs->s;
	unsigned int i;

	if (sh->cache != s) {
		violation(&cs->c, SLAB_RULES, "%s %p belongs to cache %s", where,
			  sh, sh->cache ? sh->cache->name : "(none)");
		return;
	}
	if (sh->capacity != s->sheaf_capacity)
		violation(&cs->c, SLAB_RULES,
			  "%s %p has capacity %u, the cache's is %u", where, sh,
			  sh->capacity, s->sheaf_capacity);
	if (sh->size > sh->capacity) {
		violation(&cs->c, SLAB_RULES, "%s %p holds %u > capacity %u",
			  where, sh, sh->size, sh->capacity);
		return;
	}
	if (!note_sheaf(cs, sh, where))
		return;
	for (i = 0; i < sh->size; i++) {
		struct page *slab = virt_to_slab(sh->objects[i]);

		hold_object(cs, sh->objects[i]);
		if (cs->sheaf_nid != NUMA_NO_NODE && slab &&
		    slab_nid(slab) != cs->sheaf_nid)
			violation(&cs->c, SLAB_RULES,
				  "%s %p holds %p of node %d; strict mode allows node %d only",
				  where, sh, sh->objects[i], slab_nid(slab),
				  cs->sheaf_nid);
	}
}

/*
 * S6: the CPU's rcu_free sheaf.  Its objects wait for a grace period:
 * held (X1-X3 treat them as in a sheaf: in use by their slabs), never free.
 */
static void check_rcu_free_sheaf(struct cache_scan *cs, unsigned int cpu,
				 const struct slab_sheaf *main,
				 const struct slab_sheaf *spare)
{
	struct slub_percpu_sheaves *pcs = &cs->s->cpu_sheaves[cpu];
	const struct slab_sheaf *rf = READ_ONCE(pcs->rcu_free);
	char where[24];

	if (!rf)
		return;
	if (rf == &bootstrap_sheaf || rf == main || rf == spare) {
		violation(&cs->c, SLAB_RULES,
			  "cpu%u rcu_free %p is the bootstrap sheaf, main or spare",
			  cpu, rf);
		return;
	}
	if (!cache_has_sheaves(cs->s))
		violation(&cs->c, SLAB_RULES,
			  "cpu%u rcu_free %p in a cache without sheaves", cpu, rf);
	if (rf->size >= rf->capacity)
		violation(&cs->c, SHEAF_RULES,
			  "cpu%u rcu_free %p is full (%u) with its lock free: it should be with call_rcu()",
			  cpu, rf, rf->size);
	if (rf->barn_list.next != &rf->barn_list)
		violation(&cs->c, SHEAF_RULES,
			  "cpu%u rcu_free %p is linked into a list", cpu, rf);
	snprintf(where, sizeof(where), "cpu%u rcu_free", cpu);
	check_real_sheaf(cs, rf, where);
}

static void check_cpu_sheaves(struct cache_scan *cs, unsigned int cpu)
{
	struct kmem_cache *s = cs->s;
	struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[cpu];
	const struct slab_sheaf *main = pcs_main_unlocked(pcs);
	const struct slab_sheaf *spare = READ_ONCE(pcs->spare);
	char where[24];

	if (local_lock_is_locked(&pcs->lock)) {
		violation(&cs->c, SLAB_RULES,
			  "cpu%u sheaf lock held (not quiescent)", cpu);
		return;
	}
	if (!main) {
		violation(&cs->c, SLAB_RULES, "cpu%u main is NULL", cpu);
	} else if (main != &bootstrap_sheaf) {
		snprintf(where, sizeof(where), "cpu%u main", cpu);
		if (!cache_has_sheaves(s))
			violation(&cs->c, SLAB_RULES,
				  "cpu%u main %p in a cache without sheaves",
				  cpu, main);
		else if (main->barn_list.next != &main->barn_list)
			violation(&cs->c, SHEAF_RULES,
				  "cpu%u main %p is linked into a list", cpu, main);
		check_real_sheaf(cs, main, where);
	}
	if (!spare)
		return;
	if (spare == &bootstrap_sheaf) {
		violation(&cs->c, SLAB_RULES, "cpu%u spare is the bootstrap sheaf",
			  cpu);
		return;
	}
	if (spare == main) {
		violation(&cs->c, SLAB_RULES, "cpu%u spare is main (%p)", cpu,
			  spare);
		return;
	}
	if (!cache_has_sheaves(s))
		violation(&cs->c, SLAB_RULES,
			  "cpu%u spare %p in a cache without sheaves", cpu, spare);
	if (spare->barn_list.next != &spare->barn_list)
		violation(&cs->c, SHEAF_RULES,
			  "cpu%u spare %p is linked into a list", cpu, spare);
	snprintf(where, sizeof(where), "cpu%u spare", cpu);
	check_real_sheaf(cs, spare, where);
}

static void check_barn_list_locked(struct cache_scan *cs,
				   struct list_head *list, enum barn_list which,
				   unsigned int nr)
{
	bool full = which == SHEAVES_FULL;
	const char *what = full ? "barn full list" : "barn empty list";
	struct slab_sheaf *sh;
	unsigned long len;

	if (!list_is_sane(list, MM_CHECK_MAX_SHEAVES, &len)) {
		violation(&cs->c, SHEAF_RULES, "%s is corrupted (or too long)",
			  what);
		return;
	}
	if (len != nr)
		violation(&cs->c, SHEAF_RULES, "%s has %lu sheaves, counted %u",
			  what, len, nr);
	list_for_each_entry(sh, list, barn_list) {
		if (sh == &bootstrap_sheaf) {
			violation(&cs->c, SHEAF_RULES,
				  "the bootstrap sheaf is on the %s", what);
			continue;
		}
		if (full && !sh->size)
			violation(&cs->c, SLAB_RULES,
				  "empty sheaf %p on the %s", sh, what);
		if (!full && sh->size)
			violation(&cs->c, SLAB_RULES,
				  "sheaf %p holding %u on the %s", sh, sh->size,
				  what);
		check_real_sheaf(cs, sh, what);
	}
}

static void check_barn(struct cache_scan *cs, int nid)
{
	struct kmem_cache *s = cs->s;
	struct node_barn *barn = &get_node(s, nid)->barn;
	unsigned long flags;

	cs->sheaf_nid = slab_numa_mode == SLAB_NUMA_STRICT ?
			node_fallback(nid)[0] : NUMA_NO_NODE;
	if (!spin_trylock_irqsave(&barn->lock, flags)) {
		violation(&cs->c, SHEAF_RULES, "barn lock held (not quiescent)");
		return;
	}
	check_barn_list_locked(cs, &barn->sheaves_full, SHEAVES_FULL,
			       barn->nr_full);
	check_barn_list_locked(cs, &barn->sheaves_empty, SHEAVES_EMPTY,
			       barn->nr_empty);
	if (barn->nr_empty > BARN_MAX_EMPTY)
		violation(&cs->c, SLAB_RULES, "barn holds %u empty sheaves, limit %u",
			  barn->nr_empty, BARN_MAX_EMPTY);
	if (barn->nr_full > BARN_MAX_FULL + nr_cpu_ids)
		violation(&cs->c, SHEAF_RULES,
			  "barn holds %u full sheaves, limit %u (+1 per CPU)",
			  barn->nr_full, BARN_MAX_FULL);
	if (!cache_has_sheaves(s) && (barn->nr_full || barn->nr_empty))
		violation(&cs->c, SLAB_RULES,
			  "barn of a cache without sheaves holds %u + %u",
			  barn->nr_full, barn->nr_empty);
	spin_unlock_irqrestore(&barn->lock, flags);
}

/* Objects of s parked by kfree_nolock() (any CPU) count as held too. */
static void collect_deferred(struct cache_scan *cs)
{
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		void *object = slab_deferred_first(cpu);
		unsigned long n = 0;

		while (object && n++ < MM_CHECK_MAX_OBJECTS) {
			struct page *slab = virt_to_slab(object);

			if (!slab || !slab->slab_cache) {
				violation(&cs->c, NOLOCK_C,
					  "cpu%u deferred list: %p is no slab object",
					  cpu, object);
				break;
			}
			if (slab->slab_cache == cs->s)
				hold_object(cs, object);
			object = slab_deferred_next(object);
		}
	}
}

static void check_held_unique(struct cache_scan *cs)
{
	unsigned long i;

	heap_sort(held_objects, cs->nr_held);
	for (i = 1; i < cs->nr_held; i++)
		if (held_objects[i] == held_objects[i - 1])
			violation(&cs->c, SLAB_RULES,
				  "object %#lx held twice (sheaves/deferred list)",
				  held_objects[i]);
}

/* ---------------------------------------------------------------------- */
/* Slabs                                                                   */
/* ---------------------------------------------------------------------- */

static long object_index_of(const struct kmem_cache *s,
			    const struct page *slab, unsigned long addr)
{
	unsigned long base = (unsigned long)page_address(slab);

	if (addr < base || (addr - base) % s->size ||
	    (addr - base) / s->size >= slab->objects)
		return -1;
	return (long)((addr - base) / s->size);
}

static void check_slab_pages(struct cache_scan *cs, struct page *slab)
{
	struct kmem_cache *s = cs->s;
	unsigned long pfn = page_to_pfn(slab), i;
	unsigned long recorded = (slab->flags >> PAGE_ALLOC_ORDER_SHIFT) &
				 PAGE_ALLOC_ORDER_MASK;

	if (!IS_ALIGNED(pfn, 1ul << s->order))
		violation(&cs->c, SLAB_C, "slab pfn %#lx not aligned to order %u",
			  pfn, s->order);
	if (recorded != s->order + 1ul)
		violation(&cs->c, SLAB_C,
			  "slab pfn %#lx: the buddy recorded order+1 %lu, cache order %u",
			  pfn, recorded, s->order);
	if (slab->flags & (PG_buddy | PG_pcp | PG_deferred))
		violation(&cs->c, SLAB_C, "slab pfn %#lx is marked free (%#lx)",
			  pfn, slab->flags);
	for (i = 0; i < (1ul << s->order); i++)
		if (!(slab[i].flags & PG_slab) ||
		    slab[i].private_data != (unsigned long)slab)
			violation(&cs->c, SLAB_C,
				  "slab pfn %#lx: page %lu lacks PG_slab or its head",
				  pfn, i);
}

/* The freelist of one slab: returns how many it holds (L3, X1). */
static unsigned int check_freelist_locked(struct cache_scan *cs,
					  struct page *slab)
{
	u64 is_free[(SLAB_MAX_OBJECTS + 63) / 64];
	struct kmem_cache *s = cs->s;
	void *p = slab_check_first_free(s, slab);
	unsigned int n = 0;

	memset(is_free, 0, sizeof(is_free));
	while (p) {
		long idx = object_index_of(s, slab, (unsigned long)p);

		if (idx < 0 || idx >= SLAB_MAX_OBJECTS) {
			violation(&cs->c, SLAB_C,
				  "slab %p: freelist reaches %p, not one of its objects",
				  page_address(slab), p);
			break;
		}
		if (is_free[idx / 64] & (1ull << (idx % 64))) {
			violation(&cs->c, SLAB_C,
				  "slab %p: object %ld twice on the freelist (a cycle)",
				  page_address(slab), idx);
			break;
		}
		is_free[idx / 64] |= 1ull << (idx % 64);
		n++;
		if (is_held(held_objects, cs->nr_held, p))
			violation(&cs->c, SLAB_RULES,
				  "object %p is free in its slab and held in a sheaf: handed out twice",
				  p);
		p = slab_check_next_free(s, p);
	}
	return n;
}

/* Objects held in sheaves that lie in this slab (X3); marks them found. */
static unsigned long held_in_slab(struct cache_scan *cs, struct page *slab)
{
	struct kmem_cache *s = cs->s;
	unsigned long base = (unsigned long)page_address(slab);
	unsigned long end = base + (unsigned long)slab->objects * s->size;
	unsigned long i = lower_bound(held_objects, cs->nr_held, base), n = 0;

	for (; i < cs->nr_held && held_objects[i] < end; i++) {
		n++;
		if (object_index_of(s, slab, held_objects[i]) < 0)
			violation(&cs->c, SLAB_RULES,
				  "held object %#lx is not the start of an object",
				  held_objects[i]);
	}
	return n;
}

/* A node's two slab lists (struct kmem_cache_node), by name. */
enum slab_list {
	SLABS_PARTIAL,
	SLABS_FULL,
};

/* L3 and X3 for one slab, on a list or frozen (`what` names which): its
 * freelist, and the objects held (in sheaves, on a CPU's freelist) in it. */
static void check_slab_objects(struct cache_scan *cs, struct page *slab,
			       const char *what, unsigned long *held_found)
{
	unsigned int nfree = check_freelist_locked(cs, slab);
	unsigned long held;

	if (nfree != slab->objects - slab->inuse)
		violation(&cs->c, SLAB_C,
			  "%s %p: %u objects on the freelist, but inuse %u of %u",
			  what, page_address(slab), nfree, slab->inuse,
			  slab->objects);
	held = held_in_slab(cs, slab);
	if (held > slab->inuse)
		violation(&cs->c, SLAB_RULES,
			  "%s %p: %lu of its objects held in sheaves or CPU freelists, inuse only %u",
			  what, page_address(slab), held, slab->inuse);
	*held_found += held;
}

static void check_slab_locked(struct cache_scan *cs, struct page *slab,
			      enum slab_list which, unsigned long *held_found,
			      unsigned long *empty)
{
	bool on_full = which == SLABS_FULL;
	struct kmem_cache *s = cs->s;

	if (!(slab->flags & PG_slab) || slab->slab_cache != s) {
		violation(&cs->c, SLAB_C, "page %p on the lists is no slab of the cache",
			  slab);
		return;
	}
	check_slab_pages(cs, slab);
	if (slab_nid(slab) != cs->list_nid)
		violation(&cs->c, SLAB_RULES,
			  "slab %p of node %d is on node %d's lists",
			  page_address(slab), slab_nid(slab), cs->list_nid);
	if (slab->objects != s->objects ||
	    slab->objects > SLAB_MAX_OBJECTS) {
		violation(&cs->c, SLAB_C, "slab %p has %u objects, the cache %lu",
			  page_address(slab), slab->objects, s->objects);
		return;
	}
	if (slab->inuse > slab->objects) {
		violation(&cs->c, SLAB_C, "slab %p inuse %u > objects %u",
			  page_address(slab), slab->inuse, slab->objects);
		return;
	}
	if (slab->frozen)
		violation(&cs->c, "mm/cpu_slab.c", "slab %p on a node list is frozen",
			  page_address(slab));
	if (on_full && slab->inuse != slab->objects)
		violation(&cs->c, SLAB_RULES, "slab %p on full with inuse %u of %u",
			  page_address(slab), slab->inuse, slab->objects);
	if (!on_full && slab->inuse == slab->objects)
		violation(&cs->c, SLAB_RULES, "slab %p on partial but full (%u)",
			  page_address(slab), slab->inuse);
	if (!on_full && !slab->inuse)
		(*empty)++;
	check_slab_objects(cs, slab, "slab", held_found);
}

/* F1 for one frozen slab a CPU holds (its freelist's objects are held). */
static void check_frozen_slab(struct cache_scan *cs, struct page *slab,
			      unsigned long *held_found)
{
	struct kmem_cache *s = cs->s;

	if (!(slab->flags & PG_slab) || slab->slab_cache != s ||
	    !slab->frozen || slab->objects != s->objects ||
	    slab->inuse > slab->objects) {
		violation(&cs->c, "mm/cpu_slab.c",
			  "a CPU holds %p, no frozen slab of the cache", slab);
		return;
	}
	check_slab_pages(cs, slab);
	if ((unsigned int)slab_nid(slab) < MAX_NUMNODES)
		cs->frozen_found[slab_nid(slab)]++;
	check_slab_objects(cs, slab, "frozen slab", held_found);
}

/* F1: every CPU's frozen slabs. */
static void check_cpu_slabs(struct cache_scan *cs, unsigned long *held_found)
{
	struct kmem_cache *s = cs->s;
	unsigned int cpu;

	if (!cache_has_cpu_slab(s))
		return;
	for_each_possible_cpu(cpu) {
		struct kmem_cache_cpu *c = &s->cpu_slab[cpu];
		struct page *slab;
		unsigned long n;

		if ((c->tid & 1) && !(s->flags & SLAB_TRACED))
			violation(&cs->c, "mm/cpu_slab.c",
				  "cpu%u: tid %lu odd (not quiescent)", cpu, c->tid);
		if (c->slab)
			check_frozen_slab(cs, c->slab, held_found);
		else if (c->freelist)
			violation(&cs->c, "mm/cpu_slab.c",
				  "cpu%u: a freelist without a slab", cpu);
		if (!list_is_sane(&c->partial, MM_CHECK_MAX_LIST, &n) ||
		    n != c->nr_partial) {
			violation(&cs->c, "mm/cpu_slab.c",
				  "cpu%u: partial list broken or not nr_partial %u long",
				  cpu, c->nr_partial);
			continue;
		}
		list_for_each_entry(slab, &c->partial, lru)
			check_frozen_slab(cs, slab, held_found);
	}
}

/* The objects on each CPU's freelist, held (quiescent: nothing moves). */
static void collect_cpu_freelists(struct cache_scan *cs)
{
	struct kmem_cache *s = cs->s;
	unsigned int cpu;

	if (!cache_has_cpu_slab(s))
		return;
	for_each_possible_cpu(cpu) {
		struct kmem_cache_cpu *c = &s->cpu_slab[cpu];
		unsigned long n = 0;
		void *p = c->freelist;

		while (p && c->slab && n++ <= s->objects) {
			if (object_index_of(s, c->slab, (unsigned long)p) < 0) {
				violation(&cs->c, "mm/cpu_slab.c",
					  "cpu%u: its freelist reaches %p, not an object of its slab",
					  cpu, p);
				break;
			}
			hold_object(cs, p);
			p = slab_check_next_free(s, p);
		}
	}
}

static void check_slab_list_locked(struct cache_scan *cs,
				   struct list_head *list, enum slab_list which,
				   unsigned long *count,
				   unsigned long *held_found,
				   unsigned long *empty)
{
	struct page *slab;

	if (!list_is_sane(list, MM_CHECK_MAX_LIST, count)) {
		violation(&cs->c, SLAB_C, "%s slab list is corrupted",
			  which == SLABS_FULL ? "full" : "partial");
		*count = 0;
		return;
	}
	list_for_each_entry(slab, list, lru)
		check_slab_locked(cs, slab, which, held_found, empty);
}

/* L1-L4 and N1 for node nid; the slab and held counts add up over nodes
 * (check_slabs()). */
static void check_node_slabs(struct cache_scan *cs, int nid,
			     unsigned long *nr_slabs, unsigned long *held_found)
{
	struct kmem_cache *s = cs->s;
	struct kmem_cache_node *n = get_node(s, nid);
	unsigned long flags, nr_partial, nr_full, empty = 0;

	if (!spin_trylock_irqsave(&n->list_lock, flags)) {
		violation(&cs->c, SLAB_C, "list_lock held (not quiescent)");
		return;
	}
	cs->list_nid = nid;
	check_slab_list_locked(cs, &n->partial, SLABS_PARTIAL, &nr_partial,
			       held_found, &empty);
	check_slab_list_locked(cs, &n->full, SLABS_FULL, &nr_full, held_found,
			       &empty);
	if (nr_partial != n->nr_partial)
		violation(&cs->c, SLAB_RULES, "%lu slabs on partial, nr_partial %lu",
			  nr_partial, n->nr_partial);
	if (nr_partial + nr_full + n->nr_frozen != n->nr_slabs)
		violation(&cs->c, SLAB_RULES,
			  "%lu slabs on the lists and %lu frozen, nr_slabs %lu",
			  nr_partial + nr_full, n->nr_frozen, n->nr_slabs);
	if (n->nr_frozen != cs->frozen_found[nid])
		violation(&cs->c, SLAB_RULES,
			  "nr_frozen %lu, but the CPUs hold %lu frozen slabs of node %d",
			  n->nr_frozen, cs->frozen_found[nid], nid);
	if (empty > s->min_partial)
		violation(&cs->c, SLAB_RULES,
			  "%lu empty slabs kept on partial, min_partial %u",
			  empty, s->min_partial);
	*nr_slabs += n->nr_slabs;
	spin_unlock_irqrestore(&n->list_lock, flags);
}

static void check_slabs(struct cache_scan *cs)
{
	struct kmem_cache *s = cs->s;
	unsigned long nr_slabs = 0, held_found = 0, made, freed;
	int nid;

	check_cpu_slabs(cs, &held_found);   /* F1, before F2 needs its count */
	for (nid = 0; nid < MAX_NUMNODES; nid++)
		check_node_slabs(cs, nid, &nr_slabs, &held_found);
	made = slab_stat_sum(s, ALLOC_SLAB);
	freed = slab_stat_sum(s, FREE_SLAB);
	if (made - freed != nr_slabs)
		violation(&cs->c, SLAB_C,
			  "nr_slabs %lu, but %lu slabs made and %lu freed",
			  nr_slabs, made, freed);
	if (!cs->held_overflow && held_found != cs->nr_held)
		violation(&cs->c, SLAB_RULES,
			  "%lu objects held in sheaves are in no slab of the cache",
			  cs->nr_held - held_found);
}

int slab_cache_check(struct kmem_cache *s)
{
	struct cache_scan cs = {
		.c = { .kind = "cache", .name = s->name }, .s = s,
		.sheaf_nid = NUMA_NO_NODE,
	};
	unsigned long flags;
	unsigned int cpu;
	int nid;

	if (!spin_trylock_irqsave(&mm_check_lock, flags)) {
		violation(&cs.c, "mm/mm_check.c", "another check is running");
		return finish(&cs.c);
	}
	check_bootstrap(&cs);
	for_each_possible_cpu(cpu) {
		struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[cpu];

		cs.sheaf_nid = slab_numa_mode == SLAB_NUMA_STRICT ?
			       cpu_to_mem(cpu) : NUMA_NO_NODE;
		check_cpu_sheaves(&cs, cpu);
		if (!local_lock_is_locked(&pcs->lock))
			check_rcu_free_sheaf(&cs, cpu, pcs_main_unlocked(pcs),
					     READ_ONCE(pcs->spare));
	}
	for (nid = 0; nid < MAX_NUMNODES; nid++)
		check_barn(&cs, nid);
	collect_deferred(&cs);
	collect_cpu_freelists(&cs);
	check_held_unique(&cs);
	check_slabs(&cs);
	spin_unlock_irqrestore(&mm_check_lock, flags);
	return finish(&cs.c);
}

/* ---------------------------------------------------------------------- */
/* The buddy                                                               */
/* ---------------------------------------------------------------------- */

#define FREE_BLOCK_FLAGS (PG_buddy | PG_pcp | PG_deferred)

static unsigned long alloc_order_plus1(const struct page *page)
{
	return (page->flags >> PAGE_ALLOC_ORDER_SHIFT) & PAGE_ALLOC_ORDER_MASK;
}

static bool in_zone(const struct zone *zone, unsigned long pfn)
{
	return pfn >= zone->zone_start_pfn &&
	       pfn < zone->zone_start_pfn + zone->spanned_pages;
}

/* A free block's head page on some list: where, flag and order (P1, P3,
 * P4).  False if it is not even in the zone. */
static bool check_free_head(struct check *c, struct zone *zone,
			    struct page *page, unsigned long flag,
			    unsigned int order, const char *where)
{
	unsigned long pfn;

	if (page < mem_map ||
	    page >= mem_map + (mem_map_end_pfn - mem_map_base_pfn)) {
		violation(c, ZONE_RULES, "%s: %p is no struct page", where, page);
		return false;
	}
	pfn = page_to_pfn(page);
	if (!in_zone(zone, pfn) || !in_zone(zone, pfn + (1ul << order) - 1)) {
		violation(c, ZONE_RULES, "%s: block pfn %#lx order %u outside the zone",
			  where, pfn, order);
		return false;
	}
	if ((page->flags & FREE_BLOCK_FLAGS) != flag)
		violation(c, BUDDY_RULES, "%s: pfn %#lx has flags %#lx",
			  where, pfn, page->flags);
	if (page->order != order)
		violation(c, BUDDY_RULES, "%s: pfn %#lx has order %u, the list's is %u",
			  where, pfn, page->order, order);
	if (!IS_ALIGNED(pfn, 1ul << order))
		violation(c, BUDDY_RULES, "%s: pfn %#lx not aligned to order %u",
			  where, pfn, order);
	if (alloc_order_plus1(page) || (page->flags & (PG_slab | PG_reserved)))
		violation(c, BUDDY_RULES,
			  "%s: free pfn %#lx still looks allocated (flags %#lx)",
			  where, pfn, page->flags);
	if (page_to_nid(page) != zone->node || page_zonenum(page) != zone->idx)
		violation(c, ZONE_RULES, "%s: pfn %#lx belongs to node %d zone %d",
			  where, pfn, page_to_nid(page), page_zonenum(page));
	return true;
}

static bool buddy_is_free_head(const struct zone *zone, unsigned long pfn,
			       unsigned int order)
{
	const struct page *buddy;

	if (!in_zone(zone, pfn) || !pfn_valid(pfn))
		return false;
	buddy = pfn_to_page(pfn);
	return (buddy->flags & PG_buddy) && buddy->order == order &&
	       page_to_nid(buddy) == zone->node &&
	       page_zonenum(buddy) == zone->idx;
}

/* P1, P2: returns the blocks listed. */
static unsigned long check_free_area_locked(struct check *c, struct zone *zone)
{
	unsigned long pages = 0, blocks = 0;
	unsigned int o;

	for (o = 0; o <= MAX_ORDER; o++) {
		struct free_area *area = &zone->free_area[o];
		unsigned long len;
		struct page *page;
		char where[24];

		snprintf(where, sizeof(where), "free_area[%u]", o);
		if (!list_is_sane(&area->free_list, MM_CHECK_MAX_LIST, &len)) {
			violation(c, BUDDY_RULES, "%s list is corrupted", where);
			continue;
		}
		if (len != area->nr_free)
			violation(c, BUDDY_RULES, "%s holds %lu blocks, nr_free %lu",
				  where, len, area->nr_free);
		list_for_each_entry(page, &area->free_list, lru) {
			unsigned long pfn;

			if (!check_free_head(c, zone, page, PG_buddy, o, where))
				continue;
			pfn = page_to_pfn(page);
			if (o < MAX_ORDER &&
			    buddy_is_free_head(zone, pfn ^ (1ul << o), o))
				violation(c, BUDDY_RULES,
					  "pfn %#lx and its buddy %#lx are both free at order %u, not merged",
					  pfn, pfn ^ (1ul << o), o);
		}
		pages += len << o;
		blocks += len;
	}
	if (pages != zone->free_pages)
		violation(c, BUDDY_RULES, "free lists hold %lu pages, free_pages %lu",
			  pages, zone->free_pages);
	return blocks;
}

/* P3 for one CPU, whose pcp->lock the caller holds; returns its blocks. */
static unsigned long check_pcp_locked(struct check *c, struct zone *zone,
				      unsigned int cpu)
{
	struct per_cpu_pages *pcp = &zone->pcp[cpu];
	unsigned long pages = 0, blocks = 0;
	unsigned int o;

	for (o = 0; o < NR_PCP_LISTS; o++) {
		unsigned long len;
		struct page *page;
		char where[32];

		snprintf(where, sizeof(where), "cpu%u pcp list %u", cpu, o);
		if (!list_is_sane(&pcp->lists[o], MM_CHECK_MAX_LIST, &len)) {
			violation(c, BUDDY_RULES, "%s is corrupted", where);
			continue;
		}
		list_for_each_entry(page, &pcp->lists[o], lru)
			check_free_head(c, zone, page, PG_pcp, o, where);
		pages += len << o;
		blocks += len;
	}
	if (pages != (unsigned long)pcp->count)
		violation(c, BUDDY_RULES, "cpu%u pcp lists hold %lu pages, count %d",
			  cpu, pages, pcp->count);
	if (pcp->count < 0 ||
	    pcp->count > PCP_HIGH + NR_PCP_LISTS * PCP_BATCH)
		violation(c, ZONE_RULES, "cpu%u pcp count %d, high mark %d",
			  cpu, pcp->count, PCP_HIGH);
	return blocks;
}

/* P4 (zone->lock held: nobody takes the list meanwhile). */
static unsigned long check_deferred_locked(struct check *c, struct zone *zone)
{
	struct llist_node *n = READ_ONCE(zone->deferred_free.first);
	unsigned long pages = 0, blocks = 0;

	while (n && blocks < MM_CHECK_MAX_LIST) {
		struct page *page = llist_entry(n, struct page, llnode);

		if (!check_free_head(c, zone, page, PG_deferred, page->order,
				     "deferred list"))
			break;
		pages += 1ul << page->order;
		blocks++;
		n = READ_ONCE(n->next);
	}
	if (pages != __atomic_load_n(&zone->nr_deferred, __ATOMIC_RELAXED))
		violation(c, BUDDY_RULES, "deferred list holds %lu pages, nr_deferred %lu",
			  pages, zone->nr_deferred);
	return blocks;
}

/* P5: every struct page of the span, in frame order. */
static void check_span_locked(struct check *c, struct zone *zone,
			      unsigned long listed_blocks)
{
	unsigned long pfn, end = zone->zone_start_pfn + zone->spanned_pages;
	unsigned long free_until = 0, alloc_until = 0, heads = 0;

	for (pfn = zone->zone_start_pfn; pfn < end; pfn++) {
		const struct page *page;
		unsigned long recorded;

		if (!pfn_valid(pfn))
			continue;
		page = pfn_to_page(pfn);
		/* Nodes may interleave: another node's frames inside this
		 * zone's span are that node's zone's business (no block
		 * straddles two nodes). */
		if ((page->flags & PG_reserved) || page_to_nid(page) != zone->node)
			continue;
		recorded = alloc_order_plus1(page);
		if (pfn < free_until && (page->flags & (FREE_BLOCK_FLAGS | PG_slab)))
			violation(c, BUDDY_RULES,
				  "pfn %#lx inside a free block is marked %#lx",
				  pfn, page->flags);
		if (pfn < free_until && recorded)
			violation(c, BUDDY_RULES,
				  "pfn %#lx inside a free block heads an allocated block: handed out twice",
				  pfn);
		if (pfn < alloc_until && (page->flags & FREE_BLOCK_FLAGS))
			violation(c, BUDDY_RULES,
				  "pfn %#lx inside an allocated block is marked free (%#lx)",
				  pfn, page->flags);
		if (pfn >= free_until && (page->flags & FREE_BLOCK_FLAGS)) {
			heads++;
			free_until = pfn + (1ul << page->order);
		}
		if (recorded && pfn >= alloc_until)
			alloc_until = pfn + (1ul << (recorded - 1));
	}
	if (heads != listed_blocks)
		violation(c, BUDDY_RULES,
			  "%lu pages carry a free-block flag, %lu blocks are listed",
			  heads, listed_blocks);
}

static void check_zone_totals(struct check *c, struct zone *zone)
{
	unsigned long free = zone_nr_free_pages(zone);

	if (free > zone->managed_pages)
		violation(c, ZONE_RULES, "%lu pages free of %lu managed", free,
			  zone->managed_pages);
}

static void check_first_zones(struct check *c, struct zone *zone)
{
	struct pglist_data *pgdat = NODE_DATA(zone->node);
	unsigned int dma32;

	for (dma32 = 0; dma32 < ARRAY_SIZE(pgdat->first_zone); dma32++) {
		int z = dma32 ? ZONE_DMA32 : ZONE_NORMAL;

		while (z > 0 && !pgdat->node_zones[z].managed_pages)
			z--;
		if (pgdat->first_zone[dma32] != &pgdat->node_zones[z])
			violation(c, ZONE_RULES, "node %d first_zone[%u] is not zone %s",
				  zone->node, dma32, pgdat->node_zones[z].name);
	}
}

/* zone->lock held; the pcp locks are tried here (P3 skipped if held). */
static int __zone_check_locked(struct check *c, struct zone *zone)
{
	unsigned long blocks;
	unsigned int cpu;
	bool all_pcp = true;

	blocks = check_free_area_locked(c, zone);
	for_each_possible_cpu(cpu) {
		struct per_cpu_pages *pcp = &zone->pcp[cpu];

		if (!spin_trylock(&pcp->lock)) {
			violation(c, ZONE_RULES, "cpu%u pcp->lock held (not quiescent)",
				  cpu);
			all_pcp = false;
			continue;
		}
		blocks += check_pcp_locked(c, zone, cpu);
		spin_unlock(&pcp->lock);
	}
	blocks += check_deferred_locked(c, zone);
	if (all_pcp && READ_ONCE(mm_check_full_span))
		check_span_locked(c, zone, blocks);
	check_zone_totals(c, zone);
	check_first_zones(c, zone);
	return c->violations;
}

int zone_check_locked(struct zone *zone)
{
	struct check c = { .kind = "zone", .name = zone->name };
	unsigned long flags;

	lockdep_assert_held(&zone->lock);
	if (!spin_trylock_irqsave(&mm_check_lock, flags)) {
		violation(&c, "mm/mm_check.c", "another check is running");
		return finish(&c);
	}
	__zone_check_locked(&c, zone);
	spin_unlock_irqrestore(&mm_check_lock, flags);
	return finish(&c);
}

int zone_check(struct zone *zone)
{
	struct check c = { .kind = "zone", .name = zone->name };
	unsigned long flags;

	if (zone_is_empty(zone))
		return 0;
	if (!spin_trylock_irqsave(&mm_check_lock, flags)) {
		violation(&c, "mm/mm_check.c", "another check is running");
		return finish(&c);
	}
	if (spin_trylock(&zone->lock)) {
		__zone_check_locked(&c, zone);
		spin_unlock(&zone->lock);
	} else {
		violation(&c, ZONE_RULES, "zone->lock held (not quiescent)");
	}
	spin_unlock_irqrestore(&mm_check_lock, flags);
	return finish(&c);
}

int mm_check_all(void)
{
	struct kmem_cache *s;
	unsigned long flags;
	int nid, bad = 0;
	unsigned int z;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!NODE_DATA(nid))
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++)
			bad += zone_check(&NODE_DATA(nid)->node_zones[z]);
	}
	if (!spin_trylock_irqsave(&slab_caches_lock, flags)) {
		struct check c = { .kind = "caches", .name = "(all)" };

		violation(&c, SLAB_C, "slab_caches_lock held (not quiescent)");
		return bad + finish(&c);
	}
	list_for_each_entry(s, &slab_caches, list)
		bad += slab_cache_check(s);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return bad;
}
