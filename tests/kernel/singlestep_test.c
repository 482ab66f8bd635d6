/*
 * singlestep_test.c - an NMI, an IRQ or another CPU's flush at every
 * instruction of the inline sheaf fast paths, by single-stepping them.
 *
 * The fast paths (mm/slab_internal.h: pcs_alloc_fast(), __pcs_alloc_fast(),
 * pcs_free_fast(), inlined into __kmalloc() and __kmalloc_cache() - the
 * two ways kmalloc() goes, for a variable and a constant size -, kfree(),
 * kmem_cache_alloc(), kmem_cache_free(), kmalloc_nolock() and
 * kfree_nolock()) are restartable sequences
 * (include/rseq.h) with IRQs ON: anything that lands on the CPU inside one
 * - an NMI, an IRQ, a flush IPI from another CPU - uses the sheaf freely,
 * and the entry code (rseq_ip_fixup()) sends the sequence back to its
 * start.  A storm only samples those points; here we visit each:
 *
 *   1. count: set RFLAGS.TF around one call of the path.  The CPU raises
 *      #DB (vector 1) after every instruction; our handler records where
 *      each one stopped: N steps.
 *   2. for each step k, the same setup and the same call again, and at
 *      that point (the address the k-th step stopped at, reached for the
 *      same time; so a callee deep in a slow path may vary in length) the
 *      handler runs the interrupting action, as if it had landed there:
 *        nmi    nmi_nesting raised (in_nmi() true, as arch/x86_64/nmi.c does)
 *               kmalloc_nolock() + kfree_nolock() on the same cache or
 *               size class (kmem_cache_free() for the private cache: in
 *               an NMI it takes the nolock path by itself),
 *               try_alloc_pages() + free_pages_nolock();
 *        irq    irq_nesting raised (in_irq() true), only where the traced
 *               code has IF set: kmalloc()/kmem_cache_alloc() + kfree()/
 *               kmem_cache_free() on the same cache, a page alloc + free;
 *        flush  only where IF is set, with a second CPU: CPU 1 runs
 *               flush_all_sheaves() of the cache (kmem_cache_shrink()'s
 *               part) and its IPI lands here, at the point.
 *      Then, as the NMI and IRQ entry do, rseq_ip_fixup() moves the
 *      frame's RIP back to its sequence's start if it lies inside one
 *      (the #DB entry leaves that to us: it would restart at every step),
 *      tracing stops (TF cleared in the frame) and the call runs on
 *      at full speed to its end, through a slow path if the action made
 *      the fast one fail.
 *   3. after each run: the call's result is a valid object of the cache,
 *      no object is handed out twice (every object the test holds is
 *      distinct and in no sheaf; no sheaf holds one object twice), the
 *      sheaf and barn invariants hold (main != NULL, size <= capacity, the
 *      lock flag free, the bootstrap sheaf empty and in no barn), no WARN
 *      and no slab report, a flush took this CPU's sheaves, and the
 *      cache's objects in use match exactly what the test holds, before
 *      and after freeing everything.  At the end of each case the free
 *      page count is back where it started.
 * Each path runs in four states of the CPU's sheaves (enum main_state):
 * edge, warm, swap (main and spare swapped under the lock) and refill
 * (the lock dropped to make a sheaf: thousands of instructions, so below
 * the sheaf layer one step in SAMPLE_STRIDE is a point).  The number of
 * (path, instruction, action) triples run is printed: docs/any-context.md
 * quotes it.  singlestep_rseq then checks that every restartable
 * sequence in the kernel's table was traced whole and had an NMI and an
 * IRQ land before each of its instructions, and prints the count.
 *
 * Tracing mechanics (arch/x86_64/traps.c, debug_exception_handler): #DB
 * has no IST stack, so its frame lands below the traced code's RSP (no red
 * zone in the kernel) and the action runs on that stack.  Exception entry
 * clears TF and IF, so the action itself is not traced (a #DB inside the
 * handler would be counted as unexpected and fail the run); IRETQ
 * restores TF.  PUSHF in the traced code saves TF with the rest of RFLAGS
 * (and a POPF would restore it), CLI/STI do not touch it, so
 * local_irq_save() in a slow path keeps tracing (singlestep_count checks
 * that some steps ran with IF clear, and not all); the IF bit in the saved
 * RFLAGS tells whether an IRQ could land there.  DR6 is cleared on every
 * #DB (the CPU never clears it).  A run that traces more than
 * MAX_TRACED_STEPS instructions is stopped and fails.  Timer and irq_work
 * interrupts that arrive while tracing are taken normally (their gate
 * clears TF), so N does not depend on the host's speed.
 *
 * Verified under TCG (QEMU's default -cpu max); nothing here is TCG-only.
 */
#include <irqflags.h>
#include <kernel.h>
#include <kunit.h>
#include <mm.h>
#include <mm_check.h>
#include <nolock_stats.h>
#include <rseq.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "../../arch/x86_64/apic.h"
#include "../../arch/x86_64/cpu.h"
#include "../../arch/x86_64/interrupts.h"
#include "../../kernel/backtrace.h"
#include "../../kernel/timekeeping.h"
#include "rseq_trace.h"
#include "test_wait.h"
#include "../../mm/slab_internal.h"

#define KMALLOC_PATH_SIZE  64      /* kmalloc-64 for the kmalloc paths */
#define CACHE_OBJECT_SIZE  48      /* the private cache's objects */
#define CACHE_SHEAF_CAPACITY 16    /* small: its refill is short */
#define POOL_EXTRA         6       /* objects beyond a sheaf's capacity */
#define POOL_MAX           (2 * SHEAF_CAPACITY_LIMIT + POOL_EXTRA)
#define SHEAF_CAPACITY_LIMIT 256   /* more than any default capacity */
#define FAST_PATH_MAX_STEPS 400    /* a fast path is a few dozen
				    * instructions, a swap a few hundred */
#define SLOW_PATH_MAX_STEPS 20000  /* a refill: a few thousand */
#define MAX_TRACED_STEPS   200000  /* a slow path is a few thousand */
#define SAMPLE_STRIDE      32      /* below the sheaf layer: 1 point in 32 */
#define COUNT_RETRIES      4       /* counting runs that may disagree */
#define MAX_REPORTS        6       /* failing runs printed per sweep */
#define NR_TRACKED_CACHES  3
/*
 * The action frees NR_VICTIMS objects of the cache and allocates one: a
 * net change of the sheaf's size, so a fast path that loses an update
 * (a store of size from a stale register) is seen.  An alloc and a free
 * alone would cancel out.  Pool slots below POOL_RESERVED hold the
 * victims and the object the traced call frees.
 */
#define NR_VICTIMS         2
#define POOL_RESERVED      (NR_VICTIMS + 1)

enum fast_path {
	FP_KMALLOC,
	FP_KMALLOC_CONST,
	FP_KFREE,
	FP_CACHE_ALLOC,
	FP_CACHE_FREE,
	FP_KMALLOC_NOLOCK,
	FP_KFREE_NOLOCK,
	NR_FAST_PATHS
};

static const struct {
	const char *name;
	bool alloc;          /* returns an object (else frees one) */
	bool private_cache;  /* kmem_cache_*() on the test's cache */
} paths[NR_FAST_PATHS] = {
	[FP_KMALLOC]        = { "kmalloc", true, false },
	[FP_KMALLOC_CONST]  = { "kmalloc_const", true, false },
	[FP_KFREE]          = { "kfree", false, false },
	[FP_CACHE_ALLOC]    = { "kmem_cache_alloc", true, true },
	[FP_CACHE_FREE]     = { "kmem_cache_free", false, true },
	[FP_KMALLOC_NOLOCK] = { "kmalloc_nolock", true, false },
	[FP_KFREE_NOLOCK]   = { "kfree_nolock", false, false },
};

/*
 * The CPU's sheaves when the traced call starts:
 *   edge  alloc: main holds 1 object; free: main has 1 free slot
 *   warm  main half full
 *   swap  alloc: main empty, spare full; free: main full, spare empty:
 *         the fast path fails and the call swaps main and spare under
 *         the lock (IRQs off), so the sweep covers that first slow step
 *   refill  alloc: main empty, no spare, barn empty; free: main and spare
 *         full, barn empty: the call drops the sheaf lock to make a sheaf
 *         and relocks (the re-check after it is where an NMI or IRQ that
 *         landed in between must be noticed)
 */
enum main_state { MAIN_EDGE, MAIN_WARM, MAIN_SWAP, MAIN_REFILL, NR_MAIN_STATES };
static const char *const main_state_names[] = { "edge", "warm", "swap", "refill" };

enum ss_action { ACT_NONE, ACT_NMI, ACT_IRQ, ACT_FLUSH };
static const char *const action_names[] = { "none", "nmi", "irq", "flush" };

/* Everything one run sets up, and what the action did. */
struct run_ctx {
	enum fast_path fp;
	bool private_cache;          /* kmem_cache_*() on a test cache */
	bool cpu_slab;               /* a cpu-slab path (cs_paths[fp]) */
	struct kmem_cache *s;        /* the traced path's cache */
	size_t size;                 /* its object size */
	void *pool[POOL_MAX];        /* objects the test holds (NULL: none) */
	unsigned int nr_pool;
	void *victim[NR_VICTIMS];    /* freed by the action */
	struct page *victim_page;    /* freed by the action */
	void *to_free;               /* freed by the traced call (free paths) */
	void *result;                /* returned by the traced call */
	void *got_object;            /* allocated by the action */
	struct page *got_page;       /* allocated by the action */
	bool victims_freed, victim_page_freed;
	unsigned long sheaf_frees;   /* SHEAF_FREE (CPUSLAB_FLUSH for a
				      * cpu-slab path) when the flush started */
	unsigned long alloc_busy;    /* this CPU's obj_alloc_busy before */
	struct kmem_cache *tracked[NR_TRACKED_CACHES];
	long baseline[NR_TRACKED_CACHES]; /* in use by others */
	unsigned long warns, reports;
};

