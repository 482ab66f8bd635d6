/*
 * nmi_test.c - NMIs sent by every CPU to every CPU, and what they may see.
 *
 * NMIs carry no payload and merge when they pile up, so every test talks
 * through mailboxes: the sender writes mailbox[target][sender] = 1, sends
 * the NMI, and waits until the target's handler has counted it and cleared
 * the mailbox.  A lost NMI shows as a mailbox that never clears (a
 * timeout, counted in `lost`), a duplicated one cannot show (the handler
 * only counts full mailboxes), so received[t][s] == K exactly means each
 * NMI arrived once.
 *
 * The handler (test_nmi_handler) is registered for the whole suite and
 * does nothing unless a test armed it.
 */
#include <cpu_work.h>
#include <cpumask.h>
#include <irq_work.h>
#include <irqflags.h>
#include <kernel.h>
#include <kunit.h>
#include <nmi.h>
#include <printk.h>
#include <smp.h>
#include <spinlock.h>
#include <string.h>
#include <watchdog.h>
#include "../../arch/x86_64/desc.h"
#include "../../arch/x86_64/interrupts.h"
#include "../../kernel/nmi_printk.h"
#include "../../kernel/timekeeping.h"

#define NMIS_PER_PAIR   20
/*
 * How long a wait for an NMI may last before the case gives up.  These are
 * hang guards, not measurements: an NMI on QEMU arrives within microseconds
 * of guest time, but a vCPU of a loaded host can be descheduled for
 * seconds, so the guard is generous.  Every long wait runs in task context
 * with IRQs on (on_each_cpu_task()), so the hard-lockup watchdog keeps
 * seeing ticks; the one wait that must keep IRQs off (victim_spin()) tells
 * the watchdog it is alive.
 */
#define NMI_WAIT_GUARD_US 30000000
#define STORM_LINES     3    /* per CPU: enough to see order and loss */
#define FILL_LINE_BYTES 400  /* a long line of the fill case */
#define FILL_LINES      18   /* 7.7 KiB with their prefixes: all fit, one more not */
#define PEEK_SIZE       8192

static unsigned int mailbox[NR_CPUS][NR_CPUS];   /* [target][sender] */
static unsigned int received[NR_CPUS][NR_CPUS];
static unsigned int sent[NR_CPUS][NR_CPUS];
static unsigned int lost[NR_CPUS];
static bool suite_armed;

/* What the handler saw, for the context tests. */
struct nmi_seen {
	bool in_nmi, in_irq, in_task;
	bool irqs_were_on;
	bool lock_was_held_here;
	int trylock_result;
	bool on_nmi_stack;
	unsigned int hits;
};
static struct nmi_seen seen[NR_CPUS];
static spinlock_t victim_lock;
static bool print_in_nmi;
static bool fill_in_nmi;   /* print FILL_LINES long lines, once */
static unsigned int print_seq[NR_CPUS];
static struct irq_work nmi_work[NR_CPUS];
static unsigned int nmi_work_cpu[NR_CPUS];
static bool nmi_work_in_nmi[NR_CPUS];
static unsigned int nmi_work_runs[NR_CPUS];
static bool queue_work_in_nmi;

static bool on_this_cpus_nmi_stack(unsigned long sp)
{
	unsigned long lo = (unsigned long)cpu_stacks[smp_processor_id()].nmi;

	return sp >= lo && sp < lo + IST_STACK_SIZE;
}

/* In the NMI: FILL_LINES lines of FILL_LINE_BYTES, then one more, which
 * no longer fits the buffer. */
static char fill_text[FILL_LINE_BYTES + 1];

static void nmi_fill_buffer(void)
{
	unsigned int k;

	for (k = 0; k <= FILL_LINES; k++)
		pr_info("fill %02u %s\n", k, fill_text);
}

