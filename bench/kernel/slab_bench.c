/*
 * slab_bench.c - what sheaves buy on one CPU, side by side.
 *
 * Run under `-icount shift=0` by `make bench`: every figure is an exact
 * count of guest instructions per operation, the same from run to run.
 *
 * Groups:
 *   single_kmalloc_pair     kmalloc()+kfree() pairs (the kmalloc caches have
 *                           sheaves), and the same pair on a private cache
 *                           with sheaves and with sheaf_capacity = 0;
 *                           param = object size (64, 256); variant loop
 *                           is the benchmark loop alone (loop_pairs());
 *                           kmalloc_const / loop_const the same with the
 *                           size a compile-time constant
 *   single_batch_in_order   allocate N objects of 64 bytes, then free them
 *   single_batch_shuffled   in allocation order / in a shuffled order (the
 *                           pattern Linux evaluated sheaves with);
 *                           param = N (1, 10, 100, 1000), per op = one
 *                           alloc+free pair
 *   single_pages            alloc_pages()+__free_pages() pairs; param =
 *                           order: 0 and 3 come from the per-CPU lists, 4 is
 *                           the first order the buddy serves directly; each
 *                           row starts from a state of its own making, so it
 *                           is the same whatever ran before (run_pages())
 *   single_any_context      try_alloc_pages()+free_pages_nolock() pairs and
 *                           kmem_cache_alloc_from_sheaf() (alloc only), in
 *                           task context and inside an NMI handler
 *   single_memory           bytes parked in sheaves and the barn after the
 *                           batch workload, and after kmem_cache_shrink()
 *   single_class_memory     every kmalloc class: its sheaf capacity, slot
 *                           and sheaf array sizes and the barn's limits
 *                           (run_bench.py computes the worst case from
 *                           them), and the bytes parked per CPU and in the
 *                           barn after allocating and freeing 1000 objects
 *
 * Each measurement repeats its batch BENCH_REPS times after one warm-up,
 * so the figures are those of the steady state (sheaves already made).
 */
#include <bench.h>
#include <kernel.h>
#include <mm.h>
#include <mmzone.h>
#include <nmi.h>
#include <prandom.h>
#include <printk.h>
#include <slab.h>
#include <smp.h>
#include "../../arch/x86_64/cpu.h"
#include "../../kernel/timekeeping.h"
#include "../../mm/slab_internal.h"
#include "slab_bench.h"

#define PAIR_OPS        1000   /* alloc+free pairs per sample */
#define BATCH_OBJECTS   1000   /* objects per sample, whatever N is */
#define BATCH_MAX       1000
#define PAGE_OPS        200
#define SHEAF_OPS       100    /* objects popped from a prefilled sheaf */
#define BENCH_REPS      21
#define NMI_WAIT_US     1000000

/* Keep p alive: the compiler may not delete an alloc+free pair. */
#define keep(p) __asm__ __volatile__("" : : "r"(p) : "memory")

/* ---------------------------------------------------------------------- */
/* Caches and the memory report (shared with scaling_bench.c)              */
/* ---------------------------------------------------------------------- */

struct kmem_cache *bench_cache(unsigned int size, bool sheaves)
{
	struct kmem_cache_args args = {
		.sheaf_capacity = sheaves ? SHEAF_CAPACITY_DEFAULT : 0,
	};
	char *name = kmalloc(32, GFP_KERNEL);

	if (!name)
		return NULL;
	snprintf(name, 32, "bench-%u%s", size, sheaves ? "" : "-nosheaf");
	return kmem_cache_create_args(name, size, &args, 0);
}

struct kmem_cache *bench_cache_mode(unsigned int size, enum slab_mode mode)
{
	struct kmem_cache_args args = {
		.sheaf_capacity = mode == SLAB_MODE_SHEAVES ?
				  SHEAF_CAPACITY_DEFAULT : 0,
		.mode = mode,
	};
	char *name = kmalloc(32, GFP_KERNEL);

	if (!name)
		return NULL;
	snprintf(name, 32, "bench-%u-%s", size, slab_mode_names[mode]);
	return kmem_cache_create_args(name, size, &args, 0);
}

/* Bytes one sheaf holds: its own array plus the free objects in it. */
static u64 sheaf_bytes(struct kmem_cache *s, struct slab_sheaf *sheaf)
{
	if (!sheaf || sheaf == &bootstrap_sheaf)
		return 0;
	return ksize(sheaf) + (u64)sheaf->size * s->size;
}

