/*
 * kunit.c - runs the registered test suites and prints KTAP version 1.
 *
 * Suites are found through the `kunit_test_suites` linker section, which
 * holds one pointer per kunit_test_suite() line anywhere in the image.  For
 * each case the runner saves its place with setjmp(); a failed assertion or
 * kunit_skip() longjmp()s back here, so the rest of the case is abandoned but
 * the suite's exit() still runs and the next case starts cleanly.
 *
 * Output shape (what tests/harness/ktap.py parses):
 *
 *   KTAP version 1
 *   1..2                        one line per suite that will run
 *       KTAP version 1
 *       # Subtest: example
 *       1..2
 *       ok 1 example_pass
 *       # example_fail: EXPECTATION FAILED at tests/x.c:12
 *       # Expected a == b, but a == 1 (0x1), b == 2 (0x2)
 *       not ok 2 example_fail
 *   # example: pass:1 fail:1 skip:0 total:2
 *   not ok 1 example
 *   ...
 *   3 passed, 1 failed
 *
 * A suite whose cases all skipped ends `ok N name # SKIP` (KTAP: a test is
 * skipped when its subtests are).  A filter that selects no case prints
 * `1..0`, then `# test=<filter> matches no test; the suites are:` and one
 * `#   name (N cases)` line per suite, and kunit_run_all() returns false.
 * `test=none` (KUNIT_FILTER_NONE) runs nothing on purpose: the boot's own
 * story alone, and a pass.
 * A case during which a report nobody declared was printed fails, with
 * `# case: N unexpected reports ...`.
 *
 * Expected reports (include/kunit.h explains the rules): the running case's
 * declarations live in its struct kunit; kunit_print_report(), called by
 * every report printer in any context and on any CPU, reads them with
 * acquire loads and never writes anything but two atomic counters.  The
 * case's own CPU is the only writer of the declarations.  An entry is
 * written before the count that publishes it (release), and the count is
 * set back to zero before entries are checked and later reused, so a reader
 * racing with the end of a declaration sees an old entry whole or not at
 * all: at worst a report at that very moment is tagged and counted for a
 * declaration that just closed.
 *
 * This file is plain C over printk(), so it also builds into the host test
 * programs of mm/.
 */
#include <kernel.h>
#include <kunit.h>
#include <printk.h>
#include <smp.h>
#include <string.h>

#ifdef HOST_TEST
/* tests/host/host_support.c: rewrites %pS, which the C library lacks. */
void host_convert_format(char *out, size_t size, const char *fmt);
#endif

/* Weak: a program with no suites at all still links (both are NULL). */
extern struct kunit_suite *const __start_kunit_test_suites[]
	__attribute__((weak));
extern struct kunit_suite *const __stop_kunit_test_suites[]
	__attribute__((weak));

struct kunit *kunit_current_test;
const struct kunit_suite *kunit_current_suite;

#define KTAP_CASE_INDENT "    "

/* Every KTAP line (results, plans, diagnostics) is the run's result: it is
 * printed whatever loglevel= says, 0 included (LOGLEVEL_ALWAYS). */
#define ktap_printk(...) printk_level(LOGLEVEL_ALWAYS, __VA_ARGS__)

bool kunit_glob_match(const char *pattern, const char *name)
{
	/* Classic backtracking glob over '*' only. */
	const char *star = NULL, *resume = NULL;

	while (*name) {
		if (*pattern == '*') {
			star = pattern++;
			resume = name;
		} else if (*pattern == *name) {
			pattern++;
			name++;
		} else if (star) {
			pattern = star + 1;
			name = ++resume;
		} else {
			return false;
		}
	}
	while (*pattern == '*')
		pattern++;
	return *pattern == '\0';
}

/*
 * Does one comma-separated filter entry select this suite (test_case NULL)
 * or this case?  An entry "suite.case" selects that suite and, of its cases,
 * those matching the part after the dot.
 */
static bool filter_entry_match(const char *entry, size_t len,
			       const char *suite, const char *test_case)
{
	char buf[128];
	char *dot;

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, entry, len);
	buf[len] = '\0';
	dot = strchr(buf, '.');
	if (!dot)
		return kunit_glob_match(buf, suite);
	*dot = '\0';
	if (!kunit_glob_match(buf, suite))
		return false;
	return !test_case || kunit_glob_match(dot + 1, test_case);
}

