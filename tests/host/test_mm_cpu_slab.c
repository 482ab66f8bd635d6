/*
 * test_mm_cpu_slab.c - SLUB's per-CPU slabs (mm/cpu_slab.c), the third
 * cache mode, step by step on the host.
 *
 * Every case makes a private cpu-slab cache (kmem_cache_args.mode =
 * SLAB_MODE_CPU_SLAB) in the slab tests' arena (test_mm_slab.c: 32 MiB,
 * four pretend CPUs), walks one road of the design and checks after each
 * step the exact statistics it took (every counter of the cache: the ones
 * named change by exactly that much, all others not at all), where each
 * slab is (some CPU's slab, some CPU's partial list, the node's partial or
 * full list, given back), its frozen bit and counters, and the invariant
 * checker (mm_check, F1/F2 included).  Each case gives back what it took:
 * the cache destroyed without leaks, the free pages as before.
 *
 * How contexts are played (as in test_mm_sheaf.c and test_mm_nolock.c):
 * another CPU is host_cpu_id switched around a call; an NMI is
 * host_nmi_nesting raised around a call made from an interleaving point
 * (mm_point_hook), so the locks the interrupted path holds are exactly
 * held; an IRQ's pending irq_work runs when the test calls irq_work_run().
 *
 * The cases: a slab frozen at birth and the two fast paths; remote frees
 * to a frozen slab (FREE_FROZEN) taken back whole (ALLOC_REFILL), a full
 * slab unfrozen (DEACTIVATE_FULL) and frees of unfrozen slabs under
 * list_lock; a flush unfreezing to each list and min_partial deciding an
 * empty slab's fate; the CPU partial list filled from the node, exactly
 * cpu_partial_slabs long, and used; NMIs that find the line's lock or
 * list_lock held (busy answers, deferred frees); the interrupt between the
 * fast path's reads and inside the free fast path (a flush IPI there);
 * shrink and destroy leaving
 * nothing frozen on any CPU; the kmalloc classes in this mode with
 * kmalloc_nolock()/kfree_nolock() from NMIs; the trace gate; and
 * mm_check's F1/F2 firing on planted damage.  (A request for another
 * node: tests/host/test_mm_numa.c.)
 */
#include <irq_work.h>
#include <kunit.h>
#include <kernel.h>
#include <mm.h>
#include <mm_check.h>
#include <mm_points.h>
#include <nolock_stats.h>
#include <slab.h>
#include <smp.h>
#include "../../mm/slab_internal.h"
#include "../kernel/buddy_drought.h"

int slab_test_env_init(void);
int slab_test_env_init_mode(enum slab_mode kmalloc_mode);
void slab_test_env_exit(void);

#define CS_SIZE   256   /* order-0 slabs of 16 objects */
#define CS_CPUS   4     /* test_mm_slab.c's pretend CPUs */
#define CS_MAX    256   /* objects a case holds at most */

static struct kmem_cache *cs;   /* the private cache of the case */
static void *obj[CS_MAX];
static unsigned long pages_before;
static bool action_is_irq;   /* the hook's action: an IRQ, else an NMI */

/* ---- statistics: every counter, exactly ---- */

static unsigned long snap[NR_SLAB_STAT_ITEMS];

struct step {
	enum slab_stat_item item;
	unsigned long n;
};

static void steps_mark(void)
{
	unsigned int i;

	for (i = 0; i < NR_SLAB_STAT_ITEMS; i++)
		snap[i] = slab_stat_sum(cs, i);
}

/* Since the mark: the items listed changed by n, every other one by 0.
 * Marks again. */
static void expect_steps(struct kunit *test, const struct step *want,
			 unsigned int nr, int line)
{
	unsigned int i, j;

	for (i = 0; i < NR_SLAB_STAT_ITEMS; i++) {
		unsigned long delta = slab_stat_sum(cs, i) - snap[i], n = 0;

		for (j = 0; j < nr; j++)
			if (want[j].item == i)
				n = want[j].n;
		if (delta != n)
			kunit_info(test, "line %d: %s changed by %lu, expected %lu",
				   line, slab_stat_item_name(i), delta, n);
		KUNIT_EXPECT_EQ(test, delta, n);
	}
	steps_mark();
}

#define EXPECT_STEPS(test, ...)						\
	do {								\
		const struct step want_[] = { __VA_ARGS__ };		\
		expect_steps(test, want_, ARRAY_SIZE(want_), __LINE__);	\
	} while (0)
#define EXPECT_NO_STEPS(test) expect_steps(test, NULL, 0, __LINE__)

/* ---- the cache and the CPUs ---- */

static unsigned long quiesced_free_pages(void)
{
	kmem_cache_shrink_all();
	drain_all_pages();
	return nr_free_pages();
}

static void make_cache(struct kunit *test, slab_flags_t flags)
{
	struct kmem_cache_args args = { .mode = SLAB_MODE_CPU_SLAB };

	pages_before = quiesced_free_pages();
	cs = kmem_cache_create_args("test_cpu_slab", CS_SIZE, &args, flags);
	KUNIT_ASSERT_NOT_NULL(test, cs);
	if (!cache_has_cpu_slab(cs)) {
		kmem_cache_destroy(cs);
		cs = NULL;
		kunit_skip(test, "slub_debug= is on: caches have no cpu slabs");
	}
	KUNIT_ASSERT_EQ(test, kmem_cache_mode(cs), SLAB_MODE_CPU_SLAB);
	KUNIT_ASSERT_EQ(test, cs->objects, 16);
	KUNIT_ASSERT_EQ(test, cs->cpu_partial_slabs, 7);   /* 2 * 52 / 16 */
	steps_mark();
}

static struct kmem_cache_cpu *line(unsigned int cpu)
{
	BUG_ON(!cs);
	return &cs->cpu_slab[cpu];
}

static struct kmem_cache_node *node0(void)
{
	return get_node(cs, 0);
}

static bool on_list(struct list_head *list, struct page *slab)
{
	struct page *p;

	list_for_each_entry(p, list, lru)
		if (p == slab)
			return true;
	return false;
}

static void *alloc_on(unsigned int cpu)
{
	unsigned int me = host_cpu_id;
	void *p;

	host_cpu_id = cpu;
	p = kmem_cache_alloc(cs, GFP_KERNEL);
	host_cpu_id = me;
	return p;
}

