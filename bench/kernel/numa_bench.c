/*
 * numa_bench.c - how many remote objects the sheaves hand out, and what
 * the node rules cost, in each slab_numa mode.
 *
 * The open question from when sheaves were proposed: a sheaf keeps what is
 * freed on its CPU whatever node the memory is on, so allocations get more
 * remote memory.  How much?  QEMU gives a guest the topology (the SRAT and
 * SLIT) but not the latency: a remote load costs what a local one does.
 * So this group counts instead of timing.  For each mode (SLAB_NUMA_BLIND,
 * SLAB_NUMA_LINUX, SLAB_NUMA_STRICT: include/slab.h), on a 64-byte cache
 * of its own with the default sheaf capacity:
 *
 *   (a) cross-node producer/consumer: CPUs are paired, one of node 0 with
 *       one of node 1.  Each CPU of a pair allocates batches of
 *       NUMA_BATCH objects and hands them to its partner through a ring,
 *       and frees what the partner handed it: node 0 allocates for node 1
 *       to free and node 1 for node 0, at once.  Every object handed out
 *       is checked: is its memory (page_to_nid()) on the allocating CPU's
 *       memory node (numa_mem_id())?
 *   (b) local: right after (a), every CPU allocates and frees batches of
 *       its own, counted the same way; in blind mode what (a) left in the
 *       sheaves and barns shows here.  Twice: batches of NUMA_BATCH
 *       ("local": they cycle the top of main) and of NUMA_DEEP_BATCH
 *       ("local_deep": past main and spare into the barn and the slabs).
 *   (c) instructions: the same two patterns once more, one CPU at a time
 *       (see below), alloc side and free side measured apart;
 *   (d) memory parked at the end: objects in each CPU's main and spare
 *       sheaf, in each node's barn (full sheaves), the bytes of both with
 *       the sheaf arrays, how many of those objects are remote, and the
 *       slabs per node.
 * And per node the numastat counter other_node for slab objects (objects
 * of the node's slabs that a CPU of another node took) over the mode's
 * run: what /sys would show.
 *
 * Rows (group numa; <m> = blind, linux, strict):
 *   <m>.cross.handed / .remote   objects, param = the allocating CPU
 *   <m>.local.handed / .remote   the same for (b); .local_deep. too
 *   <m>.cross.alloc / .free      tsc/op (instructions under -icount),
 *   <m>.local.alloc / .free      param = object size
 *   loop.alloc / loop.free       the same loops around stand-ins that only
 *                                return (numa_loop_alloc(): mov, ret;
 *                                numa_loop_free(): ret), so a pair costs
 *                                alloc + free - loop.alloc - loop.free + 3
 *   <m>.sheaves.objects/.remote/.bytes   param = CPU
 *   <m>.barn.objects/.remote/.bytes      param = node
 *   <m>.slabs / .slabs.bytes             param = node
 *   <m>.numastat.other                   param = node
 *
 * How CPUs run at once, in (a) and (b): on_each_cpu() sends the job to
 * every CPU (IPI context, IRQs off); the CPUs taking part meet at a
 * barrier, then run until their work is done, waiting only on the rings
 * (a CPU waits when its outgoing ring is full and its incoming one empty,
 * which its partner's progress ends).  A CPU that sees no progress for
 * NUMA_STALL_US gives up and the run is reported as failed, so a bug
 * cannot hang the boot.
 *
 * Why (c) runs one CPU at a time: under -icount the TSC is QEMU's virtual
 * clock, which every vCPU's instructions advance; with CPUs running at
 * once, a CPU's TSC difference would count the others' instructions too.
 * So each step (allocate NUMA_STEP_OBJECTS on CPU x, free them on CPU y)
 * is sent to one CPU with smp_call_function_single() while the others are
 * idle (halted: they execute nothing), and timed on that CPU.  The steps
 * follow the patterns of (a) and (b), so the sheaves, barns and slabs go
 * through the same states; what this misses is contention (no lock is
 * ever found taken), which counted_bench.c measures for the local pattern.
 * The CPU that sends the steps spins a few instructions per QEMU turn,
 * and a timer tick may land inside a step: the median of NUMA_STEP_REPS
 * samples keeps neither.
 */
