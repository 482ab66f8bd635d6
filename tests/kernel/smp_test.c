/*
 * smp_test.c - are all the CPUs there, and do cross-CPU calls land right?
 *
 * Suites:
 *   smp_boot  - every MADT CPU online, APIC ids as the MADT says, per-CPU
 *               areas reached through GS on each CPU, timers ticking, the
 *               APIC mode the CPU and command line ask for;
 *   smp_call  - smp_call_function_single/many and on_each_cpu run on the
 *               CPUs asked for, exactly once, in IRQ context;
 *   irq_work  - irq_work runs on the queueing CPU, in IRQ context, once;
 *               a failed KUNIT_ASSERT in it returns instead of leaving;
 *   acpi_madt - the MADT parser on fabricated tables (duplicates, disabled
 *               entries, x2APIC entries, ids xAPIC mode cannot address, a
 *               bad checksum).
 * Every check works for any CPU count, SMP=1 included.
 */
#include <cpu_work.h>
#include <cpumask.h>
#include <irq_work.h>
#include <irqflags.h>
#include <kunit.h>
#include <smp.h>
#include <string.h>
#include "../../arch/x86_64/acpi.h"
#include "../../arch/x86_64/apic.h"
#include "../../arch/x86_64/cpu.h"
#include "../../kernel/params.h"
#include "../../kernel/timekeeping.h"
#include "test_wait.h"

/* ---- smp_boot ---- */

static void every_madt_cpu_is_online(struct kunit *test)
{
	unsigned int cpu;

	if (!acpi_madt_info.valid)
		kunit_skip(test, "no MADT");
	KUNIT_EXPECT_EQ(test, nr_cpu_ids, acpi_madt_info.nr_cpus);
	/* Read before the allocators sized anything by it: the MADT's
	 * count, plus the boot CPU where the MADT leaves it out, at most
	 * NR_CPUS (every CPU answered; one that did not would stay
	 * possible). */
	KUNIT_EXPECT_EQ(test, nr_cpu_possible,
			min(acpi_madt_info.nr_cpus +
			    !acpi_madt_info.boot_cpu_listed,
			    (unsigned int)NR_CPUS));
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_TRUE(test, percpu_areas[cpu].online);
}

static void apic_ids_are_the_madt_ones_and_distinct(struct kunit *test)
{
	unsigned int cpu, other, i;

	for_each_online_cpu(cpu) {
		u32 id = percpu_areas[cpu].apic_id;
		bool in_madt = !acpi_madt_info.valid;

		for (i = 0; i < acpi_madt_info.nr_cpus; i++)
			in_madt |= acpi_madt_info.cpu_apic_ids[i] == id;
		KUNIT_EXPECT_TRUE(test, in_madt);
		for (other = 0; other < cpu; other++)
			KUNIT_EXPECT_NE(test, percpu_areas[other].apic_id, id);
	}
}

struct whoami {
	unsigned int cpu;
	u32 apic_id;
	struct percpu *self;
	bool in_irq;
};

static struct whoami whoami[NR_CPUS];

static void record_whoami(void *info)
{
	struct whoami *w = &((struct whoami *)info)[smp_processor_id()];

	w->cpu = smp_processor_id();
	w->apic_id = apic_read_id();
	w->self = this_cpu();
	w->in_irq = in_irq();
}

static void each_cpu_sees_its_own_percpu_area(struct kunit *test)
{
	unsigned int cpu;

	memset(whoami, 0xff, sizeof(whoami));
	on_each_cpu(record_whoami, whoami, true);
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, whoami[cpu].cpu, cpu);
		KUNIT_EXPECT_EQ(test, whoami[cpu].apic_id,
				percpu_areas[cpu].apic_id);
		KUNIT_EXPECT_PTR_EQ(test, whoami[cpu].self, &percpu_areas[cpu]);
	}
}

/* Each CPU's tick count moves on: waited for as an event (test_wait.h),
 * not for a fixed five ticks' worth, which a loaded host outlasted. */
static void timer_ticks_on_every_cpu(struct kunit *test)
{
	unsigned long before[NR_CPUS];
	unsigned int cpu, ticking;
	u64 end = test_deadline();

	for_each_online_cpu(cpu)
		before[cpu] = READ_ONCE(per_cpu(apic_timer_ticks, cpu));
	do {
		ticking = 0;
		for_each_online_cpu(cpu)
			ticking += READ_ONCE(per_cpu(apic_timer_ticks, cpu)) >
				   before[cpu];
	} while (ticking < nr_cpu_ids && !test_deadline_passed(end));
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_GT(test, READ_ONCE(per_cpu(apic_timer_ticks, cpu)),
				before[cpu]);
	KUNIT_EXPECT_GT(test, apic_timer_ticks_per_ms, 0);
}

