/*
 * interleave_test.c - an NMI, an IRQ and another CPU at every point.
 *
 * The allocator's slow paths are marked with named interleaving points
 * (include/mm_points.h): every place a lock is dropped and retaken, every
 * place between two stores that must be seen together, every lock held
 * that an NMI may find taken.  This suite searches them systematically:
 *
 *   for each scenario S (a short, deterministic allocator workload):
 *     dry run: run S with a hook that only counts, per point P, how often
 *              it is reached and in which of those visits each action A
 *              could really happen there (IRQs on? allocator locks free?);
 *     for each point P reached, each action A, and the first, middle and
 *     last visit where A is possible:
 *              run S again with the hook doing A at exactly that visit,
 *              then check: no WARN, no slab or page report, every object
 *              handed out once, the cache destroyed without leaks, the
 *              free page count back to what it was, and mm_check_all()
 *              (include/mm_check.h) finds every invariant intact.
 *
 * The actions (what can interrupt allocator code):
 *   NMI     the any-context API: slab_alloc_nolock() on the scenario's
 *           cache and kmalloc_nolock(), kmem_cache_free()/kfree_nolock()
 *           of objects allocated beforehand (an NMI takes the nolock path
 *           by itself), try_alloc_pages(), free_pages_nolock() of an
 *           order-0 and an order-4 block; at the page head-half points
 *           also the held page nearest above the head being made (sent at
 *           up to IL_DENSE_PICKS visits there).  Possible at every point.
 *   IRQ     pending irq_work (the deferred frees), then kmem_cache_alloc()
 *           /kmem_cache_free(), kmalloc()/kfree(), alloc_pages()/
 *           __free_pages().  Only where IRQs are on.
 *   IPI     another CPU's kmem_cache_shrink() of the cache: its flush of
 *           every CPU's sheaves runs here, as its IPI would.  Only where
 *           IRQs are on and this CPU holds no sheaf lock (see
 *           sheaf_lock_held_here()).
 *   REMOTE  another CPU allocating and freeing from the same cache and
 *           kmalloc, and drain_all_pages(): it completes between two of
 *           our instructions.  Only where no allocator spinlock is held
 *           (it would wait for it).
 *
 * The figure: every (scenario, point, action) triple that ran at least
 * once is counted and printed at the end, with the runs and the points
 * never reached by any scenario.
 *
 * Host (tests/host/test_mm_interleave.c): an NMI or IRQ is the nesting
 * count raised around a direct call; another CPU is host_cpu_id switched
 * for the call (on_each_cpu() then runs our CPU's part here, in the
 * interrupted context, exactly where the IPI would land).  Each part of
 * the search runs in a forked child over a copy of the allocator, so a
 * failure or a sanitizer crash is reported with its triple and the next
 * item starts clean (search_scenario()).  Kernel: real self-NMIs, the
 * IRQ is an irq_work (a self-IPI) taken where IRQs are on, IPI and
 * REMOTE use another CPU through on_each_cpu_task(); those two only at
 * the first visit, and every action only there with more than two CPUs,
 * to keep the boot to a few seconds; the first failure ends the search
 * and the scenarios after it are skipped (no clean copy to go back to).
 *
 * Methods and figures: docs/any-context.md, "How the interleavings are
 * searched".
 */
#include <kunit.h>
#include <kernel.h>
#include <irq_work.h>
#include <mm.h>
#include <memblock.h>
#include <mm_check.h>
#include <mm_points.h>
#include <mmzone.h>
#include <numa.h>
#include <rcupdate.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "../../mm/slab_internal.h"

#define IL_CAP          4      /* sheaf capacity of the scenario caches */
#define IL_MAX_LIVE     512    /* objects a scenario holds at once */
#define IL_BIG_ORDER    4      /* an order past the pcp lists */
#define IL_MAX_VISITS   1024   /* visits of one point remembered per run */
#define IL_VISIT_PICKS  3      /* first, middle, last */
#define IL_DENSE_PICKS  24     /* visits of a dense point (below) */

enum il_action {
	IL_NMI,
	IL_IRQ,
	IL_IPI,
	IL_REMOTE,
	IL_TRACE_FLIP,
	NR_IL_ACTIONS
};

static const char *const il_action_names[NR_IL_ACTIONS] = {
	[IL_NMI] = "nmi", [IL_IRQ] = "irq", [IL_IPI] = "ipi_flush",
	[IL_REMOTE] = "remote_cpu", [IL_TRACE_FLIP] = "trace_flip",
};

/*
 * Suite interleave_traced (review of mm/slab_trace.c): the same search
 * with the scenario's cache and kmalloc-64 traced from setup on, and one
 * more action, trace_flip: another CPU's slab_trace_enable() or
 * slab_trace_disable() lands here.  Its flag store (SLAB_TRACED xored)
 * can land at any instruction, a sheaf lock held or not; its flush IPI
 * then lands here at the first point where this CPU takes IPIs (task
 * context, IRQs on, no sheaf lock held), or after the body.  Rule: any
 * interleaving of the gate swap with NMIs, IRQs, flushes and the flag
 * loses, duplicates and corrupts nothing, and mm_check_all() passes.
 */
enum il_trace_mode {
	IL_TRACE_NONE,       /* suite interleave: no trace, no trace_flip */
	IL_TRACE_FROM_SETUP, /* interleave_traced: traced, a flip turns it off */
	IL_TRACE_FLIP_ON,    /* interleave_trace_on: untraced, a flip turns it on */
};
static enum il_trace_mode il_trace_suite;

/* ===================================================================== */
/* Environment: host and kernel differ only here                         */
/* ===================================================================== */

#ifdef HOST_TEST
int slab_test_env_init(void);
void slab_test_env_exit(void);

#define IL_PICKS       IL_VISIT_PICKS
#define IL_REMOTE_PICKS IL_VISIT_PICKS
/* Another CPU does not care whether ours has IRQs off. */
#define IL_REMOTE_IRQS_OK 1

static bool il_in_nmi(void (*fn)(void))
{
	host_nmi_nesting++;
	fn();
	host_nmi_nesting--;
	return true;
}

static bool il_in_irq(void (*fn)(void))
{
	unsigned long flags = local_irq_save();

	host_irq_nesting++;
	irq_work_run();
	fn();
	host_irq_nesting--;
	local_irq_restore(flags);
	return true;
}

/* Another CPU runs fn; its calls that IPI every CPU run ours here. */
static bool il_on_other_cpu(void (*fn)(void))
{
	unsigned int me = host_cpu_id;

	host_cpu_id = (me + 1) % nr_cpu_ids;
	fn();
	host_cpu_id = me;
	return true;
}

static void il_run_irq_work_everywhere(void)
{
	unsigned int me = host_cpu_id, cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		host_cpu_id = cpu;
		irq_work_run();
	}
	host_cpu_id = me;
}

/*
 * The host search runs on two nodes, so the node scenario meets remote
 * frees and node requests there too: node 0 below IL_NODE_SPLIT (CPUs 0
 * and 1, where the search runs), node 1 above (CPUs 2 and up).
 */
#define IL_NODE_SPLIT  (32ull << 20)
#define IL_NODE1_CPU   2

static void il_two_nodes(void)
{
	unsigned int cpu;

	memset(&numa_firmware, 0, sizeof(numa_firmware));
	numa_firmware.valid = true;
	numa_firmware.nr_nodes = 2;
	numa_firmware.pxm[1] = 1;
	numa_firmware.nr_memblks = 2;
	numa_firmware.memblk[0] = (struct numa_memblk){ 0, IL_NODE_SPLIT, 0 };
	numa_firmware.memblk[1] = (struct numa_memblk){ IL_NODE_SPLIT,
							MEMBLOCK_MAX_PHYS, 1 };
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		numa_firmware.cpu[numa_firmware.nr_cpus++] = (struct numa_cpu){
			cpu, cpu < IL_NODE1_CPU ? 0 : 1 };
}

static int il_env_init(void)
{
	il_two_nodes();
	if (slab_test_env_init())
		return -1;
	rcu_init();
	return 0;
}
/* (arena_exit(), inside, puts back one node.) */
static void il_env_exit(void) { slab_test_env_exit(); }
static bool il_remote_possible(void) { return nr_cpu_ids > 1; }

/* Ticks on every CPU until nothing of s waits for a grace period (the
 * host's grace periods end only when the test ticks; test_rcu.c). */
#define IL_RCU_MAX_ROUNDS 16

static void il_rcu_settle(struct kmem_cache *s)
{
	unsigned int me = host_cpu_id, cpu, round;

	flush_rcu_sheaves(s);
	for (round = 0; round < IL_RCU_MAX_ROUNDS &&
	     __atomic_load_n(&s->rcu_pending, __ATOMIC_ACQUIRE); round++) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			unsigned long flags;

			host_cpu_id = cpu;
			flags = local_irq_save();
			host_irq_nesting++;
			rcu_sched_clock_irq(true);
			rcu_irq_exit_invoke();
			host_irq_nesting--;
			local_irq_restore(flags);
		}
	}
	host_cpu_id = me;
}
#else
#include <cpu_work.h>
#include <nmi.h>
#include "../../kernel/timekeeping.h"
#include "test_wait.h"

/* Waking the other CPUs costs more than the rest of a run under TCG:
 * another CPU's actions only at the first visit, and with more than two
 * CPUs (every IPI round waits for all of them) every action only there. */