#include <bench.h>
#include <kernel.h>
#include <mm.h>
#include <mmzone.h>
#include <numa.h>
#include <printk.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "../../arch/x86_64/cpu.h"
#include "../../kernel/timekeeping.h"
#include "../../mm/slab_internal.h"

#define NUMA_OBJECT_SIZE    64
#define NUMA_BATCH          16     /* objects allocated, then handed over */
#define NUMA_RING_SIZE      64     /* pointers in flight per direction */
#define NUMA_CROSS_OBJECTS  4096   /* per CPU per cross-node run */
#define NUMA_LOCAL_OBJECTS  4096   /* per CPU per local run */
#define NUMA_STEP_OBJECTS   256    /* per measured step: > 4 sheaves */
#define NUMA_DEEP_BATCH     NUMA_STEP_OBJECTS /* (b) past main and spare */
#define NUMA_STEP_REPS      21
#define NUMA_BARRIER_US     500000
#define NUMA_STALL_US       1000000   /* no progress this long: give up */
#define NUMA_NODE_A         0
#define NUMA_NODE_B         1
#define PERCENT_TENTHS      1000

BUILD_BUG_ON(NUMA_RING_SIZE % NUMA_BATCH);
BUILD_BUG_ON(NUMA_LOCAL_OBJECTS % NUMA_DEEP_BATCH);

struct numa_ring {
	void *slot[NUMA_RING_SIZE];
	unsigned long head;   /* written by the producer only */
	unsigned long tail;   /* written by the consumer only */
	int done;             /* the producer will add no more */
} __aligned(SLAB_CACHE_LINE);

/* What one CPU does in (a): give to `out`, take from `in`. */
struct numa_role {
	bool active;
	struct numa_ring *out, *in;
};

struct numa_job {
	struct kmem_cache *s;
	bool cross;                 /* (a); else (b) */
	unsigned int batch;         /* (b): objects allocated, then freed */
	unsigned int ncpus;         /* CPUs taking part */
	unsigned int arrived;       /* start barrier */
	bool failed;
	struct numa_role role[NR_CPUS];
	unsigned long handed[NR_CPUS], remote[NR_CPUS];
	struct numa_ring ring[NR_CPUS];   /* two per pair */
};

static struct numa_job numa_job;

/* Each CPU's objects of a local batch in (b), and of a step in (c). */
static void *step_objs[NR_CPUS][NUMA_STEP_OBJECTS];

/* The CPUs of each of the two nodes, paired in order: pair i is
 * (cpu_a[i], cpu_b[i]). */
static unsigned int cpu_a[NR_CPUS], cpu_b[NR_CPUS];
static unsigned int nr_a, nr_b, nr_pairs;

/* Is object's memory on another node than this CPU's memory node? */
static bool object_is_remote(const void *object)
{
	return page_to_nid(virt_to_page(object)) != numa_mem_id();
}

static bool numa_barrier(struct numa_job *j)
{
	u64 end = rdtsc() + us_to_tsc(NUMA_BARRIER_US);

	__atomic_fetch_add(&j->arrived, 1, __ATOMIC_ACQ_REL);
	while (__atomic_load_n(&j->arrived, __ATOMIC_ACQUIRE) < j->ncpus) {
		if (rdtsc() > end || READ_ONCE(j->failed)) {
			WRITE_ONCE(j->failed, true);
			return false;
		}
		cpu_relax();
	}
	return true;
}

static unsigned long ring_room(struct numa_ring *r)
{
	return NUMA_RING_SIZE -
	       (r->head - __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE));
}