static void apic_mode_follows_cpuid_and_cmdline(struct kunit *test)
{
	u32 a, b, c, d;

	cpuid(CPUID_FEATURES, 0, &a, &b, &c, &d);
	KUNIT_EXPECT_EQ(test, x2apic_mode,
			(c & CPUID_ECX_X2APIC) && !param_flag(PARAM_NOX2APIC));
	KUNIT_EXPECT_EQ(test, !!(rdmsr(MSR_IA32_APIC_BASE) & APIC_BASE_EXTD),
			x2apic_mode);
	kunit_info(test, "APIC mode: %s", x2apic_mode ? "x2APIC" : "xAPIC");
}

static struct kunit_case smp_boot_cases[] = {
	KUNIT_CASE(every_madt_cpu_is_online),
	KUNIT_CASE(apic_ids_are_the_madt_ones_and_distinct),
	KUNIT_CASE(each_cpu_sees_its_own_percpu_area),
	KUNIT_CASE(timer_ticks_on_every_cpu),
	KUNIT_CASE(apic_mode_follows_cpuid_and_cmdline),
	{}
};

static struct kunit_suite smp_boot_suite = {
	.name = "smp_boot",
	.test_cases = smp_boot_cases,
};
kunit_test_suite(smp_boot_suite);

/* ---- smp_call ---- */

static unsigned int hits[NR_CPUS];
static bool hit_irqs_off[NR_CPUS];

static void count_hit(void *info)
{
	unsigned int cpu = smp_processor_id();

	(void)info;
	__atomic_fetch_add(&hits[cpu], 1, __ATOMIC_RELAXED);
	hit_irqs_off[cpu] = irqs_disabled();
}

static void reset_hits(void)
{
	memset(hits, 0, sizeof(hits));
	memset(hit_irqs_off, 0, sizeof(hit_irqs_off));
}

static void call_single_runs_on_that_cpu(struct kunit *test)
{
	unsigned int target, cpu;

	for_each_online_cpu(target) {
		reset_hits();
		KUNIT_ASSERT_EQ(test, smp_call_function_single(target, count_hit,
							       NULL, true), 0);
		for_each_online_cpu(cpu)
			KUNIT_EXPECT_EQ(test, hits[cpu], cpu == target ? 1 : 0);
		KUNIT_EXPECT_TRUE(test, hit_irqs_off[target]);
	}
	KUNIT_EXPECT_NE(test, smp_call_function_single(nr_cpu_ids, count_hit,
						       NULL, true), 0);
}

static void call_single_without_wait_completes(struct kunit *test)
{
	unsigned int target = nr_cpu_ids - 1;
	u64 end = test_deadline();

	reset_hits();
	KUNIT_ASSERT_EQ(test, smp_call_function_single(target, count_hit, NULL,
						       false), 0);
	while (!READ_ONCE(hits[target]) && !test_deadline_passed(end))
		;
	KUNIT_EXPECT_EQ(test, READ_ONCE(hits[target]), 1);
}

static void call_many_runs_on_the_mask_but_not_here(struct kunit *test)
{
	struct cpumask mask;
	unsigned int cpu, me = smp_processor_id();

	reset_hits();
	cpumask_clear(&mask);
	for_each_online_cpu(cpu)
		if (cpu % 2 == 1 || cpu == me)
			cpumask_set_cpu(cpu, &mask);
	smp_call_function_many(&mask, count_hit, NULL, true);
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_EQ(test, hits[cpu],
				(cpu % 2 == 1 && cpu != me) ? 1 : 0);
}

static void on_each_cpu_runs_everywhere_once(struct kunit *test)
{
	unsigned int cpu, round;

	reset_hits();
	for (round = 0; round < 20; round++)
		on_each_cpu(count_hit, NULL, true);
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, hits[cpu], 20);
		KUNIT_EXPECT_TRUE(test, hit_irqs_off[cpu]);
	}
}

/*
 * A KUNIT_ASSERT that fails inside on_each_cpu_task() on another CPU than
 * the runner's must record the failure and return: its longjmp() would
 * land on the runner CPU's stack.  Each other CPU asserts on its own
 * private struct kunit, whose landing place it set itself (so that, were
 * the jump taken, it lands safely on that CPU's own stack and shows), and
 * whose runner is this CPU.
 */
