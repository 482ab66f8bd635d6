/*
 * mm.h - the page allocator's public face: struct page, gfp flags, and
 * the calls every other layer uses to get and give back page frames.
 *
 * struct page: one per physical page frame (the memmap), found with
 * pfn_to_page()/virt_to_page().  Its fields mean different things to the
 * layer that owns the frame at the moment; each layer uses only its arm of
 * the union and says so:
 *   - free in the buddy (PG_buddy set on the block's head page): `lru`
 *     links it into its zone's free_area[order], `order` is the block order;
 *   - on a per-CPU page list (PG_pcp on the head): `lru` links it there,
 *     `order` as above;
 *   - waiting on a zone's lock-free list after a free_pages_nolock() that
 *     could not take a lock (PG_deferred on the head): `llnode` links it,
 *     `order` as above;
 *   - a slab (PG_slab on the head page): the slab arm (mm/slab.c);
 *   - otherwise allocated: the owner may use `lru` and the union as it
 *     likes.
 * The allocator keeps what it needs about an allocated block in `flags`,
 * which owners may only change through the PG_ bits they own (|= and &= ~):
 * besides the PG_ bits, the frame's node and zone (set once at boot) and,
 * on the head of an allocated block, its order plus one (0 on every other
 * page), so a free can check what it is given.
 *
 * The implementation is mm/page_alloc.c (buddy + per-CPU lists) over the
 * memory that mm/memblock.c hands over at boot.
 */
#ifndef MM_H
#define MM_H

#include <compiler.h>
#include <list.h>
#include <llist.h>
#include <memlayout.h>
#include <rcupdate.h>

/* ---- allocation flags ---- */
typedef unsigned int gfp_t;

#define __GFP_DMA32   (1u << 0)  /* memory below 4 GiB only */
#define __GFP_ZERO    (1u << 1)  /* return zeroed memory */
#define __GFP_NOWARN  (1u << 2)  /* no warning when the allocation fails */
#define __GFP_ATOMIC  (1u << 3)  /* caller cannot wait (IRQs off, IRQ) */
#define __GFP_THISNODE (1u << 4) /* the node asked for, or nothing */

#define GFP_KERNEL    0u
#define GFP_ATOMIC    (__GFP_ATOMIC)
#define GFP_NOWAIT    (__GFP_ATOMIC | __GFP_NOWARN)
#define GFP_DMA32     (__GFP_DMA32)

/* ---- orders ---- */
#define MAX_ORDER       10           /* largest block: 2^10 pages = 4 MiB */
#define NR_PAGE_ORDERS  (MAX_ORDER + 1)

/* ---- page flags (struct page.flags) ---- */
#define PG_reserved  (1ul << 0)  /* never given to the buddy (firmware, image) */
#define PG_buddy     (1ul << 1)  /* head of a free block in a free_area */
#define PG_head      (1ul << 2)  /* head of an allocated block of order > 0 */
#define PG_slab      (1ul << 3)  /* head of a slab (mm/slab.c) */
#define PG_pcp       (1ul << 4)  /* free, on a per-CPU page list */
#define PG_large_kmalloc (1ul << 5) /* kmalloc() > largest class, from buddy */
#define PG_nolock_alloc  (1ul << 6) /* allocated by try_alloc_pages() */
#define PG_deferred  (1ul << 7)  /* free, on a zone's deferred llist */
#define PG_poisoned  (1ul << 8)  /* free block head whose whole block holds
				    PAGE_POISON (page_poisoning on) */

/* Fields packed in the high bits of page->flags (owned by page_alloc.c). */
#define PAGE_NID_SHIFT        32
#define PAGE_NID_MASK         0xfful
#define PAGE_ZONE_SHIFT       40
#define PAGE_ZONE_MASK        0xful
#define PAGE_ALLOC_ORDER_SHIFT 48     /* order + 1 of an allocated head */
#define PAGE_ALLOC_ORDER_MASK 0xfful

struct kmem_cache;

struct page {
	unsigned long flags;
	union {
		struct list_head lru;
		struct llist_node llnode;  /* PG_deferred: zone->deferred_free */
		/* A SLAB_TYPESAFE_BY_RCU slab waiting for its grace period
		 * (mm/slab.c free_slab()): off every list. */
		struct rcu_head rcu_head;
	};
	union {
		/* Buddy and per-CPU lists: order of the block this page heads. */
		unsigned int order;
		/* Slab: owned by mm/slab.c while PG_slab is set.  freelist
		 * and counters form one 16-byte-aligned pair that a cpu-slab
		 * cache (mm/cpu_slab.c) changes with one cmpxchg16b. */
		struct {
			struct kmem_cache *slab_cache;
			void *freelist;        /* first free object (encoded) */
			union {
				unsigned long counters;
				struct {
					unsigned int inuse;     /* objects handed out */
					unsigned short objects; /* objects in this slab */
					unsigned short frozen;  /* owned by a CPU (cpu_slab.c) */
				};
			};
		};
	};
	unsigned long private_data;   /* owner's scratch word */
	/* Slab: in every page of a slab (set by mm/slab.c with PG_slab), the
	 * address of the slab's first byte, so a free fast path gets an
	 * object's offset in its slab with one subtraction.  The word also
	 * makes struct page 64 bytes, a power of two, so that pfn_to_page()
	 * and page_to_pfn() are a shift, not a multiply (they are on the
	 * kfree() fast path).  Linux's is 64 bytes too. */
	unsigned long slab_start;
};

BUILD_BUG_ON(sizeof(struct page) != 64);
BUILD_BUG_ON(offsetof(struct page, freelist) % 16 ||
	     offsetof(struct page, counters) !=
	     offsetof(struct page, freelist) + sizeof(void *));

