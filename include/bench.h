/*
 * bench.h - in-kernel micro-benchmarks, printed as rows of a table.
 *
 * A benchmark group is a function registered with bench_group(); it
 * measures with bench_measure() and prints rows with bench_report().  The
 * kernel runs the groups instead of the tests when booted with
 * `bench=<globs>` (`bench=*` for all); `make bench` does that and turns the
 * rows into CSV files and plots (bench/report.py).
 *
 * Measuring: bench_measure() calls fn(arg) `reps` times, each time between
 * two serialised TSC reads (rdtsc_ordered: LFENCE; RDTSC; LFENCE), and
 * keeps every sample, so a row can report the median and the spread.
 * Under `-icount shift=0` the TSC counts guest instructions exactly: there
 * the figures are instructions, identical from run to run.  Under plain
 * TCG the TSC follows the wall clock: then they are (noisy) cycles.
 *
 * Output, one line a row, machine-readable and still legible:
 *   BENCH group=kmalloc_pair variant=sheaves param=64 ops=1000 \
 *         median=23.41 min=23.40 p10=23.40 p90=23.52 max=24.10 unit=tsc/op
 * Other units: "Mops/s" (aggregate throughput of a scaling row) and
 * "bytes" (memory held, bench_report_value(): one exact value).
 */
#ifndef BENCH_H
#define BENCH_H

#include <compiler.h>

#define BENCH_MAX_REPS 64

struct bench_stats {
	u64 median, min, max, p10, p90; /* TSC ticks per op, times 100 */
	unsigned int reps;
};

typedef void (*bench_fn_t)(void *arg);

/* Time `reps` calls of fn(arg), each doing `ops` operations. */
void bench_measure(bench_fn_t fn, void *arg, unsigned long ops,
		   unsigned int reps, struct bench_stats *out);
/* Summarise raw per-batch samples (ticks for `ops` operations each). */
void bench_stats_from_samples(u64 *samples, unsigned int n,
			      unsigned long ops, struct bench_stats *out);
void bench_report(const char *group, const char *variant, unsigned long param,
		  unsigned long ops, const struct bench_stats *st);
/* The same row with another unit: "tsc/op" is what bench_report() says;
 * scaling rows also say "Mops/s" (throughput, higher is better). */
void bench_report_unit(const char *group, const char *variant,
		       unsigned long param, unsigned long ops,
		       const struct bench_stats *st, const char *unit);
/* One exact value (no spread), e.g. bytes held: unit "bytes". */
void bench_report_value(const char *group, const char *variant,
			unsigned long param, u64 value, const char *unit);

/*
 * Window markers for the counted benchmarks: they do nothing, but a QEMU
 * plugin (bench/plugin/counter.c) watches their first instruction and
 * counts what this CPU executes between the two.  Out of line on purpose.
 */
void bench_count_begin(void);
void bench_count_end(void);

struct bench_group {
	const char *name;
	void (*run)(void);
};

#define bench_group(grp)                                                      \
	static const struct bench_group *const __bench_ptr_##grp              \
		__section("bench_groups") __used = &(grp)

/* Run every group matching the comma-separated globs; returns how many. */
unsigned int bench_run_all(const char *filter);

#endif /* BENCH_H */
