/*
 * test_mm_numa.c - host tests of the nodes: mm/numa.c (the firmware's
 * topology checked against memblock, node states, distances, fallback
 * orders, numastat), the node fallback of mm/page_alloc.c, and the node
 * rules of mm/slab.c, mm/sheaf.c (slab_numa_mode) and mm/cpu_slab.c (a
 * CPU freezes only its own node's slabs), under ASan and UBSan.
 *
 * Each case writes numa_firmware as srat.c would have (a crafted SRAT:
 * nodes, memory ranges, CPUs by APIC id, optionally a SLIT), over an arena
 * of 32 MiB of "RAM" at [16 MiB, 48 MiB), and boots it as the kernel does:
 * numa_init(), numa_cpu_online() for every CPU (APIC id = CPU number),
 * mm_init_nodes(), and for the slab cases kmem_cache_init().  The usual
 * machine is two nodes of 16 MiB each, CPUs 0-3 on node 0 and 4-7 on
 * node 1; a case that needs a third or fourth node says so.
 *
 * numa_init() and numa_cpu_online() say what they decided in pr_info()/
 * pr_warn() lines, which are no reports (WARNING:/BUG lines), so nothing
 * is declared: a case that checks the words captures stdout around the
 * call (capture_begin()/capture_end()).
 *
 * The exit hook gives everything back (slab, arena, topology, counters,
 * numa=off, the slab_numa mode), so a failed assertion never leaks a
 * machine into the next case.
 */
#include <kunit.h>
#include <kernel.h>
#include <mm_check.h>
#include <mm_points.h>
#include <numa.h>
#include <slab.h>
#include <smp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "mm_arena.h"
#include "../../mm/internal.h"
#include "../../mm/slab_internal.h"

#define MiB (1ull << 20)
#define NUMA_ARENA_BASE (16 * MiB)
#define NUMA_ARENA_END  (48 * MiB)
#define NUMA_SPLIT      (32 * MiB)   /* node 0 below, node 1 above */
/* Not a multiple of a MAX_ORDER block (4 MiB): the buddy must not merge
 * the two order-9 halves of [28 MiB, 32 MiB) across it. */
#define NUMA_ODD_SPLIT  (30 * MiB)
#define NODE1_CPU       4            /* the first CPU of node 1 */
#define ARENA_PAGES     ((NUMA_ARENA_END - NUMA_ARENA_BASE) >> PAGE_SHIFT)
#define MANY_OBJECTS    8192

static bool numa_slab_up;
static struct page *held_pages[ARENA_PAGES];
static void *held_objects[MANY_OBJECTS];

/* ---- the crafted firmware ---- */

/* nr_nodes nodes, proximity domain = node number, no ranges, no CPUs. */
static void fw_begin(unsigned int nr_nodes)
{
	unsigned int n;

	memset(&numa_firmware, 0, sizeof(numa_firmware));
	numa_firmware.valid = true;
	numa_firmware.nr_nodes = nr_nodes;
	for (n = 0; n < nr_nodes && n < MAX_NUMNODES; n++)
		numa_firmware.pxm[n] = n;
}

static void fw_memblk(u64 start, u64 end, int nid)
{
	struct numa_memblk *m = &numa_firmware.memblk[numa_firmware.nr_memblks++];

	m->start = start;
	m->end = end;
	m->nid = nid;
}

static void fw_cpu(u32 apic_id, int nid)
{
	struct numa_cpu *c = &numa_firmware.cpu[numa_firmware.nr_cpus++];

	c->apic_id = apic_id;
	c->nid = nid;
}

/* CPUs [first, last] on node nid. */
static void fw_cpus(u32 first, u32 last, int nid)
{
	u32 apic;

	for (apic = first; apic <= last; apic++)
		fw_cpu(apic, nid);
}

/* A SLIT: row `from` of the matrix, nr entries. */
static void fw_distances(int from, const u8 *row, unsigned int nr)
{
	unsigned int to;

	numa_firmware.has_distances = true;
	for (to = 0; to < nr; to++)
		numa_firmware.distance[from][to] = row[to];
}

/* The usual machine: node 0 [16, split), node 1 [split, 48 MiB); CPUs 0-3
 * on node 0, 4-7 on node 1; default distances. */
static void fw_two_nodes(u64 split)
{
	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, split, 0);
	fw_memblk(split, NUMA_ARENA_END, 1);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
}

/* The arena's RAM in memblock (no node yet). */
static void map_arena(void)
{
	const struct fw_mmap_entry map[] = {
		{ NUMA_ARENA_BASE, NUMA_ARENA_END - NUMA_ARENA_BASE,
		  E820_TYPE_RAM },
	};

	arena_map_memory(&test_arena, NUMA_ARENA_BASE,
			 NUMA_ARENA_END - NUMA_ARENA_BASE);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
}

/* numa_firmware as set, then the page allocator; every CPU online. */
static void boot_nodes(struct kunit *test)
{
	map_arena();
	KUNIT_ASSERT_TRUE(test, arena_boot(&test_arena));
	nr_cpu_ids = NR_CPUS;
	host_cpu_id = 0;
}

/* boot_nodes(), then the slab allocator, in `mode`. */
static void boot_nodes_slab(struct kunit *test, enum slab_numa_mode mode)
{
	boot_nodes(test);
	kmem_cache_init(NULL);
	numa_slab_up = true;
	slab_set_numa_mode(mode);
}

static void numa_case_exit(struct kunit *test)
{
	unsigned int cpu;

	(void)test;
	mm_point_hook = NULL;
	mm_check_quiet = false;
	mm_check_match = NULL;
	host_nmi_nesting = 0;
	host_cpu_id = 0;
	if (numa_slab_up) {
		slab_set_numa_mode(SLAB_NUMA_LINUX);
		slab_host_reset();
		drain_all_pages();
		numa_slab_up = false;
	}
	slab_numa_mode = SLAB_NUMA_LINUX;
	numa_off = false;
	nr_cpu_ids = 1;
	if (test_arena.mem) {
		arena_exit(&test_arena);
		return;
	}
	/* A case that ran numa_init() without an arena. */
	memset(&numa_firmware, 0, sizeof(numa_firmware));
	numa_init();
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		numa_cpu_online(cpu, cpu);
	numa_stat_reset();
	memblock_reset();
}

/* ---- stdout, captured around one call ---- */

static char captured[4096];
static FILE *capture_file;
static int capture_saved_fd = -1;

static void capture_begin(void)
{
	fflush(stdout);
	capture_file = tmpfile();
	if (!capture_file)
		return;
	capture_saved_fd = dup(STDOUT_FILENO);
	dup2(fileno(capture_file), STDOUT_FILENO);
}

/* What was printed since capture_begin(), also printed for the log. */
static const char *capture_end(void)
{
	size_t n = 0;

	captured[0] = '\0';
	if (!capture_file)
		return captured;
	fflush(stdout);
	dup2(capture_saved_fd, STDOUT_FILENO);
	close(capture_saved_fd);
	capture_saved_fd = -1;
	rewind(capture_file);
	n = fread(captured, 1, sizeof(captured) - 1, capture_file);
	captured[n] = '\0';
	fclose(capture_file);
	capture_file = NULL;
	fputs(captured, stdout);
	return captured;
}

/* numa_init() and every CPU's numa_cpu_online(), their lines captured. */
static const char *numa_init_captured(void)
{
	unsigned int cpu;

	capture_begin();
	numa_init();
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		numa_cpu_online(cpu, cpu);
	return capture_end();
}

/* The fallback order of nid, NUMA_NO_NODE-terminated, as expected. */
static void expect_fallback(struct kunit *test, int nid, const int *want,
			    unsigned int nr)
{
	const int *got = node_fallback(nid);
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (got[i] != want[i])
			kunit_info(test, "node %d: fallback[%u] is %d, want %d",
				   nid, i, got[i], want[i]);
		KUNIT_EXPECT_EQ(test, got[i], want[i]);
	}
	KUNIT_EXPECT_EQ(test, got[nr], NUMA_NO_NODE);
}

/* ---- numa_init(): what it accepts ---- */

static void two_nodes_accepted(struct kunit *test)
{
	const char *log;
	unsigned int cpu;

	map_arena();
	fw_two_nodes(NUMA_SPLIT);
	log = numa_init_captured();
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "numa: 2 nodes from the SRAT"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log,
		"numa: distances (default: 10 local, 20 remote)"));
	KUNIT_EXPECT_NULL(test, strstr(log, "names no node"));
	KUNIT_EXPECT_EQ(test, nr_node_ids, 2);
	KUNIT_EXPECT_TRUE(test, node_state(0, NODE_ONLINE));
	KUNIT_EXPECT_TRUE(test, node_state(0, NODE_MEMORY));
	KUNIT_EXPECT_TRUE(test, node_state(0, NODE_CPU));
	KUNIT_EXPECT_TRUE(test, node_state(1, NODE_ONLINE));
	KUNIT_EXPECT_TRUE(test, node_state(1, NODE_MEMORY));
	KUNIT_EXPECT_TRUE(test, node_state(1, NODE_CPU));
	KUNIT_EXPECT_FALSE(test, node_online(2));
	KUNIT_EXPECT_FALSE(test, node_online(-1));
	KUNIT_EXPECT_EQ(test, node_ram_bytes(0), 16 * MiB);
	KUNIT_EXPECT_EQ(test, node_ram_bytes(1), 16 * MiB);
	KUNIT_EXPECT_EQ(test, node_distance(0, 0), LOCAL_DISTANCE);
	KUNIT_EXPECT_EQ(test, node_distance(1, 1), LOCAL_DISTANCE);
	KUNIT_EXPECT_EQ(test, node_distance(0, 1), REMOTE_DISTANCE);
	KUNIT_EXPECT_EQ(test, node_distance(1, 0), REMOTE_DISTANCE);
	expect_fallback(test, 0, (const int[]){ 0, 1 }, 2);
	expect_fallback(test, 1, (const int[]){ 1, 0 }, 2);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		int nid = cpu < NODE1_CPU ? 0 : 1;

		KUNIT_EXPECT_EQ(test, cpu_to_node(cpu), nid);
		KUNIT_EXPECT_EQ(test, cpu_to_mem(cpu), nid);
		KUNIT_EXPECT_EQ(test, percpu_areas[cpu].numa_node, nid);
		KUNIT_EXPECT_EQ(test, percpu_areas[cpu].numa_mem, nid);
	}
	/* Each side of the split, and outside every node. */
	KUNIT_EXPECT_EQ(test, phys_to_nid(NUMA_SPLIT - 1), 0);
	KUNIT_EXPECT_EQ(test, phys_to_nid(NUMA_SPLIT), 1);
	KUNIT_EXPECT_EQ(test, phys_to_nid(NUMA_ARENA_END), NUMA_NO_NODE);
	/* node_fallback(NUMA_NO_NODE) is this CPU's node's. */
	host_cpu_id = NODE1_CPU;
	KUNIT_EXPECT_EQ(test, node_fallback(NUMA_NO_NODE)[0], 1);
	host_cpu_id = 0;
	KUNIT_EXPECT_EQ(test, node_fallback(NUMA_NO_NODE)[0], 0);
}

