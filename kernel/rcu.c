/*
 * rcu.c - a classic, non-preemptible RCU for a kernel without a scheduler
 * (include/rcupdate.h is the API, docs/rcu.md the tour).
 *
 * The idea, in our words (McKenney's "Is Parallel Programming Hard",
 * chapter 9; liburcu's QSBR flavour; Linux's Tiny and classic RCU).
 * Readers mark where they use shared pointers (rcu_read_lock() ..
 * rcu_read_unlock()) and take no lock.  A writer unlinks an object, so no
 * NEW reader can find it, but readers already in a section may still hold
 * it.  A quiescent state (QS) of a CPU is a moment at which that CPU is in
 * no read-side section: whatever it held before, it has dropped.  A grace
 * period (GP) is an interval during which every CPU passed at least one
 * QS.  So every section that was running when the GP began has ended by
 * the time the GP ends, and the unlinked object can be freed.  Nothing
 * here ever asks a reader to do anything: the writer waits for evidence
 * that readers moved on.
 *
 * The quiescent states, and why each is one.  rcu_read_lock_nesting counts
 * the sections open on a CPU in all its contexts together (an interrupt
 * closes its own sections before it returns).
 *   (a) The tick, when it interrupted task or idle code (not a handler:
 *       from_task_or_idle) and the count is 0.  The interrupted code is
 *       frozen for the whole handler, outside any section, and no NMI
 *       section can be open under an IRQ handler, so the CPU holds
 *       nothing while the handler reports.  The count is read on its own
 *       CPU, so it needs no barrier: an increment the tick interrupted
 *       halfway (load, add, store) starts a section after the report,
 *       which is allowed (that section began after the GP).
 *   (b) rcu_quiescent_state(): an explicit point, task context and count
 *       0; the caller says it holds nothing (QSBR).  synchronize_rcu() and
 *       rcu_barrier() call it for their own CPU while they wait.
 *   (c) Idle entry, rcu_idle_enter(): the idle loop holds nothing.
 *   (d) An idle CPU, seen from another CPU.  While an AP sits in the idle
 *       halt it may not wake for a tick or more, so the GP machinery
 *       itself reads each CPU's idle flag (Linux's dynticks / extended
 *       quiescent state): a CPU whose flag is set is in no section NOW,
 *       so every section it had when the GP began is over.  The flag is
 *       set by the idle loop just before the halt and cleared after it,
 *       and cleared by rcu_irq_enter() when an IRQ or NMI interrupts the
 *       halt, put back by rcu_irq_exit(): a handler on an idle CPU may
 *       have sections, so the CPU is not idle while it runs.  Clearing is
 *       an atomic exchange (a full barrier, and one instruction, so an NMI
 *       cannot fall between the store and the barrier), and the reader of
 *       the flag puts a full fence between the writer's unlink and its
 *       load.  That is Dekker's pattern: either the GP machinery sees the
 *       flag clear and waits for that CPU's QS, or the CPU's new section
 *       sees the unlink and cannot reach the old object.  Setting it is a
 *       release store: the section's loads are done first.
 * A CPU that is not online has no bit in a GP's mask.  Task code that runs
 * with IRQs off for long gets no tick QS and holds grace periods up until
 * it turns them back on (or calls rcu_quiescent_state()); that is the
 * price of a non-preemptible RCU, and it is correct.
 *
 * The state machine (global, struct rcu_state, under rcu_state.lock):
 *
 *   gp_completed == gp_started      no GP in progress ("idle")
 *        | a request (gp_wanted > gp_started): rcu_start_gp_locked()
 *        v   gp_started++, qs_pending = online CPUs less the idle ones
 *   gp_completed == gp_started - 1  GP number gp_started in progress
 *        | each CPU's QS clears its bit; the last one: rcu_end_gp_locked()
 *        v   gp_completed = gp_started; start the next if one is wanted
 *
 * Invariants (rcu_check_state() checks them):
 *   - gp_started - gp_completed is 0 or 1;
 *   - no GP in progress: qs_pending is empty and gp_wanted <= gp_started;
 *   - gp_wanted <= gp_started + 1: a request always asks for the first GP
 *     that will begin after it (gp_started + 1 read under the lock: the
 *     GP in progress, if any, began before the request, too early).
 *
 * Callbacks (per CPU, struct rcu_data): call_rcu() pushes on `incoming`,
 * a lock-free llist, so any context (NMI included) can queue.  Only the
 * CPU itself, with IRQs off, moves them on: to the end of one list cut
 * into three segments by tail pointers (Linux's rcu_segcblist):
 *
 *   head -> [ DONE ... ][ WAIT ... ][ NEXT ... ]
 *                    ^tails[DONE] ^tails[WAIT] ^tails[NEXT]
 *
 *   NEXT  queued, no GP chosen yet;
 *   WAIT  waiting for GP number wait_gp to complete;
 *   DONE  their GP is over: ready to run.
 * rcu_advance_cbs() moves incoming to NEXT (oldest first), WAIT to DONE
 * once gp_completed >= wait_gp, and, when WAIT is empty, all of NEXT to
 * WAIT with a request for the next GP.  A callback queued while WAIT is
 * busy therefore waits up to two GPs; the order on a CPU is kept.
 * Invariants: the three tails follow each other along the list (a
 * segment may be empty: two equal tails), the last tail's node ends the
 * list, and a non-empty WAIT segment's wait_gp <= gp_started + 1.
 *
 * Where callbacks run: rcu_do_batch() takes the DONE segment with IRQs
 * off and runs it with IRQs as the caller had them, one batch at a time
 * per CPU (`invoking`), so the order holds even when the tick's run
 * interrupts the idle loop's.  Callers: the end of the tick, when it
 * interrupted task or idle code (rcu_irq_exit_invoke(): IRQs are enabled
 * around the batch, the softirq of this kernel); the idle loop (task
 * context); synchronize_rcu()'s and rcu_barrier()'s waiting loops.  Never
 * an NMI.
 *
 * Locks: rcu_state.lock (a spinlock taken with IRQs saved) guards the
 * grace-period numbers, gp_wanted and qs_pending.  Only the console's
 * lock is taken under it (rcu_check_state()'s report).  Never taken in NMI context (call_rcu() from an NMI
 * only pushes on the llist).  gp_completed, the mask and the idle flags
 * are also read without it, as a first look: a stale value only delays a
 * step, and every decision that changes the state is taken under it.  Per-CPU
 * segments take no lock: only their CPU touches them, with IRQs off.
 *
 * Test switch: rcu_test_end_gp_early ends every GP as it begins (mask
 * empty): RCU broken on purpose, which tests/kernel/rcutorture_test.c
 * must catch.  Trace switch: RCU_TRACE 1 prints a line per GP event.
 *
 * The same file builds for the host tests (tests/host/test_rcu.c): CPUs
 * are host_cpu_id, ticks and idle entries are calls the test makes.
 */
