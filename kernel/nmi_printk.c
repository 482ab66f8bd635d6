/*
 * nmi_printk.c - per-CPU buffers that NMI handlers print into.
 *
 * Why: an NMI can interrupt a CPU that holds the console lock in the middle
 * of a line.  Spinning on the lock would deadlock, and writing without it
 * would interleave characters.  So in NMI context printk() formats the
 * whole message (time stamp and CPU prefix included, taken when it was
 * printed) into this CPU's ring buffer, and normal context writes the
 * buffered lines out, whole, the next time it holds the console lock.
 *
 * Each ring has one producer and one consumer:
 *   - producer: this CPU, in NMI context.  NMIs do not nest, so only one
 *     writer ever runs; it advances `head` with a release store after the
 *     bytes are in place.
 *   - consumer: whichever CPU holds console_lock; it advances `tail` with a
 *     release store after copying the bytes out.
 * Neither side waits for the other.  The consumer writes whole lines,
 * oldest first across the CPUs (each line's time stamp decides), and
 * may stop after a budget of bytes (at the end of a line, so a piece never
 * ends mid-line): printk drains in pieces, giving the console lock up in
 * between (kernel/printk.c).  A message that does not fit whole is
 * dropped whole (never half a line) and counted in `dropped`
 * (nmi_printk_dropped(); nmi_test checks a full buffer drops exactly the
 * line that does not fit).
 */
#include <printk.h>
#include <smp.h>
#include <string.h>
#include "nmi_printk.h"
#include "serial.h"
#include "timekeeping.h"

struct nmi_printk_buf {
	unsigned long head;        /* written by the NMI producer */
	unsigned long tail;        /* written by the flushing consumer */
	unsigned long dropped;
	char data[NMI_PRINTK_BUF_SIZE];
};

static DEFINE_PER_CPU(struct nmi_printk_buf, nmi_bufs);

void nmi_printk_store(const char *msg, size_t len)
{
	struct nmi_printk_buf *b = this_cpu_ptr(nmi_bufs);
	unsigned long head = b->head;
	unsigned long tail = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);
	char line[48];
	u64 us = tsc_to_us(rdtsc() - tsc_at_boot);
	size_t plen, i, total;
	bool add_nl = len == 0 || msg[len - 1] != '\n';

	plen = (size_t)snprintf(line, sizeof(line), "[%5lu.%06lu] cpu%u: NMI: ",
				(unsigned long)(us / USEC_PER_SEC),
				(unsigned long)(us % USEC_PER_SEC),
				smp_processor_id());
	total = plen + len + (add_nl ? 1 : 0);
	if (total > NMI_PRINTK_BUF_SIZE - (head - tail)) {
		b->dropped += total;
		return;
	}
	for (i = 0; i < plen; i++)
		b->data[(head + i) & (NMI_PRINTK_BUF_SIZE - 1)] = line[i];
	for (i = 0; i < len; i++)
		b->data[(head + plen + i) & (NMI_PRINTK_BUF_SIZE - 1)] = msg[i];
	if (add_nl)
		b->data[(head + plen + len) & (NMI_PRINTK_BUF_SIZE - 1)] = '\n';
	__atomic_store_n(&b->head, head + total, __ATOMIC_RELEASE);
}

/*
 * The time stamp (µs) opening the line at tail: "[%5lu.%06lu] ...".  A
 * line without one continues the message before it on this CPU: 0, so it
 * goes out next, right behind it.
 */
static u64 line_stamp(const struct nmi_printk_buf *b, unsigned long tail,
		      unsigned long head)
{
	u64 sec = 0, usec = 0;
	bool frac = false;

	if (b->data[tail & (NMI_PRINTK_BUF_SIZE - 1)] != '[')
		return 0;
	for (tail++; tail != head; tail++) {
		char c = b->data[tail & (NMI_PRINTK_BUF_SIZE - 1)];

		if (c == ']')
			return sec * USEC_PER_SEC + usec;
		if (c == '.')
			frac = true;
		else if (c >= '0' && c <= '9' && frac)
			usec = usec * 10 + (u64)(c - '0');
		else if (c >= '0' && c <= '9')
			sec = sec * 10 + (u64)(c - '0');
		else if (c != ' ')
			break;
	}
	return 0;
}

