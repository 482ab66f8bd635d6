#!/usr/bin/env python3
"""boottest.py - boot the kernel once in QEMU and judge the run.

  boottest.py --kernel build/gcc/kernel.elf --smp 4 --mem 2G [--cmdline ...]
              [--timeout S] [--log-dir build] [--interactive | --debug]
              [--firmware bios|uefi]

Builds (or reuses) an ISO for the kernel and command line, boots it
headless under TCG (QEMU_ACCEL=kvm opts into KVM when /dev/kvm is usable;
QEMU_OPTS adds options), saves the serial log in the log directory, enforces
the timeout, then parses the KTAP and prints one summary.  The ISO boots under SeaBIOS
(QEMU's default) or, with --firmware uefi, under OVMF (Debian's `ovmf`):
its code read-only and a fresh copy of its variable store per boot, both
as pflash drives.  Exit status 0
only when the kernel exited with the pass status and every case passed.
"""
import argparse
import hashlib
import os
import re
import shlex
import shutil
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ktap  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


MKISO = os.path.join(ROOT, "scripts", "mkiso.sh")


def iso_key(kernel, cmdline):
    """Everything that goes into an ISO: the kernel's bytes (a gcc and a
    clang kernel of the same tree differ), the command line and the script
    that writes grub.cfg."""
    h = hashlib.sha1()
    for path in (kernel, MKISO):
        with open(path, "rb") as f:
            h.update(f.read())
    h.update(cmdline.encode())
    return h.hexdigest()[:16]


INTERRUPTED = 130   # exit status of a run quit before the kernel ended it
ISO_KEEP = 64   # ISOs kept in build/iso; older ones are removed


def prune_isos(iso_dir):
    isos = sorted((os.path.getmtime(os.path.join(iso_dir, n)), n)
                  for n in os.listdir(iso_dir) if n.endswith(".iso"))
    for _, n in isos[:-ISO_KEEP]:
        os.remove(os.path.join(iso_dir, n))


def build_iso(kernel, cmdline, out_dir):
    """An ISO per (kernel, command line, mkiso.sh), made once."""
    iso_dir = os.path.join(out_dir, "iso")
    iso = os.path.join(iso_dir, "kernel-%s.iso" % iso_key(kernel, cmdline))
    if not os.path.exists(iso):
        os.makedirs(iso_dir, exist_ok=True)
        tmp = iso + ".tmp"
        subprocess.run([MKISO, kernel, tmp, cmdline], check=True)
        os.replace(tmp, iso)
        prune_isos(iso_dir)
    return iso


def accel_args():
    accel = os.environ.get("QEMU_ACCEL", "tcg") or "tcg"
    if accel == "kvm":
        if os.access("/dev/kvm", os.R_OK | os.W_OK):
            # On our machines -cpu host/max abort under KVM (DEVELOPERS.md).
            return ["-accel", "kvm", "-cpu", "qemu64,-pni,+x2apic"], "kvm"
        print("boottest: /dev/kvm is not usable, falling back to TCG",
              file=sys.stderr)
    return ["-accel", "tcg", "-cpu", "max"], "tcg"


# OVMF, UEFI firmware for QEMU (Debian's ovmf package): the code and the
# variable store it starts from, the 4 MiB build first.  The store is
# written by the firmware, so every boot gets its own copy (ovmf_args()).
OVMF_DIR = "/usr/share/OVMF"
OVMF_PAIRS = (("OVMF_CODE_4M.fd", "OVMF_VARS_4M.fd"),
              ("OVMF_CODE.fd", "OVMF_VARS.fd"))
FIRMWARES = ("bios", "uefi")


def ovmf_files():
    """(code, vars) of the first OVMF build installed, or None."""
    for code, varstore in OVMF_PAIRS:
        c, v = os.path.join(OVMF_DIR, code), os.path.join(OVMF_DIR, varstore)
        if os.path.exists(c) and os.path.exists(v):
            return c, v
    return None