static void slit_distances_used(struct kunit *test)
{
	const char *log;

	map_arena();
	fw_two_nodes(NUMA_SPLIT);
	fw_distances(0, (const u8[]){ 10, 17 }, 2);
	fw_distances(1, (const u8[]){ 17, 10 }, 2);
	log = numa_init_captured();
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "numa: distances (from the SLIT)"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "numa:   node 0:  10  17"));
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "numa:   node 1:  17  10"));
	KUNIT_EXPECT_EQ(test, node_distance(0, 1), 17);
	KUNIT_EXPECT_EQ(test, node_distance(1, 0), 17);
	KUNIT_EXPECT_EQ(test, node_distance(1, 1), LOCAL_DISTANCE);
	expect_fallback(test, 0, (const int[]){ 0, 1 }, 2);
	expect_fallback(test, 1, (const int[]){ 1, 0 }, 2);
}

/*
 * Four nodes of 8 MiB, two CPUs each, and a SLIT that is not symmetric
 * (0 -> 1 is 20, 1 -> 0 is 25) with ties (0 -> 1 and 0 -> 3; 3 -> 0 and
 * 3 -> 2), which go to the lower node number.
 */
static void four_nodes_by_distance(struct kunit *test)
{
	static const u8 slit[4][4] = {
		{ 10, 20, 30, 20 },
		{ 25, 10, 15, 40 },
		{ 30, 15, 10, 20 },
		{ 20, 40, 20, 10 },
	};
	int n;

	map_arena();
	fw_begin(4);
	for (n = 0; n < 4; n++) {
		fw_memblk(NUMA_ARENA_BASE + (u64)n * 8 * MiB,
			  NUMA_ARENA_BASE + (u64)(n + 1) * 8 * MiB, n);
		fw_cpus(2 * n, 2 * n + 1, n);
		fw_distances(n, slit[n], 4);
	}
	numa_init_captured();
	KUNIT_ASSERT_EQ(test, nr_node_ids, 4);
	for (n = 0; n < 4; n++) {
		KUNIT_EXPECT_TRUE(test, node_state(n, NODE_MEMORY));
		KUNIT_EXPECT_TRUE(test, node_state(n, NODE_CPU));
		KUNIT_EXPECT_EQ(test, node_ram_bytes(n), 8 * MiB);
		KUNIT_EXPECT_EQ(test, cpu_to_node(2 * n + 1), n);
	}
	KUNIT_EXPECT_EQ(test, node_distance(0, 1), 20);
	KUNIT_EXPECT_EQ(test, node_distance(1, 0), 25);
	expect_fallback(test, 0, (const int[]){ 0, 1, 3, 2 }, 4);
	expect_fallback(test, 1, (const int[]){ 1, 2, 0, 3 }, 4);
	expect_fallback(test, 2, (const int[]){ 2, 1, 3, 0 }, 4);
	expect_fallback(test, 3, (const int[]){ 3, 0, 2, 1 }, 4);
}

/* ---- numa_init(): what it refuses (one node, one line) ---- */

static void expect_one_node(struct kunit *test)
{
	unsigned int cpu;

	KUNIT_EXPECT_EQ(test, nr_node_ids, 1);
	KUNIT_EXPECT_TRUE(test, node_state(0, NODE_MEMORY));
	KUNIT_EXPECT_TRUE(test, node_state(0, NODE_CPU));
	KUNIT_EXPECT_FALSE(test, node_online(1));
	KUNIT_EXPECT_EQ(test, node_ram_bytes(0), 32 * MiB);
	expect_fallback(test, 0, (const int[]){ 0 }, 1);
	for (cpu = 0; cpu < NR_CPUS; cpu++) {
		KUNIT_EXPECT_EQ(test, cpu_to_node(cpu), 0);
		KUNIT_EXPECT_EQ(test, percpu_areas[cpu].numa_mem, 0);
	}
}

static void uncovered_ram_refused(struct kunit *test)
{
	const char *log;

	map_arena();
	/* [24 MiB, 32 MiB) is RAM in no node. */
	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, 24 * MiB, 0);
	fw_memblk(NUMA_SPLIT, NUMA_ARENA_END, 1);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	log = numa_init_captured();
	KUNIT_EXPECT_NOT_NULL(test, strstr(log,
		"numa: the SRAT puts RAM [mem 0x1800000-0x1ffffff] in no node; using one node\n"));
	KUNIT_EXPECT_NULL(test, strstr(log, "names no node"));
	expect_one_node(test);
	KUNIT_EXPECT_EQ(test, phys_to_nid(24 * MiB), 0);
	/* ... and the page allocator runs on that one node. */
	KUNIT_ASSERT_TRUE(test, mm_init_nodes(test_arena.pgdat));
	KUNIT_EXPECT_NOT_NULL(test, NODE_DATA(0));
	KUNIT_EXPECT_NULL(test, NODE_DATA(1));
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static void too_many_nodes_refused(struct kunit *test)
{
	const char *log;
	int n;

	map_arena();
	fw_begin(MAX_NUMNODES + 1);
	for (n = 0; n < MAX_NUMNODES + 1; n++)
		fw_memblk(NUMA_ARENA_BASE + (u64)n * 4 * MiB,
			  n == MAX_NUMNODES ? NUMA_ARENA_END :
			  NUMA_ARENA_BASE + (u64)(n + 1) * 4 * MiB, n);
	fw_cpus(0, NR_CPUS - 1, 0);
	log = numa_init_captured();
	KUNIT_EXPECT_NOT_NULL(test, strstr(log,
		"numa: 5 nodes, more than MAX_NUMNODES = 4; using one node\n"));
	expect_one_node(test);
}

static void numa_off_gives_one_node(struct kunit *test)
{
	const char *log;

	map_arena();
	fw_two_nodes(NUMA_SPLIT);
	numa_off = true;
	log = numa_init_captured();
	KUNIT_EXPECT_NOT_NULL(test, strstr(log,
		"numa: off (command line): one node, all memory and every CPU\n"));
	KUNIT_EXPECT_NULL(test, strstr(log, "nodes from the SRAT"));
	expect_one_node(test);
}

/* ---- memoryless, CPU-less, and a CPU the SRAT forgot ---- */

/*
 * Node 2 has CPUs 6 and 7 and no memory; it is nearer node 1 (15) than
 * node 0 (25).  Its CPUs allocate from node 1.
 */
static void fw_memoryless_node(void)
{
	fw_begin(3);
	fw_memblk(NUMA_ARENA_BASE, NUMA_SPLIT, 0);
	fw_memblk(NUMA_SPLIT, NUMA_ARENA_END, 1);
	fw_cpus(0, 3, 0);
	fw_cpus(4, 5, 1);
	fw_cpus(6, 7, 2);
	fw_distances(0, (const u8[]){ 10, 20, 25 }, 3);
	fw_distances(1, (const u8[]){ 20, 10, 15 }, 3);
	fw_distances(2, (const u8[]){ 25, 15, 10 }, 3);
}

static void memoryless_node(struct kunit *test)
{
	const char *log;

	fw_memoryless_node();
	map_arena();
	log = numa_init_captured();
	KUNIT_EXPECT_NOT_NULL(test, strstr(log,
		"numa: node 2 (proximity domain 2): 0 MiB of RAM (memoryless), APIC ids {6,7}\n"));
	KUNIT_ASSERT_EQ(test, nr_node_ids, 3);
	KUNIT_EXPECT_TRUE(test, node_state(2, NODE_ONLINE));
	KUNIT_EXPECT_TRUE(test, node_state(2, NODE_CPU));
	KUNIT_EXPECT_FALSE(test, node_state(2, NODE_MEMORY));
	KUNIT_EXPECT_EQ(test, node_ram_bytes(2), 0);
	KUNIT_EXPECT_EQ(test, cpu_to_node(6), 2);
	KUNIT_EXPECT_EQ(test, cpu_to_mem(6), 1);
	KUNIT_EXPECT_EQ(test, percpu_areas[7].numa_node, 2);
	KUNIT_EXPECT_EQ(test, percpu_areas[7].numa_mem, 1);
	KUNIT_EXPECT_EQ(test, cpu_to_mem(5), 1);
	KUNIT_EXPECT_EQ(test, cpu_to_mem(0), 0);
	/* Only nodes with memory in any order, nearest first. */
	expect_fallback(test, 2, (const int[]){ 1, 0 }, 2);
	expect_fallback(test, 0, (const int[]){ 0, 1 }, 2);
	KUNIT_ASSERT_TRUE(test, mm_init_nodes(test_arena.pgdat));
	KUNIT_EXPECT_NULL(test, NODE_DATA(2));
	KUNIT_EXPECT_NOT_NULL(test, NODE_DATA(1));
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/* Node 0 has memory and no CPU; node 1 has both, and every CPU. */
static void fw_cpuless_node0(unsigned int nr_named_cpus)
{
	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, NUMA_SPLIT, 0);
	fw_memblk(NUMA_SPLIT, NUMA_ARENA_END, 1);
	fw_cpus(0, nr_named_cpus - 1, 1);
}

static void cpuless_node(struct kunit *test)
{
	const char *log;

	fw_cpuless_node0(NR_CPUS);
	map_arena();
	log = numa_init_captured();
	KUNIT_EXPECT_NOT_NULL(test, strstr(log,
		"numa: node 0 (proximity domain 0): 16 MiB of RAM, APIC ids {} (no CPUs)\n"));
	KUNIT_EXPECT_TRUE(test, node_state(0, NODE_ONLINE));
	KUNIT_EXPECT_TRUE(test, node_state(0, NODE_MEMORY));
	KUNIT_EXPECT_FALSE(test, node_state(0, NODE_CPU));
	KUNIT_EXPECT_TRUE(test, node_state(1, NODE_CPU));
	KUNIT_EXPECT_EQ(test, cpu_to_node(0), 1);
	KUNIT_EXPECT_EQ(test, cpu_to_mem(0), 1);
	expect_fallback(test, 1, (const int[]){ 1, 0 }, 2);
	expect_fallback(test, 0, (const int[]){ 0, 1 }, 2);
	KUNIT_ASSERT_TRUE(test, mm_init_nodes(test_arena.pgdat));
	KUNIT_EXPECT_NOT_NULL(test, NODE_DATA(0));
	/* Only ever a remote node: asked for, it serves. */
	__free_pages(alloc_pages_node(0, GFP_KERNEL, 0), 0);
	KUNIT_EXPECT_EQ(test, numa_stat_read(NUMA_STAT_PAGES, 0, NUMA_OTHER), 1);
	KUNIT_EXPECT_EQ(test, numa_stat_read(NUMA_STAT_PAGES, 0, NUMA_LOCAL), 0);
}

/* CPU 7 is in no SRAT entry: it joins the first node with CPUs, node 1
 * (node 0 has none), and says so. */
static void unnamed_cpu_joins_first_cpu_node(struct kunit *test)
{
	const char *log;

	fw_cpuless_node0(NR_CPUS - 1);
	map_arena();
	log = numa_init_captured();
	KUNIT_EXPECT_NOT_NULL(test, strstr(log,
		"numa: the SRAT names no node for cpu7 (APIC id 7): it joins node 1\n"));
	KUNIT_EXPECT_NULL(test, strstr(log, "for cpu6"));
	KUNIT_EXPECT_EQ(test, cpu_to_node(7), 1);
	KUNIT_EXPECT_EQ(test, cpu_to_mem(7), 1);
	KUNIT_EXPECT_EQ(test, percpu_areas[7].numa_node, 1);
	KUNIT_EXPECT_EQ(test, percpu_areas[7].numa_mem, 1);
}

