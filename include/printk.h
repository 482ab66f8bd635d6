/*
 * printk.h - the kernel's one way to say something.
 *
 * printk() formats into a buffer on the caller's stack and hands whole lines
 * to the console under the console lock, each line prefixed with a TSC time
 * stamp and the CPU number, so lines from different CPUs never interleave.
 * Messages carry a level; `loglevel=` on the command line hides the chatty
 * ones (never the self-tests' KTAP lines, LOGLEVEL_ALWAYS).  vsnprintf() is plain library code and is also built and tested on
 * the host.
 */
#ifndef PRINTK_H
#define PRINTK_H

#include <compiler.h>

enum log_level {
	LOGLEVEL_ALWAYS = -1,   /* shown at every loglevel=: KTAP (kunit.c) */
	LOGLEVEL_EMERG = 0,
	LOGLEVEL_ERR = 3,
	LOGLEVEL_WARNING = 4,
	LOGLEVEL_NOTICE = 5,
	LOGLEVEL_INFO = 6,
	LOGLEVEL_DEBUG = 7,
};

#define LOGLEVEL_DEFAULT LOGLEVEL_INFO

int vsnprintf(char *buf, size_t size, const char *fmt, va_list ap);
int snprintf(char *buf, size_t size, const char *fmt, ...) __printf(3, 4);

/* Print at a level; a level above the console's `loglevel=` is dropped. */
int printk_level(int level, const char *fmt, ...) __printf(2, 3);
int vprintk_level(int level, const char *fmt, va_list ap);
#define printk(...) printk_level(LOGLEVEL_INFO, __VA_ARGS__)

#define pr_emerg(...)  printk_level(LOGLEVEL_EMERG, __VA_ARGS__)
#define pr_err(...)    printk_level(LOGLEVEL_ERR, __VA_ARGS__)
#define pr_warn(...)   printk_level(LOGLEVEL_WARNING, __VA_ARGS__)
#define pr_notice(...) printk_level(LOGLEVEL_NOTICE, __VA_ARGS__)
#define pr_info(...)   printk_level(LOGLEVEL_INFO, __VA_ARGS__)
#define pr_debug(...)  printk_level(LOGLEVEL_DEBUG, __VA_ARGS__)

extern int console_loglevel;

/* Print like pr_info() and keep the line for highlights_replay(), which
 * prints every kept line again at the end of the boot (normal context). */
void pr_highlight(const char *fmt, ...) __printf(1, 2);
void highlights_replay(void);

#endif /* PRINTK_H */
