/*
 * setjmp.h - non-local return for the test framework.
 *
 * KUNIT_ASSERT_*() must abandon the running test case at once.  Linux does
 * that by ending the test's kthread; we have no threads, so the runner saves
 * its place with setjmp() and a failed assertion longjmp()s back to it.  The
 * compiler's own __builtin_setjmp/__builtin_longjmp need no library and no
 * assembly.  (The host build shadows this header with the C library's, which
 * AddressSanitizer understands.)
 */
#ifndef SETJMP_H
#define SETJMP_H

typedef void *jmp_buf[5];

#define setjmp(buf)      __builtin_setjmp(buf)
#define longjmp(buf, v)  __builtin_longjmp(buf, 1)

#endif /* SETJMP_H */
