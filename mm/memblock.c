/*
 * memblock.c - boot-time ranges of memory and of reservations.
 *
 * Design (see include/memblock.h for the invariants): two small sorted
 * arrays of [base, base + size) ranges.  Adding a range inserts it in order
 * and then merges every pair of neighbours that overlap or touch, so each
 * array always describes a set of addresses in its simplest form.  Removing
 * a range may split one region in two.  The arrays are static: memblock
 * runs before any allocator, and 128 entries are far more than a PC's
 * memory map (QEMU gives 6 to 10).  When an array is full the range is
 * dropped and counted, and memblock_dump() says so.
 *
 * Firmware maps are not to be trusted: memblock_add_firmware_map() accepts
 * entries in any order, overlapping, zero-length or unaligned, beyond the
 * physical address space or inside the PCI hole, trims them to what is
 * safe and reports each change.  The rules, in order:
 *   1. zero length or entirely above MEMBLOCK_MAX_PHYS: ignored;
 *   2. an end past MEMBLOCK_MAX_PHYS (or one that wraps): clipped there;
 *   3. RAM is shrunk to whole pages (a partial page may hold anything);
 *      what is left shorter than a page is ignored;
 *   4. RAM overlapping earlier RAM merges with it (reported);
 *   5. the PCI hole is cut out of RAM;
 *   6. non-RAM entries are rounded out to pages and reserved where they
 *      overlap RAM: when the firmware says both, "not RAM" wins.  If the
 *      reserved array is full, the range is removed from `memory` instead:
 *      "not RAM" still wins, at the cost of the RAM around it.
 *
 * Locking: none, by design: boot CPU only, before interrupts.
 */
#include <memblock.h>
#include <kernel.h>
#include <printk.h>
#include <string.h>
#include <memlayout.h>

struct memblock memblock = {
	.memory = { .name = "memory" },
	.reserved = { .name = "reserved" },
};

void memblock_reset(void)
{
	memset(&memblock, 0, sizeof(memblock));
	memblock.memory.name = "memory";
	memblock.reserved.name = "reserved";
}

static u64 region_end(const struct memblock_region *r)
{
	return r->base + r->size;
}

static void remove_region(struct memblock_type *type, unsigned int i)
{
	memmove(&type->regions[i], &type->regions[i + 1],
		(type->cnt - i - 1) * sizeof(type->regions[0]));
	type->cnt--;
}

/* Merge neighbours that overlap or touch; the array is sorted by base. */
static void merge_regions(struct memblock_type *type)
{
	unsigned int i = 0;

	while (i + 1 < type->cnt) {
		struct memblock_region *a = &type->regions[i];
		struct memblock_region *b = &type->regions[i + 1];

		if (b->base > region_end(a)) {
			i++;
			continue;
		}
		if (region_end(b) > region_end(a))
			a->size = region_end(b) - a->base;
		remove_region(type, i + 1);
	}
}

static bool add_range(struct memblock_type *type, u64 base, u64 size)
{
	unsigned int i;

	if (!size)
		return true;
	if (type->cnt == MEMBLOCK_MAX_REGIONS) {
		type->dropped++;
		return false;
	}
	/* Insertion keeps the array sorted by base. */
	for (i = 0; i < type->cnt && type->regions[i].base < base; i++)
		;
	memmove(&type->regions[i + 1], &type->regions[i],
		(type->cnt - i) * sizeof(type->regions[0]));
	type->regions[i].base = base;
	type->regions[i].size = size;
	type->cnt++;
	merge_regions(type);
	return true;
}

static bool remove_range(struct memblock_type *type, u64 base, u64 size)
{
	u64 end = base + size;
	unsigned int i = 0;

	while (i < type->cnt) {
		struct memblock_region *r = &type->regions[i];
		u64 rb = r->base, re = region_end(r);

		if (re <= base || rb >= end) {
			i++;
			continue;
		}
		if (rb < base && re > end) {
			/* The hole is inside: split the region in two. */
			r->size = base - rb;
			return add_range(type, end, re - end);
		}
		if (rb < base) {
			r->size = base - rb;
			i++;
		} else if (re > end) {
			r->base = end;
			r->size = re - end;
			i++;
		} else {
			remove_region(type, i);
		}
	}
	return true;
}

bool memblock_add(u64 base, u64 size)
{
	return add_range(&memblock.memory, base, size);
}

bool memblock_remove(u64 base, u64 size)
{
	return remove_range(&memblock.memory, base, size);
}

bool memblock_reserve(u64 base, u64 size)
{
	u64 start = ALIGN_DOWN(base, PAGE_SIZE);
	u64 end = ALIGN_UP(base + size, PAGE_SIZE);

	if (!size)
		return true;
	return add_range(&memblock.reserved, start, end - start);
}

