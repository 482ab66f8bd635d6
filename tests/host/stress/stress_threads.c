/*
 * stress_threads.c - the allocators with real threads and signal "NMIs".
 *
 * Every other host test plays its CPUs one after another on one thread.
 * Here each pretend CPU is its own pthread (host_cpu_id set per thread), so
 * the slab and page allocators run truly concurrently on one shared arena
 * (mm_arena.h), and interrupts arrive as POSIX signals at whatever
 * instruction the target thread happens to be on:
 *
 *   SIG_NMI (SIGRTMIN)     an NMI: the handler raises host_nmi_nesting and
 *                          calls the any-context API: kmalloc_nolock(),
 *                          kfree_nolock(), try_alloc_pages() and
 *                          free_pages_nolock(), on objects it allocated
 *                          itself and on objects another CPU left in the
 *                          shared mailbox.  Never blocked by "IRQs off".
 *   SIG_IRQ (SIGRTMIN+1)   an IRQ: when the thread has its (host) interrupt
 *                          flag on, the handler runs this CPU's irq_work
 *                          (the slab's deferred frees) and makes a kmalloc()
 *                          and an alloc_pages() of its own; with the flag
 *                          off it is left pending and taken at the next
 *                          operation boundary, as a CPU would take it when
 *                          the flag comes back on.
 *
 * Workers send both signals to each other (never to themselves: a signal
 * to oneself arrives at the syscall return, not at an arbitrary
 * instruction).  A worker's loop is a fixed number of random operations:
 * kmalloc/kzalloc/kfree of every class and large sizes, kmem_cache objects
 * of a cache with sheaves, one without, a cpu-slab cache (mm/cpu_slab.c:
 * its objects freed by other CPUs through the mailbox are the remote frees
 * to frozen slabs) and a debug cache (F, Z, P), bulk
 * alloc/free, prefilled sheaves, alloc_pages/__free_pages of orders 0..4
 * and kmalloc_nolock()/try_alloc_pages() from task context.  About a
 * quarter of the frees go through a shared mailbox, so the object is
 * freed by another CPU (and sometimes by another CPU's NMI).
 *
 * What is checked.  Every object and page carries a tag in its first word
 * while it is live (a function of its address): an allocation that finds
 * the tag already there was handed out twice; a free that does not find
 * it lost its object to someone else.  Memory asked for zeroed is checked
 * to be zero.  When every worker is done, the main thread frees what is
 * left (mailbox, NMI stashes), plays every CPU's last irq_work, shrinks
 * every cache and drains the per-CPU page lists, and then demands: the
 * free page count is exactly the count before the run, the buddy lists
 * obey the invariants of mm/page_alloc.c, no bad page free and no slab
 * report was counted, no WARN was printed, each test cache is destroyed
 * without a leak.
 *
 * Bounded by iteration counts, never by time: STRESS_SCALE=n (environment)
 * multiplies the iterations (`make stress` runs it long).  Built twice:
 * ASan+UBSan (signals land at any instruction) and ThreadSanitizer (which
 * delays a signal to the thread's next call into its runtime, e.g. a
 * memset or an atomic built-in; TSan's value is the race reports between
 * threads; tsan_options.c holds the proven-benign suppressions).
 *
 * Suite stress_threads_cpu_slab runs the slab case again with the kmalloc
 * classes in cpu-slab mode (slab_mode=cpuslab).
 *
 * Three more cases: stress_pcp_disable_while_allocating switches a zone's
 * per-CPU lists off and on while other threads allocate,
 * stress_free_beside_half_listed_neighbour freezes defect 3 of issue 10
 * (a correct free refused because a neighbour was half way onto a list),
 * and stress_reports_counted_from_threads has every CPU report bad frees
 * and failed allocations at once (each must be counted).
 *
 * Nothing here calls kmem_cache_shrink()/destroy() while the workers run:
 * they flush with on_each_cpu(), which the host runs by switching the
 * calling thread's CPU number, not as a real cross-CPU call.
 */
#include <kunit.h>
#include <kernel.h>
#include <irq_work.h>
#include <mm.h>
#include <mmzone.h>
#include <slab.h>
#include <smp.h>
#include <irqflags.h>
#include <nolock_stats.h>
#include <rseq.h>
#include "../mm_arena.h"
#include "../../../mm/slab_internal.h"

#include <pthread.h>
#include <signal.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#define STRESS_CPUS        4
#define STRESS_ARENA_BASE  (16ull << 20)
#define STRESS_ARENA_END   (80ull << 20)     /* 64 MiB of "RAM" */
#define STRESS_BASE_ITERS  3000              /* per worker, per case */
#define POOL_SLOTS         48                /* live objects per worker */
#define MAILBOX_SLOTS      64                /* shared, cross-CPU frees */
#define NMI_STASH_SLOTS    16                /* live objects per CPU's NMIs */
#define SIGNAL_EVERY       4                 /* ops between two signals */
#define MAX_TASK_ORDER     4
#define MAX_NMI_ORDER      PCP_MAX_ORDER
#define BULK_MAX           12
#define LARGE_KMALLOC      (3 * PAGE_SIZE)

