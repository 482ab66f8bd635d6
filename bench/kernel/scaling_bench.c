/*
 * scaling_bench.c - what sheaves buy when several CPUs allocate at once.
 *
 * Run by `make bench` under multi-threaded TCG: each virtual CPU is a host
 * thread and the TSC follows the host's clock, so figures are (noisy)
 * cycles; every row reports the spread over its repetitions.
 *
 * Groups:
 *   scaling_pair   kmem_cache_alloc()+kmem_cache_free() pairs of 64-byte
 *                  objects on 1, 2, ... N CPUs at once, on the cache with
 *                  sheaves and on the same cache without; per CPU (TSC
 *                  ticks per pair, "<v>.per_cpu") and aggregate (million
 *                  pairs per second over the whole window, "<v>.aggregate")
 *   scaling_producer_consumer
 *                  CPU 2k allocates, CPU 2k+1 frees what it allocated
 *                  (through a ring of pointers); param = CPUs taking part;
 *                  ticks per object (one alloc on one CPU, one free on
 *                  another), averaged over the pairs of CPUs
 *   scaling_memory bytes parked in sheaves and the barn per CPU after
 *                  those workloads, and after kmem_cache_shrink()
 *
 * How CPUs run at once: on_each_cpu() sends the job to every CPU (it runs
 * in IPI context, IRQs off); CPUs that take part meet at a start barrier,
 * then run the measured loop, each between two serialised TSC reads.  A
 * loop lasts a few milliseconds, far below the 4 s hard-lockup watchdog,
 * and the barrier gives up after BARRIER_WAIT_US so a CPU that never came
 * cannot hang the others.  Under TCG a contended spinlock can be very slow
 * (its holder's host thread may be descheduled: 4 virtual CPUs share 2
 * host cores), so every loop also stops at LOOP_LIMIT_US and the figures
 * divide by the operations really done.
 */
#include <bench.h>
#include <kernel.h>
#include <printk.h>
#include <slab.h>
#include <smp.h>
#include "../../arch/x86_64/cpu.h"
#include "../../kernel/timekeeping.h"
#include "slab_bench.h"

#define SCALING_OPS     2000     /* pairs per CPU per sample */
#define PC_OBJECTS      2000     /* objects per producer per sample */
#define SCALING_REPS    11
#define BARRIER_WAIT_US 500000
#define LOOP_LIMIT_US   100000   /* a loop stops early past this */
#define DEADLINE_EVERY  64       /* ops between two looks at the clock */
#define RING_SIZE       64       /* pointers in flight per producer */
#define HUNDREDTHS      100

/* Keep p alive: the compiler may not delete an alloc+free pair. */
#define keep(p) __asm__ __volatile__("" : : "r"(p) : "memory")

struct ring {
	void *slot[RING_SIZE];
	unsigned long head;   /* written by the producer only */
	unsigned long tail;   /* written by the consumer only */
	int done;             /* the producer will add no more */
} __aligned(SLAB_CACHE_LINE);

struct scaling_job {
	struct kmem_cache *s;
	unsigned int ncpus;       /* CPUs 0..ncpus-1 take part */
	bool producer_consumer;
	unsigned int arrived;     /* start barrier */
	bool barrier_failed;
	u64 deadline;
	u64 t0[NR_CPUS], t1[NR_CPUS];
	unsigned long ops[NR_CPUS];  /* operations done */
	struct ring ring[NR_CPUS / 2];
};

static struct scaling_job job;

/* Every CPU taking part waits here until all have come. */
static void start_barrier(struct scaling_job *j)
{
	u64 end = rdtsc() + us_to_tsc(BARRIER_WAIT_US);

	__atomic_fetch_add(&j->arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&j->arrived, __ATOMIC_ACQUIRE) < j->ncpus) {
		if (rdtsc() > end) {
			WRITE_ONCE(j->barrier_failed, true);
			return;
		}
		cpu_relax();
	}
}

static bool past_deadline(unsigned long i, u64 deadline)
{
	return i % DEADLINE_EVERY == 0 && rdtsc() > deadline;
}

static unsigned long pairs(struct kmem_cache *s, u64 deadline)
{
	unsigned long i;

	for (i = 0; i < SCALING_OPS && !past_deadline(i, deadline); i++) {
		void *p = kmem_cache_alloc(s, GFP_KERNEL);

		keep(p);
		kmem_cache_free(s, p);
	}
	return i;
}

