#!/usr/bin/env python3
"""viz.py - turn a boot's allocator snapshots into one page that replays them.

  viz.py SNAPSHOTS.log [--console BOOT.log] [--title T] -o PAGE.html
  viz.py --kernel ELF --workload storm|prodcons|shrink [--smp N] [--mem M]
         [--every MS] [--cmdline "..."] -o PAGE.html      (make viz)

SNAPSHOTS.log is what the kernel wrote on COM2 with `viz=MS` (kernel/viz.c;
the grammar is in docs/viz.md).  The page is one self-contained HTML file:
the snapshots inlined as JSON, hand-written JavaScript and SVG, no library,
nothing fetched.  It shows, at the instant the timeline slider picks (play
and pause step through it):

  - per-CPU sheaves: for every cache, a bar per CPU for main and spare
    (how full, of sheaf_capacity); a cache without sheaves has no bars;
  - the barn and the slab lists of each node: full and empty sheaves,
    partial and full slabs;
  - the buddy allocator: free blocks per zone and order as a heat map, and
    each CPU's per-CPU page list;
  - per CPU: NMIs taken, nolock NULLs, deferred frees;
  - under the slider, markers where NMIs were taken, where sheaves were
    flushed, where nolock calls returned NULL, and (with --console) where
    each test case ended.

With --kernel it first boots the kernel (tests/harness/boottest.py) on a
workload (WORKLOADS below) with viz=MS and QEMU's second serial port
written to PAGE's name with .viz.log, the console log beside it as
.console.log.

Hovering any bar or cell names the Linux field it shows.  Clicking a cache
name selects it in every view.  The URL fragment #t=K opens the page at
snapshot K (the `s K` line of the log), and every number drawn for that
instant is also an element with an id and a data-value attribute, so a
test can read them back from the DOM (tests/harness/viz_check.py).
"""
import argparse
import html
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# make viz WORKLOAD=...: what each boots (the suites and the benchmark
# group are in tests/kernel/ and bench/kernel/).
WORKLOADS = {
    # NMIs on every CPU allocating with kmalloc_nolock() while task code
    # allocates and frees: sheaves churn, NULLs and deferred frees.
    "storm": "test=nmi_storm",
    # CPU 2k allocates, CPU 2k+1 frees: one CPU's main fills, the other's
    # empties, full and empty sheaves go through the barn.
    "prodcons": "bench=scaling_producer_consumer",
    # The sheaf suite, whose shrinks and flushes empty every CPU's sheaves.
    "shrink": "test=slab_sheaf,sheaf_flush",
}

# The order of the numbers on a `c` line after the CPU number
# (kernel/viz.c, viz_put_cpu()).
CPU_FIELDS = ("nmis", "page_alloc_busy", "page_alloc_nomem",
              "obj_alloc_busy", "obj_alloc_nomem", "page_free_deferred",
              "obj_free_deferred", "deferred_now")


def number_or_none(word):
    return None if word == "-" else int(word)


def parse(lines):
    """The header and the complete snapshots of a viz log.  A snapshot cut
    off (no `e` line: the boot ended inside it) is dropped; lines that are
    not records (a console echo, a blank line) are ignored."""
    header = None
    snaps = []
    cur = None
    for raw in lines:
        w = raw.split()
        if not w:
            continue
        kind = w[0]
        try:
            if kind == "h":
                header = {"version": int(w[1]), "every_ms": int(w[2]),
                          "cpus": int(w[3]), "nodes": int(w[4]),
                          "orders": int(w[5]), "barn_max_full": int(w[6]),
                          "barn_max_empty": int(w[7])}
            elif header is None:
                continue
            elif kind == "s":
                cur = {"seq": int(w[1]), "t": float(w[2]),
                       "tick": int(w[3]), "cpus": [], "zones": [],
                       "caches": {}}
            elif cur is None:
                continue
            elif kind == "c":
                cur["cpus"].append(dict(zip(CPU_FIELDS,
                                            map(int, w[2:2 + len(CPU_FIELDS)]))))
            elif kind == "z":
                o, c = header["orders"], header["cpus"]
                nums = [int(x) for x in w[3:]]
                cur["zones"].append({"node": int(w[1]), "name": w[2],
                                     "free": nums[:o], "pcp": nums[o:o + c],
                                     "deferred": nums[o + c]})
            elif kind == "k":
                c, n = header["cpus"], header["nodes"]
                rest = w[3:]
                sheaves = [number_or_none(x) for x in rest[:2 * c]]
                nodes = [[int(x) for x in rest[2 * c + 4 * i:2 * c + 4 * i + 4]]
                         for i in range(n)]
                tail = [int(x) for x in rest[2 * c + 4 * n:]]
                cur["caches"][w[1]] = {
                    "cap": int(w[2]), "main": sheaves[0::2],
                    "spare": sheaves[1::2], "nodes": nodes,
                    "flush": tail[0], "alloc_slab": tail[1],
                    "free_slab": tail[2]}
            elif kind == "e":
                if int(w[1]) == cur["seq"]:
                    snaps.append(cur)
                cur = None
        except (IndexError, ValueError):
            cur = None    # a garbled record spoils its snapshot only
    return header, snaps