#define SIG_NMI  (SIGRTMIN)
#define SIG_IRQ  (SIGRTMIN + 1)

/*
 * A held allocation, as one word: the address, and in its low bits what
 * it is.  Objects are at least 8-byte aligned, pages 4096-aligned (their
 * order sits above the kind).
 */
enum held_kind {
	HELD_NONE,
	HELD_KMALLOC,      /* kmalloc/kzalloc/kmalloc_nolock: kfree() */
	HELD_CACHE_PCS,    /* cache with sheaves */
	HELD_CACHE_PLAIN,  /* cache without sheaves */
	HELD_CACHE_DEBUG,  /* debug cache (F, Z, P) */
	HELD_PAGES,        /* page block: order in bits 3..6 */
	HELD_CACHE_CPU,    /* cpu-slab cache (mm/cpu_slab.c) */
};
#define HELD_KIND_MASK   7ul
#define HELD_ORDER_SHIFT 3
#define HELD_ORDER_MASK  0xful

typedef unsigned long held_t;

static struct kmem_cache *cache_pcs, *cache_plain, *cache_debug, *cache_cpu;
/* The kmalloc classes' mode (slab_mode=) for the next case's init. */
static enum slab_mode stress_kmalloc_mode;

/* ---- failures, from any thread or handler: first reason kept ---- */

static unsigned long nr_failures;
static const char *first_failure;
static unsigned long first_failure_addr;

static void stress_fail(const char *why, const void *addr)
{
	const char *none = NULL;

	if (__atomic_fetch_add(&nr_failures, 1, __ATOMIC_RELAXED) == 0 &&
	    __atomic_compare_exchange_n(&first_failure, &none, why, false,
					__ATOMIC_RELAXED, __ATOMIC_RELAXED))
		__atomic_store_n(&first_failure_addr, (unsigned long)addr,
				 __ATOMIC_RELAXED);
}

/* ---- tags: the first word of a live allocation ---- */

static u64 live_tag(const void *p)
{
	return 0x9e3779b97f4a7c15ull ^ (u64)(uintptr_t)p;
}

static void tag_new(void *p, size_t zeroed_bytes)
{
	const u8 *b = p;
	size_t i;

	for (i = 0; i < zeroed_bytes; i++)
		if (b[i]) {
			stress_fail("memory asked for zeroed is not zero", p);
			break;
		}
	if (*(volatile u64 *)p == live_tag(p))
		stress_fail("handed out twice (live tag already there)", p);
	*(volatile u64 *)p = live_tag(p);
}

static void tag_drop(void *p)
{
	if (*(volatile u64 *)p != live_tag(p))
		stress_fail("live tag gone before the free (shared or lost)", p);
	*(volatile u64 *)p = 0;
}

static held_t held_obj(void *p, enum held_kind k)
{
	return (held_t)(uintptr_t)p | k;
}

static held_t held_pages(void *addr, unsigned int order)
{
	return (held_t)(uintptr_t)addr | HELD_PAGES |
	       ((held_t)order << HELD_ORDER_SHIFT);
}

static void *held_addr(held_t h)
{
	if ((h & HELD_KIND_MASK) == HELD_PAGES)
		return (void *)(uintptr_t)(h & ~(PAGE_SIZE - 1));
	return (void *)(uintptr_t)(h & ~HELD_KIND_MASK);
}

static unsigned int held_order(held_t h)
{
	return (unsigned int)((h >> HELD_ORDER_SHIFT) & HELD_ORDER_MASK);
}

/* Free a held allocation the way its context allows. */
static void held_free(held_t h)
{
	void *p = held_addr(h);

	if (!h)
		return;
	tag_drop(p);
	if (in_nmi()) {
		if ((h & HELD_KIND_MASK) == HELD_PAGES)
			free_pages_nolock(virt_to_page(p), held_order(h));
		else
			kfree_nolock(p);
		return;
	}
	switch (h & HELD_KIND_MASK) {
	case HELD_KMALLOC:
		kfree(p);
		break;
	case HELD_CACHE_PCS:
		kmem_cache_free(cache_pcs, p);
		break;
	case HELD_CACHE_PLAIN:
		kmem_cache_free(cache_plain, p);
		break;
	case HELD_CACHE_DEBUG:
		kmem_cache_free(cache_debug, p);
		break;
	case HELD_CACHE_CPU:
		kmem_cache_free(cache_cpu, p);
		break;
	case HELD_PAGES:
		__free_pages(virt_to_page(p), held_order(h));
		break;
	default:
		stress_fail("corrupt held word", p);
	}
}

/* ---- the shared mailbox: any context, one exchange per visit ---- */

static held_t mailbox[MAILBOX_SLOTS];

static held_t mailbox_swap(unsigned int slot, held_t h)
{
	return __atomic_exchange_n(&mailbox[slot % MAILBOX_SLOTS], h,
				   __ATOMIC_ACQ_REL);
}