#define IL_PICKS       (nr_cpu_ids <= 2 ? IL_VISIT_PICKS : 1)
#define IL_REMOTE_PICKS 1
/* on_each_cpu_task() needs IRQs on here. */
#define IL_REMOTE_IRQS_OK (!irqs_disabled())

static void (*il_nmi_request[NR_CPUS])(void);

static int il_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	unsigned int me = smp_processor_id();
	void (*fn)(void) = __atomic_load_n(&il_nmi_request[me], __ATOMIC_ACQUIRE);

	(void)type;
	(void)regs;
	if (!fn)
		return NMI_DONE;
	fn();
	__atomic_store_n(&il_nmi_request[me], NULL, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

static bool il_wait_cleared(void (**slot)(void))
{
	u64 end = test_deadline();

	while (__atomic_load_n(slot, __ATOMIC_ACQUIRE)) {
		if (rdtsc() > end) {
			__atomic_store_n(slot, NULL, __ATOMIC_RELEASE);
			return false;
		}
		cpu_relax();
	}
	return true;
}

/* A real NMI on this CPU, right here; false if it never came. */
static bool il_in_nmi(void (*fn)(void))
{
	unsigned int me = smp_processor_id();

	__atomic_store_n(&il_nmi_request[me], fn, __ATOMIC_RELEASE);
	nmi_send_self();
	return il_wait_cleared(&il_nmi_request[me]);
}

/* A real interrupt: an irq_work is a self-IPI, taken as IRQs are on. */
static void (*il_irq_request)(void);
static struct irq_work il_irq_work;

static void il_irq_func(struct irq_work *work)
{
	void (*fn)(void) = __atomic_load_n(&il_irq_request, __ATOMIC_ACQUIRE);

	(void)work;
	if (fn)
		fn();
	__atomic_store_n(&il_irq_request, NULL, __ATOMIC_RELEASE);
}

static bool il_in_irq(void (*fn)(void))
{
	__atomic_store_n(&il_irq_request, fn, __ATOMIC_RELEASE);
	irq_work_queue(&il_irq_work);
	return il_wait_cleared(&il_irq_request);
}

/* Another CPU runs fn while this one waits with IRQs on (so its IPIs
 * land here, inside the interrupted allocator code). */
static void (*il_remote_fn)(void);
static unsigned int il_remote_cpu;

static void il_remote_task(void *info)
{
	(void)info;
	if (smp_processor_id() == il_remote_cpu)
		il_remote_fn();
}

static bool il_on_other_cpu(void (*fn)(void))
{
	il_remote_fn = fn;
	il_remote_cpu = (smp_processor_id() + 1) % nr_cpu_ids;
	return on_each_cpu_task(il_remote_task, NULL) > 1;
}

static void il_run_irq_work_everywhere(void)
{
	/* The irq_work IPIs run by themselves; give them time to land. */
	u64 end = test_deadline();
	unsigned int cpu;
	bool pending = true;

	while (pending && rdtsc() < end) {
		pending = false;
		for_each_online_cpu(cpu)
			if (slab_deferred_frees(cpu))
				pending = true;
		cpu_relax();
	}
}

static int il_env_init(void)
{
	init_irq_work(&il_irq_work, il_irq_func);
	return register_nmi_handler(NMI_LOCAL, il_nmi_handler, "interleave");
}

static void il_env_exit(void)
{
	unregister_nmi_handler(NMI_LOCAL, "interleave");
}

static bool il_remote_possible(void) { return nr_cpu_ids > 1; }

/* Every kfree_rcu() of the scenario freed: real grace periods. */
static void il_rcu_settle(struct kmem_cache *s)
{
	(void)s;
	kvfree_rcu_barrier();
}
#endif

/* ===================================================================== */
/* One run: the scenario's state, the victims, what the action did        */
/* ===================================================================== */

struct il_scenario;

static struct {
	const struct il_scenario *sc;
	struct kmem_cache *s;          /* the scenario's cache (or kmalloc-64) */
	struct kmem_cache *act_s;      /* the cache the actions use (usually s) */
	struct kmem_cache *dying;      /* being destroyed: no action touches it */
	struct kmem_cache *filter;     /* slab points only of this cache; NULL: all */
	void *live[IL_MAX_LIVE];
	unsigned int nr_live;
	bool given_twice;
	void *given_twice_ptr;

	/* Victims, allocated before the run, freed by an action (or after). */
	void *v_obj[2], *v_kmalloc[2];
	struct kmem_cache *v_cache;    /* of v_obj */
	struct page *v_page[2], *v_big;
	/* What actions allocated, freed after the run. */
	void *got_obj[4];
	struct kmem_cache *got_cache[4];
	struct page *got_page[2];

	/* The hook. */
	bool dry;                      /* count only */
	bool in_action;
	enum mm_point point;
	void *point_arg;               /* what the point passed, when it acts */
	enum il_action action;
	unsigned int fire_at;          /* visit number (1-based) to act at */
	unsigned int visits;           /* of `point` so far, this run */
	bool fired;
	bool action_failed;            /* e.g. an NMI that never came */
	bool sheaf_lock_irqs_on;       /* a point found a sheaf lock held
					* with IRQs on */
	struct kmem_cache *flip_target; /* trace_flip: whose flag flipped */
	bool flush_pending;            /* ... and its flush not yet run */
} il;

/* Per point and action, from the dry run: the visits where it can act. */
static struct {
	unsigned int visits;
	unsigned int possible[NR_IL_ACTIONS];
	unsigned int first[NR_IL_ACTIONS], last[NR_IL_ACTIONS];
} il_dry[NR_MM_POINTS];

/* Figures. */
static unsigned long il_triples, il_runs, il_failures;
static unsigned long il_action_triples[NR_IL_ACTIONS];
static unsigned long il_action_runs[NR_IL_ACTIONS];
static bool il_point_reached[NR_MM_POINTS];

static void live_add(void *p)
{
	unsigned int i;

	if (!p || p == ZERO_SIZE_PTR)
		return;
	for (i = 0; i < il.nr_live; i++) {
		if (il.live[i] == p) {
			il.given_twice = true;
			il.given_twice_ptr = p;
			return;
		}
	}
	if (il.nr_live < IL_MAX_LIVE)
		il.live[il.nr_live++] = p;
}

static void live_del(void *p)
{
	unsigned int i;

	for (i = 0; i < il.nr_live; i++) {
		if (il.live[i] == p) {
			il.live[i] = il.live[--il.nr_live];
			return;
		}
	}
}

static void *obj_alloc(struct kmem_cache *s, gfp_t gfp)
{
	void *p = kmem_cache_alloc(s, gfp);

	live_add(p);
	return p;
}

static void obj_free(struct kmem_cache *s, void *p)
{
	live_del(p);
	kmem_cache_free(s, p);
}

static void *km_alloc(size_t size, gfp_t gfp)
{
	void *p = kmalloc(size, gfp);

	live_add(p);
	return p;
}

static void km_free(void *p)
{
	live_del(p);
	kfree(p);
}

/* ===================================================================== */
/* The actions                                                            */
/* ===================================================================== */

static void *take(void **slot)
{
	void *p = *slot;

	*slot = NULL;
	return p;
}

static struct page *take_page(struct page **slot)
{
	struct page *p = *slot;

	*slot = NULL;
	return p;
}

static void nmi_free_neighbour(void);

static void nmi_calls(void)
{
	struct kmem_cache *s = il.act_s;
	struct page *page;
	bool busy;
	void *p;

	p = slab_alloc_nolock(s, 0, NUMA_NO_NODE, &busy, _THIS_IP_);
	live_add(p);
	il.got_obj[0] = p;
	il.got_cache[0] = s;
	p = kmalloc_nolock(64, 0, NUMA_NO_NODE);
	live_add(p);
	il.got_obj[1] = p;
	il.got_page[0] = try_alloc_pages(0, 0);
	p = take(&il.v_obj[0]);
	if (p) {
		live_del(p);
		kmem_cache_free(il.v_cache, p);   /* in an NMI: the nolock path */
	}
	p = take(&il.v_kmalloc[0]);
	if (p) {
		live_del(p);
		kfree_nolock(p);
	}
	page = take_page(&il.v_page[0]);
	if (page)
		free_pages_nolock(page, 0);
	page = take_page(&il.v_big);
	if (page)
		free_pages_nolock(page, IL_BIG_ORDER);
	if (il.point == MM_POINT_BUDDY_HEAD_HALF ||
	    il.point == MM_POINT_PCP_HEAD_HALF)
		nmi_free_neighbour();
}

/* An IRQ may use prefilled sheaves too (GFP_ATOMIC): one taken, used
 * and given back while the interrupted code may be inside the sheaves. */
static void irq_prefill(struct kmem_cache *s)
{
	struct slab_sheaf *sheaf;
	void *p;

	if (!cache_has_sheaves(s))
		return;
	sheaf = kmem_cache_prefill_sheaf(s, GFP_ATOMIC, 2);
	if (!sheaf)
		return;
	p = kmem_cache_alloc_from_sheaf(s, GFP_ATOMIC, sheaf);
	live_add(p);
	kmem_cache_return_sheaf(s, GFP_ATOMIC, sheaf);
	if (p)
		obj_free(s, p);
}

static void irq_calls(void)
{
	struct kmem_cache *s = il.act_s;
	struct page *page;
	void *p;

	il.got_obj[2] = obj_alloc(s, GFP_ATOMIC);
	il.got_cache[2] = s;
	il.got_obj[3] = km_alloc(64, GFP_ATOMIC);
	il.got_page[1] = alloc_pages(GFP_ATOMIC, 0);
	p = take(&il.v_obj[1]);
	if (p)
		obj_free(il.v_cache, p);
	p = take(&il.v_kmalloc[1]);
	if (p)
		km_free(p);
	page = take_page(&il.v_page[1]);
	if (page)
		__free_pages(page, 0);
	irq_prefill(s);
}

static struct kmem_cache *il_ipi_cache;

static void remote_shrink(void)
{
	kmem_cache_shrink(il_ipi_cache);
}

static void remote_traffic(void)
{
	void *p[IL_CAP + 2], *k, *mine;
	struct page *page;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(p); i++)
		p[i] = obj_alloc(il.act_s, GFP_KERNEL);
	k = km_alloc(64, GFP_KERNEL);
	page = alloc_pages(GFP_KERNEL, 0);
	for (i = 0; i < ARRAY_SIZE(p); i++)
		if (p[i])
			obj_free(il.act_s, p[i]);
	/* An object this CPU allocated, freed on the other one. */
	mine = take(&il.v_obj[1]);
	if (mine)
		obj_free(il.v_cache, mine);
	if (k)
		km_free(k);
	if (page)
		__free_pages(page, 0);
	drain_all_pages();
}

