/*
 * spinlock.c - the ticket lock behind spinlock.h.
 *
 * Acquire: take a ticket with an atomic fetch-and-add on `next`, then wait
 * until `owner` reaches it.  Release: bump `owner`.  The acquire load and the
 * release store give the ordering a lock needs (everything inside the
 * critical section stays inside).  Trylock only succeeds when nobody waits
 * (next == owner), swapping in next+1 with a compare-and-swap; it never
 * waits, which is what makes it usable from an NMI.  If the swap fails
 * because an interrupt took and released the lock in between (the lock is
 * free again), it tries again, at most SPIN_TRYLOCK_TRIES times, rather
 * than report a free lock as held.
 *
 * The recursion check (owner_cpu == this CPU) has two blind windows of a
 * few instructions: after a spin_lock() has its turn but before it stores
 * owner_cpu, and in spin_unlock() after owner_cpu is cleared but before the
 * release.  An interrupt landing there that takes the same lock passes the
 * check and spins for ever instead of panicking; so does one that lands
 * while this CPU is still waiting for the lock.  All of these need code
 * that already breaks the rule above (a lock an interrupt takes, held or
 * awaited with interrupts on), so the gap only loses a diagnostic, never
 * correct code; closing it would cost a per-CPU "acquiring" mark on every
 * lock and unlock.  NMIs are caught before any of this (spin_lock() in an
 * NMI panics).  Waiting CPUs synchronize with the last unlock through the
 * acquire load of `owner` (also in spin_trylock(): its CAS on `next`
 * synchronizes with no release).
 *
 * spinlock.h expands spin_unlock() and a single trylock attempt in the
 * caller (spin_unlock_inline(), spin_trylock_once()) for the page
 * allocator's per-CPU fast paths; spin_unlock() here is that same code.
 */
#include <spinlock.h>
#include <kernel.h>

void spin_lock_init(spinlock_t *lock, const char *name)
{
	lock->next = 0;
	lock->owner = 0;
	lock->owner_cpu = SPINLOCK_NO_OWNER;
	lock->name = name;
}

void spin_lock(spinlock_t *lock)
{
	u32 ticket;

	if (unlikely(in_nmi()))
		panic("spin_lock(%s) in NMI context: NMI paths may only trylock",
		      lock->name);
	if (unlikely(READ_ONCE(lock->owner_cpu) == (int)smp_processor_id()))
		panic("recursive locking of %s on cpu%u: this CPU already holds it",
		      lock->name, smp_processor_id());

	ticket = __atomic_fetch_add(&lock->next, 1, __ATOMIC_RELAXED);
	while (__atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE) != ticket)
		cpu_relax();
	WRITE_ONCE(lock->owner_cpu, (int)smp_processor_id());
}

/*
 * Two loads and a compare-and-swap: an NMI or IRQ landing between them may
 * take and release the lock (both counters move on; the lock is free
 * again).  Then the loads disagree, or the compare-and-swap fails, though
 * nobody holds the lock.  So a disagreement counts as "held" only if
 * `next` did not move meanwhile, and a lock that reads free is tried
 * again; at most SPIN_TRYLOCK_TRIES times: a trylock never waits.
 */
#define SPIN_TRYLOCK_TRIES 4

bool spin_trylock(spinlock_t *lock)
{
	u32 next = __atomic_load_n(&lock->next, __ATOMIC_RELAXED);
	unsigned int tries;

	for (tries = 0; tries < SPIN_TRYLOCK_TRIES; tries++) {
		/* Acquire: this load reads the release store of the last
		 * unlock, and that is what orders its critical section before
		 * ours (the CAS on `next` synchronizes with no release). */
		u32 owner = __atomic_load_n(&lock->owner, __ATOMIC_ACQUIRE);

		if (next != owner) {
			u32 now = __atomic_load_n(&lock->next, __ATOMIC_RELAXED);

			if (now == next)
				return false;   /* held, or waited for */
			next = now;             /* moved under us: look again */
			continue;
		}
		/* On failure this reloads next for the next round. */
		if (__atomic_compare_exchange_n(&lock->next, &next, owner + 1,
						false, __ATOMIC_ACQUIRE,
						__ATOMIC_RELAXED)) {
			WRITE_ONCE(lock->owner_cpu, (int)smp_processor_id());
			return true;
		}
	}
	return false;
}

void spin_unlock_bad_owner(const spinlock_t *lock)
{
	panic("spin_unlock(%s) on cpu%u, but the owner is cpu%d",
	      lock->name, smp_processor_id(), lock->owner_cpu);
}

void spin_unlock(spinlock_t *lock)
{
	spin_unlock_inline(lock);
}

bool spin_is_locked(const spinlock_t *lock)
{
	return __atomic_load_n(&lock->next, __ATOMIC_RELAXED) !=
	       __atomic_load_n(&lock->owner, __ATOMIC_RELAXED);
}

bool spin_is_held_by_me(const spinlock_t *lock)
{
	return spin_is_locked(lock) &&
	       READ_ONCE(lock->owner_cpu) == (int)smp_processor_id();
}

void __lockdep_assert_held(const spinlock_t *lock, const char *file, int line)
{
	if (unlikely(!spin_is_held_by_me(lock)))
		panic("%s:%d: lock %s is not held by cpu%u (owner cpu%d)", file,
		      line, lock->name, smp_processor_id(), lock->owner_cpu);
}
