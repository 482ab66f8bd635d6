/*
 * test_mm_srat.c - host tests of arch/x86_64/srat.c: the SRAT and SLIT
 * parsers on tables built here byte by byte.
 *
 * A small builder (struct acpi_builder) appends entries in the firmware's
 * little-endian layout and, when finished, writes the header's length and
 * checksum, so each case reads like the table it describes.  The cases
 * cover what QEMU gives, what a careless firmware gives (every refusal of
 * srat.h, each checked for its exact words through
 * acpi_numa_last_warning()), and what a broken one gives: every cut of a
 * valid table and a few thousand random ones.  Those copy the table into
 * a malloc() of exactly the length the parser is told, so ASan stops the
 * run at the first byte read beyond it.
 *
 * srat_check_topology() states the invariants of an accepted topology
 * (include/numa.h) as code; every accepted table goes through it, and
 * every refused one must leave the topology all zero.
 */
#include <kunit.h>
#include <kernel.h>
#include <numa.h>
#include <prandom.h>
#include <printk.h>
#include <stdlib.h>
#include <string.h>
#include "../../arch/x86_64/srat.h"

#define MiB (1ull << 20)

#define ACPI_HEADER_LEN        36
#define ACPI_LENGTH_OFFSET     4
#define ACPI_REVISION_OFFSET   8
#define ACPI_CHECKSUM_OFFSET   9
#define SRAT_REVISION          3
#define SRAT_RESERVED_LEN      12
#define SRAT_ENTRIES_OFFSET    (ACPI_HEADER_LEN + SRAT_RESERVED_LEN)
#define SLIT_REVISION          1
#define SLIT_MATRIX_OFFSET     (ACPI_HEADER_LEN + 8)

#define SRAT_CPU_AFFINITY      0
#define SRAT_CPU_AFFINITY_LEN  16
#define SRAT_MEMORY_AFFINITY   1
#define SRAT_MEMORY_AFFINITY_LEN 40
#define SRAT_MEM_FLAGS         28    /* the low byte of its flags */
#define SRAT_X2APIC_AFFINITY   2
#define SRAT_X2APIC_AFFINITY_LEN 24
#define SRAT_GICC_AFFINITY     3     /* an ARM entry: skipped on x86 */
#define SRAT_GICC_AFFINITY_LEN 18
#define SRAT_ENABLED           (1u << 0)
#define SRAT_HOT_PLUGGABLE     (1u << 1)
#define SRAT_DISABLED          0

#define BUILDER_MAX            4096
#define BUILDER_MAX_ENTRIES    128

#define SRAT_TAIL              "; using one node"
#define SLIT_TAIL              "; using the default distances (10 local, 20 remote)"

#define RANDOM_SEED            0x5a7a7ab1eull
#define RANDOM_TABLES          3000
#define RANDOM_ENTRIES_MAX     12
#define RANDOM_TAIL_MAX        8

/* A table being built: bytes, and where each entry starts. */
struct acpi_builder {
	u8 buf[BUILDER_MAX];
	size_t len;
	unsigned int nr_entries;
	size_t entry_start[BUILDER_MAX_ENTRIES];
};

static struct acpi_builder builder;
static struct numa_topology topo;

/* ---- the builder ---- */

static void put_u8(struct acpi_builder *b, u8 v)
{
	if (b->len < BUILDER_MAX)
		b->buf[b->len] = v;
	b->len++;
}

static void put_le(struct acpi_builder *b, u64 v, unsigned int bytes)
{
	unsigned int i;

	for (i = 0; i < bytes; i++)
		put_u8(b, (u8)(v >> (8 * i)));
}

static void put_u16(struct acpi_builder *b, u16 v) { put_le(b, v, 2); }
static void put_u32(struct acpi_builder *b, u32 v) { put_le(b, v, 4); }
static void put_u64(struct acpi_builder *b, u64 v) { put_le(b, v, 8); }

static void table_begin(struct acpi_builder *b, const char *signature,
			u8 revision)
{
	memset(b, 0, sizeof(*b));
	memcpy(b->buf, signature, 4);
	b->buf[ACPI_REVISION_OFFSET] = revision;
	b->len = ACPI_HEADER_LEN;
}

/* The length and checksum fields, as acpi.c's caller checked them. */
static size_t table_finish(struct acpi_builder *b)
{
	size_t i;
	u8 sum = 0;

	b->buf[ACPI_LENGTH_OFFSET] = (u8)b->len;
	b->buf[ACPI_LENGTH_OFFSET + 1] = (u8)(b->len >> 8);
	b->buf[ACPI_CHECKSUM_OFFSET] = 0;
	for (i = 0; i < b->len; i++)
		sum += b->buf[i];
	b->buf[ACPI_CHECKSUM_OFFSET] = (u8)(0x100 - sum);
	return b->len;
}

static void srat_begin(struct acpi_builder *b)
{
	table_begin(b, "SRAT", SRAT_REVISION);
	put_u32(b, 1);   /* reserved, 1 for compatibility (ACPI 6.5, 5.2.16) */
	put_u64(b, 0);
}

static void entry_begin(struct acpi_builder *b, u8 type, u8 length)
{
	if (b->nr_entries < BUILDER_MAX_ENTRIES)
		b->entry_start[b->nr_entries++] = b->len;
	put_u8(b, type);
	put_u8(b, length);
}

static void srat_cpu(struct acpi_builder *b, u32 domain, u8 apic_id,
		     u32 flags)
{
	entry_begin(b, SRAT_CPU_AFFINITY, SRAT_CPU_AFFINITY_LEN);
	put_u8(b, (u8)domain);
	put_u8(b, apic_id);
	put_u32(b, flags);
	put_u8(b, 0);                 /* local SAPIC EID */
	put_le(b, domain >> 8, 3);    /* domain bits 8-31 */
	put_u32(b, 0);                /* clock domain */
}

