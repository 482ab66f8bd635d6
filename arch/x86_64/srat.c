/*
 * srat.c - the firmware's NUMA topology: the ACPI SRAT and SLIT, read
 * byte by byte and checked before anything trusts them.
 *
 * The SRAT (System Resource Affinity Table, ACPI 6.5, 5.2.16) is the
 * common 36-byte header, 12 reserved bytes, then entries, each starting
 * with a type byte and a length byte.  Three types concern us:
 *   0  Processor Local APIC affinity (16 bytes): an 8-bit APIC id and its
 *      proximity domain, split into bits 0-7 and bits 8-31;
 *   1  Memory affinity (40 bytes): a 64-bit base and length and their
 *      domain;
 *   2  Processor x2APIC affinity (24 bytes): a 32-bit APIC id and its
 *      domain.
 * Every other type is stepped over by its length.  An entry without its
 * enabled flag, and a memory entry of length 0, say nothing and are
 * skipped.  All fields are read as little-endian bytes at their offsets
 * (no packed structs, no unaligned loads), and nothing at or beyond `len`
 * is ever read: a table cut anywhere is refused, never overread.
 *
 * The SRAT is accepted whole or refused whole.  Refused, with one line
 * saying what and where, are: a cut header or entry, an entry shorter
 * than its type's layout or than 2 bytes (the walk would not move), more
 * than MAX_NUMNODES domains, more than NUMA_MAX_MEMBLKS memory ranges or
 * NR_CPUS CPUs, an APIC id in two domains, memory of two domains on one
 * byte, a range that wraps or ends beyond MEMBLOCK_MAX_PHYS, and a table
 * with no enabled entry or no enabled memory.  A refused table leaves a
 * zeroed topology: the kernel runs one node, as without an SRAT.  What is
 * only odd is kept: the same APIC id twice in one domain (a line, one
 * kept), overlapping or touching ranges of one domain (merged in silence).
 *
 * While the walk runs, t->pxm[0 .. nr_nodes) lists the domains in the
 * order the table first names them (a *slot* each) and every CPU's and
 * range's `nid` is its domain's slot.  Once the walk accepted everything,
 * srat_number_nodes() turns slots into node numbers by increasing domain
 * and srat_sort_memblks() sorts the ranges by start, so the invariants
 * include/numa.h states for struct numa_topology hold only on the way out.
 *
 * The SLIT (System Locality Information Table, 5.2.17) is the header, a
 * 64-bit locality count N and an N x N matrix of one-byte distances,
 * row i being domain i.  It is read only on top of an accepted SRAT, for
 * the domains that SRAT named; it is refused whole (the default 10/20
 * distances then stand) if cut, if N does not cover every SRAT domain, if
 * N is absurd, or if any entry breaks the rules of 5.2.17: 10 on the
 * diagonal, more than 10 elsewhere (0xff "unreachable" included and kept).
 * An asymmetric matrix is legal and kept as given.
 *
 * Portable C only: the same file runs in the kernel and, under ASan, in
 * the host tests (tests/host/test_mm_srat.c).  Boot CPU only, before the
 * other CPUs start: no locks, and one static line buffer.
 */
#include <kernel.h>
#include <memblock.h>
#include <numa.h>
#include <printk.h>
#include <string.h>
#include <types.h>
#include <unaligned.h>
#include "srat.h"

/* Both tables (ACPI 6.5, 5.2.6): the common header. */
#define ACPI_HEADER_LEN          36

/* The SRAT (5.2.16, table 5.61): header, 12 reserved bytes, entries. */
#define SRAT_RESERVED_LEN        12
#define SRAT_ENTRIES_OFFSET      (ACPI_HEADER_LEN + SRAT_RESERVED_LEN)
#define SRAT_ENTRY_HEADER_LEN    2     /* type and length bytes */
#define SRAT_ENTRY_TYPE          0
#define SRAT_ENTRY_LENGTH        1

/* Entry types and the least length their layout needs. */
#define SRAT_CPU_AFFINITY        0     /* table 5.62 */
#define SRAT_CPU_AFFINITY_LEN    16
#define SRAT_MEMORY_AFFINITY     1     /* table 5.64 */
#define SRAT_MEMORY_AFFINITY_LEN 40
#define SRAT_X2APIC_AFFINITY     2     /* table 5.66 */
#define SRAT_X2APIC_AFFINITY_LEN 24

