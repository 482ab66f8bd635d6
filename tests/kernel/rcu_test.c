/*
 * rcu_test.c - the RCU API on real CPUs, one promise a case
 * (kernel/rcu.c; the state machine's own cases are tests/host/test_rcu.c,
 * the torture tests/kernel/rcutorture_test.c).
 *
 *   - synchronize_rcu() does not return while another CPU is in a
 *     read-side section that began before it (the reader says when it
 *     leaves; the writer checks it had, so no timing is assumed);
 *   - grace periods end while the APs sit in the idle halt: the GP
 *     machinery reads their idle flags;
 *   - rcu_barrier() waits for callbacks queued on every CPU, and each ran
 *     on its CPU, outside NMI context;
 *   - waiting for a grace period where that cannot be (IRQ context, a
 *     read-side section) is reported, not a hang.
 */
#include <cpu_work.h>
#include <irq_work.h>
#include <kunit.h>
#include <rcupdate.h>
#include <smp.h>
#include "test_wait.h"

#define READER_SPINS        10000
#define IDLE_SYNCS          50

static unsigned int reader_in, writer_waiting, reader_leaving;
static bool writer_saw_reader_leave, reader_timed_out;

static void reader_vs_synchronize(void *info)
{
	u64 end = test_deadline();
	unsigned int i;

	(void)info;
	if (smp_processor_id() == 0) {
		while (!__atomic_load_n(&reader_in, __ATOMIC_ACQUIRE))
			if (test_deadline_passed(end)) {
				reader_timed_out = true;
				return;
			}
		__atomic_store_n(&writer_waiting, 1, __ATOMIC_RELEASE);
		synchronize_rcu();
		writer_saw_reader_leave =
			__atomic_load_n(&reader_leaving, __ATOMIC_ACQUIRE);
		return;
	}
	if (smp_processor_id() != 1)
		return;
	rcu_read_lock();
	__atomic_store_n(&reader_in, 1, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&writer_waiting, __ATOMIC_ACQUIRE))
		if (test_deadline_passed(end))
			break;
	for (i = 0; i < READER_SPINS; i++)   /* give it a chance to be wrong */
		cpu_relax();
	__atomic_store_n(&reader_leaving, 1, __ATOMIC_RELEASE);
	rcu_read_unlock();
}

static void synchronize_rcu_waits_for_a_reader(struct kunit *test)
{
	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs a second CPU (SMP=2 or more)");
	reader_in = writer_waiting = reader_leaving = 0;
	writer_saw_reader_leave = reader_timed_out = false;
	on_each_cpu_task(reader_vs_synchronize, NULL);
	KUNIT_EXPECT_FALSE(test, reader_timed_out);
	KUNIT_EXPECT_TRUE(test, writer_saw_reader_leave);
}

static void grace_periods_end_with_the_aps_idle(struct kunit *test)
{
	struct rcu_stats before, after;
	unsigned int i;

	rcu_get_stats(&before);
	for (i = 0; i < IDLE_SYNCS; i++)
		synchronize_rcu();
	rcu_get_stats(&after);
	KUNIT_EXPECT_GE(test, after.gp_completed - before.gp_completed,
			IDLE_SYNCS);
	if (nr_cpu_ids > 1)
		KUNIT_EXPECT_GT(test, after.qs_idle_remote,
				before.qs_idle_remote);
}

static struct rcu_head barrier_heads[NR_CPUS];
static unsigned int ran_on[NR_CPUS];
static bool ran_in_nmi[NR_CPUS];

static void barrier_cb(struct rcu_head *rh)
{
	unsigned int cpu = (unsigned int)(rh - barrier_heads);

	ran_in_nmi[cpu] = in_nmi();
	__atomic_store_n(&ran_on[cpu], smp_processor_id() + 1, __ATOMIC_RELEASE);
}

static void queue_barrier_head(void *info)
{
	(void)info;
	call_rcu(&barrier_heads[smp_processor_id()], barrier_cb);
}

static void rcu_barrier_waits_for_every_cpu(struct kunit *test)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		ran_on[cpu] = 0;
	on_each_cpu(queue_barrier_head, NULL, true);
	rcu_barrier();
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, READ_ONCE(ran_on[cpu]), cpu + 1);
		KUNIT_EXPECT_FALSE(test, ran_in_nmi[cpu]);
	}
	KUNIT_EXPECT_EQ(test, rcu_check_state(), 0);
}

static struct irq_work sync_in_irq_work;

static void sync_in_irq(struct irq_work *w)
{
	(void)w;
	synchronize_rcu();
}

static void waiting_where_it_cannot_is_reported(struct kunit *test)
{
	init_irq_work(&sync_in_irq_work, sync_in_irq);
	kunit_expect_report(test, "synchronize_rcu() in IRQ context");
	irq_work_queue(&sync_in_irq_work);
	irq_work_sync(&sync_in_irq_work);
	kunit_expect_report_done(test);

	rcu_read_lock();
	KUNIT_EXPECT_REPORT(test, "synchronize_rcu() in a read-side section",
			    synchronize_rcu());
	KUNIT_EXPECT_REPORT(test, "rcu_barrier() in a read-side section",
			    rcu_barrier());
	rcu_read_unlock();
}

static struct kunit_case rcu_cases[] = {
	KUNIT_CASE(synchronize_rcu_waits_for_a_reader),
	KUNIT_CASE(grace_periods_end_with_the_aps_idle),
	KUNIT_CASE(rcu_barrier_waits_for_every_cpu),
	KUNIT_CASE(waiting_where_it_cannot_is_reported),
	{}
};

static struct kunit_suite rcu_suite = {
	.name = "rcu",
	.test_cases = rcu_cases,
};
kunit_test_suite(rcu_suite);
