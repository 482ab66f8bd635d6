/*
 * slab.h - object caches (kmem_cache_*) and kmalloc(), the public face of
 * the slab allocator.
 *
 * A cache hands out objects of one size.  Behind it:
 *   - per-CPU *sheaves* (arrays of free object pointers): the fast path
 *     pops and pushes there without touching shared data (mm/sheaf.c);
 *   - a per-node *barn* of spare full and empty sheaves (mm/sheaf.c);
 *   - *slabs*: buddy blocks cut into objects, free ones linked through a
 *     hardened free pointer inside each object (mm/slab.c).
 * kmalloc() picks a cache by size, 8 bytes to 8 KiB; above that it asks
 * the buddy directly (mm/kmalloc.c).  docs/slab-and-sheaves.md walks
 * through an allocation and a free.
 *
 * Contexts: everything here may be called from task or IRQ context, but
 * kmem_cache_shrink() and kmem_cache_destroy(), which send IPIs and wait
 * for them, only with IRQs on.  In NMI context: kmalloc_nolock()/
 * kfree_nolock() (below); kfree(), kmem_cache_free() and
 * kmem_cache_free_bulk() take the kfree_nolock() path by themselves;
 * kmalloc()/kmem_cache_alloc()/kmem_cache_alloc_bulk() warn once and
 * return NULL (0).
 * docs/any-context.md explains why and how.
 */
#ifndef SLAB_H
#define SLAB_H

#include <compiler.h>
#include <mm.h>
#include <numa.h>

typedef unsigned int slab_flags_t;

#ifndef ENOMEM
#define ENOMEM 12   /* out of memory (the POSIX number) */
#endif

/* ---- cache flags ---- */
#define SLAB_CONSISTENCY_CHECKS (1u << 0) /* check every free ("F") */
#define SLAB_RED_ZONE           (1u << 1) /* guard bytes after objects ("Z") */
#define SLAB_POISON             (1u << 2) /* fill free objects, check ("P") */
#define SLAB_STORE_USER         (1u << 3) /* remember alloc/free caller ("U") */
#define SLAB_HWCACHE_ALIGN      (1u << 4) /* align objects to cache lines */
#define SLAB_NO_MERGE           (1u << 5) /* accepted for Linux parity */
#define SLAB_KMALLOC            (1u << 6) /* a kmalloc class: with
					     SLAB_RED_ZONE, the bytes past the
					     size asked for are red zone too */
/* Tests only: kmem_cache_args.sheaf_capacity replaces the default
 * instead of being a minimum (see calculate_sheaf_capacity(), mm/sheaf.c),
 * so a test reaches the spare, the barn and the refill with a handful of
 * objects.  No cache of the kernel itself sets it. */
#define SLAB_TEST_SHEAF_CAPACITY (1u << 7)

/*
 * The cache's slabs go back to the buddy only after a grace period
 * (mm/slab_rcu.c).  An object freed may be handed out again at once, to
 * an object of the same type: a reader inside rcu_read_lock() never
 * touches memory that is not an object of this cache, but must check,
 * after taking a reference, that the object is still the one it looked
 * up (docs/rcu.md, "SLAB_TYPESAFE_BY_RCU").  Such a cache keeps its free
 * pointer outside the object and is never poisoned, so a free object's
 * fields still read as they were.
 */
#define SLAB_TYPESAFE_BY_RCU     (1u << 8)
/* Set by slab_trace_enable() (mm/slab_trace.c), not by creators: every
 * step of this cache's allocations and frees is printed. */
#define SLAB_TRACED              (1u << 9)

/* Any of these makes a "debug cache": it bypasses sheaves, as in Linux. */
#define SLAB_DEBUG_FLAGS (SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE | \
			  SLAB_POISON | SLAB_STORE_USER)

#define SLAB_CACHE_LINE 64

/*
 * Extra arguments of kmem_cache_create_args().  A zeroed struct means:
 * natural alignment, no constructor, and NO sheaves (capacity 0), as in
 * Linux 6.18 where sheaves are opted into.  SHEAF_CAPACITY_DEFAULT picks
 * the capacity from the slot size (what kmem_cache_create() does); any
 * other sheaf_capacity is a minimum, as in Linux: the default for the slot
 * size wins when it is larger (SLAB_TEST_SHEAF_CAPACITY, for tests, turns
 * that off).
 */
#define SHEAF_CAPACITY_DEFAULT 0xffffffffu