static int test_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	unsigned int me = smp_processor_id(), s;
	struct nmi_seen *w = &seen[me];
	int handled = NMI_DONE;
	unsigned long sp = (unsigned long)__builtin_frame_address(0);

	(void)type;
	if (!READ_ONCE(suite_armed))
		return NMI_DONE;
	for (s = 0; s < nr_cpu_ids; s++) {
		if (!__atomic_load_n(&mailbox[me][s], __ATOMIC_ACQUIRE))
			continue;
		received[me][s]++;
		w->hits++;
		w->in_nmi = in_nmi();
		w->in_irq = in_irq();
		w->in_task = in_task();
		w->irqs_were_on = regs->rflags & RFLAGS_IF;
		w->lock_was_held_here = spin_is_locked(&victim_lock) &&
			READ_ONCE(victim_lock.owner_cpu) == (int)me;
		w->trylock_result = spin_trylock(&victim_lock);
		if (w->trylock_result)
			spin_unlock(&victim_lock);
		w->on_nmi_stack = on_this_cpus_nmi_stack(sp);
		if (READ_ONCE(print_in_nmi))
			pr_info("nmi_test storm line seq=%u of cpu%u\n",
				print_seq[me]++, me);
		if (__atomic_exchange_n(&fill_in_nmi, false, __ATOMIC_RELAXED))
			nmi_fill_buffer();
		if (READ_ONCE(queue_work_in_nmi))
			irq_work_queue(&nmi_work[me]);
		__atomic_store_n(&mailbox[me][s], 0, __ATOMIC_RELEASE);
		handled = NMI_HANDLED;
	}
	return handled;
}

/* Ring `target` once and wait for its handler; false if it never came. */
static bool nmi_round_trip(unsigned int target)
{
	unsigned int me = smp_processor_id();
	u64 end = rdtsc() + us_to_tsc(NMI_WAIT_GUARD_US);

	__atomic_store_n(&mailbox[target][me], 1, __ATOMIC_RELEASE);
	if (target == me)
		nmi_send_self();
	else
		nmi_send(target);
	while (__atomic_load_n(&mailbox[target][me], __ATOMIC_ACQUIRE)) {
		if (rdtsc() > end) {
			__atomic_store_n(&mailbox[target][me], 0,
					 __ATOMIC_RELEASE);
			return false;
		}
		cpu_relax();
	}
	return true;
}

static int nmi_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	spin_lock_init(&victim_lock, "nmi_test_victim");
	return register_nmi_handler(NMI_LOCAL, test_nmi_handler, "nmi_test");
}

static void nmi_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	WRITE_ONCE(suite_armed, false);
	unregister_nmi_handler(NMI_LOCAL, "nmi_test");
}

static int nmi_case_init(struct kunit *test)
{
	(void)test;
	memset(mailbox, 0, sizeof(mailbox));
	memset(received, 0, sizeof(received));
	memset(sent, 0, sizeof(sent));
	memset(lost, 0, sizeof(lost));
	memset(seen, 0, sizeof(seen));
	WRITE_ONCE(suite_armed, true);
	return 0;
}

static void nmi_case_exit(struct kunit *test)
{
	(void)test;
	WRITE_ONCE(suite_armed, false);
	WRITE_ONCE(print_in_nmi, false);
	WRITE_ONCE(fill_in_nmi, false);
	WRITE_ONCE(queue_work_in_nmi, false);
}

/* ---- every CPU to every CPU ---- */

static void send_to_everyone(void *info)
{
	unsigned int me = smp_processor_id(), k, i;

	(void)info;
	for (k = 0; k < NMIS_PER_PAIR; k++) {
		for_each_online_cpu(i) {
			unsigned int t = (i + me) % nr_cpu_ids;

			sent[t][me]++;
			if (!nmi_round_trip(t)) {
				lost[me]++;
				return;   /* one lost NMI is enough to fail */
			}
		}
	}
}

