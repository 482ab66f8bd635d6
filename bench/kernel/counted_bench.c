/*
 * counted_bench.c - allocator work on 1..N CPUs at once, counted by a QEMU
 * plugin instead of timed.
 *
 * The wall-clock scaling rows (scaling_bench.c) need a host core per
 * virtual CPU; with more vCPUs than host cores they measure the host's
 * scheduler (a ticket-lock waiter preempted by the host stalls everyone
 * behind it).  This group measures the allocator: `make bench` boots it
 * under `-icount shift=0,sleep=off -smp N` with bench/plugin/counter.so
 * loaded, which counts for every vCPU, between bench_count_begin() and
 * bench_count_end(), the instructions executed, spin_lock() calls, PAUSE
 * iterations and cache-line transfers.  Everything is deterministic, so
 * the figures are exact and repeat from run to run.
 *
 * Group:
 *   counted_pair  every CPU does COUNTED_OPS kmem_cache_alloc() +
 *                 kmem_cache_free() pairs of 64-byte objects at once, on
 *                 the cache with sheaves (window 1) and on the same cache
 *                 without (window 2).  CPU 0 prints a line per window,
 *                   COUNTED window=1 variant=sheaves cpus=4 ops=500
 *                 which bench/run_bench.py joins with the plugin's counts.
 *
 * Interleaving: under -icount QEMU 7.2 runs the vCPUs in turn in one
 * thread, each until the next deadline of any virtual-time timer.  With
 * the usual 100 Hz tick a turn is millions of instructions: one CPU would
 * finish its whole loop before the next starts, and nothing would
 * contend.  So while the loops run, every CPU's APIC timer runs every
 * COUNTED_QUANTUM_TICKS (apic_timer_start_quantum()): each CPU's timer
 * expires about every microsecond of virtual time (about 1000
 * instructions at shift=0), the N timers at N phases, so a turn is at
 * most about 1000 instructions and about 1000 / N on average.  The jobs run in IPI context with interrupts
 * off, so the tick only waits in the IRR; the usual tick is restored
 * when every CPU is done (the third barrier), before they return.
 * A PAUSE also ends a vCPU's turn in QEMU (x86 TCG lets another vCPU run),
 * so a waiter spins once per turn in which it finds the lock taken: the
 * spin count says how often a CPU had to wait, not for how long.
 */
#include <bench.h>
#include <kernel.h>
#include <printk.h>
#include <slab.h>
#include <smp.h>
#include <watchdog.h>
#include "../../arch/x86_64/apic.h"
#include "../../arch/x86_64/cpu.h"
#include "../../kernel/timekeeping.h"
#include "slab_bench.h"

#define COUNTED_OPS           500   /* pairs per CPU in a window */
#define COUNTED_QUANTUM_TICKS 64    /* x16 bus clocks: 1024 ns in QEMU */
#define COUNTED_BARRIER_US    500000
/* QEMU's round-robin kick (TCG_KICK_PERIOD): every 100 ms of virtual
 * time from QEMU's start, which under -icount shift=0 is 100 000 000 TSC
 * ticks (the TSC counts virtual nanoseconds there). */
#define QEMU_KICK_PERIOD_TSC  100000000ull
#define COUNTED_ALIGN_MARGIN  1000000ull   /* 1 ms past the kick */

#define keep(p) __asm__ __volatile__("" : : "r"(p) : "memory")

struct counted_job {
	struct kmem_cache *s;
	bool counted;            /* open a plugin window around the loop */
	unsigned int arrived;    /* start barrier */
	bool barrier_failed;
	bool ran[NR_CPUS];
};

static struct counted_job counted_job;
static unsigned int counted_windows;

/* The plugin's markers: empty, out of line, never merged away. */
__attribute__((noinline)) void bench_count_begin(void)
{
	__asm__ __volatile__("" ::: "memory");
}

__attribute__((noinline)) void bench_count_end(void)
{
	__asm__ __volatile__("" ::: "memory");
}

