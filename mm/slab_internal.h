/*
 * slab_internal.h - what the slab layer's files share (mm/slab.c,
 * slab_nolock.c, slab_debug.c, slab_common.c, sheaf.c, kmalloc.c,
 * slab_rcu.c; mm/slab.c's head comment lists what each holds): struct
 * kmem_cache, the per-node and per-CPU parts, sheaves, statistics, the
 * inline fast paths, the object layout and the free-pointer helpers, and
 * the calls between the files.
 *
 * Shape of a cache (one entry of node[] per possible node, include/numa.h):
 *
 *   kmem_cache
 *     node[nid]
 *       barn             full and empty sheaves of the CPUs of node nid
 *                        (memoryless nodes included), barn->lock (sheaf.c)
 *       partial, full    slabs whose memory is on node nid, list_lock
 *                                                              (slab.c)
 *     cpu_sheaves[cpu]   main + spare sheaf, local_trylock_t   (sheaf.c),
 *                        one cache line per possible CPU, last
 *
 * Invariants:
 *   - cpu_sheaves[c].main is never NULL while its lock is free; it may be
 *     &bootstrap_sheaf (capacity 0: always "empty" and "full"), and then
 *     spare is NULL.
 *   - spare is NULL, or a real sheaf of the cache's capacity.
 *   - &bootstrap_sheaf is only ever a main: never a spare, never in a barn,
 *     never a prefilled sheaf; its size stays 0 (sheaf.c checks).
 *   - barn->sheaves_full holds sheaves with size > 0, sheaves_empty ones
 *     with size 0; each list normally holds at most its limit.
 *   - a slab is on `partial` when 0 < inuse < objects or it is one of the
 *     empty slabs kept (inuse == 0), on `full` when inuse == objects.
 *   - objects in sheaves count as in use by their slabs.
 *   - a slab is on the lists of the node its pages are on (page_to_nid());
 *     a CPU's sheaves trade only with its own node's barn.
 *   - slab_numa_mode (include/slab.h) says which objects a sheaf may hold;
 *     with SLAB_NUMA_STRICT every object in a CPU's sheaves and in its
 *     node's barn is from that CPU's memory node (numa_mem_id()).
 */
#ifndef MM_SLAB_INTERNAL_H
#define MM_SLAB_INTERNAL_H

#include <local_lock.h>
#include <kasan.h>
#include <list.h>
#include <mm.h>
#include <mmzone.h>
#include <mm_points.h>
#include <rcupdate.h>
#include <rseq.h>
#include <slab.h>
#include <smp.h>
#include <spinlock.h>
#include <string.h>

/*
 * ---- statistics (summed over CPUs by slabinfo) ----
 * Each item: its name (Linux's, from enum stat_item in mm/slub.c where it
 * has one) and what one count means, which the trace (mm/slab_trace.c)
 * prints beside it.
 */
#define SLAB_STAT_ITEMS(X)						\
	X(ALLOC_PCS, "sheaf hit: the object comes from this CPU's main sheaf") \
	X(ALLOC_SLOWPATH, "served by the slabs directly, no sheaf")	\
	X(FREE_PCS, "sheaf hit: the object goes into this CPU's main sheaf") \
	X(FREE_SLOWPATH, "freed to its slab directly, no sheaf")	\
	X(SHEAF_SWAP, "main and spare swapped")				\
	X(SHEAF_REFILL, "a sheaf refilled from partial slabs")		\
	X(SHEAF_FLUSH, "objects of a sheaf flushed back to their slabs") \
	X(SHEAF_ALLOC, "a sheaf allocated (from a kmalloc cache)")	\
	X(SHEAF_FREE, "a sheaf freed")					\
	X(BARN_GET, "a sheaf taken from the node's barn")		\
	X(BARN_GET_FAIL, "the barn had no sheaf of the kind wanted")	\
	X(BARN_PUT, "a sheaf put in the node's barn")			\
	X(BARN_PUT_FAIL, "the barn took no sheaf: at its limit, or no empty sheaf to trade")	\
	X(SHEAF_PREFILL, "a prefilled sheaf handed out")		\
	X(SHEAF_RETURN, "a prefilled sheaf given back")			\
	X(ALLOC_SLAB, "a new slab from the page allocator")		\
	X(FREE_SLAB, "an empty slab given back to the page allocator")	\
	X(SHEAF_FLUSH_BUSY, "a flush IPI found a fast path inside: asked again") \
	X(FREE_RCU_SHEAF, "kfree_rcu() kept in this CPU's rcu_free sheaf") \
	X(FREE_RCU_FALLBACK, "kfree_rcu() by a call_rcu() of its own")	\
	X(RCU_SHEAF_SUBMIT, "the rcu_free sheaf handed to call_rcu()")	\
	X(RCU_SHEAF_RETURN, "an rcu_free sheaf back after its grace period, into the barn") \
	X(RCU_SHEAF_RETURN_FLUSH, "an rcu_free sheaf back, barn full: objects to the slabs") \
	X(FREE_DEFERRED, "kfree_nolock() found a lock held: the object parked on this CPU's deferred list for irq_work") \
	X(ALLOC_FASTPATH, "cpu slab: the object comes from this CPU's slab freelist") \
	X(FREE_FASTPATH, "cpu slab: the object goes on this CPU's slab freelist") \
	X(ALLOC_REFILL, "cpu slab: this CPU took its slab's freelist (objects freed by others)") \
	X(ALLOC_FROM_PARTIAL, "cpu slab: a slab of the node's partial list frozen for this CPU") \
	X(CPU_PARTIAL_ALLOC, "cpu slab: the next slab taken from this CPU's partial list") \
	X(CPU_PARTIAL_NODE, "cpu slab: a slab of the node's partial list frozen onto this CPU's") \
	X(FREE_FROZEN, "cpu slab: freed to a frozen slab with one cmpxchg16b, no lock") \
	X(DEACTIVATE_FULL, "cpu slab: a slab unfrozen full, onto the node's full list") \
	X(DEACTIVATE_PARTIAL, "cpu slab: a slab unfrozen onto the node's partial list") \
	X(DEACTIVATE_EMPTY, "cpu slab: a slab unfrozen empty, given back") \
	X(CPUSLAB_FLUSH, "cpu slab: a CPU's slabs unfrozen by a flush") \
	X(CMPXCHG_DOUBLE_CPU_FAIL, "cpu slab: this CPU's freelist changed under a fast path (an interrupt): retried") \
	X(CMPXCHG_DOUBLE_FAIL, "cpu slab: a slab's freelist changed under its cmpxchg16b (another CPU): retried")

#define SLAB_STAT_ENUM(name, what) name,
enum slab_stat_item {
	SLAB_STAT_ITEMS(SLAB_STAT_ENUM)
	NR_SLAB_STAT_ITEMS
};
#undef SLAB_STAT_ENUM

/*
 * A sheaf: an array of free object pointers.  objects[0..size) are free
 * objects of `cache`; capacity is the array length.  An rcu_free sheaf
 * (sheaf.c) holds objects that kfree_rcu() was given instead: not free
 * until the grace period its rcu_head waits for has ended.  A sheaf waiting
 * for its grace period is on no barn list, so the two share their words;
 * the callback links barn_list afresh (INIT_LIST_HEAD) before any use.
 */