bool kunit_filter_match(const char *filter, const char *suite,
			const char *test_case)
{
	const char *p = filter;

	if (!filter || !*filter)
		return true;
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);

		if (filter_entry_match(p, len, suite, test_case))
			return true;
		if (!end)
			break;
		p = end + 1;
	}
	return false;
}

void kunit_info(struct kunit *test, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	size_t len;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	len = strlen(buf);
	if (len && buf[len - 1] == '\n') /* the line ends here anyway */
		buf[len - 1] = '\0';
	ktap_printk(KTAP_CASE_INDENT "# %s: %s\n", test ? test->name : "?", buf);
}

static void mark_failed(struct kunit *test)
{
	test->status = KUNIT_FAILURE;
}

/*
 * An assertion abandons the case by longjmp() to where the runner started
 * it, but only from the case's own context.  From an NMI, an interrupt or
 * an exception handler (#DB) the jump would skip the IRET: NMIs (or the
 * interrupt's APIC priority) stay blocked on this CPU, IRQs stay off and
 * in_nmi()/in_irq()/in_exception() stay true.  Likewise on another CPU
 * than the runner's (test->runner_cpu; on_each_cpu_task() work): the jump
 * would land on the runner CPU's stack.  There the failure is recorded
 * and the assertion returns, acting as an expectation: the code goes on.
 */
static const char *handler_context(void)
{
	if (in_nmi())
		return "NMI";
	if (in_irq())
		return "IRQ";
	return "exception";
}

void __kunit_fail_abort(struct kunit *test)
{
	if (!in_task() || in_exception()) {
		ktap_printk(KTAP_CASE_INDENT "# %s: the assertion failed in %s context: the case cannot end there (no IRET), it goes on\n",
		       test->name, handler_context());
		return;
	}
	if (smp_processor_id() != test->runner_cpu) {
		ktap_printk(KTAP_CASE_INDENT "# %s: the assertion failed on cpu%u, not on cpu%u that runs the case: the case cannot end there (its stack is cpu%u's), it goes on\n",
		       test->name, smp_processor_id(), test->runner_cpu,
		       test->runner_cpu);
		return;
	}
	longjmp(test->abort_point, 1);
}

static void report_header(struct kunit *test, const char *file, int line,
			  bool is_assert)
{
	mark_failed(test);
	ktap_printk(KTAP_CASE_INDENT "# %s: %s FAILED at %s:%d\n", test->name,
	       is_assert ? "ASSERTION" : "EXPECTATION", file, line);
}

void __kunit_binary_fail(struct kunit *test, const char *file, int line,
			 bool is_assert, const char *op, const char *left_text,
			 long long left, const char *right_text,
			 long long right)
{
	report_header(test, file, line, is_assert);
	ktap_printk(KTAP_CASE_INDENT "# Expected %s %s %s, but\n", left_text, op,
	       right_text);
	ktap_printk(KTAP_CASE_INDENT "#     %s == %lld (0x%llx)\n", left_text, left,
	       (unsigned long long)left);
	ktap_printk(KTAP_CASE_INDENT "#     %s == %lld (0x%llx)\n", right_text,
	       right, (unsigned long long)right);
}

void __kunit_ptr_fail(struct kunit *test, const char *file, int line,
		      bool is_assert, const char *op, const char *left_text,
		      const void *left, const char *right_text,
		      const void *right)
{
	report_header(test, file, line, is_assert);
	ktap_printk(KTAP_CASE_INDENT "# Expected %s %s %s, but\n", left_text, op,
	       right_text);
	ktap_printk(KTAP_CASE_INDENT "#     %s == %p\n", left_text, left);
	ktap_printk(KTAP_CASE_INDENT "#     %s == %p\n", right_text, right);
}

void __kunit_bool_fail(struct kunit *test, const char *file, int line,
		       bool is_assert, const char *expr, bool expected)
{
	report_header(test, file, line, is_assert);
	ktap_printk(KTAP_CASE_INDENT "# Expected %s to be %s, but is %s\n", expr,
	       expected ? "true" : "false", expected ? "false" : "true");
}