/*
 * How a cache keeps free objects close to each CPU (docs/cpu-slab.md
 * compares them):
 *   SLAB_MODE_SHEAVES  per-CPU sheaves and a barn per node (Linux 7.0 on;
 *                      mm/sheaf.c)
 *   SLAB_MODE_CPU_SLAB a frozen slab per CPU with a lockless freelist and a
 *                      per-CPU partial list (SLUB before 7.0; mm/cpu_slab.c)
 *   SLAB_MODE_NONE     neither: every operation takes the node's list_lock
 * SLAB_MODE_AUTO (0, a zeroed struct) lets sheaf_capacity decide: sheaves
 * when it is not 0, none otherwise.  Debug caches are always
 * SLAB_MODE_NONE, as in Linux.
 */
enum slab_mode {
	SLAB_MODE_AUTO,
	SLAB_MODE_SHEAVES,
	SLAB_MODE_CPU_SLAB,
	SLAB_MODE_NONE,
	NR_SLAB_MODES
};

/* "sheaf", "cpuslab", "none" ("auto" for SLAB_MODE_AUTO). */
extern const char *const slab_mode_names[NR_SLAB_MODES];
/* The mode of the kmalloc classes (slab_mode= on the command line; set
 * before kmem_cache_init()).  SLAB_MODE_AUTO: sheaves. */
extern enum slab_mode slab_kmalloc_mode;

struct kmem_cache_args {
	unsigned int align;
	void (*ctor)(void *object);
	unsigned int sheaf_capacity;
	/* SLAB_MODE_CPU_SLAB or SLAB_MODE_NONE override sheaf_capacity;
	 * SLAB_MODE_SHEAVES with capacity 0 means the default capacity. */
	enum slab_mode mode;
};

struct kmem_cache;

/* ---- caches ---- */
struct kmem_cache *kmem_cache_create(const char *name, unsigned int size,
				     unsigned int align, slab_flags_t flags,
				     void (*ctor)(void *));
struct kmem_cache *kmem_cache_create_args(const char *name, unsigned int size,
					  const struct kmem_cache_args *args,
					  slab_flags_t flags);
/* Reports each object still allocated, by cache name, and then keeps the
 * cache alive (returns -1) instead of freeing memory that is in use. */
int kmem_cache_destroy(struct kmem_cache *s);
/* Flush every CPU's sheaves and the barn, give empty slabs back. */
void kmem_cache_shrink(struct kmem_cache *s);

/*
 * Print every step of a cache's allocations and frees (mm/slab_trace.c,
 * docs/slab-and-sheaves.md): task context; each flushes the cache's
 * sheaves.  slab_trace_setup() takes trace_alloc='s list at boot.
 */
void slab_trace_enable(struct kmem_cache *s);
void slab_trace_disable(struct kmem_cache *s);
void slab_trace_setup(const char *names);

void *kmem_cache_alloc(struct kmem_cache *s, gfp_t gfp);
void kmem_cache_free(struct kmem_cache *s, void *object);
/* All or nothing: returns nr, or 0 with nothing allocated. */
int kmem_cache_alloc_bulk(struct kmem_cache *s, gfp_t gfp, size_t nr,
			  void **p);
void kmem_cache_free_bulk(struct kmem_cache *s, size_t nr, void **p);

const char *kmem_cache_name(const struct kmem_cache *s);
/* SLAB_MODE_SHEAVES, SLAB_MODE_CPU_SLAB or SLAB_MODE_NONE. */
enum slab_mode kmem_cache_mode(const struct kmem_cache *s);
unsigned int kmem_cache_size(const struct kmem_cache *s); /* object size */

/* ---- prefilled sheaves: allocate later where failure is not allowed ---- */
struct slab_sheaf;
struct slab_sheaf *kmem_cache_prefill_sheaf(struct kmem_cache *s, gfp_t gfp,
					    unsigned int count);
/* Cannot fail while kmem_cache_sheaf_size(sheaf) > 0; any context. */
void *kmem_cache_alloc_from_sheaf(struct kmem_cache *s, gfp_t gfp,
				  struct slab_sheaf *sheaf);
int kmem_cache_refill_sheaf(struct kmem_cache *s, gfp_t gfp,
			    struct slab_sheaf **sheafp, unsigned int size);
void kmem_cache_return_sheaf(struct kmem_cache *s, gfp_t gfp,
			     struct slab_sheaf *sheaf);
unsigned int kmem_cache_sheaf_size(const struct slab_sheaf *sheaf);

/* ---- kmalloc ---- */
#define KMALLOC_MIN_SIZE        8
#define KMALLOC_SHIFT_HIGH      13
#define KMALLOC_MAX_CACHE_SIZE  (1u << KMALLOC_SHIFT_HIGH) /* 8 KiB */