/* Allocate a batch and hand it over; false if the cache gave nothing. */
static bool produce_batch(struct numa_job *j, struct numa_ring *r,
			  unsigned int cpu)
{
	unsigned int i;

	for (i = 0; i < NUMA_BATCH; i++) {
		void *p = kmem_cache_alloc(j->s, GFP_KERNEL);

		if (!p)
			break;
		j->handed[cpu]++;
		j->remote[cpu] += object_is_remote(p);
		r->slot[(r->head + i) % NUMA_RING_SIZE] = p;
	}
	/* Release: the partner reads the slots after it sees head move. */
	__atomic_store_n(&r->head, r->head + i, __ATOMIC_RELEASE);
	return i == NUMA_BATCH;
}

/* Free everything the partner has handed over so far; how many. */
static unsigned long consume_all(struct numa_job *j, struct numa_ring *r)
{
	unsigned long head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
	unsigned long n = head - r->tail;

	for (; r->tail != head; r->tail++)
		kmem_cache_free(j->s, r->slot[r->tail % NUMA_RING_SIZE]);
	__atomic_store_n(&r->tail, head, __ATOMIC_RELEASE);
	return n;
}

/* (a) on one CPU: produce NUMA_CROSS_OBJECTS for the partner and free
 * all it produces, whichever is possible, until both are done. */
static void cross_run(struct numa_job *j, struct numa_role *role,
		      unsigned int cpu)
{
	unsigned long made = 0;
	u64 stall_end = rdtsc() + us_to_tsc(NUMA_STALL_US);

	for (;;) {
		bool progress = false;
		int partner_done = __atomic_load_n(&role->in->done,
						   __ATOMIC_ACQUIRE);

		if (!role->out->done && ring_room(role->out) >= NUMA_BATCH) {
			bool whole = produce_batch(j, role->out, cpu);

			made += NUMA_BATCH;
			if (!whole || made >= NUMA_CROSS_OBJECTS)
				__atomic_store_n(&role->out->done, 1,
						 __ATOMIC_RELEASE);
			if (!whole)
				WRITE_ONCE(j->failed, true);
			progress = true;
		}
		if (consume_all(j, role->in))
			progress = true;
		/* done was read before the last look at head: nothing comes
		 * after it. */
		else if (partner_done && role->out->done)
			return;
		if (progress) {
			stall_end = rdtsc() + us_to_tsc(NUMA_STALL_US);
			continue;
		}
		if (rdtsc() > stall_end || READ_ONCE(j->failed)) {
			WRITE_ONCE(j->failed, true);
			return;
		}
		cpu_relax();
	}
}

/* (b) on one CPU: batches allocated and freed here. */
static void local_run(struct numa_job *j, unsigned int cpu)
{
	void **batch = step_objs[cpu];
	unsigned int round, i, n;

	for (round = 0; round < NUMA_LOCAL_OBJECTS / j->batch; round++) {
		for (n = 0; n < j->batch; n++) {
			batch[n] = kmem_cache_alloc(j->s, GFP_KERNEL);
			if (!batch[n])
				break;
			j->handed[cpu]++;
			j->remote[cpu] += object_is_remote(batch[n]);
		}
		for (i = 0; i < n; i++)
			kmem_cache_free(j->s, batch[i]);
		if (n < j->batch) {
			WRITE_ONCE(j->failed, true);
			return;
		}
	}
}

/* Runs on every CPU, in IPI context. */
static void numa_cpu(void *info)
{
	struct numa_job *j = info;
	unsigned int cpu = smp_processor_id();
	struct numa_role *role = &j->role[cpu];

	if (!role->active || !numa_barrier(j))
		return;
	if (j->cross)
		cross_run(j, role, cpu);
	else
		local_run(j, cpu);
}

