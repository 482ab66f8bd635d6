/*
 * rcu_bench.c - what kfree_rcu() costs, and how long a grace period lasts.
 *
 * Group single_rcu, booted by `make bench` under `-icount shift=0` on one
 * CPU and again on two (run_bench.py), rows:
 *
 *   kfree_rcu.sheaves       kfree_rcu(obj, rcu) of a 64-byte object of a
 *                           private cache with sheaves: the object goes into
 *                           this CPU's rcu_free sheaf, a full sheaf goes to
 *                           call_rcu() whole (mm/slab_rcu.c, step 1)
 *   kfree_rcu.no_sheaves    the same on a cache without sheaves: one
 *                           call_rcu() per object (step 2)
 *                           param = object size; instructions per object,
 *                           the kfree_rcu() calls alone (the objects are
 *                           allocated before the clock starts and the
 *                           rcu_barrier() that frees them runs after it)
 *   gp.synchronize_rcu      synchronize_rcu() in timer ticks of this CPU
 *                           (APIC_TIMER_HZ a second), and in TSC ticks
 *                           (instructions under -icount): it often ends
 *                           before the next tick
 *   gp.call_rcu_to_callback from call_rcu() until its callback has run, in
 *                           timer ticks
 *                           param = CPUs online; exact under -icount only in
 *                           the sense that the virtual clock follows the
 *                           instruction count
 *
 * The cost rows are one-CPU figures and are printed by the one-CPU boot
 * only.  A grace period here ends when every CPU has passed a quiescent
 * state (kernel/rcu.c): on an idle CPU at once (its idle flag), on a busy
 * one at its next tick, so the latency is counted in ticks, not in
 * instructions.
 */
#include <bench.h>
#include <kernel.h>
#include <printk.h>
#include <rcupdate.h>
#include <slab.h>
#include <smp.h>
#include "../../arch/x86_64/apic.h"
#include "../../arch/x86_64/cpu.h"
#include "slab_bench.h"

#define RCU_BENCH_OBJ_SIZE  64
#define RCU_BENCH_OBJECTS   1000   /* kfree_rcu() calls per sample */
#define RCU_BENCH_REPS      21
#define RCU_BENCH_GP_REPS   11

struct rcu_bench_obj {
	struct rcu_head rcu;
	u8 payload[RCU_BENCH_OBJ_SIZE - sizeof(struct rcu_head)];
};

static struct rcu_bench_obj *rcu_bench_objs[RCU_BENCH_OBJECTS];

/* TSC ticks (instructions under -icount) of RCU_BENCH_OBJECTS kfree_rcu()
 * calls on objects of s, or 0 if the objects could not be had. */
static u64 kfree_rcu_sample(struct kmem_cache *s)
{
	unsigned int i;
	u64 t0, t;

	for (i = 0; i < RCU_BENCH_OBJECTS; i++) {
		rcu_bench_objs[i] = kmem_cache_alloc(s, GFP_KERNEL);
		if (!rcu_bench_objs[i])
			break;
	}
	if (i < RCU_BENCH_OBJECTS) {
		while (i--)
			kmem_cache_free(s, rcu_bench_objs[i]);
		return 0;
	}
	t0 = rdtsc_ordered();
	for (i = 0; i < RCU_BENCH_OBJECTS; i++)
		kfree_rcu(rcu_bench_objs[i], rcu);
	t = rdtsc_ordered() - t0;
	kvfree_rcu_barrier();   /* every object back before the next sample */
	return t;
}

static void kfree_rcu_row(const char *variant, bool sheaves)
{
	struct kmem_cache *s = bench_cache(RCU_BENCH_OBJ_SIZE, sheaves);
	u64 samples[RCU_BENCH_REPS];
	struct bench_stats st;
	unsigned int i;

	if (!s) {
		pr_warn("bench: single_rcu: no cache for %s\n", variant);
		return;
	}
	kfree_rcu_sample(s);   /* warm-up: sheaves and slabs made */
	for (i = 0; i < RCU_BENCH_REPS; i++) {
		samples[i] = kfree_rcu_sample(s);
		if (!samples[i]) {
			pr_warn("bench: single_rcu: out of memory for %s\n",
				variant);
			kmem_cache_destroy(s);
			return;
		}
	}
	bench_stats_from_samples(samples, RCU_BENCH_REPS, RCU_BENCH_OBJECTS, &st);
	bench_report("single_rcu", variant, RCU_BENCH_OBJ_SIZE,
		     RCU_BENCH_OBJECTS, &st);
	kmem_cache_destroy(s);
}

static unsigned long this_cpu_ticks(void)
{
	return READ_ONCE(*this_cpu_ptr(apic_timer_ticks));
}

static bool rcu_bench_cb_ran;

static void rcu_bench_cb(struct rcu_head *head)
{
	(void)head;
	__atomic_store_n(&rcu_bench_cb_ran, true, __ATOMIC_RELEASE);
}

/* Timer ticks from call_rcu() to its callback; the callback runs on this
 * CPU (its list), so this task waits with IRQs on and lets it. */
static u64 call_rcu_latency(void)
{
	static struct rcu_head head;
	unsigned long t0 = this_cpu_ticks();

	rcu_bench_cb_ran = false;
	call_rcu(&head, rcu_bench_cb);
	while (!__atomic_load_n(&rcu_bench_cb_ran, __ATOMIC_ACQUIRE))
		cpu_relax();
	return this_cpu_ticks() - t0;
}

static u64 synchronize_rcu_latency(void)
{
	unsigned long t0 = this_cpu_ticks();

	synchronize_rcu();
	return this_cpu_ticks() - t0;
}

/* The same in TSC ticks: a grace period shorter than a timer tick. */
static u64 synchronize_rcu_tsc(void)
{
	u64 t0 = rdtsc_ordered();

	synchronize_rcu();
	return rdtsc_ordered() - t0;
}

static void gp_row(const char *variant, u64 (*sample)(void), const char *unit)
{
	u64 samples[RCU_BENCH_GP_REPS];
	struct bench_stats st;
	unsigned int i;

	sample();   /* warm-up: no grace period left over from before */
	for (i = 0; i < RCU_BENCH_GP_REPS; i++)
		samples[i] = sample();
	bench_stats_from_samples(samples, RCU_BENCH_GP_REPS, 1, &st);
	bench_report_unit("single_rcu", variant, nr_cpu_ids, 1, &st, unit);
}

static void run_rcu_bench(void)
{
	if (nr_cpu_ids == 1) {
		kfree_rcu_row("kfree_rcu.sheaves", true);
		kfree_rcu_row("kfree_rcu.no_sheaves", false);
	}
	gp_row("gp.synchronize_rcu", synchronize_rcu_latency, "ticks");
	gp_row("gp.synchronize_rcu", synchronize_rcu_tsc, "tsc/op");
	gp_row("gp.call_rcu_to_callback", call_rcu_latency, "ticks");
}

static const struct bench_group rcu_bench = {
	.name = "single_rcu",
	.run = run_rcu_bench,
};
bench_group(rcu_bench);
