"""ktap.py - read a boot log and decide what happened.

The kernel prints KTAP version 1 (see kernel/kunit.c for the exact shape)
behind printk's "[time] cpuN: " prefix.  parse_log() strips the prefix,
follows the suites and cases, and collects the things that end a run badly:
a panic, an exception, a watchdog report.  verdict() turns that and QEMU's
exit status into a list of reasons; an empty list means the run passed.

Reports: every line that opens a kernel report (REPORT below: `WARNING:`,
`BUG:`, `BUG <cache>:`, `kmem_cache_destroy <cache>: N objects still
allocated`) fails the run, in a case or not, unless it ends with the tag
` [expected by suite.case]` (kernel/kunit.c, kunit_print_report()) AND that
case printed `# case: expecting a report containing "S"` for an S the line
contains.  The declaration may be anywhere in the log: a report an NMI
printed reaches the console when its buffer is flushed, possibly after the
case ended, but it was tagged when it was printed.

What a test prints is not structure: only the watchdog's own first line
(WATCHDOG) is a watchdog report, a suite opens ("# Subtest:") only after the
previous one's result line, and a case result must carry the next number
(the last line for a number wins: the runner prints it after the case ran).
A test's own output belongs in kunit_info(), which prints it as
`    # case: ...` inside the case.

GRUB writes to the serial port too (scripts/mkiso.sh): its screen control
sequences are dropped, and its "error: ..." lines, when no kernel line
follows, are the reason the run failed.

Used by boottest.py (one boot) and run_tests.py (the whole suite), and on
the host test programs' output, which is the same KTAP without prefixes.
"""
import re

PREFIX = re.compile(r"^\[\s*\d+\.\d+\] cpu\d+: (NMI: )?")
STAMP = re.compile(r"^\[\s*(\d+)\.(\d+)\] cpu\d+: ")
# GRUB writes to the serial port too (scripts/mkiso.sh): screen control
# sequences, carriage returns, and, when it cannot start the kernel (too
# little memory for the image), its own "error: ..." lines.
TERMINAL_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")
GRUB_ERROR = re.compile(r"^error: (.*)$")
# GRUB under UEFI, where no VGA text mode exists, warns that the kernel
# gets no console (it asks for no framebuffer: it speaks on the serial
# port).  GRUB's line, before the kernel's first: no kernel report.
GRUB_NO_CONSOLE = re.compile(r"^WARNING: no console will be available to OS")
RESULT = re.compile(r"^(not ok|ok) (\d+) (\S+)(?: # (SKIP)\b ?(.*))?$")
PLAN = re.compile(r"^1\.\.(\d+)$")
SUBTEST = re.compile(r"^# Subtest: (\S+)")
TOTALS = re.compile(r"^(\d+) passed, (\d+) failed(?:, (\d+) skipped)?$")
# The first line of every report the kernel prints (mm/, kernel/panic.c).
REPORT = re.compile(r"^(WARNING: |BUG[: ]|kmem_cache_destroy \S+: \d+ objects "
                    r"still allocated)")
# The watchdog's report (kernel/watchdog.c); other "watchdog: ..." lines
# (its "off" line, a test's message) are no report.
WATCHDOG = re.compile(r"^watchdog: (hard LOCKUP on cpu\d+.*)$")
EXPECTED_TAG = re.compile(r" \[expected by ([^\s.\]]+)\.([^\s\]]+)\]$")
UNMATCHED = re.compile(r"^# test=(.*) matches no test; the suites are:$")
UNMATCHED_SUITE = re.compile(r"^#   (\S+) \(\d+ cases\)$")
DECLARATION = re.compile(r'^# (\S+): expecting a report containing "(.*)"$')

MAX_REPORTS_LISTED = 5

# QEMU isa-debug-exit statuses: (value << 1) | 1, see arch/x86_64/qemu.h
EXIT_PASS, EXIT_FAIL, EXIT_PANIC = 33, 35, 37


class Suite:
    def __init__(self, name):
        self.name = name
        self.planned = None
        self.cases = []          # (number, name, status) status: ok/fail/skip
        self.result = None       # "ok" / "not ok" once the suite line came
        self.result_skip = False  # the suite line says "# SKIP"
        self.failure_lines = {}  # case name -> diagnostic lines
        self.case_names_seen = set()
        self.last_diag = None


