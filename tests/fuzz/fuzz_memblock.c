/*
 * fuzz_memblock.c - a model-checked libFuzzer target over mm/memblock.c:
 * random firmware memory maps, then random early reservations and
 * allocations, each result checked against an independent model.
 *
 * THE INPUT.  Byte 0: how many firmware entries follow (up to
 * FUZZ_MAX_ENTRIES, more than MEMBLOCK_MAX_REGIONS so the arrays can
 * overflow).  Each entry is a mode byte and a few bytes of base and length
 * whose meaning the mode picks: page multiples, unaligned 32-bit values,
 * MiB steps up to 64 GiB, or "special" values (the PCI hole, the physical
 * address limit, the top of the 64-bit space, lengths that wrap); and a
 * type: usable, reserved, ACPI, NVS, unusable or unknown.  So the maps are
 * unsorted, overlapping, zero-length, huge, unaligned, with reserved
 * entries inside usable ones.  Then operations until the input ends:
 * memblock_reserve() (the kernel image, a module, anything),
 * memblock_alloc_range()/memblock_alloc() with sizes, alignments and
 * limits of every kind (zero, not a power of two, wrapping), and a walk of
 * the free ranges.
 *
 * THE MODEL.  Two sets of address ranges (struct range_set: sorted,
 * disjoint, merged, with room for every range the input can make, and
 * 128-bit arithmetic where the real code could overflow), built by the
 * rules of mm/memblock.c's head comment applied independently:
 * usable RAM clipped at MEMBLOCK_MAX_PHYS and shrunk to whole pages, the
 * PCI hole cut out, non-RAM entries rounded out to pages and reserved
 * where they overlap RAM; reservations rounded out to pages; an
 * allocation the highest aligned fit in free memory within its limits.
 * Checked after the map and after every operation:
 *   - the invariants of include/memblock.h on both arrays: sorted, no
 *     overlap, no two adjacent, `memory` page-aligned, `reserved` rounded
 *     out to pages, counts within the array;
 *   - while nothing was dropped: `memory` and `reserved` are exactly the
 *     model's, the totals (phys, reserved, free) agree with it and with
 *     each other, and the free-range walk yields the model's free ranges;
 *   - once an array overflowed (a drop is counted in `dropped`, never
 *     silent): `memory` only ever lost ranges, and every byte the firmware
 *     or a successful memblock_reserve() marked reserved is still either
 *     reserved or no longer usable memory: an overflow may waste RAM but
 *     never hand out what is not RAM;
 *   - an allocation is 0 only when the model has no fit (or the reserved
 *     array is full), and otherwise is the model's answer: aligned, inside
 *     [min, max), inside free usable memory, and reserved afterwards.
 * A violation prints what was wrong and abort()s.
 *
 * Run: `make fuzz`; a crash input replays with `build/fuzz/fuzz_memblock
 * CRASH-FILE` (FUZZ_VERBOSE=1 shows memblock's own warnings and a dump).
 */
#include <kernel.h>
#include <memblock.h>
#include <memlayout.h>
#include <printk.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fuzz_report.h"

#define FUZZ_MAX_ENTRIES   200     /* past MEMBLOCK_MAX_REGIONS */
#define FUZZ_MAX_OPS       256
/* Never full: the map adds at most one range per entry, each operation
 * at most one. */
#define MODEL_MAX_RANGES   (FUZZ_MAX_ENTRIES + FUZZ_MAX_OPS + 8)
#define MiB                (1ull << 20)
#define GiB                (1ull << 30)

typedef unsigned __int128 u128;

/* ---- the input ---- */

struct fuzz_input {
	const uint8_t *data;
	size_t size, pos;
};

