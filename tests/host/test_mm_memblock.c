/*
 * test_mm_memblock.c - host tests of mm/memblock.c: firmware maps that are
 * unsorted, overlapping, zero-length, unaligned, beyond the address space,
 * inside the PCI hole or too small, and the early allocator on top.
 *
 * Only arithmetic on addresses happens here, so the maps may describe any
 * amount of memory (16 GiB, memory above 4 GiB) without an arena.
 */
#include <kunit.h>
#include <memblock.h>
#include <memlayout.h>

#define MiB (1ull << 20)
#define GiB (1ull << 30)

static int memblock_test_init(struct kunit *test)
{
	(void)test;
	memblock_reset();
	return 0;
}

static void expect_region(struct kunit *test, const struct memblock_type *t,
			  unsigned int i, u64 base, u64 size)
{
	KUNIT_ASSERT_LT(test, i, t->cnt);
	KUNIT_EXPECT_EQ(test, t->regions[i].base, base);
	KUNIT_EXPECT_EQ(test, t->regions[i].size, size);
}

static void unsorted_overlapping_entries_merge(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ 64 * MiB, 64 * MiB, E820_TYPE_RAM },
		{ 1 * MiB, 15 * MiB, E820_TYPE_RAM },
		{ 8 * MiB, 24 * MiB, E820_TYPE_RAM },   /* overlaps the one above */
		{ 16 * MiB, 16 * MiB, E820_TYPE_RAM },  /* inside the union */
		{ 32 * MiB, 32 * MiB, E820_TYPE_RAM },  /* touches both sides */
	};
	struct memblock_map_stats st;

	memblock_add_firmware_map(map, ARRAY_SIZE(map), &st);
	KUNIT_EXPECT_EQ(test, memblock.memory.cnt, 1);
	expect_region(test, &memblock.memory, 0, 1 * MiB, 127 * MiB);
	KUNIT_EXPECT_EQ(test, st.used, 5);
	KUNIT_EXPECT_EQ(test, st.overlaps, 2);
	KUNIT_EXPECT_EQ(test, st.ignored, 0);
}

static void zero_length_and_subpage_entries_are_ignored(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ 16 * MiB, 0, E820_TYPE_RAM },
		{ 0x1234, 0x800, E820_TYPE_RAM },         /* less than a page */
		{ 0x5800, 0x1000, E820_TYPE_RAM },        /* no whole page */
		{ 32 * MiB, 16 * MiB, E820_TYPE_RAM },
	};
	struct memblock_map_stats st;

	memblock_add_firmware_map(map, ARRAY_SIZE(map), &st);
	KUNIT_EXPECT_EQ(test, st.ignored, 3);
	KUNIT_EXPECT_EQ(test, st.used, 1);
	KUNIT_EXPECT_EQ(test, st.ignored_bytes, 0x800 + 0x1000);
	KUNIT_EXPECT_EQ(test, memblock.memory.cnt, 1);
	expect_region(test, &memblock.memory, 0, 32 * MiB, 16 * MiB);
}

static void unaligned_ram_is_trimmed_to_whole_pages(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ 0, 0x9fc00, E820_TYPE_RAM },             /* the classic PC */
		{ 0x100001, 0x2000000 - 0x100001 + 0x10, E820_TYPE_RAM },
	};
	struct memblock_map_stats st;

	memblock_add_firmware_map(map, ARRAY_SIZE(map), &st);
	KUNIT_EXPECT_EQ(test, st.trimmed, 2);
	expect_region(test, &memblock.memory, 0, 0, 0x9f000);
	expect_region(test, &memblock.memory, 1, 0x101000,
		      0x2000000 - 0x101000);
	KUNIT_EXPECT_EQ(test, st.ignored_bytes, 0xc00 + 0xfff + 0x10);
}

static void memory_above_4g_is_kept(struct kunit *test)
{
	/* What QEMU gives for -m 16G: 3 GiB low, the rest at 4 GiB. */
	const struct fw_mmap_entry map[] = {
		{ 4 * GiB, 13 * GiB, E820_TYPE_RAM },
		{ 1 * MiB, 3 * GiB - 1 * MiB, E820_TYPE_RAM },
		{ 0xfd00000000ull, 0x300000000ull, E820_TYPE_RESERVED },
	};
	struct memblock_map_stats st;

	memblock_add_firmware_map(map, ARRAY_SIZE(map), &st);
	KUNIT_EXPECT_EQ(test, memblock.memory.cnt, 2);
	KUNIT_EXPECT_EQ(test, memblock_phys_mem_size(), 16 * GiB - 1 * MiB);
	KUNIT_EXPECT_EQ(test, memblock_end_of_DRAM(), 17 * GiB);
	KUNIT_EXPECT_EQ(test, st.fw_reserved, 0); /* the hole at 1 TiB */
	KUNIT_EXPECT_EQ(test, memblock.reserved.cnt, 0);
}

