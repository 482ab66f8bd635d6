/*
 * nolock_test.c - the any-context allocator paths with every lock held.
 *
 * For each lock on the allocation paths (zone->lock, this CPU's pcp->lock,
 * a kmalloc cache's list_lock, its barn lock and this CPU's sheaf lock) a
 * case takes the lock in normal context with IRQs off, exactly as the
 * allocator itself would, and then raises an NMI on its own CPU.  The NMI
 * handler makes the four any-context calls:
 *
 *     try_alloc_pages()   free_pages_nolock()   kmalloc_nolock()   kfree_nolock()
 *
 * and records what each did.  The case then releases the lock and checks:
 * we are still here (no deadlock: spin_lock() in an NMI would even panic),
 * each call returned NULL for a counted reason or succeeded by a path the
 * held lock does not guard, and once the lock is free every deferred free
 * is drained (the zone's llist by the next locked free, the slab's per-CPU
 * list by its irq_work), so the free page count comes back exactly.
 *
 * Further cases provoke the hazards Linux met (docs/any-context.md): an
 * NMI half way through a sheaf swap and while the sheaf lock is dropped
 * for a refill (through mm_point_hook), a fresh slab whose list_lock is
 * taken before it can be added, the encoded deferred-free link, a debug
 * cache, and what may be passed where.
 *
 * Under slub_debug= (every cache a debug cache, without sheaves) the three
 * sheaf hazards skip, saying why, and nmi_on_debug_cache tests what an NMI
 * meets there instead, for objects under 8 bytes and kmalloc tails too;
 * `make test` boots this suite with each slub_debug= flag.
 *
 * The same file runs on the host (tests/host/test_mm_nolock.c), where an
 * "NMI" is host_nmi_nesting raised around a direct call and irq_work runs
 * when the test says so; in the kernel the NMIs and the irq_work are real.
 */
#include <kasan.h>
#include <kunit.h>
#include <kernel.h>
#include <irq_work.h>
#include <mm.h>
#include <mm_check.h>
#include <mmzone.h>
#include <nolock_stats.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "../../mm/slab_internal.h"
#include "buddy_drought.h"

#ifdef HOST_TEST
int slab_test_env_init(void);
void slab_test_env_exit(void);

/* The host's NMI: raise the nesting count and call. */
static bool run_in_nmi(void (*fn)(void))
{
	host_nmi_nesting++;
	fn();
	host_nmi_nesting--;
	return true;
}

/* The host's IRQ: the test runs this CPU's pending irq_work itself. */
static bool wait_for_deferred_frees(void)
{
	irq_work_run();
	return slab_deferred_frees(smp_processor_id()) == 0;
}

static int nolock_env_init(void) { return slab_test_env_init(); }
static void nolock_env_exit(void) { slab_test_env_exit(); }
#else
#include <nmi.h>
#include "../../kernel/timekeeping.h"
#include "test_wait.h"


static void (*nmi_request[NR_CPUS])(void);

static int nolock_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	unsigned int me = smp_processor_id();
	void (*fn)(void) = __atomic_load_n(&nmi_request[me], __ATOMIC_ACQUIRE);

	(void)type;
	(void)regs;
	if (!fn)
		return NMI_DONE;
	fn();
	__atomic_store_n(&nmi_request[me], NULL, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

/* Ring our own NMI with fn as the request; false if it never ran. */
static bool run_in_nmi(void (*fn)(void))
{
	unsigned int me = smp_processor_id();
	u64 end = test_deadline();

	__atomic_store_n(&nmi_request[me], fn, __ATOMIC_RELEASE);
	nmi_send_self();
	while (__atomic_load_n(&nmi_request[me], __ATOMIC_ACQUIRE)) {
		if (rdtsc() > end) {
			__atomic_store_n(&nmi_request[me], NULL,
					 __ATOMIC_RELEASE);
			return false;
		}
		cpu_relax();
	}
	return true;
}

/* IRQs are on again: the irq_work IPI frees the parked objects. */
static bool wait_for_deferred_frees(void)
{
	u64 end = test_deadline();

	while (slab_deferred_frees(smp_processor_id())) {
		if (rdtsc() > end)
			return false;
		cpu_relax();
	}
	return true;
}

static int nolock_env_init(void)
{
	return register_nmi_handler(NMI_LOCAL, nolock_nmi_handler, "nolock_test");
}

static void nolock_env_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, "nolock_test");
}
#endif

#define VICTIM_SIZE 64          /* kmalloc-64: the cache whose locks we hold */
#define BIG_ORDER   (PCP_MAX_ORDER + 1)  /* freed straight to the buddy */

static struct nolock_stats stats_before;

static void stats_mark(void)
{
	stats_before = *this_cpu_ptr(nolock_stats);
}

#define STAT_DELTA(field) \
	(this_cpu_ptr(nolock_stats)->field - stats_before.field)

/* Everything parked or cached given back; the free page count. */
static unsigned long quiesced_free_pages(void)
{
	kmem_cache_shrink_all();      /* drains the deferred lists first */
	drain_all_pages();            /* and the zone's deferred pages */
	return nr_free_pages();
}

static int nolock_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return nolock_env_init();
}

static void nolock_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	nolock_env_exit();
}

static void nolock_case_exit(struct kunit *test)
{
	(void)test;
	mm_point_hook = NULL;
	slab_report_count_only = false;
}

/* ===================================================================== */
/* The four calls from an NMI, with one lock held                        */
/* ===================================================================== */

/* What the NMI is given and what it saw. */
static struct {
	struct page *free_small;    /* order 0, for free_pages_nolock() */
	struct page *free_big;      /* BIG_ORDER, past the pcp lists */
	void *victim;               /* a kmalloc(64) object for kfree_nolock() */
	struct page *got_page;      /* try_alloc_pages(0, 0) */
	void *got_object;           /* kmalloc_nolock(64) */
} four;

static void four_calls(void)
{
	four.got_page = try_alloc_pages(0, 0);
	free_pages_nolock(four.free_small, 0);
	free_pages_nolock(four.free_big, BIG_ORDER);
	four.got_object = kmalloc_nolock(VICTIM_SIZE, 0, NUMA_NO_NODE);
	kfree_nolock(four.victim);
}

enum held_lock {
	HELD_ZONE,
	HELD_PCP,
	HELD_LIST,
	HELD_BARN,
	HELD_SHEAF,
	HELD_SHEAF_AND_LIST,
};

struct held {
	enum held_lock which;
	unsigned long flags;
};

static struct kmem_cache *victim_cache(void)
{
	return kmalloc_slab(VICTIM_SIZE);
}

/*
 * The page locks are held in every zone of every node, not only the zone
 * of the test's pages: with more than 4 GiB there are two zones, with
 * more than one node more, and try_alloc_pages() would (rightly) succeed
 * from another one.  Zones are
 * locked in index order; nothing else ever holds two zone locks.
 */
/* Zone i of the list every node's zones make, node by node (the
 * nodes with memory: a try on one node falls back to the others). */
static struct zone *node_zone(unsigned int i)
{
	unsigned int seen = 0;
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!NODE_DATA(nid))
			continue;
		if (i < seen + MAX_NR_ZONES)
			return &NODE_DATA(nid)->node_zones[i - seen];
		seen += MAX_NR_ZONES;
	}
	return NULL;
}

static unsigned int nr_node_zones(void)
{
	unsigned int n = 0;

	while (node_zone(n))
		n++;
	return n;
}

