/*
 * rcupdate.h - read-copy update: readers that take no lock, writers that
 * wait for them (kernel/rcu.c has the design; docs/rcu.md the tour).
 *
 * A reader brackets its use of shared pointers with rcu_read_lock() and
 * rcu_read_unlock() and loads them with rcu_dereference().  A writer
 * publishes a new object with rcu_assign_pointer() and may free the old one
 * only after a grace period: after every CPU has left every read-side
 * section that could have seen it.  synchronize_rcu() waits for one (task
 * context); call_rcu() asks for func(head) to run after one (any context,
 * NMI included) and returns at once; rcu_barrier() waits until every
 * callback queued before it has run.
 *
 * Read side, the rules:
 *   - rcu_read_lock()/rcu_read_unlock() nest, and are legal in task, IRQ
 *     and NMI context.  They cost no atomic operation and no barrier: one
 *     add to this CPU's nesting count, rcu_read_lock_nesting.  One count
 *     serves every context of a CPU: an interrupt's sections are always
 *     closed before it returns, so the count it interrupted is restored.
 *   - A section must not wait for a grace period (synchronize_rcu(),
 *     rcu_barrier()): it would wait for itself.
 *   - A pointer loaded in a section must not be used after it.
 *
 * An rcu_head is owned by RCU from call_rcu() until its callback starts:
 * the caller must not touch or queue it again meanwhile.  The callback
 * runs on the CPU that queued it, in the order queued there, never in NMI
 * context, outside any read-side section, and may free the object that
 * holds the head (a slab's kfree_rcu() builds on this).
 */
#ifndef RCUPDATE_H
#define RCUPDATE_H

#include <compiler.h>
#include <llist.h>
#include <smp.h>

struct rcu_head;
typedef void (*rcu_callback_t)(struct rcu_head *head);

struct rcu_head {
	struct llist_node llnode;   /* call_rcu()'s list, then the segments */
	rcu_callback_t func;
};

/* Read-side sections open on each CPU, all contexts together. */
DECLARE_PER_CPU(unsigned int, rcu_read_lock_nesting);

static __always_inline void rcu_read_lock(void)
{
	(*this_cpu_ptr(rcu_read_lock_nesting))++;
	barrier();   /* the section's loads stay after the increment */
}

static __always_inline void rcu_read_unlock(void)
{
	barrier();   /* ... and before the decrement */
	(*this_cpu_ptr(rcu_read_lock_nesting))--;
}

/* True inside a read-side section on this CPU (for assertions). */
static inline bool rcu_read_lock_held(void)
{
	return READ_ONCE(*this_cpu_ptr(rcu_read_lock_nesting)) != 0;
}

/*
 * Load an RCU-protected pointer.  A dependent load through it sees the
 * object as it was published (x86 and every compiler we use keep address
 * dependencies; the volatile load stops the compiler from loading twice).
 */
#define rcu_dereference(p) READ_ONCE(p)

/*
 * Publish v at p: a release store, so whoever loads v with
 * rcu_dereference() sees every store that initialised the object first.
 */
#define rcu_assign_pointer(p, v) __atomic_store_n(&(p), (v), __ATOMIC_RELEASE)

/* Store without ordering: for NULL, or before any reader can look. */
#define RCU_INIT_POINTER(p, v) WRITE_ONCE(p, v)

/* Any context, NMI included.  func(head) runs after a grace period. */
void call_rcu(struct rcu_head *head, rcu_callback_t func);
/* Task context, IRQs on, outside read-side sections: wait for a grace
 * period.  Anywhere else it reports the misuse and returns at once. */
void synchronize_rcu(void);
/* Same contexts as synchronize_rcu(): wait until every callback queued
 * (on any CPU) before the call has run. */
void rcu_barrier(void);

/* Why this context may not wait for a grace period ("NMI context", "a
 * read-side section", ...), or NULL if it may. */
const char *rcu_cannot_wait(void);

/*
 * An explicit quiescent state: this CPU is in task context and in no
 * read-side section, so it holds no pointer a reader took.  Long loops in
 * task context call it between work items so that grace periods end
 * without waiting for the tick.  Anywhere else it reports the misuse.
 */
void rcu_quiescent_state(void);

/* ---- the hooks the rest of the kernel calls (kernel/rcu.c says why) ---- */

void rcu_init(void);   /* boot CPU, once, before the other CPUs start */

/* The timer tick, IRQ context: from_task_or_idle when the interrupted
 * context was task or idle code (not another handler). */
void rcu_sched_clock_irq(bool from_task_or_idle);
/* The end of the tick, outermost handler only: run this CPU's callbacks
 * whose grace period has ended, with IRQs enabled meanwhile. */
void rcu_irq_exit_invoke(void);

/* The idle loop, IRQs off: entering and leaving the halt. */
void rcu_idle_enter(void);
void rcu_idle_exit(void);
/* The idle loop, IRQs off: this CPU has callbacks to queue or run. */
bool rcu_idle_has_work(void);
/* Task context (the idle loop, a waiting loop): queue and run them. */
void rcu_do_batch(void);

/* Every IRQ and NMI entry and exit, around the handler: a handler that
 * interrupts the idle halt makes RCU watch this CPU while it runs. */
bool rcu_irq_enter(void);
void rcu_irq_exit(bool was_idle);

/* ---- what happened so far, for tests and the boot log ---- */

struct rcu_stats {
	unsigned long gp_started;      /* grace periods begun */
	unsigned long gp_completed;    /* ... and ended */
	unsigned long gp_ended_early;  /* ended by rcu_test_end_gp_early */
	unsigned long cbs_queued;      /* call_rcu() calls */
	unsigned long cbs_invoked;     /* callbacks run */
	unsigned long qs_idle_remote;  /* quiescent states found by reading
					* an idle CPU's flag */
};

void rcu_get_stats(struct rcu_stats *st);

/*
 * Test only: grace periods end as soon as they begin, without waiting for
 * any CPU.  RCU is then broken on purpose; the torture must notice.
 */
extern bool rcu_test_end_gp_early;

/*
 * Every invariant kernel/rcu.c states, checked: the grace-period numbers,
 * the mask, and this CPU's segments (only their CPU may walk them).
 * Returns the number of problems (each printed).  The host tests call it
 * as every CPU after each step, the kernel's after an rcu_barrier().
 */
unsigned int rcu_check_state(void);

#endif /* RCUPDATE_H */