/* Is any allocator spinlock taken (by anyone)?  Then another CPU would
 * wait for it, and the host, one thread, cannot wait. */
static bool allocator_lock_held(void)
{
	struct kmem_cache *s;
	unsigned int z, cpu;
	int nid;

	list_for_each_entry(s, &slab_caches, list)
		for (nid = 0; nid < MAX_NUMNODES; nid++)
			if (spin_is_locked(&get_node(s, nid)->list_lock) ||
			    spin_is_locked(&get_node(s, nid)->barn.lock))
				return true;
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!NODE_DATA(nid))
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (spin_is_locked(&zone->lock))
				return true;
			for_each_possible_cpu(cpu)
				if (spin_is_locked(&zone->pcp[cpu].lock))
					return true;
		}
	}
	return spin_is_locked(&slab_caches_lock);
}

/*
 * Does this CPU hold a sheaf lock?  Only the slow paths do, with IRQs off
 * (the fast paths are restartable sequences), and il_hook() checks it.  A
 * flush IPI that found one held would be sent again once the holder had
 * finished, so the flushing CPU would wait for this one; the host, one
 * thread, cannot run a CPU that waits for the thread it interrupted.
 * There the IPI is not searched (sheaf_test covers the retry).
 */
static bool sheaf_lock_held_here(void)
{
	unsigned int me = smp_processor_id();
	struct kmem_cache *s;

	list_for_each_entry(s, &slab_caches, list)
		if (local_lock_is_locked(&s->cpu_sheaves[me].lock))
			return true;
	return false;
}

static bool action_possible(enum il_action a)
{
	switch (a) {
	case IL_NMI:
		return !in_nmi();
	case IL_IRQ:
		return !irqs_disabled() && !in_nmi() && !in_irq();
	case IL_IPI:
		return il_remote_possible() && in_task() && !irqs_disabled() &&
		       !sheaf_lock_held_here();
	case IL_REMOTE:
		return il_remote_possible() && in_task() && IL_REMOTE_IRQS_OK &&
		       !allocator_lock_held();
	case IL_TRACE_FLIP:
		/* Another CPU's store: any instruction, in the traced suite. */
		return il_trace_suite;
	default:
		return false;
	}
}

/* The cache trace_flip flips: the scenario's, unless it is being
 * destroyed (then the one the actions use). */
static struct kmem_cache *il_flip_cache(void)
{
	return il.s && il.s != il.dying ? il.s : il.act_s;
}

static struct kmem_cache *il_flush_cache;

static void remote_trace_flush(void)
{
	flush_all_sheaves(il_flush_cache);
	flush_all_cpu_slabs(il_flush_cache);   /* tid parity (cpu_slab.c) */
}

/* The flush IPI of the flip: where this CPU can take it. */
static bool il_flush_possible(void)
{
	return in_task() && !irqs_disabled() && !sheaf_lock_held_here();
}

/* Every online CPU, its lock free: main is the gate exactly while s is
 * traced (a cache with sheaves), the real main never the gate. */
static bool il_gate_where_the_flag_says(struct kmem_cache *s)
{
	unsigned int cpu;

	if (slab_trace_gate.size || slab_trace_gate.capacity)
		return false;
	for_each_online_cpu(cpu) {
		struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[cpu];
		bool gated = READ_ONCE(pcs->main) == &slab_trace_gate;

		if (pcs_main_unlocked(pcs) == &slab_trace_gate)
			return false;
		if (gated != (cache_has_sheaves(s) &&
			      (s->flags & SLAB_TRACED)))
			return false;
	}
	return true;
}

static void il_run_pending_flush(void)
{
	if (!il.flush_pending)
		return;
	il.flush_pending = false;
	if (il.flip_target == il.dying)
		return;   /* its destruction flushed it; it is gone now */
	il_flush_cache = il.flip_target;
	if (!il_remote_possible() || !il_on_other_cpu(remote_trace_flush)) {
		flush_all_sheaves(il.flip_target);
		flush_all_cpu_slabs(il.flip_target);
	}
}

static bool run_action(enum il_action a, void *arg)
{
	switch (a) {
	case IL_NMI:
		return il_in_nmi(nmi_calls);
	case IL_IRQ:
		return il_in_irq(irq_calls);
	case IL_IPI:
		il_ipi_cache = il.point < MM_POINT_PCP_LOCKED && arg &&
			       arg != il.dying ? arg : il.act_s;
		return il_on_other_cpu(remote_shrink);
	case IL_REMOTE:
		return il_on_other_cpu(remote_traffic);
	case IL_TRACE_FLIP:
		il.flip_target = il_flip_cache();
		__atomic_fetch_xor(&il.flip_target->flags, SLAB_TRACED,
				   __ATOMIC_RELAXED);
		il.flush_pending = true;
		return true;
	default:
		return false;
	}
}

static bool point_is_for_us(enum mm_point p, void *arg)
{
	if (p >= MM_POINT_PCP_LOCKED)   /* page points: any zone */
		return true;
	return !il.filter || arg == il.filter;
}

static void il_hook(enum mm_point p, void *arg)
{
	unsigned int a;

	if (il.in_action)
		return;
	if (il.flush_pending && il_flush_possible()) {
		il.in_action = true;
		il_run_pending_flush();
		il.in_action = false;
	}
	if (!point_is_for_us(p, arg))
		return;
	/* kmalloc()'s pop reads no lock flag (slab_internal.h): it relies
	 * on every holder of a sheaf lock keeping IRQs off, checked here at
	 * every point of every scenario. */
	if (!in_nmi() && !irqs_disabled() && sheaf_lock_held_here())
		il.sheaf_lock_irqs_on = true;
	if (il.dry) {
		unsigned int v = ++il_dry[p].visits;

		for (a = 0; a < NR_IL_ACTIONS; a++) {
			if (!action_possible(a))
				continue;
			if (!il_dry[p].possible[a]++)
				il_dry[p].first[a] = v;
			il_dry[p].last[a] = v;
		}
		return;
	}
	if (p != il.point || il.fired || ++il.visits != il.fire_at)
		return;
	if (!action_possible(il.action))
		return;       /* not reached the same way: not counted */
	il.in_action = true;
	il.fired = true;
	il.point_arg = arg;
	if (!run_action(il.action, arg))
		il.action_failed = true;
	il.in_action = false;
}

/* ===================================================================== */
/* Scenarios                                                              */
/* ===================================================================== */

struct il_scenario {
	const char *name;
	/* Make the cache(s); set il.s (victims come from it) and il.filter. */
	bool (*setup)(void);
	void (*body)(void);
	/* Destroy what setup made; false if something leaked. */
	bool (*teardown)(void);
	/* A victim object was just allocated (debug kmalloc: set its size). */
	void (*prepare_victim)(void *object);
};

static void *objs[IL_MAX_LIVE];

static struct kmem_cache *make_cache(const char *name, unsigned int size,
				     unsigned int cap, slab_flags_t flags)
{
	struct kmem_cache_args args = { .sheaf_capacity = cap };

	return kmem_cache_create_args(name, size, &args, flags);
}

static bool setup_sheaf_cache(void)
{
	il.s = il.filter = make_cache("il_sheaves", 64, IL_CAP,
				      SLAB_TEST_SHEAF_CAPACITY);
	return il.s;
}

static bool teardown_private(void)
{
	bool ok = kmem_cache_destroy(il.s) == 0;

	il.s = il.filter = NULL;
	return ok;
}

static void alloc_n(unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		objs[i] = obj_alloc(il.s, GFP_KERNEL);
}

static void free_n(unsigned int from, unsigned int n)
{
	unsigned int i;

	for (i = from; i < from + n; i++)
		if (objs[i])
			obj_free(il.s, objs[i]);
}

