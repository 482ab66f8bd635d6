/*
 * slab_geometry_test.c - the object layouts where debug metadata is tight.
 *
 * A cache's free pointer, red zone, poison and tracking records share the
 * bytes around each object.  Two layouts leave no slack: an object smaller
 * than the free pointer (under 8 bytes), and a kmalloc object asked smaller
 * than its class, whose tail up to the class size is red zone.  These cases
 * use exactly those, with every cache flavour: the cache's own flags (under
 * `slub_debug=` on the command line every cache gets them; `make test`
 * boots this suite with each of F, Z, P, U and some combinations) and each
 * debug flag explicitly.
 *
 * Every flavour also places its metadata apart: the free pointer, the
 * tracking records and the kmalloc size never share a byte (the records
 * written over the free pointer would go unseen until a report printed a
 * garbled "allocated by").  And each cache's slab order is the smallest
 * that holds enough objects (mm/slab_common.c, calculate_order()).
 *
 * What must hold in every flavour: every byte the user may write can be
 * written and reads back, while its neighbours are freed and reallocated
 * (no free pointer or record lands in it); writing them is never reported;
 * and, where the cache red-zones, one byte past what was asked is.  Each
 * case ends with the cache destroyed cleanly and every page back.
 *
 * Reports are counted, not fatal, here (slab_report_count_only): one that
 * no case declared fails that case (kernel/kunit.c) and the run.
 *
 * The same file runs on the host, included by
 * tests/host/test_mm_slab_geometry.c.
 */
#include <kasan.h>
#include <kunit.h>
#include <kernel.h>
#include <mm.h>
#include <slab.h>
#include <string.h>
#include "../../mm/slab_internal.h"

#ifdef HOST_TEST
int slab_test_env_init(void);
void slab_test_env_exit(void);
#else
static int slab_test_env_init(void) { return 0; }
static void slab_test_env_exit(void) { }
#endif

#define GEOMETRY_SLABS 2      /* objects for this many slabs, and some */
#define GEOMETRY_EXTRA 3

static unsigned long geometry_free_pages(void)
{
	kmem_cache_shrink_all();
	return nr_free_pages();
}

static int geometry_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void geometry_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static int geometry_init(struct kunit *test)
{
	(void)test;
	slab_report_count_only = true;
	return 0;
}

static void geometry_exit(struct kunit *test)
{
	(void)test;
	slab_report_count_only = false;
}

static u8 pattern(unsigned int object, unsigned int byte)
{
	return (u8)(object * 7 + byte + 1);
}

static void fill_object(void *p, unsigned int n, unsigned int object)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		((u8 *)p)[i] = pattern(object, i);
}

static bool object_intact(const void *p, unsigned int n, unsigned int object)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		if (((const u8 *)p)[i] != pattern(object, i))
			return false;
	return true;
}

/*
 * Allocate n objects and fill every usable byte; free the odd ones and
 * check the even ones; allocate the odd ones again, fill, check all; free
 * all.  `usable` is what the user may write; `alloc` gets one object.
 * Returns false (after failing the case) if an allocation failed.
 */
static bool neighbours_keep_their_bytes(struct kunit *test, void **obj,
					unsigned int n, unsigned int usable,
					void *(*alloc)(void *arg), void *arg,
					void (*release)(void *arg, void *p))
{
	unsigned int i, bad = 0;

	for (i = 0; i < n; i++) {
		obj[i] = alloc(arg);
		if (!obj[i]) {
			KUNIT_FAIL(test, "allocation %u of %u failed", i, n);
			while (i--)
				release(arg, obj[i]);
			return false;
		}
		fill_object(obj[i], usable, i);
	}
	for (i = 1; i < n; i += 2)
		release(arg, obj[i]);
	for (i = 0; i < n; i += 2)
		bad += !object_intact(obj[i], usable, i);
	for (i = 1; i < n; i += 2) {
		obj[i] = alloc(arg);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
		fill_object(obj[i], usable, i);
	}
	for (i = 0; i < n; i++)
		bad += !object_intact(obj[i], usable, i);
	for (i = 0; i < n; i++)
		release(arg, obj[i]);
	KUNIT_EXPECT_EQ(test, bad, 0);
	return true;
}

