/*
 * test_mm_numa_review.c - an outside review's reproducers against the NUMA
 * code (mm/numa.c, mm/mm_init.c, mm/page_alloc.c, mm/slab.c, mm/sheaf.c).
 * Each case states the rule it tries to break (docs/numa.md) and expects
 * the rule to hold: a failing case is a defect found.
 *
 * Machine: an arena of 32 MiB of "RAM" at [16 MiB, 48 MiB), numa_firmware
 * written as srat.c would have, CPUs 0-3 on node 0 and 4-7 on node 1
 * (APIC id = CPU number), booted as the kernel boots (arena_boot()).
 */
#include <kunit.h>
#include <kernel.h>
#include <mm_check.h>
#include <mm_points.h>
#include <numa.h>
#include <slab.h>
#include <smp.h>
#include <string.h>
#include "mm_arena.h"
#include "../../mm/internal.h"
#include "../../mm/slab_internal.h"

#define MiB (1ull << 20)
#define RV_BASE (16 * MiB)
#define RV_END  (48 * MiB)
#define RV_NODE1_CPU 4
#define RV_PAGES ((RV_END - RV_BASE) >> PAGE_SHIFT)

static bool rv_slab_up;
static struct page *rv_pages[RV_PAGES];

static void rv_fw_begin(unsigned int nr_nodes)
{
	unsigned int n;

	memset(&numa_firmware, 0, sizeof(numa_firmware));
	numa_firmware.valid = true;
	numa_firmware.nr_nodes = nr_nodes;
	for (n = 0; n < nr_nodes; n++)
		numa_firmware.pxm[n] = n;
}

static void rv_fw_memblk(u64 start, u64 end, int nid)
{
	struct numa_memblk *m =
		&numa_firmware.memblk[numa_firmware.nr_memblks++];

	m->start = start;
	m->end = end;
	m->nid = nid;
}

static void rv_fw_cpus(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		numa_firmware.cpu[numa_firmware.nr_cpus].apic_id = cpu;
		numa_firmware.cpu[numa_firmware.nr_cpus++].nid =
			cpu < RV_NODE1_CPU ? 0 : 1;
	}
}

static void rv_boot(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ RV_BASE, RV_END - RV_BASE, E820_TYPE_RAM },
	};

	arena_map_memory(&test_arena, RV_BASE, RV_END - RV_BASE);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	KUNIT_ASSERT_TRUE(test, arena_boot(&test_arena));
	nr_cpu_ids = NR_CPUS;
	host_cpu_id = 0;
}

static void rv_boot_slab(struct kunit *test, enum slab_numa_mode mode)
{
	rv_boot(test);
	kmem_cache_init(NULL);
	rv_slab_up = true;
	slab_set_numa_mode(mode);
}

static void rv_exit(struct kunit *test)
{
	(void)test;
	mm_point_hook = NULL;
	mm_check_quiet = false;
	mm_check_match = NULL;
	host_nmi_nesting = 0;
	host_cpu_id = 0;
	if (rv_slab_up) {
		slab_set_numa_mode(SLAB_NUMA_LINUX);
		slab_host_reset();
		drain_all_pages();
		rv_slab_up = false;
	}
	slab_numa_mode = SLAB_NUMA_LINUX;
	nr_cpu_ids = 1;
	if (test_arena.mem)
		arena_exit(&test_arena);
}

static int rv_nid(const void *p)
{
	return page_to_nid(virt_to_page(p));
}

/* ---- interleaved node ranges ---- */

/*
 * Node 0 holds [16, 24) and [32, 48) MiB, node 1 [24, 32) MiB in between
 * (the brief's [0,32)+[64,96) / [32,64) shape, scaled to the arena).  Node
 * 0's zone spans node 1's range.  The rule: mm_check finds nothing wrong
 * with a freshly booted, correct allocator, and every page of each node
 * comes from that node.
 */