#include <cpumask.h>
#include <irqflags.h>
#include <kernel.h>
#include <kunit.h>
#include <printk.h>
#include <rcupdate.h>
#include <smp.h>
#include <spinlock.h>

#define RCU_TRACE 0   /* 1: a debug line for each GP start and end */

#define rcu_trace(...)                                                        \
	do {                                                                  \
		if (RCU_TRACE)                                                \
			pr_info("rcu: " __VA_ARGS__);                         \
	} while (0)

enum rcu_segment {
	RCU_DONE_TAIL,
	RCU_WAIT_TAIL,
	RCU_NEXT_TAIL,
	RCU_NR_SEGMENTS,
};

static const char *const rcu_segment_names[RCU_NR_SEGMENTS] = {
	"DONE", "WAIT", "NEXT",
};

struct rcu_data {
	/* 1 while this CPU is in the idle halt with no handler running.
	 * Written by this CPU only (see the head comment, (d)); read by
	 * every CPU that starts or pushes a GP. */
	unsigned int idle;
	/* call_rcu()'s landing place, any context. */
	struct llist_head incoming;
	/* The segmented list: this CPU only, IRQs off. */
	struct llist_node *head;
	struct llist_node **tails[RCU_NR_SEGMENTS];
	unsigned long wait_gp;   /* WAIT's GP, when WAIT is not empty */
	bool invoking;           /* rcu_do_batch() is running a batch */
	unsigned long cbs_queued;    /* atomic adds: NMIs queue too */
	unsigned long cbs_invoked;
};

