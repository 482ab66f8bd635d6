/*
 * broken_tests.c - tests that are wrong on purpose.
 *
 * `make test` builds a second kernel with this file as EXTRA_TESTS and boots
 * it once per suite below (test=<suite>).  Each boot must fail, and the
 * harness must say why: a failed expectation, a page fault, a hang, a
 * warning nobody expected, an expected report that never came.  If the
 * harness ever passed one of these, it could pass a broken kernel too.
 * Never part of the normal test kernel.
 */
#include <kernel.h>
#include <kunit.h>
#include <printk.h>

static void expect_two_plus_two_is_five(struct kunit *test)
{
	int two = 2;

	KUNIT_EXPECT_EQ(test, two + two, 5);
}

static struct kunit_case broken_expect_cases[] = {
	KUNIT_CASE(expect_two_plus_two_is_five),
	{}
};

static struct kunit_suite broken_expect = {
	.name = "broken_expect",
	.test_cases = broken_expect_cases,
};
kunit_test_suite(broken_expect);

static void write_through_null(struct kunit *test)
{
	volatile int *p = NULL;

	kunit_info(test, "about to write through a NULL pointer");
	*p = 1;
	KUNIT_FAIL(test, "still running after a NULL write");
}

static struct kunit_case broken_pagefault_cases[] = {
	KUNIT_CASE(write_through_null),
	{}
};

static struct kunit_suite broken_pagefault = {
	.name = "broken_pagefault",
	.test_cases = broken_pagefault_cases,
};
kunit_test_suite(broken_pagefault);

/*
 * broken_text_alias_write: text through its direct-map alias.  The wx suite
 * reads the page tables; this proves the CPU enforces them: the write must
 * be a protection fault, not a silent change to the code.
 */
#include <memlayout.h>

void kernel_main(u32 magic, u32 info_phys);

static void write_text_through_direct_map(struct kunit *test)
{
	volatile u8 *alias = phys_to_virt(virt_to_phys(kernel_main));

	kunit_info(test, "about to write to kernel_main through the direct map");
	*alias = *alias;
	KUNIT_FAIL(test, "still running after writing to text");
}

static struct kunit_case broken_text_alias_write_cases[] = {
	KUNIT_CASE(write_text_through_direct_map),
	{}
};

static struct kunit_suite broken_text_alias_write = {
	.name = "broken_text_alias_write",
	.test_cases = broken_text_alias_write_cases,
};
kunit_test_suite(broken_text_alias_write);

static void spin_forever(struct kunit *test)
{
	volatile int forever = 1;

	kunit_info(test, "spinning with interrupts off");
	__asm__ __volatile__("cli");
	while (forever)
		;
}

static struct kunit_case broken_hang_cases[] = {
	KUNIT_CASE(spin_forever),
	{}
};

static struct kunit_suite broken_hang = {
	.name = "broken_hang",
	.test_cases = broken_hang_cases,
};
kunit_test_suite(broken_hang);

/*
 * broken_deadlock: the classic AB-BA deadlock.  cpu1 (in an IPI, IRQs off)
 * takes B then wants A; cpu0 takes A (IRQs off) then wants B.  Neither
 * spinlock check can see it (each CPU holds a different lock), so only the
 * hard-lockup watchdog can end this run: the harness boots it with SMP=2
 * and expects the watchdog report.
 */
#include <smp.h>
#include <spinlock.h>

static DEFINE_SPINLOCK(deadlock_a);
static DEFINE_SPINLOCK(deadlock_b);
static int a_held, b_held;

static void take_b_then_a(void *info)
{
	(void)info;
	spin_lock(&deadlock_b);
	WRITE_ONCE(b_held, 1);
	while (!READ_ONCE(a_held))
		cpu_relax();
	spin_lock(&deadlock_a);
	spin_unlock(&deadlock_a);
	spin_unlock(&deadlock_b);
}

static void abba_deadlock(struct kunit *test)
{
	unsigned long flags;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs two CPUs");
	kunit_info(test, "cpu0 takes A then B, cpu1 takes B then A");
	smp_call_function_single(1, take_b_then_a, NULL, false);
	spin_lock_irqsave(&deadlock_a, flags);
	WRITE_ONCE(a_held, 1);
	while (!READ_ONCE(b_held))
		cpu_relax();
	spin_lock(&deadlock_b);
	KUNIT_FAIL(test, "got both locks: there was no deadlock");
	spin_unlock(&deadlock_b);
	spin_unlock_irqrestore(&deadlock_a, flags);
}

