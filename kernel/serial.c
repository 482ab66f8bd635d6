/*
 * serial.c - a polled driver for the 16550 UART at COM1.
 *
 * 115200 baud, 8 data bits, no parity, one stop bit, FIFOs on, no
 * interrupts: printing waits for the transmit holding register to empty
 * (LSR.THRE) before each byte.  Polling keeps the driver usable from any
 * context, an exception or an NMI included.  Register offsets and bits are
 * those of the PC16550D data sheet.  '\n' goes out as "\r\n" so a terminal
 * shows lines properly.  Callers serialise (printk's console lock); the
 * panic path writes without it.  Every byte sent touches this CPU's
 * hard-lockup watchdog: a slow line is progress.  serial_slow_byte_tsc
 * (tests only) simulates a slow line.
 *
 * COM2 (serial2_*) is a second, separate line for machine-read records
 * (kernel/viz.c's allocator snapshots): the same 16550 set-up, probed
 * first through its scratch register (an absent port reads back 0xff), no
 * "\r" added, no slow-line knob.  It has one writer at a time (its
 * caller says who), so it needs no lock.
 */
#include <compiler.h>
#include <watchdog.h>
#include "serial.h"
#include "../arch/x86_64/cpu.h"

#define COM1_BASE     0x3f8
#define COM2_BASE     0x2f8
#define UART_THR      0   /* transmit holding register (DLAB = 0) */
#define UART_DLL      0   /* divisor latch, low byte (DLAB = 1) */
#define UART_IER      1   /* interrupt enable (DLAB = 0) */
#define UART_DLM      1   /* divisor latch, high byte (DLAB = 1) */
#define UART_FCR      2   /* FIFO control */
#define UART_LCR      3   /* line control */
#define UART_MCR      4   /* modem control */
#define UART_LSR      5   /* line status */
#define UART_SCR      7   /* scratch: any byte, read back as written */

#define UART_LCR_DLAB 0x80
#define UART_LCR_8N1  0x03
#define UART_FCR_ENABLE_CLEAR 0x07   /* enable FIFOs, clear both */
#define UART_MCR_DTR_RTS_OUT2 0x0b
#define UART_LSR_THRE 0x20
#define UART_SCR_PROBE 0x5a  /* a byte an absent port (0xff) cannot echo */

#define UART_CLOCK_HZ 115200
#define CONSOLE_BAUD  115200

static void uart_init(u16 base)
{
	unsigned int divisor = UART_CLOCK_HZ / CONSOLE_BAUD;

	outb(base + UART_IER, 0);
	outb(base + UART_LCR, UART_LCR_DLAB);
	outb(base + UART_DLL, divisor & 0xff);
	outb(base + UART_DLM, divisor >> 8);
	outb(base + UART_LCR, UART_LCR_8N1);
	outb(base + UART_FCR, UART_FCR_ENABLE_CLEAR);
	outb(base + UART_MCR, UART_MCR_DTR_RTS_OUT2);
}

void serial_init(void)
{
	uart_init(COM1_BASE);
}

bool serial2_init(void)
{
	outb(COM2_BASE + UART_SCR, UART_SCR_PROBE);
	if (inb(COM2_BASE + UART_SCR) != UART_SCR_PROBE)
		return false;
	uart_init(COM2_BASE);
	return true;
}

void serial2_write(const char *s, unsigned long len)
{
	while (len--) {
		while (!(inb(COM2_BASE + UART_LSR) & UART_LSR_THRE))
			cpu_relax();
		outb(COM2_BASE + UART_THR, (u8)*s++);
		touch_nmi_watchdog();   /* a long record is progress too */
	}
}

u64 serial_slow_byte_tsc;
static u64 slow_next_byte_tsc;   /* racy without the console lock: harmless */

/* May the next byte go?  The UART's holding register is empty, and with
 * the test knob the simulated line has finished the previous byte. */
static bool serial_tx_ready(void)
{
	if (!(inb(COM1_BASE + UART_LSR) & UART_LSR_THRE))
		return false;
	return !READ_ONCE(serial_slow_byte_tsc) ||
	       rdtsc() >= READ_ONCE(slow_next_byte_tsc);
}

static void serial_put_raw(char c)
{
	u64 slow;

	while (!serial_tx_ready())
		cpu_relax();
	outb(COM1_BASE + UART_THR, (u8)c);
	/* A byte out is progress: a long drain with IRQs off is not a lockup
	 * (a UART that never takes a byte hangs here untouched, and is). */
	touch_nmi_watchdog();
	slow = READ_ONCE(serial_slow_byte_tsc);
	if (slow)
		WRITE_ONCE(slow_next_byte_tsc, rdtsc() + slow);
}

void serial_putc(char c)
{
	if (c == '\n')
		serial_put_raw('\r');
	serial_put_raw(c);
}

void serial_write(const char *s, unsigned long len)
{
	while (len--)
		serial_putc(*s++);
}
