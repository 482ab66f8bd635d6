/*
 * traps.c - where every interrupt and exception lands, and the crash report.
 *
 * interrupt_dispatch() is called by isr.asm with the saved registers.  The
 * 32 architectural exceptions are CPU errors in kernel code: there is no
 * user space to blame, so each is fatal.  The report names the exception,
 * the error code, CR2 for a page fault (the address that faulted) decoded
 * into words, every register, and a backtrace with symbol names; then
 * panic() ends the run with a failure status the test harness recognises.
 *
 * Vector 2, the NMI, is not an error: it goes to nmi_entry_handler (nmi.c),
 * which keeps the per-CPU nesting count behind in_nmi(); one that comes
 * before nmi_init() installed it is reported in a line and ignored.  Vector 1, #DB,
 * goes to debug_exception_handler when a test installed one (single-step
 * tracing, tests/kernel/singlestep_test.c); otherwise it is fatal too.
 * #DB has no IST stack: everything runs in ring 0 on a valid stack, so the
 * trap frame lands on the stack of the code being traced (no red zone:
 * -mno-red-zone), and the handler may nest calls there.  The CPU clears TF
 * (and IF: an interrupt gate) on entry, so the handler itself is never
 * traced; IRETQ restores the traced code's RFLAGS, TF included.  The
 * handler runs inside an exception_nesting count behind in_exception(), so
 * a failed KUNIT_ASSERT there returns instead of leaving it (kernel/kunit.c).
 * Vectors 32..255
 * go to handlers installed with set_irq_handler(), inside an irq_nesting
 * count behind in_irq(), between rcu_irq_enter() and rcu_irq_exit(): a
 * handler that interrupts the idle halt may enter RCU read-side sections,
 * so RCU must not count that CPU as idle while it runs (kernel/rcu.c, (d)).
 *
 * Before an NMI or an IRQ handler runs, rseq_ip_fixup() sends an
 * interrupted restartable sequence (include/rseq.h: the sheaf fast paths)
 * back to its start, so the handler may use this CPU's sheaves freely.
 * #DB leaves that to its handler: a tracer that restarted the sequence at
 * every step would never see it finish (singlestep_test.c calls it when
 * it runs allocator code there).  Every other exception is fatal.
 */
#include <kernel.h>
#include <printk.h>
#include <rcupdate.h>
#include <rseq.h>
#include <smp.h>
#include "interrupts.h"
#include "cpu.h"
#include "desc.h"
#include "../../kernel/backtrace.h"

#define PF_PRESENT (1u << 0)
#define PF_WRITE   (1u << 1)
#define PF_USER    (1u << 2)
#define PF_RSVD    (1u << 3)
#define PF_INSTR   (1u << 4)

/* A fault below this address is a NULL pointer (plus a small offset). */
#define NULL_PAGE_LIMIT 4096ul

static const char *const exception_names[NR_EXCEPTION_VECTORS] = {
	[0] = "Divide Error (#DE)",
	[1] = "Debug (#DB)",
	[2] = "Non-Maskable Interrupt",
	[3] = "Breakpoint (#BP)",
	[4] = "Overflow (#OF)",
	[5] = "BOUND Range Exceeded (#BR)",
	[6] = "Invalid Opcode (#UD)",
	[7] = "Device Not Available (#NM)",
	[8] = "Double Fault (#DF)",
	[9] = "Coprocessor Segment Overrun",
	[10] = "Invalid TSS (#TS)",
	[11] = "Segment Not Present (#NP)",
	[12] = "Stack-Segment Fault (#SS)",
	[13] = "General Protection (#GP)",
	[14] = "Page Fault (#PF)",
	[16] = "x87 Floating-Point Error (#MF)",
	[17] = "Alignment Check (#AC)",
	[18] = "Machine Check (#MC)",
	[19] = "SIMD Floating-Point (#XM)",
	[20] = "Virtualization (#VE)",
	[21] = "Control Protection (#CP)",
};

static irq_handler_t irq_handlers[256];
void (*nmi_entry_handler)(struct pt_regs *regs);
unsigned long nmis_before_init;
void (*debug_exception_handler)(struct pt_regs *regs);

void set_irq_handler(unsigned int vector, irq_handler_t handler)
{
	BUG_ON(vector < NR_EXCEPTION_VECTORS || vector > 255);
	irq_handlers[vector] = handler;
}

irq_handler_t get_irq_handler(unsigned int vector)
{
	BUG_ON(vector < NR_EXCEPTION_VECTORS || vector > 255);
	return irq_handlers[vector];
}

