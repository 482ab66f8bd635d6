/*
 * viz.c - allocator snapshots from the timer, for a page that replays a
 * boot (`viz=MS`; scripts/viz.py draws them, docs/viz.md tells the story).
 *
 * Every MS milliseconds (rounded up to whole ticks of the 100 Hz APIC
 * timer) cpu0's tick writes one snapshot of the allocator to COM2, a
 * second serial line that nothing else uses, so the console log on COM1
 * (its KTAP, its time stamps that never run backwards, the reports the
 * harness looks for) is exactly what it would be without viz=.  A
 * snapshot is a few short lines (docs/viz.md has the grammar):
 *
 *   s SEQ SECONDS TICKS               begin: number, printk's clock, cpu0 ticks
 *   c CPU NMIS 6 nolock counters DEFERRED_NOW      one per possible CPU
 *   z NODE ZONE NR_FREE[0..10] PCP_COUNT[cpu..] NR_DEFERRED  one per zone
 *   k NAME CAP MAIN SPARE (per CPU) BF BE NP NF (per node) FLUSH +SLAB -SLAB
 *   e SEQ                             end: a snapshot without it is cut off
 *
 * after one header line (`h VERSION EVERY_MS CPUS NODES ORDERS BARN_MAX_FULL
 * BARN_MAX_EMPTY`)
 * written at arming time.  Only cpu0 writes COM2, and only from its tick
 * (before the EOI, so IRQs stay off and no second tick can nest inside a
 * snapshot); the header is written before the tick is armed (release
 * store).  So the line has one writer at a time and needs no lock.
 *
 * NO LOCK IS TAKEN, NOT EVEN TRIED.  The tick may land on cpu0 inside an
 * allocation fast path (the restartable sequences run with IRQs on, half
 * way through changing main->size), and the other CPUs hold sheaf locks,
 * barn locks, list_locks, zone and pcp locks at any moment, for as long
 * as an NMI storm keeps them busy; a snapshot that waited would stall
 * cpu0's tick behind them, and even a trylock of slab_caches_lock would
 * be seen by mm_check, which counts it held as "not quiescent".  Instead
 * every value is one READ_ONCE() of a word that its writer stores whole:
 *   - pcs->main through pcs_main_unlocked() (the real main behind a traced
 *     cache's trace gate), then main->size; pcs->spare, then its size.
 *     The sheaf may be swapped or freed under us: its memory stays mapped
 *     (kmalloc memory is in the direct map, never unmapped), so the read
 *     is garbage at worst, and sizes are clamped to the cache's capacity;
 *   - barn->nr_full, nr_empty; kmem_cache_node.nr_partial, nr_slabs
 *     (full slabs = nr_slabs - nr_partial, 0 if the two disagree for a
 *     moment); s->stat[] counters;
 *   - free_area[order].nr_free, per_cpu_pages.count, zone->nr_deferred;
 *   - nmi_count(), the nolock_stats counters, slab_deferred_frees().
 * The values of one snapshot are therefore not one instant: each is true
 * at some moment during the snapshot (microseconds).  That is what a
 * picture needs, and it never stops a CPU.
 *
 * WHICH CACHES.  The cache list (slab_caches) cannot be walked without its
 * lock: a cache destroyed meanwhile would be freed memory whose list links
 * are gone.  So viz_init() copies, under slab_caches_lock in task context,
 * the caches that exist at arming time (the boot's caches: kmem_cache and
 * the kmalloc classes, which are never destroyed) and the tick reads only
 * those.  A test's private cache is not drawn; a snapshot lists the caches
 * that have made a slab so far.  A cache without sheaves (sheaf_capacity 0,
 * or another per-CPU scheme) prints "-" for its sheaves: no bars.
 *
 * Cost: a snapshot of a 2-CPU boot is about 1 KiB, sent byte by byte to
 * QEMU's UART with IRQs off on cpu0 (well under a millisecond under TCG);
 * every byte touches the watchdog, as the console's do.
 */
#include <kernel.h>
#include <mmzone.h>
#include <nmi.h>
#include <nolock_stats.h>
#include <numa.h>
#include <printk.h>
#include <slab.h>
#include <smp.h>
#include <viz.h>
#include "../mm/slab_internal.h"
#include "../arch/x86_64/apic.h"
#include "params.h"
#include "serial.h"
#include "timekeeping.h"

#define VIZ_FORMAT_VERSION 1
#define VIZ_MAX_CACHES     64    /* the boot makes 14 today */
#define VIZ_PIECE_MAX      160   /* one formatted piece of a line */
#define MS_PER_SEC         1000

static struct kmem_cache *viz_caches[VIZ_MAX_CACHES];
static unsigned int viz_nr_caches;
static unsigned int viz_every_ticks;  /* snapshot every this many ticks */
static unsigned int viz_ticks;        /* cpu0's ticks since the last one */
static unsigned long viz_seq;
static bool viz_armed;                /* release-stored by viz_init() */

/* Format a piece and send it to COM2 (cpu0's tick, or viz_init() before
 * arming: one writer). */
static __printf(1, 2) void viz_put(const char *fmt, ...)
{
	char buf[VIZ_PIECE_MAX];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	serial2_write(buf, (unsigned long)n);
}

/* A sheaf's fill, read racily: "-" without one, else clamped. */
static void viz_put_sheaf(const struct slab_sheaf *sheaf, unsigned int cap)
{
	unsigned int size;

	if (!sheaf) {
		viz_put(" -");
		return;
	}
	size = sheaf == &bootstrap_sheaf ? 0 : READ_ONCE(sheaf->size);
	viz_put(" %u", size > cap ? cap : size);
}

