/*
 * slab_test.c - tests of the slab allocator, sheaves and kmalloc.
 *
 * The same file runs in the kernel and, included by
 * tests/host/test_mm_slab.c, on the host under ASan/UBSan.  The host
 * wrapper supplies slab_test_env_init()/slab_test_env_exit() (memory to
 * work in, and pretend CPUs); in the kernel they do nothing.
 *
 * Every test starts from a shrunk allocator and checks at the end that the
 * buddy's free page count is exactly what it was: what it took it gave
 * back.  Tests that look at sheaf mechanics use a private cache with a
 * small capacity on one CPU, so the counts they expect are exact.
 */
#include <kasan.h>
#include <kunit.h>
#include <kernel.h>
#include <mm.h>
#include <mm_points.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include <cpu_work.h>
#include "../../mm/slab_internal.h"
#include "buddy_drought.h"

#ifdef HOST_TEST
int slab_test_env_init(void);
void slab_test_env_exit(void);
#else
static int slab_test_env_init(void) { return 0; }
static void slab_test_env_exit(void) { }
#endif

/* Give everything the slab layer holds back, then count free pages. */
static unsigned long quiesced_free_pages(void)
{
	kmem_cache_shrink_all();
	return nr_free_pages();
}

#define EXPECT_PAGES_BACK(test, before) \
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before)

static int slab_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void slab_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static void fill(void *p, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		((u8 *)p)[i] = (u8)(seed + i);
}

static bool check(const void *p, size_t n, u8 seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (((const u8 *)p)[i] != (u8)(seed + i))
			return false;
	return true;
}

/* ===================================================================== */
/* kmalloc                                                               */
/* ===================================================================== */

static void kmalloc_every_size_class(struct kunit *test)
{
	static const size_t sizes[] = { 1, 7, 8, 9, 16, 24, 33, 64, 65, 96, 97,
					128, 150, 192, 193, 256, 300, 512, 1000,
					1024, 2000, 2048, 4000, 4096, 5000,
					8192 };
	static const size_t expect[] = { 8, 8, 8, 16, 16, 32, 64, 64, 96, 96,
					 128, 128, 192, 192, 256, 256, 512,
					 512, 1024, 1024, 2048, 2048, 4096,
					 4096, 8192, 8192 };
	unsigned long before = quiesced_free_pages();
	void *p[ARRAY_SIZE(sizes)];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		size_t cls = expect[i];
		size_t align = cls & -cls;

		p[i] = kmalloc(sizes[i], GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		KUNIT_EXPECT_EQ(test, ksize(p[i]), cls);
		KUNIT_EXPECT_EQ(test, (unsigned long)p[i] %
				min(align, (size_t)PAGE_SIZE), 0);
		fill(p[i], ksize(p[i]), (u8)i);
	}
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		KUNIT_EXPECT_TRUE(test, check(p[i], ksize(p[i]), (u8)i));
		kfree(p[i]);
	}
	EXPECT_PAGES_BACK(test, before);
}

static void kmalloc_large_goes_to_the_buddy(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	void *p = kmalloc(KMALLOC_MAX_CACHE_SIZE + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, ksize(p), 4 * PAGE_SIZE);
	KUNIT_EXPECT_TRUE(test, virt_to_page(p)->flags & PG_large_kmalloc);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before - 4);
	fill(p, 4 * PAGE_SIZE, 3);
	KUNIT_EXPECT_TRUE(test, check(p, 4 * PAGE_SIZE, 3));
	kfree(p);
	EXPECT_PAGES_BACK(test, before);
}

/*
 * Sizes no buddy block can hold, up to SIZE_MAX: NULL, at once.  The
 * order is found by doubling a page until it holds the size; above 2^63
 * bytes no shift of a page ever does, so the search must stop at
 * MAX_ORDER instead of shifting by 64 (undefined; a loop for ever on x86).
 */
static void kmalloc_larger_than_any_block_is_null(struct kunit *test)
{
	static const size_t sizes[] = {
		((size_t)PAGE_SIZE << MAX_ORDER) + 1,
		(size_t)1 << 63,
		((size_t)1 << 63) + 1,
		SIZE_MAX,
	};
	unsigned long before = quiesced_free_pages();
	void *p = kmalloc(64, GFP_KERNEL);
	size_t i;

	KUNIT_ASSERT_NOT_NULL(test, p);
	fill(p, 64, 5);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		KUNIT_EXPECT_NULL(test, kmalloc(sizes[i], GFP_KERNEL));
		KUNIT_EXPECT_NULL(test, kzalloc(sizes[i], GFP_KERNEL));
		KUNIT_EXPECT_NULL(test, kcalloc(1, sizes[i], GFP_KERNEL));
		/* krealloc() fails and leaves the old object as it was. */
		KUNIT_EXPECT_NULL(test, krealloc(p, sizes[i], GFP_KERNEL));
		KUNIT_EXPECT_TRUE(test, check(p, 64, 5));
	}
	kfree(p);
	EXPECT_PAGES_BACK(test, before);
}