struct slab_sheaf {
	union {
		struct list_head barn_list;   /* on a barn list, or unlinked */
		struct rcu_head rcu_head;     /* handed to call_rcu() */
	};
	struct kmem_cache *cache;
	unsigned int capacity;
	unsigned int size;
	void *objects[];
};

#define SHEAF_HEADER_SIZE  (sizeof(struct slab_sheaf))
#define SHEAF_FLUSH_BATCH  32   /* objects flushed per slow free */
#define BARN_MAX_FULL      10
#define BARN_MAX_EMPTY     10

/* Slab geometry (calculate_order() in mm/slab_common.c). */
#define SLAB_MAX_ORDER     3     /* slabs come from the pcp-sized orders */
#define SLAB_MAX_OBJECTS   512   /* keeps the leak bitmap on the stack */
#define SLAB_MIN_OBJECTS   8     /* wanted per slab when the order allows */

/* A barn's two lists, named for the call that picks one: sheaves_full
 * (every sheaf holds objects) and sheaves_empty. */
enum barn_list {
	SHEAVES_FULL,
	SHEAVES_EMPTY,
};

/*
 * The barn: full and empty sheaves shared by the node's CPUs.
 * lock: guards both lists and counts; taken with IRQs off (the CPU holds
 * its sheaf lock already); any context may take it, an NMI path only by
 * spin_trylock.  Nothing is allocated or freed under it.
 */
struct node_barn {
	spinlock_t lock;
	struct list_head sheaves_full;
	struct list_head sheaves_empty;
	unsigned int nr_full;
	unsigned int nr_empty;
};

/*
 * Per node: the slab lists.
 * list_lock: guards partial, full, nr_partial, nr_slabs and every slab's
 * freelist/inuse; taken with IRQs off; never held across a call into the
 * page allocator (new slabs are made before taking it, empty ones freed
 * after dropping it).
 */
struct kmem_cache_node {
	spinlock_t list_lock;
	struct list_head partial;
	struct list_head full;
	unsigned long nr_partial;
	unsigned long nr_slabs;
	/* Cpu-slab caches (cpu_slab.c): slabs of this node frozen by a CPU,
	 * on neither list but counted in nr_slabs. */
	unsigned long nr_frozen;
	struct node_barn barn;
};

/*
 * Per CPU, for a cpu-slab cache (SLAB_MODE_CPU_SLAB, mm/cpu_slab.c): one
 * cache line each in a page of their own (kmem_cache.cpu_slab).
 *   freelist, tid  the pair the fast paths change with one cmpxchg16b:
 *                  freelist is this CPU's chain of free objects of `slab`
 *                  (linked through their hardened free pointers), tid
 *                  counts changes by 2; odd while the slow path owns the
 *                  line (lock held), or always while the cache is traced,
 *                  so a fast path that sees it odd goes slow.
 *   slab           the frozen slab this CPU allocates from, or NULL
 *   partial        more frozen slabs of this CPU (through page.lru)
 *   lock           this CPU only: the slow paths, IRQs off, tried
 */
struct kmem_cache_cpu {
	void *freelist;
	unsigned long tid;
	struct page *slab;
	struct list_head partial;
	unsigned int nr_partial;
	local_trylock_t lock;
	unsigned long alloc_fastpath;   /* ALLOC_FASTPATH, this CPU's */
	unsigned long free_fastpath;    /* FREE_FASTPATH, this CPU's */
};

BUILD_BUG_ON(sizeof(struct kmem_cache_cpu) != SMP_LINE_SIZE);
BUILD_BUG_ON(offsetof(struct kmem_cache_cpu, freelist) % 16 ||
	     offsetof(struct kmem_cache_cpu, tid) != sizeof(void *));

/*
 * Per CPU: main and spare sheaf, and the rcu_free sheaf, under a
 * local_trylock_t.  Only this CPU touches them (a flush from another CPU
 * runs here, in an IPI that takes them away: flush_all_sheaves() in
 * sheaf.c).  rcu_free is NULL or a real sheaf of the cache's capacity that
 * is never full while the lock is free: kfree_rcu() hands a full one to
 * call_rcu() before it unlocks (sheaf.c, "The rcu_free sheaf").
 * The two hot counters sit here so the fast path writes nothing shared.
 */
#define PCS_WORDS 7   /* the words below, the lock's included */

struct slub_percpu_sheaves {
	local_trylock_t lock;
	struct slab_sheaf *main;
	struct slab_sheaf *spare;
	struct slab_sheaf *rcu_free;
	unsigned long alloc_pcs;
	unsigned long free_pcs;
	/* A traced cache (mm/slab_trace.c): main while the lock is free
	 * (main is then &slab_trace_gate, which every fast path refuses). */
	struct slab_sheaf *traced_main;
	/* One cache line per CPU, so CPUs never write each other's line
	 * (the array starts line-aligned: see struct kmem_cache). */
	char pad[SLAB_CACHE_LINE - PCS_WORDS * sizeof(unsigned long)];
};

/* STORE_USER record, one for the last allocation and one for the free. */
struct slab_track {
	unsigned long addr;   /* caller */
	unsigned int cpu;
	unsigned int valid;
};

#define KMEM_CACHE_PAD_TO_LINE 24

/*
 * A cache.  It ends with one line of cpu_sheaves[] per possible CPU
 * (nr_cpu_possible, known before the first cache is made and fixed from
 * then on), so a cache takes kmem_cache_struct_size(nr_cpu_possible)
 * bytes: every loop over a cache's CPUs is for_each_possible_cpu().
 */
struct kmem_cache {
	const char *name;
	unsigned int object_size;  /* what the user asked for */
	unsigned int size;         /* stride between objects, metadata included */
	unsigned long stride_inverse; /* size's odd part, inverted mod 2^64 */
	unsigned int stride_shift;    /* size's trailing zero bits: both for
				       * slab_object_start() */
	unsigned int align;
	unsigned int offset;       /* free pointer, from the object start */
	unsigned int inuse;        /* object plus padding to a word */
	unsigned int orig_size_offset; /* SLAB_KMALLOC + SLAB_RED_ZONE: where
					* the size asked for is kept; else 0 */
	unsigned int order;        /* slab = 2^order pages */
	unsigned long objects;     /* objects per slab (a long: slab_object_start()
				    * compares a 64-bit index with it) */
	unsigned int min_partial;  /* slabs kept on partial even if empty */
	unsigned int sheaf_capacity; /* 0: no sheaves */
	enum slab_mode mode;       /* SHEAVES, CPU_SLAB or NONE */
	unsigned int cpu_partial_slabs; /* cpu slab: most slabs on a CPU's
					 * partial list */
	struct kmem_cache_cpu *cpu_slab; /* cpu slab: one line per possible
					  * CPU (this_cpu_line()); else NULL */
	slab_flags_t flags;
	void (*ctor)(void *object);
	unsigned long random;      /* free pointer hardening */
	struct list_head list;     /* slab_caches */
	struct kmem_cache_node node[MAX_NUMNODES];
	unsigned long stat[NR_SLAB_STAT_ITEMS];   /* atomic adds */
	/* Sheaves, objects and slabs of this cache handed to call_rcu() whose
	 * callback has not finished (atomic; the callback's last store):
	 * kmem_cache_destroy() waits for them with rcu_barrier(). */
	unsigned long rcu_pending;
	/* To the next cache line (the BUILD_BUG_ON below says when a new
	 * field needs this changed).  Not an alignment attribute: that would
	 * make the struct 64-byte aligned, and list_for_each_entry() forms a
	 * struct kmem_cache pointer from the list head at its end. */
	char pad_to_line[KMEM_CACHE_PAD_TO_LINE];
	/* Last, on a line of its own (the cache itself starts on one:
	 * kmem_cache_init()), so each CPU's entry fills one cache line. */
	struct slub_percpu_sheaves cpu_sheaves[];
};

