/*
 * mm_check.h - the allocator's invariants, as code.
 *
 * Every invariant that mm/slab_internal.h, include/mmzone.h and the head
 * comments of mm/page_alloc.c, mm/sheaf.c and mm/slab.c state in prose has
 * a check here (mm/mm_check.c).  Each function returns the number of
 * violations it found (0: all is well) and prints one line per violation
 *
 *   mm_check: cache kmalloc-64: cpu1 spare is the bootstrap sheaf [mm/slab_internal.h]
 *
 * naming the cache or zone, what is wrong, and the file whose comment
 * states the broken rule.  Tests assert the return value is 0 after every
 * step; the interleaving test, the fuzzers and the mutation run use it.
 *
 * When to call: with the allocator quiescent for what is checked: no other
 * CPU inside the cache or zone, and not from inside the allocator on this
 * CPU (a hook point).  The checks only *try* each lock (never spin), so
 * they cannot deadlock in any context; a lock found held is itself counted
 * as a violation ("not quiescent"), and what it guards is not walked.
 * Every list walk is bounded, so a corrupted list is reported, not looped.
 * One check runs at a time (a private lock; a second caller meanwhile is
 * told so and gets 1).
 */
#ifndef MM_CHECK_H
#define MM_CHECK_H

#include <compiler.h>

struct kmem_cache;
struct zone;

/* Per-CPU sheaves, the barn, the slabs and their freelists of one cache;
 * objects in sheaves and on the deferred lists cross-checked against the
 * slabs (in a slab of this cache, not free there, held once). */
int slab_cache_check(struct kmem_cache *s);

/* The buddy free lists, per-CPU page lists and deferred list of one zone,
 * and every struct page of its span. */
int zone_check(struct zone *zone);
/* The same with zone->lock already held by the caller (IRQs off), for a
 * test that corrupts a live zone and must not let anyone see it. */
int zone_check_locked(struct zone *zone);

/* Every zone of every node and every cache on slab_caches. */
int mm_check_all(void);

/* Violations found by all checks so far (for test summaries). */
extern unsigned long mm_check_violations;
/* Set by tests that corrupt on purpose: count violations, print none. */
extern bool mm_check_quiet;
/* Set by a test that must know *which* rule fired (not just that one
 * did): each violation whose message contains this substring is counted
 * in mm_check_matched, quiet or not.  NULL (the default): nothing counted. */
extern const char *mm_check_match;
extern unsigned long mm_check_matched;
/* True (the default): zone checks also walk every struct page of the
 * zone's span (P5 in mm/mm_check.c), which costs a moment per GiB; a test
 * that checks after every step of a big machine may turn it off and do
 * one full check at the end. */
extern bool mm_check_full_span;

#endif /* MM_CHECK_H */