/* Pair the CPUs; ring 2i carries pair i's node-A-to-node-B objects. */
static void numa_job_init(struct kmem_cache *s, bool cross,
			  unsigned int batch)
{
	unsigned int i, cpu;

	memset(&numa_job, 0, sizeof(numa_job));
	numa_job.s = s;
	numa_job.cross = cross;
	numa_job.batch = batch;
	if (!cross) {
		for (i = 0; i < nr_a; i++)
			numa_job.role[cpu_a[i]].active = true;
		for (i = 0; i < nr_b; i++)
			numa_job.role[cpu_b[i]].active = true;
		numa_job.ncpus = nr_a + nr_b;
		return;
	}
	for (i = 0; i < nr_pairs; i++) {
		struct numa_ring *ab = &numa_job.ring[2 * i];
		struct numa_ring *ba = &numa_job.ring[2 * i + 1];

		cpu = cpu_a[i];
		numa_job.role[cpu] = (struct numa_role){ true, ab, ba };
		cpu = cpu_b[i];
		numa_job.role[cpu] = (struct numa_role){ true, ba, ab };
	}
	numa_job.ncpus = 2 * nr_pairs;
}

/* Run (a) or (b) once; false (with a line) if a CPU failed. */
static bool numa_run(struct kmem_cache *s, bool cross, unsigned int batch)
{
	numa_job_init(s, cross, batch);
	on_each_cpu(numa_cpu, &numa_job, true);
	if (numa_job.failed)
		pr_err("bench: numa %s %s: a CPU stalled or got no object\n",
		       slab_numa_mode_names[slab_numa_mode],
		       cross ? "cross" : "local");
	return !numa_job.failed;
}

/* Objects handed out and remote ones, per allocating CPU, and a line
 * with the fraction over all of them. */
static void report_remote(const char *pattern)
{
	const char *mode = slab_numa_mode_names[slab_numa_mode];
	unsigned long all = 0, remote = 0;
	char handed_name[48], remote_name[48];
	unsigned int cpu;

	snprintf(handed_name, sizeof(handed_name), "%s.%s.handed", mode,
		 pattern);
	snprintf(remote_name, sizeof(remote_name), "%s.%s.remote", mode,
		 pattern);
	for_each_online_cpu(cpu) {
		if (!numa_job.role[cpu].active)
			continue;
		bench_report_value("numa", handed_name, cpu,
				   numa_job.handed[cpu], "objects");
		bench_report_value("numa", remote_name, cpu,
				   numa_job.remote[cpu], "objects");
		all += numa_job.handed[cpu];
		remote += numa_job.remote[cpu];
	}
	remote = all ? remote * PERCENT_TENTHS / all : 0;
	printk("bench: numa %s %s: %lu objects handed out, %lu.%lu%% remote\n",
	       mode, pattern, all, remote / 10, remote % 10);
}

/* ---------------------------------------------------------------------- */
/* (c) instructions, one CPU at a time                                     */
/* ---------------------------------------------------------------------- */

/*
 * Stand-ins for kmem_cache_alloc() and kmem_cache_free() that only
 * return, in assembly so that the compiler calls them exactly as it calls
 * the real ones: the step loops around them are the loop overhead.
 */
void *numa_loop_alloc(struct kmem_cache *s, gfp_t gfp);
void numa_loop_free(struct kmem_cache *s, void *object);
__asm__(".pushsection .text\n"
	".globl numa_loop_alloc\n"
	"numa_loop_alloc:\n\t"
	"movq %rdi, %rax\n\t"
	"ret\n"
	".globl numa_loop_free\n"
	"numa_loop_free:\n\t"
	"ret\n"
	".popsection");

struct numa_step {
	struct kmem_cache *s;
	void **objs;
	bool loop;     /* the stand-ins instead of the allocator */
	u64 ticks;
};

static void step_alloc(void *info)
{
	struct numa_step *st = info;
	unsigned int i;
	u64 t0 = rdtsc_ordered();

	if (st->loop)
		for (i = 0; i < NUMA_STEP_OBJECTS; i++)
			st->objs[i] = numa_loop_alloc(st->s, GFP_KERNEL);
	else
		for (i = 0; i < NUMA_STEP_OBJECTS; i++)
			st->objs[i] = kmem_cache_alloc(st->s, GFP_KERNEL);
	st->ticks = rdtsc_ordered() - t0;
}

