/*
 * bench_host_slab.h - the kernel's slab allocator as bench_host.c's
 * allocator (ALLOC_SLAB): the mm/ files built for the host with -O2 and no
 * sanitizers, over a private "physical memory" arena, exactly as the host
 * unit tests set it up (tests/host/mm_arena.h, tests/host/test_mm_slab.c).
 *
 * One CPU (host_cpu_id 0) and kmalloc()/kfree(): the 64-byte objects come
 * from kmalloc-64, which has sheaves, so the pair measures the sheaf fast
 * path plus kmalloc's size-to-cache lookup and kfree's page lookup.
 */
#ifndef BENCH_HOST_SLAB_H
#define BENCH_HOST_SLAB_H

#include <slab.h>
#include <printk.h>
#include <smp.h>
#include "../../tests/host/mm_arena.h"

#define BENCH_ARENA_BASE (16ull << 20)
#define BENCH_ARENA_SIZE (32ull << 20)   /* 32 MiB of "RAM" */

static void *bench_alloc(size_t n) { return kmalloc(n, GFP_KERNEL); }
static void bench_free(void *p) { kfree(p); }

static void bench_setup(void)
{
	const struct fw_mmap_entry map[] = {
		{ BENCH_ARENA_BASE, BENCH_ARENA_SIZE, E820_TYPE_RAM },
	};

	console_loglevel = 0;   /* no boot chatter from mm/ */
	arena_map_memory(&test_arena, BENCH_ARENA_BASE, BENCH_ARENA_SIZE);
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	if (!arena_boot(&test_arena)) {
		fprintf(stderr, "bench: cannot set up the arena\n");
		exit(1);
	}
	host_cpu_id = 0;
	nr_cpu_ids = nr_cpu_possible = 1;
	kmem_cache_init(NULL);
}

#endif