static struct kunit_case broken_deadlock_cases[] = {
	KUNIT_CASE(abba_deadlock),
	{}
};

static struct kunit_suite broken_deadlock = {
	.name = "broken_deadlock",
	.test_cases = broken_deadlock_cases,
};
kunit_test_suite(broken_deadlock);

/*
 * Reports.  broken_warning.warn_in_case WARNs inside a case that declared
 * nothing: the kernel fails the case.  broken_warning_outside WARNs from
 * suite_exit(), outside any case, where only the harness's reading of the
 * log can catch it (its one case passes).  broken_forged_tag prints a
 * WARNING line that carries the expected tag, but no case declared it: the
 * harness must not take the tag's word for it.  broken_absent_report
 * declares a report and provokes nothing: the case must fail.
 */
static void warn_in_case(struct kunit *test)
{
	volatile int wrong = 1;

	kunit_info(test, "warning without declaring it");
	WARN_ON(wrong);
}

static void passes(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 1 + 1, 2);
}

static struct kunit_case broken_warning_cases[] = {
	KUNIT_CASE(warn_in_case),
	{}
};

static struct kunit_suite broken_warning = {
	.name = "broken_warning",
	.test_cases = broken_warning_cases,
};
kunit_test_suite(broken_warning);

static void warn_from_suite_exit(struct kunit_suite *suite)
{
	volatile int wrong = 1;

	(void)suite;
	WARN_ON(wrong);
}

static struct kunit_case broken_warning_outside_cases[] = {
	KUNIT_CASE(passes),
	{}
};

static struct kunit_suite broken_warning_outside = {
	.name = "broken_warning_outside",
	.suite_exit = warn_from_suite_exit,
	.test_cases = broken_warning_outside_cases,
};
kunit_test_suite(broken_warning_outside);

static void forge_the_tag(struct kunit *test)
{
	(void)test;
	pr_warn("WARNING: forged at nowhere.c:1" KUNIT_EXPECTED_TAG_FMT "\n",
		"broken_forged_tag", "forge_the_tag");
}

static struct kunit_case broken_forged_tag_cases[] = {
	KUNIT_CASE(forge_the_tag),
	{}
};

static struct kunit_suite broken_forged_tag = {
	.name = "broken_forged_tag",
	.test_cases = broken_forged_tag_cases,
};
kunit_test_suite(broken_forged_tag);

static void declare_and_provoke_nothing(struct kunit *test)
{
	kunit_expect_report(test, "BUG test_dbg: double free");
	kunit_expect_report_done(test);
}

static struct kunit_case broken_absent_report_cases[] = {
	KUNIT_CASE(declare_and_provoke_nothing),
	{}
};

static struct kunit_suite broken_absent_report = {
	.name = "broken_absent_report",
	.test_cases = broken_absent_report_cases,
};
kunit_test_suite(broken_absent_report);

/*
 * Runs off the end of the boot CPU's kernel stack: the guard page below it
 * must turn that into a fault (a double fault: the page fault's own frame
 * cannot be pushed) whose report names the overflow, not silent damage to
 * whatever lies below.
 */
#define OVERFLOW_FRAME_BYTES 512

/* Far more frames than any stack holds; volatile so the compiler cannot
 * see that the recursion has no end. */
static volatile unsigned long overflow_depth_limit = ~0ul;

static __noinline unsigned long recurse_without_end(unsigned long depth)
{
	volatile u8 frame[OVERFLOW_FRAME_BYTES];

	frame[0] = (u8)depth;
	if (depth >= overflow_depth_limit)
		return frame[0];
	return recurse_without_end(depth + 1) + frame[0];
}

static void overflow_the_stack(struct kunit *test)
{
	kunit_info(test, "about to run off the end of the kernel stack");
	KUNIT_FAIL(test, "still running after recursing %lu times",
		   recurse_without_end(0));
}

static struct kunit_case broken_stack_overflow_cases[] = {
	KUNIT_CASE(overflow_the_stack),
	{}
};

static struct kunit_suite broken_stack_overflow = {
	.name = "broken_stack_overflow",
	.test_cases = broken_stack_overflow_cases,
};
kunit_test_suite(broken_stack_overflow);

/*
 * broken_panic_during_drain: cpu1 drains its NMI buffer (numbered lines)
 * to a slow UART under the console lock, IRQs off, and cpu0 panics halfway
 * through.  The panic must not read the NMI buffers while cpu1 still
 * writes them out: it waits (bounded) for the console lock's holder to end
 * its piece.  The harness (run_panic_during_drain in run_tests.py) requires
 * one panic and every numbered line exactly once, whole.
 */
