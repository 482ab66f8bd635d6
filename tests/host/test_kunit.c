/*
 * test_kunit.c - host tests of the test framework itself (kernel/kunit.c):
 * the assertion macros take any expression, as Linux's do; a suite whose
 * cases all skip is reported skipped; and expected reports.  A declared report is tagged and counted; an undeclared
 * one is counted as unexpected; a declared one that never comes fails the
 * case.  The failing outcomes are checked on a second, private struct kunit
 * made the "running case" for a moment, so this suite itself passes.
 */
#include <kunit.h>
#include <kernel.h>
#include <printk.h>
#include <string.h>

/* Run `fn` as if `fake` were the running case; the real one comes back. */
static void as_fake_case(struct kunit *fake, void (*fn)(struct kunit *))
{
	struct kunit *real = kunit_current_test;

	memset(fake, 0, sizeof(*fake));
	fake->name = "fake_case";
	fake->status = KUNIT_SUCCESS;
	kunit_current_test = fake;
	fn(fake);
	kunit_current_test = real;
}

static void expected_warning_is_counted(struct kunit *test)
{
	int provoked = 1;

	kunit_expect_report(test, "WARNING: provoked");
	WARN_ON(provoked);
	KUNIT_EXPECT_EQ(test, test->expected_reports[0].seen, 1);
	KUNIT_EXPECT_EQ(test, test->unexpected_reports, 0);
	kunit_expect_report_done(test);
	KUNIT_EXPECT_EQ(test, test->nr_expected_reports, 0);
	KUNIT_EXPECT_EQ(test, test->status, KUNIT_SUCCESS);
}

static void expect_report_macro(struct kunit *test)
{
	KUNIT_EXPECT_REPORT(test, "BUG test-cache: made up",
			    kunit_print_report(LOGLEVEL_ERR,
					       "BUG test-cache: made up %d", 1));
	KUNIT_EXPECT_EQ(test, test->unexpected_reports, 0);
}

static void declare_and_print_nothing(struct kunit *fake)
{
	kunit_expect_report(fake, "WARNING: never printed");
	kunit_expect_report_done(fake);
}

static void absent_report_fails_the_case(struct kunit *test)
{
	struct kunit fake;

	as_fake_case(&fake, declare_and_print_nothing);
	KUNIT_EXPECT_EQ(test, fake.status, KUNIT_FAILURE);
}

static void print_other_report(struct kunit *fake)
{
	kunit_expect_report(fake, "double free");
	/* Not in a report format: the harness must not see it as one. */
	kunit_print_report(LOGLEVEL_ERR, "(made-up report) something else");
	kunit_expect_report_done(fake);
}

static void other_report_is_unexpected(struct kunit *test)
{
	struct kunit fake;

	as_fake_case(&fake, print_other_report);
	KUNIT_EXPECT_EQ(test, fake.unexpected_reports, 1);
	KUNIT_EXPECT_EQ(test, fake.expected_reports[0].seen, 0);
	KUNIT_EXPECT_EQ(test, fake.status, KUNIT_FAILURE);
}

/* ---- the macros take what Linux's take ---- */

static void expect_true_takes_any_expression(struct kunit *test)
{
	int a = 3, b = 3;

	KUNIT_EXPECT_TRUE(test, a == b);
	KUNIT_EXPECT_FALSE(test, a != b);
	KUNIT_EXPECT_TRUE(test, 1);
	KUNIT_ASSERT_TRUE(test, a == b);
	KUNIT_ASSERT_FALSE(test, 0);
}

static void fail_constant_expectation(struct kunit *fake)
{
	KUNIT_EXPECT_TRUE(fake, 0);
}

static void expect_true_of_zero_fails(struct kunit *test)
{
	struct kunit fake;

	as_fake_case(&fake, fail_constant_expectation);
	KUNIT_EXPECT_EQ(test, fake.status, KUNIT_FAILURE);
}

static struct kunit_case kunit_framework_cases[] = {
	KUNIT_CASE(expected_warning_is_counted),
	KUNIT_CASE(expect_report_macro),
	KUNIT_CASE(absent_report_fails_the_case),
	KUNIT_CASE(other_report_is_unexpected),
	KUNIT_CASE(expect_true_takes_any_expression),
	KUNIT_CASE(expect_true_of_zero_fails),
	{}
};

static struct kunit_suite kunit_framework = {
	.name = "kunit_framework",
	.test_cases = kunit_framework_cases,
};
kunit_test_suite(kunit_framework);

/*
 * A suite whose every case skips: KTAP says the suite is then skipped, and
 * its result line must say `# SKIP` (tests/harness/ktap.py fails the run
 * when it does not, so this suite is the test of the runner).
 */
static void skips_always(struct kunit *test)
{
	kunit_skip(test, "nothing to run here");
}

static void skips_too(struct kunit *test)
{
	kunit_mark_skipped(test, "marked, then returns");
}

static struct kunit_case kunit_all_skipped_cases[] = {
	KUNIT_CASE(skips_always),
	KUNIT_CASE(skips_too),
	{}
};

static struct kunit_suite kunit_all_skipped = {
	.name = "kunit_all_skipped",
	.test_cases = kunit_all_skipped_cases,
};
kunit_test_suite(kunit_all_skipped);
