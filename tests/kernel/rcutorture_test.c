/*
 * rcutorture_test.c - readers on every CPU, in every context, against a
 * writer that replaces what they read and frees it after a grace period.
 *
 * Shared state: TORTURE_SLOTS pointers to objects of a private cache.
 * Each object carries ALIVE, a generation number (unique per object
 * handed out) and the generation's mirror; freeing one poisons all three
 * first (torture_free()).  A reader section loads a slot with
 * rcu_dereference(), notes the generation and checks the object
 * TORTURE_HOLD_CHECKS times before leaving, a nested section half way.
 * Any check that finds the object poisoned, or another generation there
 * (freed and handed out again), means it was freed while a reader held
 * it: a grace period that was too short.
 *
 * Who reads, who writes (on_each_cpu_task(): every CPU at once):
 *   - the boot CPU writes: TORTURE_WRITES replacements, every
 *     TORTURE_SYNC_EVERY-th freed after synchronize_rcu(), every
 *     TORTURE_KFREE_RCU_EVERY-th with kfree_rcu() (through the CPU's
 *     rcu_free sheaf: not poisoned, but handed out again with a new
 *     generation once its sheaf is back), the others with call_rcu();
 *     between writes it reads too, and every
 *     TORTURE_TICK_HOLD_EVERY-th write it replaces an object inside its own
 *     section and holds the section across two of its ticks: a tick that
 *     ran the old object's callback then would have freed it under the
 *     reader, so a broken grace period is caught even with one CPU; and
 *     every TORTURE_TICK_HOLD_EVERY-th (half way) it does the same with
 *     kfree_rcu(): inside its section it fills the rcu_free sheaf behind
 *     the old object so the sheaf goes to call_rcu(), holds across two
 *     ticks, then allocates up to TORTURE_REUSE_SHEAVES sheaves' worth of
 *     objects: meeting the old one among them (or its generation changed)
 *     is a kfree_rcu() object reused under its reader;
 *   - every other CPU reads in task context until the writer is done
 *     (at least TORTURE_MIN_READS sections), with an explicit quiescent
 *     state between sections;
 *   - every CPU, every TORTURE_IRQ_EVERY-th section, queues an irq_work
 *     that reads in IRQ context, and every TORTURE_NMI_EVERY-th sends
 *     itself an NMI that reads in NMI context and queues a call_rcu() of
 *     its CPU's NMI head (counted when it runs).
 * Bounded by counts: the writer's writes; the readers stop when it is
 * done.  The waits for an NMI and for ticks are for events, with
 * test_wait.h's deadline.
 *
 * rcu_test_end_gp_early (kernel/rcu.c) ends every grace period as soon as
 * it begins: the second case runs the torture so and must count too-short
 * grace periods, which proves the checks can see one.
 */
#include <cpu_work.h>
#include <irq_work.h>
#include <kunit.h>
#include <mm.h>
#include <nmi.h>
#include <rcupdate.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "../../arch/x86_64/apic.h"
#include "../../mm/slab_internal.h"
#include "test_wait.h"

#define TORTURE_SLOTS           4
#define TORTURE_WRITES          1000
#define TORTURE_SYNC_EVERY      8
#define TORTURE_KFREE_RCU_EVERY 3
#define TORTURE_REUSE_SHEAVES   4
#define TORTURE_REUSE_MAX       256   /* objects, at most, in that search */
#define TORTURE_TICK_HOLD_EVERY 250
#define TORTURE_TICKS_HELD      2
#define TORTURE_MIN_READS       200
#define TORTURE_HOLD_CHECKS     24
#define TORTURE_IRQ_EVERY       8
#define TORTURE_NMI_EVERY       32
#define TORTURE_ALIVE           0x0b1ec7a11fe0000ul
#define TORTURE_POISON          0xdeadbeefdeadbeeful
#define TORTURE_MIRROR          0x5a5a5a5a5a5a5a5aul

struct torture_obj {
	unsigned long magic;    /* TORTURE_ALIVE while not freed */
	unsigned long gen;      /* unique per object handed out */
	unsigned long mirror;   /* gen ^ TORTURE_MIRROR */
	struct rcu_head rh;
};