/* ---- per-thread state ---- */

struct worker {
	pthread_t thread;
	unsigned int cpu;
	unsigned long iters;
	bool slab;                 /* slab ops too, or pages only */
	u64 rng;                   /* task context only */
	u64 nmi_rng;               /* the NMI handler's own */
	u64 irq_rng;               /* the IRQ handler's own */
	held_t pool[POOL_SLOTS];   /* task context only */
	held_t nmi_stash[NMI_STASH_SLOTS];  /* the NMI handler only */
	volatile sig_atomic_t irq_pending;
	unsigned long nmis, irqs, irqs_late, nolock_nulls;
	unsigned long restarts;   /* sequences a signal sent back */
};

static struct worker workers[STRESS_CPUS];
static __thread struct worker *me;
static unsigned int nr_running;
static bool start_gate;        /* set once every pthread_t is known */

static u64 next_rand(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static size_t random_kmalloc_size(u64 *rng)
{
	static const size_t sizes[] = { 8, 16, 24, 40, 64, 96, 128, 200, 256,
					500, 1024, 2000, 4096, 8192,
					LARGE_KMALLOC };

	return sizes[next_rand(rng) % ARRAY_SIZE(sizes)];
}

/* ---- the NMI: any-context API only ---- */

static held_t nmi_alloc(struct worker *w)
{
	u64 r = next_rand(&w->nmi_rng);

	if (r & 1) {
		unsigned int order = (unsigned int)((r >> 1) % (MAX_NMI_ORDER + 1));
		struct page *page = try_alloc_pages(0, order);

		if (!page) {
			w->nolock_nulls++;
			return 0;
		}
		tag_new(page_address(page), PAGE_SIZE << order);
		return held_pages(page_address(page), order);
	} else {
		size_t size = random_kmalloc_size(&w->nmi_rng);
		bool zero = r & 2;
		void *p;

		if (size > KMALLOC_MAX_CACHE_SIZE)
			size = KMALLOC_MAX_CACHE_SIZE;
		p = kmalloc_nolock(size, zero ? __GFP_ZERO : 0, NUMA_NO_NODE);
		if (!p) {
			w->nolock_nulls++;
			return 0;
		}
		tag_new(p, zero ? size : 0);
		return held_obj(p, HELD_KMALLOC);
	}
}

/*
 * A signal's entry, as the kernel's interrupt entry does it: an
 * uncommitted restartable sequence (the sheaf fast paths, include/rseq.h)
 * that the signal interrupted goes back to its start before the handler
 * may touch this CPU's sheaves.  Under ThreadSanitizer the handler runs
 * later, at a call into its runtime, never inside a sequence, and the
 * context it gets is a copy: nothing is found there.
 */
static void signal_entry(struct worker *w, void *ucontext)
{
	if (rseq_ucontext_fixup(ucontext))
		w->restarts++;
}

static void nmi_handler(int sig, siginfo_t *info, void *ucontext)
{
	struct worker *w = me;
	unsigned int i, slot;
	unsigned long irq_flags;

	(void)sig;
	(void)info;
	if (!w)
		return;
	signal_entry(w, ucontext);
	/* As the CPU enters an NMI through an interrupt gate: IRQs off
	 * until it returns.  sa_mask holds SIG_IRQ back too, but under
	 * ThreadSanitizer a delayed SIG_IRQ may still run in here (TSan
	 * delivers what it delayed at its next runtime call); it then finds
	 * IRQs off and waits as pending, instead of a kmalloc() in NMI
	 * context. */
	irq_flags = local_irq_save();
	host_nmi_nesting++;
	w->nmis++;
	for (i = 0; i < 2; i++) {
		u64 r = next_rand(&w->nmi_rng);

		slot = (unsigned int)(r >> 8) % NMI_STASH_SLOTS;
		switch (r % 4) {
		case 0:     /* our own: free what the slot held, allocate */
		case 1:
			held_free(w->nmi_stash[slot]);
			w->nmi_stash[slot] = nmi_alloc(w);
			break;
		case 2:     /* free what another CPU left in the mailbox */
			held_free(mailbox_swap((unsigned int)(r >> 16), 0));
			break;
		case 3:     /* leave one for another CPU to free */
			held_free(mailbox_swap((unsigned int)(r >> 16),
					       nmi_alloc(w)));
			break;
		}
	}
	host_nmi_nesting--;
	local_irq_restore(irq_flags);
}

/* ---- the IRQ: irq_work, plus ordinary atomic allocations ---- */

static void irq_body(struct worker *w)
{
	unsigned long saved = local_irq_save();
	size_t size = random_kmalloc_size(&w->irq_rng);
	unsigned int order = (unsigned int)(next_rand(&w->irq_rng) % 3);
	struct page *page;
	void *p;

	host_irq_nesting++;
	w->irqs++;
	irq_work_run();
	p = kmalloc(size, GFP_ATOMIC);
	if (p) {
		tag_new(p, 0);
		tag_drop(p);
		kfree(p);
	}
	page = alloc_pages(GFP_ATOMIC, order);
	if (page) {
		tag_new(page_address(page), 0);
		tag_drop(page_address(page));
		__free_pages(page, order);
	}
	host_irq_nesting--;
	local_irq_restore(saved);
}

static void irq_handler(int sig, siginfo_t *info, void *ucontext)
{
	struct worker *w = me;

	(void)sig;
	(void)info;
	if (!w)
		return;
	signal_entry(w, ucontext);
	if (irqs_disabled()) {
		w->irq_pending = 1;
		return;
	}
	irq_body(w);
}

/* An operation boundary with IRQs on: take an IRQ that waited. */
static void take_pending_irq(struct worker *w)
{
	if (w->irq_pending && !irqs_disabled()) {
		w->irq_pending = 0;
		w->irqs_late++;
		irq_body(w);
	}
}

/* ---- task context ---- */

static held_t task_alloc(struct worker *w)
{
	u64 r = next_rand(&w->rng);
	unsigned int what = (unsigned int)(r % (w->slab ? 12 : 3));

	switch (what) {
	case 0:
	case 1: {
		unsigned int order = (unsigned int)((r >> 8) % (MAX_TASK_ORDER + 1));
		bool zero = r & (1u << 12);
		struct page *page = alloc_pages(zero ? __GFP_ZERO : 0, order);

		if (!page)
			return 0;
		tag_new(page_address(page), zero ? PAGE_SIZE << order : 0);
		return held_pages(page_address(page), order);
	}
	case 2: {
		unsigned int order = (unsigned int)((r >> 8) % (MAX_NMI_ORDER + 1));
		struct page *page = try_alloc_pages(0, order);

		if (!page) {
			w->nolock_nulls++;
			return 0;
		}
		tag_new(page_address(page), PAGE_SIZE << order);
		return held_pages(page_address(page), order);
	}
	case 3:
	case 4: {
		size_t size = random_kmalloc_size(&w->rng);
		bool zero = r & (1u << 12);
		void *p = zero ? kzalloc(size, GFP_KERNEL) : kmalloc(size, GFP_KERNEL);

		if (!p)
			return 0;
		tag_new(p, zero ? size : 0);
		return held_obj(p, HELD_KMALLOC);
	}
	case 5: {
		size_t size = random_kmalloc_size(&w->rng);
		void *p;

		if (size > KMALLOC_MAX_CACHE_SIZE)
			size = 64;
		p = kmalloc_nolock(size, __GFP_ZERO, NUMA_NO_NODE);
		if (!p) {
			w->nolock_nulls++;
			return 0;
		}
		tag_new(p, size);
		return held_obj(p, HELD_KMALLOC);
	}
	case 6:
	case 7: {
		void *p = kmem_cache_alloc(cache_pcs, GFP_KERNEL);

		if (!p)
			return 0;
		tag_new(p, 0);
		return held_obj(p, HELD_CACHE_PCS);
	}
	case 8: {
		void *p = kmem_cache_alloc(cache_plain, GFP_KERNEL);

		if (!p)
			return 0;
		tag_new(p, 0);
		return held_obj(p, HELD_CACHE_PLAIN);
	}
	case 10:
	case 11: {   /* freed here, or by another CPU through the mailbox */
		void *p = kmem_cache_alloc(cache_cpu, GFP_KERNEL);

		if (!p)
			return 0;
		tag_new(p, 0);
		return held_obj(p, HELD_CACHE_CPU);
	}
	default: {
		void *p = kmem_cache_alloc(cache_debug, GFP_KERNEL);

		if (!p)
			return 0;
		tag_new(p, 0);
		return held_obj(p, HELD_CACHE_DEBUG);
	}
	}
}

/* Bulk and prefilled sheaves: allocate a batch, check it, give it back. */
static void task_batch(struct worker *w)
{
	void *objs[BULK_MAX];
	u64 r = next_rand(&w->rng);
	unsigned int n = 1 + (unsigned int)(r % BULK_MAX), i;

	if (r & (1u << 8)) {
		if (kmem_cache_alloc_bulk(cache_pcs, GFP_KERNEL, n, objs) != (int)n)
			return;
		for (i = 0; i < n; i++)
			tag_new(objs[i], 0);
		for (i = 0; i < n; i++)
			tag_drop(objs[i]);
		kmem_cache_free_bulk(cache_pcs, n, objs);
	} else {
		struct slab_sheaf *sheaf =
			kmem_cache_prefill_sheaf(cache_pcs, GFP_KERNEL, n);

		if (!sheaf)
			return;
		for (i = 0; i < n && kmem_cache_sheaf_size(sheaf); i++) {
			objs[i] = kmem_cache_alloc_from_sheaf(cache_pcs,
							      GFP_KERNEL, sheaf);
			if (!objs[i])
				stress_fail("prefilled sheaf came up short", sheaf);
			else
				tag_new(objs[i], 0);
		}
		n = i;
		kmem_cache_return_sheaf(cache_pcs, GFP_KERNEL, sheaf);
		for (i = 0; i < n; i++)
			if (objs[i]) {
				tag_drop(objs[i]);
				kmem_cache_free(cache_pcs, objs[i]);
			}
	}
}

static void send_signal(struct worker *w)
{
	u64 r = next_rand(&w->rng);
	unsigned int target = (w->cpu + 1 + (unsigned int)(r % (STRESS_CPUS - 1))) %
			      STRESS_CPUS;

	pthread_kill(workers[target].thread, (r & 0x30) ? SIG_NMI : SIG_IRQ);
}

static void task_step(struct worker *w, unsigned long i)
{
	u64 r = next_rand(&w->rng);
	unsigned int slot = (unsigned int)(r >> 16) % POOL_SLOTS;

	take_pending_irq(w);
	if (i % SIGNAL_EVERY == 0)
		send_signal(w);
	switch (r % 8) {
	case 0:         /* leave ours for another CPU, free what was there */
		held_free(mailbox_swap((unsigned int)(r >> 24), w->pool[slot]));
		w->pool[slot] = 0;
		break;
	case 1:
		if (w->slab) {
			task_batch(w);
			break;
		}
		/* fall through */
	default:        /* free what the slot held, allocate anew */
		held_free(w->pool[slot]);
		w->pool[slot] = task_alloc(w);
		break;
	}
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	unsigned long i;
	sigset_t sigs;

	host_cpu_id = w->cpu;
	me = w;
	while (!__atomic_load_n(&start_gate, __ATOMIC_ACQUIRE))
		sched_yield();
	sigemptyset(&sigs);
	sigaddset(&sigs, SIG_NMI);
	sigaddset(&sigs, SIG_IRQ);
	pthread_sigmask(SIG_UNBLOCK, &sigs, NULL);  /* created with them blocked */
	for (i = 0; i < w->iters; i++)
		task_step(w, i);
	/* Done sending; stay an interruptible CPU until every worker is. */
	__atomic_fetch_sub(&nr_running, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&nr_running, __ATOMIC_ACQUIRE))
		sched_yield();
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	take_pending_irq(w);
	for (i = 0; i < POOL_SLOTS; i++) {
		held_free(w->pool[i]);
		w->pool[i] = 0;
	}
	return NULL;
}