/* Bytes of a struct kmem_cache with sheaves for nr_cpus CPUs. */
static inline size_t kmem_cache_struct_size(unsigned int nr_cpus)
{
	return offsetof(struct kmem_cache, cpu_sheaves) +
	       (size_t)nr_cpus * sizeof(struct slub_percpu_sheaves);
}

BUILD_BUG_ON(sizeof(struct slub_percpu_sheaves) != SMP_LINE_SIZE);
/* The restartable sequences below test the lock flag with cmpb and the
 * sheaf's size against its capacity with 32-bit instructions. */
BUILD_BUG_ON(sizeof(((struct slub_percpu_sheaves *)0)->lock) != 1);
BUILD_BUG_ON(sizeof(((struct slab_sheaf *)0)->size) != 4);
BUILD_BUG_ON(sizeof(((struct slab_sheaf *)0)->capacity) != 4);

BUILD_BUG_ON(offsetof(struct kmem_cache, cpu_sheaves) % SMP_LINE_SIZE);

/*
 * This CPU's sheaves of s: one add from GS (this_cpu_line()) to s itself,
 * and the constant offset of cpu_sheaves[], which the compiler folds into
 * each access.  PCS_OFFSET() is that sum for the fast paths' assembly,
 * which is handed this_cpu_line(s), so that no instruction is spent on
 * the constant there either.
 */
#define PCS_OFFSET(field) (offsetof(struct kmem_cache, cpu_sheaves) + \
			   offsetof(struct slub_percpu_sheaves, field))

static __always_inline struct slub_percpu_sheaves *pcs_of_line(char *line)
{
	return (struct slub_percpu_sheaves *)
		(line + offsetof(struct kmem_cache, cpu_sheaves));
}

static __always_inline struct slub_percpu_sheaves *
this_cpu_sheaves(struct kmem_cache *s)
{
	return pcs_of_line(this_cpu_line(s));
}

extern struct list_head slab_caches;
extern spinlock_t slab_caches_lock;
extern struct slab_sheaf bootstrap_sheaf;

/*
 * ---- the trace (mm/slab_trace.c) ----
 * A traced cache prints every step of its allocations and frees: the
 * statistic it counts and the file and function that took it.  stat()
 * and slab_trace() take their caller's place with __FILE__ and __func__,
 * so they are macros; an untraced cache pays one flag test, on the slow
 * paths only.
 */
extern struct slab_sheaf slab_trace_gate;
void slab_trace_step(struct kmem_cache *s, enum slab_stat_item item,
		     const char *file, const char *func);
const char *slab_stat_item_name(enum slab_stat_item item);
/* Tests: called with every traced step (NULL: nothing but the line). */
extern void (*slab_trace_hook)(struct kmem_cache *s, enum slab_stat_item item,
			       const char *func);
/* kmem_cache_create_args(): trace a new cache trace_alloc= names. */
void slab_trace_new_cache(struct kmem_cache *s);

/* A new slab's pages, for the trace: the counts before the call. */
struct slab_trace_pages {
	int nid;
	int pcp_count[MAX_NR_ZONES];
	unsigned long nr_free[MAX_NR_ZONES][NR_PAGE_ORDERS];
};
void slab_trace_pages_before(struct slab_trace_pages *t, int nid);
void slab_trace_pages_after(struct kmem_cache *s,
			    const struct slab_trace_pages *t,
			    const struct page *slab);

#define slab_trace(s, item) slab_trace_n((s), (item), 1)

/* n steps of one kind (a bulk call's objects): one line each, none for 0,
 * so the lines and the counters always agree. */
#define slab_trace_n(s, item, n)					\
	do {								\
		if (unlikely((s)->flags & SLAB_TRACED)) {		\
			unsigned long n_ = (n);				\
									\
			while (n_--)					\
				slab_trace_step((s), (item), __FILE__,	\
						__func__);		\
		}							\
	} while (0)

#define stat_add(s, i, n)						\
	do {								\
		unsigned long sn_ = (n);				\
									\
		__atomic_fetch_add(&(s)->stat[(i)], sn_, __ATOMIC_RELAXED); \
		slab_trace_n((s), (i), sn_);				\
	} while (0)

#define stat(s, i) stat_add((s), (i), 1)

/*
 * This CPU's sheaf lock (pcs->lock, a local_trylock_t: always tried).
 * While a traced cache's lock is free, its main is the trace gate, an
 * empty sheaf of capacity 0: every inline fast path (a pop needs
 * main->size, a push main->size < capacity) goes to the slow paths, which
 * take the lock and find the real main back.  So a traced cache leaves the
 * fast paths with no test added to them.
 */
static __always_inline void pcs_trace_ungate(struct slub_percpu_sheaves *pcs)
{
	if (unlikely(pcs->main == &slab_trace_gate))
		pcs->main = pcs->traced_main;
}

static __always_inline void pcs_trace_gate(const struct kmem_cache *s,
					   struct slub_percpu_sheaves *pcs)
{
	if (unlikely(s->flags & SLAB_TRACED)) {
		pcs->traced_main = pcs->main;
		pcs->main = &slab_trace_gate;
	}
}

#define pcs_trylock_irqsave(s, pcs, flags)				\
	(local_trylock_irqsave(&(pcs)->lock, flags) ?			\
	 (pcs_trace_ungate(pcs), true) : false)

#define pcs_unlock_irqrestore(s, pcs, flags)				\
	do {								\
		pcs_trace_gate((s), (pcs));				\
		local_unlock_irqrestore(&(pcs)->lock, flags);		\
	} while (0)

/* pcs->main as the slow paths see it, for a reader without the lock
 * (mm_check, the gdb helpers): the real one behind the trace gate. */
static inline struct slab_sheaf *pcs_main_unlocked(
	const struct slub_percpu_sheaves *pcs)
{
	struct slab_sheaf *main = READ_ONCE(pcs->main);

	return main == &slab_trace_gate ? READ_ONCE(pcs->traced_main) : main;
}

/* s->rcu_pending: one more (any context) / one fewer, the callback's last
 * access to s (release: kmem_cache_destroy() reads it with acquire). */
static inline void slab_rcu_pending_inc(struct kmem_cache *s)
{
	__atomic_fetch_add(&s->rcu_pending, 1, __ATOMIC_RELAXED);
}

static inline void slab_rcu_pending_dec(struct kmem_cache *s)
{
	__atomic_fetch_sub(&s->rcu_pending, 1, __ATOMIC_RELEASE);
}

static inline struct kmem_cache_node *get_node(struct kmem_cache *s, int nid)
{
	return &s->node[nid];
}

/* The node a slab's memory is on (any page of it: all carry the node). */
static inline int slab_nid(const struct page *slab)
{
	return page_to_nid(slab);
}

