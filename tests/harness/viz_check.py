#!/usr/bin/env python3
"""viz_check.py - the replay page (scripts/viz.py) and the snapshots it
draws (kernel/viz.c), checked.

Two checks, each one test of `make test` (run_tests.py):

  check_page()  draws the page from a snapshot log kept in the tree
                (tests/viz/storm-smp2.viz.log, recorded by `make viz`),
                opens it at #t=K in headless Chromium (Debian's package
                `chromium`), reads back from the DOM every number the
                page shows for snapshot K (the elements with ids and
                data-value attributes), and compares them with the log's
                numbers for K, parsed here on their own (not with
                viz.py's parser); it also checks that a cache without
                sheaves has no sheaf bar, and keeps a screenshot of the
                page as a build artefact (build/viz-check/page.png).
  check_live()  reads a COM2 log of a live boot with viz=: a header that
                says this machine's CPUs, at least MIN_SNAPSHOTS complete
                snapshots, numbered 1, 2, 3 ... with stamps that never run
                backwards, every record of the right length, every sheaf
                within its capacity.

Chromium is waited for (one run: it exits when the page is loaded and its
script has run, --dump-dom and --screenshot together), never slept on.
"""
import html.parser
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
VIZ_PY = os.path.join(ROOT, "scripts", "viz.py")
RECORDED_LOG = os.path.join(ROOT, "tests", "viz", "storm-smp2.viz.log")
RECORDED_SNAPSHOT = 30     # the instant the page is opened at (#t=30)
CHROMIUM_TIMEOUT = 120
MIN_SNAPSHOTS = 6     # tests/kernel/viz_test.c waits for as many
CHROMIUM_INSTALL = "apt-get install -y chromium"


def chromium():
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


def chromium_run(args, profile):
    """Run headless Chromium; (exit status, stdout).  --no-sandbox: the
    harness may run as root, where the sandbox refuses to start."""
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
           "--hide-scrollbars", "--user-data-dir=" + profile] + args
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=CHROMIUM_TIMEOUT)
    return r.returncode, r.stdout.decode("utf-8", "replace")


def expected_values(log_path, seq):
    """The numbers the page must show for snapshot seq, by element id,
    straight from the log's records (docs/viz.md has the grammar), and the
    names of the caches without sheaves."""
    with open(log_path) as f:
        lines = [l.split() for l in f]
    head = next(w for w in lines if w and w[0] == "h")
    cpus, nodes, orders = int(head[3]), int(head[4]), int(head[5])
    start = next(i for i, w in enumerate(lines) if w[:2] == ["s", str(seq)])
    want, no_sheaves = {}, []
    for w in lines[start + 1:]:
        if w[0] == "e":
            break
        if w[0] == "c":
            c = w[1]
            n = [int(x) for x in w[2:]]
            want["cpu-nmis-" + c] = n[0]
            want["cpu-page-nulls-" + c] = n[1] + n[2]
            want["cpu-obj-nulls-" + c] = n[3] + n[4]
            want["cpu-deferred-" + c] = n[5] + n[6]
            want["cpu-parked-" + c] = n[7]
        elif w[0] == "z":
            node, zone = w[1], w[2]
            for o in range(orders):
                want["buddy-%s-%s-%d" % (node, zone, o)] = int(w[3 + o])
            for c in range(cpus):
                want["pcp-%s-%s-%d" % (node, zone, c)] = int(w[3 + orders + c])
            want["zone-deferred-%s-%s" % (node, zone)] = int(w[3 + orders + cpus])
        elif w[0] == "k":
            name, cap = re.sub(r"[^A-Za-z0-9_-]", "_", w[1]), int(w[2])
            if cap == 0:
                no_sheaves.append(name)
            for c in range(cpus):
                for i, which in enumerate(("main", "spare")):
                    v = w[3 + 2 * c + i]
                    if cap:
                        want["sheaf-%s-%s-%d" % (which, name, c)] = \
                            v if v == "-" else int(v)
            at = 3 + 2 * cpus
            for nid in range(nodes):
                bf, be, np_, nf = (int(x) for x in w[at + 4 * nid:at + 4 * nid + 4])
                key = "%s-%d" % (name, nid)
                want["barn-full-" + key] = bf
                want["barn-empty-" + key] = be
                want["partial-" + key] = np_
                want["fullslabs-" + key] = nf
            want["flush-" + name] = int(w[at + 4 * nodes])
    return want, no_sheaves


