/*
 * tsan_options.c - ThreadSanitizer's settings and suppressions, built into
 * the TSan stress program (stress_threads_tsan) so that it runs the same
 * with no environment: from `make test`, `make stress` or by hand.
 *
 * Options: stop at the first report and exit with a status the harness
 * cannot mistake for a test failure or a pass.
 *
 * Suppressions: each entry names a race that is by design and proves it
 * benign; an entry without such a proof does not belong here.
 */
const char *__tsan_default_options(void);
const char *__tsan_default_suppressions(void);

const char *__tsan_default_options(void)
{
	return "halt_on_error=1 exitcode=66";
}

const char *__tsan_default_suppressions(void)
{
	return
	/*
	 * page_is_buddy() (mm/page_alloc.c), under zone->lock, reads the
	 * flags of the neighbouring block's head, which may be an allocated
	 * page whose owner changes its own bits meanwhile without that lock
	 * (prep_new_page() after the allocation, PG_slab/PG_large_kmalloc in
	 * mm/slab.c and mm/kmalloc.c, a free's compare-and-swap).  Benign:
	 * the read decides only on PG_buddy (and then on page->order);
	 * PG_buddy is set and cleared only under zone->lock, which the reader
	 * holds, and an allocated page never has it, so every value the racing
	 * word can have (old or new: an aligned 8-byte load is never torn on
	 * x86-64) gives the same answer, "not a buddy".  page->order is read
	 * only once PG_buddy is seen, and is then written under the same lock.
	 * "UNLOCKED READERS OF page->flags" in mm/page_alloc.c states the rule.
	 */
	"race:page_is_buddy\n"
	/*
	 * slab_pair_read() (mm/cpu_slab.c) reads a slab's (freelist,
	 * counters) without list_lock, to learn whether the slab is frozen,
	 * while a slab that is not frozen changes those words under its
	 * node's list_lock with plain stores (free_to_slab_locked(),
	 * take_from_slab_locked(), mm/slab.c).  Benign: what the read returns
	 * is used only as the expected value of the slab's 16-byte
	 * compare-and-exchange (which fails unless both words are still what
	 * was read) when it says "frozen", and not at all when it says "not
	 * frozen": the free then takes list_lock and reads frozen again under
	 * it (cpu_slab_free_slow()).  A frozen slab's pair changes only by
	 * that compare-and-exchange, which TSan sees (slab_pair_cmpxchg()), so
	 * races between two CPUs on a frozen slab are still reported.
	 */
	"race:slab_pair_read\n";
}