static void every_cpu_nmis_every_cpu_exactly(struct kunit *test)
{
	unsigned int t, s;
	unsigned long before = nmi_count(0);

	KUNIT_ASSERT_EQ(test, on_each_cpu_task(send_to_everyone, NULL),
			nr_cpu_ids);
	for_each_online_cpu(s)
		KUNIT_EXPECT_EQ(test, lost[s], 0);
	for_each_online_cpu(t) {
		for_each_online_cpu(s) {
			KUNIT_EXPECT_EQ(test, sent[t][s], NMIS_PER_PAIR);
			KUNIT_EXPECT_EQ(test, received[t][s], sent[t][s]);
		}
	}
	KUNIT_EXPECT_GE(test, nmi_count(0) - before, sent[0][0]);
}

/* ---- an NMI gets through IRQs-off and a held lock ---- */

static bool victim_ready;

static void victim_spin(void *info)
{
	unsigned int me = smp_processor_id();
	u64 end = rdtsc() + us_to_tsc(NMI_WAIT_GUARD_US);
	unsigned long flags;

	(void)info;
	flags = local_irq_save();  /* already off in an IPI; explicit here */
	spin_lock(&victim_lock);
	WRITE_ONCE(victim_ready, true);
	while (!READ_ONCE(seen[me].hits) && rdtsc() < end) {
		watchdog_touch_all();   /* IRQs off on purpose, for seconds */
		cpu_relax();
	}
	spin_unlock(&victim_lock);
	local_irq_restore(flags);
}

static void check_victim(struct kunit *test, unsigned int cpu)
{
	KUNIT_EXPECT_EQ(test, seen[cpu].hits, 1);
	KUNIT_EXPECT_FALSE(test, seen[cpu].irqs_were_on);
	KUNIT_EXPECT_TRUE(test, seen[cpu].lock_was_held_here);
	KUNIT_EXPECT_EQ(test, seen[cpu].trylock_result, 0);
}

static void nmi_arrives_with_irqs_off_and_a_lock_held(struct kunit *test)
{
	unsigned int me = smp_processor_id(), other = nr_cpu_ids - 1;
	unsigned long flags;
	u64 end;

	/* Here: this CPU holds the lock with IRQs off and NMIs itself. */
	flags = local_irq_save();
	spin_lock(&victim_lock);
	KUNIT_EXPECT_TRUE(test, nmi_round_trip(me));
	spin_unlock(&victim_lock);
	local_irq_restore(flags);
	check_victim(test, me);

	if (other == me)
		return;
	/* There: another CPU spins the same way; we NMI it. */
	WRITE_ONCE(victim_ready, false);
	smp_call_function_single(other, victim_spin, NULL, false);
	end = rdtsc() + us_to_tsc(NMI_WAIT_GUARD_US);
	while (!READ_ONCE(victim_ready) && rdtsc() < end)
		cpu_relax();
	KUNIT_ASSERT_TRUE(test, READ_ONCE(victim_ready));
	KUNIT_EXPECT_TRUE(test, nmi_round_trip(other));
	while (spin_is_locked(&victim_lock) && rdtsc() < end)
		cpu_relax();
	check_victim(test, other);
}

/* ---- the context an NMI handler runs in ---- */

static void nmi_context_is_visible_and_on_ist(struct kunit *test)
{
	unsigned int cpu = smp_processor_id();

	KUNIT_EXPECT_TRUE(test, in_task());
	KUNIT_EXPECT_FALSE(test, in_nmi());
	KUNIT_ASSERT_TRUE(test, nmi_round_trip(cpu));
	KUNIT_EXPECT_TRUE(test, seen[cpu].in_nmi);
	KUNIT_EXPECT_FALSE(test, seen[cpu].in_task);
	KUNIT_EXPECT_FALSE(test, seen[cpu].in_irq);
	KUNIT_EXPECT_TRUE(test, seen[cpu].on_nmi_stack);
	KUNIT_EXPECT_FALSE(test, in_nmi());   /* the count went back down */
}

