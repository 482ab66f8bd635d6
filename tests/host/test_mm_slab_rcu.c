/*
 * test_mm_slab_rcu.c - kfree_rcu() and the rcu_free sheaf on the host
 * (mm/slab_rcu.c, mm/sheaf.c), with kernel/rcu.c underneath.
 *
 * One thread plays four CPUs, as in test_rcu.c: a grace period ends only
 * when the test ticks every CPU (tick()), so each case decides exactly
 * when objects may come back and checks that they do not before: in the
 * rcu_free sheaf, in flight with call_rcu(), returned through the barn.
 * slab_cache_check() (mm/mm_check.c, S6 among the rest) runs after each
 * step.  Caches use SLAB_TEST_SHEAF_CAPACITY with a capacity of
 * RT_CAP, so a few objects fill an rcu_free sheaf.
 */
#include <irq_work.h>
#include <irqflags.h>
#include <kunit.h>
#include <local_lock.h>
#include <mm_check.h>
#include <rcupdate.h>
#include <slab.h>
#include <smp.h>
#include "../../mm/slab_internal.h"

int slab_test_env_init(void);
void slab_test_env_exit(void);

#define RT_CAP        4    /* sheaf capacity of the test caches */
#define RT_OBJ_SIZE   64
#define RT_GP_ROUNDS  3    /* tick rounds that end a GP and run its callbacks */
#define RT_MANY       64   /* allocations made to look for early reuse */

struct rt_obj {
	unsigned long payload[4];
	struct rcu_head rh;
};

static struct kmem_cache *rt_cache;

/* A timer tick on cpu, interrupting task code (test_rcu.c's tick()). */
static void tick(unsigned int cpu)
{
	unsigned int me = host_cpu_id;

	host_cpu_id = cpu;
	local_irq_disable();
	host_irq_nesting++;
	rcu_sched_clock_irq(true);
	rcu_irq_exit_invoke();
	host_irq_nesting--;
	local_irq_enable();
	host_cpu_id = me;
}

/* Enough ticks on every CPU for every callback queued so far to run. */
static void grace_periods_pass(void)
{
	unsigned int round, cpu;

	for (round = 0; round < RT_GP_ROUNDS; round++)
		for (cpu = 0; cpu < nr_cpu_ids; cpu++)
			tick(cpu);
}

/* Every CPU but the last has ticked: no GP can have ended. */
static void grace_period_half_passes(void)
{
	unsigned int round, cpu;

	for (round = 0; round < RT_GP_ROUNDS; round++)
		for (cpu = 0; cpu + 1 < nr_cpu_ids; cpu++)
			tick(cpu);
}

static struct kmem_cache *rt_make_cache(const char *name, unsigned int cap,
					slab_flags_t flags)
{
	struct kmem_cache_args args = { .sheaf_capacity = cap };

	return kmem_cache_create_args(name, RT_OBJ_SIZE, &args,
				      flags | (cap ? SLAB_TEST_SHEAF_CAPACITY : 0));
}

static int rt_init(struct kunit *test)
{
	(void)test;
	if (slab_test_env_init())
		return -1;
	rcu_init();
	rt_cache = rt_make_cache("rt_sheaves", RT_CAP, 0);
	return rt_cache ? 0 : -1;
}

static void rt_exit(struct kunit *test)
{
	(void)test;
	host_cpu_id = 0;
	slab_test_env_exit();
}

#define EXPECT_CACHE_OK(test, s) KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0)

/* slub_debug= (the harness's debug matrix) leaves caches without sheaves:
 * the cases about the rcu_free sheaf have nothing to look at then. */
#define SKIP_WITHOUT_SHEAVES(test)                                            \
	do {                                                                  \
		if (!cache_has_sheaves(rt_cache)) {                           \
			kunit_skip(test, "slub_debug: the cache has no sheaves"); \
			return;                                               \
		}                                                             \
	} while (0)

static unsigned long st(struct kmem_cache *s, enum slab_stat_item i)
{
	return slab_stat_sum(s, i);
}