static uint8_t get_u8(struct fuzz_input *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static uint16_t get_u16(struct fuzz_input *in)
{
	uint16_t lo = get_u8(in);

	return (uint16_t)(lo | (get_u8(in) << 8));
}

static uint32_t get_u32(struct fuzz_input *in)
{
	uint32_t lo = get_u16(in);

	return lo | ((uint32_t)get_u16(in) << 16);
}

/* ---- the model: a set of [lo, hi) ranges ---- */

struct range {
	u64 lo, hi;
};

struct range_set {
	unsigned int n;
	struct range r[MODEL_MAX_RANGES];
};

static struct range_set model_memory, model_reserved;
static unsigned int ops_done;

static void fuzz_print_where(void)
{
	fprintf(stderr, "fuzz_memblock: FAILED after %u operation(s): ", ops_done);
}

static void fuzz_after_failure(void)
{
	if (getenv("FUZZ_VERBOSE"))
		memblock_dump();
}

static void set_add(struct range_set *s, u64 lo, u64 hi)
{
	struct range out[MODEL_MAX_RANGES];
	unsigned int i, n = 0;
	bool placed = false;

	if (lo >= hi)
		return;
	for (i = 0; i < s->n; i++) {
		struct range r = s->r[i];

		if (r.hi < lo) {
			out[n++] = r;
		} else if (r.lo > hi) {
			if (!placed) {
				out[n++] = (struct range){ lo, hi };
				placed = true;
			}
			out[n++] = r;
		} else {        /* overlapping or adjacent: absorb */
			lo = min(lo, r.lo);
			hi = max(hi, r.hi);
		}
	}
	if (!placed)
		out[n++] = (struct range){ lo, hi };
	FUZZ_ASSERT(n <= MODEL_MAX_RANGES, "model set full");
	memcpy(s->r, out, n * sizeof(out[0]));
	s->n = n;
}

static void set_remove(struct range_set *s, u64 lo, u64 hi)
{
	struct range out[MODEL_MAX_RANGES];
	unsigned int i, n = 0;

	for (i = 0; i < s->n; i++) {
		struct range r = s->r[i];

		if (r.hi <= lo || r.lo >= hi) {
			out[n++] = r;
			continue;
		}
		if (r.lo < lo)
			out[n++] = (struct range){ r.lo, lo };
		if (r.hi > hi)
			out[n++] = (struct range){ hi, r.hi };
	}
	FUZZ_ASSERT(n <= MODEL_MAX_RANGES, "model set full");
	memcpy(s->r, out, n * sizeof(out[0]));
	s->n = n;
}

/* Bytes of [lo, hi) in s. */
static u64 set_overlap(const struct range_set *s, u64 lo, u64 hi)
{
	u64 total = 0;
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		u64 a = max(lo, s->r[i].lo), b = min(hi, s->r[i].hi);

		if (a < b)
			total += b - a;
	}
	return total;
}

static u64 set_bytes(const struct range_set *s)
{
	u64 total = 0;
	unsigned int i;

	for (i = 0; i < s->n; i++)
		total += s->r[i].hi - s->r[i].lo;
	return total;
}

/* free = memory minus reserved, into *out. */
static void model_free(struct range_set *out)
{
	unsigned int i;

	*out = model_memory;
	for (i = 0; i < model_reserved.n; i++)
		set_remove(out, model_reserved.r[i].lo, model_reserved.r[i].hi);
}

static void set_from_type(struct range_set *s, const struct memblock_type *t)
{
	unsigned int i;

	s->n = 0;
	for (i = 0; i < t->cnt; i++)
		set_add(s, t->regions[i].base,
			t->regions[i].base + t->regions[i].size);
}

/* ---- checks ---- */

static bool dropped_any(void)
{
	return memblock.memory.dropped || memblock.reserved.dropped;
}

static void check_type_invariants(const struct memblock_type *t,
				  bool page_aligned)
{
	unsigned int i;

	FUZZ_ASSERT(t->cnt <= MEMBLOCK_MAX_REGIONS, "%s: %u regions", t->name,
		    t->cnt);
	for (i = 0; i < t->cnt; i++) {
		const struct memblock_region *r = &t->regions[i];

		FUZZ_ASSERT(r->size, "%s[%u] is empty", t->name, i);
		FUZZ_ASSERT(r->base + r->size > r->base,
			    "%s[%u] [%#llx +%#llx] wraps", t->name, i,
			    (unsigned long long)r->base,
			    (unsigned long long)r->size);
		if (page_aligned)
			FUZZ_ASSERT(!(r->base % PAGE_SIZE) && !(r->size % PAGE_SIZE),
				    "%s[%u] [%#llx +%#llx] not page-aligned",
				    t->name, i, (unsigned long long)r->base,
				    (unsigned long long)r->size);
		if (i)
			FUZZ_ASSERT(t->regions[i - 1].base + t->regions[i - 1].size <
				    r->base,
				    "%s[%u] and [%u] overlap, touch or are unsorted",
				    t->name, i - 1, i);
	}
}

static void check_sets_equal(const struct range_set *a,
			     const struct memblock_type *t)
{
	unsigned int i;

	FUZZ_ASSERT(a->n == t->cnt, "%s: %u regions, the model has %u", t->name,
		    t->cnt, a->n);
	for (i = 0; i < a->n; i++)
		FUZZ_ASSERT(a->r[i].lo == t->regions[i].base &&
			    a->r[i].hi == t->regions[i].base + t->regions[i].size,
			    "%s[%u] is [%#llx-%#llx), the model says [%#llx-%#llx)",
			    t->name, i, (unsigned long long)t->regions[i].base,
			    (unsigned long long)(t->regions[i].base + t->regions[i].size),
			    (unsigned long long)a->r[i].lo,
			    (unsigned long long)a->r[i].hi);
}