static void lock_all_zones(bool pcp, unsigned int me)
{
	unsigned int i, nr = nr_node_zones();

	for (i = 0; i < nr; i++)
		spin_lock(pcp ? &node_zone(i)->pcp[me].lock : &node_zone(i)->lock);
}

static void unlock_all_zones(bool pcp, unsigned int me)
{
	unsigned int i;

	for (i = nr_node_zones(); i-- > 0;)
		spin_unlock(pcp ? &node_zone(i)->pcp[me].lock :
				  &node_zone(i)->lock);
}

/*
 * The per-CPU layer's lock of kmalloc's class: the sheaf lock, or in a
 * cpu-slab boot (slab_mode=cpuslab) the line's lock with tid odd, as
 * cpu_slab.c's slow path holds it (its fast paths then step aside).
 */
static void layer_lock(struct kmem_cache *s, unsigned int me,
		       unsigned long *flags)
{
	if (cache_has_cpu_slab(s)) {
		struct kmem_cache_cpu *c = &s->cpu_slab[me];

		BUG_ON(!local_trylock_irqsave(&c->lock, *flags));
		WRITE_ONCE(c->tid, c->tid | 1);
		return;
	}
	BUG_ON(!local_trylock_irqsave(&s->cpu_sheaves[me].lock, *flags));
}

static void layer_unlock(struct kmem_cache *s, unsigned int me,
			 unsigned long flags)
{
	if (cache_has_cpu_slab(s)) {
		struct kmem_cache_cpu *c = &s->cpu_slab[me];

		WRITE_ONCE(c->tid, (c->tid | 1) + 1);
		local_unlock_irqrestore(&c->lock, flags);
		return;
	}
	local_unlock_irqrestore(&s->cpu_sheaves[me].lock, flags);
}

static void take(struct held *h, struct zone *zone)
{
	struct kmem_cache *s = victim_cache();
	struct kmem_cache_node *n = get_node(s, 0);
	unsigned int me = smp_processor_id();

	switch (h->which) {
	case HELD_ZONE:
	case HELD_PCP:
		(void)zone;
		h->flags = local_irq_save();
		lock_all_zones(h->which == HELD_PCP, me);
		break;
	case HELD_LIST:
		spin_lock_irqsave(&n->list_lock, h->flags);
		break;
	case HELD_BARN:
		spin_lock_irqsave(&n->barn.lock, h->flags);
		break;
	case HELD_SHEAF:
		layer_lock(s, me, &h->flags);
		break;
	case HELD_SHEAF_AND_LIST:
		layer_lock(s, me, &h->flags);
		spin_lock(&n->list_lock);
		break;
	}
}

static void release(struct held *h, struct zone *zone)
{
	struct kmem_cache *s = victim_cache();
	struct kmem_cache_node *n = get_node(s, 0);
	unsigned int me = smp_processor_id();

	switch (h->which) {
	case HELD_ZONE:
	case HELD_PCP:
		(void)zone;
		unlock_all_zones(h->which == HELD_PCP, me);
		local_irq_restore(h->flags);
		break;
	case HELD_LIST:
		spin_unlock_irqrestore(&n->list_lock, h->flags);
		break;
	case HELD_BARN:
		spin_unlock_irqrestore(&n->barn.lock, h->flags);
		break;
	case HELD_SHEAF:
		layer_unlock(s, me, h->flags);
		break;
	case HELD_SHEAF_AND_LIST:
		spin_unlock(&n->list_lock);
		layer_unlock(s, me, h->flags);
		break;
	}
}

/*
 * What each call must do with that lock held.  The setup makes the paths
 * deterministic: this CPU's pcp lists are drained (an order-0 allocation
 * needs the zone lock) and kmalloc-64's sheaves are flushed (main is the
 * bootstrap sheaf, the barn is empty), unless the case wants the sheaves.
 */
struct expect {
	bool page;              /* try_alloc_pages() succeeds */
	bool big_deferred;      /* the order-4 free waits on the zone llist */
	bool small_deferred;    /* the order-0 free waits too */
	unsigned int object_size; /* ksize of kmalloc_nolock()'s, 0: NULL */
	bool obj_deferred;      /* kfree_nolock() parks the victim */
	bool fill_sheaves;      /* leave kmalloc-64's sheaves full */
};

static void lock_held_nmi(struct kunit *test, enum held_lock which,
			  const struct expect *e)
{
	struct held h = { .which = which };
	unsigned long before = quiesced_free_pages();
	unsigned int me = smp_processor_id();
	struct zone *zone;
	bool ran;

	four.free_small = alloc_pages(GFP_KERNEL, 0);
	four.free_big = alloc_pages(GFP_KERNEL, BIG_ORDER);
	four.victim = kmalloc(VICTIM_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, four.free_small);
	KUNIT_ASSERT_NOT_NULL(test, four.free_big);
	KUNIT_ASSERT_NOT_NULL(test, four.victim);
	if (e->fill_sheaves) {
		void *warm = kmalloc(VICTIM_SIZE, GFP_KERNEL);

		kfree(warm);             /* main now holds objects */
	} else {
		kmem_cache_shrink(victim_cache());
	}
	drain_local_pages();
	zone = page_zone(four.free_small);

	stats_mark();
	take(&h, zone);
	ran = run_in_nmi(four_calls);
	release(&h, zone);
	KUNIT_ASSERT_TRUE(test, ran);   /* the NMI came back: no deadlock */

	/* Pages. */
	KUNIT_EXPECT_EQ(test, four.got_page != NULL, e->page);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(page_alloc_busy), e->page ? 0 : 1);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(page_alloc_nomem), 0);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(page_free_deferred),
			(unsigned long)e->big_deferred + e->small_deferred);
	/* Objects. */
	if (e->object_size) {
		KUNIT_EXPECT_NOT_NULL(test, four.got_object);
		if (four.got_object)
			KUNIT_EXPECT_EQ(test, ksize(four.got_object),
					e->object_size);
		KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_alloc_busy), 0);
	} else {
		KUNIT_EXPECT_NULL(test, four.got_object);
		KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_alloc_busy), 1);
	}
	KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_alloc_nomem), 0);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_free_deferred), e->obj_deferred);

	/* The lock is free: the parked object goes by irq_work... */
	KUNIT_EXPECT_TRUE(test, wait_for_deferred_frees());
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(me), 0);
	/* ...and parked pages with the next free that takes the zone lock. */
	if (four.got_page)
		__free_pages(four.got_page, 0);
	kfree(four.got_object);
	__free_pages(alloc_pages(GFP_KERNEL, BIG_ORDER), BIG_ORDER);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&zone->nr_deferred,
					      __ATOMIC_RELAXED), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

static void zone_lock_held(struct kunit *test)
{
	/* pcp empty, so order 0 needs the zone: NULL.  The order-0 free
	 * fits on the pcp list; the big one waits on the zone's llist.
	 * kmalloc_nolock is served by the sheaves, which need no page. */
	const struct expect e = { .page = false, .big_deferred = true,
				  .object_size = 64, .fill_sheaves = true };

	lock_held_nmi(test, HELD_ZONE, &e);
}

static void pcp_lock_held(struct kunit *test)
{
	/* Order 0 needs the pcp list: NULL.  Both frees go to the buddy
	 * under the (free) zone lock. */
	const struct expect e = { .page = false, .object_size = 64,
				  .fill_sheaves = true };

	lock_held_nmi(test, HELD_PCP, &e);
}

