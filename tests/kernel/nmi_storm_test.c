/*
 * nmi_storm_test.c - NMI allocation storms (issue 6): every CPU allocates
 * and frees in task context while NMIs rain on it, and every NMI allocates
 * and frees too.  Afterwards every pattern must be intact, every object
 * and page returned, and the buddy's free count exactly what it was.
 *
 * Who does what, during one storm:
 *   - every worker CPU (all but the hammer) runs storm_task_loop() in task
 *     context, IRQs on (on_each_cpu_task(), kernel/cpu_work.c): kmalloc()
 *     of random sizes, a private cache (with sheaves, SLUB's per-CPU
 *     slabs or neither: one storm each), alloc_pages() of random orders,
 *     each object patterned with a tag that names its owner, checked
 *     before it is freed; it refills its CPU's prefilled sheaf, hands
 *     objects to other CPUs' NMIs, and sends NMIs to random CPUs;
 *   - the hammer CPU (the last one, when there are two or more) sends
 *     NMIs to the others until every worker is done; with one CPU the
 *     worker sends itself an NMI every iteration instead;
 *   - a storm ends on participation, not on a count: a worker that has
 *     done its share (at least STORM_MIN_ITERS iterations) goes on, and
 *     sends an NMI to a CPU that has taken fewer than STORM_MIN_NMIS, until
 *     every CPU, the hammer included, has taken that many (or the
 *     test_wait.h deadline passes, and the check fails).  The shares shrink
 *     with the CPU count (the pressure storm's with its square), so at
 *     SMP=32 a worker had 8 iterations and the hammer, which only the
 *     workers' random NMIs reach, often took none;
 *   - every NMI runs storm_nmi_burst(): kmalloc_nolock() (patterned; freed
 *     at once with kfree_nolock() or handed to task context), try_alloc_
 *     pages() (freed with free_pages_nolock() or handed over), an object
 *     from this CPU's prefilled sheaf (which must not fail while the sheaf
 *     holds objects), and frees of what task context left for it;
 *   - RCU traffic (issue 14): every NMI also takes a kmalloc_nolock()
 *     object and frees it with kfree_rcu_nolock() at once (kind
 *     kfree_rcu_nolock), and task context keeps kmalloc() objects in slots
 *     of their own and frees them with kfree_rcu() (kind kfree_rcu); some
 *     of those go through a to_nmi mailbox and are freed there with
 *     kfree_rcu_nolock() instead.  Such an object is counted freed when it
 *     is handed to RCU; that it really went back, once, is what the end
 *     checks: kvfree_rcu_barrier() before the free pages are counted (so a
 *     lost object shows as pages not returned), no kfree_rcu_nolock()
 *     object still parked on any CPU, and no slab report (a double free
 *     would be one).
 *
 * Mailboxes (lock-free lists, llist.h, linked through the object itself):
 *   to_task[cpu]: filled by cpu's NMIs, emptied by cpu's task loop;
 *   to_nmi[cpu]:  filled by any CPU's task loop, emptied by cpu's NMIs.
 * llist_add() is one compare-and-swap and llist_del_all() one exchange,
 * so an NMI that lands between the two halves of either loses nothing.
 *
 * The prefilled sheaf of a CPU is used by that CPU's NMIs only while the
 * CPU's task context is not refilling it (sheaf_busy): an NMI runs to the
 * end before the interrupted code resumes, so a flag set and cleared
 * around the refill on the same CPU needs only compiler barriers.
 *
 * Accounting: each CPU counts allocations and frees per kind of object in
 * its own slots, with one atomic add each (task context and its NMIs may
 * bump the same counter).  The end of a storm stops the NMIs (armed off,
 * then wait until no handler is inside), drains the mailboxes, returns the
 * sheaves, destroys the private cache, shrinks every cache, drains the
 * per-CPU page lists, and compares.
 *
 * Seeds: every random choice (sizes, orders, targets) comes from a
 * per-CPU generator seeded from boot_seed, which the summary prints;
 * `seed=` replays the choices.  The interleaving of CPUs and NMIs under
 * QEMU is not replayable, only the choices each CPU makes.
 *
 * kmalloc_nolock()/kfree_nolock() and the per-CPU reason counters
 * (nolock_stats.h) are used only in the "any-context allocator" section
 * below; STORM_HAVE_KMALLOC_NOLOCK 0 runs the storms on pages and sheaves
 * alone (as they ran before those calls existed).
 */
#include <cpu_work.h>
#include <irq_work.h>
#include <irqflags.h>
#include <kernel.h>
#include <kunit.h>
#include <llist.h>
#include <mm.h>
#include <mmzone.h>
#include <nmi.h>
#include <nolock_stats.h>
#include <prandom.h>
#include <printk.h>
#include <rcupdate.h>
#include <watchdog.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "../../arch/x86_64/cpu.h"
#include "../../kernel/timekeeping.h"
#include "../../mm/slab_internal.h"
#include "test_wait.h"

#define STORM_HAVE_KMALLOC_NOLOCK 1   /* 0: pages and sheaves only */

/* ---- sizes and limits ---- */
#define STORM_MAGIC          0x53544f524d4f424aull  /* "STORMOBJ" */
#define STORM_DEAD           0xdeadbeefdeadbeefull  /* written before free */
#define STORM_GOLDEN         0x9e3779b97f4a7c15ull  /* pattern spreader */
#define STORM_MAX_KMALLOC    KMALLOC_MAX_CACHE_SIZE /* 8 KiB */
#define STORM_CACHE_SIZE     192     /* the private cache's objects */
#define STORM_SHEAF_FILL     12      /* objects a prefilled sheaf is given */
#define STORM_SHEAF_LOW      6       /* refill below this */
#define STORM_OBJ_SLOTS      16      /* kmalloc / cache objects a CPU holds */
#define STORM_MAX_PAGE_SLOTS 64
#define STORM_TASK_MAX_ORDER 3
#define STORM_NMI_MAX_ORDER  2
#define STORM_NMI_KMALLOCS   2       /* kmalloc_nolock() calls per NMI */
#define STORM_MAILBOX_MAX    32      /* objects queued per mailbox */
#define STORM_HAMMER_PACE_US 40      /* hammer: gap between two rounds */
#define STORM_HAMMER_WAIT_US 2000    /* hammer: wait for the round's NMIs */
#define STORM_PAGE_STRIDE    8       /* page blocks: one word a cache line */
#define STORM_PRESSURE_RESERVE 64    /* pages left free by the hog */
#define STORM_MIN_ITERS      64      /* a worker's share never less */
#define STORM_MIN_NMIS       4       /* NMIs each CPU takes in a storm */

