/*
 * viz.h - allocator snapshots for the replay page (kernel/viz.c,
 * docs/viz.md): `viz=MS` on the command line.
 *
 * viz_init() runs once, in task context, after smp_init() (the CPUs and
 * the boot's caches are known, the timer ticks); viz_timer_tick() is
 * called by every CPU's timer tick, IRQs off, and does nothing but on
 * cpu0 every MS milliseconds.  Neither takes an allocator lock.
 */
#ifndef VIZ_H
#define VIZ_H

#include <types.h>

void viz_init(void);
void viz_timer_tick(void);
/* Snapshots written so far (0 without viz=): tests/kernel/viz_test.c. */
unsigned long viz_snapshots(void);
/* Armed: viz= given and COM2 answered. */
bool viz_running(void);

#endif