struct memory_probe {
	struct kmem_cache *s;
	u64 bytes;
};

/* Runs on the CPU it measures, so the sheaves cannot change under it. */
static void probe_cpu_sheaves(void *info)
{
	struct memory_probe *p = info;
	struct slub_percpu_sheaves *pcs =
		&p->s->cpu_sheaves[smp_processor_id()];
	unsigned long flags;

	p->bytes = 0;
	if (!local_trylock_irqsave(&pcs->lock, flags))
		return;
	p->bytes = sheaf_bytes(p->s, pcs->main) + sheaf_bytes(p->s, pcs->spare);
	local_unlock_irqrestore(&pcs->lock, flags);
}

static u64 barn_bytes(struct kmem_cache *s)
{
	struct node_barn *barn = &get_node(s, 0)->barn;
	struct slab_sheaf *sheaf;
	unsigned long flags;
	u64 bytes = 0;

	spin_lock_irqsave(&barn->lock, flags);
	list_for_each_entry(sheaf, &barn->sheaves_full, barn_list)
		bytes += sheaf_bytes(s, sheaf);
	list_for_each_entry(sheaf, &barn->sheaves_empty, barn_list)
		bytes += sheaf_bytes(s, sheaf);
	spin_unlock_irqrestore(&barn->lock, flags);
	return bytes;
}

void bench_report_cache_memory(const char *group, struct kmem_cache *s,
			       const char *phase)
{
	struct memory_probe p = { .s = s };
	char variant[64];
	unsigned int cpu;

	snprintf(variant, sizeof(variant), "%s.%s.cpu", kmem_cache_name(s),
		 phase);
	for_each_online_cpu(cpu) {
		smp_call_function_single(cpu, probe_cpu_sheaves, &p, true);
		bench_report_value(group, variant, cpu, p.bytes, "bytes");
	}
	snprintf(variant, sizeof(variant), "%s.%s.barn", kmem_cache_name(s),
		 phase);
	bench_report_value(group, variant, 0, barn_bytes(s), "bytes");
}

/* ---------------------------------------------------------------------- */
/* Pairs and batches                                                       */
/* ---------------------------------------------------------------------- */

struct slab_job {
	struct kmem_cache *s;      /* NULL: kmalloc(size) */
	unsigned int size;
	unsigned int n;            /* batch size */
	const unsigned int *order; /* free order for a batch, NULL: in order */
};

static void *objs[BATCH_MAX];
static unsigned int shuffled_order[BATCH_MAX];

static void kmalloc_pairs(void *arg)
{
	struct slab_job *job = arg;
	unsigned int i;

	for (i = 0; i < PAIR_OPS; i++) {
		void *p = kmalloc(job->size, GFP_KERNEL);

		keep(p);
		kfree(p);
	}
}

/*
 * The benchmark loop alone: kmalloc_pairs() with two stand-ins that only
 * return.  They are written in assembly, so the compiler knows nothing of
 * them and calls them exactly as it calls kmalloc() and kfree(), with
 * either compiler.  Their bodies are 3 instructions (loop_alloc: mov,
 * ret; loop_free: ret), so the pair's own cost, the two functions' ret
 * included, is  kmalloc row - loop row + 3.
 */
void *bench_loop_alloc(size_t size, gfp_t gfp);
void bench_loop_free(const void *p);
__asm__(".pushsection .text\n"
	".globl bench_loop_alloc\n"
	"bench_loop_alloc:\n\t"
	"movq %rdi, %rax\n\t"
	"ret\n"
	".globl bench_loop_free\n"
	"bench_loop_free:\n\t"
	"ret\n"
	".popsection");

static void loop_pairs(void *arg)
{
	struct slab_job *job = arg;
	unsigned int i;

	for (i = 0; i < PAIR_OPS; i++) {
		void *p = bench_loop_alloc(job->size, GFP_KERNEL);

		keep(p);
		bench_loop_free(p);
	}
}

/*
 * The same with the size a compile-time constant: kmalloc() chooses the
 * class at the call site and calls __kmalloc_cache() with its cache
 * (variant kmalloc_const).  Its loop (loop_const) calls a stand-in the
 * way kmalloc() then calls __kmalloc_cache(): the cache loaded from
 * kmalloc_caches[], the flags, the size.
 */