/* The #DB handler's state; only the test CPU traces, one run at a time. */
static struct {
	bool armed;
	unsigned int steps;          /* #DBs this run */
	unsigned long act_rip;       /* act at the act_occ-th time the traced */
	unsigned int act_occ;        /* code is about to run act_rip; 0: never */
	unsigned int occ_seen;
	enum ss_action action;
	struct run_ctx *ctx;
	bool acted;                  /* the action ran */
	bool runaway;
	bool in_handler;             /* a #DB inside it: the action was traced */
	unsigned int unexpected;     /* #DBs not ours (not armed, not BS, nested) */
	unsigned int irqs_off_steps; /* steps that stopped with IF clear */
	unsigned long restarts;      /* actions that sent a sequence back */
	unsigned long rip[SLOW_PATH_MAX_STEPS]; /* where each step stopped */
} ss;

/*
 * The restartable sequences (include/rseq.h) as the sweeps meet them
 * (rseq_trace.h): the distinct instructions traced inside each, and those
 * an action landed before, per action.
 */
static struct seq_insns seq_traced[RSEQ_TRACE_MAX_SEQS];
static struct seq_insns seq_acted[ACT_FLUSH + 1][RSEQ_TRACE_MAX_SEQS];

static struct kmem_cache *test_cache;
static unsigned long triples[4];    /* per action, all cases this boot */

/* ---- the interrupting actions (in the #DB handler: IRQs off, TF off) --- */

static void action_nmi(struct run_ctx *c)
{
	struct percpu *pc = this_cpu();
	unsigned int i;

	pc->nmi_nesting++;
	if (c->cpu_slab && c->private_cache) {   /* the same cache */
		bool busy;

		c->got_object = slab_alloc_nolock(c->s, 0, NUMA_NO_NODE, &busy,
						  _THIS_IP_);
	} else {
		c->got_object = kmalloc_nolock(c->size, 0, NUMA_NO_NODE);
	}
	/* kmem_cache_free() in NMI context takes the nolock path itself. */
	for (i = 0; i < NR_VICTIMS; i++) {
		if (c->private_cache)
			kmem_cache_free(c->s, c->victim[i]);
		else
			kfree_nolock(c->victim[i]);
	}
	c->victims_freed = true;
	c->got_page = try_alloc_pages(0, 0);
	free_pages_nolock(c->victim_page, 0);
	c->victim_page_freed = true;
	pc->nmi_nesting--;
}

static void action_irq(struct run_ctx *c)
{
	struct percpu *pc = this_cpu();
	unsigned int i;

	pc->irq_nesting++;
	if (c->private_cache) {
		c->got_object = kmem_cache_alloc(c->s, GFP_ATOMIC);
		for (i = 0; i < NR_VICTIMS; i++)
			kmem_cache_free(c->s, c->victim[i]);
	} else {
		c->got_object = kmalloc(c->size, GFP_ATOMIC);
		for (i = 0; i < NR_VICTIMS; i++)
			kfree(c->victim[i]);
	}
	c->victims_freed = true;
	c->got_page = alloc_pages(GFP_ATOMIC, 0);
	__free_pages(c->victim_page, 0);
	c->victim_page_freed = true;
	pc->irq_nesting--;
}

/*
 * A flush: another CPU (FLUSHER_CPU) runs kmem_cache_shrink()'s part,
 * flush_all_sheaves(), and its IPI lands here, at the point.  The handler
 * asks the flusher to start (a call to that CPU, which drops its IRQ
 * nesting and turns IRQs on, as a task would be) and waits, with IRQs on,
 * until the flusher's IPI to this CPU has been handled once (counted by a
 * wrapper around the call-function vector's handler).  Then the traced
 * code goes on; whatever the flusher does next (another IPI, a retry) lands
 * wherever it lands, and the run waits for the flusher to finish before
 * its checks, which add one: the flush did take this CPU's sheaves (it
 * freed at least one: SHEAF_FREE moved).  Only with a second CPU: with one CPU a flush runs in task
 * context on this CPU and cannot land inside the fast path.
 */
#define FLUSHER_CPU    1

static unsigned long call_ipis[NR_CPUS];   /* call-function IPIs handled */
static irq_handler_t call_ipi_handler;     /* the handler we wrap */
static bool flusher_done;
static bool flush_ipi_missed;

static void counting_call_ipi(struct pt_regs *regs)
{
	call_ipi_handler(regs);
	__atomic_fetch_add(&call_ipis[smp_processor_id()], 1, __ATOMIC_RELEASE);
}

/* On FLUSHER_CPU, from a call-function IPI: the flush, as a task would
 * run it (IRQs on, not in IRQ context). */
static void remote_flush(void *info)
{
	struct percpu *pc = this_cpu();

	pc->irq_nesting--;
	local_irq_enable();
	flush_all_sheaves(info);
	flush_all_cpu_slabs(info);   /* a cpu-slab cache's part */
	local_irq_disable();
	pc->irq_nesting++;
	__atomic_store_n(&flusher_done, true, __ATOMIC_RELEASE);
}

static bool wait_for_flusher(void)
{
	u64 end = test_deadline();

	while (!__atomic_load_n(&flusher_done, __ATOMIC_ACQUIRE)) {
		if (rdtsc() > end)
			return false;
		cpu_relax();
	}
	return true;
}

static void action_flush(struct run_ctx *c)
{
	unsigned int me = smp_processor_id();
	unsigned long seen = __atomic_load_n(&call_ipis[me], __ATOMIC_ACQUIRE);
	u64 end;

	__atomic_store_n(&flusher_done, false, __ATOMIC_RELEASE);
	c->sheaf_frees = slab_stat_sum(c->s, c->cpu_slab ? CPUSLAB_FLUSH :
							   SHEAF_FREE);
	local_irq_enable();
	smp_call_function_single(FLUSHER_CPU, remote_flush, c->s, false);
	end = test_deadline();
	while (__atomic_load_n(&call_ipis[me], __ATOMIC_ACQUIRE) == seen &&
	       !__atomic_load_n(&flusher_done, __ATOMIC_ACQUIRE)) {
		if (rdtsc() > end) {
			flush_ipi_missed = true;
			break;
		}
		cpu_relax();
	}
	local_irq_disable();
}

static void singlestep_db_handler(struct pt_regs *regs)
{
	unsigned long dr6 = read_dr6();
	unsigned int step;

	write_dr6(DR6_RESET);
	if (!ss.armed || !(dr6 & DR6_BS) || ss.in_handler) {
		ss.unexpected++;
		regs->rflags &= ~RFLAGS_TF;
		return;
	}
	step = ss.steps++;
	if (!(regs->rflags & RFLAGS_IF))
		ss.irqs_off_steps++;
	if (step >= MAX_TRACED_STEPS) {
		ss.runaway = true;
		regs->rflags &= ~RFLAGS_TF;
		return;
	}
	if (step < SLOW_PATH_MAX_STEPS)
		ss.rip[step] = regs->rip;
	if (regs->rip != ss.act_rip || ++ss.occ_seen != ss.act_occ)
		return;
	/* The rest of the call runs at full speed: nothing more to see. */
	regs->rflags &= ~RFLAGS_TF;
	if (ss.action != ACT_NMI && !(regs->rflags & RFLAGS_IF))
		return;   /* no IRQ or IPI can land here: not a triple */
	ss.in_handler = true;
	switch (ss.action) {
	case ACT_NMI:
		action_nmi(ss.ctx);
		break;
	case ACT_IRQ:
		action_irq(ss.ctx);
		break;
	case ACT_FLUSH:
		action_flush(ss.ctx);
		break;
	case ACT_NONE:
		break;
	}
	/* What the NMI and IRQ entry do (arch/x86_64/traps.c): an action
	 * inside a sequence sends it back to its start. */
	if (ss.action != ACT_NONE && rseq_ip_fixup(regs))
		ss.restarts++;
	ss.in_handler = false;
	ss.acted = ss.action != ACT_NONE;
}

/* ---- tracing one call ---- */

static __always_inline void trace_flag_set(void)
{
	__asm__ __volatile__("pushfq\n\torq %0, (%%rsp)\n\tpopfq"
			     : : "i"(RFLAGS_TF) : "memory", "cc");
}

static __always_inline void trace_flag_clear(void)
{
	__asm__ __volatile__("pushfq\n\tandq %0, (%%rsp)\n\tpopfq"
			     : : "i"(~RFLAGS_TF) : "memory", "cc");
}

/* The call of the path, traced from just before it to just after. */
static __noinline void traced_call(struct run_ctx *c)
{
	void *ret = NULL;

	ss.armed = true;
	switch (c->fp) {
	case FP_KMALLOC:
		trace_flag_set();
		ret = kmalloc(c->size, GFP_KERNEL);
		trace_flag_clear();
		break;
	case FP_KMALLOC_CONST:
		/* The size as a constant: the class chosen at the call site,
		 * __kmalloc_cache() (c->size is KMALLOC_PATH_SIZE's class). */
		trace_flag_set();
		ret = kmalloc(KMALLOC_PATH_SIZE, GFP_KERNEL);
		trace_flag_clear();
		break;
	case FP_KFREE:
		trace_flag_set();
		kfree(c->to_free);
		trace_flag_clear();
		break;
	case FP_CACHE_ALLOC:
		trace_flag_set();
		ret = kmem_cache_alloc(c->s, GFP_KERNEL);
		trace_flag_clear();
		break;
	case FP_CACHE_FREE:
		trace_flag_set();
		kmem_cache_free(c->s, c->to_free);
		trace_flag_clear();
		break;
	case FP_KMALLOC_NOLOCK:
		trace_flag_set();
		ret = kmalloc_nolock(c->size, 0, NUMA_NO_NODE);
		trace_flag_clear();
		break;
	case FP_KFREE_NOLOCK:
		trace_flag_set();
		kfree_nolock(c->to_free);
		trace_flag_clear();
		break;
	case NR_FAST_PATHS:
		break;
	}
	ss.armed = false;
	c->result = ret;
	if (!paths[c->fp].alloc)
		c->to_free = NULL;
}