static void free_on(unsigned int cpu, void *p)
{
	unsigned int me = host_cpu_id;

	host_cpu_id = cpu;
	kmem_cache_free(cs, p);
	host_cpu_id = me;
}

/* Nothing frozen anywhere: every line empty, tid even, nr_frozen 0. */
static void expect_nothing_frozen(struct kunit *test)
{
	unsigned int cpu;
	int nid;

	for (cpu = 0; cpu < CS_CPUS; cpu++) {
		KUNIT_EXPECT_NULL(test, line(cpu)->slab);
		KUNIT_EXPECT_NULL(test, line(cpu)->freelist);
		KUNIT_EXPECT_EQ(test, line(cpu)->nr_partial, 0);
		KUNIT_EXPECT_TRUE(test, list_empty(&line(cpu)->partial));
		KUNIT_EXPECT_EQ(test, line(cpu)->tid & 1, 0);
	}
	for (nid = 0; nid < MAX_NUMNODES; nid++)
		KUNIT_EXPECT_EQ(test, get_node(cs, nid)->nr_frozen, 0);
}

static void destroy_cache(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cs), 0);
	cs = NULL;
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), pages_before);
}

static int cs_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void cs_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static void cs_case_exit(struct kunit *test)
{
	(void)test;
	mm_point_hook = NULL;
	action_is_irq = false;
	host_nmi_nesting = 0;
	host_irq_nesting = 0;
	host_cpu_id = 0;
	mm_check_quiet = false;
	mm_check_match = NULL;
	slab_trace_hook = NULL;
	slab_report_count_only = false;
}

/* ===================================================================== */
/* The life of a frozen slab                                             */
/* ===================================================================== */

/*
 * The first allocation makes a slab frozen at birth: no node list holds
 * it, nr_frozen counts it, its own freelist is empty (every object on this
 * CPU's freelist, so inuse == objects).  Then the fast paths: an
 * allocation pops this CPU's freelist, a free of an object of this slab
 * pushes it, each moving tid on by 2 and counted per CPU.
 */
