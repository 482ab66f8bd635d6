/*
 * test_lib.c - host tests of the kernel's library code: vsnprintf (built
 * here as kernel_vsnprintf, see the Makefile), the command-line parser and
 * the KUnit filter globs.  The results are compared with what the C
 * standard says, so a regression in any conversion shows up here first,
 * under AddressSanitizer, before a boot would show garbled output.
 */
#include <kunit.h>
#include <printk.h>
#include <string.h>
#include "../../kernel/cmdline.h"

#define CHECK_FMT(test, expect, ...)                                          \
	do {                                                                  \
		char b[128];                                                  \
		int n = snprintf(b, sizeof(b), __VA_ARGS__);                  \
		KUNIT_EXPECT_STREQ(test, b, expect);                          \
		KUNIT_EXPECT_EQ(test, n, (int)strlen(expect));                \
	} while (0)

static void vsnprintf_integers(struct kunit *test)
{
	CHECK_FMT(test, "0", "%d", 0);
	CHECK_FMT(test, "-2147483648", "%d", (int)0x80000000u);
	CHECK_FMT(test, "4294967295", "%u", 0xffffffffu);
	CHECK_FMT(test, "-9223372036854775808", "%lld", (long long)(1ull << 63));
	CHECK_FMT(test, "18446744073709551615", "%llu", ~0ull);
	CHECK_FMT(test, "ffffffffffffffff", "%lx", ~0ul);
	CHECK_FMT(test, "DEAD", "%X", 0xdead);
	CHECK_FMT(test, "17", "%i", 17);
	CHECK_FMT(test, "42", "%zu", (size_t)42);
	CHECK_FMT(test, "777", "%o", 0777);
	CHECK_FMT(test, "0x1f", "%#x", 0x1f);
}

static void vsnprintf_widths_and_padding(struct kunit *test)
{
	CHECK_FMT(test, "   42", "%5d", 42);
	CHECK_FMT(test, "00042", "%05d", 42);
	CHECK_FMT(test, "-0042", "%05d", -42);
	CHECK_FMT(test, "42   |", "%-5d|", 42);
	CHECK_FMT(test, "0000beef", "%08x", 0xbeef);
	CHECK_FMT(test, "00000000000000ff", "%016llx", 0xffull);
	CHECK_FMT(test, "  abc", "%5s", "abc");
	CHECK_FMT(test, "abc  |", "%-5s|", "abc");
	CHECK_FMT(test, "ab", "%.2s", "abcdef");
	CHECK_FMT(test, "abc", "%.*s", 3, "abcdef");
	CHECK_FMT(test, "   7", "%*d", 4, 7);
	CHECK_FMT(test, "+5", "%+d", 5);
}

static void vsnprintf_other_conversions(struct kunit *test)
{
	const char *volatile nothing = NULL; /* hidden from -Wformat */

	CHECK_FMT(test, "x", "%c", 'x');
	CHECK_FMT(test, "100%", "100%%");
	CHECK_FMT(test, "(null)", "%s", nothing);
	CHECK_FMT(test, "0x00000000deadbeef", "%p", (void *)0xdeadbeef);
	CHECK_FMT(test, "a=1 b=two c=3", "a=%d b=%s c=%lu", 1, "two", 3ul);
}

static void vsnprintf_truncates_safely(struct kunit *test)
{
	char b[8];
	int n;

	memset(b, 'Z', sizeof(b));
	n = snprintf(b, 5, "%s", "abcdefgh");
	KUNIT_EXPECT_EQ(test, n, 8);           /* the length it wanted */
	KUNIT_EXPECT_STREQ(test, b, "abcd");   /* cut and terminated */
	KUNIT_EXPECT_EQ(test, b[5], 'Z');      /* nothing written past size */
	n = snprintf(b, 0, "%d", 12345);
	KUNIT_EXPECT_EQ(test, n, 5);
	KUNIT_EXPECT_EQ(test, b[0], 'a');      /* size 0 writes nothing */
}

static void cmdline_key_values_and_flags(struct kunit *test)
{
	static struct cmdline cl;

	cmdline_parse(&cl, "  test=slab*,buddy.split seed=42 nox2apic  loglevel=7 ");
	KUNIT_ASSERT_EQ(test, cl.nr_opts, 4);
	KUNIT_EXPECT_STREQ(test, cmdline_get_from(&cl, "test"), "slab*,buddy.split");
	KUNIT_EXPECT_STREQ(test, cmdline_get_from(&cl, "seed"), "42");
	KUNIT_EXPECT_STREQ(test, cmdline_get_from(&cl, "nox2apic"), "");
	KUNIT_EXPECT_STREQ(test, cmdline_get_from(&cl, "loglevel"), "7");
	KUNIT_EXPECT_NULL(test, cmdline_get_from(&cl, "missing"));
}