/* kmalloc(0) returns this: not NULL, but faults when touched. */
#define ZERO_SIZE_PTR ((void *)16)
#define ZERO_OR_NULL_PTR(p) ((unsigned long)(p) <= (unsigned long)ZERO_SIZE_PTR)

/*
 * kmalloc() is inline, as in Linux: when the compiler knows the size (the
 * usual kmalloc(sizeof(*p), ...)), the class is chosen at the call site
 * and the call goes straight to __kmalloc_cache() with the class's cache;
 * otherwise to __kmalloc(), which looks the class up.  Both try the CPU's
 * sheaf first, and both take any flags.
 */
#define NR_KMALLOC_CACHES       13
extern struct kmem_cache *kmalloc_caches[NR_KMALLOC_CACHES];

/*
 * The class of a size known at compile time (1 .. KMALLOC_MAX_CACHE_SIZE):
 * a chain of compares against the class sizes (mm/kmalloc.c's
 * kmalloc_sizes[]) that the compiler folds to a constant.  kmalloc_init()
 * checks it against the run-time lookup for every size.
 */
static __always_inline unsigned int kmalloc_index_const(size_t size)
{
	if (size <= 8)
		return 0;
	if (size <= 16)
		return 1;
	if (size <= 32)
		return 2;
	if (size <= 64)
		return 3;
	if (size <= 96)
		return 4;
	if (size <= 128)
		return 5;
	if (size <= 192)
		return 6;
	if (size <= 256)
		return 7;
	if (size <= 512)
		return 8;
	if (size <= 1024)
		return 9;
	if (size <= 2048)
		return 10;
	if (size <= 4096)
		return 11;
	return 12;
}

void *__kmalloc(size_t size, gfp_t gfp);
void *__kmalloc_cache(struct kmem_cache *s, gfp_t gfp, size_t size);

static __always_inline void *kmalloc(size_t size, gfp_t gfp)
{
	if (__builtin_constant_p(size) && size &&
	    size <= KMALLOC_MAX_CACHE_SIZE)
		return __kmalloc_cache(kmalloc_caches[kmalloc_index_const(size)],
				       gfp, size);
	return __kmalloc(size, gfp);
}

/*
 * The node-aware calls (docs/numa.md).  node NUMA_NO_NODE is the plain
 * call; a node is served from that node's slabs, and from other nodes
 * (nearest first) when it has none, unless gfp says __GFP_THISNODE or the
 * mode is strict.  Whether the sheaves serve it is slab_numa_mode's
 * question (below).
 */
void *kmalloc_node(size_t size, gfp_t gfp, int node);
void *kmem_cache_alloc_node(struct kmem_cache *s, gfp_t gfp, int node);

/*
 * How sheaves treat nodes (`slab_numa=`; slab_set_numa_mode() at run time):
 *   SLAB_NUMA_BLIND   a sheaf takes whatever is freed on its CPU and hands
 *                     it to any request, kmalloc_node() included (the
 *                     sheaves as first proposed);
 *   SLAB_NUMA_LINUX   Linux's rules (6.18-7.1): a free of another node's
 *                     object skips the sheaves and goes to its slab;
 *                     kmalloc_node(n) uses the sheaves only when n is this
 *                     CPU's memory node and the object on top is from n;
 *                     a node with no object falls back to the nearest;
 *   SLAB_NUMA_STRICT  Linux's rules, and never a remote object: no
 *                     fallback to another node's slabs or pages (a request
 *                     fails instead), kmalloc_nolock() included.
 */
enum slab_numa_mode {
	SLAB_NUMA_BLIND,
	SLAB_NUMA_LINUX,
	SLAB_NUMA_STRICT,
	NR_SLAB_NUMA_MODES
};

extern enum slab_numa_mode slab_numa_mode;
extern const char *const slab_numa_mode_names[NR_SLAB_NUMA_MODES];
/* Task context, IRQs on: switch, and flush every cache's sheaves and
 * barns so that what they hold obeys the new mode.  It walks slab_caches
 * without slab_caches_lock (a flush sends IPIs and waits): no cache may be
 * destroyed meanwhile, which its callers (boot options, tests, the
 * benchmark) make sure of. */
void slab_set_numa_mode(enum slab_numa_mode mode);

void *kzalloc(size_t size, gfp_t gfp);
void *kcalloc(size_t n, size_t size, gfp_t gfp);   /* NULL on overflow */
void *krealloc(const void *p, size_t new_size, gfp_t gfp);
void kfree(const void *p);
size_t ksize(const void *p);
/* The cache kmalloc(size) would use (NULL above KMALLOC_MAX_CACHE_SIZE). */
struct kmem_cache *kmalloc_slab(size_t size);