static void frozen_at_birth_and_fast_paths(struct kunit *test)
{
	struct kmem_cache_cpu *c;
	struct page *slab;
	unsigned long tid;
	void *p;

	make_cache(test, 0);
	c = line(0);
	obj[0] = kmem_cache_alloc(cs, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	/* New slab; the slow path's pop counts as the fast path's would. */
	EXPECT_STEPS(test, { ALLOC_SLAB, 1 }, { ALLOC_FASTPATH, 1 });
	slab = virt_to_slab(obj[0]);
	KUNIT_EXPECT_PTR_EQ(test, c->slab, slab);
	KUNIT_EXPECT_EQ(test, slab->frozen, 1);
	KUNIT_EXPECT_EQ(test, slab->inuse, slab->objects);
	KUNIT_EXPECT_NULL(test, slab_freelist(cs, slab));
	KUNIT_EXPECT_EQ(test, cpu_slab_objects(cs, 0), cs->objects - 1);
	KUNIT_EXPECT_EQ(test, node0()->nr_frozen, 1);
	KUNIT_EXPECT_EQ(test, node0()->nr_slabs, 1);
	KUNIT_EXPECT_EQ(test, node0()->nr_partial, 0);
	KUNIT_EXPECT_TRUE(test, list_empty(&node0()->full));
	KUNIT_EXPECT_EQ(test, c->tid & 1, 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	tid = c->tid;
	obj[1] = kmem_cache_alloc(cs, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj[1]);
	EXPECT_STEPS(test, { ALLOC_FASTPATH, 1 });
	KUNIT_EXPECT_EQ(test, c->alloc_fastpath, 1);
	KUNIT_EXPECT_EQ(test, c->tid, tid + 2);
	KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(obj[1]), slab);
	KUNIT_EXPECT_EQ(test, cpu_slab_objects(cs, 0), cs->objects - 2);

	kmem_cache_free(cs, obj[1]);
	EXPECT_STEPS(test, { FREE_FASTPATH, 1 });
	KUNIT_EXPECT_EQ(test, c->free_fastpath, 1);
	KUNIT_EXPECT_EQ(test, c->tid, tid + 4);
	KUNIT_EXPECT_PTR_EQ(test, c->freelist, obj[1]);
	KUNIT_EXPECT_EQ(test, slab->inuse, slab->objects);   /* still held */
	/* LIFO: the object just freed comes back first. */
	p = kmem_cache_alloc(cs, GFP_KERNEL);
	KUNIT_EXPECT_PTR_EQ(test, p, obj[1]);
	EXPECT_STEPS(test, { ALLOC_FASTPATH, 1 });
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	kmem_cache_free(cs, p);
	kmem_cache_free(cs, obj[0]);
	EXPECT_STEPS(test, { FREE_FASTPATH, 2 });
	destroy_cache(test);
}

/*
 * Another CPU frees objects of cpu0's frozen slab: each goes onto the
 * slab's own freelist by one cmpxchg16b, no lock (FREE_FROZEN), inuse
 * down, still frozen.  A second free of one of them is reported.  When
 * cpu0's freelist runs dry, it takes that freelist whole (ALLOC_REFILL);
 * when the slab is full, it goes to the node's full list unfrozen
 * (DEACTIVATE_FULL) and a new slab is frozen.  A free to the unfrozen
 * full slab takes list_lock and makes it partial (FREE_SLOWPATH).
 */
static void remote_frees_refill_and_full_unfreeze(struct kunit *test)
{
	const unsigned int remote = 5;
	struct page *slab, *next;
	unsigned int i, objects;
	void *p;

	make_cache(test, 0);
	objects = cs->objects;
	for (i = 0; i < objects; i++) {
		obj[i] = alloc_on(0);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	EXPECT_STEPS(test, { ALLOC_SLAB, 1 }, { ALLOC_FASTPATH, objects });
	slab = line(0)->slab;
	KUNIT_ASSERT_NOT_NULL(test, slab);
	KUNIT_EXPECT_NULL(test, line(0)->freelist);

	for (i = 0; i < remote; i++)
		free_on(1, obj[i]);
	EXPECT_STEPS(test, { FREE_FROZEN, remote });
	KUNIT_EXPECT_EQ(test, slab->frozen, 1);
	KUNIT_EXPECT_EQ(test, slab->inuse, objects - remote);
	KUNIT_EXPECT_PTR_EQ(test, slab_freelist(cs, slab), obj[remote - 1]);
	KUNIT_EXPECT_NULL(test, line(1)->slab);   /* cpu1 took nothing */
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	/* free(a); free(a) from afar: the slab's freelist says it is free. */
	slab_report_count_only = true;
	host_cpu_id = 1;
	KUNIT_EXPECT_REPORT(test, "double free", kmem_cache_free(cs, obj[2]));
	host_cpu_id = 0;
	EXPECT_NO_STEPS(test);
	KUNIT_EXPECT_EQ(test, slab->inuse, objects - remote);

	/* cpu0: its freelist is empty, the slab's is not. */
	p = alloc_on(0);
	KUNIT_EXPECT_PTR_EQ(test, p, obj[remote - 1]);
	EXPECT_STEPS(test, { ALLOC_REFILL, 1 }, { ALLOC_FASTPATH, 1 });
	KUNIT_EXPECT_EQ(test, slab->inuse, objects);
	KUNIT_EXPECT_NULL(test, slab_freelist(cs, slab));
	KUNIT_EXPECT_EQ(test, cpu_slab_objects(cs, 0), remote - 1);
	for (i = 0; i + 1 < remote; i++) {
		obj[i] = alloc_on(0);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	obj[remote - 1] = p;
	EXPECT_STEPS(test, { ALLOC_FASTPATH, remote - 1 });

	/* Full and nothing freed to it: unfrozen onto the full list. */
	obj[objects] = alloc_on(0);
	KUNIT_ASSERT_NOT_NULL(test, obj[objects]);
	EXPECT_STEPS(test, { DEACTIVATE_FULL, 1 }, { ALLOC_SLAB, 1 },
		     { ALLOC_FASTPATH, 1 });
	next = line(0)->slab;
	KUNIT_EXPECT_PTR_NE(test, next, slab);
	KUNIT_EXPECT_EQ(test, slab->frozen, 0);
	KUNIT_EXPECT_TRUE(test, on_list(&node0()->full, slab));
	KUNIT_EXPECT_EQ(test, node0()->nr_frozen, 1);
	KUNIT_EXPECT_EQ(test, node0()->nr_slabs, 2);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	/* A free to the unfrozen slab, from any CPU: under list_lock. */
	free_on(2, obj[0]);
	EXPECT_STEPS(test, { FREE_SLOWPATH, 1 });
	KUNIT_EXPECT_TRUE(test, on_list(&node0()->partial, slab));
	KUNIT_EXPECT_EQ(test, node0()->nr_partial, 1);
	KUNIT_EXPECT_EQ(test, slab->frozen, 0);
	/* free(a); free(a) there: the ordinary check says so. */
	KUNIT_EXPECT_REPORT(test, "double free", kmem_cache_free(cs, obj[0]));
	slab_report_count_only = false;
	/* Refused, yet counted, as slab.c counts a refused free. */
	EXPECT_STEPS(test, { FREE_SLOWPATH, 1 });
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	for (i = 1; i <= objects; i++)
		kmem_cache_free(cs, obj[i]);
	destroy_cache(test);
}

/*
 * A flush (kmem_cache_shrink()'s first step) unfreezes every CPU's slab
 * with the objects of its freelist merged back: cpu0's empty slab is kept
 * on partial (the node has fewer than min_partial), cpu1's empty one then
 * goes back to the buddy (DEACTIVATE_EMPTY), cpu2's half-used one goes
 * partial, cpu3's full one full.  min_partial is set to 1 here, so each
 * rule shows with four CPUs.
 */
static void flush_unfreezes_to_each_list(struct kunit *test)
{
	struct page *slab[CS_CPUS];
	unsigned int cpu, i, objects;
	void *p;

	make_cache(test, 0);
	cs->min_partial = 1;
	objects = cs->objects;
	for (cpu = 0; cpu < 2; cpu++) {   /* empty */
		p = alloc_on(cpu);
		KUNIT_ASSERT_NOT_NULL(test, p);
		free_on(cpu, p);
	}
	obj[0] = alloc_on(2);             /* one in use */
	obj[1] = alloc_on(2);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	KUNIT_ASSERT_NOT_NULL(test, obj[1]);
	free_on(2, obj[1]);
	for (i = 0; i < objects; i++) {   /* full */
		obj[2 + i] = alloc_on(3);
		KUNIT_ASSERT_NOT_NULL(test, obj[2 + i]);
	}
	EXPECT_STEPS(test, { ALLOC_SLAB, 4 }, { ALLOC_FASTPATH, 4 + objects },
		     { FREE_FASTPATH, 3 });
	for (cpu = 0; cpu < CS_CPUS; cpu++)
		slab[cpu] = line(cpu)->slab;
	KUNIT_EXPECT_EQ(test, node0()->nr_frozen, 4);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	flush_all_cpu_slabs(cs);
	EXPECT_STEPS(test, { CPUSLAB_FLUSH, 4 }, { DEACTIVATE_PARTIAL, 2 },
		     { DEACTIVATE_EMPTY, 1 }, { DEACTIVATE_FULL, 1 },
		     { FREE_SLAB, 1 });
	expect_nothing_frozen(test);
	KUNIT_EXPECT_TRUE(test, on_list(&node0()->partial, slab[0]));
	KUNIT_EXPECT_EQ(test, slab[0]->inuse, 0);
	KUNIT_EXPECT_TRUE(test, on_list(&node0()->partial, slab[2]));
	KUNIT_EXPECT_EQ(test, slab[2]->inuse, 1);
	KUNIT_EXPECT_TRUE(test, on_list(&node0()->full, slab[3]));
	KUNIT_EXPECT_EQ(test, node0()->nr_partial, 2);
	KUNIT_EXPECT_EQ(test, node0()->nr_slabs, 3);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	/* A second flush finds nothing; the shrink frees the kept empty. */
	kmem_cache_shrink(cs);
	EXPECT_STEPS(test, { FREE_SLAB, 1 });
	KUNIT_EXPECT_EQ(test, node0()->nr_slabs, 2);

	/* Frees of unfrozen slabs' objects: under list_lock, the last one
	 * of slab[2] empties it with nr_partial at min_partial: kept. */
	for (i = 0; i < objects; i++)
		free_on(i % CS_CPUS, obj[2 + i]);
	kmem_cache_free(cs, obj[0]);
	EXPECT_STEPS(test, { FREE_SLOWPATH, objects + 1 }, { FREE_SLAB, 1 });
	KUNIT_EXPECT_EQ(test, node0()->nr_slabs, 1);
	expect_nothing_frozen(test);
	destroy_cache(test);
}

/*
 * Nine slabs on the node's partial list, one free object each: a CPU with
 * nothing freezes the first for itself (ALLOC_FROM_PARTIAL, its object
 * taken) and exactly cpu_partial_slabs more onto its partial list
 * (CPU_PARTIAL_NODE), the last one left on the node.  When its slab is
 * used up it is unfrozen full and the next comes off the CPU's partial
 * list (CPU_PARTIAL_ALLOC), whose free object is on the slab's own
 * freelist (ALLOC_REFILL).
 */
static void cpu_partial_list_from_node(struct kunit *test)
{
	unsigned int i, objects, cps, nr_slabs;
	struct kmem_cache_cpu *c;
	struct page *first;

	make_cache(test, 0);
	c = line(1);
	cs->min_partial = 0;
	objects = cs->objects;
	cps = cs->cpu_partial_slabs;
	nr_slabs = cps + 2;
	KUNIT_ASSERT_LE(test, (nr_slabs + 1) * objects, CS_MAX);
	/* cpu0 fills nr_slabs slabs and starts one more. */
	for (i = 0; i < nr_slabs * objects + 1; i++) {
		obj[i] = alloc_on(0);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	EXPECT_STEPS(test, { ALLOC_SLAB, nr_slabs + 1 },
		     { DEACTIVATE_FULL, nr_slabs },
		     { ALLOC_FASTPATH, nr_slabs * objects + 1 });
	/* One object of each full slab back: partial, unfrozen. */
	for (i = 0; i < nr_slabs; i++)
		free_on(2, obj[i * objects]);
	EXPECT_STEPS(test, { FREE_SLOWPATH, nr_slabs });
	KUNIT_EXPECT_EQ(test, node0()->nr_partial, nr_slabs);
	first = list_first_entry(&node0()->partial, struct page, lru);

	obj[0] = alloc_on(1);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	EXPECT_STEPS(test, { ALLOC_FROM_PARTIAL, 1 },
		     { CPU_PARTIAL_NODE, cps }, { ALLOC_FASTPATH, 1 });
	KUNIT_EXPECT_PTR_EQ(test, c->slab, first);
	KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(obj[0]), first);
	KUNIT_EXPECT_EQ(test, c->nr_partial, cps);
	KUNIT_EXPECT_EQ(test, node0()->nr_partial, nr_slabs - 1 - cps);
	KUNIT_EXPECT_EQ(test, node0()->nr_frozen, 1 + 1 + cps);
	KUNIT_EXPECT_EQ(test, first->frozen, 1);
	KUNIT_EXPECT_EQ(test, first->inuse, objects);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	obj[objects] = alloc_on(1);
	KUNIT_ASSERT_NOT_NULL(test, obj[objects]);
	EXPECT_STEPS(test, { DEACTIVATE_FULL, 1 }, { CPU_PARTIAL_ALLOC, 1 },
		     { ALLOC_REFILL, 1 }, { ALLOC_FASTPATH, 1 });
	KUNIT_EXPECT_EQ(test, first->frozen, 0);
	KUNIT_EXPECT_TRUE(test, on_list(&node0()->full, first));
	KUNIT_EXPECT_EQ(test, c->nr_partial, cps - 1);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	/* Everything back; the shrink unfreezes cpu1's partial slabs too. */
	kmem_cache_shrink(cs);
	expect_nothing_frozen(test);
	for (i = 0; i < nr_slabs * objects + 1; i++)   /* those still out */
		if (i % objects || i / objects <= 1 ||
		    i == nr_slabs * objects)
			kmem_cache_free(cs, obj[i]);
	destroy_cache(test);
}

/* ===================================================================== */
/* NMIs on a cpu-slab cache: the trylock-only rules                      */
/* ===================================================================== */

static enum mm_point nmi_point;
static unsigned int nmi_runs;
static void (*nmi_action)(void);
static void *nmi_free_frozen, *nmi_free_unfrozen, *nmi_got;
static bool nmi_busy;

static void nmi_at_point(enum mm_point point, void *arg)
{
	if (point != nmi_point || arg != cs || nmi_runs)
		return;
	nmi_runs++;
	if (action_is_irq) {   /* an IPI: IRQ context, IRQs were on */
		host_irq_nesting++;
		nmi_action();
		host_irq_nesting--;
		return;
	}
	host_nmi_nesting++;
	nmi_action();
	host_nmi_nesting--;
}

static void nmi_alloc_and_free(void)
{
	nmi_busy = false;
	nmi_got = slab_alloc_nolock(cs, 0, NUMA_NO_NODE, &nmi_busy, _THIS_IP_);
	if (nmi_free_frozen)
		kfree_nolock(nmi_free_frozen);
	if (nmi_free_unfrozen)
		kfree_nolock(nmi_free_unfrozen);
}

/*
 * An NMI lands in cpu0's slow path while it holds its line (tid odd):
 * its allocation cannot go fast (odd tid) nor through the line (its
 * trylock fails); the ordinary path behind it finds no partial slab and
 * (the buddy dry) no page, so it answers busy, not "no memory"; its free
 * of an object of the frozen slab needs no lock (FREE_FROZEN), and the
 * slow path it interrupted then takes that very object back
 * (ALLOC_REFILL).  With memory, the same NMI is served by a new slab of
 * the ordinary path, never frozen.
 */
static void nmi_in_slow_path_line_held(struct kunit *test)
{
	unsigned int i, objects;
	LIST_HEAD(taken);
	void *p;

	make_cache(test, 0);
	objects = cs->objects;
	for (i = 0; i < objects; i++) {
		obj[i] = alloc_on(0);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	steps_mark();
	nmi_point = MM_POINT_CPU_SLAB_LOCKED;
	nmi_runs = 0;
	nmi_action = nmi_alloc_and_free;
	nmi_free_frozen = obj[3];
	nmi_free_unfrozen = NULL;
	exhaust_buddy(&taken);
	mm_point_hook = nmi_at_point;
	p = kmem_cache_alloc(cs, GFP_KERNEL);
	mm_point_hook = NULL;
	release_buddy(&taken);
	KUNIT_ASSERT_EQ(test, nmi_runs, 1);
	KUNIT_EXPECT_NULL(test, nmi_got);
	KUNIT_EXPECT_TRUE(test, nmi_busy);
	KUNIT_EXPECT_PTR_EQ(test, p, obj[3]);
	EXPECT_STEPS(test, { FREE_FROZEN, 1 }, { ALLOC_REFILL, 1 },
		     { ALLOC_FASTPATH, 1 });
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(0), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	/* Memory again: the NMI, landing while the line is held (taken
	 * here as the slow path takes it), gets a new slab of the ordinary
	 * path, which the line never sees. */
	kmem_cache_free(cs, p);
	obj[3] = NULL;   /* p was obj[3]: freed now */
	EXPECT_STEPS(test, { FREE_FASTPATH, 1 });
	nmi_free_frozen = NULL;
	steps_mark();
	host_nmi_nesting++;
	{
		unsigned long flags;
		struct kmem_cache_cpu *c = line(0);

		/* The line held as the slow path holds it. */
		BUG_ON(!local_trylock_irqsave(&c->lock, flags));
		c->tid |= 1;
		nmi_alloc_and_free();
		c->tid += 1;
		local_unlock_irqrestore(&c->lock, flags);
	}
	host_nmi_nesting--;
	KUNIT_ASSERT_NOT_NULL(test, nmi_got);
	KUNIT_EXPECT_FALSE(test, nmi_busy);
	KUNIT_EXPECT_EQ(test, virt_to_slab(nmi_got)->frozen, 0);
	KUNIT_EXPECT_PTR_NE(test, virt_to_slab(nmi_got), line(0)->slab);
	EXPECT_STEPS(test, { ALLOC_SLAB, 1 }, { ALLOC_SLOWPATH, 1 });
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	kmem_cache_free(cs, nmi_got);
	for (i = 0; i < objects; i++)
		if (obj[i])
			kmem_cache_free(cs, obj[i]);
	destroy_cache(test);
}

/*
 * An NMI lands while cpu0 unfreezes its full slab (list_lock held, the
 * slab still frozen): the free of an object of an unfrozen slab cannot
 * take list_lock, so it is parked (FREE_DEFERRED) and freed by irq_work
 * once the lock is free; the free of an object of the slab being unfrozen
 * goes onto its freelist (FREE_FROZEN), so the unfreeze that follows finds
 * it partial, not full; the allocation is busy (the line is held).
 */
static void nmi_while_unfreeze_holds_list_lock(struct kunit *test)
{
	unsigned int i, objects;
	struct page *a, *b;
	void *p;

	make_cache(test, 0);
	objects = cs->objects;
	/* Slab a full and unfrozen, slab b full and cpu0's. */
	for (i = 0; i < 2 * objects; i++) {
		obj[i] = alloc_on(0);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	a = virt_to_slab(obj[0]);
	b = line(0)->slab;
	KUNIT_ASSERT_EQ(test, a->frozen, 0);
	KUNIT_ASSERT_EQ(test, b->frozen, 1);
	steps_mark();
	nmi_point = MM_POINT_CPU_SLAB_UNFREEZE;
	nmi_runs = 0;
	nmi_action = nmi_alloc_and_free;
	nmi_free_frozen = obj[objects];
	nmi_free_unfrozen = obj[0];
	mm_point_hook = nmi_at_point;
	p = kmem_cache_alloc(cs, GFP_KERNEL);
	mm_point_hook = NULL;
	KUNIT_ASSERT_EQ(test, nmi_runs, 1);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_NULL(test, nmi_got);
	KUNIT_EXPECT_TRUE(test, nmi_busy);
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(0), 1);
	/* b went partial with the NMI's object, and was frozen again from
	 * the node's partial list for the allocation. */
	KUNIT_EXPECT_PTR_EQ(test, p, obj[objects]);
	KUNIT_EXPECT_PTR_EQ(test, line(0)->slab, b);
	EXPECT_STEPS(test, { FREE_FROZEN, 1 }, { FREE_DEFERRED, 1 },
		     { DEACTIVATE_PARTIAL, 1 }, { ALLOC_FROM_PARTIAL, 1 },
		     { ALLOC_FASTPATH, 1 });
	/* The IRQ: the parked object goes to slab a under list_lock. */
	irq_work_run();
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(0), 0);
	EXPECT_STEPS(test, { FREE_SLOWPATH, 1 });
	KUNIT_EXPECT_EQ(test, a->inuse, objects - 1);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	for (i = 1; i < 2 * objects; i++)
		kmem_cache_free(cs, obj[i]);
	destroy_cache(test);
}

/*
 * list_lock held by the interrupted code (taken by the test, as a path
 * that holds it would) while this CPU's slab is full: the NMI's
 * allocation must unfreeze it, cannot, and answers busy with nothing
 * changed; its free to an unfrozen slab is parked.
 */
static void nmi_with_list_lock_held_is_busy(struct kunit *test)
{
	unsigned int i, objects;
	unsigned long flags;
	struct page *b;

	make_cache(test, 0);
	objects = cs->objects;
	for (i = 0; i < 2 * objects; i++) {
		obj[i] = alloc_on(0);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	b = line(0)->slab;
	steps_mark();
	nmi_free_frozen = NULL;
	nmi_free_unfrozen = obj[0];
	spin_lock_irqsave(&node0()->list_lock, flags);
	host_nmi_nesting++;
	nmi_alloc_and_free();
	host_nmi_nesting--;
	spin_unlock_irqrestore(&node0()->list_lock, flags);
	KUNIT_EXPECT_NULL(test, nmi_got);
	KUNIT_EXPECT_TRUE(test, nmi_busy);
	KUNIT_EXPECT_PTR_EQ(test, line(0)->slab, b);
	KUNIT_EXPECT_EQ(test, b->frozen, 1);
	KUNIT_EXPECT_EQ(test, line(0)->tid & 1, 0);
	EXPECT_STEPS(test, { FREE_DEFERRED, 1 });
	irq_work_run();
	EXPECT_STEPS(test, { FREE_SLOWPATH, 1 });
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	for (i = 1; i < 2 * objects; i++)
		kmem_cache_free(cs, obj[i]);
	destroy_cache(test);
}

/* ===================================================================== */
/* An interrupt between the fast path's reads                            */
/* ===================================================================== */

static void flush_ipi_here(void)
{
	flush_all_cpu_slabs(cs);   /* this CPU's part is what matters */
}

/*
 * A flush IPI (another CPU's kmem_cache_shrink()) lands between the
 * allocation fast path's read of the freelist head and its read of the
 * slab: the slab it reads is NULL, the head a stale object of the slab
 * just unfrozen.  The fast path must go slow, not look the successor up
 * in a NULL slab (object_index() of a NULL slab reads NULL->objects in
 * the kernel, whose vmemmap puts slab_base(NULL) below every object; the
 * host build warns instead); the slow path freezes the slab again from
 * the node.  An IRQ allocation that leaves this CPU without a slab (the
 * slab full, no memory) does the same.
 */
static void flush_between_fast_path_reads(struct kunit *test)
{
	struct page *slab;
	void *p;

	make_cache(test, 0);
	obj[0] = alloc_on(0);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	slab = line(0)->slab;
	steps_mark();
	nmi_point = MM_POINT_CPU_SLAB_FAST_HEAD;
	nmi_runs = 0;
	nmi_action = flush_ipi_here;
	action_is_irq = true;
	mm_point_hook = nmi_at_point;
	p = kmem_cache_alloc(cs, GFP_KERNEL);
	mm_point_hook = NULL;
	action_is_irq = false;
	KUNIT_ASSERT_EQ(test, nmi_runs, 1);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(p), slab);
	KUNIT_EXPECT_PTR_EQ(test, line(0)->slab, slab);
	EXPECT_STEPS(test, { CPUSLAB_FLUSH, 1 }, { DEACTIVATE_PARTIAL, 1 },
		     { ALLOC_FROM_PARTIAL, 1 }, { ALLOC_FASTPATH, 1 });
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	kmem_cache_free(cs, p);
	kmem_cache_free(cs, obj[0]);
	destroy_cache(test);
}

/*
 * The same IPI inside the free fast path, after it linked the object to
 * the head it read and before its commit: the commit fails (tid moved),
 * the retry finds the slab no longer this CPU's and frees slow, to the
 * slab now unfrozen on the node.  The link the failed try left in the
 * object must be gone by then, or the slow path's double-free check reads
 * it as "already free" and refuses a good free.
 */
static void flush_inside_free_fast_path(struct kunit *test)
{
	struct page *slab;

	make_cache(test, 0);
	obj[0] = alloc_on(0);
	obj[1] = alloc_on(0);
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	KUNIT_ASSERT_NOT_NULL(test, obj[1]);
	slab = line(0)->slab;
	steps_mark();
	nmi_point = MM_POINT_CPU_SLAB_FAST;
	nmi_runs = 0;
	nmi_action = flush_ipi_here;
	action_is_irq = true;
	mm_point_hook = nmi_at_point;
	kmem_cache_free(cs, obj[1]);
	mm_point_hook = NULL;
	action_is_irq = false;
	KUNIT_ASSERT_EQ(test, nmi_runs, 1);
	EXPECT_STEPS(test, { CPUSLAB_FLUSH, 1 }, { DEACTIVATE_PARTIAL, 1 },
		     { CMPXCHG_DOUBLE_CPU_FAIL, 1 }, { FREE_SLOWPATH, 1 });
	KUNIT_EXPECT_EQ(test, slab->frozen, 0);
	KUNIT_EXPECT_EQ(test, slab->inuse, 1);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	kmem_cache_free(cs, obj[0]);
	destroy_cache(test);
}

/* ===================================================================== */
/* Shrink and destroy leave nothing frozen                               */
/* ===================================================================== */

/*
 * Every CPU allocates, frees some of its own objects and some of the
 * others' (remote frees to frozen slabs), so each holds a slab, maybe a
 * CPU partial list; a shrink unfreezes everything on every CPU, and the
 * destroy finds every object accounted for.
 */
static void shrink_and_destroy_leave_nothing_frozen(struct kunit *test)
{
	const unsigned int per_cpu = 40;
	unsigned int cpu, i;

	make_cache(test, 0);
	for (i = 0; i < CS_CPUS * per_cpu; i++) {
		obj[i] = alloc_on(i % CS_CPUS);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	/* Every third object freed by the CPU after its allocator's. */
	for (i = 0; i < CS_CPUS * per_cpu; i += 3) {
		free_on((i + 1) % CS_CPUS, obj[i]);
		obj[i] = NULL;
	}
	for (cpu = 0; cpu < CS_CPUS; cpu++)
		KUNIT_EXPECT_NOT_NULL(test, line(cpu)->slab);
	KUNIT_EXPECT_GT(test, slab_stat_sum(cs, FREE_FROZEN), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	kmem_cache_shrink(cs);
	expect_nothing_frozen(test);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(cs, CPUSLAB_FLUSH), CS_CPUS);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	/* Used again after the shrink, then destroyed with CPUs holding
	 * slabs: the destroy flushes them itself. */
	for (i = 0; i < CS_CPUS * per_cpu; i++) {
		if (obj[i])
			free_on((i + 2) % CS_CPUS, obj[i]);
		obj[i] = alloc_on(i % CS_CPUS);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	for (i = 0; i < CS_CPUS * per_cpu; i++)
		free_on(i % CS_CPUS, obj[i]);
	for (cpu = 0; cpu < CS_CPUS; cpu++)
		KUNIT_EXPECT_NOT_NULL(test, line(cpu)->slab);
	destroy_cache(test);
}

/* ===================================================================== */
/* The kmalloc classes in cpu-slab mode                                  */
/* ===================================================================== */

static void *nmi_kmalloc_got;
static void *nmi_kfree_this, *nmi_k64_got;
static bool nmi_frozen_seen;   /* an object of a frozen slab, then */

static void nmi_kmalloc_kfree(void)
{
	nmi_kmalloc_got = kmalloc_nolock(64, 0, NUMA_NO_NODE);
	nmi_k64_got = slab_alloc_nolock(cs, 0, NUMA_NO_NODE, &nmi_busy,
					_THIS_IP_);
	nmi_frozen_seen = (nmi_kmalloc_got &&
			   virt_to_slab(nmi_kmalloc_got)->frozen) ||
			  (nmi_k64_got && virt_to_slab(nmi_k64_got)->frozen);
	if (nmi_kfree_this)
		kfree_nolock(nmi_kfree_this);
}

/*
 * slab_mode=cpuslab: every kmalloc class is a cpu-slab cache.  From an
 * NMI, kmalloc_nolock() is served by the fast path while the line is
 * free; while the NMI interrupts the class's own slow path (line held)
 * it goes past the line to the node's partial slabs by trylock (as past
 * a held sheaf lock), and kfree_nolock() of an
 * object whose slab is unfrozen while list_lock is held is parked, then
 * freed by irq_work.
 */
static void kmalloc_classes_in_cpu_slab_mode(struct kunit *test)
{
	struct kmem_cache *k64;
	unsigned long busy, deferred, flags;
	unsigned int i, objects;
	void *p[130];

	p[0] = kmalloc(64, GFP_KERNEL);
	k64 = p[0] ? virt_to_slab(p[0])->slab_cache : NULL;
	KUNIT_ASSERT_NOT_NULL(test, p[0]);
	if (!cache_has_cpu_slab(k64)) {
		kfree(p[0]);
		kunit_skip(test, "slub_debug= is on: caches have no cpu slabs");
	}
	KUNIT_EXPECT_EQ(test, kmem_cache_mode(k64), SLAB_MODE_CPU_SLAB);
	KUNIT_EXPECT_EQ(test, kmem_cache_mode(k64) == SLAB_MODE_CPU_SLAB ? slab_kmalloc_mode : SLAB_MODE_AUTO,
			slab_kmalloc_mode);
	cs = k64;
	objects = cs->objects;
	KUNIT_ASSERT_LE(test, objects + 1, ARRAY_SIZE(p));

	/* The fast path from an NMI. */
	nmi_kfree_this = NULL;
	host_nmi_nesting++;
	nmi_kmalloc_kfree();
	host_nmi_nesting--;
	KUNIT_ASSERT_NOT_NULL(test, nmi_kmalloc_got);
	KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(nmi_kmalloc_got), line(0)->slab);
	KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(nmi_k64_got), line(0)->slab);
	kfree_nolock(nmi_kmalloc_got);
	kfree_nolock(nmi_k64_got);

	/* Landing in the class's slow path (the line flushed, so the next
	 * kmalloc() goes slow): busy, and its kfree_nolock() of an
	 * unfrozen slab's object takes the free list_lock. */
	for (i = 1; i <= objects; i++) {
		p[i] = kmalloc(64, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, p[i]);
	}
	kmem_cache_shrink(cs);
	busy = this_cpu_ptr(nolock_stats)->obj_alloc_busy;
	nmi_point = MM_POINT_CPU_SLAB_LOCKED;
	nmi_runs = 0;
	nmi_action = nmi_kmalloc_kfree;
	nmi_kfree_this = p[0];
	mm_point_hook = nmi_at_point;
	p[0] = kmalloc(64, GFP_KERNEL);
	mm_point_hook = NULL;
	KUNIT_ASSERT_NOT_NULL(test, p[0]);
	KUNIT_ASSERT_EQ(test, nmi_runs, 1);
	/* The line was held: both went past it to the node's partial
	 * slabs (the shrink left them there), under a list_lock trylock,
	 * from slabs that are not frozen; nothing counted busy. */
	KUNIT_ASSERT_NOT_NULL(test, nmi_kmalloc_got);
	KUNIT_ASSERT_NOT_NULL(test, nmi_k64_got);
	KUNIT_EXPECT_PTR_EQ(test, virt_to_slab(nmi_kmalloc_got)->slab_cache,
			    k64);
	KUNIT_EXPECT_FALSE(test, nmi_frozen_seen);
	KUNIT_EXPECT_FALSE(test, nmi_busy);
	KUNIT_EXPECT_EQ(test, this_cpu_ptr(nolock_stats)->obj_alloc_busy,
			busy);
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(0), 0);
	kfree(nmi_kmalloc_got);
	kfree(nmi_k64_got);

	/* list_lock held, an object of an unfrozen slab: parked. */
	deferred = this_cpu_ptr(nolock_stats)->obj_free_deferred;
	kmem_cache_shrink(cs);   /* every slab unfrozen */
	nmi_kfree_this = p[1];
	p[1] = NULL;
	spin_lock_irqsave(&get_node(cs, 0)->list_lock, flags);
	host_nmi_nesting++;
	kfree_nolock(nmi_kfree_this);
	host_nmi_nesting--;
	spin_unlock_irqrestore(&get_node(cs, 0)->list_lock, flags);
	KUNIT_EXPECT_EQ(test, this_cpu_ptr(nolock_stats)->obj_free_deferred,
			deferred + 1);
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(0), 1);
	irq_work_run();
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(0), 0);
	for (i = 0; i <= objects; i++)
		kfree(p[i]);
	cs = NULL;
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static int cs_kmalloc_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init_mode(SLAB_MODE_CPU_SLAB);
}