/* Field offsets inside a Processor Local APIC affinity entry. */
#define SRAT_CPU_DOMAIN_LO       2     /* domain bits 0-7 */
#define SRAT_CPU_APIC_ID         3
#define SRAT_CPU_FLAGS           4
#define SRAT_CPU_DOMAIN_HI       9     /* domain bits 8-31, 3 bytes */
#define SRAT_CPU_DOMAIN_HI_BYTES 3

/* Inside a Memory affinity entry. */
#define SRAT_MEM_DOMAIN          2
#define SRAT_MEM_BASE            8
#define SRAT_MEM_LENGTH          16
#define SRAT_MEM_FLAGS           28

/* Inside a Processor x2APIC affinity entry. */
#define SRAT_X2APIC_DOMAIN       4
#define SRAT_X2APIC_ID           8
#define SRAT_X2APIC_FLAGS        12

/* The flags of all three (tables 5.63, 5.65): only "enabled" matters to
 * us; memory's hot-pluggable (bit 1) and non-volatile (bit 2) do not. */
#define SRAT_ENABLED             (1u << 0)

/* The SLIT (5.2.17, table 5.70). */
#define SLIT_COUNT_OFFSET        ACPI_HEADER_LEN   /* u64 locality count */
#define SLIT_MATRIX_OFFSET       (SLIT_COUNT_OFFSET + 8)
/* Proximity domains a SLIT row may name: more is taken for garbage (the
 * matrix would be more than 64 KiB). */
#define SLIT_MAX_LOCALITIES      256

#define NUMA_WARNING_LINE_MAX    256

static char numa_last_warning[NUMA_WARNING_LINE_MAX];

const char *acpi_numa_last_warning(void)
{
	return numa_last_warning;
}

/* Print one warning line and keep it for acpi_numa_last_warning(). */
static __printf(1, 2) void numa_warn(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(numa_last_warning, sizeof(numa_last_warning), fmt, ap);
	va_end(ap);
	pr_warn("%s\n", numa_last_warning);
}

/* ---- the SRAT ---- */

/* The walk: the table, and the entry being read (for the messages). */
struct srat_walk {
	const u8 *table;
	size_t len;
	unsigned int index;        /* entries before this one */
	size_t offset;             /* its first byte, from the table's */
	struct numa_topology *t;   /* nid fields hold slots (see the top) */
};

