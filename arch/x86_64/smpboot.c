/*
 * smpboot.c - bring every CPU of the MADT online.
 *
 * Two calls on the boot CPU (BSP).  smp_prepare_cpus(), after paging and
 * before the memory allocators, so that they size their per-CPU data by
 * the CPUs that exist:
 *   1. apic_choose_mode(), the BSP's local APIC (x2APIC or xAPIC), the
 *      PIC masked, the vectors of the timer and of the IPIs installed;
 *   2. acpi_init(), given the BSP's APIC id: the CPUs (APIC ids) and
 *      interrupt wiring from the MADT, without the CPUs whose APIC id the
 *      chosen mode cannot address (above 0xfe in xAPIC mode); their count
 *      is nr_cpu_possible from then on.
 * smp_init(), once the allocators work, before the self-tests: the APIC
 * timer calibrated and ticking, IRQs enabled;
 *   3. for each other CPU of the MADT, INIT-SIPI-SIPI (SDM vol. 3A, 9.4.4.1)
 *      through the real-mode trampoline (trampoline.asm) at
 *      TRAMPOLINE_PHYS, one CPU at a time, each with a timeout;
 *   4. the watchdog, and a boot-time NMI round trip for the summary.
 *
 * CPU numbers are dense (0 = BSP, then the order the APs answered); APIC
 * ids are whatever the MADT says (QEMU's -smp 6,sockets=2,cores=3 gives
 * 0,1,2,4,5,6) and live in percpu->apic_id.  The MADT parser has already
 * dropped repeated and disabled entries, and ids out of the mode's reach
 * (`dest << 24` would truncate them: 0xff is the broadcast, 0x100 the
 * boot CPU, and INIT would reset it).
 *
 * The handshake with an AP: the BSP writes the trampoline data (page
 * tables, stack, entry point) and `ap_booting_cpu`/`ap_expected_apic_id`,
 * sends the IPIs, and waits for `ap_alive` to become the CPU number.  The
 * AP sets it (release) only once it runs on its own GDT/TSS/IST stacks,
 * its per-CPU area and its APIC timer.  An AP that does not answer in time
 * is reported, put back into wait-for-SIPI with another INIT (so it can
 * never wake up later with stale instructions), and its number is reused.
 *
 * W^X for the trampoline page (see trampoline_seal()): the BSP writes it
 * through the direct map while nothing maps it executable, and an AP runs
 * it while it is identity-mapped read-only and its direct-map alias is
 * read-only too.  Between two APs, and after the last, it is writable and
 * not executable.
 *
 * Stacks: each AP gets cpu_stacks[cpu] (desc.h): a kernel stack and three
 * IST stacks, each below an unmapped guard page.
 */
#include <cpu_work.h>
#include <kernel.h>
#include <irqflags.h>
#include <irq_work.h>
#include <memlayout.h>
#include <nmi.h>
#include <numa.h>
#include <printk.h>
#include <rcupdate.h>
#include <slab.h>
#include <numa.h>
#include <smp.h>
#include <string.h>
#include <viz.h>
#include <watchdog.h>
#include "acpi.h"
#include "apic.h"
#include "cpu.h"
#include "desc.h"
#include "interrupts.h"
#include "paging.h"
#include "../../kernel/params.h"
#include "../../kernel/nmi_printk.h"
#include "../../kernel/timekeeping.h"

#define TRAMPOLINE_PHYS      0x8000ul   /* also in trampoline.asm */
#define SIPI_VECTOR          (TRAMPOLINE_PHYS >> 12)
#define INIT_DELAY_US        10000      /* SDM 9.4.4.1: 10 ms after INIT */
#define SIPI_DELAY_US        200        /* and 200 us after each SIPI */
#define CR4_PCIDE            (1ul << 17)
#define NMI_SELFTEST_WAIT_US 1000000

struct trampoline_data {
	u32 cr0, cr3, cr4, efer;
	u64 stack;
	u64 entry;
} __packed;

extern const u8 trampoline_start[], trampoline_end[], trampoline_data[];

static unsigned int ap_booting_cpu;
static u32 ap_expected_apic_id;
static int ap_alive = -1;
static unsigned int apic_id_mismatches;
struct wx_audit smp_bringup_wx_audit;
unsigned int smp_bringup_wx_audits;

DEFINE_PER_CPU(unsigned long, apic_timer_ticks);

void ap_start64(void);

/* ---- interrupt handlers of the local APIC ---- */