/* One for the whole kernel; `lock` guards every field (head comment). */
static struct rcu_state {
	spinlock_t lock;
	unsigned long gp_started;    /* number of the last GP begun */
	unsigned long gp_completed;  /* number of the last GP ended */
	unsigned long gp_wanted;     /* the highest GP number asked for */
	struct cpumask qs_pending;   /* CPUs yet to pass a QS for this GP */
	unsigned long gp_ended_early;
	unsigned long qs_idle_remote;
} rcu_state;

static DEFINE_PER_CPU(struct rcu_data, rcu_data);
DEFINE_PER_CPU(unsigned int, rcu_read_lock_nesting);
bool rcu_test_end_gp_early;

/* rcu_barrier()'s callbacks, one per CPU, and how many have run. */
static DEFINE_PER_CPU(struct rcu_head, rcu_barrier_head);
static unsigned int rcu_barrier_done;
static bool rcu_barrier_busy;

/* a - b as a signed distance: GP numbers compare across a wrap. */
static inline bool gp_reached(unsigned long a, unsigned long b)
{
	return (long)(a - b) >= 0;
}

static unsigned long gp_completed_read(void)
{
	return __atomic_load_n(&rcu_state.gp_completed, __ATOMIC_ACQUIRE);
}

/* ---- the grace-period state machine (rcu_state.lock held) ---- */

static void rcu_start_gp_locked(void);

static void rcu_end_gp_locked(void)
{
	lockdep_assert_held(&rcu_state.lock);
	/* Release: whoever sees the new number sees every report that
	 * ended the GP, and so every reader's loads before it. */
	__atomic_store_n(&rcu_state.gp_completed, rcu_state.gp_started,
			 __ATOMIC_RELEASE);
	rcu_trace("GP %lu ended on cpu%u\n", rcu_state.gp_started,
		  smp_processor_id());
	rcu_start_gp_locked();
}

/* Clear the bit of every CPU in qs_pending that is idle now ((d)). */
static void rcu_clear_idle_cpus_locked(void)
{
	unsigned int cpu;

	lockdep_assert_held(&rcu_state.lock);
	/* Orders the writer's unlink (before its request, or before this
	 * GP began) before the loads of the flags: Dekker, head comment. */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	for_each_cpu(cpu, &rcu_state.qs_pending) {
		if (__atomic_load_n(&per_cpu(rcu_data, cpu).idle,
				    __ATOMIC_ACQUIRE)) {
			cpumask_clear_cpu(cpu, &rcu_state.qs_pending);
			rcu_state.qs_idle_remote++;
		}
	}
}

static bool rcu_gp_in_progress(void)
{
	return rcu_state.gp_started != rcu_state.gp_completed;
}

static void rcu_start_gp_locked(void)
{
	lockdep_assert_held(&rcu_state.lock);
	if (rcu_gp_in_progress() ||
	    !gp_reached(rcu_state.gp_wanted, rcu_state.gp_started + 1))
		return;
	__atomic_store_n(&rcu_state.gp_started, rcu_state.gp_started + 1,
			 __ATOMIC_RELEASE);
	rcu_trace("GP %lu started on cpu%u\n", rcu_state.gp_started,
		  smp_processor_id());
	cpu_online_mask_get(&rcu_state.qs_pending);
	if (READ_ONCE(rcu_test_end_gp_early)) {
		cpumask_clear(&rcu_state.qs_pending);   /* broken on purpose */
		rcu_state.gp_ended_early++;
	}
	rcu_clear_idle_cpus_locked();
	if (!cpumask_weight(&rcu_state.qs_pending))
		rcu_end_gp_locked();
}

/*
 * Ask for the first GP that begins after now; returns its number.  Starts
 * it if no GP is in progress.
 */
