/*
 * console_test.c - the console on a slow UART: no false hard lockup.
 *
 * QEMU's UART takes every byte at once, so the console is never slow in
 * the tests.  A real 16550 at 115200 baud takes about 87 us a byte: one
 * full 8 KiB NMI printk buffer is 0.7 s, all of them much longer, and the
 * printk that drains them holds the console lock with IRQs off.  Suite
 * console_slow_uart turns on serial.c's slow-line knob
 * (serial_slow_byte_tsc) so that draining what one NMI printed lasts
 * DRAIN_PERCENT % of a lowered watchdog threshold, and checks that
 * the watchdog reports no hard lockup (a report would panic the run):
 *
 *   - the CPU that drains, with IRQs off (its caller's), keeps showing
 *     progress: each byte the UART takes touches its watchdog;
 *   - a CPU that waits for the console lock with IRQs off meanwhile gets
 *     it within a bounded piece of the drain: the drain gives the lock up
 *     between pieces.
 *
 * The per-byte delay is computed from the bytes buffered and the
 * threshold, both in TSC time, so the drain outlasts the threshold
 * however fast the host is.  The NMI prints only NMI_LINES short lines
 * (a learner reads this log), so each case also lowers the drain's piece
 * (console_drain_piece) to one line: the pieces stay many, each under a
 * tenth of the threshold, as the real 256-byte pieces are a small part of
 * the real threshold.  The rest of the threshold is the margin for a host
 * that deschedules a virtual CPU (its TSC runs on meanwhile).  Each case
 * restores the knobs and the threshold.
 */
#include <cpu_work.h>
#include <irqflags.h>
#include <kernel.h>
#include <kunit.h>
#include <nmi.h>
#include <printk.h>
#include <smp.h>
#include <string.h>
#include <watchdog.h>
#include "../../arch/x86_64/cpu.h"
#include "../../kernel/nmi_printk.h"
#include "../../kernel/serial.h"
#include "../../kernel/timekeeping.h"

#define TEST_THRESH_S    1
#define DRAIN_PERCENT    150      /* the drain lasts 1.5 thresholds */
#define NMI_LINES        16       /* pieces: each 1.5 / 16 threshold */
#define ONE_LINE_PIECE   1        /* a piece ends with the line that reaches it */
#define WAIT_GUARD_US    30000000 /* hang guard, not a measurement */
#define PEEK_SIZE        8192

static bool print_armed[NR_CPUS];
static bool printed[NR_CPUS];
static char peek_buf[PEEK_SIZE];

static int console_test_nmi(unsigned int type, struct pt_regs *regs)
{
	unsigned int me = smp_processor_id(), i;

	(void)type;
	(void)regs;
	if (!__atomic_load_n(&print_armed[me], __ATOMIC_ACQUIRE))
		return NMI_DONE;
	WRITE_ONCE(print_armed[me], false);
	for (i = 0; i < NMI_LINES; i++)
		pr_info("console_test: NMI line %u of %u for the slow UART\n",
			i + 1, NMI_LINES);
	__atomic_store_n(&printed[me], true, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

static int console_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return register_nmi_handler(NMI_LOCAL, console_test_nmi, "console_test");
}

static void console_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	unregister_nmi_handler(NMI_LOCAL, "console_test");
}

/* IRQs off (the caller's): fill this CPU's NMI buffer from an NMI, then
 * make the UART slow enough that draining it lasts DRAIN_PERCENT % of a
 * threshold.  Returns the bytes buffered (0 if the NMI never came). */
static size_t fill_and_slow_down(void)
{
	unsigned int me = smp_processor_id();
	u64 end = rdtsc() + us_to_tsc(WAIT_GUARD_US);
	size_t bytes;

	__atomic_store_n(&printed[me], false, __ATOMIC_RELAXED);
	__atomic_store_n(&print_armed[me], true, __ATOMIC_RELEASE);
	nmi_send_self();
	while (!__atomic_load_n(&printed[me], __ATOMIC_ACQUIRE)) {
		if (rdtsc() > end)
			return 0;
		cpu_relax();
	}
	bytes = nmi_printk_peek(me, peek_buf, sizeof(peek_buf));
	if (bytes)
		WRITE_ONCE(serial_slow_byte_tsc,
			   us_to_tsc((u64)DRAIN_PERCENT * TEST_THRESH_S *
				     (1000000 / 100) / bytes));
	return bytes;
}