/*
 * The tick.  RCU counts it as a quiescent state when it interrupted task
 * or idle code (this is the only handler running: irq_nesting is 1) and
 * no read-side section; after the EOI, in that same case, it runs the
 * callbacks whose grace period has ended, with IRQs enabled (a nested
 * tick sees irq_nesting 2 and runs none).
 */
static void apic_timer_interrupt(struct pt_regs *regs)
{
	bool from_task_or_idle = this_cpu()->irq_nesting == 1;

	(void)regs;
	per_cpu(apic_timer_ticks, smp_processor_id())++;
	watchdog_timer_tick();
	rcu_sched_clock_irq(from_task_or_idle);
	viz_timer_tick();   /* before the EOI: no tick nests in a snapshot */
	apic_eoi();
	if (from_task_or_idle)
		rcu_irq_exit_invoke();
}

static void spurious_interrupt(struct pt_regs *regs)
{
	(void)regs;   /* no EOI for a spurious interrupt (SDM 11.9) */
}

static void apic_error_interrupt(struct pt_regs *regs)
{
	u32 esr;

	(void)regs;
	apic_write(APIC_ESR, 0);
	esr = apic_read(APIC_ESR);
	pr_warn("apic: error interrupt, ESR %#x\n", esr);
	apic_eoi();
}

/* The local APIC can send the self-IPI (smp_init(), below). */
static bool irq_work_ipi_ready;

/* irq_work.h's hook: the self-IPI on IRQ_WORK_VECTOR.  Before the APIC is
 * up nothing is sent; smp_init()'s own self-IPI runs what was queued. */
void arch_irq_work_raise(void)
{
	if (READ_ONCE(irq_work_ipi_ready))
		apic_send_self_ipi(IRQ_WORK_VECTOR);
}

static void irq_work_interrupt(struct pt_regs *regs)
{
	(void)regs;
	apic_eoi();
	WRITE_ONCE(irq_work_ipi_ready, true);
	irq_work_run();
}

void smp_call_function_interrupt(void);

static void call_function_interrupt(struct pt_regs *regs)
{
	(void)regs;
	apic_eoi();
	smp_call_function_interrupt();
}

/* The PIT heartbeat arrives as an NMI on the BSP (see watchdog.c). */
static int watchdog_nmi(unsigned int type, struct pt_regs *regs)
{
	(void)type;
	if (smp_processor_id() == 0)
		watchdog_nmi_heartbeat(regs);
	return NMI_DONE;
}

/* ---- application processors ---- */

void ap_start64(void)
{
	unsigned int cpu = READ_ONCE(ap_booting_cpu);
	u32 id;

	percpu_setup(cpu, READ_ONCE(ap_expected_apic_id));
	cpu_desc_load(cpu);
	apic_setup_this_cpu();
	id = apic_read_id();
	if (id != this_cpu()->apic_id) {
		__atomic_fetch_add(&apic_id_mismatches, 1, __ATOMIC_RELAXED);
		this_cpu()->apic_id = id;
	}
	numa_cpu_online(cpu, id);        /* its node, before it allocates */
	apic_timer_start_periodic();
	this_cpu()->online = true;
	__atomic_store_n(&ap_alive, (int)cpu, __ATOMIC_RELEASE);
	cpu_idle_loop();   /* halts; runs on_each_cpu_task() work */
}

static void fill_trampoline(unsigned int cpu)
{
	struct trampoline_data *td = phys_to_virt(
		TRAMPOLINE_PHYS + (unsigned long)(trampoline_data - trampoline_start));

	td->cr0 = (u32)read_cr0();
	td->cr3 = (u32)paging_kernel_cr3();
	td->cr4 = (u32)(read_cr4() & ~CR4_PCIDE);
	td->efer = (u32)(rdmsr(MSR_EFER) & (EFER_LME | EFER_NXE | EFER_SCE));
	td->stack = (u64)cpu_kernel_stack_top(cpu);
	td->entry = (u64)ap_start64;
}

static bool wait_for_ap(unsigned int cpu, u64 timeout_us)
{
	u64 end = rdtsc() + us_to_tsc(timeout_us);

	while (__atomic_load_n(&ap_alive, __ATOMIC_ACQUIRE) != (int)cpu) {
		if (rdtsc() > end)
			return false;
		cpu_relax();
	}
	return true;
}

/*
 * W^X for the trampoline page: writable through the direct map ("open") or
 * executable at its identity mapping ("sealed"), never both, and never
 * writable+executable through one entry.  The boot CPU writes it only while
 * it is open; an AP runs it only while it is sealed.  Each step takes the
 * old right away (and flushes it) before granting the new one.
 */
