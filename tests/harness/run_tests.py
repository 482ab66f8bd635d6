#!/usr/bin/env python3
"""run_tests.py - everything `make test` runs, and one closing count.

1. Host unit tests: each program prints KTAP; its cases count.
2. Boot tests: the kernel booted in each configuration of BOOT_CONFIGS
   (SMP and memory size); every KUnit case of every boot counts.
3. Harness checks: a kernel with deliberately broken tests
   (tests/harness/broken_tests.c) is booted once per breakage, and a host
   program of them (tests/harness/broken_host_tests.c) run once per
   breakage, with the real host programs given a test= that matches
   nothing; each run must FAIL, and say why in words the check looks for.
   These prove the harness cannot pass a broken kernel.  Each counts as one
   test.  So do the tool checks: `make debug`'s gdbinit, and the gdb
   commands of scripts/gdb/ run in a kernel stopped in the gdb_fixture
   suite, each output compared with what that suite printed.

4. Fuzzers (tests/fuzz/, libFuzzer): each replays its kept corpus
   (tests/fuzz/corpus/<name>/, the program's name less "fuzz_") and then
   runs more inputs it makes itself (--fuzz PROG:RUNS, else --fuzz-runs),
   with a fixed seed: a count, never a time.  A fuzzer passes when it exits 0 and counts as one test;
   a failure names the crash input it wrote and how to replay it.  A
   fuzzer with a planted bug (--broken-fuzz) must FAIL with its model's
   "FAILED" line, which proves the model checks something.

Every run (host program or boot) fails on a report line (WARNING:, BUG ...)
that no case declared (ktap.py), and a host program that runs longer than
HOST_TIMEOUT seconds (120; the environment may override) is killed and the
case it was in named.

Prints a summary per step and ends with `total: N passed, N failed`.
Exit status 0 only if nothing failed.
"""
import argparse
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402
import boottest  # noqa: E402
import viz_check  # noqa: E402

# The suites of the slab_mode= boots below (slab* takes slab_rcu).
SLAB_MODE_SUITES = ("walkthrough,slab*,sheaf*,nolock,mm_check*,interleave*,"
                    "singlestep,nmi_storm*")

# (name, SMP, memory, command line): issue #2 asks for -smp 1 and 4, issue #3 for 128M and
# 2G, issue #4 for non-contiguous APIC ids: QEMU rounds cores per socket up
# to a power of two, so 2 sockets of 3 cores have APIC ids 0,1,2,4,5,6.
BOOT_CONFIGS = [
    ("smp1-128M", "1", "128M", ""),
    # The least memory the kernel runs on (include/memblock.h): tests that
    # need more free at once skip and say so (tests/kernel/memory_need.h).
    ("smp2-16M", "2", "16M", ""),
    # The self-tests' KTAP is printed whatever loglevel= hides (kernel/
    # kunit.c): with loglevel=0 the run is still judged, case by case.
    ("smp1-128M-loglevel0", "1", "128M", "loglevel=0 test=boot,console"),
    # Every freed page poisoned and checked when handed out again: the whole
    # suite, storms included, runs with writes after free detected.
    ("smp4-128M-poison", "4", "128M", "page_poison"),
    ("smp4-2G", "4", "2G", ""),
    ("smp6-sockets2-128M", "6,sockets=2,cores=3", "128M", ""),
    # kmalloc-64 traced (mm/slab_trace.c) through the slab suites and the
    # NMI storms: the trace gate under NMIs, and the log stays in order.
    ("smp2-128M-traced", "2", "128M",
     "trace_alloc=kmalloc-64 test=walkthrough,slab*,sheaf*,nolock,"
     "nmi_storm,slab_trace*,interleave_trace*"),
    # Memory above 4 GiB: two zones (DMA32 and Normal) and the fallback
    # between them.
    ("smp2-5G", "2", "5G", ""),
    # The kmalloc classes in the other two modes of the per-CPU layer
    # (slab_mode=, include/slab.h; issue 17): SLUB's per-CPU slabs and
    # none.  The slab, any-context, interleaving, single-step, storm and
    # RCU-slab suites (each also runs private caches of every mode), so
    # one `make test` compares all three.
    ("smp2-128M-cpuslab", "2", "128M",
     "slab_mode=cpuslab test=" + SLAB_MODE_SUITES),
    ("smp2-128M-nolayer", "2", "128M",
     "slab_mode=none test=" + SLAB_MODE_SUITES),
    # Every cache a debug cache (red zones, poison, caller tracking, full
    # checks on each free): the slab, any-context and page suites must hold
    # there too.
    ("smp4-128M-slub-debug", "4", "128M",
     "slub_debug=FZPU test=slab*,nolock,buddy"),
] + [
    # The debug matrix: each slub_debug= flag alone, and red zone with
    # poison (which moves the free pointer out of the object), for the
    # slab suites (slab_geometry: objects under 8 bytes, kmalloc tails) and
    # the any-context suite.
    ("smp2-128M-slub-debug-" + flags, "2", "128M",
     "slub_debug=%s test=slab*,nolock" % flags)
    for flags in ("F", "Z", "P", "U", "ZP")
]


# NUMA machines (docs/numa.md): QEMU's -numa gives the SRAT (and with
# `dist` the SLIT) the kernel reads.  (name, SMP, memory, command line,
# QEMU options.)  Two nodes run the whole suite, the NMI storms among it;
# the others the suites that place memory.
def numa_opts(nodes, distances=()):
    """QEMU options for nodes given as (CPUs or None, MiB or 0, or a QEMU
    size such as "65664K")."""
    opts = []
    for i, (cpus, mib) in enumerate(nodes):
        if mib:
            size = mib if isinstance(mib, str) else "%dM" % mib
            opts += ["-object", "memory-backend-ram,id=m%d,size=%s" % (i, size)]
        node = "node,nodeid=%d" % i
        if cpus is not None:
            node += ",cpus=%s" % cpus
        if mib:
            node += ",memdev=m%d" % i
        opts += ["-numa", node]
    for src, dst, val in distances:
        opts += ["-numa", "dist,src=%d,dst=%d,val=%d" % (src, dst, val)]
    return opts


NUMA_PLACEMENT_SUITES = "numa,boot,buddy,slab*,sheaf*,nolock,mm_check*"
NUMA_BOOT_CONFIGS = [
    ("numa2-smp2-128M", "2", "128M", "",
     numa_opts([("0", 64), ("1", 64)])),
    # Asymmetric distances: each node's fallback order is its own.  The
    # first boundary is 128 KiB past 64 MiB, inside one page of the
    # memmap (which then lives on node 0, the node of its first frame).
    ("numa4-slit-smp4-256M", "4", "256M", "test=" + NUMA_PLACEMENT_SUITES,
     numa_opts([("0", "65664K"), ("1", "65408K"), ("2", 64), ("3", 64)],
               [(0, 1, 15), (0, 2, 20), (0, 3, 30), (1, 2, 25), (1, 3, 20),
                (2, 3, 15)])),
    # Node 2 has a CPU and no memory: it allocates from its nearest node
    # and still has a barn of its own.
    ("numa3-memoryless-smp3-128M", "3", "128M",
     "test=" + NUMA_PLACEMENT_SUITES,
     numa_opts([("0", 64), ("1", 64), ("2", 0)])),
    # Node 1 has memory and no CPU: only ever remote.
    ("numa2-cpuless-smp2-128M", "2", "128M", "test=" + NUMA_PLACEMENT_SUITES,
     numa_opts([("0-1", 64), (None, 64)])),
    # Two large nodes: the memmap's runs are megabytes, mapped with 2 MiB
    # pages where aligned, and node 1's first page sits above the PCI hole
    # (the memmap pages of the hole follow node 0's).
    ("numa2-big-smp2-4600M", "2", "4600M", "test=numa,memmap_review,wx",
     numa_opts([("0", 2300), ("1", 2300)])),
    # The other two modes of the sheaves over two nodes.
    ("numa2-blind-smp2-128M", "2", "128M",
     "slab_numa=blind test=numa,slab*,sheaf*,nolock",
     numa_opts([("0", 64), ("1", 64)])),
    ("numa2-strict-smp4-128M", "4", "128M",
     "slab_numa=strict test=numa,slab*,sheaf*,nolock,nmi_storm*",
     numa_opts([("0-1", 64), ("2-3", 64)])),
]

# The same matrix for the host program of mm/, under ASan: $SLUB_DEBUG is
# its slub_debug= (tests/host/test_mm_slab.c), the argument its test=.
HOST_DEBUG_PROGRAM = "mm_tests"
HOST_DEBUG_FILTER = "slab*,nolock"
HOST_DEBUG_MATRIX = ("F", "Z", "P", "U", "ZP", "FZPU")

# The mode matrix: the suites of generic slab behaviour again with $SLAB_MODE
# (tests/host/test_mm_slab.c), which plays slab_mode= for the kmalloc
# classes and gives its mode to every cache that asks for none (the default
# sheaves run above; tests/host/test_mm_cpu_slab.c has the cpu-slab mode's
# own suite).
HOST_MODE_FILTER = ("slab,slab_hardening*,slab_debug,slab_geometry,slab_rcu_host,"
                    "slab_boot*,nolock,sheaf*,mm_check,interleave")
HOST_MODE_MATRIX = ("cpuslab", "none")

# (suite selected with test=, what the harness must report, timeout, SMP).
# The hangs must end in the hard-lockup watchdog's report (threshold 4 s),
# not in the harness timeout.
BROKEN_CHECKS = [
    ("broken_expect", "test broken_expect.expect_two_plus_two_is_five failed", 60, "1"),
    ("broken_pagefault", "exception: Page Fault", 60, "1"),
    # The direct map's alias of text is read-only (arch/x86_64/paging.c).
    ("broken_text_alias_write", "exception: Page Fault (#PF), vector 14, "
     "error code 0x3, on cpu0; cause: kernel write of a present (protection "
     "violation) page", 60, "1"),
    # The guard page turns the overflow into a double fault whose report
    # names the overflow (arch/x86_64/traps.c).
    ("broken_stack_overflow", "exception: Double Fault (#DF), vector 8, "
     "error code 0x0, on cpu0; cause: kernel stack overflow: cpu0's kernel "
     "stack ran into its guard page", 60, "1"),
    ("broken_hang", "watchdog: hard LOCKUP on cpu0", 30, "1"),
    # broken_deadlock: STOP_CHECKS below.
    ("broken_warning", "1 unexpected report (WARNING:/BUG lines) while "
     "this case ran", 60, "1"),
    ("broken_warning_outside", "unexpected report (log line", 60, "1"),
    ("broken_forged_tag", "unexpected report (log line", 60, "1"),
    ("broken_absent_report", 'Expected a report containing "BUG test_dbg: '
     'double free", but none was printed', 60, "1"),
    # kunit_skip() cannot return; from a handler it must not jump either.
    ("broken_skip_in_irq", "kunit_skip() in IRQ context: a case can be "
     "skipped only from its own context", 60, "1"),
    # A misspelt test= must fail, not pass with nothing run.
    # (Whatever suite links first: the list is in link order, and gcc and
    # clang order the suites of one file differently.)
    ("no_such_suite", "test=no_such_suite matches no test; the suites are: "
     "apic_icr", 60, "1"),
]

