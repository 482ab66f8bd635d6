/*
 * serial.h - the COM1 16550 UART, our only console, and COM2, a second
 * line for machine-read records (kernel/viz.c).
 */
#ifndef KERNEL_SERIAL_H
#define KERNEL_SERIAL_H

#include <types.h>

void serial_init(void);
void serial_putc(char c);
void serial_write(const char *s, unsigned long len);

/* COM2: false when no UART answers there (QEMU without a second serial
 * port).  serial2_write() sends the bytes as they are ("\n" stays "\n");
 * one writer at a time, the caller's to ensure. */
bool serial2_init(void);
void serial2_write(const char *s, unsigned long len);

/*
 * Tests: when non-zero, every byte waits this many TSC ticks after the
 * previous one, as on a slow line (QEMU's UART takes bytes at once; a real
 * 16550 at 115200 baud takes about 87 us each).  tests/kernel/console_test.c.
 */
extern u64 serial_slow_byte_tsc;

#endif