static void step_free(void *info)
{
	struct numa_step *st = info;
	unsigned int i;
	u64 t0 = rdtsc_ordered();

	if (st->loop)
		for (i = 0; i < NUMA_STEP_OBJECTS; i++)
			numa_loop_free(st->s, st->objs[i]);
	else
		for (i = 0; i < NUMA_STEP_OBJECTS; i++)
			kmem_cache_free(st->s, st->objs[i]);
	st->ticks = rdtsc_ordered() - t0;
}

/* Run one step on cpu; its ticks. */
static u64 run_step(unsigned int cpu, smp_call_func_t fn, struct kmem_cache *s,
		    void **objs, bool loop)
{
	struct numa_step st = { .s = s, .objs = objs, .loop = loop };

	smp_call_function_single(cpu, fn, &st, true);
	return st.ticks;
}

/*
 * One sample of a pattern, over every pair: each CPU of a pair allocates
 * NUMA_STEP_OBJECTS, then (cross) each frees what its partner allocated
 * or (local) its own.  *alloc and *free get the summed ticks; false if an
 * allocation failed (the objects of that sample are freed all the same).
 */
static bool step_sample(struct kmem_cache *s, bool cross, bool loop,
			u64 *alloc, u64 *frees)
{
	unsigned int i, k;
	bool ok = true;

	*alloc = *frees = 0;
	for (i = 0; i < nr_pairs; i++) {
		unsigned int cpu[2] = { cpu_a[i], cpu_b[i] };

		for (k = 0; k < 2; k++)
			*alloc += run_step(cpu[k], step_alloc, s,
					   step_objs[cpu[k]], loop);
		for (k = 0; k < 2 && !loop; k++) {
			unsigned int j;

			for (j = 0; j < NUMA_STEP_OBJECTS; j++)
				ok = ok && step_objs[cpu[k]][j];
		}
		for (k = 0; k < 2; k++) {
			/* The partner's objects (cross) or its own. */
			unsigned int from = cross ? cpu[1 - k] : cpu[k];
			void **objs = step_objs[from];

			if (!ok && !loop) {
				unsigned int j, n = 0;

				/* Free what there is, in place, untimed. */
				for (j = 0; j < NUMA_STEP_OBJECTS; j++)
					if (objs[j])
						objs[n++] = objs[j];
				for (j = 0; j < n; j++)
					kmem_cache_free(s, objs[j]);
				continue;
			}
			*frees += run_step(cpu[k], step_free, s, objs, loop);
		}
	}
	return ok;
}

static void report_steps(struct kmem_cache *s, const char *name, bool cross,
			 bool loop)
{
	u64 alloc[NUMA_STEP_REPS], frees[NUMA_STEP_REPS], a, f;
	unsigned long ops = (unsigned long)NUMA_STEP_OBJECTS * 2 * nr_pairs;
	struct bench_stats st;
	char variant[48];
	unsigned int r;

	/* Warm-up: the sheaves, barns and slabs in the pattern's state. */
	if (!step_sample(s, cross, loop, &a, &f))
		goto failed;
	for (r = 0; r < NUMA_STEP_REPS; r++)
		if (!step_sample(s, cross, loop, &alloc[r], &frees[r]))
			goto failed;
	bench_stats_from_samples(alloc, NUMA_STEP_REPS, ops, &st);
	snprintf(variant, sizeof(variant), "%s.alloc", name);
	bench_report("numa", variant, NUMA_OBJECT_SIZE, ops, &st);
	bench_stats_from_samples(frees, NUMA_STEP_REPS, ops, &st);
	snprintf(variant, sizeof(variant), "%s.free", name);
	bench_report("numa", variant, NUMA_OBJECT_SIZE, ops, &st);
	return;
failed:
	pr_err("bench: numa %s: an allocation failed\n", name);
}

/* ---------------------------------------------------------------------- */
/* (d) memory parked                                                       */
/* ---------------------------------------------------------------------- */

