/*
 * test_mm_kasan.c - the arena's shadow follows ownership (include/kasan.h).
 *
 * AddressSanitizer sees the host arena as one allocation; the allocator's
 * hooks poison what no caller owns so that a test (or the allocator) that
 * reads a freed object, past the size it asked for, or into a slab's
 * metadata is reported.  These cases check the shadow itself after each
 * kind of allocation and free, byte by byte at the edges, with ASan's
 * __asan_address_is_poisoned(): the bytes handed out are addressable, the
 * first byte past them is not, and nothing of a freed object or page is.
 * Deliberately touching poisoned bytes would abort the program, so the
 * cases only ask the shadow.
 *
 * Runs in the slab tests' environment (test_mm_slab.c: 32 MiB of arena,
 * four pretend CPUs).  Without MM_KASAN (no ASan) the suite skips.
 */
#include <kasan.h>
#include <kunit.h>
#include <mm.h>
#include <mmzone.h>
#include <irqflags.h>
#include <smp.h>
#include <spinlock.h>
#include <slab.h>
#include <string.h>
#include "../../mm/slab_internal.h"

int slab_test_env_init(void);
void slab_test_env_exit(void);

#define KMALLOC_ASK     100     /* from the 128-byte class */
#define KMALLOC_CLASS   128
#define LARGE_ASK       5000    /* a large kmalloc: two pages */
#define CACHE_OBJECT    50      /* a private cache's object size */
#define PAGE_ORDER      2

static int kasan_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void kasan_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static void need_kasan(struct kunit *test)
{
	if (!KASAN_ENABLED)
		kunit_skip(test, "built without MM_KASAN (no AddressSanitizer)");
}

/* Bytes [0, owned) of p addressable, and byte `owned` not. */
#define EXPECT_OWNED(test, p, owned) do {				\
	KUNIT_EXPECT_TRUE(test, kasan_byte_addressable(p));		\
	KUNIT_EXPECT_TRUE(test,						\
		kasan_byte_addressable((const char *)(p) + (owned) - 1)); \
	KUNIT_EXPECT_FALSE(test,					\
		kasan_byte_addressable((const char *)(p) + (owned)));	\
} while (0)

/* Bytes [0, n) of p addressable (what follows may be someone else's). */
#define EXPECT_ADDRESSABLE(test, p, n) do {				\
	KUNIT_EXPECT_TRUE(test, kasan_byte_addressable(p));		\
	KUNIT_EXPECT_TRUE(test,						\
		kasan_byte_addressable((const char *)(p) + (n) - 1));	\
} while (0)

#define EXPECT_POISONED(test, p)					\
	KUNIT_EXPECT_FALSE(test, kasan_byte_addressable(p))

