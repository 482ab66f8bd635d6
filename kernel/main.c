/*
 * main.c - kernel_main(): the boot order, one step a line.
 *
 * entry.asm enters kernel_main() (return address 0) on the boot CPU, in
 * 64-bit mode, on the boot stack, with the temporary boot page tables.
 * Each step below needs the ones before it; the comment says why it comes
 * where it does.
 */
#include <bench.h>
#include <kernel.h>
#include <kunit.h>
#include <mmzone.h>
#include <mm.h>
#include <printk.h>
#include <prandom.h>
#include <rcupdate.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include <viz.h>
#include "cmdline.h"
#include "params.h"
#include "serial.h"
#include "timekeeping.h"
#include "nmi_printk.h"
#include "../arch/x86_64/cpu.h"
#include "../arch/x86_64/desc.h"
#include "../arch/x86_64/e820.h"
#include "../arch/x86_64/multiboot2.h"
#include "../arch/x86_64/paging.h"
#include "../arch/x86_64/qemu.h"

u64 boot_seed;

/* Bytes of the command line per log line: a printk line holds 512. */
#define CMDLINE_PIECE 400

/* The whole command line, in pieces that each fit a printk line. */
static void show_cmdline(const char *line, size_t len)
{
	size_t off;

	pr_info("command line (%lu bytes): \"%.*s\"%s\n", (unsigned long)len,
		CMDLINE_PIECE, line, len > CMDLINE_PIECE ? " ..." : "");
	for (off = CMDLINE_PIECE; off < len; off += CMDLINE_PIECE)
		pr_info("command line, from byte %lu: \"%.*s\"\n",
			(unsigned long)off, CMDLINE_PIECE, line + off);
}

/*
 * Split and check the command line (kernel/params.c reports each unknown
 * option and bad value).  A line this kernel cannot hold whole is refused:
 * going on with part of it (a test= cut off, say) would run something
 * else than what was asked and call it a pass.
 */
static void apply_cmdline(void)
{
	show_cmdline(boot_info.cmdline, strlen(boot_info.cmdline));
	if (boot_info.cmdline_len >= BOOT_CMDLINE_MAX)
		panic("command line: %lu bytes, more than the %u this kernel keeps: refusing to boot with part of it",
		      (unsigned long)boot_info.cmdline_len,
		      BOOT_CMDLINE_MAX - 1);
	cmdline_parse(&kernel_cmdline, boot_info.cmdline);
	if (kernel_cmdline.dropped)
		panic("command line: %u options, more than the %u this kernel keeps: refusing to boot with part of them",
		      kernel_cmdline.nr_opts + kernel_cmdline.dropped,
		      CMDLINE_MAX_OPTS);
	params_init();
	console_loglevel = (int)param_number(PARAM_LOGLEVEL);
	boot_seed = param_given(PARAM_SEED) ? param_number(PARAM_SEED) : rdtsc();
	pr_info("random seed: %lu (replay with seed=%lu)\n",
		(unsigned long)boot_seed, (unsigned long)boot_seed);
}

static void show_memory_map(void)
{
	unsigned int i;

	pr_info("memory map from %s (%u entries):\n",
		boot_info.loader_name ? boot_info.loader_name : "the boot loader",
		boot_info.nr_mmap);
	for (i = 0; i < boot_info.nr_mmap; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];

		pr_info("  [mem %#014lx-%#014lx] %s\n", (unsigned long)e->base,
			(unsigned long)(e->base + e->length - 1),
			mb2_memory_type_name(e->type));
	}
}

/*
 * What goes into the direct map: RAM and ACPI ranges anywhere, and every
 * range below 4 GiB whatever its type (firmware tables such as the MADT
 * often sit in "reserved" memory there).  Reserved ranges above 4 GiB are
 * address-space holes (QEMU reports a 12 GiB one at 1 TiB) and stay out.
 */