static void nmi_send_allbutself_reaches_the_others(struct kunit *test)
{
	unsigned long before[NR_CPUS];
	unsigned int cpu, me = smp_processor_id();
	u64 end = rdtsc() + us_to_tsc(NMI_WAIT_GUARD_US);
	bool all;

	for_each_online_cpu(cpu)
		before[cpu] = nmi_count(cpu);
	nmi_send_allbutself();
	do {
		all = true;
		for_each_online_cpu(cpu)
			if (cpu != me && nmi_count(cpu) == before[cpu])
				all = false;
	} while (!all && rdtsc() < end);
	for_each_online_cpu(cpu)
		if (cpu != me)
			KUNIT_EXPECT_GT(test, nmi_count(cpu), before[cpu]);
}

/* ---- printk from NMIs: kept whole, none dropped ---- */

static void storm_self(void *info)
{
	unsigned int k;

	(void)info;
	for (k = 0; k < STORM_LINES; k++)
		if (!nmi_round_trip(smp_processor_id())) {
			lost[smp_processor_id()]++;
			return;
		}
}

/* Every line in `buf` reads "...cpuN: NMI: nmi_test storm line seq=K of
 * cpuN", with K counting up from 0: whole lines, in order, none missing. */
static unsigned int check_storm_lines(struct kunit *test, unsigned int cpu,
				      const char *buf)
{
	char want[64];
	unsigned int n = 0;
	const char *line = buf, *body;

	while (*line) {
		const char *nl = strchr(line, '\n');

		if (!nl) {
			KUNIT_FAIL(test, "cpu%u: a line without its newline", cpu);
			break;
		}
		snprintf(want, sizeof(want), "cpu%u: NMI: nmi_test storm line seq=%u of cpu%u",
			 cpu, n, cpu);
		/* "[ time] " then exactly `want`, then the newline */
		body = strchr(line, ']');
		if (!body || body + 2 + strlen(want) != nl ||
		    memcmp(body + 2, want, strlen(want))) {
			KUNIT_FAIL(test, "cpu%u: line %u is not '%s'", cpu, n, want);
			break;
		}
		n++;
		line = nl + 1;
	}
	return n;
}

static char peek_buf[PEEK_SIZE];

static void nmi_printk_keeps_every_line_whole(struct kunit *test)
{
	unsigned long dropped = nmi_printk_dropped();
	unsigned int cpu;

	printk_flush_nmi();
	memset(print_seq, 0, sizeof(print_seq));
	WRITE_ONCE(print_in_nmi, true);
	KUNIT_ASSERT_EQ(test, on_each_cpu_task(storm_self, NULL),
			nr_cpu_ids);
	WRITE_ONCE(print_in_nmi, false);
	/* No printk until the buffers are checked: it would flush them. */
	for_each_online_cpu(cpu) {
		nmi_printk_peek(cpu, peek_buf, sizeof(peek_buf));
		KUNIT_EXPECT_EQ(test, check_storm_lines(test, cpu, peek_buf),
				STORM_LINES);
		KUNIT_EXPECT_EQ(test, lost[cpu], 0);
	}
	KUNIT_EXPECT_EQ(test, nmi_printk_dropped(), dropped);
	printk_flush_nmi();
	for_each_online_cpu(cpu) {
		nmi_printk_peek(cpu, peek_buf, sizeof(peek_buf));
		KUNIT_EXPECT_EQ(test, peek_buf[0], '\0');   /* all written out */
	}
}

/*
 * A full buffer keeps every line that fits, whole and in order, and drops
 * exactly the one that does not (counted in nmi_printk_dropped()).  The
 * lines are forgotten afterwards, unprinted: 8 KiB of filler would drown
 * the log.
 */
