/*
 * watchdog.c - the hard-lockup detector.
 *
 * Progress: every CPU's periodic APIC timer interrupt stamps
 * last_tick_tsc[cpu].  A CPU whose stamp is older than watchdog_thresh
 * seconds has had IRQs off (or been dead) that long: a hard lockup.
 *
 * Who looks: two watchers, so that neither a lone CPU nor a stuck BSP goes
 * unseen.
 *   - Every CPU's timer tick checks every CPU.  A stuck CPU is thus seen by
 *     any CPU that still takes interrupts.
 *   - The PIT (ISA IRQ 0, through the MADT's interrupt source override,
 *     usually to I/O APIC pin 2) is programmed with delivery mode NMI to the
 *     BSP, at about PIT_HEARTBEAT_HZ.  This NMI heartbeat arrives even when
 *     the BSP spins with IRQs off, which covers the one-CPU case (QEMU has
 *     no performance-counter NMIs, the usual heartbeat on real machines).
 *
 * The report (once: watchdog_fired): claim the console, print
 *     watchdog: hard LOCKUP on cpuN: ...
 * (the test harness keys on that line), the stuck CPU's registers and
 * backtrace if the heartbeat NMI interrupted it, then panic(), which NMIs
 * every other CPU so that each prints its registers and backtrace (the
 * stuck one included), and fails the run.
 *
 * Progress without a tick: touch_nmi_watchdog() stamps this CPU too; the
 * UART driver calls it for every byte it sends, so a long printk with IRQs
 * off on a slow line is not a lockup.
 *
 * Configuration: watchdog_thresh=<seconds> (default 4), nowatchdog.
 * Context: the tick runs in IRQ context, the heartbeat in NMI context; the
 * check takes no lock and writes only watchdog_fired (atomically).
 */
#include <kernel.h>
#include <printk.h>
#include <smp.h>
#include <watchdog.h>
#include "params.h"
#include "backtrace.h"
#include "timekeeping.h"
#include "../arch/x86_64/apic.h"
#include "../arch/x86_64/interrupts.h"

#define PIT_HEARTBEAT_HZ        20
#define ISA_IRQ_PIT             0

bool watchdog_enabled;
unsigned int watchdog_thresh = WATCHDOG_THRESH_DEFAULT;
static u64 thresh_tsc;
static bool watchdog_fired;
static bool heartbeat_routed;
static DEFINE_PER_CPU(u64, last_tick_tsc);

void watchdog_touch_all(void)
{
	u64 now = rdtsc();
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		WRITE_ONCE(per_cpu(last_tick_tsc, cpu), now);
}

void touch_nmi_watchdog(void)
{
	WRITE_ONCE(per_cpu(last_tick_tsc, smp_processor_id()), rdtsc());
}

unsigned int watchdog_set_thresh(unsigned int seconds)
{
	unsigned int old = watchdog_thresh;

	watchdog_touch_all();
	WRITE_ONCE(watchdog_thresh, seconds);
	WRITE_ONCE(thresh_tsc, us_to_tsc((u64)seconds * USEC_PER_SEC));
	return old;
}

static void __noreturn hard_lockup(unsigned int cpu, u64 age_tsc,
				   struct pt_regs *regs)
{
	printk_emergency_begin();
	pr_emerg("watchdog: hard LOCKUP on cpu%u: no timer interrupt for %lu ms (threshold %u s)\n",
		 cpu, (unsigned long)(tsc_to_us(age_tsc) / 1000), watchdog_thresh);
	if (regs && cpu == smp_processor_id()) {
		pr_emerg("cpu%u when the watchdog NMI hit it:\n", cpu);
		show_regs(regs);
		dump_backtrace(regs->rip, regs->rbp);
	}
	panic("watchdog: hard lockup on cpu%u", cpu);
}

static void watchdog_check(struct pt_regs *regs)
{
	unsigned int cpu;

	if (!READ_ONCE(watchdog_enabled) || READ_ONCE(watchdog_fired))
		return;
	for_each_online_cpu(cpu) {
		u64 last = READ_ONCE(per_cpu(last_tick_tsc, cpu));
		u64 now = rdtsc();  /* after `last`: never older than it */

		if (!READ_ONCE(percpu_areas[cpu].online) || now < last ||
		    now - last < READ_ONCE(thresh_tsc))
			continue;
		if (__atomic_exchange_n(&watchdog_fired, true, __ATOMIC_ACQ_REL))
			return;
		hard_lockup(cpu, now - last, regs);
	}
}

void watchdog_timer_tick(void)
{
	WRITE_ONCE(per_cpu(last_tick_tsc, smp_processor_id()), rdtsc());
	watchdog_check(NULL);
}

void watchdog_nmi_heartbeat(struct pt_regs *regs)
{
	if (heartbeat_routed)
		watchdog_check(regs);
}

bool watchdog_set_heartbeat_hz(unsigned int hz)
{
	if (!heartbeat_routed)
		return false;
	pit_start_periodic(hz ? hz : PIT_HEARTBEAT_HZ);
	return true;
}

void watchdog_init(void)
{
	if (param_flag(PARAM_NOWATCHDOG)) {
		pr_info("watchdog: off (nowatchdog)\n");
		return;
	}
	watchdog_thresh = (unsigned int)param_number(PARAM_WATCHDOG_THRESH);
	thresh_tsc = us_to_tsc((u64)watchdog_thresh * USEC_PER_SEC);
	watchdog_touch_all();
	heartbeat_routed = ioapic_route_isa_irq_as_nmi(ISA_IRQ_PIT,
						       percpu_areas[0].apic_id);
	if (heartbeat_routed)
		pit_start_periodic(PIT_HEARTBEAT_HZ);
	WRITE_ONCE(watchdog_enabled, true);
	pr_info("NMI watchdog: threshold %u s, checked by every timer tick%s\n",
		watchdog_thresh, heartbeat_routed ?
		" and by a PIT heartbeat NMI to cpu0 (I/O APIC)" :
		"; no I/O APIC for an NMI heartbeat, so a lone CPU is not watched");
}
