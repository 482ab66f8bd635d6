/*
 * test_rcu.c - kernel/rcu.c's grace-period machine on the host.
 *
 * One thread plays every CPU: host_cpu_id says which, host_irq_nesting
 * and host_nmi_nesting which context.  A tick is a call the test makes
 * (tick(): IRQs off, one IRQ level, rcu_sched_clock_irq() and then the
 * tick's callback run, as arch/x86_64/smpboot.c does), so the test
 * decides exactly when each CPU passes a quiescent state, and checks what
 * RCU promises: a grace period does not end while a CPU has not reported
 * or is in a read-side section; it ends once all have; callbacks run in
 * the order queued, and only after their grace period.  After every step
 * rcu_check_state() checks the invariants kernel/rcu.c states, as each
 * CPU.
 *
 * Each case starts from rcu_init() with TEST_CPUS CPUs online.
 */
#include <irqflags.h>
#include <kunit.h>
#include <rcupdate.h>
#include <smp.h>

#define TEST_CPUS 3
#define MAX_ORDER_LOG 16

static unsigned int order_log[MAX_ORDER_LOG];
static unsigned int order_len;

struct test_cb {
	struct rcu_head rh;
	unsigned int id;
	unsigned int ran_on;   /* the CPU it ran on */
	unsigned int ran_nmi;  /* host_nmi_nesting when it ran */
};

static void test_cb_func(struct rcu_head *rh)
{
	struct test_cb *t = container_of(rh, struct test_cb, rh);

	t->ran_on = host_cpu_id;
	t->ran_nmi = host_nmi_nesting;
	if (order_len < MAX_ORDER_LOG)
		order_log[order_len++] = t->id;
}

static unsigned int problems_on_every_cpu(void)
{
	unsigned int me = host_cpu_id, cpu, problems = 0;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		host_cpu_id = cpu;
		problems += rcu_check_state();
	}
	host_cpu_id = me;
	return problems;
}

#define EXPECT_STATE_OK(test) \
	KUNIT_EXPECT_EQ(test, problems_on_every_cpu(), 0)

/* A timer tick on `cpu`; from_task: it interrupted task or idle code. */
static void tick(unsigned int cpu, bool from_task)
{
	unsigned int me = host_cpu_id;

	host_cpu_id = cpu;
	local_irq_disable();
	host_irq_nesting++;
	rcu_sched_clock_irq(from_task);
	if (from_task)
		rcu_irq_exit_invoke();
	host_irq_nesting--;
	local_irq_enable();
	host_cpu_id = me;
}

static void as_cpu(unsigned int cpu)
{
	host_cpu_id = cpu;
}

static unsigned long gps_completed(void)
{
	struct rcu_stats st;

	rcu_get_stats(&st);
	return st.gp_completed;
}

static unsigned long gps_started(void)
{
	struct rcu_stats st;

	rcu_get_stats(&st);
	return st.gp_started;
}

static void idle_enter(unsigned int cpu)
{
	unsigned int me = host_cpu_id;

	host_cpu_id = cpu;
	local_irq_disable();
	rcu_idle_enter();
	local_irq_enable();
	host_cpu_id = me;
}

static void idle_exit(unsigned int cpu)
{
	unsigned int me = host_cpu_id;

	host_cpu_id = cpu;
	local_irq_disable();
	rcu_idle_exit();
	local_irq_enable();
	host_cpu_id = me;
}

static int rcu_case_init(struct kunit *test)
{
	(void)test;
	nr_cpu_ids = TEST_CPUS;
	host_cpu_id = 0;
	rcu_test_end_gp_early = false;
	order_len = 0;
	rcu_init();
	return 0;
}

static void rcu_case_exit(struct kunit *test)
{
	(void)test;
	rcu_test_end_gp_early = false;
	host_cpu_id = 0;
	nr_cpu_ids = 1;
}

/* ---- cases ---- */

