/*
 * apic.c - local APIC access in xAPIC or x2APIC mode, its timer, IPIs,
 * the I/O APIC redirection of the PIT, and the masked 8259 PIC.
 *
 * Mode: chosen once by the boot CPU (x2APIC when CPUID.1:ECX[21] says so
 * and the command line has no `nox2apic`), before the MADT is read (it
 * decides which APIC ids are reachable), then followed by every AP.
 * xAPIC registers are 32-bit MMIO at a 16-byte stride; x2APIC registers are
 * MSRs (SDM vol. 3A, 11.12.1: MSR = 0x800 + offset / 16).
 *
 * Timer: counted down from an initial count at the bus clock divided by
 * 16.  apic_timer_calibrate() lets it run for CALIBRATE_MS of TSC time
 * (the TSC is already calibrated against the PIT, tsc.c) and keeps the
 * ticks per millisecond; every CPU then runs it periodically at
 * APIC_TIMER_HZ.
 *
 * Locking: none.  Register accesses touch only this CPU's APIC; the I/O
 * APIC and the PIC are programmed once, at boot, on the boot CPU.
 */
#include <kernel.h>
#include <irqflags.h>
#include <kunit.h>
#include <memlayout.h>
#include <printk.h>
#include <smp.h>
#include "apic.h"
#include "acpi.h"
#include "cpu.h"
#include "paging.h"
#include "../../kernel/params.h"
#include "../../kernel/timekeeping.h"

/* 8259A PIC ports and initialisation words (Intel 8259A data sheet). */
#define PIC1_CMD   0x20
#define PIC1_DATA  0x21
#define PIC2_CMD   0xa0
#define PIC2_DATA  0xa1
#define PIC_ICW1_INIT_ICW4 0x11
#define PIC_ICW4_8086      0x01
#define PIC1_VECTOR_BASE   0x20   /* out of the way of the exceptions */
#define PIC2_VECTOR_BASE   0x28
#define PIC_CASCADE_IRQ    2
#define PIC_MASK_ALL       0xff

/* I/O APIC registers (82093AA data sheet, 3.0 and 3.2.4). */
#define IOAPIC_REGSEL      0x00
#define IOAPIC_WINDOW      0x10
#define IOAPIC_REDTBL(pin) (0x10 + 2 * (pin))
#define IOAPIC_DM_NMI      (4u << 8)
#define IOAPIC_ACTIVE_LOW  (1u << 13)
#define IOAPIC_MASKED      (1u << 16)
#define IOAPIC_DEST_SHIFT  56

/* 8254 PIT channel 0 (Intel 8254 data sheet). */
#define PIT_HZ             1193182u
#define PIT_CH0_DATA       0x40
#define PIT_MODE_CMD       0x43
#define PIT_CMD_CH0_LOHI_MODE2 0x34  /* channel 0, lo/hi, rate generator */
#define PIT_MAX_DIVISOR    65535u

#define ICR_IDLE_TIMEOUT_US 10000
#define CALIBRATE_MS        10

bool x2apic_mode;
u32 apic_timer_ticks_per_ms;
unsigned long apic_icr_timeouts;
static volatile u32 *xapic_base;

u32 apic_read(u32 reg)
{
	if (x2apic_mode)
		return (u32)rdmsr(X2APIC_MSR_BASE + reg / 16);
	return xapic_base[reg / 4];
}

void apic_write(u32 reg, u32 v)
{
	if (x2apic_mode)
		wrmsr(X2APIC_MSR_BASE + reg / 16, v);
	else
		xapic_base[reg / 4] = v;
}

u32 apic_read_id(void)
{
	if (x2apic_mode)
		return (u32)rdmsr(X2APIC_MSR_BASE + APIC_ID / 16);
	return xapic_base[APIC_ID / 4] >> XAPIC_DEST_SHIFT;
}