enum storm_kind {
	STORM_KMALLOC,   /* kmalloc() in task context */
	STORM_NOLOCK,    /* kmalloc_nolock() in an NMI */
	STORM_PAGE,      /* alloc_pages() or try_alloc_pages() */
	STORM_CACHE,     /* the private cache, task context */
	STORM_SHEAF,     /* the private cache, from a prefilled sheaf in NMI */
	STORM_RCU,       /* kmalloc() in task context, freed by kfree_rcu() */
	STORM_RCU_NOLOCK, /* kmalloc_nolock() in an NMI, kfree_rcu_nolock() */
	STORM_NR_KINDS,
};

static const char *const storm_kind_name[STORM_NR_KINDS] = {
	"kmalloc", "kmalloc_nolock", "page", "cache", "sheaf", "kfree_rcu",
	"kfree_rcu_nolock",
};

/*
 * Every object and page block starts with this header; the rest is
 * pattern words.  tag = owner CPU, kind, context and a serial number, so
 * a word found in the wrong object says whose it was.
 */
struct storm_obj {
	struct llist_node node;  /* mailbox link while queued */
	struct rcu_head rcu;     /* kfree_rcu() and kfree_rcu_nolock() */
	u64 magic;               /* STORM_MAGIC, STORM_DEAD once freed */
	u64 tag;
	u32 words;               /* pattern words after the header */
	u16 owner;               /* CPU that allocated it */
	u8 kind;                 /* enum storm_kind */
	u8 order;                /* STORM_PAGE: block order */
	u64 pattern[];
};

#define STORM_MIN_OBJ (sizeof(struct storm_obj) + sizeof(u64))

struct storm_params {
	const char *name;
	unsigned int iters;        /* task-loop iterations per worker */
	unsigned int share;        /* iters / workers^share for each worker */
	unsigned int page_slots;   /* page blocks a worker holds at most */
	bool pressure;             /* buddy nearly exhausted */
	/* The private cache's per-CPU layer (include/slab.h): auto gives
	 * sheaves; the kmalloc classes follow the boot's slab_mode=. */
	enum slab_mode cache_mode;
};

/* Per CPU; the NMI fields are written only by this CPU's NMIs, the task
 * fields only by its task loop, the kind counters by both (atomically). */
struct storm_cpu {
	/* NMI context */
	struct rnd_state nmi_rnd;
	unsigned long nmis;
	unsigned long nmi_allocs, nmi_frees;
	unsigned long nmi_nulls;          /* any NULL from a nolock call */
	unsigned long sheaf_allocs;
	unsigned long sheaf_failures;     /* NULL while the sheaf had objects */
	unsigned long nmi_kfree_rcu;      /* kfree_rcu_nolock() calls */
	u64 max_cycles;
	u32 nmi_serial;
	/* task context */
	struct rnd_state rnd;
	unsigned long task_ops, task_nulls, nmis_sent;
	unsigned long task_kfree_rcu;     /* kfree_rcu() calls */
	u32 task_serial;
	struct slab_sheaf *sheaf;
	bool sheaf_busy;                  /* task context is refilling it */
	struct storm_obj *kmalloc_slot[STORM_OBJ_SLOTS];
	struct storm_obj *cache_slot[STORM_OBJ_SLOTS];
	struct storm_obj *rcu_slot[STORM_OBJ_SLOTS];
	struct storm_obj *page_slot[STORM_MAX_PAGE_SLOTS];
	/* both */
	unsigned long allocs[STORM_NR_KINDS], frees[STORM_NR_KINDS];
	struct llist_head to_task, to_nmi;
	unsigned int to_task_count, to_nmi_count;
	struct nolock_stats stats_before;
} __aligned(SLAB_CACHE_LINE);

static struct storm_cpu storm_cpus[NR_CPUS];
static const struct storm_params *storm;  /* the running storm */
static struct kmem_cache *storm_cache;
static enum slab_mode storm_cache_mode;
static unsigned int storm_hammer = ~0u;   /* CPU number, or none */
static unsigned int storm_workers_done;
static bool storm_armed;

/* The PIT heartbeat NMI to cpu0 during a storm (kernel/watchdog.c). */
#define STORM_HEARTBEAT_HZ 2000
static unsigned int storm_inflight;       /* NMI handlers inside */
static unsigned long storm_bad_patterns;
static unsigned long storm_sheaf_refill_failures;
static bool storm_first_bad_taken;
static struct {
	unsigned int cpu, kind, word;
	u64 want, got;
	const void *obj;
} storm_first_bad;

