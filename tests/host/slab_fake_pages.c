/*
 * slab_fake_pages.c - TEMPORARY page provider for the slab host tests,
 * until the buddy allocator (branch `buddy`) is merged; then this file and
 * the separate slab_tests binary go away and the tests use the real one.
 *
 * A malloc'd arena of FAKE_PAGES pages plays physical memory; blocks of
 * 2^order pages are found by a first-fit scan of a byte map, aligned to
 * their size like buddy blocks.
 */
#include <mm.h>
#include <kernel.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_PAGES 4096   /* 16 MiB */

struct page *mem_map;
unsigned long mem_map_base_pfn, mem_map_end_pfn;
static unsigned char *used;     /* 1 per page in use */
static unsigned char *orders;   /* order + 1 on an allocated head */
static void *arena;
static unsigned long nr_free;
u64 boot_seed = 0x5eedf00d;  /* the kernel sets it in main.c */

void slab_fake_pages_init(void)
{
	arena = aligned_alloc(4ul << 20, FAKE_PAGES * PAGE_SIZE);
	memset(arena, 0xa5, FAKE_PAGES * PAGE_SIZE);
	mem_map = calloc(FAKE_PAGES, sizeof(struct page));
	used = calloc(FAKE_PAGES, 1);
	orders = calloc(FAKE_PAGES, 1);
	mem_map_base_pfn = 0x1000;          /* "physical" 16 MiB */
	mem_map_end_pfn = mem_map_base_pfn + FAKE_PAGES;
	host_direct_map_base = (unsigned long)arena -
			       (mem_map_base_pfn << PAGE_SHIFT);
	nr_free = FAKE_PAGES;
}

void slab_fake_pages_exit(void)
{
	free(arena);
	free(mem_map);
	free(used);
	free(orders);
	mem_map = NULL;
	mem_map_base_pfn = mem_map_end_pfn = 0;
}

struct page *alloc_pages(gfp_t gfp, unsigned int order)
{
	unsigned long n = 1ul << order, i, j;

	for (i = 0; i + n <= FAKE_PAGES; i += n) {
		for (j = 0; j < n && !used[i + j]; j++)
			;
		if (j < n)
			continue;
		memset(used + i, 1, n);
		orders[i] = (unsigned char)(order + 1);
		nr_free -= n;
		mem_map[i].flags = 0;
		INIT_LIST_HEAD(&mem_map[i].lru);
		if (gfp & __GFP_ZERO)
			memset(page_address(&mem_map[i]), 0, n * PAGE_SIZE);
		return &mem_map[i];
	}
	return NULL;
}

struct page *try_alloc_pages(int nid, unsigned int order)
{
	(void)nid;
	return alloc_pages(GFP_NOWAIT, order);
}

void __free_pages(struct page *page, unsigned int order)
{
	unsigned long i = (unsigned long)(page - mem_map);

	if (i >= FAKE_PAGES || orders[i] != order + 1)
		panic("fake pages: bad free of page %lu order %u", i, order);
	if (page->flags)
		panic("fake pages: page %lu freed with flags %#lx", i,
		      page->flags);
	orders[i] = 0;
	memset(used + i, 0, 1ul << order);
	memset(page_address(page), 0xa5, PAGE_SIZE << order);
	nr_free += 1ul << order;
}

void free_pages_nolock(struct page *page, unsigned int order)
{
	__free_pages(page, order);
}

unsigned long nr_free_pages(void)
{
	return nr_free;
}
