/*
 * mode_bench.c - the three per-CPU designs of the slab allocator side by
 * side on one CPU: sheaves (Linux 7.0), SLUB's per-CPU slabs (Linux 2.6.22
 * to 6.19, mm/cpu_slab.c) and neither (every operation on the node's
 * list_lock).
 *
 * Run in the single-CPU boot of `make bench` (`-icount shift=0`), so every
 * figure is an exact count of guest instructions per operation.
 *
 * The caches: four private caches of the same object size, made in the
 * same boot, differing only in their mode.
 *   sheaf32   sheaves of exactly 32 objects: the capacity of the run Linux
 *             published when it compared sheaves with cpu slabs.  Our rule
 *             (calculate_sheaf_capacity(), mm/sheaf.c) rounds a wanted
 *             capacity up to fill the kmalloc object the sheaf lives in,
 *             and 32 pointers plus the header fill 288 of kmalloc-512's
 *             bytes, so it would give 60 whatever the flags.  The bench
 *             therefore sets s->sheaf_capacity to 32 right after creating
 *             the cache, before any sheaf exists (every sheaf is then
 *             allocated with that capacity; nothing else reads it earlier).
 *   sheaf     our default capacity (60 for a 64-byte slot, 28 for 256).
 *   cpu_slab  SLAB_MODE_CPU_SLAB.
 *   none      SLAB_MODE_NONE: what the mode machinery costs a cache that
 *             has no per-CPU layer at all.
 *
 * Groups:
 *   single_mode_pair   kmem_cache_alloc()+kmem_cache_free() pairs; param =
 *                      object size (64, 256); variant = cache
 *   single_mode_batch  allocate N objects of 64 bytes, then free them in
 *                      allocation order ("<cache>.in_order") or in a fixed
 *                      shuffled order ("<cache>.shuffled"); param = N (1,
 *                      10, 100, 1000); per op = one alloc+free pair
 *   single_mode_stats  what the cpu_slab cache's paths did during each
 *                      batch row: statistic counts per 1000 objects, the
 *                      warm-up round and the measured ones averaged
 *                      (variant "<pattern>.<ITEM>", param = N)
 *
 * The loops are those of slab_bench.c (the same shapes: one pointer kept
 * alive per pair, an index load per shuffled free), so the sheaf and
 * none rows here can be read against its sheaves and no_sheaves rows.
 */
#include <bench.h>
#include <kernel.h>
#include <prandom.h>
#include <printk.h>
#include <slab.h>
#include "../../mm/slab_internal.h"

#define MODE_PAIR_OPS      1000
#define MODE_BATCH_OBJECTS 1000
#define MODE_BATCH_MAX     1000
#define MODE_REPS          21
#define PUBLISHED_CAPACITY 32   /* Linux's sheaves-vs-cpu-slabs run */
#define NR_MODE_CACHES     4

#define keep(p) __asm__ __volatile__("" : : "r"(p) : "memory")

struct mode_cache {
	const char *name;
	enum slab_mode mode;
	unsigned int capacity;   /* sheaves only; 0 = default */
};

static const struct mode_cache mode_caches[NR_MODE_CACHES] = {
	{ "sheaf32",  SLAB_MODE_SHEAVES,  PUBLISHED_CAPACITY },
	{ "sheaf",    SLAB_MODE_SHEAVES,  0 },
	{ "cpu_slab", SLAB_MODE_CPU_SLAB, 0 },
	{ "none",     SLAB_MODE_NONE,     0 },
};

static const unsigned int mode_sizes[2] = { 64, 256 };
static struct kmem_cache *mode_cache_of[2][NR_MODE_CACHES];

static struct kmem_cache *make_mode_cache(unsigned int size,
					  const struct mode_cache *m)
{
	struct kmem_cache_args args = {
		.sheaf_capacity = m->capacity ? m->capacity :
				  (m->mode == SLAB_MODE_SHEAVES ?
				   SHEAF_CAPACITY_DEFAULT : 0),
		.mode = m->mode,
	};
	struct kmem_cache *s;
	char *name = kmalloc(32, GFP_KERNEL);

	if (!name)
		return NULL;
	snprintf(name, 32, "mode-%u-%s", size, m->name);
	s = kmem_cache_create_args(name, size, &args, 0);
	if (s && m->capacity)
		s->sheaf_capacity = m->capacity;   /* see the head comment */
	return s;
}

static bool make_mode_caches(void)
{
	unsigned int i, k;

	for (i = 0; i < 2; i++)
		for (k = 0; k < NR_MODE_CACHES; k++) {
			if (mode_cache_of[i][k])
				continue;
			mode_cache_of[i][k] = make_mode_cache(mode_sizes[i],
							      &mode_caches[k]);
			if (!mode_cache_of[i][k]) {
				pr_err("bench: cannot create cache %s\n",
				       mode_caches[k].name);
				return false;
			}
		}
	return true;
}

struct mode_job {
	struct kmem_cache *s;
	unsigned int n;
	const unsigned int *order;   /* NULL: free in allocation order */
};

static void *mode_objs[MODE_BATCH_MAX];
static unsigned int mode_order[MODE_BATCH_MAX];