static void count_kind(unsigned long *counter)
{
	__atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

/* ---- the any-context allocator (the nolock branch) ---- */

static bool storm_have_kmalloc_nolock(void)
{
	return STORM_HAVE_KMALLOC_NOLOCK;
}

static void *storm_kmalloc_nolock(size_t size)
{
#if STORM_HAVE_KMALLOC_NOLOCK
	return kmalloc_nolock(size, 0, NUMA_NO_NODE);
#else
	(void)size;
	return NULL;
#endif
}

static void storm_kfree_nolock(void *p)
{
#if STORM_HAVE_KMALLOC_NOLOCK
	kfree_nolock(p);
#else
	(void)p;
	BUG();   /* never handed an object without kmalloc_nolock() */
#endif
}

static void storm_read_nolock_stats(unsigned int cpu, struct nolock_stats *st)
{
#if STORM_HAVE_KMALLOC_NOLOCK
	unsigned long *dst = (unsigned long *)st;
	const unsigned long *src = (const unsigned long *)&per_cpu(nolock_stats, cpu);
	unsigned int i;

	for (i = 0; i < sizeof(*st) / sizeof(long); i++)
		dst[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
#else
	(void)cpu;
	memset(st, 0, sizeof(*st));
#endif
}

/* ---- patterns ---- */

static unsigned int stride_of(const struct storm_obj *o)
{
	return o->kind == STORM_PAGE ? STORM_PAGE_STRIDE : 1;
}

static u64 pattern_word(u64 tag, unsigned int i)
{
	return tag ^ ((u64)(i + 1) * STORM_GOLDEN);
}

static void storm_fill(struct storm_obj *o, size_t bytes, enum storm_kind kind,
		       unsigned int order, bool nmi)
{
	struct storm_cpu *c = &storm_cpus[smp_processor_id()];
	u32 serial = nmi ? c->nmi_serial++ : c->task_serial++;
	unsigned int i;

	o->node.next = NULL;
	o->magic = STORM_MAGIC;
	o->owner = (u16)smp_processor_id();
	o->kind = (u8)kind;
	o->order = (u8)order;
	o->words = (u32)((bytes - sizeof(*o)) / sizeof(u64));
	o->tag = ((u64)o->owner << 48) | ((u64)kind << 40) |
		 ((u64)nmi << 32) | serial;
	for (i = 0; i < o->words; i += stride_of(o))
		o->pattern[i] = pattern_word(o->tag, i);
}

static void storm_bad(const struct storm_obj *o, unsigned int word, u64 want,
		      u64 got)
{
	__atomic_fetch_add(&storm_bad_patterns, 1, __ATOMIC_RELAXED);
	if (__atomic_exchange_n(&storm_first_bad_taken, true, __ATOMIC_ACQ_REL))
		return;
	storm_first_bad.cpu = smp_processor_id();
	storm_first_bad.kind = o->kind;
	storm_first_bad.word = word;
	storm_first_bad.want = want;
	storm_first_bad.got = got;
	storm_first_bad.obj = o;
}

/* True if the object is whole; it is then marked dead, ready to free. */
static bool storm_check(struct storm_obj *o)
{
	unsigned int i;

	if (o->magic != STORM_MAGIC || o->kind >= STORM_NR_KINDS) {
		storm_bad(o, ~0u, STORM_MAGIC, o->magic);
		return false;
	}
	for (i = 0; i < o->words; i += stride_of(o)) {
		if (o->pattern[i] != pattern_word(o->tag, i)) {
			storm_bad(o, i, pattern_word(o->tag, i), o->pattern[i]);
			return false;
		}
	}
	o->magic = STORM_DEAD;
	return true;
}

/* ---- task context: allocate, check, free ---- */

static unsigned int random_kmalloc_size(struct rnd_state *r)
{
	return STORM_MIN_OBJ + prandom_below(r, STORM_MAX_KMALLOC -
					     STORM_MIN_OBJ + 1);
}

static struct storm_obj *task_alloc(enum storm_kind kind, unsigned int order)
{
	struct storm_cpu *c = &storm_cpus[smp_processor_id()];
	const gfp_t gfp = GFP_KERNEL | __GFP_NOWARN;
	struct storm_obj *o = NULL;
	size_t bytes = 0;
	struct page *page;

	switch (kind) {
	case STORM_KMALLOC:
	case STORM_RCU:
		bytes = random_kmalloc_size(&c->rnd);
		o = kmalloc(bytes, gfp);
		break;
	case STORM_CACHE:
		bytes = STORM_CACHE_SIZE;
		o = kmem_cache_alloc(storm_cache, gfp);
		break;
	case STORM_PAGE:
		bytes = PAGE_SIZE << order;
		page = alloc_pages(gfp, order);
		o = page ? page_address(page) : NULL;
		break;
	default:
		BUG();
	}
	if (!o) {
		c->task_nulls++;
		return NULL;
	}
	storm_fill(o, bytes, kind, order, false);
	count_kind(&c->allocs[kind]);
	return o;
}

/* Task context: check and free any storm object, whoever made it. */
static void task_free(struct storm_obj *o)
{
	struct storm_cpu *c = &storm_cpus[smp_processor_id()];
	enum storm_kind kind = (enum storm_kind)o->kind;
	unsigned int order = o->order;

	if (!storm_check(o))
		return;   /* counted as bad; leaked rather than trusted */
	switch (kind) {
	case STORM_KMALLOC:
	case STORM_NOLOCK:
		kfree(o);
		break;
	case STORM_CACHE:
	case STORM_SHEAF:
		kmem_cache_free(storm_cache, o);
		break;
	case STORM_PAGE:
		__free_pages(virt_to_page(o), order);
		break;
	case STORM_RCU:
	case STORM_RCU_NOLOCK:
		kfree_rcu(o, rcu);   /* freed after a grace period */
		c->task_kfree_rcu++;
		break;
	default:
		return;
	}
	count_kind(&c->frees[kind]);
}

/* Slot i: free what is there, or put a new object there. */
static void toggle_slot(struct storm_obj **slot, enum storm_kind kind,
			unsigned int order)
{
	if (*slot) {
		task_free(*slot);
		*slot = NULL;
	} else {
		*slot = task_alloc(kind, order);
	}
}

static void drain_list(struct llist_node *n, unsigned int *count)
{
	while (n) {
		struct llist_node *next = n->next;

		task_free(llist_entry(n, struct storm_obj, node));
		__atomic_fetch_sub(count, 1, __ATOMIC_RELAXED);
		n = next;
	}
}

static void drain_to_task(unsigned int cpu)
{
	struct storm_cpu *c = &storm_cpus[cpu];

	drain_list(llist_del_all(&c->to_task), &c->to_task_count);
}

/* Leave an object for another CPU's NMIs to free: kfree_nolock() for a
 * kmalloc() or private-cache object, free_pages_nolock() for pages. */
static void send_to_nmi(unsigned int target)
{
	struct storm_cpu *c = &storm_cpus[smp_processor_id()];
	struct storm_cpu *t = &storm_cpus[target];
	struct storm_obj *o;

	if (READ_ONCE(t->to_nmi_count) >= STORM_MAILBOX_MAX)
		return;
	switch (storm_have_kmalloc_nolock() ? prandom_below(&c->rnd, 4) : 2) {
	case 0:
		o = task_alloc(STORM_KMALLOC, 0);
		break;
	case 3:   /* freed there with kfree_rcu_nolock() */
		o = task_alloc(STORM_RCU, 0);
		break;
	case 1:
		o = task_alloc(STORM_CACHE, 0);
		break;
	default:
		o = task_alloc(STORM_PAGE, prandom_below(&c->rnd,
							 STORM_NMI_MAX_ORDER + 1));
		break;
	}
	if (!o)
		return;
	__atomic_fetch_add(&t->to_nmi_count, 1, __ATOMIC_RELAXED);
	llist_add(&o->node, &t->to_nmi);
}

static void refill_sheaf(struct storm_cpu *c)
{
	int err = 0;

	if (kmem_cache_sheaf_size(c->sheaf) >= STORM_SHEAF_LOW)
		return;
	WRITE_ONCE(c->sheaf_busy, true);
	barrier();   /* this CPU's NMIs see the flag before the refill */
	err = kmem_cache_refill_sheaf(storm_cache, GFP_KERNEL | __GFP_NOWARN,
				      &c->sheaf, STORM_SHEAF_FILL);
	barrier();
	WRITE_ONCE(c->sheaf_busy, false);
	if (err)
		__atomic_fetch_add(&storm_sheaf_refill_failures, 1,
				   __ATOMIC_RELAXED);
}

static unsigned int random_other_cpu(struct rnd_state *r, unsigned int me)
{
	unsigned int t;

	if (nr_cpu_ids == 1)
		return me;
	t = prandom_below(r, nr_cpu_ids - 1);
	return t >= me ? t + 1 : t;
}

static void send_random_nmi(struct storm_cpu *c, unsigned int me)
{
	if (nr_cpu_ids == 1 || !prandom_below(&c->rnd, 4))
		nmi_send_self();
	else
		nmi_send(random_other_cpu(&c->rnd, me));
	c->nmis_sent++;
}

static unsigned int storm_workers(void)
{
	return storm_hammer == ~0u ? 1 : nr_cpu_ids - 1;
}

static unsigned int storm_iters(void)
{
	unsigned int n = storm->iters, k;

	for (k = 0; k < storm->share; k++)
		n /= storm_workers();
	return n > STORM_MIN_ITERS ? n : STORM_MIN_ITERS;
}

/* A CPU that has taken fewer than STORM_MIN_NMIS of this storm's NMIs,
 * the first one found after `me` (so workers spread their nudges), or ~0u
 * when every CPU has taken part. */
static unsigned int storm_cpu_short_of_nmis(unsigned int me)
{
	unsigned int i, cpu;

	for (i = 1; i <= nr_cpu_ids; i++) {
		cpu = (me + i) % nr_cpu_ids;
		if (READ_ONCE(storm_cpus[cpu].nmis) < STORM_MIN_NMIS)
			return cpu;
	}
	return ~0u;
}

static void wait_nmi_taken(unsigned int cpu, unsigned long seen);

/* One iteration of a worker's task loop: one random step. */
static void storm_task_step(struct storm_cpu *c, unsigned int me)
{
	unsigned int i;

	switch (prandom_below(&c->rnd, 9)) {
	case 0:
	case 1:
		i = prandom_below(&c->rnd, STORM_OBJ_SLOTS);
		toggle_slot(&c->kmalloc_slot[i], STORM_KMALLOC, 0);
		break;
	case 2:
		i = prandom_below(&c->rnd, STORM_OBJ_SLOTS);
		toggle_slot(&c->cache_slot[i], STORM_CACHE, 0);
		break;
	case 3:
		i = prandom_below(&c->rnd, storm->page_slots);
		toggle_slot(&c->page_slot[i], STORM_PAGE,
			    prandom_below(&c->rnd,
					  STORM_TASK_MAX_ORDER + 1));
		break;
	case 4:
		send_to_nmi(random_other_cpu(&c->rnd, me));
		break;
	case 5:
		send_random_nmi(c, me);
		break;
	case 6:
		refill_sheaf(c);
		break;
	case 7:
		i = prandom_below(&c->rnd, STORM_OBJ_SLOTS);
		toggle_slot(&c->rcu_slot[i], STORM_RCU, 0);
		break;
	default:
		drain_to_task(me);
		break;
	}
	c->task_ops++;
	if (storm_hammer == ~0u)   /* one CPU: it hammers itself */
		send_random_nmi(c, me);
}

static void storm_task_loop(unsigned int me)
{
	struct storm_cpu *c = &storm_cpus[me];
	unsigned int it, i, short_cpu;
	u64 end;

	for (it = 0; it < storm_iters(); it++)
		storm_task_step(c, me);
	/* Until every CPU has taken part: an event, not a count. */
	end = test_deadline();
	while ((short_cpu = storm_cpu_short_of_nmis(me)) != ~0u &&
	       !test_deadline_passed(end)) {
		unsigned long seen = READ_ONCE(storm_cpus[short_cpu].nmis);

		if (short_cpu == me) {
			nmi_send_self();
		} else {
			/* one nudge at a time: 31 CPUs sending NMIs back to
			 * back queue on QEMU's interrupt path */
			nmi_send(short_cpu);
			wait_nmi_taken(short_cpu, seen);
		}
		c->nmis_sent++;
		storm_task_step(c, me);
	}
	for (i = 0; i < STORM_OBJ_SLOTS; i++) {
		if (c->kmalloc_slot[i])
			task_free(c->kmalloc_slot[i]);
		if (c->cache_slot[i])
			task_free(c->cache_slot[i]);
		if (c->rcu_slot[i])
			task_free(c->rcu_slot[i]);
		c->kmalloc_slot[i] = c->cache_slot[i] = c->rcu_slot[i] = NULL;
	}
	for (i = 0; i < storm->page_slots; i++) {
		if (c->page_slot[i])
			task_free(c->page_slot[i]);
		c->page_slot[i] = NULL;
	}
	drain_to_task(me);
}

/* ---- the hammer: NMIs at every other CPU until the workers are done ---- */

/* Wait (a bounded while) until `cpu` has taken an NMI after `seen`, so
 * the hammer does not bury a CPU under NMIs it cannot take yet. */
static void wait_nmi_taken(unsigned int cpu, unsigned long seen)
{
	u64 end = rdtsc() + us_to_tsc(STORM_HAMMER_WAIT_US);

	while (READ_ONCE(storm_cpus[cpu].nmis) == seen && rdtsc() < end)
		cpu_relax();
}

static void storm_hammer_loop(unsigned int me)
{
	struct storm_cpu *c = &storm_cpus[me];
	unsigned long seen[NR_CPUS];
	unsigned int cpu, target;

	while (__atomic_load_n(&storm_workers_done, __ATOMIC_ACQUIRE) <
	       nr_cpu_ids - 1) {
		if (!prandom_below(&c->rnd, 4)) {
			for_each_online_cpu(cpu)
				seen[cpu] = READ_ONCE(storm_cpus[cpu].nmis);
			nmi_send_allbutself();
			for_each_online_cpu(cpu)
				if (cpu != me)
					wait_nmi_taken(cpu, seen[cpu]);
		} else {
			target = random_other_cpu(&c->rnd, me);
			seen[target] = READ_ONCE(storm_cpus[target].nmis);
			nmi_send(target);
			wait_nmi_taken(target, seen[target]);
		}
		c->nmis_sent++;
		drain_to_task(me);
		udelay(STORM_HAMMER_PACE_US);
	}
	drain_to_task(me);
}

static void storm_cpu_main(void *info)
{
	unsigned int me = smp_processor_id();

	(void)info;
	if (me == storm_hammer) {
		storm_hammer_loop(me);
		return;
	}
	storm_task_loop(me);
	__atomic_fetch_add(&storm_workers_done, 1, __ATOMIC_RELEASE);
}

/* ---- NMI context ---- */

static void nmi_hand_over(struct storm_cpu *c, struct storm_obj *o)
{
	__atomic_fetch_add(&c->to_task_count, 1, __ATOMIC_RELAXED);
	llist_add(&o->node, &c->to_task);
}

/* Free in NMI context: only the any-context calls. */
static void nmi_free(struct storm_cpu *c, struct storm_obj *o)
{
	enum storm_kind kind = (enum storm_kind)o->kind;
	unsigned int order = o->order;

	if (!storm_check(o))
		return;
	if (kind == STORM_PAGE) {
		free_pages_nolock(virt_to_page(o), order);
	} else if (kind == STORM_RCU || kind == STORM_RCU_NOLOCK) {
		kfree_rcu_nolock(o, rcu);
		c->nmi_kfree_rcu++;
	} else {
		storm_kfree_nolock(o);
	}
	count_kind(&c->frees[kind]);
	c->nmi_frees++;
}

/* Keep it for task context (if the mailbox has room) or free it now. */
static void nmi_keep_or_free(struct storm_cpu *c, struct storm_obj *o)
{
	if (prandom_below(&c->nmi_rnd, 2) &&
	    READ_ONCE(c->to_task_count) < STORM_MAILBOX_MAX)
		nmi_hand_over(c, o);
	else
		nmi_free(c, o);
}

static void nmi_kmalloc(struct storm_cpu *c)
{
	unsigned int size = random_kmalloc_size(&c->nmi_rnd);
	struct storm_obj *o = storm_kmalloc_nolock(size);

	if (!o) {
		c->nmi_nulls++;
		return;
	}
	storm_fill(o, size, STORM_NOLOCK, 0, true);
	count_kind(&c->allocs[STORM_NOLOCK]);
	c->nmi_allocs++;
	nmi_keep_or_free(c, o);
}

/* An object that waits for a grace period, freed from this NMI. */
static void nmi_kfree_rcu(struct storm_cpu *c)
{
	unsigned int size = random_kmalloc_size(&c->nmi_rnd);
	struct storm_obj *o = storm_kmalloc_nolock(size);

	if (!o) {
		c->nmi_nulls++;
		return;
	}
	storm_fill(o, size, STORM_RCU_NOLOCK, 0, true);
	count_kind(&c->allocs[STORM_RCU_NOLOCK]);
	c->nmi_allocs++;
	nmi_free(c, o);
}

static void nmi_pages(struct storm_cpu *c)
{
	unsigned int order = prandom_below(&c->nmi_rnd, STORM_NMI_MAX_ORDER + 1);
	struct page *page = try_alloc_pages(0, order);
	struct storm_obj *o;

	if (!page) {
		c->nmi_nulls++;
		return;
	}
	o = page_address(page);
	storm_fill(o, PAGE_SIZE << order, STORM_PAGE, order, true);
	count_kind(&c->allocs[STORM_PAGE]);
	c->nmi_allocs++;
	nmi_keep_or_free(c, o);
}

static void nmi_sheaf(struct storm_cpu *c)
{
	struct storm_obj *o;

	if (READ_ONCE(c->sheaf_busy) || !c->sheaf ||
	    !kmem_cache_sheaf_size(c->sheaf) ||
	    READ_ONCE(c->to_task_count) >= STORM_MAILBOX_MAX)
		return;
	o = kmem_cache_alloc_from_sheaf(storm_cache, GFP_ATOMIC, c->sheaf);
	if (!o) {
		c->sheaf_failures++;   /* it had objects: must not happen */
		return;
	}
	storm_fill(o, STORM_CACHE_SIZE, STORM_SHEAF, 0, true);
	count_kind(&c->allocs[STORM_SHEAF]);
	c->sheaf_allocs++;
	c->nmi_allocs++;
	if (storm_have_kmalloc_nolock())
		nmi_keep_or_free(c, o);
	else
		nmi_hand_over(c, o);   /* for kmem_cache_free() */
}

static void nmi_free_mailbox(struct storm_cpu *c)
{
	struct llist_node *n = llist_del_all(&c->to_nmi);

	while (n) {
		struct llist_node *next = n->next;

		nmi_free(c, llist_entry(n, struct storm_obj, node));
		__atomic_fetch_sub(&c->to_nmi_count, 1, __ATOMIC_RELAXED);
		n = next;
	}
}

static void storm_nmi_burst(struct storm_cpu *c)
{
	unsigned int i;

	if (storm_have_kmalloc_nolock()) {
		for (i = 0; i < STORM_NMI_KMALLOCS; i++)
			nmi_kmalloc(c);
		nmi_kfree_rcu(c);
	}
	nmi_pages(c);
	nmi_sheaf(c);
	nmi_free_mailbox(c);
}

static int storm_nmi(unsigned int type, struct pt_regs *regs)
{
	struct storm_cpu *c = &storm_cpus[smp_processor_id()];
	u64 t0, dt;

	(void)type;
	(void)regs;
	/* In first, then look: the disarming CPU looks the other way round
	 * (armed off, then inflight), so one of the two sees the other. */
	__atomic_fetch_add(&storm_inflight, 1, __ATOMIC_SEQ_CST);
	if (!__atomic_load_n(&storm_armed, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_sub(&storm_inflight, 1, __ATOMIC_RELEASE);
		return NMI_DONE;
	}
	t0 = rdtsc();
	storm_nmi_burst(c);
	dt = rdtsc() - t0;
	if (dt > c->max_cycles)
		c->max_cycles = dt;
	WRITE_ONCE(c->nmis, c->nmis + 1);
	__atomic_fetch_sub(&storm_inflight, 1, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

/* ---- setting up and tearing down a storm ---- */

/* Everything the slab layer holds goes back, then count free pages:
 * what waits for a grace period first (the rcu_free sheaves come back
 * full to the barns, which the shrink empties). */
static unsigned long quiesced_free_pages(void)
{
	kvfree_rcu_barrier();
	kmem_cache_shrink_all();
	drain_all_pages();
	return nr_free_pages();
}

static void run_irq_work(void *info)
{
	(void)info;
	irq_work_run();   /* deferred frees queued on this CPU */
}

static void storm_disarm(void)
{
	__atomic_store_n(&storm_armed, false, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&storm_inflight, __ATOMIC_SEQ_CST))
		cpu_relax();
}

static void storm_prepare(struct kunit *test, const struct storm_params *p)
{
	struct kmem_cache_args args = {
		.sheaf_capacity = SHEAF_CAPACITY_DEFAULT,
		.mode = p->cache_mode,
	};
	unsigned int cpu;

	memset(storm_cpus, 0, sizeof(storm_cpus));
	storm = p;
	storm_workers_done = 0;
	storm_bad_patterns = 0;
	storm_sheaf_refill_failures = 0;
	storm_first_bad_taken = false;
	storm_hammer = nr_cpu_ids > 1 ? nr_cpu_ids - 1 : ~0u;
	storm_cache = kmem_cache_create_args("nmi_storm", STORM_CACHE_SIZE,
					     &args, 0);
	KUNIT_ASSERT_NOT_NULL(test, storm_cache);
	/* The mode asked for (slub_debug= makes every cache "none"). */
	if (!(storm_cache->flags & SLAB_DEBUG_FLAGS) &&
	    p->cache_mode != SLAB_MODE_AUTO)
		KUNIT_EXPECT_EQ(test, kmem_cache_mode(storm_cache), p->cache_mode);
	storm_cache_mode = kmem_cache_mode(storm_cache);   /* for the summary */
	for_each_online_cpu(cpu) {
		struct storm_cpu *c = &storm_cpus[cpu];
		u64 s = boot_seed ^ ((u64)(cpu + 1) * STORM_GOLDEN) ^
			(p->pressure ? STORM_MAGIC : 0);

		prandom_seed_state(&c->rnd, s);
		prandom_seed_state(&c->nmi_rnd, ~s);
		init_llist_head(&c->to_task);
		init_llist_head(&c->to_nmi);
		/* Prefilled here, on the boot CPU: a sheaf belongs to no CPU. */
		c->sheaf = kmem_cache_prefill_sheaf(storm_cache, GFP_KERNEL,
						    STORM_SHEAF_FILL);
		KUNIT_ASSERT_NOT_NULL(test, c->sheaf);
		storm_read_nolock_stats(cpu, &c->stats_before);
	}
}

/* After the storm: no NMI runs, every mailbox and sheaf given back. */
static void storm_teardown(struct kunit *test)
{
	unsigned int cpu;

	storm_disarm();
	for_each_online_cpu(cpu) {
		struct storm_cpu *c = &storm_cpus[cpu];

		drain_to_task(cpu);
		drain_list(llist_del_all(&c->to_nmi), &c->to_nmi_count);
		KUNIT_EXPECT_EQ(test, c->to_task_count, 0);
		KUNIT_EXPECT_EQ(test, c->to_nmi_count, 0);
		kmem_cache_return_sheaf(storm_cache, GFP_KERNEL, c->sheaf);
		c->sheaf = NULL;
	}
	on_each_cpu(run_irq_work, NULL, true);
	/* Every kfree_rcu() and kfree_rcu_nolock() of the storm done. */
	kvfree_rcu_barrier();
	for_each_online_cpu(cpu)
		KUNIT_EXPECT_EQ(test, kfree_rcu_deferred(cpu), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(storm_cache), 0);
	storm_cache = NULL;
}

/* ---- the summary ---- */

struct storm_totals {
	unsigned long nmis, nmi_allocs, nmi_frees, nmi_nulls;
	unsigned long busy, nomem, deferred, task_ops, task_nulls;
	unsigned long task_kfree_rcu, nmi_kfree_rcu;
	unsigned long allocs[STORM_NR_KINDS], frees[STORM_NR_KINDS];
	u64 max_cycles;
};

static void storm_reasons(unsigned int cpu, unsigned long *busy,
			  unsigned long *nomem, unsigned long *deferred)
{
	const struct nolock_stats *b = &storm_cpus[cpu].stats_before;
	struct nolock_stats now;

	storm_read_nolock_stats(cpu, &now);
	*busy = (now.page_alloc_busy - b->page_alloc_busy) +
		(now.obj_alloc_busy - b->obj_alloc_busy);
	*nomem = (now.page_alloc_nomem - b->page_alloc_nomem) +
		 (now.obj_alloc_nomem - b->obj_alloc_nomem);
	*deferred = (now.page_free_deferred - b->page_free_deferred) +
		    (now.obj_free_deferred - b->obj_free_deferred);
}

static void storm_summary(struct storm_totals *t, u64 tsc_start)
{
	unsigned int cpu, k;
	char role;

	memset(t, 0, sizeof(*t));
	pr_highlight("nmi_storm: %s storm (private cache %s, kmalloc %s): %u CPUs, %u iterations a worker, %s, seed %lu (replay: seed=%lu), %lu ms\n",
		storm->name,
		slab_mode_names[storm_cache_mode],
		slab_mode_names[kmem_cache_mode(kmalloc_slab(64))],
		nr_cpu_ids, storm_iters(),
		storm_hammer == ~0u ? "self-NMIs every iteration" :
		"hammer = last CPU",
		(unsigned long)boot_seed, (unsigned long)boot_seed,
		(unsigned long)(tsc_to_us(rdtsc() - tsc_start) / 1000));
	pr_highlight("nmi_storm:   cpu       NMIs  NMI-alloc   NMI-free  NULL-busy NULL-nomem   deferred  max-NMI-cycles  task-ops task-NULL\n");
	for_each_online_cpu(cpu) {
		struct storm_cpu *c = &storm_cpus[cpu];
		unsigned long busy, nomem, deferred;

		storm_reasons(cpu, &busy, &nomem, &deferred);
		role = cpu == storm_hammer ? 'H' : ' ';
		pr_highlight("nmi_storm:  %c%3u %10lu %10lu %10lu %10lu %10lu %10lu %15lu %9lu %9lu\n",
			role, cpu, c->nmis, c->nmi_allocs, c->nmi_frees, busy,
			nomem, deferred, (unsigned long)c->max_cycles,
			c->task_ops, c->task_nulls);
		t->nmis += c->nmis;
		t->nmi_allocs += c->nmi_allocs;
		t->nmi_frees += c->nmi_frees;
		t->nmi_nulls += c->nmi_nulls;
		t->busy += busy;
		t->nomem += nomem;
		t->deferred += deferred;
		t->task_ops += c->task_ops;
		t->task_nulls += c->task_nulls;
		t->task_kfree_rcu += c->task_kfree_rcu;
		t->nmi_kfree_rcu += c->nmi_kfree_rcu;
		t->max_cycles = max(t->max_cycles, c->max_cycles);
		for (k = 0; k < STORM_NR_KINDS; k++) {
			t->allocs[k] += c->allocs[k];
			t->frees[k] += c->frees[k];
		}
	}
	pr_highlight("nmi_storm:   all %10lu %10lu %10lu %10lu %10lu %10lu %15lu %9lu %9lu\n",
		t->nmis, t->nmi_allocs, t->nmi_frees, t->busy, t->nomem,
		t->deferred, (unsigned long)t->max_cycles, t->task_ops,
		t->task_nulls);
	if (!storm_have_kmalloc_nolock())
		pr_highlight("nmi_storm:   (no kmalloc_nolock() yet: NULL reasons and deferred frees are not counted; %lu NMI NULLs in all)\n",
			t->nmi_nulls);
	for (k = 0; k < STORM_NR_KINDS; k++)
		pr_highlight("nmi_storm:   %-16s %8lu allocated %8lu freed\n",
			storm_kind_name[k], t->allocs[k], t->frees[k]);
}

/* Every check a storm must pass, after its summary. */
static void storm_check_all(struct kunit *test, const struct storm_totals *t,
			    unsigned long before, unsigned long warns,
			    unsigned long reports, unsigned long bad_pages)
{
	unsigned long after = quiesced_free_pages();
	unsigned long all = 0;
	unsigned int cpu, k;

	if (storm_bad_patterns)
		KUNIT_FAIL(test, "cpu%u found a broken %s object %p: word %d is %#lx, not %#lx",
			   storm_first_bad.cpu,
			   storm_first_bad.kind < STORM_NR_KINDS ?
			   storm_kind_name[storm_first_bad.kind] : "?",
			   storm_first_bad.obj, (int)storm_first_bad.word,
			   (unsigned long)storm_first_bad.got,
			   (unsigned long)storm_first_bad.want);
	KUNIT_EXPECT_EQ(test, storm_bad_patterns, 0);
	for (k = 0; k < STORM_NR_KINDS; k++) {
		KUNIT_EXPECT_EQ(test, t->frees[k], t->allocs[k]);
		all += t->allocs[k];
	}
	/* Each RCU-freed object was handed to RCU once, by one of the two. */
	KUNIT_EXPECT_EQ(test, t->task_kfree_rcu + t->nmi_kfree_rcu,
			t->frees[STORM_RCU] + t->frees[STORM_RCU_NOLOCK]);
	if (storm_have_kmalloc_nolock() && !storm->pressure)
		KUNIT_EXPECT_GT(test, t->nmi_kfree_rcu, 0);
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_GE(test, storm_cpus[cpu].nmis, STORM_MIN_NMIS);
		KUNIT_EXPECT_EQ(test, storm_cpus[cpu].sheaf_failures, 0);
	}
	if (storm_have_kmalloc_nolock())   /* a NULL always has a reason */
		KUNIT_EXPECT_GE(test, t->busy + t->nomem, t->nmi_nulls);
	KUNIT_EXPECT_EQ(test, warn_count, warns);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees, bad_pages);
	KUNIT_EXPECT_EQ(test, after, before);
	pr_highlight("nmi_storm: %s: %lu broken patterns, %lu objects and page blocks allocated, all %s (%lu by kfree_rcu() in task context, %lu by kfree_rcu_nolock() in NMIs), free pages %lu before and %lu after\n",
		storm_bad_patterns ? "FAILED" : "passed", storm_bad_patterns,
		all, after == before ? "returned" : "NOT returned",
		t->task_kfree_rcu, t->nmi_kfree_rcu, before, after);
}

/* ---- memory pressure: hold all but a few pages of the buddy ---- */

static unsigned long hog_buddy(struct list_head *taken, unsigned long reserve)
{
	unsigned long n = 0;
	int order;

	drain_all_pages();
	for (order = MAX_ORDER; order >= 0; order--) {
		while (nr_free_pages() >= reserve + (1ul << order)) {
			struct page *page = alloc_pages(__GFP_NOWARN,
							(unsigned int)order);

			if (!page)
				break;
			page->private_data = (unsigned long)order;
			list_add(&page->lru, taken);
			n += 1ul << order;
		}
	}
	return n;
}

static void release_hog(struct list_head *taken)
{
	struct page *page, *next;

	list_for_each_entry_safe(page, next, taken, lru) {
		list_del(&page->lru);
		__free_pages(page, (unsigned int)page->private_data);
	}
}

/* ---- the facility the storms stand on: task work on every CPU ---- */

static unsigned int tw_ran[NR_CPUS];
static bool tw_in_task[NR_CPUS], tw_irqs_on[NR_CPUS];
static unsigned int tw_arrived, tw_seen_at_start[NR_CPUS];

static void tw_record(void *info)
{
	unsigned int cpu = smp_processor_id();

	(void)info;
	tw_seen_at_start[cpu] = __atomic_add_fetch(&tw_arrived, 1,
						   __ATOMIC_ACQ_REL);
	tw_in_task[cpu] = in_task();
	tw_irqs_on[cpu] = !irqs_disabled();
	tw_ran[cpu]++;
	/* Wait for everybody: only works if every CPU runs at once. */
	while (__atomic_load_n(&tw_arrived, __ATOMIC_ACQUIRE) < nr_cpu_ids)
		cpu_relax();
}

static void task_work_runs_everywhere_at_once(struct kunit *test)
{
	unsigned int cpu, round;

	memset(tw_ran, 0, sizeof(tw_ran));
	for (round = 0; round < 3; round++) {
		tw_arrived = 0;
		KUNIT_EXPECT_EQ(test, on_each_cpu_task(tw_record, NULL),
				nr_cpu_ids);
		KUNIT_EXPECT_EQ(test, tw_arrived, nr_cpu_ids);
	}
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, tw_ran[cpu], 3);
		KUNIT_EXPECT_TRUE(test, tw_in_task[cpu]);
		KUNIT_EXPECT_TRUE(test, tw_irqs_on[cpu]);
		KUNIT_EXPECT_GE(test, tw_seen_at_start[cpu], 1);
	}
}

