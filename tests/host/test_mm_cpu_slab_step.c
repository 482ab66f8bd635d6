/*
 * test_mm_cpu_slab_step.c - review of mm/cpu_slab.c: an interrupt or
 * another CPU before EVERY instruction of a cpu-slab cache's alloc and
 * free, not only at its named points.
 *
 * The fast paths of cpu_slab.c read (tid, freelist, slab) and commit with
 * one cmpxchg16b, with IRQs on; the head comment claims that whatever an
 * IRQ (a flush IPI included), an NMI or another CPU does in between makes
 * the commit fail or is harmless.  The interleaving search (interleave.c)
 * can only act at mm_point()s; this test traces each call with the x86
 * trap flag (as test_mm_rseq.c does) and, in one run per (operation,
 * action, instruction), acts before that instruction:
 *   nmi     kmem_cache_free() of victim objects in NMI context (the
 *           any-context path) and slab_alloc_nolock() of one;
 *   flush   another CPU's flush_all_cpu_slabs(): its IPI runs here (only
 *           where IRQs are on);
 *   irq     an IRQ handler frees the victims and allocates one (only where
 *           IRQs are on);
 *   remote  another CPU frees the victims and allocates (only where this
 *           CPU holds no allocator spinlock: it would wait for it).
 * Each run then checks: no report, no WARN, nothing handed out twice,
 * slab_cache_check() clean, and the cache destroyed without leaks.
 * Only instructions of the program itself are acted before (not the
 * sanitizer runtime's or libc's).  The whole search takes minutes: make
 * test runs the two fast paths' part, `make cpu-slab-step` all of it.
 */
#define _GNU_SOURCE     /* REG_RIP, REG_EFL */
#include <kunit.h>
#include <kernel.h>
#include <irq_work.h>
#include <mm.h>
#include <mm_check.h>
#include <mmzone.h>
#include <slab.h>
#include <smp.h>
#include <signal.h>
#include <stdlib.h>
#include <ucontext.h>
#include "../../mm/slab_internal.h"

int slab_test_env_init(void);
void slab_test_env_exit(void);

#define STEP_MAX_STEPS  400000
#define EFLAGS_TF       0x100ul
#define STEP_VICTIMS    3
#define STEP_MAX_LIVE   512
#define STEP_SIZE       64

extern char __executable_start[], etext[];

enum step_act { ACT_NMI, ACT_FLUSH, ACT_IRQ, ACT_REMOTE, NR_ACTS };
static const char *const act_names[NR_ACTS] = {
	"nmi", "flush", "irq", "remote",
};

enum step_op {
	OP_ALLOC_FAST,     /* this CPU's freelist has objects */
	OP_ALLOC_REFILL,   /* empty; others freed to its frozen slab */
	OP_ALLOC_PARTIAL,  /* its slab full; a partial slab on the node */
	OP_FREE_FAST,      /* an object of this CPU's slab */
	OP_FREE_FROZEN,    /* an object of another CPU's frozen slab */
	OP_FREE_UNFROZEN,  /* an object of a slab on the node's partial */
	OP_FREE_NOLOCK,    /* kfree_nolock() path: an NMI frees, unfrozen */
	NR_OPS
};
#define STEP_DEFAULT_OPS ((1ul << OP_ALLOC_FAST) | (1ul << OP_FREE_FAST))

static const char *const op_names[NR_OPS] = {
	"alloc_fast", "alloc_refill", "alloc_partial", "free_fast",
	"free_frozen", "free_unfrozen", "free_nolock",
};

static volatile struct {
	struct kmem_cache *s;
	enum step_act act;
	unsigned long target, seen, steps;
	bool acted, lost;
	void *victim[STEP_VICTIMS];
	bool victim_freed[STEP_VICTIMS];
	void *got[2];      /* what the action allocated */
} run;

/* ---- what a CPU may do where ---------------------------------------- */

