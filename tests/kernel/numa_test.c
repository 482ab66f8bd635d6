/*
 * numa_test.c - the nodes on the machine QEMU gave us (include/numa.h,
 * docs/numa.md).
 *
 * Every boot runs these; what they can check depends on the topology:
 *   - any machine: the topology is consistent (states, distances,
 *     fallback orders, every CPU's memory node has memory, per-node free
 *     counts add up), every frame's struct page is in its node's memory,
 *     and allocations come from the node asked for;
 *   - two nodes with CPUs and memory: a free of a remote object skips the
 *     sheaves under Linux's rules and lands in them when node-blind, and
 *     the strict mode keeps every sheaf and barn local (mm_check's N2);
 *   - a memoryless node: its CPUs allocate from the nearest node.
 * A case that needs a topology the machine lacks is skipped, saying why.
 * `make test` boots 1, 2 and 4 nodes, a memoryless and a CPU-less node.
 *
 * Work on another CPU runs in an IPI (smp_call_function_single()), where
 * the ordinary allocation calls are allowed (IRQ context, not NMI).
 */
#include <kunit.h>
#include <mm.h>
#include <mm_check.h>
#include <mmzone.h>
#include <numa.h>
#include <slab.h>
#include <smp.h>
#include "../../mm/slab_internal.h"

#define NUMA_TEST_OBJECT_SIZE 64

/* An online CPU of node nid other than `not`, or -1. */
static int cpu_of_node(int nid, int not)
{
	unsigned int cpu;

	for_each_online_cpu(cpu)
		if ((int)cpu != not && cpu_to_node(cpu) == nid)
			return (int)cpu;
	return -1;
}

/* Two online CPUs whose memory nodes differ: *a (this one, cpu 0, if it
 * can be) and *b.  False when the machine has no such pair. */
static bool two_cpus_two_memory_nodes(unsigned int *a, unsigned int *b)
{
	unsigned int cpu;

	*a = smp_processor_id();
	for_each_online_cpu(cpu)
		if (cpu_to_mem(cpu) != cpu_to_mem(*a)) {
			*b = cpu;
			return true;
		}
	return false;
}

static void topology_is_consistent(struct kunit *test)
{
	unsigned long free_sum = 0;
	unsigned int cpu;
	int nid, other;

	KUNIT_ASSERT_GE(test, nr_node_ids, 1);
	KUNIT_ASSERT_LE(test, nr_node_ids, MAX_NUMNODES);
	for_each_online_cpu(cpu) {
		nid = cpu_to_node(cpu);
		KUNIT_EXPECT_TRUE(test, node_state(nid, NODE_CPU));
		KUNIT_EXPECT_TRUE(test, node_state(cpu_to_mem(cpu), NODE_MEMORY));
		KUNIT_EXPECT_NOT_NULL(test, NODE_DATA(cpu_to_mem(cpu)));
		KUNIT_EXPECT_EQ(test, percpu_areas[cpu].numa_node, nid);
		KUNIT_EXPECT_EQ(test, percpu_areas[cpu].numa_mem, cpu_to_mem(cpu));
	}
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		const int *order = node_fallback(nid);
		unsigned int seen = 0, i;

		KUNIT_EXPECT_EQ(test, NODE_DATA(nid) != NULL,
				node_state(nid, NODE_MEMORY));
		if (!node_online(nid))
			continue;
		free_sum += node_nr_free_pages(nid);
		KUNIT_EXPECT_EQ(test, node_distance(nid, nid), LOCAL_DISTANCE);
		for (other = 0; other < nr_node_ids; other++)
			if (other != nid && node_online(other))
				KUNIT_EXPECT_GT(test, node_distance(nid, other),
						LOCAL_DISTANCE);
		if (node_state(nid, NODE_MEMORY))
			KUNIT_EXPECT_EQ(test, order[0], nid);
		for (i = 0; order[i] != NUMA_NO_NODE; i++) {
			KUNIT_EXPECT_TRUE(test, node_state(order[i], NODE_MEMORY));
			KUNIT_EXPECT_FALSE(test, seen & (1u << order[i]));
			seen |= 1u << order[i];
			if (i)
				KUNIT_EXPECT_LE(test,
						node_distance(nid, order[i - 1]),
						node_distance(nid, order[i]));
		}
		for (other = 0; other < nr_node_ids; other++)
			KUNIT_EXPECT_EQ(test, !!(seen & (1u << other)),
					node_state(other, NODE_MEMORY));
	}
	KUNIT_EXPECT_EQ(test, free_sum, nr_free_pages());
}

