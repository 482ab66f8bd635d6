/*
 * desc.h - the descriptor tables: GDT, TSS and IDT.
 */
#ifndef ARCH_X86_64_DESC_H
#define ARCH_X86_64_DESC_H

#include <types.h>
#include <compiler.h>
#include <memlayout.h>

#define KERNEL_CS 0x08
#define KERNEL_DS 0x10
#define TSS_SEL   0x18

/* Interrupt stack table slots (TSS.IST1..IST7; 0 means "no IST"). */
#define IST_NMI 1
#define IST_DF  2
#define IST_MC  3

#define KERNEL_STACK_SIZE (16 * 1024)
#define IST_STACK_SIZE    (8 * 1024)

/* The 64-bit TSS (SDM vol. 3A, 8.7, figure 8-11). */
struct tss {
	u32 reserved0;
	u64 rsp[3];
	u64 reserved1;
	u64 ist[7];
	u64 reserved2;
	u16 reserved3;
	u16 iomap_base;
} __packed;

/*
 * Every CPU's stacks, each below an unmapped guard page, so that running
 * off the end of a stack is a page fault (then a double fault on the
 * double-fault stack, which has its own guard) instead of silent damage.
 */
struct cpu_stacks {
	u8 guard_kernel[PAGE_SIZE];
	u8 kernel[KERNEL_STACK_SIZE];
	u8 guard_nmi[PAGE_SIZE];
	u8 nmi[IST_STACK_SIZE];
	u8 guard_df[PAGE_SIZE];
	u8 df[IST_STACK_SIZE];
	u8 guard_mc[PAGE_SIZE];
	u8 mc[IST_STACK_SIZE];
} __aligned(PAGE_SIZE);

#define GDT_ENTRIES 5 /* null, code, data, TSS (two slots) */

struct cpu_desc {
	u64 gdt[GDT_ENTRIES] __aligned(16);
	struct tss tss __aligned(16);
};

extern struct cpu_stacks cpu_stacks[];

void idt_init(void);           /* once, builds the shared IDT */
void cpu_desc_load(unsigned int cpu); /* per CPU: GDT, TSS, IDT */
void desc_unmap_stack_guards(void);
void *cpu_kernel_stack_top(unsigned int cpu);
/* Whose guard page holds addr: "kernel", "NMI", "#DF" or "#MC" stack of
 * *cpu; NULL when addr is in no guard page.  For the crash report. */
const char *stack_guard_owner(unsigned long addr, unsigned int *cpu);

#endif