/* Through every branch of the sheaf slow paths: refill, swap, barn trade
 * both ways, a new empty sheaf, the barn at its limit, batch flushes. */
#define CHURN_OBJS ((BARN_MAX_FULL + 3) * IL_CAP)

static void body_sheaf_churn(void)
{
	alloc_n(CHURN_OBJS);
	free_n(0, CHURN_OBJS);
	alloc_n(CHURN_OBJS);
	free_n(CHURN_OBJS / 2, CHURN_OBJS / 2);
	free_n(0, CHURN_OBJS / 2);
}

/* A CPU whose main is the bootstrap sheaf: first free, first alloc, and a
 * prefilled sheaf returned to it (issue 10, defect 1). */
static void body_bootstrap(void)
{
	struct slab_sheaf *sheaf;

	kmem_cache_shrink(il.s);
	alloc_n(1);
	kmem_cache_shrink(il.s);
	free_n(0, 1);
	kmem_cache_shrink(il.s);
	sheaf = kmem_cache_prefill_sheaf(il.s, GFP_KERNEL, IL_CAP);
	kmem_cache_shrink(il.s);
	if (sheaf)
		kmem_cache_return_sheaf(il.s, GFP_KERNEL, sheaf);
	alloc_n(2 * IL_CAP + 2);
	free_n(0, 2 * IL_CAP + 2);
}

static void *sheaf_alloc(struct slab_sheaf *sheaf)
{
	void *p = kmem_cache_alloc_from_sheaf(il.s, GFP_KERNEL, sheaf);

	live_add(p);
	return p;
}

/* Prefilled sheaves: from the spare, the barn, new; refilled in place and
 * to a bigger one; returned to spare, barn or flushed; count 0. */
static void body_prefill(void)
{
	struct slab_sheaf *a, *b, *c;

	alloc_n(IL_CAP);
	free_n(0, IL_CAP);
	a = kmem_cache_prefill_sheaf(il.s, GFP_KERNEL, IL_CAP);
	b = kmem_cache_prefill_sheaf(il.s, GFP_KERNEL, 0);
	c = kmem_cache_prefill_sheaf(il.s, GFP_KERNEL, 3 * IL_CAP);
	if (a) {
		objs[0] = sheaf_alloc(a);
		objs[1] = sheaf_alloc(a);
		kmem_cache_refill_sheaf(il.s, GFP_KERNEL, &a, IL_CAP);
		kmem_cache_refill_sheaf(il.s, GFP_KERNEL, &a, 2 * IL_CAP);
		kmem_cache_return_sheaf(il.s, GFP_KERNEL, a);
	}
	if (c) {
		objs[2] = sheaf_alloc(c);
		kmem_cache_return_sheaf(il.s, GFP_KERNEL, c);
	}
	if (b)
		kmem_cache_return_sheaf(il.s, GFP_KERNEL, b);
	free_n(0, 3);
}

static void body_bulk(void)
{
	unsigned int n = 3 * IL_CAP + 2, i;

	if (kmem_cache_alloc_bulk(il.s, GFP_KERNEL, n, objs) == (int)n)
		for (i = 0; i < n; i++)
			live_add(objs[i]);
	else
		memset(objs, 0, n * sizeof(objs[0]));
	for (i = 0; i < n; i++)
		live_del(objs[i]);
	kmem_cache_free_bulk(il.s, n / 2, objs);
	kmem_cache_free_bulk(il.s, n - n / 2, objs + n / 2);
	alloc_n(n);
	for (i = 0; i < n; i++)
		live_del(objs[i]);
	kmem_cache_free_bulk(il.s, n, objs);
}

static void body_shrink(void)
{
	alloc_n(5 * IL_CAP);
	free_n(0, 2 * IL_CAP);
	kmem_cache_shrink(il.s);
	free_n(2 * IL_CAP, 3 * IL_CAP);
	kmem_cache_shrink(il.s);
}

/* Destruction itself (flush of every CPU and the barn) under the search:
 * the body destroys the cache, the actions meanwhile use kmalloc-64 (a
 * cache being destroyed is nobody's to use). */
static bool il_destroy_ok;
static void free_leftovers(void);

static void body_destroy(void)
{
	alloc_n(3 * IL_CAP);
	free_n(0, 3 * IL_CAP);
	free_leftovers();
	il_run_irq_work_everywhere();
	il.dying = il.s;
	il.act_s = kmalloc_slab(64);
	il_destroy_ok = kmem_cache_destroy(il.s) == 0;
}

static bool teardown_destroyed(void)
{
	il.s = il.filter = NULL;
	return il_destroy_ok;
}

/* The any-context API in task context, on kmalloc-64 and the cache. */
static bool setup_kmalloc64(void)
{
	il.s = il.filter = kmalloc_slab(64);
	return il.s;
}

static bool teardown_nothing(void)
{
	il.s = il.filter = NULL;
	return true;
}

static void body_nolock(void)
{
	unsigned int i, n = 3 * IL_CAP + 2;

	kmem_cache_shrink(il.s);   /* main is the bootstrap sheaf: slow paths */
	for (i = 0; i < n; i++) {
		objs[i] = kmalloc_nolock(64, i & 1 ? __GFP_ZERO : 0,
					 NUMA_NO_NODE);
		live_add(objs[i]);
	}
	for (i = 0; i < n; i++) {
		live_del(objs[i]);
		kfree_nolock(objs[i]);
	}
	kmem_cache_shrink(il.s);
	for (i = 0; i < n; i++)
		objs[i] = km_alloc(64, GFP_KERNEL);
	for (i = 0; i < n; i++)
		km_free(objs[i]);
}

static void body_nolock_private(void)
{
	unsigned int i, n = 2 * IL_CAP + 1;
	bool busy;

	for (i = 0; i < n; i++) {
		objs[i] = slab_alloc_nolock(il.s, 0, NUMA_NO_NODE, &busy, _THIS_IP_);
		live_add(objs[i]);
	}
	for (i = 0; i < n; i++) {
		if (!objs[i])
			continue;
		live_del(objs[i]);
		slab_free_nolock(il.s, objs[i], _THIS_IP_);
	}
}

/* A debug cache (no sheaves: every object through the checks). */
static bool setup_debug(void)
{
	il.s = il.filter = make_cache("il_debug", 24, SHEAF_CAPACITY_DEFAULT,
				      SLAB_CONSISTENCY_CHECKS | SLAB_RED_ZONE |
				      SLAB_POISON | SLAB_STORE_USER);
	return il.s;
}

static void body_plain(void)
{
	alloc_n(20);
	free_n(0, 10);
	body_nolock_private();
	free_n(10, 10);
}

/* A kmalloc-like debug cache with a red zone but no poison: objects carry
 * the size asked for (issue 10, defect 2: the deferred link in the red
 * zone). */
#define IL_KMALLOC_ASKED 20

static bool setup_debug_kmalloc(void)
{
	il.s = il.filter = make_cache("il_kmalloc_z", 32, SHEAF_CAPACITY_DEFAULT,
				      SLAB_KMALLOC | SLAB_RED_ZONE);
	return il.s;
}

static void set_asked_size(void *object)
{
	if (object)
		slab_kmalloc_set_size(il.s, object, IL_KMALLOC_ASKED);
}

static void body_debug_kmalloc(void)
{
	unsigned int i;

	for (i = 0; i < 12; i++) {
		objs[i] = obj_alloc(il.s, GFP_KERNEL);
		set_asked_size(objs[i]);
	}
	free_n(0, 12);
}

static bool setup_no_sheaves(void)
{
	il.s = il.filter = make_cache("il_nosheaf", 128, 0, 0);
	return il.s;
}

/*
 * The deferred paths, in the allocator's own context rather than only
 * inside an action: a fresh slab made by the any-context path, objects
 * freed while list_lock is held (so they are parked: the push is searched),
 * their drain by the irq_work, and a page freed while every page lock is
 * held (parked on the zone's llist, taken by the next locked free).
 */
#define IL_DEFERRED 3

static bool setup_deferred(void)
{
	il.s = il.filter = make_cache("il_deferred", 96, 0, 0);
	return il.s;
}

static void lock_all_page_locks(unsigned long *flags)
{
	unsigned int z, me = smp_processor_id();

	*flags = local_irq_save();
	for (z = 0; z < MAX_NR_ZONES; z++)
		spin_lock(&NODE_DATA(0)->node_zones[z].pcp[me].lock);
	for (z = 0; z < MAX_NR_ZONES; z++)
		spin_lock(&NODE_DATA(0)->node_zones[z].lock);
}

static void unlock_all_page_locks(unsigned long flags)
{
	unsigned int z, me = smp_processor_id();

	for (z = MAX_NR_ZONES; z-- > 0;)
		spin_unlock(&NODE_DATA(0)->node_zones[z].lock);
	for (z = MAX_NR_ZONES; z-- > 0;)
		spin_unlock(&NODE_DATA(0)->node_zones[z].pcp[me].lock);
	local_irq_restore(flags);
}

