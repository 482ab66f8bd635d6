/*
 * nmi.c - vector 2: the NMI entry, its handlers, and sending NMIs.
 *
 * Entry (nmi_entry, installed as traps.c's nmi_entry_handler): the CPU is
 * on its IST1 stack (desc.c), with further NMIs blocked until IRETQ.  We
 * count the NMI, raise this CPU's nmi_nesting (so in_nmi() is true and
 * spin_lock() refuses to run), and call every registered handler.
 *
 * Handler table: a fixed array of slots.  register_nmi_handler() fills a
 * free slot's name and then publishes the function with a release store;
 * the NMI side loads each function with an acquire load, so it never sees
 * a half-filled slot.  No lock is shared with the NMI side, so there is no
 * lock an NMI could deadlock on.  Registration itself is normal-context
 * only and serialised by nmi_reg_lock (never taken in NMI context).
 *
 * Unregistering waits until no other CPU can still be inside the handler
 * (Linux does list_del_rcu() + synchronize_rcu(); here a per-CPU count does
 * it, which waits only for the CPUs inside the chain, not for a grace
 * period of every CPU): every CPU bumps its nmi_chain_seq to odd before it
 * loads the first handler and back to even after the last returned.
 * unregister_nmi_handler() clears the slot, then, for every other CPU
 * whose count is odd, waits until the count moves on.  A full barrier on
 * both sides (the NMI's count store before its handler loads, unregister's
 * slot store before its count loads) means either the CPU is seen inside
 * the chain and waited for, or it entered later and sees the empty slot.
 * The wait is bounded (UNREGISTER_WAIT_US, a hang guard): a handler stuck
 * for that long is reported with a WARNING naming it and the CPU.
 *
 * Panic: on the CPU that panics, every NMI from then on only counts
 * itself (printk_emergency_owner(), kernel/panic.c).
 *
 * Stopping: nmi_stop_other_cpus() sets `stop_cpus` and NMIs every other
 * online CPU; each prints its registers and backtrace (into its own NMI
 * printk buffer, see kernel/nmi_printk.c), counts itself in `cpus_stopped`
 * and halts with NMIs still blocked (it never IRETs).  The stopping CPU
 * waits at most STOP_WAIT_US for them, so a CPU stuck inside an NMI
 * handler only costs that wait.
 */
#include <kernel.h>
#include <kunit.h>
#include <nmi.h>
#include <printk.h>
#include <rcupdate.h>
#include <smp.h>
#include <spinlock.h>
#include <string.h>
#include "apic.h"
#include "cpu.h"
#include "interrupts.h"
#include "../../kernel/backtrace.h"
#include "../../kernel/timekeeping.h"

#define STOP_WAIT_US 1000000
#define UNREGISTER_WAIT_US 10000000

struct nmi_handler_slot {
	nmi_handler_t fn;      /* NULL: free; published last */
	const char *name;
};

/* Lock: nmi_reg_lock guards the writers of `handlers` (normal context
 * only; the NMI side only reads, without the lock). */
static DEFINE_SPINLOCK(nmi_reg_lock);
static struct nmi_handler_slot handlers[NMI_MAX_HANDLERS];

static DEFINE_PER_CPU(unsigned long, nmi_counts);
/* Odd while this CPU runs the handler chain (see the head comment). */
static DEFINE_PER_CPU(unsigned long, nmi_chain_seq);
static bool stop_cpus;
static unsigned int stopping_cpu;   /* the one that asked: it goes on */
static unsigned int cpus_stopped;

static void __noreturn nmi_stop_this_cpu(struct pt_regs *regs)
{
	pr_emerg("NMI backtrace for cpu%u (APIC id %u), stopped for the report:\n",
		 smp_processor_id(), this_cpu()->apic_id);
	show_regs(regs);
	dump_backtrace(regs->rip, regs->rbp);
	__atomic_fetch_add(&cpus_stopped, 1, __ATOMIC_RELEASE);
	cpu_halt_forever();
}