static struct kunit_case task_work_cases[] = {
	KUNIT_CASE(task_work_runs_everywhere_at_once),
	{}
};

static struct kunit_suite task_work_suite = {
	.name = "nmi_storm_task_work",
	.test_cases = task_work_cases,
};
kunit_test_suite(task_work_suite);

/* ---- the storms ---- */

static void run_storm(struct kunit *test, const struct storm_params *p)
{
	unsigned long before, warns = warn_count, reports = slab_reports;
	unsigned long bad_pages = nr_bad_page_frees, hogged = 0;
	struct storm_totals t;
	LIST_HEAD(hog);
	u64 t0;

	before = quiesced_free_pages();
	storm_prepare(test, p);
	if (p->pressure) {
		hogged = hog_buddy(&hog, STORM_PRESSURE_RESERVE);
		pr_info("nmi_storm: pressure: %lu pages held, %lu left free\n",
			hogged, nr_free_pages());
	}
	t0 = rdtsc();
	__atomic_store_n(&storm_armed, true, __ATOMIC_SEQ_CST);
	/* NMIs at arbitrary instructions on cpu0, whatever it is doing: the
	 * sent NMIs arrive where they are sent, these do not. */
	watchdog_set_heartbeat_hz(STORM_HEARTBEAT_HZ);
	on_each_cpu_task(storm_cpu_main, NULL);
	watchdog_set_heartbeat_hz(0);
	storm_teardown(test);
	release_hog(&hog);
	storm_summary(&t, t0);
	storm_check_all(test, &t, before, warns, reports, bad_pages);
	if (p->pressure)   /* NULLs were expected, and handled */
		KUNIT_EXPECT_GT(test, t.task_nulls + t.nmi_nulls, 0);
	else
		KUNIT_EXPECT_GT(test, t.nmi_allocs, 0);
}