/*
 * Must a free of object (from this CPU) skip the sheaves?  Under Linux's
 * rules and the strict mode, an object from another node than this CPU's
 * memory node goes back to its own slab (its node's list_lock), so sheaves
 * and barns keep local objects.  kfree()'s inline fast path asks the same
 * question through struct percpu's slab_free_flags (slab_fast_free_cache()).
 */
static inline bool slab_free_skips_sheaves(const void *object)
{
	return slab_numa_mode != SLAB_NUMA_BLIND &&
	       page_to_nid(virt_to_page(object)) != numa_mem_id();
}

static inline bool cache_has_sheaves(const struct kmem_cache *s)
{
	return s->sheaf_capacity != 0;
}

static inline bool cache_has_cpu_slab(const struct kmem_cache *s)
{
	return s->cpu_slab != NULL;
}

/*
 * The slab (head page) that addr lies in, or NULL if addr is not in a slab.
 * Every page of a slab has PG_slab and points at the head page through
 * private_data (set up by setup_slab()), so any address inside works.
 * Slabs live in the direct map; an address elsewhere (in the kernel image,
 * say) gives a frame no memmap covers, and NULL.
 */
static __always_inline struct page *virt_to_slab(const void *addr)
{
	unsigned long pfn = __pa_direct(addr) >> PAGE_SHIFT;
	struct page *page;

	if (unlikely(!pfn_valid(pfn)))
		return NULL;
	page = pfn_to_page(pfn);
	if (unlikely(!(READ_ONCE(page->flags) & PG_slab)))
		return NULL;
	return (struct page *)page->private_data;
}

/*
 * The shadow hooks for objects (include/kasan.h; empty in the kernel).
 * kasan_slab_alloc() as an object leaves the allocator for a caller, before
 * anything is written into it for that caller (zeroes, say);
 * kasan_slab_free() once a free is accepted, before the object goes where
 * another allocation could take it.  Objects in sheaves, the barn, slab
 * freelists and deferred lists are all poisoned: moving them between those
 * never touches the shadow.  kmalloc() narrows an object to the size asked
 * with kasan_kmalloc().
 */
static __always_inline void kasan_slab_alloc(const struct kmem_cache *s,
					     void *object)
{
	kasan_unpoison(object, s->object_size);
}

static __always_inline void kasan_slab_free(const struct kmem_cache *s,
					    void *object)
{
	kasan_poison(object, s->object_size);
}

static __always_inline void kasan_kmalloc(const struct kmem_cache *s,
					  void *object, size_t size)
{
	if (size < s->object_size)
		kasan_poison((char *)object + size, s->object_size - size);
}

/*
 * The fast paths: pop from / push to this CPU's main sheaf, inlined into
 * kmalloc(), kfree(), kmem_cache_alloc() and kmem_cache_free() so that the
 * common case is one short straight line with no call chain.  They only
 * *try*: anything off the common case (the sheaf lock held by a slow path
 * we interrupted, main empty or full, a cache without sheaves, whose main
 * is the capacity-0 bootstrap sheaf) returns NULL/false, and the caller
 * takes the full path (alloc_from_pcs(), free_to_pcs(), the slabs), which
 * checks everything again.
 *
 * In the kernel each is a restartable sequence (include/rseq.h), not a
 * lock: one asm statement that reads the lock flag (a slow path holding
 * the sheaf sends us slow too), main and its size, and commits with one
 * instruction that changes size.  An NMI, IRQ or flush IPI that lands
 * before the commit sends it back to its first instruction on the way in
 * (rseq_ip_fixup(), arch/x86_64/traps.c), so the handler may use the
 * sheaf as if we were not there, and we read everything again after it.
 * The per-CPU counter is bumped after the commit by one instruction
 * (pcs_stat_inc()): an interrupt lands before it or after it, never in
 * the middle.  IRQs stay on throughout: nothing is held.
 *
 * The host build (HOST_TEST) runs the same sequences: there an interrupt
 * is a signal, and the handler makes the same fixup on the interrupted
 * context (rseq_ucontext_fixup(), tests/host/host_support.c).  The shadow
 * (kasan.h, host ASan builds) is poisoned before a push, never after: an
 * object must not sit in a sheaf addressable, where an interrupt could
 * pop it, unpoison it and have it poisoned again under its feet.
 *
 * pcs_alloc_fast() refuses NMI context (the full path warns: kmalloc_nolock()
 * is the call for that); kmalloc_nolock() uses __pcs_alloc_fast(), which
 * is safe anywhere.  Freeing from an NMI is fine for the same reason.
 */
#define SHEAF_POP_INSNS      "8" /* instructions of the any-context pop */
#define SHEAF_POP_TASK_INSNS "6" /* of the pop outside NMI context */
#define SHEAF_PUSH_INSNS     "8" /* and of the push */

/* One instruction, so an interrupt that bumps the same counter (its own
 * fast path) can never land between our read and our write. */
static __always_inline void pcs_stat_inc(unsigned long *counter)
{
	__asm__ __volatile__("incq %0" : "+m"(*counter));
}

/*
 * The pop, shared by both entries below: size = main->size; if (!size)
 * slow; object = objects[size - 1]; commit: main->size-- (one
 * read-modify-write).  Label 1 is the sequence's start, which each entry
 * places before its first instruction; 2 follows the commit.
 */
#define SHEAF_POP_SEQUENCE						\
	"movq %c[main](%[line]), %[sheaf]\n\t"				\
	"movl %c[size](%[sheaf]), %k[n]\n\t"				\
	"testl %k[n], %k[n]\n\t"					\
	"jz %l[slow]\n\t"						\
	"movq %c[objs]-8(%[sheaf], %[n], 8), %[obj]\n\t"		\
	"decl %c[size](%[sheaf])\n"					\
	"2:\n\t"
#define SHEAF_POP_OUTPUTS						\
	[obj] "=&r"(object), [sheaf] "=&r"(main), [n] "=&r"(size)
#define SHEAF_POP_INPUTS						\
	[line] "r"(line),						\
	[main] "i"(PCS_OFFSET(main)),					\
	[size] "i"(offsetof(struct slab_sheaf, size)),			\
	[objs] "i"(offsetof(struct slab_sheaf, objects))

/* After a pop that committed: the statistic, the shadow. */
static __always_inline void *sheaf_popped(struct kmem_cache *s,
					  struct slub_percpu_sheaves *pcs,
					  void *object)
{
	/* A sheaf holds only objects of its cache, never NULL (mm_check.c
	 * matches every one against the slabs): tell the compiler, so a
	 * caller's "did the fast path work?" test costs nothing. */
	if (!object)
		__builtin_unreachable();
	pcs_stat_inc(&pcs->alloc_pcs);
	kasan_slab_alloc(s, object);
	return object;
}

/* Any context: a slow path that holds the sheaf (an NMI came into it)
 * sends the pop slow, by the lock flag. */
