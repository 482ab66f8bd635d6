/*
 * numa.c - the nodes: the firmware's topology checked against memory, node
 * states, distances, fallback orders and the numastat counters.
 *
 * The design and the vocabulary (node, memoryless, CPU-less, fallback
 * order, numastat) are at the top of include/numa.h.  This file decides,
 * once, at boot:
 *
 *   numa_firmware (srat.c)  --numa_init()-->  nodes, distances, fallback
 *                                             orders, each CPU's node
 *
 * numa_init() accepts the firmware's word only when it is consistent with
 * the memory map memblock built from the boot loader's: every byte of RAM
 * above the first MiB lies in some node (a node cannot be guessed for the
 * rest), and at least one node has memory.  Anything else, or `numa=off`,
 * or no SRAT at all, gives one node (node 0: all memory, every CPU), with
 * one line saying why.  SRAT memory that is not RAM (hot-plug ranges,
 * holes) is simply not used; a node whose ranges hold no RAM is memoryless.
 * A CPU the SRAT does not name goes to the first node that has CPUs, said
 * in a line.
 *
 * Invariants after numa_init():
 *   - node 0 .. nr_node_ids - 1 are the only nodes that can be online;
 *   - a node with NODE_MEMORY has RAM in memblock (so a zone and buddy,
 *     mm_init.c); at least one node has NODE_MEMORY;
 *   - fallback[n] lists every node with memory once, nearest first, and
 *     starts with n when n has memory;
 *   - distance[n][n] == LOCAL_DISTANCE, distance[a][b] > LOCAL_DISTANCE
 *     for a != b.
 * Locking: written on the boot CPU before the others start; read-only
 * after, except numa_cpu_online() (a CPU's own entry, before it runs) and
 * the counters (header comment of include/numa.h).
 */
#include <numa.h>
#include <kernel.h>
#include <memblock.h>
#include <mmzone.h>
#include <printk.h>
#include <string.h>
#include "internal.h"

/* Below this the firmware's map is not trusted to name nodes: real-mode
 * leftovers the kernel reserves anyway (memblock.h). */
#define NUMA_IGNORED_LOW_MEMORY (1ull << 20)

struct numa_topology numa_firmware;
int nr_node_ids = 1;
bool numa_off;

/* Until numa_init() runs (and in host programs that never call it): one
 * node, node 0, with everything. */
unsigned int node_states_mask[NR_NODE_STATES] = {
	[NODE_ONLINE] = 1u, [NODE_MEMORY] = 1u, [NODE_CPU] = 1u,
};
static u8 numa_distance[MAX_NUMNODES][MAX_NUMNODES] = {
	[0][0] = LOCAL_DISTANCE,
};
/* [MAX_NUMNODES]: the order node_fallback() gives for a bad node. */
static int node_fallback_list[MAX_NUMNODES + 1][MAX_NUMNODES + 1] = {
	[0 ... MAX_NUMNODES] = { 0, NUMA_NO_NODE },
};
static int cpu_node[NR_CPUS];
static int cpu_mem[NR_CPUS];

/* The node ranges in use: the firmware's as it gave them (they may cover
 * holes, which memblock's memory says are not RAM), or none with one
 * node. */
static struct numa_memblk node_memblk[NUMA_MAX_MEMBLKS];
static unsigned int nr_node_memblks;

const char *const numa_stat_names[NR_NUMA_STAT_ITEMS] = {
	[NUMA_HIT] = "numa_hit",
	[NUMA_MISS] = "numa_miss",
	[NUMA_FOREIGN] = "numa_foreign",
	[NUMA_LOCAL] = "local_node",
	[NUMA_OTHER] = "other_node",
};

struct numa_stat_cpu {
	unsigned long v[NR_NUMA_STAT_KINDS][MAX_NUMNODES][NR_NUMA_STAT_ITEMS];
};

static DEFINE_PER_CPU(struct numa_stat_cpu, numa_stats);