static void kmalloc_zero_calloc_realloc(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	u8 *p, *q;
	size_t i;

	KUNIT_EXPECT_PTR_EQ(test, kmalloc(0, GFP_KERNEL), ZERO_SIZE_PTR);
	kfree(ZERO_SIZE_PTR);
	kfree(NULL);
	/* kcalloc: n * size must not overflow into a small allocation. */
	KUNIT_EXPECT_NULL(test, kcalloc(SIZE_MAX / 2, 3, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, kcalloc((size_t)1 << 33, (size_t)1 << 32,
					GFP_KERNEL));
	/* ... even when the wrapped product is small and not zero. */
	KUNIT_EXPECT_NULL(test, kcalloc(((size_t)1 << 63) + 1, 2, GFP_KERNEL));
	KUNIT_EXPECT_NULL(test, kcalloc(((size_t)1 << 62) + 1, 4, GFP_KERNEL));

	/* Dirty a 200-byte object, free it, and get zeroes back. */
	p = kmalloc(200, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0xee, 200);
	kfree(p);
	p = kzalloc(200, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < 200; i++)
		KUNIT_ASSERT_EQ(test, p[i], 0);
	kfree(p);
	/* The same through kmalloc()'s inline fast path: the object just
	 * freed waits in this CPU's sheaf, and __GFP_ZERO must still zero. */
	p = kmalloc(200, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0xee, 200);
	kfree(p);
	p = kmalloc(200, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < 200; i++)
		KUNIT_ASSERT_EQ(test, p[i], 0);
	kfree(p);
	p = kcalloc(10, 30, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, ksize(p), 512);
	for (i = 0; i < 300; i++)
		KUNIT_ASSERT_EQ(test, p[i], 0);

	/* krealloc keeps the contents, in place when it fits. */
	fill(p, 300, 9);
	q = krealloc(p, 400, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, q, p);
	q = krealloc(p, 3000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_TRUE(test, check(q, 300, 9));
	KUNIT_EXPECT_EQ(test, ksize(q), 4096);
	q = krealloc(q, 20000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_TRUE(test, check(q, 300, 9));
	KUNIT_EXPECT_PTR_EQ(test, krealloc(q, 0, GFP_KERNEL), ZERO_SIZE_PTR);
	EXPECT_PAGES_BACK(test, before);
}

/* ===================================================================== */
/* Caches and slabs                                                      */
/* ===================================================================== */

static void cache_alignment_is_honoured(struct kunit *test)
{
	static const unsigned int aligns[] = { 8, 16, 32, 64, 128, 256, 512 };
	static const unsigned int sizes[] = { 8, 20, 72, 200, 1000, 3000 };
	unsigned long before = quiesced_free_pages();
	unsigned int a, z, i;

	for (a = 0; a < ARRAY_SIZE(aligns); a++) {
		for (z = 0; z < ARRAY_SIZE(sizes); z++) {
			struct kmem_cache *s;
			void *p[20];

			s = kmem_cache_create("test_align", sizes[z], aligns[a],
					      0, NULL);
			KUNIT_ASSERT_NOT_NULL(test, s);
			for (i = 0; i < ARRAY_SIZE(p); i++) {
				p[i] = kmem_cache_alloc(s, GFP_KERNEL);
				KUNIT_ASSERT_NOT_NULL(test, p[i]);
				KUNIT_EXPECT_EQ(test, (unsigned long)p[i] %
						aligns[a], 0);
				fill(p[i], sizes[z], (u8)i);
			}
			for (i = 0; i < ARRAY_SIZE(p); i++) {
				KUNIT_EXPECT_TRUE(test, check(p[i], sizes[z],
							      (u8)i));
				kmem_cache_free(s, p[i]);
			}
			KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
		}
	}
	EXPECT_PAGES_BACK(test, before);
}

static unsigned long ctor_calls;

static void count_ctor(void *object)
{
	ctor_calls++;
	memset(object, 0x42, 48);
}

static void constructor_runs_once_per_object(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s;
	unsigned int i, n, per_slab;
	unsigned long slabs;
	void **p;

	s = kmem_cache_create("test_ctor", 48, 0, 0, count_ctor);
	KUNIT_ASSERT_NOT_NULL(test, s);
	per_slab = s->objects;
	n = per_slab * 3;
	p = kmalloc(n * sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	ctor_calls = 0;
	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		KUNIT_EXPECT_EQ(test, ((u8 *)p[i])[47], 0x42);
	}
	/* Every object of every fresh slab constructed once, no more (the
	 * sheaf refills may have made more slabs than n needs). */
	slabs = get_node(s, 0)->nr_slabs;
	KUNIT_EXPECT_GE(test, slabs, 3);
	KUNIT_EXPECT_EQ(test, ctor_calls, slabs * per_slab);
	/* Free every other object, so no slab empties: a cache without
	 * sheaves (every cache under slub_debug=) gives empty slabs back,
	 * and a new slab would rightly be constructed again. */
	for (i = 1; i < n; i += 2)
		kmem_cache_free(s, p[i]);
	for (i = 1; i < n; i += 2) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		/* Its constructed state, untouched by the free pointer. */
		KUNIT_EXPECT_EQ(test, ((u8 *)p[i])[0], 0x42);
		KUNIT_EXPECT_EQ(test, ((u8 *)p[i])[47], 0x42);
	}
	/* Reused objects keep their state: no new calls, no new slabs. */
	KUNIT_EXPECT_EQ(test, ctor_calls, slabs * per_slab);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_slabs, slabs);
	for (i = 0; i < n; i++)
		kmem_cache_free(s, p[i]);
	kfree(p);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void bulk_alloc_and_free(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s;
	unsigned int i, j, n = 500;
	void **p;

	s = kmem_cache_create("test_bulk", 40, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	p = kcalloc(n, sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, n, p), n);
	for (i = 0; i < n; i++)
		fill(p[i], 40, (u8)i);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_TRUE(test, check(p[i], 40, (u8)i));
		for (j = i + 1; j < n && j < i + 50; j++)
			KUNIT_EXPECT_PTR_NE(test, p[i], p[j]);
	}
	kmem_cache_free_bulk(s, n, p);
	/* Again, now that sheaves and the barn hold objects. */
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL | __GFP_ZERO,
						    n, p), n);
	KUNIT_EXPECT_EQ(test, ((u8 *)p[n - 1])[39], 0);
	kmem_cache_free_bulk(s, n, p);
	kfree(p);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

/*
 * kmem_cache_free_bulk() checks every object before it takes the batch:
 * one that belongs to another cache sends the whole batch through
 * kmem_cache_free() one at a time, which reports it and frees the rest.
 */
