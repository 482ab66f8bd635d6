/*
 * nmi_printk.h - printing from NMI context without a lock.
 */
#ifndef KERNEL_NMI_PRINTK_H
#define KERNEL_NMI_PRINTK_H

#include <types.h>

/* NMI context: keep a message in this CPU's buffer (never blocks). */
void nmi_printk_store(const char *msg, size_t len);
/* Console lock held: write out every CPU's buffered NMI messages. */
void nmi_printk_flush_locked(void);
/* Any normal context: take the console lock and flush. */
void printk_flush_nmi(void);
/* Bytes that did not fit in a buffer since boot (should stay 0). */
unsigned long nmi_printk_dropped(void);
/* Tests: copy what `cpu`'s buffer holds, unflushed, NUL-terminated. */
size_t nmi_printk_peek(unsigned int cpu, char *buf, size_t size);

void console_write_locked(const char *msg, size_t len);
extern bool printk_emergency;

#endif
