/*
 * Host shadow of include/irqflags.h: "interrupts" are a per-thread flag, so
 * code under test can save and restore them and assert on irqs_disabled().
 */
#ifndef IRQFLAGS_H
#define IRQFLAGS_H

#include <types.h>

#define RFLAGS_IF (1ul << 9)

extern __thread unsigned long host_irq_flags;

static inline unsigned long local_irq_save(void)
{
	unsigned long f = host_irq_flags;

	host_irq_flags &= ~RFLAGS_IF;
	return f;
}

static inline void local_irq_restore(unsigned long flags)
{
	host_irq_flags = flags;
}

static inline void local_irq_disable(void) { host_irq_flags &= ~RFLAGS_IF; }
static inline void local_irq_enable(void) { host_irq_flags |= RFLAGS_IF; }
static inline bool irqs_disabled(void) { return !(host_irq_flags & RFLAGS_IF); }

#endif /* IRQFLAGS_H */
