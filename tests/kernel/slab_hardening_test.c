/*
 * slab_hardening_test.c - the slab allocator's defences, each against the
 * bug a review found in it (issue 10, defects 2 and 5 to 9):
 *
 *   - the free pointer of a debug kmalloc cache, and of a red-zoned object
 *     under a word, lies outside the object, so neither a deferred free nor
 *     the first allocation trips the red zone;
 *   - a double free that meets the deferred list is refused at once, in
 *     either order, on every kind of cache, with one report and the parked
 *     count exact;
 *   - a corrupted deferred-list link is reported, never followed;
 *   - one freed object does not show the high bits of the cache's secret;
 *   - free(a); free(a) on a plain cache is refused (a would be its own
 *     successor and be handed out twice);
 *   - krealloc(__GFP_ZERO) zeroes in place and never copies red zone;
 *   - SLAB_STORE_USER records of a fresh slab are empty;
 *   - kfree(p + 8) is refused even on the sheaf fast path;
 *   - the detectors beyond their easiest case (found by the mutation run,
 *     scripts/mutate.py): a double free of an object behind the freelist
 *     head on each debug cache (also after a stray write over its free
 *     pointer, which only the freelist walk of F survives), and a free of
 *     the address one past a slab's last object.
 *
 * Every case works on caches of its own (or on kmalloc objects it frees
 * itself) and gives back what it took, so it passes under any slub_debug=
 * on the command line: a flag the boot adds only makes the caches check
 * more.  A deferred free is provoked without an NMI: with IRQs off and the
 * cache's list_lock held, kfree_nolock() finds the lock taken (a trylock
 * by this very CPU) and parks the object; the drain runs once IRQs are on
 * (the kernel's irq_work) or when slab_deferred_flush_all() is called.
 *
 * Cases that provoke a report declare it (KUNIT_EXPECT_REPORT() with a
 * substring of its first line, "BUG <cache>: ..."), set
 * slab_report_count_only so that it does not panic, and check that
 * slab_reports rose by exactly the reports expected.  The same file runs on the host
 * (tests/host/test_mm_slab_hardening.c) under ASan and UBSan.
 */
#include <kasan.h>
#include <kunit.h>
#include <irqflags.h>
#include <kernel.h>
#include <mm.h>
#include <mmzone.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "../../mm/slab_internal.h"

#ifdef HOST_TEST
int slab_test_env_init(void);
void slab_test_env_exit(void);
#else
static int slab_test_env_init(void) { return 0; }
static void slab_test_env_exit(void) { }
#endif

static int hardening_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void hardening_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static void hardening_case_exit(struct kunit *test)
{
	(void)test;
	slab_report_count_only = false;
}

/* Everything parked or cached given back; the free page count. */
static unsigned long quiesced_pages(void)
{
	kmem_cache_shrink_all();
	drain_all_pages();
	return nr_free_pages();
}

static unsigned long parked_here(void)
{
	return slab_deferred_frees(smp_processor_id());
}

/* A cache with no sheaves, so every free reaches its slab. */
static struct kmem_cache *plain_cache(const char *name, unsigned int size,
				      slab_flags_t flags)
{
	struct kmem_cache_args args = { .sheaf_capacity = 0 };

	return kmem_cache_create_args(name, size, &args, flags);
}

/*
 * Park objs[0..nr) on this CPU's deferred list: IRQs off, s's list_lock
 * held, so kfree_nolock() can only defer.  IRQs stay off on return (the
 * kernel's irq_work would drain at once otherwise): *irq is for
 * local_irq_restore().
 */
static void park_objects(struct kmem_cache *s, void **objs, unsigned int nr,
			 unsigned long *irq)
{
	struct kmem_cache_node *n = get_node(s, 0);
	unsigned int i;

	*irq = local_irq_save();
	spin_lock(&n->list_lock);
	for (i = 0; i < nr; i++)
		kfree_nolock(objs[i]);
	spin_unlock(&n->list_lock);
}