static void cmdline_quotes_repeats_and_empty(struct kunit *test)
{
	static struct cmdline cl;

	cmdline_parse(&cl, "msg=\"two words\" seed=1 seed=2");
	KUNIT_EXPECT_STREQ(test, cmdline_get_from(&cl, "msg"), "two words");
	KUNIT_EXPECT_STREQ(test, cmdline_get_from(&cl, "seed"), "2");
	cmdline_parse(&cl, "");
	KUNIT_EXPECT_EQ(test, cl.nr_opts, 0);
	cmdline_parse(&cl, NULL);
	KUNIT_EXPECT_EQ(test, cl.nr_opts, 0);
}

static void cmdline_too_many_options_are_counted(struct kunit *test)
{
	static struct cmdline cl;
	char text[CMDLINE_MAX];
	size_t len = 0;
	int i;

	text[0] = '\0';
	for (i = 0; i < CMDLINE_MAX_OPTS + 3; i++)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "k%d ", i);
	cmdline_parse(&cl, text);
	KUNIT_EXPECT_EQ(test, cl.nr_opts, CMDLINE_MAX_OPTS);
	KUNIT_EXPECT_EQ(test, cl.dropped, 3);
}

static void cmdline_numbers(struct kunit *test)
{
	u64 v = 0;

	KUNIT_EXPECT_TRUE(test, cmdline_parse_u64("12345", &v));
	KUNIT_EXPECT_EQ(test, v, 12345);
	KUNIT_EXPECT_TRUE(test, cmdline_parse_u64("0xFFff", &v));
	KUNIT_EXPECT_EQ(test, v, 0xffff);
	KUNIT_EXPECT_TRUE(test, cmdline_parse_u64("18446744073709551615", &v));
	KUNIT_EXPECT_EQ(test, v, ~0ull);
	KUNIT_EXPECT_FALSE(test, cmdline_parse_u64("18446744073709551616", &v));
	KUNIT_EXPECT_FALSE(test, cmdline_parse_u64("12a", &v));
	KUNIT_EXPECT_FALSE(test, cmdline_parse_u64("", &v));
	KUNIT_EXPECT_FALSE(test, cmdline_parse_u64("0x", &v));
	KUNIT_EXPECT_FALSE(test, cmdline_parse_u64(NULL, &v));
}

static void kunit_filters(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, kunit_glob_match("slab*", "slab_sheaves"));
	KUNIT_EXPECT_TRUE(test, kunit_glob_match("*", ""));
	KUNIT_EXPECT_TRUE(test, kunit_glob_match("a*c*e", "abcde"));
	KUNIT_EXPECT_FALSE(test, kunit_glob_match("slab", "slab_sheaves"));
	KUNIT_EXPECT_FALSE(test, kunit_glob_match("a*c", "abcd"));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match(NULL, "any", NULL));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("x,buddy", "buddy", "c"));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("buddy.split*", "buddy", NULL));
	KUNIT_EXPECT_TRUE(test, kunit_filter_match("buddy.split*", "buddy",
						   "split_order"));
	KUNIT_EXPECT_FALSE(test, kunit_filter_match("buddy.split*", "buddy",
						    "coalesce"));
	KUNIT_EXPECT_FALSE(test, kunit_filter_match("slab", "buddy", NULL));
}

static struct kunit_case lib_cases[] = {
	KUNIT_CASE(vsnprintf_integers),
	KUNIT_CASE(vsnprintf_widths_and_padding),
	KUNIT_CASE(vsnprintf_other_conversions),
	KUNIT_CASE(vsnprintf_truncates_safely),
	KUNIT_CASE(cmdline_key_values_and_flags),
	KUNIT_CASE(cmdline_quotes_repeats_and_empty),
	KUNIT_CASE(cmdline_too_many_options_are_counted),
	KUNIT_CASE(cmdline_numbers),
	KUNIT_CASE(kunit_filters),
	{}
};

static struct kunit_suite lib_suite = {
	.name = "lib",
	.test_cases = lib_cases,
};
kunit_test_suite(lib_suite);