static void pages_come_from_the_node_asked(struct kunit *test)
{
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		unsigned long hit, other;
		struct page *page;

		if (!node_state(nid, NODE_MEMORY))
			continue;
		hit = numa_stat_read(NUMA_STAT_PAGES, nid, NUMA_HIT);
		other = numa_stat_read(NUMA_STAT_PAGES, nid, NUMA_OTHER);
		page = alloc_pages_node(nid, GFP_KERNEL, 0);
		KUNIT_ASSERT_NOT_NULL(test, page);
		KUNIT_EXPECT_EQ(test, page_to_nid(page), nid);
		KUNIT_EXPECT_GE(test, numa_stat_read(NUMA_STAT_PAGES, nid,
						     NUMA_HIT), hit + 1);
		if (nid != numa_node_id())
			KUNIT_EXPECT_GE(test, numa_stat_read(NUMA_STAT_PAGES,
							     nid, NUMA_OTHER),
					other + 1);
		__free_pages(page, 0);
		page = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE,
					PCP_MAX_ORDER + 1);
		KUNIT_ASSERT_NOT_NULL(test, page);
		KUNIT_EXPECT_EQ(test, page_to_nid(page), nid);
		__free_pages(page, PCP_MAX_ORDER + 1);
		page = try_alloc_pages(nid, 0);
		KUNIT_ASSERT_NOT_NULL(test, page);
		KUNIT_EXPECT_EQ(test, page_to_nid(page), nid);
		free_pages_nolock(page, 0);
	}
	/* No such node: refused (quietly with __GFP_NOWARN). */
	KUNIT_EXPECT_NULL(test, alloc_pages_node(MAX_NUMNODES,
						 GFP_KERNEL | __GFP_NOWARN, 0));
}

static void objects_come_from_the_node_asked(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("test_numa_node",
						 NUMA_TEST_OBJECT_SIZE, 0, 0,
						 NULL);
	int nid;

	KUNIT_ASSERT_NOT_NULL(test, s);
	for (nid = 0; nid < MAX_NUMNODES; nid++) {
		void *a, *b, *c;

		if (!node_state(nid, NODE_MEMORY))
			continue;
		/* Node-blind sheaves serve a plain node request from
		 * whatever they hold; __GFP_THISNODE binds in every mode. */
		gfp_t bind = slab_numa_mode == SLAB_NUMA_BLIND ?
			     __GFP_THISNODE : 0;

		a = kmalloc_node(NUMA_TEST_OBJECT_SIZE, GFP_KERNEL | bind, nid);
		b = kmem_cache_alloc_node(s, GFP_KERNEL | bind, nid);
		c = kmalloc_nolock(NUMA_TEST_OBJECT_SIZE, bind, nid);
		KUNIT_ASSERT_NOT_NULL(test, a);
		KUNIT_ASSERT_NOT_NULL(test, b);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(a)), nid);
		KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(b)), nid);
		KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(c)), nid);
		kfree(a);
		kmem_cache_free(s, b);
		kfree_nolock(c);
	}
	/* Plain calls get this CPU's memory node (it has room), unless the
	 * sheaves are node-blind: then the remote objects freed above are
	 * in this CPU's sheaf, and come out first. */
	{
		void *p = kmem_cache_alloc(s, GFP_KERNEL);

		KUNIT_ASSERT_NOT_NULL(test, p);
		if (slab_numa_mode != SLAB_NUMA_BLIND)
			KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(p)),
					numa_mem_id());
		kmem_cache_free(s, p);
	}
	KUNIT_EXPECT_NULL(test, kmalloc_node(NUMA_TEST_OBJECT_SIZE,
					     GFP_KERNEL, MAX_NUMNODES));
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