static void list_lock_held(struct kunit *test)
{
	/* No sheaf objects, and the slabs are locked: NULL, and the victim
	 * is parked on the deferred list. */
	const struct expect e = { .page = true, .object_size = 0,
				  .obj_deferred = true };

	lock_held_nmi(test, HELD_LIST, &e);
}

static void barn_lock_held(struct kunit *test)
{
	/* The barn cannot be asked: both calls go to the slabs instead. */
	const struct expect e = { .page = true, .object_size = 64 };

	lock_held_nmi(test, HELD_BARN, &e);
}

static void sheaf_lock_held(struct kunit *test)
{
	/* The interrupted code is inside kmalloc-64's sheaves (in a
	 * cpu-slab boot: inside its slow path, tid odd): both calls go to
	 * its slabs. */
	const struct expect e = { .page = true, .object_size = 64,
				  .fill_sheaves = true };

	lock_held_nmi(test, HELD_SHEAF, &e);
}

static void sheaf_and_list_lock_held(struct kunit *test)
{
	/* Nothing of kmalloc-64 can be had: the allocation moves up one
	 * class (kmalloc-96) and the free is deferred.  In a cpu-slab boot
	 * the victim's slab is this CPU's, frozen: its free needs no lock
	 * (one cmpxchg16b of the slab's pair), so it is not deferred. */
	const struct expect e = {
		.page = true, .object_size = 96,
		.obj_deferred = !cache_has_cpu_slab(victim_cache()),
		.fill_sheaves = true
	};

	if (!cache_has_sheaves(victim_cache()))   /* slab_mode= */
		kunit_skip(test, "kmalloc-64 has no sheaves in this slab mode");
	lock_held_nmi(test, HELD_SHEAF_AND_LIST, &e);
}

static void zone_and_pcp_lock_held(struct kunit *test)
{
	/* Both page locks: every page free waits on the zone's llist. */
	struct held pcp = { .which = HELD_PCP };
	unsigned long before = quiesced_free_pages();
	struct zone *zone;
	struct page *a = alloc_pages(GFP_KERNEL, 0);
	struct page *b = alloc_pages(GFP_KERNEL, BIG_ORDER);
	bool ran;

	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	four.free_small = a;
	four.free_big = b;
	four.victim = NULL;
	zone = page_zone(a);
	stats_mark();
	take(&pcp, zone);
	lock_all_zones(false, smp_processor_id());
	ran = run_in_nmi(four_calls);
	KUNIT_EXPECT_EQ(test, __atomic_load_n(&zone->nr_deferred,
					      __ATOMIC_RELAXED),
			1 + (1ul << BIG_ORDER));
	/* Counted as free all along. */
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before);
	unlock_all_zones(false, smp_processor_id());
	release(&pcp, zone);
	KUNIT_ASSERT_TRUE(test, ran);
	KUNIT_EXPECT_NULL(test, four.got_page);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(page_free_deferred), 2);
	kfree(four.got_object);
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, zone->nr_deferred, 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* ===================================================================== */
/* The per-CPU page list keeps its high mark when zone->lock is taken    */
/* ===================================================================== */

/*
 * free_pages_nolock() lists an order-0 page on this CPU's pcp list, and
 * gives a batch back only when zone->lock can be had.  With the lock held
 * by the code an NMI interrupted, every page of a burst of frees must not
 * pile up there (a list only this CPU takes from, over its high mark for
 * as long as it lasts): past the mark they wait on the zone's llist, which
 * the next locked zone operation empties.  PCP_FLOOD frees are more than
 * mm_check's bound (P3) on a pcp list.
 */
#define PCP_FLOOD (PCP_HIGH + NR_PCP_LISTS * PCP_BATCH + PCP_BATCH)

static struct page *pcp_flood[PCP_FLOOD];

static void free_pcp_flood(void)
{
	unsigned int i;

	for (i = 0; i < PCP_FLOOD; i++)
		free_pages_nolock(pcp_flood[i], 0);
}

static void pcp_keeps_its_high_mark_with_zone_lock_held(struct kunit *test)
{
	struct held h = { .which = HELD_ZONE };
	unsigned long before = quiesced_free_pages();
	unsigned int me = smp_processor_id(), i;
	struct zone *zone;
	bool ran;

	for (i = 0; i < PCP_FLOOD; i++) {
		pcp_flood[i] = alloc_pages(GFP_KERNEL, 0);
		KUNIT_ASSERT_NOT_NULL(test, pcp_flood[i]);
	}
	drain_local_pages();
	zone = page_zone(pcp_flood[0]);
	take(&h, zone);
	ran = run_in_nmi(free_pcp_flood);
	release(&h, zone);
	KUNIT_ASSERT_TRUE(test, ran);
	for (i = 0; i < MAX_NR_ZONES; i++)
		KUNIT_EXPECT_LE(test, node_zone(i)->pcp[me].count, PCP_HIGH);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	/* Free all along, wherever they wait. */
	KUNIT_EXPECT_EQ(test, nr_free_pages(), before);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* ===================================================================== */
/* The barn keeps its bound of empty sheaves                             */
/* ===================================================================== */

/*
 * kmalloc_nolock() with main and spare empty trades main for a full sheaf
 * of the barn.  That puts one more empty sheaf in the barn: with
 * BARN_MAX_EMPTY there already, the trade must be refused (the object
 * comes from the slabs) rather than pass the limit that mm/sheaf.c and
 * mm_check (B3) state.
 */
static void *barn_trade_got;

static void nmi_kmalloc_victim(void)
{
	barn_trade_got = kmalloc_nolock(VICTIM_SIZE, 0, NUMA_NO_NODE);
}

static void barn_keeps_its_bound_of_empty_sheaves(struct kunit *test)
{
	struct kmem_cache *s = victim_cache();
	struct node_barn *barn = &get_node(s, 0)->barn;
	struct slab_sheaf *main, *spare, *full, *empty[BARN_MAX_EMPTY];
	unsigned long before = quiesced_free_pages();
	struct slub_percpu_sheaves *pcs;
	unsigned int i;

	if (!cache_has_sheaves(s))
		kunit_skip(test, "needs sheaves: %s is in mode %s (slab_mode=, or slub_debug= made it a debug cache)",
			   s->name, slab_mode_names[kmem_cache_mode(s)]);
	/* quiesced_free_pages() flushed it: main is the bootstrap sheaf. */
	main = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 0);
	spare = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 0);
	full = kmem_cache_prefill_sheaf(s, GFP_KERNEL, s->sheaf_capacity);
	KUNIT_ASSERT_NOT_NULL(test, main);
	KUNIT_ASSERT_NOT_NULL(test, spare);
	KUNIT_ASSERT_NOT_NULL(test, full);
	for (i = 0; i < BARN_MAX_EMPTY; i++) {
		empty[i] = kmem_cache_prefill_sheaf(s, GFP_KERNEL, 0);
		KUNIT_ASSERT_NOT_NULL(test, empty[i]);
	}
	/* Empty main and spare, one full sheaf and the most empty ones in
	 * the barn. */
	kmem_cache_return_sheaf(s, GFP_KERNEL, main);
	kmem_cache_return_sheaf(s, GFP_KERNEL, spare);
	kmem_cache_return_sheaf(s, GFP_KERNEL, full);
	for (i = 0; i < BARN_MAX_EMPTY; i++)
		kmem_cache_return_sheaf(s, GFP_KERNEL, empty[i]);
	pcs = &s->cpu_sheaves[smp_processor_id()];
	KUNIT_ASSERT_PTR_EQ(test, pcs_main_unlocked(pcs), main);
	KUNIT_ASSERT_PTR_EQ(test, pcs->spare, spare);
	KUNIT_ASSERT_EQ(test, barn->nr_full, 1);
	KUNIT_ASSERT_EQ(test, barn->nr_empty, BARN_MAX_EMPTY);

	KUNIT_ASSERT_TRUE(test, run_in_nmi(nmi_kmalloc_victim));
	KUNIT_EXPECT_NOT_NULL(test, barn_trade_got);
	KUNIT_EXPECT_LE(test, barn->nr_empty, BARN_MAX_EMPTY);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	kfree(barn_trade_got);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* ===================================================================== */