static void gp_waits_for_every_cpu(struct kunit *test)
{
	struct test_cb a = { .id = 1 };

	call_rcu(&a.rh, test_cb_func);
	tick(0, false);                 /* queues it, starts GP 1 */
	KUNIT_EXPECT_EQ(test, gps_started(), 1);
	KUNIT_EXPECT_EQ(test, gps_completed(), 0);
	EXPECT_STATE_OK(test);

	tick(1, true);                  /* cpu1 reports */
	KUNIT_EXPECT_EQ(test, gps_completed(), 0);
	tick(2, true);                  /* cpu2 reports */
	KUNIT_EXPECT_EQ(test, gps_completed(), 0);
	tick(0, false);                 /* a tick inside a handler: no QS */
	KUNIT_EXPECT_EQ(test, gps_completed(), 0);
	KUNIT_EXPECT_EQ(test, order_len, 0);
	EXPECT_STATE_OK(test);

	tick(0, true);                  /* the last CPU: the GP ends */
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);
	KUNIT_EXPECT_EQ(test, order_len, 1);   /* and the tick ran it */
	KUNIT_EXPECT_EQ(test, a.ran_on, 0);
	EXPECT_STATE_OK(test);
}

static void gp_waits_for_a_read_side_section(struct kunit *test)
{
	struct test_cb a = { .id = 1 };

	as_cpu(2);
	rcu_read_lock();                /* cpu2 holds a pointer */
	as_cpu(0);
	call_rcu(&a.rh, test_cb_func);
	tick(0, true);
	tick(1, true);
	tick(2, true);
	tick(2, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 0);
	KUNIT_EXPECT_EQ(test, order_len, 0);
	EXPECT_STATE_OK(test);

	as_cpu(2);
	rcu_read_unlock();
	as_cpu(0);
	tick(2, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);
	tick(0, true);
	KUNIT_EXPECT_EQ(test, order_len, 1);
	EXPECT_STATE_OK(test);
}

static void nested_sections_hold_until_the_outermost_ends(struct kunit *test)
{
	struct test_cb a = { .id = 1 };

	as_cpu(1);
	rcu_read_lock();
	rcu_read_lock();
	rcu_read_unlock();
	KUNIT_EXPECT_TRUE(test, rcu_read_lock_held());
	as_cpu(0);
	call_rcu(&a.rh, test_cb_func);
	tick(0, true);
	tick(2, true);
	tick(1, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 0);

	as_cpu(1);
	rcu_read_unlock();
	KUNIT_EXPECT_FALSE(test, rcu_read_lock_held());
	as_cpu(0);
	tick(1, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);
	EXPECT_STATE_OK(test);
}

/* Queued before a GP began: needs that GP.  Queued during one: the next. */
static void callbacks_run_in_order_after_their_gp(struct kunit *test)
{
	struct test_cb cb[4] = { { .id = 1 }, { .id = 2 }, { .id = 3 },
				 { .id = 4 } };
	unsigned int cpu;

	call_rcu(&cb[0].rh, test_cb_func);
	call_rcu(&cb[1].rh, test_cb_func);
	tick(0, false);                 /* 1, 2 wait for GP 1 */
	call_rcu(&cb[2].rh, test_cb_func);
	call_rcu(&cb[3].rh, test_cb_func);
	tick(0, false);                 /* 3, 4 next, behind them */
	EXPECT_STATE_OK(test);

	for (cpu = 0; cpu < TEST_CPUS; cpu++)
		tick(cpu, true);        /* GP 1 ends; cpu0 ran first */
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);
	/* cpu0 ticked before cpu1 and cpu2 reported: nothing ran yet. */
	KUNIT_EXPECT_EQ(test, order_len, 0);
	tick(0, false);                 /* 1, 2 done; 3, 4 wait for GP 2 */
	KUNIT_EXPECT_EQ(test, gps_started(), 2);
	tick(0, true);                  /* runs 1, 2; cpu0's QS for GP 2 */
	KUNIT_ASSERT_EQ(test, order_len, 2);
	KUNIT_EXPECT_EQ(test, order_log[0], 1);
	KUNIT_EXPECT_EQ(test, order_log[1], 2);
	EXPECT_STATE_OK(test);

	tick(1, true);
	KUNIT_EXPECT_EQ(test, order_len, 2);   /* GP 2 not over */
	tick(2, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 2);
	tick(0, true);
	KUNIT_ASSERT_EQ(test, order_len, 4);
	KUNIT_EXPECT_EQ(test, order_log[2], 3);
	KUNIT_EXPECT_EQ(test, order_log[3], 4);
	EXPECT_STATE_OK(test);
}

