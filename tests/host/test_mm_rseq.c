/*
 * test_mm_rseq.c - the sheaf fast paths' restartable sequences
 * (include/rseq.h) on the host, an interrupt before every instruction.
 *
 * On the host an interrupt is a signal, and the interrupt entry is the
 * handler's call to rseq_ucontext_fixup() (tests/host/host_support.c).
 * This test traces each fast-path call with the x86 trap flag (EFLAGS.TF:
 * the CPU raises #DB after every instruction, which Linux hands to the
 * process as SIGTRAP, the interrupted context in the handler's ucontext).
 * One run per (call, instruction of its sequence): the SIGTRAP handler
 * counts the steps that stopped inside a sequence, and at the chosen one
 * it plays an NMI there, on the same CPU, through the same fast paths -
 * it frees two victim objects into the sheaf and takes one out - and then
 * makes the entry's fixup.  Without the restart the interrupted pop would
 * hand out the object the NMI took, and the interrupted push would write
 * over the NMI's or count a slot nobody filled: each run ends with the
 * objects compared and slab_cache_check() over the cache (every object
 * in a sheaf is in a slab of the cache, not free there, held once).
 *
 * The figure: every entry of the host program's __rseq_table traced whole
 * (as many distinct instructions as the entry says) and an NMI before
 * each of them, as tests/kernel/singlestep_test.c proves for the kernel.
 * The trap flag is a property of the thread: the handler runs with it
 * off (the kernel clears it for signal delivery), so the NMI's own calls
 * are not traced; sigreturn turns it back on.
 */
#define _GNU_SOURCE     /* REG_RIP, REG_EFL */
#include <kunit.h>
#include <kernel.h>
#include <mm_check.h>
#include <rseq.h>
#include <slab.h>
#include <smp.h>
#include <signal.h>
#include <ucontext.h>
#include "../../mm/slab_internal.h"
#include "../kernel/rseq_trace.h"

int slab_test_env_init(void);
void slab_test_env_exit(void);

#define RSEQ_OBJECT_SIZE 64       /* kmalloc-64 and the private cache */
#define RSEQ_VICTIMS     2        /* objects the NMI frees into the sheaf */
#define RSEQ_MAX_STEPS   100000   /* a traced call that runs longer is lost */
#define EFLAGS_TF        0x100ul  /* the trap flag */

/* The fast-path calls, each holding one or more inlined sequences. */
enum rseq_call {
	CALL_KMALLOC,           /* a constant size: __kmalloc_cache() */
	CALL_KMALLOC_VARIABLE,  /* a size the compiler cannot see: __kmalloc() */
	CALL_KFREE,
	CALL_CACHE_ALLOC,
	CALL_CACHE_FREE,
	CALL_KMALLOC_NOLOCK,
	CALL_KFREE_NOLOCK,
	NR_RSEQ_CALLS
};

static const char *const rseq_call_names[NR_RSEQ_CALLS] = {
	[CALL_KMALLOC] = "kmalloc",
	[CALL_KMALLOC_VARIABLE] = "kmalloc (variable size)",
	[CALL_KFREE] = "kfree",
	[CALL_CACHE_ALLOC] = "kmem_cache_alloc",
	[CALL_CACHE_FREE] = "kmem_cache_free",
	[CALL_KMALLOC_NOLOCK] = "kmalloc_nolock",
	[CALL_KFREE_NOLOCK] = "kfree_nolock",
};

static bool call_uses_kmalloc(enum rseq_call c)
{
	return c == CALL_KMALLOC || c == CALL_KMALLOC_VARIABLE ||
	       c == CALL_KFREE ||
	       c == CALL_KMALLOC_NOLOCK || c == CALL_KFREE_NOLOCK;
}

static bool call_allocates(enum rseq_call c)
{
	return c == CALL_KMALLOC || c == CALL_KMALLOC_VARIABLE ||
	       c == CALL_CACHE_ALLOC ||
	       c == CALL_KMALLOC_NOLOCK;
}

/* What the search met, per table entry (rseq_trace.h). */
static struct seq_insns seq_traced[RSEQ_TRACE_MAX_SEQS];
static struct seq_insns seq_acted[RSEQ_TRACE_MAX_SEQS];

/* One traced run; written by the test and by the SIGTRAP handler, which
 * runs on the same thread. */