static void body_deferred(void)
{
	struct kmem_cache_node *n = get_node(il.s, 0);
	struct page *page = alloc_pages(GFP_KERNEL, 0), *other;
	unsigned int i = 0, nr;
	unsigned long flags;
	bool busy;

	/* Use up the partial slabs, then one object from a fresh slab. */
	while (n->nr_partial && i < IL_MAX_LIVE / 2)
		objs[i++] = obj_alloc(il.s, GFP_KERNEL);
	objs[i] = slab_alloc_nolock(il.s, 0, NUMA_NO_NODE, &busy, _THIS_IP_);
	live_add(objs[i++]);
	nr = i;
	/* Frees with list_lock held: parked on the deferred list. */
	spin_lock_irqsave(&n->list_lock, flags);
	for (i = 0; i < IL_DEFERRED && i < nr; i++) {
		if (!objs[i])
			continue;
		live_del(objs[i]);
		slab_free_nolock(il.s, objs[i], _THIS_IP_);
		objs[i] = NULL;
	}
	spin_unlock_irqrestore(&n->list_lock, flags);
	il_run_irq_work_everywhere();   /* the drain */
	free_n(0, nr);
	/* A page freed with every page lock held, then a locked free. */
	if (page) {
		lock_all_page_locks(&flags);
		free_pages_nolock(page, 0);
		unlock_all_page_locks(flags);
	}
	other = alloc_pages(GFP_KERNEL, IL_BIG_ORDER);
	if (other)
		__free_pages(other, IL_BIG_ORDER);
}

/* The page allocator: the pcp lists through their high mark, the buddy,
 * the any-context pair, a drain.  Slab points are not searched here. */
static struct page *pages[PCP_HIGH + PCP_BATCH + 8];

static bool setup_pages(void)
{
	il.s = kmalloc_slab(64);
	il.filter = (struct kmem_cache *)&pages;   /* matches no cache */
	return true;
}

static unsigned int page_order_of(unsigned int i)
{
	return i % 2 ? 0 : i % 4;
}

static unsigned int nr_pages_held;

/*
 * An NMI that frees a page the interrupted code allocated earlier, the
 * one nearest above the head being made free (the point's page), in its
 * MAX_ORDER block: a free must never be refused as a double free because
 * a neighbour's head is half written (issue 10, defect 3).
 */
static void nmi_free_neighbour(void)
{
	const struct page *head = il.point_arg;
	unsigned long hp = page_to_pfn(head), best = ~0ul;
	unsigned int i, pick = 0;

	for (i = 0; i < nr_pages_held; i++) {
		unsigned long pfn;

		if (!pages[i])
			continue;
		pfn = page_to_pfn(pages[i]);
		if (pfn > hp && pfn - hp < best &&
		    (pfn >> MAX_ORDER) == (hp >> MAX_ORDER)) {
			best = pfn - hp;
			pick = i;
		}
	}
	if (best != ~0ul)
		free_pages_nolock(take_page(&pages[pick]), page_order_of(pick));
}

static void body_pages(void)
{
	unsigned int i, n = ARRAY_SIZE(pages);

	memset(pages, 0, sizeof(pages));
	nr_pages_held = n;
	for (i = 0; i < n; i++)
		pages[i] = alloc_pages(GFP_KERNEL, page_order_of(i));
	for (i = 0; i < n; i++)
		if (pages[i])
			__free_pages(take_page(&pages[i]), page_order_of(i));
	nr_pages_held = 0;   /* the three below have orders of their own */
	pages[0] = alloc_pages(GFP_KERNEL, IL_BIG_ORDER + 1);
	pages[1] = try_alloc_pages(0, 0);
	pages[2] = try_alloc_pages(0, 2);
	if (pages[0])
		__free_pages(take_page(&pages[0]), IL_BIG_ORDER + 1);
	if (pages[1])
		free_pages_nolock(take_page(&pages[1]), 0);
	if (pages[2])
		free_pages_nolock(take_page(&pages[2]), 2);
	drain_all_pages();
}

/* kmalloc across classes and past them, krealloc. */
static void body_kmalloc(void)
{
	void *a = km_alloc(24, GFP_KERNEL), *b;
	void *big = km_alloc(KMALLOC_MAX_CACHE_SIZE + 1, GFP_KERNEL);

	live_del(a);
	b = krealloc(a, 200, GFP_KERNEL);
	live_add(b ? b : a);
	km_free(b ? b : a);
	km_free(big);
	objs[0] = km_alloc(4000, GFP_KERNEL | __GFP_ZERO);
	km_free(objs[0]);
}

/*
 * Node requests and remote frees (docs/numa.md): kmem_cache_alloc_node()
 * and kmalloc_node() of this CPU's memory node (the sheaf's top checked
 * for its node), of another node (that node's slabs, a new slab there),
 * with __GFP_THISNODE, kmalloc_nolock() of a node; then every object
 * freed here, the remote ones past the sheaves to their node's slabs
 * under that node's list_lock (a full remote slab among them, so one
 * moves between that node's lists).  On one node only the local half
 * runs.
 */
#define NODE_OBJS (2 * IL_CAP + 1)

static void *node_alloc(int nid, gfp_t gfp)
{
	void *p = kmem_cache_alloc_node(il.s, gfp, nid);

	live_add(p);
	return p;
}

static void body_nodes(void)
{
	int here = numa_mem_id(), far = NUMA_NO_NODE, nid;
	unsigned int i, n = 0;

	for (nid = 0; nid < nr_node_ids; nid++)
		if (nid != here && node_state(nid, NODE_MEMORY))
			far = nid;
	alloc_n(IL_CAP);                   /* the sheaf holds local ones */
	free_n(0, IL_CAP);
	for (i = 0; i < NODE_OBJS; i++)
		objs[n++] = node_alloc(here, GFP_KERNEL);
	objs[n++] = node_alloc(here, GFP_KERNEL | __GFP_THISNODE);
	if (far != NUMA_NO_NODE) {
		/* A whole remote slab and one more: the frees move a full
		 * slab back to its node's partial list. */
		for (i = 0; i <= il.s->objects && n < IL_MAX_LIVE - 2; i++)
			objs[n++] = node_alloc(far, GFP_KERNEL);
		objs[n++] = node_alloc(far, GFP_KERNEL | __GFP_THISNODE);
	}
	objs[n] = kmalloc_node(64, GFP_KERNEL, far != NUMA_NO_NODE ? far : here);
	live_add(objs[n]);
	km_free(objs[n]);
	objs[n] = kmalloc_nolock(64, 0, far != NUMA_NO_NODE ? far : here);
	live_add(objs[n]);
	km_free(objs[n]);
	free_n(0, n);
}

static bool setup_any_cache(void)
{
	il.s = kmalloc_slab(64);
	il.filter = NULL;
	return true;
}

/* kfree_rcu() through the rcu_free sheaf: a partial sheaf, full ones
 * handed to call_rcu() under the sheaf lock, returned through the barn
 * after the grace period (and flushed once the barn is full), objects
 * reused from it; then the grace periods end (il_rcu_settle()). */
#define KFREE_RCU_OBJS ((BARN_MAX_FULL + 2) * IL_CAP + 1)

static void body_kfree_rcu(void)
{
	unsigned int i;

	alloc_n(KFREE_RCU_OBJS);
	for (i = 0; i < KFREE_RCU_OBJS; i++) {
		live_del(objs[i]);
		kfree_rcu(objs[i]);
	}
	il_rcu_settle(il.s);
	alloc_n(2 * IL_CAP);
	free_n(0, 2 * IL_CAP);
}

/*
 * SLUB's per-CPU slabs (mm/cpu_slab.c): a cpu-slab cache through every
 * step of a frozen slab's life.  Slabs fill and are unfrozen full; half
 * their objects come back (frees under list_lock to unfrozen slabs, fast
 * frees to this CPU's slab); the next allocations freeze a slab of the
 * node's partial list and more onto this CPU's partial list; frees to
 * those frozen slabs go onto their own freelists by cmpxchg16b, which the
 * allocations then take whole; a shrink unfreezes everything.  The host
 * build has points inside the fast paths too (between the reads and the
 * cmpxchg16b), where an NMI, IRQ, flush IPI or another CPU then lands.
 */
#define IL_CPU_SLAB_SIZE 64
#define IL_CPU_SLAB_OBJS (3 * (PAGE_SIZE / IL_CPU_SLAB_SIZE) + 8)

/* The scenario's victims came from this CPU's slab, which can serve a
 * short body by the fast paths alone, where the kernel build has no
 * point: a shrink first sends the body through the slow paths. */
static void body_cpu_slab_nolock(void)
{
	kmem_cache_shrink(il.s);
	body_nolock_private();
}

static void body_cpu_slab_bulk(void)
{
	kmem_cache_shrink(il.s);
	body_bulk();
}

static void body_cpu_slab_nodes(void)
{
	kmem_cache_shrink(il.s);
	body_nodes();
}

static bool setup_cpu_slab_cache(void)
{
	struct kmem_cache_args args = { .mode = SLAB_MODE_CPU_SLAB };

	il.s = il.filter = kmem_cache_create_args("il_cpu_slab",
						  IL_CPU_SLAB_SIZE, &args, 0);
	return il.s;
}

static void body_cpu_slab(void)
{
	unsigned int i, n = IL_CPU_SLAB_OBJS;

	alloc_n(n);
	for (i = 0; i < n; i += 2) {
		if (objs[i])
			obj_free(il.s, objs[i]);
		objs[i] = NULL;
	}
	for (i = 0; i < n; i += 2)
		objs[i] = obj_alloc(il.s, GFP_KERNEL);
	for (i = 1; i < n; i += 2)
		if (objs[i])
			obj_free(il.s, objs[i]);
	for (i = 1; i < n; i += 2)
		objs[i] = obj_alloc(il.s, GFP_KERNEL);
	kmem_cache_shrink(il.s);
	free_n(0, n);
	kmem_cache_shrink(il.s);
}