/* Hazard 1: the deferred link is written encoded                        */
/* ===================================================================== */

static void *parked[2];
#define PARK_FILL_MAX 256   /* objects of kmalloc-64 slabs, and more */
static void *park_fill[PARK_FILL_MAX];

/*
 * A cpu-slab class frees to a slab that stays on the partial list without
 * list_lock (mm/cpu_slab.c), so the lock the test holds would not park
 * it.  Allocate on until neither parked object's slab is this CPU's: both
 * slabs are then full, off the CPU, and each free must move its slab off
 * the full list, under the lock.  Returns how many it allocated.
 */
static unsigned int fill_slabs_of_parked(struct kmem_cache *s)
{
	unsigned int n = 0;

	if (kmem_cache_mode(s) != SLAB_MODE_CPU_SLAB)
		return 0;
	while (n < PARK_FILL_MAX &&
	       (virt_to_slab(parked[0]) == ((struct kmem_cache_cpu *)this_cpu_line(s->cpu_slab))->slab ||
		virt_to_slab(parked[1]) == ((struct kmem_cache_cpu *)this_cpu_line(s->cpu_slab))->slab))
		park_fill[n++] = kmalloc(VICTIM_SIZE, GFP_KERNEL);
	return n;
}

static void park_two(void)
{
	kfree_nolock(parked[0]);
	kfree_nolock(parked[1]);
}

static void deferred_link_is_encoded(struct kunit *test)
{
	struct kmem_cache *s = victim_cache();
	struct held h = { .which = HELD_LIST };
	unsigned long before = quiesced_free_pages();
	unsigned int nfill;
	void **slot;
	unsigned long stored;
	bool ran;

	parked[0] = kmalloc(VICTIM_SIZE, GFP_KERNEL);
	parked[1] = kmalloc(VICTIM_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, parked[0]);
	KUNIT_ASSERT_NOT_NULL(test, parked[1]);
	nfill = fill_slabs_of_parked(s);
	kmem_cache_shrink(s);            /* no sheaf to take them */
	stats_mark();
	take(&h, NULL);
	ran = run_in_nmi(park_two);
	/* Still held: both are parked, the newest first. */
	KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_free_deferred), 2);
	slot = (void **)((char *)parked[1] + s->offset);
	stored = (unsigned long)kasan_unchecked_load_ptr(slot);
	KUNIT_EXPECT_NE(test, stored, (unsigned long)parked[0]);
	KUNIT_EXPECT_EQ(test, stored ^ s->random ^ DEFERRED_LINK_TAG ^
			__builtin_bswap64((unsigned long)slot),
			(unsigned long)parked[0]);
	slot = (void **)((char *)parked[0] + s->offset);
	KUNIT_EXPECT_EQ(test, (unsigned long)kasan_unchecked_load_ptr(slot) ^
			s->random ^
			DEFERRED_LINK_TAG ^
			__builtin_bswap64((unsigned long)slot),
			0);   /* the end of the list */
	release(&h, NULL);
	KUNIT_ASSERT_TRUE(test, ran);
	KUNIT_EXPECT_TRUE(test, wait_for_deferred_frees());
	while (nfill)
		kfree(park_fill[--nfill]);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* ===================================================================== */
/* Hazard 2: a fresh slab whose list_lock is taken meanwhile             */
/* ===================================================================== */

static struct kmem_cache *hook_cache;
static bool hook_took_lock, hook_lock_was_taken;
static void *hook_object;

static void take_list_lock_hook(enum mm_point where, void *s)
{
	if (s != hook_cache || where != MM_POINT_SLAB_NEW_NOLOCK)
		return;
	/* We are the NMI: trylock only.  The lock is free, so it works. */
	hook_took_lock = spin_trylock(&get_node(hook_cache, 0)->list_lock);
}

static void alloc_from_hook_cache(void)
{
	bool busy;

	hook_object = slab_alloc_nolock(hook_cache, 0, NUMA_NO_NODE, &busy, _THIS_IP_);
	if (hook_took_lock) {
		spin_unlock(&get_node(hook_cache, 0)->list_lock);
		hook_took_lock = false;
		hook_lock_was_taken = true;
	}
}

static void fresh_slab_given_back_with_counts(struct kunit *test,
					      slab_flags_t flags)
{
	struct kmem_cache_args args = { .sheaf_capacity = 0 };
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s;

	s = kmem_cache_create_args("test_nolock_fresh", 128, &args, flags);
	KUNIT_ASSERT_NOT_NULL(test, s);
	hook_cache = s;
	hook_lock_was_taken = false;
	mm_point_hook = take_list_lock_hook;
	stats_mark();
	KUNIT_EXPECT_TRUE(test, run_in_nmi(alloc_from_hook_cache));
	mm_point_hook = NULL;
	KUNIT_EXPECT_TRUE(test, hook_lock_was_taken);
	KUNIT_EXPECT_NULL(test, hook_object);
	/* The slab never joined the node, and went back counted. */
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_slabs, 0);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(s, ALLOC_SLAB), 1);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(s, FREE_SLAB), 1);
	/* Without the hook the same call works, from a new slab. */
	KUNIT_EXPECT_TRUE(test, run_in_nmi(alloc_from_hook_cache));
	KUNIT_EXPECT_NOT_NULL(test, hook_object);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_slabs, 1);
	kmem_cache_free(s, hook_object);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

static void fresh_slab_after_failed_trylock(struct kunit *test)
{
	fresh_slab_given_back_with_counts(test, 0);
}

/* ===================================================================== */
/* Why it failed: the sheaf was busy, not the memory gone                */
/* ===================================================================== */

/*
 * With this CPU's sheaf lock held by the code the NMI interrupted and the
 * slabs out of memory (no partial slab, the buddy dry, list_lock free),
 * the any-context allocation gives NULL and says "busy": the sheaf it
 * could not look into may well have held an object, so the caller must
 * not conclude that memory ran out (kmalloc_nolock() counts obj_alloc_busy
 * rather than obj_alloc_nomem from this answer).
 */
static bool busy_answer;

static void alloc_from_hook_cache_busy(void)
{
	hook_object = slab_alloc_nolock(hook_cache, 0, NUMA_NO_NODE, &busy_answer,
					_THIS_IP_);
}