void show_regs(const struct pt_regs *r)
{
	char sym[96];

	kallsyms_format(r->rip, sym, sizeof(sym));
	pr_emerg("RIP: %016lx %s\n", (unsigned long)r->rip, sym);
	pr_emerg("RSP: %016lx RFLAGS: %08lx CS: %04lx SS: %04lx\n",
		 (unsigned long)r->rsp, (unsigned long)r->rflags,
		 (unsigned long)r->cs, (unsigned long)r->ss);
	pr_emerg("RAX: %016lx RBX: %016lx RCX: %016lx\n",
		 (unsigned long)r->rax, (unsigned long)r->rbx,
		 (unsigned long)r->rcx);
	pr_emerg("RDX: %016lx RSI: %016lx RDI: %016lx\n",
		 (unsigned long)r->rdx, (unsigned long)r->rsi,
		 (unsigned long)r->rdi);
	pr_emerg("RBP: %016lx R8:  %016lx R9:  %016lx\n",
		 (unsigned long)r->rbp, (unsigned long)r->r8,
		 (unsigned long)r->r9);
	pr_emerg("R10: %016lx R11: %016lx R12: %016lx\n",
		 (unsigned long)r->r10, (unsigned long)r->r11,
		 (unsigned long)r->r12);
	pr_emerg("R13: %016lx R14: %016lx R15: %016lx\n",
		 (unsigned long)r->r13, (unsigned long)r->r14,
		 (unsigned long)r->r15);
	pr_emerg("CR0: %016lx CR3: %016lx CR4: %016lx\n", read_cr0(),
		 read_cr3(), read_cr4());
}

static void explain_page_fault(const struct pt_regs *regs)
{
	u64 err = regs->error_code;
	unsigned long addr = read_cr2();

	pr_emerg("CR2: %016lx (the address that faulted)\n", addr);
	pr_emerg("cause: %s %s of a %s page%s\n",
		 err & PF_USER ? "user" : "kernel",
		 err & PF_INSTR ? "instruction fetch" :
		 err & PF_WRITE ? "write" : "read",
		 err & PF_PRESENT ? "present (protection violation)" :
				    "not-present",
		 err & PF_RSVD ? ", reserved bit set in a page table" : "");
	if (addr < NULL_PAGE_LIMIT)
		pr_emerg("cause: a NULL pointer dereference\n");
}

/*
 * A stack overflow shows as a page fault in a guard page, or, when the CPU
 * could not even push the page fault's frame (the stack pointer itself in
 * the guard), as a double fault on its own IST stack with CR2 still naming
 * the guard page.  Say so in words.
 */
static void explain_stack_overflow(const struct pt_regs *regs)
{
	unsigned long addr = read_cr2();
	unsigned int cpu;
	const char *stack = stack_guard_owner(addr, &cpu);

	if (!stack)
		stack = stack_guard_owner(regs->rsp, &cpu);
	if (stack)
		pr_emerg("cause: kernel stack overflow: cpu%u's %s stack ran "
			 "into its guard page\n", cpu, stack);
}

static __noreturn void die(struct pt_regs *regs)
{
	unsigned int vec = (unsigned int)regs->vector;
	const char *name = vec < NR_EXCEPTION_VECTORS && exception_names[vec] ?
			   exception_names[vec] : "Unexpected interrupt";

	printk_emergency_begin();
	pr_emerg("EXCEPTION: %s, vector %u, error code %#lx, on cpu%u\n", name,
		 vec, (unsigned long)regs->error_code, smp_processor_id());
	if (vec == VEC_PAGE_FAULT)
		explain_page_fault(regs);
	if (vec == VEC_PAGE_FAULT || vec == VEC_DOUBLE_FAULT)
		explain_stack_overflow(regs);
	show_regs(regs);
	dump_backtrace(regs->rip, regs->rbp);
	panic("fatal exception: %s", name);
}

/*
 * An NMI before nmi_init() (firmware, a board watchdog, a stray LINT1):
 * as Linux does with an NMI nobody claims, say so and go on.  It counts as
 * NMI context (in_nmi()), so the line goes to this CPU's NMI buffer and
 * the console lock the interrupted code may hold is never touched.
 */
static void nmi_before_init(struct percpu *pc, struct pt_regs *regs)
{
	pc->nmi_nesting++;
	__atomic_fetch_add(&nmis_before_init, 1, __ATOMIC_RELAXED);
	pr_warn("NMI on cpu%u at %#lx before the NMI handlers were installed (nmi_init): ignored\n",
		smp_processor_id(), (unsigned long)regs->rip);
	pc->nmi_nesting--;
}

void interrupt_dispatch(struct pt_regs *regs)
{
	unsigned int vec = (unsigned int)regs->vector;
	struct percpu *pc = this_cpu();
	bool was_idle;

	if (vec == VEC_NMI) {
		void (*entry)(struct pt_regs *) = READ_ONCE(nmi_entry_handler);

		rseq_ip_fixup(regs);
		if (entry)
			entry(regs);
		else
			nmi_before_init(pc, regs);
		return;
	}
	if (vec == VEC_DEBUG && debug_exception_handler) {
		pc->exception_nesting++;
		debug_exception_handler(regs);
		pc->exception_nesting--;
		return;
	}
	if (vec < NR_EXCEPTION_VECTORS)
		die(regs);
	if (!irq_handlers[vec])
		die(regs);
	rseq_ip_fixup(regs);
	was_idle = rcu_irq_enter();      /* RCU watches the handler */
	pc->irq_nesting++;
	irq_handlers[vec](regs);
	pc->irq_nesting--;
	rcu_irq_exit(was_idle);
}
