/*
 * slab_debug.c - what the slab allocator says when something is wrong, and
 * the checks of debug caches that find it.
 *
 * REPORTS.  slab_bug() names the cache, the object (its slab and index),
 * the caller, and with SLAB_STORE_USER the last allocation and free of
 * the object, then panics; with slab_report_count_only set (the tests
 * set it) it counts the report in slab_reports instead, and the caller
 * refuses the bad operation.  Every path that finds a bad free, a
 * corrupted free pointer or a damaged object calls it: the cheap checks
 * on every free (slab_free_check(), the double-free tests of
 * free_to_slab_locked(), slab.c; defer_free_check(), slab_nolock.c) and
 * the debug checks below.  kmem_cache_destroy() names each object still
 * allocated (report_leaks_locked()).
 *
 * DEBUG CACHES have some of SLAB_DEBUG_FLAGS, from their creator or from
 * `slub_debug=` (slab_common.c):
 *   F  SLAB_CONSISTENCY_CHECKS  every free checked in full: a free object
 *                               is found by walking the slab's freelist
 *   Z  SLAB_RED_ZONE            guard bytes after each object, and in a
 *                               kmalloc cache the bytes past the size
 *                               asked for (the kmalloc red zone)
 *   P  SLAB_POISON              a free object's bytes hold POISON_FREE
 *   U  SLAB_STORE_USER          the last allocation's and free's caller
 * A debug cache has no sheaves, so every object leaves and enters its slab
 * under list_lock, and passes alloc_debug_checks() (still poisoned, red
 * zone intact) or free_debug_checks_locked() (an object's start, not free
 * already, red zones intact) there.  A write after free, past the end or
 * past the size kmalloc() was asked for is reported when the object next
 * moves; a double free is refused.  Where each byte sits: the object
 * layout in slab_internal.h.
 *
 * Locking: no lock of its own.  The checks run under the object's node
 * list_lock (the lock order at the top of mm/slab.c); a report prints
 * there, so the console's lock nests inside list_lock.
 *
 * SHADOW (host only, include/kasan.h): the checks read and fill bytes no
 * caller owns (poisoned for AddressSanitizer), so the host builds this file
 * without ASan instrumentation, as it does slab.c, and writes them through
 * slab_fill().
 */
#include <kernel.h>
#include <kunit.h>
#include <printk.h>
#include <string.h>
#include "slab_internal.h"

bool slab_report_count_only;
unsigned long slab_reports;

/* ---------------------------------------------------------------------- */
/* Reports                                                                 */
/* ---------------------------------------------------------------------- */

static struct slab_track *object_tracks(const struct kmem_cache *s,
					void *object)
{
	unsigned int off = s->inuse;

	if (s->flags & SLAB_RED_ZONE)
		off += REDZONE_SIZE;
	if (s->offset >= s->inuse)
		off += WORD;
	return (struct slab_track *)((char *)object + off);
}

struct slab_track *slab_object_tracks(const struct kmem_cache *s,
				      void *object)
{
	return object_tracks(s, object);
}

static void print_track(const char *what, const struct slab_track *t)
{
	if (!t->valid)
		return;
	pr_err("  last %s by %pS on cpu%u\n", what, (void *)t->addr, t->cpu);
}

/*
 * Report a problem with an object.  Panics unless the tests asked for
 * reports to be counted (slab_report_count_only).
 */