/* ===================================================================== */
/* The trace gate                                                        */
/* ===================================================================== */

#define TRACE_STEPS 64

static enum slab_stat_item traced_items[TRACE_STEPS];
static unsigned int nr_traced;

static void trace_record(struct kmem_cache *s, enum slab_stat_item item,
			 const char *func)
{
	(void)func;
	if (s == cs && nr_traced < TRACE_STEPS)
		traced_items[nr_traced++] = item;
}

static unsigned int traced_count(enum slab_stat_item item)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr_traced; i++)
		n += traced_items[i] == item;
	return n;
}

/*
 * A traced cache keeps every CPU's tid odd, so neither fast path commits:
 * every allocation and free is a step of the slow paths, printed (the
 * hook sees each), and the per-CPU fast-path counters stay 0.  Turned off,
 * tid is even again and the fast paths serve silently.
 */
static void traced_cache_goes_slow(struct kunit *test)
{
	unsigned int cpu, i;

	make_cache(test, 0);
	nr_traced = 0;
	slab_trace_hook = trace_record;
	slab_trace_enable(cs);
	for (cpu = 0; cpu < CS_CPUS; cpu++)
		KUNIT_EXPECT_EQ(test, line(cpu)->tid & 1, 1);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	for (i = 0; i < 4; i++) {
		obj[i] = kmem_cache_alloc(cs, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	for (i = 0; i < 4; i++)
		kmem_cache_free(cs, obj[i]);
	KUNIT_EXPECT_EQ(test, line(0)->alloc_fastpath, 0);
	KUNIT_EXPECT_EQ(test, line(0)->free_fastpath, 0);
	/* One slab, four slow pops, four frees to the frozen slab. */
	KUNIT_EXPECT_EQ(test, traced_count(ALLOC_SLAB), 1);
	KUNIT_EXPECT_EQ(test, traced_count(ALLOC_FASTPATH), 4);
	KUNIT_EXPECT_EQ(test, traced_count(FREE_FROZEN), 4);
	KUNIT_EXPECT_EQ(test, nr_traced, 9);
	KUNIT_EXPECT_EQ(test, line(0)->tid & 1, 1);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	slab_trace_disable(cs);
	for (cpu = 0; cpu < CS_CPUS; cpu++)
		KUNIT_EXPECT_EQ(test, line(cpu)->tid & 1, 0);
	obj[0] = kmem_cache_alloc(cs, GFP_KERNEL);   /* freezes a slab */
	KUNIT_ASSERT_NOT_NULL(test, obj[0]);
	nr_traced = 0;
	steps_mark();
	obj[1] = kmem_cache_alloc(cs, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, obj[1]);
	kmem_cache_free(cs, obj[1]);
	EXPECT_STEPS(test, { ALLOC_FASTPATH, 1 }, { FREE_FASTPATH, 1 });
	KUNIT_EXPECT_EQ(test, nr_traced, 0);
	kmem_cache_free(cs, obj[0]);
	destroy_cache(test);
}

/* ===================================================================== */
/* mm_check's F1 and F2 fire                                             */
/* ===================================================================== */

static bool check_names(const char *what)
{
	unsigned long matched;

	mm_check_quiet = true;
	mm_check_match = what;
	mm_check_matched = 0;
	slab_cache_check(cs);
	matched = mm_check_matched;
	mm_check_match = NULL;
	mm_check_quiet = false;
	return matched > 0;
}

/*
 * Each break of F1 or F2 planted by hand is named by the checker, and
 * mended the check is clean again: a CPU's slab not frozen, a node-list
 * slab frozen, nr_frozen off, tid odd, a CPU partial list whose length is
 * not nr_partial, a freelist without a slab, a CPU freelist reaching out
 * of its slab.
 */
static void checker_finds_planted_damage(struct kunit *test)
{
	struct kmem_cache_cpu *c;
	struct page *slab, *other;
	unsigned int i, objects;
	void *head;

	make_cache(test, 0);
	objects = cs->objects;
	for (i = 0; i < objects + 2; i++) {
		obj[i] = alloc_on(0);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	c = line(0);
	slab = c->slab;
	other = virt_to_slab(obj[0]);   /* full, on the node's full list */
	KUNIT_ASSERT_EQ(test, slab_cache_check(cs), 0);

	slab->frozen = 0;
	KUNIT_EXPECT_TRUE(test, check_names("no frozen slab of the cache"));
	slab->frozen = 1;

	other->frozen = 1;
	KUNIT_EXPECT_TRUE(test, check_names("on a node list is frozen"));
	other->frozen = 0;

	node0()->nr_frozen++;
	KUNIT_EXPECT_TRUE(test, check_names("nr_frozen"));
	node0()->nr_frozen--;

	c->tid |= 1;
	KUNIT_EXPECT_TRUE(test, check_names("odd"));
	c->tid += 1;

	c->nr_partial++;
	KUNIT_EXPECT_TRUE(test, check_names("partial list broken"));
	c->nr_partial--;

	head = c->freelist;
	KUNIT_ASSERT_NOT_NULL(test, head);
	c->freelist = obj[1];   /* an object of the other slab */
	KUNIT_EXPECT_TRUE(test, check_names("not an object of its slab"));
	c->freelist = head;

	c->slab = NULL;
	KUNIT_EXPECT_TRUE(test, check_names("a freelist without a slab"));
	c->slab = slab;

	KUNIT_EXPECT_EQ(test, slab_cache_check(cs), 0);
	for (i = 0; i < objects + 2; i++)
		kmem_cache_free(cs, obj[i]);
	destroy_cache(test);
}

static struct kunit_case cpu_slab_cases[] = {
	KUNIT_CASE(frozen_at_birth_and_fast_paths),
	KUNIT_CASE(remote_frees_refill_and_full_unfreeze),
	KUNIT_CASE(flush_unfreezes_to_each_list),
	KUNIT_CASE(cpu_partial_list_from_node),
	KUNIT_CASE(nmi_in_slow_path_line_held),
	KUNIT_CASE(nmi_while_unfreeze_holds_list_lock),
	KUNIT_CASE(nmi_with_list_lock_held_is_busy),
	KUNIT_CASE(flush_between_fast_path_reads),
	KUNIT_CASE(flush_inside_free_fast_path),
	KUNIT_CASE(shrink_and_destroy_leave_nothing_frozen),
	KUNIT_CASE(traced_cache_goes_slow),
	KUNIT_CASE(checker_finds_planted_damage),
	{}
};

static struct kunit_suite cpu_slab_suite = {
	.name = "cpu_slab",
	.suite_init = cs_suite_init,
	.suite_exit = cs_suite_exit,
	.exit = cs_case_exit,
	.test_cases = cpu_slab_cases,
};
kunit_test_suite(cpu_slab_suite);

static struct kunit_case cpu_slab_kmalloc_cases[] = {
	KUNIT_CASE(kmalloc_classes_in_cpu_slab_mode),
	{}
};

static struct kunit_suite cpu_slab_kmalloc_suite = {
	.name = "cpu_slab_kmalloc",
	.suite_init = cs_kmalloc_suite_init,
	.suite_exit = cs_suite_exit,
	.exit = cs_case_exit,
	.test_cases = cpu_slab_kmalloc_cases,
};
kunit_test_suite(cpu_slab_kmalloc_suite);
