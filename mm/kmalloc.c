/*
 * kmalloc.c - general-purpose allocation by size: kmalloc() and friends.
 *
 * Requests up to KMALLOC_MAX_CACHE_SIZE (8 KiB) are served by one of the
 * size classes below, each an ordinary cache with sheaves; the 96 and 192
 * classes cut the waste of sizes just above 64 and 128.  Larger requests
 * go straight to the buddy as one block, marked PG_large_kmalloc (its
 * order is the one the page allocator records, page_alloc_order()), so
 * kfree() tells the two apart from the page alone:
 *
 *   PG_large_kmalloc   -> __free_pages(page, order)
 *   PG_slab            -> the slab's cache: kmem_cache_free()
 *   anything else      -> reported as an invalid free
 *
 * Alignment: every object is 8-byte aligned, and a class whose size is a
 * power of two aligns objects to that size (up to a page), as in Linux;
 * 96-byte objects are 32-aligned and 192-byte ones 64-aligned.
 *
 * Sheaves get their arrays from kmalloc_nosheaf(), which uses these caches
 * but goes straight to their slabs: making a sheaf never needs a sheaf.
 *
 * kmalloc_nolock()/kfree_nolock() are the any-context pair (NMI included;
 * docs/any-context.md).  What may be passed where:
 *   - kmalloc_nolock(0) is ZERO_SIZE_PTR; above KMALLOC_MAX_CACHE_SIZE it
 *     is NULL (the buddy path would need more than one try), as is a node
 *     that is not online; both counted as obj_alloc_nomem.  An online
 *     node is preferred, not required (include/slab.h).
 *   - its objects come from the ordinary kmalloc caches, so kfree(),
 *     kfree_nolock() and ksize() all take them;
 *   - kfree_nolock() takes anything kfree() takes: kmalloc() and
 *     kmem_cache_alloc() objects (a slab object's cache is found from its
 *     page), large kmalloc blocks (given to free_pages_nolock(), which
 *     never loses one), NULL and ZERO_SIZE_PTR (nothing);
 *   - kfree() or kmem_cache_free() in NMI context take the kfree_nolock()
 *     path by themselves; kmalloc()/kmem_cache_alloc() in NMI context are a
 *     bug: they warn once and return NULL.
 *
 * Locking: none of its own; see the lock order in mm/slab.c.
 */
#include <kernel.h>
#include <nolock_stats.h>
#include <string.h>
#include "slab_internal.h"

static const unsigned int kmalloc_sizes[] = {
	8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192,
};
static const char *const kmalloc_names[] = {
	"kmalloc-8", "kmalloc-16", "kmalloc-32", "kmalloc-64", "kmalloc-96",
	"kmalloc-128", "kmalloc-192", "kmalloc-256", "kmalloc-512",
	"kmalloc-1k", "kmalloc-2k", "kmalloc-4k", "kmalloc-8k",
};
BUILD_BUG_ON(ARRAY_SIZE(kmalloc_sizes) != NR_KMALLOC_CACHES);
BUILD_BUG_ON(ARRAY_SIZE(kmalloc_names) != NR_KMALLOC_CACHES);

/* Read by kmalloc() inline for sizes known at compile time (slab.h). */
struct kmem_cache *kmalloc_caches[NR_KMALLOC_CACHES];
/* slab_mode= (kernel/main.c): how the classes keep objects per CPU. */
enum slab_mode slab_kmalloc_mode;

/*
 * Size to class in constant time.  Up to 192 bytes the classes are not
 * powers of two (96, 192), so a table indexed by (size - 1) / 8 holds the
 * answer, filled at boot from kmalloc_sizes[] by the plain search below.
 * Above 192 every class is a power of two from 256 (class 7) up, so the
 * class is found from the highest set bit of size - 1.
 */
#define KMALLOC_SMALL_MAX   192
#define KMALLOC_SMALL_STEP  8
#define KMALLOC_POW2_BASE_INDEX 7   /* kmalloc-256 */
#define KMALLOC_POW2_BASE_SHIFT 8   /* 256 == 1 << 8 */

static u8 kmalloc_small_index[KMALLOC_SMALL_MAX / KMALLOC_SMALL_STEP];

BUILD_BUG_ON(KMALLOC_SMALL_MAX / KMALLOC_SMALL_STEP > 24);

static unsigned int kmalloc_index_search(size_t size)
{
	unsigned int i;

	for (i = 0; i < NR_KMALLOC_CACHES; i++)
		if (size <= kmalloc_sizes[i])
			return i;
	return NR_KMALLOC_CACHES;  /* not reached for valid sizes */
}