void *bench_loop_alloc_cache(struct kmem_cache *s, gfp_t gfp, size_t size);
__asm__(".pushsection .text\n"
	".globl bench_loop_alloc_cache\n"
	"bench_loop_alloc_cache:\n\t"
	"movq %rdi, %rax\n\t"
	"ret\n"
	".popsection");

#define DEFINE_CONST_PAIRS(size)					\
static void kmalloc_const_pairs_##size(void *arg)			\
{									\
	unsigned int i;							\
									\
	(void)arg;							\
	for (i = 0; i < PAIR_OPS; i++) {				\
		void *p = kmalloc(size, GFP_KERNEL);			\
									\
		keep(p);						\
		kfree(p);						\
	}								\
}									\
									\
static void loop_const_pairs_##size(void *arg)				\
{									\
	unsigned int i;							\
									\
	(void)arg;							\
	for (i = 0; i < PAIR_OPS; i++) {				\
		void *p = bench_loop_alloc_cache(			\
			kmalloc_caches[kmalloc_index_const(size)],	\
			GFP_KERNEL, size);				\
									\
		keep(p);						\
		bench_loop_free(p);					\
	}								\
}

DEFINE_CONST_PAIRS(64)
DEFINE_CONST_PAIRS(256)

static void cache_pairs(void *arg)
{
	struct slab_job *job = arg;
	unsigned int i;

	for (i = 0; i < PAIR_OPS; i++) {
		void *p = kmem_cache_alloc(job->s, GFP_KERNEL);

		keep(p);
		kmem_cache_free(job->s, p);
	}
}

static void cache_batches(void *arg)
{
	struct slab_job *job = arg;
	unsigned int r, i, rounds = BATCH_OBJECTS / job->n;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < job->n; i++)
			objs[i] = kmem_cache_alloc(job->s, GFP_KERNEL);
		for (i = 0; i < job->n; i++)
			kmem_cache_free(job->s,
					objs[job->order ? job->order[i] : i]);
	}
}

/* A permutation of 0..n-1 (Fisher-Yates), the same every boot. */
static void make_shuffle(unsigned int n)
{
	struct rnd_state r;
	unsigned int i;

	prandom_seed_state(&r, 0x5eed0000ull + n);
	for (i = 0; i < n; i++)
		shuffled_order[i] = i;
	for (i = n; i > 1; i--) {
		unsigned int j = prandom_below(&r, i), t = shuffled_order[i - 1];

		shuffled_order[i - 1] = shuffled_order[j];
		shuffled_order[j] = t;
	}
}

static struct kmem_cache *cache_on[2], *cache_off[2]; /* 64 and 256 bytes */
static const unsigned int pair_sizes[2] = { 64, 256 };
static void (*const const_pairs[2])(void *) = {
	kmalloc_const_pairs_64, kmalloc_const_pairs_256,
};
static void (*const loop_const_pairs[2])(void *) = {
	loop_const_pairs_64, loop_const_pairs_256,
};

static bool make_caches(void)
{
	unsigned int i;

	for (i = 0; i < 2; i++) {
		if (!cache_on[i])
			cache_on[i] = bench_cache(pair_sizes[i], true);
		if (!cache_off[i])
			cache_off[i] = bench_cache(pair_sizes[i], false);
		if (!cache_on[i] || !cache_off[i]) {
			pr_err("bench: cannot create the bench caches\n");
			return false;
		}
	}
	return true;
}

static void run_kmalloc_pair(void)
{
	struct bench_stats st;
	unsigned int i;

	if (!make_caches())
		return;
	for (i = 0; i < 2; i++) {
		struct slab_job job = { .size = pair_sizes[i] };

		bench_measure(kmalloc_pairs, &job, PAIR_OPS, BENCH_REPS, &st);
		bench_report("single_kmalloc_pair", "kmalloc", pair_sizes[i],
			     PAIR_OPS, &st);
		bench_measure(loop_pairs, &job, PAIR_OPS, BENCH_REPS, &st);
		bench_report("single_kmalloc_pair", "loop", pair_sizes[i],
			     PAIR_OPS, &st);
		bench_measure(const_pairs[i], NULL, PAIR_OPS, BENCH_REPS, &st);
		bench_report("single_kmalloc_pair", "kmalloc_const",
			     pair_sizes[i], PAIR_OPS, &st);
		bench_measure(loop_const_pairs[i], NULL, PAIR_OPS, BENCH_REPS,
			      &st);
		bench_report("single_kmalloc_pair", "loop_const", pair_sizes[i],
			     PAIR_OPS, &st);
		job.s = cache_on[i];
		bench_measure(cache_pairs, &job, PAIR_OPS, BENCH_REPS, &st);
		bench_report("single_kmalloc_pair", "sheaves", pair_sizes[i],
			     PAIR_OPS, &st);
		job.s = cache_off[i];
		bench_measure(cache_pairs, &job, PAIR_OPS, BENCH_REPS, &st);
		bench_report("single_kmalloc_pair", "no_sheaves", pair_sizes[i],
			     PAIR_OPS, &st);
	}
}

