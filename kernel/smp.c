/*
 * smp.c - run a function on other CPUs: smp_call_function_*().
 *
 * Every (sender, target) pair owns one struct call_single_data in
 * csd_data[sender][target], so no allocation is needed and a sender never
 * competes with another sender for a slot.  To call func(info) on `cpu`:
 *   1. wait until our slot for `cpu` is free (CSD_FLAG_LOCK clear: the
 *      previous call through it has finished);
 *   2. fill it, set CSD_FLAG_LOCK, push it on the target's lock-free
 *      call_single_queue (llist.h);
 *   3. if the queue was empty, send CALL_FUNCTION_SINGLE_VECTOR (a queue
 *      that was not empty already has an IPI on the way);
 *   4. with `wait`, spin until the target clears CSD_FLAG_LOCK.
 * The target, in IRQ context, takes the whole queue at once, runs the
 * calls oldest first, and clears each slot's flag (release) only after its
 * function returned: that is both "done" for a waiter and "free" for the
 * next sender.
 *
 * Rules (as in Linux): never call with IRQs off or from an NMI: two CPUs
 * waiting for each other with IRQs off would never answer each other's IPI.
 * No lock is taken anywhere, so there is no lock order to keep.
 */
#include <cpumask.h>
#include <irqflags.h>
#include <kernel.h>
#include <llist.h>
#include <smp.h>
#include "../arch/x86_64/apic.h"
#include "../arch/x86_64/cpu.h"

#define CSD_FLAG_LOCK (1u << 0)

struct call_single_data {
	struct llist_node llist;
	smp_call_func_t func;
	void *info;
	unsigned int flags;
};

static struct call_single_data csd_data[NR_CPUS][NR_CPUS];
static DEFINE_PER_CPU(struct llist_head, call_single_queue);

void cpu_online_mask_get(struct cpumask *m)
{
	unsigned int cpu;

	cpumask_clear(m);
	for_each_online_cpu(cpu)
		if (READ_ONCE(percpu_areas[cpu].online))
			cpumask_set_cpu(cpu, m);
}

static void csd_lock_wait(struct call_single_data *csd)
{
	while (__atomic_load_n(&csd->flags, __ATOMIC_ACQUIRE) & CSD_FLAG_LOCK)
		cpu_relax();
}

static struct call_single_data *queue_call(unsigned int cpu,
					   smp_call_func_t func, void *info)
{
	struct call_single_data *csd = &csd_data[smp_processor_id()][cpu];

	csd_lock_wait(csd);
	csd->func = func;
	csd->info = info;
	csd->flags = CSD_FLAG_LOCK;
	if (llist_add(&csd->llist, per_cpu_ptr(call_single_queue, cpu)))
		apic_send_ipi(percpu_areas[cpu].apic_id,
			      APIC_DM_FIXED | CALL_FUNCTION_SINGLE_VECTOR);
	return csd;
}

/* IRQ context, from CALL_FUNCTION(_SINGLE)_VECTOR. */
void smp_call_function_interrupt(void)
{
	struct llist_node *oldest_first =
		llist_reverse_order(llist_del_all(this_cpu_ptr(call_single_queue)));

	while (oldest_first) {
		struct call_single_data *csd =
			llist_entry(oldest_first, struct call_single_data, llist);

		oldest_first = oldest_first->next;  /* before the slot is freed */
		csd->func(csd->info);
		__atomic_store_n(&csd->flags, 0, __ATOMIC_RELEASE);
	}
}

/* IRQs off only matters once there is another CPU to wait for: early
 * boot code (IRQs still off, one CPU) may call on_each_cpu() safely. */
static void check_calling_context(void)
{
	WARN_ON_ONCE(in_nmi());
	WARN_ON_ONCE(irqs_disabled() && nr_cpu_ids > 1);
}

int smp_call_function_single(unsigned int cpu, smp_call_func_t func,
			     void *info, bool wait)
{
	struct call_single_data *csd;
	unsigned long flags;

	check_calling_context();
	if (cpu >= nr_cpu_ids || !READ_ONCE(percpu_areas[cpu].online))
		return -1;
	if (cpu == smp_processor_id()) {
		flags = local_irq_save();   /* as if from the IPI */
		func(info);
		local_irq_restore(flags);
		return 0;
	}
	csd = queue_call(cpu, func, info);
	if (wait)
		csd_lock_wait(csd);
	return 0;
}

/* Wait until every call this CPU sent to `mask` has run. */
static void wait_for_calls(const struct cpumask *mask)
{
	unsigned int cpu, me = smp_processor_id();

	for_each_cpu(cpu, mask)
		if (cpu != me)
			csd_lock_wait(&csd_data[me][cpu]);
}

void smp_call_function_many(const struct cpumask *mask, smp_call_func_t func,
			    void *info, bool wait)
{
	unsigned int cpu, me = smp_processor_id();

	check_calling_context();
	for_each_cpu(cpu, mask) {
		if (cpu == me || cpu >= nr_cpu_ids ||
		    !READ_ONCE(percpu_areas[cpu].online))
			continue;
		queue_call(cpu, func, info);
	}
	if (wait)
		wait_for_calls(mask);
}

void on_each_cpu(smp_call_func_t func, void *info, bool wait)
{
	struct cpumask mask;
	unsigned long flags;

	cpu_online_mask_get(&mask);
	smp_call_function_many(&mask, func, info, false);
	flags = local_irq_save();
	func(info);
	local_irq_restore(flags);
	if (wait)
		wait_for_calls(&mask);
}