static struct kunit remote_assert_probes[NR_CPUS];
static bool remote_assert_went_on[NR_CPUS];
static bool remote_assert_landed[NR_CPUS];
static unsigned int remote_assert_runner;
static volatile bool remote_assert_false;

static void remote_assert(void *info)
{
	unsigned int cpu = smp_processor_id();
	struct kunit *probe = &remote_assert_probes[cpu];

	(void)info;
	if (cpu == remote_assert_runner)
		return;
	if (setjmp(probe->abort_point) != 0) {
		WRITE_ONCE(remote_assert_landed[cpu], true);
		return;
	}
	KUNIT_ASSERT_TRUE(probe, remote_assert_false);   /* fails */
	WRITE_ONCE(remote_assert_went_on[cpu], true);
}

static void kunit_assert_on_another_cpu_does_not_jump(struct kunit *test)
{
	unsigned int cpu, me = smp_processor_id();

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs two CPUs");
	KUNIT_EXPECT_EQ(test, test->runner_cpu, me);
	remote_assert_runner = me;
	memset(remote_assert_probes, 0, sizeof(remote_assert_probes));
	memset(remote_assert_went_on, 0, sizeof(remote_assert_went_on));
	memset(remote_assert_landed, 0, sizeof(remote_assert_landed));
	for_each_online_cpu(cpu) {
		remote_assert_probes[cpu].name = "remote_assert_probe";
		remote_assert_probes[cpu].runner_cpu = me;
	}
	KUNIT_EXPECT_EQ(test, on_each_cpu_task(remote_assert, NULL), nr_cpu_ids);
	for_each_online_cpu(cpu) {
		if (cpu == me)
			continue;
		KUNIT_EXPECT_FALSE(test, remote_assert_landed[cpu]);
		KUNIT_EXPECT_TRUE(test, remote_assert_went_on[cpu]);
		KUNIT_EXPECT_EQ(test, remote_assert_probes[cpu].status,
				KUNIT_FAILURE);
	}
}

static struct kunit_case smp_call_cases[] = {
	KUNIT_CASE(call_single_runs_on_that_cpu),
	KUNIT_CASE(call_single_without_wait_completes),
	KUNIT_CASE(call_many_runs_on_the_mask_but_not_here),
	KUNIT_CASE(on_each_cpu_runs_everywhere_once),
	KUNIT_CASE(kunit_assert_on_another_cpu_does_not_jump),
	{}
};

static struct kunit_suite smp_call_suite = {
	.name = "smp_call",
	.test_cases = smp_call_cases,
};
kunit_test_suite(smp_call_suite);

/* ---- irq_work ---- */

struct work_probe {
	struct irq_work work;
	unsigned int runs;
	unsigned int cpu;
	bool in_irq;
};

static void probe_func(struct irq_work *w)
{
	struct work_probe *p = container_of(w, struct work_probe, work);

	p->cpu = smp_processor_id();
	p->in_irq = in_irq();
	__atomic_fetch_add(&p->runs, 1, __ATOMIC_RELEASE);
}

static struct work_probe probes[NR_CPUS];

static void queue_probe(void *info)
{
	(void)info;
	irq_work_queue(&probes[smp_processor_id()].work);
}

static bool wait_runs(struct work_probe *p, unsigned int n)
{
	u64 end = test_deadline();

	while (__atomic_load_n(&p->runs, __ATOMIC_ACQUIRE) < n)
		if (test_deadline_passed(end))
			return false;
	return true;
}

static void irq_work_runs_on_the_queueing_cpu(struct kunit *test)
{
	unsigned int cpu;

	for_each_online_cpu(cpu) {
		memset(&probes[cpu], 0, sizeof(probes[cpu]));
		init_irq_work(&probes[cpu].work, probe_func);
		probes[cpu].cpu = ~0u;
	}
	on_each_cpu(queue_probe, NULL, true);
	for_each_online_cpu(cpu) {
		/* assert: irq_work_sync() below would wait forever */
		KUNIT_ASSERT_TRUE(test, wait_runs(&probes[cpu], 1));
		KUNIT_EXPECT_EQ(test, probes[cpu].cpu, cpu);
		KUNIT_EXPECT_TRUE(test, probes[cpu].in_irq);
		irq_work_sync(&probes[cpu].work);
		KUNIT_EXPECT_EQ(test, probes[cpu].runs, 1);
	}
}