void __kunit_str_fail(struct kunit *test, const char *file, int line,
		      bool is_assert, const char *left_text, const char *left,
		      const char *right_text, const char *right)
{
	report_header(test, file, line, is_assert);
	ktap_printk(KTAP_CASE_INDENT "# Expected %s == %s, but\n", left_text,
	       right_text);
	ktap_printk(KTAP_CASE_INDENT "#     %s == \"%s\"\n", left_text,
	       left ? left : "(null)");
	ktap_printk(KTAP_CASE_INDENT "#     %s == \"%s\"\n", right_text,
	       right ? right : "(null)");
}

void kunit_fail_msg(struct kunit *test, const char *file, int line,
		    bool is_assert, const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	report_header(test, file, line, is_assert);
	ktap_printk(KTAP_CASE_INDENT "# %s\n", buf);
	if (is_assert)
		__kunit_fail_abort(test);
}

/* ---- expected reports ---- */

#define KUNIT_REPORT_LINE_MAX 256

/* Reports the running cases declared and got, over the whole run: the
 * closing line says how many, so none is mistaken for a failure. */
static unsigned long expected_reports_seen;

/* Count the report against the running case; true if it was declared. */
static bool report_expected(struct kunit *test, const char *line)
{
	unsigned int i, n;
	bool expected = false;

	n = __atomic_load_n(&test->nr_expected_reports, __ATOMIC_ACQUIRE);
	for (i = 0; i < n && i < KUNIT_MAX_EXPECTED_REPORTS; i++) {
		struct kunit_expected_report *r = &test->expected_reports[i];
		const char *sub = __atomic_load_n(&r->substring,
						  __ATOMIC_RELAXED);

		if (sub && strstr(line, sub)) {
			__atomic_fetch_add(&r->seen, 1, __ATOMIC_RELAXED);
			expected = true;
		}
	}
	if (!expected)
		__atomic_fetch_add(&test->unexpected_reports, 1,
				   __ATOMIC_RELAXED);
	else
		__atomic_fetch_add(&expected_reports_seen, 1, __ATOMIC_RELAXED);
	return expected;
}

