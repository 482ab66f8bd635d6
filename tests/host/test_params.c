/*
 * test_params.c - host tests of the boot options table (kernel/params.c):
 * every mistake a user can make on the command line gets one line that
 * names the option, the value and what is allowed, and the option keeps
 * its default; every value the table allows is taken as written.
 *
 * The cases check the kernel's own state (kernel_params) through the same
 * accessors the kernel uses, after params_check() of a parsed line.
 */
#include <kunit.h>
#include <printk.h>
#include <string.h>
#include "../../kernel/cmdline.h"
#include "../../kernel/params.h"

#define REPORT_LINES 8
#define REPORT_LINE_MAX 512   /* printk's longest line */

static struct {
	char line[REPORT_LINES][REPORT_LINE_MAX];
	unsigned int n;
} reports;

static void collect(const char *line)
{
	if (reports.n < REPORT_LINES)
		strlcpy(reports.line[reports.n], line, REPORT_LINE_MAX);
	reports.n++;
}

/* Parse and check text as the kernel's own command line. */
static unsigned int check_line(const char *text)
{
	static struct cmdline cl;

	memset(&reports, 0, sizeof(reports));
	cmdline_parse(&cl, text);
	return params_check(&cl, &kernel_params, collect);
}

static bool reported(const char *needle)
{
	unsigned int i;

	for (i = 0; i < reports.n && i < REPORT_LINES; i++)
		if (strstr(reports.line[i], needle))
			return true;
	return false;
}

/* One bad value: exactly one line, naming it and what is allowed. */
#define EXPECT_REFUSED(test, text, allowed) do {			\
	KUNIT_EXPECT_EQ(test, check_line(text), 1);			\
	KUNIT_EXPECT_EQ(test, reports.n, 1);				\
	KUNIT_EXPECT_TRUE(test, reported(text));			\
	KUNIT_EXPECT_TRUE(test, reported(allowed));			\
} while (0)

static void numbers_out_of_range_keep_the_default(struct kunit *test)
{
	/* 2^32 used to be cut to 32 bits: a 0 s threshold. */
	EXPECT_REFUSED(test, "watchdog_thresh=4294967296",
		       "a number from 1 to 3600 seconds; using 4");
	KUNIT_EXPECT_EQ(test, param_number(PARAM_WATCHDOG_THRESH), 4);
	EXPECT_REFUSED(test, "watchdog_thresh=99999999999", "using 4");
	EXPECT_REFUSED(test, "watchdog_thresh=0", "from 1 to 3600");
	KUNIT_EXPECT_EQ(test, param_number(PARAM_WATCHDOG_THRESH), 4);
	EXPECT_REFUSED(test, "ap_timeout_ms=0", "from 1 to 600000 ms");
	KUNIT_EXPECT_EQ(test, param_number(PARAM_AP_TIMEOUT_MS), 2000);
	EXPECT_REFUSED(test, "loglevel=8", "from 0 to 7");
	EXPECT_REFUSED(test, "seed=abc", "a number from 0 to 18446744073709551615; using one from the TSC");
	KUNIT_EXPECT_FALSE(test, param_given(PARAM_SEED));
	EXPECT_REFUSED(test, "seed=-1", "a number");
	EXPECT_REFUSED(test, "watchdog_thresh=", "a number");
}

static void numbers_in_range_are_taken(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, check_line("watchdog_thresh=120 seed=0xff "
					  "seed=18446744073709551615 loglevel=0 "
					  "ap_timeout_ms=600000"), 0);
	KUNIT_EXPECT_EQ(test, reports.n, 0);
	KUNIT_EXPECT_EQ(test, param_number(PARAM_WATCHDOG_THRESH), 120);
	KUNIT_EXPECT_TRUE(test, param_given(PARAM_SEED));
	KUNIT_EXPECT_EQ(test, param_number(PARAM_SEED), ~0ull);  /* last */
	KUNIT_EXPECT_EQ(test, param_number(PARAM_LOGLEVEL), 0);
	KUNIT_EXPECT_EQ(test, param_number(PARAM_AP_TIMEOUT_MS), 600000);
}

static void flags_say_on_or_off(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, check_line("page_poison nowatchdog"), 0);
	KUNIT_EXPECT_TRUE(test, param_flag(PARAM_PAGE_POISON));
	KUNIT_EXPECT_TRUE(test, param_flag(PARAM_NOWATCHDOG));
	/* page_poison=off used to turn poisoning on, nowatchdog=0 the
	 * watchdog off. */
	KUNIT_EXPECT_EQ(test, check_line("page_poison=off nowatchdog=0 "
					  "nox2apic=yes"), 0);
	KUNIT_EXPECT_FALSE(test, param_flag(PARAM_PAGE_POISON));
	KUNIT_EXPECT_FALSE(test, param_flag(PARAM_NOWATCHDOG));
	KUNIT_EXPECT_TRUE(test, param_flag(PARAM_NOX2APIC));
	EXPECT_REFUSED(test, "page_poison=maybe",
		       "no value, or on/off (1/0, yes/no, true/false); using off");
	KUNIT_EXPECT_FALSE(test, param_flag(PARAM_PAGE_POISON));
}

static void choices_are_exact_words(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, check_line("acpi=off"), 0);
	KUNIT_EXPECT_EQ(test, param_choice(PARAM_ACPI), PARAM_ACPI_OFF);
	EXPECT_REFUSED(test, "acpi=OFF", "one of: on, off; using on");
	KUNIT_EXPECT_EQ(test, param_choice(PARAM_ACPI), PARAM_ACPI_ON);
}