static __always_inline void *__pcs_alloc_fast(struct kmem_cache *s)
{
	char *line = this_cpu_line(s);   /* this CPU's pcs at PCS_OFFSET() */
	struct slub_percpu_sheaves *pcs = pcs_of_line(line);
	struct slab_sheaf *main;
	unsigned long size;
	void *object;

	__asm__ __volatile__ goto(
		"1:	cmpb $0, %c[lock](%[line])\n\t"
		"jne %l[slow]\n\t"
		SHEAF_POP_SEQUENCE
		RSEQ_TABLE_ENTRY("1b", "2b", "1b", SHEAF_POP_INSNS)
		: SHEAF_POP_OUTPUTS
		: SHEAF_POP_INPUTS, [lock] "i"(PCS_OFFSET(lock))
		: "cc", "memory"
		: slow);
	return sheaf_popped(s, pcs, object);
slow:
	return NULL;
}

/*
 * Is object at the start of an object's stride in its slab?  The free fast
 * paths ask, so that kfree(p + 8) is refused (it would go into a sheaf and
 * come back from the next kmalloc()).  page is any page of the slab (every
 * one holds the slab's first byte in slab_start), so the offset is one
 * subtraction.  Then one multiplication and one rotation give the object's
 * index, or a number too big to be one, with no division:
 *
 *   Write the stride d as d0 * 2^k with d0 odd.  An odd number has an
 *   inverse modulo 2^64 (stride_inverse: d0 * inv = 1 mod 2^64), so
 *   multiplying by inv is a one-to-one map of the 64-bit numbers, and it
 *   takes q * d to q * 2^k (mod 2^64).  Rotating right by k
 *   (stride_shift) is one-to-one too and takes q * 2^k to q, for q below
 *   2^(64 - k).  So the offsets 0, d, 2d, ..., (objects - 1) * d - and no
 *   other 64-bit number - come out as 0 .. objects - 1: one compare with
 *   s->objects answers "inside the slab's objects" and "at a stride
 *   boundary" at once.  A pointer below the slab (a negative offset,
 *   which wraps) or in its unused tail is just another number that does
 *   not come out small.
 *
 * (Granlund and Montgomery, "Division by invariant integers using
 * multiplication", 1994, section 9; Hacker's Delight, 10-16.)
 */
static __always_inline unsigned long slab_object_index(
	const struct kmem_cache *s, unsigned long offset)
{
	unsigned long x = offset * s->stride_inverse;
	unsigned int k = s->stride_shift;

	/* Rotate right by k; the compiler makes this one instruction. */
	return (x >> k) | (x << ((BITS_PER_LONG - k) & (BITS_PER_LONG - 1)));
}

static __always_inline bool slab_object_start(const struct kmem_cache *s,
					      const struct page *page,
					      const void *object)
{
	unsigned long offset = (unsigned long)object - page->slab_start;

	return slab_object_index(s, offset) < s->objects;
}

/*
 * The cache of object when it is an object's first byte in a slab whose
 * page flags, masked with mask, equal want (want holds PG_slab), else
 * NULL (NULL, ZERO_SIZE_PTR, large kmalloc blocks, pointers into an
 * object or outside the memmap).  The page it lies in names its cache
 * directly (setup_slab() writes it in every page).
 */
static __always_inline struct kmem_cache *slab_cache_if_flags(
	const void *object, unsigned long mask, unsigned long want)
{
	struct page *page;
	struct kmem_cache *s;

	if (unlikely(!virt_covered(object)))
		return NULL;
	page = virt_to_page_covered(object);
	/* A plain read: a page changes PG_slab only while no object of it
	 * is out, so a valid free never races with the change. */
	if (unlikely((page->flags & mask) != want))
		return NULL;
	s = page->slab_cache;
	if (unlikely(!slab_object_start(s, page, object)))
		return NULL;
	return s;
}

/* An object's cache whatever node it is on: kfree_rcu() and the bulk
 * free ask this. */
static __always_inline struct kmem_cache *slab_object_cache(
	const void *object)
{
	return slab_cache_if_flags(object, PG_slab, PG_slab);
}

/*
 * For the inline free fast paths (kfree(), kfree_nolock(),
 * kmem_cache_free()), which push into this CPU's sheaf: as
 * slab_object_cache(), and NULL too for an object that must skip the
 * sheaves (slab_free_skips_sheaves()), so that the caller takes its full
 * path, which finds the cache and the node.  The mask and the value
 * (struct percpu) both hold PG_slab, and this CPU's memory node when
 * remote objects skip the sheaves: one test asks both questions.
 */
static __always_inline struct kmem_cache *slab_fast_free_cache(
	const void *object)
{
	return slab_cache_if_flags(object,
				   this_cpu_read(slab_free_flags_mask),
				   this_cpu_read(slab_free_flags_want));
}

/*
 * For kmalloc()/kmem_cache_alloc(), which NMI context must not call.  Out
 * of NMI context the lock flag cannot be set when we get here: the slow
 * paths hold it with IRQs off and never call kmalloc() or
 * kmem_cache_alloc() while they do, so only an NMI ever runs on this CPU
 * while it is held, and an NMI does not take this path.  So this pop does
 * not read the flag (SHEAF_POP_TASK_INSNS: two fewer than the any-context
 * pop); it is a restartable sequence all the same, for the IRQs and NMIs
 * that land inside it.
 */
static __always_inline void *pcs_alloc_fast(struct kmem_cache *s)
{
	struct slub_percpu_sheaves *pcs;
	struct slab_sheaf *main;
	unsigned long size;
	char *line;
	void *object;

	if (unlikely(in_nmi()))
		return NULL;
	line = this_cpu_line(s);   /* this CPU's pcs at PCS_OFFSET() */
	pcs = pcs_of_line(line);
	__asm__ __volatile__ goto(
		"1:	"
		SHEAF_POP_SEQUENCE
		RSEQ_TABLE_ENTRY("1b", "2b", "1b", SHEAF_POP_TASK_INSNS)
		: SHEAF_POP_OUTPUTS
		: SHEAF_POP_INPUTS
		: "cc", "memory"
		: slow);
	return sheaf_popped(s, pcs, object);
slow:
	return NULL;
}

static __always_inline bool pcs_free_fast(struct kmem_cache *s, void *object)
{
	char *line = this_cpu_line(s);   /* this CPU's pcs at PCS_OFFSET() */
	struct slub_percpu_sheaves *pcs = pcs_of_line(line);
	struct slab_sheaf *main;
	unsigned long size;

	kasan_slab_free(s, object);
	/* size = main->size; if (size >= capacity) slow;
	 * objects[size] = object (a free slot: rule 3 of rseq.h);
	 * commit: main->size++ (one read-modify-write). */
	__asm__ __volatile__ goto(
		"1:	cmpb $0, %c[lock](%[line])\n\t"
		"jne %l[slow]\n\t"
		"movq %c[main](%[line]), %[sheaf]\n\t"
		"movl %c[size](%[sheaf]), %k[n]\n\t"
		"cmpl %c[cap](%[sheaf]), %k[n]\n\t"
		"jae %l[slow]\n\t"
		"movq %[obj], %c[objs](%[sheaf], %[n], 8)\n\t"
		"incl %c[size](%[sheaf])\n"
		"2:\n\t"
		RSEQ_TABLE_ENTRY("1b", "2b", "1b", SHEAF_PUSH_INSNS)
		: [sheaf] "=&r"(main), [n] "=&r"(size)
		: [line] "r"(line), [obj] "r"(object),
		  [lock] "i"(PCS_OFFSET(lock)),
		  [main] "i"(PCS_OFFSET(main)),
		  [size] "i"(offsetof(struct slab_sheaf, size)),
		  [cap] "i"(offsetof(struct slab_sheaf, capacity)),
		  [objs] "i"(offsetof(struct slab_sheaf, objects))
		: "cc", "memory"
		: slow);
	pcs_stat_inc(&pcs->free_pcs);
	return true;
slow:
	/* Poisoned already: the full path frees it all the same, and none
	 * of its checks reads the shadow. */
	return false;
}