# A KTAP result line of the console log, with printk's stamp.
CONSOLE_CASE = re.compile(r"^\[\s*(\d+\.\d+)\] cpu\d+: +(not ok|ok) \d+ (\S+)")


def console_events(path):
    events = []
    with open(path, errors="replace") as f:
        for line in f:
            m = CONSOLE_CASE.match(line)
            if m:
                events.append({"t": float(m.group(1)),
                               "text": "%s %s" % (m.group(2), m.group(3))})
    return events


def page(title, header, snaps, events):
    data = json.dumps({"header": header, "snaps": snaps, "events": events},
                      separators=(",", ":"))
    # </script> inside the JSON would end the script element early.
    data = data.replace("</", "<\\/")
    return (PAGE.replace("@TITLE@", html.escape(title))
                .replace("@DATA@", data))


def boot(a):
    """Boot a workload with viz= and COM2 to a file; returns the two logs'
    paths, or None after saying why."""
    sys.path.insert(0, os.path.join(ROOT, "tests", "harness"))
    import boottest  # noqa: E402
    base = os.path.splitext(a.output)[0]
    viz_log, console_log = base + ".viz.log", base + ".console.log"
    os.makedirs(os.path.dirname(os.path.abspath(a.output)), exist_ok=True)
    if os.path.exists(viz_log):
        os.remove(viz_log)
    cmdline = " ".join(x for x in (WORKLOADS[a.workload],
                                   "viz=%d" % a.every, a.cmdline) if x)
    log, status, timed_out, secs, accel = boottest.run_boot(
        a.kernel, a.smp, a.mem, cmdline, a.timeout, console_log,
        extra_opts=com2_opts(viz_log))
    print("viz.py: booted %r (SMP=%s MEM=%s, %.1f s, %s), console log %s"
          % (cmdline, a.smp, a.mem, secs, accel, console_log))
    if timed_out:
        print("viz.py: the boot timed out; drawing what it wrote",
              file=sys.stderr)
    return viz_log, console_log


def com2_opts(path):
    """QEMU options for a second UART (COM2, 0x2f8) written to path.  An
    explicit index=1 leaves COM1 to the harness's own -serial, whatever
    the order of the options."""
    return ["-chardev", "file,id=viz,path=%s" % path,
            "-device", "isa-serial,chardev=viz,index=1"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("log", nargs="?")
    ap.add_argument("--kernel", help="boot this kernel first")
    ap.add_argument("--workload", choices=sorted(WORKLOADS), default="storm")
    ap.add_argument("--smp", default="2")
    ap.add_argument("--mem", default="128M")
    ap.add_argument("--every", type=int, default=20, help="viz= (ms)")
    ap.add_argument("--cmdline", default="", help="more boot options")
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--console", help="the boot's console log (COM1): "
                    "its test cases become markers")
    ap.add_argument("--title", default="")
    ap.add_argument("-o", "--output", required=True)
    a = ap.parse_args()
    if a.kernel:
        a.log, a.console = boot(a)
        a.title = a.title or "allocator replay: %s, SMP=%s" % (a.workload,
                                                               a.smp)
    elif not a.log:
        ap.error("a snapshot log, or --kernel to boot one")
    with open(a.log, errors="replace") as f:
        header, snaps = parse(f)
    if header is None or not snaps:
        print("viz.py: %s holds no complete snapshot (was the boot given "
              "viz= and a second serial port?)" % a.log, file=sys.stderr)
        return 1
    events = console_events(a.console) if a.console else []
    title = a.title or "allocator replay: %s" % a.log
    with open(a.output, "w") as f:
        f.write(page(title, header, snaps, events))
    print("viz.py: %s: %d snapshots, %.3f s to %.3f s, every %d ms"
          % (a.output, len(snaps), snaps[0]["t"], snaps[-1]["t"],
             header["every_ms"]))
    return 0