static unsigned long produce(struct kmem_cache *s, struct ring *r,
			     u64 deadline)
{
	unsigned long i;

	for (i = 0; i < PC_OBJECTS && !past_deadline(i, deadline); i++) {
		void *p = kmem_cache_alloc(s, GFP_KERNEL);

		while (r->head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE) ==
		       RING_SIZE)
			cpu_relax();
		r->slot[r->head % RING_SIZE] = p;
		__atomic_store_n(&r->head, r->head + 1, __ATOMIC_RELEASE);
	}
	__atomic_store_n(&r->done, 1, __ATOMIC_RELEASE);
	return i;
}

/* Frees until the producer is done and the ring is empty. */
static unsigned long consume(struct kmem_cache *s, struct ring *r)
{
	for (;;) {
		int done = __atomic_load_n(&r->done, __ATOMIC_ACQUIRE);

		if (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) == r->tail) {
			if (done)
				return r->tail;
			cpu_relax();
			continue;
		}
		kmem_cache_free(s, r->slot[r->tail % RING_SIZE]);
		__atomic_store_n(&r->tail, r->tail + 1, __ATOMIC_RELEASE);
	}
}

/* Runs on every CPU, in IPI context. */
static void scaling_cpu(void *info)
{
	struct scaling_job *j = info;
	unsigned int cpu = smp_processor_id();
	unsigned long ops;
	u64 deadline;

	if (cpu >= j->ncpus)
		return;
	start_barrier(j);
	j->t0[cpu] = rdtsc_ordered();
	deadline = j->t0[cpu] + us_to_tsc(LOOP_LIMIT_US);
	if (!j->producer_consumer)
		ops = pairs(j->s, deadline);
	else if (cpu % 2 == 0)
		ops = produce(j->s, &j->ring[cpu / 2], deadline);
	else
		ops = consume(j->s, &j->ring[cpu / 2]);
	j->t1[cpu] = rdtsc_ordered();
	j->ops[cpu] = ops;
}

/* One sample: every CPU of the job ran its loop; false if one did not. */
static bool run_sample(struct kmem_cache *s, unsigned int ncpus, bool pc)
{
	unsigned int cpu;

	job.s = s;
	job.ncpus = ncpus;
	job.producer_consumer = pc;
	job.arrived = 0;
	job.barrier_failed = false;
	for (cpu = 0; cpu < ncpus; cpu++) {
		job.t0[cpu] = job.t1[cpu] = 0;
		job.ops[cpu] = 0;
	}
	for (cpu = 0; cpu < ncpus / 2; cpu++) {
		job.ring[cpu].head = job.ring[cpu].tail = 0;
		job.ring[cpu].done = 0;
	}
	on_each_cpu(scaling_cpu, &job, true);
	for (cpu = 0; cpu < ncpus; cpu++)
		if (!job.t1[cpu])
			return false;
	return !job.barrier_failed;
}

static u64 window_ticks(unsigned int ncpus)
{
	u64 first = job.t0[0], last = job.t1[0];
	unsigned int cpu;

	for (cpu = 1; cpu < ncpus; cpu++) {
		first = min(first, job.t0[cpu]);
		last = max(last, job.t1[cpu]);
	}
	return last - first;
}

