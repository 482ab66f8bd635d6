/*
 * mm_check_test.c - the invariant checker (mm/mm_check.c) finds what it
 * claims to find.
 *
 * A checker that never fires proves nothing, so each case breaks one
 * invariant on purpose and expects a violation, then mends it and expects
 * none.  Where one break trips several rules (a slab count that is off is
 * off against the lists and against the statistics), the case names the
 * rule it means (check_names()), so that no rule hides behind another.  The slab cases break a private cache (nobody else uses it, so the
 * damage is harmless while it lasts).  The buddy cases break the live zone
 * but only with its zone->lock held and IRQs off, checked with
 * zone_check_locked() and mended before the lock is dropped, so no other
 * path can ever see the damage.
 *
 * The same file runs on the host (tests/host/test_mm_check.c) over the
 * slab tests' arena.
 */
#include <kasan.h>
#include <kunit.h>
#include <kernel.h>
#include <mm.h>
#include <mm_check.h>
#include <mmzone.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "../../mm/slab_internal.h"

#ifdef HOST_TEST
int slab_test_env_init(void);
void slab_test_env_exit(void);
#else
static int slab_test_env_init(void) { return 0; }
static void slab_test_env_exit(void) { }
#endif

#define CHECK_CAP   4            /* sheaf capacity of the private cache */
#define CHECK_OBJS  (3 * CHECK_CAP)

static struct kmem_cache *cc;    /* the private cache of each case */
static void *objs[CHECK_OBJS];

static int check_suite_init(struct kunit_suite *suite)
{
	(void)suite;
	return slab_test_env_init();
}

static void check_suite_exit(struct kunit_suite *suite)
{
	(void)suite;
	slab_test_env_exit();
}

static void check_case_exit(struct kunit *test)
{
	(void)test;
	mm_check_quiet = false;
	mm_check_match = NULL;
}

/* A cache with sheaves: main holds objects, spare is set, slabs partial. */
static void make_private_cache(struct kunit *test)
{
	struct kmem_cache_args args = { .sheaf_capacity = CHECK_CAP };
	unsigned int i;

	cc = kmem_cache_create_args("test_mm_check", 64, &args,
				    SLAB_TEST_SHEAF_CAPACITY);
	KUNIT_ASSERT_NOT_NULL(test, cc);
	for (i = 0; i < CHECK_OBJS; i++) {
		objs[i] = kmem_cache_alloc(cc, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, objs[i]);
	}
	for (i = CHECK_CAP; i < CHECK_OBJS; i++)
		kmem_cache_free(cc, objs[i]);
	KUNIT_ASSERT_EQ(test, slab_cache_check(cc), 0);
}

static void destroy_private_cache(struct kunit *test)
{
	unsigned int i;

	KUNIT_EXPECT_EQ(test, slab_cache_check(cc), 0);
	for (i = 0; i < CHECK_CAP; i++)
		kmem_cache_free(cc, objs[i]);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(cc), 0);
	cc = NULL;
}

static struct slub_percpu_sheaves *my_pcs(void)
{
	return &cc->cpu_sheaves[smp_processor_id()];
}

/* Expect at least one violation now, quietly. */
static int violations_now(void)
{
	int n;

	mm_check_quiet = true;
	n = slab_cache_check(cc);
	mm_check_quiet = false;
	return n;
}

/* Does a check of the private cache now name `what` in a violation? */
static bool check_names(const char *what)
{
	unsigned long matched;

	mm_check_quiet = true;
	mm_check_match = what;
	mm_check_matched = 0;
	slab_cache_check(cc);
	matched = mm_check_matched;
	mm_check_match = NULL;
	mm_check_quiet = false;
	return matched > 0;
}

