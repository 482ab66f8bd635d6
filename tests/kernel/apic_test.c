/*
 * apic_test.c - the xAPIC IPI send against a fake APIC.
 *
 * Suite apic_icr: xapic_send_ipi_ops() (arch/x86_64/apic.c) runs against
 * fake ICR registers and a fake clock, so a test can make the "send
 * pending" bit (delivery status, ICR bit 12) last as long as it likes, or
 * never clear, which no real APIC does on demand.  The fake logs every
 * register write with whether the ICR was busy at that moment.
 *
 *   - An NMI's send (ICR_HIGH_RESTORE) must put the interrupted code's
 *     ICR_HIGH back only after its own IPI left: writing ICR_HIGH while the
 *     IPI is pending could retarget it.
 *   - Normal context (ICR_HIGH_LEAVE) writes ICR_HIGH and ICR_LOW, no more.
 *   - A send-pending bit that never clears ends each wait after the timeout,
 *     with a WARNING and a count in apic_icr_timeouts; the restore is still
 *     written (the interrupted code would otherwise send to our target).
 *   - An NMI's self-IPI (xapic_send_self_ipi_ops()) returns only once it
 *     left: the interrupted code may have waited for an idle ICR already.
 *
 * The fake clock advances a fixed step per read, so how many polls make a
 * timeout depends on nothing but the step: no case depends on the host's
 * speed.  The cases run on one CPU and touch no real APIC.
 *
 * Suite apic_icr_real: the same rule through the real path, on a real
 * xAPIC.  cpu0 leaves a sentinel in its ICR_HIGH with IRQs off, as code
 * half way through a send would; cpu1 sends cpu0 an NMI whose handler
 * sends an NMI back with nmi_send(); when cpu0 goes on, its ICR_HIGH
 * must hold the sentinel again (apic_send_ipi() chose ICR_HIGH_RESTORE
 * because it ran in an NMI).  Every wait is for an event, with a
 * generous deadline.
 */
#include <irqflags.h>
#include <kernel.h>
#include <kunit.h>
#include <nmi.h>
#include <smp.h>
#include <string.h>
#include <watchdog.h>
#include "../../arch/x86_64/apic.h"
#include "../../kernel/timekeeping.h"

#define FAKE_MAX_WRITES   8
#define FAKE_PENDING_POLLS 3          /* reads that still see "pending" */
#define FAKE_CLOCK_STEP_US 1000       /* fake time per clock read */
#define INTERRUPTED_DEST  5u          /* what the interrupted code wrote */
#define OUR_DEST          9u

struct fake_write {
	u32 reg, value;
	bool busy;                    /* send pending when it was written */
};

static struct fake_icr {
	u32 low, high;
	unsigned int pending_polls;   /* left before the pending bit clears */
	unsigned int polls_after_send; /* FAKE_PENDING_POLLS, or UINT_MAX */
	bool stuck;                   /* pending never clears */
	u64 now;
	unsigned int nr_writes;
	struct fake_write writes[FAKE_MAX_WRITES];
} fake;

static bool fake_busy(void)
{
	return fake.stuck || fake.pending_polls;
}

static u32 fake_read(u32 reg)
{
	if (reg == APIC_ICR_HIGH)
		return fake.high;
	if (reg != APIC_ICR_LOW)
		return 0;
	if (fake.stuck)
		return fake.low | APIC_ICR_BUSY;
	if (fake.pending_polls) {
		fake.pending_polls--;
		return fake.low | APIC_ICR_BUSY;
	}
	return fake.low & ~APIC_ICR_BUSY;
}

static void fake_write(u32 reg, u32 v)
{
	if (fake.nr_writes < FAKE_MAX_WRITES) {
		struct fake_write *w = &fake.writes[fake.nr_writes];

		w->reg = reg;
		w->value = v;
		w->busy = fake_busy();
	}
	fake.nr_writes++;
	if (reg == APIC_ICR_HIGH)
		fake.high = v;
	if (reg == APIC_ICR_LOW) {
		fake.low = v;
		fake.pending_polls = fake.polls_after_send;
	}
}

static u64 fake_clock(void)
{
	fake.now += us_to_tsc(FAKE_CLOCK_STEP_US);
	return fake.now;
}

static const struct xapic_icr_ops fake_ops = {
	.read = fake_read,
	.write = fake_write,
	.clock = fake_clock,
};

static int fake_init(struct kunit *test)
{
	(void)test;
	memset(&fake, 0, sizeof(fake));
	fake.high = INTERRUPTED_DEST << XAPIC_DEST_SHIFT;
	fake.polls_after_send = FAKE_PENDING_POLLS;
	return 0;
}