static const struct il_scenario il_scenarios[] = {
	{ .name = "sheaf_churn", .setup = setup_sheaf_cache, .body = body_sheaf_churn, .teardown = teardown_private },
	{ .name = "bootstrap", .setup = setup_sheaf_cache, .body = body_bootstrap, .teardown = teardown_private },
	{ .name = "prefill_return", .setup = setup_sheaf_cache, .body = body_prefill, .teardown = teardown_private },
	{ .name = "bulk", .setup = setup_sheaf_cache, .body = body_bulk, .teardown = teardown_private },
	{ .name = "shrink", .setup = setup_sheaf_cache, .body = body_shrink, .teardown = teardown_private },
	{ .name = "destroy", .setup = setup_sheaf_cache, .body = body_destroy, .teardown = teardown_destroyed },
	{ .name = "nolock_kmalloc", .setup = setup_kmalloc64, .body = body_nolock, .teardown = teardown_nothing },
	{ .name = "nolock_cache", .setup = setup_sheaf_cache, .body = body_nolock_private, .teardown = teardown_private },
	{ .name = "debug_cache", .setup = setup_debug, .body = body_plain, .teardown = teardown_private },
	{ .name = "debug_kmalloc_z", .setup = setup_debug_kmalloc, .body = body_debug_kmalloc, .teardown = teardown_private, .prepare_victim = set_asked_size },
	{ .name = "no_sheaves", .setup = setup_no_sheaves, .body = body_plain, .teardown = teardown_private },
	{ .name = "deferred", .setup = setup_deferred, .body = body_deferred, .teardown = teardown_private },
	{ .name = "pages", .setup = setup_pages, .body = body_pages, .teardown = teardown_nothing },
	{ .name = "kmalloc", .setup = setup_any_cache, .body = body_kmalloc, .teardown = teardown_nothing },
	{ .name = "kfree_rcu", .setup = setup_sheaf_cache, .body = body_kfree_rcu, .teardown = teardown_private },
	{ .name = "nodes", .setup = setup_sheaf_cache, .body = body_nodes, .teardown = teardown_private },
	{ .name = "cpu_slab_churn", .setup = setup_cpu_slab_cache, .body = body_cpu_slab, .teardown = teardown_private },
	{ .name = "cpu_slab_nolock", .setup = setup_cpu_slab_cache, .body = body_cpu_slab_nolock, .teardown = teardown_private },
	{ .name = "cpu_slab_bulk", .setup = setup_cpu_slab_cache, .body = body_cpu_slab_bulk, .teardown = teardown_private },
	{ .name = "cpu_slab_destroy", .setup = setup_cpu_slab_cache, .body = body_destroy, .teardown = teardown_destroyed },
	{ .name = "cpu_slab_nodes", .setup = setup_cpu_slab_cache, .body = body_cpu_slab_nodes, .teardown = teardown_private },
};

/* ===================================================================== */
/* Running one triple                                                     */
/* ===================================================================== */

/* Does s hold anything a shrink would give back (sheaves, barn, empty
 * slabs kept)?  Quiescent callers only. */
static bool cache_holds_sheaves(struct kmem_cache *s)
{
	unsigned int cpu;
	int nid;

	for_each_possible_cpu(cpu)
		if (s->cpu_sheaves[cpu].main != &bootstrap_sheaf ||
		    s->cpu_sheaves[cpu].spare)
			return true;
	for (nid = 0; nid < MAX_NUMNODES; nid++)
		if (get_node(s, nid)->barn.nr_full ||
		    get_node(s, nid)->barn.nr_empty)
			return true;
	return false;
}

/* Does a CPU hold a frozen slab of s (cpu-slab mode)?  Quiescent. */
static bool cache_holds_cpu_slabs(struct kmem_cache *s)
{
	unsigned int cpu;

	if (!cache_has_cpu_slab(s))
		return false;
	for_each_possible_cpu(cpu)
		if (s->cpu_slab[cpu].slab || s->cpu_slab[cpu].nr_partial)
			return true;
	return false;
}

static bool cache_keeps_empty_slabs(struct kmem_cache *s)
{
	struct page *slab;
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++)
		list_for_each_entry(slab, &get_node(s, nid)->partial, lru)
			if (!slab->inuse)
				return true;
	return false;
}

/*
 * Everything parked or cached given back, and the free page count:
 * kmem_cache_shrink_all() does the same for every cache, but with three
 * rounds of IPIs each; here only the caches that hold something are
 * flushed (all sheaves first: sheaf arrays live in kmalloc caches), then
 * shrunk.  Runs once between two runs (their after and before are one).
 */
static unsigned long quiesced_free_pages(void)
{
	struct kmem_cache *s;

	il_run_irq_work_everywhere();
	slab_deferred_flush_all();
	list_for_each_entry(s, &slab_caches, list) {
		if (cache_holds_sheaves(s))
			flush_all_sheaves(s);
		if (cache_holds_cpu_slabs(s))
			flush_all_cpu_slabs(s);
	}
	list_for_each_entry(s, &slab_caches, list)
		if (cache_keeps_empty_slabs(s))
			kmem_cache_shrink(s);
	drain_all_pages();
	return nr_free_pages();
}

/* The count after the last run, which is the next run's before. */
static unsigned long il_quiesced;
static bool il_quiesced_valid;

static void alloc_victims(const struct il_scenario *sc)
{
	unsigned int i;

	il.act_s = il.v_cache = il.s;
	for (i = 0; i < 2; i++) {
		il.v_obj[i] = obj_alloc(il.act_s, GFP_KERNEL);
		if (sc->prepare_victim)
			sc->prepare_victim(il.v_obj[i]);
		il.v_kmalloc[i] = km_alloc(64, GFP_KERNEL);
		il.v_page[i] = alloc_pages(GFP_KERNEL, 0);
	}
	il.v_big = alloc_pages(GFP_KERNEL, IL_BIG_ORDER);
}

/* Everything the victims and the actions still hold, back. */
static void free_leftovers(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (il.v_obj[i])
			obj_free(il.v_cache, take(&il.v_obj[i]));
		if (il.v_kmalloc[i])
			km_free(take(&il.v_kmalloc[i]));
		if (il.v_page[i])
			__free_pages(take_page(&il.v_page[i]), 0);
	}
	if (il.v_big)
		__free_pages(take_page(&il.v_big), IL_BIG_ORDER);
	if (il.got_obj[0])
		obj_free(il.got_cache[0], take(&il.got_obj[0]));
	if (il.got_obj[2])
		obj_free(il.got_cache[2], take(&il.got_obj[2]));
	if (il.got_obj[1])
		km_free(take(&il.got_obj[1]));
	if (il.got_obj[3])
		km_free(take(&il.got_obj[3]));
	for (i = 0; i < 2; i++)
		if (il.got_page[i])
			__free_pages(take_page(&il.got_page[i]), 0);
}

struct il_result {
	bool ran;           /* the action really happened */
	bool ok;
	char why[96];
};

static void fail_why(struct il_result *r, const char *why)
{
	if (r->ok)
		strlcpy(r->why, why, sizeof(r->why));
	r->ok = false;
}

/*
 * One run of sc.  dry: count visits only.  Otherwise act at visit fire_at
 * of point p with action a.  The result says whether it fired and what
 * went wrong.
 */
static void il_run(const struct il_scenario *sc, bool dry, enum mm_point p,
		   enum il_action a, unsigned int fire_at,
		   struct il_result *r)
{
	unsigned long before, warns = warn_count, reports = slab_reports;
	unsigned long bad_pages = nr_bad_page_frees;
	bool torn_down;

	memset(r, 0, sizeof(*r));
	r->ok = true;
	before = il_quiesced_valid ? il_quiesced : quiesced_free_pages();
	il_quiesced_valid = false;
	memset(&il, 0, sizeof(il));
	il.sc = sc;
	if (!sc->setup()) {
		fail_why(r, "setup failed");
		return;
	}
	if (il_trace_suite == IL_TRACE_FROM_SETUP) {
		slab_trace_enable(kmalloc_slab(64));
		slab_trace_enable(il.s);
	}
	alloc_victims(sc);
	il.dry = dry;
	il.point = p;
	il.action = a;
	il.fire_at = fire_at;
	__atomic_store_n(&mm_point_hook, il_hook, __ATOMIC_RELEASE);
	sc->body();
	__atomic_store_n(&mm_point_hook, NULL, __ATOMIC_RELEASE);
	il_run_pending_flush();
	if (il_trace_suite != IL_TRACE_NONE &&
	    (!il_gate_where_the_flag_says(kmalloc_slab(64)) ||
	     (il.s && il.s != il.dying && !il_gate_where_the_flag_says(il.s))))
		fail_why(r, "the trace gate installed while untraced, missing while traced, or behind itself");
	r->ran = il.fired && !il.action_failed;
	if (il.fired && il.action_failed)
		fail_why(r, "the interrupt never came");
	free_leftovers();
	il_run_irq_work_everywhere();
	torn_down = sc->teardown();
	if (il_trace_suite != IL_TRACE_NONE)
		slab_trace_disable(kmalloc_slab(64));   /* shared: untraced again */
	if (il.given_twice)
		fail_why(r, "an object was handed out twice");
	if (il.sheaf_lock_irqs_on)
		fail_why(r, "a sheaf lock held with IRQs on");
	if (il.nr_live)
		fail_why(r, "objects still live after the run (test bug)");
	if (!torn_down)
		fail_why(r, "kmem_cache_destroy found objects never freed (lost)");
	if (warn_count != warns)
		fail_why(r, "WARN");
	if (slab_reports != reports)
		fail_why(r, "slab report (BUG line)");
	if (nr_bad_page_frees != bad_pages)
		fail_why(r, "bad page free report");
	if (mm_check_all())
		fail_why(r, "mm_check found broken invariants");
	il_quiesced = quiesced_free_pages();
	il_quiesced_valid = true;
	if (il_quiesced != before)
		fail_why(r, "free page count changed (pages lost)");
	if (!r->ok)
		pr_err("interleave: FAILED scenario %s point %s action %s visit %u: %s\n",
		       sc->name, dry ? "(dry run)" : mm_point_names[p],
		       dry ? "-" : il_action_names[a], fire_at, r->why);
}