static void srat_x2apic(struct acpi_builder *b, u32 domain, u32 x2apic_id,
			u32 flags)
{
	entry_begin(b, SRAT_X2APIC_AFFINITY, SRAT_X2APIC_AFFINITY_LEN);
	put_u16(b, 0);
	put_u32(b, domain);
	put_u32(b, x2apic_id);
	put_u32(b, flags);
	put_u32(b, 0);                /* clock domain */
	put_u32(b, 0);
}

static void srat_memory(struct acpi_builder *b, u32 domain, u64 base,
			u64 size, u32 flags)
{
	entry_begin(b, SRAT_MEMORY_AFFINITY, SRAT_MEMORY_AFFINITY_LEN);
	put_u32(b, domain);
	put_u16(b, 0);
	put_u64(b, base);
	put_u64(b, size);
	put_u32(b, 0);
	put_u32(b, flags);
	put_u64(b, 0);
}

/* An entry of any type and length, its body zero. */
static void srat_raw(struct acpi_builder *b, u8 type, u8 length)
{
	unsigned int i;

	entry_begin(b, type, length);
	for (i = 2; i < length; i++)
		put_u8(b, 0);
}

static void slit_build(struct acpi_builder *b, u64 count, const u8 *matrix,
		       size_t matrix_bytes)
{
	size_t i;

	table_begin(b, "SLIT", SLIT_REVISION);
	put_u64(b, count);
	for (i = 0; i < matrix_bytes; i++)
		put_u8(b, matrix[i]);
	table_finish(b);
}

/* What QEMU builds for two nodes of 64 MiB and a CPU each (-numa
 * node,nodeid=0,cpus=0 ... nodeid=1,cpus=1): the hole at 640 KiB splits
 * node 0's memory; a disabled entry for the hot-plug area ends it. */
static size_t build_qemu_two_nodes(struct acpi_builder *b)
{
	srat_begin(b);
	srat_cpu(b, 0, 0, SRAT_ENABLED);
	srat_cpu(b, 1, 1, SRAT_ENABLED);
	srat_memory(b, 0, 0, 0xa0000, SRAT_ENABLED);
	srat_memory(b, 0, 1 * MiB, 63 * MiB, SRAT_ENABLED);
	srat_memory(b, 1, 64 * MiB, 64 * MiB, SRAT_ENABLED);
	srat_memory(b, 0, 0, 0, SRAT_DISABLED);
	return table_finish(b);
}

/* ---- checks ---- */

/* The invariants include/numa.h states for an accepted topology. */
static void srat_check_topology(struct kunit *test,
				const struct numa_topology *t)
{
	unsigned int i, j;

	KUNIT_EXPECT_TRUE(test, t->valid);
	KUNIT_EXPECT_FALSE(test, t->has_distances);
	for (i = 0; i < MAX_NUMNODES; i++)
		for (j = 0; j < MAX_NUMNODES; j++)
			KUNIT_EXPECT_EQ(test, t->distance[i][j],
					i == j ? LOCAL_DISTANCE :
						 REMOTE_DISTANCE);
	KUNIT_ASSERT_GE(test, t->nr_nodes, 1);
	KUNIT_ASSERT_LE(test, t->nr_nodes, MAX_NUMNODES);
	KUNIT_ASSERT_GE(test, t->nr_memblks, 1);
	KUNIT_ASSERT_LE(test, t->nr_memblks, NUMA_MAX_MEMBLKS);
	KUNIT_ASSERT_LE(test, t->nr_cpus, NR_CPUS);
	for (i = 1; i < t->nr_nodes; i++)
		KUNIT_EXPECT_LT(test, t->pxm[i - 1], t->pxm[i]);
	for (i = 0; i < t->nr_memblks; i++) {
		const struct numa_memblk *b = &t->memblk[i];

		KUNIT_EXPECT_LT(test, b->start, b->end);
		KUNIT_EXPECT_LE(test, b->end, 1ull << 52);
		KUNIT_EXPECT_GE(test, b->nid, 0);
		KUNIT_EXPECT_LT(test, b->nid, (int)t->nr_nodes);
		if (i)   /* sorted, and no two overlap */
			KUNIT_EXPECT_LE(test, t->memblk[i - 1].end, b->start);
	}
	for (i = 0; i < t->nr_cpus; i++) {
		KUNIT_EXPECT_GE(test, t->cpu[i].nid, 0);
		KUNIT_EXPECT_LT(test, t->cpu[i].nid, (int)t->nr_nodes);
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_NE(test, t->cpu[j].apic_id,
					t->cpu[i].apic_id);
	}
	/* Every node holds something. */
	for (i = 0; i < t->nr_nodes; i++) {
		bool used = false;

		for (j = 0; j < t->nr_memblks; j++)
			used |= t->memblk[j].nid == (int)i;
		for (j = 0; j < t->nr_cpus; j++)
			used |= t->cpu[j].nid == (int)i;
		KUNIT_EXPECT_TRUE(test, used);
	}
}

static bool topology_is_zero(const struct numa_topology *t)
{
	static const struct numa_topology zero;

	return !memcmp(t, &zero, sizeof(zero));
}

