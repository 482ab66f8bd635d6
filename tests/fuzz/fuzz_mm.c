/*
 * fuzz_mm.c - a model-checked libFuzzer target over the whole slab and page
 * API of mm/, built for the host (clang -fsanitize=fuzzer,address,undefined).
 *
 * WHAT IT DOES.  Each input is a program: a header of three bytes picks the
 * machine (how many pretend CPUs, the kmalloc classes' mode (slab_mode=:
 * sheaves, SLUB's per-CPU slabs or none), which slub_debug= letters, page
 * poisoning on or off), then every group of bytes after it is one operation with its
 * arguments (struct fuzz_input below reads them; a short input simply ends
 * the program).  The operations are the public API, all of it:
 *   kmem_cache_create/_args (sizes 1 byte to beyond what a slab can hold,
 *   in each mode (sheaves, cpu slabs, none), with and without sheaves,
 *   capacity 0, a constructor, alignment, the
 *   SLAB_ debug flags F Z P U), kmem_cache_alloc/free, kmalloc, kzalloc,
 *   kcalloc, krealloc, ksize, kfree (sizes across every class, their tails,
 *   0, large blocks, __GFP_ZERO), kmalloc_nolock/kfree_nolock (in task and in
 *   NMI context), bulk alloc and free, prefill/alloc-from/refill/return of a
 *   sheaf, kmem_cache_shrink/destroy (a destroy of a cache with live
 *   objects too: one declared report, -1, and the cache goes on working),
 *   alloc_pages/__free_pages/free_pages of every order,
 *   try_alloc_pages/free_pages_nolock, the irq_work that drains deferred
 *   frees, drain_local_pages/drain_all_pages, a switch of the
 *   pretend CPU (host_cpu_id), an operation run as an IRQ (IRQs off, irq
 *   nesting raised), and an NMI armed at an interleaving point
 *   (include/mm_points.h): the next time the allocator reaches that point
 *   the hook runs an any-context operation in NMI context, in the middle of
 *   whatever the allocator was doing, locks held.
 *
 * THE MODEL.  Every live object (pointer, how it was allocated, its cache,
 * the bytes the caller owns, a fill pattern) and every live page block
 * (page, order, pattern) is recorded in plain arrays the allocator cannot
 * touch.  Checked on every step:
 *   - an allocation returns memory inside the arena, aligned as promised
 *     (the cache's alignment, a kmalloc class's natural alignment, a page
 *     for a block), overlapping no live object or block: nothing is handed
 *     out twice;
 *   - __GFP_ZERO (and kzalloc, kcalloc, try_alloc_pages) memory reads zero;
 *     a constructed object still carries its constructor's mark;
 *   - the pattern written at allocation is intact when the object or block
 *     is freed, or moved by krealloc (up to the bytes kept);
 *   - a prefilled sheaf holds what was asked and never fails while not
 *     empty; bulk allocation is all or nothing;
 *   - no report (WARNING:, BUG ..., bad page free, a destroy that found
 *     leaks) is printed: a private struct kunit is made the running test,
 *     so kunit_print_report() counts every report in it;
 *   - mm_check_all() (include/mm_check.h) finds every invariant intact
 *     every FUZZ_CHECK_EVERY operations and at the end;
 *   - the end: everything freed, every cache destroyed (0 = no leak), and
 *     the free page count back to what it was before the first operation.
 * A violation prints what was wrong and abort()s: libFuzzer saves the input.
 *
 * FRESH STATE.  Each input boots its own allocator: memblock is given one
 * RAM range over the arena (allocated once and kept, so there is no leak
 * between inputs), mm_init_nodes() builds the memmap and the buddy, and
 * kmem_cache_init() the slab; the end tears it all down (slab_host_reset(),
 * mm_exit_nodes()), as tests/host/mm_arena.h does for the unit tests.
 *
 * FUZZ_PLANTED_BUG: a build that must fail (make test proves it does).  A
 * shim between this program and mm/ hands out, once, a live object a
 * second time when a cache allocation follows a free of the same cache, as
 * a broken sheaf would; the model must catch it.
 *
 * Run: `make fuzz` (long), `make test` (short, count-based); a crash input
 * is replayed with `build/fuzz/fuzz_mm CRASH-FILE`; FUZZ_VERBOSE=1 in the
 * environment prints the allocator's log too.  docs/any-context.md, "The
 * model-checked fuzzers".
 */
#include <irq_work.h>
#include <irqflags.h>
#include <kernel.h>
#include <kunit.h>
#include <memblock.h>
#include <mm.h>
#include <mm_check.h>
#include <mm_points.h>
#include <mmzone.h>
#include <printk.h>
#include <slab.h>
#include <smp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "../../mm/slab_internal.h"
#include "fuzz_report.h"

#define FUZZ_ARENA_PHYS   (16ull << 20)
#define FUZZ_ARENA_SIZE   (16ull << 20)      /* 16 MiB of "RAM" */
#define FUZZ_ARENA_ALIGN  (4ul << 20)        /* one MAX_ORDER block */
#define FUZZ_MAX_CPUS     4
#define FUZZ_MAX_OPS      512                /* operations per input */
#define FUZZ_CHECK_EVERY  16                 /* mm_check_all() period */
#define FUZZ_MAX_CACHES   6
#define FUZZ_MAX_OBJECTS  512
#define FUZZ_MAX_BLOCKS   64
#define FUZZ_MAX_SHEAVES  4
#define FUZZ_MAX_BULK     48
#define FUZZ_MAX_SHEAF_ASK 72                /* past the largest capacity, 60 */
#define FUZZ_CTOR_MARK    0xc7               /* byte 0 of a constructed object */
#define FUZZ_PAGE_STRIPE  16                 /* pattern bytes per page of a block */
#define FUZZ_LARGE_MAX    (64u << 10)        /* largest kmalloc size tried */
#define FUZZ_CACHE_ALWAYS_FITS (16u << 10)   /* a cache this size must work */
#define FUZZ_SLAB_MAX_ORDER 3                /* SLAB_MAX_ORDER (slab_internal.h) */

/* ---- the input ---- */

struct fuzz_input {
	const uint8_t *data;
	size_t size, pos;
};

static bool input_done(const struct fuzz_input *in)
{
	return in->pos >= in->size;
}

/* Past the end every read is 0: a short input ends as if zero-padded. */
static uint8_t get_u8(struct fuzz_input *in)
{
	return in->pos < in->size ? in->data[in->pos++] : 0;
}

static uint16_t get_u16(struct fuzz_input *in)
{
	uint16_t lo = get_u8(in);

	return (uint16_t)(lo | (get_u8(in) << 8));
}

/* ---- the model ---- */

enum obj_kind {
	OBJ_CACHE,      /* kmem_cache_alloc, bulk, or from a prefilled sheaf */
	OBJ_KMALLOC,    /* kmalloc family or kmalloc_nolock, a slab object */
	OBJ_LARGE,      /* kmalloc above the largest class: a buddy block */
};