/* The QS a CPU reported for one GP does not count for the next. */
static void a_qs_counts_for_the_gp_in_progress_only(struct kunit *test)
{
	struct test_cb a = { .id = 1 }, b = { .id = 2 };

	call_rcu(&a.rh, test_cb_func);
	tick(0, true);                  /* GP 1, cpu0 reports */
	tick(1, true);
	tick(2, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);

	as_cpu(1);
	call_rcu(&b.rh, test_cb_func);
	tick(1, true);                  /* GP 2: cpu1 reports at once */
	KUNIT_EXPECT_EQ(test, gps_started(), 2);
	tick(2, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);   /* cpu0 has not */
	tick(0, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 2);
	tick(1, true);
	KUNIT_EXPECT_EQ(test, order_len, 2);
	KUNIT_EXPECT_EQ(test, b.ran_on, 1);
	EXPECT_STATE_OK(test);
}

/* (c) and (d): an idle CPU holds nothing up, before or during a GP. */
static void idle_cpus_are_quiescent(struct kunit *test)
{
	struct test_cb a = { .id = 1 }, b = { .id = 2 };
	struct rcu_stats st;

	idle_enter(1);                  /* idle before the GP */
	call_rcu(&a.rh, test_cb_func);
	tick(0, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 0);   /* cpu2 owes one */
	idle_enter(2);                  /* reports on its way in */
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);
	rcu_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.qs_idle_remote, 1);  /* cpu1's */

	/* Both still idle: a new GP needs only cpu0. */
	call_rcu(&b.rh, test_cb_func);
	tick(0, true);
	tick(0, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 2);
	KUNIT_EXPECT_EQ(test, order_len, 2);
	idle_exit(1);
	idle_exit(2);
	EXPECT_STATE_OK(test);
}

/* An IRQ or NMI on an idle CPU is watched while it runs. */
static void a_handler_on_an_idle_cpu_holds_the_gp(struct kunit *test)
{
	struct test_cb a = { .id = 1 };
	bool was_idle;

	idle_enter(1);
	idle_enter(2);
	as_cpu(2);                      /* an NMI interrupts cpu2's halt */
	host_nmi_nesting++;
	was_idle = rcu_irq_enter();
	KUNIT_EXPECT_TRUE(test, was_idle);
	KUNIT_EXPECT_FALSE(test, rcu_irq_enter());   /* nested: no-op */
	rcu_read_lock();
	host_nmi_nesting--;             /* (per thread: cpu0 is in none) */
	as_cpu(0);
	call_rcu(&a.rh, test_cb_func);
	tick(0, true);
	tick(0, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 0);   /* cpu2 is watched */

	as_cpu(2);
	host_nmi_nesting++;
	rcu_read_unlock();
	rcu_irq_exit(false);
	rcu_irq_exit(was_idle);
	host_nmi_nesting--;
	as_cpu(0);
	tick(0, true);                  /* sees cpu2 idle again */
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);
	tick(0, true);
	KUNIT_EXPECT_EQ(test, order_len, 1);
	idle_exit(1);
	idle_exit(2);
	EXPECT_STATE_OK(test);
}

/* call_rcu() from an NMI: queued lock-free, run later, never in an NMI. */
static void call_rcu_from_nmi_runs_after_the_gp(struct kunit *test)
{
	struct test_cb a = { .id = 1 };
	unsigned int cpu;

	as_cpu(1);
	host_nmi_nesting++;
	rcu_read_lock();                /* an NMI reader that frees */
	call_rcu(&a.rh, test_cb_func);
	rcu_read_unlock();
	host_nmi_nesting--;
	as_cpu(0);
	KUNIT_EXPECT_EQ(test, gps_started(), 0);   /* nothing done in NMI */
	tick(1, false);                 /* cpu1 takes it, asks for GP 1 */
	for (cpu = 0; cpu < TEST_CPUS; cpu++)
		tick(cpu, true);
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);
	KUNIT_EXPECT_EQ(test, order_len, 0);  /* cpu1 ticked before the end */
	tick(1, true);
	KUNIT_EXPECT_EQ(test, order_len, 1);
	KUNIT_EXPECT_EQ(test, a.ran_on, 1);
	KUNIT_EXPECT_EQ(test, a.ran_nmi, 0);
	EXPECT_STATE_OK(test);
}

/* An explicit quiescent state, and the misuse of one. */
static void explicit_qs_and_its_misuse(struct kunit *test)
{
	struct test_cb a = { .id = 1 };

	call_rcu(&a.rh, test_cb_func);
	tick(0, false);
	as_cpu(1);
	rcu_quiescent_state();
	as_cpu(2);
	rcu_read_lock();
	KUNIT_EXPECT_REPORT(test, "rcu_quiescent_state() in a read-side section",
			    rcu_quiescent_state());
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, gps_completed(), 0);
	rcu_quiescent_state();
	as_cpu(0);
	rcu_quiescent_state();
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);
	EXPECT_STATE_OK(test);
}

