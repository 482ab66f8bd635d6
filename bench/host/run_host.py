#!/usr/bin/env python3
"""run_host.py - run the host benchmark binaries, timed and counted.

  run_host.py --bin-dir build/gcc/bench-host --out build/bench

For each allocator (glibc, jemalloc, tcmalloc, mimalloc, slab = this kernel's mm/
built for the host) and each pattern (pair; batch of N in order and
shuffled, N = 1, 10, 100, 1000):
  - ns/op: the binary's own timed run (median of its repetitions);
  - instructions/op: `perf stat -e instructions:u` when this machine
    allows it, else valgrind's callgrind counting only the measured_*
    functions (exact, repeatable), divided by the operations done.
Writes build/bench/host.csv and host.md (side-by-side table), a plot of
instructions per pair by batch size (host_batch.png) when gnuplot is
there, and prints the table.
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys
import tempfile

ALLOCS = ["slab", "jemalloc", "tcmalloc", "mimalloc", "glibc"]
PATTERNS = [("pair", 1)] + [(p, n) for n in (1, 10, 100, 1000)
                            for p in ("batch_in_order", "batch_shuffled")]
ROW = re.compile(r"HOSTBENCH alloc=(\S+) pattern=(\S+) n=(\d+) ops=(\d+) "
                 r"ns=([\d.]+)")
ONE = re.compile(r"HOSTBENCH-ONE .* ops=(\d+)")


def perf_works():
    if not shutil.which("perf"):
        return False
    r = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u",
                        "true"], capture_output=True, text=True)
    return r.returncode == 0 and "not supported" not in r.stderr \
        and "<not" not in r.stderr


def count_perf(binary, pattern, n):
    """Instructions of a --one run minus those of a run doing only the
    warm-up and setup (pattern with n=0 is rejected, so use the same
    pattern at a tiny size as the baseline is not exact): perf counts the
    whole process, so this is an upper bound including setup."""
    r = subprocess.run(["perf", "stat", "-x,", "-e", "instructions:u",
                        binary, "--one", pattern, str(n)],
                       capture_output=True, text=True)
    m = ONE.search(r.stdout)
    for line in r.stderr.splitlines():
        f = line.split(",")
        if len(f) > 2 and f[2].startswith("instructions") and \
                f[0].isdigit() and m:
            return int(f[0]) / int(m.group(1))
    return None


def count_callgrind(binary, pattern, n):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        r = subprocess.run(
            ["valgrind", "--tool=callgrind", "--toggle-collect=measured_*",
             "--callgrind-out-file=" + out, binary, "--one", pattern,
             str(n)], capture_output=True, text=True)
        m = ONE.search(r.stdout)
        if r.returncode != 0 or not m or not os.path.exists(out):
            return None
        with open(out) as f:
            for line in f:
                if line.startswith("totals:") or line.startswith("summary:"):
                    return int(line.split()[1]) / int(m.group(1))
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin-dir", default="build/gcc/bench-host")
    ap.add_argument("--out", default="build/bench")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    use_perf = perf_works()
    if use_perf:
        method = "perf stat -e instructions:u (whole process: setup included)"
    elif shutil.which("valgrind"):
        method = "callgrind, measured_* functions only (exact)"
    else:
        method = None
    print("bench-host: instructions via %s" % (method or "nothing (no perf, "
                                                "no valgrind)"))
    rows = {}
    for alloc in ALLOCS:
        binary = os.path.join(a.bin_dir, "bench_host_" + alloc)
        r = subprocess.run([binary], capture_output=True, text=True)
        if r.returncode != 0:
            print("bench-host: %s failed: %s" % (binary, r.stderr[-300:]))
            return 1
        for m in ROW.finditer(r.stdout):
            rows[(alloc, m.group(2), int(m.group(3)))] = {
                "alloc": alloc, "pattern": m.group(2), "n": m.group(3),
                "ns_per_op": m.group(5), "instr_per_op": ""}
        for pattern, n in PATTERNS:
            if method is None:
                break
            cnt = (count_perf if use_perf else count_callgrind)(
                binary, pattern, n)
            if cnt is not None and (alloc, pattern, n) in rows:
                rows[(alloc, pattern, n)]["instr_per_op"] = "%.1f" % cnt

    path = os.path.join(a.out, "host.csv")
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["alloc", "pattern", "n",
                                          "ns_per_op", "instr_per_op"])
        w.writeheader()
        for pattern, n in PATTERNS:
            for alloc in ALLOCS:
                if (alloc, pattern, n) in rows:
                    w.writerow(rows[(alloc, pattern, n)])

    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    lines = ["### Host benchmark", "",
             "_64-byte objects, one thread; ns/op: median of 9 timed runs "
             "on %s (noisy); instructions/op: %s. One op = one alloc+free "
             "pair._" % (cpu, method or "not measured"), "",
             "| pattern | N | " + " | ".join(
                 "%s ns | %s instr" % (x, x) for x in ALLOCS) + " |",
             "|---|---:|" + "---:|---:|" * len(ALLOCS)]
    for pattern, n in PATTERNS:
        cells = []
        for alloc in ALLOCS:
            row = rows.get((alloc, pattern, n), {})
            cells.append("%s | %s" % (row.get("ns_per_op", "-"),
                                      row.get("instr_per_op") or "-"))
        lines.append("| %s | %d | %s |" % (pattern, n, " | ".join(cells)))
    text = "\n".join(lines) + "\n"
    with open(os.path.join(a.out, "host.md"), "w") as f:
        f.write(text)
    print(text)

    if shutil.which("gnuplot") and method:
        dat = os.path.join(a.out, "host_batch.dat")
        with open(dat, "w") as f:
            for alloc in ALLOCS:
                f.write('"%s"\n' % alloc)
                for n in (1, 10, 100, 1000):
                    v = rows.get((alloc, "batch_shuffled", n), {}).get(
                        "instr_per_op")
                    if v:
                        f.write("%d %s\n" % (n, v))
                f.write("\n\n")
        png = os.path.join(a.out, "host_batch.png")
        script = ('set terminal pngcairo size 900,540 noenhanced\n'
                  'set output "%s"\nset title "host: allocate N, free '
                  'shuffled (64 B)"\nset xlabel "batch size N"\n'
                  'set ylabel "instructions per alloc+free pair"\n'
                  'set logscale x\nset yrange [0:*]\nset key outside right\n'
                  'set grid\nplot for [i=0:%d] "%s" index i using 1:2 with '
                  'linespoints title columnheader(1)\n' % (
                      png, len(ALLOCS) - 1, dat))
        subprocess.run(["gnuplot"], input=script.encode(), capture_output=True)
    print("bench-host: %s, host.md%s" % (
        path, ", host_batch.png" if method else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