void slab_bug(struct kmem_cache *s, const void *object, unsigned long caller,
	      const char *fmt, ...)
{
	char msg[128];
	struct page *slab = object ? virt_to_slab(object) : NULL;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pr_err("=============================================================\n");
	kunit_print_report(LOGLEVEL_ERR, "BUG %s: %s", s ? s->name : "(no cache)",
			   msg);
	if (slab && s && slab->slab_cache == s)
		pr_err("  object %p (slab %p, object %ld of %u)\n", object,
		       slab_base(slab), object_index(s, slab, object),
		       slab->objects);
	else
		pr_err("  object %p (not in a slab of this cache)\n", object);
	pr_err("  caller %pS\n", (void *)caller);
	if (s && (s->flags & SLAB_STORE_USER) && slab && slab->slab_cache == s &&
	    object_index(s, slab, object) >= 0) {
		struct slab_track *t = object_tracks(s, (void *)object);

		print_track("alloc", &t[0]);
		print_track("free", &t[1]);
	}
	if (!slab_report_count_only)
		panic("slab: %s in cache %s (object %p)", msg,
		      s ? s->name : "?", object);
	__atomic_fetch_add(&slab_reports, 1, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------------- */
/* Debug checks (debug caches only, under list_lock)                       */
/* ---------------------------------------------------------------------- */

static unsigned int red_zone_end(const struct kmem_cache *s)
{
	return s->inuse + REDZONE_SIZE;
}

static void set_track(struct kmem_cache *s, void *object, int which,
		      unsigned long caller)
{
	struct slab_track *t;

	if (!(s->flags & SLAB_STORE_USER))
		return;
	t = &object_tracks(s, object)[which];
	t->addr = caller;
	t->cpu = smp_processor_id();
	t->valid = 1;
}

/*
 * Fill bytes of a slot that no caller owns: a free object's poison, red
 * zones, tracking records.  On the host those bytes are poisoned for
 * AddressSanitizer (include/kasan.h), and its runtime checks memset() even
 * when called from this uninstrumented file, so they are written one by
 * one there (volatile, so the compiler does not turn the loop back into a
 * memset() call).
 */
void slab_fill(void *p, u8 value, size_t n)
{
	if (KASAN_ENABLED) {
		volatile u8 *b = p;

		while (n--)
			*b++ = value;
		return;
	}
	memset(p, value, n);
}

/*
 * Fill the debug areas of an object that becomes free (val is
 * SLUB_RED_INACTIVE: poisoned too) or allocated (SLUB_RED_ACTIVE), as
 * Linux's init_object().
 */
void init_object(struct kmem_cache *s, void *object, u8 val)
{
	u8 *p = object;

	if ((s->flags & SLAB_POISON) && val == SLUB_RED_INACTIVE) {
		slab_fill(p, POISON_FREE, s->object_size - 1);
		p[s->object_size - 1] = POISON_END;
	}
	if (s->flags & SLAB_RED_ZONE)
		slab_fill(p + s->object_size, val,
			  red_zone_end(s) - s->object_size);
}

/* First byte in [from, to) of object that is not `value`, or -1. */
static long first_mismatch(const u8 *p, unsigned int from, unsigned int to,
			   u8 value)
{
	unsigned int i;

	for (i = from; i < to; i++)
		if (p[i] != value)
			return i;
	return -1;
}

bool red_zone_is(const struct kmem_cache *s, const void *object, u8 value)
{
	return first_mismatch(object, s->object_size, red_zone_end(s),
			      value) < 0;
}

/*
 * kmalloc red zone: a debug kmalloc cache keeps, per object, the size the
 * caller asked for, and fills the bytes from there to the class size with
 * SLUB_RED_ACTIVE, so that kmalloc(20) writing byte 25 of a 32-byte object
 * is reported on free like a write past the object's end.
 */
static unsigned long *orig_size_slot(const struct kmem_cache *s, void *object)
{
	return (unsigned long *)((char *)object + s->orig_size_offset);
}

void slab_kmalloc_set_size(struct kmem_cache *s, void *object, size_t size)
{
	if (!s->orig_size_offset || size > s->object_size)
		return;
	*orig_size_slot(s, object) = size;
	slab_fill((char *)object + size, SLUB_RED_ACTIVE, s->object_size - size);
}

size_t slab_kmalloc_orig_size(struct kmem_cache *s, void *object)
{
	if (!s->orig_size_offset)
		return s->object_size;
	return min((size_t)*orig_size_slot(s, object), (size_t)s->object_size);
}

/* The bytes past the size asked for: untouched?  Reported if not. */
static void check_kmalloc_red_zone(struct kmem_cache *s, void *object,
				   unsigned long caller)
{
	unsigned long orig;
	long bad;

	if (!s->orig_size_offset)
		return;
	orig = *orig_size_slot(s, object);
	if (orig >= s->object_size)
		return;
	bad = first_mismatch(object, (unsigned int)orig, s->object_size,
			     SLUB_RED_ACTIVE);
	if (bad >= 0)
		slab_bug(s, object, caller,
			 "kmalloc Redzone overwritten: byte %ld written, but only %lu bytes were asked for",
			 bad, orig);
}

/* An object leaving its slab: it must still look free and untouched. */
void alloc_debug_checks(struct kmem_cache *s, void *object,
			unsigned long caller)
{
	const u8 *p = object;

	if ((s->flags & SLAB_RED_ZONE) &&
	    !red_zone_is(s, object, SLUB_RED_INACTIVE))
		slab_bug(s, object, caller,
			 "Redzone overwritten while the object was free");
	if (s->flags & SLAB_POISON) {
		long bad = first_mismatch(p, 0, s->object_size - 1,
					  POISON_FREE);

		if (bad < 0 && p[s->object_size - 1] != POISON_END)
			bad = s->object_size - 1;
		if (bad >= 0)
			slab_bug(s, object, caller,
				 "Poison overwritten (write after free): byte %ld is %#x",
				 bad, p[bad]);
	}
	init_object(s, object, SLUB_RED_ACTIVE);
	if (s->orig_size_offset)   /* whole object until kmalloc says less */
		*orig_size_slot(s, object) = s->object_size;
	set_track(s, object, 0, caller);
}

static bool on_freelist_locked(struct kmem_cache *s, struct page *slab,
			       void *object)
{
	void *p = slab_freelist(s, slab);
	unsigned int n = 0;

	while (p && n++ <= slab->objects) {
		if (p == object)
			return true;
		if (object_index(s, slab, p) < 0)
			return false;   /* corrupt: reported when popped */
		p = get_freepointer(s, p);
	}
	return false;
}

/*
 * An object entering its slab.  False (after a report) when the free must
 * be refused: not an object, or already free.  A damaged red zone is
 * reported, repaired, and the object freed.
 */
bool free_debug_checks_locked(struct kmem_cache *s, struct page *slab,
			      void *object, unsigned long caller)
{
	if (object_index(s, slab, object) < 0) {
		slab_bug(s, object, caller,
			 "invalid free: not the start of an object");
		return false;
	}
	if (s->flags & SLAB_RED_ZONE) {
		if (red_zone_is(s, object, SLUB_RED_INACTIVE)) {
			slab_bug(s, object, caller, "double free");
			return false;
		}
		if (!red_zone_is(s, object, SLUB_RED_ACTIVE))
			slab_bug(s, object, caller,
				 "Redzone overwritten (write past the end)");
		check_kmalloc_red_zone(s, object, caller);
	} else if (on_freelist_locked(s, slab, object)) {
		slab_bug(s, object, caller, "double free");
		return false;
	}
	init_object(s, object, SLUB_RED_INACTIVE);
	set_track(s, object, 1, caller);
	return true;
}

/* ---------------------------------------------------------------------- */
/* Leak reports (kmem_cache_destroy(), under list_lock)                    */
/* ---------------------------------------------------------------------- */

/* Name every allocated object of one slab; returns how many. */
static unsigned int report_leaks_in_slab_locked(struct kmem_cache *s,
						struct page *slab)
{
	u64 is_free[SLAB_MAX_OBJECTS / 64] = { 0 };
	unsigned int i, leaks = 0, n = 0;
	void *p = slab_freelist(s, slab);

	while (p && n++ < slab->objects && object_index(s, slab, p) >= 0) {
		long idx = object_index(s, slab, p);

		is_free[idx / 64] |= 1ull << (idx % 64);
		p = get_freepointer(s, p);
	}
	for (i = 0; i < slab->objects; i++) {
		char *obj = (char *)slab_base(slab) + (unsigned long)i * s->size;

		if (is_free[i / 64] & (1ull << (i % 64)))
			continue;
		leaks++;
		if (s->flags & SLAB_STORE_USER) {
			pr_err("kmem_cache_destroy %s: object %p still allocated (by %pS)\n",
			       s->name, obj,
			       (void *)object_tracks(s, obj)[0].addr);
		} else {
			pr_err("kmem_cache_destroy %s: object %p still allocated\n",
			       s->name, obj);
		}
	}
	return leaks;
}

unsigned long report_leaks_locked(struct kmem_cache *s,
				  struct kmem_cache_node *n)
{
	unsigned long leaks = 0;
	struct page *slab;

	list_for_each_entry(slab, &n->partial, lru)
		if (slab->inuse)
			leaks += report_leaks_in_slab_locked(s, slab);
	list_for_each_entry(slab, &n->full, lru)
		leaks += report_leaks_in_slab_locked(s, slab);
	return leaks;
}
