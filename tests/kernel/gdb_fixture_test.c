/*
 * gdb_fixture_test.c - a known allocator state for the gdb commands of
 * scripts/gdb/ to read, and the kernel's own account of it.
 *
 * Suite gdb_fixture builds, on the CPU it runs on, one of everything the
 * commands show: a private cache with sheaves (objects held by the test,
 * objects in main, spare and the barn, one in the rcu_free sheaf), a
 * private cache without sheaves with objects parked on this CPU's
 * deferred list by kfree_nolock(), an allocated order-2 block and an
 * order-4 block waiting on its zone's deferred list after
 * free_pages_nolock().  It prints what the kernel knows of that state
 * (`gdb_fixture: WHAT key=value ...` lines), then calls
 * gdb_checkpoint(), where the harness's gdb check (tests/harness/
 * run_tests.py, check_gdb_commands()) stops the kernel, runs every command
 * and compares their output with these lines.
 *
 * At the checkpoint the state cannot move: IRQs are off (the deferred
 * list's irq_work waits), the no-sheaf cache's list_lock is held (so
 * kfree_nolock() parked the objects) and the zone's lock is held (so the
 * deferred pages stay parked and the buddy counts printed are the ones gdb
 * reads).  Nothing else touches the private caches, and this CPU's page
 * lists and counters change only on this CPU.  The lock order is the
 * allocator's (mm/slab.c): list_lock, then zone->lock.
 *
 * Without gdb the checkpoint returns at once and the case checks what it
 * printed (every object the slabs count as in use is held by the test or
 * parked somewhere it looked), then gives everything back.
 */
#include <kunit.h>
#include <kernel.h>
#include <mm.h>
#include <mmzone.h>
#include <nolock_stats.h>
#include <slab.h>
#include <smp.h>
#include <spinlock.h>
#include "../../mm/slab_internal.h"
#include "test_wait.h"

#define FIXTURE_SIZE      96   /* object size of the cache with sheaves */
#define FIXTURE_CAP       4    /* its sheaf capacity: the barn after a few */
#define FIXTURE_ALLOCS    16
#define FIXTURE_FREES     11   /* into main, spare and the barn */
#define NOSHEAF_SIZE      64
#define NOSHEAF_ALLOCS    3
#define NOSHEAF_PARKED    2    /* of them parked by kfree_nolock() */
#define KEPT_ORDER        2    /* a block the test holds */
#define DEFERRED_ORDER    (PCP_MAX_ORDER + 1)  /* freed past the pcp lists */
#define FREELIST_SHOWN    4    /* freelist entries printed */

/* The harness breaks here (by name): keep it a real, global function. */
void gdb_checkpoint(void);
__noinline void gdb_checkpoint(void)
{
	__asm__ __volatile__("" ::: "memory");
}

static struct kmem_cache *fixture, *nosheaf;
static void *held[FIXTURE_ALLOCS];
static void *nosheaf_objs[NOSHEAF_ALLOCS];

static unsigned int sheaf_size(const struct slab_sheaf *sheaf)
{
	return sheaf ? sheaf->size : 0;
}

/* Objects the slabs of s count as in use, and its slabs (list_lock). */
static unsigned long cache_inuse(struct kmem_cache *s, unsigned long *slabs)
{
	unsigned long inuse = 0, flags;
	struct page *slab;
	int nid;

	*slabs = 0;
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		struct kmem_cache_node *n = get_node(s, nid);

		spin_lock_irqsave(&n->list_lock, flags);
		*slabs += n->nr_slabs;
		list_for_each_entry(slab, &n->partial, lru)
			inuse += slab->inuse;
		list_for_each_entry(slab, &n->full, lru)
			inuse += slab->inuse;
		spin_unlock_irqrestore(&n->list_lock, flags);
	}
	return inuse;
}

/* Objects in the full sheaves of s's barn on node nid (barn->lock). */
static unsigned int barn_objects(struct kmem_cache *s, int nid,
				 unsigned int *full, unsigned int *empty)
{
	struct node_barn *barn = &get_node(s, nid)->barn;
	struct slab_sheaf *sheaf;
	unsigned int objects = 0;
	unsigned long flags;

	spin_lock_irqsave(&barn->lock, flags);
	*full = barn->nr_full;
	*empty = barn->nr_empty;
	list_for_each_entry(sheaf, &barn->sheaves_full, barn_list)
		objects += sheaf->size;
	spin_unlock_irqrestore(&barn->lock, flags);
	return objects;
}

/* The cache with sheaves, as the commands slabinfo, sheaves, barn and
 * slab must show it. */