static void check_free_walk(const struct range_set *free_set)
{
	u64 cursor = 0, s, e;
	unsigned int i = 0;

	while (memblock_next_free_range(&cursor, &s, &e)) {
		FUZZ_ASSERT(i < free_set->n, "free walk: extra range [%#llx-%#llx)",
			    (unsigned long long)s, (unsigned long long)e);
		/* The walk may split a model range where two memory regions
		 * meet; they never touch, so it must not. */
		FUZZ_ASSERT(s == free_set->r[i].lo && e == free_set->r[i].hi,
			    "free walk: [%#llx-%#llx), the model says [%#llx-%#llx)",
			    (unsigned long long)s, (unsigned long long)e,
			    (unsigned long long)free_set->r[i].lo,
			    (unsigned long long)free_set->r[i].hi);
		i++;
	}
	FUZZ_ASSERT(i == free_set->n, "free walk: %u ranges, the model has %u",
		    i, free_set->n);
}

static void check_all(void)
{
	static struct range_set real_set, free_model;
	struct range_set *real = &real_set, *free_set = &free_model;
	u64 phys = memblock_phys_mem_size(), res = memblock_reserved_size(),
	    fr = memblock_free_size();
	unsigned int i;

	check_type_invariants(&memblock.memory, true);
	check_type_invariants(&memblock.reserved, true);
	FUZZ_ASSERT(res + fr == phys, "reserved %#llx + free %#llx != memory %#llx",
		    (unsigned long long)res, (unsigned long long)fr,
		    (unsigned long long)phys);
	FUZZ_ASSERT(memblock_end_of_DRAM() <= MEMBLOCK_MAX_PHYS,
		    "memory ends past the physical address limit");
	for (i = 0; i < memblock.memory.cnt; i++) {
		const struct memblock_region *r = &memblock.memory.regions[i];

		FUZZ_ASSERT(r->base + r->size <= PCI_HOLE_START ||
			    r->base >= PCI_HOLE_END,
			    "memory[%u] in the PCI hole", i);
	}
	if (!dropped_any()) {
		check_sets_equal(&model_memory, &memblock.memory);
		check_sets_equal(&model_reserved, &memblock.reserved);
		model_free(free_set);
		FUZZ_ASSERT(fr == set_bytes(free_set), "free %#llx, the model %#llx",
			    (unsigned long long)fr,
			    (unsigned long long)set_bytes(free_set));
		check_free_walk(free_set);
	} else {
		/* Memory only lost ranges; reserved bytes are never free. */
		set_from_type(real, &memblock.memory);
		for (i = 0; i < real->n; i++)
			FUZZ_ASSERT(set_overlap(&model_memory, real->r[i].lo,
						real->r[i].hi) ==
				    real->r[i].hi - real->r[i].lo,
				    "after an overflow memory gained [%#llx-%#llx)",
				    (unsigned long long)real->r[i].lo,
				    (unsigned long long)real->r[i].hi);
		for (i = 0; i < model_reserved.n; i++) {
			u64 lo = model_reserved.r[i].lo, hi = model_reserved.r[i].hi;
			u64 usable = 0, covered = 0;
			unsigned int j;

			for (j = 0; j < memblock.memory.cnt; j++) {
				const struct memblock_region *r =
					&memblock.memory.regions[j];
				u64 a = max(lo, r->base),
				    b = min(hi, r->base + r->size);
				u64 k;

				if (a >= b)
					continue;
				usable += b - a;
				for (k = 0; k < memblock.reserved.cnt; k++) {
					const struct memblock_region *q =
						&memblock.reserved.regions[k];
					u64 c = max(a, q->base),
					    d = min(b, q->base + q->size);

					if (c < d)
						covered += d - c;
				}
			}
			FUZZ_ASSERT(usable == covered,
				    "after an overflow (%u memory, %u reserved "
				    "dropped) reserved [%#llx-%#llx) is free usable "
				    "memory (%#llx of %#llx bytes)",
				    memblock.memory.dropped, memblock.reserved.dropped,
				    (unsigned long long)lo, (unsigned long long)hi,
				    (unsigned long long)(usable - covered),
				    (unsigned long long)usable);
		}
	}
}

/* ---- the firmware map ---- */