struct parked {
	unsigned long objects, remote;
	u64 bytes;   /* the sheaf arrays and the free objects in them */
};

static void count_sheaf(struct kmem_cache *s, struct slab_sheaf *sheaf,
			int nid, struct parked *p)
{
	unsigned int i;

	if (!sheaf || sheaf == &bootstrap_sheaf)
		return;
	p->bytes += ksize(sheaf) + (u64)sheaf->size * s->size;
	p->objects += sheaf->size;
	for (i = 0; i < sheaf->size; i++)
		p->remote += page_to_nid(virt_to_page(sheaf->objects[i])) != nid;
}

struct cpu_probe {
	struct kmem_cache *s;
	struct parked p;
};

/* Runs on the CPU it counts, so its sheaves cannot change meanwhile. */
static void probe_cpu(void *info)
{
	struct cpu_probe *probe = info;
	struct slub_percpu_sheaves *pcs =
		&probe->s->cpu_sheaves[smp_processor_id()];
	unsigned long flags;

	memset(&probe->p, 0, sizeof(probe->p));
	if (!local_trylock_irqsave(&pcs->lock, flags))
		return;
	count_sheaf(probe->s, pcs->main, numa_mem_id(), &probe->p);
	count_sheaf(probe->s, pcs->spare, numa_mem_id(), &probe->p);
	local_unlock_irqrestore(&pcs->lock, flags);
}

static void probe_barn(struct kmem_cache *s, int nid, struct parked *p)
{
	struct node_barn *barn = &get_node(s, nid)->barn;
	struct slab_sheaf *sheaf;
	unsigned long flags;

	memset(p, 0, sizeof(*p));
	spin_lock_irqsave(&barn->lock, flags);
	list_for_each_entry(sheaf, &barn->sheaves_full, barn_list)
		count_sheaf(s, sheaf, nid, p);
	list_for_each_entry(sheaf, &barn->sheaves_empty, barn_list)
		count_sheaf(s, sheaf, nid, p);
	spin_unlock_irqrestore(&barn->lock, flags);
}

static void report_parked(const char *mode, const char *where, int param,
			  const struct parked *p)
{
	char variant[48];

	snprintf(variant, sizeof(variant), "%s.%s.objects", mode, where);
	bench_report_value("numa", variant, param, p->objects, "objects");
	snprintf(variant, sizeof(variant), "%s.%s.remote", mode, where);
	bench_report_value("numa", variant, param, p->remote, "objects");
	snprintf(variant, sizeof(variant), "%s.%s.bytes", mode, where);
	bench_report_value("numa", variant, param, p->bytes, "bytes");
}

static void report_memory(struct kmem_cache *s)
{
	const char *mode = slab_numa_mode_names[slab_numa_mode];
	struct cpu_probe probe = { .s = s };
	struct parked barn;
	char variant[48];
	unsigned long flags, slabs;
	unsigned int cpu;
	int nid;

	for_each_online_cpu(cpu) {
		smp_call_function_single(cpu, probe_cpu, &probe, true);
		report_parked(mode, "sheaves", cpu, &probe.p);
	}
	for_each_online_node(nid) {
		struct kmem_cache_node *n = get_node(s, nid);

		probe_barn(s, nid, &barn);
		report_parked(mode, "barn", nid, &barn);
		spin_lock_irqsave(&n->list_lock, flags);
		slabs = n->nr_slabs;
		spin_unlock_irqrestore(&n->list_lock, flags);
		snprintf(variant, sizeof(variant), "%s.slabs", mode);
		bench_report_value("numa", variant, nid, slabs, "slabs");
		snprintf(variant, sizeof(variant), "%s.slabs.bytes", mode);
		bench_report_value("numa", variant, nid,
				   (u64)slabs << (s->order + PAGE_SHIFT),
				   "bytes");
	}
}

/* ---------------------------------------------------------------------- */
/* The group                                                               */
/* ---------------------------------------------------------------------- */