PAGE = r"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<title>@TITLE@</title>
<style>
body { font: 13px/1.35 sans-serif; margin: 12px; color: #222; background: #fafafa; }
h1 { font-size: 16px; margin: 0 0 8px; }
h2 { font-size: 14px; margin: 0 0 6px; }
#controls { display: flex; gap: 10px; align-items: center; }
#slider { flex: 1; }
#markers { display: block; width: 100%; height: 34px; cursor: pointer; background: #fff; border: 1px solid #ddd; }
.grid { display: grid; grid-template-columns: 1fr 1fr; gap: 12px; margin-top: 10px; }
.panel { background: #fff; border: 1px solid #ddd; padding: 8px; overflow-x: auto; }
table { border-collapse: collapse; }
td, th { padding: 1px 4px; text-align: left; white-space: nowrap; }
th { font-weight: 600; font-size: 12px; color: #555; }
.num { text-align: right; font-variant-numeric: tabular-nums; }
.cname { cursor: pointer; }
tr.sel td { background: #fff3c4; }
.legend span { display: inline-block; margin-right: 10px; }
.sw { display: inline-block; width: 10px; height: 10px; vertical-align: middle; margin-right: 3px; }
.muted { color: #999; }
</style></head>
<body>
<h1>@TITLE@</h1>
<div id="controls">
  <button id="play">play</button>
  <input id="slider" type="range" min="0" value="0">
  <span>snapshot <b id="v-seq"></b> of <span id="v-count"></span>,
    t = <b id="v-time"></b> s</span>
  <select id="speed"><option value="1">1x</option><option value="4" selected>4x</option><option value="16">16x</option></select>
</div>
<svg id="markers"></svg>
<div class="legend"><span><i class="sw" style="background:#d33"></i>NMIs taken</span><span><i class="sw" style="background:#36c"></i>sheaf flushes (SHEAF_FLUSH)</span><span><i class="sw" style="background:#e90"></i>nolock NULLs</span><span><i class="sw" style="background:#393"></i>test case ended</span><span id="v-event" class="muted"></span></div>
<div class="grid">
  <div class="panel"><h2>Per-CPU sheaves (main | spare)</h2><table id="sheaves"></table></div>
  <div class="panel"><h2>Barn and slab lists, per node</h2><table id="lists"></table></div>
  <div class="panel"><h2>Buddy: free blocks per order</h2><svg id="buddy"></svg><h2>Per-CPU page lists</h2><table id="pcp"></table></div>
  <div class="panel"><h2>CPUs: NMIs and the any-context paths</h2><table id="cpus"></table></div>
</div>
<script id="viz-data" type="application/json">@DATA@</script>
<script>
"use strict";
const D = JSON.parse(document.getElementById("viz-data").textContent);
const H = D.header, S = D.snaps, NS = "http://www.w3.org/2000/svg";
const BAR_W = 70, BAR_H = 12;
let cur = 0, timer = null, selected = null;

function el(tag, attrs, text) {
  const e = tag.startsWith("svg:") ? document.createElementNS(NS, tag.slice(4))
                                   : document.createElement(tag);
  for (const k in attrs || {}) e.setAttribute(k, attrs[k]);
  if (text !== undefined) e.textContent = text;
  return e;
}
function idName(s) { return s.replace(/[^A-Za-z0-9_-]/g, "_"); }
function tip(e, text) { e.appendChild(el("svg:title", {}, text)); return e; }
// An SVG bar of value out of max; id and data-value carry the number.
function bar(id, value, max, color, hover) {
  const svg = el("svg:svg", {width: BAR_W + 26, height: BAR_H});
  const w = max > 0 ? Math.round(BAR_W * Math.min(value, max) / max) : 0;
  svg.appendChild(tip(el("svg:rect", {x: 0, y: 0, width: BAR_W, height: BAR_H, fill: "#eee"}), hover));
  svg.appendChild(tip(el("svg:rect", {id: id, "data-value": value, x: 0, y: 0,
                                      width: w, height: BAR_H, fill: color}), hover));
  svg.appendChild(tip(el("svg:text", {x: BAR_W + 3, y: BAR_H - 2, "font-size": 10}, value), hover));
  return svg;
}
function numCell(id, value, hover) {
  const td = el("td", {class: "num", id: id, "data-value": value, title: hover}, value);
  return td;
}
const allCaches = [];
for (const s of S) for (const name in s.caches) if (!allCaches.includes(name)) allCaches.push(name);

function selectCache(name) { selected = selected === name ? null : name; draw(); }
function cacheLabel(name) {
  const td = el("td", {class: "cname", title: "click: select " + name + " in every view"}, name);
  td.onclick = () => selectCache(name);
  return td;
}

function drawSheaves(s) {
  const t = document.getElementById("sheaves"); t.textContent = "";
  const head = el("tr"); head.appendChild(el("th", {}, "cache"));
  head.appendChild(el("th", {}, "cap"));
  for (let c = 0; c < H.cpus; c++) head.appendChild(el("th", {}, "cpu" + c));
  t.appendChild(head);
  for (const name of allCaches) {
    const k = s.caches[name], tr = el("tr", {class: name === selected ? "sel" : ""});
    tr.appendChild(cacheLabel(name));
    if (!k) { tr.appendChild(el("td", {class: "muted", colspan: H.cpus + 1}, "no slab yet")); t.appendChild(tr); continue; }
    tr.appendChild(el("td", {class: "num", title: "kmem_cache.sheaf_capacity"}, k.cap));
    for (let c = 0; c < H.cpus; c++) {
      const td = el("td");
      if (k.cap === 0) { td.className = "muted"; td.textContent = c ? "" : "no sheaves"; }
      else {
        for (const which of ["main", "spare"]) {
          const v = k[which][c];
          if (v === null) { td.appendChild(el("span", {class: "muted", id: "sheaf-" + which + "-" + idName(name) + "-" + c, "data-value": "-",
              title: "slub_percpu_sheaves.spare == NULL (" + name + ", cpu" + c + ")"}, " no spare ")); continue; }
          td.appendChild(bar("sheaf-" + which + "-" + idName(name) + "-" + c, v, k.cap,
              which === "main" ? "#4a8" : "#9c6",
              "slub_percpu_sheaves." + which + "->size: " + v + " of sheaf_capacity " + k.cap + " (" + name + ", cpu" + c + ")"));
        }
      }
      tr.appendChild(td);
    }
    t.appendChild(tr);
  }
}

function drawLists(s) {
  const t = document.getElementById("lists"); t.textContent = "";
  const head = el("tr");
  for (const h of ["cache", "node", "barn full", "barn empty", "partial slabs", "full slabs", "flushes"]) head.appendChild(el("th", {}, h));
  t.appendChild(head);
  let maxSlabs = 1;
  for (const x of S) for (const n in x.caches) for (const nd of x.caches[n].nodes) maxSlabs = Math.max(maxSlabs, nd[2], nd[3]);
  for (const name of allCaches) {
    const k = s.caches[name]; if (!k) continue;
    k.nodes.forEach((nd, i) => {
      const tr = el("tr", {class: name === selected ? "sel" : ""}), id = idName(name) + "-" + i;
      tr.appendChild(i ? el("td") : cacheLabel(name));
      tr.appendChild(el("td", {class: "num"}, i));
      const cells = [
        ["barn-full-", nd[0], H.barn_max_full, "#4a8", "node_barn.nr_full: full sheaves in node " + i + "'s barn (" + name + ")"],
        ["barn-empty-", nd[1], H.barn_max_empty, "#bbb", "node_barn.nr_empty: empty sheaves in node " + i + "'s barn (" + name + ")"],
        ["partial-", nd[2], maxSlabs, "#c84", "kmem_cache_node.nr_partial: slabs on node " + i + "'s partial list (" + name + ")"],
        ["fullslabs-", nd[3], maxSlabs, "#a44", "kmem_cache_node.nr_slabs - nr_partial: full slabs of node " + i + " (" + name + ")"]];
      for (const [p, v, max, color, hover] of cells) { const td = el("td"); td.appendChild(bar(p + id, v, max, color, hover)); tr.appendChild(td); }
      tr.appendChild(i ? el("td") : numCell("flush-" + idName(name), k.flush, "SHEAF_FLUSH (stat of " + name + "): sheaves flushed back to slabs so far"));
      t.appendChild(tr);
    });
  }
}

function drawBuddy(s) {
  const svg = document.getElementById("buddy"); svg.textContent = "";
  const CW = 38, CH = 22, LW = 90;
  let max = 1;
  for (const x of S) for (const z of x.zones) for (const f of z.free) max = Math.max(max, f);
  svg.setAttribute("width", LW + CW * H.orders + 4);
  svg.setAttribute("height", CH * (s.zones.length + 1) + 4);
  for (let o = 0; o < H.orders; o++)
    svg.appendChild(el("svg:text", {x: LW + o * CW + CW / 2, y: 14, "text-anchor": "middle", "font-size": 10},
        (4 << o) >= 1024 ? (4 << o) / 1024 + "M" : (4 << o) + "K"));
  s.zones.forEach((z, r) => {
    const y = CH * (r + 1);
    svg.appendChild(el("svg:text", {x: 0, y: y + 15, "font-size": 11}, "node " + z.node + " " + z.name));
    z.free.forEach((f, o) => {
      const heat = Math.log2(1 + f) / Math.log2(1 + max);
      const color = "rgb(" + Math.round(255 - 200 * heat) + "," + Math.round(255 - 120 * heat) + ",255)";
      const hover = "free_area[" + o + "].nr_free: " + f + " free blocks of order " + o + " (" + (4 << o) + " KiB) in node " + z.node + " zone " + z.name;
      svg.appendChild(tip(el("svg:rect", {id: "buddy-" + z.node + "-" + z.name + "-" + o, "data-value": f,
          x: LW + o * CW, y: y, width: CW - 2, height: CH - 2, fill: color}), hover));
      svg.appendChild(tip(el("svg:text", {x: LW + o * CW + CW / 2 - 1, y: y + 14, "text-anchor": "middle", "font-size": 10}, f), hover));
    });
  });
  const t = document.getElementById("pcp"); t.textContent = "";
  let maxPcp = 1;
  for (const x of S) for (const z of x.zones) for (const p of z.pcp) maxPcp = Math.max(maxPcp, p);
  for (const z of s.zones) {
    const tr = el("tr"); tr.appendChild(el("td", {}, "node " + z.node + " " + z.name));
    z.pcp.forEach((p, c) => {
      const td = el("td", {}, "cpu" + c + " ");
      td.appendChild(bar("pcp-" + z.node + "-" + z.name + "-" + c, p, maxPcp, "#68c",
          "per_cpu_pages.count: pages on cpu" + c + "'s lists of node " + z.node + " zone " + z.name));
      tr.appendChild(td);
    });
    tr.appendChild(numCell("zone-deferred-" + z.node + "-" + z.name, z.deferred,
        "zone->nr_deferred: pages free_pages_nolock() parked on the lock-free list"));
    t.appendChild(tr);
  }
}

function drawCpus(s) {
  const t = document.getElementById("cpus"); t.textContent = "";
  const head = el("tr");
  for (const h of ["cpu", "NMIs", "page NULLs", "object NULLs", "deferred frees", "parked now"]) head.appendChild(el("th", {}, h));
  t.appendChild(head);
  s.cpus.forEach((c, i) => {
    const tr = el("tr"); tr.appendChild(el("td", {}, "cpu" + i));
    tr.appendChild(numCell("cpu-nmis-" + i, c.nmis, "nmi_count(cpu): NMIs this CPU has taken since boot"));
    tr.appendChild(numCell("cpu-page-nulls-" + i, c.page_alloc_busy + c.page_alloc_nomem,
        "nolock_stats.page_alloc_busy + page_alloc_nomem: try_alloc_pages() NULLs (" + c.page_alloc_busy + " busy, " + c.page_alloc_nomem + " no memory)"));
    tr.appendChild(numCell("cpu-obj-nulls-" + i, c.obj_alloc_busy + c.obj_alloc_nomem,
        "nolock_stats.obj_alloc_busy + obj_alloc_nomem: kmalloc_nolock() NULLs (" + c.obj_alloc_busy + " busy, " + c.obj_alloc_nomem + " no memory)"));
    tr.appendChild(numCell("cpu-deferred-" + i, c.page_free_deferred + c.obj_free_deferred,
        "nolock_stats.page_free_deferred + obj_free_deferred: frees parked because a lock was held"));
    tr.appendChild(numCell("cpu-parked-" + i, c.deferred_now, "slab_deferred_frees(cpu): objects on this CPU's deferred list now"));
    t.appendChild(tr);
  });
}

// Per snapshot, how much each marker's counter grew since the previous one.
function sumCpus(s, f) { return s.cpus.reduce((a, c) => a + f(c), 0); }
function flushes(s) { let n = 0; for (const k in s.caches) n += s.caches[k].flush; return n; }
function drawMarkers() {
  const svg = document.getElementById("markers"); svg.textContent = "";
  const W = svg.clientWidth || 1000, N = S.length, x = i => (N > 1 ? i / (N - 1) : 0) * (W - 4) + 2;
  const series = [["#d33", s => sumCpus(s, c => c.nmis), 0, "NMIs taken"],
                  ["#36c", flushes, 11, "sheaf flushes"],
                  ["#e90", s => sumCpus(s, c => c.page_alloc_busy + c.page_alloc_nomem + c.obj_alloc_busy + c.obj_alloc_nomem), 22, "nolock NULLs"]];
  for (const [color, f, y, what] of series) {
    const d = S.map((s, i) => i ? Math.max(0, f(s) - f(S[i - 1])) : 0), max = Math.max(1, ...d);
    d.forEach((v, i) => { if (v) svg.appendChild(tip(el("svg:rect", {x: x(i) - 1, y: y + 10 - 10 * v / max, width: 2, height: Math.max(1, 10 * v / max), fill: color}),
        what + ": +" + v + " at snapshot " + S[i].seq)); });
  }
  for (const e of D.events) {
    let i = S.findIndex(s => s.t >= e.t); if (i < 0) continue;
    svg.appendChild(tip(el("svg:rect", {x: x(i) - 1, y: 0, width: 2, height: 33, fill: "#393", opacity: 0.5}), e.text + " at " + e.t + " s"));
  }
  svg.appendChild(el("svg:rect", {id: "cursor", x: x(cur) - 1, y: 0, width: 3, height: 34, fill: "#000", opacity: 0.6}));
  svg.onclick = ev => { const r = svg.getBoundingClientRect(); show(Math.round((ev.clientX - r.left - 2) / (W - 4) * (N - 1))); };
}

function draw() {
  const s = S[cur];
  document.getElementById("v-seq").textContent = s.seq;
  document.getElementById("v-time").textContent = s.t.toFixed(3);
  document.getElementById("slider").value = cur;
  const done = D.events.filter(e => e.t <= s.t);
  document.getElementById("v-event").textContent = done.length ? "last: " + done[done.length - 1].text : "";
  drawSheaves(s); drawLists(s); drawBuddy(s); drawCpus(s); drawMarkers();
}
function show(i) { cur = Math.max(0, Math.min(S.length - 1, i)); draw(); }
function togglePlay() {
  const b = document.getElementById("play");
  if (timer) { clearInterval(timer); timer = null; b.textContent = "play"; return; }
  if (cur === S.length - 1) cur = 0;
  b.textContent = "pause";
  timer = setInterval(() => { if (cur >= S.length - 1) return togglePlay(); show(cur + 1); },
                      H.every_ms / document.getElementById("speed").value);
}
document.getElementById("slider").max = S.length - 1;
document.getElementById("slider").oninput = e => show(+e.target.value);
document.getElementById("play").onclick = togglePlay;
document.getElementById("v-count").textContent = S.length;
// #t=K: open at snapshot K (the `s K` line), else the first.
const m = /(?:^#|&)t=(\d+)/.exec(location.hash);
const at = m ? S.findIndex(s => s.seq === +m[1]) : 0;
show(at < 0 ? 0 : at);
</script>
</body></html>
"""

if __name__ == "__main__":
    sys.exit(main())
