/*
 * wx_test.c - W^X over the whole address space, not just the image.
 *
 * boot_test.c checks the rights of the image mapping at KERNEL_VMA.  The
 * same physical pages are mapped a second time by the direct map, and the
 * AP trampoline is mapped at its physical address while the other CPUs
 * start; a writable alias of text is as good as writable text.  These
 * cases run paging_audit_wx() (arch/x86_64/paging.c) over the live tables
 * (from CR3: all levels, 1 GiB, 2 MiB and 4 KiB pages) and over the tables
 * an AP started on, and require: no page both writable and executable, no
 * writable mapping of text, rodata or kallsyms, no writable mapping of a
 * page that is executable elsewhere.  So that the audit cannot pass by
 * seeing nothing, one case requires it to find exactly the text pages
 * executable, and another plants each kind of breach in a private tree of
 * tables and requires exact counts.
 */
#include <kunit.h>
#include <memlayout.h>
#include <smp.h>
#include <string.h>
#include "../../arch/x86_64/cpu.h"
#include "../../arch/x86_64/paging.h"

#define TRAMPOLINE_PHYS 0x8000ul  /* smpboot.c, trampoline.asm */
#define PAGES_PER_1G (PAGE_1G / PAGE_SIZE)
#define PAGES_PER_2M (PAGE_2M / PAGE_SIZE)

extern char __text_start[], __text_end[], __rodata_start[], __rodata_end[];
extern char __kallsyms_start[], __kallsyms_end[];

static struct wx_audit live;

static void audit_live(struct kunit *test)
{
	if (!cpu_has_nx)
		kunit_skip(test, "no NX on this CPU: every page is executable");
	paging_audit_wx(read_cr3() & PTE_ADDR_MASK, &live);
	if (!wx_audit_clean(&live))
		wx_audit_print("live tables", &live);
}

static void no_page_is_writable_and_executable(struct kunit *test)
{
	audit_live(test);
	KUNIT_EXPECT_EQ(test, live.wx_pages, 0);
}

static void no_writable_alias_of_text_or_rodata(struct kunit *test)
{
	audit_live(test);
	KUNIT_EXPECT_EQ(test, live.ro_alias_pages, 0);
}

static void no_writable_alias_of_an_executable_page(struct kunit *test)
{
	audit_live(test);
	KUNIT_EXPECT_EQ(test, live.exec_alias_pages, 0);
	KUNIT_EXPECT_EQ(test, live.exec_ranges_lost, 0);
}

/* The audit sees the image: text and nothing else is executable. */
static void only_text_is_executable(struct kunit *test)
{
	u64 text = virt_to_phys(__text_start);
	unsigned long pages = DIV_ROUND_UP((unsigned long)(__text_end -
							   __text_start),
					   PAGE_SIZE);

	audit_live(test);
	wx_audit_print("live tables", &live);
	KUNIT_EXPECT_GT(test, live.leaves, 0);
	KUNIT_EXPECT_EQ(test, live.exec_pages, pages);
	KUNIT_ASSERT_EQ(test, live.nr_exec, 1);
	KUNIT_EXPECT_EQ(test, live.exec[0].start, text);
	KUNIT_EXPECT_EQ(test, live.exec[0].end, text + pages * PAGE_SIZE);
}

/* Checked page by page through paging_lookup(), without the audit. */
static void direct_map_of_image_is_read_only_and_nx(struct kunit *test)
{
	const struct { char *start, *end; } ro[] = {
		{ __text_start, __text_end },
		{ __rodata_start, __rodata_end },
		{ __kallsyms_start, __kallsyms_end },
	};
	unsigned long bad = 0, checked = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ro); i++) {
		char *p;

		for (p = ro[i].start; p < ro[i].end; p += PAGE_SIZE) {
			u64 pte = paging_lookup((unsigned long)phys_to_virt(
							virt_to_phys(p)), NULL);

			checked++;
			if (!(pte & PTE_PRESENT) || (pte & PTE_WRITE) ||
			    (cpu_has_nx && !(pte & PTE_NX))) {
				if (!bad)
					kunit_info(test, "direct map of %p: pte %#lx",
						   p, (unsigned long)pte);
				bad++;
			}
		}
	}
	KUNIT_EXPECT_GT(test, checked, 0);
	KUNIT_EXPECT_EQ(test, bad, 0);
}

/*
 * The tables as each AP found them: smpboot.c ran the audit with the
 * trampoline mapped, just before each AP's STARTUP IPIs.  Text and the
 * trampoline page were executable, nothing writable aliased them.
 */
static void bringup_tables_were_wx(struct kunit *test)
{
	const struct wx_audit *a = &smp_bringup_wx_audit;
	unsigned long text_pages = DIV_ROUND_UP(
		(unsigned long)(__text_end - __text_start), PAGE_SIZE);

	if (!cpu_has_nx)
		kunit_skip(test, "no NX on this CPU");
	if (!smp_bringup_wx_audits)
		kunit_skip(test, "one CPU: no trampoline was mapped");
	/* At least one per AP that came up (more if one did not answer). */
	KUNIT_EXPECT_GE(test, smp_bringup_wx_audits, nr_cpu_ids - 1);
	wx_audit_print("AP bring-up, again", a);
	KUNIT_EXPECT_EQ(test, a->wx_pages, 0);
	KUNIT_EXPECT_EQ(test, a->ro_alias_pages, 0);
	KUNIT_EXPECT_EQ(test, a->exec_alias_pages, 0);
	KUNIT_EXPECT_EQ(test, a->exec_ranges_lost, 0);
	/* Text plus the one trampoline page: it was mapped, executable. */
	KUNIT_EXPECT_EQ(test, a->exec_pages, text_pages + 1);
}

