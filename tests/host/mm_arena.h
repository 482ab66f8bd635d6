/*
 * mm_arena.h - a private node over a malloc'd arena, for host tests of mm/.
 *
 * The arena plays physical memory from `phys` on: host_direct_map_base is
 * set so that phys_to_virt(phys) is the arena's first byte.  A test feeds a
 * crafted firmware map to memblock (addresses inside the arena), then
 * mm_init_nodes() builds the memmap (its frames reserved from memblock,
 * each node's part from its node: tests/host/host_support.c) and
 * the buddy exactly as the kernel does at boot.  arena_exit() forgets the
 * node and frees the arena; suites call it from their exit hook so a
 * failed assertion never leaks the arena into the next case.
 */
#ifndef HOST_MM_ARENA_H
#define HOST_MM_ARENA_H

#include <kunit.h>
#include <memblock.h>
#include <mmzone.h>
#include <numa.h>
#include <stdlib.h>
#include <string.h>

#define ARENA_ALIGN (4ul << 20)   /* one MAX_ORDER block */

struct arena {
	void *mem;
	u64 phys;
	u64 size;
	struct pglist_data pgdat[MAX_NUMNODES];
};

static struct arena test_arena;

static inline void arena_map_memory(struct arena *a, u64 phys, u64 size)
{
	a->mem = aligned_alloc(ARENA_ALIGN, size);
	a->phys = phys;
	a->size = size;
	/* Junk in small arenas, so __GFP_ZERO is really tested; a large one
	 * (spanning the PCI hole) stays untouched, hence uncommitted. */
	if (size <= (64ul << 20))
		memset(a->mem, 0xa5, size);
	host_direct_map_base = (unsigned long)a->mem - phys;
	memblock_reset();
}

/* Bytes of memmap mm_init_nodes() will take for RAM [start, end): the
 * memmap pages (64 struct pages each, aligned to frame numbers) that
 * describe it. */
static inline u64 arena_memmap_bytes(u64 start, u64 end)
{
	const u64 per_page = PAGE_SIZE / sizeof(struct page);

	return (ALIGN_UP(end >> PAGE_SHIFT, per_page) -
		ALIGN_DOWN(start >> PAGE_SHIFT, per_page)) / per_page *
	       PAGE_SIZE;
}

/* numa_firmware as the test set it (one node when it did not). */
static inline bool arena_boot(struct arena *a)
{
	unsigned int cpu;

	numa_init();
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		numa_cpu_online(cpu, cpu);
	return mm_init_nodes(a->pgdat);
}

static inline void arena_exit(struct arena *a)
{
	unsigned int cpu;

	mm_exit_nodes();
	memset(&numa_firmware, 0, sizeof(numa_firmware));
	numa_init();
	for (cpu = 0; cpu < NR_CPUS; cpu++)
		numa_cpu_online(cpu, cpu);
	numa_stat_reset();
	free(a->mem);
	memset(a, 0, sizeof(*a));
	memblock_reset();
}

static inline void arena_suite_exit(struct kunit *test)
{
	(void)test;
	host_nmi_nesting = 0;
	host_cpu_id = 0;
	nr_cpu_ids = 1;
	if (test_arena.mem)
		arena_exit(&test_arena);
}

static inline struct zone *arena_zone(enum zone_type z)
{
	return &test_arena.pgdat[0].node_zones[z];
}

#endif