class Log:
    def __init__(self):
        self.suites = []
        self.planned_suites = None
        self.totals = None
        self.panic = None
        self.exception = None
        self.exception_causes = []  # its "cause: ..." lines (traps.c)
        self.watchdog = None
        self.panic_test = None
        self.lines = []
        self.declared = {}       # (suite, case) -> [substring, ...]
        self.reports = []        # (line number, text, where it ran)
        self.unexpected = []     # the reports no declaration covers
        self.unmatched_filter = None  # (test=, [suites]) if it matched none
        self.kernel_started = False  # a line with printk's prefix came
        self.grub_errors = []    # GRUB's "error: ..." before the kernel
        # The first time stamp older than the line before it: (line
        # number, the earlier line, this line), or None.  printk stamps
        # under the console lock and writes NMI lines oldest first
        # (kernel/nmi_printk.c): the log never runs backwards.
        self.backwards = None


def strip(line):
    return PREFIX.sub("", TERMINAL_CONTROL.sub("", line.rstrip("\r\n")))


def kernel_line(line):
    """Did the kernel print this line (printk's prefix), not GRUB?"""
    return PREFIX.match(TERMINAL_CONTROL.sub("", line)) is not None


def parse_lines(lines):
    log = Log()
    cur = None
    last_stamp = None
    for raw in lines:
        if kernel_line(raw):
            log.kernel_started = True
            m = STAMP.match(TERMINAL_CONTROL.sub("", raw))
            if m:
                stamp = (int(m.group(1)), int(m.group(2)))
                if last_stamp and stamp < last_stamp[0] and \
                        log.backwards is None:
                    log.backwards = (len(log.lines) + 1, last_stamp[1],
                                     raw.strip())
                last_stamp = (stamp, raw.strip())
        line = strip(raw)
        log.lines.append(line)
        m = GRUB_ERROR.match(line)
        if m and not log.kernel_started:
            log.grub_errors.append(m.group(1))
            continue
        if GRUB_NO_CONSOLE.match(line) and not log.kernel_started:
            continue
        body = line.strip()
        nested = line.startswith("    ")
        if body.startswith("Kernel panic - not syncing:") and not log.panic:
            log.panic = body[len("Kernel panic - not syncing:"):].strip()
            continue
        if body.startswith("EXCEPTION:") and not log.exception:
            log.exception = body[len("EXCEPTION:"):].strip()
            continue
        if body.startswith("cause:") and log.exception and not log.panic:
            log.exception_causes.append(body[len("cause:"):].strip())
            continue
        m = WATCHDOG.match(body)
        if m and not log.watchdog:
            log.watchdog = m.group(1)
            continue
        if body.startswith("while running test "):
            log.panic_test = body[len("while running test "):].strip()
            continue
        if REPORT.match(body):
            log.reports.append((len(log.lines), body, running_where(cur)))
            continue
        m = UNMATCHED.match(body)
        if m and not nested:
            log.unmatched_filter = (m.group(1), [])
            continue
        m = UNMATCHED_SUITE.match(body)
        if m and not nested and log.unmatched_filter is not None:
            log.unmatched_filter[1].append(m.group(1))
            continue
        m = DECLARATION.match(body)
        if m and nested and cur is not None:
            log.declared.setdefault((cur.name, m.group(1)), []).append(
                m.group(2))
            continue
        m = SUBTEST.match(body)
        if m and nested and (cur is None or cur.result is not None):
            # A suite opens only after the last one's result line: a
            # "# Subtest:" inside a running suite is a test's printing.
            cur = Suite(m.group(1))
            log.suites.append(cur)
            continue
        m = PLAN.match(body)
        if m:
            if nested and cur is not None and cur.planned is None:
                cur.planned = int(m.group(1))
            elif not nested and log.planned_suites is None:
                log.planned_suites = int(m.group(1))
            continue
        m = RESULT.match(body)
        if m:
            status = "fail" if m.group(1) == "not ok" else (
                "skip" if m.group(4) else "ok")
            num = int(m.group(2))
            if nested and cur is not None and cur.result is None and \
                    num == len(cur.cases) + 1 and not (
                        cur.planned is not None and
                        len(cur.cases) >= cur.planned):
                cur.cases.append((num, m.group(3), status))
            elif nested and cur is not None and cur.result is None and \
                    cur.cases and num == len(cur.cases):
                # The runner prints case N's result after the case ran: a
                # line "ok N x" the case printed itself comes before it,
                # and the last one for N is the runner's.
                cur.cases[-1] = (num, m.group(3), status)
            elif not nested and cur is not None and m.group(3) == cur.name:
                cur.result = m.group(1)
                cur.result_skip = bool(m.group(4))
            continue
        m = TOTALS.match(body)
        if m and not nested:
            log.totals = (int(m.group(1)), int(m.group(2)),
                          int(m.group(3) or 0))
            continue
        if nested and cur is not None and body.startswith("# "):
            # "# case: ..." opens a case's diagnostics; the lines after it
            # without such a prefix ("# Expected ...") continue them.
            name = body[2:].split(":", 1)[0]
            if " FAILED at " in body or body.endswith("() failed") or \
                    " unexpected report" in body:
                cur.case_names_seen.add(name)
            if name not in cur.case_names_seen and cur.last_diag:
                name = cur.last_diag
            cur.last_diag = name
            cur.failure_lines.setdefault(name, []).append(body)
    log.unexpected = [r for r in log.reports if not report_declared(log, r[1])]
    return log


