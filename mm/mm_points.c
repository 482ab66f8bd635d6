/*
 * mm_points.c - the names of the interleaving points (include/mm_points.h)
 * and the test hook, NULL unless a test sets it.
 */
#include <mm_points.h>

mm_point_hook_t mm_point_hook;

const char *const mm_point_names[NR_MM_POINTS] = {
	[MM_POINT_SHEAF_LOCKED] = "sheaf_locked",
	[MM_POINT_SHEAF_SWAP_MID] = "sheaf_swap_mid",
	[MM_POINT_SHEAF_REFILL_UNLOCKED] = "sheaf_refill_unlocked",
	[MM_POINT_SHEAF_REFILL_DONE] = "sheaf_refill_done",
	[MM_POINT_SHEAF_FREE_UNLOCKED] = "sheaf_free_unlocked",
	[MM_POINT_SHEAF_FREE_GOT_EMPTY] = "sheaf_free_got_empty",
	[MM_POINT_SHEAF_FLUSH_BATCH] = "sheaf_flush_batch",
	[MM_POINT_SHEAF_NOLOCK_LOCKED] = "sheaf_nolock_locked",
	[MM_POINT_SHEAF_BULK_LOCKED] = "sheaf_bulk_locked",
	[MM_POINT_SHEAF_DETACHED] = "sheaf_detached",
	[MM_POINT_SHEAF_FLUSH_BUSY] = "sheaf_flush_busy",
	[MM_POINT_PREFILL_UNLOCKED] = "prefill_unlocked",
	[MM_POINT_RETURN_UNLOCKED] = "return_unlocked",
	[MM_POINT_RCU_SHEAF_LOCKED] = "rcu_sheaf_locked",
	[MM_POINT_RCU_SHEAF_UNLOCKED] = "rcu_sheaf_unlocked",
	[MM_POINT_RCU_SHEAF_SUBMITTED] = "rcu_sheaf_submitted",
	[MM_POINT_RCU_SHEAF_RETURNED] = "rcu_sheaf_returned",
	[MM_POINT_BARN_LOCKED] = "barn_locked",
	[MM_POINT_BARN_SHRINK_UNLOCKED] = "barn_shrink_unlocked",
	[MM_POINT_SLAB_LIST_LOCKED] = "slab_list_locked",
	[MM_POINT_SLAB_ALLOC_UNLOCKED] = "slab_alloc_unlocked",
	[MM_POINT_SLAB_NEW_UNLINKED] = "slab_new_unlinked",
	[MM_POINT_SLAB_NEW_NOLOCK] = "slab_new_nolock",
	[MM_POINT_SLAB_DISCARD_UNLOCKED] = "slab_discard_unlocked",
	[MM_POINT_SLAB_FREE_NOLOCK] = "slab_free_nolock",
	[MM_POINT_CPU_SLAB_FAST_HEAD] = "cpu_slab_fast_head",
	[MM_POINT_CPU_SLAB_FAST] = "cpu_slab_fast",
	[MM_POINT_CPU_SLAB_LOCKED] = "cpu_slab_locked",
	[MM_POINT_CPU_SLAB_FROZEN_READ] = "cpu_slab_frozen_read",
	[MM_POINT_CPU_SLAB_UNFREEZE] = "cpu_slab_unfreeze",
	[MM_POINT_CPU_SLAB_DETACHED] = "cpu_slab_detached",
	[MM_POINT_DEFER_COUNTED] = "defer_counted",
	[MM_POINT_DEFER_DRAIN] = "defer_drain",
	[MM_POINT_KFREE_RCU_PARKED] = "kfree_rcu_parked",
	[MM_POINT_KMALLOC_INIT] = "kmalloc_init",
	[MM_POINT_PCP_LOCKED] = "pcp_locked",
	[MM_POINT_ZONE_LOCKED] = "zone_locked",
	[MM_POINT_BUDDY_HEAD_HALF] = "buddy_head_half",
	[MM_POINT_PCP_HEAD_HALF] = "pcp_head_half",
	[MM_POINT_PAGE_FREE_CLAIMED] = "page_free_claimed",
	[MM_POINT_PAGE_DEFER_MARKED] = "page_defer_marked",
	[MM_POINT_PAGE_DEFERRED_TAKEN] = "page_deferred_taken",
};