static struct kunit_case numa_topology_cases[] = {
	KUNIT_CASE(two_nodes_accepted),
	KUNIT_CASE(slit_distances_used),
	KUNIT_CASE(four_nodes_by_distance),
	KUNIT_CASE(uncovered_ram_refused),
	KUNIT_CASE(too_many_nodes_refused),
	KUNIT_CASE(numa_off_gives_one_node),
	KUNIT_CASE(memoryless_node),
	KUNIT_CASE(cpuless_node),
	KUNIT_CASE(unnamed_cpu_joins_first_cpu_node),
	{}
};

static struct kunit_suite numa_topology_suite = {
	.name = "numa_topology",
	.exit = numa_case_exit,
	.test_cases = numa_topology_cases,
};
kunit_test_suite(numa_topology_suite);

/* ---- pages ---- */

/* Every page of node nid, order 0, with __GFP_THISNODE; how many. */
static unsigned long exhaust_node(int nid, unsigned long first)
{
	unsigned long n = first;
	struct page *p;

	while (n < ARRAY_SIZE(held_pages) &&
	       (p = alloc_pages_node(nid, GFP_KERNEL | __GFP_THISNODE |
					  __GFP_NOWARN, 0)))
		held_pages[n++] = p;
	return n - first;
}

static void release_pages(unsigned long n)
{
	while (n)
		__free_pages(held_pages[--n], 0);
}

static unsigned long stat_of(int nid, enum numa_stat_item item)
{
	return numa_stat_read(NUMA_STAT_PAGES, nid, item);
}

static void pages_come_from_the_node_asked(struct kunit *test)
{
	struct page *p;
	int nid;

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes(test);
	KUNIT_ASSERT_NOT_NULL(test, NODE_DATA(0));
	KUNIT_ASSERT_NOT_NULL(test, NODE_DATA(1));
	for (nid = 0; nid < 2; nid++) {
		unsigned int order;

		for (order = 0; order <= MAX_ORDER; order += 5) {
			p = alloc_pages_node(nid, GFP_KERNEL, order);
			KUNIT_ASSERT_NOT_NULL(test, p);
			KUNIT_EXPECT_EQ(test, page_to_nid(p), nid);
			KUNIT_EXPECT_EQ(test, phys_to_nid(page_to_pfn(p) <<
							  PAGE_SHIFT), nid);
			__free_pages(p, order);
		}
	}
	/* NUMA_NO_NODE: this CPU's node. */
	host_cpu_id = NODE1_CPU;
	p = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(p), 1);
	__free_pages(p, 0);
	p = alloc_pages(GFP_KERNEL, 3);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(p), 1);
	__free_pages(p, 3);
	host_cpu_id = 0;
	p = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(p), 0);
	__free_pages(p, 0);
	/* A node that is not online. */
	KUNIT_EXPECT_NULL(test, alloc_pages_node(2, GFP_KERNEL | __GFP_NOWARN, 0));
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static void exhausted_node_falls_back(struct kunit *test)
{
	unsigned long free0, n1;
	struct page *p;

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes(test);
	drain_all_pages();
	free0 = node_nr_free_pages(0);
	n1 = exhaust_node(1, 0);
	KUNIT_EXPECT_GT(test, n1, 0);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(1), 0);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), free0);
	/* Without __GFP_THISNODE: node 0 serves. */
	p = alloc_pages_node(1, GFP_KERNEL | __GFP_NOWARN, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(p), 0);
	__free_pages(p, 0);
	host_cpu_id = NODE1_CPU;
	p = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL | __GFP_NOWARN, 2);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(p), 0);
	__free_pages(p, 2);
	/* With it: none. */
	KUNIT_EXPECT_NULL(test, alloc_pages_node(1, GFP_KERNEL |
						  __GFP_THISNODE | __GFP_NOWARN, 0));
	KUNIT_EXPECT_NULL(test, alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL |
						  __GFP_THISNODE | __GFP_NOWARN, 0));
	/* The any-context allocation prefers node 1 but takes node 0's. */
	p = try_alloc_pages(1, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(p), 0);
	free_pages_nolock(p, 0);
	p = try_alloc_pages(NUMA_NO_NODE, 1);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(p), 0);
	free_pages_nolock(p, 1);
	KUNIT_EXPECT_NULL(test, __try_alloc_pages(1, __GFP_THISNODE, 0, NULL));
	host_cpu_id = 0;
	release_pages(n1);
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(1), n1);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), free0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * numastat after a known sequence, node 1 exhausted first (its pages then
 * counted away by numa_stat_reset()):
 *   cpu0 (node 0)  node 0, order 0            node 0 hit 1, local 1
 *   cpu0           node 1, order 0            node 0 miss 1, local 1;
 *                                             node 1 foreign 1
 *   cpu4 (node 1)  NUMA_NO_NODE, order 2      node 0 miss 4, other 4;
 *                                             node 1 foreign 4
 *   cpu4           node 0, order 0            node 0 hit 1, other 1
 *   cpu4           node 1, __GFP_THISNODE     nothing (NULL)
 */
static void numastat_counts_pages(struct kunit *test)
{
	struct page *a, *b, *c, *d;
	unsigned long n1;
	int nid;

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes(test);
	n1 = exhaust_node(1, 0);
	numa_stat_reset();
	a = alloc_pages_node(0, GFP_KERNEL, 0);
	b = alloc_pages_node(1, GFP_KERNEL | __GFP_NOWARN, 0);
	host_cpu_id = NODE1_CPU;
	c = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL | __GFP_NOWARN, 2);
	d = alloc_pages_node(0, GFP_KERNEL, 0);
	KUNIT_EXPECT_NULL(test, alloc_pages_node(1, GFP_KERNEL |
						  __GFP_THISNODE | __GFP_NOWARN, 0));
	host_cpu_id = 0;
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_ASSERT_NOT_NULL(test, d);
	KUNIT_EXPECT_EQ(test, stat_of(0, NUMA_HIT), 2);
	KUNIT_EXPECT_EQ(test, stat_of(0, NUMA_MISS), 5);
	KUNIT_EXPECT_EQ(test, stat_of(0, NUMA_FOREIGN), 0);
	KUNIT_EXPECT_EQ(test, stat_of(0, NUMA_LOCAL), 2);
	KUNIT_EXPECT_EQ(test, stat_of(0, NUMA_OTHER), 5);
	KUNIT_EXPECT_EQ(test, stat_of(1, NUMA_HIT), 0);
	KUNIT_EXPECT_EQ(test, stat_of(1, NUMA_MISS), 0);
	KUNIT_EXPECT_EQ(test, stat_of(1, NUMA_FOREIGN), 5);
	KUNIT_EXPECT_EQ(test, stat_of(1, NUMA_LOCAL), 0);
	KUNIT_EXPECT_EQ(test, stat_of(1, NUMA_OTHER), 0);
	/* Frees count nothing; the objects' counters are untouched. */
	__free_pages(a, 0);
	__free_pages(b, 0);
	__free_pages(c, 2);
	__free_pages(d, 0);
	release_pages(n1);
	for (nid = 0; nid < 2; nid++) {
		KUNIT_EXPECT_EQ(test, stat_of(nid, NUMA_HIT) +
				      stat_of(nid, NUMA_MISS),
				stat_of(nid, NUMA_LOCAL) +
				stat_of(nid, NUMA_OTHER));
		KUNIT_EXPECT_EQ(test, numa_stat_read(NUMA_STAT_OBJECTS, nid,
						     NUMA_HIT), 0);
	}
	KUNIT_EXPECT_EQ(test, stat_of(0, NUMA_HIT), 2);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/* A memoryless node's requests go to its nearest node with memory. */
static void memoryless_node_served_by_nearest(struct kunit *test)
{
	struct page *p;

	fw_memoryless_node();
	boot_nodes(test);
	numa_stat_reset();
	p = alloc_pages_node(2, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(p), 1);
	__free_pages(p, 0);
	KUNIT_EXPECT_EQ(test, stat_of(1, NUMA_MISS), 1);
	KUNIT_EXPECT_EQ(test, stat_of(2, NUMA_FOREIGN), 1);
	KUNIT_EXPECT_NULL(test, alloc_pages_node(2, GFP_KERNEL |
						  __GFP_THISNODE | __GFP_NOWARN, 0));
	host_cpu_id = 6;
	p = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(p), 1);
	__free_pages(p, 1);
	p = try_alloc_pages(NUMA_NO_NODE, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, page_to_nid(p), 1);
	free_pages_nolock(p, 0);
	/* Node 1 exhausted: the next nearest, node 0. */
	{
		unsigned long n1 = exhaust_node(1, 0);

		p = alloc_pages_node(NUMA_NO_NODE, GFP_KERNEL | __GFP_NOWARN, 0);
		KUNIT_ASSERT_NOT_NULL(test, p);
		KUNIT_EXPECT_EQ(test, page_to_nid(p), 0);
		__free_pages(p, 0);
		host_cpu_id = 0;
		release_pages(n1);
	}
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * [24, 28) MiB is one MAX_ORDER block by frame numbers, but node 0 holds
 * [16, 26) and [32, 48) and node 1 [26, 32) in between: [24, 26) is an
 * order-9 block of node 0 and [26, 28) one of node 1, buddies by their
 * frame numbers but never one block.  (Each node's memmap sits at the top
 * of its last range, [44, 48) and [31, 32) MiB, away from the boundary.)
 */
#define MERGE_BOUNDARY (26 * MiB)
#define HALF_ORDER (MAX_ORDER - 1)

static bool free_block_of_order(unsigned long pfn, unsigned int order)
{
	const struct page *p = pfn_to_page(pfn);

	return (p->flags & PG_buddy) && p->order == order;
}

static void expect_halves_apart(struct kunit *test)
{
	unsigned long half = 1ul << HALF_ORDER;
	unsigned long pfn = MERGE_BOUNDARY >> PAGE_SHIFT;

	KUNIT_EXPECT_TRUE(test, free_block_of_order(pfn - half, HALF_ORDER));
	KUNIT_EXPECT_TRUE(test, free_block_of_order(pfn, HALF_ORDER));
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static void buddy_never_merges_across_nodes(struct kunit *test)
{
	unsigned long pfn = MERGE_BOUNDARY >> PAGE_SHIFT;
	unsigned long free0, free1, n0, n1;
	struct page *p;

	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, MERGE_BOUNDARY, 0);
	fw_memblk(MERGE_BOUNDARY, 32 * MiB, 1);
	fw_memblk(32 * MiB, NUMA_ARENA_END, 0);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	boot_nodes(test);
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, page_to_nid(pfn_to_page(pfn - 1)), 0);
	KUNIT_EXPECT_EQ(test, page_to_nid(pfn_to_page(pfn)), 1);
	expect_halves_apart(test);
	free0 = node_nr_free_pages(0);
	free1 = node_nr_free_pages(1);
	/* Node 1's half, out and back: it must not join node 0's. */
	p = alloc_pages_node(1, GFP_KERNEL | __GFP_THISNODE, HALF_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, p);
	__free_pages(p, HALF_ORDER);
	drain_all_pages();
	expect_halves_apart(test);
	/* Every page of both nodes, out and back, one by one. */
	n0 = exhaust_node(0, 0);
	n1 = exhaust_node(1, n0);
	KUNIT_EXPECT_EQ(test, n0, free0);
	KUNIT_EXPECT_EQ(test, n1, free1);
	release_pages(n0 + n1);
	drain_all_pages();
	expect_halves_apart(test);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0), free0);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(1), free1);
}

/* The frame that holds pfn's struct page (an impossible one if none). */
static phys_addr_t memmap_frame(unsigned long pfn)
{
	phys_addr_t phys;

	return vmemmap_lookup(pfn_to_page(pfn), &phys) ? phys : ~0ull;
}