def ovmf_args(vars_copy):
    """The pflash drives of a UEFI boot, the variable store copied to
    vars_copy; a clear error when OVMF is not installed."""
    found = ovmf_files()
    if not found:
        raise SystemExit("boottest: a UEFI boot needs OVMF, and %s holds "
                         "none of %s (apt-get install ovmf)"
                         % (OVMF_DIR, ", ".join(c for c, _ in OVMF_PAIRS)))
    code, varstore = found
    shutil.copyfile(varstore, vars_copy)
    return ["-drive", "if=pflash,format=raw,unit=0,readonly=on,file=" + code,
            "-drive", "if=pflash,format=raw,unit=1,file=" + vars_copy]


def qemu_command(iso, smp, mem, extra_opts=None, exit_device=True,
                 firmware="bios", vars_copy=None):
    accel, name = accel_args()
    cmd = ["qemu-system-x86_64"] + accel + [
        "-smp", str(smp), "-m", str(mem),
        "-cdrom", iso, "-boot", "d",
        "-display", "none", "-no-reboot",
    ]
    if firmware == "uefi":
        cmd += ovmf_args(vars_copy or iso + ".ovmf-vars.fd")
    if exit_device:
        cmd += ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x04"]
    cmd += shlex.split(os.environ.get("QEMU_OPTS", ""))
    cmd += extra_opts or []
    return cmd, name


# The hard-lockup watchdog (kernel/watchdog.c) measures time with the TSC,
# which under QEMU is the host's clock: a virtual CPU the host does not run
# still ages.  With more virtual CPUs than host CPUs, a CPU waiting with
# IRQs off for a lock whose holder's thread the host descheduled waits
# that long for the host, not for a bug (32 vCPUs on 2 cores: seconds, in
# the memory-pressure storm's zone-lock convoy).  From inside, the guest
# cannot tell the two apart: under TCG nothing counts the time a virtual
# CPU really ran.  The harness can: it knows the virtual CPUs and the host
# CPUs it may use.  So it stretches the threshold by the oversubscription,
# ceil(vCPUs / host CPUs) times the default, unless the command line sets
# watchdog_thresh= itself.  Under -icount the TSC counts guest
# instructions, which a descheduled thread does not execute: no stretch.
WATCHDOG_THRESH_DEFAULT = 4     # seconds; kernel/params.c
WATCHDOG_THRESH_MAX = 3600


def host_cpus():
    """The host CPUs this process (and so QEMU) may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def vcpus(smp):
    """The virtual CPU count of an -smp value: "4", "6,sockets=2,cores=3"."""
    first = str(smp).split(",")[0]
    first = first.split("=")[-1]          # "cpus=4"
    return int(first) if first.isdigit() else 1


FLAG_ON = ("", "on", "1", "yes", "true")       # kernel/params.c


def last_option(cmdline, key):
    """The value of the last key=value (or bare key: "") on the line, or
    None: the last one counts, as in kernel/params.c."""
    found = None
    for word in cmdline.split():
        k, _, v = word.partition("=")
        if k == key:
            found = v
    return found


def watchdog_set_by(cmdline):
    """Does the line itself turn the watchdog off or set its threshold, as
    the kernel reads it?  nowatchdog=0 leaves it on; a threshold the kernel
    refuses leaves the default."""
    if last_option(cmdline, "nowatchdog") in FLAG_ON:
        return True
    t = last_option(cmdline, "watchdog_thresh") or ""
    hexa = t[:2] in ("0x", "0X")
    digits = t[2:] if hexa else t
    if not digits or any(c not in "0123456789abcdefABCDEF"[:22 if hexa else 10]
                         for c in digits):
        return False
    return 1 <= int(digits, 16 if hexa else 10) <= WATCHDOG_THRESH_MAX


def watchdog_thresh_for(smp, cmdline, qemu_opts, host=None):
    """The watchdog_thresh= option to add for this boot, or None: the
    default stretched by ceil(vCPUs / host CPUs) when the vCPUs outnumber
    the host CPUs, unless the line already sets it or the TSC counts guest
    instructions (-icount)."""
    if watchdog_set_by(cmdline):
        return None
    if any(o == "-icount" or o.startswith("-icount") for o in qemu_opts):
        return None
    host = host or host_cpus()
    ratio = -(-vcpus(smp) // host)
    if ratio <= 1:
        return None
    return min(WATCHDOG_THRESH_DEFAULT * ratio, WATCHDOG_THRESH_MAX)


def with_watchdog_stretch(smp, cmdline, qemu_opts, host=None):
    """cmdline, with watchdog_thresh_for()'s option appended if any."""
    t = watchdog_thresh_for(smp, cmdline, qemu_opts, host)
    if t is None:
        return cmdline
    return " ".join(x for x in (cmdline, "watchdog_thresh=%d" % t) if x)