static unsigned long rcu_request_gp(void)
{
	unsigned long flags, gp;

	spin_lock_irqsave(&rcu_state.lock, flags);
	gp = rcu_state.gp_started + 1;
	if (gp_reached(gp, rcu_state.gp_wanted))
		rcu_state.gp_wanted = gp;
	rcu_start_gp_locked();
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	return gp;
}

/* This CPU is in a quiescent state now: clear its bit, if it has one. */
static void rcu_report_qs(void)
{
	unsigned int cpu = smp_processor_id();
	unsigned long flags;

	/* A lock-free look first: the bit is set only under the lock, at a
	 * GP's start, so a clear bit read here is at worst stale by a GP
	 * that began just now and will ask again. */
	if (!((READ_ONCE(rcu_state.qs_pending.bits) >> cpu) & 1))
		return;
	spin_lock_irqsave(&rcu_state.lock, flags);
	if (cpumask_test_cpu(cpu, &rcu_state.qs_pending)) {
		cpumask_clear_cpu(cpu, &rcu_state.qs_pending);
		if (!cpumask_weight(&rcu_state.qs_pending))
			rcu_end_gp_locked();
	}
	spin_unlock_irqrestore(&rcu_state.lock, flags);
}

/* Any CPU: the idle CPUs a GP still waits for are quiescent ((d)). */
static void rcu_force_idle_qs(void)
{
	struct cpumask pending = { READ_ONCE(rcu_state.qs_pending.bits) };
	unsigned long flags;
	unsigned int cpu;
	bool any_idle = false;

	/* A look without the lock first: waiting loops call this on every
	 * step, and a lock taken by every waiter would be a convoy. */
	for_each_cpu(cpu, &pending)
		if (READ_ONCE(per_cpu(rcu_data, cpu).idle))
			any_idle = true;
	if (!any_idle)
		return;
	spin_lock_irqsave(&rcu_state.lock, flags);
	if (rcu_gp_in_progress()) {
		rcu_clear_idle_cpus_locked();
		if (!cpumask_weight(&rcu_state.qs_pending))
			rcu_end_gp_locked();
	}
	spin_unlock_irqrestore(&rcu_state.lock, flags);
}

/* ---- the per-CPU segments (this CPU, IRQs off) ---- */

static bool rcu_segment_empty(struct rcu_data *rdp, enum rcu_segment s)
{
	struct llist_node **before = s == RCU_DONE_TAIL ? &rdp->head :
					rdp->tails[s - 1];

	return rdp->tails[s] == before;
}

/* incoming -> the end of NEXT, oldest first. */
static void rcu_take_incoming(struct rcu_data *rdp)
{
	struct llist_node *n = llist_reverse_order(llist_del_all(&rdp->incoming));

	while (n) {
		struct llist_node *next = n->next;

		n->next = NULL;
		*rdp->tails[RCU_NEXT_TAIL] = n;
		rdp->tails[RCU_NEXT_TAIL] = &n->next;
		n = next;
	}
}

static void rcu_advance_cbs(struct rcu_data *rdp)
{
	WARN_ON_ONCE(!irqs_disabled());
	rcu_take_incoming(rdp);
	if (!rcu_segment_empty(rdp, RCU_WAIT_TAIL) &&
	    gp_reached(gp_completed_read(), rdp->wait_gp))
		rdp->tails[RCU_DONE_TAIL] = rdp->tails[RCU_WAIT_TAIL];
	if (rcu_segment_empty(rdp, RCU_WAIT_TAIL) &&
	    !rcu_segment_empty(rdp, RCU_NEXT_TAIL)) {
		rdp->tails[RCU_WAIT_TAIL] = rdp->tails[RCU_NEXT_TAIL];
		rdp->wait_gp = rcu_request_gp();
		/* Only the test switch ends a GP at once: this CPU is
		 * online and not idle, so a real one waits for its report. */
		if (gp_reached(gp_completed_read(), rdp->wait_gp))
			rdp->tails[RCU_DONE_TAIL] = rdp->tails[RCU_WAIT_TAIL];
	}
}

