/*
 * irqflags.h - turning maskable interrupts off and back on.
 *
 * local_irq_save() returns the old RFLAGS and clears IF; restore puts IF
 * back only if it was set, so save/restore pairs nest.  NMIs are not masked
 * by any of this: that is the whole difficulty this kernel is about.
 *
 * The host build of mm/ shadows this header (tests/host/include/) with
 * versions that only keep a per-thread flag.
 */
#ifndef IRQFLAGS_H
#define IRQFLAGS_H

#include <types.h>
#include "../arch/x86_64/cpu.h"

static inline unsigned long local_irq_save(void)
{
	unsigned long flags = read_rflags();

	__asm__ __volatile__("cli" ::: "memory");
	return flags;
}

static inline void local_irq_restore(unsigned long flags)
{
	if (flags & RFLAGS_IF)
		__asm__ __volatile__("sti" ::: "memory");
}

static inline void local_irq_disable(void)
{
	__asm__ __volatile__("cli" ::: "memory");
}

static inline void local_irq_enable(void)
{
	__asm__ __volatile__("sti" ::: "memory");
}

static inline bool irqs_disabled(void)
{
	return !(read_rflags() & RFLAGS_IF);
}

#endif /* IRQFLAGS_H */
