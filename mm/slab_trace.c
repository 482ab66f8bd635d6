/*
 * slab_trace.c - follow one cache's allocations and frees, step by step.
 *
 * A learner who reads docs/slab-and-sheaves.md wants to see the story it
 * tells happen: which allocation hit the sheaf, which one swapped with the
 * spare, traded with the barn, refilled from a partial slab, made a new
 * slab (and where the page allocator found its pages), which free flushed
 * a batch back.  A traced cache prints one line for each such step:
 *
 *   trace: kmalloc-64 cpu0 SHEAF_REFILL: a sheaf refilled from partial
 *          slabs (mm/sheaf.c alloc_full_sheaf)
 *
 * the statistic it counts (enum slab_stat_item: Linux's names), what that
 * means, and the file and function that took the step.  Each step is a
 * stat() or slab_trace() (mm/slab_internal.h), so the trace and slabinfo's
 * counters can never tell two stories.
 *
 * Turning it on:
 *   - trace_alloc=NAME[,NAME...] on the command line: caches by name, a
 *     trailing * a prefix (trace_alloc=kmalloc-* for every kmalloc class);
 *     caches created later that match are traced from their creation;
 *   - slab_trace_enable(s) / slab_trace_disable(s) at run time (task
 *     context), which the tests use;
 *   - slab_trace_hook, for tests: called with every step, beside the line.
 *
 * LEAVING THE FAST PATHS.  The inline fast paths (kmalloc(), kfree(),
 * kmem_cache_alloc(), kmem_cache_free(), kmalloc_nolock(), kfree_nolock())
 * have no trace test in them: their instruction counts are what
 * `make bench` publishes.  Instead a traced cache's main sheaf, while its
 * sheaf lock is free, is slab_trace_gate, an empty sheaf of capacity 0
 * (the real one waits in pcs->traced_main).  A pop needs main->size, a
 * push main->size < capacity: both fail, and the slow paths, which take
 * the sheaf lock, get the real main back under it and print.  Only
 * pcs_trylock_irqsave()/pcs_unlock_irqrestore() (slab_internal.h) swap
 * the two, under the lock; a reader without the lock asks
 * pcs_main_unlocked().  Turning the trace on or off goes through
 * flush_all_sheaves(), so every CPU starts again from empty sheaves,
 * gated or not, and a traced cache's story starts at its beginning.
 *
 * THE PAGE ALLOCATOR.  A new slab's pages: the trace compares this CPU's
 * per-CPU page list and the node's free areas before and after the call
 * and says whether the block came from the per-CPU list, from a batch the
 * list took from the buddy, or from a larger buddy block split down.  The
 * page allocator itself stays untouched; on a busy machine another CPU
 * may change the counts in between, so that line is a reading, not a
 * proof (the steps above are exact).
 *
 * Context: a step may be printed from any context, NMI included (printk
 * buffers NMI lines).  Tracing is for a learner's quiet machine: it
 * prints a line for every allocation of the cache.
 */
#include <kernel.h>
#include <mmzone.h>
#include <printk.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "slab_internal.h"

/* Every fast path refuses it: see LEAVING THE FAST PATHS above. */
struct slab_sheaf slab_trace_gate;

void (*slab_trace_hook)(struct kmem_cache *s, enum slab_stat_item item,
			const char *func);

#define SLAB_STAT_NAME(name, what) [name] = #name,
#define SLAB_STAT_WHAT(name, what) [name] = what,
static const char *const slab_stat_name[NR_SLAB_STAT_ITEMS] = {
	SLAB_STAT_ITEMS(SLAB_STAT_NAME)
};
static const char *const slab_stat_what[NR_SLAB_STAT_ITEMS] = {
	SLAB_STAT_ITEMS(SLAB_STAT_WHAT)
};
#undef SLAB_STAT_NAME
#undef SLAB_STAT_WHAT

void slab_trace_step(struct kmem_cache *s, enum slab_stat_item item,
		     const char *file, const char *func)
{
	void (*hook)(struct kmem_cache *, enum slab_stat_item, const char *) =
		READ_ONCE(slab_trace_hook);

	pr_info("trace: %s cpu%u %s: %s (%s %s)\n", s->name,
		smp_processor_id(), slab_stat_name[item], slab_stat_what[item],
		file, func);
	if (hook)
		hook(s, item, func);
}

const char *slab_stat_item_name(enum slab_stat_item item)
{
	return item < NR_SLAB_STAT_ITEMS ? slab_stat_name[item] : "?";
}

/* ---- which caches: trace_alloc= ---- */

static const char *trace_names;   /* the command line's list, or NULL */

/* Does one entry of the list (len bytes, a trailing * a prefix) name s? */
static bool entry_names(const char *entry, size_t len, const char *name)
{
	if (len && entry[len - 1] == '*')
		return !strncmp(entry, name, len - 1);
	return strlen(name) == len && !strncmp(entry, name, len);
}