static void pic_mask_all(void)
{
	/* Re-initialise first, so that a stray PIC interrupt would land on
	 * vectors 0x20-0x2f rather than on an exception vector. */
	outb(PIC1_CMD, PIC_ICW1_INIT_ICW4);
	outb(PIC2_CMD, PIC_ICW1_INIT_ICW4);
	outb(PIC1_DATA, PIC1_VECTOR_BASE);
	outb(PIC2_DATA, PIC2_VECTOR_BASE);
	outb(PIC1_DATA, 1u << PIC_CASCADE_IRQ);
	outb(PIC2_DATA, PIC_CASCADE_IRQ);
	outb(PIC1_DATA, PIC_ICW4_8086);
	outb(PIC2_DATA, PIC_ICW4_8086);
	outb(PIC1_DATA, PIC_MASK_ALL);
	outb(PIC2_DATA, PIC_MASK_ALL);
}

void apic_choose_mode(void)
{
	u32 a, b, c, d;

	cpuid(CPUID_FEATURES, 0, &a, &b, &c, &d);
	if (!(d & CPUID_EDX_APIC))
		panic("apic: this CPU has no local APIC");
	x2apic_mode = (c & CPUID_ECX_X2APIC) && !param_flag(PARAM_NOX2APIC);
}

void apic_init_boot(void)
{
	phys_addr_t phys = rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_ADDR_MASK;

	if (!x2apic_mode)
		xapic_base = ioremap(phys, PAGE_SIZE);
	pic_mask_all();
}

void apic_check_madt_address(phys_addr_t madt_lapic_addr)
{
	phys_addr_t phys = rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_ADDR_MASK;

	if (madt_lapic_addr && madt_lapic_addr != phys)
		pr_warn("apic: MADT says the LAPIC is at %#lx, IA32_APIC_BASE says %#lx; using the MSR\n",
			(unsigned long)madt_lapic_addr, (unsigned long)phys);
}

void apic_setup_this_cpu(void)
{
	u64 base = rdmsr(MSR_IA32_APIC_BASE);

	/* xAPIC must be enabled before x2APIC (SDM vol. 3A, 11.12.5). */
	base |= APIC_BASE_ENABLE;
	wrmsr(MSR_IA32_APIC_BASE, base);
	if (x2apic_mode)
		wrmsr(MSR_IA32_APIC_BASE, base | APIC_BASE_EXTD);

	apic_write(APIC_TPR, 0);                  /* accept every priority */
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	apic_write(APIC_LVT_LINT0, APIC_LVT_MASKED);   /* no PIC virtual wire */
	/* LINT1 is wired to NMI on PCs (the MADT's LAPIC NMI entry). */
	apic_write(APIC_LVT_LINT1, APIC_LVT_DM_NMI);
	apic_write(APIC_LVT_ERROR, ERROR_APIC_VECTOR);
	apic_write(APIC_ESR, 0);                  /* writing arms the read */
	apic_write(APIC_SVR, APIC_SVR_ENABLE | SPURIOUS_APIC_VECTOR);
	apic_eoi();
}

/*
 * A WRMSR to an x2APIC register is not serialising (SDM vol. 3A, 11.12.3),
 * so the IPI could overtake our own earlier stores: the mailbox or list
 * entry the target is about to read.  MFENCE drains the stores, LFENCE
 * keeps the WRMSR from starting before that.  (An xAPIC MMIO write is an
 * ordinary uncached store and stays behind earlier stores by itself.)
 */
static inline void x2apic_wrmsr_fence(void)
{
	__asm__ __volatile__("mfence; lfence" ::: "memory");
}

/* The real xAPIC behind the ICR accessors (the tests put a fake there). */
static u32 xapic_icr_read(u32 reg)
{
	return xapic_base[reg / 4];
}

static void xapic_icr_write(u32 reg, u32 v)
{
	xapic_base[reg / 4] = v;
}

static const struct xapic_icr_ops xapic_real_icr = {
	.read = xapic_icr_read,
	.write = xapic_icr_write,
	.clock = rdtsc,
};