static void run_batches(bool shuffled)
{
	static const unsigned int sizes[] = { 1, 10, 100, 1000 };
	const char *group = shuffled ? "single_batch_shuffled"
				     : "single_batch_in_order";
	struct bench_stats st;
	unsigned int i, k;

	if (!make_caches())
		return;
	for (k = 0; k < 2; k++) {
		for (i = 0; i < ARRAY_SIZE(sizes); i++) {
			struct slab_job job = {
				.s = k ? cache_off[0] : cache_on[0],
				.n = sizes[i],
			};

			if (shuffled) {
				make_shuffle(sizes[i]);
				job.order = shuffled_order;
			}
			bench_measure(cache_batches, &job, BATCH_OBJECTS,
				      BENCH_REPS, &st);
			bench_report(group, k ? "no_sheaves" : "sheaves",
				     sizes[i], BATCH_OBJECTS, &st);
		}
	}
}

static void run_batch_in_order(void)
{
	run_batches(false);
}

static void run_batch_shuffled(void)
{
	run_batches(true);
}

/* ---------------------------------------------------------------------- */
/* Pages                                                                   */
/* ---------------------------------------------------------------------- */

static void page_pairs(void *arg)
{
	unsigned int order = *(unsigned int *)arg, i;

	for (i = 0; i < PAGE_OPS; i++) {
		struct page *page = alloc_pages(GFP_KERNEL, order);

		if (page)
			__free_pages(page, order);
	}
}

static void set_pcp_lists(bool on)
{
	struct pglist_data *pgdat = NODE_DATA(0);
	unsigned int z;

	for (z = 0; z < MAX_NR_ZONES; z++) {
		if (on)
			zone_pcp_enable(&pgdat->node_zones[z]);
		else
			zone_pcp_disable(&pgdat->node_zones[z]);
	}
}

/*
 * A block of `order` that the buddy hands out and takes back as it is:
 * free, with its buddy held.  Allocate blocks of `order` until two in a
 * row are buddies (the free blocks of that order come first, each with
 * its buddy in use; then a larger block is split and its halves come
 * out one after the other), give back all but the pair, then the first
 * of the pair: it cannot merge, so it heads free_area[order], where the
 * next allocation of that order finds it, and where its free puts it
 * back, with no split and no merge.  Returns the held buddy (give it
 * back after the row), or NULL.  The blocks must come from the buddy:
 * orders above PCP_MAX_ORDER, or the lists switched off.
 */
static struct page *pin_buddy_block(unsigned int order)
{
	LIST_HEAD(taken);
	struct page *prev = NULL, *page, *p, *n;

	while ((page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order))) {
		if (prev && (page_to_pfn(page) ^ page_to_pfn(prev)) ==
			    1ul << order)
			break;
		if (prev)
			list_add(&prev->lru, &taken);
		prev = page;
	}
	list_for_each_entry_safe(p, n, &taken, lru)
		__free_pages(p, order);
	if (prev)
		__free_pages(prev, order);
	return page;
}

/* One row of single_pages; a buddy row is measured on a pinned block. */
static void page_row(const char *variant, unsigned int order, bool buddy)
{
	struct page *held = buddy ? pin_buddy_block(order) : NULL;
	struct bench_stats st;

	if (buddy && !held) {
		/* Said, not skipped: run_bench.py expects every row. */
		pr_err("bench: single_pages %s order %u: no block to pin\n",
		       variant, order);
		return;
	}
	bench_measure(page_pairs, &order, PAGE_OPS, BENCH_REPS, &st);
	bench_report("single_pages", variant, order, PAGE_OPS, &st);
	if (held)
		__free_pages(held, order);
}