/* Is p among n fresh allocations of s?  They are freed again, and the
 * sheaves they filled flushed (else the barn would be at its limit and a
 * returning rcu_free sheaf flushed, not kept). */
static bool handed_out_again(struct kmem_cache *s, void *p, unsigned int n)
{
	void *got[RT_MANY];
	bool seen = false;
	unsigned int i;

	for (i = 0; i < n; i++) {
		got[i] = kmem_cache_alloc(s, GFP_KERNEL);
		if (got[i] == p)
			seen = true;
	}
	for (i = 0; i < n; i++)
		kmem_cache_free(s, got[i]);
	kmem_cache_shrink(s);
	return seen;
}

/* ---- cases ---- */

static void kfree_rcu_fills_the_rcu_free_sheaf(struct kunit *test)
{
	struct slub_percpu_sheaves *pcs = &rt_cache->cpu_sheaves[0];
	struct rt_obj *o[RT_CAP];
	unsigned int i;

	SKIP_WITHOUT_SHEAVES(test);

	KUNIT_ASSERT_EQ(test, rt_cache->sheaf_capacity, RT_CAP);
	for (i = 0; i < RT_CAP; i++)
		o[i] = kmem_cache_alloc(rt_cache, GFP_KERNEL);
	for (i = 0; i + 1 < RT_CAP; i++)
		kfree_rcu(o[i], rh);
	KUNIT_ASSERT_NOT_NULL(test, pcs->rcu_free);
	KUNIT_EXPECT_EQ(test, pcs->rcu_free->size, RT_CAP - 1);
	KUNIT_EXPECT_EQ(test, st(rt_cache, FREE_RCU_SHEAF), RT_CAP - 1);
	KUNIT_EXPECT_EQ(test, st(rt_cache, RCU_SHEAF_SUBMIT), 0);
	EXPECT_CACHE_OK(test, rt_cache);
	/* The last one fills it: handed to call_rcu() whole, at once. */
	kfree_rcu(o[RT_CAP - 1], rh);
	KUNIT_EXPECT_NULL(test, pcs->rcu_free);
	KUNIT_EXPECT_EQ(test, st(rt_cache, RCU_SHEAF_SUBMIT), 1);
	KUNIT_EXPECT_EQ(test, rt_cache->rcu_pending, 1);
	EXPECT_CACHE_OK(test, rt_cache);
}

