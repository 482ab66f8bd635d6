/*
 * paging.h - the kernel's final page tables.
 */
#ifndef ARCH_X86_64_PAGING_H
#define ARCH_X86_64_PAGING_H

#include <types.h>

/* Page-table entry bits (SDM vol. 3A, 4.5, tables 4-15 to 4-20). */
#define PTE_PRESENT  (1ul << 0)
#define PTE_WRITE    (1ul << 1)
#define PTE_PWT      (1ul << 3)
#define PTE_PCD      (1ul << 4)
#define PTE_HUGE     (1ul << 7)    /* 2 MiB in a PD entry, 1 GiB in a PDPT */
#define PTE_GLOBAL   (1ul << 8)
#define PTE_NX       (1ul << 63)
#define PTE_ADDR_MASK 0x000ffffffffff000ul

#define PAGE_2M (1ul << 21)
#define PAGE_1G (1ul << 30)

/*
 * Build the direct map of every range in `ranges` (physical [start, end)),
 * map the kernel image with per-section permissions, and switch CR3.
 */
struct phys_range {
	u64 start, end;
};
void paging_init(const struct phys_range *ranges, unsigned int nr);

void paging_unmap_kernel_page(unsigned long va);
/* Map a physical MMIO range uncached; returns its virtual address. */
void *ioremap(phys_addr_t phys, size_t size);
/*
 * Rights of the direct map over physical [phys, end): DIRECT_MAP_RW or
 * DIRECT_MAP_RO, NX either way.  Huge pages in the way are split into 4 KiB
 * pages.  Flushes this CPU's TLB only: for pages no other CPU uses, or
 * before the other CPUs run.
 */
enum direct_map_rights {
	DIRECT_MAP_RW,
	DIRECT_MAP_RO,
};
void paging_set_direct_map_rights(u64 phys, u64 end,
				  enum direct_map_rights rights);
/*
 * Identity-map one low page (the AP trampoline), read-only and executable.
 * The caller makes its direct-map alias read-only first (W^X by physical
 * page: smpboot.c, trampoline_seal()).
 */
void paging_map_identity_page(phys_addr_t phys);
void paging_unmap_identity_page(phys_addr_t phys);
/* Walk the tables: the PTE bits mapping va (0 if unmapped). */
u64 paging_lookup(unsigned long va, unsigned int *level);
u64 paging_kernel_cr3(void);

/*
 * The W^X audit: walk a whole tree of tables (root_phys: what CR3 holds;
 * four levels, leaves of 1 GiB, 2 MiB and 4 KiB) and count, in 4 KiB pages,
 * every breach of "no physical page is both writable and executable":
 *   wx_pages          mapped writable and executable by one entry;
 *   ro_alias_pages    mapped writable although they hold the image's text,
 *                     rodata or kallsyms (an alias of read-only memory);
 *   exec_alias_pages  mapped writable (and NX) here while another entry
 *                     maps the same physical page executable.
 * A right counts only where every level grants it: writable means W at all
 * four levels, executable means NX at none (everything, on a CPU without
 * NX).  It reads the tables through the direct map, takes no lock and
 * allocates nothing, so the tables must hold still while it runs.
 */
#define WX_AUDIT_MAX_EXEC_RANGES 16

struct wx_audit {
	unsigned long leaves;           /* present leaf entries */
	unsigned long exec_pages;       /* 4 KiB pages mapped executable */
	unsigned long wx_pages;
	unsigned long ro_alias_pages;
	unsigned long exec_alias_pages;
	/* Physical ranges mapped executable, adjacent ones merged. */
	struct phys_range exec[WX_AUDIT_MAX_EXEC_RANGES];
	unsigned int nr_exec;
	unsigned int exec_ranges_lost;  /* did not fit in exec[]: a failure */
	/* The first breach found, for the message (what is NULL if none). */
	const char *first_bad_what;
	unsigned long first_bad_va;
	u64 first_bad_phys;
};
void paging_audit_wx(u64 root_phys, struct wx_audit *a);
bool wx_audit_clean(const struct wx_audit *a);
/* One line: the counts, or the first breach (pr_err when not clean). */
void wx_audit_print(const char *when, const struct wx_audit *a);
/*
 * smpboot.c audits the tables each AP starts on, with the trampoline
 * mapped, just before its STARTUP IPIs, and keeps the first audit that
 * found a breach (else the first); tests/kernel/wx_test.c checks it.
 */
extern struct wx_audit smp_bringup_wx_audit;
extern unsigned int smp_bringup_wx_audits;  /* one per AP started */

extern bool cpu_has_nx, cpu_has_1g_pages;
extern u64 direct_map_bytes;

#endif
