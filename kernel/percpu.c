/*
 * percpu.c - every CPU's own area, reached through the GS base.
 *
 * Each CPU writes the address of its struct percpu into IA32_GS_BASE once,
 * before anything else runs on it, and never changes it: there is no user
 * mode and so no SWAPGS.  From then on smp_processor_id() and in_nmi() are
 * single GS-relative loads, safe in any context, NMIs included.
 */
#include <mm.h>
#include <smp.h>
#include <string.h>
#include "../arch/x86_64/cpu.h"

struct percpu percpu_areas[NR_CPUS];
unsigned int nr_cpu_ids = 1;
unsigned int nr_cpu_possible = NR_CPUS;   /* until the MADT is read */

void percpu_setup(unsigned int cpu, u32 apic_id)
{
	struct percpu *p = &percpu_areas[cpu];

	memset(p, 0, sizeof(*p));
	p->self = p;
	p->cpu = cpu;
	p->cpu_line_offset = (unsigned long)cpu * SMP_LINE_SIZE;
	p->apic_id = apic_id;
	/* kfree()'s fast path: slab pages only, any node, until
	 * numa_cpu_online() says which node this CPU frees to. */
	p->slab_free_flags_mask = PG_slab;
	p->slab_free_flags_want = PG_slab;
	wrmsr(MSR_GS_BASE, (u64)p);
}

void percpu_init_boot_cpu(void)
{
	percpu_setup(0, 0);
	percpu_areas[0].online = true;
}

/*
 * Single-CPU fallbacks: cross-CPU calls are plain calls.  The kernel links
 * kernel/smp.c, whose IPI-based versions (strong symbols) replace these;
 * they stay for builds without it.
 */
__attribute__((weak)) void on_each_cpu(smp_call_func_t func, void *info,
				       bool wait)
{
	(void)wait;
	func(info);
}

__attribute__((weak)) int smp_call_function_single(unsigned int cpu,
						   smp_call_func_t func,
						   void *info, bool wait)
{
	(void)wait;
	if (cpu != smp_processor_id())
		return -1;
	func(info);
	return 0;
}