/*
 * Each node's struct pages sit in that node's memory.  One memmap page
 * holds the struct pages of PAGES_PER_MEMMAP_PAGE frames; where a node
 * boundary cuts one, it lives on the node of its first frame.
 */
#define PAGES_PER_MEMMAP_PAGE (PAGE_SIZE / sizeof(struct page))

static void expect_memmap_on_nodes(struct kunit *test)
{
	unsigned long pfn, bad = 0, first_bad = 0;

	for (pfn = NUMA_ARENA_BASE >> PAGE_SHIFT;
	     pfn < NUMA_ARENA_END >> PAGE_SHIFT; pfn++) {
		unsigned long head = ALIGN_DOWN(pfn, PAGES_PER_MEMMAP_PAGE);
		int want = page_to_nid(pfn_to_page(
			max(head, (unsigned long)(NUMA_ARENA_BASE >> PAGE_SHIFT))));

		if (phys_to_nid(memmap_frame(pfn)) != want && !bad++)
			first_bad = pfn;
	}
	if (bad)
		kunit_info(test, "%lu frames' struct pages on the wrong node, the first pfn %#lx (node %d) on node %d",
			   bad, first_bad, page_to_nid(pfn_to_page(first_bad)),
			   phys_to_nid(memmap_frame(first_bad)));
	KUNIT_EXPECT_EQ(test, bad, 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static void memmap_per_node(struct kunit *test)
{
	fw_two_nodes(NUMA_SPLIT);
	boot_nodes(test);
	expect_memmap_on_nodes(test);
}

/* A boundary inside one memmap page (128 KiB past 30 MiB), and a node
 * whose ranges are split by the other's. */
static void memmap_per_node_odd_boundaries(struct kunit *test)
{
	fw_two_nodes(NUMA_ODD_SPLIT + 128 * 1024);
	boot_nodes(test);
	expect_memmap_on_nodes(test);
	arena_exit(&test_arena);

	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, 24 * MiB, 0);
	fw_memblk(24 * MiB, 32 * MiB, 1);
	fw_memblk(32 * MiB, NUMA_ARENA_END, 0);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	boot_nodes(test);
	expect_memmap_on_nodes(test);
}

static struct kunit_case numa_pages_cases[] = {
	KUNIT_CASE(pages_come_from_the_node_asked),
	KUNIT_CASE(exhausted_node_falls_back),
	KUNIT_CASE(numastat_counts_pages),
	KUNIT_CASE(memoryless_node_served_by_nearest),
	KUNIT_CASE(buddy_never_merges_across_nodes),
	KUNIT_CASE(memmap_per_node),
	KUNIT_CASE(memmap_per_node_odd_boundaries),
	{}
};

static struct kunit_suite numa_pages_suite = {
	.name = "numa_pages",
	.exit = numa_case_exit,
	.test_cases = numa_pages_cases,
};
kunit_test_suite(numa_pages_suite);

/* ---- slab ---- */

static int obj_nid(const void *object)
{
	return page_to_nid(virt_to_page(object));
}

static struct kmem_cache *numa_cache(struct kunit *test)
{
	struct kmem_cache *s = kmem_cache_create("numa_test", 128, 0, 0, NULL);

	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_TRUE(test, cache_has_sheaves(s));
	return s;
}

static void slabs_on_the_allocating_cpus_node(struct kunit *test)
{
	struct kmem_cache *s;
	void *a, *b;

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes_slab(test, SLAB_NUMA_LINUX);
	s = numa_cache(test);
	a = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_EXPECT_EQ(test, obj_nid(a), 0);
	host_cpu_id = NODE1_CPU;
	b = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b);
	KUNIT_EXPECT_EQ(test, obj_nid(b), 1);
	/* A sheaf's refill may take more than one slab, each on its node. */
	KUNIT_EXPECT_GT(test, get_node(s, 0)->nr_slabs, 0);
	KUNIT_EXPECT_GT(test, get_node(s, 1)->nr_slabs, 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	kmem_cache_free(s, b);
	host_cpu_id = 0;
	kmem_cache_free(s, a);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * An object of node `from`'s CPU freed on a CPU of the other node.  LINUX:
 * it skips that CPU's sheaves, back to its slab (FREE_SLOWPATH), and the
 * CPU's next allocation is local.  BLIND: it stays in the CPU's sheaf and
 * is handed out next.  kmem_cache_free() when kmalloc_size is 0, else
 * kfree() of a kmalloc(kmalloc_size) object: its inline fast path decides
 * by the page's flags (slab_fast_free_cache()).
 */
static void *numa_alloc(struct kmem_cache *s, size_t kmalloc_size)
{
	return kmalloc_size ? kmalloc(kmalloc_size, GFP_KERNEL) :
			      kmem_cache_alloc(s, GFP_KERNEL);
}

static void numa_free(struct kmem_cache *s, size_t kmalloc_size, void *p)
{
	if (kmalloc_size)
		kfree(p);
	else
		kmem_cache_free(s, p);
}

static void one_remote_free(struct kunit *test, enum slab_numa_mode mode,
			    struct kmem_cache *s, size_t kmalloc_size,
			    unsigned int from_cpu, unsigned int to_cpu)
{
	struct kmem_cache *c = kmalloc_size ? kmalloc_slab(kmalloc_size) : s;
	int from = cpu_to_node(from_cpu), to = cpu_to_node(to_cpu);
	unsigned long slow, inuse;
	void *p, *q, *w;

	host_cpu_id = from_cpu;
	p = numa_alloc(s, kmalloc_size);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, obj_nid(p), from);
	host_cpu_id = to_cpu;
	/* The freeing CPU gets a sheaf with room, so the fast path could. */
	w = numa_alloc(s, kmalloc_size);
	KUNIT_ASSERT_NOT_NULL(test, w);
	KUNIT_EXPECT_EQ(test, obj_nid(w), to);
	slow = slab_stat_sum(c, FREE_SLOWPATH);
	inuse = virt_to_slab(p)->inuse;
	numa_free(s, kmalloc_size, p);
	q = numa_alloc(s, kmalloc_size);
	KUNIT_ASSERT_NOT_NULL(test, q);
	if (mode == SLAB_NUMA_BLIND) {
		KUNIT_EXPECT_EQ(test, slab_stat_sum(c, FREE_SLOWPATH), slow);
		KUNIT_EXPECT_EQ(test, virt_to_slab(p)->inuse, inuse);
		KUNIT_EXPECT_PTR_EQ(test, q, p);
	} else {
		KUNIT_EXPECT_EQ(test, slab_stat_sum(c, FREE_SLOWPATH), slow + 1);
		KUNIT_EXPECT_EQ(test, virt_to_slab(p)->inuse, inuse - 1);
		KUNIT_EXPECT_PTR_NE(test, q, p);
		KUNIT_EXPECT_EQ(test, obj_nid(q), to);
	}
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	numa_free(s, kmalloc_size, q);
	numa_free(s, kmalloc_size, w);
	host_cpu_id = 0;
}

static void remote_free(struct kunit *test, enum slab_numa_mode mode)
{
	struct kmem_cache *s;

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes_slab(test, mode);
	s = numa_cache(test);
	one_remote_free(test, mode, s, 0, 0, NODE1_CPU);
	one_remote_free(test, mode, s, 0, NODE1_CPU + 1, 1);
	one_remote_free(test, mode, s, 96, 0, NODE1_CPU);
	one_remote_free(test, mode, s, 96, NODE1_CPU + 1, 1);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

static void linux_remote_free_skips_sheaves(struct kunit *test)
{
	remote_free(test, SLAB_NUMA_LINUX);
}

static void blind_remote_free_is_reused(struct kunit *test)
{
	remote_free(test, SLAB_NUMA_BLIND);
}

/*
 * A CPU of node 1 fills and empties its sheaves: the sheaves it trades go
 * to node 1's barn, never node 0's.  Strict, so N2 checks the barn too.
 */
static void sheaves_go_to_the_cpus_barn(struct kunit *test)
{
	struct kmem_cache *s;
	unsigned int i, n;

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes_slab(test, SLAB_NUMA_STRICT);
	s = numa_cache(test);
	n = 6 * s->sheaf_capacity;
	KUNIT_ASSERT_LE(test, n, MANY_OBJECTS);
	host_cpu_id = NODE1_CPU;
	for (i = 0; i < n; i++) {
		held_objects[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, held_objects[i]);
		KUNIT_EXPECT_EQ(test, obj_nid(held_objects[i]), 1);
	}
	for (i = 0; i < n; i++)
		kmem_cache_free(s, held_objects[i]);
	KUNIT_EXPECT_GT(test, get_node(s, 1)->barn.nr_full, 0);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->barn.nr_full, 0);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->barn.nr_empty, 0);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_slabs, 0);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	/* A CPU of node 0 never gets node 1's sheaves. */
	host_cpu_id = 0;
	for (i = 0; i < n; i++) {
		held_objects[i] = kmem_cache_alloc(s, GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, held_objects[i]);
		KUNIT_EXPECT_EQ(test, obj_nid(held_objects[i]), 0);
	}
	for (i = 0; i < n; i++)
		kmem_cache_free(s, held_objects[i]);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
}

/*
 * Node 0 out of pages.  STRICT: a CPU of node 0 gets what node 0's slabs
 * still hold, then NULL (never a node-1 object), kmalloc_nolock()
 * included; LINUX: node 1 serves.  __GFP_THISNODE is strict in any mode.
 */
static void strict_fails_where_linux_falls_back(struct kunit *test)
{
	struct kmem_cache *s, *fresh;
	unsigned long n0, got = 0, i;
	void *a, *b, *p;

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes_slab(test, SLAB_NUMA_STRICT);
	s = numa_cache(test);
	fresh = kmem_cache_create("numa_fresh", 256, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, fresh);
	a = kmem_cache_alloc(s, GFP_KERNEL);          /* a node-0 slab */
	host_cpu_id = NODE1_CPU;
	b = kmem_cache_alloc(s, GFP_KERNEL);          /* a node-1 slab */
	host_cpu_id = 0;
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	n0 = exhaust_node(0, 0);

	while (got < MANY_OBJECTS &&
	       (p = kmem_cache_alloc(s, GFP_KERNEL | __GFP_NOWARN))) {
		held_objects[got++] = p;
		KUNIT_EXPECT_EQ(test, obj_nid(p), 0);
	}
	KUNIT_EXPECT_LT(test, got, MANY_OBJECTS);
	KUNIT_EXPECT_NULL(test, kmem_cache_alloc_node(s, GFP_KERNEL, 0));
	KUNIT_EXPECT_NULL(test, kmem_cache_alloc(fresh, GFP_KERNEL));
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	for (i = 0; i < got; i++)
		kmem_cache_free(s, held_objects[i]);
	/* kmalloc_nolock(): what node 0 still has, then NULL. */
	got = 0;
	while (got < MANY_OBJECTS &&
	       (p = kmalloc_nolock(64, 0, NUMA_NO_NODE))) {
		held_objects[got++] = p;
		KUNIT_EXPECT_EQ(test, obj_nid(p), 0);
	}
	KUNIT_EXPECT_LT(test, got, MANY_OBJECTS);
	KUNIT_EXPECT_NULL(test, kmalloc_nolock(64, 0, 0));
	for (i = 0; i < got; i++)
		kfree(held_objects[i]);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	/* LINUX: node 1 serves, but not with __GFP_THISNODE. */
	slab_set_numa_mode(SLAB_NUMA_LINUX);
	KUNIT_EXPECT_NULL(test, kmem_cache_alloc_node(fresh, GFP_KERNEL |
						      __GFP_THISNODE, 0));
	KUNIT_EXPECT_NULL(test, kmalloc_nolock(64, __GFP_THISNODE, 0));
	p = kmem_cache_alloc(fresh, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, obj_nid(p), 1);
	/* This CPU's sheaf now holds node 1's objects: a request bound to
	 * node 0 must not take its top (alloc_from_pcs_node()). */
	KUNIT_EXPECT_NULL(test, kmem_cache_alloc_node(fresh, GFP_KERNEL |
						      __GFP_THISNODE, 0));
	kmem_cache_free(fresh, p);
	p = kmem_cache_alloc_node(fresh, GFP_KERNEL, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, obj_nid(p), 1);
	kmem_cache_free(fresh, p);
	p = kmalloc_nolock(64, 0, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, obj_nid(p), 1);
	kfree(p);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);

	release_pages(n0);
	kmem_cache_free(s, a);
	kmem_cache_free(s, b);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(fresh), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/* kmalloc_node(n), kmem_cache_alloc_node(n), kmalloc_nolock(., ., n) from
 * either node's CPU, in and out of an NMI: objects of node n. */