/* Phase 1, 2, ...: every CPU passes phase k once all have come to it. */
static void counted_barrier(struct counted_job *j, unsigned int phase)
{
	u64 end = rdtsc() + us_to_tsc(COUNTED_BARRIER_US);

	__atomic_fetch_add(&j->arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&j->arrived, __ATOMIC_ACQUIRE) <
	       phase * nr_cpu_ids) {
		if (rdtsc() > end) {
			WRITE_ONCE(j->barrier_failed, true);
			return;
		}
		cpu_relax();
	}
}

/* Runs on every CPU, in IPI context. */
static void counted_cpu(void *info)
{
	struct counted_job *j = info;
	unsigned int i;

	/* Two barriers: QEMU sizes a round of turns when it starts it, so
	 * in the round where the last CPU arms its short timer the turns
	 * are still 100 Hz long (the last CPU would run its whole loop in
	 * one).  After the first barrier every timer is armed; the second
	 * is passed in rounds that are already short. */
	apic_timer_start_quantum(COUNTED_QUANTUM_TICKS);
	counted_barrier(j, 1);
	counted_barrier(j, 2);
	if (j->counted)
		bench_count_begin();
	for (i = 0; i < COUNTED_OPS; i++) {
		void *p = kmem_cache_alloc(j->s, GFP_KERNEL);

		keep(p);
		kmem_cache_free(j->s, p);
	}
	if (j->counted)
		bench_count_end();
	/* Short turns until the last CPU is done, too. */
	counted_barrier(j, 3);
	apic_timer_start_periodic();
	j->ran[smp_processor_id()] = true;
}

/* Runs on every CPU, in IPI context: no tick until counted_cpu(). */
static void counted_stop_tick(void *info)
{
	(void)info;
	apic_timer_stop();
}

/*
 * Start a counted sample at the same phase of every virtual-time timer
 * whatever happened before (how long GRUB took varies with the host):
 * every CPU's tick stopped (each CPU's phase comes from its boot), then
 * just past one of QEMU's round-robin kicks, whose phase is absolute,
 * and with the watchdog's PIT heartbeat restarted there.  A sample is far
 * shorter than both periods, so neither lands inside it, and the turns
 * of the vCPUs fall at the same instructions in every run.
 */
static void counted_align(void)
{
	u64 target;

	on_each_cpu(counted_stop_tick, NULL, true);
	target = (rdtsc() / QEMU_KICK_PERIOD_TSC + 1) * QEMU_KICK_PERIOD_TSC +
		 COUNTED_ALIGN_MARGIN;

	/* No PAUSE here: in QEMU each one ends the turn, and a turn per
	 * few instructions over up to 100 ms would take seconds of host
	 * time. */
	while (rdtsc() < target)
		__asm__ __volatile__("" ::: "memory");
	watchdog_set_heartbeat_hz(0);
}

static bool counted_sample(struct kmem_cache *s, bool counted)
{
	unsigned int cpu;

	if (counted)
		counted_align();

	counted_job.s = s;
	counted_job.counted = counted;
	counted_job.arrived = 0;
	counted_job.barrier_failed = false;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		counted_job.ran[cpu] = false;
	on_each_cpu(counted_cpu, &counted_job, true);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (!counted_job.ran[cpu])
			return false;
	return !counted_job.barrier_failed;
}

static void counted_row(struct kmem_cache *s, const char *variant)
{
	/* Warm-up: every CPU makes its sheaves, the slabs exist. */
	if (!counted_sample(s, false) || !counted_sample(s, true)) {
		pr_err("bench: counted %s on %u CPUs: a CPU did not run\n",
		       variant, nr_cpu_ids);
		return;
	}
	printk("COUNTED window=%u variant=%s cpus=%u ops=%u\n",
	       ++counted_windows, variant, nr_cpu_ids, COUNTED_OPS);
}

static void run_counted_pair(void)
{
	struct kmem_cache *on = bench_cache(64, true);
	struct kmem_cache *off = bench_cache(64, false);

	if (!on || !off) {
		pr_err("bench: counted_pair: no caches\n");
		return;
	}
	counted_row(on, "sheaves");
	counted_row(off, "no_sheaves");
}

static const struct bench_group counted_pair_bench = {
	.name = "counted_pair", .run = run_counted_pair,
};
bench_group(counted_pair_bench);