static void trampoline_is_unmapped_after_bringup(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, paging_lookup(TRAMPOLINE_PHYS, NULL) & PTE_PRESENT,
			0);
}

/*
 * A private tree (never loaded into CR3) with one breach of each kind, and
 * rights that only the levels above take away:
 *
 *   pdpt[0]  1 GiB at 1 GiB, W, executable        -> W+X (the whole GiB)
 *   pdpt[1]  -> pd
 *     pd[0]  2 MiB at 1 GiB, W, NX               -> alias of executable
 *     pd[1]  -> pt
 *       pt[0]  the first text page, W, NX        -> alias of text, and of
 *       pt[1]  the first rodata page, read-only     an executable page
 *       pt[2]  the first text page, executable      (pt[2])
 *   pdpt[2]  -> pd_ro, read-only and NX at the PDPT level
 *     pd_ro[0]  2 MiB at 2 GiB, W, executable    -> neither: the level
 *                                                   above forbids both
 */
static u64 planted_tables[5][512] __aligned(PAGE_SIZE);

static u64 tphys(unsigned int i)
{
	return virt_to_phys(planted_tables[i]);
}

static void audit_finds_planted_breaches(struct kunit *test)
{
	u64 (*t)[512] = planted_tables;
	enum { PML4, PDPT, PD, PT, PD_RO };
	u64 text = virt_to_phys(__text_start);
	u64 rodata = virt_to_phys(__rodata_start);
	struct wx_audit a;

	if (!cpu_has_nx)
		kunit_skip(test, "no NX on this CPU");
	memset(planted_tables, 0, sizeof(planted_tables));
	t[PML4][0] = tphys(PDPT) | PTE_PRESENT | PTE_WRITE;
	t[PDPT][0] = PAGE_1G | PTE_PRESENT | PTE_WRITE | PTE_HUGE;
	t[PDPT][1] = tphys(PD) | PTE_PRESENT | PTE_WRITE;
	t[PD][0] = PAGE_1G | PTE_PRESENT | PTE_WRITE | PTE_HUGE | PTE_NX;
	t[PD][1] = tphys(PT) | PTE_PRESENT | PTE_WRITE;
	t[PT][0] = text | PTE_PRESENT | PTE_WRITE | PTE_NX;
	t[PT][1] = rodata | PTE_PRESENT | PTE_NX;
	t[PT][2] = text | PTE_PRESENT;
	t[PDPT][2] = tphys(PD_RO) | PTE_PRESENT | PTE_NX;
	t[PD_RO][0] = 2 * PAGE_1G | PTE_PRESENT | PTE_WRITE | PTE_HUGE;

	paging_audit_wx(tphys(PML4), &a);
	kunit_info(test, "planted: %lu W+X, %lu text/rodata, %lu exec aliases",
		   a.wx_pages, a.ro_alias_pages, a.exec_alias_pages);
	KUNIT_EXPECT_FALSE(test, wx_audit_clean(&a));
	KUNIT_EXPECT_EQ(test, a.leaves, 6);
	KUNIT_EXPECT_EQ(test, a.wx_pages, PAGES_PER_1G);
	KUNIT_EXPECT_EQ(test, a.exec_pages, PAGES_PER_1G + 1);
	KUNIT_EXPECT_EQ(test, a.ro_alias_pages, 1);
	KUNIT_EXPECT_EQ(test, a.exec_alias_pages, PAGES_PER_2M + 1);
	KUNIT_EXPECT_EQ(test, a.nr_exec, 2);
	KUNIT_EXPECT_EQ(test, a.exec_ranges_lost, 0);
	/* The first breach in walk order: pdpt[0], virtual 0, physical 1 GiB. */
	KUNIT_EXPECT_NOT_NULL(test, a.first_bad_what);
	KUNIT_EXPECT_EQ(test, a.first_bad_va, 0);
	KUNIT_EXPECT_EQ(test, a.first_bad_phys, PAGE_1G);
}

static struct kunit_case wx_cases[] = {
	KUNIT_CASE(no_page_is_writable_and_executable),
	KUNIT_CASE(no_writable_alias_of_text_or_rodata),
	KUNIT_CASE(no_writable_alias_of_an_executable_page),
	KUNIT_CASE(only_text_is_executable),
	KUNIT_CASE(direct_map_of_image_is_read_only_and_nx),
	KUNIT_CASE(bringup_tables_were_wx),
	KUNIT_CASE(trampoline_is_unmapped_after_bringup),
	KUNIT_CASE(audit_finds_planted_breaches),
	{}
};

static struct kunit_suite wx_suite = {
	.name = "wx",
	.test_cases = wx_cases,
};
kunit_test_suite(wx_suite);
