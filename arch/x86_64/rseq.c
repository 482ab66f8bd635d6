/*
 * rseq.c - the interrupt entry's half of restartable sequences
 * (include/rseq.h): find the sequence an interrupted RIP lies in and
 * send it back to its start.
 *
 * The table is read-only after link and short (one entry per inlined copy
 * of a sheaf fast path: six in this kernel), so a linear scan is cheap and
 * needs no lock: any context may call it, NMIs included.  It runs before
 * the handler, so the handler may use this CPU's sheaves at once.
 */
#include <kernel.h>
#include <rseq.h>
#include "interrupts.h"

const struct rseq_cs *rseq_find(unsigned long ip)
{
	const struct rseq_cs *cs;

	for (cs = __start_rseq_table; cs < __stop_rseq_table; cs++)
		if (ip - cs->start_ip < cs->post_commit_ip - cs->start_ip)
			return cs;
	return NULL;
}

bool rseq_ip_fixup(struct pt_regs *regs)
{
	const struct rseq_cs *cs = rseq_find(regs->rip);

	if (likely(!cs))
		return false;
	regs->rip = cs->abort_ip;
	return true;
}