def run_boot(kernel, smp, mem, cmdline, timeout, log_path, echo=False,
             extra_opts=None, exit_device=True, linger=None, firmware="bios"):
    """Boot once; returns (log, exit_status, timed_out, seconds).

    Without the exit device QEMU never ends by itself: linger=(marker, s)
    then ends the run s seconds after the first log line that contains
    marker (what came in those seconds is kept), and `timeout` still
    bounds the wait for the marker.

    With more vCPUs than host CPUs the watchdog's threshold is stretched
    (with_watchdog_stretch())."""
    opts = shlex.split(os.environ.get("QEMU_OPTS", "")) + (extra_opts or [])
    cmdline = with_watchdog_stretch(smp, cmdline, opts)
    iso = build_iso(kernel, cmdline, os.path.dirname(log_path))
    cmd, accel = qemu_command(iso, smp, mem, extra_opts, exit_device,
                              firmware, log_path + ".ovmf-vars.fd")
    marker_seen = threading.Event()
    cmd += ["-serial", "stdio", "-monitor", "none"]
    start = time.time()
    with open(log_path, "w") as logf:
        logf.write("# %s\n" % " ".join(shlex.quote(c) for c in cmd))
        logf.flush()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL)
        qemu_errors = []

        def pump_stderr():
            # QEMU's own complaints (a bad -m, a bad option) go to stderr:
            # kept apart so the verdict can quote them.
            for raw in iter(proc.stderr.readline, b""):
                line = raw.decode("utf-8", "replace").rstrip("\r\n")
                qemu_errors.append(line)
                logf.write("# qemu stderr: %s\n" % line)
                logf.flush()
                if echo:
                    sys.stderr.write(line + "\n")

        te = threading.Thread(target=pump_stderr, daemon=True)
        te.start()

        def pump():
            for raw in iter(proc.stdout.readline, b""):
                line = raw.decode("utf-8", "replace")
                logf.write(line)
                logf.flush()
                if linger and linger[0] in line:
                    marker_seen.set()
                if echo:
                    sys.stdout.write(line)
                    sys.stdout.flush()

        t = threading.Thread(target=pump, daemon=True)
        t.start()
        timed_out = False
        try:
            if linger:
                if marker_seen.wait(timeout):
                    time.sleep(linger[1])
                else:
                    timed_out = True
                proc.kill()
                status = proc.wait()
            else:
                status = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            proc.kill()
            status = proc.wait()
        t.join(5)
        te.join(5)
    log = ktap.parse_log(log_path)
    log.qemu_errors = qemu_errors
    return log, status, timed_out, time.time() - start, accel


def log_name(smp, mem, cmdline, qemu_opts="", accel="tcg", firmware="bios"):
    """The log's name for one configuration: boot-smp<N>-<MEM> (-uefi
    under OVMF), and when the command line, QEMU_OPTS or the accelerator
    is not the default, a short hash of them, so two configurations never
    share a file."""
    name = "boot-smp%s-%s" % (smp, mem)
    if firmware != "bios":
        name += "-" + firmware
    extra = "\0".join((cmdline, qemu_opts, accel))
    if cmdline or qemu_opts or accel != "tcg":
        name += "-" + hashlib.sha1(extra.encode()).hexdigest()[:8]
    return re.sub(r"[^A-Za-z0-9_.=,-]", "_", name)


# Where `make debug` stops: kernel_main()'s first step after the TSC read.
# (`break kernel_main` stops on its first instruction, the inlined rdtsc,
# which gdb shows as a line of cpu.h.)
GDB_STOP_FILE = "kernel/main.c"
GDB_STOP_TEXT = "percpu_init_boot_cpu();"


def gdb_stop_line():
    with open(os.path.join(ROOT, GDB_STOP_FILE)) as f:
        for n, line in enumerate(f, 1):
            if line.strip().startswith(GDB_STOP_TEXT):
                return "%s:%d" % (GDB_STOP_FILE, n)
    return "kernel_main"