static void nmi_printk_fills_its_buffer_whole(struct kunit *test)
{
	unsigned int me = smp_processor_id(), n = 0;
	unsigned long dropped;
	const char *line;

	memset(fill_text, 'x', FILL_LINE_BYTES);
	printk_flush_nmi();
	dropped = nmi_printk_dropped();
	WRITE_ONCE(fill_in_nmi, true);
	KUNIT_ASSERT_TRUE(test, nmi_round_trip(me));
	nmi_printk_peek(me, peek_buf, sizeof(peek_buf));
	printk_discard_nmi(me);
	for (line = peek_buf; *line; n++) {
		char want[16];
		const char *nl = strchr(line, '\n');

		snprintf(want, sizeof(want), "fill %02u x", n);
		if (!nl || !strstr(line, want) ||
		    (size_t)(nl - line) < FILL_LINE_BYTES) {
			KUNIT_FAIL(test, "line %u of the full buffer is not whole", n);
			break;
		}
		line = nl + 1;
	}
	KUNIT_EXPECT_EQ(test, n, FILL_LINES);
	/* The last line, its prefix and newline: dropped, counted. */
	KUNIT_EXPECT_GT(test, nmi_printk_dropped() - dropped,
			(unsigned long)FILL_LINE_BYTES);
	KUNIT_EXPECT_LT(test, nmi_printk_dropped() - dropped,
			(unsigned long)FILL_LINE_BYTES + 64);
}

/* ---- irq_work queued from an NMI runs after it, in IRQ context ---- */

static void nmi_work_func(struct irq_work *w)
{
	unsigned int cpu = smp_processor_id();

	(void)w;
	nmi_work_cpu[cpu] = cpu;
	nmi_work_in_nmi[cpu] = in_nmi();
	__atomic_fetch_add(&nmi_work_runs[cpu], 1, __ATOMIC_RELEASE);
}

static void irq_work_queued_in_nmi_runs_after_it(struct kunit *test)
{
	unsigned int cpu = smp_processor_id();
	unsigned long flags;
	u64 end;

	init_irq_work(&nmi_work[cpu], nmi_work_func);
	nmi_work_runs[cpu] = 0;
	nmi_work_cpu[cpu] = ~0u;
	WRITE_ONCE(queue_work_in_nmi, true);
	flags = local_irq_save();
	KUNIT_ASSERT_TRUE(test, nmi_round_trip(cpu));
	udelay(1000);
	KUNIT_EXPECT_EQ(test, READ_ONCE(nmi_work_runs[cpu]), 0); /* IRQs off */
	local_irq_restore(flags);
	end = rdtsc() + us_to_tsc(NMI_WAIT_GUARD_US);
	while (!__atomic_load_n(&nmi_work_runs[cpu], __ATOMIC_ACQUIRE) &&
	       rdtsc() < end)
		cpu_relax();
	WRITE_ONCE(queue_work_in_nmi, false);
	KUNIT_ASSERT_EQ(test, __atomic_load_n(&nmi_work_runs[cpu],
					      __ATOMIC_ACQUIRE), 1);
	irq_work_sync(&nmi_work[cpu]);
	KUNIT_EXPECT_EQ(test, nmi_work_runs[cpu], 1);
	KUNIT_EXPECT_EQ(test, nmi_work_cpu[cpu], cpu);
	KUNIT_EXPECT_FALSE(test, nmi_work_in_nmi[cpu]);
}

/* ---- unregister_nmi_handler() waits for handlers running elsewhere ---- */
/*
 * A handler on another CPU is made to be running when its owner
 * unregisters it: it announces itself, waits until the owner has started
 * unregister_nmi_handler(), then goes on for SLOW_HANDLER_SPINS more
 * iterations (a count, not a time) before it records that it left.  When
 * unregister returns, the handler must have left: after that the owner
 * tears down what the handler uses.
 */
#define SLOW_HANDLER_SPINS 200000

static unsigned int slow_target;
static bool slow_entered, slow_unregistering, slow_left;