static void rcu_free_sheaf_comes_back_through_the_barn(struct kunit *test)
{
	struct node_barn *barn = &get_node(rt_cache, numa_node_id())->barn;
	struct rt_obj *o[RT_CAP];
	unsigned long refills, slow;
	unsigned int i, full;

	SKIP_WITHOUT_SHEAVES(test);

	for (i = 0; i < RT_CAP; i++)
		o[i] = kmem_cache_alloc(rt_cache, GFP_KERNEL);
	full = barn->nr_full;
	for (i = 0; i < RT_CAP; i++)
		kfree_rcu(o[i], rh);
	grace_period_half_passes();
	KUNIT_EXPECT_EQ(test, st(rt_cache, RCU_SHEAF_RETURN), 0);
	KUNIT_EXPECT_EQ(test, rt_cache->rcu_pending, 1);
	KUNIT_EXPECT_FALSE(test, handed_out_again(rt_cache, o[0], RT_MANY));
	grace_periods_pass();
	KUNIT_EXPECT_EQ(test, st(rt_cache, RCU_SHEAF_RETURN), 1);
	KUNIT_EXPECT_EQ(test, rt_cache->rcu_pending, 0);
	KUNIT_EXPECT_EQ(test, barn->nr_full, full + 1);
	EXPECT_CACHE_OK(test, rt_cache);
	/* Empty this CPU's main and spare: the next allocations take the
	 * returned sheaf from the barn, no slab touched. */
	kmem_cache_shrink(rt_cache);
	for (i = 0; i < RT_CAP; i++)
		o[i] = kmem_cache_alloc(rt_cache, GFP_KERNEL);
	for (i = 0; i < RT_CAP; i++)
		kfree_rcu(o[i], rh);
	grace_periods_pass();
	refills = st(rt_cache, SHEAF_REFILL);
	slow = st(rt_cache, ALLOC_SLOWPATH);
	for (i = 0; i < RT_CAP; i++)
		KUNIT_EXPECT_NOT_NULL(test, kmem_cache_alloc(rt_cache, GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, st(rt_cache, SHEAF_REFILL), refills);
	KUNIT_EXPECT_EQ(test, st(rt_cache, ALLOC_SLOWPATH), slow);
	EXPECT_CACHE_OK(test, rt_cache);
}

static void flush_submits_a_partial_rcu_free_sheaf(struct kunit *test)
{
	struct rt_obj *a, *b;

	SKIP_WITHOUT_SHEAVES(test);

	a = kmem_cache_alloc(rt_cache, GFP_KERNEL);
	host_cpu_id = 2;
	b = kmem_cache_alloc(rt_cache, GFP_KERNEL);
	kfree_rcu(b, rh);
	host_cpu_id = 0;
	kfree_rcu(a, rh);
	kmem_cache_shrink(rt_cache);   /* flushes every CPU */
	KUNIT_EXPECT_NULL(test, rt_cache->cpu_sheaves[0].rcu_free);
	KUNIT_EXPECT_NULL(test, rt_cache->cpu_sheaves[2].rcu_free);
	KUNIT_EXPECT_EQ(test, st(rt_cache, RCU_SHEAF_SUBMIT), 2);
	/* Still held: in flight, not in a slab's freelist. */
	EXPECT_CACHE_OK(test, rt_cache);
	KUNIT_EXPECT_FALSE(test, handed_out_again(rt_cache, a, RT_MANY));
	grace_periods_pass();
	KUNIT_EXPECT_EQ(test, rt_cache->rcu_pending, 0);
	KUNIT_EXPECT_EQ(test, st(rt_cache, RCU_SHEAF_RETURN), 2);
	EXPECT_CACHE_OK(test, rt_cache);
}

static void no_sheaves_falls_back_to_call_rcu(struct kunit *test)
{
	struct kmem_cache *s = rt_make_cache("rt_plain", 0, 0);
	struct rt_obj *o;
	void *p;

	KUNIT_ASSERT_NOT_NULL(test, s);
	o = kmem_cache_alloc(s, GFP_KERNEL);
	p = kmem_cache_alloc(s, GFP_KERNEL);
	kfree_rcu(o, rh);
	kfree_rcu(p);      /* one argument: a carrier from kmalloc */
	KUNIT_EXPECT_EQ(test, st(s, FREE_RCU_FALLBACK), 2);
	KUNIT_EXPECT_EQ(test, s->rcu_pending, 2);
	grace_period_half_passes();
	KUNIT_EXPECT_FALSE(test, handed_out_again(s, o, RT_MANY));
	grace_periods_pass();
	KUNIT_EXPECT_EQ(test, s->rcu_pending, 0);
	EXPECT_CACHE_OK(test, s);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

static void kfree_rcu_of_kmalloc_objects(struct kunit *test)
{
	struct rt_obj *o = kmalloc(sizeof(*o), GFP_KERNEL);
	void *big = kmalloc(2 * KMALLOC_MAX_CACHE_SIZE, GFP_KERNEL);
	unsigned long before = nr_free_pages();

	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_NOT_NULL(test, big);
	kfree_rcu(o, rh);
	kfree_rcu(big);    /* a large block: a carrier, then kfree() */
	/* The block is still out (a new sheaf may have taken a page too). */
	KUNIT_EXPECT_LE(test, nr_free_pages(), before);
	before = nr_free_pages();
	grace_periods_pass();
	KUNIT_EXPECT_GE(test, nr_free_pages(),
			before + (2 * KMALLOC_MAX_CACHE_SIZE) / PAGE_SIZE);
}

/* kfree_rcu_nolock() in an NMI over a held sheaf lock: parked, never
 * lost, handed on by the irq_work. */
static void kfree_rcu_nolock_parks_when_the_sheaf_is_busy(struct kunit *test)
{
	struct slub_percpu_sheaves *pcs = &rt_cache->cpu_sheaves[0];
	struct rt_obj *o;
	unsigned long flags;

	SKIP_WITHOUT_SHEAVES(test);
	o = kmem_cache_alloc(rt_cache, GFP_KERNEL);

	KUNIT_ASSERT_TRUE(test, local_trylock_irqsave(&pcs->lock, flags));
	host_nmi_nesting++;
	kfree_rcu_nolock(o, rh);
	host_nmi_nesting--;
	local_unlock_irqrestore(&pcs->lock, flags);
	KUNIT_EXPECT_EQ(test, kfree_rcu_deferred(0), 1);
	KUNIT_EXPECT_EQ(test, st(rt_cache, FREE_RCU_SHEAF), 0);
	host_irq_nesting++;
	irq_work_run();
	host_irq_nesting--;
	KUNIT_EXPECT_EQ(test, kfree_rcu_deferred(0), 0);
	KUNIT_EXPECT_EQ(test, st(rt_cache, FREE_RCU_SHEAF), 1);
	KUNIT_ASSERT_NOT_NULL(test, pcs->rcu_free);
	KUNIT_EXPECT_PTR_EQ(test, pcs->rcu_free->objects[0], (void *)o);
	EXPECT_CACHE_OK(test, rt_cache);
	/* With the lock free, an NMI's kfree_rcu_nolock() uses the sheaf. */
	o = kmem_cache_alloc(rt_cache, GFP_KERNEL);
	host_nmi_nesting++;
	kfree_rcu_nolock(o, rh);
	host_nmi_nesting--;
	KUNIT_EXPECT_EQ(test, st(rt_cache, FREE_RCU_SHEAF), 2);
	kmem_cache_shrink(rt_cache);
	grace_periods_pass();
	KUNIT_EXPECT_EQ(test, rt_cache->rcu_pending, 0);
	EXPECT_CACHE_OK(test, rt_cache);
}

/* An object in an rcu_free sheaf and free in its slab is handed out
 * twice: the check must say so (S6 counts rcu_free objects as held). */
static void mm_check_sees_rcu_free_objects_as_held(struct kunit *test)
{
	struct rt_obj *o;
	void *p;

	SKIP_WITHOUT_SHEAVES(test);
	o = kmem_cache_alloc(rt_cache, GFP_KERNEL);
	p = o;

	kfree_rcu(o, rh);
	EXPECT_CACHE_OK(test, rt_cache);
	/* Free it behind kfree_rcu()'s back, straight to its slab. */
	__slab_free_bulk(rt_cache, 1, &p, 0);
	mm_check_quiet = true;
	KUNIT_EXPECT_GT(test, slab_cache_check(rt_cache), 0);
	mm_check_quiet = false;
	/* Mend: take it out of the slab again, out of the sheaf too. */
	KUNIT_EXPECT_EQ(test, __slab_alloc_bulk(rt_cache, GFP_KERNEL, NUMA_NO_NODE, 1, &p, 0), 1);
	rt_cache->cpu_sheaves[0].rcu_free->size--;
	kmem_cache_free(rt_cache, p);
	EXPECT_CACHE_OK(test, rt_cache);
}

/* Caches go with everything handed to RCU returned: one CPU online, the
 * others' rcu_free sheaves submitted from here (they run nothing). */
static void destroy_flushes_and_waits(struct kunit *test)
{
	struct kmem_cache *s = rt_make_cache("rt_destroy", RT_CAP, 0);
	struct rt_obj *o[RT_CAP + 2];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < RT_CAP + 2; i++)
		o[i] = kmem_cache_alloc(s, GFP_KERNEL);
	/* cpu3's rcu_free: partial.  Without sheaves (slub_debug) it would
	 * be a callback queued on cpu3, which goes offline below: here. */
	host_cpu_id = cache_has_sheaves(s) ? 3 : 0;
	kfree_rcu(o[RT_CAP + 1], rh);
	host_cpu_id = 0;
	for (i = 0; i <= RT_CAP; i++)
		kfree_rcu(o[i], rh);    /* one sheaf in flight, one partial */
	/* No GP has begun (no tick since rcu_init()), so none waits for
	 * the CPUs that go away now. */
	nr_cpu_ids = 1;                 /* rcu_barrier() here needs only cpu0 */
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	nr_cpu_ids = 4;
}

static void typesafe_by_rcu_slab_waits_for_a_grace_period(struct kunit *test)
{
	struct kmem_cache *s = rt_make_cache("rt_typesafe", 0,
					     SLAB_TYPESAFE_BY_RCU | SLAB_POISON);
	unsigned long before, freed;
	void *o;

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_FALSE(test, s->flags & SLAB_POISON);
	KUNIT_EXPECT_GE(test, s->offset, s->object_size);  /* free ptr outside */
	before = nr_free_pages();
	o = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, o);
	freed = st(s, FREE_SLAB);
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, st(s, FREE_SLAB), freed + 1);
	KUNIT_EXPECT_EQ(test, s->rcu_pending, 1);
	KUNIT_EXPECT_LT(test, nr_free_pages(), before);
	EXPECT_CACHE_OK(test, s);
	grace_period_half_passes();
	KUNIT_EXPECT_LT(test, nr_free_pages(), before);
	grace_periods_pass();
	KUNIT_EXPECT_EQ(test, s->rcu_pending, 0);
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