/* ---- checks ---- */

/* Is p the start of an object of s (in a slab of s, on an object)? */
static bool object_of(struct kmem_cache *s, const void *p)
{
	struct page *slab;
	unsigned long off;

	if (ZERO_OR_NULL_PTR(p))
		return false;
	slab = virt_to_slab(p);
	if (!slab || slab->slab_cache != s)
		return false;
	off = (unsigned long)p - (unsigned long)page_address(slab);
	return off % s->size == 0 && off / s->size < slab->objects;
}

static struct kmem_cache *cache_of(const void *p)
{
	struct page *slab = ZERO_OR_NULL_PTR(p) ? NULL : virt_to_slab(p);

	return slab ? slab->slab_cache : NULL;
}

/* Calls fn(sheaf) for every sheaf of s: each CPU's main and spare, and
 * the barn's (under its lock).  Stops at the first false. */
static bool for_each_sheaf(struct kmem_cache *s,
			   bool (*fn)(struct kmem_cache *s,
				      struct slab_sheaf *sh, void *arg),
			   void *arg)
{
	struct node_barn *barn = &get_node(s, 0)->barn;
	struct slab_sheaf *sh;
	unsigned long flags;
	unsigned int cpu;
	bool ok = true;

	for_each_online_cpu(cpu) {
		struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[cpu];

		if (pcs->main && pcs->main != &bootstrap_sheaf &&
		    !fn(s, pcs->main, arg))
			return false;
		if (pcs->spare && !fn(s, pcs->spare, arg))
			return false;
	}
	spin_lock_irqsave(&barn->lock, flags);
	list_for_each_entry(sh, &barn->sheaves_full, barn_list)
		if (ok && !fn(s, sh, arg))
			ok = false;
	list_for_each_entry(sh, &barn->sheaves_empty, barn_list)
		if (ok && !fn(s, sh, arg))
			ok = false;
	spin_unlock_irqrestore(&barn->lock, flags);
	return ok;
}

static bool sum_sheaf(struct kmem_cache *s, struct slab_sheaf *sh, void *arg)
{
	(void)s;
	*(long *)arg += sh->size;
	return true;
}

/* A cpu-slab cache: the objects in use of the CPUs' frozen slabs, less
 * those on their freelists (the other CPUs idle: nothing moves). */
static long cpu_slab_objects_in_use(struct kmem_cache *s)
{
	unsigned int cpu;
	long inuse = 0;

	for_each_online_cpu(cpu) {
		struct kmem_cache_cpu *c = &s->cpu_slab[cpu];
		struct page *slab;

		if (c->slab)
			inuse += c->slab->inuse;
		list_for_each_entry(slab, &c->partial, lru)
			inuse += slab->inuse;
		inuse -= (long)cpu_slab_objects(s, cpu);
	}
	return inuse;
}

/* Objects of s handed out and not in any sheaf: what its users hold
 * (objects parked on a deferred list count as held: drain first). */
static long objects_in_use(struct kmem_cache *s)
{
	struct kmem_cache_node *n = get_node(s, 0);
	struct page *slab;
	unsigned long flags;
	long inuse = 0, cached = 0;

	spin_lock_irqsave(&n->list_lock, flags);
	list_for_each_entry(slab, &n->partial, lru)
		inuse += slab->inuse;
	list_for_each_entry(slab, &n->full, lru)
		inuse += slab->inuse;
	spin_unlock_irqrestore(&n->list_lock, flags);
	if (cache_has_cpu_slab(s))
		return inuse + cpu_slab_objects_in_use(s);
	for_each_sheaf(s, sum_sheaf, &cached);
	return inuse - cached;
}

/* A sheaf is sane: its cache, its capacity, valid objects, no repeat. */
static bool sheaf_sane(struct kmem_cache *s, struct slab_sheaf *sh, void *arg)
{
	unsigned int i, j;

	(void)arg;
	if (sh == &bootstrap_sheaf || sh->cache != s ||
	    sh->capacity != s->sheaf_capacity || sh->size > sh->capacity)
		return false;
	for (i = 0; i < sh->size; i++) {
		if (!object_of(s, sh->objects[i]))
			return false;
		for (j = 0; j < i; j++)
			if (sh->objects[j] == sh->objects[i])
				return false;
	}
	return true;
}

/* The invariants of mm/slab_internal.h for s; NULL or what is wrong. */
static const char *sheaf_invariants(struct kmem_cache *s)
{
	struct node_barn *barn = &get_node(s, 0)->barn;
	unsigned int cpu, nr_full = 0, nr_empty = 0;
	struct slab_sheaf *sh;
	unsigned long flags;
	const char *bad = NULL;

	if (bootstrap_sheaf.size || bootstrap_sheaf.capacity)
		return "bootstrap sheaf not empty";
	for_each_online_cpu(cpu) {
		struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[cpu];

		if (local_lock_is_locked(&pcs->lock))
			return "sheaf lock flag left set";
		if (!pcs->main)
			return "main is NULL";
		if (pcs->spare == &bootstrap_sheaf)
			return "spare is the bootstrap sheaf";
	}
	if (!for_each_sheaf(s, sheaf_sane, NULL))
		return "a sheaf of another cache or capacity, over-full, with a bad or repeated object";
	spin_lock_irqsave(&barn->lock, flags);
	list_for_each_entry(sh, &barn->sheaves_full, barn_list) {
		nr_full++;
		if (sh == &bootstrap_sheaf || !sh->size)
			bad = "barn: bootstrap or empty sheaf on the full list";
	}
	list_for_each_entry(sh, &barn->sheaves_empty, barn_list) {
		nr_empty++;
		if (sh == &bootstrap_sheaf || sh->size)
			bad = "barn: bootstrap or full sheaf on the empty list";
	}
	if (nr_full != barn->nr_full || nr_empty != barn->nr_empty)
		bad = "barn: counts do not match its lists";
	spin_unlock_irqrestore(&barn->lock, flags);
	return bad;
}

struct find_arg {
	const void *object;
	bool found;
};

static bool sheaf_holds(struct kmem_cache *s, struct slab_sheaf *sh, void *arg)
{
	struct find_arg *f = arg;
	unsigned int i;

	(void)s;
	for (i = 0; i < sh->size; i++)
		if (sh->objects[i] == f->object)
			f->found = true;
	return !f->found;
}

static bool in_some_sheaf(const void *object)
{
	struct kmem_cache *s = cache_of(object);
	struct find_arg f = { .object = object };

	if (!s || !cache_has_sheaves(s))
		return false;
	for_each_sheaf(s, sheaf_holds, &f);
	return f.found;
}

/* Every object the test holds, for the duplicate and accounting checks. */
static unsigned int held_objects(struct run_ctx *c, void **out)
{
	unsigned int i, n = 0;

	for (i = 0; i < c->nr_pool; i++)
		if (c->pool[i])
			out[n++] = c->pool[i];
	for (i = 0; i < NR_VICTIMS && !c->victims_freed; i++)
		out[n++] = c->victim[i];
	if (c->to_free)
		out[n++] = c->to_free;
	if (c->result)
		out[n++] = c->result;
	if (c->got_object)
		out[n++] = c->got_object;
	return n;
}

static long held_in(struct kmem_cache *s, void *const *held, unsigned int n)
{
	unsigned int i;
	long count = 0;

	for (i = 0; i < n; i++)
		if (cache_of(held[i]) == s)
			count++;
	return count;
}

static bool wait_for_deferred_frees(void)
{
	u64 end = test_deadline();

	while (slab_deferred_frees(smp_processor_id())) {
		if (rdtsc() > end)
			return false;
		cpu_relax();
	}
	return true;
}

/*
 * kmalloc_nolock() may return NULL when a lock it needs is held.  On this
 * CPU nothing holds one once the action returned, and the other CPUs are
 * idle, so a NULL is a bug - except during a flush: the flusher CPU holds
 * the barn lock and list_lock while it gives the sheaves back, and a NULL
 * counted as busy (obj_alloc_busy) is then the promised answer.
 */
static bool nolock_null_allowed(struct run_ctx *c)
{
	return c->fp == FP_KMALLOC_NOLOCK && !c->result &&
	       ss.action == ACT_FLUSH && ss.acted &&
	       this_cpu_ptr(nolock_stats)->obj_alloc_busy != c->alloc_busy;
}

/* What is wrong after the run, or NULL. */
static const char *check_run(struct run_ctx *c)
{
	static void *held[POOL_MAX + 8];
	unsigned int n, i, j;
	const char *bad;

	if (ss.runaway)
		return "traced past MAX_TRACED_STEPS";
	if (ss.unexpected)
		return "a #DB that was not our single step";
	if (paths[c->fp].alloc && !object_of(c->s, c->result) &&
	    !nolock_null_allowed(c))
		return "the call returned no valid object of its cache";
	if (c->got_object && (!cache_of(c->got_object) ||
			      !object_of(cache_of(c->got_object), c->got_object) ||
			      cache_of(c->got_object)->object_size < c->size))
		return "the action got an invalid object";
	if (warn_count != c->warns)
		return "a WARN";
	if (slab_reports != c->reports)
		return "a slab report";
	bad = sheaf_invariants(c->s);
	if (bad)
		return bad;
	n = held_objects(c, held);
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (held[i] == held[j])
				return "one object handed out twice";
		if (in_some_sheaf(held[i]))
			return "an object in use is also in a sheaf";
	}
	if (!wait_for_deferred_frees())
		return "deferred frees not drained";
	for (i = 0; i < NR_TRACKED_CACHES; i++)
		if (objects_in_use(c->tracked[i]) - held_in(c->tracked[i], held, n) !=
		    c->baseline[i])
			return "objects in use do not match what the test holds";
	return NULL;
}