/*
 * The hardened free pointer (slab.c; the tests decode it too).  A free
 * object's link to the next is stored as
 *
 *     next ^ s->random ^ swab(address of the slot)
 *
 * The slot address is byte-swapped (as Linux does): next and the slot lie
 * in the same slab, so without the swap their high bits cancel and one
 * freed object shows the high bits of s->random in the clear; swapped, the
 * slot's varying low bytes land on top.
 *
 * A link on a CPU's deferred list (objects parked by kfree_nolock()) is
 * stored the same way with DEFERRED_LINK_TAG mixed in.  So the two kinds
 * never pass for each other: a slab freelist link read as a deferred one
 * decodes to a non-canonical address (the tag flips bit 63, not bit 62),
 * which no check accepts, and a deferred link read as a freelist one
 * likewise.  That is
 * what lets a free tell "this object is parked" from "this object holds
 * data" (a double free that meets the deferred list: free_to_slab_locked()
 * in mm/slab.c, defer_free_check() in mm/slab_nolock.c).
 */
#define DEFERRED_LINK_TAG (1ul << 63)

static inline unsigned long freeptr_slot_mix(const void *slot)
{
	return __builtin_bswap64((unsigned long)slot);
}

static inline unsigned long freeptr_encode(const struct kmem_cache *s,
					   const void *ptr, const void *slot)
{
	return (unsigned long)ptr ^ s->random ^ freeptr_slot_mix(slot);
}

static inline void *freeptr_decode(const struct kmem_cache *s,
				   unsigned long stored, const void *slot)
{
	return (void *)(stored ^ s->random ^ freeptr_slot_mix(slot));
}

static inline unsigned long deferred_link_encode(const struct kmem_cache *s,
						 const void *ptr,
						 const void *slot)
{
	return freeptr_encode(s, ptr, slot) ^ DEFERRED_LINK_TAG;
}

static inline void *deferred_link_decode(const struct kmem_cache *s,
					 unsigned long stored,
					 const void *slot)
{
	return freeptr_decode(s, stored ^ DEFERRED_LINK_TAG, slot);
}

/*
 * ---- The object layout (stride s->size; calculate_sizes(), slab_common.c)
 *
 *   | object (object_size) | pad to 8 | red zone 8 B | free ptr | track x2 | orig size | pad to align |
 *                           \-- RED_ZONE: whole span --/  \-- only if outside --/
 *
 * The free pointer lives in the middle of the object unless no byte of a
 * free object can hold it (a constructor, poisoning, a red zone that would
 * overlap it: freeptr_outside_object()); then it sits after the red zone.
 * The two tracks (SLAB_STORE_USER: last allocation, last free) follow, and
 * then, in a kmalloc cache with SLAB_RED_ZONE, one word for the size
 * kmalloc() was asked for (s->orig_size_offset).  Debug caches (any
 * SLAB_DEBUG_FLAGS, per cache or by `slub_debug=`) check each object as it
 * leaves and enters a slab, under list_lock (slab_debug.c); they have no
 * sheaves, so every object passes those checks.
 */
#define WORD               sizeof(void *)
#define REDZONE_SIZE       WORD

/* Debug byte patterns (the values Linux uses, so dumps look familiar). */
#define POISON_FREE        0x6b  /* a free object's bytes */
#define POISON_END         0xa5  /* a free object's last byte */
#define SLUB_RED_INACTIVE  0xbb  /* red zone of a free object */
#define SLUB_RED_ACTIVE    0xcc  /* red zone of an allocated object */

static inline bool is_debug_cache(const struct kmem_cache *s)
{
	return s->flags & SLAB_DEBUG_FLAGS;
}

/*
 * ---- Slabs and object addresses, the hardened free pointer's slots ----
 * For every slab file (slab.c, slab_debug.c, slab_nolock.c); inline, as
 * they were when they all lived in slab.c.
 */

static inline void *slab_base(const struct page *slab)
{
	return page_address(slab);
}

/* Index of object in slab, or -1 if it is not an object's first byte. */
static inline long object_index(const struct kmem_cache *s,
				const struct page *slab, const void *object)
{
	unsigned long off;

#ifdef MM_POINTS_FAST
	/*
	 * Host test build: a NULL slab is a caller's bug.  In the kernel
	 * slab_base(NULL) comes out as 0x0005088000000000 (the vmemmap's
	 * arithmetic), below every object, so the test below goes on to
	 * read NULL->objects and faults; the host's memmap puts it
	 * elsewhere and would hide the bug, so it is said outright.
	 */
	if (WARN_ON_ONCE(!slab))
		return -1;
#endif
	off = (unsigned long)object - (unsigned long)slab_base(slab);

	if ((unsigned long)object < (unsigned long)slab_base(slab) ||
	    off % s->size || off / s->size >= slab->objects)
		return -1;
	return (long)(off / s->size);
}

/*
 * Is p the first byte of an object in some slab (of any cache)?  Safe on
 * any value: it reads only the memmap, never p itself (slab.c).
 */
bool is_slab_object(const void *p);

static inline void **freeptr_slot(const struct kmem_cache *s, void *object)
{
	return (void **)((char *)object + s->offset);
}

static inline void *get_freepointer(const struct kmem_cache *s, void *object)
{
	void **slot = freeptr_slot(s, object);

	return freeptr_decode(s, (unsigned long)*slot, slot);
}

static inline void set_freepointer(const struct kmem_cache *s, void *object,
				   void *next)
{
	void **slot = freeptr_slot(s, object);

	*slot = (void *)freeptr_encode(s, next, slot);
}

/*
 * What the slot of an allocated object holds when it leaves its slab: a
 * value that decodes, as a freelist link and as a deferred one, to a
 * non-canonical address.  So a stale link left in an object whose user
 * never writes the slot can never make a later free think the object is
 * free or parked already.
 */
#define FREEPTR_IN_USE ((void *)(1ul << 62))

static inline void clear_freepointer(const struct kmem_cache *s, void *object)
{
	set_freepointer(s, object, FREEPTR_IN_USE);
}

/*
 * Does object look free in slab: its slot holds a freelist link (NULL or
 * an object of the same slab)?  An allocated object's slot holds its data
 * or FREEPTR_IN_USE, which decode to something else (data passes only by
 * guessing s->random).  Exact for the freelist head (object == the head:
 * free(a); free(a)), and cheap enough for every free that reaches a slab.
 */
static inline bool object_looks_free(const struct kmem_cache *s,
				     struct page *slab, void *object)
{
	void *next = get_freepointer(s, object);

	return !next || object_index(s, slab, next) >= 0;
}

/* The deferred-list link of a parked object (encoded as above). */
static inline void *get_deferred_link(const struct kmem_cache *s, void *object)
{
	void **slot = freeptr_slot(s, object);

	return deferred_link_decode(s, (unsigned long)*slot, slot);
}