struct model_object {
	uint8_t *p;
	enum obj_kind kind;
	int cache;              /* index in caches[] (OBJ_CACHE) */
	size_t size;            /* bytes the caller owns */
	uint8_t seed;           /* the fill pattern */
	bool ctor;              /* byte 0 is the constructor's mark */
	bool zero_tail;         /* every call passed __GFP_ZERO (krealloc) */
};

struct model_block {
	struct page *page;
	unsigned int order;
	uint8_t seed;
};

struct model_cache {
	struct kmem_cache *s;
	unsigned int size, align;
	bool ctor;
};

struct model_sheaf {
	struct slab_sheaf *sheaf;
	int cache;
};

static struct model {
	struct model_cache caches[FUZZ_MAX_CACHES];
	struct model_object objects[FUZZ_MAX_OBJECTS];
	unsigned int nr_objects;
	struct model_block blocks[FUZZ_MAX_BLOCKS];
	unsigned int nr_blocks;
	struct model_sheaf sheaves[FUZZ_MAX_SHEAVES];
	uint8_t next_seed;
	unsigned int ops;
	const char *op;                 /* the operation running, for reports */
	/* The cache kmem_cache_destroy() is working on, or NULL: an NMI
	 * frees no object of it (no caller may free into a cache while it
	 * destroys it; the free could land before the leak check). */
	struct kmem_cache *destroying;
#ifdef FUZZ_PLANTED_BUG
	int planted_freed_cache;        /* cache of the last free, or -1 */
	bool planted_done;
#endif
} m;

static const char *const cache_names[FUZZ_MAX_CACHES] = {
	"fuzz-0", "fuzz-1", "fuzz-2", "fuzz-3", "fuzz-4", "fuzz-5",
};

static uint8_t *arena;
static struct pglist_data fuzz_pgdat[MAX_NUMNODES];
static struct kunit fuzz_test = { .name = "fuzz_mm" };
static unsigned long free_pages_at_start;

static void fuzz_print_where(void)
{
	fprintf(stderr, "fuzz_mm: FAILED at operation %u (%s): ", m.ops,
		m.op ? m.op : "setup");
}

static void fuzz_after_failure(void)
{
	fprintf(stderr, "fuzz_mm: FUZZ_VERBOSE=1 replays it with the allocator's log\n");
}

/*
 * The model's own loops over object and page bytes are most of the time
 * an input takes, and their branches say nothing about the allocator:
 * libFuzzer's coverage instrumentation is turned off for them.
 */
#define MODEL_LOOP __attribute__((no_sanitize("coverage")))

static inline uint8_t pattern_byte(uint8_t seed, size_t i)
{
	return (uint8_t)(seed + i * 31 + (i >> 8));
}

MODEL_LOOP static bool in_arena(const void *p, size_t size)
{
	const uint8_t *b = p;

	return b >= arena && size <= FUZZ_ARENA_SIZE &&
	       b + size <= arena + FUZZ_ARENA_SIZE;
}

/* [p, p + size) against every live object and block. */
MODEL_LOOP static void check_no_overlap(const uint8_t *p, size_t size, const char *what)
{
	unsigned int i;

	if (!size)
		size = 1;
	for (i = 0; i < m.nr_objects; i++) {
		const struct model_object *o = &m.objects[i];
		size_t osz = o->size ? o->size : 1;

		FUZZ_ASSERT(p + size <= o->p || o->p + osz <= p,
			    "%s %p+%zu overlaps live object %p+%zu",
			    what, (void *)p, size, (void *)o->p, osz);
	}
	for (i = 0; i < m.nr_blocks; i++) {
		const uint8_t *b = page_address(m.blocks[i].page);
		size_t bsz = PAGE_SIZE << m.blocks[i].order;

		FUZZ_ASSERT(p + size <= b || b + bsz <= p,
			    "%s %p+%zu overlaps live page block %p order %u",
			    what, (void *)p, size, (void *)b, m.blocks[i].order);
	}
}

MODEL_LOOP static void fill_object(struct model_object *o, size_t from)
{
	size_t i;

	for (i = from; i < o->size; i++)
		if (!(o->ctor && i == 0))
			o->p[i] = pattern_byte(o->seed, i);
}

MODEL_LOOP static void check_object_pattern(const struct model_object *o, size_t upto,
				 const char *when)
{
	size_t i;

	for (i = 0; i < upto && i < o->size; i++) {
		uint8_t want = o->ctor && i == 0 ? FUZZ_CTOR_MARK :
			       pattern_byte(o->seed, i);

		FUZZ_ASSERT(o->p[i] == want,
			    "object %p (%zu bytes) byte %zu is %#x, not %#x %s",
			    (void *)o->p, o->size, i, o->p[i], want, when);
	}
}

MODEL_LOOP static void check_zero(const uint8_t *p, size_t size, const char *what)
{
	size_t i = 0;
	uint64_t any = 0;

	/* Word by word, then byte by byte only if something is not zero, to
	 * say where.  (memcpy: p need not be aligned, a krealloc tail.) */
	for (; i + sizeof(any) <= size; i += sizeof(any)) {
		uint64_t w;

		memcpy(&w, p + i, sizeof(w));
		any |= w;
	}
	for (; i < size; i++)
		any |= p[i];
	if (!any)
		return;
	for (i = 0; i < size; i++)
		FUZZ_ASSERT(!p[i], "%s %p byte %zu is %#x, not zero", what,
			    (void *)p, i, p[i]);
}

/* The alignment kmalloc promises for a class (mm/kmalloc.c). */
static size_t kmalloc_align(size_t size)
{
	size_t class = size <= 8 ? 8 : size <= 16 ? 16 : size <= 32 ? 32 :
		       size <= 64 ? 64 : size <= 96 ? 96 : size <= 128 ? 128 :
		       size <= 192 ? 192 : 0;
	size_t a;

	if (!class)
		for (class = 256; class < size; class <<= 1)
			;
	a = class & -class;
	return a < PAGE_SIZE ? a : PAGE_SIZE;
}

/*
 * Record a new object, after checking where it is, its alignment, that it
 * overlaps nothing live, and its contents (zero, or the constructor's mark).
 */