/* ---- setting up and tearing down one run ---- */

static void *path_alloc(struct run_ctx *c)
{
	return c->private_cache ? kmem_cache_alloc(c->s, GFP_KERNEL)
					  : kmalloc(c->size, GFP_KERNEL);
}

static void path_free(struct run_ctx *c, void *p)
{
	if (c->private_cache)
		kmem_cache_free(c->s, p);
	else
		kfree(p);
}

static unsigned int main_size(struct kmem_cache *s)
{
	return s->cpu_sheaves[smp_processor_id()].main->size;
}

/* Size of this CPU's spare, or -1 if it has none. */
static int spare_size(struct kmem_cache *s)
{
	struct slab_sheaf *spare = s->cpu_sheaves[smp_processor_id()].spare;

	return spare ? (int)spare->size : -1;
}

/* One more object from the path into a free pool slot. */
static bool pool_take_one(struct run_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->nr_pool; i++) {
		if (c->pool[i])
			continue;
		c->pool[i] = path_alloc(c);
		return c->pool[i] != NULL;
	}
	return false;
}

/* Free the last held pool object (not a reserved slot). */
static bool pool_free_one(struct run_ctx *c)
{
	unsigned int i;

	for (i = c->nr_pool; i-- > POOL_RESERVED;) {
		if (!c->pool[i])
			continue;
		path_free(c, c->pool[i]);
		c->pool[i] = NULL;
		return true;
	}
	return false;
}

static bool sheaves_are(struct run_ctx *c, unsigned int main, int spare)
{
	return main_size(c->s) == main && spare_size(c->s) == spare;
}

/*
 * The slow states, from main holding target_main_size() objects:
 *   swap, from main full: one more free finds no spare and an empty barn,
 *     so main becomes the spare and a new empty sheaf main (1 object); an
 *     allocation empties main.  For a free, one more allocation swaps
 *     (main cap - 1, spare empty) and a free fills main again.
 *   refill, alloc, from main holding 1: an allocation empties main (no
 *     spare, barn empty): the traced call must drop the lock to refill.
 *   refill, free, from main full: as for swap, then cap - 1 frees fill
 *     main again (spare full too, barn empty): the traced call must drop
 *     the lock to get a new empty sheaf.
 */
static bool prepare_slow_state(struct run_ctx *c, enum main_state st)
{
	unsigned int cap = c->s->sheaf_capacity, i;
	bool alloc = paths[c->fp].alloc;

	if (st == MAIN_REFILL && alloc)
		return pool_take_one(c) && sheaves_are(c, 0, -1);
	if (!pool_free_one(c) || !sheaves_are(c, 1, (int)cap))
		return false;
	if (st == MAIN_REFILL) {
		for (i = 1; i < cap; i++)
			if (!pool_free_one(c))
				return false;
		return sheaves_are(c, cap, (int)cap);
	}
	if (!pool_take_one(c) || !sheaves_are(c, 0, (int)cap))
		return false;
	if (alloc)
		return true;
	if (!pool_take_one(c) || !sheaves_are(c, cap - 1, 0))
		return false;
	return pool_free_one(c) && sheaves_are(c, cap, 0);
}

/* The size main must have for this path and state. */
static unsigned int target_main_size(struct run_ctx *c, enum main_state st)
{
	unsigned int cap = c->s->sheaf_capacity;

	if (st == MAIN_WARM)
		return cap / 2;
	if (st == MAIN_SWAP || (st == MAIN_REFILL && !paths[c->fp].alloc))
		return cap;
	if (st == MAIN_REFILL)
		return 1;
	return paths[c->fp].alloc ? 1 : cap - 1;
}

/*
 * From a flushed cache (main the bootstrap sheaf, barn empty), free pool
 * objects until main holds the target; the rest stay held.  The victim
 * (freed by the action), the object the traced call frees and a page are
 * taken from what is left.
 */
static bool prepare_run(struct run_ctx *c, enum fast_path fp,
			enum main_state st)
{
	unsigned int i, target, cap;

	memset(c, 0, sizeof(*c));
	c->fp = fp;
	c->private_cache = paths[fp].private_cache;
	c->s = paths[fp].private_cache ? test_cache
				       : kmalloc_slab(KMALLOC_PATH_SIZE);
	c->size = c->s->object_size;
	cap = c->s->sheaf_capacity;
	c->nr_pool = (st == MAIN_REFILL ? 2 * cap : cap) + POOL_EXTRA;
	if (!cap || c->nr_pool > POOL_MAX)
		return false;
	for (i = 0; i < c->nr_pool; i++) {
		c->pool[i] = path_alloc(c);
		if (!c->pool[i])
			return false;
	}
	kmem_cache_shrink(c->s);
	target = target_main_size(c, st);
	for (i = c->nr_pool; i-- > POOL_RESERVED && main_size(c->s) < target;) {
		path_free(c, c->pool[i]);
		c->pool[i] = NULL;
	}
	if (main_size(c->s) != target)
		return false;
	if ((st == MAIN_SWAP || st == MAIN_REFILL) && !prepare_slow_state(c, st))
		return false;
	for (i = 0; i < NR_VICTIMS; i++) {
		c->victim[i] = c->pool[i];
		c->pool[i] = NULL;
	}
	if (!paths[fp].alloc) {
		c->to_free = c->pool[NR_VICTIMS];
		c->pool[NR_VICTIMS] = NULL;
	}
	c->victim_page = alloc_pages(GFP_KERNEL, 0);
	if (!c->victim[NR_VICTIMS - 1] || !c->victim_page ||
	    !wait_for_deferred_frees())
		return false;

	c->tracked[0] = c->s;
	c->tracked[1] = kmalloc_slab(c->size);
	c->tracked[2] = kmalloc_slab(kmalloc_size_roundup(c->size) + 1);
	for (i = 0; i < NR_TRACKED_CACHES; i++) {
		static void *held[POOL_MAX + 8];
		unsigned int n = held_objects(c, held);

		c->baseline[i] = objects_in_use(c->tracked[i]) -
				 held_in(c->tracked[i], held, n);
	}
	c->warns = warn_count;
	c->reports = slab_reports;
	c->alloc_busy = this_cpu_ptr(nolock_stats)->obj_alloc_busy;
	return true;
}

/* Give back everything; false if the cache's count did not come back. */
static bool finish_run(struct run_ctx *c)
{
	unsigned int i;

	for (i = 0; i < c->nr_pool; i++)
		if (c->pool[i])
			path_free(c, c->pool[i]);
	for (i = 0; i < NR_VICTIMS && !c->victims_freed; i++)
		if (c->victim[i])
			path_free(c, c->victim[i]);
	if (c->to_free)
		path_free(c, c->to_free);
	if (c->result)
		path_free(c, c->result);
	kfree(c->got_object);
	if (c->got_page)
		__free_pages(c->got_page, 0);
	if (!c->victim_page_freed && c->victim_page)
		__free_pages(c->victim_page, 0);
	if (!wait_for_deferred_frees())
		return false;
	for (i = 0; i < NR_TRACKED_CACHES; i++)
		if (objects_in_use(c->tracked[i]) != c->baseline[i])
			return false;
	return true;
}

/* The sheaf sweeps need the private cache's sheaves; their kmalloc paths
 * run only where the kmalloc classes have sheaves (slab_mode=sheaf, the
 * default; the cpu-slab sweeps take them in a cpuslab boot). */
static bool kmalloc_has_sheaves(void)
{
	return cache_has_sheaves(kmalloc_slab(KMALLOC_PATH_SIZE));
}

static bool path_has_sheaves(enum fast_path fp)
{
	return paths[fp].private_cache ? cache_has_sheaves(test_cache)
				       : kmalloc_has_sheaves();
}

static void need_sheaves(struct kunit *test, bool kmalloc_too)
{
	struct kmem_cache *km = kmalloc_slab(KMALLOC_PATH_SIZE);

	if (!cache_has_sheaves(test_cache))
		kunit_skip(test, "no sheaves: slub_debug= made every cache a debug cache");
	if (kmalloc_too && !cache_has_sheaves(km))
		kunit_skip(test, "kmalloc's inline sheaf paths: %s is in mode %s (slab_mode=)",
			   km->name, slab_mode_names[kmem_cache_mode(km)]);
	if (!cache_has_sheaves(km))
		kunit_info(test, "kmalloc paths left out: %s is in mode %s (the cpu-slab cases take them when it is cpuslab)",
			   km->name, slab_mode_names[kmem_cache_mode(km)]);
}

/* ---- sweeping every instruction ---- */

static struct run_ctx run;

/*
 * Where an action lands: just before the traced code runs the instruction
 * at rip for the occ-th time (step: its index in the counting run).
 * Named by address and occurrence rather than by step index, a point
 * stays the same place when a callee deep in a slow path takes a few
 * instructions more or less from one run to the next.
 */
struct point {
	unsigned long rip;
	unsigned int occ;
	unsigned int step;
};

static const struct point no_point;