/* The visits to act at: first, middle and last possible ones (their
 * numbers among all visits are known for first and last only, so the
 * middle is the middle visit, acted at only if the action can there). */
/*
 * Dense points: the race they stand for (a page head half written while
 * an NMI frees its neighbour) depends on which page it is, so the NMI is
 * sent at up to IL_DENSE_PICKS visits spread over all of them.
 */
static bool dense_point(enum mm_point p, enum il_action a)
{
	return a == IL_NMI && (p == MM_POINT_BUDDY_HEAD_HALF ||
			       p == MM_POINT_PCP_HEAD_HALF) &&
	       il_dry[p].possible[a] == il_dry[p].visits;
}

static unsigned int pick_visits(enum mm_point p, enum il_action a,
				unsigned int out[IL_DENSE_PICKS])
{
	unsigned int n = 0, mid, i, v = il_dry[p].visits;

	if (!il_dry[p].possible[a])
		return 0;
	if (dense_point(p, a) && v > IL_VISIT_PICKS) {
		for (i = 0; i < IL_DENSE_PICKS && i < v; i++) {
			unsigned int visit = 1 + (unsigned int)((unsigned long)i * v /
							min(v, (unsigned int)IL_DENSE_PICKS));

			if (!n || visit != out[n - 1])
				out[n++] = visit;
		}
		return n;
	}
	out[n++] = il_dry[p].first[a];
	if (IL_PICKS < 3 ||
	    ((a == IL_IPI || a == IL_REMOTE) && IL_REMOTE_PICKS < 3))
		return n;
	mid = (il_dry[p].first[a] + il_dry[p].last[a]) / 2;
	if (mid != out[0] && mid != il_dry[p].last[a])
		out[n++] = mid;
	if (il_dry[p].last[a] != out[0])
		out[n++] = il_dry[p].last[a];
	return n;
}

/*
 * The search of one scenario: a dry run, then every (point, action, visit)
 * in a fixed order.  The list is numbered, so a search can start anywhere:
 * on the host each part runs in a child process (fork) over a copy of the
 * allocator, and a child stops at its first failure (the allocator may be
 * damaged) or crash (AddressSanitizer aborts); the parent reports it and
 * starts a fresh child at the next item, so every item runs over a clean
 * allocator and one defect never hides the next.  The kernel cannot do
 * that: it runs the list once and stops the scenario at the first failure.
 */
/* Kernel: a failure may leave the allocator damaged, and there is no
 * fresh copy to go back to; the scenarios after it are skipped. */
static const char *il_damaged_by;

struct il_item {
	unsigned short point, action;
	unsigned int visit;
};

struct il_progress {
	long current;               /* item running now (-1: the dry run) */
	struct il_item cur;         /* and what it is */
	long failed;                /* item that failed (-2: none) */
	char why[96];
	unsigned long runs;
	unsigned long action_runs[NR_IL_ACTIONS];
	bool ran[NR_MM_POINTS][NR_IL_ACTIONS];
	bool reached[NR_MM_POINTS];
	unsigned int fail_point, fail_action, fail_visit;
};

#define IL_MAX_ITEMS (NR_MM_POINTS * NR_IL_ACTIONS * IL_DENSE_PICKS)
static struct il_item il_items[IL_MAX_ITEMS];

static unsigned int list_items(void)
{
	unsigned int p, a, i, n, nr = 0, visits[IL_DENSE_PICKS];

	for (p = 0; p < NR_MM_POINTS; p++)
		for (a = 0; a < NR_IL_ACTIONS; a++) {
			n = pick_visits(p, a, visits);
			for (i = 0; i < n; i++) {
				il_items[nr].point = (unsigned short)p;
				il_items[nr].action = (unsigned short)a;
				il_items[nr].visit = visits[i];
				nr++;
			}
		}
	return nr;
}

static void note_failure(struct il_progress *pr, long idx, const char *why)
{
	pr->failed = idx;
	strlcpy(pr->why, why, sizeof(pr->why));
	if (idx >= 0) {
		pr->fail_point = pr->cur.point;
		pr->fail_action = pr->cur.action;
		pr->fail_visit = pr->cur.visit;
	}
}

/* Items from `start` on; returns at the first failure (noted in pr). */
static void search_from(const struct il_scenario *sc, long start,
			struct il_progress *pr)
{
	struct il_result r;
	unsigned int p, nr;
	long idx;

	slab_report_count_only = true;
	memset(il_dry, 0, sizeof(il_dry));
	il_quiesced_valid = false;
	pr->current = -1;
	il_run(sc, true, 0, 0, 0, &r);
	if (!r.ok) {
		note_failure(pr, -1, r.why);
		goto out;
	}
	for (p = 0; p < NR_MM_POINTS; p++)
		if (il_dry[p].visits)
			pr->reached[p] = true;
	nr = list_items();
	for (idx = start; idx < (long)nr; idx++) {
		const struct il_item *it = &il_items[idx];

		pr->current = idx;
		pr->cur = *it;
		il_run(sc, false, it->point, it->action, it->visit, &r);
		pr->runs++;
		if (r.ran)
			pr->ran[it->point][it->action] = true;
		if (r.ran)
			pr->action_runs[it->action]++;
		if (!r.ok) {
			note_failure(pr, idx, r.why);
			goto out;
		}
	}
	pr->current = (long)nr;
out:
	slab_report_count_only = false;
	__atomic_store_n(&mm_point_hook, NULL, __ATOMIC_RELEASE);
}

static void report_failure(struct kunit *test, const struct il_scenario *sc,
			   const struct il_progress *pr)
{
	il_failures++;
	if (pr->failed < 0) {
		KUNIT_FAIL(test, "scenario %s fails with no interrupt: %s",
			   sc->name, pr->why);
		return;
	}
	KUNIT_FAIL(test, "scenario %s point %s action %s visit %u: %s",
		   sc->name, mm_point_names[pr->fail_point],
		   il_action_names[pr->fail_action], pr->fail_visit, pr->why);
}

#ifdef HOST_TEST
#include <stdio.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* One child: search from start; the progress lives in shared memory. */
static bool search_in_child(const struct il_scenario *sc, long start,
			    struct il_progress *pr)
{
	pid_t pid;
	int status;

	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return false;
	if (pid == 0) {
		search_from(sc, start, pr);
		fflush(stdout);
		_exit(0);
	}
	if (waitpid(pid, &status, 0) != pid)
		return false;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return true;
	/* It died: AddressSanitizer, a panic, an abort.  Blame its item. */
	note_failure(pr, pr->current,
		     "crashed (AddressSanitizer report or panic above)");
	return true;
}

static void search_scenario(struct kunit *test, const struct il_scenario *sc,
			    struct il_progress *pr)
{
	long start = 0;

	for (;;) {
		pr->failed = -2;
		if (!search_in_child(sc, start, pr)) {
			KUNIT_FAIL(test, "%s: cannot fork the search", sc->name);
			return;
		}
		if (pr->failed == -2)
			return;
		report_failure(test, sc, pr);
		if (pr->failed < 0)
			return;
		start = pr->failed + 1;
	}
}

