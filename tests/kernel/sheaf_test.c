/*
 * sheaf_test.c - the rules of mm/sheaf.c that a review found broken:
 * the bootstrap sheaf must stay an empty placeholder, a flush must empty
 * every CPU even when it lands inside a fast path, and kmalloc_nolock()
 * must not use a kmalloc cache before kmalloc_init() has made it.
 *
 * Suite sheaf_bootstrap.  Before a CPU first uses a cache (and after a
 * shrink) its main sheaf is &bootstrap_sheaf, one global sheaf of capacity
 * 0 shared by every cache and every CPU.  If it ever became a spare, went
 * into a barn or was handed out by kmem_cache_prefill_sheaf(), the next
 * free into it would write past the 32-byte global, and every CPU whose
 * main is the placeholder would then pop that object, whatever its cache.
 * The cases walk each road that led there (a sheaf returned to a CPU
 * without sheaves, the bulk paths, a prefill of 0, and an IRQ freeing
 * while the sheaf lock is dropped for a refill) and check after every step
 * that the placeholder is still only a main, still empty, with no spare
 * beside it, and in no barn; then they plant the forbidden states by hand
 * and expect the checks in sheaf.c to warn and to keep it safe.  The same
 * goes for a sheaf of another capacity than the cache's: it may be a
 * prefilled sheaf, never a spare.
 *
 * Suite sheaf_flush.  The inline fast paths hold the sheaf lock flag with
 * IRQs on, so the flush IPI of kmem_cache_shrink() can land inside one.
 * A CPU is made to hold its flag exactly as a fast path would (on the host
 * by taking it, in the kernel by a CPU that really holds it with IRQs on
 * while the shrink runs); the shrink must still empty that CPU, without a
 * warning.  In the kernel a second case shrinks a cache over and over while
 * up to three other CPUs allocate from it as fast as they can, until the
 * flush IPIs have landed inside their fast paths a few times.
 *
 * Suite slab_boot (host only: the kernel boots once).  An NMI calls
 * kmalloc_nolock() between kmem_cache_init() marking the slab layer up and
 * kmalloc_init() creating the kmalloc caches; it must get NULL.
 *
 * The same file runs on the host (tests/host/test_mm_sheaf.c).  Every
 * wait is for an event, with a generous deadline in case it never comes.
 */
#include <kunit.h>
#include <kernel.h>
#include <mm.h>
#include <mm_check.h>
#include <nolock_stats.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include <cpu_work.h>
#include "../../mm/slab_internal.h"

#ifdef HOST_TEST
int slab_test_env_init(void);
void slab_test_env_exit(void);
#else
#include "../../kernel/timekeeping.h"
static int slab_test_env_init(void) { return 0; }
static void slab_test_env_exit(void) { }
#endif

#define CAP 4   /* sheaf capacity of the private caches: exact counts */

static int sheaf_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void sheaf_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static void sheaf_case_exit(struct kunit *test)
{
	(void)test;
	mm_point_hook = NULL;
}

static unsigned long quiesced_free_pages(void)
{
	kmem_cache_shrink_all();
	drain_all_pages();
	return nr_free_pages();
}

static struct kmem_cache *private_cache(struct kunit *test, const char *name)
{
	struct kmem_cache_args args = { .sheaf_capacity = CAP };
	struct kmem_cache *s = kmem_cache_create_args(name, 64, &args,
						      SLAB_TEST_SHEAF_CAPACITY);

	KUNIT_ASSERT_NOT_NULL(test, s);
	if (s->flags & SLAB_DEBUG_FLAGS) {
		kmem_cache_destroy(s);
		kunit_skip(test, "slub_debug= is on: caches have no sheaves");
	}
	KUNIT_ASSERT_EQ(test, s->sheaf_capacity, CAP);
	return s;
}

static struct slub_percpu_sheaves *my_pcs(struct kmem_cache *s)
{
	return &s->cpu_sheaves[smp_processor_id()];
}

static bool in_barn_list(const struct list_head *list,
			 const struct slab_sheaf *sheaf)
{
	const struct slab_sheaf *sh;
	unsigned int n = 0;

	list_for_each_entry(sh, list, barn_list) {
		if (sh == sheaf)
			return true;
		if (++n > 4 * (BARN_MAX_FULL + BARN_MAX_EMPTY))
			return false;   /* a loop: the checker reports it */
	}
	return false;
}