/* One run with the action at pt (occ 0: none); the steps traced. */
static unsigned int run_once(struct kunit *test, enum fast_path fp,
			     enum main_state st, enum ss_action act,
			     const struct point *pt, unsigned int *reported)
{
	const char *bad;
	char sym[96];

	if (!prepare_run(&run, fp, st)) {
		KUNIT_FAIL(test, "%s/%s: setup failed", paths[fp].name,
			   main_state_names[st]);
		finish_run(&run);
		(*reported)++;
		return 0;
	}
	ss.steps = 0;
	ss.act_rip = pt->rip;
	ss.act_occ = pt->occ;
	ss.occ_seen = 0;
	ss.action = act;
	ss.ctx = &run;
	ss.acted = ss.runaway = ss.in_handler = false;
	ss.unexpected = ss.irqs_off_steps = 0;
	traced_call(&run);
	bad = NULL;
	if (act == ACT_FLUSH && ss.acted && !wait_for_flusher())
		bad = "the flusher never finished";
	/* This CPU had real sheaves (every state has): a flush that took
	 * them flushed and freed at least one. */
	if (!bad && act == ACT_FLUSH && ss.acted &&
	    slab_stat_sum(run.s, SHEAF_FREE) == run.sheaf_frees)
		bad = "the flush left this CPU's sheaves (the cache did not shrink)";
	if (flush_ipi_missed)
		bad = "the flush IPI never reached this CPU";
	flush_ipi_missed = false;
	if (!bad)
		bad = check_run(&run);
	if (!bad && !finish_run(&run))
		bad = "objects in use did not come back after freeing all";
	if (bad && (*reported)++ < MAX_REPORTS) {
		kallsyms_format(pt->rip, sym, sizeof(sym));
		KUNIT_FAIL(test, "%s/%s, %s at step %u (before %s, time %u): %s",
			   paths[fp].name, main_state_names[st],
			   action_names[act], pt->step, pt->occ ? sym : "-",
			   pt->occ, bad);
	}
	if (bad)
		finish_run(&run);   /* what can be given back */
	if (pt->occ && ss.acted) {
		triples[act]++;
		seq_note(seq_acted[act], pt->rip);
	}
	return ss.steps;
}

/* The steps of the path's call, with no action (their addresses in
 * ss.rip); 0 on failure. */
static unsigned int count_steps(struct kunit *test, enum fast_path fp,
				enum main_state st)
{
	bool slow = st == MAIN_REFILL;
	unsigned int max = slow ? SLOW_PATH_MAX_STEPS : FAST_PATH_MAX_STEPS;
	unsigned int reported = 0, tries;
	unsigned int n = run_once(test, fp, st, ACT_NONE, &no_point, &reported);
	unsigned int again = run_once(test, fp, st, ACT_NONE, &no_point,
				      &reported);

	/* A timer IRQ that lands inside a restartable sequence while we
	 * trace sends it back to its start (the real IRQ entry does), so a
	 * run may trace a few instructions more: count again. */
	for (tries = 0; !slow && n != again && tries < COUNT_RETRIES; tries++) {
		n = again;
		again = run_once(test, fp, st, ACT_NONE, &no_point, &reported);
	}

	/* A refill's callees vary (a new slab or not): the sheaf layer's
	 * points are found by address, so only the fast states must agree. */
	if ((!slow && n != again) || !again || again > max || reported) {
		KUNIT_FAIL(test, "%s/%s: %u then %u steps (expected 1..%u)",
			   paths[fp].name, main_state_names[st], n, again, max);
		return 0;
	}
	return again;
}

/* The functions of the sheaf layer and the fast paths' callers: every
 * instruction of theirs is a point; below them (slabs, pages, locks) one
 * in SAMPLE_STRIDE is. */
static const char *const sheaf_layer[] = {
	"traced_call", "kmalloc", "kfree", "kmem_cache_alloc",
	"kmem_cache_free", "kmalloc_nolock", "kfree_nolock", "__kmalloc",
	"kfree_dispatch", "slab_alloc_caller", "slab_free", "slab_alloc_nolock",
	"slab_free_nolock", "alloc_from_pcs", "free_to_pcs",
	"free_to_pcs_slow", "alloc_from_pcs_nolock", "free_to_pcs_nolock",
	"barn_get_sheaf", "barn_put_sheaf", "barn_replace_full_sheaf",
	"barn_replace_empty_sheaf", "barn_take_locked",
};

static bool in_sheaf_layer(unsigned long rip)
{
	unsigned long off, size;
	const char *name = kallsyms_lookup(rip, &off, &size);
	unsigned int i, len;

	if (!name)
		return false;
	for (i = 0; i < ARRAY_SIZE(sheaf_layer); i++) {
		len = strlen(sheaf_layer[i]);
		/* "name" or a compiler clone: "name.constprop.0", "name.cold" */
		if (!strncmp(name, sheaf_layer[i], len) &&
		    (name[len] == '\0' || name[len] == '.'))
			return true;
	}
	return false;
}

static struct point points[SLOW_PATH_MAX_STEPS];

/* The points of a counted run of n steps (in ss.rip). */
static unsigned int choose_points(unsigned int n)
{
	unsigned int k, j, nr = 0;

	for (k = 0; k < n; k++) {
		unsigned int occ = 0;

		seq_note(seq_traced, ss.rip[k]);
		if (n > FAST_PATH_MAX_STEPS && k % SAMPLE_STRIDE &&
		    !in_sheaf_layer(ss.rip[k]))
			continue;
		for (j = 0; j <= k; j++)
			if (ss.rip[j] == ss.rip[k])
				occ++;
		points[nr].rip = ss.rip[k];
		points[nr].occ = occ;
		points[nr].step = k;
		nr++;
	}
	return nr;
}

/*
 * The refill states trace thousands of instructions each (kmalloc-64
 * refills 60 objects) and nothing in them depends on how many CPUs there
 * are: they run in the one-CPU boot of make test only.  A flush costs IPI
 * round trips between two CPUs spinning under TCG (milliseconds a run on
 * a loaded host), so it runs in the edge state only: every instruction of
 * each call, the fast path's whole restartable sequence included (warm runs the
 * same instructions; in swap and refill the slow step holds the lock with
 * IRQs off, where no IPI lands).
 */
static bool state_runs_here(enum main_state st, enum ss_action act)
{
	if (act == ACT_FLUSH)
		return st == MAIN_EDGE;
	return st != MAIN_REFILL || nr_cpu_ids == 1;
}

static void sweep_action(struct kunit *test, enum ss_action act)
{
	unsigned long before = triples[act];
	unsigned int fp, st, failed = 0, i;

	need_sheaves(test, false);
	for (fp = 0; fp < NR_FAST_PATHS; fp++) {
		if (!path_has_sheaves(fp))
			continue;
		for (st = 0; st < NR_MAIN_STATES; st++) {
			unsigned int n, nr, reported = 0;

			if (!state_runs_here(st, act))
				continue;
			n = count_steps(test, fp, st);
			nr = choose_points(n);

			for (i = 0; i < nr; i++)
				run_once(test, fp, st, act, &points[i],
					 &reported);
			if (reported)
				kunit_info(test, "%s/%s: %u of %u points failed with action %s",
					   paths[fp].name, main_state_names[st],
					   reported, nr, action_names[act]);
			failed += reported;
		}
	}
	kunit_info(test, "action %s: %lu (path, instruction, action) triples run, %u failed",
		   action_names[act], triples[act] - before, failed);
	KUNIT_EXPECT_GT(test, triples[act] - before, 0);
}

/* ---- the cpu-slab fast paths (mm/cpu_slab.c) ---- */

/*
 * SLUB's per-CPU slabs have no restartable sequence: cpu_slab_alloc_fast()
 * and cpu_slab_free_fast() read this CPU's tid, then its freelist head
 * and slab (and, to pop, the head's free pointer), and commit with one
 * cmpxchg16b of (freelist, tid).  Anything that lands in between and uses
 * this CPU's line changes tid, so the commit fails and the path reads
 * again (CMPXCHG_DOUBLE_CPU_FAIL); nothing sends it back.  The same sweep
 * as above puts an NMI (slab_alloc_nolock() on the same cache - or
 * kmalloc_nolock() of the class - and kmem_cache_free()/kfree_nolock() of
 * two objects of this CPU's slab), an IRQ (the same with the locked API)
 * and another CPU's flush of the cache (flush_all_cpu_slabs(): its IPI
 * unfreezes this CPU's slab under the traced code) before every
 * instruction of each call, on a private cpu-slab cache in every boot and
 * on kmalloc-64 when slab_mode=cpuslab made the classes cpu-slab ones.
 * After each run: the result is an object of the cache, no object is
 * held twice or is also free (on a CPU's freelist or its slab's), the
 * cache's invariants hold (slab_cache_check(): F1, F2 and the cross
 * checks), and the objects in use are exactly those the test holds.
 *
 * States of this CPU's line when the call starts (enum cs_state):
 *   warm  its freelist holds a few objects of its slab, and the object a
 *         free path frees is of that slab: both fast paths commit;
 *   edge  alloc: one object left on the freelist (the NMI's or IRQ's
 *         allocation takes it, and the call must not hand it out again);
 *         free: the freelist empty, the slab still this CPU's.
 */
enum cs_path {
	CS_CACHE_ALLOC,
	CS_CACHE_FREE,
	CS_CACHE_ALLOC_NOLOCK,
	CS_CACHE_FREE_NOLOCK,
	CS_KMALLOC,
	CS_KFREE,
	CS_KMALLOC_NOLOCK,
	CS_KFREE_NOLOCK,
	NR_CS_PATHS
};

static const struct {
	const char *name;
	bool alloc;
	bool private_cache;
} cs_paths[NR_CS_PATHS] = {
	[CS_CACHE_ALLOC]        = { "cs:kmem_cache_alloc", true, true },
	[CS_CACHE_FREE]         = { "cs:kmem_cache_free", false, true },
	[CS_CACHE_ALLOC_NOLOCK] = { "cs:slab_alloc_nolock", true, true },
	[CS_CACHE_FREE_NOLOCK]  = { "cs:slab_free_nolock", false, true },
	[CS_KMALLOC]            = { "cs:kmalloc", true, false },
	[CS_KFREE]              = { "cs:kfree", false, false },
	[CS_KMALLOC_NOLOCK]     = { "cs:kmalloc_nolock", true, false },
	[CS_KFREE_NOLOCK]       = { "cs:kfree_nolock", false, false },
};

