/*
 * fuzz_report.h - how a fuzzer says that its model caught the allocator.
 *
 * fuzz_fail() prints one line on stderr, "<fuzzer>: FAILED <where>: <what
 * was wrong>", then abort()s: libFuzzer saves the input that did it, and
 * tests/harness/run_tests.py keys on ": FAILED" (the planted-bug build
 * must end with exactly this line).  FUZZ_ASSERT(cond, fmt, ...) fails
 * when cond is false.
 *
 * Each fuzzer defines the two hooks: fuzz_print_where() prints the line's
 * start up to the message (its name, "FAILED", and where in the input it
 * was), fuzz_after_failure() whatever helps after it (a hint, a dump).
 * Included by one .c file each; everything here is static.
 */
#ifndef FUZZ_REPORT_H
#define FUZZ_REPORT_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void fuzz_print_where(void);
static void fuzz_after_failure(void);

static void __attribute__((noreturn, format(printf, 1, 2)))
fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fuzz_print_where();
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	fuzz_after_failure();
	abort();
}

#define FUZZ_ASSERT(cond, ...)                  \
	do {                                    \
		if (!(cond))                    \
			fuzz_fail(__VA_ARGS__); \
	} while (0)

#endif /* FUZZ_REPORT_H */