/* Refuse the whole table: one line, a zeroed topology, false. */
static __printf(2, 3) bool srat_refuse(struct numa_topology *t,
				       const char *fmt, ...)
{
	char why[NUMA_WARNING_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	memset(t, 0, sizeof(*t));
	numa_warn("numa: SRAT %s; using one node", why);
	return false;
}

/* srat_refuse() for the entry being read: its index and offset first. */
static __printf(2, 3) bool srat_refuse_entry(struct srat_walk *w,
					     const char *fmt, ...)
{
	char why[NUMA_WARNING_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	return srat_refuse(w->t, "entry %u (offset %#zx): %s", w->index,
			   w->offset, why);
}

static const char *srat_entry_name(u8 type)
{
	switch (type) {
	case SRAT_CPU_AFFINITY:
		return "Processor Local APIC affinity";
	case SRAT_MEMORY_AFFINITY:
		return "Memory affinity";
	case SRAT_X2APIC_AFFINITY:
		return "Processor x2APIC affinity";
	default:
		return "unknown";
	}
}

/* The least length an entry of this type must have (its header for types
 * we skip). */
static unsigned int srat_entry_min_len(u8 type)
{
	switch (type) {
	case SRAT_CPU_AFFINITY:
		return SRAT_CPU_AFFINITY_LEN;
	case SRAT_MEMORY_AFFINITY:
		return SRAT_MEMORY_AFFINITY_LEN;
	case SRAT_X2APIC_AFFINITY:
		return SRAT_X2APIC_AFFINITY_LEN;
	default:
		return SRAT_ENTRY_HEADER_LEN;
	}
}

/* The domain's slot, a new one if it is new; -1 (the table refused) when
 * it would be one domain more than MAX_NUMNODES. */
static int srat_domain_slot(struct srat_walk *w, u32 domain)
{
	struct numa_topology *t = w->t;
	unsigned int slot;

	for (slot = 0; slot < t->nr_nodes; slot++)
		if (t->pxm[slot] == domain)
			return (int)slot;
	if (t->nr_nodes == MAX_NUMNODES) {
		srat_refuse_entry(w, "domain %u is one proximity domain more than MAX_NUMNODES (%u)",
				  domain, MAX_NUMNODES);
		return -1;
	}
	t->pxm[t->nr_nodes] = domain;
	return (int)t->nr_nodes++;
}

static bool srat_add_cpu(struct srat_walk *w, u32 apic_id, u32 domain)
{
	struct numa_topology *t = w->t;
	unsigned int i;
	int slot;

	for (i = 0; i < t->nr_cpus; i++) {
		u32 listed_in = t->pxm[t->cpu[i].nid];

		if (t->cpu[i].apic_id != apic_id)
			continue;
		if (listed_in != domain)
			return srat_refuse_entry(w, "APIC id %u in domain %u, but an earlier entry put it in domain %u",
						 apic_id, domain, listed_in);
		numa_warn("numa: SRAT entry %u (offset %#zx): APIC id %u listed again in domain %u; the repeat is ignored",
			  w->index, w->offset, apic_id, domain);
		return true;
	}
	if (t->nr_cpus == NR_CPUS)
		return srat_refuse_entry(w, "APIC id %u is one CPU more than NR_CPUS (%u)",
					 apic_id, NR_CPUS);
	slot = srat_domain_slot(w, domain);
	if (slot < 0)
		return false;
	t->cpu[t->nr_cpus].apic_id = apic_id;
	t->cpu[t->nr_cpus].nid = slot;
	t->nr_cpus++;
	return true;
}

/* Drop range i (the last one takes its place: the order matters only
 * once srat_sort_memblks() ran). */
static void srat_remove_memblk(struct numa_topology *t, unsigned int i)
{
	t->memblk[i] = t->memblk[--t->nr_memblks];
}

static bool srat_add_memory(struct srat_walk *w, u32 domain, u64 base,
			    u64 size)
{
	struct numa_topology *t = w->t;
	u64 start = base, end = base + size;
	unsigned int i;
	int slot;

	if (end < base || end > MEMBLOCK_MAX_PHYS)
		return srat_refuse_entry(w, "memory of domain %u at 0x%llx, 0x%llx bytes long, ends beyond 2^52, the physical address limit",
					 domain, (unsigned long long)base,
					 (unsigned long long)size);
	for (i = 0; i < t->nr_memblks; i++) {
		const struct numa_memblk *b = &t->memblk[i];
		u32 other = t->pxm[b->nid];

		if (other == domain || end <= b->start || b->end <= start)
			continue;
		return srat_refuse_entry(w, "memory [mem 0x%llx-0x%llx] of domain %u overlaps domain %u's [mem 0x%llx-0x%llx]",
					 (unsigned long long)start,
					 (unsigned long long)(end - 1), domain,
					 other, (unsigned long long)b->start,
					 (unsigned long long)(b->end - 1));
	}
	slot = srat_domain_slot(w, domain);
	if (slot < 0)
		return false;
	/* Swallow every range of the same domain it overlaps or touches;
	 * the union only grows, so start again after each. */
	i = 0;
	while (i < t->nr_memblks) {
		struct numa_memblk *b = &t->memblk[i];

		if (b->nid != slot || end < b->start || b->end < start) {
			i++;
			continue;
		}
		if (b->start < start)
			start = b->start;
		if (b->end > end)
			end = b->end;
		srat_remove_memblk(t, i);
		i = 0;
	}
	if (t->nr_memblks == NUMA_MAX_MEMBLKS)
		return srat_refuse_entry(w, "memory [mem 0x%llx-0x%llx] of domain %u is one range more than NUMA_MAX_MEMBLKS (%u)",
					 (unsigned long long)start,
					 (unsigned long long)(end - 1), domain,
					 NUMA_MAX_MEMBLKS);
	t->memblk[t->nr_memblks].start = start;
	t->memblk[t->nr_memblks].end = end;
	t->memblk[t->nr_memblks].nid = slot;
	t->nr_memblks++;
	return true;
}

/* One entry, already known whole and at least its type's length. */
static bool srat_parse_entry(struct srat_walk *w, const u8 *e)
{
	u32 domain;

	switch (e[SRAT_ENTRY_TYPE]) {
	case SRAT_CPU_AFFINITY: {
		unsigned int i;

		if (!(get_unaligned_le32(e + SRAT_CPU_FLAGS) & SRAT_ENABLED))
			return true;
		domain = e[SRAT_CPU_DOMAIN_LO];
		for (i = 0; i < SRAT_CPU_DOMAIN_HI_BYTES; i++)
			domain |= (u32)e[SRAT_CPU_DOMAIN_HI + i] << (8 * (i + 1));
		return srat_add_cpu(w, e[SRAT_CPU_APIC_ID], domain);
	}
	case SRAT_X2APIC_AFFINITY:
		if (!(get_unaligned_le32(e + SRAT_X2APIC_FLAGS) & SRAT_ENABLED))
			return true;
		return srat_add_cpu(w, get_unaligned_le32(e + SRAT_X2APIC_ID),
				    get_unaligned_le32(e + SRAT_X2APIC_DOMAIN));
	case SRAT_MEMORY_AFFINITY: {
		u64 size = get_unaligned_le64(e + SRAT_MEM_LENGTH);

		if (!(get_unaligned_le32(e + SRAT_MEM_FLAGS) & SRAT_ENABLED) || !size)
			return true;
		return srat_add_memory(w, get_unaligned_le32(e + SRAT_MEM_DOMAIN),
				       get_unaligned_le64(e + SRAT_MEM_BASE), size);
	}
	default:
		return true;   /* GICC, ITS, generic initiators: not ours */
	}
}

/* Every entry in [SRAT_ENTRIES_OFFSET, len): false once one is refused. */
static bool srat_walk_entries(struct srat_walk *w)
{
	for (w->offset = SRAT_ENTRIES_OFFSET; w->offset < w->len;
	     w->index++) {
		const u8 *e = w->table + w->offset;
		size_t left = w->len - w->offset;
		u8 type, length;

		if (left < SRAT_ENTRY_HEADER_LEN)
			return srat_refuse_entry(w, "cut: %zu byte left, less than an entry's %u-byte type and length",
						 left, SRAT_ENTRY_HEADER_LEN);
		type = e[SRAT_ENTRY_TYPE];
		length = e[SRAT_ENTRY_LENGTH];
		if (length < SRAT_ENTRY_HEADER_LEN)
			return srat_refuse_entry(w, "type %u has length %u: the walk would never move past it",
						 type, length);
		if (length > left)
			return srat_refuse_entry(w, "type %u of length %u runs past the table's end (%zu bytes left)",
						 type, length, left);
		if (length < srat_entry_min_len(type))
			return srat_refuse_entry(w, "type %u (%s) is %u bytes long, shorter than its %u",
						 type, srat_entry_name(type),
						 length,
						 srat_entry_min_len(type));
		if (!srat_parse_entry(w, e))
			return false;
		w->offset += length;
	}
	return true;
}

/* Slots to node numbers: nodes by increasing domain (include/numa.h). */
static void srat_number_nodes(struct numa_topology *t)
{
	int nid_of_slot[MAX_NUMNODES];
	u32 domain_of_slot[MAX_NUMNODES];
	unsigned int slot, other, i;

	for (slot = 0; slot < t->nr_nodes; slot++) {
		int nid = 0;

		for (other = 0; other < t->nr_nodes; other++)
			if (t->pxm[other] < t->pxm[slot])
				nid++;
		nid_of_slot[slot] = nid;
		domain_of_slot[slot] = t->pxm[slot];
	}
	for (slot = 0; slot < t->nr_nodes; slot++)
		t->pxm[nid_of_slot[slot]] = domain_of_slot[slot];
	for (i = 0; i < t->nr_cpus; i++)
		t->cpu[i].nid = nid_of_slot[t->cpu[i].nid];
	for (i = 0; i < t->nr_memblks; i++)
		t->memblk[i].nid = nid_of_slot[t->memblk[i].nid];
}

/* Insertion sort by start: at most NUMA_MAX_MEMBLKS, and no two overlap. */
static void srat_sort_memblks(struct numa_topology *t)
{
	unsigned int i, j;

	for (i = 1; i < t->nr_memblks; i++) {
		struct numa_memblk b = t->memblk[i];

		for (j = i; j > 0 && t->memblk[j - 1].start > b.start; j--)
			t->memblk[j] = t->memblk[j - 1];
		t->memblk[j] = b;
	}
}

bool acpi_parse_srat(const void *table, size_t len, struct numa_topology *t)
{
	struct srat_walk w = { .table = table, .len = len, .t = t };

	numa_last_warning[0] = '\0';
	memset(t, 0, sizeof(*t));
	if (len < SRAT_ENTRIES_OFFSET)
		return srat_refuse(t, "is %zu bytes long, shorter than its %u-byte header",
				   len, SRAT_ENTRIES_OFFSET);
	if (!srat_walk_entries(&w))
		return false;
	if (!t->nr_cpus && !t->nr_memblks)
		return srat_refuse(t, "lists no enabled CPU or memory (%u entries)",
				   w.index);
	if (!t->nr_memblks)
		return srat_refuse(t, "lists %u CPU%s but no enabled memory: a node needs memory somewhere",
				   t->nr_cpus, t->nr_cpus == 1 ? "" : "s");
	srat_number_nodes(t);
	srat_sort_memblks(t);
	numa_default_distances(t->distance);
	t->valid = true;
	return true;
}

/* ---- the SLIT ---- */

/* Refuse the SLIT: one line, the default distances, false. */
static __printf(2, 3) bool slit_refuse(struct numa_topology *t,
				       const char *fmt, ...)
{
	char why[NUMA_WARNING_LINE_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	t->has_distances = false;
	numa_default_distances(t->distance);
	numa_warn("numa: SLIT %s; using the default distances (%d local, %d remote)",
		  why, LOCAL_DISTANCE, REMOTE_DISTANCE);
	return false;
}

/* Every entry of the N x N matrix by ACPI 6.5, 5.2.17's rules. */
static bool slit_check_matrix(struct numa_topology *t, const u8 *matrix,
			      unsigned int count)
{
	unsigned int i, j;

	for (i = 0; i < count; i++) {
		for (j = 0; j < count; j++) {
			unsigned int d = matrix[i * count + j];
			size_t offset = SLIT_MATRIX_OFFSET + i * count + j;

			if (i == j && d != LOCAL_DISTANCE)
				return slit_refuse(t, "entry [%u][%u] (offset %#zx) is %u: a domain's distance to itself must be %d",
						   i, j, offset, d,
						   LOCAL_DISTANCE);
			if (i != j && d <= LOCAL_DISTANCE)
				return slit_refuse(t, "entry [%u][%u] (offset %#zx) is %u: a distance between two domains must be above %d",
						   i, j, offset, d,
						   LOCAL_DISTANCE);
		}
	}
	return true;
}

bool acpi_parse_slit(const void *table, size_t len, struct numa_topology *t)
{
	const u8 *p = table;
	u64 count;
	unsigned int n, a, b;

	numa_last_warning[0] = '\0';
	if (!t->valid)
		return slit_refuse(t, "read without an accepted SRAT: no domain to give distances to");
	if (len < SLIT_MATRIX_OFFSET)
		return slit_refuse(t, "is %zu bytes long, shorter than its %u-byte header",
				   len, SLIT_MATRIX_OFFSET);
	count = get_unaligned_le64(p + SLIT_COUNT_OFFSET);
	if (count > SLIT_MAX_LOCALITIES)
		return slit_refuse(t, "locality count %llu is absurd (more than %u)",
				   (unsigned long long)count,
				   SLIT_MAX_LOCALITIES);
	n = (unsigned int)count;
	if (len - SLIT_MATRIX_OFFSET < (size_t)n * n)
		return slit_refuse(t, "is %zu bytes long, cut short of its %u x %u distances (%zu bytes needed)",
				   len, n, n, SLIT_MATRIX_OFFSET + (size_t)n * n);
	for (a = 0; a < t->nr_nodes; a++)
		if (t->pxm[a] >= n)
			return slit_refuse(t, "gives distances for %u domain%s, but the SRAT names domain %u",
					   n, n == 1 ? "" : "s", t->pxm[a]);
	if (!slit_check_matrix(t, p + SLIT_MATRIX_OFFSET, n))
		return false;
	for (a = 0; a < t->nr_nodes; a++)
		for (b = 0; b < t->nr_nodes; b++)
			t->distance[a][b] =
				p[SLIT_MATRIX_OFFSET + t->pxm[a] * n + t->pxm[b]];
	t->has_distances = true;
	return true;
}