static void bulk_free_of_another_caches_object(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct kmem_cache *s, *t;
	void *batch[2];

	s = kmem_cache_create("test_bulk_mine", 48, 0, 0, NULL);
	t = kmem_cache_create("test_bulk_other", 48, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, t);
	batch[0] = kmem_cache_alloc(s, GFP_KERNEL);
	batch[1] = kmem_cache_alloc(t, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, batch[0]);
	KUNIT_ASSERT_NOT_NULL(test, batch[1]);
	slab_report_count_only = true;   /* not a panic: no debug flags */
	KUNIT_EXPECT_REPORT(test, "it belongs to test_bulk_other",
			    kmem_cache_free_bulk(s, 2, batch));
	slab_report_count_only = false;
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	kmem_cache_free(t, batch[1]);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(t), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void free_pointer_is_hardened(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct kmem_cache_args args = { 0 };  /* no sheaves: see the slab */
	struct kmem_cache *s;
	void *a, *b, *c, **slot;

	s = kmem_cache_create_args("test_hardened", 64, &args, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	c = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	kmem_cache_free(s, c);
	kmem_cache_free(s, b);   /* freelist: b -> c -> rest of the slab */
	slot = (void **)((char *)b + s->offset);
	/* Stored neither as the plain pointer nor as NULL. */
	KUNIT_EXPECT_PTR_NE(test, kasan_unchecked_load_ptr(slot), c);
	KUNIT_EXPECT_PTR_NE(test, kasan_unchecked_load_ptr(slot), NULL);

	/* A stray write of a plausible pointer is caught, not followed. */
	slab_report_count_only = true;
	kasan_unchecked_store_ptr(slot, a);
	kunit_expect_report(test, "free pointer corrupted");
	KUNIT_EXPECT_PTR_EQ(test, kmem_cache_alloc(s, GFP_KERNEL), b);
	kunit_expect_report_done(test);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	KUNIT_EXPECT_PTR_NE(test, kmem_cache_alloc(s, GFP_KERNEL), a);
	slab_report_count_only = false;
	/* The rest of that slab is lost (and counted as in use): the cache
	 * cannot be destroyed cleanly, so this test leaks one slab by design
	 * and does not check the page count. */
	(void)before;
}

static void destroy_names_leaked_objects(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct kmem_cache *s;
	void *a, *b, *c;

	s = kmem_cache_create("test_leak", 100, 0, SLAB_STORE_USER, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	c = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, b);
	kunit_expect_report(test, "kmem_cache_destroy test_leak: 2 objects still allocated");
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), -1);
	kunit_expect_report_done(test);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	/* The cache survived, with its objects. */
	kmem_cache_free(s, a);
	kmem_cache_free(s, c);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void exact_accounting_many_objects(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s;
	unsigned int i, n = 3000;
	void **p;

	s = kmem_cache_create("test_count", 120, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	p = kmalloc(n * sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < n; i++) {
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	KUNIT_EXPECT_LT(test, nr_free_pages(), before);
	/* Free in an interleaved order, so slabs empty out of order. */
	for (i = 0; i < n; i += 2)
		kmem_cache_free(s, p[i]);
	for (i = 1; i < n; i += 2)
		kmem_cache_free(s, p[i]);
	kfree(p);
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_slabs, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void empty_slabs_go_back_beyond_min_partial(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache_args args = { 0 };  /* no sheaves: frees hit slabs */
	struct kmem_cache *s;
	unsigned int i, n;
	void **p;

	s = kmem_cache_create_args("test_partial", 256, &args, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	n = s->objects * (s->min_partial + 6);
	p = kmalloc(n * sizeof(void *), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < n; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_slabs, s->min_partial + 6);
	for (i = 0; i < n; i++)
		kmem_cache_free(s, p[i]);
	/* No shrink: the frees alone gave all but min_partial slabs back. */
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_slabs, s->min_partial);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(s, FREE_SLAB), 6);
	kfree(p);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

/* ---- several CPUs ---- */

#define XCPU_OBJS 256

struct xcpu {
	struct kmem_cache *s;
	void *objs[XCPU_OBJS];
	unsigned int bad;
	unsigned int failed;
};

static void xcpu_alloc(void *info)
{
	struct xcpu *x = info;
	unsigned int i;

	for (i = 0; i < XCPU_OBJS; i++) {
		x->objs[i] = kmem_cache_alloc(x->s, GFP_KERNEL);
		if (!x->objs[i]) {
			x->failed++;
			continue;
		}
		fill(x->objs[i], kmem_cache_size(x->s),
		     (u8)(i + smp_processor_id()));
	}
}

static void xcpu_free(void *info)
{
	struct xcpu *x = info;
	unsigned int i;

	for (i = 0; i < XCPU_OBJS; i++)
		kmem_cache_free(x->s, x->objs[i]);
}

static void objects_freed_on_another_cpu(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct xcpu *x = kzalloc(sizeof(*x), GFP_KERNEL);
	unsigned int cpu, i, other;

	KUNIT_ASSERT_NOT_NULL(test, x);
	x->s = kmem_cache_create("test_xcpu", 72, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, x->s);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		other = (cpu + 1) % nr_cpu_ids;
		KUNIT_ASSERT_EQ(test, smp_call_function_single(cpu, xcpu_alloc,
							       x, true), 0);
		KUNIT_ASSERT_EQ(test, x->failed, 0);
		for (i = 0; i < XCPU_OBJS; i++)
			KUNIT_EXPECT_TRUE(test, check(x->objs[i], 72,
						      (u8)(i + cpu)));
		KUNIT_ASSERT_EQ(test, kmem_cache_size(x->s), 72);
		KUNIT_ASSERT_EQ(test, smp_call_function_single(other, xcpu_free,
							       x, true), 0);
	}
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(x->s), 0);
	kfree(x);
	EXPECT_PAGES_BACK(test, before);
}

struct allcpu {
	struct kmem_cache *s;
	unsigned int bad[NR_CPUS];
	unsigned int failed[NR_CPUS];
};

/* Each CPU: allocate, pattern, re-check, free in a shuffled order. */
static void allcpu_work(void *info)
{
	struct allcpu *a = info;
	unsigned int cpu = smp_processor_id(), i, round;
	void *objs[128];

	for (round = 0; round < 8; round++) {
		for (i = 0; i < ARRAY_SIZE(objs); i++) {
			objs[i] = kmem_cache_alloc(a->s, GFP_KERNEL);
			if (!objs[i]) {
				a->failed[cpu]++;
				return;
			}
			fill(objs[i], 96, (u8)(cpu * 31 + i));
		}
		for (i = 0; i < ARRAY_SIZE(objs); i++)
			if (!check(objs[(i * 7) % 128], 96,
				   (u8)(cpu * 31 + (i * 7) % 128)))
				a->bad[cpu]++;
		for (i = 0; i < ARRAY_SIZE(objs); i++)
			kmem_cache_free(a->s, objs[(i * 7) % 128]);
	}
}

static void all_cpus_at_once(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct allcpu *a = kzalloc(sizeof(*a), GFP_KERNEL);
	unsigned int cpu;

	KUNIT_ASSERT_NOT_NULL(test, a);
	a->s = kmem_cache_create("test_allcpu", 96, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, a->s);
	/* Task context, IRQs on: with slub_debug= every operation walks a
	 * free list, and minutes with IRQs off would (rightly) trip the
	 * hard-lockup watchdog. */
	KUNIT_ASSERT_EQ(test, on_each_cpu_task(allcpu_work, a), nr_cpu_ids);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		KUNIT_EXPECT_EQ(test, a->bad[cpu], 0);
		KUNIT_EXPECT_EQ(test, a->failed[cpu], 0);
	}
	/* Most served per CPU: by the sheaves, or by the CPU slabs' fast
	 * path (cpu-slab mode); with neither (slub_debug=, or mode none)
	 * every operation goes to the slabs. */
	if (cache_has_sheaves(a->s))
		KUNIT_EXPECT_GE(test, slab_stat_sum(a->s, ALLOC_PCS),
				nr_cpu_ids * 8 * 128 / 2);
	else if (cache_has_cpu_slab(a->s))
		KUNIT_EXPECT_GE(test, slab_stat_sum(a->s, ALLOC_FASTPATH),
				nr_cpu_ids * 8 * 128 / 2);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(a->s), 0);
	kfree(a);
	EXPECT_PAGES_BACK(test, before);
}