/* Detach the DONE segment; returns its first node (NULL if empty). */
static struct llist_node *rcu_take_done(struct rcu_data *rdp)
{
	struct llist_node *first = rdp->head, **done_tail;
	unsigned int s;

	if (rcu_segment_empty(rdp, RCU_DONE_TAIL))
		return NULL;
	done_tail = rdp->tails[RCU_DONE_TAIL];
	rdp->head = *done_tail;
	*done_tail = NULL;
	for (s = 0; s < RCU_NR_SEGMENTS; s++)
		if (rdp->tails[s] == done_tail)
			rdp->tails[s] = &rdp->head;
	return first;
}

static bool rcu_has_done(struct rcu_data *rdp)
{
	return !rcu_segment_empty(rdp, RCU_DONE_TAIL) ||
	       (!rcu_segment_empty(rdp, RCU_WAIT_TAIL) &&
		gp_reached(gp_completed_read(), rdp->wait_gp));
}

/* ---- callbacks ---- */

void call_rcu(struct rcu_head *head, rcu_callback_t func)
{
	struct rcu_data *rdp = this_cpu_ptr(rcu_data);

	head->func = func;
	__atomic_fetch_add(&rdp->cbs_queued, 1, __ATOMIC_RELAXED);
	llist_add(&head->llnode, &rdp->incoming);
}

void rcu_do_batch(void)
{
	struct rcu_data *rdp = this_cpu_ptr(rcu_data);
	struct llist_node *n;
	unsigned long flags, ran = 0;

	if (WARN_ON_ONCE(in_nmi()))
		return;
	flags = local_irq_save();
	if (rdp->invoking) {
		local_irq_restore(flags);
		return;
	}
	rcu_advance_cbs(rdp);
	n = rcu_take_done(rdp);
	rdp->invoking = n != NULL;
	local_irq_restore(flags);
	while (n) {
		struct rcu_head *head = llist_entry(n, struct rcu_head, llnode);

		n = n->next;   /* the callback may free head */
		/* Counted first: rcu_barrier()'s callback ends a wait whose
		 * caller may read the count at once. */
		WRITE_ONCE(rdp->cbs_invoked, rdp->cbs_invoked + 1);
		head->func(head);
		ran++;
	}
	if (!ran)
		return;
	flags = local_irq_save();
	rdp->invoking = false;
	local_irq_restore(flags);
}

/* ---- the hooks: tick, idle, interrupt entry ---- */

void rcu_sched_clock_irq(bool from_task_or_idle)
{
	struct rcu_data *rdp = this_cpu_ptr(rcu_data);

	rcu_advance_cbs(rdp);      /* may start a GP: report after it */
	if (from_task_or_idle && !rcu_read_lock_held())
		rcu_report_qs();   /* (a) */
	rcu_force_idle_qs();       /* (d), for the CPUs that sleep */
}

void rcu_irq_exit_invoke(void)
{
	struct rcu_data *rdp = this_cpu_ptr(rcu_data);

	if (rdp->invoking || !rcu_has_done(rdp))
		return;
	local_irq_enable();   /* the softirq of this kernel */
	rcu_do_batch();
	local_irq_disable();
}

void rcu_idle_enter(void)
{
	struct rcu_data *rdp = this_cpu_ptr(rcu_data);

	WARN_ON_ONCE(!irqs_disabled() || rcu_read_lock_held());
	rcu_report_qs();   /* (c) */
	__atomic_store_n(&rdp->idle, 1, __ATOMIC_RELEASE);
}

void rcu_idle_exit(void)
{
	WARN_ON_ONCE(!irqs_disabled());
	__atomic_exchange_n(&this_cpu_ptr(rcu_data)->idle, 0,
			    __ATOMIC_SEQ_CST);
}

bool rcu_idle_has_work(void)
{
	struct rcu_data *rdp = this_cpu_ptr(rcu_data);

	return !llist_empty(&rdp->incoming) || rcu_has_done(rdp);
}

bool rcu_irq_enter(void)
{
	struct rcu_data *rdp = this_cpu_ptr(rcu_data);

	/* Only this CPU writes its flag, and whatever interrupts us puts it
	 * back before returning: the load cannot go stale. */
	if (!READ_ONCE(rdp->idle))
		return false;
	__atomic_exchange_n(&rdp->idle, 0, __ATOMIC_SEQ_CST);
	return true;
}

