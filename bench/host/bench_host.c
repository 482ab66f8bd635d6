/*
 * bench_host.c - the allocation patterns of `make bench`, run on the host
 * against one allocator per binary: glibc malloc, jemalloc, tcmalloc
 * (gperftools' tcmalloc_minimal), mimalloc, or this kernel's slab allocator
 * built for the host.
 *
 * One binary per allocator, because jemalloc and tcmalloc replace malloc()
 * for the whole process once linked, and because callgrind then counts
 * exactly one allocator.  ALLOC_GLIBC / ALLOC_JEMALLOC / ALLOC_TCMALLOC /
 * ALLOC_MIMALLOC / ALLOC_SLAB (set by the Makefile) picks which.
 *
 * Patterns (the ones Linux used to evaluate sheaves):
 *   pair      allocate 64 bytes and free it, again and again
 *   batch N   allocate N objects of 64 bytes, then free all N, either in
 *             allocation order or shuffled; N = 1, 10, 100, 1000
 *
 * Each pattern's measured loop is a noinline function whose name starts
 * with "measured_", so that
 *     valgrind --tool=callgrind --toggle-collect='measured_*' ...
 * counts only the instructions inside it: divided by the operations done,
 * that is instructions per alloc+free pair, repeatable to the instruction.
 * Without valgrind the same run reports nanoseconds (median of several
 * repetitions, CLOCK_MONOTONIC).
 *
 * Usage: bench_host_<alloc> [--quick]          every pattern, timed
 *        bench_host_<alloc> --one PATTERN N    one pattern, one repetition
 *                                              (for callgrind), prints ops
 * Output: lines "HOSTBENCH alloc=<a> pattern=<p> n=<N> ops=<ops> ns=<x>"
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define OBJ_SIZE      64
#define PAIR_OPS      200000
#define BATCH_TOTAL   200000   /* objects per measurement, whatever N is */
#define REPS          9
#define MAX_BATCH     1000

#if defined(ALLOC_JEMALLOC)
#define ALLOC_NAME "jemalloc"
static void *bench_alloc(size_t n) { return malloc(n); }
static void bench_free(void *p) { free(p); }
static void bench_setup(void) {}
#elif defined(ALLOC_TCMALLOC)
#define ALLOC_NAME "tcmalloc"
static void *bench_alloc(size_t n) { return malloc(n); }
static void bench_free(void *p) { free(p); }
static void bench_setup(void) {}
#elif defined(ALLOC_MIMALLOC)
#include <mimalloc.h>
#define ALLOC_NAME "mimalloc"
static void *bench_alloc(size_t n) { return mi_malloc(n); }
static void bench_free(void *p) { mi_free(p); }
static void bench_setup(void) {}
#elif defined(ALLOC_SLAB)
#include "bench_host_slab.h"
#define ALLOC_NAME "slab"
#else
#define ALLOC_NAME "glibc"
static void *bench_alloc(size_t n) { return malloc(n); }
static void bench_free(void *p) { free(p); }
static void bench_setup(void) {}
#endif

static void *objs[MAX_BATCH];
static unsigned int order[MAX_BATCH];

__attribute__((noinline)) void measured_pair(unsigned long ops)
{
	unsigned long i;

	for (i = 0; i < ops; i++) {
		void *p = bench_alloc(OBJ_SIZE);

		/* Stop the compiler from deleting the pair. */
		__asm__ __volatile__("" : : "r"(p) : "memory");
		bench_free(p);
	}
}

__attribute__((noinline)) void measured_batch(unsigned int n,
					      unsigned long rounds,
					      int shuffled)
{
	unsigned long r;
	unsigned int i;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < n; i++)
			objs[i] = bench_alloc(OBJ_SIZE);
		if (shuffled)
			for (i = 0; i < n; i++)
				bench_free(objs[order[i]]);
		else
			for (i = 0; i < n; i++)
				bench_free(objs[i]);
	}
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static void shuffle_order(unsigned int n, unsigned int seed)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n; i > 1; i--) {
		unsigned int j;

		seed = seed * 1103515245u + 12345u;
		j = (seed >> 8) % i;
		unsigned int t = order[i - 1];
		order[i - 1] = order[j];
		order[j] = t;
	}
}

static void report(const char *pattern, unsigned int n, unsigned long ops,
		   double *samples, int reps)
{
	qsort(samples, (size_t)reps, sizeof(double), cmp_double);
	printf("HOSTBENCH alloc=%s pattern=%s n=%u ops=%lu ns=%.2f "
	       "ns_min=%.2f ns_max=%.2f\n", ALLOC_NAME, pattern, n, ops,
	       samples[reps / 2] / ops, samples[0] / ops,
	       samples[reps - 1] / ops);
}

/* One pattern, once, warm-up included: callgrind divides by every op. */
static int run_one(const char *pattern, unsigned int n)
{
	unsigned long ops;

	if (strcmp(pattern, "pair") == 0) {
		measured_pair(1000);
		measured_pair(PAIR_OPS);
		ops = 1000 + PAIR_OPS;
	} else if (n >= 1 && n <= MAX_BATCH) {
		int shuffled = strcmp(pattern, "batch_shuffled") == 0;
		unsigned int i;

		if (shuffled)
			shuffle_order(n, 12345u + n);
		else
			for (i = 0; i < n; i++)
				order[i] = i;
		measured_batch(n, 1, shuffled);
		measured_batch(n, BATCH_TOTAL / n, shuffled);
		ops = n + (BATCH_TOTAL / n) * n;
	} else {
		fprintf(stderr, "unknown pattern %s %u\n", pattern, n);
		return 2;
	}
	printf("HOSTBENCH-ONE alloc=%s pattern=%s n=%u ops=%lu\n", ALLOC_NAME,
	       pattern, n, ops);
	return 0;
}

int main(int argc, char **argv)
{
	static const unsigned int sizes[] = { 1, 10, 100, 1000 };
	int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
	int reps = quick ? 1 : REPS;
	double samples[REPS];
	unsigned int s;
	int r;

	bench_setup();
	if (argc > 3 && strcmp(argv[1], "--one") == 0)
		return run_one(argv[2], (unsigned int)atoi(argv[3]));
	measured_pair(1000); /* warm-up */
	for (r = 0; r < reps; r++) {
		double t0 = now_ns();

		measured_pair(PAIR_OPS);
		samples[r] = now_ns() - t0;
	}
	report("pair", 1, PAIR_OPS, samples, reps);

	for (s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
		unsigned int n = sizes[s];
		unsigned long rounds = BATCH_TOTAL / n;
		int shuffled;

		for (shuffled = 0; shuffled <= 1; shuffled++) {
			shuffle_order(n, 12345u + n);
			if (!shuffled)
				for (unsigned int i = 0; i < n; i++)
					order[i] = i;
			measured_batch(n, 1, shuffled); /* warm-up */
			for (r = 0; r < reps; r++) {
				double t0 = now_ns();

				measured_batch(n, rounds, shuffled);
				samples[r] = now_ns() - t0;
			}
			report(shuffled ? "batch_shuffled" : "batch_in_order",
			       n, rounds * n, samples, reps);
		}
	}
	return 0;
}