static void unknown_options_are_named(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, check_line("test=boot bogus=1 nowatchdg"), 2);
	KUNIT_EXPECT_EQ(test, reports.n, 2);
	KUNIT_EXPECT_TRUE(test, reported("unknown option 'bogus' ignored"));
	KUNIT_EXPECT_TRUE(test, reported("unknown option 'nowatchdg' ignored"));
	KUNIT_EXPECT_TRUE(test, reported("the options are: acpi ap_timeout_ms"));
	/* The good option next to them still counts. */
	KUNIT_EXPECT_STREQ(test, param_text(PARAM_TEST), "boot");
	KUNIT_EXPECT_NULL(test, param_text(PARAM_BENCH));
}

/*
 * A value or key too long for one report line: the line is cut, but what
 * is allowed must still be in it (the value is shown shortened).
 */
static void long_values_still_say_what_is_allowed(struct kunit *test)
{
	static char text[400];

	strlcpy(text, "loglevel=", sizeof(text));
	memset(text + strlen(text), '9', 300);
	KUNIT_EXPECT_EQ(test, check_line(text), 1);
	KUNIT_EXPECT_EQ(test, reports.n, 1);
	KUNIT_EXPECT_TRUE(test, reported("loglevel=999"));
	KUNIT_EXPECT_TRUE(test, reported("a number from 0 to 7; using 6"));

	memset(text, 'k', 300);
	text[300] = '\0';
	KUNIT_EXPECT_EQ(test, check_line(text), 1);
	KUNIT_EXPECT_TRUE(test, reported("unknown option 'kkk"));
	KUNIT_EXPECT_TRUE(test, reported("watchdog_thresh"));
}

/*
 * A repeated option: the last one counts, so a bad value followed by a
 * good one must not claim the default is used.
 */
static void a_repeated_option_reports_what_is_used(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, check_line("loglevel=99 loglevel=3"), 1);
	KUNIT_EXPECT_EQ(test, param_number(PARAM_LOGLEVEL), 3);
	KUNIT_EXPECT_TRUE(test, reported("loglevel=99"));
	KUNIT_EXPECT_FALSE(test, reported("using 6"));
	KUNIT_EXPECT_TRUE(test, reported("the later loglevel= counts"));
}

/*
 * A quote never closed takes the rest of the line into its value: the
 * options after it vanish, so it must be reported, not taken.
 */
static void an_unclosed_quote_is_reported(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, check_line("test=\"boot nowatchdog"), 1);
	KUNIT_EXPECT_EQ(test, reports.n, 1);
	KUNIT_EXPECT_TRUE(test, reported("test="));
	KUNIT_EXPECT_TRUE(test, reported("no closing quote"));
	KUNIT_EXPECT_NULL(test, param_text(PARAM_TEST));
	/* A closed one is fine. */
	KUNIT_EXPECT_EQ(test, check_line("test=\"a b\" nowatchdog"), 0);
	KUNIT_EXPECT_STREQ(test, param_text(PARAM_TEST), "a b");
	KUNIT_EXPECT_TRUE(test, param_flag(PARAM_NOWATCHDOG));
}

/* The table itself: what README lists must be consistent. */
static void the_table_is_consistent(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < NR_KERNEL_PARAMS; i++) {
		const struct kernel_param *p = &kernel_param_table[i];

		KUNIT_ASSERT_NOT_NULL(test, p->name);
		KUNIT_EXPECT_NOT_NULL(test, p->help);
		if (i)   /* sorted, so the "options are" list reads well */
			KUNIT_EXPECT_LT(test, strcmp(kernel_param_table[i - 1].name,
						     p->name), 0);
		if (p->type == PARAM_NUMBER) {
			KUNIT_EXPECT_LE(test, p->min, p->def);
			KUNIT_EXPECT_LE(test, p->def, p->max);
		}
		if (p->type == PARAM_CHOICE)
			KUNIT_EXPECT_NOT_NULL(test, p->choices[p->def]);
	}
	/* Nothing given: every option has its default. */
	KUNIT_EXPECT_EQ(test, check_line(""), 0);
	KUNIT_EXPECT_EQ(test, param_number(PARAM_LOGLEVEL), LOGLEVEL_DEFAULT);
	KUNIT_EXPECT_FALSE(test, param_flag(PARAM_PAGE_POISON));
}

/* test= or bench= with nothing after them would run everything. */
static void empty_filters_are_refused(struct kunit *test)
{
	EXPECT_REFUSED(test, "test=", "some text; using nothing");
	KUNIT_EXPECT_NULL(test, param_text(PARAM_TEST));
	EXPECT_REFUSED(test, "bench", "some text");
	KUNIT_EXPECT_NULL(test, param_text(PARAM_BENCH));
	/* A bare slub_debug means every check on every cache, as in Linux. */
	KUNIT_EXPECT_EQ(test, check_line("slub_debug"), 0);
	KUNIT_EXPECT_STREQ(test, param_text(PARAM_SLUB_DEBUG), "");
}

static struct kunit_case params_cases[] = {
	KUNIT_CASE(empty_filters_are_refused),
	KUNIT_CASE(numbers_out_of_range_keep_the_default),
	KUNIT_CASE(numbers_in_range_are_taken),
	KUNIT_CASE(flags_say_on_or_off),
	KUNIT_CASE(choices_are_exact_words),
	KUNIT_CASE(unknown_options_are_named),
	KUNIT_CASE(the_table_is_consistent),
	KUNIT_CASE(long_values_still_say_what_is_allowed),
	KUNIT_CASE(a_repeated_option_reports_what_is_used),
	KUNIT_CASE(an_unclosed_quote_is_reported),
	{}
};

static struct kunit_suite params_suite = {
	.name = "kernel_params",
	.test_cases = params_cases,
};
kunit_test_suite(params_suite);
