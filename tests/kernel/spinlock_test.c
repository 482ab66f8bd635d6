/*
 * spinlock_test.c - ticket spinlocks across CPUs, and local locks.
 *
 * The torture test has every CPU add to one plain (non-atomic) counter
 * under a lock, at the same time (on_each_cpu), and checks the exact
 * total: a lock that let two CPUs in at once loses increments.  The other
 * cases check trylock, the recorded owner CPU, the saved interrupt flag and
 * that a held local lock is seen by an NMI on the same CPU.  The recursion
 * and wrong-owner checks end the run with a panic, so they are not tested
 * here.
 */
#include <irqflags.h>
#include <kunit.h>
#include <local_lock.h>
#include <nmi.h>
#include <smp.h>
#include <spinlock.h>
#include "../../kernel/timekeeping.h"
#include "test_wait.h"

#define TORTURE_ROUNDS 2000
#define TORTURE_MAX_US 300000   /* IRQs are off meanwhile: stay far below
				 * the watchdog threshold */

static DEFINE_SPINLOCK(torture_lock);
static unsigned long torture_counter;
static unsigned long torture_done[NR_CPUS];

/*
 * Each CPU adds up to TORTURE_ROUNDS, or as many as it can in
 * TORTURE_MAX_US: with more virtual CPUs than host cores a ticket handoff
 * can wait for the host scheduler, so the count is bounded by time, and
 * the check is that the shared counter equals the sum of what each CPU
 * says it added.  The first round is done whatever the clock says: a CPU
 * the host did not run for the whole window still takes part once (the
 * case expects every CPU to have added something).
 */
static void torture_one_cpu(void *info)
{
	u64 end = rdtsc() + us_to_tsc(TORTURE_MAX_US);
	unsigned long flags, done = 0;

	(void)info;
	while (done < TORTURE_ROUNDS && (done == 0 || rdtsc() < end)) {
		spin_lock_irqsave(&torture_lock, flags);
		/* read, pause, write: wide open to a lost update if the lock
		 * ever admits two CPUs */
		unsigned long v = READ_ONCE(torture_counter);

		cpu_relax();
		WRITE_ONCE(torture_counter, v + 1);
		spin_unlock_irqrestore(&torture_lock, flags);
		done++;
	}
	torture_done[smp_processor_id()] = done;
}

static void torture_total_is_exact(struct kunit *test)
{
	unsigned long sum = 0;
	unsigned int cpu;

	torture_counter = 0;
	on_each_cpu(torture_one_cpu, NULL, true);
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_GT(test, torture_done[cpu], 0);
		sum += torture_done[cpu];
	}
	KUNIT_EXPECT_EQ(test, torture_counter, sum);
	KUNIT_EXPECT_FALSE(test, spin_is_locked(&torture_lock));
	kunit_info(test, "%lu increments by %u CPUs", sum, nr_cpu_ids);
}

static DEFINE_SPINLOCK(held_lock);
static int remote_trylock_result;

static void remote_trylock(void *info)
{
	(void)info;
	remote_trylock_result = spin_trylock(&held_lock);
	if (remote_trylock_result)
		spin_unlock(&held_lock);
}

static void trylock_fails_while_held(struct kunit *test)
{
	unsigned int other = nr_cpu_ids - 1;

	spin_lock(&held_lock);
	KUNIT_EXPECT_FALSE(test, spin_trylock(&held_lock));
	if (other != smp_processor_id()) {
		remote_trylock_result = -1;
		smp_call_function_single(other, remote_trylock, NULL, true);
		KUNIT_EXPECT_EQ(test, remote_trylock_result, 0);
	}
	spin_unlock(&held_lock);

	KUNIT_ASSERT_TRUE(test, spin_trylock(&held_lock));
	spin_unlock(&held_lock);
	if (other != smp_processor_id()) {
		smp_call_function_single(other, remote_trylock, NULL, true);
		KUNIT_EXPECT_EQ(test, remote_trylock_result, 1);
	}
}

