/*
 * slab_trace_review_test.c - a review of the trace (mm/slab_trace.c) in
 * the kernel: tracing turned on and off while other CPUs allocate and
 * free and NMIs run the any-context calls.
 *
 * Suite slab_trace_toggle, one case: every CPU runs at once
 * (on_each_cpu_task()):
 *   - the boot CPU turns the trace of kmalloc-64 and of a private cache
 *     (sheaves of 4: swaps, the barn and refills come often) on and off,
 *     TOGGLE_ROUNDS times, each flush an IPI to every CPU, and sends NMIs
 *     to the others in between;
 *   - every other CPU allocates and frees from both caches (one at a
 *     time and in bulk, sheaf hits and slow paths), each live object
 *     carrying a tag of its address in its first word (an allocation that
 *     finds the tag handed an object out twice; a free that misses it
 *     lost its object), and sends itself an NMI every few operations;
 *   - every NMI kmalloc_nolock()s and kfree_nolock()s a 64-byte object
 *     (tagged too) and frees to the private cache an object the task
 *     loop left in a mailbox (kmem_cache_free() in an NMI takes the
 *     any-context path).
 * Then: the NMIs stopped, the trace off, everything freed, the private
 * cache destroyed without a leak, mm_check_all() clean, the free page
 * count back where it was, and the trace hook saw steps of both caches
 * from the task loops and from the NMIs (the trace was really on).
 * The trace lines are not printed (console_loglevel lowered): the hook
 * sees every step all the same; tests/harness would otherwise fail the
 * boot on "time stamps run backwards" (see the review's report: NMI lines
 * stamped before a line another CPU printed after them).
 */
#include <cpu_work.h>
#include <kernel.h>
#include <kunit.h>
#include <mm.h>
#include <mm_check.h>
#include <nmi.h>
#include <printk.h>
#include <rcupdate.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "../../mm/slab_internal.h"
#include "test_wait.h"

#define TOGGLE_ROUNDS     40
#define TOGGLE_ITERS      6000      /* per worker CPU */
#define TOGGLE_SLOTS      24        /* live objects a worker holds */
#define TOGGLE_BULK       6
#define TOGGLE_NMI_EVERY  7         /* operations between two self-NMIs */
#define TOGGLE_SIZE       96        /* the private cache's objects */
#define TOGGLE_TAG        0x54524143455f4f4bull   /* "TRACE_OK" */

static struct kmem_cache *toggle_cache;
static bool toggle_armed;           /* NMIs do their work */
static unsigned int toggle_workers_done;
static unsigned long toggle_failures;
static const char *toggle_first_failure;
static unsigned long toggle_steps_task, toggle_steps_nmi;
static unsigned int toggle_rounds;
static unsigned long toggle_nmis[NR_CPUS];
static unsigned int toggle_nmis_inside[NR_CPUS];
static void *toggle_mailbox[NR_CPUS];   /* task loop -> its NMI */

static u64 tag_of(const void *p)
{
	return TOGGLE_TAG ^ (unsigned long)p;
}

static void toggle_fail(const char *why)
{
	if (__atomic_fetch_add(&toggle_failures, 1, __ATOMIC_RELAXED) == 0)
		__atomic_store_n(&toggle_first_failure, why, __ATOMIC_RELEASE);
}

static void tag_new(void *p)
{
	if (!p)
		return;
	if (*(volatile u64 *)p == tag_of(p))
		toggle_fail("an object handed out while live (its tag was there)");
	*(volatile u64 *)p = tag_of(p);
}

static void tag_drop(void *p)
{
	if (!p)
		return;
	if (*(volatile u64 *)p != tag_of(p))
		toggle_fail("a live object lost its tag (another owner wrote it)");
	*(volatile u64 *)p = 0;
}

static void toggle_hook(struct kmem_cache *s, enum slab_stat_item item,
			const char *func)
{
	(void)item;
	(void)func;
	if (s != toggle_cache && s != kmalloc_slab(64))
		return;
	__atomic_fetch_add(in_nmi() ? &toggle_steps_nmi : &toggle_steps_task,
			   1, __ATOMIC_RELAXED);
}

