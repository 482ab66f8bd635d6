/*
 * Host shadow of include/smp.h: each host thread plays one CPU.
 *
 * A test sets host_cpu_id to choose which CPU a thread is, and raises
 * host_nmi_nesting to make the code under test believe it runs in an NMI,
 * so the any-context paths of mm/ can be driven deterministically.
 */
#ifndef SMP_H
#define SMP_H

#include <compiler.h>

#define NR_CPUS 8

extern __thread unsigned int host_cpu_id;
extern __thread unsigned int host_nmi_nesting;
extern __thread unsigned int host_irq_nesting;
extern unsigned int nr_cpu_ids;
/* NR_CPUS unless a test lowers it before kmem_cache_init() (it sizes each
 * cache's per-CPU sheaves); nr_cpu_ids stays at most this. */
extern unsigned int nr_cpu_possible;

static inline unsigned int smp_processor_id(void) { return host_cpu_id; }
#define SMP_LINE_SIZE 64
static inline void *this_cpu_line(void *base)
{
	return (char *)base + (unsigned long)host_cpu_id * SMP_LINE_SIZE;
}
static inline bool in_nmi(void) { return host_nmi_nesting != 0; }
static inline bool in_irq(void) { return host_irq_nesting != 0; }
static inline bool in_task(void) { return !in_nmi() && !in_irq(); }
/* No exception handlers on the host. */
static inline bool in_exception(void) { return false; }

/* The kernel's struct percpu, the fields mm/ reads (include/smp.h). */
struct percpu {
	int numa_node;
	int numa_mem;
	unsigned long slab_free_flags_mask;
	unsigned long slab_free_flags_want;
};
extern struct percpu percpu_areas[NR_CPUS];
#define this_cpu_read(field) (percpu_areas[host_cpu_id].field)

#define DEFINE_PER_CPU(type, name) type name[NR_CPUS]
#define DECLARE_PER_CPU(type, name) extern type name[NR_CPUS]
#define per_cpu(name, cpu) ((name)[cpu])
#define per_cpu_ptr(name, cpu) (&(name)[cpu])
#define this_cpu_ptr(name) (&(name)[smp_processor_id()])

#define for_each_possible_cpu(c) for ((c) = 0; (c) < nr_cpu_possible; (c)++)
#define for_each_online_cpu(c) for ((c) = 0; (c) < nr_cpu_ids; (c)++)

/*
 * A host thread is no CPU: the thread holding the lock we spin on may have
 * been descheduled, so a spinning thread gives its time slice away rather
 * than burn it (with real threads, tests/host/stress/, a ticket lock would
 * otherwise convoy behind every preempted waiter).
 */
void host_cpu_relax(void);
static inline void cpu_relax(void) { __builtin_ia32_pause(); host_cpu_relax(); }

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

#endif /* SMP_H */
