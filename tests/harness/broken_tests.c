/*
 * broken_tests.c - tests that are wrong on purpose.
 *
 * `make test` builds a second kernel with this file as EXTRA_TESTS and boots
 * it once per suite below (test=<suite>).  Each boot must fail, and the
 * harness must say why: a failed expectation, a page fault, a hang.  If the
 * harness ever passed one of these, it could pass a broken kernel too.
 * Never part of the normal test kernel.
 */
#include <kunit.h>

static void expect_two_plus_two_is_five(struct kunit *test)
{
	int two = 2;

	KUNIT_EXPECT_EQ(test, two + two, 5);
}

static struct kunit_case broken_expect_cases[] = {
	KUNIT_CASE(expect_two_plus_two_is_five),
	{}
};

static struct kunit_suite broken_expect = {
	.name = "broken_expect",
	.test_cases = broken_expect_cases,
};
kunit_test_suite(broken_expect);

static void write_through_null(struct kunit *test)
{
	volatile int *p = NULL;

	kunit_info(test, "about to write through a NULL pointer");
	*p = 1;
	KUNIT_FAIL(test, "still running after a NULL write");
}

static struct kunit_case broken_pagefault_cases[] = {
	KUNIT_CASE(write_through_null),
	{}
};

static struct kunit_suite broken_pagefault = {
	.name = "broken_pagefault",
	.test_cases = broken_pagefault_cases,
};
kunit_test_suite(broken_pagefault);

static void spin_forever(struct kunit *test)
{
	volatile int forever = 1;

	kunit_info(test, "spinning with interrupts off");
	__asm__ __volatile__("cli");
	while (forever)
		;
}

static struct kunit_case broken_hang_cases[] = {
	KUNIT_CASE(spin_forever),
	{}
};

static struct kunit_suite broken_hang = {
	.name = "broken_hang",
	.test_cases = broken_hang_cases,
};
kunit_test_suite(broken_hang);
