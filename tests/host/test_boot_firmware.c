/*
 * test_boot_firmware.c - host tests of what UEFI firmware hands the kernel
 * through GRUB: the EFI memory map tag (arch/x86_64/efi_mmap.c) and the
 * ACPI root, RSDP and XSDT/RSDT (arch/x86_64/acpi_root.c).
 *
 * Each input is built here byte by byte in the firmware's little-endian
 * layout (a tag of descriptors, an RSDP, a root table whose checksum the
 * builder sets), then copied into a malloc() of exactly the length the
 * parser is told, so ASan stops the run at the first byte read beyond it.
 * The cases: what OVMF gives (the merged map, each EFI type's PC type),
 * then what a careless or broken firmware gives, each refusal checked for
 * its words: tags cut short, a size the tag does not hold, descriptors
 * too small or of another version, a descriptor off a page or wrapping
 * past 2^64, overlapping descriptors, bad checksums and extended
 * checksums, a root table of the wrong signature or with half an entry;
 * and every cut of a good tag and a good XSDT.  Last, multiboot2_parse()
 * over whole information blocks: the EFI map preferred to the E820-style
 * one, the E820-style one when the EFI map is refused, and the firmware
 * told apart by the EFI system table tag.
 */
#include <kunit.h>
#include <kernel.h>
#include <printk.h>
#include <stdlib.h>
#include <string.h>
#include "../../arch/x86_64/efi_mmap.h"
#include "../../arch/x86_64/acpi_root.h"

#define MAP_MAX         16
#define TAG_MAX         1024
#define DESCS_MAX       16
#define PAGE            4096ull
#define MB2_TAG_EFI_MMAP_TYPE 17

/* ---- the EFI memory map tag builder ---- */

struct efi_desc_in {
	u32 type;
	u64 start;
	u64 pages;
	u64 attribute;
};

struct tag_builder {
	u8 buf[TAG_MAX];
	size_t len;
};

static struct tag_builder tb;
static struct boot_mmap_entry map[MAP_MAX];
static unsigned int nr_map;
static struct efi_mmap_stats stats;

static void put(struct tag_builder *b, size_t off, const void *v, size_t n)
{
	if (off + n <= TAG_MAX)
		memcpy(b->buf + off, v, n);
}

static void put32(struct tag_builder *b, size_t off, u32 v)
{
	put(b, off, &v, sizeof(v));
}

static void put64(struct tag_builder *b, size_t off, u64 v)
{
	put(b, off, &v, sizeof(v));
}

/* A tag of n descriptors of desc_size bytes (version 1), its size set. */
static void build_tag(const struct efi_desc_in *d, unsigned int n,
		      u32 desc_size)
{
	unsigned int i;

	memset(&tb, 0, sizeof(tb));
	put32(&tb, 0, MB2_TAG_EFI_MMAP_TYPE);
	put32(&tb, 8, desc_size);
	put32(&tb, 12, EFI_MEMORY_DESC_VERSION);
	for (i = 0; i < n; i++) {
		size_t off = EFI_MMAP_TAG_HEADER_LEN + (size_t)i * desc_size;

		put32(&tb, off, d[i].type);
		put64(&tb, off + 8, d[i].start);
		put64(&tb, off + 16, d[i].start);   /* virtual: unused */
		put64(&tb, off + 24, d[i].pages);
		put64(&tb, off + 32, d[i].attribute);
	}
	tb.len = EFI_MMAP_TAG_HEADER_LEN + (size_t)n * desc_size;
	put32(&tb, 4, (u32)tb.len);
}

/* Parse the first len bytes, from a buffer of exactly that size. */
static bool parse_exact(size_t len)
{
	u8 *copy = malloc(len ? len : 1);
	bool ok;

	memcpy(copy, tb.buf, len);
	memset(map, 0xa5, sizeof(map));
	ok = efi_mmap_parse_tag(copy, len, map, MAP_MAX, &nr_map, &stats);
	free(copy);
	return ok;
}

static void expect_warning(struct kunit *test, const char *line,
			   const char *words)
{
	if (!strstr(line, words))
		KUNIT_FAIL(test, "the warning says \"%s\", not \"%s\"", line,
			   words);
}

static void expect_refused(struct kunit *test, size_t len, const char *words)
{
	KUNIT_EXPECT_FALSE(test, parse_exact(len));
	KUNIT_EXPECT_EQ(test, nr_map, 0u);
	expect_warning(test, efi_mmap_last_warning(), words);
	expect_warning(test, efi_mmap_last_warning(), "using GRUB's e820 map");
}

static void expect_range(struct kunit *test, unsigned int i, u64 base,
			 u64 end, u32 type)
{
	KUNIT_ASSERT_LT(test, i, nr_map);
	KUNIT_EXPECT_EQ(test, map[i].base, base);
	KUNIT_EXPECT_EQ(test, map[i].base + map[i].length, end);
	KUNIT_EXPECT_EQ(test, map[i].type, type);
}