static void node_calls_give_that_node(struct kunit *test,
				      enum slab_numa_mode mode)
{
	static const unsigned int cpus[] = { 0, NODE1_CPU };
	struct kmem_cache *s;
	unsigned int c, round;
	int nid;

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes_slab(test, mode);
	s = numa_cache(test);
	for (round = 0; round < 2; round++)
	for (c = 0; c < ARRAY_SIZE(cpus); c++)
	for (nid = 0; nid < 2; nid++) {
		void *k, *m, *n, *z;

		host_cpu_id = cpus[c];
		k = kmalloc_node(200, GFP_KERNEL, nid);
		m = kmem_cache_alloc_node(s, GFP_KERNEL, nid);
		n = kmalloc_nolock(40, 0, nid);
		host_nmi_nesting = 1;
		z = kmalloc_nolock(40, __GFP_ZERO, nid);
		host_nmi_nesting = 0;
		KUNIT_ASSERT_NOT_NULL(test, k);
		KUNIT_ASSERT_NOT_NULL(test, m);
		KUNIT_ASSERT_NOT_NULL(test, n);
		KUNIT_ASSERT_NOT_NULL(test, z);
		KUNIT_EXPECT_EQ(test, obj_nid(k), nid);
		KUNIT_EXPECT_EQ(test, obj_nid(m), nid);
		KUNIT_EXPECT_EQ(test, obj_nid(n), nid);
		KUNIT_EXPECT_EQ(test, obj_nid(z), nid);
		KUNIT_EXPECT_EQ(test, *(u64 *)z, 0);
		/* Freed on the other node's CPU half of the time. */
		host_cpu_id = cpus[(c + round) % ARRAY_SIZE(cpus)];
		kfree(k);
		kmem_cache_free(s, m);
		kfree(n);
		host_nmi_nesting = 1;
		kfree_nolock(z);
		host_nmi_nesting = 0;
		KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	}
	host_cpu_id = 0;
	/* Nodes that are not online: NULL (and a line saying so). */
	KUNIT_EXPECT_NULL(test, kmalloc_node(64, GFP_KERNEL, 2));
	KUNIT_EXPECT_NULL(test, kmem_cache_alloc_node(s, GFP_KERNEL,
						      MAX_NUMNODES - 1));
	KUNIT_EXPECT_NULL(test, kmalloc_nolock(64, 0, 2));
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static void node_calls_linux(struct kunit *test)
{
	node_calls_give_that_node(test, SLAB_NUMA_LINUX);
}

static void node_calls_strict(struct kunit *test)
{
	node_calls_give_that_node(test, SLAB_NUMA_STRICT);
}

/* A cache with slabs on both nodes, partial and full, and objects in
 * sheaves of CPUs of both nodes, all freed, then destroyed. */
static void destroy_with_slabs_on_both_nodes(struct kunit *test)
{
	struct kmem_cache *s;
	unsigned int i, n;

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes_slab(test, SLAB_NUMA_LINUX);
	s = numa_cache(test);
	n = 3 * s->sheaf_capacity;
	KUNIT_ASSERT_LE(test, 2 * n, MANY_OBJECTS);
	for (i = 0; i < 2 * n; i++) {
		host_cpu_id = i < n ? 0 : NODE1_CPU;
		held_objects[i] = i % 3 ? kmem_cache_alloc(s, GFP_KERNEL) :
			kmem_cache_alloc_node(s, GFP_KERNEL, (int)(i & 1));
		KUNIT_ASSERT_NOT_NULL(test, held_objects[i]);
	}
	KUNIT_EXPECT_GT(test, get_node(s, 0)->nr_slabs, 0);
	KUNIT_EXPECT_GT(test, get_node(s, 1)->nr_slabs, 0);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	for (i = 0; i < 2 * n; i++) {
		host_cpu_id = i % 2 ? 0 : NODE1_CPU;
		kmem_cache_free(s, held_objects[i]);
	}
	host_cpu_id = 0;
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * SLUB's per-CPU slabs (mm/cpu_slab.c) on two nodes: each CPU freezes
 * slabs of its own memory node, counted in that node's nr_frozen; a
 * request for the other node is no business of the CPU slab (the
 * ordinary path: that node's slab, never frozen, this CPU's line as it
 * was); a CPU of node 1 freeing an object of node 0's frozen slab pushes
 * it onto that slab (FREE_FROZEN, no lock); a free to the unfrozen node-1
 * slab takes that node's list_lock; a shrink unfreezes every slab onto
 * its own node's lists.
 */
static void cpu_slab_keeps_to_its_node(struct kunit *test)
{
	struct kmem_cache_args args = { .mode = SLAB_MODE_CPU_SLAB };
	unsigned long tid, frozen, slow;
	struct kmem_cache *s;
	struct page *slab0;
	void *p0, *p1, *q;

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes_slab(test, SLAB_NUMA_LINUX);
	s = kmem_cache_create_args("numa_cpu_slab", 128, &args, 0);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_TRUE(test, cache_has_cpu_slab(s));

	host_cpu_id = 0;
	p0 = kmem_cache_alloc(s, GFP_KERNEL);
	host_cpu_id = NODE1_CPU;
	p1 = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p0);
	KUNIT_ASSERT_NOT_NULL(test, p1);
	KUNIT_EXPECT_EQ(test, obj_nid(p0), 0);
	KUNIT_EXPECT_EQ(test, obj_nid(p1), 1);
	slab0 = s->cpu_slab[0].slab;
	KUNIT_EXPECT_PTR_EQ(test, slab0, virt_to_slab(p0));
	KUNIT_EXPECT_PTR_EQ(test, s->cpu_slab[NODE1_CPU].slab,
			    virt_to_slab(p1));
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_frozen, 1);
	KUNIT_EXPECT_EQ(test, get_node(s, 1)->nr_frozen, 1);

	/* cpu0 asks for node 1: that node's ordinary path. */
	host_cpu_id = 0;
	tid = s->cpu_slab[0].tid;
	q = kmem_cache_alloc_node(s, GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_EXPECT_EQ(test, obj_nid(q), 1);
	KUNIT_EXPECT_EQ(test, virt_to_slab(q)->frozen, 0);
	KUNIT_EXPECT_PTR_EQ(test, s->cpu_slab[0].slab, slab0);
	KUNIT_EXPECT_EQ(test, s->cpu_slab[0].tid, tid);
	KUNIT_EXPECT_EQ(test, get_node(s, 1)->nr_frozen, 1);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);

	/* Node 1's CPU frees to node 0's frozen slab: pushed, no lock. */
	frozen = slab_stat_sum(s, FREE_FROZEN);
	host_cpu_id = NODE1_CPU;
	kmem_cache_free(s, p0);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(s, FREE_FROZEN), frozen + 1);
	KUNIT_EXPECT_EQ(test, slab0->frozen, 1);
	KUNIT_EXPECT_EQ(test, slab0->inuse, slab0->objects - 1);
	/* cpu0 frees q, of node 1's unfrozen slab: under its list_lock. */
	host_cpu_id = 0;
	slow = slab_stat_sum(s, FREE_SLOWPATH);
	kmem_cache_free(s, q);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(s, FREE_SLOWPATH), slow + 1);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);

	kmem_cache_shrink(s);
	KUNIT_EXPECT_EQ(test, get_node(s, 0)->nr_frozen, 0);
	KUNIT_EXPECT_EQ(test, get_node(s, 1)->nr_frozen, 0);
	KUNIT_EXPECT_NULL(test, s->cpu_slab[0].slab);
	KUNIT_EXPECT_NULL(test, s->cpu_slab[NODE1_CPU].slab);
	KUNIT_EXPECT_EQ(test, slab_cache_check(s), 0);
	host_cpu_id = NODE1_CPU;
	kmem_cache_free(s, p1);
	host_cpu_id = 0;
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/* A memoryless node's CPU: its objects come from node 1, and they count
 * as local for its sheaves (no slow free). */
static void memoryless_cpu_uses_nearest_slabs(struct kunit *test)
{
	struct kmem_cache *s;
	unsigned long slow;
	void *p;

	fw_memoryless_node();
	boot_nodes_slab(test, SLAB_NUMA_STRICT);
	s = numa_cache(test);
	host_cpu_id = 6;
	p = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, obj_nid(p), 1);
	slow = slab_stat_sum(s, FREE_SLOWPATH);
	kmem_cache_free(s, p);
	KUNIT_EXPECT_EQ(test, slab_stat_sum(s, FREE_SLOWPATH), slow);
	p = kmalloc(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, obj_nid(p), 1);
	kfree(p);
	/* Node 2 itself has no memory: strict gives nothing. */
	KUNIT_EXPECT_NULL(test, kmem_cache_alloc_node(s, GFP_KERNEL, 2));
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	slab_set_numa_mode(SLAB_NUMA_LINUX);
	p = kmem_cache_alloc_node(s, GFP_KERNEL, 2);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, obj_nid(p), 1);
	kmem_cache_free(s, p);
	host_cpu_id = 0;
	KUNIT_EXPECT_EQ(test, kmem_cache_destroy(s), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static struct kunit_case numa_slab_cases[] = {
	KUNIT_CASE(slabs_on_the_allocating_cpus_node),
	KUNIT_CASE(linux_remote_free_skips_sheaves),
	KUNIT_CASE(blind_remote_free_is_reused),
	KUNIT_CASE(sheaves_go_to_the_cpus_barn),
	KUNIT_CASE(strict_fails_where_linux_falls_back),
	KUNIT_CASE(node_calls_linux),
	KUNIT_CASE(node_calls_strict),
	KUNIT_CASE(destroy_with_slabs_on_both_nodes),
	KUNIT_CASE(memoryless_cpu_uses_nearest_slabs),
	KUNIT_CASE(cpu_slab_keeps_to_its_node),
	{}
};

static struct kunit_suite numa_slab_suite = {
	.name = "numa_slab",
	.exit = numa_case_exit,
	.test_cases = numa_slab_cases,
};
kunit_test_suite(numa_slab_suite);

/* ====================================================================== */
/* The outside review's reproducers (each states the rule it tried to     */
/* break; they failed before the fixes that followed them)                */
/* ====================================================================== */

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

	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, 24 * MiB, 0);
	fw_memblk(24 * MiB, 32 * MiB, 1);
	fw_memblk(32 * MiB, NUMA_ARENA_END, 0);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	boot_nodes(test);
	KUNIT_ASSERT_EQ(test, nr_node_ids, 2);
	KUNIT_ASSERT_NOT_NULL(test, NODE_DATA(1));
	/* The buddy itself: node 1's pages only from node 1. */
	while (n < ARENA_PAGES &&
	       (page = alloc_pages_node(1, GFP_KERNEL | __GFP_THISNODE |
					       __GFP_NOWARN, 0))) {
		KUNIT_EXPECT_EQ(test, page_to_nid(page), 1);
		held_pages[n++] = page;
	}
	KUNIT_EXPECT_GT(test, n, 0);
	for (i = 0; i < n; i++)
		__free_pages(held_pages[i], 0);
	drain_all_pages();
	/* The checker on a clean machine. */
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/* ---- a mode switch while a free is between its check and its push ---- */

