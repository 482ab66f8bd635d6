/*
 * test_mm_cpu_slab_review.c - an outside review of mm/cpu_slab.c (the
 * third cache mode, SLAB_MODE_CPU_SLAB): reproducers of promises it
 * breaks.  Host only, over the slab tests' arena (test_mm_slab.c: four
 * pretend CPUs, one node); another CPU is host_cpu_id switched for the
 * call, an NMI or IRQ the nesting count raised around a direct call.
 *
 * Each case states the promise it checks and FAILS on the code it was
 * written against (commit 98562c9).
 */
#include <kunit.h>
#include <kernel.h>
#include <irq_work.h>
#include <mm.h>
#include <mm_check.h>
#include <mm_points.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "../../mm/slab_internal.h"

int slab_test_env_init(void);
void slab_test_env_exit(void);

static void rev_case_exit(struct kunit *test)
{
	(void)test;
	mm_point_hook = NULL;
	slab_report_count_only = false;
	host_cpu_id = 0;
}

static struct kmem_cache *cpuslab_cache(struct kunit *test, const char *name,
					unsigned int size, slab_flags_t flags)
{
	struct kmem_cache_args args = { .mode = SLAB_MODE_CPU_SLAB };
	struct kmem_cache *s = kmem_cache_create_args(name, size, &args, flags);

	KUNIT_ASSERT_NOT_NULL(test, s);
	if (!cache_has_cpu_slab(s)) {
		kmem_cache_destroy(s);
		kunit_skip(test, "slub_debug= is on: no cpu-slab caches");
	}
	return s;
}

/* As an NMI that lands while this CPU holds x's node list_lock: the free
 * finds it held and parks x on this CPU's deferred list. */
static void park_while_list_lock_held(struct kmem_cache *s, void *x)
{
	struct kmem_cache_node *n = get_node(s, slab_nid(virt_to_slab(x)));
	unsigned long flags;

	spin_lock_irqsave(&n->list_lock, flags);
	host_nmi_nesting++;
	kmem_cache_free(s, x);   /* in_nmi(): slab_free_nolock() */
	host_nmi_nesting--;
	spin_unlock_irqrestore(&n->list_lock, flags);
}

/* This CPU's pending irq_work (the deferred frees), as its IRQ would. */
static void run_irq_work_here(void)
{
	unsigned long flags = local_irq_save();

	host_irq_nesting++;
	irq_work_run();
	host_irq_nesting--;
	local_irq_restore(flags);
}

/* Allocate every object the cache can give from nr slabs' worth and
 * count the pointers handed out twice. */
static unsigned int duplicates_among(void **p, unsigned int nr)
{
	unsigned int i, j, dup = 0;

	for (i = 0; i < nr; i++)
		for (j = i + 1; j < nr; j++)
			dup += p[i] && p[i] == p[j];
	return dup;
}

#define REV_MAX_OBJS 512

static void *objs[REV_MAX_OBJS];

/*
 * Promise (docs/any-context.md, "THE DEFERRED LIST"; mm/slab_nolock.c):
 * "a double free that meets the deferred list gives one report, in either
 * order, on every cache that has no sheaves".  A cpu-slab cache has no
 * sheaves.  Order: kfree_nolock(x) parks x (its unfrozen slab's list_lock
 * was held), then the slab is frozen by this CPU, then kmem_cache_free(x)
 * again.  The fast free path pushes x on this CPU's freelist with no check
 * (it only compares the head), and the drain then clears x's link (now a
 * freelist link) and frees it a second time: x is handed out twice and no
 * report is ever given.
 */