/*
 * ---- the memmap ----
 * One virtual array indexed by frame number (Linux's vmemmap): the
 * struct page of pfn is at vmemmap + pfn, so pfn_to_page() stays one
 * addition.  Its pages are backed piece by piece, each from the node of
 * the frames it describes (mm/mm_init.c), through the platform hooks
 * below: the kernel's are in arch/x86_64/paging.c (page tables at
 * VMEMMAP_BASE), the host tests' in tests/host/host_support.c (fresh
 * memory at the same place in the room, the frames it stands for
 * recorded: the arena must stay private memory, which fork() copies).
 */
extern struct page *mem_map;     /* struct page for pfn == mem_map_base_pfn */
extern unsigned long mem_map_base_pfn;
extern unsigned long mem_map_end_pfn; /* one past the last pfn covered */
/* The same range as direct-map addresses: [mem_map_virt_start,
 * mem_map_virt_start + mem_map_virt_size).  Both 0 while no memmap is
 * set up, which makes every address "outside". */
extern unsigned long mem_map_virt_start;
extern unsigned long mem_map_virt_size;

/* Virtual room for the struct pages of frames [0, end_pfn), unbacked:
 * the struct page of frame 0 (NULL when the room is too small). */
struct page *vmemmap_reserve(unsigned long end_pfn);
/* Back memmap addresses [start, end) (page-aligned) with the frames from
 * phys on; page tables it needs come from node nid.  false: no memory
 * for them (said on the console). */
bool vmemmap_map(unsigned long start, unsigned long end, phys_addr_t phys,
		 int nid);
/* The frame behind memmap address addr, in *phys: false if unbacked. */
bool vmemmap_lookup(const void *addr, phys_addr_t *phys);
/* Host tests: unmap it all (the kernel never gives its memmap back). */
void vmemmap_release(void);

static inline struct page *pfn_to_page(unsigned long pfn)
{
	return mem_map + (pfn - mem_map_base_pfn);
}

static inline unsigned long page_to_pfn(const struct page *page)
{
	return (unsigned long)(page - mem_map) + mem_map_base_pfn;
}

static inline void *page_address(const struct page *page)
{
	return phys_to_virt((phys_addr_t)page_to_pfn(page) << PAGE_SHIFT);
}

static inline struct page *virt_to_page(const void *addr)
{
	return pfn_to_page(virt_to_phys(addr) >> PAGE_SHIFT);
}

/* Is page one of the memmap's entries?  One subtraction and one unsigned
 * compare (an address below mem_map wraps to a huge difference).  The
 * page frees take any pointer and ask this first. */
static __always_inline bool page_in_memmap(const struct page *page)
{
	return (uintptr_t)page - (uintptr_t)mem_map <
	       (mem_map_end_pfn - mem_map_base_pfn) * sizeof(struct page);
}

static inline bool pfn_valid(unsigned long pfn)
{
	return pfn >= mem_map_base_pfn && pfn < mem_map_end_pfn;
}

/*
 * Does the memmap cover direct-map address addr?  One subtraction and one
 * unsigned compare, which also refuse NULL, ZERO_SIZE_PTR and
 * kernel-image addresses (they lie far below the direct map, so the
 * difference wraps to a huge number).  For the free fast paths, which
 * take any pointer; virt_to_page_covered() then gives its page.
 */
static __always_inline bool virt_covered(const void *addr)
{
	return (unsigned long)addr - mem_map_virt_start < mem_map_virt_size;
}

static __always_inline struct page *virt_to_page_covered(const void *addr)
{
	return mem_map + (((unsigned long)addr - mem_map_virt_start) >>
			  PAGE_SHIFT);
}

/* ---- allocation ---- */
struct page *alloc_pages(gfp_t gfp, unsigned int order);
struct page *alloc_pages_node(int nid, gfp_t gfp, unsigned int order);
void __free_pages(struct page *page, unsigned int order);
unsigned long __get_free_pages(gfp_t gfp, unsigned int order);
void free_pages(unsigned long addr, unsigned int order);
#define alloc_page(gfp) alloc_pages(gfp, 0)
#define __free_page(page) __free_pages(page, 0)
#define __get_free_page(gfp) __get_free_pages(gfp, 0)
#define free_page(addr) free_pages(addr, 0)

/*
 * The order of the allocated block that page heads, as the allocation
 * recorded it in page->flags (PAGE_ALLOC_ORDER_SHIFT; the free's claim
 * clears it): the one place a block's order is kept while it is out, so
 * its owner (a large kmalloc block, say) needs no copy.  0 for a page
 * that heads no allocated block.
 */
static inline unsigned int page_alloc_order(const struct page *page)
{
	unsigned long plus1 = (page->flags >> PAGE_ALLOC_ORDER_SHIFT) &
			      PAGE_ALLOC_ORDER_MASK;

	return plus1 ? (unsigned int)plus1 - 1 : 0;
}

/* Any context (NMI included): only trylocks, NULL means "not now". */
struct page *try_alloc_pages(int nid, unsigned int order);
#define alloc_pages_nolock(nid, order) try_alloc_pages(nid, order)
void free_pages_nolock(struct page *page, unsigned int order);

/* Per-CPU page lists. */
void drain_local_pages(void);
void drain_all_pages(void);

/* Accounting. */
unsigned long nr_free_pages(void);   /* buddy + pcp + deferred */
void show_free_areas(void);

/* Boot: the memmap, the zones and the buddy, from what memblock holds. */
void mm_core_init(void);

#endif /* MM_H */