static struct model_object *add_object(void *ptr, enum obj_kind kind,
				       int cache, size_t size, gfp_t gfp)
{
	struct model_object *o;
	size_t align;

	FUZZ_ASSERT(m.nr_objects < FUZZ_MAX_OBJECTS, "model full");
	FUZZ_ASSERT(in_arena(ptr, size ? size : 1),
		    "object %p+%zu outside the arena", ptr, size);
	if (kind == OBJ_CACHE)
		align = m.caches[cache].align;
	else if (kind == OBJ_LARGE)
		align = PAGE_SIZE;
	else
		align = kmalloc_align(size);
	FUZZ_ASSERT(((uintptr_t)ptr & (align - 1)) == 0,
		    "object %p (%zu bytes) not aligned to %zu", ptr, size, align);
	check_no_overlap(ptr, size, "new object");
	o = &m.objects[m.nr_objects++];
	memset(o, 0, sizeof(*o));
	o->p = ptr;
	o->kind = kind;
	o->cache = cache;
	o->size = size;
	o->seed = m.next_seed++;
	o->ctor = kind == OBJ_CACHE && m.caches[cache].ctor;
	o->zero_tail = gfp & __GFP_ZERO;
	if (gfp & __GFP_ZERO)
		check_zero(o->p, size, "__GFP_ZERO object");
	else if (o->ctor)
		FUZZ_ASSERT(o->p[0] == FUZZ_CTOR_MARK,
			    "constructed object %p lost its mark (%#x)",
			    ptr, o->p[0]);
	if (o->ctor)
		o->p[0] = FUZZ_CTOR_MARK;
	fill_object(o, 0);
	return o;
}

/* Room for an allocation of n objects, and one more for an NMI that an
 * armed point may run in its middle (nmi_action()). */
static bool model_has_room(unsigned int n)
{
	return m.nr_objects + n + 1 <= FUZZ_MAX_OBJECTS;
}

/* Take object i out of the model, checking it first; returns a copy. */
static struct model_object take_object(unsigned int i)
{
	struct model_object o = m.objects[i];

	check_object_pattern(&o, o.size, "when freed");
	m.objects[i] = m.objects[--m.nr_objects];
	return o;
}

/* A live object, chosen by sel; -1 if none.  want_cache >= 0: that cache's
 * only. */
static int pick_object(uint8_t sel, int want_cache)
{
	unsigned int i, n = 0, k;

	if (want_cache < 0)
		return m.nr_objects ? (int)(sel % m.nr_objects) : -1;
	for (i = 0; i < m.nr_objects; i++)
		if (m.objects[i].kind == OBJ_CACHE &&
		    m.objects[i].cache == want_cache)
			n++;
	if (!n)
		return -1;
	k = sel % n;
	for (i = 0; i < m.nr_objects; i++)
		if (m.objects[i].kind == OBJ_CACHE &&
		    m.objects[i].cache == want_cache && !k--)
			return (int)i;
	return -1;
}

MODEL_LOOP static void fill_block(const struct model_block *b)
{
	uint8_t *p = page_address(b->page);
	unsigned long pg;
	size_t i;

	for (pg = 0; pg < (1ul << b->order); pg++)
		for (i = 0; i < FUZZ_PAGE_STRIPE; i++)
			p[pg * PAGE_SIZE + i] = pattern_byte(b->seed, pg + i);
}

MODEL_LOOP static void check_block(const struct model_block *b)
{
	const uint8_t *p = page_address(b->page);
	unsigned long pg;
	size_t i;

	for (pg = 0; pg < (1ul << b->order); pg++)
		for (i = 0; i < FUZZ_PAGE_STRIPE; i++)
			FUZZ_ASSERT(p[pg * PAGE_SIZE + i] ==
				    pattern_byte(b->seed, pg + i),
				    "page block %p order %u: page %lu byte %zu changed",
				    (const void *)p, b->order, pg, i);
}

static void add_block(struct page *page, unsigned int order, bool zeroed)
{
	struct model_block *b;
	uint8_t *p;

	FUZZ_ASSERT(m.nr_blocks < FUZZ_MAX_BLOCKS, "block model full");
	FUZZ_ASSERT(pfn_valid(page_to_pfn(page)), "page %p outside the memmap",
		    (void *)page);
	FUZZ_ASSERT((page_to_pfn(page) & ((1ul << order) - 1)) == 0,
		    "block pfn %#lx not aligned to its order %u",
		    page_to_pfn(page), order);
	p = page_address(page);
	FUZZ_ASSERT(in_arena(p, PAGE_SIZE << order), "block %p outside the arena",
		    (void *)p);
	check_no_overlap(p, PAGE_SIZE << order, "new page block");
	if (zeroed)
		check_zero(p, PAGE_SIZE << order, "zeroed page block");
	b = &m.blocks[m.nr_blocks++];
	b->page = page;
	b->order = order;
	b->seed = m.next_seed++;
	fill_block(b);
}

static struct model_block take_block(unsigned int i)
{
	struct model_block b = m.blocks[i];

	check_block(&b);
	m.blocks[i] = m.blocks[--m.nr_blocks];
	return b;
}

/* ---- reports: every one counts in fuzz_test (kernel/kunit.c) ---- */

static void check_no_report(void)
{
	FUZZ_ASSERT(!fuzz_test.unexpected_reports,
		    "%lu report(s) (WARNING:/BUG lines; %lu warnings, %lu slab "
		    "reports, %lu bad page frees)", fuzz_test.unexpected_reports,
		    warn_count, slab_reports, nr_bad_page_frees);
}

static void check_invariants(void)
{
	int v = mm_check_all();

	FUZZ_ASSERT(v == 0, "mm_check_all() found %d violation(s)", v);
}

/* ---- contexts ---- */

enum fuzz_context {
	CTX_TASK,
	CTX_IRQ,        /* IRQs off, in_irq(): GFP_ATOMIC callers */
	CTX_NMI,        /* in_nmi(): only the any-context API */
	NR_CTX
};

static unsigned long enter_context(enum fuzz_context ctx)
{
	unsigned long flags = 0;

	if (ctx == CTX_IRQ) {
		flags = local_irq_save();
		host_irq_nesting++;
	} else if (ctx == CTX_NMI) {
		host_nmi_nesting++;
	}
	return flags;
}

static void leave_context(enum fuzz_context ctx, unsigned long flags)
{
	if (ctx == CTX_IRQ) {
		host_irq_nesting--;
		local_irq_restore(flags);
	} else if (ctx == CTX_NMI) {
		host_nmi_nesting--;
	}
}

/* ---- the operations ---- */

static const unsigned int cache_sizes[] = {
	1, 3, 7, 8, 12, 16, 24, 40, 64, 72, 100, 128, 200, 256, 500, 1000,
	2048, 3000, 4096, 5000, 8192, 16384, 32768, 40000,
};
static const unsigned int cache_aligns[] = { 0, 8, 16, 32, 64, 256, 4096 };
static const unsigned int sheaf_caps[] = {
	SHEAF_CAPACITY_DEFAULT, 0, 1, 2, 4, 31,
};

static void fuzz_ctor(void *object)
{
	*(uint8_t *)object = FUZZ_CTOR_MARK;
}

static gfp_t pick_gfp(uint8_t sel, enum fuzz_context ctx)
{
	gfp_t gfp = (sel & 1) ? __GFP_ZERO : 0;

	if (sel & 2)
		gfp |= __GFP_NOWARN;
	if (ctx == CTX_IRQ)
		gfp |= GFP_ATOMIC;
	return gfp;
}