struct torture_counts {
	unsigned long sections[3];   /* by context: task, IRQ, NMI */
	unsigned long too_short;
	unsigned long too_short_kfree_rcu;   /* of those: kfree_rcu() reuse */
	unsigned long freed;
	unsigned long kfree_rcu;             /* handed to kfree_rcu() */
	unsigned long nmi_cbs_queued, nmi_cbs_run;
};

enum { CTX_TASK, CTX_IRQ, CTX_NMI };

static struct kmem_cache *torture_cache;
static struct torture_obj *torture_slots[TORTURE_SLOTS];
static unsigned long torture_gen;
static bool writer_done;
static struct torture_counts counts;   /* atomic adds: all contexts */
static struct irq_work irq_reader[NR_CPUS];
static unsigned int nmi_request[NR_CPUS];
static struct rcu_head nmi_head[NR_CPUS];
static unsigned int nmi_head_busy[NR_CPUS];
static unsigned long nmi_timeouts;

static void count(unsigned long *c, unsigned long n)
{
	__atomic_fetch_add(c, n, __ATOMIC_RELAXED);
}

static bool obj_intact(const struct torture_obj *p, unsigned long gen)
{
	return READ_ONCE(p->magic) == TORTURE_ALIVE &&
	       READ_ONCE(p->gen) == gen &&
	       READ_ONCE(p->mirror) == (gen ^ TORTURE_MIRROR);
}

/* One read-side section over slot `slot`, checked `checks` times. */
static void torture_read(unsigned int slot, unsigned int checks, int ctx)
{
	struct torture_obj *p, *q;
	unsigned long gen;
	bool bad = false;
	unsigned int k;

	rcu_read_lock();
	p = rcu_dereference(torture_slots[slot % TORTURE_SLOTS]);
	if (p) {
		gen = READ_ONCE(p->gen);
		for (k = 0; k < checks; k++) {
			if (!obj_intact(p, gen))
				bad = true;
			if (k == checks / 2) {   /* a nested section */
				rcu_read_lock();
				q = rcu_dereference(torture_slots[(slot + 1) %
								  TORTURE_SLOTS]);
				if (q && READ_ONCE(q->magic) != TORTURE_ALIVE)
					bad = true;
				rcu_read_unlock();
			}
			cpu_relax();
		}
	}
	rcu_read_unlock();
	count(&counts.sections[ctx], 1);
	if (bad)
		count(&counts.too_short, 1);
}

static struct torture_obj *torture_new(void)
{
	struct torture_obj *p = kmem_cache_alloc(torture_cache, GFP_KERNEL);

	if (!p)
		return NULL;
	p->gen = __atomic_add_fetch(&torture_gen, 1, __ATOMIC_RELAXED);
	p->mirror = p->gen ^ TORTURE_MIRROR;
	p->magic = TORTURE_ALIVE;
	return p;
}

static void torture_free(struct torture_obj *p)
{
	WRITE_ONCE(p->magic, TORTURE_POISON);
	WRITE_ONCE(p->gen, TORTURE_POISON);
	WRITE_ONCE(p->mirror, TORTURE_POISON);
	kmem_cache_free(torture_cache, p);
	count(&counts.freed, 1);
}

static void torture_free_cb(struct rcu_head *rh)
{
	torture_free(container_of(rh, struct torture_obj, rh));
}

static void nmi_cb(struct rcu_head *rh)
{
	unsigned int cpu = (unsigned int)(rh - nmi_head);

	count(&counts.nmi_cbs_run, 1);
	__atomic_store_n(&nmi_head_busy[cpu], 0, __ATOMIC_RELEASE);
}

static void irq_reader_func(struct irq_work *w)
{
	torture_read((unsigned int)(w - irq_reader), TORTURE_HOLD_CHECKS,
		     CTX_IRQ);
}