/* One instruction: an NMI bumping the same counter lands before or after. */
static __always_inline void numa_stat_add(unsigned long *counter,
					  unsigned long n)
{
	__asm__ __volatile__("addq %1, %0" : "+m"(*counter) : "er"(n));
}

static void node_set_state(int nid, enum node_states state)
{
	node_states_mask[state] |= 1u << nid;
}

int node_distance(int from, int to)
{
	if (from < 0 || to < 0 || from >= nr_node_ids || to >= nr_node_ids)
		return REMOTE_DISTANCE;
	return numa_distance[from][to];
}

const int *node_fallback(int nid)
{
	if (nid == NUMA_NO_NODE)
		nid = numa_node_id();
	if (nid < 0 || nid >= nr_node_ids)
		return node_fallback_list[MAX_NUMNODES]; /* node 0's order */
	return node_fallback_list[nid];
}

int cpu_to_node(unsigned int cpu)
{
	return cpu < NR_CPUS ? cpu_node[cpu] : 0;
}

int cpu_to_mem(unsigned int cpu)
{
	return cpu < NR_CPUS ? cpu_mem[cpu] : 0;
}

int phys_to_nid(u64 phys)
{
	unsigned int i;

	if (nr_node_memblks == 0)
		return phys < memblock_end_of_DRAM() ? 0 : NUMA_NO_NODE;
	for (i = 0; i < nr_node_memblks; i++)
		if (phys >= node_memblk[i].start && phys < node_memblk[i].end)
			return node_memblk[i].nid;
	return NUMA_NO_NODE;
}

bool numa_next_range(unsigned int *cursor, u64 *start, u64 *end, int *nid)
{
	if (nr_node_memblks == 0) {
		if (*cursor > 0 || memblock_end_of_DRAM() == 0)
			return false;
		*start = memblock_start_of_DRAM();
		*end = memblock_end_of_DRAM();
		*nid = 0;
		(*cursor)++;
		return true;
	}
	if (*cursor >= nr_node_memblks)
		return false;
	*start = node_memblk[*cursor].start;
	*end = node_memblk[*cursor].end;
	*nid = node_memblk[*cursor].nid;
	(*cursor)++;
	return true;
}

phys_addr_t memblock_alloc_node(u64 size, u64 align, int nid)
{
	unsigned int i = nr_node_memblks;

	if (nr_node_memblks == 0)
		return nid == 0 ? memblock_alloc(size, align) : 0;
	/* Ranges are in address order: the last with room has the highest
	 * fit, as memblock_alloc() would choose. */
	while (i-- > 0) {
		phys_addr_t p;

		if (node_memblk[i].nid != nid)
			continue;
		p = memblock_alloc_range(size, align, node_memblk[i].start,
					 node_memblk[i].end);
		if (p)
			return p;
	}
	return 0;
}

phys_addr_t memblock_alloc_try_nid(u64 size, u64 align, int nid)
{
	phys_addr_t p = memblock_alloc_node(size, align, nid);

	return p ? p : memblock_alloc(size, align);
}

/* Fill fallback[n] for every node: nodes with memory by distance. */
static void build_fallback_lists(void)
{
	int from, n;

	for (from = 0; from <= MAX_NUMNODES; from++) {
		int *list = node_fallback_list[from];
		int src = from < nr_node_ids ? from : 0;
		unsigned int taken = 0, count = 0;

		for (;;) {
			int best = NUMA_NO_NODE;

			for (n = 0; n < nr_node_ids; n++) {
				if (!node_state(n, NODE_MEMORY) ||
				    (taken & (1u << n)))
					continue;
				if (best == NUMA_NO_NODE ||
				    numa_distance[src][n] <
				    numa_distance[src][best])
					best = n;
			}
			if (best == NUMA_NO_NODE)
				break;
			taken |= 1u << best;
			list[count++] = best;
		}
		list[count] = NUMA_NO_NODE;
	}
}