static bool starts_with(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* Parse the builder's table, told `len` bytes, from an exact malloc(). */
static bool parse_srat_exact(const struct acpi_builder *b, size_t len)
{
	u8 *copy = malloc(len ? len : 1);
	bool ok;

	memcpy(copy, b->buf, len);
	ok = acpi_parse_srat(copy, len, &topo);
	free(copy);
	return ok;
}

static bool parse_slit_exact(const struct acpi_builder *b, size_t len)
{
	u8 *copy = malloc(len ? len : 1);
	bool ok;

	memcpy(copy, b->buf, len);
	ok = acpi_parse_slit(copy, len, &topo);
	free(copy);
	return ok;
}

/* The table refused, the topology zeroed, one line saying `why`. */
static void expect_srat_refused(struct kunit *test, const char *why)
{
	const char *line;

	memset(&topo, 0xa5, sizeof(topo));  /* the refusal must clear this */
	KUNIT_EXPECT_FALSE(test, parse_srat_exact(&builder, builder.len));
	line = acpi_numa_last_warning();
	KUNIT_EXPECT_TRUE(test, topology_is_zero(&topo));
	KUNIT_EXPECT_TRUE(test, starts_with(line, "numa: SRAT "));
	KUNIT_EXPECT_TRUE(test, ends_with(line, SRAT_TAIL));
	if (!strstr(line, why))
		KUNIT_FAIL(test, "the refusal says \"%s\", not \"%s\"", line,
			   why);
}

static void expect_srat_accepted(struct kunit *test)
{
	KUNIT_ASSERT_TRUE(test, parse_srat_exact(&builder, builder.len));
	srat_check_topology(test, &topo);
}

static void expect_memblk(struct kunit *test, unsigned int i, u64 start,
			  u64 end, int nid)
{
	KUNIT_ASSERT_LT(test, i, topo.nr_memblks);
	KUNIT_EXPECT_EQ(test, topo.memblk[i].start, start);
	KUNIT_EXPECT_EQ(test, topo.memblk[i].end, end);
	KUNIT_EXPECT_EQ(test, topo.memblk[i].nid, nid);
}

static void expect_cpu(struct kunit *test, unsigned int i, u32 apic_id,
		       int nid)
{
	KUNIT_ASSERT_LT(test, i, topo.nr_cpus);
	KUNIT_EXPECT_EQ(test, topo.cpu[i].apic_id, apic_id);
	KUNIT_EXPECT_EQ(test, topo.cpu[i].nid, nid);
}

/* A whole-SRAT refusal test builds one memory range of its own. */
static void srat_one_node_of_memory(struct acpi_builder *b)
{
	srat_begin(b);
	srat_memory(b, 0, 0, 64 * MiB, SRAT_ENABLED);
}

/* ---- accepted SRATs ---- */

static void qemu_two_nodes(struct kunit *test)
{
	build_qemu_two_nodes(&builder);
	expect_srat_accepted(test);
	KUNIT_EXPECT_STREQ(test, acpi_numa_last_warning(), "");
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, 2);
	KUNIT_EXPECT_EQ(test, topo.pxm[0], 0);
	KUNIT_EXPECT_EQ(test, topo.pxm[1], 1);
	KUNIT_EXPECT_EQ(test, topo.nr_memblks, 3);
	expect_memblk(test, 0, 0, 0xa0000, 0);
	expect_memblk(test, 1, 1 * MiB, 64 * MiB, 0);
	expect_memblk(test, 2, 64 * MiB, 128 * MiB, 1);
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 2);
	expect_cpu(test, 0, 0, 0);
	expect_cpu(test, 1, 1, 1);
}

static void memory_ranges_are_sorted_by_start(struct kunit *test)
{
	srat_begin(&builder);
	srat_memory(&builder, 1, 512 * MiB, 64 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 0, 0, 64 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 1, 128 * MiB, 64 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 0, 4096 * MiB, 64 * MiB, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_accepted(test);
	KUNIT_EXPECT_EQ(test, topo.nr_memblks, 4);
	expect_memblk(test, 0, 0, 64 * MiB, 0);
	expect_memblk(test, 1, 128 * MiB, 192 * MiB, 1);
	expect_memblk(test, 2, 512 * MiB, 576 * MiB, 1);
	expect_memblk(test, 3, 4096 * MiB, 4160 * MiB, 0);
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 0);   /* CPU-less nodes: legal */
}

static void x2apic_entries(struct kunit *test)
{
	srat_begin(&builder);
	srat_x2apic(&builder, 1, 0x100, SRAT_ENABLED);
	srat_x2apic(&builder, 0, 0x12345, SRAT_ENABLED);
	srat_cpu(&builder, 0, 3, SRAT_ENABLED);
	srat_memory(&builder, 0, 0, 64 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 1, 64 * MiB, 64 * MiB, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_accepted(test);
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, 2);
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 3);
	expect_cpu(test, 0, 0x100, 1);
	expect_cpu(test, 1, 0x12345, 0);
	expect_cpu(test, 2, 3, 0);
}

static void sparse_domains_are_numbered_in_increasing_order(struct kunit *test)
{
	/* Domain 9 comes first in the table; domain 5 is still node 0. */
	srat_begin(&builder);
	srat_cpu(&builder, 9, 0, SRAT_ENABLED);
	srat_cpu(&builder, 5, 1, SRAT_ENABLED);
	srat_memory(&builder, 9, 64 * MiB, 64 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 5, 0, 64 * MiB, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_accepted(test);
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, 2);
	KUNIT_EXPECT_EQ(test, topo.pxm[0], 5);
	KUNIT_EXPECT_EQ(test, topo.pxm[1], 9);
	expect_cpu(test, 0, 0, 1);
	expect_cpu(test, 1, 1, 0);
	expect_memblk(test, 0, 0, 64 * MiB, 0);
	expect_memblk(test, 1, 64 * MiB, 128 * MiB, 1);
}

