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
 * Neither side waits for the other.  The consumer writes whole lines and
 * may stop after a budget of bytes (at the end of a line, so a piece never
 * ends mid-line): printk drains in pieces, giving the console lock up in
 * between (kernel/printk.c).  A message that does not fit whole is
 * dropped whole (never half a line) and counted in `dropped`, which the
 * boot summary reports.
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
				(unsigned long)(us / 1000000),
				(unsigned long)(us % 1000000),
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

bool nmi_printk_flush_locked(size_t budget)
{
	size_t written = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		struct nmi_printk_buf *b = per_cpu_ptr(nmi_bufs, cpu);
		unsigned long head = __atomic_load_n(&b->head, __ATOMIC_ACQUIRE);
		unsigned long tail = b->tail;

		while (tail != head) {
			char c = b->data[tail & (NMI_PRINTK_BUF_SIZE - 1)];

			serial_putc(c);
			tail++;
			written++;
			if (c != '\n')
				continue;
			/* A line is out: give its room back at once. */
			__atomic_store_n(&b->tail, tail, __ATOMIC_RELEASE);
			if (written >= budget)
				return true;   /* a whole line ends the piece */
		}
		__atomic_store_n(&b->tail, tail, __ATOMIC_RELEASE);
	}
	return false;
}

unsigned long nmi_printk_dropped(void)
{
	unsigned long sum = 0;
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		sum += READ_ONCE(per_cpu(nmi_bufs, cpu).dropped);
	return sum;
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