/* Bytes of [base, end) that lie in `memory`. */
static u64 memory_overlap(u64 base, u64 end)
{
	u64 total = 0;
	unsigned int i;

	for (i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];
		u64 s = max(base, r->base), e = min(end, region_end(r));

		if (s < e)
			total += e - s;
	}
	return total;
}

static const char *fw_type_name(u32 type)
{
	switch (type) {
	case E820_TYPE_RAM:      return "usable";
	case E820_TYPE_RESERVED: return "reserved";
	case E820_TYPE_ACPI:     return "ACPI data";
	case E820_TYPE_NVS:      return "ACPI NVS";
	case E820_TYPE_UNUSABLE: return "unusable";
	default:                 return "unknown type";
	}
}

static void report(const struct fw_mmap_entry *e, const char *what)
{
	pr_warn("memblock: firmware entry [%#lx +%#lx] %s: %s\n",
		(unsigned long)e->base, (unsigned long)e->length,
		fw_type_name(e->type), what);
}

/* Rules 1 and 2 of the header: [*start, *end) within the address space. */
static bool clip_to_phys_limit(const struct fw_mmap_entry *e, u64 *start,
			       u64 *end, struct memblock_map_stats *st)
{
	if (!e->length) {
		report(e, "zero length, ignored");
		st->ignored++;
		return false;
	}
	if (e->base >= MEMBLOCK_MAX_PHYS) {
		report(e, "beyond the physical address space, ignored");
		st->ignored++;
		if (e->type == E820_TYPE_RAM)
			st->ignored_bytes += e->length;
		return false;
	}
	*start = e->base;
	*end = e->base + e->length;
	if (*end < *start || *end > MEMBLOCK_MAX_PHYS) {
		report(e, "clipped at the physical address limit");
		*end = MEMBLOCK_MAX_PHYS;
		if (e->type == E820_TYPE_RAM) {
			st->trimmed++;
			st->ignored_bytes += e->length - (*end - *start);
		}
	}
	return true;
}

static void add_fw_ram(const struct fw_mmap_entry *e,
		       struct memblock_map_stats *st)
{
	u64 start, end, s, t;

	if (!clip_to_phys_limit(e, &start, &end, st))
		return;
	s = ALIGN_UP(start, PAGE_SIZE);
	t = ALIGN_DOWN(end, PAGE_SIZE);
	if (s >= t) {
		report(e, "less than one whole page, ignored");
		st->ignored++;
		st->ignored_bytes += end - start;
		return;
	}
	if (s != start || t != end) {
		report(e, "trimmed to whole pages");
		st->trimmed++;
		st->ignored_bytes += (s - start) + (end - t);
	}
	if (memory_overlap(s, t)) {
		report(e, "overlaps another usable entry, merged");
		st->overlaps++;
	}
	if (!memblock_add(s, t - s)) {
		report(e, "no room left in the memory array, ignored");
		st->ignored++;
		st->ignored_bytes += t - s;
		return;
	}
	st->used++;
}

static void reserve_fw_range(const struct fw_mmap_entry *e,
			     struct memblock_map_stats *st)
{
	u64 start, end;

	if (!clip_to_phys_limit(e, &start, &end, st))
		return;
	start = ALIGN_DOWN(start, PAGE_SIZE);
	end = ALIGN_UP(end, PAGE_SIZE);
	if (!memory_overlap(start, end))
		return;     /* a hole between RAM ranges: nothing to protect */
	report(e, "overlaps usable memory, reserved");
	st->fw_reserved++;
	if (memblock_reserve(start, end - start))
		return;
	/* No room to record it: give the RAM up rather than let it look
	 * free.  A remove never loses safety: where it needs a slot it has
	 * none for, it drops the far side of the range too. */
	report(e, "no room in the reserved array, removed from usable memory");
	memblock_remove(start, end - start);
}

void memblock_add_firmware_map(const struct fw_mmap_entry *map,
			       unsigned int nr,
			       struct memblock_map_stats *stats)
{
	struct memblock_map_stats local;
	struct memblock_map_stats *st = stats ? stats : &local;
	u64 before;
	unsigned int i;

	memset(st, 0, sizeof(*st));
	for (i = 0; i < nr; i++)
		if (map[i].type == E820_TYPE_RAM)
			add_fw_ram(&map[i], st);