static void cpu_entry_domain_high_bits_count(struct kunit *test)
{
	/* Bits 8-31 of a local APIC entry's domain sit apart from 0-7. */
	srat_begin(&builder);
	srat_cpu(&builder, 0x01020304, 0, SRAT_ENABLED);
	srat_cpu(&builder, 0x04, 1, SRAT_ENABLED);
	srat_memory(&builder, 0x04, 0, 64 * MiB, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_accepted(test);
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, 2);
	KUNIT_EXPECT_EQ(test, topo.pxm[0], 0x04);
	KUNIT_EXPECT_EQ(test, topo.pxm[1], 0x01020304);
	expect_cpu(test, 0, 0, 1);
	expect_cpu(test, 1, 1, 0);
}

static void disabled_and_empty_entries_are_skipped(struct kunit *test)
{
	srat_begin(&builder);
	srat_cpu(&builder, 3, 7, SRAT_DISABLED);
	srat_x2apic(&builder, 2, 0x200, SRAT_DISABLED);
	srat_memory(&builder, 2, 128 * MiB, 64 * MiB, SRAT_HOT_PLUGGABLE);
	srat_memory(&builder, 3, 256 * MiB, 0, SRAT_ENABLED);
	srat_cpu(&builder, 0, 0, SRAT_ENABLED);
	srat_memory(&builder, 0, 0, 64 * MiB, SRAT_ENABLED);
	/* A disabled entry may name anything: no domain, no APIC id check. */
	srat_cpu(&builder, 1, 0, SRAT_DISABLED);
	srat_memory(&builder, 1, 0, 64 * MiB, SRAT_DISABLED);
	table_finish(&builder);
	expect_srat_accepted(test);
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, 1);
	KUNIT_EXPECT_EQ(test, topo.pxm[0], 0);
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 1);
	KUNIT_EXPECT_EQ(test, topo.nr_memblks, 1);
}

static void other_entry_types_are_stepped_over(struct kunit *test)
{
	srat_begin(&builder);
	srat_raw(&builder, SRAT_GICC_AFFINITY, SRAT_GICC_AFFINITY_LEN);
	srat_raw(&builder, 0x7f, 2);      /* the least an entry may be */
	srat_memory(&builder, 0, 0, 64 * MiB, SRAT_ENABLED);
	srat_raw(&builder, 5, 255);
	table_finish(&builder);
	expect_srat_accepted(test);
	KUNIT_EXPECT_EQ(test, topo.nr_memblks, 1);
}

static void one_domains_overlapping_ranges_merge(struct kunit *test)
{
	srat_begin(&builder);
	srat_memory(&builder, 0, 32 * MiB, 16 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 0, 0, 16 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 0, 8 * MiB, 16 * MiB, SRAT_ENABLED);
	/* Touches the one at 32 MiB: one range from 0 to 48 MiB. */
	srat_memory(&builder, 0, 24 * MiB, 8 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 1, 48 * MiB, 16 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 0, 4 * MiB, 1 * MiB, SRAT_ENABLED);  /* inside */
	table_finish(&builder);
	expect_srat_accepted(test);
	KUNIT_EXPECT_EQ(test, topo.nr_memblks, 2);
	expect_memblk(test, 0, 0, 48 * MiB, 0);
	expect_memblk(test, 1, 48 * MiB, 64 * MiB, 1);
}

static void an_apic_id_twice_in_one_domain_is_kept_once(struct kunit *test)
{
	srat_begin(&builder);
	srat_cpu(&builder, 0, 1, SRAT_ENABLED);
	srat_memory(&builder, 0, 0, 64 * MiB, SRAT_ENABLED);
	srat_x2apic(&builder, 0, 1, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_accepted(test);
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 1);
	KUNIT_EXPECT_STREQ(test, acpi_numa_last_warning(),
			   "numa: SRAT entry 2 (offset 0x68): APIC id 1 listed again in domain 0; the repeat is ignored");
}

static void the_limits_themselves_are_accepted(struct kunit *test)
{
	unsigned int i;

	srat_begin(&builder);
	for (i = 0; i < NUMA_MAX_MEMBLKS; i++)
		srat_memory(&builder, i % MAX_NUMNODES, i * 2 * MiB, 1 * MiB,
			    SRAT_ENABLED);
	for (i = 0; i < NR_CPUS; i++)
		srat_x2apic(&builder, i % MAX_NUMNODES, i, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_accepted(test);
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, MAX_NUMNODES);
	KUNIT_EXPECT_EQ(test, topo.nr_memblks, NUMA_MAX_MEMBLKS);
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, NR_CPUS);

	/* Ends at 2^52 exactly: the limit is exclusive. */
	srat_begin(&builder);
	srat_memory(&builder, 0, (1ull << 52) - 64 * MiB, 64 * MiB,
		    SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_accepted(test);
	expect_memblk(test, 0, (1ull << 52) - 64 * MiB, 1ull << 52, 0);
}

/* ---- refused SRATs ---- */

static void a_header_too_short_is_refused(struct kunit *test)
{
	srat_begin(&builder);
	builder.len = 20;
	expect_srat_refused(test, "numa: SRAT is 20 bytes long, shorter than its 48-byte header; using one node");
	builder.len = SRAT_ENTRIES_OFFSET - 1;
	expect_srat_refused(test, "is 47 bytes long");
}

static void an_entry_shorter_than_its_type_is_refused(struct kunit *test)
{
	srat_one_node_of_memory(&builder);
	srat_raw(&builder, SRAT_CPU_AFFINITY, SRAT_CPU_AFFINITY_LEN - 4);
	table_finish(&builder);
	expect_srat_refused(test, "numa: SRAT entry 1 (offset 0x58): type 0 (Processor Local APIC affinity) is 12 bytes long, shorter than its 16; using one node");

	srat_one_node_of_memory(&builder);
	srat_raw(&builder, SRAT_MEMORY_AFFINITY, SRAT_MEMORY_AFFINITY_LEN - 1);
	table_finish(&builder);
	expect_srat_refused(test, "type 1 (Memory affinity) is 39 bytes long, shorter than its 40");

	srat_one_node_of_memory(&builder);
	srat_raw(&builder, SRAT_X2APIC_AFFINITY, SRAT_CPU_AFFINITY_LEN);
	table_finish(&builder);
	expect_srat_refused(test, "type 2 (Processor x2APIC affinity) is 16 bytes long, shorter than its 24");
}