static int toggle_nmi_handler(unsigned int type, struct pt_regs *regs)
{
	unsigned int me = smp_processor_id();
	void *p;

	(void)type;
	(void)regs;
	if (!__atomic_load_n(&toggle_armed, __ATOMIC_ACQUIRE))
		return NMI_DONE;
	__atomic_fetch_add(&toggle_nmis_inside[me], 1, __ATOMIC_ACQUIRE);
	toggle_nmis[me]++;
	p = kmalloc_nolock(64, 0, NUMA_NO_NODE);
	tag_new(p);
	tag_drop(p);
	kfree_nolock(p);
	p = __atomic_exchange_n(&toggle_mailbox[me], NULL, __ATOMIC_ACQ_REL);
	if (p) {
		tag_drop(p);
		kmem_cache_free(toggle_cache, p);   /* the any-context path */
	}
	__atomic_fetch_sub(&toggle_nmis_inside[me], 1, __ATOMIC_RELEASE);
	return NMI_HANDLED;
}

static void worker_loop(unsigned int me)
{
	void *km[TOGGLE_SLOTS] = { NULL }, *obj[TOGGLE_SLOTS] = { NULL };
	void *bulk[TOGGLE_BULK];
	unsigned int i, slot;
	u64 seed = 0x9e3779b97f4a7c15ull * (me + 1);

	for (i = 0; i < TOGGLE_ITERS; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		slot = (unsigned int)(seed >> 33) % TOGGLE_SLOTS;
		if (km[slot]) {
			tag_drop(km[slot]);
			kfree(km[slot]);
			km[slot] = NULL;
		} else {
			km[slot] = kmalloc(64, GFP_KERNEL);
			tag_new(km[slot]);
		}
		if (obj[slot]) {
			if (!(seed & (1ull << 40))) {
				tag_drop(obj[slot]);
				kmem_cache_free(toggle_cache, obj[slot]);
			} else {
				/* Handed over live, its tag on: the NMI that
				 * takes it checks and drops the tag. */
				void *old = __atomic_exchange_n(
					&toggle_mailbox[me], obj[slot],
					__ATOMIC_ACQ_REL);

				if (old) {
					tag_drop(old);
					kmem_cache_free(toggle_cache, old);
				}
			}
			obj[slot] = NULL;
		} else {
			obj[slot] = kmem_cache_alloc(toggle_cache, GFP_KERNEL);
			tag_new(obj[slot]);
		}
		if (i % 16 == 0 &&
		    kmem_cache_alloc_bulk(toggle_cache, GFP_KERNEL, TOGGLE_BULK,
					  bulk) == TOGGLE_BULK) {
			unsigned int j;

			for (j = 0; j < TOGGLE_BULK; j++)
				tag_new(bulk[j]);
			for (j = 0; j < TOGGLE_BULK; j++)
				tag_drop(bulk[j]);
			kmem_cache_free_bulk(toggle_cache, TOGGLE_BULK, bulk);
		}
		if (i % TOGGLE_NMI_EVERY == 0)
			nmi_send_self();
	}
	for (slot = 0; slot < TOGGLE_SLOTS; slot++) {
		if (km[slot]) {
			tag_drop(km[slot]);
			kfree(km[slot]);
		}
		if (obj[slot]) {
			tag_drop(obj[slot]);
			kmem_cache_free(toggle_cache, obj[slot]);
		}
	}
}

static void toggler_loop(void)
{
	struct kmem_cache *km64 = kmalloc_slab(64);
	unsigned int round = 0, cpu, workers = nr_cpu_ids - 1;

	while (round < TOGGLE_ROUNDS ||
	       __atomic_load_n(&toggle_workers_done, __ATOMIC_ACQUIRE) <
	       workers) {
		if (round & 1) {
			slab_trace_disable(toggle_cache);
			slab_trace_disable(km64);
		} else {
			slab_trace_enable(km64);
			slab_trace_enable(toggle_cache);
		}
		for_each_online_cpu(cpu)
			if (cpu != smp_processor_id())
				nmi_send(cpu);
		round++;
		if (round > 100 * TOGGLE_ROUNDS)
			break;   /* the workers never finished: checked below */
	}
	toggle_rounds = round;
}

