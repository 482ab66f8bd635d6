/*
 * interrupts.h - the saved CPU state of an interrupt, and who handles it.
 */
#ifndef ARCH_X86_64_INTERRUPTS_H
#define ARCH_X86_64_INTERRUPTS_H

#include <types.h>

/* Exactly what isr.asm leaves on the stack, lowest address first. */
struct pt_regs {
	u64 r15, r14, r13, r12, r11, r10, r9, r8;
	u64 rbp, rdi, rsi, rdx, rcx, rbx, rax;
	u64 vector, error_code;
	u64 rip, cs, rflags, rsp, ss;   /* pushed by the CPU */
};

#define VEC_DIVIDE_ERROR   0
#define VEC_DEBUG          1
#define VEC_NMI            2
#define VEC_BREAKPOINT     3
#define VEC_INVALID_OPCODE 6
#define VEC_DOUBLE_FAULT   8
#define VEC_GP_FAULT       13
#define VEC_PAGE_FAULT     14
#define VEC_MACHINE_CHECK  18
#define NR_EXCEPTION_VECTORS 32

typedef void (*irq_handler_t)(struct pt_regs *regs);

/* Install a handler for a vector >= 32 (APIC timer, IPIs). */
void set_irq_handler(unsigned int vector, irq_handler_t handler);
/* The handler installed for a vector >= 32 (a test may wrap it). */
irq_handler_t get_irq_handler(unsigned int vector);

/* The NMI entry point, set by arch/x86_64/nmi.c. */
extern void (*nmi_entry_handler)(struct pt_regs *regs);
/* NMIs that came before nmi_init() installed it: reported and ignored. */
extern unsigned long nmis_before_init;

/*
 * Vector 1 (#DB), NULL unless a test traces code (traps.c head comment).
 * Runs with IRQs off and TF clear; it must clear DR6 (write DR6_RESET)
 * and may change regs->rflags, e.g. clear RFLAGS_TF to stop tracing.
 */
extern void (*debug_exception_handler)(struct pt_regs *regs);

void interrupt_dispatch(struct pt_regs *regs);
void show_regs(const struct pt_regs *regs);

#endif
