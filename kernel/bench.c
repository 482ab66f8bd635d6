/*
 * bench.c - runs the benchmark groups and prints their rows.
 *
 * See include/bench.h for the output format and what the numbers mean.
 * Statistics: the samples of one row are sorted (insertion sort: at most
 * BENCH_MAX_REPS of them) and read at the 10th, 50th and 90th percentile;
 * per-op figures are kept as hundredths so the table shows two decimals
 * without floating point (the kernel is built with -mgeneral-regs-only).
 */
#include <bench.h>
#include <kunit.h>
#include <printk.h>
#include <smp.h>
#include "../arch/x86_64/cpu.h"

extern const struct bench_group *const __start_bench_groups[]
	__attribute__((weak));
extern const struct bench_group *const __stop_bench_groups[]
	__attribute__((weak));

#define HUNDREDTHS 100

static void sort_u64(u64 *v, unsigned int n)
{
	unsigned int i, j;

	for (i = 1; i < n; i++) {
		u64 x = v[i];

		for (j = i; j > 0 && v[j - 1] > x; j--)
			v[j] = v[j - 1];
		v[j] = x;
	}
}

static u64 per_op(u64 ticks, unsigned long ops)
{
	return ops ? ticks * HUNDREDTHS / ops : 0;
}

void bench_stats_from_samples(u64 *samples, unsigned int n,
			      unsigned long ops, struct bench_stats *out)
{
	sort_u64(samples, n);
	out->reps = n;
	out->min = per_op(samples[0], ops);
	out->max = per_op(samples[n - 1], ops);
	out->median = per_op(samples[n / 2], ops);
	out->p10 = per_op(samples[n / 10], ops);
	out->p90 = per_op(samples[(n * 9) / 10 < n ? (n * 9) / 10 : n - 1], ops);
}

void bench_measure(bench_fn_t fn, void *arg, unsigned long ops,
		   unsigned int reps, struct bench_stats *out)
{
	u64 samples[BENCH_MAX_REPS];
	unsigned int i;

	if (reps > BENCH_MAX_REPS)
		reps = BENCH_MAX_REPS;
	if (reps == 0)
		reps = 1;
	fn(arg); /* warm-up: caches, sheaves and slabs in their steady state */
	for (i = 0; i < reps; i++) {
		u64 t0 = rdtsc_ordered();

		fn(arg);
		samples[i] = rdtsc_ordered() - t0;
	}
	bench_stats_from_samples(samples, reps, ops, out);
}

static void print_fixed(char *buf, size_t size, u64 hundredths)
{
	snprintf(buf, size, "%lu.%02lu", (unsigned long)(hundredths / HUNDREDTHS),
		 (unsigned long)(hundredths % HUNDREDTHS));
}

void bench_report_unit(const char *group, const char *variant,
		       unsigned long param, unsigned long ops,
		       const struct bench_stats *st, const char *unit)
{
	char med[24], mn[24], p10[24], p90[24], mx[24];

	print_fixed(med, sizeof(med), st->median);
	print_fixed(mn, sizeof(mn), st->min);
	print_fixed(p10, sizeof(p10), st->p10);
	print_fixed(p90, sizeof(p90), st->p90);
	print_fixed(mx, sizeof(mx), st->max);
	printk("BENCH group=%s variant=%s param=%lu ops=%lu median=%s min=%s p10=%s p90=%s max=%s reps=%u unit=%s\n",
	       group, variant, param, ops, med, mn, p10, p90, mx, st->reps,
	       unit);
}

void bench_report(const char *group, const char *variant, unsigned long param,
		  unsigned long ops, const struct bench_stats *st)
{
	bench_report_unit(group, variant, param, ops, st, "tsc/op");
}

void bench_report_value(const char *group, const char *variant,
			unsigned long param, u64 value, const char *unit)
{
	struct bench_stats st = {
		.median = value * HUNDREDTHS, .min = value * HUNDREDTHS,
		.max = value * HUNDREDTHS, .p10 = value * HUNDREDTHS,
		.p90 = value * HUNDREDTHS, .reps = 1,
	};

	bench_report_unit(group, variant, param, 1, &st, unit);
}

#define CPUID_BRAND_FIRST 0x80000002u
#define CPUID_BRAND_LEAVES 3

/* The processor's brand string (CPUID 0x80000002..4), for the report. */
static void cpu_brand(char *buf, size_t size)
{
	u32 regs[CPUID_BRAND_LEAVES * 4 + 1];
	u32 a, b, c, d, i;

	cpuid(0x80000000u, 0, &a, &b, &c, &d);
	if (a < CPUID_BRAND_FIRST + CPUID_BRAND_LEAVES - 1) {
		snprintf(buf, size, "unknown");
		return;
	}
	for (i = 0; i < CPUID_BRAND_LEAVES; i++)
		cpuid(CPUID_BRAND_FIRST + i, 0, &regs[i * 4], &regs[i * 4 + 1],
		      &regs[i * 4 + 2], &regs[i * 4 + 3]);
	regs[CPUID_BRAND_LEAVES * 4] = 0;
	snprintf(buf, size, "%s", (const char *)regs);
}

unsigned int bench_run_all(const char *filter)
{
	const struct bench_group *const *g;
	unsigned int n = 0;
	char brand[64];

	cpu_brand(brand, sizeof(brand));
	printk("bench: machine %s, %u CPUs online\n", brand, nr_cpu_ids);

	for (g = __start_bench_groups; g < __stop_bench_groups; g++) {
		if (!kunit_filter_match(filter, (*g)->name, NULL))
			continue;
		printk("bench: running %s\n", (*g)->name);
		(*g)->run();
		n++;
	}
	printk("bench: %u groups done\n", n);
	if (!n) {
		printk("bench: bench=%s matches no group; the groups are:\n",
		       filter);
		for (g = __start_bench_groups; g < __stop_bench_groups; g++)
			printk("bench:   %s\n", (*g)->name);
	}
	return n;
}