static const struct storm_params storm_normal = {
	.name = "allocation",
	.iters = 48000,
	.share = 1,
	.page_slots = 8,
};

/*
 * Under pressure most allocations fail, and a failed alloc_pages() drains
 * this CPU's page lists under the zone lock before it gives up: every
 * worker then queues on that one ticket lock.  Under QEMU's TCG, with more
 * virtual CPUs than host cores, each hand-over may wait for the host to
 * schedule the next holder: the cost of an iteration grows with the number
 * of workers, so each worker's share shrinks with its square (SMP=4 gives
 * each of 3 workers 888 iterations, SMP=6 each of 5 workers 320, and no
 * worker fewer than STORM_MIN_ITERS, SMP=32's 8 included).  The
 * allocation storm's iterations are shared out evenly: the same convoys
 * form on the slab layer's locks there, only less often.
 */
static const struct storm_params storm_pressure = {
	.name = "memory-pressure",
	.iters = 8000,
	.share = 2,
	.page_slots = STORM_MAX_PAGE_SLOTS,
	.pressure = true,
};

/*
 * The same storm with the private cache in the other two modes (issue
 * 17): SLUB's per-CPU slabs (task context on its lockless fast paths and
 * slow path, NMIs freeing its objects with kfree_nolock(): frees to this
 * CPU's slab, to another CPU's frozen slab, to a slab on a node list
 * under a tried list_lock), and no per-CPU layer at all.  The kmalloc
 * classes run in the boot's slab_mode= (make test boots all three).
 */
