/*
 * irq_work.h - run a function in IRQ context on this CPU, soon.
 *
 * For code that cannot do something where it is (an NMI handler that must
 * free memory, a path holding a lock): fill a struct irq_work once with
 * init_irq_work(), then irq_work_queue() it from any context, NMI
 * included.  The work goes on this CPU's lock-free list (llist.h) and a
 * self-IPI on IRQ_WORK_VECTOR is sent; the IPI is delivered as soon as the
 * interrupted code has IRQs enabled again, and runs every queued work's
 * function in IRQ context, on this CPU, in queueing order.
 *
 * A work is queued at most once at a time: irq_work_queue() returns false
 * if it is already pending (the pending run will see the new state).  The
 * flag is cleared just before the function runs, so the function may queue
 * its own work again.  irq_work_sync() waits until it is not running.
 */
#ifndef IRQ_WORK_H
#define IRQ_WORK_H

#include <llist.h>

#define IRQ_WORK_PENDING (1u << 0)
#define IRQ_WORK_BUSY    (1u << 1)   /* queued or running */

struct irq_work {
	struct llist_node llnode;
	unsigned int flags;
	void (*func)(struct irq_work *work);
};

static inline void init_irq_work(struct irq_work *work,
				 void (*func)(struct irq_work *))
{
	work->llnode.next = NULL;
	work->flags = 0;
	work->func = func;
}

bool irq_work_queue(struct irq_work *work);   /* any context */
void irq_work_run(void);                       /* IRQ context: run this CPU's */
void irq_work_sync(struct irq_work *work);     /* normal context */
bool irq_work_is_pending(const struct irq_work *work);

/* The platform's hook (kernel/irq_work.c): have this CPU call
 * irq_work_run() soon, in IRQ context.  Any context, NMI included. */
void arch_irq_work_raise(void);

#endif