void numa_default_distances(u8 d[MAX_NUMNODES][MAX_NUMNODES])
{
	int a, b;

	for (a = 0; a < MAX_NUMNODES; a++)
		for (b = 0; b < MAX_NUMNODES; b++)
			d[a][b] = a == b ? LOCAL_DISTANCE : REMOTE_DISTANCE;
}

static void reset_cpus(void)
{
	unsigned int cpu;

	for (cpu = 0; cpu < NR_CPUS; cpu++)
		cpu_node[cpu] = cpu_mem[cpu] = 0;
}

/* One node: all memory, every CPU. */
static void numa_single_node(void)
{
	memset(node_states_mask, 0, sizeof(node_states_mask));
	nr_node_ids = 1;
	nr_node_memblks = 0;
	node_set_state(0, NODE_ONLINE);
	node_set_state(0, NODE_MEMORY);
	node_set_state(0, NODE_CPU);
	numa_default_distances(numa_distance);
	build_fallback_lists();
	reset_cpus();
}

/* RAM of memblock in [start, end), in bytes. */
static u64 ram_in(u64 start, u64 end)
{
	u64 total = 0;
	unsigned int i;

	for (i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		u64 s = max(r->base, start), e = min(r->base + r->size, end);

		if (s < e)
			total += e - s;
	}
	return total;
}

/*
 * The first byte of RAM (above NUMA_IGNORED_LOW_MEMORY) that no range of
 * t covers, in *where; false when every byte is covered.
 */
static bool find_uncovered_ram(const struct numa_topology *t, u64 *where,
			       u64 *where_end)
{
	unsigned int i, j;

	for (i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		u64 pos = max(r->base, NUMA_IGNORED_LOW_MEMORY);
		u64 end = r->base + r->size;

		while (pos < end) {
			u64 next_cover = end;
			bool covered = false;

			for (j = 0; j < t->nr_memblks; j++) {
				const struct numa_memblk *m = &t->memblk[j];

				if (pos >= m->start && pos < m->end) {
					pos = m->end;
					covered = true;
					break;
				}
				if (m->start > pos && m->start < next_cover)
					next_cover = m->start;
			}
			if (!covered) {
				*where = pos;
				*where_end = next_cover;
				return true;
			}
		}
	}
	return false;
}

u64 node_ram_bytes(int nid)
{
	unsigned int i;
	u64 total = 0;

	if (nr_node_memblks == 0)
		return nid == 0 ? memblock_phys_mem_size() : 0;
	for (i = 0; i < nr_node_memblks; i++)
		if (node_memblk[i].nid == nid)
			total += ram_in(node_memblk[i].start,
					node_memblk[i].end);
	return total;
}

static void log_node(int nid)
{
	char cpus[96];
	size_t used = 0;
	unsigned int i;

	cpus[0] = '\0';
	for (i = 0; i < numa_firmware.nr_cpus && used < sizeof(cpus) - 12; i++)
		if (numa_firmware.cpu[i].nid == nid)
			used += (size_t)snprintf(cpus + used,
						 sizeof(cpus) - used, "%s%u",
						 used ? "," : "",
						 numa_firmware.cpu[i].apic_id);
	pr_info("numa: node %d (proximity domain %u): %lu MiB of RAM%s, APIC ids {%s}%s\n",
		nid, numa_firmware.pxm[nid],
		(unsigned long)(node_ram_bytes(nid) >> 20),
		node_state(nid, NODE_MEMORY) ? "" : " (memoryless)",
		cpus, node_state(nid, NODE_CPU) ? "" : " (no CPUs)");
}

static void log_distances(void)
{
	char line[64];
	int a, b;

	if (nr_node_ids < 2)
		return;
	pr_info("numa: distances (%s):\n", numa_firmware.has_distances ?
		"from the SLIT" : "default: 10 local, 20 remote");
	for (a = 0; a < nr_node_ids; a++) {
		size_t used = 0;

		for (b = 0; b < nr_node_ids; b++)
			used += (size_t)snprintf(line + used,
						 sizeof(line) - used, " %3u",
						 numa_distance[a][b]);
		pr_info("numa:   node %d:%s\n", a, line);
	}
}