static void run_pair_rows(struct kmem_cache *s, const char *name,
			  unsigned int ncpus)
{
	u64 per_cpu[SCALING_REPS], aggregate[SCALING_REPS];
	unsigned long total = 0;
	struct bench_stats st;
	char variant[48];
	unsigned int r, cpu;

	run_sample(s, ncpus, false);   /* warm-up: every CPU makes sheaves */
	for (r = 0; r < SCALING_REPS; r++) {
		u64 sum = 0, window;
		unsigned long done = 0;

		if (!run_sample(s, ncpus, false)) {
			pr_err("bench: %s on %u CPUs: a CPU did not run\n",
			       name, ncpus);
			return;
		}
		/* Ticks per pair, in hundredths, averaged over the CPUs. */
		for (cpu = 0; cpu < ncpus; cpu++) {
			sum += (job.t1[cpu] - job.t0[cpu]) * HUNDREDTHS /
			       max(job.ops[cpu], 1ul);
			done += job.ops[cpu];
		}
		per_cpu[r] = sum / ncpus;
		total += done;
		window = window_ticks(ncpus);
		/* Million pairs per second, in hundredths: ops / (window /
		 * tsc_khz ms) / 1000 = ops * tsc_khz / window / 1000. */
		aggregate[r] = window ? done * tsc_khz * HUNDREDTHS / window /
					1000 : 0;
	}
	total /= SCALING_REPS;
	/* Samples already in hundredths per op: "ops" of HUNDREDTHS keeps
	 * them as they are (see bench_stats_from_samples()). */
	bench_stats_from_samples(per_cpu, SCALING_REPS, HUNDREDTHS, &st);
	snprintf(variant, sizeof(variant), "%s.per_cpu", name);
	bench_report("scaling_pair", variant, ncpus, total / ncpus, &st);
	bench_stats_from_samples(aggregate, SCALING_REPS, HUNDREDTHS, &st);
	snprintf(variant, sizeof(variant), "%s.aggregate", name);
	bench_report_unit("scaling_pair", variant, ncpus, total, &st,
			  "Mops/s");
}

static void run_pc_row(struct kmem_cache *s, const char *name,
		       unsigned int ncpus)
{
	u64 samples[SCALING_REPS];
	struct bench_stats st;
	unsigned int r, cpu;

	run_sample(s, ncpus, true);
	for (r = 0; r < SCALING_REPS; r++) {
		u64 sum = 0;

		if (!run_sample(s, ncpus, true)) {
			pr_err("bench: %s producer/consumer on %u CPUs failed\n",
			       name, ncpus);
			return;
		}
		/* A pair of CPUs: from the earlier start to the later end,
		 * per object the producer made (hundredths). */
		for (cpu = 0; cpu + 1 < ncpus; cpu += 2)
			sum += (max(job.t1[cpu], job.t1[cpu + 1]) -
				min(job.t0[cpu], job.t0[cpu + 1])) *
			       HUNDREDTHS / max(job.ops[cpu], 1ul);
		samples[r] = sum / (ncpus / 2);
	}
	bench_stats_from_samples(samples, SCALING_REPS, HUNDREDTHS, &st);
	bench_report("scaling_producer_consumer", name, ncpus, PC_OBJECTS,
		     &st);
}

static struct kmem_cache *scaling_on, *scaling_off;

static bool make_scaling_caches(void)
{
	if (!scaling_on)
		scaling_on = bench_cache(64, true);
	if (!scaling_off)
		scaling_off = bench_cache(64, false);
	return scaling_on && scaling_off;
}

static void run_scaling_pair(void)
{
	unsigned int n;

	if (!make_scaling_caches())
		return;
	for (n = 1; n <= nr_cpu_ids; n++) {
		run_pair_rows(scaling_on, "sheaves", n);
		run_pair_rows(scaling_off, "no_sheaves", n);
	}
}

static void run_scaling_pc(void)
{
	unsigned int n;

	if (!make_scaling_caches())
		return;
	for (n = 2; n <= nr_cpu_ids; n += 2) {
		run_pc_row(scaling_on, "sheaves", n);
		run_pc_row(scaling_off, "no_sheaves", n);
	}
}

static void run_scaling_memory(void)
{
	if (!make_scaling_caches())
		return;
	run_sample(scaling_on, nr_cpu_ids, false);
	run_sample(scaling_on, nr_cpu_ids & ~1u, true);
	bench_report_cache_memory("scaling_memory", scaling_on,
				  "after_workload");
	kmem_cache_shrink(scaling_on);
	bench_report_cache_memory("scaling_memory", scaling_on, "after_shrink");
}

static const struct bench_group scaling_pair_bench = {
	.name = "scaling_pair", .run = run_scaling_pair,
};
bench_group(scaling_pair_bench);

static const struct bench_group scaling_pc_bench = {
	.name = "scaling_producer_consumer", .run = run_scaling_pc,
};
bench_group(scaling_pc_bench);

static const struct bench_group scaling_memory_bench = {
	.name = "scaling_memory", .run = run_scaling_memory,
};
bench_group(scaling_memory_bench);
