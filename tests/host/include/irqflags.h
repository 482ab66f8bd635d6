/*
 * Host shadow of include/irqflags.h: "interrupts" are a per-thread flag, so
 * code under test can save and restore them and assert on irqs_disabled().
 * The threaded stress (tests/host/stress/) delivers "IRQs" as signals that
 * look at this flag, so, like the kernel's CLI/STI (asm volatile with a
 * "memory" clobber), each change is a compiler barrier: no access to data
 * the flag protects moves across it.
 */
#ifndef IRQFLAGS_H
#define IRQFLAGS_H

#include <types.h>

#define RFLAGS_IF (1ul << 9)

extern __thread unsigned long host_irq_flags;

#define host_irq_barrier() __asm__ __volatile__("" ::: "memory")

static inline unsigned long local_irq_save(void)
{
	unsigned long f = host_irq_flags;

	host_irq_flags &= ~RFLAGS_IF;
	host_irq_barrier();
	return f;
}

static inline void local_irq_restore(unsigned long flags)
{
	host_irq_barrier();
	host_irq_flags = flags;
}

static inline void local_irq_disable(void)
{
	host_irq_flags &= ~RFLAGS_IF;
	host_irq_barrier();
}

static inline void local_irq_enable(void)
{
	host_irq_barrier();
	host_irq_flags |= RFLAGS_IF;
}

static inline bool irqs_disabled(void) { return !(host_irq_flags & RFLAGS_IF); }

#endif /* IRQFLAGS_H */
