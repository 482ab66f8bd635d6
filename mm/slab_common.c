/*
 * slab_common.c - the life of a cache: its geometry, kmem_cache_create(),
 * kmem_cache_shrink() and kmem_cache_destroy(), the slab allocator's boot
 * (kmem_cache_init()), and what it tells about itself (slabinfo, the
 * statistics).  The objects' own comings and goings are slab.c's.
 *
 * GEOMETRY (setup_cache()).  From the object size, alignment and flags: where
 * the free pointer and the debug metadata go and how far apart objects are
 * (calculate_sizes(); the object layout is drawn in slab_internal.h), the
 * slab order (the smallest that holds SLAB_MIN_OBJECTS objects,
 * calculate_order()), the stride's inverse for the free fast paths
 * (calculate_stride_inverse()), how many empty slabs a node keeps
 * (min_partial), the free-pointer hardening value (cache_random()) and the
 * sheaf capacity (sheaf.c; none for a debug cache).  `slub_debug=` adds
 * its debug flags to the caches it names (slab_debug.c says what each
 * checks).
 *
 * THE CACHE LIST.  slab_caches holds every cache from its creation to its
 * destruction, the cache of caches first.  slab_caches_lock (spinlock,
 * IRQs off) guards it: taken alone to add or remove a cache, and around
 * each node's list_lock by slabinfo_show(), so it comes before list_lock
 * in the lock order at the top of mm/slab.c.  kmem_cache_shrink_all() and
 * slab_set_numa_mode() walk the list without it (on_each_cpu() needs IRQs
 * on): caches are never created or destroyed meanwhile.
 *
 * BOOT.  struct kmem_cache objects come from a cache too, whose own
 * struct is static (kmem_cache_boot) and sized for NR_CPUS; it has no
 * sheaves, so making a cache never needs a sheaf.  slab_up says
 * kmem_cache_create() works; slab_available, stored with release once the
 * kmalloc caches exist, is what slab_is_available() reads with acquire,
 * from any context.
 *
 * DESTRUCTION.  kmem_cache_destroy() first brings every object home that
 * is in flight: kfree_rcu()'s (slab_rcu.c), the deferred lists'
 * (slab_nolock.c) and the sheaves' (sheaf.c); then any object still
 * allocated is a leak, named and counted, and the cache is kept.
 * Otherwise only empty slabs are left: they go back to the buddy, the
 * SLAB_TYPESAFE_BY_RCU ones after their grace period, and then the cache
 * leaves the list.  kmem_cache_shrink() makes the same first steps and
 * frees the empty slabs.
 *
 * STATISTICS.  s->stat[] counts events with relaxed atomic adds; the two
 * of the inline fast paths live per CPU in cpu_sheaves[] (alloc_pcs,
 * free_pcs), and slab_stat_sum() adds them up.
 */
#include <kernel.h>
#include <kunit.h>
#include <printk.h>
#include <prandom.h>
#include <string.h>
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
		n->nr_partial = n->nr_slabs = n->nr_frozen = 0;
	}
	s->mode = args->mode;
#ifdef HOST_TEST
	if (s->mode == SLAB_MODE_AUTO && slab_host_default_mode &&
	    args->sheaf_capacity == SHEAF_CAPACITY_DEFAULT &&
	    !(flags & SLAB_TEST_SHEAF_CAPACITY))
		s->mode = slab_host_default_mode;
#endif
	if (s->mode == SLAB_MODE_AUTO)
		s->mode = args->sheaf_capacity ? SLAB_MODE_SHEAVES :
						 SLAB_MODE_NONE;
	if (is_debug_cache(s))   /* debug checks need every operation */
		s->mode = SLAB_MODE_NONE;
	if (s->mode == SLAB_MODE_CPU_SLAB && !cpu_slab_supported()) {
		pr_warn("slab: %s: this CPU has no cmpxchg16b: no per-CPU layer (mode none)\n",
			name);
		s->mode = SLAB_MODE_NONE;
	}
	s->sheaf_capacity = s->mode != SLAB_MODE_SHEAVES ? 0 :
		calculate_sheaf_capacity(s, args->sheaf_capacity ?
					    args->sheaf_capacity :
					    SHEAF_CAPACITY_DEFAULT);
	pcs_init(s);
	s->cpu_slab = NULL;
	if (s->mode == SLAB_MODE_CPU_SLAB && cpu_slab_init(s))
		return -ENOMEM;
	return 0;
}

const char *const slab_mode_names[NR_SLAB_MODES] = {
	[SLAB_MODE_AUTO] = "auto",
	[SLAB_MODE_SHEAVES] = "sheaf",
	[SLAB_MODE_CPU_SLAB] = "cpuslab",
	[SLAB_MODE_NONE] = "none",
};

enum slab_mode kmem_cache_mode(const struct kmem_cache *s)
{
	return s->mode;
}

