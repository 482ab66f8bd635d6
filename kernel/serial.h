/*
 * serial.h - the COM1 16550 UART, our only console.
 */
#ifndef KERNEL_SERIAL_H
#define KERNEL_SERIAL_H

void serial_init(void);
void serial_putc(char c);
void serial_write(const char *s, unsigned long len);

#endif
