/*
 * kunit.h - the self-test framework, with Linux KUnit's names.
 *
 * A test file defines cases (functions taking a struct kunit *), lists them
 * with KUNIT_CASE() in a struct kunit_case array ending in {}, wraps them in
 * a struct kunit_suite and registers the suite with kunit_test_suite().  The
 * registration puts a pointer to the suite in the `kunit_test_suites` linker
 * section, so a learner adds a test by adding a file: no table to edit.
 *
 * KUNIT_EXPECT_*() records a failure and lets the case go on;
 * KUNIT_ASSERT_*() records it and abandons the case at once (the runner
 * longjmp()s back to where it started the case, then runs suite->exit).
 * In an NMI, IRQ or exception (#DB) handler an assertion cannot jump out
 * (that would skip the IRET), nor on another CPU than the one running the
 * case (runner_cpu: the jump would land on that CPU's stack): there it
 * records the failure and returns, like an EXPECT.
 * kunit_skip() abandons the case and reports it as skipped; called from a
 * handler or another CPU, where it cannot jump, it panics saying so.
 *
 * The runner prints KTAP version 1 (Documentation/dev-tools/ktap.rst in
 * Linux): one top-level test per suite, one subtest per case, failure
 * details as `#` diagnostic lines, and a last line `N passed, N failed`.
 *
 * The same header and runner build into the host test programs, so a test
 * of mm/ logic can run under AddressSanitizer and in the kernel unchanged.
 *
 * Expected reports.  A report is what the kernel prints when something is
 * wrong: `WARNING: ...` (WARN_ON), `BUG <cache>: ...` (slab_bug),
 * `BUG: ...` (bad page free, page poison), `kmem_cache_destroy <cache>: N
 * objects still allocated`.  Every such first line goes through
 * kunit_print_report().  A report nobody declared fails the case running
 * (and tests/harness fails the run on the line itself, in or out of a case).
 * A test that provokes one on purpose declares it first:
 *
 *	kunit_expect_report(test, "double free");
 *	kfree(p);                            the second free of p
 *	kunit_expect_report_done(test);      fails the case if none came
 *
 * or in one line KUNIT_EXPECT_REPORT(test, "double free", kfree(p)).  While
 * declared, a report whose first line contains the substring is printed
 * with the tag ` [expected by suite.case]` at its end; the declaration
 * itself is printed as `# case: expecting a report containing "..."`, and
 * the harness accepts a tagged line only if that case declared a substring
 * the line contains.  The decision is taken where the report is printed,
 * from any context (NMI and IRQ included, on any CPU: the declarations are
 * read with atomic loads and the match is counted with an atomic add), so a
 * report an NMI prints into its buffer is tagged even if the buffer reaches
 * the console after the case ended.  Declarations still open when a case
 * ends are closed (and checked) by the runner.  Up to
 * KUNIT_MAX_EXPECTED_REPORTS may be open at once.  Declaring re-arms every
 * WARN_ON_ONCE() (clear_warn_once(), include/kernel.h), so a once-only
 * warning comes again for each test that provokes it.
 */
#ifndef KUNIT_H
#define KUNIT_H

#include <compiler.h>
#include <setjmp.h>

enum kunit_status {
	KUNIT_SUCCESS,
	KUNIT_FAILURE,
	KUNIT_SKIPPED,
};

#define KUNIT_STATUS_MSG_LEN 128

#define KUNIT_MAX_EXPECTED_REPORTS 4

/* A declared report: its first line contains `substring`. */
struct kunit_expected_report {
	const char *substring;
	const char *file;       /* where it was declared */
	int line;
	unsigned long seen;     /* reports that matched (atomic) */
};

struct kunit {
	const char *name;       /* the running case */
	enum kunit_status status;
	char status_comment[KUNIT_STATUS_MSG_LEN]; /* why skipped */
	void *priv;             /* for the suite's init/exit and the case */
	jmp_buf abort_point;    /* where KUNIT_ASSERT_*() returns to */
	unsigned int runner_cpu; /* the CPU that runs the case and owns
				  * abort_point's stack */
	/* Open declarations: entries [0, nr_expected_reports), published with
	 * a release store of the count after the entry is written. */
	struct kunit_expected_report expected_reports[KUNIT_MAX_EXPECTED_REPORTS];
	unsigned int nr_expected_reports;
	unsigned long unexpected_reports; /* reports nobody declared (atomic) */
};

struct kunit_case {
	void (*run_case)(struct kunit *test);
	const char *name;
	/* Filled in by the runner. */
	enum kunit_status status;
};

#define KUNIT_CASE(fn) { .run_case = fn, .name = #fn }

struct kunit_suite {
	const char *name;
	int (*suite_init)(struct kunit_suite *suite);
	void (*suite_exit)(struct kunit_suite *suite);
	int (*init)(struct kunit *test);   /* before each case */
	void (*exit)(struct kunit *test);  /* after each case, even aborted */
	struct kunit_case *test_cases;     /* ends with an all-zero entry */
};