static void nmi_entry(struct pt_regs *regs)
{
	struct percpu *pc = this_cpu();
	unsigned int i;
	bool was_idle;

	pc->nmi_nesting++;
	per_cpu(nmi_counts, pc->cpu)++;
	if (printk_emergency_owner()) {
		/* This CPU is panicking (kernel/panic.c): no handler runs,
		 * the watchdog's heartbeat included. */
		pc->nmi_nesting--;
		return;
	}
	/* A handler may enter RCU read-side sections: if we interrupted the
	 * idle halt, RCU must watch this CPU until we leave (kernel/rcu.c). */
	was_idle = rcu_irq_enter();
	if (__atomic_load_n(&stop_cpus, __ATOMIC_ACQUIRE) &&
	    pc->cpu != READ_ONCE(stopping_cpu))
		nmi_stop_this_cpu(regs);
	__atomic_store_n(&per_cpu(nmi_chain_seq, pc->cpu),
			 per_cpu(nmi_chain_seq, pc->cpu) + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* pairs with unregister */
	for (i = 0; i < NMI_MAX_HANDLERS; i++) {
		nmi_handler_t fn = __atomic_load_n(&handlers[i].fn,
						   __ATOMIC_ACQUIRE);

		if (fn)
			fn(NMI_LOCAL, regs);
	}
	__atomic_store_n(&per_cpu(nmi_chain_seq, pc->cpu),
			 per_cpu(nmi_chain_seq, pc->cpu) + 1, __ATOMIC_RELEASE);
	rcu_irq_exit(was_idle);
	pc->nmi_nesting--;
}

int register_nmi_handler(unsigned int type, nmi_handler_t fn, const char *name)
{
	unsigned long flags;
	unsigned int i;
	int ret = -1;

	BUG_ON(type != NMI_LOCAL || in_nmi());
	spin_lock_irqsave(&nmi_reg_lock, flags);
	for (i = 0; i < NMI_MAX_HANDLERS; i++) {
		if (handlers[i].fn)
			continue;
		handlers[i].name = name;
		__atomic_store_n(&handlers[i].fn, fn, __ATOMIC_RELEASE);
		ret = 0;
		break;
	}
	spin_unlock_irqrestore(&nmi_reg_lock, flags);
	return ret;
}

/* Wait until no other CPU is inside the handler chain it was in when the
 * caller cleared a slot (the caller's barrier came first). */
static void wait_for_nmi_handlers(const char *name)
{
	unsigned int cpu, me = smp_processor_id();

	for_each_online_cpu(cpu) {
		unsigned long *seq = &per_cpu(nmi_chain_seq, cpu);
		unsigned long seen = __atomic_load_n(seq, __ATOMIC_ACQUIRE);
		u64 end = rdtsc() + us_to_tsc(UNREGISTER_WAIT_US);

		if (cpu == me || !(seen & 1))
			continue;
		while (__atomic_load_n(seq, __ATOMIC_ACQUIRE) == seen &&
		       rdtsc() < end)
			cpu_relax();
		if (WARN_ON(__atomic_load_n(seq, __ATOMIC_ACQUIRE) == seen))
			pr_err("unregister_nmi_handler(%s): cpu%u still in its "
			       "NMI handlers after %u s\n", name, cpu,
			       (unsigned int)(UNREGISTER_WAIT_US / 1000000));
	}
}

void unregister_nmi_handler(unsigned int type, const char *name)
{
	unsigned long flags;
	unsigned int i;
	bool found = false;

	BUG_ON(type != NMI_LOCAL || in_nmi());
	spin_lock_irqsave(&nmi_reg_lock, flags);
	for (i = 0; i < NMI_MAX_HANDLERS; i++) {
		if (handlers[i].fn && !strcmp(handlers[i].name, name)) {
			__atomic_store_n(&handlers[i].fn, NULL, __ATOMIC_RELEASE);
			found = true;
			break;
		}
	}
	spin_unlock_irqrestore(&nmi_reg_lock, flags);
	if (!found)
		return;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* pairs with nmi_entry */
	wait_for_nmi_handlers(name);
}

/* The SDM (vol. 3A, 11.6.1) forbids the self shorthand with delivery mode
 * NMI, so every NMI is addressed to an APIC id, our own included. */
/*
 * Only to an online CPU: one that is not has no APIC id recorded (0 would
 * reach the boot CPU), or has no IDT yet (an NMI would triple-fault it).
 * A refusal is a WARNING: whoever asked has a bug.
 */
bool nmi_send(unsigned int cpu)
{
	if (cpu >= NR_CPUS || !READ_ONCE(percpu_areas[cpu].online)) {
		kunit_print_report(LOGLEVEL_WARNING,
				   "WARNING: nmi_send(%u): that CPU is not online; no NMI sent",
				   cpu);
		return false;
	}
	apic_send_ipi(per_cpu(percpu_areas, cpu).apic_id, APIC_DM_NMI);
	return true;
}

void nmi_send_self(void)
{
	apic_send_ipi(this_cpu()->apic_id, APIC_DM_NMI);
}

void nmi_send_allbutself(void)
{
	unsigned int cpu, me = smp_processor_id();

	/* One by one rather than the all-but-self shorthand: it would also
	 * reach CPUs that never came online. */
	for_each_online_cpu(cpu)
		if (cpu != me && percpu_areas[cpu].online)
			nmi_send(cpu);
}

unsigned long nmi_count(unsigned int cpu)
{
	return READ_ONCE(per_cpu(nmi_counts, cpu));
}

void nmi_stop_other_cpus(void)
{
	unsigned int cpu, others = 0, me = smp_processor_id();
	u64 end;

	WRITE_ONCE(stopping_cpu, me);
	__atomic_store_n(&stop_cpus, true, __ATOMIC_RELEASE);
	for_each_online_cpu(cpu) {
		if (cpu == me || !percpu_areas[cpu].online)
			continue;
		others++;
		nmi_send(cpu);
	}
	end = rdtsc() + us_to_tsc(STOP_WAIT_US);
	while (__atomic_load_n(&cpus_stopped, __ATOMIC_ACQUIRE) < others &&
	       rdtsc() < end)
		cpu_relax();
	if (__atomic_load_n(&cpus_stopped, __ATOMIC_ACQUIRE) < others)
		pr_emerg("%u of %u other CPUs did not answer the stop NMI\n",
			 others - cpus_stopped, others);
}

extern void (*smp_stop_other_cpus_hook)(void);

void nmi_init(void)
{
	nmi_entry_handler = nmi_entry;
	smp_stop_other_cpus_hook = nmi_stop_other_cpus;
}