static const u64 special_bases[] = {
	0, 0x9fc00, 0xf0000, 1 * MiB, 16 * MiB, PCI_HOLE_START - 4096,
	PCI_HOLE_START, 0xfec00000ull, PCI_HOLE_END - 4096, PCI_HOLE_END,
	MEMBLOCK_MAX_PHYS - 8192, MEMBLOCK_MAX_PHYS - 1, MEMBLOCK_MAX_PHYS,
	~0ull - 4095, ~0ull,
};

static const u64 special_lengths[] = {
	0, 1, 4095, 4096, 4097, 2 * GiB, PCI_HOLE_END - PCI_HOLE_START,
	MEMBLOCK_MAX_PHYS, 1ull << 63, ~0ull - 4095, ~0ull,
};

static const u32 entry_types[16] = {
	E820_TYPE_RAM, E820_TYPE_RAM, E820_TYPE_RAM, E820_TYPE_RAM,
	E820_TYPE_RAM, E820_TYPE_RAM, E820_TYPE_RAM, E820_TYPE_RAM,
	E820_TYPE_RESERVED, E820_TYPE_RESERVED, E820_TYPE_RESERVED,
	E820_TYPE_ACPI, E820_TYPE_NVS, E820_TYPE_UNUSABLE, 0, 17,
};

static u64 get_value(struct fuzz_input *in, unsigned int mode, bool length)
{
	switch (mode & 3) {
	case 0:  return (u64)get_u16(in) * PAGE_SIZE;
	case 1:  return get_u32(in);
	case 2:  return ((u64)get_u16(in) * MiB) + get_u8(in);
	default:
		if (length)
			return special_lengths[get_u8(in) % ARRAY_SIZE(special_lengths)];
		return special_bases[get_u8(in) % ARRAY_SIZE(special_bases)] +
		       (u64)(get_u8(in) % 4) * PAGE_SIZE;
	}
}

/* The rules of mm/memblock.c's head comment, 1 and 2: within the space. */
static bool model_clip(const struct fw_mmap_entry *e, u64 *start, u64 *end)
{
	u128 end128 = (u128)e->base + e->length;

	if (!e->length || e->base >= MEMBLOCK_MAX_PHYS)
		return false;
	*start = e->base;
	*end = end128 > MEMBLOCK_MAX_PHYS ? MEMBLOCK_MAX_PHYS : (u64)end128;
	return true;
}

static void model_firmware_map(const struct fw_mmap_entry *map, unsigned int nr)
{
	unsigned int i;
	u64 s, t;

	for (i = 0; i < nr; i++) {
		if (map[i].type != E820_TYPE_RAM || !model_clip(&map[i], &s, &t))
			continue;
		s = ALIGN_UP(s, PAGE_SIZE);
		t = ALIGN_DOWN(t, PAGE_SIZE);
		if (s < t)
			set_add(&model_memory, s, t);
	}
	set_remove(&model_memory, PCI_HOLE_START, PCI_HOLE_END);
	for (i = 0; i < nr; i++) {
		if (map[i].type == E820_TYPE_RAM || !model_clip(&map[i], &s, &t))
			continue;
		s = ALIGN_DOWN(s, PAGE_SIZE);
		t = ALIGN_UP(t, PAGE_SIZE);
		if (set_overlap(&model_memory, s, t))
			set_add(&model_reserved, s, t);
	}
}

/* ---- operations ---- */

static void op_reserve(struct fuzz_input *in)
{
	uint8_t mode = get_u8(in);
	u64 base = get_value(in, mode, false), size = get_value(in, mode >> 2, true);
	u64 lo, hi;
	unsigned int dropped = memblock.reserved.dropped;
	bool ok;

	/* The callers (the image, modules, firmware) never pass a range
	 * beyond the physical address space: keep to that contract. */
	if ((u128)base + size > MEMBLOCK_MAX_PHYS)
		size = base >= MEMBLOCK_MAX_PHYS ? 0 : MEMBLOCK_MAX_PHYS - base;
	ok = memblock_reserve(base, size);
	if (!size) {
		FUZZ_ASSERT(ok, "memblock_reserve(size 0) failed");
		return;
	}
	lo = ALIGN_DOWN(base, PAGE_SIZE);
	hi = ALIGN_UP(base + size, PAGE_SIZE);
	if (ok)
		set_add(&model_reserved, lo, hi);
	else
		FUZZ_ASSERT(memblock.reserved.dropped == dropped + 1,
			    "memblock_reserve() failed without counting a drop");
}