/*
 * Orders 0 and 3 with the per-CPU lists and straight from the buddy (the
 * lists switched off with zone_pcp_disable()), and order 4, which the
 * buddy always serves (the switch changes nothing there; it is measured
 * with the other buddy rows so that they come out in order).
 *
 * Earlier groups leave the heap as they please (slabs, blocks on the
 * lists, a split buddy), and a pair's cost would follow: how far the
 * buddy splits and merges again depends on which free block of the order
 * or above comes first.  So every row makes its own state: the lists are
 * drained first (the per-CPU rows' warm-up then refills them with one
 * batch, and a pair takes and puts back one block, whatever the batch
 * held), and each buddy row runs on a pinned block (pin_buddy_block()).
 * The group gives the same figures alone as after the others.
 */
static void run_pages(void)
{
	static const unsigned int orders[] = { 0, 3, 4 };
	unsigned int i;

	drain_all_pages();
	for (i = 0; i < ARRAY_SIZE(orders) && orders[i] <= PCP_MAX_ORDER; i++)
		page_row("pcp_list", orders[i], false);
	set_pcp_lists(false);
	for (i = 0; i < ARRAY_SIZE(orders); i++)
		page_row("buddy", orders[i], true);
	set_pcp_lists(true);
}

/* ---------------------------------------------------------------------- */
/* Any context: the same loops in task context and inside an NMI           */
/* ---------------------------------------------------------------------- */

/*
 * An NMI request: the handler on `cpu` runs fn(arg) between two
 * serialised TSC reads and stores the ticks.  Only this file sends them,
 * always to itself, and waits for the answer with nothing locked, so the
 * handler never finds a lock of ours taken.
 */
struct nmi_request {
	bench_fn_t fn;
	void *arg;
	u64 ticks;
	int pending;
};

static struct nmi_request nmi_requests[NR_CPUS];