static void entries_beyond_the_address_space(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ MEMBLOCK_MAX_PHYS + 4096, 1 * GiB, E820_TYPE_RAM },
		{ MEMBLOCK_MAX_PHYS - 1 * MiB, 2 * MiB, E820_TYPE_RAM },
		{ 16 * MiB, ~0ull, E820_TYPE_RESERVED },  /* wraps around */
	};
	struct memblock_map_stats st;

	memblock_add_firmware_map(map, ARRAY_SIZE(map), &st);
	KUNIT_EXPECT_EQ(test, st.ignored, 1);
	KUNIT_EXPECT_EQ(test, st.trimmed, 1);
	expect_region(test, &memblock.memory, 0, MEMBLOCK_MAX_PHYS - 1 * MiB,
		      1 * MiB);
	/* The wrapping reserved entry was clipped, not dropped. */
	KUNIT_EXPECT_EQ(test, st.fw_reserved, 1);
	KUNIT_EXPECT_EQ(test, memblock_free_size(), 0);
}

static void pci_hole_is_cut_out(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ 1 * MiB, 5 * GiB, E820_TYPE_RAM },  /* claims the hole */
	};
	struct memblock_map_stats st;

	memblock_add_firmware_map(map, ARRAY_SIZE(map), &st);
	KUNIT_EXPECT_EQ(test, st.pci_hole_bytes, PCI_HOLE_END - PCI_HOLE_START);
	KUNIT_EXPECT_EQ(test, memblock.memory.cnt, 2);
	expect_region(test, &memblock.memory, 0, 1 * MiB,
		      PCI_HOLE_START - 1 * MiB);
	expect_region(test, &memblock.memory, 1, PCI_HOLE_END,
		      5 * GiB + 1 * MiB - PCI_HOLE_END);
}

static void firmware_reserved_over_ram_wins(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ 0, 64 * MiB, E820_TYPE_RAM },
		{ 8 * MiB + 100, 4096, E820_TYPE_ACPI },  /* straddles 2 pages */
		{ 60 * MiB, 8 * MiB, E820_TYPE_NVS },     /* half over RAM */
		{ 100 * MiB, 1 * MiB, E820_TYPE_RESERVED }, /* over nothing */
		{ 32 * MiB, 4096, E820_TYPE_UNUSABLE },
	};
	struct memblock_map_stats st;

	memblock_add_firmware_map(map, ARRAY_SIZE(map), &st);
	KUNIT_EXPECT_EQ(test, st.fw_reserved, 3);
	KUNIT_EXPECT_EQ(test, memblock.reserved.cnt, 3);
	expect_region(test, &memblock.reserved, 0, 8 * MiB, 2 * 4096);
	expect_region(test, &memblock.reserved, 1, 32 * MiB, 4096);
	expect_region(test, &memblock.reserved, 2, 60 * MiB, 8 * MiB);
	KUNIT_EXPECT_EQ(test, memblock_free_size(),
			64 * MiB - 2 * 4096 - 4096 - 4 * MiB);
}

static void too_little_memory_is_detected(struct kunit *test)
{
	const struct fw_mmap_entry map[] = {
		{ 0, 0x9fc00, E820_TYPE_RAM },
		{ 1 * MiB, 8 * MiB, E820_TYPE_RAM },
	};

	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	memblock_reserve(0, 1 * MiB);
	memblock_reserve(2 * MiB, 1 * MiB);     /* "the kernel" */
	KUNIT_EXPECT_LT(test, memblock_free_size(), MEMBLOCK_MIN_FREE);
	KUNIT_EXPECT_EQ(test, memblock_free_size(), 7 * MiB);
	/* And no map at all leaves nothing. */
	memblock_reset();
	memblock_add_firmware_map(map, 0, NULL);
	KUNIT_EXPECT_EQ(test, memblock_free_size(), 0);
}

