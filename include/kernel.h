/*
 * kernel.h - what to do when something is wrong.
 *
 * panic() prints why, where and a backtrace, then ends the run (in QEMU it
 * exits with the failure status the test harness looks for).  BUG_ON() is
 * for states that must never exist; WARN_ON() reports and carries on, and
 * returns the condition so callers can bail out:  if (WARN_ON(!p)) return;
 *
 * The host build of mm/ supplies its own panic() (abort under the sanitizer,
 * which prints the stack), so this header is shared.
 */
#ifndef KERNEL_H
#define KERNEL_H

#include <compiler.h>
#include <printk.h>

void panic(const char *fmt, ...) __printf(1, 2) __noreturn;

/* The dying CPU claims the console (lock-free) before its report; a second
 * CPU that dies meanwhile stops quietly instead of interleaving. */
void printk_emergency_begin(void);
/* True on the CPU that claimed the console for a panic report. */
bool printk_emergency_owner(void);

/* Counted by the test framework: a test may assert that a warning fired. */
extern unsigned long warn_count;
void __warn(const char *file, int line, const char *cond, unsigned long caller);

#define BUG_ON(cond)                                                          \
	do {                                                                  \
		if (unlikely(cond))                                           \
			panic("BUG_ON(%s) at %s:%d", #cond, __FILE__,          \
			      __LINE__);                                      \
	} while (0)

#define BUG() panic("BUG at %s:%d", __FILE__, __LINE__)

#define WARN_ON(cond)                                                         \
	({                                                                    \
		bool __w = !!(cond);                                          \
		if (unlikely(__w))                                            \
			__warn(__FILE__, __LINE__, #cond, _THIS_IP_);         \
		unlikely(__w);                                                \
	})

/*
 * The "already warned" flags of every WARN_ON_ONCE() live together in the
 * data_once section, so clear_warn_once() can re-arm them all, as Linux's
 * clear_warn_once does; kunit_expect_report() calls it, so a test that
 * provokes a once-only warning sees it however often it ran before.
 */
void clear_warn_once(void);

#define WARN_ON_ONCE(cond)                                                    \
	({                                                                    \
		static bool __warned __section("data_once");                  \
		bool __w = !!(cond);                                          \
		if (unlikely(__w) && !__warned) {                             \
			__warned = true;                                      \
			__warn(__FILE__, __LINE__, #cond, _THIS_IP_);         \
		}                                                             \
		unlikely(__w);                                                \
	})

#endif /* KERNEL_H */
