/*
 * panic.c - the end of the road: say why, where, and stop.
 *
 * The first CPU to panic (or to die in an exception) wins `panic_cpu` and
 * prints its report without taking the console lock, since the CPU that
 * holds it may be the one that is stuck (in NMI context too: printk checks
 * printk_emergency_owner()).  It names the test that was running, stops
 * the other CPUs with an NMI once SMP is up (smp_stop_other_cpus_hook,
 * arch/x86_64/nmi.c), each of which prints its registers and backtrace,
 * and exits QEMU with the panic status.  A second CPU that arrives here
 * while the first is reporting halts; the stop NMI still reaches it.
 *
 * Where nothing can end the machine (no QEMU exit device, as on real
 * hardware) the panicking CPU halts with NMIs open.  So a panic first
 * stops the hard-lockup watchdog, and from then on every NMI that reaches
 * the panicking CPU does nothing (arch/x86_64/nmi.c checks
 * printk_emergency_owner()), as Linux's panic_cpu makes later NMIs do:
 * otherwise the PIT heartbeat NMI would find no timer tick and report a
 * second, spurious "hard LOCKUP" panic seconds after the real one.
 */
#include <kernel.h>
#include <kunit.h>
#include <printk.h>
#include <smp.h>
#include <irqflags.h>
#include <watchdog.h>
#include "backtrace.h"
#include "nmi_printk.h"
#include "../arch/x86_64/cpu.h"
#include "../arch/x86_64/qemu.h"

#define PANIC_CPU_NONE (-1)

static int panic_cpu = PANIC_CPU_NONE;
unsigned long warn_count;

/* Set by SMP code: stop all other CPUs now (NMI), never wait long. */
void (*smp_stop_other_cpus_hook)(void);

bool printk_emergency_owner(void)
{
	return READ_ONCE(panic_cpu) == (int)smp_processor_id();
}

void printk_emergency_begin(void)
{
	int me = (int)smp_processor_id();
	int expected = PANIC_CPU_NONE;

	local_irq_disable();
	if (!__atomic_compare_exchange_n(&panic_cpu, &expected, me, false,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) &&
	    expected != me)
		cpu_halt_forever(); /* another CPU is reporting; its stop NMI
				     * will still make this one print its state */
	if (!printk_emergency) {
		WRITE_ONCE(printk_emergency, true);
		console_emergency_wait();  /* a draining CPU ends its piece */
		nmi_printk_flush_locked(NMI_PRINTK_FLUSH_ALL);  /* what NMIs printed before */
	}
}

/* Once: NMI every other CPU, which prints its registers and backtrace
 * into its NMI buffer and halts; then print those buffers. */
static void stop_other_cpus_once(void)
{
	static bool stopped;

	if (!stopped && smp_stop_other_cpus_hook) {
		stopped = true;
		smp_stop_other_cpus_hook();
	}
	nmi_printk_flush_locked(NMI_PRINTK_FLUSH_ALL);
}

void panic(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	printk_emergency_begin();
	WRITE_ONCE(watchdog_enabled, false);   /* nothing ticks from here on */
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	pr_emerg("Kernel panic - not syncing: %s\n", buf);
	if (kunit_current_test)
		pr_emerg("while running test %s.%s\n",
			 kunit_current_suite ? kunit_current_suite->name : "?",
			 kunit_current_test->name);
	stop_other_cpus_once();
	pr_emerg("backtrace of cpu%u, the panicking CPU:\n", smp_processor_id());
	dump_backtrace(_THIS_IP_, (unsigned long)__builtin_frame_address(0));
	pr_emerg("---[ end Kernel panic - not syncing: %s ]---\n", buf);
	qemu_exit(QEMU_EXIT_PANIC);
}

/* Weak: an image without a WARN_ON_ONCE() has no such section. */
extern bool __start_data_once[] __attribute__((weak));
extern bool __stop_data_once[] __attribute__((weak));

void clear_warn_once(void)
{
	bool *flag;

	for (flag = __start_data_once; flag < __stop_data_once; flag++)
		WRITE_ONCE(*flag, false);
}

void __warn(const char *file, int line, const char *cond, unsigned long caller)
{
	warn_count++;
	kunit_print_report(LOGLEVEL_WARNING, "WARNING: %s at %s:%d", cond, file,
			   line);
	(void)caller;
	dump_backtrace(_THIS_IP_, (unsigned long)__builtin_frame_address(0));
}
