/*
 * numa.h - nodes: which memory and which CPUs sit close to each other.
 *
 * A NUMA machine is split into nodes; each node has CPUs, memory, or both,
 * and a CPU reaches its own node's memory faster than another node's.  The
 * firmware says which is where in two ACPI tables:
 *   SRAT  (System Resource Affinity Table) puts each CPU (by APIC id) and
 *         each range of memory in a *proximity domain*;
 *   SLIT  (System Locality Information Table) gives the relative distance
 *         between every two domains (10 = local, 20 = the usual remote).
 * arch/x86_64/srat.c reads both into a struct numa_topology (the
 * firmware's word, unchecked against the memory map); mm/numa.c checks it
 * against memblock at boot and either accepts it or falls back to one
 * node with a line saying why (numa_init()).  `numa=off` on the command
 * line takes the one-node path on purpose.
 *
 * Node numbers: proximity domains are numbered densely in increasing order
 * (domains 0, 1, 2 are nodes 0, 1, 2, as QEMU's -numa nodeid=), at most
 * MAX_NUMNODES of them.  Linux numbers them in the order the SRAT names
 * them instead; for tables that list domains in order the two agree.
 *
 * What each node has after numa_init() (node_state()):
 *   NODE_ONLINE   the node exists (it has CPUs or memory);
 *   NODE_MEMORY   it has memory: its own zones and buddy (mm/mm_init.c);
 *   NODE_CPU      it has CPUs.
 * A *memoryless* node has CPUs but no memory: its CPUs allocate from the
 * nearest node with memory (cpu_to_mem(), numa_mem_id()).  A *CPU-less*
 * node has memory but no CPUs: it is only ever a remote node.
 *
 * Every node's fallback order (node_fallback()) lists the nodes with memory
 * by distance from it, nearest first (itself first when it has memory);
 * an allocation that may go anywhere walks it, one that says
 * __GFP_THISNODE stops after the first.
 *
 * numastat counters (numa_stat_*), as Linux's /sys/devices/system/node/
 * nodeN/numastat, counted for pages and for slab objects:
 *   numa_hit      allocated on the node it was meant for (counted there);
 *   numa_miss     allocated here although another node was preferred;
 *   numa_foreign  meant for this node, allocated elsewhere (counted on the
 *                 preferred node: every miss is some node's foreign);
 *   local_node    allocated here by a CPU of this node;
 *   other_node    allocated here by a CPU of another node.
 * hit + miss = local + other = allocations served by the node.
 *
 * Locking: the topology is written once on the boot CPU before any other
 * CPU starts, and read-only after; the counters are per CPU, each bumped
 * by one instruction (an NMI may bump the same one: it lands before or
 * after, never inside), and read racily by their sum.
 */
#ifndef NUMA_H
#define NUMA_H

#include <types.h>
#include <smp.h>

#define MAX_NUMNODES     4
#define NUMA_NO_NODE     (-1)
#define LOCAL_DISTANCE   10   /* ACPI 6.5, 5.2.17: a domain to itself */
#define REMOTE_DISTANCE  20   /* the default between two domains */
#define NUMA_NO_DISTANCE 0xff /* SLIT: "unreachable" */
#define NUMA_MAX_MEMBLKS 32   /* memory ranges the SRAT may list */

/* A range of memory [start, end) the SRAT puts in node nid. */
struct numa_memblk {
	u64 start;
	u64 end;
	int nid;
};

struct numa_cpu {
	u32 apic_id;
	int nid;
};

/*
 * The firmware's topology, as the SRAT and SLIT give it.  srat.c fills it
 * and checks it for itself (entries whole, no domain or CPU twice, no two
 * domains on one byte of memory); numa_init() checks it against memory.
 */
struct numa_topology {
	bool valid;                       /* an SRAT was read and accepted */
	unsigned int nr_nodes;            /* nodes 0 .. nr_nodes - 1 */
	u32 pxm[MAX_NUMNODES];            /* node -> proximity domain */
	unsigned int nr_memblks;
	struct numa_memblk memblk[NUMA_MAX_MEMBLKS]; /* sorted by start */
	unsigned int nr_cpus;
	struct numa_cpu cpu[NR_CPUS];
	bool has_distances;               /* a SLIT was read and accepted */
	u8 distance[MAX_NUMNODES][MAX_NUMNODES];
};

/* What arch/x86_64/acpi.c found (valid false: no SRAT, or refused). */
extern struct numa_topology numa_firmware;

enum node_states {
	NODE_ONLINE,
	NODE_MEMORY,
	NODE_CPU,
	NR_NODE_STATES
};