/*
 * The placeholder rules (mm/slab_internal.h), for one cache: on every CPU
 * the spare is never &bootstrap_sheaf and, while main is, there is no
 * spare; the bootstrap sheaf is empty and in neither barn list; and the
 * invariant checker (mm/mm_check.c) finds nothing else wrong.  Returns the
 * number of rules broken, each named in the log.
 */
static unsigned int placeholder_violations(struct kunit *test,
					   struct kmem_cache *s)
{
	struct node_barn *barn = &get_node(s, 0)->barn;
	unsigned int cpu, bad = 0;

	for_each_possible_cpu(cpu) {
		struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[cpu];

		if (pcs->spare == &bootstrap_sheaf) {
			kunit_info(test, "cpu%u: spare is the bootstrap sheaf", cpu);
			bad++;
		} else if (pcs->main == &bootstrap_sheaf && pcs->spare) {
			kunit_info(test, "cpu%u: a spare beside the bootstrap main", cpu);
			bad++;
		}
	}
	if (bootstrap_sheaf.size || bootstrap_sheaf.capacity) {
		kunit_info(test, "the bootstrap sheaf has size %u capacity %u",
			   bootstrap_sheaf.size, bootstrap_sheaf.capacity);
		bad++;
	}
	if (in_barn_list(&barn->sheaves_full, &bootstrap_sheaf) ||
	    in_barn_list(&barn->sheaves_empty, &bootstrap_sheaf)) {
		kunit_info(test, "the bootstrap sheaf is in the barn");
		bad++;
	}
	if (slab_cache_check(s))
		bad++;
	return bad;
}

#define EXPECT_PLACEHOLDER_OK(test, s) \
	KUNIT_EXPECT_EQ(test, placeholder_violations(test, s), 0)
#define ASSERT_PLACEHOLDER_OK(test, s) \
	KUNIT_ASSERT_EQ(test, placeholder_violations(test, s), 0)

/* Objects that the node's slabs count as in use. */
static unsigned long slab_inuse(struct kmem_cache *s)
{
	struct kmem_cache_node *n = get_node(s, 0);
	unsigned long inuse = 0;
	struct page *slab;

	list_for_each_entry(slab, &n->partial, lru)
		inuse += slab->inuse;
	list_for_each_entry(slab, &n->full, lru)
		inuse += slab->inuse;
	return inuse;
}

/* Objects in every CPU's sheaves of s and in its barn. */
static unsigned long objects_in_sheaves(struct kmem_cache *s)
{
	struct node_barn *barn = &get_node(s, 0)->barn;
	struct slab_sheaf *sh;
	unsigned long n = 0;
	unsigned int cpu;

	for_each_possible_cpu(cpu) {
		n += s->cpu_sheaves[cpu].main->size;
		if (s->cpu_sheaves[cpu].spare)
			n += s->cpu_sheaves[cpu].spare->size;
	}
	list_for_each_entry(sh, &barn->sheaves_full, barn_list)
		n += sh->size;
	return n;
}

/* Every object is the test's, in a sheaf (or a prefilled sheaf the test
 * holds), or free in its slab: none lost, none counted twice. */
#define EXPECT_OBJECTS(test, s, held) \
	KUNIT_EXPECT_EQ(test, slab_inuse(s), (held) + objects_in_sheaves(s))

/* ===================================================================== */
/* sheaf_bootstrap: the placeholder never escapes                        */
/* ===================================================================== */

/* A returned sheaf on a CPU whose main is the placeholder. */
static void return_sheaf_to_a_cpu_without_sheaves(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = private_cache(test, "test_ret_boot");
	struct slub_percpu_sheaves *pcs = my_pcs(s);
	struct slab_sheaf *sh;
	void *obj[CAP];
	unsigned int i;

	KUNIT_ASSERT_PTR_EQ(test, pcs->main, &bootstrap_sheaf);
	sh = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
	KUNIT_ASSERT_NOT_NULL(test, sh);
	obj[0] = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, sh);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	/* main is still the placeholder: the sheaf must not sit beside it. */
	kmem_cache_return_sheaf(s, GFP_KERNEL, sh);
	EXPECT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, 1);
	/* Before the fix this swapped main and spare: spare == placeholder. */
	for (i = 1; i < CAP; i++) {
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
		EXPECT_PLACEHOLDER_OK(test, s);
	}
	EXPECT_OBJECTS(test, s, CAP);
	for (i = 0; i < CAP; i++)
		kmem_cache_free(s, obj[i]);
	EXPECT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* kmem_cache_prefill_sheaf(s, gfp, 0): a real sheaf, never the placeholder. */
