#!/usr/bin/env python3
"""run_bench.py - boot the benchmark kernel, collect the table, draw plots.

  run_bench.py --kernel build/gcc/kernel.elf [--out build/bench] [--cpus 4]

Two boots of the same kernel:
  1. single-CPU groups (`bench=single_*`) under `-accel tcg -icount shift=0`:
     the TSC counts guest instructions, so every figure is an exact,
     repeatable instruction count;
  2. multi-CPU groups (`bench=scaling_*`) under multi-threaded TCG with
     --cpus CPUs: the TSC follows the wall clock, figures are cycles and
     noisy, so the spread (p10..p90) is reported with the median.
Each BENCH row of the serial log goes into build/bench/<group>.csv; the
report (build/bench/report.md, also printed) names the accelerator, the
mode, the CPU model and the number of CPUs.  Plots: gnuplot, when there
are rows for them (batch-size chart, scaling curve).
"""
import argparse
import csv
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "harness"))
import boottest  # noqa: E402

ROW = re.compile(r"BENCH (.*)$")
MACHINE = re.compile(r"bench: machine (.*)$")
FIELDS = ["group", "variant", "param", "ops", "median", "min", "p10", "p90",
          "max", "reps", "unit"]


def parse_rows(log_path):
    rows, machine = [], None
    with open(log_path, errors="replace") as f:
        for line in f:
            m = ROW.search(line)
            if m:
                kv = dict(p.split("=", 1) for p in m.group(1).split())
                rows.append(kv)
            m = MACHINE.search(line)
            if m:
                machine = m.group(1).strip()
    return rows, machine


def boot(kernel, cpus, cmdline, opts, log_path, timeout):
    os.environ["QEMU_ACCEL"] = "tcg"
    log, status, timed_out, secs, accel = boottest.run_boot(
        kernel, cpus, "512M", cmdline, timeout, log_path, extra_opts=opts)
    if timed_out or status != 33:
        print("bench: boot for %r failed (status %s%s), see %s" % (
            cmdline, status, ", timed out" if timed_out else "", log_path))
        return None
    return secs


