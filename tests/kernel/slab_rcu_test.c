/*
 * slab_rcu_test.c - kfree_rcu(), the rcu_free sheaf, the barriers and
 * SLAB_TYPESAFE_BY_RCU in the kernel, with real grace periods
 * (mm/slab_rcu.c; the host suite slab_rcu_host plays the ticks itself).
 *
 *   - kmem_cache_destroy() right after kfree_rcu(): sheaves in flight, a
 *     partial rcu_free sheaf on every CPU, per-object callbacks (a cache
 *     without sheaves), TYPESAFE slabs waiting: the destroy must wait for
 *     all of it and report no leak.  A destroy that skips the flush or the
 *     rcu_barrier() (Linux's bug) finds objects still allocated and keeps
 *     the cache: these cases fail.
 *   - kvfree_rcu_barrier() leaves nothing of a cache in flight.
 *   - the one-argument kfree_rcu() whose carrier allocation fails
 *     (kfree_rcu_test_fail_carrier) waits for a grace period itself and
 *     frees: nothing queued, nothing leaked.
 *   - kfree_rcu_nolock() from an NMI that lands while this CPU holds the
 *     cache's sheaf lock: the object is parked, handed on by irq_work, and
 *     freed by the barrier.
 *   - a SLAB_TYPESAFE_BY_RCU object freed inside a reader's section, its
 *     slab shrunk away: still readable, unchanged, until the section ends.
 * Waits are for events (test_wait.h's deadline), never for a time.
 */
#include <cpu_work.h>
#include <kunit.h>
#include <local_lock.h>
#include <mm_check.h>
#include <nmi.h>
#include <rcupdate.h>
#include <slab.h>
#include <smp.h>
#include "../../mm/slab_internal.h"
#include "test_wait.h"

#define SRT_CAP       4     /* sheaf capacity of the test caches */
#define SRT_SHEAVES   3     /* full rcu_free sheaves sent in flight */
#define SRT_OBJECTS   (SRT_CAP * SRT_SHEAVES + 2)
#define SRT_MAGIC     0x7e57ab1e5afe0bb5ul

struct srt_obj {
	unsigned long magic;
	unsigned long pad[3];
	struct rcu_head rh;
};

static struct kmem_cache *srt_make(const char *name, unsigned int cap,
				   slab_flags_t flags)
{
	struct kmem_cache_args args = { .sheaf_capacity = cap };

	return kmem_cache_create_args(name, sizeof(struct srt_obj), &args,
				      flags | (cap ? SLAB_TEST_SHEAF_CAPACITY : 0));
}

/* Every CPU: one object of s freed with kfree_rcu(), left in its
 * rcu_free sheaf (partial). */
static void srt_free_one_here(void *info)
{
	struct kmem_cache *s = info;
	struct srt_obj *o = kmem_cache_alloc(s, GFP_KERNEL);

	if (o)
		kfree_rcu(o, rh);
}

/* Fill s's rcu_free sheaves on this CPU and leave some on every CPU,
 * then destroy s at once: it must wait for all of it. */
static void srt_destroy_right_after_kfree_rcu(struct kunit *test,
					       struct kmem_cache *s)
{
	unsigned long reports = slab_reports;
	struct srt_obj *o[SRT_OBJECTS];
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < SRT_OBJECTS; i++) {
		o[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o[i]);
	}
	for (i = 0; i < SRT_OBJECTS; i++)
		kfree_rcu(o[i], rh);
	on_each_cpu_task(srt_free_one_here, s);
	if (cache_has_sheaves(s))
		KUNIT_EXPECT_GE(test, slab_stat_sum(s, RCU_SHEAF_SUBMIT),
				SRT_SHEAVES);
	KUNIT_EXPECT_GT(test, READ_ONCE(s->rcu_pending) +
			slab_stat_sum(s, FREE_RCU_SHEAF), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
}

static void destroy_waits_for_rcu_free_sheaves(struct kunit *test)
{
	srt_destroy_right_after_kfree_rcu(test, srt_make("srt_sheaves",
							 SRT_CAP, 0));
}

static void destroy_waits_for_per_object_callbacks(struct kunit *test)
{
	srt_destroy_right_after_kfree_rcu(test, srt_make("srt_plain", 0, 0));
}