static void prefill_of_zero_is_a_real_sheaf(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = private_cache(test, "test_prefill0");
	struct slab_sheaf *sh, *zero;
	void *obj;

	/* On a CPU without sheaves. */
	zero = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, zero);
	KUNIT_EXPECT_PTR_NE(test, zero, &bootstrap_sheaf);
	KUNIT_EXPECT_EQ(test, zero->capacity, CAP);
	kmem_cache_return_sheaf(s, GFP_KERNEL, zero);
	EXPECT_PLACEHOLDER_OK(test, s);
	kmem_cache_shrink(s);

	/* After a sheaf was returned to it and used: before the fix the
	 * placeholder was the spare by now, and a prefill of 0 took it. */
	sh = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
	KUNIT_ASSERT_NOT_NULL(test, sh);
	kmem_cache_return_sheaf(s, GFP_KERNEL, sh);
	obj = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj);
	zero = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, zero);
	KUNIT_EXPECT_PTR_NE(test, zero, &bootstrap_sheaf);
	KUNIT_EXPECT_EQ(test, zero->capacity, CAP);
	EXPECT_PLACEHOLDER_OK(test, s);
	if (zero != &bootstrap_sheaf)
		kmem_cache_return_sheaf(s, GFP_KERNEL, zero);
	kmem_cache_free(s, obj);
	EXPECT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* The bulk paths on a CPU whose main is the placeholder. */
static void bulk_after_return_sheaf(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = private_cache(test, "test_bulk_boot");
	struct slab_sheaf *sh;
	void *obj[2 * CAP];
	unsigned int i;

	/* Free in bulk: the returned sheaf has room. */
	sh = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
	KUNIT_ASSERT_NOT_NULL(test, sh);
	for (i = 0; i < 2; i++)
		obj[i] = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, sh);
	kmem_cache_return_sheaf(s, GFP_KERNEL, sh);
	EXPECT_PLACEHOLDER_OK(test, s);
	kmem_cache_free_bulk(s, 2, obj);
	EXPECT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, 0);

	/* Allocate in bulk: the returned sheaf has objects. */
	kmem_cache_shrink(s);
	KUNIT_ASSERT_PTR_EQ(test, my_pcs(s)->main, &bootstrap_sheaf);
	sh = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
	KUNIT_ASSERT_NOT_NULL(test, sh);
	kmem_cache_return_sheaf(s, GFP_KERNEL, sh);
	EXPECT_PLACEHOLDER_OK(test, s);
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, 2 * CAP, obj),
			2 * CAP);
	EXPECT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, 2 * CAP);
	kmem_cache_free_bulk(s, 2 * CAP, obj);
	EXPECT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* An interrupt frees into main while the sheaf lock is dropped. */
static struct kmem_cache *irq_cache;
static void *irq_object;
static unsigned int irq_hits;

static void free_as_irq(enum mm_point where, void *arg)
{
	struct kmem_cache *s = arg;
	unsigned long flags;

	if (s != irq_cache || where != MM_POINT_SHEAF_REFILL_UNLOCKED || irq_hits)
		return;
	irq_hits++;
#ifdef HOST_TEST
	host_irq_nesting++;
#endif
	flags = local_irq_save();       /* as an interrupt handler runs */
	kmem_cache_free(s, irq_object);
	local_irq_restore(flags);
#ifdef HOST_TEST
	host_irq_nesting--;
#endif
}

/*
 * The whole escape of the review: a sheaf returned to a CPU without
 * sheaves, one alloc (which swapped the placeholder into spare), main
 * emptied, and an IRQ freeing into main while the next alloc refills
 * without the lock.  After relocking, main is no longer empty, so the
 * refill keeps the new sheaf as spare and put the old spare, the
 * placeholder, into the barn; the barn later handed it out as an empty
 * sheaf and a free wrote past the global.
 */
#define CYCLE_OBJS (16 * CAP)  /* enough to trade sheaves with the barn */