/*
 * kmalloc()'s fast path skips the index: one flat table, every 8 bytes of
 * size up to KMALLOC_MAX_CACHE_SIZE, straight to the class's cache (8 KiB
 * of pointers; every class is a multiple of 8, so (size - 1) / 8 never
 * straddles two).  Filled by kmalloc_init() from kmalloc_index().
 */
static struct kmem_cache *
kmalloc_cache_by_size[KMALLOC_MAX_CACHE_SIZE / KMALLOC_SMALL_STEP];

/* The smallest class that holds size (1 <= size <= 8 KiB). */
static __always_inline unsigned int kmalloc_index(size_t size)
{
	if (size <= KMALLOC_SMALL_MAX)
		return kmalloc_small_index[(size - 1) / KMALLOC_SMALL_STEP];
	/* 63 - clz(size - 1) is floor(log2(size - 1)); 193..256 -> 7. */
	return (unsigned int)(63 - __builtin_clzl(size - 1)) -
	       KMALLOC_POW2_BASE_SHIFT + 1 + KMALLOC_POW2_BASE_INDEX;
}

/*
 * The order of the smallest buddy block that holds size, or MAX_ORDER + 1
 * when none does.  The search stops there: above 2^63 bytes no shift of a
 * page holds the size, and a shift by 64 or more is undefined.
 */
static unsigned int get_order(size_t size)
{
	unsigned int order = 0;

	while (order <= MAX_ORDER && (PAGE_SIZE << order) < size)
		order++;
	return order;
}

/* What kmalloc(size) would hand out; size itself when nothing can. */
size_t kmalloc_size_roundup(size_t size)
{
	unsigned int order;

	if (size <= KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_sizes[kmalloc_index(size ? size : 1)];
	order = get_order(size);
	return order > MAX_ORDER ? size : PAGE_SIZE << order;
}

struct kmem_cache *kmalloc_slab(size_t size)
{
	if (!size || size > KMALLOC_MAX_CACHE_SIZE)
		return NULL;
	return kmalloc_caches[kmalloc_index(size)];
}

void kmalloc_init(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kmalloc_small_index); i++)
		kmalloc_small_index[i] =
			(u8)kmalloc_index_search((i + 1) * KMALLOC_SMALL_STEP);
	/* The three ways must agree on every size (a cheap boot-time
	 * proof): the search, the run-time lookup and the compile-time
	 * chain that kmalloc() uses for constant sizes (include/slab.h). */
	for (i = 1; i <= KMALLOC_MAX_CACHE_SIZE; i++) {
		BUG_ON(kmalloc_index(i) != kmalloc_index_search(i));
		BUG_ON(kmalloc_index_const(i) != kmalloc_index_search(i));
	}

	for (i = 0; i < NR_KMALLOC_CACHES; i++) {
		unsigned int size = kmalloc_sizes[i];
		unsigned int align = size & -size;  /* lowest set bit */

		struct kmem_cache_args args = {
			.align = min(align, (unsigned int)PAGE_SIZE),
			.sheaf_capacity = SHEAF_CAPACITY_DEFAULT,
			.mode = slab_kmalloc_mode,
		};

		kmalloc_caches[i] = kmem_cache_create_args(kmalloc_names[i],
							   size, &args,
							   SLAB_KMALLOC);
		if (!kmalloc_caches[i])
			panic("slab: cannot create %s", kmalloc_names[i]);
	}
	/* Published last, each entry once its cache is whole: the fast
	 * path of kmalloc_nolock() may read them from an NMI meanwhile and
	 * takes NULL for "not yet". */
	for (i = 0; i < ARRAY_SIZE(kmalloc_cache_by_size); i++)
		__atomic_store_n(&kmalloc_cache_by_size[i],
				 kmalloc_caches[kmalloc_index(
					 (i + 1) * KMALLOC_SMALL_STEP)],
				 __ATOMIC_RELEASE);
}

#ifdef HOST_TEST
/* Host tests, with slab_host_reset(): the caches are about to go. */
void kmalloc_host_reset(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(kmalloc_cache_by_size); i++)
		__atomic_store_n(&kmalloc_cache_by_size[i], NULL,
				 __ATOMIC_RELEASE);
}
#endif

/* ---- large allocations: whole buddy blocks ---- */