static void expect_write(struct kunit *test, unsigned int i, u32 reg, u32 v)
{
	KUNIT_ASSERT_LT(test, i, fake.nr_writes);
	KUNIT_EXPECT_EQ(test, fake.writes[i].reg, reg);
	KUNIT_EXPECT_EQ(test, fake.writes[i].value, v);
}

static void nmi_send_restores_icr_high_only_after_its_ipi_left(struct kunit *test)
{
	unsigned long timeouts = READ_ONCE(apic_icr_timeouts);

	xapic_send_ipi_ops(&fake_ops, OUR_DEST, APIC_DM_NMI, ICR_HIGH_RESTORE);
	KUNIT_ASSERT_EQ(test, fake.nr_writes, 3);
	expect_write(test, 0, APIC_ICR_HIGH, OUR_DEST << XAPIC_DEST_SHIFT);
	expect_write(test, 1, APIC_ICR_LOW, APIC_DM_NMI);
	expect_write(test, 2, APIC_ICR_HIGH, INTERRUPTED_DEST << XAPIC_DEST_SHIFT);
	KUNIT_EXPECT_FALSE(test, fake.writes[0].busy);
	/* The point: not while our own IPI is still pending. */
	KUNIT_EXPECT_FALSE(test, fake.writes[2].busy);
	KUNIT_EXPECT_EQ(test, READ_ONCE(apic_icr_timeouts), timeouts);
}

static void normal_send_writes_high_and_low_only(struct kunit *test)
{
	xapic_send_ipi_ops(&fake_ops, OUR_DEST, APIC_DM_FIXED | 0x40,
			   ICR_HIGH_LEAVE);
	KUNIT_ASSERT_EQ(test, fake.nr_writes, 2);
	expect_write(test, 0, APIC_ICR_HIGH, OUR_DEST << XAPIC_DEST_SHIFT);
	expect_write(test, 1, APIC_ICR_LOW, APIC_DM_FIXED | 0x40);
	/* It does not wait for its IPI to leave: the next sender does. */
	KUNIT_EXPECT_EQ(test, fake.pending_polls, FAKE_PENDING_POLLS);
}

static void send_waits_for_the_previous_ipi(struct kunit *test)
{
	fake.pending_polls = FAKE_PENDING_POLLS;   /* someone's IPI pending */
	xapic_send_ipi_ops(&fake_ops, OUR_DEST, APIC_DM_NMI, ICR_HIGH_LEAVE);
	KUNIT_ASSERT_EQ(test, fake.nr_writes, 2);
	KUNIT_EXPECT_FALSE(test, fake.writes[0].busy);
}

static void a_stuck_icr_is_reported_and_the_restore_still_written(struct kunit *test)
{
	unsigned long timeouts = READ_ONCE(apic_icr_timeouts);

	fake.stuck = true;
	kunit_expect_report(test, "ICR still busy");
	xapic_send_ipi_ops(&fake_ops, OUR_DEST, APIC_DM_NMI, ICR_HIGH_RESTORE);
	kunit_expect_report_done(test);
	/* One timeout before the send, one before the restore. */
	KUNIT_EXPECT_EQ(test, READ_ONCE(apic_icr_timeouts), timeouts + 2);
	KUNIT_ASSERT_EQ(test, fake.nr_writes, 3);
	expect_write(test, 2, APIC_ICR_HIGH, INTERRUPTED_DEST << XAPIC_DEST_SHIFT);
	KUNIT_EXPECT_EQ(test, fake.high, INTERRUPTED_DEST << XAPIC_DEST_SHIFT);
}

static void the_timeout_takes_the_fake_clocks_10_ms(struct kunit *test)
{
	fake.stuck = true;
	kunit_expect_report(test, "ICR still busy");
	KUNIT_EXPECT_FALSE(test, xapic_wait_icr_idle_ops(&fake_ops));
	kunit_expect_report_done(test);
	/* Not before 10 ms of (fake) time, and not much after. */
	KUNIT_EXPECT_GE(test, fake.now, us_to_tsc(10000));
	KUNIT_EXPECT_LE(test, fake.now, us_to_tsc(10000 + 2 * FAKE_CLOCK_STEP_US));
}

/*
 * An NMI's self-IPI (irq_work_queue() from an NMI, as the allocator does)
 * lands between the interrupted code's wait for an idle ICR and its
 * ICR_LOW write.  So it must leave the ICR as it found it, idle: an
 * interrupted sender that already waited writes ICR_LOW at once, and a
 * write while "send pending" is set may lose an IPI.
 */
#define SELF_IPI_TEST_VECTOR 0x40

