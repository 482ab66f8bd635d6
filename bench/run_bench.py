#!/usr/bin/env python3
"""run_bench.py - boot the benchmark kernel, collect the table, draw plots.

  run_bench.py --kernel build/gcc/kernel.elf [--out build/bench]
               [--plugin build/gcc/plugin/counter.so] [--cpus N]

Boots of the same kernel:
  1. single-CPU groups (`bench=single_*`) under `-accel tcg -icount shift=0`:
     the TSC counts guest instructions, so every figure is an exact,
     repeatable instruction count;
  2. counted scaling (`bench=counted_*`), one boot per CPU count in
     COUNTED_CPUS, under `-icount shift=0,sleep=off` with the counting
     plugin (bench/plugin/counter.c): instructions, lock acquisitions,
     spin iterations and cache-line transfers per operation, exact, with
     the cache's own cmpxchg16b retries and path counts from the kernel's
     COUNTED lines; pairs on every CPU and producer/consumer pairs of
     CPUs, for sheaves, cpu slabs and none; one boot is done twice and
     the two plugin outputs compared;
  3. wall-clock scaling (`bench=scaling_*`) under multi-threaded TCG with
     --cpus CPUs, by default no more than the host has cores: the TSC
     follows the wall clock, figures are cycles and noisy, so the spread
     (p10..p90) is reported with the median.
  4. the `numa` group on a 2-node machine (NUMA_OPTS: 4 CPUs, node 0 with
     CPUs 0-1 and 256 MiB, node 1 with CPUs 2-3 and 256 MiB) under
     `-icount shift=0`: remote objects handed out per slab_numa mode
     (exact counts), instructions per pair, memory parked per node;
     table in the report, numa.csv, numa.png.
The single-CPU boot includes the three cache modes side by side
(`single_mode_*`, bench/kernel/mode_bench.c); `single_kmalloc_pair` is
then booted once more per `slab_mode=` of KMALLOC_MODES for kmalloc()
under cpu slabs and under none, and the report gets a table of the modes
and modes.png (the batches against N, and the counted figures of each
mode against CPUs when the counted boots ran).
After the single-CPU boot, `single_rcu` is booted once more on 2 CPUs (its
grace-period rows with a CPU to wait for), and `single_pages` on its own:
its rows must not depend on what the groups before it left in the heap,
so each median must be what the full run gave (the report says which
differ, and the run fails if one does).
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
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests", "harness"))
import boottest  # noqa: E402

ROW = re.compile(r"BENCH (.*)$")
MACHINE = re.compile(r"bench: machine (.*)$")
FIELDS = ["group", "variant", "param", "ops", "median", "min", "p10", "p90",
          "max", "reps", "unit"]



def run_gnuplot(script, name):
    """Run one gnuplot script; False (with a line saying why) if it failed."""
    r = subprocess.run(["gnuplot"], input=script.encode(), capture_output=True)
    if r.returncode != 0:
        print("bench: gnuplot failed for %s: %s" % (name,
                                                   r.stderr.decode()[:200]))
    return r.returncode == 0


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


# ---- bytes parked per kmalloc class, by three sets of rules ----

# Linux 7.0 (mm/slub.c): the same thresholds on the slot size as ours
# (include nothing of ours: the columns are computed independently), a
# struct slab_sheaf header of 32 bytes (a 16-byte union of the barn link,
# rcu_head and capacity; the cache pointer; size; node), the capacity
# rounded up to fill the sheaf's kmalloc bucket, and a barn per node of at
# most MAX_FULL_SHEAVES = MAX_EMPTY_SHEAVES = 10.
LINUX_KMALLOC_SIZES = (8, 16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048,
                       4096, 8192)
LINUX_SHEAF_HEADER = 32
LINUX_BARN_MAX_FULL = 10
LINUX_BARN_MAX_EMPTY = 10
PAGE_SIZE = 4096

# bpf_mem_alloc (kernel/bpf/memalloc.c): per CPU and per unit size (16 ..
# 4096 bytes, 96 and 192 included) a free list refilled by irq_work below
# the low watermark and trimmed above the high one: low 32 / high 96 for
# units up to 256 bytes, else 32*256/unit and 96*256/unit (at least 1 and
# 3).  No shared level behind the CPUs.
BPF_UNIT_SIZES = (16, 32, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096)


def linux_sheaf(slot):
    """(capacity, bytes of the sheaf array) for a slot size, Linux's way."""
    if slot >= PAGE_SIZE:
        cap = 4
    elif slot >= 1024:
        cap = 12
    elif slot >= 256:
        cap = 26
    else:
        cap = 60
    want = LINUX_SHEAF_HEADER + cap * 8
    bucket = min(s for s in LINUX_KMALLOC_SIZES if s >= want)
    return (bucket - LINUX_SHEAF_HEADER) // 8, bucket