static void *kmalloc_large(size_t size, gfp_t gfp, int node)
{
	unsigned int order = get_order(size);
	struct page *page;
	void *p;

	if (order > MAX_ORDER)
		return NULL;
	/* The strict mode's "never remote" holds for large blocks too. */
	if (slab_numa_mode == SLAB_NUMA_STRICT)
		gfp |= __GFP_THISNODE;
	page = alloc_pages_node(node, gfp & ~__GFP_ZERO, order);
	if (!page)
		return NULL;
	page->flags |= PG_large_kmalloc;
	p = page_address(page);
	if (gfp & __GFP_ZERO)
		memset(p, 0, PAGE_SIZE << order);
	kasan_poison((char *)p + size, (PAGE_SIZE << order) - size);
	return p;
}

/* what: the call that frees, for the report; LOCK_TRY: any context. */
static void kfree_large(struct page *page, const void *p, const char *what,
			enum lock_how how, unsigned long caller)
{
	unsigned int order = page_alloc_order(page);

	if (p != page_address(page)) {
		slab_bug(NULL, p, caller,
			 "%s of a pointer inside a large kmalloc block", what);
		return;
	}
	page->flags &= ~PG_large_kmalloc;
	if (how == LOCK_SPIN)
		__free_pages(page, order);
	else
		free_pages_nolock(page, order);
}

/* The page kfree() looks at, or NULL if p is not in the memmap. */
static struct page *kmalloc_page(const void *p)
{
	unsigned long pfn = virt_to_phys(p) >> PAGE_SHIFT;

	return pfn_valid(pfn) ? pfn_to_page(pfn) : NULL;
}

bool kmalloc_large_block_start(const void *p)
{
	struct page *page = kmalloc_page(p);

	return page && (page->flags & PG_large_kmalloc) &&
	       p == page_address(page);
}

/* ---- the API ---- */

/* A kmalloc object of class s from its slabs (the full path), keeping
 * the size asked where a debug cache keeps it. */
static __noinline void *kmalloc_cache_slow(struct kmem_cache *s, gfp_t gfp,
					   size_t size, int node,
					   unsigned long caller)
{
	void *object = NULL;

	/* A cpu-slab class: its fast path first (the sheaf pop inlined in
	 * kmalloc() found the bootstrap sheaf, empty). */
	if (cache_has_cpu_slab(s) && node == NUMA_NO_NODE &&
	    !(gfp & __GFP_ZERO) && !in_nmi())
		object = cpu_slab_alloc_fastpath(s);
	if (!object)
		object = slab_alloc_node_caller(s, gfp, node, caller);
	if (object) {
		slab_kmalloc_set_size(s, object, size);
		kasan_kmalloc(s, object, size);
	}
	return object;
}