static void an_entry_of_length_0_or_1_is_refused(struct kunit *test)
{
	srat_one_node_of_memory(&builder);
	srat_raw(&builder, 7, 0);
	srat_raw(&builder, 7, 2);
	table_finish(&builder);
	expect_srat_refused(test, "entry 1 (offset 0x58): type 7 has length 0: the walk would never move past it");

	srat_one_node_of_memory(&builder);
	entry_begin(&builder, SRAT_MEMORY_AFFINITY, 1);
	table_finish(&builder);
	expect_srat_refused(test, "entry 1 (offset 0x58): type 1 has length 1");
}

static void an_entry_past_the_end_is_refused(struct kunit *test)
{
	srat_one_node_of_memory(&builder);
	srat_memory(&builder, 0, 64 * MiB, 64 * MiB, SRAT_ENABLED);
	table_finish(&builder);
	builder.len -= 1;
	expect_srat_refused(test, "entry 1 (offset 0x58): type 1 of length 40 runs past the table's end (39 bytes left)");

	srat_one_node_of_memory(&builder);
	put_u8(&builder, SRAT_CPU_AFFINITY);   /* a lone type byte */
	table_finish(&builder);
	expect_srat_refused(test, "entry 1 (offset 0x58): cut: 1 byte left, less than an entry's 2-byte type and length");
}