static void busy_sheaf_and_no_memory_says_busy(struct kunit *test)
{
	struct kmem_cache_args args = { .sheaf_capacity = 4 };
	unsigned long before = quiesced_free_pages(), flags;
	local_trylock_t *sheaf_lock;
	LIST_HEAD(taken);
	struct kmem_cache *s;
	bool ran;

	s = kmem_cache_create_args("test_nolock_busy", 128, &args,
				   SLAB_TEST_SHEAF_CAPACITY);
	KUNIT_ASSERT_NOT_NULL(test, s);
	if (!cache_has_sheaves(s)) {
		kmem_cache_destroy(s);
		kunit_skip(test, "slub_debug= is on: caches have no sheaves");
	}
	hook_cache = s;
	sheaf_lock = &s->cpu_sheaves[smp_processor_id()].lock;
	exhaust_buddy(&taken);
	BUG_ON(!local_trylock_irqsave(sheaf_lock, flags));
	ran = run_in_nmi(alloc_from_hook_cache_busy);
	local_unlock_irqrestore(sheaf_lock, flags);
	release_buddy(&taken);
	KUNIT_ASSERT_TRUE(test, ran);
	KUNIT_EXPECT_NULL(test, hook_object);
	KUNIT_EXPECT_TRUE(test, busy_answer);
	/* The sheaf lock free again, the same call works. */
	KUNIT_EXPECT_TRUE(test, run_in_nmi(alloc_from_hook_cache_busy));
	KUNIT_EXPECT_NOT_NULL(test, hook_object);
	if (hook_object)
		kmem_cache_free(s, hook_object);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/*
 * The same answer through kmalloc_nolock(), whose class's sheaf lock (in
 * a cpuslab boot: its cpu-slab line's lock) is held, so it tries the next
 * class up once: when that class has no memory
 * either, the call still failed because a lock was held (the first
 * class's sheaf may well hold objects), so it counts obj_alloc_busy, not
 * obj_alloc_nomem.  Both classes are emptied first (the buddy dry, every
 * object this CPU can reach taken), chained through the objects.
 */
#define BUSY_ASK 100   /* kmalloc-128; the next class up is kmalloc-192 */

static void *busy_class_object;

static void kmalloc_nolock_busy_ask(void)
{
	busy_class_object = kmalloc_nolock(BUSY_ASK, 0, NUMA_NO_NODE);
}

/* Take every object of size's class this CPU can reach; returns the chain. */
static void *take_whole_class(size_t size, void *chain)
{
	void *p;

	while ((p = kmalloc(size, GFP_KERNEL | __GFP_NOWARN))) {
		*(void **)p = chain;
		chain = p;
	}
	return chain;
}

static void next_class_up_keeps_the_busy_answer(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_slab(BUSY_ASK);
	unsigned long before = quiesced_free_pages(), flags;
	unsigned int me = smp_processor_id();
	void *chain = NULL, *next;
	LIST_HEAD(taken);
	bool ran;

	/* The sheaf lock, or in a cpuslab boot the line's (layer_lock()). */
	if (!cache_has_sheaves(s) && !cache_has_cpu_slab(s))
		kunit_skip(test, "needs a per-CPU layer: %s is in mode %s (slab_mode=, or slub_debug= made it a debug cache)",
			   s->name, slab_mode_names[kmem_cache_mode(s)]);
	exhaust_buddy(&taken);
	chain = take_whole_class(BUSY_ASK, chain);
	chain = take_whole_class(kmalloc_size_roundup(BUSY_ASK) + 1, chain);
	stats_mark();
	layer_lock(s, me, &flags);
	ran = run_in_nmi(kmalloc_nolock_busy_ask);
	layer_unlock(s, me, flags);
	release_buddy(&taken);
	for (; chain; chain = next) {
		next = *(void **)chain;
		kfree(chain);
	}
	KUNIT_ASSERT_TRUE(test, ran);
	KUNIT_EXPECT_NULL(test, busy_class_object);
	kfree(busy_class_object);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_alloc_busy), 1);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_alloc_nomem), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* ===================================================================== */
/* Hazard 5: a debug cache fails when its lock is held, and never loops  */
/* ===================================================================== */

static void *debug_object;

static void debug_cache_calls(void)
{
	bool busy;

	debug_object = slab_alloc_nolock(hook_cache, 0, NUMA_NO_NODE, &busy, _THIS_IP_);
	kfree_nolock(parked[0]);
}

static void debug_cache_fails_cleanly(struct kunit *test)
{
	struct kmem_cache_args args = { .sheaf_capacity = SHEAF_CAPACITY_DEFAULT };
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct kmem_cache_node *n;
	struct kmem_cache *s;
	unsigned long flags;

	s = kmem_cache_create_args("test_nolock_debug", 64, &args,
				   SLAB_RED_ZONE | SLAB_POISON | SLAB_STORE_USER);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_EQ(test, s->sheaf_capacity, 0);   /* debug: no sheaves */
	hook_cache = s;
	n = get_node(s, 0);
	parked[0] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, parked[0]);

	/* Every trylock fails: one NULL, one parked free, no loop. */
	stats_mark();
	spin_lock_irqsave(&n->list_lock, flags);
	KUNIT_EXPECT_TRUE(test, run_in_nmi(debug_cache_calls));
	spin_unlock_irqrestore(&n->list_lock, flags);
	KUNIT_EXPECT_NULL(test, debug_object);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(s, ALLOC_SLAB), 1);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_free_deferred), 1);
	/* The parked object is freed with every debug check, none fires. */
	KUNIT_EXPECT_TRUE(test, wait_for_deferred_frees());
	KUNIT_EXPECT_EQ(test, slab_reports, reports);

	/* A fresh slab that cannot join the node: given back. */
	fresh_slab_given_back_with_counts(test, SLAB_RED_ZONE | SLAB_POISON);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* ===================================================================== */
/* Hazard 3: NMIs mid-swap and while the lock is dropped                 */
/* ===================================================================== */

#define SMALL_CAP 4
static void *nmi_freed, *nmi_got;
static unsigned int hook_hits;
static enum mm_point hook_point;

static void nmi_free_one(void)
{
	kfree_nolock(nmi_freed);
}

static void nmi_alloc_one(void)
{
	bool busy;

	nmi_got = slab_alloc_nolock(hook_cache, 0, NUMA_NO_NODE, &busy, _THIS_IP_);
}

static void nmi_at_hook(enum mm_point where, void *s)
{
	if (s != hook_cache || where != hook_point || in_nmi() || hook_hits)
		return;
	hook_hits++;
	if (where == MM_POINT_SHEAF_SWAP_MID)
		run_in_nmi(nmi_alloc_one);
	else
		run_in_nmi(nmi_free_one);
}

/* Objects in this CPU's sheaves of s, plus those in the barn. */
static unsigned int objects_in_sheaves(struct kmem_cache *s)
{
	struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[smp_processor_id()];
	struct slab_sheaf *sheaf;
	unsigned int n = pcs->main->size;

	if (pcs->spare)
		n += pcs->spare->size;
	list_for_each_entry(sheaf, &get_node(s, 0)->barn.sheaves_full, barn_list)
		n += sheaf->size;
	return n;
}

/* Slab objects in use by the node's slabs. */
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

/*
 * The three sheaf hazards need sheaves.  slub_debug= on the command line
 * makes every cache a debug cache, and a debug cache has none: no sheaf
 * lock to drop, no swap to land in.  Those cases skip then, saying so, and
 * nmi_on_debug_cache tests what an NMI meets on a debug cache instead.
 */
