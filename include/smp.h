/*
 * smp.h - which CPU am I, and in what context am I running?
 *
 * Every CPU has a `struct percpu` (kernel/percpu.c) and its GS base points at
 * it, so smp_processor_id() is one GS-relative load and needs no lock.  The
 * first field is a pointer to the area itself (the "self pointer"), so
 * this_cpu() is one load too.
 *
 * Per-CPU variables of other subsystems are plain arrays indexed by CPU
 * number (DEFINE_PER_CPU); this_cpu_ptr() picks this CPU's slot.  There is
 * no scheduler and no preemption, so code never moves between CPUs and a
 * pointer to this CPU's slot stays valid for as long as the code runs.
 *
 * Contexts: in_nmi() is true inside an NMI handler (nmi_nesting > 0),
 * in_irq() inside a hardware interrupt handler, in_task() in neither.
 * in_exception() is true inside an exception handler that returns with
 * IRETQ (#DB, arch/x86_64/traps.c); in_task() stays true there, since
 * the code such a handler runs may do what the traced code may.
 *
 * The host build of mm/ shadows this header with a per-thread CPU number
 * and a per-thread "pretend we are in an NMI" counter.
 */
#ifndef SMP_H
#define SMP_H

#include <compiler.h>

#define NR_CPUS 64
#define SMP_LINE_SIZE 64   /* bytes per CPU in a this_cpu_line() array */

struct tss;

struct percpu {
	struct percpu *self;        /* must stay first: this_cpu() reads it */
	unsigned int cpu;           /* dense number, 0 = the boot CPU */
	u32 apic_id;
	unsigned int nmi_nesting;   /* > 0 while in an NMI handler */
	unsigned int irq_nesting;   /* > 0 while in an IRQ handler */
	unsigned int exception_nesting; /* > 0 while in an exception handler
					 * that returns (#DB) */
	bool online;
	/* cpu * SMP_LINE_SIZE: where this CPU's entry starts in an array of
	 * one cache line per CPU (a cache's cpu_sheaves[]), so a fast path
	 * finds its entry with one GS-relative add (this_cpu_line()). */
	unsigned long cpu_line_offset;
	/* The CPU's node and its nearest node with memory (include/numa.h:
	 * numa_node_id(), numa_mem_id()). */
	int numa_node;
	int numa_mem;
	/* kfree()'s fast path takes an object when its page's flags, masked
	 * with the first, equal the second: PG_slab, and this CPU's memory
	 * node when remote frees skip the sheaves (mm/slab.c,
	 * slab_numa_cpu_update()). */
	unsigned long slab_free_flags_mask;
	unsigned long slab_free_flags_want;
	/* Architecture state: descriptor tables and interrupt stacks. */
	void *arch;
};

extern struct percpu percpu_areas[NR_CPUS];
extern unsigned int nr_cpu_ids;  /* CPUs brought up (dense numbers) */
/*
 * CPUs that may ever run: the boot CPU and every other CPU the MADT lists.
 * NR_CPUS until smp_prepare_cpus() has read the MADT, then lowered once,
 * before the slab allocator sizes each cache's per-CPU sheaves by it, and
 * never changed again.  nr_cpu_ids <= nr_cpu_possible <= NR_CPUS.
 */
extern unsigned int nr_cpu_possible;

static __always_inline struct percpu *this_cpu(void)
{
	struct percpu *p;

	__asm__ __volatile__("movq %%gs:0, %0" : "=r"(p));
	return p;
}

static __always_inline unsigned int smp_processor_id(void)
{
	unsigned int cpu;

	__asm__ __volatile__("movl %%gs:%c1, %0"
			     : "=r"(cpu)
			     : "i"(offsetof(struct percpu, cpu)));
	return cpu;
}

/*
 * base + this CPU's number * SMP_LINE_SIZE: this CPU's entry of an array of
 * one SMP_LINE_SIZE entry per CPU that starts at base, or at a constant
 * offset from it (which the caller adds, and the compiler folds into the
 * displacement of each access: a cache's cpu_sheaves[], slab_internal.h).
 * One instruction (an add from GS), no CPU number needed.
 */
static __always_inline void *this_cpu_line(void *base)
{
	unsigned long p = (unsigned long)base;

	__asm__ ("addq %%gs:%c1, %0"
		 : "+r"(p)
		 : "i"(offsetof(struct percpu, cpu_line_offset)));
	return (void *)p;
}

/*
 * A field of this CPU's struct percpu: one GS-relative load (the register
 * the compiler picks gives the size).  Not volatile: the fields it is for
 * change only while the CPU is not using them.
 */
#define this_cpu_read(field) ({						\
	__typeof__(((struct percpu *)0)->field) v__;			\
	__asm__ ("mov %%gs:%c1, %0"					\
		 : "=r"(v__)						\
		 : "i"(offsetof(struct percpu, field)));			\
	v__;								\
})

/* One GS-relative load each: these sit on the allocator's fast paths. */
static __always_inline bool in_nmi(void)
{
	unsigned int n;

	__asm__ __volatile__("movl %%gs:%c1, %0"
			     : "=r"(n)
			     : "i"(offsetof(struct percpu, nmi_nesting)));
	return n != 0;
}

static __always_inline bool in_irq(void)
{
	unsigned int n;

	__asm__ __volatile__("movl %%gs:%c1, %0"
			     : "=r"(n)
			     : "i"(offsetof(struct percpu, irq_nesting)));
	return n != 0;
}

static __always_inline bool in_exception(void)
{
	unsigned int n;

	__asm__ __volatile__("movl %%gs:%c1, %0"
			     : "=r"(n)
			     : "i"(offsetof(struct percpu, exception_nesting)));
	return n != 0;
}

static __always_inline bool in_task(void)
{
	return !in_nmi() && !in_irq();
}

#define DEFINE_PER_CPU(type, name) type name[NR_CPUS]
#define DECLARE_PER_CPU(type, name) extern type name[NR_CPUS]
#define per_cpu(name, cpu) ((name)[cpu])
#define per_cpu_ptr(name, cpu) (&(name)[cpu])
#define this_cpu_ptr(name) (&(name)[smp_processor_id()])

#define for_each_possible_cpu(c) for ((c) = 0; (c) < nr_cpu_possible; (c)++)
#define for_each_online_cpu(c) \
	for ((c) = 0; (c) < nr_cpu_ids; (c)++)

void percpu_init_boot_cpu(void);
/* Boot CPU, once, before the memory allocators: the boot CPU's APIC and
 * the MADT, which sets nr_cpu_possible (smpboot.c). */
void smp_prepare_cpus(void);
/* Boot CPU, once, after them: the APIC timer, the other CPUs, the
 * watchdog (smpboot.c). */
void smp_init(void);
void percpu_setup(unsigned int cpu, u32 apic_id);

/*
 * Run func(info) on every online CPU (this one included) / on one CPU.
 * With wait, return only when every call has finished.  Implemented with
 * IPIs by the SMP code; the host tests run them by switching the thread's
 * CPU number.  Must not be called with IRQs off or from NMI context.
 */
typedef void (*smp_call_func_t)(void *info);
void on_each_cpu(smp_call_func_t func, void *info, bool wait);
int smp_call_function_single(unsigned int cpu, smp_call_func_t func,
			     void *info, bool wait);
/* func(info) on every online CPU in `mask` except this one (cpumask.h). */
struct cpumask;
void smp_call_function_many(const struct cpumask *mask, smp_call_func_t func,
			    void *info, bool wait);

#endif /* SMP_H */
