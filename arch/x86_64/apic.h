/*
 * apic.h - the local APIC (one per CPU), the I/O APIC and the legacy PIC.
 *
 * The local APIC is reached in one of two ways (SDM vol. 3A, ch. 11):
 *   - xAPIC mode: 4 KiB of MMIO at the address in IA32_APIC_BASE; register
 *     at offset X (the offsets below);
 *   - x2APIC mode: MSRs, register at offset X is MSR 0x800 + X/16.  The ICR
 *     is one 64-bit MSR with a 32-bit destination, and APIC ids are 32 bits.
 * apic_read()/apic_write() hide the difference; every CPU uses the mode the
 * boot CPU chose (x2APIC when CPUID offers it, unless `nox2apic`).
 *
 * Sending an IPI (apic_send_ipi*) is safe in any context, NMI included: in
 * xAPIC mode an NMI that sends restores the ICR's high half (the
 * destination) it found, so the code it interrupted, which may have written
 * ICR_HIGH but not yet ICR_LOW, still sends where it meant to.  Normal
 * context sends with IRQs off, so only an NMI can come between the writes.
 * The NMI restores ICR_HIGH only after its own IPI has left (delivery
 * status clear), since the APIC may read the destination until then.
 * An NMI's self-IPI likewise returns only once it left: the code it
 * interrupted may already have waited for an idle ICR.
 * Every wait for an idle ICR is bounded (10 ms); a timeout is a WARNING.
 */
#ifndef ARCH_X86_64_APIC_H
#define ARCH_X86_64_APIC_H

#include <types.h>
#include <smp.h>

/* Local APIC register offsets (SDM vol. 3A, table 11-1 / 11-6). */
#define APIC_ID         0x020
#define APIC_VERSION    0x030
#define APIC_TPR        0x080
#define APIC_EOI        0x0b0
#define APIC_LDR        0x0d0
#define APIC_DFR        0x0e0
#define APIC_SVR        0x0f0
#define APIC_ESR        0x280
#define APIC_ICR_LOW    0x300
#define APIC_ICR_HIGH   0x310
#define APIC_LVT_TIMER  0x320
#define APIC_LVT_LINT0  0x350
#define APIC_LVT_LINT1  0x360
#define APIC_LVT_ERROR  0x370
#define APIC_TIMER_INIT 0x380
#define APIC_TIMER_CUR  0x390
#define APIC_TIMER_DIV  0x3e0
#define X2APIC_MSR_BASE 0x800   /* SDM vol. 3A, 11.12.1 */
#define X2APIC_SELF_IPI 0x83f   /* SDM vol. 3A, 11.12.11 */

/* IA32_APIC_BASE bits (SDM vol. 3A, 11.4.4, figure 11-5). */
#define APIC_BASE_BSP    (1ul << 8)
#define APIC_BASE_EXTD   (1ul << 10)   /* x2APIC mode */
#define APIC_BASE_ENABLE (1ul << 11)
#define APIC_BASE_ADDR_MASK 0xfffff000ul

/* Spurious-interrupt vector register (SDM vol. 3A, 11.9). */
#define APIC_SVR_ENABLE (1u << 8)

/* LVT entries (SDM vol. 3A, 11.5.1, figure 11-8). */
#define APIC_LVT_MASKED        (1u << 16)
#define APIC_LVT_TIMER_PERIODIC (1u << 17)
#define APIC_LVT_DM_NMI        (4u << 8)
#define APIC_TIMER_DIV_16      0x3     /* divide configuration, figure 11-10 */
#define APIC_TIMER_DIVISOR     16

/* Interrupt command register (SDM vol. 3A, 11.6.1, figure 11-12). */
#define APIC_DM_FIXED          (0u << 8)
#define APIC_DM_NMI            (4u << 8)
#define APIC_DM_INIT           (5u << 8)
#define APIC_DM_STARTUP        (6u << 8)
#define APIC_ICR_BUSY          (1u << 12)  /* delivery status, xAPIC only */
#define APIC_ICR_LEVEL_ASSERT  (1u << 14)
#define APIC_ICR_TRIGGER_LEVEL (1u << 15)
#define APIC_DEST_SELF         (1u << 18)  /* shorthands, bits 19:18 */
#define APIC_DEST_ALLBUT       (3u << 18)
#define XAPIC_DEST_SHIFT       24          /* ICR_HIGH bits 31:24 */

