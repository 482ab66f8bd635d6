/*
 * rseq.c - the interrupt entry's half of restartable sequences
 * (include/rseq.h): find the sequence an interrupted RIP lies in
 * (rseq_find(), a scan of the read-only table: seven entries in this
 * kernel, one per inlined copy of a sheaf fast path) and send it back to
 * its start.  Any context, NMIs included.  It runs before the handler,
 * so the handler may use this CPU's sheaves at once.
 */
#include <kernel.h>
#include <rseq.h>
#include "interrupts.h"

bool rseq_ip_fixup(struct pt_regs *regs)
{
	const struct rseq_cs *cs = rseq_find(regs->rip);

	if (likely(!cs))
		return false;
	regs->rip = cs->abort_ip;
	return true;
}
