#!/bin/sh
# trace_boots.sh - the kernel boots of the review of mm/slab_trace.c, each
# with what it showed on the change under review (10f8405/b9f3937).
# A few seconds each under TCG.  Run from the repository root after
# `make kernel`; every boot's log path is printed by make boottest.
#
#   sh tests/review/trace_boots.sh
set -u
boot() {   # expected, SMP, command line
	printf '\n=== [expected: %s] SMP=%s %s\n' "$1" "$2" "$3"
	make -s boottest SMP="$2" MEM=128M CMDLINE="$3" 2>&1 |
		grep -E 'FAIL|passed|log:' | cut -c1-400
}
# The brief's own command: nolock.barn_keeps_its_bound_of_empty_sheaves
# reads pcs->main raw (finds the gate), and NMI trace lines make the
# harness fail the boot on "time stamps run backwards" (most boots).
boot "FAILS" 2 "test=walkthrough,slab*,sheaf*,nolock,nmi_storm trace_alloc=kmalloc-64"
# NMI trace lines stamped before a task line written after them: the
# harness's "time stamps run backwards" (about 2 boots in 3).
for i in 1 2 3; do
	boot "FAILS in most boots" 2 "test=nmi_storm trace_alloc=kmalloc-64"
done
# The trace switched on and off under load and NMIs (rule 2).
boot "passes" 2 "test=slab_trace_toggle"
boot "passes" 4 "test=slab_trace_toggle"
# The interleaving search, traced and with the flag flipped at every point.
boot "passes" 2 "test=interleave_traced,interleave_trace_on"
# trace_alloc= lists: '*' alone (every cache), empty entries, nothing.
boot "passes" 2 "test=walkthrough trace_alloc=*"
boot "passes" 2 "test=walkthrough trace_alloc=,,,*,,"
boot "passes" 2 "test=walkthrough trace_alloc=,"