/* Like OVMF's: low RAM, loader and boot-services data among conventional
 * memory, runtime data, ACPI tables and NVS, the flash as MMIO. */
static const struct efi_desc_in ovmf_like[] = {
	{ EFI_CONVENTIONAL_MEMORY, 0x0, 0xa0, 0 },
	{ EFI_CONVENTIONAL_MEMORY, 0x100000, 0x100, 0 },
	{ EFI_LOADER_DATA, 0x200000, 0x200, 0 },
	{ EFI_BOOT_SERVICES_DATA, 0x400000, 0x100, 0 },
	{ EFI_BOOT_SERVICES_CODE, 0x500000, 0x100, 0 },
	{ EFI_RUNTIME_SERVICES_DATA, 0x600000, 0x10, EFI_MEMORY_RUNTIME },
	{ EFI_ACPI_RECLAIM_MEMORY, 0x610000, 0x10, 0 },
	{ EFI_ACPI_MEMORY_NVS, 0x620000, 0x10, 0 },
	{ EFI_CONVENTIONAL_MEMORY, 0x630000, 0x9d0, 0 },
	{ EFI_MEMORY_MAPPED_IO, 0xffc00000, 0x400, EFI_MEMORY_RUNTIME },
};

static void an_ovmf_like_map_is_merged_by_type(struct kunit *test)
{
	build_tag(ovmf_like, ARRAY_SIZE(ovmf_like), EFI_MEMORY_DESC_LEN);
	KUNIT_ASSERT_TRUE(test, parse_exact(tb.len));
	KUNIT_EXPECT_STREQ(test, efi_mmap_last_warning(), "");
	KUNIT_EXPECT_EQ(test, stats.nr_desc, 10u);
	KUNIT_EXPECT_EQ(test, stats.runtime, 2u);
	KUNIT_EXPECT_EQ(test, stats.overlaps, 0u);
	KUNIT_EXPECT_EQ(test, stats.boot_services_bytes, 0x200000ull);
	KUNIT_ASSERT_EQ(test, nr_map, 7u);
	expect_range(test, 0, 0x0, 0xa0000, MB2_MEMORY_AVAILABLE);
	/* conventional, loader data, boot services: one usable range */
	expect_range(test, 1, 0x100000, 0x600000, MB2_MEMORY_AVAILABLE);
	expect_range(test, 2, 0x600000, 0x610000, MB2_MEMORY_RESERVED);
	expect_range(test, 3, 0x610000, 0x620000, MB2_MEMORY_ACPI_RECLAIMABLE);
	expect_range(test, 4, 0x620000, 0x630000, MB2_MEMORY_NVS);
	expect_range(test, 5, 0x630000, 0x1000000, MB2_MEMORY_AVAILABLE);
	expect_range(test, 6, 0xffc00000, 0x100000000ull, MB2_MEMORY_RESERVED);
}

static void each_efi_type_has_its_pc_type(struct kunit *test)
{
	static const struct { u32 efi; u32 pc; } table[] = {
		{ EFI_RESERVED_TYPE, MB2_MEMORY_RESERVED },
		{ EFI_LOADER_CODE, MB2_MEMORY_AVAILABLE },
		{ EFI_LOADER_DATA, MB2_MEMORY_AVAILABLE },
		{ EFI_BOOT_SERVICES_CODE, MB2_MEMORY_AVAILABLE },
		{ EFI_BOOT_SERVICES_DATA, MB2_MEMORY_AVAILABLE },
		{ EFI_RUNTIME_SERVICES_CODE, MB2_MEMORY_RESERVED },
		{ EFI_RUNTIME_SERVICES_DATA, MB2_MEMORY_RESERVED },
		{ EFI_CONVENTIONAL_MEMORY, MB2_MEMORY_AVAILABLE },
		{ EFI_UNUSABLE_MEMORY, MB2_MEMORY_BADRAM },
		{ EFI_ACPI_RECLAIM_MEMORY, MB2_MEMORY_ACPI_RECLAIMABLE },
		{ EFI_ACPI_MEMORY_NVS, MB2_MEMORY_NVS },
		{ EFI_MEMORY_MAPPED_IO, MB2_MEMORY_RESERVED },
		{ EFI_MEMORY_MAPPED_IO_PORT_SPACE, MB2_MEMORY_RESERVED },
		{ EFI_PAL_CODE, MB2_MEMORY_RESERVED },
		{ EFI_PERSISTENT_MEMORY, MB2_MEMORY_RESERVED },
		{ EFI_UNACCEPTED_MEMORY, MB2_MEMORY_RESERVED },
		{ 0x70000000, MB2_MEMORY_RESERVED },   /* an OEM type */
	};
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(table); i++) {
		KUNIT_EXPECT_EQ(test, efi_memory_type_to_e820(table[i].efi, 0),
				table[i].pc);
		/* The runtime attribute reserves whatever the type. */
		KUNIT_EXPECT_EQ(test, efi_memory_type_to_e820(table[i].efi,
							      EFI_MEMORY_RUNTIME),
				(u32)MB2_MEMORY_RESERVED);
	}
}