static void interleaved_nodes_boot_clean(struct kunit *test)
{
	unsigned long n = 0, i;
	struct page *page;

	rv_fw_begin(2);
	rv_fw_memblk(RV_BASE, 24 * MiB, 0);
	rv_fw_memblk(24 * MiB, 32 * MiB, 1);
	rv_fw_memblk(32 * MiB, RV_END, 0);
	rv_fw_cpus();
	rv_boot(test);
	KUNIT_ASSERT_EQ(test, nr_node_ids, 2);
	KUNIT_ASSERT_NOT_NULL(test, NODE_DATA(1));
	/* The buddy itself: node 1's pages only from node 1. */
	while (n < RV_PAGES &&
	       (page = alloc_pages_node(1, GFP_KERNEL | __GFP_THISNODE |
					       __GFP_NOWARN, 0))) {
		KUNIT_EXPECT_EQ(test, page_to_nid(page), 1);
		rv_pages[n++] = page;
	}
	KUNIT_EXPECT_GT(test, n, 0);
	for (i = 0; i < n; i++)
		__free_pages(rv_pages[i], 0);
	drain_all_pages();
	/* The checker on a clean machine. */
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/* ---- a mode switch while a free is between its check and its push ---- */

static struct kmem_cache *rv_switch_cache;
static enum slab_numa_mode rv_switch_to;
static bool rv_switched;

/*
 * Plays the IPI of slab_set_numa_mode() run by another CPU, landing where
 * free_to_pcs_slow() has dropped the sheaf lock (IRQs on there).
 */
static void rv_switch_hook(enum mm_point point, void *arg)
{
	if (point != MM_POINT_SHEAF_FREE_UNLOCKED || arg != rv_switch_cache ||
	    rv_switched)
		return;
	rv_switched = true;
	mm_point_hook = NULL;
	slab_set_numa_mode(rv_switch_to);
}

/*
 * BLIND -> `to` while CPU 4 (node 1) frees a node-0 object whose free
 * needs a new empty sheaf (CPU 4 has never used the cache: its main is the
 * bootstrap sheaf, its barn is empty).  The free decided "sheaves" under
 * BLIND; the switch flushed every sheaf; after the switch the remote object
 * must not be in CPU 4's sheaves (LINUX: a remote free never enters a
 * sheaf; STRICT: N2, and it must never be handed out to node 1's CPU).
 */
static void switch_during_free(struct kunit *test, enum slab_numa_mode to)
{
	struct slub_percpu_sheaves *pcs;
	struct kmem_cache *s;
	void *p, *q;
	unsigned int i;
	bool in_sheaf = false;

	rv_fw_begin(2);
	rv_fw_memblk(RV_BASE, 32 * MiB, 0);
	rv_fw_memblk(32 * MiB, RV_END, 1);
	rv_fw_cpus();
	rv_boot_slab(test, SLAB_NUMA_BLIND);
	s = kmem_cache_create("rv_switch", 128, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_TRUE(test, cache_has_sheaves(s));

	p = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, rv_nid(p), 0);

	rv_switch_cache = s;
	rv_switch_to = to;
	rv_switched = false;
	host_cpu_id = RV_NODE1_CPU;
	mm_point_hook = rv_switch_hook;
	kmem_cache_free(s, p);
	mm_point_hook = NULL;
	KUNIT_ASSERT_TRUE(test, rv_switched);
	KUNIT_ASSERT_EQ(test, (int)slab_numa_mode, (int)to);

	pcs = &s->cpu_sheaves[RV_NODE1_CPU];
	for (i = 0; i < pcs->main->size; i++)
		if (pcs->main->objects[i] == p)
			in_sheaf = true;
	if (in_sheaf)
		KUNIT_FAIL(test, "node-0 object %p in cpu%u's sheaf after the switch to %s",
			   p, RV_NODE1_CPU, slab_numa_mode_names[to]);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	q = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	if (to == SLAB_NUMA_STRICT && rv_nid(q) != 1)
		KUNIT_FAIL(test, "strict mode handed cpu%u a node-%d object",
			   RV_NODE1_CPU, rv_nid(q));
	kmem_cache_free(s, q);
	host_cpu_id = 0;
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

static void switch_to_strict_during_remote_free(struct kunit *test)
{
	switch_during_free(test, SLAB_NUMA_STRICT);
}

static void switch_to_linux_during_remote_free(struct kunit *test)
{
	switch_during_free(test, SLAB_NUMA_LINUX);
}


/* ---- strict mode and the page-backed kmalloc sizes ---- */

/*
 * STRICT: "never a remote object: no fallback to another node's slabs or
 * pages (a request fails instead)" (include/slab.h, docs/numa.md).  Node 1
 * is emptied; a CPU of node 1 then asks kmalloc() and kmalloc_node(.., 1)
 * for a size above KMALLOC_MAX_CACHE_SIZE (whole buddy blocks).  It must
 * get NULL or node-1 memory, never node 0's.
 */
static void strict_large_kmalloc_never_remote(struct kunit *test)
{
	unsigned long n = 0, i;
	struct page *page;
	void *a, *b;

	rv_fw_begin(2);
	rv_fw_memblk(RV_BASE, 32 * MiB, 0);
	rv_fw_memblk(32 * MiB, RV_END, 1);
	rv_fw_cpus();
	rv_boot_slab(test, SLAB_NUMA_STRICT);
	while (n < RV_PAGES &&
	       (page = alloc_pages_node(1, GFP_KERNEL | __GFP_THISNODE |
					__GFP_NOWARN, 0)))
		rv_pages[n++] = page;
	KUNIT_ASSERT_GT(test, n, 0);
	host_cpu_id = RV_NODE1_CPU;
	a = kmalloc(4 * KMALLOC_MAX_CACHE_SIZE, GFP_KERNEL | __GFP_NOWARN);
	if (a && rv_nid(a) != 1)
		KUNIT_FAIL(test, "strict: kmalloc(%lu) on cpu%u (node 1, out of memory) gave node-%d memory",
			   (unsigned long)(4 * KMALLOC_MAX_CACHE_SIZE),
			   RV_NODE1_CPU, rv_nid(a));
	b = kmalloc_node(4 * KMALLOC_MAX_CACHE_SIZE, GFP_KERNEL | __GFP_NOWARN,
			 1);
	if (b && rv_nid(b) != 1)
		KUNIT_FAIL(test, "strict: kmalloc_node(%lu, 1) gave node-%d memory",
			   (unsigned long)(4 * KMALLOC_MAX_CACHE_SIZE),
			   rv_nid(b));
	kfree(a);
	kfree(b);
	host_cpu_id = 0;
	for (i = 0; i < n; i++)
		__free_pages(rv_pages[i], 0);
}

/* ---- __GFP_THISNODE in blind mode ---- */

/*
 * include/slab.h: kmalloc_nolock()'s node is "preferred: a remote object
 * rather than none, unless __GFP_THISNODE or the strict mode"; and a
 * node-aware call gives another node's object only "unless gfp says
 * __GFP_THISNODE".  BLIND changes which sheaf serves, not what
 * __GFP_THISNODE means.  CPU 0 (node 0) with node-0 objects in its sheaf
 * asks for node 1 with __GFP_THISNODE: a node-0 object is a broken
 * promise.
 */
static void blind_thisnode_gives_that_node(struct kunit *test)
{
	void *warm, *a, *b;

	rv_fw_begin(2);
	rv_fw_memblk(RV_BASE, 32 * MiB, 0);
	rv_fw_memblk(32 * MiB, RV_END, 1);
	rv_fw_cpus();
	rv_boot_slab(test, SLAB_NUMA_BLIND);
	/* Fill CPU 0's kmalloc-64 sheaf with node-0 objects. */
	warm = kmalloc(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, warm);
	KUNIT_ASSERT_EQ(test, rv_nid(warm), 0);
	kfree(warm);

	a = kmalloc_node(64, GFP_KERNEL | __GFP_THISNODE, 1);
	if (a && rv_nid(a) != 1)
		KUNIT_FAIL(test, "blind: kmalloc_node(64, __GFP_THISNODE, 1) gave a node-%d object",
			   rv_nid(a));
	b = kmalloc_nolock(64, __GFP_THISNODE, 1);
	if (b && rv_nid(b) != 1)
		KUNIT_FAIL(test, "blind: kmalloc_nolock(64, __GFP_THISNODE, 1) gave a node-%d object",
			   rv_nid(b));
	kfree(a);
	kfree(b);
}

static struct kunit_case numa_review_cases[] = {
	KUNIT_CASE(interleaved_nodes_boot_clean),
	KUNIT_CASE(switch_to_strict_during_remote_free),
	KUNIT_CASE(switch_to_linux_during_remote_free),
	KUNIT_CASE(strict_large_kmalloc_never_remote),
	KUNIT_CASE(blind_thisnode_gives_that_node),
	{}
};

static struct kunit_suite numa_review_suite = {
	.name = "numa_review",
	.exit = rv_exit,
	.test_cases = numa_review_cases,
};
kunit_test_suite(numa_review_suite);
