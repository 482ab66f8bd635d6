/*
 * lock_bench.c - what the locks under the allocator cost on one CPU.
 *
 * The sheaf fast path exists because a per-CPU local lock (a flag and
 * IRQs off) is much cheaper than a shared spinlock (an atomic
 * read-modify-write on a cache line other CPUs also write).  These rows
 * put the two side by side, with the empty measurement as the floor.
 */
#include <bench.h>
#include <local_lock.h>
#include <spinlock.h>

#define LOCK_BENCH_OPS  1000
#define LOCK_BENCH_REPS 21

static DEFINE_SPINLOCK(bench_spinlock);
static local_trylock_t bench_local_lock;

static void empty_loop(void *arg)
{
	unsigned long i;

	for (i = 0; i < LOCK_BENCH_OPS; i++)
		barrier();
	(void)arg;
}

static void spinlock_pairs(void *arg)
{
	unsigned long i, flags;

	for (i = 0; i < LOCK_BENCH_OPS; i++) {
		spin_lock_irqsave(&bench_spinlock, flags);
		spin_unlock_irqrestore(&bench_spinlock, flags);
	}
	(void)arg;
}

static void local_trylock_pairs(void *arg)
{
	unsigned long i, flags;

	for (i = 0; i < LOCK_BENCH_OPS; i++) {
		if (local_trylock_irqsave(&bench_local_lock, flags))
			local_unlock_irqrestore(&bench_local_lock, flags);
	}
	(void)arg;
}

static void run_lock_bench(void)
{
	struct bench_stats st;

	bench_measure(empty_loop, NULL, LOCK_BENCH_OPS, LOCK_BENCH_REPS, &st);
	bench_report("single_locks", "empty_loop", 0, LOCK_BENCH_OPS, &st);
	bench_measure(spinlock_pairs, NULL, LOCK_BENCH_OPS, LOCK_BENCH_REPS, &st);
	bench_report("single_locks", "spin_lock_irqsave_pair", 0,
		     LOCK_BENCH_OPS, &st);
	bench_measure(local_trylock_pairs, NULL, LOCK_BENCH_OPS,
		      LOCK_BENCH_REPS, &st);
	bench_report("single_locks", "local_trylock_irqsave_pair", 0,
		     LOCK_BENCH_OPS, &st);
}

static const struct bench_group lock_bench = {
	.name = "single_locks",
	.run = run_lock_bench,
};
bench_group(lock_bench);
