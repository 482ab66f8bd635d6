/*
 * serial.h - the COM1 16550 UART, our only console.
 */
#ifndef KERNEL_SERIAL_H
#define KERNEL_SERIAL_H

#include <types.h>

void serial_init(void);
void serial_putc(char c);
void serial_write(const char *s, unsigned long len);

/*
 * Tests: when non-zero, every byte waits this many TSC ticks after the
 * previous one, as on a slow line (QEMU's UART takes bytes at once; a real
 * 16550 at 115200 baud takes about 87 us each).  tests/kernel/console_test.c.
 */
extern u64 serial_slow_byte_tsc;

#endif
