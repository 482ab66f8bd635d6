/*
 * nmi.h - sending and handling non-maskable interrupts.
 *
 * An NMI (vector 2) arrives even with IRQs off, at any instruction, on its
 * own IST stack.  The CPU blocks further NMIs until the handler's IRETQ, so
 * NMIs do not nest; one more that arrives meanwhile is latched and runs
 * right after, any others are merged into it.  So an NMI is a doorbell,
 * not a message: a sender that needs something done puts the request in
 * memory first, then rings (see the tests in tests/kernel/nmi_test.c).
 *
 * What an NMI handler may do:
 *   - read and write per-CPU data, atomics, lock-free lists (llist.h);
 *   - spin_trylock() / local_trylock_irqsave(), coping with failure;
 *   - printk() (it goes to this CPU's NMI buffer, printed later, whole);
 *   - irq_work_queue() to have the rest done in IRQ context soon after;
 *   - send IPIs and NMIs (apic_send_ipi is NMI-safe).
 * What it must NOT do:
 *   - spin_lock() and friends: the interrupted code on this CPU may hold
 *     the lock and can never release it while we spin.  spin_lock() checks
 *     in_nmi() and panics, naming the lock;
 *   - wait for another CPU that may itself be waiting for this one;
 *   - call smp_call_function_*() or anything that sleeps or waits.
 *
 * Handlers are registered with register_nmi_handler() and every one runs
 * on every NMI (an NMI does not say who sent it); each checks its own
 * request flags and returns NMI_HANDLED or NMI_DONE.
 */
#ifndef NMI_H
#define NMI_H

#include <types.h>

struct pt_regs;

#define NMI_LOCAL 0          /* the only type: NMIs sent to this CPU */
#define NMI_DONE    0        /* not mine */
#define NMI_HANDLED 1

#define NMI_MAX_HANDLERS 8

typedef int (*nmi_handler_t)(unsigned int type, struct pt_regs *regs);

/* Normal context only; the handler runs in NMI context on every CPU. */
int register_nmi_handler(unsigned int type, nmi_handler_t fn,
			 const char *name);
/* Returns once no CPU can still be running the handler (it waits for
 * handlers in progress on other CPUs, bounded; see arch/x86_64/nmi.c). */
void unregister_nmi_handler(unsigned int type, const char *name);

/* Any context, NMI included.  Delivery mode NMI through the ICR.
 * nmi_send() refuses (a WARNING, false) a CPU that is not online. */
bool nmi_send(unsigned int cpu);
void nmi_send_allbutself(void);
void nmi_send_self(void);

/* NMIs this CPU has taken since boot. */
unsigned long nmi_count(unsigned int cpu);

/* Stop every other CPU with an NMI; each prints its registers and
 * backtrace (through the NMI-safe printk buffers) first.  Waits at most
 * about a second.  Used by panic() and the watchdog. */
void nmi_stop_other_cpus(void);

void nmi_init(void);   /* boot CPU, once: installs the vector-2 handler */

#endif
