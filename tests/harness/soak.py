#!/usr/bin/env python3
"""soak.py - boot the kernel many times over seeds and machine shapes.

  soak.py --kernel build/gcc/kernel.elf --boots N [--seed S] [--cmdline ...]
          [--log-dir build/soak]

`make soak SOAK_BOOTS=N` runs it.  Boot i (0 <= i < N) gets the i-th
configuration of a fixed walk over

    SMP      1, 2, 3, 4, 6, 8, 16, 32
    memory   128M, 512M, 2G, 5G
    machine  pc (i440FX), q35

(the walk steps SMP fastest, then the machine, then memory, so any 16
boots see every CPU count on both machines) and the seed S + i
(seed= on the command line: each boot's random choices are replayable).
It is bounded by the count of boots, never by time: each boot has its own
timeout, stretched like the watchdog (boottest.py) when the vCPUs outnumber
the host CPUs.  Not part of `make test`.

Ends with a table of boots run, passed and failed per configuration, and
one line per failing boot: its seed, configuration, first reason and log,
and the `make boottest` line that replays it.  Exit status 0 only if every
boot passed.
"""
import argparse
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import boottest  # noqa: E402
import ktap  # noqa: E402

SMPS = ["1", "2", "3", "4", "6", "8", "16", "32"]
MACHINES = ["pc", "q35"]
MEMS = ["128M", "512M", "2G", "5G"]
BOOT_TIMEOUT = float(os.environ.get("BOOT_TIMEOUT", "300"))


def config(i):
    """The i-th (SMP, memory, machine) of the walk."""
    smp = SMPS[i % len(SMPS)]
    machine = MACHINES[(i // len(SMPS)) % len(MACHINES)]
    mem = MEMS[(i // (len(SMPS) * len(MACHINES))) % len(MEMS)]
    return smp, mem, machine


def boot_timeout(smp):
    """BOOT_TIMEOUT, stretched by the oversubscription like the watchdog."""
    ratio = -(-boottest.vcpus(smp) // boottest.host_cpus())
    return BOOT_TIMEOUT * max(1, ratio)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--boots", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cmdline", default="")
    ap.add_argument("--log-dir", default="build/soak")
    a = ap.parse_args()
    os.makedirs(a.log_dir, exist_ok=True)

    rows = {}        # (machine, smp, mem) -> [run, passed, failed]
    failures = []    # (seed, machine, smp, mem, reason, log)
    start = time.time()
    for i in range(a.boots):
        smp, mem, machine = config(i)
        seed = a.seed + i
        cmdline = " ".join(x for x in (a.cmdline, "seed=%d" % seed) if x)
        log_path = os.path.join(a.log_dir, "soak-%03d-%s-smp%s-%s-seed%d.log"
                                % (i, machine, smp, mem, seed))
        timeout = boot_timeout(smp)
        log, status, timed_out, secs, _ = boottest.run_boot(
            a.kernel, smp, mem, cmdline, timeout, log_path,
            extra_opts=["-machine", machine])
        reasons = ktap.verdict(log, status, timed_out, timeout)
        p, f, _ = ktap.counts(log)
        row = rows.setdefault((machine, smp, mem), [0, 0, 0])
        row[0] += 1
        row[1 if not reasons else 2] += 1
        print("soak %3d/%d  %-4s SMP=%-2s MEM=%-4s seed=%-6d %s  (%d cases, "
              "%.1f s)" % (i + 1, a.boots, machine, smp, mem, seed,
                           "passed" if not reasons else "FAILED", p + f,
                           secs), flush=True)
        if reasons:
            failures.append((seed, machine, smp, mem, reasons[0], log_path))

    passed = sum(r[1] for r in rows.values())
    failed = sum(r[2] for r in rows.values())
    print("\nsoak: %d boots in %.0f s" % (a.boots, time.time() - start))
    print("%-8s %-4s %-5s %5s %7s %7s" % ("machine", "SMP", "MEM", "boots",
                                          "passed", "failed"))
    for (machine, smp, mem), (n, p, f) in sorted(
            rows.items(), key=lambda kv: (kv[0][0], int(kv[0][1]),
                                          kv[0][2])):
        print("%-8s %-4s %-5s %5d %7d %7d" % (machine, smp, mem, n, p, f))
    print("%-8s %-4s %-5s %5d %7d %7d" % ("all", "", "", a.boots, passed,
                                          failed))
    for seed, machine, smp, mem, reason, log_path in failures:
        print("FAILED seed=%d machine=%s SMP=%s MEM=%s: %s\n    log: %s\n"
              "    replay: make boottest SMP=%s MEM=%s QEMU_OPTS=\"-machine "
              "%s\" CMDLINE=\"%s\"" % (
                  seed, machine, smp, mem, reason, log_path, smp, mem,
                  machine, " ".join(x for x in (a.cmdline, "seed=%d" % seed)
                                    if x)))
    print("soak: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
