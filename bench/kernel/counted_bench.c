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
 * Groups:
 *   counted_pair  every CPU does COUNTED_OPS kmem_cache_alloc() +
 *                 kmem_cache_free() pairs of 64-byte objects at once, on
 *                 the cache with sheaves (window 1), on the same cache
 *                 without (window 2) and on one with SLUB's per-CPU slabs
 *                 (window 3, SLAB_MODE_CPU_SLAB).  CPU 0 prints a line per
 *                 window,
 *                   COUNTED window=1 variant=sheaves cpus=4 ops=500 ...
 *                 which bench/run_bench.py joins with the plugin's counts.
 *   counted_producer_consumer
 *                 (2 CPUs or more) CPU 2k allocates COUNTED_PC_OBJECTS
 *                 objects and hands each through a ring of pointers to
 *                 CPU 2k+1, which frees it: every free is remote, and on
 *                 the cpu-slab cache it lands on the producer's frozen
 *                 slab while the producer allocates from it (FREE_FROZEN)
 *                 or on one it has let go of (list_lock).  Variants: the
 *                 three caches ("pc.sheaves", "pc.no_sheaves", "pc.cpu_slab"),
 *                 and "pc.ring", the same hand-over with no
 *                 allocator (a constant pointer passed, nothing freed): the
 *                 ring's own instructions, transfers and waits.  ops = the
 *                 objects per CPU (each producer allocates and each
 *                 consumer frees that many), total = the objects of all
 *                 pairs; a figure per op is per object (one alloc on one
 *                 CPU, one free on another).
 *
 * Beside the plugin's counts, each COUNTED line carries what the cache's
 * own statistics (mm/slab_internal.h) counted during the counted loops,
 * summed over the CPUs: cpu_fail (CMPXCHG_DOUBLE_CPU_FAIL, a fast-path
 * cmpxchg16b retried), slab_fail (CMPXCHG_DOUBLE_FAIL, a slab pair
 * retried), free_frozen, free_slow (FREE_SLOWPATH), refill (ALLOC_REFILL),
 * alloc_slow (ALLOC_SLOWPATH), shared_stats (increments of the cache's
 * shared counters s->stat[]: each is a locked add to a line every CPU
 * writes, so part of the line transfers are the statistics' own), and
 * waits: the PAUSEs of the ring's waits (producer/consumer only), which
 * the plugin counts as spins; run_bench.py takes them out of the lock
 * spins.
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
#include "../../mm/slab_internal.h"
#include "slab_bench.h"

#define COUNTED_OPS           500   /* pairs per CPU in a window */
#define COUNTED_QUANTUM_TICKS 64    /* x16 bus clocks: 1024 ns in QEMU */
#define COUNTED_BARRIER_US    500000
#define COUNTED_PC_OBJECTS    500   /* objects per producer in a window */
#define COUNTED_RING_SIZE     64    /* pointers in flight per pair */
/* QEMU's round-robin kick (TCG_KICK_PERIOD): every 100 ms of virtual
 * time from QEMU's start, which under -icount shift=0 is 100 000 000 TSC
 * ticks (the TSC counts virtual nanoseconds there). */
#define QEMU_KICK_PERIOD_TSC  100000000ull
#define COUNTED_ALIGN_MARGIN  1000000ull   /* 1 ms past the kick */

#define keep(p) __asm__ __volatile__("" : : "r"(p) : "memory")

/* One producer/consumer pair's hand-over: head written by the producer
 * only, tail by the consumer only. */
struct counted_ring {
	void *slot[COUNTED_RING_SIZE];
	unsigned long head;
	unsigned long tail;
} __aligned(SLAB_CACHE_LINE);

/* A CPU's count of ring waits, in a line of its own (no transfers). */
struct counted_waits {
	unsigned long n;
} __aligned(SLAB_CACHE_LINE);

enum counted_kind { COUNTED_PAIRS, COUNTED_PC, COUNTED_RING_ONLY };

struct counted_job {
	struct kmem_cache *s;
	enum counted_kind kind;
	bool counted;            /* open a plugin window around the loop */
	unsigned int arrived;    /* start barrier */
	bool barrier_failed;
	bool ran[NR_CPUS];
	struct counted_waits waits[NR_CPUS];
	struct counted_ring ring[NR_CPUS / 2];
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

/* A pointer the ring-only variant hands over: never dereferenced. */
static char counted_token;

/* The producer: allocate and hand over; a full ring is waited on with
 * PAUSE (which ends the vCPU's turn in QEMU), each wait counted. */
static void counted_produce(struct counted_job *j, struct counted_ring *r,
			    unsigned long *waits)
{
	unsigned int i;

	for (i = 0; i < COUNTED_PC_OBJECTS; i++) {
		void *p = j->kind == COUNTED_PC ?
			  kmem_cache_alloc(j->s, GFP_KERNEL) : &counted_token;

		while (r->head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) ==
		       COUNTED_RING_SIZE) {
			(*waits)++;
			cpu_relax();
		}
		r->slot[r->head % COUNTED_RING_SIZE] = p;
		__atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
	}
}

static void counted_consume(struct counted_job *j, struct counted_ring *r,
			    unsigned long *waits)
{
	unsigned int i;

	for (i = 0; i < COUNTED_PC_OBJECTS; i++) {
		void *p;

		while (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) == r->tail) {
			(*waits)++;
			cpu_relax();
		}
		p = r->slot[r->tail % COUNTED_RING_SIZE];
		if (j->kind == COUNTED_PC)
			kmem_cache_free(j->s, p);
		else
			keep(p);
		__atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_RELEASE);
	}
}