static void free_ranges_are_memory_minus_reserved(struct kunit *test)
{
	u64 cursor = 0, s, e;

	memblock_add(0, 16 * MiB);
	memblock_add(32 * MiB, 16 * MiB);
	memblock_reserve(0, 1 * MiB);
	memblock_reserve(4 * MiB, 1 * MiB);
	memblock_reserve(15 * MiB, 18 * MiB);   /* spans the gap */
	memblock_reserve(40 * MiB, 4096);
	KUNIT_ASSERT_TRUE(test, memblock_next_free_range(&cursor, &s, &e));
	KUNIT_EXPECT_EQ(test, s, 1 * MiB);
	KUNIT_EXPECT_EQ(test, e, 4 * MiB);
	KUNIT_ASSERT_TRUE(test, memblock_next_free_range(&cursor, &s, &e));
	KUNIT_EXPECT_EQ(test, s, 5 * MiB);
	KUNIT_EXPECT_EQ(test, e, 15 * MiB);
	KUNIT_ASSERT_TRUE(test, memblock_next_free_range(&cursor, &s, &e));
	KUNIT_EXPECT_EQ(test, s, 33 * MiB);
	KUNIT_EXPECT_EQ(test, e, 40 * MiB);
	KUNIT_ASSERT_TRUE(test, memblock_next_free_range(&cursor, &s, &e));
	KUNIT_EXPECT_EQ(test, s, 40 * MiB + 4096);
	KUNIT_EXPECT_EQ(test, e, 48 * MiB);
	KUNIT_EXPECT_FALSE(test, memblock_next_free_range(&cursor, &s, &e));
}

static void alloc_is_top_down_aligned_and_reserved(struct kunit *test)
{
	phys_addr_t a, b;

	memblock_add(0, 16 * MiB);
	memblock_reserve(12 * MiB, 4 * MiB);
	a = memblock_alloc(5000, 4096);
	KUNIT_EXPECT_EQ(test, a, 12 * MiB - 8192);
	b = memblock_alloc(1 * MiB, 4 * MiB);
	KUNIT_EXPECT_EQ(test, b, 8 * MiB);
	KUNIT_EXPECT_EQ(test, memblock_free_size(), 11 * MiB - 8192);
	KUNIT_EXPECT_EQ(test, memblock_alloc(16 * MiB, 4096), 0);
	KUNIT_EXPECT_EQ(test, memblock_alloc_range(4096, 4096, 0, 1 * MiB),
			1 * MiB - 4096);
}

/* A reservation that starts or ends inside a page takes the whole page:
 * the buddy must never get the page that holds a reservation's tail. */
static void reservations_are_rounded_out_to_pages(struct kunit *test)
{
	memblock_add(0, 16 * MiB);
	memblock_reserve(4 * MiB + 100, 200);            /* inside one page */
	memblock_reserve(8 * MiB + 4000, 200);           /* across two */
	KUNIT_ASSERT_EQ(test, memblock.reserved.cnt, 2);
	expect_region(test, &memblock.reserved, 0, 4 * MiB, 4096);
	expect_region(test, &memblock.reserved, 1, 8 * MiB, 8192);
	KUNIT_EXPECT_EQ(test, memblock_free_size(), 16 * MiB - 3 * 4096);
}

/* An alignment under a page still gives a page-aligned block, even when
 * the window's top is not page-aligned. */
static void small_alignments_are_page_aligned(struct kunit *test)
{
	phys_addr_t a, b;

	memblock_add(0, 16 * MiB);
	a = memblock_alloc_range(100, 8, 0, 1 * MiB + 100);
	KUNIT_EXPECT_EQ(test, a, 1 * MiB - 4096);
	b = memblock_alloc(100, 8);
	KUNIT_EXPECT_EQ(test, b % PAGE_SIZE, 0);
	KUNIT_EXPECT_EQ(test, b, 16 * MiB - 4096);
	KUNIT_EXPECT_EQ(test, memblock_free_size(), 16 * MiB - 2 * 4096);
}

static void remove_splits_a_region(struct kunit *test)
{
	memblock_add(0, 16 * MiB);
	memblock_remove(4 * MiB, 4 * MiB);
	KUNIT_EXPECT_EQ(test, memblock.memory.cnt, 2);
	expect_region(test, &memblock.memory, 0, 0, 4 * MiB);
	expect_region(test, &memblock.memory, 1, 8 * MiB, 8 * MiB);
}