/* kmalloc(): the size asked, cold (slow path) and warm (the sheaf). */
static void kmalloc_owns_what_it_asked(struct kunit *test)
{
	char *p, *q;

	need_kasan(test);
	kmem_cache_shrink(kmalloc_slab(KMALLOC_ASK));
	p = kmalloc(KMALLOC_ASK, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	EXPECT_OWNED(test, p, KMALLOC_ASK);
	kfree(p);
	EXPECT_POISONED(test, p);
	q = kmalloc(KMALLOC_ASK, GFP_KERNEL);     /* the same, from the sheaf */
	KUNIT_EXPECT_PTR_EQ(test, q, p);
	EXPECT_OWNED(test, q, KMALLOC_ASK);
	kfree(q);
	q = kmalloc(KMALLOC_ASK, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, q);
	EXPECT_OWNED(test, q, KMALLOC_ASK);
	/* krealloc() in place moves the edge both ways; ksize() hands over
	 * the whole class. */
	q = krealloc(q, KMALLOC_ASK / 2, GFP_KERNEL);
	EXPECT_OWNED(test, q, KMALLOC_ASK / 2);
	q = krealloc(q, KMALLOC_CLASS - 8, GFP_KERNEL);
	EXPECT_OWNED(test, q, KMALLOC_CLASS - 8);
	KUNIT_EXPECT_EQ(test, ksize(q), KMALLOC_CLASS);
	KUNIT_EXPECT_TRUE(test, kasan_byte_addressable(q + KMALLOC_CLASS - 1));
	kfree(q);
	EXPECT_POISONED(test, q);
	EXPECT_POISONED(test, q + KMALLOC_CLASS - 1);
}

/* The same edges when the compiler cannot see the size: kmalloc() then
 * goes through __kmalloc(), not __kmalloc_cache(). */
static void kmalloc_of_a_variable_size_owns_what_it_asked(struct kunit *test)
{
	volatile size_t ask = KMALLOC_ASK;
	char *p, *q;

	need_kasan(test);
	kmem_cache_shrink(kmalloc_slab(KMALLOC_ASK));
	p = kmalloc(ask, GFP_KERNEL);           /* cold: the slow path */
	KUNIT_ASSERT_NOT_NULL(test, p);
	EXPECT_OWNED(test, p, KMALLOC_ASK);
	kfree(p);
	q = kmalloc(ask, GFP_KERNEL);           /* warm: the sheaf */
	KUNIT_EXPECT_PTR_EQ(test, q, p);
	EXPECT_OWNED(test, q, KMALLOC_ASK);
	kfree(q);
	EXPECT_POISONED(test, q);
}

/* Any context: kmalloc_nolock()/kfree_nolock() keep the same edges. */
static void kmalloc_nolock_owns_what_it_asked(struct kunit *test)
{
	char *p;

	need_kasan(test);
	p = kmalloc_nolock(KMALLOC_ASK, 0, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	EXPECT_OWNED(test, p, KMALLOC_ASK);
	kfree_nolock(p);
	EXPECT_POISONED(test, p);
}

/* A large kmalloc: its pages, up to the size asked. */
static void large_kmalloc_owns_what_it_asked(struct kunit *test)
{
	char *p;

	need_kasan(test);
	p = kmalloc(LARGE_ASK, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	EXPECT_OWNED(test, p, LARGE_ASK);
	kfree(p);
	EXPECT_POISONED(test, p);
}

/*
 * A cache without sheaves: each object is addressable exactly while
 * allocated, its red zone never, and the objects never handed out of a
 * new slab not at all.
 */
static void cache_objects_and_metadata(struct kunit *test)
{
	struct kmem_cache_args args = { .sheaf_capacity = 0 };
	struct kmem_cache *s;
	char *a, *b;

	need_kasan(test);
	s = kmem_cache_create_args("test_kasan", CACHE_OBJECT, &args,
				   SLAB_RED_ZONE);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	EXPECT_OWNED(test, a, CACHE_OBJECT);      /* the red zone is not */
	b = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	EXPECT_OWNED(test, b, CACHE_OBJECT);
	kmem_cache_free(s, b);
	EXPECT_POISONED(test, b);
	/* The last object of the slab was never handed out. */
	EXPECT_POISONED(test, (char *)page_address(virt_to_slab(a)) +
				(unsigned long)(s->objects - 1) * s->size);
	kmem_cache_free(s, a);
	EXPECT_POISONED(test, a);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

/* Bulk calls and prefilled sheaves: objects waiting in a sheaf are the
 * allocator's, the one taken out is the caller's. */
static void bulk_and_prefilled_sheaves(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_slab(KMALLOC_CLASS);
	struct slab_sheaf *sheaf;
	void *objs[4];
	char *p;
	unsigned int i;

	need_kasan(test);
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL,
						    ARRAY_SIZE(objs), objs),
			ARRAY_SIZE(objs));
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		EXPECT_ADDRESSABLE(test, objs[i], KMALLOC_CLASS);
	kmem_cache_free_bulk(s, ARRAY_SIZE(objs), objs);
	for (i = 0; i < ARRAY_SIZE(objs); i++)
		EXPECT_POISONED(test, objs[i]);

	sheaf = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_NULL(test, sheaf);
	KUNIT_ASSERT_GE(test, kmem_cache_sheaf_size(sheaf), 2);
	EXPECT_POISONED(test, sheaf->objects[sheaf->size - 1]);
	p = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL | __GFP_ZERO, sheaf);
	KUNIT_ASSERT_NOT_NULL(test, p);
	EXPECT_ADDRESSABLE(test, p, KMALLOC_CLASS);
	EXPECT_POISONED(test, sheaf->objects[sheaf->size - 1]);
	kmem_cache_free(s, p);
	EXPECT_POISONED(test, p);
	kmem_cache_return_sheaf(s, GFP_KERNEL, sheaf);
}

/* Page blocks: addressable while allocated, poisoned whole once free. */
static void pages_free_and_allocated(struct kunit *test)
{
	struct page *page;
	char *p;

	need_kasan(test);
	page = alloc_pages(GFP_KERNEL, PAGE_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, page);
	p = page_address(page);
	EXPECT_ADDRESSABLE(test, p, PAGE_SIZE << PAGE_ORDER);
	__free_pages(page, PAGE_ORDER);
	EXPECT_POISONED(test, p);
	EXPECT_POISONED(test, p + (PAGE_SIZE << PAGE_ORDER) - 1);

	page = try_alloc_pages(0, 0);
	KUNIT_ASSERT_NOT_NULL(test, page);
	p = page_address(page);
	KUNIT_EXPECT_TRUE(test, kasan_byte_addressable(p + PAGE_SIZE - 1));
	free_pages_nolock(page, 0);
	EXPECT_POISONED(test, p);
}

/*
 * ksize() and krealloc() of an object already freed: a use after free, as
 * Linux's KASAN reports it (kasan_check_byte() in both).  They must say so
 * and leave the object poisoned in its sheaf; handing its bytes back would
 * make every later read of it invisible, and krealloc() would return an
 * object the allocator hands out again (and copy freed bytes to grow it).
 */
static void freed_object_stays_poisoned(struct kunit *test)
{
	unsigned long reports = slab_reports;
	char *p, *q = NULL;
	size_t size = 1;

	need_kasan(test);
	p = kmalloc(KMALLOC_ASK, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kfree(p);
	EXPECT_POISONED(test, p);
	slab_report_count_only = true;
	KUNIT_EXPECT_REPORT(test, "use after free", size = ksize(p));
	KUNIT_EXPECT_EQ(test, size, 0);
	EXPECT_POISONED(test, p);
	EXPECT_POISONED(test, p + KMALLOC_CLASS - 1);
	KUNIT_EXPECT_REPORT(test, "use after free",
			    q = krealloc(p, KMALLOC_ASK / 2, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, q);
	EXPECT_POISONED(test, p);
	KUNIT_EXPECT_REPORT(test, "use after free",
			    q = krealloc(p, 2 * KMALLOC_CLASS, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, q);
	EXPECT_POISONED(test, p);
	/* A large block too: its pages are free. */
	p = kmalloc(LARGE_ASK, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	kfree(p);
	KUNIT_EXPECT_REPORT(test, "use after free",
			    q = krealloc(p, LARGE_ASK / 2, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, q);
	EXPECT_POISONED(test, p);
	slab_report_count_only = false;
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 4);
}

/*
 * The any-context paths off the inline fast path.  With this CPU's sheaf
 * lock held (as by the code an NMI interrupted), kmalloc_nolock() takes a
 * slab object, and with list_lock held too the next class up; both own
 * exactly the size asked.  kfree_nolock() then frees to the slab, or, both
 * locks held, parks the object on the deferred list: poisoned either way,
 * and still poisoned once the list drains.
 */
static void nolock_slow_paths_keep_the_edges(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_slab(KMALLOC_ASK);
	struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[smp_processor_id()];
	struct kmem_cache_node *n = get_node(s, 0);
	unsigned long irq, parked;
	char *slab_obj, *freed, *bigger;

	need_kasan(test);
	/* The locks held are a sheaf cache's: a cpu-slab class's fast paths
	 * take neither (test_mm_cpu_slab.c has its edges). */
	if (kmem_cache_mode(s) != SLAB_MODE_SHEAVES)
		kunit_skip(test, "the kmalloc classes have no sheaves ($SLAB_MODE)");
	freed = kmalloc(KMALLOC_ASK, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, freed);
	parked = slab_deferred_frees(smp_processor_id());
	irq = local_irq_save();
	KUNIT_ASSERT_TRUE(test, local_trylock(&pcs->lock));
	slab_obj = kmalloc_nolock(KMALLOC_ASK, 0, NUMA_NO_NODE);
	kfree_nolock(freed);                    /* to its slab */
	spin_lock(&n->list_lock);
	bigger = kmalloc_nolock(KMALLOC_ASK, 0, NUMA_NO_NODE);
	kfree_nolock(slab_obj);                 /* parked */
	spin_unlock(&n->list_lock);
	local_unlock(&pcs->lock);
	local_irq_restore(irq);

	EXPECT_POISONED(test, freed);
	EXPECT_POISONED(test, freed + KMALLOC_ASK - 1);
	KUNIT_ASSERT_NOT_NULL(test, slab_obj);
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(smp_processor_id()),
			parked + 1);
	EXPECT_POISONED(test, slab_obj);
	EXPECT_POISONED(test, slab_obj + KMALLOC_ASK - 1);
	slab_deferred_flush_all();
	EXPECT_POISONED(test, slab_obj);
	KUNIT_ASSERT_NOT_NULL(test, bigger);
	KUNIT_EXPECT_PTR_NE(test, virt_to_slab(bigger)->slab_cache, s);
	EXPECT_OWNED(test, bigger, KMALLOC_ASK);
	kfree_nolock(bigger);
	EXPECT_POISONED(test, bigger);
}

/*
 * kmem_cache_free() in an NMI on a cache without sheaves: no fast push
 * poisons the object on the way (there is none to try), so the
 * any-context path it takes, slab_free_nolock(), must poison it itself.
 */
static void nmi_free_without_sheaves_poisons(struct kunit *test)
{
	struct kmem_cache_args none = { .sheaf_capacity = 0 };
	struct kmem_cache *s;
	char *p;

	need_kasan(test);
	s = kmem_cache_create_args("test_kasan_nmi_free", CACHE_OBJECT, &none,
				   0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	EXPECT_OWNED(test, p, CACHE_OBJECT);
	host_nmi_nesting++;
	kmem_cache_free(s, p);
	host_nmi_nesting--;
	EXPECT_POISONED(test, p);
	slab_deferred_flush_all();
	EXPECT_POISONED(test, p);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

/* A sheaf's own array (kmalloc_nosheaf()) is poisoned once freed, so a
 * sheaf used after its free is an ASan report too. */
static void freed_sheaf_is_poisoned(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_slab(KMALLOC_CLASS);
	struct slab_sheaf *sheaf;

	need_kasan(test);
	/* Oversize: made for this call, freed by the return. */
	sheaf = kmem_cache_prefill_sheaf(s, GFP_KERNEL, s->sheaf_capacity + 1);
	KUNIT_ASSERT_NOT_NULL(test, sheaf);
	EXPECT_ADDRESSABLE(test, sheaf, sizeof(*sheaf));
	kmem_cache_return_sheaf(s, GFP_KERNEL, sheaf);
	EXPECT_POISONED(test, sheaf);
	EXPECT_POISONED(test, &sheaf->size);
}

/* Every block in the buddy's free lists is poisoned, those never
 * allocated since boot (free_pages_boot()) included. */
static void free_blocks_are_poisoned(struct kunit *test)
{
	unsigned long blocks = 0, addressable = 0, flags;
	unsigned int z, order;

	need_kasan(test);
	for (z = 0; z < MAX_NR_ZONES; z++) {
		struct zone *zone = &NODE_DATA(0)->node_zones[z];

		if (!zone->managed_pages)
			continue;
		spin_lock_irqsave(&zone->lock, flags);
		for (order = 0; order < NR_PAGE_ORDERS; order++) {
			struct page *page;

			list_for_each_entry(page,
					    &zone->free_area[order].free_list,
					    lru) {
				char *p = page_address(page);

				blocks++;
				if (kasan_byte_addressable(p) ||
				    kasan_byte_addressable(p + (PAGE_SIZE << order) - 1))
					addressable++;
			}
		}
		spin_unlock_irqrestore(&zone->lock, flags);
	}
	KUNIT_EXPECT_GT(test, blocks, 0);
	KUNIT_EXPECT_EQ(test, addressable, 0);
}

static struct kunit_case kasan_cases[] = {
	KUNIT_CASE(kmalloc_owns_what_it_asked),
	KUNIT_CASE(kmalloc_of_a_variable_size_owns_what_it_asked),
	KUNIT_CASE(kmalloc_nolock_owns_what_it_asked),
	KUNIT_CASE(large_kmalloc_owns_what_it_asked),
	KUNIT_CASE(cache_objects_and_metadata),
	KUNIT_CASE(bulk_and_prefilled_sheaves),
	KUNIT_CASE(pages_free_and_allocated),
	KUNIT_CASE(freed_object_stays_poisoned),
	KUNIT_CASE(nolock_slow_paths_keep_the_edges),
	KUNIT_CASE(nmi_free_without_sheaves_poisons),
	KUNIT_CASE(freed_sheaf_is_poisoned),
	KUNIT_CASE(free_blocks_are_poisoned),
	{}
};

static struct kunit_suite kasan_suite = {
	.name = "kasan_shadow",
	.suite_init = kasan_suite_init,
	.suite_exit = kasan_suite_exit,
	.test_cases = kasan_cases,
};
kunit_test_suite(kasan_suite);