static void conventional_memory_for_the_runtime_stays_reserved(struct kunit *test)
{
	static const struct efi_desc_in d[] = {
		{ EFI_CONVENTIONAL_MEMORY, 0x100000, 0x10, 0 },
		{ EFI_CONVENTIONAL_MEMORY, 0x110000, 0x10, EFI_MEMORY_RUNTIME },
	};

	build_tag(d, ARRAY_SIZE(d), EFI_MEMORY_DESC_LEN);
	KUNIT_ASSERT_TRUE(test, parse_exact(tb.len));
	KUNIT_ASSERT_EQ(test, nr_map, 2u);
	expect_range(test, 1, 0x110000, 0x120000, MB2_MEMORY_RESERVED);
	KUNIT_EXPECT_EQ(test, stats.runtime, 1u);
}

static void a_larger_descriptor_size_is_stepped_over(struct kunit *test)
{
	build_tag(ovmf_like, ARRAY_SIZE(ovmf_like), 48);
	KUNIT_ASSERT_TRUE(test, parse_exact(tb.len));
	KUNIT_EXPECT_EQ(test, nr_map, 7u);
}

static void a_tag_cut_inside_its_header_is_refused(struct kunit *test)
{
	build_tag(ovmf_like, 1, EFI_MEMORY_DESC_LEN);
	expect_refused(test, 10, "memory map tag cut short: 10 bytes, its header alone is 16");
}

static void a_tag_larger_than_the_block_is_refused(struct kunit *test)
{
	build_tag(ovmf_like, 2, EFI_MEMORY_DESC_LEN);
	/* The tag says 96 bytes; only 60 are there. */
	expect_refused(test, 60, "memory map tag says it is 96 bytes, but 60 are there");
}

static void a_descriptor_smaller_than_efi_s_is_refused(struct kunit *test)
{
	build_tag(ovmf_like, 2, 32);
	expect_refused(test, tb.len, "descriptor size 32: not a multiple of 8 of at least 40 bytes");
	build_tag(ovmf_like, 2, 44);
	expect_refused(test, tb.len, "descriptor size 44");
}

static void another_descriptor_version_is_refused(struct kunit *test)
{
	build_tag(ovmf_like, 2, EFI_MEMORY_DESC_LEN);
	put32(&tb, 12, 2);
	expect_refused(test, tb.len, "descriptor version 2, this kernel reads version 1");
}

static void a_tag_without_a_whole_descriptor_is_refused(struct kunit *test)
{
	build_tag(ovmf_like, 1, EFI_MEMORY_DESC_LEN);
	tb.len = EFI_MMAP_TAG_HEADER_LEN + 39;
	put32(&tb, 4, (u32)tb.len);
	expect_refused(test, tb.len, "holds no whole descriptor (39 bytes after the header, descriptors of 40)");
}

static void a_partial_last_descriptor_is_ignored(struct kunit *test)
{
	build_tag(ovmf_like, 3, EFI_MEMORY_DESC_LEN);
	tb.len -= 8;    /* the third descriptor loses its attribute */
	put32(&tb, 4, (u32)tb.len);
	KUNIT_ASSERT_TRUE(test, parse_exact(tb.len));
	KUNIT_EXPECT_EQ(test, stats.nr_desc, 2u);
	expect_warning(test, efi_mmap_last_warning(),
		       "ends in 32 bytes that are no whole descriptor");
	KUNIT_EXPECT_EQ(test, nr_map, 2u);
}

static void a_descriptor_off_a_page_is_skipped(struct kunit *test)
{
	static const struct efi_desc_in d[] = {
		{ EFI_CONVENTIONAL_MEMORY, 0x100000, 0x10, 0 },
		{ EFI_CONVENTIONAL_MEMORY, 0x200800, 0x10, 0 },
	};

	build_tag(d, ARRAY_SIZE(d), EFI_MEMORY_DESC_LEN);
	KUNIT_ASSERT_TRUE(test, parse_exact(tb.len));
	KUNIT_EXPECT_EQ(test, nr_map, 1u);
	KUNIT_EXPECT_EQ(test, stats.skipped, 1u);
	expect_warning(test, efi_mmap_last_warning(),
		       "descriptor 1 (conventional, start 0x200800, 16 pages) starts inside a 4 KiB page; skipped");
}