static void a_full_array_drops_and_counts(struct kunit *test)
{
	unsigned int i;

	for (i = 0; i < MEMBLOCK_MAX_REGIONS + 10; i++)
		memblock_add((u64)i * 2 * MiB, 1 * MiB);  /* never touching */
	KUNIT_EXPECT_EQ(test, memblock.memory.cnt, MEMBLOCK_MAX_REGIONS);
	KUNIT_EXPECT_EQ(test, memblock.memory.dropped, 10);
}

/* Found by tests/fuzz/fuzz_memblock.c: a size within a page of 2^64
 * rounded up to 0 pages, and the "allocation" of nothing was a success. */
static void alloc_of_a_size_that_wraps_fails(struct kunit *test)
{
	memblock_add(0, 16 * MiB);
	KUNIT_EXPECT_EQ(test, memblock_alloc(~0ull, 4096), 0);
	KUNIT_EXPECT_EQ(test, memblock_alloc(~0ull - PAGE_SIZE + 2, 8), 0);
	KUNIT_EXPECT_EQ(test, memblock_alloc_range(~0ull, 4096, 0, ~0ull), 0);
	KUNIT_EXPECT_EQ(test, memblock.reserved.cnt, 0);
	KUNIT_EXPECT_EQ(test, memblock_free_size(), 16 * MiB);
}

/* Found by tests/fuzz/fuzz_memblock.c: 0 means "failed", so a fit at
 * address 0 must not be taken (it was, and reserved, and 0 returned). */
static void alloc_never_takes_address_zero(struct kunit *test)
{
	memblock_add(0, 16 * MiB);
	KUNIT_EXPECT_EQ(test, memblock_alloc_range(4096, 4096, 0, 4096), 0);
	KUNIT_EXPECT_EQ(test, memblock.reserved.cnt, 0);
	KUNIT_EXPECT_EQ(test, memblock_alloc_range(4096, 4096, 0, 8192), 4096);
}

/* A firmware map with more reserved entries over RAM than the reserved
 * array holds: an entry that finds no room must still not be free memory
 * ("not RAM" wins even then; the RAM is given up instead). */
static void firmware_reservations_past_a_full_array_stay_unusable(struct kunit *test)
{
	static struct fw_mmap_entry map[MEMBLOCK_MAX_REGIONS + 8];
	unsigned int i, nr = 0;
	u64 cursor = 0, s, e;

	map[nr++] = (struct fw_mmap_entry){ 0, 1 * GiB, E820_TYPE_RAM };
	for (i = 0; i < MEMBLOCK_MAX_REGIONS + 4; i++)   /* never touching */
		map[nr++] = (struct fw_mmap_entry){ (u64)i * 2 * MiB + 1 * MiB,
						    PAGE_SIZE, E820_TYPE_RESERVED };
	memblock_add_firmware_map(map, nr, NULL);
	KUNIT_EXPECT_GT(test, memblock.reserved.dropped, 0);
	for (i = 1; i < nr; i++) {
		while (memblock_next_free_range(&cursor, &s, &e))
			KUNIT_EXPECT_TRUE(test, e <= map[i].base ||
					  s >= map[i].base + map[i].length);
		cursor = 0;
	}
}

static struct kunit_case memblock_cases[] = {
	KUNIT_CASE(unsorted_overlapping_entries_merge),
	KUNIT_CASE(zero_length_and_subpage_entries_are_ignored),
	KUNIT_CASE(unaligned_ram_is_trimmed_to_whole_pages),
	KUNIT_CASE(memory_above_4g_is_kept),
	KUNIT_CASE(entries_beyond_the_address_space),
	KUNIT_CASE(pci_hole_is_cut_out),
	KUNIT_CASE(firmware_reserved_over_ram_wins),
	KUNIT_CASE(too_little_memory_is_detected),
	KUNIT_CASE(free_ranges_are_memory_minus_reserved),
	KUNIT_CASE(alloc_is_top_down_aligned_and_reserved),
	KUNIT_CASE(reservations_are_rounded_out_to_pages),
	KUNIT_CASE(small_alignments_are_page_aligned),
	KUNIT_CASE(remove_splits_a_region),
	KUNIT_CASE(a_full_array_drops_and_counts),
	KUNIT_CASE(alloc_of_a_size_that_wraps_fails),
	KUNIT_CASE(alloc_never_takes_address_zero),
	KUNIT_CASE(firmware_reservations_past_a_full_array_stay_unusable),
	{}
};

static struct kunit_suite memblock_suite = {
	.name = "memblock",
	.init = memblock_test_init,
	.test_cases = memblock_cases,
};
kunit_test_suite(memblock_suite);