static void synchronize_rcu_outside_task_context_reports(struct kunit *test)
{
	host_irq_nesting++;
	KUNIT_EXPECT_REPORT(test, "synchronize_rcu() in IRQ context",
			    synchronize_rcu());
	host_irq_nesting--;
	host_nmi_nesting++;
	KUNIT_EXPECT_REPORT(test, "synchronize_rcu() in NMI context",
			    synchronize_rcu());
	host_nmi_nesting--;
	rcu_read_lock();
	KUNIT_EXPECT_REPORT(test, "synchronize_rcu() in a read-side section",
			    synchronize_rcu());
	rcu_read_unlock();
	local_irq_disable();
	KUNIT_EXPECT_REPORT(test, "rcu_barrier() in a section with IRQs off",
			    rcu_barrier());
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, gps_started(), 0);
}

/* With the other CPUs idle, synchronize_rcu() needs only its own QS. */
static void synchronize_rcu_with_the_others_idle(struct kunit *test)
{
	idle_enter(1);
	idle_enter(2);
	synchronize_rcu();
	synchronize_rcu();
	KUNIT_EXPECT_EQ(test, gps_completed(), 2);
	idle_exit(1);
	idle_exit(2);
	EXPECT_STATE_OK(test);
}

/* rcu_barrier() on one CPU: every callback queued before it has run. */
static void rcu_barrier_runs_every_earlier_callback(struct kunit *test)
{
	struct test_cb cb[3] = { { .id = 1 }, { .id = 2 }, { .id = 3 } };
	unsigned int i;

	nr_cpu_ids = 1;
	for (i = 0; i < 3; i++)
		call_rcu(&cb[i].rh, test_cb_func);
	tick(0, false);
	rcu_barrier();
	KUNIT_ASSERT_EQ(test, order_len, 3);
	for (i = 0; i < 3; i++)
		KUNIT_EXPECT_EQ(test, order_log[i], i + 1);
	EXPECT_STATE_OK(test);
}

/* review: a second rcu_barrier() waits as the first did (its count of
 * callbacks run starts again from zero). */
static void a_second_rcu_barrier_waits_too(struct kunit *test)
{
	struct test_cb a = { .id = 1 }, b = { .id = 2 };

	nr_cpu_ids = 1;
	call_rcu(&a.rh, test_cb_func);
	rcu_barrier();
	KUNIT_ASSERT_EQ(test, order_len, 1);
	call_rcu(&b.rh, test_cb_func);
	rcu_barrier();
	KUNIT_ASSERT_EQ(test, order_len, 2);
	KUNIT_EXPECT_EQ(test, order_log[1], 2);
	EXPECT_STATE_OK(test);
}

/* review: a CPU that left the idle halt (rcu_idle_exit()) and entered a
 * section in task code (the idle loop runs cpu_work and callbacks) holds
 * the grace period: its idle flag must be clear again. */
static void a_cpu_back_from_idle_holds_the_gp(struct kunit *test)
{
	struct test_cb a = { .id = 1 };

	idle_enter(1);
	idle_enter(2);
	idle_exit(1);
	as_cpu(1);
	rcu_read_lock();
	as_cpu(0);
	call_rcu(&a.rh, test_cb_func);
	tick(0, true);
	tick(0, true);
	tick(2, true);   /* an IRQ on idle cpu2: it forces the idle QSs */
	KUNIT_EXPECT_EQ(test, order_len, 0);
	KUNIT_EXPECT_EQ(test, gps_completed(), 0);
	as_cpu(1);
	rcu_read_unlock();
	as_cpu(0);
	tick(1, true);
	tick(0, true);
	tick(0, true);
	KUNIT_EXPECT_EQ(test, order_len, 1);
	idle_exit(2);
	EXPECT_STATE_OK(test);
}

/* review: a tick that interrupts a batch run in task context (the idle
 * loop's rcu_do_batch()) runs no later batch meanwhile: the earlier
 * callback finishes first, or rcu_barrier() could return (and
 * kmem_cache_destroy() free the cache) while it still runs. */
static struct test_cb nest_b = { .id = 2 };

static void nest_cb_func(struct rcu_head *rh)
{
	test_cb_func(rh);               /* logs 1: A starts */
	tick(0, true);                  /* ends GP 2: B's, during A */
	if (order_len < MAX_ORDER_LOG)
		order_log[order_len++] = 11;  /* A ends */
}