/* IRQs back on, and every deferred list drained. */
static void unpark_all(unsigned long irq)
{
	local_irq_restore(irq);
	slab_deferred_flush_all();
}

/* ===================================================================== */
/* Defect 2: the free pointer never overlaps a red zone                  */
/* ===================================================================== */

#define KMALLOC_ASKED 20   /* kmalloc(20) from a 64-byte class */

static void kmalloc_red_zone_survives_deferred_free(struct kunit *test)
{
	unsigned long before = quiesced_pages(), reports = slab_reports, irq;
	struct kmem_cache *s;
	void *a;

	s = plain_cache("test_kmalloc_rz", 64, SLAB_KMALLOC | SLAB_RED_ZONE);
	KUNIT_ASSERT_NOT_NULL(test, s);
	/* The free pointer sits past the object and its red zone. */
	KUNIT_EXPECT_GE(test, s->offset, s->inuse + (unsigned int)sizeof(void *));
	a = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	slab_kmalloc_set_size(s, a, KMALLOC_ASKED);   /* what kmalloc() does */
	memset(a, 0x5a, KMALLOC_ASKED);

	slab_report_count_only = true;
	park_objects(s, &a, 1, &irq);
	KUNIT_EXPECT_EQ(test, parked_here(), 1);
	unpark_all(irq);
	KUNIT_EXPECT_EQ(test, parked_here(), 0);
	/* The deferred free passed every check of the kmalloc red zone. */
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	slab_report_count_only = false;
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

#define TINY_SIZE 4        /* under a word */

static void tiny_object_red_zone_is_its_own(struct kunit *test)
{
	unsigned long before = quiesced_pages(), reports = slab_reports;
	struct kmem_cache *s;
	u8 *a, *b;

	s = kmem_cache_create("test_tiny_rz", TINY_SIZE, 0, SLAB_RED_ZONE,
			      NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	slab_report_count_only = true;
	/* The first allocation finds the red zone untouched... */
	a = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	memset(a, 0x11, TINY_SIZE);
	kmem_cache_free(s, a);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	/* ...and still guards the object: one byte past it is reported. */
	kasan_unchecked_fill(&b[TINY_SIZE], 0x11, 1);
	KUNIT_EXPECT_REPORT(test, "Redzone overwritten", kmem_cache_free(s, b));
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	slab_report_count_only = false;
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

/* ===================================================================== */
/* Defect 5: a double free that meets the deferred list                  */
/* ===================================================================== */

/* The kinds of cache a double free must be caught on. */
static const slab_flags_t double_free_flags[] = {
	0,                          /* no debugging at all */
	SLAB_CONSISTENCY_CHECKS,    /* F: the freelist is searched */
	SLAB_RED_ZONE,              /* Z: the red zone tells free from not */
	SLAB_POISON | SLAB_STORE_USER,
};

/* Up to max objects of s (never more than one slab holds); how many. */
static unsigned int fill_slab(struct kmem_cache *s, void **objs,
			      unsigned int max)
{
	unsigned int i, nr = min(max, s->objects);

	for (i = 0; i < nr; i++) {
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		if (!objs[i])
			break;
	}
	return i;
}

#define DF_OBJECTS 4

/* park(a), free(a): the second free is refused, the drain frees a once
 * and the object parked behind it (`other`) too. */
static void park_then_free_once(struct kunit *test, slab_flags_t flags)
{
	unsigned long before = quiesced_pages(), reports = slab_reports, irq;
	void *objs[DF_OBJECTS], *park[2];
	struct kmem_cache *s;
	unsigned int i, nr;

	s = plain_cache("test_df_parked", 64, flags);
	KUNIT_ASSERT_NOT_NULL(test, s);
	nr = fill_slab(s, objs, DF_OBJECTS);
	KUNIT_ASSERT_EQ(test, nr, DF_OBJECTS);
	park[0] = objs[1];          /* other: parked first, behind a */
	park[1] = objs[0];          /* a */

	slab_report_count_only = true;
	park_objects(s, park, 2, &irq);
	KUNIT_EXPECT_EQ(test, parked_here(), 2);
	/* IRQs still off: a is parked */
	KUNIT_EXPECT_REPORT(test, "double free: the object is parked",
			    kmem_cache_free(s, objs[0]));
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	unpark_all(irq);
	KUNIT_EXPECT_EQ(test, parked_here(), 0);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	slab_report_count_only = false;

	/* Both parked objects are free exactly once: the slab has every
	 * object but the two still held, and hands out no duplicate. */
	objs[0] = kmem_cache_alloc(s, GFP_KERNEL);
	objs[1] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_EXPECT_PTR_NE(test, objs[0], objs[1]);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_slabs, 1);
	for (i = 0; i < nr; i++)
		kmem_cache_free(s, objs[i]);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

static void double_free_of_a_parked_object(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(double_free_flags); i++)
		park_then_free_once(test, double_free_flags[i]);
}

/* free(a), park(a): the park is refused (it would rewrite a's freelist
 * link), and the slab's freelist stays whole. */
static void free_then_park_once(struct kunit *test, slab_flags_t flags)
{
	unsigned long before = quiesced_pages(), reports = slab_reports, irq;
	struct kmem_cache *s;
	void *a, *b;

	s = plain_cache("test_df_free", 64, flags);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	kmem_cache_free(s, b);
	kmem_cache_free(s, a);           /* freelist: a -> b -> the rest */

	slab_report_count_only = true;
	kunit_expect_report(test, "double free");
	park_objects(s, &a, 1, &irq);
	unpark_all(irq);
	kunit_expect_report_done(test);
	KUNIT_EXPECT_EQ(test, parked_here(), 0);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	slab_report_count_only = false;
	/* The freelist still reads a, b, then a third object. */
	KUNIT_EXPECT_PTR_EQ(test, kmem_cache_alloc(s, GFP_KERNEL), a);
	KUNIT_EXPECT_PTR_EQ(test, kmem_cache_alloc(s, GFP_KERNEL), b);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

static void park_of_a_free_object(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(double_free_flags); i++)
		free_then_park_once(test, double_free_flags[i]);
}

/* park(a), park(a): a would be its own successor on the deferred list,
 * and the drain would free it for ever. */
static void object_parked_twice(struct kunit *test)
{
	unsigned long before = quiesced_pages(), reports = slab_reports, irq;
	struct kmem_cache *s;
	void *twice[2];

	s = plain_cache("test_df_twice", 64, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	twice[0] = twice[1] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, twice[0]);
	slab_report_count_only = true;
	kunit_expect_report(test, "double free: the object is parked");
	park_objects(s, twice, 2, &irq);
	KUNIT_EXPECT_EQ(test, parked_here(), 1);
	unpark_all(irq);
	kunit_expect_report_done(test);
	KUNIT_EXPECT_EQ(test, parked_here(), 0);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	slab_report_count_only = false;
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

/* ===================================================================== */
/* Defect 6: a deferred-list link is validated before it is followed     */
/* ===================================================================== */

static void corrupted_deferred_link_is_reported(struct kunit *test)
{
	unsigned long before = quiesced_pages(), reports = slab_reports, irq;
	struct kmem_cache *s;
	void *objs[3], **slot;

	s = plain_cache("test_defer_link", 64, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_EQ(test, fill_slab(s, objs, 3), 3);
	slab_report_count_only = true;
	park_objects(s, objs, 2, &irq);   /* list: objs[1] -> objs[0] */
	/* A stray write of a plausible pointer into the last parked object,
	 * whose link should decode to NULL (so nothing is lost behind it). */
	slot = (void **)((char *)objs[0] + s->offset);
	kasan_unchecked_store_ptr(slot, objs[2]);
	KUNIT_EXPECT_REPORT(test, "deferred-free link corrupted",
			    unpark_all(irq));
	KUNIT_EXPECT_EQ(test, parked_here(), 0);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	slab_report_count_only = false;
	/* objs[2] was not freed by the wild link: freeing it works. */
	kmem_cache_free(s, objs[2]);
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

/* ===================================================================== */
/* Defect 7: one freed object does not reveal the secret                 */
/* ===================================================================== */

#define HIGH_BITS_SHIFT 48

static void freed_object_hides_secret(struct kunit *test)
{
	unsigned long before = quiesced_pages(), stored;
	struct kmem_cache *s;
	void *a, *b, **slot;

	s = plain_cache("test_secret", 64, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	kmem_cache_free(s, a);           /* a's link: the next free object,
					  * in the same slab as a */
	slot = (void **)((char *)a + s->offset);
	stored = (unsigned long)kasan_unchecked_load_ptr(slot);
	/* next ^ slot has no high bits: without the byte swap the stored
	 * word would show random's high bits as they are. */
	KUNIT_EXPECT_NE(test, stored >> HIGH_BITS_SHIFT,
			s->random >> HIGH_BITS_SHIFT);
	/* And it still decodes to an object of the slab. */
	KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(freeptr_decode(s, stored, slot)),
			virt_to_slab(a));
	KUNIT_EXPECT_PTR_EQ(test, kmem_cache_alloc(s, GFP_KERNEL), a);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

/* ===================================================================== */
/* Defect 8: free(a); free(a) on a cache with no sheaves, no debugging   */
/* ===================================================================== */

static void double_free_of_freelist_head(struct kunit *test)
{
	unsigned long before = quiesced_pages(), reports = slab_reports;
	struct kmem_cache *s;
	void *a, *x, *y;

	s = plain_cache("test_df_head", 64, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	slab_report_count_only = true;
	kmem_cache_free(s, a);
	KUNIT_EXPECT_REPORT(test, "double free", kmem_cache_free(s, a));
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	slab_report_count_only = false;
	x = kmem_cache_alloc(s, GFP_KERNEL);
	y = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, x, a);
	KUNIT_EXPECT_PTR_NE(test, y, a);   /* not handed out twice */
	kmem_cache_free(s, x);
	kmem_cache_free(s, y);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

/* ===================================================================== */
/* Defect 9: krealloc(__GFP_ZERO), and empty SLAB_STORE_USER records     */
/* ===================================================================== */

#define KR_FIRST   20      /* kzalloc(20): class 32 */
#define KR_SHRINK  10      /* in place */
#define KR_GROW    30      /* in place again (class 32) */
#define KR_MOVE    100     /* moves to class 128 */

/* First byte of p[from, to) that is not zero, or -1. */
static long first_nonzero(const u8 *p, size_t from, size_t to)
{
	size_t i;

	for (i = from; i < to; i++)
		if (p[i])
			return (long)i;
	return -1;
}

static void krealloc_zeroes_what_it_exposes(struct kunit *test)
{
	u8 *p, *q;

	p = kzalloc(KR_FIRST, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	memset(p, 0x5a, KR_FIRST);
	/* Shrink, then grow, in place: the bytes between read zero. */
	q = krealloc(p, KR_SHRINK, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	q = krealloc(q, KR_GROW, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_PTR_EQ(test, q, p);
	KUNIT_EXPECT_EQ(test, q[KR_SHRINK - 1], 0x5a);
	KUNIT_EXPECT_EQ(test, first_nonzero(q, KR_SHRINK, KR_GROW), -1);
	/* Moved: what was never the caller's (a red zone) is not copied. */
	p = krealloc(q, KR_MOVE, GFP_KERNEL | __GFP_ZERO);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, p[KR_SHRINK - 1], 0x5a);
	KUNIT_EXPECT_EQ(test, first_nonzero(p, KR_SHRINK, KR_MOVE), -1);
	kfree(p);
}

static void fresh_slab_has_no_stale_tracks(struct kunit *test)
{
	unsigned long before = quiesced_pages();
	struct slab_track t[2];
	struct kmem_cache *s;
	struct page *junk;
	void *a;

	s = plain_cache("test_fresh_tracks", 64, SLAB_STORE_USER);
	KUNIT_ASSERT_NOT_NULL(test, s);
	/* Leave junk where the slab will most likely be made (the per-CPU
	 * page list gives back the block just freed). */
	junk = alloc_pages(GFP_KERNEL, s->order);
	KUNIT_ASSERT_NOT_NULL(test, junk);
	memset(page_address(junk), 0xa5, PAGE_SIZE << s->order);
	__free_pages(junk, s->order);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	/* Metadata: no caller owns it, so it is read unchecked. */
	kasan_unchecked_read(t, slab_object_tracks(s, a), sizeof(t));
	KUNIT_EXPECT_EQ(test, t[0].valid, 1);   /* just allocated */
	KUNIT_EXPECT_EQ(test, t[1].valid, 0);   /* never freed */
	kmem_cache_free(s, a);
	kasan_unchecked_read(t, slab_object_tracks(s, a), sizeof(t));
	KUNIT_EXPECT_EQ(test, t[1].valid, 1);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

/* ===================================================================== */
/* kfree() of a pointer inside an object                                 */
/* ===================================================================== */

#define INSIDE_OFFSET 8

static void kfree_inside_object_is_refused(struct kunit *test)
{
	unsigned long reports = slab_reports;
	char *p, *q;

	p = kmalloc(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	slab_report_count_only = true;
	KUNIT_EXPECT_REPORT(test, "not the start of an object",
			    kfree(p + INSIDE_OFFSET));
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	slab_report_count_only = false;
	q = kmalloc(64, GFP_KERNEL);
	KUNIT_EXPECT_PTR_NE(test, q, p + INSIDE_OFFSET);
	kfree(q);
	kfree(p);
}

/* ===================================================================== */
/* Detectors beyond their easiest case                                   */
/* ===================================================================== */

/* free(a), free(b), free(a) on a debug cache: a is behind the freelist
 * head now, and must still be found (F searches the whole freelist, Z
 * reads a's red zone).  A cache without debugging checks only the head,
 * as Linux does, and is not asked to. */
static void double_free_behind_the_head_once(struct kunit *test,
					     slab_flags_t flags)
{
	unsigned long before = quiesced_pages(), reports = slab_reports;
	struct kmem_cache *s;
	void *a, *b, *x[3];
	unsigned int i, seen_a = 0;

	s = plain_cache("test_df_behind", 64, flags);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);             /* freelist: b -> a -> ... */
	slab_report_count_only = true;
	KUNIT_EXPECT_REPORT(test, "double free", kmem_cache_free(s, a));
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	slab_report_count_only = false;
	for (i = 0; i < ARRAY_SIZE(x); i++) {
		x[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, x[i]);
		seen_a += x[i] == a;
	}
	KUNIT_EXPECT_EQ(test, seen_a, 1);  /* never handed out twice */
	for (i = 0; i < ARRAY_SIZE(x); i++)
		kmem_cache_free(s, x[i]);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

static void double_free_behind_the_head(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(double_free_flags); i++)
		if (double_free_flags[i] & SLAB_DEBUG_FLAGS)
			double_free_behind_the_head_once(test,
							 double_free_flags[i]);
}

#define STRAY_WORD 0x4242424242424242ul

/* free(a), free(b), a stray write over a's free pointer, free(a) on a
 * SLAB_CONSISTENCY_CHECKS cache: a's own slot no longer says "free", so
 * only the walk of the whole freelist finds it (behind b). */
static void double_free_after_a_stray_write(struct kunit *test)
{
	unsigned long before = quiesced_pages(), reports = slab_reports;
	struct kmem_cache *s;
	void *a, *b, **slot, *saved;

	s = plain_cache("test_df_stray", 64, SLAB_CONSISTENCY_CHECKS);
	KUNIT_ASSERT_NOT_NULL(test, s);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	b = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);             /* freelist: b -> a -> ... */
	slot = (void **)((char *)a + s->offset);
	saved = kasan_unchecked_load_ptr(slot);
	/* decodes to no object */
	kasan_unchecked_store_ptr(slot, (void *)STRAY_WORD);
	slab_report_count_only = true;
	KUNIT_EXPECT_REPORT(test, "double free", kmem_cache_free(s, a));
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	slab_report_count_only = false;
	/* mend, so the freelist is whole */
	kasan_unchecked_store_ptr(slot, saved);
	KUNIT_EXPECT_PTR_EQ(test, kmem_cache_alloc(s, GFP_KERNEL), b);
	KUNIT_EXPECT_PTR_EQ(test, kmem_cache_alloc(s, GFP_KERNEL), a);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

/* Objects of TAIL_SIZE bytes leave a tail in a page (4096 = 42 * 96 + 64),
 * so the first byte after the last object is still inside the slab. */
#define TAIL_SIZE 96

/* kmem_cache_free() of the address one past the slab's last object: no
 * object starts there, and it must be refused on every kind of cache. */
static void free_of_the_slab_tail_is_refused(struct kunit *test)
{
	unsigned long before = quiesced_pages(), reports;
	unsigned int i, tails = 0;
	struct kmem_cache *s;
	struct page *slab;
	char *a, *b, *tail, *end;

	for (i = 0; i < ARRAY_SIZE(double_free_flags); i++) {
		s = plain_cache("test_tail", TAIL_SIZE, double_free_flags[i]);
		KUNIT_ASSERT_NOT_NULL(test, s);
		a = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, a);
		slab = virt_to_slab(a);
		KUNIT_ASSERT_NOT_NULL(test, slab);
		tail = (char *)page_address(slab) +
		       (unsigned long)slab->objects * s->size;
		end = (char *)page_address(slab) + (PAGE_SIZE << s->order);
		if (tail < end) {      /* debug metadata may use the tail up */
			tails++;
			reports = slab_reports;
			slab_report_count_only = true;
			KUNIT_EXPECT_REPORT(test, "not the start of an object",
					    kmem_cache_free(s, tail));
			KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
			slab_report_count_only = false;
			b = kmem_cache_alloc(s, GFP_KERNEL);
			KUNIT_EXPECT_PTR_NE(test, b, tail);
			kmem_cache_free(s, b);
		}
		kmem_cache_free(s, a);
		KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	}
	KUNIT_EXPECT_GT(test, tails, 0);
	KUNIT_EXPECT_EQ(test, quiesced_pages(), before);
}

/* Bytes of the slab past its last object (the unused tail). */
static unsigned long slab_tail_bytes(const struct kmem_cache *s)
{
	return (PAGE_SIZE << s->order) - (unsigned long)s->objects * s->size;
}

/*
 * The same through the sheaf fast paths (found by an outside review):
 * the tail starts at objects * size, a multiple of the stride, so a
 * check of divisibility alone let kfree() of it into the sheaf, and the
 * next kmalloc(96) handed out an "object" overhanging the slab.
 */
static void kfree_of_the_slab_tail_is_refused(struct kunit *test)
{
	static const unsigned int sizes[] = { 96, 192 };
	unsigned long reports;
	struct kmem_cache *s;
	unsigned int i;
	char *a, *b, *tail;

	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		s = kmalloc_slab(sizes[i]);
		KUNIT_ASSERT_NOT_NULL(test, s);
		if (!slab_tail_bytes(s))
			continue;      /* this geometry (slub_debug=) has none */
		a = kmalloc(sizes[i], GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, a);
		tail = (char *)page_address(virt_to_slab(a)) +
		       (unsigned long)s->objects * s->size;
		reports = slab_reports;
		slab_report_count_only = true;
		KUNIT_EXPECT_REPORT(test, "not the start of an object",
				    kfree(tail));
		KUNIT_EXPECT_REPORT(test, "not the start of an object",
				    kfree_nolock(tail));
		slab_report_count_only = false;
		KUNIT_EXPECT_EQ(test, slab_reports, reports + 2);
		b = kmalloc(sizes[i], GFP_KERNEL);
		KUNIT_EXPECT_PTR_NE(test, b, tail);
		if (b != tail)
			kfree(b);
		kfree(a);
	}
}

/*
 * kmalloc_nolock() keeps the size asked, as kmalloc() does: on a debug
 * kmalloc cache (slub_debug=Z) a write past it, inside the class, is a
 * kmalloc red-zone report at the free, and krealloc() copies only the
 * bytes asked for.  Skipped where the kmalloc caches keep no size.
 */
static void kmalloc_nolock_keeps_the_size_asked(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_slab(KMALLOC_ASKED);
	unsigned long reports = slab_reports;
	u8 *p;

	if (!s->orig_size_offset)
		kunit_skip(test, "the kmalloc caches keep no size (slub_debug=Z does)");
	p = kmalloc_nolock(KMALLOC_ASKED, 0, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, slab_kmalloc_orig_size(s, p), KMALLOC_ASKED);
	kasan_unchecked_fill(&p[KMALLOC_ASKED], 0x11, 1);
	slab_report_count_only = true;
	KUNIT_EXPECT_REPORT(test, "kmalloc Redzone overwritten", kfree_nolock(p));
	slab_report_count_only = false;
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
}

/*
 * kmalloc() keeps the size asked on a debug kmalloc cache both ways it
 * goes: with the size a constant (the class chosen at the call site,
 * __kmalloc_cache()) and with a size the compiler cannot see
 * (__kmalloc()).  Skipped where the kmalloc caches keep no size.
 */
static void kmalloc_keeps_the_size_asked(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_slab(KMALLOC_ASKED);
	volatile size_t asked = KMALLOC_ASKED;
	u8 *constant, *variable;

	if (!s->orig_size_offset)
		kunit_skip(test, "the kmalloc caches keep no size (slub_debug=Z does)");
	constant = kmalloc(KMALLOC_ASKED, GFP_KERNEL);
	variable = kmalloc(asked, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, constant);
	KUNIT_ASSERT_NOT_NULL(test, variable);
	KUNIT_EXPECT_EQ(test, slab_kmalloc_orig_size(s, constant),
			KMALLOC_ASKED);
	KUNIT_EXPECT_EQ(test, slab_kmalloc_orig_size(s, variable),
			KMALLOC_ASKED);
	kfree(constant);
	kfree(variable);
}

static struct kunit_case slab_hardening_cases[] = {
	KUNIT_CASE(kmalloc_red_zone_survives_deferred_free),
	KUNIT_CASE(tiny_object_red_zone_is_its_own),
	KUNIT_CASE(double_free_of_a_parked_object),
	KUNIT_CASE(park_of_a_free_object),
	KUNIT_CASE(object_parked_twice),
	KUNIT_CASE(corrupted_deferred_link_is_reported),
	KUNIT_CASE(freed_object_hides_secret),
	KUNIT_CASE(double_free_of_freelist_head),
	KUNIT_CASE(krealloc_zeroes_what_it_exposes),
	KUNIT_CASE(fresh_slab_has_no_stale_tracks),
	KUNIT_CASE(kfree_inside_object_is_refused),
	KUNIT_CASE(double_free_behind_the_head),
	KUNIT_CASE(double_free_after_a_stray_write),
	KUNIT_CASE(free_of_the_slab_tail_is_refused),
	KUNIT_CASE(kfree_of_the_slab_tail_is_refused),
	KUNIT_CASE(kmalloc_nolock_keeps_the_size_asked),
	KUNIT_CASE(kmalloc_keeps_the_size_asked),
	{}
};

static struct kunit_suite slab_hardening_suite = {
	.name = "slab_hardening",
	.suite_init = hardening_suite_init,
	.suite_exit = hardening_suite_exit,
	.exit = hardening_case_exit,
	.test_cases = slab_hardening_cases,
};
kunit_test_suite(slab_hardening_suite);