static struct kmem_cache *sheaf_hazard_cache(struct kunit *test,
					     const char *name)
{
	struct kmem_cache_args args = { .sheaf_capacity = SMALL_CAP };
	struct kmem_cache *s = kmem_cache_create_args(name, 64, &args,
						      SLAB_TEST_SHEAF_CAPACITY);

	KUNIT_ASSERT_NOT_NULL(test, s);
	if ((s->flags & SLAB_DEBUG_FLAGS) && s->sheaf_capacity == 0) {
		KUNIT_ASSERT_EQ(test, kmem_cache_destroy(s), 0);
		kunit_skip(test, "needs sheaves, and slub_debug= made every cache a debug cache (nmi_on_debug_cache covers those)");
	}
	KUNIT_ASSERT_EQ(test, s->sheaf_capacity, SMALL_CAP);
	return s;
}

static void nmi_while_lock_dropped_for_refill(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s;
	void *obj[SMALL_CAP + 1], *x;
	unsigned int i;

	s = sheaf_hazard_cache(test, "test_nolock_refill");
	/* Leave main a real sheaf, empty; no spare, an empty barn. */
	for (i = 0; i < SMALL_CAP; i++)
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_EQ(test, s->cpu_sheaves[smp_processor_id()].main->size, 0);
	KUNIT_ASSERT_NULL(test, s->cpu_sheaves[smp_processor_id()].spare);

	/* The next alloc drops the lock to refill; the NMI frees obj[0]
	 * into the empty main meanwhile.  After relocking the refill must
	 * see main is no longer empty and keep the new sheaf as spare. */
	hook_cache = s;
	hook_point = MM_POINT_SHEAF_REFILL_UNLOCKED;
	hook_hits = 0;
	nmi_freed = obj[0];
	mm_point_hook = nmi_at_hook;
	x = kmem_cache_alloc(s, GFP_KERNEL);
	mm_point_hook = NULL;
	KUNIT_EXPECT_EQ(test, hook_hits, 1);
	KUNIT_EXPECT_PTR_EQ(test, x, obj[0]);   /* it took what the NMI freed */
	KUNIT_ASSERT_NOT_NULL(test, s->cpu_sheaves[smp_processor_id()].spare);
	KUNIT_EXPECT_EQ(test, s->cpu_sheaves[smp_processor_id()].spare->size,
			SMALL_CAP);
	/* Every object is either ours or in a sheaf: nothing lost twice. */
	KUNIT_EXPECT_EQ(test, slab_inuse(s), SMALL_CAP + objects_in_sheaves(s));
	obj[0] = x;
	for (i = 0; i < SMALL_CAP; i++)
		kmem_cache_free(s, obj[i]);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

static void nmi_while_lock_dropped_for_empty_sheaf(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct kmem_cache *s;
	void *obj[2 * SMALL_CAP + 2];
	unsigned int i, n = 2 * SMALL_CAP + 2;

	s = sheaf_hazard_cache(test, "test_nolock_free");
	for (i = 0; i < n; i++) {
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
	}
	kmem_cache_shrink(s);   /* main is the bootstrap sheaf again */
	/* The first free drops the lock to get an empty sheaf (main is the
	 * bootstrap); the NMI frees another object meanwhile. */
	hook_cache = s;
	hook_point = MM_POINT_SHEAF_FREE_UNLOCKED;
	hook_hits = 0;
	nmi_freed = obj[1];
	mm_point_hook = nmi_at_hook;
	kmem_cache_free(s, obj[0]);
	mm_point_hook = NULL;
	KUNIT_EXPECT_EQ(test, hook_hits, 1);
	KUNIT_EXPECT_EQ(test, slab_inuse(s), (n - 2) + objects_in_sheaves(s));
	for (i = 2; i < n; i++)
		kmem_cache_free(s, obj[i]);
	KUNIT_EXPECT_TRUE(test, wait_for_deferred_frees());
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

static void nmi_mid_swap(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	struct slub_percpu_sheaves *pcs;
	struct kmem_cache *s;
	void *obj[2 * SMALL_CAP + 1];
	unsigned int i, n = 2 * SMALL_CAP;

	s = sheaf_hazard_cache(test, "test_nolock_swap");
	pcs = &s->cpu_sheaves[smp_processor_id()];
	for (i = 0; i < n; i++)
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
	/* Free them all: main fills, then becomes spare; main half full. */
	for (i = 0; i < n; i++)
		kmem_cache_free(s, obj[i]);
	KUNIT_ASSERT_NOT_NULL(test, pcs->spare);
	/* Empty main, spare full: the next alloc swaps, and the NMI lands
	 * half way (main == spare): it must not touch the sheaves. */
	for (i = 0; pcs->main->size; i++)
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_GT(test, pcs->spare->size, 0);
	hook_cache = s;
	hook_point = MM_POINT_SHEAF_SWAP_MID;
	hook_hits = 0;
	nmi_got = NULL;
	mm_point_hook = nmi_at_hook;
	obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
	mm_point_hook = NULL;
	KUNIT_EXPECT_EQ(test, hook_hits, 1);
	KUNIT_EXPECT_NOT_NULL(test, nmi_got);           /* from a slab */
	KUNIT_EXPECT_PTR_NE(test, nmi_got, obj[i]);
	KUNIT_EXPECT_PTR_NE(test, pcs->main, pcs->spare);
	KUNIT_EXPECT_EQ(test, slab_inuse(s), i + 2 + objects_in_sheaves(s));
	kmem_cache_free(s, nmi_got);
	for (; i != ~0u; i--)
		kmem_cache_free(s, obj[i]);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* ===================================================================== */
/* Hazard 4: an NMI on a debug cache (every cache, under slub_debug=)    */
/* ===================================================================== */

/*
 * A debug cache allocates and frees under its list_lock with IRQs off, so
 * an NMI lands either with that lock held or between two operations.  With
 * it held, kmalloc_nolock() must fail as busy and kfree_nolock() must park
 * the object, which the irq_work then frees with every debug check of the
 * cache; between operations both work, with the checks.  Either way no
 * report comes (the object was used within its size), nothing is lost and
 * nothing is handed out twice.  Run for the geometries where the debug
 * metadata is tight: an object smaller than the free pointer, a middling
 * one, a kmalloc object asked smaller than its class (a red-zoned tail),
 * with the cache's own slub_debug= flags, or all of them when slub_debug=
 * is off.
 */
#define DEBUG_NMI_OBJECTS 6
#define DEBUG_NMI_FILL    0x5a
#define DEBUG_NMI_POISON_FREE 0x6b   /* slab_internal.h: POISON_FREE */

static struct kmem_cache *debug_nmi_cache;
static void *debug_nmi_free, *debug_nmi_got;
static bool debug_nmi_busy;

static void debug_nmi_free_then_alloc(void)
{
	kfree_nolock(debug_nmi_free);
	debug_nmi_got = slab_alloc_nolock(debug_nmi_cache, 0, NUMA_NO_NODE, &debug_nmi_busy,
					  _THIS_IP_);
}

/* A debug cache of objects of `size` (a kmalloc class if ask != 0). */
static struct kmem_cache *debug_nmi_create(struct kunit *test,
					   unsigned int size, unsigned int ask)
{
	/* The debug flags slub_debug= gives every cache, or all of them. */
	slab_flags_t flags = victim_cache()->flags & SLAB_DEBUG_FLAGS ? 0 :
			     SLAB_DEBUG_FLAGS;
	struct kmem_cache *s;

	if (ask)
		flags |= SLAB_KMALLOC;
	s = kmem_cache_create("test_nolock_dbg", size, 0, flags, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_EXPECT_TRUE(test, s->flags & SLAB_DEBUG_FLAGS);
	KUNIT_EXPECT_EQ(test, s->sheaf_capacity, 0);
	return s;
}

/* The bytes a user of object may write: what was asked for. */
static unsigned int debug_nmi_usable(struct kmem_cache *s, unsigned int ask)
{
	return ask ? ask : s->object_size;
}

static void debug_nmi_one(struct kunit *test, unsigned int size,
			  unsigned int ask)
{
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct kmem_cache *s = debug_nmi_create(test, size, ask);
	struct kmem_cache_node *n = get_node(s, 0);
	void *obj[DEBUG_NMI_OBJECTS];
	unsigned long flags;
	unsigned int i;
	bool ran;

	kunit_info(test, "object size %u%s, flags %#x", size,
		   ask ? " (kmalloc, asked less)" : "", s->flags);
	for (i = 0; i < DEBUG_NMI_OBJECTS; i++) {
		obj[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, obj[i]);
		if (ask)
			slab_kmalloc_set_size(s, obj[i], ask);
		memset(obj[i], DEBUG_NMI_FILL, debug_nmi_usable(s, ask));
	}
	debug_nmi_cache = s;

	/* The NMI lands while this CPU holds the list_lock. */
	stats_mark();
	debug_nmi_free = obj[0];
	debug_nmi_got = (void *)1;
	spin_lock_irqsave(&n->list_lock, flags);
	ran = run_in_nmi(debug_nmi_free_then_alloc);
	spin_unlock_irqrestore(&n->list_lock, flags);
	KUNIT_ASSERT_TRUE(test, ran);
	KUNIT_EXPECT_NULL(test, debug_nmi_got);
	KUNIT_EXPECT_TRUE(test, debug_nmi_busy);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_free_deferred), 1);
	KUNIT_EXPECT_TRUE(test, wait_for_deferred_frees());
	KUNIT_EXPECT_EQ(test, slab_inuse(s), DEBUG_NMI_OBJECTS - 1);
	if (s->flags & SLAB_POISON) {  /* the debug free ran: poisoned */
		u8 first;

		kasan_unchecked_read(&first, obj[0], sizeof(first));
		KUNIT_EXPECT_EQ(test, first, DEBUG_NMI_POISON_FREE);
	}

	/* The NMI lands between two operations: both work. */
	debug_nmi_free = obj[1];
	KUNIT_ASSERT_TRUE(test, run_in_nmi(debug_nmi_free_then_alloc));
	KUNIT_ASSERT_NOT_NULL(test, debug_nmi_got);
	for (i = 2; i < DEBUG_NMI_OBJECTS; i++)
		KUNIT_EXPECT_PTR_NE(test, debug_nmi_got, obj[i]);
	KUNIT_EXPECT_EQ(test, slab_inuse(s), DEBUG_NMI_OBJECTS - 1);
	memset(debug_nmi_got, DEBUG_NMI_FILL, s->object_size);

	kmem_cache_free(s, debug_nmi_got);
	for (i = 2; i < DEBUG_NMI_OBJECTS; i++)
		kmem_cache_free(s, obj[i]);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

static void nmi_on_debug_cache(struct kunit *test)
{
	/* A report fails the case (kunit) instead of ending the run. */
	slab_report_count_only = true;
	debug_nmi_one(test, 4, 0);      /* smaller than the free pointer */
	debug_nmi_one(test, 24, 0);
	debug_nmi_one(test, 32, 20);    /* kmalloc(20) from a 32-byte class */
	debug_nmi_one(test, 64, 56);
}

/* ===================================================================== */
/* What may be passed where                                              */
/* ===================================================================== */

static void *mixed[6];

static void nmi_kfree_mixed(void)
{
	kfree_nolock(mixed[0]);             /* a kmalloc() object */
	kfree(mixed[1]);                    /* kfree() in an NMI: nolock path */
	kfree_nolock(mixed[2]);             /* a large kmalloc block */
	kfree_nolock(NULL);
	kfree_nolock(ZERO_SIZE_PTR);
	mixed[3] = kmalloc_nolock(0, 0, NUMA_NO_NODE);
	mixed[4] = kmalloc_nolock(KMALLOC_MAX_CACHE_SIZE + 1, 0, NUMA_NO_NODE);
	mixed[5] = kmalloc_nolock(1, 0, MAX_NUMNODES);   /* no such node */
}

static void what_may_be_passed_where(struct kunit *test)
{
	unsigned long before = quiesced_free_pages();
	void *a, *z;
	unsigned int i;

	/* kmalloc_nolock() objects are ordinary kmalloc objects. */
	stats_mark();
	a = kmalloc_nolock(100, __GFP_ZERO, NUMA_NO_NODE);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, ksize(a), 128);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_EQ(test, ((u8 *)a)[i], 0);
	kfree(a);
	z = kmalloc_nolock(KMALLOC_MAX_CACHE_SIZE, 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, z);
	kfree_nolock(z);

	mixed[0] = kmalloc(40, GFP_KERNEL);
	mixed[1] = kmalloc(40, GFP_KERNEL);
	mixed[2] = kmalloc(3 * PAGE_SIZE + KMALLOC_MAX_CACHE_SIZE, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mixed[0]);
	KUNIT_ASSERT_NOT_NULL(test, mixed[1]);
	KUNIT_ASSERT_NOT_NULL(test, mixed[2]);
	KUNIT_EXPECT_TRUE(test, run_in_nmi(nmi_kfree_mixed));
	KUNIT_EXPECT_PTR_EQ(test, mixed[3], ZERO_SIZE_PTR);
	KUNIT_EXPECT_NULL(test, mixed[4]);
	KUNIT_EXPECT_NULL(test, mixed[5]);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_alloc_nomem), 2);
	KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_alloc_busy), 0);
	KUNIT_EXPECT_TRUE(test, wait_for_deferred_frees());
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/*
 * Every node number that is not an online node is refused, the extremes
 * of an int included: the node test must not overflow on them (a signed
 * overflow is undefined behaviour, which the host's UBSan build stops
 * at).  Every online node is served (from it, or the nearest with
 * memory: a memoryless node's request is a remote one).
 */