/* ---- a free on another node's CPU ---- */

struct remote_call {
	struct kmem_cache *s;
	void *object;
	unsigned long free_slow_before, free_slow_after;
	bool in_main;            /* the object sat in that CPU's main sheaf */
	void *allocated;         /* what that CPU's next allocation gave */
};

static bool in_main_sheaf(struct kmem_cache *s, unsigned int cpu, void *p)
{
	struct slab_sheaf *main = s->cpu_sheaves[cpu].main;
	unsigned int i;

	for (i = 0; i < main->size; i++)
		if (main->objects[i] == p)
			return true;
	return false;
}

static void free_there_and_allocate(void *info)
{
	struct remote_call *c = info;

	c->free_slow_before = slab_stat_sum(c->s, FREE_SLOWPATH);
	kmem_cache_free(c->s, c->object);
	c->free_slow_after = slab_stat_sum(c->s, FREE_SLOWPATH);
	c->in_main = in_main_sheaf(c->s, smp_processor_id(), c->object);
	c->allocated = kmem_cache_alloc(c->s, GFP_ATOMIC);
}

static void free_there_then_back(void *info)
{
	struct remote_call *c = info;

	kmem_cache_free(c->s, c->allocated);
}

/* Allocate here, free on cpu, and let cpu allocate once (into *c). */
static void cross_node_free(struct kunit *test, struct kmem_cache *s,
			    unsigned int cpu, struct remote_call *c)
{
	c->s = s;
	c->object = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->object);
	KUNIT_ASSERT_EQ(test, smp_call_function_single(cpu,
			free_there_and_allocate, c, true), 0);
	KUNIT_ASSERT_NOT_NULL(test, c->allocated);
	KUNIT_ASSERT_EQ(test, smp_call_function_single(cpu,
			free_there_then_back, c, true), 0);
}

static void remote_free_follows_the_mode(struct kunit *test)
{
	enum slab_numa_mode saved = slab_numa_mode;
	struct remote_call c;
	struct kmem_cache *s;
	unsigned int a, b;

	if (!two_cpus_two_memory_nodes(&a, &b))
		kunit_skip(test, "needs two CPUs with different memory nodes");
	s = kmem_cache_create("test_numa_remote", NUMA_TEST_OBJECT_SIZE, 0, 0,
			      NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);

	/* Linux's rules: back to its slab, never into cpu b's sheaf. */
	slab_set_numa_mode(SLAB_NUMA_LINUX);
	cross_node_free(test, s, b, &c);
	KUNIT_EXPECT_EQ(test, c.free_slow_after - c.free_slow_before, 1);
	KUNIT_EXPECT_FALSE(test, c.in_main);
	KUNIT_EXPECT_PTR_NE(test, c.allocated, c.object);
	KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(c.allocated)),
			cpu_to_mem(b));

	/* Node-blind: into b's sheaf, and b's next allocation is remote. */
	slab_set_numa_mode(SLAB_NUMA_BLIND);
	cross_node_free(test, s, b, &c);
	KUNIT_EXPECT_EQ(test, c.free_slow_after - c.free_slow_before, 0);
	KUNIT_EXPECT_TRUE(test, c.in_main);
	KUNIT_EXPECT_PTR_EQ(test, c.allocated, c.object);
	KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(c.allocated)),
			cpu_to_mem(a));

	/* Strict: as Linux, and every sheaf and barn stays local (N2). */
	slab_set_numa_mode(SLAB_NUMA_STRICT);
	cross_node_free(test, s, b, &c);
	KUNIT_EXPECT_FALSE(test, c.in_main);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	slab_set_numa_mode(saved);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