static void *kmalloc_slow(size_t size, gfp_t gfp, int node,
			  unsigned long caller)
{
	if (!size)
		return ZERO_SIZE_PTR;
	if (size > KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_large(size, gfp, node);
	return kmalloc_cache_slow(kmalloc_caches[kmalloc_index(size)], gfp,
				  size, node, caller);
}

/*
 * kmalloc() (include/slab.h) and kfree() try the CPU's sheaf inline first
 * (the fast path in slab_internal.h) and fall back to the full paths,
 * which handle every other case: zeroing, large sizes, NMI context,
 * debugging, empty or full sheaves.  __kmalloc() takes any size;
 * __kmalloc_cache() is what kmalloc() calls when the compiler knows the
 * size, with the class's cache already chosen.
 */
void *kmalloc_node(size_t size, gfp_t gfp, int node)
{
	return kmalloc_slow(size, gfp, node, _RET_IP_);
}

void *__kmalloc(size_t size, gfp_t gfp)
{
	if (likely(size - 1 < KMALLOC_MAX_CACHE_SIZE &&
		   !(gfp & __GFP_ZERO))) {
		struct kmem_cache *s =
			kmalloc_cache_by_size[(size - 1) / KMALLOC_SMALL_STEP];
		void *object = pcs_alloc_fast(s);

		if (likely(object)) {
			kasan_kmalloc(s, object, size);
			return object;
		}
	}
	return kmalloc_slow(size, gfp, NUMA_NO_NODE, _RET_IP_);
}

void *__kmalloc_cache(struct kmem_cache *s, gfp_t gfp, size_t size)
{
	if (likely(!(gfp & __GFP_ZERO))) {
		void *object = pcs_alloc_fast(s);

		if (likely(object)) {
			kasan_kmalloc(s, object, size);
			return object;
		}
	}
	return kmalloc_cache_slow(s, gfp, size, NUMA_NO_NODE, _RET_IP_);
}

void *kzalloc(size_t size, gfp_t gfp)
{
	return kmalloc_slow(size, gfp | __GFP_ZERO, NUMA_NO_NODE, _RET_IP_);
}

void *kcalloc(size_t n, size_t size, gfp_t gfp)
{
	size_t bytes;

	if (__builtin_mul_overflow(n, size, &bytes))
		return NULL;
	return kmalloc_slow(bytes, gfp | __GFP_ZERO, NUMA_NO_NODE, _RET_IP_);
}

/*
 * kfree() and kfree_nolock() past their inline fast paths (and krealloc()):
 * what p is, from its page alone, and its free by the path the caller's
 * context allows (LOCK_TRY: kfree_nolock(), any context).  NULL and
 * ZERO_SIZE_PTR are nothing; a pointer that is neither a large block's
 * start nor in a slab is reported.
 */
static void kfree_dispatch(const void *p, enum lock_how how,
			   unsigned long caller)
{
	const char *what = how == LOCK_SPIN ? "kfree" : "kfree_nolock";
	struct page *page;

	if (ZERO_OR_NULL_PTR(p))
		return;
	page = kmalloc_page(p);
	if (page && (page->flags & PG_large_kmalloc)) {
		kfree_large(page, p, what, how, caller);
		return;
	}
	if (page && (page->flags & PG_slab)) {
		struct kmem_cache *s = virt_to_slab(p)->slab_cache;

		if (how == LOCK_SPIN)
			slab_free(s, (void *)p, caller);
		else
			slab_free_nolock(s, (void *)p, caller);
		return;
	}
	slab_bug(NULL, p, caller, "%s of a pointer kmalloc never returned",
		 what);
}

/* Past kfree()'s and kfree_nolock()'s sheaf push: a cpu-slab class's
 * fast path, then the rest.  The cache is looked up again rather than
 * passed, so the inline sheaf paths keep their instructions. */
static __noinline void kfree_slow(const void *p, enum lock_how how,
				  unsigned long caller)
{
	struct kmem_cache *s = slab_fast_free_cache(p);

	if (s && cache_has_cpu_slab(s)) {
		if (how == LOCK_SPIN && !in_nmi()) {
			cpu_slab_free_checked(s, (void *)p, caller);
			return;
		}
		if (cpu_slab_free_fastpath(s, (void *)p))
			return;
	}
	kfree_dispatch(p, how, caller);
}

void kfree(const void *p)
{
	struct kmem_cache *s = slab_fast_free_cache(p);

	if (likely(s && pcs_free_fast(s, (void *)p)))
		return;
	kfree_slow(p, LOCK_SPIN, _RET_IP_);
}

/*
 * Does p's owner still own it?  ksize() and krealloc() hand over or copy
 * bytes of p, so, as Linux's do (kasan_check_byte()), they first ask the
 * shadow (include/kasan.h): every allocation owns its first byte, and a
 * freed object or block is poisoned whole.  A freed p is reported and
 * left as it is; unpoisoned, it would sit in a sheaf addressable, every
 * later read of it invisible, and krealloc() would hand it out a second
 * time.  The kernel keeps no shadow: always true there.
 */
static bool kmalloc_still_owned(const void *p, struct page *page,
				const char *what, unsigned long caller)
{
	struct kmem_cache *s = NULL;

	if (likely(kasan_byte_addressable(p)))
		return true;
	if (page->flags & PG_slab)
		s = virt_to_slab(p)->slab_cache;
	slab_bug(s, p, caller, "use after free: %s of freed memory", what);
	return false;
}

size_t ksize(const void *p)
{
	struct page *page;

	if (ZERO_OR_NULL_PTR(p))
		return 0;
	page = kmalloc_page(p);
	if (!page || !kmalloc_still_owned(p, page, "ksize()", _RET_IP_))
		return 0;
	if (page->flags & PG_large_kmalloc) {
		kasan_unpoison(p, PAGE_SIZE << page_alloc_order(page));
		return PAGE_SIZE << page_alloc_order(page);
	}
	if (page->flags & PG_slab) {
		struct kmem_cache *s = virt_to_slab(p)->slab_cache;

		/* As in Linux: whoever asks may use all of it, so the kmalloc
		 * red zone of a debug cache now starts at the class size. */
		slab_kmalloc_set_size(s, (void *)p, s->object_size);
		kasan_slab_alloc(s, (void *)p);
		return s->object_size;
	}
	return 0;
}

/*
 * The bytes kmalloc() really gave p (its class, or the large block), like
 * ksize() but without handing them over: a debug cache keeps its kmalloc
 * red zone.  *sp is p's cache, NULL for a large block; 0 if p is neither.
 */
static size_t kmalloc_class_size(const void *p, struct kmem_cache **sp)
{
	struct page *page = kmalloc_page(p);

	*sp = NULL;
	if (!page)
		return 0;
	if (page->flags & PG_large_kmalloc)
		return PAGE_SIZE << page_alloc_order(page);
	if (page->flags & PG_slab) {
		*sp = virt_to_slab(p)->slab_cache;
		return (*sp)->object_size;
	}
	return 0;
}

/*
 * krealloc(__GFP_ZERO) in place: the bytes between the data kept and the
 * new size must read zero.  What the caller's data may occupy is the size
 * asked for where a debug cache keeps it, else the whole class; as in
 * Linux, that works when every call on the object passed __GFP_ZERO
 * (a shrink zeroes the tail, so a later grow finds zeroes).
 */
static void krealloc_zero_in_place(void *p, size_t kept, size_t new_size,
				   size_t class_size)
{
	if (kept < new_size)
		memset((char *)p + kept, 0, new_size - kept);
	else
		memset((char *)p + new_size, 0, class_size - new_size);
}

void *krealloc(const void *p, size_t new_size, gfp_t gfp)
{
	struct kmem_cache *s;
	size_t class_size, kept;
	struct page *page;
	void *n;

	if (!new_size) {
		kfree_dispatch(p, LOCK_SPIN, _RET_IP_);
		return ZERO_SIZE_PTR;
	}
	if (ZERO_OR_NULL_PTR(p))
		return kmalloc_slow(new_size, gfp, NUMA_NO_NODE, _RET_IP_);
	page = kmalloc_page(p);
	if (page && !kmalloc_still_owned(p, page, "krealloc()", _RET_IP_))
		return NULL;
	class_size = kmalloc_class_size(p, &s);
	/* Only the caller's bytes: never a debug cache's red zone. */
	kept = s ? slab_kmalloc_orig_size(s, (void *)p) : class_size;
	if (new_size <= class_size) {
		/* The caller owns new_size bytes from here on, no more. */
		kasan_unpoison(p, class_size);
		if (gfp & __GFP_ZERO)
			krealloc_zero_in_place((void *)p, kept, new_size,
					       class_size);
		/* It fits where it is; a debug cache moves its red zone. */
		if (s)
			slab_kmalloc_set_size(s, (void *)p, new_size);
		kasan_poison((char *)p + new_size, class_size - new_size);
		return (void *)p;
	}
	n = kmalloc_slow(new_size, gfp, NUMA_NO_NODE, _RET_IP_);
	if (!n)
		return NULL;       /* p is left as it was */
	/* Without a debug cache the size once asked is not kept: all of
	 * the class is copied (as Linux does), though the caller may own
	 * less of it; p is freed next. */
	kasan_unpoison(p, kept);
	memcpy(n, p, kept);
	kfree_dispatch(p, LOCK_SPIN, _RET_IP_);
	return n;
}

/* ---- any context: kmalloc_nolock()/kfree_nolock() ---- */

/* Does the code this CPU interrupted hold s's per-CPU lock: its sheaf
 * lock, or (a cpu-slab cache) its line's lock (cpu_slab.c)? */
static bool sheaf_lock_held_here(struct kmem_cache *s)
{
	if (cache_has_cpu_slab(s)) {
		struct kmem_cache_cpu *c = this_cpu_line(s->cpu_slab);

		return local_lock_is_locked(&c->lock);
	}
	return local_lock_is_locked(&this_cpu_sheaves(s)->lock);
}

/*
 * Everything off kmalloc_nolock()'s fast path: size 0, large sizes, a node
 * named (slab_alloc_nolock() follows slab_numa_mode's rules), before the slab allocator is up, __GFP_ZERO, an empty or
 * busy sheaf.  Out of line, so that the fast path pays for no saved
 * registers and reaches it by a tail call.  It has no restartable
 * sequence of its own: slab_alloc_nolock() tries the sheaf under its
 * lock (alloc_from_pcs_nolock()), which also serves __GFP_ZERO.
 */
static __noinline void *kmalloc_nolock_slow(size_t size, gfp_t gfp, int node,
					  unsigned long caller)
{
	unsigned int idx;
	bool busy = false;
	void *object;

	if (!size)
		return ZERO_SIZE_PTR;
	if (size > KMALLOC_MAX_CACHE_SIZE || !slab_is_available() ||
	    (node != NUMA_NO_NODE &&
	     (node < 0 || node >= MAX_NUMNODES || !node_online(node)))) {
		nolock_stat_inc(obj_alloc_nomem);
		return NULL;
	}
	idx = kmalloc_index(size);
	/* The sheaf (tried under its lock), then the slabs; it zeroes. */
	object = slab_alloc_nolock(kmalloc_caches[idx], gfp, node, &busy,
				   caller);
	/*
	 * The interrupted code holds this class's sheaf lock (or its
	 * cpu-slab lock): it is most likely inside this one cache, so the
	 * next class up probably is free.  Once only: a bigger object is a
	 * fair price, a loop is not.
	 */
	if (!object && sheaf_lock_held_here(kmalloc_caches[idx]) &&
	    idx + 1 < NR_KMALLOC_CACHES) {
		bool busy_up;

		/* busy stays: this class's sheaf was held whatever the
		 * next class answers. */
		object = slab_alloc_nolock(kmalloc_caches[idx + 1], gfp, node,
					   &busy_up, caller);
		busy = busy || busy_up;
	}
	if (object) {
		struct kmem_cache *s = virt_to_slab(object)->slab_cache;

		/* As kmalloc(): a debug cache red-zones the rest of the class
		 * (plain stores into the object: fine in any context). */
		slab_kmalloc_set_size(s, object, size);
		kasan_kmalloc(s, object, size);
		return object;
	}
	if (busy)
		nolock_stat_inc(obj_alloc_busy);
	else
		nolock_stat_inc(obj_alloc_nomem);
	return NULL;
}

/*
 * The fast path is kmalloc()'s without the NMI test: one unsigned compare
 * for the size (0 wraps above the limit), one for the node (NUMA_NO_NODE
 * only: a named node has rules, slab_alloc_nolock()), the flat size table,
 * and the sheaf pop,
 * which is safe in any context.  The table's entry is NULL until
 * kmalloc_init() has made every class (an NMI may come in during boot):
 * that goes slow too, where slab_is_available() answers.
 */
void *kmalloc_nolock(size_t size, gfp_t gfp, int node)
{
	if (likely(size - 1 < KMALLOC_MAX_CACHE_SIZE &&
		   node == NUMA_NO_NODE &&
		   !(gfp & __GFP_ZERO))) {
		struct kmem_cache *s = READ_ONCE(
			kmalloc_cache_by_size[(size - 1) / KMALLOC_SMALL_STEP]);

		if (likely(s)) {
			void *object = __pcs_alloc_fast(s);

			if (likely(object)) {
				kasan_kmalloc(s, object, size);
				return object;
			}
		}
	}
	return kmalloc_nolock_slow(size, gfp, node, _RET_IP_);
}

void kfree_nolock(void *object)
{
	struct kmem_cache *s = slab_fast_free_cache(object);

	if (likely(s && pcs_free_fast(s, object)))
		return;
	kfree_slow(object, LOCK_TRY, _RET_IP_);
}

/* ---- memory for sheaves: never through a sheaf ---- */

void *kmalloc_nosheaf(size_t size, gfp_t gfp)
{
	struct kmem_cache *s;
	void *p;

	if (size > KMALLOC_MAX_CACHE_SIZE)
		return kmalloc_large(size, gfp, NUMA_NO_NODE);
	s = kmalloc_caches[kmalloc_index(size)];
	if (__slab_alloc_bulk(s, gfp, NUMA_NO_NODE, 1, &p, _RET_IP_) != 1)
		return NULL;
	stat(s, ALLOC_SLOWPATH);
	kasan_slab_alloc(s, p);
	kasan_kmalloc(s, p, size);
	return p;
}

void kfree_nosheaf(void *p)
{
	struct page *page = kmalloc_page(p);
	struct kmem_cache *s;

	if (page && (page->flags & PG_large_kmalloc)) {
		kfree_large(page, p, "kfree", LOCK_SPIN, _RET_IP_);
		return;
	}
	/* Its cache from its slab: ksize() would hand the bytes over (and
	 * of a sheaf freed twice answer 0, no class at all). */
	s = page && (page->flags & PG_slab) ? virt_to_slab(p)->slab_cache
					    : NULL;
	if (!slab_free_check(s, p, _RET_IP_))
		return;
	kasan_slab_free(s, p);
	__slab_free_bulk(s, 1, &p, _RET_IP_);
	stat(s, FREE_SLOWPATH);
}
