/*
 * tsc.c - how fast does the time-stamp counter tick?
 *
 * We count TSC ticks across a known interval measured by the 8254 PIT:
 * channel 2 in mode 0 ("interrupt on terminal count") counts down from a
 * latch value at 1.193182 MHz and raises its OUT pin, readable in bit 5 of
 * port 0x61, when it reaches zero.  Channel 2 is gated by bit 0 of port
 * 0x61 and needs no interrupt, so this works before the IDT exists.
 * (PIT ports: the Intel 8254 data sheet; port 0x61: the PC/AT "NMI status
 * and control" register.)
 *
 * Under QEMU TCG the TSC follows the host clock; under -icount it counts
 * guest instructions, and the PIT follows the same virtual clock, so the
 * figure is consistent either way.
 */
#include <printk.h>
#include "cpu.h"
#include "../../kernel/timekeeping.h"

#define PIT_HZ             1193182u
#define PIT_CH2_DATA       0x42
#define PIT_MODE_CMD       0x43
#define PIT_CMD_CH2_LOHI_MODE0 0xb0  /* channel 2, lo/hi byte, mode 0, binary */
#define PORT_NMI_SC        0x61
#define NMI_SC_TIMER2_GATE 0x01
#define NMI_SC_SPEAKER     0x02
#define NMI_SC_TIMER2_OUT  0x20

#define CALIBRATE_MS       10
#define CALIBRATE_TRIES    3

/* A believable guess, used only for the stamps printed before calibration. */
u64 tsc_khz = 1000000;
u64 tsc_at_boot;

static u64 measure_once(void)
{
	u32 latch = PIT_HZ / (1000 / CALIBRATE_MS);
	u64 start, end;
	u8 sc;

	sc = inb(PORT_NMI_SC);
	outb(PORT_NMI_SC, (sc & ~NMI_SC_SPEAKER) | NMI_SC_TIMER2_GATE);
	outb(PIT_MODE_CMD, PIT_CMD_CH2_LOHI_MODE0);
	outb(PIT_CH2_DATA, latch & 0xff);
	outb(PIT_CH2_DATA, latch >> 8);
	start = rdtsc();
	while (!(inb(PORT_NMI_SC) & NMI_SC_TIMER2_OUT))
		cpu_relax();
	end = rdtsc();
	return (end - start) / CALIBRATE_MS;
}

void tsc_calibrate(void)
{
	u64 best = 0;
	int i;

	/* Keep the smallest: an interval can only be stretched, by host
	 * scheduling, never shortened. */
	for (i = 0; i < CALIBRATE_TRIES; i++) {
		u64 khz = measure_once();

		if (khz && (!best || khz < best))
			best = khz;
	}
	if (best)
		tsc_khz = best;
}