static int slow_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	u64 end = rdtsc() + us_to_tsc(NMI_WAIT_GUARD_US);
	unsigned int k;

	(void)type;
	(void)regs;
	if (smp_processor_id() != READ_ONCE(slow_target) ||
	    READ_ONCE(slow_entered))
		return NMI_DONE;
	__atomic_store_n(&slow_entered, true, __ATOMIC_RELEASE);
	while (!__atomic_load_n(&slow_unregistering, __ATOMIC_ACQUIRE) &&
	       rdtsc() < end)
		cpu_relax();
	for (k = 0; k < SLOW_HANDLER_SPINS; k++)
		cpu_relax();
	__atomic_store_n(&slow_left, true, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

static void unregister_waits_for_a_running_handler(struct kunit *test)
{
	unsigned int other = nr_cpu_ids - 1;
	u64 end;

	if (other == smp_processor_id())
		kunit_skip(test, "needs a second CPU");
	WRITE_ONCE(slow_target, other);
	WRITE_ONCE(slow_entered, false);
	WRITE_ONCE(slow_unregistering, false);
	WRITE_ONCE(slow_left, false);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, slow_nmi_handler,
						   "nmi_test_slow"), 0);
	nmi_send(other);
	end = rdtsc() + us_to_tsc(NMI_WAIT_GUARD_US);
	while (!__atomic_load_n(&slow_entered, __ATOMIC_ACQUIRE) &&
	       rdtsc() < end)
		cpu_relax();
	if (!__atomic_load_n(&slow_entered, __ATOMIC_ACQUIRE)) {
		unregister_nmi_handler(NMI_LOCAL, "nmi_test_slow");
		KUNIT_FAIL(test, "the handler never ran on cpu%u", other);
		return;
	}
	__atomic_store_n(&slow_unregistering, true, __ATOMIC_RELEASE);
	unregister_nmi_handler(NMI_LOCAL, "nmi_test_slow");
	KUNIT_EXPECT_TRUE(test, __atomic_load_n(&slow_left, __ATOMIC_ACQUIRE));
	/* Gone for good: a later NMI does not run it. */
	WRITE_ONCE(slow_entered, false);
	KUNIT_EXPECT_TRUE(test, nmi_round_trip(other));
	KUNIT_EXPECT_FALSE(test, READ_ONCE(slow_entered));
}

/* ---- an NMI to a CPU that is not online is refused ---- */

/* Its per-CPU area has APIC id 0 (never filled in): the NMI would reach
 * the boot CPU, and one to an AP before its IDT loads (or a CPU parked
 * after a failed start) would triple-fault the machine. */
static void nmi_send_refuses_a_cpu_that_is_not_online(struct kunit *test)
{
	kunit_expect_report(test, "is not online");
	KUNIT_EXPECT_FALSE(test, nmi_send(nr_cpu_ids));   /* never came up */
	KUNIT_EXPECT_FALSE(test, nmi_send(NR_CPUS));      /* no such CPU */
	kunit_expect_report_done(test);
	KUNIT_EXPECT_TRUE(test, nmi_round_trip(smp_processor_id()));
}

/* ---- an NMI before nmi_init() is reported and ignored ---- */

/* As if it came between idt_init() and nmi_init() at boot (firmware or a
 * board's watchdog may send one): the entry point is not installed yet. */
static void an_nmi_before_nmi_init_is_reported_and_ignored(struct kunit *test)
{
	void (*entry)(struct pt_regs *) = nmi_entry_handler;
	unsigned long before = READ_ONCE(nmis_before_init);
	u64 end = rdtsc() + us_to_tsc(NMI_WAIT_GUARD_US);
	unsigned long flags = local_irq_save();

	WRITE_ONCE(nmi_entry_handler, NULL);
	nmi_send_self();
	while (READ_ONCE(nmis_before_init) == before && rdtsc() < end)
		cpu_relax();
	WRITE_ONCE(nmi_entry_handler, entry);
	local_irq_restore(flags);
	printk_flush_nmi();
	KUNIT_EXPECT_GT(test, READ_ONCE(nmis_before_init), before);
	KUNIT_EXPECT_FALSE(test, in_nmi());
	KUNIT_EXPECT_TRUE(test, nmi_round_trip(smp_processor_id()));
}