static bool allocator_lock_held(void)
{
	struct kmem_cache *s;
	unsigned int z, cpu;
	int nid;

	list_for_each_entry(s, &slab_caches, list)
		for (nid = 0; nid < MAX_NUMNODES; nid++)
			if (spin_is_locked(&get_node(s, nid)->list_lock) ||
			    spin_is_locked(&get_node(s, nid)->barn.lock))
				return true;
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		if (!NODE_DATA(nid))
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++) {
			struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (spin_is_locked(&zone->lock))
				return true;
			for_each_possible_cpu(cpu)
				if (spin_is_locked(&zone->pcp[cpu].lock))
					return true;
		}
	}
	return spin_is_locked(&slab_caches_lock);
}

static bool action_possible(enum step_act a)
{
	switch (a) {
	case ACT_NMI:
		return true;
	case ACT_FLUSH:
	case ACT_IRQ:
		return !irqs_disabled() && !in_nmi();
	case ACT_REMOTE:
		return !allocator_lock_held();
	default:
		return false;
	}
}

static void free_victims(void)
{
	unsigned int i;

	for (i = 0; i < STEP_VICTIMS; i++) {
		if (!run.victim[i] || run.victim_freed[i])
			continue;
		kmem_cache_free(run.s, run.victim[i]);
		run.victim_freed[i] = true;
	}
}

static void act(void)
{
	unsigned int me = host_cpu_id;
	unsigned long flags;
	bool busy;

	switch (run.act) {
	case ACT_NMI:
		host_nmi_nesting++;
		free_victims();
		run.got[0] = slab_alloc_nolock(run.s, 0, NUMA_NO_NODE, &busy,
					       _THIS_IP_);
		host_nmi_nesting--;
		break;
	case ACT_FLUSH:
		flags = local_irq_save();
		host_irq_nesting++;
		host_cpu_id = 1;   /* CPU 1 flushes; our part runs here */
		flush_all_cpu_slabs(run.s);
		host_cpu_id = me;
		host_irq_nesting--;
		local_irq_restore(flags);
		break;
	case ACT_IRQ:
		flags = local_irq_save();
		host_irq_nesting++;
		free_victims();
		run.got[0] = kmem_cache_alloc(run.s, GFP_KERNEL);
		host_irq_nesting--;
		local_irq_restore(flags);
		break;
	case ACT_REMOTE: {
		/* Another CPU: not in this one's NMI or IRQ. */
		unsigned int nmi = host_nmi_nesting, irq = host_irq_nesting;

		host_nmi_nesting = host_irq_nesting = 0;
		host_cpu_id = 1;
		free_victims();
		run.got[0] = kmem_cache_alloc(run.s, GFP_KERNEL);
		run.got[1] = kmem_cache_alloc(run.s, GFP_KERNEL);
		host_cpu_id = me;
		host_nmi_nesting = nmi;
		host_irq_nesting = irq;
		break;
	}
	default:
		break;
	}
}

static void sigtrap_handler(int sig, siginfo_t *info, void *ucontext)
{
	ucontext_t *uc = ucontext;
	unsigned long rip = (unsigned long)uc->uc_mcontext.gregs[REG_RIP];

	(void)sig;
	(void)info;
	if (++run.steps > STEP_MAX_STEPS) {
		run.lost = true;
		uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)EFLAGS_TF;
		return;
	}
	if (run.acted || rip < (unsigned long)__executable_start ||
	    rip >= (unsigned long)etext)
		return;
	if (!action_possible(run.act))
		return;
	if (run.seen++ != run.target)
		return;
	run.acted = true;
	act();
}

static __always_inline void trap_flag_on(void)
{
	__asm__ __volatile__("pushfq\n\torq %0, (%%rsp)\n\tpopfq"
			     : : "i"(EFLAGS_TF) : "memory", "cc");
}

static __always_inline void trap_flag_off(void)
{
	__asm__ __volatile__("pushfq\n\tandq %0, (%%rsp)\n\tpopfq"
			     : : "i"(~EFLAGS_TF) : "memory", "cc");
}

/* ---- the operations ------------------------------------------------- */

static void *live[STEP_MAX_LIVE];
static unsigned int nr_live;

static void keep(void *p)
{
	if (p && nr_live < STEP_MAX_LIVE)
		live[nr_live++] = p;
}