/* Register a suite (an object, as in Linux: kunit_test_suite(my_suite);). */
#define kunit_test_suite(suite)                                               \
	static struct kunit_suite *const __kunit_suite_ptr_##suite            \
		__section("kunit_test_suites") __used = &(suite)

/* ---- results of a run ---- */
struct kunit_totals {
	unsigned int passed, failed, skipped;
	unsigned int suites_run;
};

/*
 * Run every registered suite whose name matches `filter` (NULL or "" runs
 * all; otherwise a comma-separated list of globs, each `suite` or
 * `suite.case`, `*` matching any run of characters).  True if every case
 * passed or skipped; false if one failed, or if a filter matched no case
 * at all (a misspelt test= must not pass): the runner then lists the
 * suites there are.  KUNIT_FILTER_NONE runs no test on purpose and
 * passes: the boot log alone tells the story.
 */
#define KUNIT_FILTER_NONE "none"
bool kunit_run_all(const char *filter, struct kunit_totals *totals);
bool kunit_glob_match(const char *pattern, const char *name);
bool kunit_filter_match(const char *filter, const char *suite,
			const char *test_case);

/* The case now running, for panic and watchdog reports (NULL if none). */
extern struct kunit *kunit_current_test;
extern const struct kunit_suite *kunit_current_suite;

/* ---- reporting, used by the macros ---- */
void kunit_info(struct kunit *test, const char *fmt, ...) __printf(2, 3);
#define kunit_err(test, ...) kunit_info(test, __VA_ARGS__)
void __kunit_skip(struct kunit *test, const char *fmt, ...) __printf(2, 3)
	__noreturn;
#define kunit_skip(test, ...) __kunit_skip(test, __VA_ARGS__)
#define kunit_mark_skipped(test, ...) __kunit_mark_skipped(test, __VA_ARGS__)
void __kunit_mark_skipped(struct kunit *test, const char *fmt, ...)
	__printf(2, 3);

/* Returns only outside task context (NMI, IRQ): see kernel/kunit.c. */
void __kunit_fail_abort(struct kunit *test);
void __kunit_binary_fail(struct kunit *test, const char *file, int line,
			 bool is_assert, const char *op, const char *left_text,
			 long long left, const char *right_text,
			 long long right);
void __kunit_ptr_fail(struct kunit *test, const char *file, int line,
		      bool is_assert, const char *op, const char *left_text,
		      const void *left, const char *right_text,
		      const void *right);
void __kunit_bool_fail(struct kunit *test, const char *file, int line,
		       bool is_assert, const char *expr, bool expected);
void __kunit_str_fail(struct kunit *test, const char *file, int line,
		      bool is_assert, const char *left_text, const char *left,
		      const char *right_text, const char *right);
void kunit_fail_msg(struct kunit *test, const char *file, int line,
		    bool is_assert, const char *fmt, ...) __printf(5, 6);

#define __KUNIT_END(test, is_assert)                                          \
	do {                                                                  \
		if (is_assert)                                                \
			__kunit_fail_abort(test);                             \
	} while (0)

/*
 * Integer comparison.  Both sides are converted to the type C's usual
 * arithmetic conversions would give them (the type of left + right), so
 * comparing an unsigned count with a literal does what `==` would do,
 * without a sign-compare warning.
 */
#define __KUNIT_BINARY(test, left, op, right, is_assert)                     \
	do {                                                                  \
		typedef __typeof__((left) + (right)) __kunit_t;              \
		const __kunit_t __l = (__kunit_t)(left);                      \
		const __kunit_t __r = (__kunit_t)(right);                     \
		if (!(__l op __r)) {                                          \
			__kunit_binary_fail(test, __FILE__, __LINE__,         \
					    is_assert, #op, #left,            \
					    (long long)__l, #right,           \
					    (long long)__r);                  \
			__KUNIT_END(test, is_assert);                         \
		}                                                             \
	} while (0)