static void parked_then_freed_on_this_cpus_slab(struct kunit *test)
{
	struct kmem_cache *s = cpuslab_cache(test, "rev_park_fast", 64, 0);
	unsigned long reports = slab_reports;
	unsigned int i, nr = 2 * s->objects, dup;
	void *x, *y;

	x = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	kmem_cache_shrink(s);   /* x's slab unfrozen, on the node's partial */
	KUNIT_ASSERT_FALSE(test, virt_to_slab(x)->frozen);
	park_while_list_lock_held(s, x);
	KUNIT_ASSERT_EQ(test, slab_deferred_frees(0), 1ul);
	/* This CPU's next allocation freezes x's slab for it. */
	y = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, y);
	KUNIT_ASSERT_PTR_EQ(test, (void *)s->cpu_slab[0].slab, (void *)virt_to_slab(x));

	slab_report_count_only = true;   /* reports counted, no panic */
	/* The double free: the report belongs here. */
	KUNIT_EXPECT_REPORT(test, "double free", kmem_cache_free(s, x));
	run_irq_work_here();            /* the deferred free of x */
	for (i = 0; i < nr && i < REV_MAX_OBJS; i++)
		objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
	dup = duplicates_among(objs, i);
	/* One report in all, and nothing handed out twice. */
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	KUNIT_EXPECT_EQ(test, dup, 0u);
	slab_report_count_only = false;
}

/*
 * The same order, the slab frozen by another CPU meanwhile: the free is
 * a remote push on a frozen slab, which checks object_looks_free() but not
 * object_is_parked() (free_to_slab_locked() checks both).  No report at
 * the double free; the drain later clears x's link on the slab's freelist
 * (the objects behind x are lost).
 */
static void parked_then_freed_on_a_remote_frozen_slab(struct kunit *test)
{
	struct kmem_cache *s = cpuslab_cache(test, "rev_park_remote", 64, 0);
	unsigned long reports = slab_reports;
	void *x, *y;

	x = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, x);
	kmem_cache_shrink(s);
	park_while_list_lock_held(s, x);
	KUNIT_ASSERT_EQ(test, slab_deferred_frees(0), 1ul);
	host_cpu_id = 1;
	y = kmem_cache_alloc(s, GFP_KERNEL);   /* CPU 1 freezes x's slab */
	host_cpu_id = 0;
	KUNIT_ASSERT_NOT_NULL(test, y);
	KUNIT_ASSERT_TRUE(test, virt_to_slab(x)->frozen);

	slab_report_count_only = true;
	KUNIT_EXPECT_REPORT(test, "double free", kmem_cache_free(s, x));
	run_irq_work_here();            /* the deferred free of x */
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 1);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	slab_report_count_only = false;
}


/*
 * Not a break (passes on 98562c9): the paths of slab.c that serve a
 * cpu-slab cache beside cpu_slab.c - bulk alloc and free, a prefilled
 * sheaf, kmem_cache_alloc_node(), SLAB_TYPESAFE_BY_RCU - each followed by
 * slab_cache_check() (F1, F2 and the rest), frees from another CPU mixed
 * in, and the cache destroyed without leaks.
 */
#define SMOKE_N 200

static void *smoke[SMOKE_N];

static void slab_paths_beside_the_cpu_slabs(struct kunit *test)
{
	struct kmem_cache *s = cpuslab_cache(test, "rev_smoke", 96, 0);
	struct kmem_cache *r = cpuslab_cache(test, "rev_rcu", 96,
					     SLAB_TYPESAFE_BY_RCU);
	unsigned long reports = slab_reports, warns = warn_count;
	void *evens[SMOKE_N / 2];
	struct slab_sheaf *sheaf;
	unsigned int i;
	void *q;

	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(s, GFP_KERNEL, SMOKE_N,
						    smoke), SMOKE_N);
	KUNIT_EXPECT_EQ(test, duplicates_among(smoke, SMOKE_N), 0u);
	host_cpu_id = 1;
	for (i = 1; i < SMOKE_N; i += 2)
		kmem_cache_free(s, smoke[i]);
	host_cpu_id = 0;
	for (i = 0; i < SMOKE_N / 2; i++)
		evens[i] = smoke[2 * i];
	kmem_cache_free_bulk(s, SMOKE_N / 2, evens);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);

	sheaf = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 20);
	KUNIT_ASSERT_NOT_NULL(test, sheaf);
	for (i = 0; i < 10; i++)
		smoke[i] = kmem_cache_alloc_from_sheaf(s, GFP_KERNEL, sheaf);
	for (i = 10; i < 20; i++)
		smoke[i] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, duplicates_among(smoke, 20), 0u);
	host_cpu_id = 2;
	for (i = 0; i < 20; i++)
		kmem_cache_free(s, smoke[i]);
	host_cpu_id = 0;
	kmem_cache_return_sheaf(s, GFP_KERNEL, sheaf);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);

	q = kmem_cache_alloc_node(s, GFP_KERNEL | __GFP_THISNODE, 0);
	KUNIT_EXPECT_NOT_NULL(test, q);
	kmem_cache_free(s, q);
	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);

	for (i = 0; i < SMOKE_N; i++)
		smoke[i] = kmem_cache_alloc(r, GFP_KERNEL);
	KUNIT_EXPECT_EQ(test, duplicates_among(smoke, SMOKE_N), 0u);
	for (i = 0; i < SMOKE_N; i++) {
		host_cpu_id = i % 4;
		kmem_cache_free(r, smoke[i]);
	}
	host_cpu_id = 0;
	kmem_cache_shrink(r);
	KUNIT_EXPECT_EQ(test, slab_cache_check(r), 0);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, warn_count, warns);
}