/*
 * Poll the delivery status until the ICR is idle, at most
 * ICR_IDLE_TIMEOUT_US.  A timeout is a hardware fault (an IPI that never
 * left): it is printed as a WARNING (kunit_print_report(), so the test
 * harness fails a run that sees one) and counted in apic_icr_timeouts; the
 * caller goes on, since waiting longer would only turn the fault into a
 * hang, in NMI context possibly.
 */
bool xapic_wait_icr_idle_ops(const struct xapic_icr_ops *ops)
{
	u64 end = ops->clock() + us_to_tsc(ICR_IDLE_TIMEOUT_US);

	while (ops->read(APIC_ICR_LOW) & APIC_ICR_BUSY) {
		if (ops->clock() > end) {
			__atomic_fetch_add(&apic_icr_timeouts, 1,
					   __ATOMIC_RELAXED);
			kunit_print_report(LOGLEVEL_ERR,
				"WARNING: apic: ICR still busy (send pending) after %u us on cpu%u; going on",
				ICR_IDLE_TIMEOUT_US, smp_processor_id());
			return false;
		}
		cpu_relax();
	}
	return true;
}

bool apic_wait_icr_idle(void)
{
	if (x2apic_mode)
		return true;   /* x2APIC ICR writes never have to wait */
	return xapic_wait_icr_idle_ops(&xapic_real_icr);
}

void xapic_send_ipi_ops(const struct xapic_icr_ops *ops, u32 dest,
			u32 icr_low, enum icr_high_policy policy)
{
	u32 saved_high;

	xapic_wait_icr_idle_ops(ops);
	/* See apic.h: an NMI must leave ICR_HIGH as it found it. */
	saved_high = ops->read(APIC_ICR_HIGH);
	ops->write(APIC_ICR_HIGH, dest << XAPIC_DEST_SHIFT);
	ops->write(APIC_ICR_LOW, icr_low);
	if (policy == ICR_HIGH_LEAVE)
		return;
	/*
	 * Our IPI may still be pending (delivery status set): the APIC may
	 * read ICR_HIGH until it has left, so restoring now could send it to
	 * the interrupted code's destination.  Wait for it first.  After a
	 * timeout the restore is written anyway: without it the interrupted
	 * code would certainly send to our target.
	 */
	xapic_wait_icr_idle_ops(ops);
	ops->write(APIC_ICR_HIGH, saved_high);
}

void apic_send_ipi(u32 dest, u32 icr_low)
{
	unsigned long flags = local_irq_save();

	if (x2apic_mode) {
		x2apic_wrmsr_fence();
		wrmsr(X2APIC_MSR_BASE + APIC_ICR_LOW / 16,
		      ((u64)dest << 32) | icr_low);
		local_irq_restore(flags);
		return;
	}
	xapic_send_ipi_ops(&xapic_real_icr, dest, icr_low,
			   in_nmi() ? ICR_HIGH_RESTORE : ICR_HIGH_LEAVE);
	local_irq_restore(flags);
}

/*
 * The self shorthand ignores ICR_HIGH, so there is nothing to put back;
 * but an NMI may have come between the interrupted sender's wait for an
 * idle ICR and its ICR_LOW write, so it waits for its own IPI to leave
 * before it returns, as xapic_send_ipi_ops() does before its restore.
 */
void xapic_send_self_ipi_ops(const struct xapic_icr_ops *ops, u8 vector,
			     bool from_nmi)
{
	xapic_wait_icr_idle_ops(ops);
	ops->write(APIC_ICR_LOW, APIC_DEST_SELF | APIC_DM_FIXED | vector);
	if (from_nmi)
		xapic_wait_icr_idle_ops(ops);
}

void apic_send_self_ipi(u8 vector)
{
	unsigned long flags;

	if (x2apic_mode) {
		x2apic_wrmsr_fence();
		wrmsr(X2APIC_SELF_IPI, vector);
		return;
	}
	/* IRQs off, as in apic_send_ipi(): an interrupt that sends between
	 * our wait and our write would leave the ICR busy under it. */
	flags = local_irq_save();
	xapic_send_self_ipi_ops(&xapic_real_icr, vector, in_nmi());
	local_irq_restore(flags);
}

