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


def table(groups, title, mode):
    lines = ["### %s" % title, "", "_%s_" % mode, "",
             "| group | variant | param | median | p10 .. p90 | unit |",
             "|---|---|---:|---:|---|---|"]
    for g, rs in groups.items():
        for r in rs:
            lines.append("| %s | %s | %s | %s | %s .. %s | %s |" % (
                g, r["variant"], r["param"], r["median"], r["p10"], r["p90"],
                "instr/op" if "icount" in mode else "cycles/op"))
    return "\n".join(lines) + "\n"


def plot(out, groups):
    """Batch-size chart and scaling curve, where such rows exist."""
    if not shutil.which("gnuplot"):
        print("bench: gnuplot not found, no plots")
        return []
    made = []
    for g, rs in groups.items():
        variants = sorted(set(r["variant"] for r in rs))
        params = sorted(set(int(r["param"]) for r in rs))
        if len(params) < 2:
            continue
        dat = os.path.join(out, g + ".dat")
        with open(dat, "w") as f:
            for v in variants:
                f.write('"%s"\n' % v)
                for r in rs:
                    if r["variant"] == v:
                        f.write("%s %s %s %s\n" % (r["param"], r["median"],
                                                   r["p10"], r["p90"]))
                f.write("\n\n")
        png = os.path.join(out, g + ".png")
        logx = "set logscale x\n" if max(params) >= 100 else ""
        xlabel = "CPUs" if g.startswith("scaling") else "batch size N"
        script = (
            'set terminal pngcairo size 900,540 noenhanced\n'
            'set output "%s"\nset title "%s"\nset xlabel "%s"\n'
            'set ylabel "per op (median, bars p10..p90)"\n%s'
            'set key outside right\nset grid\n'
            'plot for [i=0:%d] "%s" index i using 1:2:3:4 with yerrorlines '
            'title columnheader(1)\n' % (png, g, xlabel, logx,
                                         len(variants) - 1, dat))
        r = subprocess.run(["gnuplot"], input=script.encode(),
                           capture_output=True)
        if r.returncode == 0:
            made.append(png)
        else:
            print("bench: gnuplot failed for %s: %s" % (
                g, r.stderr.decode()[:200]))
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
        for png in plot(a.out, groups):
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