/* A kmalloc size: every class, its edges and tails, 0, large blocks. */
static size_t pick_kmalloc_size(struct fuzz_input *in)
{
	uint8_t kind = get_u8(in);
	uint16_t v = get_u16(in);

	switch (kind % 4) {
	case 0:  return v % 200;                        /* small, incl. 0 */
	case 1:  return v % (KMALLOC_MAX_CACHE_SIZE + 1);
	case 2:  return (1u << (v % 14)) + (v >> 14) - 2;   /* class edges */
	default: return v % FUZZ_LARGE_MAX;               /* large too */
	}
}

/* kmem_cache_args.mode: auto (the capacity decides) twice as often, so
 * the sheaf capacities keep their share. */
static const enum slab_mode cache_modes[] = {
	SLAB_MODE_AUTO, SLAB_MODE_AUTO, SLAB_MODE_CPU_SLAB, SLAB_MODE_NONE,
};

static void op_cache_create(struct fuzz_input *in)
{
	uint8_t slot = get_u8(in) % FUZZ_MAX_CACHES, how = get_u8(in),
		flagbits = get_u8(in);
	struct kmem_cache_args args = { 0 };
	struct model_cache *c = &m.caches[slot];
	slab_flags_t flags = 0;
	unsigned int size = cache_sizes[get_u8(in) % ARRAY_SIZE(cache_sizes)];

	args.mode = cache_modes[get_u8(in) % ARRAY_SIZE(cache_modes)];

	if (c->s)
		return;
	args.align = cache_aligns[(how >> 1) % ARRAY_SIZE(cache_aligns)];
	args.sheaf_capacity = sheaf_caps[(how >> 4) % ARRAY_SIZE(sheaf_caps)];
	args.ctor = (flagbits & 0x20) ? fuzz_ctor : NULL;
	if (flagbits & 0x01) flags |= SLAB_CONSISTENCY_CHECKS;
	if (flagbits & 0x02) flags |= SLAB_RED_ZONE;
	if (flagbits & 0x04) flags |= SLAB_POISON;
	if (flagbits & 0x08) flags |= SLAB_STORE_USER;
	if (flagbits & 0x10) flags |= SLAB_HWCACHE_ALIGN;
	/* Half the explicit capacities below the default stay as small as
	 * asked (as the tests make them), half are raised to the default. */
	if (how & 0x80) flags |= SLAB_TEST_SHEAF_CAPACITY;
	/* Debug flags on a fraction only: most caches keep their sheaves. */
	if (!(flagbits & 0xc0))
		flags &= ~SLAB_DEBUG_FLAGS;
	if (how & 1)
		c->s = kmem_cache_create(cache_names[slot], size, args.align,
					 flags, args.ctor);
	else
		c->s = kmem_cache_create_args(cache_names[slot], size, &args,
					      flags);
	if (!c->s) {
		/* A slab is at most 32 KiB: a big object with its debug
		 * metadata or alignment may not fit; 16 KiB always does,
		 * unless memory ran out (struct kmem_cache is itself a slab
		 * object): then a block of the largest slab order must be
		 * unavailable now too. */
		struct page *probe;

		if (size > FUZZ_CACHE_ALWAYS_FITS || args.align > PAGE_SIZE)
			return;
		probe = alloc_pages(__GFP_NOWARN, FUZZ_SLAB_MAX_ORDER);
		if (probe)
			__free_pages(probe, FUZZ_SLAB_MAX_ORDER);
		FUZZ_ASSERT(!probe, "kmem_cache_create(%u bytes, align %u) failed "
			    "with memory free", size, args.align);
		return;
	}
	c->size = size;
	c->align = args.align > 8 ? args.align : 8;
	if ((flags & SLAB_HWCACHE_ALIGN) && size > SLAB_CACHE_LINE / 2 &&
	    c->align < SLAB_CACHE_LINE)
		c->align = SLAB_CACHE_LINE;
	c->ctor = args.ctor != NULL;
	FUZZ_ASSERT(kmem_cache_size(c->s) == size, "kmem_cache_size() %u, not %u",
		    kmem_cache_size(c->s), size);
}

static int pick_cache(uint8_t sel)
{
	unsigned int i, n = 0;

	for (i = 0; i < FUZZ_MAX_CACHES; i++)
		if (m.caches[i].s)
			n++;
	if (!n)
		return -1;
	sel %= n;
	for (i = 0; i < FUZZ_MAX_CACHES; i++)
		if (m.caches[i].s && !sel--)
			return (int)i;
	return -1;
}

static void return_sheaf_slot(unsigned int i)
{
	struct model_sheaf *sh = &m.sheaves[i];

	kmem_cache_return_sheaf(m.caches[sh->cache].s, GFP_KERNEL, sh->sheaf);
	sh->sheaf = NULL;
}

/*
 * Destroying a cache that still has objects: the report is declared first
 * (it is the one report a correct allocator prints here), the call must
 * refuse (-1), and the cache must go on working with its objects intact.
 */
static void destroy_with_leaks(int c)
{
	struct kunit_expected_report *r = &fuzz_test.expected_reports[0];
	int ret;

	kunit_expect_report(&fuzz_test, "objects still allocated: cache kept");
	m.destroying = m.caches[c].s;
	ret = kmem_cache_destroy(m.caches[c].s);
	m.destroying = NULL;
	FUZZ_ASSERT(ret == -1, "kmem_cache_destroy(%s) with live objects: %d",
		    cache_names[c], ret);
	FUZZ_ASSERT(__atomic_load_n(&r->seen, __ATOMIC_RELAXED) == 1,
		    "kmem_cache_destroy(%s) with live objects: %lu reports, not 1",
		    cache_names[c], r->seen);
	kunit_expect_report_done(&fuzz_test);
}

static void op_cache_destroy(struct fuzz_input *in)
{
	uint8_t sel = get_u8(in);
	int c = pick_cache(sel);
	unsigned int i;
	int ret;

	if (c < 0)
		return;
	if (pick_object(0, c) >= 0) {
		if (sel & 0x80)
			destroy_with_leaks(c);
		return;         /* a cache with live objects stays */
	}
	for (i = 0; i < FUZZ_MAX_SHEAVES; i++)
		if (m.sheaves[i].sheaf && m.sheaves[i].cache == c)
			return_sheaf_slot(i);
	ret = kmem_cache_destroy(m.caches[c].s);
	FUZZ_ASSERT(ret == 0, "kmem_cache_destroy(%s) of an empty cache: %d",
		    cache_names[c], ret);
	memset(&m.caches[c], 0, sizeof(m.caches[c]));
}

#ifdef FUZZ_PLANTED_BUG
/* The planted bug: the first cache allocation after a free of that cache
 * hands out a live object of it instead (see the head comment). */