/* ---- KUNIT_ASSERT in an NMI handler ---- */

/*
 * An assertion that fails in an NMI cannot abandon the case: its longjmp()
 * would leave the NMI without IRET (NMIs blocked on this CPU for good) and
 * in_nmi() true.  It must record the failure and let the handler go on.
 * The handler asserts on a private struct kunit, so the case itself can
 * pass and check what happened to it.
 */
static struct kunit nmi_assert_probe;
static bool nmi_assert_armed[NR_CPUS];
static bool nmi_assert_went_on[NR_CPUS];
static bool nmi_assert_holds;   /* false: the assertion fails */

static int nmi_assert_handler(unsigned int type, struct pt_regs *regs)
{
	unsigned int me = smp_processor_id();

	(void)type;
	(void)regs;
	if (!__atomic_exchange_n(&nmi_assert_armed[me], false, __ATOMIC_ACQ_REL))
		return NMI_DONE;
	KUNIT_ASSERT_TRUE(&nmi_assert_probe, READ_ONCE(nmi_assert_holds));
	__atomic_store_n(&nmi_assert_went_on[me], true, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

static void kunit_assert_in_an_nmi_does_not_leave_it(struct kunit *test)
{
	unsigned int me = smp_processor_id();
	u64 end = rdtsc() + us_to_tsc(NMI_WAIT_GUARD_US);
	volatile bool landed = false;

	memset(&nmi_assert_probe, 0, sizeof(nmi_assert_probe));
	nmi_assert_probe.name = "nmi_assert_probe";
	nmi_assert_went_on[me] = false;
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL, nmi_assert_handler,
						   "nmi_assert"), 0);
	if (setjmp(nmi_assert_probe.abort_point) == 0) {
		__atomic_store_n(&nmi_assert_armed[me], true, __ATOMIC_RELEASE);
		nmi_send_self();
		while (!__atomic_load_n(&nmi_assert_went_on[me], __ATOMIC_ACQUIRE) &&
		       rdtsc() < end)
			cpu_relax();
	} else {
		landed = true;   /* the old way: out of the NMI, no IRET */
	}
	unregister_nmi_handler(NMI_LOCAL, "nmi_assert");
	KUNIT_EXPECT_FALSE(test, in_nmi());
	KUNIT_EXPECT_FALSE(test, landed);
	KUNIT_EXPECT_TRUE(test, nmi_assert_went_on[me]);
	KUNIT_EXPECT_EQ(test, nmi_assert_probe.status, KUNIT_FAILURE);
	KUNIT_EXPECT_TRUE(test, nmi_round_trip(me));   /* NMIs still open */
}

static struct kunit_case nmi_cases[] = {
	KUNIT_CASE(nmi_context_is_visible_and_on_ist),
	KUNIT_CASE(every_cpu_nmis_every_cpu_exactly),
	KUNIT_CASE(nmi_arrives_with_irqs_off_and_a_lock_held),
	KUNIT_CASE(nmi_send_allbutself_reaches_the_others),
	KUNIT_CASE(nmi_printk_keeps_every_line_whole),
	KUNIT_CASE(nmi_printk_fills_its_buffer_whole),
	KUNIT_CASE(irq_work_queued_in_nmi_runs_after_it),
	KUNIT_CASE(unregister_waits_for_a_running_handler),
	KUNIT_CASE(nmi_send_refuses_a_cpu_that_is_not_online),
	KUNIT_CASE(an_nmi_before_nmi_init_is_reported_and_ignored),
	KUNIT_CASE(kunit_assert_in_an_nmi_does_not_leave_it),
	{}
};

static struct kunit_suite nmi_suite = {
	.name = "nmi",
	.suite_init = nmi_suite_init,
	.suite_exit = nmi_suite_exit,
	.init = nmi_case_init,
	.exit = nmi_case_exit,
	.test_cases = nmi_cases,
};
kunit_test_suite(nmi_suite);