static bool names_cache(const char *list, const char *name)
{
	while (list && *list) {
		const char *comma = strchr(list, ',');
		size_t len = comma ? (size_t)(comma - list) : strlen(list);

		if (entry_names(list, len, name))
			return true;
		list = comma ? comma + 1 : NULL;
	}
	return false;
}

void slab_trace_enable(struct kmem_cache *s)
{
	if (s->flags & SLAB_TRACED)
		return;
	__atomic_fetch_or(&s->flags, SLAB_TRACED, __ATOMIC_RELAXED);
	flush_all_sheaves(s);   /* each CPU unlocks: its main gated */
	flush_all_cpu_slabs(s); /* and its tid odd (cpu_slab.c) */
	pr_info("trace: %s: every step of its allocations and frees from now on\n",
		s->name);
}

void slab_trace_disable(struct kmem_cache *s)
{
	if (!(s->flags & SLAB_TRACED))
		return;
	__atomic_fetch_and(&s->flags, ~SLAB_TRACED, __ATOMIC_RELAXED);
	flush_all_sheaves(s);   /* each CPU locks: its main back, ungated */
	flush_all_cpu_slabs(s); /* its tid even again */
	pr_info("trace: %s: off\n", s->name);
}

void slab_trace_new_cache(struct kmem_cache *s)
{
	if (names_cache(trace_names, s->name))
		slab_trace_enable(s);
}

/* A cache the list names that is not traced yet, or NULL. */
static struct kmem_cache *next_untraced_named(void)
{
	struct kmem_cache *s, *found = NULL;
	unsigned long flags;

	spin_lock_irqsave(&slab_caches_lock, flags);
	list_for_each_entry(s, &slab_caches, list) {
		if (!(s->flags & SLAB_TRACED) &&
		    names_cache(trace_names, s->name)) {
			found = s;
			break;
		}
	}
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return found;
}

void slab_trace_setup(const char *names)
{
	struct kmem_cache *s;
	unsigned int n = 0;

	trace_names = names && *names ? names : NULL;
	if (!trace_names)
		return;
	/* One at a time: enabling sends IPIs, which must not wait under
	 * slab_caches_lock (caches are only added, never removed, at boot). */
	while ((s = next_untraced_named())) {
		slab_trace_enable(s);
		n++;
	}
	if (!n)
		pr_info("trace: trace_alloc=%s names no cache yet (caches created later are traced when their name matches)\n",
			trace_names);
}

/* ---- the page allocator's part of a new slab ---- */

void slab_trace_pages_before(struct slab_trace_pages *t, int nid)
{
	const struct pglist_data *pgdat;
	unsigned int z, o;

	memset(t, 0, sizeof(*t));
	t->nid = nid == NUMA_NO_NODE ? numa_mem_id() : nid;
	pgdat = NODE_DATA(t->nid);
	if (!pgdat)
		return;
	for (z = 0; z < MAX_NR_ZONES; z++) {
		const struct zone *zone = &pgdat->node_zones[z];

		t->pcp_count[z] = READ_ONCE(zone->pcp[smp_processor_id()].count);
		for (o = 0; o < NR_PAGE_ORDERS; o++)
			t->nr_free[z][o] = READ_ONCE(zone->free_area[o].nr_free);
	}
}

void slab_trace_pages_after(struct kmem_cache *s,
			    const struct slab_trace_pages *t,
			    const struct page *slab)
{
	const struct zone *zone = page_zone(slab);
	unsigned int z = zone->idx, order = s->order, o, split = order;
	int pcp_now = READ_ONCE(zone->pcp[smp_processor_id()].count);
	const char *how;

	if (page_to_nid(slab) != t->nid) {
		how = "from another node (its own had none)";
	} else if (pcp_now == t->pcp_count[z] - (1 << order)) {
		how = "from this CPU's page list";
	} else if (pcp_now > t->pcp_count[z]) {
		how = "from this CPU's page list, after it took a batch from the buddy";
	} else if (pcp_now == t->pcp_count[z]) {
		/* The list was not used (off, or not for this order). */
		for (o = NR_PAGE_ORDERS; o-- > order;) {
			if (READ_ONCE(zone->free_area[o].nr_free) <
			    t->nr_free[z][o]) {
				split = o;
				break;
			}
		}
		how = "from the buddy";
	} else {
		how = "(the per-CPU list changed meanwhile: another path used it)";
	}
	if (split > order)
		pr_info("trace: %s cpu%u   pages: order %u (%lu KiB) at pfn %#lx, node %d zone %s, %s: a free block of order %u split down, its halves back on the free lists\n",
			s->name, smp_processor_id(), order,
			(PAGE_SIZE << order) >> 10, page_to_pfn(slab),
			page_to_nid(slab), zone->name, how, split);
	else
		pr_info("trace: %s cpu%u   pages: order %u (%lu KiB) at pfn %#lx, node %d zone %s, %s\n",
			s->name, smp_processor_id(), order,
			(PAGE_SIZE << order) >> 10, page_to_pfn(slab),
			page_to_nid(slab), zone->name, how);
}
