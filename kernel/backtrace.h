/*
 * backtrace.h - symbol names for addresses, and stack walks.
 */
#ifndef KERNEL_BACKTRACE_H
#define KERNEL_BACKTRACE_H

#include <types.h>

/* Name of the function containing addr, and addr's offset into it. */
const char *kallsyms_lookup(unsigned long addr, unsigned long *offset,
			    unsigned long *size);
/* "name+0x1c/0x80" or "?" into buf. */
void kallsyms_format(unsigned long addr, char *buf, size_t size);
/* Print the frame-pointer chain starting at (rip, rbp); returns the
 * number of caller frames printed (after rip's own line). */
unsigned int dump_backtrace(unsigned long rip, unsigned long rbp);
/* Backtrace of the caller. */
void dump_stack(void);

#endif