/* ---- setup, the run, the final accounting ---- */

static void install_handlers(void)
{
	struct sigaction nmi = { .sa_sigaction = nmi_handler };
	struct sigaction irq = { .sa_sigaction = irq_handler };

	/* An NMI masks further NMIs and IRQs; an IRQ masks IRQs only. */
	sigemptyset(&nmi.sa_mask);
	sigaddset(&nmi.sa_mask, SIG_NMI);
	sigaddset(&nmi.sa_mask, SIG_IRQ);
	sigemptyset(&irq.sa_mask);
	sigaddset(&irq.sa_mask, SIG_IRQ);
	nmi.sa_flags = irq.sa_flags = SA_RESTART | SA_SIGINFO;
	sigaction(SIG_NMI, &nmi, NULL);
	sigaction(SIG_IRQ, &irq, NULL);
}

static unsigned long stress_scale(void)
{
	const char *s = getenv("STRESS_SCALE");
	unsigned long n = s ? strtoul(s, NULL, 10) : 1;

	return n ? n : 1;
}

/* Every sheaf, deferred object and per-CPU page back where it is counted. */
static unsigned long quiesced_free_pages(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		host_cpu_id = cpu;
		irq_work_run();
	}
	host_cpu_id = 0;
	kmem_cache_shrink_all();
	drain_all_pages();
	return nr_free_pages();
}