static void toggle_cpu_main(void *info)
{
	unsigned int me = smp_processor_id();

	(void)info;
	if (me == 0) {
		toggler_loop();
		return;
	}
	worker_loop(me);
	__atomic_fetch_add(&toggle_workers_done, 1, __ATOMIC_RELEASE);
}

static unsigned long quiet_free_pages(void)
{
	slab_deferred_flush_all();
	kvfree_rcu_barrier();
	kmem_cache_shrink_all();
	drain_all_pages();
	return nr_free_pages();
}

static void trace_toggled_under_load(struct kunit *test)
{
	struct kmem_cache_args args = { .sheaf_capacity = 4 };
	int saved = console_loglevel;
	unsigned long before, after;
	unsigned int cpu, ran;
	u64 end;

	if (nr_cpu_ids < 2)
		kunit_skip(test, "needs a second CPU (SMP=2 or more)");
	before = quiet_free_pages();
	toggle_cache = kmem_cache_create_args("trace_toggle", TOGGLE_SIZE,
					      &args, SLAB_TEST_SHEAF_CAPACITY);
	KUNIT_ASSERT_NOT_NULL(test, toggle_cache);
	KUNIT_ASSERT_EQ(test, register_nmi_handler(NMI_LOCAL,
						   toggle_nmi_handler,
						   "trace_toggle"), 0);
	console_loglevel = LOGLEVEL_NOTICE;
	WRITE_ONCE(slab_trace_hook, toggle_hook);
	__atomic_store_n(&toggle_armed, true, __ATOMIC_RELEASE);

	ran = on_each_cpu_task(toggle_cpu_main, NULL);

	__atomic_store_n(&toggle_armed, false, __ATOMIC_RELEASE);
	end = test_deadline();
	for_each_online_cpu(cpu)
		while (__atomic_load_n(&toggle_nmis_inside[cpu],
				       __ATOMIC_ACQUIRE) &&
		       !test_deadline_passed(end))
			;
	unregister_nmi_handler(NMI_LOCAL, "trace_toggle");
	WRITE_ONCE(slab_trace_hook, NULL);
	console_loglevel = saved;
	slab_trace_disable(toggle_cache);
	slab_trace_disable(kmalloc_slab(64));
	for_each_online_cpu(cpu) {
		void *p = __atomic_exchange_n(&toggle_mailbox[cpu], NULL,
					      __ATOMIC_ACQ_REL);

		if (p) {
			tag_drop(p);
			kmem_cache_free(toggle_cache, p);
		}
		kunit_info(test, "cpu%u: %lu NMIs did their work\n", cpu,
			   toggle_nmis[cpu]);
	}
	kunit_info(test, "%u CPUs, %u switches of the trace; traced steps seen: %lu in task context, %lu in NMIs\n",
		   ran, toggle_rounds, toggle_steps_task, toggle_steps_nmi);
	KUNIT_EXPECT_EQ(test, ran, nr_cpu_ids);
	KUNIT_EXPECT_EQ(test, toggle_workers_done, nr_cpu_ids - 1);
	if (toggle_failures)
		KUNIT_FAIL(test, "%lu failures, the first: %s", toggle_failures,
			   toggle_first_failure);
	KUNIT_EXPECT_GT(test, toggle_steps_task, 0ul);
	KUNIT_EXPECT_GT(test, toggle_steps_nmi, 0ul);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(toggle_cache), 0);
	toggle_cache = NULL;
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	after = quiet_free_pages();
	KUNIT_EXPECT_EQ(test, after, before);
}

static struct kunit_case slab_trace_toggle_cases[] = {
	KUNIT_CASE(trace_toggled_under_load),
	{}
};

static struct kunit_suite slab_trace_toggle_suite = {
	.name = "slab_trace_toggle",
	.test_cases = slab_trace_toggle_cases,
};
kunit_test_suite(slab_trace_toggle_suite);