static void irq_free_during_refill_keeps_placeholder_out_of_barn(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = private_cache(test, "test_irq_refill");
	struct slab_sheaf *sh;
	void *obj[CYCLE_OBJS], *x;
	unsigned int i, n = 0;

	sh = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
	KUNIT_ASSERT_NOT_NULL(test, sh);
	kmem_cache_return_sheaf(s, GFP_KERNEL, sh);
	/* Empty every sheaf this CPU has (main, and spare if any). */
	while (my_pcs(s)->main->size ||
	       (my_pcs(s)->spare && my_pcs(s)->spare->size)) {
		KUNIT_ASSERT_LT(test, n, 2 * CAP);
		obj[n] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj[n]);
		n++;
	}
	EXPECT_PLACEHOLDER_OK(test, s);
	KUNIT_ASSERT_NE(test, n, 0);
	/* The next alloc refills with the lock dropped; the "IRQ" frees
	 * obj[0] into the empty main meanwhile. */
	irq_cache = s;
	irq_object = obj[0];
	irq_hits = 0;
	mm_point_hook = free_as_irq;
	x = kmem_cache_alloc(s, GFP_KERNEL);
	mm_point_hook = NULL;
	KUNIT_EXPECT_EQ(test, irq_hits, 1);
	KUNIT_ASSERT_NOT_NULL(test, x);
	obj[0] = x;
	ASSERT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, n);
	/* Cycle everything through the sheaves and the barn, with kmalloc
	 * traffic on CPUs without sheaves in between: were the placeholder
	 * ever used as a sheaf, objects would cross caches here. */
	for (i = 0; i < n; i++)
		kmem_cache_free(s, obj[i]);
	for (i = 0; i < CYCLE_OBJS; i++) {
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
		KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(obj[i])->slab_cache, s);
	}
	EXPECT_PLACEHOLDER_OK(test, s);
	for (i = 0; i < CYCLE_OBJS; i++)
		kmem_cache_free(s, obj[i]);
	x = kmalloc(4000, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	KUNIT_EXPECT_GE(test, ksize(x), 4000);
	kfree(x);
	EXPECT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/*
 * The checks themselves: plant each forbidden state by hand (on this CPU,
 * in a private cache nobody else touches) and drive the path that would
 * spread it.  Each must warn and leave the placeholder where it belongs.
 */
static void placeholder_checks_fire(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = private_cache(test, "test_planted");
	struct slub_percpu_sheaves *pcs = my_pcs(s);
	struct slab_sheaf *zero;
	void *obj[2 * CAP], *x;
	unsigned int i;

	/* 1. Prefill of 0 finds the placeholder as spare. */
	obj[0] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	KUNIT_ASSERT_PTR_NE(test, pcs->main, &bootstrap_sheaf);
	KUNIT_ASSERT_NULL(test, pcs->spare);
	pcs->spare = &bootstrap_sheaf;
	kunit_expect_report(test, "bootstrap_sheaf");
	zero = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 0);
	kunit_expect_report_done(test);
	KUNIT_ASSERT_NOT_NULL(test, zero);
	KUNIT_EXPECT_PTR_NE(test, zero, &bootstrap_sheaf);
	KUNIT_EXPECT_PTR_NE(test, pcs->spare, &bootstrap_sheaf);
	if (pcs->spare == &bootstrap_sheaf)
		pcs->spare = NULL;
	if (zero != &bootstrap_sheaf)
		kmem_cache_return_sheaf(s, GFP_KERNEL, zero);
	kmem_cache_free(s, obj[0]);
	EXPECT_PLACEHOLDER_OK(test, s);

	/* 2. The refill re-check would put the placeholder spare in the barn. */
	kmem_cache_shrink(s);
	for (i = 0; i < CAP; i++)
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, pcs->main->size, 0);
	KUNIT_ASSERT_NULL(test, pcs->spare);
	pcs->spare = &bootstrap_sheaf;
	irq_cache = s;
	irq_object = obj[0];
	irq_hits = 0;
	mm_point_hook = free_as_irq;
	kunit_expect_report(test, "bootstrap_sheaf");
	x = kmem_cache_alloc(s, GFP_KERNEL);
	kunit_expect_report_done(test);
	mm_point_hook = NULL;
	KUNIT_EXPECT_EQ(test, irq_hits, 1);
	KUNIT_ASSERT_NOT_NULL(test, x);
	obj[0] = x;
	KUNIT_EXPECT_PTR_NE(test, pcs->spare, &bootstrap_sheaf);
	EXPECT_PLACEHOLDER_OK(test, s);
	for (i = 0; i < CAP; i++)
		kmem_cache_free(s, obj[i]);

	/* 3. A swap with the placeholder as main would make it the spare. */
	kmem_cache_shrink(s);
	for (i = 0; i < 2 * CAP; i++)
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 0; i < 2 * CAP; i++)
		kmem_cache_free(s, obj[i]);
	KUNIT_ASSERT_NOT_NULL(test, pcs->spare);
	KUNIT_ASSERT_GT(test, pcs->spare->size, 0);
	x = pcs->main;
	pcs->main = &bootstrap_sheaf;   /* main "lost", a full spare beside */
	kunit_expect_report(test, "bootstrap_sheaf");
	obj[0] = kmem_cache_alloc(s, GFP_KERNEL);
	kunit_expect_report_done(test);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	KUNIT_EXPECT_PTR_NE(test, pcs->spare, &bootstrap_sheaf);
	EXPECT_PLACEHOLDER_OK(test, s);
	kmem_cache_free(s, obj[0]);
	/* Give the sheaf we hid back its objects' home. */
	kmem_cache_return_sheaf(s, GFP_KERNEL, x);
	EXPECT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/*
 * Full sheaves returned one after another fill the barn up to
 * BARN_MAX_FULL and no further (the +1 per CPU of mm_check's bound is for
 * a forced put, which a return never is); the rest are flushed.
 */