static void *planted_alloc(int c, void *real)
{
	int i;

	if (m.planted_done || m.planted_freed_cache != c || !real)
		return real;
	i = pick_object(0, c);
	if (i < 0)
		return real;
	m.planted_done = true;
	kmem_cache_free(m.caches[c].s, real);
	return m.objects[i].p;
}
#define PLANTED_ALLOC(c, p) planted_alloc(c, p)
#define PLANTED_FREED(c) (m.planted_freed_cache = (c))
#else
#define PLANTED_ALLOC(c, p) (p)
#define PLANTED_FREED(c) ((void)(c))
#endif

static void op_cache_alloc(struct fuzz_input *in, enum fuzz_context ctx)
{
	int c = pick_cache(get_u8(in));
	gfp_t gfp = pick_gfp(get_u8(in), ctx);
	unsigned long flags;
	void *p;

	if (c < 0 || !model_has_room(1))
		return;
	flags = enter_context(ctx);
	p = kmem_cache_alloc(m.caches[c].s, gfp);
	leave_context(ctx, flags);
	p = PLANTED_ALLOC(c, p);
	if (p)
		add_object(p, OBJ_CACHE, c, m.caches[c].size, gfp);
}

/* Restore what a constructed object must hold when it is given back. */
static void prepare_free(const struct model_object *o)
{
	if (o->ctor)
		o->p[0] = FUZZ_CTOR_MARK;
}

enum free_method {
	FREE_KFREE,
	FREE_KFREE_NOLOCK,
	FREE_CACHE,             /* kmem_cache_free() (cache objects) */
	NR_FREE_METHODS
};

static void free_object(const struct model_object *o, enum free_method how,
			enum fuzz_context ctx)
{
	unsigned long flags;

	prepare_free(o);
	flags = enter_context(ctx);
	if (how == FREE_CACHE && o->kind == OBJ_CACHE)
		kmem_cache_free(m.caches[o->cache].s, o->p);
	else if (how == FREE_KFREE_NOLOCK || ctx == CTX_NMI)
		kfree_nolock(o->p);
	else
		kfree(o->p);
	leave_context(ctx, flags);
	if (o->kind == OBJ_CACHE)
		PLANTED_FREED(o->cache);
}

static void op_free(struct fuzz_input *in, enum fuzz_context ctx)
{
	int i = pick_object(get_u8(in), -1);
	uint8_t how = get_u8(in);
	struct model_object o;

	if (i < 0)
		return;
	o = take_object((unsigned int)i);
	free_object(&o, (enum free_method)(how % NR_FREE_METHODS), ctx);
}

static void op_kmalloc(struct fuzz_input *in, enum fuzz_context ctx)
{
	uint8_t which = get_u8(in);
	gfp_t gfp = pick_gfp(get_u8(in), ctx);
	size_t size = pick_kmalloc_size(in);
	unsigned long flags;
	void *p;

	if (!model_has_room(1))
		return;
	flags = enter_context(ctx);
	switch (which % 3) {
	case 0:
		p = kmalloc(size, gfp);
		break;
	case 1:
		p = kzalloc(size, gfp);
		gfp |= __GFP_ZERO;
		break;
	default:
		p = kcalloc(size ? (which >> 2) % 4 + 1 : 0, size, gfp);
		size *= size ? (which >> 2) % 4 + 1 : 0;
		gfp |= __GFP_ZERO;
		break;
	}
	leave_context(ctx, flags);
	if (!size) {
		FUZZ_ASSERT(p == ZERO_SIZE_PTR, "kmalloc(0) gave %p", p);
		return;
	}
	if (p)
		add_object(p, size > KMALLOC_MAX_CACHE_SIZE ? OBJ_LARGE :
			   OBJ_KMALLOC, -1, size, gfp);
}

static void op_kmalloc_nolock(struct fuzz_input *in)
{
	uint8_t sel = get_u8(in);
	enum fuzz_context ctx = (sel & 1) ? CTX_NMI : (sel & 2) ? CTX_IRQ :
				CTX_TASK;
	gfp_t gfp = (sel & 4) ? __GFP_ZERO : 0;
	int node = (sel & 0x18) == 0x18 ? 1 : (sel & 8) ? 0 : NUMA_NO_NODE;
	size_t size = pick_kmalloc_size(in);
	unsigned long flags;
	void *p;

	if (!model_has_room(1))
		return;
	flags = enter_context(ctx);
	p = kmalloc_nolock(size, gfp, node);
	leave_context(ctx, flags);
	if (!size) {
		FUZZ_ASSERT(p == ZERO_SIZE_PTR, "kmalloc_nolock(0) gave %p", p);
		return;
	}
	if (size > KMALLOC_MAX_CACHE_SIZE || node == 1) {
		FUZZ_ASSERT(!p, "kmalloc_nolock(%zu, node %d) gave %p", size,
			    node, p);
		return;
	}
	if (p)
		add_object(p, OBJ_KMALLOC, -1, size, gfp);
}

static void op_krealloc(struct fuzz_input *in, enum fuzz_context ctx)
{
	int i = pick_object(get_u8(in), -1);
	gfp_t gfp = pick_gfp(get_u8(in), ctx);
	size_t new_size = pick_kmalloc_size(in), kept;
	struct model_object o, *n;
	unsigned long flags;
	void *p;

	if (i < 0 || m.objects[i].kind == OBJ_CACHE || !model_has_room(0))
		return;
	o = take_object((unsigned int)i);
	flags = enter_context(ctx);
	p = krealloc(o.p, new_size, gfp);
	leave_context(ctx, flags);
	if (!new_size) {
		FUZZ_ASSERT(p == ZERO_SIZE_PTR, "krealloc(p, 0) gave %p", p);
		return;
	}
	if (!p) {
		/* Refused: the old object stays as it was. */
		m.objects[m.nr_objects++] = o;
		check_object_pattern(&o, o.size, "after a failed krealloc");
		return;
	}
	/* The new object: the kept bytes carry the old pattern. */
	kept = o.size < new_size ? o.size : new_size;
	check_no_overlap(p, new_size, "krealloc result");
	FUZZ_ASSERT(in_arena(p, new_size), "krealloc %p outside the arena", p);
	o.p = p;
	check_object_pattern(&o, kept, "after krealloc");
	if (o.zero_tail && (gfp & __GFP_ZERO) && new_size > kept)
		check_zero(o.p + kept, new_size - kept, "krealloc(__GFP_ZERO) tail");
	FUZZ_ASSERT(m.nr_objects < FUZZ_MAX_OBJECTS, "model full");
	n = &m.objects[m.nr_objects++];
	*n = o;
	n->size = new_size;
	n->kind = new_size > KMALLOC_MAX_CACHE_SIZE ? OBJ_LARGE : OBJ_KMALLOC;
	n->zero_tail = o.zero_tail && (gfp & __GFP_ZERO);
	n->seed = m.next_seed++;
	fill_object(n, 0);
}