def running_where(suite):
    """Which case was running when a line came: 'suite X, case N'."""
    if suite is None or suite.result is not None:
        return "outside any case"
    if suite.planned is not None and len(suite.cases) >= suite.planned:
        return "in suite %s, after its last case" % suite.name
    last = " (after %s)" % suite.cases[-1][1] if suite.cases else ""
    return "in suite %s, case %d%s" % (suite.name, len(suite.cases) + 1, last)


def report_declared(log, text):
    """Is the report line tagged by a case that declared what it contains?"""
    m = EXPECTED_TAG.search(text)
    if not m:
        return False
    bare = text[:m.start()]
    return any(sub in bare for sub in
               log.declared.get((m.group(1), m.group(2)), []))


def parse_log(path):
    with open(path, errors="replace") as f:
        return parse_lines(f.readlines())


def counts(log):
    passed = failed = skipped = 0
    for s in log.suites:
        for _, _, st in s.cases:
            if st == "ok":
                passed += 1
            elif st == "skip":
                skipped += 1
            else:
                failed += 1
    return passed, failed, skipped


def running_case(log):
    """Where a run stopped: (suite, next case number, planned, last done)."""
    for s in reversed(log.suites):
        if s.result is None:
            last = s.cases[-1][1] if s.cases else None
            return s.name, len(s.cases) + 1, s.planned, last
    return None


# Numbered lines the NMI tests print from NMI context (their buffers are
# drained into the log in pieces, kernel/printk.c): each run of them must
# reach the log whole, every number as often as the others.  Patterns
# match the line without its prefix; groups: the number, then what tells
# runs apart (the total, or the CPU).
NUMBERED_NMI_LINES = [
    ("console_test", re.compile(r"^console_test: NMI line (\d+) of (\d+) "), 1),
    ("nmi_test storm", re.compile(
        r"^nmi_test storm line seq=(\d+) of cpu(\d+)$"), 0),
]


def numbered_nmi_line_problems(log):
    """NMI lines of the tests lost or doubled on the way to the log."""
    problems = []
    for what, pattern, first in NUMBERED_NMI_LINES:
        runs = {}
        for line in log.lines:
            m = pattern.match(line)
            if m:
                seen = runs.setdefault(m.group(2), {})
                n = int(m.group(1))
                seen[n] = seen.get(n, 0) + 1
        for key, seen in sorted(runs.items()):
            last = int(key) if first else max(seen)
            want = max(seen.values())
            missing = [n for n in range(first, last + 1)
                       if seen.get(n, 0) != want]
            if missing:
                problems.append("%s lines (%s) lost or doubled in the log: "
                                "number %d seen %d times, others %d"
                                % (what, key, missing[0],
                                   seen.get(missing[0], 0), want))
    return problems