static void trampoline_flush_tlb(void *info)
{
	(void)info;
	invlpg(TRAMPOLINE_PHYS);
	invlpg((unsigned long)phys_to_virt(TRAMPOLINE_PHYS));
}

/* The paging calls flush this CPU; an AP already up may still cache the
 * old right (its own start's identity entry, a direct-map huge page). */
static void trampoline_flush_tlb_everywhere(void)
{
	on_each_cpu(trampoline_flush_tlb, NULL, true);
}

static void trampoline_seal(void)
{
	paging_set_direct_map_rights(TRAMPOLINE_PHYS, TRAMPOLINE_PHYS + PAGE_SIZE,
				     DIRECT_MAP_RO);
	trampoline_flush_tlb_everywhere();
	paging_map_identity_page(TRAMPOLINE_PHYS);
}

static void trampoline_open(void)
{
	paging_unmap_identity_page(TRAMPOLINE_PHYS);
	trampoline_flush_tlb_everywhere();
	paging_set_direct_map_rights(TRAMPOLINE_PHYS, TRAMPOLINE_PHYS + PAGE_SIZE,
				     DIRECT_MAP_RW);
}

/*
 * The tables each AP starts on, trampoline sealed.  Kept: the first audit,
 * or the first that found a breach; printed when kept (so a clean boot
 * says it once).
 */
static void audit_bringup_tables(void)
{
	struct wx_audit a;

	paging_audit_wx(paging_kernel_cr3(), &a);
	if (!smp_bringup_wx_audits ||
	    (wx_audit_clean(&smp_bringup_wx_audit) && !wx_audit_clean(&a))) {
		smp_bringup_wx_audit = a;
		wx_audit_print("AP bring-up", &a);
	}
	smp_bringup_wx_audits++;
}

static bool start_ap(unsigned int cpu, u32 apic_id, u64 timeout_us)
{
	bool alive;

	fill_trampoline(cpu);
	trampoline_seal();
	audit_bringup_tables();
	WRITE_ONCE(ap_booting_cpu, cpu);
	WRITE_ONCE(ap_expected_apic_id, apic_id);
	__atomic_store_n(&ap_alive, -1, __ATOMIC_RELEASE);

	apic_send_ipi(apic_id, APIC_DM_INIT | APIC_ICR_LEVEL_ASSERT);
	udelay(INIT_DELAY_US);
	apic_send_ipi(apic_id, APIC_DM_STARTUP | APIC_ICR_LEVEL_ASSERT | SIPI_VECTOR);
	udelay(SIPI_DELAY_US);
	if (!wait_for_ap(cpu, SIPI_DELAY_US)) {
		/* The second SIPI is ignored by a CPU the first one started. */
		apic_send_ipi(apic_id,
			      APIC_DM_STARTUP | APIC_ICR_LEVEL_ASSERT | SIPI_VECTOR);
		udelay(SIPI_DELAY_US);
	}
	alive = wait_for_ap(cpu, timeout_us);
	/* Park it for good: back to wait-for-SIPI. */
	if (!alive)
		apic_send_ipi(apic_id, APIC_DM_INIT | APIC_ICR_LEVEL_ASSERT);
	/* It runs on the kernel map now, or is held in INIT. */
	trampoline_open();
	return alive;
}

static void start_all_aps(void)
{
	const struct acpi_madt_info *m = &acpi_madt_info;
	u64 timeout_ms = param_number(PARAM_AP_TIMEOUT_MS);
	size_t len = (size_t)(trampoline_end - trampoline_start);
	u32 bsp_id = percpu_areas[0].apic_id;
	unsigned int i;

	if (!m->valid || m->nr_cpus < 2)
		return;
	/* Open (writable, not executable) until start_ap() seals it. */
	memcpy(phys_to_virt(TRAMPOLINE_PHYS), trampoline_start, len);
	for (i = 0; i < m->nr_cpus; i++) {
		u32 id = m->cpu_apic_ids[i];
		unsigned int cpu = nr_cpu_ids;

		if (id == bsp_id)
			continue;
		if (cpu >= nr_cpu_possible) {
			/* A guard only: smp_prepare_cpus() counted every CPU
			 * of the MADT (at most NR_CPUS: acpi.c, add_cpu()). */
			pr_warn("smp: CPU with APIC id %u not started: cpu%u would be past the %u possible CPUs\n",
				id, cpu, nr_cpu_possible);
			break;
		}
		if (start_ap(cpu, id, timeout_ms * 1000)) {
			nr_cpu_ids = cpu + 1;
			continue;
		}
		pr_err("smp: CPU with APIC id %u did not answer within %lu ms; going on without it\n",
		       id, (unsigned long)timeout_ms);
	}
	if (apic_id_mismatches)
		pr_warn("smp: %u CPU%s reported another APIC id than the MADT's\n",
			apic_id_mismatches, apic_id_mismatches == 1 ? "" : "s");
}