static void mode_pairs(void *arg)
{
	struct mode_job *job = arg;
	unsigned int i;

	for (i = 0; i < MODE_PAIR_OPS; i++) {
		void *p = kmem_cache_alloc(job->s, GFP_KERNEL);

		keep(p);
		kmem_cache_free(job->s, p);
	}
}

static void mode_batches(void *arg)
{
	struct mode_job *job = arg;
	unsigned int r, i, rounds = MODE_BATCH_OBJECTS / job->n;

	for (r = 0; r < rounds; r++) {
		for (i = 0; i < job->n; i++)
			mode_objs[i] = kmem_cache_alloc(job->s, GFP_KERNEL);
		for (i = 0; i < job->n; i++)
			kmem_cache_free(job->s,
					mode_objs[job->order ? job->order[i] : i]);
	}
}

/* The same permutation as slab_bench.c's for each n (same seed). */
static void mode_shuffle(unsigned int n)
{
	struct rnd_state r;
	unsigned int i;

	prandom_seed_state(&r, 0x5eed0000ull + n);
	for (i = 0; i < n; i++)
		mode_order[i] = i;
	for (i = n; i > 1; i--) {
		unsigned int j = prandom_below(&r, i), t = mode_order[i - 1];

		mode_order[i - 1] = mode_order[j];
		mode_order[j] = t;
	}
}

static void run_mode_pair(void)
{
	struct bench_stats st;
	unsigned int i, k;

	if (!make_mode_caches())
		return;
	for (i = 0; i < 2; i++)
		for (k = 0; k < NR_MODE_CACHES; k++) {
			struct mode_job job = { .s = mode_cache_of[i][k] };

			bench_measure(mode_pairs, &job, MODE_PAIR_OPS,
				      MODE_REPS, &st);
			bench_report("single_mode_pair", mode_caches[k].name,
				     mode_sizes[i], MODE_PAIR_OPS, &st);
		}
}

/* The cpu slab's paths, counted over one batch row. */
#define MODE_STAT_ITEMS(X)						\
	X(ALLOC_FASTPATH) X(ALLOC_REFILL) X(ALLOC_FROM_PARTIAL)		\
	X(CPU_PARTIAL_ALLOC) X(ALLOC_SLAB) X(FREE_FASTPATH)		\
	X(FREE_FROZEN) X(FREE_SLOWPATH) X(DEACTIVATE_FULL)		\
	X(DEACTIVATE_PARTIAL) X(FREE_SLAB)
#define MODE_STAT_ENUM(item) item,
#define MODE_STAT_NAME(item) #item,
static const enum slab_stat_item mode_stat_item[] = {
	MODE_STAT_ITEMS(MODE_STAT_ENUM)
};
static const char *const mode_stat_name[] = {
	MODE_STAT_ITEMS(MODE_STAT_NAME)
};
#undef MODE_STAT_ENUM
#undef MODE_STAT_NAME

static void run_mode_batch(void)
{
	static const unsigned int sizes[] = { 1, 10, 100, 1000 };
	unsigned long before[ARRAY_SIZE(mode_stat_item)];
	struct bench_stats st;
	char variant[64];
	unsigned int sh, i, k, t;

	if (!make_mode_caches())
		return;
	for (sh = 0; sh < 2; sh++) {
		const char *pattern = sh ? "shuffled" : "in_order";

		for (k = 0; k < NR_MODE_CACHES; k++) {
			for (i = 0; i < ARRAY_SIZE(sizes); i++) {
				struct mode_job job = {
					.s = mode_cache_of[0][k],
					.n = sizes[i],
				};
				bool stats = mode_caches[k].mode ==
					     SLAB_MODE_CPU_SLAB;

				if (sh) {
					mode_shuffle(sizes[i]);
					job.order = mode_order;
				}
				for (t = 0; stats &&
					    t < ARRAY_SIZE(mode_stat_item); t++)
					before[t] = slab_stat_sum(job.s,
							mode_stat_item[t]);
				bench_measure(mode_batches, &job,
					      MODE_BATCH_OBJECTS, MODE_REPS,
					      &st);
				snprintf(variant, sizeof(variant), "%s.%s",
					 mode_caches[k].name, pattern);
				bench_report("single_mode_batch", variant,
					     sizes[i], MODE_BATCH_OBJECTS, &st);
				/* Per batch of 1000 objects: the warm-up and
				 * the MODE_REPS measured batches. */
				for (t = 0; stats &&
					    t < ARRAY_SIZE(mode_stat_item); t++) {
					unsigned long d = slab_stat_sum(job.s,
						mode_stat_item[t]) - before[t];

					snprintf(variant, sizeof(variant),
						 "%s.%s", pattern,
						 mode_stat_name[t]);
					bench_report_value("single_mode_stats",
						variant, sizes[i],
						d / (MODE_REPS + 1), "count");
				}
			}
		}
	}
}

static const struct bench_group mode_pair_bench = {
	.name = "single_mode_pair", .run = run_mode_pair,
};
bench_group(mode_pair_bench);

static const struct bench_group mode_batch_bench = {
	.name = "single_mode_batch", .run = run_mode_batch,
};
bench_group(mode_batch_bench);