/*
 * Does object look parked on a deferred list: its slot holds a deferred
 * link (NULL or a slab object, encoded with the tag)?  An allocated
 * object's slot holds its data or an old freelist link, which decode to a
 * non-canonical or random value that is no slab object (the chance that
 * data passes is that of guessing s->random).
 */
static inline bool object_is_parked(const struct kmem_cache *s, void *object)
{
	void *next = get_deferred_link(s, object);

	return !next || is_slab_object(next);
}

static inline void *slab_freelist(const struct kmem_cache *s, struct page *slab)
{
	return freeptr_decode(s, (unsigned long)slab->freelist,
			      &slab->freelist);
}

static inline void set_slab_freelist(const struct kmem_cache *s,
				     struct page *slab, void *object)
{
	slab->freelist = (void *)freeptr_encode(s, object, &slab->freelist);
}

/* ---- which node (include/slab.h, slab_numa_mode; slab.c) ---- */

/* May a request that prefers one node be served by another? */
static inline bool slab_node_fallback_allowed(gfp_t gfp)
{
	return !(gfp & __GFP_THISNODE) && slab_numa_mode != SLAB_NUMA_STRICT;
}

/* The node a request prefers: node, or this CPU's memory node; -1 (after
 * NUMA_NO_NODE was resolved) for a node no request may name. */
static inline int slab_preferred_node(int node)
{
	if (node == NUMA_NO_NODE)
		return numa_mem_id();
	if (node < 0 || node >= MAX_NUMNODES || !node_online(node))
		return -1;
	return node;
}

/* Every allocation path's last step: the object leaves the allocator
 * (its shadow opens), zeroed if asked (Linux's slab_post_alloc_hook()). */
static inline void *slab_post_alloc_hook(struct kmem_cache *s, void *object,
					 gfp_t gfp)
{
	kasan_slab_alloc(s, object);
	if (gfp & __GFP_ZERO)
		memset(object, 0, s->object_size);
	return object;
}

/* ---- slab.c: slabs, objects to and from them, allocation and free ---- */
/*
 * Take up to nr objects from slabs into p; returns how many.  node is the
 * node wanted (NUMA_NO_NODE: this CPU's memory node); other nodes serve
 * what it cannot unless gfp has __GFP_THISNODE or the mode is strict
 * (slab_node_fallback_allowed()).
 */
unsigned int __slab_alloc_bulk(struct kmem_cache *s, gfp_t gfp, int node,
			       unsigned int nr, void **p, unsigned long caller);
/* Give nr objects back to their slabs. */
void __slab_free_bulk(struct kmem_cache *s, unsigned int nr, void **p,
		      unsigned long caller);
/* One object back to its slab (list_lock held); a slab to free goes on
 * *discard, for free_slab_list() after the unlock. */
void free_to_slab_locked(struct kmem_cache *s, struct kmem_cache_node *n,
			 struct page *slab, void *object,
			 struct list_head *discard, unsigned long caller);
/* Any context, beside their locked twins in slab.c: one object from node
 * nid's first partial slab, or from a fresh slab (on node preferred, or
 * as gfp allows); NULL with *busy set when list_lock was held. */
void *slab_alloc_partial_nolock(struct kmem_cache *s, int nid, int preferred,
				bool *busy, unsigned long caller);
void *slab_alloc_new_nolock(struct kmem_cache *s, gfp_t gfp, int preferred,
			    bool *busy, unsigned long caller);
/* A slab (every slab on list) back to the page allocator, no lock held;
 * LOCK_TRY: by free_pages_nolock(). */
void free_slab(struct kmem_cache *s, struct page *slab, enum lock_how how);
void free_slab_list(struct kmem_cache *s, struct list_head *list,
		    enum lock_how how);
/* Checks a free of object to s; false (after a report) to refuse it. */
bool slab_free_check(struct kmem_cache *s, const void *object,
		     unsigned long caller);
/* kmem_cache_alloc()/kmem_cache_free() with an explicit caller. */
void *slab_alloc_caller(struct kmem_cache *s, gfp_t gfp, unsigned long caller);
/* kmem_cache_alloc_node() with an explicit caller: NUMA_NO_NODE is
 * slab_alloc_caller(); a node follows slab_numa_mode's rules. */
void *slab_alloc_node_caller(struct kmem_cache *s, gfp_t gfp, int node,
			     unsigned long caller);
void slab_free(struct kmem_cache *s, void *object, unsigned long caller);
/* The object of s's slab that p points into (kfree_rcu()'s rcu_head). */
void *slab_object_containing(const struct kmem_cache *s, struct page *slab,
			     const void *p);
/* For mm/mm_check.c: walk a slab's freelist (the links decoded as slab.c
 * encodes them); quiescent callers only. */
void *slab_check_first_free(const struct kmem_cache *s, struct page *slab);
void *slab_check_next_free(const struct kmem_cache *s, void *object);

/* ---- slab_nolock.c: the any-context paths (docs/any-context.md) ---- */
/* One object from s, trylocks only; NULL with *busy true when a lock was
 * held, false when there was no memory.  No counter is bumped here. */
void *slab_alloc_nolock(struct kmem_cache *s, gfp_t gfp, int node,
			bool *busy, unsigned long caller);
/* Free object to s from any context; never loses it (deferred free). */
void slab_free_nolock(struct kmem_cache *s, void *object,
		      unsigned long caller);
/* Objects parked by kfree_nolock() on cpu's deferred list right now. */
unsigned long slab_deferred_frees(unsigned int cpu);
/* Free every CPU's deferred objects now (on_each_cpu: IRQs on). */
void slab_deferred_flush_all(void);
/* Boot (kmem_cache_init()): every possible CPU's deferred list ready. */
void slab_defer_init(void);
/* For mm/mm_check.c: walk the deferred lists; quiescent callers only. */
void *slab_deferred_first(unsigned int cpu);
void *slab_deferred_next(void *object);
#ifdef HOST_TEST
void slab_deferred_host_reset(void);
#endif

/* ---- slab_debug.c: reports and the checks of debug caches ---- */
void slab_bug(struct kmem_cache *s, const void *object, unsigned long caller,
	      const char *fmt, ...) __printf(4, 5);
/* Fill n bytes no caller owns (byte by byte for the host's ASan). */
void slab_fill(void *p, u8 value, size_t n);
/* Paint object's debug areas as a free (val SLUB_RED_INACTIVE) or an
 * allocated (SLUB_RED_ACTIVE) one. */
void init_object(struct kmem_cache *s, void *object, u8 val);
/* Is every red-zone byte of object `value`? */
bool red_zone_is(const struct kmem_cache *s, const void *object, u8 value);
/* A debug cache's object leaving its slab (list_lock held): still poisoned
 * and red-zoned as a free one?  Reported if not; then painted allocated. */
void alloc_debug_checks(struct kmem_cache *s, void *object,
			unsigned long caller);
/* ... and entering it: false (after a report) when the free must be
 * refused; then painted free. */
bool free_debug_checks_locked(struct kmem_cache *s, struct page *slab,
			      void *object, unsigned long caller);
/* kmalloc(size) gave object: remember size, red-zone the rest (debug
 * kmalloc caches only; nothing otherwise). */