static int bench_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	struct nmi_request *req = &nmi_requests[smp_processor_id()];
	u64 t0;

	(void)type;
	(void)regs;
	if (!__atomic_load_n(&req->pending, __ATOMIC_ACQUIRE))
		return NMI_DONE;
	t0 = rdtsc_ordered();
	req->fn(req->arg);
	req->ticks = rdtsc_ordered() - t0;
	__atomic_store_n(&req->pending, 0, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

/* fn(arg) inside an NMI on this CPU; its ticks, or 0 if none came. */
static u64 run_in_nmi(bench_fn_t fn, void *arg)
{
	struct nmi_request *req = &nmi_requests[smp_processor_id()];
	u64 end = rdtsc() + us_to_tsc(NMI_WAIT_US);

	req->fn = fn;
	req->arg = arg;
	req->ticks = 0;
	__atomic_store_n(&req->pending, 1, __ATOMIC_RELEASE);
	nmi_send_self();
	while (__atomic_load_n(&req->pending, __ATOMIC_ACQUIRE)) {
		if (rdtsc() > end) {
			__atomic_store_n(&req->pending, 0, __ATOMIC_RELEASE);
			return 0;
		}
		cpu_relax();
	}
	return req->ticks;
}

static u64 run_in_task(bench_fn_t fn, void *arg)
{
	u64 t0 = rdtsc_ordered();

	fn(arg);
	return rdtsc_ordered() - t0;
}

static void try_page_pairs(void *arg)
{
	unsigned int i;

	for (i = 0; i < PAGE_OPS; i++) {
		struct page *page = try_alloc_pages(0, 0);

		if (page)
			free_pages_nolock(page, 0);
	}
	(void)arg;
}

#define NOLOCK_OPS 1000

/* kmalloc_nolock(64) + kfree_nolock() pairs: the any-context object path. */
static void nolock_pairs(void *arg)
{
	unsigned int i;

	for (i = 0; i < NOLOCK_OPS; i++) {
		void *p = kmalloc_nolock(64, 0, NUMA_NO_NODE);

		if (p)
			kfree_nolock(p);
	}
	(void)arg;
}

/*
 * The nolock paths never allocate a sheaf (that could recurse), so a CPU
 * whose sheaves were flushed (kmem_cache_shrink() leaves the capacity-0
 * bootstrap sheaf) serves them from the slabs until an ordinary kmalloc()
 * installs real sheaves again.  One ordinary pair first puts this CPU in
 * the steady state the row is about.
 */
static u64 nolock_sample(bool nmi)
{
	kfree(kmalloc(64, GFP_KERNEL));
	return nmi ? run_in_nmi(nolock_pairs, NULL)
		   : run_in_task(nolock_pairs, NULL);
}

struct sheaf_job {
	struct kmem_cache *s;
	struct slab_sheaf *sheaf;
};

static void pop_from_sheaf(void *arg)
{
	struct sheaf_job *job = arg;
	unsigned int i;

	for (i = 0; i < SHEAF_OPS; i++)
		objs[i] = kmem_cache_alloc_from_sheaf(job->s, GFP_NOWAIT,
						      job->sheaf);
}

/* Prefill outside the measurement, pop inside, give back outside. */
static u64 sheaf_sample(struct kmem_cache *s, bool nmi)
{
	struct sheaf_job job = { .s = s };
	unsigned int i;
	u64 ticks;

	job.sheaf = kmem_cache_prefill_sheaf(s, GFP_KERNEL, SHEAF_OPS);
	if (!job.sheaf)
		return 0;
	ticks = nmi ? run_in_nmi(pop_from_sheaf, &job)
		    : run_in_task(pop_from_sheaf, &job);
	for (i = 0; i < SHEAF_OPS; i++)
		if (objs[i])
			kmem_cache_free(s, objs[i]);
	kmem_cache_return_sheaf(s, GFP_KERNEL, job.sheaf);
	return ticks;
}

/* One row from samples taken by `sample` (0 = failed: the row is not
 * printed, and the log says why). */
static void any_context_row(const char *variant, unsigned long param,
			    unsigned long ops, u64 (*sample)(bool nmi),
			    bool nmi)
{
	u64 samples[BENCH_REPS];
	struct bench_stats st;
	unsigned int i;

	sample(nmi);   /* warm-up */
	for (i = 0; i < BENCH_REPS; i++) {
		samples[i] = sample(nmi);
		if (!samples[i]) {
			pr_err("bench: %s: no sample (NMI lost?)\n", variant);
			return;
		}
	}
	bench_stats_from_samples(samples, BENCH_REPS, ops, &st);
	bench_report("single_any_context", variant, param, ops, &st);
}

static u64 try_pages_sample(bool nmi)
{
	return nmi ? run_in_nmi(try_page_pairs, NULL)
		   : run_in_task(try_page_pairs, NULL);
}

static u64 sheaf64_sample(bool nmi)
{
	return sheaf_sample(cache_on[0], nmi);
}

static void run_any_context(void)
{
	if (!make_caches())
		return;
	if (register_nmi_handler(NMI_LOCAL, bench_nmi_handler, "bench")) {
		pr_err("bench: cannot register the NMI handler\n");
		return;
	}
	any_context_row("try_alloc_pages_pair.task", 0, PAGE_OPS,
			try_pages_sample, false);
	any_context_row("try_alloc_pages_pair.nmi", 0, PAGE_OPS,
			try_pages_sample, true);
	any_context_row("kmalloc_nolock_pair.task", 64, NOLOCK_OPS,
			nolock_sample, false);
	any_context_row("kmalloc_nolock_pair.nmi", 64, NOLOCK_OPS,
			nolock_sample, true);
	any_context_row("alloc_from_sheaf.task", 64, SHEAF_OPS,
			sheaf64_sample, false);
	any_context_row("alloc_from_sheaf.nmi", 64, SHEAF_OPS,
			sheaf64_sample, true);
	unregister_nmi_handler(NMI_LOCAL, "bench");
}

/* ---------------------------------------------------------------------- */
/* Memory held in sheaves                                                  */
/* ---------------------------------------------------------------------- */

static void run_memory(void)
{
	struct slab_job job;

	if (!make_caches())
		return;
	/* The workload: the biggest batch, which fills the barn too. */
	job = (struct slab_job){ .s = cache_on[0], .n = BATCH_MAX };
	cache_batches(&job);
	job.s = cache_on[1];
	cache_batches(&job);
	for (job.n = 0; job.n < BATCH_MAX; job.n++)
		objs[job.n] = kmalloc(64, GFP_KERNEL);
	for (job.n = 0; job.n < BATCH_MAX; job.n++)
		kfree(objs[job.n]);
	bench_report_cache_memory("single_memory", cache_on[0], "after_workload");
	bench_report_cache_memory("single_memory", cache_on[1], "after_workload");
	bench_report_cache_memory("single_memory", kmalloc_slab(64),
				  "after_workload");
	kmem_cache_shrink(cache_on[0]);
	kmem_cache_shrink(cache_on[1]);
	kmem_cache_shrink(kmalloc_slab(64));
	bench_report_cache_memory("single_memory", cache_on[0], "after_shrink");
	bench_report_cache_memory("single_memory", cache_on[1], "after_shrink");
	bench_report_cache_memory("single_memory", kmalloc_slab(64),
				  "after_shrink");
}

/*
 * The kmalloc classes, smallest first (slab_caches holds them in the order
 * kmalloc_init() made them); at most MAX_CLASSES.
 */
#define MAX_CLASSES 16

static unsigned int kmalloc_classes(struct kmem_cache **classes)
{
	struct kmem_cache *s;
	unsigned long flags;
	unsigned int n = 0;

	spin_lock_irqsave(&slab_caches_lock, flags);
	list_for_each_entry(s, &slab_caches, list)
		if ((s->flags & SLAB_KMALLOC) && n < MAX_CLASSES)
			classes[n++] = s;
	spin_unlock_irqrestore(&slab_caches_lock, flags);
	return n;
}

/* What the rules allow a class to park: the report multiplies it out. */
static void report_class_rules(const char *group, struct kmem_cache *s)
{
	unsigned int cap = s->sheaf_capacity;
	char variant[64];
	u64 array = cap ? kmalloc_size_roundup(SHEAF_HEADER_SIZE +
					       cap * sizeof(void *)) : 0;

	snprintf(variant, sizeof(variant), "%s.capacity", kmem_cache_name(s));
	bench_report_value(group, variant, s->object_size, cap, "objects");
	snprintf(variant, sizeof(variant), "%s.slot", kmem_cache_name(s));
	bench_report_value(group, variant, s->object_size, s->size, "bytes");
	snprintf(variant, sizeof(variant), "%s.sheaf_array", kmem_cache_name(s));
	bench_report_value(group, variant, s->object_size, array, "bytes");
}

/*
 * Every kmalloc class in turn: its rules, then BATCH_MAX kmalloc()s of
 * its size and as many kfree()s (which leave main and spare full, the
 * barn at its limit and the rest in the slabs), then what is parked.
 * The classes are shrunk at the end, so the other groups find them as
 * before.
 */
static void run_class_memory(void)
{
	static const char group[] = "single_class_memory";
	struct kmem_cache *classes[MAX_CLASSES];
	unsigned int n = kmalloc_classes(classes), c, i;

	bench_report_value(group, "barn.max_full", 0, BARN_MAX_FULL, "sheaves");
	bench_report_value(group, "barn.max_empty", 0, BARN_MAX_EMPTY,
			   "sheaves");
	for (c = 0; c < n; c++) {
		struct kmem_cache *s = classes[c];

		report_class_rules(group, s);
		for (i = 0; i < BATCH_MAX; i++)
			objs[i] = kmalloc(s->object_size, GFP_KERNEL);
		for (i = 0; i < BATCH_MAX; i++)
			kfree(objs[i]);
		bench_report_cache_memory(group, s, "after_workload");
	}
	for (c = 0; c < n; c++)
		kmem_cache_shrink(classes[c]);
}

static const struct bench_group kmalloc_pair_bench = {
	.name = "single_kmalloc_pair", .run = run_kmalloc_pair,
};
bench_group(kmalloc_pair_bench);

static const struct bench_group batch_in_order_bench = {
	.name = "single_batch_in_order", .run = run_batch_in_order,
};
bench_group(batch_in_order_bench);

static const struct bench_group batch_shuffled_bench = {
	.name = "single_batch_shuffled", .run = run_batch_shuffled,
};
bench_group(batch_shuffled_bench);

static const struct bench_group pages_bench = {
	.name = "single_pages", .run = run_pages,
};
bench_group(pages_bench);

static const struct bench_group any_context_bench = {
	.name = "single_any_context", .run = run_any_context,
};
bench_group(any_context_bench);

static const struct bench_group memory_bench = {
	.name = "single_memory", .run = run_memory,
};
bench_group(memory_bench);

static const struct bench_group class_memory_bench = {
	.name = "single_class_memory", .run = run_class_memory,
};
bench_group(class_memory_bench);
