/*
 * watchdog.h - the hard-lockup detector.
 *
 * A CPU that makes no progress (its periodic timer interrupt has not run
 * for watchdog_thresh seconds: it is spinning with IRQs off, or dead) is
 * reported: its registers and backtrace through an NMI, then every other
 * CPU's, then a panic that fails the test run.  See kernel/watchdog.c.
 */
#ifndef WATCHDOG_H
#define WATCHDOG_H

#include <types.h>

struct pt_regs;

#define WATCHDOG_THRESH_DEFAULT 4     /* seconds (watchdog_thresh=) */

void watchdog_init(void);                     /* boot CPU, after SMP */
void watchdog_timer_tick(void);               /* every CPU's timer IRQ */
void watchdog_nmi_heartbeat(struct pt_regs *regs); /* NMI, cpu0 */
/* "This CPU makes progress" though its IRQs are off (Linux's name): the
 * UART driver calls it for every byte it got out (kernel/serial.c). */
void touch_nmi_watchdog(void);
void watchdog_touch_all(void);  /* "everybody is fine now" (long tests) */
/* Tests: change the threshold (every CPU touched first); returns the old. */
unsigned int watchdog_set_thresh(unsigned int seconds);
/*
 * Change the rate of the PIT heartbeat NMI to cpu0 (0: back to the
 * default).  The NMI storm raises it so that, even with one CPU, NMIs land
 * at arbitrary instructions, inside the allocator's critical sections
 * too.  False when there is no heartbeat (no I/O APIC).
 */
bool watchdog_set_heartbeat_hz(unsigned int hz);
extern bool watchdog_enabled;
extern unsigned int watchdog_thresh;          /* seconds */

#endif