void rcu_irq_exit(bool was_idle)
{
	if (was_idle)
		__atomic_store_n(&this_cpu_ptr(rcu_data)->idle, 1,
				 __ATOMIC_RELEASE);
}

/* ---- waiting ---- */

const char *rcu_cannot_wait(void)
{
	if (in_nmi())
		return "NMI context";
	if (in_irq())
		return "IRQ context";
	if (in_exception())
		return "exception context";
	if (irqs_disabled())
		return "a section with IRQs off";
	if (rcu_read_lock_held())
		return "a read-side section";
	return NULL;
}

void rcu_quiescent_state(void)
{
	const char *why = rcu_cannot_wait();

	if (why) {
		kunit_print_report(LOGLEVEL_WARNING,
			"WARNING: rcu_quiescent_state() in %s on cpu%u: not a quiescent state, ignored",
			why, smp_processor_id());
		return;
	}
	rcu_report_qs();   /* (b) */
}

/* One step of a waiting loop: our QS, the idle CPUs', our callbacks. */
static void rcu_wait_step(void)
{
	rcu_report_qs();
	rcu_force_idle_qs();
	rcu_do_batch();
	cpu_relax();
}

void synchronize_rcu(void)
{
	const char *why = rcu_cannot_wait();
	unsigned long gp;

	if (why) {
		kunit_print_report(LOGLEVEL_WARNING,
			"WARNING: synchronize_rcu() in %s on cpu%u: it would wait for a grace period this context holds up; returning at once",
			why, smp_processor_id());
		return;
	}
	gp = rcu_request_gp();
	while (!gp_reached(gp_completed_read(), gp))
		rcu_wait_step();
}

static void rcu_barrier_callback(struct rcu_head *head)
{
	(void)head;
	__atomic_fetch_add(&rcu_barrier_done, 1, __ATOMIC_RELEASE);
}

static void rcu_barrier_queue(void *info)
{
	(void)info;
	call_rcu(this_cpu_ptr(rcu_barrier_head), rcu_barrier_callback);
}

/*
 * Each CPU's callbacks run in the order they were queued there, so one
 * more callback queued on every CPU has run only after all before it.
 */
void rcu_barrier(void)
{
	const char *why = rcu_cannot_wait();
	struct cpumask online;
	unsigned int cpu, nr = 0;

	if (why) {
		kunit_print_report(LOGLEVEL_WARNING,
			"WARNING: rcu_barrier() in %s on cpu%u: it would wait for callbacks this context holds up; returning at once",
			why, smp_processor_id());
		return;
	}
	/* One at a time: the per-CPU heads are shared.  A second caller
	 * (two kmem_cache_destroy()s on two CPUs) waits its turn, passing
	 * quiescent states and running callbacks meanwhile, as Linux's
	 * barrier waits on its mutex. */
	while (__atomic_exchange_n(&rcu_barrier_busy, true, __ATOMIC_ACQUIRE))
		rcu_wait_step();
	__atomic_store_n(&rcu_barrier_done, 0, __ATOMIC_RELAXED);
	cpu_online_mask_get(&online);
	for_each_cpu(cpu, &online) {
		if (cpu == smp_processor_id())
			rcu_barrier_queue(NULL);
		else if (smp_call_function_single(cpu, rcu_barrier_queue,
						  NULL, true))
			continue;
		nr++;
	}
	while (__atomic_load_n(&rcu_barrier_done, __ATOMIC_ACQUIRE) < nr)
		rcu_wait_step();
	__atomic_store_n(&rcu_barrier_busy, false, __ATOMIC_RELEASE);
}

/* ---- set-up, figures, invariants ---- */

static void rcu_data_init(struct rcu_data *rdp)
{
	unsigned int s;

	rdp->idle = 0;
	init_llist_head(&rdp->incoming);
	rdp->head = NULL;
	for (s = 0; s < RCU_NR_SEGMENTS; s++)
		rdp->tails[s] = &rdp->head;
	rdp->wait_gp = 0;
	rdp->invoking = false;
	rdp->cbs_queued = 0;
	rdp->cbs_invoked = 0;
}