# The same for host programs: (program, its argument, what must be said
# (one string, or a tuple of strings that must all be said), and for a hang
# the line after which it is declared hung at once).
HOST_CHECKS = [
    ("lib_tests", "no_such_suite.*", "test=no_such_suite.* matches no test; "
     "the suites are: lib", None),
    ("broken_host_tests", "broken_host_hang", "timeout: no result 1 s after "
     "'# sleep_forever: sleeping forever' in suite broken_host_hang, case 2 "
     "of 2 (after passes_first)",
     "# sleep_forever: sleeping forever"),
    # Both the case (kernel/kunit.c) and the log check (ktap.py) see it.
    ("broken_host_tests", "broken_host_warning", ("test broken_host_warning."
     "warn_undeclared failed: warn_undeclared: 1 unexpected report",
     "unexpected report (log line"), None),
]

# A host program gets this long (seconds) before it counts as hung and the
# harness names the case it was in.  Generous: the slowest today needs a
# few seconds.
HOST_TIMEOUT = float(os.environ.get("HOST_TIMEOUT", "120"))
BOOT_TIMEOUT = float(os.environ.get("BOOT_TIMEOUT", "180"))


class Tally:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def add(self, p, f):
        self.passed += p
        self.failed += f

    def check(self, ok):
        """One check that passed or failed."""
        self.add(1 if ok else 0, 0 if ok else 1)


def report(label, log, reasons, log_path, detail, tally):
    """One summary line for a run, its failure reasons, and the count: a
    run that failed without a failed case (a crash, a timeout) counts as
    one failure."""
    p, f, s = ktap.counts(log)
    print("%-30s %3d passed, %d failed%s  (%s)" % (
        label, p, f, ", %d skipped" % s if s else "", detail))
    for x in reasons:
        print("    FAIL: " + x)
    if reasons:
        print("    log: " + log_path)
    tally.add(p, f + (1 if reasons and f == 0 else 0))


def run_with_deadline(cmd, log_path, timeout, started=None, env=None):
    """Run cmd, its output into log_path, for at most `timeout` seconds;
    with `started` (a line the program prints), for at most one second
    after that line appears.  An overrun kills the program and everything
    it started.  Returns (exit status, timed_out)."""
    deadline = time.time() + timeout
    with open(log_path, "w") as f:
        proc = subprocess.Popen(cmd, stdout=f, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)
        timed_out = False
        while proc.poll() is None:
            now = time.time()
            if started and deadline > now + 1 and started in open(
                    log_path, errors="replace").read():
                deadline = now + 1
            if now >= deadline:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
            time.sleep(0.05)
    return proc.returncode, timed_out


def run_host_program(prog, args, log_path, timeout, started=None, env=None):
    """Run a host test program (run_with_deadline()).  Returns (log,
    reasons, secs).  A program that overruns is killed and the reason names
    the case it was in, from the KTAP it printed so far (host_main.c prints
    unbuffered)."""
    start = time.time()
    returncode, timed_out = run_with_deadline([prog] + args, log_path,
                                              timeout, started, env)
    log = ktap.parse_log(log_path)
    status = ktap.EXIT_PASS if returncode == 0 else ktap.EXIT_FAIL
    reasons = ktap.verdict(log, status, timed_out,
                           timeout if not started else
                           "1 s after %r" % started)
    if not timed_out and returncode not in (0, 1):
        reasons.append("host test program died with status %d (sanitizer "
                       "report or crash: see the log)" % returncode)
    return log, reasons, time.time() - start


def run_host(prog, log_dir, tally, slub_debug=None, slab_mode=None):
    name = os.path.basename(prog)
    args, env, label = [], None, name
    if slub_debug is not None:
        args = [HOST_DEBUG_FILTER]
        env = dict(os.environ, SLUB_DEBUG=slub_debug)
        label = "%s-slub-debug-%s" % (name, slub_debug)
    elif slab_mode is not None:
        args = [HOST_MODE_FILTER]
        env = dict(os.environ, SLAB_MODE=slab_mode)
        label = "%s-slab-mode-%s" % (name, slab_mode)
    log_path = os.path.join(log_dir, "host-%s.log" % label)
    log, reasons, secs = run_host_program(prog, args, log_path, HOST_TIMEOUT,
                                          env=env)
    report("host:" + label, log, reasons, log_path, "%.1f s" % secs, tally)


def run_host_check(prog, arg, expect, started, log_dir, tally):
    """A host program run so that it must fail (like run_broken())."""
    name = os.path.basename(prog)
    log_path = os.path.join(log_dir, "harness-host-%s-%s.log" % (name, arg))
    log, reasons, secs = run_host_program(prog, [arg], log_path,
                                          HOST_TIMEOUT, started)
    expects = (expect,) if isinstance(expect, str) else expect
    ok = all(any(e in x for x in reasons) for e in expects)
    print("%-30s %s  (%.1f s)" % ("harness:host:%s" % arg,
                                  "ok, run failed as it must" if ok else
                                  "NOT DETECTED", secs))
    for x in reasons:
        print("    reported: " + x)
    if not ok:
        print("    expected a failure mentioning %r; log: %s"
              % (expect, log_path))
    tally.check(ok)


# Inputs a fuzzer makes after replaying its corpus unless told (make test
# passes FUZZ_MM_TEST_RUNS and FUZZ_MEMBLOCK_TEST_RUNS), and the longest
# input each makes.
FUZZ_RUNS = 1000
FUZZ_MAX_LEN = {"fuzz_mm": 2048, "fuzz_memblock": 4096}
FUZZ_CORPUS_ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "fuzz", "corpus")


def fuzz_corpus(prog):
    name = os.path.basename(prog)
    base = name[len("fuzz_"):] if name.startswith("fuzz_") else name
    base = base[:-len("_planted")] if base.endswith("_planted") else base
    return os.path.normpath(os.path.join(FUZZ_CORPUS_ROOT, base))


def fuzz_once(prog, runs, log_dir, timeout=None):
    """Replay the corpus, then `runs` new inputs (-seed=1).  New inputs go
    to a scratch folder under log_dir (never into the kept corpus), crash
    inputs to log_dir/fuzz-crash-<name>-*.  Returns what the run showed:
    ok, timed_out, returncode, secs, kept (corpus inputs), execs, speed,
    crashes (input files), failed_line (the first report) and log_path."""
    name = os.path.basename(prog)
    corpus = fuzz_corpus(prog)
    work = os.path.join(log_dir, "fuzz-work-" + name)
    prefix = os.path.join(log_dir, "fuzz-crash-%s-" % name)
    log_path = os.path.join(log_dir, "fuzz-%s.log" % name)
    if os.path.isdir(work):
        for f in os.listdir(work):
            os.unlink(os.path.join(work, f))
    os.makedirs(work, exist_ok=True)
    for f in os.listdir(log_dir):
        if f.startswith(os.path.basename(prefix)):
            os.unlink(os.path.join(log_dir, f))
    kept = len(os.listdir(corpus)) if os.path.isdir(corpus) else 0
    base = name[:-len("_planted")] if name.endswith("_planted") else name
    args = ["-runs=%d" % (kept + runs), "-seed=1",
            "-max_len=%d" % FUZZ_MAX_LEN.get(base, 4096),
            "-artifact_prefix=" + prefix, "-print_final_stats=1", work]
    if os.path.isdir(corpus):
        args.append(corpus)
    start = time.time()
    returncode, timed_out = run_with_deadline(
        [prog] + args, log_path, timeout or HOST_TIMEOUT)
    secs = time.time() - start
    text = open(log_path, errors="replace").read()
    stats = dict(re.findall(r"^stat::(\w+):\s+(\S+)", text, re.M))
    execs = stats.get("number_of_executed_units", "?")
    return dict(
        ok=not timed_out and returncode == 0, timed_out=timed_out,
        returncode=returncode, secs=secs, kept=kept, execs=execs,
        speed=("%.0f" % (int(execs) / secs)) if execs.isdigit() and secs
        else "?",
        crashes=sorted(os.path.join(log_dir, f) for f in os.listdir(log_dir)
                       if f.startswith(os.path.basename(prefix))),
        failed_line=next((l for l in text.splitlines() if ": FAILED" in l
                          or "ERROR: AddressSanitizer" in l
                          or "runtime error:" in l), None),
        log_path=log_path)


def run_fuzzer(prog, runs, log_dir, tally, must_fail=False):
    """fuzz_once(), counted: one test, passed or failed."""
    name = os.path.basename(prog)
    r = fuzz_once(prog, runs, log_dir)
    secs, crashes, failed_line = r["secs"], r["crashes"], r["failed_line"]
    timed_out, returncode, log_path = (r["timed_out"], r["returncode"],
                                       r["log_path"])
    if must_fail:
        ok = (not timed_out and returncode != 0 and crashes and
              failed_line is not None and ": FAILED" in failed_line)
        print("%-30s %s  (%.1f s)" % ("harness:fuzz:" + name,
                                      "ok, run failed as it must" if ok
                                      else "NOT DETECTED", secs))
        if failed_line:
            print("    reported: " + failed_line.strip())
        if not ok:
            print("    expected the model to fail and save its input; "
                  "log: " + log_path)
        tally.check(ok)
        return
    ok = r["ok"]
    print("%-30s %3d passed, %d failed  (%.1f s, %s corpus inputs + %d "
          "new, %s execs, %s exec/s)" % ("fuzz:" + name, 1 if ok else 0,
                                         0 if ok else 1, secs, r["kept"],
                                         runs, r["execs"], r["speed"]))
    if not ok:
        if timed_out:
            print("    FAIL: no result after %d s" % HOST_TIMEOUT)
        if failed_line:
            print("    FAIL: " + failed_line.strip())
        for c in crashes:
            print("    crash input: %s  (replay: %s %s)" % (c, prog, c))
        print("    log: " + log_path)
    tally.check(ok)