static struct kmem_cache *switch_cache;
static enum slab_numa_mode switch_to;
static bool switched;

/*
 * Plays the IPI of slab_set_numa_mode() run by another CPU, landing where
 * free_to_pcs_slow() has dropped the sheaf lock (IRQs on there).
 */
static void switch_hook(enum mm_point point, void *arg)
{
	if (point != MM_POINT_SHEAF_FREE_UNLOCKED || arg != switch_cache ||
	    switched)
		return;
	switched = true;
	mm_point_hook = NULL;
	slab_set_numa_mode(switch_to);
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

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes_slab(test, SLAB_NUMA_BLIND);
	s = kmem_cache_create("numa_switch", 128, 0, 0, NULL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_TRUE(test, cache_has_sheaves(s));

	p = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_ASSERT_EQ(test, obj_nid(p), 0);

	switch_cache = s;
	switch_to = to;
	switched = false;
	host_cpu_id = NODE1_CPU;
	mm_point_hook = switch_hook;
	kmem_cache_free(s, p);
	mm_point_hook = NULL;
	KUNIT_ASSERT_TRUE(test, switched);
	KUNIT_ASSERT_EQ(test, (int)slab_numa_mode, (int)to);

	pcs = &s->cpu_sheaves[NODE1_CPU];
	for (i = 0; i < pcs->main->size; i++)
		if (pcs->main->objects[i] == p)
			in_sheaf = true;
	if (in_sheaf)
		KUNIT_FAIL(test, "node-0 object %p in cpu%u's sheaf after the switch to %s",
			   p, NODE1_CPU, slab_numa_mode_names[to]);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
	q = kmem_cache_alloc(s, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, q);
	if (to == SLAB_NUMA_STRICT && obj_nid(q) != 1)
		KUNIT_FAIL(test, "strict mode handed cpu%u a node-%d object",
			   NODE1_CPU, obj_nid(q));
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

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes_slab(test, SLAB_NUMA_STRICT);
	while (n < ARENA_PAGES &&
	       (page = alloc_pages_node(1, GFP_KERNEL | __GFP_THISNODE |
					__GFP_NOWARN, 0)))
		held_pages[n++] = page;
	KUNIT_ASSERT_GT(test, n, 0);
	host_cpu_id = NODE1_CPU;
	a = kmalloc(4 * KMALLOC_MAX_CACHE_SIZE, GFP_KERNEL | __GFP_NOWARN);
	if (a && obj_nid(a) != 1)
		KUNIT_FAIL(test, "strict: kmalloc(%lu) on cpu%u (node 1, out of memory) gave node-%d memory",
			   (unsigned long)(4 * KMALLOC_MAX_CACHE_SIZE),
			   NODE1_CPU, obj_nid(a));
	b = kmalloc_node(4 * KMALLOC_MAX_CACHE_SIZE, GFP_KERNEL | __GFP_NOWARN,
			 1);
	if (b && obj_nid(b) != 1)
		KUNIT_FAIL(test, "strict: kmalloc_node(%lu, 1) gave node-%d memory",
			   (unsigned long)(4 * KMALLOC_MAX_CACHE_SIZE),
			   obj_nid(b));
	kfree(a);
	kfree(b);
	host_cpu_id = 0;
	for (i = 0; i < n; i++)
		__free_pages(held_pages[i], 0);
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

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes_slab(test, SLAB_NUMA_BLIND);
	/* Fill CPU 0's kmalloc-64 sheaf with node-0 objects. */
	warm = kmalloc(64, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, warm);
	KUNIT_ASSERT_EQ(test, obj_nid(warm), 0);
	kfree(warm);

	a = kmalloc_node(64, GFP_KERNEL | __GFP_THISNODE, 1);
	if (a && obj_nid(a) != 1)
		KUNIT_FAIL(test, "blind: kmalloc_node(64, __GFP_THISNODE, 1) gave a node-%d object",
			   obj_nid(a));
	b = kmalloc_nolock(64, __GFP_THISNODE, 1);
	if (b && obj_nid(b) != 1)
		KUNIT_FAIL(test, "blind: kmalloc_nolock(64, __GFP_THISNODE, 1) gave a node-%d object",
			   obj_nid(b));
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
	.exit = numa_case_exit,
	.test_cases = numa_review_cases,
};
kunit_test_suite(numa_review_suite);

/* ====================================================================== */
/* memmap_review: an outside review of the per-node memmap (846f237).     */
/* Each case names the rule of the change it tries to break.  Cases that  */
/* fail on 846f237 say so in their comment.                                */
/* ====================================================================== */

#include <errno.h>
#include <sys/mman.h>
#include <sys/wait.h>

/* The arena (NUMA_ARENA_BASE .. NUMA_ARENA_END) with RAM only where the
 * e820 entries say; numa_firmware as the case set it. */
static void mr_boot(struct kunit *test, const struct fw_mmap_entry *map,
		    unsigned int nr)
{
	arena_map_memory(&test_arena, NUMA_ARENA_BASE,
			 NUMA_ARENA_END - NUMA_ARENA_BASE);
	memblock_add_firmware_map(map, nr, NULL);
	KUNIT_ASSERT_TRUE(test, arena_boot(&test_arena));
	nr_cpu_ids = NR_CPUS;
	host_cpu_id = 0;
}

/* Is frame pfn RAM (in memblock.memory)? */
static bool mr_ram(unsigned long pfn)
{
	u64 a = (u64)pfn << PAGE_SHIFT;
	unsigned int i;

	for (i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];

		if (a >= r->base && a < r->base + r->size)
			return true;
	}
	return false;
}

/*
 * Rule 1, as the change states it (mm/mm_init.c, the brief): the memmap
 * page of frames [h, h + 64) lives on the node of its first frame with
 * RAM; a page of holes only follows the page before it.  Walks every
 * memmap page of [ALIGN_DOWN(base), ALIGN_UP(end)) and counts pages whose
 * frame is elsewhere (or unmapped).
 */
static unsigned long mr_memmap_pages_off_rule(struct kunit *test)
{
	unsigned long first = ALIGN_DOWN(mem_map_base_pfn, PAGES_PER_MEMMAP_PAGE);
	unsigned long last = ALIGN_UP(mem_map_end_pfn, PAGES_PER_MEMMAP_PAGE);
	unsigned long h, bad = 0;
	int prev = NUMA_NO_NODE;

	for (h = first; h < last; h += PAGES_PER_MEMMAP_PAGE) {
		unsigned long pfn, lo = max(h, mem_map_base_pfn);
		unsigned long hi = min(h + PAGES_PER_MEMMAP_PAGE, mem_map_end_pfn);
		int want = prev, got;

		for (pfn = lo; pfn < hi; pfn++) {
			if (mr_ram(pfn)) {
				want = phys_to_nid((u64)pfn << PAGE_SHIFT);
				break;
			}
		}
		got = phys_to_nid(memmap_frame(lo));
		if (got != want && !bad++)
			kunit_info(test, "memmap page of pfns [%#lx-%#lx): on node %d, the rule says node %d",
				   h, h + PAGES_PER_MEMMAP_PAGE, got, want);
		prev = want;
	}
	if (bad)
		kunit_info(test, "%lu memmap pages off the rule", bad);
	return bad;
}

/*
 * Rule 1, holes only.  [24, 28) MiB is a hole in the e820 map that the
 * SRAT gives to node 2, which has no RAM (a hot-pluggable range, as real
 * SRATs list): the 16 memmap pages of that hole describe holes only, so
 * they must follow the page before them (node 0).  On 846f237 they are
 * asked of node 2 (memmap_page_nid() looks at SRAT ranges, which are not
 * clipped to RAM although numa.c's comment on node_memblk says they are),
 * node 2 has no memory, and memblock_alloc_try_nid() falls back to the
 * highest free memory: node 1, logged as "(its own node is full)".
 * FAILS on 846f237.
 */
