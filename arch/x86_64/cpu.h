/*
 * cpu.h - one-instruction wrappers for the x86-64 instructions C cannot say.
 *
 * Port I/O, MSRs, CPUID, control registers, the TSC and halting.  Each is an
 * inline asm statement with its constraints spelled out; the "memory"
 * clobber is there wherever the instruction orders memory accesses.
 * MSR numbers and CR bits are named after the Intel SDM, volume 4 and
 * volume 3A section 2.5.
 */
#ifndef ARCH_X86_64_CPU_H
#define ARCH_X86_64_CPU_H

#include <types.h>

/* MSRs (SDM vol. 4, table 2-2) */
#define MSR_IA32_APIC_BASE   0x1b
#define MSR_EFER             0xc0000080
#define MSR_FS_BASE          0xc0000100
#define MSR_GS_BASE          0xc0000101
#define MSR_KERNEL_GS_BASE   0xc0000102

#define EFER_SCE  (1u << 0)
#define EFER_LME  (1u << 8)
#define EFER_NXE  (1u << 11)

/* CR0 and CR4 bits (SDM vol. 3A, 2.5) */
#define CR0_WP    (1ul << 16)
#define CR4_PAE   (1ul << 5)
#define CR4_PGE   (1ul << 7)

/* CPUID leaves and feature bits (SDM vol. 2A, CPUID) */
#define CPUID_EXT_FEATURES     0x80000001
#define CPUID_EXT_EDX_NX       (1u << 20)
#define CPUID_EXT_EDX_PDPE1GB  (1u << 26)
#define CPUID_FEATURES         0x1
#define CPUID_ECX_X2APIC       (1u << 21)
#define CPUID_EDX_APIC         (1u << 9)
#define CPUID_EDX_TSC          (1u << 4)

/* RFLAGS (SDM vol. 1, 3.4.3) */
#define RFLAGS_TF (1ul << 8)   /* trap flag: #DB after every instruction */
#define RFLAGS_IF (1ul << 9)

/* DR6, the debug status register (SDM vol. 3B, 18.2.3).  The CPU sets its
 * bits but never clears them: a #DB handler writes DR6_RESET back. */
#define DR6_BS    (1ul << 14)  /* the #DB is a single-step trap (TF) */
#define DR6_RESET 0xffff0ff0ul /* every status bit clear */

static inline void outb(u16 port, u8 v)
{
	__asm__ __volatile__("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline u8 inb(u16 port)
{
	u8 v;

	__asm__ __volatile__("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outw(u16 port, u16 v)
{
	__asm__ __volatile__("outw %0, %1" : : "a"(v), "Nd"(port));
}

static inline void outl(u16 port, u32 v)
{
	__asm__ __volatile__("outl %0, %1" : : "a"(v), "Nd"(port));
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ __volatile__("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ __volatile__("wrmsr"
			     : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32))
			     : "memory");
}

static inline void cpuid(u32 leaf, u32 subleaf, u32 *a, u32 *b, u32 *c,
			 u32 *d)
{
	__asm__ __volatile__("cpuid"
			     : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			     : "a"(leaf), "c"(subleaf));
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

/*
 * rdtsc_ordered - a TSC read that no earlier instruction can drift past:
 * LFENCE waits for everything before it to complete (SDM vol. 2B, RDTSC),
 * which is what a benchmark's start and end stamps need.
 */
static inline u64 rdtsc_ordered(void)
{
	u32 lo, hi;

	__asm__ __volatile__("lfence; rdtsc; lfence"
			     : "=a"(lo), "=d"(hi) : : "memory");
	return ((u64)hi << 32) | lo;
}

#define DEFINE_READ_CR(n)                                                     \
	static inline unsigned long read_cr##n(void)                          \
	{                                                                     \
		unsigned long v;                                              \
		__asm__ __volatile__("mov %%cr" #n ", %0" : "=r"(v));         \
		return v;                                                     \
	}
DEFINE_READ_CR(0)
DEFINE_READ_CR(2)
DEFINE_READ_CR(3)
DEFINE_READ_CR(4)

static inline unsigned long read_dr6(void)
{
	unsigned long v;

	__asm__ __volatile__("mov %%db6, %0" : "=r"(v));
	return v;
}

static inline void write_dr6(unsigned long v)
{
	__asm__ __volatile__("mov %0, %%db6" : : "r"(v));
}

static inline void write_cr0(unsigned long v)
{
	__asm__ __volatile__("mov %0, %%cr0" : : "r"(v) : "memory");
}

static inline void write_cr3(unsigned long v)
{
	__asm__ __volatile__("mov %0, %%cr3" : : "r"(v) : "memory");
}

static inline void write_cr4(unsigned long v)
{
	__asm__ __volatile__("mov %0, %%cr4" : : "r"(v) : "memory");
}

static inline void invlpg(unsigned long addr)
{
	__asm__ __volatile__("invlpg (%0)" : : "r"(addr) : "memory");
}

static inline void cpu_relax(void)
{
	__asm__ __volatile__("pause" ::: "memory");
}

static inline void halt(void)
{
	__asm__ __volatile__("hlt" ::: "memory");
}

/*
 * Enable interrupts and halt, as one step: STI takes effect only after the
 * next instruction, so no interrupt can slip in between the two.  An idle
 * loop that checks for work with IRQs off and then calls safe_halt() can
 * therefore never sleep through the IPI that announced the work: the IPI
 * is taken as the HLT begins and wakes it.
 */
static inline void safe_halt(void)
{
	__asm__ __volatile__("sti; hlt" ::: "memory");
}

static inline unsigned long read_rflags(void)
{
	unsigned long f;

	__asm__ __volatile__("pushfq; popq %0" : "=r"(f) : : "memory");
	return f;
}

static inline unsigned long read_rbp(void)
{
	unsigned long v;

	__asm__ __volatile__("mov %%rbp, %0" : "=r"(v));
	return v;
}

/* Stop this CPU for good: interrupts off, halt forever (NMIs still wake
 * it, so loop). */
static inline __attribute__((noreturn)) void cpu_halt_forever(void)
{
	for (;;)
		__asm__ __volatile__("cli; hlt" ::: "memory");
}

#endif /* ARCH_X86_64_CPU_H */