static void report_fixture_cache(struct kunit *test, unsigned int cpu,
				 unsigned int nr_held)
{
	struct slub_percpu_sheaves *pcs = &fixture->cpu_sheaves[cpu];
	struct page *slab = virt_to_slab(held[0]);
	unsigned int main, spare, rcu, full, empty, in_barn;
	unsigned long inuse, slabs, nfree = 0;
	void *o;
	char shown[FREELIST_SHOWN * 20 + 1];
	size_t len = 0;

	inuse = cache_inuse(fixture, &slabs);
	/* The real main, behind the trace gate when the cache is traced. */
	main = sheaf_size(pcs_main_unlocked(pcs));
	spare = sheaf_size(pcs->spare);
	rcu = sheaf_size(pcs->rcu_free);
	in_barn = barn_objects(fixture, numa_node_id(), &full, &empty);
	kunit_info(test, "gdb_fixture: cache name=%s cpu=%u node=%d objsize=%u slabs=%lu total=%lu inuse=%lu held=%u main=%u spare=%u rcu_free=%u capacity=%u\n",
		   fixture->name, cpu, numa_node_id(), fixture->object_size,
		   slabs, slabs * fixture->objects, inuse, nr_held, main,
		   spare, rcu, fixture->sheaf_capacity);
	kunit_info(test, "gdb_fixture: barn node=%d full=%u empty=%u full_objects=%u\n",
		   numa_node_id(), full, empty, in_barn);
	/* Honest "active": what the slabs count, less what is parked. */
	KUNIT_EXPECT_EQ(test, inuse, nr_held + main + spare + rcu + in_barn);

	/* One slab, its freelist decoded by the kernel (mm_check's walk). */
	for (o = slab_check_first_free(fixture, slab); o;
	     o = slab_check_next_free(fixture, o)) {
		if (nfree < FREELIST_SHOWN)
			len += snprintf(shown + len, sizeof(shown) - len,
					"%s%p", nfree ? "," : "", o);
		nfree++;
	}
	kunit_info(test, "gdb_fixture: slab addr=%p object=%p inuse=%u objects=%u freelist_count=%lu freelist=%s\n",
		   page_address(slab), held[0], slab->inuse, slab->objects,
		   nfree, nfree ? shown : "none");
	KUNIT_EXPECT_EQ(test, nfree, slab->objects - slab->inuse);
	if (main)
		kunit_info(test, "gdb_fixture: sheaf object=%p\n",
			   pcs_main_unlocked(pcs)->objects[0]);
}

/* Buddy, pcp and page facts of zone, whose lock the caller holds. */
static void report_zone_locked(struct kunit *test, struct zone *zone,
			       unsigned int cpu)
{
	struct per_cpu_pages *pcp = &zone->pcp[cpu];
	char counts[NR_PAGE_ORDERS * 12 + 1];
	unsigned long buddy_pfn = 0;
	unsigned int o, buddy_order = 0;
	size_t len = 0;

	for (o = 0; o < NR_PAGE_ORDERS; o++) {
		struct free_area *area = &zone->free_area[o];

		len += snprintf(counts + len, sizeof(counts) - len, "%s%lu",
				o ? "," : "", area->nr_free);
		if (!buddy_pfn && !list_empty(&area->free_list)) {
			buddy_pfn = page_to_pfn(list_first_entry(
				&area->free_list, struct page, lru));
			buddy_order = o;
		}
	}
	kunit_info(test, "gdb_fixture: buddy node=%d zone=%s free=%s buddy_pfn=%#lx buddy_order=%u\n",
		   zone->node, zone->name, counts, buddy_pfn, buddy_order);
	/* This CPU's lists change only on this CPU, which is here. */
	kunit_info(test, "gdb_fixture: pcp cpu=%u zone=%s count=%d high=%d batch=%d pcp_pfn=%#lx\n",
		   cpu, zone->name, pcp->count, PCP_HIGH, PCP_BATCH,
		   list_empty(&pcp->lists[0]) ? 0ul :
		   page_to_pfn(list_first_entry(&pcp->lists[0], struct page,
						lru)));
}

static void report_nolock_stats(struct kunit *test, unsigned int cpu)
{
	const struct nolock_stats *n = per_cpu_ptr(nolock_stats, cpu);

	kunit_info(test, "gdb_fixture: nolock cpu=%u page_alloc_busy=%lu page_alloc_nomem=%lu page_free_deferred=%lu obj_alloc_busy=%lu obj_alloc_nomem=%lu obj_free_deferred=%lu\n",
		   cpu, n->page_alloc_busy, n->page_alloc_nomem,
		   n->page_free_deferred, n->obj_alloc_busy,
		   n->obj_alloc_nomem, n->obj_free_deferred);
}

static bool wait_for_parked_objects(unsigned int cpu)
{
	u64 end = test_deadline();

	while (slab_deferred_frees(cpu))
		if (test_deadline_passed(end))
			return false;
	return true;
}