/* The buddy invariants of mm/page_alloc.c's header, for one zone. */
static unsigned long check_free_lists(struct kunit *test, struct zone *zone)
{
	unsigned long sum = 0, flags;
	unsigned int o;

	spin_lock_irqsave(&zone->lock, flags);
	for (o = 0; o <= MAX_ORDER; o++) {
		struct page *page;
		unsigned long n = 0;

		list_for_each_entry(page, &zone->free_area[o].free_list, lru) {
			unsigned long pfn = page_to_pfn(page);

			KUNIT_EXPECT_EQ(test, pfn & ((1ul << o) - 1), 0ul);
			KUNIT_EXPECT_NE(test, page->flags & PG_buddy, 0ul);
			KUNIT_EXPECT_EQ(test, page->order, o);
			n++;
		}
		KUNIT_EXPECT_EQ(test, n, zone->free_area[o].nr_free);
		sum += n << o;
	}
	KUNIT_EXPECT_EQ(test, sum, zone->free_pages);
	spin_unlock_irqrestore(&zone->lock, flags);
	return sum;
}

static int stress_init(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ STRESS_ARENA_BASE, STRESS_ARENA_END - STRESS_ARENA_BASE,
		  E820_TYPE_RAM },
	};

	(void)test;
	arena_map_memory(&test_arena, STRESS_ARENA_BASE,
			 STRESS_ARENA_END - STRESS_ARENA_BASE);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	if (!arena_boot(&test_arena))
		return -1;
	host_cpu_id = 0;
	nr_cpu_ids = nr_cpu_possible = STRESS_CPUS;
	slab_report_count_only = true;
	slab_kmalloc_mode = stress_kmalloc_mode;
	kmem_cache_init(NULL);
	cache_pcs = kmem_cache_create("stress_pcs", 120, 0, 0, NULL);
	cache_cpu = kmem_cache_create_args("stress_cpu_slab", 88,
					   &(struct kmem_cache_args){
						.mode = SLAB_MODE_CPU_SLAB }, 0);
	cache_plain = kmem_cache_create_args("stress_plain", 48,
					     &(struct kmem_cache_args){ 0 }, 0);
	cache_debug = kmem_cache_create("stress_debug", 72, 0,
					SLAB_CONSISTENCY_CHECKS |
					SLAB_RED_ZONE | SLAB_POISON, NULL);
	memset(mailbox, 0, sizeof(mailbox));
	memset(workers, 0, sizeof(workers));
	nr_failures = 0;
	first_failure = NULL;
	return cache_pcs && cache_plain && cache_debug && cache_cpu ? 0 : -1;
}