static void op_ksize(struct fuzz_input *in)
{
	int i = pick_object(get_u8(in), -1);
	struct model_object *o;
	size_t ks;

	if (i < 0)
		return;
	o = &m.objects[i];
	ks = ksize(o->p);
	FUZZ_ASSERT(ks >= o->size, "ksize(%p) %zu below the %zu asked for",
		    (void *)o->p, ks, o->size);
	if (o->kind == OBJ_CACHE || ks == o->size)
		return;
	/* kmalloc objects: the caller may now use all of it. */
	check_no_overlap(o->p + o->size, ks - o->size, "ksize() bytes");
	o->zero_tail = false;
	{
		size_t old = o->size;

		o->size = ks;
		fill_object(o, old);
	}
}

static void op_bulk_alloc(struct fuzz_input *in, enum fuzz_context ctx)
{
	int c = pick_cache(get_u8(in));
	gfp_t gfp = pick_gfp(get_u8(in), ctx);
	size_t nr = get_u8(in) % FUZZ_MAX_BULK + 1, i;
	void *p[FUZZ_MAX_BULK];
	unsigned long flags;
	int got;

	if (c < 0 || !model_has_room((unsigned int)nr))
		return;
	flags = enter_context(ctx);
	got = kmem_cache_alloc_bulk(m.caches[c].s, gfp, nr, p);
	leave_context(ctx, flags);
	FUZZ_ASSERT(got == 0 || (size_t)got == nr,
		    "kmem_cache_alloc_bulk(%zu) returned %d", nr, got);
	for (i = 0; i < (size_t)got; i++)
		add_object(p[i], OBJ_CACHE, c, m.caches[c].size, gfp);
}

static void op_bulk_free(struct fuzz_input *in, enum fuzz_context ctx)
{
	int c = pick_cache(get_u8(in));
	size_t want = get_u8(in) % FUZZ_MAX_BULK + 1, nr = 0;
	void *p[FUZZ_MAX_BULK];
	unsigned long flags;
	int i;

	if (c < 0 || ctx == CTX_NMI)
		return;
	while (nr < want && (i = pick_object((uint8_t)nr, c)) >= 0) {
		struct model_object o = take_object((unsigned int)i);

		prepare_free(&o);
		p[nr++] = o.p;
	}
	flags = enter_context(ctx);
	kmem_cache_free_bulk(m.caches[c].s, nr, p);
	leave_context(ctx, flags);
	if (nr)
		PLANTED_FREED(c);
}

static void op_prefill(struct fuzz_input *in, enum fuzz_context ctx)
{
	int c = pick_cache(get_u8(in));
	unsigned int slot = get_u8(in) % FUZZ_MAX_SHEAVES;
	unsigned int count = get_u8(in) % FUZZ_MAX_SHEAF_ASK;
	gfp_t gfp = ctx == CTX_IRQ ? GFP_ATOMIC : GFP_KERNEL;
	struct slab_sheaf *sheaf;
	unsigned long flags;

	if (c < 0 || m.sheaves[slot].sheaf)
		return;
	flags = enter_context(ctx);
	sheaf = kmem_cache_prefill_sheaf(m.caches[c].s, gfp, count);
	leave_context(ctx, flags);
	if (!sheaf)
		return;
	FUZZ_ASSERT(kmem_cache_sheaf_size(sheaf) >= count,
		    "prefilled sheaf holds %u, %u asked",
		    kmem_cache_sheaf_size(sheaf), count);
	m.sheaves[slot].sheaf = sheaf;
	m.sheaves[slot].cache = c;
}

static void op_sheaf_alloc(struct fuzz_input *in, enum fuzz_context ctx)
{
	unsigned int slot = get_u8(in) % FUZZ_MAX_SHEAVES;
	gfp_t gfp = pick_gfp(get_u8(in), ctx);
	struct model_sheaf *sh = &m.sheaves[slot];
	unsigned int before;
	unsigned long flags;
	void *p;

	if (!sh->sheaf || !model_has_room(1))
		return;
	before = kmem_cache_sheaf_size(sh->sheaf);
	/* Any context, NMI included. */
	flags = enter_context(ctx);
	p = kmem_cache_alloc_from_sheaf(m.caches[sh->cache].s, gfp, sh->sheaf);
	leave_context(ctx, flags);
	FUZZ_ASSERT(p || !before, "alloc from a sheaf of %u failed", before);
	if (p)
		add_object(p, OBJ_CACHE, sh->cache, m.caches[sh->cache].size,
			   gfp);
}

static void op_sheaf_refill(struct fuzz_input *in)
{
	unsigned int slot = get_u8(in) % FUZZ_MAX_SHEAVES;
	unsigned int size = get_u8(in) % FUZZ_MAX_SHEAF_ASK;
	struct model_sheaf *sh = &m.sheaves[slot];

	if (!sh->sheaf)
		return;
	if (kmem_cache_refill_sheaf(m.caches[sh->cache].s, GFP_KERNEL,
				    &sh->sheaf, size) == 0)
		FUZZ_ASSERT(kmem_cache_sheaf_size(sh->sheaf) >= size,
			    "refilled sheaf holds %u, %u asked",
			    kmem_cache_sheaf_size(sh->sheaf), size);
	FUZZ_ASSERT(sh->sheaf, "refill lost the sheaf");
}

static void op_sheaf_return(struct fuzz_input *in)
{
	unsigned int slot = get_u8(in) % FUZZ_MAX_SHEAVES;

	if (m.sheaves[slot].sheaf)
		return_sheaf_slot(slot);
}

static void op_shrink(struct fuzz_input *in)
{
	uint8_t sel = get_u8(in);
	int c = pick_cache(sel);

	if (sel & 0x80 || c < 0)
		kmem_cache_shrink(kmalloc_slab((size_t)(sel & 0x7f) * 64 + 1));
	else
		kmem_cache_shrink(m.caches[c].s);
}

static unsigned int pick_order(uint8_t sel)
{
	/* Mostly the per-CPU list orders, sometimes up to MAX_ORDER. */
	return (sel & 0x80) ? (sel & 0x7f) % NR_PAGE_ORDERS : (sel & 0x7f) % 4;
}

static void op_alloc_pages(struct fuzz_input *in, enum fuzz_context ctx)
{
	unsigned int order = pick_order(get_u8(in));
	uint8_t sel = get_u8(in);
	gfp_t gfp = pick_gfp(sel, ctx) | ((sel & 4) ? __GFP_DMA32 : 0);
	struct page *page;
	unsigned long flags;

	if (m.nr_blocks + 2 > FUZZ_MAX_BLOCKS)  /* one kept for an NMI */
		return;
	flags = enter_context(ctx);
	if (sel & 8) {
		unsigned long addr = __get_free_pages(gfp, order);

		page = addr ? virt_to_page((void *)addr) : NULL;
	} else {
		page = alloc_pages(gfp, order);
	}
	leave_context(ctx, flags);
	if (page)
		add_block(page, order, gfp & __GFP_ZERO);
}