static volatile struct {
	struct kmem_cache *s;           /* the cache the call uses */
	enum rseq_call call;
	unsigned long target;           /* act at this in-sequence step */
	unsigned long seen;             /* in-sequence steps so far */
	unsigned long steps;            /* all steps so far */
	bool acted, restarted, lost;
	void *victim[RSEQ_VICTIMS];     /* the NMI frees these */
	void *got;                      /* and takes this */
} run;

static unsigned long restarts;

/* The NMI: what any-context code may do with this CPU's sheaf. */
static void nmi_action(void)
{
	unsigned int i;
	bool busy;

	host_nmi_nesting++;
	for (i = 0; i < RSEQ_VICTIMS; i++) {
		if (call_uses_kmalloc(run.call))
			kfree_nolock(run.victim[i]);
		else
			kmem_cache_free(run.s, run.victim[i]);
	}
	/* A private cache has no kmalloc_nolock(): its any-context
	 * allocation (sheaf first, under the trylock) does the same. */
	run.got = call_uses_kmalloc(run.call)
		? kmalloc_nolock(RSEQ_OBJECT_SIZE, 0, NUMA_NO_NODE)
		: slab_alloc_nolock(run.s, 0, NUMA_NO_NODE, &busy, _THIS_IP_);
	host_nmi_nesting--;
}

static void sigtrap_handler(int sig, siginfo_t *info, void *ucontext)
{
	ucontext_t *uc = ucontext;
	unsigned long rip = (unsigned long)uc->uc_mcontext.gregs[REG_RIP];

	(void)sig;
	(void)info;
	if (++run.steps > RSEQ_MAX_STEPS) {
		run.lost = true;
		uc->uc_mcontext.gregs[REG_EFL] &= ~(greg_t)EFLAGS_TF;
		return;
	}
	if (!rseq_find(rip))
		return;
	seq_note(seq_traced, rip);
	if (run.acted || run.seen++ != run.target)
		return;
	run.acted = true;
	seq_note(seq_acted, rip);
	nmi_action();
	if (rseq_ucontext_fixup(uc)) {
		run.restarted = true;
		restarts++;
	}
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

static void *call_alloc(struct kmem_cache *s, enum rseq_call c)
{
	return call_uses_kmalloc(c) ? kmalloc(RSEQ_OBJECT_SIZE, GFP_KERNEL)
				    : kmem_cache_alloc(s, GFP_KERNEL);
}

static void call_free(struct kmem_cache *s, enum rseq_call c, void *p)
{
	if (call_uses_kmalloc(c))
		kfree(p);
	else
		kmem_cache_free(s, p);
}

/* RSEQ_OBJECT_SIZE, hidden from the compiler. */
static volatile size_t variable_size = RSEQ_OBJECT_SIZE;

/* The call under test, traced; its object for the allocating ones. */
static __noinline void *traced_call(struct kmem_cache *s, enum rseq_call c,
				    void *object)
{
	void *got = NULL;

	trap_flag_on();
	switch (c) {
	case CALL_KMALLOC:
		got = kmalloc(RSEQ_OBJECT_SIZE, GFP_KERNEL);
		break;
	case CALL_KMALLOC_VARIABLE:
		got = kmalloc(variable_size, GFP_KERNEL);
		break;
	case CALL_KFREE:
		kfree(object);
		break;
	case CALL_CACHE_ALLOC:
		got = kmem_cache_alloc(s, GFP_KERNEL);
		break;
	case CALL_CACHE_FREE:
		kmem_cache_free(s, object);
		break;
	case CALL_KMALLOC_NOLOCK:
		got = kmalloc_nolock(RSEQ_OBJECT_SIZE, 0, NUMA_NO_NODE);
		break;
	case CALL_KFREE_NOLOCK:
		kfree_nolock(object);
		break;
	case NR_RSEQ_CALLS:
		break;
	}
	trap_flag_off();
	return got;
}

/*
 * One run: warm the sheaf (a few objects in main, room for more), then
 * the traced call with the NMI at in-sequence step `target`.  False when
 * the target lies past the call's last in-sequence step (the call's
 * sequences are done).
 */
static bool rseq_run(struct kunit *test, struct kmem_cache *s,
		     enum rseq_call c, unsigned long target)
{
	void *warm[RSEQ_VICTIMS + 2], *object = NULL, *got;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(warm); i++)
		warm[i] = call_alloc(s, c);
	for (i = 0; i < ARRAY_SIZE(warm); i++)
		call_free(s, c, warm[i]);
	run.s = s;
	run.call = c;
	run.target = target;
	run.seen = run.steps = 0;
	run.acted = run.restarted = run.lost = false;
	run.got = NULL;
	for (i = 0; i < RSEQ_VICTIMS; i++)
		run.victim[i] = call_alloc(s, c);
	if (!call_allocates(c))
		object = call_alloc(s, c);

	got = traced_call(s, c, object);

	KUNIT_EXPECT_FALSE(test, run.lost);
	if (!run.acted) {
		/* Past the end: nothing interrupted, the victims are ours. */
		for (i = 0; i < RSEQ_VICTIMS; i++)
			call_free(s, c, run.victim[i]);
	} else {
		KUNIT_EXPECT_PTR_NE(test, run.got, NULL);
		if (got && got == run.got)
			KUNIT_FAIL(test, "%s, NMI at in-sequence step %lu: the call and the NMI both got %p",
				   rseq_call_names[c], target, got);
		if (run.got && run.got != got)
			call_free(s, c, run.got);
	}
	if (got)
		call_free(s, c, got);
	if (slab_cache_check(s))
		KUNIT_FAIL(test, "%s, NMI at in-sequence step %lu: the cache's invariants broke",
			   rseq_call_names[c], target);
	return run.acted;
}