static void viz_put_cache(struct kmem_cache *s)
{
	unsigned int cap = READ_ONCE(s->sheaf_capacity);
	unsigned int cpu;
	int nid;

	viz_put("k %s %u", s->name, cap);
	for_each_possible_cpu(cpu) {
		const struct slub_percpu_sheaves *pcs = &s->cpu_sheaves[cpu];

		if (!cap) {
			viz_put(" - -");
			continue;
		}
		viz_put_sheaf(pcs_main_unlocked(pcs), cap);
		viz_put_sheaf(READ_ONCE(pcs->spare), cap);
	}
	for (nid = 0; nid < nr_node_ids; nid++) {
		const struct kmem_cache_node *n = get_node(s, nid);
		unsigned long partial = READ_ONCE(n->nr_partial);
		unsigned long slabs = READ_ONCE(n->nr_slabs);

		viz_put(" %u %u %lu %lu", READ_ONCE(n->barn.nr_full),
			READ_ONCE(n->barn.nr_empty), partial,
			slabs > partial ? slabs - partial : 0);
	}
	viz_put(" %lu %lu %lu\n", READ_ONCE(s->stat[SHEAF_FLUSH]),
		READ_ONCE(s->stat[ALLOC_SLAB]), READ_ONCE(s->stat[FREE_SLAB]));
}

static void viz_put_zone(int nid, const struct zone *zone)
{
	unsigned int o, cpu;

	viz_put("z %d %s", nid, zone->name);
	for (o = 0; o < NR_PAGE_ORDERS; o++)
		viz_put(" %lu", READ_ONCE(zone->free_area[o].nr_free));
	for_each_possible_cpu(cpu)
		viz_put(" %d", READ_ONCE(zone->pcp[cpu].count));
	viz_put(" %lu\n", READ_ONCE(zone->nr_deferred));
}

static void viz_put_cpu(unsigned int cpu)
{
	const struct nolock_stats *st = per_cpu_ptr(nolock_stats, cpu);

	viz_put("c %u %lu %lu %lu %lu %lu %lu %lu %lu\n", cpu, nmi_count(cpu),
		READ_ONCE(st->page_alloc_busy), READ_ONCE(st->page_alloc_nomem),
		READ_ONCE(st->obj_alloc_busy), READ_ONCE(st->obj_alloc_nomem),
		READ_ONCE(st->page_free_deferred),
		READ_ONCE(st->obj_free_deferred), slab_deferred_frees(cpu));
}

static void viz_snapshot(void)
{
	u64 us = tsc_to_us(rdtsc() - tsc_at_boot);
	unsigned int cpu, i, z;
	int nid;

	viz_seq++;
	viz_put("s %lu %lu.%06lu %lu\n", viz_seq,
		(unsigned long)(us / USEC_PER_SEC),
		(unsigned long)(us % USEC_PER_SEC),
		per_cpu(apic_timer_ticks, 0));
	for_each_possible_cpu(cpu)
		viz_put_cpu(cpu);
	for (nid = 0; nid < nr_node_ids; nid++) {
		const struct pglist_data *pgdat = NODE_DATA(nid);

		if (!pgdat)
			continue;
		for (z = 0; z < MAX_NR_ZONES; z++)
			if (!zone_is_empty(&pgdat->node_zones[z]))
				viz_put_zone(nid, &pgdat->node_zones[z]);
	}
	for (i = 0; i < viz_nr_caches; i++)
		if (READ_ONCE(viz_caches[i]->stat[ALLOC_SLAB]))
			viz_put_cache(viz_caches[i]);
	viz_put("e %lu\n", viz_seq);
}

unsigned long viz_snapshots(void)
{
	return READ_ONCE(viz_seq);
}

bool viz_running(void)
{
	return __atomic_load_n(&viz_armed, __ATOMIC_ACQUIRE);
}

void viz_timer_tick(void)
{
	if (!__atomic_load_n(&viz_armed, __ATOMIC_ACQUIRE) ||
	    smp_processor_id() != 0)
		return;
	if (++viz_ticks < viz_every_ticks)
		return;
	viz_ticks = 0;
	viz_snapshot();
}

void viz_init(void)
{
	unsigned long ms, flags;
	struct kmem_cache *s;

	ms = (unsigned long)param_number(PARAM_VIZ);
	if (!ms)
		return;
	if (!serial2_init()) {
		pr_info("viz: viz=%lu wants COM2 for its snapshots and no UART answers there (QEMU: -device isa-serial,index=1,chardev=...): no snapshots\n",
			ms);
		return;
	}
	viz_every_ticks = (unsigned int)((ms * APIC_TIMER_HZ + MS_PER_SEC - 1) /
					 MS_PER_SEC);
	spin_lock_irqsave(&slab_caches_lock, flags);
	list_for_each_entry(s, &slab_caches, list) {
		if (viz_nr_caches == VIZ_MAX_CACHES)
			break;
		viz_caches[viz_nr_caches++] = s;
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	viz_put("h %u %u %u %d %u %u %u\n", VIZ_FORMAT_VERSION,
		viz_every_ticks * MS_PER_SEC / APIC_TIMER_HZ, nr_cpu_possible,
		nr_node_ids, (unsigned int)NR_PAGE_ORDERS, BARN_MAX_FULL,
		BARN_MAX_EMPTY);
	pr_info("viz: an allocator snapshot every %u ms (%u ticks of cpu0) on COM2, %u caches of the boot watched (docs/viz.md)\n",
		viz_every_ticks * MS_PER_SEC / APIC_TIMER_HZ, viz_every_ticks,
		viz_nr_caches);
	__atomic_store_n(&viz_armed, true, __ATOMIC_RELEASE);
}