static void kmalloc_nolock_refuses_every_other_node(struct kunit *test)
{
	static const int nodes[] = {
		MAX_NUMNODES, -2, (int)(~0u >> 1), -(int)(~0u >> 1) - 1,
	};
	unsigned long refused = ARRAY_SIZE(nodes);
	unsigned int i;
	int nid;

	stats_mark();
	for (i = 0; i < ARRAY_SIZE(nodes); i++)
		KUNIT_EXPECT_NULL(test, kmalloc_nolock(64, 0, nodes[i]));
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		void *p = kmalloc_nolock(64, 0, nid);

		if (!node_online(nid)) {
			KUNIT_EXPECT_NULL(test, p);
			refused++;
			continue;
		}
		KUNIT_EXPECT_NOT_NULL(test, p);
		if (p && node_state(nid, NODE_MEMORY) &&
		    slab_numa_mode != SLAB_NUMA_BLIND)
			KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(p)), nid);
		kfree(p);
	}
	KUNIT_EXPECT_EQ(test, STAT_DELTA(obj_alloc_nomem), refused);
}

static void *bad_target;

static void nmi_kfree_bad(void)
{
	kfree_nolock(bad_target);
}

static void kfree_nolock_refuses_what_kmalloc_never_gave(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct page *page = alloc_pages(GFP_KERNEL, 0);
	char *big = kmalloc(2 * KMALLOC_MAX_CACHE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_NOT_NULL(test, big);
	slab_report_count_only = true;
	bad_target = page_address(page);     /* a page, not a kmalloc object */
	kunit_expect_report(test, "kfree_nolock of a pointer kmalloc never returned");
	KUNIT_EXPECT_TRUE(test, run_in_nmi(nmi_kfree_bad));
	kunit_expect_report_done(test);
	bad_target = big + 64;               /* inside a large block */
	kunit_expect_report(test, "kfree_nolock of a pointer inside a large kmalloc block");
	KUNIT_EXPECT_TRUE(test, run_in_nmi(nmi_kfree_bad));
	kunit_expect_report_done(test);
	slab_report_count_only = false;
	KUNIT_EXPECT_EQ(test, slab_reports, reports + 2);
	__free_pages(page, 0);
	kfree(big);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

static void nmi_kmalloc(void)
{
	mixed[0] = kmalloc(32, GFP_KERNEL);
}

static void kmalloc_in_nmi_is_refused(struct kunit *test)
{
	struct kmem_cache *s = kmalloc_slab(32);

	/* The class's sheaf holds an object first, so the task-context pop
	 * (which reads no lock flag, and would pop under a slow path the
	 * NMI interrupted) could serve the NMI: it must refuse all the
	 * same, and leave the object where it is. */
	kfree(kmalloc(32, GFP_KERNEL));
	if (cache_has_sheaves(s))
		KUNIT_EXPECT_GT(test, this_cpu_sheaves(s)->main->size, 0u);
	mixed[0] = (void *)1;
	/* A bug in the caller, who wanted kmalloc_nolock(): it says so. */
	kunit_expect_report(test, "WARNING: in_nmi()");
	KUNIT_EXPECT_TRUE(test, run_in_nmi(nmi_kmalloc));
	kunit_expect_report_done(test);
	KUNIT_EXPECT_NULL(test, mixed[0]);
}

/* ===================================================================== */
/* The bulk calls in NMI context                                         */
/* ===================================================================== */

/*
 * kmem_cache_free() in an NMI takes the kfree_nolock() path by itself; its
 * bulk sibling must as well, not spin on list_lock (which panics in NMI
 * context, held or not).  kmem_cache_alloc_bulk() in an NMI is the
 * caller's bug, as kmem_cache_alloc() is: it warns and gets nothing.  The
 * cache has no sheaves, so every object goes to list_lock.
 */
#define NMI_BULK 4

static struct kmem_cache *bulk_cache;
static void *bulk_objects[NMI_BULK];
static int bulk_got;

static void nmi_free_bulk(void)
{
	kmem_cache_free_bulk(bulk_cache, NMI_BULK, bulk_objects);
}

static void nmi_alloc_bulk(void)
{
	bulk_got = kmem_cache_alloc_bulk(bulk_cache, GFP_KERNEL, NMI_BULK,
					 bulk_objects);
}

static void bulk_calls_in_nmi(struct kunit *test)
{
	static const struct kmem_cache_args no_sheaves;
	unsigned long before = quiesced_free_pages(), reports = slab_reports;

	bulk_cache = kmem_cache_create_args("test_nolock_bulk", 48,
					    &no_sheaves, 0);
	KUNIT_ASSERT_NOT_NULL(test, bulk_cache);
	KUNIT_ASSERT_EQ(test, kmem_cache_alloc_bulk(bulk_cache, GFP_KERNEL,
						    NMI_BULK, bulk_objects),
			NMI_BULK);
	KUNIT_EXPECT_TRUE(test, run_in_nmi(nmi_free_bulk));
	KUNIT_EXPECT_TRUE(test, wait_for_deferred_frees());

	bulk_got = -1;
	kunit_expect_report(test, "WARNING: in_nmi()");
	KUNIT_EXPECT_TRUE(test, run_in_nmi(nmi_alloc_bulk));
	kunit_expect_report_done(test);
	KUNIT_EXPECT_EQ(test, bulk_got, 0);

	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(bulk_cache), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

/* ===================================================================== */
/* Destruction waits for the deferred list                               */
/* ===================================================================== */

static void park_in_cache(void)
{
	kfree_nolock(parked[0]);
}

static void destroy_frees_parked_objects(struct kunit *test)
{
	struct kmem_cache_args args = { .sheaf_capacity = SHEAF_CAPACITY_DEFAULT };
	unsigned long before = quiesced_free_pages(), reports = slab_reports;
	struct kmem_cache *s;
	unsigned long flags;

	s = kmem_cache_create_args("test_nolock_destroy", 200, &args, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	parked[0] = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, parked[0]);
	kmem_cache_shrink(s);
	/* Keep IRQs off so the irq_work cannot run before destroy does. */
	spin_lock_irqsave(&get_node(s, 0)->list_lock, flags);
	KUNIT_EXPECT_TRUE(test, run_in_nmi(park_in_cache));
	spin_unlock(&get_node(s, 0)->list_lock);
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(smp_processor_id()), 1);
	local_irq_restore(flags);
	/* Whether the irq_work ran first or not, destroy finds no leak. */
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(smp_processor_id()), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

static struct kunit_case nolock_cases[] = {
	KUNIT_CASE(zone_lock_held),
	KUNIT_CASE(pcp_lock_held),
	KUNIT_CASE(zone_and_pcp_lock_held),
	KUNIT_CASE(pcp_keeps_its_high_mark_with_zone_lock_held),
	KUNIT_CASE(barn_keeps_its_bound_of_empty_sheaves),
	KUNIT_CASE(list_lock_held),
	KUNIT_CASE(barn_lock_held),
	KUNIT_CASE(sheaf_lock_held),
	KUNIT_CASE(sheaf_and_list_lock_held),
	KUNIT_CASE(deferred_link_is_encoded),
	KUNIT_CASE(fresh_slab_after_failed_trylock),
	KUNIT_CASE(busy_sheaf_and_no_memory_says_busy),
	KUNIT_CASE(next_class_up_keeps_the_busy_answer),
	KUNIT_CASE(debug_cache_fails_cleanly),
	KUNIT_CASE(nmi_while_lock_dropped_for_refill),
	KUNIT_CASE(nmi_while_lock_dropped_for_empty_sheaf),
	KUNIT_CASE(nmi_mid_swap),
	KUNIT_CASE(nmi_on_debug_cache),
	KUNIT_CASE(what_may_be_passed_where),
	KUNIT_CASE(kmalloc_nolock_refuses_every_other_node),
	KUNIT_CASE(kfree_nolock_refuses_what_kmalloc_never_gave),
	KUNIT_CASE(kmalloc_in_nmi_is_refused),
	KUNIT_CASE(bulk_calls_in_nmi),
	KUNIT_CASE(destroy_frees_parked_objects),
	{}
};

static struct kunit_suite nolock_suite = {
	.name = "nolock",
	.suite_init = nolock_suite_init,
	.suite_exit = nolock_suite_exit,
	.exit = nolock_case_exit,
	.test_cases = nolock_cases,
};
kunit_test_suite(nolock_suite);