static void a_descriptor_past_2_64_is_skipped(struct kunit *test)
{
	static const struct efi_desc_in d[] = {
		{ EFI_CONVENTIONAL_MEMORY, 0x100000, 0x10, 0 },
		{ EFI_RESERVED_TYPE, 0xfffffffffff00000ull, 0x200, 0 },
		{ EFI_CONVENTIONAL_MEMORY, 0x200000, ~0ull, 0 },
	};

	build_tag(d, ARRAY_SIZE(d), EFI_MEMORY_DESC_LEN);
	KUNIT_ASSERT_TRUE(test, parse_exact(tb.len));
	KUNIT_EXPECT_EQ(test, nr_map, 1u);
	KUNIT_EXPECT_EQ(test, stats.skipped, 2u);
	expect_warning(test, efi_mmap_last_warning(),
		       "descriptor 2 (conventional, start 0x200000");
	expect_warning(test, efi_mmap_last_warning(),
		       "runs past the end of the 64-bit address space; skipped");
}

static void empty_descriptors_are_counted_not_kept(struct kunit *test)
{
	static const struct efi_desc_in d[] = {
		{ EFI_CONVENTIONAL_MEMORY, 0x100000, 0, 0 },
		{ EFI_CONVENTIONAL_MEMORY, 0x200000, 0x10, 0 },
	};

	build_tag(d, ARRAY_SIZE(d), EFI_MEMORY_DESC_LEN);
	KUNIT_ASSERT_TRUE(test, parse_exact(tb.len));
	KUNIT_EXPECT_EQ(test, stats.empty, 1u);
	KUNIT_EXPECT_EQ(test, nr_map, 1u);
	/* Nothing but empty descriptors: no map at all. */
	build_tag(d, 1, EFI_MEMORY_DESC_LEN);
	expect_refused(test, tb.len, "memory map of 1 descriptors holds no range");
}

static void overlapping_descriptors_are_named(struct kunit *test)
{
	static const struct efi_desc_in d[] = {
		{ EFI_CONVENTIONAL_MEMORY, 0x100000, 0x100, 0 },
		{ EFI_ACPI_MEMORY_NVS, 0x300000, 0x10, 0 },
		{ EFI_RUNTIME_SERVICES_DATA, 0x180000, 0x10, EFI_MEMORY_RUNTIME },
		{ EFI_CONVENTIONAL_MEMORY, 0x308000, 0x10, 0 },
	};

	build_tag(d, ARRAY_SIZE(d), EFI_MEMORY_DESC_LEN);
	KUNIT_ASSERT_TRUE(test, parse_exact(tb.len));
	KUNIT_EXPECT_EQ(test, stats.overlaps, 2u);
	expect_warning(test, efi_mmap_last_warning(),
		       "descriptors 0 [mem 0x000000100000-0x0000001fffff] (conventional) and 2 [mem 0x000000180000-0x00000018ffff] (runtime-services data) overlap");
	/* Both kept: memblock lets the reserved type win the overlap. */
	KUNIT_EXPECT_EQ(test, nr_map, 4u);
}

static void ranges_beyond_the_array_are_counted(struct kunit *test)
{
	struct efi_desc_in d[DESCS_MAX + 4];
	unsigned int i;

	/* Alternating types, so nothing merges. */
	for (i = 0; i < ARRAY_SIZE(d); i++) {
		d[i].type = i % 2 ? EFI_ACPI_MEMORY_NVS : EFI_CONVENTIONAL_MEMORY;
		d[i].start = 0x100000 + i * PAGE;
		d[i].pages = 1;
		d[i].attribute = 0;
	}
	build_tag(d, ARRAY_SIZE(d), EFI_MEMORY_DESC_LEN);
	KUNIT_ASSERT_TRUE(test, parse_exact(tb.len));
	KUNIT_EXPECT_EQ(test, nr_map, (unsigned int)MAP_MAX);
	KUNIT_EXPECT_EQ(test, stats.dropped, (unsigned int)ARRAY_SIZE(d) - MAP_MAX);
	expect_warning(test, efi_mmap_last_warning(), "4 ranges beyond the first 16 ignored");
}

/* Every length short of the whole tag: refused, or (once the tag's own
 * size fits) never a read past the end. */
static void every_cut_of_a_tag_is_refused(struct kunit *test)
{
	int saved_loglevel = console_loglevel;
	size_t len;

	build_tag(ovmf_like, ARRAY_SIZE(ovmf_like), EFI_MEMORY_DESC_LEN);
	console_loglevel = LOGLEVEL_ERR;   /* a refusal a length: quiet */
	for (len = 0; len < tb.len; len++) {
		if (parse_exact(len))
			KUNIT_FAIL(test, "a tag cut to %zu of %zu bytes was accepted",
				   len, tb.len);
		else if (!strstr(efi_mmap_last_warning(), "using GRUB's e820 map"))
			KUNIT_FAIL(test, "a tag cut to %zu bytes: \"%s\"", len,
				   efi_mmap_last_warning());
	}
	console_loglevel = saved_loglevel;
	KUNIT_EXPECT_TRUE(test, parse_exact(tb.len));
}