/* ---- objects smaller than the free pointer ---- */

static void *cache_alloc(void *arg)
{
	return kmem_cache_alloc(arg, GFP_KERNEL);
}

static void cache_free(void *arg, void *p)
{
	kmem_cache_free(arg, p);
}

/*
 * The flavours.  0 is the cache's own flags (slub_debug='s, if any).
 * SLAB_RED_ZONE alone is not listed: with the slab suites booted under
 * slub_debug=Z, flavour 0 is exactly that, in a boot of its own.
 */
static const slab_flags_t geometry_flavours[] = {
	0,
	SLAB_CONSISTENCY_CHECKS,
	SLAB_POISON,
	SLAB_STORE_USER,
	SLAB_RED_ZONE | SLAB_POISON,
	SLAB_DEBUG_FLAGS,
};

static void tiny_one(struct kunit *test, unsigned int size, slab_flags_t flags)
{
	unsigned long reports = slab_reports;
	struct kmem_cache *s;
	unsigned int n;
	void **obj;

	s = kmem_cache_create("test_tiny", size, 0, flags, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_GE(test, s->size, size);
	n = GEOMETRY_SLABS * s->objects + GEOMETRY_EXTRA;
	obj = kmalloc(n * sizeof(*obj), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	if (!neighbours_keep_their_bytes(test, obj, n, size, cache_alloc, s,
					 cache_free))
		kunit_info(test, "size %u flags %#x", size, s->flags);
	kfree(obj);
	if (slab_reports != reports)
		kunit_info(test, "size %u flags %#x: reported", size, s->flags);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

static void objects_below_eight_bytes(struct kunit *test)
{
	static const unsigned int sizes[] = { 1, 2, 4, 7, 8, 12 };
	unsigned long before = geometry_free_pages();
	unsigned int i, f;

	for (f = 0; f < ARRAY_SIZE(geometry_flavours); f++)
		for (i = 0; i < ARRAY_SIZE(sizes); i++)
			tiny_one(test, sizes[i], geometry_flavours[f]);
	KUNIT_EXPECT_EQ(test, geometry_free_pages(), before);
}

/* ---- where the metadata goes ---- */

/* Is [a, a + alen) apart from [b, b + blen)? */
static bool apart(unsigned long a, unsigned long alen, unsigned long b,
		  unsigned long blen)
{
	return a + alen <= b || b + blen <= a;
}

/*
 * The free pointer, the two tracking records and the kmalloc size each
 * have bytes of their own inside the stride; only the free pointer may
 * lie in the user's object, and not when a free object must read as
 * poison.
 */
static void layout_one(struct kunit *test, unsigned int size,
		       slab_flags_t flags)
{
	unsigned long fp, tracks = 0, tracks_len = 0, osz;
	struct kmem_cache *s;
	void *obj;

	s = kmem_cache_create("test_layout", size, 0, flags, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	obj = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	fp = s->offset;
	KUNIT_EXPECT_LE(test, fp + sizeof(void *), s->size);
	if (s->flags & SLAB_POISON)     /* a free object is all poison */
		KUNIT_EXPECT_GE(test, fp, s->object_size);
	if (s->flags & SLAB_STORE_USER) {
		tracks = (unsigned long)((char *)slab_object_tracks(s, obj) -
					 (char *)obj);
		tracks_len = 2 * sizeof(struct slab_track);
		KUNIT_EXPECT_GE(test, tracks, s->inuse);
		KUNIT_EXPECT_LE(test, tracks + tracks_len, s->size);
		KUNIT_EXPECT_TRUE(test, apart(fp, sizeof(void *), tracks,
					      tracks_len));
	}
	if (s->orig_size_offset) {
		osz = s->orig_size_offset;
		KUNIT_EXPECT_TRUE(test, apart(osz, sizeof(unsigned long), fp,
					      sizeof(void *)));
		KUNIT_EXPECT_TRUE(test, !tracks_len ||
				  apart(osz, sizeof(unsigned long), tracks,
					tracks_len));
	}
	if (test->status == KUNIT_FAILURE)
		kunit_info(test, "size %u flags %#x: offset %u inuse %u size %u",
			   size, s->flags, s->offset, s->inuse, s->size);
	kmem_cache_free(s, obj);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

static void debug_records_have_bytes_of_their_own(struct kunit *test)
{
	static const unsigned int sizes[] = { 1, 8, 24, 64, 100 };
	unsigned long before = geometry_free_pages();
	unsigned int i, f;

	for (f = 0; f < ARRAY_SIZE(geometry_flavours); f++)
		for (i = 0; i < ARRAY_SIZE(sizes); i++)
			layout_one(test, sizes[i], geometry_flavours[f]);
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		layout_one(test, sizes[i], SLAB_KMALLOC | SLAB_DEBUG_FLAGS);
	KUNIT_EXPECT_EQ(test, geometry_free_pages(), before);
}

/* ---- the slab order ---- */

/*
 * The order is the smallest whose block holds SLAB_MIN_OBJECTS objects (or,
 * for big objects, as many as the largest order holds), and so wastes
 * under 1/SLAB_MIN_OBJECTS of it.  A bigger order only wastes memory and
 * drains the higher free lists: nothing else would notice.
 */
static void slab_order_is_the_smallest_that_holds_enough(struct kunit *test)
{
	static const unsigned int sizes[] = {
		8, 16, 96, 192, 500, 512, 600, 1000, 1024, 1100, 2048, 2100,
		3000, 4096, 5000, 8192, 10000, 16384, 20000,
	};
	unsigned long before = geometry_free_pages(), bytes, waste;
	unsigned int i, want;
	struct kmem_cache *s;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		s = kmem_cache_create("test_order", sizes[i], 0, 0, NULL);
		KUNIT_ASSERT_NOT_NULL(test, s);
		bytes = PAGE_SIZE << s->order;
		waste = bytes - (unsigned long)s->objects * s->size;
		want = min((unsigned int)((PAGE_SIZE << SLAB_MAX_ORDER) /
					  s->size),
			   (unsigned int)SLAB_MIN_OBJECTS);
		KUNIT_EXPECT_LE(test, s->order, SLAB_MAX_ORDER);
		KUNIT_EXPECT_GE(test, s->objects, want);
		if (s->order)
			KUNIT_EXPECT_LT(test, (PAGE_SIZE << (s->order - 1)) /
					s->size, want);
		if (want == SLAB_MIN_OBJECTS)
			KUNIT_EXPECT_LT(test, waste * SLAB_MIN_OBJECTS, bytes);
		if (test->status == KUNIT_FAILURE)
			kunit_info(test, "size %u (stride %u): order %u, %lu objects",
				   sizes[i], s->size, s->order, s->objects);
		KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	}
	KUNIT_EXPECT_EQ(test, geometry_free_pages(), before);
}

/*
 * A size no slab can hold is refused, up to UINT_MAX and with every debug
 * flag.  The layout adds red zone, free pointer, tracks and the kmalloc
 * size to the object size in unsigned int: near UINT_MAX the sum wraps to
 * a small stride (a cache whose objects overlap, each reaching gigabytes
 * past its slab) or to 0 (a division by zero in kmem_cache_create()).
 */
static void sizes_past_the_largest_slab_are_refused(struct kunit *test)
{
	static const unsigned int sizes[] = {
		(PAGE_SIZE << SLAB_MAX_ORDER) + 1, ~0u / 2,
		~0u - 31, ~0u - 15, ~0u - 7, ~0u,   /* ~0u: UINT_MAX */
	};
	static const slab_flags_t flags[] = {
		0, SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER,
		SLAB_DEBUG_FLAGS | SLAB_KMALLOC,
	};
	unsigned long before = geometry_free_pages();
	struct kmem_cache *s;
	unsigned int i, f;

	kunit_info(test, "the %u refusals below are expected",
		   (unsigned int)(ARRAY_SIZE(flags) * ARRAY_SIZE(sizes)));
	for (f = 0; f < ARRAY_SIZE(flags); f++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			s = kmem_cache_create("test_too_big", sizes[i], 0,
					      flags[f], NULL);
			KUNIT_EXPECT_NULL(test, s);
			/* Never used or destroyed: its objects overlap. */
			if (s)
				kunit_info(test, "size %u flags %#x: a cache of stride %u",
					   sizes[i], flags[f], s->size);
		}
	}
	KUNIT_EXPECT_EQ(test, geometry_free_pages(), before);
}

/* ---- kmalloc sizes that leave a tail in their class ---- */

static void *kmalloc_of(void *arg)
{
	return kmalloc((size_t)(unsigned long)arg, GFP_KERNEL);
}

/* Every other object goes back through kfree_nolock(), the rest kfree(). */
static void kfree_either(void *arg, void *p)
{
	static unsigned int turn;

	(void)arg;
	if (turn++ & 1)
		kfree_nolock(p);
	else
		kfree(p);
}

static const unsigned int tail_sizes[] = { 1, 7, 9, 20, 33, 100, 200, 1000,
					   3000 };

static void kmalloc_tails_hold_what_was_asked(struct kunit *test)
{
	unsigned long before = geometry_free_pages(), reports = slab_reports;
	unsigned int i, n = 40;
	void **obj = kmalloc(n * sizeof(*obj), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, obj);
	for (i = 0; i < ARRAY_SIZE(tail_sizes); i++) {
		unsigned long size = tail_sizes[i];

		neighbours_keep_their_bytes(test, obj, n, size, kmalloc_of,
					    (void *)size, kfree_either);
	}
	kfree(obj);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, geometry_free_pages(), before);
}

/* Where the kmalloc class red-zones (slub_debug=Z...), one byte past the
 * size asked for is reported at the free; elsewhere it is just unused. */
static void kmalloc_tail_overrun_is_reported(struct kunit *test)
{
	unsigned long before = geometry_free_pages();
	unsigned int i, checked = 0;

	for (i = 0; i < ARRAY_SIZE(tail_sizes); i++) {
		unsigned int size = tail_sizes[i];
		unsigned long reports = slab_reports;
		u8 *p = kmalloc(size, GFP_KERNEL);
		struct kmem_cache *s;

		KUNIT_ASSERT_NOT_NULL(test, p);
		s = virt_to_slab(p)->slab_cache;
		memset(p, 1, size);
		if (!(s->flags & SLAB_RED_ZONE)) {
			kfree(p);
			continue;
		}
		kasan_unchecked_fill(&p[size], 1, 1);   /* past the ask */
		KUNIT_EXPECT_REPORT(test, "Redzone overwritten", kfree(p));
		KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
		checked++;
	}
	if (!checked)
		kunit_skip(test, "no kmalloc class has a red zone (slub_debug=Z is off)");
	KUNIT_EXPECT_EQ(test, geometry_free_pages(), before);
}

static struct kunit_case geometry_cases[] = {
	KUNIT_CASE(objects_below_eight_bytes),
	KUNIT_CASE(debug_records_have_bytes_of_their_own),
	KUNIT_CASE(slab_order_is_the_smallest_that_holds_enough),
	KUNIT_CASE(sizes_past_the_largest_slab_are_refused),
	KUNIT_CASE(kmalloc_tails_hold_what_was_asked),
	KUNIT_CASE(kmalloc_tail_overrun_is_reported),
	{}
};

static struct kunit_suite slab_geometry_suite = {
	.name = "slab_geometry",
	.suite_init = geometry_suite_init,
	.suite_exit = geometry_suite_exit,
	.init = geometry_init,
	.exit = geometry_exit,
	.test_cases = geometry_cases,
};
kunit_test_suite(slab_geometry_suite);