static void counted_loop(struct counted_job *j, unsigned int cpu)
{
	struct counted_ring *r = &j->ring[cpu / 2];
	unsigned long waits = 0;
	unsigned int i;

	if (j->kind == COUNTED_PAIRS) {
		for (i = 0; i < COUNTED_OPS; i++) {
			void *p = kmem_cache_alloc(j->s, GFP_KERNEL);

			keep(p);
			kmem_cache_free(j->s, p);
		}
		return;
	}
	if (cpu % 2 == 0)
		counted_produce(j, r, &waits);
	else
		counted_consume(j, r, &waits);
	j->waits[cpu].n = waits;
}

/* Runs on every CPU, in IPI context. */
static void counted_cpu(void *info)
{
	struct counted_job *j = info;

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
	counted_loop(j, smp_processor_id());
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

static bool counted_sample(struct kmem_cache *s, enum counted_kind kind,
			   bool counted)
{
	unsigned int cpu;

	if (counted)
		counted_align();

	counted_job.s = s;
	counted_job.kind = kind;
	counted_job.counted = counted;
	counted_job.arrived = 0;
	counted_job.barrier_failed = false;
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		counted_job.ran[cpu] = false;
		counted_job.waits[cpu].n = 0;
	}
	for (cpu = 0; cpu < nr_cpu_ids / 2; cpu++)
		counted_job.ring[cpu].head = counted_job.ring[cpu].tail = 0;
	on_each_cpu(counted_cpu, &counted_job, true);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		if (!counted_job.ran[cpu])
			return false;
	return !counted_job.barrier_failed;
}

/* The statistics a COUNTED line carries (see the head comment). */
struct counted_stats {
	unsigned long cpu_fail, slab_fail, free_frozen, free_slow, refill,
		      alloc_slow, shared;
};

static void counted_read_stats(struct kmem_cache *s, struct counted_stats *c)
{
	unsigned int i;

	c->cpu_fail = slab_stat_sum(s, CMPXCHG_DOUBLE_CPU_FAIL);
	c->slab_fail = slab_stat_sum(s, CMPXCHG_DOUBLE_FAIL);
	c->free_frozen = slab_stat_sum(s, FREE_FROZEN);
	c->free_slow = slab_stat_sum(s, FREE_SLOWPATH);
	c->refill = slab_stat_sum(s, ALLOC_REFILL);
	c->alloc_slow = slab_stat_sum(s, ALLOC_SLOWPATH);
	c->shared = 0;
	for (i = 0; i < NR_SLAB_STAT_ITEMS; i++)
		c->shared += READ_ONCE(s->stat[i]);
}

