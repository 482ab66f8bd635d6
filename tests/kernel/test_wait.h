/*
 * test_wait.h - how a self-test waits for something another CPU, an NMI or
 * an interrupt does.
 *
 * Wait for the event itself, never for a fixed window: under QEMU's TCG a
 * virtual CPU is a host thread, and on a loaded host (or with more virtual
 * CPUs than host cores) the host may not run it for a second or more.  A
 * window sized for an idle host ("five ticks' worth", "1 ms") then ends
 * before the event, and the test fails for the host's load, not for the
 * kernel.  So a test spins until the event happens, and gives up only at
 * TEST_EVENT_DEADLINE_US, a deadline far beyond any stall seen on our
 * machines: it is there for the event that never comes, and reaching it
 * fails the test.
 *
 * A fixed window stays right where the test checks that something does
 * NOT happen (an irq_work that must not run while IRQs are off): there the
 * host's load can only make the test pass more easily, never fail it.
 *
 *	u64 end = test_deadline();
 *
 *	while (!event_happened())
 *		if (test_deadline_passed(end))
 *			return false;
 */
#ifndef TESTS_KERNEL_TEST_WAIT_H
#define TESTS_KERNEL_TEST_WAIT_H

#include <types.h>
#include "../../arch/x86_64/cpu.h"
#include "../../kernel/timekeeping.h"

#define TEST_EVENT_DEADLINE_US (30ull * 1000 * 1000)   /* only if it never comes */

/* The TSC at which a wait that starts now gives up. */
static inline u64 test_deadline(void)
{
	return rdtsc() + us_to_tsc(TEST_EVENT_DEADLINE_US);
}

/* True once the deadline has passed; a pause otherwise, for the spin. */
static inline bool test_deadline_passed(u64 end)
{
	if (rdtsc() > end)
		return true;
	cpu_relax();
	return false;
}

#endif