static bool wants_direct_map(const struct boot_mmap_entry *e)
{
	if (e->type == MB2_MEMORY_AVAILABLE ||
	    e->type == MB2_MEMORY_ACPI_RECLAIMABLE || e->type == MB2_MEMORY_NVS)
		return true;
	return e->base + e->length <= SZ_4G;
}

static unsigned int direct_map_ranges(struct phys_range *r, unsigned int max)
{
	unsigned int i, n = 0;

	for (i = 0; i < boot_info.nr_mmap && n < max; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];

		if (!e->length || e->base + e->length < e->base ||
		    !wants_direct_map(e))
			continue;
		r[n].start = e->base;
		r[n].end = e->base + e->length;
		n++;
	}
	return n;
}

/* `bench=<globs>` runs the benchmarks (include/bench.h) instead. */
static void run_self_tests(void)
{
	struct kunit_totals totals;
	const char *bench = param_text(PARAM_BENCH);
	bool passed;

	if (bench) {
		unsigned int n = bench_run_all(bench);

		printk_flush_nmi();
		qemu_exit(n ? QEMU_EXIT_PASS : QEMU_EXIT_FAIL);
	}
	passed = kunit_run_all(param_text(PARAM_TEST), &totals);
	slabinfo_show();                 /* what the run left in each cache */
	numastat_show();                 /* where pages and objects came from */
	highlights_replay();             /* the storm summary, last */
	printk_flush_nmi();
	qemu_exit(passed ? QEMU_EXIT_PASS : QEMU_EXIT_FAIL);
}

void kernel_main(u32 magic, u32 info_phys)
{
	static struct phys_range ranges[BOOT_MMAP_MAX];
	unsigned int nr;

	tsc_at_boot = rdtsc();           /* time stamps count from here */
	percpu_init_boot_cpu();          /* GS base: smp_processor_id() works */
	serial_init();                   /* printk has somewhere to go */
	tsc_calibrate();                 /* time stamps in seconds */
	idt_init();                      /* exceptions are reported ... */
	cpu_desc_load(0);                /* ... with IST stacks for NMI/#DF/#MC */
	pr_info("kernel: x86-64 teaching kernel, TSC %lu.%03lu MHz\n",
		(unsigned long)(tsc_khz / 1000), (unsigned long)(tsc_khz % 1000));

	/* GRUB's block is below 4 GiB, identity-mapped by entry.asm. */
	if (!multiboot2_parse(magic, (const void *)(uintptr_t)info_phys,
			      info_phys))
		panic("no multiboot2 information: cannot find memory");
	apply_cmdline();
	show_memory_map();

	nr = direct_map_ranges(ranges, BOOT_MMAP_MAX);
	paging_init(ranges, nr);         /* final tables: direct map, W^X */
	desc_unmap_stack_guards();       /* stack overflows now fault */
	e820__memblock_setup();          /* usable memory minus what is taken */
	page_poisoning = param_flag(PARAM_PAGE_POISON); /* writes after free */
	pr_info("mm: page poisoning %s\n", page_poisoning ?
		"on: freed pages are filled and checked when handed out" :
		"off (page_poison turns it on)");
	smp_prepare_cpus();              /* MADT: the CPUs per-CPU data is for */
	numa_off = param_choice(PARAM_NUMA) == PARAM_NUMA_OFF;
	numa_init();                     /* nodes from the SRAT, or one */
	numa_cpu_online(0, this_cpu()->apic_id);
	slab_numa_mode = (enum slab_numa_mode)param_choice(PARAM_SLAB_NUMA);
	slab_kmalloc_mode = (enum slab_mode)param_choice(PARAM_SLAB_MODE);
	mm_core_init();                  /* memmap, zones, buddy allocator */
	kmem_cache_init(param_text(PARAM_SLUB_DEBUG)); /* caches, kmalloc */
	slab_trace_setup(param_text(PARAM_TRACE_ALLOC)); /* trace_alloc= */
	rcu_init();                      /* before the ticks and idle loops */
	smp_init();                      /* APIC timer, other CPUs, watchdog */
	viz_init();                      /* viz=: snapshots on COM2 */

	run_self_tests();                /* never returns */
}