def run_boot(kernel, name, smp, mem, cmdline, log_dir, tally,
             extra_opts=None):
    log_path = os.path.join(log_dir, "boot-%s.log" % name)
    log, status, timed_out, secs, accel = boottest.run_boot(
        kernel, smp, mem, cmdline, BOOT_TIMEOUT, log_path,
        extra_opts=extra_opts or [])
    reasons = ktap.verdict(log, status, timed_out, BOOT_TIMEOUT)
    report("boot:" + name, log, reasons, log_path,
           "%.1f s, %s" % (secs, accel), tally)


# A test that prints lines shaped like reports and KTAP structure
# (broken_printed_structure): the verdict must be exactly its one failed
# case, in its own suite, with no watchdog and nothing misattributed.
PRINTED_STRUCTURE_SUITE = "broken_printed_structure"
PRINTED_STRUCTURE_VERDICT = ("test broken_printed_structure."
                             "fails_after_printed_lines failed: ")


def run_printed_structure(kernel, log_dir, tally):
    suite = PRINTED_STRUCTURE_SUITE
    log_path = os.path.join(log_dir, "harness-%s.log" % suite)
    log, status, timed_out, secs, _ = boottest.run_boot(
        kernel, "1", "128M", "test=" + suite, 60, log_path)
    reasons = ktap.verdict(log, status, timed_out, 60)
    ok = (len(reasons) == 1 and reasons[0].startswith(PRINTED_STRUCTURE_VERDICT)
          and [(x.name, [c[1] for c in x.cases]) for x in log.suites] ==
          [(suite, ["prints_report_and_ktap_shaped_lines",
                    "fails_after_printed_lines"])])
    print("%-30s %s  (%.1f s)" % ("harness:" + suite,
                                  "ok, printed lines are not structure" if ok
                                  else "WRONG VERDICT", secs))
    for x in reasons:
        print("    reported: " + x)
    if not ok:
        print("    expected only %r..., 1 passed and 1 failed (counted %d "
              "passed, %d failed); log: %s"
              % (PRINTED_STRUCTURE_VERDICT, ktap.counts(log)[0],
                 ktap.counts(log)[1], log_path))
    tally.check(ok)


def run_broken(kernel, suite, expect, timeout, smp, log_dir, tally):
    log_path = os.path.join(log_dir, "harness-%s.log" % suite)
    log, status, timed_out, secs, _ = boottest.run_boot(
        kernel, smp, "128M", "test=" + suite, timeout, log_path)
    reasons = ktap.verdict(log, status, timed_out, timeout)
    ok = bool(reasons) and any(expect in r for r in reasons)
    print("%-30s %s  (%.1f s)" % ("harness:" + suite,
                                  "ok, run failed as it must" if ok else
                                  "NOT DETECTED", secs))
    for x in reasons:
        print("    reported: " + x)
    if not ok:
        print("    expected a failure mentioning %r; log: %s" % (expect,
                                                              log_path))
    tally.check(ok)


# One ISO, two firmwares, two machines (scripts/mkiso.sh builds a hybrid
# image): each boots with test=none and must tell its own story, GRUB's
# menu entry included (its output reaches the serial port under both),
# and GRUB must print no error (a module mkiso.sh left out would).
#   (name, firmware, machine options, lines the log must hold)
# Under SeaBIOS: the BIOS E820 map and an ACPI 1.0 RSDP (RSDT); under OVMF:
# the EFI memory map (runtime ranges kept reserved) and an ACPI 2.0 RSDP
# whose XSDT is walked.
FIRMWARE_SMP = "2"
GRUB_ENTRY = "Booting `teaching kernel'"
BIOS_STORY = ["boot: BIOS firmware",
              "boot: memory map from the multiboot2 memory map tag (E820 "
              "types, from the BIOS)",
              "acpi: ACPI 1.0 (RSDP revision 0",
              "smp: 2 CPUs online"]
UEFI_STORY = ["boot: UEFI firmware, EFI system table at",
              "boot: memory map from the EFI memory map tag:",
              "acpi: ACPI 2.0+ (RSDP revision 2",
              "XSDT with 64-bit addresses",
              "acpi: RSDP from multiboot2 ACPI 2.0 tag, XSDT",
              "smp: 2 CPUs online"]
FIRMWARE_BOOTS = [
    ("bios-pc", "bios", [], BIOS_STORY),
    ("bios-q35", "bios", ["-machine", "q35"], BIOS_STORY),
    ("uefi-pc", "uefi", [], UEFI_STORY),
    ("uefi-q35", "uefi", ["-machine", "q35"], UEFI_STORY),
]


def run_firmware_checks(kernel, log_dir, tally):
    for name, firmware, opts, story in FIRMWARE_BOOTS:
        log_path = os.path.join(log_dir, "harness-firmware-%s.log" % name)
        log, status, timed_out, secs, _ = boottest.run_boot(
            kernel, FIRMWARE_SMP, "128M", "test=none", BOOT_TIMEOUT,
            log_path, extra_opts=opts, firmware=firmware)
        problems = ktap.verdict(log, status, timed_out, BOOT_TIMEOUT)
        with open(log_path, errors="replace") as f:
            raw = f.read()
        if GRUB_ENTRY not in raw:
            problems.append("GRUB's %r is not in the serial log" % GRUB_ENTRY)
        if log.grub_errors:
            problems.append("GRUB said: " + "; ".join(log.grub_errors))
        problems += ["no line containing %r" % want for want in story
                     if not any(want in l for l in log.lines)]
        ok = not problems
        print("%-30s %s  (%.1f s)" % ("firmware:" + name,
                                      "ok, the boot says so" if ok else
                                      "FAILED", secs))
        for p in problems:
            print("    " + p)
        if not ok:
            print("    log: " + log_path)
        tally.check(ok)


# A real machine has no exit port (arch/x86_64/qemu.c): qemu_exit=off makes
# QEMU one.  The kernel must say how the run ended and halt without
# touching the port (QEMU then never ends by itself), and nothing may
# follow: no hard LOCKUP from the watchdog, whose heartbeat NMI still
# comes while the CPU halts.  With watchdog_thresh=1 the seconds the
# harness waits after the line are several watchdog periods (under TCG the
# guest's clock is the host's: a busy host makes the wait no shorter in
# guest time).
HALT_CMDLINE = "test=none qemu_exit=off watchdog_thresh=1"
HALT_LINE = ("halted: the run passed; no QEMU exit port used (qemu_exit=off): "
             "switch the machine off or reset it")
HALT_LINGER_S = 3


def run_halt_without_exit(kernel, log_dir, tally):
    log_path = os.path.join(log_dir, "harness-firmware-halt.log")
    log, status, timed_out, secs, _ = boottest.run_boot(
        kernel, "1", "128M", HALT_CMDLINE, BOOT_TIMEOUT, log_path,
        linger=("halted:", HALT_LINGER_S))
    problems = []
    if timed_out:
        problems.append("no 'halted:' line within %d s" % BOOT_TIMEOUT)
    halted = [i for i, l in enumerate(log.lines) if HALT_LINE in l]
    if not halted:
        problems.append("no line %r" % HALT_LINE)
    else:
        after = [l.strip() for l in log.lines[halted[0] + 1:] if l.strip()]
        if after:
            problems.append("the kernel spoke after halting: %r" % after[0])
    if status in (ktap.EXIT_PASS, ktap.EXIT_FAIL, ktap.EXIT_PANIC):
        problems.append("QEMU exited with %d: the exit port was written"
                        % status)
    ok = not problems
    print("%-30s %s  (%.1f s)" % ("firmware:halt-without-exit",
                                  "ok, said so and halted" if ok else
                                  "FAILED", secs))
    for p in problems:
        print("    " + p + "; log: " + log_path)
    tally.check(ok)


# A panic where nothing can end the machine (no isa-debug-exit, as on real
# hardware) must be the last thing the kernel says: the panicking CPU halts
# with NMIs open, and the watchdog's heartbeat NMI must not report a second
# "hard LOCKUP".  -icount sleep=off lets guest time run ahead while every
# CPU halts, so the seconds after the panic are many guest watchdog periods
# (watchdog_thresh=1); the wait for the panic itself is generous.
PANIC_ALONE_SUITE = "broken_pagefault"
PANIC_END_MARKER = "---[ end Kernel panic"
PANIC_LINGER_S = 5
PANIC_ALONE_OPTS = ["-icount", "shift=0,sleep=off"]


def run_panic_alone(kernel, log_dir, tally):
    log_path = os.path.join(log_dir, "harness-panic-without-exit-device.log")
    start = time.time()
    _, _, timed_out, secs, _ = boottest.run_boot(
        kernel, "2", "128M", "test=%s watchdog_thresh=1" % PANIC_ALONE_SUITE,
        BOOT_TIMEOUT, log_path, extra_opts=PANIC_ALONE_OPTS,
        exit_device=False, linger=(PANIC_END_MARKER, PANIC_LINGER_S))
    with open(log_path, errors="replace") as f:
        text = f.read()
    panics = text.count(": Kernel panic - not syncing")  # not the end line
    problems = []
    if timed_out:
        problems.append("no panic within %d s" % BOOT_TIMEOUT)
    if "hard LOCKUP" in text:
        problems.append("a hard LOCKUP was reported after the panic")
    if panics != 1:
        problems.append("%d panics (one expected)" % panics)
    ok = not problems
    print("%-30s %s  (%.1f s)" % ("harness:panic-without-exit",
                                  "ok, one panic and silence" if ok else
                                  "FAILED", time.time() - start))
    for p in problems:
        print("    " + p + "; log: " + log_path)
    tally.check(ok)


# An NMI on the panicking CPU after the panic runs no handler
# (arch/x86_64/nmi.c): broken_nmi_after_panic registers a handler that
# prints NMI_AFTER_PANIC_MARKER whenever it runs while the kernel is dying,
# then panics on cpu0 with no exit device, where the PIT heartbeat NMI
# keeps arriving (-icount, as for panic-without-exit above; one CPU: under
# -icount a halted second CPU does not answer NMIs within the first
# second, and the watchdog would panic first).  Nothing of
# the handler's and no second panic may follow the panic line.  The
# watchdog's stop in panic() is a second guard behind this one that no boot
# can show missing: once this guard holds, no watchdog check runs after a
# panic (the panicking CPU has IRQs off and runs no NMI handler, every
# other CPU is stopped or halts in printk_emergency_begin()).
NMI_AFTER_PANIC_SUITE = "broken_nmi_after_panic"
NMI_AFTER_PANIC_MARKER = "broken_nmi_after_panic: NMI handler ran after the panic"
NMI_AFTER_PANIC_RAN = re.compile(r"# panic_with_a_printing_nmi_handler: the "
                                 r"handler ran ([1-9]\d*) times before the panic")
PANIC_LINE = ": Kernel panic - not syncing"   # not the end line


