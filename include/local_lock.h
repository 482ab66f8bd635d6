/*
 * local_lock.h - locks for data that only its own CPU touches.
 *
 * Per-CPU data (a CPU's sheaves, its page list) is never touched by another
 * CPU, so it needs no atomic instruction to protect it: only interrupts and
 * NMIs on the same CPU can get in the way.  A local lock therefore is just
 * "IRQs off" plus an `acquired` flag that the holder sets.  The flag is what
 * makes it safe against NMIs, which IRQs-off does not stop: an NMI handler
 * that lands inside the critical section finds the flag set, so its
 * local_trylock() fails instead of corrupting the data under our feet.
 *
 * The plain local_trylock()/local_unlock() pair does not touch the
 * interrupt flag at all.  That is enough for a critical section that only
 * ever *tries*: an interrupt or NMI landing inside sees the flag and backs
 * off, and one landing between the check and the store of the flag runs
 * to completion (taking and dropping the lock itself) before we store, so
 * it cannot see a half-taken lock.  There is no preemption and no
 * migration in this kernel, which is what makes this safe.  The sheaf fast
 * paths once used it (it saves the PUSHF/CLI/POPF of the irqsave forms);
 * they are restartable sequences now (include/rseq.h), and the sheaf lock
 * is only ever held with IRQs off (the task-context pop of
 * mm/slab_internal.h relies on it and reads no flag; the interleaving
 * tests check it at every point).  The price where it is held with IRQs
 * on: every IRQ handler that takes the same lock must be able to back
 * off too (the sheaf flush IPI answers "busy" and is sent again:
 * mm/sheaf.c).
 *
 * Rules:
 *   - local_lock_irqsave(): normal or IRQ context only.  It asserts the lock
 *     is free (taking it twice on one CPU is a bug, never a wait).
 *   - local_trylock_irqsave(): any context, NMI included; false means the
 *     interrupted code holds it: back off or take another path.
 *   - Always unlock with the same CPU's lock (there is no migration here).
 */
#ifndef LOCAL_LOCK_H
#define LOCAL_LOCK_H

#include <compiler.h>
#include <irqflags.h>
#include <kernel.h>

typedef struct {
	u8 acquired;
} local_trylock_t;

typedef local_trylock_t local_lock_t;

#define INIT_LOCAL_TRYLOCK { .acquired = 0 }

static inline void local_lock_init(local_trylock_t *l)
{
	l->acquired = 0;
}

static inline void __local_lock_acquire(local_trylock_t *l)
{
	if (unlikely(READ_ONCE(l->acquired)))
		panic("local_lock: already held on this CPU (recursion)");
	WRITE_ONCE(l->acquired, 1);
	barrier(); /* the flag is set before any protected access */
}

static inline void __local_lock_release(local_trylock_t *l)
{
	barrier(); /* every protected access is done before the flag clears */
	WRITE_ONCE(l->acquired, 0);
}

#define local_lock_irqsave(lock, flags)                                       \
	do {                                                                  \
		(flags) = local_irq_save();                                   \
		__local_lock_acquire(lock);                                   \
	} while (0)

#define local_unlock_irqrestore(lock, flags)                                  \
	do {                                                                  \
		__local_lock_release(lock);                                   \
		local_irq_restore(flags);                                     \
	} while (0)

/* True with the lock held and IRQs off; false with IRQs as they were. */
static inline bool __local_trylock_irqsave(local_trylock_t *l,
					   unsigned long *flags)
{
	*flags = local_irq_save();
	if (READ_ONCE(l->acquired)) {
		local_irq_restore(*flags);
		return false;
	}
	WRITE_ONCE(l->acquired, 1);
	barrier();
	return true;
}

#define local_trylock_irqsave(lock, flags) __local_trylock_irqsave(lock, &(flags))

/* Try without changing IRQs; see the head comment for why that is safe. */
static __always_inline bool local_trylock(local_trylock_t *l)
{
	if (READ_ONCE(l->acquired))
		return false;
	WRITE_ONCE(l->acquired, 1);
	barrier();
	return true;
}

static __always_inline void local_unlock(local_trylock_t *l)
{
	__local_lock_release(l);
}

static inline bool local_lock_is_locked(const local_trylock_t *l)
{
	return READ_ONCE(l->acquired) != 0;
}

#endif /* LOCAL_LOCK_H */
