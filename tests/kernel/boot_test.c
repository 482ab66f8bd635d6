/*
 * boot_test.c - does the foundation stand?
 *
 * Checks, from inside the running kernel, what the boot path promised:
 * the page-table rights of each image section, an unmapped NULL page and
 * stack guard pages, a direct map that reaches the top of usable memory,
 * IST stacks for NMI/#DF/#MC, per-CPU data through GS, symbols for
 * backtraces, and the command-line options the harness relies on.
 */
#include <kunit.h>
#include <memlayout.h>
#include <smp.h>
#include <string.h>
#include <printk.h>
#include "../../arch/x86_64/paging.h"
#include "../../arch/x86_64/desc.h"
#include "../../arch/x86_64/multiboot2.h"
#include "../../kernel/backtrace.h"
#include "../../kernel/params.h"

extern char __text_start[], __rodata_start[], __data_start[], __bss_start[];
void kernel_main(u32 magic, u32 info_phys);

static void text_is_executable_and_read_only(struct kunit *test)
{
	u64 pte = paging_lookup((unsigned long)kernel_main, NULL);

	KUNIT_ASSERT_TRUE(test, pte & PTE_PRESENT);
	KUNIT_EXPECT_FALSE(test, pte & PTE_WRITE);
	KUNIT_EXPECT_FALSE(test, pte & PTE_NX);
}

static void rodata_is_read_only_and_nx(struct kunit *test)
{
	u64 pte = paging_lookup((unsigned long)__rodata_start, NULL);

	KUNIT_ASSERT_TRUE(test, pte & PTE_PRESENT);
	KUNIT_EXPECT_FALSE(test, pte & PTE_WRITE);
	if (cpu_has_nx)
		KUNIT_EXPECT_TRUE(test, pte & PTE_NX);
}

static void data_and_bss_are_writable_and_nx(struct kunit *test)
{
	u64 d = paging_lookup((unsigned long)__data_start, NULL);
	u64 b = paging_lookup((unsigned long)__bss_start, NULL);

	KUNIT_EXPECT_TRUE(test, d & PTE_WRITE);
	KUNIT_EXPECT_TRUE(test, b & PTE_WRITE);
	if (cpu_has_nx) {
		KUNIT_EXPECT_TRUE(test, d & PTE_NX);
		KUNIT_EXPECT_TRUE(test, b & PTE_NX);
	}
}

static void null_page_is_unmapped(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, paging_lookup(0, NULL) & PTE_PRESENT, 0);
}

/*
 * Every stack of every possible CPU (an AP starting later gets its stacks
 * as they are now): the page below it unmapped, its lowest page mapped.
 */
static void stack_guard_pages_are_unmapped(struct kunit *test)
{
	unsigned int cpu, i;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		const struct cpu_stacks *st = &cpu_stacks[cpu];
		const u8 *const guard[] = { st->guard_kernel, st->guard_nmi,
					    st->guard_df, st->guard_mc };
		const u8 *const stack[] = { st->kernel, st->nmi, st->df,
					    st->mc };

		for (i = 0; i < ARRAY_SIZE(guard); i++) {
			KUNIT_EXPECT_EQ(test, paging_lookup((unsigned long)guard[i],
							    NULL) & PTE_PRESENT, 0);
			KUNIT_EXPECT_NE(test, paging_lookup((unsigned long)stack[i],
							    NULL) & PTE_PRESENT, 0);
		}
	}
}

/*
 * Where each CPU really runs: the stack pointer of an IPI (taken on the
 * interrupted stack, the CPU's kernel stack) must lie inside that CPU's
 * guarded kernel stack, and the page below it must be unmapped.  The boot
 * CPU once ran on a small stack in .bss with no guard at all.
 */
static unsigned long stack_seen[NR_CPUS];

static void record_stack_pointer(void *info)
{
	(void)info;
	stack_seen[smp_processor_id()] =
		(unsigned long)__builtin_frame_address(0);
}

static void every_cpu_runs_on_its_guarded_stack(struct kunit *test)
{
	unsigned int cpu;

	memset(stack_seen, 0, sizeof(stack_seen));
	on_each_cpu(record_stack_pointer, NULL, true);
	for_each_online_cpu(cpu) {
		unsigned long lo = (unsigned long)cpu_stacks[cpu].kernel;
		unsigned long sp = stack_seen[cpu];

		KUNIT_EXPECT_TRUE(test, sp >= lo && sp < lo + KERNEL_STACK_SIZE);
		KUNIT_EXPECT_EQ(test, paging_lookup(
			(unsigned long)cpu_stacks[cpu].guard_kernel, NULL) &
			PTE_PRESENT, 0);
		KUNIT_EXPECT_EQ(test, paging_lookup(lo - 1, NULL) & PTE_PRESENT,
				0);
	}
	/* And this very case, on the boot CPU, in task context. */
	KUNIT_EXPECT_TRUE(test, (unsigned long)__builtin_frame_address(0) >=
			  (unsigned long)cpu_stacks[0].kernel &&
			  (unsigned long)__builtin_frame_address(0) <
			  (unsigned long)cpu_stacks[0].kernel +
			  KERNEL_STACK_SIZE);
}