# The allocator's gdb commands (slabinfo, sheaves, barn, slab, page,
# buddyinfo, pcp, deferred, nolock_stats), which the gdbinit loads.
GDB_COMMANDS = os.path.join(ROOT, "scripts", "gdb", "mm.py")
GDB_COMMAND_NAMES = ("slabinfo", "sheaves", "barn", "slab", "page",
                     "buddyinfo", "pcp", "deferred", "nolock_stats")


def write_gdbinit(path, kernel, port=1234):
    with open(path, "w") as f:
        f.write("file %s\nsource %s\ntarget remote :%d\nbreak %s\n"
                "continue\n" % (os.path.abspath(kernel), GDB_COMMANDS, port,
                                gdb_stop_line()))


def describe(name, log, reasons, seconds):
    p, f, s = ktap.counts(log)
    head = "%-28s %3d passed, %d failed%s  (%.1f s)" % (
        name, p, f, ", %d skipped" % s if s else "", seconds)
    return head, reasons


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--kernel", required=True)
    ap.add_argument("--smp", default="1")
    ap.add_argument("--mem", default="128M")
    ap.add_argument("--cmdline", default="")
    ap.add_argument("--timeout", type=float, default=120)
    ap.add_argument("--log-dir", default="build")
    ap.add_argument("--interactive", action="store_true")
    ap.add_argument("--debug", action="store_true")
    ap.add_argument("--firmware", choices=FIRMWARES, default="bios")
    a = ap.parse_args()

    if a.interactive or a.debug:
        iso = build_iso(a.kernel, a.cmdline, a.log_dir)
        cmd, _ = qemu_command(iso, a.smp, a.mem, firmware=a.firmware,
                              vars_copy=os.path.join(a.log_dir,
                                                     "ovmf-vars-run.fd"))
        cmd += ["-serial", "mon:stdio"]
        if a.debug:
            gdbinit = os.path.join(a.log_dir, "gdbinit")
            write_gdbinit(gdbinit, a.kernel)
            cmd += ["-s", "-S"]
            print("QEMU waits for gdb on :1234.  In another terminal:\n"
                  "    gdb -x %s\n(Ctrl-A X quits QEMU)\n"
                  "The allocator commands (help COMMAND says more): %s"
                  % (gdbinit, ", ".join(GDB_COMMAND_NAMES)))
        else:
            print("Booting %s (SMP=%s MEM=%s); Ctrl-A X quits QEMU."
                  % (a.kernel, a.smp, a.mem))
        status = subprocess.call(cmd)
        if status == ktap.EXIT_PASS:
            return 0
        if status == 0:
            # The kernel always leaves through isa-debug-exit (33, 35, 37):
            # QEMU's own 0 means it was quit (Ctrl-A X) before that.
            print("boottest: the run was interrupted (QEMU quit before the "
                  "kernel finished)", file=sys.stderr)
            return INTERRUPTED
        print("boottest: %s" % (
            "the kernel reported failure" if status == ktap.EXIT_FAIL else
            "the kernel panicked" if status == ktap.EXIT_PANIC else
            "QEMU exited with status %d" % status), file=sys.stderr)
        return status

    name = log_name(a.smp, a.mem, a.cmdline, os.environ.get("QEMU_OPTS", ""),
                    os.environ.get("QEMU_ACCEL", "tcg") or "tcg", a.firmware)
    log_path = os.path.join(a.log_dir, name + ".log")
    print("boottest: log in " + log_path)
    log, status, timed_out, secs, accel = run_boot(
        a.kernel, a.smp, a.mem, a.cmdline, a.timeout, log_path,
        firmware=a.firmware)
    reasons = ktap.verdict(log, status, timed_out, a.timeout)
    head, reasons = describe("%s [%s]" % (name, accel), log, reasons, secs)
    print(head)
    for r in reasons:
        print("    FAIL: " + r)
    print("    log: " + log_path)
    p, f, _ = ktap.counts(log)
    print("%d passed, %d failed" % (p, f + (1 if reasons and not f else 0)))
    return 1 if reasons else 0


if __name__ == "__main__":
    sys.exit(main())