static void rseq_every_instruction(struct kunit *test)
{
	struct kmem_cache *cache = kmem_cache_create("test_rseq",
						     RSEQ_OBJECT_SIZE, 0, 0,
						     NULL);
	unsigned long nr = (unsigned long)(__stop_rseq_table -
					   __start_rseq_table);
	unsigned long insns = 0, acted = 0, i;
	struct sigaction trap = { .sa_sigaction = sigtrap_handler,
				  .sa_flags = SA_SIGINFO };
	struct sigaction old;
	enum rseq_call c;

	KUNIT_ASSERT_PTR_NE(test, cache, NULL);
	KUNIT_ASSERT_GT(test, nr, 0ul);
	KUNIT_ASSERT_LE(test, nr, (unsigned long)RSEQ_TRACE_MAX_SEQS);
	if (!cache_has_sheaves(cache) ||
	    !cache_has_sheaves(kmalloc_slab(RSEQ_OBJECT_SIZE)))
		kunit_skip(test, "no sheaves (a slub_debug= boot)");
	sigemptyset(&trap.sa_mask);
	KUNIT_ASSERT_EQ(test, sigaction(SIGTRAP, &trap, &old), 0);
	for (c = 0; c < NR_RSEQ_CALLS; c++) {
		struct kmem_cache *s = call_uses_kmalloc(c)
			? kmalloc_slab(RSEQ_OBJECT_SIZE) : cache;
		unsigned long target;

		for (target = 0; target < RSEQ_MAX_STEPS; target++)
			if (!rseq_run(test, s, c, target))
				break;
		KUNIT_EXPECT_GT(test, target, 0ul);
	}
	sigaction(SIGTRAP, &old, NULL);

	for (i = 0; i < nr; i++) {
		const struct rseq_cs *cs = &__start_rseq_table[i];

		insns += cs->insns;
		acted += seq_acted[i].nr;
		if (seq_traced[i].nr == cs->insns &&
		    seq_acted[i].nr == cs->insns && !seq_traced[i].overflow)
			continue;
		KUNIT_FAIL(test, "sequence %lu at %#lx (%lu instructions): %u traced, an NMI before %u",
			   i, cs->start_ip, cs->insns, seq_traced[i].nr,
			   seq_acted[i].nr);
	}
	kunit_info(test, "restartable sequences: %lu, %lu instructions; an NMI before %lu of them; %lu restarts",
		   nr, insns, acted, restarts);
	KUNIT_EXPECT_EQ(test, acted, insns);
	KUNIT_EXPECT_GT(test, restarts, 0ul);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache), 0);
}

static struct kunit_case rseq_cases[] = {
	KUNIT_CASE(rseq_every_instruction),
	{}
};

static int rseq_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void rseq_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static struct kunit_suite rseq_suite = {
	.name = "rseq_host",
	.suite_init = rseq_suite_init,
	.suite_exit = rseq_suite_exit,
	.test_cases = rseq_cases,
};
kunit_test_suite(rseq_suite);