static void drain_with_irqs_off_on_a_slow_uart(struct kunit *test)
{
	unsigned int old = watchdog_set_thresh(TEST_THRESH_S);
	size_t old_piece = console_drain_piece;
	unsigned long flags;
	size_t bytes;

	WRITE_ONCE(console_drain_piece, ONE_LINE_PIECE);
	flags = local_irq_save();
	printk_flush_nmi();
	bytes = fill_and_slow_down();
	/* This printk drains the buffer first, IRQs off all along. */
	pr_info("console_test: draining %lu bytes at %lu us a byte, IRQs off\n",
		(unsigned long)bytes,
		(unsigned long)tsc_to_us(READ_ONCE(serial_slow_byte_tsc)));
	WRITE_ONCE(serial_slow_byte_tsc, 0);
	local_irq_restore(flags);
	WRITE_ONCE(console_drain_piece, old_piece);
	watchdog_set_thresh(old);
	KUNIT_ASSERT_GT(test, bytes, 0);
	nmi_printk_peek(smp_processor_id(), peek_buf, sizeof(peek_buf));
	KUNIT_EXPECT_EQ(test, peek_buf[0], '\0');   /* all of it went out */
}

/* Two CPUs: the first fills its buffer and drains it, IRQs off; the
 * second, IRQs off too, prints a line meanwhile and so waits for the
 * console lock. */
static unsigned int drainer_cpu, waiter_cpu;
static bool drain_started;
static size_t drained_bytes;
static bool waiter_printed;

static void drainer_and_waiter(void *info)
{
	unsigned int me = smp_processor_id();
	u64 end = rdtsc() + us_to_tsc(WAIT_GUARD_US);
	unsigned long flags;

	(void)info;
	if (me != drainer_cpu && me != waiter_cpu)
		return;
	flags = local_irq_save();
	if (me == drainer_cpu) {
		drained_bytes = fill_and_slow_down();
		__atomic_store_n(&drain_started, true, __ATOMIC_RELEASE);
		pr_info("console_test: cpu%u drains %lu bytes, IRQs off\n", me,
			(unsigned long)drained_bytes);
	} else {
		while (!__atomic_load_n(&drain_started, __ATOMIC_ACQUIRE) &&
		       rdtsc() < end)
			cpu_relax();
		pr_info("console_test: cpu%u waited for the console, IRQs off\n",
			me);
		__atomic_store_n(&waiter_printed, true, __ATOMIC_RELEASE);
	}
	local_irq_restore(flags);
}

static void waiting_for_the_console_with_irqs_off(struct kunit *test)
{
	size_t old_piece = console_drain_piece;
	unsigned int old;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs two CPUs");
	drainer_cpu = nr_cpu_ids - 1;
	waiter_cpu = 0;
	drain_started = false;
	waiter_printed = false;
	drained_bytes = 0;
	printk_flush_nmi();
	old = watchdog_set_thresh(TEST_THRESH_S);
	WRITE_ONCE(console_drain_piece, ONE_LINE_PIECE);
	on_each_cpu_task(drainer_and_waiter, NULL);
	WRITE_ONCE(serial_slow_byte_tsc, 0);
	WRITE_ONCE(console_drain_piece, old_piece);
	watchdog_set_thresh(old);
	KUNIT_EXPECT_GT(test, drained_bytes, 0);
	KUNIT_EXPECT_TRUE(test, waiter_printed);
	nmi_printk_peek(drainer_cpu, peek_buf, sizeof(peek_buf));
	KUNIT_EXPECT_EQ(test, peek_buf[0], '\0');
}

static struct kunit_case console_slow_uart_cases[] = {
	KUNIT_CASE(drain_with_irqs_off_on_a_slow_uart),
	KUNIT_CASE(waiting_for_the_console_with_irqs_off),
	{}
};

static struct kunit_suite console_slow_uart_suite = {
	.name = "console_slow_uart",
	.suite_init = console_suite_init,
	.suite_exit = console_suite_exit,
	.test_cases = console_slow_uart_cases,
};
kunit_test_suite(console_slow_uart_suite);