/*
 * NULL is nothing to free, for a cache with sheaves and one without: no
 * report, no warning, the caches as they were.
 */
static void kmem_cache_free_of_null_does_nothing(struct kunit *test)
{
	struct kmem_cache *with = kmem_cache_create("test_null_on", 64, 0, 0,
						    NULL);
	struct kmem_cache_args none = { .sheaf_capacity = 0 };
	struct kmem_cache *without;
	unsigned long reports = slab_reports, warns = warn_count;

	without = kmem_cache_create_args("test_null_off", 64, &none, 0);
	KUNIT_ASSERT_NOT_NULL(test, with);
	KUNIT_ASSERT_NOT_NULL(test, without);
	slab_report_count_only = true;
	kmem_cache_free(with, NULL);
	kmem_cache_free(without, NULL);
	slab_report_count_only = false;
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, warn_count, warns);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(with), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(without), 0);
}

static struct kunit_case slab_cases[] = {
	KUNIT_CASE(kmem_cache_free_of_null_does_nothing),
	KUNIT_CASE(kmalloc_every_size_class),
	KUNIT_CASE(kmalloc_large_goes_to_the_buddy),
	KUNIT_CASE(kmalloc_zero_calloc_realloc),
	KUNIT_CASE(kmalloc_larger_than_any_block_is_null),
	KUNIT_CASE(cache_alignment_is_honoured),
	KUNIT_CASE(constructor_runs_once_per_object),
	KUNIT_CASE(bulk_alloc_and_free),
	KUNIT_CASE(bulk_free_of_another_caches_object),
	KUNIT_CASE(exact_accounting_many_objects),
	KUNIT_CASE(destroy_names_leaked_objects),
	KUNIT_CASE(empty_slabs_go_back_beyond_min_partial),
	KUNIT_CASE(objects_freed_on_another_cpu),
	KUNIT_CASE(all_cpus_at_once),
	KUNIT_CASE(free_pointer_is_hardened),  /* last: leaks a slab */
	{}
};

static struct kunit_suite slab_suite = {
	.name = "slab",
	.suite_init = slab_suite_init,
	.suite_exit = slab_suite_exit,
	.test_cases = slab_cases,
};
kunit_test_suite(slab_suite);

/* ===================================================================== */
/* Sheaf mechanics: one CPU, a private cache, exact counts               */
/* ===================================================================== */

#define CAP 4

static struct kmem_cache *sheaf_cache(struct kunit *test, unsigned int cap)
{
	struct kmem_cache_args args = { .sheaf_capacity = cap };
	struct kmem_cache *s = kmem_cache_create_args("test_sheaf", 64, &args,
						      SLAB_TEST_SHEAF_CAPACITY);

	KUNIT_ASSERT_NOT_NULL(test, s);
	/* slub_debug= on the command line makes every cache a debug cache,
	 * and debug caches have no sheaves: nothing to test here then. */
	if (s->flags & SLAB_DEBUG_FLAGS) {
		kmem_cache_destroy(s);
		kunit_skip(test, "slub_debug= is on: caches have no sheaves");
	}
	return s;
}