/* Every CPU's sheaves, or its frozen slabs, back to the node. */
static void flush_cpu_caches(struct kmem_cache *s)
{
	flush_all_sheaves(s);
	flush_all_cpu_slabs(s);
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
	int err;

	if (WARN_ON(!slab_up))
		return NULL;
	s = kmem_cache_alloc(&kmem_cache_boot, GFP_KERNEL | __GFP_ZERO);
	if (!s)
		return NULL;
	err = setup_cache(s, name, size, args ? args : &none, flags);
	if (err) {
		if (err == -ENOMEM)
			pr_err("kmem_cache_create(%s): no memory for its per-CPU slabs\n",
			       name);
		else
			pr_err("kmem_cache_create(%s): size %u cannot be a slab cache\n",
			       name, size);
		kmem_cache_free(&kmem_cache_boot, s);
		return NULL;
	}
	add_to_cache_list(s);
	slab_trace_new_cache(s);
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

/* Every empty slab of every node of s back to the page allocator. */
static void free_empty_slabs(struct kmem_cache *s)
{
	LIST_HEAD(discard);
	unsigned long flags;
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = get_node(s, nid);

		spin_lock_irqsave(&n->list_lock, flags);
		collect_empty_slabs_locked(n, &discard);
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
	free_slab_list(s, &discard, LOCK_SPIN);
}

void kmem_cache_shrink(struct kmem_cache *s)
{
	slab_deferred_flush_all();   /* objects kfree_nolock() parked */
	flush_cpu_caches(s);
	free_empty_slabs(s);
}

int kmem_cache_destroy(struct kmem_cache *s)
{
	unsigned long flags, leaks = 0;
	int nid;

	if (!s)
		return 0;
	/* What kfree_rcu() took is not a leak either: its grace period ends
	 * and the objects come back (into the barn) before we look. */
	kmem_cache_rcu_barrier(s);
	slab_deferred_flush_all();   /* they are not leaks: free them first */
	flush_cpu_caches(s);
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
	free_empty_slabs(s);
	/* SLAB_TYPESAFE_BY_RCU slabs still wait for their grace period, and
	 * their callbacks name s. */
	kmem_cache_rcu_barrier_slabs(s);

	spin_lock_irqsave(&slab_caches_lock, flags);
	list_del(&s->list);
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	cpu_slab_release(s);
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
		flush_cpu_caches(s);
	list_for_each_entry(s, &slab_caches, list)
		kmem_cache_shrink(s);
}

#ifdef HOST_TEST
/*
 * Host tests ($SLAB_MODE, tests/host/test_mm_slab.c): the mode of every
 * cache that names none and takes the default sheaf capacity (what
 * kmem_cache_create() asks), so the suites of generic slab behaviour run
 * over each mode.  Caches that chose a mode or a capacity keep it.
 * SLAB_MODE_AUTO (the default): no change.
 */
enum slab_mode slab_host_default_mode;

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
	pr_info("slab: struct kmem_cache %u bytes (%u of fields, then a %u-byte line of sheaves for each of %u possible CPU%s), kmalloc 8 B..%u KiB, slub_debug: %s\n",
		kmem_cache_boot.size,
		(unsigned int)offsetof(struct kmem_cache, cpu_sheaves),
		(unsigned int)sizeof(struct slub_percpu_sheaves),
		nr_cpu_possible, nr_cpu_possible == 1 ? "" : "s",
		KMALLOC_MAX_CACHE_SIZE >> 10,
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
		else if (i == ALLOC_FASTPATH && s->cpu_slab)
			v += READ_ONCE(s->cpu_slab[cpu].alloc_fastpath);
		else if (i == FREE_FASTPATH && s->cpu_slab)
			v += READ_ONCE(s->cpu_slab[cpu].free_fastpath);
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
	pr_info("slabstat: the statistics of each cache that made a slab: alloc pcs/slow = ALLOC_PCS (sheaf hits)/ALLOC_SLOWPATH, free pcs/slow = FREE_PCS/FREE_SLOWPATH, refill flush swap = SHEAF_REFILL SHEAF_FLUSH SHEAF_SWAP, barn get = BARN_GET/BARN_GET_FAIL, put = BARN_PUT/BARN_PUT_FAIL, slabs +ALLOC_SLAB -FREE_SLAB\n");
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
		if (cache_has_cpu_slab(s))
			pr_info("slabstat: %-16s cpu slab: alloc fast %lu refill %lu, from partial %lu (cpu %lu, node %lu), "
				"free fast %lu frozen %lu, unfrozen full %lu partial %lu empty %lu, cmpxchg16b retries %lu cpu %lu slab\n",
				s->name, slab_stat_sum(s, ALLOC_FASTPATH),
				slab_stat_sum(s, ALLOC_REFILL),
				slab_stat_sum(s, ALLOC_FROM_PARTIAL),
				slab_stat_sum(s, CPU_PARTIAL_ALLOC),
				slab_stat_sum(s, CPU_PARTIAL_NODE),
				slab_stat_sum(s, FREE_FASTPATH),
				slab_stat_sum(s, FREE_FROZEN),
				slab_stat_sum(s, DEACTIVATE_FULL),
				slab_stat_sum(s, DEACTIVATE_PARTIAL),
				slab_stat_sum(s, DEACTIVATE_EMPTY),
				slab_stat_sum(s, CMPXCHG_DOUBLE_CPU_FAIL),
				slab_stat_sum(s, CMPXCHG_DOUBLE_FAIL));
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
}
