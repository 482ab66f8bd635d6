/*
 * timekeeping.h - time from the TSC.
 *
 * tsc_calibrate() (arch/x86_64/tsc.c) measures the TSC against the PIT once
 * at boot; from then on, time is rdtsc() divided by the measured rate.
 * Before calibration tsc_khz holds a guess, so stamps are never garbage.
 */
#ifndef KERNEL_TIMEKEEPING_H
#define KERNEL_TIMEKEEPING_H

#include <types.h>
#include "../arch/x86_64/cpu.h"

#define USEC_PER_SEC 1000000ull

extern u64 tsc_khz;
/* The TSC when kernel_main() began: printk's stamps count from there (a
 * TSC need not start at 0: under KVM it carries the host's uptime). */
extern u64 tsc_at_boot;
void tsc_calibrate(void);

static inline u64 tsc_to_us(u64 tsc)
{
	return tsc_khz ? tsc / (tsc_khz / 1000 ? tsc_khz / 1000 : 1) : 0;
}

static inline u64 us_to_tsc(u64 us)
{
	return us * (tsc_khz / 1000);
}

/* Busy-wait: usable before interrupts exist and from any context. */
static inline void udelay(u64 us)
{
	u64 end = rdtsc() + us_to_tsc(us);

	while (rdtsc() < end)
		cpu_relax();
}

#endif