enum cs_state { CS_WARM, CS_EDGE, NR_CS_STATES };
static const char *const cs_state_names[] = { "warm", "edge" };

#define CS_OBJECT_SIZE   64   /* as kmalloc-64 */
#define CS_WARM_FREE     4   /* objects on this CPU's freelist, warm */
#define CS_MINE          (NR_VICTIMS + 1 + CS_WARM_FREE)

static struct kmem_cache *cs_cache;   /* a private cpu-slab cache */

static struct kmem_cache *cs_path_cache(enum cs_path fp)
{
	return cs_paths[fp].private_cache ? cs_cache
					  : kmalloc_slab(KMALLOC_PATH_SIZE);
}

static bool cs_path_runs(enum cs_path fp)
{
	struct kmem_cache *s = cs_path_cache(fp);

	return s && cache_has_cpu_slab(s);
}

static __noinline void cs_traced_call(struct run_ctx *c)
{
	void *ret = NULL;
	bool busy;

	ss.armed = true;
	switch ((enum cs_path)c->fp) {
	case CS_CACHE_ALLOC:
		trace_flag_set();
		ret = kmem_cache_alloc(c->s, GFP_KERNEL);
		trace_flag_clear();
		break;
	case CS_CACHE_FREE:
		trace_flag_set();
		kmem_cache_free(c->s, c->to_free);
		trace_flag_clear();
		break;
	case CS_CACHE_ALLOC_NOLOCK:
		trace_flag_set();
		ret = slab_alloc_nolock(c->s, 0, NUMA_NO_NODE, &busy, _THIS_IP_);
		trace_flag_clear();
		break;
	case CS_CACHE_FREE_NOLOCK:
		trace_flag_set();
		slab_free_nolock(c->s, c->to_free, _THIS_IP_);
		trace_flag_clear();
		break;
	case CS_KMALLOC:
		trace_flag_set();
		ret = kmalloc(c->size, GFP_KERNEL);
		trace_flag_clear();
		break;
	case CS_KFREE:
		trace_flag_set();
		kfree(c->to_free);
		trace_flag_clear();
		break;
	case CS_KMALLOC_NOLOCK:
		trace_flag_set();
		ret = kmalloc_nolock(c->size, 0, NUMA_NO_NODE);
		trace_flag_clear();
		break;
	case CS_KFREE_NOLOCK:
		trace_flag_set();
		kfree_nolock(c->to_free);
		trace_flag_clear();
		break;
	case NR_CS_PATHS:
		break;
	}
	ss.armed = false;
	c->result = ret;
	if (!cs_paths[c->fp].alloc)
		c->to_free = NULL;
}

static struct kmem_cache_cpu *cs_line(struct kmem_cache *s)
{
	return &s->cpu_slab[smp_processor_id()];
}

/* Is p free: on a CPU's freelist, or on its slab's own freelist? */
static bool cs_object_free(struct kmem_cache *s, const void *p)
{
	struct page *slab = virt_to_slab(p);
	unsigned int cpu, n;
	void *q;

	for_each_online_cpu(cpu) {
		struct kmem_cache_cpu *c = &s->cpu_slab[cpu];

		if (c->slab != slab)
			continue;
		for (q = c->freelist, n = 0; q && n <= slab->objects;
		     q = get_freepointer(s, q), n++)
			if (q == p)
				return true;
	}
	for (q = slab_freelist(s, slab), n = 0; q && n <= slab->objects;
	     q = get_freepointer(s, q), n++)
		if (q == p)
			return true;
	return false;
}

/* Objects of this CPU's slab among the held ones, into mine[]. */
static unsigned int cs_mine(struct run_ctx *c, unsigned int *mine,
			    unsigned int max)
{
	struct page *slab = cs_line(c->s)->slab;
	unsigned int i, n = 0;

	for (i = 0; i < c->nr_pool && n < max; i++)
		if (c->pool[i] && virt_to_slab(c->pool[i]) == slab)
			mine[n++] = i;
	return n;
}

/*
 * From a flushed cache, allocate until CS_MINE held objects are of this
 * CPU's slab; then set its freelist's length for the state, and take the
 * victims and the object to free from those objects.
 */
static bool cs_prepare_run(struct run_ctx *c, enum cs_path fp,
			   enum cs_state st)
{
	unsigned int mine[CS_MINE], n, i, want;
	void *tmp;

	memset(c, 0, sizeof(*c));
	c->fp = (enum fast_path)fp;
	c->cpu_slab = true;
	c->private_cache = cs_paths[fp].private_cache;
	c->s = cs_path_cache(fp);
	c->size = c->s->object_size;
	kmem_cache_shrink(c->s);
	for (n = 0; c->nr_pool < POOL_MAX && n < CS_MINE; ) {
		c->pool[c->nr_pool] = path_alloc(c);
		if (!c->pool[c->nr_pool++])
			return false;
		n = cs_mine(c, mine, CS_MINE);
	}
	if (n < CS_MINE)
		return false;
	/* The freelist's length: warm CS_WARM_FREE or more; edge 1 to
	 * allocate, 0 to free (taken into the pool, the slab kept). */
	want = st == CS_WARM ? CS_WARM_FREE : cs_paths[fp].alloc ? 1 : 0;
	while (cpu_slab_objects(c->s, smp_processor_id()) > want &&
	       c->nr_pool < POOL_MAX && st == CS_EDGE) {
		c->pool[c->nr_pool] = path_alloc(c);
		if (!c->pool[c->nr_pool++])
			return false;
	}
	for (i = CS_MINE; i-- > NR_VICTIMS + 1 &&
	     cpu_slab_objects(c->s, smp_processor_id()) < want;) {
		tmp = c->pool[mine[i]];
		c->pool[mine[i]] = NULL;
		path_free(c, tmp);
	}
	if (cpu_slab_objects(c->s, smp_processor_id()) != want &&
	    (st == CS_EDGE ||
	     cpu_slab_objects(c->s, smp_processor_id()) < want))
		return false;
	for (i = 0; i < NR_VICTIMS; i++) {
		c->victim[i] = c->pool[mine[i]];
		c->pool[mine[i]] = NULL;
	}
	if (!cs_paths[fp].alloc) {
		c->to_free = c->pool[mine[NR_VICTIMS]];
		c->pool[mine[NR_VICTIMS]] = NULL;
	}
	c->victim_page = alloc_pages(GFP_KERNEL, 0);
	if (!c->victim_page || !wait_for_deferred_frees())
		return false;
	c->tracked[0] = c->tracked[1] = c->tracked[2] = c->s;
	{
		static void *held[POOL_MAX + 8];
		unsigned int nh = held_objects(c, held);

		c->baseline[0] = objects_in_use(c->s) - held_in(c->s, held, nh);
		c->baseline[1] = c->baseline[2] = c->baseline[0];
	}
	c->warns = warn_count;
	c->reports = slab_reports;
	c->alloc_busy = this_cpu_ptr(nolock_stats)->obj_alloc_busy;
	return true;
}

static const char *cs_check_run(struct run_ctx *c)
{
	static void *held[POOL_MAX + 8];
	unsigned int n, i, j;

	if (ss.runaway)
		return "traced past MAX_TRACED_STEPS";
	if (ss.unexpected)
		return "a #DB that was not our single step";
	if (cs_paths[c->fp].alloc && !object_of(c->s, c->result) &&
	    !(c->fp == (enum fast_path)CS_KMALLOC_NOLOCK && !c->result &&
	      ss.action == ACT_FLUSH && ss.acted &&
	      this_cpu_ptr(nolock_stats)->obj_alloc_busy != c->alloc_busy))
		return "the call returned no valid object of its cache";
	if (c->got_object && (!cache_of(c->got_object) ||
			      !object_of(cache_of(c->got_object), c->got_object)))
		return "the action got an invalid object";
	if (warn_count != c->warns)
		return "a WARN";
	if (slab_reports != c->reports)
		return "a slab report";
	if (!wait_for_deferred_frees())
		return "deferred frees not drained";
	n = held_objects(c, held);
	for (i = 0; i < n; i++) {
		for (j = 0; j < i; j++)
			if (held[i] == held[j])
				return "one object handed out twice";
		if (cache_of(held[i]) && cache_has_cpu_slab(cache_of(held[i])) &&
		    cs_object_free(cache_of(held[i]), held[i]))
			return "an object in use is also free (on a freelist)";
	}
	if (slab_cache_check(c->s))
		return "slab_cache_check() found broken invariants (above)";
	if (objects_in_use(c->s) - held_in(c->s, held, n) != c->baseline[0])
		return "objects in use do not match what the test holds";
	return NULL;
}

/* Fast-path commits (ALLOC_FASTPATH or FREE_FASTPATH) of the last
 * traced call. */
static unsigned long cs_fast_taken;