static const struct storm_params storm_cpu_slab = {
	.name = "allocation",
	.iters = 48000,
	.share = 1,
	.page_slots = 8,
	.cache_mode = SLAB_MODE_CPU_SLAB,
};

static const struct storm_params storm_no_layer = {
	.name = "allocation",
	.iters = 48000,
	.share = 1,
	.page_slots = 8,
	.cache_mode = SLAB_MODE_NONE,
};

static void storm_on_every_cpu(struct kunit *test)
{
	run_storm(test, &storm_normal);
}

static void storm_cpu_slab_cache(struct kunit *test)
{
	run_storm(test, &storm_cpu_slab);
}

static void storm_no_layer_cache(struct kunit *test)
{
	run_storm(test, &storm_no_layer);
}

static void storm_under_memory_pressure(struct kunit *test)
{
	run_storm(test, &storm_pressure);
}

static int storm_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return register_nmi_handler(NMI_LOCAL, storm_nmi, "nmi_storm");
}

static void storm_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	storm_disarm();
	unregister_nmi_handler(NMI_LOCAL, "nmi_storm");
}

static struct kunit_case storm_cases[] = {
	KUNIT_CASE(storm_on_every_cpu),
	KUNIT_CASE(storm_cpu_slab_cache),
	KUNIT_CASE(storm_no_layer_cache),
	KUNIT_CASE(storm_under_memory_pressure),
	{}
};

static struct kunit_suite storm_suite = {
	.name = "nmi_storm",
	.suite_init = storm_suite_init,
	.suite_exit = storm_suite_exit,
	.test_cases = storm_cases,
};
kunit_test_suite(storm_suite);