static unsigned long st(struct kmem_cache *s, enum slab_stat_item i)
{
	return slab_stat_sum(s, i);
}

static void sheaf_alloc_and_free_fast_paths(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = sheaf_cache(test, CAP);
	void *p[CAP];
	unsigned int i;

	KUNIT_EXPECT_EQ(test, s->sheaf_capacity, CAP);
	for (i = 0; i < CAP; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	/* One refill made a sheaf of CAP objects; all came from it. */
	KUNIT_EXPECT_EQ(test, st(s, SHEAF_REFILL), 1);
	KUNIT_EXPECT_EQ(test, st(s, ALLOC_PCS), CAP);
	KUNIT_EXPECT_EQ(test, st(s, ALLOC_SLOWPATH), 0);
	for (i = 0; i < CAP; i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, st(s, FREE_PCS), CAP);
	KUNIT_EXPECT_EQ(test, s->cpu_sheaves[0].main->size, CAP);
	/* Allocation pops the last one freed (LIFO keeps caches warm). */
	KUNIT_EXPECT_PTR_EQ(test, kmem_cache_alloc(s, GFP_KERNEL), p[CAP - 1]);
	kmem_cache_free(s, p[CAP - 1]);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void sheaf_swap_with_spare(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = sheaf_cache(test, CAP);
	struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[0];
	void *p[3 * CAP];
	unsigned int i;

	for (i = 0; i < 2 * CAP; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	/* Two refills; the first (empty) sheaf became the spare. */
	KUNIT_EXPECT_EQ(test, st(s, SHEAF_REFILL), 2);
	KUNIT_ASSERT_NOT_NULL(test, pcs->spare);
	KUNIT_EXPECT_EQ(test, pcs->spare->size, 0);
	for (i = 0; i < 2 * CAP; i++)
		kmem_cache_free(s, p[i]);
	/* main filled, then swapped with the empty spare, which filled. */
	KUNIT_EXPECT_EQ(test, st(s, SHEAF_SWAP), 1);
	KUNIT_EXPECT_EQ(test, pcs->main->size, CAP);
	KUNIT_EXPECT_EQ(test, pcs->spare->size, CAP);
	for (i = 0; i < 2 * CAP; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	/* Main emptied, swapped with the full spare: no refill needed. */
	KUNIT_EXPECT_EQ(test, st(s, SHEAF_SWAP), 2);
	KUNIT_EXPECT_EQ(test, st(s, SHEAF_REFILL), 2);
	for (i = 0; i < 2 * CAP; i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void sheaf_barn_exchange_and_limits(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = sheaf_cache(test, CAP);
	struct node_barn *barn = &get_node(s, 0)->barn;
	unsigned int i, n = CAP * (BARN_MAX_FULL + 6);
	void **p = kmalloc(n * sizeof(void *), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 0; i < n; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	/* Every sheaf emptied by allocation went to the barn's empty list,
	 * up to its limit. */
	KUNIT_EXPECT_EQ(test, barn->nr_empty, BARN_MAX_EMPTY);
	KUNIT_EXPECT_EQ(test, barn->nr_full, 0);
	for (i = 0; i < n; i++)
		kmem_cache_free(s, p[i]);
	/* Full sheaves were traded for empty ones until the full list hit
	 * its limit; after that main was flushed to the slabs. */
	KUNIT_EXPECT_EQ(test, barn->nr_full, BARN_MAX_FULL);
	KUNIT_EXPECT_GT(test, st(s, BARN_PUT_FAIL), 0);
	KUNIT_EXPECT_GT(test, st(s, SHEAF_FLUSH), 0);
	/* Allocation now takes full sheaves from the barn, no refill. */
	i = (unsigned int)st(s, SHEAF_REFILL);
	{
		unsigned long gets = st(s, BARN_GET);
		unsigned int k;

		for (k = 0; k < 4 * CAP; k++)
			p[k] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_EXPECT_EQ(test, st(s, SHEAF_REFILL), i);
		KUNIT_EXPECT_GE(test, st(s, BARN_GET), gets + 2);
		for (k = 0; k < 4 * CAP; k++)
			kmem_cache_free(s, p[k]);
	}
	kfree(p);
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, barn->nr_full + barn->nr_empty, 0);
	KUNIT_EXPECT_PTR_EQ(test, s->cpu_sheaves[0].main, &bootstrap_sheaf);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_slabs, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

/*
 * Default capacities follow Linux's rule on the slot size (60 below 256
 * bytes, 28 to 1 KiB, 12 to a page, 4 from a page on, each filling the
 * sheaf's own kmalloc object), so that a full sheaf of kmalloc-4k parks
 * 16 KiB, not 48.
 */
static void kmalloc_sheaf_capacities_follow_the_slot_size(struct kunit *test)
{
	static const struct { size_t size; unsigned int capacity; } want[] = {
		{ 8, 60 }, { 64, 60 }, { 192, 60 }, { 256, 28 }, { 512, 28 },
		{ 1024, 12 }, { 2048, 12 }, { 4096, 4 }, { 8192, 4 },
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		struct kmem_cache *s = kmalloc_slab(want[i].size);

		KUNIT_ASSERT_NOT_NULL(test, s);
		if (!cache_has_sheaves(s))
			kunit_skip(test, "needs sheaves: %s is in mode %s (slab_mode=, or slub_debug= made it a debug cache)",
				   s->name, slab_mode_names[kmem_cache_mode(s)]);
		KUNIT_EXPECT_EQ(test, s->size, want[i].size);
		KUNIT_EXPECT_EQ(test, s->sheaf_capacity, want[i].capacity);
	}
}

/*
 * An explicit sheaf_capacity is a minimum, as in Linux: below the default
 * for the slot size it gives the default, above it the capacity asked for,
 * rounded up so the sheaf fills its kmalloc object.
 */
static void sheaf_capacity_asked_is_a_minimum(struct kunit *test)
{
	static const struct {
		unsigned int size, asked, capacity;
	} want[] = {
		{ 64, 4, 60 },       /* below the default: the default */
		{ 64, 60, 60 },      /* the default itself */
		{ 64, 100, 124 },    /* 32 + 800 bytes fill kmalloc-1k: 124 */
		{ 4096, 2, 4 },      /* a page: default 4 */
		{ 4096, 8, 8 },      /* 32 + 64 bytes fill kmalloc-96: 8 */
		{ 4096, 9, 12 },     /* 32 + 72 bytes fill kmalloc-128: 12 */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(want); i++) {
		struct kmem_cache_args args = {
			.sheaf_capacity = want[i].asked,
		};
		struct kmem_cache *s = kmem_cache_create_args(
			"test_sheaf_min", want[i].size, &args, 0);

		KUNIT_ASSERT_NOT_NULL(test, s);
		if (s->flags & SLAB_DEBUG_FLAGS) {
			kmem_cache_destroy(s);
			kunit_skip(test, "slub_debug= is on: caches have no sheaves");
		}
		KUNIT_EXPECT_EQ(test, s->sheaf_capacity, want[i].capacity);
		KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	}
}

/*
 * A cache holds one line of sheaves per possible CPU, not per NR_CPUS: the
 * cache of caches hands out kmem_cache_struct_size(nr_cpu_possible) bytes
 * (4 KiB of lines for NR_CPUS = 64 would be 128 bytes with two CPUs).
 * make test boots with 1, 2, 4, 6 and 64 CPUs; the host's tests with 4.
 */
static void cache_struct_follows_the_cpu_count(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("test_cpus", 64, 0, 0, NULL);
	struct page *slab;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_LE(test, nr_cpu_ids, nr_cpu_possible);
	KUNIT_EXPECT_LE(test, nr_cpu_possible, NR_CPUS);
	slab = virt_to_slab(s);
	KUNIT_ASSERT_NOT_NULL(test, slab);
	KUNIT_EXPECT_EQ(test, slab->slab_cache->object_size,
			kmem_cache_struct_size(nr_cpu_possible));
	/* Each CPU's sheaves fill a cache line of their own. */
	KUNIT_EXPECT_EQ(test, (unsigned long)s->cpu_sheaves % SMP_LINE_SIZE, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

static void sheaf_capacity_zero_disables_sheaves(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = sheaf_cache(test, 0);
	struct kmem_cache *d = kmem_cache_create("test_default", 64, 0, 0,
						 NULL);
	void *p[10];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_EXPECT_EQ(test, s->sheaf_capacity, 0);
	/* kmem_cache_create()'s default: sheaves of at least 60 small
	 * objects, in the host's other modes ($SLAB_MODE) that mode. */
	if (kmem_cache_mode(d) == SLAB_MODE_SHEAVES)
		KUNIT_EXPECT_GE(test, d->sheaf_capacity, 60);
	else
		KUNIT_EXPECT_EQ(test, d->sheaf_capacity, 0);
	for (i = 0; i < 10; i++)
		p[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 0; i < 10; i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, st(s, ALLOC_PCS) + st(s, FREE_PCS), 0);
	KUNIT_EXPECT_EQ(test, st(s, ALLOC_SLOWPATH), 10);
	KUNIT_EXPECT_EQ(test, st(s, FREE_SLOWPATH), 10);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(d), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void prefilled_sheaf_refill_and_return(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = sheaf_cache(test, CAP);
	struct slab_sheaf *sh;
	void *p[12];
	unsigned int i;

	sh = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 3);
	KUNIT_ASSERT_NOT_NULL(test, sh);
	KUNIT_EXPECT_GE(test, kmem_cache_sheaf_size(sh), 3);
	for (i = 0; i < 3; i++)
		p[i] = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, sh);
	KUNIT_EXPECT_EQ(test, kmem_cache_refill_sheaf(s, GFP_KERNEL, &sh, CAP), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_sheaf_size(sh), CAP);
	/* Beyond the capacity: an oversize sheaf replaces it. */
	KUNIT_EXPECT_EQ(test, kmem_cache_refill_sheaf(s, GFP_KERNEL, &sh, 9), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_sheaf_size(sh), 9);
	for (i = 3; i < 12; i++)
		p[i] = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, sh);
	KUNIT_EXPECT_NULL(test, kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, sh));
	kmem_cache_return_sheaf(s, GFP_KERNEL, sh);
	for (i = 0; i < 12; i++) {
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
		kmem_cache_free(s, p[i]);
	}
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void prefilled_sheaf_survives_exhaustion(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = sheaf_cache(test, CAP);
	struct slab_sheaf *small, *big;
	LIST_HEAD(taken);
	void *p[CAP + 40];
	unsigned int i, n = 0;

	small = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
	big = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 40);
	KUNIT_ASSERT_NOT_NULL(test, small);
	KUNIT_ASSERT_NOT_NULL(test, big);
	exhaust_buddy(&taken);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), 0);
	/* The buddy is dry, yet every prefilled object is there. */
	for (i = 0; i < CAP; i++)
		KUNIT_EXPECT_NOT_NULL(test, p[n++] =
			kmem_cache_alloc_from_sheaf(s, GFP_ATOMIC, small));
	for (i = 0; i < 40; i++)
		KUNIT_EXPECT_NOT_NULL(test, p[n++] =
			kmem_cache_alloc_from_sheaf(s, GFP_ATOMIC, big));
	release_buddy(&taken);
	kmem_cache_return_sheaf(s, GFP_KERNEL, small);
	kmem_cache_return_sheaf(s, GFP_KERNEL, big);
	for (i = 0; i < n; i++)
		kmem_cache_free(s, p[i]);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

/*
 * The buddy runs dry in the middle of a refill: at the point where the
 * slabs of dry.cache ran out and a new slab is next (slab_alloc_unlocked),
 * after dry.new_slabs more slabs, the hook takes every free page.  Whatever
 * the call got by then is not what was asked for: kmem_cache_prefill_sheaf()
 * (within the capacity and oversize) must return NULL,
 * kmem_cache_refill_sheaf() -ENOMEM and kmem_cache_alloc_bulk() 0, and
 * none of them may keep an object it took.
 */
static struct {
	struct kmem_cache *cache;
	unsigned int new_slabs;     /* new slabs allowed before the drought */
	bool dry;
	struct list_head taken;
} dry;

static void run_dry(enum mm_point where, void *arg)
{
	if (where != MM_POINT_SLAB_ALLOC_UNLOCKED || arg != dry.cache || dry.dry)
		return;
	if (dry.new_slabs) {
		dry.new_slabs--;
		return;
	}
	dry.dry = true;
	exhaust_buddy(&dry.taken);
}

static void go_dry_after(struct kmem_cache *s, unsigned int new_slabs)
{
	dry.cache = s;
	dry.new_slabs = new_slabs;
	dry.dry = false;
	INIT_LIST_HEAD(&dry.taken);
	mm_point_hook = run_dry;
}

static void rain(struct kunit *test)
{
	mm_point_hook = NULL;
	KUNIT_EXPECT_TRUE(test, dry.dry);   /* the drought really came */
	release_buddy(&dry.taken);
}

/* A prefill of count with the drought after new_slabs gives no sheaf. */
static void expect_no_prefill_when_dry(struct kunit *test, struct kmem_cache *s,
				       unsigned int new_slabs, unsigned int count)
{
	struct slab_sheaf *sh;

	go_dry_after(s, new_slabs);
	sh = kmem_cache_prefill_sheaf(s, GFP_KERNEL, count);
	rain(test);
	KUNIT_EXPECT_NULL(test, sh);
	if (sh)
		kmem_cache_return_sheaf(s, GFP_KERNEL, sh);
}

static void sheaves_and_bulk_are_all_or_nothing(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = sheaf_cache(test, CAP);
	struct slab_sheaf *sh;
	unsigned int many;
	void **p;

	many = 2 * s->objects + CAP;   /* more than one new slab holds */
	p = kcalloc(many, sizeof(*p), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);

	/* Within the capacity, nothing to take at all. */
	expect_no_prefill_when_dry(test, s, 0, CAP);
	/* Oversize: one new slab's worth, not all that was asked. */
	expect_no_prefill_when_dry(test, s, 1, many);

	/* A sheaf in hand that cannot be topped up. */
	kmem_cache_shrink(s);
	sh = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, sh);
	go_dry_after(s, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_refill_sheaf(s, GFP_KERNEL, &sh, CAP),
			-ENOMEM);
	rain(test);
	KUNIT_EXPECT_LT(test, kmem_cache_sheaf_size(sh), CAP);
	kmem_cache_return_sheaf(s, GFP_KERNEL, sh);

	/* Bulk: one new slab's worth, then nothing; all of it given back. */
	kmem_cache_shrink(s);
	go_dry_after(s, 1);
	KUNIT_EXPECT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, many, p), 0);
	rain(test);

	kfree(p);
	/* Every object is back: destroy finds none in use. */
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void shrink_flushes_every_cpu(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct xcpu *x = kzalloc(sizeof(*x), GFP_KERNEL);
	unsigned int cpu;

	KUNIT_ASSERT_NOT_NULL(test, x);
	x->s = sheaf_cache(test, CAP);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		smp_call_function_single(cpu, xcpu_alloc, x, true);
		smp_call_function_single(cpu, xcpu_free, x, true);
	}
	kmem_cache_shrink(x->s);
	for_each_possible_cpu(cpu) {
		KUNIT_EXPECT_PTR_EQ(test, x->s->cpu_sheaves[cpu].main,
				    &bootstrap_sheaf);
		KUNIT_EXPECT_NULL(test, x->s->cpu_sheaves[cpu].spare);
	}
	KUNIT_EXPECT_EQ(test, get_node(x->s, 0)->nr_slabs, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(x->s), 0);
	kfree(x);
	EXPECT_PAGES_BACK(test, before);
}

static struct kunit_case sheaf_cases[] = {
	KUNIT_CASE(sheaf_alloc_and_free_fast_paths),
	KUNIT_CASE(sheaf_swap_with_spare),
	KUNIT_CASE(sheaf_barn_exchange_and_limits),
	KUNIT_CASE(sheaf_capacity_zero_disables_sheaves),
	KUNIT_CASE(sheaf_capacity_asked_is_a_minimum),
	KUNIT_CASE(cache_struct_follows_the_cpu_count),
	KUNIT_CASE(kmalloc_sheaf_capacities_follow_the_slot_size),
	KUNIT_CASE(prefilled_sheaf_refill_and_return),
	KUNIT_CASE(prefilled_sheaf_survives_exhaustion),
	KUNIT_CASE(sheaves_and_bulk_are_all_or_nothing),
	KUNIT_CASE(shrink_flushes_every_cpu),
	{}
};

static struct kunit_suite slab_sheaf_suite = {
	.name = "slab_sheaf",
	.suite_init = slab_suite_init,
	.suite_exit = slab_suite_exit,
	.test_cases = sheaf_cases,
};
kunit_test_suite(slab_sheaf_suite);

/* ===================================================================== */
/* Debugging: each kind of misuse is reported (and counted)              */
/* ===================================================================== */

static int debug_init(struct kunit *test)
{
	(void)test;
	slab_report_count_only = true;
	return 0;
}

static void debug_exit(struct kunit *test)
{
	(void)test;
	slab_report_count_only = false;
}

#define DEBUG_ALL (SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER | \
		   SLAB_CONSISTENCY_CHECKS)

static void debug_cache_bypasses_sheaves(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("test_dbg", 50, 0, DEBUG_ALL,
						 NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->sheaf_capacity, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

static void debug_double_free(struct kunit *test)
{
	static const slab_flags_t variants[] = { DEBUG_ALL, SLAB_POISON,
						 SLAB_CONSISTENCY_CHECKS };
	unsigned long before = quiesced_free_pages();
	unsigned int v;

	for (v = 0; v < ARRAY_SIZE(variants); v++) {
		unsigned long reports = slab_reports;
		struct kmem_cache *s;
		void *a, *b;

		s = kmem_cache_create("test_dbg", 50, 0, variants[v], NULL);
		KUNIT_ASSERT_NOT_NULL(test, s);
		a = kmem_cache_alloc(s, GFP_KERNEL);
		b = kmem_cache_alloc(s, GFP_KERNEL);
		kmem_cache_free(s, a);
		KUNIT_EXPECT_EQ(test, slab_reports, reports);
		KUNIT_EXPECT_REPORT(test, "BUG test_dbg: double free",
				    kmem_cache_free(s, a));
		KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
		kmem_cache_free(s, b);
		KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
		KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	}
	EXPECT_PAGES_BACK(test, before);
}

static void debug_red_zone_overwrite(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct kmem_cache *s;
	u8 *a;

	s = kmem_cache_create("test_dbg", 50, 0, SLAB_RED_ZONE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	memset(a, 1, 50);               /* all of it: fine */
	kmem_cache_free(s, a);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	kasan_unchecked_fill(&a[50], 1, 1);     /* one byte past the end */
	KUNIT_EXPECT_REPORT(test, "BUG test_dbg: Redzone overwritten",
			    kmem_cache_free(s, a));
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

/*
 * A debug kmalloc class (SLAB_KMALLOC + SLAB_RED_ZONE) red-zones the bytes
 * between the size asked for and the class size: kmalloc(20) from a
 * 32-byte class may use bytes 0..19, and byte 25 is reported on free.
 */
static void debug_kmalloc_red_zone_past_the_size_asked(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct kmem_cache *s;
	u8 *a;

	s = kmem_cache_create("test_kmalloc_rz", 32, 0,
			      SLAB_KMALLOC | SLAB_RED_ZONE, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	slab_kmalloc_set_size(s, a, 20);    /* what __kmalloc(20) does */
	memset(a, 1, 20);                   /* all it asked for: fine */
	kmem_cache_free(s, a);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	slab_kmalloc_set_size(s, a, 20);
	a[25] = 1;                          /* inside the class, past the ask */
	KUNIT_EXPECT_REPORT(test, "kmalloc Redzone overwritten: byte 25 written",
			    kmem_cache_free(s, a));
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	a = kmem_cache_alloc(s, GFP_KERNEL);  /* kmem_cache_alloc: all 32 */
	memset(a, 1, 32);
	kmem_cache_free(s, a);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void debug_write_after_free(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct kmem_cache *s;
	u8 *a, *b;

	s = kmem_cache_create("test_dbg", 50, 0, SLAB_POISON | SLAB_RED_ZONE,
			      NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, a);
	kasan_unchecked_fill(&a[10], 0, 1);     /* write after free */
	KUNIT_EXPECT_REPORT(test, "BUG test_dbg: Poison overwritten",
			    b = kmem_cache_alloc(s, GFP_KERNEL)); /* LIFO: a */
	KUNIT_EXPECT_PTR_EQ(test, b, a);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	kmem_cache_free(s, b);
	b = kmem_cache_alloc(s, GFP_KERNEL);  /* poison restored: clean */
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	kmem_cache_free(s, b);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	EXPECT_PAGES_BACK(test, before);
}

static void debug_invalid_free(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct kmem_cache *s, *t;
	u8 *a, *b;
	u64 local = 0;

	s = kmem_cache_create("test_dbg", 50, 0, DEBUG_ALL, NULL);
	t = kmem_cache_create("test_other", 50, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, t);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(t, GFP_KERNEL);
	KUNIT_EXPECT_REPORT(test, "invalid free: not the start of an object",
			    kmem_cache_free(s, a + 8));  /* inside an object */
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	KUNIT_EXPECT_REPORT(test, "it belongs to test_dbg",
			    kmem_cache_free(t, a));  /* another cache's object */
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 2);
	KUNIT_EXPECT_REPORT(test, "BUG test_other: invalid free: not an object of this cache",
			    kmem_cache_free(t, &local));  /* not a slab object */
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 3);
	KUNIT_EXPECT_REPORT(test, "kfree of a pointer kmalloc never returned",
			    kfree(&local));
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 4);
	kmem_cache_free(s, a);
	kmem_cache_free(t, b);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 4);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(t), 0);
	EXPECT_PAGES_BACK(test, before);
}

static struct kunit_case debug_cases[] = {
	KUNIT_CASE(debug_cache_bypasses_sheaves),
	KUNIT_CASE(debug_double_free),
	KUNIT_CASE(debug_red_zone_overwrite),
	KUNIT_CASE(debug_kmalloc_red_zone_past_the_size_asked),
	KUNIT_CASE(debug_write_after_free),
	KUNIT_CASE(debug_invalid_free),
	{}
};

static struct kunit_suite slab_debug_suite = {
	.name = "slab_debug",
	.suite_init = slab_suite_init,
	.suite_exit = slab_suite_exit,
	.init = debug_init,
	.exit = debug_exit,
	.test_cases = debug_cases,
};
kunit_test_suite(slab_debug_suite);