void rcu_init(void)
{
	unsigned int cpu;

	spin_lock_init(&rcu_state.lock, "rcu_state");
	rcu_state.gp_started = 0;
	rcu_state.gp_completed = 0;
	rcu_state.gp_wanted = 0;
	cpumask_clear(&rcu_state.qs_pending);
	rcu_state.gp_ended_early = 0;
	rcu_state.qs_idle_remote = 0;
	for_each_possible_cpu(cpu) {
		rcu_data_init(per_cpu_ptr(rcu_data, cpu));
		per_cpu(rcu_read_lock_nesting, cpu) = 0;
	}
}

void rcu_get_stats(struct rcu_stats *st)
{
	unsigned long flags;
	unsigned int cpu;

	spin_lock_irqsave(&rcu_state.lock, flags);
	st->gp_started = rcu_state.gp_started;
	st->gp_completed = rcu_state.gp_completed;
	st->gp_ended_early = rcu_state.gp_ended_early;
	st->qs_idle_remote = rcu_state.qs_idle_remote;
	spin_unlock_irqrestore(&rcu_state.lock, flags);
	st->cbs_queued = 0;
	st->cbs_invoked = 0;
	for_each_possible_cpu(cpu) {
		st->cbs_queued += __atomic_load_n(&per_cpu(rcu_data, cpu).cbs_queued,
						  __ATOMIC_RELAXED);
		st->cbs_invoked += READ_ONCE(per_cpu(rcu_data, cpu).cbs_invoked);
	}
}

static unsigned int rcu_problem(const char *what, unsigned long a,
				unsigned long b)
{
	kunit_print_report(LOGLEVEL_ERR, "BUG: rcu: %s (%lu, %lu)", what, a, b);
	return 1;
}

/* This CPU's segments follow each other, and the last ends the list. */
static unsigned int rcu_check_segments(struct rcu_data *rdp)
{
	struct llist_node **pos = &rdp->head;
	unsigned int s = 0, problems = 0;

	for (;;) {
		while (s < RCU_NR_SEGMENTS && rdp->tails[s] == pos)
			s++;
		if (!*pos)
			break;
		pos = &(*pos)->next;
	}
	if (s != RCU_NR_SEGMENTS) {
		kunit_print_report(LOGLEVEL_ERR,
			"BUG: rcu: cpu%u's %s tail is not on its list after the ones before it",
			smp_processor_id(), rcu_segment_names[s]);
		problems++;
	}
	if (!rcu_segment_empty(rdp, RCU_WAIT_TAIL) &&
	    !gp_reached(rcu_state.gp_started + 1, rdp->wait_gp))
		problems += rcu_problem("WAIT waits for a GP beyond the next",
					rdp->wait_gp, rcu_state.gp_started);
	return problems;
}

unsigned int rcu_check_state(void)
{
	unsigned long flags, started, completed;
	unsigned int problems = 0;

	flags = local_irq_save();
	spin_lock(&rcu_state.lock);
	started = rcu_state.gp_started;
	completed = rcu_state.gp_completed;
	if (started - completed > 1)
		problems += rcu_problem("gp_started - gp_completed > 1",
					started, completed);
	if (started == completed && cpumask_weight(&rcu_state.qs_pending))
		problems += rcu_problem("CPUs to report with no GP in progress",
					rcu_state.qs_pending.bits, started);
	if (started == completed && gp_reached(rcu_state.gp_wanted, started + 1))
		problems += rcu_problem("a GP is wanted but none in progress",
					rcu_state.gp_wanted, started);
	if (!gp_reached(started + 1, rcu_state.gp_wanted))
		problems += rcu_problem("gp_wanted beyond gp_started + 1",
					rcu_state.gp_wanted, started);
	problems += rcu_check_segments(this_cpu_ptr(rcu_data));
	spin_unlock(&rcu_state.lock);
	local_irq_restore(flags);
	return problems;
}