void slab_kmalloc_set_size(struct kmem_cache *s, void *object, size_t size);
/* The size kmalloc() was asked for (kept by debug kmalloc caches only),
 * or s->object_size when the cache keeps none. */
size_t slab_kmalloc_orig_size(struct kmem_cache *s, void *object);
/* SLAB_STORE_USER: object's two records, [0] alloc and [1] free. */
struct slab_track *slab_object_tracks(const struct kmem_cache *s,
				      void *object);
/* kmem_cache_destroy(): name every object of n still allocated (list_lock
 * held); returns how many. */
unsigned long report_leaks_locked(struct kmem_cache *s,
				  struct kmem_cache_node *n);

/* ---- slab_common.c: the life of a cache ---- */
/* s->stride_inverse and s->stride_shift from s->size
 * (slab_object_start()). */
void calculate_stride_inverse(struct kmem_cache *s);
unsigned long slab_stat_sum(struct kmem_cache *s, enum slab_stat_item i);
void kmem_cache_shrink_all(void);
#ifdef HOST_TEST
void slab_host_reset(void);
extern enum slab_mode slab_host_default_mode;
#endif

/* ---- slab_rcu.c: kfree_rcu() and the RCU barriers ---- */
void slab_rcu_init(void);
/* kmem_cache_destroy(): everything kfree_rcu() took of s freed (parked
 * objects handed on, rcu_free sheaves flushed, rcu_barrier() if anything
 * of s is in flight); task context, IRQs on. */
void kmem_cache_rcu_barrier(struct kmem_cache *s);
/* ... and after the slabs went: SLAB_TYPESAFE_BY_RCU slabs in flight. */
void kmem_cache_rcu_barrier_slabs(struct kmem_cache *s);
/* kfree_rcu_nolock()'s objects parked on cpu's list right now. */
unsigned long kfree_rcu_deferred(unsigned int cpu);
/*
 * Test only: the one-argument kfree_rcu()'s carrier allocation fails, as
 * if memory had run out, so it takes its synchronize_rcu() fallback
 * (tests/kernel/slab_rcu_test.c).  Off in every other boot.
 */
extern bool kfree_rcu_test_fail_carrier;
#ifdef HOST_TEST
void slab_rcu_host_reset(void);
#endif

/* ---- sheaf.c ---- */
void pcs_init(struct kmem_cache *s);
unsigned int calculate_sheaf_capacity(const struct kmem_cache *s,
				      unsigned int wanted);
void *alloc_from_pcs(struct kmem_cache *s, gfp_t gfp);
bool free_to_pcs(struct kmem_cache *s, void *object);
unsigned int alloc_from_pcs_bulk(struct kmem_cache *s, unsigned int nr,
				 void **p);
unsigned int free_to_pcs_bulk(struct kmem_cache *s, unsigned int nr,
			      void **p);
/* Every CPU's sheaves and the barn back to the slabs (on_each_cpu). */
void flush_all_sheaves(struct kmem_cache *s);
/* kfree_rcu(): object into this CPU's rcu_free sheaf; false: fall back.
 * LOCK_TRY: any context (trylocks only, never allocates). */
bool free_to_rcu_sheaf(struct kmem_cache *s, void *object,
		       enum lock_how how);
/* Every CPU's rcu_free sheaf of s (every cache: s NULL) to call_rcu();
 * task context, IRQs on (on_each_cpu). */
void flush_rcu_sheaves(struct kmem_cache *s);
/* Any context (trylocks only, never allocates); *busy: sheaf lock held. */
void *alloc_from_pcs_nolock(struct kmem_cache *s, bool *busy);
/* The top object of main if it is from node (trylock; *busy if held). */
void *alloc_from_pcs_node(struct kmem_cache *s, int node, bool *busy);
bool free_to_pcs_nolock(struct kmem_cache *s, void *object, bool *busy);

/* ---- cpu_slab.c: SLUB's per-CPU slabs, the third mode ---- */
/* Does this CPU have cmpxchg16b?  Without it a cpu-slab cache is made
 * with no per-CPU layer (SLAB_MODE_NONE), said once on the console. */
bool cpu_slab_supported(void);
/* Set a new cache's per-CPU lines up (its mode decided): 0, or -1 when
 * no page was left for them. */
int cpu_slab_init(struct kmem_cache *s);
/* kmem_cache_destroy(): give the lines' page back (flushed before). */
void cpu_slab_release(struct kmem_cache *s);
/* One object, this CPU's memory node (LOCK_TRY: any context, NULL with
 * *busy set when a lock was held; busy may be NULL); NULL when the node
 * has no memory: the caller tries the ordinary path. */
void *cpu_slab_alloc(struct kmem_cache *s, gfp_t gfp, enum lock_how how,
		     bool *busy, unsigned long caller);
/*
 * The fast paths alone, for kmalloc()/kfree()/kmem_cache_alloc()/
 * kmem_cache_free() and their _nolock twins (any context): an object
 * ready for its caller (shadow open), or NULL; true when the object (the
 * first byte of an object of s, as slab_fast_free_cache() says) went on
 * this CPU's freelist.  Out of line: the host's ASan build must not
 * instrument the fast path's read of a free object's link.
 */
void *cpu_slab_alloc_fastpath(struct kmem_cache *s);
bool cpu_slab_free_fastpath(struct kmem_cache *s, void *object);
/* The free of an object slab_fast_free_cache() found to be s's: the fast
 * path, else the slow one (ordinary context: it may wait for list_lock). */
void cpu_slab_free_checked(struct kmem_cache *s, void *object,
			   unsigned long caller);
/* A free accepted by slab_free_check(); false only with LOCK_TRY, when
 * the list_lock it needed was held (the caller parks the object). */
bool cpu_slab_free(struct kmem_cache *s, void *object, enum lock_how how,
		   unsigned long caller);
/* take_from_slab_locked() of a cpu-slab cache (by cmpxchg16b). */
unsigned int cpu_slab_take_locked(struct kmem_cache *s,
				  struct kmem_cache_node *n, struct page *slab,
				  unsigned int nr, void **p,
				  unsigned long caller);
/* Every CPU's slabs unfrozen, onto the node lists (on_each_cpu). */
void flush_all_cpu_slabs(struct kmem_cache *s);
/* For mm_check.c and slabinfo: objects a CPU holds (racy reads). */
unsigned long cpu_slab_objects(struct kmem_cache *s, unsigned int cpu);

/* ---- slab.c: making slabs (no lock held) ---- */
struct page *allocate_slab(struct kmem_cache *s, gfp_t gfp, int nid);
struct page *allocate_slab_nolock(struct kmem_cache *s, gfp_t gfp, int nid,
				  bool *busy);

/* The test hooks that were here are interleaving points now: mm_point()
 * and mm_point_hook, include/mm_points.h. */

/* ---- kmalloc.c: memory for sheaves, never from a cache with sheaves ---- */
void *kmalloc_nosheaf(size_t size, gfp_t gfp);
void kfree_nosheaf(void *p);
void kmalloc_init(void);
#ifdef HOST_TEST
void kmalloc_host_reset(void);
#endif
/* Is p the first byte of a large kmalloc block (a whole buddy block)? */
bool kmalloc_large_block_start(const void *p);
/* The size kmalloc would really hand out for a request of size. */
size_t kmalloc_size_roundup(size_t size);

#endif /* MM_SLAB_INTERNAL_H */