def verdict(log, exit_status, timed_out, timeout=None):
    """Reasons the run failed; [] when it passed."""
    reasons = []
    reasons.extend(numbered_nmi_line_problems(log))
    for s in log.suites:
        for num, name, st in s.cases:
            if st == "fail":
                detail = ""
                lines = s.failure_lines.get(name, [])
                if lines:
                    detail = ": " + " | ".join(l[2:].strip() for l in lines[:4])
                reasons.append("test %s.%s failed%s" % (s.name, name, detail))
        if s.planned is not None and s.result is not None \
                and len(s.cases) != s.planned:
            reasons.append("suite %s planned %d cases but reported %d"
                           % (s.name, s.planned, len(s.cases)))
        all_skipped = bool(s.cases) and all(st == "skip"
                                            for _, _, st in s.cases)
        if s.result is not None and all_skipped != s.result_skip:
            reasons.append("suite %s: %s, but its result line %s '# SKIP' "
                           "(KTAP: a test is skipped when all its subtests "
                           "are)" % (s.name, "every case skipped" if
                                     all_skipped else "not every case skipped",
                                     "lacks" if all_skipped else "says"))
    if log.backwards:
        reasons.append("time stamps run backwards at log line %d: %r after "
                       "%r" % (log.backwards[0], log.backwards[2][:100],
                               log.backwards[1][:100]))
    if log.unmatched_filter is not None:
        reasons.append("test=%s matches no test; the suites are: %s"
                       % (log.unmatched_filter[0],
                          ", ".join(log.unmatched_filter[1])))
    for lineno, text, where in log.unexpected[:MAX_REPORTS_LISTED]:
        reasons.append("unexpected report (log line %d, %s): %s"
                       % (lineno, where, text))
    if len(log.unexpected) > MAX_REPORTS_LISTED:
        reasons.append("%d more unexpected reports"
                       % (len(log.unexpected) - MAX_REPORTS_LISTED))
    where = running_case(log)
    where_text = ""
    if where:
        suite, n, planned, last = where
        where_text = " in suite %s, case %d of %s%s" % (
            suite, n, planned if planned is not None else "?",
            " (after %s)" % last if last else "")
    if log.watchdog:
        reasons.append("watchdog: %s%s" % (log.watchdog, where_text))
    if log.exception:
        causes = "".join("; cause: " + c for c in log.exception_causes)
        reasons.append("exception: %s%s%s" % (log.exception, causes,
                                              where_text))
    if log.panic:
        t = " (test %s)" % log.panic_test if log.panic_test else where_text
        reasons.append("panic: %s%s" % (log.panic, t))
    if log.grub_errors and not log.kernel_started:
        hint = (" (too little memory for the kernel image)"
                if any("out of memory" in e for e in log.grub_errors)
                else "")
        reasons.append("GRUB could not start the kernel: %s%s" % (
            "; ".join(log.grub_errors), hint))
        return reasons
    if timed_out:
        # `timeout`: seconds, or words saying when it was given up.
        reasons.append("timeout: no result %s%s" % (
            timeout if isinstance(timeout, str) else "after %s s" % timeout,
            where_text or " (before the tests started)"))
    elif exit_status not in (EXIT_PASS, EXIT_FAIL, EXIT_PANIC):
        said = getattr(log, "qemu_errors", [])
        reasons.append("QEMU exited with status %s, not a kernel exit code%s"
                       % (exit_status, ": " + " | ".join(said) if said
                          else ""))
    elif exit_status == EXIT_FAIL and not reasons:
        reasons.append("kernel reported failure (exit %d)" % exit_status)
    elif exit_status == EXIT_PANIC and not log.panic:
        reasons.append("kernel exited with the panic status")
    if not timed_out and exit_status == EXIT_PASS:
        if log.totals is None:
            reasons.append("no closing 'N passed, N failed' line")
        if log.planned_suites is not None and \
                len(log.suites) != log.planned_suites:
            reasons.append("planned %d suites, saw %d"
                           % (log.planned_suites, len(log.suites)))
        p, f, _ = counts(log)
        if log.totals is not None and (p, f) != log.totals[:2]:
            reasons.append("closing line says %d passed, %d failed but the "
                           "cases say %d, %d" % (log.totals[0],
                                                 log.totals[1], p, f))
    return reasons