void kunit_print_report(int level, const char *fmt, ...)
{
	struct kunit *test = __atomic_load_n(&kunit_current_test,
					     __ATOMIC_ACQUIRE);
	const struct kunit_suite *suite = kunit_current_suite;
	char line[KUNIT_REPORT_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
#ifdef HOST_TEST
	{
		/* The C library's vsnprintf() has no %pS. */
		char host_fmt[KUNIT_REPORT_LINE_MAX];

		host_convert_format(host_fmt, sizeof(host_fmt), fmt);
		vsnprintf(line, sizeof(line), host_fmt, ap);
	}
#else
	vsnprintf(line, sizeof(line), fmt, ap);
#endif
	va_end(ap);
	if (test && report_expected(test, line))
		printk_level(level, "%s" KUNIT_EXPECTED_TAG_FMT "\n", line,
			     suite ? suite->name : "?", test->name);
	else
		printk_level(level, "%s\n", line);
}

void __kunit_expect_report(struct kunit *test, const char *substring,
			   const char *file, int line)
{
	unsigned int n = test->nr_expected_reports;
	struct kunit_expected_report *r;

	if (n >= KUNIT_MAX_EXPECTED_REPORTS) {
		kunit_fail_msg(test, file, line, true,
			       "more than %u reports expected at once",
			       KUNIT_MAX_EXPECTED_REPORTS);
	}
	clear_warn_once();    /* a once-only warning may be the one expected */
	/* Printed before it takes effect: the harness reads it first. */
	kunit_info(test, "expecting a report containing \"%s\"", substring);
	r = &test->expected_reports[n];
	r->file = file;
	r->line = line;
	__atomic_store_n(&r->seen, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&r->substring, substring, __ATOMIC_RELAXED);
	__atomic_store_n(&test->nr_expected_reports, n + 1, __ATOMIC_RELEASE);
}

void kunit_expect_report_done(struct kunit *test)
{
	unsigned int i, n = test->nr_expected_reports;

	__atomic_store_n(&test->nr_expected_reports, 0, __ATOMIC_RELEASE);
	for (i = 0; i < n; i++) {
		struct kunit_expected_report *r = &test->expected_reports[i];

		if (__atomic_load_n(&r->seen, __ATOMIC_RELAXED))
			continue;
		kunit_fail_msg(test, r->file, r->line, false,
			       "Expected a report containing \"%s\", but none was printed",
			       r->substring);
	}
}

static void set_skip_comment(struct kunit *test, const char *fmt, va_list ap)
{
	test->status = KUNIT_SKIPPED;
	vsnprintf(test->status_comment, sizeof(test->status_comment), fmt, ap);
}

void __kunit_mark_skipped(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_skip_comment(test, fmt, ap);
	va_end(ap);
}

/*
 * A skip abandons the case too, and, unlike a failed assertion, cannot
 * go on instead (its callers count on it not returning).  Outside the
 * case's own context (see __kunit_fail_abort()) that is a bug in the test:
 * said in a panic, not jumped over.
 */
void __kunit_skip(struct kunit *test, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	set_skip_comment(test, fmt, ap);
	va_end(ap);
	if (!in_task() || in_exception())
		panic("kunit: %s: kunit_skip() in %s context: a case can be skipped only from its own context (the jump would leave the handler without its IRET)",
		      test->name, handler_context());
	if (smp_processor_id() != test->runner_cpu)
		panic("kunit: %s: kunit_skip() on cpu%u: a case can be skipped only on cpu%u, which runs it (the jump would land on that CPU's stack)",
		      test->name, smp_processor_id(), test->runner_cpu);
	longjmp(test->abort_point, 1);
}

static unsigned int count_cases(const struct kunit_suite *suite,
				const char *filter)
{
	unsigned int n = 0;
	const struct kunit_case *c;

	for (c = suite->test_cases; c->run_case; c++)
		if (kunit_filter_match(filter, suite->name, c->name))
			n++;
	return n;
}

/*
 * Run one case.  `volatile` keeps the test object's state in memory across
 * the longjmp(), as the C standard requires for locals changed after setjmp.
 */
static struct kunit test; /* one case runs at a time */

static enum kunit_status run_case(const struct kunit_suite *suite,
				  struct kunit_case *tc)
{
	volatile bool init_ok = true;

	memset(&test, 0, sizeof(test));
	test.name = tc->name;
	test.status = KUNIT_SUCCESS;
	test.runner_cpu = smp_processor_id();
	__atomic_store_n(&kunit_current_test, &test, __ATOMIC_RELEASE);

	if (setjmp(test.abort_point) == 0) {
		if (suite->init && suite->init(&test) != 0) {
			init_ok = false;
			kunit_info(&test, "suite init() failed");
			test.status = KUNIT_FAILURE;
		} else {
			tc->run_case(&test);
		}
	}
	if (init_ok && suite->exit) {
		/* exit() may itself assert; give it its own landing place. */
		if (setjmp(test.abort_point) == 0)
			suite->exit(&test);
	}
	/* Declarations left open (an assertion ended the case) close here. */
	if (test.status != KUNIT_SKIPPED)
		kunit_expect_report_done(&test);
	else
		test.nr_expected_reports = 0;
	if (test.unexpected_reports) {
		kunit_info(&test, "%lu unexpected report%s (WARNING:/BUG lines) while this case ran",
			   test.unexpected_reports,
			   test.unexpected_reports == 1 ? "" : "s");
		test.status = KUNIT_FAILURE;
	}
	__atomic_store_n(&kunit_current_test, NULL, __ATOMIC_RELEASE);
	return test.status;
}

static void print_case_result(unsigned int index, struct kunit_case *tc,
			      const char *skip_comment)
{
	switch (tc->status) {
	case KUNIT_SUCCESS:
		ktap_printk(KTAP_CASE_INDENT "ok %u %s\n", index, tc->name);
		break;
	case KUNIT_SKIPPED:
		ktap_printk(KTAP_CASE_INDENT "ok %u %s # SKIP %s\n", index,
		       tc->name, skip_comment);
		break;
	default:
		ktap_printk(KTAP_CASE_INDENT "not ok %u %s\n", index, tc->name);
		break;
	}
}

static bool run_suite(struct kunit_suite *suite, unsigned int index,
		      const char *filter, struct kunit_totals *totals)
{
	unsigned int n = 0, pass = 0, fail = 0, skip = 0;
	struct kunit_case *tc;
	bool suite_ok = true;

	kunit_current_suite = suite;
	ktap_printk(KTAP_CASE_INDENT "KTAP version 1\n");
	ktap_printk(KTAP_CASE_INDENT "# Subtest: %s\n", suite->name);
	ktap_printk(KTAP_CASE_INDENT "1..%u\n", count_cases(suite, filter));

	if (suite->suite_init && suite->suite_init(suite) != 0) {
		ktap_printk(KTAP_CASE_INDENT "# %s: suite_init() failed\n",
		       suite->name);
		suite_ok = false;
	}
	for (tc = suite->test_cases; tc->run_case; tc++) {
		if (!kunit_filter_match(filter, suite->name, tc->name))
			continue;
		n++;
		if (!suite_ok) {
			tc->status = KUNIT_FAILURE;
			print_case_result(n, tc, "");
			fail++;
			continue;
		}
		tc->status = run_case(suite, tc);
		print_case_result(n, tc, test.status_comment);
		switch (tc->status) {
		case KUNIT_SUCCESS: pass++; break;
		case KUNIT_SKIPPED: skip++; break;
		default: fail++; break;
		}
	}
	if (suite_ok && suite->suite_exit)
		suite->suite_exit(suite);

	ktap_printk("# %s: pass:%u fail:%u skip:%u total:%u\n", suite->name, pass,
	       fail, skip, n);
	/* KTAP: a test whose subtests all skipped is itself skipped. */
	if (n && skip == n)
		ktap_printk("ok %u %s # SKIP\n", index, suite->name);
	else
		ktap_printk("%s %u %s\n", fail ? "not ok" : "ok", index, suite->name);
	kunit_current_suite = NULL;
	totals->passed += pass;
	totals->failed += fail;
	totals->skipped += skip;
	totals->suites_run++;
	return fail == 0;
}

/* A filter that selects nothing: say so, and name what there is. */
static void report_unmatched_filter(const char *filter)
{
	struct kunit_suite *const *s;

	ktap_printk("# test=%s matches no test; the suites are:\n", filter);
	for (s = __start_kunit_test_suites; s < __stop_kunit_test_suites; s++)
		ktap_printk("#   %s (%u cases)\n", (*s)->name, count_cases(*s, NULL));
}

bool kunit_run_all(const char *filter, struct kunit_totals *totals)
{
	struct kunit_suite *const *s;
	unsigned int nsuites = 0, index = 0;

	memset(totals, 0, sizeof(*totals));
	if (filter && !strcmp(filter, KUNIT_FILTER_NONE)) {
		ktap_printk("KTAP version 1\n1..0\n");
		ktap_printk("# test=%s: no tests, the boot alone\n",
			    KUNIT_FILTER_NONE);
		ktap_printk("0 passed, 0 failed\n");
		return true;
	}
	for (s = __start_kunit_test_suites; s < __stop_kunit_test_suites; s++)
		if (kunit_filter_match(filter, (*s)->name, NULL) &&
		    count_cases(*s, filter) > 0)
			nsuites++;

	ktap_printk("KTAP version 1\n");
	ktap_printk("1..%u\n", nsuites);
	if (nsuites == 0 && filter && *filter)
		report_unmatched_filter(filter);
	for (s = __start_kunit_test_suites; s < __stop_kunit_test_suites; s++) {
		if (!kunit_filter_match(filter, (*s)->name, NULL) ||
		    count_cases(*s, filter) == 0)
			continue;
		run_suite(*s, ++index, filter, totals);
	}
	if (totals->skipped)
		ktap_printk("%u passed, %u failed, %u skipped\n", totals->passed,
		       totals->failed, totals->skipped);
	else
		ktap_printk("%u passed, %u failed\n", totals->passed,
		       totals->failed);
	if (expected_reports_seen)
		ktap_printk("# %lu BUG:/WARNING: reports above were provoked on purpose by negative tests, each tagged [expected by suite.case]: not failures (a report no case expected fails its case)\n",
			    __atomic_load_n(&expected_reports_seen,
					    __ATOMIC_RELAXED));
	return totals->failed == 0 && (nsuites > 0 || !filter || !*filter);
}
