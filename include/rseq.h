/*
 * rseq.h - restartable per-CPU sequences, in the kernel and on the host.
 *
 * A restartable sequence is a short run of instructions over this CPU's
 * data whose only visible effect is its last instruction, the commit (one
 * store, or one read-modify-write of memory).  If anything interrupts it
 * before the commit - an NMI, an IRQ, an exception that returns - the entry
 * code moves the interrupted RIP back to the sequence's abort address
 * (its start, here) before it returns: the sequence runs again from the
 * top, reading everything afresh.  So the interrupting handler may use
 * this CPU's data freely, and nothing is ever left half done.  The sheaf
 * fast paths (mm/slab_internal.h) are the users; docs/any-context.md has
 * the rules and a picture.
 *
 * Each sequence records itself in the __rseq_table section (the linker
 * script brackets it with __start_rseq_table/__stop_rseq_table):
 *
 *   start_ip        first instruction
 *   post_commit_ip  the instruction after the commit: RIP in
 *                   [start_ip, post_commit_ip) means "not committed"
 *   abort_ip        where an interrupted sequence resumes (start_ip)
 *   insns           its instructions, counted by hand; the single-step
 *                   test checks the count against what it traces
 *
 * Rules for a sequence (the assembler cannot check them; review does):
 *   1. It is one asm statement (asm goto): the compiler can neither move
 *      the commit nor put its own instructions inside.
 *   2. Registers it reads are inputs it never writes: a restart finds them
 *      as they were.  Registers it writes are early-clobber outputs.
 *   3. Before the commit it stores nothing anyone else reads.  (A store
 *      into a free slot past a sheaf's size is allowed: no one reads it.)
 *   4. The commit is a single instruction, the last one.
 *   5. No call, no stack operation, nothing that may fault on a valid
 *      state.
 *
 * Context: rseq_ip_fixup() runs in every interrupt entry that returns to
 * the code it interrupted (arch/x86_64/traps.c).  The host build has the
 * same sequences; its signal handlers call rseq_ucontext_fixup()
 * (tests/host/host_support.c), which is what an entry is in user space.  A #DB handler that only
 * traces (single-step) calls it only when it ran allocator code itself,
 * since a restart at every step would never let a traced sequence finish.
 */
#ifndef RSEQ_H
#define RSEQ_H

#include <compiler.h>

struct rseq_cs {
	unsigned long start_ip;
	unsigned long post_commit_ip;
	unsigned long abort_ip;
	unsigned long insns;
};

/* Read-only in the kernel (linked at a fixed address); writable in a host
 * program, which is position-independent: the loader relocates the
 * addresses in the table, and a read-only section would need text
 * relocations. */
#ifndef HOST_TEST
#define RSEQ_SECTION_FLAGS "\"a\""
#else
#define RSEQ_SECTION_FLAGS "\"aw\""
#endif

/* The table entry of a sequence, as assembler text for an asm statement:
 * start, post_commit and abort are labels ("1b"), insns a number. */
#define RSEQ_TABLE_ENTRY(start, post_commit, abort, insns)                    \
	".pushsection __rseq_table, " RSEQ_SECTION_FLAGS "\n\t"               \
	".balign 8\n\t"                                                       \
	".quad " start ", " post_commit ", " abort ", " insns "\n\t"          \
	".popsection\n\t"

/*
 * The table's bounds.  The kernel's linker script names them; a host
 * program (the mm/ files built for the host tests and benchmark) gets them
 * from the GNU linker, which defines __start_SECTION/__stop_SECTION for any
 * section whose name is a C identifier.  Weak there, so a host program
 * without sequences links with an empty table.
 */
#ifndef HOST_TEST
extern const struct rseq_cs __start_rseq_table[];
extern const struct rseq_cs __stop_rseq_table[];
#else
extern const struct rseq_cs __start_rseq_table[]
	__asm__("__start___rseq_table") __attribute__((weak));
extern const struct rseq_cs __stop_rseq_table[]
	__asm__("__stop___rseq_table") __attribute__((weak));
#endif

/* The sequence whose uncommitted part holds ip, or NULL.  The table is
 * read-only after link and short (one entry per inlined copy of a fast
 * path), so a linear scan is cheap, and any context may call this. */
static inline const struct rseq_cs *rseq_find(unsigned long ip)
{
	const struct rseq_cs *cs;

	for (cs = __start_rseq_table; cs < __stop_rseq_table; cs++)
		if (ip - cs->start_ip < cs->post_commit_ip - cs->start_ip)
			return cs;
	return NULL;
}

#ifndef HOST_TEST
struct pt_regs;

/*
 * Interrupt entry: if regs->rip is inside a sequence that has not
 * committed, move it to the sequence's abort address.  True if it did.
 * Any context (it reads a read-only table).
 */
bool rseq_ip_fixup(struct pt_regs *regs);
#else
/*
 * The host's interrupt entry is a signal handler (the stress test's
 * "NMIs" and "IRQs" are POSIX signals, the host single-step test's steps
 * SIGTRAPs): the same fixup on the interrupted context, a ucontext_t as
 * the handler's third argument gets it.  True if it moved the RIP.
 */
bool rseq_ucontext_fixup(void *ucontext);
#endif

#endif /* RSEQ_H */