/* ---- the ACPI root ---- */

static u8 rsdp[ACPI_RSDP_V2_LEN];
static u8 sdt[256];
static size_t sdt_len;
static char why[ACPI_WHY_MAX];

static u8 sum8(const u8 *p, size_t n)
{
	u8 s = 0;

	while (n--)
		s += *p++;
	return s;
}

/* A good RSDP of `revision` (0: 20 bytes, 2: 36). */
static void build_rsdp(u8 revision)
{
	u32 len = ACPI_RSDP_V2_LEN, rsdt = 0x7fe1000;
	u64 xsdt = 0x17fe2000ull;    /* above 4 GiB: a 64-bit address */

	memset(rsdp, 0, sizeof(rsdp));
	memcpy(rsdp, ACPI_RSDP_SIGNATURE, 8);
	memcpy(rsdp + 9, "BOCHS ", 6);
	rsdp[15] = revision;
	memcpy(rsdp + 16, &rsdt, 4);
	if (revision >= ACPI_RSDP_REVISION_2) {
		memcpy(rsdp + 20, &len, 4);
		memcpy(rsdp + 24, &xsdt, 8);
	}
	rsdp[8] = (u8)-sum8(rsdp, ACPI_RSDP_V1_LEN);
	if (revision >= ACPI_RSDP_REVISION_2)
		rsdp[32] = (u8)-sum8(rsdp, ACPI_RSDP_V2_LEN);
}

static bool check_rsdp_exact(size_t len, struct acpi_root *root)
{
	u8 *copy = malloc(len ? len : 1);
	bool ok;

	memcpy(copy, rsdp, len);
	why[0] = '\0';
	ok = acpi_rsdp_check(copy, len, root, why);
	free(copy);
	return ok;
}

/* A good root table (sig "XSDT" or "RSDT") listing `n` addresses. */
static void build_sdt(const char *sig, const u64 *addr, unsigned int n)
{
	unsigned int size = memcmp(sig, "XSDT", 4) ? 4 : 8, i;
	u32 len;

	memset(sdt, 0, sizeof(sdt));
	memcpy(sdt, sig, 4);
	sdt[8] = 1;                             /* revision */
	memcpy(sdt + 10, "BOCHS ", 6);
	for (i = 0; i < n; i++)
		memcpy(sdt + ACPI_SDT_HEADER_LEN + i * size, &addr[i], size);
	len = ACPI_SDT_HEADER_LEN + n * size;
	memcpy(sdt + 4, &len, 4);
	sdt[9] = (u8)-sum8(sdt, len);
	sdt_len = len;
}

static bool check_sdt_exact(size_t len, bool is_xsdt,
			    struct acpi_sdt_view *v, u64 *out, unsigned int max)
{
	u8 *copy = malloc(len ? len : 1);
	unsigned int i;
	bool ok;

	memcpy(copy, sdt, len);
	why[0] = '\0';
	ok = acpi_sdt_check(copy, len, is_xsdt, v, why);
	for (i = 0; ok && i < v->nr && i < max; i++)
		out[i] = acpi_sdt_entry(v, i);    /* read while copy lives */
	free(copy);
	return ok;
}

static void expect_why(struct kunit *test, const char *words)
{
	if (!strstr(why, words))
		KUNIT_FAIL(test, "the refusal says \"%s\", not \"%s\"", why,
			   words);
}

static void rsdp_acpi_1_and_2_are_read(struct kunit *test)
{
	struct acpi_root root;

	build_rsdp(0);
	KUNIT_ASSERT_TRUE(test, check_rsdp_exact(ACPI_RSDP_V1_LEN, &root));
	KUNIT_EXPECT_EQ(test, root.revision, 0);
	KUNIT_EXPECT_EQ(test, root.rsdt_phys, 0x7fe1000u);
	KUNIT_EXPECT_EQ(test, root.xsdt_phys, 0ull);
	KUNIT_EXPECT_STREQ(test, root.oem_id, "BOCHS ");
	KUNIT_EXPECT_STREQ(test, acpi_revision_name(root.revision), "ACPI 1.0");
	build_rsdp(2);
	KUNIT_ASSERT_TRUE(test, check_rsdp_exact(ACPI_RSDP_V2_LEN, &root));
	KUNIT_EXPECT_EQ(test, root.revision, 2);
	KUNIT_EXPECT_EQ(test, root.xsdt_phys, 0x17fe2000ull);
	KUNIT_EXPECT_EQ(test, root.length, (u32)ACPI_RSDP_V2_LEN);
	KUNIT_EXPECT_STREQ(test, acpi_revision_name(root.revision), "ACPI 2.0+");
}