/* ---- kfree_rcu() and kfree_nolock() of another node's object ---- */

struct rcu_remote_object {
	struct rcu_head rcu;
	char payload[NUMA_TEST_OBJECT_SIZE];
};

static void kfree_rcu_there(void *info)
{
	struct rcu_remote_object *o = info;

	kfree_rcu(o, rcu);
}

static void kfree_nolock_there(void *info)
{
	kfree_nolock(info);
}

/* The object's cache is found whatever its node: a remote object is no
 * "pointer kmalloc never returned", in any mode. */
static void remote_kfree_rcu_and_nolock_are_taken(struct kunit *test)
{
	enum slab_numa_mode saved = slab_numa_mode, mode;
	unsigned long reports = slab_reports;
	unsigned int a, b;

	if (!two_cpus_two_memory_nodes(&a, &b))
		kunit_skip(test, "needs two CPUs with different memory nodes");
	for (mode = 0; mode < NR_SLAB_NUMA_MODES; mode++) {
		struct rcu_remote_object *o;
		void *p;

		slab_set_numa_mode(mode);
		o = kmalloc(sizeof(*o), GFP_KERNEL);
		p = kmalloc(NUMA_TEST_OBJECT_SIZE, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, o);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_ASSERT_EQ(test, smp_call_function_single(b,
				kfree_rcu_there, o, true), 0);
		KUNIT_ASSERT_EQ(test, smp_call_function_single(b,
				kfree_nolock_there, p, true), 0);
		kvfree_rcu_barrier();
		slab_deferred_flush_all();
	}
	slab_set_numa_mode(saved);
	KUNIT_EXPECT_EQ(test, slab_reports, reports);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/* kfree()'s inline fast path asks the same question as the full path:
 * the per-CPU flags follow the mode. */
static void fast_free_flags_follow_the_mode(struct kunit *test)
{
	enum slab_numa_mode saved = slab_numa_mode;
	unsigned long node_bits = (unsigned long)PAGE_NID_MASK << PAGE_NID_SHIFT;
	unsigned int cpu;

	slab_set_numa_mode(SLAB_NUMA_BLIND);
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, percpu_areas[cpu].slab_free_flags_mask,
				PG_slab);
		KUNIT_EXPECT_EQ(test, percpu_areas[cpu].slab_free_flags_want,
				PG_slab);
	}
	slab_set_numa_mode(SLAB_NUMA_LINUX);
	for_each_online_cpu(cpu) {
		KUNIT_EXPECT_EQ(test, percpu_areas[cpu].slab_free_flags_mask,
				PG_slab | node_bits);
		KUNIT_EXPECT_EQ(test, percpu_areas[cpu].slab_free_flags_want,
				PG_slab | ((unsigned long)cpu_to_mem(cpu) <<
					   PAGE_NID_SHIFT));
	}
	slab_set_numa_mode(saved);
}

/* ---- a memoryless node ---- */

struct memoryless_call {
	void *object;
	struct page *page;
};

static void allocate_here(void *info)
{
	struct memoryless_call *c = info;

	c->object = kmalloc(NUMA_TEST_OBJECT_SIZE, GFP_ATOMIC);
	c->page = alloc_pages(GFP_ATOMIC, 0);
}

