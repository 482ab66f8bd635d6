/*
 * spinlock.h - ticket spinlocks that know who holds them.
 *
 * A ticket lock hands out numbers (`next`) and serves them in order
 * (`owner`), so waiting CPUs get the lock first come, first served.  Each
 * lock also records the CPU that holds it and a name, so:
 *   - taking a lock this CPU already holds is reported as a deadlock at once,
 *     naming the lock, instead of spinning forever;
 *   - lockdep_assert_held() can check a function's locking assumption;
 *   - spin_lock() refuses to run in NMI context: an NMI that spins on a lock
 *     held by the code it interrupted never gets it back.  NMI paths may only
 *     use spin_trylock() and must cope with failure.
 *
 * Use the _irqsave forms for any lock that an interrupt handler may also
 * take, or an interrupt could spin on its own CPU's lock.
 *
 * The file is portable C over atomics and the hooks in irqflags.h and smp.h,
 * so the host tests of mm/ use it as is.
 */
#ifndef SPINLOCK_H
#define SPINLOCK_H

#include <compiler.h>
#include <irqflags.h>
#include <smp.h>

#define SPINLOCK_NO_OWNER (-1)

typedef struct spinlock {
	u32 next;        /* next ticket to hand out */
	u32 owner;       /* ticket now being served */
	int owner_cpu;   /* SPINLOCK_NO_OWNER when free */
	const char *name;
} spinlock_t;

#define __SPIN_LOCK_UNLOCKED(lockname) \
	{ .next = 0, .owner = 0, .owner_cpu = SPINLOCK_NO_OWNER, \
	  .name = #lockname }
#define DEFINE_SPINLOCK(x) spinlock_t x = __SPIN_LOCK_UNLOCKED(x)

void spin_lock_init(spinlock_t *lock, const char *name);
void spin_lock(spinlock_t *lock);
bool spin_trylock(spinlock_t *lock);
void spin_unlock(spinlock_t *lock);
bool spin_is_locked(const spinlock_t *lock);
bool spin_is_held_by_me(const spinlock_t *lock);

#define spin_lock_irqsave(lock, flags)                                        \
	do {                                                                  \
		(flags) = local_irq_save();                                   \
		spin_lock(lock);                                              \
	} while (0)

#define spin_unlock_irqrestore(lock, flags)                                   \
	do {                                                                  \
		spin_unlock(lock);                                            \
		local_irq_restore(flags);                                     \
	} while (0)

/* Evaluates to true with the lock held and IRQs off, or false with the
 * interrupt flag as it was. */
#define spin_trylock_irqsave(lock, flags)                                     \
	({                                                                    \
		bool __ok;                                                    \
		(flags) = local_irq_save();                                   \
		__ok = spin_trylock(lock);                                    \
		if (!__ok)                                                    \
			local_irq_restore(flags);                             \
		__ok;                                                         \
	})

/*
 * For the page allocator's per-CPU fast paths, where the calls and what
 * they save and restore were a fifth of an allocation: a lock attempt and
 * spin_unlock() expanded in the caller.
 *
 * spin_trylock_once() is a single attempt: the owner counter read, one
 * compare-and-swap of `next` from it to it + 1, so it succeeds only if
 * nobody held or awaited the lock.  It fails when the lock is taken, and
 * also, rarely, when an interrupt took and released the lock between the
 * read and the swap (spin_trylock() tries again then): only for a caller
 * whose fall-back spins or calls spin_trylock() (the fast path's slow
 * path), so that failure costs nothing but time.  spin_unlock_inline() is
 * spin_unlock(), which calls it; a wrong owner panics out of line
 * (spin_unlock_bad_owner()).
 */
void __noreturn spin_unlock_bad_owner(const spinlock_t *lock);

static __always_inline bool spin_trylock_once(spinlock_t *lock)
{
	/* Acquire: see spin_trylock() in kernel/spinlock.c. */
	u32 owner = __atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE);

	if (!__atomic_compare_exchange_n(&lock->next, &owner, owner + 1, false,
					 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return false;
	WRITE_ONCE(lock->owner_cpu, (int)smp_processor_id());
	return true;
}

static __always_inline void spin_unlock_inline(spinlock_t *lock)
{
	if (unlikely(READ_ONCE(lock->owner_cpu) != (int)smp_processor_id()))
		spin_unlock_bad_owner(lock);
	WRITE_ONCE(lock->owner_cpu, SPINLOCK_NO_OWNER);
	__atomic_store_n(&lock->owner, lock->owner + 1, __ATOMIC_RELEASE);
}

/*
 * Spin or only try.  The allocator's slow paths serve two kinds of caller:
 * the ordinary ones, which may wait for a lock (LOCK_SPIN), and the
 * any-context ones, the _nolock functions that NMI handlers call, which
 * try each lock once (LOCK_TRY) and answer "busy" when it is taken
 * (docs/any-context.md).  A path that serves both is handed the choice
 * as an enum lock_how (Linux passes it as `bool allow_spin`, mm/slub.c)
 * and takes its locks with these two, never with an if of its own.  Each
 * returns true with the lock held (and IRQs off, for the _irqsave form),
 * or false with nothing changed (only LOCK_TRY can fail).
 */
enum lock_how {
	LOCK_SPIN,   /* wait for it: ordinary context */
	LOCK_TRY,    /* one try: any context, NMI included */
};

static __always_inline bool spin_lock_irqsave_or_try(spinlock_t *lock,
						     unsigned long *flags,
						     enum lock_how how)
{
	if (how == LOCK_TRY)
		return spin_trylock_irqsave(lock, *flags);
	spin_lock_irqsave(lock, *flags);
	return true;
}

static __always_inline bool spin_lock_or_try(spinlock_t *lock,
					     enum lock_how how)
{
	if (how == LOCK_TRY)
		return spin_trylock(lock);
	spin_lock(lock);
	return true;
}

void __lockdep_assert_held(const spinlock_t *lock, const char *file,
			   int line);
#define lockdep_assert_held(lock) __lockdep_assert_held(lock, __FILE__, __LINE__)

#endif /* SPINLOCK_H */