static void rsdp_bad_signature_or_checksum_is_refused(struct kunit *test)
{
	struct acpi_root root;

	build_rsdp(0);
	rsdp[0] = 'X';
	KUNIT_EXPECT_FALSE(test, check_rsdp_exact(ACPI_RSDP_V1_LEN, &root));
	expect_why(test, "RSDP signature is not \"RSD PTR \"");
	build_rsdp(0);
	rsdp[8] ^= 1;
	KUNIT_EXPECT_FALSE(test, check_rsdp_exact(ACPI_RSDP_V1_LEN, &root));
	expect_why(test, "RSDP checksum is wrong: its first 20 bytes sum to 0xff, not 0");
	build_rsdp(0);
	KUNIT_EXPECT_FALSE(test, check_rsdp_exact(19, &root));
	expect_why(test, "RSDP cut short: 19 bytes, an ACPI 1.0 RSDP is 20");
}

static void rsdp_bad_extended_checksum_is_refused(struct kunit *test)
{
	struct acpi_root root;

	build_rsdp(2);
	rsdp[28] ^= 0x10;      /* the XSDT address: only the extended sum */
	KUNIT_EXPECT_FALSE(test, check_rsdp_exact(ACPI_RSDP_V2_LEN, &root));
	expect_why(test, "ACPI 2.0 RSDP extended checksum is wrong: its 36 bytes sum to 0x10, not 0");
}

static void rsdp_acpi_2_cut_short_or_overlong_is_refused(struct kunit *test)
{
	struct acpi_root root;
	u32 len = 64;

	build_rsdp(2);
	KUNIT_EXPECT_FALSE(test, check_rsdp_exact(ACPI_RSDP_V1_LEN, &root));
	expect_why(test, "ACPI 2.0 RSDP (revision 2) cut short: 20 bytes of 36");
	build_rsdp(2);
	memcpy(rsdp + 20, &len, 4);
	rsdp[8] = 0;
	rsdp[8] = (u8)-sum8(rsdp, ACPI_RSDP_V1_LEN);
	KUNIT_EXPECT_FALSE(test, check_rsdp_exact(ACPI_RSDP_V2_LEN, &root));
	expect_why(test, "ACPI 2.0 RSDP says it is 64 bytes: at least 36, and 36 are there");
}

static void xsdt_64_bit_addresses_are_read(struct kunit *test)
{
	static const u64 addr[] = { 0x7fe3000, 0x100000000ull + 0x5000, 0,
				    0x7fe4000 };
	struct acpi_sdt_view v;
	u64 got[4] = { 0 };
	unsigned int i;

	build_sdt("XSDT", addr, 4);
	KUNIT_ASSERT_TRUE(test, check_sdt_exact(sdt_len, true, &v, got, 4));
	KUNIT_EXPECT_EQ(test, v.nr, 4u);
	KUNIT_EXPECT_EQ(test, v.entry_size, 8u);
	KUNIT_EXPECT_EQ(test, v.nr_null, 1u);
	for (i = 0; i < 4; i++)
		KUNIT_EXPECT_EQ(test, got[i], addr[i]);
}

static void rsdt_32_bit_addresses_are_read(struct kunit *test)
{
	static const u64 addr[] = { 0x7fe3000, 0x7fe4000, 0x7fe5000 };
	struct acpi_sdt_view v;
	u64 got[3] = { 0 };

	build_sdt("RSDT", addr, 3);
	KUNIT_ASSERT_TRUE(test, check_sdt_exact(sdt_len, false, &v, got, 3));
	KUNIT_EXPECT_EQ(test, v.nr, 3u);
	KUNIT_EXPECT_EQ(test, got[2], 0x7fe5000ull);
	/* An RSDT is no XSDT. */
	KUNIT_EXPECT_FALSE(test, check_sdt_exact(sdt_len, true, &v, got, 3));
	expect_why(test, "XSDT expected, the signature is \"RSDT\"");
}

static void xsdt_bad_checksum_is_refused(struct kunit *test)
{
	static const u64 addr[] = { 0x7fe3000, 0x7fe4000 };
	struct acpi_sdt_view v;
	u64 got[2];

	build_sdt("XSDT", addr, 2);
	sdt[ACPI_SDT_HEADER_LEN] ^= 0x01;
	KUNIT_EXPECT_FALSE(test, check_sdt_exact(sdt_len, true, &v, got, 2));
	expect_why(test, "XSDT checksum is wrong: its 52 bytes sum to 0x1, not 0");
}

static void xsdt_with_half_an_entry_is_refused(struct kunit *test)
{
	static const u64 addr[] = { 0x7fe3000, 0x7fe4000 };
	struct acpi_sdt_view v;
	u32 len = ACPI_SDT_HEADER_LEN + 12;
	u64 got[2];

	build_sdt("XSDT", addr, 2);
	memcpy(sdt + 4, &len, 4);
	sdt[9] = 0;
	sdt[9] = (u8)-sum8(sdt, len);
	KUNIT_EXPECT_FALSE(test, check_sdt_exact(len, true, &v, got, 2));
	expect_why(test, "XSDT of 48 bytes: its 12 bytes after the header are no whole number of 8-byte addresses");
}