static void *alloc_on(struct kmem_cache *s, unsigned int cpu)
{
	unsigned int me = host_cpu_id;
	void *p;

	host_cpu_id = cpu;
	p = kmem_cache_alloc(s, GFP_KERNEL);
	host_cpu_id = me;
	return p;
}

static void free_on(struct kmem_cache *s, unsigned int cpu, void *p)
{
	unsigned int me = host_cpu_id;

	host_cpu_id = cpu;
	kmem_cache_free(s, p);
	host_cpu_id = me;
}

static __noinline void *traced(struct kmem_cache *s, enum step_op op,
			       void *x)
{
	void *got = NULL;

	trap_flag_on();
	switch (op) {
	case OP_ALLOC_FAST:
	case OP_ALLOC_REFILL:
	case OP_ALLOC_PARTIAL:
		got = kmem_cache_alloc(s, GFP_KERNEL);
		break;
	case OP_FREE_NOLOCK:
		host_nmi_nesting++;
		kmem_cache_free(s, x);
		host_nmi_nesting--;
		break;
	default:
		kmem_cache_free(s, x);
		break;
	}
	trap_flag_off();
	return got;
}

/* Bring this CPU (0) and the cache to the state op starts from; the
 * object the op frees, if any. */
static void *prepare(struct kmem_cache *s, enum step_op op)
{
	struct kmem_cache_cpu *c0 = &s->cpu_slab[0];
	void *x = NULL, *p, *s1[STEP_SIZE * 2];
	unsigned int i, n = 0;

	for (i = 0; i < STEP_VICTIMS; i++) {
		run.victim[i] = kmem_cache_alloc(s, GFP_KERNEL);
		run.victim_freed[i] = false;
	}
	switch (op) {
	case OP_ALLOC_FAST:
		for (i = 0; i < 4; i++)
			s1[i] = kmem_cache_alloc(s, GFP_KERNEL);
		for (i = 0; i < 4; i++)
			kmem_cache_free(s, s1[i]);
		break;
	case OP_ALLOC_REFILL:
		while (READ_ONCE(c0->freelist) && n < ARRAY_SIZE(s1))
			s1[n++] = kmem_cache_alloc(s, GFP_KERNEL);
		for (i = 0; i < n; i++)
			if (i % 2)
				free_on(s, 1, s1[i]);   /* pushed on our slab */
			else
				keep(s1[i]);
		break;
	case OP_ALLOC_PARTIAL:
		/* CPU 1 fills a slab, moves on, frees some of it back:
		 * unfrozen, on the node's partial list.  Victims 1 and 2
		 * are of that slab. */
		kmem_cache_free(s, run.victim[1]);
		kmem_cache_free(s, run.victim[2]);
		for (i = 0; i < s->objects + 1; i++)
			s1[n++] = alloc_on(s, 1);
		for (i = 0; i < n; i++) {
			if (i % 3 == 0 && i < s->objects)
				free_on(s, 1, s1[i]);
			else if (i == 1 || i == 2)
				run.victim[i] = s1[i];
			else
				keep(s1[i]);
		}
		while (READ_ONCE(c0->freelist))
			keep(kmem_cache_alloc(s, GFP_KERNEL));
		break;
	case OP_FREE_FAST:
		x = kmem_cache_alloc(s, GFP_KERNEL);
		break;
	case OP_FREE_FROZEN:
		x = alloc_on(s, 1);
		p = alloc_on(s, 1);
		keep(p);
		break;
	case OP_FREE_UNFROZEN:
	case OP_FREE_NOLOCK:
		x = kmem_cache_alloc(s, GFP_KERNEL);
		kmem_cache_shrink(s);   /* every slab unfrozen */
		break;
	default:
		break;
	}
	return x;
}

static void run_irq_work_everywhere(void)
{
	unsigned int me = host_cpu_id, cpu;
	unsigned long flags;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		host_cpu_id = cpu;
		flags = local_irq_save();
		host_irq_nesting++;
		irq_work_run();
		host_irq_nesting--;
		local_irq_restore(flags);
	}
	host_cpu_id = me;
}

static unsigned int step_failures;