def write_csvs(rows, out):
    groups = {}
    for r in rows:
        groups.setdefault(r["group"], []).append(r)
    for g, rs in groups.items():
        with open(os.path.join(out, g + ".csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
            w.writeheader()
            for r in rs:
                w.writerow(r)
    return groups


def unit_text(r, mode):
    """What a row's figure is, in words for the table."""
    unit = r.get("unit", "tsc/op")
    if unit == "tsc/op":
        return "instr/op" if "icount" in mode else "cycles/op"
    return unit


def table(groups, title, mode):
    lines = ["### %s" % title, "", "_%s_" % mode, "",
             "| group | variant | param | median | p10 .. p90 | unit |",
             "|---|---|---:|---:|---|---|"]
    for g, rs in groups.items():
        for r in rs:
            spread = ("%s .. %s" % (r["p10"], r["p90"])
                      if r.get("reps", "1") != "1" else "exact")
            lines.append("| %s | %s | %s | %s | %s | %s |" % (
                g, r["variant"], r["param"], r["median"], spread,
                unit_text(r, mode)))
    return "\n".join(lines) + "\n"


def median_of(rs, variant, param):
    for r in rs:
        if r["variant"] == variant and int(r["param"]) == param:
            return float(r["median"])
    return None


def summary(groups, mode):
    """The figures the issue sets targets for, computed from the rows."""
    out = []
    pair = groups.get("single_kmalloc_pair", [])
    for size in (64, 256):
        on = median_of(pair, "sheaves", size)
        off = median_of(pair, "no_sheaves", size)
        km = median_of(pair, "kmalloc", size)
        if on and off:
            out.append("- %d-byte pair: kmalloc() %.0f, cache with sheaves "
                       "%.0f, without %.0f instructions: sheaves %.2fx "
                       "faster" % (size, km or 0, on, off, off / on))
    sc = groups.get("scaling_pair", [])
    if sc:
        cpus = sorted(set(int(r["param"]) for r in sc))
        for v in ("sheaves", "no_sheaves"):
            one = median_of(sc, v + ".per_cpu", 1)
            for n in cpus[1:]:
                m = median_of(sc, v + ".per_cpu", n)
                agg = median_of(sc, v + ".aggregate", n)
                if one and m:
                    out.append("- %s on %d CPUs: per-CPU throughput %.0f%% "
                               "of 1 CPU; aggregate %.2f Mops/s" % (
                                   v, n, 100.0 * one / m, agg or 0))
        for n in cpus:
            on = median_of(sc, "sheaves.per_cpu", n)
            off = median_of(sc, "no_sheaves.per_cpu", n)
            if on and off:
                out.append("- %d CPU(s): sheaves %.2fx faster per pair than "
                           "no sheaves" % (n, off / on))
    if not out:
        return ""
    return "#### Headline figures\n\n" + "\n".join(out) + "\n"


XLABELS = {
    "single_kmalloc_pair": "object size (bytes)",
    "single_pages": "order",
    "scaling_pair": "CPUs",
    "scaling_producer_consumer": "CPUs",
}
YLABELS = {
    "tsc/op": "TSC ticks per op (median, bars p10..p90)",
    "Mops/s": "million pairs per second (median, bars p10..p90)",
}


def plot(out, groups, mode):
    """One chart per group and unit with at least two params: the
    batch-size charts, the scaling curves (per CPU and aggregate)."""
    if not shutil.which("gnuplot"):
        print("bench: gnuplot not found, no plots")
        return []
    made = []
    for g, all_rs in groups.items():
        if g.endswith("_memory"):
            continue
        units = sorted(set(r.get("unit", "tsc/op") for r in all_rs))
        for unit in units:
            rs = [r for r in all_rs if r.get("unit", "tsc/op") == unit]
            variants = []
            for r in rs:
                if r["variant"] not in variants:
                    variants.append(r["variant"])
            params = sorted(set(int(r["param"]) for r in rs))
            if len(params) < 2:
                continue
            name = g if len(units) == 1 else "%s_%s" % (
                g, "throughput" if unit == "Mops/s" else "per_cpu")
            dat = os.path.join(out, name + ".dat")
            with open(dat, "w") as f:
                for v in variants:
                    f.write('"%s"\n' % v)
                    for r in rs:
                        if r["variant"] == v:
                            f.write("%s %s %s %s\n" % (
                                r["param"], r["median"], r["p10"], r["p90"]))
                    f.write("\n\n")
            png = os.path.join(out, name + ".png")
            logx = "set logscale x\n" if max(params) >= 100 else ""
            # Contended rows under TCG can be 1000x slower: log y there.
            yscale = ("set logscale y\n" if g.startswith("scaling") and
                      unit == "tsc/op" else "set yrange [0:*]\n")
            xlabel = XLABELS.get(g, "batch size N")
            ylabel = YLABELS.get(unit, unit)
            if unit == "tsc/op" and "icount" in mode:
                ylabel = "guest instructions per op (exact)"
            script = (
                'set terminal pngcairo size 900,540 noenhanced\n'
                'set output "%s"\nset title "%s (%s)"\nset xlabel "%s"\n'
                'set ylabel "%s"\n%s%sset xtics (%s)\n'
                'set key outside right\nset grid\n'
                'plot for [i=0:%d] "%s" index i using 1:2:3:4 with '
                'yerrorlines title columnheader(1)\n' % (
                    png, name, mode.split(";")[0], xlabel, ylabel, logx,
                    yscale,
                    ", ".join(str(p) for p in params),
                    len(variants) - 1, dat))
            r = subprocess.run(["gnuplot"], input=script.encode(),
                               capture_output=True)
            if r.returncode == 0:
                made.append(png)
            else:
                print("bench: gnuplot failed for %s: %s" % (
                    name, r.stderr.decode()[:200]))
    return made


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--cpus", type=int, default=4)
    ap.add_argument("--timeout", type=float, default=240)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)

    report = ["# Benchmark report", ""]
    all_ok = True
    runs = [
        ("Single CPU", 1, "bench=single_*", ["-icount", "shift=0"],
         "single.log", "TCG, -icount shift=0 (TSC = guest instructions), "
         "1 CPU"),
        ("Scaling", a.cpus, "bench=scaling_*", [], "scaling.log",
         "multi-threaded TCG (TSC = wall clock, noisy), %d CPUs" % a.cpus),
    ]
    for title, cpus, cmdline, opts, logname, mode in runs:
        log_path = os.path.join(a.out, logname)
        secs = boot(a.kernel, cpus, cmdline, opts, log_path, a.timeout)
        if secs is None:
            all_ok = False
            continue
        rows, machine = parse_rows(log_path)
        groups = write_csvs(rows, a.out)
        mode_text = "%s; CPU: %s" % (mode, machine or "unknown")
        report.append(table(groups, title, mode_text))
        report.append(summary(groups, mode))
        for png in plot(a.out, groups, mode):
            report.append("![%s](%s)\n" % (os.path.basename(png),
                                           os.path.basename(png)))
    text = "\n".join(report)
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(text)
    print(text)
    print("bench: CSV, plots and report.md in %s" % a.out)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