/*
 * Not a break (passes on 98562c9): the ABA the tid exists for.  An NMI
 * lands in the fast allocation between its reads and its commit
 * (MM_POINT_CPU_SLAB_FAST), takes the head x and its successor y, and
 * frees x again: the head is x once more, with another successor.  Only
 * the tid tells the interrupted commit that its `next` (y) is stale; a
 * commit that kept the tid would put y, which the NMI holds, back on this
 * CPU's freelist.  (Kills the mutant "fast alloc commits tid, not
 * tid + 2", which every other suite lets live.)
 */
static struct kmem_cache *aba_cache;
static void *aba_y;
static bool aba_armed;

static void aba_nmi(enum mm_point where, void *arg)
{
	bool busy;
	void *x;

	if (where != MM_POINT_CPU_SLAB_FAST || arg != aba_cache ||
	    !aba_armed || in_nmi())
		return;
	aba_armed = false;
	host_nmi_nesting++;
	x = slab_alloc_nolock(aba_cache, 0, NUMA_NO_NODE, &busy, _THIS_IP_);
	aba_y = slab_alloc_nolock(aba_cache, 0, NUMA_NO_NODE, &busy,
				  _THIS_IP_);
	kmem_cache_free(aba_cache, x);
	host_nmi_nesting--;
}

static void nmi_aba_inside_the_fast_alloc(struct kunit *test)
{
	struct kmem_cache *s = cpuslab_cache(test, "rev_aba", 64, 0);
	void *warm[4], *got[8];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(warm); i++)
		warm[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(warm); i++)
		kmem_cache_free(s, warm[i]);
	aba_cache = s;
	aba_y = NULL;
	aba_armed = true;
	mm_point_hook = aba_nmi;
	got[0] = kmem_cache_alloc(s, GFP_KERNEL);
	mm_point_hook = NULL;
	KUNIT_ASSERT_NOT_NULL(test, aba_y);
	for (i = 1; i < ARRAY_SIZE(got); i++)
		got[i] = kmem_cache_alloc(s, GFP_KERNEL);
	for (i = 0; i < ARRAY_SIZE(got); i++)
		KUNIT_EXPECT_PTR_NE(test, got[i], aba_y);
	for (i = 0; i < ARRAY_SIZE(got); i++)
		kmem_cache_free(s, got[i]);
	kmem_cache_free(s, aba_y);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

static struct kunit_case rev_cases[] = {
	KUNIT_CASE(parked_then_freed_on_this_cpus_slab),
	KUNIT_CASE(parked_then_freed_on_a_remote_frozen_slab),
	KUNIT_CASE(slab_paths_beside_the_cpu_slabs),
	KUNIT_CASE(nmi_aba_inside_the_fast_alloc),
	{}
};

static int rev_case_init(struct kunit *test)
{
	(void)test;
	return slab_test_env_init();
}

static void rev_case_exit_env(struct kunit *test)
{
	rev_case_exit(test);
	slab_test_env_exit();
}

static struct kunit_suite rev_suite = {
	.name = "cpu_slab_review",
	.init = rev_case_init,
	.exit = rev_case_exit_env,
	.test_cases = rev_cases,
};
kunit_test_suite(rev_suite);
