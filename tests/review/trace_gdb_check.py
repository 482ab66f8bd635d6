#!/usr/bin/env python3
"""trace_gdb_check.py - the harness's gdb-commands check, with the fixture's
cache traced (a review of mm/slab_trace.c).

tests/harness/run_tests.py check_gdb_commands() boots the gdb_fixture
suite under QEMU, stops it in gdb_checkpoint() and compares what the
scripts/gdb/ commands print (slabinfo, sheaves, barn, ...) with what the
kernel printed of the same state.  This runs that check twice: as the
harness does, and with trace_alloc=gdb_fixture added to the command line.

The change under review says a reader without the sheaf lock must ask
pcs_main_unlocked() ("mm_check, the gdb helpers": mm/slab_internal.h),
since a traced cache's pcs->main is the trace gate while its lock is
free.  scripts/gdb/mmgdb/slab.py still reads pcs->main: for a traced
cache `sheaves` shows the gate (0/0) and `slabinfo` counts the real
main's objects as allocated.  Expected on the change: the first check
passes, the second fails (the fixture reports the real main, through
pcs_main_unlocked(), since the review's commit that adds this script).

    make kernel && python3 tests/review/trace_gdb_check.py
"""
import os
import sys

ROOT = os.path.normpath(os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "harness"))
import run_tests  # noqa: E402

KERNEL = os.path.join(ROOT, "build", "gcc", "kernel.elf")


def check(extra):
    log_dir = os.path.join(ROOT, "build", "review-gdb" +
                           ("-traced" if extra else ""))
    os.makedirs(log_dir, exist_ok=True)
    start = run_tests.start_gdb_qemu

    def start_with(kernel, cmdline, smp, log_dir, serial):
        return start(kernel, (cmdline + " " + extra).strip(), smp, log_dir,
                     serial)

    run_tests.start_gdb_qemu = start_with
    try:
        problems = run_tests.check_gdb_commands(KERNEL, log_dir)
    finally:
        run_tests.start_gdb_qemu = start
    print("%-32s %s" % (extra or "(as the harness runs it)",
                        "FAILED" if problems else "ok"))
    for p in problems:
        print("    " + p)
    return not problems


if __name__ == "__main__":
    plain = check("")
    traced = check("trace_alloc=gdb_fixture")
    sys.exit(0 if plain and traced else 1)