/* Nodes 0 .. nr_node_ids - 1 may be online; 1 on a one-node machine. */
extern int nr_node_ids;
extern bool numa_off;   /* numa=off: one node whatever the SRAT says */

/* Bit nid of node_states_mask[state]: the node has that state. */
extern unsigned int node_states_mask[NR_NODE_STATES];

static inline bool node_state(int nid, enum node_states state)
{
	return nid >= 0 && nid < nr_node_ids &&
	       (node_states_mask[state] & (1u << nid));
}

static inline bool node_online(int nid)
{
	return node_state(nid, NODE_ONLINE);
}

#define for_each_online_node(nid) \
	for ((nid) = 0; (nid) < nr_node_ids; (nid)++) \
		if (!node_online(nid)) {} else

/* d as a machine without a SLIT has it: LOCAL_DISTANCE on the diagonal,
 * REMOTE_DISTANCE everywhere else (srat.c and numa_init() both use it). */
void numa_default_distances(u8 d[MAX_NUMNODES][MAX_NUMNODES]);

/* Distance between two online nodes (LOCAL_DISTANCE for a node itself). */
int node_distance(int from, int to);

/*
 * The nodes with memory by distance from nid, nearest first (ties by node
 * number), NUMA_NO_NODE after the last.  nid itself comes first when it
 * has memory.  nid NUMA_NO_NODE means this CPU's node.
 */
const int *node_fallback(int nid);

/* cpu's node, and the nearest node with memory to it (the same unless the
 * node is memoryless).  Set by numa_init() and numa_cpu_online(). */
int cpu_to_node(unsigned int cpu);
int cpu_to_mem(unsigned int cpu);
/* This CPU's: one GS-relative load each (struct percpu). */
static __always_inline int numa_node_id(void)
{
	return this_cpu_read(numa_node);
}

static __always_inline int numa_mem_id(void)
{
	return this_cpu_read(numa_mem);
}

/* RAM bytes node nid holds (0 for a memoryless node). */
u64 node_ram_bytes(int nid);

/*
 * Walk the node ranges in use, in address order: *cursor = 0 first, then
 * each call gives the next [*start, *end) and its node (one range, node 0,
 * covering all memory on a one-node machine).  mm_init.c builds the zones
 * from it.
 */
bool numa_next_range(unsigned int *cursor, u64 *start, u64 *end, int *nid);

/* The node of physical address phys (NUMA_NO_NODE outside every node's
 * memory). */
int phys_to_nid(u64 phys);

/*
 * memblock_alloc() from node nid's memory (the highest fit there), or 0.
 * memblock_alloc_try_nid() then tries anywhere, as Linux's does: the
 * caller asks phys_to_nid() of the result if it cares; 0 when nothing
 * fits at all.
 */
phys_addr_t memblock_alloc_node(u64 size, u64 align, int nid);
phys_addr_t memblock_alloc_try_nid(u64 size, u64 align, int nid);

/*
 * Boot CPU, after memblock has the memory map and before the page
 * allocator: accept numa_firmware (or fall back to one node, saying why),
 * set each node's state and distances, and log one line per node.
 */
void numa_init(void);
/* A CPU with this APIC id has its per-CPU area: record its node there. */
void numa_cpu_online(unsigned int cpu, u32 apic_id);

/* ---- numastat ---- */
enum numa_stat_item {
	NUMA_HIT,
	NUMA_MISS,
	NUMA_FOREIGN,
	NUMA_LOCAL,
	NUMA_OTHER,
	NR_NUMA_STAT_ITEMS
};

enum numa_stat_kind {
	NUMA_STAT_PAGES,     /* pages (counted per block, 2^order each) */
	NUMA_STAT_OBJECTS,   /* slab objects leaving a node's slabs */
	NR_NUMA_STAT_KINDS
};

extern const char *const numa_stat_names[NR_NUMA_STAT_ITEMS];

/* n allocations meant for node `preferred` (NUMA_NO_NODE: this CPU's
 * memory node) served by node `got`, on this CPU. */
void numa_stat_count(enum numa_stat_kind kind, int preferred, int got,
		     unsigned long n);
/* The sum over CPUs (racy while others allocate). */
unsigned long numa_stat_read(enum numa_stat_kind kind, int nid,
			     enum numa_stat_item item);
/* One line per online node and kind, numastat's columns. */
void numastat_show(void);
#ifdef HOST_TEST
void numa_stat_reset(void);
#endif

#endif /* NUMA_H */