static void stress_exit(struct kunit *test)
{
	(void)test;
	slab_host_reset();
	slab_kmalloc_mode = SLAB_MODE_AUTO;
	drain_all_pages();
	slab_report_count_only = false;
	arena_suite_exit(test);
}

static void run_stress(struct kunit *test, bool slab)
{
	unsigned long before, after, warns = warn_count;
	unsigned long bad = nr_bad_page_frees, reports = slab_reports;
	unsigned long iters = STRESS_BASE_ITERS * stress_scale();
	unsigned long nmis = 0, irqs = 0, late = 0, nulls = 0, restarts = 0;
	unsigned int i;

	install_handlers();
	before = quiesced_free_pages();
	nr_running = STRESS_CPUS;
	start_gate = false;
	for (i = 0; i < STRESS_CPUS; i++) {
		workers[i].cpu = i;
		workers[i].iters = iters;
		workers[i].slab = slab;
		workers[i].rng = 0x243f6a8885a308d3ull * (i + 1);
		workers[i].nmi_rng = 0x13198a2e03707344ull * (i + 1);
		workers[i].irq_rng = 0xa4093822299f31d0ull * (i + 1);
	}
	/* Every thread exists before any may signal another. */
	{
		sigset_t sigs, old;

		sigemptyset(&sigs);
		sigaddset(&sigs, SIG_NMI);
		sigaddset(&sigs, SIG_IRQ);
		pthread_sigmask(SIG_BLOCK, &sigs, &old);
		for (i = 0; i < STRESS_CPUS; i++)
			KUNIT_ASSERT_EQ(test, pthread_create(&workers[i].thread,
							     NULL, worker_main,
							     &workers[i]), 0);
		pthread_sigmask(SIG_SETMASK, &old, NULL);
		__atomic_store_n(&start_gate, true, __ATOMIC_RELEASE);
	}
	for (i = 0; i < STRESS_CPUS; i++)
		pthread_join(workers[i].thread, NULL);

	/* What the NMIs still hold and the mailbox: freed as CPU 0. */
	for (i = 0; i < STRESS_CPUS; i++) {
		unsigned int s;

		host_cpu_id = i;
		for (s = 0; s < NMI_STASH_SLOTS; s++)
			held_free(workers[i].nmi_stash[s]);
		nmis += workers[i].nmis;
		irqs += workers[i].irqs;
		late += workers[i].irqs_late;
		nulls += workers[i].nolock_nulls;
		restarts += workers[i].restarts;
	}
	host_cpu_id = 0;
	for (i = 0; i < MAILBOX_SLOTS; i++)
		held_free(mailbox_swap(i, 0));
	after = quiesced_free_pages();

	kunit_info(test, "%u threads x %lu ops: %lu NMIs, %lu IRQs (%lu taken late), %lu nolock NULLs, %lu sequences restarted\n",
		   STRESS_CPUS, iters, nmis, irqs, late, nulls, restarts);
	if (nr_failures)
		kunit_info(test, "%lu failures, first: %s (%#lx)\n", nr_failures,
			   first_failure, first_failure_addr);
	KUNIT_EXPECT_EQ(test, nr_failures, 0ul);
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees - bad, 0ul);
	KUNIT_EXPECT_EQ(test, slab_reports - reports, 0ul);
	KUNIT_EXPECT_EQ(test, warn_count - warns, 0ul);
	KUNIT_EXPECT_EQ(test, after, before);
	KUNIT_EXPECT_EQ(test, check_free_lists(test, arena_zone(ZONE_DMA32)),
			after);
	KUNIT_EXPECT_GT(test, nmis, 0ul);
	if (slab)
		kunit_info(test, "cpu slabs: %lu remote frees to frozen slabs, %lu refills, %lu fast allocs, %lu retried commits\n",
			   slab_stat_sum(cache_cpu, FREE_FROZEN),
			   slab_stat_sum(cache_cpu, ALLOC_REFILL),
			   slab_stat_sum(cache_cpu, ALLOC_FASTPATH),
			   slab_stat_sum(cache_cpu, CMPXCHG_DOUBLE_CPU_FAIL) +
			   slab_stat_sum(cache_cpu, CMPXCHG_DOUBLE_FAIL));
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_pcs), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_plain), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_debug), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_cpu), 0);
}

