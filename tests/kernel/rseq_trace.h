/*
 * rseq_trace.h - what a single-step search of the restartable sequences
 * (include/rseq.h) has seen: per entry of the __rseq_table, the distinct
 * instruction addresses met inside it.  Addresses are kept, not counted,
 * so a point visited in several states counts once, and a search is done
 * when each entry holds as many as its instruction count says.
 *
 * Shared by the kernel's single-step test (tests/kernel/singlestep_test.c,
 * #DB) and the host's (tests/host/test_mm_rseq.c, SIGTRAP); each keeps
 * one table for the steps traced and one per interrupting action.
 */
#ifndef TESTS_RSEQ_TRACE_H
#define TESTS_RSEQ_TRACE_H

#include <rseq.h>

#define RSEQ_TRACE_MAX_SEQS   32   /* table entries a search can follow */
#define RSEQ_TRACE_MAX_INSNS  16   /* instructions kept per sequence */

struct seq_insns {
	unsigned long rip[RSEQ_TRACE_MAX_INSNS];
	unsigned int nr;
	bool overflow;     /* more distinct addresses than can be kept */
};

/* Note rip in table[] when it lies in a sequence's uncommitted part. */
static inline void seq_note(struct seq_insns *table, unsigned long rip)
{
	const struct rseq_cs *cs = rseq_find(rip);
	struct seq_insns *si;
	unsigned int i;

	if (!cs || cs - __start_rseq_table >= RSEQ_TRACE_MAX_SEQS)
		return;
	si = &table[cs - __start_rseq_table];
	for (i = 0; i < si->nr; i++)
		if (si->rip[i] == rip)
			return;
	if (si->nr == RSEQ_TRACE_MAX_INSNS) {
		si->overflow = true;
		return;
	}
	si->rip[si->nr++] = rip;
}

#endif /* TESTS_RSEQ_TRACE_H */