static void print_cpus(void)
{
	char line[160];
	size_t n;
	unsigned int cpu;

	n = (size_t)snprintf(line, sizeof(line), "smp: %u CPU%s online, APIC ids:",
			     nr_cpu_ids, nr_cpu_ids == 1 ? "" : "s");
	for_each_online_cpu(cpu) {
		if (n >= sizeof(line) - 16) {
			pr_info("%s\n", line);
			n = (size_t)snprintf(line, sizeof(line), "smp:  ");
		}
		n += (size_t)snprintf(line + n, sizeof(line) - n, " cpu%u=%u", cpu,
				      percpu_areas[cpu].apic_id);
	}
	pr_info("%s\n", line);
}

/* One NMI to every CPU, ourselves included: do they all arrive? */
static void nmi_boot_check(void)
{
	unsigned long before[NR_CPUS];
	unsigned int cpu, arrived = 0;
	u64 end;

	for_each_online_cpu(cpu)
		before[cpu] = nmi_count(cpu);
	nmi_send_allbutself();
	nmi_send_self();
	end = rdtsc() + us_to_tsc(NMI_SELFTEST_WAIT_US);
	do {
		arrived = 0;
		for_each_online_cpu(cpu)
			arrived += nmi_count(cpu) != before[cpu];
	} while (arrived < nr_cpu_ids && rdtsc() < end);
	pr_info("NMI: vector 2 on IST%u stacks; a boot NMI reached %u of %u CPU%s; hard-lockup watchdog %s\n",
		IST_NMI, arrived, nr_cpu_ids, nr_cpu_ids == 1 ? "" : "s",
		watchdog_enabled ? "on" : "off");
}

/*
 * How many CPUs may ever run: the boot CPU and each other CPU the MADT
 * lists (start_all_aps() numbers them 1, 2, ... in MADT order, skipping
 * the BSP's entry and reusing the number of one that does not answer).
 */
static unsigned int madt_possible_cpus(void)
{
	const struct acpi_madt_info *m = &acpi_madt_info;

	if (!m->valid)
		return 1;
	return m->nr_cpus + !m->boot_cpu_listed;
}

void smp_prepare_cpus(void)
{
	apic_choose_mode();
	apic_init_boot();
	nmi_init();
	register_nmi_handler(NMI_LOCAL, watchdog_nmi, "watchdog");
	set_irq_handler(LOCAL_TIMER_VECTOR, apic_timer_interrupt);
	set_irq_handler(SPURIOUS_APIC_VECTOR, spurious_interrupt);
	set_irq_handler(ERROR_APIC_VECTOR, apic_error_interrupt);
	set_irq_handler(IRQ_WORK_VECTOR, irq_work_interrupt);
	set_irq_handler(CALL_FUNCTION_VECTOR, call_function_interrupt);
	set_irq_handler(CALL_FUNCTION_SINGLE_VECTOR, call_function_interrupt);

	apic_setup_this_cpu();
	percpu_areas[0].apic_id = apic_read_id();
	/* After the BSP's APIC id is known: the parse keeps the BSP. */
	acpi_init(x2apic_mode ? X2APIC_MAX_APIC_ID : XAPIC_MAX_APIC_ID,
		  percpu_areas[0].apic_id);
	if (acpi_madt_info.valid)
		apic_check_madt_address(acpi_madt_info.lapic_phys);
	/* Once, before anything sizes per-CPU data by it (the slab
	 * allocator's caches: kmem_cache_init()). */
	WARN_ON(slab_is_available());
	nr_cpu_possible = min(madt_possible_cpus(), (unsigned int)NR_CPUS);
}

void smp_init(void)
{
	apic_timer_calibrate();
	apic_timer_start_periodic();
	pr_info("apic: %s mode, BSP APIC id %u, timer %lu.%03lu MHz (bus/16), tick %u Hz\n",
		x2apic_mode ? "x2APIC" : "xAPIC", percpu_areas[0].apic_id,
		(unsigned long)(apic_timer_ticks_per_ms / 1000),
		(unsigned long)(apic_timer_ticks_per_ms % 1000), APIC_TIMER_HZ);
	local_irq_enable();

	start_all_aps();
	print_cpus();
	watchdog_init();
	nmi_boot_check();
	/* Run any irq_work queued before the APIC could raise the IPI. */
	apic_send_self_ipi(IRQ_WORK_VECTOR);
}