#define RETURNED_SHEAVES (BARN_MAX_FULL + 3)

static void barn_keeps_its_bound_of_full_sheaves(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = private_cache(test, "test_barn_bound");
	struct slab_sheaf *sh[RETURNED_SHEAVES];
	struct node_barn *barn = &get_node(s, 0)->barn;
	unsigned int i;

	for (i = 0; i < RETURNED_SHEAVES; i++) {
		sh[i] = kmem_cache_prefill_sheaf(s, GFP_KERNEL, CAP);
		KUNIT_ASSERT_NOT_NULL(test, sh[i]);
		KUNIT_ASSERT_EQ(test, kmem_cache_sheaf_size(sh[i]), CAP);
	}
	for (i = 0; i < RETURNED_SHEAVES; i++)
		kmem_cache_return_sheaf(s, GFP_KERNEL, sh[i]);
	KUNIT_EXPECT_EQ(test, barn->nr_full, BARN_MAX_FULL);
	EXPECT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/*
 * A sheaf of another capacity (an oversize one from
 * kmem_cache_prefill_sheaf()) planted as main: once it is empty it is no
 * spare (S3); it must be flushed and freed with a warning, and the
 * sheaves stay sound.
 */
static void odd_capacity_never_becomes_spare(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s = private_cache(test, "test_odd_cap");
	struct slub_percpu_sheaves *pcs = my_pcs(s);
	struct slab_sheaf *big, *mine;
	void *obj[2 * CAP + 1];
	unsigned int i, n;

	obj[0] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	kmem_cache_free(s, obj[0]);
	big = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 2 * CAP);
	KUNIT_ASSERT_NOT_NULL(test, big);
	KUNIT_ASSERT_GT(test, big->capacity, CAP);
	KUNIT_ASSERT_NULL(test, pcs->spare);
	mine = pcs->main;
	pcs->main = big;                /* planted: main of the wrong size */
	n = big->size;
	KUNIT_ASSERT_LE(test, n, 2 * CAP);
	kunit_expect_report(test, "capacity");
	for (i = 0; i <= n; i++)        /* empties big, then one more */
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
	kunit_expect_report_done(test);
	KUNIT_EXPECT_TRUE(test, pcs->spare != big && pcs->main != big);
	KUNIT_EXPECT_TRUE(test, !pcs->spare ||
			  pcs->spare->capacity == s->sheaf_capacity);
	EXPECT_PLACEHOLDER_OK(test, s);
	for (i = 0; i <= n; i++)
		kmem_cache_free(s, obj[i]);
	kmem_cache_return_sheaf(s, GFP_KERNEL, mine);
	EXPECT_PLACEHOLDER_OK(test, s);
	EXPECT_OBJECTS(test, s, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

static struct kunit_case bootstrap_cases[] = {
	KUNIT_CASE(return_sheaf_to_a_cpu_without_sheaves),
	KUNIT_CASE(prefill_of_zero_is_a_real_sheaf),
	KUNIT_CASE(bulk_after_return_sheaf),
	KUNIT_CASE(irq_free_during_refill_keeps_placeholder_out_of_barn),
	KUNIT_CASE(placeholder_checks_fire),
	KUNIT_CASE(odd_capacity_never_becomes_spare),
	KUNIT_CASE(barn_keeps_its_bound_of_full_sheaves),
	{}
};

static struct kunit_suite sheaf_bootstrap_suite = {
	.name = "sheaf_bootstrap",
	.suite_init = sheaf_suite_init,
	.suite_exit = sheaf_suite_exit,
	.exit = sheaf_case_exit,
	.test_cases = bootstrap_cases,
};
kunit_test_suite(sheaf_bootstrap_suite);

/* ===================================================================== */
/* sheaf_flush: a flush that lands inside a fast path                    */
/* ===================================================================== */

/* Run fn(s) on cpu (an IPI in the kernel). */
struct on_cpu_call {
	struct kmem_cache *s;
	void *obj[CAP + 1];
};

static void fill_sheaves_here(void *info)
{
	struct on_cpu_call *c = info;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(c->obj); i++)
		c->obj[i] = kmem_cache_alloc(c->s, GFP_ATOMIC);
	for (i = 0; i < ARRAY_SIZE(c->obj); i++)
		kmem_cache_free(c->s, c->obj[i]);
}

/* The CPU other than this one that the tests make hold its lock. */
static unsigned int victim_cpu(void)
{
	return smp_processor_id() == 0 ? 1 : 0;
}

static void expect_cpu_flushed(struct kunit *test, struct kmem_cache *s,
			       unsigned int cpu)
{
	KUNIT_EXPECT_PTR_EQ(test, s->cpu_sheaves[cpu].main, &bootstrap_sheaf);
	KUNIT_EXPECT_NULL(test, s->cpu_sheaves[cpu].spare);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_slabs, 0);
}