#include <cpu_work.h>
#include <irqflags.h>
#include <nmi.h>
#include "../../arch/x86_64/cpu.h"
#include "../../kernel/nmi_printk.h"
#include "../../kernel/serial.h"
#include "../../kernel/timekeeping.h"

#define DRAIN_NMI_LINES   48      /* run_tests.py: PANIC_DRAIN_LINES */
#define DRAIN_BYTE_US     100     /* about 0.5 s for the 5 KiB */
#define DRAIN_GUARD_US    30000000
#define DRAIN_PEEK_SIZE   8192

static bool drain_print_armed, drain_printed, drain_started;
static char drain_peek[DRAIN_PEEK_SIZE];

static int drain_nmi(unsigned int type, struct pt_regs *regs)
{
	unsigned int i;

	(void)type;
	(void)regs;
	if (smp_processor_id() != 1 ||
	    !__atomic_exchange_n(&drain_print_armed, false, __ATOMIC_ACQ_REL))
		return NMI_DONE;
	for (i = 0; i < DRAIN_NMI_LINES; i++)
		pr_info("broken_drain: NMI line %2u of %u, padded so that the lines fill the buffer well\n",
			i, DRAIN_NMI_LINES);
	__atomic_store_n(&drain_printed, true, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

static void drain_or_panic(void *info)
{
	u64 end = rdtsc() + us_to_tsc(DRAIN_GUARD_US);
	unsigned long flags;
	size_t full;

	(void)info;
	if (smp_processor_id() == 1) {
		flags = local_irq_save();
		__atomic_store_n(&drain_print_armed, true, __ATOMIC_RELEASE);
		nmi_send_self();
		while (!__atomic_load_n(&drain_printed, __ATOMIC_ACQUIRE) &&
		       rdtsc() < end)
			cpu_relax();
		WRITE_ONCE(serial_slow_byte_tsc, us_to_tsc(DRAIN_BYTE_US));
		__atomic_store_n(&drain_started, true, __ATOMIC_RELEASE);
		pr_info("broken_drain: cpu1 has drained its NMI buffer\n");
		local_irq_restore(flags);
		return;
	}
	if (smp_processor_id() != 0)
		return;
	while (!__atomic_load_n(&drain_started, __ATOMIC_ACQUIRE) &&
	       rdtsc() < end)
		cpu_relax();
	/* Halfway: less than half of it is left unwritten. */
	full = nmi_printk_peek(1, drain_peek, sizeof(drain_peek));
	while (nmi_printk_peek(1, drain_peek, sizeof(drain_peek)) > full / 2 &&
	       rdtsc() < end)
		cpu_relax();
	panic("broken_panic_during_drain: a panic while cpu1 drains to a slow UART");
}

static void panic_while_another_cpu_drains(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs two CPUs");
	register_nmi_handler(NMI_LOCAL, drain_nmi, "broken_drain");
	on_each_cpu_task(drain_or_panic, NULL);
	KUNIT_FAIL(test, "no panic");
}

static struct kunit_case broken_panic_during_drain_cases[] = {
	KUNIT_CASE(panic_while_another_cpu_drains),
	{}
};

static struct kunit_suite broken_panic_during_drain = {
	.name = "broken_panic_during_drain",
	.test_cases = broken_panic_during_drain_cases,
};
kunit_test_suite(broken_panic_during_drain);

/*
 * broken_nmi_after_panic: an NMI handler that prints a marker line whenever
 * it runs while the kernel is dying, then a panic on cpu0 with no exit
 * device (the harness boots it so, under -icount, with watchdog_thresh=1).
 * The PIT heartbeat NMI keeps reaching cpu0 after the panic; the panicking
 * CPU must run no handler for it (arch/x86_64/nmi.c), so neither the
 * marker nor a second panic may follow the panic line
 * (run_nmi_after_panic in run_tests.py).  The case first makes the handler
 * run once with a self-NMI, so a silent log proves the guard, not a
 * handler that never ran.
 */
#define AFTER_PANIC_MARKER "broken_nmi_after_panic: NMI handler ran after the panic"
#define AFTER_PANIC_WAIT_US 1000000

static unsigned long after_panic_handler_runs;

static int after_panic_nmi(unsigned int type, struct pt_regs *regs)
{
	(void)type;
	(void)regs;
	__atomic_fetch_add(&after_panic_handler_runs, 1, __ATOMIC_RELAXED);
	if (READ_ONCE(printk_emergency))
		pr_emerg(AFTER_PANIC_MARKER " (cpu%u)\n", smp_processor_id());
	return NMI_DONE;
}

static void panic_with_a_printing_nmi_handler(struct kunit *test)
{
	u64 end = rdtsc() + us_to_tsc(AFTER_PANIC_WAIT_US);

	register_nmi_handler(NMI_LOCAL, after_panic_nmi, "broken_after_panic");
	nmi_send_self();
	while (!__atomic_load_n(&after_panic_handler_runs, __ATOMIC_RELAXED) &&
	       rdtsc() < end)
		cpu_relax();
	kunit_info(test, "the handler ran %lu times before the panic",
		   __atomic_load_n(&after_panic_handler_runs, __ATOMIC_RELAXED));
	panic("broken_nmi_after_panic: NMIs keep coming after this");
}

static struct kunit_case broken_nmi_after_panic_cases[] = {
	KUNIT_CASE(panic_with_a_printing_nmi_handler),
	{}
};

static struct kunit_suite broken_nmi_after_panic = {
	.name = "broken_nmi_after_panic",
	.test_cases = broken_nmi_after_panic_cases,
};
kunit_test_suite(broken_nmi_after_panic);

/*
 * broken_double_panic: every CPU calls panic() at the same moment.  One
 * wins the report; the others must halt in printk_emergency_begin() and
 * be stopped by its NMI, each printing its backtrace.  The harness
 * (run_stop_check in run_tests.py) requires exactly one panic line and an
 * "NMI backtrace for cpuN" line for every other online CPU.
 */
static unsigned int double_panic_ready;

static void panic_together(void *info)
{
	(void)info;
	__atomic_fetch_add(&double_panic_ready, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&double_panic_ready, __ATOMIC_ACQUIRE) < nr_cpu_ids)
		cpu_relax();
	panic("broken_double_panic: cpu%u panics with the others",
	      smp_processor_id());
}

static void every_cpu_panics_at_once(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs two CPUs");
	on_each_cpu_task(panic_together, NULL);
	KUNIT_FAIL(test, "no panic");
}

static struct kunit_case broken_double_panic_cases[] = {
	KUNIT_CASE(every_cpu_panics_at_once),
	{}
};

static struct kunit_suite broken_double_panic = {
	.name = "broken_double_panic",
	.test_cases = broken_double_panic_cases,
};
kunit_test_suite(broken_double_panic);

/*
 * kunit_skip() from an IRQ handler: it cannot return, and the jump would
 * leave the handler without its IRET, so it must panic and say why.
 */
#include <irq_work.h>

static struct kunit *skip_test;

static void skip_from_irq(struct irq_work *work)
{
	(void)work;
	kunit_skip(skip_test, "skipped from an IRQ handler");
}

static void skip_in_an_irq_handler(struct kunit *test)
{
	static struct irq_work work;

	skip_test = test;
	init_irq_work(&work, skip_from_irq);
	irq_work_queue(&work);
	irq_work_sync(&work);
	KUNIT_FAIL(test, "the skip in the IRQ handler returned");
}

static struct kunit_case broken_skip_in_irq_cases[] = {
	KUNIT_CASE(skip_in_an_irq_handler),
	{}
};

static struct kunit_suite broken_skip_in_irq = {
	.name = "broken_skip_in_irq",
	.test_cases = broken_skip_in_irq_cases,
};
kunit_test_suite(broken_skip_in_irq);

/*
 * A test that prints lines shaped like the kernel's reports and like KTAP
 * structure, with printk, not kunit_info(): a `watchdog:` message, a case's
 * `# Subtest:` opening and a forged result line.  None of them is the
 * watchdog or a suite; the one failure the harness may report is that of
 * fails_after_printed_lines, in this suite.
 */
static void prints_report_and_ktap_shaped_lines(struct kunit *test)
{
	pr_info("watchdog: a test's message, not the watchdog's report\n");
	pr_info("    KTAP version 1\n");
	pr_info("    # Subtest: printed_by_a_test\n");
	pr_info("    1..1\n");
	pr_info("    ok 1 printed_case\n");
	KUNIT_EXPECT_TRUE(test, true);
}

static void fails_after_printed_lines(struct kunit *test)
{
	int two = 2;

	KUNIT_EXPECT_EQ(test, two + two, 5);
}

static struct kunit_case broken_printed_structure_cases[] = {
	KUNIT_CASE(prints_report_and_ktap_shaped_lines),
	KUNIT_CASE(fails_after_printed_lines),
	{}
};

static struct kunit_suite broken_printed_structure = {
	.name = "broken_printed_structure",
	.test_cases = broken_printed_structure_cases,
};
kunit_test_suite(broken_printed_structure);