class DataValues(html.parser.HTMLParser):
    """Every element's id -> data-value in a dumped DOM."""

    def __init__(self):
        super().__init__()
        self.values = {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if "id" in a and "data-value" in a:
            self.values[a["id"]] = a["data-value"]


def check_page(log_dir, log_path=RECORDED_LOG, seq=RECORDED_SNAPSHOT):
    """Problems found (empty: passed); writes page.html, dom.html and
    page.png under log_dir/viz-check."""
    if not chromium():
        return ["no chromium to load the page: as root, %s "
                "(make test installs it when run as root)"
                % CHROMIUM_INSTALL], 0
    out = os.path.join(log_dir, "viz-check")
    os.makedirs(out, exist_ok=True)
    page = os.path.join(out, "page.html")
    r = subprocess.run([sys.executable, VIZ_PY, log_path, "-o", page,
                        "--title", "viz check: %s" % os.path.basename(log_path)],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if r.returncode:
        return ["viz.py failed: " + r.stdout.decode("utf-8", "replace")], 0
    url = "file://%s#t=%d" % (os.path.abspath(page), seq)
    problems = []
    png = os.path.join(out, "page.png")
    if os.path.exists(png):
        os.remove(png)
    with tempfile.TemporaryDirectory() as profile:
        # One run: the DOM on stdout once the page has loaded and its
        # script has drawn snapshot K, and the same page as a PNG.
        code, dom = chromium_run(["--window-size=1400,900",
                                  "--screenshot=" + png, "--dump-dom", url],
                                 profile)
    with open(os.path.join(out, "dom.html"), "w") as f:
        f.write(dom)
    if code:
        problems.append("chromium exited with %d" % code)
    if not os.path.exists(png) or os.path.getsize(png) == 0:
        problems.append("chromium --screenshot wrote no %s" % png)
    p = DataValues()
    p.feed(dom)
    got = p.values
    shown = re.search(r'id="v-seq"[^>]*>(\d+)<', dom)
    if not shown or int(shown.group(1)) != seq:
        problems.append("the page shows snapshot %s, not #t=%d"
                        % (shown.group(1) if shown else "none", seq))
    want, no_sheaves = expected_values(log_path, seq)
    for key, value in sorted(want.items()):
        if key not in got:
            problems.append("%s: not on the page (the log says %s)"
                            % (key, value))
        elif got[key] != str(value):
            problems.append("%s: the page says %s, the log %s"
                            % (key, got[key], value))
    for name in no_sheaves:
        bars = [k for k in got if k.startswith("sheaf-") and
                k.endswith(tuple("-%s-%d" % (name, c) for c in range(64)))]
        if bars:
            problems.append("%s has no sheaves and the page draws %s"
                            % (name, ", ".join(bars)))
    if not want:
        problems.append("snapshot %d of %s holds no value" % (seq, log_path))
    return problems[:12], len(want)


def check_live(viz_log, cpus):
    """Problems in a live boot's COM2 log (empty: it is well formed), and
    the number of complete snapshots."""
    problems = []
    try:
        with open(viz_log) as f:
            lines = [l.split() for l in f]
    except OSError as e:
        return ["no snapshot log: %s" % e], 0
    heads = [w for w in lines if w and w[0] == "h"]
    if len(heads) != 1 or heads[0][1] != "1" or int(heads[0][3]) != cpus:
        return ["the header is not one `h 1 MS %d ...` line: %s"
                % (cpus, heads)], 0
    nodes, orders = int(heads[0][4]), int(heads[0][5])
    lengths = {"c": 10, "z": 4 + orders + cpus, "e": 2, "s": 4}
    seqs, stamps, cur = [], [], None
    for n, w in enumerate(lines, 1):
        if not w or w[0] == "h":
            continue
        k = w[0]
        want = 3 + 2 * cpus + 4 * nodes + 3 if k == "k" else lengths.get(k)
        if want is None or len(w) != want:
            if n == len(lines):      # the boot ended inside this line
                break
            problems.append("line %d: %r is no record of %s words"
                            % (n, " ".join(w)[:80], want))
            continue
        if k == "s":
            cur = int(w[1])
            stamps.append(float(w[2]))
        elif k == "e" and cur is not None and int(w[1]) == cur:
            seqs.append(cur)
        elif k == "k" and int(w[2]):
            cap = int(w[2])
            for v in w[3:3 + 2 * cpus]:
                if v != "-" and not 0 <= int(v) <= cap:
                    problems.append("line %d: a sheaf of %s holds %s of %d"
                                    % (n, w[1], v, cap))
    if seqs != list(range(1, len(seqs) + 1)):
        problems.append("snapshots are not numbered 1, 2, 3 ...: %s"
                        % seqs[:10])
    if any(b < a for a, b in zip(stamps, stamps[1:])):
        problems.append("snapshot stamps run backwards")
    if len(seqs) < MIN_SNAPSHOTS:
        problems.append("%d complete snapshots, fewer than %d"
                        % (len(seqs), MIN_SNAPSHOTS))
    return problems[:12], len(seqs)


if __name__ == "__main__":
    problems, n = check_page(sys.argv[1] if len(sys.argv) > 1 else "build")
    for p in problems:
        print(p)
    print("%d values compared, %s" % (n, "FAILED" if problems else "ok"))
    sys.exit(1 if problems else 0)