void numa_init(void)
{
	const struct numa_topology *t = &numa_firmware;
	u64 hole, hole_end;
	unsigned int i;
	int nid;

	numa_single_node();
	if (numa_off) {
		pr_info("numa: off (command line): one node, all memory and every CPU\n");
		return;
	}
	if (!t->valid || t->nr_nodes == 0)
		return;   /* acpi.c said why */
	if (t->nr_nodes > MAX_NUMNODES) {
		pr_warn("numa: %u nodes, more than MAX_NUMNODES = %d; using one node\n",
			t->nr_nodes, MAX_NUMNODES);
		return;
	}
	if (find_uncovered_ram(t, &hole, &hole_end)) {
		pr_warn("numa: the SRAT puts RAM [mem %#lx-%#lx] in no node; using one node\n",
			(unsigned long)hole, (unsigned long)(hole_end - 1));
		return;
	}

	memset(node_states_mask, 0, sizeof(node_states_mask));
	nr_node_ids = (int)t->nr_nodes;
	nr_node_memblks = 0;
	for (i = 0; i < t->nr_memblks; i++) {
		const struct numa_memblk *m = &t->memblk[i];

		if (m->nid < 0 || m->nid >= nr_node_ids)
			continue;
		node_memblk[nr_node_memblks++] = *m;
		if (ram_in(m->start, m->end))
			node_set_state(m->nid, NODE_MEMORY);
	}
	for (i = 0; i < t->nr_cpus; i++)
		if (t->cpu[i].nid >= 0 && t->cpu[i].nid < nr_node_ids)
			node_set_state(t->cpu[i].nid, NODE_CPU);
	for (nid = 0; nid < nr_node_ids; nid++)
		if (node_state(nid, NODE_MEMORY) || node_state(nid, NODE_CPU))
			node_set_state(nid, NODE_ONLINE);
	/* Covered RAM above 1 MiB exists (e820.c makes sure): some node has
	 * memory.  Below it only: the node of the low memory. */
	if (!node_states_mask[NODE_MEMORY]) {
		pr_warn("numa: no node of the SRAT holds RAM; using one node\n");
		numa_single_node();
		return;
	}
	if (t->has_distances)
		memcpy(numa_distance, t->distance, sizeof(numa_distance));
	else
		numa_default_distances(numa_distance);
	build_fallback_lists();
	pr_info("numa: %d nodes from the SRAT\n", nr_node_ids);
	for (nid = 0; nid < nr_node_ids; nid++)
		if (node_online(nid))
			log_node(nid);
	log_distances();
}

/* The firmware's node for an APIC id; NUMA_NO_NODE if it names none. */
static int apic_id_to_node(u32 apic_id)
{
	unsigned int i;

	if (nr_node_ids == 1)
		return 0;
	for (i = 0; i < numa_firmware.nr_cpus; i++)
		if (numa_firmware.cpu[i].apic_id == apic_id)
			return numa_firmware.cpu[i].nid;
	return NUMA_NO_NODE;
}

void numa_cpu_online(unsigned int cpu, u32 apic_id)
{
	int nid = apic_id_to_node(apic_id);

	if (cpu >= NR_CPUS)
		return;
	if (nid == NUMA_NO_NODE || !node_online(nid)) {
		int first = 0;

		for (first = 0; first < nr_node_ids; first++)
			if (node_state(first, NODE_CPU))
				break;
		if (first == nr_node_ids)
			first = node_fallback(0)[0];
		pr_warn("numa: the SRAT names no node for cpu%u (APIC id %u): it joins node %d\n",
			cpu, apic_id, first);
		nid = first;
	}
	cpu_node[cpu] = nid;
	cpu_mem[cpu] = node_fallback_list[nid][0];
	percpu_areas[cpu].numa_node = nid;
	percpu_areas[cpu].numa_mem = cpu_mem[cpu];
	slab_numa_cpu_update(cpu);
}

