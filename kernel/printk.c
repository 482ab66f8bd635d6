/*
 * printk.c - formatted, time-stamped lines on the serial console.
 *
 * Each call formats its message into a buffer on its own stack, then writes
 * it under console_lock, starting every new line with
 *
 *     [   seconds.micros] cpuN:
 *
 * The time comes from the TSC (tsc.c calibrates it at boot), so stamps work
 * from the first line, in any context, without a timer interrupt.
 *
 * Lock: console_lock serialises the UART between CPUs; taken with IRQs off,
 * and never held for long: the NMI buffers are drained in pieces of
 * console_drain_piece bytes, the lock given up between pieces, and the
 * UART driver touches this CPU's watchdog for every byte it sends (a slow
 * line is progress, not a lockup).
 * An NMI must never wait for it (the CPU it interrupted may hold it), so NMI
 * context goes through nmi_printk (kernel/nmi_printk.c) instead: a per-CPU
 * buffer flushed later from normal context.  When the kernel is dying,
 * printk_emergency lets panic() write without the lock: a half-garbled line
 * is better than a silent hang.  Before it reads the NMI buffers it waits
 * (at most CONSOLE_EMERGENCY_WAIT_US) for the CPU holding console_lock to
 * end its piece; every printk that takes the lock after printk_emergency is
 * set lets it go again without writing.  So a CPU draining a buffer and the
 * panic never write out the same lines at once.
 */
#include <kernel.h>
#include <printk.h>
#include <smp.h>
#include <spinlock.h>
#include <string.h>
#include "serial.h"
#include "timekeeping.h"
#include "nmi_printk.h"

#define PRINTK_LINE_MAX 512
/*
 * NMI output written per hold of the console lock: about 22 ms on a
 * 115200-baud UART (87 us a byte).  Between pieces the lock goes to the
 * next waiter, so no CPU waits, IRQs off, for more than a piece per CPU
 * ahead of it, far below the watchdog's seconds.
 */
#define CONSOLE_DRAIN_PIECE 256
/* How long a panic waits for the console lock's holder to finish its
 * piece before it writes regardless (the holder may be the stuck CPU). */
#define CONSOLE_EMERGENCY_WAIT_US 1000000
/* One printk drains at most what every buffer holds at once; what NMIs add
 * faster than the UART sends waits for the next printk. */
#define CONSOLE_DRAIN_MAX_BYTES (NR_CPUS * NMI_PRINTK_BUF_SIZE)

size_t console_drain_piece = CONSOLE_DRAIN_PIECE;

int console_loglevel = LOGLEVEL_DEFAULT;
bool printk_emergency;

static DEFINE_SPINLOCK(console_lock);

/* Did this CPU's last message end mid-line?  Then the next continues it. */
static DEFINE_PER_CPU(bool, line_open);

u64 console_last_stamp_us;

static void write_prefix(char *buf, size_t size)
{
	u64 us = tsc_to_us(rdtsc() - tsc_at_boot);

	if (us < console_last_stamp_us)   /* two CPUs' TSCs a hair apart */
		us = console_last_stamp_us;
	console_last_stamp_us = us;
	snprintf(buf, size, "[%5lu.%06lu] cpu%u: ",
		 (unsigned long)(us / USEC_PER_SEC),
		 (unsigned long)(us % USEC_PER_SEC), smp_processor_id());
}

/* Write `msg` to the UART, prefixing each new line.  Console lock held (or
 * the kernel is dying). */
void console_write_locked(const char *msg, size_t len)
{
	bool *open = this_cpu_ptr(line_open);
	char prefix[48];

	while (len) {
		const char *nl = memchr(msg, '\n', len);
		size_t chunk = nl ? (size_t)(nl - msg) + 1 : len;

		if (!*open) {
			write_prefix(prefix, sizeof(prefix));
			serial_write(prefix, strlen(prefix));
		}
		serial_write(msg, chunk);
		*open = !nl;
		msg += chunk;
		len -= chunk;
	}
}

/*
 * Take console_lock (IRQs off, the old state in *flags) with the NMI
 * buffers written out first, a piece at a time, the lock and the IRQ state
 * given back between pieces.  False, without the lock, once the kernel is
 * dying: the panicking CPU owns the console and the NMI buffers then (see
 * console_emergency_wait()).
 */
static bool console_lock_drained(unsigned long *flags)
{
	size_t piece = min(READ_ONCE(console_drain_piece),
			   (size_t)CONSOLE_DRAIN_PIECE);
	size_t max_pieces = CONSOLE_DRAIN_MAX_BYTES / (piece ? piece : 1);
	size_t pieces = 0;

	for (;;) {
		spin_lock_irqsave(&console_lock, *flags);
		/* Pairs with console_emergency_wait(): either it sees this
		 * CPU holding the lock and waits, or this CPU sees the flag. */
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		if (READ_ONCE(printk_emergency)) {
			spin_unlock_irqrestore(&console_lock, *flags);
			return false;
		}
		if (!nmi_printk_flush_locked(piece) ||
		    ++pieces >= max_pieces)
			return true;
		spin_unlock_irqrestore(&console_lock, *flags);
		cpu_relax();
	}
}

void console_emergency_wait(void)
{
	u64 end = rdtsc() + us_to_tsc(CONSOLE_EMERGENCY_WAIT_US);

	__atomic_thread_fence(__ATOMIC_SEQ_CST);   /* after printk_emergency */
	if (spin_is_held_by_me(&console_lock))
		return;   /* we interrupted our own printk: nobody to wait for */
	while (spin_is_locked(&console_lock) && rdtsc() < end)
		cpu_relax();
}

int vprintk_level(int level, const char *fmt, va_list ap)
{
	char buf[PRINTK_LINE_MAX];
	unsigned long flags;
	int n;

	if (level > console_loglevel)
		return 0;
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;

	if (printk_emergency) {
		/* The dying CPU writes at once, even from an NMI; the others'
		 * NMI output waits in their buffers for it, and their normal
		 * output is dropped rather than interleaved with the report. */
		if (printk_emergency_owner())
			console_write_locked(buf, (size_t)n);
		else if (in_nmi())
			nmi_printk_store(buf, (size_t)n);
		return n;
	}
	if (in_nmi()) {
		nmi_printk_store(buf, (size_t)n);
		return n;
	}
	if (!console_lock_drained(&flags))
		return n;   /* dying meanwhile: dropped, as above */
	console_write_locked(buf, (size_t)n);
	spin_unlock_irqrestore(&console_lock, flags);
	return n;
}

int printk_level(int level, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vprintk_level(level, fmt, ap);
	va_end(ap);
	return n;
}

/* Write out what NMI handlers left in the per-CPU buffers. */
void printk_discard_nmi(unsigned int cpu)
{
	unsigned long flags;

	spin_lock_irqsave(&console_lock, flags);
	nmi_printk_discard_locked(cpu);
	spin_unlock_irqrestore(&console_lock, flags);
}

void printk_flush_nmi(void)
{
	unsigned long flags;

	if (in_nmi())
		return;
	if (console_lock_drained(&flags))
		spin_unlock_irqrestore(&console_lock, flags);
}