static void irq_work_waits_for_irqs_and_runs_once(struct kunit *test)
{
	struct work_probe *p = &probes[smp_processor_id()];
	unsigned long flags;

	memset(p, 0, sizeof(*p));
	init_irq_work(&p->work, probe_func);
	flags = local_irq_save();
	KUNIT_EXPECT_TRUE(test, irq_work_queue(&p->work));
	KUNIT_EXPECT_FALSE(test, irq_work_queue(&p->work)); /* already pending */
	udelay(1000);   /* a window for what must NOT happen (test_wait.h) */
	KUNIT_EXPECT_EQ(test, READ_ONCE(p->runs), 0);  /* IRQs are off */
	KUNIT_EXPECT_TRUE(test, irq_work_is_pending(&p->work));
	local_irq_restore(flags);
	KUNIT_ASSERT_TRUE(test, wait_runs(p, 1));
	irq_work_sync(&p->work);
	KUNIT_EXPECT_EQ(test, p->runs, 1);
	KUNIT_EXPECT_FALSE(test, irq_work_is_pending(&p->work));
}

/*
 * A KUNIT_ASSERT that fails in an interrupt handler (here an irq_work,
 * which runs in the IRQ_WORK_VECTOR handler) must record the failure and
 * return, as in an NMI (nmi.kunit_assert_in_an_nmi_does_not_leave_it):
 * a longjmp() out of the handler would skip its IRET and leave in_irq()
 * true and IRQs off.  It asserts on a private struct kunit, so this case
 * can pass and look at what happened.
 */
static struct kunit irq_assert_probe;
static struct irq_work irq_assert_work;
static bool irq_assert_went_on;

static void irq_assert_func(struct irq_work *w)
{
	(void)w;
	KUNIT_ASSERT_TRUE(&irq_assert_probe, !in_irq());   /* fails */
	__atomic_store_n(&irq_assert_went_on, true, __ATOMIC_RELEASE);
}

static void kunit_assert_in_an_irq_does_not_leave_it(struct kunit *test)
{
	u64 end = test_deadline();
	volatile bool landed = false;

	memset(&irq_assert_probe, 0, sizeof(irq_assert_probe));
	irq_assert_probe.name = "irq_assert_probe";
	irq_assert_went_on = false;
	init_irq_work(&irq_assert_work, irq_assert_func);
	if (setjmp(irq_assert_probe.abort_point) == 0) {
		irq_work_queue(&irq_assert_work);
		while (!__atomic_load_n(&irq_assert_went_on, __ATOMIC_ACQUIRE) &&
		       !test_deadline_passed(end))
			;
	} else {
		landed = true;   /* out of the handler, no IRET */
	}
	KUNIT_EXPECT_FALSE(test, landed);
	KUNIT_EXPECT_TRUE(test, in_task());
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
	KUNIT_EXPECT_TRUE(test, irq_assert_went_on);
	KUNIT_EXPECT_EQ(test, irq_assert_probe.status, KUNIT_FAILURE);
	if (!landed)
		irq_work_sync(&irq_assert_work);
}

static struct kunit_case irq_work_cases[] = {
	KUNIT_CASE(irq_work_runs_on_the_queueing_cpu),
	KUNIT_CASE(irq_work_waits_for_irqs_and_runs_once),
	KUNIT_CASE(kunit_assert_in_an_irq_does_not_leave_it),
	{}
};

static struct kunit_suite irq_work_suite = {
	.name = "irq_work",
	.test_cases = irq_work_cases,
};
kunit_test_suite(irq_work_suite);

/* ---- acpi_madt: the parser on tables we make up ---- */

/* Room for NR_CPUS + MADT_TEST_EXTRA_CPUS local APIC entries (8 bytes
 * each) and then some. */
#define MADT_TEST_EXTRA_CPUS  8
#define MADT_LAPIC_ENTRY_LEN  8
#define MADT_TEST_ENTRY_BYTES ((NR_CPUS + MADT_TEST_EXTRA_CPUS) * MADT_LAPIC_ENTRY_LEN + 64)
/* An APIC id no other entry of the crafted tables uses. */
#define MADT_TEST_BOOT_APIC_ID 200

struct fake_madt {
	u8 header[36];
	u32 lapic_address;
	u32 flags;
	u8 entries[MADT_TEST_ENTRY_BYTES];
} __packed;