/*
 * Write the line at b's tail and give its room back; its length.  A line
 * stamped before the newest line already written (an NMI that stored it
 * after the printk that drained the buffers took its own stamp) goes out
 * with that newer stamp: it was printed then, and the log never runs
 * backwards.
 */
static size_t write_line(struct nmi_printk_buf *b, unsigned long head,
			 u64 stamp)
{
	unsigned long tail = b->tail;
	size_t n = 0;

	if (b->data[tail & (NMI_PRINTK_BUF_SIZE - 1)] == '[') {
		if (stamp < console_last_stamp_us) {
			char prefix[32];
			size_t i, len;

			len = (size_t)snprintf(prefix, sizeof(prefix),
					       "[%5lu.%06lu]",
					       (unsigned long)(console_last_stamp_us /
							       USEC_PER_SEC),
					       (unsigned long)(console_last_stamp_us %
							       USEC_PER_SEC));
			for (i = 0; i < len; i++)
				serial_putc(prefix[i]);
			/* Skip the line's own "[...]". */
			while (tail != head &&
			       b->data[tail & (NMI_PRINTK_BUF_SIZE - 1)] != ']') {
				tail++;
				n++;
			}
			if (tail != head) {
				tail++;
				n++;
			}
		} else {
			console_last_stamp_us = stamp;
		}
	}
	while (tail != head) {
		char c = b->data[tail & (NMI_PRINTK_BUF_SIZE - 1)];

		serial_putc(c);
		tail++;
		n++;
		if (c == '\n')
			break;
	}
	__atomic_store_n(&b->tail, tail, __ATOMIC_RELEASE);
	return n;
}

/*
 * Lines go out oldest first across all CPUs (a merge by time stamp), so
 * the log never runs backwards when several CPUs' NMIs printed.
 */
bool nmi_printk_flush_locked(size_t budget)
{
	size_t written = 0;

	for (;;) {
		struct nmi_printk_buf *oldest = NULL;
		unsigned long oldest_head = 0;
		u64 oldest_stamp = 0;
		unsigned int cpu;

		for (cpu = 0; cpu < NR_CPUS; cpu++) {
			struct nmi_printk_buf *b = per_cpu_ptr(nmi_bufs, cpu);
			unsigned long head = __atomic_load_n(&b->head,
							     __ATOMIC_ACQUIRE);
			u64 stamp;

			if (b->tail == head)
				continue;
			stamp = line_stamp(b, b->tail, head);
			if (!oldest || stamp < oldest_stamp) {
				oldest = b;
				oldest_head = head;
				oldest_stamp = stamp;
			}
		}
		if (!oldest)
			return false;
		written += write_line(oldest, oldest_head, oldest_stamp);
		if (written >= budget)
			return true;   /* a whole line ends the piece */
	}
}

unsigned long nmi_printk_dropped(void)
{
	unsigned long sum = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		sum += READ_ONCE(per_cpu(nmi_bufs, cpu).dropped);
	return sum;
}

/* Tests: forget what cpu's buffer holds (console lock held: the
 * consumer's side of the ring). */
void nmi_printk_discard_locked(unsigned int cpu)
{
	struct nmi_printk_buf *b = per_cpu_ptr(nmi_bufs, cpu);

	__atomic_store_n(&b->tail, __atomic_load_n(&b->head, __ATOMIC_ACQUIRE),
			 __ATOMIC_RELEASE);
}

size_t nmi_printk_peek(unsigned int cpu, char *buf, size_t size)
{
	struct nmi_printk_buf *b = per_cpu_ptr(nmi_bufs, cpu);
	unsigned long head = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
	unsigned long tail = __atomic_load_n(&b->tail, __ATOMIC_ACQUIRE);
	size_t n = 0;

	while (tail != head && n + 1 < size)
		buf[n++] = b->data[tail++ & (NMI_PRINTK_BUF_SIZE - 1)];
	if (size)
		buf[n] = '\0';
	return n;
}
