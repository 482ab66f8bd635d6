/*
 * broken_host_tests.c - host test cases that are wrong on purpose, the host
 * program's counterpart of broken_tests.c.
 *
 * `make test` and `make host-tests` build them into their own program
 * (build/<cc>/host/broken_host_tests, never into the real host tests) and
 * run it once per suite (HOST_CHECKS in run_tests.py).  Each run must fail
 * and the harness must say why: a case that hangs must end in the host
 * timeout naming the case, an undeclared WARNING must fail the run.
 */
#include <kunit.h>
#include <kernel.h>
#include <unistd.h>

static void passes_first(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, 2 + 2, 4);
}

/* Blocked for good, using no CPU: only the harness's timeout ends it. */
static void sleep_forever(struct kunit *test)
{
	kunit_info(test, "sleeping forever");
	for (;;)
		pause();
}

static struct kunit_case broken_host_hang_cases[] = {
	KUNIT_CASE(passes_first),
	KUNIT_CASE(sleep_forever),
	{}
};

static struct kunit_suite broken_host_hang = {
	.name = "broken_host_hang",
	.test_cases = broken_host_hang_cases,
};
kunit_test_suite(broken_host_hang);

static void warn_undeclared(struct kunit *test)
{
	volatile int wrong = 1;

	(void)test;
	WARN_ON(wrong);
}

static struct kunit_case broken_host_warning_cases[] = {
	KUNIT_CASE(warn_undeclared),
	{}
};

static struct kunit_suite broken_host_warning = {
	.name = "broken_host_warning",
	.test_cases = broken_host_warning_cases,
};
kunit_test_suite(broken_host_warning);