#define __KUNIT_PTR(test, left, op, right, is_assert)                        \
	do {                                                                  \
		const void *__l = (const void *)(left);                      \
		const void *__r = (const void *)(right);                     \
		if (!(__l op __r)) {                                          \
			__kunit_ptr_fail(test, __FILE__, __LINE__, is_assert, \
					 #op, #left, __l, #right, __r);       \
			__KUNIT_END(test, is_assert);                         \
		}                                                             \
	} while (0)

/* The condition is converted to bool first, on its own: `!!(cond) !=
 * expected` would make gcc's -Wlogical-not-parentheses reject a == b. */
#define __KUNIT_BOOL(test, cond, expected, is_assert)                        \
	do {                                                                  \
		const bool __c = (cond);                                      \
		if (__c != (expected)) {                                      \
			__kunit_bool_fail(test, __FILE__, __LINE__, is_assert,\
					  #cond, expected);                   \
			__KUNIT_END(test, is_assert);                         \
		}                                                             \
	} while (0)

int strcmp(const char *a, const char *b);
#define __KUNIT_STREQ(test, left, right, is_assert)                          \
	do {                                                                  \
		const char *__l = (left), *__r = (right);                     \
		if (!__l || !__r || strcmp(__l, __r) != 0) {                  \
			__kunit_str_fail(test, __FILE__, __LINE__, is_assert, \
					 #left, __l, #right, __r);            \
			__KUNIT_END(test, is_assert);                         \
		}                                                             \
	} while (0)

#define KUNIT_FAIL(test, ...)                                                 \
	kunit_fail_msg(test, __FILE__, __LINE__, false, __VA_ARGS__)

#define KUNIT_EXPECT_EQ(t, a, b) __KUNIT_BINARY(t, a, ==, b, false)
#define KUNIT_EXPECT_NE(t, a, b) __KUNIT_BINARY(t, a, !=, b, false)
#define KUNIT_EXPECT_LT(t, a, b) __KUNIT_BINARY(t, a, <, b, false)
#define KUNIT_EXPECT_LE(t, a, b) __KUNIT_BINARY(t, a, <=, b, false)
#define KUNIT_EXPECT_GT(t, a, b) __KUNIT_BINARY(t, a, >, b, false)
#define KUNIT_EXPECT_GE(t, a, b) __KUNIT_BINARY(t, a, >=, b, false)
#define KUNIT_EXPECT_TRUE(t, c)  __KUNIT_BOOL(t, c, true, false)
#define KUNIT_EXPECT_FALSE(t, c) __KUNIT_BOOL(t, c, false, false)
#define KUNIT_EXPECT_PTR_EQ(t, a, b) __KUNIT_PTR(t, a, ==, b, false)
#define KUNIT_EXPECT_PTR_NE(t, a, b) __KUNIT_PTR(t, a, !=, b, false)
#define KUNIT_EXPECT_NULL(t, p)      __KUNIT_PTR(t, p, ==, NULL, false)
#define KUNIT_EXPECT_NOT_NULL(t, p)  __KUNIT_PTR(t, p, !=, NULL, false)
#define KUNIT_EXPECT_STREQ(t, a, b)  __KUNIT_STREQ(t, a, b, false)

#define KUNIT_ASSERT_EQ(t, a, b) __KUNIT_BINARY(t, a, ==, b, true)
#define KUNIT_ASSERT_NE(t, a, b) __KUNIT_BINARY(t, a, !=, b, true)
#define KUNIT_ASSERT_LT(t, a, b) __KUNIT_BINARY(t, a, <, b, true)
#define KUNIT_ASSERT_LE(t, a, b) __KUNIT_BINARY(t, a, <=, b, true)
#define KUNIT_ASSERT_GT(t, a, b) __KUNIT_BINARY(t, a, >, b, true)
#define KUNIT_ASSERT_GE(t, a, b) __KUNIT_BINARY(t, a, >=, b, true)
#define KUNIT_ASSERT_TRUE(t, c)  __KUNIT_BOOL(t, c, true, true)
#define KUNIT_ASSERT_FALSE(t, c) __KUNIT_BOOL(t, c, false, true)
#define KUNIT_ASSERT_PTR_EQ(t, a, b) __KUNIT_PTR(t, a, ==, b, true)
#define KUNIT_ASSERT_PTR_NE(t, a, b) __KUNIT_PTR(t, a, !=, b, true)
#define KUNIT_ASSERT_NULL(t, p)      __KUNIT_PTR(t, p, ==, NULL, true)
#define KUNIT_ASSERT_NOT_NULL(t, p)  __KUNIT_PTR(t, p, !=, NULL, true)
#define KUNIT_ASSERT_STREQ(t, a, b)  __KUNIT_STREQ(t, a, b, true)

/* ---- expected reports (see the top of this file) ---- */

/* The tag an expected report's first line ends with; the harness parses it. */
#define KUNIT_EXPECTED_TAG_FMT " [expected by %s.%s]"

/*
 * Print the first line of a report (`WARNING: ...`, `BUG ...`) at `level`,
 * tagged when the running case declared it; counted as unexpected when a
 * case runs and did not.  Any context.  The newline is added here.
 */
void kunit_print_report(int level, const char *fmt, ...) __printf(2, 3);

/* Declare that a report whose first line contains `substring` will come. */
#define kunit_expect_report(test, substring)                                 \
	__kunit_expect_report(test, substring, __FILE__, __LINE__)
void __kunit_expect_report(struct kunit *test, const char *substring,
			   const char *file, int line);

/* Close every open declaration; a declared report that never came fails
 * the case (as an expectation: the case goes on). */
void kunit_expect_report_done(struct kunit *test);

/* Run `stmt` with a report containing `substring` declared around it. */
#define KUNIT_EXPECT_REPORT(test, substring, stmt)                            \
	do {                                                                  \
		kunit_expect_report(test, substring);                         \
		stmt;                                                         \
		kunit_expect_report_done(test);                               \
	} while (0)

#endif /* KUNIT_H */