/* Node A's and node B's CPUs; false when there are not both. */
static bool find_cpus(void)
{
	unsigned int cpu;

	nr_a = nr_b = 0;
	for_each_online_cpu(cpu) {
		if (cpu_to_mem(cpu) == NUMA_NODE_A)
			cpu_a[nr_a++] = cpu;
		else if (cpu_to_mem(cpu) == NUMA_NODE_B)
			cpu_b[nr_b++] = cpu;
	}
	nr_pairs = min(nr_a, nr_b);
	return nr_pairs > 0;
}

static void read_numastat(unsigned long *other)
{
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++)
		other[nid] = nid < nr_node_ids && node_online(nid) ?
			numa_stat_read(NUMA_STAT_OBJECTS, nid, NUMA_OTHER) : 0;
}

/* Each mode's cache; kmem_cache_create() keeps the name it is given. */
static const char *const numa_cache_names[NR_SLAB_NUMA_MODES] = {
	[SLAB_NUMA_BLIND] = "numa-blind",
	[SLAB_NUMA_LINUX] = "numa-linux",
	[SLAB_NUMA_STRICT] = "numa-strict",
};

static void run_mode(enum slab_numa_mode mode)
{
	const char *m = slab_numa_mode_names[mode];
	unsigned long other0[MAX_NUMNODES], other1[MAX_NUMNODES];
	struct kmem_cache *s;
	char variant[48];
	int nid;

	slab_set_numa_mode(mode);
	s = kmem_cache_create(numa_cache_names[mode], NUMA_OBJECT_SIZE, 0, 0,
			      NULL);
	if (!s) {
		pr_err("bench: numa: cannot create cache %s\n",
		       numa_cache_names[mode]);
		return;
	}
	read_numastat(other0);
	/* (a), once to reach the steady state, once counted; then (b). */
	if (numa_run(s, true, NUMA_BATCH) && numa_run(s, true, NUMA_BATCH)) {
		report_remote("cross");
		if (numa_run(s, false, NUMA_BATCH))
			report_remote("local");
		if (numa_run(s, false, NUMA_DEEP_BATCH))
			report_remote("local_deep");
	}
	read_numastat(other1);
	snprintf(variant, sizeof(variant), "%s.numastat.other", m);
	for_each_online_node(nid)
		bench_report_value("numa", variant, nid,
				   other1[nid] - other0[nid], "objects");
	/* (c) */
	snprintf(variant, sizeof(variant), "%s.cross", m);
	report_steps(s, variant, true, false);
	snprintf(variant, sizeof(variant), "%s.local", m);
	report_steps(s, variant, false, false);
	/* (d) */
	report_memory(s);
	if (kmem_cache_destroy(s))
		pr_err("bench: numa: cache %s still holds objects\n",
		       numa_cache_names[mode]);
}

static void run_numa_bench(void)
{
	enum slab_numa_mode saved = slab_numa_mode, mode;

	if (!find_cpus()) {
		printk("bench: numa: needs CPUs with memory on nodes %d and %d "
		       "(this boot: %d node%s): skipped\n", NUMA_NODE_A,
		       NUMA_NODE_B, nr_node_ids, nr_node_ids == 1 ? "" : "s");
		return;
	}
	printk("bench: numa: %u CPU pair(s) across nodes %d and %d, distance %d\n",
	       nr_pairs, NUMA_NODE_A, NUMA_NODE_B,
	       node_distance(NUMA_NODE_A, NUMA_NODE_B));
	/* The loop alone, on the first CPU of node A (no cache needed:
	 * the stand-ins never look at it). */
	report_steps(NULL, "loop", false, true);
	for (mode = 0; mode < NR_SLAB_NUMA_MODES; mode++)
		run_mode(mode);
	slab_set_numa_mode(saved);
}

static const struct bench_group numa_bench = {
	.name = "numa", .run = run_numa_bench,
};
bench_group(numa_bench);