/* The page allocator alone: the most frees of neighbouring pages. */
static void stress_pages_threads_nmis(struct kunit *test)
{
	run_stress(test, false);
}

/* Slab and page allocators together, NMIs and IRQs. */
static void stress_slab_threads_nmis(struct kunit *test)
{
	run_stress(test, true);
}

/*
 * Defect 3 of issue 10, frozen at the instant that matters.  Two
 * neighbouring order-0 pages H (even) and P = H + 1 are allocated.  Another
 * CPU is half way through pcp_add_locked(H): PG_pcp is set, and H->order
 * still says 1, left from when H headed a free order-1 block.  A correct
 * free of P must go ahead: the old code asked pfn_in_free_block() first,
 * which read H (no lock) as "a free block of order 1 covers P", reported a
 * double free and leaked P.  The threaded stress finds the same race under
 * ThreadSanitizer; this case shows its effect without depending on timing.
 */
static void stress_free_beside_half_listed_neighbour(struct kunit *test)
{
	unsigned long before = quiesced_free_pages(), bad = nr_bad_page_frees;
	struct page *h = alloc_pages(GFP_KERNEL, 1), *p;
	const unsigned long order_bits =
		PAGE_ALLOC_ORDER_MASK << PAGE_ALLOC_ORDER_SHIFT;

	KUNIT_ASSERT_NOT_NULL(test, h);
	p = h + 1;
	/* As if H and P had been allocated one by one (order 0 each). */
	h->flags = (h->flags & ~(order_bits | PG_head)) |
		   (1ul << PAGE_ALLOC_ORDER_SHIFT);
	p->flags = (p->flags & ~(order_bits | PG_head)) |
		   (1ul << PAGE_ALLOC_ORDER_SHIFT);
	/* Another CPU, inside pcp_add_locked(H, 0), between its two stores. */
	h->flags |= PG_pcp;
	h->order = 1;

	__free_pages(p, 0);
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees - bad, 0ul);

	/* That CPU's free of H never happened: undo it, free H for real. */
	h->flags &= ~PG_pcp;
	h->order = 0;
	__free_pages(h, 0);
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees - bad, 0ul);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_pcs), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_plain), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_debug), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_cpu), 0);
}

/*
 * zone_pcp_disable() with other CPUs allocating and freeing: once it has
 * returned, no page of the zone may be on a per-CPU list.  The hazard: a
 * CPU that read "lists on" just before the switch takes its pcp->lock just
 * after the drain passed it, and lists a page (a free) or a whole refill
 * batch (an allocation) that then stays there.  The other CPUs run until
 * the main thread has done its cycles; the count is read right after each
 * zone_pcp_disable() returns, while they still run.
 */
#define PCP_SWITCH_CYCLES 1500

static bool pcp_switch_stop;

static void *pcp_switch_worker(void *arg)
{
	struct worker *w = arg;

	host_cpu_id = w->cpu;
	while (!__atomic_load_n(&pcp_switch_stop, __ATOMIC_ACQUIRE)) {
		unsigned int order = (unsigned int)(next_rand(&w->rng) %
						    (PCP_MAX_ORDER + 1));
		struct page *page = alloc_pages(GFP_KERNEL, order);

		if (page)
			__free_pages(page, order);
		__atomic_fetch_add(&w->iters, 1, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void stress_pcp_disable_while_allocating(struct kunit *test)
{
	struct zone *zone = arena_zone(ZONE_DMA32);
	unsigned long before = quiesced_free_pages(), listed = 0, ops = 0;
	unsigned long cycles = PCP_SWITCH_CYCLES * stress_scale(), c;
	unsigned int i;

	pcp_switch_stop = false;
	for (i = 1; i < STRESS_CPUS; i++) {
		workers[i].cpu = i;
		workers[i].iters = 0;
		workers[i].rng = 0x452821e638d01377ull * i;
		KUNIT_ASSERT_EQ(test, pthread_create(&workers[i].thread, NULL,
						     pcp_switch_worker,
						     &workers[i]), 0);
	}
	for (c = 0; c < cycles; c++) {
		/* Each other CPU has moved on since the last switch. */
		for (i = 1; i < STRESS_CPUS; i++) {
			unsigned long seen = __atomic_load_n(&workers[i].iters,
							     __ATOMIC_RELAXED);

			while (__atomic_load_n(&workers[i].iters,
					       __ATOMIC_RELAXED) == seen)
				sched_yield();
		}
		zone_pcp_disable(zone);
		if (zone_pcp_count(zone))
			listed++;
		zone_pcp_enable(zone);
	}
	__atomic_store_n(&pcp_switch_stop, true, __ATOMIC_RELEASE);
	for (i = 1; i < STRESS_CPUS; i++) {
		pthread_join(workers[i].thread, NULL);
		ops += workers[i].iters;
	}
	kunit_info(test, "%lu switches, %lu page ops on %u other CPUs: lists not empty after %lu\n",
		   cycles, ops, STRESS_CPUS - 1, listed);
	KUNIT_EXPECT_EQ(test, listed, 0ul);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
	KUNIT_EXPECT_EQ(test, warn_count, 0ul);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_pcs), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_plain), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_debug), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_cpu), 0);
}


