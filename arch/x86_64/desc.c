/*
 * desc.c - GDT, TSS and IDT for every CPU.
 *
 * Long mode barely uses segmentation, but it still needs (SDM vol. 3A, ch. 3
 * and 8): a code segment with L=1, a data segment for SS, and a TSS, whose
 * only remaining job is the Interrupt Stack Table.  An IDT gate that names
 * an IST slot makes the CPU switch to that stack unconditionally, which we
 * use for the three exceptions that may arrive with a broken stack or at
 * any instruction: NMI (vector 2), double fault (8) and machine check (18).
 *
 * Each CPU has its own GDT and TSS (a TSS descriptor is marked busy when
 * loaded, so two CPUs cannot share one) and its own stacks; all CPUs share
 * one IDT, built once.
 */
#include <smp.h>
#include <string.h>
#include "desc.h"
#include "paging.h"

#define GATE_INTERRUPT  0x8e   /* present, DPL 0, 64-bit interrupt gate */
#define IDT_VECTORS     256
#define SEG_CODE64      0x00af9a000000ffffull /* present, exec/read, L=1 */
#define SEG_DATA        0x00cf92000000ffffull /* present, read/write */
#define TSS_TYPE_AVAIL  0x89ull               /* present, 64-bit TSS, avail */

#define VEC_NMI 2
#define VEC_DF  8
#define VEC_MC  18

struct idt_gate {
	u16 offset_low;
	u16 selector;
	u8  ist;
	u8  type_attr;
	u16 offset_mid;
	u32 offset_high;
	u32 reserved;
} __packed;

struct desc_ptr {
	u16 limit;
	u64 base;
} __packed;

extern const u64 isr_stub_table[IDT_VECTORS]; /* isr.asm */

static struct idt_gate idt[IDT_VECTORS] __aligned(16);
static struct cpu_desc cpu_descs[NR_CPUS];
struct cpu_stacks cpu_stacks[NR_CPUS];
/*
 * entry.asm loads this into RSP before kernel_main(): the boot CPU runs on
 * its guarded kernel stack from its first C instruction on, like every AP
 * (cpu_kernel_stack_top() in smpboot.c).  The guard is mapped until
 * desc_unmap_stack_guards(), a few steps into kernel_main().
 */
void *const boot_cpu_stack_top = cpu_stacks[0].kernel + KERNEL_STACK_SIZE;

static void set_gate(unsigned int vec, u64 handler, u8 ist)
{
	struct idt_gate *g = &idt[vec];

	g->offset_low = handler & 0xffff;
	g->selector = KERNEL_CS;
	g->ist = ist;
	g->type_attr = GATE_INTERRUPT;
	g->offset_mid = (handler >> 16) & 0xffff;
	g->offset_high = handler >> 32;
	g->reserved = 0;
}

void idt_init(void)
{
	unsigned int v;

	for (v = 0; v < IDT_VECTORS; v++)
		set_gate(v, isr_stub_table[v], 0);
	set_gate(VEC_NMI, isr_stub_table[VEC_NMI], IST_NMI);
	set_gate(VEC_DF, isr_stub_table[VEC_DF], IST_DF);
	set_gate(VEC_MC, isr_stub_table[VEC_MC], IST_MC);
}

/* A 16-byte system descriptor for the TSS (SDM vol. 3A, figure 8-4). */
static void set_tss_desc(u64 *gdt, struct tss *tss)
{
	u64 base = (u64)tss;
	u64 limit = sizeof(*tss) - 1;

	gdt[0] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
		 (TSS_TYPE_AVAIL << 40) | (((limit >> 16) & 0xf) << 48) |
		 (((base >> 24) & 0xff) << 56);
	gdt[1] = base >> 32;
}

void *cpu_kernel_stack_top(unsigned int cpu)
{
	return cpu_stacks[cpu].kernel + KERNEL_STACK_SIZE;
}

void cpu_desc_load(unsigned int cpu)
{
	struct cpu_desc *d = &cpu_descs[cpu];
	struct cpu_stacks *st = &cpu_stacks[cpu];
	struct desc_ptr gdtr, idtr;

	memset(d, 0, sizeof(*d));
	d->gdt[0] = 0;
	d->gdt[KERNEL_CS / 8] = SEG_CODE64;
	d->gdt[KERNEL_DS / 8] = SEG_DATA;
	set_tss_desc(&d->gdt[TSS_SEL / 8], &d->tss);

	d->tss.ist[IST_NMI - 1] = (u64)(st->nmi + IST_STACK_SIZE);
	d->tss.ist[IST_DF - 1] = (u64)(st->df + IST_STACK_SIZE);
	d->tss.ist[IST_MC - 1] = (u64)(st->mc + IST_STACK_SIZE);
	d->tss.iomap_base = sizeof(struct tss); /* no I/O bitmap */

	gdtr.limit = sizeof(d->gdt) - 1;
	gdtr.base = (u64)d->gdt;
	idtr.limit = sizeof(idt) - 1;
	idtr.base = (u64)idt;

	__asm__ __volatile__(
		"lgdt %0\n\t"
		/* reload CS with a far return, then the data segments */
		"pushq %[cs]\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"movw %[ds], %%ax\n\t"
		"movw %%ax, %%ds\n\t"
		"movw %%ax, %%es\n\t"
		"movw %%ax, %%ss\n\t"
		"ltr %w[tss]\n\t"
		"lidt %1\n\t"
		:
		: "m"(gdtr), "m"(idtr), [cs] "i"(KERNEL_CS),
		  [ds] "i"(KERNEL_DS), [tss] "r"(TSS_SEL)
		: "rax", "memory");
}

const char *stack_guard_owner(unsigned long addr, unsigned int *cpu)
{
	unsigned int c;

	for (c = 0; c < NR_CPUS; c++) {
		const struct cpu_stacks *st = &cpu_stacks[c];
		const struct { const u8 *guard; const char *name; } g[] = {
			{ st->guard_kernel, "kernel" }, { st->guard_nmi, "NMI" },
			{ st->guard_df, "#DF" }, { st->guard_mc, "#MC" },
		};
		unsigned int i;

		for (i = 0; i < ARRAY_SIZE(g); i++) {
			unsigned long lo = (unsigned long)g[i].guard;

			if (addr >= lo && addr < lo + PAGE_SIZE) {
				*cpu = c;
				return g[i].name;
			}
		}
	}
	return NULL;
}

/* Unmap every guard page, so a stack overflow faults. */
void desc_unmap_stack_guards(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct cpu_stacks *st = &cpu_stacks[cpu];

		paging_unmap_kernel_page((unsigned long)st->guard_kernel);
		paging_unmap_kernel_page((unsigned long)st->guard_nmi);
		paging_unmap_kernel_page((unsigned long)st->guard_df);
		paging_unmap_kernel_page((unsigned long)st->guard_mc);
	}
}