static size_t put_lapic(u8 *p, u8 uid, u8 apic_id, u32 flags)
{
	p[0] = 0;     /* processor local APIC */
	p[1] = 8;
	p[2] = uid;
	p[3] = apic_id;
	memcpy(p + 4, &flags, 4);
	return 8;
}

static size_t put_x2apic(u8 *p, u32 x2apic_id, u32 flags)
{
	memset(p, 0, 16);
	p[0] = 9;     /* processor local x2APIC */
	p[1] = 16;
	memcpy(p + 4, &x2apic_id, 4);
	memcpy(p + 8, &flags, 4);
	return 16;
}

static size_t put_override(u8 *p, u8 irq, u32 gsi, u16 flags)
{
	p[0] = 2;
	p[1] = 10;
	p[2] = 0;
	p[3] = irq;
	memcpy(p + 4, &gsi, 4);
	memcpy(p + 8, &flags, 2);
	return 10;
}

static void seal(struct fake_madt *m, size_t entries_len)
{
	u32 len = (u32)(offsetof(struct fake_madt, entries) + entries_len);

	memcpy(m->header, "APIC", 4);
	memcpy(m->header + 4, &len, 4);
	m->header[9] = 0;
	m->header[9] = (u8)(0x100 - acpi_checksum(m, len));
}

static struct acpi_madt_info parsed;

static void madt_skips_duplicates_and_disabled_cpus(struct kunit *test)
{
	static struct fake_madt m;
	size_t n = 0;

	memset(&m, 0, sizeof(m));
	m.lapic_address = 0xfee00000;
	n += put_lapic(m.entries + n, 0, 0, 1);
	n += put_lapic(m.entries + n, 1, 4, 1);
	n += put_lapic(m.entries + n, 2, 4, 1);      /* repeated */
	n += put_lapic(m.entries + n, 3, 9, 0);      /* disabled */
	n += put_x2apic(m.entries + n, 300, 1);      /* beyond 8 bits */
	n += put_override(m.entries + n, 0, 2, 0);
	seal(&m, n);
	KUNIT_ASSERT_TRUE(test, acpi_parse_madt(&m, X2APIC_MAX_APIC_ID, 0, &parsed));
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus, 3);
	KUNIT_EXPECT_EQ(test, parsed.cpu_apic_ids[0], 0);
	KUNIT_EXPECT_EQ(test, parsed.cpu_apic_ids[1], 4);
	KUNIT_EXPECT_EQ(test, parsed.cpu_apic_ids[2], 300);
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus_skipped, 2);
	KUNIT_EXPECT_EQ(test, parsed.nr_overrides, 1);
	KUNIT_EXPECT_EQ(test, parsed.overrides[0].gsi, 2);
	KUNIT_EXPECT_EQ(test, parsed.lapic_phys, 0xfee00000);
}

/* xAPIC mode addresses 8-bit ids, 0xff being the broadcast: a CPU beyond
 * that (an x2APIC entry, or any id above 0xfe) must not be started. */
static void madt_in_xapic_mode_drops_ids_above_0xfe(struct kunit *test)
{
	static struct fake_madt m;
	size_t n = 0;

	memset(&m, 0, sizeof(m));
	n += put_lapic(m.entries + n, 0, 0, 1);
	n += put_x2apic(m.entries + n, 0xff, 1);     /* the broadcast */
	n += put_x2apic(m.entries + n, 0x100, 1);    /* would be id 0 */
	n += put_x2apic(m.entries + n, 300, 1);
	n += put_lapic(m.entries + n, 1, 0xff, 1);   /* 8 bits, still 0xff */
	n += put_x2apic(m.entries + n, 0xfe, 1);     /* reachable: kept */
	seal(&m, n);
	KUNIT_ASSERT_TRUE(test, acpi_parse_madt(&m, XAPIC_MAX_APIC_ID, 0, &parsed));
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus, 2);
	KUNIT_EXPECT_EQ(test, parsed.cpu_apic_ids[0], 0);
	KUNIT_EXPECT_EQ(test, parsed.cpu_apic_ids[1], 0xfe);
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus_skipped, 4);
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus_unreachable, 4);
	/* The same table in x2APIC mode keeps every CPU (0xff only once: the
	 * second is a repeated id). */
	KUNIT_ASSERT_TRUE(test, acpi_parse_madt(&m, X2APIC_MAX_APIC_ID, 0, &parsed));
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus, 5);
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus_skipped, 1);
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus_unreachable, 0);
}