/*
 * The page allocator's report counters from several CPUs at once: every
 * bad free and every reported allocation failure must be counted, also
 * when two CPUs (or a CPU and its NMI: free_pages_nolock() reports too)
 * count at the same instant.  A plain `++` loses increments there; under
 * ThreadSanitizer it is reported as a race at once.  The bad free used
 * (an order above MAX_ORDER) and the failed allocation (likewise) touch
 * no allocator state, so the threads need nothing else.
 */
#define REPORTS_PER_CPU 64

static struct page *report_page;
static unsigned long report_surprises;   /* allocations that succeeded */

static void *report_worker(void *arg)
{
	struct worker *w = arg;
	unsigned int i;

	host_cpu_id = w->cpu;
	for (i = 0; i < REPORTS_PER_CPU; i++) {
		__free_pages(report_page, MAX_ORDER + 1);
		if (alloc_pages(GFP_KERNEL, MAX_ORDER + 1))
			__atomic_fetch_add(&report_surprises, 1,
					   __ATOMIC_RELAXED);
	}
	return NULL;
}

static void stress_reports_counted_from_threads(struct kunit *test)
{
	unsigned long bad = nr_bad_page_frees;
	unsigned long warned = nr_alloc_fail_warnings;
	unsigned int i;

	report_page = alloc_pages(GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, report_page);
	kunit_expect_report(test, "order above MAX_ORDER");
	for (i = 0; i < STRESS_CPUS; i++) {
		workers[i].cpu = i;
		KUNIT_ASSERT_EQ(test, pthread_create(&workers[i].thread, NULL,
						     report_worker,
						     &workers[i]), 0);
	}
	for (i = 0; i < STRESS_CPUS; i++)
		pthread_join(workers[i].thread, NULL);
	kunit_expect_report_done(test);
	KUNIT_EXPECT_EQ(test, report_surprises, 0ul);
	KUNIT_EXPECT_EQ(test, nr_bad_page_frees - bad,
			(unsigned long)STRESS_CPUS * REPORTS_PER_CPU);
	KUNIT_EXPECT_EQ(test, nr_alloc_fail_warnings - warned,
			(unsigned long)STRESS_CPUS * REPORTS_PER_CPU);
	__free_pages(report_page, 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_pcs), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_plain), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_debug), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cache_cpu), 0);
}

static struct kunit_case stress_cases[] = {
	KUNIT_CASE(stress_reports_counted_from_threads),
	KUNIT_CASE(stress_pcp_disable_while_allocating),
	KUNIT_CASE(stress_free_beside_half_listed_neighbour),
	KUNIT_CASE(stress_pages_threads_nmis),
	KUNIT_CASE(stress_slab_threads_nmis),
	{}
};

static struct kunit_suite stress_suite = {
	.name = "stress_threads",
	.init = stress_init,
	.exit = stress_exit,
	.test_cases = stress_cases,
};
kunit_test_suite(stress_suite);

/*
 * The slab case again with slab_mode=cpuslab: every kmalloc class a
 * cpu-slab cache, so the kmallocs, kmalloc_nolock()s and kfree_nolock()s
 * of the workers and their NMIs, and the mailbox's remote frees, all meet
 * SLUB's per-CPU slabs and their cmpxchg16b paths.
 */
static int stress_cpu_slab_init(struct kunit *test)
{
	stress_kmalloc_mode = SLAB_MODE_CPU_SLAB;
	return stress_init(test);
}

static void stress_cpu_slab_exit(struct kunit *test)
{
	stress_kmalloc_mode = SLAB_MODE_AUTO;
	stress_exit(test);
}

static struct kunit_case stress_cpu_slab_cases[] = {
	KUNIT_CASE(stress_slab_threads_nmis),
	{}
};

static struct kunit_suite stress_cpu_slab_suite = {
	.name = "stress_threads_cpu_slab",
	.init = stress_cpu_slab_init,
	.exit = stress_cpu_slab_exit,
	.test_cases = stress_cpu_slab_cases,
};
kunit_test_suite(stress_cpu_slab_suite);