static struct il_progress *alloc_progress(void)
{
	void *m = mmap(NULL, sizeof(struct il_progress), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	return m == MAP_FAILED ? NULL : m;
}

static void free_progress(struct il_progress *pr)
{
	munmap(pr, sizeof(*pr));
}
#else
static void search_scenario(struct kunit *test, const struct il_scenario *sc,
			    struct il_progress *pr)
{
	pr->failed = -2;
	search_from(sc, 0, pr);
	if (pr->failed == -2)
		return;
	report_failure(test, sc, pr);
	il_damaged_by = sc->name;
}

static struct il_progress il_progress_buf;

static struct il_progress *alloc_progress(void)
{
	return &il_progress_buf;
}

static void free_progress(struct il_progress *pr)
{
	(void)pr;
}
#endif

static void run_scenario(struct kunit *test, const struct il_scenario *sc)
{
	struct il_progress *pr = alloc_progress();
	unsigned long triples = 0;
	unsigned int p, a;

	if (il_damaged_by)
		kunit_skip(test, "the allocator may be damaged since scenario %s failed",
			   il_damaged_by);
	KUNIT_ASSERT_NOT_NULL(test, pr);
	memset(pr, 0, sizeof(*pr));
	search_scenario(test, sc, pr);
	for (p = 0; p < NR_MM_POINTS; p++) {
		if (pr->reached[p])
			il_point_reached[p] = true;
		for (a = 0; a < NR_IL_ACTIONS; a++) {
			triples += pr->ran[p][a];
			il_action_triples[a] += pr->ran[p][a];
		}
	}
	for (a = 0; a < NR_IL_ACTIONS; a++)
		il_action_runs[a] += pr->action_runs[a];
	il_triples += triples;
	il_runs += pr->runs;
	kunit_info(test, "%s: %lu triples in %lu runs\n", sc->name, triples,
		   pr->runs);
	KUNIT_EXPECT_GT(test, triples, 0);
	free_progress(pr);
}

/* ===================================================================== */
/* Cases                                                                  */
/* ===================================================================== */

/* The span walk of mm_check costs a moment per GiB: per run only on
 * small machines (the host arena, 128M), once at the end on big ones. */
#define IL_FULL_CHECK_MAX_PAGES (256ul << (20 - PAGE_SHIFT))

static int il_suite_init(struct kunit_suite *suite)
{
	int ret;

	(void)suite;
	/* Each suite's figures its own (three suites share them). */
	il_triples = il_runs = il_failures = 0;
	memset(il_action_triples, 0, sizeof(il_action_triples));
	memset(il_action_runs, 0, sizeof(il_action_runs));
	memset(il_point_reached, 0, sizeof(il_point_reached));
	ret = il_env_init();
	mm_check_full_span = nr_free_pages() <= IL_FULL_CHECK_MAX_PAGES;
	return ret;
}

static void il_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	mm_check_full_span = true;
	il_env_exit();
}

static void il_case_exit(struct kunit *test)
{
	(void)test;
	__atomic_store_n(&mm_point_hook, NULL, __ATOMIC_RELEASE);
	slab_report_count_only = false;
}

#define IL_SCENARIO_CASE(idx, fn)                                             \
	static void fn(struct kunit *test)                                    \
	{                                                                     \
		run_scenario(test, &il_scenarios[idx]);                       \
	}

IL_SCENARIO_CASE(0, il_sheaf_churn)
IL_SCENARIO_CASE(1, il_bootstrap)
IL_SCENARIO_CASE(2, il_prefill_return)
IL_SCENARIO_CASE(3, il_bulk)
IL_SCENARIO_CASE(4, il_shrink)
IL_SCENARIO_CASE(5, il_destroy)
IL_SCENARIO_CASE(6, il_nolock_kmalloc)
IL_SCENARIO_CASE(7, il_nolock_cache)
IL_SCENARIO_CASE(8, il_debug_cache)
IL_SCENARIO_CASE(9, il_debug_kmalloc_z)
IL_SCENARIO_CASE(10, il_no_sheaves)
IL_SCENARIO_CASE(11, il_deferred)
IL_SCENARIO_CASE(12, il_pages)
IL_SCENARIO_CASE(13, il_kmalloc)
IL_SCENARIO_CASE(14, il_kfree_rcu)
IL_SCENARIO_CASE(15, il_nodes)
IL_SCENARIO_CASE(16, il_cpu_slab_churn)
IL_SCENARIO_CASE(17, il_cpu_slab_nolock)
IL_SCENARIO_CASE(18, il_cpu_slab_bulk)
IL_SCENARIO_CASE(19, il_cpu_slab_destroy)
IL_SCENARIO_CASE(20, il_cpu_slab_nodes)

/*
 * The points this search aims at.  Three are reached only where no
 * scenario can be: sheaf_flush_busy inside a flush IPI that landed in a
 * fast path (see sheaf_lock_held_here(); sheaf_test and singlestep search
 * it), kmalloc_init once at boot (sheaf_test sends an NMI there), and
 * kfree_rcu_parked, a kfree_rcu_nolock() in an NMI over a held sheaf lock,
 * whose object then waits for irq_work and a grace period, past the
 * run's checks (slab_rcu and slab_rcu_host provoke it).  The two points
 * inside the cpu slab fast paths exist only in the host build.
 */
static bool point_searched(enum mm_point p)
{
#ifndef MM_POINTS_FAST
	/* The cpu slab fast paths' points exist in the host build only. */
	if (p == MM_POINT_CPU_SLAB_FAST || p == MM_POINT_CPU_SLAB_FAST_HEAD)
		return false;
#endif
	return p != MM_POINT_SHEAF_FLUSH_BUSY && p != MM_POINT_KMALLOC_INIT &&
	       p != MM_POINT_KFREE_RCU_PARKED;
}

/* The figure, and the points no scenario reached. */
static void il_figures(struct kunit *test)
{
	unsigned int p, a, unreached = 0, points = 0;
	bool full;

	for (p = 0; p < NR_MM_POINTS; p++) {
		if (!point_searched(p))
			continue;
		points++;
		if (il_point_reached[p])
			continue;
		unreached++;
		kunit_info(test, "point %s: reached by no scenario\n",
			   mm_point_names[p]);
	}
	pr_notice("interleave: %lu (scenario, point, action) triples searched in %lu runs over %u scenarios; %u of %u points reached; %lu failed\n",
		il_triples, il_runs, (unsigned int)ARRAY_SIZE(il_scenarios),
		points - unreached, points,
		il_failures);
	for (a = 0; a < NR_IL_ACTIONS; a++)
		pr_notice("interleave:   action %-10s %4lu triples, %4lu runs that acted\n",
			il_action_names[a], il_action_triples[a],
			il_action_runs[a]);
	/* The per-run checks skip the span walk on big machines: once here. */
	full = mm_check_full_span;
	mm_check_full_span = true;
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	mm_check_full_span = full;
	KUNIT_EXPECT_GT(test, il_triples, 100);
}

#define IL_CASES							\
	KUNIT_CASE(il_sheaf_churn),					\
	KUNIT_CASE(il_bootstrap),					\
	KUNIT_CASE(il_prefill_return),					\
	KUNIT_CASE(il_bulk),						\
	KUNIT_CASE(il_shrink),						\
	KUNIT_CASE(il_destroy),						\
	KUNIT_CASE(il_nolock_kmalloc),					\
	KUNIT_CASE(il_nolock_cache),					\
	KUNIT_CASE(il_debug_cache),					\
	KUNIT_CASE(il_debug_kmalloc_z),					\
	KUNIT_CASE(il_no_sheaves),					\
	KUNIT_CASE(il_deferred),					\
	KUNIT_CASE(il_pages),						\
	KUNIT_CASE(il_kmalloc),						\
	KUNIT_CASE(il_kfree_rcu),					\
	KUNIT_CASE(il_nodes),						\
	KUNIT_CASE(il_cpu_slab_churn),					\
	KUNIT_CASE(il_cpu_slab_nolock),					\
	KUNIT_CASE(il_cpu_slab_bulk),					\
	KUNIT_CASE(il_cpu_slab_destroy),				\
	KUNIT_CASE(il_cpu_slab_nodes),					\
	KUNIT_CASE(il_figures)

static struct kunit_case il_cases[] = {
	IL_CASES,
	{}
};

static struct kunit_suite il_suite = {
	.name = "interleave",
	.suite_init = il_suite_init,
	.suite_exit = il_suite_exit,
	.exit = il_case_exit,
	.test_cases = il_cases,
};
kunit_test_suite(il_suite);

/*
 * The review of mm/slab_trace.c: the same search with the trace (see
 * il_trace_mode above).  Trace lines are not printed (console_loglevel
 * lowered for the suite): every step of every run would print one.
 */
static int il_saved_loglevel;

static int il_trace_suite_init(enum il_trace_mode mode)
{
	il_saved_loglevel = console_loglevel;
	console_loglevel = LOGLEVEL_NOTICE;
	il_trace_suite = mode;
	return il_suite_init(NULL);
}

static int il_traced_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return il_trace_suite_init(IL_TRACE_FROM_SETUP);
}

static int il_trace_on_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return il_trace_suite_init(IL_TRACE_FLIP_ON);
}

static void il_trace_suite_exit(struct kunit_suite *suite)
{
	il_suite_exit(suite);
	il_trace_suite = IL_TRACE_NONE;
	console_loglevel = il_saved_loglevel;
}

static struct kunit_case il_traced_cases[] = {
	IL_CASES,
	{}
};

static struct kunit_suite il_traced_suite = {
	.name = "interleave_traced",
	.suite_init = il_traced_suite_init,
	.suite_exit = il_trace_suite_exit,
	.exit = il_case_exit,
	.test_cases = il_traced_cases,
};
kunit_test_suite(il_traced_suite);

static struct kunit_case il_trace_on_cases[] = {
	IL_CASES,
	{}
};

static struct kunit_suite il_trace_on_suite = {
	.name = "interleave_trace_on",
	.suite_init = il_trace_on_suite_init,
	.suite_exit = il_trace_suite_exit,
	.exit = il_case_exit,
	.test_cases = il_trace_on_cases,
};
kunit_test_suite(il_trace_on_suite);