static void hole_pages_follow_previous_page(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ NUMA_ARENA_BASE, 8 * MiB, E820_TYPE_RAM },
		{ 28 * MiB, NUMA_ARENA_END - 28 * MiB, E820_TYPE_RAM },
	};

	fw_begin(3);
	fw_memblk(NUMA_ARENA_BASE, 24 * MiB, 0);
	fw_memblk(24 * MiB, 28 * MiB, 2);
	fw_memblk(28 * MiB, NUMA_ARENA_END, 1);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	mr_boot(test, map, ARRAY_SIZE(map));
	KUNIT_ASSERT_EQ(test, nr_node_ids, 3);
	KUNIT_EXPECT_FALSE(test, node_state(2, NODE_MEMORY));
	KUNIT_EXPECT_EQ(test, phys_to_nid(memmap_frame((24 * MiB) >> PAGE_SHIFT)),
			0);
	KUNIT_EXPECT_EQ(test, mr_memmap_pages_off_rule(test), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * Rule 1, the same with two nodes: node 1's SRAT range begins at 24 MiB,
 * its RAM at 28 MiB.  The hole's memmap pages must follow node 0's last
 * page; on 846f237 they go to node 1 (the SRAT range).  FAILS on 846f237.
 */
static void hole_pages_follow_previous_page_two_nodes(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ NUMA_ARENA_BASE, 8 * MiB, E820_TYPE_RAM },
		{ 28 * MiB, NUMA_ARENA_END - 28 * MiB, E820_TYPE_RAM },
	};

	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, 24 * MiB, 0);
	fw_memblk(24 * MiB, NUMA_ARENA_END, 1);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	mr_boot(test, map, ARRAY_SIZE(map));
	KUNIT_EXPECT_EQ(test, mr_memmap_pages_off_rule(test), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * Rule 1, a cut page.  Node 0's SRAT range ends 128 KiB past 26 MiB, but
 * its RAM ends at 26 MiB (the last 128 KiB are e820-reserved, as QEMU's
 * top 128 KiB of RAM are); node 1's RAM starts at 26 MiB + 128 KiB.  The
 * memmap page of [26, 26.25) MiB has node 1's frames as its first frames
 * with RAM, so it belongs on node 1; 846f237 puts it on node 0 (the first
 * SRAT range that touches it).  FAILS on 846f237.
 */
static void cut_page_follows_first_ram_frame(struct kunit *test)
{
	const u64 cut = 26 * MiB + 128 * 1024;
	const struct fw_mmap_entry map[] = {
		{ NUMA_ARENA_BASE, 10 * MiB, E820_TYPE_RAM },
		{ 26 * MiB, 128 * 1024, E820_TYPE_RESERVED },
		{ cut, NUMA_ARENA_END - cut, E820_TYPE_RAM },
	};

	fw_two_nodes(cut);
	mr_boot(test, map, ARRAY_SIZE(map));
	KUNIT_EXPECT_EQ(test, phys_to_nid(memmap_frame((26 * MiB) >> PAGE_SHIFT)),
			1);
	KUNIT_EXPECT_EQ(test, mr_memmap_pages_off_rule(test), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * Rule 1, a cut page after a gap in the SRAT: no range covers
 * [26, 26.125) MiB (and no RAM is there), node 1 starts at 26.125 MiB.
 * The memmap page of [26, 26.25) MiB has node 1's frames as its first
 * with RAM: node 1.  Passes on 846f237; kills a memmap_page_nid() that
 * looks at the page's first frame only.
 */
static void cut_page_after_srat_gap(struct kunit *test)
{
	const u64 cut = 26 * MiB + 128 * 1024;
	const struct fw_mmap_entry map[] = {
		{ NUMA_ARENA_BASE, 10 * MiB, E820_TYPE_RAM },
		{ cut, NUMA_ARENA_END - cut, E820_TYPE_RAM },
	};

	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, 26 * MiB, 0);
	fw_memblk(cut, NUMA_ARENA_END, 1);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	mr_boot(test, map, ARRAY_SIZE(map));
	KUNIT_EXPECT_EQ(test, phys_to_nid(memmap_frame((26 * MiB) >> PAGE_SHIFT)),
			1);
	KUNIT_EXPECT_EQ(test, mr_memmap_pages_off_rule(test), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * Rule 1, a hole no SRAT range covers, inside node 1: node 1 holds
 * [24, 30) and [31, 48) MiB, [30, 31) MiB is neither RAM nor in the SRAT.
 * Its four memmap pages follow the page before them: node 1 (not the
 * first node).  Passes on 846f237.
 */
static void uncovered_hole_follows_previous_page(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ NUMA_ARENA_BASE, 14 * MiB, E820_TYPE_RAM },
		{ 31 * MiB, NUMA_ARENA_END - 31 * MiB, E820_TYPE_RAM },
	};

	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, 24 * MiB, 0);
	fw_memblk(24 * MiB, 30 * MiB, 1);
	fw_memblk(31 * MiB, NUMA_ARENA_END, 1);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	mr_boot(test, map, ARRAY_SIZE(map));
	KUNIT_EXPECT_EQ(test, phys_to_nid(memmap_frame((30 * MiB) >> PAGE_SHIFT)),
			1);
	KUNIT_EXPECT_EQ(test, mr_memmap_pages_off_rule(test), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * Rule 1's stated exception and rule 2: node 1 has no free memory at all
 * (all reserved), node 0 has; node 1's run comes from node 0 (the one
 * line says "its own node is full"), the boot succeeds, and the free
 * count is exact.  Passes on 846f237; kills a memblock_alloc_try_nid()
 * without its fallback.
 */
static void full_node_memmap_falls_back(struct kunit *test)
{
	u64 free_before;
	const char *log;
	bool ok;

	fw_two_nodes(NUMA_SPLIT);
	map_arena();
	memblock_reserve(NUMA_SPLIT, NUMA_ARENA_END - NUMA_SPLIT);
	free_before = memblock_free_size();
	capture_begin();
	ok = arena_boot(&test_arena);
	log = capture_end();
	KUNIT_ASSERT_TRUE(test, ok);
	nr_cpu_ids = NR_CPUS;
	host_cpu_id = 0;
	KUNIT_EXPECT_NOT_NULL(test, strstr(log,
		"mm: memmap of pfns [0x2000-0x3000): 256 KiB at [mem 0x1f80000-0x1fbffff], node 0 (its own node is full)\n"));
	KUNIT_EXPECT_EQ(test, phys_to_nid(memmap_frame(NUMA_SPLIT >> PAGE_SHIFT)), 0);
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0),
			(free_before - arena_memmap_bytes(NUMA_ARENA_BASE,
							  NUMA_ARENA_END)) >> PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(1), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * Rule 1 without a full node.  Two nodes of 128 MiB, so each run of the
 * memmap is 2 MiB and memmap_populate() asks for it 2 MiB aligned.
 * Node 1's free memory is one piece, [201, 203.5) MiB (the rest is
 * reserved, as an initrd or firmware tables would be): room for its
 * 2 MiB of memmap, but no 2 MiB-aligned room.  Node 1 is not full, so
 * its struct pages belong on node 1 (Linux's vmemmap falls back to base
 * pages on the node, not to another node).  On 846f237 the aligned
 * request fails on node 1 and memblock_alloc_try_nid() takes node 0:
 * "node 0 (its own node is full)".  FAILS on 846f237.
 */
#define MR_BIG_SPLIT (NUMA_ARENA_BASE + 128 * MiB)
#define MR_BIG_END   (NUMA_ARENA_BASE + 256 * MiB)

static void aligned_run_stays_on_its_node(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ NUMA_ARENA_BASE, MR_BIG_END - NUMA_ARENA_BASE, E820_TYPE_RAM },
	};
	const char *log;
	bool ok;

	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, MR_BIG_SPLIT, 0);
	fw_memblk(MR_BIG_SPLIT, MR_BIG_END, 1);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	arena_map_memory(&test_arena, NUMA_ARENA_BASE, MR_BIG_END - NUMA_ARENA_BASE);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	memblock_reserve(MR_BIG_SPLIT, 201 * MiB - MR_BIG_SPLIT);
	memblock_reserve(203 * MiB + 512 * 1024, MR_BIG_END - (203 * MiB + 512 * 1024));
	capture_begin();
	ok = arena_boot(&test_arena);
	log = capture_end();
	KUNIT_ASSERT_TRUE(test, ok);
	nr_cpu_ids = NR_CPUS;
	host_cpu_id = 0;
	KUNIT_EXPECT_NULL(test, strstr(log, "its own node is full"));
	KUNIT_EXPECT_EQ(test, phys_to_nid(memmap_frame(MR_BIG_SPLIT >> PAGE_SHIFT)), 1);
	KUNIT_EXPECT_EQ(test, mr_memmap_pages_off_rule(test), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * A run of at least 2 MiB whose virtual start is 2 MiB-aligned gets a
 * 2 MiB-aligned backing, so the kernel can map it with large pages: node
 * 1 starts at 128 MiB (its struct pages start at vmemmap + 2 MiB) and its
 * run is 2.25 MiB.  (The kernel's memmap_review suite checks the large
 * pages themselves.)
 */
#define MR_ALIGNED_SPLIT (128 * MiB)

static void large_run_backed_2m_aligned(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ NUMA_ARENA_BASE, MR_BIG_END - NUMA_ARENA_BASE, E820_TYPE_RAM },
	};
	unsigned long pfn = MR_ALIGNED_SPLIT >> PAGE_SHIFT;

	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, MR_ALIGNED_SPLIT, 0);
	fw_memblk(MR_ALIGNED_SPLIT, MR_BIG_END, 1);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	arena_map_memory(&test_arena, NUMA_ARENA_BASE,
			 MR_BIG_END - NUMA_ARENA_BASE);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	KUNIT_ASSERT_TRUE(test, arena_boot(&test_arena));
	nr_cpu_ids = NR_CPUS;
	host_cpu_id = 0;
	KUNIT_ASSERT_TRUE(test, IS_ALIGNED((unsigned long)pfn_to_page(pfn),
					   2 * MiB));
	KUNIT_EXPECT_EQ(test, phys_to_nid(memmap_frame(pfn)), 1);
	KUNIT_EXPECT_TRUE(test, IS_ALIGNED(memmap_frame(pfn), 2 * MiB));
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * Rule 1 with node 1 below node 0: node 1 holds [16, 32) MiB, node 0
 * [32, 48) MiB.  Each node's struct pages on that node, and rule 2's
 * exact free count.  Passes on 846f237 (no other case puts a node other
 * than the first memory node at the lowest frames; kills a memmap_alloc()
 * whose first run starts as node_fallback(0)[0]'s).
 */
static void lowest_frames_on_node_1(struct kunit *test)
{
	u64 free_before;

	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, NUMA_SPLIT, 1);
	fw_memblk(NUMA_SPLIT, NUMA_ARENA_END, 0);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	map_arena();
	free_before = memblock_free_size();
	KUNIT_ASSERT_TRUE(test, arena_boot(&test_arena));
	nr_cpu_ids = NR_CPUS;
	host_cpu_id = 0;
	KUNIT_EXPECT_EQ(test, phys_to_nid(memmap_frame(NUMA_ARENA_BASE >> PAGE_SHIFT)), 1);
	KUNIT_EXPECT_EQ(test, mr_memmap_pages_off_rule(test), 0);
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0) + node_nr_free_pages(1),
			(free_before - arena_memmap_bytes(NUMA_ARENA_BASE,
							  NUMA_ARENA_END)) >> PAGE_SHIFT);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * A machine with everything at once: RAM that starts and ends off a memmap
 * page (16 MiB + 12 KiB, 48 MiB - 8 KiB), a hole inside node 0
 * ([22, 23) MiB), node 0 / node 1 / node 0 ranges with the second
 * boundary 64 KiB into a memmap page, and a 100 KiB hole that cuts a
 * memmap page of node 0 at its start.
 */
#define MR_BASE (NUMA_ARENA_BASE + 12 * 1024)
#define MR_END  (NUMA_ARENA_END - 8 * 1024)

static const struct fw_mmap_entry mr_mixed_map[] = {
	{ MR_BASE, 22 * MiB - MR_BASE, E820_TYPE_RAM },
	{ 23 * MiB, 17 * MiB, E820_TYPE_RAM },
	{ 40 * MiB + 100 * 1024, MR_END - (40 * MiB + 100 * 1024), E820_TYPE_RAM },
};

static void mr_boot_mixed(struct kunit *test)
{
	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, 25 * MiB, 0);
	fw_memblk(25 * MiB, 33 * MiB + 64 * 1024, 1);
	fw_memblk(33 * MiB + 64 * 1024, NUMA_ARENA_END, 0);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	mr_boot(test, mr_mixed_map, ARRAY_SIZE(mr_mixed_map));
	KUNIT_ASSERT_EQ(test, mem_map_base_pfn, MR_BASE >> PAGE_SHIFT);
	KUNIT_ASSERT_EQ(test, mem_map_end_pfn, MR_END >> PAGE_SHIFT);
}

/*
 * Rule 3: every frame of [base, end), holes and node boundaries included,
 * has a backed struct page and every translation agrees; the frames just
 * outside are refused.  Also rule 1 on this machine (every page here
 * agrees with the rule: no SRAT range covers a hole that starts a page).
 * Passes on 846f237 (coverage: unaligned base and end, the padding).
 */