static void direct_map_covers_usable_memory(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < boot_info.nr_mmap; i++) {
		const struct boot_mmap_entry *e = &boot_info.mmap[i];
		u64 last;
		volatile u8 *p;

		if (e->type != MB2_MEMORY_AVAILABLE || e->length < PAGE_SIZE)
			continue;
		last = ALIGN_DOWN(e->base + e->length - 1, PAGE_SIZE);
		KUNIT_EXPECT_NE(test, paging_lookup((unsigned long)
					phys_to_virt(last), NULL) & PTE_PRESENT, 0);
		/* Really readable and writable through the direct map. */
		p = phys_to_virt(last);
		if (last >= 16ul << 20) { /* clear of the kernel image */
			u8 old = *p;

			*p = 0x5a;
			KUNIT_EXPECT_EQ(test, *p, 0x5a);
			*p = old;
		}
	}
}

static void gs_base_points_at_this_cpu(struct kunit *test)
{
	KUNIT_EXPECT_PTR_EQ(test, this_cpu(), &percpu_areas[0]);
	KUNIT_EXPECT_EQ(test, smp_processor_id(), 0);
	KUNIT_EXPECT_FALSE(test, in_nmi());
	KUNIT_EXPECT_TRUE(test, in_task());
}

static void kallsyms_names_functions(struct kunit *test)
{
	unsigned long off = 99;
	const char *name = kallsyms_lookup((unsigned long)kernel_main + 3,
					   &off, NULL);

	KUNIT_ASSERT_NOT_NULL(test, name);
	KUNIT_EXPECT_STREQ(test, name, "kernel_main");
	KUNIT_EXPECT_EQ(test, off, 3);
	name = kallsyms_lookup((unsigned long)kallsyms_names_functions, &off,
			       NULL);
	KUNIT_ASSERT_NOT_NULL(test, name);
	KUNIT_EXPECT_STREQ(test, name, "kallsyms_names_functions");
	KUNIT_EXPECT_NULL(test, kallsyms_lookup(0x1000, NULL, NULL));
}

static void printk_formats_like_c(struct kunit *test)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%d|%5u|%-4s|%08lx|%c|%%|%zu", -42, 7u,
		 "ab", 0xbeeful, 'x', (size_t)12);
	KUNIT_EXPECT_STREQ(test, buf, "-42|    7|ab  |0000beef|x|%|12");
	/* %pS names a code address through kallsyms. */
	snprintf(buf, sizeof(buf), "%pS", (void *)((unsigned long)kernel_main + 4));
	KUNIT_EXPECT_EQ(test, strncmp(buf, "kernel_main+0x4/", 16), 0);
}

static void memory_map_was_read(struct kunit *test)
{
	unsigned int i, usable = 0;

	KUNIT_EXPECT_GT(test, boot_info.nr_mmap, 0);
	for (i = 0; i < boot_info.nr_mmap; i++)
		if (boot_info.mmap[i].type == MB2_MEMORY_AVAILABLE)
			usable++;
	KUNIT_EXPECT_GT(test, usable, 0);
}

static void test_filter_selects_this_suite(struct kunit *test)
{
	const char *f = param_text(PARAM_TEST);

	/* We are running, so whatever filter was given selects us. */
	KUNIT_EXPECT_TRUE(test, kunit_filter_match(f, "boot", test->name));
	KUNIT_EXPECT_FALSE(test, kunit_filter_match("nothing_like_it", "boot",
						    NULL));
}

/*
 * A corrupt frame pointer into a stack guard page (unmapped) must end the
 * walk, not fault: the walk runs in crash reports and NMIs.  The fake
 * frame holds a return address and a saved rbp that points into this
 * CPU's NMI stack guard; a second walk starts right inside it.
 */
static unsigned long fake_frame[2];

static void backtrace_stops_at_a_guard_page(struct kunit *test)
{
	unsigned long guard =
		(unsigned long)cpu_stacks[smp_processor_id()].guard_nmi;

	fake_frame[0] = guard + PAGE_SIZE / 2;
	fake_frame[1] = (unsigned long)kernel_main + 1;
	KUNIT_EXPECT_EQ(test, dump_backtrace(_THIS_IP_,
					     (unsigned long)fake_frame), 1);
	KUNIT_EXPECT_EQ(test, dump_backtrace(_THIS_IP_, guard + 8), 0);
	/* The last 16 bytes below the guard's top straddle into the stack. */
	KUNIT_EXPECT_EQ(test, dump_backtrace(_THIS_IP_, guard + PAGE_SIZE - 8), 0);
	/* A frame at the top of the stack below runs into the guard. */
	KUNIT_EXPECT_EQ(test, dump_backtrace(_THIS_IP_, guard - 8), 0);
}

static struct kunit_case boot_cases[] = {
	KUNIT_CASE(text_is_executable_and_read_only),
	KUNIT_CASE(rodata_is_read_only_and_nx),
	KUNIT_CASE(data_and_bss_are_writable_and_nx),
	KUNIT_CASE(null_page_is_unmapped),
	KUNIT_CASE(stack_guard_pages_are_unmapped),
	KUNIT_CASE(every_cpu_runs_on_its_guarded_stack),
	KUNIT_CASE(direct_map_covers_usable_memory),
	KUNIT_CASE(gs_base_points_at_this_cpu),
	KUNIT_CASE(kallsyms_names_functions),
	KUNIT_CASE(backtrace_stops_at_a_guard_page),
	KUNIT_CASE(printk_formats_like_c),
	KUNIT_CASE(memory_map_was_read),
	KUNIT_CASE(test_filter_selects_this_suite),
	{}
};

static struct kunit_suite boot_suite = {
	.name = "boot",
	.test_cases = boot_cases,
};
kunit_test_suite(boot_suite);