static void op_alloc(struct fuzz_input *in)
{
	uint8_t mode = get_u8(in), asel = get_u8(in);
	u64 size = get_value(in, mode, true);
	u64 align = (asel & 0x80) ? (u64)asel : 1ull << (asel % 40);
	u64 min_addr = 0, max_addr = MEMBLOCK_MAX_PHYS;
	static struct range_set free_model;
	struct range_set *free_set = &free_model;
	u128 size_pages, want_align;
	bool found = false;
	u64 best = 0, got;
	unsigned int i;

	if (mode & 0x40) {
		min_addr = get_value(in, mode >> 4, false);
		max_addr = get_value(in, mode >> 2, false);
		got = memblock_alloc_range(size, align, min_addr, max_addr);
	} else {
		got = memblock_alloc(size, align);
	}
	/* The model's answer: the highest aligned fit, in 128 bits. */
	model_free(free_set);
	size_pages = ((u128)size + PAGE_SIZE - 1) / PAGE_SIZE * PAGE_SIZE;
	want_align = align < PAGE_SIZE ? PAGE_SIZE : align;
	if (size && !(align & (align - 1))) {
		for (i = 0; i < free_set->n; i++) {
			u128 s = max(free_set->r[i].lo, min_addr);
			u128 e = min(free_set->r[i].hi, max_addr);
			u128 cand;

			if (e <= s || e - s < size_pages)
				continue;
			cand = (e - size_pages) / want_align * want_align;
			if (cand < s || !cand)      /* 0 means "failed" */
				continue;
			if (!found || cand > best) {
				best = (u64)cand;
				found = true;
			}
		}
	}
	if (!got) {
		FUZZ_ASSERT(!found || dropped_any(),
			    "memblock_alloc_range(%#llx, align %#llx, [%#llx, %#llx)) "
			    "failed; the model fits it at %#llx",
			    (unsigned long long)size, (unsigned long long)align,
			    (unsigned long long)min_addr,
			    (unsigned long long)max_addr, (unsigned long long)best);
		return;
	}
	FUZZ_ASSERT(found, "memblock_alloc_range(%#llx, align %#llx, [%#llx, %#llx)) "
		    "gave %#llx; the model has no fit",
		    (unsigned long long)size, (unsigned long long)align,
		    (unsigned long long)min_addr, (unsigned long long)max_addr,
		    (unsigned long long)got);
	if (!dropped_any())
		FUZZ_ASSERT(got == best, "memblock_alloc_range gave %#llx, the "
			    "highest fit is %#llx", (unsigned long long)got,
			    (unsigned long long)best);
	FUZZ_ASSERT(!(got % (u64)want_align), "allocation %#llx not aligned to %#llx",
		    (unsigned long long)got, (unsigned long long)want_align);
	FUZZ_ASSERT(got >= min_addr && (u128)got + size_pages <= max_addr,
		    "allocation %#llx outside [%#llx, %#llx)",
		    (unsigned long long)got, (unsigned long long)min_addr,
		    (unsigned long long)max_addr);
	FUZZ_ASSERT(set_overlap(&model_memory, got, got + (u64)size_pages) ==
		    (u64)size_pages, "allocation %#llx leaves usable memory",
		    (unsigned long long)got);
	FUZZ_ASSERT(!set_overlap(&model_reserved, got, got + (u64)size_pages),
		    "allocation %#llx overlaps a reservation",
		    (unsigned long long)got);
	set_add(&model_reserved, got, got + (u64)size_pages);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	console_loglevel = getenv("FUZZ_VERBOSE") ? LOGLEVEL_DEBUG :
						    LOGLEVEL_EMERG;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct fw_mmap_entry map[FUZZ_MAX_ENTRIES];
	struct fuzz_input in = { .data = data, .size = size };
	struct memblock_map_stats st;
	unsigned int nr = get_u8(&in) % (FUZZ_MAX_ENTRIES + 1), i;

	memblock_reset();
	model_memory.n = model_reserved.n = 0;
	ops_done = 0;
	for (i = 0; i < nr; i++) {
		uint8_t mode = get_u8(&in);

		map[i].base = get_value(&in, mode, false);
		map[i].length = get_value(&in, mode >> 2, true);
		map[i].type = entry_types[mode >> 4];
	}
	memblock_add_firmware_map(map, nr, &st);
	model_firmware_map(map, nr);
	FUZZ_ASSERT(st.used + st.ignored <= nr, "map stats: %u used + %u ignored "
		    "of %u entries", st.used, st.ignored, nr);
	check_all();
	while (in.pos < in.size && ops_done < FUZZ_MAX_OPS) {
		if (get_u8(&in) & 1)
			op_alloc(&in);
		else
			op_reserve(&in);
		ops_done++;
		check_all();
	}
	memblock_reset();
	return 0;
}