void apic_timer_calibrate(void)
{
	u32 left;

	apic_write(APIC_TIMER_DIV, APIC_TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, APIC_LVT_MASKED);
	apic_write(APIC_TIMER_INIT, 0xffffffffu);
	udelay(CALIBRATE_MS * 1000);
	left = apic_read(APIC_TIMER_CUR);
	apic_write(APIC_TIMER_INIT, 0);
	apic_timer_ticks_per_ms = (0xffffffffu - left) / CALIBRATE_MS;
	if (!apic_timer_ticks_per_ms)
		apic_timer_ticks_per_ms = 1;
}

void apic_timer_start_periodic(void)
{
	apic_write(APIC_TIMER_DIV, APIC_TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, APIC_LVT_TIMER_PERIODIC | LOCAL_TIMER_VECTOR);
	apic_write(APIC_TIMER_INIT, apic_timer_ticks_per_ms * 1000 / APIC_TIMER_HZ);
}

/*
 * The tick, `ticks` timer ticks apart instead of 1 / APIC_TIMER_HZ: for
 * the counted benchmarks (bench/kernel/counted_bench.c), which run with
 * interrupts off, so at most one tick waits in the IRR until they end;
 * apic_timer_start_periodic() brings the usual tick back.  Under QEMU's
 * -icount one thread runs the vCPUs in turn, each until the next timer
 * deadline, so a short period makes the vCPUs interleave finely.  (A
 * masked LVT would not do: QEMU arms no timer for a masked entry.)
 */
void apic_timer_start_quantum(u32 ticks)
{
	apic_write(APIC_TIMER_DIV, APIC_TIMER_DIV_16);
	apic_write(APIC_LVT_TIMER, APIC_LVT_TIMER_PERIODIC | LOCAL_TIMER_VECTOR);
	apic_write(APIC_TIMER_INIT, ticks);
}

/* No tick on this CPU until one of the start functions above. */
void apic_timer_stop(void)
{
	apic_write(APIC_TIMER_INIT, 0);
}

static void ioapic_write(volatile u32 *base, u32 reg, u32 v)
{
	base[IOAPIC_REGSEL / 4] = reg;
	base[IOAPIC_WINDOW / 4] = v;
}

bool ioapic_route_isa_irq_as_nmi(unsigned int irq, u32 dest)
{
	u16 flags;
	u32 gsi = acpi_isa_irq_to_gsi(irq, &flags);
	unsigned int i;

	for (i = 0; i < acpi_madt_info.nr_ioapics; i++) {
		const struct acpi_ioapic *io = &acpi_madt_info.ioapics[i];
		volatile u32 *base;
		u64 entry;
		u32 pin;

		if (gsi < io->gsi_base)
			continue;
		pin = gsi - io->gsi_base;
		base = ioremap(io->phys_addr, PAGE_SIZE);
		/* NMI delivery is always edge-triggered; keep the polarity. */
		entry = IOAPIC_DM_NMI;
		if ((flags & ACPI_POLARITY_MASK) == ACPI_POLARITY_ACTIVE_LOW)
			entry |= IOAPIC_ACTIVE_LOW;
		entry |= (u64)dest << IOAPIC_DEST_SHIFT;
		ioapic_write(base, IOAPIC_REDTBL(pin) + 1, (u32)(entry >> 32));
		ioapic_write(base, IOAPIC_REDTBL(pin), (u32)entry);
		return true;
	}
	return false;
}

void pit_start_periodic(unsigned int hz)
{
	u32 div = PIT_HZ / hz;

	if (div > PIT_MAX_DIVISOR)
		div = PIT_MAX_DIVISOR;
	outb(PIT_MODE_CMD, PIT_CMD_CH0_LOHI_MODE2);
	outb(PIT_CH0_DATA, div & 0xff);
	outb(PIT_CH0_DATA, div >> 8);
}
