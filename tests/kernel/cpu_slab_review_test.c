/*
 * cpu_slab_review_test.c - review of mm/cpu_slab.c in the kernel: the
 * flush IPI before every instruction of a cpu-slab cache's allocation fast
 * path.  Run with SMP=1 (the flush's on_each_cpu() then runs only here,
 * from the #DB handler, exactly as its IPI would land at that point);
 * skipped with more CPUs.
 *
 * Promise (cpu_slab.c, THE FAST PATHS): "An IRQ or NMI that lands between
 * the reads and the commit and uses this CPU's line changes tid, so the
 * commit fails and the fast path reads again."  The fast path reads tid,
 * then c->freelist, then c->slab, and before the commit it checks the
 * successor with object_index(s, slab, next).  A flush landing between
 * the load of c->freelist and the load of c->slab leaves the path with an
 * old object and slab == NULL; object_index() then computes slab_base(NULL)
 * (0x0057888000000000 with this kernel's memory map), finds next above it
 * and on a stride boundary (objects of a power-of-two cache), and reads
 * NULL->objects: a page fault in the allocator, IRQs on, task context.
 *
 * The case single-steps kmem_cache_alloc() with RFLAGS.TF (the hook of
 * arch/x86_64/traps.c, as singlestep_test.c does) and at step k, where IF
 * is set, runs flush_all_cpu_slabs(); one run per k.  Each run checks the
 * object it got is distinct from everything the test holds.
 */
#include <irqflags.h>
#include <kernel.h>
#include <kunit.h>
#include <mm.h>
#include <mm_check.h>
#include <slab.h>
#include <smp.h>
#include "../../arch/x86_64/cpu.h"
#include "../../arch/x86_64/interrupts.h"
#include "../../mm/slab_internal.h"

#define REV_MAX_STEPS  20000
#define REV_WARM       6

static struct {
	struct kmem_cache *s;
	unsigned long target, seen, steps;
	bool acted, armed, runaway;
} rv;

static void rev_db_handler(struct pt_regs *regs)
{
	unsigned long dr6 = read_dr6();

	write_dr6(DR6_RESET);
	if (!rv.armed || !(dr6 & DR6_BS)) {
		regs->rflags &= ~RFLAGS_TF;
		return;
	}
	if (++rv.steps > REV_MAX_STEPS) {
		rv.runaway = true;
		regs->rflags &= ~RFLAGS_TF;
		return;
	}
	if (!(regs->rflags & RFLAGS_IF))
		return;   /* no IPI can land here */
	if (rv.seen++ != rv.target)
		return;
	regs->rflags &= ~RFLAGS_TF;
	rv.acted = true;
	/* Another CPU's kmem_cache_shrink(): its IPI lands here. */
	flush_all_cpu_slabs(rv.s);
}

static __noinline void *rev_traced_alloc(struct kmem_cache *s)
{
	void *p;

	rv.armed = true;
	__asm__ __volatile__("pushfq\n\torq %0, (%%rsp)\n\tpopfq"
			     : : "i"(RFLAGS_TF) : "memory", "cc");
	p = kmem_cache_alloc(s, GFP_KERNEL);
	__asm__ __volatile__("pushfq\n\tandq %0, (%%rsp)\n\tpopfq"
			     : : "i"(~RFLAGS_TF) : "memory", "cc");
	rv.armed = false;
	return p;
}

static void flush_ipi_at_every_fast_path_instruction(struct kunit *test)
{
	struct kmem_cache_args args = { .mode = SLAB_MODE_CPU_SLAB };
	unsigned long target, reports = slab_reports, warns = warn_count;
	void *warm[REV_WARM], *got;
	unsigned int i;

	if (nr_cpu_ids > 1)
		kunit_skip(test, "boot with SMP=1: the flush runs from the #DB handler");
	rv.s = kmem_cache_create_args("rev_cpuslab64", 64, &args, 0);
	KUNIT_ASSERT_NOT_NULL(test, rv.s);
	if (!cache_has_cpu_slab(rv.s)) {
		kmem_cache_destroy(rv.s);
		kunit_skip(test, "slub_debug= is on: no cpu-slab caches");
	}
	debug_exception_handler = rev_db_handler;
	for (target = 0; target < REV_MAX_STEPS; target++) {
		/* This CPU's freelist: several objects, each with a successor. */
		for (i = 0; i < REV_WARM; i++)
			warm[i] = kmem_cache_alloc(rv.s, GFP_KERNEL);
		for (i = 0; i < REV_WARM; i++)
			kmem_cache_free(rv.s, warm[i]);
		rv.target = target;
		rv.seen = rv.steps = 0;
		rv.acted = rv.runaway = false;
		got = rev_traced_alloc(rv.s);
		KUNIT_EXPECT_NOT_NULL(test, got);
		KUNIT_EXPECT_FALSE(test, rv.runaway);
		if (got)
			kmem_cache_free(rv.s, got);
		if (!rv.acted)
			break;
	}
	debug_exception_handler = NULL;
	kunit_info(test, "a flush before each of %lu instructions", target);
	KUNIT_EXPECT_GT(test, target, 10ul);
	KUNIT_EXPECT_EQ(test, slab_cache_check(rv.s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(rv.s), 0);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, warn_count, warns);
}

static struct kunit_case cpu_slab_review_cases[] = {
	KUNIT_CASE(flush_ipi_at_every_fast_path_instruction),
	{}
};

static struct kunit_suite cpu_slab_review_suite = {
	.name = "cpu_slab_review_kernel",
	.test_cases = cpu_slab_review_cases,
};
kunit_test_suite(cpu_slab_review_suite);