static void memoryless_node_cpus_use_the_nearest(struct kunit *test)
{
	struct memoryless_call c;
	int cpu = -1, nid;

	for (nid = 0; nid < nr_node_ids && cpu < 0; nid++)
		if (node_state(nid, NODE_CPU) && !node_state(nid, NODE_MEMORY))
			cpu = cpu_of_node(nid, -1);
	if (cpu < 0)
		kunit_skip(test, "no online CPU on a memoryless node");
	KUNIT_EXPECT_NE(test, cpu_to_mem((unsigned int)cpu),
			cpu_to_node((unsigned int)cpu));
	KUNIT_EXPECT_EQ(test, cpu_to_mem((unsigned int)cpu),
			node_fallback(cpu_to_node((unsigned int)cpu))[0]);
	KUNIT_ASSERT_EQ(test, smp_call_function_single((unsigned int)cpu,
			allocate_here, &c, true), 0);
	KUNIT_ASSERT_NOT_NULL(test, c.object);
	KUNIT_ASSERT_NOT_NULL(test, c.page);
	KUNIT_EXPECT_EQ(test, page_to_nid(virt_to_page(c.object)),
			cpu_to_mem((unsigned int)cpu));
	KUNIT_EXPECT_EQ(test, page_to_nid(c.page),
			cpu_to_mem((unsigned int)cpu));
	kfree(c.object);
	__free_pages(c.page, 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * Every frame's struct page lives in its own node's memory, as the page
 * tables at VMEMMAP_BASE say (mm/mm_init.c).  The memmap is placed a page
 * of it (64 struct pages) at a time, so one frame a memmap page is asked.
 * A memmap page that a node boundary cuts belongs to the node of its
 * first frame with RAM; those are counted apart (at most one per node
 * range).
 */
#define PAGES_PER_MEMMAP_PAGE (PAGE_SIZE / sizeof(struct page))

static void struct_pages_live_on_their_node(struct kunit *test)
{
	unsigned long pfn, on_node = 0, cut = 0, wrong = 0, bad_pfn = 0;
	unsigned int r = 0;
	u64 start, end;
	int nid, ranges = 0;

	while (numa_next_range(&r, &start, &end, &nid)) {
		unsigned long first = max((unsigned long)(start >> PAGE_SHIFT),
					  mem_map_base_pfn);
		unsigned long last = min((unsigned long)(end >> PAGE_SHIFT),
					 mem_map_end_pfn);

		ranges++;
		for (pfn = first; pfn < last;
		     pfn = ALIGN_DOWN(pfn, PAGES_PER_MEMMAP_PAGE) +
			   PAGES_PER_MEMMAP_PAGE) {
			unsigned long head = ALIGN_DOWN(pfn, PAGES_PER_MEMMAP_PAGE);
			phys_addr_t frame;
			int where = NUMA_NO_NODE;

			if (vmemmap_lookup(pfn_to_page(pfn), &frame))
				where = phys_to_nid(frame);
			if (where == nid)
				on_node++;
			else if (pfn == first && head < first &&
				 where == page_to_nid(pfn_to_page(
					max(head, mem_map_base_pfn))))
				cut++;
			else if (!wrong++)
				bad_pfn = pfn;
		}
	}
	kunit_info(test, "%lu memmap pages on the node of their frames, %lu cut by a node boundary, over %d ranges",
		   on_node, cut, ranges);
	if (wrong)
		kunit_info(test, "%lu memmap pages elsewhere or unmapped, the first for pfn %#lx of node %d",
			   wrong, bad_pfn, page_to_nid(pfn_to_page(bad_pfn)));
	KUNIT_EXPECT_EQ(test, wrong, 0);
	KUNIT_EXPECT_GT(test, on_node, 0);
	KUNIT_EXPECT_LE(test, cut, (unsigned long)ranges);
}

static struct kunit_case numa_cases[] = {
	KUNIT_CASE(topology_is_consistent),
	KUNIT_CASE(struct_pages_live_on_their_node),
	KUNIT_CASE(pages_come_from_the_node_asked),
	KUNIT_CASE(objects_come_from_the_node_asked),
	KUNIT_CASE(remote_free_follows_the_mode),
	KUNIT_CASE(remote_kfree_rcu_and_nolock_are_taken),
	KUNIT_CASE(fast_free_flags_follow_the_mode),
	KUNIT_CASE(memoryless_node_cpus_use_the_nearest),
	{}
};

static struct kunit_suite numa_suite = {
	.name = "numa",
	.test_cases = numa_cases,
};
kunit_test_suite(numa_suite);