static void xsdt_longer_than_what_is_there_is_refused(struct kunit *test)
{
	static const u64 addr[] = { 0x7fe3000, 0x7fe4000 };
	struct acpi_sdt_view v;
	u64 got[2];

	build_sdt("XSDT", addr, 2);
	KUNIT_EXPECT_FALSE(test, check_sdt_exact(sdt_len - 8, true, &v, got, 2));
	expect_why(test, "XSDT says it is 52 bytes: at least 36, and 44 are there");
	KUNIT_EXPECT_FALSE(test, check_sdt_exact(20, true, &v, got, 2));
	expect_why(test, "XSDT cut short: 20 bytes, its header alone is 36");
}

static void every_cut_of_an_xsdt_or_rsdp_is_refused(struct kunit *test)
{
	static const u64 addr[] = { 0x7fe3000, 0x7fe4000, 0x7fe5000 };
	struct acpi_sdt_view v;
	struct acpi_root root;
	u64 got[3];
	size_t len;

	build_sdt("XSDT", addr, 3);
	for (len = 0; len < sdt_len; len++)
		if (check_sdt_exact(len, true, &v, got, 3))
			KUNIT_FAIL(test, "an XSDT cut to %zu of %zu bytes was accepted",
				   len, sdt_len);
	build_rsdp(2);
	for (len = 0; len < ACPI_RSDP_V2_LEN; len++)
		if (check_rsdp_exact(len, &root))
			KUNIT_FAIL(test, "an ACPI 2.0 RSDP cut to %zu bytes was accepted",
				   len);
}

/* ---- whole multiboot2 blocks ---- */

#define MB2_INFO_MAX 2048

/* GRUB's block starts on 8 bytes, as every tag in it. */
static u8 info[MB2_INFO_MAX] __attribute__((aligned(8)));
static size_t info_len;

static void info_start(void)
{
	memset(info, 0, sizeof(info));
	info_len = 8;
}

/* Append a tag (type, then `len` bytes of body), 8-byte aligned. */
static void info_tag(u32 type, const void *body, u32 len)
{
	u32 size = 8 + len;

	memcpy(info + info_len, &type, 4);
	memcpy(info + info_len + 4, &size, 4);
	if (len)
		memcpy(info + info_len + 8, body, len);
	info_len += (size + 7) & ~7u;
}

static void info_end(void)
{
	u32 total;

	info_tag(MB2_TAG_END, NULL, 0);
	total = (u32)info_len;
	memcpy(info, &total, 4);
}

/* An E820-style tag of one usable range [1 MiB, 16 MiB). */
static void info_e820_tag(void)
{
	u8 body[8 + 24] = { 0 };
	u32 entry_size = 24;
	u64 base = 0x100000, len = 0xf00000;
	u32 type = MB2_MEMORY_AVAILABLE;

	memcpy(body, &entry_size, 4);
	memcpy(body + 8, &base, 8);
	memcpy(body + 16, &len, 8);
	memcpy(body + 24, &type, 4);
	info_tag(MB2_TAG_MMAP, body, sizeof(body));
}

/* The builder's EFI tag (tb), whose first 8 bytes are its own header. */
static void info_efi_tag(void)
{
	info_tag(MB2_TAG_EFI_MMAP, tb.buf + 8, (u32)tb.len - 8);
}

static void info_efi64_tag(void)
{
	u64 system_table = 0x7f9e018;

	info_tag(MB2_TAG_EFI64, &system_table, sizeof(system_table));
}

static void multiboot2_prefers_the_efi_map(struct kunit *test)
{
	build_tag(ovmf_like, ARRAY_SIZE(ovmf_like), EFI_MEMORY_DESC_LEN);
	info_start();
	info_e820_tag();           /* GRUB puts tag 6 first */
	info_efi64_tag();
	info_efi_tag();
	info_end();
	KUNIT_ASSERT_TRUE(test, multiboot2_parse(MB2_BOOTLOADER_MAGIC, info,
						 0x9000));
	KUNIT_EXPECT_EQ(test, boot_info.firmware, BOOT_FIRMWARE_UEFI);
	KUNIT_EXPECT_EQ(test, boot_info.efi_system_table, 0x7f9e018ull);
	KUNIT_EXPECT_EQ(test, boot_info.mmap_source, BOOT_MMAP_EFI);
	KUNIT_EXPECT_EQ(test, boot_info.nr_mmap, 7u);
	KUNIT_EXPECT_EQ(test, boot_info.efi_nr_desc, 10u);
	KUNIT_EXPECT_EQ(test, boot_info.efi_runtime, 2u);
	KUNIT_EXPECT_FALSE(test, boot_info.efi_mmap_refused);
}