static void nmi_self_ipi_leaves_the_icr_idle(struct kunit *test)
{
	unsigned long timeouts = READ_ONCE(apic_icr_timeouts);

	xapic_send_self_ipi_ops(&fake_ops, SELF_IPI_TEST_VECTOR, true);
	KUNIT_ASSERT_EQ(test, fake.nr_writes, 1);
	expect_write(test, 0, APIC_ICR_LOW,
		     APIC_DEST_SELF | APIC_DM_FIXED | SELF_IPI_TEST_VECTOR);
	KUNIT_EXPECT_FALSE(test, fake.writes[0].busy);
	/* The point: what the interrupted code finds when it goes on. */
	KUNIT_EXPECT_FALSE(test, fake_busy());
	KUNIT_EXPECT_EQ(test, fake.high, INTERRUPTED_DEST << XAPIC_DEST_SHIFT);
	KUNIT_EXPECT_EQ(test, READ_ONCE(apic_icr_timeouts), timeouts);
}

static struct kunit_case apic_icr_cases[] = {
	KUNIT_CASE(nmi_send_restores_icr_high_only_after_its_ipi_left),
	KUNIT_CASE(normal_send_writes_high_and_low_only),
	KUNIT_CASE(send_waits_for_the_previous_ipi),
	KUNIT_CASE(a_stuck_icr_is_reported_and_the_restore_still_written),
	KUNIT_CASE(the_timeout_takes_the_fake_clocks_10_ms),
	KUNIT_CASE(nmi_self_ipi_leaves_the_icr_idle),
	{}
};

static struct kunit_suite apic_icr_suite = {
	.name = "apic_icr",
	.init = fake_init,
	.test_cases = apic_icr_cases,
};
kunit_test_suite(apic_icr_suite);

/* ---- apic_icr_real ---- */

#define REAL_WAIT_US       30000000     /* 30 s: a generous deadline */
#define REAL_NMI_HANDLER   "apic_icr_real"
#define SENTINEL_ID_FLIP   0x40         /* an APIC id that is not cpu1's */

static struct {
	bool go;              /* cpu0 has its sentinel in place */
	bool nmi_ran;         /* cpu0's handler sent its NMI */
	bool armed;           /* the handler acts (on cpu0) */
} icr_real;

static bool wait_for_flag(const bool *flag)
{
	u64 end = rdtsc() + us_to_tsc(REAL_WAIT_US);

	while (!__atomic_load_n(flag, __ATOMIC_ACQUIRE)) {
		if (rdtsc() > end)
			return false;
		touch_nmi_watchdog();    /* IRQs are off: the wait is progress */
		cpu_relax();
	}
	return true;
}

static int icr_real_nmi(unsigned int type, struct pt_regs *regs)
{
	(void)type;
	(void)regs;
	if (smp_processor_id() != 0 ||
	    !__atomic_load_n(&icr_real.armed, __ATOMIC_ACQUIRE))
		return NMI_DONE;
	icr_real.armed = false;
	nmi_send(1);          /* from an NMI: ICR_HIGH must come back */
	__atomic_store_n(&icr_real.nmi_ran, true, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

/* cpu1, in its IPI handler: once cpu0 is ready, NMI it. */
static void nmi_cpu0_when_ready(void *info)
{
	(void)info;
	if (wait_for_flag(&icr_real.go))
		nmi_send(0);
}

static void real_nmi_send_puts_icr_high_back(struct kunit *test)
{
	u32 saved, sentinel, found;
	unsigned long flags;
	bool ran;

	if (x2apic_mode)
		kunit_skip(test, "x2APIC: the ICR is one register, nothing to put back");
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs two CPUs");
	memset(&icr_real, 0, sizeof(icr_real));
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, icr_real_nmi,
						   REAL_NMI_HANDLER), 0);
	sentinel = (percpu_areas[1].apic_id ^ SENTINEL_ID_FLIP)
		   << XAPIC_DEST_SHIFT;
	smp_call_function_single(1, nmi_cpu0_when_ready, NULL, false);
	flags = local_irq_save();
	saved = apic_read(APIC_ICR_HIGH);
	apic_write(APIC_ICR_HIGH, sentinel);   /* a send half way through */
	__atomic_store_n(&icr_real.armed, true, __ATOMIC_RELEASE);
	__atomic_store_n(&icr_real.go, true, __ATOMIC_RELEASE);
	ran = wait_for_flag(&icr_real.nmi_ran);
	found = apic_read(APIC_ICR_HIGH);
	apic_write(APIC_ICR_HIGH, saved);
	local_irq_restore(flags);
	unregister_nmi_handler(NMI_LOCAL, REAL_NMI_HANDLER);
	KUNIT_ASSERT_TRUE(test, ran);
	KUNIT_EXPECT_EQ(test, found, sentinel);
}

static struct kunit_case apic_icr_real_cases[] = {
	KUNIT_CASE(real_nmi_send_puts_icr_high_back),
	{}
};

static struct kunit_suite apic_icr_real_suite = {
	.name = "apic_icr_real",
	.test_cases = apic_icr_real_cases,
};
kunit_test_suite(apic_icr_real_suite);