/* ---- numastat ---- */

void numa_stat_count(enum numa_stat_kind kind, int preferred, int got,
		     unsigned long n)
{
	struct numa_stat_cpu *c = this_cpu_ptr(numa_stats);

	if (got < 0 || got >= MAX_NUMNODES)
		return;
	if (preferred == NUMA_NO_NODE)
		preferred = numa_mem_id();
	if (preferred == got) {
		numa_stat_add(&c->v[kind][got][NUMA_HIT], n);
	} else {
		numa_stat_add(&c->v[kind][got][NUMA_MISS], n);
		if (preferred >= 0 && preferred < MAX_NUMNODES)
			numa_stat_add(&c->v[kind][preferred][NUMA_FOREIGN],
				      n);
	}
	numa_stat_add(&c->v[kind][got][got == numa_node_id() ? NUMA_LOCAL :
							       NUMA_OTHER], n);
}

/*
 * The page allocation fast path counts only in its per-CPU list
 * (per_cpu_pages.numa_hit_fast): it always serves the node asked for, so
 * each such page is a hit, and local or other by the CPU that took it.
 */
static unsigned long pcp_fast_hits(int nid, enum numa_stat_item item)
{
	struct pglist_data *pgdat = NODE_DATA(nid);
	unsigned long sum = 0;
	unsigned int z, cpu;

	if (!pgdat || item == NUMA_MISS || item == NUMA_FOREIGN)
		return 0;
	for (z = 0; z < MAX_NR_ZONES; z++)
		for_each_possible_cpu(cpu) {
			bool local = cpu_to_node(cpu) == nid;

			if (item == NUMA_LOCAL && !local)
				continue;
			if (item == NUMA_OTHER && local)
				continue;
			sum += READ_ONCE(pgdat->node_zones[z].pcp[cpu].
					 numa_hit_fast);
		}
	return sum;
}

unsigned long numa_stat_read(enum numa_stat_kind kind, int nid,
			     enum numa_stat_item item)
{
	unsigned long sum = 0;
	unsigned int cpu;

	if (nid < 0 || nid >= MAX_NUMNODES)
		return 0;
	for_each_possible_cpu(cpu)
		sum += READ_ONCE(per_cpu_ptr(numa_stats, cpu)->v[kind][nid][item]);
	if (kind == NUMA_STAT_PAGES)
		sum += pcp_fast_hits(nid, item);
	return sum;
}

void numastat_show(void)
{
	static const char *const kind_names[NR_NUMA_STAT_KINDS] = {
		[NUMA_STAT_PAGES] = "pages",
		[NUMA_STAT_OBJECTS] = "objects",
	};
	unsigned int kind;
	int nid;

	for (kind = 0; kind < NR_NUMA_STAT_KINDS; kind++)
		for_each_online_node(nid)
			pr_info("numastat: node %d %-7s numa_hit %lu numa_miss %lu numa_foreign %lu local_node %lu other_node %lu\n",
				nid, kind_names[kind],
				numa_stat_read(kind, nid, NUMA_HIT),
				numa_stat_read(kind, nid, NUMA_MISS),
				numa_stat_read(kind, nid, NUMA_FOREIGN),
				numa_stat_read(kind, nid, NUMA_LOCAL),
				numa_stat_read(kind, nid, NUMA_OTHER));
}

#ifdef HOST_TEST
/* Host tests: forget every counter, the per-CPU lists' included. */
void numa_stat_reset(void)
{
	unsigned int z, cpu;
	int nid;

	memset(numa_stats, 0, sizeof(numa_stats));
	for (nid = 0; nid < MAX_NUMNODES; nid++)
		for (z = 0; NODE_DATA(nid) && z < MAX_NR_ZONES; z++)
			for (cpu = 0; cpu < NR_CPUS; cpu++)
				NODE_DATA(nid)->node_zones[z].pcp[cpu].
					numa_hit_fast = 0;
}
#endif