static void op_try_alloc_pages(struct fuzz_input *in)
{
	uint8_t sel = get_u8(in);
	unsigned int order = pick_order(get_u8(in));
	enum fuzz_context ctx = (sel & 1) ? CTX_NMI : (sel & 2) ? CTX_IRQ :
				CTX_TASK;
	int nid = (sel & 0x0c) == 0x0c ? 1 : 0;
	struct page *page;
	unsigned long flags;

	if (m.nr_blocks + 2 > FUZZ_MAX_BLOCKS)  /* one kept for an NMI */
		return;
	flags = enter_context(ctx);
	page = try_alloc_pages(nid, order);
	leave_context(ctx, flags);
	if (nid) {
		FUZZ_ASSERT(!page, "try_alloc_pages(node 1) gave a page");
		return;
	}
	if (page)
		add_block(page, order, true);
}

static void op_free_pages(struct fuzz_input *in, enum fuzz_context ctx)
{
	uint8_t sel = get_u8(in), how = get_u8(in);
	struct model_block b;
	unsigned long flags;

	if (!m.nr_blocks)
		return;
	b = take_block(sel % m.nr_blocks);
	if (ctx == CTX_NMI)
		how = 2;
	flags = enter_context(ctx);
	switch (how % 3) {
	case 0:  __free_pages(b.page, b.order); break;
	case 1:  free_pages((unsigned long)page_address(b.page), b.order); break;
	default: free_pages_nolock(b.page, b.order); break;
	}
	leave_context(ctx, flags);
}

/* The deferred drains: this CPU's irq_work (as its IPI would run it), or
 * the page lists. */
static void op_drain(struct fuzz_input *in)
{
	switch (get_u8(in) % 3) {
	case 0:  irq_work_run(); break;
	case 1:  drain_local_pages(); break;
	default: drain_all_pages(); break;
	}
}

static void op_switch_cpu(struct fuzz_input *in)
{
	host_cpu_id = get_u8(in) % nr_cpu_ids;
}

/* ---- an NMI at an interleaving point ---- */

static struct {
	enum mm_point point;
	unsigned int countdown;     /* visits left before it fires */
	uint8_t action, arg;
	bool armed;
} nmi_at;

enum nmi_action {
	NMI_KMALLOC,
	NMI_KFREE,              /* kfree_nolock() of a live object */
	NMI_CACHE_FREE,         /* kmem_cache_free() in NMI: the nolock path */
	NMI_TRY_ALLOC_PAGES,
	NMI_FREE_PAGES,
	NR_NMI_ACTIONS
};

static void nmi_action(uint8_t action, uint8_t arg)
{
	struct model_object o;
	struct model_block b;
	struct page *page;
	int i;
	void *p;

	switch (action % NR_NMI_ACTIONS) {
	case NMI_KMALLOC:
		if (m.nr_objects >= FUZZ_MAX_OBJECTS)
			return;         /* model_has_room() kept one for us */
		p = kmalloc_nolock((size_t)arg * 8 + 1, (arg & 1) ? __GFP_ZERO : 0,
				   NUMA_NO_NODE);
		if (p)
			add_object(p, OBJ_KMALLOC, -1, (size_t)arg * 8 + 1,
				   (arg & 1) ? __GFP_ZERO : 0);
		return;
	case NMI_KFREE:
	case NMI_CACHE_FREE:
		i = pick_object(arg, -1);
		if (i < 0 || (m.objects[i].kind == OBJ_CACHE &&
			      m.caches[m.objects[i].cache].s == m.destroying))
			return;
		o = take_object((unsigned int)i);
		prepare_free(&o);
		if (action % NR_NMI_ACTIONS == NMI_CACHE_FREE &&
		    o.kind == OBJ_CACHE)
			kmem_cache_free(m.caches[o.cache].s, o.p);
		else
			kfree_nolock(o.p);
		return;
	case NMI_TRY_ALLOC_PAGES:
		if (m.nr_blocks >= FUZZ_MAX_BLOCKS)
			return;
		page = try_alloc_pages(0, pick_order(arg));
		if (page)
			add_block(page, pick_order(arg), true);
		return;
	default:
		if (!m.nr_blocks)
			return;
		b = take_block(arg % m.nr_blocks);
		free_pages_nolock(b.page, b.order);
		return;
	}
}

static void nmi_hook(enum mm_point point, void *arg)
{
	(void)arg;
	if (!nmi_at.armed || point != nmi_at.point || in_nmi())
		return;
	if (nmi_at.countdown--)
		return;
	nmi_at.armed = false;   /* once; points the NMI reaches are ignored */
	host_nmi_nesting++;
	nmi_action(nmi_at.action, nmi_at.arg);
	host_nmi_nesting--;
}

static void op_arm_nmi(struct fuzz_input *in)
{
	nmi_at.point = (enum mm_point)(get_u8(in) % NR_MM_POINTS);
	nmi_at.countdown = get_u8(in) % 4;
	nmi_at.action = get_u8(in);
	nmi_at.arg = get_u8(in);
	nmi_at.armed = true;
}

/* ---- the program ---- */

enum fuzz_op {
	OP_CACHE_CREATE, OP_CACHE_DESTROY, OP_CACHE_ALLOC, OP_FREE,
	OP_KMALLOC, OP_KMALLOC_NOLOCK, OP_KREALLOC, OP_KSIZE, OP_BULK_ALLOC,
	OP_BULK_FREE, OP_PREFILL, OP_SHEAF_ALLOC, OP_SHEAF_REFILL,
	OP_SHEAF_RETURN, OP_SHRINK, OP_ALLOC_PAGES, OP_TRY_ALLOC_PAGES,
	OP_FREE_PAGES, OP_DRAIN, OP_SWITCH_CPU, OP_ARM_NMI, OP_CHECK,
	NR_FUZZ_OPS
};

static const char *const op_names[NR_FUZZ_OPS] = {
	"cache_create", "cache_destroy", "cache_alloc", "free", "kmalloc",
	"kmalloc_nolock", "krealloc", "ksize", "bulk_alloc", "bulk_free",
	"prefill_sheaf", "alloc_from_sheaf", "refill_sheaf", "return_sheaf",
	"shrink", "alloc_pages", "try_alloc_pages", "free_pages", "drain",
	"switch_cpu", "arm_nmi", "check",
};