def bpf_high_watermark(unit):
    return 96 if unit <= 256 else max(96 * 256 // unit, 3)


def sheaf_worst(cap, slot, array, max_full, max_empty):
    """Worst case of sheaf rules: per CPU main and spare full; per barn
    max_full full sheaves and max_empty empty ones."""
    full = cap * slot + array
    return 2 * full, max_full * full + max_empty * array


def grouped_bytes(n):
    return "{:,}".format(n).replace(",", " ")


def class_memory_rows(rs):
    """{class name: {capacity, slot, sheaf_array, cpu: [..], barn}} and the
    barn limits, from the single_class_memory rows."""
    classes, limits = {}, {}
    for r in rs:
        v, value = r["variant"], int(float(r["median"]))
        if v.startswith("barn."):
            limits[v[len("barn."):]] = value
            continue
        name, what = v.split(".", 1)
        c = classes.setdefault(name, {"size": None, "cpu": []})
        if what in ("capacity", "slot", "sheaf_array"):
            c[what] = value
            c["size"] = int(r["param"])
        elif what == "after_workload.cpu":
            c["cpu"].append(value)
        elif what == "after_workload.barn":
            c["barn"] = value
    return classes, limits


def class_memory_table(groups):
    """Bytes parked per kmalloc class: worst case by our rules, Linux's and
    bpf_mem_alloc's, and what one CPU and the barn held after the
    workload (measured)."""
    rs = groups.get("single_class_memory")
    if not rs:
        return ""
    classes, limits = class_memory_rows(rs)
    lines = [
        "### Bytes parked per kmalloc class", "",
        "Worst case: per CPU, main and spare full (2 x capacity objects of "
        "the slot size, and the two sheaf arrays); per barn, its limit of "
        "full sheaves (%d) and of empty ones (%d).  Measured: after "
        "kmalloc() of 1000 objects of the class and kfree() of all of "
        "them, on one CPU.  Linux: the same rules computed from Linux's "
        "thresholds and barn limits (%d/%d); bpf_mem_alloc: its high "
        "watermark of one unit size per CPU, nothing shared."
        % (limits.get("max_full", 0), limits.get("max_empty", 0),
           LINUX_BARN_MAX_FULL, LINUX_BARN_MAX_EMPTY), "",
        "| class | capacity (ours / Linux) | sheaf array | worst per CPU | "
        "measured per CPU | Linux per CPU | bpf_mem_alloc per CPU | "
        "worst per barn | measured barn | Linux per barn |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    total = [0] * 7
    for name, c in sorted(classes.items(), key=lambda kv: kv[1]["size"]):
        if "capacity" not in c or "barn" not in c:
            continue
        cpu, barn = sheaf_worst(c["capacity"], c["slot"], c["sheaf_array"],
                                limits.get("max_full", 0),
                                limits.get("max_empty", 0))
        lcap, larray = linux_sheaf(c["slot"])
        lcpu, lbarn = sheaf_worst(lcap, c["slot"], larray,
                                  LINUX_BARN_MAX_FULL, LINUX_BARN_MAX_EMPTY)
        measured_cpu = max(c["cpu"]) if c["cpu"] else 0
        bpf = (bpf_high_watermark(c["size"]) * c["size"]
               if c["size"] in BPF_UNIT_SIZES else None)
        for i, v in enumerate((cpu, measured_cpu, lcpu, bpf or 0, barn,
                               c["barn"], lbarn)):
            total[i] += v
        lines.append("| %s | %d / %d | %d | %s | %s | %s | %s | %s | %s | "
                     "%s |" % (
                         name, c["capacity"], lcap, c["sheaf_array"],
                         grouped_bytes(cpu), grouped_bytes(measured_cpu),
                         grouped_bytes(lcpu),
                         grouped_bytes(bpf) if bpf is not None else "none",
                         grouped_bytes(barn), grouped_bytes(c["barn"]),
                         grouped_bytes(lbarn)))
    lines.append("| **all classes** | | | **%s** | **%s** | **%s** | **%s** "
                 "| **%s** | **%s** | **%s** |" % tuple(
                     grouped_bytes(t) for t in total))
    lines.append("")
    lines.append("Bytes; \"measured per CPU\" is the most any CPU held.  "
                 "bpf_mem_alloc has no 8-byte unit (an 8-byte request takes "
                 "a 16-byte one) and none above 4 KiB; its list may pass the "
                 "high watermark until the irq_work runs, and objects "
                 "waiting for an RCU grace period are not counted.  Linux "
                 "keeps a third sheaf per CPU, rcu_free, for kfree_rcu(): "
                 "up to one more full sheaf on a cache freed that way.")
    return "\n".join(lines) + "\n"


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


def write_plot_data(path, rows, columns):
    """One gnuplot data block per variant (in the order rows first name
    them), headed by its name, of the given columns; returns the variants."""
    variants = []
    for r in rows:
        if r["variant"] not in variants:
            variants.append(r["variant"])
    with open(path, "w") as f:
        for v in variants:
            f.write('"%s"\n' % v)
            for r in rows:
                if r["variant"] == v:
                    f.write(" ".join(str(r[c]) for c in columns) + "\n")
            f.write("\n\n")
    return variants


def plot(out, groups, mode):
    """One chart per group and unit with at least two params: the
    batch-size charts, the scaling curves (per CPU and aggregate)."""
    if not shutil.which("gnuplot"):
        print("bench: gnuplot not found, no plots")
        return []
    made = []
    for g, all_rs in groups.items():
        if (g.endswith("_memory") or g == "single_rcu" or
                g == "single_mode_stats"):
            continue   # no axis to plot: sizes and CPU counts mixed
        units = sorted(set(r.get("unit", "tsc/op") for r in all_rs))
        for unit in units:
            rs = [r for r in all_rs if r.get("unit", "tsc/op") == unit]
            params = sorted(set(int(r["param"]) for r in rs))
            if len(params) < 2:
                continue
            name = g if len(units) == 1 else "%s_%s" % (
                g, "throughput" if unit == "Mops/s" else "per_cpu")
            dat = os.path.join(out, name + ".dat")
            variants = write_plot_data(dat, rs, ("param", "median", "p10",
                                                 "p90"))
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
            if run_gnuplot(script, name):
                made.append(png)
    return made


# ---- the three cache modes side by side (bench/kernel/mode_bench.c) ----

MODE_CACHES = ("sheaf32", "sheaf", "cpu_slab", "none")
MODE_NS = (1, 10, 100, 1000)
# kmalloc() under each mode of the kmalloc classes: single_kmalloc_pair
# booted once more per slab_mode= (the full run gives the sheaf figure).
KMALLOC_MODES = ("cpuslab", "none")


def saving(fast, slow):
    """How much of the slower figure the faster one saves, in percent."""
    return "%.0f %%" % (100.0 * (1 - fast / slow)) if fast and slow else ""


def mode_kmalloc_rows(kernel, out, timeout):
    """{slab_mode: kmalloc pair at 64 bytes} from one boot per mode."""
    found = {}
    for mode in KMALLOC_MODES:
        log_path = os.path.join(out, "single_kmalloc_pair_%s.log" % mode)
        if boot(kernel, 1, "slab_mode=%s bench=single_kmalloc_pair" % mode,
                ["-icount", "shift=0"], log_path, timeout) is None:
            continue
        rows = parse_rows(log_path)[0]
        found[mode] = median_of([r for r in rows if r["group"] ==
                                 "single_kmalloc_pair"], "kmalloc", 64)
    return found


def modes_table(groups, kmalloc_modes):
    """The pair and allocate-N-then-free-N, the four caches in columns,
    and how much sheaves save against cpu slabs."""
    pair = groups.get("single_mode_pair", [])
    batch = groups.get("single_mode_batch", [])
    if not pair or not batch:
        return ""
    lines = ["### Three cache modes side by side (exact)", "",
             "_TCG, -icount shift=0, 1 CPU; instructions per "
             "alloc+free pair, benchmark loop included; 64-byte objects "
             "unless said; saving = 1 - sheaves / cpu slab_", "",
             "| pattern | N | sheaves, capacity 32 | sheaves, default "
             "capacity (60; 28 at 256 B) | cpu slab | none | saving, capacity 32 | "
             "saving, default |",
             "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for size in (64, 256):
        v = [median_of(pair, c, size) for c in MODE_CACHES]
        if None in v:
            continue
        lines.append("| pair, %d B | | %.2f | %.2f | %.2f | %.2f | %s | %s |"
                     % ((size,) + tuple(v) + (saving(v[0], v[2]),
                                              saving(v[1], v[2]))))
    for pattern in ("in_order", "shuffled"):
        for n in MODE_NS:
            v = [median_of(batch, "%s.%s" % (c, pattern), n)
                 for c in MODE_CACHES]
            if None in v:
                continue
            lines.append("| %s | %d | %.2f | %.2f | %.2f | %.2f | %s | %s |"
                         % ((pattern.replace("_", " "), n) + tuple(v) +
                            (saving(v[0], v[2]), saving(v[1], v[2]))))
    km = median_of(groups.get("single_kmalloc_pair", []), "kmalloc", 64)
    if km and kmalloc_modes:
        lines.append("")
        lines.append("`kmalloc(64)`+`kfree()` (variable size) with the "
                     "kmalloc classes in each mode: sheaves %.2f, %s." % (
                         km, ", ".join("slab_mode=%s %.2f" % (m, v)
                                       for m, v in kmalloc_modes.items()
                                       if v)))
    return "\n".join(lines) + "\n"


def modes_plot(out, groups):
    """modes.png: the four caches against N, in order and shuffled, and
    (when the counted boots ran) instructions per pair against CPUs."""
    batch = groups.get("single_mode_batch", [])
    if not shutil.which("gnuplot") or not batch:
        return []
    dat = os.path.join(out, "modes.dat")
    with open(dat, "w") as f:
        f.write("# N " + " ".join("%s.%s" % (c, p) for p in
                                   ("in_order", "shuffled")
                                   for c in MODE_CACHES) + "\n")
        for n in MODE_NS:
            vals = [median_of(batch, "%s.%s" % (c, p), n)
                    for p in ("in_order", "shuffled") for c in MODE_CACHES]
            f.write("%d %s\n" % (n, " ".join(str(v or 0) for v in vals)))
    titles = ("sheaves, capacity 32", "sheaves, capacity 60 (default)",
              "cpu slab", "none")
    # One colour per design in every panel.
    colours = ("#9400d3", "#009e73", "#0072b2", "#e69f00")
    counted = []
    path = os.path.join(out, "counted.csv")
    if os.path.exists(path):
        with open(path) as f:
            counted = [r for r in csv.DictReader(f)]
    cdat = os.path.join(out, "modes_counted.dat")
    cvariants = [("sheaves", "sheaves, pairs", 1), ("cpu_slab",
                 "cpu slab, pairs", 2), ("no_sheaves", "none, pairs", 3),
                 ("pc.sheaves", "sheaves, prod/cons", 1),
                 ("pc.cpu_slab", "cpu slab, prod/cons", 2),
                 ("pc.no_sheaves", "none, prod/cons", 3)]
    present = [(v, t, c) for v, t, c in cvariants
               if any(r["variant"] == v for r in counted)]
    with open(cdat, "w") as f:
        for v, _, _ in present:
            f.write('"%s"\n' % v)
            for r in counted:
                if r["variant"] == v:
                    f.write("%s %s %s\n" % (r["cpus"], r["insns_per_op"],
                                            r["transfers_per_op"]))
            f.write("\n\n")
    png = os.path.join(out, "modes.png")
    panels = 3 if present else 2
    script = ['set terminal pngcairo size %d,480 noenhanced' % (
                  450 * panels),
              'set output "%s"' % png,
              'set multiplot layout 1,%d title "three cache modes, 64-byte '
              'objects (QEMU -icount: guest instructions, exact)"' % panels,
              'set grid', 'set key below', 'set logscale x',
              'set xtics (1, 10, 100, 1000)', 'set xrange [0.7:1500]',
              'set yrange [0:*]', 'set xlabel "N"',
              'set ylabel "instructions per alloc+free pair"']
    for k, pattern in enumerate(("in order", "shuffled")):
        plots = ['"%s" using 1:%d with linespoints lc rgb "%s" title "%s"'
                 % (dat, 2 + 4 * k + i, colours[i], t)
                 for i, t in enumerate(titles)]
        script.append('set title "allocate N, free N (%s)"' % pattern)
        script.append("plot " + ", ".join(plots))
    if present:
        script += ['set title "counted, every CPU at once"',
                   'set logscale x 2', 'set xrange [0.8:20]',
                   'set xtics (1, 2, 4, 8, 16)', 'set xlabel "CPUs"',
                   'set ylabel "instructions per pair or object"',
                   'set key below font ",9"']
        plots = ['"%s" index %d using 1:2 with linespoints lc rgb "%s" '
                 'dt %d title "%s"' % (cdat, i, colours[c],
                                       2 if v.startswith("pc.") else 1, t)
                 for i, (v, t, c) in enumerate(present)]
        script.append("plot " + ", ".join(plots))
    script.append("unset multiplot")
    return [png] if run_gnuplot("\n".join(script) + "\n", "modes") else []


# ---- counted scaling: the plugin's figures ----

COUNTED_CPUS = (1, 2, 4, 8, 16)
COUNTED_CHECK_CPUS = 4           # the boot done twice, for determinism
COUNTED_OPTS = ["-icount", "shift=0,sleep=off", "-rtc",
                "base=2020-01-01T00:00:00,clock=vm"]
COUNTED_LINE = re.compile(r"COUNTED window=(\d+) variant=(\S+) cpus=(\d+) "
                          r"ops=(\d+)(.*)$")
# The cache's own statistics a COUNTED line carries (counted_bench.c).
COUNTED_EXTRAS = ("cpu_fail", "slab_fail", "free_frozen", "free_slow",
                  "refill", "alloc_slow", "shared_stats", "waits")
PLUGIN_LINE = re.compile(r"COUNT vcpu=(\d+) window=(\d+) insns=(\d+) "
                         r"locks=(\d+) spins=(\d+) transfers=(\d+)")
METRICS = ("insns", "locks", "spins", "transfers")
COUNTED_FIELDS = ["cpus", "variant", "ops_per_cpu", "insns_per_op",
                  "locks_per_op", "spins_per_op", "transfers_per_op",
                  "insns_min_cpu", "insns_max_cpu"] + [
                      e + "_per_op" for e in COUNTED_EXTRAS]


def kernel_symbols(kernel, names):
    """Addresses of the named symbols, from `nm`."""
    r = subprocess.run(["nm", kernel], capture_output=True, text=True,
                       check=True)
    found = {}
    for line in r.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] in names:
            found[parts[2]] = int(parts[0], 16)
    missing = [n for n in names if n not in found]
    if missing:
        raise SystemExit("bench: %s has no symbol %s" % (
            kernel, ", ".join(missing)))
    return found


def counted_boot(kernel, plugin, cpus, out, tag, timeout,
                 groups="counted_*"):
    """One boot under the plugin; (windows, counts) or None.  windows:
    {window: (variant, ops per CPU, {statistic: count})} from the
    kernel's COUNTED lines;
    counts: {window: {vcpu: {metric: n}}} from the plugin."""
    sym = kernel_symbols(kernel, ("bench_count_begin", "bench_count_end",
                                  "spin_lock"))
    counts_path = os.path.join(out, "counted-%d%s.txt" % (cpus, tag))
    log_path = os.path.join(out, "counted-%d%s.log" % (cpus, tag))
    if os.path.exists(counts_path):
        os.remove(counts_path)
    opts = COUNTED_OPTS + [
        "-plugin", "%s,begin=%#x,end=%#x,lock=%#x,out=%s" % (
            os.path.abspath(plugin), sym["bench_count_begin"],
            sym["bench_count_end"], sym["spin_lock"],
            os.path.abspath(counts_path))]
    if boot(kernel, cpus, "bench=" + groups, opts, log_path,
            timeout) is None or not os.path.exists(counts_path):
        return None
    windows, counts = {}, {}
    with open(log_path, errors="replace") as f:
        for line in f:
            m = COUNTED_LINE.search(line)
            if m:
                extras = dict(p.split("=", 1) for p in m.group(5).split()
                              if "=" in p)
                windows[int(m.group(1))] = (m.group(2), int(m.group(4)),
                                            extras)
    with open(counts_path) as f:
        raw = f.read()
    for m in PLUGIN_LINE.finditer(raw):
        v, w = int(m.group(1)), int(m.group(2))
        counts.setdefault(w, {})[v] = dict(
            zip(METRICS, (int(x) for x in m.group(3, 4, 5, 6))))
    return windows, counts, raw


def counted_rows(cpus, windows, counts):
    """Per window: the sums over every vCPU divided by all operations."""
    rows = []
    for w in sorted(windows):
        variant, ops, extras = windows[w]
        per_cpu = counts.get(w, {})
        if len(per_cpu) != cpus:
            print("bench: counted window %d on %d CPUs: plugin saw %d" % (
                w, cpus, len(per_cpu)))
            continue
        # Pairs: every CPU did ops of them.  Producer/consumer: "total"
        # objects, each one alloc on one CPU and one free on another.
        total_ops = int(extras.get("total", ops * cpus))
        row = {"cpus": cpus, "variant": variant, "ops_per_cpu": ops}
        for m in METRICS:
            row[m + "_per_op"] = "%.2f" % (
                sum(c[m] for c in per_cpu.values()) / total_ops)
        for e in COUNTED_EXTRAS:
            row[e + "_per_op"] = "%.2f" % (
                int(extras.get(e, 0)) / total_ops)
        # The ring's waits are PAUSEs too: the lock spins are the rest.
        row["spins_per_op"] = "%.2f" % (
            (sum(c["spins"] for c in per_cpu.values()) -
             int(extras.get("waits", 0))) / total_ops)
        insns = [c["insns"] / ops for c in per_cpu.values()]
        row["insns_min_cpu"] = "%.2f" % min(insns)
        row["insns_max_cpu"] = "%.2f" % max(insns)
        rows.append(row)
    return rows


def counted_table(rows):
    pairs = [r for r in rows if not r["variant"].startswith("pc.")]
    pcs = [r for r in rows if r["variant"].startswith("pc.")]
    lines = ["### Counted scaling (exact, QEMU plugin)", "",
             "_TCG, -icount shift=0,sleep=off, one boot per CPU count; "
             "64-byte kmem_cache_alloc()+kmem_cache_free() pairs on every "
             "CPU at once; figures per pair, averaged over the CPUs_", "",
             "| CPUs | variant | instructions | spin_lock() | spins "
             "(PAUSE) | line transfers | cmpxchg16b retries (cpu / slab) "
             "| shared stat adds | instructions, min..max CPU |",
             "|---:|---|---:|---:|---:|---:|---|---:|---|"]
    for r in pairs:
        lines.append("| %s | %s | %s | %s | %s | %s | %s / %s | %s | "
                     "%s .. %s |" % (
                         r["cpus"], r["variant"], r["insns_per_op"],
                         r["locks_per_op"], r["spins_per_op"],
                         r["transfers_per_op"], r["cpu_fail_per_op"],
                         r["slab_fail_per_op"], r["shared_stats_per_op"],
                         r["insns_min_cpu"], r["insns_max_cpu"]))
    if pcs:
        lines += ["", "#### Producer/consumer (counted)", "",
                  "_CPU 2k allocates, CPU 2k+1 frees through a ring of 64 "
                  "pointers; figures per object (one alloc + one remote "
                  "free), summed over every CPU; pc.ring is the hand-over "
                  "alone; spins exclude the ring's waits_", "",
                  "| CPUs | variant | instructions | per CPU, min..max (one "
                  "side alloc, the other free) | spin_lock() | lock spins | ring waits | "
                  "line transfers | cmpxchg16b retries (cpu / slab) | "
                  "FREE_FROZEN | FREE_SLOWPATH | ALLOC_REFILL |",
                  "|---:|---|---:|---|---:|---:|---:|---:|---|---:|---:|"
                  "---:|"]
        for r in pcs:
            lines.append("| %s | %s | %s | %s .. %s | %s | %s | %s | %s | "
                         "%s / %s | %s | %s | %s |" % (
                             r["cpus"], r["variant"], r["insns_per_op"],
                             r["insns_min_cpu"], r["insns_max_cpu"],
                             r["locks_per_op"], r["spins_per_op"],
                             r["waits_per_op"], r["transfers_per_op"],
                             r["cpu_fail_per_op"], r["slab_fail_per_op"],
                             r["free_frozen_per_op"],
                             r["free_slow_per_op"], r["refill_per_op"]))
    return "\n".join(lines) + "\n"


def counted_plots(out, rows):
    """Instructions per pair, and locks/spins/transfers per pair, against
    the CPU count, both variants."""
    rows = [r for r in rows if not r["variant"].startswith("pc.")]
    if not shutil.which("gnuplot") or not rows:
        return []
    dat = os.path.join(out, "counted.dat")
    variants = write_plot_data(dat, rows, ("cpus", "insns_per_op",
                                           "locks_per_op", "spins_per_op",
                                           "transfers_per_op"))
    xtics = ", ".join(str(n) for n in sorted(set(r["cpus"] for r in rows)))
    made = []
    charts = [
        ("counted_instructions", "guest instructions per pair (exact)",
         ["2:instructions"]),
        ("counted_sharing", "per pair (exact)",
         ["3:spin_lock() calls", "4:spin iterations (PAUSE)",
          "5:cache-line transfers"]),
    ]
    for name, ylabel, cols in charts:
        png = os.path.join(out, name + ".png")
        plots = []
        for i, v in enumerate(variants):
            for c in cols:
                col, what = c.split(":", 1)
                plots.append('"%s" index %d using 1:%s with linespoints '
                             'title "%s, %s"' % (dat, i, col, v, what))
        script = (
            'set terminal pngcairo size 900,540 noenhanced\n'
            'set output "%s"\nset title "%s (QEMU plugin, -icount)"\n'
            'set xlabel "CPUs"\nset ylabel "%s"\nset logscale x 2\n'
            'set xrange [0.8:20]\n'
            'set xtics (%s)\nset yrange [0:*]\nset key outside right\n'
            'set grid\nplot %s\n' % (png, name, ylabel, xtics,
                                     ", ".join(plots)))
        if run_gnuplot(script, name):
            made.append(png)
    return made


def counted_timeout(timeout, cpus):
    """The limit of one counted boot.  Most of a many-CPU boot is the boot
    itself: every vCPU in one TCG thread, the plugin's callbacks on every
    memory access, and the APs brought up one after another (a 16-CPU
    boot with no group at all takes minutes on a loaded 2-core host).
    So the limit grows with the CPUs: --timeout for up to 4, then in
    proportion."""
    return timeout * max(1, cpus // 4)


def counted_section(kernel, plugin, out, timeout):
    """Every CPU count of COUNTED_CPUS, and the determinism check: the
    boots run side by side, one per host core (each QEMU under -icount is
    one thread; the counts do not depend on the host)."""
    jobs = [(n, "") for n in COUNTED_CPUS] + [(COUNTED_CHECK_CPUS, "-again")]
    # One ISO for every boot, made before they start side by side.
    boottest.build_iso(kernel, "bench=counted_*", out)
    with ThreadPoolExecutor(max_workers=boottest.host_cpus()) as pool:
        results = list(pool.map(
            lambda j: counted_boot(kernel, plugin, j[0], out, j[1],
                                   counted_timeout(timeout, j[0])),
            jobs))
    rows, ok = [], True
    for (n, tag), res in zip(jobs, results):
        if res is None:
            print("bench: counted boot on %d CPUs failed" % n)
            ok = False
        elif not tag:
            rows += counted_rows(n, res[0], res[1])
    with open(os.path.join(out, "counted.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=COUNTED_FIELDS)
        w.writeheader()
        for r in rows:
            w.writerow(r)
    text = [counted_table(rows)]
    first = results[COUNTED_CPUS.index(COUNTED_CHECK_CPUS)]
    again = results[-1]
    if first and again:
        same = first[2] == again[2]
        text.append("Determinism: the %d-CPU boot was done twice; the "
                    "plugin's raw counts (%d lines) are %s.\n" % (
                        COUNTED_CHECK_CPUS, first[2].count("\n"),
                        "**identical**" if same else "**different**"))
        ok = ok and same
    for png in counted_plots(out, rows):
        text.append("![%s](%s)\n" % (os.path.basename(png),
                                     os.path.basename(png)))
    return "\n".join(text), ok


def check_plugin(kernel, plugin, out, timeout):
    """For `make test`: the plugin loads, counts, and counts the same twice
    (two 2-CPU boots side by side, of counted_pair only, to stay short).
    0 when all of that holds."""
    cpus = 2
    boottest.build_iso(kernel, "bench=counted_pair", out)
    with ThreadPoolExecutor(max_workers=2) as pool:
        runs = list(pool.map(
            lambda tag: counted_boot(kernel, plugin, cpus, out, tag, timeout,
                                     "counted_pair"),
            ("-a", "-b")))
    checks = []
    checks.append(("boots and plugin output", all(runs)))
    if all(runs):
        rows = counted_rows(cpus, runs[0][0], runs[0][1])
        by = {r["variant"]: r for r in rows}
        checks.append(("counts something",
                       "sheaves" in by and float(by["sheaves"]
                                                 ["insns_per_op"]) > 0))
        checks.append(("no_sheaves takes the lock twice a pair",
                       "no_sheaves" in by and
                       by["no_sheaves"]["locks_per_op"] == "2.00"))
        checks.append(("two runs identical", runs[0][2] == runs[1][2]))
    failed = 0
    for i, (name, ok) in enumerate(checks, 1):
        print("%s %d plugin: %s" % ("ok" if ok else "not ok", i, name))
        failed += not ok
    print("plugin check: %d passed, %d failed (logs in %s)" % (
        len(checks) - failed, failed, out))
    return 1 if failed else 0


# ---- NUMA: remote objects and what the node rules cost ----

NUMA_CPUS = 4
NUMA_OPTS = ["-icount", "shift=0",
             "-object", "memory-backend-ram,id=m0,size=256M",
             "-object", "memory-backend-ram,id=m1,size=256M",
             "-numa", "node,nodeid=0,cpus=0-1,memdev=m0",
             "-numa", "node,nodeid=1,cpus=2-3,memdev=m1"]
NUMA_MODES = ("blind", "linux", "strict")
NUMA_PATTERNS = ("cross", "local", "local_deep")
NUMA_LOOP_INSNS = 3   # the stand-ins' own: mov + ret, ret
NUMA_FIELDS = ["mode", "cross_remote_pct", "cross_remote_min_cpu_pct",
               "cross_remote_max_cpu_pct", "local_remote_pct",
               "local_deep_remote_pct", "cross_insns_per_pair",
               "local_insns_per_pair", "cross_alloc", "cross_free",
               "local_alloc", "local_free", "sheaf_objects",
               "sheaf_remote", "sheaf_bytes", "barn_objects_node0",
               "barn_objects_node1", "barn_remote", "barn_bytes",
               "slabs_node0", "slabs_node1", "numastat_other"]


def numa_values(rows, variant):
    """{param: value} of the rows of one variant."""
    return {int(r["param"]): float(r["median"]) for r in rows
            if r["variant"] == variant}


def numa_summary(rows):
    """One dict per mode (NUMA_FIELDS), from the numa group's rows."""
    loop_a = median_of(rows, "loop.alloc", 64)
    loop_f = median_of(rows, "loop.free", 64)
    out = []
    for m in NUMA_MODES:
        r = {"mode": m}
        for p in NUMA_PATTERNS:
            handed = numa_values(rows, "%s.%s.handed" % (m, p))
            remote = numa_values(rows, "%s.%s.remote" % (m, p))
            total = sum(handed.values())
            r["%s_remote_pct" % p] = ("%.1f" % (100.0 * sum(remote.values())
                                                / total) if total else "")
            if p == "cross" and total:
                pcts = [100.0 * remote[c] / handed[c] for c in handed
                        if handed[c]]
                r["cross_remote_min_cpu_pct"] = "%.1f" % min(pcts)
                r["cross_remote_max_cpu_pct"] = "%.1f" % max(pcts)
        for p in ("cross", "local"):
            a = median_of(rows, "%s.%s.alloc" % (m, p), 64)
            f = median_of(rows, "%s.%s.free" % (m, p), 64)
            r["%s_alloc" % p] = "%.2f" % a if a is not None else ""
            r["%s_free" % p] = "%.2f" % f if f is not None else ""
            if None not in (a, f, loop_a, loop_f):
                r["%s_insns_per_pair" % p] = "%.1f" % (
                    a + f - loop_a - loop_f + NUMA_LOOP_INSNS)
        for what in ("objects", "remote", "bytes"):
            r["sheaf_" + what] = "%d" % sum(numa_values(
                rows, "%s.sheaves.%s" % (m, what)).values())
        barn = numa_values(rows, "%s.barn.objects" % m)
        slabs = numa_values(rows, "%s.slabs" % m)
        for nid in (0, 1):
            r["barn_objects_node%d" % nid] = "%d" % barn.get(nid, 0)
            r["slabs_node%d" % nid] = "%d" % slabs.get(nid, 0)
        r["barn_remote"] = "%d" % sum(numa_values(
            rows, "%s.barn.remote" % m).values())
        r["barn_bytes"] = "%d" % sum(numa_values(
            rows, "%s.barn.bytes" % m).values())
        r["numastat_other"] = "%d" % sum(numa_values(
            rows, "%s.numastat.other" % m).values())
        out.append(r)
    return out


def numa_table(summary):
    lines = [
        "### NUMA: remote objects and what the node rules cost", "",
        "_TCG, -icount shift=0, %d CPUs on 2 nodes (CPUs 0-1 node 0, 2-3 "
        "node 1, 256 MiB each); 64-byte objects, a cache per mode_" %
        NUMA_CPUS, "",
        "| mode | cross: remote (per CPU) | local: remote | local_deep: "
        "remote | instr/pair cross | instr/pair local | parked in sheaves "
        "(remote) | in barns node 0 / 1 (remote) | bytes sheaves + barns | "
        "slabs node 0 / 1 | numastat other_node |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for r in summary:
        lines.append(
            "| %s | %s %% (%s .. %s) | %s %% | %s %% | %s | %s | %s (%s) | "
            "%s / %s (%s) | %s | %s / %s | %s |" % (
                r["mode"], r.get("cross_remote_pct", ""),
                r.get("cross_remote_min_cpu_pct", ""),
                r.get("cross_remote_max_cpu_pct", ""),
                r.get("local_remote_pct", ""),
                r.get("local_deep_remote_pct", ""),
                r.get("cross_insns_per_pair", ""),
                r.get("local_insns_per_pair", ""), r["sheaf_objects"],
                r["sheaf_remote"], r["barn_objects_node0"],
                r["barn_objects_node1"], r["barn_remote"],
                grouped_bytes(int(r["sheaf_bytes"]) + int(r["barn_bytes"])),
                r["slabs_node0"], r["slabs_node1"], r["numastat_other"]))
    lines.append("")
    lines.append("Remote: objects handed out whose memory is on another node "
                 "than the allocating CPU's, counted exactly.  Instructions "
                 "per pair: alloc side + free side - the loop + %d, one CPU "
                 "at a time (no contention)." % NUMA_LOOP_INSNS)
    return "\n".join(lines) + "\n"


def numa_plot(out, summary):
    """Two panels by mode: remote fraction (cross, local, local_deep) and
    instructions per pair (cross, local)."""
    if not shutil.which("gnuplot") or not summary:
        return []
    dat = os.path.join(out, "numa.dat")
    cols = ("mode", "cross_remote_pct", "local_remote_pct",
            "local_deep_remote_pct", "cross_insns_per_pair",
            "local_insns_per_pair")
    with open(dat, "w") as f:
        f.write("# " + " ".join(cols) + "\n")
        for r in summary:
            f.write(" ".join(str(r.get(c) or 0) for c in cols) + "\n")
    png = os.path.join(out, "numa.png")
    script = (
        'set terminal pngcairo size 1000,460 noenhanced\n'
        'set output "%s"\n'
        'set multiplot layout 1,2 title "numa: 2 nodes, 4 CPUs, 64-byte '
        'objects (QEMU -icount: counts, not latency)"\n'
        'set style data histograms\nset style histogram clustered gap 1\n'
        'set style fill solid 0.8 border -1\nset boxwidth 0.9\n'
        'set grid ytics\nset key below\n'
        'set title "objects handed out that are remote"\n'
        'set ylabel "%% of objects"\nset yrange [0:100]\n'
        'plot "%s" using 2:xtic(1) title "cross-node", '
        '"" using 3 title "local after it", '
        '"" using 4 title "local, 256-object batches"\n'
        'set title "instructions per alloc+free pair"\n'
        'set ylabel "guest instructions (exact)"\nset yrange [0:*]\n'
        'plot "%s" using 5:xtic(1) title "cross-node", '
        '"" using 6 title "local"\n'
        'unset multiplot\n' % (png, dat, dat))
    return [png] if run_gnuplot(script, "numa") else []


def numa_section(kernel, out, timeout):
    """Boot the numa group on the 2-node machine; (report text, ok)."""
    title = "### NUMA: remote objects and what the node rules cost"
    log_path = os.path.join(out, "numa.log")
    if boot(kernel, NUMA_CPUS, "bench=numa", NUMA_OPTS, log_path,
            timeout) is None:
        return title + "\n\nboot failed\n", False
    rows = [r for r in parse_rows(log_path)[0] if r["group"] == "numa"]
    if not rows:
        return title + "\n\nno rows (see numa.log)\n", False
    write_csvs(rows, out)   # numa.csv: the raw rows
    summary = numa_summary(rows)
    with open(os.path.join(out, "numa_summary.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=NUMA_FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in summary:
            w.writerow(r)
    text = [numa_table(summary)]
    for png in numa_plot(out, summary):
        text.append("![%s](%s)\n" % (os.path.basename(png),
                                     os.path.basename(png)))
    return "\n".join(text), True


# The rows of single_pages: the per-CPU lists at orders 0 and 3, the buddy
# at 0, 3 and 4 (params as the kernel prints them).
PAGE_ROWS = [("pcp_list", "0"), ("pcp_list", "3"), ("buddy", "0"),
             ("buddy", "3"), ("buddy", "4")]


def page_rows_alone(kernel, out, timeout, full_rows):
    """Boot `single_pages` alone (-icount) and compare its medians with
    those of the same group in the full single-CPU run.  Returns (report
    text, ok)."""
    log_path = os.path.join(out, "single_pages_alone.log")
    if boot(kernel, 1, "bench=single_pages", ["-icount", "shift=0"],
            log_path, timeout) is None:
        return "### single_pages alone\n\nboot failed\n", False
    alone = {(r["variant"], r["param"]): r["median"]
             for r in parse_rows(log_path)[0] if r["group"] == "single_pages"}
    full = {(r["variant"], r["param"]): r["median"] for r in full_rows}
    # Every row the group has (bench/kernel/slab_bench.c run_pages()) must
    # be in both runs: a row missing from either would otherwise pass.
    differ = ["%s order %s: alone %s, after the other groups %s" % (
        v, p, alone.get((v, p), "missing"), full.get((v, p), "missing"))
        for (v, p) in sorted(set(PAGE_ROWS) | set(full) | set(alone))
        if (v, p) not in full or alone.get((v, p)) != full[(v, p)]]
    if differ:
        print("bench: single_pages rows depend on the groups before them")
        return ("### single_pages alone\n\n**The page rows differ when "
                "the group runs alone** (each row must make its own "
                "state):\n\n" + "\n".join("- " + d for d in differ) +
                "\n"), False
    return ("### single_pages alone\n\nBooted alone, `single_pages` gives "
            "the same median in each of its %d rows as after the other "
            "groups.\n" % len(full)), True


RCU_TWO_CPUS = 2


def rcu_rows_on_two_cpus(kernel, out, timeout):
    """Boot `single_rcu` on RCU_TWO_CPUS CPUs (-icount): the grace-period
    rows with a second CPU to wait for.  Returns (report text, ok)."""
    log_path = os.path.join(out, "single_rcu_2cpus.log")
    title = "### single_rcu on %d CPUs" % RCU_TWO_CPUS
    if boot(kernel, RCU_TWO_CPUS, "bench=single_rcu", ["-icount", "shift=0"],
            log_path, timeout) is None:
        return title + "\n\nboot failed\n", False
    rows = [r for r in parse_rows(log_path)[0] if r["group"] == "single_rcu"]
    with open(os.path.join(out, "single_rcu_2cpus.csv"), "w",
              newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS, extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow(r)
    mode = "TCG, -icount shift=0, %d CPUs" % RCU_TWO_CPUS
    text = table({"single_rcu": rows}, title[4:], mode)
    return "#" + text, bool(rows)


def rcu_summary(rs):
    """kfree_rcu() per object with and without the rcu_free sheaf."""
    on = median_of(rs, "kfree_rcu.sheaves", 64)
    off = median_of(rs, "kfree_rcu.no_sheaves", 64)
    if not (on and off):
        return ""
    return ("- kfree_rcu() of a 64-byte object: %.0f instructions into the "
            "rcu_free sheaf, %.0f as a call_rcu() of its own (no sheaves)\n"
            % (on, off))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--out", default="build/bench")
    ap.add_argument("--cpus", type=int, default=None,
                    help="CPUs of the wall-clock run (default: the host's "
                    "cores, at most 4)")
    ap.add_argument("--plugin", help="counter.so; without it no counted "
                    "rows")
    ap.add_argument("--timeout", type=float, default=240)
    ap.add_argument("--check-plugin", action="store_true",
                    help="only the quick plugin check of `make test`")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    if a.check_plugin:
        return check_plugin(a.kernel, a.plugin, a.out, a.timeout)

    report = ["# Benchmark report", ""]
    all_ok = True
    # Wall clock only where every vCPU can have a host core of its own:
    # beyond that the figures measure the host's scheduler.
    host = boottest.host_cpus()
    if a.cpus is None:
        a.cpus = min(4, host)
    if a.plugin:
        text, ok = counted_section(a.kernel, a.plugin, a.out, a.timeout)
        report.append(text)
        all_ok = all_ok and ok
    runs = [
        ("Single CPU", 1, "bench=single_*", ["-icount", "shift=0"],
         "single.log", "TCG, -icount shift=0 (TSC = guest instructions), "
         "1 CPU"),
        ("Scaling, wall clock (vCPUs <= host cores)", a.cpus,
         "bench=scaling_*", [], "scaling.log",
         "multi-threaded TCG (TSC = wall clock, noisy), %d CPUs on %d host "
         "cores%s" % (a.cpus, host, "" if a.cpus <= host else
                      ": MORE vCPUs THAN CORES, the host's scheduler shows")),
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
        if "single_rcu" in groups:
            report.append(rcu_summary(groups["single_rcu"]))
            text, ok = rcu_rows_on_two_cpus(a.kernel, a.out, a.timeout)
            report.append(text)
            all_ok = all_ok and ok
        report.append(class_memory_table(groups))
        if "single_mode_batch" in groups:
            report.append(modes_table(groups, mode_kmalloc_rows(
                a.kernel, a.out, a.timeout)))
            for png in modes_plot(a.out, groups):
                report.append("![%s](%s)\n" % (os.path.basename(png),
                                               os.path.basename(png)))
        if "single_pages" in groups:
            text, ok = page_rows_alone(a.kernel, a.out, a.timeout,
                                       groups["single_pages"])
            report.append(text)
            all_ok = all_ok and ok
        for png in plot(a.out, groups, mode):
            report.append("![%s](%s)\n" % (os.path.basename(png),
                                           os.path.basename(png)))
    text, ok = numa_section(a.kernel, a.out, a.timeout)
    report.append(text)
    all_ok = all_ok and ok
    text = "\n".join(report)
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write(text)
    print(text)
    print("bench: CSV, plots and report.md in %s" % a.out)
    return 0 if all_ok else 1


if __name__ == "__main__":
    sys.exit(main())