static void a_tick_runs_no_batch_inside_a_batch(struct kunit *test)
{
	struct test_cb a = { .id = 1 };

	nr_cpu_ids = 1;
	nest_b.id = 2;
	call_rcu(&a.rh, nest_cb_func);
	tick(0, false);                 /* A waits for GP 1 */
	call_rcu(&nest_b.rh, test_cb_func);
	rcu_quiescent_state();          /* GP 1 ends */
	rcu_do_batch();                 /* B waits for GP 2; A runs */
	rcu_do_batch();
	KUNIT_ASSERT_EQ(test, order_len, 3);
	KUNIT_EXPECT_EQ(test, order_log[0], 1);
	KUNIT_EXPECT_EQ(test, order_log[1], 11);
	KUNIT_EXPECT_EQ(test, order_log[2], 2);
	EXPECT_STATE_OK(test);
}

/* The test switch really breaks RCU: the torture relies on it. */
static void end_gp_early_ignores_readers(struct kunit *test)
{
	struct test_cb a = { .id = 1 };
	struct rcu_stats st;

	as_cpu(2);
	rcu_read_lock();
	as_cpu(0);
	rcu_test_end_gp_early = true;
	call_rcu(&a.rh, test_cb_func);
	tick(0, true);                  /* starts and ends GP 1 at once */
	KUNIT_EXPECT_EQ(test, gps_completed(), 1);
	KUNIT_EXPECT_EQ(test, order_len, 1);  /* while cpu2 still reads */
	rcu_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.gp_ended_early, 1);
	rcu_test_end_gp_early = false;
	as_cpu(2);
	rcu_read_unlock();
	as_cpu(0);
	EXPECT_STATE_OK(test);
}

static void stats_count_queued_and_invoked(struct kunit *test)
{
	struct test_cb cb[2] = { { .id = 1 }, { .id = 2 } };
	struct rcu_stats st;
	unsigned int cpu, round;

	call_rcu(&cb[0].rh, test_cb_func);
	as_cpu(2);
	call_rcu(&cb[1].rh, test_cb_func);
	as_cpu(0);
	rcu_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.cbs_queued, 2);
	KUNIT_EXPECT_EQ(test, st.cbs_invoked, 0);
	tick(0, false);                 /* cpu0's waits for GP 1 */
	tick(2, false);                 /* cpu2's for GP 2: 1 is running */
	for (round = 0; round < 3; round++)
		for (cpu = 0; cpu < TEST_CPUS; cpu++)
			tick(cpu, true);
	rcu_get_stats(&st);
	KUNIT_EXPECT_EQ(test, st.gp_completed, 2);
	KUNIT_EXPECT_EQ(test, st.cbs_invoked, 2);
	EXPECT_STATE_OK(test);
}

static struct kunit_case rcu_cases[] = {
	KUNIT_CASE(gp_waits_for_every_cpu),
	KUNIT_CASE(gp_waits_for_a_read_side_section),
	KUNIT_CASE(nested_sections_hold_until_the_outermost_ends),
	KUNIT_CASE(callbacks_run_in_order_after_their_gp),
	KUNIT_CASE(a_qs_counts_for_the_gp_in_progress_only),
	KUNIT_CASE(idle_cpus_are_quiescent),
	KUNIT_CASE(a_handler_on_an_idle_cpu_holds_the_gp),
	KUNIT_CASE(call_rcu_from_nmi_runs_after_the_gp),
	KUNIT_CASE(explicit_qs_and_its_misuse),
	KUNIT_CASE(synchronize_rcu_outside_task_context_reports),
	KUNIT_CASE(synchronize_rcu_with_the_others_idle),
	KUNIT_CASE(rcu_barrier_runs_every_earlier_callback),
	KUNIT_CASE(end_gp_early_ignores_readers),
	KUNIT_CASE(stats_count_queued_and_invoked),
	KUNIT_CASE(a_second_rcu_barrier_waits_too),
	KUNIT_CASE(a_cpu_back_from_idle_holds_the_gp),
	KUNIT_CASE(a_tick_runs_no_batch_inside_a_batch),
	{}
};

static struct kunit_suite rcu_suite = {
	.name = "rcu",
	.init = rcu_case_init,
	.exit = rcu_case_exit,
	.test_cases = rcu_cases,
};
kunit_test_suite(rcu_suite);