static void every_frame_translates(struct kunit *test)
{
	unsigned long pfn, bad = 0;
	phys_addr_t frame;

	mr_boot_mixed(test);
	for (pfn = mem_map_base_pfn; pfn < mem_map_end_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);
		void *addr = phys_to_virt((phys_addr_t)pfn << PAGE_SHIFT);
		bool ok = vmemmap_lookup(page, &frame) &&
			  vmemmap_lookup((char *)page + sizeof(*page) - 1, &frame) &&
			  page_to_pfn(page) == pfn && pfn_valid(pfn) &&
			  page_in_memmap(page) && virt_covered(addr) &&
			  virt_to_page(addr) == page &&
			  virt_to_page_covered((char *)addr + PAGE_SIZE - 1) == page &&
			  (mr_ram(pfn) || (page->flags & PG_reserved));

		if (!ok && !bad++)
			kunit_info(test, "pfn %#lx does not translate", pfn);
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	/* Just outside. */
	KUNIT_EXPECT_FALSE(test, pfn_valid(mem_map_base_pfn - 1));
	KUNIT_EXPECT_FALSE(test, pfn_valid(mem_map_end_pfn));
	KUNIT_EXPECT_FALSE(test, page_in_memmap(pfn_to_page(mem_map_base_pfn) - 1));
	KUNIT_EXPECT_FALSE(test, page_in_memmap(pfn_to_page(mem_map_end_pfn)));
	KUNIT_EXPECT_FALSE(test, virt_covered(phys_to_virt(MR_END)));
	KUNIT_EXPECT_FALSE(test, virt_covered((char *)phys_to_virt(MR_BASE) - 1));
	/* The padding of the first and last memmap pages is backed too. */
	/* (From the first struct page back: pfn_to_page() of a frame below
	 * mem_map_base_pfn would wrap its unsigned offset.) */
	KUNIT_EXPECT_TRUE(test, vmemmap_lookup(pfn_to_page(mem_map_base_pfn) -
		(mem_map_base_pfn - ALIGN_DOWN(mem_map_base_pfn,
					       PAGES_PER_MEMMAP_PAGE)), &frame));
	KUNIT_EXPECT_TRUE(test, vmemmap_lookup(pfn_to_page(ALIGN_UP(
		mem_map_end_pfn, PAGES_PER_MEMMAP_PAGE)) - 1, &frame));
	KUNIT_EXPECT_EQ(test, mr_memmap_pages_off_rule(test), 0);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * Rule 2: every memmap page has its own frame, in RAM, page-aligned,
 * PG_reserved, which the buddy never hands out; and the free count is
 * exactly (RAM - reserved) - memmap.  Passes on 846f237 (coverage: the
 * host hook records frames but nothing checked they were reserved or
 * distinct).
 */
static void memmap_frames_reserved_and_distinct(struct kunit *test)
{
	static unsigned char used[ARENA_PAGES];
	unsigned long first, last, h, bad = 0, n0, n1, i, expect;
	u64 free_before;

	memset(used, 0, sizeof(used));
	fw_begin(2);
	fw_memblk(NUMA_ARENA_BASE, 25 * MiB, 0);
	fw_memblk(25 * MiB, 33 * MiB + 64 * 1024, 1);
	fw_memblk(33 * MiB + 64 * 1024, NUMA_ARENA_END, 0);
	fw_cpus(0, NODE1_CPU - 1, 0);
	fw_cpus(NODE1_CPU, NR_CPUS - 1, 1);
	arena_map_memory(&test_arena, NUMA_ARENA_BASE,
			 NUMA_ARENA_END - NUMA_ARENA_BASE);
	memblock_add_firmware_map(mr_mixed_map, ARRAY_SIZE(mr_mixed_map), NULL);
	free_before = memblock_free_size();
	KUNIT_ASSERT_TRUE(test, arena_boot(&test_arena));
	nr_cpu_ids = NR_CPUS;
	host_cpu_id = 0;

	first = ALIGN_DOWN(mem_map_base_pfn, PAGES_PER_MEMMAP_PAGE);
	last = ALIGN_UP(mem_map_end_pfn, PAGES_PER_MEMMAP_PAGE);
	for (h = first; h < last; h += PAGES_PER_MEMMAP_PAGE) {
		/* The frame behind the memmap page's first byte. */
		phys_addr_t f = memmap_frame(max(h, mem_map_base_pfn));
		unsigned long fpfn;
		bool ok;

		if (f != ~0ull)
			f -= (max(h, mem_map_base_pfn) - h) * sizeof(struct page);
		fpfn = f >> PAGE_SHIFT;
		ok = f != ~0ull && IS_ALIGNED(f, PAGE_SIZE) &&
			  pfn_valid(fpfn) && mr_ram(fpfn) &&
			  (pfn_to_page(fpfn)->flags & PG_reserved);

		if (ok) {
			ok = !used[fpfn - (NUMA_ARENA_BASE >> PAGE_SHIFT)];
			used[fpfn - (NUMA_ARENA_BASE >> PAGE_SHIFT)] = 1;
		}
		if (!ok && !bad++)
			kunit_info(test, "memmap page of pfn %#lx: frame %#llx not its own reserved RAM",
				   h, (unsigned long long)f);
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
	expect = (free_before - arena_memmap_bytes(MR_BASE, MR_END)) >> PAGE_SHIFT;
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0) + node_nr_free_pages(1),
			expect);
	/* Every free page out: none is a memmap frame. */
	n0 = exhaust_node(0, 0);
	n1 = exhaust_node(1, n0);
	KUNIT_EXPECT_EQ(test, n0 + n1, expect);
	for (i = 0, bad = 0; i < n0 + n1; i++)
		if (used[page_to_pfn(held_pages[i]) - (NUMA_ARENA_BASE >> PAGE_SHIFT)])
			bad++;
	KUNIT_EXPECT_EQ(test, bad, 0);
	release_pages(n0 + n1);
	drain_all_pages();
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

/*
 * Rule 6 and rule 5: node 1's run finds no memory anywhere (all but node
 * 0's 256 KiB of memmap is reserved): one line naming the run, a failed
 * mm_init_nodes(), no crash; after the exit hook's mm_exit_nodes() the
 * same program boots a clean machine.  Passes on 846f237.
 */
static void memmap_no_memory_fails_cleanly(struct kunit *test)
{
	static const char line[] =
		"mm: no room for the memmap of pfns [0x2000-0x3000) (256 KiB)\n";
	const char *log, *hit;
	bool ok;

	fw_two_nodes(NUMA_SPLIT);
	map_arena();
	memblock_reserve(NUMA_ARENA_BASE + 256 * 1024,
			 NUMA_ARENA_END - NUMA_ARENA_BASE - 256 * 1024);
	numa_init();
	capture_begin();
	ok = mm_init_nodes(test_arena.pgdat);
	log = capture_end();
	KUNIT_EXPECT_FALSE(test, ok);
	hit = strstr(log, line);
	KUNIT_EXPECT_NOT_NULL(test, hit);
	if (hit)   /* one line, said once */
		KUNIT_EXPECT_NULL(test, strstr(hit + sizeof(line) - 1, "no room"));
	KUNIT_EXPECT_NULL(test, strstr(log, "BUG"));
	arena_exit(&test_arena);

	fw_two_nodes(NUMA_SPLIT);
	boot_nodes(test);
	expect_memmap_on_nodes(test);
}

/*
 * Rule 6, no virtual room: the kernel's vmemmap_reserve() refuses frames
 * at or past VMEMMAP_SIZE / 64 (64 TiB of physical addresses), and
 * memmap_alloc() then says "mm: no virtual room".  RAM at 64 TiB must be
 * refused the same way on the host, or that path is never exercised
 * there.  FAILS on 846f237: the host hook (tests/host/host_support.c)
 * ignores VMEMMAP_SIZE and maps a 1 TiB room.
 */
/* include/memlayout.h's VMEMMAP_SIZE (the host's memlayout.h has none). */
#define KERNEL_VMEMMAP_SIZE (1ull << 40)

static void no_virtual_room_refused(struct kunit *test)
{
	const u64 base = KERNEL_VMEMMAP_SIZE / sizeof(struct page) * PAGE_SIZE;
	const struct fw_mmap_entry map[] = {
		{ base, 4 * MiB, E820_TYPE_RAM },
	};
	const char *log;
	bool ok;

	arena_map_memory(&test_arena, base, 4 * MiB);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	numa_init();
	capture_begin();
	ok = mm_init_nodes(test_arena.pgdat);
	log = capture_end();
	KUNIT_EXPECT_FALSE(test, ok);
	KUNIT_EXPECT_NOT_NULL(test, strstr(log, "mm: no virtual room for a memmap"));
}

/*
 * Rule 5: 80 boots and exits of the mixed machine (more runs in all than
 * the host hook's HOST_VMEMMAP_RUNS): each exit unmaps the room (the old
 * address is no longer mapped), forgets every run (vmemmap_lookup() of
 * the old memmap fails), and clears the globals.  Passes on 846f237.
 */
static void exit_releases_the_memmap_every_time(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < 80; i++) {
		struct page *old;
		phys_addr_t frame;
		void *page_of_old;

		mr_boot_mixed(test);
		old = pfn_to_page((30 * MiB) >> PAGE_SHIFT);
		KUNIT_ASSERT_TRUE(test, vmemmap_lookup(old, &frame));
		page_of_old = (void *)ALIGN_DOWN((unsigned long)old, PAGE_SIZE);
		arena_exit(&test_arena);
		KUNIT_ASSERT_NULL(test, mem_map);
		KUNIT_ASSERT_EQ(test, mem_map_end_pfn, 0);
		KUNIT_ASSERT_FALSE(test, pfn_valid((30 * MiB) >> PAGE_SHIFT));
		KUNIT_ASSERT_FALSE(test, vmemmap_lookup(old, &frame));
		KUNIT_ASSERT_EQ(test, msync(page_of_old, PAGE_SIZE, MS_ASYNC), -1);
		KUNIT_ASSERT_EQ(test, errno, ENOMEM);
	}
}

/*
 * Rule 5, fork (the interleaving search runs each schedule in a child):
 * the child's memmap is its own copy; what it allocates never shows in
 * the parent's struct pages or counts.  Passes on 846f237.
 */
static void forked_child_memmap_is_private(struct kunit *test)
{
	unsigned long before;
	pid_t pid;
	int status = 0;

	mr_boot_mixed(test);
	drain_all_pages();
	before = node_nr_free_pages(0) + node_nr_free_pages(1);
	pid = fork();
	KUNIT_ASSERT_GE(test, pid, 0);
	if (pid == 0) {
		unsigned long n = exhaust_node(0, 0);

		_exit(n > 0 && node_nr_free_pages(0) == 0 ? 0 : 1);
	}
	KUNIT_ASSERT_EQ(test, waitpid(pid, &status, 0), pid);
	KUNIT_EXPECT_TRUE(test, WIFEXITED(status) && WEXITSTATUS(status) == 0);
	KUNIT_EXPECT_EQ(test, node_nr_free_pages(0) + node_nr_free_pages(1),
			before);
	KUNIT_EXPECT_EQ(test, mm_check_all(), 0);
}

static struct kunit_case memmap_review_cases[] = {
	KUNIT_CASE(hole_pages_follow_previous_page),
	KUNIT_CASE(hole_pages_follow_previous_page_two_nodes),
	KUNIT_CASE(cut_page_follows_first_ram_frame),
	KUNIT_CASE(cut_page_after_srat_gap),
	KUNIT_CASE(uncovered_hole_follows_previous_page),
	KUNIT_CASE(full_node_memmap_falls_back),
	KUNIT_CASE(aligned_run_stays_on_its_node),
	KUNIT_CASE(large_run_backed_2m_aligned),
	KUNIT_CASE(lowest_frames_on_node_1),
	KUNIT_CASE(every_frame_translates),
	KUNIT_CASE(memmap_frames_reserved_and_distinct),
	KUNIT_CASE(memmap_no_memory_fails_cleanly),
	KUNIT_CASE(no_virtual_room_refused),
	KUNIT_CASE(exit_releases_the_memmap_every_time),
	KUNIT_CASE(forked_child_memmap_is_private),
	{}
};

static struct kunit_suite memmap_review_suite = {
	.name = "memmap_review",
	.exit = numa_case_exit,
	.test_cases = memmap_review_cases,
};
kunit_test_suite(memmap_review_suite);