/*
 * Interrupt vectors, with Linux's numbers (arch/x86/include/asm/irq_vectors.h
 * there).  Higher vectors have higher priority; all are above the 32
 * exception vectors.
 */
#define LOCAL_TIMER_VECTOR           0xec
#define IRQ_WORK_VECTOR              0xf6
#define CALL_FUNCTION_SINGLE_VECTOR  0xfb
#define CALL_FUNCTION_VECTOR         0xfc
#define ERROR_APIC_VECTOR            0xfe
#define SPURIOUS_APIC_VECTOR         0xff

extern bool x2apic_mode;
/* Timer interrupts taken by each CPU since its timer started (smpboot.c). */
DECLARE_PER_CPU(unsigned long, apic_timer_ticks);
extern u32 apic_timer_ticks_per_ms;   /* after the divide-by-16 */
#define APIC_TIMER_HZ 100

/* Boot CPU, first: choose the mode (sets x2apic_mode). */
void apic_choose_mode(void);
/* Boot CPU, after choosing the mode: map the MMIO page (at the address
 * IA32_APIC_BASE gives), mask the PIC. */
void apic_init_boot(void);
/* Boot CPU, after the MADT: a line if the MADT names another address. */
void apic_check_madt_address(phys_addr_t madt_lapic_addr);
/* Every CPU: enable its local APIC in the chosen mode. */
void apic_setup_this_cpu(void);
u32 apic_read(u32 reg);
void apic_write(u32 reg, u32 v);
u32 apic_read_id(void);
static inline void apic_eoi(void)
{
	apic_write(APIC_EOI, 0);
}

/* Send `icr_low` (vector | delivery mode | shorthand) to APIC id `dest`. */
void apic_send_ipi(u32 dest_apic_id, u32 icr_low);
/* Fixed-vector interrupt to this CPU (self shorthand / SELF_IPI MSR). */
void apic_send_self_ipi(u8 vector);
/* Wait for the previous IPI to leave (xAPIC); false on timeout. */
bool apic_wait_icr_idle(void);

/*
 * The xAPIC send itself, over accessors for the ICR and a clock, so that a
 * test (tests/kernel/apic_test.c) can run it against a fake APIC whose
 * "send pending" bit lasts, or never clears.  apic_send_ipi() passes the
 * real registers and the TSC.
 */
struct xapic_icr_ops {
	u32 (*read)(u32 reg);
	void (*write)(u32 reg, u32 v);
	u64 (*clock)(void);      /* TSC units */
};

/* Does the send put back the ICR_HIGH it found?  (Only an NMI must.) */
enum icr_high_policy {
	ICR_HIGH_LEAVE,
	ICR_HIGH_RESTORE,
};

bool xapic_wait_icr_idle_ops(const struct xapic_icr_ops *ops);
void xapic_send_ipi_ops(const struct xapic_icr_ops *ops, u32 dest,
			u32 icr_low, enum icr_high_policy policy);
/* The self-shorthand send of apic_send_self_ipi() over the same
 * accessors; from_nmi: the caller is an NMI handler. */
void xapic_send_self_ipi_ops(const struct xapic_icr_ops *ops, u8 vector,
			     bool from_nmi);
/* Waits for an idle ICR that timed out (each one printed a WARNING). */
extern unsigned long apic_icr_timeouts;

/* Timer: calibrate once (boot CPU), then start the periodic tick per CPU. */
void apic_timer_calibrate(void);
void apic_timer_start_periodic(void);
void apic_timer_start_quantum(u32 ticks);
void apic_timer_stop(void);

/* I/O APIC: deliver ISA IRQ `irq` as an NMI to APIC id `dest`. */
bool ioapic_route_isa_irq_as_nmi(unsigned int irq, u32 dest_apic_id);
/* Program PIT channel 0 as a rate generator at about `hz`. */
void pit_start_periodic(unsigned int hz);

#endif