static void destroy_waits_for_typesafe_slabs(struct kunit *test)
{
	struct kmem_cache *s = srt_make("srt_typesafe", 0,
					SLAB_TYPESAFE_BY_RCU);
	void *o;

	KUNIT_ASSERT_NOT_NULL(test, s);
	o = kmem_cache_alloc(s, GFP_KERNEL);
	kmem_cache_free(s, o);
	kmem_cache_shrink(s);   /* its slab now waits for a grace period */
	KUNIT_EXPECT_EQ(test, READ_ONCE(s->rcu_pending), 1);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

static void kvfree_rcu_barrier_leaves_nothing_in_flight(struct kunit *test)
{
	struct kmem_cache *s = srt_make("srt_barrier", SRT_CAP, 0);
	struct srt_obj *o;
	void *p;
	unsigned int i;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (i = 0; i < SRT_OBJECTS; i++) {
		o = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o);
		kfree_rcu(o, rh);
	}
	p = kmalloc(100, GFP_KERNEL);
	kfree_rcu(p);                        /* one argument */
	o = kmalloc(sizeof(*o), GFP_KERNEL);
	kfree_rcu(o, rh);
	kvfree_rcu_barrier();
	KUNIT_EXPECT_EQ(test, READ_ONCE(s->rcu_pending), 0);
	for (i = 0; i < nr_cpu_ids; i++)
		KUNIT_EXPECT_NULL(test, s->cpu_sheaves[i].rcu_free);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

/*
 * The one-argument kfree_rcu() whose carrier cannot be allocated waits for
 * a grace period itself and frees at once: when it returns, a grace period
 * has ended since the call (grace periods begin only when asked for, so
 * a kfree() before the wait would fail this), the object is back in its
 * cache (destroy finds nothing, with no barrier), and no callback holds it
 * (rcu_pending).
 */
static void kfree_rcu_one_arg_without_carrier_waits_then_frees(struct kunit *test)
{
	struct kmem_cache *s = srt_make("srt_no_carrier", 0, 0);
	unsigned long reports = slab_reports, fallbacks;
	struct rcu_stats before, after;
	struct srt_obj *o;

	KUNIT_ASSERT_NOT_NULL(test, s);
	o = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	o->magic = SRT_MAGIC;
	fallbacks = slab_stat_sum(s, FREE_RCU_FALLBACK);
	rcu_get_stats(&before);
	WRITE_ONCE(kfree_rcu_test_fail_carrier, true);
	kfree_rcu(o);
	WRITE_ONCE(kfree_rcu_test_fail_carrier, false);
	rcu_get_stats(&after);
	KUNIT_EXPECT_GT(test, after.gp_completed, before.gp_completed);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(s, FREE_RCU_FALLBACK), fallbacks + 1);
	KUNIT_EXPECT_EQ(test, READ_ONCE(s->rcu_pending), 0);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);   /* not leaked */
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
}

/* ---- kfree_rcu_nolock() from an NMI over a held sheaf lock ---- */

static struct kmem_cache *nmi_cache;
static struct srt_obj *nmi_victim;
static unsigned int nmi_done;