def run_nmi_after_panic(kernel, log_dir, tally):
    log_path = os.path.join(log_dir, "harness-%s.log" % NMI_AFTER_PANIC_SUITE)
    start = time.time()
    _, _, timed_out, secs, _ = boottest.run_boot(
        kernel, "1", "128M",
        "test=%s watchdog_thresh=1" % NMI_AFTER_PANIC_SUITE, BOOT_TIMEOUT,
        log_path, extra_opts=PANIC_ALONE_OPTS, exit_device=False,
        linger=(PANIC_END_MARKER, PANIC_LINGER_S))
    with open(log_path, errors="replace") as f:
        lines = f.read().splitlines()
    first_panic = next((i for i, x in enumerate(lines) if PANIC_LINE in x),
                       None)
    problems = []
    if timed_out:
        problems.append("no panic within %d s" % BOOT_TIMEOUT)
    if not any(NMI_AFTER_PANIC_RAN.search(x) for x in lines):
        problems.append("the handler never ran before the panic, so its "
                        "silence proves nothing")
    if first_panic is not None:
        after = lines[first_panic + 1:]
        markers = sum(NMI_AFTER_PANIC_MARKER in x for x in after)
        panics = sum(PANIC_LINE in x for x in after)
        if markers:
            problems.append("an NMI handler ran %d times after the panic"
                            % markers)
        if panics:
            problems.append("%d more panics after the first" % panics)
        if any("hard LOCKUP" in x for x in after):
            problems.append("a hard LOCKUP was reported after the panic")
    elif not timed_out:
        problems.append("no panic line")
    ok = not problems
    print("%-30s %s  (%.1f s)" % ("harness:nmi-after-panic",
                                  "ok, no handler after the panic" if ok
                                  else "FAILED", time.time() - start))
    for p in problems:
        print("    " + p + "; log: " + log_path)
    tally.check(ok)


# Panics that must stop every CPU once (STOP_CHECKS: suite, what the
# harness must report, timeout, SMP).  broken_deadlock: the AB-BA deadlock
# on four CPUs, reported by the watchdog.  broken_double_panic: every CPU
# calls panic() at once.  Either way there is one panic line (a second CPU
# that arrives halts in printk_emergency_begin(), kernel/panic.c), and the
# panic stops every other online CPU with an NMI that prints its backtrace
# (nmi_stop_other_cpus(), arch/x86_64/nmi.c): the deadlocked CPUs and the
# idle ones alike.
STOP_CHECKS = [
    ("broken_deadlock", "watchdog: hard LOCKUP", 30, "4"),
    ("broken_double_panic", "panic: broken_double_panic: cpu", 30, "4"),
]
CPUS_ONLINE = re.compile(r"cpu\d+: smp: (\d+) CPUs online")
PANIC_BY = re.compile(r"cpu(\d+): Kernel panic - not syncing")
NMI_BACKTRACE = re.compile(r"NMI backtrace for cpu(\d+) ")


def run_stop_check(kernel, suite, expect, timeout, smp, log_dir, tally):
    log_path = os.path.join(log_dir, "harness-%s.log" % suite)
    log, status, timed_out, secs, _ = boottest.run_boot(
        kernel, smp, "128M", "test=" + suite, timeout, log_path)
    reasons = ktap.verdict(log, status, timed_out, timeout)
    with open(log_path, errors="replace") as f:
        text = f.read()
    problems = []
    if not any(expect in r for r in reasons):
        problems.append("no failure mentioning %r" % expect)
    online = CPUS_ONLINE.search(text)
    panickers = PANIC_BY.findall(text)
    if len(panickers) != 1:
        problems.append("%d panic lines (one expected)" % len(panickers))
    if not online:
        problems.append("no 'smp: N CPUs online' line")
    elif panickers:
        told = set(int(c) for c in NMI_BACKTRACE.findall(text))
        missing = [c for c in range(int(online.group(1)))
                   if c != int(panickers[0]) and c not in told]
        if missing:
            problems.append("no 'NMI backtrace for cpuN' line for %s (the "
                            "panic must stop every other online CPU)"
                            % ", ".join("cpu%d" % c for c in missing))
    ok = not problems
    print("%-30s %s  (%.1f s)" % ("harness:" + suite,
                                  "ok, one panic, every CPU stopped" if ok
                                  else "NOT DETECTED", secs))
    for x in reasons:
        print("    reported: " + x)
    for p in problems:
        print("    " + p + "; log: " + log_path)
    tally.check(ok)


# scripts/mutate.py --check: the mutant list applies, and one planted bug
# is killed while a no-op survives (scripts/mutate.py explains).  Its
# deadline covers two suite runs on a loaded 2-core machine.
MUTATE_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                             "..", "..", "scripts", "mutate.py")
MUTATE_CHECK_TIMEOUT = 600


def run_mutate_check(log_dir, tally):
    """Run mutate.py --check, show its lines, count its verdict."""
    log_path = os.path.join(log_dir, "mutate-check.log")
    start = time.time()
    returncode, timed_out = run_with_deadline(
        [sys.executable, MUTATE_SCRIPT, "--check",
         "--out", os.path.join(log_dir, "mutate-check")],
        log_path, MUTATE_CHECK_TIMEOUT)
    text = open(log_path, errors="replace").read()
    m = re.search(r"^mutate: (\d+) passed, (\d+) failed$", text, re.M)
    for line in text.splitlines():
        if line.startswith("mutate:") and not line.startswith(
                "mutate: ") or line.startswith("    "):
            print(line)
    if m and not timed_out:
        passed, failed = int(m.group(1)), int(m.group(2))
        if returncode and not failed:
            failed = 1
    else:
        passed, failed = 0, 1
        print("%-30s FAIL: %s after %.0f s; log: %s" % (
            "mutate:check", "no result" if timed_out else
            "no summary line (exit %d)" % returncode, time.time() - start,
            log_path))
    tally.add(passed, failed)


# scripts/check-docs.py: every file, function and make target README.md and
# docs/ quote exists, and its self-test (a planted bad name) is reported.
DOCS_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                           "..", "..", "scripts", "check-docs.py")
DOCS_CHECK_TIMEOUT = 120


def run_docs_check(log_dir, tally):
    """check-docs.py --self-test, then the docs themselves: two checks."""
    for name, args in (("docs:self-test", ["--self-test"]),
                       ("docs:names", [])):
        log_path = os.path.join(log_dir, name.replace(":", "-") + ".log")
        returncode, timed_out = run_with_deadline(
            [sys.executable, DOCS_SCRIPT] + args, log_path,
            DOCS_CHECK_TIMEOUT)
        text = open(log_path, errors="replace").read()
        ok = returncode == 0 and not timed_out
        print("%-30s %s" % (name, "ok" if ok else "FAIL; log: " + log_path))
        if not ok:
            for line in text.splitlines():
                print("    " + line)
        tally.check(ok)


# A panic while another CPU drains its NMI buffer to a slow UART under the
# console lock (tests/harness/broken_tests.c, broken_panic_during_drain):
# the panic must wait for that CPU's piece instead of reading the buffer at
# the same time, so each of its numbered lines is in the log exactly once
# and whole, and there is one panic.
PANIC_DRAIN_SUITE = "broken_panic_during_drain"
PANIC_DRAIN_LINES = 48
PANIC_DRAIN_LINE = re.compile(r"^\[\s*\d+\.\d+\] cpu1: NMI: broken_drain: NMI "
                              r"line\s+(\d+) of 48, padded so that the lines "
                              r"fill the buffer well$")


def run_panic_during_drain(kernel, log_dir, tally):
    log_path = os.path.join(log_dir, "harness-%s.log" % PANIC_DRAIN_SUITE)
    _, _, timed_out, secs, _ = boottest.run_boot(
        kernel, "2", "128M", "test=" + PANIC_DRAIN_SUITE, 60, log_path)
    with open(log_path, errors="replace") as f:
        lines = f.read().splitlines()
    seen = [0] * PANIC_DRAIN_LINES
    for line in lines:
        m = PANIC_DRAIN_LINE.match(line)
        if m and int(m.group(1)) < PANIC_DRAIN_LINES:
            seen[int(m.group(1))] += 1
    panics = sum(": Kernel panic - not syncing" in x for x in lines)
    problems = []
    if timed_out:
        problems.append("no panic within 60 s")
    if panics != 1:
        problems.append("%d panics (one expected)" % panics)
    bad = [i for i, n in enumerate(seen) if n != 1]
    if bad:
        problems.append("NMI lines not in the log exactly once, whole: %s"
                        % ", ".join("%d (%dx)" % (i, seen[i]) for i in bad[:8]))
    ok = not problems
    print("%-30s %s  (%.1f s)" % ("harness:panic-during-drain",
                                  "ok, every line once" if ok else "FAILED",
                                  secs))
    for p in problems:
        print("    " + p + "; log: " + log_path)
    tally.check(ok)


# Bad input on the command line gets a clear answer (kernel/params.c):
# each bad value and unknown option one line, the boot going on with the
# defaults; characters GRUB's script language would eat (; $ } quotes)
# reach the kernel exactly as typed; and a line longer than the kernel
# keeps is refused in a panic that says so, not quietly cut.
BAD_OPTIONS_CMDLINE = ("test=boot.every_cpu_runs_on_its_guarded_stack "
                       "watchdog_thresh=4294967296 seed=abc acpi=OFF "
                       "page_poison=off bogus=1 slub_debug=F,no_such_cache "
                       "msg='a;b$c}d\"e' nowatchdog=0")
BAD_OPTIONS_EXPECT = [
    "command line: watchdog_thresh=4294967296 is not allowed (a number "
    "from 1 to 3600 seconds; using 4)",
    "command line: seed=abc is not allowed",
    "command line: acpi=OFF is not allowed (one of: on, off; using on)",
    "command line: unknown option 'bogus' ignored",
    "command line: unknown option 'msg' ignored",
    "mm: page poisoning off",
    "slub_debug: no cache named 'no_such_cache' yet",
]
BENCH_NO_MATCH_CMDLINE = "bench=nonsense"
BENCH_NO_MATCH_EXPECT = "bench: bench=nonsense matches no group; the groups are:"
LONG_CMDLINE_BYTES = 2100     # more than BOOT_CMDLINE_MAX - 1
LONG_CMDLINE_EXPECT = "more than the 2047 this kernel keeps: refusing"