/*
 * kfree_rcu() of a pointer inside an object is reported, as kfree()
 * reports it, and nothing is queued: no callback, nothing in the
 * rcu_free sheaf, the object still the caller's.
 */
static void kfree_rcu_refuses_a_pointer_inside_an_object(struct kunit *test)
{
	struct slub_percpu_sheaves *pcs = &rt_cache->cpu_sheaves[0];
	unsigned long reports = slab_reports;
	char *o = kmem_cache_alloc(rt_cache, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, o);
	slab_report_count_only = true;
	KUNIT_EXPECT_REPORT(test, "kfree_rcu of a pointer kmalloc never returned",
			    kvfree_call_rcu(NULL, o + sizeof(long)));
	slab_report_count_only = false;
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	KUNIT_EXPECT_EQ(test, rt_cache->rcu_pending, 0);
	KUNIT_EXPECT_NULL(test, pcs->rcu_free);
	kmem_cache_free(rt_cache, o);
	EXPECT_CACHE_OK(test, rt_cache);
}

static struct kunit_case slab_rcu_cases[] = {
	KUNIT_CASE(kfree_rcu_refuses_a_pointer_inside_an_object),
	KUNIT_CASE(kfree_rcu_fills_the_rcu_free_sheaf),
	KUNIT_CASE(rcu_free_sheaf_comes_back_through_the_barn),
	KUNIT_CASE(flush_submits_a_partial_rcu_free_sheaf),
	KUNIT_CASE(no_sheaves_falls_back_to_call_rcu),
	KUNIT_CASE(kfree_rcu_of_kmalloc_objects),
	KUNIT_CASE(kfree_rcu_nolock_parks_when_the_sheaf_is_busy),
	KUNIT_CASE(mm_check_sees_rcu_free_objects_as_held),
	KUNIT_CASE(destroy_flushes_and_waits),
	KUNIT_CASE(typesafe_by_rcu_slab_waits_for_a_grace_period),
	{}
};

static struct kunit_suite slab_rcu_host_suite = {
	.name = "slab_rcu_host",
	.init = rt_init,
	.exit = rt_exit,
	.test_cases = slab_rcu_cases,
};
kunit_test_suite(slab_rcu_host_suite);