/* ---- boot and reports ---- */
/* After the page allocator works.  slub_debug: the `slub_debug=` option
 * (NULL for none): letters F Z P U (none = all), then ",name" filters. */
void kmem_cache_init(const char *slub_debug);
bool slab_is_available(void);
void slabinfo_show(void);

/*
 * Error reports.  A report names the cache, the object, what was wrong
 * and the caller.  Normally it panics; with slab_report_count_only set (the
 * tests set it) it is counted in slab_reports instead, the bad operation
 * is refused, and the allocator carries on.
 */
extern bool slab_report_count_only;
extern unsigned long slab_reports;

/*
 * Any context, NMI included (mm/slab_nolock.c, docs/any-context.md): never
 * spins, never waits.  NULL means "not now".
 *   - node: NUMA_NO_NODE (any node, this CPU's first) or an online node
 *     (preferred: a remote object rather than none, unless __GFP_THISNODE
 *     or the strict mode); another number gives NULL (counted
 *     obj_alloc_nomem, include/nolock_stats.h);
 *   - gfp: only __GFP_ZERO and __GFP_THISNODE mean anything;
 *   - size 0 gives ZERO_SIZE_PTR; above KMALLOC_MAX_CACHE_SIZE gives NULL
 *     (counted obj_alloc_nomem);
 *   - the objects are ordinary kmalloc objects: kfree() and ksize() take
 *     them.  kfree_nolock() takes whatever kfree() takes (kmalloc and
 *     kmem_cache objects, large kmalloc blocks, NULL, ZERO_SIZE_PTR); when
 *     it cannot take a lock the object waits on a per-CPU list that an
 *     irq_work drains soon after (counted obj_free_deferred).
 */
void *kmalloc_nolock(size_t size, gfp_t gfp, int node);
void kfree_nolock(void *object);

/*
 * Freeing after a grace period (mm/slab_rcu.c, docs/rcu.md).
 *
 *   kfree_rcu(ptr, field)  ptr (kmalloc() or any cache's object) is freed
 *                          once every reader that could have found it has
 *                          left its read-side section; `field` is a struct
 *                          rcu_head inside *ptr, within its first page,
 *                          used only when the object cannot go into a
 *                          sheaf.  Task and IRQ context (not NMI).
 *   kfree_rcu(ptr)         the same without an rcu_head (Linux's
 *                          kvfree_rcu_mightsleep()): task context only, as
 *                          it may wait for a grace period itself when it
 *                          can neither batch the object nor allocate.
 *   kfree_rcu_nolock(ptr, field)  any context, NMI included: never spins,
 *                          never allocates, never loses the object.
 *   kvfree_rcu_barrier()   task context: every kfree_rcu() and
 *                          kfree_rcu_nolock() called before it has freed
 *                          its object.
 *
 * The object must not be touched by the caller after the call; readers
 * may still read it until the grace period ends.  NULL is ignored.
 */
struct rcu_head;
void kvfree_call_rcu(struct rcu_head *head, void *ptr);
void kfree_rcu_nolock_call(struct rcu_head *head, void *ptr);
void kvfree_rcu_barrier(void);

/* The rcu_head must lie in the object's first page (slab_rcu.c finds a
 * large kmalloc block's start from it). */
#define KFREE_RCU_MAX_OFFSET PAGE_SIZE

#define kfree_rcu_2(ptr, field)                                              \
	do {                                                                 \
		typeof(ptr) ___p = (ptr);                                    \
									     \
		BUILD_BUG_ON(offsetof(typeof(*___p), field) >=               \
			     KFREE_RCU_MAX_OFFSET);                          \
		if (___p)                                                    \
			kvfree_call_rcu(&___p->field, (void *)___p);         \
	} while (0)

#define kfree_rcu_1(ptr) kvfree_call_rcu(NULL, (void *)(ptr))

/* kfree_rcu() takes one or two arguments, as Linux's does: the third
 * argument of this picker is the name of the form that fits. */
#define KFREE_RCU_PICK(_1, _2, form, ...) form
#define kfree_rcu(...) \
	KFREE_RCU_PICK(__VA_ARGS__, kfree_rcu_2, kfree_rcu_1, unused)(__VA_ARGS__)
#define kfree_rcu_mightsleep(ptr) kfree_rcu_1(ptr)

#define kfree_rcu_nolock(ptr, field)                                         \
	do {                                                                 \
		typeof(ptr) ___p = (ptr);                                    \
									     \
		BUILD_BUG_ON(offsetof(typeof(*___p), field) >=               \
			     KFREE_RCU_MAX_OFFSET);                          \
		if (___p)                                                    \
			kfree_rcu_nolock_call(&___p->field, (void *)___p);   \
	} while (0)

#endif /* SLAB_H */