static void more_domains_than_nodes_are_refused(struct kunit *test)
{
	unsigned int d;

	srat_begin(&builder);
	for (d = 0; d < MAX_NUMNODES; d++)
		srat_memory(&builder, d * 10, d * 64 * MiB, 64 * MiB,
			    SRAT_ENABLED);
	srat_cpu(&builder, 77, 0, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_refused(test, "entry 4 (offset 0xd0): domain 77 is one proximity domain more than MAX_NUMNODES (4)");
}

static void more_memory_ranges_than_memblks_are_refused(struct kunit *test)
{
	unsigned int i;

	srat_begin(&builder);
	for (i = 0; i <= NUMA_MAX_MEMBLKS; i++)
		srat_memory(&builder, 0, i * 2 * MiB, 1 * MiB, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_refused(test, "entry 32 (offset 0x530): memory [mem 0x4000000-0x40fffff] of domain 0 is one range more than NUMA_MAX_MEMBLKS (32)");
}

static void more_cpus_than_nr_cpus_are_refused(struct kunit *test)
{
	char why[128];
	unsigned int i;

	srat_one_node_of_memory(&builder);
	for (i = 0; i <= NR_CPUS; i++)
		srat_x2apic(&builder, 0, 1000 + i, SRAT_ENABLED);
	table_finish(&builder);
	snprintf(why, sizeof(why),
		 "entry %u (offset %#x): APIC id %u is one CPU more than NR_CPUS (%u)",
		 NR_CPUS + 1, 0x58 + NR_CPUS * SRAT_X2APIC_AFFINITY_LEN,
		 1000 + NR_CPUS, NR_CPUS);
	expect_srat_refused(test, why);
}

static void an_apic_id_in_two_domains_is_refused(struct kunit *test)
{
	srat_begin(&builder);
	srat_cpu(&builder, 0, 1, SRAT_ENABLED);
	srat_memory(&builder, 0, 0, 64 * MiB, SRAT_ENABLED);
	srat_x2apic(&builder, 1, 1, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_refused(test, "entry 2 (offset 0x68): APIC id 1 in domain 1, but an earlier entry put it in domain 0");
}

static void two_domains_on_one_byte_are_refused(struct kunit *test)
{
	srat_begin(&builder);
	srat_cpu(&builder, 0, 0, SRAT_ENABLED);
	srat_memory(&builder, 0, 0, 96 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 1, 64 * MiB, 64 * MiB, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_refused(test, "numa: SRAT entry 2 (offset 0x68): memory [mem 0x4000000-0x7ffffff] of domain 1 overlaps domain 0's [mem 0x0-0x5ffffff]; using one node");

	/* Inside another domain's range, and against a merged range. */
	srat_begin(&builder);
	srat_memory(&builder, 0, 0, 16 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 0, 16 * MiB, 16 * MiB, SRAT_ENABLED);
	srat_memory(&builder, 2, 31 * MiB, 4096, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_refused(test, "memory [mem 0x1f00000-0x1f00fff] of domain 2 overlaps domain 0's [mem 0x0-0x1ffffff]");
}

static void memory_beyond_52_bits_is_refused(struct kunit *test)
{
	srat_one_node_of_memory(&builder);
	srat_memory(&builder, 1, (1ull << 52) - 1 * MiB, 2 * MiB,
		    SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_refused(test, "entry 1 (offset 0x58): memory of domain 1 at 0xffffffff00000, 0x200000 bytes long, ends beyond 2^52, the physical address limit");

	srat_one_node_of_memory(&builder);
	srat_memory(&builder, 0, 0xfffffffffffff000ull, 0x2000, SRAT_ENABLED);
	table_finish(&builder);
	expect_srat_refused(test, "memory of domain 0 at 0xfffffffffffff000, 0x2000 bytes long, ends beyond 2^52");
}

static void a_table_without_memory_is_refused(struct kunit *test)
{
	srat_begin(&builder);
	srat_cpu(&builder, 0, 0, SRAT_ENABLED);
	srat_cpu(&builder, 1, 1, SRAT_ENABLED);
	srat_memory(&builder, 1, 0, 64 * MiB, SRAT_DISABLED);
	table_finish(&builder);
	expect_srat_refused(test, "numa: SRAT lists 2 CPUs but no enabled memory: a node needs memory somewhere; using one node");
}

static void a_table_without_enabled_entries_is_refused(struct kunit *test)
{
	srat_begin(&builder);
	table_finish(&builder);
	expect_srat_refused(test, "numa: SRAT lists no enabled CPU or memory (0 entries); using one node");

	srat_begin(&builder);
	srat_cpu(&builder, 0, 0, SRAT_DISABLED);
	srat_memory(&builder, 0, 0, 64 * MiB, SRAT_DISABLED);
	srat_raw(&builder, SRAT_GICC_AFFINITY, SRAT_GICC_AFFINITY_LEN);
	table_finish(&builder);
	expect_srat_refused(test, "lists no enabled CPU or memory (3 entries)");
}

/* ---- broken tables: every cut, random bytes ---- */

/* Did the entries that start before `len` and end by it name memory? */
static bool prefix_is_whole_with_memory(const struct acpi_builder *b,
					size_t len)
{
	unsigned int i;
	bool whole = len == SRAT_ENTRIES_OFFSET, memory = false;

	for (i = 0; i < b->nr_entries; i++) {
		const u8 *e = b->buf + b->entry_start[i];
		size_t end = b->entry_start[i] + e[1];

		if (end > len)
			break;
		whole = end == len;
		memory |= e[0] == SRAT_MEMORY_AFFINITY &&
			  (e[SRAT_MEM_FLAGS] & SRAT_ENABLED);
	}
	return whole && memory;
}

static void every_cut_of_a_table_is_refused_or_whole(struct kunit *test)
{
	int saved_loglevel = console_loglevel;
	size_t full, len;

	build_qemu_two_nodes(&builder);
	srat_x2apic(&builder, 1, 0x300, SRAT_ENABLED);
	srat_raw(&builder, SRAT_GICC_AFFINITY, SRAT_GICC_AFFINITY_LEN);
	full = table_finish(&builder);
	console_loglevel = LOGLEVEL_ERR;   /* a refusal a length: quiet */
	for (len = 0; len <= full; len++) {
		bool ok = parse_srat_exact(&builder, len);

		if (ok != prefix_is_whole_with_memory(&builder, len)) {
			KUNIT_FAIL(test, "cut at %zu of %zu bytes: %s", len,
				   full, ok ? "accepted" : "refused");
			break;
		}
		if (ok) {
			srat_check_topology(test, &topo);
			continue;
		}
		KUNIT_EXPECT_TRUE(test, topology_is_zero(&topo));
		KUNIT_EXPECT_TRUE(test, starts_with(acpi_numa_last_warning(),
						    "numa: SRAT "));
	}
	console_loglevel = saved_loglevel;
	KUNIT_EXPECT_EQ(test, topo.nr_nodes, 2);
	KUNIT_EXPECT_EQ(test, topo.nr_cpus, 3);
}

static u8 random_entry_type(struct rnd_state *r)
{
	static const u8 types[] = {
		SRAT_CPU_AFFINITY, SRAT_MEMORY_AFFINITY,
		SRAT_X2APIC_AFFINITY, SRAT_GICC_AFFINITY,
	};

	return types[prandom_u32_state(r) % ARRAY_SIZE(types)];
}

/* Entries of the right shapes with fields from a small range, so that
 * tables are accepted as well as refused. */
static void build_random_srat(struct acpi_builder *b, struct rnd_state *r)
{
	unsigned int n = prandom_u32_state(r) % RANDOM_ENTRIES_MAX, i;

	srat_begin(b);
	for (i = 0; i < n; i++) {
		u32 domain = prandom_u32_state(r) % (MAX_NUMNODES + 2);
		u32 flags = prandom_u32_state(r) % 4;
		u32 id = prandom_u32_state(r) % (NR_CPUS + 4);

		switch (random_entry_type(r)) {
		case SRAT_CPU_AFFINITY:
			srat_cpu(b, domain, (u8)id, flags);
			break;
		case SRAT_X2APIC_AFFINITY:
			srat_x2apic(b, domain, id, flags);
			break;
		case SRAT_MEMORY_AFFINITY:
			srat_memory(b, domain,
				    (prandom_u64_state(r) % 64) * 16 * MiB,
				    (prandom_u64_state(r) % 4) * 16 * MiB,
				    flags);
			break;
		default:
			srat_raw(b, (u8)prandom_u32_state(r),
				 (u8)(2 + prandom_u32_state(r) % 30));
			break;
		}
	}
	table_finish(b);
	/* Now and then, a byte of it replaced by garbage. */
	if (b->len > SRAT_ENTRIES_OFFSET && prandom_u32_state(r) % 2)
		b->buf[SRAT_ENTRIES_OFFSET + prandom_u32_state(r) %
		       (b->len - SRAT_ENTRIES_OFFSET)] =
			(u8)prandom_u32_state(r);
}

/* Pure noise after a header, or nothing like a header at all. */
static void build_random_bytes(struct acpi_builder *b, struct rnd_state *r)
{
	size_t n = prandom_u32_state(r) % (SRAT_ENTRIES_OFFSET + 256), i;

	srat_begin(b);
	b->len = 0;
	for (i = 0; i < n; i++)
		b->buf[i] = (u8)prandom_u32_state(r);
	b->len = n;
}

static void random_tables_never_crash(struct kunit *test)
{
	int saved_loglevel = console_loglevel;
	unsigned int i, accepted = 0;
	struct rnd_state r;

	prandom_seed_state(&r, RANDOM_SEED);
	console_loglevel = LOGLEVEL_ERR;
	for (i = 0; i < RANDOM_TABLES; i++) {
		size_t len;

		if (i % 2)
			build_random_srat(&builder, &r);
		else
			build_random_bytes(&builder, &r);
		len = builder.len;
		/* Told less than it has, now and then. */
		if (len && prandom_u32_state(&r) % 4 == 0)
			len -= prandom_u32_state(&r) % (RANDOM_TAIL_MAX + 1) %
			       (len + 1);
		if (parse_srat_exact(&builder, len)) {
			accepted++;
			srat_check_topology(test, &topo);
		} else {
			KUNIT_EXPECT_TRUE(test, topology_is_zero(&topo));
		}
	}
	console_loglevel = saved_loglevel;
	kunit_info(test, "%u of %u random tables accepted", accepted,
		   RANDOM_TABLES);
	KUNIT_EXPECT_GT(test, accepted, 0);
	KUNIT_EXPECT_LT(test, accepted, RANDOM_TABLES);
}

/* ---- the SLIT ---- */

/* An accepted SRAT of domains 0 .. n-1, a CPU and 64 MiB each. */
static void srat_of_domains(struct kunit *test, const u32 *domains,
			    unsigned int n)
{
	unsigned int i;

	srat_begin(&builder);
	for (i = 0; i < n; i++) {
		srat_cpu(&builder, domains[i], (u8)i, SRAT_ENABLED);
		srat_memory(&builder, domains[i], i * 64 * MiB, 64 * MiB,
			    SRAT_ENABLED);
	}
	table_finish(&builder);
	expect_srat_accepted(test);
}

static const u32 four_domains[] = { 0, 1, 2, 3 };

/* The SLIT refused: one line saying `why`, the defaults in place. */
static void expect_slit_refused(struct kunit *test, const char *why)
{
	const char *line;
	unsigned int a, b;

	topo.has_distances = true;
	memset(topo.distance, 0xa5, sizeof(topo.distance));
	KUNIT_EXPECT_FALSE(test, parse_slit_exact(&builder, builder.len));
	KUNIT_EXPECT_FALSE(test, topo.has_distances);
	KUNIT_EXPECT_TRUE(test, topo.valid);  /* the SRAT's word stands */
	for (a = 0; a < MAX_NUMNODES; a++)
		for (b = 0; b < MAX_NUMNODES; b++)
			KUNIT_EXPECT_EQ(test, topo.distance[a][b],
					a == b ? LOCAL_DISTANCE :
						 REMOTE_DISTANCE);
	line = acpi_numa_last_warning();
	KUNIT_EXPECT_TRUE(test, starts_with(line, "numa: SLIT "));
	KUNIT_EXPECT_TRUE(test, ends_with(line, SLIT_TAIL));
	if (!strstr(line, why))
		KUNIT_FAIL(test, "the refusal says \"%s\", not \"%s\"", line,
			   why);
}

static void slit_four_nodes(struct kunit *test)
{
	static const u8 m[] = {
		10, 20, 30, 40,
		20, 10, 20, 30,
		30, 20, 10, 20,
		40, 30, 20, 10,
	};
	unsigned int a, b;

	srat_of_domains(test, four_domains, 4);
	slit_build(&builder, 4, m, sizeof(m));
	KUNIT_ASSERT_TRUE(test, parse_slit_exact(&builder, builder.len));
	KUNIT_EXPECT_TRUE(test, topo.has_distances);
	KUNIT_EXPECT_STREQ(test, acpi_numa_last_warning(), "");
	for (a = 0; a < 4; a++)
		for (b = 0; b < 4; b++)
			KUNIT_EXPECT_EQ(test, topo.distance[a][b], m[a * 4 + b]);
}

static void slit_asymmetric_and_unreachable_are_kept(struct kunit *test)
{
	static const u8 m[] = {
		10, 15,
		NUMA_NO_DISTANCE, 10,
	};

	srat_of_domains(test, four_domains, 2);
	slit_build(&builder, 2, m, sizeof(m));
	KUNIT_ASSERT_TRUE(test, parse_slit_exact(&builder, builder.len));
	KUNIT_EXPECT_EQ(test, topo.distance[0][1], 15);
	KUNIT_EXPECT_EQ(test, topo.distance[1][0], NUMA_NO_DISTANCE);
	KUNIT_EXPECT_EQ(test, topo.distance[0][0], LOCAL_DISTANCE);
}

static void slit_rows_are_proximity_domains(struct kunit *test)
{
	static const u32 domains[] = { 9, 5 };
	u8 m[10 * 10];
	unsigned int i, j;

	for (i = 0; i < 10; i++)
		for (j = 0; j < 10; j++)
			m[i * 10 + j] = i == j ? LOCAL_DISTANCE : 50 + i * 10 + j;
	srat_of_domains(test, domains, 2);
	slit_build(&builder, 10, m, sizeof(m));
	KUNIT_ASSERT_TRUE(test, parse_slit_exact(&builder, builder.len));
	/* Node 0 is domain 5, node 1 domain 9. */
	KUNIT_EXPECT_EQ(test, topo.distance[0][1], 50 + 5 * 10 + 9);
	KUNIT_EXPECT_EQ(test, topo.distance[1][0], 50 + 9 * 10 + 5);
	KUNIT_EXPECT_EQ(test, topo.distance[1][1], LOCAL_DISTANCE);
}

static void slit_bad_entries_are_refused(struct kunit *test)
{
	u8 m[] = {
		10, 20,
		20, 20,
	};

	srat_of_domains(test, four_domains, 2);
	slit_build(&builder, 2, m, sizeof(m));
	expect_slit_refused(test, "numa: SLIT entry [1][1] (offset 0x2f) is 20: a domain's distance to itself must be 10; using the default distances (10 local, 20 remote)");
	m[3] = LOCAL_DISTANCE;
	m[1] = LOCAL_DISTANCE;
	slit_build(&builder, 2, m, sizeof(m));
	expect_slit_refused(test, "entry [0][1] (offset 0x2d) is 10: a distance between two domains must be above 10");
	m[1] = 0;
	slit_build(&builder, 2, m, sizeof(m));
	expect_slit_refused(test, "entry [0][1] (offset 0x2d) is 0:");
}

static void slit_count_too_small_is_refused(struct kunit *test)
{
	static const u8 m[] = { 10, 20, 20, 10 };

	srat_of_domains(test, four_domains, 3);
	slit_build(&builder, 2, m, sizeof(m));
	expect_slit_refused(test, "numa: SLIT gives distances for 2 domains, but the SRAT names domain 2; using the default");
	slit_build(&builder, 0, m, 0);
	expect_slit_refused(test, "gives distances for 0 domains");
}

static void slit_absurd_count_is_refused(struct kunit *test)
{
	static const u8 m[] = { 10, 20, 20, 10 };

	srat_of_domains(test, four_domains, 2);
	slit_build(&builder, 1000, m, sizeof(m));
	expect_slit_refused(test, "numa: SLIT locality count 1000 is absurd (more than 256)");
	/* N * N would wrap to 0 in 64 bits. */
	slit_build(&builder, 1ull << 32, m, sizeof(m));
	expect_slit_refused(test, "locality count 4294967296 is absurd");
}

static void slit_every_cut_is_refused(struct kunit *test)
{
	static const u8 m[] = {
		10, 20, 30,
		20, 10, 20,
		30, 20, 10,
	};
	int saved_loglevel = console_loglevel;
	size_t full, len;

	srat_of_domains(test, four_domains, 3);
	slit_build(&builder, 3, m, sizeof(m));
	full = builder.len;
	console_loglevel = LOGLEVEL_ERR;
	for (len = 0; len < full; len++) {
		KUNIT_EXPECT_FALSE(test, parse_slit_exact(&builder, len));
		KUNIT_EXPECT_FALSE(test, topo.has_distances);
	}
	console_loglevel = saved_loglevel;
	builder.len = full - 1;
	expect_slit_refused(test, "numa: SLIT is 52 bytes long, cut short of its 3 x 3 distances (53 bytes needed)");
	builder.len = 10;
	expect_slit_refused(test, "SLIT is 10 bytes long, shorter than its 44-byte header");
	KUNIT_EXPECT_TRUE(test, parse_slit_exact(&builder, full));
}

static void slit_without_an_srat_is_refused(struct kunit *test)
{
	static const u8 m[] = { 10 };

	memset(&topo, 0, sizeof(topo));
	slit_build(&builder, 1, m, sizeof(m));
	KUNIT_EXPECT_FALSE(test, parse_slit_exact(&builder, builder.len));
	KUNIT_EXPECT_FALSE(test, topo.has_distances);
	KUNIT_EXPECT_TRUE(test, strstr(acpi_numa_last_warning(),
				       "without an accepted SRAT"));
}

static struct kunit_case srat_cases[] = {
	KUNIT_CASE(qemu_two_nodes),
	KUNIT_CASE(memory_ranges_are_sorted_by_start),
	KUNIT_CASE(x2apic_entries),
	KUNIT_CASE(sparse_domains_are_numbered_in_increasing_order),
	KUNIT_CASE(cpu_entry_domain_high_bits_count),
	KUNIT_CASE(disabled_and_empty_entries_are_skipped),
	KUNIT_CASE(other_entry_types_are_stepped_over),
	KUNIT_CASE(one_domains_overlapping_ranges_merge),
	KUNIT_CASE(an_apic_id_twice_in_one_domain_is_kept_once),
	KUNIT_CASE(the_limits_themselves_are_accepted),
	KUNIT_CASE(a_header_too_short_is_refused),
	KUNIT_CASE(an_entry_shorter_than_its_type_is_refused),
	KUNIT_CASE(an_entry_of_length_0_or_1_is_refused),
	KUNIT_CASE(an_entry_past_the_end_is_refused),
	KUNIT_CASE(more_domains_than_nodes_are_refused),
	KUNIT_CASE(more_memory_ranges_than_memblks_are_refused),
	KUNIT_CASE(more_cpus_than_nr_cpus_are_refused),
	KUNIT_CASE(an_apic_id_in_two_domains_is_refused),
	KUNIT_CASE(two_domains_on_one_byte_are_refused),
	KUNIT_CASE(memory_beyond_52_bits_is_refused),
	KUNIT_CASE(a_table_without_memory_is_refused),
	KUNIT_CASE(a_table_without_enabled_entries_is_refused),
	KUNIT_CASE(every_cut_of_a_table_is_refused_or_whole),
	KUNIT_CASE(random_tables_never_crash),
	KUNIT_CASE(slit_four_nodes),
	KUNIT_CASE(slit_asymmetric_and_unreachable_are_kept),
	KUNIT_CASE(slit_rows_are_proximity_domains),
	KUNIT_CASE(slit_bad_entries_are_refused),
	KUNIT_CASE(slit_count_too_small_is_refused),
	KUNIT_CASE(slit_absurd_count_is_refused),
	KUNIT_CASE(slit_every_cut_is_refused),
	KUNIT_CASE(slit_without_an_srat_is_refused),
	{}
};

static struct kunit_suite srat_suite = {
	.name = "srat",
	.test_cases = srat_cases,
};
kunit_test_suite(srat_suite);