#ifdef HOST_TEST
/*
 * Host: the "IPI" is a call as the victim CPU on this thread, so the flag
 * is taken by hand, and the fast path "finishes" (drops it) when the
 * flush reports that CPU busy, as it would once the IPI returned.
 */
static struct kmem_cache *busy_cache;
static unsigned int busy_hits;

static void fast_path_finishes(enum mm_point where, void *arg)
{
	struct kmem_cache *s = arg;

	if (s != busy_cache || where != MM_POINT_SHEAF_FLUSH_BUSY)
		return;
	if (busy_hits++ == 0)
		local_unlock(&s->cpu_sheaves[victim_cpu()].lock);
}

static void shrink_while_a_fast_path_holds_the_lock(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), warns = warn_count;
	struct on_cpu_call c = { .s = private_cache(test, "test_flush_busy") };
	unsigned int victim = victim_cpu();
	struct slub_percpu_sheaves *pcs = &c.s->cpu_sheaves[victim];

	KUNIT_ASSERT_GT(test, nr_cpu_ids, 1);
	smp_call_function_single(victim, fill_sheaves_here, &c, true);
	KUNIT_ASSERT_PTR_NE(test, pcs->main, &bootstrap_sheaf);
	/* The victim holds the flag with IRQs on, as the fast paths did
	 * before they became restartable sequences (rseq.h: now they only
	 * read it); a flush IPI must still cope if anything ever does. */
	KUNIT_ASSERT_TRUE(test, local_trylock(&pcs->lock));
	busy_cache = c.s;
	busy_hits = 0;
	mm_point_hook = fast_path_finishes;
	kmem_cache_shrink(c.s);
	mm_point_hook = NULL;
	if (local_lock_is_locked(&pcs->lock))   /* the old code never asked */
		local_unlock(&pcs->lock);
	KUNIT_EXPECT_EQ(test, warn_count, warns);
	KUNIT_EXPECT_EQ(test, busy_hits, 1);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(c.s, SHEAF_FLUSH_BUSY), 1);
	expect_cpu_flushed(test, c.s, victim);
	KUNIT_EXPECT_EQ(test, slab_cache_check(c.s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(c.s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}
#else
#define EVENT_DEADLINE_US (20ull * 1000 * 1000)  /* only if it never comes */

/* Spin until *flag is set (true) or the deadline passes (false). */
static bool wait_for_flag(const bool *flag)
{
	u64 end = rdtsc() + us_to_tsc(EVENT_DEADLINE_US);

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (rdtsc() > end)
			return false;
		cpu_relax();
	}
	return true;
}

struct busy_flush {
	struct kmem_cache *s;
	unsigned int shrinker, victim;
	bool held;            /* the victim holds its sheaf lock */
	bool shrunk;          /* kmem_cache_shrink() returned */
	bool victim_timeout, shrinker_timeout;
	unsigned long busy_seen;   /* SHEAF_FLUSH_BUSY when the victim let go */
};

/*
 * The victim takes its flag with IRQs on (as the host build's
 * pcs_alloc_fast() does; the kernel's is a restartable sequence that only
 * reads it) and keeps it until the shrink's IPI has found it taken (the busy count
 * moves) or the shrink is over, whichever comes first: the old code WARNed
 * and gave up at once, the new one asks again after the victim let go.
 */
static void busy_flush_work(void *info)
{
	struct busy_flush *b = info;
	unsigned int me = smp_processor_id();
	struct slub_percpu_sheaves *pcs = &b->s->cpu_sheaves[me];
	u64 end;

	if (me == b->victim) {
		if (!local_trylock(&pcs->lock))
			return;
		__atomic_store_n(&b->held, true, __ATOMIC_RELEASE);
		end = rdtsc() + us_to_tsc(EVENT_DEADLINE_US);
		while (!slab_stat_sum(b->s, SHEAF_FLUSH_BUSY) &&
		       !__atomic_load_n(&b->shrunk, __ATOMIC_ACQUIRE)) {
			if (rdtsc() > end) {
				b->victim_timeout = true;
				break;
			}
			cpu_relax();
		}
		b->busy_seen = slab_stat_sum(b->s, SHEAF_FLUSH_BUSY);
		local_unlock(&pcs->lock);
		return;
	}
	if (me != b->shrinker)
		return;
	if (!wait_for_flag(&b->held)) {
		b->shrinker_timeout = true;
		return;
	}
	kmem_cache_shrink(b->s);
	__atomic_store_n(&b->shrunk, true, __ATOMIC_RELEASE);
}

static void shrink_while_a_fast_path_holds_the_lock(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), warns = warn_count;
	struct busy_flush *b;
	struct on_cpu_call c;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs a second CPU");
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	b->s = c.s = private_cache(test, "test_flush_busy");
	b->shrinker = smp_processor_id();
	b->victim = victim_cpu();
	smp_call_function_single(b->victim, fill_sheaves_here, &c, true);
	KUNIT_ASSERT_PTR_NE(test, b->s->cpu_sheaves[b->victim].main,
			    &bootstrap_sheaf);
	KUNIT_ASSERT_EQ(test, on_each_cpu_task(busy_flush_work, b), nr_cpu_ids);
	KUNIT_EXPECT_FALSE(test, b->victim_timeout);
	KUNIT_EXPECT_FALSE(test, b->shrinker_timeout);
	KUNIT_EXPECT_EQ(test, warn_count, warns);
	KUNIT_EXPECT_GE(test, b->busy_seen, 1);
	expect_cpu_flushed(test, b->s, b->victim);
	KUNIT_EXPECT_EQ(test, slab_cache_check(b->s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(b->s), 0);
	kfree(b);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/*
 * Up to STORM_WORKERS CPUs other than this one allocate and free, the
 * inline fast path mostly, until the shrinker is done: it shrinks until
 * its flush IPIs have landed inside a fast path STORM_BUSY_WANTED times
 * (or SHRINKS_MAX shrinks, if they never do: before the fix, which never
 * counted).  More workers would only make TCG slower, not the test harder.
 */
#define STORM_WORKERS 3
#define SHRINKS_MAX 200
#define STORM_BUSY_WANTED 3
#define STORM_BATCH 8

struct shrink_storm {
	struct kmem_cache *s;
	unsigned int shrinker;
	unsigned int shrinks;
	bool done;
	unsigned long ops[NR_CPUS];
	unsigned long bad[NR_CPUS];
};

static void shrink_storm_work(void *info)
{
	struct shrink_storm *st = info;
	unsigned int me = smp_processor_id(), worker, i, k;
	void *obj[STORM_BATCH];

	/* Workers: the first STORM_WORKERS CPUs other than the shrinker. */
	worker = me < st->shrinker ? me : me - 1;
	if (me != st->shrinker && worker >= STORM_WORKERS)
		return;
	if (me == st->shrinker) {
		for (i = 0; i < SHRINKS_MAX &&
		     slab_stat_sum(st->s, SHEAF_FLUSH_BUSY) < STORM_BUSY_WANTED;
		     i++)
			kmem_cache_shrink(st->s);
		st->shrinks = i;
		__atomic_store_n(&st->done, true, __ATOMIC_RELEASE);
		return;
	}
	while (!__atomic_load_n(&st->done, __ATOMIC_ACQUIRE)) {
		for (k = 0; k < STORM_BATCH; k++) {
			obj[k] = kmem_cache_alloc(st->s, GFP_KERNEL);
			if (!obj[k]) {
				st->bad[me]++;
				break;
			}
			*(unsigned long *)obj[k] = me;
		}
		for (i = 0; i < k; i++) {
			if (*(unsigned long *)obj[i] != me)
				st->bad[me]++;
			kmem_cache_free(st->s, obj[i]);
		}
		st->ops[me] += k;
	}
}

static void shrink_while_other_cpus_allocate(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), warns = warn_count;
	struct shrink_storm *st;
	unsigned int cpu;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs a second CPU");
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	st->s = private_cache(test, "test_shrink_storm");
	st->shrinker = smp_processor_id();
	KUNIT_ASSERT_EQ(test, on_each_cpu_task(shrink_storm_work, st),
			nr_cpu_ids);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		KUNIT_EXPECT_EQ(test, st->bad[cpu], 0);
	KUNIT_EXPECT_EQ(test, warn_count, warns);
	kunit_info(test, "%u shrinks, %lu flush requests found a fast path inside",
		   st->shrinks, slab_stat_sum(st->s, SHEAF_FLUSH_BUSY));
	kmem_cache_shrink(st->s);
	for_each_possible_cpu(cpu)
		expect_cpu_flushed(test, st->s, cpu);
	KUNIT_EXPECT_EQ(test, slab_cache_check(st->s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(st->s), 0);
	kfree(st);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}
#endif

static struct kunit_case flush_cases[] = {
	KUNIT_CASE(shrink_while_a_fast_path_holds_the_lock),
#ifndef HOST_TEST
	KUNIT_CASE(shrink_while_other_cpus_allocate),
#endif
	{}
};

static struct kunit_suite sheaf_flush_suite = {
	.name = "sheaf_flush",
	.suite_init = sheaf_suite_init,
	.suite_exit = sheaf_suite_exit,
	.exit = sheaf_case_exit,
	.test_cases = flush_cases,
};
kunit_test_suite(sheaf_flush_suite);

/* ===================================================================== */
/* slab_boot (host): kmalloc_nolock() in the window of kmem_cache_init()  */
/* ===================================================================== */

#ifdef HOST_TEST
static void *boot_nmi_got;
static unsigned int boot_hits;
static unsigned long boot_nomem;

static void nmi_in_boot_window(enum mm_point where, void *arg)
{
	(void)arg;
	if (where != MM_POINT_KMALLOC_INIT || boot_hits++)
		return;
	host_nmi_nesting++;
	boot_nomem = this_cpu_ptr(nolock_stats)->obj_alloc_nomem;
	boot_nmi_got = kmalloc_nolock(64, 0, NUMA_NO_NODE);
	boot_nomem = this_cpu_ptr(nolock_stats)->obj_alloc_nomem - boot_nomem;
	host_nmi_nesting--;
}

/*
 * Boot again (the host can): forget every cache, then kmem_cache_init()
 * with an "NMI" at the point where the slab layer is up but the kmalloc
 * caches are not made yet.  On the host kmalloc's cache pointers still
 * hold the previous boot's caches, so before the fix the NMI was handed
 * an object of a cache that, for this boot, did not exist (in the kernel
 * the pointer is NULL: a page fault in the NMI).
 */
static void kmalloc_nolock_before_the_kmalloc_caches(struct kunit *test)
{
	void *p;

	slab_host_reset();
	boot_hits = 0;
	boot_nmi_got = NULL;
	mm_point_hook = nmi_in_boot_window;
	kmem_cache_init(NULL);
	mm_point_hook = NULL;
	KUNIT_EXPECT_EQ(test, boot_hits, 1);
	KUNIT_EXPECT_NULL(test, boot_nmi_got);
	KUNIT_EXPECT_EQ(test, boot_nomem, 1);
	/* Once init is over, the same call works. */
	KUNIT_EXPECT_TRUE(test, slab_is_available());
	host_nmi_nesting++;
	p = kmalloc_nolock(64, 0, NUMA_NO_NODE);
	host_nmi_nesting--;
	KUNIT_EXPECT_NOT_NULL(test, p);
	kfree_nolock(p);
}

static struct kunit_case boot_cases[] = {
	KUNIT_CASE(kmalloc_nolock_before_the_kmalloc_caches),
	{}
};

static struct kunit_suite slab_boot_suite = {
	.name = "slab_boot",
	.suite_init = sheaf_suite_init,
	.suite_exit = sheaf_suite_exit,
	.exit = sheaf_case_exit,
	.test_cases = boot_cases,
};
kunit_test_suite(slab_boot_suite);
#endif