static void run_op(struct fuzz_input *in)
{
	uint8_t code = get_u8(in);
	/* The top two bits: the context of the operations that take one
	 * (3 is task too, so task stays the common case). */
	enum fuzz_context ctx = (enum fuzz_context)((code >> 6) % NR_CTX);
	enum fuzz_op op = (enum fuzz_op)((code & 0x3f) % NR_FUZZ_OPS);

	m.op = op_names[op];
	if (ctx == CTX_NMI && op != OP_FREE && op != OP_SHEAF_ALLOC &&
	    op != OP_FREE_PAGES)
		ctx = CTX_TASK;         /* the rest may not run in an NMI */
	switch (op) {
	case OP_CACHE_CREATE:    op_cache_create(in); break;
	case OP_CACHE_DESTROY:   op_cache_destroy(in); break;
	case OP_CACHE_ALLOC:     op_cache_alloc(in, ctx); break;
	case OP_FREE:            op_free(in, ctx); break;
	case OP_KMALLOC:         op_kmalloc(in, ctx); break;
	case OP_KMALLOC_NOLOCK:  op_kmalloc_nolock(in); break;
	case OP_KREALLOC:        op_krealloc(in, ctx); break;
	case OP_KSIZE:           op_ksize(in); break;
	case OP_BULK_ALLOC:      op_bulk_alloc(in, ctx); break;
	case OP_BULK_FREE:       op_bulk_free(in, ctx); break;
	case OP_PREFILL:         op_prefill(in, ctx); break;
	case OP_SHEAF_ALLOC:     op_sheaf_alloc(in, ctx); break;
	case OP_SHEAF_REFILL:    op_sheaf_refill(in); break;
	case OP_SHEAF_RETURN:    op_sheaf_return(in); break;
	case OP_SHRINK:          op_shrink(in); break;
	case OP_ALLOC_PAGES:     op_alloc_pages(in, ctx); break;
	case OP_TRY_ALLOC_PAGES: op_try_alloc_pages(in); break;
	case OP_FREE_PAGES:      op_free_pages(in, ctx); break;
	case OP_DRAIN:           op_drain(in); break;
	case OP_SWITCH_CPU:      op_switch_cpu(in); break;
	case OP_ARM_NMI:         op_arm_nmi(in); break;
	default:                 check_invariants(); break;
	}
	check_no_report();
}

/* The machine of one input: CPUs, slub_debug=, page poisoning. */
static const char *const slub_debug_options[] = {
	NULL, NULL, NULL, NULL, "F", "Z", "P", "U", "ZP", "FZPU",
	"Z,fuzz-1", "FZPU,kmalloc-64,fuzz-2",
};

static void boot(struct fuzz_input *in)
{
	const struct fw_mmap_entry map[] = {
		{ FUZZ_ARENA_PHYS, FUZZ_ARENA_SIZE, E820_TYPE_RAM },
	};
	/* cpus: bits 0-1 the CPUs, bits 2-3 the kmalloc classes' mode */
	uint8_t cpus = get_u8(in), debug = get_u8(in), poison = get_u8(in);
	static const enum slab_mode kmalloc_modes[] = {
		SLAB_MODE_AUTO, SLAB_MODE_AUTO, SLAB_MODE_CPU_SLAB,
		SLAB_MODE_NONE,
	};

	memset(&m, 0, sizeof(m));
	memset(&nmi_at, 0, sizeof(nmi_at));
#ifdef FUZZ_PLANTED_BUG
	m.planted_freed_cache = -1;
#endif
	memset(&fuzz_test, 0, sizeof(fuzz_test));
	fuzz_test.name = "fuzz_mm";
	warn_count = slab_reports = nr_bad_page_frees = 0;
	clear_warn_once();
	host_cpu_id = 0;
	host_nmi_nesting = host_irq_nesting = 0;
	nr_cpu_ids = cpus % FUZZ_MAX_CPUS + 1;
	nr_cpu_possible = nr_cpu_ids;   /* caches sized for exactly these */
	page_poisoning = poison & 1;
	host_direct_map_base = (unsigned long)arena - FUZZ_ARENA_PHYS;
	memblock_reset();
	memblock_add_firmware_map(map, ARRAY_SIZE(map), NULL);
	if (!mm_init_nodes(fuzz_pgdat))
		fuzz_fail("mm_init_nodes() failed");
	/* slab_mode=, and (as $SLAB_MODE in the host tests) the mode of
	 * every cache made by kmem_cache_create() */
	slab_kmalloc_mode = kmalloc_modes[(cpus >> 2) % ARRAY_SIZE(kmalloc_modes)];
	slab_host_default_mode = slab_kmalloc_mode;
	kmem_cache_init(slub_debug_options[debug % ARRAY_SIZE(slub_debug_options)]);
	__atomic_store_n(&kunit_current_test, &fuzz_test, __ATOMIC_RELEASE);
	kmem_cache_shrink_all();
	drain_all_pages();
	free_pages_at_start = nr_free_pages();
	mm_point_hook = nmi_hook;
}

/* Give everything back; the allocator must be as it was after boot. */
static void teardown(void)
{
	unsigned int i, cpu;
	unsigned long now;

	m.op = "teardown";
	mm_point_hook = NULL;
	host_cpu_id = 0;
	for (i = 0; i < FUZZ_MAX_SHEAVES; i++)
		if (m.sheaves[i].sheaf)
			return_sheaf_slot(i);
	while (m.nr_objects) {
		struct model_object o = take_object(m.nr_objects - 1);

		free_object(&o, FREE_KFREE, CTX_TASK);
	}
	while (m.nr_blocks) {
		struct model_block b = take_block(m.nr_blocks - 1);

		__free_pages(b.page, b.order);
	}
	for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
		host_cpu_id = cpu;
		irq_work_run();
	}
	host_cpu_id = 0;
	check_invariants();
	for (i = 0; i < FUZZ_MAX_CACHES; i++) {
		int ret;

		if (!m.caches[i].s)
			continue;
		ret = kmem_cache_destroy(m.caches[i].s);
		FUZZ_ASSERT(ret == 0, "kmem_cache_destroy(%s) at the end: %d",
			    cache_names[i], ret);
	}
	kmem_cache_shrink_all();
	drain_all_pages();
	check_no_report();
	check_invariants();
	now = nr_free_pages();
	FUZZ_ASSERT(now == free_pages_at_start,
		    "%lu pages free at the end, %lu after boot: %ld lost",
		    now, free_pages_at_start, (long)(free_pages_at_start - now));
	__atomic_store_n(&kunit_current_test, NULL, __ATOMIC_RELEASE);
	slab_host_reset();
	mm_exit_nodes();
	memblock_reset();
	page_poisoning = false;
	nr_cpu_ids = 1;
	nr_cpu_possible = NR_CPUS;
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	arena = aligned_alloc(FUZZ_ARENA_ALIGN, FUZZ_ARENA_SIZE);
	if (!arena)
		abort();
	memset(arena, 0xa5, FUZZ_ARENA_SIZE);   /* junk: zeroing is tested */
	console_loglevel = getenv("FUZZ_VERBOSE") ? LOGLEVEL_DEBUG :
						    LOGLEVEL_EMERG;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_input in = { .data = data, .size = size };

	boot(&in);
	while (!input_done(&in) && m.ops < FUZZ_MAX_OPS) {
		run_op(&in);
		if (++m.ops % FUZZ_CHECK_EVERY == 0)
			check_invariants();
	}
	teardown();
	return 0;
}