static void multiboot2_falls_back_to_the_e820_map(struct kunit *test)
{
	build_tag(ovmf_like, ARRAY_SIZE(ovmf_like), EFI_MEMORY_DESC_LEN);
	put32(&tb, 8, 24);         /* descriptors too small: refused */
	info_start();
	info_efi64_tag();
	info_efi_tag();
	info_e820_tag();
	info_end();
	KUNIT_ASSERT_TRUE(test, multiboot2_parse(MB2_BOOTLOADER_MAGIC, info,
						 0x9000));
	KUNIT_EXPECT_EQ(test, boot_info.firmware, BOOT_FIRMWARE_UEFI);
	KUNIT_EXPECT_EQ(test, boot_info.mmap_source, BOOT_MMAP_E820);
	KUNIT_EXPECT_TRUE(test, boot_info.efi_mmap_refused);
	KUNIT_ASSERT_EQ(test, boot_info.nr_mmap, 1u);
	KUNIT_EXPECT_EQ(test, boot_info.mmap[0].base, 0x100000ull);
	expect_warning(test, efi_mmap_last_warning(), "descriptor size 24");
}

static void multiboot2_without_efi_tags_is_bios(struct kunit *test)
{
	info_start();
	info_e820_tag();
	info_end();
	KUNIT_ASSERT_TRUE(test, multiboot2_parse(MB2_BOOTLOADER_MAGIC, info,
						 0x9000));
	KUNIT_EXPECT_EQ(test, boot_info.firmware, BOOT_FIRMWARE_BIOS);
	KUNIT_EXPECT_EQ(test, boot_info.mmap_source, BOOT_MMAP_E820);
	KUNIT_EXPECT_FALSE(test, boot_info.efi_mmap_refused);
	KUNIT_EXPECT_EQ(test, boot_info.nr_mmap, 1u);
}

static struct kunit_case efi_mmap_cases[] = {
	KUNIT_CASE(an_ovmf_like_map_is_merged_by_type),
	KUNIT_CASE(each_efi_type_has_its_pc_type),
	KUNIT_CASE(conventional_memory_for_the_runtime_stays_reserved),
	KUNIT_CASE(a_larger_descriptor_size_is_stepped_over),
	KUNIT_CASE(a_tag_cut_inside_its_header_is_refused),
	KUNIT_CASE(a_tag_larger_than_the_block_is_refused),
	KUNIT_CASE(a_descriptor_smaller_than_efi_s_is_refused),
	KUNIT_CASE(another_descriptor_version_is_refused),
	KUNIT_CASE(a_tag_without_a_whole_descriptor_is_refused),
	KUNIT_CASE(a_partial_last_descriptor_is_ignored),
	KUNIT_CASE(a_descriptor_off_a_page_is_skipped),
	KUNIT_CASE(a_descriptor_past_2_64_is_skipped),
	KUNIT_CASE(empty_descriptors_are_counted_not_kept),
	KUNIT_CASE(overlapping_descriptors_are_named),
	KUNIT_CASE(ranges_beyond_the_array_are_counted),
	KUNIT_CASE(every_cut_of_a_tag_is_refused),
	{}
};

static struct kunit_suite efi_mmap_suite = {
	.name = "efi_mmap",
	.test_cases = efi_mmap_cases,
};
kunit_test_suite(efi_mmap_suite);

static struct kunit_case acpi_root_cases[] = {
	KUNIT_CASE(rsdp_acpi_1_and_2_are_read),
	KUNIT_CASE(rsdp_bad_signature_or_checksum_is_refused),
	KUNIT_CASE(rsdp_bad_extended_checksum_is_refused),
	KUNIT_CASE(rsdp_acpi_2_cut_short_or_overlong_is_refused),
	KUNIT_CASE(xsdt_64_bit_addresses_are_read),
	KUNIT_CASE(rsdt_32_bit_addresses_are_read),
	KUNIT_CASE(xsdt_bad_checksum_is_refused),
	KUNIT_CASE(xsdt_with_half_an_entry_is_refused),
	KUNIT_CASE(xsdt_longer_than_what_is_there_is_refused),
	KUNIT_CASE(every_cut_of_an_xsdt_or_rsdp_is_refused),
	{}
};

static struct kunit_suite acpi_root_suite = {
	.name = "acpi_root",
	.test_cases = acpi_root_cases,
};
kunit_test_suite(acpi_root_suite);

static struct kunit_case multiboot2_cases[] = {
	KUNIT_CASE(multiboot2_prefers_the_efi_map),
	KUNIT_CASE(multiboot2_falls_back_to_the_e820_map),
	KUNIT_CASE(multiboot2_without_efi_tags_is_bios),
	{}
};

static struct kunit_suite multiboot2_suite = {
	.name = "multiboot2",
	.test_cases = multiboot2_cases,
};
kunit_test_suite(multiboot2_suite);