/* One run; false once target lies past the last possible step. */
static bool step_run(struct kunit *test, enum step_op op, enum step_act a,
		     unsigned long target)
{
	unsigned long reports = slab_reports, warns = warn_count;
	struct kmem_cache_args args = { .mode = SLAB_MODE_CPU_SLAB };
	struct kmem_cache *s;
	unsigned int i, j, dup = 0;
	void *x, *got;
	bool acted;
	int check, leak;

	s = kmem_cache_create_args("step_cpuslab", STEP_SIZE, &args, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	nr_live = 0;
	memset((void *)&run, 0, sizeof(run));
	run.s = s;
	x = prepare(s, op);
	run.act = a;
	run.target = target;

	slab_report_count_only = true;
	got = traced(s, op, x);
	acted = run.acted;

	keep(got);
	keep(run.got[0]);
	keep(run.got[1]);
	for (i = 0; i < STEP_VICTIMS; i++)
		if (!run.victim_freed[i])
			keep(run.victim[i]);
	for (i = 0; i < nr_live; i++)
		for (j = i + 1; j < nr_live; j++)
			dup += live[i] == live[j];
	run_irq_work_everywhere();
	check = slab_cache_check(s);
	if (!dup)
		for (i = 0; i < nr_live; i++)
			kmem_cache_free(s, live[i]);
	run_irq_work_everywhere();
	leak = dup ? 0 : kmem_cache_destroy(s);
	slab_report_count_only = false;

	if (run.lost || dup || check || leak || slab_reports != reports ||
	    warn_count != warns) {
		if (step_failures++ < 8)
			KUNIT_FAIL(test, "%s, %s before step %lu: %s%s%s%s%s%s",
				   op_names[op], act_names[a], target,
				   run.lost ? "lost " : "",
				   dup ? "an object held twice " : "",
				   check ? "slab_cache_check fails " : "",
				   leak ? "destroy found leaks " : "",
				   slab_reports != reports ? "a slab report " : "",
				   warn_count != warns ? "a WARN" : "");
	}
	return acted;
}

static void cpu_slab_every_instruction(struct kunit *test)
{
	struct sigaction trap = { .sa_sigaction = sigtrap_handler,
				  .sa_flags = SA_SIGINFO };
	struct sigaction old;
	unsigned long target, total = 0;
	enum step_op op;
	enum step_act a;

	/* CPU_SLAB_STEP_OPS / CPU_SLAB_STEP_ACTS: bit masks that pick a
	 * part of the search.  All of it takes minutes (`make
	 * cpu-slab-step`); by default, in make test's host run, the fast
	 * paths' allocation and free (STEP_DEFAULT_OPS, about 20 s), which
	 * the kernel's single-step test covers too. */
	const char *ops_env = getenv("CPU_SLAB_STEP_OPS");
	const char *acts_env = getenv("CPU_SLAB_STEP_ACTS");
	unsigned long ops_mask = ops_env ? strtoul(ops_env, NULL, 0) :
				 STEP_DEFAULT_OPS;
	unsigned long acts_mask = acts_env ? strtoul(acts_env, NULL, 0) : ~0ul;

	sigemptyset(&trap.sa_mask);
	KUNIT_ASSERT_EQ(test, sigaction(SIGTRAP, &trap, &old), 0);
	for (op = 0; op < NR_OPS; op++)
		for (a = 0; a < NR_ACTS; a++) {
			if (!(ops_mask & (1ul << op)) ||
			    !(acts_mask & (1ul << a)))
				continue;
			for (target = 0; target < STEP_MAX_STEPS; target++)
				if (!step_run(test, op, a, target))
					break;
			kunit_info(test, "%s: %s before each of %lu instructions",
				   op_names[op], act_names[a], target);
			total += target;
		}
	sigaction(SIGTRAP, &old, NULL);
	kunit_info(test, "%lu runs, %u failed", total, step_failures);
	KUNIT_EXPECT_EQ(test, step_failures, 0u);
}

static struct kunit_case step_cases[] = {
	KUNIT_CASE(cpu_slab_every_instruction),
	{}
};

static int step_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void step_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static struct kunit_suite step_suite = {
	.name = "cpu_slab_step",
	.suite_init = step_suite_init,
	.suite_exit = step_suite_exit,
	.test_cases = step_cases,
};
kunit_test_suite(step_suite);