def run_bad_options(kernel, log_dir, tally):
    start = time.time()
    problems = []
    log_path = os.path.join(log_dir, "harness-bad-options.log")
    log, status, timed_out, _, _ = boottest.run_boot(
        kernel, "2", "128M", BAD_OPTIONS_CMDLINE, BOOT_TIMEOUT, log_path)
    with open(log_path, errors="replace") as f:
        text = f.read()
    problems += ["the boot failed: " + r for r in
                 ktap.verdict(log, status, timed_out, BOOT_TIMEOUT)]
    echo = 'command line (%d bytes): "%s"' % (len(BAD_OPTIONS_CMDLINE),
                                             BAD_OPTIONS_CMDLINE)
    if echo not in text:
        problems.append("the kernel did not get the line as typed (%s)"
                        % echo)
    problems += ["no line %r" % e for e in BAD_OPTIONS_EXPECT
                 if e not in text]
    long_path = os.path.join(log_dir, "harness-long-cmdline.log")
    long_line = "test=boot " + "x" * (LONG_CMDLINE_BYTES - len("test=boot "))
    log, status, timed_out, _, _ = boottest.run_boot(
        kernel, "1", "128M", long_line, BOOT_TIMEOUT, long_path)
    reasons = ktap.verdict(log, status, timed_out, BOOT_TIMEOUT)
    if not any(LONG_CMDLINE_EXPECT in r for r in reasons):
        problems.append("a %d-byte line was not refused (%s)"
                        % (LONG_CMDLINE_BYTES, "; ".join(reasons) or
                           "the boot passed"))
    # test=none: the boot story alone, no suite, and a pass.
    none_path = os.path.join(log_dir, "harness-test-none.log")
    log, status, timed_out, _, _ = boottest.run_boot(
        kernel, "2", "128M", "test=none", BOOT_TIMEOUT, none_path)
    reasons = ktap.verdict(log, status, timed_out, BOOT_TIMEOUT)
    if reasons or status != ktap.EXIT_PASS:
        problems.append("test=none did not pass: %s" % ("; ".join(reasons)
                                                        or "exit %s" % status))
    if log.suites or log.totals != (0, 0, 0):
        problems.append("test=none ran %d suites (totals %s)"
                        % (len(log.suites), log.totals))
    if not any("smp: 2 CPUs online" in l for l in log.lines):
        problems.append("test=none: the boot story is missing (no 'smp: 2 "
                        "CPUs online' line)")
    bench_path = os.path.join(log_dir, "harness-bench-no-match.log")
    _, status, timed_out, _, _ = boottest.run_boot(
        kernel, "1", "128M", BENCH_NO_MATCH_CMDLINE, BOOT_TIMEOUT, bench_path)
    with open(bench_path, errors="replace") as f:
        text = f.read()
    if BENCH_NO_MATCH_EXPECT not in text:
        problems.append("%s did not list the groups" % BENCH_NO_MATCH_CMDLINE)
    if status == ktap.EXIT_PASS or timed_out:
        problems.append("%s did not fail the run" % BENCH_NO_MATCH_CMDLINE)
    ok = not problems
    print("%-30s %s  (%.1f s)" % ("harness:bad-options",
                                  "ok, each one named" if ok else "FAILED",
                                  time.time() - start))
    for p in problems:
        print("    " + p)
    if not ok:
        print("    logs: %s, %s, %s, %s" % (log_path, long_path, none_path,
                                          bench_path))
    tally.check(ok)


# The watchdog's stretch for oversubscribed hosts (boottest.py,
# watchdog_thresh_for()): (SMP, command line, QEMU options, host CPUs,
# the watchdog_thresh= the harness must add, or None).  Without it 32
# vCPUs on 2 host cores reported a false hard LOCKUP in the memory-pressure
# storm's zone-lock convoy; broken_deadlock (STOP_CHECKS, 4 vCPUs) shows a
# real lockup is still reported under the stretch.
WATCHDOG_STRETCH_CASES = [
    ("32", "test=nmi_storm*", [], 2, 64),
    ("4", "", [], 2, 8),
    ("6,sockets=2,cores=3", "", [], 2, 12),
    ("2", "", [], 2, None),
    ("1", "", [], 1, None),
    ("32", "watchdog_thresh=9", [], 2, None),
    ("32", "nowatchdog", [], 2, None),
    ("32", "", ["-icount", "shift=0"], 2, None),
    ("64", "", [], 1, 256),
    # Flags take on/off now: nowatchdog=0 leaves the watchdog on, so it
    # still needs the stretch; a bad or repeated value counts as the
    # kernel counts it (the last one, a bad one falling to the default).
    ("32", "nowatchdog=0", [], 2, 64),
    ("32", "nowatchdog=off", [], 2, 64),
    ("32", "nowatchdog=maybe", [], 2, 64),
    ("32", "nowatchdog=yes", [], 2, None),
    ("32", "watchdog_thresh=abc", [], 2, 64),
    ("32", "watchdog_thresh=0", [], 2, 64),
    ("32", "watchdog_thresh=9 watchdog_thresh=x", [], 2, 64),
    ("32", "nowatchdog nowatchdog=off", [], 2, 64),
    ("32", "watchdog_thresh=0x10", [], 2, None),
]


def run_watchdog_stretch_check(tally):
    bad = []
    for smp, cmdline, opts, host, want in WATCHDOG_STRETCH_CASES:
        got = boottest.watchdog_thresh_for(smp, cmdline, opts, host)
        if got != want:
            bad.append("SMP=%s %r %s on %d host CPUs: %s, not %s"
                       % (smp, cmdline, opts, host, got, want))
    print("%-30s %s" % ("harness:watchdog-stretch",
                        "ok, %d cases" % len(WATCHDOG_STRETCH_CASES)
                        if not bad else "FAILED"))
    for b in bad:
        print("    " + b)
    tally.check(not bad)


# Too little memory gets one clear answer, fast: below the kernel's minimum
# (include/memblock.h: MEMBLOCK_MIN_FREE, MEM=16M) one panic line naming
# what there is and what is needed; well below it GRUB cannot even load the
# image, and its own error (on the serial port, scripts/mkiso.sh) is what
# the harness reports (MEM=12M is on the edge: GRUB fails there or not,
# by what it has allocated).  (MEM, what the failure must say, timeout s.)
SMALL_MEMORY_CHECKS = [
    ("14M", "panic: memory: too little to run: ", 60),
    ("14M", "this kernel needs 8192 KiB free (MEM=16M or more)", 60),
    ("6M", "GRUB could not start the kernel: out of memory.", 60),
]


def run_small_memory(kernel, log_dir, tally):
    start = time.time()
    problems = []
    results = {}
    for mem, expect, timeout in SMALL_MEMORY_CHECKS:
        if mem not in results:
            log_path = os.path.join(log_dir, "harness-mem-%s.log" % mem)
            log, status, timed_out, secs, _ = boottest.run_boot(
                kernel, "1", mem, "", timeout, log_path)
            results[mem] = (ktap.verdict(log, status, timed_out, timeout),
                            log_path)
        reasons, log_path = results[mem]
        if not any(expect in r for r in reasons):
            problems.append("MEM=%s: no failure saying %r (said: %s); log: %s"
                            % (mem, expect, "; ".join(reasons) or
                               "it passed", log_path))
        elif len(reasons) != 1:
            problems.append("MEM=%s: %d reasons, one expected: %s"
                            % (mem, len(reasons), "; ".join(reasons)))
    ok = not problems
    print("%-30s %s  (%.1f s)" % ("harness:too-little-memory",
                                  "ok, one clear answer each" if ok
                                  else "FAILED", time.time() - start))
    for mem, (reasons, _) in sorted(results.items()):
        for r in reasons:
            print("    MEM=%s reported: %s" % (mem, r))
    for p in problems:
        print("    " + p)
    tally.check(ok)


# Nothing the machine has is left out in silence: the SRAT's nodes
# (arch/x86_64/srat.c reads them into numa_firmware; acpi.c says in a line
# how many nodes, memory ranges and CPUs it found) and CPUs beyond NR_CPUS
# (the MADT's count) each get a line saying what is done with them.
# (name, SMP, memory, QEMU options, lines that must be there, and
# optionally words for the command line.)
NUMA_OPTS = numa_opts([("0", 64), ("1", 64)])
DROP_CHECKS = [
    # Node 0's memory is two ranges: QEMU leaves out 640 KiB to 1 MiB.
    # Each node's free memory and numastat are in the log.
    ("numa-2-nodes", "2", "128M", NUMA_OPTS,
     ["numa: SRAT: 2 nodes, 3 memory ranges, 2 CPUs",
      "numa: 2 nodes from the SRAT",
      "numa: node 1 (proximity domain 1): 63 MiB of RAM, APIC ids {1}",
      "mm: node 0: ", "mm: node 1: ",
      "numastat: node 1 pages   numa_hit "]),
    # numa=off: the SRAT is read, and one node used all the same.
    ("numa-off", "2", "128M", NUMA_OPTS,
     ["numa: off (command line): one node, all memory and every CPU",
      "mm: node 0: "], "numa=off"),
    ("smp70", "70", "128M", [],
     ["acpi: 6 enabled CPUs skipped: this kernel runs at most NR_CPUS = 64 "
      "CPUs", "smp: 64 CPUs online"]),
]
DROP_CHECK_FILTER = "test=boot.text_is_executable_and_read_only"


def run_drop_checks(kernel, log_dir, tally):
    for check in DROP_CHECKS:
        name, smp, mem, opts, expect = check[:5]
        words = " ".join(check[5:] + (DROP_CHECK_FILTER,))
        log_path = os.path.join(log_dir, "harness-%s.log" % name)
        log, status, timed_out, secs, _ = boottest.run_boot(
            kernel, smp, mem, words, BOOT_TIMEOUT, log_path,
            extra_opts=opts)
        with open(log_path, errors="replace") as f:
            text = f.read()
        problems = ["the boot failed: " + r for r in
                    ktap.verdict(log, status, timed_out, BOOT_TIMEOUT)]
        problems += ["no line %r" % e for e in expect if e not in text]
        ok = not problems
        print("%-30s %s  (%.1f s)" % ("harness:" + name,
                                      "ok, what is left out is named" if ok
                                      else "FAILED", secs))
        for p in problems:
            print("    " + p + "; log: " + log_path)
        tally.check(ok)


# What the tools around a boot say when something is wrong: QEMU's own
# error is quoted (MEM=abc), two configurations never share a log, a
# missing EXTRA_TESTS file is named, and quitting `make run` with Ctrl-A X
# is an interrupted run (exit status 130), not a pass.
ROOT = os.path.normpath(os.path.join(os.path.dirname(
    os.path.abspath(__file__)), "..", ".."))
QEMU_BAD_MEM_SAYS = "qemu-system-x86_64: -m abc: Parameter 'size' expects"
MISSING_EXTRA = "tests/no_such_test_file.c"
CTRL_A_X = b"\x01x"
INTERACTIVE_WAIT_S = 30


