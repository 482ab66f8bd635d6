/*
 * irq_work.c - work queued from any context, run in IRQ context (irq_work.h).
 *
 * Each CPU has a lock-free list, raised_list.  irq_work_queue() claims the
 * work with one atomic OR of PENDING|BUSY (a work already pending is left
 * alone: it will run anyway), pushes it, and if the list was empty raises
 * this CPU's interrupt with the platform hook arch_irq_work_raise(): in
 * the kernel a self-IPI on IRQ_WORK_VECTOR (arch/x86_64/smpboot.c), whose
 * handler calls irq_work_run().  An NMI can do all of this: no lock, no
 * wait, and the self-IPI uses the self shorthand / the x2APIC SELF_IPI
 * register, which never disturb an ICR write the NMI interrupted.
 *
 * The IPI is a fixed interrupt, so if the interrupted code had IRQs off it
 * is delivered the moment they come back on: "soon after leaving a context
 * that could not do it".
 *
 * Portable C over llist.h and smp.h: the host build of mm/ links this same
 * file, and its arch_irq_work_raise() does nothing: there a test plays the
 * interrupt, calling irq_work_run() on the CPU it chooses when it chooses
 * (tests/host/host_support.c).
 */
#include <irq_work.h>
#include <irqflags.h>
#include <kernel.h>
#include <smp.h>

static DEFINE_PER_CPU(struct llist_head, raised_list);

bool irq_work_queue(struct irq_work *work)
{
	unsigned int old = __atomic_fetch_or(&work->flags,
					     IRQ_WORK_PENDING | IRQ_WORK_BUSY,
					     __ATOMIC_ACQ_REL);

	if (old & IRQ_WORK_PENDING)
		return false;
	if (llist_add(&work->llnode, this_cpu_ptr(raised_list)))
		arch_irq_work_raise();
	return true;
}

void irq_work_run(void)
{
	struct llist_node *oldest_first =
		llist_reverse_order(llist_del_all(this_cpu_ptr(raised_list)));
	unsigned int expected;

	while (oldest_first) {
		struct irq_work *work =
			llist_entry(oldest_first, struct irq_work, llnode);

		oldest_first = oldest_first->next;
		/* From here the work may be queued again, even by func. */
		__atomic_fetch_and(&work->flags, ~IRQ_WORK_PENDING,
				   __ATOMIC_ACQ_REL);
		work->func(work);
		/* Not busy any more, unless it was queued again meanwhile. */
		expected = IRQ_WORK_BUSY;
		__atomic_compare_exchange_n(&work->flags, &expected, 0, false,
					    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
	}
}

bool irq_work_is_pending(const struct irq_work *work)
{
	return __atomic_load_n(&work->flags, __ATOMIC_ACQUIRE) &
	       IRQ_WORK_PENDING;
}

void irq_work_sync(struct irq_work *work)
{
	WARN_ON_ONCE(irqs_disabled() || in_nmi());
	while (__atomic_load_n(&work->flags, __ATOMIC_ACQUIRE) & IRQ_WORK_BUSY)
		cpu_relax();
}
