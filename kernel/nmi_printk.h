/*
 * nmi_printk.h - printing from NMI context without a lock.
 */
#ifndef KERNEL_NMI_PRINTK_H
#define KERNEL_NMI_PRINTK_H

#include <types.h>

/* NMI context: keep a message in this CPU's buffer (never blocks). */
void nmi_printk_store(const char *msg, size_t len);
#define NMI_PRINTK_BUF_SIZE 8192   /* per CPU; a power of two */
#define NMI_PRINTK_FLUSH_ALL ((size_t)-1)

/*
 * Console lock held (or the kernel dying): write out the CPUs' buffered
 * NMI lines, whole, until at least `budget` bytes went out
 * (NMI_PRINTK_FLUSH_ALL: all of them).  True if it stopped for the
 * budget, so there may be more.
 */
bool nmi_printk_flush_locked(size_t budget);
/* The budget of one hold of the console lock (printk.c, default and
 * most 256 bytes: a larger value counts as 256).  Tests lower it to keep
 * the pieces many while the lines they drain are few (0 counts as 1: a
 * piece is then one whole line). */
extern size_t console_drain_piece;
/* Any normal context: take the console lock and flush. */
void printk_flush_nmi(void);
/* Bytes that did not fit in a buffer since boot (should stay 0). */
unsigned long nmi_printk_dropped(void);
/* Tests: copy what `cpu`'s buffer holds, unflushed, NUL-terminated. */
size_t nmi_printk_peek(unsigned int cpu, char *buf, size_t size);
/* Tests: forget what `cpu`'s buffer holds, unprinted: a test that fills
 * a buffer to check its capacity need not fill the log too. */
void nmi_printk_discard_locked(unsigned int cpu);
void printk_discard_nmi(unsigned int cpu);

void console_write_locked(const char *msg, size_t len);
/* The newest time stamp written to the console, in µs (console lock
 * held): an NMI line that could only go out after a later line shows
 * this time instead of its own, so the log never runs backwards. */
extern u64 console_last_stamp_us;
/* The panic path, printk_emergency just set: wait (bounded) until no other
 * CPU holds the console lock, so the NMI buffers have one reader. */
void console_emergency_wait(void);
extern bool printk_emergency;

#endif