def check_interrupted_run(kernel):
    """Boot with --interactive, send Ctrl-A X once the kernel speaks."""
    proc = subprocess.Popen(
        [sys.executable, os.path.join(ROOT, "tests", "harness",
                                      "boottest.py"),
         "--kernel", kernel, "--interactive"],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT)
    seen = b""
    deadline = time.time() + INTERACTIVE_WAIT_S
    while b"cpu0: " not in seen and time.time() < deadline:
        chunk = proc.stdout.read1(4096)
        if not chunk:
            break
        seen += chunk
    proc.stdin.write(CTRL_A_X)
    proc.stdin.flush()
    try:
        out, _ = proc.communicate(timeout=INTERACTIVE_WAIT_S)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return proc.returncode, (seen + out).decode("utf-8", "replace")


GDB_WAIT_S = 60
# gdb waits this long for QEMU's stub to listen (it retries by itself), and
# the commands check this long for the boot to reach the fixture: deadlines
# for what never comes, far beyond a loaded host's boot.
GDB_CONNECT_S = 120
GDB_FIXTURE_WAIT_S = 600


def free_tcp_port():
    """A port nobody listens on now, for QEMU's gdb stub (other checks and
    other trees may run at the same time)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_gdb_qemu(kernel, cmdline, smp, log_dir, serial):
    """QEMU halted (-S) with its gdb stub on a free port: (process, port)."""
    port = free_tcp_port()
    cmdline = boottest.with_watchdog_stretch(
        smp, cmdline, shlex.split(os.environ.get("QEMU_OPTS", "")))
    iso = boottest.build_iso(kernel, cmdline, log_dir)
    cmd, _ = boottest.qemu_command(iso, smp, "128M")
    qemu = subprocess.Popen(cmd + ["-serial", serial, "-monitor", "none",
                                   "-gdb", "tcp:127.0.0.1:%d" % port, "-S"],
                            stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    return qemu, port


def run_gdb(gdbinit, args, timeout):
    """gdb in batch mode: the gdbinit (which connects) and then args; it
    retries the connection until QEMU listens (no fixed wait).  Returns
    what it printed."""
    try:
        return subprocess.run(
            ["gdb", "-batch", "-nx",
             "-ex", "set tcp connect-timeout %d" % GDB_CONNECT_S,
             "-x", gdbinit] + args, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, timeout=timeout,
            stdin=subprocess.DEVNULL).stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        return "(gdb timed out after %d s)" % timeout


def check_gdb(kernel, log_dir):
    """`make debug`'s gdbinit, in batch mode against QEMU's gdb stub: it
    stops in kernel_main at a line of main.c, prints no symbol-table
    warnings, and the backtrace ends at kernel_main (zero return address)."""
    if not shutil.which("gdb"):
        return []
    qemu, port = start_gdb_qemu(kernel, "", "1", log_dir, "null")
    gdbinit = os.path.join(log_dir, "harness-gdbinit")
    boottest.write_gdbinit(gdbinit, kernel, port)
    try:
        out = run_gdb(gdbinit, ["-ex", "bt"], GDB_WAIT_S + GDB_CONNECT_S)
    finally:
        qemu.kill()
        qemu.wait()
    problems = []
    if not re.search(r"^Breakpoint 1, kernel_main \(.*\) at kernel/main\.c:",
                     out, re.M):
        problems.append("gdb: did not stop in kernel_main at a line of "
                        "kernel/main.c")
    if "not in symtab" in out:
        problems.append("gdb: 'not in symtab' warnings")
    frames = re.findall(r"^#(\d+) ", out, re.M)
    if len(frames) > 2 or not re.search(r"^#1  0x0+ in \?\? \(\)$", out,
                                        re.M) and len(frames) > 1:
        problems.append("gdb: the backtrace goes past kernel_main")
    if problems:
        problems[-1] += "; gdb said: " + " | ".join(out.splitlines()[-6:])
    return problems


# ---- the allocator commands of scripts/gdb/ against the gdb_fixture suite ----
# tests/kernel/gdb_fixture_test.c builds a known state, prints what the
# kernel knows of it ("gdb_fixture: WHAT key=value ..." lines) and calls
# gdb_checkpoint() with that state held still.  The check stops there, runs
# every command, and compares each with the kernel's lines.

GDB_FIXTURE_LINE = re.compile(r"gdb_fixture: (\w+) (.*)$")
GDB_SECTION = "@@@ "


def fixture_facts(text):
    """{WHAT: {key: value}} from the fixture's lines; numbers as ints,
    comma lists as lists."""
    facts = {}
    for line in text.splitlines():
        m = GDB_FIXTURE_LINE.search(line)
        if not m:
            continue
        d = facts.setdefault(m.group(1), {})
        for key, val in re.findall(r"(\w+)=(\S+)", m.group(2)):
            parts = [int(v, 0) if re.match(r"^(0x[0-9a-f]+|\d+)$", v) else v
                     for v in val.split(",")]
            d[key] = parts if "," in val else parts[0]
    return facts


def gdb_set_fixture_vars(serial_log):
    """Run inside gdb (a `python` command): $fx_WHAT_key for every number
    the fixture printed, so the commands can be given its addresses."""
    import gdb  # only inside gdb
    with open(serial_log, errors="replace") as f:
        facts = fixture_facts(f.read())
    for what, d in facts.items():
        for key, val in d.items():
            if isinstance(val, int):
                gdb.set_convenience_variable("fx_%s_%s" % (what, key), val)


# (section name, gdb command): every command at least once; addresses come
# from the fixture's lines through gdb_set_fixture_vars().
GDB_FIXTURE_COMMANDS = [
    ("slabinfo", "slabinfo"),
    ("sheaves", "sheaves gdb_fixture $fx_cache_cpu"),
    ("barn", "barn gdb_fixture"),
    ("slab", "slab $fx_slab_object"),
    ("slab-parked", "slab $fx_parked_first"),
    ("page-kept", "page $fx_pages_kept_pfn"),
    ("page-deferred", "page $fx_pages_deferred_pfn"),
    ("page-object", "page $fx_slab_object"),
    ("page-buddy", "page $fx_buddy_buddy_pfn"),
    ("page-pcp", "page $fx_pcp_pcp_pfn"),
    ("buddyinfo", "buddyinfo"),
    ("pcp", "pcp"),
    ("deferred", "deferred"),
    ("nolock_stats", "nolock_stats"),
] + [("help-" + c, "help " + c) for c in boottest.GDB_COMMAND_NAMES]


def gdb_sections(out):
    """{section name: its output lines} of a run of GDB_FIXTURE_COMMANDS."""
    sections, cur = {}, None
    for line in out.splitlines():
        if line.startswith(GDB_SECTION):
            cur = sections.setdefault(line[len(GDB_SECTION):].strip(), [])
        elif cur is not None:
            cur.append(line)
    return sections


def table_row(lines, first):
    """The whitespace-split row whose first word is `first`, or None."""
    for line in lines:
        words = line.split()
        if words and words[0] == first:
            return words
    return None


def judge_gdb_commands(out, facts):
    """What in the commands' output disagrees with the kernel's lines."""
    problems = []
    sec = gdb_sections(out)

    def expect(section, ok, what):
        if not ok:
            problems.append("%s: %s; it printed: %s" % (
                section, what, " | ".join(sec.get(section, ["(nothing)"])[:12])))

    cache, barn, slab = facts["cache"], facts["barn"], facts["slab"]
    parked, pages = facts["parked"], facts["pages"]
    buddy, pcp, nolock = facts["buddy"], facts["pcp"], facts["nolock"]
    cpu = cache["cpu"]

    # slabinfo: the slabs' count, and where the rest of "inuse" is parked.
    lines = sec.get("slabinfo", [])
    head = table_row(lines, "name") or []
    row = table_row(lines, "gdb_fixture")
    col = lambda r, name: int(r[head.index(name)]) if r and name in head \
        and head.index(name) < len(r) else None
    want = {"objsize": cache["objsize"], "active": cache["held"],
            "inuse": cache["inuse"], "total": cache["total"],
            "slabs": cache["slabs"],
            "sheaves": cache["main"] + cache["spare"],
            "barn": barn["full_objects"], "deferred": 0,
            "rcu": cache["rcu_free"]}
    got = {k: col(row, k) for k in want}
    expect("slabinfo", got == want,
           "gdb_fixture row %s, the kernel says %s" % (got, want))
    row = table_row(lines, parked["cache"])
    want = {"inuse": parked["allocated"], "deferred": parked["count"],
            "active": parked["allocated"] - parked["count"]}
    got = {k: col(row, k) for k in want}
    expect("slabinfo", got == want,
           "%s row %s, the kernel says %s" % (parked["cache"], got, want))

    # sheaves: sizes of main, spare, rcu_free; main holds the object the
    # kernel saw at its bottom.
    text = "\n".join(sec.get("sheaves", []))
    for kind, n in (("main", cache["main"]), ("spare", cache["spare"]),
                    ("rcu_free", cache["rcu_free"])):
        if n:
            ok = re.search(r"^  %s +0x[0-9a-f]+ %d/%d$" % (kind, n, cache["capacity"]),
                           text, re.M)
        else:
            ok = re.search(r"^  %s +(none|bootstrap|0x[0-9a-f]+ 0/)" % kind,
                           text, re.M)
        expect("sheaves", ok, "cpu%d %s should hold %d of %d"
               % (cpu, kind, n, cache["capacity"]))
    if "sheaf" in facts:
        expect("sheaves", "%#x" % facts["sheaf"]["object"] in text,
               "main should list %#x" % facts["sheaf"]["object"])

    # barn: full and empty sheaves of the CPU's node.
    text = "\n".join(sec.get("barn", []))
    expect("barn", re.search(r"node %d: %d full \(%d objects\), %d empty"
                             % (barn["node"], barn["full"],
                                barn["full_objects"], barn["empty"]), text),
           "node %d should have %d full (%d objects) and %d empty" % (
               barn["node"], barn["full"], barn["full_objects"],
               barn["empty"]))

    # slab: the freelist decoded as the kernel decodes it, and the marks.
    lines = sec.get("slab", [])
    text = "\n".join(lines)
    expect("slab", "of %s:" % cache["name"] in text and
           "inuse %d/%d" % (slab["inuse"], slab["objects"]) in text,
           "should name %s, inuse %d/%d" % (cache["name"], slab["inuse"],
                                            slab["objects"]))
    m = re.search(r"freelist \((\d+) free, decoded\):\n((?:    .*\n?)*)", text)
    decoded = re.findall(r"0x[0-9a-f]+", m.group(2)) if m else []
    kernel_list = slab["freelist"] if isinstance(slab["freelist"], list) \
        else ([] if slab["freelist"] == "none" else [slab["freelist"]])
    expect("slab", m and int(m.group(1)) == slab["freelist_count"] and
           [int(x, 16) for x in decoded[:len(kernel_list)]] == kernel_list,
           "the freelist should have %d objects starting %s" % (
               slab["freelist_count"], ", ".join("%#x" % x for x in kernel_list)))
    marks = {int(a, 16): w for a, w in
             re.findall(r"^  \[ *\d+\] (0x[0-9a-f]+)  (\S.*?)(?:  <- ADDR)?$",
                        text, re.M)}
    expect("slab", marks.get(slab["object"]) == "allocated",
           "%#x (held by the fixture) should be allocated" % slab["object"])
    if "sheaf" in facts:
        expect("slab", marks.get(facts["sheaf"]["object"]) ==
               "sheaf cpu%d main" % cpu,
               "%#x should be in cpu%d's main sheaf" % (facts["sheaf"]["object"], cpu))
    expect("slab", sum(1 for w in marks.values() if w == "free") ==
           slab["freelist_count"] and len(marks) == slab["objects"],
           "%d objects, %d of them free" % (slab["objects"],
                                            slab["freelist_count"]))
    text = "\n".join(sec.get("slab-parked", []))
    expect("slab-parked", re.search(r"^  \[ *\d+\] %#x  deferred cpu%d "
                                    % (parked["first"], parked["cpu"]),
                                    text, re.M),
           "%#x should be marked deferred on cpu%d" % (parked["first"],
                                                       parked["cpu"]))

    # page: owner, order, node and zone of each kind of frame.
    zone_line = r"node %d  zone %s  order " % (pages["node"], pages["zone"])
    for section, owner, order in (
            ("page-kept", "allocated: block of order %d" % pages["kept_order"],
             pages["kept_order"]),
            ("page-deferred", "deferred: free block of order %d"
             % pages["deferred_order"], pages["deferred_order"]),
            ("page-object", "slab of %s" % cache["name"], None),
            ("page-buddy", "buddy: free block of order %d"
             % buddy["buddy_order"], buddy["buddy_order"]),
            ("page-pcp", "pcp: free block of order 0 on cpu%d's" % pcp["cpu"],
             0)):
        if section == "page-buddy" and not buddy["buddy_pfn"] or \
                section == "page-pcp" and not pcp["pcp_pfn"]:
            continue
        text = "\n".join(sec.get(section, []))
        expect(section, "owner: " + owner in text and
               (order is None or zone_line + str(order) in text),
               "should say owner %r, %s%s" % (owner, zone_line,
                                               "" if order is None else order))

    # buddyinfo: the free counts the kernel read under zone->lock.
    text = "\n".join(sec.get("buddyinfo", []))
    want = "Node %d, zone %8s" % (buddy["node"], buddy["zone"]) + "".join(
        "%7d" % c for c in buddy["free"])
    expect("buddyinfo", want in text, "should have the row %r" % want)

    # pcp: this CPU's count, high and batch.
    text = "\n".join(sec.get("pcp", []))
    m = re.search(r"zone %s: high (\d+), batch (\d+).*?\n((?:  cpu.*\n?)*)"
                  % pcp["zone"], text)
    row = m and re.search(r"cpu%d +count +(\d+)" % pcp["cpu"], m.group(3))
    expect("pcp", m and row and (int(m.group(1)), int(m.group(2)),
                                 int(row.group(1))) ==
           (pcp["high"], pcp["batch"], pcp["count"]),
           "zone %s: high %d, batch %d, cpu%d count %d" % (
               pcp["zone"], pcp["high"], pcp["batch"], pcp["cpu"],
               pcp["count"]))

    # deferred: the zone's block and the CPU's parked objects, in order.
    text = "\n".join(sec.get("deferred", []))
    expect("deferred", re.search(r"zone %s: %d pages .*\n    pfn %#x order %d"
                                 % (pages["zone"], pages["zone_deferred"],
                                    pages["deferred_pfn"],
                                    pages["deferred_order"]), text),
           "zone %s: %d pages, pfn %#x order %d" % (
               pages["zone"], pages["zone_deferred"], pages["deferred_pfn"],
               pages["deferred_order"]))
    expect("deferred", re.search(r"cpu%d: %d \(count %d\)\n    %#x %s\n    %#x %s"
                                 % (parked["cpu"], parked["count"],
                                    parked["count"], parked["first"],
                                    parked["cache"], parked["second"],
                                    parked["cache"]), text),
           "cpu%d: %d parked, %#x then %#x" % (parked["cpu"], parked["count"],
                                               parked["first"],
                                               parked["second"]))

    # nolock_stats: every counter of this CPU.
    lines = sec.get("nolock_stats", [])
    head = ["field"] + (lines[0].split() if lines else [])
    for field, val in nolock.items():
        if field == "cpu":
            continue
        row = table_row(lines, field)
        i = head.index("cpu%d" % nolock["cpu"]) if "cpu%d" % nolock["cpu"] \
            in head else None
        expect("nolock_stats", row and i is not None and i < len(row) and
               int(row[i]) == val, "%s on cpu%d should be %d"
               % (field, nolock["cpu"], val))

    for c in boottest.GDB_COMMAND_NAMES:
        lines = sec.get("help-" + c, [])
        expect("help-" + c, lines and lines[0].startswith(c) and
               ":" in lines[0], "a one-line summary starting %r" % c)
    return problems


def check_gdb_commands(kernel, log_dir, extra=""):
    """The allocator commands, stopped in the gdb_fixture suite's
    checkpoint (two CPUs): each command's output against what the kernel
    printed, and no Python exception anywhere.  extra: more of the
    command line (trace_alloc=gdb_fixture: the fixture's cache traced, so
    its main sits behind the trace gate)."""
    if not shutil.which("gdb"):
        return []
    tag = "-traced" if extra else ""
    serial = os.path.join(log_dir, "harness-gdb-fixture%s.log" % tag)
    qemu, port = start_gdb_qemu(kernel, ("test=gdb_fixture " + extra).strip(),
                                "2", log_dir, "file:" + serial)
    gdbinit = os.path.join(log_dir, "harness-gdbinit-commands%s" % tag)
    boottest.write_gdbinit(gdbinit, kernel, port)
    args = ["-ex", "break gdb_checkpoint", "-ex", "continue",
            "-ex", "python import sys; sys.path.insert(0, %r); "
            "import run_tests; run_tests.gdb_set_fixture_vars(%r)"
            % (os.path.dirname(os.path.abspath(__file__)), serial)]
    for name, command in GDB_FIXTURE_COMMANDS:
        args += ["-ex", "echo %s%s\\n" % (GDB_SECTION, name), "-ex", command]
    try:
        out = run_gdb(gdbinit, args, GDB_FIXTURE_WAIT_S)
    finally:
        qemu.kill()
        qemu.wait()
    out_path = os.path.join(log_dir, "harness-gdb-commands%s.out" % tag)
    with open(out_path, "w") as f:
        f.write(out)
    with open(serial, errors="replace") as f:
        facts = fixture_facts(f.read())
    if not re.search(r"^Thread \d+ hit Breakpoint 2, gdb_checkpoint ", out,
                     re.M):
        return ["gdb commands: the kernel did not stop in gdb_checkpoint(); "
                "gdb said: " + " | ".join(out.splitlines()[-6:])]
    missing = [w for w in ("cache", "barn", "slab", "parked", "pages",
                           "buddy", "pcp", "nolock") if w not in facts]
    if missing:
        return ["gdb commands: the fixture printed no %s line (%s)"
                % (", ".join(missing), serial)]
    problems = ["gdb commands: " + p for p in judge_gdb_commands(out, facts)]
    for m in re.finditer(r"^(Python Exception.*|Error occurred in Python.*)$",
                         out, re.M):
        problems.append("gdb commands: " + m.group(1))
    if problems:
        problems.append("gdb commands: the whole output is in %s" % out_path)
    return [p + (" (with %s)" % extra if extra else "") for p in problems]


def run_tool_checks(kernel, log_dir, tally):
    start = time.time()
    problems = []
    log_path = os.path.join(log_dir, "harness-qemu-error.log")
    log, status, timed_out, _, _ = boottest.run_boot(
        kernel, "1", "abc", "", 30, log_path)
    reasons = ktap.verdict(log, status, timed_out, 30)
    if not any(QEMU_BAD_MEM_SAYS in r for r in reasons):
        problems.append("MEM=abc: QEMU's error not quoted (%s)"
                        % "; ".join(reasons))
    names = set(boottest.log_name(*c) for c in [
        ("1", "128M", "", ""), ("1", "128M", "test=boot", ""),
        ("1", "128M", "test=slab", ""), ("1", "128M", "", "-machine q35"),
        ("1", "128M", "", "", "kvm")])
    if len(names) != 5:
        problems.append("configurations share log names: %s"
                        % ", ".join(sorted(names)))
    make = subprocess.run(["make", "-n", "kernel",
                           "EXTRA_TESTS=" + MISSING_EXTRA], cwd=ROOT,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    said = make.stdout.decode("utf-8", "replace")
    if make.returncode == 0 or \
            "EXTRA_TESTS names %s: no such file" % MISSING_EXTRA not in said:
        problems.append("a missing EXTRA_TESTS file is not named: %s"
                        % said.strip()[-200:])
    code, out = check_interrupted_run(kernel)
    if code != boottest.INTERRUPTED or "the run was interrupted" not in out:
        problems.append("Ctrl-A X: exit status %s, not %d with 'the run was "
                        "interrupted'" % (code, boottest.INTERRUPTED))
    problems += check_gdb(kernel, log_dir)
    ok = not problems
    print("%-30s %s  (%.1f s)" % ("harness:tools",
                                  "ok, QEMU's error, log names, EXTRA_TESTS, "
                                  "Ctrl-A X, gdb" if ok else "FAILED",
                                  time.time() - start))
    for p in problems:
        print("    " + p)
    tally.check(ok)


# docs/slab-and-sheaves.md quotes the walkthrough suite's log between these
# markers; a boot of the suite must print the same lines (page frame
# numbers aside), so the document and the code tell one story.
WALKTHROUGH_DOC = "docs/slab-and-sheaves.md"
WALKTHROUGH_BEGIN = "<!-- walkthrough-log: begin"
WALKTHROUGH_END = "<!-- walkthrough-log: end -->"
WALKTHROUGH_LINE = re.compile(r"^(walkthrough: step |trace: walkthrough)")


def walkthrough_normal(line):
    return re.sub(r"pfn 0x[0-9a-f]+", "pfn N", line.strip())


def walkthrough_doc_lines(text):
    """The quoted log lines of the document, or None without markers."""
    begin = text.find(WALKTHROUGH_BEGIN)
    end = text.find(WALKTHROUGH_END)
    if begin < 0 or end < begin:
        return None
    return [walkthrough_normal(l) for l in text[begin:end].splitlines()
            if WALKTHROUGH_LINE.match(l)]


def run_walkthrough_doc_check(kernel, log_dir, tally):
    start = time.time()
    problems = []
    with open(os.path.join(ROOT, WALKTHROUGH_DOC)) as f:
        want = walkthrough_doc_lines(f.read())
    log_path = os.path.join(log_dir, "harness-walkthrough.log")
    log, status, timed_out, _, _ = boottest.run_boot(
        kernel, "2", "128M", "test=walkthrough", BOOT_TIMEOUT, log_path)
    problems += ["the boot failed: " + r for r in
                 ktap.verdict(log, status, timed_out, BOOT_TIMEOUT)]
    got = [walkthrough_normal(l) for l in log.lines
           if WALKTHROUGH_LINE.match(l.strip())]
    if want is None:
        problems.append("%s has no walkthrough-log markers" % WALKTHROUGH_DOC)
    elif not want:
        problems.append("%s quotes no walkthrough line" % WALKTHROUGH_DOC)
    elif got != want:
        for i in range(max(len(got), len(want))):
            g = got[i] if i < len(got) else "(nothing)"
            w = want[i] if i < len(want) else "(nothing)"
            if g != w:
                problems.append("%s and the log part at line %d of the "
                                "quote: the doc says %r, the log %r"
                                % (WALKTHROUGH_DOC, i + 1, w[:110], g[:110]))
                break
    ok = not problems
    print("%-30s %s  (%.1f s)" % (
        "harness:walkthrough-doc",
        "ok, %d lines as quoted" % len(got) if ok else "FAILED",
        time.time() - start))
    for p in problems:
        print("    " + p)
    if not ok:
        print("    log: " + log_path)
    tally.check(ok)


# The replay page (docs/viz.md): a short boot with viz= whose console log
# must pass as any boot's (its cases count) and whose COM2 log must be well
# formed (one test), and the page of a recorded log loaded in headless
# Chromium, its numbers at one instant read back from the DOM (one test).
VIZ_LIVE = ("smp2-128M-viz", "2", "128M", "test=slab_sheaf,viz viz=10")
VIZ_PY = os.path.join(ROOT, "scripts", "viz.py")


def run_viz_checks(kernel, log_dir, tally):
    name, smp, mem, cmdline = VIZ_LIVE
    log_path = os.path.join(log_dir, "boot-%s.log" % name)
    viz_log = os.path.join(log_dir, "boot-%s.viz.log" % name)
    if os.path.exists(viz_log):
        os.remove(viz_log)
    sys.path.insert(0, os.path.join(ROOT, "scripts"))
    import viz  # noqa: E402
    log, status, timed_out, secs, accel = boottest.run_boot(
        kernel, smp, mem, cmdline, BOOT_TIMEOUT, log_path,
        extra_opts=viz.com2_opts(viz_log))
    reasons = ktap.verdict(log, status, timed_out, BOOT_TIMEOUT)
    report("boot:" + name, log, reasons, log_path,
           "%.1f s, %s" % (secs, accel), tally)
    start = time.time()
    problems, n = viz_check.check_live(viz_log, boottest.vcpus(smp))
    page = os.path.join(log_dir, "boot-%s.html" % name)
    r = subprocess.run([sys.executable, VIZ_PY, viz_log, "--console",
                        log_path, "-o", page], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT)
    if r.returncode:
        problems.append("viz.py: " + r.stdout.decode("utf-8", "replace"))
    print("%-30s %s  (%.1f s)" % (
        "harness:viz-live", "ok, %d snapshots on COM2, drawn" % n
        if not problems else "FAILED", time.time() - start))
    for p in problems:
        print("    " + p)
    if problems:
        print("    log: " + viz_log)
    tally.check(not problems)
    start = time.time()
    problems, n = viz_check.check_page(log_dir)
    print("%-30s %s  (%.1f s)" % (
        "harness:viz-page", "ok, %d numbers in Chromium's DOM as logged, "
        "screenshot %s" % (n, os.path.join(log_dir, "viz-check", "page.png"))
        if not problems else "FAILED", time.time() - start))
    for p in problems:
        print("    " + p)
    tally.check(not problems)


def run_gdb_commands_check(kernel, log_dir, tally):
    """check_gdb_commands() as a test of its own: one line, one count."""
    start = time.time()
    problems = check_gdb_commands(kernel, log_dir)
    # The same with the fixture's cache traced: the commands must read the
    # real main behind the trace gate (mm/slab_trace.c).
    problems += check_gdb_commands(kernel, log_dir, "trace_alloc=gdb_fixture")
    print("%-30s %s  (%.1f s)" % (
        "harness:gdb-commands",
        "ok, %d commands against the gdb_fixture suite"
        % len(GDB_FIXTURE_COMMANDS) if not problems else "FAILED",
        time.time() - start))
    for p in problems:
        print("    " + p)
    tally.check(not problems)


# The counting plugin of `make bench` (bench/plugin/counter.c): it loads,
# counts, and counts the same twice (bench/run_bench.py --check-plugin,
# two 2-CPU boots side by side); its checks join this run's tally.
RUN_BENCH = os.path.join(ROOT, "bench", "run_bench.py")
PLUGIN_CHECK_TIMEOUT = 300
PLUGIN_SUMMARY = re.compile(r"^plugin check: (\d+) passed, (\d+) failed")


def run_plugin_check(kernel, plugin, log_dir, tally):
    start = time.time()
    out_dir = os.path.join(log_dir, "plugin-check")
    try:
        r = subprocess.run([sys.executable, RUN_BENCH, "--check-plugin",
                            "--kernel", kernel, "--plugin", plugin,
                            "--out", out_dir], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT,
                           timeout=PLUGIN_CHECK_TIMEOUT)
        text = r.stdout.decode("utf-8", "replace")
    except subprocess.TimeoutExpired:
        text = "no result within %d s" % PLUGIN_CHECK_TIMEOUT
    m = None
    for line in text.splitlines():
        m = PLUGIN_SUMMARY.match(line) or m
    passed, failed = (int(m.group(1)), int(m.group(2))) if m else (0, 1)
    print("%-30s %d passed, %d failed  (%.1f s)" % (
        "bench:plugin-check", passed, failed, time.time() - start))
    if failed:
        for line in text.splitlines()[-12:]:
            print("    " + line)
    tally.add(passed, failed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--host", action="append", default=[])
    ap.add_argument("--broken-host", action="append", default=[])
    ap.add_argument("--host-only", action="store_true")
    ap.add_argument("--kernel")
    ap.add_argument("--broken-kernel")
    ap.add_argument("--log-dir", default="build")
    ap.add_argument("--cmdline", default="")
    ap.add_argument("--fuzz", action="append", default=[])
    ap.add_argument("--broken-fuzz", action="append", default=[])
    ap.add_argument("--fuzz-runs", type=int, default=FUZZ_RUNS)
    ap.add_argument("--mutate-check", action="store_true")
    ap.add_argument("--docs-check", action="store_true")
    ap.add_argument("--plugin-check", metavar="PLUGIN")
    a = ap.parse_args()
    os.makedirs(a.log_dir, exist_ok=True)
    tally = Tally()

    for prog in a.host:
        run_host(prog, a.log_dir, tally)
    for prog in a.host:
        if os.path.basename(prog) == HOST_DEBUG_PROGRAM:
            for flags in HOST_DEBUG_MATRIX:
                run_host(prog, a.log_dir, tally, flags)
            for mode in HOST_MODE_MATRIX:
                run_host(prog, a.log_dir, tally, slab_mode=mode)
    for prog in a.host + a.broken_host:
        for name, arg, expect, started in HOST_CHECKS:
            if os.path.basename(prog) == name:
                run_host_check(prog, arg, expect, started, a.log_dir, tally)
    # PROG or PROG:RUNS (the runs of that one fuzzer).
    for spec in a.fuzz + a.broken_fuzz:
        prog, _, runs = spec.partition(":")
        run_fuzzer(prog, int(runs) if runs else a.fuzz_runs, a.log_dir,
                   tally, must_fail=spec in a.broken_fuzz)
    if a.mutate_check:
        run_mutate_check(a.log_dir, tally)
    if a.docs_check:
        run_docs_check(a.log_dir, tally)
    if not a.host_only:
        run_watchdog_stretch_check(tally)
        for name, smp, mem, cmdline in BOOT_CONFIGS:
            run_boot(a.kernel, name, smp, mem,
                     " ".join(x for x in (cmdline, a.cmdline) if x),
                     a.log_dir, tally)
        for name, smp, mem, cmdline, opts in NUMA_BOOT_CONFIGS:
            run_boot(a.kernel, name, smp, mem,
                     " ".join(x for x in (cmdline, a.cmdline) if x),
                     a.log_dir, tally, extra_opts=opts)
        run_firmware_checks(a.kernel, a.log_dir, tally)
        run_halt_without_exit(a.kernel, a.log_dir, tally)
        run_bad_options(a.kernel, a.log_dir, tally)
        run_small_memory(a.kernel, a.log_dir, tally)
        run_drop_checks(a.kernel, a.log_dir, tally)
        run_tool_checks(a.kernel, a.log_dir, tally)
        run_gdb_commands_check(a.kernel, a.log_dir, tally)
        run_walkthrough_doc_check(a.kernel, a.log_dir, tally)
        run_viz_checks(a.kernel, a.log_dir, tally)
        if a.broken_kernel:
            for suite, expect, timeout, smp in BROKEN_CHECKS:
                run_broken(a.broken_kernel, suite, expect, timeout, smp,
                           a.log_dir, tally)
            for suite, expect, timeout, smp in STOP_CHECKS:
                run_stop_check(a.broken_kernel, suite, expect, timeout, smp,
                               a.log_dir, tally)
            run_panic_alone(a.broken_kernel, a.log_dir, tally)
            run_nmi_after_panic(a.broken_kernel, a.log_dir, tally)
            run_panic_during_drain(a.broken_kernel, a.log_dir, tally)
            run_printed_structure(a.broken_kernel, a.log_dir, tally)
    if a.plugin_check:
        run_plugin_check(a.kernel, a.plugin_check, a.log_dir, tally)
    print("total: %d passed, %d failed" % (tally.passed, tally.failed))
    return 1 if tally.failed else 0


if __name__ == "__main__":
    sys.exit(main())