static void clean_system_passes(struct kunit *test)
{
	void *p = kmalloc(100, GFP_KERNEL);
	struct page *page = alloc_pages(GFP_KERNEL, 2);

	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	kfree(p);
	__free_pages(page, 2);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static void sheaf_checks_fire(struct kunit *test)
{
	struct slub_percpu_sheaves *pcs;
	struct slab_sheaf *main, *spare, *odd;
	unsigned int size;

	make_private_cache(test);
	pcs = my_pcs();
	main = pcs->main;
	spare = pcs->spare;
	KUNIT_ASSERT_PTR_NE(test, main, &bootstrap_sheaf);
	KUNIT_ASSERT_NOT_NULL(test, spare);

	pcs->main = NULL;                               /* S1 */
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	pcs->main = main;

	pcs->spare = &bootstrap_sheaf;                  /* S3 */
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	pcs->spare = main;                              /* S3: spare == main */
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	pcs->spare = spare;

	/* S3: a spare of the wrong capacity (an oversize prefilled sheaf). */
	odd = kmem_cache_prefill_sheaf(cc, GFP_KERNEL, CHECK_CAP + 1);
	KUNIT_ASSERT_NOT_NULL(test, odd);
	pcs->spare = odd;
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	pcs->spare = spare;
	KUNIT_EXPECT_EQ(test, slab_cache_check(cc), 0);
	kmem_cache_return_sheaf(cc, GFP_KERNEL, odd);

	size = main->size;
	main->size = main->capacity + 1;                /* S2 */
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	main->size = size;
	KUNIT_EXPECT_EQ(test, slab_cache_check(cc), 0);

	bootstrap_sheaf.size = 1;                       /* S5 */
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	bootstrap_sheaf.size = 0;

	local_lock_init(&pcs->lock);                    /* not quiescent */
	pcs->lock.acquired = 1;
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	pcs->lock.acquired = 0;
	destroy_private_cache(test);
}

static void barn_checks_fire(struct kunit *test)
{
	struct node_barn *barn;
	struct slab_sheaf *spare;
	unsigned int saved_full;
	unsigned long flags;

	make_private_cache(test);
	barn = &get_node(cc, 0)->barn;
	spare = my_pcs()->spare;
	KUNIT_ASSERT_NOT_NULL(test, spare);

	/* B1/B4: the bootstrap sheaf in the barn (issue 10, defect 1). */
	INIT_LIST_HEAD(&bootstrap_sheaf.barn_list);
	list_add(&bootstrap_sheaf.barn_list, &barn->sheaves_empty);
	barn->nr_empty++;
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	list_del(&bootstrap_sheaf.barn_list);
	memset(&bootstrap_sheaf.barn_list, 0, sizeof(bootstrap_sheaf.barn_list));
	barn->nr_empty--;
	KUNIT_EXPECT_EQ(test, slab_cache_check(cc), 0);

	/* B4: the spare both a CPU's and in the barn, on the wrong list. */
	if (spare->size) {
		list_add(&spare->barn_list, &barn->sheaves_empty);
		barn->nr_empty++;
	} else {
		list_add(&spare->barn_list, &barn->sheaves_full);
		barn->nr_full++;
	}
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	list_del_init(&spare->barn_list);
	if (spare->size)
		barn->nr_empty--;
	else
		barn->nr_full--;
	KUNIT_EXPECT_EQ(test, slab_cache_check(cc), 0);

	barn->nr_full++;                                /* B2: the count */
	KUNIT_EXPECT_TRUE(test, check_names("barn full list has"));
	barn->nr_full--;
	/* B3: more full sheaves than the barn may keep (one per CPU over). */
	saved_full = barn->nr_full;
	barn->nr_full = BARN_MAX_FULL + nr_cpu_ids + 1;
	KUNIT_EXPECT_TRUE(test, check_names("full sheaves, limit"));
	barn->nr_full = saved_full;
	saved_full = barn->nr_empty;
	barn->nr_empty = BARN_MAX_EMPTY + 1;
	KUNIT_EXPECT_TRUE(test, check_names("empty sheaves, limit"));
	barn->nr_empty = saved_full;
	KUNIT_EXPECT_EQ(test, slab_cache_check(cc), 0);

	spin_lock_irqsave(&barn->lock, flags);          /* not quiescent */
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	spin_unlock_irqrestore(&barn->lock, flags);
	destroy_private_cache(test);
}

static struct page *first_partial_slab(void)
{
	struct kmem_cache_node *n = get_node(cc, 0);

	if (list_empty(&n->partial))
		return NULL;
	return list_first_entry(&n->partial, struct page, lru);
}

static void slab_checks_fire(struct kunit *test)
{
	struct kmem_cache_node *n;
	struct slub_percpu_sheaves *pcs;
	struct page *slab;
	unsigned int inuse;
	unsigned long flags;
	void *free_obj, **slot, *saved, **held;

	make_private_cache(test);
	n = get_node(cc, 0);
	pcs = my_pcs();
	slab = first_partial_slab();
	KUNIT_ASSERT_NOT_NULL(test, slab);

	inuse = slab->inuse;                            /* L2, L3 */
	slab->inuse = slab->objects;
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	slab->inuse = inuse + 1;
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	slab->inuse = inuse;

	n->nr_slabs++;                  /* L4, against the lists and the stats */
	KUNIT_EXPECT_TRUE(test, check_names("slabs on the lists"));
	KUNIT_EXPECT_TRUE(test, check_names("slabs made"));
	n->nr_slabs--;
	n->nr_partial++;
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	n->nr_partial--;

	slab->flags &= ~PG_slab;                        /* L1 */
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	slab->flags |= PG_slab;
	KUNIT_EXPECT_EQ(test, slab_cache_check(cc), 0);

	/* L3: a stray write into a free object's free pointer. */
	free_obj = slab_check_first_free(cc, slab);
	KUNIT_ASSERT_NOT_NULL(test, free_obj);
	slot = (void **)((char *)free_obj + cc->offset);
	saved = kasan_unchecked_load_ptr(slot);
	kasan_unchecked_store_ptr(slot, (void *)((unsigned long)saved ^ 0x40));
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	kasan_unchecked_store_ptr(slot, saved);

	/* X1: an object free in its slab and held in main (given twice). */
	held = pcs->main->objects;
	KUNIT_ASSERT_GE(test, pcs->main->size, 2);
	saved = held[0];
	held[0] = free_obj;
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	held[0] = saved;

	/* X2: one object twice in the sheaves. */
	saved = held[1];
	held[1] = held[0];
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	held[1] = saved;

	/* X1: an object that is no object of the cache. */
	saved = held[0];
	held[0] = &saved;
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	held[0] = saved;
	KUNIT_EXPECT_EQ(test, slab_cache_check(cc), 0);

	spin_lock_irqsave(&n->list_lock, flags);        /* not quiescent */
	KUNIT_EXPECT_GE(test, violations_now(), 1);
	spin_unlock_irqrestore(&n->list_lock, flags);
	destroy_private_cache(test);
}

/* ---- the buddy: damage only under zone->lock, mended before unlock ---- */

static int zone_violations_locked(struct zone *zone)
{
	int n;

	mm_check_quiet = true;
	n = zone_check_locked(zone);
	mm_check_quiet = false;
	return n;
}

/* The first free block of order >= min_order, or NULL. */
static struct page *free_block_locked(struct zone *zone,
				      unsigned int min_order,
				      unsigned int *order)
{
	unsigned int o;

	for (o = min_order; o <= MAX_ORDER; o++) {
		if (list_empty(&zone->free_area[o].free_list))
			continue;
		*order = o;
		return list_first_entry(&zone->free_area[o].free_list,
					struct page, lru);
	}
	return NULL;
}

/* Break a free block of order k into two free halves that stay apart. */
static void split_apart_locked(struct zone *zone, struct page *page,
			       unsigned int k, bool undo)
{
	struct page *upper = page + (1ul << (k - 1));

	if (!undo) {
		list_del(&page->lru);
		zone->free_area[k].nr_free--;
		page->order = upper->order = k - 1;
		upper->flags |= PG_buddy;
		list_add(&page->lru, &zone->free_area[k - 1].free_list);
		list_add(&upper->lru, &zone->free_area[k - 1].free_list);
		zone->free_area[k - 1].nr_free += 2;
		return;
	}
	list_del(&page->lru);
	list_del(&upper->lru);
	zone->free_area[k - 1].nr_free -= 2;
	upper->flags &= ~PG_buddy;
	page->order = k;
	list_add(&page->lru, &zone->free_area[k].free_list);
	zone->free_area[k].nr_free++;
}

static void zone_checks_fire(struct kunit *test)
{
	struct page *probe = alloc_pages(GFP_KERNEL, 0);
	struct zone *zone;
	struct page *block;
	unsigned long flags, saved;
	struct pglist_data *pgdat;
	struct zone *first;
	unsigned int order = 0;
	int clean, bad[10];

	KUNIT_ASSERT_NOT_NULL(test, probe);
	zone = page_zone(probe);
	__free_pages(probe, 0);
	memset(bad, 0, sizeof(bad));

	spin_lock_irqsave(&zone->lock, flags);
	clean = zone_violations_locked(zone);
	block = free_block_locked(zone, 1, &order);
	if (block) {
		zone->free_area[order].nr_free++;       /* P1 */
		bad[0] = zone_violations_locked(zone);
		zone->free_area[order].nr_free--;

		zone->free_pages++;                     /* P1 */
		bad[1] = zone_violations_locked(zone);
		zone->free_pages--;

		block->flags &= ~PG_buddy;              /* P1, P5 */
		bad[2] = zone_violations_locked(zone);
		block->flags |= PG_buddy;

		block->order = order - 1;               /* P1 */
		bad[3] = zone_violations_locked(zone);
		block->order = order;

		split_apart_locked(zone, block, order, false);  /* P2 */
		bad[4] = zone_violations_locked(zone);
		split_apart_locked(zone, block, order, true);

		/* P5: a page inside a free block heads an allocated one. */
		saved = block[1].flags;
		block[1].flags |= 1ul << PAGE_ALLOC_ORDER_SHIFT;
		bad[5] = zone_violations_locked(zone);
		block[1].flags = saved;

		block[1].flags |= PG_slab;              /* P5 */
		bad[6] = zone_violations_locked(zone);
		block[1].flags = saved;
	}
	zone->nr_deferred++;                            /* P4 */
	bad[7] = zone_violations_locked(zone);
	zone->nr_deferred--;
	zone->pcp[smp_processor_id()].count += 1;       /* P3 */
	bad[8] = zone_violations_locked(zone);
	zone->pcp[smp_processor_id()].count -= 1;
	/* P6: the other zone first.  Another CPU allocating meanwhile only
	 * looks at that zone's lists first; its slow path still finds the
	 * memory. */
	pgdat = NODE_DATA(zone->node);
	first = pgdat->first_zone[0];
	WRITE_ONCE(pgdat->first_zone[0], first == &pgdat->node_zones[0] ?
		   &pgdat->node_zones[1] : &pgdat->node_zones[0]);
	bad[9] = zone_violations_locked(zone);
	WRITE_ONCE(pgdat->first_zone[0], first);
	spin_unlock_irqrestore(&zone->lock, flags);

	KUNIT_EXPECT_EQ(test, clean, 0);
	KUNIT_ASSERT_NOT_NULL(test, block);
	for (order = 0; order < ARRAY_SIZE(bad); order++)
		KUNIT_EXPECT_GE(test, bad[order], 1);
	KUNIT_EXPECT_EQ(test, zone_check(zone), 0);

	/* A lock held by someone (us): the check says it cannot look. */
	spin_lock_irqsave(&zone->lock, flags);
	mm_check_quiet = true;
	bad[0] = zone_check(zone);
	mm_check_quiet = false;
	spin_unlock_irqrestore(&zone->lock, flags);
	KUNIT_EXPECT_GE(test, bad[0], 1);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static struct kunit_case mm_check_cases[] = {
	KUNIT_CASE(clean_system_passes),
	KUNIT_CASE(sheaf_checks_fire),
	KUNIT_CASE(barn_checks_fire),
	KUNIT_CASE(slab_checks_fire),
	KUNIT_CASE(zone_checks_fire),
	{}
};

static struct kunit_suite mm_check_suite = {
	.name = "mm_check",
	.suite_init = check_suite_init,
	.suite_exit = check_suite_exit,
	.exit = check_case_exit,
	.test_cases = mm_check_cases,
};
kunit_test_suite(mm_check_suite);