static unsigned int cs_run_once(struct kunit *test, enum cs_path fp,
				enum cs_state st, enum ss_action act,
				const struct point *pt, unsigned int *reported)
{
	const char *bad = NULL;
	unsigned long fast;
	char sym[96];

	if (!cs_prepare_run(&run, fp, st)) {
		KUNIT_FAIL(test, "%s/%s: setup failed", cs_paths[fp].name,
			   cs_state_names[st]);
		finish_run(&run);
		(*reported)++;
		return 0;
	}
	ss.steps = 0;
	ss.act_rip = pt->rip;
	ss.act_occ = pt->occ;
	ss.occ_seen = 0;
	ss.action = act;
	ss.ctx = &run;
	ss.acted = ss.runaway = ss.in_handler = false;
	ss.unexpected = ss.irqs_off_steps = 0;
	fast = slab_stat_sum(run.s, cs_paths[fp].alloc ? ALLOC_FASTPATH :
							  FREE_FASTPATH);
	cs_traced_call(&run);
	cs_fast_taken = slab_stat_sum(run.s, cs_paths[fp].alloc ?
					     ALLOC_FASTPATH :
					     FREE_FASTPATH) - fast;
	if (act == ACT_FLUSH && ss.acted && !wait_for_flusher())
		bad = "the flusher never finished";
	/* This CPU had a frozen slab (every state has): the flush took it. */
	if (!bad && act == ACT_FLUSH && ss.acted &&
	    slab_stat_sum(run.s, CPUSLAB_FLUSH) == run.sheaf_frees)
		bad = "the flush left this CPU's slab frozen";
	if (flush_ipi_missed)
		bad = "the flush IPI never reached this CPU";
	flush_ipi_missed = false;
	if (!bad)
		bad = cs_check_run(&run);
	if (!bad && !finish_run(&run))
		bad = "objects in use did not come back after freeing all";
	if (bad && (*reported)++ < MAX_REPORTS) {
		kallsyms_format(pt->rip, sym, sizeof(sym));
		KUNIT_FAIL(test, "%s/%s, %s at step %u (before %s, time %u): %s",
			   cs_paths[fp].name, cs_state_names[st],
			   action_names[act], pt->step, pt->occ ? sym : "-",
			   pt->occ, bad);
	}
	if (bad)
		finish_run(&run);
	if (pt->occ && ss.acted)
		triples[act]++;
	return ss.steps;
}

/* The steps of a cpu-slab call with no action (ss.rip); 0 on failure.
 * The call must have committed by its fast path: ALLOC_FASTPATH or
 * FREE_FASTPATH counted exactly once during it. */
static unsigned int cs_count_steps(struct kunit *test, enum cs_path fp,
				   enum cs_state st)
{
	unsigned int reported = 0, n, again, tries;

	n = cs_run_once(test, fp, st, ACT_NONE, &no_point, &reported);
	again = cs_run_once(test, fp, st, ACT_NONE, &no_point, &reported);
	for (tries = 0; n != again && tries < COUNT_RETRIES; tries++) {
		n = again;
		again = cs_run_once(test, fp, st, ACT_NONE, &no_point,
				    &reported);
	}
	if (n != again || !again || again > FAST_PATH_MAX_STEPS || reported) {
		KUNIT_FAIL(test, "%s/%s: %u then %u steps (expected 1..%u)",
			   cs_paths[fp].name, cs_state_names[st], n, again,
			   FAST_PATH_MAX_STEPS);
		return 0;
	}
	if (cs_fast_taken != 1) {
		KUNIT_FAIL(test, "%s/%s: the traced call did not take the fast path",
			   cs_paths[fp].name, cs_state_names[st]);
		return 0;
	}
	return again;
}

static void cs_sweep_action(struct kunit *test, enum ss_action act)
{
	unsigned long before = triples[act], retries = 0;
	unsigned int fp, st, failed = 0, i, ran = 0;

	if (!cs_path_runs(CS_CACHE_ALLOC) && !cs_path_runs(CS_KMALLOC))
		kunit_skip(test, "no cpu-slab cache: slub_debug= made every cache a debug cache");

	for (fp = 0; fp < NR_CS_PATHS; fp++) {
		struct kmem_cache *s;
		unsigned long cpu_fail;

		if (!cs_path_runs(fp))
			continue;
		s = cs_path_cache(fp);
		cpu_fail = slab_stat_sum(s, CMPXCHG_DOUBLE_CPU_FAIL);
		ran++;
		for (st = 0; st < NR_CS_STATES; st++) {
			unsigned int n, nr, reported = 0;

			n = cs_count_steps(test, fp, st);
			nr = n ? choose_points(n) : 0;
			for (i = 0; i < nr; i++)
				cs_run_once(test, fp, st, act, &points[i],
					    &reported);
			if (reported)
				kunit_info(test, "%s/%s: %u of %u points failed with action %s",
					   cs_paths[fp].name, cs_state_names[st],
					   reported, nr, action_names[act]);
			failed += reported;
		}
		/* Some action landed between the reads and the commit, and
		 * the commit failed and read again. */
		retries += slab_stat_sum(s, CMPXCHG_DOUBLE_CPU_FAIL) - cpu_fail;
		if (act != ACT_NONE &&
		    slab_stat_sum(s, CMPXCHG_DOUBLE_CPU_FAIL) == cpu_fail)
			KUNIT_FAIL(test, "%s: no %s made the cmpxchg16b fail and retry",
				   cs_paths[fp].name, action_names[act]);
	}
	kunit_info(test, "cpu slab, action %s: %u paths, %lu (path, instruction, action) triples run, %lu cmpxchg16b retries, %u failed",
		   action_names[act], ran, triples[act] - before, retries,
		   failed);
	KUNIT_EXPECT_GT(test, triples[act] - before, 0);
}

/* ---- cases ---- */

static unsigned long quiesced_free_pages(void)
{
	kmem_cache_shrink_all();
	drain_all_pages();
	return nr_free_pages();
}

static unsigned long pages_before;

/* Before anything can skip: the exit compares with it. */
static int singlestep_init(struct kunit *test)
{
	(void)test;
	pages_before = quiesced_free_pages();
	return 0;
}

static void singlestep_exit(struct kunit *test)
{
	ss.armed = false;
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), pages_before);
}

/*
 * The tracer on a known sequence: PUSHF, CLI, NOP, POPF (IF and TF back
 * from the stack), NOP.  Every instruction after the POPF that set TF is
 * a step, the two that start with IF clear show it, and the POPF in the
 * middle does not end tracing (the NOP after it and our own clearing
 * sequence are still steps: 8 in all under TCG, the trap after the
 * POPF that clears TF included).
 */
#define TRACER_SEQUENCE_STEPS 5   /* pushf, cli, nop, popf, nop */
#define TRACER_IRQS_OFF_STEPS 2   /* stopped before the nop, the popf */

static __noinline unsigned int trace_known_sequence(void)
{
	ss.steps = ss.irqs_off_steps = ss.unexpected = 0;
	ss.act_occ = 0;
	ss.armed = true;
	trace_flag_set();
	__asm__ __volatile__("pushfq\n\tcli\n\tnop\n\tpopfq\n\tnop"
			     : : : "memory", "cc");
	trace_flag_clear();
	ss.armed = false;
	return ss.steps;
}

static void singlestep_tracer(struct kunit *test)
{
	unsigned int steps = trace_known_sequence();

	kunit_info(test, "known sequence: %u steps, %u with IRQs off",
		   steps, ss.irqs_off_steps);
	KUNIT_EXPECT_GE(test, steps, TRACER_SEQUENCE_STEPS);
	KUNIT_EXPECT_EQ(test, ss.irqs_off_steps, TRACER_IRQS_OFF_STEPS);
	KUNIT_EXPECT_EQ(test, ss.unexpected, 0);
	KUNIT_EXPECT_FALSE(test, read_rflags() & RFLAGS_TF);
	KUNIT_EXPECT_EQ(test, trace_known_sequence(), steps);
}

/*
 * The step counts themselves: each fast path is a short straight line
 * with IRQs on throughout; a swap or refill turns IRQs off (CLI under
 * local_irq_save()) and on again (STI), and tracing must go on through
 * both: some steps stop with IF clear, and not all.
 */
static void singlestep_count(struct kunit *test)
{
	unsigned int fp, st, n;

	need_sheaves(test, false);
	for (fp = 0; fp < NR_FAST_PATHS; fp++) {
		if (!path_has_sheaves(fp))
			continue;
		for (st = 0; st < NR_MAIN_STATES; st++) {
			if (!state_runs_here(st, ACT_NONE))
				continue;
			n = count_steps(test, fp, st);
			kunit_info(test, "%s/%s: %u instructions traced, %u with IRQs off",
				   paths[fp].name, main_state_names[st], n,
				   ss.irqs_off_steps);
			if (st == MAIN_EDGE || st == MAIN_WARM) {
				KUNIT_EXPECT_EQ(test, ss.irqs_off_steps, 0);
			} else {
				KUNIT_EXPECT_GT(test, ss.irqs_off_steps, 0);
				KUNIT_EXPECT_LT(test, ss.irqs_off_steps, n);
			}
		}
	}
}

static void singlestep_nmi(struct kunit *test)
{
	sweep_action(test, ACT_NMI);
}

static void singlestep_irq(struct kunit *test)
{
	sweep_action(test, ACT_IRQ);
}

static bool flusher_online(void)
{
	return nr_cpu_ids > FLUSHER_CPU &&
	       READ_ONCE(percpu_areas[FLUSHER_CPU].online);
}

static void singlestep_cpu_slab_nmi(struct kunit *test)
{
	cs_sweep_action(test, ACT_NMI);
}

static void singlestep_cpu_slab_irq(struct kunit *test)
{
	cs_sweep_action(test, ACT_IRQ);
}

static void singlestep_cpu_slab_flush(struct kunit *test)
{
	if (!flusher_online())
		kunit_skip(test, "a remote flush needs a second CPU");
	call_ipi_handler = get_irq_handler(CALL_FUNCTION_SINGLE_VECTOR);
	set_irq_handler(CALL_FUNCTION_SINGLE_VECTOR, counting_call_ipi);
	cs_sweep_action(test, ACT_FLUSH);
	set_irq_handler(CALL_FUNCTION_SINGLE_VECTOR, call_ipi_handler);
}

static void singlestep_flush(struct kunit *test)
{
	if (!flusher_online())
		kunit_skip(test, "a remote flush needs a second CPU");
	call_ipi_handler = get_irq_handler(CALL_FUNCTION_SINGLE_VECTOR);
	set_irq_handler(CALL_FUNCTION_SINGLE_VECTOR, counting_call_ipi);
	sweep_action(test, ACT_FLUSH);
	set_irq_handler(CALL_FUNCTION_SINGLE_VECTOR, call_ipi_handler);
	kunit_info(test, "total: %lu (path, instruction, action) triples",
		   triples[ACT_NMI] + triples[ACT_IRQ] + triples[ACT_FLUSH]);
}