static int torture_nmi(unsigned int type, struct pt_regs *regs)
{
	unsigned int me = smp_processor_id();

	(void)type;
	(void)regs;
	if (!__atomic_load_n(&nmi_request[me], __ATOMIC_ACQUIRE))
		return NMI_DONE;
	torture_read(me, TORTURE_HOLD_CHECKS, CTX_NMI);
	if (!__atomic_exchange_n(&nmi_head_busy[me], 1, __ATOMIC_ACQUIRE)) {
		count(&counts.nmi_cbs_queued, 1);
		call_rcu(&nmi_head[me], nmi_cb);   /* from an NMI */
	}
	__atomic_store_n(&nmi_request[me], 0, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

/* Every so many sections: an IRQ reader, an NMI reader. */
static void torture_other_contexts(unsigned int n)
{
	unsigned int me = smp_processor_id();
	u64 end;

	if (n % TORTURE_IRQ_EVERY == 0)
		irq_work_queue(&irq_reader[me]);
	if (n % TORTURE_NMI_EVERY != 0)
		return;
	__atomic_store_n(&nmi_request[me], 1, __ATOMIC_RELEASE);
	nmi_send_self();
	end = test_deadline();
	while (__atomic_load_n(&nmi_request[me], __ATOMIC_ACQUIRE))
		if (test_deadline_passed(end)) {
			count(&nmi_timeouts, 1);
			__atomic_store_n(&nmi_request[me], 0, __ATOMIC_RELEASE);
			return;
		}
}

/*
 * Replace slot 0 inside our own section, queue the old object's freeing,
 * and keep reading it across TORTURE_TICKS_HELD ticks of this CPU: each of
 * them could run that callback, and none may while we read.
 */
static void torture_hold_across_ticks(void)
{
	unsigned long *ticks = &per_cpu(apic_timer_ticks, smp_processor_id());
	struct torture_obj *old, *new = torture_new();
	unsigned long gen, start;
	bool bad = false;
	u64 end = test_deadline();

	if (!new)
		return;
	rcu_read_lock();
	old = rcu_dereference(torture_slots[0]);
	gen = READ_ONCE(old->gen);
	rcu_assign_pointer(torture_slots[0], new);
	call_rcu(&old->rh, torture_free_cb);
	start = READ_ONCE(*ticks);
	while (READ_ONCE(*ticks) - start < TORTURE_TICKS_HELD &&
	       !test_deadline_passed(end))
		if (!obj_intact(old, gen))
			bad = true;
	if (!obj_intact(old, gen))
		bad = true;
	rcu_read_unlock();
	count(&counts.sections[CTX_TASK], 1);
	if (bad)
		count(&counts.too_short, 1);
}

/* The writer's kfree_rcu(): counted, not poisoned (the sheaf keeps the
 * object as it is; a reuse shows as a new generation). */
static void torture_kfree_rcu(struct torture_obj *p)
{
	count(&counts.kfree_rcu, 1);
	kfree_rcu(p, rh);
}

static void torture_write(unsigned int w)
{
	unsigned int slot = w % TORTURE_SLOTS;
	struct torture_obj *old, *new = torture_new();

	if (!new)
		return;
	old = torture_slots[slot];   /* only the writer stores slots */
	rcu_assign_pointer(torture_slots[slot], new);
	if (w % TORTURE_SYNC_EVERY == 0) {
		synchronize_rcu();
		torture_free(old);
	} else if (w % TORTURE_KFREE_RCU_EVERY == 0) {
		torture_kfree_rcu(old);
	} else {
		call_rcu(&old->rh, torture_free_cb);
	}
}

/* Wait for n ticks of this CPU (an event; test_wait.h's deadline). */
static void torture_wait_ticks(unsigned long n, u64 end)
{
	unsigned long *ticks = &per_cpu(apic_timer_ticks, smp_processor_id());
	unsigned long start = READ_ONCE(*ticks);

	while (READ_ONCE(*ticks) - start < n && !test_deadline_passed(end))
		cpu_relax();
}

/*
 * kfree_rcu() under our own reader: replace slot 1, kfree_rcu() the old
 * object, fill this CPU's rcu_free sheaf behind it (so that it is handed
 * to call_rcu() now, whatever it held before), hold across
 * TORTURE_TICKS_HELD ticks (each could run the sheaf's callback, which puts
 * it in the barn), then look for the old object among fresh allocations.
 */
static void torture_hold_kfree_rcu(void)
{
	unsigned int cap = torture_cache->sheaf_capacity ?: 1, i, n;
	struct torture_obj *old, *p, *new = torture_new();
	static struct torture_obj *got[TORTURE_REUSE_MAX];
	unsigned long gen;
	bool bad = false;
	u64 end = test_deadline();

	if (!new)
		return;
	rcu_read_lock();
	old = rcu_dereference(torture_slots[1]);
	gen = READ_ONCE(old->gen);
	rcu_assign_pointer(torture_slots[1], new);
	torture_kfree_rcu(old);
	for (i = 0; i < cap; i++) {
		p = torture_new();
		if (p)
			torture_kfree_rcu(p);
	}
	torture_wait_ticks(TORTURE_TICKS_HELD, end);
	n = min(cap * TORTURE_REUSE_SHEAVES, (unsigned int)TORTURE_REUSE_MAX);
	for (i = 0; i < n; i++) {
		got[i] = torture_new();
		if (got[i] == old)
			bad = true;
	}
	if (!obj_intact(old, gen))
		bad = true;
	rcu_read_unlock();
	for (i = 0; i < n; i++)
		if (got[i])
			torture_free(got[i]);
	count(&counts.sections[CTX_TASK], 1);
	if (bad) {
		count(&counts.too_short, 1);
		count(&counts.too_short_kfree_rcu, 1);
	}
}

static void torture_cpu(void *info)
{
	unsigned int me = smp_processor_id(), n = 0, w;

	(void)info;
	if (me == 0) {
		for (w = 1; w <= TORTURE_WRITES; w++) {
			torture_write(w);
			torture_read(w, TORTURE_HOLD_CHECKS, CTX_TASK);
			torture_other_contexts(w);
			if (w % TORTURE_TICK_HOLD_EVERY == 0)
				torture_hold_across_ticks();
			if (w % TORTURE_TICK_HOLD_EVERY ==
			    TORTURE_TICK_HOLD_EVERY / 2)
				torture_hold_kfree_rcu();
			rcu_quiescent_state();
		}
		__atomic_store_n(&writer_done, true, __ATOMIC_RELEASE);
		return;
	}
	while (!__atomic_load_n(&writer_done, __ATOMIC_ACQUIRE) ||
	       n < TORTURE_MIN_READS) {
		torture_read(me + n, TORTURE_HOLD_CHECKS, CTX_TASK);
		torture_other_contexts(++n);
		rcu_quiescent_state();
	}
}

/* Run the torture once; returns false if it could not set up. */
static bool torture_run(struct kunit *test, struct rcu_stats *delta)
{
	struct rcu_stats before, after;
	unsigned int i, cpus;

	memset(&counts, 0, sizeof(counts));
	torture_gen = 0;
	nmi_timeouts = 0;
	writer_done = false;
	for (i = 0; i < TORTURE_SLOTS; i++) {
		torture_slots[i] = torture_new();
		if (!torture_slots[i])
			return false;
	}
	rcu_get_stats(&before);
	cpus = on_each_cpu_task(torture_cpu, NULL);
	for (i = 0; i < TORTURE_SLOTS; i++) {
		struct torture_obj *p = torture_slots[i];

		RCU_INIT_POINTER(torture_slots[i], NULL);
		call_rcu(&p->rh, torture_free_cb);
	}
	kvfree_rcu_barrier();   /* every callback of the run has run, and
				 * every kfree_rcu() object is back */
	rcu_get_stats(&after);
	delta->gp_completed = after.gp_completed - before.gp_completed;
	delta->gp_ended_early = after.gp_ended_early - before.gp_ended_early;
	delta->cbs_invoked = after.cbs_invoked - before.cbs_invoked;
	delta->cbs_queued = after.cbs_queued - before.cbs_queued;
	delta->qs_idle_remote = after.qs_idle_remote - before.qs_idle_remote;
	kunit_info(test,
		   "rcutorture: %u CPUs, %u writes (%lu kfree_rcu): %lu grace periods (%lu ended early), %lu callbacks run, %lu reader sections checked (task %lu, IRQ %lu, NMI %lu), %lu too-short grace periods (%lu seen as kfree_rcu reuse)",
		   cpus, TORTURE_WRITES, counts.kfree_rcu, delta->gp_completed,
		   delta->gp_ended_early, delta->cbs_invoked,
		   counts.sections[CTX_TASK] + counts.sections[CTX_IRQ] +
		   counts.sections[CTX_NMI],
		   counts.sections[CTX_TASK], counts.sections[CTX_IRQ],
		   counts.sections[CTX_NMI], counts.too_short,
		   counts.too_short_kfree_rcu);
	KUNIT_EXPECT_EQ(test, nmi_timeouts, 0);
	/* Every object handed out was freed, each once. */
	KUNIT_EXPECT_EQ(test, counts.freed + counts.kfree_rcu, torture_gen);
	KUNIT_EXPECT_EQ(test, READ_ONCE(torture_cache->rcu_pending), 0);
	KUNIT_EXPECT_EQ(test, counts.nmi_cbs_run, counts.nmi_cbs_queued);
	KUNIT_EXPECT_EQ(test, delta->cbs_invoked, delta->cbs_queued);
	KUNIT_EXPECT_EQ(test, rcu_check_state(), 0);
	return true;
}

static void torture_finds_no_short_grace_period(struct kunit *test)
{
	struct rcu_stats d;

	KUNIT_ASSERT_TRUE(test, torture_run(test, &d));
	KUNIT_EXPECT_EQ(test, counts.too_short, 0);
	KUNIT_EXPECT_EQ(test, d.gp_ended_early, 0);
	KUNIT_EXPECT_GT(test, counts.kfree_rcu, 0);
	KUNIT_EXPECT_GT(test, d.gp_completed, 0);
	KUNIT_EXPECT_GT(test, d.cbs_invoked, 0);
	KUNIT_EXPECT_GT(test, counts.sections[CTX_TASK], 0);
	KUNIT_EXPECT_GT(test, counts.sections[CTX_IRQ], 0);
	KUNIT_EXPECT_GT(test, counts.sections[CTX_NMI], 0);
	KUNIT_EXPECT_GT(test, counts.nmi_cbs_run, 0);
}

static void torture_catches_grace_periods_ended_early(struct kunit *test)
{
	struct rcu_stats d;
	bool ok;

	WRITE_ONCE(rcu_test_end_gp_early, true);
	ok = torture_run(test, &d);
	WRITE_ONCE(rcu_test_end_gp_early, false);
	KUNIT_ASSERT_TRUE(test, ok);
	KUNIT_EXPECT_GT(test, d.gp_ended_early, 0);
	KUNIT_EXPECT_GT(test, counts.too_short, 0);
	KUNIT_EXPECT_GT(test, counts.too_short_kfree_rcu, 0);
}

static int torture_suite_init(struct kunit_suite *suite)
{
	unsigned int cpu;

	(void)suite;
	torture_cache = kmem_cache_create("rcutorture",
					  sizeof(struct torture_obj), 0, 0,
					  NULL);
	if (!torture_cache)
		return -1;
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		init_irq_work(&irq_reader[cpu], irq_reader_func);
	return register_nmi_handler(NMI_LOCAL, torture_nmi, "rcutorture");
}

static void torture_suite_exit(struct kunit_suite *suite)
{
	unsigned int cpu;

	(void)suite;
	unregister_nmi_handler(NMI_LOCAL, "rcutorture");
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		irq_work_sync(&irq_reader[cpu]);
	rcu_barrier();
	kmem_cache_destroy(torture_cache);
}

static struct kunit_case torture_cases[] = {
	KUNIT_CASE(torture_finds_no_short_grace_period),
	KUNIT_CASE(torture_catches_grace_periods_ended_early),
	{}
};

static struct kunit_suite torture_suite = {
	.name = "rcutorture",
	.suite_init = torture_suite_init,
	.suite_exit = torture_suite_exit,
	.test_cases = torture_cases,
};
kunit_test_suite(torture_suite);