static void counted_row(struct kmem_cache *s, enum counted_kind kind,
			const char *variant)
{
	struct counted_stats a = { 0 }, b = { 0 };
	unsigned long waits = 0, ops, total;
	unsigned int cpu;

	/* Warm-up: every CPU makes its sheaves, the slabs exist. */
	if (!counted_sample(s, kind, false)) {
		pr_err("bench: counted %s on %u CPUs: a CPU did not run\n",
		       variant, nr_cpu_ids);
		return;
	}
	if (s)
		counted_read_stats(s, &a);
	if (!counted_sample(s, kind, true)) {
		pr_err("bench: counted %s on %u CPUs: a CPU did not run\n",
		       variant, nr_cpu_ids);
		return;
	}
	if (s)
		counted_read_stats(s, &b);
	for (cpu = 0; cpu < nr_cpu_ids; cpu++)
		waits += counted_job.waits[cpu].n;
	ops = kind == COUNTED_PAIRS ? COUNTED_OPS : COUNTED_PC_OBJECTS;
	total = kind == COUNTED_PAIRS ? ops * nr_cpu_ids
				      : ops * (nr_cpu_ids / 2);
	printk("COUNTED window=%u variant=%s cpus=%u ops=%lu total=%lu "
	       "cpu_fail=%lu slab_fail=%lu free_frozen=%lu free_slow=%lu "
	       "refill=%lu alloc_slow=%lu shared_stats=%lu waits=%lu\n",
	       ++counted_windows, variant, nr_cpu_ids, ops, total,
	       b.cpu_fail - a.cpu_fail, b.slab_fail - a.slab_fail,
	       b.free_frozen - a.free_frozen, b.free_slow - a.free_slow,
	       b.refill - a.refill, b.alloc_slow - a.alloc_slow,
	       b.shared - a.shared, waits);
}

/* The three designs on 64-byte objects, made once per boot. */
static struct kmem_cache *counted_on, *counted_off, *counted_cpu_slab;

static bool counted_caches(void)
{
	if (!counted_on)
		counted_on = bench_cache(64, true);
	if (!counted_off)
		counted_off = bench_cache(64, false);
	if (!counted_cpu_slab)
		counted_cpu_slab = bench_cache_mode(64, SLAB_MODE_CPU_SLAB);
	if (!counted_on || !counted_off || !counted_cpu_slab) {
		pr_err("bench: counted: no caches\n");
		return false;
	}
	return true;
}

static void run_counted_pair(void)
{
	if (!counted_caches())
		return;
	counted_row(counted_on, COUNTED_PAIRS, "sheaves");
	counted_row(counted_off, COUNTED_PAIRS, "no_sheaves");
	counted_row(counted_cpu_slab, COUNTED_PAIRS, "cpu_slab");
}

/* Pairs of CPUs: with an odd count the last CPU would have no partner
 * (and open no window), so the group needs an even count. */
static void run_counted_pc(void)
{
	if (nr_cpu_ids < 2 || nr_cpu_ids % 2 || !counted_caches())
		return;
	counted_row(NULL, COUNTED_RING_ONLY, "pc.ring");
	counted_row(counted_on, COUNTED_PC, "pc.sheaves");
	counted_row(counted_off, COUNTED_PC, "pc.no_sheaves");
	counted_row(counted_cpu_slab, COUNTED_PC, "pc.cpu_slab");
}

static const struct bench_group counted_pair_bench = {
	.name = "counted_pair", .run = run_counted_pair,
};
bench_group(counted_pair_bench);

static const struct bench_group counted_pc_bench = {
	.name = "counted_producer_consumer", .run = run_counted_pc,
};
bench_group(counted_pc_bench);