/*
 * Every restartable sequence in the kernel (the __rseq_table entries: one
 * per inlined copy of the sheaf pop and push) was traced whole by the
 * sweeps above - as many distinct instructions as its entry says - and an
 * NMI and an IRQ each landed before every one of them; some of those
 * sent it back to its start.  The count is what docs/any-context.md
 * quotes.
 */
static void singlestep_rseq(struct kunit *test)
{
	unsigned long nr = __stop_rseq_table - __start_rseq_table;
	unsigned long insns = 0, nmi = 0, irq = 0, i;

	need_sheaves(test, true);   /* kmalloc's sequences run only then */
	KUNIT_ASSERT_GT(test, nr, 0);
	KUNIT_ASSERT_LE(test, nr, RSEQ_TRACE_MAX_SEQS);
	for (i = 0; i < nr; i++) {
		const struct rseq_cs *cs = &__start_rseq_table[i];
		char sym[96];

		kallsyms_format(cs->start_ip, sym, sizeof(sym));
		insns += cs->insns;
		nmi += seq_acted[ACT_NMI][i].nr;
		irq += seq_acted[ACT_IRQ][i].nr;
		if (seq_traced[i].nr == cs->insns &&
		    seq_acted[ACT_NMI][i].nr == cs->insns &&
		    seq_acted[ACT_IRQ][i].nr == cs->insns &&
		    !seq_traced[i].overflow)
			continue;
		KUNIT_FAIL(test, "sequence at %s (%lu instructions): %u traced, NMI before %u, IRQ before %u",
			   sym, cs->insns, seq_traced[i].nr,
			   seq_acted[ACT_NMI][i].nr, seq_acted[ACT_IRQ][i].nr);
	}
	kunit_info(test, "restartable sequences: %lu, %lu instructions; an NMI before %lu of them, an IRQ before %lu; %lu restarts",
		   nr, insns, nmi, irq, ss.restarts);
	KUNIT_EXPECT_EQ(test, nmi, insns);
	KUNIT_EXPECT_EQ(test, irq, insns);
	KUNIT_EXPECT_GT(test, ss.restarts, 0);
}

/*
 * The sweeps above call rseq_ip_fixup() from the #DB handler themselves,
 * so they would pass with the interrupt entry's call gone.  Here a real
 * IRQ lands before each instruction of kmalloc()'s pop: the #DB handler
 * sends a self-IPI and returns; IF is clear in it (an interrupt gate), so
 * the IRQ is taken right after its IRETQ, before the instruction at RIP,
 * and only interrupt_dispatch() can send the sequence back.  The IRQ
 * handler kmalloc()s from the same class: it pops the object the
 * interrupted pop has read (or is about to), so a pop that resumed where
 * it stopped would hand that object out a second time.
 */
#define REAL_ENTRY_VECTOR  0x41   /* unused by the kernel (apic.h) */
#define REAL_ENTRY_SIZE    64

static struct {
	unsigned long target;    /* act before this in-sequence step */
	unsigned long seen;      /* in-sequence steps so far */
	bool sent;               /* the self-IPI went out */
	void *got;               /* what the IRQ's kmalloc() returned */
	const struct rseq_cs *cs;   /* the sequence it landed in */
} re;

static void real_entry_irq(struct pt_regs *regs)
{
	(void)regs;
	apic_eoi();
	re.got = kmalloc(REAL_ENTRY_SIZE, GFP_ATOMIC);
}

static void real_entry_db(struct pt_regs *regs)
{
	write_dr6(DR6_RESET);
	const struct rseq_cs *cs = rseq_find(regs->rip);

	if (!cs || re.seen++ != re.target)
		return;
	re.cs = cs;
	regs->rflags &= ~RFLAGS_TF;
	if (!(regs->rflags & RFLAGS_IF))
		return;
	apic_send_self_ipi(REAL_ENTRY_VECTOR);
	re.sent = true;
}

static void singlestep_real_irq_entry(struct kunit *test)
{
	void (*saved_db)(struct pt_regs *) = debug_exception_handler;
	irq_handler_t saved_irq = get_irq_handler(REAL_ENTRY_VECTOR);
	unsigned long k, sent = 0;
	unsigned long insns = 1;   /* the pop's length, once the first run
				    * has found its table entry */

	need_sheaves(test, true);
	set_irq_handler(REAL_ENTRY_VECTOR, real_entry_irq);
	debug_exception_handler = real_entry_db;
	for (k = 0; k < insns; k++) {
		void *a = kmalloc(REAL_ENTRY_SIZE, GFP_KERNEL);
		void *b = kmalloc(REAL_ENTRY_SIZE, GFP_KERNEL);
		void *r;

		/* Two objects on top of main, so the pop takes the fast path. */
		kfree(b);
		kfree(a);
		memset(&re, 0, sizeof(re));
		re.target = k;
		trace_flag_set();
		r = kmalloc(REAL_ENTRY_SIZE, GFP_KERNEL);
		trace_flag_clear();
		sent += re.sent;
		if (k == 0 && re.cs)
			insns = re.cs->insns;
		KUNIT_EXPECT_NOT_NULL(test, r);
		if (re.sent) {
			KUNIT_EXPECT_NOT_NULL(test, re.got);
			if (r == re.got)
				KUNIT_FAIL(test, "an IRQ before in-sequence step %lu: kmalloc() and the IRQ both got %p",
					   k, r);
		}
		kfree(r);
		if (re.got && re.got != r)
			kfree(re.got);
	}
	debug_exception_handler = saved_db;
	set_irq_handler(REAL_ENTRY_VECTOR, saved_irq);
	KUNIT_EXPECT_GT(test, insns, 1ul);
	KUNIT_EXPECT_EQ(test, sent, insns);
}

/*
 * A KUNIT_ASSERT that fails in the #DB handler must record the failure and
 * return, as in an NMI or an IRQ handler: a longjmp() out of it would skip
 * the IRETQ, leaving IRQs off (the CPU cleared IF on entry) and the
 * exception's nesting count raised.  in_task() is true there (the handler
 * is neither an NMI nor an IRQ), so the rule must look at the exception
 * entry's own count.  It asserts on a private struct kunit, so this case
 * can pass and look at what happened.
 */
static struct kunit db_assert_probe;
static bool db_assert_went_on;
static volatile bool db_assert_false;

static void db_assert_handler(struct pt_regs *regs)
{
	regs->rflags &= ~RFLAGS_TF;   /* one step is enough */
	KUNIT_ASSERT_TRUE(&db_assert_probe, db_assert_false);   /* fails */
	__atomic_store_n(&db_assert_went_on, true, __ATOMIC_RELEASE);
}

static void kunit_assert_in_the_db_handler_does_not_leave_it(struct kunit *test)
{
	void (*saved)(struct pt_regs *) = debug_exception_handler;
	volatile bool landed = false;

	memset(&db_assert_probe, 0, sizeof(db_assert_probe));
	db_assert_probe.name = "db_assert_probe";
	db_assert_went_on = false;
	debug_exception_handler = db_assert_handler;
	if (setjmp(db_assert_probe.abort_point) == 0) {
		trace_flag_set();
		barrier();   /* the step: #DB after this instruction */
		trace_flag_clear();
	} else {
		landed = true;   /* out of the handler, no IRETQ */
		local_irq_enable();
	}
	debug_exception_handler = saved;
	KUNIT_EXPECT_FALSE(test, landed);
	KUNIT_EXPECT_TRUE(test, in_task());
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	KUNIT_EXPECT_TRUE(test, db_assert_went_on);
	KUNIT_EXPECT_EQ(test, db_assert_probe.status, KUNIT_FAILURE);
}

static int singlestep_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	struct kmem_cache_args args = {
		.sheaf_capacity = CACHE_SHEAF_CAPACITY,
	};

	struct kmem_cache_args cs_args = { .mode = SLAB_MODE_CPU_SLAB };

	test_cache = kmem_cache_create_args("singlestep", CACHE_OBJECT_SIZE,
					    &args, SLAB_TEST_SHEAF_CAPACITY);
	cs_cache = kmem_cache_create_args("singlestep_cs", CS_OBJECT_SIZE,
					  &cs_args, 0);
	if (!test_cache || !cs_cache)
		return -1;
	debug_exception_handler = singlestep_db_handler;
	return 0;
}

static void singlestep_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	debug_exception_handler = NULL;
	kmem_cache_destroy(test_cache);
	kmem_cache_destroy(cs_cache);
	test_cache = cs_cache = NULL;
}

static struct kunit_case singlestep_cases[] = {
	KUNIT_CASE(singlestep_tracer),
	KUNIT_CASE(singlestep_count),
	KUNIT_CASE(singlestep_nmi),
	KUNIT_CASE(singlestep_irq),
	KUNIT_CASE(singlestep_flush),
	KUNIT_CASE(singlestep_cpu_slab_nmi),
	KUNIT_CASE(singlestep_cpu_slab_irq),
	KUNIT_CASE(singlestep_cpu_slab_flush),
	KUNIT_CASE(singlestep_rseq),
	KUNIT_CASE(singlestep_real_irq_entry),
	KUNIT_CASE(kunit_assert_in_the_db_handler_does_not_leave_it),
	{}
};

static struct kunit_suite singlestep_suite = {
	.name = "singlestep",
	.suite_init = singlestep_suite_init,
	.suite_exit = singlestep_suite_exit,
	.init = singlestep_init,
	.exit = singlestep_exit,
	.test_cases = singlestep_cases,
};
kunit_test_suite(singlestep_suite);