static int srt_nmi(unsigned int type, struct pt_regs *regs)
{
	(void)type;
	(void)regs;
	if (!__atomic_load_n(&nmi_victim, __ATOMIC_ACQUIRE))
		return NMI_DONE;
	kfree_rcu_nolock(nmi_victim, rh);
	__atomic_store_n(&nmi_victim, NULL, __ATOMIC_RELAXED);
	__atomic_store_n(&nmi_done, 1, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

static void kfree_rcu_nolock_in_nmi_over_the_sheaf_lock(struct kunit *test)
{
	struct slub_percpu_sheaves *pcs;
	struct srt_obj *o;
	unsigned long flags, parked;
	u64 end;

	nmi_cache = srt_make("srt_nmi", SRT_CAP, 0);
	KUNIT_ASSERT_NOT_NULL(test, nmi_cache);
	o = kmem_cache_alloc(nmi_cache, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, srt_nmi,
						   "slab_rcu"), 0);
	nmi_done = 0;
	pcs = this_cpu_sheaves(nmi_cache);
	KUNIT_ASSERT_TRUE(test, local_trylock_irqsave(&pcs->lock, flags));
	__atomic_store_n(&nmi_victim, o, __ATOMIC_RELEASE);
	nmi_send_self();
	end = test_deadline();
	while (!__atomic_load_n(&nmi_done, __ATOMIC_ACQUIRE) &&
	       !test_deadline_passed(end))
		cpu_relax();
	/* Still IRQs off: the irq_work cannot have run. */
	parked = kfree_rcu_deferred(smp_processor_id());
	local_unlock_irqrestore(&pcs->lock, flags);
	unregister_nmi_handler(NMI_LOCAL, "slab_rcu");
	KUNIT_EXPECT_EQ(test, nmi_done, 1);
	KUNIT_EXPECT_EQ(test, parked, 1);
	kvfree_rcu_barrier();
	KUNIT_EXPECT_EQ(test, kfree_rcu_deferred(smp_processor_id()), 0);
	KUNIT_EXPECT_EQ(test, READ_ONCE(nmi_cache->rcu_pending), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(nmi_cache), 0);
}

/* ---- SLAB_TYPESAFE_BY_RCU: the reader's side ---- */

static void typesafe_object_stays_an_object_in_a_section(struct kunit *test)
{
	struct kmem_cache *s = srt_make("srt_typesafe_r", 0,
					SLAB_TYPESAFE_BY_RCU);
	struct srt_obj *o;
	unsigned long seen;

	KUNIT_ASSERT_NOT_NULL(test, s);
	o = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	o->magic = SRT_MAGIC;
	rcu_read_lock();
	kmem_cache_free(s, o);
	kmem_cache_shrink(s);    /* the slab leaves its lists, not its memory */
	seen = READ_ONCE(o->magic);
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, seen, SRT_MAGIC);
	kvfree_rcu_barrier();
	KUNIT_EXPECT_EQ(test, READ_ONCE(s->rcu_pending), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

/*
 * kfree_rcu() of what is no object's first byte (a pointer inside an
 * object; the slab's unused tail, where there is one) is reported, as
 * kfree() reports it, and nothing is queued: no callback, nothing in the
 * rcu_free sheaf, the object still the caller's.
 */
static void kfree_rcu_refuses_what_is_no_object(struct kunit *test)
{
	struct kmem_cache *s = srt_make("srt_bad_ptr", SRT_CAP, 0);
	unsigned long reports = slab_reports, tail;
	struct srt_obj *o;
	char *base;

	KUNIT_ASSERT_NOT_NULL(test, s);
	o = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, o);
	slab_report_count_only = true;
	KUNIT_EXPECT_REPORT(test, "kfree_rcu of a pointer kmalloc never returned",
			    kvfree_call_rcu(NULL, (char *)o + sizeof(long)));
	base = page_address(virt_to_slab(o));
	tail = s->objects * s->size;
	if (tail < (PAGE_SIZE << s->order))
		KUNIT_EXPECT_REPORT(test, "kfree_rcu of a pointer kmalloc never returned",
				    kvfree_call_rcu(NULL, base + tail));
	else
		reports--;      /* no tail in this geometry: one report less */
	slab_report_count_only = false;
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 2);
	KUNIT_EXPECT_EQ(test, READ_ONCE(s->rcu_pending), 0);
	KUNIT_EXPECT_NULL(test, this_cpu_sheaves(s)->rcu_free);
	kmem_cache_free(s, o);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

static struct kunit_case slab_rcu_cases[] = {
	KUNIT_CASE(kfree_rcu_refuses_what_is_no_object),
	KUNIT_CASE(destroy_waits_for_rcu_free_sheaves),
	KUNIT_CASE(destroy_waits_for_per_object_callbacks),
	KUNIT_CASE(destroy_waits_for_typesafe_slabs),
	KUNIT_CASE(kvfree_rcu_barrier_leaves_nothing_in_flight),
	KUNIT_CASE(kfree_rcu_one_arg_without_carrier_waits_then_frees),
	KUNIT_CASE(kfree_rcu_nolock_in_nmi_over_the_sheaf_lock),
	KUNIT_CASE(typesafe_object_stays_an_object_in_a_section),
	{}
};

static struct kunit_suite slab_rcu_suite = {
	.name = "slab_rcu",
	.test_cases = slab_rcu_cases,
};
kunit_test_suite(slab_rcu_suite);
