/*
 * cpu_work.c - the APs' idle loop, and task work on every CPU at once
 * (include/cpu_work.h).
 *
 * One request at a time, described by the globals below and published by
 * bumping work_seq (release).  Each AP's idle loop compares work_seq with
 * the last one it ran (seen_seq[cpu]) with IRQs off, and either runs the
 * work with IRQs on or halts with safe_halt(), which re-enables IRQs and
 * halts in one step: the wakeup IPI sent after the bump cannot be missed.
 *
 *   poster (boot CPU, task)          every AP (idle loop)
 *   fill work_func/info, counts      ...hlt
 *   work_seq++ (release)             <- IPI (a no-op call) wakes it
 *   IPI every other online CPU       sees work_seq != seen_seq (acquire)
 *   run its own share                started++, wait for all: the barrier
 *   wait until done == nr            func(info), IRQs on; done++ (release)
 *
 * No lock: the poster is alone (it checks), and the APs only read the
 * request and bump the two counters atomically.
 *
 * RCU (kernel/rcu.c): the halt is an extended quiescent state, between
 * rcu_idle_enter() and rcu_idle_exit(), so a halted AP never holds a
 * grace period up; before halting, the loop queues and runs this CPU's
 * RCU callbacks (rcu_idle_has_work(), rcu_do_batch()) in task context.
 */
#include <cpu_work.h>
#include <cpumask.h>
#include <irqflags.h>
#include <kernel.h>
#include <rcupdate.h>
#include <smp.h>
#include "../arch/x86_64/cpu.h"

static cpu_task_func_t work_func;
static void *work_info;
static unsigned int work_nr;       /* CPUs taking part in this request */
static unsigned int work_started;  /* start barrier */
static unsigned int work_done;     /* completion count */
static unsigned long work_seq;     /* bumped once per request */
static bool work_busy;             /* a request is in progress */
static DEFINE_PER_CPU(unsigned long, seen_seq);

/* Run the published request on this CPU: barrier, call, count. */
static void cpu_work_run_here(void)
{
	unsigned int cpu = smp_processor_id();

	per_cpu(seen_seq, cpu) = __atomic_load_n(&work_seq, __ATOMIC_ACQUIRE);
	__atomic_fetch_add(&work_started, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&work_started, __ATOMIC_ACQUIRE) <
	       READ_ONCE(work_nr))
		cpu_relax();
	work_func(work_info);
	__atomic_fetch_add(&work_done, 1, __ATOMIC_RELEASE);
}

static bool cpu_work_pending(unsigned int cpu)
{
	return __atomic_load_n(&work_seq, __ATOMIC_ACQUIRE) !=
	       per_cpu(seen_seq, cpu);
}

void cpu_idle_loop(void)
{
	unsigned int cpu = smp_processor_id();

	for (;;) {
		local_irq_disable();
		if (cpu_work_pending(cpu)) {
			local_irq_enable();
			cpu_work_run_here();
			continue;
		}
		if (rcu_idle_has_work()) {
			local_irq_enable();
			rcu_do_batch();   /* task context, IRQs on */
			continue;
		}
		rcu_idle_enter();  /* a quiescent state until rcu_idle_exit() */
		safe_halt();   /* IPIs and timer ticks wake us */
		local_irq_disable();
		rcu_idle_exit();
		local_irq_enable();
	}
}

static void wake_up_idle(void *info)
{
	(void)info;    /* the interrupt itself is the point: hlt returns */
}

unsigned int on_each_cpu_task(cpu_task_func_t func, void *info)
{
	struct cpumask mask;
	unsigned int cpu, nr = 0;

	WARN_ON(!in_task() || irqs_disabled());
	if (__atomic_exchange_n(&work_busy, true, __ATOMIC_ACQUIRE)) {
		WARN_ON(1);   /* one request at a time */
		return 0;
	}
	cpu_online_mask_get(&mask);
	for_each_cpu(cpu, &mask)
		nr++;
	work_func = func;
	work_info = info;
	work_nr = nr;
	work_started = 0;
	work_done = 0;
	__atomic_fetch_add(&work_seq, 1, __ATOMIC_RELEASE);
	smp_call_function_many(&mask, wake_up_idle, NULL, false);
	cpu_work_run_here();
	while (__atomic_load_n(&work_done, __ATOMIC_ACQUIRE) < nr)
		cpu_relax();
	__atomic_store_n(&work_busy, false, __ATOMIC_RELEASE);
	return nr;
}