static void owner_cpu_is_recorded(struct kunit *test)
{
	unsigned long flags;

	KUNIT_EXPECT_EQ(test, held_lock.owner_cpu, SPINLOCK_NO_OWNER);
	spin_lock_irqsave(&held_lock, flags);
	KUNIT_EXPECT_EQ(test, held_lock.owner_cpu, (int)smp_processor_id());
	KUNIT_EXPECT_TRUE(test, spin_is_held_by_me(&held_lock));
	lockdep_assert_held(&held_lock);   /* would panic if not */
	spin_unlock_irqrestore(&held_lock, flags);
	KUNIT_EXPECT_EQ(test, held_lock.owner_cpu, SPINLOCK_NO_OWNER);
	KUNIT_EXPECT_FALSE(test, spin_is_held_by_me(&held_lock));
}

static void irqsave_restores_the_interrupt_flag(struct kunit *test)
{
	unsigned long flags, outer;

	KUNIT_ASSERT_FALSE(test, irqs_disabled());
	spin_lock_irqsave(&held_lock, flags);
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	spin_unlock_irqrestore(&held_lock, flags);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());

	outer = local_irq_save();   /* nested: stays off after unlock */
	spin_lock_irqsave(&held_lock, flags);
	spin_unlock_irqrestore(&held_lock, flags);
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	local_irq_restore(outer);

	KUNIT_EXPECT_TRUE(test, spin_trylock_irqsave(&held_lock, flags));
	KUNIT_EXPECT_TRUE(test, irqs_disabled());
	spin_unlock_irqrestore(&held_lock, flags);
	KUNIT_EXPECT_FALSE(test, irqs_disabled());
}

/* An NMI on this CPU tries the local lock; the result lands here. */
static local_trylock_t test_local_lock = INIT_LOCAL_TRYLOCK;
static int nmi_trylock_result = -1;
static bool nmi_probe_armed;

static int local_lock_nmi(unsigned int type, struct pt_regs *regs)
{
	unsigned long flags;

	(void)type;
	(void)regs;
	if (!READ_ONCE(nmi_probe_armed) || smp_processor_id() != 0)
		return NMI_DONE;
	WRITE_ONCE(nmi_probe_armed, false);
	if (local_trylock_irqsave(&test_local_lock, flags)) {
		local_unlock_irqrestore(&test_local_lock, flags);
		WRITE_ONCE(nmi_trylock_result, 1);
	} else {
		WRITE_ONCE(nmi_trylock_result, 0);
	}
	return NMI_HANDLED;
}

static int probe_with_nmi(void)
{
	u64 end = test_deadline();

	WRITE_ONCE(nmi_trylock_result, -1);
	WRITE_ONCE(nmi_probe_armed, true);
	nmi_send_self();
	while (READ_ONCE(nmi_trylock_result) < 0 && !test_deadline_passed(end))
		;
	return READ_ONCE(nmi_trylock_result);
}

static void local_lock_is_seen_taken_by_an_nmi(struct kunit *test)
{
	unsigned long flags;

	if (smp_processor_id() != 0)
		kunit_skip(test, "runs on cpu0");
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, local_lock_nmi,
						   "local_lock_test"), 0);
	KUNIT_EXPECT_EQ(test, probe_with_nmi(), 1);       /* free: taken */

	local_lock_irqsave(&test_local_lock, flags);
	KUNIT_EXPECT_TRUE(test, local_lock_is_locked(&test_local_lock));
	KUNIT_EXPECT_EQ(test, probe_with_nmi(), 0);       /* held: refused */
	local_unlock_irqrestore(&test_local_lock, flags);

	KUNIT_EXPECT_FALSE(test, local_lock_is_locked(&test_local_lock));
	KUNIT_EXPECT_EQ(test, probe_with_nmi(), 1);
	unregister_nmi_handler(NMI_LOCAL, "local_lock_test");
}

static struct kunit_case spinlock_cases[] = {
	KUNIT_CASE(torture_total_is_exact),
	KUNIT_CASE(trylock_fails_while_held),
	KUNIT_CASE(owner_cpu_is_recorded),
	KUNIT_CASE(irqsave_restores_the_interrupt_flag),
	KUNIT_CASE(local_lock_is_seen_taken_by_an_nmi),
	{}
};

static struct kunit_suite spinlock_suite = {
	.name = "spinlock",
	.test_cases = spinlock_cases,
};
kunit_test_suite(spinlock_suite);