	before = memblock_phys_mem_size();
	memblock_remove(PCI_HOLE_START, PCI_HOLE_END - PCI_HOLE_START);
	st->pci_hole_bytes = before - memblock_phys_mem_size();
	if (st->pci_hole_bytes)
		pr_warn("memblock: %lu KiB of \"usable\" memory inside the PCI hole [%#llx-%#llx) ignored\n",
			(unsigned long)(st->pci_hole_bytes >> 10),
			PCI_HOLE_START, PCI_HOLE_END - 1);

	/* Only now is `memory` complete: reserve what overlaps it. */
	for (i = 0; i < nr; i++)
		if (map[i].type != E820_TYPE_RAM)
			reserve_fw_range(&map[i], st);
}

bool memblock_next_free_range(u64 *cursor, u64 *start, u64 *end)
{
	unsigned int i, j;

	for (i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *m = &memblock.memory.regions[i];
		u64 s = max(m->base, *cursor), e = region_end(m);

		/* Step over reservations, which are sorted, one at a time. */
		for (j = 0; j < memblock.reserved.cnt && s < e; j++) {
			const struct memblock_region *r =
				&memblock.reserved.regions[j];

			if (region_end(r) <= s)
				continue;
			if (r->base >= e)
				break;
			if (r->base > s) {
				e = r->base;
				break;
			}
			s = region_end(r);
		}
		if (s < e) {
			*start = s;
			*end = e;
			*cursor = e;
			return true;
		}
	}
	return false;
}

phys_addr_t memblock_alloc_range(u64 size, u64 align, u64 min, u64 max)
{
	u64 cursor = 0, s, e, best = 0;
	bool found = false;

	/* Above the address space it cannot fit; checked before rounding
	 * up, which would wrap a size near 2^64 round to 0. */
	if (!size || size > MEMBLOCK_MAX_PHYS || (align & (align - 1)))
		return 0;
	size = ALIGN_UP(size, PAGE_SIZE);
	if (align < PAGE_SIZE)
		align = PAGE_SIZE;
	while (memblock_next_free_range(&cursor, &s, &e)) {
		u64 cand;

		s = max(s, min);
		e = min(e, max);
		if (e <= s || e - s < size)
			continue;
		cand = ALIGN_DOWN(e - size, align);
		/* 0 is the answer "failed": never a fit. */
		if (cand < s || !cand)
			continue;
		if (!found || cand > best) {  /* the highest fit wins */
			best = cand;
			found = true;
		}
	}
	if (!found || !memblock_reserve(best, size))
		return 0;
	return best;
}

phys_addr_t memblock_alloc(u64 size, u64 align)
{
	return memblock_alloc_range(size, align, 0, MEMBLOCK_MAX_PHYS);
}

u64 memblock_phys_mem_size(void)
{
	u64 total = 0;
	unsigned int i;

	for (i = 0; i < memblock.memory.cnt; i++)
		total += memblock.memory.regions[i].size;
	return total;
}

u64 memblock_free_size(void)
{
	u64 cursor = 0, s, e, total = 0;

	while (memblock_next_free_range(&cursor, &s, &e))
		total += e - s;
	return total;
}

u64 memblock_reserved_size(void)
{
	return memblock_phys_mem_size() - memblock_free_size();
}

u64 memblock_start_of_DRAM(void)
{
	return memblock.memory.cnt ? memblock.memory.regions[0].base : 0;
}

u64 memblock_end_of_DRAM(void)
{
	const struct memblock_type *m = &memblock.memory;

	return m->cnt ? region_end(&m->regions[m->cnt - 1]) : 0;
}

u64 memblock_first_memory(u64 from, u64 to)
{
	unsigned int i;

	for (i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *m = &memblock.memory.regions[i];

		if (region_end(m) <= from)
			continue;
		if (m->base >= to)
			break;
		return max(m->base, from);
	}
	return to;
}

static void dump_type(const struct memblock_type *type)
{
	unsigned int i;

	pr_info("memblock: %s: %u ranges%s\n", type->name, type->cnt,
		type->dropped ? " (some DROPPED: array full)" : "");
	for (i = 0; i < type->cnt; i++) {
		const struct memblock_region *r = &type->regions[i];

		pr_info("  [mem %#014lx-%#014lx] %lu KiB\n",
			(unsigned long)r->base,
			(unsigned long)(region_end(r) - 1),
			(unsigned long)(r->size >> 10));
	}
}

void memblock_dump(void)
{
	dump_type(&memblock.memory);
	dump_type(&memblock.reserved);
	pr_info("memblock: %lu MiB usable, %lu KiB reserved, %lu MiB free\n",
		(unsigned long)(memblock_phys_mem_size() >> 20),
		(unsigned long)(memblock_reserved_size() >> 10),
		(unsigned long)(memblock_free_size() >> 20));
}