static unsigned long quiesced_free_pages(void)
{
	kmem_cache_shrink_all();      /* the deferred lists first */
	drain_all_pages();            /* and the zones' deferred pages */
	return nr_free_pages();
}

static void state_for_gdb(struct kunit *test)
{
	struct kmem_cache_args with = { .sheaf_capacity = FIXTURE_CAP };
	struct kmem_cache_args without = { .sheaf_capacity = 0 };
	unsigned long before = quiesced_free_pages(), flags;
	unsigned int cpu, i, nr_held = FIXTURE_ALLOCS - FIXTURE_FREES;
	struct kmem_cache_node *n;
	struct page *kept, *big;
	struct zone *zone;

	fixture = kmem_cache_create_args("gdb_fixture", FIXTURE_SIZE, &with,
					 SLAB_TEST_SHEAF_CAPACITY);
	nosheaf = kmem_cache_create_args("gdb_fixture_nosheaf", NOSHEAF_SIZE,
					 &without, 0);
	KUNIT_ASSERT_NOT_NULL(test, fixture);
	KUNIT_ASSERT_NOT_NULL(test, nosheaf);
	for (i = 0; i < FIXTURE_ALLOCS; i++) {
		held[i] = kmem_cache_alloc(fixture, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, held[i]);
	}
	for (i = nr_held; i < FIXTURE_ALLOCS; i++)
		kmem_cache_free(fixture, held[i]);
	/* One object waits for a grace period in the rcu_free sheaf (a
	 * debug cache has none: it stays held then). */
	if (cache_has_sheaves(fixture))
		kfree_rcu(held[--nr_held]);
	for (i = 0; i < NOSHEAF_ALLOCS; i++) {
		nosheaf_objs[i] = kmem_cache_alloc(nosheaf, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, nosheaf_objs[i]);
	}
	kept = alloc_pages(GFP_KERNEL, KEPT_ORDER);
	big = alloc_pages(GFP_KERNEL, DEFERRED_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, kept);
	KUNIT_ASSERT_NOT_NULL(test, big);
	zone = page_zone(big);

	flags = local_irq_save();
	cpu = smp_processor_id();
	report_fixture_cache(test, cpu, nr_held);
	/* list_lock held: kfree_nolock() can only park. */
	n = get_node(nosheaf, slab_nid(virt_to_slab(nosheaf_objs[0])));
	spin_lock(&n->list_lock);
	for (i = 1; i <= NOSHEAF_PARKED; i++)
		kfree_nolock(nosheaf_objs[i]);
	KUNIT_EXPECT_EQ(test, slab_deferred_frees(cpu), NOSHEAF_PARKED);
	kunit_info(test, "gdb_fixture: parked cache=%s cpu=%u count=%lu first=%p second=%p allocated=%u\n",
		   nosheaf->name, cpu, slab_deferred_frees(cpu),
		   nosheaf_objs[2], nosheaf_objs[1], NOSHEAF_ALLOCS);
	/* zone->lock held: free_pages_nolock() can only defer. */
	spin_lock(&zone->lock);
	free_pages_nolock(big, DEFERRED_ORDER);
	KUNIT_EXPECT_EQ(test, zone->nr_deferred, 1ul << DEFERRED_ORDER);
	kunit_info(test, "gdb_fixture: pages node=%d zone=%s kept_pfn=%#lx kept_order=%u deferred_pfn=%#lx deferred_order=%u zone_deferred=%lu\n",
		   zone->node, zone->name, page_to_pfn(kept), KEPT_ORDER,
		   page_to_pfn(big), DEFERRED_ORDER, zone->nr_deferred);
	report_zone_locked(test, zone, cpu);
	report_nolock_stats(test, cpu);

	gdb_checkpoint();

	spin_unlock(&zone->lock);
	spin_unlock(&n->list_lock);
	local_irq_restore(flags);

	/* Give it all back: the parked objects by their irq_work, the
	 * deferred block by the next locked free (the quiesce). */
	KUNIT_EXPECT_TRUE(test, wait_for_parked_objects(cpu));
	for (i = 0; i < nr_held; i++)
		kmem_cache_free(fixture, held[i]);
	kmem_cache_free(nosheaf, nosheaf_objs[0]);
	__free_pages(kept, KEPT_ORDER);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(fixture), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(nosheaf), 0);
	KUNIT_EXPECT_EQ(test, quiesced_free_pages(), before);
}

static struct kunit_case gdb_fixture_cases[] = {
	KUNIT_CASE(state_for_gdb),
	{}
};

static struct kunit_suite gdb_fixture_suite = {
	.name = "gdb_fixture",
	.test_cases = gdb_fixture_cases,
};
kunit_test_suite(gdb_fixture_suite);