static void madt_with_a_bad_checksum_is_refused(struct kunit *test)
{
	static struct fake_madt m;
	size_t n = 0;

	memset(&m, 0, sizeof(m));
	n += put_lapic(m.entries + n, 0, 0, 1);
	seal(&m, n);
	KUNIT_ASSERT_TRUE(test, acpi_parse_madt(&m, X2APIC_MAX_APIC_ID, 0, &parsed));
	m.entries[3] ^= 1;   /* one bit flipped after sealing */
	KUNIT_EXPECT_FALSE(test, acpi_parse_madt(&m, X2APIC_MAX_APIC_ID, 0, &parsed));
	KUNIT_EXPECT_FALSE(test, parsed.valid);
}

static void madt_with_a_truncated_entry_stops_cleanly(struct kunit *test)
{
	static struct fake_madt m;
	size_t n = 0;

	memset(&m, 0, sizeof(m));
	n += put_lapic(m.entries + n, 0, 7, 1);
	m.entries[n] = 0;
	m.entries[n + 1] = 0;   /* a zero-length entry would loop forever */
	n += 2;
	seal(&m, n);
	KUNIT_ASSERT_TRUE(test, acpi_parse_madt(&m, X2APIC_MAX_APIC_ID, 0, &parsed));
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus, 1);
	KUNIT_EXPECT_EQ(test, parsed.cpu_apic_ids[0], 7);
}

/*
 * More enabled CPUs than NR_CPUS, the boot CPU listed last: the boot CPU
 * must be kept (start_all_aps() numbers the others after it, and would
 * otherwise number NR_CPUS of them, one past cpu_stacks[] and
 * percpu_areas[]), the first NR_CPUS - 1 others kept in MADT order, and
 * the rest counted as beyond the limit.
 */
static void madt_with_more_cpus_than_nr_cpus_keeps_the_boot_cpu(struct kunit *test)
{
	static struct fake_madt m;
	unsigned int i, others = NR_CPUS + MADT_TEST_EXTRA_CPUS - 1;
	bool boot_kept = false;
	size_t n = 0;

	memset(&m, 0, sizeof(m));
	for (i = 0; i < others; i++)
		n += put_lapic(m.entries + n, (u8)i, (u8)i, 1);
	n += put_lapic(m.entries + n, (u8)others, MADT_TEST_BOOT_APIC_ID, 1);
	seal(&m, n);
	KUNIT_ASSERT_TRUE(test, acpi_parse_madt(&m, XAPIC_MAX_APIC_ID,
						MADT_TEST_BOOT_APIC_ID, &parsed));
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus, NR_CPUS);
	for (i = 0; i < parsed.nr_cpus && i < NR_CPUS; i++)
		boot_kept |= parsed.cpu_apic_ids[i] == MADT_TEST_BOOT_APIC_ID;
	KUNIT_EXPECT_TRUE(test, boot_kept);
	for (i = 0; i + 1 < NR_CPUS; i++)
		KUNIT_EXPECT_EQ(test, parsed.cpu_apic_ids[i], i);
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus_over_limit, MADT_TEST_EXTRA_CPUS);
	KUNIT_EXPECT_EQ(test, parsed.nr_cpus_skipped, MADT_TEST_EXTRA_CPUS);
}

static void the_real_madt_was_found(struct kunit *test)
{
	if (!acpi_madt_info.valid)
		kunit_skip(test, "no ACPI tables on this machine");
	KUNIT_EXPECT_GT(test, acpi_madt_info.nr_cpus, 0);
	KUNIT_EXPECT_GT(test, acpi_madt_info.nr_ioapics, 0);
	KUNIT_EXPECT_NOT_NULL(test, acpi_madt_info.source);
}

static struct kunit_case acpi_madt_cases[] = {
	KUNIT_CASE(madt_skips_duplicates_and_disabled_cpus),
	KUNIT_CASE(madt_in_xapic_mode_drops_ids_above_0xfe),
	KUNIT_CASE(madt_with_a_bad_checksum_is_refused),
	KUNIT_CASE(madt_with_a_truncated_entry_stops_cleanly),
	KUNIT_CASE(madt_with_more_cpus_than_nr_cpus_keeps_the_boot_cpu),
	KUNIT_CASE(the_real_madt_was_found),
	{}
};

static struct kunit_suite acpi_madt_suite = {
	.name = "acpi_madt",
	.test_cases = acpi_madt_cases,
};
kunit_test_suite(acpi_madt_suite);
